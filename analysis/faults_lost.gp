# analysis/faults_lost.gp: GPU-hours lost by cause, one stacked bar a variant (the mean
# over its runs that had a fault model; docs/faults.md).
# Variables (gnuplot -e, set by `gpusched plot`):
#   datafile  faults_lost.dat: a header line ("variant" and the five causes), then one
#             row a variant: its label ("fifo (3 runs)") and the mean lost GPU-hours
#             to node failures, crashes, hangs, loss spikes, and preemptions with
#             capacity removals
#   npoints   rows; outfile, term, analysis_dir  (see common.gp)
load analysis_dir."/common.gp"
set title "Work lost by cause: mean GPU-hours a run, per variant"
set ylabel "lost GPU-hours (work since the last checkpoint, and time hung)"
set yrange [0:*]
set style data histograms
set style histogram rowstacked
set boxwidth 0.6 relative
set style fill solid 0.85 noborder
set xtics rotate by -20 left
set key outside right top
plot for [k=1:5] datafile using (column(k+1)):xtic(1) lc k+1 title columnheader(k+1)
