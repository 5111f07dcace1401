#!/usr/bin/env bash
# The second arm of the schedule-length run (command.sh first): the uniform average of the
# weights at the end of epochs 2 and 4 of runs/epochs4 (a checkpoint average along one
# trajectory; soup/average.py; epoch 3 was not kept by the recorded run), scored on both valid
# splits (average-*).
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
here=models/experiments/epochs
mkdir -p runs/epochs4-average
cp runs/epochs4/best/config.json runs/epochs4/best/tokenizer.model runs/epochs4-average/
/usr/bin/python3 models/experiments/soup/average.py runs/epochs4-average/weights.safetensors \
  runs/epochs4/epoch-{2,4}/weights.safetensors --base runs/rpsum-ext-v2-pt/best/weights.safetensors \
  | tee $here/average.txt
e=build/release/train/rpsum-eval
for s in corpus corpus-extra; do
  suffix=${s#corpus}
  $e --model runs/epochs4-average --data_dir ../shared/data/$s --split valid --threads 2 \
    --json "$here/average-valid$suffix.json" > "$here/average-valid$suffix.md"
done
