#!/usr/bin/env python3
"""compile_cost.py -- what compiling code that uses fusegrad costs, against a unit that uses Eigen alone.

Usage: bash scripts/compile-cost (or python3 benchmarks/compile_cost/compile_cost.py [--runs N]
       [--cxx g++] [--flags "..."] [--include DIR ...] [--units NAME,...] [--simd-math auto|on|off]
       [--json FILE]).
Each unit in this folder is compiled to an object file right after the Eigen-only unit, so the
two share the machine's load of that moment; a unit's ratio is the median over runs of those
pairs' user CPU time. nested.cpp.in becomes units of 30 and 100 nested tanh; --units picks some of
them, or the benchmark programs (b1_elementwise, ..., built without LibTorch). Prints a Markdown
table (and writes the figures to --json for report.py); benchmarks/results/compile-cost.md records
one run with the method.
"""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# (unit, what it is, goal as a ratio to the Eigen-only unit or None)
UNITS = (
    ("include_only", "`#include <fusegrad/fusegrad.hpp>` alone", None),
    ("small_gradient", "`value_and_grad(x * sin(x), x)`, one scalar Var", 1.3),
    ("small_gradient_static", "the same, including `<fusegrad/static.hpp>` (the static layer alone)", None),
    ("nested_30", "`value_and_grad(sum(tanh(...tanh(x))), x)`, 30 deep, a vector Var", 2.0),
    ("nested_100", "the same, 100 deep", 3.0),
    ("small_tape", "a scalar Tensor, `fg::taped(x * sin(x) + exp(x) / x)`, `backward()`", None),
)
# The benchmark programs, B1-B5 (each one translation unit), as --units may name them.
BENCH_UNITS = tuple((name, f"`benchmarks/{name}.cpp`", None) for name in
                    ("b1_elementwise", "b2_linear_regression", "b3_normal_logpdf", "b4_scalar", "b5_mlp"))


def write_nested(directory, depth):
    with open(os.path.join(HERE, "nested.cpp.in")) as f:
        source = f.read()
    path = os.path.join(directory, f"nested_{depth}.cpp")
    with open(path, "w") as f:
        f.write(source.replace("NESTED", "fg::tanh(" * depth + "x" + ")" * depth))
    return path


def finds_xsimd(cxx, include):
    """Whether the compiler finds <xsimd/xsimd.hpp>, as CMake's FUSEGRAD_SIMD_MATH=AUTO asks."""
    probe = subprocess.run([cxx, "-std=c++20", *(f"-I{d}" for d in include), "-E", "-x", "c++", "-"],
                           input="#include <xsimd/xsimd.hpp>\n", capture_output=True, text=True)
    return probe.returncode == 0


def user_seconds(command):
    """Runs command; returns the user CPU time of it and its children (the compiler's cc1plus)."""
    before = os.times()
    result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    after = os.times()
    if result.returncode != 0:
        sys.exit(f"compile_cost.py: {shlex.join(command)} failed:\n{result.stderr}")
    return after.children_user - before.children_user


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cxx", default=os.environ.get("CXX", "g++"))
    parser.add_argument("--flags", default="-std=c++20 -O3 -march=native")
    parser.add_argument("--include", action="append", help="an include directory (default: this project's "
                        "include/ and /usr/include/eigen3; giving one replaces both)")
    parser.add_argument("--units", help="comma-separated unit names (default: " +
                        ",".join(name for name, _, _ in UNITS) + "; also " +
                        ",".join(name for name, _, _ in BENCH_UNITS) + ")")
    parser.add_argument("--simd-math", choices=("auto", "on", "off"), default="auto",
                        help="FUSEGRAD_SIMD_MATH as the CMake package sets it for its users: on where the compiler "
                        "finds xsimd's headers (auto), or forced")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    args.include = args.include or [os.path.join(ROOT, "include"), "/usr/include/eigen3"]
    simd_math = args.simd_math == "on" or (args.simd_math == "auto" and finds_xsimd(args.cxx, args.include))
    known = {name: (name, what, goal) for name, what, goal in UNITS + BENCH_UNITS}
    chosen = args.units.split(",") if args.units else [name for name, _, _ in UNITS]
    unknown = [name for name in chosen if name not in known]
    if unknown:
        sys.exit(f"compile_cost.py: no unit {', '.join(unknown)}; known: {', '.join(known)}")
    units = tuple(known[name] for name in chosen)

    with tempfile.TemporaryDirectory() as work:
        sources = {name: os.path.join(HERE, f"{name}.cpp") for name, _, _ in UNITS if not name.startswith("nested")}
        sources.update({name: os.path.join(ROOT, "benchmarks", f"{name}.cpp") for name, _, _ in BENCH_UNITS})
        sources["nested_30"] = write_nested(work, 30)
        sources["nested_100"] = write_nested(work, 100)
        sources["eigen_only"] = os.path.join(HERE, "eigen_only.cpp")
        base = [args.cxx, *shlex.split(args.flags), f"-DFUSEGRAD_SIMD_MATH={int(simd_math)}",
                *(f"-I{d}" for d in args.include), "-c", "-o", os.path.join(work, "unit.o")]
        bench_names = {name for name, _, _ in BENCH_UNITS}
        bench_extra = ["-fopenmp-simd", f"-I{os.path.join(ROOT, 'benchmarks')}"]  # as benchmarks/CMakeLists.txt
        times = {name: [] for name in sources}
        ratios = {name: [] for name, _, _ in units}
        for run in range(args.runs):
            for name, _, _ in units:
                reference = user_seconds(base + [sources["eigen_only"]])
                extra = bench_extra if name in bench_names else []
                seconds = user_seconds(base + extra + [sources[name]])
                times["eigen_only"].append(reference)
                times[name].append(seconds)
                ratios[name].append(seconds / reference)
                print(f"run {run + 1}: {name} {seconds:.2f} s, Eigen only {reference:.2f} s", file=sys.stderr)

    version = subprocess.run([args.cxx, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    print(f"{version}, `{args.flags} -DFUSEGRAD_SIMD_MATH={int(simd_math)}`, {args.runs} runs; user CPU, median\n")
    print("| unit | user CPU | / Eigen only | goal |")
    print("|---|---:|---:|---:|")
    print(f"| Eigen only: `(x * x.sin()).sum()` on an `ArrayXd` | {statistics.median(times['eigen_only']):.1f} s | 1 | |")
    figures = {"compiler": version, "flags": args.flags, "simd_math": simd_math, "runs": args.runs,
               "eigen_only_seconds": statistics.median(times["eigen_only"]), "units": []}
    for name, what, goal in units:
        ratio = statistics.median(ratios[name])
        verdict = "" if goal is None else f"{goal:g} ({'met' if ratio <= goal else 'missed'})"
        print(f"| {what} | {statistics.median(times[name]):.1f} s | {ratio:.2f} | {verdict} |")
        figures["units"].append({"name": name, "what": what, "seconds": statistics.median(times[name]),
                                 "ratio": ratio, "goal": goal})
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)


if __name__ == "__main__":
    main()
