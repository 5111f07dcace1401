#!/usr/bin/env bash
# Scores each finished variant of command.sh (runs/positions-VARIANT/reranked) through the served
# selection on both valid splits (VARIANT-valid.md, VARIANT-valid-extra.md and their .json: by
# length, ">=4k" words being the documents past the 4,096-token training heads, served whole),
# and against the shipped relative model as v2.4 served it (models/rpsum-ext with one window
# at every length, ../policy/one-window.sh: the variants were fitted like v2.4, before the
# window by length of v2.5; relative-valid*.md) with a paired bootstrap over documents on both
# splits (VARIANT-paired.md, ../paired-valid.sh). Then the model card's table, every model by
# document length with paired intervals, in full and in the card's form, and the absolute
# variants against none (positions.md, ../by_length.py; dumps in runs/positions-dumps).
# Skips a variant or a dump already made; run from anywhere.
#   eval.sh [VARIANT...]      (default: sinusoidal learned none)
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
here=models/experiments/positions
data=${RPSUM_DATA_DIR:-../shared/data}
e=build/release/train/rpsum-eval
score() {  # NAME MODEL: both valid splits into NAME-valid{,-extra}.{md,json}
  [ -f "$here/$1-valid-extra.md" ] && return
  $e --model "$2" --data_dir "$data/corpus" --split valid --threads 2 \
    --json "$here/$1-valid.json" > "$here/$1-valid.md"
  $e --model "$2" --data_dir "$data/corpus-extra" --split valid --threads 2 \
    --json "$here/$1-valid-extra.json" > "$here/$1-valid-extra.md"
}
relative=runs/positions-relative
models/experiments/policy/one-window.sh models/rpsum-ext "$relative"
score relative "$relative"
variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(sinusoidal learned none)
for v in "${variants[@]}"; do
  trained=runs/positions-$v/reranked
  [ -f "$trained/config.json" ] || { echo "eval.sh: $v not trained yet ($trained)"; continue; }
  # One window, like the relative row (a fit by today's recipe adds the window by length).
  run=runs/positions-$v/one-window
  models/experiments/policy/one-window.sh "$trained" "$run" "2.4-$v"
  score "$v" "$run"
  [ -f "$here/$v-paired.md" ] || models/experiments/paired-valid.sh "$here/$v-paired.md" \
    relative "$relative" "$v" "$run"
done
# The card's table: each scored model's served summaries on both splits, then by length.
dumps=runs/positions-dumps
mkdir -p "$dumps"
names=(relative)
for v in sinusoidal learned none; do
  [ -f "runs/positions-$v/one-window/config.json" ] && names+=("$v")
done
for n in "${names[@]}"; do
  model=runs/positions-$n/one-window
  [ "$n" = relative ] && model=$relative
  for split in corpus:valid corpus-extra:valid-extra; do
    f=$dumps/$n-${split##*:}.dump
    [ -f "$f" ] && continue
    $e --model "$model" --data_dir "$data/${split%%:*}" --split valid --threads 2 \
      --dump "$f.part" > /dev/null
    mv "$f.part" "$f"
  done
done
table=(/usr/bin/python3 models/experiments/by_length.py
  --source "models/experiments/by_length.py; dumps: positions/eval.sh" "$dumps" "${names[@]}")
{
  "${table[@]}"
  printf '\n## In the model card\n\n'
  "${table[@]}" --card
  if [ -f runs/positions-none/one-window/config.json ]; then  # absolute against no positions
    printf '\n## Absolute positions against none\n\n'
    /usr/bin/python3 models/experiments/by_length.py \
      --source "models/experiments/by_length.py; dumps: positions/eval.sh" "$dumps" none \
      sinusoidal learned
  fi
} > "$here/positions.md"
cat "$here/positions.md"
