#!/usr/bin/env bash
# The paired bootstrap of two served selections on both valid splits (corpus, corpus-extra):
# rpsum-eval --dump of each, then paired.py into OUT. Each side is a model directory followed by
# rpsum-eval flags, as one word-split string; NAME labels its dumps (valid-NAME.dump, whose names
# paired.py prints as the rows). Dumps go to $DUMP_DIR (default a temporary folder). Run from
# the checkout; used by rerank-net/paired.sh and salience-rerank/paired.sh.
#   paired-valid.sh OUT BASE_NAME 'BASE_MODEL [FLAGS]' CANDIDATE_NAME 'CANDIDATE_MODEL [FLAGS]'
set -euo pipefail
usage="usage: paired-valid.sh OUT BASE_NAME 'BASE_MODEL [FLAGS]' CANDIDATE_NAME 'CANDIDATE_MODEL [FLAGS]'"
out=${1:?$usage}
base_name=${2:?$usage}
read -ra base <<< "${3:?$usage}"
cand_name=${4:?$usage}
read -ra cand <<< "${5:?$usage}"
data=${RPSUM_DATA_DIR:-../shared/data}
dumps=${DUMP_DIR:-$(mktemp -d)}
e=build/release/train/rpsum-eval
for split in corpus:valid corpus-extra:valid-extra; do
  dir=${split%%:*}
  name=${split##*:}
  $e --model "${base[@]}" --data_dir "$data/$dir" --split valid --threads 2 \
    --dump "$dumps/$name-$base_name.dump" > /dev/null
  $e --model "${cand[@]}" --data_dir "$data/$dir" --split valid --threads 2 \
    --dump "$dumps/$name-$cand_name.dump" > /dev/null
done
checkout=$PWD
cd "$dumps"
/usr/bin/python3 "$checkout/models/experiments/paired.py" "valid-$base_name.dump" \
  "valid-$cand_name.dump" "valid-extra-$base_name.dump" "valid-extra-$cand_name.dump" \
  > "$checkout/$out"
