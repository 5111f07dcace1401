#!/usr/bin/python3
"""How sure is a difference? A paired bootstrap over documents.

  paired.py BASELINE_DUMP CANDIDATE_DUMP [BASELINE_DUMP CANDIDATE_DUMP ...]
      two models: each pair is two `rpsum-eval --dump` files of one split (the same documents,
      matched by id), the baseline's and the candidate's; both served summaries ("rpsum").
  paired.py --within BASE,CANDIDATE [--by-source] DUMP [DUMP ...]
      two systems of one dump each (rpsum, lead, textrank, oracle), e.g. --within textrank,rpsum;
      --by-source adds a row per source (the dump's "source" field).

For each row and for all rows pooled (when there are several files), prints the mean ROUGE-1 /
ROUGE-2 / ROUGE-Lsum F1 x 100 of both, the mean per-document difference (candidate - baseline),
its 95% interval from 10,000 bootstrap resamples of the documents, the candidate's own 95%
interval, and the share of resamples in which the candidate is ahead. Seeded: the same files
print the same intervals. The pooled row weights every document once, so a larger split counts
more. An interval that holds 0 says these documents do not tell the two apart."""
import json
import random
import sys

MEASURES = ('rouge1', 'rouge2', 'rougeLsum')
RESAMPLES = 10000


def load(path, system):
    with open(path) as f:
        return {d['id']: (d.get('source', ''), [d[system][m] for m in MEASURES])
                for d in map(json.loads, f)}


def interval(values, rng):
    n = len(values)
    means = sorted(sum(values[rng.randrange(n)] for _ in range(n)) / n for _ in range(RESAMPLES))
    return means[int(0.025 * RESAMPLES)], means[int(0.975 * RESAMPLES) - 1], means


def describe(name, base, cand, rng):
    n = len(base)
    cells = []
    for k in range(len(MEASURES)):
        d = [c[k] - b[k] for b, c in zip(base, cand)]
        lo, hi, means = interval(d, rng)
        own_lo, own_hi, _ = interval([c[k] for c in cand], rng)
        ahead = sum(m > 0 for m in means) / RESAMPLES
        cells.append(f'{sum(b[k] for b in base) / n:.2f} -> {sum(c[k] for c in cand) / n:.2f} '
                     f'[{own_lo:.2f}, {own_hi:.2f}]: {sum(d) / n:+.2f} [{lo:+.2f}, {hi:+.2f}], '
                     f'ahead in {ahead:.0%}')
    print(f'| {name} | {n} | ' + ' | '.join(cells) + ' |')


def main():
    args, within, by_source = sys.argv[1:], None, False
    if args[:1] == ['--within'] and len(args) > 1:
        within, args = args[1].split(','), args[2:]
        if args[:1] == ['--by-source']:
            by_source, args = True, args[1:]
        if len(within) != 2 or not args:
            sys.exit(__doc__)
        pairs = [(a, within[0], a, within[1]) for a in args]
    else:
        if not args or len(args) % 2:
            sys.exit(__doc__)
        pairs = [(args[i], 'rpsum', args[i + 1], 'rpsum') for i in range(0, len(args), 2)]
    rng = random.Random(1)
    print('| rows | documents | ' + ' | '.join(
        f'{m}: baseline -> candidate [candidate 95%]: difference [95%], ahead in'
        for m in MEASURES) + ' |')
    print('| --- | --- | ' + ' | '.join('---' for _ in MEASURES) + ' |')
    pooled_base, pooled_cand = [], []
    for base_file, base_system, cand_file, cand_system in pairs:
        base, cand = load(base_file, base_system), load(cand_file, cand_system)
        if set(base) != set(cand):
            sys.exit(f'{base_file} and {cand_file} hold different documents')
        ids = sorted(base)
        b, c = [base[d][1] for d in ids], [cand[d][1] for d in ids]
        label = f'{cand_file}: {cand_system} against {base_system}' if within else cand_file
        describe(label, b, c, rng)
        if by_source:
            for source in sorted({base[d][0] for d in ids}):
                keep = [i for i, d in enumerate(ids) if base[d][0] == source]
                describe(f'{cand_file}: {source}', [b[i] for i in keep], [c[i] for i in keep], rng)
        pooled_base += b
        pooled_cand += c
    if len(pairs) > 1:
        describe('pooled', pooled_base, pooled_cand, rng)


if __name__ == '__main__':
    main()
