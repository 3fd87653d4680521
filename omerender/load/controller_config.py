"""OME's controller configuration: the ``inferenceservice-config`` ConfigMap, parsed and checked as OME does.

Mirrors ``pkg/controller/v1beta1/controllerconfig/configmap.go`` at OME 17b77eda: ``NewDeployConfig``
(``:162-184``), ``NewIngressConfig`` (``:107-150``) and ``NewMultiNodeProberConfig`` (``:186-200``). Each key's
value is a JSON document that Go's ``encoding/json`` reads into a struct: field names match
case-insensitively, unknown fields are ignored (omerender warns), a value of the wrong JSON type is an error.
Errors use Go's words (``omerender.load.gojson``): ``unexpected end of JSON input``, ``invalid character …``.
Without a ConfigMap in the inputs the values OME ships are used (``config/configmap/inferenceservice.yaml``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from omerender import codes
from omerender.diagnostics import ERROR, INFO, WARNING, Diagnostic, has_errors
from omerender.load.gojson import GoInt, loads
from omerender.load.obj import Obj
from omerender.ome import CONTROLLER_CONFIG_MAP

NAME = CONTROLLER_CONFIG_MAP
NAMESPACE = "ome"  # constants.OMENamespace: POD_NAMESPACE, "ome" by default
DEFAULT_DOMAIN_TEMPLATE = "{{ .Name }}.{{ .Namespace }}.{{ .IngressDomain }}"  # configmap.go:22
DEFAULT_INGRESS_DOMAIN = "example.com"  # configmap.go:23, used when a ConfigMap's ingress sets none
MODES = ("Serverless", "RawDeployment")

# JSON key -> (Go field name, Go type) of IngressConfig (configmap.go:54-70)
INGRESS_FIELDS = {
    "ingressGateway": ("IngressGateway", "string"),
    "ingressService": ("IngressServiceName", "string"),
    "localGateway": ("LocalGateway", "string"),
    "localGatewayService": ("LocalGatewayServiceName", "string"),
    "knativeLocalGatewayService": ("KnativeLocalGatewayService", "string"),
    "omeIngressGateway": ("OmeIngressGateway", "string"),
    "ingressDomain": ("IngressDomain", "string"),
    "ingressClassName": ("IngressClassName", "*string"),
    "additionalIngressDomains": ("AdditionalIngressDomains", "*[]string"),
    "domainTemplate": ("DomainTemplate", "string"),
    "urlScheme": ("UrlScheme", "string"),
    "disableIstioVirtualHost": ("DisableIstioVirtualHost", "bool"),
    "pathTemplate": ("PathTemplate", "string"),
    "disableIngressCreation": ("DisableIngressCreation", "bool"),
    "enableGatewayAPI": ("EnableGatewayAPI", "bool"),
}
DEPLOY_FIELDS = {"defaultDeploymentMode": ("DefaultDeploymentMode", "string")}
PROBER_FIELDS = {
    **{
        k: (k[0].upper() + k[1:], "string") for k in ("image", "cpuRequest", "memoryRequest", "cpuLimit", "memoryLimit")
    },
    **{
        k: (k[0].upper() + k[1:], "int32")
        for k in (
            "startupFailureThreshold",
            "startupPeriodSeconds",
            "startupInitialDelaySeconds",
            "startupTimeoutSeconds",
            "unavailableThresholdSeconds",
        )
    },
}
READ_BY_CONTROLLER = ("deploy", "ingress", "multinodeProber")
POD_WEBHOOK_KEYS = ("metricsAggregator", "modelInit", "fineTunedAdapter", "servingSidecar")


@dataclass
class IngressConfig:
    ingress_gateway: str = "knative-serving/knative-ingress-gateway"
    ingress_service: str = "istio-ingressgateway.istio-system.svc.cluster.local"
    ome_ingress_gateway: str = ""
    ingress_domain: str = "svc.cluster.local"
    ingress_class_name: str | None = "istio"
    additional_domains: list[str] | None = None
    domain_template: str = DEFAULT_DOMAIN_TEMPLATE
    url_scheme: str = "http"
    path_template: str = ""
    disable_creation: bool = True
    enable_gateway_api: bool = False


@dataclass
class ControllerConfig:
    """What the controller reads; ``source`` is the ConfigMap it came from (``None``: OME's shipped one)."""

    default_mode: str = "RawDeployment"
    ingress: IngressConfig = field(default_factory=IngressConfig)
    source: Obj | None = None


def _json_type(value: Any) -> str:
    """The JSON kind Go's ``UnmarshalTypeError`` names."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _type_error(item: Any, go_type: str) -> tuple[str, str] | None:
    """(JSON value, Go type) of the ``UnmarshalTypeError`` decoding ``item`` into ``go_type`` gives, if any."""
    if go_type in ("string", "*string"):
        return None if isinstance(item, str) else (_json_type(item), "string")
    if go_type == "bool":
        return None if isinstance(item, bool) else (_json_type(item), "bool")
    if go_type == "int32":
        if isinstance(item, bool) or not isinstance(item, (int, float)):
            return _json_type(item), "int32"
        if isinstance(item, GoInt) and -(2**31) <= item < 2**31:
            return None
        return f"number {getattr(item, 'raw', item)}", "int32"  # strconv.ParseInt failed or overflowed
    if not isinstance(item, list):  # *[]string
        return _json_type(item), "[]string"
    for element in item:  # each element is decoded into a string
        if element is not None and not isinstance(element, str):
            return _json_type(element), "string"
    return None


def _decode(
    obj: Obj,
    key: str,
    struct: str,
    fields: dict[str, tuple[str, str]],
    problems: list[Diagnostic],
    prefix: str,
    null: str | None = None,
) -> dict[str, Any] | None:
    """The key's JSON read into ``fields`` as Go's json.Unmarshal would, or ``None`` after an error.

    ``null``: what OME does with a JSON ``null``, which sets its pointer to the struct to nil (``None``: nothing).
    """
    text = (obj.body.get("data") or {}).get(key)
    value, syntax = loads(str(text))
    if syntax is not None:
        problems.append(obj.diag(ERROR, f"{prefix}{syntax}", "data", key, code=codes.CONTROLLER_CONFIG))
        return None
    if value is None:
        if null is not None:
            problems.append(obj.diag(ERROR, null, "data", key, code=codes.OME_PANIC))
            return None
        return {}
    if not isinstance(value, dict):
        message = f"{prefix}json: cannot unmarshal {_json_type(value)} into Go value of type controllerconfig.{struct}"
        problems.append(obj.diag(ERROR, message, "data", key, code=codes.CONTROLLER_CONFIG))
        return None
    lowered = {k.lower(): k for k in fields}
    out: dict[str, Any] = {}
    first_error = ""
    for name, item in value.items():
        canonical = name if name in fields else lowered.get(str(name).lower())
        if canonical is None:
            message = f"{key}: unknown field {name!r}, which OME's controller ignores (known: {', '.join(fields)})"
            problems.append(obj.diag(WARNING, message, "data", key, code=codes.CONTROLLER_CONFIG_UNKNOWN))
            continue
        _, go_type = fields[canonical]
        if item is None and go_type.startswith("*"):
            out[canonical] = None
            continue
        if item is None:
            continue
        wrong = _type_error(item, go_type)
        if wrong is not None:  # Go decodes on and returns the first type error at the end
            first_error = first_error or (
                f"{prefix}json: cannot unmarshal {wrong[0]} into Go struct field {struct}.{canonical} of type "
                f"{wrong[1]}"
            )
            continue
        out[canonical] = item
    if first_error:
        problems.append(obj.diag(ERROR, first_error, "data", key, code=codes.CONTROLLER_CONFIG))
        return None
    return out


_NULL = (
    "data.{key} is JSON null: OME's {func} unmarshals it into a nil *{struct} and reads {field} through it "
    "(configmap.go:{lines}), so the controller manager crashes at start (nil-pointer panic)"
)


def _ingress(obj: Obj, problems: list[Diagnostic]) -> IngressConfig | None:
    data = obj.body.get("data") or {}
    config = IngressConfig(
        ingress_gateway="",
        ingress_service="",
        ingress_domain="",
        ingress_class_name=None,
        domain_template="",
        url_scheme="",
        disable_creation=False,
    )
    if "ingress" in data:
        values = _decode(
            obj,
            "ingress",
            "IngressConfig",
            INGRESS_FIELDS,
            problems,
            "unable to parse ingress config json: ",
            null=_NULL.format(
                key="ingress", func="NewIngressConfig", struct="IngressConfig", field="IngressGateway", lines="114-119"
            ),
        )
        if values is None:
            return None
        config.ingress_gateway = values.get("ingressGateway", "")
        config.ingress_service = values.get("ingressService", "")
        config.ome_ingress_gateway = values.get("omeIngressGateway", "")
        config.ingress_domain = values.get("ingressDomain", "")
        config.ingress_class_name = values.get("ingressClassName")
        config.additional_domains = values.get("additionalIngressDomains")
        config.domain_template = values.get("domainTemplate", "")
        config.url_scheme = values.get("urlScheme", "")
        config.path_template = values.get("pathTemplate", "")
        config.disable_creation = values.get("disableIngressCreation", False)
        config.enable_gateway_api = values.get("enableGatewayAPI", False)
        if not config.ingress_gateway or not config.ingress_service:
            message = "invalid ingress config - ingressGateway and ingressService are required"
            problems.append(obj.diag(ERROR, message, "data", "ingress", code=codes.CONTROLLER_CONFIG))
            return None
        if config.path_template:
            if config.path_template.count("{{") != config.path_template.count("}}"):
                message = "invalid ingress config, unable to parse pathTemplate: unclosed action"
                problems.append(obj.diag(ERROR, message, "data", "ingress", code=codes.CONTROLLER_CONFIG))
                return None
            if not config.ingress_domain:
                message = "invalid ingress config - ingressDomain is required if pathTemplate is given"
                problems.append(obj.diag(ERROR, message, "data", "ingress", code=codes.CONTROLLER_CONFIG))
                return None
    config.domain_template = config.domain_template or DEFAULT_DOMAIN_TEMPLATE
    config.ingress_domain = config.ingress_domain or DEFAULT_INGRESS_DOMAIN
    config.url_scheme = config.url_scheme or "http"
    return config


def _deploy(obj: Obj, problems: list[Diagnostic]) -> str | None:
    data = obj.body.get("data") or {}
    if "deploy" not in data:
        return ""  # no default: the webhook writes no mode annotation
    null = _NULL.format(
        key="deploy", func="NewDeployConfig", struct="DeployConfig", field="DefaultDeploymentMode", lines="169-174"
    )
    values = _decode(
        obj, "deploy", "DeployConfig", DEPLOY_FIELDS, problems, "unable to parse deploy config json: ", null=null
    )
    if values is None:
        return None
    mode = str(values.get("defaultDeploymentMode", ""))
    if not mode:
        problems.append(
            obj.diag(
                ERROR,
                "invalid deploy config, defaultDeploymentMode is required",
                "data",
                "deploy",
                code=codes.CONTROLLER_CONFIG,
            )
        )
        return None
    if mode not in MODES:
        message = "invalid deployment mode. Supported modes are Serverless and RawDeployment"
        problems.append(obj.diag(ERROR, message, "data", "deploy", code=codes.CONTROLLER_CONFIG))
        return None
    return mode


def parse(obj: Obj) -> tuple[ControllerConfig | None, list[Diagnostic]]:
    """The configuration in ``obj``, or ``None`` when OME's controller would refuse it (errors say why)."""
    problems: list[Diagnostic] = []
    data = obj.body.get("data")
    if data is not None and not isinstance(data, dict):
        problems.append(obj.diag(ERROR, "data must be a map of strings", "data", code=codes.CONTROLLER_CONFIG))
        return None, problems
    data = data or {}
    for key in sorted(data):
        if not isinstance(data[key], str):
            message = f"data.{key} must be a string (a JSON document), as in every ConfigMap"
            problems.append(obj.diag(ERROR, message, "data", key, code=codes.CONTROLLER_CONFIG))
            return None, problems
        if key in READ_BY_CONTROLLER:
            continue
        if key in POD_WEBHOOK_KEYS:
            message = (
                f"{key} is read by OME's pod webhook when Pods are created, not by the controller; omerender renders "
                "Deployments, so it has no effect here"
            )
            problems.append(obj.diag(INFO, message, "data", key, code=codes.CONTROLLER_CONFIG_POD_ONLY))
        else:
            message = f"unknown key {key}: OME's controller does not read it (it reads {', '.join(READ_BY_CONTROLLER)})"
            problems.append(obj.diag(WARNING, message, "data", key, code=codes.CONTROLLER_CONFIG_UNKNOWN))
    mode = _deploy(obj, problems)
    ingress = _ingress(obj, problems)
    if "multinodeProber" in data:
        _decode(
            obj,
            "multinodeProber",
            "MultiNodeProberConfig",
            PROBER_FIELDS,
            problems,
            "unable to unmarshall multinodeProber json string due to ",
        )
    if mode is None or ingress is None or has_errors(problems):
        return None, problems
    return ControllerConfig(mode, ingress, obj), problems


def find(objects: list[Obj], default_namespace: str) -> list[Obj]:
    """The ``inferenceservice-config`` ConfigMaps among ``objects`` in OME's namespace.

    A ConfigMap without ``metadata.namespace`` is in ``default_namespace``, as kubectl would place it.
    """
    out = []
    for obj in objects:
        if obj.kind != "ConfigMap" or obj.body.get("apiVersion") != "v1" or obj.name != NAME:
            continue
        given = (obj.body.get("metadata") or {}).get("namespace")
        if (given if isinstance(given, str) and given else default_namespace) == NAMESPACE:
            out.append(obj)
    return out


def select(
    objects: list[Obj], path: str | None, max_file_bytes: int, namespace: str
) -> tuple[ControllerConfig, list[Diagnostic]]:
    """The configuration from ``--controller-config`` ``path`` if given, else from ``objects``, else OME's shipped one.

    With errors the shipped configuration is returned beside them; the errors fail the build, as a refused
    configuration stops OME's controller manager at start (``cmd/manager/main.go:202-211``).
    """
    from omerender.load.bounded import Budget
    from omerender.load.reader import load

    problems: list[Diagnostic] = []
    if path is not None:
        loaded = load([path], NAMESPACE, Budget(max_file_bytes=max_file_bytes))
        problems.extend(loaded.diagnostics)
        found = find(loaded.objects, NAMESPACE)
        if not found and not loaded.diagnostics:
            message = f"--controller-config: no ConfigMap {NAME} (namespace {NAMESPACE}) in {path}"
            problems.append(Diagnostic(path, 1, 1, ERROR, message, codes.CONTROLLER_CONFIG))
    else:
        found = find(objects, namespace)
    if len(found) > 1:
        for extra in found[1:]:
            message = f"a second ConfigMap {NAMESPACE}/{NAME}; OME reads one (first at {found[0].path})"
            problems.append(extra.diag(ERROR, message, "metadata", "name", code=codes.CONTROLLER_CONFIG))
    if not found or problems:
        return ControllerConfig(), problems
    config, found_problems = parse(found[0])
    return config or ControllerConfig(), problems + found_problems
