#!/usr/bin/env bash
# Write the pull-request comment for `omerender diff --against origin/$BASE_REF` to $BODY_FILE (and to the
# job summary, $GITHUB_STEP_SUMMARY, when set) and exit with diff's code: 0 no change, 1 changes, 2 a usage
# error or bad ref, 4 a tree that does not build (the body then also holds the diagnostics).
# Every diagnostic is also printed to the log as a GitHub annotation (`::error file=...,line=...::`, from
# omerender's `github` report, whose every value is escaped as the runner's workflow-command rules ask, so a
# file name or message cannot start a command of its own), and the text diagnostics are kept in
# $ERRORS_FILE (when set) for the step that fails the job to quote.
# Env: BASE_REF, OMERENDER_PATHS (space separated), OMERENDER_ARGS (optional), BODY_FILE, ERRORS_FILE
# (optional), OMERENDER_PYTHON (the Python omerender is installed for; run isolated, -I, so that nothing in
# the pull request's tree is imported); GITHUB_OUTPUT (optional) receives exit-code=, body-file= and
# errors-file=.
set -uo pipefail
MARKER='<!-- omerender-diff -->'
LIMIT=60000 # GitHub refuses comments over 65,536 characters
: "${BASE_REF:?BASE_REF is not set}" "${OMERENDER_PATHS:?OMERENDER_PATHS is not set}" "${BODY_FILE:?BODY_FILE is not set}"
read -r -a paths <<<"$OMERENDER_PATHS"
read -r -a extra <<<"${OMERENDER_ARGS:-}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! git rev-parse --verify --quiet "refs/remotes/origin/$BASE_REF" >/dev/null; then
  git fetch --quiet --no-tags origin "+refs/heads/$BASE_REF:refs/remotes/origin/$BASE_REF" || true
fi
code=0
"${OMERENDER_PYTHON:-python3}" -I -m omerender diff --against "origin/$BASE_REF" -o markdown \
  --report-format "github=$work/annotations.txt" "${extra[@]}" "${paths[@]}" >"$work/out.md" 2>"$work/err.txt" || code=$?
if [ -s "$work/annotations.txt" ]; then
  cat "$work/annotations.txt" # the runner turns each line into an annotation on the file and line it names
fi
if [ -n "${ERRORS_FILE:-}" ]; then
  head -c 1000000 "$work/err.txt" >"$ERRORS_FILE"
fi

# Whole lines only, so no code span is cut open; a fence left open by the cut is closed.
cut_lines() {
  head -c "$LIMIT" "$1" | awk -v limit="$LIMIT" '{ n += length($0) + 1; if (n <= limit) print }
    /^```/ { open = !open } END { if (open) print "```" }'
}
# The diagnostics in a fence longer than any backtick run they hold (CommonMark), so none can close it.
fence() {
  awk 'BEGIN { m = 2 } { s = $0; while (match(s, /`+/)) { if (RLENGTH > m) m = RLENGTH; s = substr(s, RSTART + RLENGTH) } }
    END { f = ""; for (i = 0; i <= m; i++) f = f "`"; print f }' "$1"
}
{
  echo "$MARKER"
  if [ "$code" -ge 2 ]; then
    echo "### omerender diff failed (exit $code)"
    echo
    bar=$(fence "$work/err.txt")
    echo "$bar"
    head -c "$LIMIT" "$work/err.txt" | tr -d '\r'
    echo
    echo "$bar"
    if [ "$code" = 4 ] && [ -s "$work/out.md" ]; then # the report still lists what no longer renders
      echo
      cut_lines "$work/out.md"
    fi
  elif [ "$(wc -c <"$work/out.md")" -gt "$LIMIT" ]; then
    cut_lines "$work/out.md"
    printf '\n\n_Cut at %s characters: run `omerender diff --against origin/%s` for the rest._\n' "$LIMIT" "$BASE_REF"
  else
    cat "$work/out.md"
  fi
} >"$BODY_FILE"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  cat "$BODY_FILE" >>"$GITHUB_STEP_SUMMARY"
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  printf 'exit-code=%s\nbody-file=%s\nerrors-file=%s\n' "$code" "$BODY_FILE" "${ERRORS_FILE:-}" >>"$GITHUB_OUTPUT"
fi
exit "$code"
