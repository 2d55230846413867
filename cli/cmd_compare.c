/* cli/cmd_compare.c: gpusched compare BASE.h5 NEW.h5 [--fail-if RULE ...] [--significant] [--json] */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/compare.h"
#include "../analysis/h5read.h"
#include "cmd.h"

static const char compare_usage[] =
    "usage: gpusched compare BASE.h5 NEW.h5 [--fail-if RULE ...] [--significant] [--json]\n"
    "       (options may come anywhere; --fail-if=RULE works too; -- ends the options)\n"
    "\n"
    "Compares two results files (written by gpusched run). Runs are grouped by variant\n"
    "as gpusched report groups them (the run name without its \"-s<seed>\"), and each\n"
    "variant of BASE is matched with the variant of the same name in NEW; two files\n"
    "that share no variant name but hold one variant each are matched with each other.\n"
    "For every matched variant and every /summary metric (analysis/SCHEMA.md): base and\n"
    "new \"mean \u00b1 half-width\" of the 95% confidence interval over seeds (Student t),\n"
    "the change new - base, absolute and in % of |base|, and a 95% confidence interval\n"
    "of the change (Welch's t; none when a side has one run).\n"
    "A simulation compared with a real run (gpusched real; either order) gets a line\n"
    "saying which file is which (\"BASE is a simulation, NEW a real run (backend cpu,\n"
    "time scale 100): change = real - sim; sim error [%] = (sim - real) / real\")\n"
    "and a column sim_error[%]: the simulator's error against the real run.\n"
    "\n"
    "  --fail-if RULE  a regression gate, repeatable. RULE is METRIC OP VALUE[%] with OP\n"
    "                  one of > >= < <= and VALUE a number with an optional sign:\n"
    "                    'p95_wait_s>+5%'   fails when p95 wait rose by more than 5%\n"
    "                    'utilization<-2%'  fails when utilization fell by more than 2%\n"
    "                    'mean_wait_s>+60'  fails when mean wait rose by more than 60 s\n"
    "                  With %, the change is relative to |base|; without, it is in the\n"
    "                  metric's unit (utilization is a fraction: -0.02 is 2 points).\n"
    "                  Each rule is judged on every matched variant. A metric without a\n"
    "                  value (null) on one side fails the rule; on both sides it is n/a.\n"
    "  --significant   a rule fails only when, besides, the change's 95% CI excludes 0\n"
    "                  (with one run on a side there is no CI: the point estimate decides)\n"
    "                  Without it a rule fails on the point estimate.\n"
    "  --json          one JSON object instead of the table: base and new {path, variants,\n"
    "                  runs}, significant, matched_by_position, only_in_base, only_in_new,\n"
    "                  variants [{base_variant, new_variant, base_runs, new_runs, metrics:\n"
    "                  {NAME: {base: {mean, ci95, n}, new: {...}, unit, change, change_pct,\n"
    "                  change_ci95: {lo, hi, df} or null}}}], rules [{rule, metric, op,\n"
    "                  threshold, relative, variant, value, verdict (\"pass\", \"fail\",\n"
    "                  \"n/a\"), significant, note}], failed, pass. NaN and inf are null.\n"
    "                  A simulation against a real run adds sim_vs_real {real (\"base\"\n"
    "                  or \"new\"), backend, time_scale} and each metric's sim_error_pct.\n"
    "\n"
    "Failing rules are also printed to stderr, one line each.\n"
    "exit codes: 0 every rule passes (or no rules), 1 some rule fails (the gate failed;\n"
    "the comparison itself was made and printed), 2 bad input, so compare could not run\n"
    "(malformed rule, unknown metric, no variant in common, a missing or unreadable file,\n"
    "not a results file), 3 compare could not finish for another reason (out of memory,\n"
    "standard output not writable), with its message. A CI gate fails on any non-zero\n"
    "code, and tells a regression (1) from a broken gate (2 or 3).\n";

/* "gpusched compare: WHAT 'ARG'" (ARG NULL: WHAT alone), then the usage. */
static int usage_error(const char *what, const char *arg)
{
	if (arg)
		return cmd_usage_error("compare", compare_usage, "%s '%s'", what, arg);
	return cmd_usage_error("compare", compare_usage, "%s", what);
}

