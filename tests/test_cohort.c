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

#include "../policies/kq.h"
#include "../policies/kq_policy.h"
#include "../policies/policy.h"
#include "../sim/metrics.h"
#include "../traces/native.h"
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

/* Fallback policies by name, for the cohort policy to read (sim_view_policy): it
 * chooses flavors itself, from their capability bits, so the tables need no hooks. Stubs keep these tests
 * independent of policies/fallback.c. */
static const struct sim_policy_ops fb_stubs[] = {
	{ .name = "strict", .family = SIM_FAM_FALLBACK, .provides = SIM_CAP_FB_STRICT },
	{ .name = "fungible", .family = SIM_FAM_FALLBACK, .provides = SIM_CAP_FB_FUNGIBLE },
	{ .name = "first_fit", .family = SIM_FAM_FALLBACK, .provides = SIM_CAP_FB_FIRST_FIT },
};

static const struct sim_policy_ops *fb_stub(const char *name)
{
	for (size_t i = 0; name && i < sizeof fb_stubs / sizeof fb_stubs[0]; i++)
		if (strcmp(fb_stubs[i].name, name) == 0)
			return &fb_stubs[i];
	return NULL;
}

static void qrun_on(struct qrun *r, struct sim_trace *t, struct sim_cluster *c, const char *order,
		    const char *quota, const char *preempt, const char *fallback);

/* The cost of a stop for the next qrun ($.jobs.checkpoint); zero by default. */
static struct sim_preempt_cost qrun_cost;

/* Runs trace t on `nodes` 8-GPU nodes with quota params (JSON) and preemption
 * params (JSON or NULL for none). The run stays inspectable until qrun_free. */
static void qrun(struct qrun *r, struct sim_trace *t, uint32_t nodes, const char *order, const char *quota,
		 const char *preempt)
{
	tu_trace_finish(t);
	qrun_on(r, t, tu_cluster(nodes, 8, 1.0, SIM_PLACE_BEST_FIT), order, quota, preempt, NULL);
}

