"""One settings registry: every route takes each setting that changes what is rendered, by the same stem."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
import yaml

from omerender.cli import main
from omerender.constants import ValidationMode
from omerender.gitops import argocd, krm
from omerender.load import settings_file
from omerender.settings import (
    RENDERING,
    SETTINGS,
    Kind,
    Layer,
    Origin,
    Route,
    Settings,
    SettingsError,
    coerce,
    for_route,
    from_env,
    json_schema,
    resolve,
)

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "integrations" / "argocd" / "plugin.yaml"
SCHEMA = ROOT / "schemas" / "omerender-settings.schema.json"
NOT_IN_REGISTRY = {"output", "paths", "config", "origins"}  # -o per command, KRM's paths, the file, provenance
PARAMETER_TYPES = {
    Kind.PATHS: "array",
    Kind.CHOICES: "array",
    Kind.FLAG: "boolean",
    Kind.COUNT: "number",
    Kind.NUMBER: "number",
    Kind.TEXT: "string",
    Kind.PATH: "string",
    Kind.CHOICE: "string",
}


def _declared(parameter: dict[str, object]) -> str:
    if parameter.get("collectionType") == "array":
        return "array"
    return str(parameter.get("itemType", "string"))


def test_the_value_object_holds_exactly_the_registry_with_its_defaults() -> None:
    fields = {f.name: f.default for f in dataclasses.fields(Settings) if f.name not in NOT_IN_REGISTRY}
    assert fields == {spec.name: spec.default for spec in SETTINGS}


@pytest.mark.parametrize("stem", RENDERING)
def test_every_rendering_setting_is_reachable_on_every_route(stem: str) -> None:
    spec = next(s for s in SETTINGS if s.stem == stem)
    assert set(Route) <= spec.routes, f"{stem}: a route lacks it"
    options = {o for command in main.commands.values() for p in command.params for o in p.opts}
    assert f"--{stem}" in options, f"{stem}: no command-line option"
    declared = {p["name"]: p for p in yaml.safe_load(PLUGIN.read_text())["spec"]["parameters"]["static"]}
    assert stem in declared, f"{stem}: not declared in plugin.yaml"
    assert _declared(declared[stem]) == PARAMETER_TYPES[spec.kind], f"{stem}: declared with another type"
    sample = {Kind.PATHS: "a,b", Kind.CHOICES: spec.choices[:1], Kind.FLAG: "true", Kind.COUNT: "3", Kind.NUMBER: "80"}
    value = sample.get(spec.kind, spec.choices[0] if spec.choices else "1.30" if stem == "kube-version" else "x")
    parameter = {
        "name": stem,
        "array" if isinstance(value, tuple) else "string": list(value) if isinstance(value, tuple) else value,
    }
    assert stem in argocd.layers({"ARGOCD_APP_PARAMETERS": json.dumps([parameter])})[1].values
    as_text = ",".join(value) if isinstance(value, tuple) else value
    assert stem in argocd.layers({spec.argocd_env_name: as_text})[0].values, spec.argocd_env_name
    assert stem in from_env({spec.env_name: as_text}).values, spec.env_name
    assert stem in krm.layer({"kind": "ConfigMap", "data": {spec.krm_key: as_text}}).values, spec.krm_key
    assert stem in json_schema()["properties"]


def test_the_shipped_schema_is_the_registrys() -> None:
    assert json.loads(SCHEMA.read_text(encoding="utf-8")) == json_schema()


def test_the_schema_accepts_what_the_reader_accepts_and_refuses_unknown_keys() -> None:
    import jsonschema

    good = {"model-metadata": "ci/meta.yaml", "search-path": ["platform"], "validate": "warn", "max-errors": 3}
    jsonschema.validate(good, json_schema())
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"search-pth": ["x"]}, json_schema())


@pytest.mark.parametrize(
    "emit",
    [["inputs", "flattened"], "flattened, inputs", ["inputs", "passthrough"], "rendered,passthrough", ["flattened"]],
)
def test_the_schema_refuses_the_emit_combinations_the_cli_refuses(emit: list[str] | str) -> None:
    import jsonschema

    from omerender.output.emit import kinds_problem

    kinds = tuple(emit) if isinstance(emit, list) else tuple(k.strip() for k in emit.split(","))
    refused = list(jsonschema.Draft202012Validator(json_schema()).iter_errors({"emit": emit}))
    assert bool(refused) == (kinds_problem(kinds) is not None), (emit, refused)


def test_later_layers_win_and_each_value_says_where_it_came_from() -> None:
    got = resolve(
        [
            Layer(Origin.FILE, {"model-metadata": "from-file", "validate": "warn"}),
            Layer(Origin.ENV, {"validate": "ignore"}),
            Layer(Origin.CLI, {"model-metadata": "from-flag"}),
        ]
    )
    assert (got.model_metadata, got.validate, got.namespace) == ("from-flag", "ignore", "default")
    assert [got.origin(s) for s in ("model-metadata", "validate", "namespace")] == ["cli", "env", "default"]
    assert got.provenance() == ["model-metadata = from-flag (cli)", "validate = ignore (env)"]


def test_the_validation_mode_is_the_core_s_enum_whichever_route_gave_it() -> None:
    assert resolve([Layer(Origin.CLI, {"validate": "warn"})]).validate is ValidationMode.WARN
    assert Settings().validate is ValidationMode.STRICT
    assert Settings(validate="ignore").validate is ValidationMode.IGNORE  # type: ignore[arg-type]  # as click gives it


@pytest.mark.parametrize(
    ("kind_stem", "text"),
    [("max-errors", "-1"), ("max-errors", "many"), ("fail-empty-input", "maybe"), ("validate", "loose")],
)
def test_bad_text_values_name_the_setting(kind_stem: str, text: str) -> None:
    spec = next(s for s in SETTINGS if s.stem == kind_stem)
    with pytest.raises(SettingsError, match=kind_stem):
        coerce(spec, text, kind_stem)


def test_a_namespace_that_is_no_dns_label_is_refused() -> None:
    with pytest.raises(SettingsError, match="DNS-1123"):
        resolve([Layer(Origin.FILE, {"namespace": "Team_A"})])


def test_the_file_route_takes_only_long_option_names() -> None:
    stems = {s.stem for s in for_route(Route.FILE)}
    assert set(RENDERING) <= stems and "check" not in stems and "output-dir" not in stems


def test_the_settings_file_reads_paths_relative_to_itself(tmp_path: Path) -> None:
    (tmp_path / "repo" / "apps").mkdir(parents=True)
    (tmp_path / "repo" / ".git").mkdir()
    path = tmp_path / "repo" / ".omerender.yaml"
    path.write_text("model-metadata: ci/meta.yaml\nsearch-path: [platform, apps/../shared]\nmax-errors: 4\n")
    found = settings_file.find([str(tmp_path / "repo" / "apps")])
    assert found is not None and Path(found).resolve() == path
    layer, problems = settings_file.read(str(path))
    assert problems == []
    assert layer.values == {
        "model-metadata": str(tmp_path / "repo" / "ci" / "meta.yaml"),
        "search-path": (str(tmp_path / "repo" / "platform"), str(tmp_path / "repo" / "shared")),
        "max-errors": 4,
    }


def test_the_search_stops_at_the_repository_root(tmp_path: Path) -> None:
    (tmp_path / ".omerender.yaml").write_text("validate: warn\n")
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    assert settings_file.find([str(tmp_path / "repo")]) is None
    assert settings_file.find([str(tmp_path / "other")], top=str(tmp_path)) is not None


def test_unknown_keys_and_bad_values_are_located(tmp_path: Path) -> None:
    path = tmp_path / ".omerender.yaml"
    path.write_text("validate: strict\nsearch-pth: [x]\nmax-errors: lots\n")
    _, problems = settings_file.read(str(path))
    assert [(d.line, d.col, d.code) for d in problems] == [(2, 1, "settings"), (3, 13, "settings")]
    assert "unknown setting 'search-pth'" in problems[0].message and "search-path" in problems[0].message
    path.write_text("- a list\n")
    assert settings_file.read(str(path))[1][0].message.endswith("holds one mapping of settings")
