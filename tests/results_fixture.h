/* tests/results_fixture.h: a hand-built finished run for the metrics, h5out and
 * report suites (static inline so each test file includes it without warnings).
 *
 * Cluster: h100 (2 nodes x 8 GPU, 16 per node-hour) and a100 (1 node x 4 GPU,
 * 8 per node-hour): 20 GPUs. The run ends at 10000 s. Jobs, times in s:
 *
 *   id        submit option          start  end    runtime state        alloc
 *   j1        0      h100 gpu=8      0      3600   3600    COMPLETED    8
 *   j2        100    h100 gpu=4      3600   5400   1800    COMPLETED    4
 *   odd,"id"  200    h100 gpu=12     5400   9000   3600    COMPLETED    16 (2 whole nodes)
 *   j4        300    prefs h100:8 / a100:4, ran on option 1
 *                                    300    305    5       COMPLETED    4
 *   j5        400    h100 gpu=8      -      400    -       REJECTED
 *   j6        500    h100 gpu=1      -      -      -       UNFINISHED (never started)
 *   j7        600    a100 gpu=2      1000   -      20000   UNFINISHED (running at the end)
 *
 * Hand-computed summary (type-7 quantiles):
 *   waits [0, 0, 400, 3500, 5200]: mean 1820, p50 400, p95 4860, p99 5132, max 5200
 *   jcts [5, 3600, 5300, 8800]: mean 4426.25, p50 4450, p95 8275, p99 8695
 *   bsld [1, 1, 22/9, 53/18]: mean 1.8472222..
 *   busy_gpu_s 28800 + 7200 + 57600 + 20 + 18000 = 111620; makespan 10000;
 *   utilization 111620 / (20 x 10000) = 0.5581; throughput 4 / (10000/3600) = 1.44/h
 *   cost 16 + 4 + 32 + 8 x 5/3600 + 8 x 0.5 x 9000/3600 = 62.0111..
 *
 * Preemption (schema 1.2). Queues: "q" (every job but j2) and "research" (j2).
 * Job run state: j2 lost_gpu_s 3600, restore_s 30, 2 preemptions; j4 lost 1.5;
 * j1 ckpt_overhead_s 12; j7 has preemptions_caused 1 (the engine counts a quota
 * shrink it suffered as caused by itself; the results must not). Summary:
 * preemptions 2, lost_gpu_s 3601.5, restore_s 30, preempted_out 0.
 * fx_decisions, in order:
 *   t 1000  j1 -> j2  cohort_reclamation  requeued  lost 3600
 *   t 2000  j7 -> j7  quota_shrink        requeued  lost 0      (no preemptor)
 *   t 3000  j2 -> j4  cohort_fair_sharing out       lost 1.5
 * fx_queue_acct: q nominal 12, busy 90000 GPU*s, borrowed 3600, below nominal 1800 s;
 * research nominal 8, busy 7200, borrowed 0, below nominal 0.
 * fx_timeseries_queues: q_lent research 2 GPUs in samples 0..4 (t 0..5000 s), q 3
 * GPUs in sample 9 (9000..10000 s) and 5 in sample 10 (holds until the end, 10000 s:
 * nothing); usage and borrowed from the flavor columns.
 * Hand-computed queue rows (end 10000 s, makespan 10000 s):
 *   q: jobs 6, completed 3, waits [0, 0, 400, 5200] (j1, j4, j7, odd) mean 1400,
 *      p95 400 + 0.85 x 4800 = 4480; busy 25 GPU*h, borrowed 1, lent 3000/3600 = 0.8333, below 0.5 h,
 *      suffered 0, caused 1, lost 1.5/3600 h, restore 0, share 90000/120000 = 0.75
 *   research: jobs 1, completed 1, wait 3500 (mean = p95), busy 2, borrowed 0,
 *      lent 10000/3600 = 2.7778, below 0, suffered 2, caused 1, lost 1, restore
 *      30/3600, share 7200/80000 = 0.09
 *   jain_fairness (0.75 + 0.09)^2 / (2 (0.75^2 + 0.09^2)) = 0.618296..
 *
 * Fallback and cost (schema 1.3). Run state: pending_from = submit but j6 550 (it
 * waited for a reservation window); max_pending_s on j1 (7200) and j6 (600);
 * fb_evals j4 3, j6 2; interruptions j7 1. Every job's duration is 100 s on option 0.
 * Per-job cost: j1 16, j2 4, odd 32, j4 8 x 4/4 x 5/3600 = 1/90, j7 8 x 2/4 x 2.5 = 10,
 * j5 and j6 0 (never started). Summary: fallback_rate 1/1 (j4, the one started job
 * with 2 options, ran on option 1), pending_timeouts 0, pending_timeout_rate 0/2,
 * mean_cost_per_job 62.0111.. / 5 = 12.40222.., interruptions 1, fallback_evals 5.
 * Options table (2 rows: j4 lists 2 options):
 *   option 0: j1, j2, odd, j7: jobs 4, share 0.8, waits [0, 400, 3500, 5200] mean 2275,
 *      p50 1950, p95 3500 + 0.85 x 1700 = 4945; runtime 100 (as stated), ratio 1,
 *      mean cost (16 + 4 + 32 + 10) / 4 = 15.5
 *   option 1: j4: jobs 1, share 0.2, wait 0; runtime 100 x (8 x 1.0) / (4 x 0.5) = 400
 *      (a100 at speed 0.5), ratio 4, cost 1/90
 */
