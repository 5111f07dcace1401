#!/usr/bin/env python3
"""Renders corpus documents as a user would send them: plain text (as the corpus holds it),
GitHub Markdown, an HTML page with navigation, script and footer around the body, and (by the
caller, with Chromium) a PDF printed from that page.

The corpus text is one heading, paragraph or list item per line (its README, "Text layout").
Markdown: heading lines become "## " headings, paragraphs are hard-wrapped at 80 columns with
blank lines between them, every fourth paragraph gets **bold** and `code` on two of its words
and a link on a third, and a code block and a table follow every third section (the training
corpus's extraction dropped both). HTML: the same structure as h2/p elements with b/code/a
inside, a <pre> and a <table>, inside <main>, with a <nav>, <script>, <style>, <aside> and
<footer> around it. DOCX and ODT: the same structure in Word's and LibreOffice's XML, with
tables, footnotes, comments, a header and tracked deletions that must not reach a summary. EPUB:
the HTML page as its one chapter, after a navigation document.

usage: render.py CORPUS.jsonl.gz OUT_DIR [--limit N] [--long WORDS]
writes OUT_DIR/<n>.txt, .md, .html, .docx, .odt, .epub and OUT_DIR/manifest.jsonl (n, id, title,
reference);
with --long, only OUT_DIR/long.md and long.html: the corpus's documents one after another, each
under its title as a heading, until WORDS words (extract_bench.py's long document)
"""
import argparse
import gzip
import html
import io
import json
import pathlib
import textwrap
import zipfile

PUNCT = tuple(".!?:;,)\"'")


def is_heading(line: str) -> bool:
    """The corpus README's rule of thumb, as model/document.cc IsHeadingLine reads a line."""
    return not line.endswith(PUNCT) and len(line.split()) <= 12


def decorate(words, md: bool):
    """Bold the 2nd word, code the 4th, link the 6th (when the paragraph is long enough)."""
    w = list(words)
    if len(w) >= 8:
        if md:
            w[1] = f"**{w[1]}**"
            w[3] = f"`{w[3]}`"
            w[5] = f"[{w[5]}](https://example.org/ref/{len(w)})"
        else:
            w[1] = f"<b>{html.escape(w[1])}</b>"
            w[3] = f"<code>{html.escape(w[3])}</code>"
            w[5] = f'<a href="https://example.org/ref/{len(w)}">{html.escape(w[5])}</a>'
            for i in range(len(w)):
                if i not in (1, 3, 5):
                    w[i] = html.escape(w[i])
    elif not md:
        w = [html.escape(x) for x in w]
    return w


CODE = "```python\ndef handler(request):\n    return respond(request.body)\n```"
TABLE = "| field | type | meaning |\n| --- | --- | --- |\n| id | u64 | the key |\n| ttl | u32 | seconds |"


def blocks(doc: str):
    """The document's lines as ("heading", line, with_extras) and ("para", line, decorated):
    a code block and a table go before every third heading, markup into every fourth
    paragraph."""
    para = sections = 0
    for line in doc.split("\n"):
        line = line.strip()
        if not line:
            continue
        if is_heading(line):
            sections += 1
            yield "heading", line, sections % 3 == 0
        else:
            para += 1
            yield "para", line, para % 4 == 0


def markdown(doc: str, title: str) -> str:
    out = [f"# {title}", ""]
    for kind, line, extra in blocks(doc):
        if kind == "heading":
            if extra:
                out += [CODE, "", TABLE, ""]
            out += [f"## {line}", ""]
            continue
        words = decorate(line.split(), md=True) if extra else line.split()
        out += [textwrap.fill(" ".join(words), 80, break_long_words=False,
                              break_on_hyphens=False), ""]
    return "\n".join(out)


