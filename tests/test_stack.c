/* tests/test_stack.c: the policy stack as a whole. Every combination of one order,
 * quota, preemption and fallback policy of the registry (none included where a
 * family allows it) goes through the stack validator as a config loads:
 *   - refused: the run fails as bad input, with a message that names a
 *     $.policies key of the config, and writes nothing;
 *   - accepted: the run's event log is replayed against the cluster (no node ever
 *     holds more GPUs than it has), every job ends (none left queued or running),
 *     and a second run gives the same log, byte for byte.
 * The workload: two flavors (a: 2 nodes of 8 GPUs, b: 1 node of 8 at speed 0.5),
 * three queues, priorities, estimates, checkpoints and pending limits, half the
 * jobs with a two-option preference list, under a quota tree where q2 only borrows.
 */
#include <CUnit/CUnit.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/h5read.h"
#include "../experiments/config.h"
#include "../experiments/runner.h"
#include "../policies/policy.h"
#include "testutil.h"

#define N_JOBS 60
#define NODE_GPUS 8
#define N_NODES 3 /* a0, a1, b0 */

static int init_stack(void) { return 0; }
static int clean_stack(void) { return 0; }

/* GPUs each job asks for, by trace row (every option asks the same). */
static int job_gpus[N_JOBS];

static const char *write_trace(void)
{
	static char text[N_JOBS * 96 + 128];
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 20261201);
	char *o = text;
	o += sprintf(o, "id,submit_s,duration_s,queue,priority,request,prefs,estimate_s,checkpoint_s,max_pending_s\n");
	double now = 0;
	static const int sizes[] = { 1, 2, 2, 4, 4, 8, 16 };
	for (int i = 0; i < N_JOBS; i++) {
		now += floor(gsl_ran_exponential(r, 40));
		int g = sizes[gsl_rng_uniform_int(r, sizeof sizes / sizeof sizes[0])];
		int two = g <= NODE_GPUS && gsl_rng_uniform(r) < 0.5;
		int dur = 30 + (int)gsl_rng_uniform_int(r, 400);
		char req[48];
		snprintf(req, sizeof req, "%s:gpu=%d,%s", two ? "*" : "a", g, two ? "a;b" : "");
		job_gpus[i] = g;
		o += sprintf(o, "j%d,%.0f,%d,q%d,%d,%s,%d,%s,%s\n", i, now, dur, (int)gsl_rng_uniform_int(r, 3),
			     (int)gsl_rng_uniform_int(r, 3), req, dur + (int)gsl_rng_uniform_int(r, 100),
			     gsl_rng_uniform(r) < 0.3 ? "50" : "", gsl_rng_uniform(r) < 0.1 ? "300" : "");
	}
	gsl_rng_free(r);
	static char path[512]; /* tu_write_file's buffer is reused by the next call */
	snprintf(path, sizeof path, "%s", tu_write_file("stack.csv", text));
	return path;
}

static const char *quota_json(const char *quota)
{
	if (strcmp(quota, "none") == 0)
		return "\"none\"";
	static char buf[512];
	snprintf(buf, sizeof buf,
		 "{\"name\": \"%s\", \"cohorts\": [{\"name\": \"co\", \"parent\": null}], \"queues\": ["
		 "{\"name\": \"q0\", \"cohort\": \"co\", \"quota\": {\"a\": {\"gpu\": {\"nominal\": 8}}, \"b\": {\"gpu\": "
		 "{\"nominal\": 4}}}},"
		 "{\"name\": \"q1\", \"cohort\": \"co\", \"quota\": {\"a\": {\"gpu\": {\"nominal\": 8}}, \"b\": {\"gpu\": "
		 "{\"nominal\": 4}}}}], \"unlisted_queues\": {\"cohort\": \"co\"}}",
		 quota);
	return buf;
}

