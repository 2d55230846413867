/* traces/import.c: the importer registry and the helpers importers share
 * (import.h). Each importer lives in its own file (philly.c, swf.c, helios.c,
 * tiresias.c, alibaba.c, pai.c, gavel.c, sacct.c). */
#include "import.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../sim/outpath.h"

#include "alibaba.h"
#include "gavel.h"
#include "helios.h"
#include "pai.h"
#include "philly.h"
#include "sacct.h"
#include "swf.h"
#include "tiresias.h"

static const struct trace_importer importers[] = {
	{ "philly", "Microsoft Philly job table (timestamp,duration,num_gpus,gpu_time,cluster)",
	  trace_philly_import },
	{ "swf", "Standard Workload Format of the Parallel Workloads Archive (.swf or .swf.gz)",
	  trace_swf_import },
	{ "helios", "SenseTime Helios cluster_log.csv (job_id,user,vc,...,gpu_num,...,submit_time,...,duration)",
	  trace_helios_import },
	{ "tiresias", "Tiresias simulator job table (job_id,num_gpu,submit_time,...,duration)",
	  trace_tiresias_import },
	{ "openb", "Alibaba GPU cluster trace v2023 pod list (openb_pod_list_*.csv)", trace_openb_import },
	{ "pai", "Alibaba PAI 2020 task table (pai_task_table.csv, no header)", trace_pai_import },
	{ "gavel", "Gavel trace files (tab-separated, 10-field or older 7-field msr layout; 1 step = 1 s)",
	  trace_gavel_import },
	{ "sacct", "Slurm sacct --parsable2 output (JobID|Submit|...|Elapsed|AllocTRES or ReqTRES|...|State)",
	  trace_sacct_import },
};

const struct trace_importer *trace_importers(size_t *n)
{
	*n = sizeof importers / sizeof importers[0];
	return importers;
}

const struct trace_importer *trace_importer_find(const char *name)
{
	for (size_t i = 0; i < sizeof importers / sizeof importers[0]; i++)
		if (strcmp(importers[i].name, name) == 0)
			return &importers[i];
	return NULL;
}

int trace_import(const char *name, const char *in_path, const char *out_path,
		 const struct trace_import_opts *opts, struct trace_import_result *res, struct sim_diag *diag)
{
	const struct trace_importer *imp = trace_importer_find(name);
	if (!imp) {
		char known[256] = "";
		size_t n;
		const struct trace_importer *all = trace_importers(&n);
		for (size_t i = 0; i < n; i++) {
			if (i)
				strncat(known, ", ", sizeof known - strlen(known) - 1);
			strncat(known, all[i].name, sizeof known - strlen(known) - 1);
		}
		sim_diag_add(diag, "--format", "expected one of %s, found '%s'", known, name);
		return -SIM_EINVAL;
	}
	return imp->convert(in_path, out_path, opts, res, diag);
}

struct trace_import_reason *trace_import_reason(struct trace_import_result *res, const char *name, int bad)
{
	for (size_t i = 0; i < res->n_reasons; i++)
		if (strcmp(res->reasons[i].name, name) == 0)
			return &res->reasons[i];
	/* Importers name a fixed set of reasons, well under the limit. */
	if (res->n_reasons == TRACE_IMPORT_REASON_MAX)
		return &res->reasons[TRACE_IMPORT_REASON_MAX - 1];
	struct trace_import_reason *r = &res->reasons[res->n_reasons++];
	r->name = name;
	r->count = 0;
	r->bad = bad;
	return r;
}

void trace_import_drop(struct trace_import_result *res, const char *name, int bad)
{
	trace_import_reason(res, name, bad)->count++;
	res->rows_dropped++;
}

size_t trace_import_bad_count(const struct trace_import_result *res)
{
	size_t n = 0;
	for (size_t i = 0; i < res->n_reasons; i++)
		if (res->reasons[i].bad)
			n += res->reasons[i].count;
	return n;
}

