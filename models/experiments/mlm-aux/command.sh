#!/usr/bin/env bash
# A masked-token loss kept during fine-tuning: v2.3's fine-tuning exactly as scripts/train-model
# runs it (its flags, seed 1, from v2.3's pre-trained weights in runs/rpsum-ext-v2-pt) with
# --mlm_weight 0.1 (15% of the tokens masked, as in the pre-training; a fresh head, tied to the
# input embedding). The pre-training's total loss ends at 6.34, the fine-tuning's unit loss at
# 0.54 (models/rpsum-ext/results): 0.1 puts them on one scale. Then best/ on both valid splits.
#   command.sh    the fine-tuning into runs/mlm-aux, resumable; then the scoring
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
here=models/experiments/mlm-aux
source scripts/recipe-flags
model=("${recipe[@]}" --features 6 --model_version 2.4)
pt=runs/rpsum-ext-v2-pt
[ -f $pt/DONE ] || { echo "missing $pt: run scripts/train-model (its first stage)" >&2; exit 1; }
out=runs/mlm-aux
mkdir -p "$out"
build/release/train/rpsum-train --data_dir ../shared/data/corpus,../shared/data/corpus-extra \
  --valid_dir ../shared/data/corpus --out "$out" --tokenizer $pt/tokenizer.model \
  --init_from $pt/best "${model[@]}" --max_tokens 4096 --epochs 2 --patience 2 \
  --mlm_weight 0.1 | tee -a "$out/train.log"
models/experiments/score-valid.sh "$out" $here mlm-aux