static const char *write_config(const char *trace, const char *order, const char *quota, const char *preempt,
				const char *fallback)
{
	static char cfg[2048];
	snprintf(cfg, sizeof cfg,
		 "{\"name\": \"stack\", \"trace\": {\"path\": \"%s\"},"
		 " \"cluster\": {\"flavors\": [{\"name\": \"a\", \"nodes\": 2, \"node\": {\"gpu\": 8}},"
		 "                          {\"name\": \"b\", \"nodes\": 1, \"node\": {\"gpu\": 8}, \"speed\": 0.5}]},"
		 " \"policies\": {\"order\": \"%s\", \"quota\": %s, \"preemption\": \"%s\", \"fallback\": \"%s\"},"
		 " \"jobs\": {\"checkpoint\": {\"overhead_s\": 1, \"restore_s\": 5}},"
		 " \"output\": \"stack.h5\"}",
		 trace, order, quota_json(quota), preempt, fallback);
	return tu_write_file("stack.json", cfg);
}

/* GPUs a job holds on each node it lists: its request on one node, 8 a node when
 * it takes whole nodes. */
static int gpus_per_node(int job)
{
	return job_gpus[job] <= NODE_GPUS ? job_gpus[job] : NODE_GPUS;
}

/* Replays the log: node loads never above NODE_GPUS; returns the violations. */
static int replay_log(const char *log)
{
	int load[N_NODES] = { 0 }, held[N_JOBS][N_NODES], bad = 0;
	memset(held, 0, sizeof held);
	for (const char *l = log; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		int job;
		const char *jp = strstr(l, "job=j"), *ev = strstr(l, "event=");
		const char *eol = strchr(l, '\n');
		if (!jp || !ev || (eol && jp > eol) || sscanf(jp, "job=j%d", &job) != 1 || job < 0 || job >= N_JOBS)
			continue;
		if (strncmp(ev, "event=start", 11) == 0) {
			const char *p = strstr(ev, " node");
			if (!p || (eol && p > eol)) {
				bad++;
				continue;
			}
			/* Nodes are numbered within their flavor: b's first node follows a's two. */
			const char *fl = strstr(ev, "flavor=");
			int base = fl && fl[7] == 'b' ? 2 : 0;
			p = strchr(p, '=') + 1; /* "node=N" or "nodes=N1,N2,..." */
			for (;;) {
				int node = base + atoi(p);
				if (node < 0 || node >= N_NODES) {
					bad++;
					break;
				}
				held[job][node] += gpus_per_node(job);
				load[node] += gpus_per_node(job);
				bad += load[node] > NODE_GPUS;
				p += strspn(p, "0123456789");
				if (*p != ',')
					break;
				p++;
			}
		} else if (strncmp(ev, "event=finish", 12) == 0 || strncmp(ev, "event=preempt", 13) == 0 ||
			   strncmp(ev, "event=interrupt", 15) == 0 || strncmp(ev, "event=failed", 12) == 0) {
			for (int n = 0; n < N_NODES; n++) {
				load[n] -= held[job][n];
				held[job][n] = 0;
			}
		}
	}
	for (int n = 0; n < N_NODES; n++)
		bad += load[n] != 0; /* every job let go of its nodes */
	return bad;
}

/* Jobs the file says did not end (final_state unfinished, or no such table). */
static int unfinished_jobs(const char *h5)
{
	struct sim_diag d;
	sim_diag_init(&d, 5);
	struct h5read_file *f = NULL;
	int left = -1;
	if (h5read_open(h5, &f, &d) == 0 && h5read_n_runs(f) == 1) {
		struct h5read_jobs j;
		if (h5read_jobs(f, h5read_run_name(f, 0), &j, &d) == 0) {
			left = j.n == N_JOBS ? 0 : N_JOBS;
			for (size_t i = 0; i < j.n; i++)
				left += strcmp(j.state[i], "unfinished") == 0;
			h5read_jobs_free(&j);
		}
	}
	h5read_close(f);
	sim_diag_fini(&d);
	return left;
}

