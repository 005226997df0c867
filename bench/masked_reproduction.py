#!/usr/bin/env python3
"""MaskedXGBoost's utility experiments (spec maskedxgboost §7.2-7.4, paper
Figs. 4 and 5): test AUC against the active party's budget for every method
Veil has, on one dataset, over repetitions with a fresh stratified 80/20
split each (the spec's evaluation protocol), 60 trees of depth 6, 2 parties
(the active party the first half of the columns).

usage: bench/masked_reproduction.py --data FILE --name NAME [--veil PATH]
         [--reps 10] [--epsilons 0.5,1,2,4,6,8] [--trees 60] [--threads 2]
         [--out DIR]

Writes DIR/NAME.json (every run: method, sensitivity, epsilon, rep, auc,
train seconds, bytes, per-round AUC) and prints a Markdown table of mean
and standard deviation. The noise comes from the OS (no seed); only the
splits are seeded (rep r: seed 1000 + r).
"""
import argparse
import gzip
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile


def split(path, seed, workdir):
    """A stratified 80/20 split of the CSV at `path` (label last)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        header = f.readline()
        rows = f.readlines()
    by_label = {}
    for line in rows:
        by_label.setdefault(line.rsplit(",", 1)[1].strip(), []).append(line)
    rng = random.Random(seed)
    train, test = [], []
    for label in sorted(by_label):
        group = by_label[label]
        rng.shuffle(group)
        cut = int(round(0.8 * len(group)))
        train += group[:cut]
        test += group[cut:]
    rng.shuffle(train)
    rng.shuffle(test)
    out = []
    for name, part in (("train", train), ("test", test)):
        p = os.path.join(workdir, f"{name}.csv")
        with open(p, "w") as f:
            f.write(header)
            f.writelines(part)
        out.append(p)
    return out


def run(veil, protocol, train, test, trees, threads, extra, report):
    parties = [] if protocol == "centralized" else ["--parties", "2"]
    cmd = [veil, "train", "--protocol", protocol] + parties + [
           "--data", train, "--test", test, "--trees", str(trees),
           "--threads", str(threads), "--quiet", "--report", report] + extra
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stdout}{r.stderr}")
    with open(report) as f:
        j = json.load(f)
    return {"auc": j["metrics"]["auc"], "train_seconds": j["train_seconds"],
            "bytes": j["bytes"]["total"] if "bytes" in j else 0,
            "history": [h["test"]["auc"] for h in j.get("history", [])]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--veil", default="build/veil")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--epsilons", default="0.5,1,2,4,6,8")
    ap.add_argument("--trees", type=int, default=60)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default="bench/results")
    ap.add_argument("--methods", default="all",
                    help="all, or a comma list of plain, masked-xgboost, "
                         "xgboost-ldp, fedxgboost-ldp, federboost")
    a = ap.parse_args()
    epsilons = [float(e) for e in a.epsilons.split(",")]
    os.makedirs(a.out, exist_ok=True)
    # plain with MaskedXGBoost's learner defaults (spec §3.6).
    plain_learner = ["--set", "max_bin=32", "--set", "min_child_weight=0",
                     "--set", "base_score=0.5"]
    methods = [("masked-xgboost", s) for s in ("vector", "record")] + \
              [("xgboost-ldp", s) for s in ("vector", "record")] + \
              [("fedxgboost-ldp", s) for s in ("vector", "record")]
    wanted = None if a.methods == "all" else set(a.methods.split(","))
    methods = [m for m in methods if wanted is None or m[0] in wanted]
    do_plain = wanted is None or "plain" in wanted
    do_federboost = wanted is None or "federboost" in wanted
    results = []
    with tempfile.TemporaryDirectory() as work:
        for rep in range(a.reps):
            train, test = split(a.data, 1000 + rep, work)
            report = os.path.join(work, "r.json")
            if do_plain:
                r = run(a.veil, "plain", train, test, a.trees, a.threads,
                        plain_learner, report)
                results.append({"method": "plain", "sensitivity": "-",
                                "epsilon": None, "rep": rep, **r})
            if do_federboost:  # flat in the active party's budget
                r = run(a.veil, "federboost", train, test, a.trees,
                        a.threads, [], report)
                results.append({"method": "federboost", "sensitivity": "-",
                                "epsilon": None, "rep": rep, **r})
            for method, sens in methods:
                for eps in epsilons:
                    r = run(a.veil, method, train, test, a.trees, a.threads,
                            ["--epsilon", str(eps), "--set",
                             f"masked.sensitivity={sens}"], report)
                    results.append({"method": method, "sensitivity": sens,
                                    "epsilon": eps, "rep": rep, **r})
            print(f"{a.name}: repetition {rep + 1}/{a.reps} done",
                  file=sys.stderr)
    with open(os.path.join(a.out, f"{a.name}.json"), "w") as f:
        json.dump(results, f)

    def cell(rows):
        aucs = [r["auc"] for r in rows]
        sd = statistics.stdev(aucs) if len(aucs) > 1 else 0.0
        return f"{statistics.mean(aucs):.4f} ± {sd:.4f}"

    print(f"| method | neighbours | " +
          " | ".join(f"ε_AP = {e:g}" for e in epsilons) + " |")
    print("|---|---|" + "---|" * len(epsilons))
    for flat, label in (("plain", "plain (no protection)"),
                        ("federboost", "federboost (ε_PP = 1)")):
        rows = [r for r in results if r["method"] == flat]
        if rows:
            print(f"| {label} | - | " +
                  " | ".join(cell(rows) for _ in epsilons) + " |")
    for method, sens in methods:
        row = [cell([r for r in results if r["method"] == method and
                     r["sensitivity"] == sens and r["epsilon"] == e])
               for e in epsilons]
        print(f"| {method} | {sens} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
