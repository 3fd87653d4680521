"""The rules every command's request shares (commands.request), each tested once here."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from omerender.commands import request
from omerender.commands.outcome import Level, Note, UsageProblem
from omerender.constants import DEFAULT_KUBE_VERSION, ValidationMode
from omerender.load.obj import Obj
from omerender.settings import Settings


def _obj(path: Path) -> Obj:
    return Obj(str(path), 0, {"kind": "ServingRuntime", "metadata": {"name": "x"}}, None)


def test_the_lock_file_is_the_option_else_beside_the_paths_never_the_search_paths(tmp_path: Path) -> None:
    (tmp_path / "apps" / "a").mkdir(parents=True)
    (tmp_path / "apps" / "b").mkdir()
    (tmp_path / "platform").mkdir()
    apps = [str(tmp_path / "apps" / "a"), str(tmp_path / "apps" / "b")]
    searched = Settings(search_path=(str(tmp_path / "platform"),))
    assert request.lock_path(searched, apps) == str(tmp_path / "apps" / "omerender.lock")
    assert request.lock_path(Settings(lock_file="my.lock"), apps) == "my.lock"
    assert request.lock_path(Settings(), ["-"]) == "omerender.lock"  # stdin is not a folder


def test_inputs_read_the_paths_then_the_search_paths_and_a_path_owns_what_both_cover(tmp_path: Path) -> None:
    (tmp_path / "platform" / "apps").mkdir(parents=True)
    inputs = request.Inputs.of(
        Settings(search_path=(str(tmp_path / "platform"),)), ["-", str(tmp_path / "platform/apps")]
    )
    assert inputs.roots == ["-", str(tmp_path / "platform/apps"), str(tmp_path / "platform")]
    assert inputs.files == [str(tmp_path / "platform/apps"), str(tmp_path / "platform")]  # stdin is no file
    profile, app = _obj(tmp_path / "platform" / "p.yaml"), _obj(tmp_path / "platform" / "apps" / "a.yaml")
    assert inputs.only_searched()(profile) and not inputs.only_searched()(app)
    assert not inputs.owned()(profile) and inputs.owned()(app)


def test_without_search_paths_everything_read_is_owned(tmp_path: Path) -> None:
    inputs = request.Inputs.of(Settings(), [str(tmp_path)])
    assert inputs.owned()(_obj(tmp_path / "elsewhere" / "x.yaml"))


def test_jobs_default_to_the_cores_available(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(request, "cores", lambda: 7)
    assert request.parse_jobs(Settings()) == 7
    assert request.parse_jobs(Settings(jobs=1)) == 1


def test_the_cores_are_those_this_process_may_run_on() -> None:
    expected = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert request.cores() == expected


def test_build_options_come_typed_from_the_settings(tmp_path: Path) -> None:
    settings = Settings(
        namespace="team",
        max_file_size=1234,
        validate="warn",
        model_metadata="meta.yaml",
        controller_config="config.yaml",
        fail_empty_input=True,
        keep_last_good=True,
    )
    options = request.build_options(
        settings, [str(tmp_path)], kube_version="1.30", parse_jobs=3, roll_forward=("team/a",), relock=True
    )
    assert (options.namespace, options.max_file_bytes, options.validate) == ("team", 1234, ValidationMode.WARN)
    assert (options.model_metadata, options.controller_config) == ("meta.yaml", "config.yaml")
    assert options.fail_empty_input and options.keep_last_good and options.relock
    assert (options.kube_version, options.parse_jobs, options.roll_forward) == ("1.30", 3, ("team/a",))
    assert options.lock_file == str(tmp_path / "omerender.lock")
    plain = request.build_options(Settings(), [str(tmp_path)], kube_version=None)
    assert (plain.kube_version, plain.parse_jobs, plain.roll_forward, plain.relock) == (None, 1, (), False)


@pytest.mark.parametrize("given", [None, "", "  ", "none", "off"])
def test_no_kube_version_means_no_check(given: str | None) -> None:
    assert request.kube_check(given) == request.KubeCheck(None)


def test_a_kube_version_picks_the_installed_schemas(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(request, "available_versions", lambda: ["1.28", "1.29", "1.30"])
    assert request.kube_check("v1.29.3+k3s1") == request.KubeCheck("1.29")
    assert request.kube_check("1.99") == request.KubeCheck("1.30")  # newer than any: the newest
    older = request.kube_check(" 1.20 ", label="KUBE_VERSION")
    assert older.version == "1.28" and older.problem is None
    assert older.notes == (
        Note(
            "KUBE_VERSION 1.20: Kubernetes 1.20 is older than any installed schemas; checking with 1.28, the oldest",
            Level.WARNING,
        ),
    )


def test_a_bad_kube_version_is_a_usage_problem_naming_its_option() -> None:
    found = request.kube_check("banana", label="kubeVersion")
    assert found.version is None and found.problem is not None
    assert found.problem.option == "kubeVersion" and "not a Kubernetes version: 'banana'" in found.problem.message


def test_without_schemas_the_default_warns_and_another_version_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(request, "available_versions", lambda: [])
    default = request.kube_check(DEFAULT_KUBE_VERSION)
    assert default.version is None and default.problem is None
    assert [n.line() for n in default.notes] == [
        "omerender: warning: no Kubernetes schemas are installed, so rendered objects are not checked against them"
    ]
    other = request.kube_check("1.29")
    assert other.problem is not None and other.problem.option == "--kube-version"
    assert "no Kubernetes schemas are installed" in other.problem.message


def test_an_output_inside_an_input_is_a_usage_problem(tmp_path: Path) -> None:
    out = str(tmp_path / "out")
    found = request.output_in_input([str(tmp_path)], [("--output-dir", out)])
    assert found == UsageProblem(
        f"--output-dir {out} is inside the input path {tmp_path}; refusing to write there "
        "(pass --allow-output-in-input to allow it)"
    )
    refused = request.output_in_input([str(tmp_path)], [("--output-dir", out)], allowable=False)
    assert refused is not None and "--allow-output-in-input" not in refused.message
    assert request.output_in_input([str(tmp_path / "in")], [("--output-dir", out), ("--status-file", None)]) is None


def test_reports_may_not_share_a_file_nor_land_in_an_input(tmp_path: Path) -> None:
    report = str(tmp_path / "r.json")
    twice = Settings(report_file=report, report_format=(f"junit={tmp_path}/./r.json",))
    found = request.reports_in_input(twice, [], "build")
    assert found is not None and found.message.endswith("name one file; give each report its own")
    inside = Settings(report_format=(f"sarif={tmp_path}/r.yaml",))
    found = request.reports_in_input(inside, [str(tmp_path)], "status")
    assert found is not None and "is inside the input path" in found.message
    assert "--allow-output-in-input" not in found.message  # status does not take it
    allowed = Settings(report_format=(f"sarif={tmp_path}/r.yaml",), allow_output_in_input=True)
    assert request.reports_in_input(allowed, [str(tmp_path)], "build") is None
