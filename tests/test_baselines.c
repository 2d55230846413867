/* tests/test_baselines.c: the research baselines sjf, srtf and las (docs/baselines.md).
 *
 * Hand-computed scenarios (each timeline is worked out in the comment above its
 * test), and las/srtf against figures measured with Tiresias' own simulator on
 * Philly VC b436b2 (the reference runs are described at ref_b436b2 below). */
#include <CUnit/CUnit.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../policies/policy.h"
#include "../policies/las.h"
#include "../policies/srtf.h"
#include "../traces/native.h"
#include "testutil.h"

static int init_baselines(void) { return 0; }
static int clean_baselines(void) { return 0; }

static const struct sim_job *job_of(const struct sim_trace *t, const char *id)
{
	for (size_t i = 0; i < t->n_jobs; i++)
		if (strcmp(sim_job_id(t, &t->jobs[i]), id) == 0)
			return &t->jobs[i];
	return NULL;
}

static double end_s(const struct sim_trace *t, const char *id)
{
	const struct sim_job *j = job_of(t, id);
	return j && j->state == SIM_JOB_COMPLETED ? sim_time_to_s(j->end_ns) : NAN;
}

static uint32_t preempted(const struct sim_trace *t, const char *id)
{
	const struct sim_job *j = job_of(t, id);
	return j ? j->preemptions : UINT32_MAX;
}

/* Every job saves its work every second (no overhead, no restore): a preempted
 * job resumes where it stopped, as Tiresias assumes. */
static void checkpoint_every_second(struct sim_trace *t)
{
	for (size_t i = 0; i < t->n_jobs; i++)
		t->jobs[i].checkpoint_ns = SIM_NS_PER_S;
}

/* sjf, 1 node x 2 GPUs. A(0 s, 100 s, 1 GPU) runs 0-100. B(10 s, 20 s, 2 GPUs) is the
 * shortest but cannot start while A runs. C(20 s, 50 s, 1 GPU).
 * Not strict: C is tried after B and fits: C 20-70; B starts when A ends: 100-120.
 * strict: B blocks C: B 100-120, then C 120-170. */
static struct sim_trace *sjf_trace(void)
{
	struct sim_trace *t = sim_trace_create();
	tu_trace_add(t, "A", 0, 100, 1 * SIM_MILLI, "f", 0);
	tu_trace_add(t, "B", 10, 20, 2 * SIM_MILLI, "f", 0);
	tu_trace_add(t, "C", 20, 50, 1 * SIM_MILLI, "f", 0);
	tu_trace_finish(t);
	return t;
}

static void test_sjf_passes_over_by_default(void)
{
	struct sim_trace *t = sjf_trace();
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 1, 2, "sjf", NULL, SIM_PLACE_BEST_FIT), 0);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "C"), 20, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(end_s(t, "C"), 70, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "B"), 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(end_s(t, "B"), 120, 1e-9);
	sim_trace_destroy(t);
}

static void test_sjf_strict_blocks(void)
{
	struct sim_trace *t = sjf_trace();
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 1, 2, "sjf", "{\"strict\": true}", SIM_PLACE_BEST_FIT), 0);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "B"), 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "C"), 120, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(end_s(t, "C"), 170, 1e-9);
	sim_trace_destroy(t);
}

/* sjf ranks by true length, ties by submit: 1 GPU. A(0, 100) runs 0-100; then D(5 s,
 * 10 s), B(1 s, 30 s) and C(2 s, 30 s) wait: D 100-110, B 110-140 (B before C: same
 * length, submitted first), C 140-170. fifo would run B, C, D. */
