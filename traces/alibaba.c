/* traces/alibaba.c: the Alibaba openb pod list -> native trace, and its node list ->
 * an experiment config's cluster object (mapping in alibaba.h and traces/README.md).
 * Two passes over a line reader (import.h), as swf.c: the first checks and counts,
 * sums GPU-seconds per tenant for --top-queues; the second writes the kept rows. */
#include "alibaba.h"

#include <stdlib.h>
#include <string.h>

#define SHOW_MAX 60
#define SHOW(s) (int)((s).len > SHOW_MAX ? SHOW_MAX : (s).len), (s).p, ((s).len > SHOW_MAX ? "..." : "")

#define OPENB_MAX_FIELDS 64
#define MAX_GPUS 1000000

/* Pod-list columns the mapping reads, found by name in the header. */
enum { C_NAME, C_NUM_GPU, C_GPU_MILLI, C_GPU_SPEC, C_QOS, C_CREATION, C_DELETION, C_SCHEDULED, C_COUNT };

static const char *const col_names[C_COUNT] = {"name", "num_gpu",	"gpu_milli",	 "gpu_spec",
					       "qos",  "creation_time", "deletion_time", "scheduled_time"};

#define R_FIELDS "wrong field count"
#define R_NAME "bad name"
#define R_NUMBER "bad number"
#define R_QOS "bad qos"
#define R_SPEC "bad gpu_spec"
#define R_RUN "no run time"
#define R_DUP "duplicate name"
#define R_NO_GPU "no GPU"
#define R_PENDING "never scheduled"

static const struct {
	const char *name;
	int priority;
} qos_table[] = {{"LS", 2}, {"Guaranteed", 1}, {"Burstable", 1}, {"BE", 0}};

/* One pod row after the checks. */
struct openb_row {
	struct trace_span f[OPENB_MAX_FIELDS];
	sim_time_t submit, duration; /* ns */
	sim_qty_t gpus;		     /* milli-GPUs */
	int priority;
	struct trace_span models[OPENB_MAX_PREFS]; /* distinct gpu_spec models, listed order */
	size_t n_models;
	int merged, cut; /* gpu_spec had repeats / more than OPENB_MAX_PREFS models */
};

struct openb_ctx {
	struct trace_import_pass in; /* path, opts, res, diag; report and error count */
	int col[C_COUNT];
	int n_cols;		       /* fields in the header */
	struct trace_tenants *names;   /* ids kept so far in this pass, for the duplicate check */
	size_t merged, cut, with_spec; /* pass 1 counts of kept rows, for the header */
};

static int split_commas(const char *p, const char *end, struct trace_span *f, int max)
{
	int n = 0;
	for (;;) {
		const char *s = p;
		while (p < end && *p != ',')
			p++;
		if (n < max) {
			struct trace_span t = {s, (size_t)(p - s)};
			while (t.len && (t.p[0] == ' ' || t.p[0] == '\t')) {
				t.p++;
				t.len--;
			}
			while (t.len && (t.p[t.len - 1] == ' ' || t.p[t.len - 1] == '\t'))
				t.len--;
			f[n] = t;
		}
		n++;
		if (p == end)
			return n;
		p++;
	}
}

/* A whole number in [0, max] ("8", "1000"). Returns 0 or -1. */
static int parse_whole(struct trace_span s, int64_t max, int64_t *out)
{
	sim_time_t v;
	if (sim_time_parse_s(s.p, s.len, &v) < 0 || v % SIM_NS_PER_S != 0 || v / SIM_NS_PER_S > max)
		return -1;
	*out = v / SIM_NS_PER_S;
	return 0;
}

static int valid_model(struct trace_span s)
{
	if (s.len == 0 || s.len >= TRACE_MODEL_MAX)
		return 0;
	for (size_t i = 0; i < s.len; i++) {
		char ch = s.p[i];
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		      ch == '_' || ch == '.' || ch == '-'))
			return 0;
	}
	return 1;
}

/* Ids are written as the native id column: non-empty, no control characters, and no
 * '"' (the writer quotes only a leading '#'). */
