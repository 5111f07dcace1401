#!/usr/bin/env bash
# self-train, seed 2 of the fine-tuning stage (the student's pre-training as in command.sh,
# seed 1), paired with mlm-pt's fine-tune-seed2 (the same change from mlm-ft).
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout (from models/experiments/self-train)
source scripts/cpu-env
data=../shared/data
build/release/train/rpsum-train --data_dir "$data/corpus,$data/corpus-extra" \
  --valid_dir "$data/corpus" --out runs/st-ft-seed2 --tokenizer runs/rpsum-ext-v2-pt/tokenizer.model \
  --init_from runs/st-pt/best --vocab_size 8000 --hidden 192 --heads 4 --ffn 768 --token_layers 3 \
  --unit_layers 2 --max_clip 256 --unit_clip 16 --clip_policy_max 16 --local_threshold 1024 \
  --local_window 256 --max_tokens_per_unit 48 --dropout 0.1 --lr 5e-4 --warmup 100 \
  --batch_tokens 8192 --pos_weight 2 --soft_labels 0.5 --features 6 --centrality_weight 0.2 \
  --model_version 2.3 --seed 2 --threads 2 --checkpoint_every 50 --max_tokens 4096 --epochs 2 \
  --patience 2 | tee -a runs/st-ft-seed2.log
build/release/train/rpsum-eval --model runs/st-ft-seed2/best --threads 2 \
  --data_dir "$data/corpus-extra" --split valid --json runs/st-valid-extra-seed2.json \
  > runs/st-valid-extra-seed2.md
echo ALLDONE
