"""A yes/no schema check in native code, run before the explaining validator.

Nearly every object omerender validates is valid, and jsonschema (pure Python) takes about 2 ms to
say so for a Deployment. jsonschema-rs answers the same question in microseconds, and builds a
validator in a few milliseconds, so nothing is compiled ahead or cached on disk. Only a value it
rejects goes to jsonschema, whose errors are the ones reported; where the two disagree on a
rejection, the caller trusts jsonschema.

Schemas come from the package only, never from input, and no ``$ref`` is fetched over the network:
every referenced document is given in a ``registry``, and any other reference fails the build of the
validator, which leaves the caller with jsonschema alone.

Native code cannot report running out of memory: where an allocation fails, Rust prints "memory allocation
of N bytes failed" (and a backtrace when RUST_BACKTRACE is set) and aborts the process (exit 134), where
Python raises ``MemoryError``, which omerender reports in one line. So under an address-space limit
(``ulimit -v``) jsonschema-rs is only asked while ``NATIVE_ROOM`` of address space is still free, and
jsonschema answers otherwise: the same verdicts, slower.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from omerender.headroom import MiB, room

if TYPE_CHECKING:
    from jsonschema_rs import Registry

Check = Callable[[Any], bool]

NATIVE_ROOM = 16 * MiB
"""Address space that must be free (under ``ulimit -v``) before jsonschema-rs builds or runs a validator: the
largest validator omerender builds takes under 4 MiB."""


def room_for_native() -> bool:
    """Whether native code may allocate without the risk of aborting the process (see ``omerender.headroom``)."""
    return room(NATIVE_ROOM)


def _no_retrieval(uri: str) -> Any:
    raise ValueError(f"omerender fetches no schema at run time: {uri}")


def registry(resources: Sequence[tuple[str, dict[str, Any]]]) -> Registry | None:
    """The documents ``$ref``s may point into, read once (the Kubernetes definitions are 1.8 MB) and shared by
    every validator built on them; ``None`` if jsonschema-rs cannot read them."""
    try:
        import jsonschema_rs  # first: mapping its 15 MB takes address space too

        if not room_for_native():
            return None
        return jsonschema_rs.Registry(list(resources), retriever=_no_retrieval)
    except Exception:  # noqa: BLE001 - no wheel, or documents it cannot read: jsonschema alone checks
        return None


def predicate(
    schema: dict[str, Any], documents: Registry | None = None, keywords: dict[str, type] | None = None
) -> Check | None:
    """Whether a value is valid under ``schema`` (Draft 2020-12, ``format`` an annotation, as for jsonschema
    without a format checker), its references resolved in ``documents`` (a ``registry``) and nowhere else,
    each of ``keywords`` checked by its class (built with the keyword's schema, value and path; its ``validate``
    raises on a bad value); ``None`` if jsonschema-rs cannot build a validator for it (or there is no room)."""
    try:
        import jsonschema_rs  # first: mapping its 15 MB takes address space too

        if not room_for_native():
            return None
        validator = jsonschema_rs.Draft202012Validator(
            schema, registry=documents, retriever=_no_retrieval, validate_formats=False, keywords=keywords
        )
    except Exception:  # noqa: BLE001 - a schema it cannot build (or no wheel): jsonschema alone checks
        return None

    def passes(value: Any) -> bool:
        if not room_for_native():
            return False  # jsonschema decides
        try:
            return bool(validator.is_valid(value))
        except Exception:  # noqa: BLE001 - a value it cannot read (bytes, a non-string key): jsonschema decides
            return False

    return passes
