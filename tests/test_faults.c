/* tests/test_faults.c: node failures, repair and spares, job crashes and hangs
 * (docs/faults.md) against hand-computed cases and closed forms. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/h5read.h"
#include "../analysis/report.h"
#include "../experiments/config.h"
#include "../policies/policy.h"
#include "../traces/native.h"
#include "testutil.h"

/* One run of variant 0 of a config (quotes ' for ", TRACE for the trace's path),
 * with a seed and an optional event log (tests/testutil.h, tu_crun_with). */
static void frun(struct tu_crun *r, const char *config, const char *trace, uint64_t seed, FILE *log)
{
	tu_crun_with(r, config, trace, &(struct tu_crun_opts){ .seed = seed, .log = log });
}

#define CFG(cluster_extra, jobs)                                                                    \
	"{'name': 'f', 'trace': {'path': 'TRACE'}, 'cluster': {'flavors': [" cluster_extra "]," \
	jobs "}, 'output': 'x.h5'}"

/* A 16-GPU gang job on 2 nodes of 8, checkpoint every 100 s of work (10 s to write,
 * 20 s to restore); both nodes fail 250 s after they come up and are repaired in
 * 50 s. Segment 1 [0, 250): checkpoints end at 110 and 220, so 30 s x 16 GPUs are
 * lost. Segments 2-4 start at 300, 600, 900: restore to +20, checkpoints at +130,
 * +240, failure at +250: 10 s x 16 lost each, 200 s of work kept. Segment 5 at
 * 1200: 20 + 200 + 10 s, done at 1430 (before the failure at 1450). Lost:
 * 480 + 3 x 160 = 960 GPU-s. */
static void test_gang_node_failure_hand(void)
{
	struct tu_crun r;
	frun(&r,
	     "{'name': 'f', 'trace': {'path': 'TRACE'}, 'cluster': {'flavors': [{'name': 'f', 'nodes': 2,"
	     " 'node': {'gpu': 8}}], 'failures': {'distribution': 'fixed', 'mtbf_h': 0.06944444444444445,"
	     " 'repair': {'distribution': 'fixed', 'mean_h': 0.013888888888888888}}},"
	     " 'jobs': {'checkpoint': {'overhead_s': 10, 'restore_s': 20}}, 'output_options': {'sample_s': 10},"
	     " 'output': 'x.h5'}",
	     "id,submit_s,duration_s,request,checkpoint_s\nj,0,1000,f:gpu=16,100\n", 1, NULL);
	const struct sim_job *j = &r.t->jobs[0];
	CU_ASSERT_EQUAL(j->state, SIM_JOB_COMPLETED);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(j->end_ns), 1430, 1e-9);
	CU_ASSERT_EQUAL(sim_job_fx(r.t, j)->fault_stops[0], 4);
	CU_ASSERT_DOUBLE_EQUAL(sim_job_fx(r.t, j)->lost_fault_gpu_s[0], 16 * 30 + 3 * 16 * 10, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(j->lost_gpu_s, 960, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(j->restore_s, 4 * 20, 1e-9);
	const struct sim_engine_counters *k = sim_engine_counters(r.e);
	CU_ASSERT_EQUAL(k->nodes_failed, 8);
	CU_ASSERT_EQUAL(k->nodes_repaired, 8);
	CU_ASSERT_EQUAL(k->fault_stops[0], 4);
	CU_ASSERT_EQUAL(k->recoveries, 4); /* each restart 50 s after its stop (the repair) */
	CU_ASSERT_DOUBLE_EQUAL(k->recover_s, 4 * 50, 1e-9);
	/* The nodes-down series: both slots down from each failure (250, 550, 850, 1150 s)
	 * for their 50 s repair, none otherwise. */
	const struct sim_timeseries *ts = sim_engine_timeseries(r.e);
	CU_ASSERT_FATAL(ts->has_nodes_down && ts->n > 0 && ts->nodes_down != NULL);
	size_t down = 0, bad = 0;
	for (size_t i = 0; i < ts->n; i++) {
		double t = ts->t_s[i];
		double want = t < 1200 && fmod(t, 300) >= 250 ? 2 : 0;
		bad += ts->nodes_down[i] != want;
		down += want > 0;
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(down >= 4 * 5); /* 5 samples (step 10 s) in each of the 4 repair windows */
	tu_crun_free(&r);
}

/* A spare pool of 1 (replacement 5 s, repair 1 h): both nodes fail 100 s after the
 * start; the first slot to fail (the job's) gets the spare at 105, the second waits
 * for its repair with the pool empty. The job (150 s, checkpoint every 50 s, free)
 * kept 100 s of work at 100 and runs its last 50 s from 105 to 155, before the
 * spare's own failure (at 205). The pool is empty with a slot waiting 100 to 155. */
static void test_spare_pool(void)
{
	struct tu_crun r;
	frun(&r,
	     "{'name': 'f', 'trace': {'path': 'TRACE'}, 'cluster': {'flavors': [{'name': 'f', 'nodes': 2,"
	     " 'node': {'gpu': 8}}], 'failures': {'distribution': 'fixed', 'mtbf_h': 0.027777777777777776,"
	     " 'spares': 1, 'replacement_s': 5, 'repair': {'mean_h': 1}}}, 'output': 'x.h5'}",
	     "id,submit_s,duration_s,request,checkpoint_s\nj,0,150,f:gpu=8,50\n", 1, NULL);
	const struct sim_job *j = &r.t->jobs[0];
	CU_ASSERT_EQUAL(j->state, SIM_JOB_COMPLETED);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(j->last_start_ns), 105, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(j->end_ns), 155, 1e-9);
	CU_ASSERT_EQUAL(sim_job_fx(r.t, j)->fault_stops[0], 1);
	CU_ASSERT_DOUBLE_EQUAL(sim_job_fx(r.t, j)->lost_fault_gpu_s[0], 0, 1e-9);
	const struct sim_engine_counters *k = sim_engine_counters(r.e);
	CU_ASSERT_EQUAL(k->nodes_failed, 2);
	CU_ASSERT_EQUAL(k->nodes_replaced, 1);
	CU_ASSERT_EQUAL(k->nodes_repaired, 0);
	CU_ASSERT_DOUBLE_EQUAL(k->pool_empty_s, 55, 1e-9);
	tu_crun_free(&r);
}

/* A hang at 250 s of running time, detected after 60 s: killed at 310, it keeps
 * its checkpoints of 100 and 200 and loses 50 s of work plus the 60 s hung, on 8
 * GPUs; no retry left, it ends failed. Without detection it holds its GPUs until
 * its run would have ended (1000 s): 50 + 750 s lost. */
static void test_hang_hand(void)
{
	static const char *const trace = "id,submit_s,duration_s,request,checkpoint_s\nj,0,1000,f:gpu=8,100\n";
	for (int detect = 1; detect >= 0; detect--) {
		char cfg[1024];
		snprintf(cfg, sizeof cfg,
			 "{'name': 'f', 'trace': {'path': 'TRACE'}, 'cluster': {'flavors': [{'name': 'f', 'nodes': 1,"
			 " 'node': {'gpu': 8}}]}, 'jobs': {'faults': {'distribution': 'fixed', 'hang_per_h': 14.4,"
			 " 'hang_timeout_s': 60, 'hang_detection': %s, 'max_retries': 0}}, 'output': 'x.h5'}",
			 detect ? "true" : "false");
		struct tu_crun r;
		frun(&r, cfg, trace, 1, NULL);
		const struct sim_job *j = &r.t->jobs[0];
		CU_ASSERT_EQUAL(j->state, SIM_JOB_FAILED);
		CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(j->end_ns), detect ? 310 : 1000, 1e-9);
		CU_ASSERT_EQUAL(sim_job_fx(r.t, j)->fault_stops[2], 1);
		CU_ASSERT_DOUBLE_EQUAL(sim_job_fx(r.t, j)->lost_fault_gpu_s[2], detect ? 8 * (50 + 60) : 8 * (50 + 750), 1e-6);
		CU_ASSERT_DOUBLE_EQUAL(j->progress, 0.2, 1e-12);
		CU_ASSERT_EQUAL(sim_engine_counters(r.e)->hangs, 1);
		CU_ASSERT_EQUAL(sim_engine_counters(r.e)->retries_exhausted, 1);
		CU_ASSERT_DOUBLE_EQUAL(sim_engine_counters(r.e)->hang_hold_s, detect ? 60 : 750, 1e-9);
		CU_ASSERT_EQUAL(sim_engine_counters(r.e)->recoveries, 0);
		tu_crun_free(&r);
	}
}