static int valid_name(struct trace_span s)
{
	if (s.len == 0 || s.len > 255)
		return 0;
	for (size_t i = 0; i < s.len; i++)
		if ((unsigned char)s.p[i] < 0x20 || s.p[i] == 0x7f || s.p[i] == '"')
			return 0;
	return 1;
}

/* gpu_spec "A|B|A" -> distinct models in listed order, at most OPENB_MAX_PREFS kept.
 * Returns 0, or -1 with *bad set to the offending model. */
static int parse_spec(struct trace_span spec, struct openb_row *row, struct trace_span *bad)
{
	const char *p = spec.p, *end = spec.p + spec.len;
	row->n_models = 0;
	row->merged = row->cut = 0;
	if (spec.len == 0)
		return 0;
	for (;;) {
		const char *s = p;
		while (p < end && *p != '|')
			p++;
		struct trace_span m = {s, (size_t)(p - s)};
		if (!valid_model(m)) {
			*bad = m;
			return -1;
		}
		int seen = 0;
		for (size_t i = 0; i < row->n_models && !seen; i++)
			seen = row->models[i].len == m.len && memcmp(row->models[i].p, m.p, m.len) == 0;
		/* A model past the 5th is only compared with the kept ones: it may repeat one. */
		if (seen)
			row->merged = 1;
		else if (row->n_models < OPENB_MAX_PREFS)
			row->models[row->n_models++] = m;
		else
			row->cut = 1;
		if (p == end)
			return 0;
		p++;
	}
}

/* GPUs of the pod in milli-units: num_gpu, or gpu_milli for a shared 1-GPU pod.
 * Returns 0 (CPU-only: *gpus = 0) or -1 with the bad column in *col. */
static int parse_gpus(const struct openb_ctx *c, struct openb_row *row, int *col)
{
	int64_t n, milli;
	if (parse_whole(row->f[c->col[C_NUM_GPU]], MAX_GPUS, &n) < 0) {
		*col = C_NUM_GPU;
		return -1;
	}
	if (parse_whole(row->f[c->col[C_GPU_MILLI]], 1000, &milli) < 0 || (n == 1 && milli == 0)) {
		*col = C_GPU_MILLI;
		return -1;
	}
	row->gpus = n == 1 ? (sim_qty_t)milli : (sim_qty_t)n * SIM_MILLI;
	return 0;
}

static int bad_time(struct openb_ctx *c, size_t line, int k, struct trace_span s)
{
	return trace_import_reject(&c->in, line, R_NUMBER, 1, col_names[k],
				   "expected seconds >= 0 (decimal), found '%.*s%s'", SHOW(s));
}

/* Parses and checks one data line. Returns 1 to keep it, 0 when dropped. Both passes
 * call it on the same lines in the same order, so they agree on every row. */
