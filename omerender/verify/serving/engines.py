"""The serving programs the checks know: how each is recognised, the few options they read, and what it serves.

Only the options a check needs are listed, each with every spelling its parser takes, from the engines' own
sources (sgl-project/sglang ``python/sglang/srt/server_args.py``; vllm-project/vllm ``vllm/engine/arg_utils.py``
and ``vllm/entrypoints/openai/cli_args.py``; the SGLang router's ``sglang_router/router_args.py``). Python's
argparse also takes a unique prefix of a long option: the prefixes SGLang documents (``--tp 2``, ``--dp 2``:
``docs/backend/server_arguments.md``) are listed, and any other prefix of a listed option makes that option's
value unknown (``launch``), never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Engine(StrEnum):
    SGLANG = "SGLang"
    VLLM = "vLLM"
    ROUTER = "SGLang router"


class Kind(StrEnum):
    FLAG = "flag"  # store_true
    VALUE = "value"  # one value
    VALUES = "values"  # nargs="+": every following token up to the next option


@dataclass(frozen=True)
class Option:
    name: str  # what the checks ask for
    flags: tuple[str, ...]  # every spelling, the canonical one first
    kind: Kind = Kind.VALUE
    default: str | bool | None = None


def _options(*options: Option) -> dict[str, Option]:
    return {option.name: option for option in options}


# sglang server_args.py: ServerArgs fields and their defaults (host 127.0.0.1, port 30000, tp/pp/dp 1, nnodes 1,
# disaggregation_mode "null", disaggregation_transfer_backend "mooncake").
SGLANG_OPTIONS = _options(
    Option("host", ("--host",), default="127.0.0.1"),
    Option("port", ("--port",), default="30000"),
    Option("tp", ("--tp-size", "--tensor-parallel-size", "--tp"), default="1"),
    Option("pp", ("--pp-size", "--pipeline-parallel-size"), default="1"),
    Option("dp", ("--dp-size", "--data-parallel-size", "--dp"), default="1"),
    Option("dp_attention", ("--enable-dp-attention",), Kind.FLAG, False),
    Option("nnodes", ("--nnodes",), default="1"),
    Option("served_model_name", ("--served-model-name",)),
    Option("disaggregation_mode", ("--disaggregation-mode",), default="null"),
    Option("transfer_backend", ("--disaggregation-transfer-backend",), default="mooncake"),
    Option("grpc_mode", ("--grpc-mode",), Kind.FLAG, False),
    Option("root_path", ("--fastapi-root-path",), default=""),
    Option("mem_fraction", ("--mem-fraction-static", "--mem-frac")),
)
# vllm arg_utils.py (ParallelConfig: -tp, -pp, -dp, -dpl) and cli_args.py (host None: every interface, port 8000,
# --served-model-name nargs="+", --root-path). vLLM's FlexibleArgumentParser reads _ in option names as -.
VLLM_OPTIONS = _options(
    Option("host", ("--host",), default=""),
    Option("port", ("--port",), default="8000"),
    Option("tp", ("--tensor-parallel-size", "-tp"), default="1"),
    Option("pp", ("--pipeline-parallel-size", "-pp"), default="1"),
    Option("dp", ("--data-parallel-size", "-dp"), default="1"),
    Option("dp_local", ("--data-parallel-size-local", "-dpl")),
    Option("served_model_name", ("--served-model-name",), Kind.VALUES),
    Option("root_path", ("--root-path",), default=""),
    Option("distributed_backend", ("--distributed-executor-backend",)),
    Option("mem_fraction", ("--gpu-memory-utilization",), default="0.9"),
    Option("expert_parallel", ("--enable-expert-parallel",), Kind.FLAG, False),
)
# sglang_router router_args.py: host 0.0.0.0, port 30000, service_discovery_port 80, selectors nargs="+" of
# key=value (OME writes them as one space-separated value, which the router splits the same way).
ROUTER_OPTIONS = _options(
    Option("host", ("--host",), default="0.0.0.0"),  # noqa: S104 - the router's default, read, not bound
    Option("port", ("--port",), default="30000"),
    Option("service_discovery", ("--service-discovery",), Kind.FLAG, False),
    Option("selector", ("--selector",), Kind.VALUES),
    Option("prefill_selector", ("--prefill-selector",), Kind.VALUES),
    Option("decode_selector", ("--decode-selector",), Kind.VALUES),
    Option("discovery_port", ("--service-discovery-port",), default="80"),
    Option("pd", ("--pd-disaggregation",), Kind.FLAG, False),
)
OPTIONS = {Engine.SGLANG: SGLANG_OPTIONS, Engine.VLLM: VLLM_OPTIONS, Engine.ROUTER: ROUTER_OPTIONS}
# Spellings some documentation gives for a listed option that the sources above do not show (the SGLang model
# gateway's docs start workers with --prefill-only and --decode-only): the option's value is unknown after one.
UNSURE = {Engine.SGLANG: {"--prefill-only": "disaggregation_mode", "--decode-only": "disaggregation_mode"}}
FLAGS = {engine: {flag: o for o in options.values() for flag in o.flags} for engine, options in OPTIONS.items()}
# Exact options of the router that are prefixes of listed ones: not abbreviations (static worker URLs).
NOT_ABBREVIATIONS = {Engine.ROUTER: frozenset({"--prefill", "--decode"})}


def _abbreviations(engine: Engine) -> dict[str, tuple[str, ...]]:
    """Each strict prefix (``--x``) of a listed long option -> the options it may abbreviate (and the ``UNSURE``
    spellings -> the option they may set)."""
    found: dict[str, set[str]] = {}
    for option in OPTIONS[engine].values():
        for flag in option.flags:
            if flag.startswith("--"):
                for end in range(3, len(flag)):
                    found.setdefault(flag[:end], set()).add(option.name)
    skip = set(FLAGS[engine]) | NOT_ABBREVIATIONS.get(engine, frozenset())
    for flag, name in UNSURE.get(engine, {}).items():
        found.setdefault(flag, set()).add(name)
    return {prefix: tuple(sorted(names)) for prefix, names in found.items() if prefix not in skip}


ABBREVIATIONS = {engine: _abbreviations(engine) for engine in OPTIONS}

# Paths a probe may not use on an engine: each is served by another program and not by this one (kept small: a
# path not listed is never flagged). The router serves /liveness and /readiness (router/src/server.rs); SGLang's
# http_server.py serves /health, /health_generate, /get_model_info, /get_server_info, /v1/models and /metrics;
# vLLM's api_server.py serves /health, /ping, /version, /v1/models and /metrics.
WRONG_PATHS = {
    Engine.SGLANG: frozenset({"/liveness", "/readiness"}),
    Engine.VLLM: frozenset({"/liveness", "/readiness", "/health_generate", "/get_model_info", "/get_server_info"}),
}
SERVED_BY = {
    "/liveness": "the SGLang router",
    "/readiness": "the SGLang router",
    "/health_generate": "SGLang",
    "/get_model_info": "SGLang",
    "/get_server_info": "SGLang",
}

PYTHONS = ("python", "python3")
MODULES = {
    "sglang.launch_server": Engine.SGLANG,
    "vllm.entrypoints.openai.api_server": Engine.VLLM,
    "sglang_router.launch_router": Engine.ROUTER,
}
SUBCOMMANDS = {("sglang", "serve"): Engine.SGLANG, ("vllm", "serve"): Engine.VLLM}
ROUTER_PROGRAMS = frozenset({"smg", "sgl-model-gateway", "sglang-router", "sgl-router"})
RAY = "ray"


@dataclass(frozen=True)
class Program:
    """What a command line runs: an engine and where its own arguments start, Ray, or something else."""

    engine: Engine | None
    start: int = 0  # index of the first argument of the engine's own
    ray: bool = False


def _base(token: str) -> str:
    return token.rsplit("/", 1)[-1]


def _is_python(token: str) -> bool:
    base = _base(token)
    return base in PYTHONS or (base.startswith("python3.") and base[8:].isdigit())


def program(tokens: list[str | None]) -> Program:
    """The program ``tokens`` start (after ``exec``/``env`` and variable assignments, which the caller removed)."""
    if not tokens or tokens[0] is None:
        return Program(None)
    head = _base(tokens[0])
    if head == RAY:
        return Program(None, ray=True)
    if _is_python(tokens[0]):
        i = 1
        while i < len(tokens) and isinstance(tokens[i], str) and str(tokens[i]).startswith("-") and tokens[i] != "-m":
            i += 1
        if i + 1 < len(tokens) and tokens[i] == "-m" and isinstance(tokens[i + 1], str):
            module = str(tokens[i + 1])
            if module == RAY or module.startswith(RAY + "."):
                return Program(None, ray=True)
            found = MODULES.get(module)
            return Program(found, i + 2) if found is not None else Program(None)
        return Program(None)
    if len(tokens) > 1 and (head, tokens[1]) in SUBCOMMANDS:
        return Program(SUBCOMMANDS[(head, str(tokens[1]))], 2)
    if head in ROUTER_PROGRAMS:
        return Program(Engine.ROUTER, 1)
    return Program(None)


def from_image(image: str) -> Engine | None:
    """The engine an image runs as its entrypoint when the container gives no command (args only)."""
    repository = image.rsplit("@", 1)[0]
    name = _base(repository).split(":", 1)[0]
    if name in ROUTER_PROGRAMS:
        return Engine.ROUTER
    if name == "vllm-openai" or name.endswith("-vllm-openai"):
        return Engine.VLLM  # vllm-project/vllm docker/Dockerfile: ENTRYPOINT ["vllm", "serve"]
    return None
