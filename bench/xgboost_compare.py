#!/usr/bin/env python3
"""Train XGBoost 1.7 (tree_method=hist) with Veil's benchmark parameters and
print one JSON line with the test metric and the training time.

usage: /usr/bin/python3 bench/xgboost_compare.py --train F --test F
         [--trees 100] [--depth 6] [--eta 0.3] [--lambda 1] [--max-bin 256]
         [--threads 2] [--base-score 0.5] [--objective binary|regression]
         [--label label]

The files are CSV (optionally .gz) with a header and a label column. Empty
fields, "nan" and "NA" are missing values. Only xgb.train is timed: the
files are read and both DMatrix objects are built before the timer starts
(xgb.train still builds the hist quantile sketch and bin index on its first
round, as `veil train` counts its binning in train_seconds).

Output (one line): {"tool": "xgboost", "auc": ..., "train_seconds": ...,
"rows": ..., "test_rows": ..., "features": ..., ...}; "auc" is null and
"rmse" is set for --objective regression.
"""
import argparse
import gzip
import json
import math
import sys
import time


def fail(msg):
    print(f"xgboost_compare.py: error: {msg}", file=sys.stderr)
    sys.exit(1)


try:
    import numpy as np
    import xgboost as xgb
except ImportError as e:
    fail(f"cannot import xgboost/numpy ({e}); install python3-xgboost and "
         "run this script with /usr/bin/python3")


def open_text(path):
    if path.endswith(".gz"):
        return gzip.open(path, "rt", newline="")
    return open(path, newline="")


MISSING = {"", "nan", "NaN", "NA", "?"}


def parse_field(text):
    # numpy's loadtxt hands converters bytes unless told an encoding.
    t = (text.decode() if isinstance(text, bytes) else text).strip()
    return math.nan if t in MISSING else float(t)


def load(path, label):
    """Returns (features float32 [rows, cols], labels float32, names)."""
    try:
        with open_text(path) as f:
            header = [h.strip().strip('"') for h in f.readline().split(",")]
            if label not in header:
                fail(f"{path}: no column \"{label}\" in the header")
            try:
                # Fast path: numpy's C reader; fails on empty (missing)
                # fields.
                data = np.loadtxt(f, delimiter=",", dtype=np.float32,
                                  ndmin=2)
            except ValueError:
                data = None
        if data is None:
            with open_text(path) as f:
                f.readline()
                # Slow path: one Python call per field.
                data = np.loadtxt(f, delimiter=",", dtype=np.float32,
                                  ndmin=2, converters=parse_field)
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")
    except ValueError as e:
        fail(f"{path}: {e}")
    ncol = len(header)
    if data.shape[0] == 0:
        fail(f"{path}: no data rows")
    if data.shape[1] != ncol:
        fail(f"{path}: {data.shape[1]} columns, but the header has {ncol}")
    j = header.index(label)
    y = data[:, j].copy()
    if np.isnan(y).any():
        fail(f"{path}: the label column has missing values")
    names = [h for k, h in enumerate(header) if k != j]
    x = np.delete(data, j, axis=1)
    return x, y, names


def auc(labels, scores):
    """Area under the ROC curve (ties get half credit)."""
    y = np.asarray(labels) > 0.5
    s = np.asarray(scores, dtype=np.float64)
    pos = int(y.sum())
    neg = len(y) - pos
    if pos == 0 or neg == 0:
        return None
    order = np.argsort(s, kind="mergesort")
    s_sorted = s[order]
    n = len(s)
    starts = np.r_[0, np.flatnonzero(np.diff(s_sorted)) + 1]
    ends = np.r_[starts[1:], n]
    avg_rank = (starts + 1 + ends) / 2.0  # 1-based average rank of a tie group
    ranks = np.empty(n)
    ranks[order] = np.repeat(avg_rank, ends - starts)
    return float((ranks[y].sum() - pos * (pos + 1) / 2.0) / (pos * neg))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", required=True)
    ap.add_argument("--test", required=True)
    ap.add_argument("--label", default="label")
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--depth", type=int, default=6)
    ap.add_argument("--eta", type=float, default=0.3)
    ap.add_argument("--lambda", dest="lam", type=float, default=1.0)
    ap.add_argument("--max-bin", type=int, default=256)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--base-score", type=float, default=0.5)
    ap.add_argument("--objective", choices=["binary", "regression"],
                    default="binary")
    a = ap.parse_args()

    t = time.perf_counter()
    x, y, names = load(a.train, a.label)
    xt, yt, names_t = load(a.test, a.label)
    load_seconds = time.perf_counter() - t
    if names_t != names:
        fail(f"{a.test}: the columns differ from those of {a.train}")
    if a.objective == "binary" and not np.isin(y, [0.0, 1.0]).all():
        fail(f"{a.train}: binary labels must be 0 or 1")

    t = time.perf_counter()
    dtrain = xgb.DMatrix(x, label=y, missing=np.nan, feature_names=names,
                         nthread=a.threads)
    dtest = xgb.DMatrix(xt, label=yt, missing=np.nan, feature_names=names,
                        nthread=a.threads)
    dmatrix_seconds = time.perf_counter() - t

    params = {
        "tree_method": "hist",
        "objective": ("binary:logistic" if a.objective == "binary"
                      else "reg:squarederror"),
        "max_depth": a.depth,
        "eta": a.eta,
        "lambda": a.lam,
        "alpha": 0.0,
        "gamma": 0.0,
        "min_child_weight": 1.0,
        "max_bin": a.max_bin,
        "nthread": a.threads,
        "base_score": a.base_score,
        "subsample": 1.0,
        "colsample_bytree": 1.0,
        "grow_policy": "depthwise",
        "verbosity": 0,
    }
    t = time.perf_counter()
    try:
        bst = xgb.train(params, dtrain, num_boost_round=a.trees)
    except xgb.core.XGBoostError as e:
        fail(f"xgboost failed: {e}")
    train_seconds = time.perf_counter() - t

    pred = bst.predict(dtest)
    out = {
        "tool": "xgboost",
        "xgboost_version": xgb.__version__,
        "objective": params["objective"],
        "rows": int(x.shape[0]),
        "test_rows": int(xt.shape[0]),
        "features": int(x.shape[1]),
        "trees": a.trees,
        "depth": a.depth,
        "eta": a.eta,
        "lambda": a.lam,
        "max_bin": a.max_bin,
        "threads": a.threads,
        "base_score": a.base_score,
        "auc": None,
        "train_seconds": train_seconds,
        "load_seconds": load_seconds,
        "dmatrix_seconds": dmatrix_seconds,
    }
    if a.objective == "binary":
        out["auc"] = auc(yt, pred)
        p = np.clip(pred.astype(np.float64), 1e-15, 1 - 1e-15)
        out["logloss"] = float(-np.mean(yt * np.log(p) +
                                        (1 - yt) * np.log(1 - p)))
    else:
        out["rmse"] = float(math.sqrt(np.mean((pred.astype(np.float64) -
                                               yt) ** 2)))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
