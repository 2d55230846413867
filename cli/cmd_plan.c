/* cli/cmd_plan.c: gpusched plan CONFIG --target T --vary PATH --range LO:HI [...]
 * Capacity planning by bisection (experiments/plan.h has the rules). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../experiments/config.h"
#include "../experiments/inputs.h"
#include "../experiments/plan.h"
#include "../sim/jsonmsg.h"
#include "../sim/outpath.h"
#include "../traces/native.h"
#include "cmd.h"

#define PLAN_SEEDS_MAX 10000 /* --seeds N: N runs a probe */

static const char plan_usage[] =
    "usage: gpusched plan CONFIG.json --target 'METRIC<=X' --vary PATH --range LO:HI\n"
    "                     [--step S] [--seeds N] [--variant NAME] [--conservative]\n"
    "                     [-o CURVE.csv] [--plot CURVE.png]\n"
    "       gpusched plan CONFIG.json --target 'METRIC<=X' --minimize METRIC\n"
    "                     --vary PATH1 --range LO:HI [--step S] ... --vary PATH --range LO:HI\n"
    "                     [--step S] [...]   (a capacity mix: 2 to 4 numbers)\n"
    "       (options may come before or after the config; --opt=VALUE works as --opt VALUE,\n"
    "       -oCURVE.csv and --output for -o; -- ends the options)\n"
    "\n"
    "Finds the smallest value of the config's number at PATH in [LO, HI] whose runs meet\n"
    "the target, by bisection: it assumes that a larger value never makes the metric\n"
    "worse (more capacity). HI is probed first (if it fails, no value does: exit 1), then\n"
    "LO (if it passes, LO is the answer), then the middle of what is left. A probe runs\n"
    "every seed of the config in memory and judges the metric's mean over the seeds. A\n"
    "probe fails when a seed has no value for the metric, or leaves jobs rejected or\n"
    "unfinished (unless the metric is one of those job counts).\n"
    "\n"
    "  --target T       METRIC<=X, METRIC<X, METRIC>=X or METRIC>X; METRIC a summary\n"
    "                   metric (analysis/SCHEMA.md), e.g. p95_wait_s<=3600 (seconds)\n"
    "  --vary PATH      the number varied, as a sweep path: cluster.flavors[0].nodes;\n"
    "                   it must exist in the config, under cluster or policies\n"
    "  --range LO:HI    values probed: LO, LO+S, ..., HI (HI also when off the step)\n"
    "  --step S         step between values (default 1: LO and HI must then be integers)\n"
    "                   --range and --step belong to the --vary before them\n"
    "  --minimize M     a summary metric to minimise, e.g. cost_capacity. With several\n"
    "                   --vary, every combination of the values of all but the last is\n"
    "                   run (at most 10000), the last is bisected for each, and the\n"
    "                   answer is the mix whose smallest passing value has the least M\n"
    "  --seeds N        run seeds 1..N at each value (default: the config's seeds)\n"
    "  --variant NAME   the sweep variant to plan (required when the config has a sweep;\n"
    "                   PATH must not be swept)\n"
    "  --conservative   judge on the 95% CI bound (mean + half-width for < and <=,\n"
    "                   mean - half-width for > and >=) instead of the mean\n"
    "  -o, --output CURVE.csv  every probed value and its metric, sorted by value\n"
    "                   (value,mean,ci95,judged,pass,seeds; with --minimize or a mix:\n"
    "                   PATH1,...,PATH,mean,ci95,judged,pass,seeds,objective,\n"
    "                   objective_ci95,best)\n"
    "  --plot CURVE.png the curve through gnuplot (analysis/plan.gp), with the target;\n"
    "                   for a mix of 2 or 3 numbers the objective of each mix's answer\n"
    "                   (analysis/plan_mix.gp)\n"
    "\n"
    "exit codes: 0 a value meets the target, 1 none does (or a runtime failure), 2 bad input\n";

#define PLAN_VARY_MAX (PLAN_OUTER_MAX + 1)

struct plan_args {
	const char *config, *target, *seeds, *variant, *csv, *png, *minimize;
	const char *vary[PLAN_VARY_MAX], *range[PLAN_VARY_MAX], *step[PLAN_VARY_MAX]; /* in --vary order */
	size_t n_vary;
	int conservative;
};

