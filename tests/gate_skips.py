#!/usr/bin/python3
"""Lists the tests a gate run did not really run, with their reasons, for scripts/test.

usage: gate_skips.py BUILD_DIR...
For each build folder: the CTest tests that did not run (skipped by return code 77, disabled,
not run) from its ctest.log (scripts/test tees CTest's output there), each with the "skip: ..."
lines of its output in Testing/Temporary/LastTest.log; and the GoogleTest cases that a passing
binary skipped: by name ("[  SKIPPED ] Suite.Case"), or, in --gtest_brief=1 output (how CTest
runs our binaries), by count ("[  SKIPPED ] 2 tests.") with the "file:line: Skipped" lines and
messages before it. And, from each build's inventory.json (tests/gate_inventory.py), the tests
and GoogleTest cases a sanitizer build left out that its preset's labels select: compiled out
(a test the sanitizer cannot run, such as one that loads the real SentencePiece tokenizer).
Prints one line per skip, then one per test or case compiled out, or nothing.
Exit status: 1 when something was skipped, or compiled out of a build and not run by the ci
gate of the same run; 0 otherwise (compiled-out tests the ci gate ran are listed, not failed).
"""
import json
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


def inventory(build):
    path = os.path.join(build, "inventory.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def selected(labels, flt):
    """Whether a test preset's label filter selects a test with these labels (CTest: -L and
    -LE match when any label matches the regex)."""
    inc, exc = flt.get("include"), flt.get("exclude")
    if inc and not any(re.search(inc, l) for l in labels):
        return False
    return not (exc and any(re.search(exc, l) for l in labels))


def compiled_out(builds):
    """(skips, listed): what each non-ci build left out of what its preset selects, against the
    ci build's inventory; a skip when the ci gate did not run it either."""
    invs = {b: inventory(b) for b in builds}
    ci = next((i for i in invs.values() if i and i["preset"] == "ci"), None)
    failed, listed = [], []
    if ci is None:
        return failed, listed
    for inv in invs.values():
        if inv is None or inv["preset"] == "ci":
            continue
        preset, mine = inv["preset"], inv["tests"]
        for name, t in sorted(ci["tests"].items()):
            if not selected(t["labels"], inv["filter"]):
                continue
            ran = selected(t["labels"], ci["filter"])
            if name not in mine:
                line = f"{preset}: {name} (compiled out of {preset}"
                (listed if ran else failed).append(
                    line + ("; the ci gate ran it)" if ran else ", and the ci gate did not run it)"))
                continue
            theirs = mine[name].get("cases")
            for case in sorted(set(t.get("cases") or []) - set(theirs or [])):
                if theirs is None:
                    break
                listed.append(f"{preset}: {name}: GoogleTest case {case} (compiled out of "
                              f"{preset}; the ci gate ran it)")
    return failed, listed


def main():
    builds = sys.argv[1:]
    found = [s for build in builds for s in skips(build)]
    out_failed, out_listed = compiled_out(builds)
    for s in found + out_failed + out_listed:
        print(s)
    return 1 if found or out_failed else 0


if __name__ == "__main__":
    sys.exit(main())
