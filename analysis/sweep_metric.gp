# analysis/sweep_metric.gp: one metric against one swept parameter of a sweep: the mean
# over the seeds of each variant, with bars for the 95% confidence interval (Student t,
# as `gpusched report`'s replications), one line a combination of the other swept
# parameters' values; for a categorical parameter (names), bars with error bars
# side by side instead of lines.
# Variables (gnuplot -e, set by `gpusched plot`):
#   datafile  sweep_<metric>_<parameter>.dat: one block a line (separated by two blank
#             lines), the block's first line its title in quotes ("path=value, ..." of
#             the other parameters, "all runs" when only one is swept), then one row a
#             value of the parameter: "x mean half_width runs "name"" (x: the value, or
#             its position 0, 1, ... for a parameter with a string value; NaN: no value)
#   nlines    blocks; npoints  rows in all blocks; haskey  1: show the line titles
#   what      the metric ("mean wait"); yunit  its unit ("s", "minutes", "%", ...)
#   title     the metric for the title ("Mean wait")
#   param     the swept parameter's path; seeds  "3 seeds" or "2 to 3 seeds"
#   categorical  1: the values are names, drawn at positions 0 .. ncat-1; 0: numbers
#             on a numeric axis
#   ncat      values of the parameter; xlabels  their names, a word list (empty when
#             too long): the category names, or the tic marks of a numeric axis (up to 12)
#   outfile, term, analysis_dir  (see common.gp)
load analysis_dir."/common.gp"
set title title." against ".param.": mean over ".seeds.", bars: 95% confidence interval (Student t)"
set xlabel param
set ylabel what." (".yunit.")"
# every metric drawn is >= 0: keep 0 on the axis (a bar reaching below it is cut there)
set yrange [0:*]
set key below center horizontal maxcols 3
if (categorical) {
	set xrange [-0.5:ncat - 0.5]
	if (words(xlabels) == ncat) {
		set xtics ()
		do for [k=1:ncat] { set xtics add (word(xlabels, k) k - 1) }
	} else {
		set xtics 1
	}
	if (ncat > 6) { set xtics rotate by -30 }
	# one bar a line at each category, side by side in 0.8 of the category's width
	bw = 0.8 / nlines
	dx = bw
} else {
	set offsets graph 0.05, graph 0.05, graph 0.05, 0
	if (words(xlabels) == ncat && ncat <= 12) {
		set xtics ()
		do for [k=1:ncat] { set xtics add (word(xlabels, k) real(word(xlabels, k))) }
	}
	dx = 0
}
if (!haskey) { unset key }
if (categorical) {
	# names have no order: bars with error bars, not lines joining them
	set boxwidth bw absolute
	set style fill solid 0.75 border lc rgb "#333333"
	plot for [i=0:nlines-1] datafile index i using ($1 + (i - (nlines - 1) / 2.0) * dx):2 \
		with boxes lt i+1 dt 1 title columnheader(1), \
	     for [i=0:nlines-1] datafile index i using ($1 + (i - (nlines - 1) / 2.0) * dx):2:3 \
		with yerrorbars lc rgb "#333333" dt 1 lw 1.5 ps 0 notitle
} else {
	plot for [i=0:nlines-1] datafile index i using ($1 + (i - (nlines - 1) / 2.0) * dx):2:3 \
		with yerrorlines lt i+1 ps 1.2 title columnheader(1)
}
