#!/usr/bin/env bash
# Write the pull-request comment for `omerender diff --against origin/$BASE_REF` to $BODY_FILE and exit
# with diff's code: 0 no change, 1 changes, 2 errors (the body then holds the diagnostics).
# Env: BASE_REF, OMERENDER_PATHS (space separated), OMERENDER_ARGS (optional), BODY_FILE;
# GITHUB_OUTPUT (optional) receives exit-code= and body-file=.
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
omerender diff --against "origin/$BASE_REF" -o markdown "${extra[@]}" "${paths[@]}" >"$work/out.md" 2>"$work/err.txt" || code=$?
{
  echo "$MARKER"
  if [ "$code" -ge 2 ]; then
    echo "### omerender diff failed (exit $code)"
    echo
    echo '```'
    head -c "$LIMIT" "$work/err.txt"
    echo '```'
  elif [ "$(wc -c <"$work/out.md")" -gt "$LIMIT" ]; then
    head -c "$LIMIT" "$work/out.md"
    printf '\n\n_Cut at %s characters: run `omerender diff --against origin/%s` for the rest._\n' "$LIMIT" "$BASE_REF"
  else
    cat "$work/out.md"
  fi
} >"$BODY_FILE"
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  printf 'exit-code=%s\nbody-file=%s\n' "$code" "$BODY_FILE" >>"$GITHUB_OUTPUT"
fi
exit "$code"
