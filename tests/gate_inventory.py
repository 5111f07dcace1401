#!/usr/bin/python3
"""Writes what a gate preset could run, for tests/gate_skips.py to see what a build left out.

usage: gate_inventory.py BUILD_DIR PRESET
Writes BUILD_DIR/inventory.json: the preset's label filter (its test preset in
CMakePresets.json, inherited filters resolved), and every CTest test the build defines with its
labels and, for a GoogleTest binary (run with --gtest_brief=1, as rpsum_test registers them),
the cases it was compiled with (--gtest_list_tests). A test or case the ci build has and a
sanitizer build lacks was compiled out of that build (scripts/test lists it).
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def preset_filter(name):
    """The effective include and exclude label regexes of test preset `name`."""
    with open(os.path.join(ROOT, "CMakePresets.json")) as f:
        presets = {p["name"]: p for p in json.load(f).get("testPresets", [])}
    include, exclude, seen = None, None, set()
    while name and name not in seen:
        seen.add(name)
        p = presets.get(name, {})
        flt = p.get("filter", {})
        if include is None:
            include = flt.get("include", {}).get("label")
        if exclude is None:
            exclude = flt.get("exclude", {}).get("label")
        parents = p.get("inherits", [])
        name = parents[0] if isinstance(parents, list) and parents else parents or None
    return {"include": include or "", "exclude": exclude or ""}


def gtest_cases(test):
    """The cases a GoogleTest binary was compiled with, or None for other tests."""
    command = test.get("command") or []
    if "--gtest_brief=1" not in command:
        return None
    props = {p["name"]: p["value"] for p in test.get("properties", [])}
    env = dict(os.environ)
    for item in props.get("ENVIRONMENT", []):
        key, _, value = item.partition("=")
        env[key] = value
    try:
        r = subprocess.run([command[0], "--gtest_list_tests"], capture_output=True, text=True,
                           env=env, cwd=props.get("WORKING_DIRECTORY"), timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return [f"(could not list: {e})"]
    cases, suite = [], ""
    for line in r.stdout.splitlines():
        if not line.strip() or line.startswith("Running main()"):
            continue
        if not line.startswith(" "):
            suite = line.split("#")[0].strip()
        else:
            cases.append(suite + line.split("#")[0].strip())
    return cases


def main():
    build, preset = sys.argv[1], sys.argv[2]
    r = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"], capture_output=True,
                       text=True, check=True)
    tests = {}
    for t in json.loads(r.stdout).get("tests", []):
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        tests[t["name"]] = {"labels": props.get("LABELS", []), "cases": gtest_cases(t)}
    with open(os.path.join(build, "inventory.json"), "w") as f:
        json.dump({"preset": preset, "filter": preset_filter(preset), "tests": tests}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
