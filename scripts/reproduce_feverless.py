#!/usr/bin/env python3
"""Reproduces docs/reproduction/feverless.md: Table 3 and the total budget.

Sections (--sections, comma-separated; default all):
  table3  the paper's Table 3 grid on bank_marketing: depth {2..10} x #tree
          {2..10} x {feverless-plain, feverless, feverless-ldp}, 4 clients,
          per-query epsilon = 2, delta = 1e-5, classical calibration (the
          paper's setting), per-batch election (same noise per released sum
          as per-query, see the doc's section 1), mean +- sd test accuracy
          over --trials random 80/20 splits, next to the paper's values
  total   the honest setting: --epsilon 2 --delta 1e-5 for the whole
          training with the defaults (leaf-weight clamp on), diagonal cells
          depth = #tree, FEVERLESS and LDP: accuracy and logloss next to the
          constant that predicts the training base rate
  mds     the total budget with max_delta_step off (the paper), 0.5, 1, and
          the default max(0.5, 3 / (eta #tree)): accuracy, AUC and logloss,
          cells (depth, #tree) in {(4, 4), (4, 10), (6, 10), (10, 10),
          (3, 30)}
  readme  the README's command (--trees 10 --depth 4 --epsilon 2, per-query
          election) and the constant's logloss

Trial t shuffles the rows with Python's random.Random(t) and labels are
spread over the clients by `--seed t`, as in the doc. The noise comes from
the system CSPRNG (never from --seed), so a rerun differs within the
reported standard deviations. Reports are kept in --work and reused by a
rerun (delete them to train again). Prints Markdown.

usage: python3 scripts/reproduce_feverless.py [--trials 20] [--jobs 2]
           [--sections table3,total,mds,readme] [--veil build/veil]
           [--data FILE]
           [--work DIR]
Standard library only. The full run (about 2,000 trainings) takes about
15 minutes on 2 vCPUs; --trials 2 gives a quick look.
"""

import argparse
import concurrent.futures
import gzip
import json
import math
import os
import random
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIZES = [2, 4, 6, 8, 10]
PROTOCOLS = [("feverless-plain", "Baseline"), ("feverless", "FEVERLESS"),
             ("feverless-ldp", "LDP")]
# The paper's algorithm: per-sum epsilon, its calibration, no weight clamp,
# no source draw, noise on the hessian sums too.
PAPER_SETTING = ["--set", "feverless.sum_epsilon=2", "--delta", "1e-5",
                 "--set", "feverless.calibration=classical",
                 "--set", "max_delta_step=0",
                 "--set", "feverless.source_noise=false",
                 "--set", "feverless.hessian_noise=true"]

# The paper's Table 3 (bank marketing), rows depth 2..10, columns #tree 2..10.
PAPER = {
    "feverless-plain": [[0.8887, 0.8930, 0.8926, 0.8944, 0.8962],
                        [0.9125, 0.9101, 0.9136, 0.9111, 0.9111],
                        [0.9168, 0.9143, 0.9132, 0.9150, 0.9154],
                        [0.9118, 0.9182, 0.9175, 0.9145, 0.9172],
                        [0.9117, 0.9115, 0.9108, 0.9125, 0.9152]],
    "feverless": [[0.8878, 0.8908, 0.8927, 0.8938, 0.8972],
                  [0.9051, 0.9042, 0.9050, 0.9079, 0.90588],
                  [0.9029, 0.8985, 0.9032, 0.8974, 0.8914],
                  [0.8930, 0.8869, 0.8666, 0.8699, 0.8509],
                  [0.8424, 0.8520, 0.8100, 0.8122, 0.7654]],
    "feverless-ldp": [[0.8890, 0.8923, 0.8920, 0.8939, 0.8924],
                      [0.9048, 0.9054, 0.9047, 0.9040, 0.9027],
                      [0.8983, 0.8916, 0.8865, 0.8816, 0.8769],
                      [0.8697, 0.8523, 0.8346, 0.8230, 0.8042],
                      [0.7951, 0.7561, 0.7251, 0.6891, 0.6693]],
}


