#!/usr/bin/env python3
"""Sends every rendered document in each form to a running rpsum-server over HTTP (the body as
it is, with its Content-Type; max_words = the reference's words, the title given: rpsum-eval's
protocol) and scores the served summaries against the references with rpsum-score.

usage: serve.py FORMS_DIR HTTP_ADDR RPSUM_SCORE OUT_PREFIX
writes OUT_PREFIX.json (per form: ROUGE, documents, failures, summaries with markup) and
OUT_PREFIX.md (the table), and OUT_PREFIX.summaries.jsonl.gz is not kept (large).
"""
import concurrent.futures
import json
import pathlib
import re
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request

FORMS = [("text", "txt", "text/plain"), ("markdown", "md", "text/markdown"),
         ("html", "html", "text/html"), ("pdf", "pdf", "application/pdf"),
         ("docx", "docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
         ("odt", "odt", "application/vnd.oasis.opendocument.text"),
         ("epub", "epub", "application/epub+zip")]


def words(text: str) -> int:
    return len(text.split())


def markup(unit: str, plain: str) -> bool:
    """Markup a summary must never hold (a tag, a link target, a heading mark, a table pipe, or
    the text of a footnote, comment, header or deletion) that is not text of the document itself
    (the corpus text has a few "a < b")."""
    looks = re.search(r"<[a-zA-Z/!]", unit) or "](" in unit or unit.lstrip().startswith("#") \
        or "|" in unit
    # What the DOCX and ODT renderings hold outside the text (render.py): footnotes, comments,
    # a header, tracked deletions.
    leaked = any(x in unit for x in ("A footnote the summary must not hold", "A comment.",
                                     "Proposal header", "Deleted words here"))
    return bool(looks or leaked) and " ".join(unit.split()) not in plain


def post(addr, body: bytes, ctype: str, title: str, max_words: int):
    q = urllib.parse.urlencode({"max_words": max_words, "title": title})
    req = urllib.request.Request(f"http://{addr}/v1/summarize?{q}", data=body,
                                 headers={"Content-Type": ctype}, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=300) as r:
            return json.load(r), None
    except urllib.error.HTTPError as e:
        return None, e.read().decode("utf-8", "replace")


def main(argv):
    forms_dir, addr, scorer, out = pathlib.Path(argv[1]), argv[2], argv[3], argv[4]
    manifest = [json.loads(l) for l in open(forms_dir / "manifest.jsonl", encoding="utf-8")]
    jobs = []
    for m in manifest:
        for form, ext, ctype in FORMS:
            jobs.append((m, form, forms_dir / f"{m['n']}.{ext}", ctype))

    def run(job):
        m, form, path, ctype = job
        reply, error = post(addr, path.read_bytes(), ctype, m["title"],
                            max(1, words(m["reference"])))
        return m, form, reply, error

    lines, stats = [], {f: {"documents": 0, "failed": 0, "with_markup": 0, "extract_ms": 0.0,
                            "model_ms": 0.0} for f, _, _ in FORMS}
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        for m, form, reply, error in pool.map(run, jobs):
            s = stats[form]
            s["documents"] += 1
            if reply is None:
                s["failed"] += 1
                print(f"{form} {m['id']}: {error}", file=sys.stderr)
                continue
            units = [x["text"] for x in reply["sentences"]]
            plain = " ".join((forms_dir / f"{m['n']}.txt").read_text(encoding="utf-8").split())
            s["with_markup"] += any(markup(u, plain) for u in units)
            s["extract_ms"] += int(reply["timings"]["extractUs"]) / 1000
            s["model_ms"] += int(reply["timings"]["inferenceUs"]) / 1000
            lines.append(json.dumps({"group": form, "reference": m["reference"],
                                     "summary": "\n".join(units)}))
    scores = json.loads(subprocess.run([scorer], input="\n".join(lines) + "\n", text=True,
                                       capture_output=True, check=True).stdout)
    result = {}
    for form, _, _ in FORMS:
        s = stats[form]
        ok = s["documents"] - s["failed"]
        result[form] = dict(s, **scores.get(form, {}))
        result[form]["extract_ms_mean"] = s["extract_ms"] / ok if ok else 0
        result[form]["model_ms_mean"] = s["model_ms"] / ok if ok else 0
    pathlib.Path(out + ".json").write_text(json.dumps(result, indent=1) + "\n")
    base = result["text"].get("rouge1", 0)
    rows = ["| form | documents | refused | summaries with markup | ROUGE-1 | ROUGE-2 | ROUGE-Lsum "
            "| R1 - text | extraction ms (mean) |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for form, _, _ in FORMS:
        r = result[form]
        if "rouge1" not in r:
            rows.append(f"| {form} | {r['documents']} | {r['failed']} | - | - | - | - | - | - |")
            continue
        rows.append(f"| {form} | {r['documents']} | {r['failed']} | {r['with_markup']} | "
                    f"{r['rouge1']:.2f} | {r['rouge2']:.2f} | {r['rougeLsum']:.2f} | "
                    f"{r['rouge1'] - base:+.2f} | {r['extract_ms_mean']:.1f} |")
    pathlib.Path(out + ".md").write_text("\n".join(rows) + "\n")
    print("\n".join(rows))


if __name__ == "__main__":
    main(sys.argv)
