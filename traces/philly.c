/* traces/philly.c: Philly job table -> native trace (mapping in philly.h and
 * traces/README.md). The input is plain CSV without quoting (timestamps, numbers,
 * hashed VC ids), so fields are split at commas. */
#include "philly.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "native.h"

#define SHOW_MAX 60
#define SHOW(p, len) (int)((len) > SHOW_MAX ? SHOW_MAX : (len)), (p), ((len) > SHOW_MAX ? "..." : "")
/* As in the native reader: longer durations are refused there. */
#define PHILLY_MAX_S 1000000000LL

int64_t trace_days_from_civil(int64_t y, unsigned m, unsigned d)
{
	/* Howard Hinnant, "chrono-Compatible Low-Level Date Algorithms": days_from_civil. */
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);			/* [0, 399] */
	unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1; /* [0, 365] */
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;		/* [0, 146096] */
	return era * 146097 + (int64_t)doe - 719468;
}

static int digits(const char *s, int n, unsigned *out)
{
	unsigned v = 0;
	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	*out = v;
	return 0;
}

int trace_parse_utc(const char *s, size_t len, int64_t *epoch_s)
{
	static const unsigned mdays[12] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	unsigned y, mo, d, h, mi, se;

	if (len != 19 || s[4] != '-' || s[7] != '-' || s[10] != ' ' || s[13] != ':' || s[16] != ':')
		return -SIM_EPARSE;
	if (digits(s, 4, &y) || digits(s + 5, 2, &mo) || digits(s + 8, 2, &d) || digits(s + 11, 2, &h) ||
	    digits(s + 14, 2, &mi) || digits(s + 17, 2, &se))
		return -SIM_EPARSE;
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 || se > 59)
		return -SIM_EPARSE;
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	if (mo == 2 && d == 29 && !leap)
		return -SIM_EPARSE;
	*epoch_s = trace_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
	return 0;
}

struct span {
	const char *p;
	size_t len;
};

/* Splits [p, end) at commas into at most max spans; returns the field count. */
static int split_commas(const char *p, const char *end, struct span *f, int max)
{
	int n = 0;
	for (;;) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		const char *fe = c ? c : end;
		if (n < max) {
			f[n].p = p;
			f[n].len = (size_t)(fe - p);
		}
		n++;
		if (!c)
			return n;
		p = c + 1;
	}
}

static int span_eq(struct span s, const char *lit)
{
	return strlen(lit) == s.len && memcmp(s.p, lit, s.len) == 0;
}

/* The next non-empty line of r: 1, 0 at the end, or the reader's error (located by
 * the reader). */
static int next_nonempty(struct sim_lines *r)
{
	int got;
	while ((got = sim_lines_next(r)) > 0 && r->len == 0)
		;
	return got;
}

enum { PC_TIMESTAMP, PC_DURATION, PC_GPUS, PC_GPU_TIME, PC_CLUSTER, PC_COUNT_ };
static const char *const pc_names[PC_COUNT_] = { "timestamp", "duration", "num_gpus", "gpu_time", "cluster" };

#define MAX_FIELDS 32

/* The reasons a Philly row is dropped: the first two are the table's own (kept out
 * in both modes), the rest are bad rows (errors unless --skip-bad). */
#define R_DURATION "duration <= 0"
#define R_GPUS "num_gpus = 0"
#define R_FIELDS "wrong field count"
static const char *const bad_reason[PC_COUNT_] = { "bad timestamp", "bad duration", "bad num_gpus",
						   "bad gpu_time", "bad cluster" };

/* Checks the header line; returns the number of errors added to diag. */
static size_t philly_header(const char *path, const struct sim_lines *r, int col[PC_COUNT_], int *n_hdr,
			    struct sim_diag *diag)
{
	struct span f[MAX_FIELDS];
	const char *ls = r->buf, *le = r->buf + r->len;
	char missing[128] = "";
	int n_missing = 0, last_missing = 0;
	size_t n_err = 0;

