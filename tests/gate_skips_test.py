#!/usr/bin/python3
"""tests/gate_skips.py on logs shaped like CTest's: a skipped test is listed with its reason, a
GoogleTest skip inside a passing binary is listed, a clean run lists nothing (exit 0); and on
the real output of a GoogleTest binary (argv[1], tests/gtest_skip_probe.cc) that skips a case,
run as CTest runs ours (--gtest_brief=1) and without brief. And the tests and GoogleTest cases a
sanitizer build compiled out (its inventory.json against the ci build's): listed, failing only
when the ci gate did not run them either."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

LAST_TEST = """Start testing: Nov 30 11:09 UTC
----------------------------------------------------------
1/3 Testing: e2e.container
1/3 Test: e2e.container
Output:
----------------------------------------------------------
skip: chroot needs root
<end of output>
Test Passed.
----------------------------------------------------------

2/3 Testing: server_integration_test
Output:
----------------------------------------------------------
[  SKIPPED ] 1 test, listed below:
[  SKIPPED ] Server.EveryRpcOnTheRealModel
<end of output>
Test Passed.
----------------------------------------------------------

3/3 Testing: base_test
Output:
----------------------------------------------------------
[  PASSED  ] 7 tests.
<end of output>
Test Passed.
"""
CTEST_SKIPPED = """100% tests passed, 0 tests failed out of 3

The following tests did not run:
\t  1 - e2e.container (Skipped)
"""
CTEST_CLEAN = "100% tests passed, 0 tests failed out of 3\n"


def run(ctest_log, last_test):
    d = tempfile.mkdtemp()
    build = os.path.join(d, "ci")
    os.makedirs(os.path.join(build, "Testing", "Temporary"))
    with open(os.path.join(build, "ctest.log"), "w") as f:
        f.write(ctest_log)
    with open(os.path.join(build, "Testing", "Temporary", "LastTest.log"), "w") as f:
        f.write(last_test)
    return subprocess.run([sys.executable, os.path.join(HERE, "gate_skips.py"), build],
                          capture_output=True, text=True)


def write_build(root, preset, tests, flt):
    build = os.path.join(root, preset)
    os.makedirs(os.path.join(build, "Testing", "Temporary"))
    with open(os.path.join(build, "ctest.log"), "w") as f:
        f.write(CTEST_CLEAN)
    with open(os.path.join(build, "inventory.json"), "w") as f:
        json.dump({"preset": preset, "filter": flt, "tests": tests}, f)
    return build


def compiled_out_failures():
    """A ci and an asan build: asan lacks a model test and one case of a unit test."""
    failures = []
    ci_tests = {"a_test": {"labels": ["unit"], "cases": ["S.One", "S.Two"]},
                "b.real_tokenizer": {"labels": ["model"], "cases": None},
                "c.container": {"labels": ["e2e"], "cases": None}}
    asan_tests = {"a_test": {"labels": ["unit"], "cases": ["S.One"]}}
    asan_filter = {"include": "unit|model|integration", "exclude": "benchmark|soak|e2e"}
    for ci_filter, want_exit in (({"include": "", "exclude": "benchmark|soak"}, 0),
                                 ({"include": "", "exclude": "benchmark|soak|model"}, 1)):
        d = tempfile.mkdtemp()
        builds = [write_build(d, "ci", ci_tests, ci_filter),
                  write_build(d, "asan", asan_tests, asan_filter)]
        r = subprocess.run([sys.executable, os.path.join(HERE, "gate_skips.py")] + builds,
                           capture_output=True, text=True)
        lines = r.stdout.splitlines()
        if r.returncode != want_exit:
            failures.append(f"compiled out, ci filter {ci_filter}: exit {r.returncode}, want "
                            f"{want_exit}: {lines}")
        if not any(l.startswith("asan: b.real_tokenizer (compiled out of asan") for l in lines):
            failures.append(f"the test compiled out of asan is not listed: {lines}")
        if want_exit == 0 and "asan: a_test: GoogleTest case S.Two (compiled out of asan; the " \
                "ci gate ran it)" not in lines:
            failures.append(f"the case compiled out of asan is not listed: {lines}")
        if any("c.container" in l for l in lines):
            failures.append(f"a test asan's labels do not select is listed: {lines}")
    return failures


def main():
    failures = compiled_out_failures()
    r = run(CTEST_SKIPPED, LAST_TEST)
    lines = r.stdout.splitlines()
    if r.returncode != 1:
        failures.append(f"skips present: exit {r.returncode}, want 1")
    if "ci: e2e.container (Skipped): skip: chroot needs root" not in lines:
        failures.append(f"the CTest skip and its reason are not listed: {lines}")
    if not any("Server.EveryRpcOnTheRealModel" in l for l in lines):
        failures.append(f"the GoogleTest skip is not listed: {lines}")
    if len(sys.argv) > 1:  # real output of a binary that skips a case, brief and not
        for flags in (["--gtest_brief=1"], []):
            probe = subprocess.run([sys.argv[1]] + flags, capture_output=True, text=True)
            if probe.returncode != 0:
                failures.append(f"the probe {flags} exited {probe.returncode}")
            log = ("1/1 Testing: probe_test\nOutput:\n" + "-" * 58 + "\n" + probe.stdout +
                   "<end of output>\nTest Passed.\n")
            r = run(CTEST_CLEAN, log)
            if r.returncode != 1 or "probe_test" not in r.stdout or \
                    ("gtest_skip_probe.cc" not in r.stdout and "Probe.Skips" not in r.stdout):
                failures.append(f"a real {flags or 'non-brief'} skip is not listed: "
                                f"exit {r.returncode}, {r.stdout!r}")
    else:
        failures.append("no probe binary given (argv[1])")
    clean = LAST_TEST.replace("[  SKIPPED ]", "[  PASSED  ]")
    r = run(CTEST_CLEAN, clean)
    if r.returncode != 0 or r.stdout.strip():
        failures.append(f"clean run: exit {r.returncode}, output {r.stdout!r}")
    for f in failures:
        print("FAIL:", f)
    print("PASS: gate_skips" if not failures else f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
