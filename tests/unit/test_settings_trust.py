"""What a settings file may hold, from one source: the registry makes the shipped schema, and the reader takes exactly
what the schema takes (an editor and omerender agree); paths it names stay in the repository; where omerender writes
is never its to say; every schema omerender ships names itself under one host."""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest

from omerender.load import settings_file
from omerender.settings import (
    PATH_KINDS,
    READS,
    SCHEMA_ID_BASE,
    SETTINGS,
    Route,
    json_schema,
)

ROOT = Path(__file__).resolve().parents[2]
LONG = "a" * 64

# (key, value as written in YAML): each is fed to the schema and to the reader
VALUES = [
    ("kube-version", "1.31"),
    ("kube-version", "1.30"),
    ("kube-version", "'1.30'"),
    ("kube-version", "v1.31.1+k3s1"),
    ("kube-version", "1.29+"),
    ("kube-version", "none"),
    ("kube-version", "banana"),
    ("kube-version", "'2.1'"),
    ("kube-version", "''"),
    ("namespace", "team-a"),
    ("namespace", "Bad_NS"),
    ("namespace", LONG),
    ("namespace", "''"),
    ("namespace", "123"),
    ("namespace", "'123'"),
    ("jobs", "64"),
    ("jobs", "65"),
    ("jobs", "0"),
    ("jobs", "'3'"),
    ("max-errors", "0"),
    ("max-errors", "-1"),
    ("max-errors", "'5'"),
    ("max-errors", "1.5"),
    ("max-file-size", "0"),
    ("max-file-size", "1048576"),
    ("emit", "[]"),
    ("emit", "[rendered]"),
    ("emit", "'rendered, inputs'"),
    ("emit", "'rendered,,inputs,'"),
    ("emit", "'rendered inputs'"),
    ("emit", "[nope]"),
    ("emit", "[rendered, rendered]"),
    ("report-format", "sarif"),
    ("report-format", "[sarif]"),
    ("report-format", "[sarif, text]"),
    ("report-format", "'sarif,'"),
    ("report-format", "junit=x.xml"),
    ("report-format", "[text=y.txt]"),
    ("report-format", "banana"),
    ("validate", "warn"),
    ("validate", "' strict'"),
    ("validate", "loose"),
    ("search-path", "[platform]"),
    ("search-path", "'platform, shared'"),
    ("search-path", "''"),
    ("search-path", "5"),
    ("search-path", "[5]"),
    ("model-metadata", "ome:v0.1.5"),
    ("model-metadata", "ci/meta.yaml"),
    ("model-metadata", "''"),
    ("model-metadata", "'  '"),
    ("model-metadata", "5"),
    ("controller-config", "ci/config.yaml"),
    ("lock-file", "omerender.lock"),
    ("fail-empty-input", "true"),
    ("fail-empty-input", "yes"),
    ("fail-empty-input", "'true'"),
    ("kustomization", "false"),
    ("flux-substitute-disabled", "1"),
    ("report-file", "r.txt"),
    ("status-file", "s.yaml"),
    ("output-dir", "rendered"),
    ("verbose", "1"),
    ("search-pth", "[x]"),
]


@pytest.mark.parametrize(("key", "written"), VALUES)
def test_the_reader_takes_what_the_shipped_schema_takes(key: str, written: str, tmp_path: Path) -> None:
    import yaml

    (tmp_path / ".git").mkdir()
    path = tmp_path / ".omerender.yaml"
    path.write_text(f"{key}: {written}\n", encoding="utf-8")
    shipped = json.loads((ROOT / "schemas" / "omerender-settings.schema.json").read_text(encoding="utf-8"))
    by_schema = jsonschema.Draft202012Validator(shipped).is_valid(yaml.safe_load(path.read_text(encoding="utf-8")))
    _, problems = settings_file.read(str(path))
    assert by_schema == (problems == []), problems
    assert all((d.line, d.code) == (1, "settings") for d in problems), problems  # located at the key or value


