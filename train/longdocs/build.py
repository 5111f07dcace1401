#!/usr/bin/python3
"""Builds the long-document set: theses, reports and papers written in LaTeX in public
repositories, each with its author's abstract as the summary (train/longdocs/README.md).

  build.py build [--sources sources.tsv] [--mirrors DIR] [--out DIR]
      reads each row of sources.tsv (repository, commit, main file, licence, licence file,
      kind) from a snapshot of the repository in --mirrors (the search tool's fetch puts
      them in /work/.mirror/OWNER+NAME/repo), checks the commit and the licence file, and
      writes {train,valid,test}.jsonl.gz and stats.json to --out (default: this folder)
  build.py scan [--mirrors DIR] [REPO ...]
      proposes sources.tsv rows for fetched repositories: the main file that reads longest
      with an abstract, the licence its licence file or README states, the words (a repository
      with no licence file or README that states one within two folders of its root is passed
      over unread)

A repository whose lowercase owner/name hashes to a line of
../shared/data/heldout-sources.sha256 (kept for acceptance) is refused: build stops with an
error naming it, scan names it and reads nothing of it. The standard library only.
"""
import argparse
import gzip
import hashlib
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import latex_text  # noqa: E402  (beside this file)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
HELDOUT = os.path.join(ROOT, '..', 'shared', 'data', 'heldout-sources.sha256')
MIRRORS = '/work/.mirror'
MIN_WORDS = 5000          # a document shorter than this is no long document
ABSTRACT_WORDS = (40, 1200)
MIN_ENGLISH = 0.18        # share of common English function words in the abstract and body


class Refused(Exception):
    """A source that must not be read: held out for acceptance."""


def heldout_hashes(path=HELDOUT):
    with open(path) as f:
        return {line.strip() for line in f if re.fullmatch(r'[0-9a-f]{64}', line.strip())}


def check_not_heldout(repo, hashes):
    """Raises Refused if `repo` (owner/name) is one of the repositories kept for acceptance."""
    if hashlib.sha256(repo.lower().encode()).hexdigest() in hashes:
        raise Refused('%s is kept for acceptance (heldout-sources.sha256): never training data'
                      % repo)


def split_of(repo):
    """test for 2 of 10 repositories, valid for 2, train for the rest, by the repository's
    hash: every document of a repository lands in one split."""
    h = int(hashlib.sha256(repo.lower().encode()).hexdigest(), 16) % 10
    return 'test' if h < 2 else 'valid' if h < 4 else 'train'


class Repo:
    """Reads files of one commit of a fetched snapshot (a git directory)."""

    def __init__(self, mirrors, repo, commit='HEAD'):
        base = os.path.join(mirrors, repo.replace('/', '+'), 'repo')
        self.git = os.path.join(base, '.git') if os.path.isdir(os.path.join(base, '.git')) \
            else base
        if not os.path.isdir(self.git):
            raise FileNotFoundError('%s: no snapshot at %s (fetch github:%s first)'
                                    % (repo, base, repo))
        self.commit = self._git('rev-parse', commit + '^{commit}').strip()
        self.files = set(self._git('ls-tree', '-r', '--name-only', self.commit).splitlines())
        self.cache = {}

    def _git(self, *args):
        return subprocess.run(['git', '--git-dir', self.git] + list(args), check=True,
                              capture_output=True).stdout.decode('utf-8', 'replace')

    def read(self, path):
        if path not in self.files:
            return None
        if path not in self.cache:
            raw = subprocess.run(['git', '--git-dir', self.git, 'show',
                                  '%s:%s' % (self.commit, path)],
                                 capture_output=True).stdout
            try:
                self.cache[path] = raw.decode('utf-8')
            except UnicodeDecodeError:
                self.cache[path] = raw.decode('latin-1')
        return self.cache[path]


LICENCES = [  # (SPDX id, pattern that names it); NonCommercial and NoDerivatives are refused
    ('CC-BY-SA-4.0', r'Attribution-ShareAlike 4\.0|CC[- ]BY[- ]SA[- ]4\.0|by-sa/4\.0'),
    ('CC-BY-SA-3.0', r'Attribution-ShareAlike 3\.0|CC[- ]BY[- ]SA[- ]3\.0|by-sa/3\.0'),
    ('CC-BY-4.0', r'Attribution 4\.0 International|CC[- ]BY[- ]4\.0|licenses/by/4\.0'),
    ('CC-BY-3.0', r'Attribution 3\.0|CC[- ]BY[- ]3\.0|licenses/by/3\.0'),
    ('CC0-1.0', r'CC0|Creative Commons Zero|publicdomain/zero'),
    ('MIT', r'Permission is hereby granted, free of charge'),
    ('Apache-2.0', r'Apache License,?\s+Version 2\.0'),
    ('BSD-3-Clause', r'Neither the name of'),
    ('BSD-2-Clause', r'Redistribution and use in source and binary forms'),
    ('GPL-3.0', r'GNU GENERAL PUBLIC LICENSE\s+Version 3'),
    ('GPL-2.0', r'GNU GENERAL PUBLIC LICENSE\s+Version 2'),
    ('Unlicense', r'This is free and unencumbered'),
    ('LPPL-1.3c', r'LaTeX Project Public License'),
]
# Creative Commons' own words for its NonCommercial and NoDerivatives licences (the GPL's text
# says "noncommercial" too, of something else).
REFUSED_TERMS = r'(Attribution|Commons)[- ](ShareAlike-)?(NonCommercial|NoDerivatives|NoDerivs)|' \
                r'by-nc|by-nd|CC[- ]BY[- ]N[CD]|All rights reserved'