/* Crashes every 250 s of running time with max_retries 2: restarts at 250 and 500
 * from the checkpoint at 200 s of each segment; the third crash, at 750, ends it
 * failed. 50 s x 8 GPUs lost each time. A requeued job starts again at once. */
static void test_crash_retry_budget(void)
{
	struct tu_crun r;
	frun(&r,
	     "{'name': 'f', 'trace': {'path': 'TRACE'}, 'cluster': {'flavors': [{'name': 'f', 'nodes': 1,"
	     " 'node': {'gpu': 8}}]}, 'jobs': {'faults': {'distribution': 'fixed', 'crash_per_h': 14.4,"
	     " 'max_retries': 2}}, 'output': 'x.h5'}",
	     "id,submit_s,duration_s,request,checkpoint_s\nj,0,1000,f:gpu=8,100\n", 1, NULL);
	const struct sim_job *j = &r.t->jobs[0];
	CU_ASSERT_EQUAL(j->state, SIM_JOB_FAILED);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(j->end_ns), 750, 1e-9);
	CU_ASSERT_EQUAL(sim_job_fx(r.t, j)->fault_stops[1], 3);
	CU_ASSERT_DOUBLE_EQUAL(sim_job_fx(r.t, j)->lost_fault_gpu_s[1], 3 * 8 * 50, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(j->progress, 0.6, 1e-12);
	CU_ASSERT_EQUAL(sim_engine_counters(r.e)->crashes, 3);
	tu_crun_free(&r);
}

/* 200 nodes with exponential failures (MTBF 100 h) and instant repair for 1000 h:
 * each node's failures are a Poisson process, 2000 expected in all (sd 44.7). */
