#!/usr/bin/env bash
# Characters a PDF draws per byte of its own (ExtractLimits::max_pdf_glyphs_per_byte refuses a
# PDF past 4 a byte beyond its first 262,144): each file's bytes, the characters pdftotext gets
# from it, and their ratio, densest first. Gzipped PDFs (Debian's manuals) are read unpacked.
#   bench/pdf-density.sh FILE.pdf[.gz]... > bench/results/pdf-density.md
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# \`bench/pdf-density.sh $*\` (pdftotext $(pdftotext -v 2>&1 | head -1 | awk '{print $3}'), $(date -u +%Y-%m-%d))"
echo
echo "| file | bytes | characters | per byte |"
echo "| --- | --- | --- | --- |"
for f in "$@"; do
  pdf=$f
  case "$f" in *.gz) pdf="$tmp/$(basename "$f" .gz)"; zcat "$f" >"$pdf" ;; esac
  bytes=$(stat -c %s "$pdf")
  chars=$(pdftotext -q "$pdf" - 2>/dev/null | wc -m)
  printf '%s|%s|%s|%s\n' "$(awk -v c="$chars" -v b="$bytes" 'BEGIN{printf "%.3f", c/b}')" "$f" "$bytes" "$chars"
done | sort -t'|' -k1,1 -rn | awk -F'|' '{printf "| %s | %s | %s | %s |\n", $2, $3, $4, $1}'
