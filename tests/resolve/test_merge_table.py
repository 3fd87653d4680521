"""Every row of the spec's "What merges" table, rendered through the CLI from real YAML."""

from __future__ import annotations

from builders import MODEL, child_spec, dump, isvc, main_container, only, profile_spec, runtime

RUNNER = {"name": "ome-container"}


def render(run_cli, write_tree, parent_spec, child, extra_isvc=None):
    tree = write_tree(
        {
            "profile.yaml": dump(runtime("base", parent_spec, profile=True)),
            "child.yaml": dump(runtime("child", child, parent="base")),
            "apps.yaml": dump(MODEL, isvc(extra=extra_isvc)),
        }
    )
    result = run_cli("build", str(tree))
    assert result.exit_code == 0, str(result)
    return only(result.stdout, name="svc-engine")


def test_single_values_replace(run_cli, write_tree):
    deployment = render(
        run_cli, write_tree, profile_spec(), child_spec({"runner": {"name": "ome-container", "image": "engine:2"}})
    )
    assert main_container(deployment)["image"] == "engine:2"


def test_disabled_false_overrides_inherited_disabled_true(run_cli, write_tree):
    # The profile sets disabled: true; without the child's disabled: false the named runtime is refused.
    spec = child_spec()
    del spec["disabled"]
    tree = write_tree(
        {
            "p.yaml": dump(runtime("base", profile_spec(), profile=True)),
            "c.yaml": dump(runtime("child", spec, parent="base")),
            "a.yaml": dump(MODEL, isvc()),
        }
    )
    result = run_cli("build", str(tree))
    assert result.exit_code == 1
    assert "Runtime child does not support model m3b: cluster-scoped runtime child is disabled" in result.stderr
    assert result.stdout == ""


def test_objects_merge_field_by_field(run_cli, write_tree):
    child = child_spec({"runner": {"name": "ome-container", "workingDir": "/srv"}})
    container = main_container(render(run_cli, write_tree, profile_spec(), child))
    assert container["image"] == "engine:1" and container["workingDir"] == "/srv"


def test_model_size_range_merges_field_by_field(run_cli, write_tree):
    # The parent allows 2B..2.5B; the child raises only max, keeps min, and the 3B model now fits.
    parent = profile_spec()
    parent["modelSizeRange"] = {"min": "2B", "max": "2.5B"}
    render(run_cli, write_tree, parent, child_spec(modelSizeRange={"max": "4B"}))


def test_model_size_range_keeps_parent_min(run_cli, write_tree):
    parent = profile_spec()
    parent["modelSizeRange"] = {"min": "4B", "max": "5B"}
    tree = write_tree(
        {
            "p.yaml": dump(runtime("base", parent, profile=True)),
            "c.yaml": dump(runtime("child", child_spec(modelSizeRange={"max": "8B"}), parent="base")),
            "a.yaml": dump(MODEL, isvc()),
        }
    )
    result = run_cli("build", str(tree))
    assert result.exit_code == 1
    assert "model size 3B is outside supported range [4B, 8B]" in result.stderr


def test_node_selector_merges_by_key(run_cli, write_tree):
    parent = profile_spec(nodeSelector={"gpu": "a100", "zone": "a"})
    child = child_spec({"runner": RUNNER, "nodeSelector": {"zone": "b", "pool": "x"}})
    selector = render(run_cli, write_tree, parent, child)["spec"]["template"]["spec"]["nodeSelector"]
    assert selector["gpu"] == "a100" and selector["zone"] == "b" and selector["pool"] == "x"


def test_requests_and_limits_merge_by_key(run_cli, write_tree):
    parent = profile_spec()
    parent["engineConfig"]["runner"]["resources"] = {"requests": {"cpu": "4", "memory": "8Gi"}, "limits": {"cpu": "4"}}
    child = child_spec(
        {
            "runner": {
                "name": "ome-container",
                "resources": {"requests": {"memory": "16Gi"}, "limits": {"memory": "16Gi"}},
            }
        }
    )
    resources = main_container(render(run_cli, write_tree, parent, child))["resources"]
    assert resources == {"requests": {"cpu": "4", "memory": "16Gi"}, "limits": {"cpu": "4", "memory": "16Gi"}}


