/* traces/tiresias.c: Tiresias job table -> native trace (mapping in tiresias.h and
 * traces/README.md). Two passes over a line reader (import.h): the first checks and
 * counts every row, the second writes the kept ones in file order. */
#include "tiresias.h"

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

struct ti_row {
	struct trace_span f[MAX_FIELDS];
	int64_t submit_ns, dur_ns; /* -1 when the field does not parse */
	int64_t gpus;		   /* whole GPUs, -1 when not a whole count */
};

struct ti_ctx {
	struct trace_import_pass in; /* path, opts, res, diag; report and error count */
	int col[C_COUNT_];	   /* field index of each used column */
	int n_hdr;		   /* fields in the header */
	size_t hdr_line;	   /* line of the header */
	struct trace_tenants *ids; /* job_ids kept so far in this pass (a set) */
	struct ti_row *row;        /* the row being classified; owned by trace_tiresias_import */
};

/* Parses and checks one data line. Returns 1 to keep it, 0 when dropped, -SIM_ENOMEM.
 * Both passes see the same lines in the same order, so they agree on every row. */
static int ti_classify(struct ti_ctx *c, const struct sim_lines *r, struct ti_row *row)
{
	int n = trace_split(r->buf, r->buf + r->len, row->f, ',', MAX_FIELDS);
	if (n != c->n_hdr)
		return trace_import_reject(&c->in, r->line, R_FIELDS, 1, NULL,
					   "expected %d fields as in the header, found %d", c->n_hdr, n);
	struct trace_span id = row->f[c->col[C_ID]], gpu = row->f[c->col[C_GPU]];
	struct trace_span sub = row->f[c->col[C_SUBMIT]], dur = row->f[c->col[C_DUR]];
	row->gpus = trace_parse_whole(gpu, MAX_GPUS);
	row->dur_ns = trace_parse_secs(dur);
	row->submit_ns = trace_parse_secs(sub);
	if (c->in.report && row->gpus > 0 && row->dur_ns > 0)
		c->in.res->gpu_hours_in += sim_time_to_s(row->dur_ns) * (double)row->gpus / 3600.0;
	if (!trace_id_ok(id))
		return trace_import_reject(
		    &c->in, r->line, R_ID, 1, "job_id",
		    "expected an id of letters, digits, '_', '.', '-' (1 to 255 bytes), found '%.*s%s'",
		    SHOW(id.p, id.len));
	if (row->gpus <= 0)
		return trace_import_reject(&c->in, r->line, R_GPU, 1, "num_gpu",
					   "expected a whole GPU count in 1..%d, found '%.*s%s'", MAX_GPUS,
					   SHOW(gpu.p, gpu.len));
	if (row->submit_ns < 0)
		return trace_import_reject(
		    &c->in, r->line, R_SUBMIT, 1, "submit_time",
		    "expected seconds >= 0 (decimal, at most 9 fractional digits), found '%.*s%s'",
		    SHOW(sub.p, sub.len));
	if (row->dur_ns <= 0)
		return trace_import_reject(
		    &c->in, r->line, R_DUR, 1, "duration",
		    "expected seconds > 0 (decimal, at most 9 fractional digits), found '%.*s%s'",
		    SHOW(dur.p, dur.len));
	if (!trace_import_check_submit_abs(&c->in, r->line, "submit_time", row->submit_ns, sub) ||
	    !trace_import_check_duration(&c->in, r->line, "duration", row->dur_ns, dur))
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
static int ti_header(struct ti_ctx *c, struct sim_lines *r, struct ti_row *row)
{
	c->n_hdr = trace_read_header(r, ',', row->f, MAX_FIELDS);
	if (c->n_hdr < 0)
		return c->n_hdr;
	if (c->n_hdr == 0)
		return sim_diag_add(
		    c->in.diag, c->in.path,
		    "expected a header line (job_id,num_gpu,submit_time,...), found an empty file");
	c->hdr_line = r->line;
	int k = trace_find_columns(row->f, c->n_hdr, MAX_FIELDS, col_names, C_COUNT_, c->col);
	if (k >= 0) {
		trace_import_err(c->in.diag, c->in.path, r->line, col_names[k],
				 "expected a header naming job_id, num_gpu, submit_time and duration, "
				 "found no '%s'",
				 col_names[k]);
		return -SIM_EPARSE;
	}
	return 0;
}

static int ti_begin(void *ctx, struct sim_lines *r)
{
	struct ti_ctx *c = ctx;
	int err = ti_header(c, r, c->row);
	return err < 0 ? err : trace_tenants_reset(&c->ids);
}

static int ti_keep(void *ctx, const struct sim_lines *r)
{
	struct ti_ctx *c = ctx;
	return ti_classify(c, r, c->row);
}

static int ti_count(void *ctx)
{
	struct ti_ctx *c = ctx;
	c->in.res->gpu_hours_out += sim_time_to_s(c->row->dur_ns) * (double)c->row->gpus / 3600.0;
	return 0;
}

static void ti_write_header(FILE *f, const void *ctx)
{
	const struct ti_ctx *c = ctx;
	const struct trace_import_result *res = c->in.res;
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
		trace_base_name(c->in.path), res->rows_read, res->rows_written, res->rows_dropped,
		res->n_reasons ? why : "none");
	trace_import_write_bad_comment(res, f);
	fputs("id,submit_s,duration_s,queue,request\n", f);
}

static int ti_write_row(void *ctx, FILE *f)
{
	struct ti_ctx *c = ctx;
	const struct ti_row *row = c->row;
	char sub[32], dur[32];
	struct trace_span id = row->f[c->col[C_ID]];
	fprintf(f, "%.*s,%s,%s,default,*:gpu=%lld\n", (int)id.len, id.p,
		trace_format_secs(row->submit_ns, sub, sizeof sub),
		trace_format_secs(row->dur_ns, dur, sizeof dur), (long long)row->gpus);
	return 0;
}

static const struct trace_import_format ti_format = {
	.begin = ti_begin,
	.classify = ti_keep,
	.count = ti_count,
	.write_header = ti_write_header,
	.write_row = ti_write_row,
};

int trace_tiresias_import(const char *in_path, const char *out_path, const struct trace_import_opts *opts,
			  struct trace_import_result *res, struct sim_diag *diag)
{
	struct ti_ctx c = {.in = {.path = in_path, .opts = opts, .res = res, .diag = diag}};
	int err;

	memset(res, 0, sizeof *res);
	if (!(c.row = malloc(sizeof *c.row)))
		return -SIM_ENOMEM;
	err = trace_import_run(&c.in, &ti_format, &c, out_path);
	trace_tenants_destroy(c.ids);
	free(c.row);
	return err;
}
