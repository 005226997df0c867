# veil compare's plots: gnuplot -e "fmt='svg'" compare.gp (or
# fmt='png'), in this folder
if (!exists('fmt')) fmt = 'svg'
if (fmt eq 'png') {
  set terminal pngcairo size 820,520 font 'sans,10'
} else {
  set terminal svg size 820,520 dynamic font 'sans,12'
}
set datafile separator whitespace
set key outside right top
set grid
set output 'utility.'.fmt
set title 'test accuracy against epsilon (mean and sample sd over 3 runs)'
set xlabel 'epsilon: the protocol budget (log scale)'
set ylabel 'test accuracy'
set logscale x
set xrange [0.4:10]
plot 'utility.dat' index 0 using 1:2 with lines dt 2 lw 2 title 'centralized (no budget)', \
    'utility.dat' index 1 using 1:2 with lines dt 2 lw 2 title 'plain (no budget)', \
    'utility.dat' index 2 using 1:2:3 with yerrorlines lw 2 title 'feverless', \
    'utility.dat' index 3 using 1:2:3 with yerrorlines lw 2 title 'opboost', \
    'utility.dat' index 4 using 1:2:3 with yerrorlines lw 2 title 'masked-xgboost', \
    'utility.dat' index 5 using 1:2 with lines dt 2 lw 2 title 'privet (no budget)', \
    'utility.dat' index 6 using 1:2:3 with yerrorlines lw 2 title 'ldp-boost'
unset logscale x
set autoscale x
set style fill solid 0.6
set boxwidth 0.6
set xlabel 'protocol'
unset key
set xtics rotate by 30 right
set bmargin 7
set output 'time.'.fmt
set title 'training time per run (mean over its runs)'
set ylabel 'seconds (log scale)'
set logscale y
plot 'bars.dat' using 1:3:xtic(2) with boxes, '' using 1:3:4 with yerrorbars lc rgb 'black' pt 0
set output 'bytes.'.fmt
set title 'bytes the parties sent per run (mean)'
set ylabel 'megabytes (log scale)'
plot 'bars.dat' using 1:($5 > 0 ? $5 : 1/0):xtic(2) with boxes, '' using 1:($5 > 0 ? $5 : 1/0):6 with yerrorbars lc rgb 'black' pt 0