	*n_hdr = split_commas(ls, le, f, MAX_FIELDS);
	for (int c = 0; c < PC_COUNT_; c++) {
		col[c] = -1;
		for (int i = 0; i < *n_hdr && i < MAX_FIELDS; i++)
			if (span_eq(f[i], pc_names[c]))
				col[c] = i;
		if (col[c] < 0) {
			if (n_missing++)
				strcat(missing, ", ");
			strcat(missing, pc_names[c]);
			last_missing = c;
		}
	}
	if (n_missing) {
		/* One message: a file of another format would otherwise get five. */
		trace_import_err(diag, path, r->line, n_missing == 1 ? pc_names[last_missing] : NULL,
		       "expected a Philly header with timestamp, duration, num_gpus, gpu_time, cluster "
		       "(missing: %s), found '%.*s%s'",
		       missing, SHOW(ls, (size_t)(le - ls)));
		n_err++;
	}
	if (*n_hdr > MAX_FIELDS) {
		trace_import_err(diag, path, r->line, NULL, "expected at most %d columns, found %d", MAX_FIELDS,
		       *n_hdr);
		n_err++;
	}
	return n_err;
}

/* Room for one more job, option and id in t. Returns 0 or -SIM_ENOMEM. */
static int philly_reserve(struct sim_trace *t, size_t *cap_jobs, size_t *cap_opts, size_t *cap_str)
{
	void *p;
	if (!(p = sim_grow(t->jobs, cap_jobs, t->n_jobs, sizeof *t->jobs, 1024)))
		return -SIM_ENOMEM;
	t->jobs = p;
	if (!(p = sim_grow(t->opts, cap_opts, t->n_opts, sizeof *t->opts, 1024)))
		return -SIM_ENOMEM;
	t->opts = p;
	if (t->strings_len + 32 > *cap_str) {
		size_t ncap = *cap_str ? *cap_str * 2 : 16384;
		char *ns = realloc(t->strings, ncap);
		if (!ns)
			return -SIM_ENOMEM;
		t->strings = ns;
		*cap_str = ncap;
	}
	return 0;
}

/* Renames t's queues for --top-queues K: the K with most GPU-seconds keep their
 * name, the others become "other". */
static int philly_top_queues(struct sim_trace *t, size_t k, struct trace_import_result *res)
{
	struct trace_tenants *tt = trace_tenants_create();
	char **old = t->queues;
	size_t n_old = t->n_queues;
	int *map = calloc(n_old ? n_old : 1, sizeof *map);
	int err = 0;

	if (!tt || !map) {
		err = -SIM_ENOMEM;
		goto out;
	}
	for (size_t q = 0; q < n_old && !err; q++)
		err = trace_tenants_add(tt, old[q], strlen(old[q]), 0);
	for (size_t i = 0; i < t->n_jobs && !err; i++) {
		const struct sim_job *j = &t->jobs[i];
		double gpu_s = sim_time_to_s(j->duration_ns) *
			       (double)sim_job_opt(t, j, 0)->req[SIM_RES_GPU] / SIM_MILLI;
		err = trace_tenants_add(tt, old[j->queue], strlen(old[j->queue]), gpu_s);
	}
	if (!err)
		err = trace_tenants_pick_top(tt, k);
	if (err)
		goto out;
	t->queues = NULL;
	t->n_queues = 0;
	for (size_t q = 0; q < n_old && err >= 0; q++) {
		err = sim_trace_intern_queue(t, trace_tenants_map(tt, old[q], strlen(old[q])));
		map[q] = err;
	}
	if (err < 0) { /* put the old names back so destroy frees both */
		for (size_t q = 0; q < t->n_queues; q++)
			free(t->queues[q]);
		free(t->queues);
		t->queues = old;
		t->n_queues = n_old;
		old = NULL;
		goto out;
	}
	err = 0;
	for (size_t i = 0; i < t->n_jobs; i++)
		t->jobs[i].queue = map[t->jobs[i].queue];
	res->queues_out = t->n_queues;
out:
	for (size_t q = 0; old && q < n_old; q++)
		free(old[q]);
	free(old);
	free(map);
	trace_tenants_destroy(tt);
	return err;
}

