/* cli/cmd_export.c: gpusched export RESULTS.h5 --table T [--format csv|tsv]
 * [--runs PATTERN] [-o FILE|-]
 *
 * Every argument is checked, the file opened and the runs selected before anything
 * is written; a file output is written under a temporary beside it and renamed
 * once complete (sim/outpath.h), so a failure leaves no half-written FILE.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef SIM_HAVE_ZLIB
#include <zlib.h>
#endif

#include "../analysis/export.h"
#include "../analysis/h5read.h"
#include "../sim/outpath.h"
#include "cmd.h"

static const char export_usage[] =
	"usage: gpusched export RESULTS.h5 --table TABLE [--format csv|tsv] [--runs PATTERN]\n"
	"                       [-o FILE|-]\n"
	"       (options may come before or after RESULTS.h5; --table=T, -oFILE, --output FILE\n"
	"       work too; -- ends the options)\n"
	"\n"
	"Writes one table of a results file over all its runs as one long, tidy table: a\n"
	"header row, then one row a table row of every selected run. Each row starts with\n"
	"run, variant, seed and one column a swept parameter (schema 1.5), then every field\n"
	"of the table as stored (analysis/SCHEMA.md has names, units and formulas).\n"
	"\n"
	"  --table TABLE     jobs, summary, timeseries (one row a sample; 2-D series as\n"
	"                    one column a flavor or queue: gpus_busy_by_flavor[v100]),\n"
	"                    queues, decisions, options, real_jobs, real_segments,\n"
	"                    real_calibration (real mode), faults (runs with a fault\n"
	"                    model)\n"
	"  --format F        csv (default; RFC 4180 quoting) or tsv (tabs and line breaks\n"
	"                    in a value become spaces)\n"
	"  --runs PATTERN    only runs whose name matches the shell pattern (fnmatch), e.g.\n"
	"                    '4_*' or '*-s1'; a pattern that matches no run is an error\n"
	"  -o, --output FILE write FILE (gzip-compressed when it ends in .gz); - or no -o:\n"
	"                    standard output\n"
	"\n"
	"Missing values (NaN) are empty cells; numbers are written so they read back exactly.\n"
	"\n"
	"exit codes: 0 ok, 1 runtime failure (a write failed), 2 bad input (bad arguments,\n"
	"missing or unreadable file, unsupported schema_version, no run matches)\n";

struct export_args {
	const char *path, *out, *table, *format, *runs;
};

static int bad(const char *msg, const char *arg)
{
	return cmd_usage_error("export", export_usage, "%s%s%s", msg, arg ? " " : "", arg ? arg : "");
}

/* Parses argv; returns -1 for --help (printed), 0, or an exit code > 0. */
static int parse_args(int argc, char **argv, struct export_args *a)
{
	static const struct option longs[] = {
		{ "help", no_argument, NULL, 'h' },	   { "table", required_argument, NULL, 't' },
		{ "format", required_argument, NULL, 'f' }, { "runs", required_argument, NULL, 'r' },
		{ "output", required_argument, NULL, 'o' }, { NULL, 0, NULL, 0 },
	};
	optind = 0; /* glibc: a full restart of getopt's scan */
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":ho:", longs, NULL)) != -1) {
		const char **dst = c == 't' ? &a->table : c == 'f' ? &a->format : c == 'r' ? &a->runs
				 : c == 'o' ? &a->out : NULL;
		if (c == 'h') {
			fputs(export_usage, stdout);
			return -1;
		} else if (dst) {
			if (*dst)
				return bad("option given twice:", c == 't' ? "--table" : c == 'f' ? "--format"
								  : c == 'r' ? "--runs" : "-o");
			*dst = optarg;
		} else {
			return cmd_getopt_error("export", export_usage, c, argv);
		}
	}
	for (int i = optind; i < argc; i++) {
		if (a->path)
			return bad("expected one results file, got another:", argv[i]);
		a->path = argv[i];
	}
	if (!a->path)
		return bad("expected a results file (RESULTS.h5)", NULL);
	if (!a->table)
		return bad("expected --table", export_table_list());
	return 0;
}

/* 1 when name ends in ".gz". */
static int gz_name(const char *name)
{
	size_t n = strlen(name);
	return n > 3 && strcmp(name + n - 3, ".gz") == 0;
}

/* Opens the sink on descriptor fd (gzip when gz). */
static int sink_open(struct export_sink *s, int fd, int gz)
{
	memset(s, 0, sizeof *s);
#ifdef SIM_HAVE_ZLIB
	if (gz) {
		s->gz = gzdopen(fd, "wb");
		return s->gz ? 0 : -1;
	}
#else
	(void)gz;
#endif
	s->f = fdopen(fd, "w");
	return s->f ? 0 : -1;
}

