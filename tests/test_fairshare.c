/* tests/test_fairshare.c: fair share over time (docs/fair-share.md), hand-computed.
 *
 * First the arithmetic of policies/fairshare.h (decay, Slurm's factors, AWS Batch's
 * reservation and weights); then the order policies multifactor, batch_fair_share and
 * hyperpod on tiny traces, alone, where every start time below was worked out by hand. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../policies/fairshare.h"
#include "../policies/policy.h"
#include "testutil.h"

static int init_fairshare(void) { return 0; }
static int clean_fairshare(void) { return 0; }

#define S(x) ((sim_time_t)((x) * (double)SIM_NS_PER_S))

/* ---- decay ---- */

/* 1000 GPU-seconds, nothing running, one half-life later: 500. */
static void test_fairshare_decay_one_half_life_halves(void)
{
	struct fs_decayed u = { .usage_gpu_s = 1000, .running_mgpu = 0, .last_ns = 0 };
	fs_decayed_advance(&u, S(3600), 3600);
	CU_ASSERT_DOUBLE_EQUAL(u.usage_gpu_s, 500, 1e-9);
	fs_decayed_advance(&u, S(7200), 3600);
	CU_ASSERT_DOUBLE_EQUAL(u.usage_gpu_s, 250, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(fs_decay_factor(3600, 3600), 0.5, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(fs_decay_factor(123, 0), 1.0, 0); /* half-life 0: no decay */
}

/* 2 GPUs running for one half-life H from nothing: integral of 2 * 2^(-(H-t)/H) dt over
 * [0, H] = 2 H/ln2 (1 - 1/2) = H/ln2 = 5193.98 GPU-s for H = 3600 s. Split into uneven
 * steps it is the same (exact integration, not a sum of rectangles). */
static void test_fairshare_decay_running_integrates_exactly(void)
{
	struct fs_decayed u = { 0 };
	fs_decayed_change(&u, 0, 3600, 2000);
	fs_decayed_advance(&u, S(3600), 3600);
	CU_ASSERT_DOUBLE_EQUAL(u.usage_gpu_s, 3600 / FS_LN2, 1e-6);
	struct fs_decayed w = { 0 };
	fs_decayed_change(&w, 0, 3600, 2000);
	fs_decayed_advance(&w, S(17), 3600);
	fs_decayed_advance(&w, S(1000), 3600);
	fs_decayed_advance(&w, S(3600), 3600);
	CU_ASSERT_DOUBLE_EQUAL(w.usage_gpu_s, 3600 / FS_LN2, 1e-6);
	/* The job stops: one more half-life halves it. */
	fs_decayed_change(&w, S(3600), 3600, -2000);
	fs_decayed_advance(&w, S(7200), 3600);
	CU_ASSERT_DOUBLE_EQUAL(w.usage_gpu_s, 3600 / FS_LN2 / 2, 1e-6);
	/* Without decay, GPU-seconds simply add up: 2 GPUs x 100 s. */
	struct fs_decayed n = { 0 };
	fs_decayed_change(&n, 0, 0, 2000);
	fs_decayed_advance(&n, S(100), 0);
	CU_ASSERT_DOUBLE_EQUAL(n.usage_gpu_s, 200, 1e-9);
	/* Time never goes backwards. */
	fs_decayed_advance(&n, S(50), 0);
	CU_ASSERT_DOUBLE_EQUAL(n.usage_gpu_s, 200, 1e-9);
}

/* ---- Slurm ---- */

/* Accounts A and B with equal shares (S = 0.5 each) used 300 and 100 GPU-s: U_A = 0.75,
 * U_B = 0.25, so F_A = 2^(-1.5) = 0.353553, F_B = 2^(-0.5) = 0.707107. With shares 3:1,
 * S_A = 0.75 = U_A: F_A = 0.5 exactly (usage equal to shares gives one half). */
static void test_fairshare_slurm_factor_hand_computed(void)
{
	double usage[2] = { 300, 100 }, eq[2] = { 1, 1 }, f[2];
	fs_slurm_fairshare_factors(2, usage, eq, f);
	CU_ASSERT_DOUBLE_EQUAL(f[0], 0.35355339, 1e-8);
	CU_ASSERT_DOUBLE_EQUAL(f[1], 0.70710678, 1e-8);
	double sh[2] = { 3, 1 };
	fs_slurm_fairshare_factors(2, usage, sh, f);
	CU_ASSERT_DOUBLE_EQUAL(f[0], 0.5, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(f[1], 0.5, 1e-15);
	/* Nothing used yet: every account 1; no shares: 0. */
	double none[2] = { 0, 0 }, zero_b[2] = { 1, 0 };
	fs_slurm_fairshare_factors(2, none, zero_b, f);
	CU_ASSERT_DOUBLE_EQUAL(f[0], 1.0, 0);
	CU_ASSERT_DOUBLE_EQUAL(f[1], 0.0, 0);
}

static void test_fairshare_slurm_age_and_size_factors(void)
{
	double week = 7 * 86400.0;
	CU_ASSERT_DOUBLE_EQUAL(fs_slurm_age_factor(week / 4, week), 0.25, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(fs_slurm_age_factor(2 * week, week), 1.0, 0);
	CU_ASSERT_DOUBLE_EQUAL(fs_slurm_age_factor(-5, week), 0.0, 0);
	/* 16 of 64 GPUs: 0.25; favouring small jobs: 0.75. */
	CU_ASSERT_DOUBLE_EQUAL(fs_slurm_size_factor(16000, 64000, 0), 0.25, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(fs_slurm_size_factor(16000, 64000, 1), 0.75, 1e-15);
}

/* ---- AWS Batch ---- */

/* The reservation examples of the AWS Batch documentation (FairsharePolicy,
 * computeReservation): 50 reserves 50%, 25%, 12.5% for 1, 2, 3 active share identifiers;
 * 25 reserves 25%, 6.25%, 1.56%. And the AWS CDK guide's: 75 reserves 100% with none
 * active, then 75%, 56.25%, 42.1875%, so A, B and C together use at most 57.8125%. */
static void test_fairshare_batch_reservation_doc_examples(void)
{
	CU_ASSERT_DOUBLE_EQUAL(fs_batch_reserved_fraction(50, 1), 0.50, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(fs_batch_reserved_fraction(50, 2), 0.25, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(fs_batch_reserved_fraction(50, 3), 0.125, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(fs_batch_reserved_fraction(25, 1), 0.25, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(fs_batch_reserved_fraction(25, 2), 0.0625, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(fs_batch_reserved_fraction(25, 3), 0.015625, 1e-15); /* "1.56%" */
	CU_ASSERT_DOUBLE_EQUAL(fs_batch_reserved_fraction(75, 0), 1.0, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(fs_batch_reserved_fraction(75, 3), 0.421875, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(1 - fs_batch_reserved_fraction(75, 3), 0.578125, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(fs_batch_reserved_fraction(0, 1), 0.0, 0);
}

/* weightFactor: "a share identifier with weight 0.125 gets 8 times the compute of weight 1":
 * 8 GPUs at 0.125 weigh as much as 1 GPU at 1 (decay 0: current usage only). */
static void test_fairshare_batch_weight_doc_example(void)
{
	struct fs_recent a = { 0 }, b = { 0 };
	fs_recent_change(&a, 0, 0, 8000);
	fs_recent_change(&b, 0, 0, 1000);
	CU_ASSERT_DOUBLE_EQUAL(fs_batch_usage(&a, 0.125, 0), fs_batch_usage(&b, 1.0, 0), 1e-15);
	/* One more GPU tips the balance either way. */
	fs_recent_change(&b, 0, 0, 1000);
	CU_ASSERT(fs_batch_usage(&a, 0.125, 0) < fs_batch_usage(&b, 1.0, 0));
}

/* shareDecaySeconds D > 0: the average of the GPUs held relaxes with time constant D;
 * after the share stops, D ln2 later its recent usage is half. */
static void test_fairshare_batch_decay_halves_after_d_ln2(void)
{
	double d = 600;
	struct fs_recent r = { 0 };
	fs_recent_change(&r, 0, d, 4000);
	fs_recent_advance(&r, S(600), d); /* 4 (1 - 1/e) */
	CU_ASSERT_DOUBLE_EQUAL(r.avg_gpus, 4 * (1 - exp(-1)), 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(fs_batch_usage(&r, 1, d), 4 + 4 * (1 - exp(-1)), 1e-12);
	double before = r.avg_gpus;
	fs_recent_change(&r, S(600), d, -4000);
	fs_recent_advance(&r, S(600) + S(d * FS_LN2), d);
	CU_ASSERT_DOUBLE_EQUAL(r.avg_gpus, before / 2, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(fs_batch_usage(&r, 1, 0), 0, 0); /* decay 0: only what runs now */
}

static void test_fairshare_hyperpod_team_score(void)
{
	CU_ASSERT_DOUBLE_EQUAL(fs_hyperpod_team_score(8000, 50), 0.16, 1e-15);
	CU_ASSERT(isinf(fs_hyperpod_team_score(0, 0)));
}

/* ---- the policies on tiny traces ---- */

/* A job of queue `queue` (the share identifier, team or account when the trace has no users). */
static void add_job(struct sim_trace *t, const char *id, double submit_s, double duration_s, int gpus,
		    const char *queue, int priority)
{
	size_t row = tu_trace_add(t, id, submit_s, duration_s, (sim_qty_t)gpus * SIM_MILLI, "f", priority);
	t->jobs[row].queue = sim_trace_intern_queue(t, queue);
}

/* Jobs whose id starts with `prefix` that started at time `at_s`. */
static int started_at(const struct sim_trace *t, const char *prefix, double at_s)
{
	int n = 0;
	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct sim_job *j = &t->jobs[i];
		if (strncmp(sim_job_id(t, j), prefix, strlen(prefix)) == 0 && j->start_ns != SIM_TIME_NONE &&
		    j->start_ns == S(at_s))
			n++;
	}
	return n;
}

/* Many jobs of each queue at time 0 (A's rows first), duration 100 s. */
static struct sim_trace *two_shares(int n_a, int gpus_a, int n_b, int gpus_b)
{
	struct sim_trace *t = sim_trace_create();
	char id[32];
	for (int i = 0; i < n_a; i++) {
		snprintf(id, sizeof id, "a%d", i);
		add_job(t, id, 0, 100, gpus_a, "A", 0);
	}
	for (int i = 0; i < n_b; i++) {
		snprintf(id, sizeof id, "b%d", i);
		add_job(t, id, 0, 100, gpus_b, "B", 0);
	}
	tu_trace_finish(t);
	return t;
}

/* The AWS CDK guide's example: shares A and B of weight 1, A's jobs need 32 vCPUs and B's
 * 64 (here 4 and 8 GPUs): usage over weight equal means two A jobs for each B job. On 32
 * GPUs: 4 A jobs and 2 B jobs start at 0 (hand-traced: A4 B8 A8 A12 B16 A16, ties to the
 * earlier head). */
static void test_fairshare_batch_two_a_per_b(void)
{
	struct sim_trace *t = two_shares(8, 4, 4, 8);
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 4, 8, "batch_fair_share", NULL, SIM_PLACE_BEST_FIT), 0);
	CU_ASSERT_EQUAL(started_at(t, "a", 0), 4);
	CU_ASSERT_EQUAL(started_at(t, "b", 0), 2);
	CU_ASSERT_EQUAL(started_at(t, "a", 100), 4);
	CU_ASSERT_EQUAL(started_at(t, "b", 100), 2);
	sim_trace_destroy(t);
}

/* weightFactor 0.125 gets 8 times the compute of 1 (AWS Batch ShareAttributes): on 9 GPUs
 * of 1-GPU jobs, A (weight 1) starts 1 and B (0.125) starts 8. FIFO would start 9 of A. */
static void test_fairshare_batch_weight_eight_times(void)
{
	struct sim_trace *t = two_shares(20, 1, 20, 1);
	const char *params = "{\"shareDistribution\": [{\"shareIdentifier\": \"B\", \"weightFactor\": 0.125}]}";
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 1, 9, "batch_fair_share", params, SIM_PLACE_BEST_FIT), 0);
	CU_ASSERT_EQUAL(started_at(t, "a", 0), 1);
	CU_ASSERT_EQUAL(started_at(t, "b", 0), 8);
	/* A prefix names B too. */
	const char *prefixed = "{\"shareDistribution\": [{\"shareIdentifier\": \"B*\", \"weightFactor\": 0.125}]}";
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 1, 9, "batch_fair_share", prefixed, SIM_PLACE_BEST_FIT), 0);
	CU_ASSERT_EQUAL(started_at(t, "b", 0), 8);
	sim_trace_destroy(t);
}

/* The CDK guide's computeReservation example, 75%, three shares A, B, C arriving at 0, 10
 * and 20 s on 16 GPUs with long 1-GPU jobs. A alone: 75% reserved, A may hold 25% = 4 GPUs.
 * B arrives: 56.25% reserved, active shares hold at most 7 GPUs: B gets 3. C arrives:
 * 42.1875% reserved, at most 9.25 GPUs: C gets 2. The rest of the cluster stays idle. */
static void test_fairshare_batch_compute_reservation_example(void)
{
	struct sim_trace *t = sim_trace_create();
	char id[32];
	static const char *const q[3] = { "A", "B", "C" };
	for (int s = 0; s < 3; s++)
		for (int i = 0; i < 16; i++) {
			snprintf(id, sizeof id, "%c%d", "abc"[s], i);
			add_job(t, id, 10.0 * s, 1000, 1, q[s], 0);
		}
	tu_trace_finish(t);
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 2, 8, "batch_fair_share", "{\"computeReservation\": 75}",
					  SIM_PLACE_BEST_FIT), 0);
	CU_ASSERT_EQUAL(started_at(t, "a", 0), 4);
	CU_ASSERT_EQUAL(started_at(t, "b", 10), 3);
	CU_ASSERT_EQUAL(started_at(t, "c", 20), 2);
	/* 50% (the Batch guide's): one share may hold 8 of 16, two 12, three 14. */
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 2, 8, "batch_fair_share", "{\"computeReservation\": 50}",
					  SIM_PLACE_BEST_FIT), 0);
	CU_ASSERT_EQUAL(started_at(t, "a", 0), 8);
	CU_ASSERT_EQUAL(started_at(t, "b", 10), 4);
	CU_ASSERT_EQUAL(started_at(t, "c", 20), 2);
	sim_trace_destroy(t);
}

/* shareDecaySeconds: on 1 GPU, a0 (A) runs 0..100; a1 (A, at 50) and b1 (B, at 60) wait.
 * Decay 0 counts GPUs held now only: at 100 both shares hold none, the earlier head a1
 * goes first. Decay 3600 remembers A's run: B goes first. The order flips with usage. */
static void test_fairshare_batch_decay_flips_order(void)
{
	struct sim_trace *t = sim_trace_create();
	add_job(t, "a0", 0, 100, 1, "A", 0);
	add_job(t, "a1", 50, 100, 1, "A", 0);
	add_job(t, "b1", 60, 100, 1, "B", 0);
	tu_trace_finish(t);
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 1, 1, "batch_fair_share", NULL, SIM_PLACE_BEST_FIT), 0);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "a1"), 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "b1"), 200, 1e-9);
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 1, 1, "batch_fair_share", "{\"shareDecaySeconds\": 3600}",
					  SIM_PLACE_BEST_FIT), 0);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "b1"), 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "a1"), 200, 1e-9);
	sim_trace_destroy(t);
}

