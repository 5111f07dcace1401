#!/usr/bin/env python3
"""Fails when an #include crosses a layer boundary of docs/design.md, section 1.

Rules (a path prefix, the include patterns it must not use, and why):
  torch (torch/, ATen/, c10/, caffe2/) only in model/, bench/ and tests/ (the model's tests);
  model/ never sees gRPC, protobuf, Prometheus or the generated rpsum.v1 types;
  the scheduler (server/scheduler/) sees neither torch nor gRPC, protobuf, Prometheus;
  base/ depends on nothing of ours but base/;
  client/ never includes server/ or model/ code.

usage: check_layers.py [ROOT]   (default: the repository this file sits in)
Prints each violation as FILE:LINE: include -- rule, and exits 1 if there is any.
"""
import pathlib
import re
import sys

TORCH = r"(torch|ATen|c10|caffe2)/"
RPC = r"(grpc|grpcpp|grpc\+\+|google/protobuf|prometheus|rpsum/v1)/|.*\.pb\.h"

RULES = [
    # (files under, forbidden include regex, files under that are exempt, reason)
    ("", TORCH, ("model/", "bench/", "tests/"), "torch headers are allowed only in model/"),
    ("model/", RPC, (), "model/ must not include gRPC, protobuf, Prometheus or proto types"),
    ("server/scheduler/", TORCH + "|" + RPC, (), "the scheduler is torch-free and gRPC-free"),
    ("base/", r"(model|server|client|proto)/|" + TORCH + "|" + RPC, (),
     "base/ depends on nothing of ours"),
    ("client/", r"(server|model)/", (), "the client never includes server or model code"),
]
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')
SOURCES = {".h", ".hh", ".hpp", ".cc", ".cpp", ".cxx", ".cu"}


def violations(root: pathlib.Path):
    for path in sorted(root.rglob("*")):
        if path.suffix not in SOURCES or not path.is_file():
            continue
        rel = path.relative_to(root).as_posix()
        if rel.startswith(("build/", ".git/")) or "/build/" in rel:
            continue
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        for number, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            header = m.group(1)
            for under, forbidden, exempt, reason in RULES:
                if not rel.startswith(under) or rel.startswith(exempt or ("\0",)):
                    continue
                if re.match(forbidden, header):
                    yield f"{rel}:{number}: #include {header} -- {reason}"


def main(argv):
    root = pathlib.Path(argv[1] if len(argv) > 1 else pathlib.Path(__file__).resolve().parents[2])
    found = list(violations(root))
    for v in found:
        print(v)
    if found:
        print(f"check_layers: {len(found)} forbidden include(s)")
        return 1
    print("check_layers: no forbidden includes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
