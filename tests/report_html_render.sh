#!/bin/sh
# tests/report_html_render.sh GPUSCHED SOURCE_DIR BUILD_DIR: renders the HTML report of
# a 3-variant, 2-seed sweep in headless Chromium and keeps the screenshot as
# BUILD_DIR/report_html_screenshot.png (for a person to look at). Fails when Chromium
# cannot render the page; exit 77 (ctest: skipped) when there is no Chromium
# (Debian: chromium) or no gnuplot (the page would have no plots to render).
set -u
gpusched=$1 src=$2 build=$3
browser=
for b in chromium chromium-browser; do
	if command -v "$b" >/dev/null 2>&1; then
		browser=$b
		break
	fi
done
if [ -z "$browser" ]; then
	echo "SKIP: no chromium or chromium-browser on PATH"
	exit 77
fi
if ! command -v gnuplot >/dev/null 2>&1; then
	echo "SKIP: no gnuplot on PATH"
	exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/gpusched-html.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
"$gpusched" run "$src/tests/data/configs/sweep3x2.json" -q -o "$work/sweep.h5" || exit 1
"$gpusched" report "$work/sweep.h5" --html "$work/report.html" || exit 1
shot=$build/report_html_screenshot.png
rm -f "$shot"
# --no-sandbox: the sandbox cannot start as root (CI containers); the page has no
# script and fetches nothing. A home of its own keeps the profile out of the user's.
HOME=$work timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
	--user-data-dir="$work/profile" --window-size=1280,2400 --screenshot="$work/shot.png" \
	"file://$work/report.html" >"$work/browser.log" 2>&1
rc=$?
if [ $rc -ne 0 ] || [ ! -s "$work/shot.png" ]; then
	echo "FAIL: $browser exited $rc without a screenshot:"
	tail -20 "$work/browser.log"
	exit 1
fi
# A PNG, and larger than a blank page (a blank 1280 x 2400 PNG is a few kB).
if [ "$(head -c 4 "$work/shot.png" | od -An -c | tr -d ' \n')" != "211PNG" ]; then
	echo "FAIL: the screenshot is not a PNG"
	exit 1
fi
size=$(wc -c <"$work/shot.png")
if [ "$size" -lt 50000 ]; then
	echo "FAIL: the screenshot is $size bytes: a blank page?"
	exit 1
fi
cp "$work/shot.png" "$shot" || exit 1
echo "rendered with $browser: $shot ($size bytes)"
