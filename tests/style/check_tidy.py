#!/usr/bin/env python3
"""clang-tidy over our translation units, every finding an error (.clang-tidy at the root).

usage: check_tidy.py BUILD_DIR [--all | --torch] [--jobs N] [FILE_REGEX]

BUILD_DIR must hold compile_commands.json and a finished ninja build: ninja's dependency log
tells which translation units include LibTorch headers. Those take about a minute each to
analyse (LibTorch's headers, not our code, dominate), so by default they are left out, and
the gate's style.tidy checks every other unit: base, the model API, preparation, the
scheduler, server, client, proto helpers, train's torch-free code and their tests. `--torch`
checks the LibTorch units of the product (the model's and train's, not tests or benchmarks:
the gate's style.tidy_torch), `--all` every unit (`scripts/tidy`). The script prints which
units it left out, and exits 1 on any finding or when clang-tidy is missing.
"""
import argparse
import concurrent.futures
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
TORCH_HEADER = re.compile(r"/(torch|ATen|c10)/")


def torch_objects(build: pathlib.Path) -> set:
    """Source files whose object depends on a LibTorch header (ninja -t deps)."""
    out = subprocess.run(["ninja", "-C", str(build), "-t", "deps"], capture_output=True,
                         text=True, check=True).stdout
    torch, source, uses_torch = set(), None, False
    for line in out.splitlines():
        if not line.startswith(" "):
            if source and uses_torch:
                torch.add(source)
            source, uses_torch = None, False
            continue
        dep = line.strip()
        if source is None:
            # The first dependency is the source file, relative to the build folder when
            # ccache rewrote paths (CCACHE_BASEDIR, as scripts/test sets it).
            source = os.path.normpath(os.path.join(build, dep))
        elif TORCH_HEADER.search(dep):
            uses_torch = True
    if source and uses_torch:
        torch.add(source)
    return torch


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--all", action="store_true", help="include the LibTorch units")
    ap.add_argument("--torch", action="store_true",
                    help="only the product's LibTorch units (no tests, no benchmarks)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("regex", nargs="?", default="")
    a = ap.parse_args()
    tidy = shutil.which("clang-tidy")
    if tidy is None:
        print("check_tidy: clang-tidy is not installed (scripts/setup installs it)")
        return 1
    build = pathlib.Path(a.build).resolve()
    commands = json.loads((build / "compile_commands.json").read_text())
    ours = sorted({c["file"] for c in commands
                   if c["file"].startswith(str(ROOT) + "/")
                   and not c["file"].startswith(str(ROOT / "build") + "/")
                   and "/build/" not in c["file"][len(str(ROOT)):]})
    if a.regex:
        ours = [f for f in ours if re.search(a.regex, f)]
    torch = set() if a.all else torch_objects(build)
    if a.torch:
        product = lambda f: not f.endswith("_test.cc") and not f.startswith(str(ROOT / "bench"))
        files = [f for f in ours if f in torch and product(f)]
        left = [f for f in ours if f in torch and not product(f)]
    else:
        files = [f for f in ours if f not in torch]
        left = [f for f in ours if f in torch]
    if not files:
        print("check_tidy: no translation units to check")
        return 1

    def run(f):
        r = subprocess.run([tidy, "-p", str(build), "--quiet", f], capture_output=True, text=True)
        return f, r.returncode, r.stdout

    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        for f, rc, out in pool.map(run, files):
            findings = [l for l in out.splitlines() if re.search(r": (warning|error): ", l)]
            if rc != 0 or findings:
                failed += 1
                print(out.rstrip())
    rel = lambda f: os.path.relpath(f, ROOT)
    print(f"check_tidy: {len(files)} translation units checked, {failed} with findings")
    if left:
        print(f"check_tidy: {len(left)} LibTorch units left out (--torch checks the product's, "
              f"--all every one): " + " ".join(rel(f) for f in left))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
