#!/usr/bin/python3
"""Documents as found, by encoding (docs/benchmarks.md, "Encodings").

Starts rpsum-server from BUILD_DIR on the shipped model and posts, over HTTP, every HTML page
under /usr/share/doc that declares a charset other than UTF-8 (a <meta> charset or an XML
declaration in its first 1,024 bytes), as it is, with Content-Type text/html and no charset
(the page's own declaration must decide), max_sentences=3 and truncation=head. For each page it checks:
  - the answer is 200, and names the encoding the page declares (ISO-8859-1 as windows-1252;
    UTF-8 where a Latin-1 declaration stands over valid UTF-8 characters);
  - accents intact: the extracted text holds no U+FFFD, and every non-ASCII character in it
    occurs in the page as Python decodes it (the same codec); a page whose visible text holds
    non-ASCII characters keeps at least one;
  - each summary sentence's source range, decoded with that codec, tags and entities out,
    holds the sentence's words.
Writes OUT_DIR/encodings.md (a table per declared charset, then every page with non-ASCII
text) and OUT_DIR/encodings.json.
  bench/encodings.py BUILD_DIR OUT_DIR
"""
import html
import json
import pathlib
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request

import local_server

ROOT = pathlib.Path(__file__).resolve().parent.parent
HTTP = ""  # local_server.served's address, set by main
# What the server reads a label as (WHATWG), in Python's codec names.
CODECS = {"iso-8859-1": "cp1252", "latin1": "cp1252", "us-ascii": "cp1252",
          "windows-1252": "cp1252", "iso-8859-15": "iso8859_15", "iso-8859-2": "iso8859_2"}
NAMES = {"cp1252": "windows-1252", "iso8859_15": "ISO-8859-15", "iso8859_2": "ISO-8859-2",
         "utf-8": "UTF-8"}


def declared(head):
    """The charset a page declares in its first 1,024 bytes, lowercased, or None."""
    s = head[:1024].decode("ascii", "replace").lower()
    s = re.sub(r"<!--.*?-->", "", s, flags=re.S)
    m = re.match(r"\s*<\?xml[^>]*encoding\s*=\s*[\"']([^\"']+)", s)
    if m:
        return m.group(1).strip()
    m = re.search(r"<meta[^>]*charset\s*=\s*[\"']?([a-z0-9_:.-]+)", s)
    return m.group(1).strip() if m else None


def visible(text):
    text = re.sub(r"(?is)<(script|style)\b.*?</\1>", " ", text)
    text = re.sub(r"(?s)<!--.*?-->", " ", text)
    text = re.sub(r"(?s)<[^>]*>", " ", text)
    return " ".join(html.unescape(text).split())


def words(text):
    return re.findall(r"\w+", text.lower())


