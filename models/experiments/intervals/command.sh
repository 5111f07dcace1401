#!/usr/bin/env bash
# How sure are the shipped model's test numbers? Dumps models/rpsum-ext's served summaries on the
# four test splits (rpsum-eval --dump: the same summaries and scores as models/rpsum-ext/results/),
# then paired bootstrap intervals over documents (../paired.py): the model against lead and
# against TextRank on each split, and by source against lead on corpus test.
#   command.sh [DUMP_DIR]     (dumps are kept in DUMP_DIR, default a temporary folder)
set -euo pipefail
cd "$(dirname "$0")/../../.."  # the checkout
source scripts/cpu-env
data=../shared/data
here=models/experiments/intervals
dumps=${1:-$(mktemp -d)}
e=build/release/train/rpsum-eval
run() {  # NAME ARGS...
  local name=$1
  shift
  $e --model models/rpsum-ext --threads 2 --dump "$dumps/$name.dump" "$@" > "$dumps/$name.md"
}
run test --data_dir $data/corpus --split test
run test_extra --data_dir $data/corpus-extra --split test
run qmsum_test --file $data/benchmarks/qmsum_test.jsonl.gz
run squality_test --file $data/benchmarks/squality_test.jsonl.gz
cd "$dumps"
p=$OLDPWD/models/experiments/paired.py
out=$OLDPWD/$here
$p --within lead,rpsum test.dump test_extra.dump qmsum_test.dump squality_test.dump \
  > "$out/against-lead.md"
$p --within textrank,rpsum test.dump test_extra.dump qmsum_test.dump squality_test.dump \
  > "$out/against-textrank.md"
$p --within lead,rpsum --by-source test.dump > "$out/test-by-source.md"
echo ALLDONE
