#!/usr/bin/python3
"""Tables for bench/longdoc/run: each set's ROUGE of rpsum, lead, TextRank and the oracle, the
share of the lead-to-oracle ROUGE-1 gap rpsum closes, and paired bootstrap intervals (10,000
resamples of the documents, seeded) of rpsum's difference from lead and from TextRank; then
every document of every set pooled by length in the tokens the network read.

    report.py [--model DIR] [--commit C] [--split test|valid] [--out PREFIX] DUMP [DUMP ...]
        each DUMP an `rpsum-eval --dump` file named SET.dump; writes PREFIX.md and PREFIX.json
"""
import argparse
import json
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                                'models', 'experiments'))
from paired import interval  # noqa: E402  (the same bootstrap as the model experiments)

SYSTEMS = ('lead', 'textrank', 'rpsum', 'oracle')
MEASURES = ('rouge1', 'rouge2')
BUCKETS = ((0, 4096, '<4k'), (4096, 16384, '4k-16k'), (16384, 65536, '16k-64k'),
           (65536, 1 << 62, '>=64k'))


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def mean(values):
    return sum(values) / len(values) if values else float('nan')


def compare(docs, baseline, rng):
    """{measure: (mean difference, low, high)} of rpsum minus `baseline` over `docs`."""
    out = {}
    for m in MEASURES:
        d = [doc['rpsum'][m] - doc[baseline][m] for doc in docs]
        lo, hi, _ = interval(d, rng)
        out[m] = (mean(d), lo, hi)
    return out


def summarize(docs, rng):
    row = {'documents': len(docs)}
    for s in SYSTEMS:
        row[s] = {m: mean([d[s][m] for d in docs]) for m in MEASURES}
    lead, oracle, ours = (row[s]['rouge1'] for s in ('lead', 'oracle', 'rpsum'))
    row['gap_share'] = (ours - lead) / (oracle - lead) if oracle != lead else float('nan')
    if len(docs) >= 2:
        row['against_lead'] = compare(docs, 'lead', rng)
        row['against_textrank'] = compare(docs, 'textrank', rng)
    tokens = sorted(d.get('tokens', 0) for d in docs)
    row['tokens_median'] = tokens[len(tokens) // 2] if tokens else 0
    return row


def cell(diff):
    return '%+.2f [%+.2f, %+.2f]' % diff


def table(rows, label):
    lines = ['| %s | documents | median tokens | lead | TextRank | rpsum | oracle | gap share | '
             'rpsum - lead, R-1 [95%%] | rpsum - lead, R-2 [95%%] | rpsum - TextRank, R-1 '
             '[95%%] | rpsum - TextRank, R-2 [95%%] |' % label,
             '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |']
    for name, r in rows:
        if not r['documents']:
            lines.append('| %s | 0 | | | | | | | | | | |' % name)
            continue
        systems = ' | '.join('%.2f / %.2f' % (r[s]['rouge1'], r[s]['rouge2']) for s in SYSTEMS)
        diffs = ' | '.join(cell(r[k][m]) if k in r else ''
                           for k in ('against_lead', 'against_textrank') for m in MEASURES)
        lines.append('| %s | %d | %d | %s | %.1f%% | %s |' % (
            name, r['documents'], r['tokens_median'], systems, 100 * r['gap_share'], diffs))
    return lines


def main():
    p = argparse.ArgumentParser()
    p.add_argument('dumps', nargs='+')
    p.add_argument('--model', default='models/rpsum-ext')
    p.add_argument('--commit', default='')
    p.add_argument('--split', default='test', help="the run's split (test or valid)")
    p.add_argument('--out', default='bench/results/longdoc')
    args = p.parse_args()
    rng = random.Random(1)
    sets, pooled = [], []
    for path in args.dumps:
        docs = load(path)
        name = os.path.basename(path).rsplit('.dump', 1)[0]
        sets.append((name, summarize(docs, rng)))
        pooled.extend(docs)
    buckets = [(label, summarize([d for d in pooled if lo <= d.get('tokens', 0) < hi], rng))
               for lo, hi, label in BUCKETS]
    md = ['## Long documents against lead, TextRank and the oracle (model %s, commit %s)'
          % (args.model, args.commit or 'unknown'), '',
          'Command: `bench/longdoc/run %s OUT %s`. Served selection (rpsum-eval, every system cut to '
          "the reference's word count), no truncation. Cells: ROUGE-1 / ROUGE-2 F1 x 100; gap "
          'share: (rpsum - lead) / (oracle - lead) on ROUGE-1; differences: mean over '
          'documents with a paired bootstrap 95%% interval (10,000 resamples, seed 1).'
          % (args.model, args.split), '']
    md += table(sets, 'set')
    md += ['', '### Every set pooled, by length in tokens (what the network read)', '']
    md += table(buckets, 'tokens')
    with open(args.out + '.md', 'w') as f:
        f.write('\n'.join(md) + '\n')
    with open(args.out + '.json', 'w') as f:
        json.dump({'model': args.model, 'commit': args.commit, 'sets': dict(sets),
                   'by_tokens': dict(buckets)}, f, indent=1)
        f.write('\n')
    print('\n'.join(md))


if __name__ == '__main__':
    main()
