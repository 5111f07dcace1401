#!/usr/bin/python3
"""Models trained on the same recipe, by document length, pooled over both valid splits: the
positions table (positions/eval.sh) and the per-head k table (layered/eval.sh) of the model
card.

  by_length.py [--card] [--what WHAT] [--source TEXT] DUMP_DIR BASE OTHER [OTHER ...]

DUMP_DIR holds NAME-valid.dump and NAME-valid-extra.dump (rpsum-eval --dump) per name; BASE is
the baseline. Rows: buckets of document words (<1k, 1k-2k, 2k-4k, >=4k: the last is past the
4,096-token heads the networks were trained on, served whole) and all documents; per model,
mean ROUGE-1 / ROUGE-2 / ROUGE-Lsum and the ROUGE-1, ROUGE-2 and ROUGE-Lsum differences from
the baseline with paired 95% intervals (paired.py's bootstrap over the bucket's documents,
seeded by bucket, model and measure: a model's intervals do not depend on the table's other
models). WHAT names the models' column (default "positions"); SOURCE, the command named in the
heading. --card prints the model card's condensed form instead: one row per bucket, the
baseline's means, then per model its means and its R1 / RLsum differences (the bucket past the
heads in bold)."""
import argparse
import json
import pathlib
import random
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from paired import interval as bootstrap_interval  # noqa: E402  (models/experiments/paired.py)

BUCKETS = [("<1k words", 0, 1000), ("1k-2k", 1000, 2000), ("2k-4k", 2000, 4000),
           (">=4k (past the heads)", 4000, 1 << 40), ("all", 0, 1 << 40)]
PAST_HEADS = ">=4k (past the heads)"
MEASURES = ("rouge1", "rouge2", "rougeLsum")


def load(dump_dir, name):
    docs = {}
    for split in ("valid", "valid-extra"):
        with open(pathlib.Path(dump_dir) / f"{name}-{split}.dump") as f:
            for line in f:
                d = json.loads(line)
                docs[(split, d["id"])] = (d["document_words"], [d["rpsum"][m] for m in MEASURES])
    return docs


def bucket_rows(runs, names):
    """(bucket label, n, {name: (means, [(diff, low, high)] per measure or None)}) per bucket."""
    base = runs[names[0]]
    rows = []
    for label, lo, hi in BUCKETS:
        ids = sorted(k for k, (words, _) in base.items() if lo <= words < hi)
        if not ids:  # no document of that length: no row
            continue
        cells = {}
        for name in names:
            run = runs[name]
            if set(run) != set(base):
                sys.exit(f"by_length.py: {name}'s dumps hold other documents than {names[0]}'s")
            means = [statistics.fmean(run[i][1][m] for i in ids) for m in range(3)]
            diffs = []
            for m in range(3):
                d = [run[i][1][m] - base[i][1][m] for i in ids]
                rng = random.Random(f"52/{label}/{name}/{MEASURES[m]}")
                low, high, _ = bootstrap_interval(d, rng)
                diffs.append((statistics.fmean(d), low, high))
            cells[name] = (means, None if name == names[0] else diffs)
        rows.append((label, len(ids), cells))
    return rows


def fmt_diff(diff):
    mean, low, high = diff
    return f"{mean:+.2f} [{low:+.2f}, {high:+.2f}]"


def fmt_means(means):
    return " / ".join(f"{v:.2f}" for v in means)


def print_full(rows, names, what, source):
    base = names[0]
    print(f"{what.capitalize()} by document length, corpus valid + corpus-extra valid pooled "
          f"({source}). Mean ROUGE-1 / ROUGE-2 / ROUGE-Lsum, and each against {base}: "
          f"difference [paired 95% interval].\n")
    print(f"| words | n | {what} | R1 / R2 / RLsum | R1 vs {base} | R2 vs {base} | "
          f"RLsum vs {base} |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for label, n, cells in rows:
        for name in names:
            means, diffs = cells[name]
            print(f"| {label} | {n} | {name} | {fmt_means(means)} | " +
                  " | ".join(fmt_diff(d) if diffs else "" for d in (diffs or [None] * 3)) + " |")


def print_card(rows, names):
    base = names[0]
    head = ["words (docs)", base]
    for name in names[1:]:
        head += [name, f"R1 / RLsum vs {base}"]
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    for label, n, cells in rows:
        past = label == PAST_HEADS
        short = label.replace(" words", "").replace(" (past the heads)", ", past the heads")
        first = f"{short} ({n})"
        line = [f"**{first}**" if past else first, fmt_means(cells[base][0])]
        for name in names[1:]:
            means, diffs = cells[name]
            versus = f"{fmt_diff(diffs[0])} / {fmt_diff(diffs[2])}"
            line += [fmt_means(means), f"**{versus}**" if past else versus]
        print("| " + " | ".join(line) + " |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--card", action="store_true")
    parser.add_argument("--what", default="positions")
    parser.add_argument("--source", default="models/experiments/by_length.py; dumps: eval.sh")
    parser.add_argument("dump_dir")
    parser.add_argument("names", nargs="+")
    args = parser.parse_args()
    if len(args.names) < 2:
        parser.error("a baseline and at least one model to compare")
    runs = {name: load(args.dump_dir, name) for name in args.names}
    rows = bucket_rows(runs, args.names)
    if args.card:
        print_card(rows, args.names)
    else:
        print_full(rows, args.names, args.what, args.source)


if __name__ == "__main__":
    main()
