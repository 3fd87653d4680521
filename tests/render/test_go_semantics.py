"""Pure helpers added for issue 12: goyaml.v2 numbers, OME's MergeArgs, hosts, controller config parsing."""

from __future__ import annotations

import pytest
import yaml

from omerender.load.controller_config import IngressConfig, parse
from omerender.load.gonumbers import go_scalar
from omerender.load.reader import Obj
from omerender.load.source import Source
from omerender.load.yamlio import parse_documents
from omerender.render.accelerators import merge_args
from omerender.render.ingress import HostError, domain_name, resolve
from omerender.render.placeholders import QUOTED_OPERAND, scan
from omerender.render.quantity import canonical


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1e3", "1k"),
        ("1E3", "1k"),
        ("1e+3", "1k"),
        ("12e3", "12k"),
        ("1e6", "1M"),
        ("1e9", "1G"),
        ("1.5e3", "1500"),
        ("-1e3", "-1k"),
        ("1.5e9", "1500M"),
        ("2e-3", "2m"),
        ("0o17", "15"),
        ("0x10", "16"),
        ("1e400", "10e399"),
    ],
)
def test_goyaml_numbers_then_canonical_quantity(text: str, expected: str) -> None:
    """research-12 §9.1 table (verified against sigs.k8s.io/yaml v1.4.0 and apimachinery v0.33.7)."""
    assert canonical(go_scalar(text)) == expected


def test_only_plain_scalars_in_requests_and_limits_are_reread() -> None:
    text = "r:\n  resources:\n    limits: {cpu: 1e3, memory: '1e3'}\n  env: [{name: X, value: 1e3}]\n"
    (doc,) = parse_documents(text)
    assert doc.data["r"]["resources"]["limits"] == {"cpu": 1000, "memory": "1e3"}
    assert doc.data["r"]["env"][0]["value"] == "1e3"


def test_merge_args_overrides_by_key_in_place() -> None:
    base = ["--port=8080", "--tp", "2", "--model", "x"]
    assert merge_args(base, ["--tp=4", "--new"]) == ["--port=8080", "--tp=4", "--model", "x", "--new"]
    assert merge_args(["serve \\\n--a=1 \\\n--b=2"], ["--b=3"]) == ["serve \\\n--a=1 \\\n--b=3"]


def test_quoted_index_is_omes_parse_error_and_backquoted_index_fills() -> None:
    meta = {"name": "n", "namespace": "ns", "labels": {"owner": "ml-ops"}, "annotations": {}}
    _, problems = scan('--owner={{index .Labels "owner"}}', meta)
    assert [(p.message, p.fatal, p.ome_error) for p in problems] == [(QUOTED_OPERAND, True, True)]
    assert scan("--owner={{index .Labels `owner`}}", meta) == ("--owner=ml-ops", [])


def test_domain_names_follow_the_template_and_validation() -> None:
    config = IngressConfig()
    assert domain_name("chat", "team-a", {}, config) == "chat.team-a.svc.cluster.local"
    custom = resolve(config, {"ome.io/ingress-domain-template": "{{ .Annotations.team }}.example.org"})
    with pytest.raises(HostError, match='invalid domain name "<no value>.example.org"'):
        domain_name("chat", "team-a", {}, custom)
    assert resolve(config, {"ome.io/ingress-disable-creation": "True"}).disable_creation is False


def _configmap(data: dict[str, str]) -> Obj:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "inferenceservice-config"}, "data": data}
    return Obj("cm.yaml", 0, body, Source("cm.yaml", yaml.safe_dump(body)), "ome")


def test_ingress_key_needs_gateway_and_service_and_path_template_needs_domain() -> None:
    config, problems = parse(_configmap({"ingress": '{"ingressGateway": "a/b"}'}))
    assert config is None
    assert [p.message for p in problems] == ["invalid ingress config - ingressGateway and ingressService are required"]
    both = '{"ingressGateway": "a/b", "ingressService": "s", "pathTemplate": "/{{ .Name }}"}'
    config, problems = parse(_configmap({"ingress": both}))
    assert config is None  # the check runs before ingressDomain falls back to example.com (configmap.go:126-140)
    assert [p.message for p in problems] == [
        "invalid ingress config - ingressDomain is required if pathTemplate is given"
    ]


def test_absent_keys_take_go_zero_values_then_defaults() -> None:
    config, problems = parse(_configmap({}))
    assert problems == [] and config is not None
    assert (config.default_mode, config.ingress.disable_creation, config.ingress.ingress_class_name) == (
        "",
        False,
        None,
    )
    assert config.ingress.domain_template == "{{ .Name }}.{{ .Namespace }}.{{ .IngressDomain }}"
