/* traces/helios.c: Helios cluster_log.csv -> native trace (mapping in helios.h and
 * traces/README.md). Two passes over a line reader (import.h): the first checks and
 * counts every row, sums GPU-hours per tenant and finds the earliest submit; the
 * second writes the kept rows in file order. */
#include "helios.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "philly.h" /* trace_parse_utc */

#define SHOW_MAX 60
#define SHOW(p, len) (int)((len) > SHOW_MAX ? SHOW_MAX : (len)), (p), ((len) > SHOW_MAX ? "..." : "")
#define MAX_FIELDS 64
#define MAX_GPUS 1000000

enum { C_ID, C_USER, C_VC, C_GPU, C_SUBMIT, C_DUR, C_COUNT_ };
static const char *const col_names[C_COUNT_] = { "job_id", "user", "vc", "gpu_num", "submit_time", "duration" };

#define R_FIELDS "wrong field count"
#define R_ID "bad job_id"
#define R_DUP "duplicate job_id"
#define R_USER "bad user"
#define R_VC "bad vc"
#define R_GPU "bad gpu_num"
#define R_SUBMIT "bad submit_time"
#define R_DUR "bad duration"
#define R_CPU "CPU job (gpu_num 0)"
#define R_NORUN "never ran (duration 0)"

struct he_row {
	struct trace_span f[MAX_FIELDS];
	int64_t submit_ns, dur_ns; /* submit: Unix ns; -1 when the field does not parse */
	int64_t gpus;		   /* whole GPUs, -1 when not a whole count */
	struct trace_span tenant;  /* vc or user, by --queue-from */
};

struct he_ctx {
	struct trace_import_pass in;   /* path, opts, res, diag; report and error count */
	int col[C_COUNT_];	       /* field index of each used column */
	int n_hdr;		       /* fields in the header */
	int by_user;		       /* queue = user instead of vc */
	int64_t min_submit_ns;	       /* earliest submit of a kept row (Unix ns) */
	struct trace_tenants *ids;     /* job_ids kept so far in this pass (a set) */
	struct trace_tenants *tenants; /* GPU-seconds per queue name, pass 1 */
	struct he_row *row;	       /* the row being classified; owned by trace_helios_import */
};

#define WHEN_TOO_LATE (-2) /* parse_when: a date past 64-bit Unix ns (2262-04-11) */

/* "YYYY-MM-DD HH:MM:SS" (UTC) or Unix seconds, in Unix ns; -1 when neither,
 * WHEN_TOO_LATE when the date does not fit in int64 ns. */
static int64_t parse_when(struct trace_span s)
{
	int64_t epoch_s;
	if (trace_parse_utc(s.p, s.len, &epoch_s) == 0) {
		if (epoch_s < 0)
			return -1;
		return epoch_s > INT64_MAX / SIM_NS_PER_S ? WHEN_TOO_LATE : epoch_s * SIM_NS_PER_S;
	}
	return trace_parse_secs(s);
}

static int he_check_names(struct he_ctx *c, size_t line, struct trace_span id, struct trace_span user,
			  struct trace_span vc)
{
	if (!trace_id_ok(id))
		return trace_import_reject(
		    &c->in, line, R_ID, 1, "job_id",
		    "expected an id of letters, digits, '_', '.', '-' (1 to 255 bytes), found '%.*s%s'",
		    SHOW(id.p, id.len));
	if (!trace_name_ok(user))
		return trace_import_reject(
		    &c->in, line, R_USER, 1, "user",
		    "expected a name of 1 to 255 bytes without control characters or '\"', "
		    "found '%.*s%s'",
		    SHOW(user.p, user.len));
	if (!trace_name_ok(vc))
		return trace_import_reject(
		    &c->in, line, R_VC, 1, "vc",
		    "expected a name of 1 to 255 bytes without control characters or '\"', "
		    "found '%.*s%s'",
		    SHOW(vc.p, vc.len));
	return 1;
}

