# analysis/common.gp: terminal and style shared by every plot template.
# Loaded by the templates; expects `term` ("pngcairo" or "png", "pdfcairo", "svg")
# and `outfile`, both passed by `gpusched plot` with gnuplot -e.
if (term eq "pngcairo") {
	set terminal pngcairo size 1000,600 noenhanced font "sans,11"
} else {
	if (term eq "pdfcairo") {
		set terminal pdfcairo size 10in,6in noenhanced font "sans,11"
	} else {
		if (term eq "svg") {
			set terminal svg size 1000,600 noenhanced font "sans,11" background "white"
		} else {
			set terminal png size 1000,600 noenhanced
		}
	}
}
set output outfile
set grid back lc rgb "#dddddd"
set key outside right top noautotitle
set border 3
set tics nomirror
# Series styles 1..12, then again (a plot with more series says so in its key):
# Okabe-Ito's colour-blind safe colours and four of Paul Tol's, each with its own
# dash pattern and point type, so series stay apart past 8 and when printed in
# grey (neighbours differ in lightness as well as hue).
array series_rgb[12] = ["#000000", "#E69F00", "#0072B2", "#009E73", "#D55E00", "#56B4E9", \
                        "#CC79A7", "#999933", "#882255", "#44AA99", "#AA4499", "#6E6E6E"]
array series_dt[12] = [1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 1, 2]
array series_pt[12] = [7, 5, 9, 11, 13, 4, 6, 8, 10, 12, 14, 2]
do for [k=1:12] {
	set linetype k lc rgb series_rgb[k] dt series_dt[k] pt series_pt[k] lw 2
}
set linetype cycle 12
