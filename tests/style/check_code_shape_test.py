#!/usr/bin/env python3
"""check_code_shape.py passes on this repository and catches each rule's planted fault in a
small fake tree (a long function, a long file, a wrong namespace, a "sentence" identifier
below the API, a stale path, a missing design-doc section), and leaves tests and test-only code
alone."""
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
CHECK = HERE / "check_code_shape.py"
DESIGN = """# design
## 1. Layers
## 2. Life of a request
1. **Validate** the request.
6. **Select** units.
### Formats and other scripts
"""


def run(root):
    r = subprocess.run([sys.executable, str(CHECK), str(root)], capture_output=True, text=True)
    return r.returncode, r.stdout


def write(root, rel, text):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def function(name, body_lines):
    return f"int {name}() {{\n" + "  x();\n" * body_lines + "  return 0;\n}\n"


def fake_tree(root):
    write(root, "docs/design.md", DESIGN)
    write(root, "model/select.h", "// See docs/design.md, section 2, \"Select\".\n")
    write(root, "model/ok.cc", "namespace rpsum::model {\n" + function("Short", 70) +
          "}  // namespace rpsum::model\n")
    write(root, "formats/x.cc", "namespace rpsum::formats::internal {\n}\n")
    # "sentence" in comments, strings, SentencePiece's names and ICU's sentence breaks; the
    # API layer and tests say it freely.
    write(root, "model/words.cc", "// One sentence per line.\n"
          "const char* kKey = \"max_tokens_per_sentence\";  // format 1\n"
          "void SplitSentences(SentencePieceProcessor* p, UnitKind k = UnitKind::kSentence);\n")
    write(root, "server/convert.cc", "int n = r.max_sentences();\n")
    write(root, "model/words_test.cc", "std::vector<std::string> sentences;\n")
    # Tests may be long (their namespace is their layer's too).
    write(root, "train/long_test.cc", "namespace rpsum::train {\n" + function("Long", 200) + "}\n")


def expect(cond, what, out):
    if not cond:
        print(f"FAIL: {what}\n{out}")
        sys.exit(1)


def main():
    code, out = run(HERE.parents[1])
    expect(code == 0, "the repository itself has violations", out)
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        fake_tree(root)
        code, out = run(root)
        expect(code == 0, "a clean fake tree fails", out)
        planted = {
            "model/long.cc": ("namespace rpsum::model {\n" + function("Long", 85) + "}\n",
                              "model/long.cc:2: a function of 88 lines"),
            "server/big.h": ("// big\n" * 601, "server/big.h:1: 601 lines"),
            "train/ns.cc": ("namespace rpsum::model {\n}\n",
                            "train/ns.cc:1: opens namespace rpsum::model; train/ code lives in "
                            "rpsum::train"),
            "model/torch/net.cc": ("namespace rpsum::model {\n}\n",
                                   "model/torch/net.cc:1: opens namespace rpsum::model"),
            "testing/fake.h": ("namespace rpsum::server {\n}\n",
                               "testing/fake.h:1: opens namespace rpsum::server"),
            "model/torch/batch.h": ("struct Batch {\n  at::Tensor sentence_pos;\n};\n",
                                    "model/torch/batch.h:2: names sentence_pos: model/ calls it "
                                    "a unit"),
            "train/flags.cc": ('ABSL_FLAG(int, unit_clip, 16, "k");\nint kSentences = 2;\n',
                               "train/flags.cc:2: names kSentences"),
            "model/stale.h": ("// Implemented in model/gone.cc.\n",
                              "model/stale.h:1: cites model/gone.cc, which does not exist"),
            # (split literals: this file's own comments are checked too)
            "bench/run.sh": ("# Follows docs/design.md, section " + "9.\n",
                             "bench/run.sh:1: cites docs/design.md section 9"),
            "scripts/x.py": ('# The rule of docs/design.md, ' + '"Selection".\n',
                             'scripts/x.py:1: cites docs/design.md "Selection"'),
        }
        for rel, (text, message) in planted.items():
            write(root, rel, text)
            code, out = run(root)
            expect(code == 1 and message in out, f"{rel} was not caught as '{message}'", out)
            (root / rel).unlink()
        code, out = run(root)
        expect(code == 0, "the fake tree fails after the faults are gone", out)
    print("ok   check_code_shape: the repository passes; each planted fault is caught")


if __name__ == "__main__":
    main()
