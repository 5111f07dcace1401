#!/usr/bin/python3
"""realpdf as a summarization set: each paper's text (NN.tex.txt, one paragraph a line, the
authors' LaTeX) with its abstract (NN.abstract.txt) as the summary, in the corpus's JSONL form.
A paper whose abstract is under 20 words (14's is its authors' placeholder) is left out.

    realpdf_set.py REALPDF_DIR OUT.jsonl
"""
import json
import pathlib
import sys


def main():
    src, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    with out.open('w') as f:
        for text in sorted(src.glob('*.tex.txt')):
            name = text.name.split('.')[0]
            abstract = (src / (name + '.abstract.txt')).read_text().strip()
            if len(abstract.split()) < 20:
                print('realpdf_set: %s left out: an abstract of %d words'
                      % (name, len(abstract.split())), file=sys.stderr)
                continue
            f.write(json.dumps({'id': 'realpdf:' + name, 'source': 'realpdf',
                                'title': '', 'summary': abstract,
                                'document': text.read_text()}) + '\n')


if __name__ == '__main__':
    main()
