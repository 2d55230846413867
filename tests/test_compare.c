/* tests/test_compare.c: analysis/compare.c and the compare verb: rule parsing (good and
 * bad), Welch's interval and the replication CIs against hand computations, matching
 * by variant, the rules' verdicts, and the CLI's exit codes 0 / 1 / 2. */
#include <CUnit/CUnit.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "analysis/compare.h"
#include "analysis/h5read.h"
#include "analysis/report.h"
#include "results_fixture.h"
#include "sim/h5out.h"
#include "sim/metrics.h"
#include "testutil.h"

/* The files, each run the fixture's summary but for the values below (NaN: no data).
 * base.h5: fifo seeds 1 2 3, easy seed 7, onlybase seed 1.
 * new.h5:  fifo seeds 1 2 3, easy seed 7, onlynew seed 1.
 * one_x.h5 and one_y.h5: a single run, variant x and y.
 *                 mean_wait_s       p95_wait_s        utilization      mean_jct_s
 *   base fifo     100 110 120       300 330 360       0.5 0.6 0.7      1000 x 3
 *   new  fifo     130 150 170       400 410 420       0.5 0.6 0.7      NaN x 3
 *   base easy     40                100               0.2              500
 *   new  easy     50                100               0.2              500
 * Hand computations (Python, t quantiles by numerical integration of Student's density):
 *   t(0.975, 2) = 4.302653; base fifo mean_wait_s 110 +- 4.302653 x 10 / sqrt 3 = 24.841377,
 *   new 150 +- 4.302653 x 20 / sqrt 3 = 49.682754.
 *   Welch mean_wait_s: change 40, se^2 = 100/3 + 400/3, df = 2.941176, t = 3.218759,
 *   interval [-1.553995, 81.553995] (includes 0).
 *   Welch p95_wait_s: change 80, se^2 = 900/3 + 100/3, df = 2.439024, t = 3.639411,
 *   interval [13.553747, 146.446253] (excludes 0). */
#define N_VARIED 4
static const enum sim_summary_field varied[N_VARIED] = {SIM_SUM_mean_wait_s, SIM_SUM_p95_wait_s,
							SIM_SUM_utilization, SIM_SUM_mean_jct_s};
struct fx_run {
	const char *variant;
	uint64_t seed;
	double v[N_VARIED];
};
static const struct fx_run base_runs[] = {
    {"fifo", 1, {100, 300, 0.5, 1000}}, {"easy", 7, {40, 100, 0.2, 500}}, {"fifo", 2, {110, 330, 0.6, 1000}},
    {"fifo", 3, {120, 360, 0.7, 1000}}, {"onlybase", 1, {1, 1, 0.1, 1}},
};
static const struct fx_run new_runs[] = {
    {"fifo", 1, {130, 400, 0.5, NAN}}, {"fifo", 2, {150, 410, 0.6, NAN}}, {"fifo", 3, {170, 420, 0.7, NAN}},
    {"onlynew", 1, {1, 1, 0.1, 1}},    {"easy", 7, {50, 100, 0.2, 500}},
};
static const struct fx_run one_x[] = {{"x", 1, {10, 20, 0.5, 100}}};
static const struct fx_run one_y[] = {{"y", 1, {11, 20, 0.5, 100}}};

static char base_path[512], new_path[512], x_path[512], y_path[512];

