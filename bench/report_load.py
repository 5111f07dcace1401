#!/usr/bin/python3
"""Turns bench-load JSON files into bench/results/load.{json,md} and PNG plots (gnuplot).

usage: report_load.py RUNS_DIR OUT_DIR
RUNS_DIR holds run-*.json and compare-*.json from bench/run-load; OUT_DIR gets load.json,
load.md, latency_vs_concurrency.png, throughput_vs_concurrency.png and, when OUT_DIR has
model.json (bench-model), time_vs_length.png. Standard library and gnuplot only.
"""
import glob
import json
import os
import subprocess
import sys



def ms(v):
    """A latency in ms, or '-' where the run had too few samples for that percentile."""
    return "-" if v is None else f"{v:.0f}"


def ratio(a, b):
    return "-" if a is None or b is None else f"{a / b:.3g}"

def main(runs_dir, out_dir):
    runs = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(runs_dir, "run-*.json")),
                                               key=lambda p: int(p.split("-")[-1][:-5]))]
    compares = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(runs_dir, "compare-*.json")))]
    machine_file = os.path.join(runs_dir, "machine.json")
    machine = json.load(open(machine_file)) if os.path.exists(machine_file) else None
    with open(os.path.join(out_dir, "load.json"), "w") as f:
        json.dump({"machine": machine, "runs": runs, "compare": compares}, f, indent=1)

    by = {(r["label"], r.get("concurrency", 0)): r for r in runs if r["mode"] == "closed"}
    md = []
    if machine:
        e = machine["eager"]
        md += [f"Machine: {machine['cpu']}, {machine['cores']} cores, AVX-512 "
               f"{'yes' if machine['avx512'] else 'no'}, {machine['date']}. PyTorch {e['torch']} "
               f"eager on {e['threads']} threads (bench/python_server/eager_probe.py): the "
               f"attention's batched product {e['attention_bmm_gflops']} GFLOP/s, a plain matrix "
               f"product {e['matmul_gflops']} GFLOP/s.", ""]
    md += ["## Serving: closed loop, same documents, one server at a time", "",
          "| server | concurrency | docs/s | tokens/s | p50 ms | p90 ms | p99 ms | mean batch | errors |",
          "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in runs:
        if r["mode"] not in ("closed", "open") or r["label"] == "rpsum-200w":
            continue
        lat = r["latency_ms"]
        errors = {k: v for k, v in r["codes"].items() if k != "OK"}
        conc = r["concurrency"] if r["mode"] == "closed" else f"open {r['rate']}/s"
        md.append(f"| {r['label']} | {conc} | {r['docs_per_s']:.2f} | {r['tokens_per_s']:.0f} | "
                  f"{ms(lat['p50'])} | {ms(lat['p90'])} | {ms(lat['p99'])} | "
                  f"{r.get('batch_size_mean', '-') if 'batch_size_mean' in r else '-'} | "
                  f"{errors or 0} |")
    md += ["", "## Ratios measured in this run", "", "| comparison | concurrency | ratio |",
           "| --- | --- | --- |"]
    for other in ("python-gather", "python-dense"):
        for c in (1, 4, 16):
            a, b = by.get(("rpsum", c)), by.get((other, c))
            if a and b:
                md.append(f"| rpsum / {other} throughput | {c} | "
                          f"{a['docs_per_s'] / b['docs_per_s']:.2f}x |")
                md.append(f"| rpsum / {other} p90 latency | {c} | "
                          f"{ratio(a['latency_ms']['p90'], b['latency_ms']['p90'])} |")
                md.append(f"| rpsum / {other} p99 latency | {c} | "
                          f"{ratio(a['latency_ms']['p99'], b['latency_ms']['p99'])} |")
    on, off = by.get(("rpsum-batch8", 16)), by.get(("rpsum", 16))
    if on and off:
        md.append(f"| batching on (8) / off (the CPU default) throughput | 16 | "
                  f"{on['docs_per_s'] / off['docs_per_s']:.2f}x |")
        md.append(f"| batching on (8) / off p90 latency | 16 | "
                  f"{ratio(on['latency_ms']['p90'], off['latency_ms']['p90'])} |")
        md.append(f"| batching on (8) / off p99 latency | 16 | "
                  f"{ratio(on['latency_ms']['p99'], off['latency_ms']['p99'])} |")
    small = [r for r in runs if r["label"] == "rpsum-200w"]
    if small:
        r = small[0]
        md += ["", "## Server overhead, 200-word document (closed loop, concurrency 1)", "",
               f"{r['ok']} requests: end-to-end p50 {r['latency_ms']['p50']:.2f} ms, model "
               f"(server stage timing) p50 {r['model_ms_p50']:.2f} ms, end-to-end minus model "
               f"p50 {r['latency_minus_model_ms_p50']:.2f} ms, server total p50 "
               f"{r['server_total_ms_p50']:.2f} ms."]
    if compares:
        md += ["", "## Same outputs", ""]
        for c in compares:
            md.append(f"- {c['label']}: {c['same_selection']} of {c['compared']} documents select "
                      f"the same sentences ({c['different_selection']} differ, {c['failed']} "
                      f"failed); largest score difference {c['max_score_diff_when_same']:.2g}.")
    with open(os.path.join(out_dir, "load.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))

    # Plots.
    labels = [l for l in ("rpsum", "python-gather", "python-dense") if (l, 1) in by]
    dat = os.path.join(runs_dir, "conc.dat")
    with open(dat, "w") as f:
        for label in labels:
            f.write(f'"{label}"\n')
            for c in (1, 4, 16):
                r = by.get((label, c))
                if r:
                    p99 = r['latency_ms']['p99']
                    f.write(f"{c} {r['docs_per_s']} {r['latency_ms']['p50']} "
                            f"{'NaN' if p99 is None else p99}\n")
            f.write("\n\n")
    plots = [("throughput_vs_concurrency.png", "documents / s", "2", "Throughput vs concurrency"),
             ("latency_vs_concurrency.png", "latency ms (p50 solid, p99 dashed)", "3",
              "Latency vs concurrency")]
    for name, ylabel, col, title in plots:
        series = []
        for i, label in enumerate(labels):
            series.append(f"'{dat}' index {i} using 1:{col} with linespoints lw 2 lc {i + 1} title '{label}'")
            if col == "3":
                series.append(f"'{dat}' index {i} using 1:4 with linespoints lw 2 dt 2 lc {i + 1} "
                              f"title '{label} p99'")
        gnuplot(f"""set terminal pngcairo size 800,500
set output '{os.path.join(out_dir, name)}'
set title '{title} (closed loop, 2-core machine)'
set xlabel 'concurrent clients'; set ylabel '{ylabel}'
set logscale x 2; set xtics (1, 4, 16); set key left top; set grid
{'set logscale y' if col == '3' else ''}
plot {', '.join(series)}
""")
    model_json = os.path.join(out_dir, "model.json")
    if os.path.exists(model_json):
        m = json.load(open(model_json))
        mdat = os.path.join(runs_dir, "model.dat")
        with open(mdat, "w") as f:
            for kind, k in (("local", 16), ("full", 16), ("local", 256)):
                f.write(f'"{kind} k={k}"\n')
                for c in sorted(m["cases"].values(), key=lambda c: c["tokens"]):
                    if c["attention"] == kind and c["k"] == k:
                        f.write(f"{c['tokens']} {c['seconds'] * 1000}\n")
                f.write("\n\n")
        gnuplot(f"""set terminal pngcairo size 800,500
set output '{os.path.join(out_dir, "time_vs_length.png")}'
set title 'Model forward time vs length (exponent past 1k tokens: {m.get("exponent_local_2k_32k", 0):.2f})'
set xlabel 'tokens'; set ylabel 'ms'; set logscale xy; set grid; set key left top
plot '{mdat}' index 0 using 1:2 with linespoints lw 2 title 'block-local, k=16 (served)', \\
     '{mdat}' index 1 using 1:2 with linespoints lw 2 title 'full attention, k=16', \\
     '{mdat}' index 2 using 1:2 with points pt 7 ps 1.5 title 'block-local, k=256'
""")


def gnuplot(script):
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"report_load: no plot ({e}); install gnuplot-nox", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
