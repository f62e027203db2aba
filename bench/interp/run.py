#!/usr/bin/env python3
"""Interpreter benchmark: the same workloads in GemStone Smalltalk on the embedded
stone (through gsmcp-topaz) and in CPython, measured side by side in one run.

Usage: python3 bench/interp/run.py [--runs N] [--topaz PATH] [--only NAME,...]

Each workload is a pair NAME.gs / NAME.py computing the same checksum. The
Smalltalk side files NAME.gs in, runs the workload once to warm up and check the
checksum, then times N runs with `Time millisecondsToRun:`; the Python side does
the same with time.perf_counter. The table gives the median of each and their
ratio; the last line is the geometric mean of the ratios (below 1.0 means the
embedded stone is faster than CPython)."""

import argparse
import importlib.util
import math
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# workload -> (Smalltalk class, what it exercises)
WORKLOADS = [
    ("scheduler", "BenchSched", "object-heavy scheduling"),
    ("constraints", "BenchConstraints", "constraint solving"),
    ("recursion", "BenchRecursion", "recursion"),
    ("sieve", "BenchSieve", "loops over arrays"),
    ("queens", "BenchQueens", "backtracking over arrays"),
    ("colls", "BenchCollections", "collections"),
    ("strings", "BenchStrings", "strings"),
    ("floats", "BenchFloats", "floats"),
    ("nlr", "BenchNlr", "non-local returns"),
]


def python_side(name, runs):
    spec = importlib.util.spec_from_file_location("bench_" + name, os.path.join(HERE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = module.run()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        module.run()
        times.append((time.perf_counter() - start) * 1000.0)
    return result, times


def smalltalk_side(topaz, name, cls, runs):
    with open(os.path.join(HERE, name + ".gs")) as f:
        source = f.read()
    script = source + (
        "\nprintit\n"
        f"| b r times | b := {cls} new. r := b run.\n"
        f"times := (1 to: {runs}) collect: [:i | Time millisecondsToRun: [b run]].\n"
        "(Array with: r) , times\n%\n"
    )
    proc = subprocess.run([topaz, "-q"], input=script, capture_output=True, text=True, timeout=600)
    lines = [l for l in proc.stdout.splitlines() if l.strip()]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"gsmcp-topaz failed on {name} (exit {proc.returncode}):\n{proc.stdout}{proc.stderr}")
    numbers = [int(n) for n in re.findall(r"-?\d+", lines[-1])]
    if len(numbers) != runs + 1:
        raise RuntimeError(f"unexpected answer for {name}: {lines[-1]}")
    return numbers[0], [float(t) for t in numbers[1:]]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--topaz", default=None, help="gsmcp-topaz binary (default: build the release one)")
    parser.add_argument("--only", default=None, help="comma-separated workload names")
    args = parser.parse_args()

    topaz = args.topaz
    if topaz is None:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "gsmcp-smalltalk", "--bin", "gsmcp-topaz"],
                       cwd=ROOT, check=True)
        target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
        topaz = os.path.join(target, "release", "gsmcp-topaz")

    selected = WORKLOADS
    if args.only:
        wanted = set(args.only.split(","))
        selected = [w for w in WORKLOADS if w[0] in wanted]

    print(f"{'workload':<12} {'exercises':<26} {'gsmcp ms':>9} {'CPython ms':>11} {'ratio':>7}")
    ratios = []
    failed = False
    for name, cls, what in selected:
        py_result, py_times = python_side(name, args.runs)
        try:
            st_result, st_times = smalltalk_side(topaz, name, cls, args.runs)
        except Exception as e:  # report and go on with the other workloads
            print(f"{name:<12} {what:<26} {'failed':>9} {statistics.median(py_times):>11.1f}       -")
            print("   " + str(e).replace("\n", "\n   "), file=sys.stderr)
            failed = True
            continue
        if st_result != py_result:
            print(f"{name:<12} {what:<26} wrong checksum {st_result} (CPython {py_result})")
            failed = True
            continue
        st, py = statistics.median(st_times), statistics.median(py_times)
        ratio = st / py if py > 0 else float("inf")
        ratios.append(ratio)
        print(f"{name:<12} {what:<26} {st:>9.1f} {py:>11.1f} {ratio:>6.2f}x")
    if ratios:
        geomean = math.exp(sum(math.log(max(r, 1e-9)) for r in ratios) / len(ratios))
        print(f"geometric mean of gsmcp/CPython over {len(ratios)} workloads: {geomean:.2f}x")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
