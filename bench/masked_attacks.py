#!/usr/bin/env python3
"""MaskedXGBoost's attacks on the active party's labels (spec maskedxgboost
§7.6, paper §6.5, Figs. 6-7): `veil audit` runs the real roles up to the
first tree's root and hands the passive party's view to the exact
least-squares attack and to the paper's neural network, over the active
party's budget (epsilon at delta_AP = 1e-3, and delta_AP in {1e-4, 1e-2} at
the grid's ends), for both calibrations.

usage: bench/masked_attacks.py --data FILE --name NAME [--veil PATH]
         [--epsilons 0.5,1,2,4,6,8] [--threads 1] [--out DIR]

Writes DIR/NAME-attacks.json and prints a Markdown table.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def audit(veil, data, attack, eps, delta, sens, threads, report):
    cmd = [veil, "audit", "--data", data, "--attack", attack,
           "--epsilon", str(eps), "--delta", str(delta),
           "--set", f"masked.sensitivity={sens}",
           "--threads", str(threads), "--report", report]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stdout}{r.stderr}")
    with open(report) as f:
        return json.load(f)[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--veil", default="build/veil")
    ap.add_argument("--epsilons", default="0.5,1,2,4,6,8")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", default="bench/results")
    a = ap.parse_args()
    epsilons = [float(e) for e in a.epsilons.split(",")]
    grid = [(e, 1e-3) for e in epsilons] + \
           [(e, d) for e in (epsilons[0], epsilons[-1]) for d in (1e-4, 1e-2)]
    os.makedirs(a.out, exist_ok=True)
    rows = []
    with tempfile.TemporaryDirectory() as work:
        report = os.path.join(work, "a.json")
        for sens in ("vector", "record"):
            for eps, delta in grid:
                row = {"sensitivity": sens, "epsilon": eps, "delta": delta}
                for attack in ("least-squares", "nn"):
                    row[attack] = audit(a.veil, a.data, attack, eps, delta,
                                        sens, a.threads, report)
                rows.append(row)
                print(f"{a.name}: {sens} eps {eps:g} delta {delta:g} done",
                      file=sys.stderr)
    with open(os.path.join(a.out, f"{a.name}-attacks.json"), "w") as f:
        json.dump(rows, f)
    print("| calibration | ε_AP | δ_AP | noise sd per coordinate | "
          "least-squares: label accuracy (balanced) | network: label "
          "accuracy (balanced) | network's epochs |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        ls, nn = r["least-squares"], r["nn"]
        print(f"| {r['sensitivity']} | {r['epsilon']:g} | {r['delta']:g} | "
              f"{nn['noise_sd_per_coordinate']:,.0f} | "
              f"{ls['label_accuracy']:.3f} ({ls['balanced_accuracy']:.3f}) | "
              f"{nn['label_accuracy']:.3f} ({nn['balanced_accuracy']:.3f}) | "
              f"{nn['epochs']} |")
    print(f"\nmajority rate {rows[0]['nn']['majority_rate']:.3f}")


if __name__ == "__main__":
    main()
