#!/usr/bin/python3
"""Reproduce OpBoost's Tables 6, 7 and 8 with `veil train --protocol opboost`.

Writes one CSV row per run to build/bench/opboost_repro.csv (--plan timing:
build/bench/opboost_timing.csv), appending; a row already in the CSV is not
run again, so an interrupted run resumes. Runs build/veil (--veil picks
another binary). Summaries: --summary prints the tables
docs/reproduction/opboost.md quotes, from the CSV alone.

    scripts/reproduce_opboost.py --plan table6 --repeats 3
    scripts/reproduce_opboost.py --plan timing --repeats 5   # Tables 7, 8
    scripts/reproduce_opboost.py --tables    # the markdown tables
    scripts/reproduce_opboost.py --summary   # every configuration

Datasets (../shared/datasets, never copied into the repository):
  adult: adult_train.csv.gz (32,561 rows) / adult_test.csv.gz (16,281);
         Party B holds age, fnlwgt, education_num, capital_gain and
         hours_per_week (the reference code's five integer columns, spec
         7.2); Party A the label and the other nine columns in plaintext.
         Metric: AUC (the reference code's "accuracy" for binary tasks).
  adult5: the same rows with only those five columns (Party A holds the
         label only), so that the model depends on desensitized data alone.
  ccpp:  ccpp.csv.gz has no test file: the first 80% of its rows (7,654)
         train, the last 20% (1,914) test, as tests/learners/boost does.
         The two files are written to a temporary folder. Party B holds
         all four features. Metric: MSE ratio = MSE_plain / MSE_private.
Hyper-parameters: T = 80, eta = 0.1, max_depth = 3 (the paper's).
Test rows are predicted non-private (pre-processed, not desensitized), as
the reference experiments do; --threads 1.
Noise comes from the OS CSPRNG (the command line offers no seeded noise,
on purpose): repeats are independent runs; the data and splits are fixed.
"""
import argparse
import csv
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "datasets")

ADULT_PLAINTEXT = ("workclass,education,marital_status,occupation,"
                   "relationship,race,sex,capital_loss,native_country")

FIELDS = ["dataset", "learner", "mechanism", "sampler", "epsilon", "theta",
          "alpha", "repeat", "metric", "value", "train_seconds",
          "bytes_party_a", "bytes_party_b", "party_b_splits", "load1"]

# (mechanism label, --set mechanism, uses theta, alpha)
TABLE6_MECHS = [("local-map", "local-map", True, None)] + [
    ("adj-map", "adj-map", True, a) for a in (0.4, 0.6, 0.8, 1, 2, 5, 10)
] + [("global-map", "global-map", False, None),
     ("piecewise", "piecewise", False, None)]
EPS_GRID = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12]


def ccpp_split(tmp):
    """First 80% / last 20% of ccpp.csv.gz as two CSV files in tmp."""
    train, test = os.path.join(tmp, "ccpp_train.csv"), os.path.join(
        tmp, "ccpp_test.csv")
    if not os.path.exists(test):
        with gzip.open(os.path.join(SHARED, "ccpp.csv.gz"), "rt") as f:
            lines = f.read().splitlines()
        header, rows = lines[0], lines[1:]
        cut = len(rows) * 4 // 5
        for path, part in ((train, rows[:cut]), (test, rows[cut:])):
            with open(path, "w") as out:
                out.write("\n".join([header] + part) + "\n")
    return train, test


ADULT_NUMERIC = ["age", "fnlwgt", "education_num", "capital_gain",
                 "hours_per_week"]


def adult_numeric(tmp):
    """adult train/test with only the five Party B columns and the label."""
    out = []
    for part in ("train", "test"):
        path = os.path.join(tmp, "adult5_%s.csv" % part)
        out.append(path)
        if os.path.exists(path):
            continue
        with gzip.open(os.path.join(SHARED, "adult_%s.csv.gz" % part),
                       "rt") as f:
            r = csv.reader(f)
            header = next(r)
            keep = [header.index(c) for c in ADULT_NUMERIC + ["label"]]
            with open(path, "w", newline="") as o:
                w = csv.writer(o)
                w.writerow(ADULT_NUMERIC + ["label"])
                for row in r:
                    w.writerow([row[i] for i in keep])
    return out


