/* traces/pai.c: Alibaba PAI 2020 task table -> native trace, machine spec -> cluster
 * (mappings in pai.h and traces/README.md). The importer makes two passes over a line
 * reader (import.h): the first checks and counts every row, the second writes the kept
 * ones in file order. */
#include "pai.h"

#include <stdlib.h>
#include <string.h>

#define SHOW_MAX 60
#define SHOW(p, len) (int)((len) > SHOW_MAX ? SHOW_MAX : (len)), (p), ((len) > SHOW_MAX ? "..." : "")
#define MAX_INST 1000000
#define MAX_GPU_MILLI (1000000 * SIM_MILLI) /* a task's GPUs, in milli-GPUs */

enum { F_JOB, F_TASK, F_INST, F_STATUS, F_START, F_END, F_CPU, F_MEM, F_GPU, F_TYPE, F_COUNT };
/* Fields in order: job_name, task_name, inst_num, status, start_time, end_time, plan_cpu,
 * plan_mem, plan_gpu, gpu_type. */

#define R_FIELDS "wrong field count"
#define R_ID "bad id"
#define R_DUP "duplicate id"
#define R_INST "bad inst_num"
#define R_GPU "bad plan_gpu"
#define R_TYPE "bad gpu_type"
#define R_START "bad start_time"
#define R_END "bad end_time"
#define R_DUR "duration <= 0"
#define R_NOGPU "no GPUs"

struct pai_row {
	struct trace_span f[F_COUNT + 1];
	int64_t start_ns, dur_ns; /* dur_ns valid when keep */
	sim_qty_t gpus;		  /* milli-GPUs of the task (all instances) */
	char id[520];		  /* job_name.task_name */
};

struct pai_ctx {
	struct trace_import_pass in; /* path, opts, res, diag; report and error count */
	struct trace_tenants *ids;   /* ids kept so far in this pass (a set) */
	int64_t min_start_ns;	     /* earliest kept start_time (pass 1) */
	int seen_data;		     /* a data line (or the header) was seen in this pass */
	struct pai_row *row;	     /* the row being classified; owned by trace_pai_import */
};

/* Whether gpu_type names no model: empty, MISC (mixed, unnamed) or CPU. */
static int any_flavor(struct trace_span t)
{
	return t.len == 0 || trace_span_is(t, "MISC") || trace_span_is(t, "CPU");
}

/* plan_gpu (percent of one GPU, decimal) x inst_num in milli-GPUs, rounded; -1 when
 * plan_gpu is not a decimal >= 0 or the total is too large. Empty means 0. */
static sim_qty_t task_gpus(struct trace_span plan, int64_t inst)
{
	if (plan.len == 0)
		return 0;
	int64_t pct_ns = trace_parse_secs(plan); /* percent x 1e9 */
	if (pct_ns < 0 || pct_ns > (int64_t)100000 * SIM_NS_PER_S)
		return -1;
	/* percent x 1e9 / 1e8 = milli-GPUs of one instance, kept in 1e-2 milli for rounding */
	long double m = (long double)pct_ns * (long double)inst / 1e8L;
	if (m > (long double)MAX_GPU_MILLI)
		return -1;
	return (sim_qty_t)(m + 0.5L);
}