static int openb_classify(struct openb_ctx *c, const struct sim_lines *r, struct openb_row *row)
{
	size_t line = r->line;
	int n = split_commas(r->buf, r->buf + r->len, row->f, OPENB_MAX_FIELDS);
	if (n != c->n_cols)
		return trace_import_reject(&c->in, line, R_FIELDS, 1, NULL,
					   "expected %d fields as in the header, found %d", c->n_cols, n);
	struct trace_span name = row->f[c->col[C_NAME]], qos = row->f[c->col[C_QOS]];
	struct trace_span sched = row->f[c->col[C_SCHEDULED]];
	if (!valid_name(name))
		return trace_import_reject(
		    &c->in, line, R_NAME, 1, "name",
		    "expected a non-empty pod name without control characters or '\"', found '%.*s%s'",
		    SHOW(name));
	int gcol;
	if (parse_gpus(c, row, &gcol) < 0)
		return trace_import_reject(&c->in, line, R_NUMBER, 1, col_names[gcol],
					   gcol == C_NUM_GPU
					       ? "expected a whole GPU count >= 0, found '%.*s%s'"
					       : "expected thousandths of a GPU in 0..1000 (1..1000 when "
						 "num_gpu is 1), found '%.*s%s'",
					   SHOW(row->f[c->col[gcol]]));
	sim_time_t created, deleted, started = 0;
	if (sim_time_parse_s(row->f[c->col[C_CREATION]].p, row->f[c->col[C_CREATION]].len, &created) < 0)
		return bad_time(c, line, C_CREATION, row->f[c->col[C_CREATION]]);
	if (sim_time_parse_s(row->f[c->col[C_DELETION]].p, row->f[c->col[C_DELETION]].len, &deleted) < 0)
		return bad_time(c, line, C_DELETION, row->f[c->col[C_DELETION]]);
	if (sched.len && sim_time_parse_s(sched.p, sched.len, &started) < 0)
		return bad_time(c, line, C_SCHEDULED, sched);
	row->submit = created;
	row->duration = deleted - started;
	/* GPU-hours in: every pod whose run time and GPU count parse, kept or not. */
	if (c->in.report && sched.len && row->duration > 0)
		c->in.res->gpu_hours_in +=
		    sim_time_to_s(row->duration) * (double)row->gpus / SIM_MILLI / 3600.0;
	size_t q = 0;
	while (q < sizeof qos_table / sizeof qos_table[0] && !trace_span_is(qos, qos_table[q].name))
		q++;
	if (q == sizeof qos_table / sizeof qos_table[0])
		return trace_import_reject(&c->in, line, R_QOS, 1, "qos",
					   "expected LS, Guaranteed, Burstable or BE, found '%.*s%s'",
					   SHOW(qos));
	row->priority = qos_table[q].priority;
	struct trace_span bad;
	if (parse_spec(row->f[c->col[C_GPU_SPEC]], row, &bad) < 0)
		return trace_import_reject(
		    &c->in, line, R_SPEC, 1, "gpu_spec",
		    "expected GPU models ([A-Za-z0-9_.-], under 64 bytes) joined by '|', found '%.*s%s' "
		    "in '%.*s%s'",
		    SHOW(bad), SHOW(row->f[c->col[C_GPU_SPEC]]));
	if (row->gpus == 0)
		return trace_import_reject(&c->in, line, R_NO_GPU, 0, NULL, "CPU-only pod");
	if (!sched.len)
		return trace_import_reject(&c->in, line, R_PENDING, 0, NULL, "never scheduled");
	if (row->duration <= 0)
		return trace_import_reject(
		    &c->in, line, R_RUN, 1, "deletion_time",
		    "expected a deletion_time after scheduled_time (%.*s%s), found '%.*s%s'", SHOW(sched),
		    SHOW(row->f[c->col[C_DELETION]]));
	if (!trace_import_check_submit_abs(&c->in, line, "creation_time", row->submit,
					   row->f[c->col[C_CREATION]]) ||
	    !trace_import_check_duration(&c->in, line, "deletion_time", row->duration,
					 row->f[c->col[C_DELETION]]))
		return 0;
	size_t before = trace_tenants_count(c->names);
	if (trace_tenants_add(c->names, name.p, name.len, 0) < 0)
		return -SIM_ENOMEM;
	if (trace_tenants_count(c->names) == before)
		return trace_import_reject(&c->in, line, R_DUP, 1, "name",
					   "expected a unique pod name, found '%.*s%s' again", SHOW(name));
	return 1;
}

/* The header row: every column of col_names, found by name. */
static int openb_header(struct openb_ctx *c, const struct sim_lines *r)
{
	struct trace_span f[OPENB_MAX_FIELDS];
	int n = split_commas(r->buf, r->buf + r->len, f, OPENB_MAX_FIELDS);
	if (n > OPENB_MAX_FIELDS)
		return sim_diag_add(c->in.diag, c->in.path, "expected at most %d columns, found %d",
				    OPENB_MAX_FIELDS, n);
	c->n_cols = n;
	for (int k = 0; k < C_COUNT; k++) {
		c->col[k] = -1;
		for (int i = 0; i < n && c->col[k] < 0; i++)
			if (trace_span_is(f[i], col_names[k]))
				c->col[k] = i;
		if (c->col[k] < 0) {
			trace_import_err(c->in.diag, c->in.path, r->line, col_names[k],
					 "expected a header naming name, num_gpu, gpu_milli, gpu_spec, qos, "
					 "creation_time, deletion_time, scheduled_time, found none");
			c->in.n_err++;
		}
	}
	return c->in.n_err ? -SIM_EPARSE : 0;
}