static void test_sjf_order_by_length(void)
{
	struct sim_trace *t = sim_trace_create();
	tu_trace_add(t, "A", 0, 100, SIM_MILLI, "f", 0);
	tu_trace_add(t, "B", 1, 30, SIM_MILLI, "f", 0);
	tu_trace_add(t, "C", 2, 30, SIM_MILLI, "f", 0);
	tu_trace_add(t, "D", 5, 10, SIM_MILLI, "f", 0);
	tu_trace_finish(t);
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 1, 1, "sjf", NULL, SIM_PLACE_BEST_FIT), 0);
	CU_ASSERT_DOUBLE_EQUAL(end_s(t, "D"), 110, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(end_s(t, "B"), 140, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(end_s(t, "C"), 170, 1e-9);
	sim_trace_destroy(t);
}

/* srtf, 1 GPU, checkpoints every second. A(0 s, 100 s) starts at 0. B(10 s, 20 s): A has
 * 90 s left > 20, so B preempts A: B 10-... C(20 s, 5 s): B has 10 s left > 5, C
 * preempts B: C 20-25. Then B (10 s left) 25-35, A (90 s left) 35-125.
 * Without checkpoints a victim loses its segment and starts again from its whole
 * length: B (20 s) 25-45, then A (100 s) 45-145. */
static void test_srtf_preempts_longer(void)
{
	for (int ckpt = 1; ckpt >= 0; ckpt--) {
		struct sim_trace *t = sim_trace_create();
		tu_trace_add(t, "A", 0, 100, SIM_MILLI, "f", 0);
		tu_trace_add(t, "B", 10, 20, SIM_MILLI, "f", 0);
		tu_trace_add(t, "C", 20, 5, SIM_MILLI, "f", 0);
		tu_trace_finish(t);
		if (ckpt)
			checkpoint_every_second(t);
		CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 1, 1, "srtf", NULL, SIM_PLACE_BEST_FIT), 0);
		CU_ASSERT_DOUBLE_EQUAL(end_s(t, "C"), 25, 1e-9);
		CU_ASSERT_DOUBLE_EQUAL(end_s(t, "B"), ckpt ? 35 : 45, 1e-9);
		CU_ASSERT_DOUBLE_EQUAL(end_s(t, "A"), ckpt ? 125 : 145, 1e-9);
		CU_ASSERT_EQUAL(preempted(t, "A"), 1);
		CU_ASSERT_EQUAL(preempted(t, "B"), 1);
		CU_ASSERT_EQUAL(preempted(t, "C"), 0);
		sim_trace_destroy(t);
	}
}

/* A random trace for the srtf differential below: n jobs arriving faster than 4
 * nodes x 8 GPUs can serve, of 1, 2, 3, 4, 8 or 16 GPUs (16: whole nodes), 1 to
 * 2,000 s; about one in eight not preemptible, one in four saving its work every
 * 30 s. */
static struct sim_trace *random_srtf_trace(unsigned long seed, size_t n, int all_preemptible)
{
	static const sim_qty_t gpus[] = { 1, 1, 1, 2, 2, 3, 4, 8, 16 };
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(g, seed);
	struct sim_trace *t = sim_trace_create();
	double at = 0;
	for (size_t i = 0; i < n; i++) {
		char id[24];
		snprintf(id, sizeof id, "j%zu", i);
		at += (double)gsl_rng_uniform_int(g, 20);
		tu_trace_add(t, id, at, 1 + (double)gsl_rng_uniform_int(g, 2000),
			     gpus[gsl_rng_uniform_int(g, sizeof gpus / sizeof gpus[0])] * SIM_MILLI, "f", 0);
	}
	tu_trace_finish(t);
	for (size_t i = 0; i < t->n_jobs; i++) {
		unsigned long r = gsl_rng_uniform_int(g, 8);
		t->jobs[i].preemptible = all_preemptible || r != 0;
		if (r >= 6)
			t->jobs[i].checkpoint_ns = 30 * SIM_NS_PER_S;
	}
	gsl_rng_free(g);
	return t;
}

/* srtf's pass skips the running jobs' sums where they decide nothing and falls
 * back to the exact walk where they may (policies/srtf.c): on random traces both
 * give the same event log, byte for byte, with preemptions, fragments (4 nodes),
 * jobs that may not be preempted and checkpoints all in play. */
