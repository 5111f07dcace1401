#!/usr/bin/env python3
"""Fails when a number in the README, docs/ or the model card is not in the file it names
(issue #65: "every number ... matches the file it names").

A claim is a paragraph, a list item or a table row. When a claim names a committed result file
in backquotes (under bench/results/, models/*/results/ or models/experiments/, as .md, .json,
.txt, .csv or .log; relative to the repository, to the document's folder, or to its results/
folder), every decimal number in the claim (38.92, 1.84x, -0.79, 0.877) must be in one of the
files it names: the same digits, or a longer value in the file that rounds to it. A file named
with a commit (`path` at commit 496a0ed, `path` as of 6c6b24a, "the same file at commit ...")
is read as it was at that commit (git show), so an earlier run's number is checked against
that run. Not checked: integers (counts and settings), numbers of a target or bar ("target <=
1.15", "the bar: 2"), and the derived numbers DERIVED lists, each with what it derives from.

usage: check_doc_numbers.py [ROOT]   (default: the repository this file sits in)
Prints each number not found as FILE:LINE: message, and exits 1 if there is any.
"""
import pathlib
import re
import subprocess
import sys

DOCS = ("README.md", "docs/*.md", "models/rpsum-ext/MODEL_CARD.md")
RESULT = re.compile(r"^(bench/results/|models/[^/]+/results/|models/experiments/)"
                    r".*\.(md|json|txt|csv|log)$")
CITED = re.compile(r"`([A-Za-z0-9_./-]+\.(?:md|json|txt|csv|log))`"
                   r"(?:,? (?:at commit|as of|at) ([0-9a-f]{7,40})\b)?")
SAME_FILE_AT = re.compile(r"the same (?:file|files) (?:at commit|as of|at|as committed in) "
                          r"([0-9a-f]{7,40})")
FOLDER = re.compile(r"`((?:bench|models)/[A-Za-z0-9_./-]+/|(?:experiments|results)/[A-Za-z0-9_./-]*/)`")
DECIMAL = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)\.(\d+)(e-?\d+)?(?![\d.]\d)")
# A target, bar or bound the claim sets itself (a few words before, within its clause).
TARGET = re.compile(r"\b(?:target|bar|bound)\b[^;.]{0,32}$", re.I)
FILE_NUMBER = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?(?:[eE][-+]?\d+)?")

# Numbers a claim derives from what its files hold (a difference, a ratio, a sum, another unit):
# per document, the phrase that holds them (its numbers are not looked up) and how each is
# derived. Keep this short: prefer quoting what the file holds.
DERIVED = {
    "docs/benchmarks.md": [
        ("the six unit-state features are 0.3 to 1.3 ms",
         "select.md: reranked (unit states) minus reranked (hand features), per row"),
        ("k=256 takes 1.23x", "the 720 and 586 ms it quotes"),
        ("by 0.051 on F1", "pdf-readers.md: our mean F1 minus pdftotext's"),
        ("3.6 million one-letter words", "the family's words at 4 MB (testing/hostile_inputs.h)"),
    ],
    "docs/design.md": [
        ("the halo costs 4.7% more token work at it (9.4% at",
         "2 x 768 halo tokens over 32,768 and 16,384 token stretches"),
    ],
    "docs/operations.md": [
        ("about 3.3 GB for its two workers",
         "the sum it states: 284 MB + 2 x 310 MB + 2 GiB + three documents"),
    ],
    "models/rpsum-ext/MODEL_CARD.md": [
        ("77.7 for stages 1-2", "train-model-time.txt's wall clock, 1:17:41, in minutes"),
        ("peak memory 2.7 GB", "train-model-time.txt's 2,664,560 KB maximum resident set"),
        ("+0.5 over v2.3's", "the rule's threshold, written before the run"),
    ],
}


def claims(text):
    """(first line, text, lead) of each paragraph, list item and table row. `lead` is what an
    item may quote the files of: for a list item the paragraph before its list, for a table row
    that paragraph and the table's header row; else ""."""
    current, start, lead, header = [], 0, "", None
    for number, line in enumerate(text.split("\n") + [""], 1):
        s = line.strip()
        item = re.match(r"(?:[-*]|\d+\.) |\|", s)
        if not s or s.startswith(("#", "```")) or item:
            if current:
                claim = " ".join(current)
                row = current[0].startswith("|")
                if row and header is None:
                    header = claim
                if not row:
                    header = None
                is_item = re.match(r"(?:[-*]|\d+\.) |\|", current[0])
                yield start, claim, (lead + " " + (header if row else "")) if is_item else ""
                if not is_item:
                    lead = claim  # a paragraph: the lead of what follows
            if s.startswith("#"):
                lead = ""
            if not s.startswith("|"):
                header = None
            current, start = [], number
            if s and not s.startswith(("#", "```")):
                current = [s]
        else:
            if not current:
                start = number
            current.append(s)


