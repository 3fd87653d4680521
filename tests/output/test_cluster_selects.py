"""Auto-selection the cluster decides: an error only when something rendered depends on it."""

from __future__ import annotations

from omerender import codes
from omerender.diagnostics import ERROR, WARNING, Diagnostic
from omerender.output.emit import cluster_selects

UNDECIDED = Diagnostic(
    "isvc.yaml",
    7,
    3,
    ERROR,
    "Failed to find runtime for model m: invalid model specification: modelFormat.name: model format name is required",
    codes.RUNTIME_SELECTION_ERROR,
)
NO_MATCH = Diagnostic("isvc.yaml", 7, 3, ERROR, "Failed to find runtime for model m: no runtime found", UNDECIDED.code)


def test_only_inputs_or_passthrough_make_it_a_warning_naming_model_metadata() -> None:
    for kinds in (("inputs",), ("passthrough",), ("passthrough", "inputs")):
        [warning] = cluster_selects([UNDECIDED], kinds)
        assert warning.severity == WARNING and "--model-metadata" in warning.message
    for kinds in (("rendered",), ("inputs", "rendered"), ("flattened", "passthrough")):
        assert cluster_selects([UNDECIDED], kinds) == [UNDECIDED]


def test_the_webhooks_refusal_says_the_apply_waits_for_the_model_agent() -> None:
    refused = Diagnostic(
        UNDECIDED.path,
        7,
        3,
        ERROR,
        "OME's validating webhook refuses it: no supporting runtime found for model m and engine does not have "
        "complete runner configuration: invalid model specification: modelFormat.name: model format name is required",
        UNDECIDED.code,
    )
    [warning] = cluster_selects([refused], ("inputs",))
    assert warning.severity == WARNING
    assert "refuses the InferenceService at admission until its model agent fills" in warning.message
    [other] = cluster_selects([UNDECIDED], ("inputs",))
    assert "at admission" not in other.message and "once its model agent fills" in other.message


def test_a_selection_that_fails_on_known_fields_stays_an_error() -> None:
    assert cluster_selects([NO_MATCH], ("inputs",)) == [NO_MATCH]
