# analysis/plan.gp: a capacity plan's curve (gpusched plan --plot): the target's metric
# at every probed value, passing and failing probes apart, the target as a line and
# the answer (the smallest passing value) marked.
# Variables (gnuplot -e, set by `gpusched plan`):
#   datafile  the curve CSV: header "value,mean,ci95,judged,pass,seeds", one row a
#             probed value, sorted by value
#   outfile   the PNG; analysis_dir  this folder (for common.gp)
#   xname     the config path varied; xunit  its unit ("nodes", "GPU", "s" or "")
#   ylabel    the metric, its unit and what was judged ("p95_wait_s (s), mean over 3 seeds")
#   metric, cmp, target  the target (e.g. "p95_wait_s", "<=", 3600)
#   found     1 when a value met the target; answer  that value
#   logy      1: a log y axis (the positive values span over two decades); values
#             under yfloor (zeros too) are then drawn at yfloor
# The points are the judged values (the mean, or the CI bound with --conservative);
# the error bars are the mean's 95% CI. The terminal is pngcairo when this gnuplot
# has it, else png.
if (!exists("term")) term = (strstrt(GPVAL_TERMINALS, " pngcairo ") > 0) ? "pngcairo" : "png"
load analysis_dir."/common.gp"
set datafile separator ","
set title sprintf("Capacity plan: smallest %s with %s %s %g%s", xname, metric, cmp, target, \
	found ? sprintf(": %g", answer) : ": none in the range")
set xlabel (xunit eq "" ? xname : sprintf("%s (%s)", xname, xunit))
set key inside top right box opaque
set autoscale xfix
set offsets graph 0.04, graph 0.04, 0, 0
lift(y) = logy ? (y < yfloor ? yfloor : y) : y
if (logy) {
	set logscale y
	set format y "%g"
	set ylabel sprintf("%s (log scale; values < %g drawn at %g)", ylabel, yfloor, yfloor)
	set yrange [yfloor / 2:*]
} else {
	set ylabel ylabel
	if (target >= 0) { set yrange [0:*] }
}
if (found) {
	set arrow 1 from answer, graph 0 to answer, graph 1 nohead lc rgb "#2a7f2a" dt 2 lw 1.5
	set label 1 sprintf(" answer %g", answer) at answer, graph 0.95 left tc rgb "#2a7f2a"
}
plot datafile every ::1 using 1:(lift($4)) with lines lc rgb "#999999" lw 1 notitle, \
     datafile every ::1 using 1:(lift($2)):(lift($2 - $3)):(lift($2 + $3)) with yerrorbars \
	lc rgb "#555555" pt -1 title "mean, 95% CI", \
     datafile every ::1 using 1:($5 == 1 ? lift($4) : NaN) with points pt 7 ps 1.5 lc rgb "#2a7f2a" \
	title "pass", \
     datafile every ::1 using 1:($5 == 0 ? lift($4) : NaN) with points pt 7 ps 1.5 lc rgb "#c0392b" \
	title "fail", \
     target with lines dt 4 lw 2 lc rgb "#1f4e9c" title sprintf("target %s %s %g", metric, cmp, target)
