#!/usr/bin/env bash
# Units that do not cut technical text (docs/design.md section 2, step 3; model::SplitUnits):
# the valid splits and the benchmarks' development splits scored, with the splitter as it is
# now, for v2.2's weights (commit b12d34f's models/rpsum-ext, trained on the old units; files
# v2.2-*) and for the model the same recipe trains on the new units (v2.3: scripts/train-model,
# models/rpsum-ext; files v2.3-*). v2.2 with the old splitter is experiments/v2.2/ and
# experiments/fragments/ (row "served"). Also counts, per split, the units each splitter makes
# (units.txt, from the dumps: v2.2 before and after are the same weights).
#   command.sh [V2.3_MODEL]   (models/rpsum-ext)
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
data=../shared/data
here=models/experiments/units
v23=${1:-models/rpsum-ext}
v22=runs/v2.2-model
mkdir -p "$v22"
for f in config.json tokenizer.model weights.safetensors; do
  git show "b12d34f:models/rpsum-ext/$f" > "$v22/$f"
done
e=build/release/train/rpsum-eval
for m in v2.2 v2.3; do
  model=$v22
  [ "$m" = v2.3 ] && model=$v23
  run() {  # NAME ARGS...
    local name=$1
    shift
    $e --model "$model" --threads 2 --json "$here/$m-$name.json" "$@" > "$here/$m-$name.md"
  }
  run valid --data_dir "$data/corpus" --split valid
  run valid-extra --data_dir "$data/corpus-extra" --split valid
  run qmsum_val --file "$data/benchmarks/qmsum_val.jsonl.gz"
  run squality_dev --file "$data/benchmarks/squality_dev.jsonl.gz"
done
