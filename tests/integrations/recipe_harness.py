"""What the pull-request recipe tests share: scratch git repositories (the llama-demo example, or one built from
OME's vendored catalogue), stand-ins for venv, pip, gh and curl, the recipes' steps run as GitHub and GitLab run
them, and a reading of a step's log as GitHub's runner reads workflow commands from it.

Every repository's root holds hostile pip.py, json.py, venv.py and omerender.py that leave a mark when imported.
The stand-ins for venv and pip import the real module with the flags they were called with, so a call without
-I from the pull request's tree would import the hostile one. The gh stand-in answers GraphQL's ``viewer`` from
STUB_VIEWER (it fails when that is unset) and lists the comments in STUB_COMMENTS (a JSON list of pages), each
page through the real ``jq`` with the filter the script gave ``--jq``, as gh's built-in jq would. The curl
stand-in answers GET /user from STUB_USER and the notes from STUB_PAGES, and refuses (403, exit 22) a PUT on a
note written by someone else, as GitLab does."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
GITHUB = REPO / "integrations" / "github"
GITLAB = REPO / "integrations" / "gitlab" / "omerender-diff.gitlab-ci.yml"
DEMO = REPO / "fixtures" / "llama-demo"
OME = REPO.parent / "shared" / "ome"
MARKER = "<!-- omerender-diff -->"
HOSTILE = ("pip", "json", "venv", "omerender")
OLD_IMAGE, NEW_IMAGE = "sglang:v0.5.5.post3-cu129-amd64", "sglang:v0.5.6-cu129-amd64"
TEAM = "team-a"
OME_MODEL = OME / "models" / "meta" / "Llama-3.2-3B-Instruct.yaml"

needs_jq = pytest.mark.skipif(shutil.which("jq") is None, reason="jq (the stand-in for gh's built-in --jq) is absent")
needs_ome = pytest.mark.skipif(not OME.is_dir(), reason="../shared/ome (OME's vendored catalogue) is not present")


def git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def _start(tmp_path: Path) -> Path:
    """origin (bare) and an empty work tree on main beside it."""
    origin, work = tmp_path / "origin.git", tmp_path / "work"
    tmp_path.mkdir(parents=True, exist_ok=True)
    git(tmp_path, "init", "--quiet", "--bare", "-b", "main", str(origin))
    work.mkdir()
    git(work, "init", "--quiet", "-b", "main")
    return work


def _branch(work: Path) -> None:
    """Commit main, push it to origin, and start the pull request's branch with the hostile modules at its root."""
    git(work, "add", "-A")
    git(work, "commit", "--quiet", "-m", "the base")
    git(work, "remote", "add", "origin", str(work.parent / "origin.git"))
    git(work, "push", "--quiet", "origin", "main")
    git(work, "checkout", "--quiet", "-b", "change")
    marks = work.parent / "marks"
    marks.mkdir()
    for module in HOSTILE:  # what a hostile pull request adds at its root: each leaves a mark when imported
        (work / f"{module}.py").write_text(f"open({str(marks / module)!r}, 'w').write('imported')\n")


def _commit(work: Path, change: str) -> Path:
    git(work, "add", "-A")
    git(work, "commit", "--quiet", "-m", change)
    return work


def scratch(tmp_path: Path, change: str) -> Path:
    """origin (bare) holds main with the llama-demo example under manifests/; the work tree is on a branch with
    one more commit: ``bump`` (the profile's image), ``break`` (the profile removed) or anything else (a note)."""
    work = _start(tmp_path)
    shutil.copytree(DEMO, work / "manifests")
    _branch(work)
    if change == "bump":
        profile = work / "manifests" / "profile.yaml"
        profile.write_text(profile.read_text().replace(OLD_IMAGE, NEW_IMAGE))
    elif change == "break":
        (work / "manifests" / "profile.yaml").unlink()
    else:
        (work / "NOTES.md").write_text("nothing about runtimes\n")
    return _commit(work, change)


HOSTILE_NAMES = (
    "x;id>pwned.txt;#.yaml",  # a shell would run id and write pwned.txt
    "::warning file=forged.yaml::forged.yaml",  # a workflow command at the start of a line
    "n\n::error file=forged.yaml::forged.yaml",  # ... on a line of its own
    "c##[add-mask]k.yaml",  # the older spelling, which the runner reads anywhere in a line
    "p%0A::error::q,r=s.yaml",  # what the runner unescapes, and the property separators
)
"""File names a pull request can commit, each holding a runtime that does not build."""


def _broken_child(number: int) -> str:
    return (
        "apiVersion: ome.io/v1beta1\nkind: ServingRuntime\nmetadata:\n"
        f"  name: hostile-{number}\n  namespace: {TEAM}\n  annotations:\n    ome.io/inherit-from: no-such-profile\n"
        "spec:\n  disabled: false\n"
    )