static void test_srtf_fast_pass_equals_exact_walk(void)
{
	uint64_t preemptions = 0;
	for (unsigned long seed = 1; seed <= 20; seed++) {
		char *text[2] = { NULL, NULL };
		size_t len[2] = { 0, 0 };
		for (int exact = 0; exact < 2; exact++) {
			struct sim_trace *t = random_srtf_trace(seed, 500, 0);
			FILE *log = open_memstream(&text[exact], &len[exact]);
			CU_ASSERT_PTR_NOT_NULL_FATAL(log);
			srtf_test_exact = exact;
			int rc = tu_simulate_logged(t, 4, 8, "srtf", NULL, SIM_PLACE_BEST_FIT, log);
			srtf_test_exact = 0;
			fclose(log);
			CU_ASSERT_EQUAL(rc, 0);
			for (size_t i = 0; i < t->n_jobs && exact; i++)
				preemptions += t->jobs[i].preemptions;
			sim_trace_destroy(t);
		}
		CU_ASSERT(len[0] > 0);
		CU_ASSERT_EQUAL(len[0], len[1]);
		CU_ASSERT(len[0] == len[1] && memcmp(text[0], text[1], len[0]) == 0);
		free(text[0]);
		free(text[1]);
	}
	CU_ASSERT(preemptions > 500); /* the victims' path ran */
	/* Every pass both ways: the same victims and starts, in the same order (a wrong
	 * start that the engine refuses would not show in the log). */
	srtf_test_mismatches = 0;
	srtf_test_exact = 2;
	for (unsigned long seed = 1; seed <= 20; seed++) {
		struct sim_trace *t = random_srtf_trace(seed, 500, 0);
		CU_ASSERT_EQUAL(tu_simulate(t, 4, 8, "srtf", NULL, SIM_PLACE_BEST_FIT), 0);
		sim_trace_destroy(t);
	}
	srtf_test_exact = 0;
	CU_ASSERT_EQUAL(srtf_test_mismatches, 0);
}

/* las's crossing shortcuts (policies/las.c: groups skipped by their heap top or by
 * a bound on their wake-up) against the plain loops, on the random traces of the
 * srtf test (all preemptible) with small thresholds so that jobs cross often, with
 * Tiresias' wake-ups and exact ones: the same event log byte for byte. (Not with
 * promotion: there most of these jobs, which keep no checkpoint, would lose their
 * work at every preemption and never end; las_promotion_ends_with_checkpoints.) */
/* The run docs/baselines.md explains: on a random trace of the test above, las with
 * thresholds [300, 2000] and promote_knob 2 on one node of 32 GPUs. Its jobs without
 * checkpoints lose all their work at each preemption (300 GPU-s and more, each time
 * they are demoted and a promoted job takes their GPUs), so the long ones never end.
 * With every job checkpointing each second the same run ends, every job completed,
 * after thousands of preemptions: the loop was the model's lost work, not the
 * policy's promotion. */
static void test_las_promotion_ends_with_checkpoints(void)
{
	struct sim_trace *t = random_srtf_trace(1, 400, 1);
	for (size_t i = 0; i < t->n_jobs; i++)
		t->jobs[i].checkpoint_ns = SIM_NS_PER_S;
	CU_ASSERT_EQUAL(tu_simulate(t, 1, 32, "las", "{\"thresholds_gpu_s\": [300, 2000], \"promote_knob\": 2}",
				    SIM_PLACE_BEST_FIT), 0);
	uint64_t preemptions = 0;
	size_t completed = 0;
	for (size_t i = 0; i < t->n_jobs; i++) {
		preemptions += t->jobs[i].preemptions;
		completed += t->jobs[i].state == SIM_JOB_COMPLETED;
	}
	CU_ASSERT_EQUAL(completed, t->n_jobs);
	CU_ASSERT(preemptions > 1000);
	sim_trace_destroy(t);
}

static void test_las_shortcuts_equal_plain_loops(void)
{
	static const char *const params[] = {
		"{\"thresholds_gpu_s\": [300, 2000, 9000]}",
		"{\"thresholds_gpu_s\": [500, 4000], \"demotion\": \"exact\"}",
	};
	uint64_t preemptions = 0;
	for (unsigned long seed = 1; seed <= 12; seed++) {
		char *text[2] = { NULL, NULL };
		size_t len[2] = { 0, 0 };
		for (int plain = 0; plain < 2; plain++) {
			struct sim_trace *t = random_srtf_trace(seed, 400, 1);
			FILE *log = open_memstream(&text[plain], &len[plain]);
			CU_ASSERT_PTR_NOT_NULL_FATAL(log);
			las_test_plain = plain;
			int rc = tu_simulate_logged(t, 4, 8, "las", params[seed % 2], SIM_PLACE_BEST_FIT, log);
			las_test_plain = 0;
			fclose(log);
			CU_ASSERT_EQUAL(rc, 0);
			for (size_t i = 0; i < t->n_jobs && plain; i++)
				preemptions += t->jobs[i].preemptions;
			sim_trace_destroy(t);
		}
		CU_ASSERT(len[0] > 0);
		CU_ASSERT(len[0] == len[1] && memcmp(text[0], text[1], len[0]) == 0);
		free(text[0]);
		free(text[1]);
	}
	CU_ASSERT(preemptions > 100); /* demotions let queue-0 jobs preempt */
}

