#!/usr/bin/env bash
# The paired bootstrap of the reranked token-salience network (runs/token-salience/reranked,
# written by command.sh) against shipped v2.4 (models/rpsum-ext) on both valid splits, into
# paired.md (../paired-valid.sh).
#   paired.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
models/experiments/paired-valid.sh models/experiments/salience-rerank/paired.md \
  v2.4 models/rpsum-ext salience runs/token-salience/reranked
