/* tests/test_metrics.c: sim/metrics.c: per-job wait / JCT / bounded slowdown / cost, the
 * run summary and the per-option table against hand-computed values
 * (tests/results_fixture.h), edge cases (empty trace, no completions), and replication
 * statistics. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <stdio.h>

#include "results_fixture.h"
#include "testutil.h"
#include "sim/metrics.h"
#include "sim/metrics_job.h"

#define EPS 1e-9

static int init_metrics(void)
{
	return 0;
}

static int clean_metrics(void)
{
	return 0;
}

static void test_metrics_field_names(void)
{
	CU_ASSERT_STRING_EQUAL(sim_summary_name(SIM_SUM_jobs), "jobs");
	CU_ASSERT_STRING_EQUAL(sim_summary_name(SIM_SUM_p95_wait_s), "p95_wait_s");
	CU_ASSERT_STRING_EQUAL(sim_summary_unit(SIM_SUM_p95_wait_s), "s");
	CU_ASSERT_STRING_EQUAL(sim_summary_unit(SIM_SUM_busy_gpu_s), "GPU*s");
	CU_ASSERT_STRING_EQUAL(sim_summary_name(SIM_SUM_cost), "cost");
	CU_ASSERT(strlen(sim_summary_description(SIM_SUM_utilization)) > 0);
	CU_ASSERT_STRING_EQUAL(sim_summary_name(SIM_SUM_COUNT_), "invalid");
	/* names are unique */
	for (int a = 0; a < SIM_SUM_COUNT_; a++)
		for (int b = a + 1; b < SIM_SUM_COUNT_; b++)
			CU_ASSERT(strcmp(sim_summary_name((enum sim_summary_field)a),
					 sim_summary_name((enum sim_summary_field)b)) != 0);
}

static void test_metrics_per_job(void)
{
	struct sim_trace *t = fx_trace();
	CU_ASSERT_FATAL(t != NULL);
	const struct sim_job *j = t->jobs;
	CU_ASSERT_DOUBLE_EQUAL(sim_job_wait_s(&j[1]), 3500, EPS);
	CU_ASSERT_DOUBLE_EQUAL(sim_job_jct_s(&j[1]), 5300, EPS);
	CU_ASSERT_DOUBLE_EQUAL(sim_job_bsld(&j[1]), 5300.0 / 1800.0, EPS);
	/* j4: 5 s run, bounded by tau = 10 s: jct 5 / 10 < 1 -> 1 */
	CU_ASSERT_DOUBLE_EQUAL(sim_job_jct_s(&j[3]), 5, EPS);
	CU_ASSERT_DOUBLE_EQUAL(sim_job_bsld(&j[3]), 1.0, EPS);
	/* rejected: no wait, no JCT, no bsld even though end_ns is set */
	CU_ASSERT(isnan(sim_job_wait_s(&j[4])));
	CU_ASSERT(isnan(sim_job_jct_s(&j[4])));
	CU_ASSERT(isnan(sim_job_bsld(&j[4])));
	/* running at the end: a wait but no JCT */
	CU_ASSERT_DOUBLE_EQUAL(sim_job_wait_s(&j[6]), 400, EPS);
	CU_ASSERT(isnan(sim_job_jct_s(&j[6])));
	sim_trace_destroy(t);
}

static void test_metrics_job_flavor_and_alloc(void)
{
	struct sim_trace *t = fx_trace();
	struct sim_cluster *c = fx_cluster();
	CU_ASSERT_FATAL(t != NULL && c != NULL);
	CU_ASSERT_EQUAL(sim_metrics_job_flavor(t, &t->jobs[3]), 1);   /* option 1: a100 */
	CU_ASSERT_EQUAL(sim_metrics_job_alloc_gpu(t, c, &t->jobs[3]), 4000);
	CU_ASSERT_EQUAL(sim_metrics_job_alloc_gpu(t, c, &t->jobs[2]), 16000); /* 12 -> 2 whole nodes */
	CU_ASSERT_EQUAL(sim_metrics_job_flavor(t, &t->jobs[4]), -1); /* never placed */
	CU_ASSERT_EQUAL(sim_metrics_job_alloc_gpu(t, c, &t->jobs[4]), -1);
	/* a live alloc wins over the option (a "*" request placed on a100) */
	t->opts[t->jobs[0].opt_first].flavor_id = SIM_FLAVOR_ANY;
	CU_ASSERT_EQUAL(sim_metrics_job_flavor(t, &t->jobs[0]), -1);
	t->jobs[0].alloc.flavor = 1;
	CU_ASSERT_EQUAL(sim_metrics_job_flavor(t, &t->jobs[0]), 1);
	t->jobs[0].alloc.flavor = -1;
	sim_cluster_destroy(c);
	sim_trace_destroy(t);
}

