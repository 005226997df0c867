#!/usr/bin/env python3
"""Emulated links against the cost model, for docs/benchmarks.md.

Runs one `veil train` session twice, without and with
`--set net.latency_ms=L --set net.bandwidth_mbps=B`, and compares the
emulated session's time (training + prediction) with the cost model

    T0 + max over links (rounds x L + bytes / B)

where T0 is the same session's time without emulation and, per link (a pair
of parties), rounds are both parties' turns on it (runs of messages one
sends before hearing from the other) and bytes all it carried both ways,
from the emulated session's report. The protocols' rounds on different links
overlap (the active party asks every passive party at once), so the busiest
link is the critical path.

usage: python3 bench/link_cost_model.py [--veil build/veil]
           [--protocol plain] [--latency-ms 5] [--bandwidth-mbps 100]
           [--trees 20] [--depth 6] [--parties 3] [--data FILE --test FILE]
Standard library only.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(os.path.dirname(ROOT), "shared", "datasets")


def run(args, extra, report):
    cmd = [args.veil, "train", "--protocol", args.protocol, "--parties",
           str(args.parties), "--trees", str(args.trees), "--depth",
           str(args.depth), "--data", args.data, "--test", args.test,
           "--quiet", "--report", report] + extra
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("failed: " + " ".join(cmd) + "\n" + done.stdout + done.stderr)
    with open(report) as f:
        return json.load(f), done.stdout


def links(report):
    """(rounds, bytes) per unordered pair of parties."""
    pairs = {}
    for name, party in report["bytes"]["per_party"].items():
        for peer, link in party["links"].items():
            key = tuple(sorted((name, peer)))
            rounds, size = pairs.get(key, (0, 0))
            pairs[key] = (rounds + link["turns"], size + link["bytes_sent"])
    return pairs


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--veil", default=os.path.join(ROOT, "build", "veil"))
    p.add_argument("--protocol", default="plain")
    p.add_argument("--latency-ms", type=float, default=5)
    p.add_argument("--bandwidth-mbps", type=float, default=100)
    p.add_argument("--trees", type=int, default=20)
    p.add_argument("--depth", type=int, default=6)
    p.add_argument("--parties", type=int, default=3)
    p.add_argument("--data", default=os.path.join(DATA, "adult_train.csv.gz"))
    p.add_argument("--test", default=os.path.join(DATA, "adult_test.csv.gz"))
    args = p.parse_args()

    with tempfile.TemporaryDirectory() as work:
        base, _ = run(args, [], os.path.join(work, "base.json"))
        net, line = run(args, [
            "--set", f"net.latency_ms={args.latency_ms:g}",
            "--set", f"net.bandwidth_mbps={args.bandwidth_mbps:g}"
        ], os.path.join(work, "net.json"))

    t0 = base["train_seconds"] + base["predict_seconds"]
    emulated = net["train_seconds"] + net["predict_seconds"]
    latency = args.latency_ms / 1000
    bandwidth = args.bandwidth_mbps * 1e6 / 8  # bytes per second
    print(f"{args.protocol}, {args.parties} parties, {args.trees} trees of "
          f"depth {args.depth}, {os.path.basename(args.data)}; links "
          f"{args.latency_ms:g} ms, {args.bandwidth_mbps:g} Mbps\n")
    print("| link | rounds | bytes | rounds x latency s | bytes / bandwidth s "
          "| link s |")
    print("|---|---:|---:|---:|---:|---:|")
    worst = 0.0
    for (a, b), (rounds, size) in sorted(links(net).items()):
        cost = rounds * latency + size / bandwidth
        worst = max(worst, cost)
        print(f"| {a} - {b} | {rounds} | {size} | {rounds * latency:.3f} | "
              f"{size / bandwidth:.3f} | {cost:.3f} |")
    model = t0 + worst
    print(f"\nwithout emulation (T0): {t0:.3f} s; parties computed "
          f"{net['network']['compute_seconds_all_parties']:.3f} s in all")
    print(f"cost model T0 + busiest link: {model:.3f} s")
    print(f"emulated: {emulated:.3f} s ({emulated / model:.3f} x the model)")
    print(line.strip().splitlines()[-1] if line.strip() else "")


if __name__ == "__main__":
    main()
