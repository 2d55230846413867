#!/bin/sh
# install_test.sh BUILD SRC: `cmake --install` into a temporary prefix, the prefix then
# moved elsewhere (a relocated install), and `gpusched plot` run from the installed binary.
# A gnuplot wrapper first on PATH logs every template gnuplot is given: the test fails
# unless every one is under the moved prefix's share/gpusched/ and none is in SRC/analysis/
# (the templates of the build tree the binary was compiled from). Exit 77 (skipped)
# without gnuplot.
set -eu
BUILD=$1 SRC=$2
GNUPLOT=$(command -v gnuplot || true)
[ -n "$GNUPLOT" ] || { echo "skip: no gnuplot"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cmake --install "$BUILD" --prefix "$T/prefix" >"$T/install.log"
test -x "$T/prefix/bin/gpusched"
test -f "$T/prefix/share/gpusched/common.gp"
test -f "$T/prefix/share/doc/gpusched/LICENSE"
test -s "$T/prefix/share/man/man1/gpusched.1"
test -s "$T/prefix/share/bash-completion/completions/gpusched"
mv "$T/prefix" "$T/moved"
mkdir "$T/wrap"
cat >"$T/wrap/gnuplot" <<WRAP
#!/bin/sh
for a in "\$@"; do case "\$a" in *.gp) echo "\$a" >>"$T/templates.log";; esac; done
exec "$GNUPLOT" "\$@"
WRAP
chmod +x "$T/wrap/gnuplot"
cd "$T"
# A small results file, written by the installed binary from the repository's sample trace.
sed 's#"\.\./traces/data/sample\.csv"#"'"$SRC"'/traces/data/sample.csv"#' "$SRC/experiments/fifo-small.json" >cfg.json
env -u GPUSCHED_ANALYSIS_DIR "$T/moved/bin/gpusched" run cfg.json -o r.h5 -q
env -u GPUSCHED_ANALYSIS_DIR PATH="$T/wrap:$PATH" "$T/moved/bin/gpusched" plot r.h5 -o plots -q
test -s plots/wait_cdf.png
test -s templates.log
if grep -v "^$T/moved/share/gpusched/" templates.log; then
	echo "FAIL: templates read from outside the installed prefix (above)"
	exit 1
fi
echo "ok: $(wc -l <templates.log) templates, all from the installed share/gpusched/"