/* --range and --step set the last --vary's; 0, or -1 (printed). */
static int set_vary_part(struct plan_args *a, const char **part, const char *opt)
{
	if (!a->n_vary) {
		cmd_usage_error("plan", plan_usage, "%s must follow the --vary it belongs to", opt);
		return -1;
	}
	part[a->n_vary - 1] = optarg;
	return 0;
}

/* A whole-string number; 0 or -1. */
static int parse_num(const char *s, double *x)
{
	char *end;
	errno = 0;
	*x = strtod(s, &end);
	return end != s && !*end && !errno && isfinite(*x) ? 0 : -1;
}

/* Returns 0, 1 for --help, or -1 on a usage error (printed). */
static int parse_args(int argc, char **argv, struct plan_args *a)
{
	static const struct option longs[] = {
		{ "help", no_argument, NULL, 'h' },	       { "conservative", no_argument, NULL, 'C' },
		{ "target", required_argument, NULL, 't' },  { "vary", required_argument, NULL, 'v' },
		{ "range", required_argument, NULL, 'r' },   { "step", required_argument, NULL, 's' },
		{ "seeds", required_argument, NULL, 'n' },   { "variant", required_argument, NULL, 'V' },
		{ "output", required_argument, NULL, 'o' },  { "plot", required_argument, NULL, 'p' },
		{ "minimize", required_argument, NULL, 'm' }, { NULL, 0, NULL, 0 },
	};
	memset(a, 0, sizeof *a);
	optind = 0; /* glibc: a full restart of getopt's scan */
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":ho:", longs, NULL)) != -1) {
		switch (c) {
		case 'h':
			return 1;
		case 'C':
			a->conservative = 1;
			break;
		case 't':
			a->target = optarg;
			break;
		case 'v':
			if (a->n_vary == PLAN_VARY_MAX) {
				cmd_usage_error("plan", plan_usage, "--vary: at most %d numbers", PLAN_VARY_MAX);
				return -1;
			}
			a->vary[a->n_vary++] = optarg;
			break;
		case 'r':
			if (set_vary_part(a, a->range, "--range"))
				return -1;
			break;
		case 's':
			if (set_vary_part(a, a->step, "--step"))
				return -1;
			break;
		case 'm':
			a->minimize = optarg;
			break;
		case 'n':
			a->seeds = optarg;
			break;
		case 'V':
			a->variant = optarg;
			break;
		case 'o':
			a->csv = optarg;
			break;
		case 'p':
			a->png = optarg;
			break;
		default:
			cmd_getopt_error("plan", plan_usage, c, argv);
			return -1;
		}
	}
	for (int i = optind; i < argc; i++) {
		if (a->config) {
			cmd_usage_error("plan", plan_usage, "unexpected argument '%s'", argv[i]);
			return -1;
		}
		a->config = argv[i];
	}
	const char *missing = !a->config   ? "CONFIG"
			      : !a->target ? "--target"
			      : !a->n_vary ? "--vary"
					   : NULL;
	if (missing) {
		cmd_usage_error("plan", plan_usage, "%s is required", missing);
		return -1;
	}
	for (size_t i = 0; i < a->n_vary; i++)
		if (!a->range[i]) {
			cmd_usage_error("plan", plan_usage, "--range is required for --vary %s", a->vary[i]);
			return -1;
		}
	if (a->n_vary > 1 && !a->minimize) {
		cmd_usage_error("plan", plan_usage, "--minimize is required with %zu --vary (a capacity mix)",
				a->n_vary);
		return -1;
	}
	return 0;
}

/* One --vary's --range and --step into its grid; messages in diag. */
static int read_grid(const char *range, const char *step_arg, struct plan_grid *g, struct sim_diag *diag)
{
	double lo, hi, step = 1;
	const char *colon = strchr(range, ':');
	char los[64];

	if (!colon || (size_t)(colon - range) >= sizeof los)
		return sim_diag_add(diag, "--range", "expected LO:HI (e.g. 4:64), got '%s'", range);
	memcpy(los, range, (size_t)(colon - range));
	los[colon - range] = 0;
	if (parse_num(los, &lo) || parse_num(colon + 1, &hi))
		return sim_diag_add(diag, "--range", "expected LO:HI, two numbers (e.g. 4:64), got '%s'", range);
	if (step_arg && parse_num(step_arg, &step))
		return sim_diag_add(diag, "--step", "expected a number > 0, got '%s'", step_arg);
	if (!step_arg && (lo != floor(lo) || hi != floor(hi)))
		return sim_diag_add(diag, "--range",
				    "expected integers LO:HI without --step, got '%s' (give "
				    "--step for decimal values)",
				    range);
	return plan_grid_init(g, lo, hi, step, diag);
}

