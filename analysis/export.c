/* analysis/export.c: one table over all runs as tidy CSV / TSV (export.h).
 *
 * Tables read row by row (h5read_each_row) are streamed: memory is one block of
 * rows, whatever the size of the file. The time series are read a run at a time
 * through h5read_timeseries.
 */
#include "export.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef SIM_HAVE_ZLIB
#include <zlib.h>
#endif

static const char *const table_names[EXPORT_TABLE_COUNT_] = {
	"jobs", "summary", "timeseries", "queues", "decisions", "options", "real_jobs", "real_segments",
	"real_calibration", "faults",
};

/* Where each per-run table lives under /runs/<run>/ (summary and timeseries: none). */
static const char *const table_paths[EXPORT_TABLE_COUNT_] = {
	"jobs", NULL, NULL, "queues", "decisions", "options", "real/jobs", "real/segments", "real/calibration",
	"faults",
};

const char *export_table_name(enum export_table t)
{
	return (unsigned)t < EXPORT_TABLE_COUNT_ ? table_names[t] : "";
}

int export_table_parse(const char *name, enum export_table *out)
{
	for (int t = 0; t < EXPORT_TABLE_COUNT_; t++)
		if (strcmp(name, table_names[t]) == 0) {
			*out = (enum export_table)t;
			return 0;
		}
	return -1;
}

const char *export_table_list(void)
{
	return "jobs|summary|timeseries|queues|decisions|options|real_jobs|real_segments|real_calibration|faults";
}

int export_have_gzip(void)
{
#ifdef SIM_HAVE_ZLIB
	return 1;
#else
	return 0;
#endif
}

/* ---- output ---- */

static void sink_write(struct export_sink *s, const char *buf, size_t n)
{
	if (s->err || n == 0)
		return;
#ifdef SIM_HAVE_ZLIB
	if (s->gz) {
		if (gzwrite((gzFile)s->gz, buf, (unsigned)n) != (int)n)
			s->err = errno ? errno : EIO;
		return;
	}
#endif
	if (fwrite(buf, 1, n, s->f) != n)
		s->err = errno ? errno : EIO;
}

static void sink_puts(struct export_sink *s, const char *str)
{
	sink_write(s, str, strlen(str));
}

/* One value: CSV quotes a value holding the separator, a quote or a line break
 * (RFC 4180, quotes doubled); TSV turns tabs and line breaks into spaces. */
static void put_cell(struct export_sink *s, char sep, const char *v)
{
	if (sep == '\t') {
		for (const char *c = v; *c; c++) {
			char ch = (*c == '\t' || *c == '\n' || *c == '\r') ? ' ' : *c;
			sink_write(s, &ch, 1);
		}
		return;
	}
	if (!strpbrk(v, ",\"\n\r")) {
		sink_puts(s, v);
		return;
	}
	sink_write(s, "\"", 1);
	for (const char *c = v; *c; c++) {
		if (*c == '"')
			sink_write(s, "\"", 1);
		sink_write(s, c, 1);
	}
	sink_write(s, "\"", 1);
}

static void put_sep(struct export_sink *s, char sep)
{
	sink_write(s, &sep, 1);
}

/* ---- the key columns of a run ---- */

/* What every row of a run starts with: run, variant, seed, the swept values. */
struct keys {
	const struct h5read_summary *s;
	int row; /* the run's /summary row, or -1 */
	char seed[24];
};

static void keys_of(struct keys *k, const struct h5read_summary *s, const char *run)
{
	k->s = s;
	k->row = h5read_summary_row(s, run);
	snprintf(k->seed, sizeof k->seed, "%llu", k->row >= 0 ? (unsigned long long)s->seed[k->row] : 0ull);
	if (k->row < 0)
		k->seed[0] = 0;
}

static void put_keys(struct export_sink *out, char sep, const struct keys *k, const char *run)
{
	const struct h5read_summary *s = k->s;
	put_cell(out, sep, run);
	put_sep(out, sep);
	put_cell(out, sep, k->row >= 0 ? s->variant[k->row] : "");
	put_sep(out, sep);
	put_cell(out, sep, k->seed);
	for (size_t p = 0; p < s->n_params; p++) {
		put_sep(out, sep);
		const char *v = k->row >= 0 ? s->param_str[(size_t)k->row * s->n_params + p] : "";
		char num[40];
		if (k->row >= 0 && s->param_numeric[p]) {
			h5read_format_double(s->param_num[(size_t)k->row * s->n_params + p], num, sizeof num);
			v = num;
		}
		put_cell(out, sep, v);
	}
}

