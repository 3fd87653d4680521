#!/usr/bin/env bash
# Post $BODY_FILE on pull request $PR_NUMBER of $REPOSITORY, or update the comment an earlier run posted
# (found by its first line, the omerender-diff marker). Needs the GitHub CLI (gh) and GH_TOKEN.
set -euo pipefail
MARKER='<!-- omerender-diff -->'
if [ -z "${PR_NUMBER:-}" ]; then
  echo "omerender: not a pull request; the comment is in ${BODY_FILE:-nowhere}" >&2
  exit 0
fi
: "${REPOSITORY:?}" "${BODY_FILE:?}"
existing=$(gh api --paginate "repos/$REPOSITORY/issues/$PR_NUMBER/comments" \
  --jq ".[] | select(.body | startswith(\"$MARKER\")) | .id" | head -n 1)
if [ -n "$existing" ]; then
  gh api --method PATCH "repos/$REPOSITORY/issues/comments/$existing" -F "body=@$BODY_FILE" >/dev/null
  echo "omerender: updated comment $existing" >&2
else
  gh api --method POST "repos/$REPOSITORY/issues/$PR_NUMBER/comments" -F "body=@$BODY_FILE" >/dev/null
  echo "omerender: commented on #$PR_NUMBER" >&2
fi