def ome_scratch(tmp_path: Path, change: str) -> Path:
    """A platform team's repository built from OME's vendored catalogue: platform/runtimes (OME's runtimes with
    their kustomization), platform/models (the Llama 3.2 3B ClusterBaseModel), platform/profiles (the SGLang
    profile) and apps/team-a (a thin child of the profile and the InferenceService that uses it). The pull
    request's commit: ``bump`` (the profile's image), ``break`` (the profile removed), ``hostile`` (the profile
    removed, and a broken runtime in each of HOSTILE_NAMES under apps/team-a) or anything else (a note)."""
    work = _start(tmp_path)
    platform, team = work / "platform", work / "apps" / TEAM
    shutil.copytree(OME / "runtimes", platform / "runtimes")
    (platform / "models").mkdir(parents=True)
    shutil.copy(OME_MODEL, platform / "models" / OME_MODEL.name)
    (platform / "profiles").mkdir()
    shutil.copy(DEMO / "profile.yaml", platform / "profiles" / "sglang-profile.yaml")
    team.mkdir(parents=True)
    for name in ("runtime.yaml", "isvc.yaml"):
        (team / name).write_text((DEMO / name).read_text().replace("namespace: llama-demo", f"namespace: {TEAM}"))
    _branch(work)
    profile = platform / "profiles" / "sglang-profile.yaml"
    if change == "bump":
        profile.write_text(profile.read_text().replace(OLD_IMAGE, NEW_IMAGE))
    elif change in ("break", "hostile"):
        profile.unlink()
    else:
        (work / "NOTES.md").write_text("nothing about runtimes\n")
    if change == "hostile":
        for number, name in enumerate(HOSTILE_NAMES):
            (team / name).write_text(_broken_child(number))
    return _commit(work, change)


def issue33_scratch(tmp_path: Path, change: str, settings: str | None = None) -> Path:
    """Issue 33's repository (``tests/ome_repository.py``: OME's vendored folders, profiles, three teams, a settings
    file naming ``platform`` as the search path, team-a's lock) as a pull request's checkout. The pull request's
    commit: ``profile`` (``NCCL_DEBUG`` of ``sglang-profile``), ``break`` (team-b's child names a parent that does
    not exist) or anything else (a note). ``settings``: the text of ``.omerender.yaml`` (default: the builder's)."""
    from ome_repository import ome_repository

    built = ome_repository(tmp_path / "built")
    work = _start(tmp_path)
    shutil.copytree(built, work, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".git"))
    if settings is not None:
        (work / ".omerender.yaml").write_text(settings)
    _branch(work)
    if change == "profile":
        profile = work / "platform" / "profiles" / "sglang-profile.yaml"
        profile.write_text(profile.read_text().replace("value: WARN", "value: INFO"))
    elif change == "break":
        child = work / "apps" / "team-b" / "runtimes" / "team-b-llama-3-1-8b.yaml"
        child.write_text(child.read_text().replace("inherit-from: sglang-profile", "inherit-from: sglang-profil"))
    else:
        (work / "NOTES.md").write_text("nothing about runtimes\n")
    return _commit(work, change)


FLAGS = """flags=""
while [ $# -gt 0 ]; do case "$1" in -I|-E|-s|-S|-P|-B|-u) flags="$flags $1"; shift;; *) break;; esac; done
"""

GH = """
import json, os, subprocess, sys
args = sys.argv[1:]
with open(LOG, "a") as log:
    log.write("gh " + " ".join(args) + "\\n")
expression = args[args.index("--jq") + 1] if "--jq" in args else "."


def jq(document):
    done = subprocess.run(["jq", "-r", expression], input=json.dumps(document), capture_output=True, text=True)
    sys.stdout.write(done.stdout)
    if done.returncode:
        sys.exit(done.stderr)


if args[:2] == ["api", "graphql"]:
    if not os.environ.get("STUB_VIEWER"):
        sys.exit("HTTP 403: Resource not accessible by integration")
    jq({"data": {"viewer": {"login": os.environ["STUB_VIEWER"]}}})
elif "--method" in args:
    sys.exit(int(os.environ.get("STUB_GH_WRITE", "0")))
else:
    for page in json.loads(os.environ.get("STUB_COMMENTS", "[[]]")):
        jq(page)
"""

