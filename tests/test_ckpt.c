/* tests/test_ckpt.c: checkpoint tiers, interval policies and loss spikes
 * (sim/ckpt.[ch], docs/faults.md "Checkpoint tiers", "Checkpoint intervals",
 * "Loss spikes"), against hand-computed cases. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/ckpt.h"
#include "../sim/faults.h"
#include "testutil.h"

static void crun(struct tu_crun *r, const char *config, const char *trace, uint64_t seed, FILE *log)
{
	tu_crun_with(r, config, trace, &(struct tu_crun_opts){ .seed = seed, .log = log });
}

/* Young and Daly against numbers computed by hand (and checked with a calculator):
 * C = 60 s, M = 54 d / 419 = 11,135.08 s (Llama 3's rate): Young sqrt(2 C M) =
 * 1,155.946 s, Daly 1,116.292 s; C = 10 s: 471.913 and 465.270 s. C >= 2M: M. */
static void test_young_daly(void)
{
	double m = 54.0 * 86400 / 419;
	CU_ASSERT_DOUBLE_EQUAL(sim_ckpt_young_s(60, m), 1155.9455, 1e-3);
	CU_ASSERT_DOUBLE_EQUAL(sim_ckpt_daly_s(60, m), 1116.2915, 1e-3);
	CU_ASSERT_DOUBLE_EQUAL(sim_ckpt_young_s(10, m), 471.9128, 1e-3);
	CU_ASSERT_DOUBLE_EQUAL(sim_ckpt_daly_s(10, m), 465.2697, 1e-3);
	/* C = 50, M = 3600: sqrt(360000) = 600; Daly 600 (1 + (1/12)/3 + 50/64800) - 50. */
	CU_ASSERT_DOUBLE_EQUAL(sim_ckpt_young_s(50, 3600), 600, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sim_ckpt_daly_s(50, 3600), 567.1296296, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(sim_ckpt_daly_s(100, 50), 50, 1e-12); /* C >= 2M */
	CU_ASSERT_DOUBLE_EQUAL(sim_ckpt_young_s(0, 3600), 0, 0);
	/* Node means: Weibull(2, 100 h) = 100 h x Gamma(1.5) = 88.6227 h; exponential
	 * per GPU 800 h on 8 GPUs = 100 h; Weibull(2, 100 h) per GPU on 4 GPUs: scale
	 * x 4^(-1/2) = 50 h, mean 44.311 h. */
	CU_ASSERT_DOUBLE_EQUAL(sim_ckpt_node_mean_s(SIM_FLAW_WEIBULL, 0, 2, 360000, 0, 8), 88.622693 * 3600, 1e-2);
	CU_ASSERT_DOUBLE_EQUAL(sim_ckpt_node_mean_s(SIM_FLAW_EXPONENTIAL, 2880000, 0, 0, 1, 8), 360000, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(sim_ckpt_node_mean_s(SIM_FLAW_WEIBULL, 0, 2, 360000, 1, 4), 44.311346 * 3600, 1e-2);
	/* A job on 4 nodes of mean 100 h with 0.01 crashes an hour: 1 / (0.04 + 0.01) = 20 h. */
	CU_ASSERT_DOUBLE_EQUAL(sim_ckpt_job_mtbf_s(4, 360000, 0.01, 0), 72000, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(sim_ckpt_job_mtbf_s(4, 0, 0, 0), 0, 0);
	/* Mean write cost with n = 4: (3 x 10 + 60) / 4 = 22.5 s. */
	struct sim_ckpt_policy p = { .memory = 1, .persist_every = 4, .mem_write_ns = 10 * SIM_NS_PER_S };
	CU_ASSERT_DOUBLE_EQUAL(sim_ckpt_mean_write_s(&p, 60 * SIM_NS_PER_S), 22.5, 1e-12);
}

/* The pure tier functions: which checkpoints are persistent, their write time, how
 * many complete by a time, and the k-th newest surviving checkpoint. */
static void test_tier_functions(void)
{
	struct sim_ckpt_policy p = { .memory = 1, .persist_every = 2, .mem_write_ns = 2 * SIM_NS_PER_S };
	sim_time_t P = 10 * SIM_NS_PER_S, T = 100 * SIM_NS_PER_S;
	CU_ASSERT_FALSE(sim_ckpt_is_persistent(&p, 1));
	CU_ASSERT_TRUE(sim_ckpt_is_persistent(&p, 2));
	CU_ASSERT_EQUAL(sim_ckpt_persistent_in(&p, 1, 4), 2); /* 2..5: 2 and 4 */
	CU_ASSERT_EQUAL(sim_ckpt_persistent_in(&p, 0, 3), 1);
	CU_ASSERT_DOUBLE_EQUAL(sim_ckpt_write_ns(&p, P, 0, 3), 14e9, 0); /* 2 + 10 + 2 */
	/* Completions at 102, 212, 314, 424 s. */
	CU_ASSERT_EQUAL(sim_ckpt_completed(&p, P, 0, T, 313999999999, 9), 2);
	CU_ASSERT_EQUAL(sim_ckpt_completed(&p, P, 0, T, 314 * SIM_NS_PER_S, 9), 3);
	CU_ASSERT_EQUAL(sim_ckpt_completed(&p, P, 0, T, 5000 * SIM_NS_PER_S, 9), 9); /* at most kmax */
	double per[] = { 0.5, 0.3 };
	CU_ASSERT_DOUBLE_EQUAL(sim_ckpt_rollback_target(0.6, per, 2, 1), 0.6, 0);
	CU_ASSERT_DOUBLE_EQUAL(sim_ckpt_rollback_target(0.6, per, 2, 2), 0.5, 0);
	CU_ASSERT_DOUBLE_EQUAL(sim_ckpt_rollback_target(0.6, per, 2, 4), 0, 0); /* never before the start */
	CU_ASSERT_DOUBLE_EQUAL(sim_ckpt_rollback_target(0.5, per, 2, 1), 0.5, 0); /* a persistent copy in memory */
	CU_ASSERT_DOUBLE_EQUAL(sim_ckpt_rollback_target(-1, per, 2, 2), 0.3, 0);
	/* The survival rule. */
	CU_ASSERT_TRUE(sim_ckpt_memory_survives(&p, SIM_STOP_CRASHED));
	CU_ASSERT_TRUE(sim_ckpt_memory_survives(&p, SIM_STOP_HANG));
	CU_ASSERT_TRUE(sim_ckpt_memory_survives(&p, SIM_STOP_LOSS_SPIKE));
	CU_ASSERT_FALSE(sim_ckpt_memory_survives(&p, SIM_STOP_NODE_FAILED));
	CU_ASSERT_FALSE(sim_ckpt_memory_survives(&p, SIM_STOP_PREEMPTED));
	CU_ASSERT_FALSE(sim_ckpt_memory_survives(&p, SIM_STOP_SPOT));
	CU_ASSERT_FALSE(sim_ckpt_memory_survives(&p, SIM_STOP_CAPACITY_REMOVED));
	p.replicas = 1;
	CU_ASSERT_TRUE(sim_ckpt_memory_survives(&p, SIM_STOP_NODE_FAILED));
	/* One tier: 20 checkpoints every 1% of the work, all persistent; the list keeps the
	 * newest 16 (0.20 down to 0.05); a crash resumes from 0.20, a loss spike with
	 * rollback 3 from 0.18 and drops 0.20 and 0.19. */
	struct sim_ckpt_policy one = { 0 };
	struct sim_ckpt_state st;
	sim_ckpt_state_init(&st);
	st.interval_ns = SIM_NS_PER_S;
	CU_ASSERT_DOUBLE_EQUAL(sim_ckpt_record(&st, &one, 0, 100e9, 20), 0.20, 1e-12);
	CU_ASSERT_EQUAL(st.seq, 20);
	CU_ASSERT_EQUAL(st.n_per, SIM_CKPT_RING);
	CU_ASSERT_DOUBLE_EQUAL(st.per[0], 0.20, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(st.per[15], 0.05, 1e-12);
	CU_ASSERT(st.mem_pos < 0);
	CU_ASSERT_DOUBLE_EQUAL(sim_ckpt_restart(&st, &one, SIM_STOP_CRASHED, 3), 0.20, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(sim_ckpt_restart(&st, &one, SIM_STOP_LOSS_SPIKE, 3), 0.18, 1e-12);
	CU_ASSERT_EQUAL(st.n_per, 14);
	CU_ASSERT_FALSE(st.restore_mem);
	/* Two tiers (n = 2): from 0.18, checkpoints 21 (memory, 0.19) and 22 (persistent,
	 * 0.20), 23 (memory, 0.21): a node failure without a replica resumes from 0.20,
	 * a crash from 0.21 out of memory. */
	CU_ASSERT_DOUBLE_EQUAL(sim_ckpt_record(&st, &p, 0.18, 100e9, 3), 0.21, 1e-12);
	struct sim_ckpt_state s2 = st;
	p.replicas = 0;
	CU_ASSERT_DOUBLE_EQUAL(sim_ckpt_restart(&st, &p, SIM_STOP_NODE_FAILED, 1), 0.20, 1e-12);
	CU_ASSERT_FALSE(st.restore_mem);
	CU_ASSERT_DOUBLE_EQUAL(sim_ckpt_restart(&s2, &p, SIM_STOP_CRASHED, 1), 0.21, 1e-12);
	CU_ASSERT_TRUE(s2.restore_mem);
}

#define TIER_CFG(replicas)                                                                                      \
	"{'name': 'c', 'trace': {'path': 'TRACE'}, 'cluster': {'flavors': [{'name': 'f', 'nodes': 2,"             \
	" 'node': {'gpu': 8}}], 'failures': {'distribution': 'fixed', 'mtbf_h': 0.09722222222222222,"             \
	" 'repair': {'distribution': 'fixed', 'mean_h': 0.013888888888888888}}},"                               \
	" 'jobs': {'checkpoint': {'overhead_s': 10, 'restore_s': 20, 'persistent_every': 2,"                      \
	" 'memory': {'write_s': 2, 'restore_s': 5, 'replicas': " replicas "}}}, 'output': 'x.h5'}"
#define TIER_TRACE "id,submit_s,duration_s,request,checkpoint_s\nj,0,1000,f:gpu=16,100\n"

/* A 16-GPU gang on 2 nodes of 8, 1,000 s of work, a checkpoint every 100 s of work:
 * odd-numbered ones to memory (2 s to write, 5 s to restore), even-numbered ones
 * persistent (10 s, 20 s). Both nodes fail 350 s after they come up and are repaired
 * in 50 s. Without a replica (k = 0), each failure loses the memory tier:
 * - [0, 350): checkpoints end at 102 (M, 100 s of work), 212 (P, 200), 314 (M, 300);
 *   the memory one is lost: back to 200, losing 36 s + 100 s of work: 16 x 136 = 2,176.
 * - from 400: restore 20 to 420; #4 P (300) at 530, #5 M (400) at 632, #6 P (500) at
 *   742; failure at 750: 500 is persistent, 16 x 8 = 128 lost.
 * - from 800: restore to 820; #7 M (600) 922, #8 P (700) 1032, #9 M (800) 1134; failure
 *   at 1150: back to 700: 16 x (16 + 100) = 1,856.
 * - from 1200: restore to 1220; #10 P (800) 1330, #11 M (900) 1432; done at 1532.
 * Lost 4,160 GPU-s, three restores of 20 s. */
static void test_node_failure_loses_memory_tier(void)
{
	struct tu_crun r;
	crun(&r, TIER_CFG("0"), TIER_TRACE, 1, NULL);
	const struct sim_job *j = &r.t->jobs[0];
	CU_ASSERT_EQUAL(j->state, SIM_JOB_COMPLETED);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(j->end_ns), 1532, 1e-6);
	CU_ASSERT_EQUAL(sim_job_fx(r.t, j)->fault_stops[0], 3);
	CU_ASSERT_DOUBLE_EQUAL(sim_job_fx(r.t, j)->lost_fault_gpu_s[0], 2176 + 128 + 1856, 1e-3);
	CU_ASSERT_DOUBLE_EQUAL(j->restore_s, 60, 1e-9);
	/* Writes: 11 checkpoints, 6 memory (2 s) and 5 persistent (10 s) = 62 s. */
	CU_ASSERT_DOUBLE_EQUAL(j->ckpt_overhead_s, 62, 1e-6);
	tu_crun_free(&r);
}

/* The same with the memory checkpoint replicated to one peer (k = 1): a single node
 * failure leaves a copy, so each restart restores the newest checkpoint from memory
 * (5 s):
 * - [0, 350): back to 300 (memory): 16 x 36 = 576 lost.
 * - from 400: restore to 405; #4 P (400) 515, #5 M (500) 617, #6 P (600) 727; failure at
 *   750: 600 (also in memory): 16 x 23 = 368.
 * - from 800: 805; #7 M (700) 907, #8 P (800) 1017, #9 M (900) 1119; failure at 1150:
 *   16 x 31 = 496.
 * - from 1200: 1205, the last 100 s: done at 1305.
 * Lost 1,440 GPU-s, three restores of 5 s. */
static void test_node_failure_replica_keeps_memory_tier(void)
{
	struct tu_crun r;
	crun(&r, TIER_CFG("1"), TIER_TRACE, 1, NULL);
	const struct sim_job *j = &r.t->jobs[0];
	CU_ASSERT_EQUAL(j->state, SIM_JOB_COMPLETED);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(j->end_ns), 1305, 1e-6);
	CU_ASSERT_EQUAL(sim_job_fx(r.t, j)->fault_stops[0], 3);
	CU_ASSERT_DOUBLE_EQUAL(sim_job_fx(r.t, j)->lost_fault_gpu_s[0], 576 + 368 + 496, 1e-3);
	CU_ASSERT_DOUBLE_EQUAL(j->restore_s, 15, 1e-9);
	tu_crun_free(&r);
}

/* A crash leaves the nodes intact, so the memory tier survives without a replica:
 * the job (8 GPUs, one node, same tiers) crashes 350 s into each segment (fixed):
 * - [0, 350): back to 300 from memory: 8 x 36 = 288.
 * - from 350: restore 5 to 355; #4 P (400) 465, #5 M (500) 567, #6 P (600) 677; crash
 *   at 700: 8 x 23 = 184.
 * - from 700: 705; #7 M 807, #8 P 917, #9 M (900) 1019; crash at 1050: 8 x 31 = 248.
 * - from 1050: 1055, done at 1155.
 * Lost 720 GPU-s. */
static void test_crash_keeps_memory_tier(void)
{
	struct tu_crun r;
	crun(&r,
	     "{'name': 'c', 'trace': {'path': 'TRACE'}, 'cluster': {'flavors': [{'name': 'f', 'nodes': 1,"
	     " 'node': {'gpu': 8}}]}, 'jobs': {'faults': {'distribution': 'fixed', 'crash_per_h': 10.285714285714286},"
	     " 'checkpoint': {'overhead_s': 10, 'restore_s': 20, 'persistent_every': 2,"
	     " 'memory': {'write_s': 2, 'restore_s': 5}}}, 'output': 'x.h5'}",
	     "id,submit_s,duration_s,request,checkpoint_s\nj,0,1000,f:gpu=8,100\n", 1, NULL);
	const struct sim_job *j = &r.t->jobs[0];
	CU_ASSERT_EQUAL(j->state, SIM_JOB_COMPLETED);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(j->end_ns), 1155, 1e-6);
	CU_ASSERT_EQUAL(sim_job_fx(r.t, j)->fault_stops[1], 3);
	CU_ASSERT_DOUBLE_EQUAL(sim_job_fx(r.t, j)->lost_fault_gpu_s[1], 288 + 184 + 248, 1e-3);
	CU_ASSERT_DOUBLE_EQUAL(j->restore_s, 15, 1e-9);
	tu_crun_free(&r);
}

/* Interval policies in the engine, no faults (so the interval decides only the
 * checkpoint count): C = 50 s, mtbf_h = 1: Young 600 s, a 3,000 s job writes
 * floor(2999 / 600) = 4 checkpoints and ends at 3,200; Daly 567.13 s: 5, ends at
 * 3,250. Derived from the nodes (no mtbf_h): 2 nodes failing at a fixed 100 h (never
 * within the run): M = 50 h, Young sqrt(2 x 50 x 180,000) = 4,242.6 s; a 10,000 s
 * job writes 2 and ends at 10,100. */
static void test_interval_policies(void)
{
#define INTERVAL_CFG                                                                                   \
	"{'name': 'c', 'trace': {'path': 'TRACE'}, 'cluster': {'flavors': [{'name': 'f', 'nodes': 2,"   \
	" 'node': {'gpu': 8}}]%s}, 'jobs': {'checkpoint': {'overhead_s': 50, 'interval': '%s'%s}},"   \
	" 'output': 'x.h5'}"
	struct {
		const char *policy, *mtbf, *failures, *trace;
		double end_s, ov_s;
	} cases[] = {
		{ "young", ", 'mtbf_h': 1", "", "id,submit_s,duration_s,request\nj,0,3000,f:gpu=8\n", 3200, 200 },
		{ "daly", ", 'mtbf_h': 1", "", "id,submit_s,duration_s,request\nj,0,3000,f:gpu=8\n", 3250, 250 },
		{ "young", "", ", 'failures': {'distribution': 'fixed', 'mtbf_h': 100}",
		  "id,submit_s,duration_s,request\nj,0,10000,f:gpu=16\n", 10100, 100 },
		{ "fixed", "", "", "id,submit_s,duration_s,request,checkpoint_s\nj,0,3000,f:gpu=8,1000\n", 3100, 100 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char c[1024];
		snprintf(c, sizeof c, INTERVAL_CFG, cases[i].failures, cases[i].policy, cases[i].mtbf);
		struct tu_crun r;
		crun(&r, c, cases[i].trace, 1, NULL);
		const struct sim_job *j = &r.t->jobs[0];
		CU_ASSERT_EQUAL(j->state, SIM_JOB_COMPLETED);
		CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(j->end_ns), cases[i].end_s, 1e-6);
		CU_ASSERT_DOUBLE_EQUAL(j->ckpt_overhead_s, cases[i].ov_s, 1e-6);
		tu_crun_free(&r);
	}
}

/* A loss spike 350 s into the segment (fixed), one tier (checkpoint every 100 s, 10
 * s to write): checkpoints end at 110, 220, 330 (work 100, 200, 300). No retries, so
 * the job ends failed at the spike and keeps what it rolled back to. Rollback 1:
 * back to 300, losing 20 s x 8 GPUs = 160; rollback 2: to 200, 160 + 8 x 100 = 960
 * (one interval more); rollback 4 and beyond: the start, 8 x 320 = 2,560. */
static void test_loss_spike_rollback(void)
{
#define SPIKE_CFG                                                                                       \
	"{'name': 'c', 'trace': {'path': 'TRACE'}, 'cluster': {'flavors': [{'name': 'f', 'nodes': 1,"    \
	" 'node': {'gpu': 8}}]}, 'jobs': {'faults': {'distribution': 'fixed', 'loss_spike_per_h':"       \
	" 10.285714285714286, 'rollback': %d, 'max_retries': 0}, 'checkpoint': {'overhead_s': 10}},"    \
	" 'output': 'x.h5'}"
	struct {
		int rollback;
		double lost, progress;
	} cases[] = { { 1, 160, 0.3 }, { 2, 960, 0.2 }, { 3, 1760, 0.1 }, { 4, 2560, 0 }, { 16, 2560, 0 } };
	double lost[5];
	for (size_t i = 0; i < 5; i++) {
		char c[1024];
		snprintf(c, sizeof c, SPIKE_CFG, cases[i].rollback);
		struct tu_crun r;
		crun(&r, c, "id,submit_s,duration_s,request,checkpoint_s\nj,0,1000,f:gpu=8,100\n", 1, NULL);
		const struct sim_job *j = &r.t->jobs[0];
		CU_ASSERT_EQUAL(j->state, SIM_JOB_FAILED);
		CU_ASSERT_EQUAL(sim_job_fx(r.t, j)->fault_stops[3], 1);
		lost[i] = sim_job_fx(r.t, j)->lost_fault_gpu_s[3];
		CU_ASSERT_DOUBLE_EQUAL(lost[i], cases[i].lost, 1e-3);
		CU_ASSERT_DOUBLE_EQUAL(j->progress, cases[i].progress, 1e-9);
		CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(j->end_ns), 350, 1e-6);
		tu_crun_free(&r);
	}
	CU_ASSERT_DOUBLE_EQUAL(lost[1] - lost[0], 8 * 100, 1e-3); /* one interval of work more */
}

/* The node_failed lines of a run's event log. */
static char *failure_lines(const char *cfg, const char *trace, uint64_t seed, double *end_s, double *lost)
{
	char *text = NULL, *out = calloc(1, 1);
	size_t len = 0, n = 0;
	FILE *log = open_memstream(&text, &len);
	struct tu_crun r;
	crun(&r, cfg, trace, seed, log);
	fclose(log);
	*end_s = 0;
	*lost = 0;
	for (size_t i = 0; i < r.t->n_jobs; i++) {
		*end_s += sim_time_to_s(r.t->jobs[i].end_ns);
		*lost += r.t->jobs[i].lost_gpu_s;
	}
	tu_crun_free(&r);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (!strstr(line, "event=node_failed"))
			continue;
		size_t l = strlen(line);
		out = realloc(out, n + l + 2);
		memcpy(out + n, line, l);
		out[n + l] = '\n';
		out[n + l + 1] = 0;
		n += l + 1;
	}
	free(text);
	return out;
}

