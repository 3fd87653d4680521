"""What users see agrees with the render (issue #33): the status file is `status`'s list, `lock --check` on a broken
tree says it did not check, and `no-containers` names the component and the runtime."""

from __future__ import annotations

from pathlib import Path

from builders import MODEL, child_spec, dump, isvc, profile_spec, runtime


def _platform_and_app(root: Path) -> None:
    """A search path holding a profile, a cluster child and a runtime nobody uses; an app holding a namespaced child
    and the InferenceService that uses it."""
    platform = root / "platform"
    platform.mkdir()
    (platform / "runtimes.yaml").write_text(
        dump(
            MODEL,
            runtime("sglang-profile", profile_spec(), profile=True),
            runtime("cluster-child", child_spec(), parent="sglang-profile"),
            runtime("unused", child_spec(), parent="sglang-profile"),
        )
    )
    app = root / "apps" / "team"
    app.mkdir(parents=True)
    (app / "app.yaml").write_text(
        dump(
            runtime("team-child", child_spec(), parent="sglang-profile", kind="ServingRuntime", namespace="team"),
            isvc("svc", "team-child", namespace="team"),
        )
    )


def test_status_file_is_status_output_byte_for_byte(run_cli, tmp_path, monkeypatch):
    _platform_and_app(tmp_path)
    monkeypatch.chdir(tmp_path)
    for suffix, output in ((".json", "json"), (".yaml", "yaml")):
        target = tmp_path / f"status{suffix}"
        built = run_cli("build", "apps", "--search-path", "platform", "--status-file", str(target))
        assert built.exit_code == 0, str(built)
        shown = run_cli("status", "apps", "--search-path", "platform", "-o", output)
        assert shown.exit_code == 0, str(shown)
        assert target.read_text(encoding="utf-8") == shown.stdout
        # only the app's runtime: the search path's three resolve its parent and are not listed
        assert "team-child" in shown.stdout and "unused" not in shown.stdout and "cluster-child" not in shown.stdout


def test_status_file_without_search_path_lists_every_runtime(run_cli, tmp_path, monkeypatch):
    _platform_and_app(tmp_path)
    monkeypatch.chdir(tmp_path)
    built = run_cli("build", "apps", "platform", "--status-file", "s.json")
    shown = run_cli("status", "apps", "platform", "-o", "json")
    assert built.exit_code == 0 and shown.exit_code == 0, str(built) + str(shown)
    assert (tmp_path / "s.json").read_text(encoding="utf-8") == shown.stdout
    assert shown.stdout.count('"kind": "ClusterServingRuntime"') == 3


def _broken(root: Path) -> Path:
    """Two errors: a parent that is missing, and a runtime whose engine has neither containers nor a runner."""
    (root / "in.yaml").write_text(
        dump(
            MODEL,
            runtime("orphan", child_spec(), parent="nowhere"),
            runtime("bare", child_spec(engine={"minReplicas": 1})),
            isvc("svc", "bare"),
        )
    )
    return root / "in.yaml"


def test_lock_check_on_a_broken_tree_says_it_did_not_check(run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _broken(tmp_path)
    done = run_cli("lock", "--check", "in.yaml")
    assert done.exit_code == 1
    assert done.stderr.splitlines()[-1] == (
        "omerender: omerender.lock not checked: the build failed with 2 errors, so there is no render to compare it "
        "with; fix the errors above (or use --keep-last-good for broken chains)"
    )
    assert "not written" not in done.stderr and not (tmp_path / "omerender.lock").exists()
    written = run_cli("lock", "in.yaml")
    assert written.exit_code == 1
    assert written.stderr.splitlines()[-1] == (
        "omerender: omerender.lock not written: the build failed with 2 errors; fix the errors above (or use "
        "--keep-last-good for broken chains)"
    )


def test_no_containers_names_the_component_and_the_runtime(run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.yaml").write_text(
        dump(MODEL, runtime("bare", child_spec(engine={"minReplicas": 1})), isvc("svc", "bare"))
    )
    done = run_cli("build", "in.yaml")
    assert done.exit_code == 1 and done.stdout == ""
    errors = [line for line in done.stderr.splitlines() if "[no-containers]" in line]
    assert len(errors) == 1, done.stderr
    assert errors[0].startswith("in.yaml:")
    assert "error: [no-containers] engine of runtime bare: no containers found in pod spec" in errors[0]
