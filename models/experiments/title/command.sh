#!/usr/bin/env bash
# The title as context the network reads: each labelled record's title becomes its document's
# first line, a '#' heading (never selected), in training and validation (titlefy.py; the test
# splits are not written). v2.3's fine-tuning (scripts/train-model's flags, seed 1) from v2.3's
# pre-trained weights in runs/rpsum-ext-v2-pt (scripts/train-model's first stage), then both
# valid splits, titled. v2.3's own weights on the titled valid splits come first (v2.3-*.md).
#   command.sh    the data into runs/title-data, the fine-tuning into runs/title, resumable
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
here=models/experiments/title
source scripts/recipe-flags
model=("${recipe[@]}" --features 6)
pt=runs/rpsum-ext-v2-pt
[ -f $pt/DONE ] || { echo "missing $pt: run scripts/train-model (its first stage)" >&2; exit 1; }
data=runs/title-data
[ -f $data/corpus-extra/valid.jsonl.gz ] || /usr/bin/python3 $here/titlefy.py ../shared/data $data
e=build/release/train/rpsum-eval
for s in corpus corpus-extra; do
  suffix=${s#corpus}
  [ -f "$here/v2.3-valid$suffix.md" ] || $e --model models/rpsum-ext --data_dir $data/$s \
    --split valid --threads 2 --json "$here/v2.3-valid$suffix.json" > "$here/v2.3-valid$suffix.md"
done
out=runs/title
mkdir -p "$out"
build/release/train/rpsum-train --data_dir "$data/corpus,$data/corpus-extra" \
  --valid_dir "$data/corpus" --out "$out" --tokenizer $pt/tokenizer.model --init_from $pt/best \
  "${model[@]}" --model_version 2.3-title --max_tokens 4096 --epochs 2 --patience 2 \
  | tee -a "$out/train.log"
RPSUM_DATA_DIR=$data models/experiments/score-valid.sh "$out" $here title
echo ALLDONE
