"""Findings of the conformance review against the spec, each checked through the CLI from real YAML."""

from __future__ import annotations

import json

from builders import MODEL, child_spec, dump, isvc, main_container, only, profile_spec, runtime

PROFILE = "profile.yaml"


def _pod(stdout: str) -> dict:
    return only(stdout, name="svc-engine")["spec"]["template"]["spec"]


def test_a_parent_written_with_spec_null_is_a_parent_without_spec(run_cli, write_tree):
    # The API server prunes `spec: null` (OME's CRDs mark nothing nullable): the chain resolves.
    text = "apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata:\n  name: empty\nspec: null\n"
    middle = runtime("base", profile_spec(), parent="empty")
    tree = write_tree(
        {
            PROFILE: text + "---\n" + dump(middle),
            "child.yaml": dump(runtime("child", child_spec(), parent="base")),
            "apps.yaml": dump(MODEL, isvc()),
        }
    )
    status = run_cli("status", str(tree), "-o", "json")
    assert status.exit_code == 0, str(status)
    chains = {i["metadata"]["name"]: i["status"]["inheritanceChain"] for i in json.loads(status.stdout)["items"]}
    assert chains["child"] == ["empty", "base", "child"]
    result = run_cli("build", str(tree))
    assert result.exit_code == 0, str(result)
    assert main_container(only(result.stdout, name="svc-engine"))["image"] == "engine:1"


def test_null_fields_in_a_runtime_are_pruned_not_rendered(run_cli, write_tree):
    child = (
        "apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata:\n  name: child\n"
        "  annotations:\n    ome.io/inherit-from: base\n"
        "spec:\n  disabled: false\n  supportedModelFormats:\n"
        "  - modelFormat: {name: safetensors, version: '1.0.0'}\n"
        "    modelFramework: {name: transformers, version: '4.45.0'}\n"
        "    modelArchitecture: LlamaForCausalLM\n"
        "  engineConfig:\n    runner:\n      name: ome-container\n      securityContext:\n"
        "      env:\n      - name: A\n        value:\n"
    )
    tree = write_tree(
        {
            PROFILE: dump(runtime("base", profile_spec(), profile=True)),
            "child.yaml": child,
            "apps.yaml": dump(MODEL, isvc()),
        }
    )
    result = run_cli("build", str(tree))
    assert result.exit_code == 0, str(result)
    assert "null" not in result.stdout
    container = main_container(only(result.stdout, name="svc-engine"))
    assert "securityContext" not in container
    assert {"name": "A"} in container["env"]


def test_a_volume_a_child_adds_keeps_its_empty_dir(run_cli, write_tree):
    # `emptyDir: {}` on a new item is the volume's source, not a field left unset over a parent's value.
    parent = profile_spec(volumes=[{"name": "dshm", "emptyDir": {"medium": "Memory"}}])
    child = child_spec(
        {
            "runner": {"name": "ome-container"},
            "volumes": [{"name": "cache", "emptyDir": {}}, {"name": "dshm", "emptyDir": {}}],
        }
    )
    tree = write_tree(
        {
            PROFILE: dump(runtime("base", parent, profile=True)),
            "child.yaml": dump(runtime("child", child, parent="base")),
            "apps.yaml": dump(MODEL, isvc()),
        }
    )
    result = run_cli("build", str(tree))
    assert result.exit_code == 0, str(result)
    volumes = {v["name"]: v for v in _pod(result.stdout)["volumes"]}
    assert volumes["cache"] == {"name": "cache", "emptyDir": {}}
    assert volumes["dshm"] == {"name": "dshm", "emptyDir": {"medium": "Memory"}}  # the child's {} is unset


def test_an_unterminated_placeholder_is_reported_on_its_own_line(run_cli, write_tree):
    args = ['--a={{printf "%s" .Name}}', "--b={{"]
    child = child_spec({"runner": {"name": "ome-container", "args": args}})
    tree = write_tree(
        {
            PROFILE: dump(runtime("base", profile_spec(), profile=True)),
            "child.yaml": dump(runtime("child", child, parent="base")),
            "apps.yaml": dump(MODEL, isvc()),
        }
    )
    result = run_cli("build", str(tree))
    assert result.exit_code == 1 and result.stdout == ""
    lines = (tree / "child.yaml").read_text().splitlines()
    line_b = next(n for n, text in enumerate(lines, 1) if "--b={{" in text)
    errors = [e for e in result.stderr.splitlines() if "unterminated template action" in e]
    assert errors and all(e.startswith(f"{tree}/child.yaml:{line_b}:") for e in errors), result.stderr


def test_max_depth_message_quotes_the_next_parent_like_the_other_messages(run_cli, write_tree):
    docs = [runtime("r1", profile_spec())] + [runtime(f"r{i}", profile_spec(), parent=f"r{i - 1}") for i in range(2, 7)]
    tree = write_tree({"r.yaml": dump(*docs)})
    result = run_cli("build", str(tree))
    assert result.exit_code == 1
    assert (
        "error: [MaxDepthExceeded] inheritance chain exceeds max depth 5 (chain so far: [r6 r5 r4 r3 r2], next parent "
        '"r1")' in result.stderr
    )


def test_a_name_written_as_a_number_is_reported_as_such(run_cli, write_tree):
    text = "apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata:\n  name: 123\nspec: {}\n"
    tree = write_tree({"r.yaml": text})
    result = run_cli("status", str(tree))
    assert result.exit_code == 1
    assert (
        f"{tree}/r.yaml:4:9: error: [missing-name] ClusterServingRuntime metadata.name must be a string, not 123; "
        "quote it" in result.stderr
    )


def test_a_parent_name_with_a_trailing_newline_stays_on_one_diagnostic_line(run_cli, write_tree):
    # `ome.io/inherit-from: |` keeps the newline; the message shows it escaped, as Go's %q would.
    text = (
        "apiVersion: ome.io/v1beta1\nkind: ServingRuntime\nmetadata:\n  name: child\n  namespace: ns\n"
        "  annotations:\n    ome.io/inherit-from: |\n      base\nspec: {}\n"
    )
    tree = write_tree({"child.yaml": text})
    result = run_cli("status", str(tree))
    assert result.exit_code == 1
    assert (
        result.stderr
        == f'{tree}/child.yaml:7:26: error: [ParentNotFound] inherit-from parent "base\\n" not found (chain so far: '
        "[child])\n"
    )
