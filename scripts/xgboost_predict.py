#!/usr/bin/env python3
"""Predict with an XGBoost JSON model (e.g. one `veil` exported).

usage: xgboost_predict.py [--predict] MODEL.json DATA.csv OUT.csv

DATA.csv has a header. The columns named in the model's feature_names are
used, in the model's order (others, such as a label column, are ignored); a
model without feature names uses every column except `label`. Empty fields,
"nan" and "NA" are missing values.

OUT.csv gets one row per data row: by default the margins
(`output_margin=True`), one column per class for multi-class models
(margin_0, margin_1, ...) or a single column `margin`; with --predict, the
output of `Booster.predict()` (probability, value or class) in a column
`prediction`. Numbers are written with 9 significant digits, which identify
a float32 exactly.

Needs xgboost (Debian: python3-xgboost, run with /usr/bin/python3). Exits
with status 1 and a message on stderr on any error.
"""
import argparse
import csv
import gzip
import math
import sys


def fail(msg):
    print(f"xgboost_predict.py: error: {msg}", file=sys.stderr)
    sys.exit(1)


def open_text(path):
    if path.endswith(".gz"):
        return gzip.open(path, "rt", newline="")
    return open(path, newline="")


MISSING = {"", "nan", "NaN", "NAN", "NA", "na", "?"}


def read_csv(path):
    try:
        with open_text(path) as f:
            reader = csv.reader(f)
            header = next(reader, None)
            if header is None:
                fail(f"{path}: the file is empty (expected a header line)")
            header = [h.strip() for h in header]
            rows = []
            for lineno, row in enumerate(reader, start=2):
                if not row:
                    continue
                if len(row) != len(header):
                    fail(f"{path}:{lineno}: {len(row)} fields, "
                         f"but the header has {len(header)}")
                rows.append(row)
            return header, rows
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")


def parse_value(text, path, lineno, column):
    t = text.strip()
    if t in MISSING:
        return math.nan
    try:
        return float(t)
    except ValueError:
        fail(f"{path}:{lineno}: column \"{column}\": \"{text}\" is not a number")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--predict", action="store_true",
                    help="write Booster.predict() instead of margins")
    ap.add_argument("model")
    ap.add_argument("data")
    ap.add_argument("out")
    args = ap.parse_args()

    try:
        import numpy as np
        import xgboost as xgb
    except ImportError as e:
        fail(f"cannot import xgboost/numpy ({e}); install python3-xgboost "
             "and run this script with /usr/bin/python3")

    try:
        booster = xgb.Booster(model_file=args.model)
    except xgb.core.XGBoostError as e:
        fail(f"xgboost cannot load {args.model}: {e}")

    header, rows = read_csv(args.data)
    names = booster.feature_names
    if names:
        index = {h: j for j, h in enumerate(header)}
        missing = [n for n in names if n not in index]
        if missing:
            fail(f"{args.data}: the model uses feature \"{missing[0]}\", "
                 "which the data does not have")
        cols = [index[n] for n in names]
    else:
        cols = [j for j, h in enumerate(header) if h != "label"]
        names = None

    x = np.empty((len(rows), len(cols)), dtype=np.float64)
    for i, row in enumerate(rows):
        for k, j in enumerate(cols):
            x[i, k] = parse_value(row[j], args.data, i + 2, header[j])
    # float64 -> float32 in DMatrix: exact for values written with enough
    # digits (e.g. 17 significant digits of a float32).
    try:
        dm = xgb.DMatrix(x, missing=np.nan, feature_names=names)
        if args.predict:
            out = np.asarray(booster.predict(dm))
            out_header = ["prediction"]
        else:
            out = np.asarray(booster.predict(dm, output_margin=True))
            out_header = None
    except xgb.core.XGBoostError as e:
        fail(f"xgboost cannot predict: {e}")

    if out.ndim == 1:
        out = out.reshape(-1, 1)
    if out_header is None:
        out_header = (["margin"] if out.shape[1] == 1 else
                      [f"margin_{c}" for c in range(out.shape[1])])
    if len(out_header) != out.shape[1]:
        out_header = [f"{out_header[0]}_{c}" for c in range(out.shape[1])]
    try:
        with open(args.out, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(out_header)
            for r in out:
                w.writerow(["%.9g" % float(v) for v in r])
    except OSError as e:
        fail(f"cannot write {args.out}: {e.strerror}")


if __name__ == "__main__":
    main()
