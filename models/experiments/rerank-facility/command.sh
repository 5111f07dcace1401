#!/usr/bin/env bash
# Runs at commit 7249061: --rerank_dump and --rerank_dump_states left rpsum-eval after it (../README.md).
# Facility-location coverage as a reranking feature (models/experiments/HISTORY.md,
# rerank-facility): dumps the shipped network's candidates on corpus + corpus-extra train with
# every unit's state (rpsum-eval --rerank_dump_all_states, in the code at commit 90aec14 only;
# build that commit), then 5-fold cross-validation against v2.4's design (cv5.py). The dump
# (about 1 GB) goes to $TMPDIR.
#   command.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
data=../shared/data
here=models/experiments/rerank-facility
tmp=${TMPDIR:-/tmp}/rerank-facility
mkdir -p "$tmp"
build/release/train/rpsum-eval --model models/rpsum-ext --data_dir "$data/corpus,$data/corpus-extra" \
  --split train --threads 2 --no_rerank --rerank_dump "$tmp/train.jsonl" --rerank_dump_states \
  --rerank_dump_all_states > /dev/null
/usr/bin/python3 $here/cv5.py "$tmp/train.jsonl" > $here/cv5.txt