/* Next line that is not blank; 1, 0 at the end, or -SIM_E*. */
static int next_line(struct sim_lines *r)
{
	int got;
	while ((got = sim_lines_next(r)) > 0) {
		const char *s = r->buf;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s)
			return 1;
	}
	return got;
}

static void write_row(FILE *f, const struct openb_row *row, const struct openb_ctx *c, const char *queue)
{
	char sub[32], dur[32], gpus[32];
	struct trace_span name = row->f[c->col[C_NAME]];
	sim_qty_format(row->gpus, gpus, sizeof gpus);
	fprintf(f, name.p[0] == '#' ? "\"%.*s\"," : "%.*s,", (int)name.len, name.p);
	fprintf(f, "%s,%s,%s,%d,", trace_format_secs(row->submit, sub, sizeof sub),
		trace_format_secs(row->duration, dur, sizeof dur), queue, row->priority);
	if (row->n_models == 1) {
		fprintf(f, "%.*s:gpu=%s,\n", (int)row->models[0].len, row->models[0].p, gpus);
		return;
	}
	fprintf(f, "*:gpu=%s,", gpus);
	for (size_t i = 0; i < row->n_models; i++)
		fprintf(f, "%s%.*s", i ? ";" : "", (int)row->models[i].len, row->models[i].p);
	fputc('\n', f);
}

/* One pass over the data rows. Pass 1 (c->in.report) counts and sums per tenant; pass 2
 * (out != NULL) writes the kept rows. */
static int openb_pass(struct openb_ctx *c, struct sim_lines *r, struct openb_row *row,
		      struct trace_tenants *tenants, FILE *out)
{
	int err;
	while ((err = next_line(r)) > 0) {
		if (c->in.report)
			c->in.res->rows_read++;
		int keep = openb_classify(c, r, row);
		if (keep < 0)
			return keep;
		if (!keep)
			continue;
		struct trace_span qos = row->f[c->col[C_QOS]];
		if (out) {
			const char *q = trace_tenants_map(tenants, qos.p, qos.len);
			char own[16];
			snprintf(own, sizeof own, "%.*s", (int)qos.len, qos.p);
			write_row(out, row, c, q ? q : own);
			continue;
		}
		double gpu_s = sim_time_to_s(row->duration) * (double)row->gpus / SIM_MILLI;
		c->in.res->rows_written++;
		c->in.res->gpu_hours_out += gpu_s / 3600.0;
		c->with_spec += row->n_models > 0;
		c->merged += (size_t)row->merged;
		c->cut += (size_t)row->cut;
		if (trace_tenants_add(tenants, qos.p, qos.len, gpu_s) < 0)
			return -SIM_ENOMEM;
	}
	return err;
}

static void openb_write_header(FILE *f, const struct openb_ctx *c)
{
	const struct trace_import_result *res = c->in.res;
	char why[1024];
	trace_import_reasons_str(res, 0, why, sizeof why);
	fprintf(
	    f,
	    "# Alibaba GPU cluster trace v2023 (openb) pod list %s: alibaba/clusterdata\n"
	    "#   cluster-trace-gpu-v2023; cite Weng et al., \"Beware of Fragmentation: Scheduling "
	    "GPU-Sharing\n"
	    "#   Workloads with Fragmentation Gradient Descent\", USENIX ATC'23. Research or study use "
	    "only.\n"
	    "# Converted by: gpusched trace import --format openb (traces/README.md).\n"
	    "# Mapping: id = name, submit_s = creation_time, duration_s = deletion_time - scheduled_time,\n"
	    "#   request = *:gpu=<num_gpu, or gpu_milli/1000 for a shared 1-GPU pod>, on the model when\n"
	    "#   gpu_spec names one; several: prefs = the models in listed order (repeats merged, first "
	    "%d),\n"
	    "#   queue = qos, priority = LS 2, Guaranteed 1, Burstable 1, BE 0.\n"
	    "# Rows in: %zu, jobs out: %zu, dropped: %zu (%s).\n"
	    "# gpu_spec: %zu jobs; %zu with repeated models merged, %zu cut to %d models.\n",
	    trace_base_name(c->in.path), OPENB_MAX_PREFS, res->rows_read, res->rows_written,
	    res->rows_dropped, res->n_reasons ? why : "none", c->with_spec, c->merged, c->cut,
	    OPENB_MAX_PREFS);
	trace_import_write_bad_comment(res, f);
	if (c->in.opts->top_queues)
		fprintf(
		    f,
		    "# Tenants (--top-queues %zu): the %zu qos classes with most GPU-hours keep their name, "
		    "the other %zu are '" TRACE_IMPORT_OTHER "'.\n",
		    c->in.opts->top_queues,
		    res->tenants_in < c->in.opts->top_queues ? res->tenants_in : c->in.opts->top_queues,
		    res->tenants_in > c->in.opts->top_queues ? res->tenants_in - c->in.opts->top_queues : 0);
	fputs("id,submit_s,duration_s,queue,priority,request,prefs\n", f);
}

