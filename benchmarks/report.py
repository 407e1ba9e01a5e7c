#!/usr/bin/env python3
"""report.py -- turns Google Benchmark JSON from the B1-B5 programs into the README's ratio table.

Usage: bash scripts/bench (builds, runs and prints), or by hand:
       for b in build/bench/benchmarks/bench_b*; do
         $b --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true \
            --benchmark_report_aggregates_only=true --benchmark_format=json > $(basename $b).json
       done
       python3 benchmarks/report.py bench_*.json
Names follow <case>/<variant>/<size>; ratios pair variants of the same case and size, all
measured in the same run (CPU time). On a shared machine, interleaved repetitions and their
median keep drifting load from favouring one variant; the median is used when present.
"""
import json
import sys
from collections import defaultdict


def main(paths):
    times = defaultdict(dict)  # (case, size) -> variant -> cpu ns
    from_median = set()
    for path in paths:
        with open(path) as f:
            for b in json.load(f)["benchmarks"]:
                median = b.get("run_type") == "aggregate"
                if median and b.get("aggregate_name") != "median":
                    continue
                parts = b.get("run_name", b["name"]).split("/")
                if len(parts) != 3:
                    continue
                case, variant, size = parts
                key = (case, int(size))
                if (key, variant) in from_median and not median:
                    continue
                if median:
                    from_median.add((key, variant))
                times[key][variant] = b["cpu_time"] * {"ns": 1, "us": 1e3, "ms": 1e6}[b["time_unit"]]

    def ratio(row, a, b):
        return f"{row[a] / row[b]:.2f}" if a in row and b in row else ""

    print("| case | N | hand-written | fused | tape_fused | taped | fused / hand | tape_fused / fused | taped / hand |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for (case, size), row in sorted(times.items()):
        def t(v):
            return f"{row[v] / 1e3:.2f} µs" if v in row else ""
        print(f"| {case} | {size} | {t('handwritten')} | {t('fused')} | {t('tape_fused')} | {t('taped')} | "
              f"{ratio(row, 'fused', 'handwritten')} | {ratio(row, 'tape_fused', 'fused')} | "
              f"{ratio(row, 'taped', 'handwritten')} |")
    b4 = times.get(("B4", 1), {})
    if "taped" in b4 and "tape_fused" in b4 and "handwritten" in b4:  # taped: 8 nodes, tape_fused: 1
        print(f"\nTaped per-node overhead (B4): {(b4['taped'] - b4['handwritten']) / 8:.0f} ns all-in "
              f"((taped - hand-written) / 8: also the iteration's fixed costs, zero_grad, backward set-up, "
              f"reading grads); {(b4['taped'] - b4['tape_fused']) / 7:.0f} ns per extra node "
              f"((taped - tape_fused) / 7)")


if __name__ == "__main__":
    main(sys.argv[1:])
