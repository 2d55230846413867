# analysis/busy_gpus.gp: busy (allocated) GPUs over time, one curve a variant: the
# mean over its seeds with the 95% confidence band (Student t), and the cluster's GPU
# capacity as a dashed line (one a variant, in its colour, when they differ).
# Variables (gnuplot -e, set by `gpusched plot`):
#   datafile  busy_gpus.dat: one block a variant, first line its name in quotes
#             ("fifo (3 seeds)"), then "time mean low high capacity_gpus" rows
#             (time in `xunit`)
#   nblocks, npoints  blocks and data rows; xunit  "minutes", "hours" or "days"
#   samecap   1 when every run has the same capacity, given in `capacity`
#   outfile, term, analysis_dir  (see common.gp)
load analysis_dir."/common.gp"
set title "Busy GPUs over time: mean over seeds, band: 95% confidence interval"
set xlabel "time since trace start (".xunit.")"
set ylabel "GPUs"
set yrange [0:*]
set style fill transparent solid 0.2 noborder
if (npoints == 0) {
	set xrange [0:1]
	set yrange [0:capacity > 0 ? capacity * 1.05 : 1]
	set label 1 "no time series recorded" at graph 0.5, 0.5 center
	plot capacity with lines dt 2 lw 2 lc rgb "black" title sprintf("capacity (%g GPUs)", capacity)
} else {
	if (samecap) {
		plot for [i=0:nblocks-1] datafile index i using 1:3:4 with filledcurves lt i+1 notitle, \
			for [i=0:nblocks-1] datafile index i using 1:2 with steps lt i+1 title columnheader(1), \
			capacity with lines dt 2 lw 2 lc rgb "black" title sprintf("capacity (%g GPUs)", capacity)
	} else {
		plot for [i=0:nblocks-1] datafile index i using 1:3:4 with filledcurves lt i+1 notitle, \
			for [i=0:nblocks-1] datafile index i using 1:2 with steps lt i+1 title columnheader(1), \
			for [i=0:nblocks-1] datafile index i using 1:5 with steps lt i+1 dt 2 lw 1 notitle, \
			NaN with lines dt 2 lw 2 lc rgb "black" title "dashed: GPU capacity of each variant"
	}
}
