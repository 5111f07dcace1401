#!/usr/bin/env bash
# The paired bootstrap of the reranked token-salience network (runs/token-salience/reranked,
# written by command.sh) against shipped v2.4 (models/rpsum-ext) on both valid splits: the
# served summaries of each (rpsum-eval --dump), then ../paired.py into paired.md.
#   paired.sh [DUMP_DIR]     (dumps are kept in DUMP_DIR, default a temporary folder)
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
data=../shared/data
here=models/experiments/salience-rerank
dumps=${1:-$(mktemp -d)}
e=build/release/train/rpsum-eval
for split in corpus:valid corpus-extra:valid-extra; do
  dir=${split%%:*}
  name=${split##*:}
  $e --model models/rpsum-ext --data_dir "$data/$dir" --split valid --threads 2 \
    --dump "$dumps/$name-v2.4.dump" > /dev/null
  $e --model runs/token-salience/reranked --data_dir "$data/$dir" --split valid --threads 2 \
    --dump "$dumps/$name-salience.dump" > /dev/null
done
cd "$dumps"
/usr/bin/python3 "$OLDPWD/models/experiments/paired.py" valid-v2.4.dump valid-salience.dump \
  valid-extra-v2.4.dump valid-extra-salience.dump > "$OLDPWD/$here/paired.md"
