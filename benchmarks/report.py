#!/usr/bin/env python3
"""report.py -- turns Google Benchmark JSON from the B1-B5 and einsum programs into the README's ratio table.

Usage: bash scripts/bench (builds, runs and prints), or by hand:
       python3 benchmarks/report.py RUN_DIR... (each holding one run's bench_*.json)
       python3 benchmarks/report.py FILE.json... (all one run)
Names follow <case>/<variant>/<size>. Within a run, a variant's time is the median of its
interleaved repetitions (CPU time; B4's per-node figure also from the fastest), and every
ratio pairs variants of that run; each cell of the table is the median over runs, so one run
disturbed by load on a shared machine does not decide a ratio.
"""
import json
import os
import statistics
import sys
from collections import defaultdict

VARIANTS = ("handwritten", "fused", "tape_fused", "taped", "libtorch")
RATIOS = (("fused", "handwritten"), ("tape_fused", "fused"), ("taped", "handwritten"), ("libtorch", "taped"),
          ("libtorch", "fused"))


def read_run(paths, statistic="median"):
    """(case, size) -> variant -> CPU ns, for one run's JSON files: the given aggregate of the
    repetitions ("median", or "min" where a benchmark computes it), else the single run."""
    times = defaultdict(dict)
    from_aggregate = set()
    for path in paths:
        with open(path) as f:
            for b in json.load(f)["benchmarks"]:
                aggregate = b.get("run_type") == "aggregate"
                if aggregate and b.get("aggregate_name") != statistic:
                    continue
                if not aggregate and statistic != "median":  # a single run is no fastest repetition
                    continue
                parts = b.get("run_name", b["name"]).split("/")
                if len(parts) != 3:
                    continue
                case, variant, size = parts
                key = (case, int(size))
                if (key, variant) in from_aggregate and not aggregate:
                    continue
                if aggregate:
                    from_aggregate.add((key, variant))
                times[key][variant] = b["cpu_time"] * {"ns": 1, "us": 1e3, "ms": 1e6}[b["time_unit"]]
    return times


def per_node(row):
    """B4 on scalar tensors: taped is 7 nodes (mul, sin, exp, mul, add, div, sub), tape_fused 1."""
    if all(v in row for v in ("taped", "tape_fused", "handwritten")):
        return (row["taped"] - row["handwritten"]) / 7, (row["taped"] - row["tape_fused"]) / 6
    return None


def main(args):
    def read_runs(statistic):
        runs = []
        loose = [a for a in args if not os.path.isdir(a)]
        if loose:
            runs.append(read_run(loose, statistic))
        for d in sorted(a for a in args if os.path.isdir(a)):
            files = [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(".json")]
            runs.append(read_run(files, statistic))
        return runs

    runs = read_runs("median")
    keys = sorted({k for run in runs for k in run})

    def median_of(values):
        return statistics.median(values) if values else None

    print(f"Medians over {len(runs)} run(s).\n")
    print("| case | N | hand-written | fused | tape_fused | taped | libtorch | fused / hand | tape_fused / fused "
          "| taped / hand | libtorch / taped | libtorch / fused |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for key in keys:
        rows = [run[key] for run in runs if key in run]
        time = {v: median_of([r[v] for r in rows if v in r]) for v in VARIANTS}
        ratio = {(a, b): median_of([r[a] / r[b] for r in rows if a in r and b in r]) for a, b in RATIOS}
        t = lambda v: f"{time[v] / 1e3:.2f} µs" if time[v] is not None else ""
        q = lambda p: f"{ratio[p]:.2f}" if ratio[p] is not None else ""
        print(f"| {key[0]} | {key[1]} | {t('handwritten')} | {t('fused')} | {t('tape_fused')} | {t('taped')} | "
              f"{t('libtorch') or ('not built' if key[0] in ('B1', 'B2', 'B3', 'B4', 'B5') else '')} | "
              + " | ".join(q(p) for p in RATIOS) + " |")
    # Variants outside the table (B1 fused_static, B4 fused_prebuilt), against hand-written.
    others = sorted({(key, v) for run in runs for key in run for v in run[key] if v not in VARIANTS + ("forward",)})
    cells = []
    for key, v in others:
        r = median_of([run[key][v] / run[key]["handwritten"] for run in runs
                       if v in run.get(key, {}) and "handwritten" in run[key]])
        cells.append(f"{key[0]}/{v}/{key[1]} " + (f"{r:.2f}" if r is not None else "n/a (no hand-written time)"))
    if cells:
        print("\nOther variants / hand-written: " + "; ".join(cells))
    # B4's repetitions on scalars take well under a microsecond, where a shared machine's load
    # shows most; the fastest repetition of each variant is printed beside the median (load only
    # ever adds time), each per run and as the median over runs.
    for statistic, source in (("median", runs), ("fastest", read_runs("min"))):
        nodes = [per_node(run[("B4", 1)]) for run in source if ("B4", 1) in run]
        nodes = [n for n in nodes if n]
        if not nodes:
            continue
        all_in = median_of([n[0] for n in nodes])
        extra = median_of([n[1] for n in nodes])
        print(f"\nTaped per-node overhead (B4, {statistic} repetition): {all_in:.0f} ns all-in ((taped - "
              f"hand-written) / 7: also the iteration's fixed costs, zero_grad, backward set-up, reading grads); "
              f"{extra:.0f} ns per extra node ((taped - tape_fused) / 6); per run: "
              + ", ".join(f"{a:.0f}/{e:.0f}" for a, e in nodes))


if __name__ == "__main__":
    main(sys.argv[1:])
