"""What a serving container starts, read from its rendered ``command`` and ``args`` as the engine will see them.

The kubelet expands ``$(VAR)`` in ``command``, ``args`` and env values from the container's env (``$$`` is a
literal ``$``); OME writes ``PARALLELISM_SIZE`` into that env (``components/engine.go:350-372``, already in the
rendered container) and LeaderWorkerSet adds ``LWS_GROUP_SIZE`` and ``LWS_WORKER_INDEX`` to every pod of a group
(``leaderworkerset_types.go``). A ``sh -c``/``bash -lc`` script (its text after the options and an optional
``--``) has its backslash-newlines joined and is split as the shell splits it (``shlex``), each command apart;
``$VAR`` and ``${VAR}`` take the same env. A value that depends on anything else (a ``status.*`` field, a
variable the script assigns, a command substitution) is unknown: an option holding one has no value, and a token
that may be an option by itself leaves every option not set after it unknown. Nothing unknown is guessed.
"""

from __future__ import annotations

import functools
import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from omerender.verify.serving.engines import ABBREVIATIONS, FLAGS, OPTIONS, Engine, Kind, from_image, program

Env = Mapping[str, str | None]  # name -> value, None when it is defined but cannot be known here
KUBE_REF = re.compile(r"\$\$|\$\(([^)]*)\)")
SHELL_REF = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*)|(.))", re.S)
SHELLS = frozenset({"sh", "bash", "dash", "ash", "zsh", "ksh"})
SHELL_HEADS = [[shell] for shell in ("sh", "bash", "/bin/sh", "/bin/bash", "/usr/bin/bash", "dash", "zsh")]
SEPARATORS = frozenset({";", "&&", "||", "|", "&", ";;", "|&"})
PREFIXES = frozenset({"exec", "nohup", "env"})
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
FIELD_LABEL = re.compile(r"^metadata\.labels\['([^']*)'\]$")
MAX_TOKENS = 20_000  # a longer command line is not read (bounded work on untrusted input)
MAX_SCRIPT = 65_536  # characters of a sh -c script read at most (the shell-like split is Python, char by char)
MAX_VALUE = 65_536  # characters variables may expand to in one argument; more is unknown


class Token(NamedTuple):
    """One argument the engine receives: its text (None when unknown) and the rendered item it comes from."""

    text: str | None
    field: str  # "command" or "args"
    item: int  # its index in the rendered container's list
    raw: str  # that item's text as written (a whole script for a token of one)


@dataclass
class Launch:
    """The engine a container starts and the options it reads (``engines.OPTIONS``), with their tokens."""

    engine: Engine
    values: dict[str, str | list[str] | bool | None] = field(default_factory=dict)  # None: given, not known
    tokens: dict[str, Token] = field(default_factory=dict)  # the option's own token, for locating it
    open: bool = False  # an unknown token may set an option not in ``values``
    positional: list[str | None] = field(default_factory=list)
    numbers: dict[str, int | None] = field(default_factory=dict, repr=False)  # number() of each option asked
    # What ``read_shared`` binds a shape with: the texts parsed, the indexes of those read as values of the listed
    # options, and of those right after an option not listed (perhaps its value).
    texts: list[str | None] = field(default_factory=list, repr=False)
    consumed: set[int] = field(default_factory=set, repr=False)
    after_unknown: set[int] = field(default_factory=set, repr=False)
    script: str | None = field(default=None, repr=False)  # the script the arguments come from, as written
    risky: list[int] = field(default_factory=list, repr=False)  # a shape's texts whose values may change the parse
    marked: list[str] = field(default_factory=list, repr=False)  # a shape's options whose values hold variables

    def value(self, name: str) -> str | list[str] | bool | None:
        """The option's value: given, else its default; None when unknown."""
        if name in self.values:
            return self.values[name]
        option = OPTIONS[self.engine].get(name)
        if self.open or option is None:  # unknown, or an option this engine does not have
            return None
        return option.default

    def text(self, name: str) -> str | None:
        found = self.value(name)
        return found if isinstance(found, str) else None

    def number(self, name: str) -> int | None:
        """The option as a whole number, None when unknown or not one (the engine would refuse it itself)."""
        if name in self.numbers:
            return self.numbers[name]
        found = self.text(name)
        number = None if found is None or not found.strip().isdigit() or len(found) > 9 else int(found)
        self.numbers[name] = number
        return number

    def flag(self, name: str) -> bool | None:
        found = self.value(name)
        return found if isinstance(found, bool) else None

    def given(self, name: str) -> bool:
        return name in self.values

    def spelling(self, name: str, default: str) -> str:
        """Option ``name`` as the container wrote it (``--mem-frac`` for ``--mem-fraction-static``, an accepted
        prefix; ``--gpu_memory_utilization`` as vLLM reads it): its token before any ``=``; ``default`` when it is
        not given."""
        token = self.tokens.get(name) if name in self.values else None
        if token is None or not token.text:
            return default
        return token.text.partition("=")[0]


