#!/usr/bin/env bash
# rpsum-eval's tables and its --dump agree: on a small corpus with the shipped model, the dump
# has one line per document scored, each system's mean ROUGE over its lines is the table's
# row, the model's summary is made of the document's kept units, one served score per unit,
# the lead summary opens with the first unit that is not a heading, and each line counts the
# tokens the network read. A checkpoint of a removed study is refused naming the commit that
# serves it, and a missing --dump folder is an error that says so.
#   eval_test.sh RPSUM_EVAL MODEL_DIR
# KEEP_TMP=DIR keeps the data and outputs in DIR (an existing folder) for a look afterwards.
set -euo pipefail
trap 'echo "FAIL: line $LINENO: \"$BASH_COMMAND\" exited $?" >&2' ERR
eval_bin=$1
model=$2
tmp=${KEEP_TMP:-$(mktemp -d)}
[ -n "${KEEP_TMP:-}" ] || trap 'rm -rf "$tmp"' EXIT

# Nine documents of random sentences under two headings; the summary restates two of them.
/usr/bin/python3 - "$tmp" <<'PY'
import json, random, sys
rng = random.Random(5)
words = ("cache queue request worker format metric latency batch token model server client "
         "budget policy design option default change user error limit shard replica").split()
def sentence():
    return " ".join(rng.choice(words) for _ in range(rng.randint(7, 14))).capitalize() + "."
with open(sys.argv[1] + "/docs.jsonl", "w") as f:
    for i in range(9):
        sents = [sentence() for _ in range(16)]
        doc = "Motivation\n\n" + " ".join(sents[:8]) + "\n\n## Design\n\n" + " ".join(sents[8:])
        summary = " ".join(rng.sample(sents, 2))
        f.write(json.dumps({"id": "d%d" % i, "source": "test/%d" % (i % 2),
                            "title": "Proposal %d" % i, "document": doc,
                            "summary": summary}) + "\n")
PY

"$eval_bin" --model "$model" --file "$tmp/docs.jsonl" --threads 1 --dump "$tmp/dump.jsonl" \
  --json "$tmp/eval.json" >"$tmp/eval.md" 2>"$tmp/eval.err" ||
  { echo "FAIL: rpsum-eval:"; cat "$tmp/eval.err"; exit 1; }

check() {
  /usr/bin/python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
lines = [json.loads(l) for l in open(tmp + "/dump.jsonl")]
table = json.load(open(tmp + "/eval.json"))
fail = []
if len(lines) != table["documents"] or len(lines) != 9:
    fail.append("%d dump lines for %d documents (9 in the file)" % (len(lines), table["documents"]))
for system in ("lead", "textrank", "rpsum", "oracle"):
    for measure in ("rouge1", "rouge2", "rougeLsum"):
        dumped = sum(l[system][measure] for l in lines) / max(1, len(lines))
        if abs(dumped - table["overall"][system][measure]) > 1e-6:
            fail.append("%s %s: dump mean %.4f, table %.4f"
                        % (system, measure, dumped, table["overall"][system][measure]))
for l in lines:
    if len(l["unit_scores"]) != len(l["units"]):
        fail.append("%s: %d scores for %d units" % (l["id"], len(l["unit_scores"]), len(l["units"])))
    chosen = l["rpsum"]["summary"].split("\n")
    if not chosen or any(u not in l["units"] for u in chosen):
        fail.append("%s: the model's summary is not made of kept units: %r" % (l["id"], chosen))
    if not l["lead"]["summary"].startswith(l["units"][1]) or l["units"][0] != "Motivation":
        fail.append("%s: lead does not open with the first sentence: %r"
                    % (l["id"], l["lead"]["summary"][:60]))
    if not l["oracle_units"] or l["reference"] == "" or l["reference_words"] <= 0:
        fail.append("%s: no oracle, reference or budget" % l["id"])
    # The tokens the network read (bench/longdoc buckets by them): more than the words.
    if not l.get("tokens", 0) > l["document_words"]:
        fail.append("%s: %r tokens for %d words" % (l["id"], l.get("tokens"), l["document_words"]))
if fail:
    print("FAIL:\n  " + "\n  ".join(fail))
    sys.exit(1)
print("ok: %d documents; the dump's means equal the tables (rpsum R1 %.2f)"
      % (len(lines), table["overall"]["rpsum"]["rouge1"]))
PY
}
check || exit 1

# A checkpoint of a study that left the tools (absolute positions, layered clipping, a fixed k)
# is refused with a message naming the last commit that serves it.
mkdir -p "$tmp/study"
cp "$model"/config.json "$model"/weights.safetensors "$model"/tokenizer.model "$tmp/study/"
/usr/bin/python3 - "$tmp/study/config.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["architecture"]["positions"] = "sinusoidal"
json.dump(c, open(sys.argv[1], "w"))
PY
if "$eval_bin" --model "$tmp/study" --file "$tmp/docs.jsonl" --threads 1 >/dev/null \
    2>"$tmp/study.err"; then
  echo "FAIL: a checkpoint with sinusoidal positions was served"; exit 1
fi
grep -q "positions = \"sinusoidal\" asks for a study variant that rpsum no longer serves (removed after commit [0-9a-f]*)" "$tmp/study.err" ||
  { echo "FAIL: the study checkpoint's error:"; cat "$tmp/study.err"; exit 1; }

if "$eval_bin" --model "$model" --file "$tmp/docs.jsonl" --threads 1 \
    --dump "$tmp/missing/dump.jsonl" >/dev/null 2>"$tmp/missing.err"; then
  echo "FAIL: --dump into a missing folder succeeded"; exit 1
fi
grep -q "cannot write --dump $tmp/missing/dump.jsonl" "$tmp/missing.err" ||
  { echo "FAIL: the error does not name the path:"; cat "$tmp/missing.err"; exit 1; }
echo "ok: a missing --dump folder is refused by name"
