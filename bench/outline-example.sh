#!/usr/bin/env bash
# An outline of real documents (docs/design.md, section 2, "Outline"): realdocs 09 (a Word
# chapter with its own heading styles), Debian's bzip2 manual (a PDF without an outline: type
# sizes) and nettle manual (a PDF with one), each summarized by one
# rpsum-server with outline=1 and max_words=200 over HTTP. Writes OUT_DIR/outline-example.md
# (each section's heading, indented by level, with its summary) and the responses as
# outline-example-*.json.
#   bench/outline-example.sh BUILD_DIR OUT_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
out=$(cd "$2" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source bench/local_server.sh "$build"
cp ../shared/data/realdocs/09.docx "$tmp/09.docx"
zcat /usr/share/doc/bzip2/manual.pdf.gz >"$tmp/bzip2-manual.pdf"
zcat /usr/share/doc/nettle-dev/nettle.pdf.gz >"$tmp/nettle-manual.pdf"
{
  echo "# Outlines of three real documents"
  echo
  echo "\`bench/outline-example.sh $(basename "$build") OUT\` at $(git rev-parse --short HEAD)" \
       "(model models/rpsum-ext): outline=1, max_words=200, over HTTP."
  for doc in 09.docx bzip2-manual.pdf nettle-manual.pdf; do
    curl -s -X POST -H "Content-Type: application/octet-stream" --data-binary "@$tmp/$doc" \
      "http://127.0.0.1:$p3/v1/summarize?max_words=200&outline=1&truncation=head" \
      >"$out/outline-example-${doc%%.*}.json"
    /usr/bin/python3 - "$doc" "$out/outline-example-${doc%%.*}.json" <<'PY'
import json, sys
doc, path = sys.argv[1:]
r = json.load(open(path))
print(f"\n## {doc}: {r['inputTokens']} tokens, {len(r['outline'])} sections\n")
for s in r["outline"]:
    level = int(s.get("level", 0))
    where = (f"pages {s.get('firstPage', 0)}-{s.get('lastPage', 0)}" if s.get("firstPage")
             else f"paragraph {s.get('part', {}).get('paragraph', 0)}" if s.get("part") else "")
    title = s.get("title") or "(before the first heading)"
    flags = " [boilerplate]" if s.get("boilerplate") else ""
    print(f"{'  ' * max(level - 1, 0)}- **{title}** (level {level}, {s.get('words', 0)} words"
          f"{', ' + where if where else ''}){flags}")
    for sent in s.get("sentences", []):
        print(f"{'  ' * max(level - 1, 0)}  - {sent['text']}")
PY
  done
} >"$out/outline-example.md"
