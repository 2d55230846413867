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
	X(cost, "currency", "jobs' cost (price x node-hours held) + cost_autoscaled_idle + unused flex nodes") \
	X(preemptions, "1", "preemptions issued: running jobs stopped by the engine")                \
	X(lost_gpu_s, "GPU*s", "work lost to preemptions, GPU-seconds since the last checkpoint")    \
	X(restore_s, "s", "restore time paid by restarted jobs, summed over jobs")                   \
	X(preempted_out, "1", "jobs stopped for good at their queue's preemption retry limit")       \
	X(jain_fairness, "1", "Jain's index of queue shares over queues with nominal > 0 and jobs") \
	X(fallback_rate, "1", "share of started jobs with 2+ options that ran on option 1 or later") \
	X(pending_timeouts, "1", "jobs that ended timed_out_pending (max_pending_s ran out before a start)") \
	X(pending_timeout_rate, "1", "pending_timeouts / jobs with a max_pending_s")                \
	X(mean_cost_per_job, "currency", "mean of the jobs' own cost over started jobs (idle nodes not included)") \
	X(interruptions, "1", "running jobs stopped because their nodes were removed, summed over jobs") \
	X(fallback_evals, "1", "times the fallback policy evaluated a queued job, summed over jobs") \
	X(failed, "1", "jobs whose workload failed (real mode: a kernel or launch error)")          \
	X(runtime_error, "1", "real mode: mean of |measured - predicted| / predicted run time over "  \
	  "completed segments; NaN in simulation")                                                   \
	X(decision_latency_p50_s, "s", "real mode: median wall time from an event to a start it causes; " \
	  "NaN in simulation")                                                                       \
	X(decision_latency_p99_s, "s", "real mode: 99th percentile of the decision latency; NaN in simulation") \
	X(nodes_failed, "1", "node failures (faults; docs/faults.md)")                               \
	X(nodes_repaired, "1", "repairs completed: a failed node back in its slot or in the spare pool") \
	X(nodes_replaced, "1", "failed node slots refilled from the spare pool")                     \
	X(spare_pool_empty_s, "s", "time flavors with spares had an empty pool and a slot waiting, summed over flavors") \
	X(crashes, "1", "job crashes")                                                              \
	X(hangs, "1", "job hangs")                                                                  \
	X(stops_node_failed, "1", "running jobs stopped by a node failure")                         \
	X(stops_crashed, "1", "running jobs stopped by a crash")                                    \
	X(stops_hang, "1", "hung jobs killed (detection, or their run's end)")                      \
	X(lost_node_failed_gpu_s, "GPU*s", "GPU-seconds lost to node failures (work since the last checkpoint)") \
	X(lost_crashed_gpu_s, "GPU*s", "GPU-seconds lost to crashes")                              \
	X(lost_hang_gpu_s, "GPU*s", "GPU-seconds lost to hangs: work since the last checkpoint and time hung") \
	X(stops_loss_spike, "1", "running jobs rolled back by a loss spike")                        \
	X(lost_loss_spike_gpu_s, "GPU*s", "GPU-seconds lost to loss spikes: work since the checkpoint rolled back to") \
	X(retries_exhausted, "1", "jobs ended failed by a fault stop with no retry left")           \
	X(ettr, "1", "effective training time ratio: useful GPU-seconds / GPU-seconds held, all jobs") \
	X(fault_restarts, "1", "restarts that followed a fault stop (node failure, crash, hang, loss spike)")  \
	X(time_to_recover_s, "s", "time from fault stops to those restarts, summed (mean: / fault_restarts)") \
	X(time_to_detect_hang_s, "s", "time from hangs to their kills, summed (mean: / stops_hang)")      \
	X(autoscale_nodes_requested, "1", "nodes asked for by autoscaler scale-ups (docs/capacity.md)") \
	X(autoscale_nodes_removed, "1", "idle nodes given back by autoscaler scale-downs")            \
	X(autoscale_node_h, "node*h", "node-hours up on autoscaled flavors (provisioned, busy or idle)") \
	X(cost_on_demand, "currency", "the jobs' cost on on-demand capacity: every flavor that is neither spot nor flex") \
	X(cost_autoscaled_idle, "currency", "price of the autoscaled node-hours up minus the jobs' cost on them") \
	X(useful_gpu_h, "GPU*h", "useful work: completed jobs' whole run time, the saved part of others, x GPUs") \
	X(cost_per_useful_gpu_h, "currency/(GPU*h)", "cost / useful_gpu_h")                        \
	X(cost_spot, "currency", "the jobs' cost on spot flavors")                                  \
	X(spot_notices, "1", "spot interruption notices given to nodes up")                         \
	X(stops_spot, "1", "running jobs stopped by a spot interruption")                           \
	X(spot_saved, "1", "of those, jobs that saved their work by a checkpoint within the notice") \
	X(lost_spot_gpu_s, "GPU*s", "GPU-seconds lost to spot interruptions (work since the last checkpoint)") \
	X(max_wait_exceeded, "1", "jobs ended max_wait_exceeded: max_wait_s ran out before they completed") \
	X(cost_capacity, "currency", "price x node-hours of the capacity paid for, busy or idle, first submit to end") \
	X(slow_episodes, "1", "fail-slow episodes begun: a node ran at a speed factor < 1 (docs/faults.md)") \
	X(slow_detected, "1", "of those, episodes detected (detection on): the node left placement") \
	X(lost_slow_gpu_s, "GPU*s", "GPU-seconds lost to slow nodes: GPUs x held time x (1 - rate)") \
	X(stops_slow_migrated, "1", "running jobs stopped by a slow detection and queued again") \
	X(lost_slow_migrated_gpu_s, "GPU*s", "GPU-seconds those stops lost (work since the last checkpoint)") \
	X(flex_requests, "1", "flex-start provisioning requests made (docs/capacity.md)")          \
	X(flex_requests_failed, "1", "flex-start requests that failed (retried, or out of retries)") \
	X(flex_gave_up, "1", "flex-start jobs out of retries: ended failed, or fell back")          \
	X(flex_cutoffs, "1", "flex-start jobs stopped at the maximum run duration")                \
	X(flex_node_h, "node*h", "node-hours of provisioned flex-start nodes")                     \
	X(cost_flex, "currency", "price of the flex-start node-hours (whole nodes, arrival to going)") \
	X(restarts_in_place, "1", "crashes and hang kills restarted in place (GPUs kept; docs/faults.md, Retries)") \
	X(restarts_full, "1", "fault stops that queued the job again (full restarts)")             \
	X(replay_ignored, "1", "rows of a replayed incident log that found nothing to do")

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

