# analysis/nodes_down.gp: node slots down over time (failed and not yet repaired or
# replaced from a spare pool; docs/faults.md), one curve a variant with node failures:
# the mean over its seeds with the 95% confidence band (Student t; none for one seed).
# Variables (gnuplot -e, set by `gpusched plot`):
#   datafile  nodes_down.dat: one block a variant, first line its name in quotes
#             ("fifo (3 seeds)"), then "time mean low high capacity" rows (time in
#             `xunit`; each point the time-weighted mean over its bucket of samples;
#             the last column is not drawn here)
#   nblocks, npoints  blocks and data rows; xunit  "minutes", "hours" or "days"
#   outfile, term, analysis_dir  (see common.gp)
load analysis_dir."/common.gp"
set title "Nodes down over time: mean over seeds, band: 95% confidence interval"
set xlabel "time since trace start (".xunit.")"
set ylabel "node slots down (failed, not yet back)"
set yrange [0:*]
set style fill transparent solid 0.2 noborder
plot for [i=0:nblocks-1] datafile index i using 1:3:4 with filledcurves lt i+1 notitle, \
	for [i=0:nblocks-1] datafile index i using 1:2 with steps lt i+1 title columnheader(1)