/* las, 1 node x 2 GPUs, thresholds [100] GPU-s (2 queues), checkpoints every second.
 * A(0 s, 300 s, 2 GPUs) runs from 0; at 50 s it has 2 x 50 = 100 GPU-s and moves to
 * queue 1 (Tiresias' wake-up: floor((100 - 0) / 2) = 50 s). B(60 s, 100 s, 1 GPU)
 * enters queue 0: queue 0 is served first, B takes 1 GPU, A no longer fits the 1 GPU
 * left and is preempted at 60. C(70 s, 30 s, 1 GPU) fits the free GPU: 70-100. A
 * needs both GPUs: it resumes when B ends at 160, with 300 - 60 = 240 s left: ends
 * at 400. JCTs 400, 100, 30; one preemption. */
static void test_las_queue0_preempts_queue1(void)
{
	struct sim_trace *t = sim_trace_create();
	tu_trace_add(t, "A", 0, 300, 2 * SIM_MILLI, "f", 0);
	tu_trace_add(t, "B", 60, 100, SIM_MILLI, "f", 0);
	tu_trace_add(t, "C", 70, 30, SIM_MILLI, "f", 0);
	tu_trace_finish(t);
	checkpoint_every_second(t);
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 1, 2, "las", "{\"thresholds_gpu_s\": [100]}", SIM_PLACE_BEST_FIT), 0);
	CU_ASSERT_DOUBLE_EQUAL(tu_start_s(t, "B"), 60, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(end_s(t, "C"), 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(end_s(t, "B"), 160, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(end_s(t, "A"), 400, 1e-9);
	CU_ASSERT_EQUAL(preempted(t, "A"), 1);
	CU_ASSERT_EQUAL(preempted(t, "B") + preempted(t, "C"), 0);
	sim_trace_destroy(t);
}

/* When a crossing is noticed. 1 node x 13 GPUs, thresholds [100]; X(0 s, 5 GPUs) and
 * A(0 s, 8 GPUs), long, both start at 0; B(30 s, 10 s, 5 GPUs).
 * exact: A crosses 100 GPU-s at 12.5 s, X at 20 s: queue 1 = [A, X]. At 30 B (queue
 * 0) takes 5 GPUs, A fits the 8 left, X does not: X is preempted.
 * tiresias: the wake-ups are floor((100 - run_s) / gpus) after each event: at 0,
 * min(20, 12) = 12; at 12 nothing crossed (A 96, X 60 GPU-s), next min(12 + 17,
 * 12 + 11) = 23; at 23 both have crossed and move in submit order: queue 1 = [X, A].
 * At 30: B 5, X 5, A does not fit the 3 left: A is preempted. */
static void test_las_demotion_modes(void)
{
	for (int exact = 0; exact <= 1; exact++) {
		struct sim_trace *t = sim_trace_create();
		tu_trace_add(t, "X", 0, 1000, 5 * SIM_MILLI, "f", 0);
		tu_trace_add(t, "A", 0, 1000, 8 * SIM_MILLI, "f", 0);
		tu_trace_add(t, "B", 30, 10, 5 * SIM_MILLI, "f", 0);
		tu_trace_finish(t);
		checkpoint_every_second(t);
		const char *p = exact ? "{\"thresholds_gpu_s\": [100], \"demotion\": \"exact\"}"
				      : "{\"thresholds_gpu_s\": [100]}";
		CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 1, 13, "las", p, SIM_PLACE_BEST_FIT), 0);
		CU_ASSERT_EQUAL(preempted(t, "X"), exact ? 1 : 0);
		CU_ASSERT_EQUAL(preempted(t, "A"), exact ? 0 : 1);
		CU_ASSERT_DOUBLE_EQUAL(end_s(t, "B"), 40, 1e-9);
		sim_trace_destroy(t);
	}
}

