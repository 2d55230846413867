/* policies/pool_pass.h: the decision step of the preemptive baselines (srtf, las).
 *
 * Tiresias' simulator decides these policies by "counting" (its placement scheme
 * `count`): the cluster's GPUs are one pool, jobs are walked in rank order, and each
 * job that fits what is left of the pool gets (or keeps) its GPUs; a job that does
 * not fit is passed over and the next one is tried, so a smaller job of lower rank
 * may run. Running jobs not kept are preempted, queued jobs kept are started. This
 * helper does that on our engine (docs/baselines.md, "The shared decision step").
 *
 * Counting: the pool is every online GPU of the cluster (sim_cluster_gpu_total, all
 * flavors); a job counts the GPUs its option 0 takes on its flavor (whole nodes for
 * a job larger than a node; "*" requests are counted on the first flavor). Running
 * jobs that are not preemptible are counted first and always kept. The engine's
 * placement has the last word: a kept job that does not fit the nodes (fragments)
 * stays queued until a later pass.
 */
#ifndef POLICIES_POOL_PASS_H
#define POLICIES_POOL_PASS_H

#include <stddef.h>
#include <stdint.h>

#include "policy.h"

/* The flavor a job is counted on: its option 0's, or the first flavor for "*". */
int pool_job_flavor(const struct sim_view *v, const struct sim_job *job);
/* Its true run time there (trace duration scaled by sim_view_runtime), ns: the
 * oracle length that sjf ranks by and srtf's remaining time starts from. */
sim_time_t pool_job_runtime(const struct sim_view *v, const struct sim_job *job);
/* GPUs (milli-units) the pool counts for a job: option 0 on its flavor. */
sim_qty_t pool_job_gpus(const struct sim_view *v, const struct sim_job *job);

/* Walks rank[0..n) (trace indices of queued and running jobs, best first; other
 * states are skipped), keeps each job that fits the pool, then proposes into out:
 * a preemption (requeued) of every running job not kept, and a start of every
 * queued job kept, in rank order. keep[i] (n entries, caller-owned) is set to 1 for
 * the jobs kept. The preemptor named for the victims is the best-ranked queued job
 * kept (the victim itself when none: the pool shrank). Returns 0 or -SIM_E*. */
int pool_pass_apply(const struct sim_view *v, const uint32_t *rank, size_t n, uint8_t *keep,
		    struct sim_placement_buf *out);

#endif
