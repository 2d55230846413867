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
	uint32_t nodes;              /* online at creation, >= 0 (0 = present but no capacity yet) */
	uint32_t peak_nodes;         /* the most nodes it may ever have (capacity events, reservations);
				      * sizes the index; 0 = nodes. Nodes [nodes, peak) start offline. */
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

/* 1 if a request could ever fit an empty flavor (node shape and peak node count), else 0. */
int sim_cluster_could_fit(const struct sim_cluster *c, int flavor, const sim_qty_t *req);
/* 1 if the request fits the flavor's free capacity now. */
int sim_cluster_fits(const struct sim_cluster *c, int flavor, const sim_qty_t *req);
/* Finds nodes with the cluster's placement strategy and allocates them into *out.
 * -SIM_ENOFIT when it does not fit now (nothing changes). */
int sim_cluster_place(struct sim_cluster *c, int flavor, const sim_qty_t *req,
		      struct sim_alloc *out);
/* Frees what sim_cluster_place allocated (req is the same vector); resets *a. */
void sim_cluster_release(struct sim_cluster *c, struct sim_alloc *a, const sim_qty_t *req);

/* GPU milli-units allocated (busy) and in total, per flavor or (flavor -1) all.
 * Total counts online nodes and the busy part of draining ones (capacity in use or
 * usable now); busy never counts held-back capacity. */
sim_qty_t sim_cluster_gpu_busy(const struct sim_cluster *c, int flavor);
sim_qty_t sim_cluster_gpu_total(const struct sim_cluster *c, int flavor);
/* ---- capacity over time (docs/design.md section 1: stock-outs, reservations, new racks) ----
 *
 * A node is online (placements may use it), draining (no new placements; its free
 * part is held back, and what its jobs release is held back too; it goes offline
 * when nothing runs on it), or offline (no capacity). Nodes are indexed 0..peak-1
 * for the whole run; a node keeps its index when it goes offline and comes back. */
enum sim_node_state { SIM_NODE_ONLINE = 0, SIM_NODE_DRAINING, SIM_NODE_OFFLINE };

/* Sets the number of online nodes of a flavor to target (<= peak).
 *  - Growing: draining nodes come back online first (lowest index first; their held
 *    free part is free again), then offline nodes (lowest index first).
 *  - Shrinking: fully free online nodes go offline at once (highest index first);
 *    if more must go, busy online nodes start draining (highest index first) and
 *    their indices are written to busy[] (the caller's array of at least peak
 *    entries, or NULL; *n_busy, when not NULL, gets the count). The caller
 *    decides what happens to the jobs on them: stop them now (a removal, like a
 *    node failure: releasing their allocations then takes the nodes offline) or
 *    let them finish (a stock-out).
 * Returns 0, or -SIM_EINVAL (bad flavor, target > peak) with nothing changed. */
int sim_cluster_set_nodes(struct sim_cluster *c, int flavor, uint32_t target, uint32_t *busy, size_t *n_busy);
/* Node faults (docs/faults.md): one node leaves placement now, whatever the target
 * (draining when something runs on it, else offline); returns 1 when busy (the
 * caller stops its jobs: their releases then take it offline), 0 when offline, -1
 * when it was not online. sim_cluster_node_up brings a draining or offline node
 * back online (0, or -1 when it was online). Meant for flavors whose count
 * set_nodes never moves. */
int sim_cluster_node_down(struct sim_cluster *c, int flavor, uint32_t node);
int sim_cluster_node_up(struct sim_cluster *c, int flavor, uint32_t node);
/* Online nodes now (the target of the last set_nodes; draining ones excluded). */
uint32_t sim_cluster_nodes_online(const struct sim_cluster *c, int flavor);
/* SIM_NODE_OFFLINE for a flavor or node that does not exist. */
enum sim_node_state sim_cluster_node_state(const struct sim_cluster *c, int flavor, uint32_t node);
/* A counter that rises whenever the free capacity of the flavor may have grown (a
 * release, nodes online again); flavor -1: the sum over all flavors. A request that
 * did not fit at some value cannot fit while the value is the same, so a waiting
 * job is re-evaluated only when it moved. */
uint64_t sim_cluster_free_gen(const struct sim_cluster *c, int flavor);

/* Free vector of one node (read-only, valid until the next change; zero on draining and offline nodes). */
const sim_qty_t *sim_cluster_node_free(const struct sim_cluster *c, int flavor, uint32_t node);
uint32_t sim_cluster_n_nodes(const struct sim_cluster *c, int flavor); /* peak: node indices 0..n-1 */
/* GPU milli-units a request takes on a flavor: the request, or whole nodes' GPUs. */
sim_qty_t sim_cluster_alloc_gpu(const struct sim_cluster *c, int flavor, const sim_qty_t *req);

/* Test helper: recomputes every index from node state; 0 if consistent. O(nodes). */
int sim_cluster_check(const struct sim_cluster *c);

#endif
