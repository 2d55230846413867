/* traces/tiresias.c: Tiresias job table -> native trace (mapping in tiresias.h and
 * traces/README.md). Two passes over a line reader (import.h): the first checks and
 * counts every row, the second writes the kept ones in file order. */
#include "tiresias.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define SHOW_MAX 60
#define SHOW(p, len) (int)((len) > SHOW_MAX ? SHOW_MAX : (len)), (p), ((len) > SHOW_MAX ? "..." : "")
#define MAX_FIELDS 64
#define MAX_GPUS 1000000

enum { C_ID, C_GPU, C_SUBMIT, C_DUR, C_COUNT_ };
static const char *const col_names[C_COUNT_] = { "job_id", "num_gpu", "submit_time", "duration" };

#define R_FIELDS "wrong field count"
#define R_ID "bad job_id"
#define R_DUP "duplicate job_id"
#define R_GPU "bad num_gpu"
#define R_SUBMIT "bad submit_time"
#define R_DUR "bad duration"

struct span {
	const char *p;
	size_t len;
};

struct ti_row {
	struct span f[MAX_FIELDS];
	int64_t submit_ns, dur_ns; /* -1 when the field does not parse */
	int64_t gpus;		   /* whole GPUs, -1 when not a whole count */
};

struct ti_ctx {
	const char *path;
	const struct trace_import_opts *opts;
	struct trace_import_result *res;
	struct sim_diag *diag;
	int report;		   /* pass 1: count reasons and report errors */
	size_t n_err;		   /* located errors (strict mode) */
	int col[C_COUNT_];	   /* field index of each used column */
	int n_hdr;		   /* fields in the header */
	size_t hdr_line;	   /* line of the header */
	struct trace_tenants *ids; /* job_ids kept so far in this pass (a set) */
};

static struct span trim(const char *s, const char *e)
{
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	return (struct span){ s, (size_t)(e - s) };
}

/* Splits [p, end) at commas into at most max trimmed spans; returns the field count. */
static int split_commas(const char *p, const char *end, struct span *f, int max)
{
	int n = 0;
	for (;;) {
		const char *s = p;
		while (p < end && *p != ',')
			p++;
		if (n < max)
			f[n] = trim(s, p);
		n++;
		if (p == end)
			return n;
		p++;
	}
}

/* Seconds >= 0 ("121", "30.5") in ns, or -1. */
static int64_t parse_secs(struct span s)
{
	sim_time_t v;
	return s.len && sim_time_parse_s(s.p, s.len, &v) == 0 ? v : -1;
}

/* A whole count ("4", "4.0") in 0..MAX_GPUS, or -1. */
static int64_t parse_count(struct span s)
{
	int64_t v = parse_secs(s);
	if (v < 0 || v % SIM_NS_PER_S)
		return -1;
	v /= SIM_NS_PER_S;
	return v <= MAX_GPUS ? v : -1;
}

/* Ids go to the output unquoted: letters, digits, '_', '.', '-', at most 255 bytes. */
static int id_ok(struct span s)
{
	if (!s.len || s.len > 255)
		return 0;
	for (size_t i = 0; i < s.len; i++) {
		char ch = s.p[i];
		if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      ch == '_' || ch == '.' || ch == '-'))
			return 0;
	}
	return 1;
}

/* Drops the row for REASON: in pass 1 counts it and, in strict mode, reports
 * "FILE:LINE: column C: expected ..., found '...'". Returns 0. */
__attribute__((format(printf, 5, 6))) static int drop(struct ti_ctx *c, size_t line, const char *reason,
						      const char *col, const char *fmt, ...)
{
	if (!c->report)
		return 0;
	if (!c->opts->skip_bad) {
		char msg[512];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(msg, sizeof msg, fmt, ap);
		va_end(ap);
		trace_import_err(c->diag, c->path, line, col, "%s", msg);
		c->n_err++;
		return 0;
	}
	trace_import_drop(c->res, reason, 1);
	return 0;
}

/* Parses and checks one data line. Returns 1 to keep it, 0 when dropped, -SIM_ENOMEM.
 * Both passes see the same lines in the same order, so they agree on every row. */