def test_every_path_a_settings_file_may_name_is_read_and_confined_or_refused_as_an_output() -> None:
    for spec in SETTINGS:
        if spec.kind in PATH_KINDS:
            assert (spec.stem in READS) != spec.writes, f"{spec.stem}: read (confined) or written (refused), not both"
        if spec.writes:
            assert Route.FILE not in spec.routes, f"{spec.stem}: a settings file never says where omerender writes"


@pytest.mark.parametrize("stem", [s.stem for s in SETTINGS if s.writes])
def test_an_output_key_is_refused_even_were_the_file_route_to_take_it(
    stem: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import dataclasses

    from omerender import settings

    spec = settings.BY_STEM[stem]
    monkeypatch.setitem(settings.BY_STEM, stem, dataclasses.replace(spec, routes=spec.routes | {Route.FILE}))
    path = tmp_path / ".omerender.yaml"
    path.write_text(f"{stem}: out\n", encoding="utf-8")
    _, problems = settings_file.read(str(path))
    assert [(d.line, d.col) for d in problems] == [(1, 1)]
    assert problems[0].message.startswith(f"{stem} says where omerender writes") and f"pass --{stem}" in (
        problems[0].message
    )


def test_paths_resolve_inside_the_repository_by_their_real_path(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "platform").mkdir()
    (tmp_path / "other").mkdir()
    os.symlink("../other", repo / "out")
    os.symlink("platform", repo / "alias")
    os.symlink("repo", tmp_path / "back")  # beside the repository, a link into it
    path = repo / ".omerender.yaml"
    cases = {
        "search-path: [platform, alias]": True,  # a link that stays inside is followed
        "search-path: [out]": False,
        "search-path: [out/../platform]": True,  # read as normalised, repo/platform: what is read is inside
        "model-metadata: ../other/meta.yaml": False,
        f"controller-config: {tmp_path / 'other' / 'c.yaml'}": False,
        f"controller-config: {repo / 'platform' / 'c.yaml'}": True,  # absolute, inside: the user's machine
        "lock-file: platform/omerender.lock": True,
        "lock-file: alias/omerender.lock": False,  # written too: no symlink on the way, even one that stays inside
        "lock-file: out/omerender.lock": False,
        "lock-file: ../back/omerender.lock": False,  # out of the repository and back in through a link
        "model-metadata: ../back/meta.yaml": True,  # read only: its real path is inside
        "model-metadata: ome:v0.1.5": True,  # a shipped name is no path
    }
    for text, kept in cases.items():
        path.write_text(text + "\n", encoding="utf-8")
        _, problems = settings_file.read(str(path))
        assert (problems == []) == kept, (text, problems)


def test_the_settings_file_is_read_from_inside_its_repository_only(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "apps").mkdir(parents=True)
    (repo / ".git").mkdir()
    (tmp_path / "secret.yaml").write_text("TOKEN_abc: x\n", encoding="utf-8")
    said = []
    for target in ("../secret.yaml", "../missing.yaml", "/proc/self/environ"):
        link = repo / ".omerender.yaml"
        link.symlink_to(target)
        found = settings_file.find([str(repo / "apps")])
        assert found is not None and os.path.normpath(os.path.abspath(found)) == str(link)  # whether or not it leads
        layer, problems = settings_file.read(found)
        said.append([(d.line, d.col, d.message) for d in problems])
        assert layer.values == {} and "TOKEN" not in str(problems)
        link.unlink()
    assert said[0] == said[1] == said[2] and len(said[0]) == 1


def test_every_shipped_schema_names_itself_under_one_host() -> None:
    shipped = [*(ROOT / "schemas").glob("*.json"), *(ROOT / "omerender" / "schemas").glob("*.json")]
    ids = {path.name: json.loads(path.read_text(encoding="utf-8"))["$id"] for path in shipped}
    assert len(shipped) >= 17 and {SCHEMA_ID_BASE + name for name in ids} == set(ids.values()), ids
    assert json_schema()["$id"] == SCHEMA_ID_BASE + "omerender-settings.schema.json"
