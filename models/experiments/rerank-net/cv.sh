#!/usr/bin/env bash
# The design study behind command.sh, on the training splits only: dump v2.3's reranking
# candidates (features, ROUGE-1/2 F1, units, the network's unit states) for corpus + corpus-extra
# train, then compare candidate scorers by 5-fold cross-validation (cv1.py, cv2.py: the objective
# of rpsum-eval --fit_rerank, in Python). pychoice.py fits the chosen design on all of train and
# scores the valid splits' dumps once. The dumps (about 270 MB) go to $TMPDIR.
#   cv.sh [MODEL_DIR]
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
data=../shared/data
model=${1:-models/rpsum-ext}
here=models/experiments/rerank-net
tmp=${TMPDIR:-/tmp}/rerank-net
mkdir -p "$tmp"
e=build/release/train/rpsum-eval
$e --model "$model" --data_dir "$data/corpus,$data/corpus-extra" --split train --threads 2 \
  --no_rerank --rerank_dump "$tmp/train.jsonl" --rerank_dump_states > /dev/null
$e --model "$model" --data_dir "$data/corpus" --split valid --threads 2 \
  --no_rerank --rerank_dump "$tmp/valid.jsonl" --rerank_dump_states > /dev/null
$e --model "$model" --data_dir "$data/corpus-extra" --split valid --threads 2 \
  --no_rerank --rerank_dump "$tmp/valid-extra.jsonl" --rerank_dump_states > /dev/null
/usr/bin/python3 $here/cv1.py cv "$tmp/train.jsonl" > $here/cv1.txt
/usr/bin/python3 $here/cv2.py "$tmp/train.jsonl" "hand3+net2 l2.01" "hand3+net2 l2.001" \
  "hand3+net2 l2.1" "hand3+net6 l2.01" "hand11+net6 l2.001" "hand11+net2 l2.01" \
  "hand3+net2+proj(l2 1)" "hand3+net2+proj(l2 .1)" > $here/cv2.txt
/usr/bin/python3 $here/pychoice.py "hand3+net6 l2.01" "$tmp/train.jsonl" "$tmp/valid.jsonl" \
  "$tmp/valid-extra.jsonl" > $here/pychoice.txt
