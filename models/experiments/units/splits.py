#!/usr/bin/python3
"""Counts the kept units of `rpsum-eval --dump` files and the sentence breaks inside a line
that look like cuts, by kind, with examples: the splitter's before/after check.
  splits.py CORPUS_VALID_DUMP CORPUS_EXTRA_VALID_DUMP [EXAMPLES]
A break is inside a line when the two units' texts have no newline between them in the
document. Kinds (first that applies): open-paren (the earlier unit leaves a '(' open),
bang-lower ('!' or '?' then a lowercase letter), bang-other ('!' or '?' then anything but a
capital), marker (the earlier unit is only '2.', 'a.', ...)."""
import collections
import gzip
import json
import os
import re
import sys

# ../shared/data beside the checkout this file is in
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', '..', 'shared',
                    'data')


def main():
    examples = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    counts, shown, units = collections.Counter(), collections.defaultdict(list), 0
    for dump, corpus in ((sys.argv[1], 'corpus'), (sys.argv[2], 'corpus-extra')):
        with gzip.open(f'{DATA}/{corpus}/valid.jsonl.gz', 'rt') as f:
            docs = {r['id']: r['document'] for r in map(json.loads, f)}
        with open(dump) as f:
            for d in map(json.loads, f):
                doc, texts, pos, prev_end = docs[d['id']], d['units'], 0, None
                for i, text in enumerate(texts):
                    j = doc.find(text, pos)
                    if j < 0:
                        prev_end = None
                        continue
                    units += 1
                    if prev_end is not None and '\n' not in doc[prev_end:j]:
                        p, kind = texts[i - 1], None
                        if p.count('(') > p.count(')'):
                            kind = 'open-paren'
                        elif p[-1:] in '!?' and text[:1].islower():
                            kind = 'bang-lower'
                        elif p[-1:] in '!?' and not text[:1].isupper():
                            kind = 'bang-other'
                        elif re.fullmatch(r'[0-9.]+\.|[A-Za-z]\.', p):
                            kind = 'marker'
                        if kind:
                            counts[kind] += 1
                            shown[kind].append(f'{p[-50:]} || {text[:50]}')
                    pos = j + len(text)
                    prev_end = pos
    print(f'kept units: {units}')
    for kind in ('open-paren', 'bang-lower', 'bang-other', 'marker'):
        print(f'{kind}: {counts[kind]}')
        for s in shown[kind][:examples]:
            print(f'    {s}')


if __name__ == '__main__':
    main()
