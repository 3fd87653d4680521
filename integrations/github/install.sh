#!/usr/bin/env bash
# Install omerender from this action's own checkout ($GITHUB_ACTION_PATH/../.., the ref the workflow
# names in `uses:`) into a virtual environment at $OMERENDER_VENV, never from the package index (no
# release is published there under this name) and never from the pull request's tree.
# Python runs isolated (-I: no working directory or script folder first on sys.path, no PYTHON*
# variables, no user site) and from a folder outside the pull request, so a pip.py, venv.py or
# json.py that a pull request adds to its root is never imported.
set -euo pipefail
: "${OMERENDER_VENV:?OMERENDER_VENV is not set}" "${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is not set}"
source_dir=$(cd "$GITHUB_ACTION_PATH/../.." && pwd -P)
mkdir -p "$(dirname "$OMERENDER_VENV")"
cd "$(dirname "$OMERENDER_VENV")"
"${OMERENDER_BASE_PYTHON:-python3}" -I -m venv "$OMERENDER_VENV"
"$OMERENDER_VENV/bin/python" -I -m pip install --quiet --disable-pip-version-check "$source_dir"