/* The per-queue table /runs/<run>/queues: one row a trace queue, after its string
 * field "queue". X(name, unit, description). "Exact" values are integrated by the
 * engine at every change; lent_gpu_h is integrated over the time series samples. */
#define SIM_QUEUE_FIELDS(X)                                                                        \
	X(nominal_gpus, "GPU", "nominal quota at the end of the run, all flavors; NaN without quotas") \
	X(jobs, "1", "jobs of the queue in the trace")                                              \
	X(completed, "1", "its jobs that ran to completion")                                        \
	X(mean_wait_s, "s", "mean of wait_s over its started jobs")                                 \
	X(p95_wait_s, "s", "95th percentile of wait_s over its started jobs")                       \
	X(busy_gpu_h, "GPU*h", "allocated GPU-hours, every run segment (exact)")                    \
	X(borrowed_gpu_h, "GPU*h", "GPU-hours above its nominal (exact)")                           \
	X(lent_gpu_h, "GPU*h", "GPU-hours of its nominal used by other queues (sampled)")           \
	X(below_nominal_demanding_h, "h", "time with jobs pending while usage < nominal (exact)")    \
	X(preemptions_suffered, "1", "preemptions of its jobs")                                     \
	X(preemptions_caused, "1", "preemptions its jobs caused in any queue (quota shrinks not counted)") \
	X(lost_gpu_h, "GPU*h", "work its jobs lost to preemptions")                                 \
	X(restore_h, "h", "restore time its jobs paid on restarts")                                 \
	X(share, "1", "busy_gpu_h x 3600 / (nominal_gpus x makespan_s); NaN when nominal is 0") \
	X(cost, "currency", "its jobs' cost (jobs field cost), every capacity type")              \
	X(cost_on_demand, "currency", "its jobs' cost on on-demand flavors (cost_type on_demand)") \
	X(cost_spot, "currency", "its jobs' cost on spot flavors")                                  \
	X(cost_plan, "currency", "its jobs' cost on training-plan flavors")                         \
	X(cost_autoscaled, "currency", "its jobs' cost on autoscaled flavors (idle nodes not included)") \
	X(cost_flex, "currency", "its jobs' cost on flex-start flavors (their GPU share of the nodes)")

