# analysis/plan_mix.gp: a capacity mix (gpusched plan with two or three --vary and
# --minimize, --plot): the objective at each mix's answer (the smallest value of the
# bisected number meeting the target) against the first outer number, one curve a
# value of the second outer number, each point labelled with its answer, the best
# mix starred.
# Variables (gnuplot -e, set by `gpusched plan`):
#   datafile  blocks (index 0, 1, ...) one a value of the second outer number (one
#             block with one outer number); rows "x1 answer objective ci95 best",
#             mixes whose bisection found no value left out
#   nblocks   blocks; x2vals  the second outer number's value of each block, words
#   x1name, x2name, inner  the outer paths and the bisected one
#   objective, ounit  the objective metric and its unit; metric, cmp, target  the target
#   found     1 when some mix met the target; best, best2  its outer values, and
#             its answer with the objective
#   nseeds    seeds a probe ran
#   outfile, analysis_dir, term  as for the other templates
if (!exists("term")) term = (strstrt(GPVAL_TERMINALS, " pngcairo ") > 0) ? "pngcairo" : "png"
load analysis_dir."/common.gp"
set title sprintf("Capacity mix: least %s with %s %s %g\n%s", objective, metric, cmp, target, \
	found ? "best: ".best."\n".best2 : "no mix meets the target")
set xlabel x1name
set ylabel sprintf("%s (%s), mean over %d seed%s%s", objective, ounit, nseeds, nseeds == 1 ? "" : "s", \
	nseeds > 1 ? ", bars 95% CI" : "")
set key outside right top box title sprintf("labels: smallest\n%s\nmeeting the target", inner)
set offsets graph 0.05, graph 0.05, graph 0.1, graph 0.05
set autoscale xfix
if (found) {
	plot for [i=1:nblocks] datafile index (i-1) using 1:3:4 with yerrorlines lt i \
		title (nblocks > 1 ? sprintf("%s = %s", x2name, word(x2vals, i)) : "each mix"), \
	     for [i=1:nblocks] datafile index (i-1) using 1:3:(sprintf("%g", $2)) with labels \
		offset 0, 1.2 tc rgb "#333333" notitle, \
	     for [i=1:nblocks] datafile index (i-1) using 1:($5 == 1 ? $3 : NaN) with points pt 3 ps 4 lw 2 \
		lc rgb "#c0392b" title (i == 1 ? "best mix" : "")
} else {
	set label 1 "no mix of the ranges meets the target" at graph 0.5, graph 0.5 center
	plot NaN notitle
}