/* One run of the config in this process; its log's text (malloc'd) or NULL when
 * the run failed, with rc and the messages in diag. */
static char *run_once(const char *cfg_path, const char *out, int *rc, struct sim_diag *d)
{
	struct exp_config *cfg = NULL;
	*rc = exp_config_load(cfg_path, &cfg, d);
	if (*rc)
		return NULL;
	const char *log = tu_tmp_path("stack.log");
	struct exp_run_opts opts = { .output = out, .quiet = 1, .log_path = log };
	*rc = exp_run_config(cfg, &opts, d);
	exp_config_destroy(cfg);
	return *rc ? NULL : tu_read_file(log, NULL);
}

struct matrix_counts {
	int accepted, refused;
};

static void check_one(const char *trace, const char *order, const char *quota, const char *preempt,
		      const char *fallback, struct matrix_counts *mc)
{
	const char *cfg = write_config(trace, order, quota, preempt, fallback);
	char out[512];
	snprintf(out, sizeof out, "%s", tu_tmp_path("stack.h5"));
	remove(out);
	struct sim_diag d;
	sim_diag_init(&d, 10);
	if (getenv("STACK_DEBUG"))
		d.echo = stderr;
	int rc;
	char *log1 = run_once(cfg, out, &rc, &d);
	if (!log1) {
		/* Refused: bad input, located at a policy key, nothing written. */
		mc->refused++;
		int located = sim_diag_contains(&d, "$.policies.");
		if (rc != -SIM_EPARSE && rc != -SIM_EINVAL)
			fprintf(stderr, "%s/%s/%s/%s: rc %d\n", order, quota, preempt, fallback, rc);
		CU_ASSERT(rc == -SIM_EPARSE || rc == -SIM_EINVAL);
		CU_ASSERT(located);
		CU_ASSERT(!tu_exists(out));
		sim_diag_fini(&d);
		return;
	}
	mc->accepted++;
	int over = replay_log(log1), left = unfinished_jobs(out);
	if (over || left)
		fprintf(stderr, "%s/%s/%s/%s: %d over-allocations, %d jobs not ended\n", order, quota, preempt,
			fallback, over, left);
	CU_ASSERT_EQUAL(over, 0);
	CU_ASSERT_EQUAL(left, 0);
	remove(out);
	char *log2 = run_once(cfg, out, &rc, &d);
	CU_ASSERT_PTR_NOT_NULL(log2);
	CU_ASSERT(log2 && strcmp(log1, log2) == 0); /* deterministic */
	free(log1);
	free(log2);
	remove(out);
	sim_diag_fini(&d);
}

/* The names of a family in the registry, with "none" first where it exists. */
static size_t family_names(enum sim_policy_family fam, const char **names, size_t cap)
{
	size_t n = 0;
	if (sim_policy_is_none(fam, "none"))
		names[n++] = "none";
	const struct sim_policy_ops *const *all = sim_policy_all();
	for (size_t i = 0; all[i] && n < cap; i++)
		if (all[i]->family == fam)
			names[n++] = all[i]->name;
	return n;
}

static void test_stack_every_combination(void)
{
	const char *trace = write_trace();
	const char *fam[SIM_FAM_COUNT_][32];
	size_t n[SIM_FAM_COUNT_];
	for (int f = 0; f < SIM_FAM_COUNT_; f++)
		n[f] = family_names((enum sim_policy_family)f, fam[f], 32);
	struct matrix_counts mc = { 0, 0 };
	for (size_t o = 0; o < n[SIM_FAM_ORDER]; o++)
		for (size_t q = 0; q < n[SIM_FAM_QUOTA]; q++)
			for (size_t p = 0; p < n[SIM_FAM_PREEMPT]; p++)
				for (size_t b = 0; b < n[SIM_FAM_FALLBACK]; b++)
					check_one(trace, fam[SIM_FAM_ORDER][o], fam[SIM_FAM_QUOTA][q],
						  fam[SIM_FAM_PREEMPT][p], fam[SIM_FAM_FALLBACK][b], &mc);
	/* Both sides of the validator are exercised: fifo alone runs, and classical
	 * without a quota policy is refused. */
	CU_ASSERT(mc.accepted > 0);
	CU_ASSERT(mc.refused > 0);
	fprintf(stderr, "(%d combinations accepted, %d refused) ", mc.accepted, mc.refused);
}