static void test_poisson_failure_count(void)
{
	double n_sum = 0;
	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct tu_crun r;
		frun(&r,
		     "{'name': 'f', 'trace': {'path': 'TRACE'}, 'cluster': {'flavors': [{'name': 'big', 'nodes': 200,"
		     " 'node': {'gpu': 8}}, {'name': 'small', 'nodes': 1, 'node': {'gpu': 8}}],"
		     " 'failures': {'flavors': {'big': {'mtbf_h': 100, 'repair': {'mean_h': 0}}}}}, 'output': 'x.h5'}",
		     "id,submit_s,duration_s,request\nclock,0,3600000,small:gpu=8\n", seed, NULL);
		double n = (double)sim_engine_counters(r.e)->nodes_failed, mean = 200 * 1000 / 100.0;
		fprintf(stderr, "\n  poisson seed %llu: %g failures, expected %g +- %.1f", (unsigned long long)seed, n,
			mean, sqrt(mean));
		CU_ASSERT(fabs(n - mean) <= 3 * sqrt(mean));
		CU_ASSERT_EQUAL(r.t->jobs[0].state, SIM_JOB_COMPLETED);
		n_sum += n;
		tu_crun_free(&r);
	}
	CU_ASSERT(fabs(n_sum - 6000) <= 3 * sqrt(6000.0));
}

/* One job of 1e8 s of work, checkpoint every T = 300 s (C = 1 s to write, R = 30 s
 * to restore), on a node that fails exponentially with M = 1e5 s and is back at
 * once: ETTR (work / time held) against 1 - C/T - (T/2 + R)/M. Its statistical
 * error: the loss is compound Poisson, N = held/M failures each losing
 * L = U (T + C) + R, so sd = sqrt(N E[L^2]) / held. */
static void test_ettr_first_order_model(void)
{
	const double T = 300, C = 1, R = 30, M = 1e5, W = 1e8;
	struct tu_crun r;
	frun(&r,
	     "{'name': 'f', 'trace': {'path': 'TRACE'}, 'cluster': {'flavors': [{'name': 'f', 'nodes': 1,"
	     " 'node': {'gpu': 1}}], 'failures': {'mtbf_h': 27.77777777777778, 'repair': {'mean_h': 0}}},"
	     " 'jobs': {'checkpoint': {'overhead_s': 1, 'restore_s': 30}}, 'output': 'x.h5'}",
	     "id,submit_s,duration_s,request,checkpoint_s\nj,0,100000000,f:gpu=1,300\n", 7, NULL);
	const struct sim_job *j = &r.t->jobs[0];
	CU_ASSERT_EQUAL(j->state, SIM_JOB_COMPLETED);
	double held = j->held_s, ettr = W / held, model = 1 - C / T - (T / 2 + R) / M;
	double n = held / M, el2 = (T + C) * (T + C) / 3 + (T + C) * R + R * R;
	double sd = sqrt(n * el2) / held;
	fprintf(stderr, "\n  ETTR simulated %.6f, model %.6f, sd %.6f, %u failures", ettr, model, sd,
		sim_job_fx(r.t, j)->fault_stops[0]);
	CU_ASSERT(fabs(ettr - model) <= 3 * sd);
	CU_ASSERT(fabs((double)sim_job_fx(r.t, j)->fault_stops[0] - n) <= 3 * sqrt(n));
	tu_crun_free(&r);
}

/* The node_failed lines of a log: per node, its uptimes in order. */
#define DET_NODES 20
struct uptimes {
	double v[DET_NODES][64];
	int n[DET_NODES];
};

static void read_uptimes(FILE *f, struct uptimes *u)
{
	memset(u, 0, sizeof *u);
	rewind(f);
	char line[512];
	while (fgets(line, sizeof line, f)) {
		const char *p = strstr(line, "event=node_failed");
		unsigned node;
		double up;
		if (p && sscanf(p, "event=node_failed flavor=f node=%u uptime_s=%lf", &node, &up) == 2 &&
		    node < DET_NODES && u->n[node] < 64)
			u->v[node][u->n[node]++] = up;
	}
}

static char *read_all(FILE *f)
{
	long n = ftell(f);
	char *s = calloc((size_t)n + 1, 1);
	rewind(f);
	if (s && fread(s, 1, (size_t)n, f) != (size_t)n)
		s[0] = 0;
	return s;
}

/* Same seed, same log byte for byte; another repair law moves no failure: every
 * node's k-th operating time to failure is the same (its first failure at the
 * same time). */
