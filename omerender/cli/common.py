"""What every command shares: exit codes, the one guard, the report helper and every shared option, defined once."""

from __future__ import annotations

import contextlib
import errno
import functools
import io
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import click

from omerender import __version__
from omerender.constants import DEFAULT_KUBE_VERSION
from omerender.diagnostics import one_line
from omerender.errors import EXIT_FINDINGS, OmerenderError
from omerender.settings import Settings

if TYPE_CHECKING:
    from omerender.diagnostics import Diagnostic
    from omerender.output.ci_reports import Subject
    from omerender.output.repo_paths import RepoRoot
    from omerender.result import BuildResult

EXIT_INTERNAL = 3  # EXIT_FINDINGS (1) and EXIT_USAGE (2) come with the errors they mean
F = TypeVar("F", bound=Callable[..., Any])


def _terminate_as_interrupt() -> None:
    """SIGTERM (a CI job cancelled, a pod stopped) is handled like Ctrl-C: clean up, exit 130."""
    import signal
    import threading

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, interrupt)


def _stdout_failed(exc: OSError) -> None:
    """Say stdout could not be written (a full disk, a closed pipe) and exit 1; nothing more goes there."""

    with (
        open(os.devnull, "w", encoding="utf-8") as devnull,
        contextlib.suppress(OSError, ValueError, AttributeError),
    ):
        os.dup2(devnull.fileno(), sys.stdout.fileno())
    click.echo(f"omerender: error: cannot write to standard output: {exc.strerror or exc}", err=True)
    sys.exit(EXIT_FINDINGS)


_kept: list[object] | None = None  # while ``run`` exits hard: what the process ends with, never freed one by one


def keep_to_exit(value: object) -> None:
    """Under ``cli.run``, hold ``value`` until the process ends, so leaving the command frees nothing object by
    object (a large build holds millions); in a test's CliRunner, nothing is held."""
    if _kept is not None:
        _kept.append(value)


class _ClosedStdout(io.TextIOBase):
    """Standard output the caller closed (``>&-``): writing to it is the error ``cannot write to standard output``."""

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "it is closed")


class _Descriptor(io.RawIOBase):
    """Standard output or error as the run writes it: every byte (a full non-blocking pipe is waited on, so
    nothing is dropped), until the reader has gone (EPIPE: ``omerender build | head -1``).

    A reader that closes its end has read all it wants: from then on this stream is silently dropped and the
    command ends with the exit code of its own verdict. Go programs such as kubectl die of SIGPIPE there
    without a message (a shell sees 141), which ``set -o pipefail`` counts as a failure of the writer; the
    reader's own exit status already says whether the pipeline failed, so omerender, like ripgrep, stays
    quiet and keeps its code. A full disk or a closed descriptor is still an error (``cannot write``).
    """

    def __init__(self, fd: int) -> None:
        from omerender.output.onefile import write_all  # now: a write must not need memory for an import

        super().__init__()
        self._fd = fd
        self._write_all = write_all
        self.reader_gone = False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)

    def write(self, data: Any) -> int:
        if not self.reader_gone:
            try:
                self._write_all(self._fd, bytes(data))
            except BrokenPipeError:
                self.reader_gone = True
        return len(data)


def _wrapped(old: Any, fd: int) -> io.TextIOWrapper:
    return io.TextIOWrapper(
        io.BufferedWriter(_Descriptor(fd)),
        encoding=old.encoding,
        errors=old.errors,
        line_buffering=old.line_buffering,
        write_through=fd == 2,
    )