/* Reads and checks one data row into fields; on success fills the outputs. Returns 1
 * for a good row, 0 for a bad one (located errors added to diag when !skip_bad,
 * else the reason counted). */
struct philly_row {
	int64_t epoch;
	sim_time_t dur_ns, gt_ns;
	sim_qty_t gpus;
	int negative, gt_neg;
	struct span cl;
};

static int philly_row(const char *path, const struct sim_lines *r, const int col[PC_COUNT_], int n_hdr,
		      int skip_bad, struct philly_row *row, struct trace_import_result *res,
		      struct sim_diag *diag)
{
	struct span f[MAX_FIELDS];
	size_t line = r->line;
	int n = split_commas(r->buf, r->buf + r->len, f, MAX_FIELDS);
	int bad = -1; /* first bad column, for its reason */

	if (n != n_hdr) {
		if (skip_bad)
			trace_import_drop(res, R_FIELDS, 1);
		else
			trace_import_err(diag, path, line, NULL, "expected %d fields as in the header, found %d", n_hdr,
			       n);
		return 0;
	}
	struct span ts = f[col[PC_TIMESTAMP]], du = f[col[PC_DURATION]], gp = f[col[PC_GPUS]];
	struct span gt = f[col[PC_GPU_TIME]], cl = f[col[PC_CLUSTER]];
	memset(row, 0, sizeof *row);
	row->negative = du.len > 1 && du.p[0] == '-';
	row->cl = cl;
	/* skip_bad: no messages, only the first bad column's reason. */
	struct sim_diag *d = skip_bad ? NULL : diag;

	if (trace_parse_utc(ts.p, ts.len, &row->epoch) < 0) {
		if (d)
			trace_import_err(d, path, line, "timestamp",
			       "expected a UTC time YYYY-MM-DD HH:MM:SS, found '%.*s%s'", SHOW(ts.p, ts.len));
		bad = bad < 0 ? PC_TIMESTAMP : bad;
	}
	if (sim_time_parse_s(du.p + row->negative, du.len - (size_t)row->negative, &row->dur_ns) < 0 ||
	    row->dur_ns > PHILLY_MAX_S * SIM_NS_PER_S) {
		if (d)
			trace_import_err(d, path, line, "duration",
			       "expected seconds (decimal, at most 9 fractional digits, "
			       "at most 1e9), found '%.*s%s'",
			       SHOW(du.p, du.len));
		bad = bad < 0 ? PC_DURATION : bad;
	}
	if (sim_qty_parse(gp.p, gp.len, &row->gpus) < 0 || row->gpus > 1000000 * SIM_MILLI) {
		if (d)
			trace_import_err(d, path, line, "num_gpus",
			       "expected a GPU count >= 0 (at most 3 fractional "
			       "digits), found '%.*s%s'",
			       SHOW(gp.p, gp.len));
		bad = bad < 0 ? PC_GPUS : bad;
	}
	row->gt_neg = gt.len > 1 && gt.p[0] == '-'; /* rows dropped for duration <= 0 may have it */
	if (sim_time_parse_s(gt.p + row->gt_neg, gt.len - (size_t)row->gt_neg, &row->gt_ns) < 0) {
		if (d)
			trace_import_err(d, path, line, "gpu_time",
			       "expected GPU-seconds (decimal, at most 9 fractional "
			       "digits), found '%.*s%s'",
			       SHOW(gt.p, gt.len));
		bad = bad < 0 ? PC_GPU_TIME : bad;
	}
	int cl_ok = cl.len > 0 && cl.len < SIM_NAME_MAX;
	for (size_t i = 0; i < cl.len; i++)
		cl_ok &= (unsigned char)cl.p[i] >= 0x20 && cl.p[i] != 0x7f;
	if (!cl_ok) {
		if (d)
			trace_import_err(d, path, line, "cluster",
			       "expected a VC name of 1 to %d printable bytes, found "
			       "'%.*s%s'",
			       SIM_NAME_MAX - 1, SHOW(cl.p, cl.len));
		bad = bad < 0 ? PC_CLUSTER : bad;
	}
	if (bad >= 0 && skip_bad)
		trace_import_drop(res, bad_reason[bad], 1);
	return bad < 0;
}

