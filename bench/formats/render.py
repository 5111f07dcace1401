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
<footer> around it.

usage: render.py CORPUS.jsonl.gz OUT_DIR [--limit N] [--long WORDS]
writes OUT_DIR/<n>.txt, .md, .html and OUT_DIR/manifest.jsonl (n, id, title, reference);
with --long, only OUT_DIR/long.md and long.html: the corpus's documents one after another, each
under its title as a heading, until WORDS words (extract_bench.py's long document)
"""
import argparse
import gzip
import html
import json
import pathlib
import textwrap

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
            m.write(json.dumps({"n": n, "id": r["id"], "title": r["title"],
                                "reference": r["summary"]}) + "\n")


if __name__ == "__main__":
    main()