/* The metric of --minimize; 0 or -SIM_EPARSE. */
static int read_minimize(const char *name, struct plan_opts *o, struct sim_diag *diag)
{
	for (int f = 0; f < SIM_SUM_COUNT_; f++)
		if (strcmp(name, sim_summary_name((enum sim_summary_field)f)) == 0) {
			o->minimize_on = 1;
			o->minimize = (enum sim_summary_field)f;
			return 0;
		}
	return sim_diag_add(diag, "--minimize", "expected a summary metric (analysis/SCHEMA.md, e.g. cost_capacity), got '%s'",
			    name);
}

/* --vary, --range, --step, --minimize, --seeds into the options: the last --vary is
 * the bisected number, those before it the outer ones. Messages in diag. */
static int read_numbers(const struct plan_args *a, struct plan_opts *o, uint64_t **seeds,
			struct sim_diag *diag)
{
	double n;
	int rc;
	o->n_outer = a->n_vary - 1;
	for (size_t i = 0; i < a->n_vary; i++) {
		struct plan_grid *g = i < o->n_outer ? &o->outer_grids[i] : &o->grid;
		if ((rc = read_grid(a->range[i], a->step[i], g, diag)))
			return rc;
		if (i < o->n_outer)
			o->outer_paths[i] = a->vary[i];
	}
	o->json_path = a->vary[a->n_vary - 1];
	if (a->minimize && (rc = read_minimize(a->minimize, o, diag)))
		return rc;
	if (a->png && o->n_outer > 2)
		return sim_diag_add(diag, "--plot", "expected at most 3 numbers varied for a plot, got %zu",
				    a->n_vary);
	if (a->seeds) {
		if (parse_num(a->seeds, &n) || n < 1 || n > PLAN_SEEDS_MAX || n != floor(n))
			return sim_diag_add(diag, "--seeds", "expected an integer in [1, %d], got '%s'",
					    PLAN_SEEDS_MAX, a->seeds);
		*seeds = malloc((size_t)n * sizeof **seeds);
		if (!*seeds)
			return -SIM_ENOMEM;
		for (size_t i = 0; i < (size_t)n; i++)
			(*seeds)[i] = i + 1;
		o->seeds = *seeds;
		o->n_seeds = (size_t)n;
	}
	return 0;
}

/* What the search does, printed once the inputs passed their checks (before the first
 * probe's line). */
static void print_header(const struct plan_opts *o)
{
	for (size_t i = 0; i < o->n_outer; i++)
		printf("mix: %s over [%.12g, %.12g] (%llu values)\n", o->outer_paths[i], o->outer_grids[i].lo,
		       o->outer_grids[i].hi, (unsigned long long)o->outer_grids[i].n);
	if (o->minimize_on)
		printf("minimise: %s (%s) at each mix's answer\n", sim_summary_name(o->minimize),
		       sim_summary_unit(o->minimize));
	printf("plan: smallest %s in [%.12g, %.12g] (%llu values) with %s %s %.12g %s,\n"
	       "      judged on the %s over %zu seed%s\n",
	       o->json_path, o->grid.lo, o->grid.hi, (unsigned long long)o->grid.n,
	       sim_summary_name(o->target.metric), plan_cmp_text(o->target.cmp), o->target.bound,
	       sim_summary_unit(o->target.metric), o->conservative ? "95% CI bound" : "mean", o->n_seeds,
	       o->n_seeds == 1 ? "" : "s");
	if (o->conservative && o->n_seeds == 1)
		printf("      (one seed: no CI, --conservative judges the mean)\n");
}

struct printer {
	const struct plan_opts *o;
	int header_done;
};

