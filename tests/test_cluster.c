/* tests/test_cluster.c: the cluster model (sim/cluster.c): placement strategies, whole
 * nodes, multi-resource fit, fractional GPUs, release, index consistency, capacity over
 * time (peak nodes, online / draining / offline nodes, free_gen), and a randomized
 * comparison with brute-force references. */
#include <CUnit/CUnit.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cluster.h"

#define G(x) ((sim_qty_t)(x) * SIM_MILLI) /* whole units to milli-units */

static int init_cluster(void)
{
	return 0;
}

static int clean_cluster(void)
{
	return 0;
}

/* Resources "gpu" and, when n == 2, "cpu" (filled by hand: only sim.h types). */
static struct sim_resources mkres(int n)
{
	struct sim_resources r;
	memset(&r, 0, sizeof r);
	r.n = n;
	strcpy(r.names[0], "gpu");
	if (n > 1)
		strcpy(r.names[1], "cpu");
	return r;
}

static struct sim_flavor_spec mkspec(const char *name, uint32_t nodes, sim_qty_t gpu, sim_qty_t cpu)
{
	struct sim_flavor_spec s;
	memset(&s, 0, sizeof s);
	strcpy(s.name, name);
	s.nodes = nodes;
	s.node_cap[SIM_RES_GPU] = gpu;
	s.node_cap[1] = cpu;
	s.speed = 1.0;
	s.price_per_node_hour = 2.5;
	return s;
}

/* One flavor "f" of `nodes` nodes; cpu_cap 0 means a GPU-only resource set. */
static struct sim_cluster *mk1(uint32_t nodes, sim_qty_t gpu, sim_qty_t cpu, enum sim_placement p)
{
	struct sim_resources res = mkres(cpu ? 2 : 1);
	struct sim_flavor_spec s = mkspec("f", nodes, gpu, cpu);
	return sim_cluster_create(&res, &s, 1, p);
}

/* Places {gpu, cpu} (milli) on flavor 0; returns the node, or -1 when it did not fit. */
static int put(struct sim_cluster *c, struct sim_alloc *a, sim_qty_t gpu, sim_qty_t cpu)
{
	sim_qty_t req[SIM_MAX_RES] = { gpu, cpu };
	int rc = sim_cluster_place(c, 0, req, a);
	CU_ASSERT(rc == 0 || rc == -SIM_ENOFIT);
	CU_ASSERT_EQUAL(sim_cluster_check(c), 0);
	if (rc < 0)
		return -1;
	CU_ASSERT_EQUAL(a->flavor, 0);
	CU_ASSERT_EQUAL(a->n_nodes, 1);
	CU_ASSERT_EQUAL(a->whole, 0);
	CU_ASSERT_PTR_NULL(a->nodes);
	return (int)a->node;
}

static void drop(struct sim_cluster *c, struct sim_alloc *a, sim_qty_t gpu, sim_qty_t cpu)
{
	sim_qty_t req[SIM_MAX_RES] = { gpu, cpu };
	sim_cluster_release(c, a, req);
	CU_ASSERT_EQUAL(a->flavor, -1);
	CU_ASSERT_EQUAL(a->n_nodes, 0);
	CU_ASSERT_PTR_NULL(a->nodes);
	CU_ASSERT_EQUAL(sim_cluster_check(c), 0);
}

static sim_qty_t free_gpu(const struct sim_cluster *c, uint32_t node)
{
	return sim_cluster_node_free(c, 0, node)[SIM_RES_GPU];
}

static sim_qty_t free_cpu(const struct sim_cluster *c, uint32_t node)
{
	return sim_cluster_node_free(c, 0, node)[1];
}

static void test_cluster_placement_names(void)
{
	CU_ASSERT_EQUAL(sim_placement_from_name("best_fit"), SIM_PLACE_BEST_FIT);
	CU_ASSERT_EQUAL(sim_placement_from_name("first_fit"), SIM_PLACE_FIRST_FIT);
	CU_ASSERT_EQUAL(sim_placement_from_name("spread"), SIM_PLACE_SPREAD);
	CU_ASSERT_EQUAL(sim_placement_from_name("bestfit"), -1);
	CU_ASSERT_EQUAL(sim_placement_from_name(""), -1);
	CU_ASSERT_EQUAL(sim_placement_from_name(NULL), -1);
	for (int p = 0; p < SIM_PLACE_COUNT_; p++)
		CU_ASSERT_EQUAL(sim_placement_from_name(sim_placement_name((enum sim_placement)p)), p);
}

