/* analysis/compare.h: two results files side by side (gpusched compare BASE.h5 NEW.h5).
 *
 * Runs are grouped by variant in each file exactly as `gpusched report` groups them
 * (report_variants: the run name without its "-s<seed>"); a variant of BASE is matched
 * with the variant of the same name in NEW. When the files share no name and each
 * holds exactly one variant, those two are matched (comparing two policies' files).
 * For each matched variant and each /summary metric both files hold (BASE's order),
 * the result has both sides' mean and 95% half-width over seeds (as report prints
 * them), the change NEW - BASE (absolute, and in % of |BASE|), and a 95% confidence
 * interval for the change by Welch's t (unequal variances, Welch-Satterthwaite
 * degrees of freedom); with one run on either side there is no interval.
 *
 * When one file is a simulation and the other a real run (root attribute mode, schema
 * 1.4), every metric row also has the simulator's error against the real run,
 * 100 (sim - real) / |real|, whichever side is the real one.
 *
 * Rules (--fail-if) are judged on every matched variant: see compare_rule_parse and
 * compare_judge. Everything reads the files through analysis/h5read.h only.
 */
#ifndef ANALYSIS_COMPARE_H
#define ANALYSIS_COMPARE_H

#include <stdio.h>

#include "h5read.h"

#define COMPARE_METRIC_MAX 64

enum compare_op { COMPARE_GT, COMPARE_GE, COMPARE_LT, COMPARE_LE };

/* METRIC OP VALUE[%]: OP one of > >= < <=, VALUE a decimal number with an optional
 * sign, blanks allowed between the parts. With '%' the rule looks at the relative
 * change 100 (NEW - BASE) / |BASE| (in %), without it at the absolute change NEW - BASE
 * in the metric's own unit (utilization is a fraction: 0.02 is 2 points). The rule
 * FAILS when the change compares true: 'p95_wait_s>+5%' fails when p95 wait rose by
 * more than 5%, 'utilization<-2%' when utilization fell by more than 2%,
 * 'mean_wait_s>+60' when mean wait rose by more than 60 s. */
struct compare_rule {
	char metric[COMPARE_METRIC_MAX];
	enum compare_op op;
	double threshold; /* metric units, or percent when relative */
	int relative;
	char text[128]; /* the rule as written (cut at 127 bytes), for messages */
};

/* 0, or -SIM_EINVAL with "malformed rule '...': <why>" in diag. The metric name is
 * only checked for its form ([a-z0-9_]+); compare_files checks that it exists. */
int compare_rule_parse(const char *text, struct compare_rule *out, struct sim_diag *diag);

/* One side of one metric over one variant's runs whose value is not NaN. */
struct compare_stat {
	size_t n;    /* runs with a value */
	double mean; /* NaN when n = 0 */
	double sd;   /* sample standard deviation (n - 1); 0 when n = 1, NaN when n = 0 */
	double ci95; /* 95% half-width, Student t with n - 1 degrees of freedom; 0 when n = 1 */
};

/* The change NEW - BASE of one metric. */
struct compare_diff {
	double change; /* new.mean - base.mean; NaN when either has no value */
	double pct;    /* 100 change / |base.mean|; +-inf when base is 0 and change is not, 0 when both are */
	int has_ci;    /* 1 when both sides have 2+ runs with a value */
	double lo, hi; /* 95% interval of the change (Welch), when has_ci */
	double df;     /* Welch-Satterthwaite degrees of freedom; n1 + n2 - 2 when both sd are 0 */
};

/* Welch's interval: se = sqrt(sd1^2/n1 + sd2^2/n2), df = se^4 / ((sd1^2/n1)^2/(n1-1) +
 * (sd2^2/n2)^2/(n2-1)), change +- t(0.975, df) se (gsl_cdf_tdist_Pinv). Both sd 0:
 * the interval is the point. */
void compare_welch(const struct compare_stat *base, const struct compare_stat *nw, struct compare_diff *out);

enum compare_verdict { COMPARE_PASS, COMPARE_FAIL, COMPARE_NA };

