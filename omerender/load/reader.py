"""Find input files, read them safely and turn every YAML document into a located object."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from omerender import codes
from omerender.data import drop_nulls
from omerender.diagnostics import ERROR, WARNING, Diagnostic
from omerender.load.obj import Obj
from omerender.load.yamlio import ParsedDocument, parse_documents, position
from omerender.ome import API_VERSION as OME_API_VERSION
from omerender.ome import KINDS as OME_KINDS
from omerender.ome import NAMESPACED_KINDS

YAML_SUFFIXES = (".yaml", ".yml")
DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024
STDIN = "-"


@dataclass
class LoadOptions:
    namespace: str = "default"
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES


@dataclass
class LoadResult:
    objects: list[Obj] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: list[str] = field(default_factory=list)


def _display(path: Path) -> str:
    return path.as_posix()


def _within(path: Path, roots: list[Path]) -> bool:
    return any(path == root or root in path.parents for root in roots)


def discover(paths: list[str]) -> tuple[list[str], list[Diagnostic]]:
    """Expand files and directories into YAML files, sorted; refuse links that leave the roots."""
    found: list[str] = []
    problems: list[Diagnostic] = []
    for given in paths:
        if given == STDIN:
            found.append(STDIN)
            continue
        root = Path(given)
        if not root.exists() and not root.is_symlink():
            problems.append(
                Diagnostic(given, 0, 0, ERROR, "no such file or directory", codes.INPUT_MISSING)
            )  # no location
            continue
        if not root.is_dir():
            found.append(_display(root))
            continue
        real_roots = [Path(os.path.realpath(p)) for p in paths if p != STDIN]
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
            base = Path(dirpath)
            kept_dirs = []
            for d in sorted(dirnames):
                full = base / d
                if d.startswith("."):
                    continue
                if full.is_symlink():
                    if _within(Path(os.path.realpath(full)), real_roots):
                        problems.append(
                            Diagnostic(
                                _display(full), 1, 1, WARNING, "symlinked directory not followed", codes.SYMLINK_SKIPPED
                            )
                        )
                    else:
                        problems.append(
                            Diagnostic(
                                _display(full),
                                1,
                                1,
                                ERROR,
                                "symlink points outside the input paths; refusing to follow it",
                                codes.SYMLINK_OUTSIDE,
                            )
                        )
                    continue
                kept_dirs.append(d)
            dirnames[:] = kept_dirs
            for name in sorted(filenames):
                if not name.endswith(YAML_SUFFIXES):
                    continue
                full = base / name
                if full.is_symlink() and not _within(Path(os.path.realpath(full)), real_roots):
                    problems.append(
                        Diagnostic(
                            _display(full),
                            1,
                            1,
                            ERROR,
                            "symlink points outside the input paths; refusing to follow it",
                            codes.SYMLINK_OUTSIDE,
                        )
                    )
                    continue
                found.append(_display(full))
    return found, problems


def _read(path: str, options: LoadOptions, stdin: Callable[[], bytes]) -> tuple[str | None, Diagnostic | None]:
    def fail(message: str, code: str, severity: str = ERROR) -> tuple[None, Diagnostic]:
        return None, Diagnostic(path, 1, 1, severity, message, code)  # type: ignore[arg-type]

    if path == STDIN:
        raw = stdin()
    else:
        try:
            st = os.stat(path)
        except OSError as exc:
            return fail(f"cannot read file: {exc.strerror}", codes.INPUT_UNREADABLE)
        if not stat.S_ISREG(st.st_mode):
            return fail("not a regular file (FIFO, socket or device); skipped", codes.SPECIAL_FILE, WARNING)
        if st.st_size > options.max_file_bytes:
            return fail(
                f"file is {st.st_size} bytes, over the {options.max_file_bytes}-byte cap (--max-file-size)",
                codes.FILE_TOO_LARGE,
            )
        try:
            with open(path, "rb") as fh:
                raw = fh.read(options.max_file_bytes + 1)
        except OSError as exc:
            return fail(f"cannot read file: {exc.strerror}", codes.INPUT_UNREADABLE)
    if len(raw) > options.max_file_bytes:
        return fail(f"input is over the {options.max_file_bytes}-byte cap (--max-file-size)", codes.FILE_TOO_LARGE)
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        return None, Diagnostic(path, line, col, ERROR, "file is not valid UTF-8", codes.ENCODING)
    return text.replace("\r\n", "\n"), None


def _yaml_error(path: str, exc: yaml.YAMLError, text: str = "") -> Diagnostic:
    if isinstance(exc, yaml.reader.ReaderError):
        at = min(max(exc.position, 0), len(text))
        line, col = text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1
        char = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or "?")
        return Diagnostic(
            path,
            line,
            col,
            ERROR,
            f"invalid YAML: character U+{char:04X} is not allowed ({exc.reason})",
            codes.YAML_SYNTAX,
        )
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    message = f"invalid YAML: {problem}" + (f" ({context})" if context else "")
    if mark is not None and 0 <= mark.index < len(text) and text[mark.index] == "\t":
        message = "invalid YAML: a tab character where YAML needs indentation or a token; indent with spaces"
    return Diagnostic(path, line, col, ERROR, " ".join(message.split()), codes.YAML_SYNTAX)


def _check_shape(obj: Obj) -> Diagnostic | None:
    if obj.kind and obj.kind in OME_KINDS and obj.body.get("apiVersion") != OME_API_VERSION:
        version = obj.body.get("apiVersion")
        return obj.diag(
            ERROR,
            f"{obj.kind} must have apiVersion {OME_API_VERSION}, not {version!r}",
            "apiVersion",
            code=codes.API_VERSION,
        )
    if not obj.is_ome:
        return None
    meta = obj.body.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    if name is not None and name != "" and not isinstance(name, str):
        return obj.diag(
            ERROR,
            f"{obj.kind} metadata.name must be a string, not {name!r}; quote it",
            "metadata",
            "name",
            code=codes.MISSING_NAME,
        )
    if not isinstance(name, str) or not name:
        return obj.diag(ERROR, f"{obj.kind} has no metadata.name", "metadata", code=codes.MISSING_NAME)
    return None


def to_object(path: str, doc: ParsedDocument, options: LoadOptions) -> tuple[Obj | None, Diagnostic | None]:
    if not isinstance(doc.data, dict):
        line, col = position(doc.node, ())
        return None, Diagnostic(
            path, line, col, ERROR, f"document {doc.index + 1} is not a mapping", codes.NOT_A_MAPPING
        )
    obj = Obj(path, doc.index, doc.data, doc.node)
    if "kind" not in doc.data or not isinstance(doc.data.get("kind"), str):
        return None, obj.diag(ERROR, f"document {doc.index + 1} has no kind", code=codes.MISSING_KIND)
    problem = _check_shape(obj)
    if problem is not None:
        return None, problem
    if obj.is_ome and "spec" in obj.body:
        if obj.body["spec"] is None:
            del obj.body["spec"]
        else:
            drop_nulls(obj.body["spec"])
    if obj.kind in NAMESPACED_KINDS:
        given = (obj.body.get("metadata") or {}).get("namespace")
        obj.namespace = given if isinstance(given, str) and given else options.namespace
    return obj, None


def load(paths: list[str], options: LoadOptions, stdin: Callable[[], bytes] = lambda: b"") -> LoadResult:
    result = LoadResult()
    files, problems = discover(paths)
    result.diagnostics.extend(problems)
    for path in files:
        text, problem = _read(path, options, stdin)
        shown = "<stdin>" if path == STDIN else path
        if problem is not None:
            result.diagnostics.append(
                problem
                if path != STDIN
                else Diagnostic(shown, problem.line, problem.col, problem.severity, problem.message, problem.code)
            )
            continue
        assert text is not None
        result.files.append(shown)
        try:
            for doc in parse_documents(text):
                obj, problem = to_object(shown, doc, options)
                if problem is not None:
                    result.diagnostics.append(problem)
                if obj is not None:
                    result.objects.append(obj)
        except yaml.YAMLError as exc:
            result.diagnostics.append(_yaml_error(shown, exc, text))
        except RecursionError:
            result.diagnostics.append(
                Diagnostic(shown, 1, 1, ERROR, "document nests too deeply to read", codes.YAML_DEPTH)
            )
    return result