def page(doc: str, title: str) -> str:
    t = html.escape(title)
    body = [f"<h1>{t}</h1>"]
    for kind, line, extra in blocks(doc):
        if kind == "heading":
            if extra:
                body.append("<pre><code>def handler(request):\n    return respond(request.body)"
                            "</code></pre>")
                body.append("<table><tr><th>field</th><th>type</th></tr>"
                            "<tr><td>id</td><td>u64</td></tr></table>")
            body.append(f"<h2>{html.escape(line)}</h2>")
            continue
        words = decorate(line.split(), md=False) if extra else \
            [html.escape(x) for x in line.split()]
        body.append("<p>" + " ".join(words) + "</p>")
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{t}</title>
<style>body {{ font-family: serif; max-width: 46em; margin: auto; }} nav a {{ margin: 0 1em; }}</style>
<script>window.analytics = {{ track: function (e) {{ return "<p>" + e + "</p>"; }} }};</script>
</head><body>
<header><nav><a href="/">Home</a> <a href="/proposals">All proposals</a> <a href="/about">About this site</a></nav></header>
<main><article>
{chr(10).join(body)}
</article></main>
<aside><h3>Related proposals</h3><ul><li><a href="/p/1">Another proposal on caching</a></li></ul></aside>
<footer>Copyright 2026 The Proposal Authors. Generated from the repository. Contact us.</footer>
<script>window.analytics.track("view");</script>
</body></html>
"""


W_NS = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def _zip(entries) -> bytes:
    """A zip of (name, text) entries, the first stored (ODF's and EPUB's "mimetype")."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for i, (name, data) in enumerate(entries):
            z.writestr(name, data, zipfile.ZIP_STORED if i == 0 else zipfile.ZIP_DEFLATED)
    return buf.getvalue()


def docx(doc: str, title: str) -> bytes:
    """A Word document as Word writes one: Title and Heading 2 paragraphs, the text split into
    runs, a table, a footnote reference and a comment on every fourth paragraph, a tracked
    insertion and deletion on every third, a header part."""
    e = html.escape
    body = [f'<w:p><w:pPr><w:pStyle w:val="Title"/></w:pPr><w:r><w:t>{e(title)}</w:t></w:r></w:p>']
    n = 0
    for kind, line, extra in blocks(doc):
        if kind == "heading":
            if extra:
                body.append('<w:tbl><w:tr><w:tc><w:p><w:r><w:t>field</w:t></w:r></w:p></w:tc>'
                            '<w:tc><w:p><w:r><w:t>type</w:t></w:r></w:p></w:tc></w:tr></w:tbl>')
            body.append(f'<w:p><w:pPr><w:pStyle w:val="Heading2"/></w:pPr><w:r><w:t>{e(line)}'
                        '</w:t></w:r></w:p>')
            continue
        n += 1
        words = line.split()
        half = len(words) // 2
        runs = (f'<w:r><w:t xml:space="preserve">{e(" ".join(words[:half]))} </w:t></w:r>'
                f'<w:r><w:rPr><w:b/></w:rPr><w:t>{e(" ".join(words[half:]))}</w:t></w:r>')
        if n % 3 == 0:
            runs = ('<w:del w:id="1" w:author="a"><w:r><w:delText xml:space="preserve">Deleted '
                    'words here. </w:delText></w:r></w:del>' + runs)
        if extra:
            runs += ('<w:r><w:footnoteReference w:id="1"/></w:r>'
                     '<w:r><w:commentReference w:id="0"/></w:r>')
        body.append(f"<w:p>{runs}</w:p>")
    document = f'<w:document {W_NS}><w:body>{"".join(body)}<w:sectPr/></w:body></w:document>'
    styles = (f'<w:styles {W_NS}><w:style w:styleId="Title"><w:name w:val="Title"/></w:style>'
              '<w:style w:styleId="Heading2"><w:name w:val="heading 2"/></w:style></w:styles>')
    return _zip([("[Content_Types].xml", "<Types/>"), ("word/document.xml", document),
                 ("word/styles.xml", styles),
                 ("word/footnotes.xml", f'<w:footnotes {W_NS}><w:footnote w:id="1"><w:p><w:r>'
                  '<w:t>A footnote the summary must not hold.</w:t></w:r></w:p></w:footnote>'
                  '</w:footnotes>'),
                 ("word/header1.xml", f'<w:hdr {W_NS}><w:p><w:r><w:t>Proposal header</w:t>'
                  '</w:r></w:p></w:hdr>')])


