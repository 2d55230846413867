# analysis/jain.gp: Jain's fairness index over the queues over time, one run:
# (sum x)^2 / (n sum x^2), x a queue's busy GPUs (over its nominal quota when the run
# has quotas); 1 when every queue gets the same, 1/n when one queue gets it all.
# Variables (gnuplot -e, set by `gpusched plot`):
#   datafile  jain_<run>.dat: rows "time index" (time in `xunit`; samples with nothing
#             running left out)
#   nqueues   queues; byquota  1 when x is usage over nominal quota; runname  the run
#   npoints   rows; xunit  "minutes", "hours" or "days"; outfile, term, analysis_dir
load analysis_dir."/common.gp"
set title sprintf("Jain's fairness index over %d queues: run %s", nqueues, runname)
set xlabel "time since trace start (".xunit.")"
set ylabel (byquota ? "Jain's index of busy GPUs / nominal quota" : "Jain's index of busy GPUs")
set yrange [0:1.05]
set ytics 0.1
if (npoints == 0) {
	set xrange [0:1]
	set label 1 "nothing ran" at graph 0.5, 0.5 center
	plot NaN notitle
} else {
	plot datafile using 1:2 with steps lt 1 title "Jain's index", \
		1.0 / nqueues with lines dt 2 lw 1 lc rgb "#888888" title sprintf("1/%d: one queue has every GPU", nqueues)
}
