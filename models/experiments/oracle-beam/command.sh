#!/usr/bin/env bash
# Oracle-expectation labels (Xu and Lapata 2023): v2.2's fine-tuning (scripts/train-model's
# flags, seed 1, from the same pre-trained weights) with the binary half of its labels replaced
# by each unit's expectation over a beam of BEAM oracle selections (rpsum-train --oracle_beam,
# train/oracle.h OracleExpectation); the salience half (--soft_labels 0.5) is unchanged. The
# pre-training is scripts/train-model's first stage in runs/rpsum-ext-v2-pt; run
# ../ft-lr/command.sh 5e-4 pt first where that folder is missing (its log must match
# models/rpsum-ext/results/pretrain.log).
#   command.sh BEAM    the fine-tuning, resumable, then the two validation splits
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
data=../shared/data
beam=${1:?usage: command.sh BEAM}
here=models/experiments/oracle-beam
model=(--vocab_size 8000 --hidden 192 --heads 4 --ffn 768 --token_layers 3 --unit_layers 2
  --max_clip 256 --unit_clip 16 --clip_policy_max 16 --local_threshold 1024
  --local_window 256 --max_tokens_per_unit 48 --dropout 0.1 --lr 5e-4 --warmup 100
  --batch_tokens 8192 --pos_weight 2 --soft_labels 0.5 --features 6 --centrality_weight 0.2
  --seed 1 --threads 2 --checkpoint_every 50)
pt=runs/rpsum-ext-v2-pt
[ -f $pt/DONE ] || { echo "missing $pt: run models/experiments/ft-lr/command.sh 5e-4 pt" >&2; exit 1; }
out=runs/oracle-beam-$beam
mkdir -p "$out"
build/release/train/rpsum-train --data_dir "$data/corpus,$data/corpus-extra" \
  --valid_dir "$data/corpus" --out "$out" --tokenizer $pt/tokenizer.model --init_from $pt/best \
  "${model[@]}" --oracle_beam "$beam" --model_version "2.3-beam$beam" --max_tokens 4096 \
  --epochs 2 --patience 2 | tee -a "$out/train.log"
models/experiments/score-valid.sh "$out" $here "beam$beam"
echo ALLDONE
