"""The Argo CD Config Management Plugin: plugin.yaml's schema, the generate contract, the sidecar."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from gitops_helpers import FIXTURE, REPO, Proc, by_identity, env_with_omerender, need, objects, run

from omerender.gitops.argocd import DEFAULT_EMIT, DEFAULT_MAX_ERRORS, defaults, layers
from omerender.settings import SettingsError, resolve

ARGOCD = REPO / "integrations" / "argocd"
PLUGIN = ARGOCD / "plugin.yaml"

_STR = {"type": "string"}
_COMMAND = {
    "type": "object",
    "required": ["command"],
    "additionalProperties": False,
    "properties": {
        "command": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
        "args": {"type": "array", "items": _STR},
    },
}
# The v2 sidecar plugin.yaml as the research note (§1.1) describes it from Argo CD's config.go:
# kind checked, metadata.name required, generate.command non-empty, discovery one of three forms,
# parameter announcements, and none of the argocd-cm-era fields (lockRepo, allowConcurrency).
PLUGIN_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["apiVersion", "kind", "metadata", "spec"],
    "additionalProperties": False,
    "properties": {
        "apiVersion": {"const": "argoproj.io/v1alpha1"},
        "kind": {"const": "ConfigManagementPlugin"},
        "metadata": {
            "type": "object",
            "required": ["name"],
            "properties": {"name": {"type": "string", "minLength": 1}},
        },
        "spec": {
            "type": "object",
            "required": ["generate"],
            "additionalProperties": False,
            "properties": {
                "version": _STR,
                "init": _COMMAND,
                "generate": _COMMAND,
                "discover": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "fileName": _STR,
                        "find": {
                            "type": "object",
                            "additionalProperties": False,
                            "properties": {"glob": _STR, **_COMMAND["properties"]},
                        },
                    },
                },
                "parameters": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "static": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "required": ["name"],
                                "additionalProperties": False,
                                "properties": {
                                    "name": {"type": "string", "minLength": 1},
                                    "title": _STR,
                                    "tooltip": _STR,
                                    "required": {"type": "boolean"},
                                    "itemType": {"enum": ["string", "number", "boolean"]},
                                    "collectionType": {"enum": ["string", "array", "map"]},
                                    "string": _STR,
                                    "array": {"type": "array", "items": _STR},
                                    "map": {"type": "object", "additionalProperties": _STR},
                                },
                            },
                        },
                        "dynamic": _COMMAND,
                    },
                },
                "preserveFileMode": {"type": "boolean"},
                "provideGitCreds": {"type": "boolean"},
            },
        },
    },
}


def _plugin() -> dict[str, Any]:
    loaded = yaml.safe_load(PLUGIN.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def _schema_errors(document: dict[str, Any]) -> list[str]:
    jsonschema.Draft202012Validator.check_schema(PLUGIN_SCHEMA)
    return [e.message for e in jsonschema.Draft202012Validator(PLUGIN_SCHEMA).iter_errors(document)]


def test_plugin_yaml_matches_the_v2_sidecar_schema() -> None:
    assert _schema_errors(_plugin()) == []


@pytest.mark.parametrize(
    "spoil",
    [
        lambda p: p["spec"].update(lockRepo=True),  # argocd-cm era, gone from the sidecar config
        lambda p: p["spec"]["generate"].update(command=[]),
        lambda p: p.update(kind="ConfigManagementPlugins"),
        lambda p: p["spec"]["parameters"]["static"][0].update(collectionType="list"),
    ],
)
def test_the_schema_rejects_what_argo_cd_rejects(spoil: Any) -> None:
    plugin = _plugin()
    spoil(plugin)
    assert _schema_errors(plugin)


def test_announced_defaults_are_the_ones_omerender_applies() -> None:
    static = {p["name"]: p for p in _plugin()["spec"]["parameters"]["static"]}
    assert tuple(static["emit"]["array"]) == DEFAULT_EMIT
    assert static["max-errors"]["string"] == str(DEFAULT_MAX_ERRORS)
    assert static["allow-empty"]["string"] == "false"
    assert static["search-path"]["array"] == []
    assert resolve(layers({}), defaults({})) == defaults({})


def _app(tmp_path: Path) -> Path:
    """A copy of the app directory, as the CMP server unpacks it, with a ConfigMap beside the OME objects."""
    app = tmp_path / "repo" / "apps" / "llama"
    shutil.copytree(FIXTURE, app)
    (app / "configmap.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  level: info\n", encoding="utf-8"
    )
    return app


def _generate(app: Path, env: dict[str, str] | None = None) -> Proc:
    """Run spec.generate as the CMP server does: in the app directory, with Argo CD's environment."""
    generate = _plugin()["spec"]["generate"]
    argv = [*generate["command"], *generate.get("args", [])]
    build_env = {
        "ARGOCD_APP_NAME": "llama",
        "ARGOCD_APP_NAMESPACE": "llama-demo",
        "ARGOCD_APP_REVISION": "0123abc",
        "ARGOCD_APP_SOURCE_PATH": "apps/llama",
        "KUBE_VERSION": "1.30.1",
    }
    return run(["sh", "-c", shlex.join(argv)], cwd=app, env=env_with_omerender({**build_env, **(env or {})}))


