#!/usr/bin/python3
"""The length-policy study's tables and the rule's verdict (README.md here).

  table.py SPLIT.json [SPLIT.json ...]   (rpsum-eval --json with --k_study, --unit_k_study,
                                          --window_study; documents pooled over the files)

For each study (token k, unit k, local window) and each bucket of prepared tokens: every
setting's mean ROUGE-1 / ROUGE-2 / ROUGE-Lsum, its median model milliseconds per document, and
its ROUGE-1 difference from the shipped setting with a paired 95% bootstrap interval
(paired.py's bootstrap over the bucket's documents, seeded); then the rule's winner per bucket."""
import json
import pathlib
import random
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from paired import interval as bootstrap_interval  # noqa: E402  (models/experiments/paired.py)

BUCKETS = [("< 1k", 0, 1024), ("1k-2k", 1024, 2048), ("2k-4k", 2048, 4096),
           ("4k-8k", 4096, 8192), (">= 8k", 8192, 1 << 40)]
STUDIES = [("k_study", "token-level k", "policy"), ("unit_k_study", "unit-level k", "(the model's"),
           ("window_study", "local window (tokens each side)", "(the model's")]
TIE = 0.2  # ROUGE-1: settings this close to the best are tied on quality


def paired(base, cand, rng):
    """Mean difference (candidate - base) and its 95% interval: paired.py's bootstrap."""
    diffs = [c - b for b, c in zip(base, cand)]
    low, high, _ = bootstrap_interval(diffs, rng)
    return sum(diffs) / len(diffs), low, high


def pooled(paths, study):
    rows = {}
    for path in paths:
        for name, row in json.load(open(path)).get(study, {}).items():
            rows.setdefault(name, []).extend(row["documents"])
    return rows


def short(name):
    return name.split(" (")[0].split(":")[0]


def order_key(name, shipped):
    """The shipped setting first, then the others by their number."""
    digits = short(name)
    return (name != shipped, int(digits) if digits.isdigit() else 0)


def bucket_rows(rows, shipped, lo, hi, rng):
    """(name, n, r1, r2, rlsum, median ms, diff, low, high) per setting in the bucket."""
    ids = {d["id"] for d in rows[shipped] if lo <= d["tokens"] < hi}
    if not ids:
        return []
    base = {d["id"]: d for d in rows[shipped] if d["id"] in ids}
    order = sorted(ids)
    out = []
    for name, docs in sorted(rows.items(), key=lambda kv: order_key(kv[0], shipped)):
        by_id = {d["id"]: d for d in docs if d["id"] in ids}
        mean = lambda m: statistics.fmean(by_id[i][m] for i in order)
        diff, low, high = paired([base[i]["rouge1"] for i in order],
                                 [by_id[i]["rouge1"] for i in order], rng)
        out.append((name, len(order), mean("rouge1"), mean("rouge2"), mean("rougeLsum"),
                    statistics.median(by_id[i]["ms"] for i in order), diff, low, high))
    return out


def verdict(table, shipped):
    best = max(table, key=lambda r: r[2])
    tied = [r for r in table if r[2] >= best[2] - TIE]
    winner = min(tied, key=lambda r: r[5])
    ship = next(r for r in table if r[0] == shipped)
    if winner[0] == shipped:
        return shipped, "the shipped setting"
    if winner[7] > 0:
        return winner[0], "better: its interval against the shipped setting lies above 0"
    if abs(winner[2] - ship[2]) <= TIE and winner[5] < ship[5]:
        return winner[0], (f"tied within {TIE} ROUGE-1 and faster "
                           f"({winner[5]:.0f} against {ship[5]:.0f} ms)")
    return shipped, f"{short(winner[0])} not measurably better (interval holds 0): shipped stays"


def main(paths):
    rng = random.Random(52)
    print(f"Length-policy study of models/rpsum-ext, documents pooled over {', '.join(paths)} "
          f"(models/experiments/policy/table.py; the rule: README.md here).\n")
    for study, title, marker in STUDIES:
        rows = pooled(paths, study)
        if not rows:
            continue
        shipped = next(n for n in rows if marker in n)
        print(f"## {title}\n\nShipped: {shipped}. ROUGE-1 / ROUGE-2 / ROUGE-Lsum, median model ms "
              "per document, and ROUGE-1 against the shipped setting with its paired 95% "
              "interval.\n")
        print("| tokens | n | setting | R1 / R2 / RLsum | ms | R1 vs shipped [95%] |")
        print("| --- | --- | --- | --- | --- | --- |")
        verdicts = []
        for label, lo, hi in BUCKETS:
            table = bucket_rows(rows, shipped, lo, hi, rng)
            for name, n, r1, r2, rls, ms, diff, low, high in table:
                print(f"| {label} | {n} | {short(name)} | {r1:.2f} / {r2:.2f} / {rls:.2f} | "
                      f"{ms:.0f} | {diff:+.2f} [{low:+.2f}, {high:+.2f}] |")
            if table:
                verdicts.append((label, table[0][1]) + verdict(table, shipped))
        print("\n| tokens | n | the rule picks | why |\n| --- | --- | --- | --- |")
        for label, n, name, why in verdicts:
            print(f"| {label} | {n} | {short(name)} | {why} |")
        picks = {short(v[2]) for v in verdicts}
        print(f"\nOne setting everywhere: {', '.join(sorted(picks))}.\n" if len(picks) == 1 else
              f"\nDifferent settings by length: {', '.join(sorted(picks))}.\n")


def noise_floor(paths):
    """The shipped configuration runs once in each study (the policy's k, unit k 16, window
    256: the same computation at different times): per bucket, its median ms in each, and the
    largest over the smallest. A speed difference below that is not a measurement."""
    runs = []
    for study, _, marker in STUDIES:
        rows = pooled(paths, study)
        runs += [docs for name, docs in rows.items() if marker in name]
    print("## Timing noise\n\nThe shipped configuration, run once in each study (the same "
          "computation, measured at different times in the same process): median model ms "
          "per document.\n")
    print("| tokens | n | " + " | ".join(s[1] for s in STUDIES) + " | largest / smallest |")
    print("| --- | --- |" + " --- |" * (len(STUDIES) + 1))
    for label, lo, hi in BUCKETS:
        medians = [statistics.median(d["ms"] for d in docs if lo <= d["tokens"] < hi)
                   for docs in runs if any(lo <= d["tokens"] < hi for d in docs)]
        if medians:
            n = sum(1 for d in runs[0] if lo <= d["tokens"] < hi)
            print(f"| {label} | {n} | " + " | ".join(f"{m:.0f}" for m in medians) +
                  f" | {max(medians) / min(medians):.2f} |")
    print()


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
    noise_floor(sys.argv[1:])
