# analysis/jct_cdf.gp: CDF of job completion time (submit to end), one line a run.
# Variables as in wait_cdf.gp; datafile is jct_cdf.dat ("jct_s fraction" rows).
load analysis_dir."/common.gp"
set title "Job completion time: cumulative distribution"
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
	plot for [i=0:nblocks-1] datafile index i using 1:2 with steps lw 2 title columnheader(1)
}
