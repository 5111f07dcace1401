#!/usr/bin/python3
"""Tests of the long-document set's build (train/longdocs/build.py, latex_text.py).

The refusal: a repository listed in ../shared/data/heldout-sources.sha256 stops the build
before anything is read, with an error that names it; the conversion: a small LaTeX thesis in
a throwaway git repository reads as the corpus's blocks, with its abstract as the summary and
nothing of the front matter, math, figures, citations, bibliography or appendix.
"""
import gzip
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import build  # noqa: E402
import latex_text  # noqa: E402

MAIN = r"""\documentclass{report}
\usepackage{amsmath}
\title{Caching for \emph{Wide} Tables}
\begin{document}
\maketitle
\chapter*{Acknowledgements}
I thank my cat.
\input{abstract}
\tableofcontents
\chapter{Introduction}\label{ch:intro}
Wide tables are slow to scan~\cite{knuth}. % a comment that must go
We study a cache with $n_i$ entries and 50\% hit rate.
\begin{equation} a = b + c \end{equation}
\section{Contributions}
\begin{itemize}
\item A cache that keeps hot columns.
\item[Bounds:] proofs of its space\footnote{Not of its time.} use.
\end{itemize}
\begin{figure}\caption{Hit rate against size.}\end{figure}
\include{chapters/design}
\bibliography{refs}
\appendix
\chapter{Proofs}
Long appendix text.
\end{document}
"""
ABSTRACT = r"""We present a cache for wide tables that keeps the columns a query reads most in
memory. It is simple, and on our workloads it halves the time of a scan while it keeps the
memory that the columns of a table take within a budget the operator sets, and it stays
correct when the table changes under it. We describe its design and measure it."""
DESIGN = r"""\chapter{Design}
The cache is a map from column to block, as Section~\ref{ch:intro} said.

\section{Summary}
This chapter showed the design.
"""


def git(repo, *args):
    return subprocess.run(['git', '-C', repo] + list(args), check=True, capture_output=True,
                          env=dict(os.environ, GIT_AUTHOR_NAME='t', GIT_AUTHOR_EMAIL='t@t',
                                   GIT_COMMITTER_NAME='t', GIT_COMMITTER_EMAIL='t@t')
                          ).stdout.decode().strip()


def make_repo(root, name, files):
    repo = os.path.join(root, name.replace('/', '+'), 'repo')
    os.makedirs(repo)
    git(repo, 'init', '-q')
    for path, text in files.items():
        os.makedirs(os.path.join(repo, os.path.dirname(path)), exist_ok=True)
        with open(os.path.join(repo, path), 'w') as f:
            f.write(text)
    git(repo, 'add', '-A')
    git(repo, 'commit', '-q', '-m', 'thesis')
    return git(repo, 'rev-parse', 'HEAD')