static void test_metrics_summary_hand_computed(void)
{
	struct sim_trace *t = fx_trace();
	struct sim_cluster *c = fx_cluster();
	CU_ASSERT_FATAL(t != NULL && c != NULL);
	struct sim_summary s;
	CU_ASSERT_EQUAL_FATAL(sim_metrics_summarize(t, c, FX_END_NS, &s), 0);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_jobs], 7, EPS);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_completed], 4, EPS);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_rejected], 1, EPS);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_unfinished], 2, EPS);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_mean_wait_s], 1820, EPS);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_p50_wait_s], 400, EPS);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_p95_wait_s], 4860, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_p99_wait_s], 5132, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_max_wait_s], 5200, EPS);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_mean_jct_s], 4426.25, EPS);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_p50_jct_s], 4450, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_p95_jct_s], 8275, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_p99_jct_s], 8695, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_mean_bsld], (2.0 + 22.0 / 9.0 + 53.0 / 18.0) / 4.0, EPS);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_p50_bsld], (22.0 / 9.0 + 1.0) / 2.0, EPS);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_makespan_s], 10000, EPS);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_gpu_capacity], 20, EPS);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_busy_gpu_s], 111620, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_utilization], 0.5581, EPS);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_throughput_per_h], 1.44, EPS);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_cost], 16 + 4 + 32 + 8.0 * 5 / 3600 + 10, 1e-9);
	/* preemption, from the job table */
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_preemptions], 2, 0);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_lost_gpu_s], 3601.5, EPS);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_restore_s], 30, EPS);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_preempted_out], 0, 0);
	/* fallback, pending limit and cost (schema 1.3) */
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_fallback_rate], 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_pending_timeouts], 0, 0);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_pending_timeout_rate], 0, 0);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_mean_cost_per_job], (16 + 4 + 32 + 8.0 * 5 / 3600 + 10) / 5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_interruptions], 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_fallback_evals], 5, 0);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_failed], 0, 0);
	/* every field was written; fairness needs the queues (sim_metrics_summarize_queues),
	 * and the real-mode fields a real run (gpu_exec/real_results.h) */
	for (int f = 0; f < SIM_SUM_COUNT_; f++)
		CU_ASSERT(isfinite(s.v[f]) || f == SIM_SUM_jain_fairness || f >= SIM_SUM_runtime_error);
	CU_ASSERT(isnan(s.v[SIM_SUM_jain_fairness]));
	CU_ASSERT(isnan(s.v[SIM_SUM_runtime_error]));
	CU_ASSERT(isnan(s.v[SIM_SUM_decision_latency_p50_s]));
	CU_ASSERT(isnan(s.v[SIM_SUM_decision_latency_p99_s]));
	t->jobs[5].state = SIM_JOB_PREEMPTED_OUT;
	CU_ASSERT_EQUAL_FATAL(sim_metrics_summarize(t, c, FX_END_NS, &s), 0);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_preempted_out], 1, 0);
	t->jobs[5].state = SIM_JOB_FAILED;
	CU_ASSERT_EQUAL_FATAL(sim_metrics_summarize(t, c, FX_END_NS, &s), 0);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_failed], 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_preempted_out], 0, 0);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_unfinished], 1, 0);
	sim_cluster_destroy(c);
	sim_trace_destroy(t);
}

/* Per-job cost (results_fixture.h): the summary's cost is their sum, to the bit. */
static void test_metrics_job_cost(void)
{
	struct sim_trace *t = fx_trace();
	struct sim_cluster *c = fx_cluster();
	CU_ASSERT_FATAL(t != NULL && c != NULL);
	static const double want[FX_N_JOBS] = { 16, 4, 32, 8.0 * 5 / 3600, 0, 0, 10 };
	double sum = 0;
	for (size_t i = 0; i < FX_N_JOBS; i++) {
		double jc = sim_metrics_job_cost(t, c, &t->jobs[i]);
		CU_ASSERT_DOUBLE_EQUAL(jc, want[i], 1e-12);
		sum += jc;
	}
	struct sim_summary s;
	CU_ASSERT_EQUAL_FATAL(sim_metrics_summarize(t, c, FX_END_NS, &s), 0);
	CU_ASSERT(s.v[SIM_SUM_cost] == sum);
	/* a preempted job pays for the time it held its nodes (held_s), not its span */
	t->jobs[0].held_s = 1800;
	CU_ASSERT_DOUBLE_EQUAL(sim_metrics_job_cost(t, c, &t->jobs[0]), 8, 1e-12);
	/* GPUs held on a flavor the cluster does not have: unknown, and left out of the sums */
	t->opts[t->jobs[0].opt_first].flavor_id = 7;
	CU_ASSERT(isnan(sim_metrics_job_cost(t, c, &t->jobs[0])));
	CU_ASSERT_EQUAL_FATAL(sim_metrics_summarize(t, c, FX_END_NS, &s), 0);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_cost], sum - 16, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_mean_cost_per_job], (sum - 16) / 4, 1e-9);
	sim_cluster_destroy(c);
	sim_trace_destroy(t);
}

