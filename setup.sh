#!/usr/bin/env bash
# setup.sh: the two commands of README.md, on a fresh Debian 12 machine (as root, or with sudo).
#
#   ./setup.sh main   install what is missing, build (Release), run the default experiment
#                     (experiments/default.json on the bundled Philly trace), write
#                     results/philly-default.h5 and PNG plots in results/plots/
#   ./setup.sh test   install what is missing, build with -Werror, run every test; then the
#                     same suite again under AddressSanitizer + UndefinedBehaviorSanitizer
set -euo pipefail
cd "$(dirname "$0")"

PACKAGES=(build-essential cmake pkg-config libgsl-dev libhdf5-dev zlib1g-dev libcjson-dev libcunit1-dev gnuplot-nox
	openmpi-bin libopenmpi-dev)
JOBS=$(nproc 2>/dev/null || echo 2)

install_missing() {
	local missing=()
	for p in "${PACKAGES[@]}"; do
		dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	echo "setup: installing ${missing[*]}"
	local sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

build() { # build DIR [cmake options...]
	local dir=$1
	shift
	# One && chain: under `stage || ...` set -e is off, and a failed configure must still stop.
	cmake -S . -B "$dir" "$@" >/dev/null && cmake --build "$dir" -j "$JOBS"
}

stage_dev() {
	build build-dev -DCMAKE_BUILD_TYPE=Debug -DSIM_WERROR=ON &&
		(cd build-dev && ctest --output-on-failure -j "$JOBS")
}

stage_asan() {
	build build-asan -DCMAKE_BUILD_TYPE=Debug -DSIM_WERROR=ON -DSIM_SANITIZE=ON &&
		(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
			ctest --output-on-failure -j "$JOBS")
}

case "${1:-}" in
main)
	install_missing
	build build -DCMAKE_BUILD_TYPE=Release
	./build/gpusched run experiments/default.json -o results/philly-default.h5
	./build/gpusched report results/philly-default.h5
	./build/gpusched plot results/philly-default.h5 -o results/plots
	echo "setup: results in results/philly-default.h5, plots in results/plots/"
	;;
test)
	install_missing
	# Both stages always run, so one failure in the first does not hide what the
	# sanitizers would have found; the verdict of each is printed at the end.
	dev=passed asan=passed
	stage_dev || dev=FAILED
	stage_asan || asan=FAILED
	echo "setup: stage 1 (Debug -Werror): $dev; stage 2 (ASan+UBSan): $asan"
	[ "$dev" = passed ] && [ "$asan" = passed ]
	;;
*)
	echo "usage: ./setup.sh main|test" >&2
	exit 2
	;;
esac
