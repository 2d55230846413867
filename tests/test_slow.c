/* tests/test_slow.c: fail-slow nodes (docs/faults.md, "Fail-slow nodes") against
 * hand-computed cases: a slow node's factor stretches a job's segment for the
 * episode, a gang runs at its slowest node's rate, a stop keeps exactly the work
 * done at that rate, a detection migrates the job; determinism and bad configs. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../experiments/config.h"
#include "testutil.h"

static void srun(struct tu_crun *r, const char *config, const char *trace, uint64_t seed, FILE *log)
{
	tu_crun_with(r, config, trace, &(struct tu_crun_opts){ .seed = seed, .log = log });
}

/* One flavor 'f' of `nodes` nodes of 8 GPUs; every node is slow for 200 s
 * (factor `factor`) after each 1,000 s at full speed (fixed laws): episodes
 * [1000, 1200), [2200, 2400)... `extra` goes into $.cluster.fail_slow. */
static void slow_cfg(char *out, size_t n, int nodes, const char *factor, const char *extra, const char *jobs)
{
	snprintf(out, n,
		 "{'name': 's', 'trace': {'path': 'TRACE'}, 'cluster': {'flavors': [{'name': 'f', 'nodes': %d,"
		 " 'node': {'gpu': 8}}], 'fail_slow': {'distribution': 'fixed', 'mtbs_h': 0.2777777777777778,"
		 " 'factor': %s, 'period': {'distribution': 'fixed', 'mean_s': 200}%s}}, 'jobs': {%s},"
		 " 'output': 'x.h5'}",
		 nodes, factor, extra, jobs);
}

/* 1,000 s of work submitted at 900: full speed to 1000 (100 s done), half speed to
 * 1200 (100 s more), full speed for the last 800: it ends at 2000, 1,100 s after
 * its start. GPU time lost to slowness: 8 x 200 x (1 - 0.5) = 800 GPU-s. */
static void test_half_speed_episode(void)
{
	char cfg[1024];
	slow_cfg(cfg, sizeof cfg, 1, "0.5", "", "");
	struct tu_crun r;
	srun(&r, cfg, "id,submit_s,duration_s,request\nj,900,1000,f:gpu=8\n", 1, NULL);
	const struct sim_job *j = &r.t->jobs[0];
	CU_ASSERT_EQUAL(j->state, SIM_JOB_COMPLETED);
	CU_ASSERT_EQUAL(j->start_ns, 900 * SIM_NS_PER_S);
	CU_ASSERT_EQUAL(j->end_ns, 2000 * SIM_NS_PER_S);
	CU_ASSERT_DOUBLE_EQUAL(j->held_s, 1100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(j->lost_gpu_s, 0, 1e-12);
	const struct sim_engine_counters *k = sim_engine_counters(r.e);
	CU_ASSERT_EQUAL(k->slow_episodes, 1); /* the next, at 2200, would begin after the run ended */
	CU_ASSERT_DOUBLE_EQUAL(k->slow_lost_gpu_s, 800, 1e-6);
	CU_ASSERT_EQUAL(k->slow_stops, 0);
	tu_crun_free(&r);
}

/* Checkpoint tiers on the segment clock, with crashes. 1,000 s of work submitted at
 * 900, a checkpoint every 100 s of work: odd ones in memory (2 s to write, 5 s to
 * restore), even ones persistent (10 s, 20 s); a crash 400 s (wall) into every
 * segment; the node at half speed over [1000, 1200) and [2200, 2400).
 * - Segment 1 from 900: segment time 100 by 1000, 200 by 1200, 300 at the crash at
 *   1300. #1 M done at 102, #2 P at 212, #3 M would be at 314: 2 kept (200 s of
 *   work), 300 - 212 = 88 s x 8 GPUs = 704 lost. The crash keeps memory, where #2
 *   also is: restore 5 s.
 * - Segment 2 from 1300 (full speed): 5 + #3 M 107, #4 P 217, #5 M 319, #6 at 429:
 *   3 kept (500 s), crash at 1700 loses 400 - 319 = 81 s x 8 = 648.
 * - Segment 3 from 1700: 5 + #6 P 115, #7 M 217, #8 P 327, #9 at 429: 3 kept
 *   (800 s), crash at 2100 loses 73 s x 8 = 584.
 * - Segment 4 from 2100: 5 + 200 s of work + #9 M 2 s = 207 s of segment time: 100
 *   by 2200, 200 by 2400 (half speed), the last 7 by 2407.
 * Lost to crashes 1,936 GPU-s; to slowness 2 x 8 x 200 x 0.5 = 1,600; restores 15 s. */
static void test_tiers_on_segment_clock(void)
{
	char cfg[2048];
	slow_cfg(cfg, sizeof cfg, 1, "0.5", "",
		 "'faults': {'distribution': 'fixed', 'crash_per_h': 9}, 'checkpoint': {'overhead_s': 10,"
		 " 'restore_s': 20, 'persistent_every': 2, 'memory': {'write_s': 2, 'restore_s': 5}}");
	struct tu_crun r;
	srun(&r, cfg, "id,submit_s,duration_s,request,checkpoint_s\nj,900,1000,f:gpu=8,100\n", 1, NULL);
	const struct sim_job *j = &r.t->jobs[0];
	CU_ASSERT_EQUAL(j->state, SIM_JOB_COMPLETED);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(j->end_ns), 2407, 1e-6);
	CU_ASSERT_EQUAL(sim_job_fx(r.t, j)->fault_stops[1], 3);
	CU_ASSERT_DOUBLE_EQUAL(sim_job_fx(r.t, j)->lost_fault_gpu_s[1], 704 + 648 + 584, 1e-3);
	CU_ASSERT_DOUBLE_EQUAL(j->restore_s, 15, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sim_engine_counters(r.e)->slow_lost_gpu_s, 1600, 1e-6);
	tu_crun_free(&r);
}

