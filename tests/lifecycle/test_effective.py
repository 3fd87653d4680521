"""`omerender effective`: the runtime an InferenceService uses, its chain, merged spec and origins (through the
use case, ``commands.effective.run``, and the ``-o`` formats)."""

from __future__ import annotations

import re

import yaml
from lifecycle_helpers import ISVC, NS, OLD_IMAGE, set_sync
from use_cases import effective, effective_data, effective_text, lock

from omerender.commands.outcome import Verdict


def test_json_lists_chain_root_first_and_merged_spec(demo):
    done = effective(demo, ISVC, namespace=NS)
    assert done.verdict is Verdict.OK, done
    data = effective_data(done)
    assert data["chain"] == ["sglang-profile", "sglang-llama-3-2-3b"]
    assert data["runtime"] == {
        "kind": "ServingRuntime",
        "name": "sglang-llama-3-2-3b",
        "namespace": NS,
        "selection": "named",
    }
    assert re.fullmatch(r"[0-9a-f]{10}", data["revision"])
    assert data["revision"] == data["liveRevision"]
    assert (data["mode"], data["drifted"], data["source"]) == ("follows-live", False, "live")
    runner = data["spec"]["engineConfig"]["runner"]
    assert runner["image"] == OLD_IMAGE
    assert runner["args"] == ["--tp-size=1", "--mem-frac=0.9"]
    assert runner["command"][:3] == ["python3", "-m", "sglang.launch_server"]
    assert data["spec"]["disabled"] is False  # the child's false over the profile's true
    assert data["conditions"] == [{"type": "RuntimeDrifted", "status": "False"}]


PROFILE = "ClusterServingRuntime sglang-profile"  # origins name the kind (and the namespace) of the runtime
CHILD_ORIGIN = f"ServingRuntime {NS}/sglang-llama-3-2-3b"


def test_show_origin_attributes_image_to_profile_and_args_to_child(demo):
    done = effective(demo, ISVC, namespace=NS)
    assert done.verdict is Verdict.OK, done
    origins = effective_data(done, show_origin=True)["origins"]
    assert origins["engineConfig.runner.image"] == PROFILE
    assert origins["engineConfig.runner.command"] == PROFILE
    assert origins["engineConfig.runner.args"] == CHILD_ORIGIN
    assert origins["engineConfig.runner.resources.limits.memory"] == CHILD_ORIGIN
    assert origins["engineConfig.volumes[name=dshm].emptyDir.medium"] == PROFILE
    assert origins["disabled"] == CHILD_ORIGIN
    assert origins["engineConfig.minReplicas"] == f"InferenceService {NS}/{ISVC}"


def test_show_origin_text_and_isvc_override(demo):
    (demo / "isvc.yaml").write_text(
        (demo / "isvc.yaml")
        .read_text()
        .replace(
            "    maxReplicas: 1\n",
            "    maxReplicas: 1\n    runner:\n      name: ome-container\n      args: [--tp-size=2]\n",
        )
    )
    done = effective(demo, ISVC, namespace=NS)
    assert done.verdict is Verdict.OK, done
    stdout = effective_text(done, show_origin=True)
    rows = {line.split()[0]: line for line in stdout.splitlines() if line.startswith("engineConfig.")}
    assert rows["engineConfig.runner.image"].endswith(PROFILE)
    assert rows["engineConfig.runner.args"].endswith(f"InferenceService {NS}/{ISVC}")
    assert '["--tp-size=2"]' in rows["engineConfig.runner.args"]
    assert "Chain:" in stdout and "sglang-profile -> sglang-llama-3-2-3b" in stdout


def test_text_and_yaml_outputs(demo):
    done = effective(demo, ISVC, namespace=NS)
    assert done.verdict is Verdict.OK, done
    text = effective_text(done)
    assert "ServingRuntime llama-demo/sglang-llama-3-2-3b (named)" in text
    assert "follows the live runtime (autoSync: true)" in text
    assert "Chain:" not in text  # the chain comes with -o yaml|json
    data = yaml.safe_load(effective_text(effective(demo, f"{NS}/{ISVC}"), fmt="yaml"))
    assert data["chain"][0] == "sglang-profile" and data["kind"] == "EffectiveRuntime"


def test_pinned_without_lock_is_reported_as_pinned(demo):
    set_sync(demo, auto_sync=False)
    data = effective_data(effective(demo, ISVC, namespace=NS))
    assert (data["mode"], data["autoSync"], data["lockedRevision"]) == ("pinned", False, None)


def test_unknown_isvc_exits_1(run_cli, demo):  # the CLI's contract: the exit code and where the line goes
    done = run_cli("effective", "nope", "-n", NS, str(demo))
    assert done.exit_code == 1 and done.stdout == ""
    assert "llama-demo/nope not found" in done.stderr


def test_runtime_chosen_by_ome_uses_its_own_spec(demo):
    from lifecycle_helpers import edit

    edit(demo / "isvc.yaml", "  runtime:\n    name: sglang-llama-3-2-3b\n", "")
    edit(demo / "runtime.yaml", "autoSelect: false", "autoSelect: true")
    done = effective(demo, ISVC, namespace=NS)
    assert done.verdict is Verdict.OK, done
    data = effective_data(done)
    assert data["runtime"]["selection"] == "chosen" and data["runtime"]["name"] == "sglang-llama-3-2-3b"
    assert data["chain"] == ["sglang-llama-3-2-3b"]  # OME renders a chosen runtime without inheritance
    assert "image" not in data["spec"]["engineConfig"]["runner"]
    assert "(chosen by OME)" in effective_text(done)


def test_text_shows_the_locked_revision_and_drift_like_json(demo):
    from lifecycle_helpers import NEW_IMAGE, edit

    set_sync(demo, auto_sync=False)
    assert lock(demo).verdict is Verdict.OK
    edit(demo / "profile.yaml", OLD_IMAGE, NEW_IMAGE)
    done = effective(demo, ISVC, namespace=NS)
    data = effective_data(done)
    rows = dict(line.split(":", 1) for line in effective_text(done).splitlines())
    assert rows["Locked revision"].strip() == data["lockedRevision"] == data["revision"]
    assert rows["Drifted"].strip().startswith("True (RevisionMismatch: pinned to revision " + data["lockedRevision"])
    assert data["liveRevision"] in rows["Drifted"] and data["liveRevision"] in rows["Live revision"]
