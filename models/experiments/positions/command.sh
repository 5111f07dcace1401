#!/usr/bin/env bash
# Runs at commit c882fd2: its flags and config keys left the tools after it (../README.md).
# Relative against absolute positions (issue #52): the shipped recipe (scripts/train-recipe:
# the same data, seed, budget and reranking fit) with sinusoidal or learned absolute positions
# instead of relative ones (rpsum-train --positions; model/model_config.h
# Architecture::positions), into runs/positions-VARIANT{-pt,}; "none" is the position-free
# ablation on the same recipe (v2.1-nopos ran it on v2.1's). The relative row is the shipped
# model (models/rpsum-ext).
# Each variant's logs are copied here as VARIANT-pretrain.log, VARIANT-train.log and
# VARIANT-rerank-fit.md (../recipe-variant.sh). Resumable: run it again after an
# interruption; a variant whose reranked checkpoint exists is not retrained.
#   command.sh [VARIANT...]      (default: sinusoidal learned none)
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
here=models/experiments/positions
variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(sinusoidal learned none)
for v in "${variants[@]}"; do
  models/experiments/recipe-variant.sh "$here" "$v" "positions-$v" "2.4-$v" --positions "$v" \
    --model_version "2.3-$v"
done
echo ALLDONE
