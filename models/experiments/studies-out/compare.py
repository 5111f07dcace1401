#!/usr/bin/python3
"""Served summaries before and after a change: two folders of `rpsum-eval --dump` files (one per
split, same names) compared document by document; every system's summary and the model's unit
scores must be equal.

  compare.py BEFORE_DIR AFTER_DIR corpus-valid corpus-extra-valid corpus-test corpus-extra-test
"""
import json
import sys


def main(before, after, names):
    print("| split | documents | identical summaries (all systems) and unit scores |")
    print("| --- | --- | --- |")
    bad = 0
    for name in names:
        a = [json.loads(l) for l in open(f"{before}/{name}.dump")]
        b = [json.loads(l) for l in open(f"{after}/{name}.dump")]
        systems = [k for k, v in a[0].items() if isinstance(v, dict) and "summary" in v]
        same = sum(1 for x, y in zip(a, b) if x["id"] == y["id"] and
                   all(x[s]["summary"] == y[s]["summary"] for s in systems) and
                   x["unit_scores"] == y["unit_scores"])
        bad += len(a) - same + abs(len(a) - len(b))
        print(f"| {name} | {len(a)} | {same} |")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
