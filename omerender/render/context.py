"""What one InferenceService's rendering reads (``Context``), and the labels and annotations every
component's objects carry (OME's ``ProcessBaseLabels``/``ProcessBaseAnnotations``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from omerender.diagnostics import Diagnostic, Severity
from omerender.load.controller_config import IngressConfig
from omerender.load.obj import Obj
from omerender.load.yamlio import find_scalar
from omerender.render import finetuned
from omerender.render.accelerators import Resolved
from omerender.selection.lookup import Once, each_time

DISALLOWED_ANNOTATIONS = frozenset(
    {
        "autoscaling.knative.dev/min-scale",
        "autoscaling.knative.dev/max-scale",
        "internal.ome.io/storage-initializer-sourceuri",
        "kubectl.kubernetes.io/last-applied-configuration",
    }
)


@dataclass
class Context:
    """Everything one InferenceService's rendering reads."""

    isvc: Obj
    body: dict[str, Any]  # the InferenceService after admission defaults
    model: Obj
    runtime_name: str
    runtime_spec: dict[str, Any]  # merged over the chain, CRD defaults applied
    sources: tuple[Obj, ...]  # where merged values may come from: the InferenceService, then the chain leaf to root
    problems: list[Diagnostic] = field(default_factory=list)
    ingress: IngressConfig = field(default_factory=IngressConfig)  # inferenceservice-config ``ingress``
    accelerators: dict[str, Resolved] = field(default_factory=dict)  # component -> its resolved AcceleratorClass
    finetuned: finetuned.FineTuned | None = None  # the model's FineTunedWeight, for the engine and decoder
    # per-run work done once (BuildResult.once); alone, a Context computes each time
    once: Once = each_time
    # (component, id of its merged spec) -> (that spec, its labels, its annotations): each is asked for up to 4 times
    metadata: dict[tuple[str, int], tuple[Any, dict[str, str], dict[str, str]]] = field(default_factory=dict)
    # id -> a component's merged spec whose pod fields and runner are the runtime's own, shared, never changed
    shared_specs: dict[int, dict[str, Any]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.isvc.name

    @property
    def namespace(self) -> str:
        return self.isvc.namespace

    def locate(self, needle: str, severity: Severity, message: str, code: str, *, text: str = "") -> None:
        """Report at the first source file holding ``text`` (the whole string), else ``needle``, else at the
        InferenceService."""
        for wanted in (text, needle) if text else (needle,):
            for source in self.sources:
                found = find_scalar(source.node, wanted)
                if found is not None:
                    self.problems.append(Diagnostic(source.path, found[0], found[1], severity, message, code))
                    return
        self.problems.append(self.isvc.diag(severity, message, "spec", code=code))


def labels_and_annotations(
    ctx: Context, component: str, merged: dict[str, Any]
) -> tuple[dict[str, str], dict[str, str]]:
    """The component's labels and annotations (``ProcessBaseLabels``/``ProcessBaseAnnotations``), the caller's own
    copies; made once per component and merged spec, whose labels and annotations rendering never changes."""
    known = ctx.metadata.get((component, id(merged)))
    if known is None or known[0] is not merged:
        known = ctx.metadata[(component, id(merged))] = (merged, *_labels_and_annotations(ctx, component, merged))
    return dict(known[1]), dict(known[2])


def _labels_and_annotations(
    ctx: Context, component: str, merged: dict[str, Any]
) -> tuple[dict[str, str], dict[str, str]]:
    meta = ctx.body.get("metadata") or {}
    model = ctx.model
    mspec = model.spec
    annotations = {k: v for k, v in (meta.get("annotations") or {}).items() if k not in DISALLOWED_ANNOTATIONS}
    annotations.update(merged.get("annotations") or {})
    ft = ctx.finetuned if component != "router" else None
    if ft is not None:
        annotated = finetuned.annotate(ft, annotations)
        if annotated is None:  # no hyperParameters.strategy: ProcessBaseAnnotations returns (nil, nil)
            return _labels(ctx, component, merged), {}
    for key in ("ome.io/base-model-decryption-key-name", "ome.io/base-model-decryption-secret-name"):
        if key in model.annotations and not (ft is not None and ft.merged):
            annotations[key] = model.annotations[key]
    annotations["ome.io/base-model-name"] = model.name
    if mspec.get("vendor"):
        annotations["ome.io/base-model-vendor"] = str(mspec["vendor"])
    fmt = mspec.get("modelFormat") or {}
    if fmt.get("name") is not None:
        annotations["ome.io/base-model-format"] = str(fmt.get("name"))
    if fmt.get("version"):
        annotations["ome.io/base-model-format-version"] = str(fmt["version"])
    annotations["ome.io/serving-runtime"] = ctx.runtime_name
    return _labels(ctx, component, merged), {k: str(v) for k, v in annotations.items()}


def _labels(ctx: Context, component: str, merged: dict[str, Any]) -> dict[str, str]:
    meta = ctx.body.get("metadata") or {}
    model = ctx.model
    mspec = model.spec
    labels = dict(meta.get("labels") or {})
    labels.update(merged.get("labels") or {})
    labels.update(
        {
            "ome.io/inferenceservice": ctx.name,
            "component": component,
            "serving-runtime": ctx.runtime_name,
            "fine-tuned-serving": "false",
            "base-model-name": model.name,
            "base-model-size": str(model.annotations.get("models.ome.io/category", "SMALL")),
            "base-model-type": "Serving",
        }
    )
    if mspec.get("vendor"):
        labels["base-model-vendor"] = str(mspec["vendor"])
    if ctx.finetuned is not None and component != "router":
        finetuned.label(ctx.finetuned, labels)
    return {k: str(v) for k, v in labels.items()}
