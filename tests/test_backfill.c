/* tests/test_backfill.c: the easy_backfill order policy. Hand-checked scenarios with
 * every start time asserted, the EASY guarantee (a blocked head starts no later than
 * its first shadow time) on random workloads, and comparisons with fifo. */
#include <CUnit/CUnit.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../policies/easy_backfill.h"
#include "../sim/engine.h"
#include "testutil.h"

static int init_backfill(void) { return 0; }
static int clean_backfill(void) { return 0; }

#define G(n) ((sim_qty_t)(n) * SIM_MILLI)
#define S(x) ((sim_time_t)(x) * SIM_NS_PER_S)

#define CPU 1 /* index of "cpu" in the clusters and traces here that have it */

/* One run. Flavors are `nf` specs with GPUs, and cpu when a spec gives it (cluster
 * resources "gpu", "cpu"); reservations (when res != NULL)
 * are copied out before the policy is destroyed (caller frees *res). diag_out, if
 * non-NULL, receives the policy's first error line. Returns the engine's result. */
static int simulate(struct sim_trace *t, const struct sim_flavor_spec *specs, size_t nf, const char *order,
		    const char *params_json, struct easy_backfill_reservation **res, size_t *n_res,
		    char *diag_out, size_t diag_len)
{
	struct sim_resources rs;
	sim_resources_init(&rs);
	for (size_t i = 0; i < nf; i++)
		if (specs[i].node_cap[CPU] > 0 && sim_resources_find(&rs, "cpu") < 0)
			CU_ASSERT_EQUAL_FATAL(sim_resources_add(&rs, "cpu"), CPU);
	struct sim_cluster *c = sim_cluster_create(&rs, specs, nf, SIM_PLACE_BEST_FIT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	struct sim_diag diag;
	sim_diag_init(&diag, 20);
	int rc = sim_trace_bind(t, c, &diag);
	struct sim_driver drv;
	sim_driver_virtual_init(&drv);
	struct sim_policy pol = { 0 };
	struct sim_engine_params ep = { .trace = t, .cluster = c, .driver = drv };
	ep.policies[SIM_FAM_ORDER] = &pol;
	pol.ops = sim_policy_lookup(SIM_FAM_ORDER, order);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pol.ops);
	struct sim_engine *e = rc ? NULL : sim_engine_create(&ep);
	cJSON *params = params_json ? cJSON_Parse(params_json) : NULL;
	if (e) {
		struct sim_policy_env env = { .view = sim_engine_view(e), .file = "t.json",
					      .json_path = "$.policies.order" };
		rc = sim_policy_create(&pol, pol.ops, &env, params, &diag);
		if (!rc)
			rc = sim_engine_run(e);
		if (!rc && res) {
			const struct easy_backfill_reservation *r;
			*n_res = easy_backfill_reservations(&pol, &r);
			*res = malloc((*n_res + 1) * sizeof **res);
			if (*n_res)
				memcpy(*res, r, *n_res * sizeof **res);
		}
		sim_policy_destroy(&pol);
	}
	if (diag_out)
		snprintf(diag_out, diag_len, "%s", sim_diag_last(&diag));
	cJSON_Delete(params);
	sim_engine_destroy(e);
	sim_driver_virtual_fini(&drv);
	sim_diag_fini(&diag);
	sim_cluster_destroy(c);
	return rc;
}

static struct sim_flavor_spec flavor(const char *name, uint32_t nodes, int gpus)
{
	struct sim_flavor_spec f = { .nodes = nodes, .speed = 1.0 };
	snprintf(f.name, sizeof f.name, "%s", name);
	f.node_cap[SIM_RES_GPU] = G(gpus);
	return f;
}

/* Nodes of `gpus` GPUs and `cpus` cpu cores. */
static struct sim_flavor_spec flavor_cpu(const char *name, uint32_t nodes, int gpus, int cpus)
{
	struct sim_flavor_spec f = flavor(name, nodes, gpus);
	f.node_cap[CPU] = G(cpus);
	return f;
}

/* Gives job `row` (before tu_trace_finish) a cpu request in milli-units; the trace
 * then names the resource "cpu" (bound onto the cluster's). */
static void add_cpu(struct sim_trace *t, size_t row, sim_qty_t cpu)
{
	int r = sim_resources_find(&t->res, "cpu");
	if (r < 0)
		r = sim_resources_add(&t->res, "cpu");
	CU_ASSERT_EQUAL_FATAL(r, CPU);
	t->opts[t->jobs[row].opt_first].req[r] = cpu;
}

/* A job of gpu and cpu cores (whole units). */
static size_t add_job(struct sim_trace *t, const char *id, double submit_s, double dur_s, int gpu, int cpu)
{
	size_t row = tu_trace_add(t, id, submit_s, dur_s, G(gpu), "f", 0);
	add_cpu(t, row, G(cpu));
	return row;
}

static int run1(struct sim_trace *t, uint32_t nodes, int gpus, const char *order, const char *params,
		struct easy_backfill_reservation **res, size_t *n_res)
{
	struct sim_flavor_spec f = flavor("f", nodes, gpus);
	return simulate(t, &f, 1, order, params, res, n_res, NULL, 0);
}

static sim_time_t start_of(const struct sim_trace *t, const char *id)
{
	for (size_t i = 0; i < t->n_jobs; i++)
		if (strcmp(sim_job_id(t, &t->jobs[i]), id) == 0)
			return t->jobs[i].start_ns;
	CU_FAIL("no such job");
	return SIM_TIME_NONE;
}

static const struct sim_job *job_of(const struct sim_trace *t, const char *id)
{
	for (size_t i = 0; i < t->n_jobs; i++)
		if (strcmp(sim_job_id(t, &t->jobs[i]), id) == 0)
			return &t->jobs[i];
	return NULL;
}

static void assert_starts(const struct sim_trace *t, const char *const *ids, const double *want_s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		sim_time_t got = start_of(t, ids[i]);
		if (got != S(want_s[i]))
			fprintf(stderr, "\n  job %s: start %.3f s, expected %.3f s\n", ids[i],
				got == SIM_TIME_NONE ? -1.0 : sim_time_to_s(got), want_s[i]);
		CU_ASSERT_EQUAL(got, S(want_s[i]));
	}
	for (size_t i = 0; i < t->n_jobs; i++)
		CU_ASSERT_EQUAL(t->jobs[i].state, SIM_JOB_COMPLETED);
}

/* Finds the reservation of a job; NULL if none. */
static const struct easy_backfill_reservation *res_of(const struct easy_backfill_reservation *r, size_t n,
						     const struct sim_job *j)
{
	for (size_t i = 0; j && i < n; i++)
		if (r[i].job == j->idx)
			return &r[i];
	return NULL;
}

/* (1) One node of 4 GPUs.
 *   a 0s 2g 10s -> 0, ends 10.
 *   b 1s 4g 5s  -> head at 1, blocked: shadow 10 (a's end). Starts 10.
 *   c 2s 2g 5s  -> fits now and 2 + 5 = 7 <= 10: backfills at 2 (fifo: 15).
 *   d 3s 1g 3s  -> nothing free at 3; at 7 c ends and 7 + 3 = 10 <= 10: starts 7.
 *   e 8s 1g 2s  -> 1 GPU free at 8, 8 + 2 = 10 <= 10: starts 8.
 *   At 10 a, d and e end: b takes the node. */
