"""fastjsonschema validators, their generated code kept in a cache folder so a run loads it instead of compiling.

Compiling one schema costs 20-50 ms (the OME input kinds, each Kubernetes kind); loading the generated
module costs about a millisecond. The code is keyed by a hash of the schema, the caller's key and
fastjsonschema's version, so a changed schema or library never meets stale code. The folder is given
by the CLI layer (``set_cache_dir``); without one, validators are compiled in memory for each run.
Code is only loaded from a folder and files owned by this user that nobody else can write to, and is
written through a temporary file and a rename, so concurrent runs never see half of it.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import re
import stat
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

Validate = Callable[[Any], Any]  # raises fastjsonschema.JsonSchemaValueException on an invalid value

_cache_dir: Path | None = None
_ENTRY = re.compile(r"^def (\w+)\(data", re.MULTILINE)


def set_cache_dir(path: str | None) -> None:
    """Where generated validators are kept; None keeps them in memory only."""
    global _cache_dir  # noqa: PLW0603 - set once by the CLI layer, read by the core
    _cache_dir = Path(path) if path else None


def cache_dir() -> Path | None:
    return _cache_dir


def _private(path: Path, directory: bool) -> bool:
    try:
        st = os.lstat(path)
    except OSError:
        return False
    kind_ok = stat.S_ISDIR(st.st_mode) if directory else stat.S_ISREG(st.st_mode)
    return kind_ok and st.st_uid == os.getuid() and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _compiled(code: str) -> bytes:
    """The entry function's name, a line break, then the module's marshalled code object."""
    match = _ENTRY.search(code)
    if match is None:
        raise ValueError("generated code has no validate function")
    return match.group(1).encode() + b"\n" + marshal.dumps(compile(code, "<fastjsonschema>", "exec"))


def _load(blob: bytes) -> Validate:
    name, _, body = blob.partition(b"\n")
    scope: dict[str, Any] = {}
    exec(marshal.loads(body), scope)  # noqa: S102,S302 - code fastjsonschema generated, from a private folder
    return scope[name.decode()]  # type: ignore[no-any-return]


def _read_cached(path: Path) -> bytes | None:
    if not (_private(path.parent, True) and _private(path, False)):
        return None
    try:
        return path.read_bytes()
    except OSError:
        return None


def _write_cached(path: Path, blob: bytes) -> None:
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _private(path.parent, True):
            return
        fd, tmp = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(blob)
        os.replace(tmp, path)
    except OSError:  # a cache that cannot be written only costs time
        return


def validator(key: str, schema: Callable[[], Any], **options: Any) -> Validate:
    """The compiled validator of ``schema()`` (called only to compile), cached under ``key`` and ``options``.

    ``key`` must change whenever the schema does: callers pass a hash of the schema's source text.
    ``options`` go to ``fastjsonschema.compile_to_code``, whose ``handlers`` are left out of the key.
    Compiling the generated source costs more than generating it, so the compiled code object is kept
    (marshalled, keyed by the Python version too).
    """
    import fastjsonschema

    named = {k: v for k, v in sorted(options.items()) if k != "handlers"}
    ident = json.dumps([key, fastjsonschema.VERSION, sys.version, named], sort_keys=True, default=repr)
    path = _cache_dir / f"{hashlib.sha256(ident.encode()).hexdigest()[:40]}.bin" if _cache_dir else None
    blob = _read_cached(path) if path is not None else None
    if blob is not None:
        try:
            return _load(blob)
        except Exception:  # noqa: BLE001 - a damaged cache entry is compiled again
            blob = None
    blob = _compiled(fastjsonschema.compile_to_code(schema(), **options))
    if path is not None:
        _write_cached(path, blob)
    return _load(blob)


def without_const(schema: Any) -> Any:
    """``const: X`` as ``enum: [X]``: fastjsonschema 2.22 fails on ``const`` with ``detailed_exceptions=False``
    (KeyError 'definition_rule'), and detailed exceptions make the generated code four times larger."""
    if isinstance(schema, dict):
        out = {k: without_const(v) for k, v in schema.items() if k != "const"}
        if "const" in schema:
            out["enum"] = [schema["const"]]
        return out
    if isinstance(schema, list):
        return [without_const(v) for v in schema]
    return schema


def text_hash(*texts: str) -> str:
    return hashlib.sha256("\0".join(texts).encode()).hexdigest()
