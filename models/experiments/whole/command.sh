#!/usr/bin/env bash
# Whole documents in fine-tuning: v2.2's fine-tuning (scripts/train-model's second stage) from
# the same pre-trained weights (runs/rpsum-ext-v2-pt/best, the first stage), with every training
# document whole (--max_tokens 32768, the server's default cap) instead of its first 4,096 tokens.
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
data=../shared/data
model=(--vocab_size 8000 --hidden 192 --heads 4 --ffn 768 --token_layers 3 --unit_layers 2
  --max_clip 256 --unit_clip 16 --clip_policy_max 16 --local_threshold 1024
  --local_window 256 --max_tokens_per_unit 48 --dropout 0.1 --lr 5e-4 --warmup 100
  --batch_tokens 8192 --pos_weight 2 --soft_labels 0.5 --features 6 --centrality_weight 0.2
  --model_version 2.3 --seed 1 --threads 2 --checkpoint_every 50)
build/release/train/rpsum-train --data_dir "$data/corpus,$data/corpus-extra" \
  --valid_dir "$data/corpus" --out runs/whole --tokenizer runs/rpsum-ext-v2-pt/tokenizer.model \
  --init_from runs/rpsum-ext-v2-pt/best "${model[@]}" --max_tokens 32768 --epochs 2 --patience 2 \
  "$@" | tee -a runs/whole.log
echo ALLDONE
