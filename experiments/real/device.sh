#!/usr/bin/env bash
# experiments/real/device.sh: the real-mode check on one NVIDIA H200, made to spend as
# little of a lent GPU's time as it can and to stop at the first thing that fails.
#
# Here, first:  experiments/real/device_prep.sh build-dev   (a Release build without MPI,
#               see its header: a Debug build's decision latency would mislead); carry
#               .devbin/ to the device (about 25 MB).
# There:        bash experiments/real/device.sh              (results and log in $OUT)
#
# Gates, in order; each has its own time limit, and the first that fails ends the
# script with its own exit code and a line "device.sh: FAILED at gate NAME":
#   10 prep      .devbin/ holds gpusched and gx_smoke of a Release build
#   11 gpu       nvidia-smi sees a GPU: name, driver, MIG mode, SM clocks printed (20 s)
#   12 simulate  gpusched runs (carried libraries load) and simulates both configs (60 s)
#   13 smoke     tests/device/gx_smoke.c on the experiment's footprint: 4 partitions of
#                16 SMs and 4 of 8 (12 units of 8 SMs); calibration, preempt, resume,
#                all 8 at once, close (60 s)
#   14 fifo      gpusched real fifo.json on those partitions at time scale 200 (130 s)
#   15 classical the same for classical.json (130 s)
#   16 collect   the simulated-vs-real comparison, files copied to $OUT (30 s)
# SM clocks are sampled (nvidia-smi, every 250 ms) during smoke, fifo and classical into
# $OUT/clocks-<gate>.csv and summarised in the log. A healthy run takes about 3.5
# minutes (two real runs of ~90 s); the limits add up to under 7.
#
# Environment: OUT (default results/real/device), DEVBIN (default .devbin), WORK (the
# results files, default results/real), and for
# the tests of the failure paths (tests/device_script_test.sh) the limits
# DEVICE_GPU_S, DEVICE_SIM_S, DEVICE_SMOKE_S, DEVICE_RUN_S, DEVICE_COLLECT_S.
set -euo pipefail
cd "$(dirname "$0")/../.."
devbin=${DEVBIN:-.devbin}
[ -d "$devbin" ] && devbin=$(cd "$devbin" && pwd)
out=${OUT:-results/real/device}
work=${WORK:-results/real} # the simulated and real results files
mkdir -p "$out" "$work"
log="$out/device.log"
: > "$log"
say() { echo "$*" | tee -a "$log"; }
t_start=$(date +%s)

sampler=
stop_sampler() {
	if [ -n "$sampler" ]; then
		kill "$sampler" 2>/dev/null || true
		wait "$sampler" 2>/dev/null || true
		sampler=
	fi
}
trap stop_sampler EXIT
start_sampler() { # $1: gate name
	stop_sampler
	nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.max.sm,utilization.gpu,power.draw,temperature.gpu \
		--format=csv,noheader,nounits -lms 250 > "$out/clocks-$1.csv" 2>/dev/null &
	sampler=$!
}
clock_summary() { # $1: gate name: min / median / max SM clock (MHz) of its samples
	local f="$out/clocks-$1.csv"
	[ -s "$f" ] || { say "  clocks ($1): no samples"; return 0; }
	cut -d, -f2 "$f" | tr -d ' ' | grep -E '^[0-9]+$' | sort -n | awk -v g="$1" '
		{ v[NR] = $1 } END { if (NR) printf "  SM clock during %s: min %d, median %d, max %d MHz (%d samples)\n",
			g, v[1], v[int((NR + 1) / 2)], v[NR], NR }' | tee -a "$log"
}
fail() { # $1 gate, $2 exit code, $3 why
	stop_sampler
	say "device.sh: FAILED at gate $1: $3 ($(( $(date +%s) - t_start )) s in)"
	exit "$2"
}
# gate NAME CODE LIMIT_S COMMAND...: runs it under its limit, output into the log.
gate() {
	local name=$1 code=$2 limit=$3 rc=0 t0
	shift 3
	say "== $name (limit ${limit} s)"
	t0=$(date +%s)
	timeout -k 5 "$limit" "$@" 2>&1 | tee -a "$log" || rc=${PIPESTATUS[0]}
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		fail "$name" "$code" "timed out after $limit s"
	elif [ "$rc" != 0 ]; then
		fail "$name" "$code" "exit $rc"
	fi
	say "   $name: ok in $(( $(date +%s) - t0 )) s"
}
# gpusched with the carried libraries; nothing else gets LD_LIBRARY_PATH.
gs() { env LD_LIBRARY_PATH="$devbin/lib" "$devbin/gpusched" "$@"; }

# 10 prep
[ -x "$devbin/gpusched" ] || fail prep 10 "$devbin/gpusched missing: run experiments/real/device_prep.sh BUILD here first"
[ -x "$devbin/gx_smoke" ] || fail prep 10 "$devbin/gx_smoke missing (a build without nvcc has no cuda backend)"
build_type=$(cat "$devbin/BUILD_TYPE" 2>/dev/null || echo unknown)
[ "$build_type" = Release ] || fail prep 10 "$devbin is a '$build_type' build; expected Release (device_prep.sh refuses others)"
say "== prep: $devbin of a $build_type build, $(du -sh "$devbin" | cut -f1)"

# 11 gpu
command -v nvidia-smi > /dev/null || fail gpu 11 "no nvidia-smi: no NVIDIA driver on this machine"
gate gpu 11 "${DEVICE_GPU_S:-20}" nvidia-smi \
	--query-gpu=name,driver_version,mig.mode.current,memory.total,clocks.sm,clocks.max.sm,power.limit \
	--format=csv

# 12 simulate (also proves the carried libraries load)
gate simulate 12 "${DEVICE_SIM_S:-60}" bash -c "
	$(declare -f gs); devbin='$devbin'
	gs run experiments/real/fifo.json -o '$work/fifo.h5' -q &&
	gs run experiments/real/classical.json -o '$work/classical.h5' -q && echo simulated both"

# 13 smoke on the experiment's footprint: 4 x 16 SMs + 4 x 8 SMs
start_sampler smoke
gate smoke 13 "${DEVICE_SMOKE_S:-60}" "$devbin/gx_smoke" 16 4 8 4
stop_sampler
clock_summary smoke

# 14, 15 the experiment, one policy a gate
code=14
for policy in fifo classical; do
	start_sampler "$policy"
	gate "$policy" "$code" "${DEVICE_RUN_S:-130}" env LD_LIBRARY_PATH="$devbin/lib" "$devbin/gpusched" \
		real "experiments/real/$policy.json" --backend cuda --sms fast=16,slow=8 --time-scale 200 \
		-o "$work/$policy-cuda.h5" --no-progress
	stop_sampler
	clock_summary "$policy"
	code=$((code + 1))
done

# 16 collect
collect() {
	for p in fifo classical; do
		echo "== $p: simulated vs real (cuda, time scale 200)"
		gs compare "$work/$p.h5" "$work/$p-cuda.h5" || true
		gs report "$work/$p-cuda.h5"
		cp "$work/$p.h5" "$out/$p-sim.h5"
		cp "$work/$p-cuda.h5" "$out/"
	done
}
gate collect 16 "${DEVICE_COLLECT_S:-30}" bash -c "$(declare -f gs collect); devbin='$devbin' out='$out' work='$work'; collect"
say "device.sh: PASS in $(( $(date +%s) - t_start )) s; files in $out"
ls -l "$out" | tee -a "$log"
