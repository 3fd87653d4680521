"""``pd-pairing``: an SGLang engine in prefill mode has its decode side and a router that joins them.

With ``--disaggregation-mode prefill`` the engine only prefills: a decoder in ``decode`` mode with the same
``--disaggregation-transfer-backend`` (default mooncake; ``server_args.py``) must take the KV cache, and a router
started with ``--pd-disaggregation`` must send each request to both. OME builds a component only when the
InferenceService declares it (``utils/merging.go``: ``MergeDecoderSpec``, ``MergeRouterSpec``), so a runtime's
``decoderConfig`` or ``routerConfig`` does nothing for an InferenceService without ``decoder:`` or ``router:``.
The reverse too: a decoder in decode mode or a ``--pd-disaggregation`` router beside an engine that is not in
prefill mode. Either way no request completes.
"""

from __future__ import annotations

from collections.abc import Iterator

from omerender import codes
from omerender.diagnostics import ERROR
from omerender.verify.provenance import get
from omerender.verify.serving.engines import Engine
from omerender.verify.serving.finding import Check, Finding
from omerender.verify.serving.launch import Launch
from omerender.verify.serving.view import Pod, ServingView

PREFILL, DECODE = "prefill", "decode"


def _first(view: ServingView, component: str) -> tuple[Pod, Launch] | None:
    for pod in view.serving(component):
        if pod.launch is not None:
            return pod, pod.launch
    return None


def _mode(found: tuple[Pod, Launch] | None) -> str | None:
    if found is None or found[1].engine is not Engine.SGLANG:
        return None
    return found[1].text("disaggregation_mode")


def _undeclared(view: ServingView, component: str) -> bool:
    """The runtime configures ``component`` but the InferenceService does not declare it."""
    config = view.ctx.runtime_spec.get(f"{component}Config")
    return isinstance(config, dict) and bool(config) and get(view.ctx.body, ("spec", component)) is None


def run(view: ServingView) -> Iterator[Finding]:
    engine, decoder, router = _first(view, "engine"), _first(view, "decoder"), _first(view, "router")
    engine_mode, decoder_mode = _mode(engine), _mode(decoder)
    router_pd = router[1].flag("pd") if router is not None and router[1].engine is Engine.ROUTER else None
    name = view.ctx.name
    if engine_mode == PREFILL and engine is not None:
        pod = engine[0]
        head = f"engine of runtime {view.runtime} runs SGLang with --disaggregation-mode prefill"
        if decoder is None:
            if _undeclared(view, "decoder"):
                yield Finding(
                    codes.PD_PAIRING,
                    ERROR,
                    f"InferenceService {name} declares no decoder, so OME drops runtime {view.runtime}'s decoderConfig "
                    "(utils/merging.go) and its prefill-only engine has no decode side: no request completes; add "
                    "decoder: {}",
                    view.fallback("engine"),
                    "engine",
                )
            else:
                yield Finding(
                    codes.PD_PAIRING,
                    ERROR,
                    f"{head}, but there is no decoder to take the KV cache: no request completes; add a decoderConfig "
                    "in --disaggregation-mode decode, or drop --disaggregation-mode",
                    pod.option_place("disaggregation_mode"),
                    "engine",
                )
        elif decoder_mode is not None and decoder_mode != DECODE:
            yield Finding(
                codes.PD_PAIRING,
                ERROR,
                f"{head}, but its decoder runs with --disaggregation-mode {decoder_mode}; nothing decodes what it "
                "prefills and no request completes; start the decoder with --disaggregation-mode decode",
                decoder[0].option_place("disaggregation_mode") or decoder[0].setter("command"),
                "decoder",
            )
        elif decoder_mode == DECODE:
            ours, theirs = engine[1].text("transfer_backend"), decoder[1].text("transfer_backend")
            if ours is not None and theirs is not None and ours != theirs:
                yield Finding(
                    codes.PD_PAIRING,
                    ERROR,
                    f"{head} and transfer backend {ours}, its decoder uses {theirs} "
                    "(--disaggregation-transfer-backend); the KV cache never arrives and no request completes; give "
                    "both the same backend",
                    decoder[0].option_place("transfer_backend") or pod.option_place("transfer_backend"),
                    "decoder",
                )
        if router is None:
            if _undeclared(view, "router"):
                yield Finding(
                    codes.PD_PAIRING,
                    ERROR,
                    f"InferenceService {name} declares no router, so OME drops runtime {view.runtime}'s routerConfig "
                    "(utils/merging.go); requests reach the prefill-only engine alone and none completes; add "
                    "router: {}",
                    view.fallback("engine"),
                    "engine",
                )
            else:
                yield Finding(
                    codes.PD_PAIRING,
                    ERROR,
                    f"{head}, but there is no router to send each request to it and to the decoder: no request "
                    "completes; add a routerConfig started with --pd-disaggregation",
                    pod.option_place("disaggregation_mode"),
                    "engine",
                )
        elif router_pd is False:
            yield Finding(
                codes.PD_PAIRING,
                ERROR,
                f"{head}, but its router runs without --pd-disaggregation and sends each request to one pod only: no "
                "request completes; start the router with --pd-disaggregation and prefill and decode selectors",
                router[0].setter("command") or router[0].setter("args"),
                "router",
            )
        return
    if engine_mode is None:
        return
    if decoder is not None and decoder_mode == DECODE:
        yield Finding(
            codes.PD_PAIRING,
            ERROR,
            f"decoder of runtime {view.runtime} runs with --disaggregation-mode decode beside an engine in "
            f"--disaggregation-mode {engine_mode}; it waits for KV caches that never come; start the engine with "
            "--disaggregation-mode prefill, or drop the decoder's mode",
            decoder[0].option_place("disaggregation_mode"),
            "decoder",
        )
    if router is not None and router_pd is True:
        yield Finding(
            codes.PD_PAIRING,
            ERROR,
            f"router of runtime {view.runtime} runs with --pd-disaggregation beside an engine in --disaggregation-mode "
            f"{engine_mode}; "
            "it expects prefill and decode pods and every request fails; start the engine with --disaggregation-mode "
            "prefill and a decode-mode decoder, or drop --pd-disaggregation",
            router[0].option_place("pd"),
            "router",
        )


CHECK = Check((codes.PD_PAIRING,), run)
