# analysis/queue_wait.gp: CDF of job wait (submit to first start) per queue, one run.
# Variables (gnuplot -e, set by `gpusched plot`):
#   datafile  queue_wait_<run>.dat: one block a queue (most jobs first), its first line
#             the name in quotes ("prod (9 jobs)"), then "wait_s fraction" rows
#   nblocks   queues drawn; nqueues  queues of the run; hidden  queues not drawn
#   npoints   rows in all blocks; runname  the run; outfile, term, analysis_dir
# Waits under 1 s are drawn at 1 s so the log axis can show them.
load analysis_dir."/common.gp"
if (hidden > 0) {
	set title sprintf("Job wait per queue, cumulative: run %s (%d queues with most jobs of %d)", runname, nblocks, nqueues)
} else {
	set title sprintf("Job wait per queue, cumulative: run %s", runname)
}
set xlabel "wait (s, log scale; waits < 1 s drawn at 1 s)"
set ylabel "fraction of the queue's started jobs"
set logscale x
set format x "%g"
set yrange [0:1.02]
plot for [i=0:nblocks-1] datafile index i using 1:2 with steps lt i+1 title columnheader(1)
