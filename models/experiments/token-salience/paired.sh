#!/usr/bin/env bash
# The paired bootstrap of token-salience against v2.3 on both valid splits: rpsum-eval --dump
# of v2.3's network (models/rpsum-ext without its reranking, --no_rerank: v2.3 exactly) and of
# runs/token-NAME/best, then models/experiments/paired.py. Dumps go to $TMPDIR.
#   paired.sh [NAME]   NAME salience (default, paired.md) or salience-wW (paired-wW.md)
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
here=models/experiments/token-salience
name=${1:-salience}
out=$here/paired${name#salience}.md
tmp=${TMPDIR:-/tmp}/token-salience
mkdir -p "$tmp"
e=build/release/train/rpsum-eval
for s in corpus corpus-extra; do
  $e --model models/rpsum-ext --no_rerank --data_dir "../shared/data/$s" --split valid \
    --threads 2 --dump "$tmp/v23-$s.dump" > /dev/null
  $e --model "runs/token-$name/best" --data_dir "../shared/data/$s" --split valid --threads 2 \
    --dump "$tmp/$name-$s.dump" > /dev/null
done
(cd "$tmp" && /usr/bin/python3 "$OLDPWD/models/experiments/paired.py" v23-corpus.dump \
  "$name-corpus.dump" v23-corpus-extra.dump "$name-corpus-extra.dump") > "$out"
