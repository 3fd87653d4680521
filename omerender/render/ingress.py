"""Hosts and the networking.k8s.io/v1 Ingress OME's controller builds when ingress creation is enabled.

Mirrors OME 17b77eda: ``ResolveIngressConfig`` (``inferenceservice/utils/annotations.go:93-149``),
``DefaultDomainService.GenerateDomainName`` (``reconcilers/ingress/services/domain_service.go:66-114``) and
``IngressBuilder`` (``reconcilers/ingress/builders/ingress_builder.go:51-258``). OME builds the Ingress only once
the entry component reports Ready; offline omerender renders the Ingress as it is then.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from typing import Any

from omerender.load.controller_config import IngressConfig
from omerender.names import DNS_1123_LABEL, DNS_1123_SUBDOMAIN, truncate_name

PORT = 8080  # constants.CommonISVCPort
_ACTION = re.compile(r"\{\{(.*?)\}\}", re.S)
_FIELD = re.compile(r"^\s*\.(Name|Namespace|IngressDomain)\s*$")
_DOTTED = re.compile(r"^\s*\.(Annotations|Labels)\.([A-Za-z_][A-Za-z0-9_]*)\s*$")
_INDEX = re.compile(r'^\s*index\s+\.(Annotations|Labels)\s+(?:"((?:[^"\\]|\\.)*)"|`([^`]*)`)\s*$')
NO_VALUE = "<no value>"  # what text/template prints for a missing map key
SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "
    "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)


class HostError(ValueError):
    """OME's error text for a host it cannot build."""


_OVERRIDES = (
    "ome.io/ingress-domain-template",
    "ome.io/ingress-domain",
    "ome.io/ingress-url-scheme",
    "ome.io/ingress-path-template",
    "ome.io/ingress-additional-domains",
    "ome.io/ingress-disable-creation",
)


def resolve(config: IngressConfig, annotations: dict[str, Any]) -> IngressConfig:
    """``ResolveIngressConfig``: the per-InferenceService annotation overrides (``config`` itself without one;
    callers only read the result)."""
    if not any(key in annotations for key in _OVERRIDES):
        return config
    out = replace(config)
    if annotations.get("ome.io/ingress-domain-template"):
        out.domain_template = str(annotations["ome.io/ingress-domain-template"])
    if annotations.get("ome.io/ingress-domain"):
        out.ingress_domain = str(annotations["ome.io/ingress-domain"])
    if annotations.get("ome.io/ingress-url-scheme"):
        out.url_scheme = str(annotations["ome.io/ingress-url-scheme"])
    if "ome.io/ingress-path-template" in annotations:
        out.path_template = str(annotations["ome.io/ingress-path-template"])
    if annotations.get("ome.io/ingress-additional-domains"):
        parts = str(annotations["ome.io/ingress-additional-domains"]).split(",")
        out.additional_domains = [p.strip() for p in parts]
    if "ome.io/ingress-disable-creation" in annotations:
        out.disable_creation = annotations["ome.io/ingress-disable-creation"] == "true"
    return out


_Piece = tuple[str, str, str]  # (text before, action kind, its argument); kind "" for the text after the last action


@lru_cache(maxsize=256)
def _parse(template: str) -> tuple[_Piece, ...]:
    """The domain template's literal text and actions, parsed once per template; raises ``HostError``."""
    pieces: list[_Piece] = []
    pos = 0
    for match in _ACTION.finditer(template):
        before = template[pos : match.start()]
        pos = match.end()
        action = match.group(1)
        if m := _FIELD.match(action):
            pieces.append((before, "field", m.group(1)))
        elif m := _DOTTED.match(action):
            pieces.append((before, "dotted:" + m.group(1), m.group(2)))
        elif m := _INDEX.match(action):
            pieces.append((before, "index:" + m.group(1), m.group(2) if m.group(2) is not None else m.group(3)))
        else:
            raise HostError(
                f"unsupported domainTemplate action {match.group(0)!r}: omerender fills only .Name, .Namespace, "
                ".IngressDomain and .Annotations/.Labels lookups, and never evaluates templates"
            )
    rest = template[pos:]
    if "{{" in rest:
        raise HostError("error rendering the domain template: unclosed action")
    pieces.append((rest, "", ""))
    return tuple(pieces)


