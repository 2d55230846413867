/* experiments/plan.h: capacity planning (gpusched plan): the smallest value of one
 * number of a config (e.g. cluster.flavors[0].nodes) whose runs meet a target on a
 * summary metric (e.g. p95_wait_s<=3600).
 *
 * The search assumes monotonicity: if a value meets the target, every larger value
 * does (more capacity, the metric no worse). It probes the grid LO, LO+STEP, ..., HI:
 * first HI (if it fails, no value does), then LO (if it passes, it is the answer),
 * then bisects between the largest failing and the smallest passing value seen, so a
 * grid of n points costs at most 2 + ceil(log2(n - 1)) probes. A probe is every seed
 * of one variant, run in memory (exp_run_summary); its value is judged on the mean of
 * the metric over the seeds, or with `conservative` on the bound of the 95% CI on the
 * unfavourable side (mean + ci95 for <, <=; mean - ci95 for >, >=).
 *
 * A probe fails, whatever the mean, when a seed has no value for the metric (NaN, e.g.
 * no job started) or when jobs were not served in some seed (rejected or unfinished
 * jobs: the waits of the served ones would flatter the capacity), unless the target's
 * metric is itself one of the job counts (jobs, completed, rejected, unfinished).
 *
 * A capacity mix (plan_opts.n_outer > 0): up to PLAN_OUTER_MAX more numbers take every
 * combination of their grids' values, the number above is bisected for each, and the
 * answer is the mix whose smallest passing value has the least mean of an objective
 * metric (plan_opts.minimize; e.g. cost_capacity).
 */
#ifndef EXPERIMENTS_PLAN_H
#define EXPERIMENTS_PLAN_H

#include <stdint.h>
#include <stdio.h>

#include "../sim/job.h"
#include "../sim/metrics.h"
#include "../sim/sim.h"

enum plan_cmp { PLAN_LE, PLAN_LT, PLAN_GE, PLAN_GT };

struct plan_target {
	enum sim_summary_field metric;
	enum plan_cmp cmp;
	double bound; /* in the metric's unit (sim_summary_unit) */
};

/* "METRIC<=X", "METRIC>=X", "METRIC<X", "METRIC>X" (spaces allowed around the parts);
 * METRIC a name of sim/metrics.h, X a finite number. Returns 0, or -SIM_EPARSE with
 * "--target: expected ..., got ..." in diag. */
int plan_target_parse(const char *s, struct plan_target *t, struct sim_diag *diag);
/* 1 when x meets the target; NaN never does. */
int plan_target_met(const struct plan_target *t, double x);
/* "<=", "<", ">=", ">". */
const char *plan_cmp_text(enum plan_cmp c);

/* The values probed: LO + k STEP for k = 0, 1, ... while <= HI, and HI itself last when
 * the step does not land on it. Values are rounded to 12 significant digits so that
 * 0.1 steps give 0.3, not 0.30000000000000004. */
struct plan_grid {
	double lo, hi, step;
	uint64_t n; /* points, >= 1 */
};

/* Returns 0, or -SIM_EPARSE ("--range"/"--step": expected ...) when a bound is not
 * finite, LO > HI (empty range), STEP <= 0, or the grid has over 2^40 points. */
int plan_grid_init(struct plan_grid *g, double lo, double hi, double step, struct sim_diag *diag);
double plan_grid_value(const struct plan_grid *g, uint64_t k);

/* Mixes: up to this many numbers gridded around the bisected one (plan_opts). */
#define PLAN_OUTER_MAX 3
#define PLAN_MIXES_MAX 10000 /* combinations of the outer numbers' values */

/* One probed value. */
struct plan_point {
	double outer[PLAN_OUTER_MAX]; /* the outer numbers' values (plan_opts.outer_paths) */
	double value;                 /* the bisected number's value */
	double obj_mean, obj_ci95;    /* the objective's (plan_opts.minimize) mean and 95% CI; NaN: none */
	double mean, ci95; /* of the target's metric over the seeds with a value (NaN: none) */
	double judged;	   /* what was compared with the target: mean, or the CI bound */
	size_t n_seeds;
	size_t n_nan;	 /* seeds without a value for the metric */
	double unserved; /* rejected + unfinished jobs, the largest over the seeds */
	int pass;
};

/* One combination of the outer numbers and its bisection's outcome. */
struct plan_mix {
	double outer[PLAN_OUTER_MAX];
	int found;                 /* 1: some value of the bisected number met the target */
	double answer;             /* the smallest such value */
	double obj_mean, obj_ci95; /* the objective at the answer (NaN: not found, or none) */
};

