/* analysis/report.c: the summary table (with the replications table), the JSON summary
 * (per run, or per variant with mean and 95% CI), the per-job CSV, and the per-queue,
 * per-option and preemption views (table, JSON, CSV). */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "../sim/metrics.h"

/* ---- replications: runs grouped by variant ---- */

size_t report_variant_len(const char *run, uint64_t seed)
{
	char suffix[32];
	int k = snprintf(suffix, sizeof suffix, "-s%llu", (unsigned long long)seed);
	size_t n = strlen(run);
	/* k < sizeof suffix always (a uint64 has at most 20 digits) */
	if (k > 0 && (size_t)k < n && strcmp(run + n - (size_t)k, suffix) == 0)
		return n - (size_t)k;
	return n;
}

/* A run's variant, for sorting: the first len bytes of name. */
struct vkey {
	const char *name;
	size_t len;
	size_t row; /* summary row */
};

static int vkey_cmp(const void *a, const void *b)
{
	const struct vkey *x = a, *y = b;
	int c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);
	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return (x->row > y->row) - (x->row < y->row);
}

struct vgroup {
	const char *name; /* the variant is the first len bytes (not NUL-terminated) */
	size_t len;
	size_t first_run; /* summary row of its first run: groups are listed in this order */
	size_t first;     /* index of its first row in vgroups.row */
	size_t n;         /* runs */
};

static int vgroup_cmp(const void *a, const void *b)
{
	const struct vgroup *x = a, *y = b;
	return (x->first_run > y->first_run) - (x->first_run < y->first_run);
}

/* Runs grouped by variant. Group k's summary rows are row[g[k].first .. g[k].first + g[k].n),
 * in file order; groups are in the order of their first run. mean and ci95 are
 * n_groups x n_fields (the summary's fields, in its order). Borrows the summary's strings. */
struct vgroups {
	size_t n_groups;
	size_t max_runs; /* runs of the largest group */
	struct vgroup *g;
	size_t *row;
	double *mean, *ci95;
};

static void vgroups_free(struct vgroups *v)
{
	free(v->g);
	free(v->row);
	free(v->mean);
	free(v->ci95);
	memset(v, 0, sizeof *v);
}

/* Mean and CI of every field over n rows, through sim_metrics_replicate. That works on a
 * struct sim_summary, whose slots are independent (each field is summarized over its own
 * non-NaN runs), so the file's fields go through it SIM_SUM_COUNT_ at a time, by position:
 * a file with fields this build does not know is summarized all the same. buf holds n. */
static void replicate_rows(const struct h5read_summary *s, const size_t *rows, size_t n,
			   struct sim_summary *buf, double *mean, double *ci95)
{
	for (size_t b = 0; b < s->n_fields; b += SIM_SUM_COUNT_) {
		size_t k = s->n_fields - b < SIM_SUM_COUNT_ ? s->n_fields - b : SIM_SUM_COUNT_;
		for (size_t r = 0; r < n; r++)
			for (size_t j = 0; j < SIM_SUM_COUNT_; j++)
				buf[r].v[j] = j < k ? s->v[rows[r] * s->n_fields + b + j] : NAN;
		struct sim_summary m, c;
		sim_metrics_replicate(buf, n, &m, &c);
		for (size_t j = 0; j < k; j++) {
			mean[b + j] = m.v[j];
			ci95[b + j] = c.v[j];
		}
	}
}

/* Groups the summary's rows (only `run` when not NULL) by variant and summarizes each
 * group; O(n log n) in runs. Returns 0 or -SIM_ENOMEM (out zeroed). */
static int vgroups_build(const struct h5read_summary *s, const char *run, struct vgroups *out)
{
	memset(out, 0, sizeof *out);
	int r = -SIM_ENOMEM;
	size_t nk = 0, ng = 0, nf = s->n_fields;
	struct sim_summary *buf = NULL;
	struct vkey *key = malloc((s->n_rows + 1) * sizeof *key);
	if (!key)
		return r;
	for (size_t i = 0; i < s->n_rows; i++) {
		if (run && strcmp(s->run[i], run) != 0)
			continue;
		key[nk++] = (struct vkey){ s->run[i], report_variant_len(s->run[i], s->seed[i]), i };
	}
	/* equal variants become adjacent, each one's runs in row order */
	qsort(key, nk, sizeof *key, vkey_cmp);
	out->g = calloc(nk + 1, sizeof *out->g);
	out->row = malloc((nk + 1) * sizeof *out->row);
	if (!out->g || !out->row)
		goto out_free_key;
	for (size_t i = 0; i < nk; i++) {
		if (i > 0 && key[i].len == key[i - 1].len &&
		    memcmp(key[i].name, key[i - 1].name, key[i].len) == 0) {
			out->g[ng - 1].n++;
			continue;
		}
		/* first: the group's start in key[] until the groups are laid out below */
		out->g[ng++] = (struct vgroup){ key[i].name, key[i].len, key[i].row, i, 1 };
	}
	out->n_groups = ng;
	qsort(out->g, ng, sizeof *out->g, vgroup_cmp);
	for (size_t k = 0, pos = 0; k < ng; k++) {
		struct vgroup *g = &out->g[k];
		for (size_t j = 0; j < g->n; j++)
			out->row[pos + j] = key[g->first + j].row;
		g->first = pos;
		pos += g->n;
		if (g->n > out->max_runs)
			out->max_runs = g->n;
	}
	out->mean = malloc((ng * nf + 1) * sizeof *out->mean);
	out->ci95 = malloc((ng * nf + 1) * sizeof *out->ci95);
	buf = malloc((out->max_runs + 1) * sizeof *buf);
	if (!out->mean || !out->ci95 || !buf)
		goto out_free_key;
	for (size_t k = 0; k < ng; k++)
		replicate_rows(s, out->row + out->g[k].first, out->g[k].n, buf, out->mean + k * nf,
			       out->ci95 + k * nf);
	r = 0;
out_free_key:
	free(buf);
	free(key);
	if (r)
		vgroups_free(out);
	return r;
}

void report_variants_free(struct report_variants *v)
{
	if (v->name)
		for (size_t k = 0; k < v->n; k++)
			free(v->name[k]);
	free(v->name);
	free(v->runs);
	free(v->first);
	free(v->row);
	free(v->mean);
	free(v->ci95);
	memset(v, 0, sizeof *v);
}

