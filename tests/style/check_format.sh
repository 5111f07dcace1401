#!/usr/bin/env bash
# clang-format --dry-run -Werror over every tracked C++ file (every C++ file outside build/
# when this is not a git checkout).
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files --cached --others --exclude-standard -- \
    '*.h' '*.cc' '*.cpp' | while read -r f; do [ -f "$f" ] && echo "$f"; done)
else
  mapfile -t files < <(find . -path ./build -prune -o \( -name '*.h' -o -name '*.cc' \) -print)
fi
[ ${#files[@]} -gt 0 ] || { echo "check_format: no C++ files found" >&2; exit 1; }
clang-format --dry-run -Werror "${files[@]}"
echo "check_format: ${#files[@]} files clean"
