#!/usr/bin/env python3
"""Extraction time against the model's on the same long document, from the stage timings the
server reports (extract_us, prepare_us, inference_us, select_us), median of --runs requests
each, one at a time: a PDF of about 50 pages, the HTML page it was printed from and the
Markdown, all of one long document built from corpus valid documents.

usage: extract_bench.py FORMS_DIR HTTP_ADDR OUT_PREFIX [--runs N]
FORMS_DIR holds long.md, long.html, long.pdf (render.py --long, then Chromium).
"""
import argparse
import json
import pathlib
import statistics
import urllib.request

FORMS = [("pdf", "application/pdf"), ("html", "text/html"), ("md", "text/markdown")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("forms")
    ap.add_argument("addr")
    ap.add_argument("out")
    ap.add_argument("--runs", type=int, default=7)
    a = ap.parse_args()
    rows, result = [], {}
    for ext, ctype in FORMS:
        body = (pathlib.Path(a.forms) / f"long.{ext}").read_bytes()
        stages = {"extract": [], "prepare": [], "inference": [], "select": [], "total": []}
        reply = None
        for _ in range(a.runs):
            req = urllib.request.Request(
                f"http://{a.addr}/v1/summarize?max_words=150&truncation=head", data=body,
                headers={"Content-Type": ctype}, method="POST")
            with urllib.request.urlopen(req, timeout=600) as r:
                reply = json.load(r)
            t = reply["timings"]
            for k in stages:
                stages[k].append(int(t[f"{k}Us"]) / 1000)
        med = {k: statistics.median(v) for k, v in stages.items()}
        result[ctype] = {"bytes": len(body), "pages": reply.get("pages", 0),
                         "input_tokens": reply["inputTokens"], "truncated": reply["truncated"],
                         "runs": a.runs, "median_ms": med}
        rows.append(f"| {ctype} | {len(body) / 1024:.0f} KB | {reply.get('pages') or '-'} | "
                    f"{reply['inputTokens']} | {med['extract']:.1f} | {med['prepare']:.1f} | "
                    f"{med['inference']:.1f} | {med['extract'] / med['inference']:.3f} |")
    pathlib.Path(a.out + ".json").write_text(json.dumps(result, indent=1) + "\n")
    table = ["| document | size | pages | tokens | extract ms | prepare ms (incl. extract) | "
             "model ms | extract / model |", "| --- | --- | --- | --- | --- | --- | --- | --- |"] + rows
    pathlib.Path(a.out + ".md").write_text("\n".join(table) + "\n")
    print("\n".join(table))


if __name__ == "__main__":
    main()
