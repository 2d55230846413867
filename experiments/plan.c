/* experiments/plan.c: capacity planning by bisection over one config number (see plan.h). */
#include "plan.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "../analysis/plot.h"
#include "config.h"
#include "runner.h"

#define GRID_MAX_POINTS (1ULL << 40) /* a bisection of 2^40 points is 42 probes */

/* ---- target ---- */

const char *plan_cmp_text(enum plan_cmp c)
{
	static const char *const text[] = {
	    [PLAN_LE] = "<=", [PLAN_LT] = "<", [PLAN_GE] = ">=", [PLAN_GT] = ">"};
	return (unsigned)c <= PLAN_GT ? text[c] : "?";
}

int plan_target_parse(const char *s, struct plan_target *t, struct sim_diag *diag)
{
	static const char want[] =
	    "expected METRIC<=X, METRIC<X, METRIC>=X or METRIC>X (e.g. p95_wait_s<=3600)";
	size_t n = strcspn(s, "<>");
	size_t name_end = n;
	char name[64], *end;

	if (s[n] == 0)
		return sim_diag_add(diag, "--target", "%s, got '%s'", want, s);
	while (name_end > 0 && isspace((unsigned char)s[name_end - 1]))
		name_end--;
	const char *name_start = s;
	while (name_start < s + name_end && isspace((unsigned char)*name_start))
		name_start++;
	size_t len = (size_t)(s + name_end - name_start);
	if (len == 0 || len >= sizeof name)
		return sim_diag_add(diag, "--target", "%s, got '%s'", want, s);
	memcpy(name, name_start, len);
	name[len] = 0;
	int f;
	for (f = 0; f < SIM_SUM_COUNT_; f++)
		if (strcmp(name, sim_summary_name((enum sim_summary_field)f)) == 0)
			break;
	if (f == SIM_SUM_COUNT_) {
		char names[2048] = "";
		for (int k = 0; k < SIM_SUM_COUNT_; k++) {
			strncat(names, k ? ", " : "", sizeof names - strlen(names) - 1);
			strncat(names, sim_summary_name((enum sim_summary_field)k),
				sizeof names - strlen(names) - 1);
		}
		return sim_diag_add(diag, "--target", "expected a metric of sim/metrics.h (%s), got '%s'",
				    names, name);
	}
	const char *op = s + n;
	int eq = op[1] == '=';
	t->metric = (enum sim_summary_field)f;
	t->cmp = op[0] == '<' ? (eq ? PLAN_LE : PLAN_LT) : (eq ? PLAN_GE : PLAN_GT);
	const char *num = op + 1 + eq;
	errno = 0;
	t->bound = strtod(num, &end);
	while (end != num && isspace((unsigned char)*end))
		end++;
	if (end == num || *end || errno || !isfinite(t->bound))
		return sim_diag_add(diag, "--target", "expected a finite number after '%s', got '%s'",
				    plan_cmp_text(t->cmp), num);
	return 0;
}

int plan_target_met(const struct plan_target *t, double x)
{
	if (isnan(x))
		return 0;
	switch (t->cmp) {
	case PLAN_LE:
		return x <= t->bound;
	case PLAN_LT:
		return x < t->bound;
	case PLAN_GE:
		return x >= t->bound;
	case PLAN_GT:
		return x > t->bound;
	}
	return 0;
}

/* ---- grid ---- */

int plan_grid_init(struct plan_grid *g, double lo, double hi, double step, struct sim_diag *diag)
{
	if (!isfinite(lo) || !isfinite(hi))
		return sim_diag_add(diag, "--range", "expected finite LO:HI, got %g:%g", lo, hi);
	if (lo > hi)
		return sim_diag_add(diag, "--range", "expected LO <= HI, got %g:%g (an empty range)", lo, hi);
	if (!isfinite(step) || step <= 0)
		return sim_diag_add(diag, "--step", "expected a number > 0, got %g", step);
	double k = floor((hi - lo) / step + 1e-9); /* whole steps from LO, tolerant to rounding */
	if (k + 2 > (double)GRID_MAX_POINTS)
		return sim_diag_add(diag, "--step",
				    "expected at most 2^40 values in the range, got %.3g "
				    "(a larger step)",
				    k + 1);
	g->lo = lo;
	g->hi = hi;
	g->step = step;
	g->n = (uint64_t)k + 1;
	if (lo + (double)k * step < hi - 1e-9 * step)
		g->n++; /* HI is off the step: probe it too, as the last value */
	return 0;
}