/* Fallback rate and pending timeouts as the run state changes (results_fixture.h). */
static void test_metrics_fallback_and_timeouts(void)
{
	struct sim_trace *t = fx_trace();
	struct sim_cluster *c = fx_cluster();
	CU_ASSERT_FATAL(t != NULL && c != NULL);
	struct sim_summary s;
	/* j6 (max_pending_s 600) timed out instead of staying queued: 1 of 2 limited jobs */
	t->jobs[5].state = SIM_JOB_TIMED_OUT_PENDING;
	t->jobs[5].end_ns = FX_S(1150);
	CU_ASSERT_EQUAL_FATAL(sim_metrics_summarize(t, c, FX_END_NS, &s), 0);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_pending_timeouts], 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_pending_timeout_rate], 0.5, 0);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_unfinished], 1, 0);
	CU_ASSERT(isnan(sim_job_wait_s(&t->jobs[5])) && isnan(sim_job_jct_s(&t->jobs[5])));
	/* no job with a limit: no rate */
	t->jobs[0].max_pending_ns = t->jobs[5].max_pending_ns = SIM_TIME_NONE;
	CU_ASSERT_EQUAL_FATAL(sim_metrics_summarize(t, c, FX_END_NS, &s), 0);
	CU_ASSERT(isnan(s.v[SIM_SUM_pending_timeout_rate]));
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_pending_timeouts], 1, 0);
	/* j4 ran on its first option: no fallback among the started 2-option jobs */
	t->jobs[3].opt_chosen = 0;
	CU_ASSERT_EQUAL_FATAL(sim_metrics_summarize(t, c, FX_END_NS, &s), 0);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_fallback_rate], 0, 0);
	/* a second 2-option job (j6, option 1) that never started does not count */
	t->jobs[5].n_opts = 2;
	t->jobs[5].opt_chosen = -1;
	CU_ASSERT_EQUAL_FATAL(sim_metrics_summarize(t, c, FX_END_NS, &s), 0);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_fallback_rate], 0, 0);
	/* j4 never started: no started job with 2+ options, no rate */
	t->jobs[3].start_ns = SIM_TIME_NONE;
	t->jobs[3].state = SIM_JOB_UNFINISHED;
	CU_ASSERT_EQUAL_FATAL(sim_metrics_summarize(t, c, FX_END_NS, &s), 0);
	CU_ASSERT(isnan(s.v[SIM_SUM_fallback_rate]));
	sim_cluster_destroy(c);
	sim_trace_destroy(t);
}

