#!/usr/bin/python3
"""What the summaries of real PDFs are made of (docs/benchmarks.md, "Real PDFs").

Starts rpsum-server from BUILD_DIR on the shipped model and summarizes each PDF of
../shared/data/realpdf over HTTP (max_sentences=7, truncation=head). Each summary sentence is
checked against the text its authors wrote (abstract, body and footnotes, recovered from their
LaTeX; the README says what it holds, and leaves out tables, code, captions, display math,
references and running heads): the share of its words, in order, that the authors' text holds
as a run of the same words. A sentence of the authors' prose finds nearly all of its words so;
one that is a table, a code listing, a running head or a caption glued to prose does not. Writes
OUT_DIR/realpdf-summaries.md and .json.
  bench/realpdf-summaries.py BUILD_DIR OUT_DIR
"""
import json
import pathlib
import re
import subprocess
import sys
import urllib.request

import local_server

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared/data/realpdf"
HTTP = ""  # local_server.served's address, set by main
PROSE = 0.8  # a sentence with at least this share of its words in the authors' runs


def words(text):
    return re.findall(r"\w+", text.lower())


def share(sentence, ref_trigrams):
    """The share of the sentence's words that stand in a word trigram the reference holds."""
    w = words(sentence)
    if len(w) < 3:
        return 1.0
    covered = [False] * len(w)
    for i in range(len(w) - 2):
        if tuple(w[i:i + 3]) in ref_trigrams:
            covered[i] = covered[i + 1] = covered[i + 2] = True
    return sum(covered) / len(w)


def main():
    build, out = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2])
    rows = []
    global HTTP
    with local_server.served(build) as HTTP:
        for pdf in sorted(DATA.glob("*.pdf")):
            ref = ""
            for part in ("abstract", "tex", "footnotes"):
                path = DATA / f"{pdf.stem}.{part}.txt"
                if path.exists():
                    ref += path.read_text(encoding="utf-8") + "\n"
            rw = words(ref)
            trigrams = {tuple(rw[i:i + 3]) for i in range(len(rw) - 2)}
            req = urllib.request.Request(
                f"http://{HTTP}/v1/summarize?max_sentences=7&truncation=head",
                data=pdf.read_bytes(), headers={"Content-Type": "application/pdf"},
                method="POST")
            with urllib.request.urlopen(req, timeout=300) as r:
                reply = json.load(r)
            sents = [{"text": s["text"], "share": share(s["text"], trigrams)}
                     for s in reply["sentences"]]
            rows.append({"file": pdf.name, "sentences": sents,
                         "prose": sum(s["share"] >= PROSE for s in sents)})
    out.mkdir(parents=True, exist_ok=True)
    (out / "realpdf-summaries.json").write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n")
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    total = sum(len(r["sentences"]) for r in rows)
    prose = sum(r["prose"] for r in rows)
    lines = ["# Summaries of the real PDFs against their authors' text", "",
             f"`bench/realpdf-summaries.py {build.name} OUT` at {commit} ({build.name} build, model "
             "models/rpsum-ext), max_sentences=7, truncation=head. A sentence's share: its words "
             "that stand in a word trigram of the authors' text (abstract, body, footnotes). "
             f"{prose} of {total} summary sentences have {PROSE} or more: the authors' prose; the "
             "others are listed.", "",
             "| file | sentences | prose |", "| --- | ---: | ---: |"]
    lines += [f"| {r['file']} | {len(r['sentences'])} | {r['prose']} |" for r in rows]
    lines += ["", "Sentences under the share:", ""]
    for r in rows:
        for s in r["sentences"]:
            if s["share"] < PROSE:
                lines.append(f"- {r['file']} ({s['share']:.2f}): {s['text'][:300]}")
    (out / "realpdf-summaries.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
