#!/usr/bin/env bash
# Runs at commit c882fd2: its flags and config keys left the tools after it (../README.md).
# v2.1's recipe (scripts/train-model's fine-tuning stage from random weights, 4,096-token heads,
# seed 1; the tokenizer scripts/train-model trains, whose pieces and scores equal v2.1's) with
# --positions none (the flag was --no_positions when this ran): trained and validated at clip
# distance 0, token and unit level.
set -euo pipefail
source scripts/cpu-env
d=../shared/data
build/release/train/rpsum-train --data_dir "$d/corpus,$d/corpus-extra" --valid_dir "$d/corpus" \
  --out runs/v2.1-nopos --tokenizer runs/rpsum-ext-v2-pt/tokenizer.model \
  --vocab_size 8000 --hidden 192 --heads 4 --ffn 768 --token_layers 3 --unit_layers 2 \
  --max_clip 256 --unit_clip 16 --clip_policy_max 16 --local_threshold 1024 \
  --local_window 256 --max_tokens_per_unit 48 --dropout 0.1 --lr 5e-4 --warmup 100 \
  --batch_tokens 8192 --pos_weight 2 --soft_labels 0.5 --features 6 --centrality_weight 0.2 \
  --model_version 2.1-nopos --seed 1 --threads 2 --checkpoint_every 50 \
  --max_tokens 4096 --epochs 2 --patience 2 --positions none