/* The per-option table of the fixture, by hand (results_fixture.h). */
static void test_metrics_options_hand_computed(void)
{
	struct sim_trace *t = fx_trace();
	struct sim_cluster *c = fx_cluster();
	CU_ASSERT_FATAL(t != NULL && c != NULL);
	struct sim_option_row rows[SIM_MAX_OPTIONS];
	size_t n = 99;
	CU_ASSERT_EQUAL_FATAL(sim_metrics_options(t, c, rows, &n), 0);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	const double *r0 = rows[0].v, *r1 = rows[1].v;
	CU_ASSERT_DOUBLE_EQUAL(r0[SIM_OF_jobs], 4, 0);
	CU_ASSERT_DOUBLE_EQUAL(r0[SIM_OF_share], 0.8, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r0[SIM_OF_mean_wait_s], 2275, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r0[SIM_OF_p50_wait_s], 1950, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(r0[SIM_OF_p95_wait_s], 4945, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(r0[SIM_OF_mean_runtime_s], 100, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r0[SIM_OF_runtime_ratio], 1, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r0[SIM_OF_mean_cost], 15.5, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r1[SIM_OF_jobs], 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(r1[SIM_OF_share], 0.2, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r1[SIM_OF_mean_wait_s], 0, 0);
	CU_ASSERT_DOUBLE_EQUAL(r1[SIM_OF_p50_wait_s], 0, 0);
	CU_ASSERT_DOUBLE_EQUAL(r1[SIM_OF_p95_wait_s], 0, 0);
	CU_ASSERT_DOUBLE_EQUAL(r1[SIM_OF_mean_runtime_s], 400, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r1[SIM_OF_runtime_ratio], 4, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r1[SIM_OF_mean_cost], 8.0 * 5 / 3600, 1e-12);
	/* the options' costs add up to the summary's */
	struct sim_summary s;
	CU_ASSERT_EQUAL_FATAL(sim_metrics_summarize(t, c, FX_END_NS, &s), 0);
	CU_ASSERT_DOUBLE_EQUAL(r0[SIM_OF_mean_cost] * 4 + r1[SIM_OF_mean_cost], s.v[SIM_SUM_cost], 1e-9);

	/* option 1 states its own duration (250 s): that is its runtime, ratio 2.5 */
	t->opts[t->jobs[3].opt_first + 1].duration_ns = FX_S(250);
	CU_ASSERT_EQUAL_FATAL(sim_metrics_options(t, c, rows, &n), 0);
	CU_ASSERT_DOUBLE_EQUAL(rows[1].v[SIM_OF_mean_runtime_s], 250, EPS);
	CU_ASSERT_DOUBLE_EQUAL(rows[1].v[SIM_OF_runtime_ratio], 2.5, EPS);
	t->opts[t->jobs[3].opt_first + 1].duration_ns = 0;

	/* a "*" option 0 runs at the speed of the flavor it ran on: j7 on a100 (0.5) */
	t->opts[t->jobs[6].opt_first].flavor_id = SIM_FLAVOR_ANY;
	t->jobs[6].alloc.flavor = 1;
	CU_ASSERT_EQUAL_FATAL(sim_metrics_options(t, c, rows, &n), 0);
	CU_ASSERT_DOUBLE_EQUAL(rows[0].v[SIM_OF_mean_runtime_s], (100 * 3 + 200) / 4.0, EPS);
	CU_ASSERT_DOUBLE_EQUAL(rows[0].v[SIM_OF_runtime_ratio], 1, EPS);

	/* a 3-option job that never ran: a third row without jobs; shares unchanged */
	t->jobs[5].n_opts = 3;
	CU_ASSERT_EQUAL_FATAL(sim_metrics_options(t, c, rows, &n), 0);
	CU_ASSERT_EQUAL_FATAL(n, 3);
	CU_ASSERT_DOUBLE_EQUAL(rows[2].v[SIM_OF_jobs], 0, 0);
	CU_ASSERT_DOUBLE_EQUAL(rows[2].v[SIM_OF_share], 0, 0);
	CU_ASSERT(isnan(rows[2].v[SIM_OF_mean_wait_s]) && isnan(rows[2].v[SIM_OF_p95_wait_s]));
	CU_ASSERT(isnan(rows[2].v[SIM_OF_runtime_ratio]) && isnan(rows[2].v[SIM_OF_mean_cost]));
	CU_ASSERT_DOUBLE_EQUAL(rows[0].v[SIM_OF_share] + rows[1].v[SIM_OF_share], 1, EPS);
	t->jobs[5].n_opts = 1;

	/* nothing started: counts 0, every other value NaN */
	for (size_t i = 0; i < t->n_jobs; i++)
		t->jobs[i].start_ns = SIM_TIME_NONE;
	CU_ASSERT_EQUAL_FATAL(sim_metrics_options(t, c, rows, &n), 0);
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT_DOUBLE_EQUAL(rows[0].v[SIM_OF_jobs], 0, 0);
	CU_ASSERT(isnan(rows[0].v[SIM_OF_share]) && isnan(rows[1].v[SIM_OF_mean_wait_s]));
	sim_cluster_destroy(c);
	sim_trace_destroy(t);

	/* an empty trace has no rows */
	t = sim_trace_create();
	c = fx_cluster();
	CU_ASSERT_FATAL(t != NULL && c != NULL);
	CU_ASSERT_EQUAL(sim_metrics_options(t, c, rows, &n), 0);
	CU_ASSERT_EQUAL(n, 0);
	sim_cluster_destroy(c);
	sim_trace_destroy(t);
}

static void test_metrics_option_field_names(void)
{
	CU_ASSERT_STRING_EQUAL(sim_option_field_name(SIM_OF_jobs), "jobs");
	CU_ASSERT_STRING_EQUAL(sim_option_field_name(SIM_OF_runtime_ratio), "runtime_ratio");
	CU_ASSERT_STRING_EQUAL(sim_option_field_unit(SIM_OF_mean_cost), "currency");
	CU_ASSERT_STRING_EQUAL(sim_option_field_unit(SIM_OF_p95_wait_s), "s");
	CU_ASSERT_STRING_EQUAL(sim_option_field_name(SIM_OF_COUNT_), "invalid");
	CU_ASSERT_STRING_EQUAL(sim_summary_name(SIM_SUM_fallback_rate), "fallback_rate");
	CU_ASSERT_STRING_EQUAL(sim_summary_unit(SIM_SUM_mean_cost_per_job), "currency");
	for (int a = 0; a < SIM_OF_COUNT_; a++) {
		CU_ASSERT(strlen(sim_option_field_description((enum sim_option_field)a)) > 0);
		CU_ASSERT(strcmp(sim_option_field_name((enum sim_option_field)a), "option") != 0);
		for (int b = a + 1; b < SIM_OF_COUNT_; b++)
			CU_ASSERT(strcmp(sim_option_field_name((enum sim_option_field)a),
					 sim_option_field_name((enum sim_option_field)b)) != 0);
	}
}

/* Jain's index by hand: equal shares 1, one share holding everything 1/n. */
static void test_metrics_jain_hand_computed(void)
{
	const double one_one[] = { 1, 1 }, one_zero[] = { 1, 0 }, three[] = { 2, 1, 1 }, zeros[] = { 0, 0 };
	const double alone[] = { 0.3 }, nan_in[] = { 1, NAN };
	CU_ASSERT_DOUBLE_EQUAL(sim_metrics_jain(one_one, 2), 1.0, EPS);
	CU_ASSERT_DOUBLE_EQUAL(sim_metrics_jain(one_zero, 2), 0.5, EPS);
	CU_ASSERT_DOUBLE_EQUAL(sim_metrics_jain(three, 3), 16.0 / 18.0, EPS); /* 4^2 / (3 x 6) */
	CU_ASSERT_DOUBLE_EQUAL(sim_metrics_jain(alone, 1), 1.0, EPS);
	CU_ASSERT(isnan(sim_metrics_jain(zeros, 2)));
	CU_ASSERT(isnan(sim_metrics_jain(one_one, 0)));
	CU_ASSERT(isnan(sim_metrics_jain(nan_in, 2)));
}

/* The per-queue rows of the fixture (results_fixture.h has the hand computation). */
static void test_metrics_queues_hand_computed(void)
{
	struct sim_trace *t = fx_trace();
	struct sim_timeseries ts;
	CU_ASSERT_FATAL(t != NULL && fx_timeseries(&ts, 11) == 0 && fx_timeseries_queues(&ts) == 0);
	struct sim_queue_acct acct[2];
	fx_queue_acct(acct);
	struct sim_decisions ds = fx_decisions();
	struct sim_queue_row rows[2];
	CU_ASSERT_EQUAL_FATAL(sim_metrics_queues(t, acct, &ts, &ds, FX_END_NS, rows), 0);
	const double *q = rows[0].v, *r = rows[1].v;
	CU_ASSERT_DOUBLE_EQUAL(q[SIM_QF_nominal_gpus], 12, 0);
	CU_ASSERT_DOUBLE_EQUAL(q[SIM_QF_jobs], 6, 0);
	CU_ASSERT_DOUBLE_EQUAL(q[SIM_QF_completed], 3, 0);
	CU_ASSERT_DOUBLE_EQUAL(q[SIM_QF_mean_wait_s], 1400, EPS);
	CU_ASSERT_DOUBLE_EQUAL(q[SIM_QF_p95_wait_s], 4480, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(q[SIM_QF_busy_gpu_h], 25, EPS);
	CU_ASSERT_DOUBLE_EQUAL(q[SIM_QF_borrowed_gpu_h], 1, EPS);
	CU_ASSERT_DOUBLE_EQUAL(q[SIM_QF_lent_gpu_h], 3000.0 / 3600, EPS);
	CU_ASSERT_DOUBLE_EQUAL(q[SIM_QF_below_nominal_demanding_h], 0.5, EPS);
	CU_ASSERT_DOUBLE_EQUAL(q[SIM_QF_preemptions_suffered], 0, 0);
	CU_ASSERT_DOUBLE_EQUAL(q[SIM_QF_preemptions_caused], 1, 0); /* j1; j7's quota shrink is not counted */
	CU_ASSERT_DOUBLE_EQUAL(q[SIM_QF_lost_gpu_h], 1.5 / 3600, EPS);
	CU_ASSERT_DOUBLE_EQUAL(q[SIM_QF_restore_h], 0, 0);
	CU_ASSERT_DOUBLE_EQUAL(q[SIM_QF_share], 0.75, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r[SIM_QF_nominal_gpus], 8, 0);
	CU_ASSERT_DOUBLE_EQUAL(r[SIM_QF_jobs], 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(r[SIM_QF_completed], 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(r[SIM_QF_mean_wait_s], 3500, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r[SIM_QF_p95_wait_s], 3500, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r[SIM_QF_busy_gpu_h], 2, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r[SIM_QF_borrowed_gpu_h], 0, 0);
	CU_ASSERT_DOUBLE_EQUAL(r[SIM_QF_lent_gpu_h], 10000.0 / 3600, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r[SIM_QF_preemptions_suffered], 2, 0);
	CU_ASSERT_DOUBLE_EQUAL(r[SIM_QF_preemptions_caused], 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(r[SIM_QF_lost_gpu_h], 1, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r[SIM_QF_restore_h], 30.0 / 3600, EPS);
	CU_ASSERT_DOUBLE_EQUAL(r[SIM_QF_share], 0.09, EPS);

	/* the summary: fairness of shares 0.75 and 0.09 */
	struct sim_cluster *c = fx_cluster();
	CU_ASSERT_FATAL(c != NULL);
	struct sim_summary s;
	CU_ASSERT_EQUAL_FATAL(sim_metrics_summarize(t, c, FX_END_NS, &s), 0);
	double busy_jobs = s.v[SIM_SUM_busy_gpu_s];
	sim_metrics_summarize_queues(t, rows, &s);
	double jain = 0.84 * 0.84 / (2 * (0.75 * 0.75 + 0.09 * 0.09));
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_jain_fairness], jain, EPS);
	/* busy GPU-seconds stay the jobs' held time, to the bit */
	CU_ASSERT(s.v[SIM_SUM_busy_gpu_s] == busy_jobs);
	/* a queue without jobs, or with nominal 0, is left out: one queue left, index 1 */
	rows[0].v[SIM_QF_jobs] = 0;
	sim_metrics_summarize_queues(t, rows, &s);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_jain_fairness], 1.0, EPS);
	rows[1].v[SIM_QF_nominal_gpus] = 0;
	sim_metrics_summarize_queues(t, rows, &s);
	CU_ASSERT(isnan(s.v[SIM_SUM_jain_fairness]));

	/* without the engine's inputs: what the jobs give, NaN for the rest */
	CU_ASSERT_EQUAL_FATAL(sim_metrics_queues(t, NULL, NULL, NULL, SIM_TIME_NONE, rows), 0);
	CU_ASSERT_DOUBLE_EQUAL(rows[0].v[SIM_QF_jobs], 6, 0);
	CU_ASSERT_DOUBLE_EQUAL(rows[0].v[SIM_QF_mean_wait_s], 1400, EPS);
	CU_ASSERT(isnan(rows[0].v[SIM_QF_nominal_gpus]) && isnan(rows[0].v[SIM_QF_busy_gpu_h]));
	CU_ASSERT(isnan(rows[0].v[SIM_QF_lent_gpu_h]) && isnan(rows[0].v[SIM_QF_share]));
	CU_ASSERT_DOUBLE_EQUAL(rows[0].v[SIM_QF_preemptions_caused], 1, 0); /* the jobs' own counts */
	/* no quota policy: usage is exact, the quota values NaN */
	ts.has_quota_stats = 0;
	CU_ASSERT_EQUAL_FATAL(sim_metrics_queues(t, acct, &ts, &ds, FX_END_NS, rows), 0);
	CU_ASSERT_DOUBLE_EQUAL(rows[0].v[SIM_QF_busy_gpu_h], 25, EPS);
	CU_ASSERT(isnan(rows[0].v[SIM_QF_nominal_gpus]) && isnan(rows[0].v[SIM_QF_borrowed_gpu_h]));
	CU_ASSERT(isnan(rows[1].v[SIM_QF_lent_gpu_h]) && isnan(rows[1].v[SIM_QF_share]));
	CU_ASSERT(isnan(rows[1].v[SIM_QF_below_nominal_demanding_h]));
	sim_cluster_destroy(c);
	fx_timeseries_free(&ts);
	sim_trace_destroy(t);
}

static void test_metrics_queue_field_names(void)
{
	CU_ASSERT_STRING_EQUAL(sim_queue_field_name(SIM_QF_nominal_gpus), "nominal_gpus");
	CU_ASSERT_STRING_EQUAL(sim_queue_field_unit(SIM_QF_busy_gpu_h), "GPU*h");
	CU_ASSERT_STRING_EQUAL(sim_queue_field_name(SIM_QF_share), "share");
	CU_ASSERT_STRING_EQUAL(sim_queue_field_name(SIM_QF_COUNT_), "invalid");
	CU_ASSERT_STRING_EQUAL(sim_summary_name(SIM_SUM_jain_fairness), "jain_fairness");
	CU_ASSERT_STRING_EQUAL(sim_summary_unit(SIM_SUM_lost_gpu_s), "GPU*s");
	for (int a = 0; a < SIM_QF_COUNT_; a++) {
		CU_ASSERT(strlen(sim_queue_field_description((enum sim_queue_field)a)) > 0);
		for (int b = a + 1; b < SIM_QF_COUNT_; b++)
			CU_ASSERT(strcmp(sim_queue_field_name((enum sim_queue_field)a),
					 sim_queue_field_name((enum sim_queue_field)b)) != 0);
	}
}

static void test_metrics_summary_no_data_is_nan(void)
{
	struct sim_trace *t = fx_trace();
	struct sim_cluster *c = fx_cluster();
	CU_ASSERT_FATAL(t != NULL && c != NULL);
	/* Nothing started: every job rejected. */
	for (size_t i = 0; i < t->n_jobs; i++) {
		t->jobs[i].state = SIM_JOB_REJECTED;
		t->jobs[i].start_ns = SIM_TIME_NONE;
		t->jobs[i].opt_chosen = -1;
	}
	struct sim_summary s;
	CU_ASSERT_EQUAL_FATAL(sim_metrics_summarize(t, c, FX_END_NS, &s), 0);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_rejected], 7, EPS);
	CU_ASSERT(isnan(s.v[SIM_SUM_mean_wait_s]));
	CU_ASSERT(isnan(s.v[SIM_SUM_p99_wait_s]));
	CU_ASSERT(isnan(s.v[SIM_SUM_max_wait_s]));
	CU_ASSERT(isnan(s.v[SIM_SUM_mean_jct_s]));
	CU_ASSERT(isnan(s.v[SIM_SUM_mean_bsld]));
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_busy_gpu_s], 0, EPS);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_utilization], 0, EPS);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_cost], 0, EPS);
	sim_cluster_destroy(c);
	sim_trace_destroy(t);
}

