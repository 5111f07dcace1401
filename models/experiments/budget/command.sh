#!/usr/bin/env bash
# The summary's budget as a model input: v2.3's fine-tuning (scripts/train-model's flags, seed 1)
# from v2.3's pre-trained weights, reading v1's six unit features plus the two budget features
# (model/model_config.h: column 10, the budget's words on a log scale; 11, its share of the
# document's words; model/document.h BudgetFeatures). Training and rpsum-eval give each
# document the budget the served selection uses there: its reference's words. The pre-trained
# network reads six columns; its feature projection is widened with zero weights for the two
# new ones (rpsum-train WidenFeatureProjection). The pre-training is scripts/train-model's first
# stage in runs/rpsum-ext-v2-pt (v2.3's: its train.log equals models/rpsum-ext/results/pretrain.log).
#   command.sh    the fine-tuning into runs/budget, resumable, then both valid splits
# The budget columns were removed from the product after 3ad3e94: run this at that commit.
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
data=../shared/data
here=models/experiments/budget
source scripts/recipe-flags
model=("${recipe[@]}")
pt=runs/rpsum-ext-v2-pt
[ -f $pt/DONE ] || { echo "missing $pt: run scripts/train-model (its first stage)" >&2; exit 1; }
out=runs/budget
mkdir -p "$out"
build/release/train/rpsum-train --data_dir "$data/corpus,$data/corpus-extra" \
  --valid_dir "$data/corpus" --out "$out" --tokenizer $pt/tokenizer.model --init_from $pt/best \
  "${model[@]}" --feature_columns 0,1,2,3,4,5,10,11 --model_version 2.3-budget \
  --max_tokens 4096 --epochs 2 --patience 2 | tee -a "$out/train.log"
models/experiments/score-valid.sh "$out" $here budget
echo ALLDONE
