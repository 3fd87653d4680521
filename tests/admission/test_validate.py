"""admission.validate: what the API server would store, and unknown fields per --validate (kubectl's)."""

from __future__ import annotations

from stage_objects import API, objects, runtime

from omerender import codes
from omerender.admission.validate import check_inputs
from omerender.constants import ValidationMode
from omerender.diagnostics import ERROR, WARNING


def _with_unknown_field() -> dict:
    body = runtime("rt", {"supportedModelFormats": []})
    body["spec"]["notAField"] = 1
    return body


def test_an_unknown_field_is_an_error_when_strict_a_warning_when_warn_and_silent_when_ignored() -> None:
    seen = {}
    for mode in ValidationMode:
        checked = check_inputs(objects(_with_unknown_field()), mode=mode)
        seen[mode] = [(d.severity, d.code) for d in checked.diagnostics]
        (kept,) = checked.kept  # stored either way: the API server drops the field (or refuses under strict)
        assert "notAField" not in kept.spec
        assert not checked.rejected
    assert seen == {
        ValidationMode.STRICT: [(ERROR, codes.UNKNOWN_FIELD)],
        ValidationMode.WARN: [(WARNING, codes.UNKNOWN_FIELD)],
        ValidationMode.IGNORE: [],
    }


def test_a_wrong_type_is_rejected_whatever_the_mode_and_located_at_the_field() -> None:
    body = runtime("rt", {"disabled": "yes"})
    for mode in ValidationMode:
        checked = check_inputs(objects(body), mode=mode)
        assert not checked.kept
        (problem,) = checked.rejected.values()
        assert problem.severity == ERROR and "disabled" in problem.json_path


def test_objects_that_are_not_omes_pass_untouched() -> None:
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"x": {"y": 1}}}
    checked = check_inputs(objects(config_map))
    assert checked.diagnostics == [] and [o.body for o in checked.kept] == [config_map]


def test_an_invalid_name_is_refused() -> None:
    body = {"apiVersion": API, "kind": "ClusterBaseModel", "metadata": {"name": "Not_A_Name"}, "spec": {}}
    checked = check_inputs(objects(body))
    assert not checked.kept and checked.rejected
