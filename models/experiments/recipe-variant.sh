#!/usr/bin/env bash
# One variant of the shipped recipe (scripts/train-recipe: its data, seed, budget and reranking
# fit, plus FLAGS) into runs/RUN{-pt,} with the release build's tools (built first); then
# its logs copied to DIR/LABEL-pretrain.log, LABEL-train.log and LABEL-rerank-fit.md. A variant
# whose reranked checkpoint exists is not retrained; an interrupted one resumes. Used by
# positions/command.sh and layered/command.sh; run from the checkout.
#   recipe-variant.sh DIR LABEL RUN VERSION [RPSUM-TRAIN FLAGS...]
set -euo pipefail
usage="usage: recipe-variant.sh DIR LABEL RUN VERSION [RPSUM-TRAIN FLAGS...]"
dir=${1:?$usage}
label=${2:?$usage}
out=runs/${3:?$usage}
version=${4:?$usage}
shift 4
cmake --preset release >/dev/null
cmake --build --preset release --target rpsum-train rpsum-eval rpsum_spm
if [ ! -f "$out/reranked/config.json" ]; then
  RPSUM_VERSION=$version scripts/train-recipe "$out" "$@"
fi
cp "$out-pt/train.log" "$dir/$label-pretrain.log"
cp "$out/train.log" "$dir/$label-train.log"
cp "$out/rerank-fit.md" "$dir/$label-rerank-fit.md"
