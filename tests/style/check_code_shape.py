#!/usr/bin/env python3
"""Fails when the code's shape drifts from what a newcomer is promised (issue #53).

Rules:
  sizes       product code (base/ model/ server/ client/ train/ formats/ proto/; tests and
              test data excluded): no file over 600 lines, no function over 80 (a function is a
              definition whose signature starts in column 0 and whose body ends at the next
              column-0 '}');
  namespaces  one namespace per layer: every `namespace rpsum...` a file under a layer opens
              is that layer's (model/ rpsum::model, model/torch/ rpsum::net, train/
              rpsum::train, testing/ rpsum::test, ...), or its ::internal / ::detail;
  words       one word for a unit: no identifier in model/, train/, formats/ or testing/
              code (tests excluded; comments and string literals ignored) says "sentence",
              except SentencePiece's names and the few that mean a sentence of a paragraph
              (ICU's sentence breaks, UnitKind::kSentence); the API's "sentence" is
              server/ and client/'s (docs/design.md, section 4);
  citations   every repository path a comment cites (model/select.h, docs/design.md, ...)
              exists, and every docs/design.md section it cites by number or by quoted name
              is there (a heading, or a step's bold name).

usage: check_code_shape.py [ROOT]   (default: the repository this file sits in)
Prints each violation as FILE:LINE: message, and exits 1 if there is any.
"""
import pathlib
import re
import subprocess
import sys

PRODUCT = ("base/", "model/", "server/", "client/", "train/", "formats/", "proto/")
MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80

# Layer -> the namespaces its files may open (longest prefix wins).
NAMESPACES = {
    "base/": {"rpsum"},
    "model/": {"rpsum::model"},
    "model/torch/": {"rpsum::net"},
    "server/": {"rpsum::server"},
    "client/": {"rpsum::client"},
    "train/": {"rpsum::train"},
    "formats/": {"rpsum::formats"},
    "testing/": {"rpsum::test"},
}

# Files that also implement another layer's declarations: the model API's LibTorch summarizer
# and test hooks (model/summarizer.h) live with the network.
ALSO = {"model/torch/torch_summarizer.cc": {"rpsum::model"},
        "model/torch/inference.cc": {"rpsum::model"}}

# The layers that say "unit", and the identifiers there that may say "sentence" (whole names).
UNIT_WORD_LAYERS = ("model/", "train/", "formats/", "testing/")
SENTENCE_ALLOWED = re.compile(r"(?i:\w*sentencepiece\w*)|input_sentence_size|"
                              r"shuffle_input_sentence|createSentenceInstance|MakeSentenceIterator|"
                              r"SplitSentences|kSentence|StartsSentence")
STRING_OR_COMMENT = re.compile(r'R"\((?:.|\n)*?\)"|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|'
                               r"//[^\n]*")

CPP = {".h", ".cc"}
COMMENTED = CPP | {".py", ".sh", ".txt", ".cmake"}
CITE_ROOTS = ("base", "model", "server", "client", "train", "formats", "proto", "testing",
              "tests", "bench", "scripts", "docs", "models", "deploy", "web", ".ci")
PATH = re.compile(r"(?<![\w./-])((?:%s)/[A-Za-z0-9_./-]*[A-Za-z0-9_]\.[a-z]{1,5})(?![\w/-])"
                  % "|".join(re.escape(r) for r in CITE_ROOTS))
SECTION = re.compile(r"design\.md,? sections? (\d+)")
NAMED = re.compile(r'design\.md,?(?: section \d+,)? "([^"]+)"')
SIGNATURE_SKIP = ("namespace", "struct", "class", "enum", "union", "extern", "using", "typedef",
                  "#", "ABSL_FLAG", "TEST", "template", "static_assert")


def files(root: pathlib.Path):
    """The repository's files (tracked or not ignored) in a git checkout, else all of them."""
    r = subprocess.run(["git", "-C", str(root), "ls-files", "--cached", "--others",
                        "--exclude-standard"], capture_output=True, text=True)
    if r.returncode == 0 and (root / ".git").exists():
        return sorted(root / line for line in r.stdout.splitlines() if line)
    return sorted(root.rglob("*"))


def sources(root: pathlib.Path, suffixes):
    for path in files(root):
        if path.suffix not in suffixes or not path.is_file():
            continue
        rel = path.relative_to(root).as_posix()
        if rel.startswith(("build/", ".git/", ".library/", "node_modules/")) or "/build/" in rel:
            continue
        if "/testdata/" in rel or "/node_modules/" in rel:
            continue
        yield rel, path.read_text(encoding="utf-8", errors="replace").splitlines()


def is_product(rel: str) -> bool:
    return (rel.startswith(PRODUCT) and not rel.endswith(("_test.cc", "_fuzzer.cc"))
            and pathlib.PurePosixPath(rel).suffix in CPP)


