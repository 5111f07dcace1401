#!/usr/bin/python3
"""Lists the tests a gate run did not really run, with their reasons, for scripts/test.

usage: gate_skips.py BUILD_DIR...
For each build folder: the CTest tests that did not run (skipped by return code 77, disabled,
not run) from its ctest.log (scripts/test tees CTest's output there), each with the "skip: ..."
lines of its output in Testing/Temporary/LastTest.log; and the GoogleTest cases that a passing
binary skipped: by name ("[  SKIPPED ] Suite.Case"), or, in --gtest_brief=1 output (how CTest
runs our binaries), by count ("[  SKIPPED ] 2 tests.") with the "file:line: Skipped" lines and
messages before it. Prints one line per skip, or nothing.
Exit status: 0 when nothing was skipped, 1 otherwise.
"""
import os
import re
import sys

NOT_RUN = re.compile(r"^\s*\d+ - (\S+) \((Skipped|Disabled|Not Run)\)\s*$")
SECTION = re.compile(r"^\d+/\d+ Testing: (\S+)\s*$")
GTEST_SKIP = re.compile(r"^\[  SKIPPED \] ([A-Za-z_][\w/]*\.[\w/]+)")
GTEST_BRIEF_SKIP = re.compile(r"^\[  SKIPPED \] (\d+) tests?\.\s*$")
SKIPPED_AT = re.compile(r"^(\S+:\d+): Skipped\s*$")


def test_outputs(log_path):
    """name -> output lines, from CTest's LastTest.log."""
    out, name = {}, None
    if not os.path.exists(log_path):
        return out
    with open(log_path, errors="replace") as f:
        for line in f:
            m = SECTION.match(line)
            if m:
                name = m.group(1)
                out[name] = []
            elif name is not None:
                out[name].append(line.rstrip("\n"))
    return out


def skips(build):
    found = []
    preset = os.path.basename(os.path.normpath(build))
    outputs = test_outputs(os.path.join(build, "Testing", "Temporary", "LastTest.log"))
    ctest_log = os.path.join(build, "ctest.log")
    if os.path.exists(ctest_log):
        with open(ctest_log, errors="replace") as f:
            for line in f:
                m = NOT_RUN.match(line)
                if m:
                    name, kind = m.groups()
                    reasons = [l.strip() for l in outputs.get(name, []) if l.startswith("skip:")]
                    why = "; ".join(reasons) or "no reason printed"
                    found.append(f"{preset}: {name} ({kind}): {why}")
    for name, lines in outputs.items():
        where = []  # brief mode names no case: the places GTEST_SKIP ran, and why
        for i, l in enumerate(lines):
            m = SKIPPED_AT.match(l)
            if m:
                why = lines[i + 1].strip() if i + 1 < len(lines) else ""
                where.append(f"{m.group(1)}: {why}" if why and not why.startswith("[") else m.group(1))
            m = GTEST_SKIP.match(l)
            if m:
                found.append(f"{preset}: {name}: GoogleTest case {m.group(1)} skipped")
            m = GTEST_BRIEF_SKIP.match(l)
            if m:
                at = f" ({'; '.join(where)})" if where else ""
                found.append(f"{preset}: {name}: {m.group(1)} GoogleTest case(s) skipped{at}")
    return found


def main():
    found = [s for build in sys.argv[1:] for s in skips(build)]
    for s in found:
        print(s)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
