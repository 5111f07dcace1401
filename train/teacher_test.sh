#!/usr/bin/env bash
# rpsum-train --teacher (self-training): a tiny teacher trained on labelled documents, whose
# summaries are the sentences that open with "We propose", labels documents without summaries;
# a student pre-trained on them with --teacher learns what the teacher learned, while the same
# pre-training with centrality pseudo-summaries (no teacher) does not. Validation ROUGE-1 on
# labelled documents tells them apart. A teacher whose tokenizer differs is refused.
#   teacher_test.sh RPSUM_TRAIN TOKENIZER_MODEL OTHER_TOKENIZER_MODEL
# KEEP_TMP=DIR keeps the data and logs in DIR (an existing folder) for a look afterwards.
set -euo pipefail
trap 'echo "FAIL: line $LINENO: \"$BASH_COMMAND\" exited $?" >&2' ERR
train=$1
tokenizer=$2
other=$3
tmp=${KEEP_TMP:-$(mktemp -d)}
[ -n "${KEEP_TMP:-}" ] || trap 'rm -rf "$tmp"' EXIT

# 40 labelled training, 8 validation and 60 unlabeled documents: paragraphs of random
# sentences; in each document two sentences, at random places, open with "We propose" (and use
# words of their own): the summary is those two.
/usr/bin/python3 - "$tmp" <<'PY'
import gzip, json, os, random, sys
out = sys.argv[1]
rng = random.Random(11)
words = ("cache queue request worker format metric latency batch token model server client "
         "budget policy design option default change user error limit").split()
# The key sentences draw on words of their own, so ROUGE tells them from the rest.
key_words = ("shard replica quorum lease gossip epoch snapshot ledger vector clock").split()
def sentence(key=False):
    s = " ".join(rng.choice(key_words if key else words) for _ in range(rng.randint(6, 12)))
    return ("We propose " + s if key else s.capitalize()) + "."
def document():
    sents = [sentence() for _ in range(18)]
    keys = sorted(rng.sample(range(18), 2))
    for k in keys:
        sents[k] = sentence(key=True)
    paras = [" ".join(sents[i:i + 3]) for i in range(0, 18, 3)]
    return "\n\n".join(paras), " ".join(sents[k] for k in keys)
os.makedirs(os.path.join(out, "data"))
for split, n in (("train", 40), ("valid", 8)):
    with gzip.open(os.path.join(out, "data", split + ".jsonl.gz"), "wt") as f:
        for i in range(n):
            doc, summary = document()
            f.write(json.dumps({"title": "Proposal %d" % i, "document": doc,
                                "summary": summary}) + "\n")
with gzip.open(os.path.join(out, "unlabeled.jsonl.gz"), "wt") as f:
    for i in range(60):
        f.write(json.dumps({"title": "Note %d" % i, "document": document()[0]}) + "\n")
PY

shape=(--hidden 32 --heads 2 --ffn 64 --token_layers 1 --sentence_layers 1 --max_tokens 512
       --batch_tokens 1024 --patience 9 --warmup 2 --dropout 0 --threads 1 --features 6
       --lr 1e-2 --data_dir "$tmp/data")
valid_r1() { sed -n 's/^epoch [0-9]* valid ROUGE-1 \([0-9.]*\) .*/\1/p' "$1" | tail -1; }
"$train" "${shape[@]}" --tokenizer "$tokenizer" --epochs 30 --out "$tmp/teacher" >"$tmp/teacher.log" 2>&1 ||
  { echo "FAIL: the teacher's run:"; cat "$tmp/teacher.log"; exit 1; }
pre=("${shape[@]}" --pretrain_file "$tmp/unlabeled.jsonl.gz" --epochs 12)
"$train" "${pre[@]}" --tokenizer "$tokenizer" --teacher "$tmp/teacher/best" --out "$tmp/student" \
  >"$tmp/student.log" 2>&1 || { echo "FAIL: the student's run:"; cat "$tmp/student.log"; exit 1; }
"$train" "${pre[@]}" --tokenizer "$tokenizer" --out "$tmp/central" >"$tmp/central.log" 2>&1 ||
  { echo "FAIL: the run without a teacher:"; cat "$tmp/central.log"; exit 1; }
grep -q "^teacher .* labelled 60 documents" "$tmp/student.log" ||
  { echo "FAIL: the student's run did not report the teacher's labels:"; cat "$tmp/student.log"; exit 1; }
t=$(valid_r1 "$tmp/teacher.log")
s=$(valid_r1 "$tmp/student.log")
c=$(valid_r1 "$tmp/central.log")
echo "valid ROUGE-1: teacher $t, student $s, centrality pseudo-summaries $c"
/usr/bin/python3 -c "import sys; t, s, c = map(float, sys.argv[1:]); sys.exit(0 if s >= c + 10 and s >= t - 15 else 1)" "$t" "$s" "$c" ||
  { echo "FAIL: the student did not learn from its teacher (want student >= centrality + 10 and >= teacher - 15)"; exit 1; }

# A teacher without documents to label, and one that tokenizes differently, are refused.
rc=0
"$train" "${shape[@]}" --tokenizer "$tokenizer" --teacher "$tmp/teacher/best" --out "$tmp/nopre" \
  >"$tmp/nopre.log" 2>&1 || rc=$?
if [ $rc -eq 0 ] || ! grep -q "it needs --pretrain_file" "$tmp/nopre.log"; then
  echo "FAIL: --teacher without --pretrain_file was not refused (exit $rc):"; cat "$tmp/nopre.log"; exit 1
fi
rc=0
"$train" "${pre[@]}" --tokenizer "$other" --teacher "$tmp/teacher/best" --out "$tmp/mismatch" \
  >"$tmp/mismatch.log" 2>&1 || rc=$?
if [ $rc -eq 0 ] || ! grep -q "its tokenizer .* is not" "$tmp/mismatch.log"; then
  echo "FAIL: a teacher with another tokenizer was not refused (exit $rc):"; cat "$tmp/mismatch.log"; exit 1
fi
echo "ok   the student learned from its teacher; --teacher without --pretrain_file and a teacher with another tokenizer are refused"
