# shellcheck shell=bash
# Sourced by scripts/test. The gate runs each long step (build, ctest) as a background child and
# waits for it, so that a signal to the gate (Ctrl-C, a CI runner's timeout, a plain kill) is
# handled at once: the gate stops the whole process tree of its children and fails with 128 +
# the signal's number. Without this, bash ran the gate's EXIT trap with the last step's status
# and a killed gate reported "all tests passed" (exit 0) while its build ran on, orphaned.
#   run_child COMMAND...   runs COMMAND in the background, waits, returns its exit status

# Sends TERM to a process's descendants, deepest first, then to the process.
gate_kill_tree() {
  local child
  for child in $(pgrep -P "$1" || true); do gate_kill_tree "$child"; done
  kill -TERM "$1" 2>/dev/null || true
}

gate_on_signal() {  # NAME EXIT_CODE
  trap - TERM INT HUP
  echo "== rpsum: interrupted by SIG$1; stopping the gate's children" >&2
  local child
  for child in $(pgrep -P "$$" || true); do gate_kill_tree "$child"; done
  exit "$2"
}
trap 'gate_on_signal TERM 143' TERM
trap 'gate_on_signal INT 130' INT
trap 'gate_on_signal HUP 129' HUP

run_child() {
  "$@" &
  wait "$!"
}
