#!/usr/bin/env bash
# A larger candidate pool for v2.4's reranking: subsets of the 10 or 12 best units (at most 6)
# instead of 8, same features and L2 (scripts/recipe-flags' `rerank` with --rerank_top_k
# replaced), fitted by rpsum-eval --fit_rerank on corpus + corpus-extra train on the shipped
# network. Writes fit-kK.md / .json (the in-sample train scores: greedy and reranked) and the
# fitted configs (config-kK.json); the valid splits are scored by valid.sh only for a pool
# that passes the go/no-go on these fits (models/experiments/HISTORY.md).
#   command.sh [K...]   (default: 10 12)
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
source scripts/recipe-flags
data=../shared/data
here=models/experiments/rerank-pool
e=build/release/train/rpsum-eval
ks=("$@")
[ ${#ks[@]} -gt 0 ] || ks=(10 12)
for k in "${ks[@]}"; do
  flags=("${rerank[@]}")
  flags[1]=$k  # --rerank_top_k's value
  out=runs/rerank-k$k
  # --no_rerank: the fit starts from the network's greedy selection, as scripts/train-model's
  # stage 3 does from runs/rpsum-ext-v2/best.
  $e --model models/rpsum-ext --no_rerank --data_dir "$data/corpus,$data/corpus-extra" \
    --split train --threads 2 --fit_rerank "$out" "${flags[@]}" --rerank_version 2.4 \
    --json "$here/fit-k$k.json" > "$here/fit-k$k.md"
  cp "$out/config.json" "$here/config-k$k.json"
done
