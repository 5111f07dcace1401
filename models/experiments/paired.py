#!/usr/bin/python3
"""How sure is a difference between two models? A paired bootstrap over documents.

  paired.py BASELINE_DUMP CANDIDATE_DUMP [BASELINE_DUMP CANDIDATE_DUMP ...]

Each pair is two `rpsum-eval --dump` files of one split (the same documents, matched by id):
the baseline's and the candidate's. For each pair and for all pairs pooled, prints the mean
ROUGE-1 / ROUGE-2 / ROUGE-Lsum F1 x 100 of both served summaries ("rpsum"), the mean
per-document difference (candidate - baseline), its 95% interval from 10,000 bootstrap
resamples of the documents (seeded: the same files print the same intervals), and the share of
resamples in which the candidate is ahead. The pooled row weights every document once, so the
larger split counts more. An interval that holds 0 says the two runs are not told apart by these
documents."""
import json
import random
import sys

MEASURES = ('rouge1', 'rouge2', 'rougeLsum')
RESAMPLES = 10000


def load(path):
    with open(path) as f:
        return {d['id']: [d['rpsum'][m] for m in MEASURES] for d in map(json.loads, f)}


def describe(name, base, cand, rng):
    n = len(base)
    diffs = [[c[k] - b[k] for b, c in zip(base, cand)] for k in range(len(MEASURES))]
    cells = []
    for k, d in enumerate(diffs):
        means = []
        for _ in range(RESAMPLES):
            means.append(sum(d[rng.randrange(n)] for _ in range(n)) / n)
        means.sort()
        lo, hi = means[int(0.025 * RESAMPLES)], means[int(0.975 * RESAMPLES) - 1]
        ahead = sum(m > 0 for m in means) / RESAMPLES
        cells.append(f'{sum(b[k] for b in base) / n:.2f} -> {sum(c[k] for c in cand) / n:.2f}: '
                     f'{sum(d) / n:+.2f} [{lo:+.2f}, {hi:+.2f}], ahead in {ahead:.0%}')
    print(f'| {name} | {n} | ' + ' | '.join(cells) + ' |')


def main():
    args = sys.argv[1:]
    if not args or len(args) % 2:
        sys.exit(__doc__)
    rng = random.Random(1)
    print('| split | documents | ' + ' | '.join(
        f'{m}: baseline -> candidate: difference [95% interval]' for m in MEASURES) + ' |')
    print('| --- | --- | ' + ' | '.join('---' for _ in MEASURES) + ' |')
    pooled_base, pooled_cand = [], []
    for i in range(0, len(args), 2):
        base, cand = load(args[i]), load(args[i + 1])
        if set(base) != set(cand):
            sys.exit(f'{args[i]} and {args[i + 1]} hold different documents')
        ids = sorted(base)
        b, c = [base[d] for d in ids], [cand[d] for d in ids]
        describe(args[i + 1], b, c, rng)
        pooled_base += b
        pooled_cand += c
    if len(args) > 2:
        describe('pooled', pooled_base, pooled_cand, rng)


if __name__ == '__main__':
    main()
