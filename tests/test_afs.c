/* tests/test_afs.c: Kueue's admission fair sharing as the order policy
 * `admission_fair_sharing` (policies/afs.c), alone and inside the cohort quota
 * cycle. Each case is a whole run of a tiny hand-checked trace; times in seconds.
 * LocalQueues are (queue, user) pairs; the cluster has 8-GPU nodes. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../policies/policy.h"
#include "testutil.h"

static int init_afs(void) { return 0; }
static int clean_afs(void) { return 0; }

/* One queue cq1 holding 8 GPUs of flavor f (2 nodes: the quota, not the nodes,
 * is the limit), AFS with the given params. */
#define CQ_CONFIG(afs_params)                                                                                 \
	"{'name': 'afs', 'trace': {'path': 'TRACE'},"                                                        \
	" 'cluster': {'flavors': [{'name': 'f', 'nodes': 2, 'node': {'gpu': 8}}]},"                         \
	" 'policies': {'order': {'name': 'admission_fair_sharing', " afs_params "},"                       \
	"   'quota': {'name': 'cohort', 'queues': [{'name': 'cq1', 'quota': {'f': {'gpu': {'nominal': 8}}}}]}},"   \
	" 'output': 'x.h5'}"

#define FAST "'usage_half_life_s': 10, 'usage_sampling_interval_s': 1"

static double start_s(const struct tu_crun *r, const char *id)
{
	return sim_time_to_s(tu_crun_job(r, id)->start_ns);
}

/* The score (key[0]) the policy gives a job of that id now, at the run's end. */
static double score_of(struct tu_crun *r, const char *id)
{
	struct sim_order_key k;
	struct sim_policy *p = &r->pol[SIM_FAM_ORDER];
	p->ops->order_key(p, sim_engine_view(r->e), tu_crun_job(r, id), &k);
	return k.k[0];
}

/* Modelled on Kueue's "admits one workload from each localqueue when quota is
 * limited": lq-a (user a) and lq-b (user b) have equal usage (none here), cq1 holds
 * 8 GPUs, four 4-GPU jobs arrive at 0 in the order a1, a2, b1, b2. a1 goes first
 * (equal scores, earlier); its reservation adds the entry penalty
 * 4 x (1 - 0.5^(1/10)) = 0.268 to lq-a, so b1 (lq-b, 0) overtakes a2 for the
 * other 4 GPUs. Without the penalty a2 would start at 0. a2 and b2 start at 100,
 * when a1 and b1 end. */