def data_args(dataset, tmp):
    if dataset == "adult5":
        train, test = adult_numeric(tmp)
        return ["--data", train, "--test", test,
                "--objective", "binary:logistic"], None
    if dataset == "adult":
        return ["--data", os.path.join(SHARED, "adult_train.csv.gz"),
                "--test", os.path.join(SHARED, "adult_test.csv.gz"),
                "--objective", "binary:logistic"], ADULT_PLAINTEXT
    train, test = ccpp_split(tmp)
    return ["--data", train, "--test", test,
            "--objective", "reg:squarederror"], None


def load1():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def run_one(veil, tmp, row):
    """Runs one configuration; fills in the measured fields of row."""
    args, plaintext = data_args(row["dataset"], tmp)
    report = os.path.join(tmp, "report.json")
    cmd = [veil, "train", "--trees", "80", "--eta", "0.1", "--depth", "3",
           "--threads", "1", "--report", report] + args
    if row["mechanism"] == "plain":
        cmd += ["--protocol", "centralized"]
    else:
        cmd += ["--protocol", "opboost", "--parties", "2",
                "--set", "opboost.learner=" + row["learner"],
                "--set", "opboost.sampler=" + row["sampler"],
                # The paper's experiments evaluate the test rows in
                # plaintext (pre-processed, not desensitized) [R].
                "--set", "opboost.prediction=non-private"]
        if plaintext:
            cmd += ["--categorical", plaintext]
        mech = row["mechanism"]
        cmd += ["--set", "opboost.mechanism=" + mech]
        if mech not in ("identity",):
            cmd += ["--epsilon", str(row["epsilon"])]
        if mech in ("local-map", "adj-map"):
            cmd += ["--set", "opboost.theta=" + str(row["theta"])]
        if mech == "adj-map":
            cmd += ["--set", "opboost.alpha=" + str(row["alpha"])]
    before = load1()
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit("failed: " + " ".join(cmd) + "\n" + res.stdout + res.stderr)
    with open(report) as f:
        j = json.load(f)
    m = j["metrics"]
    if row["dataset"].startswith("adult"):
        row["metric"], row["value"] = "auc", m["auc"]
    else:
        row["metric"] = "mse"
        row["value"] = m["mse"] if "mse" in m else m["rmse"] ** 2
    row["train_seconds"] = j.get("train_seconds", j.get("seconds", ""))
    per = j.get("bytes", {}).get("per_party", {})
    row["bytes_party_a"] = per.get("party0", {}).get("sent", "")
    row["bytes_party_b"] = per.get("party1", {}).get("sent", "")
    row["party_b_splits"] = j.get("party_b_splits", "")
    row["load1"] = max(before, load1())
    return row


def key(row):
    return tuple(str(row[k]) for k in FIELDS[:8])