def _fill(template: str, values: dict[str, Any]) -> str:
    """The domain template filled (text/template: nothing escaped); only field and map lookups are supported."""
    out: list[str] = []
    for before, kind, arg in _parse(template):
        out.append(before)
        if kind == "field":
            out.append(str(values[arg]))
        elif kind.startswith("dotted:"):
            table = values[kind[7:]] or {}
            out.append(str(table[arg]) if arg in table else NO_VALUE)
        elif kind.startswith("index:"):
            out.append(str((values[kind[6:]] or {}).get(arg, "")))
    return "".join(out)


def _fqdn_error(host: str) -> str | None:
    """``validation.IsFullyQualifiedDomainName`` as an aggregated error string, or ``None``."""
    if not host:
        return "url: Required value"
    name = host[:-1] if host.endswith(".") else host
    problems = []
    if len(name) > 253:
        problems.append("must be no more than 253 characters")
    if not DNS_1123_SUBDOMAIN.fullmatch(name):
        problems.append(SUBDOMAIN_MSG)
    if problems:
        return f'url: Invalid value: "{name}": {",".join(problems)}'
    if len(name.split(".")) < 2:
        return f'url: Invalid value: "{name}": should be a domain with at least two segments separated by dots'
    for label in name.split("."):
        label_problems = []
        if len(label) > 63:
            label_problems.append("must be no more than 63 characters")
        if not DNS_1123_LABEL.fullmatch(label):
            label_problems.append(LABEL_MSG)
        if label_problems:
            return f'url: Invalid value: "{label}": {",".join(label_problems)}'
    return None


def domain_name(name: str, namespace: str, meta: dict[str, Any], config: IngressConfig) -> str:
    """``GenerateDomainName`` for ``name`` with the annotations and labels of ``meta``; raises ``HostError``."""
    annotations = meta.get("annotations") or {}
    effective = resolve(config, annotations)
    values = {
        "Name": truncate_name(name, 63),
        "Namespace": namespace,
        "IngressDomain": effective.ingress_domain,
        "Annotations": annotations,
        "Labels": meta.get("labels") or {},
    }
    host = _fill(effective.domain_template, values)
    problem = _fqdn_error(host)
    if problem is not None:
        raise HostError(f"invalid domain name {host!r}: {problem}".replace(f"{host!r}", f'"{host}"', 1))
    return host


def _rule(host: str, service: str) -> dict[str, Any]:
    backend = {"service": {"name": service, "port": {"number": PORT}}}
    return {"host": host, "http": {"paths": [{"path": "/", "pathType": "Prefix", "backend": backend}]}}


def kube_ingress(name: str, namespace: str, body: dict[str, Any], config: IngressConfig) -> dict[str, Any]:
    """The Ingress for InferenceService ``body``; raises ``HostError`` with OME's wrapped message."""
    meta = body.get("metadata") or {}
    spec = body.get("spec") or {}
    router, decoder = spec.get("router") is not None, spec.get("decoder") is not None
    top_target = "router" if router else "engine"
    top_kind = "router" if router else ("decoder" if decoder else "engine")

    def host(component: str | None, what: str) -> str:
        try:
            return domain_name(f"{name}-{component}" if component else name, namespace, meta, config)
        except HostError as exc:
            raise HostError(
                f"fails to reconcile ingress: builder error: failed creating {what} ingress host: {exc}"
            ) from exc

    rules = [_rule(host(None, f"top level {top_kind}"), f"{name}-{top_target}")]
    parts = (
        (["router"] if router else []) + (["engine"] if router or decoder else []) + (["decoder"] if decoder else [])
    )
    rules += [_rule(host(part, part), f"{name}-{part}") for part in parts]
    ingress_spec: dict[str, Any] = {"rules": rules}
    if config.ingress_class_name is not None:
        ingress_spec["ingressClassName"] = config.ingress_class_name
    metadata: dict[str, Any] = {"name": name, "namespace": namespace}
    if meta.get("annotations"):
        metadata["annotations"] = {str(k): str(v) for k, v in meta["annotations"].items()}
    return {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": metadata, "spec": ingress_spec}
