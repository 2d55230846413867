/* analysis/report_html.c: gpusched report RESULTS.h5 --html OUT.html (report_html.h).
 *
 * The page is built from the reader alone (h5read.h) and from the SVG files that
 * plot_results draws into a scratch folder beside the output; each SVG is copied in
 * from its <svg element on (its XML prologue dropped), so the page needs no other
 * file. The HTML itself goes to a temporary beside OUT and is renamed when complete. */
#include "report_html.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../sim/outpath.h"
#include "plot.h"
#include "report.h"

void report_html_escape(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default: fputc(*s, out);
		}
	}
}

/* A column of the summary and queue tables: header (unit in brackets), field name,
 * scale (100 for a fraction shown in %) and decimals, as the text report shows them. */
struct html_col {
	const char *head, *field;
	double scale;
	int dec;
};

static const struct html_col sum_cols[] = {
	{ "jobs", "jobs", 1, 0 },
	{ "completed", "completed", 1, 0 },
	{ "wait mean [s]", "mean_wait_s", 1, 1 },
	{ "wait p50 [s]", "p50_wait_s", 1, 1 },
	{ "wait p95 [s]", "p95_wait_s", 1, 1 },
	{ "wait p99 [s]", "p99_wait_s", 1, 1 },
	{ "JCT mean [s]", "mean_jct_s", 1, 1 },
	{ "JCT p95 [s]", "p95_jct_s", 1, 1 },
	{ "utilization [%]", "utilization", 100, 1 },
	{ "bounded slowdown mean", "mean_bsld", 1, 2 },
	{ "cost per job mean", "mean_cost_per_job", 1, 2 },
};
#define N_SUM_COLS (sizeof sum_cols / sizeof sum_cols[0])
/* The replications table: the first five metrics of the text report's. */
static const struct html_col rep_cols[] = {
	{ "wait mean [s]", "mean_wait_s", 1, 1 },
	{ "wait p95 [s]", "p95_wait_s", 1, 1 },
	{ "JCT mean [s]", "mean_jct_s", 1, 1 },
	{ "utilization [%]", "utilization", 100, 1 },
	{ "bounded slowdown mean", "mean_bsld", 1, 2 },
};
static const struct html_col queue_cols[] = {
	{ "nominal [GPU]", "nominal_gpus", 1, 1 },
	{ "jobs", "jobs", 1, 0 },
	{ "completed", "completed", 1, 0 },
	{ "wait mean [s]", "mean_wait_s", 1, 1 },
	{ "wait p95 [s]", "p95_wait_s", 1, 1 },
	{ "busy [GPU·h]", "busy_gpu_h", 1, 2 },
	{ "borrowed [GPU·h]", "borrowed_gpu_h", 1, 2 },
	{ "lent [GPU·h]", "lent_gpu_h", 1, 2 },
	{ "below nominal, demanding [h]", "below_nominal_demanding_h", 1, 2 },
	{ "preempted", "preemptions_suffered", 1, 0 },
	{ "preemptions caused", "preemptions_caused", 1, 0 },
	{ "lost [GPU·h]", "lost_gpu_h", 1, 2 },
	{ "share of nominal [%]", "share", 100, 1 },
};

/* One table cell of a number: x x scale with dec decimals, "-" for NaN. */
static void num_cell(FILE *out, double x, const struct html_col *c)
{
	if (isnan(x))
		fputs("<td>-</td>", out);
	else
		fprintf(out, "<td>%.*f</td>", c->dec, x * c->scale);
}

/* The header row: lead text headers, then the columns'. With no lead (NULL), the
 * caller has opened the row and written its own first headers. */
static void head_row(FILE *out, const char *const *lead, size_t n_lead, const struct html_col *cols, size_t n)
{
	if (lead)
		fputs("<thead><tr>", out);
	for (size_t i = 0; i < n_lead; i++)
		fprintf(out, "<th class=\"t\">%s</th>", lead[i]);
	for (size_t i = 0; i < n; i++) {
		fputs("<th>", out);
		report_html_escape(out, cols[i].head);
		fputs("</th>", out);
	}
	fputs("</tr></thead>\n", out);
}

static void text_cell(FILE *out, const char *s)
{
	fputs("<td class=\"t\">", out);
	report_html_escape(out, s);
	fputs("</td>", out);
}

/* 1 when some run has a value of field (the cost column is left out of a file
 * without prices: every mean cost 0 or NaN). */
