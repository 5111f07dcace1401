#!/usr/bin/env bash
# Self-training experiment: student pre-training on 5,000 unlabeled docs labelled by v2.2
# (teacher; runs/rpsum-ext-v2/best = models/rpsum-ext), from the mlm-pt weights
# (runs/rpsum-ext-v2-pt/best, scripts/train-model's first stage), then v2.2's fine-tuning from the student.
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
data=../shared/data
model=(--vocab_size 8000 --hidden 192 --heads 4 --ffn 768 --token_layers 3 --unit_layers 2
  --max_clip 256 --unit_clip 16 --clip_policy_max 16 --local_threshold 1024
  --local_window 256 --max_tokens_per_unit 48 --dropout 0.1 --lr 5e-4 --warmup 100
  --batch_tokens 8192 --pos_weight 2 --soft_labels 0.5 --features 6 --centrality_weight 0.2
  --model_version 2.3 --seed 1 --threads 2 --checkpoint_every 50)
tok=runs/rpsum-ext-v2-pt/tokenizer.model
if [ ! -f runs/st-pt/DONE ]; then
  build/release/train/rpsum-train --data_dir "$data/corpus,$data/corpus-extra" \
    --pretrain_file "$data/unlabeled/part-00.jsonl.gz" --max_docs 5000 \
    --teacher runs/rpsum-ext-v2/best --init_from runs/rpsum-ext-v2-pt/best \
    --mlm_weight 1 --valid_dir "$data/corpus" --out runs/st-pt --tokenizer $tok "${model[@]}" \
    --max_tokens 2048 --epochs 1 | tee -a runs/st-pt.log
  touch runs/st-pt/DONE
fi
build/release/train/rpsum-train --data_dir "$data/corpus,$data/corpus-extra" \
  --valid_dir "$data/corpus" --out runs/st-ft --tokenizer $tok \
  --init_from runs/st-pt/best "${model[@]}" --max_tokens 4096 --epochs 2 --patience 2 \
  | tee -a runs/st-ft.log
echo ALLDONE  # both stages done
