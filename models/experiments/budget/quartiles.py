#!/usr/bin/python3
"""Valid documents in quartiles of their budget's share of the document (reference words over
document words): mean served ROUGE-1 / ROUGE-2 of rpsum and lead, the greedy oracle's ROUGE-1,
and the share of the lead-to-oracle gap rpsum closes, from rpsum-eval --dump files.
  quartiles.py DUMP...
"""
import json
import statistics
import sys

for path in sys.argv[1:]:
    rows = [json.loads(line) for line in open(path)]
    for r in rows:
        r["share"] = r["reference_words"] / max(1, r["document_words"])
    rows.sort(key=lambda r: r["share"])
    n = len(rows)
    print(path)
    for q in range(4):
        b = rows[q * n // 4:(q + 1) * n // 4]

        def mean(system, score):
            return statistics.mean(r[system][score] for r in b)

        closed = (mean("rpsum", "rouge1") - mean("lead", "rouge1")) / (
            mean("oracle", "rouge1") - mean("lead", "rouge1"))
        print(f"  share {b[0]['share']:.3f}-{b[-1]['share']:.3f}, {len(b)} documents, median "
              f"budget {statistics.median(r['reference_words'] for r in b):.0f} words: rpsum "
              f"{mean('rpsum', 'rouge1'):.2f} / {mean('rpsum', 'rouge2'):.2f}, lead "
              f"{mean('lead', 'rouge1'):.2f} / {mean('lead', 'rouge2'):.2f}, oracle R1 "
              f"{mean('oracle', 'rouge1'):.2f}; gap closed {closed:.2f}")