/* The public view of vgroups_build: names copied (NUL-terminated), the arrays moved. */
int report_variants(const struct h5read_summary *s, struct report_variants *out)
{
	memset(out, 0, sizeof *out);
	struct vgroups vg;
	int r = vgroups_build(s, NULL, &vg);
	if (r)
		return r;
	size_t ng = vg.n_groups;
	out->n = ng;
	out->name = calloc(ng + 1, sizeof *out->name);
	out->runs = malloc((ng + 1) * sizeof *out->runs);
	out->first = malloc((ng + 1) * sizeof *out->first);
	if (!out->name || !out->runs || !out->first)
		goto out_nomem;
	for (size_t k = 0; k < ng; k++) {
		if (!(out->name[k] = malloc(vg.g[k].len + 1)))
			goto out_nomem;
		memcpy(out->name[k], vg.g[k].name, vg.g[k].len);
		out->name[k][vg.g[k].len] = 0;
		out->runs[k] = vg.g[k].n;
		out->first[k] = vg.g[k].first;
	}
	/* ownership of the row, mean and ci95 arrays moves to out */
	out->row = vg.row;
	out->mean = vg.mean;
	out->ci95 = vg.ci95;
	vg.row = NULL;
	vg.mean = vg.ci95 = NULL;
	vgroups_free(&vg);
	return 0;
out_nomem:
	vgroups_free(&vg);
	report_variants_free(out);
	return -SIM_ENOMEM;
}

/* ---- table ---- */

struct tcol {
	const char *head;  /* header, unit in brackets */
	const char *field; /* /summary field, NULL for the run name */
	double scale;      /* value x scale is printed */
	int decimals;
};

static const struct tcol table_cols[] = {
	{ "run", NULL, 1, 0 },
	{ "jobs", "jobs", 1, 0 },
	{ "completed", "completed", 1, 0 },
	{ "wait_mean[s]", "mean_wait_s", 1, 1 },
	{ "wait_p50[s]", "p50_wait_s", 1, 1 },
	{ "wait_p95[s]", "p95_wait_s", 1, 1 },
	{ "wait_p99[s]", "p99_wait_s", 1, 1 },
	{ "jct_mean[s]", "mean_jct_s", 1, 1 },
	{ "jct_p95[s]", "p95_jct_s", 1, 1 },
	{ "util[%]", "utilization", 100, 1 },
	{ "bsld_mean[1]", "mean_bsld", 1, 2 },
};
#define N_TABLE_COLS (sizeof table_cols / sizeof table_cols[0])

static int check_run(const struct h5read_file *f, const struct h5read_summary *s, const char *run,
		     struct sim_diag *diag)
{
	if (run && h5read_summary_row(s, run) < 0) {
		sim_diag_add(diag, h5read_path(f), "no run named '%s'", run);
		return -SIM_ENOENT;
	}
	return 0;
}

/* 0, or -SIM_ENOENT (with the message) when the file has no run named `run` (NULL: all). */
static int known_run(const struct h5read_file *f, const char *run, struct sim_diag *diag)
{
	if (run && h5read_run_find(f, run) < 0) {
		sim_diag_add(diag, h5read_path(f), "no run named '%s'", run);
		return -SIM_ENOENT;
	}
	return 0;
}

/* The replications table: the per-run table's main metrics as "mean ± half-width". */
static const struct tcol rep_cols[] = {
	{ "wait_mean[s]", "mean_wait_s", 1, 1 },
	{ "wait_p95[s]", "p95_wait_s", 1, 1 },
	{ "jct_mean[s]", "mean_jct_s", 1, 1 },
	{ "util[%]", "utilization", 100, 1 },
	{ "bsld_mean[1]", "mean_bsld", 1, 2 },
};
#define N_REP_COLS (sizeof rep_cols / sizeof rep_cols[0])

/* " ± " in UTF-8: 4 bytes, 3 characters wide. */
#define PM " \u00b1 "
#define PM_WIDTH 3

/* One cell as printed; mean[0] == 0 when there is no value ("-"). */
struct rcell {
	char mean[48];
	char hw[48];
};

/* Formats the n_groups x N_REP_COLS cells, before anything is printed (running out of
 * memory then prints nothing). NULL when out of memory. */
static struct rcell *rep_cells(const struct h5read_summary *s, const struct vgroups *vg)
{
	struct rcell *cells = calloc(vg->n_groups * N_REP_COLS + 1, sizeof *cells);
	if (!cells)
		return NULL;
	for (size_t c = 0; c < N_REP_COLS; c++) {
		int fi = h5read_summary_field(s, rep_cols[c].field);
		if (fi < 0)
			continue; /* an older file without the field: "-" */
		for (size_t k = 0; k < vg->n_groups; k++) {
			struct rcell *cell = &cells[k * N_REP_COLS + c];
			double m = vg->mean[k * s->n_fields + (size_t)fi];
			double h = vg->ci95[k * s->n_fields + (size_t)fi];
			if (isnan(m))
				continue;
			snprintf(cell->mean, sizeof cell->mean, "%.*f", rep_cols[c].decimals,
				 m * rep_cols[c].scale);
			/* NaN only when sim_metrics_replicate ran out of memory */
			if (isnan(h))
				snprintf(cell->hw, sizeof cell->hw, "?");
			else
				snprintf(cell->hw, sizeof cell->hw, "%.*f", rep_cols[c].decimals,
					 h * rep_cols[c].scale);
		}
	}
	return cells;
}

/* Prints the replications table. Within a column the means are right-aligned, then
 * " ± ", then the half-widths right-aligned, so the "±" signs line up. */
static void rep_print(FILE *out, const struct vgroups *vg, const struct rcell *cells)
{
	size_t wv = strlen("variant"), wr = strlen("runs"), wm[N_REP_COLS], wh[N_REP_COLS], w[N_REP_COLS];
	char num[32];
	for (size_t k = 0; k < vg->n_groups; k++) {
		if (vg->g[k].len > wv)
			wv = vg->g[k].len;
		snprintf(num, sizeof num, "%zu", vg->g[k].n);
		if (strlen(num) > wr)
			wr = strlen(num);
	}
	for (size_t c = 0; c < N_REP_COLS; c++) {
		wm[c] = wh[c] = 0;
		for (size_t k = 0; k < vg->n_groups; k++) {
			const struct rcell *cell = &cells[k * N_REP_COLS + c];
			if (!cell->mean[0])
				continue;
			if (strlen(cell->mean) > wm[c])
				wm[c] = strlen(cell->mean);
			if (strlen(cell->hw) > wh[c])
				wh[c] = strlen(cell->hw);
		}
		w[c] = strlen(rep_cols[c].head);
		if (wm[c] && wm[c] + PM_WIDTH + wh[c] > w[c])
			w[c] = wm[c] + PM_WIDTH + wh[c];
	}
	fprintf(out, "\nreplications: %zu variant%s, mean" PM "half-width of the 95%% confidence interval "
		     "over seeds (Student t)\n",
		vg->n_groups, vg->n_groups == 1 ? "" : "s");
	fprintf(out, "%-*s  %*s", (int)wv, "variant", (int)wr, "runs");
	for (size_t c = 0; c < N_REP_COLS; c++)
		fprintf(out, "  %*s", (int)w[c], rep_cols[c].head);
	fputc('\n', out);
	for (size_t k = 0; k < vg->n_groups; k++) {
		const struct vgroup *g = &vg->g[k];
		fprintf(out, "%.*s%*s  %*zu", (int)g->len, g->name, (int)(wv - g->len), "", (int)wr, g->n);
		for (size_t c = 0; c < N_REP_COLS; c++) {
			const struct rcell *cell = &cells[k * N_REP_COLS + c];
			if (!cell->mean[0])
				fprintf(out, "  %*s", (int)w[c], "-");
			else
				fprintf(out, "  %*s%*s" PM "%*s", (int)(w[c] - wm[c] - PM_WIDTH - wh[c]), "",
					(int)wm[c], cell->mean, (int)wh[c], cell->hw);
		}
		fputc('\n', out);
	}
}

