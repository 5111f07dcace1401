#!/usr/bin/env bash
# TF-IDF-weighted served centrality (models/experiments/HISTORY.md, idf-centrality): document
# frequencies over unlabeled/ and the training splits (df.py), then the shipped network on both
# valid splits with greedy selection (--no_rerank) at centrality weights 0.1, 0.2 and 0.3, with
# the plain content-word cosine and with its IDF-weighted form (rpsum-eval --idf_file, in the
# code at commit d47a389 only; build that commit).
#   command.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
data=../shared/data
here=models/experiments/idf-centrality
tmp=${TMPDIR:-/tmp}/idf-centrality
mkdir -p "$tmp"
/usr/bin/python3 $here/df.py "$data" "$tmp/df.tsv"
# The check that a file of "0" (every weight 1) gives the plain feature: ones-check-*.md, the w 0
# row of the fusion table (the served scores at the config's weight 0.2, greedy).
echo 0 > "$tmp/ones.tsv"
e=build/release/train/rpsum-eval
$e --model models/rpsum-ext --data_dir "$data/corpus" --split valid --threads 2 \
  --fusion_study 0,0.1,0.2,0.3,0.4 --idf_file "$tmp/ones.tsv" > "$here/ones-check-valid.md"
$e --model models/rpsum-ext --data_dir "$data/corpus" --split valid --threads 2 \
  --fusion_study 0,0.1,0.2,0.3,0.4 > "$here/ones-check-plain-valid.md"
for split in corpus corpus-extra; do
  name=valid
  [ $split = corpus ] || name=valid-extra
  for w in 0.1 0.2 0.3; do
    build/release/train/rpsum-eval --model models/rpsum-ext --data_dir "$data/$split" --split valid \
      --threads 2 --no_rerank --centrality_weight $w > "$here/$name-plain-w$w.md"
    build/release/train/rpsum-eval --model models/rpsum-ext --data_dir "$data/$split" --split valid \
      --threads 2 --no_rerank --centrality_weight $w --idf_file "$tmp/df.tsv" > "$here/$name-idf-w$w.md"
  done
done
