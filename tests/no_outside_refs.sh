#!/bin/sh
# tests/no_outside_refs.sh SRC_DIR: fails when a tracked file refers to a document or a
# folder outside the repository (the background documents that once lived beside it,
# or the sibling folder of shared data), so that a fresh clone stands alone. The
# rules those documents held are in docs/; the trace samples are in traces/samples.
# The patterns are written with [.] so that this file does not match itself.
set -eu
src=${1:-.}
cd "$src"
pattern='(DESIGN|KUEUE|SCENARIO|STYLE)[.]md|[.][.]/shared|/work[/]shared|shared[/]traces|shared[/](DESIGN|KUEUE|SCENARIO|STYLE)'
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# Tracked files plus new ones not yet added (not ignored): what a commit would hold.
	files=$(git ls-files --cached --others --exclude-standard)
else
	files=$(find . -type f ! -path './.git/*' ! -path './build*' | sed 's|^\./||')
fi
hits=$(printf '%s\n' "$files" | while IFS= read -r f; do
	[ -f "$f" ] && grep -nIE "$pattern" "$f" /dev/null || true
done)
if [ -n "$hits" ]; then
	printf '%s\n' "$hits"
	echo "no_outside_refs: $(printf '%s\n' "$hits" | wc -l) references outside the repository (above); point them at docs/ or traces/samples/" >&2
	exit 1
fi
echo "no_outside_refs: no tracked file refers outside the repository"