static void test_afs_entry_penalty_one_from_each_queue(void)
{
	struct tu_crun r;
	tu_crun(&r, CQ_CONFIG(FAST),
		"id,submit_s,duration_s,queue,user,request\n"
		"a1,0,100,cq1,a,f:gpu=4\n"
		"a2,0,100,cq1,a,f:gpu=4\n"
		"b1,0,100,cq1,b,f:gpu=4\n"
		"b2,0,100,cq1,b,f:gpu=4\n");
	CU_ASSERT_DOUBLE_EQUAL(start_s(&r, "a1"), 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(start_s(&r, "b1"), 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(start_s(&r, "a2"), 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(start_s(&r, "b2"), 100, 1e-9);
	tu_crun_free(&r);
	/* The same under priority: a2 starts with a1 (submit order inside the queue). */
	tu_crun(&r,
		"{'name': 'afs', 'trace': {'path': 'TRACE'},"
		" 'cluster': {'flavors': [{'name': 'f', 'nodes': 2, 'node': {'gpu': 8}}]},"
		" 'policies': {'order': 'priority', 'quota': {'name': 'cohort', 'queues': [{'name': 'cq1',"
		"   'quota': {'f': {'gpu': {'nominal': 8}}}}]}}, 'output': 'x.h5'}",
		"id,submit_s,duration_s,queue,user,request\n"
		"a1,0,100,cq1,a,f:gpu=4\n"
		"a2,0,100,cq1,a,f:gpu=4\n"
		"b1,0,100,cq1,b,f:gpu=4\n"
		"b2,0,100,cq1,b,f:gpu=4\n");
	CU_ASSERT_DOUBLE_EQUAL(start_s(&r, "a2"), 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(start_s(&r, "b1"), 100, 1e-9);
	tu_crun_free(&r);
}

/* Modelled on Kueue's "admits workload from less active localqueue": lq-a has
 * used 8 GPUs for the 1000 s before (h), lq-b nothing. At 1000 a1 (lq-a) and b1
 * (lq-b) arrive, 8 GPUs each, a1 first in the trace: b1 starts at 1000, a1 when b1
 * ends at 1100. */
static void test_afs_less_active_queue_first(void)
{
	struct tu_crun r;
	tu_crun(&r, CQ_CONFIG(FAST),
		"id,submit_s,duration_s,queue,user,request\n"
		"h,0,1000,cq1,a,f:gpu=8\n"
		"a1,1000,100,cq1,a,f:gpu=8\n"
		"b1,1000,100,cq1,b,f:gpu=8\n");
	CU_ASSERT_DOUBLE_EQUAL(start_s(&r, "b1"), 1000, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(start_s(&r, "a1"), 1100, 1e-9);
	tu_crun_free(&r);
}

/* A LocalQueue of weight 0 sorts last even with no usage (Kueue's "does not
 * prioritize a zero-weight localqueue"): z1 (lq-zero) arrives first, a1 at the
 * same time; a1 starts at 0, z1 at 100. */
static void test_afs_zero_weight_last(void)
{
	struct tu_crun r;
	tu_crun(&r, CQ_CONFIG(FAST ", 'local_queues': [{'queue': 'cq1', 'user': 'zero', 'weight': 0}]"),
		"id,submit_s,duration_s,queue,user,request\n"
		"z1,0,100,cq1,zero,f:gpu=8\n"
		"a1,0,100,cq1,a,f:gpu=8\n");
	CU_ASSERT_DOUBLE_EQUAL(start_s(&r, "a1"), 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(start_s(&r, "z1"), 100, 1e-9);
	CU_ASSERT(isinf(score_of(&r, "z1")));
	tu_crun_free(&r);
}

/* Decay: with the sampling interval equal to the half-life (10 s), a(10) = 1/2, so
 * each sample of an idle LocalQueue halves its usage, exactly. h (lq-a, 8 GPUs)
 * runs [0, 100); a probe p (lq-b) at 130 keeps the run going to 131. The samples at
 * 100, 110, 120 and 130 see lq-a idle: 130's score is 100's divided by 2^3. And at
 * 100 (a first run that ends there) the score is the closed form of the samples
 * 10..90 with h running, C_k = 8 + (C_0 - 8)/2^k from the entry penalty
 * C_0 = 8 x a(10) = 4, then halved once: (8 - 4/2^9)/2. */
static void test_afs_decay_halves_per_half_life(void)
{
	const char *cfg = CQ_CONFIG("'usage_half_life_s': 10, 'usage_sampling_interval_s': 10");
	struct tu_crun r;
	tu_crun(&r, cfg,
		"id,submit_s,duration_s,queue,user,request\n"
		"h,0,100,cq1,a,f:gpu=8\n");
	double at100 = score_of(&r, "h");
	CU_ASSERT_DOUBLE_EQUAL(at100, (8.0 - 4.0 / 512.0) / 2.0, 1e-12);
	tu_crun_free(&r);
	tu_crun(&r, cfg,
		"id,submit_s,duration_s,queue,user,request\n"
		"h,0,100,cq1,a,f:gpu=8\n"
		"p,130,1,cq1,b,f:gpu=1\n");
	CU_ASSERT_EQUAL(score_of(&r, "h"), at100 / 8.0);
	tu_crun_free(&r);
}

/* The LocalQueue weight divides the score: lq-a of weight 2 with the same usage as
 * lq-b of weight 1 ranks first. Both ran 8 GPUs for 1000 s before (ha, hb on two
 * nodes of quota 16); at 1000, b1 then a1 arrive for 16 GPUs each: a1 starts first. */
#define WEIGHT_CONFIG                                                                                         \
	"{'name': 'afs', 'trace': {'path': 'TRACE'},"                                                        \
	" 'cluster': {'flavors': [{'name': 'f', 'nodes': 2, 'node': {'gpu': 8}}]},"                         \
	" 'policies': {'order': {'name': 'admission_fair_sharing', " FAST ","                                \
	"   'local_queues': [{'queue': 'cq1', 'user': 'a', 'weight': 2}]},"                                  \
	"   'quota': {'name': 'cohort', 'queues': [{'name': 'cq1', 'quota': {'f': {'gpu': {'nominal': 16}}}}]}}," \
	" 'output': 'x.h5'}"

static void test_afs_weight_divides_usage(void)
{
	struct tu_crun r;
	tu_crun(&r, WEIGHT_CONFIG,
		"id,submit_s,duration_s,queue,user,request\n"
		"ha,0,1000,cq1,a,f:gpu=8\n"
		"hb,0,1000,cq1,b,f:gpu=8\n");
	CU_ASSERT(score_of(&r, "hb") > 7); /* about 8 GPUs of usage, decayed once */
	CU_ASSERT_EQUAL(score_of(&r, "ha") * 2, score_of(&r, "hb")); /* same history, weight 2 */
	tu_crun_free(&r);
	tu_crun(&r, WEIGHT_CONFIG,
		"id,submit_s,duration_s,queue,user,request\n"
		"ha,0,1000,cq1,a,f:gpu=8\n"
		"hb,0,1000,cq1,b,f:gpu=8\n"
		"b1,1000,100,cq1,b,f:gpu=16\n"
		"a1,1000,100,cq1,a,f:gpu=16\n");
	CU_ASSERT_DOUBLE_EQUAL(start_s(&r, "a1"), 1000, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(start_s(&r, "b1"), 1100, 1e-9);
	tu_crun_free(&r);
}

/* Alone (no quota policy) the same order holds on free capacity: the entry
 * penalty case on one 8-GPU node. */
static void test_afs_alone(void)
{
	struct tu_crun r;
	tu_crun(&r,
		"{'name': 'afs', 'trace': {'path': 'TRACE'},"
		" 'cluster': {'flavors': [{'name': 'f', 'nodes': 1, 'node': {'gpu': 8}}]},"
		" 'policies': {'order': {'name': 'admission_fair_sharing', " FAST "}}, 'output': 'x.h5'}",
		"id,submit_s,duration_s,queue,user,request\n"
		"a1,0,100,cq1,a,f:gpu=4\n"
		"a2,0,100,cq1,a,f:gpu=4\n"
		"b1,0,100,cq1,b,f:gpu=4\n"
		"b2,0,100,cq1,b,f:gpu=4\n");
	CU_ASSERT_DOUBLE_EQUAL(start_s(&r, "a1"), 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(start_s(&r, "b1"), 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(start_s(&r, "a2"), 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(start_s(&r, "b2"), 100, 1e-9);
	tu_crun_free(&r);
}

/* Bad params are located. */
static void test_afs_bad_params(void)
{
	const char *tr = tu_write_file("afs_bad.csv", "id,submit_s,duration_s,queue,user\nj,0,1,cq1,a\n");
	static const char *const cases[][2] = {
		{ "'local_queues': [{'queue': 'nope', 'weight': 1}]", "$.policies.order.local_queues[0]: expected" },
		{ "'resource_weights': {'tpu': 1}", "$.policies.order.resource_weights.tpu: expected a number >= 0" },
		{ "'usage_half_life_s': -1", "$.policies.order.usage_half_life_s: expected a number in [0," },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char cfg[1024], *out = NULL, args[700];
		snprintf(cfg, sizeof cfg,
			 "{\"name\": \"c\", \"trace\": {\"path\": \"%s\"}, \"cluster\": {\"flavors\": [{\"name\": \"a\", "
			 "\"nodes\": 1, \"node\": {\"gpu\": 8}}]}, \"policies\": {\"order\": {\"name\": "
			 "\"admission_fair_sharing\", %s}}, \"output\": \"%s/afs%zu.h5\"}",
			 tr, cases[i][0], tu_tmpdir(), i);
		for (char *p = cfg; *p; p++)
			if (*p == '\'')
				*p = '"';
		snprintf(args, sizeof args, "run %s", tu_write_file("afs_bad.json", cfg));
		CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
		if (!strstr(out, cases[i][1]))
			fprintf(stderr, "case %zu: no [%s] in [%s]\n", i, cases[i][1], out);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, cases[i][1]));
		free(out);
	}
}

static CU_TestInfo afs_tests[] = {
	{ "entry_penalty_one_from_each_queue", test_afs_entry_penalty_one_from_each_queue },
	{ "less_active_queue_first", test_afs_less_active_queue_first },
	{ "zero_weight_last", test_afs_zero_weight_last },
	{ "decay_halves_per_half_life", test_afs_decay_halves_per_half_life },
	{ "weight_divides_usage", test_afs_weight_divides_usage },
	{ "alone", test_afs_alone },
	{ "bad_params", test_afs_bad_params },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo afs_suite = { "afs", init_afs, clean_afs, NULL, NULL, afs_tests };
