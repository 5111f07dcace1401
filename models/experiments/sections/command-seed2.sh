#!/usr/bin/env bash
# Seed 2 of command.sh's fine-tuning, with the records made by rpsum-train itself
# (--section_file, train/corpus.h SectionSummaries, the C++ port of extract.py; its training
# data line must equal sections-train.log's: 4140 documents, 9059475 tokens, 422000 units).
# Compare with v2.2's recipe at seed 2: ../mlm-pt/fine-tune-seed2-train.log, valid-extra-seed2.md.
#   command-seed2.sh    the fine-tuning (resumable), then the two validation splits
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
data=../shared/data
here=models/experiments/sections
model=(--vocab_size 8000 --hidden 192 --heads 4 --ffn 768 --token_layers 3 --unit_layers 2
  --max_clip 256 --unit_clip 16 --clip_policy_max 16 --local_threshold 1024
  --local_window 256 --max_tokens_per_unit 48 --dropout 0.1 --lr 5e-4 --warmup 100
  --batch_tokens 8192 --pos_weight 2 --soft_labels 0.5 --features 6 --centrality_weight 0.2
  --seed 2 --threads 2 --checkpoint_every 50)
pt=runs/rpsum-ext-v2-pt
[ -f $pt/DONE ] || { echo "missing $pt: run models/experiments/ft-lr/command.sh 5e-4 pt" >&2; exit 1; }
out=runs/sections-seed2
mkdir -p "$out"
build/release/train/rpsum-train --data_dir "$data/corpus,$data/corpus-extra" \
  --section_file "$data/unlabeled/part-00.jsonl.gz" --section_min_summary 15 \
  --section_min_document 400 --valid_dir "$data/corpus" --out "$out" \
  --tokenizer $pt/tokenizer.model --init_from $pt/best "${model[@]}" \
  --model_version "2.3-sections-seed2" --max_tokens 4096 --epochs 2 --patience 2 \
  | tee -a "$out/train.log"
models/experiments/score-valid.sh "$out" $here sections-seed2
echo ALLDONE
