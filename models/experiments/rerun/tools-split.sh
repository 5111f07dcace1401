#!/usr/bin/env bash
# Does a change to the trainer or the evaluator keep the recipe's output byte for byte? The
# recipe's two training stages (scripts/train-recipe's flags, 60 documents and 6 steps each
# instead of thousands) and the reranking's fit (40 corpus train documents) with two builds:
# BEFORE (for example the release build of the commit before the change, copied aside) and
# AFTER. Prints the SHA-256 (first 16 hex digits) of each stage's weights and the fit's
# config.json; equal rows mean the same weights from the same code path scripts/train-model
# runs, in minutes instead of 86.
#   models/experiments/rerun/tools-split.sh BEFORE_BIN_DIR AFTER_BIN_DIR   (dirs holding rpsum-train, rpsum-eval)
# When the change renamed flags or the shipped config.json's keys, BEFORE_RECIPE_FLAGS (a copy
# of the old scripts/recipe-flags) and BEFORE_MODEL (the shipped model with the old config.json)
# give BEFORE what it reads; the rows then compare weights, not config.json.
set -euo pipefail
cd "$(dirname "$0")/../../.."
source scripts/cpu-env
source scripts/recipe-flags
data=${RPSUM_DATA_DIR:-../shared/data}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| build | pre-training weights | fine-tuning weights | fine-tuned config.json | fitted config.json |"
echo "| --- | --- | --- | --- | --- |"
for which in before after; do
  bin=$1 model=${BEFORE_MODEL:-models/rpsum-ext}
  # shellcheck source=scripts/recipe-flags
  source "${BEFORE_RECIPE_FLAGS:-scripts/recipe-flags}"
  if [ "$which" = after ]; then
    bin=$2 model=models/rpsum-ext
    source scripts/recipe-flags
  fi
  out=$tmp/$which
  "$bin/rpsum-train" --data_dir "$data/corpus,$data/corpus-extra" \
    --pretrain_file "$data/unlabeled/part-00.jsonl.gz" --max_docs 60 --pseudo_ratio 0.05 \
    --mlm_weight 1 --valid_dir "$data/corpus" --valid_docs 8 --out "$out-pt" "${recipe[@]}" \
    --features 6 --model_version 2.3 --tokenizer models/rpsum-ext/tokenizer.model \
    --max_tokens 2048 --epochs 1 --max_steps 6 > "$out-pt.log" 2>&1
  # One --init_from path for both builds: the fine-tuned config.json records it.
  rm -rf "$tmp/pt" && mkdir -p "$tmp/pt" && cp -r "$out-pt/best" "$tmp/pt/best"
  "$bin/rpsum-train" --data_dir "$data/corpus,$data/corpus-extra" --valid_dir "$data/corpus" \
    --valid_docs 8 --max_docs 60 --out "$out" --tokenizer models/rpsum-ext/tokenizer.model \
    --init_from "$tmp/pt/best" "${recipe[@]}" --features 6 --model_version 2.3 \
    --max_tokens 4096 --epochs 1 --max_steps 6 > "$out.log" 2>&1
  "$bin/rpsum-eval" --model "$model" --threads 2 --data_dir "$data/corpus" --split train \
    --limit 40 --fit_rerank "$out-fit" "${rerank[@]}" --rerank_version 2.4 > "$out-fit.md"
  echo "| $which | $(sha256sum < "$out-pt/best/weights.safetensors" | cut -c1-16) |" \
       "$(sha256sum < "$out/best/weights.safetensors" | cut -c1-16) |" \
       "$(sha256sum < "$out/best/config.json" | cut -c1-16) |" \
       "$(sha256sum < "$out-fit/config.json" | cut -c1-16) |"
done
