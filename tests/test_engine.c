/* tests/test_engine.c: the engine with the order policies fifo and priority:
 * hand-computed start times, an independent FIFO reference, Erlang C, determinism. */
#include <CUnit/CUnit.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../policies/policy.h"
#include "../sim/tick.h"
#include "../sim/engine.h"
#include "testutil.h"

static int init_engine(void) { return 0; }
static int clean_engine(void) { return 0; }

#define G(n) ((sim_qty_t)(n) * SIM_MILLI)

/* One node of 4 GPUs. Hand-computed (finishes apply before submits at equal times):
 *  a 0s 2g 10s -> 0     b 1s 2g 5s -> 1      c 2s 3g 4s -> 10 (needs 3; 4 free at 10)
 *  d 3s 1g 1s  -> 10 (strict FIFO: blocked behind c although 2 GPUs are free at 6)
 *  e 10s 1g 2s -> 11 (at 10 c and d take all 4; d ends at 11)
 *  f 11s 1g 1s -> 13 (at 11 e takes d's GPU; e ends at 13) */
static struct sim_trace *hand_trace(void)
{
	struct sim_trace *t = sim_trace_create();
	tu_trace_add(t, "a", 0, 10, G(2), "f", 0);
	tu_trace_add(t, "b", 1, 5, G(2), "f", 0);
	tu_trace_add(t, "c", 2, 4, G(3), "f", 0);
	tu_trace_add(t, "d", 3, 1, G(1), "f", 0);
	tu_trace_add(t, "e", 10, 2, G(1), "f", 0);
	tu_trace_add(t, "f", 11, 1, G(1), "f", 0);
	tu_trace_finish(t);
	return t;
}

static void test_engine_fifo_hand_computed(void)
{
	struct sim_trace *t = hand_trace();
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 1, 4, "fifo", NULL, SIM_PLACE_BEST_FIT), 0);
	const char *ids[] = { "a", "b", "c", "d", "e", "f" };
	double want[] = { 0, 1, 10, 10, 11, 13 };
	for (size_t i = 0; i < 6; i++)
		CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, ids[i]), want[i], 1e-9);
	for (size_t i = 0; i < t->n_jobs; i++)
		CU_ASSERT_EQUAL(t->jobs[i].state, SIM_JOB_COMPLETED);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(t->jobs[2].end_ns), 14, 1e-9); /* c */
	sim_trace_destroy(t);
}

/* Same jobs with priorities c 0, d 5, e 1, f 0 (one node of 4 GPUs), by hand:
 *  t=0 a starts, t=1 b starts: 4 GPUs busy; c (needs 3) and d wait.
 *  t=6: b ends, 2 free. Queue {d 5, c 0}: d starts (1 free); c needs 3 and blocks.
 *  t=7: d ends, 2 free; c still blocks.
 *  t=10: a ends (finishes before submits), 4 free; e (1) arrives. Queue {e 1, c 0}:
 *        e starts (3 free), then c (0 free).
 *  t=11: f arrives, nothing free.  t=12: e ends, f starts. */
static void test_engine_priority_hand_computed(void)
{
	struct sim_trace *t = sim_trace_create();
	tu_trace_add(t, "a", 0, 10, G(2), "f", 0);
	tu_trace_add(t, "b", 1, 5, G(2), "f", 0);
	tu_trace_add(t, "c", 2, 4, G(3), "f", 0);
	tu_trace_add(t, "d", 3, 1, G(1), "f", 5);
	tu_trace_add(t, "e", 10, 2, G(1), "f", 1);
	tu_trace_add(t, "f", 11, 1, G(1), "f", 0);
	tu_trace_finish(t);
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 1, 4, "priority", NULL, SIM_PLACE_BEST_FIT), 0);
	const char *ids[] = { "a", "b", "c", "d", "e", "f" };
	double want[] = { 0, 1, 10, 6, 10, 12 };
	for (size_t i = 0; i < 6; i++)
		CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, ids[i]), want[i], 1e-9);
	sim_trace_destroy(t);
}

