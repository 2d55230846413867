/* policies/pool_pass.h: the GPU pool of the research baselines (sjf, srtf, las).
 *
 * Tiresias' simulator decides its preemptive schedulers by "counting" (placement
 * scheme `count`): the cluster's GPUs are one pool, jobs are walked in rank order,
 * and each job that fits what is left of the pool gets (or keeps) its GPUs; a job
 * that does not fit is passed over and the next one is tried, so a smaller job of
 * lower rank may run. Running jobs not kept are preempted, queued jobs kept are
 * started. srtf.c and las.c implement that walk on their own ordered structures
 * (docs/baselines.md, "The shared decision step"); this file holds what they and
 * sjf count with.
 *
 * Counting: the pool is every online GPU of the cluster (sim_cluster_gpu_total, all
 * flavors); a job counts the GPUs its option 0 takes on its flavor (whole nodes for
 * a job larger than a node; "*" requests are counted on the first flavor). Running
 * jobs that may not be preempted are always kept. The engine's placement has the
 * last word: a kept job that does not fit the nodes (fragments) stays queued until
 * a later pass.
 */
#ifndef POLICIES_POOL_PASS_H
#define POLICIES_POOL_PASS_H

#include "policy.h"

/* The flavor a job is counted on: its option 0's, or the first flavor for "*". */
int pool_job_flavor(const struct sim_view *v, const struct sim_job *job);
/* Its true run time there (trace duration scaled by sim_view_runtime), ns: the
 * oracle length that sjf ranks by and srtf's remaining time starts from. */
sim_time_t pool_job_runtime(const struct sim_view *v, const struct sim_job *job);
/* GPUs (milli-units) the pool counts for a job: option 0 on its flavor. */
sim_qty_t pool_job_gpus(const struct sim_view *v, const struct sim_job *job);

#endif
