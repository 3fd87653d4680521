"""``served-model-name``: an engine does not answer under the name of another model of the inputs.

``--served-model-name`` is the name the OpenAI API lists (``/v1/models``) and accepts in ``model``. A name that is
the storage repository (``hf://ORG/NAME``) of a different BaseModel or ClusterBaseModel in the inputs than the one
the engine serves makes clients and routers that ask by repository reach the wrong weights, or get a 404 for the
model they deployed (the five Qwen2.5 samples that auto-select a DeepSeek distill runtime serve as
``deepseek-ai/DeepSeek-R1-Distill-Qwen-14B``). Only names that are another model's repository are flagged: a
generic name (``vllm-model``) or an organisation's rename is no finding.
"""

from __future__ import annotations

from collections.abc import Iterator

from omerender import codes
from omerender.diagnostics import WARNING
from omerender.load.obj import Obj
from omerender.resolve.index import Universe
from omerender.verify.serving.engines import Engine
from omerender.verify.serving.finding import Check, Finding
from omerender.verify.serving.view import ServingView

HF = "hf://"


def repository(model: Obj) -> str | None:
    """A model's Hugging Face repository (``hf://ORG/NAME``, without revision), lower case; None for another URI."""
    storage = model.spec.get("storage")
    uri = storage.get("storageUri") if isinstance(storage, dict) else None
    if not isinstance(uri, str) or not uri.startswith(HF):
        return None
    repo = uri[len(HF) :].split("@", 1)[0].strip("/").lower()
    return repo or None


def repositories(universe: Universe) -> dict[str, list[Obj]]:
    """Repository -> the models stored there."""
    found: dict[str, list[Obj]] = {}
    for model in [*universe.cluster_models.values(), *universe.models.values()]:
        repo = repository(model)
        if repo is not None:
            found.setdefault(repo, []).append(model)
    return found


def run(view: ServingView) -> Iterator[Finding]:
    served: str | None = None
    owners: dict[str, list[Obj]] | None = None
    for component in ("engine", "decoder"):
        for pod in view.serving(component):
            launch = pod.launch
            if launch is None or launch.engine is Engine.ROUTER:
                continue
            value = launch.value("served_model_name")
            names = [value] if isinstance(value, str) else value if isinstance(value, list) else []
            for name in names:
                key = name.strip("/").lower()
                if "/" not in key:
                    continue  # no repository
                if owners is None:
                    served = repository(view.model)
                    owners = view.ctx.once("serving-repositories", view.universe, None,
                                           lambda: repositories(view.universe))  # fmt: skip
                others = sorted(m.name for m in owners.get(key, []) if m is not view.model)
                if not others or key == served:
                    continue
                yield Finding(
                    codes.SERVED_MODEL_NAME,
                    WARNING,
                    f"{pod.where} of runtime {view.runtime} answers as {name!r} (--served-model-name), the storage "
                    f"repository of model {', '.join(others)}, for an InferenceService that serves another model; "
                    "clients asking for the model they deployed get 404 'model not found' and those asking by this "
                    "name get other weights; drop --served-model-name from the runtime (the engine then answers as "
                    "its --model-path) or give each model a runtime of its own",
                    pod.option_place("served_model_name"),
                    component,
                )


CHECK = Check((codes.SERVED_MODEL_NAME,), run)
