#!/usr/bin/env python3
"""Table 3 of MaskedXGBoost's paper (spec maskedxgboost §7.5): average
training time per tree of every method Veil has, side by side, on one
stratified 80/20 split (seed 1000, as repetition 0 of
masked_reproduction.py), 60 trees of depth 6, 2 parties in one process.
Runs alternate method by method, `--runs` times; the median is reported,
with the ratio to plain's measured in the same script. Run it on an idle
machine.

usage: bench/masked_time_per_tree.py --data FILE [--veil build/veil]
         [--runs 3] [--threads 2] [--trees 60]
"""
import argparse
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from masked_reproduction import run, split  # noqa: E402

METHODS = [
    ("centralized", ["--set", "max_bin=32", "--set", "min_child_weight=0",
                     "--set", "base_score=0.5"]),
    ("plain", ["--set", "max_bin=32", "--set", "min_child_weight=0",
               "--set", "base_score=0.5"]),
    ("federboost", []),
    ("fedxgboost-ldp", ["--epsilon", "8"]),
    ("xgboost-ldp", ["--epsilon", "8"]),
    ("masked-xgboost", ["--epsilon", "8", "--set",
                        "masked.sensitivity=record"]),
    ("masked-xgboost", ["--epsilon", "8"]),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--veil", default="build/veil")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--trees", type=int, default=60)
    a = ap.parse_args()
    times = {i: [] for i in range(len(METHODS))}
    size = {}
    with tempfile.TemporaryDirectory() as work:
        train, test = split(a.data, 1000, work)
        report = os.path.join(work, "r.json")
        for _ in range(a.runs):
            for i, (method, extra) in enumerate(METHODS):
                r = run(a.veil, method, train, test, a.trees, a.threads,
                        extra, report)
                times[i].append(r["train_seconds"] / a.trees)
                size[i] = r["bytes"] / a.trees
    base = statistics.median(times[1])
    print("| method | s per tree (median of %d) | x plain | MB per tree |"
          % a.runs)
    print("|---|---:|---:|---:|")
    for i, (method, extra) in enumerate(METHODS):
        label = method + (" (record)" if "masked.sensitivity=record" in
                          " ".join(extra) else "")
        t = statistics.median(times[i])
        print(f"| {label} | {t:.4f} | {t / base:.1f} | "
              f"{size[i] / 1e6:.1f} |")


if __name__ == "__main__":
    main()
