"""The settings file, ``.omerender.yaml``: found beside the inputs, read like any input, checked key by key.

Its keys are the long option names (``model-metadata``, ``search-path``, ...); paths in it are relative to the
file. A key no route knows, or a value of the wrong type, is an error at its line and column.

A pull request can add or change this file, so it decides what is rendered, never where anything is written nor
what is read outside the repository (docs/security.md): the file is read only when its real path lies inside the
repository; a key that names where omerender writes (``report-file``, ``status-file``, ``output-dir``, the
``=FILE`` of ``report-format``) is refused; every path it names for reading resolves (real path) inside the
repository, and the lock file (read and written) is reached by no symlink at all. The repository is the
route's (Argo CD's application, the KRM package), else the nearest folder at or above the file holding ``.git``,
else the file's own folder. A refused file is not read, and no message tells anything of what it points to.
"""

from __future__ import annotations

import os

import yaml

from omerender import codes
from omerender.catalogue import is_name
from omerender.diagnostics import ERROR, Diagnostic
from omerender.load.bounded import Budget, ReadProblem, parse_bounded, read_text
from omerender.load.reader import yaml_diagnostic
from omerender.names import clip
from omerender.paths import is_within, repository_of, symlink_below
from omerender.settings import (
    BY_STEM,
    FILE_ONLY_KEYS,
    PATH_KINDS,
    READS,
    SETTINGS_FILE,
    Kind,
    Layer,
    Origin,
    Route,
    SettingsError,
    Spec,
    coerce,
    for_route,
    value_schema,
)

MAX_BYTES = 1024 * 1024  # the settings file is read before --max-file-size is known, so its cap is its own
CAP_NAME = "fixed for the settings file; --max-file-size does not change it"
LOCK = "lock-file"


def _limit(folder: str, top: str | None) -> str:
    """The highest folder the search may read: ``top`` when given and above ``folder``, else the repository root
    (the nearest folder at or above ``folder`` holding ``.git``); outside any repository, the working folder when
    ``folder`` lies in it, else ``folder`` itself. A settings file above the repository is never read."""
    repository = repository_of(folder)
    has_git = os.path.lexists(os.path.join(repository, ".git"))
    if top is not None and is_within(folder, os.path.abspath(top)):
        last = os.path.abspath(top)
        return repository if has_git and is_within(repository, last) else last
    if has_git:
        return repository
    here = os.path.abspath(os.curdir)
    return here if is_within(folder, here) else folder


def find(paths: list[str], top: str | None = None) -> str | None:
    """``.omerender.yaml`` in the first of ``paths`` or a folder above it, up to the repository root (the
    folder holding ``.git``) or ``top`` when given, whichever is nearer; outside a repository, up to the working
    folder at most (``_limit``); None when there is none. A symlink of that name counts as found whether or not it
    leads anywhere: ``read`` refuses one that leaves the repository, so nothing tells whether its target exists."""
    given = paths[0] if paths else "."
    folder = os.path.abspath(given if os.path.isdir(given) else os.path.dirname(given) or ".")
    last = _limit(folder, top)
    while True:
        candidate = os.path.join(folder, SETTINGS_FILE)
        if os.path.islink(candidate) or os.path.isfile(candidate):
            return os.path.relpath(candidate)
        parent = os.path.dirname(folder)
        if folder in (parent, last):
            return None
        folder = parent


def _relative_to(path: str, value: str) -> str:
    return value if os.path.isabs(value) else os.path.normpath(os.path.join(os.path.dirname(path), value))


def _at(path: str, node: yaml.Node, message: str) -> Diagnostic:
    return Diagnostic(path, node.start_mark.line + 1, node.start_mark.column + 1, ERROR, message, codes.SETTINGS)


def _items(node: yaml.Node, count: int) -> list[yaml.Node]:
    """The node of each item of a list value (the value's own node for a comma-separated string)."""
    if isinstance(node, yaml.SequenceNode) and len(node.value) == count:
        return list(node.value)
    return [node] * count


