#!/usr/bin/env bash
# Centralized benchmark: `veil train` against XGBoost 1.7 (tree_method=hist)
# with the same parameters (100 trees, depth 6, eta 0.3, lambda 1, 256 bins,
# base_score 0.5, 2 threads), on Adult and on synthetic data of 1M training
# rows x 50 features. Each tool runs 3 times per dataset; the table shows the
# medians of test AUC and training time (Veil: the report's train_seconds,
# binning included; XGBoost: xgb.train only, which builds its bin index on
# the first round).
#
# usage: bash bench/run_centralized.sh [--quick] [--runs N] [--fresh]
#   --quick   synthetic data of 200k training rows instead of 1M
#   --runs N  runs per tool and dataset (default 3)
#   --fresh   regenerate the synthetic data even if a cached copy exists
#
# Needs build/veil (with `train` and `generate`) and /usr/bin/python3 with
# python3-xgboost. Generated data and run outputs go to build/bench/ (or
# $BENCH_DIR), never into the source tree. Environment: VEIL (the binary),
# VEIL_SHARED_DIR (the shared/ folder with datasets/), BENCH_DIR.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VEIL=${VEIL:-$ROOT/build/veil}
PY=/usr/bin/python3
SHARED=${VEIL_SHARED_DIR:-$ROOT/../shared}
WORK=${BENCH_DIR:-$ROOT/build/bench}

QUICK=0
RUNS=3
FRESH=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --fresh) FRESH=1 ;;
    --runs)
      [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || {
        echo "run_centralized.sh: --runs needs a positive number" >&2
        exit 2
      }
      RUNS=$2
      shift
      ;;
    -h | --help)
      sed -n '2,21p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "run_centralized.sh: unknown argument '$1' (see --help)" >&2
      exit 2
      ;;
  esac
  shift
done

die() {
  echo "run_centralized.sh: error: $*" >&2
  exit 1
}

# Benchmark parameters, shared by both tools.
TREES=100
DEPTH=6
ETA=0.3
LAMBDA=1
MAX_BIN=256
THREADS=2
BASE_SCORE=0.5
if [[ $QUICK == 1 ]]; then
  SYN_ROWS=250000 # 200k training rows after the 20% test split
else
  SYN_ROWS=1250000 # 1M training rows
fi

[[ -x $VEIL ]] || die "$VEIL not found: build it first (cmake --build build --target veil)"
"$VEIL" train --help >/dev/null 2>&1 || die "$VEIL has no working 'train' command"
"$VEIL" generate --help >/dev/null 2>&1 || die "$VEIL has no working 'generate' command"
"$PY" -c 'import xgboost' 2>/dev/null ||
  die "$PY cannot import xgboost (apt-get install python3-xgboost)"
ADULT_TRAIN=$SHARED/datasets/adult_train.csv.gz
ADULT_TEST=$SHARED/datasets/adult_test.csv.gz
[[ -r $ADULT_TRAIN && -r $ADULT_TEST ]] ||
  die "Adult not found in $SHARED/datasets (set VEIL_SHARED_DIR)"

mkdir -p "$WORK"
RESULTS=$WORK/results
rm -rf "$RESULTS"
mkdir -p "$RESULTS"