/* Inside a share, the higher schedulingPriority (the trace's priority) first. */
static void test_fairshare_batch_scheduling_priority(void)
{
	struct sim_trace *t = sim_trace_create();
	add_job(t, "run", 0, 100, 1, "A", 0);
	add_job(t, "lo", 1, 100, 1, "A", 0);
	add_job(t, "hi", 2, 100, 1, "A", 5);
	tu_trace_finish(t);
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 1, 1, "batch_fair_share", NULL, SIM_PLACE_BEST_FIT), 0);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "hi"), 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "lo"), 200, 1e-9);
	sim_trace_destroy(t);
}

/* 1 when creating order policy `order` with params for trace t fails with a message
 * containing `needle` (the JSON path and what was expected). */
static int refused_with(struct sim_trace *t, const char *order, const char *params, const char *needle)
{
	struct sim_cluster *c = tu_cluster(1, 8, 1.0, SIM_PLACE_BEST_FIT);
	struct sim_diag d;
	sim_diag_init(&d, 20);
	struct sim_driver drv;
	sim_driver_virtual_init(&drv);
	struct sim_policy pol = { .ops = sim_policy_lookup(SIM_FAM_ORDER, order) };
	struct sim_engine_params ep = { .trace = t, .cluster = c, .driver = drv };
	ep.policies[SIM_FAM_ORDER] = &pol;
	int ok = 0;
	struct sim_engine *e = sim_trace_bind(t, c, &d) ? NULL : sim_engine_create(&ep);
	cJSON *pj = cJSON_Parse(params);
	if (e && pol.ops) {
		struct sim_policy_env env = { .view = sim_engine_view(e), .file = "exp.json",
					      .json_path = "$.policies.order" };
		ok = sim_policy_create(&pol, pol.ops, &env, pj, &d) == -SIM_EPARSE && sim_diag_contains(&d, needle);
		if (!ok)
			sim_diag_print(&d, stderr);
		sim_policy_destroy(&pol);
	}
	cJSON_Delete(pj);
	sim_engine_destroy(e);
	sim_driver_virtual_fini(&drv);
	sim_diag_fini(&d);
	sim_cluster_destroy(c);
	return ok;
}

