#!/usr/bin/python3
"""Are two sets of scripts/eval-model results the same apart from the model's time?

  compare.py COMMITTED_DIR RERUN_DIR    every *.json of COMMITTED_DIR against RERUN_DIR's

Drops every "model_seconds" key (the only thing a rerun on another machine may change), then
prints one line per file: "same" or "DIFFERENT"; exits 1 if any differ or is missing."""
import json
import pathlib
import sys


def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k != 'model_seconds'}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x


def main():
    committed, rerun = map(pathlib.Path, sys.argv[1:3])
    bad = 0
    for f in sorted(committed.glob('*.json')):
        other = rerun / f.name
        same = other.exists() and strip(json.loads(f.read_text())) == strip(
            json.loads(other.read_text()))
        bad += not same
        print(f'{f.name}: {"same" if same else "DIFFERENT"}')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
