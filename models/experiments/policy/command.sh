#!/usr/bin/env bash
# Runs at commit c882fd2: its flags and config keys left the tools after it (../README.md).
# The length-policy study (README.md here: the rule): the shipped model on corpus valid and
# corpus-extra valid with every token-level k, unit-level k and local window of the rule, then
# the tables by length bucket (table.py -> policy.md). Resumable: a split whose JSON exists is
# not rerun. Times are the model's, per document, in one process per split.
#   models/experiments/policy/command.sh
# RPSUM_EVAL=PATH runs that rpsum-eval instead of building and running the release one.
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
here=models/experiments/policy
data=${RPSUM_DATA_DIR:-../shared/data}
source scripts/cpu-env
eval_bin=${RPSUM_EVAL:-build/release/train/rpsum-eval}
if [ -z "${RPSUM_EVAL:-}" ]; then
  cmake --preset release >/dev/null
  cmake --build --preset release --target rpsum-eval rpsum_spm >/dev/null
fi
for split in corpus-valid corpus-extra-valid; do
  [ -f "$here/$split.json" ] && continue
  dir=${split%-valid}
  "$eval_bin" --model models/rpsum-ext --data_dir "$data/$dir" --split valid \
    --threads 2 --k_study 4,8,32,64,128,256 --unit_k_study 16,8,4,2,0 \
    --window_study 256,64,128,512,1024 --json "$here/$split.json.part" > "$here/$split.md"
  mv "$here/$split.json.part" "$here/$split.json"
done
/usr/bin/python3 "$here/table.py" "$here/corpus-valid.json" "$here/corpus-extra-valid.json" \
  > "$here/policy.md"
cat "$here/policy.md"
