# analysis/jct_cdf.gp: CDF of job completion time (submit to end), one curve a variant:
# the mean over its seeds, with its 95% confidence band. Variables as in wait_cdf.gp;
# datafile is jct_cdf.dat ("jct_s mean low high" rows).
load analysis_dir."/common.gp"
if (maxseeds > 1) {
	# short: a wide key (two files overlaid) leaves the title only the plot area
	set title "Job completion time, cumulative: mean over seeds, band: 95% CI (Student t)"
} else {
	set title "Job completion time: cumulative distribution, one seed a variant"
}
set xlabel "JCT (s, log scale; values < 1 s drawn at 1 s)"
set ylabel "fraction of completed jobs"
set logscale x
set yrange [0:1.02]
set format x "%g"
if (npoints == 0) {
	set xrange [1:10]
	set label 1 "no job completed" at graph 0.5, 0.5 center
	plot NaN notitle
} else {
	set style fill transparent solid 0.2 noborder
	plot for [i=0:nblocks-1] datafile index i using 1:3:4 with filledcurves lt i+1 notitle, \
	     for [i=0:nblocks-1] datafile index i using 1:2 with lines lt i+1 title columnheader(1)
}