/* Appends a kept row as job number ROW (1-based data row). */
static int philly_add_job(struct sim_trace *t, size_t row, const struct philly_row *pr, int q)
{
	struct sim_job *j = &t->jobs[t->n_jobs];
	struct sim_job_option *o = &t->opts[t->n_opts];
	memset(j, 0, sizeof *j);
	memset(o, 0, sizeof *o);
	j->id_off = (uint32_t)t->strings_len;
	t->strings_len += (size_t)sprintf(t->strings + t->strings_len, "philly-%zu", row) + 1;
	j->line = (uint32_t)row; /* sort key: (timestamp, row) */
	j->queue = q;
	j->user = -1;
	j->submit_ns = pr->epoch; /* Unix seconds until every row is read */
	j->duration_ns = pr->dur_ns;
	j->estimate_ns = pr->dur_ns;
	j->max_pending_ns = SIM_TIME_NONE;
	j->deadline_ns = SIM_TIME_NONE;
	j->checkpoint_ns = SIM_TIME_NONE;
	j->opt_first = (uint32_t)t->n_opts;
	j->n_opts = 1;
	j->preemptible = 1;
	o->flavor_id = SIM_FLAVOR_ANY;
	o->duration_ns = pr->dur_ns;
	o->req[SIM_RES_GPU] = pr->gpus;
	t->n_jobs++;
	t->n_opts++;
	return 0;
}

/* Returned by philly_load_from when the kept rows span over 1e9 s: the load is
 * made again with the earliest timestamp fixed as origin (philly_load). */
#define PHILLY_SPAN_TOO_LONG 1

/* With the origin fixed: a row whose timestamp is over 1e9 s after the earliest
 * (the native format's ceiling on submit_s; the row parser already bounds durations)
 * is a bad row (strict: a located error; --skip-bad: dropped and counted). Returns 1
 * when the row is out of range. */
static int philly_out_of_range(const char *path, size_t line, const struct philly_row *pr, int64_t origin_s,
			       const struct trace_import_opts *opts, struct trace_import_result *res,
			       struct sim_diag *diag)
{
	if (pr->epoch - origin_s <= TRACE_IMPORT_MAX_S)
		return 0;
	if (opts->skip_bad)
		trace_import_drop(res, TRACE_IMPORT_R_SUBMIT_RANGE, 1);
	else
		trace_import_err(diag, path, line, "timestamp",
				 "submit time out of range: expected at most 1e9 s after the earliest "
				 "timestamp in the file");
	return 1;
}

/* The reader behind trace_philly_read and the importer: streams the input a line at
 * a time (plain or gzip) and keeps only the output's arrays. With origin_fixed, rows
 * more than 1e9 s after origin_s (Unix seconds) are bad rows, and with quiet_rows
 * they are the only ones reported (the others were, by the first load); without
 * origin_fixed, a span over 1e9 s returns PHILLY_SPAN_TOO_LONG (nothing kept, *n_bad
 * the rows in error) before any shift could overflow. */
static int philly_load_from(const char *path, const struct trace_import_opts *opts, int origin_fixed,
			    int64_t origin_s, int quiet_rows, size_t *n_bad, struct sim_trace **out,
			    struct trace_philly_stats *stats, struct trace_import_result *res,
			    struct sim_diag *diag)
{
	struct trace_philly_stats st;
	struct sim_lines r;
	struct sim_trace *t = NULL;
	struct philly_row pr;
	int col[PC_COUNT_], n_hdr = 0, err, seen = 0;
	size_t n_err = 0, cap_jobs = 0, cap_opts = 0, cap_str = 0;