/* Same on cluster c (taken), with a fallback policy by name (NULL: none). */
static void qrun_on(struct qrun *r, struct sim_trace *t, struct sim_cluster *c, const char *order,
		    const char *quota, const char *preempt, const char *fallback)
{
	memset(r, 0, sizeof *r);
	r->t = t;
	r->c = c;
	struct sim_diag d;
	sim_diag_init(&d, 20);
	d.echo = stderr;
	CU_ASSERT_EQUAL_FATAL(sim_trace_bind(t, r->c, &d), 0);
	sim_driver_virtual_init(&r->drv);
	struct sim_engine_params ep = { .trace = t, .cluster = r->c, .driver = r->drv,
					.sample_ns = 100 * SIM_NS_PER_S, .cost = qrun_cost };
	const char *names[SIM_FAM_COUNT_] = { order, "cohort", preempt ? "x" : NULL, fallback };
	const char *params[SIM_FAM_COUNT_] = { order && order[0] == '{' ? order : NULL, quota, preempt, NULL };
	for (int f = 0; f < SIM_FAM_COUNT_; f++) {
		if (!names[f])
			continue;
		cJSON *pj = params[f] ? cJSON_Parse(params[f]) : NULL;
		const cJSON *nm = pj ? cJSON_GetObjectItemCaseSensitive(pj, "name") : NULL;
		r->pol[f].ops = f == SIM_FAM_FALLBACK ? fb_stub(names[f]) :
			sim_policy_lookup((enum sim_policy_family)f, nm ? nm->valuestring : names[f]);
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
	qrun_cost = (struct sim_preempt_cost){ .ckpt_overhead_ns = 10 * SIM_NS_PER_S, .restore_ns = 20 * SIM_NS_PER_S };
	qrun(&r, t, 1, "priority", ONE_QUEUE(""), "{\"name\": \"classical\"}");
	qrun_cost = (struct sim_preempt_cost){ 0 };
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

/* A job above its queue's potential quota at submit is kept pending, not rejected,
 * when a quota event of its tree may still raise the quota (Kueue keeps it pending):
 * the 8-GPU job waits for nominal 8 at 300 and starts then. Without quota events it
 * can never fit and is rejected at submit, as before. */
static void test_cohort_quota_raise_admits_oversized(void)
{
	const char *csv = tu_write_file("quota_raise.csv", "time_s,queue,flavor,resource,nominal\n300,a,f,gpu,8\n");
	char quota[1024];
	snprintf(quota, sizeof quota,
		 "{\"name\": \"cohort\", \"queues\": [{\"name\": \"a\", \"cohort\": null,"
		 " \"quota\": {\"f\": {\"gpu\": {\"nominal\": 4}}}}], \"unlisted_queues\": {\"cohort\": null},"
		 " \"quota_events\": \"%s\"}",
		 csv);
	struct qrun r;
	struct sim_trace *t = sim_trace_create();
	add_job(t, "big", 10, 100, 8, "a", 0);
	add_job(t, "small", 20, 100, 4, "a", 0);
	qrun(&r, t, 1, "priority", quota, NULL);
	CU_ASSERT_EQUAL(job_by_id(r.t, "big")->state, SIM_JOB_COMPLETED);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(r.t, "big"), 300.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(r.t, "small"), 20.0, 1e-9); /* not held back by big */
	qrun_free(&r);

	t = sim_trace_create();
	add_job(t, "big", 10, 100, 8, "a", 0);
	qrun(&r, t, 1, "priority",
	     "{\"name\": \"cohort\", \"queues\": [{\"name\": \"a\", \"cohort\": null,"
	     " \"quota\": {\"f\": {\"gpu\": {\"nominal\": 4}}}}], \"unlisted_queues\": {\"cohort\": null}}",
	     NULL);
	CU_ASSERT_EQUAL(job_by_id(r.t, "big")->state, SIM_JOB_REJECTED);
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

/* 130 queues of 1 GPU each, no cohorts (so past the first 64-bit word of the pass's
 * set of queues with pending jobs): each has two 1-GPU jobs of 100 s at 0. The first
 * runs at once, the second waits for its quota and starts at 100 when the first
 * ends, in every queue. */
static void test_cohort_many_queues_each_served(void)
{
	enum { NQ = 130 };
	size_t cap = 80 * NQ + 64;
	char *quota = malloc(cap);
	CU_ASSERT_PTR_NOT_NULL_FATAL(quota);
	int len = snprintf(quota, cap, "{\"name\": \"cohort\", \"queues\": [");
	struct sim_trace *t = sim_trace_create();
	char id[16], q[16];
	for (int i = 0; i < NQ; i++) {
		snprintf(q, sizeof q, "q%d", i);
		len += snprintf(quota + len, cap - (size_t)len,
				"%s{\"name\": \"%s\", \"cohort\": null, \"quota\": {\"f\": {\"gpu\": {\"nominal\": 1}}}}",
				i ? ", " : "", q);
		snprintf(id, sizeof id, "a%d", i);
		add_job(t, id, 0, 100, 1, q, 0);
		snprintf(id, sizeof id, "b%d", i);
		add_job(t, id, 0, 100, 1, q, 0);
	}
	snprintf(quota + len, cap - (size_t)len, "], \"unlisted_queues\": {\"cohort\": null}}");
	struct qrun r;
	qrun(&r, t, 17, "priority", quota, NULL);
	size_t late = 0, done = 0;
	for (int i = 0; i < NQ; i++) {
		snprintf(id, sizeof id, "a%d", i);
		CU_ASSERT_DOUBLE_EQUAL(tu_start_s(r.t, id), 0.0, 1e-9);
		snprintf(id, sizeof id, "b%d", i);
		late += tu_start_s(r.t, id) != 100.0;
	}
	for (size_t i = 0; i < r.t->n_jobs; i++)
		done += r.t->jobs[i].state == SIM_JOB_COMPLETED;
	CU_ASSERT_EQUAL(late, 0);
	CU_ASSERT_EQUAL(done, 2 * NQ);
	qrun_free(&r);
	free(quota);
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

/* Every bad row of a side CSV is reported, not only the first (priority_events
 * stopped at its first), and a NUL byte in one is located. */
static void test_cohort_side_csv_every_bad_row(void)
{
	const char *csv = tu_write_file("prio_bad.csv", "time_s,id,priority\n-5,j,1\n10,j,2\n20,nosuch,3\n");
	char params[1024], want[4200];
	snprintf(params, sizeof params, "{\"queues\": [{\"name\": \"a\", \"quota\": {\"f\": {\"gpu\": "
		 "{\"nominal\": 8}}}}], \"unlisted_queues\": {}, \"priority_events\": \"%s\"}", csv);
	snprintf(want, sizeof want, "%s:2: expected time_s >= 0", csv);
	expect_quota_error(params, want);
	snprintf(want, sizeof want, "%s:4: expected time_s >= 0", csv);
	expect_quota_error(params, want);
	csv = tu_write_file("quota_bad.csv", "time_s,queue,flavor,resource,nominal\n1,zz,f,gpu,4\n2,a,f,gpu,x\n");
	snprintf(params, sizeof params, "{\"queues\": [{\"name\": \"a\", \"quota\": {\"f\": {\"gpu\": "
		 "{\"nominal\": 8}}}}], \"unlisted_queues\": {}, \"quota_events\": \"%s\"}", csv);
	snprintf(want, sizeof want, "%s:2: expected time_s >= 0, a configured queue", csv);
	expect_quota_error(params, want);
	snprintf(want, sizeof want, "%s:3: expected time_s >= 0, a configured queue", csv);
	expect_quota_error(params, want);
	snprintf(params, sizeof params, "{\"queues\": [{\"name\": \"a\", \"quota\": {\"f\": {\"gpu\": "
		 "{\"nominal\": 8}}}}], \"unlisted_queues\": {}, \"priority_events\": \"/dev/zero\"}");
	expect_quota_error(params, "/dev/zero:1: NUL byte in line at byte 1");
}

/* The pending limit (max_pending_s) under the quota policy: a timed-out job leaves
 * its queue for good and gives back any quota it held while waiting for nodes.
 *  - quota 8 on 2 nodes: fill (8 GPUs, 0-1000) holds it all; wait (at 10, limit
 *    100) is parked without quota and times out at 110; when fill ends, later (at
 *    200) starts at 1000 and wait never does.
 *  - quota 24 on 2 nodes: fill takes one node; wait2 (16 GPUs = both nodes) gets
 *    its quota at 10 and waits for nodes; it times out at 110 and its 16 come
 *    back, so later2 (8 GPUs at 200) fits the quota (8 + 8 <= 24) and the free node
 *    at once. A leaked 16 would hold it until 1000. */
static void test_cohort_pending_limit_drops(void)
{
	struct qrun r;
	struct sim_trace *t = sim_trace_create();
	add_job(t, "fill", 0, 1000, 8, "a", 0);
	size_t w = add_job(t, "wait", 10, 100, 8, "a", 0);
	t->jobs[w].max_pending_ns = 100 * SIM_NS_PER_S;
	add_job(t, "later", 200, 100, 8, "a", 0);
	qrun(&r, t, 2, "priority", ONE_QUEUE(""), NULL);
	CU_ASSERT_EQUAL(job_by_id(r.t, "wait")->state, SIM_JOB_TIMED_OUT_PENDING);
	CU_ASSERT_EQUAL(job_by_id(r.t, "wait")->start_ns, SIM_TIME_NONE);
	CU_ASSERT_EQUAL(job_by_id(r.t, "wait")->end_ns, 110 * SIM_NS_PER_S);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(r.t, "later"), 1000.0, 1e-9);
	CU_ASSERT_EQUAL(job_by_id(r.t, "later")->state, SIM_JOB_COMPLETED);
	qrun_free(&r);

	t = sim_trace_create();
	add_job(t, "fill", 0, 1000, 8, "a", 0);
	w = add_job(t, "wait2", 10, 100, 16, "a", 0);
	t->jobs[w].max_pending_ns = 100 * SIM_NS_PER_S;
	add_job(t, "later2", 200, 100, 8, "a", 0);
	qrun(&r, t, 2, "priority",
	     "{\"name\": \"cohort\", \"queues\": [{\"name\": \"a\", \"cohort\": null,"
	     " \"quota\": {\"f\": {\"gpu\": {\"nominal\": 24}}}}], \"unlisted_queues\": {\"cohort\": null}}",
	     NULL);
	CU_ASSERT_EQUAL(job_by_id(r.t, "wait2")->state, SIM_JOB_TIMED_OUT_PENDING);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(r.t, "later2"), 200.0, 1e-9);
	qrun_free(&r);
}

/* ---- preference lists under the quota policy (issue 4) ---- */

/* Two flavors of `h` and `a` 8-GPU nodes, h100 and a100, both speed 1.0. */
/* With cpu: 96 cpus a node too. */
static struct sim_cluster *h100_a100_res(uint32_t h, uint32_t a, int cpu)
{
	struct sim_resources res;
	sim_resources_init(&res);
	struct sim_flavor_spec spec[2] = { { .name = "h100", .nodes = h, .speed = 1.0 },
					   { .name = "a100", .nodes = a, .speed = 1.0 } };
	spec[0].node_cap[SIM_RES_GPU] = spec[1].node_cap[SIM_RES_GPU] = 8 * SIM_MILLI;
	if (cpu) {
		int r = sim_resources_add(&res, "cpu");
		spec[0].node_cap[r] = spec[1].node_cap[r] = 96 * SIM_MILLI;
	}
	return sim_cluster_create(&res, spec, 2, SIM_PLACE_BEST_FIT);
}

static struct sim_cluster *h100_a100(uint32_t h, uint32_t a)
{
	return h100_a100_res(h, a, 0);
}

static struct sim_trace *csv_trace(const char *csv)
{
	struct sim_trace *t = NULL;
	struct sim_diag d;
	sim_diag_init(&d, 20);
	d.echo = stderr;
	CU_ASSERT_EQUAL_FATAL(trace_native_parse("prefs.csv", csv, strlen(csv), &t, &d), 0);
	sim_diag_fini(&d);
	return t;
}

/* One queue a, no cohort, with nominal H on h100 and A on a100 (flavor_order: h100, a100). */
static const char *queue_a(char *buf, size_t n, int h, int a)
{
	snprintf(buf, n,
		 "{\"name\": \"cohort\", \"queues\": [{\"name\": \"a\", \"cohort\": null, \"quota\": {"
		 "\"h100\": {\"gpu\": {\"nominal\": %d}}, \"a100\": {\"gpu\": {\"nominal\": %d}}}}],"
		 " \"unlisted_queues\": {\"cohort\": null}}",
		 h, a);
	return buf;
}

static int flavor_of(const struct qrun *r, const char *id)
{
	return job_by_id(r->t, id)->alloc.flavor;
}

/* full (h100, 1000 s) holds a's whole h100 quota from 0. p (at 10) prefers h100 and
 * lists a100 second, where it states its own run time, 3000 s. strict: p waits for
 * h100 until 1000, as option 0. fungible: h100 has no quota and no preemption
 * (none) can free it (no candidates), so the next flavor of the queue's order,
 * a100, fits: p starts at 10 as option 1 and runs 3000 s, to 3010. */
static void test_cohort_fungible_second_flavor(void)
{
	static const char *const csv = "id,submit_s,duration_s,queue,request,prefs\n"
				       "full,0,1000,a,h100:gpu=8,\n"
				       "p,10,1000,a,,h100:gpu=8;a100:gpu=8@3000\n";
	char quota[512];
	struct qrun r;
	qrun_on(&r, csv_trace(csv), h100_a100(1, 1), "priority", queue_a(quota, sizeof quota, 8, 8), NULL,
		"strict");
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(r.t, "p"), 1000.0, 1e-9);
	CU_ASSERT_EQUAL(job_by_id(r.t, "p")->opt_chosen, 0);
	CU_ASSERT_EQUAL(flavor_of(&r, "p"), 0);
	qrun_free(&r);

	qrun_on(&r, csv_trace(csv), h100_a100(1, 1), "priority", queue_a(quota, sizeof quota, 8, 8), NULL,
		"fungible");
	struct sim_job *p = job_by_id(r.t, "p");
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(r.t, "p"), 10.0, 1e-9);
	CU_ASSERT_EQUAL(p->opt_chosen, 1);
	CU_ASSERT_EQUAL(flavor_of(&r, "p"), 1);
	CU_ASSERT_EQUAL(p->end_ns, 3010 * SIM_NS_PER_S);
	CU_ASSERT_EQUAL(p->state, SIM_JOB_COMPLETED);
	qrun_free(&r);
}

