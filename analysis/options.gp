# analysis/options.gp: histogram of the chosen option index (one run): how many of the
# run's started jobs ran on each option of their preference lists (0 = the first).
# Variables (gnuplot -e, set by `gpusched plot`):
#   datafile  options_<run>.dat: a header line, then one row an option index: "option jobs"
#   noptions  rows (option indices 0 .. noptions-1); maxjobs  the largest count
#   started   started jobs of the run (the sum of the counts); runname  the run
#   outfile, term, analysis_dir  (see common.gp)
load analysis_dir."/common.gp"
set title sprintf("Chosen option: run %s (%d started jobs)", runname, started)
set xlabel "option index (0 = first preference)"
set ylabel "jobs started on the option"
set xrange [-0.5:noptions - 0.5]
set xtics 1
set yrange [0:(maxjobs > 0 ? maxjobs * 1.15 : 1)]
set boxwidth 0.6 absolute
# bars, with each count written above its bar
plot datafile using 1:2 with boxes lc rgb "#1f77b4" fs solid 0.85 noborder notitle, \
	datafile using 1:2:(sprintf("%d", int(column(2)))) with labels offset 0,0.8 notitle
