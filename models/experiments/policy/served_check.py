#!/usr/bin/python3
"""Does the shipped window by length serve what the study measured? For each valid split, the
served model's `rpsum-eval --dump` (version 2.5: 128 tokens each side from 4,096 tokens, 256
from 8,192) against the study's rows of the same split (SPLIT.json here, measured on v2.4 with
one window at every length): a document of 4,096 to 8,191 prepared tokens must score what the
study's window-128 row gave it, every other one what the 256 row gave it. Prints, per split,
how many documents match to 1e-6 ROUGE, and v2.5 against v2.4 per bucket (mean ROUGE-1).

  served_check.py corpus-valid.json SERVED-corpus-valid.dump \\
                  corpus-extra-valid.json SERVED-corpus-extra-valid.dump
"""
import json
import sys

BANDS = [(0, 4096, "256 (the model's)"), (4096, 8192, "128"), (8192, 1 << 40, "256 (the model's)")]
BUCKETS = [("1k-2k", 1024, 2048), ("2k-4k", 2048, 4096), ("4k-8k", 4096, 8192), (">= 8k", 8192, 1 << 40)]
MEASURES = ("rouge1", "rouge2", "rougeLsum")


def main(args):
    pooled = []  # (tokens, v2.4 rouge1, v2.5 rouge1)
    print("| split | documents | served as the study measured (1e-6) |\n| --- | --- | --- |")
    mismatches = 0
    for study_path, dump_path in zip(args[::2], args[1::2]):
        rows = json.load(open(study_path))["window_study"]
        by_id = {name: {d["id"]: d for d in rows[name]["documents"]} for _, _, name in BANDS}
        served = [json.loads(line) for line in open(dump_path)]
        same = 0
        for s in served:
            tokens = by_id["128"][s["id"]]["tokens"]
            name = next(n for lo, hi, n in BANDS if lo <= tokens < hi)
            want = by_id[name][s["id"]]
            if all(abs(s["rpsum"][m] - want[m]) < 1e-6 for m in MEASURES):
                same += 1
            pooled.append((tokens, by_id["256 (the model's)"][s["id"]]["rouge1"], s["rpsum"]["rouge1"]))
        mismatches += len(served) - same
        print(f"| {study_path.split('/')[-1][:-5]} | {len(served)} | {same} |")
    print("\n| tokens | n | v2.4 ROUGE-1 | v2.5 ROUGE-1 | v2.5 - v2.4 |\n| --- | --- | --- | --- | --- |")
    for label, lo, hi in BUCKETS + [("all", 0, 1 << 40)]:
        docs = [(a, b) for t, a, b in pooled if lo <= t < hi]
        if docs:
            a = sum(x for x, _ in docs) / len(docs)
            b = sum(y for _, y in docs) / len(docs)
            print(f"| {label} | {len(docs)} | {a:.2f} | {b:.2f} | {b - a:+.2f} |")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
