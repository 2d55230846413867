/* traces/swf.c: Standard Workload Format -> native trace (mapping in swf.h and
 * traces/README.md). Two passes over a line reader (import.h), so a 1M-row log
 * needs the tenant table and one line of memory, not the log. */
#include "swf.h"

#include <stdlib.h>
#include <string.h>

#define SHOW_MAX 60
#define SHOW(p, len) (int)((len) > SHOW_MAX ? SHOW_MAX : (len)), (p), ((len) > SHOW_MAX ? "..." : "")

/* SWF fields, 0-based (the format numbers them from 1). */
enum {
	F_JOB = 0,
	F_SUBMIT = 1,
	F_RUN = 3,
	F_ALLOC = 4,
	F_REQ_PROCS = 7,
	F_REQ_TIME = 8,
	F_STATUS = 10,
	F_USER = 11,
	F_GROUP = 12,
	F_QUEUE = 14,
};

static const char *const field_names[SWF_FIELDS] = {
	"1 (job number)",
	"2 (submit time)",
	"3 (wait time)",
	"4 (run time)",
	"5 (allocated processors)",
	"6 (average CPU time)",
	"7 (used memory)",
	"8 (requested processors)",
	"9 (requested time)",
	"10 (requested memory)",
	"11 (status)",
	"12 (user)",
	"13 (group)",
	"14 (executable)",
	"15 (queue)",
	"16 (partition)",
	"17 (preceding job)",
	"18 (think time)",
};

/* The fields the mapping reads; the others only have to be present. */
static const int used_fields[] = { F_JOB,      F_SUBMIT, F_RUN,	 F_ALLOC, F_REQ_PROCS,
				   F_REQ_TIME, F_STATUS, F_USER, F_GROUP, F_QUEUE };

#define R_FIELDS "wrong field count"
#define R_NUMBER "bad number"
#define R_RUN "no run time"
#define R_PROCS "no processors"
#define R_SUBMIT "no submit time"
#define R_ORDER "job number not increasing"
#define R_PARTIAL "partial-execution record"

/* Header keys copied into the output's comments. */
static const char *const header_keys[] = { "Computer", "Installation", "MaxNodes", "MaxProcs",
					   "UnixStartTime" };
#define N_HEADER_KEYS (sizeof header_keys / sizeof header_keys[0])

/* A run time of 0 is a job shorter than the logs' resolution of 1 s (it ran: the
 * log records its processors and status); it is read as 1 s, as other simulators
 * of these logs do. -1 (unknown) stays a bad row. */
#define SWF_MIN_RUN_NS SIM_NS_PER_S

/* One data row: numbers of the used fields, ns-scaled (value x 1e9) so that times
 * are ns and counts are multiples of SIM_NS_PER_S. */
struct swf_row {
	struct trace_span f[SWF_FIELDS];
	int64_t v[SWF_FIELDS];
	int64_t procs;	 /* processors the job used (its GPU count), whole */
	int zero_run;	 /* the log's run time was 0, read as SWF_MIN_RUN_NS */
	char tenant[48]; /* queue name before --top-queues */
};

struct swf_ctx {
	struct trace_import_pass in; /* path, opts, res, diag; report and error count */
	int64_t prev_job; /* job number of the last kept row, for the increasing check */
	int have_prev;
	size_t zero_runs; /* kept rows whose run time 0 was read as 1 s (pass 1) */
	char header[N_HEADER_KEYS][96];
};

/* Splits a line at blanks into at most max spans; returns the field count. */
static int split_blanks(const char *p, const char *end, struct trace_span *f, int max)
{
	int n = 0;
	for (;;) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p == end)
			return n;
		const char *s = p;
		while (p < end && *p != ' ' && *p != '\t')
			p++;
		if (n < max) {
			f[n].p = s;
			f[n].len = (size_t)(p - s);
		}
		n++;
	}
}

/* A signed decimal ("-1", "3600", "12.5") scaled by 1e9. Returns 0 or -1. */
static int parse_scaled(struct trace_span s, int64_t *out)
{
	int neg = s.len > 1 && s.p[0] == '-';
	sim_time_t v;
	if (sim_time_parse_s(s.p + neg, s.len - (size_t)neg, &v) < 0)
		return -1;
	*out = neg ? -v : v;
	return 0;
}