/* Params are checked with their place. */
static void test_fairshare_params_located(void)
{
	struct sim_trace *t = two_shares(1, 1, 1, 1);
	CU_ASSERT(refused_with(t, "batch_fair_share", "{\"computeReservation\": 100}",
			       "exp.json: $.policies.order.computeReservation: expected a number in [0, 99], got 100"));
	CU_ASSERT(refused_with(t, "batch_fair_share", "{\"shareDecay\": 1}",
			       "exp.json: $.policies.order.shareDecay: expected one of the keys"));
	CU_ASSERT(refused_with(t, "batch_fair_share",
			       "{\"shareDistribution\": [{\"shareIdentifier\": \"A\", \"weightFactor\": 0}]}",
			       "$.policies.order.shareDistribution[0]: weightFactor: expected a number in [0.0001, 999.9999]"));
	CU_ASSERT(refused_with(t, "multifactor", "{\"account\": \"team\"}",
			       "$.policies.order.account: expected \"auto\", \"user\" or \"queue\", got \"team\""));
	CU_ASSERT(refused_with(t, "multifactor", "{\"shares\": {\"A\": -1}}",
			       "$.policies.order.shares.A: expected a number in [0, 1e+09], got -1"));
	CU_ASSERT(refused_with(t, "multifactor", "{\"priorityfavorsmall\": 1}",
			       "$.policies.order.priorityfavorsmall: expected true or false, got 1"));
	CU_ASSERT(refused_with(t, "hyperpod", "{\"fair_share_weights\": {\"A\": 101}}",
			       "$.policies.order.fair_share_weights.A: expected a number in [0, 100], got 101"));
	CU_ASSERT(refused_with(t, "hyperpod", "{\"priority_classes\": [{\"name\": \"x\", \"weight\": 5}]}",
			       "$.policies.order.priority_classes[0]: expected {\"name\": string"));
	sim_trace_destroy(t);
}

