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
SEPARATORS = frozenset({";", "&&", "||", "|", "&", ";;", "|&"})
PREFIXES = frozenset({"exec", "nohup", "env"})
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
FIELD_LABEL = re.compile(r"^metadata\.labels\['([^']*)'\]$")
MAX_TOKENS = 20_000  # a longer command line is not read (bounded work on untrusted input)


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


def expand(text: str, env: Env) -> str | None:
    """``text`` after the kubelet's ``$(VAR)`` expansion; None when it names an unknown or undefined variable
    (Kubernetes leaves an undefined reference as text, which no engine option takes as meant)."""
    if "$" not in text:
        return text
    unknown = False

    def swap(match: re.Match[str]) -> str:
        nonlocal unknown
        if match.group(0) == "$$":
            return "$"
        value = env.get(match.group(1))
        if value is None:
            unknown = True
            return ""
        return value

    out = KUBE_REF.sub(swap, text)
    return None if unknown else out


def _shell_expand(word: str, env: Env) -> str | None:
    if "$" not in word and "`" not in word:
        return word
    if "`" in word:
        return None
    unknown = False

    def swap(match: re.Match[str]) -> str:
        nonlocal unknown
        name = match.group(1) or match.group(2)
        value = env.get(name) if name else None
        if value is None:
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
            current.append(_shell_expand(word, {**env, **assigned} if assigned else env))
    except ValueError:
        return None
    return [c for c in commands if c]


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


def read_shared(container: dict[str, Any], env: Env) -> Launch | None:
    """``read``, shared by every container with the same command, args, image and env (the pods of one runtime
    across InferenceServices): the Launch it returns is read only."""
    command, args, image = container.get("command"), container.get("args"), container.get("image")
    try:
        key = (
            tuple(command) if isinstance(command, list) else None,
            tuple(args) if isinstance(args, list) else None,
            image if isinstance(image, str) else None,
            tuple(env.items()),
        )
        return _read(*key)
    except TypeError:  # an unhashable item: read it alone
        return read(container, env)


@functools.lru_cache(maxsize=4096)
def _read(
    command: tuple[Any, ...] | None, args: tuple[Any, ...] | None, image: str | None, env: tuple[Any, ...]
) -> Launch | None:
    container = {"command": None if command is None else list(command), "args": None if args is None else list(args)}
    return read({**container, "image": image}, dict(env))


def read(container: dict[str, Any], env: Env) -> Launch | None:
    """The launch of ``container``: None for a program none of the checks knows, a Ray launcher, or a command
    line that cannot be read."""
    command, args = container.get("command"), container.get("args")
    command = command if isinstance(command, list) else []
    items: list[Any] = [*command, *args] if isinstance(args, list) else list(command)
    if len(items) > MAX_TOKENS:
        return None
    raws = [item if isinstance(item, str) else str(item) for item in items]
    texts = [expand(raw, env) for raw in raws]
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
        if text is None:
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
                return _parse(found.engine, own, functools.partial(_script_token, source, own))
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
    launch = Launch(engine)
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
                launch.values[option.name] = inline
            elif i < count:
                launch.values[option.name] = texts[i]
                i += 1
            else:
                launch.values[option.name] = None
        else:
            found: list[str] = [inline] if eq else []
            known = True
            while not eq and i < count and not _looks_like_option(texts[i]):
                value = texts[i]
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
