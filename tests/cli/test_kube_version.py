"""--kube-version (and Argo CD's KUBE_VERSION): one reading, the same accepted forms and rule in every command."""

from __future__ import annotations

from pathlib import Path

import pytest

from omerender.verify import kube_version
from omerender.verify.kube_schema import available_versions

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "llama-demo"
ACCEPTED = {  # given -> the schemas checked with
    "1.29": "1.29",
    "v1.29": "1.29",
    "1.29+": "1.29",  # Argo CD on managed clusters
    "v1.31.1+k3s1": "1.31",
    "1.30.2-eks-abc": "1.30",
    "v1.33.4-gke.1000": "1.33",
    "1.999": None,  # newer than any installed: the newest
    "1.24": "1.25",  # older than any installed: the oldest, with a warning
}
REJECTED = ["banana", "2.0", "1", "1.x", "v1.29.1.2", "1.29 ; rm", "", "0.9"]


def _run(run_cli, monkeypatch: pytest.MonkeyPatch, command: str, version: str):  # type: ignore[no-untyped-def]
    if command == "argocd-generate":
        monkeypatch.setenv("KUBE_VERSION", version)
        return run_cli("argocd-generate", str(DEMO))
    return run_cli(command, str(DEMO), "-n", "llama-demo", "--kube-version", version)


def test_parse_reads_every_form() -> None:
    installed = available_versions()
    for given, expected in ACCEPTED.items():
        assert kube_version.choose(given, installed).version == (expected or installed[-1]), given
    assert kube_version.parse("none") is None and kube_version.parse("OFF") is None
    assert kube_version.choose("1.24", installed).warning
    assert not kube_version.choose("1.999", installed).warning
    for given in REJECTED:
        if given:
            with pytest.raises(kube_version.KubeVersionError):
                kube_version.parse(given)


@pytest.mark.parametrize("command", ["build", "status", "argocd-generate"])
@pytest.mark.parametrize("version", [*ACCEPTED, "none"])
def test_every_command_accepts_the_same_forms(run_cli, monkeypatch, command: str, version: str) -> None:
    done = _run(run_cli, monkeypatch, command, version)
    assert done.exit_code == 0 and done.stdout, done
    older = version == "1.24"
    assert ("older than any installed schemas; checking with 1.25" in done.stderr) == older, done


@pytest.mark.parametrize("command", ["build", "status", "argocd-generate"])
@pytest.mark.parametrize("version", [v for v in REJECTED if v])
def test_every_command_rejects_the_same_forms(run_cli, monkeypatch, command: str, version: str) -> None:
    done = _run(run_cli, monkeypatch, command, version)
    assert done.exit_code == 2 and done.stdout == "", done
    label = "KUBE_VERSION" if command == "argocd-generate" else "--kube-version"
    assert label in done.stderr and "not a Kubernetes version" in done.stderr, done
