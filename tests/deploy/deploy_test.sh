#!/usr/bin/env bash
# Static checks of deploy/: the Kubernetes manifests render (base and gpu overlay) and hold the
# properties the service relies on (check_manifests.py), YAML is lint-clean (.yamllint), and the
# Prometheus rules and config pass promtool. Whether the metrics they name exist is checked
# against a live server by e2e.prometheus.
#   deploy_test.sh SOURCE_DIR        (exit 77: skipped, a tool is missing)
set -euo pipefail
trap 'echo "FAIL: line $LINENO: \"$BASH_COMMAND\" exited $?" >&2' ERR
src=$1
cd "$src"
for tool in yamllint promtool; do
  command -v $tool >/dev/null || { echo "skip: $tool is not installed (scripts/setup)"; exit 77; }
done
yamllint -s deploy/ .yamllint
echo "yamllint deploy/: clean"
promtool check rules deploy/prometheus/rules.yml
promtool check config deploy/prometheus/prometheus.yml
if ! command -v kubectl >/dev/null; then
  echo "skip: kubectl is not installed (not a Debian 12 package): manifests not rendered"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
kubectl kustomize deploy/k8s >"$tmp/cpu.yaml"
kubectl kustomize deploy/k8s/gpu >"$tmp/gpu.yaml"
for f in cpu gpu; do yamllint -s -c .yamllint "$tmp/$f.yaml"; done
echo "kubectl kustomize: base and gpu overlay render, lint-clean"
/usr/bin/python3 tests/deploy/check_manifests.py "$tmp/cpu.yaml" cpu
/usr/bin/python3 tests/deploy/check_manifests.py "$tmp/gpu.yaml" gpu
echo "PASS: deploy"
