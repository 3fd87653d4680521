"""factor beside a broken runtime that only a search path holds and nothing under the PATHS uses: as ``build``, its
error is a warning and factor runs (it never rewrites a search path's runtime), and the proof, the run's and each
app's, requires that runtime broken alike after; a broken runtime a PATH's chain uses still refuses the run (#33)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from factor_fleet import EXAMPLE, ISVC, RUNTIME

BROKEN = """apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: orphan
  annotations:
    ome.io/inherit-from: nowhere
spec: {}
---
apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: badschema
spec:
  supportedModelFormats: 3
"""
UNUSED = "no InferenceService or runtime under the PATHs uses it, so OME would refuse only this runtime"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two apps of two flat runtimes each, a search path with the model and the broken runtimes, a settings file."""
    (tmp_path / ".git").mkdir()
    for team in ("team-a", "team-b"):
        app = tmp_path / "apps" / team
        (app / "runtimes").mkdir(parents=True)
        for name, lo, hi, tp in ((f"{team}-small", "1B", "4B", 1), (f"{team}-medium", "4B", "10B", 2)):
            (app / "runtimes" / f"{name}.yaml").write_text(RUNTIME.format(name=name, lo=lo, hi=hi, tp=tp))
        service = ISVC.replace("sglang-small", f"{team}-small").replace("namespace: team-a", f"namespace: {team}")
        (app / "services.yaml").write_text(service, encoding="utf-8")
    (tmp_path / "platform").mkdir()
    (tmp_path / "platform" / "model.yaml").write_bytes((EXAMPLE / "model.yaml").read_bytes())
    (tmp_path / "platform" / "broken.yaml").write_text(BROKEN, encoding="utf-8")
    (tmp_path / ".omerender.yaml").write_text("search-path: [platform]\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _builds(run_cli) -> dict[str, str]:
    out = {}
    for team in ("team-a", "team-b"):
        built = run_cli("build", f"apps/{team}")
        assert built.exit_code == 0, built
        out[team] = built.stdout
    return out


def test_factor_runs_and_every_app_renders_the_same(run_cli, repo: Path) -> None:
    before = _builds(run_cli)
    result = run_cli("factor", "apps", "--in-place", "-o", "json")
    assert result.exit_code == 0, result
    warnings = [line for line in result.stderr.splitlines() if ": warning: " in line]
    assert [w.split(": warning: ")[0] for w in warnings] == ["platform/broken.yaml:6:26", "platform/broken.yaml:14:26"]
    assert all(UNUSED in w for w in warnings) and ": error: " not in result.stderr
    report = json.loads(result.stdout)
    assert report["totals"]["children"] == 4 and report["totals"]["profiles"] >= 2
    assert report["apps"]["built"] == ["apps/team-a", "apps/team-b"] and report["apps"]["notBuilding"] == []
    assert (repo / "platform" / "broken.yaml").read_text(encoding="utf-8") == BROKEN  # a search path is not rewritten
    assert "inherit-from" in (repo / "apps" / "team-a" / "runtimes" / "team-a-small.yaml").read_text(encoding="utf-8")
    assert _builds(run_cli) == before


def test_factor_refuses_when_a_path_runtime_inherits_from_the_broken_one(run_cli, repo: Path) -> None:
    runtime = repo / "apps" / "team-a" / "runtimes" / "team-a-medium.yaml"
    text = runtime.read_text(encoding="utf-8")
    runtime.write_text(
        text.replace(
            "  name: team-a-medium\n", "  name: team-a-medium\n  annotations:\n    ome.io/inherit-from: orphan\n"
        ),
        encoding="utf-8",
    )
    files = {p: p.read_bytes() for p in sorted(repo.rglob("*.yaml"))}
    result = run_cli("factor", "apps", "--in-place")
    assert result.exit_code == 1, result
    assert "platform/broken.yaml:6:26: error: [ParentNotFound]" in result.stderr
    assert "orphan is read only" not in result.stderr
    assert {p: p.read_bytes() for p in sorted(repo.rglob("*.yaml"))} == files  # nothing written


def test_the_proof_requires_a_spared_runtime_broken_alike(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from use_cases import built

    from omerender.factor.proof import prove

    (tmp_path / ".git").mkdir()
    (tmp_path / "apps").mkdir()
    (tmp_path / "platform").mkdir()
    for name in ("isvc.yaml", "model.yaml", "runtime.yaml"):
        (tmp_path / "apps" / name).write_bytes((EXAMPLE / name).read_bytes())
    (tmp_path / "platform" / "profile.yaml").write_bytes((EXAMPLE / "profile.yaml").read_bytes())
    (tmp_path / "platform" / "broken.yaml").write_text(BROKEN, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    old = built(["apps"], search_path=["platform"])
    same = built(["apps"], search_path=["platform"])
    spared = frozenset({"ClusterServingRuntime/orphan"})
    assert prove(old, same, set(), spared=spared) == []
    unspared = prove(old, same, set())  # without the rule, the broken runtime reads as one factor broke
    assert [d.message for d in unspared] == [
        "factor would break runtime ClusterServingRuntime/orphan (a bug in factor)"
    ]
    cycle = BROKEN.replace("inherit-from: nowhere", "inherit-from: orphan")
    (tmp_path / "platform" / "broken.yaml").write_text(cycle, encoding="utf-8")
    other = built(["apps"], search_path=["platform"])  # broken otherwise: a cycle, not a missing parent
    assert [d.message for d in prove(old, other, set(), spared=spared)] == [d.message for d in unspared]