def write_splits(data, work, trials):
    rows = gzip.open(data, "rt").read().splitlines()
    hdr, body = rows[0], [r for r in rows[1:] if r]
    for t in range(trials):
        train = os.path.join(work, f"train{t}.csv")
        if os.path.exists(train):
            continue
        idx = list(range(len(body)))
        random.Random(t).shuffle(idx)
        ntr = int(0.8 * len(body))
        for name, part in (("test", idx[ntr:]), ("train", idx[:ntr])):
            path = os.path.join(work, f"{name}{t}.csv")
            with open(path + ".tmp", "w") as f:
                f.write(hdr + "\n" + "\n".join(body[i] for i in part) + "\n")
            os.replace(path + ".tmp", path)


class Runner:
    def __init__(self, veil, work, jobs):
        self.veil, self.work = veil, work
        self.pool = concurrent.futures.ThreadPoolExecutor(jobs)

    def metrics(self, protocol, depth, trees, t, extra,
                election="per_batch"):
        """Submits one training; the future gives its metrics."""
        name = "_".join([protocol, str(depth), str(trees), str(t), election] +
                        [e.replace("=", "-") for e in extra if e != "--set"])
        report = os.path.join(self.work, name + ".json")

        def run():
            if not os.path.exists(report):
                cmd = [self.veil, "train",
                       "--data", os.path.join(self.work, f"train{t}.csv"),
                       "--test", os.path.join(self.work, f"test{t}.csv"),
                       "--protocol", protocol, "--parties", "4",
                       "--trees", str(trees), "--depth", str(depth),
                       "--seed", str(t), "--set",
                       f"feverless.election={election}",
                       "--report", report + ".tmp", "--quiet"] + extra
                subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
                os.replace(report + ".tmp", report)
            with open(report) as f:
                return json.load(f)["metrics"]

        return self.pool.submit(run)


def mean_sd(values):
    return statistics.mean(values), (statistics.stdev(values)
                                     if len(values) > 1 else 0.0)


def table3(run, trials):
    futures = {(p, d, n, t): run.metrics(p, d, n, t, PAPER_SETTING
                                         if p != "feverless-plain" else [])
               for p, _ in PROTOCOLS for d in SIZES for n in SIZES
               for t in range(trials)}
    grand = {}
    for p, label in PROTOCOLS:
        print(f"\n#### {label} (`{p}`)\n")
        print("| Depth \\ #tree | " + " | ".join(map(str, SIZES)) +
              " | row mean (paper) |")
        print("|---|" + "---|" * (len(SIZES) + 1))
        cells = []
        for i, d in enumerate(SIZES):
            row = []
            for j, n in enumerate(SIZES):
                acc = [futures[(p, d, n, t)].result()["accuracy"]
                       for t in range(trials)]
                m, s = mean_sd(acc)
                row.append(f"{m:.4f} ± {s:.4f} ({PAPER[p][i][j]:.4f})")
                cells.append(m)
            ours = statistics.mean(cells[-len(SIZES):])
            print(f"| {d} | " + " | ".join(row) +
                  f" | {ours:.4f} ({statistics.mean(PAPER[p][i]):.4f}) |")
        grand[p] = statistics.mean(cells)
    base = grand["feverless-plain"]
    paper_base = statistics.mean(sum(PAPER["feverless-plain"], []))
    print("\n| | " + " | ".join(label for _, label in PROTOCOLS) + " |")
    print("|---|---|---|---|")
    for who, g in (("Paper, Table 3",
                    {p: statistics.mean(sum(PAPER[p], [])) for p, _ in PROTOCOLS}),
                   (f"Ours, 4 clients, {trials} trials", grand)):
        b = paper_base if who.startswith("Paper") else base
        print(f"| {who} | " + " | ".join(
            f"{g[p]:.4f}" + ("" if p == "feverless-plain"
                             else f" ({100 * (g[p] - b):+.2f} pp)")
            for p, _ in PROTOCOLS) + " |")


def constant_logloss(work, t):
    """Test logloss of the constant that predicts the training base rate."""
    def labels(name):
        with open(os.path.join(work, f"{name}{t}.csv")) as f:
            return [float(line.rsplit(",", 1)[1])
                    for line in f.read().splitlines()[1:] if line]
    p = statistics.mean(labels("train"))
    return -statistics.mean(y * math.log(p) + (1 - y) * math.log(1 - p)
                            for y in labels("test"))