static int write_file(char *path, size_t size, const char *name, const struct fx_run *runs, size_t n)
{
	snprintf(path, size, "%s/%s", tu_tmpdir(), name);
	struct sim_trace *t = fx_trace();
	struct sim_cluster *c = fx_cluster();
	struct sim_timeseries ts = {0};
	struct sim_summary sum;
	struct sim_diag d;
	sim_diag_init(&d, 5);
	int rc = -1;
	struct h5out *o = NULL;
	if (!t || !c || fx_timeseries(&ts, 25) || sim_metrics_summarize(t, c, FX_END_NS, &sum))
		goto out;
	struct h5out_meta meta = {.experiment_json = "{}", .config_path = "cmp.json"};
	if (!(o = h5out_create(path, &meta, &d)))
		goto out;
	rc = 0;
	for (size_t k = 0; k < n && !rc; k++) {
		struct sim_summary s = sum;
		for (int i = 0; i < N_VARIED; i++)
			s.v[varied[i]] = runs[k].v[i];
		char name_s[64];
		snprintf(name_s, sizeof name_s, "%s-s%llu", runs[k].variant,
			 (unsigned long long)runs[k].seed);
		struct h5out_run run = {.name = name_s,
					.policy = runs[k].variant,
					.seed = runs[k].seed,
					.trace = t,
					.cluster = c,
					.ts = &ts,
					.summary = &s};
		rc = h5out_write_run(o, &run, &d);
	}
	if (!rc)
		rc = h5out_commit(o, &d);
out:
	h5out_destroy(o);
	sim_diag_print(&d, stderr);
	sim_diag_fini(&d);
	fx_timeseries_free(&ts);
	sim_cluster_destroy(c);
	sim_trace_destroy(t);
	return rc;
}

static int init_compare(void)
{
	if (write_file(base_path, sizeof base_path, "cmp_base.h5", base_runs, 5) ||
	    write_file(new_path, sizeof new_path, "cmp_new.h5", new_runs, 5) ||
	    write_file(x_path, sizeof x_path, "cmp_x.h5", one_x, 1) ||
	    write_file(y_path, sizeof y_path, "cmp_y.h5", one_y, 1))
		return -1;
	return 0;
}

static int clean_compare(void)
{
	remove(base_path);
	remove(new_path);
	remove(x_path);
	remove(y_path);
	return 0;
}

/* ---- rules ---- */

static void check_rule(const char *text, const char *metric, enum compare_op op, double t, int relative)
{
	struct compare_rule r;
	struct sim_diag d;
	sim_diag_init(&d, 5);
	CU_ASSERT_EQUAL_FATAL(compare_rule_parse(text, &r, &d), 0);
	CU_ASSERT_STRING_EQUAL(r.metric, metric);
	CU_ASSERT_EQUAL(r.op, op);
	CU_ASSERT_DOUBLE_EQUAL(r.threshold, t, 1e-12);
	CU_ASSERT_EQUAL(r.relative, relative);
	CU_ASSERT_STRING_EQUAL(r.text, text);
	CU_ASSERT_EQUAL(d.count, 0);
	sim_diag_fini(&d);
}

static void test_compare_rule_parse_good(void)
{
	check_rule("p95_wait_s>+5%", "p95_wait_s", COMPARE_GT, 5, 1);
	check_rule("utilization<-2%", "utilization", COMPARE_LT, -2, 1);
	check_rule("mean_wait_s>+60", "mean_wait_s", COMPARE_GT, 60, 0);
	check_rule("mean_wait_s>60", "mean_wait_s", COMPARE_GT, 60, 0);
	check_rule(" mean_jct_s >= 1.5e1 % ", "mean_jct_s", COMPARE_GE, 15, 1);
	check_rule("utilization<=-0.02", "utilization", COMPARE_LE, -0.02, 0);
	check_rule("p99_bsld>.5", "p99_bsld", COMPARE_GT, 0.5, 0);
}

