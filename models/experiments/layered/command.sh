#!/usr/bin/env bash
# Runs at commit c882fd2: its flags and config keys left the tools after it (../README.md).
# Layered clipping (issue #52): the shipped recipe (scripts/train-recipe: the same data, seed,
# budget, reranking fit and served windows) with a clip distance per head instead of one k for
# all four (rpsum-train --head_clip_multipliers; model/model_config.h
# Architecture::head_clip_multipliers: head h uses min(k * m[h], 256), k the policy's 16 when
# served), into runs/layered-LAYOUT{-pt,}. Layouts:
#   halves  1,1,16,16   two heads at k = 16, two at 256 (short and long)
#   graded  1,2,4,8     k = 16, 32, 64, 128
# The uniform row is the shipped model (models/rpsum-ext, k = 16 on every head). Each layout's
# logs are copied here as LAYOUT-pretrain.log, LAYOUT-train.log and LAYOUT-rerank-fit.md
# (../recipe-variant.sh). Resumable: run it again after an interruption; a layout whose
# reranked checkpoint exists is not retrained.
#   command.sh [LAYOUT...]      (default: halves graded)
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
here=models/experiments/layered
layouts=("$@")
[ ${#layouts[@]} -gt 0 ] || layouts=(halves graded)
for l in "${layouts[@]}"; do
  case "$l" in
    halves) m=1,1,16,16 ;;
    graded) m=1,2,4,8 ;;
    *) echo "command.sh: unknown layout '$l' (halves, graded)" >&2; exit 2 ;;
  esac
  models/experiments/recipe-variant.sh "$here" "$l" "layered-$l" "2.5-$l" \
    --head_clip_multipliers "$m" --model_version "2.3-$l"
done
echo ALLDONE
