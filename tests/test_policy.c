/* tests/test_policy.c: the contract every registered policy keeps (docs/style.md section 9:
 * contract suites run for every registry entry), and the registry's checks. */
#include <CUnit/CUnit.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../policies/policy.h"
#include "testutil.h"

static int init_policy(void) { return 0; }
static int clean_policy(void) { return 0; }

static void test_policy_registry_tables_valid(void)
{
	const struct sim_policy_ops *const *all = sim_policy_all();
	size_t n = 0;
	struct sim_diag d;
	sim_diag_init(&d, 20);
	for (; all[n]; n++) {
		CU_ASSERT_EQUAL(sim_policy_ops_validate(all[n], &d), 0);
		CU_ASSERT_PTR_EQUAL(sim_policy_lookup(all[n]->family, all[n]->name), all[n]);
		/* Names are unique within a family. */
		for (size_t k = 0; k < n; k++)
			CU_ASSERT(all[k]->family != all[n]->family || strcmp(all[k]->name, all[n]->name) != 0);
	}
	CU_ASSERT(n >= 3);
	CU_ASSERT_PTR_NULL(sim_policy_lookup(SIM_FAM_ORDER, "lottery"));
	CU_ASSERT_PTR_NULL(sim_policy_lookup(SIM_FAM_QUOTA, "fifo")); /* wrong family */
	sim_diag_fini(&d);
}

static void test_policy_validate_refuses_bad_tables(void)
{
	struct sim_diag d;
	sim_diag_init(&d, 20);
	struct sim_policy_ops no_pick = { .name = "x", .family = SIM_FAM_ORDER };
	CU_ASSERT_EQUAL(sim_policy_ops_validate(&no_pick, &d), -SIM_EINVAL);
	CU_ASSERT(sim_diag_contains(&d, "must have pick"));
	struct sim_policy_ops bad_name = fifo_policy_ops;
	bad_name.name = "Fifo-2";
	CU_ASSERT_EQUAL(sim_policy_ops_validate(&bad_name, &d), -SIM_EINVAL);
	struct sim_policy_ops keyless = fifo_policy_ops;
	keyless.order_key = NULL; /* claims SIM_CAP_ORDER_KEY without the hook */
	CU_ASSERT_EQUAL(sim_policy_ops_validate(&keyless, &d), -SIM_EINVAL);
	CU_ASSERT(sim_diag_contains(&d, "needs order_key"));
	sim_diag_fini(&d);
}

/* A random workload on 4 nodes of 8 GPUs; sizes 1..16 (9..16 take 2 whole nodes). */
static struct sim_trace *random_trace(unsigned long seed, size_t n)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, seed);
	struct sim_trace *t = sim_trace_create();
	double now = 0;
	char id[32];
	static const int sizes[] = { 1, 1, 1, 2, 2, 4, 8, 12, 16 };
	for (size_t i = 0; i < n; i++) {
		now += gsl_ran_exponential(r, 60);
		snprintf(id, sizeof id, "r%zu", i);
		int g = sizes[gsl_rng_uniform_int(r, sizeof sizes / sizeof sizes[0])];
		tu_trace_add(t, id, (double)(long)now, 1 + (double)gsl_rng_uniform_int(r, 600),
			     (sim_qty_t)g * SIM_MILLI, "f", (int)gsl_rng_uniform_int(r, 4));
	}
	tu_trace_finish(t);
	gsl_rng_free(r);
	return t;
}

struct edge {
	sim_time_t t;
	int delta; /* GPUs allocated (+) or freed (-) */
};

static int edge_cmp(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->delta - y->delta; /* frees first at equal times */
}

/* Every job completes, none starts before its submit, runs exactly its duration, and
 * allocated GPUs (whole nodes for big jobs) never exceed the 32 in the cluster. */
static void check_contract(const struct sim_trace *t)
{
	struct edge *e = malloc(2 * t->n_jobs * sizeof *e);
	size_t bad = 0;
	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct sim_job *j = &t->jobs[i];
		bad += j->state != SIM_JOB_COMPLETED;
		bad += j->start_ns < j->submit_ns;
		bad += j->end_ns - j->start_ns != j->duration_ns;
		sim_qty_t g = sim_job_opt(t, j, 0)->req[SIM_RES_GPU] / SIM_MILLI;
		int alloc = g <= 8 ? (int)g : (int)((g + 7) / 8 * 8);
		e[2 * i] = (struct edge){ j->start_ns, alloc };
		e[2 * i + 1] = (struct edge){ j->end_ns, -alloc };
	}
	CU_ASSERT_EQUAL(bad, 0);
	qsort(e, 2 * t->n_jobs, sizeof *e, edge_cmp);
	int busy = 0, peak = 0;
	for (size_t i = 0; i < 2 * t->n_jobs; i++) {
		busy += e[i].delta;
		if (busy > peak)
			peak = busy;
	}
	CU_ASSERT(peak <= 32);
	CU_ASSERT(peak >= 24); /* the workload does load the cluster */
	CU_ASSERT_EQUAL(busy, 0);
	free(e);
}

static void test_policy_contract_every_order_policy(void)
{
	const struct sim_policy_ops *const *all = sim_policy_all();
	for (size_t k = 0; all[k]; k++) {
		if (all[k]->family != SIM_FAM_ORDER)
			continue;
		for (int p = 0; p < SIM_PLACE_COUNT_; p++) {
			struct sim_trace *t = random_trace(100 + k, 400);
			CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 4, 8, all[k]->name, NULL, (enum sim_placement)p), 0);
			check_contract(t);
			/* Deterministic: a second run gives the same starts. */
			sim_time_t *s = malloc(t->n_jobs * sizeof *s);
			for (size_t i = 0; i < t->n_jobs; i++)
				s[i] = t->jobs[i].start_ns;
			CU_ASSERT_EQUAL_FATAL(tu_simulate(t, 4, 8, all[k]->name, NULL, (enum sim_placement)p), 0);
			size_t diff = 0;
			for (size_t i = 0; i < t->n_jobs; i++)
				diff += s[i] != t->jobs[i].start_ns;
			CU_ASSERT_EQUAL(diff, 0);
			free(s);
			sim_trace_destroy(t);
		}
	}
}

/* Every policy refuses a parameter it does not know, naming it with its JSON path. */
static void test_policy_unknown_param_refused(void)
{
	const struct sim_policy_ops *const *all = sim_policy_all();
	cJSON *params = cJSON_Parse("{\"name\": \"x\", \"bogus_knob\": 1}");
	for (size_t k = 0; all[k]; k++) {
		struct sim_diag d;
		sim_diag_init(&d, 20);
		struct sim_policy pol;
		struct sim_policy_env env = { .view = NULL, .file = "exp.json", .json_path = "$.policies.order" };
		CU_ASSERT_NOT_EQUAL(sim_policy_create(&pol, all[k], &env, params, &d), 0);
		CU_ASSERT(sim_diag_contains(&d, "exp.json: $.policies.order.bogus_knob"));
		CU_ASSERT_PTR_NULL(pol.ops);
		sim_diag_fini(&d);
	}
	cJSON_Delete(params);
}

static CU_TestInfo policy_tests[] = {
	{ "test_policy_registry_tables_valid", test_policy_registry_tables_valid },
	{ "test_policy_validate_refuses_bad_tables", test_policy_validate_refuses_bad_tables },
	{ "test_policy_contract_every_order_policy", test_policy_contract_every_order_policy },
	{ "test_policy_unknown_param_refused", test_policy_unknown_param_refused },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo policy_suite = { "policy", init_policy, clean_policy, NULL, NULL, policy_tests };
