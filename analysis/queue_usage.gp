# analysis/queue_usage.gp: GPUs in use by each queue over time (one run), stacked.
# Each queue's band is solid up to its nominal quota and hatched above it (the GPUs it
# borrowed); the dashed line is the cluster's GPU capacity.
# Variables (gnuplot -e, set by `gpusched plot`):
#   datafile  queues_<run>.dat: a header line naming the series (each name three
#             times), then rows "time base_1 mid_1 top_1 base_2 mid_2 top_2 ..." (time
#             in `xunit`, GPUs): series k fills base_k..mid_k (within nominal) and
#             mid_k..top_k (above nominal); at most 12 series, the last may be "other"
#   nseries   series; hasquota  1 when the run had a quota policy (else no hatching)
#   runname   the run; palette  series colours, a gnuplot word list
#   capacity  GPUs in the cluster; xunit  "minutes", "hours" or "days"
#   outfile, term, analysis_dir  (see common.gp)
load analysis_dir."/common.gp"
set title sprintf("GPUs in use by queue, stacked: run %s%s", runname, hasquota ? "" : " (no quota policy: usage only)")
set xlabel "time since trace start (".xunit.")"
set ylabel "GPUs"
if (capacity > 0) { set yrange [0:capacity * 1.05] } else { set yrange [0:*] }
set key outside right top noautotitle invert
if (hasquota) {
	plot for [k=1:nseries] datafile using 1:(column(3*k-1)):(column(3*k)) with filledcurves \
			lc rgb word(palette, k) fs solid 0.8 noborder title columnheader(3*k), \
		for [k=1:nseries] datafile using 1:(column(3*k)):(column(3*k+1)) with filledcurves \
			lc rgb word(palette, k) fs pattern 4 border notitle, \
		NaN with filledcurves lc rgb "#555555" fs pattern 4 border title "hatched: above nominal (borrowed)", \
		capacity with lines dt 2 lw 2 lc rgb "black" title sprintf("capacity (%g GPUs)", capacity)
} else {
	plot for [k=1:nseries] datafile using 1:(column(3*k-1)):(column(3*k+1)) with filledcurves \
			lc rgb word(palette, k) fs solid 0.8 noborder title columnheader(3*k), \
		capacity with lines dt 2 lw 2 lc rgb "black" title sprintf("capacity (%g GPUs)", capacity)
}