def expand(text: str, env: Env) -> str | None:
    """``text`` after the kubelet's ``$(VAR)`` expansion; None when it names an unknown or undefined variable
    (Kubernetes leaves an undefined reference as text, which no engine option takes as meant)."""
    if "$" not in text:
        return text
    return _replaced(KUBE_REF, text, env)


def _replaced(pattern: re.Pattern[str], text: str, env: Env) -> str | None:
    """``text`` with each match of ``pattern`` (its group 1 a variable's name, ``$$`` a ``$``) replaced by the
    variable's value; None when one is unknown, or when the values come to more than ``MAX_VALUE`` characters
    (bounded memory: values may repeat one another)."""
    unknown, size = False, 0

    def swap(match: re.Match[str]) -> str:
        nonlocal unknown, size
        if match.group(0) == "$$":
            return "$"
        value = None if unknown else env.get(match.group(1))
        size += len(value) if value is not None else 0
        if value is None or size > MAX_VALUE:
            unknown = True
            return ""
        return value

    out = pattern.sub(swap, text)
    return None if unknown else out


UNKNOWN = "\x00\x01"  # the value of --name=VALUE when only VALUE is unknown: the option is still --name


def _expanded(raw: str, env: Env) -> str | None:
    """``expand``, but ``--name=$(VAR)`` with VAR unknown stays option ``--name`` of an unknown value."""
    text = expand(raw, env)
    if text is None and raw.startswith("-"):
        name, eq, _ = raw.partition("=")
        if eq and "$" not in name:
            return f"{name}={UNKNOWN}"
    return text


def _shell_expand(word: str, env: Env) -> str | None:
    if "$" not in word and "`" not in word:
        return word
    if "`" in word:
        return None
    unknown, size = False, 0

    def swap(match: re.Match[str]) -> str:
        nonlocal unknown, size
        name = match.group(1) or match.group(2)
        value = env.get(name) if name and not unknown else None
        size += len(value) if value is not None else 0
        if value is None or size > MAX_VALUE:
            unknown = True
            return ""
        return value

    out = SHELL_REF.sub(swap, word)
    return None if unknown else out


def _statements(script: str) -> str:
    """The script with backslash-newlines joined and each unquoted line break made a command separator."""
    script = script.replace("\\\r\n", "").replace("\\\n", "")
    out: list[str] = []
    quote = ""
    escaped = False
    for ch in script:
        if escaped:
            escaped = False
        elif ch == "\\" and quote != "'":
            escaped = True
        elif quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "\n":
            out.append("\n;")
            continue
        out.append(ch)
    return "".join(out)


def _script_words(script: str, env: Env) -> list[list[str | None]] | None:
    """Each command of ``script``, its words expanded; None when the script does not split (unbalanced quotes)."""
    lexer = shlex.shlex(_statements(script), posix=True, punctuation_chars=";&|")
    lexer.whitespace_split = True
    commands: list[list[str | None]] = [[]]
    assigned: dict[str, str | None] = {}
    try:
        for count, word in enumerate(lexer):
            if count > MAX_TOKENS:
                return None
            if word in SEPARATORS:
                commands.append([])
                continue
            current = commands[-1]
            if ASSIGNMENT.match(word) and (not current or current == ["export"]):
                assigned[word.split("=", 1)[0]] = None  # a variable the script sets: not known here
                continue
            current.append(_shell_expand(word, _Overlay(env, assigned) if assigned else env))
    except ValueError:
        return None
    return [c for c in commands if c]


