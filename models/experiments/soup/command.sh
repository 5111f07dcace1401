#!/usr/bin/env bash
# Model soup: seed 2 of v2.2's fine-tuning (scripts/train-model's second stage, --seed 2) from
# the same pre-trained weights (runs/rpsum-ext-v2-pt/best), to average with v2.2's weights
# (runs/rpsum-ext-v2/best, = models/rpsum-ext): the uniform weight average (soup-*) and the mean
# of the two models' served scores (ensemble-*) on both valid splits. soup-whole-valid.*: the
# average of v2.2 and models/experiments/whole's weights (runs/whole/best).
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
data=../shared/data
model=(--vocab_size 8000 --hidden 192 --heads 4 --ffn 768 --token_layers 3 --unit_layers 2
  --max_clip 256 --unit_clip 16 --clip_policy_max 16 --local_threshold 1024
  --local_window 256 --max_tokens_per_unit 48 --dropout 0.1 --lr 5e-4 --warmup 100
  --batch_tokens 8192 --pos_weight 2 --soft_labels 0.5 --features 6 --centrality_weight 0.2
  --model_version 2.2-s2 --seed 2 --threads 2 --checkpoint_every 50)
build/release/train/rpsum-train --data_dir "$data/corpus,$data/corpus-extra" \
  --valid_dir "$data/corpus" --out runs/soup-s2 --tokenizer runs/rpsum-ext-v2-pt/tokenizer.model \
  --init_from runs/rpsum-ext-v2-pt/best "${model[@]}" --max_tokens 4096 --epochs 2 --patience 2 \
  "$@" | tee -a runs/soup-s2.log
here=models/experiments/soup
mkdir -p runs/soup
cp runs/rpsum-ext-v2/best/* runs/soup/  # config and tokenizer; the weights are replaced
pt=runs/rpsum-ext-v2-pt/best/weights.safetensors
{
  /usr/bin/python3 $here/average.py runs/soup/weights.safetensors \
    runs/rpsum-ext-v2/best/weights.safetensors runs/soup-s2/best/weights.safetensors --base $pt
  mkdir -p runs/soup-whole
  cp runs/rpsum-ext-v2/best/* runs/soup-whole/
  /usr/bin/python3 $here/average.py runs/soup-whole/weights.safetensors \
    runs/rpsum-ext-v2/best/weights.safetensors runs/whole/best/weights.safetensors --base $pt
} | tee $here/average.txt
e=build/release/train/rpsum-eval
for split in valid:corpus valid-extra:corpus-extra; do
  name=${split%%:*} set=${split#*:}
  $e --model runs/soup --data_dir "$data/$set" --split valid --threads 2 \
    --json "$here/soup-$name.json" > "$here/soup-$name.md"
  $e --model runs/rpsum-ext-v2/best --ensemble_with runs/soup-s2/best --data_dir "$data/$set" \
    --split valid --threads 2 --json "$here/ensemble-$name.json" > "$here/ensemble-$name.md"
done
$e --model runs/soup-whole --data_dir "$data/corpus" --split valid --threads 2 \
  --json $here/soup-whole-valid.json > $here/soup-whole-valid.md
echo ALLDONE