def _parameters(**values: Any) -> dict[str, str]:
    entries = [
        {"name": k.replace("_", "-"), ("array" if isinstance(v, list) else "string"): v} for k, v in values.items()
    ]
    return {"ARGOCD_APP_PARAMETERS": json.dumps(entries)}


def test_generate_prints_only_objects_inputs_and_passthrough_by_default(tmp_path: Path) -> None:
    proc = _generate(_app(tmp_path))
    assert proc.code == 0, proc
    docs = objects(proc.out)
    assert [d["kind"] for d in docs] == [
        "ConfigMap",
        "ClusterBaseModel",
        "ClusterServingRuntime",
        "ServingRuntime",
        "InferenceService",
    ]
    assert proc.err == ""


def test_generate_rendered_matches_build(tmp_path: Path, reference_build: list[dict[str, Any]]) -> None:
    proc = _generate(_app(tmp_path), _parameters(emit=["rendered"]))
    assert proc.code == 0, proc
    assert by_identity(objects(proc.out)) == by_identity(reference_build)


def test_plugin_env_is_read_and_parameters_win(tmp_path: Path) -> None:
    app = _app(tmp_path)
    from_env = _generate(app, {"ARGOCD_ENV_OMERENDER_EMIT": "flattened"})
    assert from_env.code == 0, from_env
    assert "ClusterServingRuntime" not in {d["kind"] for d in objects(from_env.out)}
    both = _generate(app, {"ARGOCD_ENV_OMERENDER_EMIT": "flattened", **_parameters(emit=["passthrough"])})
    assert both.code == 0, both
    assert [d["kind"] for d in objects(both.out)] == ["ConfigMap"]


def test_destination_namespace_is_the_default_namespace(tmp_path: Path) -> None:
    app = _app(tmp_path)
    for name in ("isvc.yaml", "runtime.yaml"):
        path = app / name
        path.write_text(path.read_text(encoding="utf-8").replace("  namespace: llama-demo\n", ""), encoding="utf-8")
    proc = _generate(app, {"ARGOCD_APP_NAMESPACE": "team-a", **_parameters(emit=["rendered"])})
    assert proc.code == 0, proc
    assert {d["metadata"]["namespace"] for d in objects(proc.out)} == {"team-a"}


def test_search_paths_resolve_parents_elsewhere_in_the_repo(tmp_path: Path) -> None:
    app = _app(tmp_path)
    platform = tmp_path / "repo" / "platform"
    platform.mkdir()
    for name in ("profile.yaml", "model.yaml"):
        shutil.move(str(app / name), platform / name)
    assert _generate(app).code == 1
    proc = _generate(app, _parameters(search_paths=["../../platform"]))
    assert proc.code == 0, proc
    assert [d["kind"] for d in objects(proc.out)] == ["ConfigMap", "ServingRuntime", "InferenceService"]


def test_a_broken_search_path_runtime_no_app_uses_does_not_stop_the_sync(tmp_path: Path) -> None:
    # issue 33: OME would refuse that runtime only; the app syncs, and fails once it uses the runtime
    app = _app(tmp_path)
    platform = tmp_path / "repo" / "platform"
    platform.mkdir()
    shutil.move(str(app / "profile.yaml"), platform / "profile.yaml")
    (platform / "broken.yaml").write_text(
        "apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata:\n  name: orphan\n  annotations:\n"
        "    ome.io/inherit-from: nowhere\nspec: {}\n",
        encoding="utf-8",
    )
    proc = _generate(app, _parameters(search_paths=["../../platform"]))
    assert proc.code == 0, proc
    assert [d["kind"] for d in objects(proc.out)] == [
        "ConfigMap",
        "ClusterBaseModel",
        "ServingRuntime",
        "InferenceService",
    ]
    assert "broken.yaml:6:26: warning: [ParentNotFound]" in proc.err
    isvc = app / "isvc.yaml"
    isvc.write_text(isvc.read_text(encoding="utf-8").replace("name: sglang-llama-3-2-3b", "name: orphan"))
    used = _generate(app, _parameters(search_paths=["../../platform"]))
    assert used.code == 1 and used.out == "", used
    assert "broken.yaml:6:26: error: [ParentNotFound]" in used.err