static void put_key_header(struct export_sink *out, char sep, const struct h5read_summary *s)
{
	sink_puts(out, "run");
	put_sep(out, sep);
	sink_puts(out, "variant");
	put_sep(out, sep);
	sink_puts(out, "seed");
	for (size_t p = 0; p < s->n_params; p++) {
		put_sep(out, sep);
		put_cell(out, sep, s->param[p]);
	}
}

/* 1 when name is one of the key columns (so /summary does not print it twice). */
static int is_key_column(const struct h5read_summary *s, const char *name)
{
	if (strcmp(name, "run") == 0 || strcmp(name, "variant") == 0 || strcmp(name, "seed") == 0)
		return 1;
	for (size_t p = 0; p < s->n_params; p++)
		if (strcmp(s->param[p], name) == 0)
			return 1;
	return 0;
}

/* ---- runs ---- */

int export_select_runs(const struct h5read_file *f, const char *pattern, size_t **idx, size_t *n)
{
	size_t nr = h5read_n_runs(f);
	*n = 0;
	*idx = malloc((nr ? nr : 1) * sizeof **idx);
	if (!*idx)
		return -SIM_ENOMEM;
	for (size_t i = 0; i < nr; i++)
		if (!pattern || fnmatch(pattern, h5read_run_name(f, i), 0) == 0)
			(*idx)[(*n)++] = i;
	return 0;
}

/* ---- row tables: compound datasets, and the jobs group of columns (2.0) ---- */

/* The table's header (fields in file order) and, while a run is read, where each of
 * its fields goes in the header. */
struct table_ctx {
	struct export_sink *out;
	char sep;
	const struct h5read_summary *s;
	char **hdr;       /* header fields after the keys (NULL-terminated) */
	size_t n_hdr;
	int *drop;        /* n_hdr: 1 for a /summary key field printed with the keys */
	size_t *map;      /* per field of the run's table: its header position (SIZE_MAX: none) */
	const char **row; /* n_hdr cells of the row being written */
	struct keys keys;
	const char *run;
	size_t rows;
	const struct h5read_file *f;  /* summary: the file, and its runs selected (by index) */
	unsigned char *selected;
};

static int emit_row(void *arg, const struct h5read_rows *t, size_t i, const char *const *cells)
{
	(void)i;
	struct table_ctx *c = arg;
	for (size_t k = 0; k < c->n_hdr; k++)
		c->row[k] = "";
	for (size_t k = 0; k < t->n_fields; k++)
		if (c->map[k] < c->n_hdr)
			c->row[c->map[k]] = cells[k];
	put_keys(c->out, c->sep, &c->keys, c->run);
	for (size_t k = 0; k < c->n_hdr; k++) {
		if (c->drop[k])
			continue;
		put_sep(c->out, c->sep);
		put_cell(c->out, c->sep, c->row[k]);
	}
	sink_write(c->out, "\n", 1);
	c->rows++;
	return c->out->err ? -SIM_EIO : 0;
}

/* The run's fields placed in the header (by name). */
static int map_fields(struct table_ctx *c, const struct h5read_rows *t)
{
	free(c->map);
	c->map = malloc((t->n_fields ? t->n_fields : 1) * sizeof *c->map);
	if (!c->map)
		return -SIM_ENOMEM;
	for (size_t k = 0; k < t->n_fields; k++) {
		c->map[k] = SIZE_MAX;
		for (size_t h = 0; h < c->n_hdr; h++)
			if (strcmp(t->field[k], c->hdr[h]) == 0)
				c->map[k] = h;
	}
	return 0;
}

/* The HDF5 path of table t of a run: /summary, or /runs/<run>/<table>. */
static void table_obj_path(char *buf, size_t n, enum export_table t, const char *run)
{
	if (t == EXPORT_SUMMARY)
		snprintf(buf, n, "/summary");
	else
		snprintf(buf, n, "/runs/%s/%s", run, table_paths[t]);
}