class _Overlay(Mapping[str, str | None]):
    """``env`` with the variables a script assigns (unknown) over it; lookups only."""

    def __init__(self, env: Env, assigned: dict[str, str | None]) -> None:
        self.env, self.assigned = env, assigned

    def __getitem__(self, key: str) -> str | None:
        return self.assigned[key] if key in self.assigned else self.env.get(key)

    def get(self, key: str, default: Any = None) -> str | None:
        return self[key]

    def __iter__(self) -> Any:
        return iter(self.assigned)

    def __len__(self) -> int:
        return len(self.assigned)


def _shell_script(words: list[str | None]) -> int | None:
    """The index of the script in ``sh -c SCRIPT`` / ``bash -lc -- SCRIPT``, or None."""
    head = words[0]
    if head is None or head.rsplit("/", 1)[-1] not in SHELLS:
        return None
    i, has_c = 1, False
    while i < len(words):
        word = words[i]
        if word == "--":
            i += 1
            break
        if word is None or not word.startswith(("-", "+")) or len(word) < 2:
            break
        if word in ("-o", "+o"):
            i += 2
            continue
        has_c = has_c or (word.startswith("-") and "c" in word[1:])
        i += 1
    return i if has_c and i < len(words) else None


def _strip_prefix(words: list[str | None]) -> list[str | None]:
    """A command without ``exec``/``nohup``/``env`` and ``NAME=value`` before the program."""
    i = 0
    while i < len(words) and isinstance(words[i], str):
        word = str(words[i])
        if word in PREFIXES or ASSIGNMENT.match(word) or (word.startswith("-") and i > 0 and words[i - 1] == "env"):
            i += 1
            continue
        break
    return words[i:]


def container_env(
    container: dict[str, Any], namespace: str, labels: Mapping[str, str], injected: Env
) -> dict[str, str | None]:
    """The env a container's ``$(VAR)`` expand from: what the workload's controller adds (``injected``), then its
    own entries in order (a value expands only earlier ones, as the kubelet does); a ``fieldRef`` to the pod's
    namespace or one of its template's labels is known, any other ``valueFrom`` is not. A name not defined here
    (perhaps by ``envFrom``) is unknown."""
    env: dict[str, str | None] = dict(injected)
    for item in container.get("env") or []:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            continue
        value = item.get("value")
        source = item.get("valueFrom")
        if isinstance(source, dict):
            env[item["name"]] = _field_value(source, namespace, labels)
        elif isinstance(value, str):
            env[item["name"]] = expand(value, env)
        else:
            env[item["name"]] = ""
    return env


def _field_value(source: dict[str, Any], namespace: str, labels: Mapping[str, str]) -> str | None:
    ref = source.get("fieldRef")
    path = ref.get("fieldPath") if isinstance(ref, dict) else None
    if path == "metadata.namespace":
        return namespace
    found = FIELD_LABEL.match(path) if isinstance(path, str) else None
    return labels.get(found.group(1)) if found else None


MARK, END = "\x00", "\x01"  # a variable's value in a shape: MARK NAME END
MARKED = re.compile("\x00([^\x01]*)\x01")


class _Symbolic(Mapping[str, str | None]):
    """An env in which every variable is defined, as a mark its value replaces when a shape is bound."""

    def __getitem__(self, key: str) -> str:
        return f"{MARK}{key}{END}"

    def get(self, key: str, default: Any = None) -> str:
        return self[key]

    def __iter__(self) -> Any:
        return iter(())

    def __len__(self) -> int:
        return 0


SYMBOLIC = _Symbolic()
FALLBACK = "fallback"


class Lazy(Mapping[str, str | None]):
    """An env made on first use (``make``): a container whose shape holds no variable never makes it."""

    def __init__(self, make: Callable[[], Env]) -> None:
        self.make: Callable[[], Env] = make
        self.made: Env | None = None

    def _env(self) -> Env:
        if self.made is None:
            self.made = self.make()
        return self.made

    def __getitem__(self, key: str) -> str | None:
        return self._env()[key]

    def get(self, key: str, default: Any = None) -> str | None:
        return self._env().get(key)

    def __iter__(self) -> Any:
        return iter(self._env())

    def __len__(self) -> int:
        return len(self._env())