/* The per-run table and the replications table. */
static int summary_table(const struct h5read_file *f, const char *run, FILE *out, struct sim_diag *diag)
{
	struct h5read_summary s;
	int r = h5read_summary(f, &s, diag);
	if (r)
		return r;
	if ((r = check_run(f, &s, run, diag)))
		goto out_free;
	struct vgroups vg;
	struct rcell *rcells = NULL;
	if ((r = vgroups_build(&s, run, &vg)))
		goto out_free;
	/* cells[row][col], row 0 the header; widths from the longest cell. */
	size_t rows = s.n_rows + 1;
	char(*cells)[N_TABLE_COLS][48] = calloc(rows, sizeof *cells);
	if (vg.max_runs >= 2)
		rcells = rep_cells(&s, &vg);
	if (!cells || (vg.max_runs >= 2 && !rcells)) {
		r = -SIM_ENOMEM;
		goto out_free_cells;
	}
	size_t width[N_TABLE_COLS] = { 0 };
	size_t nr = 0;
	for (size_t c = 0; c < N_TABLE_COLS; c++)
		snprintf(cells[0][c], sizeof cells[0][c], "%s", table_cols[c].head);
	for (size_t i = 0; i < s.n_rows; i++) {
		if (run && strcmp(s.run[i], run) != 0)
			continue;
		nr++;
		for (size_t c = 0; c < N_TABLE_COLS; c++) {
			char *cell = cells[nr][c];
			if (!table_cols[c].field) {
				snprintf(cell, sizeof cells[0][c], "%s", s.run[i]);
				continue;
			}
			double v = h5read_summary_get(&s, i, table_cols[c].field);
			if (isnan(v))
				snprintf(cell, sizeof cells[0][c], "-");
			else
				snprintf(cell, sizeof cells[0][c], "%.*f", table_cols[c].decimals,
					 v * table_cols[c].scale);
		}
	}
	for (size_t i = 0; i <= nr; i++)
		for (size_t c = 0; c < N_TABLE_COLS; c++)
			if (strlen(cells[i][c]) > width[c])
				width[c] = strlen(cells[i][c]);
	const char *sv = h5read_root_attr(f, "schema_version");
	const char *sw = h5read_root_attr(f, "software_version");
	fprintf(out, "%s: %zu run%s (schema %s, written by gpusched %s)\n", h5read_path(f), nr,
		nr == 1 ? "" : "s", sv ? sv : "?", sw ? sw : "?");
	for (size_t i = 0; i <= nr; i++) {
		for (size_t c = 0; c < N_TABLE_COLS; c++) {
			/* the run name left-aligned, numbers right-aligned */
			if (c == 0)
				fprintf(out, "%-*s", (int)width[c], cells[i][c]);
			else
				fprintf(out, "  %*s", (int)width[c], cells[i][c]);
		}
		fputc('\n', out);
	}
	if (nr == 0)
		fprintf(out, "(no runs)\n");
	/* seeds are replications: summarize them when some variant has more than one */
	if (rcells)
		rep_print(out, &vg, rcells);
out_free_cells:
	free(rcells);
	free(cells);
	vgroups_free(&vg);
out_free:
	h5read_summary_free(&s);
	if (r == -SIM_ENOMEM)
		sim_diag_add(diag, h5read_path(f), "out of memory");
	return r;
}

/* ---- real mode (schema 1.4) ---- */

/* What a real run measured, for people and for JSON. The summary's values come first
 * (they are what `gpusched real` printed); a file whose summary lacks them gets them
 * from the real group, by the same formulas (gpu_exec/real_results.c). */
struct real_view {
	const char *run;
	struct h5read_real g;
	double runtime_error; /* mean |measured - predicted| / predicted over completed segments */
	double lat_p50_s, lat_p99_s;
	size_t completed_segs;
};

/* The real groups of the runs (`run` alone when not NULL), in file order; n is 0 for a
 * simulation file. */
struct real_views {
	size_t n;
	struct real_view *v;
};

static void real_views_free(struct real_views *rv)
{
	for (size_t i = 0; i < rv->n; i++)
		h5read_real_free(&rv->v[i].g);
	free(rv->v);
	memset(rv, 0, sizeof *rv);
}

/* Fills the derived values of one run from the summary row (-1: none) or the group. */
static int real_derive(struct real_view *v, const struct h5read_summary *s, int row)
{
	const struct h5read_real_segments *sg = &v->g.segments;
	double err = 0;
	size_t n_err = 0;
	v->completed_segs = 0;
	for (size_t i = 0; i < sg->n; i++) {
		if (strcmp(sg->outcome[i], "completed") != 0)
			continue;
		v->completed_segs++;
		double pred = sg->predicted_s[i], meas = sg->end_s[i] - sg->start_s[i];
		if (pred > 0) {
			err += fabs(meas - pred) / pred;
			n_err++;
		}
	}
	v->runtime_error = row >= 0 ? h5read_summary_get(s, (size_t)row, "runtime_error") : NAN;
	v->lat_p50_s = row >= 0 ? h5read_summary_get(s, (size_t)row, "decision_latency_p50_s") : NAN;
	v->lat_p99_s = row >= 0 ? h5read_summary_get(s, (size_t)row, "decision_latency_p99_s") : NAN;
	if (isnan(v->runtime_error) && n_err)
		v->runtime_error = err / (double)n_err;
	size_t n = v->g.n_latencies;
	if (n && (isnan(v->lat_p50_s) || isnan(v->lat_p99_s))) {
		double *x = malloc(n * sizeof *x);
		if (!x)
			return -SIM_ENOMEM;
		memcpy(x, v->g.decision_latency_s, n * sizeof *x);
		gsl_sort(x, 1, n);
		v->lat_p50_s = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.5);
		v->lat_p99_s = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.99);
		free(x);
	}
	return 0;
}