CURL = """
import json, os, re, sys
args = sys.argv[1:]
with open(LOG, "a") as log:
    log.write("curl " + " ".join(args) + "\\n")
user = json.loads(os.environ.get("STUB_USER", '{"id": 7, "username": "project_12_bot"}'))
pages = json.loads(os.environ.get("STUB_PAGES", "[[]]"))
url = args[-1]
if "--request" in args:
    if args[args.index("--request") + 1] == "PUT":
        note = int(url.rsplit("/", 1)[1])
        author = next(n.get("author", {}).get("id") for page in pages for n in page if n["id"] == note)
        if author != user["id"]:
            sys.exit("curl: (22) The requested URL returned error: 403")  # GitLab: only the author edits a note
    sys.exit(0)
if url.endswith("/user"):
    sys.stdout.write(json.dumps(user))
    sys.exit(0)
page = int(re.search(r"[?&]page=(\\d+)", url).group(1))
if "--dump-header" in args:
    following = str(page + 1) if page < len(pages) else ""
    with open(args[args.index("--dump-header") + 1], "w") as f:
        f.write(f"HTTP/2 200\\r\\nx-next-page: {following}\\r\\n\\r\\n")
sys.stdout.write(json.dumps(pages[page - 1]))
"""


def stubs(tmp_path: Path) -> tuple[Path, Path]:
    """Stand-ins that log their calls, one a line: python3 for `-m venv` (which makes a venv whose python
    stands in for `-m pip` and runs omerender for real), gh and curl (answering from STUB_* variables)."""
    folder, log = tmp_path / "stubs", tmp_path / "calls.log"
    folder.mkdir(parents=True)
    real = sys.executable  # omerender is installed for it
    venv_python = (
        f'#!/bin/sh\n{FLAGS}if [ "$1" = -m ] && [ "$2" = pip ]; then\n'
        f'  echo "pip$flags $*" >> "{log}"; "{real}" $flags -c "import pip"; exit 0\nfi\nexec "{real}" $flags "$@"\n'
    )
    python3 = (
        f'#!/bin/sh\n{FLAGS}if [ "$1" = -m ] && [ "$2" = venv ]; then\n'
        f'  echo "venv$flags $3" >> "{log}"; "{real}" $flags -c "import venv"\n'
        f'  mkdir -p "$3/bin"; cat > "$3/bin/python" <<\'STUB\'\n{venv_python}STUB\n'
        f'  chmod +x "$3/bin/python"; exit 0\nfi\nexec "{real}" $flags "$@"\n'
    )
    scripts = {
        "python3": python3,
        "gh": f"#!{real}\nLOG = {str(log)!r}\n{GH}",
        "curl": f"#!{real}\nLOG = {str(log)!r}\n{CURL}",
    }
    for name, body in scripts.items():
        path = folder / name
        path.write_text(body)
        path.chmod(0o755)
    return folder, log


def not_imported(work: Path) -> None:
    marks = sorted(p.name for p in (work.parent / "marks").iterdir())
    assert marks == [], f"hostile modules imported: {marks}"


def env(stubs: Path, **extra: str) -> dict[str, str]:
    bin_dir = str(Path(sys.executable).parent)  # omerender, installed beside this Python
    path = os.pathsep.join([str(stubs), bin_dir, os.environ.get("PATH", "")])
    inherited = {k: v for k, v in os.environ.items() if not k.startswith(("STUB_", "GITHUB_"))}
    return {**inherited, "PATH": path, "GIT_CONFIG_GLOBAL": os.devnull, **extra}


@dataclass
class Step:
    name: str
    code: int
    stdout: str
    stderr: str


@dataclass
class Ran:
    codes: list[tuple[str, int]]
    outputs: dict[str, str]
    calls: list[str]
    stderr: str
    steps: list[Step]

    def step(self, name: str) -> Step:
        return next(step for step in self.steps if step.name == name)


EXPRESSION = re.compile(r"\$\{\{\s*(.+?)\s*\}\}")


