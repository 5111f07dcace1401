#!/usr/bin/env bash
# Fragments in the served summaries (docs/design.md, section 2, "Select"; model::IsFragment):
# the shipped model's served selection, which leaves fragments out unless the input has
# nothing else, against the same selection with fragments allowed (the served policy before
# the rule), on the same scores: rpsum-eval --selection_study's "served" and "fragments
# allowed" rows, each with the fragments its summaries hold. Valid splits and the benchmarks'
# development splits only.
#   command.sh [MODEL]   MODEL: checkpoint directory (models/rpsum-ext)
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
data=../shared/data
model=${1:-models/rpsum-ext}
here=models/experiments/fragments
e=build/release/train/rpsum-eval
run() {  # NAME ARGS...
  local name=$1
  shift
  $e --model "$model" --threads 2 --selection_study --json "$here/$name.json" "$@" \
    > "$here/$name.md"
}
run valid --data_dir "$data/corpus" --split valid
run valid-extra --data_dir "$data/corpus-extra" --split valid
run qmsum_val --file "$data/benchmarks/qmsum_val.jsonl.gz"
run squality_dev --file "$data/benchmarks/squality_dev.jsonl.gz"