void trace_import_reasons_str(const struct trace_import_result *res, int only_bad, char *buf, size_t size)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < res->n_reasons && used < size; i++) {
		const struct trace_import_reason *r = &res->reasons[i];
		if (only_bad && !r->bad)
			continue;
		int w = snprintf(buf + used, size - used, "%s%s: %zu", used ? ", " : "", r->name, r->count);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

void trace_import_write_bad_comment(const struct trace_import_result *res, FILE *f)
{
	char why[1024];
	size_t bad = trace_import_bad_count(res);
	if (!bad)
		return;
	trace_import_reasons_str(res, 1, why, sizeof why);
	fprintf(f, "# Skipped bad rows (--skip-bad): %zu (%s).\n", bad, why);
}

/* ---- tenants ---------------------------------------------------------------- */

struct tenant {
	char *name; /* NULL: empty slot */
	double gpu_s;
	int kept;
};

struct trace_tenants {
	struct tenant *slots; /* open addressing, linear probing; cap is a power of 2 */
	size_t cap, n;
	int picked; /* trace_tenants_pick_top ran with K > 0 */
};

struct trace_tenants *trace_tenants_create(void)
{
	struct trace_tenants *tt = calloc(1, sizeof *tt);
	if (!tt)
		return NULL;
	tt->cap = 64;
	tt->slots = calloc(tt->cap, sizeof *tt->slots);
	if (!tt->slots) {
		free(tt);
		return NULL;
	}
	return tt;
}

int trace_tenants_reset(struct trace_tenants **tt)
{
	trace_tenants_destroy(*tt);
	*tt = trace_tenants_create();
	return *tt ? 0 : -SIM_ENOMEM;
}

void trace_tenants_destroy(struct trace_tenants *tt)
{
	if (!tt)
		return;
	for (size_t i = 0; i < tt->cap; i++)
		free(tt->slots[i].name);
	free(tt->slots);
	free(tt);
}

static struct tenant *tenant_slot(const struct trace_tenants *tt, const char *name, size_t len)
{
	size_t i = (size_t)sim_fnv1a64(name, len) & (tt->cap - 1);
	for (;; i = (i + 1) & (tt->cap - 1)) {
		struct tenant *s = &tt->slots[i];
		if (!s->name || (strlen(s->name) == len && memcmp(s->name, name, len) == 0))
			return s;
	}
}

static int tenants_grow(struct trace_tenants *tt)
{
	struct trace_tenants bigger = { .cap = tt->cap * 2 };
	bigger.slots = calloc(bigger.cap, sizeof *bigger.slots);
	if (!bigger.slots)
		return -SIM_ENOMEM;
	for (size_t i = 0; i < tt->cap; i++) {
		struct tenant *s = &tt->slots[i];
		if (s->name)
			*tenant_slot(&bigger, s->name, strlen(s->name)) = *s;
	}
	free(tt->slots);
	tt->slots = bigger.slots;
	tt->cap = bigger.cap;
	return 0;
}

int trace_tenants_add(struct trace_tenants *tt, const char *name, size_t len, double gpu_s)
{
	if (2 * (tt->n + 1) > tt->cap && tenants_grow(tt) < 0)
		return -SIM_ENOMEM;
	struct tenant *s = tenant_slot(tt, name, len);
	if (!s->name) {
		s->name = malloc(len + 1);
		if (!s->name)
			return -SIM_ENOMEM;
		memcpy(s->name, name, len);
		s->name[len] = '\0';
		tt->n++;
	}
	s->gpu_s += gpu_s;
	return 0;
}

size_t trace_tenants_count(const struct trace_tenants *tt) { return tt->n; }

static int by_gpu_s_desc(const void *a, const void *b)
{
	const struct tenant *x = *(struct tenant *const *)a, *y = *(struct tenant *const *)b;
	if (x->gpu_s != y->gpu_s)
		return x->gpu_s > y->gpu_s ? -1 : 1;
	return strcmp(x->name, y->name);
}

int trace_tenants_pick_top(struct trace_tenants *tt, size_t k)
{
	if (k == 0)
		return 0;
	struct tenant **order = malloc((tt->n ? tt->n : 1) * sizeof *order);
	size_t n = 0;
	if (!order)
		return -SIM_ENOMEM;
	for (size_t i = 0; i < tt->cap; i++)
		if (tt->slots[i].name)
			order[n++] = &tt->slots[i];
	qsort(order, n, sizeof *order, by_gpu_s_desc);
	for (size_t i = 0; i < n; i++)
		order[i]->kept = i < k;
	free(order);
	tt->picked = 1;
	return 0;
}

const char *trace_tenants_map(const struct trace_tenants *tt, const char *name, size_t len)
{
	if (!tt || !tt->picked)
		return NULL; /* caller keeps its own name */
	struct tenant *s = tenant_slot(tt, name, len);
	return s->name && s->kept ? s->name : TRACE_IMPORT_OTHER;
}

/* ---- output ------------------------------------------------------------------ */

int trace_import_out_open(const char *out_path, char **tmp, FILE **f, struct sim_diag *diag)
{
	*f = sim_out_tmp_fopen(out_path, tmp, diag);
	if (!*f)
		return -SIM_EIO;
	/* Big rows of small writes: a larger buffer halves the write calls. */
	setvbuf(*f, NULL, _IOFBF, 1 << 16);
	return 0;
}

int trace_import_out_finish(const char *out_path, char *tmp, FILE *f, int ok, struct sim_diag *diag)
{
	int rc = 0, err = sim_out_close(f);
	if (ok && err) {
		sim_diag_add(diag, out_path, "cannot write: %s", sim_out_write_error(err));
		rc = -SIM_EIO;
	}
	if (ok && !err && rename(tmp, out_path) != 0) {
		sim_diag_add(diag, out_path, "cannot rename %s: %s", tmp, strerror(errno));
		rc = -SIM_EIO;
	}
	if (!ok || rc)
		unlink(tmp);
	free(tmp);
	return rc;
}

void trace_import_err(struct sim_diag *diag, const char *path, size_t line, const char *col, const char *fmt,
		      ...)
{
	char where[512];
	va_list ap;
	if (col)
		snprintf(where, sizeof where, "%s:%zu: column %s", path, line, col);
	else
		snprintf(where, sizeof where, "%s:%zu", path, line);
	va_start(ap, fmt);
	sim_diag_vadd(diag, where, fmt, ap);
	va_end(ap);
}

const char *trace_base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

struct trace_span trace_span_trim(const char *s, const char *e)
{
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	return (struct trace_span){s, (size_t)(e - s)};
}

int trace_split(const char *p, const char *end, struct trace_span *f, char sep, int max)
{
	int n = 0;
	for (;;) {
		const char *s = p;
		while (p < end && *p != sep)
			p++;
		if (n < max)
			f[n] = trace_span_trim(s, p);
		n++;
		if (p == end)
			return n;
		p++;
	}
}

int trace_blank_line(const struct sim_lines *r)
{
	return trace_span_trim(r->buf, r->buf + r->len).len == 0;
}

int trace_span_is(struct trace_span s, const char *word)
{
	return s.len == strlen(word) && memcmp(s.p, word, s.len) == 0;
}

int64_t trace_parse_secs(struct trace_span s)
{
	sim_time_t v;
	return s.len && sim_time_parse_s(s.p, s.len, &v) == 0 ? v : -1;
}

int64_t trace_parse_whole(struct trace_span s, int64_t max)
{
	int64_t v = trace_parse_secs(s);
	if (v < 0 || v % SIM_NS_PER_S)
		return -1;
	v /= SIM_NS_PER_S;
	return v <= max ? v : -1;
}

char *trace_format_secs(int64_t ns, char *buf, size_t size)
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

int trace_id_ok(struct trace_span s)
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

int trace_name_ok(struct trace_span s)
{
	if (!s.len || s.len > 255 || s.p[0] == '#')
		return 0;
	for (size_t i = 0; i < s.len; i++)
		if ((unsigned char)s.p[i] < 0x20 || s.p[i] == 0x7f || s.p[i] == '"')
			return 0;
	return 1;
}

int trace_import_reject(struct trace_import_pass *ps, size_t line, const char *reason, int bad,
			const char *col, const char *fmt, ...)
{
	if (!ps->report)
		return 0;
	if (bad && !ps->opts->skip_bad) {
		ps->n_err++;
		if (ps->quiet_rerun)
			return 0; /* reported in the first run of pass 1 */
		char msg[512];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(msg, sizeof msg, fmt, ap);
		va_end(ap);
		trace_import_err(ps->diag, ps->path, line, col, "%s", msg);
		return 0;
	}
	trace_import_drop(ps->res, reason, bad);
	return 0;
}

#define SHOW_FOUND(sp) (int)((sp).len > 60 ? 60 : (sp).len), (sp).p, ((sp).len > 60 ? "..." : "")

int trace_import_check_submit(struct trace_import_pass *ps, size_t line, const char *col, int64_t ns,
			      struct trace_span found)
{
	if (!ps->submit_fixed) {
		if (!ps->submit_seen || ns < ps->submit_lo_ns)
			ps->submit_lo_ns = ns;
		if (!ps->submit_seen || ns > ps->submit_hi_ns)
			ps->submit_hi_ns = ns;
		ps->submit_seen = 1;
		return 1;
	}
	if (ns - ps->submit_lo_ns <= TRACE_IMPORT_MAX_NS)
		return 1;
	char lo[32];
	int quiet = ps->quiet_rerun; /* the one new error of a strict rerun */
	ps->quiet_rerun = 0;
	trace_import_reject(ps, line, TRACE_IMPORT_R_SUBMIT_RANGE, 1, col,
			    "submit time out of range: expected at most 1e9 s after the earliest in the "
			    "file (%s), found '%.*s%s'",
			    trace_format_secs(ps->submit_lo_ns, lo, sizeof lo), SHOW_FOUND(found));
	ps->quiet_rerun = quiet;
	return 0;
}

int trace_import_check_submit_abs(struct trace_import_pass *ps, size_t line, const char *col, int64_t ns,
				  struct trace_span found)
{
	if (ns <= TRACE_IMPORT_MAX_NS)
		return 1;
	return trace_import_reject(ps, line, TRACE_IMPORT_R_SUBMIT_RANGE, 1, col,
				   "submit time out of range: expected at most 1e9 s, found '%.*s%s'",
				   SHOW_FOUND(found));
}

int trace_import_check_duration(struct trace_import_pass *ps, size_t line, const char *col, int64_t ns,
				struct trace_span found)
{
	if (ns <= TRACE_IMPORT_MAX_NS)
		return 1;
	return trace_import_reject(ps, line, TRACE_IMPORT_R_DURATION_RANGE, 1, col,
				   "duration over 1e9 s: expected at most 1e9 s, found '%.*s%s'",
				   SHOW_FOUND(found));
}

/* Zero pass 1's counts, keeping the registered reasons (summaries list them). */
static void result_forget_counts(struct trace_import_result *res)
{
	res->rows_read = res->rows_written = res->rows_dropped = 0;
	res->gpu_hours_in = res->gpu_hours_out = 0;
	res->tenants_in = res->queues_out = 0;
	for (size_t i = 0; i < res->n_reasons; i++)
		res->reasons[i].count = 0;
}

int trace_import_submit_rerun(struct trace_import_pass *ps)
{
	if (ps->submit_fixed || !ps->submit_seen || ps->submit_hi_ns - ps->submit_lo_ns <= TRACE_IMPORT_MAX_NS)
		return 0;
	ps->submit_fixed = 1;
	/* Strict mode: pass 1's errors are reported already; the rerun adds only those of
	 * trace_import_check_submit (the error count starts over: each is met again). */
	ps->quiet_rerun = !ps->opts->skip_bad;
	ps->n_err = 0;
	result_forget_counts(ps->res);
	return 1;
}

int trace_import_rewind(struct trace_import_pass *ps, struct sim_lines *r)
{
	(void)ps; /* the reader knows the path and the diag */
	return sim_lines_rewind(r); /* which reports a failure */
}

int trace_import_out_close(struct trace_import_pass *ps, const char *out_path, char *tmp, FILE *f,
			   int read_err)
{
	int fin = trace_import_out_finish(out_path, tmp, f, read_err >= 0, ps->diag);
	return read_err < 0 ? read_err : fin;
}

int trace_import_pick_top(struct trace_import_pass *ps, struct trace_tenants *tenants)
{
	struct trace_import_result *res = ps->res;
	size_t k = ps->opts->top_queues;
	res->tenants_in = res->queues_out = trace_tenants_count(tenants);
	if (!k)
		return 0;
	res->queues_out = res->tenants_in > k ? k + 1 : res->tenants_in;
	return trace_tenants_pick_top(tenants, k);
}

int trace_read_header(struct sim_lines *r, char sep, struct trace_span *f, int max)
{
	int err;
	while ((err = sim_lines_next(r)) > 0 && trace_blank_line(r))
		;
	if (err <= 0)
		return err;
	const char *p = r->buf;
	if (r->len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3;
	return trace_split(p, r->buf + r->len, f, sep, max);
}

int trace_find_columns(const struct trace_span *f, int n, int max, const char *const *names, int count,
		       int *col)
{
	for (int k = 0; k < count; k++) {
		col[k] = -1;
		for (int i = 0; i < n && i < max && col[k] < 0; i++)
			if (trace_span_is(f[i], names[k]))
				col[k] = i;
		if (col[k] < 0)
			return k;
	}
	return -1;
}

/* ---- node lists -> cluster (trace_models) ---- */

int trace_models_add(struct trace_models *ms, struct trace_span name, int64_t gpus)
{
	struct trace_model *m = NULL;
	for (size_t i = 0; i < ms->n && !m; i++)
		if (trace_span_is(name, ms->v[i].name))
			m = &ms->v[i];
	if (!m) {
		struct trace_model *nv = sim_grow(ms->v, &ms->cap, ms->n, sizeof *ms->v, 8);
		if (!nv)
			return -SIM_ENOMEM;
		ms->v = nv;
		m = &ms->v[ms->n++];
		memset(m, 0, sizeof *m);
		memcpy(m->name, name.p, name.len);
	}
	m->gpus += gpus;
	for (size_t i = 0; i < m->n_shapes; i++)
		if (m->shapes[i].gpus == gpus) {
			m->shapes[i].nodes++;
			return (int)m->n_shapes;
		}
	struct trace_model_shape *ns = sim_grow(m->shapes, &m->cap_shapes, m->n_shapes, sizeof *m->shapes, 4);
	if (!ns)
		return -SIM_ENOMEM;
	m->shapes = ns;
	m->shapes[m->n_shapes++] = (struct trace_model_shape){ gpus, 1 };
	return (int)m->n_shapes;
}

/* The shape with most nodes; ties: more GPUs a node. */
static const struct trace_model_shape *common_shape(const struct trace_model *m)
{
	const struct trace_model_shape *best = &m->shapes[0];
	for (size_t i = 1; i < m->n_shapes; i++) {
		const struct trace_model_shape *s = &m->shapes[i];
		if (s->nodes > best->nodes || (s->nodes == best->nodes && s->gpus > best->gpus))
			best = s;
	}
	return best;
}

static int by_gpus_desc(const void *a, const void *b)
{
	const struct trace_model *x = a, *y = b;
	if (x->gpus != y->gpus)
		return x->gpus > y->gpus ? -1 : 1;
	return strcmp(x->name, y->name);
}

char *trace_models_cluster_json(struct trace_models *ms)
{
	size_t size = 64 + ms->n * (TRACE_MODEL_MAX + 96), used;
	char *out = malloc(size);
	if (!out)
		return NULL;
	if (ms->n)
		qsort(ms->v, ms->n, sizeof *ms->v, by_gpus_desc);
	used = (size_t)snprintf(out, size, "{\"flavors\": [");
	for (size_t i = 0; i < ms->n; i++) {
		const struct trace_model_shape *s = common_shape(&ms->v[i]);
		used += (size_t)snprintf(out + used, size - used,
					 "%s\n  {\"name\": \"%s\", \"nodes\": %zu, \"node\": {\"gpu\": %lld}}",
					 i ? "," : "", ms->v[i].name, s->nodes, (long long)s->gpus);
	}
	snprintf(out + used, size - used, "\n]}\n");
	return out;
}

void trace_models_free(struct trace_models *ms)
{
	for (size_t i = 0; i < ms->n; i++)
		free(ms->v[i].shapes);
	free(ms->v);
	*ms = (struct trace_models){ 0 };
}

/* ---- the two-pass driver ---- */

static int next_data_line(const struct trace_import_format *fmt, void *ctx, struct sim_lines *r)
{
	if (fmt->next)
		return fmt->next(ctx, r);
	int got;
	while ((got = sim_lines_next(r)) > 0 && trace_blank_line(r))
		;
	return got;
}

/* Pass 1 (count) or pass 2 (write to f). Returns 0 at the end, or < 0. */
static int import_pass(struct trace_import_pass *ps, const struct trace_import_format *fmt, void *ctx,
		       struct sim_lines *r, FILE *f)
{
	int err;
	ps->report = f == NULL;
	ps->row = 0;
	while ((err = next_data_line(fmt, ctx, r)) > 0) {
		ps->row++;
		if (!f)
			ps->res->rows_read++;
		int keep = fmt->classify(ctx, r);
		if (keep <= 0) {
			if (keep < 0)
				return keep;
			continue;
		}
		if (f) {
			err = fmt->write_row(ctx, f);
		} else {
			ps->res->rows_written++;
			err = fmt->count ? fmt->count(ctx) : 0;
		}
		if (err < 0)
			return err;
	}
	return err;
}

/* Pass 1 again, now that trace_import_submit_rerun fixed the submit origin. */
static int import_rerun_pass1(struct trace_import_pass *ps, const struct trace_import_format *fmt, void *ctx,
			      struct sim_lines *r)
{
	int err;
	if ((fmt->restart && (err = fmt->restart(ctx)) < 0) || (err = trace_import_rewind(ps, r)) < 0)
		return err;
	if (fmt->begin && (err = fmt->begin(ctx, r)) < 0)
		return err;
	return import_pass(ps, fmt, ctx, r, NULL);
}

static int import_run_open(struct trace_import_pass *ps, const struct trace_import_format *fmt, void *ctx,
			   struct sim_lines *r, const char *out_path)
{
	char *tmp = NULL;
	FILE *f = NULL;
	int err;
	if (fmt->begin && (err = fmt->begin(ctx, r)) < 0)
		return err;
	if ((err = import_pass(ps, fmt, ctx, r, NULL)) < 0)
		return err; /* the reader located its own errors */
	if (trace_import_submit_rerun(ps) && (err = import_rerun_pass1(ps, fmt, ctx, r)) < 0)
		return err;
	if (ps->n_err)
		return -SIM_EPARSE;
	if (fmt->tenants)
		err = fmt->tenants(ctx);
	else
		ps->res->tenants_in = ps->res->queues_out = ps->res->rows_written ? 1 : 0;
	if (err < 0 || (err = trace_import_rewind(ps, r)) < 0)
		return err;
	if (fmt->begin && (err = fmt->begin(ctx, r)) < 0)
		return err;
	if ((err = trace_import_out_open(out_path, &tmp, &f, ps->diag)) < 0)
		return err;
	fmt->write_header(f, ctx);
	return trace_import_out_close(ps, out_path, tmp, f, import_pass(ps, fmt, ctx, r, f));
}

int trace_import_run(struct trace_import_pass *ps, const struct trace_import_format *fmt, void *ctx,
		     const char *out_path)
{
	struct sim_lines r;
	int err = sim_lines_open(&r, ps->path, ps->diag);
	if (err)
		return err;
	err = import_run_open(ps, fmt, ctx, &r, out_path);
	sim_lines_close(&r);
	return err;
}