/* The header: the fields of the first selected run that has the table. */
static int table_header(const struct h5read_file *f, const struct export_opts *o, const size_t *idx, size_t n,
			struct table_ctx *c, struct sim_diag *diag)
{
	for (size_t i = 0; i < n && !c->hdr; i++) {
		char path[1024];
		struct h5read_rows t;
		table_obj_path(path, sizeof path, o->table, h5read_run_name(f, idx[i]));
		int r = h5read_each_row(f, path, &t, NULL, NULL, diag);
		if (r)
			return r;
		if (t.present) {
			c->hdr = t.field, c->n_hdr = t.n_fields;
			t.field = NULL;
		}
		h5read_rows_free(&t);
	}
	c->drop = calloc(c->n_hdr + 1, sizeof *c->drop);
	c->row = calloc(c->n_hdr + 1, sizeof *c->row);
	if (!c->drop || !c->row)
		return -SIM_ENOMEM;
	for (size_t h = 0; h < c->n_hdr; h++)
		c->drop[h] = o->table == EXPORT_SUMMARY && is_key_column(c->s, c->hdr[h]);
	return 0;
}

static void write_table_header(struct table_ctx *c)
{
	put_key_header(c->out, c->sep, c->s);
	for (size_t h = 0; h < c->n_hdr; h++) {
		if (c->drop[h])
			continue;
		put_sep(c->out, c->sep);
		put_cell(c->out, c->sep, c->hdr[h]);
	}
	sink_write(c->out, "\n", 1);
}

/* A /summary row, written when its run is selected (the table is read once). */
static int summary_row(void *arg, const struct h5read_rows *t, size_t i, const char *const *cells)
{
	struct table_ctx *c = arg;
	if (i >= c->s->n_rows)
		return 0;
	int run = h5read_run_find(c->f, c->s->run[i]);
	if (run < 0 || !c->selected[run])
		return 0;
	c->run = c->s->run[i];
	keys_of(&c->keys, c->s, c->run);
	return emit_row(arg, t, i, cells);
}

static int export_summary(const struct h5read_file *f, const struct export_opts *o, const size_t *idx, size_t n,
			  struct table_ctx *c, struct sim_diag *diag)
{
	struct h5read_rows t;
	c->f = f;
	c->selected = calloc(h5read_n_runs(f) + 1, 1);
	int r = c->selected ? table_header(f, o, idx, n ? 1 : 0, c, diag) : -SIM_ENOMEM;
	if (r)
		return r;
	for (size_t i = 0; i < n; i++)
		c->selected[idx[i]] = 1;
	write_table_header(c);
	if ((r = h5read_each_row(f, "/summary", &t, NULL, NULL, diag)) == 0 && t.present)
		r = map_fields(c, &t);
	h5read_rows_free(&t);
	if (r == 0 && n)
		r = h5read_each_row(f, "/summary", &t, summary_row, c, diag);
	h5read_rows_free(&t);
	return r;
}

static int export_compound(const struct h5read_file *f, const struct export_opts *o, const size_t *idx, size_t n,
			   struct table_ctx *c, struct sim_diag *diag)
{
	int r = table_header(f, o, idx, n, c, diag);
	if (r)
		return r;
	write_table_header(c);
	for (size_t i = 0; i < n && r == 0; i++) {
		char path[1024];
		struct h5read_rows t;
		c->run = h5read_run_name(f, idx[i]);
		keys_of(&c->keys, c->s, c->run);
		table_obj_path(path, sizeof path, o->table, c->run);
		/* Fields first (to map them), then the rows. */
		if ((r = h5read_each_row(f, path, &t, NULL, NULL, diag)))
			break;
		r = t.present ? map_fields(c, &t) : 0;
		h5read_rows_free(&t);
		if (r == 0)
			r = h5read_each_row(f, path, &t, emit_row, c, diag);
		h5read_rows_free(&t);
	}
	return r;
}

/* ---- time series ---- */

/* Column names of the 2-D series over the selected runs, in order of first use. */
struct names {
	char **v;
	size_t n, cap;
};

