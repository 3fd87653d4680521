"""`omerender diff -o markdown`: a Mermaid picture of the blast radius of a profile image bump."""

from __future__ import annotations

import re
import shutil

from lifecycle_helpers import CHILDREN, FLEET_NS, NEW_IMAGE, OLD_IMAGE
from mermaid_check import parse
from use_cases import diff, diff_text, lock, said

from omerender.commands.outcome import Verdict


def _bumped(fleet, tmp_path):
    assert lock(fleet).verdict is Verdict.OK
    new = tmp_path / "fleet-new"
    shutil.copytree(fleet, new)
    text = (new / "profiles.yaml").read_text()
    (new / "profiles.yaml").write_text(text.replace(OLD_IMAGE, NEW_IMAGE, 1))  # fleet-profile only
    return new


def _block(markdown: str) -> str:
    [block] = re.findall(r"```mermaid\n(.*?)```", markdown, re.S)
    return block


def test_profile_bump_picture_names_the_profile_and_each_affected_isvc(fleet, tmp_path):
    new = _bumped(fleet, tmp_path)
    done = diff([fleet, new])
    assert done.verdict is Verdict.FINDINGS, said(done)
    markdown = diff_text(done, "markdown")
    block = _block(markdown)
    assert block.startswith("flowchart TD\n")
    labels = re.findall(r'\["(.*?)"\]', block)
    assert any(label.startswith("ClusterServingRuntime<br/>fleet-profile<br/>") for label in labels)
    for i in range(CHILDREN):
        if i == 3:  # child-3 sets its own image: neither it nor svc-3 changes, both are collapsed
            assert f"{FLEET_NS}/svc-3" not in block and f"{FLEET_NS}/child-3" not in block
            continue
        assert f"InferenceService<br/>{FLEET_NS}/svc-{i}" in block
        assert f"ServingRuntime<br/>{FLEET_NS}/child-{i}" in block
    assert "other-profile" not in block and "other-child" not in block and "svc-other" not in block
    assert "2 more, unchanged<br/>1 runtime, 1 InferenceService" in block
    rolled = re.search(r"class (\S+) rollout", block).group(1).split(",")
    assert len(rolled) == CHILDREN - 2  # svc-3 is unchanged, svc-7 is pinned
    drifting = re.search(r"class (\S+) drifting", block).group(1)
    assert drifting == "isvc__fleet__svc_2d_7"
    changed = re.search(r"class (\S+) changed", block).group(1).split(",")
    assert "csr____fleet_2d_profile" in changed and len(changed) == CHILDREN  # the profile and 9 children
    assert markdown.index("```mermaid") < markdown.index("#### Runtimes whose merged spec changed")
    checked = parse({"fleet-diff": block}, tmp_path)
    assert checked.returncode == 0 and "ok flowchart" in checked.stdout, checked.stderr


def test_picture_only_in_markdown_and_not_without_changes(run_cli, fleet, tmp_path):
    new = _bumped(fleet, tmp_path)
    done = diff([fleet, new])
    assert "mermaid" not in diff_text(done) and "mermaid" not in diff_text(done, "json")
    same = diff([fleet, fleet])
    assert same.verdict is Verdict.OK and diff_text(same, "markdown") == "### omerender diff\n\nNo changes.\n"
    assert "mermaid" not in run_cli("diff", str(fleet), str(new)).stdout  # the CLI's default format: text


def test_child_change_picture_leaves_the_other_children_collapsed(fleet, tmp_path):
    new = tmp_path / "fleet-new"
    shutil.copytree(fleet, new)
    text = (new / "children.yaml").read_text()
    (new / "children.yaml").write_text(text.replace("--seed=5", "--seed=55"))
    block = _block(diff_text(diff([fleet, new]), "markdown"))
    assert "fleet-profile" in block and f"{FLEET_NS}/child-5" in block and f"{FLEET_NS}/svc-5" in block
    assert f"{FLEET_NS}/child-4" not in block and f"{FLEET_NS}/svc-4" not in block
    assert "18 more, unchanged<br/>9 runtimes, 9 InferenceServices" in block