/* Whole value of a scaled count, or -1 when not whole or negative. */
static int64_t whole(int64_t scaled)
{
	return scaled >= 0 && scaled % SIM_NS_PER_S == 0 ? scaled / SIM_NS_PER_S : -1;
}

static void tenant_name(const struct swf_ctx *c, const struct swf_row *row, char *buf, size_t size)
{
	int field = F_USER;
	const char *kind = "user";
	if (c->in.opts->queue_from == TRACE_QUEUE_QUEUE) {
		field = F_QUEUE;
		kind = "queue";
	} else if (c->in.opts->queue_from == TRACE_QUEUE_GROUP) {
		field = F_GROUP;
		kind = "group";
	}
	int64_t n = whole(row->v[field]);
	if (n < 0)
		snprintf(buf, size, "%s-unknown", kind);
	else
		snprintf(buf, size, "%s-%lld", kind, (long long)n);
}

/* Parses and checks one data line. Returns 1 to keep it, 0 when dropped. Both passes
 * call it on the same lines in the same order, so they agree on every row. */
static int swf_classify(struct swf_ctx *c, const struct sim_lines *r, struct swf_row *row)
{
	int n = split_blanks(r->buf, r->buf + r->len, row->f, SWF_FIELDS);
	if (n != SWF_FIELDS)
		return trace_import_reject(&c->in, r->line, R_FIELDS, 1, NULL,
					   "expected %d whitespace-separated fields, found %d", SWF_FIELDS,
					   n);
	for (size_t i = 0; i < sizeof used_fields / sizeof used_fields[0]; i++) {
		int k = used_fields[i];
		if (parse_scaled(row->f[k], &row->v[k]) < 0)
			return trace_import_reject(&c->in, r->line, R_NUMBER, 1, field_names[k],
						   "expected a number (-1 when unknown), found '%.*s%s'",
						   SHOW(row->f[k].p, row->f[k].len));
	}
	int64_t alloc = whole(row->v[F_ALLOC]), req = whole(row->v[F_REQ_PROCS]);
	row->procs = alloc > 0 ? alloc : req;
	row->zero_run = row->v[F_RUN] == 0;
	if (row->zero_run)
		row->v[F_RUN] = SWF_MIN_RUN_NS;
	/* GPU-hours in: every row whose numbers parse (run time <= 0 adds nothing). */
	if (c->in.report && row->v[F_RUN] > 0 && row->procs > 0)
		c->in.res->gpu_hours_in += sim_time_to_s(row->v[F_RUN]) * (double)row->procs / 3600.0;
	int64_t status = whole(row->v[F_STATUS]);
	if (status >= 2 && status <= 4)
		return trace_import_reject(&c->in, r->line, R_PARTIAL, 0, NULL, "partial-execution record");
	if (row->v[F_RUN] <= 0)
		return trace_import_reject(
		    &c->in, r->line, R_RUN, 1, field_names[F_RUN],
		    "expected a run time >= 0 s (0 is read as 1 s; -1, unknown, is what jobs "
		    "cancelled before they ran have; --skip-bad drops them), found '%.*s%s'",
		    SHOW(row->f[F_RUN].p, row->f[F_RUN].len));
	if (row->procs <= 0 || row->procs > 1000000)
		return trace_import_reject(
		    &c->in, r->line, R_PROCS, 1, field_names[F_ALLOC],
		    "expected a whole processor count in 1..1000000 (field 5, else field 8), "
		    "found '%.*s%s' and '%.*s%s'",
		    SHOW(row->f[F_ALLOC].p, row->f[F_ALLOC].len),
		    SHOW(row->f[F_REQ_PROCS].p, row->f[F_REQ_PROCS].len));
	if (row->v[F_SUBMIT] < 0)
		return trace_import_reject(&c->in, r->line, R_SUBMIT, 1, field_names[F_SUBMIT],
					   "expected a submit time >= 0 s, found '%.*s%s'",
					   SHOW(row->f[F_SUBMIT].p, row->f[F_SUBMIT].len));
	/* What the native format holds: a run time and a submit time (shifted to the
	 * earliest) of at most 1e9 s. */
	if (!trace_import_check_duration(&c->in, r->line, field_names[F_RUN], row->v[F_RUN], row->f[F_RUN]) ||
	    !trace_import_check_submit(&c->in, r->line, field_names[F_SUBMIT], row->v[F_SUBMIT], row->f[F_SUBMIT]))
		return 0;
	int64_t job = whole(row->v[F_JOB]);
	if (job < 0 || (c->have_prev && job <= c->prev_job))
		return trace_import_reject(
		    &c->in, r->line, R_ORDER, 1, field_names[F_JOB],
		    "expected a whole job number above the previous kept row's (%lld), found '%.*s%s'",
		    (long long)c->prev_job, SHOW(row->f[F_JOB].p, row->f[F_JOB].len));
	c->prev_job = job;
	c->have_prev = 1;
	tenant_name(c, row, row->tenant, sizeof row->tenant);
	if (c->in.report && row->zero_run)
		c->zero_runs++;
	return 1;
}