/* Aging: x (prio 0, submitted at 0) ages 1 per hour; y (prio 2, at 2.5 h) ranks
 * 2 - 2.5 = -0.5 against x's 0: x goes first although its base priority is lower. */
static void test_engine_priority_aging_reorders(void)
{
	struct sim_trace *t = sim_trace_create();
	tu_trace_add(t, "blocker", 0, 3 * 3600, G(1), "f", 0);
	tu_trace_add(t, "x", 0, 10, G(1), "f", 0);
	tu_trace_add(t, "y", 2.5 * 3600, 10, G(1), "f", 2);
	tu_trace_finish(t);
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 1, 1, "priority", "{\"aging_per_hour\": 1}", SIM_PLACE_BEST_FIT), 0);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "x"), 3 * 3600, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "y"), 3 * 3600 + 10, 1e-9);
	sim_trace_reset(t);
	/* Without aging y (higher priority) goes first. */
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 1, 1, "priority", NULL, SIM_PLACE_BEST_FIT), 0);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "y"), 3 * 3600, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "x"), 3 * 3600 + 10, 1e-9);
	sim_trace_destroy(t);
}

/* M/M/c workload: Poisson arrivals (rate lambda per hour), exponential durations
 * (mean 1 h), 1 GPU each. Streams per purpose from one seed. */
static struct sim_trace *mmc_trace(size_t n, double lambda_per_h, unsigned long seed)
{
	gsl_rng *arr = gsl_rng_alloc(gsl_rng_mt19937), *dur = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(arr, seed);
	gsl_rng_set(dur, seed + 1000003);
	struct sim_trace *t = sim_trace_create();
	double now_s = 0;
	char id[32];
	for (size_t i = 0; i < n; i++) {
		now_s += gsl_ran_exponential(arr, 3600.0 / lambda_per_h);
		double d = gsl_ran_exponential(dur, 3600.0);
		snprintf(id, sizeof id, "j%zu", i);
		tu_trace_add(t, id, now_s, d > 1e-6 ? d : 1e-6, G(1), "f", 0);
	}
	tu_trace_finish(t);
	gsl_rng_free(arr);
	gsl_rng_free(dur);
	return t;
}

/* Independent reference for strict FIFO of 1-GPU jobs on c identical GPUs: each job
 * starts at max(its submit, the earliest GPU free time, the previous start). Uses an
 * O(c) scan of c free times (c is small). Returns 0 if every start matches. */
static size_t fifo_reference_mismatches(const struct sim_trace *t, int c)
{
	sim_time_t *free_at = calloc((size_t)c, sizeof *free_at);
	sim_time_t prev = 0;
	size_t bad = 0;
	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct sim_job *j = &t->jobs[i];
		int best = 0;
		for (int k = 1; k < c; k++)
			if (free_at[k] < free_at[best])
				best = k;
		sim_time_t s = j->submit_ns;
		if (free_at[best] > s)
			s = free_at[best];
		if (prev > s)
			s = prev;
		prev = s;
		free_at[best] = s + j->duration_ns;
		if (j->start_ns != s)
			bad++;
	}
	free(free_at);
	return bad;
}

static void test_engine_fifo_matches_reference(void)
{
	struct sim_trace *t = mmc_trace(20000, 0.9 * 16, 11);
	/* 16 GPUs as 2 nodes of 8 and as 16 nodes of 1, every placement policy. */
	for (int p = 0; p < SIM_PLACE_COUNT_; p++) {
		CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 2, 8, "fifo", NULL, (enum sim_placement)p), 0);
		CU_ASSERT_EQUAL(fifo_reference_mismatches(t, 16), 0);
		CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 16, 1, "fifo", NULL, (enum sim_placement)p), 0);
		CU_ASSERT_EQUAL(fifo_reference_mismatches(t, 16), 0);
	}
	sim_trace_destroy(t);
}

/* Erlang C: probability that an arrival waits in M/M/c with offered load a = lambda/mu. */
static double erlang_c(int c, double a)
{
	double term = 1, sum = 1; /* k = 0 */
	for (int k = 1; k < c; k++) {
		term *= a / k;
		sum += term;
	}
	double last = term * a / c * c / (c - a); /* a^c/c! * c/(c-a) */
	return last / (sum + last);
}

