# analysis/common.gp: terminal and style shared by every plot template.
# Loaded by the templates; expects `term` ("pngcairo" or "png") and `outfile`,
# both passed by `gpusched plot` with gnuplot -e.
if (term eq "pngcairo") {
	set terminal pngcairo size 1000,600 noenhanced font "sans,11"
} else {
	set terminal png size 1000,600 noenhanced
}
set output outfile
set grid back lc rgb "#dddddd"
set key outside right top noautotitle
set border 3
set tics nomirror