def plan(name, repeats, datasets):
    rows = []

    def add(ds, learner, mech, sampler, eps, theta, alpha):
        for r in range(repeats):
            rows.append(dict(dataset=ds, learner=learner, mechanism=mech,
                             sampler=sampler, epsilon=eps, theta=theta,
                             alpha=alpha, repeat=r))

    for ds in datasets:
        if name == "table6":
            # Baselines: plain XGBoost on raw data, and the pre-processed
            # plaintext (identity mechanism on D = [1, 10]) for both
            # learners. The raw plain model is deterministic: one run.
            rows.append(dict(dataset=ds, learner="xgboost", mechanism="plain",
                             sampler="", epsilon="", theta="", alpha="",
                             repeat=0))
            for learner in ("xgboost", "gbdt"):
                add(ds, learner, "identity", "exponential", "", "", "")
            for eps in (0.08, 1.28):
                for theta in (2, 4):
                    for label, mech, uses_theta, alpha in TABLE6_MECHS:
                        if not uses_theta and theta == 4:
                            continue  # theta-free: once per epsilon
                        add(ds, "xgboost", mech, "exponential", eps,
                            theta if uses_theta else "",
                            alpha if alpha is not None else "")
        elif name == "grid":
            # Every epsilon of the reference grid, both learners, theta 4.
            for learner in ("xgboost", "gbdt"):
                for eps in EPS_GRID:
                    for mech, alpha in (("global-map", ""), ("local-map", ""),
                                        ("adj-map", 10), ("adj-map", 0.4),
                                        ("piecewise", "")):
                        add(ds, learner, mech, "exponential", eps,
                            4 if mech in ("local-map", "adj-map") else "",
                            alpha)
        elif name == "timing":
            # Tables 7 and 8: eps 0.08, theta 4, both samplers, both
            # learners (Piecewise has no sampler choice: "exponential").
            for learner in ("gbdt", "xgboost"):
                for sampler in ("discrete-laplace", "exponential"):
                    for mech, alpha in (("local-map", ""), ("global-map", ""),
                                        ("adj-map", 0.4), ("adj-map", 10),
                                        ("piecewise", "")):
                        if mech == "piecewise" and sampler == "exponential":
                            continue
                        add(ds, learner, mech, sampler, 0.08,
                            4 if mech in ("local-map", "adj-map") else "",
                            alpha)
    return rows