static int any_value(const struct h5read_summary *s, const char *field, int nonzero)
{
	for (size_t r = 0; r < s->n_rows; r++) {
		double x = h5read_summary_get(s, r, field);
		if (!isnan(x) && (!nonzero || x != 0))
			return 1;
	}
	return 0;
}

static void summary_table(FILE *out, const struct h5read_summary *s)
{
	int cost = any_value(s, "mean_cost_per_job", 1);
	size_t n = cost ? N_SUM_COLS : N_SUM_COLS - 1;
	fputs("<h2 id=\"summary\">Summary, one row a run</h2>\n<table class=\"num\" id=\"summary-table\">\n", out);
	/* The swept parameters (schema 1.5) say what a variant is, after the seed; the
	 * variant itself (the run name less "-s<seed>") is in the seeds table, not here,
	 * so the table fits a 1280-pixel screen. */
	fputs("<thead><tr><th class=\"t\">run</th><th class=\"t\">policy</th>"
	      "<th>seed</th>", out);
	for (size_t k = 0; k < s->n_params; k++) {
		fputs("<th class=\"t p\">", out);
		report_html_escape(out, s->param[k]);
		fputs("</th>", out);
	}
	head_row(out, NULL, 0, sum_cols, n);
	fputs("<tbody>\n", out);
	for (size_t r = 0; r < s->n_rows; r++) {
		fputs("<tr>", out);
		text_cell(out, s->run[r]);
		text_cell(out, s->policy[r]);
		fprintf(out, "<td>%llu</td>", (unsigned long long)s->seed[r]);
		for (size_t k = 0; k < s->n_params; k++)
			text_cell(out, s->param_str[r * s->n_params + k]);
		for (size_t c = 0; c < n; c++)
			num_cell(out, h5read_summary_get(s, r, sum_cols[c].field), &sum_cols[c]);
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
}

/* Seeds of each variant, and the replications table when a variant has 2 or more. */
static void variants_section(FILE *out, const struct h5read_summary *s, const struct report_variants *v)
{
	size_t max_runs = 0;
	fputs("<h2 id=\"seeds\">Variants and seeds</h2>\n<table id=\"seeds-table\">\n"
	      "<thead><tr><th class=\"t\">variant</th><th>runs</th><th class=\"t\">seeds</th></tr></thead><tbody>\n",
	      out);
	for (size_t k = 0; k < v->n; k++) {
		fputs("<tr>", out);
		text_cell(out, v->name[k]);
		fprintf(out, "<td>%zu</td><td class=\"t\">", v->runs[k]);
		for (size_t i = 0; i < v->runs[k]; i++)
			fprintf(out, "%s%llu", i ? ", " : "", (unsigned long long)s->seed[v->row[v->first[k] + i]]);
		fputs("</td></tr>\n", out);
		if (v->runs[k] > max_runs)
			max_runs = v->runs[k];
	}
	fputs("</tbody></table>\n", out);
	if (max_runs < 2)
		return;
	size_t nc = sizeof rep_cols / sizeof rep_cols[0];
	fputs("<h3>Replications: mean ± 95% confidence half-width over a variant's seeds (Student t)</h3>\n"
	      "<table class=\"num\" id=\"replications-table\">\n", out);
	const char *lead[] = { "variant", "runs" };
	head_row(out, lead, 2, rep_cols, nc);
	fputs("<tbody>\n", out);
	for (size_t k = 0; k < v->n; k++) {
		fputs("<tr>", out);
		text_cell(out, v->name[k]);
		fprintf(out, "<td>%zu</td>", v->runs[k]);
		for (size_t c = 0; c < nc; c++) {
			int fi = h5read_summary_field(s, rep_cols[c].field);
			double m = fi >= 0 ? v->mean[k * s->n_fields + (size_t)fi] : NAN;
			double h = fi >= 0 ? v->ci95[k * s->n_fields + (size_t)fi] : NAN;
			if (isnan(m))
				fputs("<td>-</td>", out);
			else
				fprintf(out, "<td>%.*f ± %.*f</td>", rep_cols[c].dec, m * rep_cols[c].scale, rep_cols[c].dec,
					h * rep_cols[c].scale);
		}
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
}

/* One table a run with a queues table (schema 1.2); nothing for older files. */
static int queue_tables(FILE *out, const struct h5read_file *f, struct sim_diag *diag)
{
	size_t nc = sizeof queue_cols / sizeof queue_cols[0], shown = 0;
	for (size_t i = 0; i < h5read_n_runs(f); i++) {
		const char *run = h5read_run_name(f, i);
		struct h5read_table t;
		int r = h5read_queues(f, run, &t, diag);
		if (r)
			return r;
		if (t.present && t.n_rows > 0) {
			if (!shown++)
				fputs("<h2 id=\"queues\">Queues, one table a run</h2>\n", out);
			fputs("<h3>run ", out);
			report_html_escape(out, run);
			fprintf(out, ": %zu queue%s</h3>\n<table class=\"num queues\">\n", t.n_rows, t.n_rows == 1 ? "" : "s");
			const char *lead[] = { "queue" };
			head_row(out, lead, 1, queue_cols, nc);
			fputs("<tbody>\n", out);
			for (size_t q = 0; q < t.n_rows; q++) {
				fputs("<tr>", out);
				text_cell(out, t.key ? t.key[q] : "");
				for (size_t c = 0; c < nc; c++)
					num_cell(out, h5read_table_get(&t, q, queue_cols[c].field), &queue_cols[c]);
				fputs("</tr>\n", out);
			}
			fputs("</tbody></table>\n", out);
		}
		h5read_table_free(&t);
	}
	if (!shown)
		fputs("<h2 id=\"queues\">Queues</h2>\n<p class=\"note\">No run of this file has a per-queue table.</p>\n",
		      out);
	return 0;
}

/* ---- plots ---- */

/* Order of the plots on the page: the overview plots first, then the sweeps, then
 * every per-run plot by name. */
static int plot_rank(const char *name)
{
	static const char *const first[] = { "wait_cdf.svg", "jct_cdf.svg", "busy_gpus.svg", "queued_jobs.svg",
					     "cost_wait.svg" };
	for (int i = 0; i < (int)(sizeof first / sizeof first[0]); i++)
		if (strcmp(name, first[i]) == 0)
			return i;
	return strncmp(name, "sweep_", 6) == 0 ? 10 : 20;
}

static int plot_cmp(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	int rx = plot_rank(x), ry = plot_rank(y);
	return rx != ry ? rx - ry : strcmp(x, y);
}

struct name_list {
	size_t n;
	char **name;
};

static void name_list_free(struct name_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->name[i]);
	free(l->name);
	l->n = 0;
	l->name = NULL;
}

/* Every file of dir (no folder part), sorted as the page shows them; those ending in
 * ext only when ext is not NULL. 0 or -SIM_ENOMEM / -SIM_EIO. */
static int list_dir(const char *dir, const char *ext, struct name_list *l)
{
	DIR *d = opendir(dir);
	if (!d)
		return -SIM_EIO;
	struct dirent *e;
	size_t cap = 0;
	int r = 0;
	while (!r && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (e->d_name[0] == '.' || (ext && (len < strlen(ext) || strcmp(e->d_name + len - strlen(ext), ext))))
			continue;
		if (l->n == cap) {
			cap = cap ? 2 * cap : 16;
			char **g = realloc(l->name, cap * sizeof *g);
			if (!g) {
				r = -SIM_ENOMEM;
				break;
			}
			l->name = g;
		}
		if (!(l->name[l->n] = strdup(e->d_name)))
			r = -SIM_ENOMEM;
		else
			l->n++;
	}
	closedir(d);
	if (!r && l->n)
		qsort(l->name, l->n, sizeof *l->name, plot_cmp);
	return r;
}

/* Removes the scratch folder and what plot_results left in it. */
static void scratch_remove(const char *dir)
{
	struct name_list l = { 0 };
	if (list_dir(dir, NULL, &l) == 0) {
		char p[4096];
		for (size_t i = 0; i < l.n; i++) {
			snprintf(p, sizeof p, "%s/%s", dir, l.name[i]);
			unlink(p);
		}
	}
	name_list_free(&l);
	rmdir(dir);
}

/* Copies an SVG from its <svg element on (the XML declaration and DOCTYPE are not
 * allowed inside HTML). 0, or -SIM_EIO when it cannot be read or is not an SVG. */
static int inline_svg(FILE *out, const char *path)
{
	char *text = NULL;
	size_t len = 0;
	FILE *in = fopen(path, "rb");
	if (in) {
		if (fseek(in, 0, SEEK_END) == 0) {
			long n = ftell(in);
			if (n > 0 && fseek(in, 0, SEEK_SET) == 0 && (text = malloc((size_t)n + 1))) {
				len = fread(text, 1, (size_t)n, in);
				text[len] = '\0';
			}
		}
		fclose(in);
	}
	const char *svg = text ? strstr(text, "<svg") : NULL;
	if (svg)
		fwrite(svg, 1, len - (size_t)(svg - text), out);
	free(text);
	return svg ? 0 : -SIM_EIO;
}

/* The plots section: plot_results in svg into dir, then every SVG inlined with its
 * file name as the caption. When plotting fails the section says why instead. */
static int plots_section(FILE *out, const struct h5read_file *f, const struct report_html_opts *o, const char *dir,
			 int *noted, struct sim_diag *diag)
{
	struct sim_diag pd;
	sim_diag_init(&pd, 4);
	struct plot_opts po = { .outdir = dir, .analysis_dir = o->analysis_dir, .gnuplot = o->gnuplot,
				.quiet = 1, .format = "svg" };
	int r = plot_results(f, &po, &pd);
	fputs("<h2 id=\"plots\">Plots</h2>\n", out);
	if (r == -SIM_EEXTERNAL) {
		fputs("<p class=\"note\">No plots: ", out);
		report_html_escape(out, pd.count ? pd.lines[0] : sim_strerror(r));
		fputs("</p>\n", out);
		*noted = 1;
		sim_diag_fini(&pd);
		return 0;
	}
	if (r) {
		for (size_t i = 0; i < pd.count && i < pd.limit; i++)
			sim_diag_add(diag, h5read_path(f), "%s", pd.lines[i]);
		sim_diag_fini(&pd);
		return r;
	}
	sim_diag_fini(&pd);
	struct name_list l = { 0 };
	if ((r = list_dir(dir, ".svg", &l)))
		return sim_diag_add(diag, dir, "cannot list the plots drawn"), r;
	char p[4096];
	for (size_t i = 0; i < l.n && !r; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, l.name[i]);
		fputs("<figure>\n", out);
		if ((r = inline_svg(out, p)))
			sim_diag_add(diag, p, "not an SVG file");
		fputs("\n<figcaption>", out);
		report_html_escape(out, l.name[i]);
		fputs("</figcaption></figure>\n", out);
	}
	name_list_free(&l);
	return r;
}