static void print_probe(void *arg, const struct plan_point *p)
{
	struct printer *pr = arg;
	const struct plan_opts *o = pr->o;
	const char *unit = sim_summary_unit(o->target.metric);

	if (!pr->header_done++)
		print_header(o);
	printf("probe ");
	for (size_t i = 0; i < o->n_outer; i++)
		printf("%s = %.12g, ", o->outer_paths[i], p->outer[i]);
	printf("%s = %.12g: %s mean %.6g %s", o->json_path, p->value, sim_summary_name(o->target.metric), p->mean,
	       unit);
	if (p->n_seeds > 1)
		printf(" +- %.3g (95%% CI, %zu seeds)", p->ci95, p->n_seeds);
	if (o->conservative)
		printf(", judged %.6g", p->judged);
	if (p->n_nan)
		printf(", no value in %zu of %zu seeds", p->n_nan, p->n_seeds);
	if (p->unserved > 0)
		printf(", %.0f jobs rejected or unfinished", p->unserved);
	printf(" -> %s", p->pass ? "pass" : "fail");
	if (o->minimize_on)
		printf("; %s %.6g %s", sim_summary_name(o->minimize), p->obj_mean, sim_summary_unit(o->minimize));
	printf("\n");
	fflush(stdout);
}

/* With outer numbers: each mix's outcome, one line each, after the probes. */
static void print_mixes(const struct plan_opts *o, const struct plan_result *r)
{
	for (size_t m = 0; o->n_outer && m < r->n_mixes; m++) {
		const struct plan_mix *x = &r->mixes[m];
		printf("mix ");
		for (size_t i = 0; i < o->n_outer; i++)
			printf("%s%s = %.12g", i ? ", " : "", o->outer_paths[i], x->outer[i]);
		if (x->found)
			printf(": smallest %s = %.12g, %s %.6g +- %.3g %s%s\n", o->json_path, x->answer,
			       sim_summary_name(o->minimize), x->obj_mean, x->obj_ci95, sim_summary_unit(o->minimize),
			       (long)m == r->best ? " (best)" : "");
		else
			printf(": no %s in the range meets the target\n", o->json_path);
	}
}

static void print_answer(const struct plan_opts *o, const struct plan_result *r)
{
	printf("answer: ");
	for (size_t i = 0; i < o->n_outer; i++)
		printf("%s = %.12g, ", o->outer_paths[i], r->answer_outer[i]);
	printf("%s = %.12g", o->json_path, r->answer);
	if (o->minimize_on)
		printf(" (%s %.6g %s)", sim_summary_name(o->minimize), r->mixes[r->best].obj_mean,
		       sim_summary_unit(o->minimize));
	printf(" (%zu probes)\n", r->n_points);
}

/* Writes the curve CSV (--csv; or, when only --plot asked for it, a temporary
 * beside the PNG that gnuplot reads and that is removed after), then the PNG: each
 * under a new temporary name, both renamed once both are written, so a failure
 * leaves the old files as they were. */
static int write_outputs(const struct plan_args *a, const struct plan_opts *o, const struct plan_result *r,
			 struct sim_diag *diag)
{
	if (!a->csv && !a->png)
		return 0;
	struct sim_out_stage stage = { 0 };
	char *scratch = NULL; /* the curve only gnuplot reads */
	const char *csv = NULL, *png = NULL;
	FILE *f = a->csv ? sim_out_stage_fopen(&stage, a->csv, &csv, diag) : sim_out_tmp_fopen(a->png, &scratch, diag);
	if (!a->csv)
		csv = scratch;
	int rc = f ? plan_write_csv(o, r, f) : -SIM_EIO;
	int err = f ? sim_out_close(f) : 0;
	if (err) {
		sim_diag_add(diag, a->csv ? a->csv : a->png, "cannot write the curve: %s", sim_out_write_error(err));
		rc = -SIM_EIO;
	}
	if (!rc && a->png) {
		int fd = sim_out_stage_add(&stage, a->png, &png, diag);
		rc = fd < 0	 ? -SIM_EIO
		     : o->n_outer ? (close(fd), plan_plot_mix(png, o, r, diag))
				  : (close(fd), plan_plot(csv, png, o, r, diag));
	}
	if (scratch)
		unlink(scratch);
	free(scratch);
	if (rc)
		sim_out_stage_abort(&stage);
	else
		rc = sim_out_stage_commit(&stage, diag);
	if (!rc && a->csv)
		printf("wrote %s\n", a->csv);
	if (!rc && a->png)
		printf("wrote %s\n", a->png);
	return rc;
}

