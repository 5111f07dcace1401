#!/usr/bin/python3
"""The positions table of the model card: relative (the shipped network as v2.4 served it)
against each variant trained on the same recipe with other positions, by document length,
pooled over both valid splits.

  table.py DUMP_DIR relative sinusoidal learned [none ...]

DUMP_DIR holds NAME-valid.dump and NAME-valid-extra.dump (rpsum-eval --dump) per name; the
first name is the baseline. Rows: buckets of document words (<1k, 1k-2k, 2k-4k, >=4k: the last
is past the 4,096-token heads the networks were trained on, served whole) and all documents;
per variant, mean ROUGE-1 / ROUGE-2 / ROUGE-Lsum and the ROUGE-1, ROUGE-2 and ROUGE-Lsum
differences from the baseline with paired 95% intervals (paired.py's bootstrap over the
bucket's documents, seeded)."""
import json
import pathlib
import random
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from paired import interval as bootstrap_interval  # noqa: E402  (models/experiments/paired.py)

BUCKETS = [("<1k words", 0, 1000), ("1k-2k", 1000, 2000), ("2k-4k", 2000, 4000),
           (">=4k (past the heads)", 4000, 1 << 40), ("all", 0, 1 << 40)]
MEASURES = ("rouge1", "rouge2", "rougeLsum")


def load(dump_dir, name):
    docs = {}
    for split in ("valid", "valid-extra"):
        with open(pathlib.Path(dump_dir) / f"{name}-{split}.dump") as f:
            for line in f:
                d = json.loads(line)
                docs[(split, d["id"])] = (d["document_words"], [d["rpsum"][m] for m in MEASURES])
    return docs


def main(dump_dir, names):
    rng = random.Random(52)
    runs = {name: load(dump_dir, name) for name in names}
    base = runs[names[0]]
    print(f"Positions by document length, corpus valid + corpus-extra valid pooled "
          f"(models/experiments/positions/table.py; dumps: eval.sh). Mean ROUGE-1 / ROUGE-2 / "
          f"ROUGE-Lsum, and each against {names[0]}: difference [paired 95% interval].\n")
    print("| words | n | positions | R1 / R2 / RLsum | R1 vs " + names[0] + " | R2 vs " + names[0] +
          " | RLsum vs " + names[0] + " |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for label, lo, hi in BUCKETS:
        ids = sorted(k for k, (words, _) in base.items() if lo <= words < hi)
        for name in names:
            run = runs[name]
            means = [statistics.fmean(run[i][1][m] for i in ids) for m in range(3)]
            cells = []
            for m in range(3):
                diffs = [run[i][1][m] - base[i][1][m] for i in ids]
                low, high, _ = bootstrap_interval(diffs, rng)
                cells.append(f"{statistics.fmean(diffs):+.2f} [{low:+.2f}, {high:+.2f}]"
                             if name != names[0] else "")
            print(f"| {label} | {len(ids)} | {name} | " + " / ".join(f"{v:.2f}" for v in means) +
                  " | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
