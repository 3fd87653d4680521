"""`omerender diff`: the blast radius of a change to a profile with ten children (through ``commands.diff.run``
and the ``-o`` formats; the CLI's exit codes at the end)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from lifecycle_helpers import CHILDREN, FLEET_NS, NEW_IMAGE, OLD_IMAGE, edit
from use_cases import diff, diff_data, diff_text, lock, said

from omerender.commands.outcome import Verdict

IMAGE_PATH = "spec.template.spec.containers[name=ome-container].image"


def _changed_copy(fleet, tmp_path, old: str, new: str, file: str = "profiles.yaml"):
    target = tmp_path / "fleet-new"
    shutil.copytree(fleet, target)
    text = (target / file).read_text()
    assert text.count(old) >= 1
    (target / file).write_text(text.replace(old, new, 1))  # the first profile only: fleet-profile
    return target


@pytest.fixture
def locked_fleet(fleet):
    done = lock(fleet)
    assert done.verdict is Verdict.OK, said(done)
    return fleet


def test_profile_change_lists_exactly_the_isvcs_that_roll_out(locked_fleet, tmp_path):
    new = _changed_copy(locked_fleet, tmp_path, OLD_IMAGE, NEW_IMAGE)
    done = diff([locked_fleet, new])
    assert done.verdict is Verdict.FINDINGS, said(done)
    report = diff_data(done)
    # child-3 sets its own image, svc-7 is pinned, other-profile's family is untouched
    expected = [f"{FLEET_NS}/svc-{i}" for i in range(CHILDREN) if i not in (3, 7)]
    assert [r["inferenceService"] for r in report["rollouts"]] == expected
    for rollout in report["rollouts"]:
        [obj] = rollout["objects"]
        assert obj["object"] == f"Deployment.apps/{rollout['inferenceService'].split('/')[1]}-engine"
        assert obj["changes"] == [
            {
                "path": IMAGE_PATH,
                "change": "changed",
                "old": OLD_IMAGE,
                "new": NEW_IMAGE,
                "origin": "ClusterServingRuntime fleet-profile",
            }
        ]
        assert rollout["revision"]["old"] != rollout["revision"]["new"]
    assert [d["inferenceService"] for d in report["drifting"]] == [f"{FLEET_NS}/svc-7"]
    changed_runtimes = {r["runtime"] for r in report["runtimes"]}
    assert changed_runtimes == {"ClusterServingRuntime/fleet-profile"} | {
        f"ServingRuntime/{FLEET_NS}/child-{i}" for i in range(CHILDREN) if i != 3
    }
    assert report["created"] == report["deleted"] == report["broken"] == []


def test_child_change_is_attributed_to_the_child(fleet, tmp_path):
    new = _changed_copy(fleet, tmp_path, "--seed=5", "--seed=55", "children.yaml")
    report = diff_data(diff([fleet, new]))
    [rollout] = report["rollouts"]
    assert rollout["inferenceService"] == f"{FLEET_NS}/svc-5"
    [change] = rollout["objects"][0]["changes"]
    assert change["path"] == "spec.template.spec.containers[name=ome-container].args"
    assert (change["origin"], change["new"][-1]) == ("ServingRuntime fleet/child-5", "--seed=55")


def test_text_and_markdown(locked_fleet, tmp_path):
    new = _changed_copy(locked_fleet, tmp_path, OLD_IMAGE, NEW_IMAGE)
    done = diff([locked_fleet, new])
    text = diff_text(done)
    assert "InferenceServices that roll out (8):" in text
    assert f'~ {IMAGE_PATH}: "{OLD_IMAGE}" -> "{NEW_IMAGE}"  [from ClusterServingRuntime fleet-profile]' in text
    assert (
        "Pinned InferenceServices drifting (they keep their snapshot) (1):" in text and "fleet/svc-7: stays on" in text
    )
    assert "svc-3 " not in text and "svc-other" not in text
    markdown = diff_text(done, "markdown")
    assert markdown.startswith("### omerender diff\n")
    assert (
        f'| `Deployment.apps/svc-0-engine` | `{IMAGE_PATH}` | `changed` | `"{OLD_IMAGE}"` | `"{NEW_IMAGE}"` '
        "| `ClusterServingRuntime fleet-profile` |" in markdown
    )
    assert "#### Pinned InferenceServices drifting" in markdown


def test_no_change_exits_0(run_cli, fleet):  # the CLI's contract: exit 0 and what stdout holds
    done = run_cli("diff", str(fleet), str(fleet))
    assert (done.exit_code, done.stdout) == (0, "No changes.\n")


def test_broken_new_tree_breaks_the_tree_and_lists_what_no_longer_renders(run_cli, fleet, tmp_path):
    new = tmp_path / "broken"
    shutil.copytree(fleet, new)
    edit(new / "profiles.yaml", "name: fleet-profile", "name: renamed-profile")
    done = diff([fleet, new])
    assert done.verdict is Verdict.TREE_BROKEN
    assert run_cli("diff", str(fleet), str(new)).exit_code == 4  # the CLI's code for it; not 2: a usage error
    report = diff_data(done)
    assert len(report["broken"]) == CHILDREN and report["rollouts"] == []
    assert "ParentNotFound" in {r["new"].split(" ")[-1].strip("()") for r in report["runtimes"] if r["new"]}


def test_a_tree_that_does_not_build_is_said_before_no_changes(run_cli, fleet, tmp_path):
    # both sides broken the same way: nothing renders differently, but "No changes." alone would hide exit 4 in a
    # pull request's comment
    broken = tmp_path / "broken"
    shutil.copytree(fleet, broken)
    edit(broken / "profiles.yaml", "name: fleet-profile", "name: renamed-profile")
    done = run_cli("diff", str(broken), str(broken))
    assert done.exit_code == 4
    said_first = "The old tree and the new tree do not build: their errors are in the diagnostics."
    assert done.stdout == f"{said_first} No changes in what renders.\n"
    markdown = run_cli("diff", str(broken), str(broken), "-o", "markdown").stdout
    assert markdown == f"### omerender diff\n\n**{said_first}**\n\nNo changes in what renders.\n"
    only_new = run_cli("diff", str(fleet), str(broken)).stdout
    assert only_new.startswith("The new tree does not build: its errors are in the diagnostics.\n\nRuntimes whose")
    assert run_cli("diff", str(broken), str(broken), "-o", "json").stdout.startswith("{")  # json: the exit code says


def test_usage_errors(run_cli, fleet):
    assert run_cli("diff", str(fleet)).exit_code == 2
    assert run_cli("diff", "--old", str(fleet)).exit_code == 2  # --old without --new
    assert run_cli("diff", "--old", str(fleet), "--new", str(fleet), str(fleet)).exit_code == 2  # both forms
    assert run_cli("diff", "--against", "HEAD", "--old", str(fleet), "--new", str(fleet)).exit_code == 2
    same = run_cli("diff", "--old", str(fleet), "--new", str(fleet))
    assert (same.exit_code, same.stdout) == (0, "No changes.\n")
    assert run_cli("diff", str(fleet), "--against", "HEAD").exit_code == 2  # not in a git work tree


def _git(cwd, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(cwd), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        check=True,
        capture_output=True,
    )


def test_against_git_ref(fleet, tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(fleet, repo / "manifests")
    (repo / "README").write_text("x\n")
    _git(repo, "init", "-q", "-b", "main")
    assert lock(repo / "manifests").verdict is Verdict.OK
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    edit(repo / "manifests" / "profiles.yaml", OLD_IMAGE, NEW_IMAGE)  # both profiles this time
    done = diff([repo / "manifests"], git_ref="HEAD")
    assert done.verdict is Verdict.FINDINGS, said(done)
    report = diff_data(done)
    assert [r["inferenceService"] for r in report["rollouts"]] == [
        f"{FLEET_NS}/svc-{i}" for i in range(CHILDREN) if i not in (3, 7)
    ] + [f"{FLEET_NS}/svc-other"]
    assert [d["inferenceService"] for d in report["drifting"]] == [f"{FLEET_NS}/svc-7"]
    _git(repo, "commit", "-q", "-am", "bump")
    assert diff([repo / "manifests"], git_ref="HEAD").verdict is Verdict.OK
    assert diff([repo / "manifests"], git_ref="HEAD~1").verdict is Verdict.FINDINGS
    assert diff([repo / "manifests"], git_ref="no-such-ref").verdict is Verdict.USAGE
    (repo / "new-dir").mkdir()
    assert diff([repo / "new-dir"], git_ref="HEAD").verdict is Verdict.OK  # absent at HEAD: empty


def test_isvc_change_is_attributed_to_the_isvc(demo, tmp_path):
    new = tmp_path / "new"
    shutil.copytree(demo, new)
    edit(
        new / "isvc.yaml",
        "    maxReplicas: 1\n",
        "    maxReplicas: 3\n    runner:\n      name: ome-container\n      args: [--chunked-prefill-size=4096]\n",
    )
    done = diff([demo, new])
    assert done.verdict is Verdict.FINDINGS, said(done)
    report = diff_data(done)
    assert report["runtimes"] == [] and report["drifting"] == []
    [rollout] = report["rollouts"]
    changes = {(o["object"].split("/")[0], c["path"]): c for o in rollout["objects"] for c in o["changes"]}
    args = changes[("Deployment.apps", "spec.template.spec.containers[name=ome-container].args")]
    assert (args["new"], args["origin"]) == (
        ["--chunked-prefill-size=4096"],
        "InferenceService llama-demo/llama-3-2-3b-instruct",
    )
    hpa = [
        c
        for (kind, _), c in changes.items()
        if kind == "HorizontalPodAutoscaler.autoscaling" and c["path"] == "spec.maxReplicas"
    ]
    if hpa:  # rendered once the controller-fidelity work adds the HPA
        assert (hpa[0]["new"], hpa[0]["origin"]) == (3, "InferenceService llama-demo/llama-3-2-3b-instruct")


ENV_PATH = "spec.template.spec.containers[name=ome-container].env"


def _env_diff(demo, tmp_path, env: str):
    new = tmp_path / "new"
    shutil.copytree(demo, new)
    edit(
        new / "profile.yaml",
        "    runner:\n      name: ome-container\n",
        f"    runner:\n      name: ome-container\n{env}",
    )
    done = diff([demo, new])
    assert done.verdict is Verdict.FINDINGS, said(done)
    [rollout] = diff_data(done)["rollouts"]
    [obj] = rollout["objects"]
    return obj["changes"]


def test_one_env_var_added_at_the_top_is_one_addition_from_the_profile(demo, tmp_path):
    changes = _env_diff(demo, tmp_path, '      env:\n        - name: AAA_NEW\n          value: "1"\n')
    new = {"name": "AAA_NEW", "value": "1"}
    assert changes == [
        {
            "path": f"{ENV_PATH}[name=AAA_NEW]",
            "change": "added",
            "old": None,
            "new": new,
            "origin": "ClusterServingRuntime sglang-profile",
        }
    ]


def test_a_reorder_is_reported_as_a_reorder(demo, tmp_path):
    # the controller appends MODEL_PATH and PARALLELISM_SIZE and sets the latter's value whatever the profile says;
    # a profile that names PARALLELISM_SIZE puts it first: only the order changes, and pods roll out for it
    changes = _env_diff(demo, tmp_path, "      env:\n        - name: PARALLELISM_SIZE\n          value: '2'\n")
    assert [(c["path"], c["change"], c["old"], c["new"]) for c in changes] == [
        (ENV_PATH, "reordered", ["[name=MODEL_PATH]", "[name=PARALLELISM_SIZE]"],
         ["[name=PARALLELISM_SIZE]", "[name=MODEL_PATH]"]),
    ]  # fmt: skip


def test_a_value_change_is_one_change_with_each_side_s_value(demo, tmp_path):
    old = tmp_path / "old"
    shutil.copytree(demo, old)
    anchor = "    runner:\n      name: ome-container\n"
    edit(old / "profile.yaml", anchor, f"{anchor}      env: [{{name: A, value: x}}, {{name: B, value: y}}]\n")
    new = tmp_path / "new"
    shutil.copytree(old, new)
    edit(new / "profile.yaml", "{name: A, value: x}", "{name: A, value: z}")
    [rollout] = diff_data(diff([old, new]))["rollouts"]
    assert rollout["objects"][0]["changes"] == [
        {
            "path": f"{ENV_PATH}[name=A].value",
            "change": "changed",
            "old": "x",
            "new": "z",
            "origin": "ClusterServingRuntime sglang-profile",
        }
    ]


def test_a_knative_service_is_named_with_its_group(tmp_path):
    old = tmp_path / "old"
    shutil.copytree(Path(__file__).resolve().parents[1] / "cases" / "fidelity-serverless" / "input", old)
    new = tmp_path / "new"
    shutil.copytree(old, new)
    edit(new / "runtime.yaml", "image: engine:1", "image: engine:2")
    done = diff([old, new])
    assert done.verdict is Verdict.FINDINGS, said(done)
    [rollout] = diff_data(done)["rollouts"]
    names = [o["object"] for o in rollout["objects"]]
    assert names and all(n.startswith("Service.serving.knative.dev/") for n in names), names
