#!/usr/bin/env bash
# Post $BODY_FILE on pull request $PR_NUMBER of $REPOSITORY, or update the comment an earlier run posted
# (found by its first line, the omerender-diff marker). Needs the GitHub CLI (gh) and GH_TOKEN.
# A token that may not comment (a pull request from a fork) is not an error: the comment is in the job
# summary already.
set -euo pipefail
MARKER='<!-- omerender-diff -->'
if [ -z "${PR_NUMBER:-}" ]; then
  echo "omerender: not a pull request; the comment is in ${BODY_FILE:-nowhere}" >&2
  exit 0
fi
: "${REPOSITORY:?}" "${BODY_FILE:?}"
unable() {
  echo "omerender: could not comment on #$PR_NUMBER (a fork's token is read-only); the comment is in the job summary" >&2
  exit 0
}
existing=$(gh api --paginate "repos/$REPOSITORY/issues/$PR_NUMBER/comments" \
  --jq ".[] | select(.body | startswith(\"$MARKER\")) | .id" | head -n 1) || unable
if [ -n "$existing" ]; then
  gh api --method PATCH "repos/$REPOSITORY/issues/comments/$existing" -F "body=@$BODY_FILE" >/dev/null || unable
  echo "omerender: updated comment $existing" >&2
else
  gh api --method POST "repos/$REPOSITORY/issues/$PR_NUMBER/comments" -F "body=@$BODY_FILE" >/dev/null || unable
  echo "omerender: commented on #$PR_NUMBER" >&2
fi