/* ---- under the cohort quota policy: the order policy ranks jobs inside each queue ---- */

/* A job of queue q by user `user` (the account or share identifier). */
static void add_user_job(struct sim_trace *t, const char *id, double submit_s, double duration_s, int gpus,
			 const char *user, int priority)
{
	size_t row = tu_trace_add(t, id, submit_s, duration_s, (sim_qty_t)gpus * SIM_MILLI, "f", priority);
	t->jobs[row].queue = sim_trace_intern_queue(t, "q");
	t->jobs[row].user = sim_trace_intern_user(t, user);
}

/* Runs the finished trace t on one node of `gpus` GPUs under quota policy `quota_name`
 * (cohort or hard), one queue "q" of nominal `gpus`, ranked by order policy `order`
 * (params JSON or NULL). Returns the engine's result. */
static int run_under_quota(struct sim_trace *t, int gpus, const char *quota_name, const char *order,
			   const char *order_params)
{
	char quota[512];
	snprintf(quota, sizeof quota,
		 "{\"name\": \"%s\", \"cohorts\": [{\"name\": \"co\", \"parent\": null}],"
		 " \"queues\": [{\"name\": \"q\", \"cohort\": \"co\", \"quota\": {\"f\": {\"gpu\": {\"nominal\": %d}}}}],"
		 " \"unlisted_queues\": {\"cohort\": null}}",
		 quota_name, gpus);
	struct sim_cluster *c = tu_cluster(1, gpus, 1.0, SIM_PLACE_BEST_FIT);
	struct sim_diag d;
	sim_diag_init(&d, 20);
	d.echo = stderr;
	int rc = sim_trace_bind(t, c, &d);
	struct sim_driver drv;
	sim_driver_virtual_init(&drv);
	struct sim_policy pol[SIM_FAM_COUNT_] = { 0 };
	struct sim_engine_params ep = { .trace = t, .cluster = c, .driver = drv };
	pol[SIM_FAM_ORDER].ops = sim_policy_lookup(SIM_FAM_ORDER, order);
	pol[SIM_FAM_QUOTA].ops = sim_policy_lookup(SIM_FAM_QUOTA, quota_name);
	ep.policies[SIM_FAM_ORDER] = &pol[SIM_FAM_ORDER];
	ep.policies[SIM_FAM_QUOTA] = &pol[SIM_FAM_QUOTA];
	struct sim_engine *e = rc ? NULL : sim_engine_create(&ep);
	const char *params[2] = { order_params, quota };
	for (int f = 0; e && !rc && f < 2; f++) {
		cJSON *pj = params[f] ? cJSON_Parse(params[f]) : NULL;
		struct sim_policy_env env = { .view = sim_engine_view(e), .file = "test",
					      .json_path = f ? "$.policies.quota" : "$.policies.order" };
		rc = sim_policy_create(&pol[f], pol[f].ops, &env, pj, &d);
		cJSON_Delete(pj);
	}
	if (e && !rc)
		rc = sim_engine_run(e);
	for (int f = 0; f < 2; f++)
		if (pol[f].ops)
			sim_policy_destroy(&pol[f]);
	sim_engine_destroy(e);
	sim_driver_virtual_fini(&drv);
	sim_diag_fini(&d);
	sim_cluster_destroy(c);
	return rc;
}

