#!/usr/bin/env bash
# FEVERLESS benchmark (issue 4) through the actor runtime: `veil train
# --protocol feverless*` with 4 clients in one process, on bank_marketing
# (45,211 rows, 16 ordinal-encoded inputs, label column `label`; all rows
# are training rows, metrics are on them) or any CSV given with --data,
# depth 10 x 10 trees, B = 10 buckets, eta 0.3. Runs:
#   plain                           --protocol plain (labels at one party)
#   feverless-plain                 the plain baseline (no protection)
#   feverless, chain election       the default election: a fresh leader
#                                   per query from hash-chain tickets, in
#                                   the paper's setting (per-query eps = 2,
#                                   delta = 1e-5, classical; no clamp, no
#                                   source draw, noise on G and H)
#   feverless, chain, H exact       the same with H exact, the default
#                                   (feverless.hessian_noise = false: no
#                                   noise on the public hessian sums, half
#                                   the draws)
#   feverless, signed election      the paper's lottery (a signature per
#                                   ticket), same budget
#   feverless, per_batch election   one leader per batch (not the paper's)
#   feverless-ldp                   every client noises its sums
#   feverless-ahe, Paillier 1024    at --ahe-size (default 10x10)
#   feverless-ahe, Paillier 2048    at --ahe2048-size (default 4x4: a 10x10
#                                   run takes hours on 2 vCPUs)
# plus feverless-plain at each AHE size that is not 10x10, for the ratio.
# Prints the median train_seconds over --runs (the settings take turns, run
# after run), the ratio to feverless-plain of the same size (of the
# medians, of the medians per query, and "paired": the median over rounds
# of each round's own per-query ratio, which a slow minute of the VM moves
# less), the microseconds per query, the MB each client sent
# (from --report: training and the prediction of the training rows) and
# the paper's time for the same setting (Table 6: Python, Xeon E5-2620 v4;
# bank_marketing only);
# for an AHE run below 10x10, also its time extrapolated per query to the
# 10x10 plain run's query count. A 10x10 Paillier-1024 run took 30 min on 2
# shared vCPUs; the rest about 4 min.
#
# usage: bash bench/run_feverless.sh [--runs N] [--data FILE]
#                                    [--latency-ms L] [--ahe-size DxT]
#                                    [--ahe2048-size DxT] [--skip-ahe]
#                                    [--skip-signed]
#   --runs N           runs per setting (default 1)
#   --data FILE        a CSV (.csv or .csv.gz, label last) instead of
#                      bank_marketing: the ratios on your own data
#   --latency-ms L     emulated links: every message between the clients
#                      waits L ms (net.latency_ms); they still share this
#                      machine's cores
#   --ahe-size DxT     depth x trees of the Paillier-1024 run (default 10x10)
#   --ahe2048-size DxT depth x trees of the Paillier-2048 run (default 4x4)
#   --skip-ahe         skip both AHE runs
#   --skip-signed      skip the signed election (about 100 s a run)
#
# Needs build/veil. Environment: VEIL, VEIL_SHARED_DIR, BENCH_DIR.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VEIL=${VEIL:-$ROOT/build/veil}
SHARED=${VEIL_SHARED_DIR:-$ROOT/../shared}
WORK=${BENCH_DIR:-$ROOT/build/bench}
RUNS=1
AHE=10x10
AHE2048=4x4
SKIP_AHE=0
SKIP_SIGNED=0
DATA=""
LATENCY=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) RUNS=$2; shift ;;
    --data) DATA=$2; shift ;;
    --latency-ms) LATENCY=$2; shift ;;
    --ahe-size) AHE=$2; shift ;;
    --ahe2048-size) AHE2048=$2; shift ;;
    --skip-ahe) SKIP_AHE=1 ;;
    --skip-signed) SKIP_SIGNED=1 ;;
    -h | --help) sed -n '2,52p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run_feverless.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
die() { echo "run_feverless.sh: error: $*" >&2; exit 1; }
[[ -x $VEIL ]] || die "$VEIL is missing: build first"
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "--runs $RUNS: expected a positive integer"
for s in "$AHE" "$AHE2048"; do
  [[ $s =~ ^[1-9][0-9]*x[1-9][0-9]*$ ]] || die "size '$s': expected DEPTHxTREES, e.g. 4x4"
done
if [[ -z $DATA ]]; then
  DATA=$SHARED/datasets/bank_marketing.csv.gz
  [[ -f $DATA ]] || die "$DATA is missing (set VEIL_SHARED_DIR)"
  BANK=1
else
  [[ -f $DATA ]] || die "--data $DATA: no such file"
  BANK=0