/* Checks the fields before the times. Returns 1 when they pass, else the reject's 0. */
static int pai_check_fields(struct pai_ctx *c, const struct sim_lines *r, struct pai_row *row, int64_t inst)
{
	struct trace_span job = row->f[F_JOB], task = row->f[F_TASK], type = row->f[F_TYPE];
	struct trace_span plan = row->f[F_GPU], in = row->f[F_INST];
	if (!trace_id_ok(job) || !trace_id_ok(task) || job.len + task.len + 1 > 255)
		return trace_import_reject(&c->in, r->line, R_ID, 1, !trace_id_ok(job) ? "job_name" : "task_name",
			"expected ids of letters, digits, '_', '.', '-' (together at most 254 bytes), "
			"found '%.*s%s' and '%.*s%s'", SHOW(job.p, job.len), SHOW(task.p, task.len));
	if (inst <= 0)
		return trace_import_reject(&c->in, r->line, R_INST, 1, "inst_num",
			"expected a whole instance count in 1..%d, found '%.*s%s'", MAX_INST, SHOW(in.p, in.len));
	if (row->gpus < 0)
		return trace_import_reject(&c->in, r->line, R_GPU, 1, "plan_gpu",
			"expected percent of one GPU >= 0 (100 = 1 GPU; at most %lld GPUs a task), "
			"found '%.*s%s'", (long long)(MAX_GPU_MILLI / SIM_MILLI), SHOW(plan.p, plan.len));
	if (!any_flavor(type) && !trace_id_ok(type))
		return trace_import_reject(&c->in, r->line, R_TYPE, 1, "gpu_type",
			"expected a GPU model of letters, digits, '_', '.', '-' (or MISC, CPU, empty), "
			"found '%.*s%s'", SHOW(type.p, type.len));
	return 1;
}

/* Parses and checks one data line. Returns 1 to keep it, 0 when dropped, -SIM_ENOMEM.
 * Both passes see the same lines in the same order, so they agree on every row. */
static int pai_classify(struct pai_ctx *c, const struct sim_lines *r, struct pai_row *row)
{
	int n = trace_split(r->buf, r->buf + r->len, row->f, ',', F_COUNT + 1);
	if (n != F_COUNT)
		return trace_import_reject(&c->in, r->line, R_FIELDS, 1, NULL,
			"expected %d fields (job_name,...,gpu_type; no header), found %d", F_COUNT, n);
	struct trace_span st = row->f[F_START], en = row->f[F_END];
	int64_t inst = trace_parse_whole(row->f[F_INST], MAX_INST);
	int64_t start = trace_parse_secs(st), end = trace_parse_secs(en);
	row->gpus = inst > 0 ? task_gpus(row->f[F_GPU], inst) : -1;
	if (c->in.report && row->gpus > 0 && start >= 0 && end > start)
		c->in.res->gpu_hours_in += sim_time_to_s(end - start) * (double)row->gpus / SIM_MILLI / 3600.0;
	int ok = pai_check_fields(c, r, row, inst);
	if (ok <= 0)
		return ok;
	if (row->gpus == 0)
		return trace_import_reject(&c->in, r->line, R_NOGPU, 0, "plan_gpu", "no GPUs");
	if (start < 0)
		return trace_import_reject(&c->in, r->line, R_START, 1, "start_time",
			"expected Unix seconds >= 0 (decimal, at most 9 fractional digits), found '%.*s%s'",
			SHOW(st.p, st.len));
	if (end < 0)
		return trace_import_reject(&c->in, r->line, R_END, 1, "end_time",
			"expected Unix seconds >= 0 (decimal, at most 9 fractional digits), found '%.*s%s'",
			SHOW(en.p, en.len));
	if (end <= start)
		return trace_import_reject(&c->in, r->line, R_DUR, 1, "end_time",
			"expected end_time after start_time ('%.*s%s'), found '%.*s%s'", SHOW(st.p, st.len),
			SHOW(en.p, en.len));
	/* What the native format holds: durations and start times (shifted to the
	 * earliest) of at most 1e9 s. */
	if (!trace_import_check_duration(&c->in, r->line, "end_time", end - start, en) ||
	    !trace_import_check_submit(&c->in, r->line, "start_time", start, st))
		return 0;
	row->start_ns = start;
	row->dur_ns = end - start;
	snprintf(row->id, sizeof row->id, "%.*s.%.*s", (int)row->f[F_JOB].len, row->f[F_JOB].p,
		 (int)row->f[F_TASK].len, row->f[F_TASK].p);
	size_t before = trace_tenants_count(c->ids);
	if (trace_tenants_add(c->ids, row->id, strlen(row->id), 0) < 0)
		return -SIM_ENOMEM;
	if (trace_tenants_count(c->ids) == before)
		return trace_import_reject(&c->in, r->line, R_DUP, 1, "task_name",
			"expected a unique (job_name, task_name), found '%s' again", row->id);
	return 1;
}

