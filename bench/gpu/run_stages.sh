#!/bin/bash
# Runs on the GPU machine (see pack_stages.sh): the demo's Gemma stages from cold caches, each timed,
# with their MLflow journal, outputs and logs packed into $OUT/outputs.tgz for bench/bench_gpu_stages.py.
#
#   bash bench/gpu/run_stages.sh DEST
set -u
dest=$1
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
L=/tmp/glogs; mkdir -p $L
ms() { echo $(( $(date +%s%N) / 1000000 )); }
root=$PWD; t0=$(ms)
( cat "$dest"/p*/part.* | tar x -C /tmp ) || { echo "payload: unpack failed"; ls -la "$dest"/*; exit 3; }
cd /tmp/payload || exit 3
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site whl/*.whl > $L/pip.txt 2>&1 || { tail -20 $L/pip.txt; exit 4; }
tar xzf mdinfo.tgz -C /tmp/site
export LINGTEST_CACHE=/tmp/lcache
mkdir -p $LINGTEST_CACHE/models/gguf $LINGTEST_CACHE/crest
gunzip -c gguf.gz > $LINGTEST_CACHE/models/gguf/gemma-3-270m-q4_k_m.gguf
gunzip -c vindex.npz.gz > "$LINGTEST_CACHE/crest/$(cat vindex.name)"
tar xzf wn.tgz -C $LINGTEST_CACHE
cd "$root" && tar xzf /tmp/payload/inputs.tgz
export PYTHONPATH=/tmp/site:$root/src
t1=$(ms)
{ echo "setup_ms $((t1 - t0))"; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader;
  lscpu | grep -E "Model name|^CPU\(s\)|Flags" | cut -c1-600;
  python3 -c "import torch,transformers,spacy;print('torch',torch.__version__,torch.cuda.get_device_name(0),'transformers',transformers.__version__,'spacy',spacy.__version__)"; } > $L/machine.txt 2>&1
cut -c1-200 $L/machine.txt
for s in "convert_lm" "crest_generate" "contrapro_score lm_de_context" "crest_baseline_fills" "contracat_score lm_de_context"; do
  n=$(echo $s | tr ' ' @)  # the DVC stage name
  a=$(ms)
  timeout 300 python3 -m lingtest.pipeline.stage $s > $L/$n.txt 2>&1; rc=$?
  b=$(ms)
  echo "$n rc=$rc process_ms=$((b - a))" | tee -a $L/stages.txt
  [ $rc -ne 0 ] && tail -25 $L/$n.txt | cut -c1-300
done
sha256sum $LINGTEST_CACHE/models/gemma-3-270m/model.safetensors > $L/sha256.txt 2>&1
tar czf $OUT/outputs.tgz data/suites/crest data/crest data/results metrics models/lm_conversion.json mlruns/journal $L 2>/dev/null
ls -la $OUT
