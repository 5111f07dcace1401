#!/usr/bin/env bash
# Token salience as an auxiliary loss (models/experiments/HISTORY.md, "Token salience"): v2.3's
# fine-tuning exactly as scripts/train-model runs it (its flags, seed 1, from v2.3's pre-trained
# weights in runs/rpsum-ext-v2-pt) with --salience_weight W: a linear tagger on the token
# layers' output learns which tokens' pieces the reference uses (pieces in more than 25% of the
# training references ignored; train/training.h TokenSalienceLabels), beside the unit loss.
# Then best/ on both valid splits, the served selection without the reranking (greedy, as v2.3).
#   command.sh [W]   W 0.5 (default): runs/token-salience, files salience-*;
#                    other W: runs/token-salience-wW, files salience-wW-*. Resumable.
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
here=models/experiments/token-salience
w=${1:-0.5}
name=salience
[ "$w" = 0.5 ] || name=salience-w$w
source scripts/recipe-flags
model=("${recipe[@]}" --features 6 --model_version 2.4)
pt=runs/rpsum-ext-v2-pt
[ -f $pt/DONE ] || { echo "missing $pt: run scripts/train-model (its first stage)" >&2; exit 1; }
out=runs/token-${name}
mkdir -p "$out"
build/release/train/rpsum-train --data_dir ../shared/data/corpus,../shared/data/corpus-extra \
  --valid_dir ../shared/data/corpus --out "$out" --tokenizer $pt/tokenizer.model \
  --init_from $pt/best "${model[@]}" --max_tokens 4096 --epochs 2 --patience 2 \
  --salience_weight "$w" | tee -a "$out/train.log"
models/experiments/score-valid.sh "$out" $here "$name"