/* Mean wait under strict FIFO vs Erlang C's Wq = C(c,a) / (c mu - lambda), with the
 * statistical error from batch means (20 batches after a 10% warm-up). */
static void check_mmc(double rho, size_t n)
{
	const int c = 16;
	double lambda = rho * c; /* per hour; mu = 1 per hour */
	struct sim_trace *t = mmc_trace(n, lambda, 42);
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 2, 8, "fifo", NULL, SIM_PLACE_BEST_FIT), 0);
	enum { B = 20 };
	size_t warm = n / 10, per = (n - warm) / B;
	double means[B];
	for (size_t b = 0; b < B; b++) {
		double s = 0;
		for (size_t i = warm + b * per; i < warm + (b + 1) * per; i++)
			s += sim_time_to_s(t->jobs[i].start_ns - t->jobs[i].submit_ns);
		means[b] = s / (double)per / 3600.0; /* hours */
	}
	double mean = gsl_stats_mean(means, 1, B);
	double se = gsl_stats_sd(means, 1, B) / sqrt((double)B);
	double wq = erlang_c(c, lambda) / (c - lambda);
	double half = gsl_cdf_tdist_Pinv(0.995, B - 1) * se; /* 99% two-sided */
	printf("\n    M/M/16 rho=%.2f: simulated mean wait %.4f h +- %.4f (99%%), Erlang C %.4f h ",
	       rho, mean, half, wq);
	CU_ASSERT(fabs(mean - wq) <= half);
	CU_ASSERT(half < 0.5 * wq); /* the check has teeth: the interval is narrow */
	sim_trace_destroy(t);
}

static void test_engine_mmc_load_050(void) { check_mmc(0.5, 200000); }
static void test_engine_mmc_load_080(void) { check_mmc(0.8, 200000); }
static void test_engine_mmc_load_095(void) { check_mmc(0.95, 400000); }

static void test_engine_deterministic(void)
{
	struct sim_trace *t = mmc_trace(5000, 0.9 * 16, 5);
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 2, 8, "priority", NULL, SIM_PLACE_SPREAD), 0);
	sim_time_t *first = malloc(t->n_jobs * 2 * sizeof *first);
	for (size_t i = 0; i < t->n_jobs; i++) {
		first[2 * i] = t->jobs[i].start_ns;
		first[2 * i + 1] = t->jobs[i].end_ns;
	}
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 2, 8, "priority", NULL, SIM_PLACE_SPREAD), 0);
	size_t diff = 0;
	for (size_t i = 0; i < t->n_jobs; i++)
		diff += first[2 * i] != t->jobs[i].start_ns || first[2 * i + 1] != t->jobs[i].end_ns;
	CU_ASSERT_EQUAL(diff, 0);
	free(first);
	sim_trace_destroy(t);
}

/* Whole-node jobs: a 12-GPU job on 8-GPU nodes takes 2 whole nodes and waits for them
 * even when 12 GPUs are free in pieces. */
static void test_engine_whole_nodes(void)
{
	struct sim_trace *t = sim_trace_create();
	tu_trace_add(t, "small1", 0, 100, G(2), "f", 0); /* node 0 */
	tu_trace_add(t, "small2", 0, 50, G(2), "f", 0);  /* best fit: node 0 again */
	tu_trace_add(t, "big", 1, 10, G(12), "f", 0);     /* needs 2 whole nodes of 3 */
	tu_trace_finish(t);
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 3, 8, "fifo", NULL, SIM_PLACE_BEST_FIT), 0);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "big"), 1, 1e-9); /* nodes 1 and 2 are free */
	sim_trace_reset(t);
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 3, 8, "fifo", NULL, SIM_PLACE_SPREAD), 0);
	/* spread puts small2 on another node: only one node stays whole until small2 ends. */
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "big"), 50, 1e-9);
	sim_trace_destroy(t);
}

/* Regression: a "*" job kept no record of the flavor it ran on once it ended, so its
 * results had no flavor, no whole-node rounding and no cost. */