static int names_add(struct names *nm, const char *s)
{
	for (size_t i = 0; i < nm->n; i++)
		if (strcmp(nm->v[i], s) == 0)
			return 0;
	if (nm->n == nm->cap) {
		size_t cap = nm->cap ? 2 * nm->cap : 8;
		char **nv = realloc(nm->v, cap * sizeof *nv);
		if (!nv)
			return -SIM_ENOMEM;
		nm->v = nv, nm->cap = cap;
	}
	size_t len = strlen(s) + 1;
	if (!(nm->v[nm->n] = malloc(len)))
		return -SIM_ENOMEM;
	memcpy(nm->v[nm->n++], s, len);
	return 0;
}

static void names_free(struct names *nm)
{
	for (size_t i = 0; i < nm->n; i++)
		free(nm->v[i]);
	free(nm->v);
	memset(nm, 0, sizeof *nm);
}

/* The per-queue series, in the order of the header. */
enum { QS_USAGE, QS_NOMINAL, QS_BORROWED, QS_LENT, QS_COUNT_ };
static const char *const qs_names[QS_COUNT_] = { "queue_usage", "queue_nominal", "queue_borrowed", "queue_lent" };

static const double *qs_data(const struct h5read_timeseries *ts, int q)
{
	const double *const d[QS_COUNT_] = { ts->queue_usage, ts->queue_nominal, ts->queue_borrowed, ts->queue_lent };
	return d[q];
}

struct ts_layout {
	struct names flavors, queues;
	int has_qs[QS_COUNT_]; /* some run has the series */
	int has_nodes_down;    /* some run had node failures (2.0) */
};

static int ts_layout_build(const struct h5read_file *f, const size_t *idx, size_t n, struct ts_layout *l,
			   struct sim_diag *diag)
{
	int r = 0;
	for (size_t i = 0; i < n && r == 0; i++) {
		struct h5read_timeseries ts;
		if ((r = h5read_timeseries(f, h5read_run_name(f, idx[i]), &ts, diag)))
			break;
		for (size_t k = 0; k < ts.n_flavors && r == 0; k++)
			r = names_add(&l->flavors, ts.flavor_names[k]);
		for (size_t k = 0; k < ts.n_queues && r == 0; k++)
			r = names_add(&l->queues, ts.queue_names[k]);
		for (int q = 0; q < QS_COUNT_; q++)
			l->has_qs[q] |= qs_data(&ts, q) != NULL;
		l->has_nodes_down |= ts.nodes_down != NULL;
		h5read_timeseries_free(&ts);
	}
	return r;
}

/* "name[column]": a 2-D series' column, e.g. gpus_busy_by_flavor[v100]. */
static void put_col_name(struct export_sink *out, char sep, const char *series, const char *col)
{
	char buf[512];
	snprintf(buf, sizeof buf, "%s[%s]", series, col);
	put_sep(out, sep);
	put_cell(out, sep, buf);
}

static void ts_header(struct export_sink *out, char sep, const struct h5read_summary *s, const struct ts_layout *l)
{
	static const char *const cols[] = { "t_s", "gpus_busy", "jobs_queued", "jobs_running" };
	put_key_header(out, sep, s);
	for (size_t k = 0; k < 4; k++) {
		put_sep(out, sep);
		sink_puts(out, cols[k]);
	}
	if (l->has_nodes_down) {
		put_sep(out, sep);
		sink_puts(out, "nodes_down");
	}
	for (size_t k = 0; k < l->flavors.n; k++)
		put_col_name(out, sep, "gpus_busy_by_flavor", l->flavors.v[k]);
	for (int q = 0; q < QS_COUNT_; q++)
		for (size_t k = 0; l->has_qs[q] && k < l->queues.n; k++)
			put_col_name(out, sep, qs_names[q], l->queues.v[k]);
	sink_write(out, "\n", 1);
}

static void put_num(struct export_sink *out, char sep, double v)
{
	char buf[40];
	h5read_format_double(v, buf, sizeof buf);
	put_sep(out, sep);
	sink_puts(out, buf);
}

/* Column j of row i of a row-major n x m series, or NaN when the run lacks it. */
static double cell_or_nan(const double *x, size_t i, size_t m, int j)
{
	return x && j >= 0 ? x[i * m + (size_t)j] : NAN;
}

