#!/usr/bin/python3
"""PDF readers against the text the authors wrote (docs/benchmarks.md, "Real PDFs").

For each PDF of ../shared/data/realpdf (11 papers and specifications with the text recovered
from their LaTeX: its README says what that text holds), four readers' text: ours
(`bench-hostile --text pdf`, the server's formats::Extract), poppler's `pdftotext` (its
default, physical-layout-free mode), pdfminer.six (`extract_text`) and PyMuPDF (`get_text()` per
page). Scored on words (lowercased runs of letters and digits, any script):
  recall     the authors' words (abstract, body and footnotes) found in the reader's text, as a
             multiset: what was lost;
  precision  the reader's words that are the authors': what else came along (running heads,
             page numbers, captions, math, code, references, which the authors' text leaves out);
  F1         their harmonic mean;
  order      the body's adjacent word pairs found adjacent in the reader's text, as a multiset:
             columns and floats read in order.
And the time each reader takes on the file: the median of REPS runs, the four readers in turn
(wall clock; a process started each time for the command-line readers, ours through
bench-hostile included; Python's in this process).
Writes OUT_DIR/pdf-readers.md and .json.
  bench/pdf-readers.py BUILD_DIR OUT_DIR
"""
import collections
import json
import pathlib
import re
import statistics
import subprocess
import sys
import time

import fitz
from pdfminer.high_level import extract_text

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared/data/realpdf"
ONE_PAGE = ROOT / "formats/testdata/paper.pdf"
REPS = 5  # runs of each reader on each file, in turn; its time is their median


def words(text):
    return re.findall(r"\w+", text.lower())


def ours(build, pdf):
    out = subprocess.run([str(build / "bench/bench-hostile"), "--text", "pdf", str(pdf)],
                         capture_output=True, text=True, check=True).stdout
    lines = out.split("\n")
    # "== path", the text, then a line of pieces' source ranges.
    return "\n".join(lines[1:-2]) if len(lines) > 3 else ""


def pdftotext(pdf):
    return subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout


def pdfminer(pdf):
    return extract_text(str(pdf))


def pymupdf(pdf):
    with fitz.open(str(pdf)) as doc:
        return "\n".join(page.get_text() for page in doc)


def score(text, ref_all, ref_body):
    got = collections.Counter(words(text))
    want = collections.Counter(ref_all)
    hit = sum((got & want).values())
    recall = hit / max(1, sum(want.values()))
    precision = hit / max(1, sum(got.values()))
    f1 = 2 * recall * precision / max(1e-9, recall + precision)
    w = words(text)
    pairs_got = collections.Counter(zip(w, w[1:]))
    pairs_want = collections.Counter(zip(ref_body, ref_body[1:]))
    order = sum((pairs_got & pairs_want).values()) / max(1, sum(pairs_want.values()))
    return {"recall": recall, "precision": precision, "f1": f1, "order": order}


def main():
    build, out = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2])
    readers = [("rpsum", lambda p: ours(build, p)), ("pdftotext", pdftotext),
               ("pdfminer.six", pdfminer), ("PyMuPDF", pymupdf)]
    rows = []
    for pdf in sorted(DATA.glob("*.pdf")):
        n = pdf.stem
        body = (DATA / f"{n}.tex.txt").read_text(encoding="utf-8")
        extra = "".join((DATA / f"{n}.{part}.txt").read_text(encoding="utf-8")
                        for part in ("abstract", "footnotes") if (DATA / f"{n}.{part}.txt").exists())
        ref_body = words(body)
        ref_all = ref_body + words(extra)
        row = {"file": pdf.name}
        texts, seconds = {}, {name: [] for name, _ in readers}
        for _ in range(REPS):  # the readers in turn, REPS times: medians side by side
            for name, read in readers:
                t0 = time.monotonic()
                texts[name] = read(pdf)
                seconds[name].append(time.monotonic() - t0)
        for name, _ in readers:
            row[name] = dict(score(texts[name], ref_all, ref_body),
                             seconds=statistics.median(seconds[name]))
        rows.append(row)
    # What a reader takes on a one-page PDF is mostly its start (a process, for the command-line
    # readers): the totals less that once per file compare the reading itself.
    start = {}
    for name, read in readers:
        runs = []
        for _ in range(4 * REPS):
            t0 = time.monotonic()
            read(ONE_PAGE)
            runs.append(time.monotonic() - t0)
        start[name] = statistics.median(runs)
    (out / "pdf-readers.json").write_text(json.dumps({"files": rows, "one_page_seconds": start},
                                                     indent=1) + "\n")
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    names = [r for r, _ in readers]
    lines = ["# PDF readers against the authors' text (../shared/data/realpdf)", "",
             f"`bench/pdf-readers.py {build.name} OUT` at {commit} (rpsum: the {build.name} "
             "build's formats::Extract through bench-hostile). Words: lowercased runs of "
             "letters and digits; recall, precision and F1 over multisets of the authors' words "
             "(abstract, body, footnotes); order: the body's adjacent word pairs found adjacent. "
             f"Seconds: the median of {REPS} runs each, the readers in turn (the command-line "
             "readers, ours included, started as a process each time).", "",
             "| file | " + " | ".join(f"{r} F1 / R / P / order / s" for r in names) + " |",
             "| --- | " + " | ".join("---" for _ in names) + " |"]
    for row in rows:
        cells = [f"{row[r]['f1']:.3f} / {row[r]['recall']:.3f} / {row[r]['precision']:.3f} / "
                 f"{row[r]['order']:.3f} / {row[r]['seconds']:.2f}" for r in names]
        lines.append(f"| {row['file']} | " + " | ".join(cells) + " |")
    means = [f"{statistics.mean(x[r]['f1'] for x in rows):.3f} / "
             f"{statistics.mean(x[r]['recall'] for x in rows):.3f} / "
             f"{statistics.mean(x[r]['precision'] for x in rows):.3f} / "
             f"{statistics.mean(x[r]['order'] for x in rows):.3f} / "
             f"{sum(x[r]['seconds'] for x in rows):.2f} (total)" for r in names]
    lines.append("| mean | " + " | ".join(means) + " |")
    lines += ["", f"A one-page PDF ({ONE_PAGE.relative_to(ROOT)}), the median of {4 * REPS} runs, "
              "and each reader's total less that once per file (its start, mostly: the reading "
              "itself):", "", "| reader | one page s | total less starts s |", "| --- | --- | --- |"]
    for r in names:
        total = sum(x[r]["seconds"] for x in rows)
        lines.append(f"| {r} | {start[r]:.4f} | {total - len(rows) * start[r]:.2f} |")
    (out / "pdf-readers.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
