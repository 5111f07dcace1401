#!/usr/bin/env bash
# The Python comparison server (bench/python_server, what docs/benchmarks.md measures rpsum
# against) still selects what rpsum-server selects, with unit scores within 1e-5, on the first
# four documents of the corpus valid split: both servers on the shipped model
# (bench/python_server/compare.sh with the ci build), so that a change to preparation, the
# model or the selection that the Python server does not follow fails the gate.
#   py_parity_e2e.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$src/bench/python_server/compare.sh" "$src/../shared/data/corpus/valid.jsonl.gz" 4 \
  "$tmp/compare.json" "$build" "$src/models/rpsum-ext" >"$tmp/compare.out" 2>&1 ||
  { echo "FAIL: compare.sh:"; cat "$tmp/compare.out"; exit 1; }
/usr/bin/python3 - "$tmp/compare.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print({k: r[k] for k in ("compared", "same_selection", "different_selection", "failed",
                         "max_score_diff_when_same")})
ok = (r["compared"] == 4 and r["same_selection"] == 4 and r["failed"] == 0
      and r["max_score_diff_when_same"] <= 1e-5)
if not ok:
    print("FAIL: the Python server no longer matches rpsum-server:", r.get("mismatches"))
sys.exit(0 if ok else 1)
PY
