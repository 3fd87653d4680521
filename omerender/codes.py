"""The catalogue of diagnostic codes: every code a Diagnostic carries is declared here, once.

Each entry gives the usual severity, a one-line description, and what it mirrors: the spec section
(``spec: ...`` in ../shared/spec/runtime-inheritance.txt), OME's condition or event reason, or the
Kubernetes rule. Reports (SARIF ``rules``) and docs/codes.md (its table and a section per code) are generated from
this table; ``tests/unit/test_codes.py`` fails when a module writes a code inline, ``tests/unit/test_code_docs.py``
when docs/codes.md is stale.
"""

from __future__ import annotations

from dataclasses import dataclass

from omerender.constants import DOCS_URL
from omerender.diagnostics import ERROR, INFO, WARNING, Severity


@dataclass(frozen=True)
class CodeInfo:
    code: str
    severity: Severity
    summary: str
    mirrors: str


CATALOGUE: dict[str, CodeInfo] = {}


def _code(code: str, severity: Severity, summary: str, mirrors: str = "omerender") -> str:
    CATALOGUE[code] = CodeInfo(code, severity, summary, mirrors)
    return code


# Inheritance chains (InheritanceReady reasons and the webhook's profile rule).
PARENT_NOT_FOUND = _code(
    "ParentNotFound",
    ERROR,
    "an ome.io/inherit-from parent does not exist where OME looks",
    "spec: What admission checks",
)
INHERITANCE_CYCLE = _code("InheritanceCycle", ERROR, "the chain names a runtime twice", "spec: What admission checks")
MAX_DEPTH_EXCEEDED = _code(
    "MaxDepthExceeded", ERROR, "the chain holds more than five runtimes", "spec: What admission checks"
)
RESOLVER_ERROR = _code(
    "ResolverError", ERROR, "the chain fails to resolve for another reason", "spec: When a chain breaks"
)
PROFILE_NOT_DISABLED = _code(
    "ProfileNotDisabled",
    ERROR,
    'a runtime annotated ome.io/runtime-profile: "true" does not set disabled: true',
    "spec: What admission checks",
)

# InferenceService events and conditions (OME's controller).
RUNTIME_VALIDATION_ERROR = _code(
    "RuntimeValidationError",
    ERROR,
    "the named runtime is disabled, does not support the model, or its chain is broken",
    "OME event RuntimeValidationError; spec: When a chain breaks",
)
RUNTIME_SELECTION_ERROR = _code(
    "RuntimeSelectionError", ERROR, "auto-selection finds no runtime for the model", "OME event RuntimeSelectionError"
)
RUNTIME_FETCH_ERROR = _code(
    "RuntimeFetchError",
    ERROR,
    "the runtime cannot be fetched: missing, or a broken chain with no spec.model",
    "OME event RuntimeFetchError",
)
RUNTIME_PIN_ERROR = _code(
    "RuntimePinError",
    ERROR,
    "a pinned revision or an autoSync: false snapshot cannot be used",
    "OME event RuntimePinError; spec: When a parent changes",
)
RUNTIME_DRIFTED = _code(
    "RuntimeDrifted",
    WARNING,
    "a pinned InferenceService's live merged runtime differs from its snapshot (RevisionMismatch)",
    "OME condition RuntimeDrifted; spec: When a parent changes",
)
MODEL_RECONCILE_ERROR = _code(
    "ModelReconcileError", ERROR, "the InferenceService's model is missing or unusable", "OME event ModelReconcileError"
)
MODEL_CONFIG_ERROR = _code(
    "ModelConfigError",
    ERROR,
    "the model ConfigMap cannot be built: its base model or FineTunedWeight is missing",
    "OME model config reconciler",
)
DEPLOYMENT_MODE_ERROR = _code(
    "DeploymentModeError",
    ERROR,
    "the components ask for a deployment mode OME refuses",
    "OME event DeploymentModeError",
)

