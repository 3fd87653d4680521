"""OME's vocabulary: the one place a kind, a component, a config field or an annotation key is declared.

Everything here mirrors OME's API (``pkg/apis/ome/v1beta1``) and the inheritance spec; modules of every
stage import it, so it imports nothing of omerender's.
"""

from __future__ import annotations

API_VERSION = "ome.io/v1beta1"

# Kinds omerender reads, and which of them are namespaced.
CLUSTER_SERVING_RUNTIME = "ClusterServingRuntime"
SERVING_RUNTIME = "ServingRuntime"
INFERENCE_SERVICE = "InferenceService"
BASE_MODEL = "BaseModel"
CLUSTER_BASE_MODEL = "ClusterBaseModel"
KINDS = (CLUSTER_SERVING_RUNTIME, SERVING_RUNTIME, INFERENCE_SERVICE, BASE_MODEL, CLUSTER_BASE_MODEL)
NAMESPACED_KINDS = frozenset({SERVING_RUNTIME, INFERENCE_SERVICE, BASE_MODEL})
RUNTIME_KINDS = (CLUSTER_SERVING_RUNTIME, SERVING_RUNTIME)
MODEL_KINDS = (CLUSTER_BASE_MODEL, BASE_MODEL)

# Components of an InferenceService, the runtime field each one's config lives in, and the webhook's
# (minReplicas, maxReplicas) defaults for it (pkg/webhook/admission/isvc defaulter).
COMPONENTS = ("engine", "decoder", "router")
CONFIG_FIELD = {"engine": "engineConfig", "decoder": "decoderConfig", "router": "routerConfig"}
REPLICA_DEFAULTS = {"engine": (1, 3), "decoder": (1, 3), "router": (1, 2)}

# Annotations.
INHERIT_FROM = "ome.io/inherit-from"
CONTROLLER_CONFIG_MAP = "inferenceservice-config"  # the ConfigMap OME's controller reads its settings from
RUNTIME_PROFILE = "ome.io/runtime-profile"
DEPLOYMENT_MODE = "ome.io/deploymentMode"
ACCELERATOR_CLASS = "ome.io/accelerator-class"
AUTOSCALER_CLASS = "ome.io/autoscalerClass"

# The inheritance chain (spec: "Limits" and "Conditions").
MAX_CHAIN_DEPTH = 5
INHERITANCE_READY = "InheritanceReady"
