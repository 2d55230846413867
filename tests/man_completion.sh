#!/usr/bin/env bash
# man_completion.sh GPUSCHED MAN SRC: the generated man page has a section for every verb and
# formats without warnings (when man is installed); the bash completion completes verbs,
# sub-verbs and a verb's options (read from its --help).
set -euo pipefail
G=$1 MAN=$2 SRC=$3
test -s "$MAN"
for v in run report plot "trace validate" "trace stats" "trace import" "trace gen" explain compare plan \
	"cluster import" real "config import" export; do
	grep -q "^\.SS gpusched $v\$" "$MAN" || { echo "FAIL: no section for '$v' in $MAN"; exit 1; }
done
if command -v man >/dev/null; then
	warn=$(MANWIDTH=80 man --warnings -l "$MAN" 2>&1 >/dev/null || true)
	[ -z "$warn" ] || { echo "FAIL: man warnings: $warn"; exit 1; }
fi
# shellcheck source=/dev/null
source "$SRC/cli/gpusched.bash"
complete_words() { # complete_words WORD...: COMPREPLY for the last word
	COMP_WORDS=("$G" "$@")
	COMP_CWORD=$#
	COMPREPLY=()
	_gpusched
	echo "${COMPREPLY[*]}"
}
[ "$(complete_words ex)" = "explain export" ] || { echo "FAIL: verbs: $(complete_words ex)"; exit 1; }
[ "$(complete_words trace i)" = "import" ] || { echo "FAIL: trace sub-verbs"; exit 1; }
out=$(complete_words plot --ou)
[ "$out" = "--output" ] || { echo "FAIL: plot --ou -> '$out'"; exit 1; }
out=$(complete_words trace import --for)
[ "$out" = "--format" ] || { echo "FAIL: trace import --for -> '$out'"; exit 1; }
echo "ok: man page sections for every verb; completion of verbs, sub-verbs and options"