def summary(results, keys=(("accuracy", 4), ("auc", 3), ("logloss", 3))):
    cols = []
    for key, digits in keys:
        mu, s = mean_sd([r[key] for r in results])
        cols.append(f"{mu:.{digits}f} ± {s:.{digits}f}")
    return cols


def total(run, trials):
    futures = {(p, d, t): run.metrics(p, d, d, t, ["--epsilon", "2", "--delta",
                                                   "1e-5"])
               for p in ("feverless", "feverless-ldp") for d in SIZES
               for t in range(trials)}
    base = mean_sd([constant_logloss(run.work, t) for t in range(trials)])[0]
    print(f"\nConstant (training base rate): test logloss {base:.3f}.\n")
    print("| depth = #tree | FEVERLESS accuracy | logloss | LDP accuracy | "
          "logloss |")
    print("|---|---|---|---|---|")
    for d in SIZES:
        cells = []
        for p in ("feverless", "feverless-ldp"):
            cells += summary([futures[(p, d, t)].result()
                              for t in range(trials)],
                             (("accuracy", 4), ("logloss", 3)))
        print(f"| {d} | " + " | ".join(cells) + " |")


MDS_CELLS = [(4, 4), (4, 10), (6, 10), (10, 10), (3, 30)]


def mds(run, trials):
    steps = ["0", "0.5", "1", "default"]
    futures = {(d, n, m, t): run.metrics(
        "feverless", d, n, t, ["--epsilon", "2", "--delta", "1e-5"] +
        ([] if m == "default" else ["--set", f"max_delta_step={m}"]))
        for d, n in MDS_CELLS for m in steps for t in range(trials)}
    base = mean_sd([constant_logloss(run.work, t) for t in range(trials)])[0]
    print(f"\nConstant (training base rate): test logloss {base:.3f}.\n")
    print("| depth | #tree | max_delta_step | accuracy | AUC | logloss |")
    print("|---|---|---|---|---|---|")
    for d, n in MDS_CELLS:
        for m in steps:
            label = {"0": "off (paper)", "default":
                     f"default {max(0.5, 3 / (0.3 * n)):.3g}"}.get(m, m)
            cols = summary([futures[(d, n, m, t)].result()
                            for t in range(trials)])
            print(f"| {d} | {n} | {label} | " + " | ".join(cols) + " |")


def readme(run, trials):
    futures = [run.metrics("feverless", 4, 10, t,
                           ["--epsilon", "2", "--delta", "1e-5"],
                           election="chain") for t in range(trials)]
    base = mean_sd([constant_logloss(run.work, t) for t in range(trials)])
    print("\n| command | accuracy | AUC | logloss |")
    print("|---|---|---|---|")
    print("| README: `--protocol feverless --parties 4 --trees 10 --depth 4 "
          "--epsilon 2 --delta 1e-5` | " +
          " | ".join(summary([f.result() for f in futures])) + " |")
    print(f"| constant (training base rate) | | 0.5 | "
          f"{base[0]:.3f} ± {base[1]:.3f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--sections", default="table3,total,mds,readme")
    ap.add_argument("--veil", default=os.path.join(ROOT, "build", "veil"))
    ap.add_argument("--data", default=os.path.join(
        ROOT, "..", "shared", "datasets", "bank_marketing.csv.gz"))
    ap.add_argument("--work", default=os.path.join(ROOT, "build",
                                                   "reproduce_feverless"))
    a = ap.parse_args()
    sections = a.sections.split(",")
    unknown = set(sections) - {"table3", "total", "mds", "readme"}
    if unknown or a.trials < 1 or a.jobs < 1:
        sys.exit(f"reproduce_feverless.py: bad --sections {sorted(unknown)}, "
                 "--trials or --jobs (see --help)")
    for path in (a.veil, a.data):
        if not os.path.exists(path):
            sys.exit(f"reproduce_feverless.py: {path} is missing")
    os.makedirs(a.work, exist_ok=True)
    write_splits(a.data, a.work, a.trials)
    run = Runner(a.veil, a.work, a.jobs)
    for name, fn in (("table3", table3), ("total", total), ("mds", mds),
                     ("readme", readme)):
        if name in sections:
            print(f"\n### {name} ({a.trials} trials)")
            fn(run, a.trials)


if __name__ == "__main__":
    main()
