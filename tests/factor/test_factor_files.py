"""What `factor --in-place` keeps of the files it rewrites, and how it treats names and profiles found elsewhere."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from factor_fleet import RUNTIME, build_output, fleet, killed_after_commit
from use_cases import factor_shown

from omerender.commands.factor import Choices


def test_mode_line_endings_and_bom_are_kept(tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree", newline="\r\n", bom="\ufeff")
    small = tree / "runtimes" / "sglang-small.yaml"
    small.chmod(0o600)
    before = build_output(tree)
    result = factor_shown(tree, Choices(in_place=True))
    assert result.exit_code == 0, str(result)
    data = small.read_bytes()
    assert data.startswith("\ufeff".encode()), data[:20]
    assert b"ome.io/inherit-from: sglang-profile\r\n" in data
    assert data.count(b"\n") == data.count(b"\r\n")
    assert (small.stat().st_mode & 0o777) == 0o600
    assert build_output(tree) == before


def test_read_only_and_hard_linked_files_are_refused(tmp_path: Path) -> None:
    for case in ("read-only", "hard-link"):
        tree = fleet(tmp_path / case)
        small = tree / "runtimes" / "sglang-small.yaml"
        if case == "read-only":
            small.chmod(0o444)
        else:
            os.link(small, tmp_path / f"{case}-link.yaml")
        before = {p: p.read_bytes() for p in tree.rglob("*.yaml")}
        result = factor_shown(tree, Choices(in_place=True))
        assert result.exit_code == 1, str(result)
        assert "read-only" in result.stderr or "hard links" in result.stderr
        assert {p: p.read_bytes() for p in tree.rglob("*.yaml")} == before
        assert not (tree / "profiles").exists()


def test_comments_of_moved_fields_go_to_the_profile(tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree")
    for runtime in (tree / "runtimes").iterdir():
        text = runtime.read_text(encoding="utf-8").replace("      env:\n", "      # the cache\n      env:\n")
        runtime.write_text(text.replace("value: /models", "value: /models  # HF cache"), encoding="utf-8")
    before = build_output(tree)
    assert factor_shown(tree, Choices(in_place=True)).exit_code == 0
    profile = (tree / "profiles" / "sglang-profile.yaml").read_text(encoding="utf-8")
    assert "      image: docker.io/lmsysorg/sglang:v0.5.5  # pinned engine build\n" in profile
    assert "      # the cache\n      env:\n        - name: HF_HOME\n          value: /models  # HF cache\n" in profile
    child = (tree / "runtimes" / "sglang-small.yaml").read_text(encoding="utf-8")
    assert "#" not in child  # the comments left with their fields
    assert build_output(tree) == before


def test_search_paths_take_names_and_keep_the_whole_repository_building(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    fleet(repo / "runtimes-root")
    runtimes = repo / "runtimes"
    shutil.move(repo / "runtimes-root" / "runtimes", runtimes)
    (repo / "apps").mkdir()
    shutil.move(repo / "runtimes-root" / "apps.yaml", repo / "apps" / "apps.yaml")
    shutil.move(repo / "runtimes-root" / "model.yaml", repo / "apps" / "model.yaml")
    shutil.rmtree(repo / "runtimes-root")
    (repo / "other").mkdir()
    hand = RUNTIME.format(name="sglang-profile", lo="1B", hi="2B", tp=8).replace("disabled: false", "disabled: true")
    hand = hand.replace(
        "  name: sglang-profile\n", '  name: sglang-profile\n  annotations:\n    ome.io/runtime-profile: "true"\n'
    )
    (repo / "other" / "profile.yaml").write_text(hand, encoding="utf-8")
    before = build_output(repo)
    result = factor_shown(
        runtimes,
        Choices(in_place=True),
        search_path=(str(repo / "other"), str(repo / "apps")),
    )
    assert result.exit_code == 0, str(result)
    assert "the proof covers PATHS and --search-path" in result.stdout
    assert not (runtimes / "profiles" / "sglang-profile.yaml").exists()
    assert (runtimes / "profiles" / "sglang-2-profile.yaml").exists()
    assert build_output(repo) == before


def test_an_identical_existing_profile_is_reused(tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree")
    assert factor_shown(tree, Choices(in_place=True)).exit_code == 0
    profile = (tree / "profiles" / "sglang-profile.yaml").read_text(encoding="utf-8")
    copy = fleet(tmp_path / "copy")
    (copy / "shared").mkdir()
    (copy / "shared" / "sglang-profile.yaml").write_text(profile, encoding="utf-8")
    before = build_output(copy)
    result = factor_shown(copy, Choices(in_place=True), fmt="json")
    assert result.exit_code == 0, str(result)
    assert not (copy / "profiles").exists()
    assert "ome.io/inherit-from: sglang-profile" in (copy / "runtimes" / "sglang-small.yaml").read_text("utf-8")
    assert build_output(copy) == before


def test_leftovers_of_earlier_versions_are_cleaned(tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree")
    leftover = tree / "runtimes" / ".sglang-small.yaml.ab12_xyz.tmp"
    leftover.write_text("half a file", encoding="utf-8")
    unrelated = tree / "runtimes" / ".notes.txt.ab12_xyz.tmp"
    unrelated.write_text("not ours", encoding="utf-8")
    assert factor_shown(tree, Choices(in_place=True)).exit_code == 0
    assert not leftover.exists()
    assert unrelated.exists()
    for name in (".out.k3j4h5g6.old", ".out.a1b2c3d4.tmp"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "x.yaml").write_text("old: true\n", encoding="utf-8")
    result = factor_shown(tree, Choices(force=True), output_dir=str(tmp_path / "out"))
    assert result.exit_code == 0, str(result)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".out.") and "lock" not in p.name) == []
    assert not (tmp_path / "out" / "x.yaml").exists()


def test_a_left_journal_is_named_by_the_other_modes_and_finished_by_in_place(tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree")
    small = tree / "runtimes" / "sglang-small.yaml"
    before = small.read_bytes()
    journal = killed_after_commit(tree)
    dry = factor_shown(tree, Choices(dry_run=True))
    assert "left its journal" in dry.stderr
    assert small.read_bytes() == before and journal.is_dir()
    result = factor_shown(tree, Choices(in_place=True))
    assert result.exit_code == 0, str(result)
    assert "finished the rewrite" in result.stderr
    assert b"ome.io/inherit-from: sglang-profile" in small.read_bytes() and not journal.exists()


def test_the_round_trip_for_flow_style_keeps_line_endings_and_bom(tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree")
    flow = "      env: [{name: HF_HOME, value: /models}, {name: OWN, value: x}]  # flow\n"
    text = RUNTIME.format(name="sglang-large", lo="10B", hi="20B", tp=4)
    text = text.replace("      env:\n        - name: HF_HOME\n          value: /models\n", flow)
    large = tree / "runtimes" / "sglang-large.yaml"
    large.write_bytes(("\ufeff" + text).replace("\n", "\r\n").encode("utf-8"))
    before = build_output(tree)
    assert factor_shown(tree, Choices(in_place=True)).exit_code == 0
    data = large.read_bytes()
    assert b"ome.io/inherit-from: sglang-profile" in data  # it was rewritten (by the round trip)
    assert data.startswith("\ufeff".encode()) and b"\r\r" not in data
    assert data.count(b"\n") == data.count(b"\r\n")
    assert build_output(tree) == before


def _kustomize(folder: Path) -> list[tuple[str, str]]:
    """(kind, name) of what `kubectl kustomize FOLDER` builds."""
    out = subprocess.run(["kubectl", "kustomize", str(folder)], check=True, capture_output=True, text=True).stdout
    return sorted((d["kind"], d["metadata"]["name"]) for d in yaml.safe_load_all(out) if d)


def _read_by_omerender(folder: Path) -> list[tuple[str, str]]:
    """(kind, name) of the OME objects omerender reads from FOLDER (build --emit inputs)."""
    from omerender.cli import main

    result = CliRunner().invoke(main, ["build", str(folder), "--emit", "inputs"], catch_exceptions=False)
    return sorted((d["kind"], d["metadata"]["name"]) for d in yaml.safe_load_all(result.stdout) if d)


KUSTOMIZATION = """# upstream's list\r
apiVersion: kustomize.config.k8s.io/v1beta1\r
kind: Kustomization\r
resources:\r
  - sglang-medium.yaml  # medium\r
  - sglang-small.yaml\r