# --- synthetic data ----------------------------------------------------------
SYN_DIR=$WORK/synth_$SYN_ROWS
find_split() { # prints "TRAIN TEST" of the generated files, if both exist
  local pair tr te
  for pair in synth_train:synth_test synth.train:synth.test; do
    tr=$SYN_DIR/${pair%%:*}.csv.gz
    te=$SYN_DIR/${pair##*:}.csv.gz
    if [[ -s $tr && -s $te ]]; then
      echo "$tr $te"
      return 0
    fi
  done
  return 1
}
if [[ $FRESH == 1 ]] || ! find_split >/dev/null; then
  rm -rf "$SYN_DIR"
  mkdir -p "$SYN_DIR"
  echo "generating synthetic data: $SYN_ROWS rows x 50 features in $SYN_DIR" >&2
  "$VEIL" generate --kind classification --rows "$SYN_ROWS" --features 50 \
    --informative 20 --redundant 10 --seed 7 --out "$SYN_DIR/synth.csv.gz" \
    --test-fraction 0.2 >&2
else
  echo "reusing synthetic data in $SYN_DIR (--fresh regenerates it)" >&2
fi
read -r SYN_TRAIN SYN_TEST < <(find_split) ||
  die "veil generate did not write synth_train/synth_test files in $SYN_DIR: $(ls "$SYN_DIR")"

# --- runs --------------------------------------------------------------------
run_dataset() { # NAME TRAIN TEST
  local name=$1 train=$2 test=$3 dir=$RESULTS/$1 i
  mkdir -p "$dir"
  for ((i = 1; i <= RUNS; i++)); do
    echo "[$name] run $i/$RUNS: veil" >&2
    # --quiet: no progress line, hence no per-round test evaluation.
    "$VEIL" train --data "$train" --test "$test" --label label \
      --trees $TREES --depth $DEPTH --eta $ETA --lambda $LAMBDA \
      --max-bin $MAX_BIN --threads $THREADS --set base_score=$BASE_SCORE \
      --report "$dir/veil_$i.json" --quiet >"$dir/veil_$i.log" 2>&1 ||
      die "veil train failed on $name, see $dir/veil_$i.log: $(tail -n 3 "$dir/veil_$i.log")"
    echo "[$name] run $i/$RUNS: xgboost" >&2
    "$PY" "$ROOT/bench/xgboost_compare.py" --train "$train" --test "$test" \
      --trees $TREES --depth $DEPTH --eta $ETA --lambda $LAMBDA \
      --max-bin $MAX_BIN --threads $THREADS --base-score $BASE_SCORE \
      --objective binary >"$dir/xgboost_$i.json" 2>"$dir/xgboost_$i.log" ||
      die "xgboost_compare.py failed on $name, see $dir/xgboost_$i.log: $(tail -n 3 "$dir/xgboost_$i.log")"
  done
}

run_dataset adult "$ADULT_TRAIN" "$ADULT_TEST"
if [[ $QUICK == 1 ]]; then
  SYN_NAME=synthetic-200k
else
  SYN_NAME=synthetic-1M
fi
run_dataset "$SYN_NAME" "$SYN_TRAIN" "$SYN_TEST"

# --- table -------------------------------------------------------------------
CPU=$(lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -n 1)
"$PY" - "$RESULTS" "$(nproc)" "${CPU:-unknown}" adult "$SYN_NAME" <<'EOF'
import json
import statistics
import sys
from pathlib import Path

results, nproc, cpu, names = Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]


def load(path):
    with open(path) as f:
        return json.load(f)


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt(x, digits):
    return "n/a" if x is None else f"{x:.{digits}f}"


rows_out = []
summary = {}
for name in names:
    d = results / name
    veil = [load(p) for p in sorted(d.glob("veil_*.json"))]
    xgb = [load(p) for p in sorted(d.glob("xgboost_*.json"))]
    v_auc = median([r.get("metrics", {}).get("auc") for r in veil])
    x_auc = median([r.get("auc") for r in xgb])
    v_s = median([r.get("train_seconds") for r in veil])
    x_s = median([r.get("train_seconds") for r in xgb])
    rows = veil[0].get("rows") if veil else xgb[0].get("rows")
    features = veil[0].get("features") if veil else xgb[0].get("features")
    diff = None if v_auc is None or x_auc is None else v_auc - x_auc
    ratio = None if not v_s or not x_s else v_s / x_s
    summary[name] = {"rows": rows, "features": features, "veil_auc": v_auc,
                     "xgboost_auc": x_auc, "auc_diff": diff,
                     "veil_seconds": v_s, "xgboost_seconds": x_s,
                     "ratio": ratio, "runs": len(veil)}
    rows_out.append(
        f"| {name} | {rows} | {features} | {fmt(v_auc, 4)} | {fmt(x_auc, 4)} "
        f"| {'n/a' if diff is None else f'{diff:+.4f}'} | {fmt(v_s, 2)} "
        f"| {fmt(x_s, 2)} | {fmt(ratio, 2)} |")

runs = max((s["runs"] for s in summary.values()), default=0)
print(f"Machine: {cpu}, nproc {nproc}. Median of {runs} runs; 100 trees, "
      "depth 6, eta 0.3, lambda 1, 256 bins, base_score 0.5, 2 threads; "
      "XGBoost tree_method=hist.")
print()
print("| dataset | rows | features | Veil AUC | XGBoost AUC | AUC diff "
      "| Veil s | XGBoost s | ratio Veil/XGBoost |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for r in rows_out:
    print(r)
summary["machine"] = {"cpu": cpu, "nproc": int(nproc)}
with open(results / "summary.json", "w") as f:
    json.dump(summary, f, indent=2)
EOF
echo >&2
echo "run outputs and summary.json: $RESULTS" >&2
