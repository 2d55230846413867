#!/usr/bin/env bash
# setup.sh: the two commands of README.md, on a fresh Debian 12 machine (as root, or with sudo).
#
#   ./setup.sh main   install what is missing, build (Release), run the default experiment
#                     (experiments/default/: quotas per team on the bundled Philly trace,
#                     fallback under stock-outs on openb), print its summary, write
#                     results/default/*.h5 and PNG plots in results/default/plots/
#   ./setup.sh test   install what is missing, build with -Werror, run every test; then the
#                     same suite again under AddressSanitizer + UndefinedBehaviorSanitizer;
#                     then each libFuzzer target of tests/fuzz/ on FUZZ_RUNS inputs (default 3000)
set -euo pipefail
cd "$(dirname "$0")"

PACKAGES=(build-essential cmake pkg-config libgsl-dev libhdf5-dev zlib1g-dev libcjson-dev libyaml-dev libcunit1-dev gnuplot-nox
	openmpi-bin libopenmpi-dev)
# `test` only: clang and its libFuzzer runtime (the fuzz stage); chromium renders the HTML
# report (ctest report_html_render, skipped without it).
TEST_PACKAGES=(clang libclang-rt-14-dev)
# Optional: a failed install leaves the test that needs it skipping, not the whole run red.
OPTIONAL_TEST_PACKAGES=(chromium)
JOBS=$(nproc 2>/dev/null || echo 2)

install_missing() { # install_missing [extra packages...]
	local missing=()
	for p in "${PACKAGES[@]}" "$@"; do
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

# README_FULL=1: the readme_commands test runs `./setup.sh main` and every README command
# as written in a fresh clone (the fresh-clone check; once, here, not again under ASan).
stage_dev() {
	build build-dev -DCMAKE_BUILD_TYPE=Debug -DSIM_WERROR=ON &&
		(cd build-dev && README_FULL=1 ctest --output-on-failure -j "$JOBS")
}

stage_asan() {
	build build-asan -DCMAKE_BUILD_TYPE=Debug -DSIM_WERROR=ON -DSIM_SANITIZE=ON &&
		(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
			ctest --output-on-failure -j "$JOBS")
}

# A fixed seed and a fixed number of inputs a target (about 1 to 15 s each on 2 cores),
# not a time: the same commit fuzzes the same inputs on every machine, so a CI verdict
# can be reproduced. tests/fuzz/README.md has the long local run.
FUZZ_RUNS=${FUZZ_RUNS:-3000}
stage_fuzz() {
	FUZZ_ARGS="-seed=1 -runs=$FUZZ_RUNS" tests/fuzz/run.sh 120
}

case "${1:-}" in
main)
	install_missing
	build build -DCMAKE_BUILD_TYPE=Release
	experiments/default/run.sh build/gpusched results/default
	;;
test)
	install_missing "${TEST_PACKAGES[@]}"
	install_missing "${OPTIONAL_TEST_PACKAGES[@]}" ||
		echo "setup: ${OPTIONAL_TEST_PACKAGES[*]} not installed; report_html_render will be skipped"
	# Every stage always runs, so one failure in the first does not hide what the
	# sanitizers or the fuzzers would have found; the verdict of each is printed at the end.
	dev=passed asan=passed fuzz=passed
	stage_dev || dev=FAILED
	stage_asan || asan=FAILED
	stage_fuzz || fuzz=FAILED
	echo "setup: stage 1 (Debug -Werror): $dev; stage 2 (ASan+UBSan): $asan; stage 3 (fuzz, $FUZZ_RUNS inputs a target): $fuzz"
	[ "$dev" = passed ] && [ "$asan" = passed ] && [ "$fuzz" = passed ]
	;;
*)
	echo "usage: ./setup.sh main|test" >&2
	exit 2
	;;
esac