/* -o and --plot: neither an input of the config (nor a device node, ...), nor each
 * other; nor the temporary beside the PNG when the curve goes only there. */
static int check_plan_outputs(const struct plan_args *a, const struct exp_config *cfg, struct sim_diag *diag)
{
	int rc = a->csv ? exp_check_output(cfg, a->csv, diag) : 0;
	if (!rc && a->png)
		rc = exp_check_output(cfg, a->png, diag);
	if (!rc && a->csv && a->png)
		rc = sim_out_check_distinct(a->csv, "-o", a->png, "--plot", diag);
	return rc;
}

int cmd_plan(int argc, char **argv)
{
	struct plan_args a;
	struct plan_opts o = {0};
	struct plan_result res = {0};
	struct exp_config *cfg = NULL;
	struct sim_trace *trace = NULL;
	struct sim_diag diag;
	uint64_t *seeds = NULL;
	char *text = NULL;
	size_t len = 0;
	double now;
	int rc, exit_code;

	rc = parse_args(argc, argv, &a);
	if (rc) {
		if (rc > 0)
			fputs(plan_usage, stdout);
		return rc > 0 ? GPUSCHED_EXIT_OK : GPUSCHED_EXIT_BADINPUT;
	}
	sim_diag_init(&diag, 20);
	o.variant = a.variant;
	o.conservative = a.conservative;
	struct printer pr = {.o = &o};
	o.report = print_probe;
	o.report_arg = &pr;
	if ((rc = plan_target_parse(a.target, &o.target, &diag)) ||
	    (rc = read_numbers(&a, &o, &seeds, &diag)))
		goto out;
	/* The whole config is checked as `run` does, then the path, before the trace loads. */
	if ((rc = sim_read_file(a.config, &text, &len, &diag)) ||
	    (rc = exp_config_parse(a.config, text, len, &cfg, &diag)) ||
	    (rc = exp_config_number_at(a.config, text, len, o.json_path, &now, &diag)))
		goto out;
	if ((rc = check_plan_outputs(&a, cfg, &diag)))
		goto out;
	o.config_path = a.config;
	o.config_text = text;
	o.config_len = len;
	if (!o.seeds) { /* the config's: named here for the header */
		o.seeds = cfg->seeds;
		o.n_seeds = cfg->n_seeds;
	}
	if ((rc = trace_native_read(cfg->trace_path, &trace, &diag)))
		goto out;
	rc = plan_run(&o, trace, &res, &diag);
	if (!rc)
		print_mixes(&o, &res);
	if (!rc && res.found)
		print_answer(&o, &res);
	else if (!rc && o.n_outer)
		printf("no mix meets %s %s %.12g: each mix's HI fails (%zu probes)\n", sim_summary_name(o.target.metric),
		       plan_cmp_text(o.target.cmp), o.target.bound, res.n_points);
	else if (!rc)
		printf("no value in [%.12g, %.12g] meets %s %s %.12g: HI fails (%zu probe%s)\n", o.grid.lo,
		       o.grid.hi, sim_summary_name(o.target.metric), plan_cmp_text(o.target.cmp),
		       o.target.bound, res.n_points, res.n_points == 1 ? "" : "s");
	if (!rc)
		rc = write_outputs(&a, &o, &res, &diag);
out:
	if (rc) {
		exp_config_locate_errors(cfg, &diag); /* a YAML config's policy errors get their line */
		sim_diag_print(&diag, stderr);
		if (!diag.count)
			fprintf(stderr, "gpusched plan: %s\n", sim_strerror(rc));
	}
	exit_code = rc ? cmd_exit_code(rc) : res.found ? GPUSCHED_EXIT_OK : GPUSCHED_EXIT_RUNTIME;
	plan_result_fini(&res);
	sim_trace_destroy(trace);
	exp_config_destroy(cfg);
	free(text);
	free(seeds);
	sim_diag_fini(&diag);
	return exit_code;
}
