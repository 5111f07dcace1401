#!/usr/bin/env bash
# The fine-tuning learning rate: v2.2's two stages (scripts/train-model's flags, seed 1), the
# fine-tuning at a lower peak learning rate than v2.2's 5e-4 (warm-up and linear decay to a
# tenth as before). The pre-training is scripts/train-model's first stage, rerun into the same
# folder (runs/rpsum-ext-v2-pt), tokenizer included; pretrain-train.log must match
# models/rpsum-ext/results/pretrain.log.
#   command.sh LR [pt]    both stages, resumable; with pt, stop after the pre-training
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
data=../shared/data
lr=${1:?usage: command.sh LR [pt]}
here=models/experiments/ft-lr
model=(--vocab_size 8000 --hidden 192 --heads 4 --ffn 768 --token_layers 3 --unit_layers 2
  --max_clip 256 --unit_clip 16 --clip_policy_max 16 --local_threshold 1024
  --local_window 256 --max_tokens_per_unit 48 --dropout 0.1 --warmup 100
  --batch_tokens 8192 --pos_weight 2 --soft_labels 0.5 --features 6 --centrality_weight 0.2
  --seed 1 --threads 2 --checkpoint_every 50)
pt=runs/rpsum-ext-v2-pt
mkdir -p $pt
if [ ! -f $pt/DONE ]; then
  build/release/train/rpsum-train --data_dir "$data/corpus,$data/corpus-extra" \
    --pretrain_file "$data/unlabeled/part-00.jsonl.gz" --max_docs 5000 --pseudo_ratio 0.05 \
    --mlm_weight 1 --valid_dir "$data/corpus" --out $pt "${model[@]}" --lr 5e-4 \
    --model_version 2.2 --max_tokens 2048 --epochs 1 | tee -a $pt/train.log
  touch $pt/DONE
fi
cp $pt/train.log $here/pretrain-train.log
[ "${2:-}" = pt ] && exit 0
out=runs/ft-lr-$lr
mkdir -p "$out"
build/release/train/rpsum-train --data_dir "$data/corpus,$data/corpus-extra" \
  --valid_dir "$data/corpus" --out "$out" --tokenizer $pt/tokenizer.model --init_from $pt/best \
  "${model[@]}" --lr "$lr" --model_version "2.3-lr$lr" --max_tokens 4096 --epochs 2 \
  --patience 2 | tee -a "$out/train.log"
models/experiments/score-valid.sh "$out" $here "lr$lr"  # log, config, both valid splits
echo ALLDONE