def test_labels_and_annotations_merge_by_key(run_cli, write_tree):
    parent = profile_spec(labels={"team": "ml", "tier": "gold"}, annotations={"a": "1"})
    child = child_spec({"runner": RUNNER, "labels": {"tier": "silver"}, "annotations": {"b": "2"}})
    meta = render(run_cli, write_tree, parent, child)["metadata"]
    assert meta["labels"]["team"] == "ml" and meta["labels"]["tier"] == "silver"
    assert meta["annotations"]["a"] == "1" and meta["annotations"]["b"] == "2"


def test_env_merges_by_name(run_cli, write_tree):
    parent = profile_spec()
    parent["engineConfig"]["runner"]["env"] = [{"name": "A", "value": "1"}, {"name": "B", "value": "1"}]
    child = child_spec(
        {"runner": {"name": "ome-container", "env": [{"name": "B", "value": "2"}, {"name": "C", "value": "2"}]}}
    )
    env = main_container(render(run_cli, write_tree, parent, child))["env"]
    # strategic merge patch order: patch items in patch order, the parent-only A where it stood
    assert [(e["name"], e.get("value")) for e in env][:3] == [("A", "1"), ("B", "2"), ("C", "2")]


def test_volumes_merge_by_name(run_cli, write_tree):
    parent = profile_spec(volumes=[{"name": "dshm", "emptyDir": {"medium": "Memory"}}])
    child = child_spec(
        {
            "runner": RUNNER,
            "volumes": [{"name": "dshm", "emptyDir": {"sizeLimit": "1Gi"}}, {"name": "cache", "emptyDir": {}}],
        }
    )
    volumes = render(run_cli, write_tree, parent, child)["spec"]["template"]["spec"]["volumes"]
    assert volumes[0] == {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "1Gi"}}
    assert [v["name"] for v in volumes] == ["dshm", "cache", "m3b"]


def test_image_pull_secrets_merge_by_name(run_cli, write_tree):
    parent = profile_spec(imagePullSecrets=[{"name": "a"}])
    child = child_spec({"runner": RUNNER, "imagePullSecrets": [{"name": "b"}]})
    pod = render(run_cli, write_tree, parent, child)["spec"]["template"]["spec"]
    # a new patch item goes before base-only items, as strategic merge patch orders them
    assert pod["imagePullSecrets"] == [{"name": "b"}, {"name": "a"}]


def test_containers_and_init_containers_merge_by_name(run_cli, write_tree):
    parent = profile_spec(
        containers=[{"name": "sidecar", "image": "s:1", "args": ["--x"]}],
        initContainers=[{"name": "init", "image": "i:1"}],
    )
    child = child_spec(
        {
            "runner": RUNNER,
            "containers": [{"name": "sidecar", "image": "s:2"}],
            "initContainers": [{"name": "init", "command": ["go"]}],
        }
    )
    pod = render(run_cli, write_tree, parent, child)["spec"]["template"]["spec"]
    sidecar = next(c for c in pod["containers"] if c["name"] == "sidecar")
    assert sidecar["image"] == "s:2" and sidecar["args"] == ["--x"]
    # Go never omits the ResourceRequirements struct: resources: {} on every container (research-12 §9.3)
    assert pod["initContainers"] == [{"name": "init", "image": "i:1", "command": ["go"], "resources": {}}]


def test_ports_merge_by_container_port(run_cli, write_tree):
    child = child_spec(
        {
            "runner": {
                "name": "ome-container",
                "ports": [{"containerPort": 8080, "name": "http"}, {"containerPort": 9090, "name": "metrics"}],
            }
        }
    )
    ports = main_container(render(run_cli, write_tree, profile_spec(), child))["ports"]
    assert ports == [
        {"containerPort": 8080, "name": "http", "protocol": "TCP"},
        {"containerPort": 9090, "name": "metrics", "protocol": "TCP"},
    ]


def test_volume_mounts_merge_by_mount_path(run_cli, write_tree):
    parent = profile_spec()
    parent["engineConfig"]["runner"]["volumeMounts"] = [{"name": "dshm", "mountPath": "/dev/shm"}]
    child = child_spec(
        {
            "volumes": [{"name": "dshm2", "emptyDir": {"medium": "Memory"}}, {"name": "c", "emptyDir": {}}],
            "runner": {
                "name": "ome-container",
                "volumeMounts": [{"name": "dshm2", "mountPath": "/dev/shm"}, {"name": "c", "mountPath": "/cache"}],
            },
        }
    )
    mounts = main_container(render(run_cli, write_tree, parent, child))["volumeMounts"]
    assert [(m["name"], m["mountPath"]) for m in mounts] == [
        ("dshm2", "/dev/shm"),
        ("c", "/cache"),
        ("m3b", "/models/m3b"),
    ]