# Reading input.
INPUT_MISSING = _code("input-missing", ERROR, "an input path does not exist")
INPUT_UNREADABLE = _code("input-unreadable", ERROR, "an input file cannot be read")
FILE_TOO_LARGE = _code("file-too-large", ERROR, "an input file is over --max-file-size")
SPECIAL_FILE = _code("special-file", WARNING, "a FIFO, socket or device among the inputs is skipped")
KUSTOMIZATION = _code(
    "kustomization",
    ERROR,
    "a kustomization asks for what omerender does not apply (a transformer, a generator, a remote resource) or "
    "lists a path that cannot be read",
    "kustomize build",
)
SYMLINK_OUTSIDE = _code("symlink-outside", ERROR, "a symlink points outside the given paths")
SYMLINK_SKIPPED = _code("symlink-skipped", WARNING, "a symlinked directory is not followed")
ENCODING = _code("encoding", ERROR, "a file is not valid UTF-8")
YAML_SYNTAX = _code("yaml-syntax", ERROR, "malformed YAML, a duplicate key, or a file beyond the node and alias limits")
YAML_DEPTH = _code("yaml-depth", ERROR, "a document nests too deeply to read")
NOT_A_MAPPING = _code("not-a-mapping", ERROR, "a document is not a mapping")
MISSING_KIND = _code("missing-kind", ERROR, "a document has no kind")
LIST_ITEMS = _code(
    "list-items",
    ERROR,
    "a List document whose items cannot be read: not a list, an item not a mapping, a list inside a list",
    "kubectl",
)
MISSING_NAME = _code("missing-name", ERROR, "an OME object has no metadata.name, or a name that is not a string")
API_VERSION = _code("api-version", ERROR, "an OME kind with an apiVersion other than ome.io/v1beta1", "OME CRDs")
DUPLICATE_OBJECT = _code("duplicate-object", ERROR, "two inputs define the same object", "API server object identity")
MODEL_METADATA = _code("model-metadata", ERROR, "the --model-metadata file is invalid, or notes on how it applied")
MODEL_METADATA_MISSING = _code(
    "model-metadata-missing", WARNING, "a model lacks the fields the model agent fills, so it cannot be checked"
)
SETTINGS = _code(
    "settings", ERROR, "the .omerender.yaml settings file holds an unknown key or a value of the wrong type"
)

# Admission: schemas, names, webhook defaults.
SCHEMA = _code("schema", ERROR, "an OME object fails its CRD schema", "OME CRDs (API server validation)")
UNKNOWN_FIELD = _code(
    "unknown-field",
    WARNING,
    "a field the CRD does not declare; the API server would drop it",
    "kubectl field validation",
)
INVALID_NAME = _code(
    "invalid-name",
    ERROR,
    "a name Kubernetes refuses: not a DNS label or subdomain, or an env var name that is not printable ASCII without "
    "'='",
    "Kubernetes",
)
REPLICAS_OVERRIDDEN = _code(
    "replicas-overridden",
    WARNING,
    "replicas the runtime sets are overridden by OME's webhook defaults",
    "OME isvc defaulter",
)
DECODER_WITHOUT_ENGINE = _code("decoder-without-engine", ERROR, "a decoder without an engine", "OME isvc validator")

# Runtime lints.
SIZE_RANGE_ONE_SIDED = _code(
    "size-range-one-sided",
    WARNING,
    "a modelSizeRange with only min or max, on which OME's matcher crashes",
    "OME matcher",
)
RUNTIME_TEMPLATE = _code("runtime-template", WARNING, "a {{ }} in a runtime that OME's template step will not fill")
OME_PANIC = _code("ome-panic", ERROR, "input on which OME's controller itself would crash", "OME controller")

# Selection notes.
RUNTIME_SELECTED = _code("runtime-selected", INFO, "which runtime auto-selection picked, and why", "OME selector")
RUNTIME_RUNNER_UP = _code("runtime-runner-up", INFO, "a runtime auto-selection ranked below the one it picked")
RUNTIME_SKIPPED = _code("runtime-skipped", INFO, "a compatible runtime auto-selection does not consider")
RUNTIME_EXCLUDED = _code("runtime-excluded", INFO, "a runtime auto-selection excludes as incompatible")
SELECTION_TIE = _code("selection-tie", WARNING, "two runtimes tie, and OME's choice depends on list order")
SELECTED_RUNTIME_INHERITS = _code(
    "selected-runtime-inherits",
    WARNING,
    "auto-selection picks a child runtime, which OME renders without inheritance",
    "spec: When the merged spec applies",
)

# Rendering.
DEPLOYMENT_MODE = _code("deployment-mode", INFO, "the deployment mode each component renders in")
UNSUPPORTED_DEPLOYMENT_MODE = _code("unsupported-deployment-mode", ERROR, "a deployment mode omerender does not render")
VIRTUAL_DEPLOYMENT = _code(
    "virtual-deployment", INFO, "a VirtualDeployment InferenceService, for which OME renders nothing"
)
AUTOSCALER_CLASS_CODE = _code(
    "autoscaler-class", ERROR, "an ome.io/autoscalerClass OME does not know", "OME controller"
)
PDB_BOTH_BOUNDS = _code("pdb-both-bounds", ERROR, "a PodDisruptionBudget with both minAvailable and maxUnavailable")
ROUTER_CONFIG_ORDER = _code(
    "router-config-order", INFO, "router config env entries are sorted; OME's Go map order varies"
)
RUNNER_WITHOUT_NAME = _code(
    "runner-without-name", ERROR, "a component runner without a name; OME's merge empties the container name"
)
NO_CONTAINERS = _code("no-containers", ERROR, "a component renders a pod without containers", "Kubernetes")
PLACEHOLDER = _code(
    "placeholder", ERROR, "a {{ }} template action OME's placeholder step cannot fill", "OME controller"
)