double plan_grid_value(const struct plan_grid *g, uint64_t k)
{
	char buf[64];
	if (k + 1 >= g->n)
		return g->hi;
	snprintf(buf, sizeof buf, "%.12g", g->lo + (double)k * g->step);
	return strtod(buf, NULL);
}

/* ---- bisection ---- */

void plan_result_fini(struct plan_result *r)
{
	free(r->points);
	memset(r, 0, sizeof *r);
}

static int probe_at(const struct plan_grid *g, uint64_t k, plan_probe_fn probe, void *probe_arg,
		    plan_report_fn report, void *report_arg, struct plan_result *res, int *pass)
{
	struct plan_point *pts = realloc(res->points, (res->n_points + 1) * sizeof *pts);
	if (!pts)
		return -SIM_ENOMEM;
	res->points = pts;
	struct plan_point *p = &pts[res->n_points];
	memset(p, 0, sizeof *p);
	p->value = plan_grid_value(g, k);
	int rc = probe(probe_arg, p);
	if (rc)
		return rc;
	res->n_points++;
	if (report)
		report(report_arg, p);
	*pass = p->pass;
	return 0;
}

int plan_bisect(const struct plan_grid *g, plan_probe_fn probe, void *probe_arg, plan_report_fn report,
		void *report_arg, struct plan_result *res)
{
	uint64_t fail = 0, ok = g->n - 1; /* invariant: fail fails (or is LO, unprobed), ok passes */
	int pass, rc;

	res->found = 0;
	res->answer = NAN;
	if ((rc = probe_at(g, ok, probe, probe_arg, report, report_arg, res, &pass)) || !pass)
		return rc;
	if (g->n > 1) {
		if ((rc = probe_at(g, 0, probe, probe_arg, report, report_arg, res, &pass)))
			return rc;
		if (pass)
			ok = 0;
	}
	while (ok > fail + 1) {
		uint64_t mid = fail + (ok - fail) / 2;
		if ((rc = probe_at(g, mid, probe, probe_arg, report, report_arg, res, &pass)))
			return rc;
		if (pass)
			ok = mid;
		else
			fail = mid;
	}
	res->found = 1;
	res->answer = plan_grid_value(g, ok);
	return 0;
}

/* ---- probes on a config ---- */

struct probe_ctx {
	const struct plan_opts *o;
	struct sim_trace *trace;
	const uint64_t *seeds;
	size_t n_seeds;
	struct sim_summary *runs; /* n_seeds; scratch */
	struct sim_diag *diag;
};

/* The config at value, and its variant (o->variant, or the only one). */
static int config_at(const struct plan_opts *o, double value, struct exp_config **cfg,
		     const struct exp_variant **v, struct sim_diag *diag)
{
	int rc = exp_config_parse_with(o->config_path, o->config_text, o->config_len, o->json_path, value,
				       cfg, diag);
	if (rc) {
		if (rc == -SIM_EPARSE)
			sim_diag_add(diag, o->config_path, "(the errors above are with %s = %.12g)",
				     o->json_path, value);
		return rc;
	}
	if (!o->variant) {
		if ((*cfg)->n_variants == 1) {
			*v = &(*cfg)->variants[0];
			return 0;
		}
	} else {
		for (size_t i = 0; i < (*cfg)->n_variants; i++)
			if (strcmp((*cfg)->variants[i].name, o->variant) == 0) {
				*v = &(*cfg)->variants[i];
				return 0;
			}
	}
	char names[1024] = "";
	for (size_t i = 0; i < (*cfg)->n_variants && strlen(names) < sizeof names - 64; i++) {
		strncat(names, i ? ", " : "", sizeof names - strlen(names) - 1);
		strncat(names, (*cfg)->variants[i].name, sizeof names - strlen(names) - 1);
	}
	if (o->variant)
		sim_diag_add(diag, "--variant", "expected a variant of %s (%s), got '%s'", o->config_path,
			     names, o->variant);
	else
		sim_diag_add(diag, o->config_path,
			     "$.sweep: expected no sweep (plan varies one config), got %zu "
			     "variants; choose one with --variant (%s)",
			     (*cfg)->n_variants, names);
	exp_config_destroy(*cfg);
	*cfg = NULL;
	return -SIM_EPARSE;
}

