#!/usr/bin/env bash
# End to end: the real rpsum-server binary on the shipped model, scraped by a real Prometheus
# server (Debian's package). Sends known traffic with the real rpsum client, then asks
# Prometheus' HTTP API for rpsum_requests_total, checks the exposition with promtool, and
# stops the server with SIGTERM (it must drain and exit 0). Prometheus also loads our alert rules
# (deploy/prometheus/rules.yml), which must evaluate without error, and every metric that the
# rules, the HPA/adapter config and the Grafana dashboard name must be in the live scrape.
#   prometheus_e2e.sh BUILD_DIR SOURCE_DIR        (exit 77: skipped)
set -euo pipefail
trap 'echo "FAIL: line $LINENO: \"$BASH_COMMAND\" exited $?" >&2' ERR
build=$1
src=$2
model=$src/models/rpsum-ext
if [ ! -f "$model/config.json" ]; then echo "skip: no shipped model at $model"; exit 77; fi
for tool in prometheus promtool curl; do
  command -v $tool >/dev/null || { echo "skip: $tool is not installed"; exit 77; }
done
server=$build/server/rpsum-server
client=$build/client/rpsum
tmp=$(mktemp -d)
read -r p1 p2 p3 p4 < <(/usr/bin/python3 "$src/tests/e2e/free_ports.py" 4)
api=127.0.0.1:$p1; health=127.0.0.1:$p2; metrics=127.0.0.1:$p3; prom=127.0.0.1:$p4
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# Started without OPENBLAS_CORETYPE, as a user running the binary directly would: on a CPU
# with AVX2 or AVX-512 the server sets it and re-executes itself (same pid).
env -u OPENBLAS_CORETYPE "$server" --model_dir "$model" --listen "$api" --health_listen "$health" \
  --metrics_listen "$metrics" --threads 1 --drain_timeout_s 20 >"$tmp/server.log" 2>&1 &
server_pid=$!
pids+=($server_pid)
"$client" health --server "$health" --wait 120 >/dev/null || { cat "$tmp/server.log"; exit 1; }
if grep -qw avx2 /proc/cpuinfo; then
  server_env=$(tr '\0' '\n' <"/proc/$server_pid/environ")  # no `| grep -q` under pipefail
  grep -qE '^OPENBLAS_CORETYPE=(SkylakeX|Haswell)$' <<<"$server_env" || {
    echo "FAIL: the server runs without OPENBLAS_CORETYPE on an AVX2 CPU"
    cat "$tmp/server.log"
    exit 1
  }
fi

cat >"$tmp/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $src/deploy/prometheus/rules.yml
scrape_configs:
  - job_name: rpsum
    static_configs:
      - targets: ['$metrics']
YAML
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/data" \
  --web.listen-address="$prom" >"$tmp/prometheus.log" 2>&1 &
pids+=($!)

# Known traffic: 4 good summaries, 2 empty documents (INVALID_ARGUMENT).
for i in 1 2 3; do "$client" summarize --server "$api" --max_words 40 "$src/docs/sample.md" >/dev/null; done
printf '' >"$tmp/empty.txt"
if "$client" summarize --server "$api" "$tmp/empty.txt" 2>/dev/null; then
  echo "FAIL: an empty document was accepted"; exit 1
fi
# The CLI with several files: a good one, an empty one (INVALID_ARGUMENT) and one that does
# not exist (never sent): the summary on stdout, each failure on stderr naming its file, exit 1.
rc=0
"$client" summarize --server "$api" --max_words 40 "$src/docs/sample.md" "$tmp/empty.txt" \
  "$tmp/missing.txt" >"$tmp/cli.out" 2>"$tmp/cli.err" || rc=$?
[ "$rc" = 1 ] || { echo "FAIL: rpsum with a failing file exited $rc, want 1"; exit 1; }
grep -q "^== $src/docs/sample.md" "$tmp/cli.out" || { echo "FAIL: no summary on stdout"; cat "$tmp/cli.out"; exit 1; }
grep -q "^rpsum: $tmp/empty.txt: INVALID_ARGUMENT" "$tmp/cli.err" &&
  grep -q "^rpsum: $tmp/missing.txt: NOT_FOUND" "$tmp/cli.err" ||
  { echo "FAIL: the failures are not reported by file"; cat "$tmp/cli.err"; exit 1; }
! grep -q "^rpsum:" "$tmp/cli.out" || { echo "FAIL: an error went to stdout"; exit 1; }

query() {  # prints the value of an instant query, or nothing
  curl -s --get "http://$prom/api/v1/query" --data-urlencode "query=$1" |
    /usr/bin/python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")' 2>/dev/null || true
}
ok=""; bad=""
for _ in $(seq 1 60); do
  ok=$(query 'sum(rpsum_requests_total{method="Summarize",code="OK"})')
  bad=$(query 'sum(rpsum_requests_total{method="Summarize",code="INVALID_ARGUMENT"})')
  [ "$ok" = 4 ] && [ "$bad" = 2 ] && break
  sleep 1
done
echo "prometheus: rpsum_requests_total OK=$ok INVALID_ARGUMENT=$bad"
[ "$ok" = 4 ] && [ "$bad" = 2 ] || { echo "FAIL: Prometheus did not see the traffic"; tail -5 "$tmp/prometheus.log"; exit 1; }
up=$(query 'up{job="rpsum"}')
[ "$up" = 1 ] || { echo "FAIL: up=$up"; exit 1; }

curl -s "http://$metrics/metrics" >"$tmp/metrics.txt"
if ! out=$(promtool check metrics <"$tmp/metrics.txt" 2>&1) || [ -n "$out" ]; then
  echo "FAIL: promtool check metrics:"; echo "$out"; exit 1
fi
echo "promtool check metrics: clean ($(grep -c '^rpsum_' "$tmp/metrics.txt") rpsum samples)"

# Deploy assets name only metrics the server exports (and the checker catches one that is not).
assets=("$src/deploy/prometheus/rules.yml" "$src/deploy/k8s/base/hpa.yaml"
        "$src/deploy/k8s/base/prometheus-adapter-rules.yaml" "$src/deploy/grafana/rpsum-dashboard.json")
/usr/bin/python3 "$src/tests/deploy/check_metric_names.py" "$tmp/metrics.txt" "${assets[@]}"
echo 'expr: rate(rpsum_no_such_metric_total[5m])' >"$tmp/bogus.yml"
if /usr/bin/python3 "$src/tests/deploy/check_metric_names.py" "$tmp/metrics.txt" "$tmp/bogus.yml" >/dev/null; then
  echo "FAIL: the metric name checker accepted an unknown metric"; exit 1
fi
# Our alert and recording rules evaluate against real data without errors.
rules_json=$(curl -s "http://$prom/api/v1/rules")
echo "$rules_json" | /usr/bin/python3 -c '
import json, sys
groups = json.load(sys.stdin)["data"]["groups"]
rules = [r for g in groups for r in g["rules"]]
bad = [(r["name"], r.get("lastError")) for r in rules if r.get("health") not in ("ok", "unknown")]
if not rules or bad:
    sys.exit(f"FAIL: rules loaded={len(rules)} unhealthy={bad}")
print(f"prometheus: {len(rules)} rules from deploy/prometheus/rules.yml loaded, none in error")
'

kill -TERM "$server_pid"
rc=0; wait "$server_pid" || rc=$?
[ $rc -eq 0 ] || { echo "FAIL: server exit code $rc after SIGTERM"; cat "$tmp/server.log"; exit 1; }
grep -q "drained" "$tmp/server.log" || { echo "FAIL: no drain message"; exit 1; }
echo "PASS: prometheus end to end"