static void test_metrics_summary_empty_trace(void)
{
	struct sim_trace *t = sim_trace_create();
	struct sim_cluster *c = fx_cluster();
	CU_ASSERT_FATAL(t != NULL && c != NULL);
	struct sim_summary s;
	CU_ASSERT_EQUAL_FATAL(sim_metrics_summarize(t, c, 0, &s), 0);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_jobs], 0, EPS);
	CU_ASSERT(isnan(s.v[SIM_SUM_makespan_s]));
	CU_ASSERT(isnan(s.v[SIM_SUM_utilization]));
	CU_ASSERT(isnan(s.v[SIM_SUM_throughput_per_h]));
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_gpu_capacity], 20, EPS);
	sim_cluster_destroy(c);
	sim_trace_destroy(t);
}

static void test_metrics_replicate_student_t(void)
{
	struct sim_summary runs[3], mean, ci;
	for (int r = 0; r < 3; r++)
		for (int f = 0; f < SIM_SUM_COUNT_; f++)
			runs[r].v[f] = (double)(r + 1); /* 1, 2, 3 */
	runs[1].v[SIM_SUM_cost] = NAN;                                 /* skipped: mean of 1 and 3 */
	runs[0].v[SIM_SUM_p99_bsld] = runs[1].v[SIM_SUM_p99_bsld] = NAN; /* one value left */
	for (int r = 0; r < 3; r++)
		runs[r].v[SIM_SUM_p50_bsld] = NAN; /* none left */
	sim_metrics_replicate(runs, 3, &mean, &ci);
	/* mean 2, sd 1, t(0.975, 2) = 4.302652729749464 */
	CU_ASSERT_DOUBLE_EQUAL(mean.v[SIM_SUM_jobs], 2.0, EPS);
	CU_ASSERT_DOUBLE_EQUAL(ci.v[SIM_SUM_jobs], 4.302652729749464 / sqrt(3.0), 1e-9);
	/* cost: values 1 and 3: mean 2, sd sqrt(2), t(0.975, 1) = 12.706204736174707 */
	CU_ASSERT_DOUBLE_EQUAL(mean.v[SIM_SUM_cost], 2.0, EPS);
	CU_ASSERT_DOUBLE_EQUAL(ci.v[SIM_SUM_cost], 12.706204736174707 * sqrt(2.0) / sqrt(2.0), 1e-8);
	CU_ASSERT_DOUBLE_EQUAL(mean.v[SIM_SUM_p99_bsld], 3.0, EPS);
	CU_ASSERT_DOUBLE_EQUAL(ci.v[SIM_SUM_p99_bsld], 0.0, EPS);
	CU_ASSERT(isnan(mean.v[SIM_SUM_p50_bsld]));
	CU_ASSERT(isnan(ci.v[SIM_SUM_p50_bsld]));
}