/* Reads every selected run's real group and the summary values, before anything is
 * printed. A simulation file reads nothing. */
static int real_views_load(const struct h5read_file *f, const char *run, struct real_views *out,
			   struct sim_diag *diag)
{
	memset(out, 0, sizeof *out);
	if (strcmp(h5read_mode(f), "real") != 0)
		return 0;
	size_t nr = h5read_n_runs(f);
	struct h5read_summary s;
	int r = h5read_summary(f, &s, diag);
	if (r)
		return r;
	out->v = calloc(nr + 1, sizeof *out->v);
	if (!out->v) {
		r = -SIM_ENOMEM;
		goto out_free;
	}
	for (size_t i = 0; i < nr && !r; i++) {
		const char *name = h5read_run_name(f, i);
		if (run && strcmp(name, run) != 0)
			continue;
		struct real_view *v = &out->v[out->n];
		v->run = name;
		if ((r = h5read_real(f, name, &v->g, diag)))
			break;
		out->n++;
		r = real_derive(v, &s, h5read_summary_row(&s, name));
	}
out_free:
	h5read_summary_free(&s);
	if (r == -SIM_ENOMEM)
		sim_diag_add(diag, h5read_path(f), "out of memory");
	if (r)
		real_views_free(out);
	return r;
}

/* "12.3 ms" style: v x scale with decimals, or "-" for NaN. */
static void fmt_or_dash(char *buf, size_t cap, double v, double scale, int decimals, const char *unit)
{
	if (isnan(v))
		snprintf(buf, cap, "-");
	else
		snprintf(buf, cap, "%.*f%s", decimals, v * scale, unit);
}

/* One run's "real mode" block for people. */
static void real_block(FILE *out, const struct real_view *v)
{
	const struct h5read_real *g = &v->g;
	char err[48], p50[48], p99[48], wall[48], util[48], scale[48], failed[48];
	fprintf(out, "\nreal mode: run %s\n", v->run);
	if (!g->present) {
		fprintf(out, "  (no /runs/%s/real group: nothing measured)\n", v->run);
		return;
	}
	fmt_or_dash(err, sizeof err, v->runtime_error, 100, 2, "%");
	fmt_or_dash(p50, sizeof p50, v->lat_p50_s, 1e3, 3, " ms");
	fmt_or_dash(p99, sizeof p99, v->lat_p99_s, 1e3, 3, " ms");
	fmt_or_dash(wall, sizeof wall, g->wall_s, 1, 3, " s");
	fmt_or_dash(util, sizeof util, g->gpu_utilization, 100, 1, "%");
	fmt_or_dash(failed, sizeof failed, g->failed_segments, 1, 0, "");
	if (isnan(g->time_scale))
		snprintf(scale, sizeof scale, "-");
	else
		snprintf(scale, sizeof scale, "%g", g->time_scale);
	fprintf(out, "  backend:           %s\n", g->backend[0] ? g->backend : "-");
	fprintf(out, "  device:            %s\n", g->device[0] ? g->device : "-");
	fprintf(out, "  time scale:        %s (trace seconds a wall second)\n", scale);
	fprintf(out, "  wall time:         %s\n", wall);
	fprintf(out, "  run time error:    %s (mean |measured - predicted| / predicted, ", err);
	fprintf(out, "%zu completed segment%s)\n", v->completed_segs, v->completed_segs == 1 ? "" : "s");
	fprintf(out, "  decision latency:  p50 %s, p99 %s (%zu start%s)\n", p50, p99, g->n_latencies,
		g->n_latencies == 1 ? "" : "s");
	fprintf(out, "  GPU utilization:   %s (busy GPU x wall time / (GPUs x wall time))\n", util);
	fprintf(out, "  failed segments:   %s\n", failed);
}

static int faults_table(const struct h5read_file *f, const char *run, FILE *out, struct sim_diag *diag);

int report_table(const struct h5read_file *f, const char *run, FILE *out, struct sim_diag *diag)
{
	struct real_views rv;
	int r = known_run(f, run, diag);
	if (r || (r = real_views_load(f, run, &rv, diag)))
		return r;
	r = summary_table(f, run, out, diag);
	if (!r)
		r = faults_table(f, run, out, diag);
	for (size_t i = 0; !r && i < rv.n; i++)
		real_block(out, &rv.v[i]);
	real_views_free(&rv);
	return r;
}

/* ---- JSON ---- */

