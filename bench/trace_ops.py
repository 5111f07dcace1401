#!/usr/bin/env python3
"""Sums a LibTorch profiler Chrome trace (bench-model with RPSUM_BENCH_TRACE=FILE) by op.

Self time is an op's duration minus the ops nested directly inside it on the same thread, so
the column adds up to the traced forward. Prints the ops that take the most self time.
   trace_ops.py TRACE.json [--top 25]
"""
import argparse
import collections
import json


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    with open(args.trace) as f:
        events = [e for e in json.load(f) if e.get("ph") == "X"]
    by_thread = collections.defaultdict(list)
    for e in events:
        by_thread[e["tid"]].append(e)
    self_us = collections.Counter()
    total_us = collections.Counter()
    calls = collections.Counter()
    for evs in by_thread.values():
        evs.sort(key=lambda e: (e["ts"], -e["dur"]))
        open_events = []
        # Events sorted by start (longest first on ties) nest like a call stack: an event's
        # parent is the innermost open event that has not ended when it starts.
        for e in evs:
            ts, dur = e["ts"], e["dur"]
            while open_events and open_events[-1]["ts"] + open_events[-1]["dur"] <= ts:
                open_events.pop()
            if open_events:
                open_events[-1]["_child"] = open_events[-1].get("_child", 0.0) + dur
            e["_child"] = 0.0
            open_events.append(e)
        for e in evs:
            self_us[e["name"]] += e["dur"] - e["_child"]
            total_us[e["name"]] += e["dur"]
            calls[e["name"]] += 1
    total_self = sum(self_us.values())
    print(f"traced forward: {total_self / 1000:.1f} ms of self time over {len(events)} events")
    print(f"{'op':40s} {'calls':>6s} {'self ms':>8s} {'share':>6s} {'incl ms':>8s}")
    for name, us in self_us.most_common(args.top):
        print(f"{name:40s} {calls[name]:6d} {us / 1000:8.1f} {100 * us / total_self:5.1f}% "
              f"{total_us[name] / 1000:8.1f}")


if __name__ == "__main__":
    main()