static void test_determinism(void)
{
	static const char *const trace = "id,submit_s,duration_s,request,checkpoint_s\n"
					 "a,0,360000,f:gpu=32,3600\nb,10,200000,f:gpu=8,600\nc,20,90000,f:gpu=4,\n"
					 "d,30,500000,f:gpu=64,1800\ne,40,100000,f:gpu=8,600\n";
	static const char *const laws[2] = { "{'distribution': 'fixed', 'mean_h': 10}",
					     "{'distribution': 'exponential', 'mean_h': 30}" };
	FILE *log[3];
	for (int i = 0; i < 3; i++) {
		char cfg[1024];
		snprintf(cfg, sizeof cfg,
			 "{'name': 'f', 'trace': {'path': 'TRACE'}, 'cluster': {'flavors': [{'name': 'f', 'nodes': 20,"
			 " 'node': {'gpu': 8}}], 'failures': {'distribution': 'weibull', 'shape': 0.8, 'scale_h': 40,"
			 " 'repair': %s}}, 'jobs': {'checkpoint': {'overhead_s': 30, 'restore_s': 60},"
			 " 'faults': {'crash_per_h': 0.01}}, 'output': 'x.h5'}",
			 laws[i == 2]);
		log[i] = tmpfile();
		CU_ASSERT_PTR_NOT_NULL_FATAL(log[i]);
		struct tu_crun r;
		frun(&r, cfg, trace, 42, log[i]);
		tu_crun_free(&r);
	}
	char *a = read_all(log[0]), *b = read_all(log[1]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT(strstr(a, "event=node_failed") != NULL);
	CU_ASSERT_STRING_EQUAL(a, b);
	free(a);
	free(b);
	struct uptimes *u0 = malloc(sizeof *u0), *u2 = malloc(sizeof *u2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(u0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(u2);
	read_uptimes(log[0], u0);
	read_uptimes(log[2], u2);
	int compared = 0;
	for (int nd = 0; nd < DET_NODES; nd++) {
		CU_ASSERT(u0->n[nd] > 0 && u2->n[nd] > 0);
		for (int k = 0; k < u0->n[nd] && k < u2->n[nd]; k++, compared++)
			CU_ASSERT_DOUBLE_EQUAL(u0->v[nd][k], u2->v[nd][k], 1e-3);
	}
	CU_ASSERT(compared > DET_NODES);
	free(u0);
	free(u2);
	for (int i = 0; i < 3; i++)
		fclose(log[i]);
}

static void expect_config_error(const char *config, const char *want)
{
	tu_expect_config_error("bad_faults.json", config, want);
}

#define BAD(failures, jobs)                                                                          \
	"{'name': 'b', 'trace': {'path': 't.csv'}, 'cluster': {'flavors': [{'name': 'a', 'nodes': 2,"  \
	" 'node': {'gpu': 8}}], 'failures': " failures "}, 'jobs': " jobs "}"

static void test_bad_fault_configs(void)
{
	expect_config_error(BAD("{'mtbf_h': -1}", "{}"), "$.cluster.failures.mtbf_h: expected number > 0, got -1");
	expect_config_error(BAD("{'distribution': 'weibull', 'shape': 0, 'scale_h': 10}", "{}"),
			    "$.cluster.failures.shape: expected number > 0, got 0");
	expect_config_error(BAD("{'distribution': 'weibull', 'scale_h': 10}", "{}"),
			    "$.cluster.failures: expected \"shape\" > 0 and \"scale_h\" > 0 for distribution weibull");
	expect_config_error(BAD("{'mtbf_h': 10, 'spares': 3}", "{}"),
			    "$.cluster.failures: expected spares <= 2 (the nodes of flavor a), got 3");
	expect_config_error(BAD("{'flavors': {'zz': {'mtbf_h': 10}}}", "{}"),
			    "$.cluster.failures.flavors.zz: expected a flavor of $.cluster.flavors, got 'zz'");
	expect_config_error(BAD("{'mtbf_h': 10, 'repair': {'distribution': 'lognormal'}}", "{}"),
			    "$.cluster.failures.repair.distribution: expected \"fixed\" or \"exponential\", got \"lognormal\"");
	expect_config_error(BAD("{'mtbf_h': 10, 'repair': {'mean_h': -2}}", "{}"),
			    "$.cluster.failures.repair.mean_h: expected number >= 0, got -2");
	expect_config_error(BAD("{}", "{'faults': {'crash_per_h': -1}}"),
			    "$.jobs.faults.crash_per_h: expected number >= 0, got -1");
	expect_config_error(BAD("{}", "{'faults': {'hang_timeout_s': 0}}"),
			    "$.jobs.faults.hang_timeout_s: expected number > 0, got 0");
	expect_config_error(BAD("{}", "{'faults': {'max_retries': 1.5}}"),
			    "$.jobs.faults.max_retries: expected integer >= 0, got 1.5");
	expect_config_error(BAD("{'mtbf_h': 10, 'colour': 1}", "{}"), "$.cluster.failures.colour: unknown key");
	expect_config_error("{'name': 'b', 'trace': {'path': 't.csv'}, 'cluster': {'flavors': [{'name': 'a',"
			    " 'nodes': 2, 'node': {'gpu': 8}, 'stockout': {'in_stock_mean_s': 10, "
			    "'out_of_stock_mean_s': 10}}], 'failures': {'mtbf_h': 10}}}",
			    "$.cluster.failures: expected a flavor without capacity events, stock-outs or reservations");
	expect_config_error("{'name': 'b', 'trace': {'path': 't.csv'}, 'cluster': {'flavors': [{'name': 'a',"
			    " 'nodes': 2, 'node': {'gpu': 8}, 'flex': {'provisioning': {'mean_s': 10}}}],"
			    " 'failures': {'mtbf_h': 10}}}",
			    "$.cluster.failures: expected a flavor without flex (flavor a has it");
}

/* The command line refuses a bad fault config with exit 2 and writes nothing. */
static void test_bad_fault_config_exit_2(void)
{
	char cfg[1024], args[600], *out = NULL;
	const char *tr = tu_write_file("faults_t.csv", "id,submit_s,duration_s,request\nj,0,10,a:gpu=1\n");
	snprintf(cfg, sizeof cfg,
		 "{\"name\": \"c\", \"trace\": {\"path\": \"%s\"}, \"cluster\": {\"flavors\": [{\"name\": \"a\", "
		 "\"nodes\": 1, \"node\": {\"gpu\": 8}}], \"failures\": {\"distribution\": \"weibull\", \"shape\": 0,"
		 " \"scale_h\": 5}}, \"output\": \"%s/faults_bad.h5\"}",
		 tr, tu_tmpdir());
	snprintf(args, sizeof args, "run %s", tu_write_file("faults_bad.json", cfg));
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "faults_bad.json: $.cluster.failures.shape: expected number > 0, got 0"));
	char h5[600];
	snprintf(h5, sizeof h5, "%s/faults_bad.h5", tu_tmpdir());
	CU_ASSERT_FALSE(tu_exists(h5));
	free(out);
}

/* A run that never ends: a job of 1e9 s without checkpoints on a node that fails
 * every 7.2e8 s of operating time (fixed law, repaired at once) restarts forever.
 * The clock reaches its int64 limit after 12 failures (8.64e9 s): the run is
 * refused with a message that says why, exit 2, and nothing written. */
static void test_never_ending_run_refused(void)
{
	char cfg[1024], args[600], *out = NULL;
	const char *tr = tu_write_file("faults_inf.csv", "id,submit_s,duration_s,request\nk,0,1000000000,a:gpu=8\n");
	snprintf(cfg, sizeof cfg,
		 "{\"name\": \"c\", \"trace\": {\"path\": \"%s\"}, \"cluster\": {\"flavors\": [{\"name\": \"a\", "
		 "\"nodes\": 1, \"node\": {\"gpu\": 8}}], \"failures\": {\"distribution\": \"fixed\", \"mtbf_h\": 200000,"
		 " \"repair\": {\"distribution\": \"fixed\", \"mean_h\": 0}}}, \"output\": \"%s/faults_inf.h5\"}",
		 tr, tu_tmpdir());
	snprintf(args, sizeof args, "run %s", tu_write_file("faults_inf.json", cfg));
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "the simulated clock would pass its limit (about 292 years) after "
						    "8640000000 s: some job never finishes"));
	char h5[600];
	snprintf(h5, sizeof h5, "%s/faults_inf.h5", tu_tmpdir());
	CU_ASSERT_FALSE(tu_exists(h5));
	free(out);
}