# keep this last\r
"""


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
def test_a_profile_written_into_a_kustomize_folder_is_added_to_its_resources(tmp_path: Path) -> None:
    # upstream's config/runtimes is a kustomize folder: a profile written beside its runtimes but not listed
    # in its resources would not be read (by kustomize nor by omerender), and every child would lose its parent
    tree = fleet(tmp_path / "tree")
    runtimes = tree / "runtimes"
    (runtimes / "kustomization.yaml").write_bytes(KUSTOMIZATION.encode("utf-8"))
    before = build_output(tree)
    assert _kustomize(runtimes) == _read_by_omerender(runtimes)
    result = factor_shown(runtimes, Choices(in_place=True), search_path=(str(tree),))
    assert result.exit_code == 0, str(result)
    assert f"profiles added to the resources of {runtimes}/kustomization.yaml" in result.stdout
    assert (runtimes / "kustomization.yaml").read_bytes().decode("utf-8") == KUSTOMIZATION.replace(
        "# keep this last", "  - profiles/sglang-profile.yaml\r\n# keep this last"
    )  # comments, CRLF and the rest kept; the profile listed where the list ends
    built = _kustomize(runtimes)
    assert ("ClusterServingRuntime", "sglang-profile") in built
    assert built == _read_by_omerender(runtimes)  # omerender reads what kustomize builds
    assert build_output(tree) == before  # factor's proof holds on disk: the repository renders the same bytes


def test_a_kustomization_on_a_search_path_only_is_not_rewritten(tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree")
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "kustomization.yaml").write_text("resources: []\n", encoding="utf-8")
    before = {p: p.read_bytes() for p in tmp_path.rglob("*.yaml")}
    result = factor_shown(tree, Choices(profiles_dir=str(shared / "p"), in_place=True), search_path=(str(shared),))
    assert result.exit_code == 1, str(result)
    assert f"{shared}/kustomization.yaml:1:1: error: [factor-proof]" in result.stderr
    assert "lies on a --search-path, which factor never rewrites" in result.stderr
    assert {p: p.read_bytes() for p in tmp_path.rglob("*.yaml")} == before


def test_a_profiles_dir_outside_every_path_is_refused(tmp_path: Path) -> None:
    # nothing would read a profile there: the children would lose their parent while the proof passed
    tree = fleet(tmp_path / "tree")
    before = {p: p.read_bytes() for p in tmp_path.rglob("*.yaml")}
    result = factor_shown(tree, Choices(profiles_dir=str(tmp_path / "elsewhere"), in_place=True))
    assert result.exit_code == 1, str(result)
    assert "outside every PATH and --search-path" in result.stderr
    assert {p: p.read_bytes() for p in tmp_path.rglob("*.yaml")} == before
    assert not (tmp_path / "elsewhere").exists()
    inside = factor_shown(tree, Choices(profiles_dir=str(tree / "p"), in_place=True))
    assert inside.exit_code == 0, str(inside)