/* ---- the page ---- */

static const char page_style[] =
	"body{font-family:sans-serif;margin:1.5em auto;max-width:1400px;color:#222;padding:0 1em}\n"
	"h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:1.6em}\n"
	"h3{font-size:1em}\n"
	"table{border-collapse:collapse;margin:.5em 0;font-size:.8em}\n"
	"th,td{border:1px solid #ccc;padding:.2em .4em;text-align:right;white-space:nowrap}\n"
	/* headers wrap between words; a swept parameter's path (long, no spaces)
	 * anywhere, so the summary fits the page */
	"th{background:#eee;white-space:normal;vertical-align:bottom}th.p{overflow-wrap:anywhere;min-width:5em}th.t,td.t{text-align:left}\n"
	"table.meta th{text-align:left;width:12em}table.meta td{text-align:left;white-space:normal}\n"
	".wide{overflow-x:auto}\n"
	/* gnuplot draws 1000 x 600 with an 11 pt font: shown smaller, its text is
	 * unreadable, so one plot a row at up to its own size */
	"figure{margin:1em 0;max-width:1000px}\n"
	"figure svg{width:100%;height:auto;border:1px solid #eee}\n"
	"figcaption{font-size:.75em;color:#666;text-align:center}\n"
	/* cJSON indents with tabs: 8 columns each would push the config off the page */
	"pre{background:#f6f6f6;border:1px solid #ddd;padding:.6em;font-size:.8em;overflow-x:auto;tab-size:2}\n"
	".note{color:#555;font-style:italic}\n"
	"@media print{figure{page-break-inside:avoid}}\n";