def licence_of(text):
    """The SPDX id a licence text or README statement names, or None (also None for a
    non-commercial or no-derivatives licence, or all rights reserved)."""
    if not text or re.search(REFUSED_TERMS, text, re.I):
        return None
    for spdx, pattern in LICENCES:
        if re.search(pattern, text, re.I):
            return spdx
    return None


def licence_files(repo, main):
    """Licence files that may cover `main`: LICENSE/LICENCE/COPYING in its folder or above,
    nearest first, then READMEs the same way."""
    folders, d = [], os.path.dirname(main)
    while True:
        folders.append(d)
        if not d:
            break
        d = os.path.dirname(d)
    found = []
    for pattern in (r'(licen[cs]e|copying)(\.(md|txt|rst))?', r'readme(\.(md|txt|rst))?'):
        for folder in folders:
            for f in sorted(repo.files):
                if os.path.dirname(f) == folder and re.fullmatch(pattern,
                                                                 os.path.basename(f), re.I):
                    found.append(f)
    return found


def extract(repo, main):
    """(title, abstract, blocks) of the document whose main file is `main`."""
    source = latex_text.expand(repo.read, main)
    title = ''
    m = re.search(r'\\title\s*(?:\[[^\]]*\])?\s*\{', source) or \
        re.search(r'\\(?:newcommand|renewcommand|def)\s*\{?\\(?:my|thesis)[Tt]itle\}?\s*\{', source)
    if m:
        raw, _ = latex_text.braced(source, m.end() - 1)
        title = latex_text.flat(latex_text.to_text(raw or ''))
    body = latex_text.document_body(source)
    abstract, body = latex_text.split_abstract(body)
    if not abstract:  # an abstract kept in its own file, never included by the main file
        for f in sorted(repo.files):
            if re.fullmatch(r'abstract(-?(en|english|eng))?\.tex', os.path.basename(f), re.I) \
                    and os.path.dirname(f).startswith(os.path.dirname(main)):
                abstract = latex_text.to_text(latex_text.strip_comments(repo.read(f)))
                abstract = re.sub(r'\\begin\{abstract\}|\\end\{abstract\}', '', abstract)
                break
    return title, latex_text.flat(abstract), latex_text.to_blocks(body)


def document_text(blocks):
    return '\n'.join(text for _, _, text in blocks)


def judge(title, abstract, blocks):
    """None if the document is a long English document with an abstract, else the reason."""
    words = len(document_text(blocks).split())
    aw = len(abstract.split())
    if not ABSTRACT_WORDS[0] <= aw <= ABSTRACT_WORDS[1]:
        return 'abstract of %d words' % aw
    if words < MIN_WORDS:
        return 'document of %d words' % words
    english = min(latex_text.english_share(abstract),
                  latex_text.english_share(document_text(blocks)))
    if english < MIN_ENGLISH:
        return 'not English (%.2f)' % english
    headings = sum(kind == 'heading' for kind, _, _ in blocks)
    if headings < 3:
        return 'only %d headings' % headings
    return None


def main_candidates(repo):
    """Files that begin a document, those that include the most files first."""
    out = []
    for f in sorted(repo.files):
        if not f.endswith('.tex') or re.search(r'(^|/)(templates?|demo|example|slides|'
                                               r'presentation|talk|poster|defen[cs]e)', f,
                                               re.I):
            continue
        text = repo.read(f) or ''
        if '\\begin{document}' in text:
            out.append((-len(latex_text.INCLUDE.findall(text)) - len(text) / 1e6, f))
    return [f for _, f in sorted(out)]


