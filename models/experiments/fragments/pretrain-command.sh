#!/usr/bin/env bash
# scripts/train-model's pre-training stage alone, rerun after the fragment rule into
# runs/s23-pt (pretrain-train.log): its validation line is scored with the rule; the weights
# must be byte-identical to runs/rpsum-ext-v2-pt/best's (they were).
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
data=$PWD/../shared/data
pt=runs/s23-pt
mkdir -p $pt
model=(--vocab_size 8000 --hidden 192 --heads 4 --ffn 768 --token_layers 3 --unit_layers 2
  --max_clip 256 --unit_clip 16 --clip_policy_max 16 --local_threshold 1024
  --local_window 256 --max_tokens_per_unit 48 --dropout 0.1 --lr 5e-4 --warmup 100
  --batch_tokens 8192 --pos_weight 2 --soft_labels 0.5 --features 6 --centrality_weight 0.2
  --model_version 2.2 --seed 1 --threads 2 --checkpoint_every 50)
build/release/train/rpsum-train --data_dir "$data/corpus,$data/corpus-extra" \
  --pretrain_file "$data/unlabeled/part-00.jsonl.gz" --max_docs 5000 --pseudo_ratio 0.05 \
  --mlm_weight 1 --valid_dir "$data/corpus" --out "$pt" "${model[@]}" \
  --max_tokens 2048 --epochs 1 | tee -a "$pt/train.log"
