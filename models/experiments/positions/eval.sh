#!/usr/bin/env bash
# Scores each finished variant of command.sh (runs/positions-VARIANT/reranked) through the served
# selection on both valid splits (VARIANT-valid.md, VARIANT-valid-extra.md and their .json: by
# length, ">=4k" words being the documents past the 4,096-token training heads, served whole),
# and against the shipped relative model (models/rpsum-ext; relative-valid*.md) with a paired
# bootstrap over documents on both splits (VARIANT-paired.md, ../paired-valid.sh). Skips a
# variant already scored; run from anywhere.
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
score relative models/rpsum-ext
variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(sinusoidal learned none)
for v in "${variants[@]}"; do
  run=runs/positions-$v/reranked
  [ -f "$run/config.json" ] || { echo "eval.sh: $v not trained yet ($run)"; continue; }
  score "$v" "$run"
  [ -f "$here/$v-paired.md" ] || models/experiments/paired-valid.sh "$here/$v-paired.md" \
    relative models/rpsum-ext "$v" "$run"
done
