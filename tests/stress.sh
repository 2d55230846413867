#!/usr/bin/env bash
# tests/stress.sh: the whole test suite, both stages of `./setup.sh test`, PASSES times
# in a row while CPU burners keep every core busy, as on a newcomer's loaded machine.
#
#   tests/stress.sh [PASSES]      default 10 passes
#   BURNERS=N tests/stress.sh     N busy-loop processes (default: one per core)
#
# The burners are started before the first pass and stopped when the script exits,
# however it exits. Each pass's full log is kept in stress-logs/pass-N.log; the script
# prints one line a pass (verdict of each stage, the load average, seconds) and exits 1
# unless every pass passed.
set -uo pipefail
cd "$(dirname "$0")/.."

PASSES=${1:-10}
BURNERS=${BURNERS:-$(nproc 2>/dev/null || echo 2)}
LOGS=stress-logs
mkdir -p "$LOGS"

pids=()
stop_burners() {
	[ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null
	wait 2>/dev/null
}
trap stop_burners EXIT
trap 'exit 130' INT TERM

for _ in $(seq "$BURNERS"); do
	(while :; do :; done) &
	pids+=($!)
done
echo "stress: $PASSES passes of ./setup.sh test with $BURNERS CPU burners on $(nproc) cores"

failed=0
for pass in $(seq "$PASSES"); do
	log="$LOGS/pass-$pass.log"
	t0=$(date +%s)
	./setup.sh test >"$log" 2>&1
	rc=$?
	t1=$(date +%s)
	verdict=$(grep -a '^setup: stage 1' "$log" | tail -n 1)
	[ -n "$verdict" ] || verdict="setup did not reach the tests (see $log)"
	load=$(cut -d' ' -f1 /proc/loadavg)
	if [ $rc -eq 0 ]; then
		echo "pass $pass/$PASSES: ok     load $load, $((t1 - t0)) s: ${verdict#setup: }"
	else
		failed=$((failed + 1))
		echo "pass $pass/$PASSES: FAILED load $load, $((t1 - t0)) s: ${verdict#setup: }"
		grep -a -E '\*\*\*Failed|\(Failed\)|Timeout|^ +[0-9]+\. .*:[0-9]+ +- ' "$log" | head -n 20 | sed 's/^/    /'
	fi
done
echo "stress: $((PASSES - failed)) of $PASSES passes green"
[ $failed -eq 0 ]
