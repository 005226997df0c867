#!/usr/bin/python3
"""Trains XGBoost 1.7 (tree_method=hist) on a CSV and saves its JSON model.

Used by tests/apps/xgboost_trees.cpp as an independent reference: Veil's
centralized trees must equal these split for split.

usage: xgboost_reference.py DATA.csv OUT.json key=value ...
  keys: objective, num_class, max_depth, eta, lambda, gamma,
        min_child_weight, max_delta_step, max_bin, base_score, rounds
The CSV has a header; the column named "label" is the label; empty = missing.
"""
import sys

try:
    import numpy as np
    import xgboost as xgb
except ImportError as e:  # the test skips when this exits with 77
    print(f"xgboost_reference: {e}", file=sys.stderr)
    sys.exit(77)


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    data, out = sys.argv[1], sys.argv[2]
    params = dict(a.split("=", 1) for a in sys.argv[3:])
    rounds = int(params.pop("rounds", "10"))
    with open(data) as f:
        header = f.readline().strip().split(",")
    table = np.genfromtxt(data, delimiter=",", skip_header=1,
                          dtype=np.float32, filling_values=np.nan)
    table = table.reshape(-1, len(header))
    li = header.index("label")
    y = table[:, li]
    X = np.delete(table, li, axis=1)
    dm = xgb.DMatrix(X, label=y, missing=np.nan)
    p = {"tree_method": "hist", "nthread": 1}
    for k, v in params.items():
        p[k] = v if k == "objective" else float(v)
    if "num_class" in p:
        p["num_class"] = int(p["num_class"])
    for k in ("max_depth", "max_bin"):
        if k in p:
            p[k] = int(p[k])
    booster = xgb.train(p, dm, rounds)
    booster.save_model(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
