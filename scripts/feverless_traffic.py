#!/usr/bin/env python3
"""FEVERLESS traffic by message category, next to the paper's Table 10.

Runs `veil train --protocol feverless-plain | feverless-ldp | feverless |
feverless-ahe` on bank_marketing (trial 0's 80 % training split of
docs/reproduction/feverless.md), 4 clients, 4 trees of depth 4, B = 10, the
paper's per-query epsilon = 2 (classical calibration), a fresh leader per
query (the default hash-chain election, and the paper's signed lottery),
Paillier 1024, and prints, per protocol, the bytes each
client SENT in each of the paper's categories (spec feverless §14.6), as
Markdown tables, then the paper's totals for comparison. Prediction traffic
is left out (the paper's tables cover training only).

usage: python3 scripts/feverless_traffic.py [--veil build/veil]
           [--data ../shared/datasets/bank_marketing.csv.gz] [--work DIR]
Standard library only; takes about a minute on 2 vCPUs (AHE dominates).
"""

import argparse
import json
import os
import subprocess
import sys

from reproduce_feverless import write_splits

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Veil message names -> the paper's categories (Table 9-11 rows).
CATEGORIES = [
    ("Missing IDs", ["query"]),
    ("Key exchange", ["key_announce"]),
    ("Label census (Veil only)", ["label_census"]),
    ("Noise leader selection", ["lead", "thresh"]),
    ("Sending noise", ["noise", "notify"]),
    ("Sending (masked / noised / encrypted) messages",
     ["masked", "plain_sums", "encrypted"]),
    ("XGBoost update", ["gain", "split"]),
]
LEFT_OUT = {"predict_query", "predict_answer", "failure"}

# The paper's Table 10 (bank marketing), totals over the 4 clients.
PAPER_TOTALS = {
    "feverless-plain": [187442604, 0, None, 0, 0, 197376, 1523770],
    "feverless-ldp": [187765122, 0, None, 0, 0, 196512, 1521772],
    "feverless": [188890320, 240, None, 47484, 15508, 190032, 1522312],
    "feverless-ahe": [186923844, 0, None, 47148, 15740, 6038016, 1522588],
}
# (label, protocol, extra settings): the default hash-chain election and
# the paper's signed lottery, whose tickets are what its Table 10 leaves out.
RUNS = [
    ("feverless-plain", "feverless-plain", []),
    ("feverless-ldp", "feverless-ldp", []),
    ("feverless", "feverless", []),
    ("feverless, signed election", "feverless",
     ["--set", "feverless.election=signed"]),
    ("feverless-ahe", "feverless-ahe", []),
]


def run(veil, train, label, protocol, extra, work):
    report = os.path.join(work, label.replace(",", "").replace(" ", "_") +
                          ".json")
    cmd = [veil, "train", "--data", train, "--protocol", protocol,
           "--parties", "4", "--trees", "4", "--depth", "4", "--seed", "0",
           "--report", report, "--quiet"]
    if protocol != "feverless-plain":
        cmd += ["--set", "feverless.sum_epsilon=2",
                "--set", "feverless.calibration=classical",
                "--set", "feverless.source_noise=false",
                "--set", "feverless.hessian_noise=true"] + extra
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    with open(report) as f:
        return json.load(f)


def table(label, protocol, report):
    parties = report["bytes"]["per_party"]
    names = sorted(parties)
    print(f"\n**{label}** ({report['queries']:,} queries, "
          f"{report['train_seconds']:.2f} s)\n")
    print("| category | " + " | ".join(names) + " | total | paper total |")
    print("|---|" + "---|" * (len(names) + 2))
    seen = set()
    for k, (label, types) in enumerate(CATEGORIES):
        seen.update(types)
        per = [sum(parties[n]["by_type"].get(t, {}).get("sent", 0)
                   for t in types) for n in names]
        paper = PAPER_TOTALS[protocol][k]
        paper_text = "–" if paper is None else f"{paper:,}"
        print(f"| {label} | " + " | ".join(f"{v:,}" for v in per) +
              f" | {sum(per):,} | {paper_text} |")
    unknown = {t for n in names for t in parties[n]["by_type"]} - seen - LEFT_OUT
    if unknown:
        sys.exit(f"feverless_traffic.py: unmapped message types {sorted(unknown)}")
    total = sum(parties[n]["by_type"].get(t, {}).get("sent", 0)
                for n in names for _, ts in CATEGORIES for t in ts)
    paper_total = sum(v for v in PAPER_TOTALS[protocol] if v)
    print(f"| **total** | | | | | **{total:,}** | {paper_total:,} |")
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--veil", default=os.path.join(ROOT, "build", "veil"))
    ap.add_argument("--data", default=os.path.join(
        ROOT, "..", "shared", "datasets", "bank_marketing.csv.gz"))
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "traffic"))
    a = ap.parse_args()
    for path in (a.veil, a.data):
        if not os.path.exists(path):
            sys.exit(f"feverless_traffic.py: {path} is missing")
    os.makedirs(a.work, exist_ok=True)
    write_splits(a.data, a.work, 1)  # trial 0, as the reproduction's
    train = os.path.join(a.work, "train0.csv")
    totals = {}
    for label, protocol, extra in RUNS:
        totals[label] = table(label, protocol,
                              run(a.veil, train, label, protocol, extra,
                                  a.work))
    base = totals["feverless-plain"]
    print("\nTotal over the baseline: " + ", ".join(
        f"{label} {100 * (t / base - 1):+.1f} %"
        for label, t in totals.items() if label != "feverless-plain"))


if __name__ == "__main__":
    main()
