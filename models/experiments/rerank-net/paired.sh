#!/usr/bin/env bash
# How sure is the reranking's gain? The valid splits' served summaries of the reranked
# checkpoint (runs/rerank-net, written by command.sh) against the same checkpoint with
# --no_rerank (v2.3's greedy selection: the same network), a paired bootstrap over documents
# (../paired-valid.sh) into paired.md.
#   paired.sh [DUMP_DIR]     (dumps are kept in DUMP_DIR, default a temporary folder)
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
DUMP_DIR=${1:-${DUMP_DIR:-}} models/experiments/paired-valid.sh \
  models/experiments/rerank-net/paired.md greedy "runs/rerank-net --no_rerank" \
  reranked runs/rerank-net
