/* tests/test_cohort.c: whole runs under the cohort quota policy (policies/cohort.c):
 * lending, reclaiming, the cost of preemption, retry limits, timed quota and
 * priority changes, and the beyond-Kueue knobs. Every number is worked by hand in
 * the comments. */
#include <CUnit/CUnit.h>
#include <cjson/cJSON.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../policies/kq_policy.h"
#include "../policies/policy.h"
#include "../sim/metrics.h"
#include "testutil.h"

static int init_cohort(void) { return 0; }
static int clean_cohort(void) { return 0; }

struct qrun {
	struct sim_trace *t;
	struct sim_cluster *c;
	struct sim_engine *e;
	struct sim_driver drv;
	struct sim_policy pol[SIM_FAM_COUNT_];
	struct sim_summary sum;
	int rc;
};

static size_t add_job(struct sim_trace *t, const char *id, double submit, double dur, int gpus, const char *queue,
		      int prio)
{
	size_t row = tu_trace_add(t, id, submit, dur, (sim_qty_t)gpus * 1000, "f", prio);
	t->jobs[row].queue = sim_trace_intern_queue(t, queue);
	return row;
}

static struct sim_job *job_by_id(struct sim_trace *t, const char *id)
{
	for (size_t i = 0; i < t->n_jobs; i++)
		if (strcmp(sim_job_id(t, &t->jobs[i]), id) == 0)
			return &t->jobs[i];
	CU_FAIL_FATAL("no such job");
	return NULL;
}

/* Runs trace t on `nodes` 8-GPU nodes with quota params (JSON) and preemption
 * params (JSON or NULL for none). The run stays inspectable until qrun_free. */
