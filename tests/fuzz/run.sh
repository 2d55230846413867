#!/bin/sh
# tests/fuzz/run.sh [SECONDS]: builds the libFuzzer targets (clang) and runs each for
# SECONDS seconds (default 5) from a copy of its seed corpus, one target at a time and
# one fuzzing job each. Prints per target the executions per second and corpus size,
# and a summary table; exits non-zero when any target crashed, hung (-timeout=10),
# leaked or ran out of memory, printing the reproducer's path. README.md in this
# folder has the details.
#
# Environment:
#   FUZZ_OPTIONAL=1    without clang or libFuzzer, print "skipped: ..." and exit 0
#                      (default: that is an error, as CI installs clang)
#   FUZZ_TARGETS="native swf"   run only these targets (default: every fuzz_*.c)
#   FUZZ_BUILD_DIR     build folder (default: build-fuzz under the repository)
#   FUZZ_OUT           where corpora and crash files go (default: a new mktemp -d);
#                      the committed corpus is never written
#   FUZZ_ARGS          extra libFuzzer flags, e.g. "-max_len=8192"
#   FUZZ_KEEP=1        keep the default FUZZ_OUT folder after a clean run (a failed run
#                      always keeps it: the reproducers are there)
#   FUZZ_BUILD_JOBS    parallel compile jobs (default 2)
set -u

secs=${1:-5}
case $secs in
'' | *[!0-9]*)
	echo "usage: tests/fuzz/run.sh [SECONDS]" >&2
	exit 2
	;;
esac

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${FUZZ_BUILD_DIR:-$root/build-fuzz}
cc=${CC:-clang}
case $cc in *clang*) ;; *) cc=clang ;; esac

missing() {
	if [ "${FUZZ_OPTIONAL:-0}" = 1 ]; then
		echo "skipped: clang/libFuzzer not found ($1)"
		exit 0
	fi
	echo "error: clang/libFuzzer not found ($1); install clang and libclang-rt-14-dev, or set FUZZ_OPTIONAL=1" >&2
	exit 1
}

command -v "$cc" >/dev/null 2>&1 || missing "no $cc on PATH"
# clang finds libclang_rt.fuzzer only when the runtime package is installed: link a
# one-line target to be sure before configuring anything.
probe=$(mktemp -d) || exit 1
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$probe/p.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" >"$probe/log" 2>&1; then
	cat "$probe/log" >&2
	rm -rf "$probe"
	missing "$cc -fsanitize=fuzzer does not link"
fi
rm -rf "$probe"

targets=${FUZZ_TARGETS:-}
if [ -z "$targets" ]; then
	for f in "$here"/fuzz_*.c; do
		t=$(basename "$f" .c)
		t=${t#fuzz_}
		case $t in util | import) continue ;; esac
		targets="$targets $t"
	done
fi

# -Werror stays off here: the fuzz build also compiles bench/ and the CUDA stand-ins,
# and a clang-only warning there must not stop the fuzzers (the gcc build enforces it).
if [ ! -f "$build/CMakeCache.txt" ]; then
	CC=$cc cmake -S "$root" -B "$build" -DSIM_FUZZ=ON -DSIM_SANITIZE=ON \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo >"$build.configure.log" 2>&1 || {
		cat "$build.configure.log" >&2
		echo "error: cmake configure of $build failed" >&2
		exit 1
	}
	rm -f "$build.configure.log"
fi
bins=
for t in $targets; do bins="$bins fuzz_$t"; done
# shellcheck disable=SC2086 # word splitting of the target list is intended
cmake --build "$build" -j "${FUZZ_BUILD_JOBS:-2}" --target $bins || {
	echo "error: building the fuzz targets failed" >&2
	exit 1
}

out=${FUZZ_OUT:-}
if [ -z "$out" ]; then
	out=$(mktemp -d "${TMPDIR:-/tmp}/gpusched-fuzz-run.XXXXXX") || exit 1
fi
mkdir -p "$out" || exit 1

# UBSan stops at the first error (SIM_SANITIZE builds with -fno-sanitize-recover) but
# prints no stack by default; the stack is what the owner of the code needs.
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
export UBSAN_OPTIONS

summary="$out/summary.txt"
printf '%-10s %-8s %10s %9s %8s %6s  %s\n' target result execs execs/s corpus new reproducer >"$summary"
failed=0
for t in $targets; do
	bin="$build/fuzz_$t"
	work="$out/$t"
	# Only a folder an earlier run made (it holds our marker) is cleared: a user's
	# FUZZ_OUT may hold other things under that name.
	if [ -e "$work" ] && [ ! -f "$work/.gpusched-fuzz" ]; then
		echo "error: $work exists and was not made by tests/fuzz/run.sh; choose another FUZZ_OUT" >&2
		exit 2
	fi
	rm -rf "$work"
	mkdir -p "$work/corpus" "$work/artifacts" "$work/tmp" && : >"$work/.gpusched-fuzz"
	[ -d "$here/corpus/$t" ] && cp "$here/corpus/$t"/* "$work/corpus/" 2>/dev/null
	dict=
	[ -f "$here/dict/$t.dict" ] && dict="-dict=$here/dict/$t.dict"
	echo "== fuzz_$t: $secs s, corpus $(find "$work/corpus" -type f | wc -l) seeds"
	# The targets' scratch folders go under TMPDIR ($work/tmp), so a crashed run's
	# leftovers are removed with $out; running from $work keeps libFuzzer's own files
	# (none expected) out of the repository.
	# shellcheck disable=SC2086 # FUZZ_ARGS is a list of flags
	(cd "$work" && TMPDIR="$work/tmp" "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$work/artifacts/" $dict ${FUZZ_ARGS:-} \
		"$work/corpus") >"$work/log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -n 1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log" | tail -n 1)
	new=$(sed -n 's/^stat::new_units_added: *//p' "$work/log" | tail -n 1)
	size=$(find "$work/corpus" -type f | wc -l)
	repro=$(find "$work/artifacts" -type f | head -n 1)
	result=ok
	if [ $rc -ne 0 ] || [ -n "$repro" ]; then
		result=FAIL
		failed=1
		# The report's head: the sanitizer's or libFuzzer's own lines and the stack.
		grep -n -m 1 -A 40 'ERROR: \|==ERROR\|runtime error\|deadly signal\|Test unit written' "$work/log" | head -n 60
		echo "fuzz_$t: FAILED (exit $rc), log $work/log"
		[ -n "$repro" ] && echo "fuzz_$t: reproducer $repro (rerun: $bin $repro)"
	fi
	echo "fuzz_$t: ${rate:-?} execs/s, ${execs:-?} execs, corpus $size (${new:-0} new)"
	printf '%-10s %-8s %10s %9s %8s %6s  %s\n' "$t" "$result" "${execs:-?}" "${rate:-?}" "$size" \
		"${new:-0}" "${repro:--}" >>"$summary"
done

echo
echo "summary ($secs s a target; corpora and logs in $out):"
cat "$summary"
if [ $failed -ne 0 ]; then
	echo "fuzz: FAILED (reproducers above)"
	exit 1
fi
[ -z "${FUZZ_OUT:-}" ] && [ "${FUZZ_KEEP:-0}" != 1 ] && rm -rf "$out" && echo "(removed $out; FUZZ_KEEP=1 keeps it)"
echo "fuzz: ok"
exit 0