def post(body):
    req = urllib.request.Request(
        f"http://{HTTP}/v1/summarize?max_sentences=3&truncation=head&return_extracted_text=1", data=body,
        headers={"Content-Type": "text/html", "X-Timeout-Ms": "60000"}, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def check(path):
    raw = path.read_bytes()
    label = declared(raw)
    codec = CODECS.get(label, label)
    row = {"page": str(path), "bytes": len(raw), "declared": label,
           "non_ascii_bytes": sum(b >= 0x80 for b in raw)}
    try:
        raw.decode("utf-8")
        row["valid_utf8"] = True
    except UnicodeDecodeError:
        row["valid_utf8"] = False
    if row["valid_utf8"] and row["non_ascii_bytes"] and codec == "cp1252":
        codec = "utf-8"  # Latin-1 declared over UTF-8 characters: the server reads UTF-8
    page = raw.decode(codec, "replace")
    shown = visible(page)
    # Non-ASCII characters a reader sees (a no-break space is a space in the text form).
    row["non_ascii_visible"] = sum(ord(c) >= 0x80 and c != "\xa0" for c in shown)
    t0 = time.monotonic()
    status, resp = post(raw)
    row["ms"] = round(1000 * (time.monotonic() - t0), 1)
    row["status"] = status
    if status != 200:
        row["error"] = resp.get("error", {}).get("message", "")
        return row
    row["encoding"] = resp.get("encoding")
    row["decided_by"] = resp.get("encodingDecidedBy")
    row["encoding_ok"] = resp.get("encoding") == NAMES.get(codec, codec)
    text = resp.get("extractedText", "")
    odd = {c for c in text if ord(c) >= 0x80 and c not in html.unescape(page)}
    row["foreign_characters"] = "".join(sorted(odd))
    row["non_ascii_kept"] = sum(ord(c) >= 0x80 for c in text)
    row["accents_ok"] = "\ufffd" not in text and not odd and (
        row["non_ascii_visible"] == 0 or row["non_ascii_kept"] > 0)
    ok = 0
    for s in resp.get("sentences", []):
        b, e = int(s.get("sourceBegin", 0)), int(s.get("sourceEnd", 0))
        src = words(visible(raw[b:e].decode(codec, "replace")))
        if e > b and all(w in src for w in words(s["text"])):
            ok += 1
        else:
            row.setdefault("not_pointing_back", []).append(
                {"text": s["text"], "source": raw[b:e].decode(codec, "replace")[:400]})
    row["sentences"] = len(resp.get("sentences", []))
    row["sentences_pointing_back"] = ok
    return row


def main():
    build, out = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    pages = []
    for p in sorted(pathlib.Path("/usr/share/doc").rglob("*.htm*")):
        if p.is_file() and not p.is_symlink():
            label = declared(p.read_bytes()[:1024])
            if label and label.replace("_", "-") not in ("utf-8", "utf8"):
                pages.append(p)
    global HTTP
    with local_server.served(build) as HTTP:
        rows = [check(p) for p in pages]
    (out / "encodings.json").write_text(json.dumps(rows, indent=1) + "\n")
    write_table(rows, out / "encodings.md", build)


def write_table(rows, path, build):
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    lines = [
        "# HTML pages of /usr/share/doc that declare a charset other than UTF-8",
        "",
        f"`bench/encodings.py {build.name} OUT` at {commit} ({build.name} build, model "
        "models/rpsum-ext), on this machine's /usr/share/doc (Debian 12). Each page posted as it "
        "is over HTTP, Content-Type text/html without a charset (the page's declaration decides), "
        "max_sentences=3, truncation=head (a page over the 32,768-token default is summarized "
        "from its head: length is not what this measures).",
        "`valid UTF-8`: pages whose bytes are valid UTF-8 (the server before charsets read only "
        "these, and refused the rest).",
        "",
        "| declared | pages | valid UTF-8 | non-ASCII text | answered 200 | encoding as declared "
        "| accents intact | summary sentences | pointing back |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for label in sorted({r["declared"] for r in rows}):
        rs = [r for r in rows if r["declared"] == label]
        ok = [r for r in rs if r["status"] == 200]
        lines.append(
            f"| {label} | {len(rs)} | {sum(r['valid_utf8'] for r in rs)} | "
            f"{sum(r['non_ascii_visible'] > 0 for r in rs)} | {len(ok)} | "
            f"{sum(r.get('encoding_ok', False) for r in ok)} | "
            f"{sum(r.get('accents_ok', False) for r in ok)} | "
            f"{sum(r.get('sentences', 0) for r in ok)} | "
            f"{sum(r.get('sentences_pointing_back', 0) for r in ok)} |")
    lines += ["", "Pages whose visible text holds non-ASCII characters:", "",
              "| page | bytes | valid UTF-8 | status | encoding | non-ASCII kept | accents intact |"
              " sentences pointing back |",
              "| --- | ---: | --- | ---: | --- | ---: | --- | ---: |"]
    for r in rows:
        if r["non_ascii_visible"] == 0:
            continue
        lines.append(
            f"| {r['page'].replace('/usr/share/doc/', '')} | {r['bytes']} | "
            f"{'yes' if r['valid_utf8'] else 'no'} | {r['status']} | {r.get('encoding', '')} | "
            f"{r.get('non_ascii_kept', '')} | {r.get('accents_ok', '')} | "
            f"{r.get('sentences_pointing_back', '')} of {r.get('sentences', '')} |")
    astray = [(r["page"], m) for r in rows for m in r.get("not_pointing_back", [])]
    if astray:
        lines += ["", "Summary sentences whose source range does not hold all their words "
                  "(the range runs from the first word found in the page to the last; a word "
                  "an entity changed is not found):", ""]
        lines += [f"- {p.replace('/usr/share/doc/', '')}: \"{m['text']}\" from "
                  f"\"{m['source']}\"" for p, m in astray]
    errors = [r for r in rows if r["status"] != 200]
    if errors:
        lines += ["", "Refused:", ""]
        lines += [f"- {r['page']}: {r['status']} {r.get('error', '')}" for r in errors]
    path.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