#ifndef TESTS_RESULTS_FIXTURE_H
#define TESTS_RESULTS_FIXTURE_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cluster.h"
#include "sim/engine.h"
#include "sim/job.h"

#define FX_N_JOBS 7
#define FX_END_NS (10000 * SIM_NS_PER_S)
#define FX_S(x) ((sim_time_t)((x) * (double)SIM_NS_PER_S))

static inline struct sim_cluster *fx_cluster(void)
{
	struct sim_resources res;
	sim_resources_init(&res);
	struct sim_flavor_spec specs[2];
	memset(specs, 0, sizeof specs);
	strcpy(specs[0].name, "h100");
	specs[0].nodes = 2;
	specs[0].node_cap[SIM_RES_GPU] = 8000;
	specs[0].speed = 1.0;
	specs[0].price_per_node_hour = 16.0;
	strcpy(specs[1].name, "a100");
	specs[1].nodes = 1;
	specs[1].node_cap[SIM_RES_GPU] = 4000;
	specs[1].speed = 0.5;
	specs[1].price_per_node_hour = 8.0;
	return sim_cluster_create(&res, specs, 2, SIM_PLACE_BEST_FIT);
}

struct fx_job {
	const char *id;
	double submit, start, end, runtime; /* s; start/end/runtime < 0: none */
	int n_opts;
	int flavor[2];
	double gpus[2];
	int chosen;
	int state;
	int32_t priority;
	uint32_t preemptions;
};

static const struct fx_job fx_jobs[FX_N_JOBS] = {
	{ "j1", 0, 0, 3600, 3600, 1, { 0, 0 }, { 8, 0 }, 0, SIM_JOB_COMPLETED, 5, 0 },
	{ "j2", 100, 3600, 5400, 1800, 1, { 0, 0 }, { 4, 0 }, 0, SIM_JOB_COMPLETED, 0, 2 },
	{ "odd,\"id\"", 200, 5400, 9000, 3600, 1, { 0, 0 }, { 12, 0 }, 0, SIM_JOB_COMPLETED, -3, 0 },
	{ "j4", 300, 300, 305, 5, 2, { 0, 1 }, { 8, 4 }, 1, SIM_JOB_COMPLETED, 0, 0 },
	{ "j5", 400, -1, 400, -1, 1, { 0, 0 }, { 8, 0 }, -1, SIM_JOB_REJECTED, 0, 0 },
	{ "j6", 500, -1, -1, -1, 1, { 0, 0 }, { 1, 0 }, -1, SIM_JOB_UNFINISHED, 0, 0 },
	{ "j7", 600, 1000, -1, 20000, 1, { 1, 0 }, { 2, 0 }, 0, SIM_JOB_UNFINISHED, 0, 0 },
};

/* A trace bound to fx_cluster() (option flavor ids are cluster indices) whose run
 * state is the finished run above. NULL on no memory. */
