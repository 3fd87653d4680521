"""The spec's admission table, chain limits and lookup rules, checked through the CLI."""

from __future__ import annotations

import json

from builders import MODEL, child_spec, dump, isvc, main_container, only, profile_spec, runtime

CSR, SR = "ClusterServingRuntime", "ServingRuntime"


def test_parent_not_found(run_cli, write_tree):
    tree = write_tree(
        {
            "runtime.yaml": dump(
                runtime("sglang-llama-3-2-3b", child_spec(), parent="sglang-profile", kind=SR, namespace="llama-demo")
            )
        }
    )
    result = run_cli("build", str(tree))
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == (
        f'{tree}/runtime.yaml:6:26: error: [ParentNotFound] inherit-from parent "sglang-profile" not found (chain so '
        "far: [sglang-llama-3-2-3b])\n"
    )


def test_cycle_of_a_runtime_naming_itself(run_cli, write_tree):
    tree = write_tree(
        {"r.yaml": dump(runtime("sglang-llama-3-2-3b", child_spec(), parent="sglang-llama-3-2-3b", kind=SR))}
    )
    result = run_cli("build", str(tree))
    assert result.exit_code == 1
    assert (
        "error: [InheritanceCycle] inheritance cycle detected: [sglang-llama-3-2-3b sglang-llama-3-2-3b]"
        in result.stderr
    )


def test_names_alone_count_so_a_serving_runtime_cannot_inherit_a_cluster_runtime_of_its_name(run_cli, write_tree):
    tree = write_tree(
        {"r.yaml": dump(runtime("x", profile_spec()), runtime("x", child_spec(), parent="x", kind=SR, namespace="ns"))}
    )
    result = run_cli("status", str(tree), "-o", "json")
    assert result.exit_code == 1
    items = {(i["kind"], i["metadata"]["name"]): i for i in json.loads(result.stdout)["items"]}
    condition = items[(SR, "x")]["status"]["conditions"][0]
    assert (condition["status"], condition["reason"], condition["message"]) == (
        "False",
        "InheritanceCycle",
        "inheritance cycle detected: [x x]",
    )


def test_cycle_between_two_runtimes_starts_at_the_runtime_written(run_cli, write_tree):
    tree = write_tree(
        {"r.yaml": dump(runtime("a", profile_spec(), parent="b"), runtime("b", profile_spec(), parent="a"))}
    )
    result = run_cli("build", str(tree))
    assert "inheritance cycle detected: [a b a]" in result.stderr
    assert "inheritance cycle detected: [b a b]" in result.stderr


def _chain(length: int) -> list[dict]:
    docs = [runtime("r1", profile_spec())]
    docs += [runtime(f"r{i}", profile_spec(), parent=f"r{i - 1}") for i in range(2, length + 1)]
    return docs


def test_five_runtimes_are_allowed(run_cli, write_tree):
    tree = write_tree({"r.yaml": dump(*_chain(5))})
    result = run_cli("status", str(tree))
    assert result.exit_code == 0, str(result)
    assert "r1,r2,r3,r4,r5" in result.stdout


def test_six_runtimes_exceed_max_depth(run_cli, write_tree):
    tree = write_tree({"r.yaml": dump(*_chain(6))})
    result = run_cli("build", str(tree))
    assert result.exit_code == 1
    lines = [line for line in result.stderr.splitlines() if "r6" in line and "max depth" in line]
    assert len(lines) == 1
    assert lines[0].split(": error: ")[1].startswith("[MaxDepthExceeded] inheritance chain exceeds max depth 5")


def test_profile_must_be_disabled(run_cli, write_tree):
    spec = profile_spec()
    spec["disabled"] = False
    tree = write_tree({"p.yaml": dump(runtime("p", spec, profile=True))})
    result = run_cli("build", str(tree))
    assert result.exit_code == 1
    assert result.stderr.endswith(
        'error: [ProfileNotDisabled] runtimes carrying ome.io/runtime-profile="true" must also set spec.disabled: '
        "true\n"
    )
    status = run_cli("status", str(tree))
    assert status.exit_code == 1


def test_cluster_runtime_parents_are_only_cluster_runtimes(run_cli, write_tree):
    tree = write_tree(
        {
            "r.yaml": dump(
                runtime("base", profile_spec(), kind=SR, namespace="default"),
                runtime("child", child_spec(), parent="base"),
            )
        }
    )
    result = run_cli("build", str(tree))
    assert 'inherit-from parent "base" not found (chain so far: [child])' in result.stderr


def test_serving_runtime_parents_in_its_namespace_first_then_cluster(run_cli, write_tree):
    ns_parent = runtime("base", profile_spec(), kind=SR, namespace="team")
    ns_parent["spec"]["engineConfig"]["runner"]["image"] = "namespaced:1"
    docs = [
        runtime("base", profile_spec(), profile=True),
        ns_parent,
        runtime("child", child_spec(), parent="base", kind=SR, namespace="team"),
        runtime("child", child_spec(), parent="base", kind=SR, namespace="other"),
        MODEL,
        isvc("a", namespace="team"),
        isvc("b", namespace="other"),
    ]
    tree = write_tree({"all.yaml": dump(*docs)})
    result = run_cli("build", str(tree))
    assert result.exit_code == 0, str(result)
    assert main_container(only(result.stdout, name="a-engine"))["image"] == "namespaced:1"
    assert main_container(only(result.stdout, name="b-engine"))["image"] == "engine:1"