/* Reads the header and runs one pass; the name table starts empty each pass so that
 * both passes find the same duplicates. */
static int openb_run_pass(struct openb_ctx *c, struct sim_lines *r, struct openb_row *row,
			  struct trace_tenants *tenants, FILE *out)
{
	int err = next_line(r);
	if (err <= 0) {
		if (err == 0)
			sim_diag_add(c->in.diag, c->in.path, "expected a header row, found an empty file");
		return err < 0 ? err : -SIM_EPARSE;
	}
	if (c->in.report && (err = openb_header(c, r)) < 0)
		return err;
	if ((err = trace_tenants_reset(&c->names)) < 0)
		return err;
	return openb_pass(c, r, row, tenants, out);
}

static int openb_convert(struct openb_ctx *c, struct sim_lines *r, struct openb_row *row,
			 struct trace_tenants *tenants, const char *out_path)
{
	char *tmp = NULL;
	FILE *f = NULL;
	int err;
	c->in.report = 1;
	if ((err = openb_run_pass(c, r, row, tenants, NULL)) < 0)
		return err; /* the reader located its own errors */
	if (c->in.n_err)
		return -SIM_EPARSE;
	if ((err = trace_import_pick_top(&c->in, tenants)) < 0)
		return err;
	snprintf(c->in.res->note, sizeof c->in.res->note,
		 "gpu_spec: %zu jobs, %zu with repeats merged, %zu cut to %d", c->with_spec, c->merged,
		 c->cut, OPENB_MAX_PREFS);
	if ((err = trace_import_rewind(&c->in, r)) < 0)
		return err;
	if ((err = trace_import_out_open(out_path, &tmp, &f, c->in.diag)) < 0)
		return err;
	openb_write_header(f, c);
	c->in.report = 0;
	return trace_import_out_close(&c->in, out_path, tmp, f, openb_run_pass(c, r, row, tenants, f));
}

int trace_openb_import(const char *in_path, const char *out_path, const struct trace_import_opts *opts,
		       struct trace_import_result *res, struct sim_diag *diag)
{
	struct openb_ctx c = {.in = {.path = in_path, .opts = opts, .res = res, .diag = diag}};
	struct trace_tenants *tenants = trace_tenants_create();
	struct openb_row *row = malloc(sizeof *row);
	struct sim_lines r;
	int err = -SIM_ENOMEM;

	memset(res, 0, sizeof *res);
	/* Register the format's own drops first, so summaries list them even at 0. */
	trace_import_reason(res, R_NO_GPU, 0);
	trace_import_reason(res, R_PENDING, 0);
	if (!row || !tenants)
		goto out_free;
	if ((err = sim_lines_open(&r, in_path, diag)) < 0)
		goto out_free;
	err = openb_convert(&c, &r, row, tenants, out_path);
	sim_lines_close(&r);
out_free:
	trace_tenants_destroy(c.names);
	trace_tenants_destroy(tenants);
	free(row);
	return err;
}

/* ---- node list -> cluster ---------------------------------------------------- */

