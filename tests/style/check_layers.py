#!/usr/bin/env python3
"""Fails when an #include crosses a layer boundary of docs/design.md, section 1.

Rules (a path prefix, the include patterns it must not use, and why):
  torch (torch/, ATen/, c10/, caffe2/) only in model/torch/, train/, bench/ and tests/;
  model/ (model/torch/ included) never sees gRPC, protobuf, Prometheus or the generated
    rpsum.v1 types, nor train/, server/ or client/ (its tests may read the corpus: train/);
  the scheduler (server/scheduler/) sees neither torch nor gRPC, protobuf, Prometheus;
  server/ and client/ never include train/ (the server links no corpus, ROUGE or oracle);
  base/ depends on nothing of ours but base/;
  client/ never includes server/ or model/ code;
  testing/ (test doubles) holds no torch, gRPC or train/ code;
  formats/ (document formats) sees neither torch nor gRPC, protobuf, Prometheus, nor
    server/, train/ or client/;
  a header in an internal/ folder (formats/internal/, model/internal/) is included only by the
    files of the folder it belongs to (formats/, model/).

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
    ("", TORCH, ("model/torch/", "train/", "bench/", "tests/"),
     "torch headers are allowed only in model/torch/, train/, bench/ and tests/"),
    ("model/", RPC, (), "model/ must not include gRPC, protobuf, Prometheus or proto types"),
    ("model/", r"(train|server|client)/", (), "model/ never depends on train/, server/ or client/"),
    ("server/scheduler/", TORCH + "|" + RPC, (), "the scheduler is torch-free and gRPC-free"),
    ("server/", r"train/", (), "the server never links training or evaluation code (train/)"),
    ("base/", r"(model|server|client|proto|train|testing)/|" + TORCH + "|" + RPC, (),
     "base/ depends on nothing of ours"),
    ("client/", r"(server|model|train)/", (), "the client never includes server, model or train code"),
    ("testing/", r"(train|server)/|" + TORCH + "|" + RPC, (),
     "test doubles stay torch-free and gRPC-free"),
    ("formats/", r"(train|server|client)/|" + TORCH + "|" + RPC, (),
     "formats/ is torch-free and gRPC-free, below the server"),
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
            if "/internal/" in header:
                owner = header.split("/internal/")[0] + "/"
                if not rel.startswith(owner):
                    yield (f"{rel}:{number}: #include {header} -- an internal header is included "
                           f"only by the files of {owner}")
            for under, forbidden, exempt, reason in RULES:
                if not rel.startswith(under) or rel.startswith(exempt or ("\0",)):
                    continue
                if under == "model/" and path.stem.endswith("_test") and header.startswith("train/"):
                    continue  # a model test may read the corpus
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