/* The next data line: 1, 0 at the end, or a reader error. Skips blank lines and a
 * first line that is the column names (the original has none; copies may add it). */
static int pai_next(void *ctx, struct sim_lines *r)
{
	struct pai_ctx *c = ctx;
	int got;
	while ((got = sim_lines_next(r)) > 0) {
		if (trace_blank_line(r))
			continue;
		int first = !c->seen_data;
		c->seen_data = 1;
		if (first && strncmp(r->buf, "job_name,", 9) == 0)
			continue;
		return 1;
	}
	return got;
}

static int pai_keep(void *ctx, const struct sim_lines *r)
{
	struct pai_ctx *c = ctx;
	return pai_classify(c, r, c->row);
}

static int pai_count(void *ctx)
{
	struct pai_ctx *c = ctx;
	const struct pai_row *row = c->row;
	if (c->in.res->rows_written == 1 || row->start_ns < c->min_start_ns)
		c->min_start_ns = row->start_ns;
	c->in.res->gpu_hours_out += sim_time_to_s(row->dur_ns) * (double)row->gpus / SIM_MILLI / 3600.0;
	return 0;
}

static void pai_write_header(FILE *f, const void *ctx)
{
	const struct pai_ctx *c = ctx;
	const struct trace_import_result *res = c->in.res;
	char why[1024], t0[32];
	trace_import_reasons_str(res, 0, why, sizeof why);
	fprintf(f,
		"# Alibaba PAI GPU trace v2020 task table %s (alibaba/clusterdata\n"
		"# cluster-trace-gpu-v2020; CC BY 4.0; cite Weng et al., MLaaS in the Wild, NSDI'22).\n"
		"# Converted by: gpusched trace import --format pai (traces/README.md).\n"
		"# Mapping: id = job_name.task_name, submit_s = start_time - %s s (Unix), duration_s =\n"
		"#   end_time - start_time, request = <gpu_type>:gpu=<inst_num x plan_gpu / 100> (MISC, CPU\n"
		"#   or empty gpu_type -> *), queue = default (users are in the job table).\n"
		"#   The task table has no submit time: arrivals are start times, PAI's queueing is lost.\n"
		"#   Dropped columns: status, plan_cpu, plan_mem; CPU tasks (plan_gpu 0 or empty).\n"
		"# Rows in: %zu, jobs out: %zu, dropped: %zu (%s).\n",
		trace_base_name(c->in.path), trace_format_secs(c->min_start_ns, t0, sizeof t0), res->rows_read,
		res->rows_written, res->rows_dropped, res->n_reasons ? why : "none");
	trace_import_write_bad_comment(res, f);
	fputs("id,submit_s,duration_s,queue,request\n", f);
}

static int pai_write_row(void *ctx, FILE *f)
{
	struct pai_ctx *c = ctx;
	const struct pai_row *row = c->row;
	char sub[32], dur[32], gpus[32];
	struct trace_span t = row->f[F_TYPE];
	sim_qty_format(row->gpus, gpus, sizeof gpus);
	fprintf(f, "%s,%s,%s,default,%.*s:gpu=%s\n", row->id,
		trace_format_secs(row->start_ns - c->min_start_ns, sub, sizeof sub),
		trace_format_secs(row->dur_ns, dur, sizeof dur), any_flavor(t) ? 1 : (int)t.len,
		any_flavor(t) ? "*" : t.p, gpus);
	return 0;
}

/* Fresh id set and header state for a pass. */
static int pai_begin(void *ctx, struct sim_lines *r)
{
	struct pai_ctx *c = ctx;
	(void)r;
	c->seen_data = 0;
	return trace_tenants_reset(&c->ids);
}

