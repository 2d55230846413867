# analysis/flavor_busy.gp: busy (allocated) GPUs of each flavor over time, one run.
# Variables (gnuplot -e, set by `gpusched plot`):
#   datafile  flavor_busy_<run>.dat: a header line ("time" and each flavor's name), then
#             rows "time busy_1 .. busy_k" (time in `xunit`; each value the time-weighted
#             mean of its bucket of samples)
#   nflavors  flavors (columns after time); npoints  rows; runname  the run
#   xunit     "minutes", "hours" or "days"; outfile, term, analysis_dir (see common.gp)
load analysis_dir."/common.gp"
set title sprintf("Busy GPUs by flavor over time: run %s", runname)
set xlabel "time since trace start (".xunit.")"
set ylabel "busy GPUs"
set yrange [0:*]
set key autotitle columnheader
plot for [k=2:nflavors+1] datafile using 1:k with steps lt k-1 title columnheader(k)
