"""One-sided modelSizeRange: OME's matcher dereferences both bounds of a runtime's own range."""

from __future__ import annotations

from builders import MODEL, child_spec, dump, isvc, profile_spec, runtime


def _tree(write_tree, parent_range, child_range, *apps):
    parent = profile_spec()
    if parent_range:
        parent["modelSizeRange"] = parent_range
    return write_tree(
        {
            "p.yaml": dump(runtime("base", parent, profile=True)),
            "c.yaml": dump(runtime("child", child_spec(modelSizeRange=child_range), parent="base")),
            "a.yaml": dump(MODEL, *apps),
        }
    )


def test_one_bound_with_nothing_inherited_is_an_error(run_cli, write_tree):
    tree = _tree(write_tree, None, {"max": "4B"}, isvc())
    result = run_cli("build", str(tree))
    assert result.exit_code == 1
    assert "modelSizeRange sets no min: OME's matcher dereferences both bounds" in result.stderr


def test_inherited_bound_is_only_a_note_without_auto_selection(run_cli, write_tree):
    tree = _tree(write_tree, {"min": "2B", "max": "3B"}, {"max": "4B"}, isvc())
    quiet = run_cli("build", str(tree))
    assert quiet.exit_code == 0 and quiet.stderr == ""
    assert (
        "info: [size-range-one-sided] modelSizeRange sets no min (the merged chain has both)"
        in run_cli("build", "-v", str(tree)).stderr
    )


def test_inherited_bound_warns_when_an_inference_service_auto_selects(run_cli, write_tree):
    chooser = isvc("chooser")
    del chooser["spec"]["runtime"]
    tree = _tree(write_tree, {"min": "2B", "max": "3B"}, {"max": "4B"}, isvc(), chooser)
    result = run_cli("build", str(tree))
    assert "warning: [size-range-one-sided] modelSizeRange sets no min (the merged chain has both)" in result.stderr
