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
#include "../sim/outpath.h"
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
	free(r->mixes);
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
	double outer[PLAN_OUTER_MAX]; /* the mix being searched */
	struct sim_trace *trace;
	const uint64_t *seeds;
	size_t n_seeds;
	struct sim_summary *runs; /* n_seeds; scratch */
	struct sim_diag *diag;
};

/* The config with the outer numbers at outer[] and the bisected one at value, and
 * its variant (o->variant, or the only one). */
static int config_at(const struct plan_opts *o, const double *outer, double value, struct exp_config **cfg,
		     const struct exp_variant **v, struct sim_diag *diag)
{
	const char *paths[PLAN_OUTER_MAX + 1];
	double values[PLAN_OUTER_MAX + 1];
	for (size_t i = 0; i < o->n_outer; i++) {
		paths[i] = o->outer_paths[i];
		values[i] = outer[i];
	}
	paths[o->n_outer] = o->json_path;
	values[o->n_outer] = value;
	int rc = exp_config_parse_with_n(o->config_path, o->config_text, o->config_len, paths, values,
					 o->n_outer + 1, cfg, diag);
	if (rc) {
		if (rc == -SIM_EPARSE) {
			char with[1024] = "";
			for (size_t i = 0; i <= o->n_outer; i++) {
				size_t n = strlen(with);
				snprintf(with + n, sizeof with - n, "%s%s = %.12g", i ? ", " : "", paths[i], values[i]);
			}
			sim_diag_add(diag, o->config_path, "(the errors above are with %s)", with);
		}
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

	memcpy(p->outer, c->outer, sizeof p->outer);
	int rc = config_at(o, c->outer, p->value, &cfg, &v, c->diag);
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
	p->obj_mean = o->minimize_on ? mean.v[o->minimize] : NAN;
	p->obj_ci95 = o->minimize_on ? ci95.v[o->minimize] : NAN;
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

/* Every path once, each a number of the config. */
static int check_paths(const struct plan_opts *o, struct sim_diag *diag)
{
	double now;
	int rc;
	if (o->n_outer > PLAN_OUTER_MAX)
		return sim_diag_add(diag, "--vary", "expected at most %d numbers, got %zu", PLAN_OUTER_MAX + 1,
				    o->n_outer + 1);
	if (o->n_outer && !o->minimize_on)
		return sim_diag_add(diag, "--minimize",
				    "expected a metric to minimise over the mixes of %zu numbers (e.g. cost_capacity)",
				    o->n_outer + 1);
	for (size_t i = 0; i <= o->n_outer; i++) {
		const char *pi = i < o->n_outer ? o->outer_paths[i] : o->json_path;
		if ((rc = exp_config_number_at(o->config_path, o->config_text, o->config_len, pi, &now, diag)))
			return rc;
		for (size_t j = 0; j < i; j++)
			if (strcmp(pi, o->outer_paths[j]) == 0)
				return sim_diag_add(diag, "--vary", "expected each path once, got '%s' twice", pi);
	}
	return 0;
}

/* Mixes in grid order, the first outer number varying slowest; 0 when over
 * PLAN_MIXES_MAX. */
static size_t count_mixes(const struct plan_opts *o)
{
	size_t n = 1;
	for (size_t i = 0; i < o->n_outer; i++) {
		if (o->outer_grids[i].n > PLAN_MIXES_MAX || n * o->outer_grids[i].n > PLAN_MIXES_MAX)
			return 0;
		n *= o->outer_grids[i].n;
	}
	return n;
}

static void mix_values(const struct plan_opts *o, size_t m, double *outer)
{
	for (size_t i = o->n_outer; i-- > 0;) {
		uint64_t n = o->outer_grids[i].n;
		outer[i] = plan_grid_value(&o->outer_grids[i], m % n);
		m /= n;
	}
}

/* The config checked with every number at grid point k of its own grid (the last
 * point when k is past it). */
static int check_config_at(const struct plan_opts *o, uint64_t k, struct exp_config **cfg,
			   const struct exp_variant **v, struct sim_diag *diag)
{
	double outer[PLAN_OUTER_MAX];
	for (size_t i = 0; i < o->n_outer; i++)
		outer[i] = plan_grid_value(&o->outer_grids[i], k < o->outer_grids[i].n ? k : o->outer_grids[i].n - 1);
	return config_at(o, outer, plan_grid_value(&o->grid, k < o->grid.n ? k : o->grid.n - 1), cfg, v, diag);
}

/* Moves a mix's probes into res (their outer values are set) and records its outcome. */
static int take_mix(struct plan_result *res, struct plan_result *sub, struct plan_mix *mix)
{
	struct plan_point *pts = realloc(res->points, (res->n_points + sub->n_points + 1) * sizeof *pts);
	if (!pts)
		return -SIM_ENOMEM;
	res->points = pts;
	memcpy(pts + res->n_points, sub->points, sub->n_points * sizeof *pts);
	res->n_points += sub->n_points;
	mix->found = sub->found;
	mix->answer = sub->answer;
	mix->obj_mean = mix->obj_ci95 = NAN;
	for (size_t i = 0; sub->found && i < sub->n_points; i++)
		if (sub->points[i].value == sub->answer) {
			mix->obj_mean = sub->points[i].obj_mean;
			mix->obj_ci95 = sub->points[i].obj_ci95;
		}
	return 0;
}

/* The best mix: a found one with the least objective (NaN never beats a number;
 * ties keep the first). */
static long best_mix(const struct plan_result *res)
{
	long best = -1;
	for (size_t m = 0; m < res->n_mixes; m++) {
		const struct plan_mix *x = &res->mixes[m];
		if (!x->found)
			continue;
		if (best < 0 || (!isnan(x->obj_mean) && (isnan(res->mixes[best].obj_mean) ||
							  x->obj_mean < res->mixes[best].obj_mean)))
			best = (long)m;
	}
	return best;
}

static int search_mixes(const struct plan_opts *o, struct probe_ctx *c, struct plan_result *res)
{
	int rc = 0;
	for (size_t m = 0; m < res->n_mixes && !rc; m++) {
		struct plan_result sub = { 0 };
		mix_values(o, m, c->outer);
		memcpy(res->mixes[m].outer, c->outer, sizeof c->outer);
		rc = plan_bisect(&o->grid, probe_config, c, o->report, o->report_arg, &sub);
		int rc2 = take_mix(res, &sub, &res->mixes[m]);
		rc = rc ? rc : rc2;
		plan_result_fini(&sub);
	}
	res->best = best_mix(res);
	res->found = res->best >= 0;
	res->answer = res->found ? res->mixes[res->best].answer : NAN;
	for (size_t i = 0; i < PLAN_OUTER_MAX; i++)
		res->answer_outer[i] = res->found && i < o->n_outer ? res->mixes[res->best].outer[i] : NAN;
	return rc;
}

int plan_run(const struct plan_opts *o, struct sim_trace *trace, struct plan_result *res,
	     struct sim_diag *diag)
{
	struct probe_ctx c = {.o = o, .trace = trace, .diag = diag, .seeds = o->seeds, .n_seeds = o->n_seeds};
	struct exp_config *cfg = NULL;
	const struct exp_variant *v;
	uint64_t *own_seeds = NULL; /* the config's, when o->seeds is NULL */
	int rc;

	memset(res, 0, sizeof *res);
	res->best = -1;
	if ((rc = check_paths(o, diag)))
		return rc;
	res->n_mixes = count_mixes(o);
	if (!res->n_mixes)
		return sim_diag_add(diag, "--range", "expected at most %d mixes of the outer numbers' values (larger steps)",
				    PLAN_MIXES_MAX);
	/* Bad values fail here, before minutes of runs: LO, HI and one step. */
	uint64_t max_n = o->grid.n;
	for (size_t i = 0; i < o->n_outer; i++)
		max_n = o->outer_grids[i].n > max_n ? o->outer_grids[i].n : max_n;
	uint64_t check[3] = {0, max_n - 1, 1};
	for (int i = 0; i < 3; i++) {
		if ((rc = check_config_at(o, check[i], &cfg, &v, diag)))
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
	res->mixes = calloc(res->n_mixes, sizeof *res->mixes);
	if (!c.runs || !res->mixes) {
		free(c.runs);
		rc = -SIM_ENOMEM;
		goto out_seeds;
	}
	rc = search_mixes(o, &c, res);
	free(c.runs);
out_seeds:
	free(own_seeds);
	return rc;
}

/* ---- curve output ---- */

/* By the outer values (unused ones are 0 in every point), then the value. */
static int point_cmp(const void *pa, const void *pb)
{
	const struct plan_point *a = pa, *b = pb;
	for (int i = 0; i < PLAN_OUTER_MAX; i++)
		if (a->outer[i] != b->outer[i])
			return (a->outer[i] > b->outer[i]) - (a->outer[i] < b->outer[i]);
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

/* 1 when p is the best mix's answer. */
static int is_best(const struct plan_opts *o, const struct plan_result *r, const struct plan_point *p)
{
	if (r->best < 0 || p->value != r->answer)
		return 0;
	for (size_t i = 0; i < o->n_outer; i++)
		if (p->outer[i] != r->answer_outer[i])
			return 0;
	return 1;
}

int plan_write_csv(const struct plan_opts *o, const struct plan_result *r, FILE *f)
{
	int mix = o->n_outer > 0 || o->minimize_on;
	struct plan_point *sorted = malloc((r->n_points ? r->n_points : 1) * sizeof *sorted);
	if (!sorted)
		return -SIM_ENOMEM;
	memcpy(sorted, r->points, r->n_points * sizeof *sorted);
	qsort(sorted, r->n_points, sizeof *sorted, point_cmp);
	if (mix) {
		for (size_t i = 0; i < o->n_outer; i++)
			fprintf(f, "%s,", o->outer_paths[i]);
		fprintf(f, "%s,mean,ci95,judged,pass,seeds,objective,objective_ci95,best\n", o->json_path);
	} else {
		fprintf(f, "value,mean,ci95,judged,pass,seeds\n");
	}
	for (size_t i = 0; i < r->n_points; i++) {
		const struct plan_point *p = &sorted[i];
		for (size_t k = 0; mix && k < o->n_outer; k++)
			csv_num(f, p->outer[k], ",");
		csv_num(f, p->value, ",");
		csv_num(f, p->mean, ",");
		csv_num(f, p->ci95, ",");
		csv_num(f, p->judged, ",");
		fprintf(f, "%d,%zu%s", p->pass, p->n_seeds, mix ? "," : "\n");
		if (mix) {
			csv_num(f, p->obj_mean, ",");
			csv_num(f, p->obj_ci95, ",");
			fprintf(f, "%d\n", is_best(o, r, p));
		}
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

/* The mix plot's data (plan_mix.gp): a block a value of the second outer number. */
static int write_mix_data(FILE *f, const struct plan_opts *o, const struct plan_result *r, char *x2vals,
			  size_t cap, int *nblocks)
{
	size_t n2 = o->n_outer > 1 ? o->outer_grids[1].n : 1;
	x2vals[0] = 0;
	*nblocks = 0;
	for (size_t b = 0; b < n2; b++) {
		double v2 = o->n_outer > 1 ? plan_grid_value(&o->outer_grids[1], b) : 0;
		if (*nblocks)
			fputs("\n\n", f);
		size_t len = strlen(x2vals);
		snprintf(x2vals + len, cap - len, "%s%.12g", b ? " " : "", v2);
		for (size_t m = 0; m < r->n_mixes; m++) {
			const struct plan_mix *x = &r->mixes[m];
			if ((o->n_outer > 1 && x->outer[1] != v2) || !x->found)
				continue;
			fprintf(f, "%.17g %.17g ", x->outer[0], x->answer);
			csv_num(f, x->obj_mean, " ");
			csv_num(f, x->obj_ci95, " ");
			fprintf(f, "%d\n", (long)m == r->best);
		}
		fputs("# end of block\n", f); /* a block is never empty for gnuplot's index */
		(*nblocks)++;
	}
	return ferror(f) ? -SIM_EIO : 0;
}

int plan_plot_mix(const char *png, const struct plan_opts *o, const struct plan_result *r, struct sim_diag *diag)
{
	const char *adir = plot_analysis_dir(NULL);
	char tmpl[1024], *data = NULL, x2vals[4096], best[1024] = "", best2[1024] = "";
	char qdata[2100], qpng[2100], qadir[2100], q1[600], q2[600], qin[600], qbest[2100], qbest2[2100];
	char qx2[8300];
	char vars[24000];
	int nblocks = 0, rc;

	if (o->n_outer < 1 || o->n_outer > 2 || !o->minimize_on)
		return sim_diag_add(diag, "--plot", "expected 2 or 3 numbers varied and --minimize for a mix plot");
	snprintf(tmpl, sizeof tmpl, "%s/plan_mix.gp", adir);
	if (access(tmpl, R_OK) != 0) {
		sim_diag_add(diag, tmpl, "plot template not found (set GPUSCHED_ANALYSIS_DIR to the analysis/ folder)");
		return -SIM_EIO;
	}
	FILE *f = sim_out_tmp_fopen(png, &data, diag);
	if (!f)
		return -SIM_EIO;
	rc = write_mix_data(f, o, r, x2vals, sizeof x2vals, &nblocks);
	int err = sim_out_close(f);
	if (!rc && err) {
		sim_diag_add(diag, png, "cannot write the plot's data: %s", sim_out_write_error(err));
		rc = -SIM_EIO;
	}
	if (!rc) {
		/* best: the outer values; best2: the bisected one and the objective (two
		 * title lines, so that long paths fit the width) */
		for (size_t i = 0; r->found && i < o->n_outer; i++) {
			size_t n = strlen(best);
			snprintf(best + n, sizeof best - n, "%s%s = %.12g", i ? ", " : "", o->outer_paths[i],
				 r->answer_outer[i]);
		}
		if (r->found)
			snprintf(best2, sizeof best2, "%s = %.12g: %s %.6g", o->json_path, r->answer,
				 sim_summary_name(o->minimize), r->mixes[r->best].obj_mean);
		plot_gp_quote(qdata, sizeof qdata, data);
		plot_gp_quote(qpng, sizeof qpng, png);
		plot_gp_quote(qadir, sizeof qadir, adir);
		plot_gp_quote(q1, sizeof q1, o->outer_paths[0]);
		plot_gp_quote(q2, sizeof q2, o->n_outer > 1 ? o->outer_paths[1] : "");
		plot_gp_quote(qin, sizeof qin, o->json_path);
		plot_gp_quote(qbest, sizeof qbest, best);
		plot_gp_quote(qbest2, sizeof qbest2, best2);
		plot_gp_quote(qx2, sizeof qx2, x2vals);
		snprintf(vars, sizeof vars,
			 "datafile=%s; outfile=%s; analysis_dir=%s; x1name=%s; x2name=%s; inner=%s; nblocks=%d; "
			 "x2vals=%s; objective='%s'; ounit='%s'; metric='%s'; cmp='%s'; target=%.17g; found=%d; "
			 "best=%s; best2=%s; nseeds=%zu",
			 qdata, qpng, qadir, q1, q2, qin, nblocks, qx2, sim_summary_name(o->minimize),
			 sim_summary_unit(o->minimize), sim_summary_name(o->target.metric), plan_cmp_text(o->target.cmp),
			 o->target.bound, r->found, qbest, qbest2, r->n_points ? r->points[0].n_seeds : 0);
		rc = plot_run_gnuplot("gnuplot", tmpl, vars, png, diag);
	}
	unlink(data);
	free(data);
	return rc;
}
