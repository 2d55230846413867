/* sim/metrics.h: per-run summary metrics, computed from the job table and the
 * engine's time series. Each field's formula is in analysis/SCHEMA.md; the
 * names here are the names in HDF5 /summary and in `gpusched report --json`.
 * A metric with no data (e.g. waits when no job started) is NaN.
 */
#ifndef SIM_METRICS_H
#define SIM_METRICS_H

#include "cluster.h"
#include "engine.h"
#include "job.h"

/* X(name, unit, description) */
#define SIM_SUMMARY_FIELDS(X)                                                                      \
	X(jobs, "1", "jobs in the trace")                                                           \
	X(completed, "1", "jobs that ran to completion")                                            \
	X(rejected, "1", "jobs refused at submit")                                                  \
	X(unfinished, "1", "jobs still queued or running at the end")                               \
	X(mean_wait_s, "s", "mean of wait_s over started jobs")                                     \
	X(p50_wait_s, "s", "median wait_s")                                                          \
	X(p95_wait_s, "s", "95th percentile of wait_s")                                              \
	X(p99_wait_s, "s", "99th percentile of wait_s")                                              \
	X(max_wait_s, "s", "largest wait_s")                                                         \
	X(mean_jct_s, "s", "mean of jct_s over completed jobs")                                      \
	X(p50_jct_s, "s", "median jct_s")                                                            \
	X(p95_jct_s, "s", "95th percentile of jct_s")                                                \
	X(p99_jct_s, "s", "99th percentile of jct_s")                                                \
	X(mean_bsld, "1", "mean bounded slowdown, max(1, jct_s / max(runtime_s, 10 s))")             \
	X(p50_bsld, "1", "median bounded slowdown")                                                  \
	X(p95_bsld, "1", "95th percentile of bounded slowdown")                                      \
	X(p99_bsld, "1", "99th percentile of bounded slowdown")                                      \
	X(makespan_s, "s", "last job end minus first submit")                                        \
	X(gpu_capacity, "GPU", "GPUs in the cluster")                                                \
	X(busy_gpu_s, "GPU*s", "allocated GPU-seconds of all runs of all jobs")                      \
	X(utilization, "1", "busy_gpu_s / (gpu_capacity * makespan_s)")                              \
	X(throughput_per_h, "1/h", "completed / makespan in hours")                                  \
	X(cost, "currency", "sum over jobs of nodes' price x node-hours used")

enum sim_summary_field {
#define SIM_SUM_ENUM(name, unit, desc) SIM_SUM_##name,
	SIM_SUMMARY_FIELDS(SIM_SUM_ENUM)
#undef SIM_SUM_ENUM
	SIM_SUM_COUNT_
};

struct sim_summary {
	double v[SIM_SUM_COUNT_];
};

const char *sim_summary_name(enum sim_summary_field f);
const char *sim_summary_unit(enum sim_summary_field f);
const char *sim_summary_description(enum sim_summary_field f);

/* Bounded-slowdown threshold, seconds (Feitelson's tau). */
#define SIM_BSLD_TAU_S 10.0

/* Per-job derived values (NaN when undefined). */
double sim_job_wait_s(const struct sim_job *j);
double sim_job_jct_s(const struct sim_job *j);
double sim_job_bsld(const struct sim_job *j);

/* Fills *out from a finished run. Uses GSL for sorting and quantiles.
 * Returns 0 or -SIM_ENOMEM. */
int sim_metrics_summarize(const struct sim_trace *t, const struct sim_cluster *c,
			  sim_time_t end_ns, struct sim_summary *out);

/* Summary of several replications: mean and 95% CI half-width (Student t) of each
 * field over n runs. ci95 is 0 for n = 1. */
void sim_metrics_replicate(const struct sim_summary *runs, size_t n, struct sim_summary *mean,
			   struct sim_summary *ci95);

#endif
