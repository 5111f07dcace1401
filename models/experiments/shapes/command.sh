#!/usr/bin/env bash
# Which larger networks fit the issue's speed bar (a forward on 4,096 tokens at most 1.3x v1's)?
# Speed does not depend on the weights' values, so each shape is a checkpoint from a few seconds
# of training (16 documents), timed against v1 by bench-model --compare (15 runs, medians, 2
# threads, both models side by side in one run); v2.2 (models/rpsum-ext) as the reference row.
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
data=../shared/data
here=models/experiments/shapes
common=(--vocab_size 8000 --unit_layers 2 --max_clip 256 --unit_clip 16
  --clip_policy_max 16 --local_threshold 1024 --local_window 256 --max_tokens_per_unit 48
  --features 6 --centrality_weight 0.2 --seed 1 --threads 2 --max_tokens 1024 --epochs 1
  --max_docs 16 --valid_docs 4 --tokenizer models/rpsum-ext/tokenizer.model
  --data_dir "$data/corpus" --valid_dir "$data/corpus")
shapes=("h224:--hidden 224 --heads 4 --ffn 896 --token_layers 3"
  "h256:--hidden 256 --heads 4 --ffn 1024 --token_layers 3"
  "l4:--hidden 192 --heads 4 --ffn 768 --token_layers 4"
  "f1536:--hidden 192 --heads 4 --ffn 1536 --token_layers 3")
: > $here/speed.md
for s in "${shapes[@]}"; do
  name=${s%%:*}
  read -r -a flags <<< "${s#*:}"
  build/release/train/rpsum-train "${common[@]}" "${flags[@]}" --model_version "shape-$name" \
    --out "runs/shape-$name" > /dev/null
  echo "## $name: ${s#*:}" >> $here/speed.md
  build/release/bench/bench-model --compare "models/rpsum-ext-v1,runs/shape-$name/best" --runs 15 \
    --threads 2 | tee -a $here/speed.md
done
echo "## v2.2 (models/rpsum-ext)" >> $here/speed.md
build/release/bench/bench-model --compare models/rpsum-ext-v1,models/rpsum-ext --runs 15 \
  --threads 2 | tee -a $here/speed.md