static int run_under_cohort(struct sim_trace *t, int gpus, const char *order, const char *order_params)
{
	return run_under_quota(t, gpus, "cohort", order, order_params);
}

/* On 1 GPU: u0 of user A runs 0..100; a1 (A, at 10) and b1 (B, at 20) wait. */
static struct sim_trace *a_ran_then_both_wait(void)
{
	struct sim_trace *t = sim_trace_create();
	add_user_job(t, "a0", 0, 100, 1, "A", 0);
	add_user_job(t, "a1", 10, 100, 1, "A", 0);
	add_user_job(t, "b1", 20, 100, 1, "B", 0);
	tu_trace_finish(t);
	return t;
}

/* Slurm, alone. Calculation every 300 s: no calculation before 100, every priority is
 * w_fairshare x 1 + 0 (age counts from the last calculation, time 0): equal, so the
 * earlier submit a1 starts at 100. Calculation every 50 s: at 50, A used 50 GPU-s (decay
 * over 50 s of a 7-day half-life is negligible) and B nothing: U_A = 1, S_A = 1/2,
 * F_A = 2^-2 = 0.25, F_B = 1; priorities floor(1000 x 40/604800 + 2500) = 2500 for a1 and
 * floor(1000 x 30/604800 + 10000) = 10000 for b1: b1 starts at 100. */