/* First fit, on one node of each flavor. The queue's order is h100, a100; the job's
 * is a100 first:
 *  - free: both flavors free; first_fit takes a100 (the job's order), fungible
 *    h100 (the queue's order).
 *  - lo (priority 0, a100, 5000 s) holds a's a100 quota (8); hi (priority 5, at
 *    10) lists a100 first. strict with classical preemption: hi preempts lo on
 *    a100. first_fit never preempts: a100 does not fit, h100 does, hi starts there
 *    at 10 and lo is untouched. */
static void test_cohort_first_fit_order_and_no_preemption(void)
{
	static const char *const csv1 = "id,submit_s,duration_s,queue,request,prefs\n"
					"free,0,100,a,,a100:gpu=8;h100:gpu=8\n";
	static const char *const csv2 = "id,submit_s,duration_s,queue,priority,request,prefs\n"
					"lo,0,5000,a,0,a100:gpu=8,\n"
					"hi,10,1000,a,5,,a100:gpu=8;h100:gpu=8\n";
	static const char *const classical = "{\"name\": \"classical\", \"within_queue\": \"LowerPriority\"}";
	char quota[512];
	struct qrun r;
	qrun_on(&r, csv_trace(csv1), h100_a100(1, 1), "priority", queue_a(quota, sizeof quota, 8, 8), NULL,
		"first_fit");
	CU_ASSERT_EQUAL(flavor_of(&r, "free"), 1);
	CU_ASSERT_EQUAL(job_by_id(r.t, "free")->opt_chosen, 0);
	qrun_free(&r);
	qrun_on(&r, csv_trace(csv1), h100_a100(1, 1), "priority", queue_a(quota, sizeof quota, 8, 8), NULL,
		"fungible");
	CU_ASSERT_EQUAL(flavor_of(&r, "free"), 0);
	CU_ASSERT_EQUAL(job_by_id(r.t, "free")->opt_chosen, 1);
	qrun_free(&r);

	queue_a(quota, sizeof quota, 8, 8);
	qrun_on(&r, csv_trace(csv2), h100_a100(1, 1), "priority", quota, classical, "strict");
	CU_ASSERT_EQUAL(sim_engine_decisions(r.e)->n, 1);
	CU_ASSERT_EQUAL(job_by_id(r.t, "lo")->preemptions, 1);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(r.t, "hi"), 10.0, 1e-9);
	CU_ASSERT_EQUAL(flavor_of(&r, "hi"), 1);
	qrun_free(&r);
	qrun_on(&r, csv_trace(csv2), h100_a100(1, 1), "priority", quota, classical, "first_fit");
	CU_ASSERT_EQUAL(sim_engine_decisions(r.e)->n, 0);
	CU_ASSERT_EQUAL(job_by_id(r.t, "lo")->preemptions, 0);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(r.t, "hi"), 10.0, 1e-9);
	CU_ASSERT_EQUAL(flavor_of(&r, "hi"), 0);
	CU_ASSERT_EQUAL(job_by_id(r.t, "hi")->opt_chosen, 1);
	qrun_free(&r);
}

/* The nodes decide too: a's quota (16 on each flavor, flavor_order a100, h100) is
 * larger than the cluster (one node each). fill takes the a100 node until 5000; p
 * (at 10) lists a100 first. strict and fungible (Kueue: quota alone decides, and
 * a100 comes first in the queue's order too): p's quota fits on a100, it holds it
 * and waits for the node, to 5000. first_fit: a100 has quota but no free node, so
 * h100 (quota and a node): p starts at 10. A waiting job is taken up again when
 * nodes free up: q (at 20, a100 then h100) finds both nodes busy, waits, and
 * starts on h100 when p ends at 110 (a100 is still busy). */
