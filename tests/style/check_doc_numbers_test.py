#!/usr/bin/env python3
"""The doc-number check passes on the tree and fails on each planted fault."""
import pathlib
import subprocess
import sys
import tempfile
import unittest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
import check_doc_numbers as check  # noqa: E402


def messages(doc, text, root=ROOT):
    return [m for _, m in check.check(root, doc, text, check.Files(root))]


class CheckDocNumbersTest(unittest.TestCase):
    def test_tree_is_clean(self):
        r = subprocess.run([sys.executable, str(HERE / "check_doc_numbers.py"), str(ROOT)],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout)

    def test_a_changed_number_in_the_card_fails(self):
        card = "models/rpsum-ext/MODEL_CARD.md"
        text = (ROOT / card).read_text(encoding="utf-8")
        self.assertEqual(messages(card, text), [])
        self.assertIn("| **38.92** |", text)
        found = messages(card, text.replace("| **38.92** |", "| **38.93** |"))
        self.assertEqual(len(found), 1, found)
        self.assertIn("38.93 is in none of the files", found[0])

    def test_a_stale_number_from_an_earlier_run_fails(self):
        doc = "docs/benchmarks.md"
        text = (ROOT / doc).read_text(encoding="utf-8")
        # The under-attack ratio before the large-request lane, read from git at 52be184.
        self.assertIn("the same runs gave 1.99x and 2.37x", text)
        found = messages(doc, text.replace("gave 1.99x and", "gave 1.97x and"))
        self.assertEqual(len(found), 1, found)
        self.assertIn("1.97 is in none", found[0])

    def test_rules_on_a_small_tree(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            (root / "bench/results").mkdir(parents=True)
            (root / "bench/results/run.md").write_text("| a | 12.3456 | 0.0003185 |\n")

            def found(text):
                return messages("docs/x.md", text, root)

            self.assertEqual(found("It takes 12.35 ms (`bench/results/run.md`).\n"), [])
            self.assertEqual(found("Up to 3.2e-4 (`bench/results/run.md`).\n"), [])
            self.assertEqual(len(found("It takes 12.36 ms (`bench/results/run.md`).\n")), 1)
            # Not checked: a claim naming no result file, a target, a derived phrase.
            self.assertEqual(found("It takes 99.9 ms.\n"), [])
            self.assertEqual(found("12.35 ms (target <= 15.5; `bench/results/run.md`).\n"), [])
            # A list item quotes the files its lead paragraph names; a table row its header's.
            self.assertEqual(found("Runs (`bench/results/run.md`):\n- a: 12.35\n- b: 7.5\n"),
                             ["7.5 is in none of the files the claim names "
                              "(bench/results/run.md)"])
            self.assertEqual(found("| run (`bench/results/run.md`) | ms |\n| --- | --- |\n"
                                   "| a | 12.35 |\n"), [])
            self.assertEqual(len(found("Text.\n\n| run | ms |\n| --- | --- |\n| a | 12.35 |\n")),
                             1)


if __name__ == "__main__":
    unittest.main()
