/* traces/gavel.c: Gavel trace files -> native trace (mapping in gavel.h and
 * traces/README.md). Two passes over a line reader (import.h): the first checks and
 * counts every row, the second writes the kept ones in file order. */
#include "gavel.h"

#include <stdlib.h>
#include <string.h>

#define SHOW_MAX 60
#define SHOW(p, len) (int)((len) > SHOW_MAX ? SHOW_MAX : (len)), (p), ((len) > SHOW_MAX ? "..." : "")
#define MAX_FIELDS 12
#define MAX_GPUS 1000000
#define MAX_STEPS 1000000000LL /* the native reader's longest time, 1e9 s */

#define R_FIELDS "wrong field count"
#define R_STEPS "bad total_steps"
#define R_SCALE "bad scale_factor"
#define R_ARRIVAL "bad arrival_time"
#define R_PRIO "bad priority_weight"

/* Field positions of one layout; prio < 0 when the layout has none. */
struct gv_layout {
	int n, steps, scale, arrival, prio;
};
static const struct gv_layout layout10 = { 10, 5, 6, 9, 7 };
static const struct gv_layout layout7 = { 7, 4, 6, 5, -1 };

struct gv_row {
	struct trace_span f[MAX_FIELDS];
	int64_t steps, gpus, prio; /* whole values; -1 when not */
	int64_t arrival_ns;	   /* -1 when the field does not parse */
};

struct gv_ctx {
	struct trace_import_pass in; /* path, opts, res, diag; report and error count */
	struct gv_row *row; /* the row being classified; owned by trace_gavel_import */
	char queue[256]; /* from the file name */
};

/* Parses and checks one data line. Returns 1 to keep it, 0 when dropped. Both passes
 * see the same lines in the same order, so they agree on every row. */
static int gv_classify(struct gv_ctx *c, const struct sim_lines *r, struct gv_row *row)
{
	int n = trace_split(r->buf, r->buf + r->len, row->f, '\t', MAX_FIELDS);
	if (n != layout10.n && n != layout7.n)
		return trace_import_reject(
		    &c->in, r->line, R_FIELDS, 1, NULL,
		    "expected 10 tab-separated fields (or 7 in the older msr layout), found %d", n);
	const struct gv_layout *l = n == layout10.n ? &layout10 : &layout7;
	struct trace_span steps = row->f[l->steps], scale = row->f[l->scale], arr = row->f[l->arrival];
	row->steps = trace_parse_whole(steps, MAX_STEPS * GAVEL_STEPS_PER_S);
	row->gpus = trace_parse_whole(scale, MAX_GPUS);
	row->arrival_ns = trace_parse_secs(arr);
	row->prio = l->prio < 0 ? 0 : trace_parse_whole(row->f[l->prio], 2147483647);
	if (c->in.report && row->steps > 0 && row->gpus > 0)
		c->in.res->gpu_hours_in +=
		    (double)row->steps / GAVEL_STEPS_PER_S * (double)row->gpus / 3600.0;
	if (row->steps <= 0)
		return trace_import_reject(&c->in, r->line, R_STEPS, 1, "total_steps",
					   "expected a whole step count in 1..%lld, found '%.*s%s'",
					   (long long)(MAX_STEPS * GAVEL_STEPS_PER_S),
					   SHOW(steps.p, steps.len));
	if (row->gpus <= 0)
		return trace_import_reject(&c->in, r->line, R_SCALE, 1, "scale_factor",
					   "expected a whole GPU count in 1..%d, found '%.*s%s'", MAX_GPUS,
					   SHOW(scale.p, scale.len));
	if (row->arrival_ns < 0)
		return trace_import_reject(
		    &c->in, r->line, R_ARRIVAL, 1, "arrival_time",
		    "expected seconds >= 0 (decimal, at most 9 fractional digits), found '%.*s%s'",
		    SHOW(arr.p, arr.len));
	if (!trace_import_check_submit_abs(&c->in, r->line, "arrival_time", row->arrival_ns, arr))
		return 0;
	if (row->prio < 0)
		return trace_import_reject(&c->in, r->line, R_PRIO, 1, "priority_weight",
					   "expected a whole weight in 0..2147483647, found '%.*s%s'",
					   SHOW(row->f[l->prio].p, row->f[l->prio].len));
	return 1;
}

