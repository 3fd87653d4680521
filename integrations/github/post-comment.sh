#!/usr/bin/env bash
# Post $BODY_FILE on pull request $PR_NUMBER of $REPOSITORY, or update the comment an earlier run posted:
# the first comment that starts with the omerender-diff marker AND was written by the identity this job
# posts as. Anyone can write a comment that starts with the marker; such a comment is left alone (a new
# comment is posted), so the job never edits text another person can rewrite later.
# That identity is $COMMENT_AUTHOR when set (the action's comment-author input), else the login GitHub's
# GraphQL API gives for the token (`viewer`: github-actions[bot] for the workflow's GITHUB_TOKEN, <app>[bot]
# for a GitHub App's installation token, the user for a personal token; REST's GET /user refuses
# installation tokens), else github-actions[bot], the default token's login.
# Needs the GitHub CLI (gh) and GH_TOKEN. A token that may not comment (a pull request from a fork) is not
# an error: the comment is in the job summary already.
set -euo pipefail
MARKER='<!-- omerender-diff -->'
DEFAULT_AUTHOR='github-actions[bot]'
if [ -z "${PR_NUMBER:-}" ]; then
  echo "omerender: not a pull request; the comment is in ${BODY_FILE:-nowhere}" >&2
  exit 0
fi
: "${REPOSITORY:?}" "${BODY_FILE:?}"
unable() {
  echo "omerender: could not comment on #$PR_NUMBER (a fork's token is read-only); the comment is in the job summary" >&2
  exit 0
}
author=${COMMENT_AUTHOR:-}
if [ -z "$author" ]; then
  author=$(gh api graphql -f 'query=query { viewer { login } }' --jq .data.viewer.login 2>/dev/null) || author=""
  if [ -z "$author" ]; then
    echo "omerender: could not ask GitHub who the token is; updating only comments by $DEFAULT_AUTHOR" >&2
    author=$DEFAULT_AUTHOR
  fi
fi
# gh's --jq reads the environment (env.NAME), so the login is never spliced into the filter's text.
export OMERENDER_COMMENT_AUTHOR=$author
existing=$(gh api --paginate "repos/$REPOSITORY/issues/$PR_NUMBER/comments" \
  --jq ".[] | select(.user.login == env.OMERENDER_COMMENT_AUTHOR and (.body // \"\" | startswith(\"$MARKER\"))) | .id" |
  head -n 1) || unable
if [ -n "$existing" ]; then
  gh api --method PATCH "repos/$REPOSITORY/issues/comments/$existing" -F "body=@$BODY_FILE" >/dev/null || unable
  echo "omerender: updated comment $existing (by $author)" >&2
else
  gh api --method POST "repos/$REPOSITORY/issues/$PR_NUMBER/comments" -F "body=@$BODY_FILE" >/dev/null || unable
  echo "omerender: commented on #$PR_NUMBER (no comment by $author carried the marker)" >&2
fi