static void test_metrics_replicate_single_run(void)
{
	struct sim_summary run, mean, ci;
	for (int f = 0; f < SIM_SUM_COUNT_; f++)
		run.v[f] = 0.25 * f;
	sim_metrics_replicate(&run, 1, &mean, &ci);
	for (int f = 0; f < SIM_SUM_COUNT_; f++) {
		CU_ASSERT_DOUBLE_EQUAL(mean.v[f], 0.25 * f, EPS);
		CU_ASSERT_DOUBLE_EQUAL(ci.v[f], 0.0, EPS);
	}
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The summary's order statistics (its own radix sort) equal qsort + GSL bit for bit on
 * 100,000 random waits with many ties and zeros. */
static void test_metrics_quantiles_match_qsort_reference(void)
{
	enum { N = 100000 };
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 99);
	struct sim_trace *t = sim_trace_create();
	char id[32];
	for (size_t i = 0; i < N; i++) {
		snprintf(id, sizeof id, "m%zu", i);
		tu_trace_add(t, id, (double)gsl_rng_uniform_int(r, 100000), 1 + gsl_rng_uniform_int(r, 5000),
			     SIM_MILLI, "f", 0);
	}
	tu_trace_finish(t);
	sim_trace_reset(t);
	double *w = malloc(N * sizeof *w);
	for (size_t i = 0; i < N; i++) {
		struct sim_job *j = &t->jobs[i];
		/* A third start at once; the rest wait a heavy-tailed, often repeated time. */
		double wait_s = gsl_rng_uniform(r) < 0.33 ? 0 : floor(gsl_ran_lognormal(r, 5, 2));
		j->state = SIM_JOB_COMPLETED;
		j->start_ns = j->submit_ns + (sim_time_t)(wait_s * 1e9);
		j->last_start_ns = j->start_ns;
		j->runtime_ns = j->duration_ns;
		j->end_ns = j->start_ns + j->duration_ns;
		j->opt_chosen = 0;
		j->alloc.flavor = 0;
		w[i] = sim_job_wait_s(j);
	}
	struct sim_cluster *c = tu_cluster(1, 8, 1.0, SIM_PLACE_BEST_FIT);
	struct sim_diag d;
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL_FATAL(sim_trace_bind(t, c, &d), 0);
	struct sim_summary sum;
	CU_ASSERT_EQUAL_FATAL(sim_metrics_summarize(t, c, (sim_time_t)1e15, &sum), 0);
	qsort(w, N, sizeof *w, cmp_dbl);
	CU_ASSERT(sum.v[SIM_SUM_p50_wait_s] == gsl_stats_quantile_from_sorted_data(w, 1, N, 0.50));
	CU_ASSERT(sum.v[SIM_SUM_p95_wait_s] == gsl_stats_quantile_from_sorted_data(w, 1, N, 0.95));
	CU_ASSERT(sum.v[SIM_SUM_p99_wait_s] == gsl_stats_quantile_from_sorted_data(w, 1, N, 0.99));
	CU_ASSERT(sum.v[SIM_SUM_max_wait_s] == w[N - 1]);
	CU_ASSERT(sum.v[SIM_SUM_mean_wait_s] == gsl_stats_mean(w, 1, N));
	CU_ASSERT(sum.v[SIM_SUM_p95_wait_s] > sum.v[SIM_SUM_p50_wait_s]); /* not degenerate */
	free(w);
	sim_cluster_destroy(c);
	sim_diag_fini(&d);
	sim_trace_destroy(t);
	gsl_rng_free(r);
}