static int ti_classify(struct ti_ctx *c, const struct trace_lines *r, struct ti_row *row)
{
	int n = split_commas(r->buf, r->buf + r->len, row->f, MAX_FIELDS);
	if (n != c->n_hdr)
		return drop(c, r->line, R_FIELDS, NULL, "expected %d fields as in the header, found %d",
			    c->n_hdr, n);
	struct span id = row->f[c->col[C_ID]], gpu = row->f[c->col[C_GPU]];
	struct span sub = row->f[c->col[C_SUBMIT]], dur = row->f[c->col[C_DUR]];
	row->gpus = parse_count(gpu);
	row->dur_ns = parse_secs(dur);
	row->submit_ns = parse_secs(sub);
	if (c->report && row->gpus > 0 && row->dur_ns > 0)
		c->res->gpu_hours_in += sim_time_to_s(row->dur_ns) * (double)row->gpus / 3600.0;
	if (!id_ok(id))
		return drop(c, r->line, R_ID, "job_id",
			    "expected an id of letters, digits, '_', '.', '-' (1 to 255 bytes), found '%.*s%s'",
			    SHOW(id.p, id.len));
	if (row->gpus <= 0)
		return drop(c, r->line, R_GPU, "num_gpu", "expected a whole GPU count in 1..%d, found '%.*s%s'",
			    MAX_GPUS, SHOW(gpu.p, gpu.len));
	if (row->submit_ns < 0)
		return drop(c, r->line, R_SUBMIT, "submit_time",
			    "expected seconds >= 0 (decimal, at most 9 fractional digits), found '%.*s%s'",
			    SHOW(sub.p, sub.len));
	if (row->dur_ns <= 0)
		return drop(c, r->line, R_DUR, "duration",
			    "expected seconds > 0 (decimal, at most 9 fractional digits), found '%.*s%s'",
			    SHOW(dur.p, dur.len));
	size_t before = trace_tenants_count(c->ids);
	if (trace_tenants_add(c->ids, id.p, id.len, 0) < 0)
		return -SIM_ENOMEM;
	if (trace_tenants_count(c->ids) == before)
		return drop(c, r->line, R_DUP, "job_id", "expected a unique job_id, found '%.*s%s' again",
			    SHOW(id.p, id.len));
	return 1;
}

static int blank_line(const struct trace_lines *r)
{
	return trim(r->buf, r->buf + r->len).len == 0;
}

/* Reads up to the header line and finds the used columns. Returns 0, -SIM_EPARSE
 * (located error) or a reader error. */
