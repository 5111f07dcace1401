#!/usr/bin/python3
"""Writes corpus and corpus-extra train and valid with each record's title as the document's
first line, a '#' heading (model/document.cc IsHeadingLine: never selected), so the network can
read the title. Test splits are not written. Usage: titlefy.py SRC_DATA_DIR DEST_DIR"""
import gzip
import json
import os
import sys


def main() -> None:
    src, dst = sys.argv[1], sys.argv[2]
    for name in ("corpus", "corpus-extra"):
        os.makedirs(f"{dst}/{name}", exist_ok=True)
        for split in ("train", "valid"):
            titled = total = 0
            with gzip.open(f"{src}/{name}/{split}.jsonl.gz", "rt") as f, \
                    gzip.open(f"{dst}/{name}/{split}.jsonl.gz", "wt") as g:
                for line in f:
                    record = json.loads(line)
                    total += 1
                    if record.get("title", "").strip():
                        record["document"] = "# " + record["title"].strip() + "\n\n" + record["document"]
                        titled += 1
                    g.write(json.dumps(record) + "\n")
            print(f"{name} {split}: {titled} of {total} records titled")


if __name__ == "__main__":
    main()
