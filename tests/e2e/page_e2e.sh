#!/usr/bin/env bash
# The page at / in a real browser: Debian's headless chromium loads it from the real
# rpsum-server on the shipped model, the page submits docs/sample.md through its own form code
# (the #doc= link fills the form and presses Summarize), and the sentences it marks must be
# exactly the ones the JSON API selects for the same document and budget; the same for
# docs/sample.md read as Markdown and for a PDF sent through the page's dropped-file path; and
# the outline beside the document, section for section and sentence for sentence the API's.
# Keeps a screenshot at BUILD_DIR/artifacts/page.png.
#   page_e2e.sh BUILD_DIR SOURCE_DIR        (exit 77: skipped)
set -euo pipefail
trap 'echo "FAIL: line $LINENO: \"$BASH_COMMAND\" exited $?" >&2' ERR
build=$1
src=$2
model=$src/models/rpsum-ext
if [ ! -f "$model/config.json" ]; then echo "skip: no shipped model at $model"; exit 77; fi
for tool in chromium curl; do
  command -v $tool >/dev/null || { echo "skip: $tool is not installed"; exit 77; }
done
server=$build/server/rpsum-server
client=$build/client/rpsum
tmp=$(mktemp -d)
read -r p1 p2 p3 < <(/usr/bin/python3 "$src/tests/e2e/free_ports.py" 3)
api=127.0.0.1:$p1; health=127.0.0.1:$p2; http=127.0.0.1:$p3
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

"$server" --model_dir "$model" --listen "$api" --health_listen "$health" --metrics_listen "$http" \
  --threads 1 >"$tmp/server.log" 2>&1 &
pids+=($!)
"$client" health --server "$health" --wait 120 >/dev/null || { cat "$tmp/server.log"; exit 1; }

doc=$src/docs/sample.md
words=60
want=$(curl -sf -H 'Content-Type: application/json' \
  -d "$(/usr/bin/python3 -c 'import json,sys; print(json.dumps({"document": open(sys.argv[1]).read(), "maxWords": int(sys.argv[2])}))' "$doc" "$words")" \
  "http://$http/v1/summarize" | /usr/bin/python3 -c 'import json,sys; print(" ".join(str(s["index"]) for s in json.load(sys.stdin)["sentences"]))')
[ -n "$want" ] || { echo "FAIL: the API selected nothing"; exit 1; }
url="http://$http/#doc=$(/usr/bin/python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(open(sys.argv[1]).read()))' "$doc")&words=$words"
browser=(timeout 90 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage
         --user-data-dir="$tmp/profile" --virtual-time-budget=20000)
"${browser[@]}" --dump-dom "$url" >"$tmp/dom.html" 2>"$tmp/chromium.log" || {
  echo "FAIL: chromium could not load the page"; tail -5 "$tmp/chromium.log"; exit 1; }
grep -q 'data-state="done"' "$tmp/dom.html" || {
  echo "FAIL: the page did not finish its request"; grep -o 'id="error">[^<]*' "$tmp/dom.html" || true
  exit 1; }
got=$(grep -o '<mark data-index="[0-9]*"' "$tmp/dom.html" | grep -o '[0-9]*' | tr '\n' ' ' | sed 's/ $//')
if [ "$got" != "$want" ]; then
  echo "FAIL: the page marked sentences [$got], the API selected [$want]"; exit 1
fi
grep -q 'k = [0-9]*, attention' "$tmp/dom.html" || { echo "FAIL: no k and attention mode shown"; exit 1; }
grep -q 'Stages (ms): extract [0-9.]*, prepare' "$tmp/dom.html" || { echo "FAIL: no stage timings shown"; exit 1; }

