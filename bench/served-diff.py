#!/usr/bin/python3
"""Served summaries before and after a change that may move unit scores a little: two folders of
`rpsum-eval --dump` files (one per split, same names) compared document by document. Prints a
Markdown table: documents, identical summaries of every system, documents whose unit scores
changed at all, and the largest change of one unit's score. Exit 1 if any summary differs.

  bench/served-diff.py BEFORE_DIR AFTER_DIR corpus-valid corpus-extra-valid corpus-test corpus-extra-test
"""
import json
import sys


def main(before, after, names):
    print("| split | documents | identical summaries (all systems) | documents with unit scores "
          "changed | units changed | largest change |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    bad = 0
    for name in names:
        a = [json.loads(line) for line in open(f"{before}/{name}.jsonl")]
        b = [json.loads(line) for line in open(f"{after}/{name}.jsonl")]
        systems = [k for k, v in a[0].items() if isinstance(v, dict) and "summary" in v]
        same = sum(1 for x, y in zip(a, b) if x["id"] == y["id"] and
                   all(x[s]["summary"] == y[s]["summary"] for s in systems))
        moved = units = 0
        largest = 0.0
        for x, y in zip(a, b):
            d = [abs(p - q) for p, q in zip(x["unit_scores"], y["unit_scores"])]
            if any(d) or len(x["unit_scores"]) != len(y["unit_scores"]):
                moved += 1
                units += sum(v > 0 for v in d)
                largest = max([largest] + d)
        bad += len(a) - same + abs(len(a) - len(b))
        print(f"| {name} | {len(a)} | {same} | {moved} | {units} | {largest:.4f} |")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
