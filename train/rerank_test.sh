#!/usr/bin/env bash
# rpsum-eval --fit_rerank (docs/design.md, section 2, "Select"): on a small corpus with the
# shipped model, the written checkpoint has the shipped weights and tokenizer byte for byte and a
# config.json with the fitted scoring.rerank (17 named weights, the net_* ones fitted on the
# network's unit states; top_k, max_units, the version asked for, what it was fitted on); scored
# again by rpsum-eval, it serves exactly the fit's
# reranked choice (the fit and SelectSummary agree), --no_rerank serves the fit's greedy one,
# and the two differ. The fit starts from the greedy selection (--no_rerank: the shipped model
# reranks). An unknown --rerank_features name is refused by name.
#   rerank_test.sh RPSUM_EVAL MODEL_DIR
set -euo pipefail
trap 'echo "FAIL: line $LINENO: \"$BASH_COMMAND\" exited $?" >&2' ERR
eval_bin=$1
model=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Twelve documents of random sentences; each summary restates three of them.
/usr/bin/python3 - "$tmp" <<'PY'
import json, random, sys
rng = random.Random(11)
words = ("cache queue request worker format metric latency batch token model server client "
         "budget policy design option default change user error limit shard replica").split()
def sentence():
    return " ".join(rng.choice(words) for _ in range(rng.randint(5, 16))).capitalize() + "."
with open(sys.argv[1] + "/docs.jsonl", "w") as f:
    for i in range(12):
        sents = [sentence() for _ in range(20)]
        doc = "Motivation\n\n" + " ".join(sents[:10]) + "\n\n## Design\n\n" + " ".join(sents[10:])
        f.write(json.dumps({"id": "d%d" % i, "source": "test/%d" % (i % 2),
                            "title": "Proposal %d" % i, "document": doc,
                            "summary": " ".join(rng.sample(sents, 3))}) + "\n")
PY

run() {  # NAME ARGS...: rpsum-eval on the corpus, JSON to $tmp/NAME.json
  local name=$1; shift
  "$eval_bin" --file "$tmp/docs.jsonl" --threads 1 --json "$tmp/$name.json" "$@" \
    >"$tmp/$name.md" 2>"$tmp/$name.err" || { echo "FAIL: rpsum-eval $*:"; cat "$tmp/$name.err"; exit 1; }
}
run fit --model "$model" --no_rerank --fit_rerank "$tmp/fitted" --rerank_version test-rerank
run served --model "$tmp/fitted"
run greedy --model "$tmp/fitted" --no_rerank
cmp "$model/weights.safetensors" "$tmp/fitted/weights.safetensors"
cmp "$model/tokenizer.model" "$tmp/fitted/tokenizer.model"

/usr/bin/python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
fit, served, greedy = (json.load(open("%s/%s.json" % (tmp, n))) for n in ("fit", "served", "greedy"))
config = json.load(open(tmp + "/fitted/config.json"))
fail = []
rerank = config["scoring"].get("rerank", {})
names = ["mean_score", "max_score", "min_score", "units", "fill", "document_cosine",
         "title_share", "position", "first", "rank", "distinct", "net_coverage", "net_redundancy",
         "net_max_redundancy", "net_coverage_units", "net_min_unit_cosine", "net_mean_unit_cosine"]
if sorted(rerank.get("weights", {})) != sorted(names):
    fail.append("config weights: %s" % sorted(rerank.get("weights", {})))
if not any(abs(w) > 1e-6 for n, w in rerank.get("weights", {}).items() if n.startswith("net_")):
    fail.append("every net_* weight is 0: the fit read no unit states")
if rerank.get("top_k") != 8 or rerank.get("max_units") != 6:
    fail.append("top_k / max_units: %s / %s" % (rerank.get("top_k"), rerank.get("max_units")))
if config["version"] != "test-rerank":
    fail.append("version %r" % config["version"])
if config["training"].get("rerank_fitted_on", {}).get("documents") != 12:
    fail.append("training.rerank_fitted_on: %r" % config["training"].get("rerank_fitted_on"))
for m in ("rouge1", "rouge2"):
    r, g = fit["rerank_fit"]["reranked"][m], fit["rerank_fit"]["greedy"][m]
    if abs(served["overall"]["rpsum"][m] - r) > 1e-6:
        fail.append("%s: the fitted checkpoint serves %.4f, the fit chose %.4f"
                    % (m, served["overall"]["rpsum"][m], r))
    if abs(greedy["overall"]["rpsum"][m] - g) > 1e-6 or abs(fit["overall"]["rpsum"][m] - g) > 1e-6:
        fail.append("%s: greedy %.4f / %.4f, the fit's greedy %.4f"
                    % (m, greedy["overall"]["rpsum"][m], fit["overall"]["rpsum"][m], g))
if fit["rerank_fit"]["reranked"]["rouge1"] == fit["rerank_fit"]["greedy"]["rouge1"]:
    fail.append("the reranking chose the greedy summary everywhere: nothing was compared")
if fail:
    print("FAIL:\n  " + "\n  ".join(fail))
    sys.exit(1)
print("ok: the fitted checkpoint serves the fit's choice (R1 %.2f, greedy %.2f)"
      % (fit["rerank_fit"]["reranked"]["rouge1"], fit["rerank_fit"]["greedy"]["rouge1"]))
PY

if "$eval_bin" --model "$model" --file "$tmp/docs.jsonl" --threads 1 --fit_rerank "$tmp/bad" \
    --rerank_features mean_score,novelty >/dev/null 2>"$tmp/bad.err"; then
  echo "FAIL: an unknown --rerank_features name was accepted"; exit 1
fi
grep -q "no feature 'novelty'" "$tmp/bad.err" ||
  { echo "FAIL: the error does not name the feature:"; cat "$tmp/bad.err"; exit 1; }
echo "ok: an unknown feature is refused by name"