/* A job that starts during an episode runs at its rate from the start: submitted at
 * 1100 with 300 s of work, it does 50 s by 1200 and the other 250 s by 1450. */
static void test_start_on_slow_node(void)
{
	char cfg[1024];
	slow_cfg(cfg, sizeof cfg, 1, "0.5", "", "");
	struct tu_crun r;
	srun(&r, cfg, "id,submit_s,duration_s,request\nj,1100,300,f:gpu=8\n", 1, NULL);
	const struct sim_job *j = &r.t->jobs[0];
	CU_ASSERT_EQUAL(j->state, SIM_JOB_COMPLETED);
	CU_ASSERT_EQUAL(j->end_ns, 1450 * SIM_NS_PER_S);
	CU_ASSERT_DOUBLE_EQUAL(sim_engine_counters(r.e)->slow_lost_gpu_s, 8 * 100 * 0.5, 1e-6);
	tu_crun_free(&r);
}

/* The factors drawn for nodes 0 and 1 in the episode at 1000, read from the log. */
static int logged_factors(FILE *log, double f[2])
{
	char line[512];
	int n = 0;
	rewind(log);
	while (fgets(line, sizeof line, log)) {
		double t, x;
		unsigned node;
		if (sscanf(line, "[%lf] event=node_slow flavor=f node=%u factor=%lf", &t, &node, &x) == 3 &&
		    t == 1000 && node < 2) {
			f[node] = x;
			n++;
		}
	}
	return n;
}

/* A 16-GPU gang on both nodes, each slow at a factor drawn uniformly in [0.2, 0.8]:
 * it advances at the slower one's rate fmin, so 100 + 200 fmin s of work are done
 * by 1200 and it ends at 1200 + 900 - 200 fmin. */