static void meta_row(FILE *out, const char *name, const char *value)
{
	fprintf(out, "<tr><th>%s</th><td>", name);
	report_html_escape(out, value && *value ? value : "-");
	fputs("</td></tr>\n", out);
}

static void header_section(FILE *out, const struct h5read_file *f, const struct h5read_summary *s)
{
	const char *path = h5read_path(f), *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>gpusched report: ", out);
	report_html_escape(out, base);
	fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>gpusched report: ", page_style);
	report_html_escape(out, base);
	fputs("</h1>\n<table class=\"meta\" id=\"meta-table\">\n", out);
	meta_row(out, "results file", path);
	char runs[64];
	snprintf(runs, sizeof runs, "%zu", s->n_rows);
	meta_row(out, "runs", runs);
	meta_row(out, "mode", h5read_mode(f));
	meta_row(out, "software", h5read_root_attr(f, "software"));
	meta_row(out, "software version", h5read_root_attr(f, "software_version"));
	meta_row(out, "schema version", h5read_root_attr(f, "schema_version"));
	meta_row(out, "written (UTC)", h5read_root_attr(f, "created_utc"));
	meta_row(out, "config file", h5read_root_attr(f, "config_path"));
	fputs("</table>\n<p class=\"note\">Field names, units and formulas: analysis/SCHEMA.md of the gpusched "
	      "source. Wait: start &minus; submit; JCT: end &minus; submit; utilization: busy GPU-seconds over "
	      "capacity &times; makespan.</p>\n",
	      out);
}