@pytest.mark.parametrize("emit", [["rendered"], ["flattened"]])
def test_nothing_to_emit_fails_instead_of_pruning(tmp_path: Path, emit: list[str]) -> None:
    app = tmp_path / "app"
    app.mkdir()
    shutil.copy(FIXTURE / "profile.yaml", app)  # a profile alone: no InferenceService, and flattened drops profiles
    proc = _generate(app, _parameters(emit=emit))
    assert proc.code == 1, proc
    assert proc.out == ""
    assert "nothing was emitted" in proc.err and "prune" in proc.err
    allowed = _generate(app, _parameters(emit=emit, allow_empty="true"))
    assert allowed.code == 0 and allowed.out == "", allowed


def test_an_empty_folder_fails_too(tmp_path: Path) -> None:
    proc = _generate(tmp_path)
    assert proc.code == 1 and proc.out == "" and "holds no OME object" in proc.err, proc


def test_broken_chains_fail_with_short_stderr(tmp_path: Path) -> None:
    app = _app(tmp_path)
    runtime = (app / "runtime.yaml").read_text(encoding="utf-8")
    for n in range(60):
        broken = runtime.replace("name: sglang-llama-3-2-3b", f"name: broken-{n:02d}").replace(
            "inherit-from: sglang-profile", f"inherit-from: missing-{n:02d}"
        )
        (app / f"broken-{n:02d}.yaml").write_text(broken, encoding="utf-8")
    proc = _generate(app)
    assert proc.code == 1 and proc.out == "", proc
    assert re.search(
        r'broken-00\.yaml:\d+:\d+: error: \[ParentNotFound\] inherit-from parent "missing-00" not found \(chain so '
        r"far: \[broken-00\]\)",
        proc.err,
    ), proc.err
    lines = proc.err.splitlines()
    assert DEFAULT_MAX_ERRORS <= len(lines) <= DEFAULT_MAX_ERRORS + 2 and len(proc.err) < 6000, proc.err
    fewer = _generate(app, _parameters(max_errors="3"))
    assert fewer.code == 1 and len(fewer.err.splitlines()) <= 5, fewer


def test_kube_version_is_honoured(tmp_path: Path) -> None:
    app = _app(tmp_path)
    assert _generate(app, {"KUBE_VERSION": "1.33.4"}).code == 0
    # Argo CD always passes its cluster's version: an older cluster is checked with the oldest schemas
    ancient = _generate(app, {"KUBE_VERSION": "1.2.0"})
    assert ancient.code == 0 and "kind: Deployment" not in ancient.out and "InferenceService" in ancient.out, ancient
    garbled = _generate(app, {"KUBE_VERSION": "banana"})  # refused, so it was read
    assert garbled.code == 2 and garbled.out == "" and "KUBE_VERSION" in garbled.err, garbled


def test_a_bad_parameter_is_a_usage_error(tmp_path: Path) -> None:
    proc = _generate(_app(tmp_path), _parameters(emit=["inputs", "flattened"]))
    assert proc.code == 2 and proc.out == "" and "choose one" in proc.err, proc
    unknown = _generate(_app(tmp_path / "2"), {"ARGOCD_APP_PARAMETERS": '[{"name": "emitt", "array": ["rendered"]}]'})
    assert unknown.code == 2 and "unknown parameter" in unknown.err, unknown


