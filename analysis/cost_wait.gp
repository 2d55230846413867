# analysis/cost_wait.gp: mean cost per job against mean wait, one labelled point a run
# (a sweep over fallback policies shows each policy's trade-off).
# Variables (gnuplot -e, set by `gpusched plot`):
#   datafile  cost_wait.dat: a header line, then one row a run with both values:
#             "wait_h cost "run"" (mean wait in hours, mean cost per job in currency)
#   npoints   rows; outfile, term, analysis_dir  (see common.gp)
load analysis_dir."/common.gp"
set title "Mean cost per job against mean wait: one point a run"
set xlabel "mean wait (hours, submit to first start)"
set ylabel "mean cost per job (currency)"
if (npoints == 0) {
	set xrange [0:1]
	set yrange [0:1]
	set label 1 "no run with a mean wait and a mean cost per job" at graph 0.5, 0.5 center
	plot NaN notitle
} else {
	# room for the labels right of and above the points
	set offsets graph 0.05, graph 0.25, graph 0.15, graph 0.1
	plot datafile using 1:2 with points pt 7 ps 1.5 lc rgb "#1f77b4" notitle, \
		datafile using 1:2:3 with labels left offset char 1, char 0.6 notitle
}
