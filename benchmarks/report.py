#!/usr/bin/env python3
"""report.py -- turns Google Benchmark JSON from the B1-B5 programs into the README's ratio table.

Usage: for b in build/bench/benchmarks/bench_b*; do $b --benchmark_format=json > $(basename $b).json; done
       python3 benchmarks/report.py bench_*.json
Names follow <case>/<variant>/<size>; ratios pair variants of the same case and size, all
measured in the same run (CPU time), so machine noise largely cancels.
"""
import json
import sys
from collections import defaultdict


def main(paths):
    times = defaultdict(dict)  # (case, size) -> variant -> cpu ns
    for path in paths:
        with open(path) as f:
            for b in json.load(f)["benchmarks"]:
                parts = b["name"].split("/")
                if len(parts) != 3:
                    continue
                case, variant, size = parts
                times[(case, int(size))][variant] = b["cpu_time"] * {"ns": 1, "us": 1e3, "ms": 1e6}[b["time_unit"]]

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


if __name__ == "__main__":
    main(sys.argv[1:])
