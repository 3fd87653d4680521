"""``router-discovery``: the SGLang router finds the engine pods it routes to, and only those.

With ``--service-discovery`` the router watches the pods its selectors match (``--selector``; in PD mode
``--prefill-selector`` and ``--decode-selector``: ``key=value`` terms, written apart or space-separated in one value)
and sends requests to each on ``--service-discovery-port`` (default 80; ``router_args.py``). ``$(VAR)`` in them
expands from the router's env (OME's runtimes take ``INFERENCESERVICE_NAME`` from the pod's
``ome.io/inferenceservice`` label). A selector must match the serving pods of its component (a Deployment's, a
LeaderWorkerSet's leader) and nothing else: no LeaderWorkerSet worker (its node rank serves no HTTP), not the router
itself, not the other side of a PD pair; and the port must be the one those pods listen on. OME's maintainers fixed
each by hand (OME #138: a selector matching workers; #345: ``worker-index=0`` on Deployment engines, which carry no
LeaderWorkerSet label, matching nothing for five months; #203: a hard-coded InferenceService name).

Also here: without a router, OME's external Service selects the engine's pods by InferenceService and component
(``external_service_reconciler.go:113-134``), which a LeaderWorkerSet's workers carry as well as its leader: a
warning, since part of the requests then go to pods that serve none.
"""

from __future__ import annotations

from collections.abc import Iterator

from omerender import codes
from omerender.diagnostics import ERROR, WARNING
from omerender.verify.provenance import Place, get
from omerender.verify.serving.engines import Engine
from omerender.verify.serving.finding import Check, Finding
from omerender.verify.serving.view import POD, WORKER, Pod, ServingView, selects

PLAIN = ("selector", "engine")
PD = (("prefill_selector", "engine"), ("decode_selector", "decoder"))
FLAGS = {"selector": "--selector", "prefill_selector": "--prefill-selector", "decode_selector": "--decode-selector"}


def _terms(values: list[str]) -> dict[str, str] | None:
    """``key=value`` terms of a selector; None when one is not a term (nothing is guessed)."""
    terms: dict[str, str] = {}
    for value in values:
        for word in value.split():
            key, eq, wanted = word.partition("=")
            if not eq or not key:
                return None
            terms[key] = wanted
    return terms


def _shown(view: ServingView, terms: dict[str, str]) -> str:
    """The selector as a message shows it: the InferenceService's own name as a placeholder, so that every
    InferenceService on the runtime gets the same message."""
    name = view.ctx.name
    return " ".join(f"{k}={'<InferenceService>' if v == name else v}" for k, v in terms.items())


def _selector(view: ServingView, router: Pod, option: str, target: str) -> Iterator[Finding]:
    launch = router.launch
    assert launch is not None
    found = launch.value(option)
    if not isinstance(found, list):
        return
    terms = _terms(found)
    if terms is None or not terms:
        return
    flag = FLAGS[option]
    shown = f"{flag} {_shown(view, terms)}"
    place = router.option_place(option)
    head = f"router of runtime {view.runtime}: {shown}"
    matched = {id(p): selects(terms, p.labels, view.label_keys) for p in view.pods}
    serving = view.serving(target)
    if serving and all(matched[id(p)] is False for p in serving):
        yield Finding(
            codes.ROUTER_DISCOVERY,
            ERROR,
            f"{head} matches no {target} pod of the InferenceService ({_why_not(terms, serving[0])}); the router "
            f"finds no worker and every request fails; select the {target} pods, e.g. component={target} "
            "ome.io/inferenceservice=$(INFERENCESERVICE_NAME)",
            place,
            "router",
        )
    workers = [p for p in view.of(target, WORKER) if matched[id(p)] is True]
    if workers:
        yield Finding(
            codes.ROUTER_DISCOVERY,
            ERROR,
            f"{head} also matches the {target}'s LeaderWorkerSet worker pods, whose node ranks serve no HTTP; the "
            "router sends them requests that fail; add leaderworkerset.sigs.k8s.io/worker-index=0",
            place,
            "router",
        )
    others = sorted({p.component for p in view.pods if p.component != target and matched[id(p)] is True})
    if others:
        yield Finding(
            codes.ROUTER_DISCOVERY,
            ERROR,
            f"{head} also matches the {' and '.join(others)} pods; the router sends {target} requests to them, which "
            f"fail or loop; add component={target}",
            place,
            "router",
        )
    yield from _port(view, router, [p for p in serving if matched[id(p)] is True], target)


