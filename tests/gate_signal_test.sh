#!/usr/bin/env bash
# scripts/gate-lib.sh: a signal to the test gate stops the gate's children at once and the gate
# fails. A stand-in gate (the library, an EXIT trap that reports the status like scripts/test's,
# one long child with a grandchild) gets TERM, then, run again, INT; each time it must exit
# within 10 s with 128 + the signal's number, its EXIT trap must see that status (not 0), and
# neither the child nor the grandchild may be left running. Leaves no process behind on failure.
#   gate_signal_test.sh REPO_ROOT
set -euo pipefail
root=${1:?usage: gate_signal_test.sh REPO_ROOT}
tmp=$(mktemp -d)
marker=$(( 500000 + RANDOM ))  # the grandchild's `sleep` argument, unique to this run
cleanup() {
  pkill -KILL -f "sleep $marker" 2>/dev/null || true
  [ -z "${gate:-}" ] || kill -KILL "$gate" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

check() {  # SIGNAL EXPECTED_STATUS
  local signal=$1 expected=$2
  # The stand-in gate, in its own process group like a CI job (setsid), so that only it gets
  # the signal: the children must be stopped by the gate, not by the kill. A background job of
  # this script starts with SIGINT ignored, which bash cannot trap: python resets it first, as
  # for a gate run in a terminal.
  # shellcheck disable=SC2016  # the script is expanded by the inner bash
  setsid /usr/bin/python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' bash -c '
    set -euo pipefail
    source "$1/scripts/gate-lib.sh"
    trap '\''echo "finish: status $?"'\'' EXIT
    run_child bash -c "sleep $2 & wait"
    echo "the step finished"
  ' gate "$root" "$marker" > "$tmp/out" 2>&1 &
  gate=$!
  for _ in $(seq 100); do
    pgrep -f "sleep $marker" > /dev/null && break
    sleep 0.1
  done
  pgrep -f "sleep $marker" > /dev/null || { echo "FAIL: the stand-in gate never started its step"; exit 1; }
  kill "-$signal" "$gate"
  local status=0
  for _ in $(seq 100); do
    kill -0 "$gate" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$gate" 2>/dev/null; then
    echo "FAIL: SIG$signal: the gate did not stop within 10 s (it waits for its step)"; exit 1
  fi
  wait "$gate" || status=$?
  gate=""
  if [ "$status" -ne "$expected" ]; then
    echo "FAIL: SIG$signal: the gate exited $status, not $expected:"; cat "$tmp/out"; exit 1
  fi
  grep -q "finish: status $expected" "$tmp/out" ||
    { echo "FAIL: SIG$signal: the EXIT trap did not see status $expected:"; cat "$tmp/out"; exit 1; }
  grep -q "interrupted by SIG$signal" "$tmp/out" ||
    { echo "FAIL: SIG$signal: no message names the signal:"; cat "$tmp/out"; exit 1; }
  if grep -q "the step finished" "$tmp/out"; then
    echo "FAIL: SIG$signal: the gate went on after the signal"; exit 1
  fi
  sleep 0.3
  if pgrep -f "sleep $marker" > /dev/null; then
    echo "FAIL: SIG$signal: the gate's grandchild is still running"; exit 1
  fi
  echo "ok: SIG$signal stops the gate (exit $status) and its children"
}
check TERM 143
check INT 130
