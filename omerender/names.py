"""Names and label keys the OME controller derives (with its hash-shortening of long names), and hints
about names: a "did you mean", look-alike characters, long values cut short in messages."""

from __future__ import annotations

import difflib
import hashlib
import re
import unicodedata
from collections.abc import Iterable

HASH_PREFIX_LENGTH = 8
MAX_LABEL_NAME_LENGTH = 49
MODEL_LABEL_DOMAIN = "models.ome.io"
DNS_LABEL_PATTERN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
DNS_LABEL_MAX = 63
DNS_1123_LABEL = re.compile(DNS_LABEL_PATTERN)
DNS_1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
# the rules in the words the API server's messages use, for is_dns_label and is_dns_subdomain
LABEL_RULE = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character, at most 63 characters"
)
SUBDOMAIN_RULE = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character, at most 253 characters"
)


def _hash8(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:HASH_PREFIX_LENGTH]


def _shorten(text: str, max_length: int, hash_prefix: str) -> str:
    if len(text) <= max_length:
        return text
    suffix_length = max_length - HASH_PREFIX_LENGTH - 1
    if suffix_length <= 0:
        return hash_prefix[:max_length]
    return f"{hash_prefix}-{text[len(text) - suffix_length :]}"


def truncate_with_hash(text: str, max_length: int) -> str:
    if len(text) <= max_length:
        return text  # _shorten's answer, without hashing
    return _shorten(text, max_length, _hash8(text))


def truncate_name(name: str, max_length: int = 63) -> str:
    """OME's TruncateNameWithMaxLength: a hashed prefix that never starts with a digit."""
    if len(name) <= max_length:
        return name  # _shorten's answer, without hashing
    prefix = _hash8(name)
    if prefix[0].isdigit():
        prefix = "a" + prefix[1:]
    return _shorten(name, max_length, prefix)


def cluster_model_label(model: str) -> str:
    room = MAX_LABEL_NAME_LENGTH - len("clusterbasemodel") - 1
    return f"{MODEL_LABEL_DOMAIN}/clusterbasemodel.{truncate_with_hash(model, room)}"


def namespaced_model_label(namespace: str, model: str) -> str:
    room = MAX_LABEL_NAME_LENGTH - len("basemodel.") - 1
    if len(namespace) + len(model) <= room:
        return f"{MODEL_LABEL_DOMAIN}/{namespace}.basemodel.{model}"
    minimum = 8
    if room < minimum * 2:
        ns_room = room // 2
    else:
        ns_room = len(namespace) if len(namespace) <= minimum else minimum
    model_room = room - ns_room
    return (
        f"{MODEL_LABEL_DOMAIN}/{truncate_with_hash(namespace, ns_room)}"
        f".basemodel.{truncate_with_hash(model, model_room)}"
    )


def shown_as(kind: str, namespace: str, name: str) -> str:
    """``KIND NAMESPACE/NAME`` (``KIND NAME`` for a cluster-scoped object): how text views name a runtime or an
    InferenceService, so that a ServingRuntime and the ClusterServingRuntime it shadows read apart."""
    return f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"


def model_config_map_name(isvc: str) -> str:
    """``modelconfig-`` plus the last 20 characters of the InferenceService name."""
    return "modelconfig-" + isvc[-20:]


def is_dns_label(name: str) -> bool:
    return len(name) <= DNS_LABEL_MAX and bool(DNS_1123_LABEL.fullmatch(name))


def is_dns_subdomain(name: str) -> bool:
    return len(name) <= 253 and bool(DNS_1123_SUBDOMAIN.fullmatch(name))


QUALIFIED_NAME_PART = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
MAX_QUALIFIED_NAME_PART = 63
MAX_ANNOTATIONS_BYTES = 256 * 1024  # the API server's limit on all of an object's annotation keys and values
NAME_PART_RULE = (
    "the name part must be at most 63 characters of letters, digits, '-', '_' or '.', starting and ending with a "
    "letter or digit"
)


def qualified_name_problem(key: str) -> str | None:
    """Why ``key`` is not a qualified name (a label or annotation key: an optional DNS-1123 subdomain prefix
    and ``/``, then a name part), in the API server's terms, or None when it is one."""
    prefix, slash, name = key.rpartition("/")
    if slash and "/" in prefix:
        return "a qualified name must be an optional prefix and '/' and a name, with one '/' at most"
    if slash and not prefix:
        return "the prefix before '/' must not be empty"
    if prefix and not is_dns_subdomain(prefix):
        return f"the prefix part must be a DNS-1123 subdomain ({SUBDOMAIN_RULE})"
    if not name:
        return "the name part must not be empty"
    if len(name) > MAX_QUALIFIED_NAME_PART or not QUALIFIED_NAME_PART.fullmatch(name):
        return NAME_PART_RULE
    return None


def clip(value: object, limit: int = 80) -> str:
    """``value`` as text for a message, cut to ``limit`` characters and an ellipsis: hostile input can
    be megabytes long, and a message echoes it once per finding."""
    text = str(value)
    return text if len(text) <= limit else text[:limit] + "…"


# "did you mean" for a name that is not there, bounded for hostile input: at most MAX_CANDIDATES names
# are compared, each cut to MAX_NAME characters, so a hint costs the same however many objects there are.
MAX_CANDIDATES = 200
MAX_NAME = 253


def close_to(name: str, candidates: Iterable[str]) -> str | None:
    """The closest of ``candidates`` to ``name`` (not ``name`` itself), or None."""
    pool: list[str] = []
    for candidate in candidates:
        if candidate != name:
            pool.append(candidate[:MAX_NAME])
        if len(pool) >= MAX_CANDIDATES:
            break
    found = difflib.get_close_matches(name[:MAX_NAME], sorted(set(pool)), n=1, cutoff=0.75)
    return found[0] if found else None


def non_ascii(name: str) -> str:
    """`` (it holds U+0430 CYRILLIC SMALL LETTER A)`` for a name with characters that look like others."""
    odd = [ch for ch in dict.fromkeys(name) if not ch.isascii()][:3]
    if not odd:
        return ""
    shown = ", ".join(f"U+{ord(ch):04X} {unicodedata.name(ch, '?')}" for ch in odd)
    return f" (it holds non-ASCII characters: {shown})"


def hint(name: str, candidates: Iterable[str]) -> str:
    """``; did you mean "x"?`` plus the look-alike note, or ``""``."""
    found = close_to(name, candidates)
    mean = f'; did you mean "{found}"{non_ascii(found)}?' if found else ""
    return non_ascii(name) + mean