fi
LINKS=()
if [[ -n $LATENCY ]]; then
  [[ $LATENCY =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--latency-ms $LATENCY: expected a number of milliseconds"
  LINKS=(--set net.latency_ms="$LATENCY")
fi
OUT=$WORK/feverless
mkdir -p "$OUT"

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
field() { /usr/bin/python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$1" "$2"; }

# The paper's Table 6 (bank marketing, 4 clients, seconds) for depth D x T
# trees, D, T in {2,4,6,8,10}; "–" otherwise. Columns: baseline, FEVERLESS,
# AHE. The paper gives no LDP times for bank.
paper() { # KIND D T (and $BANK: other data has no paper time)
  /usr/bin/python3 - "$@" "$BANK" <<'EOF'
import sys
t = {
 "plain": [[9,17,27,37,47],[36,76,131,168,222],[77,148,247,335,421],[164,285,402,575,748],[299,576,844,1007,1093]],
 "feverless": [[9,18,27,37,46],[33,66,98,151,161],[75,150,215,251,316],[160,320,453,593,723],[294,548,785,872,1043]],
 "ahe": [[11,22,33,44,56],[43,87,130,174,216],[147,293,437,600,674],[413,840,1240,1628,1773],[808,1613,2379,2955,3481]],
}
k, d, n, bank = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
ok = bank and k in t and d in (2,4,6,8,10) and n in (2,4,6,8,10)
print(t[k][d // 2 - 1][n // 2 - 1] if ok else "–")
EOF
}

# run NAME PROTOCOL DEPTH TREES [--set ...]: one run, its train_seconds
# added to $OUT/NAME.all (the rounds below alternate the settings, so that
# a slower minute of the VM weighs on every row alike).
run() {
  local name=$1 protocol=$2 depth=$3 trees=$4
  shift 4
  "$VEIL" train --data "$DATA" --protocol "$protocol" --parties 4 \
    --trees "$trees" --depth "$depth" --seed 1 --timeout 7200 --quiet \
    --report "$OUT/$name.json" "${LINKS[@]}" "$@" >/dev/null
  field "$OUT/$name.json" 'r["train_seconds"]' >>"$OUT/$name.all"
  field "$OUT/$name.json" 'r.get("queries", 0)' >>"$OUT/$name.queries" # plain has none
}

# settle NAME...: the median of each NAME's runs -> $OUT/NAME.s
settle() {
  for name in "$@"; do
    median <"$OUT/$name.all" >"$OUT/$name.s"
  done
}

# row LABEL NAME DEPTH TREES PLAIN_NAME PAPER_KIND [EXTRAPOLATE]: one line
row() {
  local label=$1 name=$2 d=$3 t=$4 base=$5 kind=$6 extrapolate=${7:-0}
  local s b q qb mb acc ext=""
  s=$(cat "$OUT/$name.s")
  b=$(cat "$OUT/$base.s")
  q=$(field "$OUT/$name.json" 'r["queries"]')
  qb=$(field "$OUT/$base.json" 'r["queries"]')
  mb=$(field "$OUT/$name.json" '" / ".join(format(v["sent"]/1e6,".1f") for v in r["bytes"]["per_party"].values())')
  acc=$(field "$OUT/$name.json" 'format(r["metrics"]["accuracy"],".4f")')
  if [[ $extrapolate == 1 && ($d != 10 || $t != 10) ]]; then
    # AHE's cost is per query (Paillier): extrapolate to the 10x10 plain
    # run's query count.
    ext=$(awk -v s="$s" -v q="$q" -v q10="$(cat "$OUT/q10")" -v b10="$(cat "$OUT/plain.s")" \
      'BEGIN { e = s / q * q10; printf " (≈%.0f s at 10 × 10, %.0f× plain)", e, e / b10 }')
  fi
  # Noise changes the trees, and so the number of queries: the ratio per
  # query as well, which a run with fewer queries cannot flatter. And the
  # median over rounds of each round's own per-query ratio ("paired"),
  # which a slow minute of the VM moves less: both runs of a round share it.
  local paired=""
  if [[ $name != "$base" && $(wc -l <"$OUT/$name.all") == $(wc -l <"$OUT/$base.all") ]]; then
    paired=$(paste "$OUT/$name.all" "$OUT/$name.queries" "$OUT/$base.all" "$OUT/$base.queries" |
      awk '{ print ($1 / $2) / ($3 / $4) }' | median)
  fi
  awk -v l="$label" -v d="$d" -v t="$t" -v s="$s" -v b="$b" -v q="$q" -v qb="$qb" \
    -v mb="$mb" -v a="$acc" -v p="$(paper "$kind" "$d" "$t")" -v x="$ext" \
    -v pr="$paired" -v self="$([[ $name == "$base" ]] && echo 1 || echo 0)" 'BEGIN {
      r = p == "–" ? "–" : sprintf("%.1f×", p / s);
      pq = self ? "" : sprintf(" (%.2f× per query%s)", (s / q) / (b / qb),
                               pr == "" ? "" : sprintf("; paired %.2f×", pr));
      printf "| %s | %s × %s | %.3f%s | %.2f×%s | %.1f | %s | %s | %s | %s | %s |\n",
        l, d, t, s, x, s / b, pq, 1e6 * s / q, q, mb, a, p, r }'
}

size() { echo "${1%x*} ${1#*x}"; }

echo "data: $DATA${LATENCY:+, links emulated at $LATENCY ms}" >&2
echo "load before: $(uptime)" >&2
DP=(--set feverless.sum_epsilon=2 --delta 1e-5 --set feverless.calibration=classical
  --set max_delta_step=0 --set feverless.source_noise=false --set feverless.hessian_noise=true)
names=(vertical plain chain chain-exact-h per-batch ldp)
[[ $SKIP_SIGNED == 1 ]] || names+=(signed)
for name in "${names[@]}"; do rm -f "$OUT/$name.all" "$OUT/$name.queries"; done
for r in $(seq "$RUNS"); do
  run vertical plain 10 10
  run plain feverless-plain 10 10
  run chain feverless 10 10 "${DP[@]}" --set feverless.election=chain
  run chain-exact-h feverless 10 10 "${DP[@]}" --set feverless.hessian_noise=false
  [[ $SKIP_SIGNED == 1 ]] ||
    run signed feverless 10 10 "${DP[@]}" --set feverless.election=signed
  run per-batch feverless 10 10 "${DP[@]}" --set feverless.election=per_batch
  run ldp feverless-ldp 10 10 "${DP[@]}"
done
settle "${names[@]}"
field "$OUT/plain.json" 'r["queries"]' >"$OUT/q10"
if [[ $SKIP_AHE == 0 ]]; then
  for spec in "ahe1024 1024 $AHE" "ahe2048 2048 $AHE2048"; do
    read -r name bits sz <<<"$spec"
    read -r d t <<<"$(size "$sz")"
    rm -f "$OUT/$name.all" "$OUT/plain-$sz.all" "$OUT/$name.queries" "$OUT/plain-$sz.queries"
    for r in $(seq "$RUNS"); do
      [[ $sz == 10x10 ]] || run "plain-$sz" feverless-plain "$d" "$t"
      run "$name" feverless-ahe "$d" "$t" --set paillier.bits="$bits" "${DP[@]}"
    done
    settle "$name"
    [[ $sz == 10x10 ]] || settle "plain-$sz"
  done
fi
echo "load after: $(uptime)" >&2

[[ $BANK == 1 && -z $LATENCY ]] ||
  echo "Data: $(basename "$DATA")${LATENCY:+, links emulated at $LATENCY ms each way}."
echo "| run | depth × trees | train s | × feverless-plain (same size; and per query) | µs per query | queries | MB sent per client | train accuracy | paper s (Table 6) | paper / ours |"
echo "|---|---|---|---|---|---|---|---|---|---|"
echo "| plain (--protocol plain, labels at one party) | 10 × 10 | $(awk -v s="$(cat "$OUT/vertical.s")" -v b="$(cat "$OUT/plain.s")" 'BEGIN { printf "%.3f | %.2f× (feverless-plain: %.2f× plain)", s, s / b, b / s }') | – | – | – | $(field "$OUT/vertical.json" 'format(r["metrics"]["accuracy"],".4f")') | – | – |"
row "feverless-plain (no protection)" plain 10 10 plain plain
row "feverless, chain election (default), the paper's noise on G and H" chain 10 10 plain feverless
row "feverless, chain election (default), H exact (the default)" chain-exact-h 10 10 plain feverless
[[ $SKIP_SIGNED == 1 ]] ||
  row "feverless, signed election (the paper's lottery)" signed 10 10 plain feverless
row "feverless, per-batch election" per-batch 10 10 plain feverless
row "feverless-ldp" ldp 10 10 plain none
if [[ $SKIP_AHE == 0 ]]; then
  for spec in "ahe1024 1024 $AHE" "ahe2048 2048 $AHE2048"; do
    read -r name bits sz <<<"$spec"
    read -r d t <<<"$(size "$sz")"
    base=plain
    if [[ $sz != 10x10 ]]; then
      base=plain-$sz
      row "feverless-plain" "$base" "$d" "$t" "$base" plain
    fi
    # The paper's AHE is Paillier-1024 only.
    row "feverless-ahe, Paillier $bits" "$name" "$d" "$t" "$base" \
      "$([[ $bits == 1024 ]] && echo ahe || echo none)" 1
  done
fi