def _standard_streams() -> None:
    """Closed descriptors 0-2 are held on /dev/null (so no file the run opens becomes one), a closed stdout
    fails at its first write, and stdout and stderr are written through ``_Descriptor``: patiently, and
    quietly dropped once their reader has gone."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            spare = os.open(os.devnull, os.O_RDWR)
            if spare != fd:
                os.dup2(spare, fd)
                os.close(spare)
    if sys.stdout is None:
        sys.stdout = _ClosedStdout()
    else:
        sys.stdout.flush()
        sys.stdout = _wrapped(sys.stdout, sys.stdout.fileno())
    if sys.stderr is not None:
        sys.stderr.flush()
        sys.stderr = _wrapped(sys.stderr, sys.stderr.fileno())


def exit_hard(main: Callable[[], Any]) -> None:
    """Run ``main`` and end the process with its exit code, once stdout and stderr are flushed, without the
    interpreter's teardown (mypy ends the same way): the outputs are written and closed by then.

    A write to stdout that fails outside a command (``--help``, ``--version``, ``completion`` into a full
    disk) or at the final flush is one line on stderr and exit 1, never a traceback or a silent exit 0.
    """
    global _kept  # noqa: PLW0603 - one switch for the process, set by its entry point
    _kept = []
    with contextlib.suppress(OSError, ValueError, AttributeError):
        _standard_streams()
    try:
        main()
        code: Any = 0
    except SystemExit as exc:
        code = exc.code
    except OSError as exc:
        code = _lost_stdout(exc)
    except MemoryError:  # outside a command's guard (parsing, the closing summary): one line, no traceback
        with contextlib.suppress(OSError):
            os.write(2, b"omerender: error: out of memory\n")
        code = EXIT_FINDINGS
    if code is None:
        code = 0
    elif not isinstance(code, int):
        click.echo(str(code), err=True)  # what Python prints for sys.exit("text")
        code = 1
    try:
        sys.stdout.flush()
    except (OSError, ValueError) as exc:
        code = _lost_stdout(exc) if isinstance(exc, OSError) else EXIT_FINDINGS
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stderr.flush()
    os._exit(code)


def _lost_stdout(exc: OSError) -> int:
    """After a failed write to stdout: stop writing there, say so in one line, and exit 1."""
    with (
        open(os.devnull, "w", encoding="utf-8") as devnull,
        contextlib.suppress(OSError, ValueError, AttributeError),
    ):
        os.dup2(devnull.fileno(), sys.stdout.fileno())
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - held until the process ends
        click.echo(f"omerender: error: cannot write to standard output: {exc.strerror or exc}", err=True)
    return EXIT_FINDINGS


def _flush_stdout() -> None:
    """Flush stdout now, so a full or closed stdout is an error of this run, not a message at exit."""
    try:
        sys.stdout.flush()
    except OSError as exc:
        _stdout_failed(exc)


def _aborted() -> None:
    """The run ends on an error line of ``guard``'s, not on its verdict: ``-v`` adds no summary after it."""
    from omerender.cli.verdict import tally

    tally().aborted = True


