"""How a serving container's command line is read: the engine, the options it reads, and nothing guessed."""

from __future__ import annotations

from typing import Any

import pytest

from omerender.verify.serving.engines import Engine
from omerender.verify.serving.launch import Launch, container_env, expand, read

SGLANG = ["python3", "-m", "sglang.launch_server"]


def launch(
    command: list[Any] | None = None, args: list[Any] | None = None, image: str = "img", **env: str | None
) -> Launch:
    container: dict[str, Any] = {"image": image}
    if command is not None:
        container["command"] = command
    if args is not None:
        container["args"] = args
    found = read(container, env)
    assert found is not None
    return found


def test_both_spellings_and_the_last_occurrence() -> None:
    found = launch([*SGLANG, "--tp-size", "4", "--port=8080", "--tensor-parallel-size=8", "--enable-dp-attention"])
    assert found.engine is Engine.SGLANG
    assert (found.number("tp"), found.number("port"), found.flag("dp_attention")) == (8, 8080, True)
    assert (found.number("pp"), found.number("nnodes"), found.text("host")) == (1, 1, "127.0.0.1")  # defaults
    assert found.given("tp") and not found.given("pp")


def test_command_and_args_together() -> None:
    found = launch(["python3", "-u", "-m", "sglang.launch_server"], ["--dp", "2", "--tp", "4"])
    assert (found.number("dp"), found.number("tp")) == (2, 4)
    assert found.tokens["tp"].field == "args" and found.tokens["tp"].item == 2


