#!/usr/bin/env python3
"""Summarises bench/ldp_boosting.sh's CSV: per learner,
mechanism and epsilon, the mean and standard deviation over the seeds of
the test error after each round (a run that stopped early keeps its last
ensemble, so its last error carries forward), as a Markdown table
(first learner, after 10) and a CSV for bench/ldp_boosting.gp.

  bench/ldp_boosting_summary.py IN.csv OUT_rounds.csv > table.md
"""
import csv
import statistics
import sys

rows = list(csv.reader(open(sys.argv[1])))[1:]
runs = {}
for r in rows:
    learner, mech, eps, seed = r[:4]
    errors = [float(x) for x in r[4:] if x]
    if not errors:
        continue
    errors += [errors[-1]] * (10 - len(errors))
    key = (learner, mech, "-" if mech == "identity" else eps)
    runs.setdefault(key, []).append((errors, len(r) - 4))

def stats(values):
    mean = statistics.mean(values)
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return mean, sd

order = {"identity": 0, "piecewise": 1, "duchi": 2, "laplace": 3}
keys = sorted(runs, key=lambda k: (k[0], order[k[1]], k[2]))
with open(sys.argv[2], "w") as out:
    out.write("learner,mechanism,epsilon,round,mean,sd\n")
    for k in keys:
        for t in range(10):
            m, s = stats([e[t] for e, _ in runs[k]])
            out.write("%s,%s,%s,%d,%.4f,%.4f\n" % (k[0], k[1], k[2], t + 1, m, s))
print("| learner | mechanism | eps | seeds | first learner | after 10 rounds | full runs |")
print("|---|---|---|---:|---:|---:|---:|")
for k in keys:
    first = stats([e[0] for e, _ in runs[k]])
    last = stats([e[9] for e, _ in runs[k]])
    full = sum(1 for _, n in runs[k] if n >= 10)
    print("| %s | %s | %s | %d | %.1f%% ± %.1f | %.1f%% ± %.1f | %d of %d |" %
          (k[0], k[1], k[2], len(runs[k]), 100 * first[0], 100 * first[1],
           100 * last[0], 100 * last[1], full, len(runs[k])))
