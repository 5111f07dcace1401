#!/usr/bin/env bash
# The end of a fine-tuning experiment: copies RUN's train.log and best/config.json into DEST as
# PREFIX-train.log and PREFIX-config.json, then scores RUN/best on corpus valid (PREFIX-valid.md,
# .json) and corpus-extra valid (PREFIX-valid-extra.md, .json) with rpsum-eval, the served
# selection. Run from the checkout.
#   models/experiments/score-valid.sh RUN DEST PREFIX
set -euo pipefail
run=${1:?usage: score-valid.sh RUN DEST PREFIX}
dest=${2:?usage: score-valid.sh RUN DEST PREFIX}
prefix=${3:?usage: score-valid.sh RUN DEST PREFIX}
data=${RPSUM_DATA_DIR:-../shared/data}
cp "$run/train.log" "$dest/$prefix-train.log"
cp "$run/best/config.json" "$dest/$prefix-config.json"
e=build/release/train/rpsum-eval
$e --model "$run/best" --data_dir "$data/corpus" --split valid --threads 2 \
  --json "$dest/$prefix-valid.json" > "$dest/$prefix-valid.md"
$e --model "$run/best" --data_dir "$data/corpus-extra" --split valid --threads 2 \
  --json "$dest/$prefix-valid-extra.json" > "$dest/$prefix-valid-extra.md"