static void test_gang_slowest_node(void)
{
	char cfg[1024];
	slow_cfg(cfg, sizeof cfg, 2, "{'min': 0.2, 'max': 0.8}", "", "");
	FILE *log = tmpfile();
	CU_ASSERT_PTR_NOT_NULL_FATAL(log);
	struct tu_crun r;
	srun(&r, cfg, "id,submit_s,duration_s,request\nj,900,1000,f:gpu=16\n", 7, log);
	double f[2] = { 0, 0 };
	CU_ASSERT_EQUAL_FATAL(logged_factors(log, f), 2);
	CU_ASSERT(f[0] >= 0.2 && f[0] <= 0.8 && f[1] >= 0.2 && f[1] <= 0.8);
	CU_ASSERT(fabs(f[0] - f[1]) > 1e-3); /* two draws: the slower one decides */
	double fmin = f[0] < f[1] ? f[0] : f[1];
	const struct sim_job *j = &r.t->jobs[0];
	CU_ASSERT_EQUAL(j->state, SIM_JOB_COMPLETED);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(j->end_ns), 1200 + 900 - 200 * fmin, 1e-3); /* fmin logged to 6 digits */
	CU_ASSERT_DOUBLE_EQUAL(sim_engine_counters(r.e)->slow_lost_gpu_s, 16 * 200 * (1 - fmin), 1e-2);
	tu_crun_free(&r);
	fclose(log);
}

/* A crash at 350 s of running time (wall), at 1250, after the episode: by then the
 * job did 100 s of work to 1000, 100 s (200 wall s at half speed) to 1200, and 50 s
 * from 1200 to 1250: 250 s of work. Its checkpoints
 * every 100 s of work kept 200 s (progress 0.2); it loses 50 s x 8 GPUs of work,
 * and the slowness cost 8 x 200 x 0.5 GPU-s. Out of retries, it ends failed. */