static int he_check_numbers(struct he_ctx *c, size_t line, const struct he_row *row, struct trace_span gpu,
			    struct trace_span sub, struct trace_span dur)
{
	if (row->gpus < 0)
		return trace_import_reject(&c->in, line, R_GPU, 1, "gpu_num",
					   "expected a whole GPU count in 0..%d, found '%.*s%s'", MAX_GPUS,
					   SHOW(gpu.p, gpu.len));
	if (row->submit_ns == WHEN_TOO_LATE)
		return trace_import_reject(&c->in, line, TRACE_IMPORT_R_SUBMIT_RANGE, 1, "submit_time",
					   "submit time out of range: expected a date before 2262-04-11, "
					   "found '%.*s%s'",
					   SHOW(sub.p, sub.len));
	if (row->submit_ns < 0)
		return trace_import_reject(
		    &c->in, line, R_SUBMIT, 1, "submit_time",
		    "expected YYYY-MM-DD HH:MM:SS (UTC) or Unix seconds, found '%.*s%s'",
		    SHOW(sub.p, sub.len));
	if (row->dur_ns < 0)
		return trace_import_reject(
		    &c->in, line, R_DUR, 1, "duration",
		    "expected seconds >= 0 (decimal, at most 9 fractional digits), found '%.*s%s'",
		    SHOW(dur.p, dur.len));
	if (row->gpus == 0)
		return trace_import_reject(&c->in, line, R_CPU, 0, NULL, "CPU job");
	if (row->dur_ns == 0)
		return trace_import_reject(&c->in, line, R_NORUN, 0, NULL, "never ran");
	/* Range last: rows dropped anyway are not errors. */
	if (!trace_import_check_duration(&c->in, line, "duration", row->dur_ns, dur) ||
	    !trace_import_check_submit(&c->in, line, "submit_time", row->submit_ns, sub))
		return 0;
	return 1;
}

/* Parses and checks one data line. Returns 1 to keep it, 0 when dropped, -SIM_ENOMEM.
 * Both passes see the same lines in the same order, so they agree on every row. */
static int he_classify(struct he_ctx *c, const struct sim_lines *r, struct he_row *row)
{
	int n = trace_split(r->buf, r->buf + r->len, row->f, ',', MAX_FIELDS);
	if (n != c->n_hdr)
		return trace_import_reject(&c->in, r->line, R_FIELDS, 1, NULL,
					   "expected %d fields as in the header, found %d", c->n_hdr, n);
	struct trace_span id = row->f[c->col[C_ID]], gpu = row->f[c->col[C_GPU]];
	struct trace_span sub = row->f[c->col[C_SUBMIT]], dur = row->f[c->col[C_DUR]];
	struct trace_span user = row->f[c->col[C_USER]], vc = row->f[c->col[C_VC]];
	row->gpus = trace_parse_whole(gpu, MAX_GPUS);
	row->dur_ns = trace_parse_secs(dur);
	row->submit_ns = parse_when(sub);
	row->tenant = c->by_user ? user : vc;
	if (c->in.report && row->gpus > 0 && row->dur_ns > 0)
		c->in.res->gpu_hours_in += sim_time_to_s(row->dur_ns) * (double)row->gpus / 3600.0;
	if (!he_check_names(c, r->line, id, user, vc) || !he_check_numbers(c, r->line, row, gpu, sub, dur))
		return 0;
	size_t before = trace_tenants_count(c->ids);
	if (trace_tenants_add(c->ids, id.p, id.len, 0) < 0)
		return -SIM_ENOMEM;
	if (trace_tenants_count(c->ids) == before)
		return trace_import_reject(&c->in, r->line, R_DUP, 1, "job_id",
					   "expected a unique job_id, found '%.*s%s' again",
					   SHOW(id.p, id.len));
	return 1;
}

/* Reads up to the header line and finds the used columns. Returns 0, -SIM_EPARSE
 * (located error) or a reader error. */
static int he_header(struct he_ctx *c, struct sim_lines *r, struct he_row *row)
{
	c->n_hdr = trace_read_header(r, ',', row->f, MAX_FIELDS);
	if (c->n_hdr < 0)
		return c->n_hdr;
	if (c->n_hdr == 0)
		return sim_diag_add(c->in.diag, c->in.path,
				    "expected a header line (job_id,user,vc,...), found an empty file");
	int k = trace_find_columns(row->f, c->n_hdr, MAX_FIELDS, col_names, C_COUNT_, c->col);
	if (k >= 0) {
		trace_import_err(c->in.diag, c->in.path, r->line, col_names[k],
				 "expected a header naming job_id, user, vc, gpu_num, submit_time and "
				 "duration, found no '%s'",
				 col_names[k]);
		return -SIM_EPARSE;
	}
	return 0;
}

static int he_begin(void *ctx, struct sim_lines *r)
{
	struct he_ctx *c = ctx;
	int err = he_header(c, r, c->row);
	return err < 0 ? err : trace_tenants_reset(&c->ids);
}

static int he_keep(void *ctx, const struct sim_lines *r)
{
	struct he_ctx *c = ctx;
	return he_classify(c, r, c->row);
}