static void test_cluster_create_rejects_bad_specs(void)
{
	struct sim_resources res = mkres(2);
	struct sim_flavor_spec s[2] = { mkspec("a", 4, G(8), G(32)), mkspec("b", 2, G(4), G(16)) };
	struct sim_cluster *c = sim_cluster_create(&res, s, 2, SIM_PLACE_BEST_FIT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	sim_cluster_destroy(c);

	struct sim_flavor_spec bad[2];
	memcpy(bad, s, sizeof bad);
	bad[1].node_cap[SIM_RES_GPU] = 0; /* no GPUs */
	CU_ASSERT_PTR_NULL(sim_cluster_create(&res, bad, 2, SIM_PLACE_BEST_FIT));
	memcpy(bad, s, sizeof bad);
	strcpy(bad[1].name, "a"); /* duplicate name */
	CU_ASSERT_PTR_NULL(sim_cluster_create(&res, bad, 2, SIM_PLACE_BEST_FIT));
	memcpy(bad, s, sizeof bad);
	bad[0].name[0] = '\0';
	CU_ASSERT_PTR_NULL(sim_cluster_create(&res, bad, 2, SIM_PLACE_BEST_FIT));
	memcpy(bad, s, sizeof bad);
	bad[0].node_cap[1] = -1;
	CU_ASSERT_PTR_NULL(sim_cluster_create(&res, bad, 2, SIM_PLACE_BEST_FIT));
	memcpy(bad, s, sizeof bad);
	bad[0].speed = 0.0;
	CU_ASSERT_PTR_NULL(sim_cluster_create(&res, bad, 2, SIM_PLACE_BEST_FIT));
	memcpy(bad, s, sizeof bad);
	bad[0].price_per_node_hour = -1.0;
	CU_ASSERT_PTR_NULL(sim_cluster_create(&res, bad, 2, SIM_PLACE_BEST_FIT));
	CU_ASSERT_PTR_NULL(sim_cluster_create(&res, s, 2, SIM_PLACE_COUNT_));
	CU_ASSERT_PTR_NULL(sim_cluster_create(NULL, s, 2, SIM_PLACE_BEST_FIT));
	sim_cluster_destroy(NULL); /* a no-op */
}

static void test_cluster_accessors_copy_specs(void)
{
	struct sim_resources res = mkres(2);
	struct sim_flavor_spec s[2] = { mkspec("h100", 4, G(8), G(32)), mkspec("l40s", 2, G(4), G(16)) };
	struct sim_cluster *c = sim_cluster_create(&res, s, 2, SIM_PLACE_SPREAD);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	strcpy(s[0].name, "changed");
	s[0].nodes = 99;
	strcpy(res.names[1], "mem");
	CU_ASSERT_EQUAL(sim_cluster_n_flavors(c), 2);
	CU_ASSERT_EQUAL(sim_cluster_flavor_find(c, "h100"), 0);
	CU_ASSERT_EQUAL(sim_cluster_flavor_find(c, "l40s"), 1);
	CU_ASSERT_EQUAL(sim_cluster_flavor_find(c, "changed"), -1);
	CU_ASSERT_STRING_EQUAL(sim_cluster_flavor(c, 0)->name, "h100");
	CU_ASSERT_EQUAL(sim_cluster_flavor(c, 0)->nodes, 4);
	CU_ASSERT_DOUBLE_EQUAL(sim_cluster_flavor(c, 1)->price_per_node_hour, 2.5, 1e-12);
	CU_ASSERT_PTR_NULL(sim_cluster_flavor(c, 2));
	CU_ASSERT_PTR_NULL(sim_cluster_flavor(c, -1));
	CU_ASSERT_STRING_EQUAL(sim_cluster_resources(c)->names[1], "cpu");
	CU_ASSERT_EQUAL(sim_cluster_n_nodes(c, 1), 2);
	CU_ASSERT_EQUAL(sim_cluster_gpu_total(c, 0), G(32));
	CU_ASSERT_EQUAL(sim_cluster_gpu_total(c, 1), G(8));
	CU_ASSERT_EQUAL(sim_cluster_gpu_total(c, -1), G(40));
	CU_ASSERT_EQUAL(sim_cluster_gpu_busy(c, -1), 0);
	CU_ASSERT_EQUAL(sim_cluster_node_free(c, 1, 1)[1], G(16));
	CU_ASSERT_PTR_NULL(sim_cluster_node_free(c, 1, 2));
	CU_ASSERT_EQUAL(sim_cluster_check(c), 0);
	sim_cluster_destroy(c);
}

/* 4 nodes x 8 GPUs. Comments give the free GPUs per node after each step. */
static void test_cluster_best_fit_packs_fullest(void)
{
	struct sim_cluster *c = mk1(4, G(8), 0, SIM_PLACE_BEST_FIT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	struct sim_alloc a[12];
	CU_ASSERT_EQUAL(put(c, &a[0], G(6), 0), 0); /* 2 8 8 8: all tie, lowest index */
	CU_ASSERT_EQUAL(put(c, &a[1], G(7), 0), 1); /* 2 1 8 8 */
	CU_ASSERT_EQUAL(put(c, &a[2], G(1), 0), 1); /* 2 0 8 8: exact fit (first_fit: 0) */
	CU_ASSERT_EQUAL(put(c, &a[3], G(3), 0), 2); /* 2 0 5 8: 8 vs 8, lowest index */
	CU_ASSERT_EQUAL(put(c, &a[4], G(4), 0), 2); /* 2 0 1 8: 5 is fuller than 8 */
	CU_ASSERT_EQUAL(put(c, &a[5], G(2), 0), 0); /* 0 0 1 8 */
	CU_ASSERT_EQUAL(put(c, &a[6], G(1), 0), 2); /* 0 0 0 8 */
	CU_ASSERT_EQUAL(put(c, &a[7], G(8), 0), 3); /* 0 0 0 0 */
	CU_ASSERT_EQUAL(put(c, &a[8], G(1), 0), -1);
	drop(c, &a[4], G(4), 0); /* 0 0 4 0 */
	drop(c, &a[0], G(6), 0); /* 6 0 4 0 */
	CU_ASSERT_EQUAL(free_gpu(c, 0), G(6));
	CU_ASSERT_EQUAL(free_gpu(c, 2), G(4));
	CU_ASSERT_EQUAL(put(c, &a[9], G(4), 0), 2); /* 6 0 0 0: 4 is fuller than 6 */
	CU_ASSERT_EQUAL(put(c, &a[10], G(5), 0), 0); /* 1 0 0 0 */
	CU_ASSERT_EQUAL(sim_cluster_gpu_busy(c, 0), G(31));
	CU_ASSERT_EQUAL(sim_cluster_gpu_busy(c, -1), G(31));
	sim_cluster_destroy(c);
}

static void test_cluster_first_fit_lowest_index(void)
{
	struct sim_cluster *c = mk1(4, G(8), 0, SIM_PLACE_FIRST_FIT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	struct sim_alloc a[10];
	CU_ASSERT_EQUAL(put(c, &a[0], G(3), 0), 0); /* 5 8 8 8 */
	CU_ASSERT_EQUAL(put(c, &a[1], G(6), 0), 1); /* 5 2 8 8 */
	CU_ASSERT_EQUAL(put(c, &a[2], G(2), 0), 0); /* 3 2 8 8 (best_fit: 1) */
	CU_ASSERT_EQUAL(put(c, &a[3], G(3), 0), 0); /* 0 2 8 8 */
	CU_ASSERT_EQUAL(put(c, &a[4], G(7), 0), 2); /* 0 2 1 8 */
	CU_ASSERT_EQUAL(put(c, &a[5], G(1), 0), 1); /* 0 1 1 8 (best_fit: 2) */
	CU_ASSERT_EQUAL(put(c, &a[6], G(8), 0), 3); /* 0 1 1 0 */
	CU_ASSERT_EQUAL(put(c, &a[7], G(2), 0), -1);
	drop(c, &a[1], G(6), 0); /* 0 7 1 0 */
	CU_ASSERT_EQUAL(put(c, &a[8], G(4), 0), 1); /* 0 3 1 0 */
	CU_ASSERT_EQUAL(put(c, &a[9], G(1), 0), 1); /* 0 2 1 0 */
	CU_ASSERT_EQUAL(free_gpu(c, 1), G(2));
	sim_cluster_destroy(c);
}

static void test_cluster_spread_emptiest(void)
{
	struct sim_cluster *c = mk1(4, G(8), 0, SIM_PLACE_SPREAD);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	struct sim_alloc a[12];
	CU_ASSERT_EQUAL(put(c, &a[0], G(3), 0), 0); /* 5 8 8 8 */
	CU_ASSERT_EQUAL(put(c, &a[1], G(3), 0), 1); /* 5 5 8 8 */
	CU_ASSERT_EQUAL(put(c, &a[2], G(3), 0), 2); /* 5 5 5 8 */
	CU_ASSERT_EQUAL(put(c, &a[3], G(7), 0), 3); /* 5 5 5 1 */
	CU_ASSERT_EQUAL(put(c, &a[4], G(2), 0), 0); /* 3 5 5 1: tie of 5s, lowest index */
	CU_ASSERT_EQUAL(put(c, &a[5], G(2), 0), 1); /* 3 3 5 1 */
	CU_ASSERT_EQUAL(put(c, &a[6], G(1), 0), 2); /* 3 3 4 1 */
	CU_ASSERT_EQUAL(put(c, &a[7], G(6), 0), -1);
	CU_ASSERT_EQUAL(put(c, &a[8], G(4), 0), 2); /* 3 3 0 1 */
	CU_ASSERT_EQUAL(put(c, &a[9], G(3), 0), 0); /* 0 3 0 1 */
	CU_ASSERT_EQUAL(put(c, &a[10], G(1), 0), 1); /* 0 2 0 1 */
	CU_ASSERT_EQUAL(sim_cluster_gpu_busy(c, 0), G(29));
	sim_cluster_destroy(c);
}

/* 4 nodes x (8 GPUs, 32 cpus): nodes whose GPUs fit but cpus do not are skipped. */
static void test_cluster_multi_resource_best_fit(void)
{
	struct sim_cluster *c = mk1(4, G(8), G(32), SIM_PLACE_BEST_FIT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	struct sim_alloc a[8];
	CU_ASSERT_EQUAL(put(c, &a[0], G(1), G(30)), 0); /* 7/2 8/32 8/32 8/32 */
	CU_ASSERT_EQUAL(put(c, &a[1], G(2), G(4)), 1);  /* node 0 fuller but 2 cpus: 6/28 */
	CU_ASSERT_EQUAL(put(c, &a[2], G(1), G(2)), 1);  /* bucket 6 before 7: 5/26 */
	CU_ASSERT_EQUAL(put(c, &a[3], G(7), G(1)), 0);  /* 0/1 */
	CU_ASSERT_EQUAL(put(c, &a[4], 0, G(2)), 1);     /* GPU-less; node 0 has 1 cpu: 5/24 */
	CU_ASSERT_EQUAL(put(c, &a[5], 0, G(1)), 0);     /* 0/0 */
	CU_ASSERT_EQUAL(put(c, &a[6], G(1), G(32)), 2); /* node 1 has 24 cpus: 7/0 */
	CU_ASSERT_EQUAL(put(c, &a[7], G(1), G(1)), 1);  /* 4/23 */
	CU_ASSERT_EQUAL(free_cpu(c, 0), 0);
	CU_ASSERT_EQUAL(free_cpu(c, 1), G(23));
	CU_ASSERT_EQUAL(free_gpu(c, 1), G(4));
	CU_ASSERT_EQUAL(free_cpu(c, 2), 0);
	sim_cluster_destroy(c);
}

static void test_cluster_multi_resource_first_fit(void)
{
	struct sim_cluster *c = mk1(4, G(8), G(32), SIM_PLACE_FIRST_FIT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	struct sim_alloc a[8];
	CU_ASSERT_EQUAL(put(c, &a[0], G(1), G(30)), 0); /* 7/2 */
	CU_ASSERT_EQUAL(put(c, &a[1], G(2), G(4)), 1);  /* 6/28 */
	CU_ASSERT_EQUAL(put(c, &a[2], G(1), G(2)), 0);  /* 6/0 */
	CU_ASSERT_EQUAL(put(c, &a[3], 0, G(1)), 1);     /* 6/27 */
	CU_ASSERT_EQUAL(put(c, &a[4], G(7), 0), 2);     /* 1/32 */
	CU_ASSERT_EQUAL(put(c, &a[5], G(1), G(32)), 2); /* 0/0 */
	CU_ASSERT_EQUAL(put(c, &a[6], G(1), G(28)), 3); /* 0 has no cpu, 1 has 27 */
	sim_cluster_destroy(c);
}

static void test_cluster_multi_resource_spread(void)
{
	struct sim_cluster *c = mk1(4, G(8), G(32), SIM_PLACE_SPREAD);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	struct sim_alloc a[12];
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(put(c, &a[i], G(1), G(30)), i); /* all 7/2 */
	sim_qty_t req[SIM_MAX_RES] = { G(1), G(3) };
	CU_ASSERT_EQUAL(sim_cluster_fits(c, 0, req), 0); /* 28 GPUs free, no node has 3 cpus */
	CU_ASSERT_EQUAL(sim_cluster_could_fit(c, 0, req), 1);
	CU_ASSERT_EQUAL(put(c, &a[4], G(1), G(3)), -1);
	CU_ASSERT_EQUAL(put(c, &a[5], G(2), G(2)), 0); /* 5/0 7/2 7/2 7/2 */
	CU_ASSERT_EQUAL(put(c, &a[6], G(1), G(1)), 1); /* 5/0 6/1 7/2 7/2 */
	CU_ASSERT_EQUAL(put(c, &a[7], G(1), G(2)), 2); /* 5/0 6/1 6/0 7/2 */
	CU_ASSERT_EQUAL(put(c, &a[8], G(1), G(2)), 3); /* 5/0 6/1 6/0 6/0 */
	CU_ASSERT_EQUAL(put(c, &a[9], G(1), G(1)), 1); /* bucket 6: 2 and 3 have no cpu */
	CU_ASSERT_EQUAL(put(c, &a[10], G(1), G(1)), -1);
	CU_ASSERT_EQUAL(put(c, &a[11], G(5), 0), 2);   /* GPU-only: emptiest (6), lowest index */
	sim_cluster_destroy(c);
}

static void test_cluster_whole_nodes(void)
{
	struct sim_cluster *c = mk1(4, G(8), 0, SIM_PLACE_BEST_FIT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	sim_qty_t req12[SIM_MAX_RES] = { G(12) };
	sim_qty_t req16[SIM_MAX_RES] = { G(16) };
	sim_qty_t req32[SIM_MAX_RES] = { G(32) };
	sim_qty_t req33[SIM_MAX_RES] = { G(33) };
	struct sim_alloc w, w2, one, two;

	CU_ASSERT_EQUAL(sim_cluster_alloc_gpu(c, 0, req12), G(16));
	CU_ASSERT_EQUAL(sim_cluster_could_fit(c, 0, req32), 1);
	CU_ASSERT_EQUAL(sim_cluster_could_fit(c, 0, req33), 0); /* 5 nodes of 4 */
	CU_ASSERT_EQUAL(sim_cluster_fits(c, 0, req12), 1);
	CU_ASSERT_EQUAL_FATAL(sim_cluster_place(c, 0, req12, &w), 0);
	CU_ASSERT_EQUAL(w.flavor, 0);
	CU_ASSERT_EQUAL(w.whole, 1);
	CU_ASSERT_EQUAL_FATAL(w.n_nodes, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(w.nodes);
	CU_ASSERT_EQUAL(w.nodes[0], 0);
	CU_ASSERT_EQUAL(w.nodes[1], 1);
	CU_ASSERT_EQUAL(w.node, 0);
	CU_ASSERT_EQUAL(free_gpu(c, 0), 0);
	CU_ASSERT_EQUAL(free_gpu(c, 1), 0);
	CU_ASSERT_EQUAL(sim_cluster_gpu_busy(c, 0), G(16)); /* whole nodes, not 12 */
	CU_ASSERT_EQUAL(sim_cluster_check(c), 0);

	CU_ASSERT_EQUAL(put(c, &one, G(1), 0), 2); /* free: 0 0 7 8 = 15 GPUs */
	CU_ASSERT_EQUAL(sim_cluster_fits(c, 0, req12), 0); /* only one fully free node */
	CU_ASSERT_EQUAL(sim_cluster_could_fit(c, 0, req12), 1);
	CU_ASSERT_EQUAL(sim_cluster_place(c, 0, req12, &w2), -SIM_ENOFIT);
	CU_ASSERT_EQUAL(sim_cluster_gpu_busy(c, 0), G(17));
	CU_ASSERT_EQUAL(sim_cluster_check(c), 0);

	sim_cluster_release(c, &w, req12);
	CU_ASSERT_EQUAL(w.n_nodes, 0);
	CU_ASSERT_PTR_NULL(w.nodes);
	CU_ASSERT_EQUAL(free_gpu(c, 0), G(8));
	CU_ASSERT_EQUAL(free_gpu(c, 1), G(8));
	CU_ASSERT_EQUAL(sim_cluster_check(c), 0);

	/* With node 1 partly busy, the lowest-index fully free nodes are 0 and 2. */
	drop(c, &one, G(1), 0);
	CU_ASSERT_EQUAL(put(c, &one, G(7), 0), 0);
	CU_ASSERT_EQUAL(put(c, &two, G(7), 0), 1); /* free: 1 1 8 8 */
	drop(c, &one, G(7), 0);                    /* free: 8 1 8 8 */
	CU_ASSERT_EQUAL_FATAL(sim_cluster_place(c, 0, req16, &w), 0);
	CU_ASSERT_EQUAL_FATAL(w.n_nodes, 2);
	CU_ASSERT_EQUAL(w.nodes[0], 0);
	CU_ASSERT_EQUAL(w.nodes[1], 2); /* skips the busy node 1 */
	CU_ASSERT_EQUAL(sim_cluster_check(c), 0);
	CU_ASSERT_EQUAL(sim_cluster_place(c, 0, req16, &w2), -SIM_ENOFIT);
	sim_cluster_release(c, &w, req16);
	drop(c, &two, G(7), 0);
	CU_ASSERT_EQUAL(sim_cluster_gpu_busy(c, -1), 0);
	CU_ASSERT_EQUAL_FATAL(sim_cluster_place(c, 0, req32, &w), 0);
	CU_ASSERT_EQUAL(w.n_nodes, 4);
	CU_ASSERT_EQUAL(sim_cluster_gpu_busy(c, 0), G(32));
	sim_cluster_release(c, &w, req32);
	CU_ASSERT_EQUAL(sim_cluster_check(c), 0);
	sim_cluster_destroy(c);
}

/* Whole nodes also take every other resource; a GPU-less job makes a node not fully free. */
static void test_cluster_whole_nodes_other_resources(void)
{
	struct sim_cluster *c = mk1(4, G(8), G(32), SIM_PLACE_FIRST_FIT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	sim_qty_t ok[SIM_MAX_RES] = { G(12), G(64) };
	sim_qty_t too_many_cpus[SIM_MAX_RES] = { G(12), G(64) + 1 };
	struct sim_alloc cpu_job, w;
	CU_ASSERT_EQUAL(sim_cluster_could_fit(c, 0, ok), 1);
	CU_ASSERT_EQUAL(sim_cluster_could_fit(c, 0, too_many_cpus), 0); /* 2 nodes: 64 cpus */
	CU_ASSERT_EQUAL(sim_cluster_fits(c, 0, too_many_cpus), 0);
	CU_ASSERT_EQUAL(sim_cluster_place(c, 0, too_many_cpus, &w), -SIM_ENOFIT);

	CU_ASSERT_EQUAL(put(c, &cpu_job, 0, G(1)), 0); /* node 0: all GPUs free, 31 cpus */
	CU_ASSERT_EQUAL_FATAL(sim_cluster_place(c, 0, ok, &w), 0);
	CU_ASSERT_EQUAL_FATAL(w.n_nodes, 2);
	CU_ASSERT_EQUAL(w.nodes[0], 1);
	CU_ASSERT_EQUAL(w.nodes[1], 2);
	CU_ASSERT_EQUAL(free_cpu(c, 1), 0);
	CU_ASSERT_EQUAL(free_cpu(c, 2), 0);
	CU_ASSERT_EQUAL(sim_cluster_fits(c, 0, ok), 0); /* only node 3 is fully free */
	CU_ASSERT_EQUAL(sim_cluster_check(c), 0);
	sim_cluster_release(c, &w, ok);
	CU_ASSERT_EQUAL(free_cpu(c, 1), G(32));
	drop(c, &cpu_job, 0, G(1));
	CU_ASSERT_EQUAL(free_cpu(c, 0), G(32));
	/* single-node request larger than a node in another resource never fits */
	sim_qty_t big_cpu[SIM_MAX_RES] = { G(1), G(33) };
	CU_ASSERT_EQUAL(sim_cluster_could_fit(c, 0, big_cpu), 0);
	CU_ASSERT_EQUAL(sim_cluster_fits(c, 0, big_cpu), 0);
	sim_cluster_destroy(c);
}

/* Fractional GPUs: 0.5 GPU = 500 milli-units; two jobs share one GPU. */
static void test_cluster_fractional_gpu(void)
{
	struct sim_cluster *c = mk1(2, G(1), 0, SIM_PLACE_BEST_FIT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	struct sim_alloc a[6];
	CU_ASSERT_EQUAL(put(c, &a[0], 500, 0), 0);
	CU_ASSERT_EQUAL(put(c, &a[1], 500, 0), 0); /* packs node 0 */
	CU_ASSERT_EQUAL(put(c, &a[2], 500, 0), 1);
	CU_ASSERT_EQUAL(put(c, &a[3], 700, 0), -1);
	CU_ASSERT_EQUAL(put(c, &a[4], 250, 0), 1);
	CU_ASSERT_EQUAL(free_gpu(c, 1), 250);
	CU_ASSERT_EQUAL(sim_cluster_gpu_busy(c, 0), 1750);
	sim_qty_t r1500[SIM_MAX_RES] = { 1500 }, r2001[SIM_MAX_RES] = { 2001 };
	CU_ASSERT_EQUAL(sim_cluster_alloc_gpu(c, 0, r1500), 2000); /* two whole 1-GPU nodes */
	CU_ASSERT_EQUAL(sim_cluster_could_fit(c, 0, r1500), 1);
	CU_ASSERT_EQUAL(sim_cluster_could_fit(c, 0, r2001), 0);
	drop(c, &a[1], 500, 0);
	CU_ASSERT_EQUAL(put(c, &a[5], 250, 0), 1); /* 250 left on node 1 is fuller than 500 */
	CU_ASSERT_EQUAL(free_gpu(c, 1), 0);
	sim_cluster_destroy(c);
}

/* Placing and releasing a mix (two flavors, partial and whole) restores every node. */
static void test_cluster_release_restores(void)
{
	struct sim_resources res = mkres(2);
	struct sim_flavor_spec s[2] = { mkspec("a", 5, G(8), G(32)), mkspec("b", 4, G(4), G(16)) };
	struct sim_cluster *c = sim_cluster_create(&res, s, 2, SIM_PLACE_BEST_FIT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	sim_qty_t reqs[6][SIM_MAX_RES] = {
		{ G(3), G(5) }, { 500, G(1) }, { G(16), G(40) }, { 0, G(2) }, { G(4), G(16) }, { G(8), 0 },
	};
	int fl[6] = { 0, 0, 0, 1, 1, 1 };
	struct sim_alloc a[6];
	uint32_t first_nodes[6][2];
	for (int i = 0; i < 6; i++) {
		CU_ASSERT_EQUAL_FATAL(sim_cluster_place(c, fl[i], reqs[i], &a[i]), 0);
		CU_ASSERT_EQUAL(sim_cluster_check(c), 0);
		first_nodes[i][0] = a[i].node;
		first_nodes[i][1] = a[i].nodes ? a[i].nodes[1] : a[i].node;
	}
	/* a: 3 and 0.5 GPUs share node 0, the 16-GPU job takes nodes 1 and 2;
	 * b: the GPU-less job sits on node 0 (4 GPUs, 14 cpus left), so the 4-GPU
	 * 16-cpu job goes to node 1 and the 8-GPU job to the fully free nodes 2 and 3. */
	CU_ASSERT_EQUAL(first_nodes[1][0], 0);
	CU_ASSERT_EQUAL(first_nodes[2][0], 1);
	CU_ASSERT_EQUAL(first_nodes[2][1], 2);
	CU_ASSERT_EQUAL(first_nodes[3][0], 0);
	CU_ASSERT_EQUAL(first_nodes[4][0], 1);
	CU_ASSERT_EQUAL(first_nodes[5][0], 2);
	CU_ASSERT_EQUAL(first_nodes[5][1], 3);
	CU_ASSERT_EQUAL(sim_cluster_gpu_busy(c, 0), G(3) + 500 + G(16));
	CU_ASSERT_EQUAL(sim_cluster_gpu_busy(c, 1), G(12)); /* 8 GPUs = 2 whole 4-GPU nodes */
	CU_ASSERT_EQUAL(sim_cluster_gpu_busy(c, -1), G(31) + 500);
	CU_ASSERT_EQUAL(sim_cluster_gpu_total(c, -1), G(56));
	const int order[6] = { 2, 5, 0, 4, 1, 3 };
	for (int k = 0; k < 6; k++) {
		int i = order[k];
		sim_cluster_release(c, &a[i], reqs[i]);
		CU_ASSERT_EQUAL(a[i].flavor, -1);
		CU_ASSERT_EQUAL(a[i].n_nodes, 0);
		CU_ASSERT_EQUAL(sim_cluster_check(c), 0);
	}
	for (int f = 0; f < 2; f++)
		for (uint32_t n = 0; n < s[f].nodes; n++) {
			CU_ASSERT_EQUAL(sim_cluster_node_free(c, f, n)[0], s[f].node_cap[0]);
			CU_ASSERT_EQUAL(sim_cluster_node_free(c, f, n)[1], s[f].node_cap[1]);
		}
	CU_ASSERT_EQUAL(sim_cluster_gpu_busy(c, -1), 0);
	/* Back to the start: the same sequence lands on the same nodes again. */
	for (int i = 0; i < 6; i++) {
		CU_ASSERT_EQUAL_FATAL(sim_cluster_place(c, fl[i], reqs[i], &a[i]), 0);
		CU_ASSERT_EQUAL(a[i].node, first_nodes[i][0]);
		CU_ASSERT_EQUAL(a[i].nodes ? a[i].nodes[1] : a[i].node, first_nodes[i][1]);
	}
	for (int i = 0; i < 6; i++)
		sim_cluster_release(c, &a[i], reqs[i]);
	CU_ASSERT_EQUAL(sim_cluster_check(c), 0);
	sim_cluster_destroy(c);
}

static void test_cluster_zero_node_flavor(void)
{
	struct sim_resources res = mkres(1);
	struct sim_flavor_spec s[2] = { mkspec("empty", 0, G(8), 0), mkspec("one", 1, G(8), 0) };
	for (int p = 0; p < SIM_PLACE_COUNT_; p++) {
		struct sim_cluster *c = sim_cluster_create(&res, s, 2, (enum sim_placement)p);
		CU_ASSERT_PTR_NOT_NULL_FATAL(c);
		sim_qty_t zero[SIM_MAX_RES] = { 0 }, one[SIM_MAX_RES] = { G(1) }, big[SIM_MAX_RES] = { G(9) };
		struct sim_alloc a;
		CU_ASSERT_EQUAL(sim_cluster_n_nodes(c, 0), 0);
		CU_ASSERT_EQUAL(sim_cluster_gpu_total(c, 0), 0);
		CU_ASSERT_EQUAL(sim_cluster_gpu_total(c, -1), G(8));
		CU_ASSERT_EQUAL(sim_cluster_could_fit(c, 0, zero), 0);
		CU_ASSERT_EQUAL(sim_cluster_could_fit(c, 0, one), 0);
		CU_ASSERT_EQUAL(sim_cluster_fits(c, 0, one), 0);
		CU_ASSERT_EQUAL(sim_cluster_fits(c, 0, big), 0);
		CU_ASSERT_EQUAL(sim_cluster_place(c, 0, one, &a), -SIM_ENOFIT);
		CU_ASSERT_EQUAL(sim_cluster_place(c, 0, big, &a), -SIM_ENOFIT);
		CU_ASSERT_PTR_NULL(sim_cluster_node_free(c, 0, 0));
		CU_ASSERT_EQUAL(sim_cluster_place(c, 1, one, &a), 0);
		CU_ASSERT_EQUAL(a.flavor, 1);
		CU_ASSERT_EQUAL(sim_cluster_check(c), 0);
		sim_cluster_release(c, &a, one);
		CU_ASSERT_EQUAL(sim_cluster_place(c, 1, big, &a), -SIM_ENOFIT); /* 2 nodes of 1 */
		CU_ASSERT_EQUAL(sim_cluster_place(c, 5, one, &a), -SIM_EINVAL);
		CU_ASSERT_EQUAL(sim_cluster_check(c), 0);
		sim_cluster_destroy(c);
	}
}


/* ---- capacity over time: peak nodes, online / draining / offline ---- */

/* One flavor "f": `nodes` online of `peak`, 8 GPUs a node, with 64 cpus when cpu is set. */
static struct sim_cluster *mk_peak(uint32_t nodes, uint32_t peak, int cpu, enum sim_placement p)
{
	struct sim_resources res = mkres(cpu ? 2 : 1);
	struct sim_flavor_spec s = mkspec("f", nodes, G(8), cpu ? G(64) : 0);
	s.peak_nodes = peak;
	return sim_cluster_create(&res, &s, 1, p);
}

static enum sim_node_state st(const struct sim_cluster *c, uint32_t node)
{
	return sim_cluster_node_state(c, 0, node);
}

/* Sets the online target and checks the call and the indexes; returns the drained count. */
static size_t resize(struct sim_cluster *c, uint32_t target, uint32_t *busy)
{
	size_t n_busy = 999;
	CU_ASSERT_EQUAL(sim_cluster_set_nodes(c, 0, target, busy, &n_busy), 0);
	CU_ASSERT_EQUAL(sim_cluster_nodes_online(c, 0), target);
	CU_ASSERT_EQUAL(sim_cluster_check(c), 0);
	return n_busy;
}

static void test_cluster_peak_nodes_spec(void)
{
	struct sim_resources res = mkres(2);
	struct sim_flavor_spec s = mkspec("f", 4, G(8), G(64));
	s.peak_nodes = 3; /* below nodes */
	CU_ASSERT_PTR_NULL(sim_cluster_create(&res, &s, 1, SIM_PLACE_BEST_FIT));
	s.peak_nodes = 0; /* = nodes */
	struct sim_cluster *c = sim_cluster_create(&res, &s, 1, SIM_PLACE_BEST_FIT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(sim_cluster_n_nodes(c, 0), 4);
	CU_ASSERT_EQUAL(sim_cluster_flavor(c, 0)->peak_nodes, 4);
	CU_ASSERT_EQUAL(sim_cluster_nodes_online(c, 0), 4);
	CU_ASSERT_EQUAL(sim_cluster_set_nodes(c, 0, 5, NULL, NULL), -SIM_EINVAL); /* past peak */
	CU_ASSERT_EQUAL(sim_cluster_set_nodes(c, 1, 1, NULL, NULL), -SIM_EINVAL); /* no flavor */
	CU_ASSERT_EQUAL(sim_cluster_nodes_online(c, 0), 4);
	sim_cluster_destroy(c);

	/* 2 online of 6: nodes 2..5 start offline, out of the total and of every placement. */
	c = mk_peak(2, 6, 1, SIM_PLACE_SPREAD);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(sim_cluster_check(c), 0);
	CU_ASSERT_EQUAL(sim_cluster_n_nodes(c, 0), 6);
	CU_ASSERT_EQUAL(sim_cluster_flavor(c, 0)->nodes, 2);
	CU_ASSERT_EQUAL(sim_cluster_flavor(c, 0)->peak_nodes, 6);
	CU_ASSERT_EQUAL(sim_cluster_nodes_online(c, 0), 2);
	CU_ASSERT_EQUAL(sim_cluster_gpu_total(c, 0), G(16));
	CU_ASSERT_EQUAL(sim_cluster_gpu_total(c, -1), G(16));
	for (uint32_t n = 0; n < 6; n++) {
		CU_ASSERT_EQUAL(st(c, n), n < 2 ? SIM_NODE_ONLINE : SIM_NODE_OFFLINE);
		CU_ASSERT_EQUAL(free_gpu(c, n), n < 2 ? G(8) : 0);
		CU_ASSERT_EQUAL(free_cpu(c, n), n < 2 ? G(64) : 0);
	}
	CU_ASSERT_EQUAL(st(c, 6), SIM_NODE_OFFLINE); /* no such node */
	CU_ASSERT_EQUAL(sim_cluster_free_gen(c, 0), 0);
	/* could_fit judges the peak (6 nodes), fits the 2 online ones. */
	sim_qty_t four[SIM_MAX_RES] = { G(32), G(10) }, seven[SIM_MAX_RES] = { G(56) };
	sim_qty_t two[SIM_MAX_RES] = { G(16) };
	CU_ASSERT_EQUAL(sim_cluster_could_fit(c, 0, four), 1);
	CU_ASSERT_EQUAL(sim_cluster_could_fit(c, 0, seven), 0);
	CU_ASSERT_EQUAL(sim_cluster_fits(c, 0, four), 0);
	CU_ASSERT_EQUAL(sim_cluster_fits(c, 0, two), 1);
	struct sim_alloc a;
	CU_ASSERT_EQUAL(sim_cluster_place(c, 0, four, &a), -SIM_ENOFIT);
	CU_ASSERT_EQUAL(resize(c, 4, NULL), 0);
	CU_ASSERT_EQUAL(sim_cluster_free_gen(c, 0), 1);
	CU_ASSERT_EQUAL(sim_cluster_gpu_total(c, 0), G(32));
	CU_ASSERT_EQUAL_FATAL(sim_cluster_place(c, 0, four, &a), 0);
	CU_ASSERT_EQUAL(a.n_nodes, 4);
	CU_ASSERT_EQUAL(a.nodes[3], 3);
	sim_cluster_release(c, &a, four);
	CU_ASSERT_EQUAL(sim_cluster_check(c), 0);
	sim_cluster_destroy(c);

	/* 40 online of 3000 (94 groups, 2 super groups): the groups and super groups
	 * without an online node keep no maxima; growing and shrinking move them. */
	c = mk_peak(40, 3000, 1, SIM_PLACE_FIRST_FIT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(sim_cluster_check(c), 0);
	sim_qty_t cpu_req[SIM_MAX_RES] = { G(1), G(64) };
	CU_ASSERT_EQUAL(sim_cluster_fits(c, 0, cpu_req), 1);
	CU_ASSERT_EQUAL(resize(c, 3000, NULL), 0);
	CU_ASSERT_EQUAL(resize(c, 2100, NULL), 0);
	CU_ASSERT_EQUAL(resize(c, 0, NULL), 0);
	CU_ASSERT_EQUAL(sim_cluster_fits(c, 0, cpu_req), 0);
	CU_ASSERT_EQUAL(resize(c, 2049, NULL), 0);
	CU_ASSERT_EQUAL(sim_cluster_place(c, 0, cpu_req, &a), 0);
	CU_ASSERT_EQUAL(a.node, 0);
	sim_cluster_release(c, &a, cpu_req);
	sim_cluster_destroy(c);

	/* A flavor with no node online yet (a reservation before its window). */
	c = mk_peak(0, 3, 0, SIM_PLACE_BEST_FIT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	sim_qty_t one[SIM_MAX_RES] = { G(1) }, zero[SIM_MAX_RES] = { 0 };
	CU_ASSERT_EQUAL(sim_cluster_could_fit(c, 0, one), 1);
	CU_ASSERT_EQUAL(sim_cluster_fits(c, 0, one), 0);
	CU_ASSERT_EQUAL(sim_cluster_fits(c, 0, zero), 0);
	CU_ASSERT_EQUAL(sim_cluster_place(c, 0, zero, &a), -SIM_ENOFIT);
	CU_ASSERT_EQUAL(sim_cluster_gpu_total(c, 0), 0);
	CU_ASSERT_EQUAL(resize(c, 1, NULL), 0);
	CU_ASSERT_EQUAL(put(c, &a, G(1), 0), 0);
	drop(c, &a, G(1), 0);
	sim_cluster_destroy(c);
}

/* Shrinking takes fully free nodes first, highest index first, offline at once. */
static void test_cluster_shrink_free_nodes(void)
{
	struct sim_cluster *c = mk_peak(5, 5, 0, SIM_PLACE_FIRST_FIT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	struct sim_alloc a0, a2;
	CU_ASSERT_EQUAL(put(c, &a0, G(8), 0), 0);
	CU_ASSERT_EQUAL(put(c, &a2, G(3), 0), 1);
	/* busy: 0 (full), 1 (3 GPUs); free: 2, 3, 4 */
	uint32_t busy[5];
	uint64_t gen = sim_cluster_free_gen(c, 0);
	CU_ASSERT_EQUAL(resize(c, 3, busy), 0);
	CU_ASSERT_EQUAL(st(c, 4), SIM_NODE_OFFLINE);
	CU_ASSERT_EQUAL(st(c, 3), SIM_NODE_OFFLINE);
	CU_ASSERT_EQUAL(st(c, 2), SIM_NODE_ONLINE);
	CU_ASSERT_EQUAL(sim_cluster_gpu_total(c, 0), G(24));
	CU_ASSERT_EQUAL(sim_cluster_gpu_busy(c, 0), G(11));
	CU_ASSERT_EQUAL(sim_cluster_free_gen(c, 0), gen); /* shrinking frees nothing */
	/* One more: node 2 is the only free one left. */
	CU_ASSERT_EQUAL(resize(c, 2, busy), 0);
	CU_ASSERT_EQUAL(st(c, 2), SIM_NODE_OFFLINE);
	CU_ASSERT_EQUAL(sim_cluster_gpu_total(c, 0), G(16));
	struct sim_alloc b;
	CU_ASSERT_EQUAL(put(c, &b, G(8), 0), -1); /* only 5 GPUs free, on node 1 */
	CU_ASSERT_EQUAL(put(c, &b, G(5), 0), 1);
	drop(c, &b, G(5), 0);
	drop(c, &a0, G(8), 0);
	drop(c, &a2, G(3), 0);
	sim_cluster_destroy(c);

	/* A free node below a busy one goes first: busy 3, free 0..2. */
	c = mk_peak(4, 4, 0, SIM_PLACE_SPREAD);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	struct sim_alloc h[3];
	for (int n = 0; n < 3; n++)
		CU_ASSERT_EQUAL(put(c, &h[n], G(8), 0), n);
	CU_ASSERT_EQUAL(put(c, &b, G(1), 0), 3);
	for (int n = 0; n < 3; n++)
		drop(c, &h[n], G(8), 0);
	CU_ASSERT_EQUAL(resize(c, 2, busy), 0);
	CU_ASSERT_EQUAL(st(c, 3), SIM_NODE_ONLINE);
	CU_ASSERT_EQUAL(st(c, 2), SIM_NODE_OFFLINE);
	CU_ASSERT_EQUAL(st(c, 1), SIM_NODE_OFFLINE);
	CU_ASSERT_EQUAL(st(c, 0), SIM_NODE_ONLINE);
	drop(c, &b, G(1), 0);
	sim_cluster_destroy(c);
}

/* Shrinking past the free nodes drains busy ones (highest index first), reports them,
 * and they take no new placement; a release there is held back, and the node goes
 * offline once its last job is gone. */
static void test_cluster_shrink_busy_nodes(void)
{
	struct sim_cluster *c = mk_peak(4, 4, 1, SIM_PLACE_BEST_FIT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	struct sim_alloc a[4], b;
	for (uint32_t n = 0; n < 4; n++) /* best_fit packs: 6 GPUs and 8 cpus on each node */
		CU_ASSERT_EQUAL(put(c, &a[n], G(6), G(8)), (int)n);
	struct sim_alloc x;
	CU_ASSERT_EQUAL(put(c, &x, G(1), G(1)), 0); /* node 0: 1 GPU left */
	uint32_t busy[4] = { 99, 99, 99, 99 };
	uint64_t gen = sim_cluster_free_gen(c, -1);
	CU_ASSERT_EQUAL(resize(c, 1, busy), 3);
	CU_ASSERT_EQUAL(busy[0], 3);
	CU_ASSERT_EQUAL(busy[1], 2);
	CU_ASSERT_EQUAL(busy[2], 1);
	CU_ASSERT_EQUAL(busy[3], 99);
	for (uint32_t n = 1; n < 4; n++) {
		CU_ASSERT_EQUAL(st(c, n), SIM_NODE_DRAINING);
		CU_ASSERT_EQUAL(free_gpu(c, n), 0); /* held back */
	}
	/* total: node 0 (8) + the busy GPUs of 1..3 (6 each); busy: every allocation */
	CU_ASSERT_EQUAL(sim_cluster_gpu_total(c, 0), G(26));
	CU_ASSERT_EQUAL(sim_cluster_gpu_busy(c, 0), G(25));
	/* 2 GPUs fit nowhere now (node 0 has 1 free; 1..3 hold 2 each back). */
	sim_qty_t req2[SIM_MAX_RES] = { G(2), G(1) }, req1[SIM_MAX_RES] = { G(1), G(1) };
	CU_ASSERT_EQUAL(sim_cluster_fits(c, 0, req2), 0);
	CU_ASSERT_EQUAL(put(c, &b, G(2), G(1)), -1);
	CU_ASSERT_EQUAL(put(c, &b, G(1), G(1)), 0);
	CU_ASSERT_EQUAL(sim_cluster_fits(c, 0, req1), 0);
	struct sim_alloc y;
	CU_ASSERT_EQUAL(put(c, &y, 0, G(55)), -1); /* GPU-less: node 0 has 54 cpus, 1..3 hold 56 back */
	/* A release on draining node 2: held back, no new free capacity; node 2 offline. */
	drop(c, &a[2], G(6), G(8));
	CU_ASSERT_EQUAL(st(c, 2), SIM_NODE_OFFLINE);
	CU_ASSERT_EQUAL(free_gpu(c, 2), 0);
	CU_ASSERT_EQUAL(sim_cluster_free_gen(c, -1), gen);
	CU_ASSERT_EQUAL(sim_cluster_gpu_total(c, 0), G(20));
	CU_ASSERT_EQUAL(sim_cluster_gpu_busy(c, 0), G(20));
	CU_ASSERT_EQUAL(put(c, &y, G(2), G(1)), -1);
	/* A release on the online node frees capacity there. */
	drop(c, &a[0], G(6), G(8));
	CU_ASSERT_EQUAL(sim_cluster_free_gen(c, -1), gen + 1);
	CU_ASSERT_EQUAL(free_gpu(c, 0), G(6));
	/* Shrinking to 0: b and x still run on node 0, so it drains too. */
	CU_ASSERT_EQUAL(resize(c, 0, busy), 1);
	CU_ASSERT_EQUAL(busy[0], 0);
	CU_ASSERT_EQUAL(sim_cluster_gpu_total(c, 0), G(14)); /* b (1) + x (1) + a[1] (6) + a[3] (6) */
	CU_ASSERT_EQUAL(sim_cluster_fits(c, 0, req1), 0);
	drop(c, &b, G(1), G(1));
	CU_ASSERT_EQUAL(st(c, 0), SIM_NODE_DRAINING); /* x still runs */
	drop(c, &x, G(1), G(1));
	CU_ASSERT_EQUAL(st(c, 0), SIM_NODE_OFFLINE);
	drop(c, &a[1], G(6), G(8));
	drop(c, &a[3], G(6), G(8));
	for (uint32_t n = 0; n < 4; n++)
		CU_ASSERT_EQUAL(st(c, n), SIM_NODE_OFFLINE);
	CU_ASSERT_EQUAL(sim_cluster_gpu_total(c, -1), 0);
	CU_ASSERT_EQUAL(sim_cluster_gpu_busy(c, -1), 0);
	CU_ASSERT_EQUAL(sim_cluster_free_gen(c, -1), gen + 1);
	sim_cluster_destroy(c);
}


/* Growing brings draining nodes back first (lowest index first, with what they held
 * back), then offline ones (lowest index first). */
static void test_cluster_grow_order(void)
{
	struct sim_cluster *c = mk_peak(6, 8, 0, SIM_PLACE_FIRST_FIT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	struct sim_alloc a[3];
	CU_ASSERT_EQUAL(put(c, &a[0], G(8), 0), 0);
	CU_ASSERT_EQUAL(put(c, &a[1], G(8), 0), 1);
	CU_ASSERT_EQUAL(put(c, &a[2], G(5), 0), 2);
	/* online 0..5, offline 6, 7; shrink to 1: free 5, 4, 3 go offline, then 2, 1 drain */
	uint32_t busy[8];
	CU_ASSERT_EQUAL(resize(c, 1, busy), 2);
	CU_ASSERT_EQUAL(busy[0], 2);
	CU_ASSERT_EQUAL(busy[1], 1);
	for (uint32_t n = 0; n < 8; n++)
		CU_ASSERT_EQUAL(st(c, n), n == 0 ? SIM_NODE_ONLINE
						 : n < 3 ? SIM_NODE_DRAINING : SIM_NODE_OFFLINE);
	CU_ASSERT_EQUAL(sim_cluster_gpu_total(c, 0), G(8 + 8 + 5));
	/* +1: node 1 (draining, lowest) comes back, still full. */
	uint64_t gen = sim_cluster_free_gen(c, 0);
	CU_ASSERT_EQUAL(resize(c, 2, busy), 0);
	CU_ASSERT_EQUAL(st(c, 1), SIM_NODE_ONLINE);
	CU_ASSERT_EQUAL(st(c, 2), SIM_NODE_DRAINING);
	CU_ASSERT_EQUAL(sim_cluster_free_gen(c, 0), gen + 1);
	/* +2: node 2 (3 GPUs held back are free again), then offline node 3. */
	CU_ASSERT_EQUAL(resize(c, 4, busy), 0);
	CU_ASSERT_EQUAL(st(c, 2), SIM_NODE_ONLINE);
	CU_ASSERT_EQUAL(free_gpu(c, 2), G(3));
	CU_ASSERT_EQUAL(st(c, 3), SIM_NODE_ONLINE);
	CU_ASSERT_EQUAL(st(c, 4), SIM_NODE_OFFLINE);
	CU_ASSERT_EQUAL(sim_cluster_free_gen(c, 0), gen + 2);
	CU_ASSERT_EQUAL(sim_cluster_gpu_total(c, 0), G(32));
	struct sim_alloc b;
	CU_ASSERT_EQUAL(put(c, &b, G(3), 0), 2); /* first_fit: node 2's 3 GPUs */
	drop(c, &b, G(3), 0);
	/* To the peak: 4, 5, 6, 7 in that order; then setting the same target changes nothing. */
	CU_ASSERT_EQUAL(resize(c, 8, busy), 0);
	for (uint32_t n = 0; n < 8; n++)
		CU_ASSERT_EQUAL(st(c, n), SIM_NODE_ONLINE);
	CU_ASSERT_EQUAL(sim_cluster_gpu_total(c, 0), G(64));
	gen = sim_cluster_free_gen(c, 0);
	CU_ASSERT_EQUAL(resize(c, 8, busy), 0);
	CU_ASSERT_EQUAL(sim_cluster_free_gen(c, 0), gen);
	for (int i = 0; i < 3; i++)
		sim_cluster_release(c, &a[i], (sim_qty_t[SIM_MAX_RES]){ i < 2 ? G(8) : G(5) });
	CU_ASSERT_EQUAL(sim_cluster_gpu_busy(c, 0), 0);
	CU_ASSERT_EQUAL(sim_cluster_check(c), 0);
	sim_cluster_destroy(c);
}

/* Draining and offline nodes are invisible to every placement path. Layout (free GPUs,
 * cpus when cpu is set): online 0 (4, 4), 1 (2, 4), 2 (3, 4), 3 (4, 4); draining 4 (1,
 * 56) and 5 (6, 56); offline 6 and 7 (8, 64). Were they visible, best_fit would put 1
 * GPU on node 4, spread on node 6, first_fit 5 GPUs on node 5, whole nodes on 6 and 7,
 * and a 10-cpu request on node 4. */
static void hidden_case(enum sim_placement p, int cpu)
{
	static const sim_qty_t used_gpu[6] = { G(4), G(6), G(5), G(4), G(7), G(2) };
	struct sim_cluster *c = mk_peak(8, 8, cpu, p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	struct sim_alloc hold[8], a[6], fill[6], b;
	/* Every node full, then node by node: its job, and a filler for the rest so the
	 * next job cannot land there. */
	for (uint32_t n = 0; n < 8; n++)
		CU_ASSERT_EQUAL_FATAL(put(c, &hold[n], G(8), 0), (int)n);
	for (uint32_t n = 0; n < 6; n++) {
		sim_qty_t used_cpu = cpu ? (n < 4 ? G(60) : G(8)) : 0;
		drop(c, &hold[n], G(8), 0);
		CU_ASSERT_EQUAL_FATAL(put(c, &a[n], used_gpu[n], used_cpu), (int)n);
		sim_qty_t rest_cpu = cpu ? G(64) - used_cpu : 0;
		CU_ASSERT_EQUAL_FATAL(put(c, &fill[n], G(8) - used_gpu[n], rest_cpu), (int)n);
	}
	drop(c, &hold[6], G(8), 0);
	drop(c, &hold[7], G(8), 0);
	for (uint32_t n = 0; n < 6; n++)
		drop(c, &fill[n], G(8) - used_gpu[n], cpu ? G(64) - (n < 4 ? G(60) : G(8)) : 0);
	uint32_t busy[8];
	CU_ASSERT_EQUAL(resize(c, 4, busy), 2); /* 7, 6 (free) offline, then 5, 4 drain */
	CU_ASSERT_EQUAL(busy[0], 5);
	CU_ASSERT_EQUAL(busy[1], 4);
	for (uint32_t n = 0; n < 8; n++)
		CU_ASSERT_EQUAL(st(c, n), n < 4 ? SIM_NODE_ONLINE
						: n < 6 ? SIM_NODE_DRAINING : SIM_NODE_OFFLINE);

	int want1 = p == SIM_PLACE_BEST_FIT ? 1 : 0; /* best_fit: fullest online; else node 0 */
	CU_ASSERT_EQUAL(put(c, &b, G(1), cpu ? G(1) : 0), want1);
	drop(c, &b, G(1), cpu ? G(1) : 0);
	sim_qty_t five[SIM_MAX_RES] = { G(5) }, two_nodes[SIM_MAX_RES] = { G(16) };
	CU_ASSERT_EQUAL(sim_cluster_fits(c, 0, five), 0);
	CU_ASSERT_EQUAL(put(c, &b, G(5), 0), -1);
	CU_ASSERT_EQUAL(sim_cluster_fits(c, 0, two_nodes), 0);
	CU_ASSERT_EQUAL(sim_cluster_place(c, 0, two_nodes, &b), -SIM_ENOFIT);
	CU_ASSERT_EQUAL(sim_cluster_could_fit(c, 0, two_nodes), 1);
	if (cpu) { /* 10 cpus: only held-back or offline nodes have them */
		sim_qty_t cpu_only[SIM_MAX_RES] = { 0, G(10) }, mixed[SIM_MAX_RES] = { G(1), G(10) };
		CU_ASSERT_EQUAL(sim_cluster_fits(c, 0, cpu_only), 0);
		CU_ASSERT_EQUAL(sim_cluster_fits(c, 0, mixed), 0);
		CU_ASSERT_EQUAL(put(c, &b, 0, G(10)), -1);
		CU_ASSERT_EQUAL(put(c, &b, G(1), G(10)), -1);
		int n = put(c, &b, 0, G(4)); /* GPU-less: the online nodes' 4 cpus */
		CU_ASSERT(n >= 0 && n < 4);
		if (n >= 0)
			drop(c, &b, 0, G(4));
	}
	/* A request of nothing still lands on an online node. */
	int z = put(c, &b, 0, 0);
	CU_ASSERT(z >= 0 && z < 4);
	if (z >= 0)
		drop(c, &b, 0, 0);

	/* Back to 8: the same requests now find the nodes that came back. */
	CU_ASSERT_EQUAL(resize(c, 8, busy), 0);
	int spread = p == SIM_PLACE_SPREAD, best = p == SIM_PLACE_BEST_FIT;
	int want_back = best ? 4 : spread ? 6 : 0;
	CU_ASSERT_EQUAL(put(c, &b, G(1), cpu ? G(1) : 0), want_back);
	drop(c, &b, G(1), cpu ? G(1) : 0);
	CU_ASSERT_EQUAL(put(c, &b, G(5), 0), spread ? 6 : 5);
	drop(c, &b, G(5), 0);
	CU_ASSERT_EQUAL_FATAL(sim_cluster_place(c, 0, two_nodes, &b), 0);
	CU_ASSERT_EQUAL(b.nodes[0], 6);
	CU_ASSERT_EQUAL(b.nodes[1], 7);
	sim_cluster_release(c, &b, two_nodes);
	if (cpu) {
		CU_ASSERT_EQUAL(put(c, &b, 0, G(10)), spread ? 6 : 4);
		drop(c, &b, 0, G(10));
	}
	for (uint32_t n = 0; n < 6; n++)
		drop(c, &a[n], used_gpu[n], cpu ? (n < 4 ? G(60) : G(8)) : 0);
	CU_ASSERT_EQUAL(sim_cluster_gpu_busy(c, -1), 0);
	sim_cluster_destroy(c);
}

static void test_cluster_states_hidden_from_placement(void)
{
	for (int p = 0; p < SIM_PLACE_COUNT_; p++) {
		hidden_case((enum sim_placement)p, 0);
		hidden_case((enum sim_placement)p, 1);
	}
}

/* A job on whole nodes, some of which drain: its release frees the online ones and
 * takes the draining ones offline; free_gen rises only when an online node got
 * something back. */
static void test_cluster_whole_nodes_draining(void)
{
	struct sim_cluster *c = mk_peak(5, 5, 1, SIM_PLACE_BEST_FIT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	sim_qty_t three[SIM_MAX_RES] = { G(24), G(100) }, two[SIM_MAX_RES] = { G(16) };
	struct sim_alloc w, v;
	CU_ASSERT_EQUAL_FATAL(sim_cluster_place(c, 0, three, &w), 0); /* nodes 0, 1, 2 */
	CU_ASSERT_EQUAL(w.nodes[2], 2);
	uint32_t busy[5];
	CU_ASSERT_EQUAL(resize(c, 1, busy), 2); /* 4, 3 offline; 2, 1 drain */
	CU_ASSERT_EQUAL(busy[0], 2);
	CU_ASSERT_EQUAL(busy[1], 1);
	CU_ASSERT_EQUAL(sim_cluster_gpu_total(c, 0), G(24));
	CU_ASSERT_EQUAL(sim_cluster_gpu_busy(c, 0), G(24));
	uint64_t gen = sim_cluster_free_gen(c, 0);
	sim_cluster_release(c, &w, three);
	CU_ASSERT_EQUAL(sim_cluster_check(c), 0);
	CU_ASSERT_EQUAL(st(c, 0), SIM_NODE_ONLINE);
	CU_ASSERT_EQUAL(st(c, 1), SIM_NODE_OFFLINE);
	CU_ASSERT_EQUAL(st(c, 2), SIM_NODE_OFFLINE);
	CU_ASSERT_EQUAL(free_gpu(c, 0), G(8));
	CU_ASSERT_EQUAL(free_cpu(c, 0), G(64));
	CU_ASSERT_EQUAL(sim_cluster_free_gen(c, 0), gen + 1);
	CU_ASSERT_EQUAL(sim_cluster_gpu_total(c, 0), G(8));
	CU_ASSERT_EQUAL(sim_cluster_gpu_busy(c, 0), 0);

	/* All of a job's nodes drain: its release frees nothing. */
	CU_ASSERT_EQUAL(resize(c, 3, busy), 0); /* 1, 2 back (offline, lowest first) */
	CU_ASSERT_EQUAL(st(c, 3), SIM_NODE_OFFLINE);
	CU_ASSERT_EQUAL_FATAL(sim_cluster_place(c, 0, two, &w), 0); /* 0, 1 */
	CU_ASSERT_EQUAL(w.nodes[1], 1);
	CU_ASSERT_EQUAL(resize(c, 4, busy), 0); /* 3 */
	CU_ASSERT_EQUAL_FATAL(sim_cluster_place(c, 0, two, &v), 0); /* 2, 3 */
	CU_ASSERT_EQUAL(v.nodes[0], 2);
	CU_ASSERT_EQUAL(resize(c, 2, busy), 2); /* 3, 2 drain */
	gen = sim_cluster_free_gen(c, -1);
	sim_cluster_release(c, &v, two);
	CU_ASSERT_EQUAL(sim_cluster_check(c), 0);
	CU_ASSERT_EQUAL(sim_cluster_free_gen(c, -1), gen);
	CU_ASSERT_EQUAL(st(c, 2), SIM_NODE_OFFLINE);
	CU_ASSERT_EQUAL(st(c, 3), SIM_NODE_OFFLINE);
	sim_cluster_release(c, &w, two);
	CU_ASSERT_EQUAL(sim_cluster_free_gen(c, -1), gen + 1);
	CU_ASSERT_EQUAL(sim_cluster_gpu_total(c, 0), G(16));
	CU_ASSERT_EQUAL(sim_cluster_check(c), 0);
	sim_cluster_destroy(c);
}

/* free_gen: per flavor and summed; up on a release into free capacity and on nodes
 * coming online, never on a placement, a shrink or a release held back. */
static void test_cluster_free_gen(void)
{
	struct sim_resources res = mkres(1);
	struct sim_flavor_spec s[2] = { mkspec("a", 2, G(8), 0), mkspec("b", 1, G(4), 0) };
	s[1].peak_nodes = 3;
	struct sim_cluster *c = sim_cluster_create(&res, s, 2, SIM_PLACE_BEST_FIT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(sim_cluster_free_gen(c, 0), 0);
	CU_ASSERT_EQUAL(sim_cluster_free_gen(c, 1), 0);
	CU_ASSERT_EQUAL(sim_cluster_free_gen(c, -1), 0);
	CU_ASSERT_EQUAL(sim_cluster_free_gen(c, 2), 0); /* no such flavor */
	sim_qty_t one[SIM_MAX_RES] = { G(1) }, four[SIM_MAX_RES] = { G(4) };
	struct sim_alloc a, b;
	CU_ASSERT_EQUAL(sim_cluster_place(c, 0, one, &a), 0);
	CU_ASSERT_EQUAL(sim_cluster_place(c, 1, four, &b), 0);
	CU_ASSERT_EQUAL(sim_cluster_free_gen(c, -1), 0); /* placements take, never free */
	CU_ASSERT_EQUAL(sim_cluster_place(c, 1, four, &b), -SIM_ENOFIT);
	CU_ASSERT_EQUAL(sim_cluster_free_gen(c, -1), 0);
	sim_cluster_release(c, &a, one);
	CU_ASSERT_EQUAL(sim_cluster_free_gen(c, 0), 1);
	CU_ASSERT_EQUAL(sim_cluster_free_gen(c, 1), 0);
	CU_ASSERT_EQUAL(sim_cluster_free_gen(c, -1), 1);
	size_t n_busy;
	CU_ASSERT_EQUAL(sim_cluster_set_nodes(c, 1, 3, NULL, &n_busy), 0); /* grow b: up */
	CU_ASSERT_EQUAL(n_busy, 0);
	CU_ASSERT_EQUAL(sim_cluster_free_gen(c, 1), 1);
	CU_ASSERT_EQUAL(sim_cluster_free_gen(c, -1), 2);
	CU_ASSERT_EQUAL(sim_cluster_gpu_total(c, -1), G(16 + 12));
	uint32_t busy[3];
	CU_ASSERT_EQUAL(sim_cluster_set_nodes(c, 1, 0, busy, &n_busy), 0); /* shrink b: not up */
	CU_ASSERT_EQUAL(n_busy, 1);
	CU_ASSERT_EQUAL(busy[0], 0);
	CU_ASSERT_EQUAL(sim_cluster_free_gen(c, 1), 1);
	CU_ASSERT_EQUAL(sim_cluster_gpu_total(c, 1), G(4)); /* the draining node's busy GPUs */
	CU_ASSERT_EQUAL(sim_cluster_gpu_total(c, -1), G(16 + 4));
	sim_cluster_release(c, &b, four); /* held back: not up */
	CU_ASSERT_EQUAL(sim_cluster_free_gen(c, 1), 1);
	CU_ASSERT_EQUAL(sim_cluster_free_gen(c, -1), 2);
	CU_ASSERT_EQUAL(sim_cluster_gpu_total(c, 1), 0);
	CU_ASSERT_EQUAL(sim_cluster_check(c), 0);
	sim_cluster_destroy(c);
}

/* ---- randomized comparison with brute force ---- */

#define RND_NODES 64
#define RND_OPS 10000
#define RND_GPU G(8)
#define RND_CPU G(64)
/* A larger cluster: 4500 nodes are 141 groups of 32, so bucket summaries have two
 * levels and a bucket's nodes spread over many groups. */
#define RND_BIG_NODES 4500
#define RND_BIG_OPS 30000
#define RND_NODES_MAX RND_BIG_NODES

struct live {
	struct sim_alloc a;
	sim_qty_t req[SIM_MAX_RES];
	sim_qty_t gpu; /* sim_cluster_alloc_gpu at placement */
};

static int fits_node(const struct sim_cluster *c, uint32_t n, const sim_qty_t *req)
{
	const sim_qty_t *fr = sim_cluster_node_free(c, 0, n);
	return fr[0] >= req[0] && fr[1] >= req[1];
}

/* The node each strategy should choose, by scanning every node: best_fit = least free
 * GPU, spread = most free GPU, first_fit = any; ties to the lowest index. */
static int brute_single(const struct sim_cluster *c, enum sim_placement p, const sim_qty_t *req)
{
	int best = -1;
	sim_qty_t best_gpu = 0;
	for (uint32_t n = 0; n < sim_cluster_n_nodes(c, 0); n++) {
		if (!fits_node(c, n, req))
			continue;
		sim_qty_t g = sim_cluster_node_free(c, 0, n)[0];
		if (best < 0 || (p == SIM_PLACE_BEST_FIT && g < best_gpu) ||
		    (p == SIM_PLACE_SPREAD && g > best_gpu)) {
			best = (int)n;
			best_gpu = g;
		}
		if (p == SIM_PLACE_FIRST_FIT)
			break;
	}
	return best;
}

/* Lowest-index fully free nodes into out[0..k); returns how many were found. */
static uint32_t brute_whole(const struct sim_cluster *c, uint32_t k, uint32_t *out)
{
	uint32_t got = 0;
	for (uint32_t n = 0; n < sim_cluster_n_nodes(c, 0) && got < k; n++) {
		const sim_qty_t *fr = sim_cluster_node_free(c, 0, n);
		if (fr[0] == RND_GPU && fr[1] == RND_CPU)
			out[got++] = n;
	}
	return got;
}

/* Mixes of random requests: MIX_ANY covers every path; MIX_CPU asks mostly for much cpu
 * and few GPUs, so most nodes run out of cpu while their GPUs are free (the placement
 * then skips whole groups of nodes by their cpu maxima). */
enum mix { MIX_ANY, MIX_CPU };

static void random_request_cpu(gsl_rng *r, sim_qty_t *req)
{
	static const sim_qty_t whole_gpus[] = { G(9), G(16), G(24) };
	static const sim_qty_t small_gpus[] = { 10, 500, G(1), G(2), G(4) };
	static const sim_qty_t cpu_gpus[] = { 0, 125, G(1), G(1), G(2) };
	memset(req, 0, SIM_MAX_RES * sizeof *req);
	unsigned long kind = gsl_rng_uniform_int(r, 10);
	if (kind == 0) { /* whole nodes, with or without cpu */
		req[0] = whole_gpus[gsl_rng_uniform_int(r, 3)];
		if (gsl_rng_uniform_int(r, 2))
			req[1] = (sim_qty_t)gsl_rng_uniform_int(r, (unsigned long)G(100));
	} else if (kind == 1) { /* GPU-only */
		req[0] = small_gpus[gsl_rng_uniform_int(r, 5)];
	} else { /* cpu-heavy: 12..64 of a node's 64 cpus, one in 20 past a node */
		req[0] = cpu_gpus[gsl_rng_uniform_int(r, 5)];
		req[1] = G(12) + (sim_qty_t)gsl_rng_uniform_int(r, (unsigned long)G(52) + 1);
		if (gsl_rng_uniform_int(r, 20) == 0)
			req[1] = RND_CPU + 1;
	}
}

static void random_request(gsl_rng *r, sim_qty_t *req, enum mix mix)
{
	if (mix == MIX_CPU) {
		random_request_cpu(r, req);
		return;
	}
	/* Sizes below 64 milli put several non-empty buckets in one bitmap word. */
	static const sim_qty_t gpus[] = { 0,    10,   40,   60,    125,   250,   500,   G(1),
					  G(2), G(3), G(4), G(5),  G(7),  G(8),  G(8),  G(9),
					  G(12), G(16), G(24), G(64), G(65) };
	memset(req, 0, SIM_MAX_RES * sizeof *req);
	req[0] = gpus[gsl_rng_uniform_int(r, sizeof gpus / sizeof gpus[0])];
	unsigned long kind = gsl_rng_uniform_int(r, 4);
	if (kind == 0)
		req[1] = 0;
	else if (kind == 1)
		req[1] = (sim_qty_t)gsl_rng_uniform_int(r, 8) * 500; /* small */
	else if (kind == 2)
		req[1] = (sim_qty_t)gsl_rng_uniform_int(r, (unsigned long)G(70)); /* up to past a node */
	else
		req[1] = (sim_qty_t)gsl_rng_uniform_int(r, (unsigned long)G(140)); /* for whole jobs */
	if (req[0] == 0 && req[1] == 0)
		req[1] = 1;
}

/* 1 if some node of the allocation is online (its release frees capacity). */
static int alloc_touches_online(const struct sim_cluster *c, const struct sim_alloc *a)
{
	for (uint32_t j = 0; j < a->n_nodes; j++)
		if (sim_cluster_node_state(c, a->flavor, a->nodes ? a->nodes[j] : a->node) == SIM_NODE_ONLINE)
			return 1;
	return 0;
}

/* 1 if the allocation holds node n. */
static int alloc_on_node(const struct sim_alloc *a, uint32_t n)
{
	for (uint32_t j = 0; j < a->n_nodes; j++)
		if ((a->nodes ? a->nodes[j] : a->node) == n)
			return 1;
	return 0;
}

/* GPU total from the node states: online nodes' caps plus draining nodes' busy GPUs. */
static sim_qty_t brute_gpu_total(const struct sim_cluster *c, const sim_qty_t *busy_on, uint32_t nodes)
{
	sim_qty_t t = 0;
	for (uint32_t n = 0; n < nodes; n++) {
		enum sim_node_state st = sim_cluster_node_state(c, 0, n);
		t += st == SIM_NODE_ONLINE ? RND_GPU : st == SIM_NODE_DRAINING ? busy_on[n] : 0;
	}
	return t;
}

/* A capacity change in a random run: a new online target (biased to small steps); when
 * busy nodes start draining, half the time their jobs are stopped at once (a removal),
 * which must take those nodes offline, else they run on (a stock-out). free_gen must
 * rise exactly when nodes came online. */
static unsigned long random_resize(struct sim_cluster *c, gsl_rng *r, uint32_t nodes, struct live *live,
				   size_t *n_live, sim_qty_t *busy)
{
	unsigned long bad = 0;
	uint32_t online = sim_cluster_nodes_online(c, 0), target;
	if (gsl_rng_uniform_int(r, 4) == 0)
		target = (uint32_t)gsl_rng_uniform_int(r, nodes + 1);
	else if (gsl_rng_uniform_int(r, 2) && online < nodes)
		target = online + 1 + (uint32_t)gsl_rng_uniform_int(r, (nodes - online + 3) / 4);
	else
		target = online - (uint32_t)gsl_rng_uniform_int(r, online / 4 + 1);
	uint32_t drained[RND_NODES_MAX];
	size_t n_drained = 12345;
	uint64_t gen = sim_cluster_free_gen(c, 0);
	bad += sim_cluster_set_nodes(c, 0, target, drained, &n_drained) != 0;
	bad += sim_cluster_nodes_online(c, 0) != target;
	bad += sim_cluster_free_gen(c, 0) != gen + (target > online);
	bad += sim_cluster_free_gen(c, -1) != sim_cluster_free_gen(c, 0);
	bad += target >= online && n_drained != 0;
	for (uint32_t n = 0; n < nodes && n_drained > 0; n++) { /* free nodes went first */
		const sim_qty_t *fr = sim_cluster_node_free(c, 0, n);
		int up = sim_cluster_node_state(c, 0, n) == SIM_NODE_ONLINE;
		bad += up && fr[0] == RND_GPU && fr[1] == RND_CPU;
	}
	for (size_t j = 0; j < n_drained && j < nodes; j++) {
		bad += sim_cluster_node_state(c, 0, drained[j]) != SIM_NODE_DRAINING;
		bad += j > 0 && drained[j] >= drained[j - 1]; /* highest index first */
	}
	if (n_drained == 0 || gsl_rng_uniform_int(r, 2))
		return bad;
	uint64_t freed = 0; /* stopped jobs with a node still online (whole nodes) */
	for (size_t i = 0; i < *n_live;) { /* stop every job on a drained node */
		int hit = 0;
		for (size_t j = 0; j < n_drained && !hit; j++)
			hit = alloc_on_node(&live[i].a, drained[j]);
		if (!hit) {
			i++;
			continue;
		}
		*busy -= live[i].gpu;
		freed += (uint64_t)alloc_touches_online(c, &live[i].a);
		sim_cluster_release(c, &live[i].a, live[i].req);
		live[i] = live[--*n_live];
	}
	for (size_t j = 0; j < n_drained; j++)
		bad += sim_cluster_node_state(c, 0, drained[j]) != SIM_NODE_OFFLINE;
	bad += sim_cluster_free_gen(c, 0) != gen + (target > online) + freed;
	return bad;
}

/* ops random placements (probability p_place), releases and (probability p_resize)
 * capacity changes on `nodes` nodes; every placement is compared with the brute-force
 * choice, and the indexes are checked against the node state every check_every
 * operations. */
static void random_run_resize(enum sim_placement p, unsigned long seed, uint32_t nodes, int ops,
			      double p_place, double p_resize, int check_every, enum mix mix)
{
	struct sim_cluster *c = mk1(nodes, RND_GPU, RND_CPU, p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	gsl_rng_set(r, seed);
	struct live *live = calloc((size_t)ops, sizeof *live);
	CU_ASSERT_PTR_NOT_NULL_FATAL(live);
	size_t n_live = 0;
	sim_qty_t busy = 0;
	unsigned long placed = 0, nofit = 0, whole = 0, mismatches = 0, bad_checks = 0;
	uint32_t cpu_short_max = 0; /* most nodes seen at once with GPUs free but cpu short */
	unsigned long resizes = 0, drained_seen = 0;

	for (int op = 0; op < ops; op++) {
		if (p_resize > 0 && gsl_rng_uniform(r) < p_resize) {
			mismatches += random_resize(c, r, nodes, live, &n_live, &busy);
			resizes++;
			for (uint32_t n = 0; n < nodes; n++)
				drained_seen += sim_cluster_node_state(c, 0, n) == SIM_NODE_DRAINING;
		} else if (n_live == 0 || gsl_rng_uniform(r) < p_place) {
			struct live *l = &live[n_live];
			random_request(r, l->req, mix);
			sim_qty_t k = l->req[0] > RND_GPU ? (l->req[0] + RND_GPU - 1) / RND_GPU : 0;
			int could = k ? (k <= (sim_qty_t)nodes && l->req[1] <= k * RND_CPU)
				      : l->req[1] <= RND_CPU;
			int want = -1;
			uint32_t want_nodes[RND_NODES_MAX];
			if (k && could)
				want = brute_whole(c, (uint32_t)k, want_nodes) == k ? (int)want_nodes[0] : -1;
			else if (could)
				want = brute_single(c, p, l->req);
			if (sim_cluster_could_fit(c, 0, l->req) != could)
				mismatches++;
			if (sim_cluster_fits(c, 0, l->req) != (want >= 0))
				mismatches++;
			uint64_t gen = sim_cluster_free_gen(c, -1);
			int rc = sim_cluster_place(c, 0, l->req, &l->a);
			if (sim_cluster_free_gen(c, -1) != gen)
				mismatches++;
			if (want < 0) {
				if (rc != -SIM_ENOFIT)
					mismatches++;
				nofit++;
			} else if (rc != 0) {
				mismatches++;
			} else {
				if ((int)l->a.node != want || l->a.whole != (k > 0))
					mismatches++;
				if (k) {
					whole++;
					if (l->a.n_nodes != k || !l->a.nodes)
						mismatches++;
					else
						for (uint32_t j = 0; j < k; j++)
							mismatches += l->a.nodes[j] != want_nodes[j];
				}
				for (uint32_t j = 0; j < l->a.n_nodes; j++) { /* on online nodes only */
					uint32_t n = l->a.nodes ? l->a.nodes[j] : l->a.node;
					mismatches += sim_cluster_node_state(c, 0, n) != SIM_NODE_ONLINE;
				}
				l->gpu = sim_cluster_alloc_gpu(c, 0, l->req);
				if (l->gpu != (k ? k * RND_GPU : l->req[0]))
					mismatches++;
				busy += l->gpu;
				n_live++;
				placed++;
			}
		} else {
			size_t i = gsl_rng_uniform_int(r, n_live);
			busy -= live[i].gpu;
			uint64_t gen = sim_cluster_free_gen(c, 0);
			int grows = alloc_touches_online(c, &live[i].a);
			sim_cluster_release(c, &live[i].a, live[i].req);
			if (live[i].a.n_nodes != 0 || live[i].a.nodes)
				mismatches++;
			if (sim_cluster_free_gen(c, 0) != gen + (uint64_t)grows)
				mismatches++;
			live[i] = live[--n_live];
		}
		if (op % check_every == 0 || op == ops - 1) {
			if (sim_cluster_check(c) != 0)
				bad_checks++;
			uint32_t short_now = 0;
			for (uint32_t n = 0; n < nodes; n++)
				short_now += free_gpu(c, n) >= G(2) && free_cpu(c, n) < G(12);
			if (short_now > cpu_short_max)
				cpu_short_max = short_now;
		}
		if (sim_cluster_gpu_busy(c, 0) != busy || sim_cluster_gpu_busy(c, -1) != busy)
			mismatches++;
		if (p_resize > 0 && (op % check_every == 0 || op == ops - 1)) {
			sim_qty_t busy_on[RND_NODES_MAX] = { 0 };
			for (size_t i = 0; i < n_live; i++)
				for (uint32_t j = 0; j < live[i].a.n_nodes; j++)
					busy_on[live[i].a.nodes ? live[i].a.nodes[j] : live[i].a.node] +=
						live[i].a.whole ? RND_GPU : live[i].req[0];
			if (sim_cluster_gpu_total(c, 0) != brute_gpu_total(c, busy_on, nodes))
				mismatches++;
		}
	}
	CU_ASSERT_EQUAL(mismatches, 0);
	CU_ASSERT_EQUAL(bad_checks, 0);
	/* The run exercised every path: placements, misses, whole-node jobs. */
	CU_ASSERT(placed > 1000);
	CU_ASSERT(nofit > 100);
	CU_ASSERT(whole > 50);
	/* Under MIX_CPU most nodes were cpu-short (no cpu-heavy request fits them) at once. */
	if (mix == MIX_CPU && p_resize == 0) /* (offline nodes show no free cpu) */
		CU_ASSERT(cpu_short_max > nodes / 2);
	if (p_resize > 0) { /* capacity moved, and busy nodes drained */
		CU_ASSERT(resizes > (unsigned long)(ops * p_resize / 2));
		CU_ASSERT(drained_seen > 20);
	} else {
		CU_ASSERT_EQUAL(sim_cluster_gpu_total(c, -1), (sim_qty_t)nodes * RND_GPU);
	}
	while (n_live > 0) {
		n_live--;
		sim_cluster_release(c, &live[n_live].a, live[n_live].req);
	}
	size_t n_drained = 1;
	CU_ASSERT_EQUAL(sim_cluster_set_nodes(c, 0, nodes, NULL, &n_drained), 0);
	CU_ASSERT_EQUAL(n_drained, 0);
	CU_ASSERT_EQUAL(sim_cluster_gpu_total(c, -1), (sim_qty_t)nodes * RND_GPU);
	CU_ASSERT_EQUAL(sim_cluster_gpu_busy(c, -1), 0);
	CU_ASSERT_EQUAL(sim_cluster_check(c), 0);
	for (uint32_t n = 0; n < nodes; n++)
		CU_ASSERT_EQUAL(sim_cluster_node_free(c, 0, n)[1], RND_CPU);
	free(live);
	gsl_rng_free(r);
	sim_cluster_destroy(c);
}

static void random_run(enum sim_placement p, unsigned long seed, uint32_t nodes, int ops, double p_place,
		       int check_every, enum mix mix)
{
	random_run_resize(p, seed, nodes, ops, p_place, 0.0, check_every, mix);
}

static void test_cluster_random_best_fit(void)
{
	random_run(SIM_PLACE_BEST_FIT, 20240601UL, RND_NODES, RND_OPS, 0.6, 1, MIX_ANY);
}

static void test_cluster_random_first_fit(void)
{
	random_run(SIM_PLACE_FIRST_FIT, 20240602UL, RND_NODES, RND_OPS, 0.6, 1, MIX_ANY);
}

static void test_cluster_random_spread(void)
{
	random_run(SIM_PLACE_SPREAD, 20240603UL, RND_NODES, RND_OPS, 0.6, 1, MIX_ANY);
}

/* The same comparison on 4500 nodes (two summary levels, buckets spread over many
 * groups); placements outnumber releases so the cluster fills and fragments. */
static void test_cluster_random_big_best_fit(void)
{
	random_run(SIM_PLACE_BEST_FIT, 20240604UL, RND_BIG_NODES, RND_BIG_OPS, 0.75, 97, MIX_ANY);
}

static void test_cluster_random_big_spread(void)
{
	random_run(SIM_PLACE_SPREAD, 20240605UL, RND_BIG_NODES, RND_BIG_OPS, 0.75, 97, MIX_ANY);
}

/* The cpu-heavy mix: most nodes keep free GPUs but too little cpu, so placements skip
 * groups by their cpu maxima (in buckets, first_fit's descent and the whole-node
 * search); every choice must still be brute force's. 4500 nodes (141 groups, the last
 * one partial), 10 nodes (a segment tree smaller than a group) and 64 nodes. */
static void test_cluster_random_cpu_best_fit(void)
{
	random_run(SIM_PLACE_BEST_FIT, 20240611UL, RND_BIG_NODES, RND_BIG_OPS, 0.7, 97, MIX_CPU);
	random_run(SIM_PLACE_BEST_FIT, 20240612UL, RND_NODES, RND_OPS, 0.6, 1, MIX_CPU);
}

static void test_cluster_random_cpu_first_fit(void)
{
	random_run(SIM_PLACE_FIRST_FIT, 20240613UL, RND_BIG_NODES, RND_BIG_OPS, 0.7, 97, MIX_CPU);
	random_run(SIM_PLACE_FIRST_FIT, 20240614UL, 10, RND_OPS, 0.6, 1, MIX_CPU);
	random_run(SIM_PLACE_FIRST_FIT, 20240615UL, RND_NODES, RND_OPS, 0.6, 1, MIX_CPU);
}

static void test_cluster_random_cpu_spread(void)
{
	random_run(SIM_PLACE_SPREAD, 20240616UL, RND_BIG_NODES, RND_BIG_OPS, 0.7, 97, MIX_CPU);
	random_run(SIM_PLACE_SPREAD, 20240617UL, RND_NODES, RND_OPS, 0.55, 1, MIX_CPU);
}

/* The comparison with capacity changes mixed in: online targets move up and down,
 * busy nodes drain, and half the time their jobs are stopped. Placements must stay
 * brute force's over the online nodes, and the indexes consistent after every step. */
static void test_cluster_random_resize(void)
{
	enum { OPS = 5000 };
	for (int p = 0; p < SIM_PLACE_COUNT_; p++) {
		unsigned long seed = 20240620UL + 10UL * (unsigned long)p;
		random_run_resize((enum sim_placement)p, seed, RND_NODES, OPS, 0.6, 0.02, 2, MIX_ANY);
		random_run_resize((enum sim_placement)p, seed + 1, RND_NODES, OPS, 0.6, 0.02, 2, MIX_CPU);
		random_run_resize((enum sim_placement)p, seed + 2, 300, OPS, 0.7, 0.01, 11, MIX_CPU);
	}
	random_run_resize(SIM_PLACE_FIRST_FIT, 20240650UL, 10, OPS, 0.6, 0.03, 1, MIX_CPU);
}

/* 100,000 nodes: creation, many placements and a 100-node job stay cheap and consistent. */
static void test_cluster_large(void)
{
	struct sim_cluster *c = mk1(100000, G(8), G(96), SIM_PLACE_BEST_FIT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(sim_cluster_gpu_total(c, 0), (sim_qty_t)800000 * SIM_MILLI);
	enum { N = 20000 };
	struct sim_alloc *a = calloc(N, sizeof *a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	sim_qty_t req[SIM_MAX_RES] = { G(3), G(10) };
	int ok = 1;
	for (int i = 0; i < N; i++)
		ok &= sim_cluster_place(c, 0, req, &a[i]) == 0;
	CU_ASSERT(ok);
	/* best_fit packs: two 3-GPU jobs a node (2 left), so N jobs fill N / 2 nodes */
	CU_ASSERT_EQUAL(a[N - 1].node, N / 2 - 1);
	sim_qty_t big[SIM_MAX_RES] = { G(800) };
	struct sim_alloc w;
	CU_ASSERT_EQUAL_FATAL(sim_cluster_place(c, 0, big, &w), 0);
	CU_ASSERT_EQUAL(w.n_nodes, 100);
	CU_ASSERT_EQUAL(w.nodes[0], N / 2);
	CU_ASSERT_EQUAL(sim_cluster_check(c), 0);
	sim_cluster_release(c, &w, big);
	for (int i = 0; i < N; i++)
		sim_cluster_release(c, &a[i], req);
	CU_ASSERT_EQUAL(sim_cluster_gpu_busy(c, -1), 0);
	CU_ASSERT_EQUAL(sim_cluster_check(c), 0);
	free(a);
	sim_cluster_destroy(c);
}

/* 300,000 nodes: bucket summaries have three levels (9375 groups). A whole-node job
 * takes nodes 0..269,999, so the first fully free node (270,000) is found through
 * every level; then the buckets' lowest-index nodes move as jobs come and go. */
static void test_cluster_three_levels(void)
{
	enum { NODES = 300000, TAKEN = 270000 };
	struct sim_cluster *c = mk1(NODES, G(8), 0, SIM_PLACE_BEST_FIT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	sim_qty_t most[SIM_MAX_RES] = { G(8) * TAKEN }, one[SIM_MAX_RES] = { G(1) };
	sim_qty_t two[SIM_MAX_RES] = { G(2) * 4 }; /* 8 GPUs: one whole free node */
	struct sim_alloc w, a1, a2, a3, a4;
	CU_ASSERT_EQUAL_FATAL(sim_cluster_place(c, 0, most, &w), 0);
	CU_ASSERT_EQUAL(w.n_nodes, TAKEN);
	CU_ASSERT_EQUAL(w.nodes[TAKEN - 1], TAKEN - 1);
	CU_ASSERT_EQUAL(put(c, &a1, G(1), 0), TAKEN); /* fullest that fits: the first free */
	CU_ASSERT_EQUAL(put(c, &a2, G(1), 0), TAKEN); /* bucket 7 (one node) before 8 */
	CU_ASSERT_EQUAL(put(c, &a3, two[0], 0), TAKEN + 1);
	drop(c, &a1, G(1), 0);
	sim_cluster_release(c, &w, most);
	CU_ASSERT_EQUAL(sim_cluster_check(c), 0);
	/* free: 8 x 270,000, then 7 at 270,000, 0 at 270,001, 8 after */
	CU_ASSERT_EQUAL(put(c, &a4, G(8), 0), 0);
	drop(c, &a4, G(8), 0);
	CU_ASSERT_EQUAL(put(c, &a1, G(7), 0), TAKEN); /* bucket 7 holds only node 270,000 */
	drop(c, &a1, G(7), 0);
	drop(c, &a2, G(1), 0);
	sim_cluster_release(c, &a3, two);
	/* Every node free again; a job of all but the last node leaves exactly that one. */
	sim_qty_t all_but_one[SIM_MAX_RES] = { G(8) * (NODES - 1) };
	CU_ASSERT_EQUAL_FATAL(sim_cluster_place(c, 0, all_but_one, &w), 0);
	CU_ASSERT_EQUAL(put(c, &a1, one[0], 0), NODES - 1);
	CU_ASSERT_EQUAL(put(c, &a2, G(8), 0), -1);
	drop(c, &a1, one[0], 0);
	sim_cluster_release(c, &w, all_but_one);
	CU_ASSERT_EQUAL(sim_cluster_gpu_busy(c, -1), 0);
	CU_ASSERT_EQUAL(sim_cluster_check(c), 0);
	sim_cluster_destroy(c);
}

static CU_TestInfo cluster_tests[] = {
	{ "test_cluster_placement_names", test_cluster_placement_names },
	{ "test_cluster_create_rejects_bad_specs", test_cluster_create_rejects_bad_specs },
	{ "test_cluster_accessors_copy_specs", test_cluster_accessors_copy_specs },
	{ "test_cluster_best_fit_packs_fullest", test_cluster_best_fit_packs_fullest },
	{ "test_cluster_first_fit_lowest_index", test_cluster_first_fit_lowest_index },
	{ "test_cluster_spread_emptiest", test_cluster_spread_emptiest },
	{ "test_cluster_multi_resource_best_fit", test_cluster_multi_resource_best_fit },
	{ "test_cluster_multi_resource_first_fit", test_cluster_multi_resource_first_fit },
	{ "test_cluster_multi_resource_spread", test_cluster_multi_resource_spread },
	{ "test_cluster_whole_nodes", test_cluster_whole_nodes },
	{ "test_cluster_whole_nodes_other_resources", test_cluster_whole_nodes_other_resources },
	{ "test_cluster_fractional_gpu", test_cluster_fractional_gpu },
	{ "test_cluster_release_restores", test_cluster_release_restores },
	{ "test_cluster_zero_node_flavor", test_cluster_zero_node_flavor },
	{ "test_cluster_peak_nodes_spec", test_cluster_peak_nodes_spec },
	{ "test_cluster_shrink_free_nodes", test_cluster_shrink_free_nodes },
	{ "test_cluster_shrink_busy_nodes", test_cluster_shrink_busy_nodes },
	{ "test_cluster_grow_order", test_cluster_grow_order },
	{ "test_cluster_states_hidden_from_placement", test_cluster_states_hidden_from_placement },
	{ "test_cluster_whole_nodes_draining", test_cluster_whole_nodes_draining },
	{ "test_cluster_free_gen", test_cluster_free_gen },
	{ "test_cluster_random_best_fit", test_cluster_random_best_fit },
	{ "test_cluster_random_first_fit", test_cluster_random_first_fit },
	{ "test_cluster_random_spread", test_cluster_random_spread },
	{ "test_cluster_random_big_best_fit", test_cluster_random_big_best_fit },
	{ "test_cluster_random_big_spread", test_cluster_random_big_spread },
	{ "test_cluster_random_cpu_best_fit", test_cluster_random_cpu_best_fit },
	{ "test_cluster_random_cpu_first_fit", test_cluster_random_cpu_first_fit },
	{ "test_cluster_random_cpu_spread", test_cluster_random_cpu_spread },
	{ "test_cluster_random_resize", test_cluster_random_resize },
	{ "test_cluster_three_levels", test_cluster_three_levels },
	{ "test_cluster_large", test_cluster_large },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo cluster_suite = { "cluster", init_cluster, clean_cluster, NULL, NULL, cluster_tests };