static void test_backfill_short_job_fills_hole(void)
{
	struct sim_trace *t = sim_trace_create();
	tu_trace_add(t, "a", 0, 10, G(2), "f", 0);
	tu_trace_add(t, "b", 1, 5, G(4), "f", 0);
	tu_trace_add(t, "c", 2, 5, G(2), "f", 0);
	tu_trace_add(t, "d", 3, 3, G(1), "f", 0);
	tu_trace_add(t, "e", 8, 2, G(1), "f", 0);
	tu_trace_finish(t);
	struct easy_backfill_reservation *r = NULL;
	size_t nr = 0;
	CU_ASSERT_EQUAL_FATAL(run1(t, 1, 4, "easy_backfill", "{\"record_reservations\": true}", &r, &nr), 0);
	const char *ids[] = { "a", "b", "c", "d", "e" };
	double want[] = { 0, 10, 2, 7, 8 };
	assert_starts(t, ids, want, 5);
	/* b is the only job ever blocked at the head. */
	CU_ASSERT_EQUAL(nr, 1);
	const struct easy_backfill_reservation *rb = res_of(r, nr, job_of(t, "b"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(rb);
	CU_ASSERT_EQUAL(rb->shadow_ns, S(10));
	CU_ASSERT_EQUAL(rb->decided_ns, S(1));
	CU_ASSERT_EQUAL(rb->flavor, 0);
	free(r);

	/* The same trace under fifo: c, d, e wait behind b. */
	sim_trace_reset(t);
	CU_ASSERT_EQUAL_FATAL(run1(t, 1, 4, "fifo", NULL, NULL, NULL), 0);
	double want_fifo[] = { 0, 10, 15, 15, 15 };
	assert_starts(t, ids, want_fifo, 5);
	sim_trace_destroy(t);
}

/* (2) One node of 4 GPUs.
 *   a 0s 2g 10s -> 0.   b 1s 4g 5s -> blocked head, shadow 10, starts 10.
 *   c 2s 2g 20s -> fits now but ends at 22 > 10 and the head needs the whole node at
 *                  10: it would delay b, so it waits; starts 15 when b ends.
 *   d 3s 1g 7s  -> behind c, but 3 + 7 = 10 <= 10: backfills at 3.
 * With max_candidates 1 only c is looked at: d waits for b too (15). */
static void test_backfill_long_job_does_not_delay_head(void)
{
	struct sim_trace *t = sim_trace_create();
	tu_trace_add(t, "a", 0, 10, G(2), "f", 0);
	tu_trace_add(t, "b", 1, 5, G(4), "f", 0);
	tu_trace_add(t, "c", 2, 20, G(2), "f", 0);
	tu_trace_add(t, "d", 3, 7, G(1), "f", 0);
	tu_trace_finish(t);
	CU_ASSERT_EQUAL_FATAL(run1(t, 1, 4, "easy_backfill", NULL, NULL, NULL), 0);
	const char *ids[] = { "a", "b", "c", "d" };
	double want[] = { 0, 10, 15, 3 };
	assert_starts(t, ids, want, 4);

	sim_trace_reset(t);
	CU_ASSERT_EQUAL_FATAL(run1(t, 1, 4, "easy_backfill", "{\"max_candidates\": 1}", NULL, NULL), 0);
	double want_limited[] = { 0, 10, 15, 15 };
	assert_starts(t, ids, want_limited, 4);
	sim_trace_destroy(t);
}

/* (3) Two nodes of 4 GPUs; a long job on GPUs the head does not need at its shadow.
 *   a 0s 4g 10s  -> node X.   b 0s 3g 100s -> node Y (1 GPU left).
 *   h 1s 4g 5s   -> blocked: shadow 10 on X (a's end). Starts 10.
 *   d 2s 1g 50s  -> ends at 52 > 10, but it takes Y's last GPU, which h does not need:
 *                   X is projected fully free at 10. Backfills at 2. */
static void test_backfill_long_job_on_unneeded_gpus(void)
{
	struct sim_trace *t = sim_trace_create();
	tu_trace_add(t, "a", 0, 10, G(4), "f", 0);
	tu_trace_add(t, "b", 0, 100, G(3), "f", 0);
	tu_trace_add(t, "h", 1, 5, G(4), "f", 0);
	tu_trace_add(t, "d", 2, 50, G(1), "f", 0);
	tu_trace_finish(t);
	CU_ASSERT_EQUAL_FATAL(run1(t, 2, 4, "easy_backfill", NULL, NULL, NULL), 0);
	const char *ids[] = { "a", "b", "h", "d" };
	double want[] = { 0, 0, 10, 2 };
	assert_starts(t, ids, want, 4);
	sim_trace_destroy(t);
}

/* (3b) Whole-node head. Three nodes of 4 GPUs.
 *   a 0s 4g 10s, b 0s 4g 20s, cc 0s 2g 100s: one node each (A, B, C).
 *   h 1s 8g 5s  -> two whole nodes; walk: a (10) frees A, b (20) frees B: shadow 20.
 *   d 2s 2g 200s -> takes C's 2 free GPUs; A and B stay projected free: backfills at 2.
 *   e 3s 1g 200s -> nothing free until 10; then only A has room, and h needs A at 20:
 *                   refused. At 20 h takes A and B; e becomes the blocked head with
 *                   shadow 25 (h's end; C stays full until 100) and starts at 25. */
static void test_backfill_whole_node_head(void)
{
	struct sim_trace *t = sim_trace_create();
	tu_trace_add(t, "a", 0, 10, G(4), "f", 0);
	tu_trace_add(t, "b", 0, 20, G(4), "f", 0);
	tu_trace_add(t, "cc", 0, 100, G(2), "f", 0);
	tu_trace_add(t, "h", 1, 5, G(8), "f", 0);
	tu_trace_add(t, "d", 2, 200, G(2), "f", 0);
	tu_trace_add(t, "e", 3, 200, G(1), "f", 0);
	tu_trace_finish(t);
	struct easy_backfill_reservation *r = NULL;
	size_t nr = 0;
	CU_ASSERT_EQUAL_FATAL(run1(t, 3, 4, "easy_backfill", "{\"record_reservations\": true}", &r, &nr), 0);
	const char *ids[] = { "a", "b", "cc", "h", "d", "e" };
	double want[] = { 0, 0, 0, 20, 2, 25 };
	assert_starts(t, ids, want, 6);
	const struct easy_backfill_reservation *rh = res_of(r, nr, job_of(t, "h"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(rh);
	CU_ASSERT_EQUAL(rh->shadow_ns, S(20));
	/* e is head from 20 (h started): shadow 25, h's end. */
	const struct easy_backfill_reservation *re = res_of(r, nr, job_of(t, "e"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(re);
	CU_ASSERT_EQUAL(re->decided_ns, S(20));
	CU_ASSERT_EQUAL(re->shadow_ns, S(25));
	free(r);
	sim_trace_destroy(t);
}

/* (4) Estimates above the real durations. One node of 4 GPUs.
 *   a 0s 2g dur 5 est 10  -> 0, ends 5 (estimated 10).
 *   b 1s 4g dur 5 est 5   -> blocked head: shadow 10 (a's estimated end).
 *   e 2s 2g dur 2 est 9   -> 2 + 9 = 11 > 10 and b needs the node: refused though it
 *                            would really end at 4.
 *   c 2s 2g dur 3 est 8   -> 2 + 8 = 10 <= 10: backfills at 2, really ends at 5.
 *   d 3s 1g dur 1 est 20  -> nothing free at 3.
 *   At 5 a and c end: b starts at 5, before its reservation. At 10 b ends: e, d start. */
static void test_backfill_overestimates_start_head_early(void)
{
	struct sim_trace *t = sim_trace_create();
	size_t ra = tu_trace_add(t, "a", 0, 5, G(2), "f", 0);
	size_t rb = tu_trace_add(t, "b", 1, 5, G(4), "f", 0);
	size_t re = tu_trace_add(t, "e", 2, 2, G(2), "f", 0);
	size_t rc = tu_trace_add(t, "c", 2, 3, G(2), "f", 0);
	size_t rd = tu_trace_add(t, "d", 3, 1, G(1), "f", 0);
	t->jobs[ra].estimate_ns = S(10);
	t->jobs[rb].estimate_ns = S(5);
	t->jobs[re].estimate_ns = S(9);
	t->jobs[rc].estimate_ns = S(8);
	t->jobs[rd].estimate_ns = S(20);
	t->has_estimates = 1;
	tu_trace_finish(t);
	struct easy_backfill_reservation *r = NULL;
	size_t nr = 0;
	CU_ASSERT_EQUAL_FATAL(run1(t, 1, 4, "easy_backfill", "{\"record_reservations\": true}", &r, &nr), 0);
	const char *ids[] = { "a", "b", "e", "c", "d" };
	double want[] = { 0, 5, 10, 2, 10 };
	assert_starts(t, ids, want, 5);
	const struct easy_backfill_reservation *rr = res_of(r, nr, job_of(t, "b"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(rr);
	CU_ASSERT_EQUAL(rr->shadow_ns, S(10));
	CU_ASSERT(job_of(t, "b")->start_ns <= rr->shadow_ns);
	free(r);
	sim_trace_destroy(t);
}

/* An under-estimate: a job running past its estimate is assumed to end now.
 * One node of 4 GPUs.
 *   a 0s 2g dur 10 est 2 -> 0, really ends 10.
 *   b 1s 4g 5s           -> blocked: shadow 2 (a's estimate).
 *   c 3s 2g 4s           -> at 3 a over-runs: shadow = now = 3; 3 + 4 > 3 and the
 *                           head needs the node: refused. At 10 b starts, at 15 c. */
static void test_backfill_overrun_assumed_ending_now(void)
{
	struct sim_trace *t = sim_trace_create();
	size_t ra = tu_trace_add(t, "a", 0, 10, G(2), "f", 0);
	tu_trace_add(t, "b", 1, 5, G(4), "f", 0);
	tu_trace_add(t, "c", 3, 4, G(2), "f", 0);
	t->jobs[ra].estimate_ns = S(2);
	t->has_estimates = 1;
	tu_trace_finish(t);
	CU_ASSERT_EQUAL_FATAL(run1(t, 1, 4, "easy_backfill", NULL, NULL, NULL), 0);
	const char *ids[] = { "a", "b", "c" };
	double want[] = { 0, 10, 15 };
	assert_starts(t, ids, want, 3);
	sim_trace_destroy(t);
}

/* A "*" head reserves on the flavor where it fits first; jobs on the other flavor
 * backfill freely. Flavors x and y, one node of 4 GPUs each.
 *   a 0s x:2g 10s, b 0s y:2g 20s -> 0.
 *   h 1s *:4g 5s  -> shadow on x 10, on y 20: reserved on x. Starts 10 on x.
 *   c 2s x:2g 50s -> on x past 10 and h needs all of x: refused; starts 15.
 *   d 3s y:2g 50s -> on y, not the reserved flavor: backfills at 3. */
static void test_backfill_any_flavor_head(void)
{
	struct sim_trace *t = sim_trace_create();
	tu_trace_add(t, "a", 0, 10, G(2), "x", 0);
	tu_trace_add(t, "b", 0, 20, G(2), "y", 0);
	tu_trace_add(t, "h", 1, 5, G(4), "*", 0);
	tu_trace_add(t, "c", 2, 50, G(2), "x", 0);
	tu_trace_add(t, "d", 3, 50, G(2), "y", 0);
	tu_trace_finish(t);
	struct sim_flavor_spec fl[2] = { flavor("x", 1, 4), flavor("y", 1, 4) };
	struct easy_backfill_reservation *r = NULL;
	size_t nr = 0;
	CU_ASSERT_EQUAL_FATAL(simulate(t, fl, 2, "easy_backfill", "{\"record_reservations\": true}", &r, &nr,
				       NULL, 0), 0);
	const char *ids[] = { "a", "b", "h", "c", "d" };
	double want[] = { 0, 0, 10, 15, 3 };
	assert_starts(t, ids, want, 5);
	CU_ASSERT_EQUAL(job_of(t, "h")->alloc.flavor, 0); /* ran on x (kept after the end) */
	const struct easy_backfill_reservation *rh = res_of(r, nr, job_of(t, "h"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(rh);
	CU_ASSERT_EQUAL(rh->flavor, 0);
	CU_ASSERT_EQUAL(rh->shadow_ns, S(10));
	free(r);
	sim_trace_destroy(t);
}

/* cpu is the bottleneck of a single-node head. One node of 4 GPUs and 4 cpus.
 *   r 0s 1g 2c 10s  -> 0, ends 10.
 *   h 1s 1g 3c 5s   -> 3 GPUs are free but 2 cpus: blocked head. At 10 r ends and 4
 *                      cpus are free: shadow 10. Starts 10 (under fifo too).
 *   c 2s 1g 2c 100s -> fits now, but ends at 102 > 10 and at 10 the node would have
 *                      only 2 cpus for h: it would delay h, so it waits. At 10 h takes
 *                      3 cpus; c is the head until h ends: starts 15 (fifo: 15).
 *   d 3s 1g 2c 7s   -> fits now and 3 + 7 = 10 <= 10: backfills at 3 (fifo: 15, behind
 *                      c; at 15 h's 3 cpus return and c and d take 2 each). */
static void test_backfill_cpu_bound_head(void)
{
	struct sim_trace *t = sim_trace_create();
	add_job(t, "r", 0, 10, 1, 2);
	add_job(t, "h", 1, 5, 1, 3);
	add_job(t, "c", 2, 100, 1, 2);
	add_job(t, "d", 3, 7, 1, 2);
	tu_trace_finish(t);
	struct sim_flavor_spec f = flavor_cpu("f", 1, 4, 4);
	struct easy_backfill_reservation *r = NULL;
	size_t nr = 0;
	CU_ASSERT_EQUAL_FATAL(simulate(t, &f, 1, "easy_backfill", "{\"record_reservations\": true}", &r, &nr,
				       NULL, 0), 0);
	const char *ids[] = { "r", "h", "c", "d" };
	double want[] = { 0, 10, 15, 3 };
	assert_starts(t, ids, want, 4);
	const struct easy_backfill_reservation *rh = res_of(r, nr, job_of(t, "h"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(rh);
	CU_ASSERT_EQUAL(rh->decided_ns, S(1));
	CU_ASSERT_EQUAL(rh->shadow_ns, S(10));
	CU_ASSERT_EQUAL(rh->flavor, 0);
	free(r);

	sim_trace_reset(t);
	CU_ASSERT_EQUAL_FATAL(simulate(t, &f, 1, "fifo", NULL, NULL, NULL, NULL, 0), 0);
	double want_fifo[] = { 0, 10, 15, 15 };
	assert_starts(t, ids, want_fifo, 4);
	sim_trace_destroy(t);
}

/* cpu is the bottleneck of a whole-node head: a GPU-less job holds every cpu of a
 * node whose GPUs are all free. Two nodes of 4 GPUs and 8 cpus.
 *   g 0s 0g 8c 20s  -> node 0 (4 GPUs stay free, no cpu).
 *   a 0s 4g 1c 10s  -> node 1 (node 0 has no cpu left).
 *   h 1s 8g 5s      -> two whole nodes. At 10 node 1 is free, but node 0 is not fully
 *                      free until g ends: shadow 20. Starts 20.
 *   d 11s 4g 8c 100s -> fits on node 1 at 11 but holds it past 20, when h needs it:
 *                      waits; head after h starts, shadow 25 (h's end): starts 25.
 *   e 12s 2g 2c 8s  -> node 1, ends 12 + 8 = 20 <= 20: backfills at 12 (fifo: 25,
 *                      on node 1 beside d). */
static void test_backfill_cpu_bound_whole_node_head(void)
{
	struct sim_trace *t = sim_trace_create();
	add_job(t, "g", 0, 20, 0, 8);
	add_job(t, "a", 0, 10, 4, 1);
	add_job(t, "h", 1, 5, 8, 0);
	add_job(t, "d", 11, 100, 4, 8);
	add_job(t, "e", 12, 8, 2, 2);
	tu_trace_finish(t);
	struct sim_flavor_spec f = flavor_cpu("f", 2, 4, 8);
	struct easy_backfill_reservation *r = NULL;
	size_t nr = 0;
	CU_ASSERT_EQUAL_FATAL(simulate(t, &f, 1, "easy_backfill", "{\"record_reservations\": true}", &r, &nr,
				       NULL, 0), 0);
	const char *ids[] = { "g", "a", "h", "d", "e" };
	double want[] = { 0, 0, 20, 25, 12 };
	assert_starts(t, ids, want, 5);
	CU_ASSERT_EQUAL(job_of(t, "g")->alloc.flavor, 0);
	const struct easy_backfill_reservation *rh = res_of(r, nr, job_of(t, "h"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(rh);
	CU_ASSERT_EQUAL(rh->decided_ns, S(1));
	CU_ASSERT_EQUAL(rh->shadow_ns, S(20));
	const struct easy_backfill_reservation *rd = res_of(r, nr, job_of(t, "d"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(rd);
	CU_ASSERT_EQUAL(rd->decided_ns, S(20));
	CU_ASSERT_EQUAL(rd->shadow_ns, S(25));
	free(r);

	sim_trace_reset(t);
	CU_ASSERT_EQUAL_FATAL(simulate(t, &f, 1, "fifo", NULL, NULL, NULL, NULL, 0), 0);
	double want_fifo[] = { 0, 0, 20, 25, 25 };
	assert_starts(t, ids, want_fifo, 5);
	sim_trace_destroy(t);
}

/* Random workload: Poisson arrivals (mean gap gap_s), 1..max_gpu GPUs, 1..100 s. */
static struct sim_trace *random_trace(unsigned long seed, size_t n, int max_gpu, double gap_s)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, seed);
	struct sim_trace *t = sim_trace_create();
	double at = 0;
	for (size_t i = 0; i < n; i++) {
		char id[32];
		snprintf(id, sizeof id, "j%zu", i);
		at += floor(gsl_ran_exponential(rng, gap_s));
		int gpus = 1 + (int)gsl_rng_uniform_int(rng, (unsigned long)max_gpu);
		double dur = 1 + (double)gsl_rng_uniform_int(rng, 100);
		tu_trace_add(t, id, at, dur, G(gpus), "f", 0);
	}
	gsl_rng_free(rng);
	tu_trace_finish(t);
	return t;
}

static double mean_wait_s(const struct sim_trace *t)
{
	double sum = 0;
	for (size_t i = 0; i < t->n_jobs; i++)
		sum += sim_time_to_s(t->jobs[i].start_ns - t->jobs[i].submit_ns);
	return sum / (double)t->n_jobs;
}

static sim_time_t makespan(const struct sim_trace *t)
{
	sim_time_t m = 0;
	for (size_t i = 0; i < t->n_jobs; i++)
		if (t->jobs[i].end_ns > m)
			m = t->jobs[i].end_ns;
	return m;
}

/* (5) The EASY guarantee with exact estimates: every blocked head starts no later
 * than the shadow time it got when it became the head. 4 nodes of 8 GPUs, 200 jobs
 * of 1-8 GPUs, several seeds and loads. Sanity: mean wait and makespan no worse than
 * fifo on these workloads. */
static void test_backfill_head_never_later_than_reservation(void)
{
	const double gaps[] = { 3, 6, 12 };
	size_t checked = 0, improved = 0;
	for (unsigned long seed = 1; seed <= 5; seed++) {
		for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++) {
			struct sim_trace *t = random_trace(seed, 200, 8, gaps[g]);
			struct easy_backfill_reservation *r = NULL;
			size_t nr = 0;
			CU_ASSERT_EQUAL_FATAL(run1(t, 4, 8, "easy_backfill", "{\"record_reservations\": true}",
						   &r, &nr), 0);
			for (size_t i = 0; i < t->n_jobs; i++)
				CU_ASSERT_EQUAL(t->jobs[i].state, SIM_JOB_COMPLETED);
			for (size_t i = 0; i < nr; i++) {
				const struct sim_job *j = &t->jobs[r[i].job];
				CU_ASSERT(r[i].shadow_ns != SIM_TIME_MAX);
				CU_ASSERT(r[i].shadow_ns >= r[i].decided_ns);
				if (j->start_ns > r[i].shadow_ns)
					fprintf(stderr, "\n  seed %lu gap %g: job %u starts %.0f s > shadow %.0f s\n",
						seed, gaps[g], j->idx, sim_time_to_s(j->start_ns),
						sim_time_to_s(r[i].shadow_ns));
				CU_ASSERT(j->start_ns <= r[i].shadow_ns);
				checked++;
			}
			double w_easy = mean_wait_s(t);
			sim_time_t m_easy = makespan(t);
			free(r);
			sim_trace_reset(t);
			CU_ASSERT_EQUAL_FATAL(run1(t, 4, 8, "fifo", NULL, NULL, NULL), 0);
			double w_fifo = mean_wait_s(t);
			CU_ASSERT(w_easy <= w_fifo + 1e-9);
			CU_ASSERT(m_easy <= makespan(t));
			improved += w_easy < w_fifo;
			sim_trace_destroy(t);
		}
	}
	CU_ASSERT(checked > 100); /* the workloads do block heads */
	CU_ASSERT(improved >= 10); /* and backfilling does something */
}

/* (5b) The same guarantee when cpus bind too: 4 nodes of 8 GPUs and 16 cpus, jobs of
 * 1-8 GPUs and 1-16 cpus (cpus run out about as often as GPUs), exact estimates. */
static void test_backfill_cpu_head_never_later_than_reservation(void)
{
	size_t checked = 0, backfilled = 0;
	struct sim_flavor_spec f = flavor_cpu("f", 4, 8, 16);
	for (unsigned long seed = 1; seed <= 5; seed++) {
		gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
		gsl_rng_set(rng, seed);
		struct sim_trace *t = sim_trace_create();
		double at = 0;
		for (size_t i = 0; i < 200; i++) {
			char id[32];
			snprintf(id, sizeof id, "j%zu", i);
			at += floor(gsl_ran_exponential(rng, 5));
			int gpus = 1 + (int)gsl_rng_uniform_int(rng, 8);
			int cpus = 1 + (int)gsl_rng_uniform_int(rng, 16);
			add_job(t, id, at, 1 + (double)gsl_rng_uniform_int(rng, 100), gpus, cpus);
		}
		gsl_rng_free(rng);
		tu_trace_finish(t);
		struct easy_backfill_reservation *r = NULL;
		size_t nr = 0;
		CU_ASSERT_EQUAL_FATAL(simulate(t, &f, 1, "easy_backfill", "{\"record_reservations\": true}", &r,
					       &nr, NULL, 0), 0);
		for (size_t i = 0; i < t->n_jobs; i++) {
			CU_ASSERT_EQUAL(t->jobs[i].state, SIM_JOB_COMPLETED);
			backfilled += i > 0 && t->jobs[i].start_ns < t->jobs[i - 1].start_ns;
		}
		for (size_t i = 0; i < nr; i++) {
			const struct sim_job *j = &t->jobs[r[i].job];
			CU_ASSERT(r[i].shadow_ns != SIM_TIME_MAX);
			if (j->start_ns > r[i].shadow_ns)
				fprintf(stderr, "\n  seed %lu: job %u starts %.0f s > shadow %.0f s\n", seed, j->idx,
					sim_time_to_s(j->start_ns), sim_time_to_s(r[i].shadow_ns));
			CU_ASSERT(j->start_ns <= r[i].shadow_ns);
			checked++;
		}
		free(r);
		sim_trace_destroy(t);
	}
	CU_ASSERT(checked > 100);
	CU_ASSERT(backfilled > 20);
}

/* Identical jobs: when the head does not fit, no job behind it fits either, so
 * EASY starts every job exactly when fifo does. */
static void test_backfill_identical_jobs_equal_fifo(void)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 42);
	struct sim_trace *t = sim_trace_create();
	double at = 0;
	for (size_t i = 0; i < 300; i++) {
		char id[32];
		snprintf(id, sizeof id, "j%zu", i);
		at += floor(gsl_ran_exponential(rng, 4));
		tu_trace_add(t, id, at, 30, G(3), "f", 0);
	}
	gsl_rng_free(rng);
	tu_trace_finish(t);
	CU_ASSERT_EQUAL_FATAL(run1(t, 4, 8, "easy_backfill", NULL, NULL, NULL), 0);
	sim_time_t *easy = malloc(t->n_jobs * sizeof *easy);
	for (size_t i = 0; i < t->n_jobs; i++)
		easy[i] = t->jobs[i].start_ns;
	sim_trace_reset(t);
	CU_ASSERT_EQUAL_FATAL(run1(t, 4, 8, "fifo", NULL, NULL, NULL), 0);
	size_t diff = 0, waited = 0;
	for (size_t i = 0; i < t->n_jobs; i++) {
		diff += easy[i] != t->jobs[i].start_ns;
		waited += t->jobs[i].start_ns > t->jobs[i].submit_ns;
	}
	CU_ASSERT_EQUAL(diff, 0);
	CU_ASSERT(waited > 50); /* a queue did form */
	free(easy);
	sim_trace_destroy(t);
}


/* ---- an independent reference ----
 * EASY on a pool of interchangeable units: one node (units = GPUs) or nodes taken
 * whole (units = nodes). There node choice cannot matter, so the state is one count
 * and the algorithm is the textbook one: at each event time, finishes then submits,
 * then start the head while it fits; for a blocked head, sort running jobs by
 * estimated end (clamped to now) and accumulate until it fits: that is the shadow,
 * and what is left over then ("extra") may go to candidates ending after it.
 * O(n^2 log n): for small tests only. */
struct ref_job {
	sim_time_t submit, dur, est;
	long units;
	sim_time_t start, end_real, end_est;
};

/* A running job as the shadow walk sees it: clamped estimated end, trace index. */
struct ref_end {
	sim_time_t end;
	size_t idx;
};

static int ref_by_end(const void *a, const void *b)
{
	const struct ref_end *x = a, *y = b;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static void ref_easy(struct ref_job *j, size_t n, long cap, size_t max_cand)
{
	size_t *queue = malloc(n * sizeof *queue), *run = malloc(n * sizeof *run);
	size_t nq = 0, nr = 0, next = 0;
	long free_u = cap;
	for (size_t i = 0; i < n; i++)
		j[i].start = SIM_TIME_NONE;
	while (next < n || nr) {
		sim_time_t t = next < n ? j[next].submit : SIM_TIME_MAX;
		for (size_t r = 0; r < nr; r++)
			if (j[run[r]].end_real < t)
				t = j[run[r]].end_real;
		for (size_t r = 0; r < nr;) {
			if (j[run[r]].end_real == t) {
				free_u += j[run[r]].units;
				run[r] = run[--nr];
			} else {
				r++;
			}
		}
		while (next < n && j[next].submit == t)
			queue[nq++] = next++;
		/* one pass */
		size_t qi = 0;
		while (qi < nq && j[queue[qi]].units <= free_u) {
			struct ref_job *h = &j[queue[qi++]];
			h->start = t;
			h->end_real = t + h->dur;
			h->end_est = t + h->est;
			free_u -= h->units;
			run[nr++] = (size_t)(h - j);
		}
		memmove(queue, queue + qi, (nq - qi) * sizeof *queue);
		nq -= qi;
		if (!nq)
			continue;
		struct ref_end *sorted = malloc((nr + 1) * sizeof *sorted);
		for (size_t r = 0; r < nr; r++)
			sorted[r] = (struct ref_end){ j[run[r]].end_est > t ? j[run[r]].end_est : t, run[r] };
		qsort(sorted, nr, sizeof *sorted, ref_by_end);
		long avail = free_u, need = j[queue[0]].units;
		sim_time_t shadow = SIM_TIME_MAX;
		for (size_t r = 0; r < nr; r++) {
			if (shadow != SIM_TIME_MAX && sorted[r].end > shadow)
				break;
			avail += j[sorted[r].idx].units;
			if (shadow == SIM_TIME_MAX && avail >= need)
				shadow = sorted[r].end;
		}
		free(sorted);
		long extra = avail - need;
		size_t out = 1;
		for (size_t k = 1; k < nq; k++) {
			struct ref_job *c = &j[queue[k]];
			int go = 0;
			if ((max_cand == 0 || k <= max_cand) && c->units <= free_u) {
				if (shadow == SIM_TIME_MAX || t + c->est <= shadow) {
					go = 1;
				} else if (c->units <= extra) {
					go = 1;
					extra -= c->units;
				}
			}
			if (go) {
				c->start = t;
				c->end_real = t + c->dur;
				c->end_est = t + c->est;
				free_u -= c->units;
				run[nr++] = queue[k];
			} else {
				queue[out++] = queue[k];
			}
		}
		nq = out;
	}
	free(queue);
	free(run);
}

/* Random jobs for the reference: unit counts 1..max_units, durations 1..100 s,
 * estimates exact, or duration x U(0.3, 3) rounded up (over and under). */
static void ref_compare(unsigned long seed, uint32_t nodes, int node_gpus, int whole, long max_units,
			int exact, size_t max_cand, size_t *n_mismatch, size_t *n_backfilled)
{
	const size_t n = 300;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, seed);
	struct ref_job *rj = calloc(n, sizeof *rj);
	struct sim_trace *t = sim_trace_create();
	double at = 0;
	for (size_t i = 0; i < n; i++) {
		char id[32];
		snprintf(id, sizeof id, "j%zu", i);
		at += floor(gsl_ran_exponential(rng, 5));
		long u = 1 + (long)gsl_rng_uniform_int(rng, (unsigned long)max_units);
		double dur = 1 + (double)gsl_rng_uniform_int(rng, 100);
		double est = exact ? dur : ceil(dur * gsl_ran_flat(rng, 0.3, 3.0));
		size_t row = tu_trace_add(t, id, at, dur, whole ? G(u * node_gpus) : G(u), "f", 0);
		t->jobs[row].estimate_ns = S(est);
		rj[i] = (struct ref_job){ .submit = S(at), .dur = S(dur), .est = S(est), .units = u };
	}
	t->has_estimates = !exact;
	gsl_rng_free(rng);
	tu_trace_finish(t); /* submit times are non-decreasing: rows keep their order */
	ref_easy(rj, n, whole ? (long)nodes : (long)node_gpus, max_cand);
	char params[64];
	snprintf(params, sizeof params, "{\"max_candidates\": %zu}", max_cand);
	CU_ASSERT_EQUAL_FATAL(run1(t, nodes, node_gpus, "easy_backfill", params, NULL, NULL), 0);
	for (size_t i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(t->jobs[i].state, SIM_JOB_COMPLETED);
		if (t->jobs[i].start_ns != rj[i].start) {
			if (*n_mismatch < 3)
				fprintf(stderr, "\n  seed %lu (%u x %d GPUs, whole %d, exact %d, max_candidates %zu) "
					"job %zu: start %.0f s, reference %.0f s\n", seed, nodes, node_gpus, whole, exact,
					max_cand, i, sim_time_to_s(t->jobs[i].start_ns), sim_time_to_s(rj[i].start));
			(*n_mismatch)++;
		}
		*n_backfilled += i > 0 && rj[i].start < rj[i - 1].start;
	}
	free(rj);
	sim_trace_destroy(t);
}

/* Every start time equals the reference's, on one 32-GPU node and on 8 nodes of 4
 * GPUs with whole-node jobs, with exact and with wrong estimates, unlimited and
 * limited candidate scans. */
static void test_backfill_matches_reference(void)
{
	size_t mism = 0, bf = 0;
	for (unsigned long seed = 11; seed <= 16; seed++) {
		for (int exact = 1; exact >= 0; exact--) {
			size_t m0 = mism;
			ref_compare(seed, 1, 32, 0, 16, exact, 0, &mism, &bf);
			ref_compare(seed, 8, 4, 1, 4, exact, 0, &mism, &bf);
			ref_compare(seed, 1, 32, 0, 16, exact, 3, &mism, &bf);
			if (mism != m0)
				fprintf(stderr, "  seed %lu exact %d: %zu mismatches\n", seed, exact, mism - m0);
		}
	}
	CU_ASSERT_EQUAL(mism, 0);
	CU_ASSERT(bf > 100); /* out-of-order starts did happen */
}


/* ---- a second reference, node by node ----
 * The same EASY on one flavor of several nodes, with fragmented partial nodes and
 * whole-node jobs, over the whole resource vector (GPUs, and cpus when the flavor has
 * them). It places jobs with its own cluster of the same shape and placement,
 * calling place and release in the engine's order (so the placement index evolves
 * identically), and recomputes the projection from scratch over every node and
 * resource at each pass: O(nodes x running) a pass, for small tests only. */
struct nref_job {
	sim_time_t submit, dur, est;
	sim_qty_t req[SIM_MAX_RES];
	sim_time_t start, end_real, end_est;
	uint64_t seq;            /* start order: finishes at one time apply in it */
	struct sim_alloc alloc;
};

/* Does a head requesting need fit the projection (nodes x SIM_MAX_RES free vectors
 * at the shadow time, nodes of shape cap)? One node with need free in every
 * resource, or k = ceil(gpu / node gpu) nodes with every resource free. */
static int nref_fits(const sim_qty_t *proj, uint32_t n, const sim_qty_t *cap, const sim_qty_t *need)
{
	sim_qty_t node_gpu = cap[SIM_RES_GPU], gpu = need[SIM_RES_GPU];
	sim_qty_t k = gpu <= node_gpu ? 1 : (gpu + node_gpu - 1) / node_gpu, got = 0;
	const sim_qty_t *thr = gpu <= node_gpu ? need : cap;
	for (uint32_t i = 0; i < n; i++) {
		int ok = 1;
		for (int r = 0; r < SIM_MAX_RES; r++)
			ok &= proj[i * SIM_MAX_RES + r] >= thr[r];
		got += ok;
	}
	return got >= k;
}

/* Adds (sign +1) or takes (-1) what j holds on each of its nodes: its request, or
 * for whole nodes every resource of the node. */
static void nref_apply(sim_qty_t *proj, const struct nref_job *j, const sim_qty_t *cap, int sign)
{
	const sim_qty_t *amount = j->alloc.whole ? cap : j->req;
	for (uint32_t i = 0; i < j->alloc.n_nodes; i++) {
		uint32_t node = j->alloc.n_nodes > 1 ? j->alloc.nodes[i] : j->alloc.node;
		for (int r = 0; r < SIM_MAX_RES; r++)
			proj[node * SIM_MAX_RES + r] += sign * amount[r];
	}
}

/* spec: the one flavor "f"; resources gpu, and cpu when spec->node_cap[CPU] > 0. */
static void nref_easy(struct nref_job *j, size_t n, const struct sim_flavor_spec *spec, size_t max_cand)
{
	struct sim_resources rs;
	sim_resources_init(&rs);
	if (spec->node_cap[CPU] > 0)
		sim_resources_add(&rs, "cpu");
	const uint32_t nodes = spec->nodes;
	const sim_qty_t *cap = spec->node_cap;
	struct sim_cluster *c = sim_cluster_create(&rs, spec, 1, SIM_PLACE_BEST_FIT);
	size_t *queue = malloc(n * sizeof *queue), *run = malloc(n * sizeof *run);
	struct ref_end *sorted = malloc((n + 1) * sizeof *sorted);
	sim_qty_t *proj = malloc((size_t)nodes * SIM_MAX_RES * sizeof *proj);
	size_t nq = 0, nr = 0, next = 0;
	uint64_t seq = 0;
	for (size_t i = 0; i < n; i++) {
		j[i].start = SIM_TIME_NONE;
		j[i].alloc.flavor = -1;
	}
	while (next < n || nr) {
		sim_time_t t = next < n ? j[next].submit : SIM_TIME_MAX;
		for (size_t r = 0; r < nr; r++)
			if (j[run[r]].end_real < t)
				t = j[run[r]].end_real;
		/* Finishes at t in start order. */
		for (;;) {
			size_t best = SIZE_MAX;
			for (size_t r = 0; r < nr; r++)
				if (j[run[r]].end_real == t && (best == SIZE_MAX || j[run[r]].seq < j[run[best]].seq))
					best = r;
			if (best == SIZE_MAX)
				break;
			sim_cluster_release(c, &j[run[best]].alloc, j[run[best]].req);
			run[best] = run[--nr];
		}
		while (next < n && j[next].submit == t)
			queue[nq++] = next++;
		size_t qi = 0;
		while (qi < nq && sim_cluster_place(c, 0, j[queue[qi]].req, &j[queue[qi]].alloc) == 0) {
			struct nref_job *h = &j[queue[qi++]];
			h->start = t;
			h->end_real = t + h->dur;
			h->end_est = t + h->est;
			h->seq = seq++;
			run[nr++] = (size_t)(h - j);
		}
		memmove(queue, queue + qi, (nq - qi) * sizeof *queue);
		nq -= qi;
		if (!nq)
			continue;
		for (uint32_t i = 0; i < nodes; i++) {
			const sim_qty_t *fr = sim_cluster_node_free(c, 0, i);
			for (int r = 0; r < SIM_MAX_RES; r++)
				proj[i * SIM_MAX_RES + r] = r < rs.n ? fr[r] : 0;
		}
		for (size_t r = 0; r < nr; r++)
			sorted[r] = (struct ref_end){ j[run[r]].end_est > t ? j[run[r]].end_est : t, run[r] };
		qsort(sorted, nr, sizeof *sorted, ref_by_end);
		const sim_qty_t *need = j[queue[0]].req;
		sim_time_t shadow = nref_fits(proj, nodes, cap, need) ? t : SIM_TIME_MAX;
		for (size_t r = 0; r < nr; r++) {
			if (shadow != SIM_TIME_MAX && sorted[r].end > shadow)
				break;
			nref_apply(proj, &j[sorted[r].idx], cap, +1);
			if (shadow == SIM_TIME_MAX && nref_fits(proj, nodes, cap, need))
				shadow = sorted[r].end;
		}
		size_t out = 1;
		for (size_t k = 1; k < nq; k++) {
			struct nref_job *cj = &j[queue[k]];
			int go = 0;
			if ((max_cand == 0 || k <= max_cand) && sim_cluster_place(c, 0, cj->req, &cj->alloc) == 0) {
				if (shadow == SIM_TIME_MAX || t + cj->est <= shadow) {
					go = 1;
				} else {
					nref_apply(proj, cj, cap, -1);
					go = nref_fits(proj, nodes, cap, need);
					if (!go) {
						nref_apply(proj, cj, cap, +1);
						sim_cluster_release(c, &cj->alloc, cj->req);
					}
				}
			}
			if (go) {
				cj->start = t;
				cj->end_real = t + cj->dur;
				cj->end_est = t + cj->est;
				cj->seq = seq++;
				run[nr++] = queue[k];
			} else {
				queue[out++] = queue[k];
			}
		}
		nq = out;
	}
	free(proj);
	free(sorted);
	free(queue);
	free(run);
	sim_cluster_destroy(c);
}

/* How the random jobs of nref_compare ask for cpus (nodes have 16 when they do). */
enum nref_cpu {
	NREF_GPU_ONLY = 0, /* no cpu resource at all */
	NREF_CPU_COARSE,   /* 0, 4, 8, 12 or 16 cpus a node the job spans (few request classes) */
	NREF_CPU_MILLI,    /* 0.001 .. 16 cpus a node (thousands of classes) */
};

/* 4 nodes of 8 GPUs (and 16 cpus unless GPU-only), jobs of 1..max_gpu GPUs (above 8:
 * whole nodes); with `milli`, of 0.001..max_gpu GPUs (thousands of distinct requests).
 * With cpus, one job in 8 is GPU-less (cpus only), and a whole-node job asks for at
 * most 16 cpus a node it takes. Returns the starts that came before an earlier
 * job's (out-of-order starts: backfills) in *n_backfilled. */
static void nref_compare(unsigned long seed, int max_gpu, int milli, enum nref_cpu cpu, int exact,
			 size_t max_cand, size_t *n_mismatch, size_t *n_starts_checked, size_t *n_backfilled)
{
	const size_t n = 250;
	const uint32_t nodes = 4;
	const int node_gpus = 8, node_cpus = cpu == NREF_GPU_ONLY ? 0 : 16;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, seed);
	struct nref_job *rj = calloc(n, sizeof *rj);
	struct sim_trace *t = sim_trace_create();
	double at = 0;
	for (size_t i = 0; i < n; i++) {
		char id[32];
		snprintf(id, sizeof id, "j%zu", i);
		at += floor(gsl_ran_exponential(rng, 4));
		sim_qty_t gpu = milli ? 1 + (sim_qty_t)gsl_rng_uniform_int(rng, (unsigned long)G(max_gpu))
				      : G(1 + (int)gsl_rng_uniform_int(rng, (unsigned long)max_gpu));
		double dur = 1 + (double)gsl_rng_uniform_int(rng, 100);
		double est = exact ? dur : ceil(dur * gsl_ran_flat(rng, 0.3, 3.0));
		sim_qty_t cpus = 0;
		if (cpu != NREF_GPU_ONLY) {
			sim_qty_t span = gpu <= G(node_gpus) ? 1 : (gpu + G(node_gpus) - 1) / G(node_gpus);
			if (cpu == NREF_CPU_COARSE)
				cpus = G(4) * (sim_qty_t)gsl_rng_uniform_int(rng, 5) * span;
			else
				cpus = (sim_qty_t)gsl_rng_uniform_int(rng, (unsigned long)(G(node_cpus) * span + 1));
			if (gsl_rng_uniform_int(rng, 8) == 0) { /* GPU-less */
				gpu = 0;
				if (cpus == 0 || cpus > G(node_cpus))
					cpus = G(node_cpus) / 2;
			}
		}
		size_t row = tu_trace_add(t, id, at, dur, gpu, "f", 0);
		if (cpu != NREF_GPU_ONLY)
			add_cpu(t, row, cpus);
		t->jobs[row].estimate_ns = S(est);
		rj[i] = (struct nref_job){ .submit = S(at), .dur = S(dur), .est = S(est) };
		rj[i].req[SIM_RES_GPU] = gpu;
		rj[i].req[CPU] = cpus;
	}
	t->has_estimates = !exact;
	gsl_rng_free(rng);
	tu_trace_finish(t);
	struct sim_flavor_spec spec = flavor_cpu("f", nodes, node_gpus, node_cpus);
	nref_easy(rj, n, &spec, max_cand);
	char params[64];
	snprintf(params, sizeof params, "{\"max_candidates\": %zu}", max_cand);
	CU_ASSERT_EQUAL_FATAL(simulate(t, &spec, 1, "easy_backfill", params, NULL, NULL, NULL, 0), 0);
	for (size_t i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(t->jobs[i].state, SIM_JOB_COMPLETED);
		if (t->jobs[i].start_ns != rj[i].start) {
			if (*n_mismatch < 3)
				fprintf(stderr, "\n  seed %lu (max %d GPUs, milli %d, cpu %d, exact %d, max_candidates %zu) "
					"job %zu: start %.0f s, reference %.0f s\n", seed, max_gpu, milli, (int)cpu, exact,
					max_cand, i, sim_time_to_s(t->jobs[i].start_ns), sim_time_to_s(rj[i].start));
			(*n_mismatch)++;
		}
		(*n_starts_checked)++;
		*n_backfilled += i > 0 && rj[i].start < rj[i - 1].start;
	}
	free(rj);
	sim_trace_destroy(t);
}

/* Every start time equals the node-by-node reference's: partial nodes, whole-node
 * heads, exact and wrong estimates, unlimited and limited scans, few request classes
 * (the merged scan) and thousands (the linear one); GPUs only, and GPUs with cpus
 * (cpu-bound heads and candidates, GPU-less jobs beside whole-node ones). */
static void test_backfill_matches_node_reference(void)
{
	size_t mism = 0, checked = 0, bf = 0;
	for (unsigned long seed = 21; seed <= 26; seed++)
		for (int exact = 1; exact >= 0; exact--) {
			nref_compare(seed, 8, 0, NREF_GPU_ONLY, exact, 0, &mism, &checked, &bf);
			nref_compare(seed, 20, 0, NREF_GPU_ONLY, exact, 0, &mism, &checked, &bf);
			nref_compare(seed, 20, 0, NREF_GPU_ONLY, exact, 2, &mism, &checked, &bf);
			nref_compare(seed, 12, 1, NREF_GPU_ONLY, exact, 0, &mism, &checked, &bf);
			nref_compare(seed, 12, 1, NREF_GPU_ONLY, exact, 3, &mism, &checked, &bf);
		}
	CU_ASSERT_EQUAL(mism, 0);
	CU_ASSERT_EQUAL(checked, 6 * 2 * 5 * 250);
	CU_ASSERT(bf > 100);
}

/* The same with cpus: a GPU-only projection would let candidates take the cpus the
 * head waits for (or reserve too early), and differ from the reference. */
static void test_backfill_matches_node_reference_cpu(void)
{
	size_t mism = 0, checked = 0, bf = 0;
	for (unsigned long seed = 31; seed <= 36; seed++)
		for (int exact = 1; exact >= 0; exact--) {
			nref_compare(seed, 8, 0, NREF_CPU_COARSE, exact, 0, &mism, &checked, &bf);
			nref_compare(seed, 20, 0, NREF_CPU_COARSE, exact, 0, &mism, &checked, &bf);
			nref_compare(seed, 20, 0, NREF_CPU_COARSE, exact, 2, &mism, &checked, &bf);
			nref_compare(seed, 8, 0, NREF_CPU_MILLI, exact, 0, &mism, &checked, &bf);
			nref_compare(seed, 12, 1, NREF_CPU_MILLI, exact, 0, &mism, &checked, &bf);
			nref_compare(seed, 12, 1, NREF_CPU_MILLI, exact, 3, &mism, &checked, &bf);
		}
	CU_ASSERT_EQUAL(mism, 0);
	CU_ASSERT_EQUAL(checked, 6 * 2 * 6 * 250);
	CU_ASSERT(bf > 100);
}

/* Bad params are refused with their JSON path. */
static void test_backfill_bad_params(void)
{
	static const struct {
		const char *json, *needle;
	} cases[] = {
		{ "{\"max_candidates\": -1}", "$.policies.order.max_candidates: expected a number in [0," },
		{ "{\"max_candidates\": 1.5}", "$.policies.order.max_candidates: expected an integer >= 0, got 1.5" },
		{ "{\"max_candidates\": \"x\"}", "$.policies.order.max_candidates: expected a number" },
		{ "{\"record_reservations\": 1}", "$.policies.order.record_reservations: expected true or false, got 1" },
		{ "{\"bf_window\": 3}", "$.policies.order.bf_window: expected one of the keys" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct sim_trace *t = sim_trace_create();
		tu_trace_add(t, "a", 0, 10, G(1), "f", 0);
		tu_trace_finish(t);
		struct sim_flavor_spec f = flavor("f", 1, 4);
		char msg[512];
		CU_ASSERT_EQUAL(simulate(t, &f, 1, "easy_backfill", cases[i].json, NULL, NULL, msg, sizeof msg),
				-SIM_EPARSE);
		if (!strstr(msg, cases[i].needle))
			fprintf(stderr, "\n  got: %s\n", msg);
		CU_ASSERT_PTR_NOT_NULL(strstr(msg, cases[i].needle));
		CU_ASSERT_PTR_NOT_NULL(strstr(msg, "t.json"));
		sim_trace_destroy(t);
	}
}

/* Recording is off by default; the accessor refuses other policies. */
static void test_backfill_recording_off_by_default(void)
{
	struct sim_trace *t = sim_trace_create();
	tu_trace_add(t, "a", 0, 10, G(4), "f", 0);
	tu_trace_add(t, "b", 1, 5, G(4), "f", 0);
	tu_trace_finish(t);
	struct easy_backfill_reservation *r = NULL;
	size_t nr = 99;
	CU_ASSERT_EQUAL_FATAL(run1(t, 1, 4, "easy_backfill", NULL, &r, &nr), 0);
	CU_ASSERT_EQUAL(nr, 0);
	free(r);
	sim_trace_reset(t);
	nr = 99;
	CU_ASSERT_EQUAL_FATAL(run1(t, 1, 4, "fifo", NULL, &r, &nr), 0);
	CU_ASSERT_EQUAL(nr, 0);
	free(r);
	sim_trace_destroy(t);
}

static CU_TestInfo backfill_tests[] = {
	{ "test_backfill_short_job_fills_hole", test_backfill_short_job_fills_hole },
	{ "test_backfill_long_job_does_not_delay_head", test_backfill_long_job_does_not_delay_head },
	{ "test_backfill_long_job_on_unneeded_gpus", test_backfill_long_job_on_unneeded_gpus },
	{ "test_backfill_whole_node_head", test_backfill_whole_node_head },
	{ "test_backfill_overestimates_start_head_early", test_backfill_overestimates_start_head_early },
	{ "test_backfill_overrun_assumed_ending_now", test_backfill_overrun_assumed_ending_now },
	{ "test_backfill_any_flavor_head", test_backfill_any_flavor_head },
	{ "test_backfill_cpu_bound_head", test_backfill_cpu_bound_head },
	{ "test_backfill_cpu_bound_whole_node_head", test_backfill_cpu_bound_whole_node_head },
	{ "test_backfill_head_never_later_than_reservation", test_backfill_head_never_later_than_reservation },
	{ "test_backfill_cpu_head_never_later_than_reservation",
	  test_backfill_cpu_head_never_later_than_reservation },
	{ "test_backfill_identical_jobs_equal_fifo", test_backfill_identical_jobs_equal_fifo },
	{ "test_backfill_matches_reference", test_backfill_matches_reference },
	{ "test_backfill_matches_node_reference", test_backfill_matches_node_reference },
	{ "test_backfill_matches_node_reference_cpu", test_backfill_matches_node_reference_cpu },
	{ "test_backfill_bad_params", test_backfill_bad_params },
	{ "test_backfill_recording_off_by_default", test_backfill_recording_off_by_default },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo backfill_suite = { "backfill", init_backfill, clean_backfill, NULL, NULL, backfill_tests };