static int he_count(void *ctx)
{
	struct he_ctx *c = ctx;
	const struct he_row *row = c->row;
	double gpu_s = sim_time_to_s(row->dur_ns) * (double)row->gpus;
	c->in.res->gpu_hours_out += gpu_s / 3600.0;
	if (c->in.res->rows_written == 1 || row->submit_ns < c->min_submit_ns)
		c->min_submit_ns = row->submit_ns;
	return trace_tenants_add(c->tenants, row->tenant.p, row->tenant.len, gpu_s) < 0 ? -SIM_ENOMEM : 0;
}

static int he_restart(void *ctx)
{
	struct he_ctx *c = ctx;
	return trace_tenants_reset(&c->tenants);
}

static int he_tenants(void *ctx)
{
	struct he_ctx *c = ctx;
	return trace_import_pick_top(&c->in, c->tenants);
}

static void he_write_header(FILE *f, const void *ctx)
{
	const struct he_ctx *c = ctx;
	const struct trace_import_result *res = c->in.res;
	char why[1024], sub[32];
	trace_import_reasons_str(res, 0, why, sizeof why);
	fprintf(f,
		"# Helios job log %s (S-Lab-System-Group/HeliosData; CC BY 4.0;\n"
		"# cite Hu et al., Characterization and Prediction of Deep Learning Workloads in\n"
		"# Large-Scale GPU Datacenters, SC'21).\n"
		"# Converted by: gpusched trace import --format helios (traces/README.md).\n"
		"# Mapping: id = job_id, submit_s = submit_time - %s (Unix s, UTC), duration_s = duration,\n"
		"#   request = *:gpu=<gpu_num>, queue = %s, user = user. CPU jobs (gpu_num 0) and jobs\n"
		"#   that never ran (duration 0) dropped; every state kept when it ran.\n"
		"# Rows in: %zu, jobs out: %zu, dropped: %zu (%s).\n",
		trace_base_name(c->in.path), trace_format_secs(c->min_submit_ns, sub, sizeof sub),
		c->by_user ? "user" : "vc", res->rows_read, res->rows_written, res->rows_dropped,
		res->n_reasons ? why : "none");
	trace_import_write_bad_comment(res, f);
	if (c->in.opts->top_queues)
		fprintf(f,
			"# Tenants (--top-queues %zu): the %zu with most GPU-hours keep their name, "
			"the other %zu are '" TRACE_IMPORT_OTHER "'.\n",
			c->in.opts->top_queues,
			res->tenants_in < c->in.opts->top_queues ? res->tenants_in : c->in.opts->top_queues,
			res->tenants_in > c->in.opts->top_queues ? res->tenants_in - c->in.opts->top_queues
								 : 0);
	fputs("id,submit_s,duration_s,queue,request,user\n", f);
}

static int he_write_row(void *ctx, FILE *f)
{
	struct he_ctx *c = ctx;
	const struct he_row *row = c->row;
	char sub[32], dur[32];
	struct trace_span id = row->f[c->col[C_ID]], user = row->f[c->col[C_USER]];
	const char *q = trace_tenants_map(c->tenants, row->tenant.p, row->tenant.len);
	int qlen = q ? (int)strlen(q) : (int)row->tenant.len;
	fprintf(f, "%.*s,%s,%s,%.*s,*:gpu=%lld,%.*s\n", (int)id.len, id.p,
		trace_format_secs(row->submit_ns - c->min_submit_ns, sub, sizeof sub),
		trace_format_secs(row->dur_ns, dur, sizeof dur), qlen, q ? q : row->tenant.p,
		(long long)row->gpus, (int)user.len, user.p);
	return 0;
}

static const struct trace_import_format he_format = {
	.begin = he_begin,
	.classify = he_keep,
	.count = he_count,
	.restart = he_restart,
	.tenants = he_tenants,
	.write_header = he_write_header,
	.write_row = he_write_row,
};

int trace_helios_import(const char *in_path, const char *out_path, const struct trace_import_opts *opts,
			struct trace_import_result *res, struct sim_diag *diag)
{
	struct he_ctx c = {.in = {.path = in_path, .opts = opts, .res = res, .diag = diag}};
	int err;

	memset(res, 0, sizeof *res);
	if (opts->queue_from == TRACE_QUEUE_GROUP)
		return sim_diag_add(diag, in_path, "--queue-from group: Helios has no groups (use vc or user)");
	c.by_user = opts->queue_from == TRACE_QUEUE_USER;
	c.tenants = trace_tenants_create();
	c.row = malloc(sizeof *c.row);
	if (!c.row || !c.tenants) {
		err = -SIM_ENOMEM;
		goto out;
	}
	err = trace_import_run(&c.in, &he_format, &c, out_path);
out:
	trace_tenants_destroy(c.ids);
	trace_tenants_destroy(c.tenants);
	free(c.row);
	return err;
}