def test_kubelet_expansion_from_the_env_and_what_is_injected() -> None:
    container = {
        "command": [*SGLANG, "--tp-size", "$(PARALLELISM_SIZE)", "--nnodes", "$(LWS_GROUP_SIZE)", "--port", "$$(X)"],
        "env": [
            {"name": "PARALLELISM_SIZE", "value": "16"},
            {"name": "NS", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}},
            {"name": "ISVC", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['ome.io/inferenceservice']"}}},
            {"name": "IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
            {"name": "BOTH", "value": "$(NS)/$(ISVC)"},
        ],
    }
    env = container_env(container, "demo", {"ome.io/inferenceservice": "llama"}, {"LWS_GROUP_SIZE": "2"})
    assert env == {"LWS_GROUP_SIZE": "2", "PARALLELISM_SIZE": "16", "NS": "demo", "ISVC": "llama", "IP": None,
                   "BOTH": "demo/llama"}  # fmt: skip
    found = read(container, env)
    assert found is not None
    assert (found.number("tp"), found.number("nnodes"), found.text("port")) == (16, 2, "$(X)")


def test_an_unknown_value_is_unknown_and_a_loose_unknown_token_opens_every_option() -> None:
    assert expand("--x=$(IP)", {"IP": None}) is None and expand("$(NOPE)", {}) is None
    valued = launch([*SGLANG, "--tp-size", "$(IP)", "--dist-init-addr", "$(IP):5000", "--pp-size", "2"], IP=None)
    assert (valued.number("tp"), valued.number("pp"), valued.open) == (None, 2, False)  # the unknown is a value
    opened = launch([*SGLANG, "--pp-size", "2", "$(EXTRA)", "--tp-size", "4"], EXTRA=None)
    assert opened.open and (opened.number("pp"), opened.number("tp"), opened.number("dp")) == (None, 4, None)


def test_an_abbreviation_not_listed_is_unknown() -> None:
    found = launch([*SGLANG, "--nnode", "2", "--mem-frac", "0.8", "--tp", "2"])
    assert (found.number("nnodes"), found.text("mem_fraction"), found.number("tp")) == (None, "0.8", 2)


@pytest.mark.parametrize(
    "command",
    [
        ["sh", "-c", "python3 -m sglang.launch_server --host 0.0.0.0 \\\n  --tp-size 4 --port ${PORT}"],
        [
            "/bin/bash",
            "-lc",
            "--",
            'set -e; export A=1\nexec python3 -m sglang.launch_server --tp-size=4 --port "$PORT"',
        ],
        [
            "bash",
            "-o",
            "pipefail",
            "-ec",
            "env FOO=1 python3 -m sglang.launch_server --tp-size 4 --port $(PORT) | tee x",
        ],
    ],
)
def test_shell_scripts(command: list[str]) -> None:
    found = launch(command, PORT="8080")
    assert (found.engine, found.number("tp"), found.number("port")) == (Engine.SGLANG, 4, 8080)
    assert found.tokens["tp"].raw == command[-1]  # located at the script


def test_a_line_break_without_a_backslash_ends_the_command() -> None:
    found = launch(["sh", "-c", "python3 -m sglang.launch_server\n  --tp-size 4"])
    assert found.given("tp") is False


def test_a_variable_the_script_sets_is_unknown() -> None:
    found = launch(["sh", "-c", "TP=4; python3 -m sglang.launch_server --tp-size $TP --pp-size `nproc`"], TP="2")
    assert (found.number("tp"), found.number("pp")) == (None, None)


def test_vllm_reads_underscores_short_options_and_several_names() -> None:
    found = launch(["vllm", "serve"], ["/m", "--tensor_parallel_size=2", "-dp", "2", "--served-model-name", "a", "b"])
    assert found.engine is Engine.VLLM
    assert (found.number("tp"), found.number("dp"), found.value("served_model_name")) == (2, 2, ["a", "b"])
    assert found.positional == ["/m"]
    assert launch(["python3", "-m", "vllm.entrypoints.openai.api_server"], ["--port", "9000"]).number("port") == 9000


def test_the_router_by_module_by_binary_and_by_image() -> None:
    selector = "component=engine ome.io/inferenceservice=x"
    module = launch(["python3", "-m", "sglang_router.launch_router", "--selector", selector, "--service-discovery"])
    binary = launch(["smg", "--selector", "component=engine", "ome.io/inferenceservice=x", "--port", "1"])
    image = launch(
        None, ["--prefill", "http://a", "--prefill-selector", selector], image="docker.io/lightseekorg/smg:v1"
    )
    assert {module.engine, binary.engine, image.engine} == {Engine.ROUTER}
    assert module.value("selector") == [selector] and module.flag("service_discovery") is True
    assert binary.value("selector") == ["component=engine", "ome.io/inferenceservice=x"]
    assert image.value("prefill_selector") == [selector]  # --prefill is the router's own option, no abbreviation
    assert launch(None, ["--port", "1"], image="docker.io/vllm/vllm-openai:v0.11.0").engine is Engine.VLLM


@pytest.mark.parametrize(
    "command",
    [
        ["ray", "start", "--head"],
        ["python3", "-m", "ray.scripts.scripts", "start"],
        ["sh", "-c", "ray start --head && python3 -m sglang.launch_server --tp-size 4"],
        ["python3", "serve.py", "--tp-size", "4"],
        ["sh", "-c", "echo 'unbalanced"],
    ],
)
def test_ray_launchers_and_unknown_programs_are_skipped(command: list[str]) -> None:
    assert read({"command": command, "image": "img"}, {}) is None


def test_no_command_and_an_unknown_image_is_skipped() -> None:
    assert read({"args": ["--tp-size", "4"], "image": "docker.io/lmsysorg/sglang:v0.5.5"}, {}) is None


def _runners() -> list[dict[str, Any]]:
    """Every runner of OME's shipped runtimes (../shared/ome), and a few written to be hard."""
    from pathlib import Path

    import yaml

    ome = Path(__file__).resolve().parents[3] / "shared" / "ome" / "runtimes"
    found: list[dict[str, Any]] = [
        {"command": [*SGLANG, "--api-key=$(KEY)", "--tp-size", "$(TP)"]},
        {"command": [*SGLANG, "$(EXTRA)", "--tp-size", "2"]},
        {"command": [*SGLANG, "--dist-init-addr", "$(LWS_LEADER_ADDRESS):5000", "--nnodes", "$(LWS_GROUP_SIZE)"]},
        {"command": ["smg", "--selector", "a=$(TP)", "$(DASH)", "--port", "1"]},
        {"command": ["sh", "-c", "python3 -m sglang.launch_server --tp-size $(TP) --port ${PORT}"]},
        {"command": ["$(LAUNCHER)", "-m", "sglang.launch_server", "--tp-size", "2"]},
    ]
    for path in sorted(ome.rglob("*-rt.yaml")) if ome.is_dir() else []:
        for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            for config in ("engineConfig", "decoderConfig", "routerConfig"):
                part = (doc.get("spec") or {}).get(config) or {}
                for runner in (part.get("runner"), (part.get("leader") or {}).get("runner"),
                               (part.get("worker") or {}).get("runner")):  # fmt: skip
                    if isinstance(runner, dict):
                        found.append(runner)
    return found


@pytest.mark.parametrize(
    "env",
    [
        {
            "TP": "4",
            "PORT": "8080",
            "KEY": "k",
            "EXTRA": "--pp-size=2",
            "DASH": "-x",
            "LAUNCHER": "python3",
            "MODEL_PATH": "/models/m",
            "PARALLELISM_SIZE": "16",
            "LWS_GROUP_SIZE": "2",
            "LWS_LEADER_ADDRESS": "10.0.0.1",
            "NAMESPACE": "demo",
            "INFERENCESERVICE_NAME": "llama",
        },
        {
            "TP": None,
            "PORT": None,
            "KEY": None,
            "EXTRA": None,
            "MODEL_PATH": "/m",
            "PARALLELISM_SIZE": "8",
            "LWS_GROUP_SIZE": "2",
            "LWS_LEADER_ADDRESS": None,
            "NAMESPACE": None,
            "INFERENCESERVICE_NAME": "x",
        },
    ],
)
def test_a_shared_shape_bound_to_an_env_reads_as_the_full_read(env: dict[str, str | None]) -> None:
    from omerender.verify.serving.launch import read_shared

    runners = _runners()
    assert len(runners) >= 6
    for runner in runners:
        full, shared = read(runner, env), read_shared(runner, env)
        assert (full is None) == (shared is None), runner
        if full is not None and shared is not None:
            assert (shared.engine, shared.values, shared.open) == (full.engine, full.values, full.open), runner
            assert {k: (t.field, t.item) for k, t in shared.tokens.items()} == {
                k: (t.field, t.item) for k, t in full.tokens.items()
            }, runner


def test_values_that_grow_without_bound_are_unknown() -> None:
    # each env value doubles the one before: the kubelet's expansion of the last would be 2**40 characters
    env = [{"name": "V0", "value": "x" * 1024}]
    env += [{"name": f"V{i}", "value": f"$(V{i - 1})$(V{i - 1})"} for i in range(1, 41)]
    container = {"command": [*SGLANG, "--tp-size", "$(V40)", "--pp-size", "$(V3)"], "env": env}
    known = container_env(container, "demo", {}, {})
    assert known["V6"] is not None and len(known["V6"]) == 65_536 and known["V7"] is None and known["V40"] is None
    found = read(container, known)
    assert found is not None and found.number("tp") is None and found.given("pp")


def test_a_script_too_long_to_read_is_not_read() -> None:
    script = "python3 -m sglang.launch_server --tp-size 4 " + "--x y " * 20_000
    assert read({"command": ["sh", "-c", script]}, {}) is None


@pytest.mark.parametrize("name", ["serve", "sglang", "launch_server", "python3", "llama"])
def test_the_inference_service_name_in_a_command_reads_as_the_command(name: str) -> None:
    from omerender.verify.serving.launch import read_shared

    for command in (
        [*SGLANG, "--tp-size", "2", f"--served-model-name={name}"],
        ["vllm", "serve", "/m", "-tp", "2", "--served-model-name", f"{name}-x"],
    ):
        full, shared = read({"command": command}, {}), read_shared({"command": command}, {}, (name,))
        assert full is not None and shared is not None
        assert (shared.engine, shared.values) == (full.engine, full.values)
