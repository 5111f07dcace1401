#!/usr/bin/env python3
"""Long documents (issue #63): time and peak resident memory of one request by length.

For each length (tokens after preparation, about 32k, 128k, 512k and 1.5M), a plain-text
document is made of `unlabeled/` documents in file order (each its title, then its text), and
posted once over HTTP (7 sentences, every unit's score returned) to a fresh rpsum-server on the
shipped model, so the process's peak resident memory (VmHWM) is this one request's plus the
server's own. Each length runs on the server's defaults (stretched forward) and, where it fits,
with --stretch_tokens 0 --stretch_units 0 (the whole document at once): the two servers' unit
scores are compared (largest difference). Time is the request's wall time (median of --runs
requests to the same server; the memory is the first request's).

    /usr/bin/python3 bench/long-documents.py BUILD_DIR [--runs 3] [--whole_max 600000]
        [--lengths 32768,131072,524288,1500000] [--out bench/results/long-documents]
"""
import argparse
import gzip
import json
import math
import pathlib
import statistics
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import local_server  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared/data/unlabeled/part-00.jsonl.gz"
WORDS_PER_TOKEN = 0.62  # rough; each row reports the tokens the server counted


def document(tokens):
    want = tokens * WORDS_PER_TOKEN
    parts, words = [], 0
    with gzip.open(DATA, "rt", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            parts.append(r["title"] + "\n" + r["document"])
            words += len(r["document"].split())
            if words >= want:
                break
    return ("\n\n".join(parts) + "\n").encode()


def status_kb(pid, key):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise KeyError(key)


def summarize(http, body):
    req = urllib.request.Request(
        f"http://{http}/v1/summarize?max_sentences=7&return_all_scores=true", data=body,
        headers={"Content-Type": "text/plain", "X-Timeout-Ms": "600000"})
    t = time.monotonic()
    with urllib.request.urlopen(req, timeout=900) as r:
        out = json.load(r)
    return time.monotonic() - t, out


def estimate(http, body):
    req = urllib.request.Request(f"http://{http}/v1/estimate?max_sentences=7", data=body,
                                 headers={"Content-Type": "text/plain"})
    with urllib.request.urlopen(req, timeout=900) as r:
        return json.load(r)


def measure(build, body, flags, runs):
    pids = []
    with local_server.served(build, flags=flags, started=pids.append) as http:
        base = status_kb(pids[0], "VmRSS")
        e = estimate(http, body)
        predicted, queued = int(e.get("memoryBytes", 0)), int(e.get("queuedBytes", 0))
        times, first = [], None
        for _ in range(runs):
            t, out = summarize(http, body)
            if first is None:
                first = out
                peak = status_kb(pids[0], "VmHWM")
            times.append(t)
    return {"seconds": statistics.median(times), "times": times, "base_mb": base / 1024,
            "estimate_mb": predicted / 2**20, "queued_mb": queued / 2**20,
            "peak_mb": peak / 1024, "tokens": first["inputTokens"],
            "units": len(first.get("scores", [])), "truncated": first.get("truncated", False),
            "scores": first.get("scores", [])}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--lengths", default="32768,131072,524288,1500000")
    ap.add_argument("--whole_max", type=int, default=600000)
    ap.add_argument("--flags", default="", help="more server flags, space-separated")
    ap.add_argument("--out", default=str(ROOT / "bench/results/long-documents"))
    a = ap.parse_args()
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    extra = a.flags.split()
    rows = []
    for n in (int(x) for x in a.lengths.split(",")):
        body = document(n)
        row = {"target": n, "bytes": len(body)}
        row["stretched"] = measure(a.build, body, extra, a.runs)
        if n <= a.whole_max:
            whole = measure(a.build, body, extra + ["--stretch_tokens=0", "--stretch_units=0"], 1)
            s, w = row["stretched"]["scores"], whole["scores"]
            row["whole"] = {k: v for k, v in whole.items() if k != "scores"}
            row["max_diff"] = max(abs(x - y) for x, y in zip(s, w)) if len(s) == len(w) else None
        row["stretched"].pop("scores")
        rows.append(row)
        print(json.dumps(row), flush=True)
    xs = [math.log(r["stretched"]["tokens"]) for r in rows]
    ys = [math.log(r["stretched"]["seconds"]) for r in rows]
    mx, my = statistics.mean(xs), statistics.mean(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    out = pathlib.Path(a.out)
    json.dump({"commit": commit, "flags": extra, "rows": rows, "time_exponent": slope},
              open(out.with_suffix(".json"), "w"), indent=1)
    with open(out.with_suffix(".md"), "w") as f:
        f.write(f"## One request by length (release build at {commit}, model v2.5, 2 threads)\n\n"
                f"Command: `/usr/bin/python3 bench/long-documents.py build/release"
                f"{' --flags ' + repr(a.flags) if a.flags else ''}`. Plain text from "
                "`unlabeled/`, 7 sentences, every unit's score returned; one fresh server per "
                "row and mode; time is the median of "
                f"{a.runs} requests; peak RSS is the server process's VmHWM after the first "
                "request (its RSS before it in the next column); Estimate's `memory_bytes` for the "
                "same document (asked first) stands beside the measured growth.\n\n"
                "| tokens | units | bytes | time s | tokens/s | server RSS before MB | "
                "peak RSS MB | growth MB | Estimate memory MB | Estimate queued MB | whole: time s | "
                "whole: peak RSS MB | largest score difference |\n"
                "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
        for r in rows:
            s, w = r["stretched"], r.get("whole")
            f.write(f"| {s['tokens']} | {s['units']} | {r['bytes']} | {s['seconds']:.2f} | "
                    f"{s['tokens'] / s['seconds']:.0f} | {s['base_mb']:.0f} | {s['peak_mb']:.0f} | "
                    f"{s['peak_mb'] - s['base_mb']:.0f} | {s['estimate_mb']:.0f} | {s['queued_mb']:.1f} | "
                    + (f"{w['seconds']:.2f} | {w['peak_mb']:.0f} | {r['max_diff']:.1e} |\n"
                       if w else f"not run (over --whole_max {a.whole_max}) | | |\n"))
        peaks = {r["target"]: r["stretched"]["peak_mb"] for r in rows}
        f.write(f"\nTime exponent (least squares on log-log, all rows): {slope:.3f}.\n")
        if 131072 in peaks and 1500000 in peaks:
            f.write(f"Peak RSS at 1.5M over 128k: {peaks[1500000] / peaks[131072]:.2f}x.\n")


if __name__ == "__main__":
    main()