def scan(args):
    hashes = heldout_hashes(args.heldout)
    names = args.repos or sorted(d.replace('+', '/', 1) for d in os.listdir(args.mirrors)
                                 if '+' in d)
    for name in names:
        try:
            check_not_heldout(name, hashes)
            repo = Repo(args.mirrors, name)
        except (Refused, FileNotFoundError, subprocess.CalledProcessError) as e:
            print('# %s: %s' % (name, e), flush=True)
            continue
        if not any(licence_of(repo.read(f)) for f in sorted(repo.files)
                   if f.count('/') <= 2 and re.fullmatch(r'(licen[cs]e|copying|readme)(\.\w+)?',
                                                         os.path.basename(f), re.I)):
            print('# %s: no licence file or README states a licence that allows reuse' % name,
                  flush=True)
            continue
        best = None
        for main in main_candidates(repo)[:6]:
            try:
                title, abstract, blocks = extract(repo, main)
            except RecursionError:
                continue
            words = len(document_text(blocks).split())
            reason = judge(title, abstract, blocks)
            if best is None or (reason is None, words) > (best[1] is None, best[2]):
                best = (main, reason, words, len(abstract.split()))
        if best is None:
            print('# %s: no main .tex file' % name, flush=True)
            continue
        main, reason, words, aw = best
        spdx, lf = None, ''
        for f in licence_files(repo, main):
            spdx = licence_of(repo.read(f))
            if spdx:
                lf = f
                break
        row = [name, repo.commit, main, spdx or '?', lf or '?', 'thesis']
        note = '%d words, abstract %d words%s' % (words, aw, '; ' + reason if reason else '')
        print(('' if spdx and not reason else '# ') + '\t'.join(row) + '\t# ' + note,
              flush=True)


def read_sources(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.split('#', 1)[0].rstrip('\n')
            if not line.strip():
                continue
            cells = line.split('\t')
            if len(cells) < 6:
                raise ValueError('%s: a row needs 6 tab-separated cells: %r' % (path, line))
            rows.append(dict(zip(('repo', 'commit', 'path', 'licence', 'licence_file', 'kind'),
                                 [c.strip() for c in cells[:6]])))
    return rows


def build_record(row, mirrors):
    repo = Repo(mirrors, row['repo'], row['commit'])
    if repo.commit != row['commit']:
        raise ValueError('%s: commit %s resolves to %s' % (row['repo'], row['commit'],
                                                           repo.commit))
    stated = licence_of(repo.read(row['licence_file']))
    if stated != row['licence']:
        raise ValueError('%s: %s states %s, sources.tsv says %s'
                         % (row['repo'], row['licence_file'], stated, row['licence']))
    title, abstract, blocks = extract(repo, row['path'])
    reason = judge(title, abstract, blocks)
    if reason:
        raise ValueError('%s: %s' % (row['repo'], reason))
    document = document_text(blocks)
    return {
        'id': 'longdocs:%s' % row['repo'].lower(),
        'source': row['repo'],
        'title': title,
        'summary': abstract,
        'document': document,
        'kind': row['kind'],
        'licence': row['licence'],
        'licence_file': row['licence_file'],
        'commit': row['commit'],
        'path': row['path'],
        'words': len(document.split()),
        'sections': sum(k == 'heading' and level <= 2 for k, level, _ in blocks),
    }


def build(args):
    hashes = heldout_hashes(args.heldout)
    rows = read_sources(args.sources)
    for row in rows:  # refuse before reading anything
        check_not_heldout(row['repo'], hashes)
    splits = {'train': [], 'valid': [], 'test': []}
    for row in rows:
        rec = build_record(row, args.mirrors)
        splits[split_of(row['repo'])].append(rec)
        print('%-5s %6d words  %s' % (split_of(row['repo']), rec['words'], row['repo']),
              flush=True)
    stats = {'records': sum(map(len, splits.values())), 'per_split': {}}
    for name, recs in splits.items():
        recs.sort(key=lambda r: r['id'])
        with gzip.GzipFile(os.path.join(args.out, name + '.jsonl.gz'), 'wb', mtime=0) as f:
            for rec in recs:
                f.write((json.dumps(rec, ensure_ascii=False) + '\n').encode())
        words = sorted(r['words'] for r in recs)
        stats['per_split'][name] = {
            'records': len(recs), 'words_min': words[0] if words else 0,
            'words_median': words[len(words) // 2] if words else 0,
            'words_max': words[-1] if words else 0,
            'at_least_15000_words': sum(w >= 15000 for w in words)}
    with open(os.path.join(args.out, 'stats.json'), 'w') as f:
        json.dump(stats, f, indent=1)
        f.write('\n')
    print(json.dumps(stats))


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('command', choices=('build', 'scan'))
    p.add_argument('repos', nargs='*')
    p.add_argument('--sources', default=os.path.join(HERE, 'sources.tsv'))
    p.add_argument('--mirrors', default=MIRRORS)
    p.add_argument('--out', default=HERE)
    p.add_argument('--heldout', default=HELDOUT)
    args = p.parse_args()
    try:
        (build if args.command == 'build' else scan)(args)
    except (Refused, ValueError, FileNotFoundError) as e:
        sys.exit('build.py: %s' % e)


if __name__ == '__main__':
    main()
