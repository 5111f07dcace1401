#!/usr/bin/env bash
# Dropout in the fine-tuning: v2.2's two stages (scripts/train-model's flags, seed 1), the
# fine-tuning at another dropout rate than v2.2's 0.1 (every dropout in the network: attention
# weights, residual branches, unit features). The pre-training is scripts/train-model's first
# stage, unchanged (dropout 0.1), in runs/rpsum-ext-v2-pt; run ../ft-lr/command.sh 5e-4 pt
# first where that folder is missing (its log must match models/rpsum-ext/results/pretrain.log).
#   command.sh RATE    the fine-tuning from runs/rpsum-ext-v2-pt/best, resumable
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
data=../shared/data
rate=${1:?usage: command.sh RATE}
here=models/experiments/dropout
model=(--vocab_size 8000 --hidden 192 --heads 4 --ffn 768 --token_layers 3 --unit_layers 2
  --max_clip 256 --unit_clip 16 --clip_policy_max 16 --local_threshold 1024
  --local_window 256 --max_tokens_per_unit 48 --lr 5e-4 --warmup 100
  --batch_tokens 8192 --pos_weight 2 --soft_labels 0.5 --features 6 --centrality_weight 0.2
  --seed 1 --threads 2 --checkpoint_every 50)
pt=runs/rpsum-ext-v2-pt
[ -f $pt/DONE ] || { echo "missing $pt: run models/experiments/ft-lr/command.sh 5e-4 pt" >&2; exit 1; }
out=runs/dropout-$rate
mkdir -p "$out"
build/release/train/rpsum-train --data_dir "$data/corpus,$data/corpus-extra" \
  --valid_dir "$data/corpus" --out "$out" --tokenizer $pt/tokenizer.model --init_from $pt/best \
  "${model[@]}" --dropout "$rate" --model_version "2.3-dropout$rate" --max_tokens 4096 \
  --epochs 2 --patience 2 | tee -a "$out/train.log"
models/experiments/score-valid.sh "$out" $here "dropout$rate"
echo ALLDONE