static inline struct sim_trace *fx_trace(void)
{
	struct sim_trace *t = sim_trace_create();
	if (!t)
		return NULL;
	t->jobs = calloc(FX_N_JOBS, sizeof *t->jobs);
	t->opts = calloc(2 * FX_N_JOBS, sizeof *t->opts);
	t->strings = calloc(1, 256);
	if (!t->jobs || !t->opts || !t->strings || sim_trace_intern_queue(t, "q") < 0 ||
	    sim_trace_intern_queue(t, "research") < 0 || sim_trace_intern_user(t, "alice") < 0) {
		sim_trace_destroy(t);
		return NULL;
	}
	t->n_jobs = FX_N_JOBS;
	for (size_t i = 0; i < FX_N_JOBS; i++) {
		const struct fx_job *f = &fx_jobs[i];
		struct sim_job *j = &t->jobs[i];
		j->idx = (uint32_t)i;
		j->line = (uint32_t)i + 2;
		j->id_off = (uint32_t)t->strings_len;
		strcpy(t->strings + t->strings_len, f->id);
		t->strings_len += strlen(f->id) + 1;
		j->queue = i == 1 ? 1 : 0;
		j->user = i == 0 ? 0 : -1;
		j->priority = f->priority;
		j->submit_ns = FX_S(f->submit);
		j->duration_ns = FX_S(100);
		j->estimate_ns = j->duration_ns;
		j->max_pending_ns = j->deadline_ns = j->checkpoint_ns = SIM_TIME_NONE;
		j->opt_first = (uint32_t)t->n_opts;
		j->n_opts = (uint8_t)f->n_opts;
		j->has_prefs = f->n_opts > 1;
		j->preemptible = 1;
		for (int k = 0; k < f->n_opts; k++) {
			struct sim_job_option *o = &t->opts[t->n_opts++];
			o->flavor_id = f->flavor[k];
			o->req[SIM_RES_GPU] = (sim_qty_t)(f->gpus[k] * 1000);
		}
	}
	t->bound = 1;
	sim_trace_reset(t);
	for (size_t i = 0; i < FX_N_JOBS; i++) {
		const struct fx_job *f = &fx_jobs[i];
		struct sim_job *j = &t->jobs[i];
		j->state = (uint8_t)f->state;
		j->opt_chosen = (int8_t)f->chosen;
		j->preemptions = f->preemptions;
		j->start_ns = f->start >= 0 ? FX_S(f->start) : SIM_TIME_NONE;
		j->last_start_ns = j->start_ns;
		j->end_ns = f->end >= 0 ? FX_S(f->end) : SIM_TIME_NONE;
		j->runtime_ns = f->runtime >= 0 ? FX_S(f->runtime) : 0;
		/* Time held: one segment, from start to end (or to the run's end for j7). */
		if (f->start >= 0)
			j->held_s = (double)((f->end >= 0 ? FX_S(f->end) : FX_END_NS) - j->start_ns) / SIM_NS_PER_S;
		/* The engine releases allocs at the end: flavors come from the options. */
		j->alloc.flavor = -1;
	}
	for (size_t i = 0; i < FX_N_JOBS; i++)
		t->jobs[i].pending_from_ns = t->jobs[i].submit_ns;
	t->jobs[5].pending_from_ns = FX_S(550);
	t->jobs[0].max_pending_ns = FX_S(7200);
	t->jobs[5].max_pending_ns = FX_S(600);
	t->jobs[3].fb_evals = 3;
	t->jobs[5].fb_evals = 2;
	t->jobs[6].interruptions = 1;
	t->jobs[1].lost_gpu_s = 3600;
	t->jobs[1].restore_s = 30;
	t->jobs[3].lost_gpu_s = 1.5;
	t->jobs[0].ckpt_overhead_s = 12;
	t->jobs[6].preemptions_caused = 1;
	return t;
}

#define FX_N_DECISIONS 3
static const struct sim_decision fx_decision_rows[FX_N_DECISIONS] = {
	{ .t = 1000 * SIM_NS_PER_S, .preemptor = 0, .victim = 1, .reason = SIM_PR_COHORT_RECLAMATION,
	  .requeued = 1, .lost_gpu_s = 3600 },
	{ .t = 2000 * SIM_NS_PER_S, .preemptor = 6, .victim = 6, .reason = SIM_PR_QUOTA_SHRINK, .requeued = 1,
	  .lost_gpu_s = 0 },
	{ .t = 3000 * SIM_NS_PER_S, .preemptor = 1, .victim = 3, .reason = SIM_PR_COHORT_FAIR_SHARING,
	  .requeued = 0, .lost_gpu_s = 1.5 },
};