/* A restart keeps its place in the queue: a (submit 0) crashes at 250 s of each
 * segment and is queued again ahead of b and c (submitted at 10 and 20, waiting
 * for the one node); it restarts at once, crashes again at 500 and, out of
 * retries (max 1), ends failed; b then starts at 500, c at 600. */
static void test_restart_keeps_place(void)
{
	struct tu_crun r;
	frun(&r,
	     "{'name': 'f', 'trace': {'path': 'TRACE'}, 'cluster': {'flavors': [{'name': 'f', 'nodes': 1,"
	     " 'node': {'gpu': 8}}]}, 'jobs': {'faults': {'distribution': 'fixed', 'crash_per_h': 14.4,"
	     " 'max_retries': 1}}, 'output': 'x.h5'}",
	     "id,submit_s,duration_s,request,checkpoint_s\na,0,1000,f:gpu=8,100\nb,10,100,f:gpu=8,\n"
	     "c,20,100,f:gpu=8,\n",
	     1, NULL);
	CU_ASSERT_EQUAL(r.t->jobs[0].state, SIM_JOB_FAILED);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(r.t->jobs[0].last_start_ns), 250, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(r.t->jobs[0].end_ns), 500, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(r.t->jobs[1].start_ns), 500, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(r.t->jobs[2].start_ns), 600, 1e-9);
	CU_ASSERT_EQUAL(r.t->jobs[1].state, SIM_JOB_COMPLETED);
	tu_crun_free(&r);
}

/* Young's interval sqrt(2 C M) is the argmax of the simulated ETTR curve within one
 * sweep step: one node (1 GPU) failing with M = 11,135 s (Llama 3's rate for the
 * whole job), C = 60 s, 5e7 s of work (about 4,500 failures), every interval on the
 * same failures (seed 3: the draws are keyed by node and failure index). Young:
 * 1,156 s. */
static void test_young_argmax(void)
{
	static const double steps[] = { 600, 800, 950, 1050, 1156, 1250, 1400, 1700, 2100 };
	const size_t n = sizeof steps / sizeof steps[0];
	size_t best = 0;
	double best_ettr = 0;
	for (size_t i = 0; i < n; i++) {
		char trace[256];
		snprintf(trace, sizeof trace, "id,submit_s,duration_s,request,checkpoint_s\nj,0,50000000,f:gpu=1,%.0f\n",
			 steps[i]);
		struct tu_crun r;
		frun(&r,
		     "{'name': 'f', 'trace': {'path': 'TRACE'}, 'cluster': {'flavors': [{'name': 'f', 'nodes': 1,"
		     " 'node': {'gpu': 1}}], 'failures': {'mtbf_h': 3.0930787589498806, 'repair': {'mean_h': 0}}},"
		     " 'jobs': {'checkpoint': {'overhead_s': 60}}, 'output': 'x.h5'}",
		     trace, 3, NULL);
		double ettr = 5e7 / r.t->jobs[0].held_s;
		if (ettr > best_ettr) {
			best_ettr = ettr;
			best = i;
		}
		tu_crun_free(&r);
	}
	fprintf(stderr, "\n  Young 1156 s, simulated argmax %.0f s (ETTR %.4f)", steps[best], best_ettr);
	CU_ASSERT(best >= 3 && best <= 5); /* 1156 is steps[4]: one step either side */
}