static void test_engine_any_flavor_job_keeps_flavor(void)
{
	struct sim_trace *t = sim_trace_create();
	tu_trace_add(t, "any", 0, 10, G(12), "*", 0);
	tu_trace_finish(t);
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 2, 8, "fifo", NULL, SIM_PLACE_BEST_FIT), 0);
	CU_ASSERT_EQUAL(t->jobs[0].state, SIM_JOB_COMPLETED);
	CU_ASSERT_EQUAL(t->jobs[0].alloc.flavor, 0);
	CU_ASSERT_EQUAL(t->jobs[0].alloc.n_nodes, 0); /* released */
	sim_trace_destroy(t);
}

/* The row cap by queue count: 20,000 up to 100 queues, then 2,000,000 queue-rows
 * (4,000 rows at 500 queues), never under 2,000 rows. */
static void test_engine_timeseries_row_cap(void)
{
	CU_ASSERT_EQUAL(sim_ts_max_rows(0), 20000);
	CU_ASSERT_EQUAL(sim_ts_max_rows(20), 20000);
	CU_ASSERT_EQUAL(sim_ts_max_rows(100), 20000);
	CU_ASSERT_EQUAL(sim_ts_max_rows(101), 19801);
	CU_ASSERT_EQUAL(sim_ts_max_rows(500), 4000);
	CU_ASSERT_EQUAL(sim_ts_max_rows(1000), 2000);
	CU_ASSERT_EQUAL(sim_ts_max_rows(5000), 2000);
}

/* A fifo run of t on one 8-GPU node sampled every second, for the time series
 * tests: ts_run_fifo runs it and returns its series, ts_run_free frees it all
 * (the trace included). */
struct ts_run {
	struct sim_trace *t;
	struct sim_cluster *c;
	struct sim_diag d;
	struct sim_driver drv;
	struct sim_policy pol;
	struct sim_engine *e;
};

static const struct sim_timeseries *ts_run_fifo(struct ts_run *r, struct sim_trace *t)
{
	memset(r, 0, sizeof *r);
	r->t = t;
	r->c = tu_cluster(1, 8, 1.0, SIM_PLACE_BEST_FIT);
	sim_diag_init(&r->d, 20);
	CU_ASSERT_EQUAL_FATAL(sim_trace_bind(t, r->c, &r->d), 0);
	sim_driver_virtual_init(&r->drv);
	r->pol.ops = &fifo_policy_ops;
	struct sim_engine_params ep = { .trace = t, .cluster = r->c, .driver = r->drv, .sample_ns = SIM_NS_PER_S };
	ep.policies[SIM_FAM_ORDER] = &r->pol;
	r->e = sim_engine_create(&ep);
	struct sim_policy_env env = { .view = sim_engine_view(r->e), .file = "t", .json_path = "$" };
	CU_ASSERT_EQUAL_FATAL(sim_policy_create(&r->pol, &fifo_policy_ops, &env, NULL, &r->d), 0);
	CU_ASSERT_EQUAL_FATAL(sim_engine_run(r->e), 0);
	return sim_engine_timeseries(r->e);
}

static void ts_run_free(struct ts_run *r)
{
	sim_policy_destroy(&r->pol);
	sim_engine_destroy(r->e);
	sim_driver_virtual_fini(&r->drv);
	sim_cluster_destroy(r->c);
	sim_diag_fini(&r->d);
	sim_trace_destroy(r->t);
}

/* With 501 queues a long run keeps at most 3,992 rows, evenly spaced over the
 * whole run, each queue's usage still recorded. */
