#!/usr/bin/env bash
# Checks that the Python comparison server selects what rpsum-server selects, beyond the 24
# documents bench/run-load compares: both servers on this machine, bench-load --mode compare
# on the first N documents (up to 6,000 words) of a corpus file. Writes the comparison JSON.
# Both servers load MODEL_DIR (default models/rpsum-ext).
#   bench/python_server/compare.sh CORPUS.jsonl.gz N OUT.json [BUILD_DIR] [MODEL_DIR]
set -euo pipefail
corpus=$1
n=$2
out=$3
build=${4:-build/release}
model=${5:-models/rpsum-ext}
cd "$(dirname "$0")/../.."  # the checkout
source scripts/cpu-env
tmp=$(mktemp -d)
pids=()
stop() { for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; }
trap 'stop; rm -rf "$tmp"' EXIT
read -r p1 p2 p3 p4 < <(/usr/bin/python3 tests/e2e/free_ports.py 4)
api=127.0.0.1:$p1; health=127.0.0.1:$p2; metrics=127.0.0.1:$p3; pyapi=127.0.0.1:$p4
"$build/server/rpsum-server" --model_dir "$model" --listen $api --health_listen $health \
  --metrics_listen $metrics --threads 2 >"$tmp/server.log" 2>&1 &
pids+=($!)
/usr/bin/python3 bench/python_server/rpsum_py_server.py --model "$model" --listen $pyapi --threads 2 >"$tmp/py.log" 2>&1 &
pids+=($!)
"$build/client/rpsum" health --server $health --wait 120 >/dev/null
for _ in $(seq 1 240); do grep -q serving "$tmp/py.log" && break; sleep 0.5; done
grep -q serving "$tmp/py.log" || { cat "$tmp/py.log"; exit 1; }
"$build/bench/bench-load" --mode compare --target $api --compare_target $pyapi --corpus "$corpus" \
  --docs "$n" --requests "$n" --label "compare $(basename "$corpus")" --json_out "$out"
