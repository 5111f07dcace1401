#!/usr/bin/env bash
# Summary-level reranking (docs/design.md, section 2, "Select"; model::SummaryCandidates) on
# the shipped v2.2 weights: fit scoring.rerank's weights on corpus + corpus-extra train with
# rpsum-eval --fit_rerank (candidates: subsets of the 8 best units, at most 6), then score the
# written checkpoint on the valid splits and the benchmarks' development splits.
#   command.sh NAME [FEATURES [L2]]   NAME: output prefix; FEATURES: --rerank_features (all)
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
data=../shared/data
name=${1:?usage: command.sh NAME [FEATURES [L2]]}
features=${2:-}
l2=${3:-0.001}
here=models/experiments/rerank
out=runs/rerank-$name
e=build/release/train/rpsum-eval
$e --model models/rpsum-ext --data_dir "$data/corpus,$data/corpus-extra" --split train \
  --threads 2 --fit_rerank "$out" --rerank_top_k 8 --rerank_max_units 6 \
  --rerank_features "$features" --rerank_l2 "$l2" --rerank_version "2.2-rerank-$name" \
  --json "$here/$name-fit.json" > "$here/$name-fit.md"
cp "$out/config.json" "$here/$name-config.json"
$e --model "$out" --data_dir "$data/corpus" --split valid --threads 2 \
  --json "$here/$name-valid.json" > "$here/$name-valid.md"
$e --model "$out" --data_dir "$data/corpus-extra" --split valid --threads 2 \
  --json "$here/$name-valid-extra.json" > "$here/$name-valid-extra.md"
$e --model "$out" --file "$data/benchmarks/qmsum_val.jsonl.gz" --threads 2 \
  --json "$here/$name-qmsum_val.json" > "$here/$name-qmsum_val.md"
$e --model "$out" --file "$data/benchmarks/squality_dev.jsonl.gz" --threads 2 \
  --json "$here/$name-squality_dev.json" > "$here/$name-squality_dev.md"
echo ALLDONE
