#!/usr/bin/env bash
# readme_commands.sh REPO GPUSCHED: every command of every ```sh block of REPO/README.md, run
# as written, one line at a time (bash -e -o pipefail), in a fresh clone of REPO (git clone into
# a temporary folder: the committed HEAD, not uncommitted changes), with HOME a temporary folder
# too; the first command that exits non-zero fails the test and is printed with its output.
# Blocks fenced ```text (the synopsis of the verbs, with placeholders) are not commands.
#
# To stay fast (ctest readme_commands: about 30 s), by default:
#   - build/gpusched in the clone is GPUSCHED (the binary of the build under test), not a
#     Release build of the clone (about a minute and a half on 2 cores);
#   - lines that take minutes are skipped, each with its reason printed: `./setup.sh test`
#     (the whole suite three times: it is what runs this test), `./setup.sh main` (a Release
#     build; its experiment alone, experiments/default/run.sh, takes about 30 s), the
#     Development block (Debug and ASan builds and the suite), `cmake --install` (needs the
#     clone's own build tree; ctest install_plot installs and plots);
#   - `--time-scale 200` becomes `--time-scale 2000` (real mode: 85 s of wall clock become 8.5 s).
# README_FULL=1 runs everything but `./setup.sh test` and the Development block as written
# (./setup.sh main builds build/ in the clone; a few minutes).
# After the README, it also runs `trace import` on every raw sample of traces/samples/ that the
# samples README lists in its table (format and file), in the clone.
set -uo pipefail
REPO=$(cd "$1" && pwd)
GPUSCHED=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
FULL=${README_FULL:-0}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
git clone -q "$REPO" "$T/clone" || { echo "FAIL: git clone $REPO"; exit 1; }
mkdir -p "$T/home"
cd "$T/clone"
if [ "$FULL" != 1 ]; then
	mkdir -p build && cp "$GPUSCHED" build/gpusched
fi

# The ```sh blocks, one command a line; "BLOCK<TAB>LINE" with the heading above each block.
awk '
	/^## / { head = substr($0, 4) }
	/^```sh$/ { inb = 1; next }
	/^```/ { inb = 0; next }
	inb && NF && $1 !~ /^#/ { print head "\t" $0 }
' README.md >"$T/commands.tsv"
n=$(wc -l <"$T/commands.tsv")
[ "$n" -gt 0 ] || { echo "FAIL: no sh block found in README.md"; exit 1; }

skip_reason() { # skip_reason HEADING LINE: prints why the line is skipped, or nothing
	case "$1" in Development) echo "the Development block builds and tests for minutes"; return ;; esac
	case "$2" in
	"./setup.sh test"*) echo "the whole suite, three times (it is what runs this test)" ;;
	"./setup.sh main"*) [ "$FULL" = 1 ] || echo "a Release build of the clone (README_FULL=1 runs it)" ;;
	"cmake --install"* | '"$HOME/.local/bin/gpusched"'*)
		[ "$FULL" = 1 ] || echo "needs the clone's own build tree (ctest install_plot tests install)" ;;
	esac
}

ran=0 skipped=0
while IFS=$'\t' read -r head line; do
	why=$(skip_reason "$head" "$line")
	if [ -n "$why" ]; then
		echo "skip [$head] $line  ($why)"
		skipped=$((skipped + 1))
		continue
	fi
	cmd=${line//--time-scale 200 /--time-scale 2000 }
	[ "$cmd" = "$line" ] || echo "shortened: --time-scale 200 -> 2000"
	echo "run  [$head] $cmd"
	# Under the sanitizer build (setup.sh's stage 2 sets ASAN_OPTIONS) OpenMPI's own
	# allocations read as leaks at exit: no leak check for the mpirun line (the
	# run_parallel suite does the same); our code's leaks are checked by every suite.
	env_asan=${ASAN_OPTIONS:-}
	case "$cmd" in mpirun*) env_asan="${env_asan:+$env_asan:}detect_leaks=0" ;; esac
	start=$(date +%s)
	if ! HOME="$T/home" ASAN_OPTIONS="$env_asan" bash -e -o pipefail -c "$cmd" </dev/null >"$T/out.txt" 2>&1; then
		echo "FAIL: README.md [$head]: $line"
		tail -n 30 "$T/out.txt"
		exit 1
	fi
	echo "     ok ($(($(date +%s) - start)) s)"
	ran=$((ran + 1))
done <"$T/commands.tsv"

# Every raw sample the samples README lists in its table: "| `FILE` | `FMT` ..." is a trace
# (trace import), "| `FILE` | cluster `FMT` (`--id ID`, ...) ..." a node list (cluster import).
G=build/gpusched
[ -x "$G" ] || G=$GPUSCHED
samples=0
while IFS='|' read -r kind file fmt id; do
	if [ "$kind" = trace ]; then
		set -- trace import --format "$fmt" "traces/samples/$file" -o "$T/sample.csv"
	else
		set -- cluster import --format "$fmt" ${id:+--id "$id"} "traces/samples/$file" -o "$T/sample.json"
	fi
	echo "run  gpusched $*"
	if ! "$G" "$@" </dev/null >"$T/out.txt" 2>&1; then
		echo "FAIL: gpusched $*"
		tail -n 20 "$T/out.txt"
		exit 1
	fi
	samples=$((samples + 1))
done < <(awk -F'|' '/^\| `/ {
	f = $2; gsub(/[ `]/, "", f); m = $3; kind = "trace"
	if (m ~ /^ *cluster /) { kind = "cluster"; sub(/^ *cluster /, "", m) }
	id = ""; if (match(m, /--id [A-Za-z0-9]+/)) id = substr(m, RSTART + 5, RLENGTH - 5)
	split(m, w, "`"); fmt = w[2]
	print kind "|" f "|" fmt "|" id
}' traces/samples/README.md)
[ "$samples" -gt 0 ] || { echo "FAIL: no sample found in traces/samples/README.md"; exit 1; }

# Nothing in the clone refers outside it.
if ! sh tests/no_outside_refs.sh "$T/clone" >"$T/out.txt" 2>&1; then
	echo "FAIL: the clone refers outside itself"
	cat "$T/out.txt"
	exit 1
fi
echo "ok: $ran README commands run, $skipped skipped, $samples samples imported, no outside reference"