static int gv_keep(void *ctx, const struct sim_lines *r)
{
	struct gv_ctx *c = ctx;
	return gv_classify(c, r, c->row);
}

static int gv_count(void *ctx)
{
	struct gv_ctx *c = ctx;
	c->in.res->gpu_hours_out += (double)c->row->steps / GAVEL_STEPS_PER_S * (double)c->row->gpus / 3600.0;
	return 0;
}

/* Queue name from the file name: "traces/msr/6214e9.trace.gz" -> "6214e9". Names
 * that the native CSV could not hold unquoted become "default". */
static void gv_queue_name(const char *path, char *buf, size_t size)
{
	snprintf(buf, size, "%s", trace_base_name(path));
	size_t l = strlen(buf);
	if (l > 3 && strcmp(buf + l - 3, ".gz") == 0)
		buf[l -= 3] = '\0';
	if (l > 6 && strcmp(buf + l - 6, ".trace") == 0)
		buf[l -= 6] = '\0';
	int ok = l > 0 && buf[0] != '#';
	for (size_t i = 0; i < l && ok; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f || buf[i] == '"' || buf[i] == ',' ||
		    buf[i] == ' ')
			ok = 0;
	if (!ok)
		snprintf(buf, size, "default");
}

static void gv_write_header(FILE *f, const void *ctx)
{
	const struct gv_ctx *c = ctx;
	const struct trace_import_result *res = c->in.res;
	char why[1024];
	trace_import_reasons_str(res, 0, why, sizeof why);
	fprintf(
	    f,
	    "# Gavel trace %s (stanford-futuredata/gavel, scheduler/traces/; MIT;\n"
	    "# cite Narayanan et al., Heterogeneity-Aware Cluster Scheduling Policies for Deep\n"
	    "# Learning Workloads, OSDI'20).\n"
	    "# Converted by: gpusched trace import --format gavel (traces/README.md).\n"
	    "# Mapping: id = gavel-<data line>, submit_s = arrival_time, request = *:gpu=<scale_factor>,\n"
	    "#   queue = %s (the file name), priority = priority_weight (0 in the 7-field layout).\n"
	    "#   duration_s = total_steps / %d step/s: Gavel's per-model throughput table is not\n"
	    "#   available, so durations are in steps, not seconds. Dropped: job_type, command,\n"
	    "#   working_directory, num_steps_arg, needs_data_dir, SLO.\n"
	    "# Rows in: %zu, jobs out: %zu, dropped: %zu (%s).\n",
	    trace_base_name(c->in.path), c->queue, GAVEL_STEPS_PER_S, res->rows_read, res->rows_written,
	    res->rows_dropped, res->n_reasons ? why : "none");
	trace_import_write_bad_comment(res, f);
	fputs("id,submit_s,duration_s,queue,request,priority\n", f);
}

/* Ids are the 1-based data line (trace_import_pass.row), as in the source file. */
static int gv_write_row(void *ctx, FILE *f)
{
	struct gv_ctx *c = ctx;
	const struct gv_row *row = c->row;
	char sub[32], dur[32];
	int64_t dur_ns = row->steps * SIM_NS_PER_S / GAVEL_STEPS_PER_S;
	fprintf(f, "gavel-%zu,%s,%s,%s,*:gpu=%lld,%lld\n", c->in.row,
		trace_format_secs(row->arrival_ns, sub, sizeof sub), trace_format_secs(dur_ns, dur, sizeof dur),
		c->queue, (long long)row->gpus, (long long)row->prio);
	return 0;
}

static const struct trace_import_format gv_format = {
	.classify = gv_keep,
	.count = gv_count,
	.write_header = gv_write_header,
	.write_row = gv_write_row,
};

int trace_gavel_import(const char *in_path, const char *out_path, const struct trace_import_opts *opts,
		       struct trace_import_result *res, struct sim_diag *diag)
{
	struct gv_ctx c = {.in = {.path = in_path, .opts = opts, .res = res, .diag = diag}};
	int err;

	memset(res, 0, sizeof *res);
	if (!(c.row = malloc(sizeof *c.row)))
		return -SIM_ENOMEM;
	gv_queue_name(in_path, c.queue, sizeof c.queue);
	err = trace_import_run(&c.in, &gv_format, &c, out_path);
	free(c.row);
	return err;
}