/* The config as indented JSON (as stored when it does not parse). */
static void config_section(FILE *out, const struct h5read_file *f)
{
	const char *json = h5read_root_attr(f, "experiment_json");
	fputs("<h2 id=\"config\">Config</h2>\n", out);
	if (!json || !*json) {
		fputs("<p class=\"note\">The file holds no config.</p>\n", out);
		return;
	}
	cJSON *doc = cJSON_Parse(json);
	char *pretty = doc ? cJSON_Print(doc) : NULL;
	fputs("<pre id=\"config-json\">", out);
	report_html_escape(out, pretty ? pretty : json);
	fputs("</pre>\n", out);
	free(pretty);
	cJSON_Delete(doc);
}

static int write_page(FILE *out, const struct h5read_file *f, const struct report_html_opts *o, const char *dir,
		      int *noted, struct sim_diag *diag)
{
	struct h5read_summary s;
	int r = h5read_summary(f, &s, diag);
	if (r)
		return r;
	struct report_variants v = { 0 };
	if (report_variants(&s, &v)) {
		h5read_summary_free(&s);
		return sim_diag_add(diag, h5read_path(f), "out of memory"), -SIM_ENOMEM;
	}
	header_section(out, f, &s);
	fputs("<div class=\"wide\">\n", out);
	summary_table(out, &s);
	variants_section(out, &s, &v);
	fputs("</div>\n", out);
	r = plots_section(out, f, o, dir, noted, diag);
	if (!r) {
		fputs("<div class=\"wide\">\n", out);
		r = queue_tables(out, f, diag);
		fputs("</div>\n", out);
	}
	if (!r) {
		config_section(out, f);
		fputs("</body>\n</html>\n", out);
	}
	report_variants_free(&v);
	h5read_summary_free(&s);
	return r;
}

int report_html(const struct h5read_file *f, const struct report_html_opts *o, int *plots_note,
		struct sim_diag *diag)
{
	int noted = 0;
	/* The plots' scratch folder beside the output, so it is on the same disk and
	 * cannot collide with a user's folder (mkdtemp makes a new one). */
	size_t dl = strlen(o->out) + 16;
	char *dir = malloc(dl);
	if (!dir)
		return sim_diag_add(diag, o->out, "out of memory"), -SIM_ENOMEM;
	snprintf(dir, dl, "%s.plotsXXXXXX", o->out);
	if (!mkdtemp(dir)) {
		int e = errno;
		free(dir);
		return sim_diag_add(diag, o->out, "cannot make a scratch folder for the plots: %s", strerror(e)), -SIM_EIO;
	}
	char *tmp = NULL;
	FILE *out = sim_out_tmp_fopen(o->out, &tmp, diag);
	int r = out ? write_page(out, f, o, dir, &noted, diag) : -SIM_EIO;
	scratch_remove(dir);
	free(dir);
	if (out) {
		int e = sim_out_close(out);
		if (!r && e) {
			sim_diag_add(diag, o->out, "cannot write: %s", sim_out_write_error(e));
			r = -SIM_EIO;
		}
		if (!r && rename(tmp, o->out) != 0) {
			sim_diag_add(diag, o->out, "cannot rename the temporary: %s", strerror(errno));
			r = -SIM_EIO;
		}
		if (r)
			unlink(tmp);
	}
	free(tmp);
	if (plots_note)
		*plots_note = noted;
	return r;
}