/* Node failures, crashes, hangs and loss spikes over three jobs with a memory tier:
 * the same seed twice gives the same run; loss spikes (their own draws) move no
 * node failure. */
static void test_determinism(void)
{
#define DET_CFG                                                                                            \
	"{'name': 'c', 'trace': {'path': 'TRACE'}, 'cluster': {'flavors': [{'name': 'f', 'nodes': 4,"       \
	" 'node': {'gpu': 8}}], 'failures': {'mtbf_h': 2, 'repair': {'mean_h': 0.1}}}, 'jobs': {'faults':"  \
	" {'crash_per_h': 0.5, 'hang_per_h': 0.2, 'hang_timeout_s': 600%s}, 'checkpoint': {'overhead_s': 10, 'restore_s': 30, 'persistent_every': 3," \
	" 'memory': {'write_s': 2, 'restore_s': 5}}}, 'output': 'x.h5'}"
	static const char *const trace = "id,submit_s,duration_s,request,checkpoint_s\na,0,20000,f:gpu=16,300\n"
					 "b,0,30000,f:gpu=8,200\nc,100,10000,f:gpu=8,500\n";
	char on[1024], off[1024];
	snprintf(on, sizeof on, DET_CFG, ", 'loss_spike_per_h': 0.3, 'rollback': 2");
	snprintf(off, sizeof off, DET_CFG, "");
	double e1, l1, e2, l2, e3, l3;
	char *a = failure_lines(on, trace, 7, &e1, &l1);
	char *b = failure_lines(on, trace, 7, &e2, &l2);
	char *c = failure_lines(off, trace, 7, &e3, &l3);
	CU_ASSERT_STRING_EQUAL(a, b);
	CU_ASSERT_EQUAL(e1, e2);
	CU_ASSERT_EQUAL(l1, l2);
	CU_ASSERT(strlen(a) > 0);
	/* Spikes change the jobs' runs (and so how long the run lasts): the failures the
	 * shorter log holds are the longer one's first lines. */
	size_t na = strlen(a), nc = strlen(c);
	CU_ASSERT(na > 0 && nc > 0);
	CU_ASSERT(strncmp(a, c, na < nc ? na : nc) == 0);
	CU_ASSERT(l1 != l3); /* the spikes did cost work */
	free(a);
	free(b);
	free(c);
}