/* Starvation promotion, 1 GPU, thresholds [10], checkpoints every second.
 * A(0 s, 30 s) moves to queue 1 at 10. C1..C4 (11 s, 8 s each) enter queue 0 and
 * preempt A at 11 (A ran 11 s); they run 11-19, 19-27, 27-35, 35-43. F(30 s, 8 s).
 * promote_knob 0: A waits in queue 1: F 43-51, A 51-70 (19 s left); A preempted once.
 * promote_knob 1: A has waited 11 s (= 1 x its 11 s run) at 22: back to the end of
 * queue 0 with its attained service reset, ahead of F: A 43-53, where it crosses
 * 10 GPU-s again and drops to queue 1; F preempts it: F 53-61, A 61-70 (9 s left).
 * A preempted twice, F ends at 61 instead of 51. */
static void test_las_promotion(void)
{
	for (int knob = 0; knob <= 1; knob++) {
		struct sim_trace *t = sim_trace_create();
		tu_trace_add(t, "A", 0, 30, SIM_MILLI, "f", 0);
		tu_trace_add(t, "C1", 11, 8, SIM_MILLI, "f", 0);
		tu_trace_add(t, "C2", 11, 8, SIM_MILLI, "f", 0);
		tu_trace_add(t, "C3", 11, 8, SIM_MILLI, "f", 0);
		tu_trace_add(t, "C4", 11, 8, SIM_MILLI, "f", 0);
		tu_trace_add(t, "F", 30, 8, SIM_MILLI, "f", 0);
		tu_trace_finish(t);
		checkpoint_every_second(t);
		const char *p = knob ? "{\"thresholds_gpu_s\": [10], \"promote_knob\": 1}"
				     : "{\"thresholds_gpu_s\": [10]}";
		CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 1, 1, "las", p, SIM_PLACE_BEST_FIT), 0);
		CU_ASSERT_DOUBLE_EQUAL(end_s(t, "C4"), 43, 1e-9);
		CU_ASSERT_DOUBLE_EQUAL(end_s(t, "F"), knob ? 61 : 51, 1e-9);
		CU_ASSERT_DOUBLE_EQUAL(end_s(t, "A"), 70, 1e-9);
		CU_ASSERT_EQUAL(preempted(t, "A"), knob ? 2 : 1);
		sim_trace_destroy(t);
	}
}

