#!/usr/bin/env bash
# Pre-training on all of unlabeled/ (10,580 documents) instead of v2.2's sample of 5,000:
# scripts/train-model's two stages (v2.2's flags, its tokenizer, seed 1) with --max_docs 0.
#   command.sh [pt]     both stages, resumable; with pt, stop after the pre-training
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
data=../shared/data
model=(--vocab_size 8000 --hidden 192 --heads 4 --ffn 768 --token_layers 3 --unit_layers 2
  --max_clip 256 --unit_clip 16 --clip_policy_max 16 --local_threshold 1024
  --local_window 256 --max_tokens_per_unit 48 --dropout 0.1 --lr 5e-4 --warmup 100
  --batch_tokens 8192 --pos_weight 2 --soft_labels 0.5 --features 6 --centrality_weight 0.2
  --model_version 2.3-ptall --seed 1 --threads 2 --checkpoint_every 50)
tok=models/rpsum-ext/tokenizer.model  # v2.2's, trained by scripts/train-model's first stage
mkdir -p runs/pt-all-pt runs/pt-all
if [ ! -f runs/pt-all-pt/DONE ]; then
  build/release/train/rpsum-train --data_dir "$data/corpus,$data/corpus-extra" \
    --pretrain_file "$data/unlabeled/part-00.jsonl.gz" --max_docs 0 --pseudo_ratio 0.05 \
    --mlm_weight 1 --valid_dir "$data/corpus" --out runs/pt-all-pt --tokenizer $tok "${model[@]}" \
    --max_tokens 2048 --epochs 1 | tee -a runs/pt-all-pt/train.log
  touch runs/pt-all-pt/DONE
fi
[ "${1:-}" = pt ] && exit 0
build/release/train/rpsum-train --data_dir "$data/corpus,$data/corpus-extra" \
  --valid_dir "$data/corpus" --out runs/pt-all --tokenizer $tok --init_from runs/pt-all-pt/best \
  "${model[@]}" --max_tokens 4096 --epochs 2 --patience 2 | tee -a runs/pt-all/train.log
echo ALLDONE