def _why_not(terms: dict[str, str], pod: Pod) -> str:
    for key, value in terms.items():
        have = pod.labels.get(key)
        if have is None:
            kind = "Deployment" if pod.role == POD else "LeaderWorkerSet"
            return f"its pods, made by a {kind}, have no label {key}"
        if have != value and not (key.endswith("/worker-index") and pod.role != POD):
            shown = "<InferenceService>" if have == pod.view.ctx.name else have
            return f"its pods have {key}={shown}"
    return "its pods carry other labels"


def _port(view: ServingView, router: Pod, targets: list[Pod], target: str) -> Iterator[Finding]:
    launch = router.launch
    assert launch is not None
    port = launch.number("discovery_port")
    if port is None:
        return
    for pod in targets:
        listens = pod.launch.number("port") if pod.launch is not None else None
        if listens is None or listens == port:
            continue
        default = "" if launch.given("discovery_port") else " (the router's default)"
        yield Finding(
            codes.ROUTER_DISCOVERY,
            ERROR,
            f"router of runtime {view.runtime}: --service-discovery-port {port}{default}, but the {target} pods it "
            f"selects listen on {listens}; every request the router sends them is refused; set "
            f"--service-discovery-port {listens}",
            router.option_place("discovery_port") or router.option_place("selector"),
            "router",
        )
        return


def _external(view: ServingView) -> Iterator[Finding]:
    """Without a router, OME's external Service selects the engine's LeaderWorkerSet workers too."""
    if not any(p.role == WORKER for p in view.pods) or view.of("router"):
        return
    for obj in view.objects:
        labels = get(obj, ("metadata", "labels")) or {}
        selector = get(obj, ("spec", "selector"))
        if obj.get("kind") != "Service" or labels.get("component") != "external-service" or not selector:
            continue
        terms = {str(k): str(v) for k, v in selector.items()}
        workers = [p for p in view.pods if p.role == WORKER and selects(terms, p.labels, view.label_keys) is True]
        if not workers:
            return
        component = workers[0].component
        has_router = isinstance(view.ctx.runtime_spec.get("routerConfig"), dict)
        if has_router:
            place: Place | None = view.fallback("engine")
            message = (
                f"InferenceService {view.ctx.name} declares no router, so OME's Service {view.ctx.name} selects every "
                f"{component} pod of it (external_service_reconciler.go:113-134), the LeaderWorkerSet's workers as "
                f"well as its leader; requests sent to a worker fail; add router: {{}} to use runtime "
                f"{view.runtime}'s router"
            )
        else:
            place = workers[0].part_place()
            message = (
                f"{component} of runtime {view.runtime} runs as a LeaderWorkerSet without a router, so OME's Service "
                f"named like the InferenceService selects every {component} pod of it "
                "(external_service_reconciler.go:113-134), the workers as well as the leader; requests sent to a "
                "worker fail; add a routerConfig whose selector picks leaderworkerset.sigs.k8s.io/worker-index=0"
            )
        yield Finding(codes.ROUTER_DISCOVERY, WARNING, message, place, component)
        return


def run(view: ServingView) -> Iterator[Finding]:
    for router in view.serving("router"):
        launch = router.launch
        if launch is None or launch.engine is not Engine.ROUTER or launch.flag("service_discovery") is not True:
            continue
        pd = launch.flag("pd")
        if pd is None:
            continue
        for option, target in PD if pd else (PLAIN,):
            yield from _selector(view, router, option, target)
    yield from _external(view)


CHECK = Check((codes.ROUTER_DISCOVERY,), run)