class _Refused(Exception):
    def __init__(self, node: yaml.Node, message: str) -> None:
        super().__init__(message)
        self.node, self.message = node, message


def _confined(stem: str, given: str, resolved: str, root: str, node: yaml.Node) -> None:
    """Raise _Refused when ``resolved`` (``given`` in the file, made relative to it) leaves ``root``: its real path
    outside it or, for the lock file, which omerender also writes, a symlink anywhere on the way. The words are the
    same whether or not the path exists."""
    elsewhere = f"pass such a path on the command line (--{stem}) or in OMERENDER_{stem.replace('-', '_').upper()}"
    lexical = os.path.normpath(os.path.abspath(resolved))
    link = symlink_below(lexical, root) if stem == LOCK and is_within(lexical, root) else None
    if link is not None:
        raise _Refused(
            node,
            f"{stem} {clip(given)!r} passes through the symlink {clip(link)!r}: omerender reads and writes the lock, "
            f"so a settings file names it only by its own path inside the repository, no symlink on the way; "
            f"{elsewhere}",
        )
    written_out = stem == LOCK and not is_within(lexical, root)  # out and back in through a link is a link too
    if written_out or not is_within(os.path.realpath(lexical), os.path.realpath(root)):
        raise _Refused(
            node,
            f"{stem} {clip(given)!r} leads out of the repository: a settings file names only paths inside it (by "
            f"their real path); {elsewhere}",
        )


def _outside_the_schema(spec: Spec, data: object) -> str | None:
    """What the shipped settings schema refuses in ``data`` and ``coerce`` let through, if anything: an editor
    and omerender accept the same values."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    error = best_match(Draft202012Validator(value_schema(spec)).iter_errors(data))
    return None if error is None else f"{spec.stem}: {clip(error.message)} (schemas/omerender-settings.schema.json)"


def _entry(path: str, root: str, key: yaml.Node, value: yaml.Node, data: object) -> tuple[str, object]:
    """The stem and typed value of one key of the file; raises _Refused for a key or value it may not hold."""
    stem = str(key.value)
    spec = BY_STEM.get(stem)
    if spec is not None and spec.writes:
        raise _Refused(
            key,
            f"{stem} says where omerender writes, which a settings file does not choose (a pull request could change "
            f"it): pass --{stem} on the command line",
        )
    if spec is None or Route.FILE not in spec.routes:
        known = ", ".join([*(s.stem for s in for_route(Route.FILE)), *FILE_ONLY_KEYS])
        raise _Refused(key, f"unknown setting {clip(stem)!r} in {SETTINGS_FILE}; known: {known}")
    try:
        written = str(value.value) if isinstance(value, yaml.ScalarNode) else None
        typed = coerce(spec, data, stem, strict=True, written=written)
    except SettingsError as exc:
        raise _Refused(value, str(exc)) from None
    for item, node in zip(typed, _items(value, len(typed)), strict=True) if spec.kind is Kind.REPORTS else ():
        if "=" in item:
            raise _Refused(
                node,
                f"report-format {clip(item)!r}: a settings file chooses report formats, not the files they are "
                f"written to (a pull request could change them): pass --report-format {clip(item)} on the command "
                "line",
            )
    outside = _outside_the_schema(spec, data)
    if outside is not None:
        raise _Refused(value, outside)
    if spec.kind not in PATH_KINDS:
        return stem, typed
    items = typed if isinstance(typed, tuple) else (typed,)
    kept = []
    for item, node in zip(items, _items(value, len(items)), strict=True):
        if stem == "model-metadata" and is_name(item):
            kept.append(item)  # a shipped overlay's name (ome:v0.1.5) is no path: kept as written
            continue
        resolved = _relative_to(path, item)
        if stem in READS:
            _confined(stem, item, resolved, root, node)
        kept.append(resolved)
    return stem, tuple(kept) if isinstance(typed, tuple) else kept[0]


def _refused_file(path: str, root: str) -> Diagnostic | None:
    """An error when the file's real path leaves ``root``: the same words whether or not its target exists."""
    if is_within(os.path.realpath(path), os.path.realpath(root)):
        return None
    message = (
        f"{SETTINGS_FILE} leads out of the repository (a symlink); not read: a settings file is read only from "
        "inside the repository it configures"
    )
    return Diagnostic(path, 1, 1, ERROR, message, codes.SETTINGS)