/* A run with faults into HDF5: the summary's fault fields and the per-job faults
 * table agree; a run without faults has no faults table and an ETTR of 1. */

/* `plot`'s ETTR by job size (faults_ettr_size): the row of each size range the
 * trace's jobs fall in (16 GPUs: "9-16"; 8 GPUs: "5-8") holds sum(GPUs x useful_s) /
 * sum(GPUs x held_s) over that range's jobs, from the faults and jobs tables. */
static void check_plot_ettr_size(const struct h5read_file *f, const char *run, int faults)
{
	char dat[1200];
	snprintf(dat, sizeof dat, "%s/faults_plot%d/faults_ettr_size.dat", tu_tmpdir(), faults);
	char *text = tu_read_file(dat, NULL);
	CU_ASSERT_EQUAL(text != NULL, faults);
	if (!text)
		return;
	struct sim_diag d;
	sim_diag_init(&d, 10);
	struct h5read_table t;
	struct h5read_jobs j;
	CU_ASSERT_EQUAL_FATAL(h5read_faults(f, run, &t, &d), 0);
	CU_ASSERT_EQUAL_FATAL(h5read_jobs(f, run, &j, &d), 0);
	const char *labels[] = { "\"5-8\"", "\"9-16\"" };
	const double lo[] = { 5, 9 }, hi[] = { 8, 16 };
	for (int b = 0; b < 2; b++) {
		double num = 0, den = 0, got = NAN;
		for (size_t i = 0; i < j.n; i++)
			if (j.alloc_gpus[i] >= lo[b] && j.alloc_gpus[i] <= hi[b] && h5read_table_get(&t, i, "held_s") > 0) {
				num += j.alloc_gpus[i] * h5read_table_get(&t, i, "useful_s");
				den += j.alloc_gpus[i] * h5read_table_get(&t, i, "held_s");
			}
		const char *row = strstr(text, labels[b]);
		CU_ASSERT_FATAL(row != NULL && den > 0);
		CU_ASSERT_EQUAL(sscanf(row + strlen(labels[b]), "%lf", &got), 1);
		CU_ASSERT_DOUBLE_EQUAL(got, num / den, 1e-8);
		CU_ASSERT(got > 0 && got < 1); /* the faults cost these jobs work */
	}
	h5read_jobs_free(&j);
	h5read_table_free(&t);
	sim_diag_fini(&d);
	free(text);
}

/* `plot`'s lost-by-cause bars (faults_lost): drawn only for a file with a fault
 * model; its one variant's row holds the run's summary fields in GPU-hours (the
 * rest of lost_gpu_s as preemptions). Skipped without gnuplot. */
