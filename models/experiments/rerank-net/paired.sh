#!/usr/bin/env bash
# How sure is the reranking's gain? Dumps the valid splits' served summaries of the reranked
# checkpoint (runs/rerank-net, written by command.sh) and of the same checkpoint with
# --no_rerank (v2.3's greedy selection: the same network), then a paired bootstrap over
# documents (../paired.py) into paired.md.
#   paired.sh [DUMP_DIR]     (dumps are kept in DUMP_DIR, default a temporary folder)
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
data=../shared/data
here=models/experiments/rerank-net
dumps=${1:-$(mktemp -d)}
e=build/release/train/rpsum-eval
for split in corpus:valid corpus-extra:valid-extra; do
  dir=${split%%:*}
  name=${split##*:}
  $e --model runs/rerank-net --data_dir "$data/$dir" --split valid --threads 2 \
    --dump "$dumps/$name-reranked.dump" > /dev/null
  $e --model runs/rerank-net --data_dir "$data/$dir" --split valid --threads 2 --no_rerank \
    --dump "$dumps/$name-greedy.dump" > /dev/null
done
cd "$dumps"
"$OLDPWD/models/experiments/paired.py" valid-greedy.dump valid-reranked.dump \
  valid-extra-greedy.dump valid-extra-reranked.dump > "$OLDPWD/$here/paired.md"