# Controller configuration and the objects issue 12 added (OME 17b77eda; see the tables of docs/rendering.md).
CONTROLLER_CONFIG = _code(
    "controller-config",
    ERROR,
    "inferenceservice-config holds a value OME's controller refuses, so its manager does not start",
    "OME controllerconfig/configmap.go",
)
CONTROLLER_CONFIG_UNKNOWN = _code(
    "controller-config-unknown",
    WARNING,
    "inferenceservice-config holds a key or field OME's controller does not read",
    "OME controllerconfig/configmap.go",
)
CONTROLLER_CONFIG_POD_ONLY = _code(
    "controller-config-pod-only",
    INFO,
    "an inferenceservice-config key read only by OME's pod webhook, which does not shape Deployments",
    "OME webhook/admission/pod/mutator.go",
)
SERVERLESS_DEFAULT = _code(
    "serverless-default",
    INFO,
    "the InferenceService-level mode resolves to Serverless, which does not change component workloads",
    "OME utils/deployment.go",
)
ADMISSION_DENIED = _code(
    "admission-denied",
    ERROR,
    "the defaulting webhook refuses the InferenceService (spec.predictor names no model)",
    "OME isvc/inference_service_defaults.go",
)
INGRESS_ERROR = _code(
    "IngressError", ERROR, "a host or the ingress strategy OME cannot build", "OME reconcilers/ingress"
)
GATEWAY_API_UNSUPPORTED = _code(
    "gateway-api-unsupported",
    ERROR,
    "enableGatewayAPI: OME's HTTPRoute path panics or never builds working routes",
    "OME ingress/builders/httproute_builder.go",
)
SERVERLESS_INGRESS = _code(
    "serverless-ingress",
    INFO,
    "ingress for a Serverless entry component is an Istio VirtualService, which is not rendered",
    "OME ingress/strategies/serverless_strategy.go",
)
ACCELERATOR_CLASS_ERROR = _code(
    "AcceleratorClassError",
    ERROR,
    "the AcceleratorClass a component names does not exist",
    "OME event AcceleratorClassError",
)
ACCELERATOR_POLICY_NOT_EMULATED = _code(
    "accelerator-policy-not-emulated",
    ERROR,
    "an accelerator policy choice omerender cannot decide (a top tie among 13+ candidates, or a refused value)",
    "OME acceleratorclassselector",
)
ACCELERATOR_CLASS = _code("accelerator-class", INFO, "the AcceleratorClass a component runs on", "OME selector.go")
ACCELERATOR_PARTIAL = _code(
    "accelerator-partial",
    WARNING,
    "part of an acceleratorConfig omerender does not apply (tensorParallelismOverride)",
    "OME components/base.go",
)
FINE_TUNED_WEIGHT_ERROR = _code(
    "FineTunedWeightError",
    ERROR,
    "the FineTunedWeights are stacked, or one is unnamed or lacks configuration",
    "OME components/base.go ReconcileFineTunedWeights",
)
FINE_TUNED_ADAPTER = _code(
    "fine-tuned-adapter",
    INFO,
    "the fine-tuned-adapter init container is added to Pods by OME's webhook, not to the Deployment",
    "OME webhook/admission/pod/fine_tuned_adapter_injector.go",
)
FINE_TUNED_NO_STRATEGY = _code(
    "fine-tuned-no-strategy",
    WARNING,
    "a FineTunedWeight without hyperParameters.strategy leaves the engine without annotations",
    "OME components/base.go ProcessBaseAnnotations",
)

