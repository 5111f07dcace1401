#!/usr/bin/env bash
# Remakes the PDF fixtures of formats_test from the HTML beside them: Debian's headless
# Chromium prints each page (with its default header and footer: date, title, URL, page
# numbers), and qpdf (apt-get install qpdf; only needed here) encrypts a copy. Run from anywhere.
set -euo pipefail
cd "$(dirname "$0")"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
print() {  # html pdf
  chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --user-data-dir="$profile" \
    --print-to-pdf="$2" "${@:3}" "$1" 2>/dev/null
}
print two-column.html two-column.pdf
# A scan has no header or footer either: nothing of its text is text.
print scanned.html scanned.pdf --no-pdf-header-footer
# A diagonal DRAFT watermark on every page, and a second page with nothing else.
print watermark.html watermark.pdf --no-pdf-header-footer
# A preformatted table and code among paragraphs; a page all in a monospaced font.
print preformatted.html preformatted.pdf --no-pdf-header-footer
print monospaced.html monospaced.pdf --no-pdf-header-footer
# Headings of one size whose levels only the document's outline (its bookmarks) gives; the
# outline's titles lack the numbers printed before them.
print outline.html outline.pdf --no-pdf-header-footer --generate-pdf-document-outline
# A hand-written PDF whose outline loops (each entry its own child, the last one's next the
# first); qpdf writes its cross-reference table.
qpdf outline-loop.in outline-loop.pdf || [ $? -eq 3 ]  # 3: succeeded with warnings
# A hand-written page of a paper: contents, a formula in TeX's math italic, axis labels, a
# caption, a bibliography, a table.
qpdf paper.in paper.pdf || [ $? -eq 3 ]
qpdf --encrypt secret owner 256 -- two-column.pdf encrypted.pdf
qpdf --rotate=+90:1 preformatted.pdf rotated.pdf  # shown turned a quarter clockwise