static void test_stop_keeps_work_done(void)
{
	char cfg[1024];
	slow_cfg(cfg, sizeof cfg, 1, "0.5", "",
		 "'faults': {'distribution': 'fixed', 'crash_per_h': 10.285714285714286, 'max_retries': 0}");
	struct tu_crun r;
	srun(&r, cfg, "id,submit_s,duration_s,request,checkpoint_s\nj,900,1000,f:gpu=8,100\n", 1, NULL);
	const struct sim_job *j = &r.t->jobs[0];
	CU_ASSERT_EQUAL(j->state, SIM_JOB_FAILED);
	CU_ASSERT_EQUAL(j->end_ns, 1250 * SIM_NS_PER_S);
	CU_ASSERT_DOUBLE_EQUAL(j->progress, 0.2, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(sim_job_fx(r.t, j)->lost_fault_gpu_s[1], 8 * 50, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(sim_engine_counters(r.e)->slow_lost_gpu_s, 800, 1e-6);
	tu_crun_free(&r);

	/* The same stop in the middle of the episode (crash at 200 s, at 1100): 100 s
	 * at full speed and 50 s at half: 150 s of work, 100 kept, 50 x 8 lost. */
	slow_cfg(cfg, sizeof cfg, 1, "0.5", "",
		 "'faults': {'distribution': 'fixed', 'crash_per_h': 18, 'max_retries': 0}");
	srun(&r, cfg, "id,submit_s,duration_s,request,checkpoint_s\nj,900,1000,f:gpu=8,100\n", 1, NULL);
	j = &r.t->jobs[0];
	CU_ASSERT_EQUAL(j->end_ns, 1100 * SIM_NS_PER_S);
	CU_ASSERT_DOUBLE_EQUAL(j->progress, 0.1, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(sim_job_fx(r.t, j)->lost_fault_gpu_s[1], 8 * 50, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(sim_engine_counters(r.e)->slow_lost_gpu_s, 8 * 100 * 0.5, 1e-6);
	tu_crun_free(&r);
}

/* A hang during the episode (at 200 s of running time, 1100): its work stopped at
 * 100 + 100 x 0.5 = 150 s (checkpoint at 100 kept, progress 0.1); the hang loses
 * that 50 s x 8 GPUs plus the time hung, and its slowness counts to the hang only:
 * 8 x 100 x 0.5 = 400 GPU-s. Detected after 60 s: killed at 1160, 8 x (50 + 60)
 * lost. Undetected: held until its run's end as started (1900), the episode's end
 * at 1200 changing nothing: 8 x (50 + 800) lost. */
static void test_hang_while_slow(void)
{
	for (int detect = 1; detect >= 0; detect--) {
		char cfg[1024], faults[256];
		snprintf(faults, sizeof faults,
			 "'faults': {'distribution': 'fixed', 'hang_per_h': 18, 'hang_timeout_s': 60,"
			 " 'hang_detection': %s, 'max_retries': 0}",
			 detect ? "true" : "false");
		slow_cfg(cfg, sizeof cfg, 1, "0.5", "", faults);
		struct tu_crun r;
		srun(&r, cfg, "id,submit_s,duration_s,request,checkpoint_s\nj,900,1000,f:gpu=8,100\n", 1, NULL);
		const struct sim_job *j = &r.t->jobs[0];
		CU_ASSERT_EQUAL(j->state, SIM_JOB_FAILED);
		CU_ASSERT_EQUAL(j->end_ns, (detect ? 1160 : 1900) * SIM_NS_PER_S);
		CU_ASSERT_DOUBLE_EQUAL(j->progress, 0.1, 1e-12);
		CU_ASSERT_DOUBLE_EQUAL(sim_job_fx(r.t, j)->lost_fault_gpu_s[2], detect ? 8 * (50 + 60) : 8 * (50 + 800), 1e-6);
		CU_ASSERT_DOUBLE_EQUAL(sim_engine_counters(r.e)->slow_lost_gpu_s, 400, 1e-6);
		tu_crun_free(&r);
	}
}

/* Checkpoint writes and the restore advance at the node's speed too: 10 s write
 * every 100 s of work, so the segment is 1,000 + 9 x 10 = 1,090 s at full speed;
 * the episode stretches 100 s of it to 200: it ends at 900 + 1,190 = 2,090. */
static void test_overheads_slow_too(void)
{
	char cfg[1024];
	slow_cfg(cfg, sizeof cfg, 1, "0.5", "", "'checkpoint': {'overhead_s': 10, 'restore_s': 20}");
	struct tu_crun r;
	srun(&r, cfg, "id,submit_s,duration_s,request,checkpoint_s\nj,900,1000,f:gpu=8,100\n", 1, NULL);
	const struct sim_job *j = &r.t->jobs[0];
	CU_ASSERT_EQUAL(j->state, SIM_JOB_COMPLETED);
	CU_ASSERT_EQUAL(j->end_ns, 2090 * SIM_NS_PER_S);
	CU_ASSERT_DOUBLE_EQUAL(j->ckpt_overhead_s, 90, 1e-9);
	tu_crun_free(&r);
}

/* Detection 50 s into the episode (at 1050): the job did 100 + 50 x 0.5 = 125 s of
 * work, kept its checkpoint at 100 (progress 0.1), loses 25 s x 8 GPUs, and is
 * queued again (slow_migrated); the only node is out of placement until the
 * episode ends at 1200, where it restarts with 900 s left: ends at 2100. The slow
 * time it held: 8 x 50 x 0.5 = 200 GPU-s. (No restore cost here.) */
static void test_detection_migrates(void)
{
	char cfg[1024];
	slow_cfg(cfg, sizeof cfg, 1, "0.5", ", 'detection': true, 'detect_s': 50", "");
	struct tu_crun r;
	srun(&r, cfg, "id,submit_s,duration_s,request,checkpoint_s\nj,900,1000,f:gpu=8,100\n", 1, NULL);
	const struct sim_job *j = &r.t->jobs[0];
	CU_ASSERT_EQUAL(j->state, SIM_JOB_COMPLETED);
	CU_ASSERT_EQUAL(j->last_start_ns, 1200 * SIM_NS_PER_S);
	CU_ASSERT_EQUAL(j->end_ns, 2100 * SIM_NS_PER_S);
	CU_ASSERT_DOUBLE_EQUAL(j->lost_gpu_s, 8 * 25, 1e-6);
	CU_ASSERT_EQUAL(j->interruptions, 1);
	const struct sim_engine_counters *k = sim_engine_counters(r.e);
	CU_ASSERT_EQUAL(k->slow_detected, 1);
	CU_ASSERT_EQUAL(k->slow_stops, 1);
	CU_ASSERT_DOUBLE_EQUAL(k->slow_migrated_lost_gpu_s, 8 * 25, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(k->slow_lost_gpu_s, 8 * 50 * 0.5, 1e-6);
	tu_crun_free(&r);

	/* With a second flavor g at full speed (the job may run on any, "*"), it is
	 * placed on f first, migrates at 1050 and restarts on g at once, 900 s of
	 * work left (restore 20 s): it ends at 1050 + 20 + 900 = 1970. */
	snprintf(cfg, sizeof cfg,
		 "{'name': 's', 'trace': {'path': 'TRACE'}, 'cluster': {'flavors': [{'name': 'f', 'nodes': 1,"
		 " 'node': {'gpu': 8}}, {'name': 'g', 'nodes': 1, 'node': {'gpu': 8}}], 'fail_slow': {"
		 " 'distribution': 'none', 'flavors': {'f': {'distribution': 'fixed', 'mtbs_h': 0.2777777777777778,"
		 " 'factor': 0.5, 'period': {'distribution': 'fixed', 'mean_s': 200}, 'detection': true,"
		 " 'detect_s': 50}}}}, 'jobs': {'checkpoint': {'restore_s': 20}}, 'output': 'x.h5'}");
	srun(&r, cfg, "id,submit_s,duration_s,request,checkpoint_s\nj,900,1000,*:gpu=8,100\n", 1, NULL);
	j = &r.t->jobs[0];
	CU_ASSERT_EQUAL(j->state, SIM_JOB_COMPLETED);
	CU_ASSERT_EQUAL(j->alloc.flavor, 1); /* it ended on g */
	CU_ASSERT_EQUAL(j->last_start_ns, 1050 * SIM_NS_PER_S);
	CU_ASSERT_EQUAL(j->end_ns, 1970 * SIM_NS_PER_S);
	CU_ASSERT_DOUBLE_EQUAL(j->lost_gpu_s, 8 * 25, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(j->restore_s, 20, 1e-9);
	tu_crun_free(&r);
}


static char *slurp(FILE *f)
{
	long n = ftell(f);
	char *s = calloc((size_t)n + 1, 1);
	if (!s)
		return NULL;
	rewind(f);
	size_t got = fread(s, 1, (size_t)n, f);
	s[got] = 0;
	return s;
}

/* Drops the fail-slow lines (node_slow, node_full_speed) of a log, in place. */
static void drop_slow_lines(char *s)
{
	char *w = s;
	for (char *p = s; *p;) {
		char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);
		if (!tu_has_bytes(p, len, "event=node_slow") && !tu_has_bytes(p, len, "event=node_full_speed")) {
			memmove(w, p, len);
			w += len;
		}
		p += len;
	}
	*w = 0;
}

#define DET_TRACE                                                                                      \
	"id,submit_s,duration_s,request,checkpoint_s\na,0,360000,f:gpu=32,3600\nb,10,200000,f:gpu=8,600\n" \
	"c,20,90000,f:gpu=4,\nd,30,500000,g:gpu=16,1800\ne,40,100000,g:gpu=8,600\n"

static void det_cfg(char *out, size_t n, const char *slow)
{
	snprintf(out, n,
		 "{'name': 's', 'trace': {'path': 'TRACE'}, 'cluster': {'flavors': [{'name': 'f', 'nodes': 8,"
		 " 'node': {'gpu': 8}}, {'name': 'g', 'nodes': 4, 'node': {'gpu': 8}}], 'failures': {'mtbf_h': 40,"
		 " 'repair': {'distribution': 'exponential', 'mean_h': 2}}%s}, 'jobs': {'checkpoint': {'overhead_s': 30,"
		 " 'restore_s': 60}, 'faults': {'crash_per_h': 0.01}}, 'output': 'x.h5'}",
		 slow);
}

/* Same seed, same run byte for byte. Fail-slow moves no draw of another source:
 * with it on flavor g (jobs d, e), every node failure and repair of flavor f and
 * every event of f's jobs a, b, c (their crashes included) is logged exactly as in
 * the run without fail-slow. (f's jobs are ahead of g's in fifo order and all fit
 * at once, so g's slower jobs never hold them back.) */
static void test_determinism(void)
{
	char cfg[2048];
	const char *slow = ", 'fail_slow': {'distribution': 'none', 'flavors': {'g': {'mtbs_h': 20, 'factor': "
			   "{'min': 0.3, 'max': 0.9}}}}";
	FILE *log[3];
	for (int i = 0; i < 3; i++) {
		det_cfg(cfg, sizeof cfg, i < 2 ? slow : "");
		log[i] = tmpfile();
		CU_ASSERT_PTR_NOT_NULL_FATAL(log[i]);
		struct tu_crun r;
		srun(&r, cfg, DET_TRACE, 42, log[i]);
		CU_ASSERT_EQUAL(r.rc, 0);
		if (i == 0)
			CU_ASSERT(sim_engine_counters(r.e)->slow_episodes > 10);
		tu_crun_free(&r);
	}
	char *a = slurp(log[0]), *b = slurp(log[1]), *c = slurp(log[2]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT(strstr(a, "event=node_slow") != NULL);
	CU_ASSERT(strstr(a, "reason=crashed") != NULL);
	CU_ASSERT_STRING_EQUAL(a, b); /* same seed: identical */
	/* On flavor f (no fail-slow) every node failure, repair and crash is where it
	 * was: keep the lines of f's nodes and of jobs a, b, c. */
	char *keep[2] = { a, c };
	for (int i = 0; i < 2; i++) {
		drop_slow_lines(keep[i]);
		char *w = keep[i];
		for (char *p = keep[i]; *p;) {
			char *nl = strchr(p, '\n');
			size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);
			int mine = tu_has_bytes(p, len, "flavor=f ") || tu_has_bytes(p, len, "job=a ") ||
				   tu_has_bytes(p, len, "job=b ") || tu_has_bytes(p, len, "job=c ");
			if (mine) {
				memmove(w, p, len);
				w += len;
			}
			p += len;
		}
		*w = 0;
	}
	CU_ASSERT(strstr(a, "event=node_failed flavor=f") != NULL);
	CU_ASSERT(strstr(a, "job=c event=finish") != NULL);
	/* The run with slow nodes lasts longer (g's jobs end later), so f's later
	 * failures are logged there only: the shorter log is the longer one's start. */
	size_t na = strlen(a), nc = strlen(c);
	CU_ASSERT(na >= nc);
	CU_ASSERT(nc > 1000 && strncmp(a, c, nc) == 0);
	free(a);
	free(b);
	free(c);
	for (int i = 0; i < 3; i++)
		fclose(log[i]);
}

static void expect_config_error(const char *config, const char *want)
{
	tu_expect_config_error("bad_slow.json", config, want);
}

#define BAD(slow, extra)                                                                             \
	"{'name': 'b', 'trace': {'path': 't.csv'}, 'cluster': {'flavors': [{'name': 'a', 'nodes': 2,"  \
	" 'node': {'gpu': 8}}], 'fail_slow': " slow extra "}}"

static void test_bad_configs(void)
{
	expect_config_error(BAD("{'mtbs_h': 10, 'factor': 0}", ""),
			    "$.cluster.fail_slow.factor: expected a number > 0 and <= 1, got 0");
	expect_config_error(BAD("{'mtbs_h': 10, 'factor': 1.5}", ""),
			    "$.cluster.fail_slow.factor: expected a number > 0 and <= 1, got 1.5");
	expect_config_error(BAD("{'mtbs_h': 10, 'factor': {'min': 0.5, 'max': 0.2}}", ""),
			    "$.cluster.fail_slow.factor.min: expected min <= max, got 0.5 > 0.2");
	expect_config_error(BAD("{'mtbs_h': 10, 'factor': {'min': 0, 'max': 0.2}}", ""),
			    "$.cluster.fail_slow.factor.min: expected number > 0, got 0");
	expect_config_error(BAD("{'mtbs_h': -1, 'factor': 0.5}", ""),
			    "$.cluster.fail_slow.mtbs_h: expected number > 0, got -1");
	expect_config_error(BAD("{'distribution': 'fixed', 'factor': 0.5}", ""),
			    "$.cluster.fail_slow: expected \"mtbs_h\" > 0 for flavor a, got nothing");
	expect_config_error(BAD("{'mtbs_h': 10, 'factor': 0.5, 'period': {'mean_s': -5}}", ""),
			    "$.cluster.fail_slow.period.mean_s: expected number > 0, got -5");
	expect_config_error(BAD("{'mtbs_h': 10, 'factor': 0.5, 'period': {'distribution': 'weibull'}}", ""),
			    "$.cluster.fail_slow.period.distribution: expected \"log_uniform\", \"exponential\" or "
			    "\"fixed\", got \"weibull\"");
	expect_config_error(BAD("{'mtbs_h': 10, 'factor': 0.5, 'period': {'min_s': 600, 'max_s': 60}}", ""),
			    "$.cluster.fail_slow: expected \"period\" min_s <= max_s, got 600 > 60");
	expect_config_error(BAD("{'mtbs_h': 10, 'factor': 0.5, 'detect_s': -1}", ""),
			    "$.cluster.fail_slow.detect_s: expected number >= 0, got -1");
	expect_config_error(BAD("{'mtbs_h': 10, 'speed': 0.5}", ""), "$.cluster.fail_slow.speed: unknown key");
	expect_config_error(BAD("{'mtbs_h': 10, 'flavors': {'zz': {'mtbs_h': 1}}}", ""),
			    "$.cluster.fail_slow.flavors.zz: expected a flavor of $.cluster.flavors, got 'zz'");
	expect_config_error(BAD("{'mtbs_h': 10, 'detection': true}", ", 'failures': {'mtbf_h': 100}"),
			    "$.cluster.fail_slow: expected a flavor without node failures for \"detection\": true");
}

/* The command line refuses a bad fail-slow config with exit 2 and writes nothing. */
static void test_bad_config_exit_2(void)
{
	char cfg[1024], args[600], *out = NULL;
	const char *tr = tu_write_file("slow_t.csv", "id,submit_s,duration_s,request\nj,0,10,a:gpu=1\n");
	snprintf(cfg, sizeof cfg,
		 "{\"name\": \"c\", \"trace\": {\"path\": \"%s\"}, \"cluster\": {\"flavors\": [{\"name\": \"a\", "
		 "\"nodes\": 1, \"node\": {\"gpu\": 8}}], \"fail_slow\": {\"mtbs_h\": 5, \"factor\": 0}},"
		 " \"output\": \"%s/slow_bad.h5\"}",
		 tr, tu_tmpdir());
	snprintf(args, sizeof args, "run %s", tu_write_file("slow_bad.json", cfg));
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "slow_bad.json: $.cluster.fail_slow.factor: expected a number > 0"));
	char h5[600];
	snprintf(h5, sizeof h5, "%s/slow_bad.h5", tu_tmpdir());
	CU_ASSERT_FALSE(tu_exists(h5));
	free(out);
}

static CU_TestInfo slow_tests[] = {
	{ "test_half_speed_episode", test_half_speed_episode },
	{ "test_tiers_on_segment_clock", test_tiers_on_segment_clock },
	{ "test_start_on_slow_node", test_start_on_slow_node },
	{ "test_gang_slowest_node", test_gang_slowest_node },
	{ "test_stop_keeps_work_done", test_stop_keeps_work_done },
	{ "test_overheads_slow_too", test_overheads_slow_too },
	{ "test_hang_while_slow", test_hang_while_slow },
	{ "test_detection_migrates", test_detection_migrates },
	{ "test_determinism", test_determinism },
	{ "test_bad_configs", test_bad_configs },
	{ "test_bad_config_exit_2", test_bad_config_exit_2 },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo slow_suite = { "slow", NULL, NULL, NULL, NULL, slow_tests };
