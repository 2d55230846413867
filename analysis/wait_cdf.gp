# analysis/wait_cdf.gp: CDF of job wait (submit to first start), one curve a variant:
# the mean over its seeds of the fraction of started jobs that waited at most x, with
# its 95% confidence band (Student t over the seeds; none for one seed).
# Variables (gnuplot -e, set by `gpusched plot`):
#   datafile  wait_cdf.dat: one block a variant (separated by two blank lines), the
#             block's first line its name in quotes ("fifo (3 seeds)"), then
#             "wait_s mean low high" rows on a log grid
#   nblocks   number of blocks (variants); npoints  data rows in all blocks
#   maxseeds  the most seeds of a variant (1: no band, and the title says so)
#   outfile, term, analysis_dir  (see common.gp)
# Waits under 1 s are drawn at 1 s so the log axis can show them.
load analysis_dir."/common.gp"
if (maxseeds > 1) {
	# short: a wide key (two files overlaid) leaves the title only the plot area
	set title "Job wait time, cumulative: mean over seeds, band: 95% CI (Student t)"
} else {
	set title "Job wait time: cumulative distribution, one seed a variant"
}
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
	set style fill transparent solid 0.2 noborder
	plot for [i=0:nblocks-1] datafile index i using 1:3:4 with filledcurves lt i+1 notitle, \
	     for [i=0:nblocks-1] datafile index i using 1:2 with lines lt i+1 title columnheader(1)
}
