#!/usr/bin/env bash
# Federated benchmark: plaintext vertical federated XGBoost (`--protocol
# plain`, 3 parties) against centralized training with the same parameters
# (100 trees, depth 6, eta 0.3, 256 bins, base_score 0.5, 2 threads), on
# Adult and on the synthetic data of 1M training rows x 50 features. Three
# runs of each: centralized; federated with all parties in one process; and
# federated with each passive party in its own `veil node` process on
# 127.0.0.1 (the active party runs in the coordinator's process). Prints the
# median train_seconds, the ratios to centralized and the bytes each party
# sent and received.
#
# usage: bash bench/run_federated.sh [--runs N] [--skip-1m-nodes]
#   --runs N          runs per setting (default 1)
#   --skip-1m-nodes   skip the multi-process run on the 1M-row data
#
# Needs build/veil. The synthetic data is build/bench/synth_1250000 (made by
# `veil generate` if missing, as in run_centralized.sh). Environment: VEIL,
# VEIL_SHARED_DIR, BENCH_DIR.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VEIL=${VEIL:-$ROOT/build/veil}
SHARED=${VEIL_SHARED_DIR:-$ROOT/../shared}
WORK=${BENCH_DIR:-$ROOT/build/bench}
RUNS=1
SKIP_1M_NODES=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) RUNS=$2; shift ;;
    --skip-1m-nodes) SKIP_1M_NODES=1 ;;
    -h | --help) sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run_federated.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
die() { echo "run_federated.sh: error: $*" >&2; exit 1; }
[[ -x $VEIL ]] || die "$VEIL is missing: build first"
OUT=$WORK/federated
mkdir -p "$OUT"
NODES=()
cleanup() { for p in "${NODES[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

SYN=$WORK/synth_1250000
if [[ ! -f $SYN/synth_train.csv.gz ]]; then
  mkdir -p "$SYN"
  "$VEIL" generate --kind classification --rows 1250000 --features 50 \
    --informative 20 --redundant 10 --seed 7 --out "$SYN/synth.csv.gz" \
    --test-fraction 0.2
fi

# session NAME TRAIN TEST SHOP INSURER COLS0 COLS1 COLS2 -> a session file
session() {
  local f=$OUT/$1.toml
  {
    printf 'protocol = "plain"\ntimeout_seconds = 300\n\n[learner]\n'
    printf 'trees = 100\nmax_depth = 6\neta = 0.3\nmax_bin = 256\n'
    printf 'base_score = 0.5\nthreads = 2\nobjective = "binary:logistic"\n\n'
    printf '[[party]]\nname = "bank"\ndata = "%s"\ntest = "%s"\nlabel = "label"\nfeatures = [%s]\n\n' "$2" "$3" "$6"
    printf '[[party]]\nname = "shop"\ndata = "%s"\ntest = "%s"\nfeatures = [%s]\nlocation = "%s"\n\n' "$2" "$3" "$7" "$4"
    printf '[[party]]\nname = "insurer"\ndata = "%s"\ntest = "%s"\nfeatures = [%s]\nlocation = "%s"\n' "$2" "$3" "$8" "$5"
  } >"$f"
  echo "$f"
}

start_node() { # -> prints the port
  local log=$OUT/node-$RANDOM.log
  "$VEIL" node --listen 127.0.0.1:0 --once --threads 2 >"$log" 2>&1 &
  NODES+=($!)
  for _ in $(seq 100); do
    grep -q "listening on" "$log" && break
    sleep 0.1
  done
  sed -n 's/.*listening on [^:]*:\([0-9]*\).*/\1/p' "$log"
}

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
field() { /usr/bin/python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$1" "$2"; }

quote() { local s=""; for c in "$@"; do s+="${s:+, }\"$c\""; done; echo "$s"; }

bench() { # NAME TRAIN TEST COLS0 COLS1 COLS2 SKIP_NODES
  local name=$1 train=$2 test=$3
  local c=() l=() m=()
  for r in $(seq "$RUNS"); do
    "$VEIL" train --protocol centralized --data "$train" --test "$test" \
      --trees 100 --depth 6 --threads 2 --set base_score=0.5 --quiet \
      --report "$OUT/$name-central.json" >/dev/null
    c+=("$(field "$OUT/$name-central.json" 'r["train_seconds"]')")
    "$VEIL" train --config "$(session "$name-local" "$train" "$test" local local "$4" "$5" "$6")" \
      --quiet --report "$OUT/$name-local.json" >/dev/null
    l+=("$(field "$OUT/$name-local.json" 'r["train_seconds"]')")
    if [[ $7 == 0 ]]; then
      local p1 p2
      p1=$(start_node) p2=$(start_node)
      "$VEIL" train --config "$(session "$name-nodes" "$train" "$test" "127.0.0.1:$p1" "127.0.0.1:$p2" "$4" "$5" "$6")" \
        --quiet --report "$OUT/$name-nodes.json" >/dev/null
      m+=("$(field "$OUT/$name-nodes.json" 'r["train_seconds"]')")
      wait "${NODES[@]}" 2>/dev/null || true
      NODES=()
    fi
  done
  local cm lm mm
  cm=$(printf '%s\n' "${c[@]}" | median)
  lm=$(printf '%s\n' "${l[@]}" | median)
  mm=$([[ ${#m[@]} -gt 0 ]] && printf '%s\n' "${m[@]}" | median || echo "")
  local bytes
  bytes=$(field "$OUT/$name-local.json" '"; ".join(k+" "+format(v["sent"]/1e6,".1f")+"/"+format(v["received"]/1e6,".1f")+" MB" for k,v in r["bytes"]["per_party"].items())')
  local auc
  auc=$(field "$OUT/$name-local.json" 'format(r["metrics"]["auc"],".4f")')
  awk -v n="$name" -v c="$cm" -v l="$lm" -v m="$mm" -v b="$bytes" -v a="$auc" 'BEGIN {
    ms = m == "" ? "skipped" : sprintf("%.2f", m);
    mr = m == "" ? "–" : sprintf("%.2f×", m / c);
    printf "| %s | %s | %.2f | %.2f | %.2f× | %s | %s | %s |\n", n, a, c, l, l / c, ms, mr, b }'
}

echo "| data | AUC (federated) | centralized s | in-process s | in-process / centralized | multi-process s | multi-process / centralized | bytes sent/received per party |"
echo "|---|---|---|---|---|---|---|---|"
bench adult "$SHARED/datasets/adult_train.csv.gz" "$SHARED/datasets/adult_test.csv.gz" \
  "$(quote age education education_num capital_gain capital_loss)" \
  "$(quote workclass fnlwgt occupation hours_per_week native_country)" \
  "$(quote marital_status relationship race sex)" 0
cols=()
for i in $(seq 0 49); do cols+=("f$i"); done
bench synthetic-1M "$SYN/synth_train.csv.gz" "$SYN/synth_test.csv.gz" \
  "$(quote "${cols[@]:0:17}")" "$(quote "${cols[@]:17:17}")" "$(quote "${cols[@]:34:16}")" "$SKIP_1M_NODES"
