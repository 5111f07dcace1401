#!/usr/bin/env bash
# Runs at commit 7249061: --rerank_dump and --rerank_dump_states left rpsum-eval after it (../README.md).
# Lead-like candidates in v2.4's reranking pool (models/experiments/HISTORY.md, rerank-lead):
# dumps the shipped network's candidates on corpus + corpus-extra train with the lead set and
# the first-plus set added (rpsum-eval --rerank_lead: raw features, kinds, the pool's size),
# then compares scorers and pools by 5-fold cross-validation (cv4.py, the objective and folds
# of rerank-net/cv2.py). The dump (about 350 MB) goes to $TMPDIR. --rerank_lead is in
# rpsum-eval at commit 2896fb9 only (removed after: the lever did not work); build that commit.
#   command.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
data=../shared/data
here=models/experiments/rerank-lead
tmp=${TMPDIR:-/tmp}/rerank-lead
mkdir -p "$tmp"
build/release/train/rpsum-eval --model models/rpsum-ext --data_dir "$data/corpus,$data/corpus-extra" \
  --split train --threads 2 --no_rerank --rerank_lead --rerank_dump "$tmp/train.jsonl" \
  --rerank_dump_states > /dev/null
/usr/bin/python3 $here/cv4.py "$tmp/train.jsonl" > $here/cv4.txt