def odt(doc: str, title: str) -> bytes:
    """OpenDocument text as LibreOffice writes it: text:h headings, text:p paragraphs with a
    span, a table, a footnote and a comment on every fourth paragraph."""
    e = html.escape
    body = [f'<text:h text:outline-level="1">{e(title)}</text:h>']
    for kind, line, extra in blocks(doc):
        if kind == "heading":
            if extra:
                body.append('<table:table><table:table-row><table:table-cell><text:p>field'
                            '</text:p></table:table-cell></table:table-row></table:table>')
            body.append(f'<text:h text:outline-level="2">{e(line)}</text:h>')
            continue
        words = line.split()
        half = len(words) // 2
        inner = (f'{e(" ".join(words[:half]))} <text:span text:style-name="T1">'
                 f'{e(" ".join(words[half:]))}</text:span>')
        if extra:
            inner += ('<text:note text:note-class="footnote"><text:note-body><text:p>A footnote'
                      ' the summary must not hold.</text:p></text:note-body></text:note>'
                      '<office:annotation><text:p>A comment.</text:p></office:annotation>')
        body.append(f"<text:p>{inner}</text:p>")
    content = ('<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:'
               'office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
               'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"><office:body>'
               f'<office:text>{"".join(body)}</office:text></office:body>'
               '</office:document-content>')
    return _zip([("mimetype", "application/vnd.oasis.opendocument.text"),
                 ("content.xml", content)])


def epub(doc: str, title: str) -> bytes:
    """An EPUB 3 of the HTML page's body as one chapter, with a navigation document."""
    chapter = page(doc, title)
    opf = ('<package xmlns="http://www.idpf.org/2007/opf" version="3.0"><manifest>'
           '<item id="nav" href="nav.xhtml" properties="nav" media-type="application/xhtml+xml"/>'
           '<item id="c1" href="text/chapter.xhtml" media-type="application/xhtml+xml"/>'
           '</manifest><spine><itemref idref="nav"/><itemref idref="c1"/></spine></package>')
    return _zip([("mimetype", "application/epub+zip"),
                 ("META-INF/container.xml", '<container><rootfiles><rootfile '
                  'full-path="OEBPS/content.opf"/></rootfiles></container>'),
                 ("OEBPS/content.opf", opf),
                 ("OEBPS/nav.xhtml", "<html><body><nav><ol><li>Chapter</li></ol></nav>"
                  "</body></html>"),
                 ("OEBPS/text/chapter.xhtml", chapter)])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("out")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--long", type=int, default=0)
    a = ap.parse_args()
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    if a.long:
        parts, words = [], 0
        with gzip.open(a.corpus, "rt", encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                parts.append(f"{r['title']}\n{r['document']}")
                words += len(r["document"].split())
                if words >= a.long:
                    break
        doc = "\n".join(parts)
        (out / "long.md").write_text(markdown(doc, "Proposals"), encoding="utf-8")
        (out / "long.html").write_text(page(doc, "Proposals"), encoding="utf-8")
        return
    with gzip.open(a.corpus, "rt", encoding="utf-8") as f, \
            open(out / "manifest.jsonl", "w", encoding="utf-8") as m:
        for n, line in enumerate(f):
            if a.limit and n >= a.limit:
                break
            r = json.loads(line)
            (out / f"{n}.txt").write_text(r["document"], encoding="utf-8")
            (out / f"{n}.md").write_text(markdown(r["document"], r["title"]), encoding="utf-8")
            (out / f"{n}.html").write_text(page(r["document"], r["title"]), encoding="utf-8")
            (out / f"{n}.docx").write_bytes(docx(r["document"], r["title"]))
            (out / f"{n}.odt").write_bytes(odt(r["document"], r["title"]))
            (out / f"{n}.epub").write_bytes(epub(r["document"], r["title"]))
            m.write(json.dumps({"n": n, "id": r["id"], "title": r["title"],
                                "reference": r["summary"]}) + "\n")


if __name__ == "__main__":
    main()
