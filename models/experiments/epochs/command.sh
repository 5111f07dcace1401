#!/usr/bin/env bash
# The fine-tuning schedule's length: v2.3's fine-tuning exactly as scripts/train-model runs it
# (its flags, seed 1, from v2.3's pre-trained weights in runs/rpsum-ext-v2-pt) over 4 epochs
# instead of 2 (the linear decay spread over 4), keeping every epoch's weights
# (--keep_epochs: runs/epochs4/epoch-N), then best/ (epochs4-*) and every epoch (epochN-*) on
# both valid splits. The recorded run took its epoch snapshots from state/ with a log watcher
# before --keep_epochs existed (the flag changes no weight); it missed epoch 3 (README).
#   command.sh    the fine-tuning into runs/epochs4, resumable; then the scoring
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
here=models/experiments/epochs
source scripts/recipe-flags
model=("${recipe[@]}" --features 6 --model_version 2.4)
pt=runs/rpsum-ext-v2-pt
[ -f $pt/DONE ] || { echo "missing $pt: run scripts/train-model (its first stage)" >&2; exit 1; }
out=runs/epochs4
mkdir -p "$out"
build/release/train/rpsum-train --data_dir ../shared/data/corpus,../shared/data/corpus-extra \
  --valid_dir ../shared/data/corpus --out "$out" --tokenizer $pt/tokenizer.model \
  --init_from $pt/best "${model[@]}" --max_tokens 4096 --epochs 4 --patience 2 --keep_epochs \
  | tee -a "$out/train.log"
models/experiments/score-valid.sh "$out" $here epochs4
e=build/release/train/rpsum-eval
for n in 1 2 3 4; do
  for s in corpus corpus-extra; do
    suffix=${s#corpus}
    $e --model "$out/epoch-$n" --data_dir ../shared/data/$s --split valid --threads 2 \
      --json "$here/epoch$n-valid$suffix.json" > "$here/epoch$n-valid$suffix.md"
  done
done
