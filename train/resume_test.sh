#!/usr/bin/env bash
# rpsum-train resumes exactly: a tiny model trained on a synthetic corpus in one go, and the
# same run stopped by --time_limit_min after every step or two and rerun until it is done
# (so it stops at each epoch's last step, before that epoch's validation, too), end with
# byte-identical best/ weights and masked-token head (--mlm_weight: its weights and masks),
# and validate each epoch exactly once. Dropout is off: resuming reseeds torch's generator.
#   resume_test.sh RPSUM_TRAIN TOKENIZER_MODEL
set -euo pipefail
trap 'echo "FAIL: line $LINENO: \"$BASH_COMMAND\" exited $?" >&2' ERR
train=$1
tokenizer=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 30 training and 4 validation documents: paragraphs of sentences from a small vocabulary, the
# summary two of the document's sentences.
/usr/bin/python3 - "$tmp/data" <<'EOF'
import gzip, json, os, random, sys
out = sys.argv[1]
os.makedirs(out)
rng = random.Random(7)
words = ("cache queue request worker proposal format metric latency batch token model server "
         "client budget policy design option default change user error limit").split()
def sentence():
    return " ".join(rng.choice(words) for _ in range(rng.randint(6, 14))).capitalize() + "."
for split, n in (("train", 30), ("valid", 4)):
    with gzip.open(os.path.join(out, split + ".jsonl.gz"), "wt") as f:
        for i in range(n):
            paras = [" ".join(sentence() for _ in range(rng.randint(2, 4))) for _ in range(6)]
            doc = "\n\n".join(["Motivation"] + paras[:3] + ["Design"] + paras[3:])
            summary = " ".join(p.split(". ")[0].rstrip(".") + "." for p in paras[:2])
            f.write(json.dumps({"title": "Proposal %d" % i, "document": doc,
                                "summary": summary}) + "\n")
EOF

flags=(--data_dir "$tmp/data" --tokenizer "$tokenizer" --hidden 32 --heads 2 --ffn 64
       --token_layers 1 --unit_layers 1 --max_tokens 512 --batch_tokens 1024 --epochs 2
       --patience 2 --warmup 2 --dropout 0 --threads 1 --checkpoint_every 3 --features 6
       --mlm_weight 0.5 --soft_labels 0.5)
"$train" "${flags[@]}" --out "$tmp/whole" >"$tmp/whole.log" 2>&1
grep -q "^done: best epoch" "$tmp/whole.log" || { echo "FAIL: the whole run:"; cat "$tmp/whole.log"; exit 1; }
steps=$(sed -n 's/^training: .* \([0-9]*\) steps$/\1/p' "$tmp/whole.log")
[ "${steps:-0}" -ge 6 ] || { echo "FAIL: expected a few steps per epoch, got ${steps:-none}"; exit 1; }

# The same run, stopped again and again: each run takes at least one step past its start.
runs=0
while :; do
  runs=$((runs + 1))
  [ $runs -le $((steps + 5)) ] || { echo "FAIL: not done after $runs runs"; exit 1; }
  rc=0
  "$train" "${flags[@]}" --out "$tmp/cut" --time_limit_min 0.001 >"$tmp/cut.$runs.log" 2>&1 || rc=$?
  if [ $rc -eq 0 ]; then break; fi
  [ $rc -eq 3 ] || { echo "FAIL: run $runs exited $rc:"; cat "$tmp/cut.$runs.log"; exit 1; }
done
cat "$tmp"/cut.*.log >"$tmp/cut.log"
for e in 1 2; do
  n=$(grep -c "^epoch $e valid" "$tmp/cut.log" || true)
  [ "$n" -eq 1 ] || { echo "FAIL: epoch $e validated $n times in the stopped runs"; exit 1; }
done
a=$(sha256sum <"$tmp/whole/best/weights.safetensors")
b=$(sha256sum <"$tmp/cut/best/weights.safetensors")
[ "$a" = "$b" ] || { echo "FAIL: the stopped-and-resumed run's best weights differ"; exit 1; }
cmp -s "$tmp/whole/state/mlm.safetensors" "$tmp/cut/state/mlm.safetensors" ||
  { echo "FAIL: the masked-token heads differ"; exit 1; }
# Done means done: one more run trains nothing.
"$train" "${flags[@]}" --out "$tmp/cut" >"$tmp/again.log" 2>&1
if grep -q "^step \|valid ROUGE" "$tmp/again.log"; then
  echo "FAIL: a finished run trained or validated again:"; cat "$tmp/again.log"; exit 1
fi
echo "ok   $runs stopped runs ($steps steps): the same best weights and masked-token head"