def read_csv(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


def summary(path):
    rows = read_csv(path)
    groups = {}
    for r in rows:
        k = (r["dataset"], r["learner"], r["mechanism"], r["sampler"],
             r["epsilon"], r["theta"], r["alpha"])
        groups.setdefault(k, []).append(r)

    def mean(rs, field):
        vals = [float(r[field]) for r in rs if r[field] != ""]
        return statistics.mean(vals) if vals else float("nan")

    def sd(rs, field):
        vals = [float(r[field]) for r in rs if r[field] != ""]
        return statistics.stdev(vals) if len(vals) > 1 else 0.0

    plain = {}
    for k, rs in groups.items():
        if k[2] == "plain":
            plain[k[0]] = mean(rs, "value")
    print("dataset,learner,mechanism,sampler,epsilon,theta,alpha,n,"
          "metric_mean,metric_sd,ratio_to_raw_plain,train_s_median,"
          "bytes_a_mean,bytes_b_mean,load1_max")
    for k in sorted(groups):
        rs = groups[k]
        v = mean(rs, "value")
        base = plain.get(k[0])
        if base is None:
            ratio = float("nan")
        elif k[0].startswith("adult"):
            ratio = v / base
        else:
            ratio = base / v  # MSE_plain / MSE_private
        ts = [float(r["train_seconds"]) for r in rs if r["train_seconds"]]
        print(",".join(str(x) for x in k) + ",%d,%.4f,%.4f,%.4f,%.3f,%.0f,"
              "%.0f,%.2f" % (len(rs), v, sd(rs, "value"), ratio,
                             statistics.median(ts) if ts else float("nan"),
                             mean(rs, "bytes_party_a"),
                             mean(rs, "bytes_party_b"),
                             max(float(r["load1"]) for r in rs)))


# The paper's numbers (spec opboost §7.6): 2-Cls (Adult) and Reg (CASP)
# columns only; we have no Pen-digits or CASP.
PAPER6 = {  # mechanism row -> {(eps, theta): (2-Cls, Reg)}
    "Local-map": [(0.9947, 0.9208), (0.9566, 0.8187), (1.0003, 0.9361),
                  (0.9602, 0.8690)],
    "Adj-map (α=0.4)": [(0.5413, 0.6388), (0.6722, 0.6348), (0.6483, 0.8136),
                        (0.6433, 0.8039)],
    "Adj-map (α=0.6)": [(0.6343, 0.6391), (0.7252, 0.6363), (0.6398, 0.8229),
                        (0.6703, 0.8123)],
    "Adj-map (α=0.8)": [(0.6689, 0.6415), (0.6553, 0.6389), (0.6656, 0.8277),
                        (0.6404, 0.8140)],
    "Global-map (α=1)": [(0.5935, 0.6394), (0.6095, 0.6380),
                         (0.6797, 0.8283), (0.6300, 0.8141)],
    "Adj-map (α=2)": [(0.7311, 0.6401), (0.6788, 0.6414), (0.6735, 0.8321),
                      (0.6533, 0.8123)],
    "Adj-map (α=5)": [(0.6751, 0.6435), (0.5870, 0.6394), (0.7188, 0.8338),
                      (0.8921, 0.8065)],
    "Adj-map (α=10)": [(0.6817, 0.6449), (0.6213, 0.6424), (0.7733, 0.8350),
                       (0.7554, 0.8051)],
    "Piecewise": [(0.5821, 0.6249), (0.5821, 0.6249), (0.7487, 0.7014),
                  (0.7487, 0.7014)],
}
ROWS6 = [("Local-map", "local-map", ""), ("Adj-map (α=0.4)", "adj-map", "0.4"),
         ("Adj-map (α=0.6)", "adj-map", "0.6"),
         ("Adj-map (α=0.8)", "adj-map", "0.8"),
         ("Global-map (α=1)", "global-map", ""),
         ("Adj-map α=1", "adj-map", "1"), ("Adj-map (α=2)", "adj-map", "2"),
         ("Adj-map (α=5)", "adj-map", "5"), ("Adj-map (α=10)", "adj-map", "10"),
         ("Piecewise", "piecewise", "")]
# Tables 7 and 8, eps 0.08, theta 4: row -> (GBDT 2-Cls, GBDT Reg,
# XGB 2-Cls, XGB Reg) for Party A bytes, Party B bytes, DLAP ms, EXP ms.
PAPER78 = {
    "Local-map": ((74, 96, 198, 385), (521849, 1318036, 522097, 1318612),
                  (1655.1, 2697.8, 951.7, 2151.1),
                  (913.8, 826.1, 218.1, 325.7)),
    "Global-map (α=1)": ((26, 165, 203, 401),
                         (521753, 1318173, 522107, 1318645),
                         (1154.4, 1556.5, 462.3, 1010.7),
                         (904.0, 838.7, 214.1, 316.8)),
    "Adj-map (α=0.4)": ((26, 178, 224, 459), (521753, 1318199, 522148,
                                               1318760),
                        (2187.3, 4070.2, 1476.9, 3481.0),
                        (952.8, 968.2, 268.4, 448.2)),
    "Adj-map (α=10)": ((26, 178, 221, 459), (521753, 1318200, 522143, 1318760),
                       (9135.1, 21504.3, 8313.3, 20584.5),
                       (953.8, 975.7, 272.5, 447.8)),
    "Piecewise": ((26, 253, 500, 2318), (521753, 1318348, 522703, 1322469),
                  (958.5, 953.1, 305.5, 495.1), None),
}
ROWS78 = [("Local-map", "local-map", ""), ("Global-map (α=1)", "global-map", ""),
          ("Adj-map (α=0.4)", "adj-map", "0.4"),
          ("Adj-map (α=10)", "adj-map", "10"), ("Piecewise", "piecewise", "")]


def groups_of(path):
    g = {}
    for r in read_csv(path):
        k = (r["dataset"], r["learner"], r["mechanism"], r["sampler"],
             r["epsilon"], r["theta"], r["alpha"])
        g.setdefault(k, []).append(r)
    return g


def values(rs, field):
    return [float(r[field]) for r in rs if r[field] != ""]


def ratio_cell(g, ds, learner, mech, eps, theta, alpha):
    """(mean ratio to the raw plain model, its standard deviation, runs)."""
    base = g.get((ds, "xgboost", "plain", "", "", "", ""))
    rs = g.get((ds, learner, mech, "exponential", eps, theta, alpha))
    if not base or not rs:
        return None
    b = statistics.mean(values(base, "value"))
    if ds.startswith("adult"):
        rat = [v / b for v in values(rs, "value")]
    else:
        rat = [b / v for v in values(rs, "value")]
    sd = statistics.stdev(rat) if len(rat) > 1 else 0.0
    return statistics.mean(rat), sd, len(rat)


def table6(path):
    g = groups_of(path)
    combos = [("0.08", "2"), ("0.08", "4"), ("1.28", "2"), ("1.28", "4")]
    for title, datasets, paper_col in (
            ("2-Cls: AUC ratio; ours Adult (9 plaintext columns at Party A) "
             "/ adult5 (Party B's five columns only) / paper", ("adult",
                                                               "adult5"), 0),
            ("Reg: MSE_plain / MSE_private; ours ccpp / paper CASP",
             ("ccpp",), 1)):
        print("\n" + title + "\n")
        print("| Method | " + " | ".join("ε=%s θ=%s" % c for c in combos) +
              " |")
        print("|---" * (1 + len(combos)) + "|")
        worst_sd, runs = 0.0, set()
        for label, mech, alpha in ROWS6:
            line = "| %s |" % label
            for i, (eps, theta) in enumerate(combos):
                th = theta if mech in ("local-map", "adj-map") else ""
                parts = []
                for ds in datasets:
                    c = ratio_cell(g, ds, "xgboost", mech, eps, th, alpha)
                    if c is None:
                        parts.append("–")
                    else:
                        parts.append("%.4f" % c[0])
                        worst_sd = max(worst_sd, c[1])
                        runs.add(c[2])
                paper = PAPER6.get(label)
                parts.append("%.4f" % paper[i][paper_col] if paper else "–")
                line += " " + " / ".join(parts) + " |"
            print(line)
        print("\nRuns per cell: %s; largest standard deviation of a cell's "
              "ratio: %.4f." % (sorted(runs), worst_sd))


def grid_table(path):
    """Mean metric over the epsilon grid (theta 4), per dataset and learner."""
    g = groups_of(path)
    for ds in ("adult", "adult5", "ccpp"):
        metric = "MSE" if ds == "ccpp" else "AUC"
        for learner in ("xgboost", "gbdt"):
            rows = [(lab, m, a) for lab, m, a in (
                ("Global-map", "global-map", ""), ("Local-map", "local-map", ""),
                ("Adj-map α=0.4", "adj-map", "0.4"),
                ("Adj-map α=10", "adj-map", "10"),
                ("Piecewise", "piecewise", ""))]
            if not any(g.get((ds, learner, m, "exponential", str(EPS_GRID[0]),
                              "4" if m in ("local-map", "adj-map") else "", a))
                       for _, m, a in rows):
                continue
            base = [("plain, raw (XGBoost)",
                     g.get((ds, "xgboost", "plain", "", "", "", ""))),
                    ("identity, D = [1, 10]",
                     g.get((ds, learner, "identity", "exponential", "", "",
                            "")))]
            print("\n%s, %s, test %s, θ = 4 (baselines: %s)\n" % (
                ds, learner, metric, "; ".join(
                    "%s %.4f" % (n, statistics.mean(values(r, "value")))
                    for n, r in base if r)))
            print("| mechanism | " + " | ".join(str(e) for e in EPS_GRID) +
                  " |")
            print("|---" * (1 + len(EPS_GRID)) + "|")
            for lab, m, a in rows:
                th = "4" if m in ("local-map", "adj-map") else ""
                cells = []
                for e in EPS_GRID:
                    rs = g.get((ds, learner, m, "exponential", str(e), th, a))
                    cells.append("%.4f" % statistics.mean(values(rs, "value"))
                                 if rs else "–")
                print("| %s | %s |" % (lab, " | ".join(cells)))


def table78(path):
    g = groups_of(path)
    cols = [("gbdt", "adult"), ("gbdt", "ccpp"), ("xgboost", "adult"),
            ("xgboost", "ccpp")]
    names = ["GBDT 2-Cls", "GBDT Reg", "XGB 2-Cls", "XGB Reg"]

    def cell(ds, learner, mech, sampler, alpha, field, fmt):
        theta = "4" if mech in ("local-map", "adj-map") else ""
        rs = g.get((ds, learner, mech, sampler, "0.08", theta, alpha))
        if not rs:
            return "–"
        v = values(rs, field)
        return fmt % (statistics.median(v) if field == "train_seconds" else
                      statistics.mean(v))

    for title, field, sampler, idx, fmt, scale in (
            ("Table 7, Party A bytes sent", "bytes_party_a", "exponential",
             0, "%.0f", 1),
            ("Table 7, Party B bytes sent", "bytes_party_b", "exponential",
             1, "%.0f", 1),
            ("Table 8, DLAP, ms (median)", "train_seconds",
             "discrete-laplace", 2, "%.1f", 1000),
            ("Table 8, EXP, ms (median)", "train_seconds", "exponential", 3,
             "%.1f", 1000)):
        print("\n" + title + " (ours / paper; 2-Cls = Adult, Reg: ours ccpp,"
              " paper CASP)\n")
        print("| Method | " + " | ".join(names) + " |")
        print("|---" * (1 + len(names)) + "|")
        for label, mech, alpha in ROWS78:
            paper = PAPER78[label][idx]
            s_ = sampler
            if mech == "piecewise":
                if idx == 3:  # no EXP variant: the paper's "–"
                    print("| %s | %s |" % (label, " | ".join(["–"] * 4)))
                    continue
                s_ = "discrete-laplace"  # one Piecewise run per setting
            out = []
            for j, (learner, ds) in enumerate(cols):
                f = fmt
                c = cell(ds, learner, mech, s_, alpha, field, "%.6f")
                if c != "–":
                    c = f % (float(c) * scale)
                out.append("%s / %s" % (c, (fmt % paper[j]) if paper else "–"))
            print("| %s | %s |" % (label, " | ".join(out)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--veil", default=os.path.join(ROOT, "build", "veil"))
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench",
                                                  "opboost_repro.csv"))
    ap.add_argument("--timing-out",
                    default=os.path.join(ROOT, "build", "bench",
                                         "opboost_timing.csv"),
                    help="the CSV of --plan timing (Tables 7 and 8)")
    ap.add_argument("--plan", choices=("table6", "grid", "timing"),
                    default="table6")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--datasets", default="adult,ccpp")
    ap.add_argument("--summary", action="store_true",
                    help="print the per-configuration means of --out")
    ap.add_argument("--tables", action="store_true",
                    help="print Tables 6, 7 and 8 (markdown) from --out")
    a = ap.parse_args()
    if a.summary:
        summary(a.out)
        return
    if a.tables:
        table6(a.out)
        grid_table(a.out)
        table78(a.timing_out)
        return
    if a.plan == "timing":
        a.out = a.timing_out  # timed alone, not mixed with accuracy runs
    if not os.access(a.veil, os.X_OK):
        sys.exit("%s not found: build it first (make), or pass --veil"
                 % a.veil)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    done = {key(r) for r in read_csv(a.out)}
    todo = [r for r in plan(a.plan, a.repeats, a.datasets.split(","))
            if key(r) not in done]
    new = not os.path.exists(a.out)
    with tempfile.TemporaryDirectory() as tmp, open(a.out, "a",
                                                    newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        if new:
            w.writeheader()
        t0 = time.time()
        for i, row in enumerate(todo):
            w.writerow(run_one(a.veil, tmp, row))
            f.flush()
            print("%d/%d %s %.0fs" % (i + 1, len(todo),
                                      " ".join(str(row[k]) for k in FIELDS[:8]),
                                      time.time() - t0), file=sys.stderr)


if __name__ == "__main__":
    main()
