# analysis/queued_jobs.gp: jobs waiting in the queues over time (submitted, not yet
# running), one curve a variant: the mean over its seeds with the 95% confidence band
# (Student t; none for one seed).
# Variables (gnuplot -e, set by `gpusched plot`):
#   datafile  queued_jobs.dat: one block a variant, first line its name in quotes
#             ("fifo (3 seeds)"), then "time mean low high capacity_gpus" rows (time in
#             `xunit`; each point the time-weighted mean over its bucket of samples;
#             the capacity column is not drawn here)
#   nblocks, npoints  blocks and data rows; xunit  "minutes", "hours" or "days"
#   outfile, term, analysis_dir  (see common.gp)
load analysis_dir."/common.gp"
set title "Queued jobs over time: mean over seeds, band: 95% confidence interval"
set xlabel "time since trace start (".xunit.")"
set ylabel "jobs waiting (submitted, not running)"
set yrange [0:*]
set style fill transparent solid 0.2 noborder
if (npoints == 0) {
	set xrange [0:1]
	set yrange [0:1]
	set label 1 "no time series recorded" at graph 0.5, 0.5 center
	plot NaN notitle
} else {
	plot for [i=0:nblocks-1] datafile index i using 1:3:4 with filledcurves lt i+1 notitle, \
		for [i=0:nblocks-1] datafile index i using 1:2 with steps lt i+1 title columnheader(1)
}