def test_topology_spread_constraints_merge_by_topology_key(run_cli, write_tree):
    # every item sets whenUnsatisfiable: the CRD requires it in each runtime on its own
    parent = profile_spec(
        topologySpreadConstraints=[
            {"topologyKey": "zone", "maxSkew": 1, "whenUnsatisfiable": "DoNotSchedule", "nodeAffinityPolicy": "Honor"}
        ]
    )
    child = child_spec(
        {
            "runner": RUNNER,
            "topologySpreadConstraints": [
                {"topologyKey": "zone", "maxSkew": 2, "whenUnsatisfiable": "DoNotSchedule"},
                {"topologyKey": "host", "maxSkew": 1, "whenUnsatisfiable": "ScheduleAnyway"},
            ],
        }
    )
    tsc = render(run_cli, write_tree, parent, child)["spec"]["template"]["spec"]["topologySpreadConstraints"]
    assert tsc == [
        {"topologyKey": "zone", "maxSkew": 2, "whenUnsatisfiable": "DoNotSchedule", "nodeAffinityPolicy": "Honor"},
        {"topologyKey": "host", "maxSkew": 1, "whenUnsatisfiable": "ScheduleAnyway"},
    ]


def test_command_args_and_tolerations_replace(run_cli, write_tree):
    parent = profile_spec(tolerations=[{"key": "a", "operator": "Exists"}, {"key": "b", "operator": "Exists"}])
    parent["engineConfig"]["runner"]["args"] = ["--p1", "--p2"]
    child = child_spec(
        {
            "runner": {"name": "ome-container", "command": ["other"], "args": ["--c1"]},
            "tolerations": [{"key": "c", "operator": "Exists"}],
        }
    )
    deployment = render(run_cli, write_tree, parent, child)
    container = main_container(deployment)
    assert container["command"] == ["other"] and container["args"] == ["--c1"]
    assert deployment["spec"]["template"]["spec"]["tolerations"] == [{"key": "c", "operator": "Exists"}]


def test_empty_values_count_as_unset(run_cli, write_tree):
    parent = profile_spec(tolerations=[{"key": "a", "operator": "Exists"}], nodeSelector={"gpu": "a100"})
    parent["engineConfig"]["runner"]["args"] = ["--keep"]
    child = child_spec(
        {"runner": {"name": "ome-container", "image": "", "args": []}, "tolerations": [], "nodeSelector": {}}
    )
    deployment = render(run_cli, write_tree, parent, child)
    container = main_container(deployment)
    assert container["image"] == "engine:1" and container["args"] == ["--keep"]
    pod = deployment["spec"]["template"]["spec"]
    assert pod["tolerations"] == [{"key": "a", "operator": "Exists"}] and pod["nodeSelector"]["gpu"] == "a100"


def test_isvc_args_replace_the_runtime_args(run_cli, write_tree):
    child = child_spec({"runner": {"name": "ome-container", "args": ["--tp-size=1", "--mem-frac=0.9"]}})
    deployment = render(
        run_cli,
        write_tree,
        profile_spec(),
        child,
        {"engine": {"runner": {"name": "ome-container", "args": ["--tp-size=2"]}}},
    )
    assert main_container(deployment)["args"] == ["--tp-size=2"]


def test_only_spec_is_inherited(run_cli, write_tree):
    # The parent's profile annotation and labels stay on the parent: the child is not a profile,
    # so its disabled: false is fine and nothing from the parent's metadata reaches the pods.
    parent = runtime("base", profile_spec(), profile=True)
    parent["metadata"]["labels"] = {"from-parent-metadata": "yes"}
    tree = write_tree(
        {
            "p.yaml": dump(parent),
            "c.yaml": dump(runtime("child", child_spec(), parent="base")),
            "a.yaml": dump(MODEL, isvc()),
        }
    )
    result = run_cli("build", str(tree))
    assert result.exit_code == 0, str(result)
    assert "from-parent-metadata" not in result.stdout


