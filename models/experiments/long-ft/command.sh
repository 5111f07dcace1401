#!/usr/bin/env bash
# long-ft (issue #74): does reading whole long documents help the network we ship? v2.5's
# network (models/rpsum-ext) fine-tuned one more epoch on corpus + corpus-extra + ScisummNet
# train + the long-document set's train split (train/longdocs), whole documents up to 65,536
# tokens (a longer one is cut there), at a lower peak learning rate (2e-4), validated on
# corpus + ScisummNet valid; then the recipe's summary-level reranking fit (scripts/train-recipe's
# last stage), and both it and v2.5 on the valid splits through bench/longdoc (corpus,
# corpus-extra, ScisummNet, long documents), with paired intervals of the one against the other
# (../paired.py). Validation splits only: the test splits judge a model about to ship.
# Resumable: run the same command again (rpsum-train continues from OUT/state).
#   models/experiments/long-ft/command.sh [OUT]      (default runs/long-ft)
# A variant names itself and its training folders: LONG_FT_NAME (default long-ft: its OUT
# runs/NAME, its results in models/experiments/NAME, its version 2.6-NAME) and LONG_FT_DATA
# (default the four folders above; long-ft-corpus/command.sh leaves out ScisummNet).
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
source scripts/recipe-flags
data=${RPSUM_DATA_DIR:-../shared/data}
name=${LONG_FT_NAME:-long-ft}
train_data=${LONG_FT_DATA:-$data/corpus,$data/corpus-extra,$data/scisumm,train/longdocs}
out=${1:-runs/$name}
here=models/experiments/$name
mkdir -p "$out"
cmake --build --preset release --target rpsum-train rpsum-eval rpsum_spm >/dev/null
if [ ! -f "$out/DONE" ]; then
  build/release/train/rpsum-train \
    --data_dir "$train_data" \
    --valid_dir "$data/corpus,$data/scisumm" --out "$out" \
    --tokenizer models/rpsum-ext/tokenizer.model --init_from models/rpsum-ext \
    "${recipe[@]}" --features 6 --model_version "2.6-$name" --max_tokens 65536 \
    --epochs 1 --lr 2e-4 --warmup 50 | tee -a "$out/train.log"
  touch "$out/DONE"
fi
if [ ! -f "$out/reranked/config.json" ]; then
  build/release/train/rpsum-eval --model "$out/best" --threads 2 \
    --data_dir "$data/corpus,$data/corpus-extra" --split train --fit_rerank "$out/reranked.part" \
    "${rerank[@]}" "${served[@]}" --rerank_version "2.6-$name" > "$out/rerank-fit.md"
  rm -rf "$out/reranked"
  mv "$out/reranked.part" "$out/reranked"
fi
RPSUM_DUMPS=$out/dumps-v2.5 bench/longdoc/run models/rpsum-ext "$here/valid-v2.5" valid
RPSUM_DUMPS=$out/dumps bench/longdoc/run "$out/reranked" "$here/valid-$name" valid
sets=(corpus_valid corpus_extra_valid scisumm_valid longdocs_valid)
pairs=()
for s in "${sets[@]}"; do pairs+=("$out/dumps-v2.5/$s.dump" "$out/dumps/$s.dump"); done
/usr/bin/python3 models/experiments/paired.py "${pairs[@]}" > "$here/paired.md"
cp "$out/train.log" "$out/rerank-fit.md" "$here/"