/* A rule judged on one matched variant. */
struct compare_check {
	size_t rule;	 /* index into the rules */
	size_t variant;	 /* index into compare_result.v */
	size_t metric;	 /* index into compare_result.metric */
	double value;	 /* the change the rule looks at: absolute, or % when relative */
	int breach;	 /* the point estimate compares true */
	int significant; /* the interval excludes 0: 1, 0, or -1 without an interval */
	enum compare_verdict verdict;
	const char
	    *note; /* static text on NA, a missing side or the fallback to the point estimate; or NULL */
};

struct compare_metric_row {
	struct compare_stat base, nw;
	struct compare_diff d;
	/* With a simulation against a real run (compare_result.real_side): the simulator's
	 * error 100 (sim - real) / |real| in %, +-inf when real is 0 and sim is not, 0 when
	 * both are; NaN when a side has no value, or when both files are of one mode. */
	double sim_error_pct;
};

/* Which file is the real run when one is a simulation and the other a real run. */
enum compare_real_side { COMPARE_SAME_MODE, COMPARE_REAL_BASE, COMPARE_REAL_NEW };

struct compare_variant {
	const char *base_name, *new_name; /* borrowed from the result's variant lists */
	size_t base_runs, new_runs;
	struct compare_metric_row *m; /* n_metrics */
};

/* What compare_files found; free with compare_result_free (NULL is a no-op). */
struct compare_result {
	const char *base_path, *new_path; /* borrowed from the files */
	size_t base_variants, new_variants, base_n_runs, new_n_runs;
	size_t n_metrics;
	char **metric, **unit; /* n_metrics each, BASE's order and units */
	size_t n_variants;     /* matched */
	struct compare_variant *v;
	int by_position;	      /* 1: the files' only variants were matched though their names differ */
	enum compare_real_side real_side; /* COMPARE_SAME_MODE: both simulations (or both real) */
	const char *real_backend;	  /* the real file's backend ("" when absent); borrowed */
	double real_time_scale;		  /* the real file's time_scale; NaN when absent */
	char **only_base, **only_new; /* variant names in one file only, NULL-terminated */
	const struct compare_rule *rules; /* borrowed */
	size_t n_rules;
	int significant;	      /* --significant */
	struct compare_check *checks; /* n_rules x n_variants, rule-major */
	size_t n_checks, n_failed;
	/* private: the files' variant groupings (names are borrowed from them) */
	void *priv_;
};

/* Compares two open files. significant 0: a rule fails when its point estimate
 * breaches (the change compares true); 1: only when, moreover, the change's interval
 * excludes 0 -- a variant with one run on either side has no interval and falls back
 * to the point estimate (noted). On either side, a rule whose metric has no value
 * (NaN: e.g. no job completed) fails when the other side has one and is n/a when
 * neither does. Returns 0 (rules judged, *out set), or -SIM_EINVAL with a message:
 * no variant in common, a rule's metric unknown or missing from a file; errors of
 * the reader as they come (-SIM_EPARSE, -SIM_ENOMEM, ...). */
int compare_files(const struct h5read_file *base, const struct h5read_file *nw,
		  const struct compare_rule *rules, size_t n_rules, int significant,
		  struct compare_result **out, struct sim_diag *diag);
void compare_result_free(struct compare_result *r);

/* The table for people: a header naming the files, one block a matched variant (one
 * row a metric: unit, base mean +- half-width, new, change, change %, 95% interval of
 * the change), then the rule checks and a verdict line. A simulation against a real
 * run has a line saying which is which before the blocks ("BASE is a simulation, NEW a
 * real run (backend cpu, time scale 100): change = real - sim; sim error [%] = (sim -
 * real) / real") and a column sim_error[%] after change[%]. 0 or -SIM_ENOMEM. */
int compare_print(const struct compare_result *r, FILE *out);
/* The same as one JSON object (analysis/SCHEMA.md would list it: see cmd_compare's
 * --help); NaN and infinities are null. A simulation against a real run adds
 * "sim_vs_real": {"real": "base" or "new", "backend", "time_scale"} and each metric's
 * "sim_error_pct"; files of one mode give exactly the keys they gave before. *out is
 * malloc'd (caller frees). */
int compare_json(const struct compare_result *r, char **out);
/* Prints one line a failing check ("rule 'x' failed on variant v: ...") to out. */
void compare_print_failures(const struct compare_result *r, const char *prefix, FILE *out);

#endif
