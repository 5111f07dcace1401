#!/usr/bin/env python3
"""A clone of the checkout in another folder hits this one's ccache entries.

usage: check_ccache_clone.py BUILD_DIR

scripts/test sets CCACHE_BASEDIR to the checkout, so ccache hashes the paths under it relative
to the working directory. Two things defeat that, and each fails this check:
1. the checkout's path in a compile command where ccache does not rewrite it (anything but the
   include directories, the source file and the prefix map): a define that holds a path;
2. debug info without -ffile-prefix-map=<checkout>/=: ccache then hashes the working directory.
Then it compiles model/document.cc with its own command in two copies of the tree's headers
and an empty cache: the second compile must be a hit.
"""
import json
import os
import pathlib
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
# Commands allowed to name the checkout, each with its reason.
ALLOWED = {
    # The plugin's path in this build folder, for programs run from it (model/CMakeLists.txt).
    "model/tokenizer.cc": "-DRPSUM_SPM_PLUGIN_BUILD_PATH=",
}
PATH_OPTIONS = ("-I", "-isystem", "-iquote", "-idirafter")


def path_findings(commands) -> list:
    root = str(ROOT)
    findings = []
    for c in commands:
        rel = os.path.relpath(c["file"], root)
        if rel.startswith(".."):
            continue
        args = shlex.split(c["command"])
        if "-g" in args and f"-ffile-prefix-map={root}/=" not in args:
            findings.append(f"{rel}: -g without -ffile-prefix-map={root}/=")
        prev = ""
        for a in args:
            named = root in a
            ok = (not named or a == c["file"] or prev in PATH_OPTIONS or prev == "-o"
                  or a.startswith(PATH_OPTIONS) or a.startswith("-ffile-prefix-map=")
                  or (ALLOWED.get(rel) and a.startswith(ALLOWED[rel])))
            if not ok:
                findings.append(f"{rel}: {a}")
            prev = a
    return findings


def ccache_env(cache: pathlib.Path, base: pathlib.Path, config: pathlib.Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CCACHE_")}
    env.update(CCACHE_DIR=str(cache), CCACHE_BASEDIR=str(base), CCACHE_CONFIGPATH=str(config))
    return env


def clone_hits(commands, tmp: pathlib.Path) -> str:
    """Compiles model/document.cc in two copies; returns an error, or "" when the second hit."""
    entry = next((c for c in commands if c["file"] == str(ROOT / "model/document.cc")), None)
    if entry is None:
        return "model/document.cc is not in compile_commands.json"
    # The tree's own headers; build outputs, git and weights are skipped, not walked.
    headers = [h for d in ROOT.iterdir()
               if d.is_dir() and d.name not in ("build", ".git", "models", "runs")
               for h in d.rglob("*.h")]
    cache, config = tmp / "cache", tmp / "ccache.conf"
    config.write_text("")
    for i, name in enumerate(("first", "second")):
        copy = tmp / name
        for h in headers + [ROOT / "model/document.cc"]:
            dest = copy / h.relative_to(ROOT)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(h, dest)
        args = [a.replace(str(ROOT), str(copy)) for a in shlex.split(entry["command"])]
        cwd = pathlib.Path(entry["directory"].replace(str(ROOT), str(copy)))
        out = cwd / args[args.index("-o") + 1]
        out.parent.mkdir(parents=True, exist_ok=True)
        env = ccache_env(cache, copy, config)
        r = subprocess.run(["ccache"] + args, cwd=cwd, env=env, capture_output=True, text=True)
        if r.returncode != 0:
            return f"compile in {copy} failed:\n{r.stderr}"
    stats = subprocess.run(["ccache", "--print-stats"], env=env, capture_output=True, text=True,
                           check=True).stdout
    counts = dict(line.split("\t") for line in stats.splitlines() if "\t" in line)
    hits = int(counts.get("direct_cache_hit", 0)) + int(counts.get("preprocessed_cache_hit", 0))
    misses = int(counts.get("cache_miss", 0))
    if (hits, misses) != (1, 1):
        return f"two copies, one cache: {hits} hit(s), {misses} miss(es); want 1 and 1"
    return ""


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    if shutil.which("ccache") is None:
        print("check_ccache_clone: ccache is not installed (scripts/setup installs it)")
        return 1
    build = pathlib.Path(sys.argv[1]).resolve()
    commands = json.loads((build / "compile_commands.json").read_text())
    findings = path_findings(commands)
    for f in findings:
        print(f"names the checkout: {f}")
    with tempfile.TemporaryDirectory() as tmp:
        error = clone_hits(commands, pathlib.Path(tmp))
    if error:
        print(error)
    print(f"check_ccache_clone: {len(commands)} commands, {len(findings)} finding(s)"
          + ("" if not error else ", and a clone missed the cache"))
    return 1 if findings or error else 0


if __name__ == "__main__":
    sys.exit(main())