static void test_fairshare_multifactor_order_flips_at_calc(void)
{
	struct sim_trace *t = a_ran_then_both_wait();
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 1, 1, "multifactor", "{\"prioritycalcperiod\": 300}",
					  SIM_PLACE_BEST_FIT), 0);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "a1"), 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "b1"), 200, 1e-9);
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 1, 1, "multifactor", "{\"prioritycalcperiod\": 50}",
					  SIM_PLACE_BEST_FIT), 0);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "b1"), 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "a1"), 200, 1e-9);
	/* Without the fair-share weight, age alone: the older a1 first. */
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 1, 1, "multifactor",
					  "{\"prioritycalcperiod\": 50, \"priorityweightfairshare\": 0,"
					  " \"priorityweightage\": 100000000}", SIM_PLACE_BEST_FIT), 0);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "a1"), 100, 1e-9);
	sim_trace_destroy(t);
}

/* Job size: on 4 GPUs a 4-GPU blocker runs 0..100; small (1 GPU, at 1) and big (4 GPUs,
 * at 2) wait. Size weight 1000 alone: big 1000 x 4/4 = 1000 beats small 250; favouring
 * small jobs, small 750 beats big 0. */
static void test_fairshare_multifactor_job_size(void)
{
	struct sim_trace *t = sim_trace_create();
	add_job(t, "blocker", 0, 100, 4, "A", 0);
	add_job(t, "small", 1, 100, 1, "A", 0);
	add_job(t, "big", 2, 100, 4, "A", 0);
	tu_trace_finish(t);
	const char *base = "{\"prioritycalcperiod\": 10, \"priorityweightage\": 0, \"priorityweightfairshare\": 0,"
			   " \"priorityweightjobsize\": 1000";
	char params[256];
	snprintf(params, sizeof params, "%s}", base);
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 1, 4, "multifactor", params, SIM_PLACE_BEST_FIT), 0);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "big"), 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "small"), 200, 1e-9);
	snprintf(params, sizeof params, "%s, \"priorityfavorsmall\": true}", base);
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 1, 4, "multifactor", params, SIM_PLACE_BEST_FIT), 0);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "small"), 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "big"), 200, 1e-9); /* it waits for small's GPU */
	sim_trace_destroy(t);
}