static void check_plot_faults(const char *h5, const struct h5read_file *f, const struct h5read_summary *sm,
			      int faults)
{
	if (system("command -v gnuplot >/dev/null 2>&1") != 0)
		return;
	char args[1200], dat[1200], *out = NULL;
	snprintf(args, sizeof args, "plot %s -o %s/faults_plot%d -q", h5, tu_tmpdir(), faults);
	CU_ASSERT_EQUAL_FATAL(tu_run_gpusched(args, &out), 0);
	free(out);
	snprintf(dat, sizeof dat, "%s/faults_plot%d/faults_lost.dat", tu_tmpdir(), faults);
	char *text = tu_read_file(dat, NULL);
	CU_ASSERT_EQUAL(text != NULL, faults);
	if (text) {
		const char *row = strstr(text, "(1 run)\"");
		double v[5];
		CU_ASSERT_FATAL(row != NULL);
		CU_ASSERT_EQUAL(sscanf(row + strlen("(1 run)\""), "%lf %lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3], &v[4]),
				5);
#define SM(field) h5read_summary_get(sm, 0, field)
		CU_ASSERT_DOUBLE_EQUAL(v[0], SM("lost_node_failed_gpu_s") / 3600, 1e-6);
		CU_ASSERT_DOUBLE_EQUAL(v[1], SM("lost_crashed_gpu_s") / 3600, 1e-6);
		CU_ASSERT_DOUBLE_EQUAL(v[2], SM("lost_hang_gpu_s") / 3600, 1e-6);
		CU_ASSERT_DOUBLE_EQUAL(v[3], SM("lost_loss_spike_gpu_s") / 3600, 1e-6);
		double other = SM("lost_gpu_s") - SM("lost_node_failed_gpu_s") - SM("lost_crashed_gpu_s") -
			       SM("lost_hang_gpu_s") - SM("lost_loss_spike_gpu_s");
		CU_ASSERT_DOUBLE_EQUAL(v[4], (other > 1e-6 ? other : 0) / 3600, 1e-6);
		CU_ASSERT(v[0] > 0);
#undef SM
	}
	free(text);
	check_plot_ettr_size(f, sm->run[0], faults);
	snprintf(dat, sizeof dat, "%s/faults_plot%d/nodes_down.dat", tu_tmpdir(), faults);
	char *nd = tu_read_file(dat, NULL);
	CU_ASSERT_EQUAL(nd != NULL, faults); /* drawn only for a run with node failures */
	CU_ASSERT(!nd || strstr(nd, "\"fifo\"\n"));
	free(nd);
}

/* `export --table faults`: one row a job of a run with a fault model (the trace's 3
 * jobs: a header and 3 rows), every field of the table; only the key header when no
 * run has the table. */
static void check_export_faults(const char *h5, int faults)
{
	char args[1200], *out = NULL;
	snprintf(args, sizeof args, "export %s --table faults", h5);
	CU_ASSERT_EQUAL_FATAL(tu_run_gpusched(args, &out), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	int lines = 0;
	for (const char *p = out; (p = strchr(p, '\n')); p++)
		lines++;
	if (faults) {
		static const char head[] = "run,variant,seed,id,stops_node_failed,stops_crashed,stops_hang,";
		CU_ASSERT(strncmp(out, head, sizeof head - 1) == 0);
		CU_ASSERT(strstr(out, ",useful_s,held_s,ettr\n") != NULL);
	} else {
		CU_ASSERT_STRING_EQUAL(out, "run,variant,seed\n"); /* the keys: no run has the table */
	}
	CU_ASSERT_EQUAL(lines, faults ? 4 : 1);
	free(out);
}

/* `report`'s fault table: present only for a run with a fault model, one row a run
 * whose cells are the summary's own fields (stops and GPU-hours lost by cause, the
 * rest of lost_gpu_s as preemptions, ETTR, mean time to recover). */
static void check_report_faults(const struct h5read_file *f, const struct h5read_summary *sm, int faults)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	struct sim_diag d;
	sim_diag_init(&d, 10);
	CU_ASSERT_EQUAL_FATAL(report_table(f, NULL, m, &d), 0);
	fclose(m);
	const char *tab = strstr(text, "\nfaults: stops and lost GPU-hours by cause");
	CU_ASSERT_EQUAL(tab != NULL, faults);
	if (tab && faults) {
		const char *row = strstr(tab, sm->run[0]);
		CU_ASSERT_FATAL(row != NULL);
		double v[14];
		char name[64];
		int got = sscanf(row, "%63s %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", name, &v[0],
				 &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10], &v[11], &v[12],
				 &v[13]);
		CU_ASSERT_EQUAL(got, 15);
#define SM(field) h5read_summary_get(sm, 0, field)
		CU_ASSERT_DOUBLE_EQUAL(v[0], SM("stops_node_failed"), 0);
		CU_ASSERT_DOUBLE_EQUAL(v[1], SM("stops_crashed"), 0);
		CU_ASSERT_DOUBLE_EQUAL(v[2], SM("stops_hang"), 0);
		CU_ASSERT_DOUBLE_EQUAL(v[3], SM("stops_loss_spike"), 0);
		CU_ASSERT_DOUBLE_EQUAL(v[4], SM("preemptions") + SM("interruptions"), 0);
		CU_ASSERT_DOUBLE_EQUAL(v[5], SM("lost_node_failed_gpu_s") / 3600, 0.05);
		CU_ASSERT_DOUBLE_EQUAL(v[6], SM("lost_crashed_gpu_s") / 3600, 0.05);
		CU_ASSERT_DOUBLE_EQUAL(v[7], SM("lost_hang_gpu_s") / 3600, 0.05);
		CU_ASSERT_DOUBLE_EQUAL(v[8], SM("lost_loss_spike_gpu_s") / 3600, 0.05);
		double other = SM("lost_gpu_s") - SM("lost_node_failed_gpu_s") - SM("lost_crashed_gpu_s") -
			       SM("lost_hang_gpu_s") - SM("lost_loss_spike_gpu_s");
		CU_ASSERT_DOUBLE_EQUAL(v[9], (other > 0 ? other : 0) / 3600, 0.05);
		CU_ASSERT_DOUBLE_EQUAL(v[10], SM("nodes_failed"), 0);
		CU_ASSERT_DOUBLE_EQUAL(v[11], SM("ettr"), 5e-5);
		CU_ASSERT_DOUBLE_EQUAL(v[12], SM("time_to_recover_s") / SM("fault_restarts"), 0.05);
		CU_ASSERT_DOUBLE_EQUAL(v[13], SM("retries_exhausted"), 0);
		CU_ASSERT(v[0] + v[1] + v[2] > 0); /* the run did stop jobs for faults */
#undef SM
	}
	free(text);
	sim_diag_fini(&d);
}

