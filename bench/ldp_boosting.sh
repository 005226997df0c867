#!/bin/sh
# LDP boosting's boosting grid (the paper's Figs. 4 and 7), as `veil train
# --protocol ldp-boost` runs it: 10 rounds, every mechanism at two budgets
# and the non-private baseline (identity), RUNS runs each. One CSV line per
# run: learner,mechanism,epsilon,seed,error after round 1, ..., round 10.
#
#   bench/ldp_boosting.sh synthetic build/veil 5 > docs/reproduction/ldp-boosting/synthetic.csv
#     The spec's synthetic data (§7.3-7.4): boosted nearest centroids (10^6
#     rows, 4 per owner, H = 2,000), boosted stumps (1.07 x 10^6 rows, the
#     spec's option for 10 full rounds: 80 per owner, H = 1,000); eps 5, 7;
#     the run is the generator's seed (its draw moves the non-private
#     centroid's error from 16% to 31%).
#   bench/ldp_boosting.sh fashion build/veil 3 ../shared/datasets > docs/reproduction/ldp-boosting/fashion.csv
#     Fashion-MNIST, T-shirt/top (0) against Shirt (6): the image features
#     first (veil generate --kind bovw), then boosted nearest centroids (4
#     rows per owner, H = 1,000) and stumps (20 per owner, H = 200); eps 7,
#     9; the features fixed, fresh noise and owners each run.
set -eu
which=$1
veil=${2:-build/veil}
runs=${3:-3}
data=${4:-../shared/datasets}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ "$which" = fashion ]; then
  "$veil" generate --kind bovw --images "$data/fashion_mnist_train.csv.gz" \
    --images "$data/fashion_mnist_test.csv.gz" --pair 0,6 --words 100 \
    --seed 1 --out "$work/f.csv" > /dev/null
  budgets="7 9"
  specs="ncc,4,1000,0 stump,20,200,0"
else
  budgets="5 7"
  specs="ncc,4,2000,1000000 stump,80,1000,1070000"
fi
run() { # learner per_owner H rows mechanism epsilon run
  if [ "$which" = fashion ]; then
    input="--data $work/f_train.csv --test $work/f_test.csv --set ldp.user_data=$work/f_user.csv"
  else
    input="--rows $4"
  fi
  "$veil" train --protocol ldp-boost --quiet --trees 10 --seed "$7" $input \
    --set ldp.learner="$1" --set ldp.samples_per_owner="$2" \
    --set ldp.owners_per_round="$3" --set ldp.mechanism="$5" \
    --epsilon "$6" --report "$work/r.json" > /dev/null 2>&1
  errors=$(python3 -c "import json,sys; print(','.join('%.4f' % e for e in json.load(open(sys.argv[1]))['staged_test_errors']))" "$work/r.json")
  echo "$1,$5,$6,$7,$errors"
}
echo "learner,mechanism,epsilon,seed,errors_by_round"
for r in $(seq 1 "$runs"); do
  for spec in $specs; do # learner,per_owner,H,rows
    IFS=, read -r learner per h rows <<SPEC
$spec
SPEC
    run "$learner" "$per" "$h" "$rows" identity "${budgets%% *}" "$r"
    for mech in piecewise duchi laplace; do
      for eps in $budgets; do
        run "$learner" "$per" "$h" "$rows" "$mech" "$eps" "$r"
      done
    done
  done
done
