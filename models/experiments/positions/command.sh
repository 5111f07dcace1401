#!/usr/bin/env bash
# Relative against absolute positions (issue #52): the shipped recipe (scripts/train-recipe:
# the same data, seed, budget and reranking fit) with sinusoidal or learned absolute positions
# instead of relative ones (rpsum-train --positions; model/model_config.h
# Architecture::positions), into runs/positions-VARIANT{-pt,}; "none" is the position-free
# ablation on the same recipe (v2.1-nopos ran it on v2.1's). The relative row is the shipped
# model (models/rpsum-ext).
# Each variant's logs are copied here as VARIANT-pretrain.log, VARIANT-train.log and
# VARIANT-rerank-fit.md. Resumable: run it again after an interruption; a variant whose
# reranked checkpoint exists is not retrained.
#   command.sh [VARIANT...]      (default: sinusoidal learned none)
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
here=models/experiments/positions
cmake --preset release >/dev/null
cmake --build --preset release --target rpsum-train rpsum-eval rpsum_spm
variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(sinusoidal learned none)
for v in "${variants[@]}"; do
  out=runs/positions-$v
  if [ ! -f "$out/reranked/config.json" ]; then
    RPSUM_VERSION=2.4-$v scripts/train-recipe "$out" --positions "$v" --model_version "2.3-$v"
  fi
  cp "$out-pt/train.log" "$here/$v-pretrain.log"
  cp "$out/train.log" "$here/$v-train.log"
  cp "$out/rerank-fit.md" "$here/$v-rerank-fit.md"
done
echo ALLDONE