def test_settings_from_env() -> None:
    env = {
        "ARGOCD_APP_NAMESPACE": "ns",
        "KUBE_VERSION": "1.31.0",
        "ARGOCD_ENV_OMERENDER_EMIT": "rendered, passthrough",
        "ARGOCD_ENV_OMERENDER_MAX_ERRORS": "5",
        "ARGOCD_APP_PARAMETERS": json.dumps(
            [{"name": "search-paths", "array": ["../a", "../b"]}, {"name": "allow-empty", "string": "yes"}]
        ),
    }
    got = resolve(layers(env), defaults(env))
    assert (got.emit, got.search_path, got.namespace, got.max_errors, got.kube_version) == (
        ("rendered", "passthrough"),
        ("../a", "../b"),
        "ns",
        5,
        "1.31.0",
    )
    assert not got.fail_empty and not got.fail_empty_input  # allow-empty
    assert got.origin("emit") == "env" and got.origin("search-path") == "parameter"
    for bad in (
        '{"name": "emit"}',
        "[{]",
        '[{"name": "max-errors", "string": "-1"}]',
        '[{"name": "allow-empty", "string": "maybe"}]',
    ):
        with pytest.raises(SettingsError):
            layers({"ARGOCD_APP_PARAMETERS": bad})


def test_repo_server_patch_adds_the_sidecar(tmp_path: Path) -> None:
    kubectl = need("kubectl")
    stub = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "argocd-repo-server"},
        "spec": {
            "selector": {"matchLabels": {"app": "repo"}},
            "template": {
                "metadata": {"labels": {"app": "repo"}},
                "spec": {
                    "containers": [{"name": "argocd-repo-server", "image": "quay.io/argoproj/argocd:v3"}],
                    "volumes": [{"name": "var-files", "emptyDir": {}}, {"name": "plugins", "emptyDir": {}}],
                },
            },
        },
    }
    (tmp_path / "repo-server.yaml").write_text(yaml.safe_dump(stub), encoding="utf-8")
    shutil.copy(ARGOCD / "argocd-repo-server-patch.yaml", tmp_path)
    (tmp_path / "kustomization.yaml").write_text(
        "resources: [repo-server.yaml]\npatches:\n  - path: argocd-repo-server-patch.yaml\n", encoding="utf-8"
    )
    built = run([kubectl, "kustomize", str(tmp_path)])
    assert built.code == 0, built
    pod = objects(built.out)[0]["spec"]["template"]["spec"]
    containers = {c["name"]: c for c in pod["containers"]}
    sidecar = containers["omerender"]
    assert set(containers) == {"argocd-repo-server", "omerender"}
    assert sidecar["command"] == ["/var/run/argocd/argocd-cmp-server"]
    assert sidecar["securityContext"]["runAsNonRoot"] is True and sidecar["securityContext"]["runAsUser"] == 999
    mounts = {m["mountPath"]: m["name"] for m in sidecar["volumeMounts"]}
    assert mounts == {
        "/var/run/argocd": "var-files",
        "/home/argocd/cmp-server/plugins": "plugins",
        "/tmp": "omerender-tmp",
    }
    assert {v["name"] for v in pod["volumes"]} == {"var-files", "plugins", "omerender-tmp"}


def _repo_server() -> dict[str, Any]:
    """A minimal argocd-repo-server Deployment, shaped as Argo CD's install manifests ship it."""
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "argocd-repo-server", "labels": {"app.kubernetes.io/name": "argocd-repo-server"}},
        "spec": {
            "selector": {"matchLabels": {"app.kubernetes.io/name": "argocd-repo-server"}},
            "template": {
                "metadata": {"labels": {"app.kubernetes.io/name": "argocd-repo-server"}},
                "spec": {
                    "serviceAccountName": "argocd-repo-server",
                    "containers": [
                        {
                            "name": "argocd-repo-server",
                            "image": "quay.io/argoproj/argocd:v3.1.0",
                            "securityContext": {
                                "runAsNonRoot": True,
                                "readOnlyRootFilesystem": True,
                                "allowPrivilegeEscalation": False,
                                "capabilities": {"drop": ["ALL"]},
                                "seccompProfile": {"type": "RuntimeDefault"},
                            },
                            "volumeMounts": [{"name": "var-files", "mountPath": "/var/run/argocd"}],
                        }
                    ],
                    "volumes": [
                        {"name": "var-files", "emptyDir": {}},
                        {"name": "plugins", "emptyDir": {}},
                        {"name": "tmp", "emptyDir": {}},
                    ],
                },
            },
        },
    }