/* A reader's error on an input file is bad input, whatever its kind, but for memory. */
static int input_exit_code(int rc)
{
	return rc == -SIM_ENOMEM ? GPUSCHED_EXIT_COMPARE_NORUN : GPUSCHED_EXIT_BADINPUT;
}

static int run_compare(const char *paths[2], const struct compare_rule *rules, size_t n_rules,
		       int significant, int json, struct sim_diag *diag)
{
	struct h5read_file *f[2] = {NULL, NULL};
	struct compare_result *res = NULL;
	int code;
	int rc = h5read_open(paths[0], &f[0], diag);
	if (!rc)
		rc = h5read_open(paths[1], &f[1], diag);
	if (!rc)
		rc = compare_files(f[0], f[1], rules, n_rules, significant, &res, diag);
	if (rc) {
		code = input_exit_code(rc);
		goto out_close;
	}
	if (json) {
		char *text = NULL;
		rc = compare_json(res, &text);
		if (!rc)
			printf("%s\n", text);
		free(text);
	} else {
		rc = compare_print(res, stdout);
	}
	if (rc) {
		sim_diag_add(diag, paths[1], "out of memory or output failed");
		code = GPUSCHED_EXIT_COMPARE_NORUN;
		goto out_close;
	}
	compare_print_failures(res, "gpusched compare: ", stderr);
	code = res->n_failed ? GPUSCHED_EXIT_GATE_FAILED : GPUSCHED_EXIT_OK;
out_close:
	compare_result_free(res);
	h5read_close(f[1]);
	h5read_close(f[0]);
	return code;
}

int cmd_compare(int argc, char **argv)
{
	const char *paths[2] = {NULL, NULL};
	int json = 0, significant = 0, code;
	size_t n_rules = 0;
	struct compare_rule *rules = calloc((size_t)argc + 1, sizeof *rules);
	struct sim_diag diag;
	sim_diag_init(&diag, 20);
	if (!rules) {
		fprintf(stderr, "gpusched compare: out of memory\n");
		return GPUSCHED_EXIT_COMPARE_NORUN;
	}
	enum { O_JSON = 256, O_SIGNIFICANT, O_FAIL_IF };
	static const struct option longs[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, O_JSON },
		{ "significant", no_argument, NULL, O_SIGNIFICANT },
		{ "fail-if", required_argument, NULL, O_FAIL_IF },
		{ NULL, 0, NULL, 0 },
	};
	optind = 0; /* glibc: a full restart of getopt's scan */
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
		if (c == 'h') {
			fputs(compare_usage, stdout);
			code = GPUSCHED_EXIT_OK;
			goto out_free;
		} else if (c == O_JSON) {
			json = 1;
		} else if (c == O_SIGNIFICANT) {
			significant = 1;
		} else if (c == O_FAIL_IF) {
			/* every malformed rule is reported, before any file is read */
			if (compare_rule_parse(optarg, &rules[n_rules], &diag) == 0)
				n_rules++;
		} else if (c == ':' && optopt == O_FAIL_IF) {
			code = usage_error("--fail-if needs a RULE", NULL);
			goto out_free;
		} else if (c == '?' && optind > 0 && strncmp(argv[optind - 1], "--", 2) == 0) {
			code = usage_error("unexpected argument", argv[optind - 1]); /* the wording of before */
			goto out_free;
		} else {
			code = cmd_getopt_error("compare", compare_usage, c, argv);
			goto out_free;
		}
	}
	for (int i = optind; i < argc; i++) {
		if (paths[1]) {
			code = usage_error("two results files are compared; unexpected argument", argv[i]);
			goto out_free;
		}
		paths[paths[0] ? 1 : 0] = argv[i];
	}
	if (!paths[1]) {
		code = usage_error(paths[0] ? "no NEW.h5 given" : "no results files given", NULL);
		goto out_free;
	}
	code = diag.count ? GPUSCHED_EXIT_BADINPUT
			  : run_compare(paths, rules, n_rules, significant, json, &diag);
	if (diag.count) {
		fprintf(stderr, "gpusched compare: ");
		sim_diag_print(&diag, stderr);
	}
	if (cmd_stdout_failed() && code == GPUSCHED_EXIT_OK) {
		perror("gpusched compare: stdout");
		code = GPUSCHED_EXIT_COMPARE_NORUN;
	}
out_free:
	sim_diag_fini(&diag);
	free(rules);
	return code;
}