def long_functions(lines):
    """(first line, length) of each column-0 function definition over the limit."""
    i = 0
    while i < len(lines):
        line = lines[i]
        if (re.match(r"[A-Za-z_~]", line) and "(" in line and not line.startswith(SIGNATURE_SKIP)
                and not line.rstrip().endswith(";")):
            j = i
            while j < len(lines) and j < i + 8 and not lines[j].rstrip().endswith(("{", ";")):
                j += 1
            if j < len(lines) and lines[j].rstrip().endswith("{"):
                k = j + 1
                while k < len(lines) and not lines[k].startswith("}"):
                    k += 1
                if k - i + 1 > MAX_FUNCTION_LINES:
                    yield i + 1, k - i + 1
                i = k + 1
                continue
        i += 1


def check_sizes(rel, lines):
    if not is_product(rel):
        return
    if len(lines) > MAX_FILE_LINES:
        yield 1, f"{len(lines)} lines; a product file has at most {MAX_FILE_LINES}"
    for first, length in long_functions(lines):
        yield first, (f"a function of {length} lines; at most {MAX_FUNCTION_LINES} in product "
                      "code (split it into named steps)")


def check_namespaces(rel, lines):
    layer = max((p for p in NAMESPACES if rel.startswith(p)), key=len, default=None)
    if layer is None or pathlib.PurePosixPath(rel).suffix not in CPP:
        return
    allowed = NAMESPACES[layer] | ALSO.get(rel, set())
    for number, line in enumerate(lines, 1):
        m = re.match(r"namespace (rpsum(?:::\w+)*) \{", line)
        name = m.group(1) if m else ""
        if m and name not in allowed and re.sub(r"::(internal|detail)$", "", name) not in allowed:
            yield number, (f"opens namespace {name}; {layer} code lives in "
                           f"{' or '.join(sorted(allowed))}")


def check_words(rel, lines):
    if not rel.startswith(UNIT_WORD_LAYERS) or rel.endswith(("_test.cc", "_fuzzer.cc")):
        return
    code = STRING_OR_COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), "\n".join(lines))
    for number, line in enumerate(code.split("\n"), 1):
        for m in re.finditer(r"\w*[Ss]entence\w*", line):
            if not SENTENCE_ALLOWED.fullmatch(m.group(0)):
                yield number, (f"names {m.group(0)}: {rel.split('/')[0]}/ calls it a unit "
                               "(\"sentence\" is the API's word, docs/design.md, section 4)")


def design_sections(root: pathlib.Path):
    """The numbers and names a citation of docs/design.md may use."""
    text = (root / "docs/design.md").read_text(encoding="utf-8")
    numbers, names = set(), set()
    for m in re.finditer(r"^#{2,4} (?:(\d+)\. )?(.+?)\s*$", text, re.M):
        if m.group(1):
            numbers.add(m.group(1))
        names.add(re.sub(r"`", "", m.group(2)).strip())
    names.update(m.group(1) for m in re.finditer(r"\*\*([^*]+)\*\*", text))
    return numbers, names


def comments(rel, lines):
    """(line number, comment text) of each comment line."""
    marker = "//" if pathlib.PurePosixPath(rel).suffix in CPP else "#"
    for number, line in enumerate(lines, 1):
        at = line.find(marker)
        if at >= 0 and not (marker == "#" and line.lstrip().startswith("#!")):
            yield number, line[at + len(marker):]


def check_citations(rel, lines, root, sections):
    numbers, names = sections
    for number, text in comments(rel, lines):
        for m in PATH.finditer(text):
            cited = m.group(1).rstrip(".")
            if not (root / cited).exists():
                yield number, f"cites {cited}, which does not exist"
        for m in SECTION.finditer(text):
            if m.group(1) not in numbers:
                yield number, f"cites docs/design.md section {m.group(1)}, which does not exist"
        for m in NAMED.finditer(text):
            if m.group(1) not in names:
                yield number, (f'cites docs/design.md "{m.group(1)}", which is neither a heading '
                               "nor a step's bold name there")


def violations(root: pathlib.Path):
    sections = design_sections(root)
    for rel, lines in sources(root, COMMENTED):
        found = []
        if pathlib.PurePosixPath(rel).suffix in CPP:
            found += [(n, "sizes", m) for n, m in check_sizes(rel, lines)]
            found += [(n, "namespaces", m) for n, m in check_namespaces(rel, lines)]
            found += [(n, "words", m) for n, m in check_words(rel, lines)]
        found += [(n, "citations", m) for n, m in check_citations(rel, lines, root, sections)]
        for number, rule, message in found:
            yield f"{rel}:{number}: {message} [{rule}]"


def main(argv):
    root = pathlib.Path(argv[1] if len(argv) > 1 else pathlib.Path(__file__).resolve().parents[2])
    found = list(violations(root))
    for v in found:
        print(v)
    if found:
        print(f"{len(found)} violation(s): tests/style/check_code_shape.py's docstring says why")
        return 1
    print("code shape: sizes, namespaces, words and cited paths and sections are fine")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