# Kubernetes rejections of merged or rendered objects.
REQUEST_ABOVE_LIMIT = _code("request-above-limit", ERROR, "a resource request above its limit", "Kubernetes")
MERGED_TWO_KINDS = _code(
    "merged-two-kinds", ERROR, "a merge leaves a volume, env var or probe with two kinds of source", "Kubernetes"
)
DUPLICATE_CONTAINER = _code("duplicate-container", ERROR, "two containers with one name in a pod", "Kubernetes")
DUPLICATE_VOLUME = _code("duplicate-volume", ERROR, "two volumes with one name in a pod", "Kubernetes")
DUPLICATE_PORT = _code("duplicate-port", ERROR, "two ports with one name or number in a container", "Kubernetes")
UNDEFINED_ENV_REF = _code("undefined-env-ref", WARNING, "a $(VAR) no env entry defines", "Kubernetes")
KUBE_SCHEMA = _code("kube-schema", ERROR, "a rendered object fails its Kubernetes schema", "Kubernetes OpenAPI")

# Lifecycle.
LOCK_INVALID = _code("lock-invalid", ERROR, "omerender.lock cannot be read or used")
RUNTIME_NOT_LOCKED = _code("runtime-not-locked", WARNING, "an InferenceService with no entry in the lock")
LOCK_NOT_READ = _code(
    "lock-not-read", WARNING, "an omerender.lock beside InferenceServices of the build that the build does not read"
)
RUNTIME_ROLLOUT = _code("runtime-rollout", INFO, "an InferenceService that follows its live runtime rolls out")

# Output.
DUPLICATE_OUTPUT = _code("duplicate-output", ERROR, "two emitted objects share one identity")
FLUX_SUBSTITUTION = _code("flux-substitution", WARNING, "a ${...} Flux's post-build substitution would change")

OUTPUT_PATH = _code(
    "output-path", ERROR, "an object whose kind, namespace or name cannot safely name an --output-dir file"
)
DUPLICATE_RENDERED = _code(
    "duplicate-rendered",
    ERROR,
    "two InferenceServices render objects with one identity",
    "OME naming (modelconfig-<last 20 characters>)",
)

# Trust: hostile or careless input (issue 10).
RUN_TOO_LARGE = _code("run-too-large", ERROR, "the inputs are over the run's budget of bytes or YAML nodes")
NO_OME_OBJECTS = _code(
    "no-ome-objects", WARNING, "an input path holds no OME object (an error with --fail-empty-input)"
)
UNKNOWN_KIND = _code("unknown-kind", ERROR, "a kind OME does not define, in an ome.io apiVersion", "OME CRDs")
INHERIT_FROM_IGNORED = _code("inherit-from-ignored", WARNING, "ome.io/inherit-from on an object that does not inherit")
INHERIT_FROM_EMPTY = _code("inherit-from-empty", WARNING, "an empty or null ome.io/inherit-from")
CLUSTER_SCOPED_NAMESPACE = _code(
    "cluster-scoped-namespace", WARNING, "a cluster-scoped object with metadata.namespace", "Kubernetes object scope"
)
MISSING_IMAGE = _code(
    "missing-image", ERROR, "a rendered container without an image", "Kubernetes API server validation"
)
APISERVER_REJECTS = _code(
    "apiserver-rejects",
    ERROR,
    "a rendered name or label value over 63 characters, or an integer outside int32",
    "Kubernetes API server validation",
)

# factor.
FACTOR_PROOF = _code(
    "factor-proof",
    ERROR,
    "factor's rewritten tree would not build, would change a merged spec or a rendered object, or would leave a new "
    "profile where a kustomization, a search path or an app's build does not read it",
)
FACTOR_AUTO_SELECT = _code(
    "factor-auto-select",
    ERROR,
    "turning auto-selected runtimes into children would take away the runtime an InferenceService gets by "
    "auto-selection",
    "spec: When the merged spec applies",
)

