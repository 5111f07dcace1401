#!/usr/bin/python3
"""Structure-derived summaries from unlabeled/: for each document with a summary-like section
(Abstract, Summary, TL;DR, Synopsis, Executive summary; the first found in that order), that
section becomes the record's summary and is cut from the document, with any "Simple Summary"
section (a second summary, dropped by the labelled corpora too). Headings follow
model/document.cc's rule (a line starting with '#', or of at most 12 words that is not a list
item and does not end with punctuation); a section runs to the next heading. Kept when the
summary has at least MIN_SUMMARY words, the rest at least MIN_DOC, and the summary is at most a
third of the rest. Writes corpus-format records (id, source, title, summary, document).
  extract.py IN.jsonl.gz OUT.jsonl.gz MIN_SUMMARY MIN_DOC
"""
import collections
import gzip
import json
import re
import sys

NAMES = ['abstract', 'summary', 'tl;dr', 'tldr', 'synopsis', 'executive summary']


def is_list_item(line):
    if len(line) >= 2 and line[0] in '-*+' and line[1] == ' ':
        return True
    if line.startswith('\u2022'):
        return True
    m = re.match(r'^\d{1,4}[.)] ', line)
    return bool(m) and len(line) > m.end()


def ends_with_punctuation(line):
    return line[-1] in '.!?:;,)"\'' or ord(line[-1]) >= 0x80


def is_heading(line):
    line = line.strip()
    return bool(line) and (line[0] == '#' or (not ends_with_punctuation(line) and
                                              len(line.split()) <= 12 and
                                              not is_list_item(line)))


def name(line):
    line = line.strip().lower().lstrip('#').strip()
    return re.sub(r'^[\d.]+\s*', '', line).rstrip(':').strip()


def main():
    src, dst, min_summary, min_doc = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    out, sources, rejected = [], collections.Counter(), collections.Counter()
    for raw in gzip.open(src, 'rt'):
        record = json.loads(raw)
        lines = record['document'].split('\n')
        headings = [i for i, line in enumerate(lines) if is_heading(line)]

        def section_end(i):
            j = i + 1
            while j < len(lines) and not is_heading(lines[j]):
                j += 1
            return j

        pick = next((i for n in NAMES for i in headings if name(lines[i]) == n), None)
        if pick is None:
            rejected['no summary section'] += 1
            continue
        end = section_end(pick)
        summary = '\n'.join(line.strip() for line in lines[pick + 1:end] if line.strip())
        cut = set(range(pick, end))
        for i in headings:
            if name(lines[i]) == 'simple summary':
                cut |= set(range(i, section_end(i)))
        document = '\n'.join(line for k, line in enumerate(lines) if k not in cut)
        summary_words, doc_words = len(summary.split()), len(document.split())
        if summary_words < min_summary:
            rejected['summary too short'] += 1
        elif doc_words < min_doc:
            rejected['document too short'] += 1
        elif summary_words * 3 > doc_words:
            rejected['summary over a third of the document'] += 1
        else:
            out.append({'id': 'section-' + record['id'], 'source': record['source'],
                        'title': record['title'], 'summary': summary, 'document': document})
            sources[record['source']] += 1
    with gzip.open(dst, 'wt') as f:
        for record in out:
            f.write(json.dumps(record) + '\n')
    print(f'{len(out)} records from {len(sources)} sources; not kept: {dict(rejected)}')
    print('largest sources:', sources.most_common(10))


if __name__ == '__main__':
    main()
