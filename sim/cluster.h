/* sim/cluster.h: flavors, nodes and the index of free capacity.
 *
 * A flavor has `nodes` nodes of one shape (cap[] per resource, milli-units). Each
 * node's free vector is tracked; per flavor the cluster keeps
 *   - buckets of nodes by free GPU milli-units, with a bitmap of non-empty buckets
 *     (best_fit = lowest bucket >= need, spread = highest bucket, whole nodes = the
 *     bucket "fully free"); within a bucket nodes are found in index order, and
 *   - under first_fit, a max segment tree over node index of free GPU (first_fit =
 *     lowest index).
 * Allocation and release are O(log nodes) plus the bucket move. No call scans all
 * nodes, except sim_cluster_check (a test helper). For requests with other resources
 * (cpu, memory), 32-node groups and 2048-node super groups keep the largest free
 * amount of each per class of free GPUs, so a placement skips whole groups that
 * cannot hold the request (details in cluster.c).
 *
 * A job of up to one node's GPUs is placed on one node; a larger one takes
 * ceil(gpu / node_gpu) whole nodes (all their resources), as Slurm's exclusive
 * allocation does.
 */
#ifndef SIM_CLUSTER_H
#define SIM_CLUSTER_H

#include "job.h"
#include "sim.h"

struct sim_flavor_spec {
	char name[SIM_NAME_MAX];
	uint32_t nodes;              /* >= 0 (0 = present but no capacity yet) */
	sim_qty_t node_cap[SIM_MAX_RES]; /* per node, milli-units; node_cap[gpu] > 0 */
	double speed;                /* relative to the reference flavor (1.0) */
	double price_per_node_hour;  /* currency units per node-hour, >= 0 */
};

enum sim_placement {
	SIM_PLACE_BEST_FIT = 0, /* fullest node that fits (least free GPU left) */
	SIM_PLACE_FIRST_FIT,    /* lowest node index that fits */
	SIM_PLACE_SPREAD,       /* emptiest node (most free GPU) */
	SIM_PLACE_COUNT_
};
/* "best_fit" / "first_fit" / "spread" -> enum, or -1. */
int sim_placement_from_name(const char *name);
const char *sim_placement_name(enum sim_placement p);

struct sim_cluster; /* opaque */

/* Copies res and specs. Returns NULL on bad specs or no memory. */
struct sim_cluster *sim_cluster_create(const struct sim_resources *res,
				       const struct sim_flavor_spec *specs, size_t n_flavors,
				       enum sim_placement placement);
void sim_cluster_destroy(struct sim_cluster *c); /* NULL is a no-op */

size_t sim_cluster_n_flavors(const struct sim_cluster *c);
const struct sim_flavor_spec *sim_cluster_flavor(const struct sim_cluster *c, int flavor);
int sim_cluster_flavor_find(const struct sim_cluster *c, const char *name); /* -1 if absent */
const struct sim_resources *sim_cluster_resources(const struct sim_cluster *c);

/* 1 if a request could ever fit an empty flavor (node shape and node count), else 0. */
int sim_cluster_could_fit(const struct sim_cluster *c, int flavor, const sim_qty_t *req);
/* 1 if the request fits the flavor's free capacity now. */
int sim_cluster_fits(const struct sim_cluster *c, int flavor, const sim_qty_t *req);
/* Finds nodes with the cluster's placement strategy and allocates them into *out.
 * -SIM_ENOFIT when it does not fit now (nothing changes). */
int sim_cluster_place(struct sim_cluster *c, int flavor, const sim_qty_t *req,
		      struct sim_alloc *out);
/* Frees what sim_cluster_place allocated (req is the same vector); resets *a. */
void sim_cluster_release(struct sim_cluster *c, struct sim_alloc *a, const sim_qty_t *req);

/* GPU milli-units allocated (busy) and in total, per flavor or (flavor -1) all. */
sim_qty_t sim_cluster_gpu_busy(const struct sim_cluster *c, int flavor);
sim_qty_t sim_cluster_gpu_total(const struct sim_cluster *c, int flavor);
/* Free vector of one node (read-only, valid until the next change). */
const sim_qty_t *sim_cluster_node_free(const struct sim_cluster *c, int flavor, uint32_t node);
uint32_t sim_cluster_n_nodes(const struct sim_cluster *c, int flavor);
/* GPU milli-units a request takes on a flavor: the request, or whole nodes' GPUs. */
sim_qty_t sim_cluster_alloc_gpu(const struct sim_cluster *c, int flavor, const sim_qty_t *req);

/* Test helper: recomputes every index from node state; 0 if consistent. O(nodes). */
int sim_cluster_check(const struct sim_cluster *c);

#endif
