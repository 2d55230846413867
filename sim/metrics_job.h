/* sim/metrics_job.h: where a job ran, for metrics.c and h5out.c.
 *
 * Kept out of metrics.h (the lead's interface) because only the results code needs
 * it. The engine releases a job's alloc when it ends (sim_cluster_release resets
 * it), so the flavor is taken from the alloc while it is set, else from the chosen
 * option's flavor (a cluster index once the trace is bound).
 */
#ifndef SIM_METRICS_JOB_H
#define SIM_METRICS_JOB_H

#include "cluster.h"
#include "job.h"

/* Cluster flavor index the job ran (or runs) on, or -1 when unknown or never placed.
 * A "*" request whose alloc was released has no recorded flavor: -1. */
int sim_metrics_job_flavor(const struct sim_trace *t, const struct sim_job *j);
/* GPU milli-units the job holds on its flavor (whole nodes for a multi-node job);
 * the requested GPUs when the flavor is unknown; -1 when it never chose an option. */
sim_qty_t sim_metrics_job_alloc_gpu(const struct sim_trace *t, const struct sim_cluster *c,
				    const struct sim_job *j);
/* What the job paid, in currency: price_per_node_hour of its flavor x the share of
 * nodes it held, in GPUs (alloc GPUs / node GPUs: whole nodes for a multi-node job,
 * part of one node otherwise) x hours held (held_s, every run segment). 0 for a job
 * that held nothing; NaN when it held GPUs on a flavor that is not known. The
 * summary's cost is the sum of these (analysis/SCHEMA.md, jobs field cost). */
double sim_metrics_job_cost(const struct sim_trace *t, const struct sim_cluster *c, const struct sim_job *j);
/* Useful work of a job, in seconds of its run time on the flavor it (last) ran on
 * (sim_scaled_time_ns of its duration): all of it when completed, else the work
 * its checkpoints saved (progress). 0 for a job that never started. */
double sim_metrics_job_useful_s(const struct sim_trace *t, const struct sim_cluster *c, const struct sim_job *j);
/* Its effective training time ratio: useful_s / held_s; NaN when it held nothing.
 * (Both are multiplied by its GPUs in the summary's ettr.) */
double sim_metrics_job_ettr(const struct sim_trace *t, const struct sim_cluster *c, const struct sim_job *j);

#endif