def read(path: str, root: str | None = None, budget: Budget | None = None) -> tuple[Layer, list[Diagnostic]]:
    """The settings the file at ``path`` gives, and its problems (located at the key or value). ``root``: the
    repository it configures [default: the nearest folder at or above the file holding ``.git``, else its own]."""
    top = os.path.abspath(root) if root is not None else repository_of(os.path.dirname(os.path.abspath(path)))
    refused = _refused_file(path, top)
    if refused is not None:
        return Layer(Origin.FILE, {}), [refused]
    text = ""
    budget = budget or Budget(max_file_bytes=MAX_BYTES, cap_name=CAP_NAME)
    try:
        text = read_text(path, budget, "settings file")
        documents = list(parse_bounded(text, budget))
    except ReadProblem as exc:
        return Layer(Origin.FILE, {}), [Diagnostic(path, exc.line, exc.col, ERROR, exc.message, exc.code)]
    except yaml.YAMLError as exc:
        return Layer(Origin.FILE, {}), [yaml_diagnostic(path, exc, text)]
    except RecursionError:
        return Layer(Origin.FILE, {}), [Diagnostic(path, 1, 1, ERROR, "nests too deeply to read", codes.YAML_DEPTH)]
    if not documents or documents[0].data is None:
        return Layer(Origin.FILE, {}), []
    node, data = documents[0].node, documents[0].data
    if len(documents) > 1 or not isinstance(node, yaml.MappingNode) or not isinstance(data, dict):
        return Layer(Origin.FILE, {}), [_at(path, node, f"{SETTINGS_FILE} holds one mapping of settings")]
    values: dict[str, object] = {}
    problems: list[Diagnostic] = []
    for key, value in node.value:
        if key.value in FILE_ONLY_KEYS:
            continue  # read, with their positions, by load.serving_rules when a build runs the serving checks
        try:
            stem, typed = _entry(path, top, key, value, data.get(key.value))
        except _Refused as refused_entry:
            problems.append(_at(path, refused_entry.node, refused_entry.message))
        else:
            values[stem] = typed
    return Layer(Origin.FILE, values), problems


def read_mapping(values: dict[str, object], base: str, root: str) -> tuple[Layer, list[str]]:
    """The settings a mapping of settings-file keys gives (the ``spec`` of a KRM package's settings object), and
    its problems, each naming its key. The settings file's rules hold: the keys it takes, its types, nothing that
    says where omerender writes, paths relative to ``base`` that stay inside ``root``. The keys read only with
    their positions (``serving-check-exemptions``, ``serving-check-severity``) belong in ``.omerender.yaml``."""
    node = yaml.compose(yaml.safe_dump(values, sort_keys=False), Loader=yaml.SafeLoader)
    found: dict[str, object] = {}
    problems: list[str] = []
    anchor = os.path.join(base, SETTINGS_FILE)  # paths are relative to its folder, as given (relative stays)
    for key, value in node.value if isinstance(node, yaml.MappingNode) else ():
        if key.value in FILE_ONLY_KEYS:
            problems.append(f"{clip(str(key.value))}: read from {SETTINGS_FILE} only (with its line numbers)")
            continue
        try:
            stem, typed = _entry(anchor, os.path.abspath(root), key, value, values.get(key.value))
        except _Refused as refused:
            problems.append(refused.message)
        else:
            found[stem] = typed
    return Layer(Origin.FILE, found), problems
