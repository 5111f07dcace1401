#!/usr/bin/env bash
# Runs at commit c882fd2: its flags and config keys left the tools after it (../README.md).
# Scores each finished variant of command.sh (runs/positions-VARIANT/reranked) through the served
# selection on both valid splits (VARIANT-valid.md, VARIANT-valid-extra.md and their .json: by
# length, ">=4k" words being the documents past the 4,096-token training heads, served whole),
# and against the shipped relative model as v2.4 served it (models/rpsum-ext with one window
# at every length, ../policy/one-window.sh: the variants were fitted like v2.4, before the
# window by length of v2.5; relative-valid*.md) with a paired bootstrap over documents on both
# splits (VARIANT-paired.md: ../paired.py on the same runs' dumps; the committed ones were
# made by ../paired-valid.sh, which reran the same evaluations). Then the model card's table, every model by
# document length with paired intervals, in full and in the card's form, and the absolute
# variants against none (positions.md, ../by_length.py; dumps in runs/positions-dumps).
# Skips a variant or a dump already made; run from anywhere.
#   eval.sh [VARIANT...]      (default: sinusoidal learned none)
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
here=models/experiments/positions
# shellcheck source=models/experiments/valid-lib.sh
source models/experiments/valid-lib.sh
relative=runs/positions-relative
models/experiments/policy/one-window.sh models/rpsum-ext "$relative"
dumps=runs/positions-dumps  # each model's served summaries on both splits, per document
valid_scores "$here" relative "$relative" "$dumps"
variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(sinusoidal learned none)
for v in "${variants[@]}"; do
  trained=runs/positions-$v/reranked
  [ -f "$trained/config.json" ] || { echo "eval.sh: $v not trained yet ($trained)"; continue; }
  # One window, like the relative row (a fit by today's recipe adds the window by length).
  run=runs/positions-$v/one-window
  models/experiments/policy/one-window.sh "$trained" "$run" "2.4-$v"
  valid_scores "$here" "$v" "$run" "$dumps"
  valid_paired "$here" relative "$v" "$dumps"
done
# The card's table: every scored variant against relative by length.
names=(relative)
for v in sinusoidal learned none; do
  [ -f "$dumps/$v-valid-extra.dump" ] && names+=("$v")
done
src="models/experiments/by_length.py; dumps: positions/eval.sh"
BY_LENGTH_FLAGS=()
{
  by_length_tables "$src" "$dumps" "${names[@]}"
  if [ -f "$dumps/none-valid-extra.dump" ]; then  # absolute against no positions
    printf '\n## Absolute positions against none\n\n'
    /usr/bin/python3 models/experiments/by_length.py --source "$src" "$dumps" none \
      sinusoidal learned
  fi
} > "$here/positions.md"
cat "$here/positions.md"