static void test_cohort_first_fit_nodes_full(void)
{
	static const char *const csv = "id,submit_s,duration_s,queue,request,prefs\n"
				       "fill,0,5000,a,a100:gpu=8,\n"
				       "p,10,100,a,,a100:gpu=8;h100:gpu=8\n"
				       "q,20,100,a,,a100:gpu=8;h100:gpu=8\n";
	static const char *const quota =
		"{\"name\": \"cohort\", \"queues\": [{\"name\": \"a\", \"cohort\": null, \"quota\": {"
		"\"h100\": {\"gpu\": {\"nominal\": 16}}, \"a100\": {\"gpu\": {\"nominal\": 16}}},"
		" \"flavor_order\": [{\"resources\": [\"gpu\"], \"flavors\": [\"a100\", \"h100\"]}]}],"
		" \"unlisted_queues\": {\"cohort\": null}}";
	static const char *const kueue[] = { "strict", "fungible" };
	struct qrun r;
	for (int i = 0; i < 2; i++) {
		qrun_on(&r, csv_trace(csv), h100_a100(1, 1), "priority", quota, NULL, kueue[i]);
		CU_ASSERT_DOUBLE_EQUAL(tu_start_s(r.t, "p"), 5000.0, 1e-9);
		CU_ASSERT_EQUAL(flavor_of(&r, "p"), 1);
		qrun_free(&r);
	}
	qrun_on(&r, csv_trace(csv), h100_a100(1, 1), "priority", quota, NULL, "first_fit");
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(r.t, "p"), 10.0, 1e-9);
	CU_ASSERT_EQUAL(flavor_of(&r, "p"), 0);
	CU_ASSERT_EQUAL(job_by_id(r.t, "p")->opt_chosen, 1);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(r.t, "q"), 110.0, 1e-9);
	CU_ASSERT_EQUAL(flavor_of(&r, "q"), 0);
	CU_ASSERT_EQUAL(job_by_id(r.t, "q")->state, SIM_JOB_COMPLETED);
	qrun_free(&r);
}

/* Submit-time quota: a's a100 quota (4) cannot ever hold 8. first_fit checks every
 * option (SageMaker), so big is rejected; fungible and strict need one flavor that
 * can hold it (h100), so big runs. small fits both options and runs. */
static void test_cohort_first_fit_rejects_any_shortfall(void)
{
	static const char *const csv = "id,submit_s,duration_s,queue,request,prefs\n"
				       "big,0,100,a,,h100:gpu=8;a100:gpu=8\n"
				       "small,0,100,a,,h100:gpu=4;a100:gpu=4\n";
	static const char *const fbs[] = { "first_fit", "fungible", "strict" };
	char quota[512];
	for (int i = 0; i < 3; i++) {
		struct qrun r;
		queue_a(quota, sizeof quota, 8, 4);
		qrun_on(&r, csv_trace(csv), h100_a100(1, 1), "priority", quota, NULL, fbs[i]);
		CU_ASSERT_EQUAL(job_by_id(r.t, "big")->state, i == 0 ? SIM_JOB_REJECTED : SIM_JOB_COMPLETED);
		CU_ASSERT_EQUAL(job_by_id(r.t, "small")->state, SIM_JOB_COMPLETED);
		qrun_free(&r);
	}
}

/* Under fungible and first_fit every option of a job must have the same request:
 * a located error at init (the trace's file and line, column prefs). strict uses
 * option 0 only and accepts the trace. */
static int init_with_cpu;

static int init_with_fallback(const char *csv, const char *fallback, struct sim_diag *d)
{
	struct sim_trace *t = csv_trace(csv);
	struct sim_cluster *c = h100_a100_res(1, 1, init_with_cpu);
	CU_ASSERT_EQUAL_FATAL(sim_trace_bind(t, c, d), 0);
	struct sim_driver drv;
	sim_driver_virtual_init(&drv);
	struct sim_policy order = { .ops = sim_policy_lookup(SIM_FAM_ORDER, "priority") }, quota = { 0 };
	struct sim_policy fb = { .ops = fb_stub(fallback) };
	struct sim_engine_params ep = { .trace = t, .cluster = c, .driver = drv };
	ep.policies[SIM_FAM_ORDER] = &order;
	ep.policies[SIM_FAM_QUOTA] = &quota;
	ep.policies[SIM_FAM_FALLBACK] = &fb;
	struct sim_engine *e = sim_engine_create(&ep);
	char params[512];
	cJSON *pj = cJSON_Parse(init_with_cpu ?
		"{\"name\": \"cohort\", \"queues\": [{\"name\": \"a\", \"cohort\": null, \"quota\": {"
		"\"h100\": {\"gpu\": {\"nominal\": 8}, \"cpu\": {\"nominal\": 96}},"
		" \"a100\": {\"gpu\": {\"nominal\": 8}, \"cpu\": {\"nominal\": 96}}}}],"
		" \"unlisted_queues\": {\"cohort\": null}}" :
		queue_a(params, sizeof params, 8, 8));
	struct sim_policy_env env = { .view = sim_engine_view(e), .file = "exp.json",
				      .json_path = "$.policies.quota" };
	int rc = sim_policy_create(&quota, &cohort_policy_ops, &env, pj, d);
	sim_policy_destroy(&quota);
	cJSON_Delete(pj);
	sim_engine_destroy(e);
	sim_driver_virtual_fini(&drv);
	sim_cluster_destroy(c);
	sim_trace_destroy(t);
	return rc;
}

static void test_cohort_prefs_share_one_request(void)
{
	static const char *const csv = "id,submit_s,duration_s,queue,request,prefs\n"
				       "ok,0,100,a,,h100:gpu=4;a100:gpu=4\n"
				       "mixed,0,100,a,,h100:gpu=8;a100:gpu=4\n";
	struct sim_diag d;
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(init_with_fallback(csv, "fungible", &d), -SIM_EPARSE);
	if (!sim_diag_contains(&d, "prefs.csv:3: column prefs: expected one request shared by every "
				   "option under quota policy cohort with fallback fungible, found gpu=8 "
				   "on option 1 (h100) and gpu=4 on option 2 (a100)")) {
		sim_diag_print(&d, stderr);
		CU_FAIL("expected message missing");
	}
	sim_diag_fini(&d);
	/* first_fit: each option may state its own count (SageMaker) */
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(init_with_fallback(csv, "first_fit", &d), 0);
	sim_diag_fini(&d);
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(init_with_fallback(csv, "strict", &d), 0);
	sim_diag_fini(&d);
	/* ... but every option asks for the same resources */
	static const char *const csv2 = "id,submit_s,duration_s,queue,request,prefs\n"
					"ok,0,100,a,,h100:gpu=4;a100:gpu=8\n"
					"cpu,0,100,a,,\"h100:gpu=4,cpu=8;a100:gpu=8\"\n";
	sim_diag_init(&d, 20);
	init_with_cpu = 1;
	CU_ASSERT_EQUAL(init_with_fallback(csv2, "first_fit", &d), -SIM_EPARSE);
	init_with_cpu = 0;
	if (!sim_diag_contains(&d, "prefs.csv:3: column prefs: expected every option to request the same "
				   "resources under quota policy cohort with fallback first_fit, found "
				   "gpu=4,cpu=8 on option 1 (h100) and gpu=8 on option 2 (a100)")) {
		sim_diag_print(&d, stderr);
		CU_FAIL("expected message missing");
	}
	sim_diag_fini(&d);
}

