# analysis/real_latency.gp: a real run's decision latency, cumulative distribution:
# the wall time from the event a decision pass follows (a submit, a workload ending)
# to the return of the launch it decided, one value a start.
# Variables (gnuplot -e, set by `gpusched plot`):
#   datafile  real_latency_<run>.dat: a comment and a header line, then
#             "latency_ms fraction" rows (at most 2000)
#   npoints   rows; nstarts  starts measured; p50, p99  their median and 99th
#             percentile (ms); logscale  1: a log x axis (a spread over 100x)
#   runname   the run; outfile, term, analysis_dir  (see common.gp)
load analysis_dir."/common.gp"
set title sprintf("Decision latency: cumulative distribution, run %s (%d starts)", runname, nstarts)
set xlabel "decision latency (ms, wall clock)"
set ylabel "fraction of starts"
set yrange [0:1.02]
set key inside right bottom box opaque
if (npoints == 0) {
	set xrange [0:1]
	set label 1 "no start measured" at graph 0.5, 0.5 center
	plot NaN notitle
} else {
	if (logscale) {
		set logscale x
		set format x "%g"
	} else {
		set xrange [0:*]
	}
	set arrow 1 from p50, graph 0 to p50, graph 1 nohead dt 2 lw 1.5 lc rgb "#d62728"
	set arrow 2 from p99, graph 0 to p99, graph 1 nohead dt 3 lw 1.5 lc rgb "#ff7f0e"
	plot datafile using 1:2 with steps lw 2 lc rgb "#1f77b4" title sprintf("run %s", runname), \
		NaN with lines dt 2 lw 1.5 lc rgb "#d62728" title sprintf("p50 = %.3g ms", p50), \
		NaN with lines dt 3 lw 1.5 lc rgb "#ff7f0e" title sprintf("p99 = %.3g ms", p99)
}
