# analysis/preemptions.gp: preemptions over time (one run), counted per bin and
# stacked by reason.
# Variables (gnuplot -e, set by `gpusched plot`):
#   datafile  preemptions_<run>.dat: a header line ("time" and each reason that
#             occurs), then one row a bin: its centre (in `xunit`) and the cumulative
#             counts (reason 1, reasons 1 and 2, ...)
#   nreasons  reasons (columns after the time); colors  their colours, a word list
#   binwidth  bin width in `xunit`; binname  "hour", "day" or "N days"
#   runname   the run; xunit  "hours" or "days"
#   outfile, term, analysis_dir  (see common.gp)
load analysis_dir."/common.gp"
set title sprintf("Preemptions per %s by reason: run %s", binname, runname)
set xlabel "time since trace start (".xunit.")"
set ylabel sprintf("preemptions per %s", binname)
set yrange [0:*]
set xrange [0:*]
set boxwidth binwidth * 0.9 absolute
# the highest cumulative count first, so each reason's part shows above the one below
plot for [k=nreasons:1:-1] datafile using 1:(column(k+1)) with boxes \
	lc rgb word(colors, k) fs solid 0.85 noborder title columnheader(k+1)