/* Per-option counts under hard and cohort (SageMaker: two instances of the preferred
 * type, or four of the accepted one). h100: 2 nodes, a100: 6 nodes, 8 GPUs a node;
 * queue a's nominal: h100 16, a100 40; no cohort, no preemption.
 *  fill 0s h100:gpu=16 1000s: all of h100's quota and nodes.
 *  p 10s h100:gpu=16 or a100:gpu=32, 100 s on option 1: h100 has no quota left, so
 *    a100 with its own count, 32 (quota 32 <= 40, 4 free nodes): starts at 10, runs
 *    100 x 16 / 32 = 50 s, ends at 60.
 *  r 30s a100:gpu=8: quota 40 <= 40 -> starts at 30 (the 5th node), to 130.
 *  s 31s a100:gpu=8: 48 > 40, it waits for quota although the 6th node is free (it
 *    would start at 31 if p had booked option 1's count, 16); at 60 p frees 32: s
 *    starts at 60.
 *  big 40s h100:gpu=16 or a100:gpu=48: option 2 exceeds a's a100 quota (40) ever:
 *    rejected at submit (the potential-quota check uses each option's own count). */
static void test_cohort_per_option_counts(void)
{
	static const char *const csv = "id,submit_s,duration_s,queue,request,prefs\n"
				       "fill,0,1000,a,h100:gpu=16,\n"
				       "p,10,100,a,,h100:gpu=16;a100:gpu=32\n"
				       "r,30,100,a,a100:gpu=8,\n"
				       "s,31,10,a,a100:gpu=8,\n"
				       "big,40,10,a,,h100:gpu=16;a100:gpu=48\n";
	static const char *const names[] = { "hard", "cohort" };
	for (int i = 0; i < 2; i++) {
		char quota[512];
		snprintf(quota, sizeof quota,
			 "{\"name\": \"%s\", \"queues\": [{\"name\": \"a\", \"cohort\": null, \"quota\": {"
			 "\"h100\": {\"gpu\": {\"nominal\": 16}}, \"a100\": {\"gpu\": {\"nominal\": 40}}}}],"
			 " \"unlisted_queues\": {\"cohort\": null}}",
			 names[i]);
		struct qrun r;
		qrun_on(&r, csv_trace(csv), h100_a100(2, 6), "priority", quota, NULL, "first_fit");
		struct sim_job *p = job_by_id(r.t, "p");
		CU_ASSERT_DOUBLE_EQUAL(tu_start_s(r.t, "p"), 10.0, 1e-9);
		CU_ASSERT_EQUAL(p->opt_chosen, 1);
		CU_ASSERT_EQUAL(flavor_of(&r, "p"), 1);
		CU_ASSERT_EQUAL(p->end_ns, 60 * SIM_NS_PER_S);
		CU_ASSERT_DOUBLE_EQUAL(tu_start_s(r.t, "r"), 30.0, 1e-9);
		CU_ASSERT_DOUBLE_EQUAL(tu_start_s(r.t, "s"), 60.0, 1e-9);
		CU_ASSERT_EQUAL(job_by_id(r.t, "s")->state, SIM_JOB_COMPLETED);
		CU_ASSERT_EQUAL(job_by_id(r.t, "big")->state, SIM_JOB_REJECTED);
		CU_ASSERT_EQUAL(job_by_id(r.t, "fill")->state, SIM_JOB_COMPLETED);
		qrun_free(&r);
	}
}

/* The differential test: random small runs, each once on the treap with park
 * epochs and once on the naive oracle (cohort_test_naive_pending), must give the
 * same job table (start, end, state, preemptions of every job, byte for byte) and
 * the same preemption decisions. */
struct diff_case {
	char quota[2048];
	const char *preempt; /* NULL: none */
	const char *order;
	uint32_t nodes;
};

/* A quota entry of nominal n with, sometimes, a borrowing and a lending limit. */
static int diff_limits(gsl_rng *g, char *buf, size_t len, int n)
{
	int o = snprintf(buf, len, "{\"f\": {\"gpu\": {\"nominal\": %d", n);
	if (gsl_rng_uniform_int(g, 3) == 0)
		o += snprintf(buf + o, len - (size_t)o, ", \"borrowing_limit\": %d", (int)gsl_rng_uniform_int(g, 3) * 4);
	if (gsl_rng_uniform_int(g, 3) == 0)
		o += snprintf(buf + o, len - (size_t)o, ", \"lending_limit\": %d", (int)gsl_rng_uniform_int(g, 3) * 4);
	return o + snprintf(buf + o, len - (size_t)o, "}}}");
}

static const char *const diff_queues[] = { "a", "b", "c", "d" };

/* 4 queues (c and d in a nested cohort half the time), random quotas and limits,
 * StrictFIFO now and then, priority boosts, preemption none, classical (either
 * within-queue policy) or fair sharing, the cohort or the hard policy, and a head
 * bound of 2 in some runs (so the bound's path is checked too). */
static void diff_config(gsl_rng *g, struct diff_case *dc, const char *prio_csv)
{
	static const char *const preempts[] = { NULL, "{\"name\": \"classical\"}",
						"{\"name\": \"classical\", \"within_queue\": \"LowerOrNewerEqualPriority\"}",
						"{\"name\": \"fair_sharing\"}" };
	static const int nominals[] = { 0, 4, 8, 16 };
	dc->preempt = preempts[gsl_rng_uniform_int(g, 4)];
	dc->order = gsl_rng_uniform_int(g, 4) ? "priority" : "fifo";
	dc->nodes = 2 + (uint32_t)gsl_rng_uniform_int(g, 4);
	int nested = (int)gsl_rng_uniform_int(g, 2), hard = gsl_rng_uniform_int(g, 5) == 0;
	size_t o = (size_t)snprintf(dc->quota, sizeof dc->quota,
				    "{\"name\": \"%s\", \"cohorts\": [{\"name\": \"co\", \"parent\": null},"
				    " {\"name\": \"sub\", \"parent\": \"co\"}], \"queues\": [",
				    hard ? "hard" : "cohort");
	for (int q = 0; q < 4; q++) {
		char lim[256];
		diff_limits(g, lim, sizeof lim, nominals[gsl_rng_uniform_int(g, 4)]);
		o += (size_t)snprintf(dc->quota + o, sizeof dc->quota - o,
				      "%s{\"name\": \"%s\", \"cohort\": \"%s\", %s\"quota\": %s}", q ? ", " : "",
				      diff_queues[q], nested && q >= 2 ? "sub" : "co",
				      gsl_rng_uniform_int(g, 6) == 0 ? "\"queueing_strategy\": \"StrictFIFO\", " : "", lim);
	}
	o += (size_t)snprintf(dc->quota + o, sizeof dc->quota - o,
			      "], \"unlisted_queues\": {\"cohort\": null}, \"priority_events\": \"%s\"", prio_csv);
	if (gsl_rng_uniform_int(g, 4) == 0)
		o += (size_t)snprintf(dc->quota + o, sizeof dc->quota - o, ", \"max_heads_per_queue\": 2");
	snprintf(dc->quota + o, sizeof dc->quota - o, "}");
}

/* n jobs of 1 to 16 GPUs over 2,000 s (whole seconds, so many share an instant),
 * priorities 0 to 3, a pending limit on some. Jobs are named j0..j(n-1). */
