/* policies/share_queue.h: queued jobs grouped by share (an AWS Batch share identifier, a
 * HyperPod team), for order policies that pick the share first and the job second.
 *
 * Within a group jobs are a binary heap on a static key (smaller first), then submit
 * time, then trace index. A decision pass (share_queue_pick) repeatedly takes the group
 * with the lowest score, asked of the policy each time a group's head may start, and
 * proposes that head; after each start the policy's score for the group is asked again
 * (its usage grew), so one pass shares free capacity out as the scores say instead of
 * handing it all to the share that was lowest when the pass began. A head that does not
 * fit (or that the policy's gate refuses) ends its group's turn for the pass; the other
 * groups go on (no head-of-line blocking across groups).
 *
 * Jobs that stopped being queued (timed out) are skipped lazily when they reach a head.
 * Cost: O(log n) a push; a pass is O(G + s log G + s log n) for G groups with queued
 * jobs and s proposals tried.
 */
#ifndef POLICIES_SHARE_QUEUE_H
#define POLICIES_SHARE_QUEUE_H

#include "policy.h"

struct share_queue_entry {
	double key;          /* smaller first within the group (e.g. -schedulingPriority) */
	sim_time_t submit_ns; /* its queue order time, sim_job_order_ns (the submit time by default) */
	uint32_t idx;        /* trace index */
};

struct share_queue_group {
	struct share_queue_entry *heap;
	size_t n, cap;
};

/* What the pass asks of the policy. extra_mgpu is what the pass itself has proposed so
 * far for the group (its on_start has not run yet); extra_total_mgpu the same summed over
 * all groups. */
struct share_queue_ops {
	/* Lower runs first. Called at the start of a pass and after each start. */
	double (*score)(void *arg, uint32_t group, sim_qty_t extra_mgpu);
	/* Optional: 1 when the job may start now beyond fitting (AWS computeReservation). */
	int (*gate)(void *arg, uint32_t group, const struct sim_job *job, sim_qty_t extra_total_mgpu);
};

struct share_queue {
	size_t n_groups;
	struct share_queue_group *g;
	/* pass state */
	uint32_t *turn;        /* heap of group indices still having a turn */
	size_t n_turn;
	double *score;         /* per group, as last asked */
	sim_qty_t *extra_mgpu; /* per group, proposed in this pass */
	int oom;
};

int share_queue_init(struct share_queue *q, size_t n_groups);
void share_queue_fini(struct share_queue *q);
/* Queues a job in its group (a push that fails for memory makes the next pick fail). */
void share_queue_push(struct share_queue *q, uint32_t group, double key, const struct sim_job *job);
/* Jobs in the heaps, stale entries included (tests). */
size_t share_queue_size(const struct share_queue *q);
/* The decision pass described above. GPUs of a proposal: option 0's request. Returns 0
 * or -SIM_E* (-SIM_ENOMEM after a failed push). */
int share_queue_pick(struct share_queue *q, const struct sim_view *v, struct sim_placement_buf *out,
		     const struct share_queue_ops *ops, void *arg);

#endif
