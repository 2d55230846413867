#!/bin/sh
# make_man.sh GPUSCHED OUT.1: the man page gpusched(1), generated from the help texts of the
# binary (`gpusched --help` and `gpusched VERB --help` of every verb), so it says exactly what
# --help says. CMake runs it after each build of gpusched (build/gpusched.1) and
# `cmake --install` puts it in share/man/man1/. VERBS below is the list of cli/main.c.
set -eu
G=$1 OUT=$2
VERBS="run report plot trace|validate trace|stats trace|import trace|gen explain compare plan cluster|import real config|import export"
# roff: a backslash is \e, a line starting with . or ' is protected by \&.
esc() { sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"; }
p() { printf '%s\n' "$*"; } # dash's echo would read the roff escapes
tmp=$OUT.tmp.$$
{
	echo ".TH GPUSCHED 1 \"\" \"$("$G" --version)\" \"User Commands\""
	echo ".SH NAME"
	p 'gpusched \- discrete-event simulator of GPU-cluster scheduling policies'
	echo ".SH SYNOPSIS"
	echo ".B gpusched"
	echo ".I VERB"
	p '[\fIOPTIONS\fR] [\fB\-\-help\fR]'
	echo ".SH DESCRIPTION"
	echo ".nf"
	"$G" --help | esc
	echo ".fi"
	echo ".SH COMMANDS"
	for v in $VERBS; do
		words=$(echo "$v" | tr '|' ' ')
		echo ".SS gpusched $words"
		echo ".nf"
		# shellcheck disable=SC2086
		"$G" $words --help | esc
		echo ".fi"
	done
	echo ".SH EXIT STATUS"
	p '0 ok, 1 runtime failure, 2 bad input (every error with its location). \fBcompare\fR: 1 a'
	p '\fB\-\-fail\-if\fR rule failed, 2 bad input, 3 the comparison could not finish.'
	echo ".SH ENVIRONMENT"
	echo ".TP"
	echo ".B GPUSCHED_ANALYSIS_DIR"
	p 'the folder of the gnuplot templates of \fBplot\fR and \fBplan\fR; by default'
	p '\fI../share/gpusched\fR beside an installed binary.'
	echo ".TP"
	echo ".B GPUSCHED_PHASES"
	p 'when set, \fBrun\fR prints on stderr the wall seconds of each phase (load, check, setup,'
	p 'simulate, metrics, write, ...) as lines \fBphase NAME S\fR (bench/README.md).'
	echo ".SH SEE ALSO"
	echo "README.md and docs/ of the source repository (installed in share/doc/gpusched/)."
} >"$tmp"
mv "$tmp" "$OUT"