static struct sim_trace *diff_trace_over(unsigned long seed, int n, const char *const *queues, unsigned long n_queues)
{
	static const int gpus[] = { 1, 2, 4, 8, 12, 16 };
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(g, seed);
	struct sim_trace *t = sim_trace_create();
	char id[16];
	for (int i = 0; i < n; i++) {
		snprintf(id, sizeof id, "j%d", i);
		size_t row = add_job(t, id, (double)gsl_rng_uniform_int(g, 2000), 10 + (double)gsl_rng_uniform_int(g, 990),
				     gpus[gsl_rng_uniform_int(g, 6)], queues[gsl_rng_uniform_int(g, n_queues)],
				     (int)gsl_rng_uniform_int(g, 4));
		if (gsl_rng_uniform_int(g, 8) == 0)
			t->jobs[row].max_pending_ns = (sim_time_t)(100 + gsl_rng_uniform_int(g, 900)) * SIM_NS_PER_S;
	}
	gsl_rng_free(g);
	return t;
}

static struct sim_trace *diff_trace(unsigned long seed, int n)
{
	return diff_trace_over(seed, n, diff_queues, 4);
}

/* Per job, in trace order: start, end, state, preemptions (fixed-width fields: no
 * padding, so memcmp compares the tables byte for byte). */
static int64_t *job_table(const struct sim_trace *t)
{
	int64_t *v = calloc(t->n_jobs * 4 + 1, sizeof *v);
	for (size_t i = 0; v && i < t->n_jobs; i++) {
		v[4 * i] = t->jobs[i].start_ns;
		v[4 * i + 1] = t->jobs[i].end_ns;
		v[4 * i + 2] = t->jobs[i].state;
		v[4 * i + 3] = t->jobs[i].preemptions;
	}
	return v;
}

/* Two runs of one trace decided the same: their job tables are equal byte for byte
 * (the message names the seed and the quota config where they differ). */
static void assert_same_jobs(const struct qrun *x, const struct qrun *y, unsigned long seed, const char *quota)
{
	int64_t *a = job_table(x->t), *b = job_table(y->t);
	CU_ASSERT_FATAL(a && b);
	int same = x->t->n_jobs == y->t->n_jobs && memcmp(a, b, x->t->n_jobs * 4 * sizeof *a) == 0;
	if (!same)
		fprintf(stderr, "seed %lu: job tables differ (%s)\n", seed, quota);
	CU_ASSERT(same);
	free(a);
	free(b);
}

static void diff_decisions_equal(const struct sim_decisions *a, const struct sim_decisions *b)
{
	CU_ASSERT_EQUAL_FATAL(a->n, b->n);
	for (size_t i = 0; i < a->n; i++) { /* field by field: the struct has padding */
		CU_ASSERT_EQUAL(a->v[i].t, b->v[i].t);
		CU_ASSERT_EQUAL(a->v[i].victim, b->v[i].victim);
		CU_ASSERT_EQUAL(a->v[i].preemptor, b->v[i].preemptor);
		CU_ASSERT_EQUAL(a->v[i].reason, b->v[i].reason);
		CU_ASSERT_EQUAL(a->v[i].requeued, b->v[i].requeued);
		CU_ASSERT_EQUAL(a->v[i].lost_gpu_s, b->v[i].lost_gpu_s);
	}
}

/* qrun on the naive oracle: naive pending sets and every kq oracle bit, reset
 * after the run. */
static void qrun_naive(struct qrun *r, struct sim_trace *t, uint32_t nodes, const char *order, const char *quota,
		       const char *preempt)
{
	cohort_test_naive_pending = 1;
	kq_test_oracle = KQ_ORACLE_ALL;
	qrun(r, t, nodes, order, quota, preempt);
	cohort_test_naive_pending = 0;
	kq_test_oracle = 0;
}

/* ---- BestEffortFIFO without a bound (Kueue) ---- */

/* One queue, 8 GPUs of quota on one 8-GPU node, no preemption: "run" (4 GPUs)
 * starts at 0; the 1,000 jobs of 8 GPUs behind it need quota "run" holds, so each
 * is set aside in turn, and "small" (4 GPUs, last in the queue) is admitted at the
 * same instant. Bounded at 16 heads a pass (the option), it waits for "run". */
static void many_heads_trace(struct sim_trace *t)
{
	char id[16];
	add_job(t, "run", 0, 1000, 4, "a", 0);
	for (int i = 0; i < 1000; i++) {
		snprintf(id, sizeof id, "big%d", i);
		add_job(t, id, 0, 10, 8, "a", 0);
	}
	add_job(t, "small", 0, 10, 4, "a", 0);
}

static void test_cohort_every_head_set_aside(void)
{
	struct qrun r, naive;
	struct sim_trace *t = sim_trace_create();
	many_heads_trace(t);
	cohort_test_skips = 0;
	qrun(&r, t, 1, "priority", ONE_QUEUE(""), NULL);
	CU_ASSERT_EQUAL(job_by_id(r.t, "small")->start_ns, job_by_id(r.t, "small")->submit_ns);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(r.t, "small"), 0.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(r.t, "big0"), 1000.0, 1e-9);
	/* E26: the refused bigs are passed over in runs, not one cycle each */
	CU_ASSERT(cohort_test_skips > 0);
	t = sim_trace_create();
	many_heads_trace(t);
	unsigned long skips = cohort_test_skips;
	qrun_naive(&naive, t, 1, "priority", ONE_QUEUE(""), NULL);
	CU_ASSERT_EQUAL(cohort_test_skips, skips); /* the oracle asks every head */
	assert_same_jobs(&r, &naive, 0, "many heads");
	qrun_free(&r);
	qrun_free(&naive);

	t = sim_trace_create();
	many_heads_trace(t);
	qrun(&r, t, 1, "priority",
	     "{\"name\": \"cohort\", \"queues\": [{\"name\": \"a\", \"cohort\": null,"
	     " \"quota\": {\"f\": {\"gpu\": {\"nominal\": 8}}}}], \"unlisted_queues\": {\"cohort\": null},"
	     " \"max_heads_per_queue\": 16}",
	     NULL);
	CU_ASSERT(tu_start_s(r.t, "small") >= 1000.0);
	qrun_free(&r);
}

/* E25, every pending entry set aside at once. One queue of 8 GPUs on one node, no
 * preemption: "run" (8 GPUs) holds the quota from 0 to 1000 s; behind it h0..h299
 * (2 GPUs, priority 1) and l0..l299 (4 GPUs, priority 0), submitted one a second
 * (h_i at 1 + 2i, l_i at 2 + 2i), 10 s each. Until 1000 every head is refused and
 * so is every class of the queue: each pass sets the whole queue aside at once. From
 * 1000 the h jobs run four at a time (75 waves of 10 s, to 1750), then the l jobs two
 * at a time (150 waves): l0 starts at 1750, l299 at 1750 + 149 x 10 = 3240. The
 * naive oracle (no such shortcut) decides the same, job by job. */
static struct sim_trace *drain_trace(void)
{
	struct sim_trace *t = sim_trace_create();
	char id[16];
	add_job(t, "run", 0, 1000, 8, "a", 0);
	for (int i = 0; i < 300; i++) {
		snprintf(id, sizeof id, "h%d", i);
		add_job(t, id, 1 + 2 * i, 10, 2, "a", 1);
		snprintf(id, sizeof id, "l%d", i);
		add_job(t, id, 2 + 2 * i, 10, 4, "a", 0);
	}
	return t;
}