/* Params are checked, with the JSON path in the message. */
static void test_las_params_refused(void)
{
	static const char *const bad[][2] = {
		{ "{\"thresholds_gpu_s\": [100, 50]}", "$.policies.order.thresholds_gpu_s[1]" },
		{ "{\"thresholds_gpu_s\": 100}", "$.policies.order.thresholds_gpu_s" },
		{ "{\"demotion\": \"soon\"}", "$.policies.order.demotion" },
		{ "{\"promote_knob\": -1}", "$.policies.order.promote_knob" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cJSON *params = cJSON_Parse(bad[i][0]);
		struct sim_diag d;
		sim_diag_init(&d, 20);
		struct sim_policy pol;
		struct sim_policy_env env = { .view = NULL, .file = "exp.json", .json_path = "$.policies.order" };
		CU_ASSERT_NOT_EQUAL(sim_policy_create(&pol, &las_policy_ops, &env, params, &d), 0);
		CU_ASSERT(sim_diag_contains(&d, bad[i][1]));
		sim_diag_fini(&d);
		cJSON_Delete(params);
	}
}

/* ---- Tiresias' simulator on the same jobs ----
 *
 * ref_b436b2: experiments/baselines/philly-b436b2.csv (VC b436b2 of traces/data/philly.csv,
 * 7,423 jobs) converted to Tiresias' CSV (job_id = row, num_gpu, submit_time = submit_s,
 * duration = duration_s) and run by Tiresias' simulator (SymbioticLab/Tiresias,
 * simulator/, commit 959f9b0, python 2.7; only its unused numpy import replaced) with
 *   python2 run_sim.py --cluster_spec=n16g8.csv --scheme=count --trace_file=b436b2.csv
 *          --schedule=SCHED --log_path=out
 * (16 nodes x 8 GPUs, placement "count": GPUs counted as one pool of 128, which is our
 * one node of 128 GPUs; jobs.py's default queues: 3, limits 3,250 and 7,200 GPU-s).
 * Sum of the JCT column of out/job.csv and of its preempt column:
 *   dlas-gpu: 108,182,277 s (mean 14,573.929274 s), 256 preemptions
 *   shortest: 106,728,000 s (mean 14,378.014280 s), 2,904 preemptions
 *   fifo:     188,141,231 s (mean 25,345.713458 s), 0
 * and on the first 400 of those jobs with --cluster_spec of 1 node x 32 GPUs:
 *   dlas-gpu: 223,006,222 s (mean 557,515.555 s), 246 preemptions.
 * And on tests/data/baselines/pow2-300.csv (synthetic; durations are powers of two so
 * that the engine's saved work is exact in binary even after many preemptions), same
 * conversion, --cluster_spec 1 node x 16 GPUs:
 *   dlas-gpu:   7,225,302 s, 569 preemptions
 *   dlas-gpu-2: 8,255,164 s, 747 (641 promotions)     = las promote_knob 2
 *   dlas-gpu-1: 7,965,402 s, 793 (740 promotions)     = las promote_knob 1
 *   shortest:   4,883,857 s, 398
 * These are measured external figures, not outputs of this code. */
struct ref_run {
	const char *order;
	size_t jobs;
	int gpus;
	int64_t jct_sum_s;
	uint64_t preemptions;
	const char *params; /* NULL: defaults */
	const char *path;   /* NULL: the b436b2 trace */
};

/* Loads the experiment's trace (its first n jobs when n > 0). */
static struct sim_trace *load_b436b2(size_t n)
{
	const char *path = TEST_SOURCE_DIR "/experiments/baselines/philly-b436b2.csv";
	if (n) {
		size_t len;
		char *all = tu_read_file(path, &len);
		CU_ASSERT_PTR_NOT_NULL_FATAL(all);
		size_t rows = 0;
		char *p = all;
		for (; *p; p++) /* comment lines, the header, then n rows */
			if (*p == '\n' && p[1] != '#' && ++rows == n + 2) /* row n+1 would start */
				break;
		if (*p)
			p[1] = '\0';
		path = tu_write_file("b436b2-head.csv", all);
		free(all);
	}
	struct sim_trace *t = NULL;
	struct sim_diag d;
	sim_diag_init(&d, 20);
	d.echo = stderr;
	CU_ASSERT_EQUAL(trace_native_read(path, &t, &d), 0);
	sim_diag_fini(&d);
	return t;
}

static void check_ref(const struct ref_run *r)
{
	struct sim_trace *t = NULL;
	if (r->path) {
		struct sim_diag d;
		sim_diag_init(&d, 20);
		d.echo = stderr;
		CU_ASSERT_EQUAL(trace_native_read(r->path, &t, &d), 0);
		sim_diag_fini(&d);
	} else {
		t = load_b436b2(r->jobs == 7423 ? 0 : r->jobs);
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL_FATAL(t->n_jobs, r->jobs);
	CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 1, r->gpus, r->order, r->params, SIM_PLACE_BEST_FIT), 0);
	int64_t jct_ns = 0;
	uint64_t pre = 0;
	size_t done = 0;
	for (size_t i = 0; i < t->n_jobs; i++) {
		done += t->jobs[i].state == SIM_JOB_COMPLETED;
		jct_ns += t->jobs[i].end_ns - t->jobs[i].submit_ns;
		pre += t->jobs[i].preemptions;
	}
	CU_ASSERT_EQUAL(done, r->jobs);
	CU_ASSERT_EQUAL(jct_ns, r->jct_sum_s * SIM_NS_PER_S);
	CU_ASSERT_EQUAL(pre, r->preemptions);
	if (jct_ns != r->jct_sum_s * SIM_NS_PER_S || pre != r->preemptions)
		fprintf(stderr, "%s on %zu jobs: JCT sum %.3f s (Tiresias %lld), %llu preemptions (Tiresias %llu)\n",
			r->order, r->jobs, sim_time_to_s(jct_ns), (long long)r->jct_sum_s,
			(unsigned long long)pre, (unsigned long long)r->preemptions);
	sim_trace_destroy(t);
}

