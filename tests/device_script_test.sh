#!/usr/bin/env bash
# tests/device_script_test.sh GPUSCHED [GX_SMOKE]: the failure paths of
# experiments/real/device.sh on a machine without a GPU (ctest device_script). Each
# case makes a .devbin of its own (DEVBIN), stubs what it needs (nvidia-smi on PATH,
# gx_smoke), and checks that the script stops at the expected gate with that gate's
# exit code and its "FAILED at gate" line, and leaves the log in $OUT. GX_SMOKE, when
# the build has the cuda backend, is the real smoke test: with no GPU it must fail
# the smoke gate by itself. Hangs are bounded by the gates' limits, set short here.
set -uo pipefail
gpusched=$(readlink -f "$1")
gx_smoke=${2:+$(readlink -f "$2")}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

# devbin NAME BUILD_TYPE SMOKE: a .devbin with the build's gpusched and the given gx_smoke.
devbin() {
	local d="$tmp/$1"
	mkdir -p "$d/lib"
	ln -s "$gpusched" "$d/gpusched"
	echo "$2" > "$d/BUILD_TYPE"
	case "$3" in
	real) ln -s "$gx_smoke" "$d/gx_smoke" ;;
	fail) printf '#!/bin/sh\necho "FAIL: open"; exit 1\n' > "$d/gx_smoke" ;;
	hang) printf '#!/bin/sh\nexec sleep 600\n' > "$d/gx_smoke" ;;
	pass) printf '#!/bin/sh\necho "PASS: 0 check(s) failed"\n' > "$d/gx_smoke" ;;
	esac
	chmod +x "$d/gx_smoke" 2>/dev/null
	echo "$d"
}
# A PATH whose nvidia-smi is the stub given: none (the machine's driver cannot talk
# to a GPU, as nvidia-smi says on a machine without one) or one that reports an H200.
stub_path() {
	local b="$tmp/bin-$1"
	mkdir -p "$b"
	case "$1" in
	nogpu) printf '#!/bin/sh\necho "NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver."\nexit 9\n' > "$b/nvidia-smi" ;;
	h200) printf '#!/bin/sh\ncase "$*" in *-lms*) exec sleep 600 ;; esac\necho "name, driver_version, mig.mode.current"\necho "NVIDIA H200, 580.00, Disabled"\n' > "$b/nvidia-smi" ;;
	esac
	chmod +x "$b/nvidia-smi"
	echo "$b:$PATH"
}
# expect CASE CODE GATE [PATTERN] -- ENV...: runs device.sh with ENV, checks the result.
expect() {
	local name=$1 code=$2 gate=$3 pattern=$4
	shift 5
	local out="$tmp/out-$name" rc
	env OUT="$out" WORK="$tmp/work-$name" DEVICE_SMOKE_S=5 DEVICE_RUN_S=20 "$@" \
		bash "$root/experiments/real/device.sh" > "$tmp/$name.txt" 2>&1
	rc=$?
	local ok=1
	[ "$rc" = "$code" ] || ok=0
	grep -q "device.sh: FAILED at gate $gate" "$tmp/$name.txt" || ok=0
	grep -q "device.sh: FAILED at gate $gate" "$out/device.log" 2>/dev/null || ok=0
	[ -z "$pattern" ] || grep -q -- "$pattern" "$tmp/$name.txt" || ok=0
	if [ "$ok" = 1 ]; then
		echo "ok: $name: exit $rc at gate $gate"
	else
		echo "FAIL: $name: expected exit $code at gate $gate${pattern:+ with '$pattern'}, got exit $rc:"
		sed 's/^/  | /' "$tmp/$name.txt"
		fails=$((fails + 1))
	fi
}

expect no_devbin 10 prep "device_prep.sh BUILD here first" -- DEVBIN="$tmp/none"
expect debug_build 10 prep "expected Release" -- DEVBIN="$(devbin debug Debug pass)"
expect no_gpu 11 gpu "exit 9" -- DEVBIN="$(devbin nogpu Release pass)" PATH="$(stub_path nogpu)"
if [ -n "$gx_smoke" ]; then
	# The real smoke test finds no driver (or no device) and fails by itself.
	expect smoke_no_driver 13 smoke "exit 1" -- DEVBIN="$(devbin real Release real)" PATH="$(stub_path h200)" \
		GPUSCHED_LIBCUDA="$tmp/none/libcuda.so.1"
fi
expect smoke_fails 13 smoke "exit 1" -- DEVBIN="$(devbin fail Release fail)" PATH="$(stub_path h200)"
expect smoke_hangs 13 smoke "timed out after 5 s" -- DEVBIN="$(devbin hang Release hang)" PATH="$(stub_path h200)"
# The smoke passes (stub); the experiment's first real run needs a GPU and fails.
expect fifo_no_gpu 14 fifo "exit 2" -- DEVBIN="$(devbin pass Release pass)" PATH="$(stub_path h200)" \
	GPUSCHED_LIBCUDA="$tmp/none/libcuda.so.1"
[ -n "${KEEP:-}" ] && cat "$tmp/fifo_no_gpu.txt"
[ "$fails" = 0 ] && echo "device_script: all cases passed" || echo "device_script: $fails case(s) failed"
[ "$fails" = 0 ]
