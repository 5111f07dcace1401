#!/usr/bin/env bash
# Scores each finished layout of command.sh (runs/layered-LAYOUT/reranked, fitted by today's
# recipe: v2.5's windows by length) through the served selection on both valid splits
# (LAYOUT-valid.md, LAYOUT-valid-extra.md and their .json), against the shipped uniform k
# (models/rpsum-ext: k = 16 on every head; uniform-valid*.md) with a paired bootstrap over
# documents on both splits (LAYOUT-paired.md, ../paired-valid.sh: the adoption rule's numbers),
# and the forward's time against the shipped model's at 512, 4,096 and 32,768 tokens
# (LAYOUT-speed.{md,json}: bench-model --compare, 15 alternated runs, medians). Then the model
# card's table, every layout by document length with paired intervals, in full and in the
# card's form (layered.md, ../by_length.py; dumps in runs/layered-dumps). Skips a layout or a
# dump already made; run from anywhere.
#   eval.sh [LAYOUT...]      (default: halves graded)
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
cmake --build --preset release --target rpsum-eval bench-model rpsum_spm
here=models/experiments/layered
data=${RPSUM_DATA_DIR:-../shared/data}
e=build/release/train/rpsum-eval
shipped=models/rpsum-ext
score() {  # NAME MODEL: both valid splits into NAME-valid{,-extra}.{md,json}
  [ -f "$here/$1-valid-extra.md" ] && return
  $e --model "$2" --data_dir "$data/corpus" --split valid --threads 2 \
    --json "$here/$1-valid.json" > "$here/$1-valid.md"
  $e --model "$2" --data_dir "$data/corpus-extra" --split valid --threads 2 \
    --json "$here/$1-valid-extra.json" > "$here/$1-valid-extra.md"
}
score uniform "$shipped"
layouts=("$@")
[ ${#layouts[@]} -gt 0 ] || layouts=(halves graded)
for l in "${layouts[@]}"; do
  trained=runs/layered-$l/reranked
  [ -f "$trained/config.json" ] || { echo "eval.sh: $l not trained yet ($trained)"; continue; }
  score "$l" "$trained"
  [ -f "$here/$l-paired.md" ] || models/experiments/paired-valid.sh "$here/$l-paired.md" \
    uniform "$shipped" "$l" "$trained"
  [ -f "$here/$l-speed.md" ] || build/release/bench/bench-model --compare "$shipped,$trained" \
    --runs 15 --threads 2 --lengths 512,4096,32768 --name "$l-speed" --out "$here"
done
# The card's table: each scored model's served summaries on both splits, then by length.
dumps=runs/layered-dumps
mkdir -p "$dumps"
names=(uniform)
for l in halves graded; do
  [ -f "runs/layered-$l/reranked/config.json" ] && names+=("$l")
done
[ ${#names[@]} -gt 1 ] || { echo "eval.sh: no layout trained yet"; exit 0; }
for n in "${names[@]}"; do
  model=runs/layered-$n/reranked
  [ "$n" = uniform ] && model=$shipped
  for split in corpus:valid corpus-extra:valid-extra; do
    f=$dumps/$n-${split##*:}.dump
    [ -f "$f" ] && continue
    $e --model "$model" --data_dir "$data/${split%%:*}" --split valid --threads 2 \
      --dump "$f.part" > /dev/null
    mv "$f.part" "$f"
  done
done
table=(/usr/bin/python3 models/experiments/by_length.py --what "layout" \
  --source "models/experiments/by_length.py; dumps: layered/eval.sh" "$dumps" "${names[@]}")
{
  "${table[@]}"
  printf '\n## In the model card\n\n'
  "${table[@]}" --card
} > "$here/layered.md"
cat "$here/layered.md"