/* Copies "; Key: value" header lines named in header_keys. */
static void read_header_comment(struct swf_ctx *c, const char *s)
{
	while (*s == ';' || *s == ' ' || *s == '\t')
		s++;
	for (size_t k = 0; k < N_HEADER_KEYS; k++) {
		size_t kl = strlen(header_keys[k]);
		if (strncmp(s, header_keys[k], kl) != 0 || s[kl] != ':' || c->header[k][0])
			continue;
		const char *v = s + kl + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		snprintf(c->header[k], sizeof c->header[k], "%s", v);
		size_t l = strlen(c->header[k]);
		while (l && (c->header[k][l - 1] == ' ' || c->header[k][l - 1] == '\t'))
			c->header[k][--l] = '\0';
	}
}

/* The first non-blank character of the current line: ';' comment, '\0' blank. */
static char line_kind(const struct sim_lines *r)
{
	const char *s = r->buf;
	while (*s == ' ' || *s == '\t')
		s++;
	return *s;
}

struct swf_totals {
	int64_t min_submit_ns;
	struct trace_tenants *tenants;
};

static int swf_pass1(struct swf_ctx *c, struct sim_lines *r, struct swf_row *row, struct swf_totals *tot)
{
	int err;
	c->in.report = 1;
	while ((err = sim_lines_next(r)) > 0) {
		char k = line_kind(r);
		if (k == ';') {
			read_header_comment(c, r->buf);
			continue;
		}
		if (k == '\0')
			continue;
		c->in.res->rows_read++;
		if (!swf_classify(c, r, row))
			continue;
		double gpu_s = sim_time_to_s(row->v[F_RUN]) * (double)row->procs;
		c->in.res->rows_written++;
		c->in.res->gpu_hours_out += gpu_s / 3600.0;
		if (c->in.res->rows_written == 1 || row->v[F_SUBMIT] < tot->min_submit_ns)
			tot->min_submit_ns = row->v[F_SUBMIT];
		if (trace_tenants_add(tot->tenants, row->tenant, strlen(row->tenant), gpu_s) < 0)
			return -SIM_ENOMEM;
	}
	return err;
}

/* Before pass 1 runs again (its submit times span over 1e9 s, trace_import_submit_rerun
 * fixed the origin): forget what pass 1 counted, and rewind. */
static int swf_restart(struct swf_ctx *c, struct swf_totals *tot, struct sim_lines *r)
{
	c->zero_runs = 0;
	c->have_prev = 0;
	c->prev_job = 0;
	tot->min_submit_ns = 0;
	int err = trace_tenants_reset(&tot->tenants);
	return err < 0 ? err : trace_import_rewind(&c->in, r);
}

static const char *queue_kind(enum trace_queue_from q)
{
	return q == TRACE_QUEUE_QUEUE	? "queue number (field 15)"
	       : q == TRACE_QUEUE_GROUP ? "group (field 13)"
					: "user (field 12)";
}

