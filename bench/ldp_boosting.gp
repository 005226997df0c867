# Plots bench/ldp_boosting_summary.py's rounds CSV: the mean test error
# over the runs against the number of boosting rounds, per mechanism and
# epsilon (the paper's Figs. 4 and 7), into OUT/NAME_rounds.svg.
#   gnuplot -e "csv='docs/reproduction/ldp-boosting/rounds.csv'; out='docs/reproduction/ldp-boosting'; name='synthetic'; data='the synthetic data of spec 7.3'" bench/ldp_boosting.gp
set datafile separator ","
if (!exists("epsilons")) epsilons = "5 7"
set terminal svg size 900,380 dynamic font "sans,11" background "white"
set output out."/".name."_rounds.svg"
set multiplot layout 1,2 title "LDP boosting on ".data.": test error against rounds (mean over runs)"
set xlabel "boosting rounds"
set ylabel "test error"
set yrange [0:0.55]
set xtics 1
set grid
set key top right font ",9"
do for [learner in "ncc stump"] {
  set title (learner eq "ncc" ? "boosted nearest centroids" : "boosted stumps")
  plot csv using (strcol(1) eq learner && strcol(2) eq "identity" ? $4 : 1/0):5 with linespoints lw 2 title "non-private", \
       for [m in "piecewise duchi laplace"] for [e in epsilons] \
         csv using (strcol(1) eq learner && strcol(2) eq m && strcol(3) eq e ? $4 : 1/0):5 with linespoints title m." eps ".e
}
unset multiplot