	*out = NULL;
	memset(&st, 0, sizeof st);
	memset(res, 0, sizeof *res);
	trace_import_reason(res, R_DURATION, 0);
	trace_import_reason(res, R_GPUS, 0);
	if ((err = sim_lines_open(&r, path, diag)) < 0)
		return err;
	while ((err = sim_lines_next(&r)) > 0 && r.len == 0)
		;
	if (err < 0)
		goto out_close;
	if (err == 0) {
		sim_diag_add(diag, path,
			     "expected a header row (timestamp,duration,num_gpus,gpu_time,cluster), "
			     "found an empty file");
		err = -SIM_EPARSE;
		goto out_close;
	}
	if (philly_header(path, &r, col, &n_hdr, diag)) {
		err = -SIM_EPARSE;
		goto out_close;
	}
	t = sim_trace_create();
	if (!t || !(t->path = strdup(path))) {
		err = -SIM_ENOMEM;
		goto out_free_trace;
	}
	while ((err = sim_lines_next(&r)) > 0) {
		if (r.len == 0)
			continue;
		size_t row = ++st.rows_in;
		if (!philly_row(path, &r, col, n_hdr, opts->skip_bad, &pr, res, quiet_rows ? NULL : diag) ||
		    (origin_fixed && !pr.negative && philly_out_of_range(path, r.line, &pr, origin_s, opts, res, diag))) {
			n_err += !opts->skip_bad;
			continue;
		}
		double want_s = sim_time_to_s(pr.dur_ns) * (double)pr.gpus / SIM_MILLI;
		if (!pr.negative)
			res->gpu_hours_in += want_s / 3600.0;
		if (pr.negative || pr.dur_ns == 0) {
			st.dropped_duration++;
			trace_import_drop(res, R_DURATION, 0);
			continue;
		}
		if (pr.gpus == 0) {
			st.dropped_gpus++;
			trace_import_drop(res, R_GPUS, 0);
			continue;
		}
		/* The span of the rows kept, also past an error: the range check needs it. */
		if (!seen || pr.epoch < st.first_epoch_s)
			st.first_epoch_s = pr.epoch;
		if (!seen || pr.epoch > st.last_epoch_s)
			st.last_epoch_s = pr.epoch;
		seen = 1;
		if (n_err)
			continue; /* the load fails: only collect errors */
		double got_s = (pr.gt_neg ? -1.0 : 1.0) * sim_time_to_s(pr.gt_ns);
		if (fabs(want_s - got_s) > 1e-6 * (want_s > 1.0 ? want_s : 1.0))
			st.gpu_time_mismatch++;
		st.gpu_time_s += got_s;
		res->gpu_hours_out += want_s / 3600.0;

		char name[SIM_NAME_MAX];
		memcpy(name, pr.cl.p, pr.cl.len);
		name[pr.cl.len] = '\0';
		int q = sim_trace_intern_queue(t, name);
		if (q < 0 || (err = philly_reserve(t, &cap_jobs, &cap_opts, &cap_str)) < 0) {
			err = q < 0 ? q : err;
			goto out_free_trace;
		}
		philly_add_job(t, row, &pr, q);
	}
	if (err < 0)
		goto out_free_trace;
	if (!origin_fixed && seen && st.last_epoch_s - st.first_epoch_s > TRACE_IMPORT_MAX_S) {
		if (stats)
			*stats = st; /* the caller reads first_epoch_s */
		*n_bad = n_err;
		err = PHILLY_SPAN_TOO_LONG;
		goto out_free_trace;
	}
	if (n_err) {
		err = -SIM_EPARSE;
		goto out_free_trace;
	}
	for (size_t i = 0; i < t->n_jobs; i++)
		t->jobs[i].submit_ns = (t->jobs[i].submit_ns - st.first_epoch_s) * SIM_NS_PER_S;
	sim_trace_sort(t);
	sim_trace_reset(t);
	st.rows_out = t->n_jobs;
	res->rows_read = st.rows_in;
	res->rows_written = t->n_jobs;
	res->tenants_in = res->queues_out = t->n_queues;
	if (opts->top_queues && (err = philly_top_queues(t, opts->top_queues, res)) < 0)
		goto out_free_trace;
	snprintf(res->note, sizeof res->note, "gpu_time mismatches: %zu", st.gpu_time_mismatch);
	if (stats)
		*stats = st;
	*out = t;
	sim_lines_close(&r);
	return 0;

out_free_trace:
	sim_trace_destroy(t);
out_close:
	sim_lines_close(&r);
	return err;
}