static void swf_write_header(FILE *f, const struct swf_ctx *c, const struct swf_totals *tot)
{
	const struct trace_import_result *res = c->in.res;
	char why[1024], sub[32];
	fprintf(f,
		"# Standard Workload Format log %s (Parallel Workloads Archive,\n"
		"# https://www.cs.huji.ac.il/labs/parallel/workload/; cite the log's source as its page "
		"asks).\n",
		trace_base_name(c->in.path));
	for (size_t k = 0; k < N_HEADER_KEYS; k++)
		if (c->header[k][0])
			fprintf(f, "# %s: %s\n", header_keys[k], c->header[k]);
	trace_import_reasons_str(res, 0, why, sizeof why);
	fprintf(f,
		"# SWF logs are CPU clusters: processors stand in for GPUs.\n"
		"# Converted by: gpusched trace import --format swf (traces/README.md).\n"
		"# Mapping: id = job number, submit_s = submit time - %s s, duration_s = run time\n"
		"#   (0 read as 1 s, the log's resolution: %zu jobs),\n"
		"#   request = *:gpu=<allocated processors, else requested>, queue = %s,\n"
		"#   estimate_s = requested time when > 0. Partial-execution records (status 2-4) dropped.\n"
		"# Rows in: %zu, jobs out: %zu, dropped: %zu (%s).\n",
		trace_format_secs(tot->min_submit_ns, sub, sizeof sub), c->zero_runs,
		queue_kind(c->in.opts->queue_from),
		res->rows_read, res->rows_written, res->rows_dropped, res->n_reasons ? why : "none");
	trace_import_write_bad_comment(res, f);
	if (c->in.opts->top_queues)
		fprintf(f,
			"# Tenants (--top-queues %zu): the %zu with most processor-hours keep their name, "
			"the other %zu are '" TRACE_IMPORT_OTHER "'.\n",
			c->in.opts->top_queues,
			res->tenants_in < c->in.opts->top_queues ? res->tenants_in : c->in.opts->top_queues,
			res->tenants_in > c->in.opts->top_queues ? res->tenants_in - c->in.opts->top_queues
								 : 0);
	fputs("id,submit_s,duration_s,queue,request,estimate_s\n", f);
}

static int swf_pass2(struct swf_ctx *c, struct sim_lines *r, struct swf_row *row,
		     const struct swf_totals *tot, FILE *f)
{
	char sub[32], dur[32], est[32];
	int err;
	c->in.report = 0;
	c->have_prev = 0;
	while ((err = sim_lines_next(r)) > 0) {
		char k = line_kind(r);
		if (k == ';' || k == '\0' || !swf_classify(c, r, row))
			continue;
		const char *q = trace_tenants_map(tot->tenants, row->tenant, strlen(row->tenant));
		int64_t req = row->v[F_REQ_TIME];
		est[0] = '\0';
		if (req > 0)
			trace_format_secs(req, est, sizeof est);
		fprintf(f, "%lld,%s,%s,%s,*:gpu=%lld,%s\n", (long long)whole(row->v[F_JOB]),
			trace_format_secs(row->v[F_SUBMIT] - tot->min_submit_ns, sub, sizeof sub),
			trace_format_secs(row->v[F_RUN], dur, sizeof dur), q ? q : row->tenant,
			(long long)row->procs, est);
	}
	return err;
}

int trace_swf_import(const char *in_path, const char *out_path, const struct trace_import_opts *opts,
		     struct trace_import_result *res, struct sim_diag *diag)
{
	struct swf_ctx c = {.in = {.path = in_path, .opts = opts, .res = res, .diag = diag}};
	struct swf_totals tot = { 0 };
	struct sim_lines r;
	struct swf_row *row = malloc(sizeof *row);
	char *tmp = NULL;
	FILE *f = NULL;
	int err;

	memset(res, 0, sizeof *res);
	tot.tenants = trace_tenants_create();
	if (!row || !tot.tenants) {
		free(row);
		trace_tenants_destroy(tot.tenants);
		return -SIM_ENOMEM;
	}
	if ((err = sim_lines_open(&r, in_path, diag)) < 0)
		goto out_free;
	if ((err = swf_pass1(&c, &r, row, &tot)) < 0)
		goto out_close; /* reader errors are located by the reader */
	if (trace_import_submit_rerun(&c.in) && ((err = swf_restart(&c, &tot, &r)) < 0 ||
						 (err = swf_pass1(&c, &r, row, &tot)) < 0))
		goto out_close;
	if (c.in.n_err) {
		err = -SIM_EPARSE;
		goto out_close;
	}
	if (c.zero_runs)
		snprintf(res->note, sizeof res->note, "run time 0 read as 1 s: %zu jobs", c.zero_runs);
	if ((err = trace_import_pick_top(&c.in, tot.tenants)) < 0 ||
	    (err = trace_import_rewind(&c.in, &r)) < 0)
		goto out_close;
	if ((err = trace_import_out_open(out_path, &tmp, &f, diag)) < 0)
		goto out_close;
	swf_write_header(f, &c, &tot);
	err = trace_import_out_close(&c.in, out_path, tmp, f, swf_pass2(&c, &r, row, &tot, f));
out_close:
	sim_lines_close(&r);
out_free:
	trace_tenants_destroy(tot.tenants);
	free(row);
	return err;
}
