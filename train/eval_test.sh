#!/usr/bin/env bash
# rpsum-eval's tables and its --dump agree: on a small corpus with the shipped model, the dump
# has one line per document scored, each system's mean ROUGE over its lines is the table's
# row, the model's summary is made of the document's kept units, one served score per unit, and
# the lead summary opens with the first unit that is not a heading. The clip-distance and window
# studies list each row's documents, and the model's own settings reproduce the dump. A missing
# --dump folder and a window of 0 are errors that say so.
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
if fail:
    print("FAIL:\n  " + "\n  ".join(fail))
    sys.exit(1)
print("ok: %d documents; the dump's means equal the tables (rpsum R1 %.2f)"
      % (len(lines), table["overall"]["rpsum"]["rouge1"]))
PY
}
check || exit 1

# The studies: each row lists its documents, whose means are the row's; the model's own window
# and unit k reproduce the served summaries of the dump, document by document.
"$eval_bin" --model "$model" --file "$tmp/docs.jsonl" --threads 1 --k_study 4 \
  --unit_k_study 16,2 --window_study 256,8 --json "$tmp/study.json" >"$tmp/study.md" \
  2>"$tmp/study.err" || { echo "FAIL: rpsum-eval studies:"; cat "$tmp/study.err"; exit 1; }
/usr/bin/python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
served = {l["id"]: l["rpsum"] for l in map(json.loads, open(tmp + "/dump.jsonl"))}
study = json.load(open(tmp + "/study.json"))
fail = []
rows = [(s, name, row) for s in ("k_study", "unit_k_study", "window_study")
        for name, row in study.get(s, {}).items()]
if len(rows) != 6:
    fail.append("%d study rows, not 6: %s" % (len(rows), [(s, n) for s, n, _ in rows]))
for s, name, row in rows:
    docs = row["documents"]
    if sorted(d["id"] for d in docs) != sorted(served):
        fail.append("%s %s: documents %s" % (s, name, [d["id"] for d in docs]))
        continue
    for measure in ("rouge1", "rouge2", "rougeLsum"):
        mean = sum(d[measure] for d in docs) / len(docs)
        if abs(mean - row[measure]) > 1e-6:
            fail.append("%s %s %s: documents' mean %.4f, row %.4f" % (s, name, measure, mean, row[measure]))
    if any(d["ms"] <= 0 or d["tokens"] <= 0 for d in docs):
        fail.append("%s %s: a document without time or tokens" % (s, name))
    if "(the model's)" in name or name.startswith("policy"):
        for d in docs:
            for measure in ("rouge1", "rouge2", "rougeLsum"):
                if abs(d[measure] - served[d["id"]][measure]) > 1e-6:
                    fail.append("%s %s: %s %s %.4f, served %.4f"
                                % (s, name, d["id"], measure, d[measure], served[d["id"]][measure]))
if fail:
    print("FAIL:\n  " + "\n  ".join(fail))
    sys.exit(1)
print("ok: %d study rows list their documents; the model's own settings reproduce the dump" % len(rows))
PY
if "$eval_bin" --model "$model" --file "$tmp/docs.jsonl" --window_study 256,0 \
    >/dev/null 2>"$tmp/window.err"; then
  echo "FAIL: --window_study 0 was accepted"; exit 1
fi
grep -q "window_study: a window is 1 token or more" "$tmp/window.err" ||
  { echo "FAIL: --window_study 0's error:"; cat "$tmp/window.err"; exit 1; }

if "$eval_bin" --model "$model" --file "$tmp/docs.jsonl" --threads 1 \
    --dump "$tmp/missing/dump.jsonl" >/dev/null 2>"$tmp/missing.err"; then
  echo "FAIL: --dump into a missing folder succeeded"; exit 1
fi
grep -q "cannot write --dump $tmp/missing/dump.jsonl" "$tmp/missing.err" ||
  { echo "FAIL: the error does not name the path:"; cat "$tmp/missing.err"; exit 1; }
echo "ok: a missing --dump folder is refused by name"
