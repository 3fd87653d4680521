#!/usr/bin/env bash
# Fail the step as the action is asked to, and say in the log why: on 2 or more (2 a usage error or a bad
# ref, 3 an internal error, 4 a tree that does not build) with the first diagnostics, on 1 (changes) only
# when FAIL_ON_CHANGE is true. The diagnostics are the pull request's text (file names, messages), so they
# are printed between ::stop-commands:: and its unguessable token: nothing in them is read as a workflow
# command, whatever it holds. The annotations on the files are printed by the diff step.
# Env: CODE (omerender diff's exit code; none is taken as 2), FAIL_ON_CHANGE, ERRORS_FILE (optional: the text
# diagnostics comment-body.sh kept).
set -uo pipefail
SHOWN=10
code=${CODE:-}
case "$code" in '' | *[!0-9]*) code=2 ;; esac
if [ "$code" = 1 ] && [ "${FAIL_ON_CHANGE:-false}" = true ]; then
  echo "omerender diff exited 1: the pull request changes what rolls out, and fail-on-change is true (see the comment)"
  exit 1
fi
if [ "$code" -lt 2 ]; then
  exit 0
fi
case "$code" in
  2) why="a usage error, or a base ref that cannot be read" ;;
  3) why="an internal error in omerender" ;;
  4) why="the tree does not build" ;;
  *) why="an exit code omerender diff does not document" ;;
esac
echo "omerender diff exited $code: $why"
if [ -s "${ERRORS_FILE:-}" ]; then
  errors=$(grep -c ': error: ' "$ERRORS_FILE" || true)
  token=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
  echo "::stop-commands::$token"
  if [ "$errors" -gt 0 ]; then
    grep -m "$SHOWN" ': error: ' "$ERRORS_FILE"
  else # no located error: a usage or internal error, said in a line or two
    head -n "$SHOWN" "$ERRORS_FILE"
  fi | awk '{ print }' # every line ends, so the token below starts its own line
  echo "::$token::"
  if [ "$errors" -gt "$SHOWN" ]; then
    echo "... and $((errors - SHOWN)) more errors: every diagnostic is in the pull-request comment, the job summary and the annotations"
  fi
fi
exit "$code"
