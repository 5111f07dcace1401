#!/usr/bin/env bash
# "Position in its section" as a model input: v2.3's fine-tuning (scripts/train-model's flags,
# seed 1) from v2.3's pre-trained weights, reading v1's six unit features plus the two section
# features (model/model_config.h: column 8, the unit's index in its section over the section's
# unit count; 9, 1 for a section's first unit). The pre-trained network reads six columns; its
# feature projection is widened with zero weights for the two new ones (rpsum-train
# WidenFeatureProjection). The pre-training is scripts/train-model's first stage in
# runs/rpsum-ext-v2-pt (v2.3's: its train.log equals models/rpsum-ext/results/pretrain.log).
#   command.sh    the fine-tuning into runs/section-features, resumable, then both valid splits
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
data=../shared/data
here=models/experiments/section-features
source scripts/recipe-flags
model=("${recipe[@]}")
pt=runs/rpsum-ext-v2-pt
[ -f $pt/DONE ] || { echo "missing $pt: run scripts/train-model (its first stage)" >&2; exit 1; }
out=runs/section-features
mkdir -p "$out"
build/release/train/rpsum-train --data_dir "$data/corpus,$data/corpus-extra" \
  --valid_dir "$data/corpus" --out "$out" --tokenizer $pt/tokenizer.model --init_from $pt/best \
  "${model[@]}" --feature_columns 0,1,2,3,4,5,8,9 --model_version 2.3-section-features \
  --max_tokens 4096 --epochs 2 --patience 2 | tee -a "$out/train.log"
models/experiments/score-valid.sh "$out" $here section-features
echo ALLDONE
