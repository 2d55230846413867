# analysis/wait_cdf.gp: CDF of job wait (submit to first start), one line a run.
# Variables (gnuplot -e, set by `gpusched plot`):
#   datafile  wait_cdf.dat: one block a run (separated by two blank lines), the
#             block's first line the run name in quotes, then "wait_s fraction" rows
#   nblocks   number of blocks (runs); npoints  data rows in all blocks
#   outfile, term, analysis_dir  (see common.gp)
# Waits under 1 s are drawn at 1 s so the log axis can show them.
load analysis_dir."/common.gp"
set title "Job wait time: cumulative distribution"
set xlabel "wait (s, log scale; waits < 1 s drawn at 1 s)"
set ylabel "fraction of started jobs"
set logscale x
set yrange [0:1.02]
set format x "%g"
if (npoints == 0) {
	set xrange [1:10]
	set label 1 "no job started" at graph 0.5, 0.5 center
	plot NaN notitle
} else {
	plot for [i=0:nblocks-1] datafile index i using 1:2 with steps lw 2 title columnheader(1)
}