class LongDocsBuild(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        self.mirrors = os.path.join(self.root, 'mirrors')
        self.out = os.path.join(self.root, 'out')
        os.makedirs(self.out)
        self.heldout = os.path.join(self.root, 'heldout.sha256')
        with open(self.heldout, 'w') as f:
            f.write('# kept for acceptance\n%s\n'
                    % hashlib.sha256(b'kept/thesis').hexdigest())
        body = '\n\n'.join('The cache answers query %d from memory when its columns are hot, '
                           'and from the disk otherwise.' % i for i in range(400))
        self.files = {'main.tex': MAIN, 'abstract.tex': ABSTRACT,
                      'chapters/design.tex': DESIGN + '\n' + body,
                      'LICENSE': 'Attribution 4.0 International\n'}

    def tearDown(self):
        self.tmp.cleanup()

    def run_build(self, rows):
        sources = os.path.join(self.root, 'sources.tsv')
        with open(sources, 'w') as f:
            f.write('# repo\tcommit\tmain\tlicence\tfile\tkind\n')
            for row in rows:
                f.write('\t'.join(row) + '\n')
        return subprocess.run([sys.executable, os.path.join(HERE, 'build.py'), 'build',
                               '--sources', sources, '--mirrors', self.mirrors,
                               '--out', self.out, '--heldout', self.heldout],
                              capture_output=True, text=True)

    def records(self):
        out = []
        for split in ('train', 'valid', 'test'):
            with gzip.open(os.path.join(self.out, split + '.jsonl.gz'), 'rt') as f:
                out += [json.loads(line) for line in f]
        return out

    def test_a_held_out_repository_is_refused_before_anything_is_read(self):
        good = make_repo(self.mirrors, 'open/thesis', self.files)
        kept = make_repo(self.mirrors, 'Kept/Thesis', self.files)
        done = self.run_build([('open/thesis', good, 'main.tex', 'CC-BY-4.0', 'LICENSE',
                                'thesis'),
                               ('Kept/Thesis', kept, 'main.tex', 'CC-BY-4.0', 'LICENSE',
                                'thesis')])
        self.assertNotEqual(done.returncode, 0)
        self.assertIn('Kept/Thesis is kept for acceptance', done.stderr)
        self.assertEqual(os.listdir(self.out), [], 'nothing is written when a source is refused')
        with self.assertRaises(build.Refused):
            build.check_not_heldout('KEPT/thesis', build.heldout_hashes(self.heldout))

    def test_the_shared_held_out_list_is_read(self):
        hashes = build.heldout_hashes()
        self.assertGreater(len(hashes), 10)
        with open(build.HELDOUT) as f:
            first = next(line.strip() for line in f if not line.startswith('#'))
        self.assertIn(first, hashes)

    def test_a_thesis_reads_as_blocks_with_its_abstract_as_the_summary(self):
        commit = make_repo(self.mirrors, 'open/thesis', self.files)
        done = self.run_build([('open/thesis', commit, 'main.tex', 'CC-BY-4.0', 'LICENSE',
                                'thesis')])
        self.assertEqual(done.returncode, 0, done.stderr)
        [rec] = self.records()
        self.assertEqual(rec['source'], 'open/thesis')
        self.assertEqual(rec['commit'], commit)
        self.assertEqual(rec['licence'], 'CC-BY-4.0')
        self.assertEqual(rec['title'], 'Caching for Wide Tables')
        self.assertTrue(rec['summary'].startswith('We present a cache for wide tables'))
        lines = rec['document'].split('\n')
        self.assertEqual(lines[:6], [
            'Introduction',
            'Wide tables are slow to scan. We study a cache with n_i entries and 50% hit rate.',
            'Contributions', 'A cache that keeps hot columns.',
            'Bounds: proofs of its space use.', 'Design'])
        self.assertIn('Summary', lines)  # a chapter's own summary section stays
        for gone in ('cat', 'comment', 'a = b', 'Hit rate', 'appendix', 'Not of its time',
                     'We present'):
            self.assertNotIn(gone, rec['document'])

    def test_a_licence_file_that_says_otherwise_stops_the_build(self):
        self.files['LICENSE'] = 'Attribution-NonCommercial 4.0 International\n'
        commit = make_repo(self.mirrors, 'open/thesis', self.files)
        done = self.run_build([('open/thesis', commit, 'main.tex', 'CC-BY-4.0', 'LICENSE',
                                'thesis')])
        self.assertNotEqual(done.returncode, 0)
        self.assertIn('states None', done.stderr)

    def test_the_committed_set_matches_its_sources(self):
        rows = build.read_sources(os.path.join(HERE, 'sources.tsv'))
        ids = set()
        for split in ('train', 'valid', 'test'):
            with gzip.open(os.path.join(HERE, split + '.jsonl.gz'), 'rt') as f:
                for rec in map(json.loads, f):
                    self.assertEqual(build.split_of(rec['source']), split)
                    ids.add(rec['source'])
        self.assertEqual(ids, {r['repo'] for r in rows})
        hashes = build.heldout_hashes()
        for r in rows:
            build.check_not_heldout(r['repo'], hashes)

    def test_inline_commands_and_accents(self):
        text = latex_text.flat(latex_text.to_text(
            r"Caf\'e na\"ive \textbf{bold} \href{http://x}{link} 10\,ms --- done~\cite{a}."))
        self.assertEqual(text, 'Café naïve bold link 10 ms — done.')


if __name__ == '__main__':
    unittest.main()