static int ts_run(const struct h5read_file *f, const char *run, const struct ts_layout *l, struct table_ctx *c,
		  struct sim_diag *diag)
{
	struct h5read_timeseries ts;
	int r = h5read_timeseries(f, run, &ts, diag);
	if (r)
		return r;
	struct keys k;
	keys_of(&k, c->s, run);
	int *fcol = calloc(l->flavors.n + 1, sizeof *fcol), *qcol = calloc(l->queues.n + 1, sizeof *qcol);
	if (!fcol || !qcol)
		r = -SIM_ENOMEM;
	/* Each header column's index in this run's series (-1: the run has none). */
	for (size_t j = 0; r == 0 && j < l->flavors.n; j++) {
		fcol[j] = -1;
		for (size_t x = 0; x < ts.n_flavors; x++)
			if (strcmp(ts.flavor_names[x], l->flavors.v[j]) == 0)
				fcol[j] = (int)x;
	}
	for (size_t j = 0; r == 0 && j < l->queues.n; j++) {
		qcol[j] = -1;
		for (size_t x = 0; x < ts.n_queues; x++)
			if (strcmp(ts.queue_names[x], l->queues.v[j]) == 0)
				qcol[j] = (int)x;
	}
	for (size_t i = 0; r == 0 && i < ts.n; i++) {
		put_keys(c->out, c->sep, &k, run);
		put_num(c->out, c->sep, ts.t_s[i]);
		put_num(c->out, c->sep, ts.gpus_busy[i]);
		put_num(c->out, c->sep, ts.jobs_queued[i]);
		put_num(c->out, c->sep, ts.jobs_running[i]);
		if (l->has_nodes_down)
			put_num(c->out, c->sep, ts.nodes_down ? ts.nodes_down[i] : NAN);
		for (size_t j = 0; j < l->flavors.n; j++)
			put_num(c->out, c->sep, cell_or_nan(ts.gpus_busy_by_flavor, i, ts.n_flavors, fcol[j]));
		for (int q = 0; q < QS_COUNT_; q++)
			for (size_t j = 0; l->has_qs[q] && j < l->queues.n; j++)
				put_num(c->out, c->sep, cell_or_nan(qs_data(&ts, q), i, ts.n_queues, qcol[j]));
		sink_write(c->out, "\n", 1);
		c->rows++;
		if (c->out->err)
			r = -SIM_EIO;
	}
	free(fcol);
	free(qcol);
	h5read_timeseries_free(&ts);
	return r;
}

static int export_timeseries(const struct h5read_file *f, const size_t *idx, size_t n, struct table_ctx *c,
			     struct sim_diag *diag)
{
	struct ts_layout l;
	memset(&l, 0, sizeof l);
	int r = ts_layout_build(f, idx, n, &l, diag);
	if (r == 0)
		ts_header(c->out, c->sep, c->s, &l);
	for (size_t i = 0; i < n && r == 0; i++)
		r = ts_run(f, h5read_run_name(f, idx[i]), &l, c, diag);
	names_free(&l.flavors);
	names_free(&l.queues);
	return r;
}

int export_write(const struct h5read_file *f, const struct export_opts *o, struct export_sink *out,
		 size_t *rows, struct sim_diag *diag)
{
	struct h5read_summary s;
	size_t *idx = NULL, n = 0;
	int r = h5read_summary(f, &s, diag);
	if (r)
		return r;
	struct table_ctx c = { .out = out, .sep = o->sep, .s = &s };
	r = export_select_runs(f, o->runs_pattern, &idx, &n);
	if (r == 0)
		r = o->table == EXPORT_TIMESERIES ? export_timeseries(f, idx, n, &c, diag) :
		    o->table == EXPORT_SUMMARY	  ? export_summary(f, o, idx, n, &c, diag) :
						    export_compound(f, o, idx, n, &c, diag);
	if (r == 0 && out->err)
		r = -SIM_EIO;
	*rows = c.rows;
	h5read_strings_free(c.hdr);
	free(c.drop);
	free(c.map);
	free(c.row);
	free(c.selected);
	free(idx);
	h5read_summary_free(&s);
	return r;
}