# A dropped file's path: the page sends the bytes with their type and marks the sentences in the
# text the server extracted. Markdown (docs/sample.md read as Markdown) through the form's
# format, and a PDF (formats/testdata/two-column.pdf) through the file path.
check_format() {  # name, page hash, API content type, file
  local name=$1 hash=$2 type=$3 file=$4
  local want got
  want=$(curl -sf -H "Content-Type: $type" --data-binary "@$file" \
    "http://$http/v1/summarize?max_words=$words" | /usr/bin/python3 -c \
    'import json,sys; print(" ".join(str(s["index"]) for s in json.load(sys.stdin)["sentences"]))')
  [ -n "$want" ] || { echo "FAIL: $name: the API selected nothing"; exit 1; }
  "${browser[@]}" --dump-dom "http://$http/#$hash&words=$words" >"$tmp/$name.html" \
    2>>"$tmp/chromium.log" || { echo "FAIL: $name: chromium could not load the page"; exit 1; }
  grep -q 'data-state="done"' "$tmp/$name.html" || {
    echo "FAIL: $name: the page did not finish"; grep -o 'id="error">[^<]*' "$tmp/$name.html" || true
    exit 1; }
  got=$(grep -o '<mark data-index="[0-9]*"' "$tmp/$name.html" | grep -o '[0-9]*' | tr '\n' ' ' | sed 's/ $//')
  [ "$got" = "$want" ] || { echo "FAIL: $name: the page marked [$got], the API selected [$want]"; exit 1; }
  grep -q "$type, language en" "$tmp/$name.html" || { echo "FAIL: $name: no content type shown"; exit 1; }
  # The marks hold extracted text: no Markdown markup, no PDF furniture.
  if grep -o '<mark[^>]*>[^<]*' "$tmp/$name.html" | sed 's/<mark[^>]*>//' | grep -q '^#\|\*\*\|]('; then
    echo "FAIL: $name: markup in a marked sentence"; exit 1
  fi
  echo "page: $name marked [$got] = the API's"
}
quote() { /usr/bin/python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.stdin.read()))'; }
check_format markdown "doc=$(quote <"$doc")&format=text/markdown" text/markdown "$doc"
pdf=$src/formats/testdata/two-column.pdf
check_format pdf "file=$(base64 -w0 "$pdf" | quote)&type=application/pdf" application/pdf "$pdf"

# The outline beside the document: a section per API section, and the sentences it links to are
# the ones marked, each the API's section sentence.
md_doc=$(quote <"$doc")
want_outline=$(curl -sf -H 'Content-Type: text/markdown' --data-binary "@$doc" \
  "http://$http/v1/summarize?max_words=$words&outline=1" | /usr/bin/python3 -c '
import json, sys
r = json.load(sys.stdin)
print(len(r["outline"]), " ".join(sorted(str(s["index"]) for x in r["outline"] for s in x.get("sentences", []))))')
"${browser[@]}" --dump-dom "http://$http/#doc=$md_doc&format=text/markdown&words=$words&outline=1" \
  >"$tmp/outline.html" 2>>"$tmp/chromium.log" || { echo "FAIL: outline: chromium"; exit 1; }
grep -q 'data-state="done"' "$tmp/outline.html" || { echo "FAIL: outline: the page did not finish"; exit 1; }
sections=$(grep -o '<li class="section" data-level="[0-9]' "$tmp/outline.html" | wc -l)
links=$(grep -o '<a href="#s-[0-9]*" data-index="[0-9]*"' "$tmp/outline.html" | grep -o 'data-index="[0-9]*"' | grep -o '[0-9]*' | sort | tr '\n' ' ' | sed 's/ $//')
marks=$(grep -o '<mark data-index="[0-9]*"' "$tmp/outline.html" | grep -o '[0-9]*' | sort | tr '\n' ' ' | sed 's/ $//')
got_outline="$sections $links"
[ "$got_outline" = "$want_outline" ] || {
  echo "FAIL: outline: the page showed [$got_outline], the API [$want_outline]"; exit 1; }
[ "$marks" = "$links" ] || { echo "FAIL: outline: marks [$marks] are not its links [$links]"; exit 1; }
[ "$sections" -ge 2 ] || { echo "FAIL: outline: $sections sections"; exit 1; }
echo "page: outline of $sections sections, its sentences [$links] marked"

mkdir -p "$build/artifacts"
"${browser[@]}" --window-size=1100,1500 --screenshot="$build/artifacts/page.png" "$url" \
  >/dev/null 2>>"$tmp/chromium.log" || true
[ -s "$build/artifacts/page.png" ] || { echo "FAIL: no screenshot"; tail -5 "$tmp/chromium.log"; exit 1; }
echo "page: marked sentences [$got] = the API's; screenshot $build/artifacts/page.png"