/* The same flip inside one cohort queue, accounts by user. */
static void test_fairshare_multifactor_under_cohort(void)
{
	struct sim_trace *t = a_ran_then_both_wait();
	CU_ASSERT_EQUAL_FATAL(run_under_cohort(t, 1, "multifactor", "{\"prioritycalcperiod\": 50}"), 0);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "b1"), 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "a1"), 200, 1e-9);
	CU_ASSERT_EQUAL_FATAL(run_under_cohort(t, 1, "multifactor", "{\"prioritycalcperiod\": 300}"), 0);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "a1"), 100, 1e-9);
	/* And under hard quota. */
	CU_ASSERT_EQUAL_FATAL(run_under_quota(t, 1, "hard", "multifactor", "{\"prioritycalcperiod\": 50}"), 0);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "b1"), 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "a1"), 200, 1e-9);
	sim_trace_destroy(t);
}

/* AWS Batch inside one cohort queue, share identifier = user: A's recent run puts B first
 * (decay 3600); with decay 0 both hold nothing at 100 and the earlier a1 goes first. */
static void test_fairshare_batch_under_cohort(void)
{
	struct sim_trace *t = a_ran_then_both_wait();
	CU_ASSERT_EQUAL_FATAL(run_under_cohort(t, 1, "batch_fair_share", "{\"shareDecaySeconds\": 3600}"), 0);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "b1"), 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "a1"), 200, 1e-9);
	CU_ASSERT_EQUAL_FATAL(run_under_cohort(t, 1, "batch_fair_share", NULL), 0);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "a1"), 100, 1e-9);
	/* computeReservation cannot act inside a quota policy: refused. */
	CU_ASSERT_NOT_EQUAL(run_under_cohort(t, 1, "batch_fair_share", "{\"computeReservation\": 50}"), 0);
	sim_trace_destroy(t);
}

/* HyperPod: on 1 GPU `run` holds it 0..100; lo (priority 0, at 1) and hi (priority 5, at 2)
 * wait. Classes training (weight 50, priority >= 0) and inference (100, >= 5): hi first.
 * Without classes, first come first served: lo first. */
#define HP_CLASSES "\"priority_classes\": [{\"name\": \"training\", \"weight\": 50, \"min_priority\": 0}," \
		   " {\"name\": \"inference\", \"weight\": 100, \"min_priority\": 5}]"
static struct sim_trace *lo_then_hi(void)
{
	struct sim_trace *t = sim_trace_create();
	add_user_job(t, "run", 0, 100, 1, "A", 0);
	add_user_job(t, "lo", 1, 100, 1, "A", 0);
	add_user_job(t, "hi", 2, 100, 1, "A", 5);
	tu_trace_finish(t);
	return t;
}

