"""Where factor writes a profile without a settings file: in the app that holds its children, and listed by every
kustomization that lists one of them (issue 33's rule, on small trees)."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from factor_fleet import EXAMPLE, ISVC, RUNTIME

from omerender.cli import main


def _build(*args: str) -> str:
    from click.testing import CliRunner

    result = CliRunner().invoke(main, ["build", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def _app(root: Path, team: str, size: int) -> None:
    """An app: two flat runtimes of one engine (names of its own) and an InferenceService naming one."""
    for name, lo, hi, tp in ((f"{team}-small", "1B", "4B", 1), (f"{team}-medium", "4B", "10B", size)):
        text = RUNTIME.format(name=name, lo=lo, hi=hi, tp=tp)
        (root / "runtimes").mkdir(parents=True, exist_ok=True)
        (root / "runtimes" / f"{name}.yaml").write_text(text, encoding="utf-8")
    service = ISVC.replace("sglang-small", f"{team}-small").replace("namespace: team-a", f"namespace: {team}")
    (root / "services.yaml").write_text(service, encoding="utf-8")


def test_each_app_gets_its_own_profile_and_the_proof_builds_each(run_cli, tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    _app(tree / "apps" / "team-a", "team-a", 2)
    _app(tree / "apps" / "team-b", "team-b", 4)
    (tree / "models").mkdir()
    (tree / "models" / "model.yaml").write_bytes((EXAMPLE / "model.yaml").read_bytes())
    before = {
        app: _build(str(tree / "apps" / app), "--search-path", str(tree / "models")) for app in ("team-a", "team-b")
    }
    result = run_cli("factor", str(tree), "--in-place", "--search-path", str(tree / "models"), "-o", "json")
    assert result.exit_code == 0, str(result)
    report = json.loads(result.stdout)
    assert sorted(p["file"] for p in report["profiles"]) == [
        f"{tree}/apps/team-a/profiles/sglang-profile.yaml",
        f"{tree}/apps/team-b/profiles/sglang-2-profile.yaml",
    ]  # one per app: a build of one app does not read the other's folder
    assert report["apps"]["built"] == [f"{tree}/apps/team-a", f"{tree}/apps/team-b"]
    after = {
        app: _build(str(tree / "apps" / app), "--search-path", str(tree / "models")) for app in ("team-a", "team-b")
    }
    assert after == before


KUSTOMIZATION = "resources:\n{}"


def test_every_kustomization_listing_a_child_lists_its_profile(run_cli, tmp_path: Path) -> None:
    # deploy/ lists the runtimes' files itself; deploy/runtimes/ is a kustomize folder of its own too: both builds
    # read the children, so both must read the profile
    deploy = tmp_path / "deploy"
    _app(deploy, "team-a", 2)
    (deploy / "model.yaml").write_bytes((EXAMPLE / "model.yaml").read_bytes())
    runtimes = sorted(p.name for p in (deploy / "runtimes").iterdir())
    listed = ["model.yaml", "services.yaml", *(f"runtimes/{name}" for name in runtimes)]
    (deploy / "kustomization.yaml").write_text("resources:\n" + "".join(f"  - {e}\n" for e in listed), "utf-8")
    (deploy / "runtimes" / "kustomization.yaml").write_text(
        "resources:\n" + "".join(f"  - {name}\n" for name in runtimes), encoding="utf-8"
    )
    before = (_build(str(deploy)), _build(str(deploy / "runtimes"), "--emit", "flattened"))
    result = run_cli("factor", str(deploy), "--in-place", "-o", "json")
    assert result.exit_code == 0, str(result)
    assert json.loads(result.stdout)["kustomizations"] == [
        f"{deploy}/kustomization.yaml",
        f"{deploy}/runtimes/kustomization.yaml",
    ]
    top = yaml.safe_load((deploy / "kustomization.yaml").read_text(encoding="utf-8"))["resources"]
    inner = yaml.safe_load((deploy / "runtimes" / "kustomization.yaml").read_text(encoding="utf-8"))["resources"]
    assert top[-1] == "runtimes/profiles/sglang-profile.yaml" and inner[-1] == "profiles/sglang-profile.yaml"
    assert (_build(str(deploy)), _build(str(deploy / "runtimes"), "--emit", "flattened")) == before
