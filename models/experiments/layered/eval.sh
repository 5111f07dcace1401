#!/usr/bin/env bash
# Runs at commit c882fd2: its flags and config keys left the tools after it (../README.md).
# Scores each finished layout of command.sh (runs/layered-LAYOUT/reranked, fitted by today's
# recipe: v2.5's windows by length) through the served selection on both valid splits
# (LAYOUT-valid.md, LAYOUT-valid-extra.md and their .json), against the shipped uniform k
# (models/rpsum-ext: k = 16 on every head; uniform-valid*.md) with a paired bootstrap over
# documents on both splits (LAYOUT-paired.md, ../paired.py on the same runs' dumps: the adoption
# rule's numbers),
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
shipped=models/rpsum-ext
# shellcheck source=models/experiments/valid-lib.sh
source models/experiments/valid-lib.sh
dumps=runs/layered-dumps  # each model's served summaries on both splits, per document
valid_scores "$here" uniform "$shipped" "$dumps"
layouts=("$@")
[ ${#layouts[@]} -gt 0 ] || layouts=(halves graded)
for l in "${layouts[@]}"; do
  trained=runs/layered-$l/reranked
  [ -f "$trained/config.json" ] || { echo "eval.sh: $l not trained yet ($trained)"; continue; }
  valid_scores "$here" "$l" "$trained" "$dumps"
  valid_paired "$here" uniform "$l" "$dumps"
  [ -f "$here/$l-speed.md" ] || build/release/bench/bench-model --compare "$shipped,$trained" \
    --runs 15 --threads 2 --lengths 512,4096,32768 --name "$l-speed" --out "$here"
done
# The card's table: every trained layout against uniform by length.
names=(uniform)
for l in halves graded; do
  [ -f "$dumps/$l-valid-extra.dump" ] && names+=("$l")
done
[ ${#names[@]} -gt 1 ] || { echo "eval.sh: no layout trained yet"; exit 0; }
BY_LENGTH_FLAGS=(--what layout)
by_length_tables "models/experiments/by_length.py; dumps: layered/eval.sh" "$dumps" \
  "${names[@]}" > "$here/layered.md"
cat "$here/layered.md"