static void test_compare_rule_parse_bad(void)
{
	static const struct {
		const char *text, *why;
	} bad[] = {
	    {"", "no metric name"},
	    {">+5%", "no metric name"},
	    {"P95_wait_s>5", "no metric name"},
	    {"p95_wait_s", "expected '>' or '<'"},
	    {"p95_wait_s=5", "expected '>' or '<'"},
	    {"p95_wait_s>", "expected a number"},
	    {"p95_wait_s>+", "expected a number"},
	    {"p95_wait_s>inf", "expected a number"},
	    {"p95_wait_s>nan%", "expected a number"},
	    {"p95_wait_s>1e", "expected a number"},
	    {"p95_wait_s>>5", "expected a number"},
	    {"p95_wait_s>1e999", "out of range"},
	    {"p95_wait_s>0x10", "unexpected text"},
	    {"p95_wait_s>+5%%", "unexpected text"},
	    {"p95_wait_s>5 s", "unexpected text"},
	    {"p95_wait_s>5,utilization<-2%", "unexpected text"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct compare_rule r = {.threshold = 42};
		struct sim_diag d;
		sim_diag_init(&d, 5);
		CU_ASSERT_EQUAL(compare_rule_parse(bad[i].text, &r, &d), -SIM_EINVAL);
		CU_ASSERT(r.threshold == 42); /* a failed call changes nothing */
		CU_ASSERT(sim_diag_contains(&d, "malformed rule"));
		if (!sim_diag_contains(&d, bad[i].why))
			fprintf(stderr, "rule '%s': %s\n", bad[i].text, sim_diag_last(&d));
		CU_ASSERT(sim_diag_contains(&d, bad[i].why));
		sim_diag_fini(&d);
	}
}

/* ---- statistics ---- */

static void test_compare_welch_hand(void)
{
	struct compare_stat b = {3, 110, 10, 0}, n = {3, 150, 20, 0};
	struct compare_diff d;
	compare_welch(&b, &n, &d);
	CU_ASSERT_EQUAL(d.has_ci, 1);
	CU_ASSERT_DOUBLE_EQUAL(d.change, 40, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(d.pct, 100.0 * 40 / 110, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(d.df, 2.941176, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(d.lo, -1.553995, 1e-5);
	CU_ASSERT_DOUBLE_EQUAL(d.hi, 81.553995, 1e-5);
	/* unequal sizes and spreads: b 300 330 360, n 400 410 420 */
	b = (struct compare_stat){3, 330, 30, 0};
	n = (struct compare_stat){3, 410, 10, 0};
	compare_welch(&b, &n, &d);
	CU_ASSERT_DOUBLE_EQUAL(d.df, 2.439024, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(d.lo, 13.553747, 1e-5);
	CU_ASSERT_DOUBLE_EQUAL(d.hi, 146.446253, 1e-5);
	/* one run on a side: no interval, the change all the same */
	b = (struct compare_stat){1, 40, 0, 0};
	n = (struct compare_stat){3, 50, 5, 0};
	compare_welch(&b, &n, &d);
	CU_ASSERT_EQUAL(d.has_ci, 0);
	CU_ASSERT_DOUBLE_EQUAL(d.change, 10, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(d.pct, 25, 1e-12);
	/* no spread (a deterministic simulation): the interval is the point */
	b = (struct compare_stat){2, 5, 0, 0};
	n = (struct compare_stat){4, 7, 0, 0};
	compare_welch(&b, &n, &d);
	CU_ASSERT(d.has_ci && d.lo == 2 && d.hi == 2 && d.df == 4);
	/* base 0: the relative change is infinite, or 0 for no change */
	b = (struct compare_stat){1, 0, 0, 0};
	n = (struct compare_stat){1, 3, 0, 0};
	compare_welch(&b, &n, &d);
	CU_ASSERT(isinf(d.pct) && d.pct > 0);
	n.mean = 0;
	compare_welch(&b, &n, &d);
	CU_ASSERT(d.pct == 0);
	n.mean = NAN;
	compare_welch(&b, &n, &d);
	CU_ASSERT(isnan(d.change) && isnan(d.pct) && !d.has_ci);
}

static struct h5read_file *open_h5(const char *path, struct sim_diag *d)
{
	struct h5read_file *f = NULL;
	if (h5read_open(path, &f, d))
		sim_diag_print(d, stderr);
	return f;
}

/* report's replication CI (report_variants, which the replications table and
 * --by-variant print) for 3 seeds is mean +- t(0.975, 2) s / sqrt 3, by hand. */
static void test_compare_replication_ci_hand(void)
{
	struct sim_diag d;
	sim_diag_init(&d, 5);
	struct h5read_file *f = open_h5(base_path, &d);
	CU_ASSERT_FATAL(f != NULL);
	struct h5read_summary s;
	struct report_variants rv;
	CU_ASSERT_EQUAL_FATAL(h5read_summary(f, &s, &d), 0);
	CU_ASSERT_EQUAL_FATAL(report_variants(&s, &rv), 0);
	CU_ASSERT_EQUAL_FATAL(rv.n, 3);
	CU_ASSERT_STRING_EQUAL(rv.name[0], "fifo");
	CU_ASSERT_STRING_EQUAL(rv.name[1], "easy");
	CU_ASSERT_STRING_EQUAL(rv.name[2], "onlybase");
	CU_ASSERT(rv.name[3] == NULL);
	CU_ASSERT(rv.runs[0] == 3 && rv.runs[1] == 1 && rv.runs[2] == 1);
	/* fifo's rows in file order: 0, 2, 3 */
	CU_ASSERT(rv.row[rv.first[0]] == 0 && rv.row[rv.first[0] + 1] == 2 && rv.row[rv.first[0] + 2] == 3);
	size_t mw = (size_t)h5read_summary_field(&s, "mean_wait_s"),
	       ut = (size_t)h5read_summary_field(&s, "utilization");
	CU_ASSERT_DOUBLE_EQUAL(rv.mean[mw], 110, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(rv.ci95[mw], 24.841377, 1e-5);
	CU_ASSERT_DOUBLE_EQUAL(rv.mean[ut], 0.6, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(rv.ci95[ut], 0.24841377, 1e-7);
	CU_ASSERT_DOUBLE_EQUAL(rv.mean[s.n_fields + mw], 40, 0);
	CU_ASSERT_DOUBLE_EQUAL(rv.ci95[s.n_fields + mw], 0, 0);
	report_variants_free(&rv);
	report_variants_free(&rv); /* a zeroed struct is fine */
	h5read_summary_free(&s);
	h5read_close(f);
	sim_diag_fini(&d);
}

/* ---- compare_files ---- */

static int metric_ix(const struct compare_result *r, const char *name)
{
	for (size_t i = 0; i < r->n_metrics; i++)
		if (strcmp(r->metric[i], name) == 0)
			return (int)i;
	return -1;
}

static struct compare_result *compare_paths(const char *a, const char *b, const struct compare_rule *rules,
					    size_t n, int significant, int *rc, struct sim_diag *d)
{
	struct h5read_file *fa = open_h5(a, d), *fb = open_h5(b, d);
	struct compare_result *r = NULL;
	*rc = fa && fb ? compare_files(fa, fb, rules, n, significant, &r, d) : -1;
	h5read_close(fa);
	h5read_close(fb);
	return r;
}

static void parse_rules(struct compare_rule *rules, const char *const *text, size_t n)
{
	struct sim_diag d;
	sim_diag_init(&d, 5);
	for (size_t i = 0; i < n; i++)
		CU_ASSERT_EQUAL_FATAL(compare_rule_parse(text[i], &rules[i], &d), 0);
	sim_diag_fini(&d);
}

static void test_compare_files_values(void)
{
	static const char *const text[] = {"mean_wait_s>+20%", "p95_wait_s>+60", "mean_jct_s>+5%",
					   "utilization<-2%"};
	struct compare_rule rules[4];
	parse_rules(rules, text, 4);
	struct sim_diag d;
	sim_diag_init(&d, 5);
	int rc;
	struct compare_result *r = compare_paths(base_path, new_path, rules, 4, 0, &rc, &d);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	/* matched in BASE's order; the rest listed */
	CU_ASSERT_EQUAL_FATAL(r->n_variants, 2);
	CU_ASSERT_STRING_EQUAL(r->v[0].base_name, "fifo");
	CU_ASSERT_STRING_EQUAL(r->v[1].new_name, "easy");
	CU_ASSERT(r->v[0].base_runs == 3 && r->v[0].new_runs == 3 && r->v[1].new_runs == 1);
	CU_ASSERT(!r->by_position);
	CU_ASSERT(r->only_base[0] && strcmp(r->only_base[0], "onlybase") == 0 && !r->only_base[1]);
	CU_ASSERT(r->only_new[0] && strcmp(r->only_new[0], "onlynew") == 0 && !r->only_new[1]);
	CU_ASSERT_EQUAL(r->n_metrics, SIM_SUM_COUNT_);
	int mw = metric_ix(r, "mean_wait_s"), p95 = metric_ix(r, "p95_wait_s");
	CU_ASSERT_FATAL(mw >= 0 && p95 >= 0);
	const struct compare_metric_row *m = &r->v[0].m[mw];
	CU_ASSERT_DOUBLE_EQUAL(m->base.mean, 110, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(m->base.ci95, 24.841377, 1e-5);
	CU_ASSERT_DOUBLE_EQUAL(m->base.sd, 10, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(m->nw.ci95, 49.682754, 1e-5);
	CU_ASSERT_DOUBLE_EQUAL(m->d.lo, -1.553995, 1e-5);
	CU_ASSERT_DOUBLE_EQUAL(m->d.hi, 81.553995, 1e-5);
	CU_ASSERT_DOUBLE_EQUAL(r->v[0].m[p95].d.lo, 13.553747, 1e-5);
	CU_ASSERT_EQUAL(r->v[1].m[mw].d.has_ci, 0);
	/* checks, rule-major: fifo then easy */
	CU_ASSERT_EQUAL_FATAL(r->n_checks, 8);
	const struct compare_check *c = r->checks;
	CU_ASSERT(c[0].verdict == COMPARE_FAIL && fabs(c[0].value - 36.363636) < 1e-5); /* fifo +36.4% */
	CU_ASSERT(c[0].significant == 0);
	CU_ASSERT(c[1].verdict == COMPARE_FAIL && c[1].value == 25 && c[1].significant == -1); /* easy +25% */
	CU_ASSERT(c[2].verdict == COMPARE_FAIL && c[2].value == 80 &&
		  c[2].significant == 1);			    /* fifo p95 +80 */
	CU_ASSERT(c[3].verdict == COMPARE_PASS && c[3].value == 0); /* easy p95 +0 */
	CU_ASSERT(c[4].verdict == COMPARE_FAIL && c[4].note && strstr(c[4].note, "no value in the new file"));
	CU_ASSERT(c[5].verdict == COMPARE_PASS);
	CU_ASSERT(c[6].verdict == COMPARE_PASS && c[7].verdict == COMPARE_PASS);
	CU_ASSERT_EQUAL(r->n_failed, 4);
	compare_result_free(r);
	/* --significant: fifo's mean wait interval includes 0 (passes), easy has one run
	 * (the point estimate decides, noted), fifo's p95 interval excludes 0 (fails) */
	r = compare_paths(base_path, new_path, rules, 4, 1, &rc, &d);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	c = r->checks;
	CU_ASSERT(c[0].verdict == COMPARE_PASS && c[0].breach);
	CU_ASSERT(c[1].verdict == COMPARE_FAIL && c[1].note && strstr(c[1].note, "point estimate"));
	CU_ASSERT(c[2].verdict == COMPARE_FAIL);
	CU_ASSERT(c[4].verdict == COMPARE_FAIL);
	CU_ASSERT_EQUAL(r->n_failed, 3);
	compare_result_free(r);
	compare_result_free(NULL);
	CU_ASSERT_EQUAL(d.count, 0);
	sim_diag_fini(&d);
}

static void test_compare_files_bad(void)
{
	static const char *const text[] = {"mean_wiat_s>+5%", "fallback_evals>0"};
	struct compare_rule rules[2];
	parse_rules(rules, text, 2);
	struct sim_diag d;
	sim_diag_init(&d, 5);
	int rc;
	CU_ASSERT(compare_paths(base_path, new_path, rules, 1, 0, &rc, &d) == NULL);
	CU_ASSERT_EQUAL(rc, -SIM_EINVAL);
	CU_ASSERT(sim_diag_contains(&d, "unknown metric 'mean_wiat_s'"));
	sim_diag_fini(&d);
	sim_diag_init(&d, 5);
	CU_ASSERT(compare_paths(base_path, x_path, rules + 1, 1, 0, &rc, &d) == NULL);
	CU_ASSERT_EQUAL(rc, -SIM_EINVAL);
	CU_ASSERT(sim_diag_contains(&d, "no variant in common"));
	CU_ASSERT(sim_diag_contains(&d, "base variants: fifo, easy, onlybase; new variants: x"));
	sim_diag_fini(&d);
	/* two single-variant files with different names: matched with each other */
	sim_diag_init(&d, 5);
	struct compare_result *r = compare_paths(x_path, y_path, rules + 1, 1, 0, &rc, &d);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT(r->by_position && r->n_variants == 1 && r->n_failed == 0);
	CU_ASSERT(!r->only_base[0] && !r->only_new[0]);
	CU_ASSERT_DOUBLE_EQUAL(r->v[0].m[metric_ix(r, "mean_wait_s")].d.change, 1, 1e-12);
	compare_result_free(r);
	sim_diag_fini(&d);
}

/* ---- the verb ---- */

static int run_compare(const char *a, const char *b, const char *opts, char **out)
{
	char args[2048];
	snprintf(args, sizeof args, "compare %s %s %s", a, b, opts);
	return tu_run_gpusched(args, out);
}

static void test_compare_cli_exit_codes(void)
{
	char *out = NULL;
	/* 0: a file against itself, every rule passes */
	CU_ASSERT_EQUAL(
	    run_compare(base_path, base_path, "--fail-if 'p95_wait_s>+5%' --fail-if 'utilization<-2%'", &out),
	    0);
	CU_ASSERT(out && strstr(out, "result: pass, 6 rule checks"));
	CU_ASSERT(out && strstr(out, "\nvariant fifo: base 3 runs, new 3 runs\n"));
	free(out);
	/* 0 with no rules: the table alone */
	CU_ASSERT_EQUAL(run_compare(base_path, new_path, "", &out), 0);
	CU_ASSERT(out && strstr(out, "only in base (not compared): onlybase"));
	CU_ASSERT(out && strstr(out, "[-1.554, +81.554]"));
	CU_ASSERT(out && !strstr(out, "\nrules"));
	free(out);
	/* 1: a regression, each failing rule printed */
	CU_ASSERT_EQUAL(
	    run_compare(base_path, new_path, "--fail-if 'mean_wait_s>+20%' --fail-if=p95_wait_s\\>+60", &out),
	    1);
	CU_ASSERT(out &&
		  strstr(out, "gpusched compare: rule 'mean_wait_s>+20%' failed on variant fifo: +36.4% "
			      "(110 -> 150 s), change 95% CI includes 0\n"));
	CU_ASSERT(out && strstr(out, "gpusched compare: rule 'p95_wait_s>+60' failed on variant fifo: +80 "
				     "(330 -> 410 s), change 95% CI excludes 0\n"));
	CU_ASSERT(out && strstr(out, "result: FAIL, 3 of 4 rule checks failed"));
	free(out);
	/* --significant: fifo's mean wait no longer fails, easy's (one run) still does */
	CU_ASSERT_EQUAL(run_compare(base_path, new_path, "--significant --fail-if 'mean_wait_s>+20%'", &out),
			1);
	CU_ASSERT(out && !strstr(out, "failed on variant fifo"));
	CU_ASSERT(out && strstr(out, "failed on variant easy: +25.0% (40 -> 50 s); one run on a side"));
	free(out);
	/* the same rules under --json: one object on stdout, the failing rules on stderr;
	 * parsed back */
	char cmd[4096], json_path[600], err_path[600];
	snprintf(json_path, sizeof json_path, "%s/compare.json", tu_tmpdir());
	snprintf(err_path, sizeof err_path, "%s/compare.err", tu_tmpdir());
	snprintf(cmd, sizeof cmd, "%s compare %s %s --json --fail-if 'mean_wait_s>+20%%' >%s 2>%s",
		 GPUSCHED_BIN, base_path, new_path, json_path, err_path);
	int st = system(cmd);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	out = tu_read_file(err_path, NULL);
	CU_ASSERT(out && strstr(out, "gpusched compare: rule 'mean_wait_s>+20%' failed on variant fifo"));
	free(out);
	out = tu_read_file(json_path, NULL);
	remove(json_path);
	remove(err_path);
	cJSON *j = cJSON_Parse(out);
	CU_ASSERT_FATAL(j != NULL);
	CU_ASSERT(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(j, "pass")));
	CU_ASSERT_EQUAL(cJSON_GetObjectItemCaseSensitive(j, "failed")->valueint, 2);
	const cJSON *v0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "variants"), 0);
	const cJSON *mw =
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(v0, "metrics"), "mean_wait_s");
	const cJSON *ci = cJSON_GetObjectItemCaseSensitive(mw, "change_ci95");
	CU_ASSERT_FATAL(cJSON_IsObject(ci));
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItemCaseSensitive(ci, "lo")->valuedouble, -1.553995, 1e-5);
	CU_ASSERT_DOUBLE_EQUAL(
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(mw, "base"), "ci95")
		->valuedouble,
	    24.841377, 1e-5);
	const cJSON *jct =
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(v0, "metrics"), "mean_jct_s");
	CU_ASSERT(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(jct, "change")));
	const cJSON *rule = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "rules"), 0);
	CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItemCaseSensitive(rule, "verdict")->valuestring, "fail");
	CU_ASSERT(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(rule, "significant")));
	cJSON_Delete(j);
	free(out);
	/* 2: bad input, with a clear message */
	static const struct {
		const char *opts, *msg;
	} bad[] = {
	    {"--fail-if 'p95_wait_s>>5'", "malformed rule 'p95_wait_s>>5'"},
	    {"--fail-if 'p95_wait_s~5'", "expected '>' or '<'"},
	    {"--fail-if 'p96_wait_s>+5%'", "unknown metric 'p96_wait_s'"},
	    {"--fail-if", "--fail-if needs a RULE"},
	    {"--bogus", "unexpected argument '--bogus'"},
	    {"-x", "unknown option '-x'"},
	    {"--json -- third.h5", "two results files are compared; unexpected argument 'third.h5'"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CU_ASSERT_EQUAL(run_compare(base_path, new_path, bad[i].opts, &out), 2);
		CU_ASSERT(out && strstr(out, bad[i].msg));
		free(out);
	}
	CU_ASSERT_EQUAL(run_compare(base_path, x_path, "", &out), 2);
	CU_ASSERT(out && strstr(out, "no variant in common"));
	free(out);
	char missing[600];
	snprintf(missing, sizeof missing, "%s/nope.h5", tu_tmpdir());
	CU_ASSERT_EQUAL(run_compare(base_path, missing, "", &out), 2);
	CU_ASSERT(out && strstr(out, "nope.h5"));
	free(out);
	const char *text = tu_write_file("not_h5.h5", "not a results file\n");
	CU_ASSERT_EQUAL(run_compare(text, base_path, "", &out), 2);
	CU_ASSERT(out && strstr(out, "not_h5.h5"));
	free(out);
	CU_ASSERT_EQUAL(tu_run_gpusched("compare", &out), 2);
	CU_ASSERT(out && strstr(out, "no results files given"));
	free(out);
	CU_ASSERT_EQUAL(tu_run_gpusched("compare --help", &out), 0);
	CU_ASSERT(out && strstr(out, "--fail-if RULE") && strstr(out, "--significant"));
	free(out);
	/* 3: the comparison could not be written (stdout is /dev/full), not a failed rule */
	CU_ASSERT_EQUAL(run_compare(base_path, base_path, "--fail-if 'p95_wait_s>+5%' >/dev/full", &out), 3);
	free(out);
	/* by position: two single-variant files */
	CU_ASSERT_EQUAL(run_compare(x_path, y_path, "--fail-if 'mean_wait_s>+5%'", &out), 1);
	CU_ASSERT(out &&
		  strstr(out, "variant x (base, 1 run) vs y (new, 1 run): the only variant of each file"));
	CU_ASSERT(out && strstr(out, "failed on variant x vs y: +10.0% (10 -> 11 s)"));
	free(out);
}

static CU_TestInfo compare_tests[] = {
    {"test_compare_rule_parse_good", test_compare_rule_parse_good},
    {"test_compare_rule_parse_bad", test_compare_rule_parse_bad},
    {"test_compare_welch_hand", test_compare_welch_hand},
    {"test_compare_replication_ci_hand", test_compare_replication_ci_hand},
    {"test_compare_files_values", test_compare_files_values},
    {"test_compare_files_bad", test_compare_files_bad},
    {"test_compare_cli_exit_codes", test_compare_cli_exit_codes},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo compare_suite = {"compare", init_compare, clean_compare, NULL, NULL, compare_tests};