static void test_cohort_drain_sets_whole_queue_aside(void)
{
	struct qrun fast, naive;
	cohort_test_drains = 0;
	qrun(&fast, drain_trace(), 1, "priority", ONE_QUEUE(""), NULL);
	CU_ASSERT(cohort_test_drains >= 600); /* a pass at each submit before 1000 at least */
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(fast.t, "h0"), 1000.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(fast.t, "h3"), 1000.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(fast.t, "h4"), 1010.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(fast.t, "h299"), 1740.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(fast.t, "l0"), 1750.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(fast.t, "l299"), 3240.0, 1e-9);
	unsigned long before = cohort_test_drains;
	qrun_naive(&naive, drain_trace(), 1, "priority", ONE_QUEUE(""), NULL);
	CU_ASSERT_EQUAL(cohort_test_drains, before); /* the oracle never takes it */
	assert_same_jobs(&fast, &naive, 0, "drain");
	qrun_free(&fast);
	qrun_free(&naive);
}

static void test_cohort_epochs_match_naive_oracle(void)
{
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	size_t preemptions = 0, jobs = 0;
	kq_test_bound_mismatches = 0;
	cohort_test_drains = 0;
	cohort_test_skips = 0;
	kq_test_deferred_drains = 0;
	for (unsigned long seed = 1; seed <= 60; seed++) {
		gsl_rng_set(g, seed);
		int n = 60 + (int)gsl_rng_uniform_int(g, 90);
		char csv[256];
		snprintf(csv, sizeof csv, "time_s,id,priority,duration_s\n%d,j%d,5,300\n%d,j%d,3,0\n",
			 (int)gsl_rng_uniform_int(g, 2000), (int)gsl_rng_uniform_int(g, (unsigned long)n),
			 (int)gsl_rng_uniform_int(g, 2000), (int)gsl_rng_uniform_int(g, (unsigned long)n));
		struct diff_case dc;
		diff_config(g, &dc, tu_write_file("diff_prio.csv", csv));
		struct qrun fast, naive;
		kq_test_oracle = KQ_ORACLE_CHECK_BOUNDS | KQ_TEST_COUNT_DEFER; /* the fast path, its flat bounds checked */
		qrun(&fast, diff_trace(seed, n), dc.nodes, dc.order, dc.quota, dc.preempt);
		kq_test_oracle = 0;
		qrun_naive(&naive, diff_trace(seed, n), dc.nodes, dc.order, dc.quota, dc.preempt);
		assert_same_jobs(&fast, &naive, seed, dc.quota);
		diff_decisions_equal(sim_engine_decisions(fast.e), sim_engine_decisions(naive.e));
		preemptions += sim_engine_decisions(fast.e)->n;
		jobs += fast.t->n_jobs;
		qrun_free(&fast);
		qrun_free(&naive);
	}
	CU_ASSERT(preemptions > 0); /* the runs do preempt */
	CU_ASSERT(jobs > 0);
	CU_ASSERT(cohort_test_drains > 0); /* and set whole queues aside (E25) */
	CU_ASSERT(cohort_test_skips > 0); /* and passed over runs of refused heads (E26) */
	CU_ASSERT(kq_test_deferred_drains > 0); /* and deferred fair-sharing drains (E27) */
	CU_ASSERT_EQUAL(kq_test_bound_mismatches, 0);
	gsl_rng_free(g);
}

/* Fair sharing in a three-level tree against the naive oracle, job by job and
 * decision by decision: the root `co` holds q0 and the cohorts `a` (q1, q2) and `b`,
 * and `b` holds the cohorts `b1` (q3, q4) and `b2` (q5). A target's side below
 * the root is then a cohort with cohorts of its own, whose drains the first pass
 * defers to the second (E27), and a preemptor below `a` can lower its own side's
 * share after such a drain, so the second pass takes jobs below a deferred cohort. */
static void test_cohort_deep_fair_sharing_matches_naive_oracle(void)
{
	static const char *const queues[] = { "q0", "q1", "q2", "q3", "q4", "q5" };
	static const char *const cohort_of[] = { "co", "a", "a", "b1", "b1", "b2" };
	static const int nominals[] = { 0, 4, 8, 16 };
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	size_t preemptions = 0;
	kq_test_deferred_drains = 0;
	for (unsigned long seed = 1; seed <= 80; seed++) {
		gsl_rng_set(g, 5000 + seed);
		int n = 80 + (int)gsl_rng_uniform_int(g, 120);
		char quota[4096];
		size_t o = (size_t)snprintf(quota, sizeof quota,
					    "{\"name\": \"cohort\", \"cohorts\": [{\"name\": \"co\", \"parent\": null}, "
					    "{\"name\": \"a\", \"parent\": \"co\"}, {\"name\": \"b\", \"parent\": \"co\"}, "
					    "{\"name\": \"b1\", \"parent\": \"b\"}, {\"name\": \"b2\", \"parent\": \"b\"}], "
					    "\"queues\": [");
		for (int q = 0; q < 6; q++) {
			char lim[256];
			diff_limits(g, lim, sizeof lim, nominals[gsl_rng_uniform_int(g, 4)]);
			o += (size_t)snprintf(quota + o, sizeof quota - o, "%s{\"name\": \"%s\", \"cohort\": \"%s\", \"quota\": %s}",
					      q ? ", " : "", queues[q], cohort_of[q], lim);
		}
		snprintf(quota + o, sizeof quota - o, "], \"unlisted_queues\": {\"cohort\": null}}");
		uint32_t nodes = 3 + (uint32_t)gsl_rng_uniform_int(g, 4);
		const char *preempt = "{\"name\": \"fair_sharing\"}";
		struct qrun fast, naive;
		kq_test_oracle = KQ_TEST_COUNT_DEFER;
		qrun(&fast, diff_trace_over(seed, n, queues, 6), nodes, "priority", quota, preempt);
		kq_test_oracle = 0;
		qrun_naive(&naive, diff_trace_over(seed, n, queues, 6), nodes, "priority", quota, preempt);
		assert_same_jobs(&fast, &naive, seed, quota);
		diff_decisions_equal(sim_engine_decisions(fast.e), sim_engine_decisions(naive.e));
		preemptions += sim_engine_decisions(fast.e)->n;
		qrun_free(&fast);
		qrun_free(&naive);
	}
	CU_ASSERT(preemptions > 0);
	CU_ASSERT(kq_test_deferred_drains > 0);
	gsl_rng_free(g);
}

/* The same differential check with the order policy admission_fair_sharing, whose
 * keys move at every admission and sample: jobs get one of three users (three
 * LocalQueues a queue), and the re-keyed treaps must decide as the naive pending
 * sets that scan the live keys. Quick sampling (30 s, half-life 300 s) so the
 * scores move during the 2,000 s of arrivals. */
