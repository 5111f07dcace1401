# shellcheck shell=bash
# Sourced by positions/eval.sh and layered/eval.sh (from the checkout, after scripts/cpu-env):
# scoring a model on both valid splits through the served selection (one run per split writes
# the scores and the per-document dump), the paired bootstrap and ../by_length.py's tables. RPSUM_DATA_DIR: the data (default ../shared/data).
#   valid_scores DIR NAME MODEL [DUMPS]   DIR/NAME-valid{,-extra}.{md,json} (rpsum-eval --json)
#                                 and, with DUMPS, the same runs' DUMPS/NAME-valid{,-extra}.dump,
#                                 unless made
#   valid_paired DIR BASE NAME DUMPS   DIR/NAME-paired.md: ../paired.py, NAME against BASE on
#                                 both splits' dumps, unless made
#   by_length_tables SOURCE DUMPS BASE OTHER...   by_length.py's table, then its card form
valid_eval=build/release/train/rpsum-eval
valid_data=${RPSUM_DATA_DIR:-../shared/data}

valid_scores() {
  local dir=$1 name=$2 model=$3 dumps=${4:-} split out dump
  local flags
  for split in corpus:valid corpus-extra:valid-extra; do
    out=$dir/$name-${split##*:}
    dump=${dumps:+$dumps/$name-${split##*:}.dump}
    if [ -f "$out.md" ] && { [ -z "$dump" ] || [ -f "$dump" ]; }; then continue; fi
    flags=()
    [ -z "$dump" ] || { mkdir -p "$dumps"; flags=(--dump "$dump.part"); }
    $valid_eval --model "$model" --data_dir "$valid_data/${split%%:*}" --split valid --threads 2 \
      --json "$out.json" "${flags[@]}" > "$out.md.part"
    mv "$out.md.part" "$out.md"
    [ -z "$dump" ] || mv "$dump.part" "$dump"
  done
}

valid_paired() {
  local dir=$1 base=$2 name=$3 dumps=$4
  [ -f "$dir/$name-paired.md" ] && return
  (cd "$dumps" && /usr/bin/python3 "$OLDPWD/models/experiments/paired.py" "$base-valid.dump" \
    "$name-valid.dump" "$base-valid-extra.dump" "$name-valid-extra.dump") > "$dir/$name-paired.md.part"
  mv "$dir/$name-paired.md.part" "$dir/$name-paired.md"
}

by_length_tables() {
  local source=$1
  shift
  /usr/bin/python3 models/experiments/by_length.py "${BY_LENGTH_FLAGS[@]}" --source "$source" "$@"
  printf '\n## In the model card\n\n'
  /usr/bin/python3 models/experiments/by_length.py "${BY_LENGTH_FLAGS[@]}" --card "$@"
}