def test_serving_runtime_does_not_see_other_namespaces(run_cli, write_tree):
    tree = write_tree(
        {
            "r.yaml": dump(
                runtime("base", profile_spec(), kind=SR, namespace="a"),
                runtime("child", child_spec(), parent="base", kind=SR, namespace="b"),
            )
        }
    )
    result = run_cli("build", str(tree))
    assert 'inherit-from parent "base" not found (chain so far: [child])' in result.stderr


def test_isvc_names_a_namespaced_runtime_before_a_cluster_runtime(run_cli, write_tree):
    cluster = runtime("child", child_spec({"runner": {"name": "ome-container", "image": "cluster:1"}}), parent="base")
    namespaced = runtime(
        "child",
        child_spec({"runner": {"name": "ome-container", "image": "ns:1"}}),
        parent="base",
        kind=SR,
        namespace="default",
    )
    tree = write_tree(
        {"all.yaml": dump(runtime("base", profile_spec(), profile=True), cluster, namespaced, MODEL, isvc())}
    )
    result = run_cli("build", str(tree))
    assert main_container(only(result.stdout))["image"] == "ns:1"


def test_broken_chain_fails_the_isvc_with_the_chain_error(run_cli, write_tree):
    tree = write_tree({"all.yaml": dump(runtime("child", child_spec(), parent="gone"), MODEL, isvc())})
    result = run_cli("build", str(tree))
    assert result.exit_code == 1 and result.stdout == ""
    assert (
        'Runtime child does not support model m3b: inherit-from parent "gone" not found (chain so far: [child])'
        in result.stderr
    )


def test_duplicate_objects_name_both_files(run_cli, write_tree):
    tree = write_tree(
        {
            "a.yaml": dump(runtime("base", profile_spec(), profile=True)),
            "b.yaml": dump(runtime("base", profile_spec(), profile=True)),
        }
    )
    result = run_cli("build", str(tree))
    assert result.exit_code == 1
    assert (
        result.stderr
        == f"{tree}/b.yaml:4:9: error: [duplicate-object] duplicate ClusterServingRuntime 'base': also defined at "
        f"{tree}/a.yaml:4\n"
    )


def test_a_file_reached_twice_is_read_once(run_cli, write_tree, monkeypatch):
    # `build .` with a search path inside `.` (the layout .omerender.yaml invites) reaches each file twice
    tree = write_tree({"platform/base.yaml": dump(runtime("base", profile_spec(), profile=True))})
    result = run_cli("build", "--check", str(tree), "--search-path", str(tree / "platform"), str(tree / "platform"))
    assert result.exit_code == 0, result.stderr
    assert "duplicate-object" not in result.stderr and "no-ome-objects" not in result.stderr
    monkeypatch.chdir(tree / "platform")  # named differently from each root: still one file, and no root empty
    result = run_cli("build", "--check", "--fail-empty-input", ".", "--search-path", str(tree / "platform"))
    assert result.exit_code == 0, result.stderr
    assert "duplicate-object" not in result.stderr and "no-ome-objects" not in result.stderr


def test_status_table_matches_the_spec_example(run_cli):
    result = run_cli("status", "fixtures/llama-demo")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[2].split() == [
        "llama-demo",
        "ServingRuntime",
        "sglang-llama-3-2-3b",
        "sglang-profile,sglang-llama-3-2-3b",
        "True",
        "Resolved",
    ]


def test_status_yaml_is_a_v1_list(run_cli):
    import yaml

    listing = yaml.safe_load(run_cli("status", "fixtures/llama-demo", "-o", "yaml").stdout)
    assert listing["apiVersion"] == "v1" and listing["kind"] == "List"
    item = next(i for i in listing["items"] if i["metadata"]["name"] == "sglang-llama-3-2-3b")
    assert item == {
        "apiVersion": "ome.io/v1beta1",
        "kind": "ServingRuntime",
        "metadata": {"name": "sglang-llama-3-2-3b", "namespace": "llama-demo"},
        "status": {
            "inheritanceChain": ["sglang-profile", "sglang-llama-3-2-3b"],
            "conditions": [
                {
                    "type": "InheritanceReady",
                    "status": "True",
                    "reason": "Resolved",
                    "message": "inheritance chain resolved",
                }
            ],
        },
    }


def test_a_missing_sixth_parent_is_not_found_rather_than_too_deep(run_cli, write_tree):
    # r1..r5 is a full chain; r1 names r0, which does not exist, so the chain never holds six runtimes.
    docs = _chain(5)
    docs[0]["metadata"]["annotations"] = {"ome.io/inherit-from": "r0"}
    tree = write_tree({"r.yaml": dump(*docs)})
    result = run_cli("build", str(tree))
    assert (
        'error: [ParentNotFound] inherit-from parent "r0" not found (chain so far: [r5 r4 r3 r2 r1])' in result.stderr
    )
    assert "max depth" not in result.stderr


def test_a_newline_in_a_message_stays_on_one_diagnostic_line(run_cli, write_tree):
    import yaml

    doc = {
        "apiVersion": "ome.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "svc"},
        "spec": {"model": {"name": "m"}, "runtime": {"name": "a\nb"}, "engine": {}},
    }
    tree = write_tree({"a.yaml": yaml.safe_dump(doc)})
    result = run_cli("build", str(tree))
    assert result.exit_code == 1
    assert all(line.split(":")[2].isdigit() for line in result.stderr.splitlines())
