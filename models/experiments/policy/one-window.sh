#!/usr/bin/env bash
# Runs at commit c882fd2: its flags and config keys left the tools after it (../README.md).
# Copies checkpoint SRC to OUT with one block-local window at every length: its config's
# attention.local_windows (the window by length, version 2.5) removed and the version set to
# VERSION. For models/rpsum-ext that is v2.4 as it served: the same weights, tokenizer and
# reranking. The baseline of scripts/bench window and of the positions study
# (models/experiments/positions/eval.sh), whose variants were fitted before the window by length.
#   one-window.sh SRC OUT [VERSION]      (default VERSION: 2.4)
set -euo pipefail
src=${1:?usage: one-window.sh SRC OUT [VERSION]}
out=${2:?usage: one-window.sh SRC OUT [VERSION]}
mkdir -p "$out"
cp "$src"/weights.safetensors "$src"/tokenizer.model "$out"/
/usr/bin/python3 - "$src/config.json" "$out/config.json" "${3:-2.4}" <<'PY'
import json
import sys
c = json.load(open(sys.argv[1]))
c["attention"].pop("local_windows", None)
c["version"] = sys.argv[3]
open(sys.argv[2], "w").write(json.dumps(c, indent=2, sort_keys=True) + "\n")
PY