def guard(fn: F) -> F:
    """Turn anything unexpected into one line on stderr and exit 3, never a traceback.

    A failed write (``WriteError``, or any ``OSError``: a full disk, a read-only folder, a full
    stdout) is the environment, not a bug: one line naming the user's path, exit 1. So is running out of
    memory (``MemoryError``).
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        _terminate_as_interrupt()
        try:
            try:
                result = fn(*args, **kwargs)
            except SystemExit:
                _flush_stdout()
                raise
            _flush_stdout()
            return result
        except (click.exceptions.Exit, click.ClickException, click.exceptions.Abort, SystemExit):
            raise
        except OmerenderError as exc:
            _aborted()
            click.echo(f"omerender: error: {one_line(str(exc))}", err=True)
            sys.exit(exc.exit_code)
        except KeyboardInterrupt:
            _aborted()
            click.echo("omerender: interrupted", err=True)
            sys.exit(130)
        except MemoryError:  # the environment (ulimit -v, a container's limit), not a bug: one line, exit 1
            click.echo("omerender: error: out of memory", err=True)
            sys.exit(EXIT_FINDINGS)
        except OSError as exc:
            _aborted()
            if not exc.filename:  # files are named (WriteError, read diagnostics): this was stdout
                _stdout_failed(exc)
            click.echo(f"omerender: error: {exc.filename}: {exc.strerror or exc}", err=True)
            sys.exit(EXIT_FINDINGS)
        except Exception as exc:  # noqa: BLE001 - the one place internal errors become exit 3
            _aborted()
            click.echo(f"omerender: internal error: {type(exc).__name__}: {exc}", err=True)
            sys.exit(EXIT_INTERNAL)

    return wrapper  # type: ignore[return-value]


def stdin(limit: int = -1) -> bytes:
    """Standard input, at most ``limit`` bytes (the bounded reader asks for its cap plus one)."""
    return sys.stdin.buffer.read(limit)


stdin.bounded = True  # type: ignore[attr-defined]


def report(
    diagnostics: list[Diagnostic],
    formats: tuple[str, ...],
    report_file: str | None,
    max_errors: int | None,
    verbose: int,
    subjects: Callable[[], Sequence[Subject]] = tuple,
) -> None:
    """Every report asked for: each ``FMT=FILE`` to its file, the one bare FMT (text if none) to ``report_file``
    or stderr. ``subjects`` gives the runtimes and InferenceServices, called only when ``junit`` or ``gitlab``
    is asked for."""
    from omerender.cli.verdict import count_reported
    from omerender.errors import UsageError
    from omerender.output.reporters import render_report
    from omerender.settings import report_targets

    shown = [d for d in diagnostics if d.severity != "info" or verbose > 0]
    targets = report_targets(formats)
    bare = [fmt for fmt, file in targets if file is None] or ["text"]
    count_reported(diagnostics, machine_stderr=bare[0] != "text" and report_file is None)
    named = [(fmt, file) for fmt, file in targets if file is not None]
    twice = named_twice(report_file, formats)
    if twice:
        raise UsageError(twice)
    cases = subjects() if any(fmt in ("junit", "gitlab") for fmt, _ in targets) else ()
    ci_log = os.environ.get("GITHUB_ACTIONS") == "true"  # file names must not start workflow commands there
    repo = repo_root() if any(fmt not in ("text", "json") for fmt, _ in [(bare[0], None), *named]) else None
    for fmt, file in [(bare[0], report_file), *named]:
        text = render_report(
            fmt, shown, max_errors=max_errors, tool_version=__version__, subjects=cases, ci_log=ci_log, repo=repo
        )
        if file:
            from omerender.output.writer import write_file

            write_file(file, text)
        elif text:
            click.echo(text, err=True, nl=False)


def repo_root() -> RepoRoot | None:
    """Where this run is: its folder and the repository root above it (the nearest folder holding ``.git``),
    for the reports CI systems read; None when the working folder is gone."""
    from omerender.gitops.confine import root_of
    from omerender.output.repo_paths import RepoRoot

    try:
        cwd = os.getcwd()
    except OSError:
        return None
    return RepoRoot(cwd, root_of(cwd, ""))


def named_twice(report_file: str | None, formats: tuple[str, ...]) -> str | None:
    """The problem when two reports would be written to one file, however its path is spelt (``x``, ``./x``, a
    symlink to it): one would overwrite the other."""
    from omerender.settings import report_targets

    seen: dict[str, str] = {}
    given = [(f"--report-file {report_file}", report_file)] if report_file else []
    given += [(f"--report-format {fmt}={file}", file) for fmt, file in report_targets(formats) if file is not None]
    for shown, file in given:
        real = os.path.realpath(file)
        if real in seen:
            return f"{seen[real]} and {shown} name one file; give each report its own"
        seen[real] = shown
    return None


def refuse_reports_in_input(settings: Settings, inputs: list[str], command: str) -> None:
    """Usage errors, before anything is read: two reports to one file, or a report file that is an input or a YAML
    file inside an input folder (the next run would read it), unless ``--allow-output-in-input``."""
    from omerender.output.overlap import conflicts
    from omerender.settings import BY_STEM, report_targets

    twice = named_twice(settings.report_file, settings.report_format)
    if twice:
        raise click.UsageError(twice)
    if settings.allow_output_in_input:
        return
    outputs = [("--report-file", settings.report_file)]
    outputs += [(f"--report-format {fmt}=", file) for fmt, file in report_targets(settings.report_format) if file]
    allowable = command in BY_STEM["allow-output-in-input"].commands
    problems = conflicts(inputs, outputs, allowable)
    if problems:
        raise click.UsageError("; ".join(problems))


def subjects_of(*results: BuildResult) -> Callable[[], Sequence[Subject]]:
    """The runtimes and InferenceServices of ``results`` for the junit report, read only if it is asked for."""

    def read() -> Sequence[Subject]:
        from omerender.output.ci_reports import subjects_of as read_subjects

        return [subject for result in results for subject in read_subjects(result)]

    return read


def report_settings(diagnostics: list[Diagnostic], settings: Settings, *results: BuildResult) -> None:
    """``report`` with the run's report settings; ``results``: the builds whose subjects a junit report lists
    (the last one is what ``-v``'s summary counts)."""
    from omerender.cli.verdict import count_read

    if results:
        count_read(results[-1])
    report(
        diagnostics,
        settings.report_format,
        settings.report_file,
        settings.max_errors,
        settings.verbose,
        subjects_of(*results),
    )


def resolve_kube_version(given: str | None, label: str = "--kube-version") -> str | None:
    """The one reading of ``--kube-version`` (and Argo CD's KUBE_VERSION) for every command.

    Returns the installed release's ``major.minor`` to check with, or None to skip the check; the
    accepted forms and the rule for releases without schemas are in omerender.verify.kube_version.
    """
    from omerender.verify.kube_version import KubeVersionError, choose, parse

    if given is None or not given.strip():
        return None
    try:
        if parse(given) is None:
            return None
    except KubeVersionError as exc:
        raise click.BadParameter(str(exc), param_hint=f"'{label}'") from None
    from omerender.verify.kube_schema import available_versions

    installed = available_versions()
    if not installed and given == DEFAULT_KUBE_VERSION:
        click.echo(
            "omerender: warning: no Kubernetes schemas are installed, so rendered objects are not checked against them",
            err=True,
        )
        return None
    try:
        picked = choose(given, installed)
    except KubeVersionError as exc:
        raise click.BadParameter(str(exc), param_hint=f"'{label}'") from None
    if picked.warning:
        click.echo(f"omerender: warning: {label} {given.strip()}: {picked.warning}", err=True)
    return picked.version


def refuse_output_in_input(inputs: list[str], outputs: list[tuple[str, str | None]], allowable: bool = True) -> None:
    from omerender.output.overlap import conflicts

    problems = conflicts(inputs, outputs, allowable)
    if problems:
        raise click.UsageError("; ".join(problems))


def namespace_callback(ctx: click.Context, param: click.Parameter, value: str) -> str:
    from omerender.names import is_dns_label

    if not is_dns_label(value):
        shown = value if len(value) <= 80 else value[:80] + "…"
        raise click.BadParameter(
            f"{shown!r} is not a valid namespace: a DNS-1123 label (lower case letters, digits and '-', "
            "starting and ending with a letter or digit, at most 63 characters)"
        )
    return value


paths_argument = click.argument("paths", nargs=-1, required=True, type=click.Path(allow_dash=True))


class OutputFormat(click.Choice):  # type: ignore[type-arg]
    """``-o/--output FORMAT``: only a format; a folder (or anything else) is a usage error with a hint."""

    def __init__(self, formats: list[str], hint: str) -> None:
        super().__init__(formats)
        self.hint = hint

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:

        if value in self.choices:
            return value
        folder = "/" in str(value) or os.sep in str(value) or os.path.isdir(str(value))
        what = "a folder" if folder else "not an output format"
        message = f"{value!r} is {what}: -o picks one of {', '.join(map(str, self.choices))}. "
        raise click.BadParameter(message + self.hint.format(value=value), ctx, param)


def output_option(formats: list[str], default: str | None, help_text: str, hint: str) -> Callable[[F], F]:
    """``-o/--output FORMAT``, the same in every command (kubectl's convention)."""
    return click.option(
        "-o",
        "--output",
        type=OutputFormat(formats, hint),
        default=default,
        show_default=default is not None,
        help=help_text,
    )


STDOUT_HINT = "Output goes to stdout; redirect it to write a file."


def folder_callback(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:

    from omerender.output.formats import FORMAT_NAMES

    if value is not None and value in FORMAT_NAMES and not os.path.isdir(value):
        raise click.BadParameter(
            f"{value!r} is an output format, not a folder: did you mean -o {value}? "
            f"(for a folder of that name, write --output-dir ./{value})",
            ctx,
            param,
        )
    return value


def command_line(ctx: click.Context, drop: tuple[str, ...] = ()) -> str:
    """The command as it was typed (``omerender`` and its arguments), shell-quoted, without ``drop`` flags."""
    import shlex

    argv = ctx.find_root().meta.get(ARGV_KEY)
    args = [a for a in argv if a not in drop] if isinstance(argv, list) else [ctx.command_path]
    return shlex.join(["omerender", *args]) if isinstance(argv, list) else ctx.command_path


ARGV_KEY = "omerender.argv"