/* Counts of jobs: for such a target, unserved jobs are what the target judges. */
static int metric_counts_jobs(enum sim_summary_field f)
{
	return f == SIM_SUM_jobs || f == SIM_SUM_completed || f == SIM_SUM_rejected ||
	       f == SIM_SUM_unfinished;
}

static int probe_config(void *arg, struct plan_point *p)
{
	struct probe_ctx *c = arg;
	const struct plan_opts *o = c->o;
	enum sim_summary_field f = o->target.metric;
	struct exp_config *cfg;
	const struct exp_variant *v;
	struct sim_summary mean, ci95;

	int rc = config_at(o, p->value, &cfg, &v, c->diag);
	if (rc)
		return rc;
	p->n_seeds = c->n_seeds;
	for (size_t s = 0; s < c->n_seeds; s++) {
		if ((rc = exp_run_summary(cfg, v, c->seeds[s], c->trace, &c->runs[s], c->diag)))
			goto out_cfg;
		double x = c->runs[s].v[f];
		double unserved = c->runs[s].v[SIM_SUM_rejected] + c->runs[s].v[SIM_SUM_unfinished];
		p->n_nan += isnan(x);
		if (unserved > p->unserved)
			p->unserved = unserved;
	}
	sim_metrics_replicate(c->runs, c->n_seeds, &mean, &ci95);
	p->mean = mean.v[f];
	p->ci95 = ci95.v[f];
	p->judged = p->mean;
	if (o->conservative)
		p->judged = o->target.cmp == PLAN_LE || o->target.cmp == PLAN_LT ? p->mean + p->ci95
										 : p->mean - p->ci95;
	p->pass = p->n_nan == 0 && (p->unserved == 0 || metric_counts_jobs(f)) &&
		  plan_target_met(&o->target, p->judged);
out_cfg:
	exp_config_destroy(cfg);
	return rc;
}

int plan_run(const struct plan_opts *o, struct sim_trace *trace, struct plan_result *res,
	     struct sim_diag *diag)
{
	struct probe_ctx c = {.o = o, .trace = trace, .diag = diag, .seeds = o->seeds, .n_seeds = o->n_seeds};
	struct exp_config *cfg = NULL;
	const struct exp_variant *v;
	uint64_t *own_seeds = NULL; /* the config's, when o->seeds is NULL */
	double now;
	int rc;

	memset(res, 0, sizeof *res);
	if ((rc = exp_config_number_at(o->config_path, o->config_text, o->config_len, o->json_path, &now,
				       diag)))
		return rc;
	/* Bad values fail here, before minutes of runs: LO, HI and one step. */
	uint64_t check[3] = {0, o->grid.n - 1, o->grid.n > 2 ? 1 : 0};
	for (int i = 0; i < 3; i++) {
		if ((rc = config_at(o, plan_grid_value(&o->grid, check[i]), &cfg, &v, diag)))
			goto out_seeds;
		if (!o->seeds && !own_seeds) {
			own_seeds = malloc(cfg->n_seeds * sizeof *own_seeds);
			if (own_seeds)
				memcpy(own_seeds, cfg->seeds, cfg->n_seeds * sizeof *own_seeds);
			c.seeds = own_seeds;
			c.n_seeds = cfg->n_seeds;
		}
		exp_config_destroy(cfg);
		if (!c.seeds) {
			rc = -SIM_ENOMEM;
			goto out_seeds;
		}
	}
	if (c.n_seeds == 0) {
		rc = sim_diag_add(diag, "--seeds", "expected at least one seed, got none");
		goto out_seeds;
	}
	c.runs = calloc(c.n_seeds, sizeof *c.runs);
	if (!c.runs) {
		rc = -SIM_ENOMEM;
		goto out_seeds;
	}
	rc = plan_bisect(&o->grid, probe_config, &c, o->report, o->report_arg, res);
	free(c.runs);
out_seeds:
	free(own_seeds);
	return rc;
}

/* ---- curve output ---- */

static int point_cmp(const void *pa, const void *pb)
{
	const struct plan_point *a = pa, *b = pb;
	return (a->value > b->value) - (a->value < b->value);
}

/* A number for a CSV cell: %.17g keeps doubles exact; NaN as "nan" (gnuplot reads it). */
static void csv_num(FILE *f, double x, const char *sep)
{
	if (isnan(x))
		fprintf(f, "nan%s", sep);
	else
		fprintf(f, "%.17g%s", x, sep);
}