static int ti_header(struct ti_ctx *c, struct trace_lines *r, struct ti_row *row)
{
	int err;
	while ((err = trace_lines_next(r)) > 0 && blank_line(r))
		;
	if (err < 0)
		return err;
	if (err == 0)
		return sim_diag_add(c->diag, c->path, "expected a header line (job_id,num_gpu,submit_time,...), "
						      "found an empty file");
	const char *p = r->buf;
	if (r->len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3;
	c->hdr_line = r->line;
	c->n_hdr = split_commas(p, r->buf + r->len, row->f, MAX_FIELDS);
	for (int k = 0; k < C_COUNT_; k++) {
		c->col[k] = -1;
		for (int i = 0; i < c->n_hdr && i < MAX_FIELDS && c->col[k] < 0; i++)
			if (row->f[i].len == strlen(col_names[k]) &&
			    memcmp(row->f[i].p, col_names[k], row->f[i].len) == 0)
				c->col[k] = i;
		if (c->col[k] < 0) {
			trace_import_err(c->diag, c->path, r->line, col_names[k],
					 "expected a header naming job_id, num_gpu, submit_time and duration, "
					 "found no '%s'",
					 col_names[k]);
			return -SIM_EPARSE;
		}
	}
	return 0;
}

static int ti_pass1(struct ti_ctx *c, struct trace_lines *r, struct ti_row *row)
{
	int err;
	c->report = 1;
	while ((err = trace_lines_next(r)) > 0) {
		if (blank_line(r))
			continue;
		c->res->rows_read++;
		int keep = ti_classify(c, r, row);
		if (keep < 0)
			return keep;
		if (!keep)
			continue;
		c->res->rows_written++;
		c->res->gpu_hours_out += sim_time_to_s(row->dur_ns) * (double)row->gpus / 3600.0;
	}
	return err;
}

/* Seconds of a ns value, exactly, without trailing zeros ("3600", "12.5"). */
static char *format_secs(int64_t ns, char *buf, size_t size)
{
	int64_t s = ns / SIM_NS_PER_S, frac = ns % SIM_NS_PER_S;
	int digits = 9;
	if (!frac) {
		snprintf(buf, size, "%lld", (long long)s);
		return buf;
	}
	while (frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	snprintf(buf, size, "%lld.%0*lld", (long long)s, digits, (long long)frac);
	return buf;
}

static void ti_write_header(FILE *f, const struct ti_ctx *c)
{
	const struct trace_import_result *res = c->res;
	char why[1024];
	trace_import_reasons_str(res, 0, why, sizeof why);
	fprintf(f,
		"# Tiresias job table %s (SymbioticLab/Tiresias, simulator/; Apache-2.0;\n"
		"# cite Gu et al., Tiresias, NSDI'19).\n"
		"# Converted by: gpusched trace import --format tiresias (traces/README.md).\n"
		"# Mapping: id = job_id, submit_s = submit_time, duration_s = duration,\n"
		"#   request = *:gpu=<num_gpu>, queue = default (no users or teams in the table).\n"
		"#   Dropped columns: iterations, model_name, interval.\n"
		"# Rows in: %zu, jobs out: %zu, dropped: %zu (%s).\n",
		trace_base_name(c->path), res->rows_read, res->rows_written, res->rows_dropped,
		res->n_reasons ? why : "none");
	trace_import_write_bad_comment(res, f);
	fputs("id,submit_s,duration_s,queue,request\n", f);
}

static int ti_pass2(struct ti_ctx *c, struct trace_lines *r, struct ti_row *row, FILE *f)
{
	char sub[32], dur[32];
	int err;
	c->report = 0;
	while ((err = trace_lines_next(r)) > 0) {
		if (blank_line(r))
			continue;
		int keep = ti_classify(c, r, row);
		if (keep < 0)
			return keep;
		if (!keep)
			continue;
		struct span id = row->f[c->col[C_ID]];
		fprintf(f, "%.*s,%s,%s,default,*:gpu=%lld\n", (int)id.len, id.p,
			format_secs(row->submit_ns, sub, sizeof sub), format_secs(row->dur_ns, dur, sizeof dur),
			(long long)row->gpus);
	}
	return err;
}

/* Fresh id set for a pass (each pass keeps the first row of an id). */
static int ti_reset_ids(struct ti_ctx *c)
{
	trace_tenants_destroy(c->ids);
	c->ids = trace_tenants_create();
	return c->ids ? 0 : -SIM_ENOMEM;
}

static int ti_run(struct ti_ctx *c, struct trace_lines *r, struct ti_row *row, const char *out_path)
{
	char tmp[4096];
	FILE *f = NULL;
	int err;
	if ((err = ti_header(c, r, row)) < 0 || (err = ti_reset_ids(c)) < 0)
		return err;
	if ((err = ti_pass1(c, r, row)) < 0) {
		if (err != -SIM_ENOMEM)
			sim_diag_add(c->diag, c->path, "cannot read: %s", sim_strerror(err));
		return err;
	}
	if (c->n_err)
		return -SIM_EPARSE;
	c->res->tenants_in = c->res->queues_out = c->res->rows_written ? 1 : 0;
	if ((err = trace_lines_rewind(r)) < 0) {
		sim_diag_add(c->diag, c->path, "cannot rewind for the second pass");
		return err;
	}
	if ((err = ti_header(c, r, row)) < 0 || (err = ti_reset_ids(c)) < 0)
		return err;
	if ((err = trace_import_out_open(out_path, tmp, sizeof tmp, &f, c->diag)) < 0)
		return err;
	ti_write_header(f, c);
	err = ti_pass2(c, r, row, f);
	if (err < 0)
		sim_diag_add(c->diag, c->path, "cannot read: %s", sim_strerror(err));
	int fin = trace_import_out_finish(out_path, tmp, f, err >= 0, c->diag);
	return err < 0 ? err : fin;
}

int trace_tiresias_import(const char *in_path, const char *out_path, const struct trace_import_opts *opts,
			  struct trace_import_result *res, struct sim_diag *diag)
{
	struct ti_ctx c = { .path = in_path, .opts = opts, .res = res, .diag = diag };
	struct trace_lines r;
	struct ti_row *row = malloc(sizeof *row);
	int err;

	memset(res, 0, sizeof *res);
	if (!row)
		return -SIM_ENOMEM;
	if ((err = trace_lines_open(&r, in_path, diag)) == 0) {
		err = ti_run(&c, &r, row, out_path);
		trace_lines_close(&r);
	}
	trace_tenants_destroy(c.ids);
	free(row);
	return err;
}