/* The fixture's decisions (borrowing the static rows). */
static inline struct sim_decisions fx_decisions(void)
{
	struct sim_decisions d = { (struct sim_decision *)fx_decision_rows, FX_N_DECISIONS, FX_N_DECISIONS };
	return d;
}

/* The fixture's per-queue totals, as the engine would leave them. */
static inline void fx_queue_acct(struct sim_queue_acct acct[2])
{
	memset(acct, 0, 2 * sizeof *acct);
	acct[0].nominal = 12;
	acct[0].busy_gpu_s = 90000;
	acct[0].borrowed_gpu_s = 3600;
	acct[0].below_nominal_demanding_s = 1800;
	acct[1].nominal = 8;
	acct[1].busy_gpu_s = 7200;
}

/* A small time series for the fixture: n samples every 1000 s, 2 flavors. */
static inline int fx_timeseries(struct sim_timeseries *ts, size_t n)
{
	memset(ts, 0, sizeof *ts);
	ts->n = ts->cap = n;
	ts->n_flavors = 2;
	ts->t_s = calloc(n + 1, sizeof(double));
	ts->gpus_busy = calloc(n + 1, sizeof(double));
	ts->jobs_queued = calloc(n + 1, sizeof(double));
	ts->jobs_running = calloc(n + 1, sizeof(double));
	ts->gpus_busy_by_flavor = calloc(2 * n + 1, sizeof(double));
	if (!ts->t_s || !ts->gpus_busy || !ts->jobs_queued || !ts->jobs_running || !ts->gpus_busy_by_flavor)
		return -1;
	for (size_t i = 0; i < n; i++) {
		ts->t_s[i] = 1000.0 * (double)i;
		ts->gpus_busy_by_flavor[2 * i] = (double)(i % 17);
		ts->gpus_busy_by_flavor[2 * i + 1] = (double)(i % 5) * 0.5;
		ts->gpus_busy[i] = ts->gpus_busy_by_flavor[2 * i] + ts->gpus_busy_by_flavor[2 * i + 1];
		ts->jobs_queued[i] = (double)(i % 3);
		ts->jobs_running[i] = (double)(i % 4);
	}
	return 0;
}

/* Adds the per-queue columns of a quota run to a fixture series (2 queues): usage
 * the flavor columns (q: h100, research: a100), nominal 12 and 8, borrowed
 * max(0, usage - nominal), and q_lent as in the comment at the top. */
static inline int fx_timeseries_queues(struct sim_timeseries *ts)
{
	size_t n = ts->n;
	ts->n_queues = 2;
	ts->has_quota_stats = 1;
	ts->q_usage = calloc(2 * n + 1, sizeof(double));
	ts->q_nominal = calloc(2 * n + 1, sizeof(double));
	ts->q_borrowed = calloc(2 * n + 1, sizeof(double));
	ts->q_lent = calloc(2 * n + 1, sizeof(double));
	if (!ts->q_usage || !ts->q_nominal || !ts->q_borrowed || !ts->q_lent)
		return -1;
	for (size_t i = 0; i < n; i++) {
		for (size_t q = 0; q < 2; q++) {
			double u = ts->gpus_busy_by_flavor[2 * i + q], nom = q == 0 ? 12 : 8;
			ts->q_usage[2 * i + q] = u;
			ts->q_nominal[2 * i + q] = nom;
			ts->q_borrowed[2 * i + q] = u > nom ? u - nom : 0;
		}
		ts->q_lent[2 * i + 1] = i < 5 ? 2 : 0;
		ts->q_lent[2 * i] = i == 9 ? 3 : i == 10 ? 5 : 0;
	}
	return 0;
}

static inline void fx_timeseries_free(struct sim_timeseries *ts)
{
	free(ts->q_usage);
	free(ts->q_nominal);
	free(ts->q_borrowed);
	free(ts->q_lent);
	free(ts->t_s);
	free(ts->gpus_busy);
	free(ts->jobs_queued);
	free(ts->jobs_running);
	free(ts->gpus_busy_by_flavor);
	memset(ts, 0, sizeof *ts);
}

#endif
