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

/* One probed value. */
struct plan_point {
	double value;
	double mean, ci95; /* of the target's metric over the seeds with a value (NaN: none) */
	double judged;	   /* what was compared with the target: mean, or the CI bound */
	size_t n_seeds;
	size_t n_nan;	 /* seeds without a value for the metric */
	double unserved; /* rejected + unfinished jobs, the largest over the seeds */
	int pass;
};

struct plan_result {
	struct plan_point *points; /* in probe order; owned, plan_result_fini frees */
	size_t n_points;
	int found; /* 1: answer is the smallest passing grid value */
	double answer;
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
	struct plan_target target;
	const char *variant;   /* variant name; NULL: the config must have no sweep */
	const uint64_t *seeds; /* NULL: the config's seeds */
	size_t n_seeds;
	int conservative;      /* judge on the CI bound instead of the mean */
	plan_report_fn report; /* may be NULL */
	void *report_arg;
};

/* Checks the options (the path holds a number, the variant exists, the config is valid
 * at LO, HI and the second grid value), then searches. The trace is loaded by the
 * caller, once; every run binds it again. Returns 0 (res->found says whether a value
 * met the target), -SIM_EPARSE (bad input, diag says what), or another -SIM_E*. */
int plan_run(const struct plan_opts *o, struct sim_trace *trace, struct plan_result *res,
	     struct sim_diag *diag);

/* The curve as CSV: header "value,mean,ci95,judged,pass,seeds" (mean, ci95 and judged
 * of the target's metric, pass 1 or 0), one row a probed value, sorted by value. */
int plan_write_csv(const struct plan_result *r, FILE *f);

/* PNG of a curve CSV through gnuplot on analysis/plan.gp (template folder as
 * plot_analysis_dir: env GPUSCHED_ANALYSIS_DIR, else the build's). Returns 0, or
 * -SIM_EEXTERNAL (gnuplot missing or failed, or no image) / -SIM_EIO with diag. */
int plan_plot(const char *csv, const char *png, const struct plan_opts *o, const struct plan_result *r,
	      struct sim_diag *diag);

#endif
