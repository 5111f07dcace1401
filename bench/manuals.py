#!/usr/bin/env python3
"""Debian's long PDF manuals on the server's default flags (issue #63): the nettle manual (111
pages) and the valgrind manual (397 pages), each posted once over HTTP to a fresh rpsum-server
(no flags but ports and threads), 7 sentences. Writes each one's pages, tokens, time, the
server's peak resident memory, what was left out as boilerplate and the summary.

    /usr/bin/python3 bench/manuals.py BUILD_DIR [--out bench/results/manuals]
"""
import argparse
import gzip
import json
import pathlib
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import local_server  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
MANUALS = ["/usr/share/doc/nettle-dev/nettle.pdf.gz", "/usr/share/doc/valgrind/valgrind_manual.pdf.gz"]


def peak_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--out", default=str(ROOT / "bench/results/manuals"))
    a = ap.parse_args()
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    rows = []
    for path in MANUALS:
        body = gzip.open(path).read()
        pids = []
        with local_server.served(a.build, started=pids.append) as http:
            req = urllib.request.Request(f"http://{http}/v1/summarize?max_sentences=7",
                                         data=body, headers={"Content-Type": "application/pdf"})
            t = time.monotonic()
            with urllib.request.urlopen(req, timeout=900) as r:
                out = json.load(r)
            seconds = time.monotonic() - t
            peak = peak_mb(pids[0])
        rows.append({"manual": path, "pages": out.get("pages"), "tokens": out["inputTokens"],
                     "truncated": out.get("truncated", False), "seconds": seconds,
                     "peak_mb": peak, "boilerplate_sections": out.get("boilerplateSections", []),
                     "boilerplate_sentences": out.get("boilerplateSentences", 0),
                     "sentences": [s["text"] for s in out["sentences"]]})
        print(json.dumps(rows[-1])[:300], flush=True)
    out = pathlib.Path(a.out)
    json.dump({"commit": commit, "rows": rows}, open(out.with_suffix(".json"), "w"), indent=1)
    with open(out.with_suffix(".md"), "w") as f:
        f.write(f"## Debian's long PDF manuals on the default flags (release build at {commit}, "
                "model v2.5, 2 threads)\n\nCommand: `/usr/bin/python3 bench/manuals.py "
                "build/release`. One fresh server per manual, started with no limit flags; "
                "7 sentences; peak RSS is the server process's VmHWM after the request.\n\n"
                "| manual | pages | tokens | truncated | time s | peak RSS MB | sentences left "
                "out as boilerplate |\n| --- | --- | --- | --- | --- | --- | --- |\n")
        for r in rows:
            f.write(f"| {r['manual'].replace('/usr/share/doc/', '')} | {r['pages']} | "
                    f"{r['tokens']} | {r['truncated']} | {r['seconds']:.1f} | {r['peak_mb']:.0f} | "
                    f"{r['boilerplate_sentences']} |\n")
        for r in rows:
            f.write(f"\n### {r['manual'].replace('/usr/share/doc/', '')}\n\nSections left out as "
                    "boilerplate: " + ("; ".join(f"`{h}`" for h in r["boilerplate_sections"])
                                       or "none") + "\n\n")
            f.write("".join(f"- {s}\n" for s in r["sentences"]))


if __name__ == "__main__":
    main()