static cJSON *num_or_null(double v)
{
	return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

static int json_num(cJSON *o, const char *key, double v)
{
	cJSON *j = num_or_null(v);
	if (!j)
		return -1;
	cJSON_AddItemToObject(o, key, j);
	return 0;
}

/* The "real" object of one run's JSON. NULL when out of memory. */
static cJSON *real_json(const struct real_view *v)
{
	const struct h5read_real *g = &v->g;
	cJSON *o = cJSON_CreateObject(), *cal;
	if (!o || !cJSON_AddStringToObject(o, "backend", g->backend) ||
	    !cJSON_AddStringToObject(o, "device", g->device) || json_num(o, "time_scale", g->time_scale) ||
	    json_num(o, "wall_s", g->wall_s) || json_num(o, "busy_gpu_wall_s", g->busy_gpu_wall_s) ||
	    json_num(o, "gpu_utilization", g->gpu_utilization) ||
	    json_num(o, "failed_segments", g->failed_segments) ||
	    json_num(o, "runtime_error", v->runtime_error) ||
	    json_num(o, "decision_latency_p50_s", v->lat_p50_s) ||
	    json_num(o, "decision_latency_p99_s", v->lat_p99_s) || json_num(o, "jobs", (double)g->jobs.n) ||
	    json_num(o, "segments", (double)g->segments.n) ||
	    json_num(o, "completed_segments", (double)v->completed_segs) ||
	    json_num(o, "starts", (double)g->n_latencies) ||
	    !(cal = cJSON_AddArrayToObject(o, "calibration")))
		goto out_fail;
	for (size_t k = 0; k < g->calibration.n; k++) {
		cJSON *c = cJSON_CreateObject();
		if (!c)
			goto out_fail;
		cJSON_AddItemToArray(cal, c);
		if (!cJSON_AddStringToObject(c, "flavor", g->calibration.flavor[k]) ||
		    json_num(c, "iter_ns", g->calibration.iter_ns[k]))
			goto out_fail;
	}
	return o;
out_fail:
	cJSON_Delete(o);
	return NULL;
}

/* Adds "real" to a run's JSON object when the file is a real run's (present or null
 * when the run has no group); nothing for a simulation file. 0 or -1 (no memory). */
static int json_add_real(cJSON *o, const struct real_views *rv, const char *run)
{
	for (size_t i = 0; i < rv->n; i++) {
		if (strcmp(rv->v[i].run, run) != 0)
			continue;
		cJSON *r = rv->v[i].g.present ? real_json(&rv->v[i]) : cJSON_CreateNull();
		if (!r)
			return -1;
		cJSON_AddItemToObject(o, "real", r);
		return 0;
	}
	return 0;
}

int report_json(const struct h5read_file *f, const char *run, char **out, struct sim_diag *diag)
{
	*out = NULL;
	struct h5read_summary s;
	struct real_views rv = { 0 };
	int r = h5read_summary(f, &s, diag);
	if (r)
		return r;
	if ((r = check_run(f, &s, run, diag)) || (r = real_views_load(f, run, &rv, diag)))
		goto out_free;
	r = -SIM_ENOMEM;
	cJSON *arr = cJSON_CreateArray();
	if (!arr)
		goto out_free;
	for (size_t i = 0; i < s.n_rows; i++) {
		if (run && strcmp(s.run[i], run) != 0)
			continue;
		cJSON *o = cJSON_CreateObject();
		if (!o)
			goto out_json;
		cJSON_AddItemToArray(arr, o);
		/* seed as a number: exact up to 2^53, which covers every seed a config can
		 * state as a JSON number. */
		if (!cJSON_AddStringToObject(o, "run", s.run[i]) ||
		    !cJSON_AddStringToObject(o, "policy", s.policy[i]) ||
		    !cJSON_AddNumberToObject(o, "seed", (double)s.seed[i]))
			goto out_json;
		for (size_t k = 0; k < s.n_fields; k++) {
			cJSON *v = num_or_null(s.v[i * s.n_fields + k]);
			if (!v)
				goto out_json;
			cJSON_AddItemToObject(o, s.field[k], v);
		}
		if (json_add_real(o, &rv, s.run[i]))
			goto out_json;
	}
	*out = cJSON_Print(arr);
	if (*out)
		r = 0;
out_json:
	cJSON_Delete(arr);
out_free:
	real_views_free(&rv);
	h5read_summary_free(&s);
	if (r == -SIM_ENOMEM)
		sim_diag_add(diag, h5read_path(f), "out of memory");
	return r;
}

int report_json_by_variant(const struct h5read_file *f, const char *run, char **out, struct sim_diag *diag)
{
	*out = NULL;
	struct h5read_summary s;
	struct vgroups vg;
	int r = h5read_summary(f, &s, diag);
	if (r)
		return r;
	if ((r = check_run(f, &s, run, diag)))
		goto out_free;
	if ((r = vgroups_build(&s, run, &vg)))
		goto out_free;
	r = -SIM_ENOMEM;
	cJSON *arr = cJSON_CreateArray();
	if (!arr)
		goto out_groups;
	for (size_t k = 0; k < vg.n_groups; k++) {
		const struct vgroup *g = &vg.g[k];
		cJSON *o = cJSON_CreateObject(), *seeds;
		char *name = malloc(g->len + 1);
		if (!o || !name) {
			cJSON_Delete(o);
			free(name);
			goto out_json;
		}
		cJSON_AddItemToArray(arr, o);
		memcpy(name, g->name, g->len);
		name[g->len] = 0;
		const cJSON *vname = cJSON_AddStringToObject(o, "variant", name);
		free(name);
		if (!vname || !cJSON_AddNumberToObject(o, "runs", (double)g->n) ||
		    !(seeds = cJSON_AddArrayToObject(o, "seeds")))
			goto out_json;
		for (size_t j = 0; j < g->n; j++) {
			cJSON *v = cJSON_CreateNumber((double)s.seed[vg.row[g->first + j]]);
			if (!v)
				goto out_json;
			cJSON_AddItemToArray(seeds, v);
		}
		for (size_t i = 0; i < s.n_fields; i++) {
			cJSON *m = cJSON_AddObjectToObject(o, s.field[i]), *mv, *cv;
			if (!m || !(mv = num_or_null(vg.mean[k * s.n_fields + i])))
				goto out_json;
			cJSON_AddItemToObject(m, "mean", mv);
			if (!(cv = num_or_null(vg.ci95[k * s.n_fields + i])))
				goto out_json;
			cJSON_AddItemToObject(m, "ci95", cv);
		}
	}
	*out = cJSON_Print(arr);
	if (*out)
		r = 0;
out_json:
	cJSON_Delete(arr);
out_groups:
	vgroups_free(&vg);
out_free:
	h5read_summary_free(&s);
	if (r == -SIM_ENOMEM)
		sim_diag_add(diag, h5read_path(f), "out of memory");
	return r;
}

/* ---- CSV ---- */

/* RFC 4180: quote a field holding a comma, quote or line break; double the quotes. */
static void csv_str(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* Shortest of %.15g / %.17g that reads back as the same double; NaN is empty. */
static void csv_num(FILE *out, double v)
{
	if (isnan(v))
		return;
	char buf[40];
	snprintf(buf, sizeof buf, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, sizeof buf, "%.17g", v);
	fputs(buf, out);
}

int report_jobs_csv(const struct h5read_file *f, const char *run, FILE *out, struct sim_diag *diag)
{
	int rc = known_run(f, run, diag);
	if (rc)
		return rc;
	fputs("run,id,queue,user,flavor,option,gpus,submit_s,start_s,end_s,wait_s,jct_s,runtime_s,"
	      "preemptions,status\n",
	      out);
	for (size_t r = 0; r < h5read_n_runs(f); r++) {
		const char *name = h5read_run_name(f, r);
		if (run && strcmp(name, run) != 0)
			continue;
		struct h5read_jobs j;
		rc = h5read_jobs(f, name, &j, diag);
		if (rc)
			return rc;
		for (size_t i = 0; i < j.n; i++) {
			csv_str(out, name);
			fputc(',', out);
			csv_str(out, j.id[i]);
			fputc(',', out);
			csv_str(out, j.queue[i]);
			fputc(',', out);
			csv_str(out, j.user[i]);
			fputc(',', out);
			csv_str(out, j.flavor[i]);
			fputc(',', out);
			if (j.option[i] >= 0)
				fprintf(out, "%d", (int)j.option[i]);
			const double *nums[] = { j.gpus, j.submit_s, j.start_s, j.end_s, j.wait_s, j.jct_s,
						 j.runtime_s };
			for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) {
				fputc(',', out);
				csv_num(out, nums[k][i]);
			}
			fprintf(out, ",%u,", (unsigned)j.preemptions[i]);
			csv_str(out, j.state[i]);
			fputc('\n', out);
		}
		h5read_jobs_free(&j);
	}
	return 0;
}

/* ---- queues ---- */

/* The per-queue table for people: a field of /runs/<run>/queues, its header with the
 * unit, and how it is printed. */
static const struct tcol queue_cols[] = {
	{ "queue", NULL, 1, 0 },
	{ "nominal[GPU]", "nominal_gpus", 1, 1 },
	{ "jobs", "jobs", 1, 0 },
	{ "completed", "completed", 1, 0 },
	{ "wait_mean[s]", "mean_wait_s", 1, 1 },
	{ "wait_p95[s]", "p95_wait_s", 1, 1 },
	{ "busy[GPU*h]", "busy_gpu_h", 1, 2 },
	{ "borrowed[GPU*h]", "borrowed_gpu_h", 1, 2 },
	{ "lent[GPU*h]", "lent_gpu_h", 1, 2 },
	{ "below_nominal[h]", "below_nominal_demanding_h", 1, 2 },
	{ "preempted", "preemptions_suffered", 1, 0 },
	{ "caused", "preemptions_caused", 1, 0 },
	{ "lost[GPU*h]", "lost_gpu_h", 1, 2 },
	{ "restore[h]", "restore_h", 1, 2 },
	{ "share[%]", "share", 100, 1 },
};
#define N_QUEUE_COLS (sizeof queue_cols / sizeof queue_cols[0])

/* ---- tables for people: one row a table row, aligned columns ---- */

#define CELL_MAX 48
typedef char cell_t[CELL_MAX];

/* The cells of table t: row 0 the headers, then a row a table row: a column without a
 * field holds the row's key ("" without keys), the others value x scale with the
 * column's decimals, "-" for NaN. ncols cells a row; NULL on no memory. */
static cell_t *table_cells(const struct tcol *cols, size_t ncols, const struct h5read_table *t)
{
	cell_t *cells = calloc((t->n_rows + 1) * ncols, sizeof *cells);
	if (!cells)
		return NULL;
	for (size_t c = 0; c < ncols; c++)
		snprintf(cells[c], CELL_MAX, "%s", cols[c].head);
	for (size_t i = 0; i < t->n_rows; i++) {
		for (size_t c = 0; c < ncols; c++) {
			char *cell = cells[(i + 1) * ncols + c];
			if (!cols[c].field) {
				snprintf(cell, CELL_MAX, "%s", t->key ? t->key[i] : "");
				continue;
			}
			double v = h5read_table_get(t, i, cols[c].field);
			if (isnan(v))
				snprintf(cell, CELL_MAX, "-");
			else
				snprintf(cell, CELL_MAX, "%.*f", cols[c].decimals, v * cols[c].scale);
		}
	}
	return cells;
}

/* Prints rows x ncols cells (ncols <= 32): the first column left-aligned, the others
 * right-aligned, two spaces apart, each as wide as its widest cell. */
static void table_print(FILE *out, cell_t *cells, size_t rows, size_t ncols)
{
	size_t width[32] = { 0 };
	for (size_t i = 0; i < rows; i++)
		for (size_t c = 0; c < ncols && c < 32; c++)
			if (strlen(cells[i * ncols + c]) > width[c])
				width[c] = strlen(cells[i * ncols + c]);
	for (size_t i = 0; i < rows; i++) {
		for (size_t c = 0; c < ncols && c < 32; c++) {
			if (c == 0)
				fprintf(out, "%-*s", (int)width[c], cells[i * ncols + c]);
			else
				fprintf(out, "  %*s", (int)width[c], cells[i * ncols + c]);
		}
		fputc('\n', out);
	}
}

/* ---- faults (schema 1.6): stops and lost work by cause ---- */

/* The fault table's columns: a header with its unit, and the value from one run's
 * summary row. Lost work beyond the three fault causes (preemptions, capacity
 * removals) is what lost_gpu_s holds besides them. */
struct fcol {
	const char *head;
	double (*value)(const struct h5read_summary *s, size_t i);
	int decimals;
};

#define SUMF(name) h5read_summary_get(s, i, name)
static double fv_stops_node(const struct h5read_summary *s, size_t i) { return SUMF("stops_node_failed"); }
static double fv_stops_crash(const struct h5read_summary *s, size_t i) { return SUMF("stops_crashed"); }
static double fv_stops_hang(const struct h5read_summary *s, size_t i) { return SUMF("stops_hang"); }
/* Loss spikes: NaN (shown as such) in files before schema 2.1. */
static double fv_stops_spike(const struct h5read_summary *s, size_t i) { return SUMF("stops_loss_spike"); }
static double fv_lost_spike(const struct h5read_summary *s, size_t i) { return SUMF("lost_loss_spike_gpu_s") / 3600; }
static double fv_stops_other(const struct h5read_summary *s, size_t i)
{
	return SUMF("preemptions") + SUMF("interruptions");
}
static double fv_lost_node(const struct h5read_summary *s, size_t i) { return SUMF("lost_node_failed_gpu_s") / 3600; }
static double fv_lost_crash(const struct h5read_summary *s, size_t i) { return SUMF("lost_crashed_gpu_s") / 3600; }
static double fv_lost_hang(const struct h5read_summary *s, size_t i) { return SUMF("lost_hang_gpu_s") / 3600; }
static double fv_lost_other(const struct h5read_summary *s, size_t i)
{
	return h5read_summary_lost_other_gpu_s(s, i) / 3600;
}
static double fv_nodes_failed(const struct h5read_summary *s, size_t i) { return SUMF("nodes_failed"); }
static double fv_ettr(const struct h5read_summary *s, size_t i) { return SUMF("ettr"); }
static double fv_mttr(const struct h5read_summary *s, size_t i)
{
	double n = SUMF("fault_restarts");
	return n > 0 ? SUMF("time_to_recover_s") / n : NAN;
}
static double fv_retries_out(const struct h5read_summary *s, size_t i) { return SUMF("retries_exhausted"); }
static double fv_slow_ep(const struct h5read_summary *s, size_t i) { return SUMF("slow_episodes"); }
static double fv_slow_det(const struct h5read_summary *s, size_t i) { return SUMF("slow_detected"); }
static double fv_lost_slow(const struct h5read_summary *s, size_t i) { return SUMF("lost_slow_gpu_s") / 3600; }
static double fv_stops_mig(const struct h5read_summary *s, size_t i) { return SUMF("stops_slow_migrated"); }
static double fv_lost_mig(const struct h5read_summary *s, size_t i) { return SUMF("lost_slow_migrated_gpu_s") / 3600; }
#undef SUMF

static const struct fcol fault_cols[] = {
	{ "run", NULL, 0 },
	{ "stop:node", fv_stops_node, 0 },
	{ "stop:crash", fv_stops_crash, 0 },
	{ "stop:hang", fv_stops_hang, 0 },
	{ "stop:spike", fv_stops_spike, 0 },
	{ "stop:preempt", fv_stops_other, 0 },
	{ "lost:node[GPU*h]", fv_lost_node, 1 },
	{ "lost:crash", fv_lost_crash, 1 },
	{ "lost:hang", fv_lost_hang, 1 },
	{ "lost:spike", fv_lost_spike, 1 },
	{ "lost:preempt", fv_lost_other, 1 },
	{ "nodes_failed", fv_nodes_failed, 0 },
	{ "ETTR", fv_ettr, 4 },
	{ "recover_mean[s]", fv_mttr, 1 },
	{ "out_of_retries", fv_retries_out, 0 },
};
#define N_FAULT_COLS (sizeof fault_cols / sizeof fault_cols[0])

/* Fail-slow nodes (docs/faults.md): a second table, only when some run had an
 * episode (so the fault table of a run without them reads as it always did). */
static const struct fcol slow_cols[] = {
	{ "run", NULL, 0 },
	{ "slow_episodes", fv_slow_ep, 0 },
	{ "detected", fv_slow_det, 0 },
	{ "lost:slow[GPU*h]", fv_lost_slow, 1 },
	{ "stop:migrated", fv_stops_mig, 0 },
	{ "lost:migrated[GPU*h]", fv_lost_mig, 1 },
};
#define N_SLOW_COLS (sizeof slow_cols / sizeof slow_cols[0])

/* One row of cells for run i of the summary. */
static void fcol_row(cell_t *row, const struct fcol *cols, size_t n, const struct h5read_summary *s, size_t i)
{
	for (size_t c = 0; c < n; c++) {
		if (!cols[c].value) {
			snprintf(row[c], CELL_MAX, "%s", s->run[i]);
			continue;
		}
		double v = cols[c].value(s, i);
		if (isnan(v))
			snprintf(row[c], CELL_MAX, "-");
		else
			snprintf(row[c], CELL_MAX, "%.*f", cols[c].decimals, v);
	}
}

static void fault_row(cell_t *row, const struct h5read_summary *s, size_t i)
{
	fcol_row(row, fault_cols, N_FAULT_COLS, s, i);
}

/* The fail-slow table of the runs with a fault table (rows of s listed in idx). */
static int slow_table(const struct h5read_summary *s, const size_t *idx, size_t n, FILE *out)
{
	int any = 0;
	for (size_t k = 0; k < n; k++)
		any |= h5read_summary_get(s, idx[k], "slow_episodes") > 0;
	if (!any)
		return 0;
	cell_t *cells = calloc((n + 1) * N_SLOW_COLS, sizeof *cells);
	if (!cells)
		return -SIM_ENOMEM;
	for (size_t c = 0; c < N_SLOW_COLS; c++)
		snprintf(cells[c], CELL_MAX, "%s", slow_cols[c].head);
	for (size_t k = 0; k < n; k++)
		fcol_row(&cells[(k + 1) * N_SLOW_COLS], slow_cols, N_SLOW_COLS, s, idx[k]);
	fprintf(out, "\nfail-slow nodes: episodes, GPU-hours held at reduced speed (GPUs x time x (1 - rate)), and"
		     " with detection\nthe jobs migrated off detected nodes and the work they lost\n");
	table_print(out, cells, n + 1, N_SLOW_COLS);
	free(cells);
	return 0;
}

/* The fault table: a row a run (`run` alone when not NULL) that had a fault model,
 * i.e. whose file holds a /runs/<run>/faults table; nothing when none had. */
static int faults_table(const struct h5read_file *f, const char *run, FILE *out, struct sim_diag *diag)
{
	struct h5read_summary s;
	int r = h5read_summary(f, &s, diag);
	if (r)
		return r;
	cell_t *cells = calloc((s.n_rows + 1) * N_FAULT_COLS, sizeof *cells);
	size_t *idx = calloc(s.n_rows ? s.n_rows : 1, sizeof *idx);
	size_t rows = 1;
	if (!cells || !idx)
		r = -SIM_ENOMEM;
	for (size_t c = 0; cells && c < N_FAULT_COLS; c++)
		snprintf(cells[c], CELL_MAX, "%s", fault_cols[c].head);
	for (size_t i = 0; !r && i < s.n_rows; i++) {
		if (run && strcmp(s.run[i], run) != 0)
			continue;
		struct h5read_table t;
		if ((r = h5read_faults(f, s.run[i], &t, diag)))
			break;
		if (t.present) {
			idx[rows - 1] = i;
			fault_row(&cells[rows++ * N_FAULT_COLS], &s, i);
		}
		h5read_table_free(&t);
	}
	if (!r && rows > 1) {
		fprintf(out, "\nfaults: stops and lost GPU-hours by cause (node failure, crash, hang, loss spike;"
			     " preempt = preemptions\nand capacity removals); ETTR = useful / held GPU time; recover = mean"
			     " time from a fault stop to the restart\n");
		table_print(out, cells, rows, N_FAULT_COLS);
		r = slow_table(&s, idx, rows - 1, out);
	}
	if (r == -SIM_ENOMEM)
		sim_diag_add(diag, h5read_path(f), "out of memory");
	free(idx);
	free(cells);
	h5read_summary_free(&s);
	return r;
}


/* Prints one run's block of the per-queue table; rows formatted first, so running
 * out of memory prints nothing. */
static int queues_block(const char *run, const struct h5read_table *q, FILE *out)
{
	cell_t *cells = table_cells(queue_cols, N_QUEUE_COLS, q);
	if (!cells)
		return -SIM_ENOMEM;
	int quota = 0;
	for (size_t i = 0; i < q->n_rows; i++)
		quota |= !isnan(h5read_table_get(q, i, "nominal_gpus"));
	fprintf(out, "run %s: %zu queue%s%s\n", run, q->n_rows, q->n_rows == 1 ? "" : "s",
		quota ? "" : " (no quota policy: nominal, borrowed, lent, below_nominal and share are -)");
	table_print(out, cells, q->n_rows + 1, N_QUEUE_COLS);
	free(cells);
	return 0;
}

/* ---- options ---- */

/* The per-option table for people: a field of /runs/<run>/options, its header with
 * the unit, and how it is printed. */
static const struct tcol option_cols[] = {
	{ "option", "option", 1, 0 },
	{ "jobs", "jobs", 1, 0 },
	{ "share[%]", "share", 100, 1 },
	{ "wait_mean[s]", "mean_wait_s", 1, 1 },
	{ "wait_p50[s]", "p50_wait_s", 1, 1 },
	{ "wait_p95[s]", "p95_wait_s", 1, 1 },
	{ "runtime_mean[s]", "mean_runtime_s", 1, 1 },
	{ "runtime_ratio", "runtime_ratio", 1, 2 },
	{ "cost_mean[currency]", "mean_cost", 1, 2 },
};
#define N_OPTION_COLS (sizeof option_cols / sizeof option_cols[0])

/* One run's block: "run NAME: N options, M started jobs" and the table. */
static int options_block(const char *run, const struct h5read_table *o, FILE *out)
{
	cell_t *cells = table_cells(option_cols, N_OPTION_COLS, o);
	if (!cells)
		return -SIM_ENOMEM;
	double started = 0;
	for (size_t i = 0; i < o->n_rows; i++) {
		double n = h5read_table_get(o, i, "jobs");
		started += isnan(n) ? 0 : n;
	}
	fprintf(out, "run %s: %zu option%s, %.0f started job%s\n", run, o->n_rows, o->n_rows == 1 ? "" : "s",
		started, started == 1 ? "" : "s");
	table_print(out, cells, o->n_rows + 1, N_OPTION_COLS);
	free(cells);
	return 0;
}

/* ---- per-run tables (queues, options): one walk for the text and the JSON views ---- */

/* How report shows a per-run numeric table. */
struct table_view {
	int (*read)(const struct h5read_file *f, const char *run, struct h5read_table *out,
		    struct sim_diag *diag);
	int (*block)(const char *run, const struct h5read_table *t, FILE *out); /* text, 0 or -SIM_ENOMEM */
	const char *absent; /* text for a run without the table, after "run NAME: " */
	const char *key;    /* JSON name of a row's key; NULL for a table without keys */
};

static const struct table_view queues_view = { h5read_queues, queues_block,
					       "no per-queue table (a file of schema 1.1)", "queue" };
static const struct table_view options_view = { h5read_options, options_block,
						"no per-option table (a file of schema 1.2 or older)", NULL };

/* Appends to arr one object a row of t: run, the row's key (when the view has one),
 * then every field by name (NaN is null). 0 or -SIM_ENOMEM. */
static int json_rows(cJSON *arr, const char *run, const char *key, const struct h5read_table *t)
{
	for (size_t i = 0; i < t->n_rows; i++) {
		cJSON *o = cJSON_CreateObject();
		if (!o)
			return -SIM_ENOMEM;
		cJSON_AddItemToArray(arr, o);
		if (!cJSON_AddStringToObject(o, "run", run) ||
		    (key && !cJSON_AddStringToObject(o, key, t->key[i])))
			return -SIM_ENOMEM;
		for (size_t c = 0; c < t->n_fields; c++) {
			cJSON *v = num_or_null(t->v[i * t->n_fields + c]);
			if (!v)
				return -SIM_ENOMEM;
			cJSON_AddItemToObject(o, t->field[c], v);
		}
	}
	return 0;
}

/* The table of every run, or of `run` alone (known to exist), in file order: as text
 * blocks to out, a blank line apart, "(no runs)" for a file without runs; or, out
 * NULL, as rows appended to arr. A reader's error returns at once (its message in diag). */
static int view_runs(const struct h5read_file *f, const char *run, const struct table_view *v, FILE *out,
		     cJSON *arr, struct sim_diag *diag)
{
	size_t shown = 0;
	for (size_t k = 0; k < h5read_n_runs(f); k++) {
		const char *name = h5read_run_name(f, k);
		if (run && strcmp(name, run) != 0)
			continue;
		struct h5read_table t;
		int r = v->read(f, name, &t, diag);
		if (r)
			return r;
		if (out && shown++)
			fputc('\n', out);
		if (!out)
			r = json_rows(arr, name, v->key, &t);
		else if (!t.present)
			fprintf(out, "run %s: %s\n", name, v->absent);
		else
			r = v->block(name, &t, out);
		h5read_table_free(&t);
		if (r) {
			sim_diag_add(diag, h5read_path(f), "out of memory");
			return r;
		}
	}
	if (out && shown == 0)
		fprintf(out, "(no runs)\n");
	return 0;
}

static int view_table(const struct h5read_file *f, const char *run, const struct table_view *v, FILE *out,
		      struct sim_diag *diag)
{
	int r = known_run(f, run, diag);
	return r ? r : view_runs(f, run, v, out, NULL, diag);
}

static int view_json(const struct h5read_file *f, const char *run, const struct table_view *v, char **out,
		     struct sim_diag *diag)
{
	*out = NULL;
	int r = known_run(f, run, diag);
	if (r)
		return r;
	cJSON *arr = cJSON_CreateArray();
	r = arr ? view_runs(f, run, v, NULL, arr, diag) : 0;
	if (r == 0 && !(*out = arr ? cJSON_Print(arr) : NULL)) {
		sim_diag_add(diag, h5read_path(f), "out of memory");
		r = -SIM_ENOMEM;
	}
	cJSON_Delete(arr);
	return r;
}

int report_queues_table(const struct h5read_file *f, const char *run, FILE *out, struct sim_diag *diag)
{
	return view_table(f, run, &queues_view, out, diag);
}

int report_queues_json(const struct h5read_file *f, const char *run, char **out, struct sim_diag *diag)
{
	return view_json(f, run, &queues_view, out, diag);
}

int report_options_table(const struct h5read_file *f, const char *run, FILE *out, struct sim_diag *diag)
{
	return view_table(f, run, &options_view, out, diag);
}

int report_options_json(const struct h5read_file *f, const char *run, char **out, struct sim_diag *diag)
{
	return view_json(f, run, &options_view, out, diag);
}

/* ---- decisions ---- */

int report_decisions_csv(const struct h5read_file *f, const char *run, FILE *out, struct sim_diag *diag)
{
	int rc = known_run(f, run, diag);
	if (rc)
		return rc;
	fputs("run,time_s,preemptor,victim,preemptor_queue,victim_queue,reason,requeued,lost_gpu_s\n", out);
	for (size_t r = 0; r < h5read_n_runs(f); r++) {
		const char *name = h5read_run_name(f, r);
		if (run && strcmp(name, run) != 0)
			continue;
		struct h5read_decisions d;
		rc = h5read_decisions(f, name, &d, diag);
		if (rc)
			return rc;
		for (size_t i = 0; i < d.n; i++) {
			csv_str(out, name);
			fputc(',', out);
			csv_num(out, d.time_s[i]);
			const char *strs[] = { d.preemptor[i], d.victim[i], d.preemptor_queue[i],
					       d.victim_queue[i], d.reason[i] };
			for (size_t k = 0; k < sizeof strs / sizeof strs[0]; k++) {
				fputc(',', out);
				csv_str(out, strs[k]);
			}
			fprintf(out, ",%u,", (unsigned)d.requeued[i]);
			csv_num(out, d.lost_gpu_s[i]);
			fputc('\n', out);
		}
		h5read_decisions_free(&d);
	}
	return 0;
}
