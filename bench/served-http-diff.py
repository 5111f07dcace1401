#!/usr/bin/python3
"""Are two builds' served responses the same, through the server? Starts each build's
rpsum-server on the shipped model (bench/local_server.py) and posts every document of corpus
valid, corpus-extra valid, corpus test and corpus-extra test to both, alternately, over
HTTP/JSON (budget: the reference's word count; outline and every unit's score asked for).
The responses, less their timings and scores, must be byte for byte the same, and every score
within 1e-6 (two processes of one build differ in the last bits of a few documents' scores:
the forward's float sums are not bit-stable across processes, docs/design.md "Batching").
Also reports each build's
preparation and selection time (the response's prepare_us and select_us), medians, measured
side by side in the same run.

  bench/served-http-diff.py BEFORE_BUILD AFTER_BUILD OUT.md [NOTE]

A BUILD is a folder holding server/rpsum-server and client/rpsum (a build folder, or a copy of
an earlier build's two binaries). Exit 1 when any response differs.
"""
import gzip
import json
import pathlib
import statistics
import subprocess
import sys
import urllib.request

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import local_server  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared/data"
SPLITS = [("corpus", "valid"), ("corpus-extra", "valid"), ("corpus", "test"),
          ("corpus-extra", "test")]


def post(http, body):
    req = urllib.request.Request(f"http://{http}/v1/summarize", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        return json.loads(r.read())


def split_scores(r):
    """The response less its timings, as canonical JSON, and its scores in order."""
    r = dict(r)
    r.pop("timings", None)
    scores = list(r.pop("scores", []))
    for s in r.get("sentences", []):
        scores.append(s.pop("score", 0))
    for sec in r.get("outline", []):
        for s in sec.get("sentences", []):
            scores.append(s.pop("score", 0))
    return json.dumps(r, sort_keys=True), scores


def main(before, after, out, note=""):
    rows, differ = [], 0
    times = {"before": {"prepareUs": [], "selectUs": []}, "after": {"prepareUs": [], "selectUs": []}}
    with local_server.served(before) as a, local_server.served(after) as b:
        for corpus, split in SPLITS:
            same = n = 0
            largest = 0.0
            with gzip.open(DATA / corpus / f"{split}.jsonl.gz", "rt") as f:
                docs = [json.loads(line) for line in f]
            for d in docs:
                body = {"document": d["document"], "title": d["title"],
                        "maxWords": len(d["summary"].split()),
                        "outline": True, "returnAllScores": True}
                got = {}
                for name, http in (("before", a), ("after", b)):
                    r = post(http, body)
                    for k in ("prepareUs", "selectUs"):
                        times[name][k].append(int(r.get("timings", {}).get(k, 0)))
                    got[name] = split_scores(r)
                (text_a, scores_a), (text_b, scores_b) = got["before"], got["after"]
                n += 1
                diff = max((abs(x - y) for x, y in zip(scores_a, scores_b)), default=0.0)
                largest = max(largest, diff)
                if text_a == text_b and len(scores_a) == len(scores_b) and diff <= 1e-6:
                    same += 1
            differ += n - same
            rows.append(f"| {corpus} {split} | {n} | {same} | {largest:.1e} |")
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    med = {w: {k: statistics.median(v) for k, v in t.items()} for w, t in times.items()}
    with open(out, "w") as f:
        f.write(f"# `bench/served-http-diff.py {before} {after} {out}` (checkout at {commit})\n\n")
        if note:
            f.write(note + "\n\n")
        f.write("Responses of the shipped model over HTTP/JSON: identical means byte for byte the "
                "same less timings and scores, and every score within 1e-6.\n\n")
        f.write("| split | documents | identical responses | largest score difference |\n"
                "| --- | --- | --- | --- |\n")
        f.write("\n".join(rows) + "\n\n")
        f.write("| build | prepare_us median | select_us median |\n| --- | --- | --- |\n")
        for w in ("before", "after"):
            f.write(f"| {w} | {med[w]['prepareUs']:.0f} | {med[w]['selectUs']:.0f} |\n")
        f.write(f"\nafter / before: preparation {med['after']['prepareUs'] / med['before']['prepareUs']:.3f}, "
                f"selection {med['after']['selectUs'] / med['before']['selectUs']:.3f} "
                f"({sum(len(v['selectUs']) for v in times.values()) // 2} requests each, "
                "alternating between the servers)\n")
    print(open(out).read())
    return 1 if differ else 0


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