/* A refusal through the command line: exit 2, the located message, no file. */
static void test_stack_refusal_exit_code(void)
{
	const char *trace = write_trace();
	const char *cfg = write_config(trace, "easy_backfill", "cohort", "classical", "strict");
	char args[1024], *out = NULL;
	snprintf(args, sizeof args, "run %s -o %s", cfg, tu_tmp_path("refused.h5"));
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "$.policies.order: expected one of "));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "with quota cohort (the quota cycle orders each queue by the order "
					   "policy's key), got \"easy_backfill\""));
	CU_ASSERT(!tu_exists(tu_tmp_path("refused.h5")));
	free(out);
	/* Preemption without a quota policy: located at the preemption key. */
	cfg = write_config(trace, "fifo", "none", "fair_sharing", "strict");
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "$.policies.preemption: preemption fair_sharing needs a quota policy, "
					   "one of cohort, hard"));
	free(out);
}

/* The validator on tables alone: what the registry's tables provide. */
static void test_stack_validate_tables(void)
{
	const char *paths[SIM_FAM_COUNT_] = { "$.o", "$.q", "$.p", "$.f" };
	const struct sim_policy_ops *ops[SIM_FAM_COUNT_] = { 0 };
	struct sim_diag d;
	sim_diag_init(&d, 10);
	CU_ASSERT_EQUAL(sim_stack_validate(ops, "x", paths, &d), -SIM_EINVAL); /* no order policy */
	CU_ASSERT(sim_diag_contains(&d, "x: $.o: expected an order policy, got none"));
	ops[SIM_FAM_ORDER] = sim_policy_lookup(SIM_FAM_ORDER, "priority");
	CU_ASSERT_EQUAL(sim_stack_validate(ops, "x", paths, &d), 0);
	ops[SIM_FAM_QUOTA] = sim_policy_lookup(SIM_FAM_QUOTA, "hard");
	CU_ASSERT_EQUAL(sim_stack_validate(ops, "x", paths, &d), 0); /* no fallback: strict */
	ops[SIM_FAM_FALLBACK] = sim_policy_lookup(SIM_FAM_FALLBACK, "cost");
	CU_ASSERT_EQUAL(sim_stack_validate(ops, "x", paths, &d), -SIM_EINVAL);
	CU_ASSERT(sim_diag_contains(&d, "x: $.f: expected one of strict, first_fit, fungible with quota hard"));
	ops[SIM_FAM_FALLBACK] = sim_policy_lookup(SIM_FAM_FALLBACK, "fungible");
	ops[SIM_FAM_PREEMPT] = sim_policy_lookup(SIM_FAM_PREEMPT, "classical");
	CU_ASSERT_EQUAL(sim_stack_validate(ops, "x", paths, &d), 0);
	ops[SIM_FAM_QUOTA] = NULL;
	CU_ASSERT_EQUAL(sim_stack_validate(ops, "x", paths, &d), -SIM_EINVAL);
	sim_diag_fini(&d);
}

static CU_TestInfo stack_tests[] = {
	{ "validate_tables", test_stack_validate_tables },
	{ "refusal_exit_code", test_stack_refusal_exit_code },
	{ "every_combination", test_stack_every_combination },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo stack_suite = { "stack", init_stack, clean_stack, NULL, NULL, stack_tests };