def read_shared(container: dict[str, Any], env: Env, names: tuple[str, ...] = ()) -> Launch | None:
    """``read``, the parse shared by every container with the same command, args and image (the pods of one
    runtime across InferenceServices): read once with each variable kept as a mark (its ``shape``), then bound to
    ``env``. ``names`` (the InferenceService's, which OME's placeholders write into a command) are kept as marks
    too, so that they do not make each command line a new one. When a variable's value could change how the
    arguments parse (it is unknown where it may be an option, looks like an option itself, or sits in a script
    the kubelet expands before the shell splits it), ``container`` is read in full instead."""
    command, args, image = container.get("command"), container.get("args"), container.get("image")
    masks = [(f"{MARK}@{i}{END}", name) for i, name in enumerate(names) if len(name) >= MIN_MASKED]
    masked_command, masked_args = _masked(command, masks), _masked(args, masks)
    if masked_command is FALLBACK or masked_args is FALLBACK:
        return read(container, env)  # text that looks like a mark is read as it is
    try:
        shape = _shape(masked_command, masked_args, image if isinstance(image, str) else None)
    except TypeError:  # an unhashable item: read it alone
        return read(container, env)
    if shape is None or isinstance(shape, str):
        return read(container, env) if shape == FALLBACK else None
    bound = _bind(shape, _Overlay(env, {mark[1:-1]: name for mark, name in masks}) if masks else env)
    return bound if bound is not None else read(container, env)


MIN_MASKED = 4  # a shorter name is left as it is (it would be found inside too many words)


def _masked(items: Any, masks: list[tuple[str, str]]) -> Any:
    """``items`` as a tuple, each name of ``masks`` replaced by its mark; FALLBACK when an item holds a mark's
    characters itself (it is read as it is), None for no list."""
    if not isinstance(items, list):
        return None
    out = []
    for item in items:
        if isinstance(item, str):
            if MARK in item or END in item:
                return FALLBACK
            for mark, name in masks:
                if name in item:
                    item = item.replace(name, mark)  # noqa: PLW2901 - the item as the key holds it
        out.append(item)
    return tuple(out)


@functools.lru_cache(maxsize=4096)
def _shape(command: tuple[Any, ...] | None, args: tuple[Any, ...] | None, image: str | None) -> Launch | str | None:
    container = {"command": None if command is None else list(command), "args": None if args is None else list(args)}
    items = [*(command or ()), *(args or ())]
    dollars = any("$" in str(item) or MARK in str(item) for item in items)
    found = read({**container, "image": image}, SYMBOLIC)
    if found is None:  # no engine: unless a variable names the program or its module, or sits in a script
        head = [str(item) for item in (command or args or ())[:4]]
        named = head[:1] + (head[head.index("-m") + 1 : head.index("-m") + 2] if "-m" in head else [])
        variable = any("$" in word for word in named) or any(MARK in word for word in head)  # a masked name
        return FALLBACK if dollars and (variable or head[:1] in SHELL_HEADS) else None
    if found.script and "$(" in found.script:
        return FALLBACK  # the kubelet expands a script before the shell splits it: a value may split it otherwise
    for i, text in enumerate(found.texts):
        if text is None or MARK not in text or i in found.consumed:
            continue
        if text.startswith("-") and MARK not in text.partition("=")[0]:
            continue  # an option whose name is written out: its value does not change how it parses
        found.risky.append(i)
    found.marked = [k for k, v in found.values.items() if isinstance(v, (str, list)) and _holds_mark(v)]
    return found


def _holds_mark(value: str | list[str]) -> bool:
    return MARK in value if isinstance(value, str) else any(MARK in item for item in value)


def _substitute(text: str, env: Env) -> str | None:
    return text if MARK not in text else _replaced(MARKED, text, env)


def _bind(shape: Launch, env: Env) -> Launch | None:
    """``shape`` with its variables' values from ``env`` (``shape`` itself when it has none); None when a value
    changes how the arguments parse."""
    if not shape.risky and not shape.marked:
        return shape  # read only, the same for every pod
    for i in shape.risky:
        real = _substitute(str(shape.texts[i]), env)
        if (real is None and i not in shape.after_unknown) or _looks_like_option(real):
            return None
    values = dict(shape.values)
    for name in shape.marked:
        value = values[name]
        if isinstance(value, str):
            values[name] = _substitute(value, env)
        elif isinstance(value, list):
            each = [_substitute(v, env) for v in value]
            if any(_looks_like_option(v) for v in each):
                return None  # the real value would end the option's list
            values[name] = None if any(v is None for v in each) else [v for v in each if v is not None]
    return Launch(shape.engine, values, shape.tokens, shape.open)