def test_sidecar_patch_meets_the_restricted_pod_security_standard(tmp_path: Path) -> None:
    """kubectl's own strategic merge of the patch into repo-server, then each "restricted" control."""
    kubectl = need("kubectl")
    (tmp_path / "repo-server.yaml").write_text(yaml.safe_dump(_repo_server()), encoding="utf-8")
    patched = run(
        [
            kubectl,
            "patch",
            "--local",
            "--type",
            "strategic",
            "-f",
            str(tmp_path / "repo-server.yaml"),
            "--patch-file",
            str(ARGOCD / "argocd-repo-server-patch.yaml"),
            "-o",
            "yaml",
        ]
    )
    assert patched.code == 0, patched
    pod = yaml.safe_load(patched.out)["spec"]["template"]["spec"]
    containers = {c["name"]: c for c in pod["containers"]}
    assert set(containers) == {"argocd-repo-server", "omerender"}  # merged by name, the repo-server kept
    security = containers["omerender"]["securityContext"]
    pod_security = pod.get("securityContext") or {}
    # restricted: running as non-root, never as UID 0
    assert security["runAsNonRoot"] is True and security["runAsUser"] != 0
    # restricted: privilege escalation disallowed
    assert security["allowPrivilegeEscalation"] is False
    # restricted: every capability dropped, none added (NET_BIND_SERVICE is the only one allowed)
    assert security["capabilities"]["drop"] == ["ALL"] and not set(security["capabilities"].get("add", [])) - {
        "NET_BIND_SERVICE"
    }
    # restricted: a seccomp profile, RuntimeDefault or Localhost, on the container or the pod
    seccomp = (security.get("seccompProfile") or pod_security.get("seccompProfile") or {}).get("type")
    assert seccomp in ("RuntimeDefault", "Localhost")
    # baseline controls restricted includes: no privileged container, no host namespaces or ports
    assert not security.get("privileged") and not any(pod.get(k) for k in ("hostNetwork", "hostPID", "hostIPC"))
    assert all("hostPort" not in p for p in containers["omerender"].get("ports", []))
    # restricted: only the allowed volume types (the patch adds an emptyDir /tmp)
    allowed = {
        "configMap",
        "csi",
        "downwardAPI",
        "emptyDir",
        "ephemeral",
        "persistentVolumeClaim",
        "projected",
        "secret",
    }
    for volume in pod["volumes"]:
        assert set(volume) - {"name"} <= allowed, volume
    # beyond the standard: a read-only root filesystem, with a writable /tmp of its own
    assert security["readOnlyRootFilesystem"] is True
    mounts = {m["mountPath"]: m["name"] for m in containers["omerender"]["volumeMounts"]}
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert mounts["/tmp"] == "omerender-tmp" and "emptyDir" in volumes["omerender-tmp"]
    assert (
        containers["argocd-repo-server"]["volumeMounts"]
        == _repo_server()["spec"]["template"]["spec"]["containers"][0]["volumeMounts"]
    )


def test_dockerfile_pins_its_base_image_and_installs_each_dependency_once() -> None:
    text = (ARGOCD / "Dockerfile").read_text(encoding="utf-8")
    [base] = [line for line in text.splitlines() if line.startswith("FROM ")]
    assert re.fullmatch(r"FROM python:3\.11-slim@sha256:[0-9a-f]{64}", base), base
    installs = [line for line in text.splitlines() if "pip install" in line and not line.lstrip().startswith("#")]
    assert installs == ["RUN pip install --constraint /src/constraints.txt /src \\"], installs
    assert "kubernetes-validate" not in installs[0]  # a dependency of omerender: installed once, from pyproject
    pins = {
        line.split("==")[0].lower().replace("_", "-")
        for line in (ARGOCD / "constraints.txt").read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    }
    assert all(
        "==" in line
        for line in (ARGOCD / "constraints.txt").read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    )
    import tomllib

    project = tomllib.loads((ARGOCD.parents[1] / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for requirement in project["dependencies"]:
        name = re.split(r"[<>=!~ \[]", requirement, maxsplit=1)[0].lower().replace("_", "-")
        assert name in pins, name
    ignored = (ARGOCD / "Dockerfile.dockerignore").read_text(encoding="utf-8")
    assert "!integrations/argocd/constraints.txt" in ignored


def test_dockerfile_runs_the_cmp_server_as_user_999() -> None:
    lines = [
        line.strip()
        for line in (ARGOCD / "Dockerfile").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert "USER 999" in lines
    assert lines[-1] == 'ENTRYPOINT ["/var/run/argocd/argocd-cmp-server"]'
    assert "COPY integrations/argocd/plugin.yaml /home/argocd/cmp-server/config/plugin.yaml" in lines
    assert any(line.startswith("RUN pip install --constraint /src/constraints.txt /src") for line in lines)
