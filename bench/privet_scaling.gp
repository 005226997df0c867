# Plots veil-bench-privet-scaling's CSV (docs/reproduction/privet/
# scaling.csv) as the panels of Privet's Figs. 6-9: for each varied
# parameter, the time (compute only, and with the two 5 ms / 100 Mbps
# network models) and the online bytes.
#   gnuplot -e "csv='docs/reproduction/privet/scaling.csv'; out='docs/reproduction/privet'" bench/privet_scaling.gp
set datafile separator ","
set terminal svg size 900,360 dynamic font "sans,11" background "white"
set key top left
set grid
do for [sweep in "N J D B T"] {
  set output out."/scaling_".sweep.".svg"
  set multiplot layout 1,2 title "Privet, 4 parties: online training as ".sweep." varies (others: the paper's values)"
  set xlabel sweep
  set format x (sweep eq "N" ? "%.0s%c" : "%g")
  if (sweep eq "D") { set xtics 1 } else { set xtics autofreq }
  set ylabel "seconds"
  set logscale y
  plot csv using (strcol(2) eq sweep ? $3 : 1/0):(strcol(2) eq sweep ? $12 : 1/0) with linespoints title "one shared link (modeled)", \
       csv using (strcol(2) eq sweep ? $3 : 1/0):(strcol(2) eq sweep ? $13 : 1/0) with linespoints title "a link per pair (modeled)", \
       csv using (strcol(2) eq sweep ? $3 : 1/0):(strcol(2) eq sweep ? $9 : 1/0) with linespoints title "compute only (measured)"
  unset logscale y
  set ylabel "GB sent (all parties) / thousands of rounds"
  plot csv using (strcol(2) eq sweep ? $3 : 1/0):(strcol(2) eq sweep ? $11/1e9 : 1/0) with linespoints title "online GB", \
       csv using (strcol(2) eq sweep ? $3 : 1/0):(strcol(2) eq sweep ? $10/1000 : 1/0) with linespoints title "online rounds (thousands)"
  unset multiplot
}
