"""The pull-request recipes trust only themselves (issue 31), and tell in the CI log what failed (issue 33), on a
repository built from OME's vendored catalogue (recipe_harness.ome_scratch): the job updates only a marked comment
or note written by its own identity, never one someone else wrote; every diagnostic is a GitHub annotation on its
file and line, escaped so that a hostile file name starts no workflow command; and a failing step quotes the first
errors, inside ::stop-commands:: so nothing in them is read as a command."""

from __future__ import annotations

import json
from pathlib import Path

from recipe_harness import (
    HOSTILE_NAMES,
    MARKER,
    TEAM,
    Command,
    needs_jq,
    needs_ome,
    not_imported,
    ome_scratch,
    run_action,
    run_gitlab,
    scratch,
    workflow_commands,
)

pytestmark = [needs_jq, needs_ome]

PATHS = "apps platform"
ARGS = "--model-metadata ome:v0.1.5"  # the vendored models carry no format: OME's agent fills it in a cluster
INPUTS = {"paths": PATHS, "args": ARGS}
ISVC = f"{TEAM}/llama-3-2-3b-instruct"
BOT = "github-actions[bot]"
BROKEN = (*HOSTILE_NAMES, "runtime.yaml", "isvc.yaml")  # under apps/team-a, each with one error


def _comment(number: int, login: str, body: str) -> dict[str, object]:
    return {"id": number, "user": {"login": login, "type": "Bot" if login.endswith("[bot]") else "User"}, "body": body}


def _writes(calls: list[str]) -> list[str]:
    return [call.split(" -F ")[0] for call in calls if call.startswith("gh api --method")]


def test_a_marked_comment_by_someone_else_is_left_alone_and_the_jobs_own_is_updated(tmp_path: Path) -> None:
    work = ome_scratch(tmp_path / "repo", "bump")
    mallory = _comment(5, "mallory", f"{MARKER}\nLooks good, merge it: https://example.invalid/phish")
    chatter = _comment(6, BOT, "another workflow's comment, without the marker")
    first = run_action(
        work, tmp_path / "a", INPUTS, STUB_VIEWER=BOT, STUB_COMMENTS=json.dumps([[mallory, chatter], []])
    )
    assert [code for _, code in first.codes] == [0, 0, 0, 0], first
    assert first.outputs["exit-code"] == "1"
    body = Path(first.outputs["body-file"]).read_text()
    assert body.startswith(MARKER) and ISVC in body and "sglang-profile" in body
    assert _writes(first.calls) == ["gh api --method POST repos/acme/models/issues/7/comments"]
    assert f"no comment by {BOT} carried the marker" in first.stderr

    own = _comment(9, BOT, f"{MARKER}\nthe first run's comment")
    pages = [[mallory, chatter], [own]]  # the job's own comment after the attacker's, on the second page
    again = run_action(work, tmp_path / "b", INPUTS, STUB_VIEWER=BOT, STUB_COMMENTS=json.dumps(pages))
    assert _writes(again.calls) == ["gh api --method PATCH repos/acme/models/issues/comments/9"]
    assert f"updated comment 9 (by {BOT})" in again.stderr
    not_imported(work)


def test_the_comment_author_input_names_the_identity_and_an_unknown_token_means_github_actions(
    tmp_path: Path,
) -> None:
    """A GitHub App's token posts as <app>[bot]: comment-author says so and GitHub is not asked. When GitHub
    cannot be asked (GraphQL's viewer fails), the default token's login is assumed, and the log says so."""
    work = ome_scratch(tmp_path / "repo", "bump")
    comments = json.dumps([[_comment(3, BOT, f"{MARKER}\nold"), _comment(4, "acme-ci[bot]", f"{MARKER}\nold")]])
    app = run_action(
        work, tmp_path / "a", {**INPUTS, "comment-author": "acme-ci[bot]"}, STUB_VIEWER=BOT, STUB_COMMENTS=comments
    )
    assert not any("graphql" in call for call in app.calls)
    assert _writes(app.calls) == ["gh api --method PATCH repos/acme/models/issues/comments/4"]
    unknown = run_action(work, tmp_path / "b", INPUTS, STUB_COMMENTS=comments)  # no STUB_VIEWER: the query fails
    assert _writes(unknown.calls) == ["gh api --method PATCH repos/acme/models/issues/comments/3"]
    assert f"could not ask GitHub who the token is; updating only comments by {BOT}" in unknown.stderr


def _expected_annotations() -> list[Command]:
    """One error per broken file, on the line the runner must place it: the hostile files' inherit-from (line 7),
    the child of the removed profile (line 8) and the InferenceService that names it (line 11)."""
    located = [(f"apps/{TEAM}/{name}", "7", "26", "ParentNotFound") for name in HOSTILE_NAMES]
    located += [
        (f"apps/{TEAM}/runtime.yaml", "8", "26", "ParentNotFound"),
        (f"apps/{TEAM}/isvc.yaml", "11", "11", "RuntimeValidationError"),
    ]
    return [
        Command("error", {"file": file, "line": line, "col": col, "title": f"omerender {code}"}, "")
        for file, line, col, code in located
    ]


def _file(command: Command) -> str:
    return command.properties["file"]


