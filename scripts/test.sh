#!/usr/bin/env bash
# Set up (idempotent) and run the whole test suite, end-to-end tests included when the data mirror
# (../shared/data) is present. Extra arguments go to pytest, e.g. `bash scripts/test.sh -m "not e2e"`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# headless Chromium for the HTML report's browser test (it skips without it)
if [ "${SKIP_APT:-0}" != 1 ] && command -v apt-get >/dev/null && ! command -v chromium >/dev/null; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null; } \
    || echo "[test] chromium not installed: the browser test will skip"
fi
echo "lint: ruff check src tests bench hydra_plugins; types: mypy src/lingtest"
.venv/bin/ruff check src tests bench hydra_plugins
.venv/bin/mypy src/lingtest
export LINGTEST_NO_PROGRESS=1
exec .venv/bin/python -m pytest -q -p no:cacheprovider "$@"
