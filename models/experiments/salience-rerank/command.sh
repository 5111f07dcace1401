#!/usr/bin/env bash
# The token-salience network (models/experiments/token-salience, weight 0.5, seed 1) served as
# v2.4 serves v2.3's: with the summary-level reranking fitted for it, exactly as
# scripts/train-model's third stage fits v2.4's (scripts/recipe-flags `rerank`, corpus +
# corpus-extra train). Scores the reranked checkpoint on both valid splits (salience-rerank-*)
# and the benchmarks' development splits, and the network greedily on the benchmarks
# (salience-greedy-*). Checks that the network is session 34's: its greedy valid scores must equal
# ../token-salience/salience-valid*.md (the model time apart).
# Needs scripts/train-model's first stage (runs/rpsum-ext-v2-pt). About 60 minutes on 2 cores.
#   models/experiments/salience-rerank/command.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
here=models/experiments/salience-rerank
data=../shared/data
source scripts/recipe-flags
pt=runs/rpsum-ext-v2-pt
[ -f $pt/DONE ] || { echo "missing $pt: run scripts/train-model (its first stage)" >&2; exit 1; }
out=runs/token-salience
mkdir -p "$out"
if [ ! -f "$out/DONE" ]; then
  build/release/train/rpsum-train --data_dir $data/corpus,$data/corpus-extra \
    --valid_dir $data/corpus --out "$out" --tokenizer $pt/tokenizer.model \
    --init_from $pt/best "${recipe[@]}" --features 6 --model_version 2.4-salience \
    --max_tokens 4096 --epochs 2 --patience 2 --salience_weight 0.5 | tee -a "$out/train.log"
  touch "$out/DONE"
fi
e=build/release/train/rpsum-eval
untimed() { grep -v "model time" "$1"; }
for suffix in "" -extra; do  # the same network as session 34's, before anything is fitted
  greedy=${TMPDIR:-/tmp}/salience-greedy-valid$suffix.md
  $e --model "$out/best" --data_dir "$data/corpus$suffix" --split valid --threads 2 > "$greedy"
  diff <(untimed "models/experiments/token-salience/salience-valid$suffix.md") <(untimed "$greedy") ||
    { echo "not session 34's network: $greedy differs" >&2; exit 1; }
done
rm -rf "$out/reranked"
$e --model "$out/best" --threads 2 --data_dir $data/corpus,$data/corpus-extra --split train \
  --fit_rerank "$out/reranked" "${rerank[@]}" --rerank_version 2.5-candidate \
  --json $here/fit.json > $here/fit.md
cp "$out/reranked/config.json" $here/config.json
for suffix in "" -extra; do
  $e --model "$out/reranked" --data_dir "$data/corpus$suffix" --split valid --threads 2 \
    --json "$here/salience-rerank-valid$suffix.json" > "$here/salience-rerank-valid$suffix.md"
done
for b in qmsum_val squality_dev; do
  $e --model "$out/reranked" --file $data/benchmarks/$b.jsonl.gz --threads 2 \
    --json $here/salience-rerank-$b.json > $here/salience-rerank-$b.md
  $e --model "$out/best" --file $data/benchmarks/$b.jsonl.gz --threads 2 \
    --json $here/salience-greedy-$b.json > $here/salience-greedy-$b.md
done
echo ALLDONE