static void test_las_equals_tiresias_dlas_gpu_b436b2(void)
{
	check_ref(&(struct ref_run){ "las", 7423, 128, 108182277, 256, NULL, NULL });
}

static void test_las_equals_tiresias_dlas_gpu_400_jobs_32_gpus(void)
{
	check_ref(&(struct ref_run){ "las", 400, 32, 223006222, 246, NULL, NULL });
}

static void test_srtf_equals_tiresias_shortest_b436b2(void)
{
	check_ref(&(struct ref_run){ "srtf", 7423, 128, 106728000, 2904, NULL, NULL });
	check_ref(&(struct ref_run){ "fifo", 7423, 128, 188141231, 0, NULL, NULL });
}

#define POW2 TEST_DATA_DIR "/baselines/pow2-300.csv"

static void test_las_equals_tiresias_with_promotion(void)
{
	check_ref(&(struct ref_run){ "las", 300, 16, 7225302, 569, NULL, POW2 });
	check_ref(&(struct ref_run){ "las", 300, 16, 8255164, 747, "{\"promote_knob\": 2}", POW2 });
	check_ref(&(struct ref_run){ "las", 300, 16, 7965402, 793, "{\"promote_knob\": 1}", POW2 });
	check_ref(&(struct ref_run){ "srtf", 300, 16, 4883857, 398, NULL, POW2 });
}

/* srtf and las preempt in their own pass: the stack validator refuses them under a
 * quota policy; sjf provides an order key and is accepted. */
static void test_baselines_under_quota(void)
{
	const struct sim_policy_ops *ops[SIM_FAM_COUNT_] = { NULL };
	const char *const paths[SIM_FAM_COUNT_] = { "$.policies.order", "$.policies.quota", "$.policies.preemption",
						    "$.policies.fallback" };
	ops[SIM_FAM_QUOTA] = &hard_quota_policy_ops;
	ops[SIM_FAM_FALLBACK] = &strict_fallback_policy_ops;
	const struct sim_policy_ops *order[] = { &sjf_policy_ops, &srtf_policy_ops, &las_policy_ops };
	for (size_t i = 0; i < 3; i++) {
		ops[SIM_FAM_ORDER] = order[i];
		struct sim_diag d;
		sim_diag_init(&d, 20);
		int rc = sim_stack_validate(ops, "exp.json", paths, &d);
		CU_ASSERT_EQUAL(rc == 0, i == 0);
		if (i)
			CU_ASSERT(sim_diag_contains(&d, "exp.json: $.policies."));
		sim_diag_fini(&d);
	}
}

static CU_TestInfo baselines_tests[] = {
	{ "test_srtf_fast_pass_equals_exact_walk", test_srtf_fast_pass_equals_exact_walk },
	{ "test_las_shortcuts_equal_plain_loops", test_las_shortcuts_equal_plain_loops },
	{ "test_las_promotion_ends_with_checkpoints", test_las_promotion_ends_with_checkpoints },
	{ "test_sjf_passes_over_by_default", test_sjf_passes_over_by_default },
	{ "test_sjf_strict_blocks", test_sjf_strict_blocks },
	{ "test_sjf_order_by_length", test_sjf_order_by_length },
	{ "test_srtf_preempts_longer", test_srtf_preempts_longer },
	{ "test_las_queue0_preempts_queue1", test_las_queue0_preempts_queue1 },
	{ "test_las_demotion_modes", test_las_demotion_modes },
	{ "test_las_promotion", test_las_promotion },
	{ "test_las_params_refused", test_las_params_refused },
	{ "test_las_equals_tiresias_dlas_gpu_b436b2", test_las_equals_tiresias_dlas_gpu_b436b2 },
	{ "test_las_equals_tiresias_dlas_gpu_400_jobs_32_gpus", test_las_equals_tiresias_dlas_gpu_400_jobs_32_gpus },
	{ "test_srtf_equals_tiresias_shortest_b436b2", test_srtf_equals_tiresias_shortest_b436b2 },
	{ "test_las_equals_tiresias_with_promotion", test_las_equals_tiresias_with_promotion },
	{ "test_baselines_under_quota", test_baselines_under_quota },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo baselines_suite = { "baselines", init_baselines, clean_baselines, NULL, NULL, baselines_tests };