/* Under capacity over time, utilization is busy GPU-seconds over the capacity in force. */
static void test_metrics_capacity_utilization(void)
{
	struct sim_summary s;
	for (int i = 0; i < SIM_SUM_COUNT_; i++)
		s.v[i] = NAN;
	s.v[SIM_SUM_busy_gpu_s] = 500;
	sim_metrics_set_capacity_gpu_s(&s, 1000); /* e.g. 8 GPUs for 100 s, 4 for 30, 8 for 10 */
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_utilization], 0.5, 1e-12);
	sim_metrics_set_capacity_gpu_s(&s, 0);
	CU_ASSERT(isnan(s.v[SIM_SUM_utilization]));
}

/* Sample i of n of case k of test_metrics_mean_is_gsl_mean. */
static double mean_case_sample(gsl_rng *r, int k, int i, int n)
{
	double u = gsl_rng_uniform(r);
	if (k == 0)
		return gsl_ran_exponential(r, 100.0);
	if (k == 1) /* waits: mostly none */
		return u < 0.9 ? 0.0 : gsl_ran_exponential(r, 100.0);
	if (k == 2) /* slowdowns: mostly 1 */
		return u < 0.5 ? 1.0 : 1.0 + floor(u * 8);
	if (k == 3)
		return u < 0.3 ? -0.0 : (u < 0.6 ? 0.0 : -u);
	if (k == 4) /* two infinities in a row */
		return i == n / 2 || i == n / 2 + 1 ? INFINITY : u;
	if (k == 5)
		return u < 0.5 ? 1e300 : -1e300;
	if (k == 6) /* subnormal */
		return u * 1e-310;
	return floor(u * 3);
}

