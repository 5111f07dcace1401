#!/usr/bin/env bash
# Boilerplate left out (docs/design.md, section 2, "Boilerplate"): Debian's PDF manuals with a
# GNU FDL appendix, summarized by one rpsum-server with and without keep_boilerplate, 7
# sentences, truncation=head_and_tail (the manual's end, where the licence is, stays in). Prints
# each summary and what the response says was left out.
#   bench/boilerplate-demo.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source bench/local_server.sh "$build"
for doc in /usr/share/doc/libtasn1-doc/libtasn1.pdf /usr/share/doc/gnucobol3/gnucobol.pdf.gz \
           /usr/share/doc/nettle-dev/nettle.pdf.gz; do
  case "$doc" in *.gz) zcat "$doc" >"$tmp/doc.pdf" ;; *) cp "$doc" "$tmp/doc.pdf" ;; esac
  for keep in 0 1; do
    curl -s -X POST -H "Content-Type: application/pdf" --data-binary "@$tmp/doc.pdf" \
      "http://127.0.0.1:$p3/v1/summarize?max_sentences=7&truncation=head_and_tail&keep_boilerplate=$keep" \
      >"$tmp/r.json"
    /usr/bin/python3 - "$doc" "$keep" "$tmp/r.json" <<'PY'
import json, sys
doc, keep, path = sys.argv[1:]
r = json.load(open(path))
print(f"### {doc.replace('/usr/share/doc/', '')}, keep_boilerplate={keep}\n")
print(f"{r['inputTokens']} tokens (truncated: {r.get('truncated', False)}), "
      f"{r.get('boilerplateSentences', 0)} sentences left out as boilerplate; sections: "
      + "; ".join(f"`{h}`" for h in r.get("boilerplateSections", [])) + "\n")
for s in r["sentences"]:
    print(f"- {s['text']}")
print()
PY
  done
done