struct plan_result {
	struct plan_point *points; /* in probe order; owned, plan_result_fini frees */
	size_t n_points;
	int found; /* 1: answer is the smallest passing grid value (of the best mix) */
	double answer;
	/* With outer numbers or an objective: every mix in grid order (owned), and the
	 * best one (-1: none found); answer_outer its outer values. Without: n_mixes 1. */
	struct plan_mix *mixes;
	size_t n_mixes;
	long best;
	double answer_outer[PLAN_OUTER_MAX];
};

void plan_result_fini(struct plan_result *r);

/* Fills p (value set by the caller) and p->pass for one value. Returns 0 or -SIM_E*. */
typedef int (*plan_probe_fn)(void *arg, struct plan_point *p);
/* Called after each probe, e.g. to print it; may be NULL. */
typedef void (*plan_report_fn)(void *arg, const struct plan_point *p);

/* The search over the grid described above. Appends every probe to res (zeroed by the
 * caller); stops at the first probe error and returns it (the points so far stay). */
int plan_bisect(const struct plan_grid *g, plan_probe_fn probe, void *probe_arg, plan_report_fn report,
		void *report_arg, struct plan_result *res);

struct plan_opts {
	const char *config_path; /* names the config in messages, anchors its relative paths */
	const char *config_text; /* the config file's bytes */
	size_t config_len;
	const char *json_path; /* the number varied, a sweep-style path */
	struct plan_grid grid;
	/* A capacity mix: the numbers at outer_paths take every combination of their
	 * grids' values (the first varying slowest), and for each the number at
	 * json_path is bisected as above. */
	size_t n_outer; /* <= PLAN_OUTER_MAX */
	const char *outer_paths[PLAN_OUTER_MAX];
	struct plan_grid outer_grids[PLAN_OUTER_MAX];
	/* With minimize_on, a summary metric to minimise over the mixes' answers (with
	 * outer numbers the caller must give one). The best mix is the one whose answer has
	 * the least mean of it over the seeds (NaN never; ties: the first in grid order):
	 * this assumes that, other numbers fixed, the objective is least at the smallest
	 * value of json_path meeting the target (more capacity costs more). */
	int minimize_on;
	enum sim_summary_field minimize;
	struct plan_target target;
	const char *variant;   /* variant name; NULL: the config must have no sweep */
	const uint64_t *seeds; /* NULL: the config's seeds */
	size_t n_seeds;
	int conservative;      /* judge on the CI bound instead of the mean */
	plan_report_fn report; /* may be NULL */
	void *report_arg;
};

/* Checks the options (each path holds a number, no path is given twice, at most
 * PLAN_MIXES_MAX mixes, the variant exists, the config is valid with every number at
 * its LO, at its HI and at its second grid value), then searches each mix. The trace is loaded by the
 * caller, once; every run binds it again. Returns 0 (res->found says whether a value
 * met the target), -SIM_EPARSE (bad input, diag says what), or another -SIM_E*. */
int plan_run(const struct plan_opts *o, struct sim_trace *trace, struct plan_result *res,
	     struct sim_diag *diag);

/* The curve as CSV: header "value,mean,ci95,judged,pass,seeds" (mean, ci95 and judged
 * of the target's metric, pass 1 or 0), one row a probed value, sorted by value.
 * With outer numbers or an objective (o->n_outer > 0 or o->minimize_on) the header
 * is instead "PATH_1,...,PATH_k,PATH,mean,ci95,judged,pass,seeds,objective,
 * objective_ci95,best" (the outer paths, then the bisected one; best 1 on the best
 * mix's answer), the rows sorted by the outer values, then the value. */
int plan_write_csv(const struct plan_opts *o, const struct plan_result *r, FILE *f);

/* PNG of a curve CSV through gnuplot on analysis/plan.gp (template folder as
 * plot_analysis_dir: env GPUSCHED_ANALYSIS_DIR, else the build's). Returns 0, or
 * -SIM_EEXTERNAL (gnuplot missing or failed, or no image) / -SIM_EIO with diag. */
int plan_plot(const char *csv, const char *png, const struct plan_opts *o, const struct plan_result *r,
	      struct sim_diag *diag);

/* PNG of a mix (1 or 2 outer numbers, an objective) through gnuplot on
 * analysis/plan_mix.gp: the objective at each mix's answer against the first outer
 * number, a curve a value of the second, each point labelled with its answer, the
 * best marked. The data goes through a temporary beside the PNG. Errors as plan_plot. */
int plan_plot_mix(const char *png, const struct plan_opts *o, const struct plan_result *r, struct sim_diag *diag);

#endif