enum sim_queue_field {
#define SIM_QF_ENUM(name, unit, desc) SIM_QF_##name,
	SIM_QUEUE_FIELDS(SIM_QF_ENUM)
#undef SIM_QF_ENUM
	SIM_QF_COUNT_
};

struct sim_queue_row {
	double v[SIM_QF_COUNT_];
};

/* The capacity type a flavor's GPU time is billed as (docs/capacity.md, "Cost"):
 * the jobs field cost_type, and the per-queue cost columns. */
enum sim_cost_type {
	SIM_COST_ON_DEMAND = 0, /* a fixed flavor (stock-outs, capacity events and reservations included) */
	SIM_COST_SPOT,          /* a spot flavor */
	SIM_COST_PLAN,          /* a flavor whose windows are training plans */
	SIM_COST_AUTOSCALED,    /* an autoscaled flavor */
	SIM_COST_FLEX,          /* a flex-start flavor */
	SIM_COST_TYPE_COUNT_
};
#define SIM_COST_TYPE_NONE 255 /* the jobs field of a job that never started */
const char *sim_cost_type_name(enum sim_cost_type t); /* "on_demand", ...; "none" otherwise */
/* out[f] = the type of flavor f, for n_flavors flavors (NULL plans: not that type). */
void sim_metrics_flavor_cost_types(size_t n_flavors, const struct sim_capacity *cap, const struct sim_autoscale *as,
				   const struct sim_spot *sp, const struct sim_flex *fx, uint8_t *out);
/* The type a job's cost was billed as: its flavor's (the one it ran on last), or
 * SIM_COST_TYPE_NONE when it never started; types NULL: every flavor on demand. */
uint8_t sim_metrics_job_cost_type(const struct sim_trace *t, const uint8_t *types, size_t n_flavors,
				  const struct sim_job *j);
/* Fills the cost columns of the per-queue rows (sim_metrics_queues leaves them NaN):
 * the sums of the jobs field cost by queue, and by cost type (NaN costs left out). */
void sim_metrics_queue_costs(const struct sim_trace *t, const struct sim_cluster *c, const uint8_t *types,
			     struct sim_queue_row *rows);

const char *sim_queue_field_name(enum sim_queue_field f);
const char *sim_queue_field_unit(enum sim_queue_field f);
const char *sim_queue_field_description(enum sim_queue_field f);

/* The per-option table /runs/<run>/options: one row an option index 0 .. k-1, k the
 * largest n_opts in the trace, after its integer field "option". A job counts in the
 * row of the option it ran on (sim_job.opt_chosen) when it started; runtimes are the
 * whole job's run time on the option (docs/design.md section 1 scaling, sim_scaled_time_ns),
 * without checkpoint or restore overheads. X(name, unit, description). */
#define SIM_OPTION_FIELDS(X)                                                                       \
	X(jobs, "1", "started jobs that ran on this option")                                        \
	X(share, "1", "jobs / started jobs with a chosen option (all rows)")                        \
	X(mean_wait_s, "s", "mean of wait_s (submit to first start) over those jobs")               \
	X(p50_wait_s, "s", "median wait_s over those jobs")                                         \
	X(p95_wait_s, "s", "95th percentile of wait_s over those jobs")                             \
	X(mean_runtime_s, "s", "mean run time of those jobs on this option (scaled duration)")      \
	X(runtime_ratio, "1", "mean of runtime on this option / runtime on option 0")               \
	X(mean_cost, "currency", "mean of the jobs' cost over those jobs")

enum sim_option_field {
#define SIM_OF_ENUM(name, unit, desc) SIM_OF_##name,
	SIM_OPTION_FIELDS(SIM_OF_ENUM)
#undef SIM_OF_ENUM
	SIM_OF_COUNT_
};

struct sim_option_row {
	double v[SIM_OF_COUNT_];
};

const char *sim_option_field_name(enum sim_option_field f);
const char *sim_option_field_unit(enum sim_option_field f);
const char *sim_option_field_description(enum sim_option_field f);

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

/* Fills rows[0 .. t->n_queues) from a finished run (analysis/SCHEMA.md, "queues").
 * Every input but the trace may be NULL: acct (sim_engine_queue_acct: nominal, busy,
 * borrowed, below-nominal time), ts (its has_quota_stats and q_lent: lent) and
 * decisions (preemptions caused). What they would give is then NaN, except
 * preemptions_caused, which falls back to the jobs' counts. end_ns is the run's end
 * (SIM_TIME_NONE: unknown; share and lent are then NaN). Without quota stats
 * (ts->has_quota_stats 0) nominal, borrowed, lent, below-nominal time and share
 * are NaN: there is no quota. Returns 0 or -SIM_ENOMEM. */