/* Bad tier and spike keys: exit 2 with the key's path. */
static void test_bad_ckpt_config(void)
{
	static const struct {
		const char *ck, *faults, *want;
	} cases[] = {
		{ "'memory': {'write_s': -1}, 'persistent_every': 2", "",
		  "$.jobs.checkpoint.memory.write_s: expected number >= 0, got -1" },
		{ "'memory': {'restore_s': -5}, 'persistent_every': 2", "",
		  "$.jobs.checkpoint.memory.restore_s: expected number >= 0, got -5" },
		{ "'memory': {'replicas': -1}, 'persistent_every': 2", "",
		  "$.jobs.checkpoint.memory.replicas: expected integer >= 0, got -1" },
		{ "'memory': {'write_s': 1}, 'persistent_every': 0", "",
		  "$.jobs.checkpoint.persistent_every: expected integer >= 1, got 0" },
		{ "'memory': {'write_s': 1}", "", "$.jobs.checkpoint: expected \"persistent_every\"" },
		{ "'persistent_every': 3", "", "$.jobs.checkpoint.persistent_every: expected a \"memory\" tier" },
		{ "'interval': 'often'", "", "$.jobs.checkpoint.interval: expected \"fixed\", \"young\" or \"daly\", got \"often\"" },
		{ "'mtbf_h': 0", "", "$.jobs.checkpoint.mtbf_h: expected number > 0, got 0" },
		{ "'memory': {'speed': 1}, 'persistent_every': 2", "", "$.jobs.checkpoint.memory" },
		{ "", ", 'faults': {'loss_spike_per_h': -1}", "$.jobs.faults.loss_spike_per_h: expected number >= 0, got -1" },
		{ "", ", 'faults': {'rollback': 0}", "$.jobs.faults.rollback: expected integer >= 1, got 0" },
		{ "", ", 'faults': {'rollback': 17}", "$.jobs.faults.rollback: expected integer <= 16, got 17" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char cfg[1024];
		snprintf(cfg, sizeof cfg,
			 "{'name': 'c', 'trace': {'path': 'x.csv'}, 'cluster': {'flavors': [{'name': 'f', 'nodes': 1,"
			 " 'node': {'gpu': 8}}]}, 'jobs': {'checkpoint': {'overhead_s': 1%s%s}%s}, 'output': 'x.h5'}",
			 cases[i].ck[0] ? ", " : "", cases[i].ck, cases[i].faults);
		tu_expect_config_error("bad_ckpt.json", cfg, cases[i].want);
	}
}

static CU_TestInfo ckpt_tests[] = {
	{ "test_young_daly", test_young_daly },
	{ "test_tier_functions", test_tier_functions },
	{ "test_node_failure_loses_memory_tier", test_node_failure_loses_memory_tier },
	{ "test_node_failure_replica_keeps_memory_tier", test_node_failure_replica_keeps_memory_tier },
	{ "test_crash_keeps_memory_tier", test_crash_keeps_memory_tier },
	{ "test_interval_policies", test_interval_policies },
	{ "test_loss_spike_rollback", test_loss_spike_rollback },
	{ "test_determinism", test_determinism },
	{ "test_bad_ckpt_config", test_bad_ckpt_config },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo ckpt_suite = { "ckpt", NULL, NULL, NULL, NULL, ckpt_tests };
