"""``commands.factor``: its refusals, the profile names, and the journal flow of ``--in-place``, through ``run()``."""

from __future__ import annotations

from pathlib import Path

import pytest
from factor_fleet import build_output, fleet, killed_after_commit, listing
from use_cases import factor, factored, said

from omerender.commands.factor import Choices, profile_names
from omerender.commands.outcome import UsageProblem, Verdict
from omerender.errors import WriteError

IN_PLACE, DRY_RUN = Choices(in_place=True), Choices(dry_run=True)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return fleet(tmp_path / "tree")


def _refused(outcome, message: str) -> None:
    assert outcome.verdict is Verdict.USAGE and outcome.problem is not None, said(outcome)
    assert outcome.problem.message == message
    assert outcome.diagnostics == [] and (outcome.payload is None or outcome.payload.result is None)


@pytest.mark.parametrize(
    ("choices", "given"),
    [(Choices(), {}), (Choices(in_place=True, dry_run=True), {}), (IN_PLACE, {"output_dir": "out"})],
)
def test_exactly_one_place_to_write(tree: Path, choices: Choices, given: dict[str, str]) -> None:
    _refused(factor(tree, choices, **given), "give exactly one of --output-dir DIR, --in-place and --dry-run")


def test_stdin_and_a_force_without_a_folder_are_refused(tree: Path) -> None:
    _refused(factor(["-"], DRY_RUN), "factor rewrites files, so it cannot read stdin ('-')")
    _refused(factor(tree, Choices(in_place=True, force=True)), "--force goes with --output-dir")


def test_an_output_folder_inside_the_input_or_not_empty_is_refused(tree: Path, tmp_path: Path) -> None:
    inside = factor(tree, Choices(), output_dir=str(tree / "out"))
    assert inside.verdict is Verdict.USAGE and inside.problem is not None and "--output-dir" in inside.problem.message
    full = tmp_path / "full"
    full.mkdir()
    (full / "kept.txt").write_text("x")
    _refused(factor(tree, Choices(), output_dir=str(full)), f"{full} is not empty; use --force to replace it")
    assert (full / "kept.txt").read_text() == "x"
    (tmp_path / "a" / "x").mkdir(parents=True)
    (tmp_path / "b" / "x").mkdir(parents=True)
    twins = [tmp_path / "a" / "x", tmp_path / "b" / "x"]
    _refused(
        factor(twins, Choices(), output_dir=str(tmp_path / "out")),
        f"with --output-dir, PATHS must have distinct names ({twins[0]}, {twins[1]})",
    )


def test_profile_names_are_default_equals_a_dns_name() -> None:
    assert profile_names(["sglang=fast", "vllm-profile=slow-profile"]) == {"sglang": "fast", "vllm": "slow"}
    for bad in ("sglang", "=x", "sglang=Not_DNS"):
        problem = profile_names([bad])
        assert isinstance(problem, UsageProblem) and problem.option == "--profile-name"
        assert problem.message == f"{bad!r}: want DEFAULT=NAME, NAME a DNS subdomain"


def test_a_bad_profile_name_or_kube_version_reads_nothing(tree: Path) -> None:
    _refused(factor(tree, Choices(dry_run=True, profile_names=("x",))), "'x': want DEFAULT=NAME, NAME a DNS subdomain")
    bad = factor(tree, DRY_RUN, kube_version="not-a-version")
    assert bad.verdict is Verdict.USAGE and bad.problem is not None and bad.problem.option == "--kube-version"


def test_a_dry_run_writes_nothing_and_names_a_journal_a_killed_run_left(tree: Path) -> None:
    before = listing(tree)
    result = factored(factor(tree, DRY_RUN))
    assert "profiles/sglang-profile.yaml" in {Path(p).relative_to(tree).as_posix() for p in result.files}
    assert listing(tree) == before
    journal = killed_after_commit(fleet(tree.parent / "killed"))
    outcome = factor(journal.parent, DRY_RUN)
    assert outcome.verdict is Verdict.OK and outcome.payload is not None
    assert [n.line() for n in outcome.payload.before] == [
        f"omerender: warning: {journal}: a killed factor --in-place left its journal; factor --in-place finishes it "
        "(once it has checked that it is this tree's)"
    ]
    assert journal.is_dir()  # only --in-place finishes it


def test_output_dir_mirrors_the_tree_with_the_change(tree: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    factored(factor(tree, Choices(), output_dir=str(out)))
    assert (out / "profiles" / "sglang-profile.yaml").is_file() and (out / "model.yaml").is_file()
    assert build_output(out) == build_output(tree)
    assert not (tree / "profiles").exists()


def test_in_place_finishes_a_killed_runs_journal_first_then_factors(tree: Path) -> None:
    built = build_output(tree)
    journal = killed_after_commit(tree)
    outcome = factor(tree, IN_PLACE)
    assert outcome.verdict is Verdict.OK and outcome.payload is not None, said(outcome)
    assert [n.line() for n in outcome.payload.before] == [
        "omerender: finished the rewrite a killed factor --in-place had begun"
    ]
    assert not journal.exists() and build_output(tree) == built


def test_in_place_writes_the_change_and_says_a_refused_write_after_the_diagnostics(tree: Path) -> None:
    (tree / "profiles").write_text("notes, not a folder\n", encoding="utf-8")
    outcome = factor(tree, IN_PLACE)
    assert outcome.verdict is Verdict.FINDINGS and outcome.payload is not None
    failure = outcome.payload.failure
    assert isinstance(failure, WriteError) and outcome.payload.result is not None
    last = said(outcome).splitlines()[-1]
    assert last.startswith(f"omerender: error: {tree / 'profiles'}: not a folder, so factor cannot write")
    (tree / "profiles").unlink()
    built = build_output(tree)
    factored(factor(tree, IN_PLACE))
    assert (tree / "profiles" / "sglang-profile.yaml").is_file() and build_output(tree) == built


def test_a_failed_proof_or_plan_writes_nothing(tree: Path) -> None:
    (tree / "broken.yaml").write_text("a: {b\n")
    before = listing(tree)
    outcome = factor(tree, IN_PLACE)
    assert outcome.verdict is Verdict.FINDINGS and outcome.payload is not None
    assert outcome.payload.failure is None and "yaml-syntax" in {d.code for d in outcome.diagnostics}
    assert listing(tree) == before