static void test_engine_timeseries_thinned_by_queues(void)
{
	struct sim_trace *t = sim_trace_create();
	char q[16];
	for (int i = 0; i < 500; i++) {
		snprintf(q, sizeof q, "q%d", i);
		size_t row = tu_trace_add(t, i ? "short" : "long", 0, i ? 10 : 1e7, G(1), "f", 0);
		t->jobs[row].queue = sim_trace_intern_queue(t, q);
	}
	tu_trace_finish(t);
	CU_ASSERT_EQUAL_FATAL(t->n_queues, 501); /* with "default" */
	struct ts_run r;
	const struct sim_timeseries *ts = ts_run_fifo(&r, t);
	CU_ASSERT(ts->n <= 3992 && ts->n >= 1996);
	double step = ts->t_s[1] - ts->t_s[0];
	CU_ASSERT(step >= 1e7 / 3992);
	CU_ASSERT(ts->t_s[ts->n - 1] >= 1e7 - step && ts->t_s[ts->n - 1] <= 1e7);
	int q0 = -1; /* the long job's queue holds 1 GPU in the last row, the others none */
	for (size_t k = 0; k < t->n_queues; k++)
		if (strcmp(t->queues[k], "q0") == 0)
			q0 = (int)k;
	CU_ASSERT_FATAL(q0 >= 0);
	double last_sum = 0;
	for (size_t k = 0; k < ts->n_queues; k++)
		last_sum += ts->q_usage[(ts->n - 1) * ts->n_queues + k];
	CU_ASSERT_DOUBLE_EQUAL(ts->q_usage[(ts->n - 1) * ts->n_queues + (size_t)q0], 1, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(last_sum, 1, 1e-9);
	ts_run_free(&r);
}

/* A run far longer than the sample step keeps at most SIM_TS_MAX_SAMPLES rows, evenly
 * spaced from 0, covering the whole run (it used to keep one row a step: 10^7 here). */
static void test_engine_timeseries_thinned(void)
{
	struct sim_trace *t = sim_trace_create();
	tu_trace_add(t, "short", 0, 10, G(1), "f", 0);
	tu_trace_add(t, "long", 0, 1e7, G(2), "f", 0);
	tu_trace_finish(t);
	struct ts_run r;
	const struct sim_timeseries *ts = ts_run_fifo(&r, t);
	CU_ASSERT(ts->n <= SIM_TS_MAX_SAMPLES && ts->n >= SIM_TS_MAX_SAMPLES / 2);
	double step = ts->t_s[1] - ts->t_s[0];
	CU_ASSERT(step >= 1e7 / SIM_TS_MAX_SAMPLES);
	size_t uneven = 0;
	for (size_t i = 0; i < ts->n; i++)
		uneven += fabs(ts->t_s[i] - (double)i * step) > 1e-6;
	CU_ASSERT_EQUAL(uneven, 0);
	CU_ASSERT(ts->t_s[ts->n - 1] >= 1e7 - step && ts->t_s[ts->n - 1] <= 1e7);
	CU_ASSERT_DOUBLE_EQUAL(ts->gpus_busy[0], 3, 1e-9);  /* both jobs at t = 0 */
	CU_ASSERT_DOUBLE_EQUAL(ts->gpus_busy[ts->n - 1], 2, 1e-9); /* the long one */
	ts_run_free(&r);
}

/* A "*" job whose duration, divided by a slow flavor's speed, would pass 1e9 s (and
 * overflow int64 ns further on) is refused at bind with its row. It used to run for
 * 1 ns. */
static void test_engine_scaled_runtime_bounded(void)
{
	struct sim_trace *t = sim_trace_create();
	tu_trace_add(t, "ok", 0, 1e8, G(1), "*", 0);
	tu_trace_add(t, "huge", 0, 1e9, G(1), "*", 0);
	tu_trace_add(t, "named", 0, 1e9, G(1), "f", 0); /* runs 1e9 s as written: fine */
	tu_trace_finish(t);
	struct sim_cluster *c = tu_cluster(1, 8, 0.1, SIM_PLACE_BEST_FIT);
	struct sim_diag d;
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(sim_trace_bind(t, c, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "trace:3: column duration_s: expected a run time of at most 1e9 s"));
	CU_ASSERT_EQUAL(d.count, 1); /* "ok" runs 1e9 s exactly: allowed; "named" is not scaled */
	sim_cluster_destroy(c);
	sim_diag_fini(&d);
	sim_trace_destroy(t);
}

/* The event log of a small trace, byte for byte against a golden file (docs/style.md
 * section 9). The trace mixes sizes, a whole-node job, equal-time finishes and
 * submits, and a '*' request; every start time in it is also asserted by hand in
 * test_engine_fifo_hand_computed's style below. Regenerate only after checking a
 * diff by hand: GPUSCHED_UPDATE_GOLDEN=1 build/sim_tests engine. */
static void check_golden(const char *order, const char *golden)
{
	struct sim_trace *t = sim_trace_create();
	tu_trace_add(t, "a", 0, 10, G(2), "f", 0);
	tu_trace_add(t, "b", 1, 5, G(2), "f", 1);
	tu_trace_add(t, "c", 2, 4, G(12), "f", 0); /* 2 whole nodes of 8 */
	tu_trace_add(t, "d", 3, 1, G(1), "f", 2);
	tu_trace_add(t, "e", 6, 2, G(7), "*", 0);
	tu_trace_add(t, "f", 6, 30, G(4), "f", 0);
	tu_trace_add(t, "g", 10, 3, G(8), "f", 3);
	tu_trace_finish(t);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	CU_ASSERT_EQUAL_FATAL(tu_simulate_logged(t, 2, 8, order, NULL, SIM_PLACE_BEST_FIT, m), 0);
	fclose(m);
	char path[512];
	snprintf(path, sizeof path, "%s/golden/%s", TEST_DATA_DIR, golden);
	if (getenv("GPUSCHED_UPDATE_GOLDEN")) {
		FILE *f = fopen(path, "w");
		if (f) {
			fputs(buf, f);
			fclose(f);
		}
	}
	char *want = tu_read_file(path, NULL);
	CU_ASSERT_PTR_NOT_NULL(want);
	if (want && strcmp(want, buf) != 0)
		fprintf(stderr, "\n--- %s\n%s--- got\n%s", path, want, buf);
	CU_ASSERT(want && strcmp(want, buf) == 0);
	free(want);
	free(buf);
	sim_trace_destroy(t);
}

static void test_engine_golden_log_fifo(void) { check_golden("fifo", "fifo_small.log"); }
static void test_engine_golden_log_priority(void) { check_golden("priority", "priority_small.log"); }
static void test_engine_golden_log_backfill(void) { check_golden("easy_backfill", "easy_backfill_small.log"); }


/* ---- the progress throttle, on an injected clock (no real time passes) ---- */

struct fake_clock {
	double now_s;
	unsigned reads;
};

static double fake_clock_read(void *arg)
{
	struct fake_clock *c = arg;
	c->reads++;
	return c->now_s;
}

/* Calls sim_tick_due n times, each call advancing the clock by step_s first;
 * returns how many fired, and the index of the first (or -1) in *first. */
static int tick_run(struct sim_tick *t, struct fake_clock *c, long n, double step_s, long *first)
{
	int fired = 0;
	*first = -1;
	for (long i = 0; i < n; i++) {
		c->now_s += step_s;
		if (sim_tick_due(t)) {
			if (*first < 0)
				*first = i;
			fired++;
		}
	}
	return fired;
}

/* Fast events: a million calls in 0.4 s never fire, however many events; the
 * clock is read far less than once a call. */
static void test_engine_tick_not_before_period(void)
{
	struct fake_clock c = { 100.0, 0 };
	struct sim_tick t;
	sim_tick_init(&t, 0.5, fake_clock_read, &c);
	long first;
	CU_ASSERT_EQUAL(tick_run(&t, &c, 1000000, 0.4 / 1e6, &first), 0);
	CU_ASSERT(c.reads < 1000000 / 100);
}

/* Slow events (10 ms each, so 50 make a period): it fires within a few events of
 * 0.5 s, not 65,536 events later. */
static void test_engine_tick_slow_events_fire_on_time(void)
{
	struct fake_clock c = { 0.0, 0 };
	struct sim_tick t;
	sim_tick_init(&t, 0.5, fake_clock_read, &c);
	long first;
	int fired = tick_run(&t, &c, 500, 0.01, &first); /* 5 s */
	CU_ASSERT(first >= 49 && first <= 49 + 64); /* at most the first stride late */
	CU_ASSERT(fired >= 8 && fired <= 10);
	/* settled: consecutive fires are 0.5 s apart, at most a read interval
	 * (period / 8 once the stride has adapted) plus an event later */
	c.now_s = 0;
	sim_tick_init(&t, 0.5, fake_clock_read, &c);
	double last = -1, worst = 0, shortest = 1e9;
	for (int i = 0; i < 2000; i++) {
		c.now_s += 0.01;
		if (!sim_tick_due(&t))
			continue;
		if (last >= 0 && i > 200) {
			double gap = c.now_s - last;
			worst = gap > worst ? gap : worst;
			shortest = gap < shortest ? gap : shortest;
		}
		last = c.now_s;
	}
	CU_ASSERT(shortest >= 0.5 - 1e-9);
	CU_ASSERT(worst <= 0.5 + 0.5 / 8 + 0.01 + 1e-9);
}

/* Exactly at the period it fires; just below it does not, whatever the count. */
static void test_engine_tick_fires_at_period(void)
{
	struct fake_clock c = { 0.0, 0 };
	struct sim_tick t;
	sim_tick_init(&t, 0.5, fake_clock_read, &c);
	t.stride = t.left = 1; /* read on every call */
	c.now_s = 0.499;
	CU_ASSERT_EQUAL(sim_tick_due(&t), 0);
	t.stride = t.left = 1;
	c.now_s = 0.5;
	CU_ASSERT_EQUAL(sim_tick_due(&t), 1);
	t.stride = t.left = 1;
	c.now_s = 0.9;
	CU_ASSERT_EQUAL(sim_tick_due(&t), 0); /* the period restarted at 0.5 */
	t.stride = t.left = 1;
	c.now_s = 1.0;
	CU_ASSERT_EQUAL(sim_tick_due(&t), 1);
}

/* A stall (one event of 3 s) fires on the next read, then the stride shrinks. */
static void test_engine_tick_stride_adapts(void)
{
	struct fake_clock c = { 0.0, 0 };
	struct sim_tick t;
	sim_tick_init(&t, 0.5, fake_clock_read, &c);
	long first;
	tick_run(&t, &c, 100000, 1e-7, &first); /* fast: the stride grows to the cap */
	CU_ASSERT_EQUAL(t.stride, SIM_TICK_MAX_STRIDE);
	unsigned before = t.stride;
	t.left = 1;
	c.now_s += 3.0;
	CU_ASSERT_EQUAL(sim_tick_due(&t), 1);
	CU_ASSERT(t.stride < before);
}

/* The pending limit at the boundary (docs/design.md, "Pending limit"): the decision
 * pass at an instant comes before the pending limits that run out then.
 * One node of 4 GPUs. a 0s 4g 10s -> starts 0, ends 10. b 1s 4g 5s, max_pending_s 9:
 * its limit runs out at 1 + 9 = 10, the instant a frees the node, so it starts at 10
 * (before the fix it timed out at 10). c 2s 4g 1s, max_pending_s 5: the limit runs out
 * at 7, while a still holds the node: timed out at 7. */
static void test_engine_pending_limit_at_boundary_starts(void)
{
	struct sim_trace *t = sim_trace_create();
	tu_trace_add(t, "a", 0, 10, G(4), "f", 0);
	size_t b = tu_trace_add(t, "b", 1, 5, G(4), "f", 0);
	size_t c = tu_trace_add(t, "c", 2, 1, G(4), "f", 0);
	t->jobs[b].max_pending_ns = 9 * SIM_NS_PER_S;
	t->jobs[c].max_pending_ns = 5 * SIM_NS_PER_S;
	tu_trace_finish(t);
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 1, 4, "fifo", NULL, SIM_PLACE_FIRST_FIT), 0);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "a"), 0.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "b"), 10.0, 1e-9);
	CU_ASSERT_EQUAL(t->jobs[1].state, SIM_JOB_COMPLETED);
	CU_ASSERT_EQUAL(t->jobs[2].state, SIM_JOB_TIMED_OUT_PENDING);
	CU_ASSERT_EQUAL(t->jobs[2].end_ns, 7 * SIM_NS_PER_S);
	sim_trace_destroy(t);
}