def read(container: dict[str, Any], env: Env) -> Launch | None:
    """The launch of ``container``: None for a program none of the checks knows, a Ray launcher, or a command
    line that cannot be read."""
    command, args = container.get("command"), container.get("args")
    command = command if isinstance(command, list) else []
    items: list[Any] = [*command, *args] if isinstance(args, list) else list(command)
    if len(items) > MAX_TOKENS:
        return None
    raws = [item if isinstance(item, str) else str(item) for item in items]
    texts = [_expanded(raw, env) for raw in raws]
    head = len(command)

    def origin(i: int) -> Token:
        at = i + skipped
        return Token(texts[at], "command", at, raws[at]) if at < head else Token(texts[at], "args", at - head, raws[at])

    skipped = 0
    if not command:
        engine = from_image(str(container.get("image") or ""))
        return None if engine is None else _parse(engine, texts, origin)
    script = _shell_script(texts)
    if script is not None:
        text = texts[script]
        if text is None or len(text) > MAX_SCRIPT:
            return None
        commands = _script_words(text, env)
        if commands is None:
            return None
        source = origin(script)
        for command_words in commands:
            words = _strip_prefix(command_words)
            found = program(words)
            if found.ray:
                return None
            if found.engine is not None:
                own = words[found.start :]
                launch = _parse(found.engine, own, functools.partial(_script_token, source, own))
                launch.script = source.raw
                return launch
        return None
    stripped = _strip_prefix(texts)
    found = program(stripped)
    if found.engine is None:
        return None
    skipped = len(texts) - len(stripped) + found.start
    return _parse(found.engine, texts[skipped:], origin)


def _script_token(source: Token, words: list[str | None], i: int) -> Token:
    """A word of a script: located at the script's item."""
    return source._replace(text=words[i])


def _parse(engine: Engine, texts: list[str | None], origin: Callable[[int], Token]) -> Launch:
    """The options of ``engine`` in ``texts`` (``origin(i)``: where the i-th comes from), as its argparse reads
    them (the last occurrence wins)."""
    by_flag, abbreviations = FLAGS[engine], ABBREVIATIONS[engine]
    launch = Launch(engine, texts=texts)
    i, count = 0, len(texts)
    after_option = False  # the previous token was an option omerender does not list (this may be its value)
    while i < count:
        text = texts[i]
        at = i
        i += 1
        if text is None:
            if not after_option:
                launch.open = True
                launch.values = dict.fromkeys(launch.values)  # it may set any option given before it
            after_option = False
            continue
        if text == "--":
            launch.positional += texts[i:]
            break
        if text[:1] != "-" or len(text) < 2 or _is_number(text):
            launch.positional.append(text)
            after_option = False
            continue
        name, eq, inline = text.partition("=")
        if engine is Engine.VLLM and name.startswith("--"):
            name = "--" + name[2:].replace("_", "-")
        option = by_flag.get(name)
        if option is None:
            after_option = not eq
            if after_option:
                launch.after_unknown.add(i)
            for other in abbreviations.get(name, ()):
                launch.values[other] = None  # an abbreviation argparse may take for it
                launch.tokens[other] = origin(at)
            continue
        after_option = False
        launch.tokens[option.name] = origin(at)
        if option.kind is Kind.FLAG:
            launch.values[option.name] = True
        elif option.kind is Kind.VALUE:
            if eq:
                launch.values[option.name] = None if inline == UNKNOWN else inline
                launch.consumed.add(at)
            elif i < count:
                launch.values[option.name] = texts[i]
                launch.consumed.add(i)
                i += 1
            else:
                launch.values[option.name] = None
        else:
            found: list[str] = [inline] if eq else []
            if eq:
                launch.consumed.add(at)
            known = inline != UNKNOWN
            while not eq and i < count and not _looks_like_option(texts[i]):
                value = texts[i]
                launch.consumed.add(i)
                i += 1
                if value is None:
                    known = False
                else:
                    found.append(value)
            launch.values[option.name] = found if known and found else None
    return launch


def _is_number(text: str) -> bool:
    if not (text[1:2].isdigit() or text[1:2] == "."):
        return False
    try:
        float(text)
    except ValueError:
        return False
    return True


def _looks_like_option(text: str | None) -> bool:
    return text is not None and text.startswith("-") and len(text) > 1 and not _is_number(text)