static void qrun(struct qrun *r, struct sim_trace *t, uint32_t nodes, const char *order, const char *quota,
		 const char *preempt)
{
	memset(r, 0, sizeof *r);
	r->t = t;
	tu_trace_finish(t);
	r->c = tu_cluster(nodes, 8, 1.0, SIM_PLACE_BEST_FIT);
	struct sim_diag d;
	sim_diag_init(&d, 20);
	d.echo = stderr;
	CU_ASSERT_EQUAL_FATAL(sim_trace_bind(t, r->c, &d), 0);
	sim_driver_virtual_init(&r->drv);
	struct sim_engine_params ep = { .trace = t, .cluster = r->c, .driver = r->drv,
					.sample_ns = 100 * SIM_NS_PER_S };
	const char *names[SIM_FAM_COUNT_] = { order, "cohort", preempt ? "x" : NULL, NULL };
	const char *params[SIM_FAM_COUNT_] = { NULL, quota, preempt, NULL };
	for (int f = 0; f < SIM_FAM_COUNT_; f++) {
		if (!names[f])
			continue;
		cJSON *pj = params[f] ? cJSON_Parse(params[f]) : NULL;
		const cJSON *nm = pj ? cJSON_GetObjectItemCaseSensitive(pj, "name") : NULL;
		r->pol[f].ops = sim_policy_lookup((enum sim_policy_family)f, nm ? nm->valuestring : names[f]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(r->pol[f].ops);
		ep.policies[f] = &r->pol[f];
		cJSON_Delete(pj);
	}
	r->e = sim_engine_create(&ep);
	for (int f = 0; f < SIM_FAM_COUNT_; f++) {
		if (!ep.policies[f])
			continue;
		cJSON *pj = params[f] ? cJSON_Parse(params[f]) : NULL;
		struct sim_policy_env env = { .view = sim_engine_view(r->e), .file = "/test.json",
					      .json_path = f == SIM_FAM_QUOTA ? "$.policies.quota" : "$.policies.x" };
		int rc = sim_policy_create(&r->pol[f], r->pol[f].ops, &env, pj, &d);
		cJSON_Delete(pj);
		CU_ASSERT_EQUAL_FATAL(rc, 0);
	}
	const struct kq_preempt_params *pp = ep.policies[SIM_FAM_PREEMPT] ?
		kq_preempt_params_of(&r->pol[SIM_FAM_PREEMPT]) : NULL;
	if (pp)
		sim_engine_set_cost(r->e, &pp->cost);
	r->rc = sim_engine_run(r->e);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_EQUAL(sim_metrics_summarize(t, r->c, sim_engine_now(r->e), &r->sum), 0);
	sim_diag_fini(&d);
}

static void qrun_free(struct qrun *r)
{
	for (int f = 0; f < SIM_FAM_COUNT_; f++)
		if (r->pol[f].ops)
			sim_policy_destroy(&r->pol[f]);
	sim_engine_destroy(r->e);
	sim_driver_virtual_fini(&r->drv);
	sim_trace_destroy(r->t);
	sim_cluster_destroy(r->c);
}

#define TWO_TEAMS(strategy)                                                                                   \
	"{\"name\": \"cohort\", \"cohorts\": [{\"name\": \"co\", \"parent\": null}],"                         \
	" \"queues\": [{\"name\": \"a\", \"cohort\": \"co\", \"share_strategy\": \"" strategy "\","           \
	"               \"quota\": {\"f\": {\"gpu\": {\"nominal\": 8}}}},"                                      \
	"              {\"name\": \"b\", \"cohort\": \"co\", \"share_strategy\": \"" strategy "\","           \
	"               \"quota\": {\"f\": {\"gpu\": {\"nominal\": 8}}}}],"                                     \
	" \"unlisted_queues\": {\"cohort\": null}}"

/* Bursty teams on 16 GPUs, 8 nominal each: a sends 8 two-GPU jobs of 1000 s at 0,
 * b the same at 5000. RESERVE: a runs two waves (0-2000), b too (5000-7000):
 * 32,000 GPU-s over 16 x 7000 = 0.286. Lending: one wave each (makespan 6000):
 * 0.333, and a's second four jobs no longer wait 1000 s. */
static void bursty(struct sim_trace *t)
{
	char id[16];
	for (int i = 0; i < 8; i++) {
		snprintf(id, sizeof id, "a%d", i);
		add_job(t, id, 0, 1000, 2, "a", 0);
		snprintf(id, sizeof id, "b%d", i);
		add_job(t, id, 5000, 1000, 2, "b", 0);
	}
}

static void test_cohort_lending_raises_utilization(void)
{
	struct qrun res, lend;
	struct sim_trace *t = sim_trace_create();
	bursty(t);
	qrun(&res, t, 2, "priority", TWO_TEAMS("RESERVE"), NULL);
	t = sim_trace_create();
	bursty(t);
	qrun(&lend, t, 2, "priority", TWO_TEAMS("LEND_AND_BORROW"), NULL);
	CU_ASSERT_DOUBLE_EQUAL(res.sum.v[SIM_SUM_utilization], 32000.0 / (16 * 7000.0), 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(lend.sum.v[SIM_SUM_utilization], 32000.0 / (16 * 6000.0), 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(res.sum.v[SIM_SUM_mean_wait_s], 500.0, 1e-9); /* 8 of 16 wait 1000 s */
	CU_ASSERT_DOUBLE_EQUAL(lend.sum.v[SIM_SUM_mean_wait_s], 0.0, 1e-9);
	/* b borrowed nothing; a borrowed 8 GPUs for 1000 s under lending only. */
	const struct sim_queue_acct *qa = sim_engine_queue_acct(lend.e);
	int qa_idx = sim_trace_intern_queue(lend.t, "a");
	CU_ASSERT_DOUBLE_EQUAL(qa[qa_idx].borrowed_gpu_s, 8000.0, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(sim_engine_queue_acct(res.e)[qa_idx].borrowed_gpu_s, 0.0, 1e-9);
	/* At 500 s (sample 5) a runs 16 GPUs: b lends 8 under lending, nothing under
	 * RESERVE (its lending limit is 0, so it has nothing in the pool to lend). */
	int qb_idx = sim_trace_intern_queue(lend.t, "b");
	const struct sim_timeseries *ts = sim_engine_timeseries(lend.e);
	CU_ASSERT_FATAL(ts->n > 5 && ts->has_quota_stats);
	CU_ASSERT_DOUBLE_EQUAL(ts->q_lent[5 * ts->n_queues + (size_t)qb_idx], 8.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(ts->q_lent[5 * ts->n_queues + (size_t)qa_idx], 0.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(ts->q_borrowed[5 * ts->n_queues + (size_t)qa_idx], 8.0, 1e-9);
	ts = sim_engine_timeseries(res.e);
	CU_ASSERT_DOUBLE_EQUAL(ts->q_lent[5 * ts->n_queues + (size_t)qb_idx], 0.0, 1e-9);
	qrun_free(&res);
	qrun_free(&lend);
}

/* a borrows all 16 GPUs with eight 2-GPU jobs of 10,000 s; b arrives at 100 with
 * four 2-GPU jobs (its nominal 8). With reclaim Any, b takes back its nominal at
 * once: a's four most recently admitted jobs (all at 0: by id, the highest ties
 * last... the order is admitted time then id) are stopped with reason
 * cohort_reclamation. Without preemption b waits until 10,000. */
static void lender_trace(struct sim_trace *t)
{
	char id[16];
	for (int i = 0; i < 8; i++) {
		snprintf(id, sizeof id, "a%d", i);
		add_job(t, id, 0, 10000, 2, "a", 0);
	}
	for (int i = 0; i < 4; i++) {
		snprintf(id, sizeof id, "b%d", i);
		add_job(t, id, 100, 500, 2, "b", 0);
	}
}

static void test_cohort_lender_gets_nominal_back(void)
{
	struct qrun r;
	struct sim_trace *t = sim_trace_create();
	lender_trace(t);
	qrun(&r, t, 2, "priority", TWO_TEAMS("LEND_AND_BORROW"), "{\"name\": \"classical\"}");
	for (int i = 0; i < 4; i++) {
		char id[8];
		snprintf(id, sizeof id, "b%d", i);
		CU_ASSERT_DOUBLE_EQUAL(tu_start_s(r.t, id), 100.0, 1e-9);
	}
	const struct sim_decisions *ds = sim_engine_decisions(r.e);
	CU_ASSERT_EQUAL(ds->n, 4);
	int a = sim_trace_intern_queue(r.t, "a");
	for (size_t i = 0; i < ds->n; i++) {
		CU_ASSERT_EQUAL(ds->v[i].reason, SIM_PR_COHORT_RECLAMATION);
		CU_ASSERT_EQUAL(r.t->jobs[ds->v[i].victim].queue, a);
		CU_ASSERT_DOUBLE_EQUAL(ds->v[i].lost_gpu_s, 200.0, 1e-9); /* 2 GPUs x 100 s */
		CU_ASSERT(ds->v[i].requeued);
	}
	/* The victims restart from scratch when b's jobs end at 600. */
	CU_ASSERT_EQUAL(r.t->jobs[ds->v[0].victim].preemptions, 1);
	CU_ASSERT_EQUAL(r.t->jobs[ds->v[0].victim].end_ns, (600 + 10000) * SIM_NS_PER_S);
	CU_ASSERT_DOUBLE_EQUAL(sim_engine_queue_acct(r.e)[a].lost_gpu_s, 800.0, 1e-9);
	qrun_free(&r);

	t = sim_trace_create();
	lender_trace(t);
	qrun(&r, t, 2, "priority", TWO_TEAMS("LEND_AND_BORROW"), NULL);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(r.t, "b0"), 10000.0, 1e-9);
	CU_ASSERT_EQUAL(sim_engine_decisions(r.e)->n, 0);
	qrun_free(&r);
}

/* Retry limit 0: a's victims stop for good (preempted_out). */
static void test_cohort_retry_limit_zero(void)
{
	struct qrun r;
	struct sim_trace *t = sim_trace_create();
	lender_trace(t);
	qrun(&r, t, 2, "priority",
	     "{\"name\": \"cohort\", \"cohorts\": [{\"name\": \"co\", \"parent\": null}],"
	     " \"queues\": [{\"name\": \"a\", \"cohort\": \"co\", \"preemption_retry_limit\": 0,"
	     "               \"quota\": {\"f\": {\"gpu\": {\"nominal\": 8}}}},"
	     "              {\"name\": \"b\", \"cohort\": \"co\", \"quota\": {\"f\": {\"gpu\": {\"nominal\": 8}}}}],"
	     " \"unlisted_queues\": {\"cohort\": null}}",
	     "{\"name\": \"classical\"}");
	const struct sim_decisions *ds = sim_engine_decisions(r.e);
	CU_ASSERT_EQUAL(ds->n, 4);
	size_t out = 0;
	for (size_t i = 0; i < r.t->n_jobs; i++)
		out += r.t->jobs[i].state == SIM_JOB_PREEMPTED_OUT;
	CU_ASSERT_EQUAL(out, 4);
	CU_ASSERT(!ds->v[0].requeued);
	CU_ASSERT_EQUAL(r.t->jobs[ds->v[0].victim].end_ns, 100 * SIM_NS_PER_S);
	qrun_free(&r);
}

#define ONE_QUEUE(extra)                                                                                 \
	"{\"name\": \"cohort\", \"queues\": [{\"name\": \"a\", \"cohort\": null, " extra                   \
	" \"quota\": {\"f\": {\"gpu\": {\"nominal\": 8}}}}], \"unlisted_queues\": {\"cohort\": null}}"

/* One queue of 8 GPUs on one node. lo (2 GPU... 8 GPUs, priority 0, 10,000 s of
 * work, a checkpoint every 300 s costing 10 s) starts at 0; hi (8 GPUs, priority 1,
 * 500 s) arrives at 1000 and preempts it (in_queue). Checkpoints end at 310, 620,
 * 930: 900 s of work saved, 70 s lost (x 8 GPUs = 560 GPU-s). lo restarts at 1500
 * and pays restore 20 s, its 9100 s left and 30 checkpoints (every 300 s of those
 * 9100, none at the end): 20 + 9100 + 300 = 9420 s, ending at 10,920. */
static void test_cohort_checkpoint_cost(void)
{
	struct qrun r;
	struct sim_trace *t = sim_trace_create();
	size_t lo = add_job(t, "lo", 0, 10000, 8, "a", 0);
	t->jobs[lo].checkpoint_ns = 300 * SIM_NS_PER_S;
	add_job(t, "hi", 1000, 500, 8, "a", 1);
	qrun(&r, t, 1, "priority", ONE_QUEUE(""),
	     "{\"name\": \"classical\", \"checkpoint_overhead_s\": 10, \"restore_s\": 20}");
	struct sim_job *j = job_by_id(r.t, "lo");
	CU_ASSERT_EQUAL(j->preemptions, 1);
	CU_ASSERT_DOUBLE_EQUAL(j->lost_gpu_s, 560.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(j->restore_s, 20.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(j->ckpt_overhead_s, 330.0, 1e-9); /* 3 before, 30 after */
	CU_ASSERT_EQUAL(j->end_ns, 10920 * SIM_NS_PER_S);
	CU_ASSERT_EQUAL(sim_engine_decisions(r.e)->v[0].reason, SIM_PR_IN_QUEUE);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(r.t, "hi"), 1000.0, 1e-9);
	qrun_free(&r);
}

/* min_runtime_s 2000 protects lo until 2000: hi waits until then, not until lo ends. */
static void test_cohort_min_runtime(void)
{
	struct qrun r;
	struct sim_trace *t = sim_trace_create();
	add_job(t, "lo", 0, 10000, 8, "a", 0);
	add_job(t, "hi", 1000, 500, 8, "a", 1);
	qrun(&r, t, 1, "priority", ONE_QUEUE("\"min_runtime_s\": 2000,"), "{\"name\": \"classical\"}");
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(r.t, "hi"), 2000.0, 1e-9);
	CU_ASSERT_EQUAL(job_by_id(r.t, "lo")->preemptions, 1);
	qrun_free(&r);
}

/* At most one preemption an hour: hi1 preempts lo1 at 100; hi2 (at 200) must wait
 * until 3700, when the first preemption leaves the window. */
static void test_cohort_preemption_cap(void)
{
	struct qrun r;
	struct sim_trace *t = sim_trace_create();
	add_job(t, "lo1", 0, 100000, 4, "a", 0);
	add_job(t, "lo2", 0, 100000, 4, "a", 0);
	add_job(t, "hi1", 100, 50000, 4, "a", 1);
	add_job(t, "hi2", 200, 50000, 4, "a", 1);
	qrun(&r, t, 1, "priority", ONE_QUEUE("\"max_preemptions_per_hour\": 1,"), "{\"name\": \"classical\"}");
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(r.t, "hi1"), 100.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(r.t, "hi2"), 3700.0, 1e-9);
	CU_ASSERT_EQUAL(sim_engine_decisions(r.e)->n, 2);
	qrun_free(&r);
}

/* The queue's nominal drops from 8 to 4 at 100: of its two 4-GPU jobs the more
 * recently admitted stops (quota_shrink) and waits for the quota to come back at 500. */
static void test_cohort_quota_shrink_event(void)
{
	const char *csv = tu_write_file("quota_events.csv", "time_s,queue,flavor,resource,nominal\n"
							    "100,a,f,gpu,4\n500,a,f,gpu,8\n");
	char quota[1024];
	snprintf(quota, sizeof quota,
		 "{\"name\": \"cohort\", \"queues\": [{\"name\": \"a\", \"cohort\": null,"
		 " \"quota\": {\"f\": {\"gpu\": {\"nominal\": 8}}}}], \"unlisted_queues\": {\"cohort\": null},"
		 " \"quota_events\": \"%s\"}",
		 csv);
	struct qrun r;
	struct sim_trace *t = sim_trace_create();
	add_job(t, "first", 0, 1000, 4, "a", 0);
	add_job(t, "second", 10, 1000, 4, "a", 0);
	qrun(&r, t, 1, "priority", quota, NULL);
	const struct sim_decisions *ds = sim_engine_decisions(r.e);
	CU_ASSERT_EQUAL_FATAL(ds->n, 1);
	CU_ASSERT_EQUAL(ds->v[0].reason, SIM_PR_QUOTA_SHRINK);
	CU_ASSERT_STRING_EQUAL(sim_job_id(r.t, &r.t->jobs[ds->v[0].victim]), "second");
	CU_ASSERT_EQUAL(job_by_id(r.t, "second")->end_ns, 1500 * SIM_NS_PER_S);
	qrun_free(&r);
}

/* A boost from priority_events reorders the queue; it expires after duration_s. */
static void test_cohort_priority_events(void)
{
	const char *csv = tu_write_file("prio.csv", "time_s,id,priority,duration_s\n50,late,5,100\n");
	char quota[1024];
	snprintf(quota, sizeof quota,
		 "{\"name\": \"cohort\", \"queues\": [{\"name\": \"a\", \"cohort\": null,"
		 " \"quota\": {\"f\": {\"gpu\": {\"nominal\": 8}}}}], \"unlisted_queues\": {\"cohort\": null},"
		 " \"priority_events\": \"%s\"}",
		 csv);
	struct qrun r;
	struct sim_trace *t = sim_trace_create();
	add_job(t, "running", 0, 100, 8, "a", 0);
	add_job(t, "early", 10, 100, 8, "a", 0);
	add_job(t, "late", 20, 100, 8, "a", 0);
	qrun(&r, t, 1, "priority", quota, NULL);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(r.t, "late"), 100.0, 1e-9); /* boosted at 50, ahead of early */
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(r.t, "early"), 200.0, 1e-9);
	CU_ASSERT_EQUAL(job_by_id(r.t, "late")->eff_priority, 0); /* the boost expired at 150 */
	qrun_free(&r);
}

/* A request above what the queue can ever get is rejected at submit. */
static void test_cohort_rejects_above_potential(void)
{
	struct qrun r;
	struct sim_trace *t = sim_trace_create();
	add_job(t, "big", 0, 100, 16, "a", 0);
	add_job(t, "ok", 0, 100, 8, "a", 0);
	qrun(&r, t, 2, "priority", ONE_QUEUE(""), NULL);
	CU_ASSERT_EQUAL(job_by_id(r.t, "big")->state, SIM_JOB_REJECTED);
	CU_ASSERT_EQUAL(job_by_id(r.t, "ok")->state, SIM_JOB_COMPLETED);
	qrun_free(&r);
}

/* Same config, same results: two runs give identical decisions and ends. */
static void test_cohort_deterministic(void)
{
	struct qrun r1, r2;
	struct sim_trace *t = sim_trace_create();
	lender_trace(t);
	bursty(t);
	qrun(&r1, t, 2, "priority", TWO_TEAMS("LEND_AND_BORROW"), "{\"name\": \"fair_sharing\"}");
	t = sim_trace_create();
	lender_trace(t);
	bursty(t);
	qrun(&r2, t, 2, "priority", TWO_TEAMS("LEND_AND_BORROW"), "{\"name\": \"fair_sharing\"}");
	const struct sim_decisions *a = sim_engine_decisions(r1.e), *b = sim_engine_decisions(r2.e);
	CU_ASSERT_EQUAL_FATAL(a->n, b->n);
	CU_ASSERT(a->n > 0);
	for (size_t i = 0; i < a->n; i++) { /* field by field: the struct has padding */
		CU_ASSERT_EQUAL(a->v[i].t, b->v[i].t);
		CU_ASSERT_EQUAL(a->v[i].victim, b->v[i].victim);
		CU_ASSERT_EQUAL(a->v[i].preemptor, b->v[i].preemptor);
		CU_ASSERT_EQUAL(a->v[i].reason, b->v[i].reason);
		CU_ASSERT_EQUAL(a->v[i].lost_gpu_s, b->v[i].lost_gpu_s);
	}
	for (size_t i = 0; i < r1.t->n_jobs; i++)
		CU_ASSERT_EQUAL(r1.t->jobs[i].end_ns, r2.t->jobs[i].end_ns);
	qrun_free(&r1);
	qrun_free(&r2);
}

/* More jobs waiting at once than one chunk of the policy's workload pool (4096):
 * kq keeps pointers into the pool, so it must never move (it once did: realloc). */
static void test_cohort_many_waiting_jobs(void)
{
	struct qrun r;
	struct sim_trace *t = sim_trace_create();
	char id[16];
	for (int i = 0; i < 6000; i++) {
		snprintf(id, sizeof id, "j%d", i);
		add_job(t, id, i % 7, 10, 1, i % 2 ? "a" : "b", i % 3);
	}
	qrun(&r, t, 1, "priority", TWO_TEAMS("LEND_AND_BORROW"), "{\"name\": \"classical\"}");
	size_t done = 0;
	for (size_t i = 0; i < r.t->n_jobs; i++)
		done += r.t->jobs[i].state == SIM_JOB_COMPLETED;
	CU_ASSERT_EQUAL(done, 6000);
	qrun_free(&r);
}

/* A contended random run (3 queues, random priorities and sizes, classical
 * preemption): no job preempts at the instant it was itself preempted, and every
 * job ends. (The rule exists because chains of victims reclaiming from one another
 * once cycled forever within one timestamp, in the 2M-job diurnal benchmark; this
 * small run does not reproduce that chain, it checks the rule.) */
static void test_cohort_no_preemption_chains_at_one_instant(void)
{
	struct qrun r;
	struct sim_trace *t = sim_trace_create();
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 7);
	static const char *const qs[] = { "a", "b", "c" };
	char id[16];
	for (int i = 0; i < 3000; i++) {
		snprintf(id, sizeof id, "j%d", i);
		add_job(t, id, (double)(i / 4), 1 + (double)gsl_rng_uniform_int(rng, 400),
			1 + (int)gsl_rng_uniform_int(rng, 8), qs[gsl_rng_uniform_int(rng, 3)],
			(int)gsl_rng_uniform_int(rng, 4));
	}
	gsl_rng_free(rng);
	qrun(&r, t, 2,
	     "priority",
	     "{\"name\": \"cohort\", \"cohorts\": [{\"name\": \"co\", \"parent\": null}],"
	     " \"queues\": [{\"name\": \"a\", \"cohort\": \"co\", \"quota\": {\"f\": {\"gpu\": {\"nominal\": 6}}}},"
	     "              {\"name\": \"b\", \"cohort\": \"co\", \"quota\": {\"f\": {\"gpu\": {\"nominal\": 5}}}},"
	     "              {\"name\": \"c\", \"cohort\": \"co\", \"quota\": {\"f\": {\"gpu\": {\"nominal\": 5}}}}],"
	     " \"unlisted_queues\": {\"cohort\": null}}",
	     "{\"name\": \"classical\"}");
	const struct sim_decisions *ds = sim_engine_decisions(r.e);
	CU_ASSERT(ds->n > 0);
	for (size_t i = 0; i < ds->n; i++)
		for (size_t k = i; k-- > 0 && ds->v[k].t == ds->v[i].t;)
			CU_ASSERT(ds->v[k].victim != ds->v[i].preemptor || ds->v[i].reason == SIM_PR_QUOTA_SHRINK);
	size_t done = 0;
	for (size_t i = 0; i < r.t->n_jobs; i++)
		done += r.t->jobs[i].state == SIM_JOB_COMPLETED;
	CU_ASSERT_EQUAL(done, r.t->n_jobs);
	qrun_free(&r);
}

/* Bad quota params: located messages (file: $.path.key: expected ...), init fails. */
static void expect_quota_error(const char *params, const char *want)
{
	struct sim_trace *t = sim_trace_create();
	add_job(t, "j", 0, 10, 1, "a", 0);
	tu_trace_finish(t);
	struct sim_cluster *c = tu_cluster(1, 8, 1.0, SIM_PLACE_BEST_FIT);
	struct sim_diag d;
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL_FATAL(sim_trace_bind(t, c, &d), 0);
	struct sim_driver drv;
	sim_driver_virtual_init(&drv);
	struct sim_policy order = { .ops = sim_policy_lookup(SIM_FAM_ORDER, "priority") }, quota = { 0 };
	struct sim_engine_params ep = { .trace = t, .cluster = c, .driver = drv };
	ep.policies[SIM_FAM_ORDER] = &order;
	struct sim_engine *e = sim_engine_create(&ep);
	cJSON *pj = cJSON_Parse(params);
	struct sim_policy_env env = { .view = sim_engine_view(e), .file = "exp.json", .json_path = "$.policies.quota" };
	CU_ASSERT_NOT_EQUAL(sim_policy_create(&quota, &cohort_policy_ops, &env, pj, &d), 0);
	if (!sim_diag_contains(&d, want)) {
		sim_diag_print(&d, stderr);
		CU_FAIL("expected message missing");
	}
	cJSON_Delete(pj);
	sim_diag_fini(&d);
	sim_engine_destroy(e);
	sim_driver_virtual_fini(&drv);
	sim_cluster_destroy(c);
	sim_trace_destroy(t);
}

static void test_cohort_config_errors(void)
{
	expect_quota_error("{\"queues\": [{\"name\": \"a\", \"share_strategy\": \"SHARE\","
			   " \"quota\": {\"f\": {\"gpu\": {\"nominal\": 8}}}}], \"unlisted_queues\": {}}",
			   "exp.json: $.policies.quota.queues[0].share_strategy: expected RESERVE, LEND or LEND_AND_BORROW");
	expect_quota_error("{\"queues\": [{\"name\": \"a\", \"preemption_retry_limit\": -1,"
			   " \"quota\": {\"f\": {\"gpu\": {\"nominal\": 8}}}}], \"unlisted_queues\": {}}",
			   "exp.json: $.policies.quota.queues[0].preemption_retry_limit: expected null");
	expect_quota_error("{\"queues\": [{\"name\": \"a\", \"bogus\": 1,"
			   " \"quota\": {\"f\": {\"gpu\": {\"nominal\": 8}}}}], \"unlisted_queues\": {}}",
			   "$.policies.quota.queues[0].bogus: unknown key");
	expect_quota_error("{\"queues\": []}", "trace queue 'a' has no quota");
	expect_quota_error("{\"queues\": [{\"name\": \"a\", \"quota\": {\"f\": {\"gpu\": {\"nominal\": 8}}}}],"
			   " \"max_heads_per_queue\": 0, \"unlisted_queues\": {}}",
			   "exp.json: $.policies.quota.max_heads_per_queue: expected an integer in [1, 1000000]");
}

static CU_TestInfo cohort_tests[] = {
	{ "config_errors", test_cohort_config_errors },
	{ "no_preemption_chains_at_one_instant", test_cohort_no_preemption_chains_at_one_instant },
	{ "many_waiting_jobs", test_cohort_many_waiting_jobs },
	{ "lending_raises_utilization", test_cohort_lending_raises_utilization },
	{ "lender_gets_nominal_back", test_cohort_lender_gets_nominal_back },
	{ "retry_limit_zero", test_cohort_retry_limit_zero },
	{ "checkpoint_cost", test_cohort_checkpoint_cost },
	{ "min_runtime", test_cohort_min_runtime },
	{ "preemption_cap", test_cohort_preemption_cap },
	{ "quota_shrink_event", test_cohort_quota_shrink_event },
	{ "priority_events", test_cohort_priority_events },
	{ "rejects_above_potential", test_cohort_rejects_above_potential },
	{ "deterministic", test_cohort_deterministic },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo cohort_suite = { "cohort", init_cohort, clean_cohort, NULL, NULL, cohort_tests };
