"""Whether the objects of a universe name a model, runtime or parent it does not hold: only then is it worth
looking for them in the files a kustomization leaves out (``load.unlisted``), and worth doing so once, before any
worker process is forked."""

from __future__ import annotations

from omerender.ome import SERVING_RUNTIME as SR
from omerender.resolve.index import Universe
from omerender.resolve.inherit import parent_name


def _named(spec: object, key: str) -> str | None:
    ref = spec.get(key) if isinstance(spec, dict) else None
    name = ref.get("name") if isinstance(ref, dict) else None
    return str(name) if name else None


def names_missing(universe: Universe) -> bool:
    """Whether an InferenceService names a model or runtime, or a runtime a parent, that the universe lacks."""
    for (namespace, _), isvc in universe.isvcs.items():
        model = _named(isvc.body.get("spec"), "model")
        if model is not None and universe.model_named(model, namespace) is None:
            return True
        runtime = _named(isvc.body.get("spec"), "runtime")
        if runtime is not None and universe.runtime_named(runtime, namespace) is None:
            return True
    for child in universe.all_runtimes():
        parent = parent_name(child)
        if parent is None:
            continue
        found = universe.runtime_named(parent, child.namespace) if child.kind == SR else None
        if found is None and parent not in universe.cluster_runtimes:
            return True
    return False