int sim_metrics_queues(const struct sim_trace *t, const struct sim_queue_acct *acct,
		       const struct sim_timeseries *ts, const struct sim_decisions *decisions,
		       sim_time_t end_ns, struct sim_queue_row *rows);

/* Fills rows[0 .. *n_rows) from a finished run (analysis/SCHEMA.md, "options"); *n_rows
 * is the largest n_opts of the trace's jobs (0 for an empty trace), at most
 * SIM_MAX_OPTIONS. A row without jobs has jobs 0 and NaN elsewhere (share 0 when some
 * job started). The trace should be bound to c (option flavors are cluster indices).
 * Returns 0 or -SIM_ENOMEM. */
int sim_metrics_options(const struct sim_trace *t, const struct sim_cluster *c,
			struct sim_option_row rows[SIM_MAX_OPTIONS], size_t *n_rows);

/* Jain's fairness index (sum x)^2 / (n sum x^2) of n values: 1 when all are equal,
 * 1/n when one value holds everything. NaN when n = 0 or every x is 0. */
double sim_metrics_jain(const double *x, size_t n);
/* gsl_stats_mean(x, 1, n) to the bit (GSL's running mean in long double), faster
 * where samples repeat the running mean (sorted samples of many equal waits). */
double sim_metrics_mean(const double *x, size_t n);

/* Utilization when capacity changed over the run (stock-outs, reservations, capacity
 * events): busy_gpu_s over capacity_gpu_s, the GPU-seconds of capacity in force from
 * the first submit to the end (sim_engine_capacity_gpu_s), instead of the final
 * capacity x makespan_s. NaN when capacity_gpu_s <= 0. */
void sim_metrics_set_capacity_gpu_s(struct sim_summary *sum, double capacity_gpu_s);
/* cost_capacity: what the capacity cost (sim_engine_capacity_cost), busy or idle. */
void sim_metrics_set_capacity_cost(struct sim_summary *sum, double cost);
/* Fills the summary's engine-counted fault fields (nodes_failed .. hangs,
 * retries_exhausted) from the counters (sim_metrics_summarize sets them to 0).
 * configured_gpus > 0 (a run with node failures): gpu_capacity and utilization are
 * over the configured GPUs, not those up at the end (docs/faults.md, "Metrics"). */
void sim_metrics_set_faults(struct sim_summary *sum, const struct sim_engine_counters *ctr, double configured_gpus);
/* Completes the cost fields of a run with autoscaled flavors (a NULL or empty plan
 * changes nothing): the autoscaler's counts, node-hours and idle cost, added to
 * cost (docs/capacity.md, "Cost"). */
void sim_metrics_set_autoscale(struct sim_summary *sum, const struct sim_trace *t, const struct sim_cluster *c,
			       const struct sim_autoscale *as, const struct sim_engine_counters *ctr);
/* The spot fields (0 without spot flavors): the counts, and cost_spot, the jobs'
 * cost on spot flavors, moved out of cost_on_demand. */
void sim_metrics_set_spot(struct sim_summary *sum, const struct sim_trace *t, const struct sim_cluster *c,
			  const struct sim_spot *sp, const struct sim_engine_counters *ctr);
/* The flex-start fields (0 without flex flavors): the counts, node-hours and
 * cost_flex, the price of the provisioned nodes; the jobs' cost on flex flavors
 * moves out of cost_on_demand, and cost gains the nodes' unused part (cost_flex
 * minus those jobs' cost; docs/capacity.md, "Flex-start"). */
void sim_metrics_set_flex(struct sim_summary *sum, const struct sim_trace *t, const struct sim_cluster *c,
			  const struct sim_flex *fx, const struct sim_engine_counters *ctr);

/* Completes a summary with the per-queue results: jain_fairness over the queues
 * with nominal_gpus > 0 and at least one job (x = share; NaN when there is none). */
void sim_metrics_summarize_queues(const struct sim_trace *t, const struct sim_queue_row *rows,
				  struct sim_summary *sum);

/* Summary of several replications: mean and 95% CI half-width (Student t) of each
 * field over n runs. ci95 is 0 for n = 1. */
void sim_metrics_replicate(const struct sim_summary *runs, size_t n, struct sim_summary *mean,
			   struct sim_summary *ci95);

#endif