class Files:
    def __init__(self, root):
        self.root = root
        self.cache = {}

    def numbers(self, rel, commit):
        key = (rel, commit)
        if key not in self.cache:
            if commit:
                r = subprocess.run(["git", "-C", str(self.root), "show", f"{commit}:{rel}"],
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    self.cache[key] = None  # reported by the caller
                    return None
                text = r.stdout
            else:
                text = (self.root / rel).read_text(encoding="utf-8", errors="replace")
            self.cache[key] = {float(x.replace(",", "")) for x in FILE_NUMBER.findall(text)}
        return self.cache[key]


def resolve(root, doc, name, previous, folders):
    """The repository path of a result file `name` cited in `doc` after the file `previous`
    (a bare name may be that file's neighbour) in a claim naming `folders`, or None."""
    bases = [pathlib.PurePosixPath(""), doc.parent, doc.parent / "results", doc.parent.parent]
    if previous and "/" not in name:  # a bare name is first its predecessor's neighbour
        bases.insert(0, pathlib.PurePosixPath(previous).parent)
    for f in folders:
        bases += [pathlib.PurePosixPath(f), doc.parent / f, doc.parent.parent / f]
    for base in bases:
        rel = str(base / name)
        if RESULT.match(rel) and (root / rel).is_file():
            return rel
    return None


def found(match, files):
    """Whether a file holds the number `match` quotes: a value that rounds to it (within half a
    unit of its last digit)."""
    whole, frac, exponent = match.group(1), match.group(2), match.group(3) or "e0"
    value = float(f"{whole.replace(',', '')}.{frac}{exponent}")
    half_unit = 0.5 * 10.0 ** (int(exponent[1:]) - len(frac)) * (1 + 1e-9)
    return any(abs(x - value) <= half_unit for numbers in files for x in numbers)


def check(root, doc_rel, text, files):
    doc = pathlib.PurePosixPath(doc_rel)
    for line, claim, lead in claims(text):
        cited, commits = [], set(SAME_FILE_AT.findall(claim))
        folders = FOLDER.findall(claim + " " + lead)
        for m in CITED.finditer(claim + " " + lead):
            rel = resolve(root, doc, m.group(1), cited[-1][0] if cited else None, folders)
            if rel:
                cited.append((rel, m.group(2)))
        if not cited:
            if claim.startswith("|") and re.search(r"\d\.\d", claim) and DECIMAL.search(claim):
                yield line, ("a table row of measured numbers, and neither it, its header nor "
                             "the paragraph before its table names a result file")
            continue
        sets = []
        for rel, commit in cited:
            if commit and files.numbers(rel, commit) is None:
                yield line, f"cites {rel} at {commit}, which git cannot show (a full clone?)"
            for c in [commit] if commit else [None, *commits]:
                if files.numbers(rel, c) is not None:
                    sets.append(files.numbers(rel, c))
        for c in commits:
            if all(files.numbers(rel, c) is None for rel, _ in cited):
                yield line, f"names files at {c}, none of which git can show (a full clone?)"
        derived = []
        for phrase, _ in DERIVED.get(doc_rel, []):
            derived += [(d.start(), d.end()) for d in re.finditer(re.escape(phrase), claim)]
        for m in DECIMAL.finditer(claim):
            if TARGET.search(claim[:m.start()][-48:]) or \
                    any(a <= m.start() < b for a, b in derived):
                continue
            if not found(m, sets):
                names = ", ".join(r + (f" at {c}" if c else "") for r, c in cited)
                yield line, f"{m.group(0)} is in none of the files the claim names ({names})"


def violations(root):
    files = Files(root)
    for pattern in DOCS:
        for path in sorted(root.glob(pattern)):
            rel = str(path.relative_to(root))
            for line, message in check(root, rel, path.read_text(encoding="utf-8"), files):
                yield f"{rel}:{line}: {message}"


def main(argv):
    root = pathlib.Path(argv[1]) if len(argv) > 1 else pathlib.Path(__file__).resolve().parents[2]
    found_any = False
    for doc, items in DERIVED.items():
        text = " ".join((root / doc).read_text(encoding="utf-8").split())
        for phrase, _ in items:
            if phrase not in text:
                print(f"{doc}: DERIVED names \"{phrase}\", which the document no longer says")
                found_any = True
    for v in violations(root):
        print(v)
        found_any = True
    if found_any:
        return 1
    print("doc numbers: every decimal a claim quotes is in the result file it names")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
