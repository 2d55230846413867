# analysis/faults_ettr_size.gp: effective training time ratio by job size, one bar a
# variant in each size range (docs/faults.md, "Metrics").
# Variables (gnuplot -e, set by `gpusched plot`):
#   datafile   faults_ettr_size.dat: a header line ("GPUs" and each variant's label),
#              then one row a size range of allocated GPUs ("1", "2", "3-4", ...): the
#              ETTR of each variant's jobs in it (sum of GPUs x useful time / sum of
#              GPUs x time held, over its runs with a fault model), NaN where it had none
#   nvariants  columns after the size; npoints  rows
#   outfile, term, analysis_dir  (see common.gp)
load analysis_dir."/common.gp"
set title "Effective training time ratio by job size: useful GPU time / GPU time held"
set xlabel "job size (allocated GPUs)"
set ylabel "ETTR"
set yrange [0:1.05]
set datafile missing "NaN"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 noborder
set key outside right top
plot for [k=1:nvariants] datafile using (column(k+1)):xtic(1) lc k+1 title columnheader(k+1)