def run_action(work: Path, tmp_path: Path, inputs: dict[str, str], **extra: str) -> Ran:
    """Run the composite action's `run` steps as GitHub does (bash -eo pipefail, GITHUB_ACTIONS=true), stopping
    at the first that fails; `${{ }}` expressions are filled from the inputs, a pull_request context and earlier
    outputs."""
    action = yaml.safe_load((GITHUB / "action.yml").read_text())
    folder, log = stubs(tmp_path)
    output_file = tmp_path / "github_output"
    output_file.write_text("")
    context = {
        "github.base_ref": "main",
        "github.token": "token",
        "github.repository": "acme/models",
        "github.event.pull_request.number": "7",
        "runner.temp": str(tmp_path),
    }

    def fill(text: str) -> str:
        def one(match: re.Match[str]) -> str:
            key = match.group(1)
            if key.startswith("inputs."):
                name = key.removeprefix("inputs.")
                spec = action["inputs"][name]  # KeyError: the action names an input it does not declare
                return fill(inputs.get(name, str(spec.get("default", ""))))
            if key.startswith("steps.diff.outputs."):
                found = re.findall(
                    rf"^{re.escape(key.removeprefix('steps.diff.outputs.'))}=(.*)$", output_file.read_text(), re.M
                )
                return found[-1] if found else ""
            return context[key]  # KeyError: an expression this test does not know

        return EXPRESSION.sub(one, text)

    assert not set(inputs) - set(action["inputs"]), "unknown input"
    steps: list[Step] = []
    for step in action["runs"]["steps"]:
        if "uses" in step:
            continue
        assert step["shell"] == "bash"
        step_env = {k: fill(str(v)) for k, v in (step.get("env") or {}).items()}
        github = {"GITHUB_ACTIONS": "true", "GITHUB_ACTION_PATH": str(GITHUB), "GITHUB_OUTPUT": str(output_file)}
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", fill(step["run"])],
            cwd=work,
            env=env(folder, **github, **step_env, **extra),
            capture_output=True,
            text=True,
            check=False,
        )
        steps.append(Step(step["name"], done.returncode, done.stdout, done.stderr))
        if done.returncode != 0:
            break
    outputs = dict(re.findall(r"^([\w-]+)=(.*)$", output_file.read_text(), re.M))
    calls = log.read_text().splitlines() if log.exists() else []
    return Ran([(s.name, s.code) for s in steps], outputs, calls, "".join(s.stderr for s in steps), steps)


def run_gitlab(work: Path, tmp_path: Path, **extra: str) -> tuple[int, list[str], subprocess.CompletedProcess[str]]:
    """The template's before_script and script, as one shell (as GitLab runs them), with its variables."""
    job = yaml.safe_load(GITLAB.read_text())[".omerender-diff"]
    folder, log = stubs(tmp_path)
    script = "\n".join(["set -eo pipefail", *job["before_script"], *job["script"]])
    variables = {k: str(v) for k, v in job["variables"].items()}
    ci = {
        "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main",
        "CI_API_V4_URL": "https://gitlab.example.invalid/api/v4",
        "CI_PROJECT_ID": "12",
        "CI_MERGE_REQUEST_IID": "3",
        "OMERENDER_PATHS": "manifests",
        "OMERENDER_VENV": str(tmp_path / "venv"),
    }
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-c", script],
        cwd=work,
        env=env(folder, **{**variables, **ci, **extra}),
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode, (log.read_text().splitlines() if log.exists() else []), done


@dataclass(frozen=True)
class Command:
    name: str
    properties: dict[str, str]
    data: str


def _unescape(value: str, mappings: tuple[tuple[str, str], ...]) -> str:
    for escaped, char in mappings:
        value = value.replace(escaped, char)
    return value


_PROPERTY = (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%"))
_DATA = (("%0D", "\r"), ("%0A", "\n"), ("%25", "%"))
_OLD = (("%3B", ";"), ("%0D", "\r"), ("%0A", "\n"), ("%5D", "]"), ("%25", "%"))


def _properties(text: str, separator: str, mappings: tuple[tuple[str, str], ...]) -> dict[str, str]:
    """``k=v`` pairs as the runner splits them: empty entries dropped, a pair with an empty side ignored."""
    pairs = [entry.split("=", 1) for entry in text.split(separator) if entry]
    return {pair[0]: _unescape(pair[1], mappings) for pair in pairs if len(pair) == 2 and all(pair)}


def _parse(line: str) -> Command | None:
    """A line as the runner's ActionCommand reads it (actions/runner: TryParseV2, then TryParse), taking any
    command name as registered (so this finds more than the runner, never less)."""
    trimmed = line.lstrip()
    if trimmed.startswith("::") and (end := trimmed.find("::", 2)) >= 0:
        name, _, rest = trimmed[2:end].partition(" ")
        return Command(name, _properties(rest.strip(), ",", _PROPERTY), _unescape(trimmed[end + 2 :], _DATA))
    start = line.find("##[")
    if start >= 0 and (close := line.find("]", start)) >= 0:
        name, _, rest = line[start + 3 : close].partition(" ")
        return Command(name, _properties(rest, ";", _OLD), _unescape(line[close + 1 :], _OLD))
    return None


def workflow_commands(log: str) -> list[Command]:
    """The workflow commands GitHub's runner would act on in ``log`` (one stream of a step): lines end at CR, LF
    or CRLF; between ``::stop-commands::TOKEN`` and ``::TOKEN::`` nothing is a command."""
    found: list[Command] = []
    token: str | None = None
    for line in re.split(r"\r\n|\r|\n", log):
        command = _parse(line)
        if command is None:
            continue
        if token is not None:
            if command.name.lower() == token.lower():
                token = None
            continue
        if command.name == "stop-commands":
            token = command.data
            continue
        found.append(command)
    assert token is None, f"commands left stopped until {token!r}: every annotation after it is lost"
    return found