int plan_write_csv(const struct plan_result *r, FILE *f)
{
	struct plan_point *sorted = malloc((r->n_points ? r->n_points : 1) * sizeof *sorted);
	if (!sorted)
		return -SIM_ENOMEM;
	memcpy(sorted, r->points, r->n_points * sizeof *sorted);
	qsort(sorted, r->n_points, sizeof *sorted, point_cmp);
	fprintf(f, "value,mean,ci95,judged,pass,seeds\n");
	for (size_t i = 0; i < r->n_points; i++) {
		const struct plan_point *p = &sorted[i];
		csv_num(f, p->value, ",");
		csv_num(f, p->mean, ",");
		csv_num(f, p->ci95, ",");
		csv_num(f, p->judged, ",");
		fprintf(f, "%d,%zu\n", p->pass, p->n_seeds);
	}
	free(sorted);
	return ferror(f) ? -SIM_EIO : 0;
}

/* The unit of a config number, from its key (experiments/README.md): for the x axis. */
static const char *path_unit(const char *json_path)
{
	const char *key = strrchr(json_path, '.');
	size_t n;

	key = key ? key + 1 : json_path;
	n = strcspn(key, "[");
	if (n == 5 && strncmp(key, "nodes", 5) == 0)
		return "nodes";
	if (n == 3 && strncmp(key, "gpu", 3) == 0)
		return "GPU";
	if (n > 2 && strncmp(key + n - 2, "_s", 2) == 0)
		return "s";
	return "";
}

int plan_plot(const char *csv, const char *png, const struct plan_opts *o, const struct plan_result *r,
	      struct sim_diag *diag)
{
	const char *adir = plot_analysis_dir(NULL);
	char tmpl[1024], qcsv[2100], qpng[2100], qadir[2100], qpath[600], ylabel[256], qylabel[600];
	char vars[8192];
	const struct plan_target *t = &o->target;

	snprintf(tmpl, sizeof tmpl, "%s/plan.gp", adir);
	if (access(tmpl, R_OK) != 0) {
		sim_diag_add(diag, tmpl,
			     "plot template not found (set GPUSCHED_ANALYSIS_DIR to the analysis/ folder)");
		return -SIM_EIO;
	}
	/* A log y axis when the positive values span over two decades (waits do); values
	 * below a floor (a power of ten under the smallest positive value and the target,
	 * zeros included) are drawn at the floor. */
	double lo = INFINITY, hi = 0;
	for (size_t i = 0; i < r->n_points; i++) {
		const struct plan_point *p = &r->points[i];
		double y = p->judged;
		if (!(y > 0)) /* NaN or <= 0 */
			continue;
		lo = y < lo ? y : lo;
		hi = y > hi ? y : hi;
	}
	int logy = isfinite(lo) && hi / lo > 100 && t->bound > 0;
	double yfloor = logy ? pow(10, floor(log10(lo < t->bound ? lo : t->bound))) : 0;
	snprintf(ylabel, sizeof ylabel, "%s (%s), %s over %zu seed%s", sim_summary_name(t->metric),
		 sim_summary_unit(t->metric), o->conservative ? "95% CI bound" : "mean",
		 r->n_points ? r->points[0].n_seeds : 0, r->n_points && r->points[0].n_seeds == 1 ? "" : "s");
	plot_gp_quote(qcsv, sizeof qcsv, csv);
	plot_gp_quote(qpng, sizeof qpng, png);
	plot_gp_quote(qadir, sizeof qadir, adir);
	plot_gp_quote(qpath, sizeof qpath, o->json_path);
	plot_gp_quote(qylabel, sizeof qylabel, ylabel);
	snprintf(vars, sizeof vars,
		 "datafile=%s; outfile=%s; analysis_dir=%s; xname=%s; ylabel=%s; target=%.17g; cmp='%s'; "
		 "metric='%s'; answer=%.17g; found=%d; logy=%d; yfloor=%.17g; xunit='%s'",
		 qcsv, qpng, qadir, qpath, qylabel, t->bound, plan_cmp_text(t->cmp),
		 sim_summary_name(t->metric), r->found ? r->answer : 0.0, r->found, logy, yfloor,
		 path_unit(o->json_path));
	return plot_run_gnuplot("gnuplot", tmpl, vars, png, diag);
}