static void test_results_file(void)
{
	char cfg[2048], out[600];
	const char *tr = tu_write_file("faults_e2e.csv", "id,submit_s,duration_s,request,checkpoint_s\n"
							 "a,0,200000,f:gpu=16,3600\nb,0,100000,f:gpu=8,1800\n"
							 "c,100,50000,f:gpu=8,\n");
	for (int faults = 1; faults >= 0; faults--) {
		snprintf(out, sizeof out, "%s/faults_e2e%d.h5", tu_tmpdir(), faults);
		snprintf(cfg, sizeof cfg,
			 "{\"name\": \"e\", \"trace\": {\"path\": \"%s\"}, \"cluster\": {\"flavors\": [{\"name\": "
			 "\"f\", \"nodes\": 4, \"node\": {\"gpu\": 8}}]%s}, \"jobs\": {\"checkpoint\": "
			 "{\"overhead_s\": 20, \"restore_s\": 60}%s}, \"seeds\": [3], \"output\": \"%s\"}",
			 tr,
			 faults ? ", \"failures\": {\"mtbf_h\": 20, \"repair\": {\"distribution\": "
				  "\"exponential\", \"mean_h\": 2}, \"spares\": 1, \"replacement_s\": 600}"
				: "",
			 faults ? ", \"faults\": {\"crash_per_h\": 0.02, \"hang_per_h\": 0.02, \"hang_timeout_s\": 900}"
				: "",
			 out);
		CU_ASSERT_EQUAL_FATAL(tu_run_config(tu_write_file("faults_e2e.json", cfg), out, NULL), 0);
		struct sim_diag d;
		sim_diag_init(&d, 10);
		struct h5read_file *f = NULL;
		CU_ASSERT_EQUAL_FATAL(h5read_open(out, &f, &d), 0);
		struct h5read_summary sm;
		CU_ASSERT_EQUAL_FATAL(h5read_summary(f, &sm, &d), 0);
		struct h5read_table t;
		CU_ASSERT_EQUAL_FATAL(h5read_faults(f, sm.run[0], &t, &d), 0);
		double ettr = h5read_summary_get(&sm, 0, "ettr");
		if (faults) {
			CU_ASSERT(h5read_summary_get(&sm, 0, "nodes_failed") > 0);
			CU_ASSERT(ettr > 0 && ettr < 1);
			CU_ASSERT(h5read_summary_get(&sm, 0, "fault_restarts") > 0);
			CU_ASSERT(h5read_summary_get(&sm, 0, "time_to_recover_s") > 0);
			CU_ASSERT_EQUAL(t.present, 1);
			CU_ASSERT_EQUAL(t.n_rows, 3);
			double lost = 0;
			for (size_t i = 0; i < t.n_rows; i++)
				lost += h5read_table_get(&t, i, "lost_node_failed_gpu_s");
			CU_ASSERT_DOUBLE_EQUAL(lost, h5read_summary_get(&sm, 0, "lost_node_failed_gpu_s"), 1e-6);
			fprintf(stderr, "\n  e2e: %g node failures, ETTR %.4f, lost %.0f GPU-s to failures",
				h5read_summary_get(&sm, 0, "nodes_failed"), ettr, lost);
		} else {
			CU_ASSERT_EQUAL(t.present, 0);
			CU_ASSERT_DOUBLE_EQUAL(h5read_summary_get(&sm, 0, "nodes_failed"), 0, 0);
			CU_ASSERT_DOUBLE_EQUAL(h5read_summary_get(&sm, 0, "fault_restarts"), 0, 0);
			/* no stop: held time = work + checkpoint overheads */
			CU_ASSERT(ettr > 0.99 && ettr < 1);
		}
		struct h5read_timeseries ts;
		CU_ASSERT_EQUAL_FATAL(h5read_timeseries(f, sm.run[0], &ts, &d), 0);
		CU_ASSERT_EQUAL(ts.nodes_down != NULL, faults); /* only a run with node failures */
		double most = 0;
		for (size_t i = 0; ts.nodes_down && i < ts.n; i++)
			most = ts.nodes_down[i] > most ? ts.nodes_down[i] : most;
		CU_ASSERT(!faults || (most >= 1 && most <= 4)); /* some were down, never more than the 4 nodes */
		h5read_timeseries_free(&ts);
		check_report_faults(f, &sm, faults);
		check_export_faults(out, faults);
		check_plot_faults(out, f, &sm, faults);
		h5read_table_free(&t);
		h5read_summary_free(&sm);
		h5read_close(f);
		sim_diag_fini(&d);
	}
}

static CU_TestInfo faults_tests[] = {
	{ "test_results_file", test_results_file },
	{ "test_gang_node_failure_hand", test_gang_node_failure_hand },
	{ "test_spare_pool", test_spare_pool },
	{ "test_hang_hand", test_hang_hand },
	{ "test_crash_retry_budget", test_crash_retry_budget },
	{ "test_restart_keeps_place", test_restart_keeps_place },
	{ "test_poisson_failure_count", test_poisson_failure_count },
	{ "test_ettr_first_order_model", test_ettr_first_order_model },
	{ "test_young_argmax", test_young_argmax },
	{ "test_determinism", test_determinism },
	{ "test_bad_fault_configs", test_bad_fault_configs },
	{ "test_bad_fault_config_exit_2", test_bad_fault_config_exit_2 },
	{ "test_never_ending_run_refused", test_never_ending_run_refused },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo faults_suite = { "faults", NULL, NULL, NULL, NULL, faults_tests };