/* Node list header: the gpu and model columns. */
static int node_header(const char *path, const struct sim_lines *r, int *gcol, int *mcol, int *n_cols,
		       struct sim_diag *diag)
{
	struct trace_span f[OPENB_MAX_FIELDS];
	int n = split_commas(r->buf, r->buf + r->len, f, OPENB_MAX_FIELDS);
	*gcol = *mcol = -1;
	*n_cols = n;
	for (int i = 0; i < n && i < OPENB_MAX_FIELDS; i++) {
		if (trace_span_is(f[i], "gpu") && *gcol < 0)
			*gcol = i;
		if (trace_span_is(f[i], "model") && *mcol < 0)
			*mcol = i;
	}
	if (n > OPENB_MAX_FIELDS || *gcol < 0 || *mcol < 0) {
		trace_import_err(
		    diag, path, r->line, *gcol < 0 ? "gpu" : "model",
		    "expected a header naming gpu and model (at most %d columns), found '%.*s%s'",
		    OPENB_MAX_FIELDS, SHOW(((struct trace_span){r->buf, r->len})));
		return -SIM_EPARSE;
	}
	return 0;
}

/* One node row into the model table. Returns 0, -SIM_EPARSE (located in diag) or
 * -SIM_ENOMEM. */
static int node_row(const char *path, const struct sim_lines *r, int gcol, int mcol, int n_cols,
		    struct trace_models *ms, struct sim_diag *diag)
{
	struct trace_span f[OPENB_MAX_FIELDS];
	int64_t gpus;
	int n = split_commas(r->buf, r->buf + r->len, f, OPENB_MAX_FIELDS);
	if (n != n_cols) {
		trace_import_err(diag, path, r->line, NULL, "expected %d fields as in the header, found %d",
				 n_cols, n);
		return -SIM_EPARSE;
	}
	/* 1048 is the config's limit on GPUs a node (node.gpu <= 1048.576). */
	if (parse_whole(f[gcol], 1048, &gpus) < 0) {
		trace_import_err(diag, path, r->line, "gpu",
				 "expected a whole GPU count in 0..1048, found '%.*s%s'", SHOW(f[gcol]));
		return -SIM_EPARSE;
	}
	if (gpus == 0)
		return 0; /* a CPU-only node: nothing to schedule GPU pods on */
	if (!valid_model(f[mcol])) {
		trace_import_err(
		    diag, path, r->line, "model",
		    "expected a GPU model ([A-Za-z0-9_.-], under 64 bytes) for a node with GPUs, "
		    "found '%.*s%s'",
		    SHOW(f[mcol]));
		return -SIM_EPARSE;
	}
	int n_shapes = trace_models_add(ms, f[mcol], gpus);
	return n_shapes < 0 ? n_shapes : 0;
}

int trace_openb_cluster(const char *node_list_csv, char **json_out, struct sim_diag *diag)
{
	struct trace_models ms = {0};
	struct sim_lines r;
	int gcol, mcol, n_cols, err, n_err = 0;

	*json_out = NULL;
	if ((err = sim_lines_open(&r, node_list_csv, diag)) < 0)
		return err;
	if ((err = next_line(&r)) <= 0) {
		if (err == 0)
			sim_diag_add(diag, node_list_csv, "expected a header row, found an empty file");
		err = err < 0 ? err : -SIM_EPARSE;
		goto out;
	}
	if ((err = node_header(node_list_csv, &r, &gcol, &mcol, &n_cols, diag)) < 0)
		goto out;
	while ((err = next_line(&r)) > 0) {
		int e = node_row(node_list_csv, &r, gcol, mcol, n_cols, &ms, diag);
		if (e == -SIM_ENOMEM) {
			err = e;
			goto out;
		}
		n_err += e < 0;
	}
	if (err < 0)
		goto out; /* located by the reader */
	if (n_err) {
		err = -SIM_EPARSE;
		goto out;
	}
	if (ms.n == 0) {
		err = sim_diag_add(diag, node_list_csv, "expected at least one node with GPUs, found none");
		goto out;
	}
	*json_out = trace_models_cluster_json(&ms);
	err = *json_out ? 0 : -SIM_ENOMEM;
out:
	sim_lines_close(&r);
	trace_models_free(&ms);
	return err;
}