/* max_pending_s = 0: a job starts if it fits at its submit, else it times out at once.
 * One node of 4 GPUs, empty. a 0s 2g 10s, limit 0 -> starts at 0 (before the fix: timed
 * out at 0 on an empty cluster). b 1s 4g 1s, limit 0: 2 GPUs free at 1 -> timed out at
 * 1. d 1s 2g 1s, limit 0, behind b under fifo: b is still queued at the decision pass,
 * so d waits behind it and times out at 1 too. e 20s 4g 1s, limit 0 -> starts at 20. */
static void test_engine_pending_limit_zero(void)
{
	struct sim_trace *t = sim_trace_create();
	size_t r[4];
	r[0] = tu_trace_add(t, "a", 0, 10, G(2), "f", 0);
	r[1] = tu_trace_add(t, "b", 1, 1, G(4), "f", 0);
	r[2] = tu_trace_add(t, "d", 1, 1, G(2), "f", 0);
	r[3] = tu_trace_add(t, "e", 20, 1, G(4), "f", 0);
	for (int i = 0; i < 4; i++)
		t->jobs[r[i]].max_pending_ns = 0;
	tu_trace_finish(t);
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 1, 4, "fifo", NULL, SIM_PLACE_FIRST_FIT), 0);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "a"), 0.0, 1e-9);
	CU_ASSERT_EQUAL(t->jobs[0].state, SIM_JOB_COMPLETED);
	CU_ASSERT_EQUAL(t->jobs[1].state, SIM_JOB_TIMED_OUT_PENDING);
	CU_ASSERT_EQUAL(t->jobs[1].end_ns, 1 * SIM_NS_PER_S);
	CU_ASSERT_EQUAL(t->jobs[2].state, SIM_JOB_TIMED_OUT_PENDING);
	CU_ASSERT_EQUAL(t->jobs[2].end_ns, 1 * SIM_NS_PER_S);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "e"), 20.0, 1e-9);
	CU_ASSERT_EQUAL(t->jobs[3].state, SIM_JOB_COMPLETED);
	sim_trace_destroy(t);
}

