"""The Argo CD sidecar's pins (integrations/argocd/constraints.txt) resolve against the package metadata.

The image runs ``pip install --constraint constraints.txt /src`` on python:3.11-slim (Linux). That install
fails (ResolutionImpossible) when a pin falls outside what pyproject.toml or a pinned distribution asks
for, so every requirement on the way is checked here with ``packaging``'s specifier logic, its markers
evaluated for that image: the project's own requirements from pyproject.toml, then each pinned
distribution's ``Requires-Dist`` as installed here (read only when the installed version is the pinned one;
CI installs with the same constraints, see .ci/run, so there every one is read). The pins must be exactly
what the image installs: no requirement unpinned, no pin nothing needs.
"""

from __future__ import annotations

import os
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import NormalizedName, canonicalize_name
from packaging.version import Version

REPO = Path(__file__).resolve().parents[2]
CONSTRAINTS = REPO / "integrations" / "argocd" / "constraints.txt"
IMAGE_PYTHON = "3.11"  # python:3.11-slim, the Dockerfile's base
MACHINES = ("x86_64", "aarch64")  # the base image's index: linux/amd64 and linux/arm64


def pins(text: str) -> dict[NormalizedName, Version]:
    """``name==version`` lines (comments and blank lines skipped); anything else, or a name twice, fails."""
    found: dict[NormalizedName, Version] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        requirement = Requirement(line)
        [spec] = requirement.specifier  # exactly one specifier: ==
        assert spec.operator == "==" and not requirement.marker and not requirement.extras, f"{number}: {raw}"
        name = canonicalize_name(requirement.name)
        assert name not in found, f"{number}: {name} is pinned twice"
        found[name] = Version(spec.version)
    return found


def image_environments() -> list[dict[str, str]]:
    """The marker environments of the image: CPython 3.11 on Linux, each machine its base image is built for."""
    base = {**default_environment(), "python_version": IMAGE_PYTHON, "python_full_version": f"{IMAGE_PYTHON}.0"}
    base |= {"sys_platform": "linux", "platform_system": "Linux", "os_name": "posix"}
    base |= {"implementation_name": "cpython", "platform_python_implementation": "CPython"}
    return [{**base, "platform_machine": machine} for machine in MACHINES]


def applies(requirement: Requirement) -> bool:
    """Whether the image installs ``requirement`` (no extras are asked for)."""
    if requirement.marker is None:
        return True
    return any(requirement.marker.evaluate({**env, "extra": ""}) for env in image_environments())


def project_requirements() -> list[Requirement]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return [Requirement(text) for text in project["dependencies"]]


def installed_requirements(name: str, pinned: Version) -> list[Requirement] | None:
    """The ``Requires-Dist`` of ``name`` as installed, or None when the installed version is not the pin."""
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return None
    if Version(dist.version) != pinned:
        return None
    return [Requirement(text) for text in dist.requires or ()]


def resolve(
    roots: list[Requirement], pinned: dict[NormalizedName, Version]
) -> tuple[list[str], set[NormalizedName], list[NormalizedName]]:
    """Walk the requirements from ``roots`` through the pins: the problems (a requirement without a pin, a pin
    outside a specifier), every name reached, and the pins whose own requirements could not be read here."""
    problems: list[str] = []
    reached: set[NormalizedName] = set()
    unread: list[NormalizedName] = []
    todo = [("omerender", r) for r in roots]
    while todo:
        parent, requirement = todo.pop()
        if not applies(requirement):
            continue
        name = canonicalize_name(requirement.name)
        version = pinned.get(name)
        if version is None:
            problems.append(f"{parent} requires {requirement}, which constraints.txt does not pin")
            continue
        if not requirement.specifier.contains(version, prereleases=True):
            problems.append(f"{parent} requires {requirement}, but constraints.txt pins {name}=={version}")
        if name in reached:
            continue
        reached.add(name)
        below = installed_requirements(name, version)
        if below is None:
            unread.append(name)
        else:
            todo += [(f"{name}=={version}", r) for r in below]
    return problems, reached, sorted(unread)


def test_pins_parse_and_every_project_requirement_is_pinned_within_its_specifier() -> None:
    pinned = pins(CONSTRAINTS.read_text(encoding="utf-8"))
    wrong = []
    for requirement in project_requirements():
        version = pinned.get(canonicalize_name(requirement.name))
        if version is None or not requirement.specifier.contains(version, prereleases=True):
            wrong.append(f"pyproject.toml: {requirement}; constraints.txt: {version}")
    assert wrong == []


def test_the_pins_resolve_and_are_exactly_what_the_image_installs() -> None:
    pinned = pins(CONSTRAINTS.read_text(encoding="utf-8"))
    problems, reached, unread = resolve(project_requirements(), pinned)
    assert problems == []
    if not unread:  # every pinned distribution's requirements were read: nothing pinned goes unused
        assert sorted(set(pinned) - reached) == [], "pinned, but nothing the image installs requires it"
    assert len(reached) - len(unread) >= len(project_requirements()), "too few pins were installed here to check"


@pytest.mark.skipif(os.environ.get("CI") != "true", reason="CI installs with the constraints (.ci/run); a venv may not")
def test_ci_installs_exactly_the_pinned_versions() -> None:
    pinned = pins(CONSTRAINTS.read_text(encoding="utf-8"))
    _, _, unread = resolve(project_requirements(), pinned)
    assert unread == [], "CI's environment must hold every pinned version, so that every pin above is checked"


@pytest.mark.parametrize(
    ("constraints", "expected"),
    [
        ("deepdiff==9.1.0\n", "deepdiff<9,>=8.6, but constraints.txt pins deepdiff==9.1.0"),
        ("", "which constraints.txt does not pin"),
    ],
)
def test_a_pin_outside_the_metadata_is_found(constraints: str, expected: str) -> None:
    """The deepdiff mismatch that broke the image (pyproject <9, pinned 9.1.0), and a missing pin, are caught."""
    problems, _, _ = resolve([Requirement("deepdiff>=8.6,<9")], pins(constraints))
    assert any(expected in problem for problem in problems), problems


def test_markers_are_evaluated_for_the_image() -> None:
    assert applies(Requirement('typing-extensions>=4.4; python_version < "3.13"'))
    assert not applies(Requirement('tomli>=1; python_version < "3.11"'))
    assert not applies(Requirement('pywin32; sys_platform == "win32"'))
    assert not applies(Requirement('pytest; extra == "test"'))