static const struct trace_import_format pai_format = {
	.begin = pai_begin,
	.next = pai_next,
	.classify = pai_keep,
	.count = pai_count,
	.write_header = pai_write_header,
	.write_row = pai_write_row,
};

int trace_pai_import(const char *in_path, const char *out_path, const struct trace_import_opts *opts,
		     struct trace_import_result *res, struct sim_diag *diag)
{
	struct pai_ctx c = { .in = { .path = in_path, .opts = opts, .res = res, .diag = diag } };
	int err;

	memset(res, 0, sizeof *res);
	if (!(c.row = malloc(sizeof *c.row)))
		return -SIM_ENOMEM;
	err = trace_import_run(&c.in, &pai_format, &c, out_path);
	trace_tenants_destroy(c.ids);
	free(c.row);
	return err;
}

/* ---- machine spec -> cluster ---- */

#define SHAPES_MAX 16 /* distinct cap_gpu values a type may have */

/* One machine row: 0 (kept or CPU-only), 1 (located error in diag), -SIM_ENOMEM. */
static int machine_row(const char *path, const struct sim_lines *r, struct trace_models *ms, struct sim_diag *d)
{
	struct trace_span f[6];
	int n = trace_split(r->buf, r->buf + r->len, f, ',', 6);
	if (n != 5) {
		trace_import_err(d, path, r->line, NULL,
				 "expected 5 fields (machine,gpu_type,cap_cpu,cap_mem,cap_gpu), found %d", n);
		return 1;
	}
	int64_t gpus = trace_parse_whole(f[4], 1024);
	if (gpus < 0) {
		trace_import_err(d, path, r->line, "cap_gpu", "expected a whole GPU count in 0..1024, found '%.*s%s'",
				 SHOW(f[4].p, f[4].len));
		return 1;
	}
	if (gpus == 0)
		return 0;
	if (!trace_id_ok(f[1]) || f[1].len >= TRACE_MODEL_MAX) {
		trace_import_err(d, path, r->line, "gpu_type",
				 "expected a GPU type of letters, digits, '_', '.', '-' (1 to %d bytes), "
				 "found '%.*s%s'", TRACE_MODEL_MAX - 1, SHOW(f[1].p, f[1].len));
		return 1;
	}
	int n_shapes = trace_models_add(ms, f[1], gpus);
	if (n_shapes < 0)
		return n_shapes;
	if (n_shapes > SHAPES_MAX) {
		trace_import_err(d, path, r->line, "cap_gpu", "expected at most %d machine shapes of type %.*s",
				 SHAPES_MAX, (int)f[1].len, f[1].p);
		return 1;
	}
	return 0;
}

int trace_pai_cluster(const char *machine_spec_csv, char **json_out, struct sim_diag *diag)
{
	struct trace_models ts = { 0 };
	struct sim_lines r;
	int err, n_err = 0, first = 1;

	*json_out = NULL;
	if ((err = sim_lines_open(&r, machine_spec_csv, diag)) < 0)
		return err;
	while ((err = sim_lines_next(&r)) > 0) {
		if (trace_blank_line(&r))
			continue;
		if (first && strncmp(r.buf, "machine,", 8) == 0) {
			first = 0;
			continue;
		}
		first = 0;
		int e = machine_row(machine_spec_csv, &r, &ts, diag);
		if (e == -SIM_ENOMEM) {
			err = e;
			goto out;
		}
		n_err += e > 0;
	}
	if (err < 0)
		goto out; /* located by the reader */
	if (n_err) {
		err = -SIM_EPARSE;
		goto out;
	}
	if (ts.n == 0) {
		err = sim_diag_add(diag, machine_spec_csv, "expected at least one machine with GPUs, found none");
		goto out;
	}
	*json_out = trace_models_cluster_json(&ts);
	err = *json_out ? 0 : -SIM_ENOMEM;
out:
	sim_lines_close(&r);
	trace_models_free(&ts);
	return err;
}
