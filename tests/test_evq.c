/* tests/test_evq.c: the event queue's order (t, phase, seq) and lazy cancellation. */
#include <CUnit/CUnit.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>

#include "../sim/evq.h"

static int init_evq(void) { return 0; }
static int clean_evq(void) { return 0; }

static void test_evq_orders_by_time_phase_seq(void)
{
	struct sim_evq *q = sim_evq_create(0);
	struct sim_event in[] = {
		{ .t = 5, .phase = EV_SUBMIT, .job = 0 },
		{ .t = 5, .phase = EV_FINISH, .job = 1 },
		{ .t = 1, .phase = EV_TICK, .job = 2 },
		{ .t = 5, .phase = EV_FINISH, .job = 3 }, /* same key as job 1: push order */
		{ .t = 3, .phase = EV_SUBMIT, .job = 4 },
	};
	for (size_t i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(sim_evq_push(q, &in[i], NULL), 0);
	CU_ASSERT_EQUAL(sim_evq_size(q), 5);
	uint32_t want[] = { 2, 4, 1, 3, 0 };
	struct sim_event ev;
	for (size_t i = 0; i < 5; i++) {
		CU_ASSERT_EQUAL(sim_evq_pop(q, &ev), 0);
		CU_ASSERT_EQUAL(ev.job, want[i]);
	}
	CU_ASSERT_EQUAL(sim_evq_pop(q, &ev), -SIM_EEMPTY);
	sim_evq_destroy(q);
}

static void test_evq_cancel_skips_event(void)
{
	struct sim_evq *q = sim_evq_create(0);
	uint64_t ids[4];
	for (uint32_t i = 0; i < 4; i++) {
		struct sim_event ev = { .t = 10 * i, .phase = EV_FINISH, .job = i };
		sim_evq_push(q, &ev, &ids[i]);
	}
	sim_evq_cancel(q, ids[0]);
	sim_evq_cancel(q, ids[2]);
	sim_evq_cancel(q, ids[2]); /* twice is harmless */
	CU_ASSERT_EQUAL(sim_evq_size(q), 2);
	struct sim_event ev;
	CU_ASSERT_EQUAL(sim_evq_peek(q, &ev), 0);
	CU_ASSERT_EQUAL(ev.job, 1);
	sim_evq_pop(q, &ev);
	CU_ASSERT_EQUAL(ev.job, 1);
	sim_evq_pop(q, &ev);
	CU_ASSERT_EQUAL(ev.job, 3);
	CU_ASSERT_EQUAL(sim_evq_pop(q, &ev), -SIM_EEMPTY);
	sim_evq_destroy(q);
}

static int key_cmp(const void *a, const void *b)
{
	const struct sim_event *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->phase != y->phase)
		return x->phase < y->phase ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* 20,000 random pushes, a third cancelled: pops equal a sorted reference of the live ones. */
static void test_evq_random_matches_sorted_reference(void)
{
	enum { N = 20000 };
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 7);
	struct sim_evq *q = sim_evq_create(0);
	struct sim_event *ref = malloc(N * sizeof *ref);
	size_t nref = 0;
	for (uint32_t i = 0; i < N; i++) {
		struct sim_event ev = { .t = (sim_time_t)gsl_rng_uniform_int(r, 1000),
					.phase = (uint8_t)gsl_rng_uniform_int(r, EV_PHASE_COUNT_), .job = i };
		uint64_t id;
		CU_ASSERT_EQUAL_FATAL(sim_evq_push(q, &ev, &id), 0);
		ev.seq = id;
		if (gsl_rng_uniform(r) < 0.33)
			sim_evq_cancel(q, id);
		else
			ref[nref++] = ev;
	}
	qsort(ref, nref, sizeof *ref, key_cmp);
	CU_ASSERT_EQUAL(sim_evq_size(q), nref);
	size_t bad = 0;
	struct sim_event ev;
	for (size_t i = 0; i < nref; i++) {
		if (sim_evq_pop(q, &ev) || ev.seq != ref[i].seq)
			bad++;
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(sim_evq_pop(q, &ev), -SIM_EEMPTY);
	free(ref);
	sim_evq_destroy(q);
	gsl_rng_free(r);
}

/* Pushes, pops and cancellations interleaved, most events cancelled (as a run with
 * many preemptions cancels finish events): every pop is the least live event of a
 * naive list, the size is the live count, and the heap never carries many more
 * cancelled events than live ones (they are dropped in bulk). */
static void test_evq_heavy_cancellation_matches_naive(void)
{
	enum { N = 30000 };
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 11);
	struct sim_evq *q = sim_evq_create(0);
	struct sim_event *live = malloc(N * sizeof *live);
	size_t nlive = 0, bad = 0, worst_extra = 0, pops = 0;
	for (uint32_t i = 0; i < N; i++) {
		struct sim_event ev = { .t = (sim_time_t)gsl_rng_uniform_int(r, 100000),
					.phase = (uint8_t)gsl_rng_uniform_int(r, EV_PHASE_COUNT_), .job = i };
		uint64_t id;
		CU_ASSERT_EQUAL_FATAL(sim_evq_push(q, &ev, &id), 0);
		ev.seq = id;
		live[nlive++] = ev;
		if (nlive > 1 && gsl_rng_uniform(r) < 0.8) { /* cancel a random live one */
			size_t k = gsl_rng_uniform_int(r, nlive);
			sim_evq_cancel(q, live[k].seq);
			live[k] = live[--nlive];
		}
		if (nlive && gsl_rng_uniform(r) < 0.1) { /* pop: the least live one */
			size_t m = 0;
			for (size_t k = 1; k < nlive; k++)
				if (key_cmp(&live[k], &live[m]) < 0)
					m = k;
			struct sim_event got;
			if (sim_evq_pop(q, &got) || got.seq != live[m].seq)
				bad++;
			live[m] = live[--nlive];
			pops++;
		}
		if (sim_evq_size(q) != nlive)
			bad++;
		size_t len = sim_evq_heap_len(q);
		if (len > 2 * nlive && len - 2 * nlive > worst_extra)
			worst_extra = len - 2 * nlive;
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(pops > 1000);
	CU_ASSERT(worst_extra <= 256); /* without compaction it would be thousands */
	free(live);
	sim_evq_destroy(q);
	gsl_rng_free(r);
}

/* The root's cached liveness (evq.c, top_live) against a naive list: pushes, pops,
 * peeks after every step, and cancellations that half the time hit the least live
 * event, the one a peek just showed (a preempted job's finish cancelled right after
 * the loop peeked at it). Every peek and pop is the least live event. */
static void test_evq_peek_after_cancel_matches_naive(void)
{
	enum { N = 20000 };
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 5);
	struct sim_evq *q = sim_evq_create(0);
	struct sim_event *live = malloc(N * sizeof *live);
	size_t nlive = 0, bad = 0, peeks = 0, root_cancels = 0;
	for (uint32_t i = 0; i < N; i++) {
		struct sim_event ev = { .t = (sim_time_t)gsl_rng_uniform_int(r, 5000),
					.phase = (uint8_t)gsl_rng_uniform_int(r, EV_PHASE_COUNT_), .job = i };
		uint64_t id;
		CU_ASSERT_EQUAL_FATAL(sim_evq_push(q, &ev, &id), 0);
		ev.seq = id;
		live[nlive++] = ev;
		for (int step = 0; step < 3 && nlive; step++) {
			size_t m = 0;
			for (size_t k = 1; k < nlive; k++)
				if (key_cmp(&live[k], &live[m]) < 0)
					m = k;
			struct sim_event got;
			bad += sim_evq_peek(q, &got) != 0 || got.seq != live[m].seq;
			peeks++;
			double u = gsl_rng_uniform(r);
			if (u < 0.3) { /* cancel the root */
				sim_evq_cancel(q, live[m].seq);
				live[m] = live[--nlive];
				root_cancels++;
			} else if (u < 0.6) { /* cancel another one */
				size_t k = gsl_rng_uniform_int(r, nlive);
				sim_evq_cancel(q, live[k].seq);
				live[k] = live[--nlive];
			} else if (u < 0.75) {
				bad += sim_evq_pop(q, &got) != 0 || got.seq != live[m].seq;
				live[m] = live[--nlive];
			}
		}
		bad += sim_evq_size(q) != nlive;
	}
	struct sim_event got;
	while (nlive) { /* drain: the same order to the end */
		size_t m = 0;
		for (size_t k = 1; k < nlive; k++)
			if (key_cmp(&live[k], &live[m]) < 0)
				m = k;
		bad += sim_evq_pop(q, &got) != 0 || got.seq != live[m].seq;
		live[m] = live[--nlive];
	}
	bad += sim_evq_peek(q, &got) != -SIM_EEMPTY;
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(peeks > 20000);
	CU_ASSERT(root_cancels > 5000);
	free(live);
	sim_evq_destroy(q);
	gsl_rng_free(r);
}

static CU_TestInfo evq_tests[] = {
	{ "test_evq_orders_by_time_phase_seq", test_evq_orders_by_time_phase_seq },
	{ "test_evq_cancel_skips_event", test_evq_cancel_skips_event },
	{ "test_evq_random_matches_sorted_reference", test_evq_random_matches_sorted_reference },
	{ "test_evq_heavy_cancellation_matches_naive", test_evq_heavy_cancellation_matches_naive },
	{ "test_evq_peek_after_cancel_matches_naive", test_evq_peek_after_cancel_matches_naive },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo evq_suite = { "evq", init_evq, clean_evq, NULL, NULL, evq_tests };