static void test_cohort_afs_keys_match_naive_oracle(void)
{
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	size_t jobs = 0;
	for (unsigned long seed = 1; seed <= 30; seed++) {
		gsl_rng_set(g, 1000 + seed);
		int n = 60 + (int)gsl_rng_uniform_int(g, 90);
		struct diff_case dc;
		diff_config(g, &dc, tu_write_file("diff_prio_afs.csv", "time_s,id,priority\n"));
		if (dc.preempt && strstr(dc.preempt, "fair_sharing"))
			dc.preempt = "{\"name\": \"classical\"}"; /* docs/fair-share-kueue.md, "With fair sharing" */
		dc.order = "{\"name\": \"admission_fair_sharing\", \"usage_half_life_s\": 300, "
			   "\"usage_sampling_interval_s\": 30}";
		struct qrun runs[2];
		for (int naive = 0; naive < 2; naive++) {
			struct sim_trace *t = diff_trace(seed, n);
			static const char *const users[] = { "u0", "u1", "u2" };
			for (size_t i = 0; i < t->n_jobs; i++)
				t->jobs[i].user = sim_trace_intern_user(t, users[i % 3]);
			cohort_test_naive_pending = naive;
			kq_test_oracle = naive ? KQ_ORACLE_ALL : 0;
			qrun(&runs[naive], t, dc.nodes, dc.order, dc.quota, dc.preempt);
		}
		cohort_test_naive_pending = 0;
		kq_test_oracle = 0;
		assert_same_jobs(&runs[0], &runs[1], seed, dc.quota);
		jobs += runs[0].t->n_jobs;
		qrun_free(&runs[0]);
		qrun_free(&runs[1]);
	}
	CU_ASSERT(jobs > 0);
	gsl_rng_free(g);
}

/* 40 random contended runs, each with and without the monotone memos (against
 * KQ_ORACLE_MEMO_GEN): the same job tables and decision logs, and the rule must have
 * answered heads. fair: the preemption policy is drawn from fair sharing's
 * strategies instead of diff_config's mix. */
static void monotone_memos_against_gen(unsigned long seed_base, const char *prio_csv, int fair)
{
	static const char *const fair_preempts[] = {
		"{\"name\": \"fair_sharing\"}",
		"{\"name\": \"fair_sharing\", \"strategies\": [\"LessThanInitialShare\"]}",
		"{\"name\": \"fair_sharing\", \"strategies\": [\"LessThanOrEqualToFinalShare\"]}",
	};
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	unsigned long hits = kq_test_mono_hits, own_hits = kq_test_own_hits;
	for (unsigned long seed = 1; seed <= 40; seed++) {
		gsl_rng_set(g, seed_base + seed);
		int n = 250 + (int)gsl_rng_uniform_int(g, 250);
		struct diff_case dc;
		diff_config(g, &dc, tu_write_file(prio_csv, "time_s,id,priority\n"));
		if (fair)
			dc.preempt = fair_preempts[gsl_rng_uniform_int(g, 3)];
		dc.nodes = 2 + (uint32_t)gsl_rng_uniform_int(g, 2);
		struct qrun runs[2];
		for (int gen = 0; gen < 2; gen++) {
			kq_test_oracle = gen ? KQ_ORACLE_MEMO_GEN : KQ_TEST_COUNT_MONO;
			qrun(&runs[gen], diff_trace(seed, n), dc.nodes, dc.order, dc.quota, dc.preempt);
		}
		kq_test_oracle = 0;
		assert_same_jobs(&runs[0], &runs[1], seed, dc.quota);
		diff_decisions_equal(sim_engine_decisions(runs[0].e), sim_engine_decisions(runs[1].e));
		qrun_free(&runs[0]);
		qrun_free(&runs[1]);
	}
	CU_ASSERT(kq_test_mono_hits > hits);
	if (!fair) /* and rule E16 (classical memos that read only their own queue) did */
		CU_ASSERT(kq_test_own_hits > own_hits);
	gsl_rng_free(g);
}

/* Rule E13 (docs/kueue-rules.md) on random contended runs: memos that outlive
 * time, releases below their shortfall and monotone admissions decide exactly as
 * memos that end at every change. Longer traces on fewer nodes than the oracle
 * test above, so heads wait through many changes. */
static void test_cohort_monotone_memos_match_gen_memos(void)
{
	monotone_memos_against_gen(5000, "diff_prio_mono.csv", 0);
}

/* Rule E14: the same under fair sharing, its strategies drawn (Kueue's default pair,
 * or one alone). */
static void test_cohort_fair_monotone_memos_match_gen_memos(void)
{
	monotone_memos_against_gen(7000, "diff_prio_fmono.csv", 1);
}

static CU_TestInfo cohort_tests[] = {
	{ "config_errors", test_cohort_config_errors },
	{ "no_preemption_chains_at_one_instant", test_cohort_no_preemption_chains_at_one_instant },
	{ "many_waiting_jobs", test_cohort_many_waiting_jobs },
	{ "many_queues_each_served", test_cohort_many_queues_each_served },
	{ "lending_raises_utilization", test_cohort_lending_raises_utilization },
	{ "lender_gets_nominal_back", test_cohort_lender_gets_nominal_back },
	{ "retry_limit_zero", test_cohort_retry_limit_zero },
	{ "checkpoint_cost", test_cohort_checkpoint_cost },
	{ "min_runtime", test_cohort_min_runtime },
	{ "preemption_cap", test_cohort_preemption_cap },
	{ "quota_shrink_event", test_cohort_quota_shrink_event },
	{ "priority_events", test_cohort_priority_events },
	{ "side_csv_every_bad_row", test_cohort_side_csv_every_bad_row },
	{ "rejects_above_potential", test_cohort_rejects_above_potential },
	{ "deterministic", test_cohort_deterministic },
	{ "fungible_second_flavor", test_cohort_fungible_second_flavor },
	{ "first_fit_order_and_no_preemption", test_cohort_first_fit_order_and_no_preemption },
	{ "first_fit_nodes_full", test_cohort_first_fit_nodes_full },
	{ "first_fit_rejects_any_shortfall", test_cohort_first_fit_rejects_any_shortfall },
	{ "prefs_share_one_request", test_cohort_prefs_share_one_request },
	{ "per_option_counts", test_cohort_per_option_counts },
	{ "pending_limit_drops", test_cohort_pending_limit_drops },
	{ "every_head_set_aside", test_cohort_every_head_set_aside },
	{ "drain_sets_whole_queue_aside", test_cohort_drain_sets_whole_queue_aside },
	{ "epochs_match_naive_oracle", test_cohort_epochs_match_naive_oracle },
	{ "deep_fair_sharing_matches_naive_oracle", test_cohort_deep_fair_sharing_matches_naive_oracle },
	{ "afs_keys_match_naive_oracle", test_cohort_afs_keys_match_naive_oracle },
	{ "monotone_memos_match_gen_memos", test_cohort_monotone_memos_match_gen_memos },
	{ "fair_monotone_memos_match_gen_memos", test_cohort_fair_monotone_memos_match_gen_memos },
	{ "quota_raise_admits_oversized", test_cohort_quota_raise_admits_oversized },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo cohort_suite = { "cohort", init_cohort, clean_cohort, NULL, NULL, cohort_tests };
