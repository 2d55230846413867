# analysis/real_runtime.gp: a real run's measured run time against the model's
# prediction, one point a completed job (its completing segment), with the line y = x:
# points above it ran longer than the simulator assumed.
# Variables (gnuplot -e, set by `gpusched plot`):
#   datafile  real_runtime_<run>.dat: a comment and a header line, then one row a
#             completed job: "predicted_s measured_s "job"" (trace seconds)
#   npoints   rows; lo, hi  the smallest and largest run time (s) of either column
#   logscale  1: log-log axes (the run times span more than a factor 20)
#   labels    1: each point labelled with its job id (few jobs)
#   runname   the run; subtitle  backend, time scale and completed jobs, in words
#   outfile, term, analysis_dir  (see common.gp)
load analysis_dir."/common.gp"
set title sprintf("Run time, measured vs predicted: run %s\n(%s)", runname, subtitle)
set xlabel "predicted run time (trace s, the simulator's model)"
set ylabel "measured run time (trace s = wall s x time scale)"
set key inside left top box opaque
if (npoints == 0) {
	set xrange [0:1]
	set yrange [0:1]
	set label 1 "no completed job" at graph 0.5, 0.5 center
	plot NaN notitle
} else {
	if (logscale) {
		set logscale xy
		set format x "%g"
		set format y "%g"
		set xrange [lo / 1.5:hi * 1.5]
		set yrange [lo / 1.5:hi * 1.5]
	} else {
		set xrange [0:hi * 1.1]
		set yrange [0:hi * 1.1]
	}
	set samples 200
	if (labels) {
		plot x with lines dt 2 lw 1.5 lc rgb "#888888" title "y = x (measured = predicted)", \
			datafile using 1:2 with points pt 7 ps 1.4 lc rgb "#1f77b4" \
				title "completed job (its completing segment)", \
			datafile using 1:2:3 with labels left offset char 1, char 0.5 notitle
	} else {
		plot x with lines dt 2 lw 1.5 lc rgb "#888888" title "y = x (measured = predicted)", \
			datafile using 1:2 with points pt 7 ps 1.0 lc rgb "#1f77b4" \
				title "completed job (its completing segment)"
	}
}