def test_rules_hold_in_decoder_config(run_cli, write_tree):
    parent = profile_spec()
    parent["decoderConfig"] = {
        "runner": {"name": "decoder", "image": "dec:1", "env": [{"name": "A", "value": "1"}]},
        "nodeSelector": {"x": "1"},
    }
    child = child_spec(
        decoderConfig={"runner": {"name": "decoder", "env": [{"name": "B", "value": "2"}]}, "nodeSelector": {"y": "2"}}
    )
    tree = write_tree(
        {
            "p.yaml": dump(runtime("base", parent, profile=True)),
            "c.yaml": dump(runtime("child", child, parent="base")),
            "a.yaml": dump(MODEL, isvc(extra={"decoder": {}})),
        }
    )
    result = run_cli("build", str(tree))
    assert result.exit_code == 0, str(result)
    decoder = only(result.stdout, name="svc-decoder")
    container = main_container(decoder, "decoder")
    assert container["image"] == "dec:1"
    assert [e["name"] for e in container["env"]][:2] == ["B", "A"]
    assert {"x": "1", "y": "2"}.items() <= decoder["spec"]["template"]["spec"]["nodeSelector"].items()


def test_rules_hold_in_router_config(run_cli, write_tree):
    parent = profile_spec()
    parent["routerConfig"] = {
        "runner": {"name": "router", "image": "r:1", "args": ["--a"]},
        "tolerations": [{"key": "t", "operator": "Exists"}],
    }
    child = child_spec(routerConfig={"runner": {"name": "router", "args": ["--b"]}})
    tree = write_tree(
        {
            "p.yaml": dump(runtime("base", parent, profile=True)),
            "c.yaml": dump(runtime("child", child, parent="base")),
            "a.yaml": dump(MODEL, isvc(extra={"router": {}})),
        }
    )
    result = run_cli("build", str(tree))
    assert result.exit_code == 0, str(result)
    router = only(result.stdout, name="svc-router")
    container = main_container(router, "router")
    assert container["image"] == "r:1" and container["args"] == ["--b"]
    assert router["spec"]["template"]["spec"]["tolerations"] == [{"key": "t", "operator": "Exists"}]


def test_rules_hold_in_leader_and_worker(run_cli, write_tree):
    runner = {
        "name": "ome-container",
        "image": "engine:1",
        "command": ["serve"],
        "env": [{"name": "A", "value": "1"}],
        "resources": {"limits": {"nvidia.com/gpu": 4}, "requests": {"nvidia.com/gpu": 4}},
    }
    parent = {
        "disabled": True,
        "engineConfig": {
            "leader": {
                "nodeSelector": {"pool": "gpu"},
                "runner": dict(runner, ports=[{"containerPort": 8080, "name": "http1"}]),
            },
            "worker": {"size": 1, "tolerations": [{"key": "a", "operator": "Exists"}], "runner": dict(runner)},
        },
    }
    child = child_spec(
        {
            "leader": {
                "nodeSelector": {"zone": "b"},
                "runner": {"name": "ome-container", "env": [{"name": "B", "value": "2"}]},
            },
            "worker": {
                "size": 3,
                "tolerations": [{"key": "c", "operator": "Exists"}],
                "runner": {"name": "ome-container", "image": "engine:2"},
            },
        }
    )
    tree = write_tree(
        {
            "p.yaml": dump(runtime("base", parent, profile=True)),
            "c.yaml": dump(runtime("child", child, parent="base")),
            "a.yaml": dump(MODEL, isvc()),
        }
    )
    result = run_cli("build", str(tree))
    assert result.exit_code == 0, str(result)
    lws = only(result.stdout, kind="LeaderWorkerSet")["spec"]["leaderWorkerTemplate"]
    assert lws["size"] == 4  # worker.size replaced (3), plus the leader
    leader = lws["leaderTemplate"]["spec"]
    assert {"pool": "gpu", "zone": "b"}.items() <= leader["nodeSelector"].items()  # maps merge by key
    assert [e["name"] for e in main_container({"spec": {"template": {"spec": leader}}})["env"]][:2] == [
        "B",
        "A",
    ]  # by name, SMP order
    worker = lws["workerTemplate"]["spec"]
    assert worker["tolerations"] == [{"key": "c", "operator": "Exists"}]  # other lists replace
    assert main_container({"spec": {"template": {"spec": worker}}})["image"] == "engine:2"
