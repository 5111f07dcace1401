#!/usr/bin/python3
"""The real Word, OpenDocument and EPUB files of ../shared/data/realdocs, summarized
(docs/benchmarks.md, "Document formats").

Starts rpsum-server from BUILD_DIR on the shipped model and posts each file over HTTP as it is,
with no Content-Type (the server detects the package), max_sentences=5 and truncation=head (01
and 25 are longer than the default 32,768 tokens: length is #63's, not what this measures).
For each summary sentence it checks, with Python's own XML reader, that the place the sentence
points to holds it: DOCX and ODT, the part's paragraph of that index (every w:p, or text:p and
text:h, in document order) holds the sentence's words; EPUB, the file's bytes in its range, tags
out, hold them. A sentence from a footnote, comment, header or deleted text could not pass: those
live in other parts or other elements. Writes OUT_DIR/realdocs.md and realdocs.json.
  bench/realdocs.py BUILD_DIR OUT_DIR
"""
import html
import json
import pathlib
import re
import subprocess
import sys
import urllib.error
import urllib.request

import local_server
import xml.etree.ElementTree as ET
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared/data/realdocs"
HTTP = ""  # local_server.served's address, set by main
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"


def words(text):
    return re.findall(r"\w+", text.lower())


def paragraphs(path, part):
    """The part's paragraphs' texts, in document order, as the reader indexes them."""
    root = ET.fromstring(zipfile.ZipFile(path).read(part))
    if part == "word/document.xml":
        return ["".join(t.text or "" for t in p.iter(W + "t")) for p in root.iter(W + "p")]
    body = root.find(f".//{OFFICE}text")
    out = []
    for p in body.iter():
        if p.tag not in (TEXT + "p", TEXT + "h"):
            continue
        raw = ET.tostring(p, encoding="unicode")
        raw = re.sub(r"<(\w+:)?(s|tab|line-break)( [^>]*)?/>", " ", raw)  # spaces and breaks
        out.append(html.unescape(re.sub(r"<[^>]+>", "", raw)))
    return out


def holds(path, s, cache):
    part = s.get("part", {})
    name = part.get("part", "")
    if not name:
        return False
    if name.endswith(".xml"):
        if name not in cache:
            cache[name] = paragraphs(path, name)
        paras = cache[name]
        i = int(part.get("paragraph", 0))
        return i < len(paras) and all(w in words(paras[i]) for w in words(s["text"]))
    raw = zipfile.ZipFile(path).read(name)
    b, e = int(part.get("begin", 0)), int(part.get("end", 0))
    shown = html.unescape(re.sub(r"<[^>]*>", " ", raw[b:e].decode("utf-8", "replace")))
    return all(w in words(shown) for w in words(s["text"]))


def main():
    build, out = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2])
    rows = []
    global HTTP
    with local_server.served(build) as HTTP:
        for path in sorted(DATA.glob("*.*")):
            if path.suffix not in (".docx", ".odt", ".epub"):
                continue
            req = urllib.request.Request(
                f"http://{HTTP}/v1/summarize?max_sentences=5&truncation=head",
                data=path.read_bytes(), headers={"Content-Type": "application/octet-stream"},
                method="POST")
            try:
                with urllib.request.urlopen(req, timeout=300) as r:
                    reply = json.load(r)
            except urllib.error.HTTPError as e:
                rows.append({"file": path.name, "status": e.code, "error": e.read().decode()})
                continue
            cache = {}
            sents = reply.get("sentences", [])
            rows.append({
                "file": path.name, "status": 200, "content_type": reply.get("contentType"),
                "input_tokens": reply.get("inputTokens"), "truncated": reply.get("truncated", False),
                "sentences": len(sents), "pointing_back": sum(holds(path, s, cache) for s in sents),
                "summary": [s["text"] for s in sents],
                "parts": [s.get("part", {}) for s in sents]})
    out.mkdir(parents=True, exist_ok=True)
    (out / "realdocs.json").write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n")
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    lines = ["# The real documents of ../shared/data/realdocs, summarized", "",
             f"`bench/realdocs.py {build.name} OUT` at {commit} ({build.name} build, model "
             "models/rpsum-ext): each file posted as it is (detected), max_sentences=5, "
             "truncation=head. `pointing back`: summary sentences whose place (Sentence.part) "
             "holds their words, checked with Python's XML reader.", "",
             "| file | status | detected as | tokens | truncated | sentences | pointing back |",
             "| --- | ---: | --- | ---: | --- | ---: | ---: |"]
    for r in rows:
        ct = (r.get("content_type") or "").replace("application/", "")
        lines.append(f"| {r['file']} | {r['status']} | {ct} | {r.get('input_tokens', '')} | "
                     f"{r.get('truncated', '')} | {r.get('sentences', '')} | "
                     f"{r.get('pointing_back', '')} |")
    lines += ["", "The summaries:", ""]
    for r in rows:
        lines.append(f"- {r['file']}: " + " / ".join(r.get("summary", [r.get("error", "")])))
    (out / "realdocs.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