/* Closes the sink; 0 or the errno of the first failure. */
static int sink_close(struct export_sink *s)
{
	int err = s->err;
#ifdef SIM_HAVE_ZLIB
	if (s->gz) {
		if (gzclose((gzFile)s->gz) != Z_OK && !err)
			err = errno ? errno : EIO;
		return err;
	}
#endif
	int cerr = sim_out_close(s->f);
	return err ? err : cerr;
}

/* The export into FILE: a temporary beside it, renamed when complete. */
static int export_to_file(const struct h5read_file *f, const struct export_opts *o, const char *out,
			  struct sim_diag *diag)
{
	char *tmp = NULL;
	int fd = sim_out_tmp_create(out, &tmp);
	if (fd < 0) {
		sim_diag_add(diag, out, "cannot create a temporary file beside it: %s", strerror(errno));
		return -SIM_EIO;
	}
	struct export_sink s;
	size_t rows = 0;
	int rc = 0;
	if (sink_open(&s, fd, gz_name(out)) < 0) {
		close(fd);
		sim_diag_add(diag, out, "cannot open the output: %s", strerror(errno));
		rc = -SIM_EIO;
	} else {
		rc = export_write(f, o, &s, &rows, diag);
		int err = sink_close(&s);
		if (err && (rc == 0 || rc == -SIM_EIO)) {
			sim_diag_add(diag, out, "cannot write: %s", sim_out_write_error(err));
			rc = -SIM_EIO;
		}
	}
	if (rc == 0 && rename(tmp, out) != 0) {
		sim_diag_add(diag, out, "cannot rename %s: %s", tmp, strerror(errno));
		rc = -SIM_EIO;
	}
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
}

static int export_to_stdout(const struct h5read_file *f, const struct export_opts *o, struct sim_diag *diag)
{
	struct export_sink s = { .f = stdout };
	size_t rows = 0;
	int rc = export_write(f, o, &s, &rows, diag);
	if (cmd_stdout_failed() && !s.err)
		s.err = errno ? errno : EIO;
	if (s.err) {
		sim_diag_add(diag, "-", "cannot write: %s", sim_out_write_error(s.err));
		rc = -SIM_EIO;
	}
	return rc;
}

/* The options from the arguments; an exit code > 0 on a bad value. */
static int make_opts(const struct export_args *a, struct export_opts *o)
{
	memset(o, 0, sizeof *o);
	if (export_table_parse(a->table, &o->table) < 0)
		return bad("unknown --table; expected one of", export_table_list());
	if (!a->format || strcmp(a->format, "csv") == 0)
		o->sep = ',';
	else if (strcmp(a->format, "tsv") == 0)
		o->sep = '\t';
	else
		return bad("unknown --format (expected csv or tsv):", a->format);
	if (a->out && strcmp(a->out, "-") != 0 && gz_name(a->out) && !export_have_gzip())
		return bad("this gpusched is built without zlib; cannot write", a->out);
	o->runs_pattern = a->runs;
	return 0;
}

/* Checks that the pattern selects a run: nothing is written otherwise. */
static int check_runs(const struct h5read_file *f, const char *pattern, struct sim_diag *diag)
{
	size_t *idx = NULL, n = 0;
	int rc = export_select_runs(f, pattern, &idx, &n);
	free(idx);
	if (rc)
		return rc;
	if (n == 0 && pattern) {
		sim_diag_add(diag, h5read_path(f), "no run matches --runs '%s' (%zu runs in the file)", pattern,
			     h5read_n_runs(f));
		return -SIM_EINVAL;
	}
	return 0;
}

int cmd_export(int argc, char **argv)
{
	struct export_args a = { 0 };
	struct export_opts o;
	int ex = parse_args(argc, argv, &a);
	if (ex < 0)
		return GPUSCHED_EXIT_OK;
	if (ex > 0 || (ex = make_opts(&a, &o)) > 0)
		return ex;
	int to_file = a.out && strcmp(a.out, "-") != 0;
	if (to_file && (ex = cmd_check_output(a.out, "results file", a.path)) != GPUSCHED_EXIT_OK)
		return ex;
	struct sim_diag diag;
	sim_diag_init(&diag, 16);
	struct h5read_file *f = NULL;
	int rc = h5read_open(a.path, &f, &diag);
	if (rc == 0)
		rc = check_runs(f, o.runs_pattern, &diag);
	if (rc == 0)
		rc = to_file ? export_to_file(f, &o, a.out, &diag) : export_to_stdout(f, &o, &diag);
	h5read_close(f);
	if (rc)
		sim_diag_print(&diag, stderr);
	sim_diag_fini(&diag);
	return cmd_exit_code(rc);
}
