#!/usr/bin/env bash
# Summary-level reranking with the network's unit states (docs/design.md, section 2,
# "Select"; model/select.h Candidate, the net_* features) on v2.3's weights, no retraining:
# fit scoring.rerank's weights on corpus + corpus-extra train with rpsum-eval --fit_rerank
# (the design chosen by cross-validation on the training splits, cv.sh; its flags are
# scripts/recipe-flags' `rerank`, which scripts/train-model runs as its last stage), then score
# the written checkpoint on the valid splits and the benchmarks' development splits.
#   command.sh [MODEL_DIR]   MODEL_DIR: the network to rerank (models/rpsum-ext)
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
source scripts/recipe-flags
data=../shared/data
model=${1:-models/rpsum-ext}
here=models/experiments/rerank-net
out=runs/rerank-net
e=build/release/train/rpsum-eval
$e --model "$model" --data_dir "$data/corpus,$data/corpus-extra" --split train \
  --threads 2 --fit_rerank "$out" "${rerank[@]}" --rerank_version 2.4 \
  --json "$here/fit.json" > "$here/fit.md"
cp "$out/config.json" "$here/config.json"
$e --model "$out" --data_dir "$data/corpus" --split valid --threads 2 \
  --json "$here/valid.json" > "$here/valid.md"
$e --model "$out" --data_dir "$data/corpus-extra" --split valid --threads 2 \
  --json "$here/valid-extra.json" > "$here/valid-extra.md"
$e --model "$out" --file "$data/benchmarks/qmsum_val.jsonl.gz" --threads 2 \
  --json "$here/qmsum_val.json" > "$here/qmsum_val.md"
$e --model "$out" --file "$data/benchmarks/squality_dev.jsonl.gz" --threads 2 \
  --json "$here/squality_dev.json" > "$here/squality_dev.md"
echo ALLDONE
