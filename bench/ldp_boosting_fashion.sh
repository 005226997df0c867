#!/bin/sh
# LDP boosting on Fashion-MNIST, T-shirt/top (0) against Shirt (6), as the
# paper's Figs. 4 and 7 (spec ldp-boosting §7.1-7.4): the image features
# first (veil generate --kind bovw: 1,000 originals per class to test,
# 1,000 to the data user, the rest augmented to 20,000 per class; 100
# visual words fitted on the data user's images), then boosted nearest
# centroids (4 rows per owner, H = 1,000: 10,000 owners) and boosted stumps
# (20 per owner, H = 200: 2,000 owners), 10 rounds, every mechanism at eps
# 7 and 9 and the non-private baseline, REPEATS runs each (fresh noise and
# owners; the features fixed). CSV as bench/ldp_boosting_synthetic.sh's,
# the "seed" column the run.
#   bench/ldp_boosting_fashion.sh build/veil ../shared/datasets 3 > docs/reproduction/ldp-boosting/fashion.csv
set -eu
veil=${1:-build/veil}
data=${2:-../shared/datasets}
repeats=${3:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$veil" generate --kind bovw --images "$data/fashion_mnist_train.csv.gz" \
  --images "$data/fashion_mnist_test.csv.gz" --pair 0,6 --words 100 \
  --seed 1 --out "$work/f.csv" > /dev/null
run() { # learner per_owner H mechanism epsilon run
  "$veil" train --protocol ldp-boost --quiet --trees 10 --seed "$6" \
    --data "$work/f_train.csv" --test "$work/f_test.csv" \
    --set ldp.user_data="$work/f_user.csv" --set ldp.learner="$1" \
    --set ldp.samples_per_owner="$2" --set ldp.owners_per_round="$3" \
    --set ldp.mechanism="$4" --epsilon "$5" --report "$work/r.json" \
    > /dev/null 2>&1
  errors=$(python3 -c "import json,sys; print(','.join('%.4f' % e for e in json.load(open(sys.argv[1]))['staged_test_errors']))" "$work/r.json")
  echo "$1,$4,$5,$6,$errors"
}
echo "learner,mechanism,epsilon,seed,errors_by_round"
for r in $(seq 1 "$repeats"); do
  for spec in "ncc 4 1000" "stump 20 200"; do
    set -- $spec
    run "$1" "$2" "$3" identity 7 "$r"
    for mech in piecewise duchi laplace; do
      for eps in 7 9; do
        run "$1" "$2" "$3" "$mech" "$eps" "$r"
      done
    done
  done
done