def test_every_diagnostic_is_an_annotation_and_no_file_name_starts_a_workflow_command(tmp_path: Path) -> None:
    work = ome_scratch(tmp_path / "repo", "hostile")
    ran = run_action(work, tmp_path / "a", INPUTS, STUB_VIEWER=BOT)
    assert ran.codes[-1] == ("Fail on errors", 4), ran
    diff = ran.step("omerender diff against the base branch")
    annotations = workflow_commands(diff.stdout)
    assert workflow_commands(diff.stderr) == []
    without_messages = [Command(c.name, c.properties, "") for c in annotations]
    assert sorted(without_messages, key=_file) == sorted(_expected_annotations(), key=_file)
    assert all("not found (chain so far: [" in c.data for c in annotations)
    assert not list(tmp_path.rglob("pwned.txt")), "a file name ran as a shell command"
    body = Path(ran.outputs["body-file"]).read_text()
    assert "omerender diff failed (exit 4)" in body and "x;id>pwned.txt;#.yaml" in body
    not_imported(work)


def test_a_failing_step_quotes_the_first_errors_and_none_of_them_is_a_command(tmp_path: Path) -> None:
    work = ome_scratch(tmp_path / "repo", "hostile")
    ran = run_action(work, tmp_path / "a", INPUTS, STUB_VIEWER=BOT)
    failed = ran.step("Fail on errors")
    assert failed.code == 4
    assert failed.stdout.startswith("omerender diff exited 4: the tree does not build\n::stop-commands::")
    assert workflow_commands(failed.stdout) == [] and workflow_commands(failed.stderr) == []
    errors = [line for line in Path(ran.outputs["errors-file"]).read_text().splitlines() if ": error: " in line]
    assert len(errors) == len(BROKEN)
    quoted = failed.stdout.splitlines()[2:-1]  # between the stop and the resume lines
    assert quoted == errors, "the errors, as omerender printed them, every one on a line of its own"
    assert f"apps/{TEAM}/x;id>pwned.txt;#.yaml:7:26: error: [ParentNotFound]" in failed.stdout
    assert f"apps/{TEAM}/n\\n::error file=forged.yaml::forged.yaml:7:26: error:" in failed.stdout
    assert not list(tmp_path.rglob("pwned.txt"))


def test_a_usage_error_says_so_in_the_failing_step(tmp_path: Path) -> None:
    work = scratch(tmp_path / "repo", "bump")
    ran = run_action(work, tmp_path / "a", {"paths": "manifests", "base-ref": "no-such-branch"}, STUB_VIEWER=BOT)
    failed = ran.step("Fail on errors")
    assert failed.code == 2
    lines = failed.stdout.splitlines()
    assert lines[0] == "omerender diff exited 2: a usage error, or a base ref that cannot be read"
    assert "origin/no-such-branch" in "\n".join(lines[2:-1])
    assert workflow_commands(failed.stdout) == []


def _note(number: int, author: int, body: str) -> dict[str, object]:
    return {"id": number, "author": {"id": author, "username": f"user{author}"}, "body": body}


def test_gitlab_never_edits_another_users_note(tmp_path: Path) -> None:
    """GitLab refuses (403) an edit of another user's note, and `curl --fail` failed every later pipeline: the
    job now asks GET /user who its token is and updates only that user's marked note."""
    work = ome_scratch(tmp_path / "repo", "bump")
    variables = {"OMERENDER_PATHS": PATHS, "OMERENDER_ARGS": ARGS, "OMERENDER_GITLAB_TOKEN": "secret"}
    theirs = _note(3, 99, f"{MARKER}\nsomeone else's")
    code, calls, done = run_gitlab(work, tmp_path / "a", STUB_PAGES=json.dumps([[theirs]]), **variables)
    assert code == 0, done.stderr
    assert any(call.endswith("/api/v4/user") for call in calls)
    writes = [call for call in calls if "--request" in call]
    assert len(writes) == 1 and "--request POST" in writes[0] and writes[0].endswith("/merge_requests/3/notes")
    body = (work / "omerender-diff-comment.md").read_text()
    assert body.startswith(MARKER) and ISVC in body

    pages = [[theirs, _note(12, 7, f"{MARKER}\nthe first pipeline's")]]  # 7: the token's user (STUB_USER)
    code, calls, done = run_gitlab(work, tmp_path / "b", STUB_PAGES=json.dumps(pages), **variables)
    assert code == 0, done.stderr
    writes = [call for call in calls if "--request" in call]
    assert len(writes) == 1 and "--request PUT" in writes[0] and writes[0].endswith("/notes/12")
    not_imported(work)


def test_gitlab_log_says_what_failed_and_code_quality_names_each_file(tmp_path: Path) -> None:
    work = ome_scratch(tmp_path / "repo", "hostile")
    code, _, done = run_gitlab(work, tmp_path / "a", OMERENDER_PATHS=PATHS, OMERENDER_ARGS=ARGS)
    assert code == 4
    assert "omerender diff exited 4\n" in done.stdout
    assert f"apps/{TEAM}/runtime.yaml:8:26: error: [ParentNotFound]" in done.stdout
    quality = json.loads((work / "omerender-codequality.json").read_text())
    assert sorted(issue["location"]["path"] for issue in quality) == sorted(f"apps/{TEAM}/{name}" for name in BROKEN)
    assert not list(tmp_path.rglob("pwned.txt"))