static void test_fairshare_hyperpod_priority_classes(void)
{
	struct sim_trace *t = lo_then_hi();
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 1, 1, "hyperpod", "{" HP_CLASSES "}", SIM_PLACE_BEST_FIT), 0);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "hi"), 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "lo"), 200, 1e-9);
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 1, 1, "hyperpod", NULL, SIM_PLACE_BEST_FIT), 0);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "lo"), 100, 1e-9);
	/* Under cohort, inside the queue: the same class order. */
	CU_ASSERT_EQUAL_FATAL(run_under_cohort(t, 1, "hyperpod", "{" HP_CLASSES "}"), 0);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "hi"), 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "lo"), 200, 1e-9);
	CU_ASSERT_EQUAL_FATAL(run_under_quota(t, 1, "hard", "hyperpod", "{" HP_CLASSES "}"), 0);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "hi"), 100, 1e-9);
	CU_ASSERT_EQUAL_FATAL(run_under_quota(t, 1, "hard", "hyperpod", NULL), 0);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "lo"), 100, 1e-9);
	sim_trace_destroy(t);
}

/* Fair share of idle compute: teams A (weight 1) and B (weight 3), 20 one-GPU jobs each at 0
 * on 8 GPUs. GPUs over weight: A B B B A B B B (ties to A's earlier rows): 2 and 6.
 * fair_share false: first come first served, A's 8 earlier rows. */
static void test_fairshare_hyperpod_fair_share_weights(void)
{
	struct sim_trace *t = two_shares(20, 1, 20, 1);
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 1, 8, "hyperpod", "{\"fair_share_weights\": {\"A\": 1, \"B\": 3}}",
					  SIM_PLACE_BEST_FIT), 0);
	CU_ASSERT_EQUAL(started_at(t, "a", 0), 2);
	CU_ASSERT_EQUAL(started_at(t, "b", 0), 6);
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 1, 8, "hyperpod", "{\"fair_share\": false}", SIM_PLACE_BEST_FIT), 0);
	CU_ASSERT_EQUAL(started_at(t, "a", 0), 8);
	CU_ASSERT_EQUAL(started_at(t, "b", 0), 0);
	CU_ASSERT_NOT_EQUAL(tu_simulate(t, 1, 8, "hyperpod", "{\"fair_share_weights\": {\"A\": 101}}",
					SIM_PLACE_BEST_FIT), 0);
	sim_trace_destroy(t);
}

static CU_TestInfo fairshare_tests[] = {
	{ "test_fairshare_decay_one_half_life_halves", test_fairshare_decay_one_half_life_halves },
	{ "test_fairshare_decay_running_integrates_exactly", test_fairshare_decay_running_integrates_exactly },
	{ "test_fairshare_slurm_factor_hand_computed", test_fairshare_slurm_factor_hand_computed },
	{ "test_fairshare_slurm_age_and_size_factors", test_fairshare_slurm_age_and_size_factors },
	{ "test_fairshare_batch_reservation_doc_examples", test_fairshare_batch_reservation_doc_examples },
	{ "test_fairshare_batch_weight_doc_example", test_fairshare_batch_weight_doc_example },
	{ "test_fairshare_batch_decay_halves_after_d_ln2", test_fairshare_batch_decay_halves_after_d_ln2 },
	{ "test_fairshare_hyperpod_team_score", test_fairshare_hyperpod_team_score },
	{ "test_fairshare_batch_two_a_per_b", test_fairshare_batch_two_a_per_b },
	{ "test_fairshare_batch_weight_eight_times", test_fairshare_batch_weight_eight_times },
	{ "test_fairshare_batch_compute_reservation_example", test_fairshare_batch_compute_reservation_example },
	{ "test_fairshare_batch_decay_flips_order", test_fairshare_batch_decay_flips_order },
	{ "test_fairshare_batch_scheduling_priority", test_fairshare_batch_scheduling_priority },
	{ "test_fairshare_params_located", test_fairshare_params_located },
	{ "test_fairshare_multifactor_order_flips_at_calc", test_fairshare_multifactor_order_flips_at_calc },
	{ "test_fairshare_multifactor_job_size", test_fairshare_multifactor_job_size },
	{ "test_fairshare_multifactor_under_cohort", test_fairshare_multifactor_under_cohort },
	{ "test_fairshare_batch_under_cohort", test_fairshare_batch_under_cohort },
	{ "test_fairshare_hyperpod_priority_classes", test_fairshare_hyperpod_priority_classes },
	{ "test_fairshare_hyperpod_fair_share_weights", test_fairshare_hyperpod_fair_share_weights },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo fairshare_suite = { "fairshare", init_fairshare, clean_fairshare, NULL, NULL, fairshare_tests };
