#!/bin/sh
# LDP boosting's owners on two `veil node` processes (issue 17): the
# setting of veil-bench-ldpboost-scale (100,000 owners of 4 rows of the
# spec's synthetic data, nearest centroid through Piecewise at epsilon 5),
# with half the owners on each of two nodes on this machine, each node a
# block of owner actors loading its own file; the data user in the
# process of `veil train`. Prints, per H: the rounds, the attempts, the
# training time and the time per attempt, and each node's resident memory
# before the session and at its peak (the owners it added).
#
# usage: bench/ldpboost_nodes.sh [VEIL] [OWNERS]
set -eu
VEIL=${1:-build/veil}
OWNERS=${2:-100000}
work=$(mktemp -d)
pids=""
trap 'for p in $pids; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT

half=$((OWNERS * 4 / 2))
"$VEIL" generate --rows $((2 * half + 20000)) --features 20 --informative 10 \
  --redundant 10 --seed 7 --out "$work/all.csv" >/dev/null
head -1 "$work/all.csv" >"$work/a.csv"
cp "$work/a.csv" "$work/b.csv"
cp "$work/a.csv" "$work/user.csv"
tail -n +2 "$work/all.csv" | head -n "$half" >>"$work/a.csv"
tail -n +$((half + 2)) "$work/all.csv" | head -n "$half" >>"$work/b.csv"
tail -n 20000 "$work/all.csv" >>"$work/user.csv"

kb() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
peak_kb() { awk '/^VmHWM/ {print $2}' "/proc/$1/status"; }

echo "owners=$OWNERS (two nodes of $((OWNERS / 2))), 4 rows each; $(nproc) cores"
for setting in "2000 10" "20000 5"; do
  set -- $setting
  H=$1
  ROUNDS=$2
  where=""
  nodes=""
  for f in a b; do
    "$VEIL" node --listen 127.0.0.1:0 --data "owners=$work/$f.csv" \
      >"$work/node_$f.log" 2>&1 &
    nodes="$nodes $!"
  done
  pids="$nodes"
  for f in a b; do
    until grep -q "listening on" "$work/node_$f.log"; do sleep 0.1; done
    where="$where${where:+,}$(grep -o '127.0.0.1:[0-9]*' "$work/node_$f.log" | head -1)/owners"
  done
  before=""
  for p in $nodes; do before="$before $(kb "$p")"; done
  start=$(date +%s.%N)
  "$VEIL" train --protocol ldp-boost --data "$work/user.csv" --trees "$ROUNDS" \
    --epsilon 5 --set ldp.owners_per_round="$H" \
    --set ldp.owner_nodes="$where" --quiet --report "$work/r.json" \
    >"$work/train.log" 2>&1
  end=$(date +%s.%N)
  peaks=""
  for p in $nodes; do peaks="$peaks $(peak_kb "$p")"; done
  for p in $nodes; do kill "$p"; done
  pids=""
  python3 - "$work/r.json" "$H" "$start" "$end" "$before" "$peaks" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
h = int(sys.argv[2])
wall = float(sys.argv[4]) - float(sys.argv[3])
before = [int(x) for x in sys.argv[5].split()]
peaks = [int(x) for x in sys.argv[6].split()]
attempts = r["owners_asked"] / h
owners = r["owners"] / len(peaks)
print(f"H={h}: {len(r['ensemble'])} rounds, {attempts:.0f} attempts, "
      f"training {r['train_seconds']:.3f} s "
      f"({1000 * r['train_seconds'] / attempts:.1f} ms per attempt), "
      f"veil train {wall:.2f} s in all; test error {r['metrics']['error']:.4f}")
for b, p in zip(before, peaks):
    print(f"  node: {b / 1024:.0f} MB before, {p / 1024:.0f} MB at its peak: "
          f"{(p - b) * 1024 / owners / 1000:.1f} KB per owner")
EOF
done