/* sim_metrics_mean against gsl_stats_mean, bit for bit: random samples, sorted
 * samples with long runs of equal values (the waits of a run where most jobs never
 * wait), signed zeros, an infinity, huge and subnormal values. By hand: {0, 0, 6}
 * has mean 2 (0, then 0, then 0 + 6 / 3), and every sample skipped but the last. */
static void test_metrics_mean_is_gsl_mean(void)
{
	static const double small[] = { 0, 0, 6 };
	CU_ASSERT_EQUAL(sim_metrics_mean(small, 3), 2.0);
	CU_ASSERT_EQUAL(sim_metrics_mean(small, 0), 0.0);
	enum { N = 20000 };
	double *x = malloc(N * sizeof *x);
	CU_ASSERT_FATAL(x != NULL);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 7);
	for (int k = 0; k < 8; k++) {
		for (int i = 0; i < N; i++)
			x[i] = mean_case_sample(r, k, i, N);
		for (int sorted = 0; sorted < 2; sorted++) {
			if (sorted)
				gsl_sort(x, 1, N);
			double a = sim_metrics_mean(x, N), b = gsl_stats_mean(x, 1, N);
			CU_ASSERT_EQUAL(memcmp(&a, &b, sizeof a), 0);
			if (memcmp(&a, &b, sizeof a) != 0)
				fprintf(stderr, "\ncase %d sorted %d: %.17g against gsl %.17g\n", k, sorted, a, b);
		}
	}
	gsl_rng_free(r);
	free(x);
}

static CU_TestInfo metrics_tests[] = {
	{ "test_metrics_capacity_utilization", test_metrics_capacity_utilization },
	{ "test_metrics_quantiles_match_qsort_reference", test_metrics_quantiles_match_qsort_reference },
	{ "test_metrics_field_names", test_metrics_field_names },
	{ "test_metrics_per_job", test_metrics_per_job },
	{ "test_metrics_job_flavor_and_alloc", test_metrics_job_flavor_and_alloc },
	{ "test_metrics_summary_hand_computed", test_metrics_summary_hand_computed },
	{ "test_metrics_job_cost", test_metrics_job_cost },
	{ "test_metrics_fallback_and_timeouts", test_metrics_fallback_and_timeouts },
	{ "test_metrics_options_hand_computed", test_metrics_options_hand_computed },
	{ "test_metrics_option_field_names", test_metrics_option_field_names },
	{ "test_metrics_jain_hand_computed", test_metrics_jain_hand_computed },
	{ "test_metrics_queues_hand_computed", test_metrics_queues_hand_computed },
	{ "test_metrics_queue_field_names", test_metrics_queue_field_names },
	{ "test_metrics_summary_no_data_is_nan", test_metrics_summary_no_data_is_nan },
	{ "test_metrics_summary_empty_trace", test_metrics_summary_empty_trace },
	{ "test_metrics_replicate_student_t", test_metrics_replicate_student_t },
	{ "test_metrics_replicate_single_run", test_metrics_replicate_single_run },
	{ "test_metrics_mean_is_gsl_mean", test_metrics_mean_is_gsl_mean },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo metrics_suite = { "metrics", init_metrics, clean_metrics, NULL, NULL, metrics_tests };