static CU_TestInfo engine_tests[] = {
	{ "test_engine_pending_limit_at_boundary_starts", test_engine_pending_limit_at_boundary_starts },
	{ "test_engine_pending_limit_zero", test_engine_pending_limit_zero },
	{ "test_engine_golden_log_fifo", test_engine_golden_log_fifo },
	{ "test_engine_golden_log_priority", test_engine_golden_log_priority },
	{ "test_engine_golden_log_backfill", test_engine_golden_log_backfill },
	{ "test_engine_timeseries_thinned", test_engine_timeseries_thinned },
	{ "test_engine_timeseries_row_cap", test_engine_timeseries_row_cap },
	{ "test_engine_timeseries_thinned_by_queues", test_engine_timeseries_thinned_by_queues },
	{ "test_engine_scaled_runtime_bounded", test_engine_scaled_runtime_bounded },
	{ "test_engine_any_flavor_job_keeps_flavor", test_engine_any_flavor_job_keeps_flavor },
	{ "test_engine_fifo_hand_computed", test_engine_fifo_hand_computed },
	{ "test_engine_priority_hand_computed", test_engine_priority_hand_computed },
	{ "test_engine_priority_aging_reorders", test_engine_priority_aging_reorders },
	{ "test_engine_fifo_matches_reference", test_engine_fifo_matches_reference },
	{ "test_engine_mmc_load_050", test_engine_mmc_load_050 },
	{ "test_engine_mmc_load_080", test_engine_mmc_load_080 },
	{ "test_engine_mmc_load_095", test_engine_mmc_load_095 },
	{ "test_engine_deterministic", test_engine_deterministic },
	{ "test_engine_whole_nodes", test_engine_whole_nodes },
	{ "test_engine_tick_not_before_period", test_engine_tick_not_before_period },
	{ "test_engine_tick_slow_events_fire_on_time", test_engine_tick_slow_events_fire_on_time },
	{ "test_engine_tick_fires_at_period", test_engine_tick_fires_at_period },
	{ "test_engine_tick_stride_adapts", test_engine_tick_stride_adapts },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo engine_suite = { "engine", init_engine, clean_engine, NULL, NULL, engine_tests };