static int philly_load(const char *path, const struct trace_import_opts *opts, struct sim_trace **out,
		       struct trace_philly_stats *stats, struct trace_import_result *res,
		       struct sim_diag *diag)
{
	struct trace_philly_stats st;
	size_t n_bad = 0;
	int err = philly_load_from(path, opts, 0, 0, 0, &n_bad, out, &st, res, diag);
	if (err == PHILLY_SPAN_TOO_LONG) /* again, the rows too far after the earliest refused */
		err = philly_load_from(path, opts, 1, st.first_epoch_s, n_bad > 0, &n_bad, out, &st, res, diag);
	if (err == 0 && stats)
		*stats = st;
	return err;
}

int trace_philly_read(const char *path, struct sim_trace **out, struct trace_philly_stats *stats,
		      struct sim_diag *diag)
{
	struct trace_import_opts opts = { 0 };
	struct trace_import_result res;
	return philly_load(path, &opts, out, stats, &res, diag);
}

/* "YYYY-MM-DD HH:MM:SS" of Unix seconds (civil_from_days), for the header comment. */
static void format_utc(int64_t epoch_s, char *buf, size_t size)
{
	int64_t days = epoch_s / 86400, sod = epoch_s % 86400;
	if (sod < 0) {
		sod += 86400;
		days--;
	}
	int64_t z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
	unsigned d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
	int64_t y = (int64_t)yoe + era * 400 + (m <= 2);
	snprintf(buf, size, "%04lld-%02u-%02u %02u:%02u:%02u", (long long)y, m, d, (unsigned)(sod / 3600),
		 (unsigned)(sod / 60 % 60), (unsigned)(sod % 60));
}

static void philly_write_header(FILE *f, const char *in_path, const struct trace_philly_stats *st,
				const struct trace_import_opts *opts, const struct trace_import_result *res)
{
	char first[96];
	format_utc(st->first_epoch_s, first, sizeof first);
	fprintf(f,
		"# Microsoft Philly job trace (Jeon et al., \"Analysis of Large-Scale Multi-Tenant GPU "
		"Clusters\n"
		"# for DNN Training Workloads\", USENIX ATC'19). Licence: CC BY 4.0 "
		"(msr-fiddle/philly-traces).\n"
		"# Job table in the format of petuum/adaptdl simulator/traces/philly.csv (Apache-2.0 "
		"repository).\n"
		"# Converted from %s by: gpusched trace import --format philly (traces/README.md).\n"
		"# Mapping: id = philly-<row>, submit_s = timestamp - %s UTC, duration_s = duration,\n"
		"#   request = *:gpu=<num_gpus>, queue = cluster (virtual cluster); sorted by (timestamp, "
		"row).\n"
		"# Rows in: %zu, jobs out: %zu, dropped: %zu (duration <= 0: %zu, num_gpus = 0: %zu).\n",
		trace_base_name(in_path), first, st->rows_in, st->rows_out,
		st->dropped_duration + st->dropped_gpus, st->dropped_duration, st->dropped_gpus);
	trace_import_write_bad_comment(res, f);
	if (opts->top_queues)
		fprintf(f,
			"# Tenants (--top-queues %zu): the %zu VCs with most GPU-hours keep their name, "
			"the other %zu are '" TRACE_IMPORT_OTHER "'.\n",
			opts->top_queues,
			res->tenants_in < opts->top_queues ? res->tenants_in : opts->top_queues,
			res->tenants_in > opts->top_queues ? res->tenants_in - opts->top_queues : 0);
}

static int philly_convert(const char *in_path, const char *out_path, const struct trace_import_opts *opts,
			  struct trace_philly_stats *stats, struct trace_import_result *res,
			  struct sim_diag *diag)
{
	struct trace_philly_stats st;
	struct sim_trace *t;
	char *tmp = NULL;
	FILE *f;
	int err;

