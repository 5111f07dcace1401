#!/usr/bin/python3
"""Every flag `rpsum-train --help`, `rpsum-eval --help` and `rpsum-inspect --help` list is used by
a committed script or documented (a .sh, .py or .md file, or scripts/, other than the tools' own
sources and the experiments' files under models/experiments/): a flag only a study runs is lab
equipment left in the product (issues #53, #65). Also fails when --help lists
no flags at all (abseil lists only the main file's).
usage: tool_flags_test.py SOURCE_DIR TOOL...
"""
import pathlib
import re
import subprocess
import sys


def flags(tool):
    out = subprocess.run([tool, "--help"], capture_output=True, text=True).stdout
    return sorted(set(re.findall(r"^\s+--([a-z0-9_]+) \(", out, re.M)))


def corpus(root):
    files = subprocess.run(["git", "-C", str(root), "ls-files"], capture_output=True, text=True,
                           check=True).stdout.splitlines()
    texts = []
    for rel in files:
        if rel.endswith(("_main.cc", "tool_flags_test.py")) or rel.startswith("models/experiments/"):
            continue
        if rel.endswith((".sh", ".py", ".md")) or rel.startswith("scripts/"):
            path = root / rel
            if path.is_file():
                texts.append(path.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(texts)


def main():
    root = pathlib.Path(sys.argv[1])
    text = corpus(root)
    failures = []
    for tool in sys.argv[2:]:
        listed = flags(tool)
        if len(listed) < 5:
            failures.append(f"{tool} --help lists {len(listed)} flags: is usage_config set?")
        for flag in listed:
            if not re.search(r"--%s\b" % re.escape(flag), text):
                failures.append(f"{pathlib.Path(tool).name} --{flag}: no committed script or doc "
                                "uses it (remove it, or document the task that needs it)")
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print("ok   every listed flag of", ", ".join(pathlib.Path(t).name for t in sys.argv[2:]),
              "is used by a script or a doc")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
