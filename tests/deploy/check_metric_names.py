#!/usr/bin/env python3
"""Checks that every metric the deploy assets name is one a live rpsum-server exports.

usage: check_metric_names.py METRICS_TXT FILE...

METRICS_TXT is a scrape of /metrics (Prometheus text format). The FILEs (alert rules, HPA and
adapter config, Grafana dashboard) are searched for rpsum_* and process_* names; histogram
names count with their _bucket, _sum and _count series. Exits 1 naming each unknown metric and
where it is used, or when the files name no metric at all (a check of nothing is no check).
Standard library only.
"""
import re
import sys

NAME = re.compile(r"\b((?:rpsum|process)_[a-z0-9_]+)\b")


def exported(scrape: str) -> set:
    names = set()
    for line in scrape.splitlines():
        m = re.match(r"# TYPE (\S+) (\S+)", line)
        if m:
            name, kind = m.groups()
            names.add(name)
            if kind in ("histogram", "summary"):
                names.update({name + "_bucket", name + "_sum", name + "_count"})
        elif line and not line.startswith("#"):
            names.add(re.split(r"[{ ]", line, maxsplit=1)[0])
    return names


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        known = exported(f.read())
    used = {}
    for path in argv[2:]:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                for name in NAME.findall(line):
                    used.setdefault(name, []).append(f"{path}:{n}")
    if not used:
        print("check_metric_names: the files name no rpsum_* or process_* metric", file=sys.stderr)
        return 1
    unknown = {k: v for k, v in used.items() if k not in known}
    for name, where in sorted(unknown.items()):
        print(f"unknown metric {name} (not exported by the server), used at {', '.join(where)}")
    if unknown:
        return 1
    print(f"check_metric_names: {len(used)} metric names used, all exported by the live server")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