	if ((err = philly_load(in_path, opts, &t, &st, res, diag)) < 0)
		return err;
	if ((err = trace_import_out_open(out_path, &tmp, &f, diag)) < 0)
		goto out_free_trace;
	philly_write_header(f, in_path, &st, opts, res);
	err = trace_native_write(t, f);
	if (err && err != -SIM_EIO)
		sim_diag_add(diag, out_path, "cannot write: %s", sim_strerror(err));
	/* A failed write (-SIM_EIO) is reported by the finish, with its cause. */
	int fin = trace_import_out_finish(out_path, tmp, f, !err || err == -SIM_EIO, diag);
	err = err ? err : fin;
	if (!err && stats)
		*stats = st;
out_free_trace:
	sim_trace_destroy(t);
	return err;
}

int trace_philly_convert(const char *in_path, const char *out_path, struct trace_philly_stats *stats,
			 struct sim_diag *diag)
{
	struct trace_import_opts opts = { 0 };
	struct trace_import_result res;
	return philly_convert(in_path, out_path, &opts, stats, &res, diag);
}

int trace_philly_import(const char *in_path, const char *out_path, const struct trace_import_opts *opts,
			struct trace_import_result *res, struct sim_diag *diag)
{
	return philly_convert(in_path, out_path, opts, NULL, res, diag);
}

/* One "vc,node num" row into *vc. Returns 1, or 0 after a located error. */
static int vc_row(const struct sim_lines *r, struct trace_philly_vc *vc, struct sim_diag *diag)
{
	struct span f[3];
	int nf = split_commas(r->buf, r->buf + r->len, f, 3);
	if (nf != 2) {
		trace_import_err(diag, r->path, r->line, NULL, "expected 2 fields (vc,node num), found %d", nf);
		return 0;
	}
	if (f[0].len == 0 || f[0].len >= SIM_NAME_MAX) {
		trace_import_err(diag, r->path, r->line, "vc", "expected a VC name of 1 to %d bytes, found '%.*s%s'",
				 SIM_NAME_MAX - 1, SHOW(f[0].p, f[0].len));
		return 0;
	}
	sim_qty_t q;
	if (sim_qty_parse(f[1].p, f[1].len, &q) < 0 || q % SIM_MILLI != 0 || q / SIM_MILLI > INT32_MAX) {
		trace_import_err(diag, r->path, r->line, "node num",
				 "expected a whole number of nodes >= 0, found '%.*s%s'", SHOW(f[1].p, f[1].len));
		return 0;
	}
	memcpy(vc->vc, f[0].p, f[0].len);
	vc->vc[f[0].len] = '\0';
	vc->nodes = (int32_t)(q / SIM_MILLI);
	return 1;
}

int trace_philly_read_vc(const char *path, struct trace_philly_vc **out, size_t *n_out, struct sim_diag *diag)
{
	struct span f[3];
	struct sim_lines r;
	size_t n = 0, cap = 0, n_err = 0;
	struct trace_philly_vc *vcs = NULL;
	int err, got;

	*out = NULL;
	*n_out = 0;
	if ((err = sim_lines_open(&r, path, diag)) < 0)
		return err;
	if ((got = next_nonempty(&r)) < 0) {
		err = got;
		goto out_close;
	}
	if (!got || split_commas(r.buf, r.buf + r.len, f, 3) != 2 || !span_eq(f[0], "vc") ||
	    !span_eq(f[1], "node num")) {
		trace_import_err(diag, path, r.line ? r.line : 1, NULL,
				 "expected the header 'vc,node num', found '%.*s%s'", SHOW(r.buf, r.len));
		err = -SIM_EPARSE;
		goto out_close;
	}
	while ((got = next_nonempty(&r)) > 0) {
		struct trace_philly_vc *nv = sim_grow(vcs, &cap, n, sizeof *vcs, 64);
		if (!nv) {
			err = -SIM_ENOMEM;
			goto out_close;
		}
		vcs = nv;
		if (vc_row(&r, &vcs[n], diag))
			n++;
		else
			n_err++;
	}
	if (got < 0)
		err = got;
	else if (n_err)
		err = -SIM_EPARSE;
	if (!err) {
		*out = vcs;
		*n_out = n;
		vcs = NULL;
	}
out_close:
	free(vcs);
	sim_lines_close(&r);
	return err;
}