# Serving-aware checks (docs/serving-checks.md): what the rendered engine arguments, GPUs, probes and selectors do in
# a cluster. ``serving-checks``, .omerender.yaml exemptions and ignore-check.omerender.io annotations act on
# SERVING_CHECKS; volume-mount-undefined is the API server's rule and cannot be silenced.
VOLUME_MOUNT_UNDEFINED = _code(
    "volume-mount-undefined",
    ERROR,
    "a container mounts a volume its pod template does not define (LeaderWorkerSet leader and worker apart)",
    "Kubernetes API server validation",
)
GPU_PARALLELISM = _code(
    "gpu-parallelism",
    ERROR,
    "the GPUs an engine's parallelism starts differ from the pod's GPU limit, or --nnodes from the group size",
    "SGLang server_args.py, vLLM arg_utils.py",
)
TP_HEADS = _code(
    "tp-heads",
    ERROR,
    "an engine's attention tensor parallelism does not divide the model's attention heads, or its KV heads evenly",
    "vLLM ModelConfig.verify_with_parallel_config; vLLM and SGLang QKVParallelLinear",
)
PROBE_TARGET = _code(
    "probe-target",
    ERROR,
    "a probe on a port the server does not listen on, or on a path the engine does not serve",
    "SGLang, vLLM and SGLang router HTTP servers",
)
ROUTER_DISCOVERY = _code(
    "router-discovery",
    ERROR,
    "a router selector that matches no engine pod, or LeaderWorkerSet workers, or the wrong discovery port",
    "SGLang router service discovery; OME external_service_reconciler.go",
)
PD_PAIRING = _code(
    "pd-pairing",
    ERROR,
    "a prefill engine without a decode-mode decoder or a --pd-disaggregation router, or the reverse",
    "SGLang disaggregation; OME utils/merging.go",
)
SHM_MISSING = _code(
    "shm-missing",
    WARNING,
    "a multi-GPU or multi-node engine without hostIPC or a /dev/shm volume (NCCL needs more than 64 MiB)",
    "NCCL shared memory",
)
SERVED_MODEL_NAME = _code(
    "served-model-name",
    WARNING,
    "an engine's --served-model-name names the storage repository of another model in the inputs",
    "SGLang and vLLM --served-model-name",
)
GPU_MEMORY_FIT = _code(
    "gpu-memory-fit",
    ERROR,
    "a model's weights, split over the engine's tensor and pipeline parallelism, exceed the GPU memory it may use",
    "SGLang --mem-fraction-static, vLLM --gpu-memory-utilization",
)
IGNORE_CHECK = _code(
    "ignore-check",
    WARNING,
    "an ignore-check.omerender.io annotation without a reason, or naming no check it can silence",
)
SERVING_CHECKS = frozenset(
    {GPU_PARALLELISM, TP_HEADS, PROBE_TARGET, ROUTER_DISCOVERY, PD_PAIRING, SHM_MISSING, SERVED_MODEL_NAME}
    | {GPU_MEMORY_FIT}
)
UNSILENCEABLE = frozenset({VOLUME_MOUNT_UNDEFINED})

FALLBACK = _code("omerender", ERROR, "a finding without a more specific code")


def describe(code: str) -> CodeInfo:
    """The catalogue entry for ``code``; an unknown code (only tests write those) gets a generic one."""
    return CATALOGUE.get(code) or CodeInfo(code, ERROR, code, "omerender")


CODE_DOCS_URL = DOCS_URL + "codes.md"
"""The page that documents every code (docs/codes.md, made by ``markdown_reference``): one section each."""


def anchor(code: str) -> str:
    """The fragment of ``code``'s section in docs/codes.md: its heading as GitHub makes an anchor of it."""
    return code.lower()


def help_uri(code: str) -> str:
    """Where ``code`` is documented: the one URL scheme every report uses (SARIF's ``helpUri``)."""
    return f"{CODE_DOCS_URL}#{anchor(code)}"


def full_description(code: str) -> str:
    """A sentence or two on ``code``: what it finds, its usual severity, and what it mirrors."""
    info = describe(code)
    return f"{info.summary[:1].upper()}{info.summary[1:]}. Reported as {info.severity}; mirrors {info.mirrors}."


def markdown_reference() -> str:
    """docs/codes.md: a table of every code, then a section per code in catalogue order, each heading the code
    itself (its anchor)."""
    lines = [
        "# Diagnostic codes",
        "",
        "<!-- Made from omerender/codes.py by omerender.codes.markdown_reference(); tests/unit/test_code_docs.py",
        "     fails when it is stale. -->",
        "",
        "Every diagnostic carries one of these codes: the text report shows it in brackets, the JSON, SARIF, JUnit",
        "and Code Quality reports carry it, and SARIF's `helpUri` links each rule to its section here. The",
        "severity shown is the one a code usually has; a few depend on settings (such as `--validate`), and an",
        "error in a runtime or model only a `--search-path` holds and nothing under the PATHs uses is a warning.",
        "",
        markdown_table(),
    ]
    for info in CATALOGUE.values():
        lines += [f"## {info.code}", "", f"**{info.severity}**: {info.summary}.", "", f"Mirrors: {info.mirrors}.", ""]
    return "\n".join(lines)


def markdown_table() -> str:
    """The table of codes at the top of docs/codes.md, one row per code in catalogue order, each linked to its
    section."""
    rows = ["| code | severity | meaning | mirrors |", "| --- | --- | --- | --- |"]
    rows += [
        f"| [`{c.code}`](#{anchor(c.code)}) | {c.severity} | {c.summary} | {c.mirrors} |" for c in CATALOGUE.values()
    ]
    return "\n".join(rows) + "\n"
