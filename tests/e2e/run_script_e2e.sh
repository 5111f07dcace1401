#!/usr/bin/env bash
# scripts/serve-and-summarize (what scripts/run ends in) against the ci build: with one of its
# ports held by another process it stops at once with a message that names the port (and
# starts no server); with free ports it serves, summarizes, and SIGTERM stops it cleanly with
# nothing left running.
#   run_script_e2e.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
trap 'echo "FAIL: line $LINENO: \"$BASH_COMMAND\" exited $?" >&2' ERR
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
holder=""
script_pid=""
health_port=""
cleanup() {
  [ -n "$holder" ] && kill "$holder" 2>/dev/null || true
  [ -n "$script_pid" ] && kill -KILL "$script_pid" 2>/dev/null || true
  [ -n "$health_port" ] &&
    pkill -KILL -f "^$build/server/rpsum-server .*--health_listen 127.0.0.1:$health_port" || true
  rm -rf "$tmp"
}
trap cleanup EXIT
read -r api_port health_port metrics_port < <(/usr/bin/python3 "$src/tests/e2e/free_ports.py" 3)
export RPSUM_BUILD_DIR=$build RPSUM_LISTEN=127.0.0.1:$api_port
export RPSUM_HEALTH=127.0.0.1:$health_port RPSUM_METRICS=127.0.0.1:$metrics_port

# 1. The health port is taken by another process.
/usr/bin/python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(8)
print("ready", flush=True); time.sleep(300)' "$health_port" >"$tmp/holder.out" 2>&1 &
holder=$!
for _ in $(seq 50); do grep -q ready "$tmp/holder.out" && break; sleep 0.1; done
grep -q ready "$tmp/holder.out" ||
  { echo "FAIL: the test could not hold port $health_port itself:"; cat "$tmp/holder.out"; exit 1; }
rc=0
"$src/scripts/serve-and-summarize" >"$tmp/taken.out" 2>&1 || rc=$?
[ $rc -ne 0 ] || { echo "FAIL: exit 0 with the health port taken"; cat "$tmp/taken.out"; exit 1; }
grep -q "127.0.0.1:$health_port is already in use" "$tmp/taken.out" ||
  { echo "FAIL: the message does not name the taken port:"; cat "$tmp/taken.out"; exit 1; }
if pgrep -f "^$build/server/rpsum-server .*--health_listen 127.0.0.1:$health_port" >/dev/null; then
  echo "FAIL: a server was started although its port was taken"; exit 1
fi
echo "ok   taken port: $(head -1 "$tmp/taken.out")"
kill "$holder"; wait "$holder" 2>/dev/null || true; holder=""

# 2. Free ports: ready, a summary of the sample document, SIGTERM drains and exits 0.
"$src/scripts/serve-and-summarize" >"$tmp/run.out" 2>&1 &
script_pid=$!
for _ in $(seq 240); do grep -q "== rpsum: serving on" "$tmp/run.out" && break; sleep 0.5; done
grep -q "== rpsum: serving on $RPSUM_LISTEN" "$tmp/run.out" ||
  { echo "FAIL: never served:"; cat "$tmp/run.out"; exit 1; }
summary=$(sed -n '/== rpsum: summary of/,/== rpsum: model/p' "$tmp/run.out" | sed '1d;$d')
first=$(echo "$summary" | head -c 40)
[ -n "$first" ] && grep -qF -- "$first" "$src/docs/sample.md" ||
  { echo "FAIL: no summary from the sample document:"; cat "$tmp/run.out"; exit 1; }
kill -TERM "$script_pid"
rc=0; wait "$script_pid" || rc=$?
script_pid=""
[ $rc -eq 0 ] || { echo "FAIL: exit $rc after SIGTERM"; cat "$tmp/run.out"; exit 1; }
if pgrep -f "^$build/server/rpsum-server .*--health_listen $RPSUM_HEALTH" >/dev/null; then
  echo "FAIL: the server is still running after the script stopped"; exit 1
fi
echo "PASS: serve-and-summarize (taken port refused; served, summarized, stopped)"
