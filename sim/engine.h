/* sim/engine.h: the discrete-event engine, its view for policies, and the driver
 * interface that decides what "time" and "starting a job" mean.
 *
 * Loop: take the earliest time among pending events and the next trace submit
 * (submits are streamed from the sorted trace, never pushed up front), let the
 * driver advance to it, apply every event at that time in (phase, seq) order, then
 * run one decision pass (the order policy's pick). Time never goes backwards.
 *
 * The driver owns the clock and job execution. The virtual driver (sim/drv_virtual.c)
 * jumps the clock and tells the engine when each job ends (sim_engine_job_ends); a
 * real driver (gpu_exec/) sleeps on the wall clock and tells it when a workload ended.
 */
#ifndef SIM_ENGINE_H
#define SIM_ENGINE_H

#include "autoscale.h"
#include "flex.h"
#include "capacity.h"
#include "cluster.h"
#include "evq.h"
#include "faults.h"
#include "spot.h"
#include "hooks.h"
#include "job.h"
#include "sim.h"

struct sim_engine;
struct sim_view; /* a const handle on the engine for policies */

/* What a stopped job had done, measured by a real driver (gpu_exec/): work done
 * and work saved at its last checkpoint, as fractions of the job's whole work on
 * the flavor it held, and the checkpoints completed in the stopped segment. */
struct sim_stop_measure {
	int measured;
	double done, saved;
	uint32_t ckpts;
};


struct sim_driver_ops {
	const char *name;
	/* Time now, in ns since trace start. */
	sim_time_t (*now)(void *priv);
	/* Advance towards t (SIM_TIME_MAX: nothing is scheduled; wait for running jobs).
	 * Returns when the clock reached t or when the driver posted an earlier event
	 * with sim_engine_job_ends(). Returns 0 or -SIM_E*. */
	int (*advance)(void *priv, struct sim_engine *e, sim_time_t t);
	/* Starts a placed job (alloc and runtime_ns set). The virtual driver calls
	 * sim_engine_job_ends(now + runtime_ns). */
	int (*start)(void *priv, struct sim_engine *e, struct sim_job *job);
	/* Stops a running job before its end (preemption, failure): the driver withdraws
	 * its end (sim_engine_job_end_cancel).
	 * A driver that measures what the job did fills *m (m->measured = 1); the
	 * virtual driver leaves it zeroed and the engine derives it from time. */
	int (*stop)(void *priv, struct sim_engine *e, struct sim_job *job, struct sim_stop_measure *m);
	/* Optional (NULL: nothing to do, as for the virtual driver). A running job hangs
	 * now (docs/faults.md, "Hangs"): called by the engine's job-fault handling, in the
	 * event phase, right after it withdrew the job's end. From now on the job's
	 * workload must make no progress but keep its GPUs, and must not report an end
	 * by itself; the engine later stops it through stop (its kill, or any other
	 * stop), which measures the work as it stood at the hang. Returns 0 or -SIM_E*. */
	int (*hang)(void *priv, struct sim_engine *e, struct sim_job *job);
	/* Optional (NULL: the engine moves the job's end itself, as for the virtual
	 * driver). A running job's speed changes now to rate (0 < rate <= 1) of full
	 * speed, the speed of its slowest node (docs/faults.md, "Fail-slow nodes"):
	 * the workload keeps its progress and advances at rate from now on, and reports
	 * its end when its work is done at that pace. Called in the event phase, never
	 * for a hung job. Returns 0 or -SIM_E*. */
	int (*slow)(void *priv, struct sim_engine *e, struct sim_job *job, double rate);
};

struct sim_driver {
	const struct sim_driver_ops *ops;
	void *priv;
};

/* The virtual-time driver. *drv is ready to use; sim_driver_virtual_fini frees it. */
int sim_driver_virtual_init(struct sim_driver *drv);
void sim_driver_virtual_fini(struct sim_driver *drv);

/* Sampled time series, one row per sample time (step function: the state in force
 * from that time on), at times 0, step, 2 step... busy_gpu_by_flavor is row-major
 * [n][n_flavors]. When a run would record more than sim_ts_max_rows rows, every
 * other row is dropped and the step doubles, as often as needed. */
#define SIM_TS_MAX_SAMPLES 20000
/* A row holds 4 doubles a queue, so with many queues rows are capped by cells too:
 * at most SIM_TS_MAX_QUEUE_CELLS queue-rows (64 MB of doubles), never fewer than
 * SIM_TS_MIN_SAMPLES rows. Up to 100 queues the cap is SIM_TS_MAX_SAMPLES. */
#define SIM_TS_MAX_QUEUE_CELLS 2000000
#define SIM_TS_MIN_SAMPLES 2000
size_t sim_ts_max_rows(size_t n_queues);
struct sim_timeseries {
	size_t n, cap, n_flavors, n_queues;
	size_t max_rows;          /* sim_ts_max_rows(n_queues) */
	double *t_s;
	double *gpus_busy;        /* GPUs allocated, all flavors */
	double *jobs_queued;
	double *jobs_running;
	double *gpus_busy_by_flavor;
	/* Per queue, row-major [n][n_queues], GPUs: requested by running jobs (always), and when the
	 * quota policy reports them (has_quota_stats), nominal, borrowed, lent. */
	int has_quota_stats;
	double *q_usage, *q_nominal, *q_borrowed, *q_lent;
	/* Node slots failed and not yet back (docs/faults.md), per sample; only in a run
	 * with node failures (has_nodes_down), else NULL. */
	int has_nodes_down;
	double *nodes_down;
};

/* One preemption, in the order issued. */
struct sim_decision {
	sim_time_t t;
	uint32_t preemptor, victim; /* job indices */
	uint8_t reason;             /* enum sim_preempt_reason */
	uint8_t requeued;           /* 0: the victim reached its retry limit and stopped */
	double lost_gpu_s;          /* work the victim lost */
};

struct sim_decisions {
	struct sim_decision *v;
	size_t n, cap;
};

/* Exact per-queue totals over the run (integrated at every change of the queue). */
struct sim_queue_acct {
	double busy_gpu_s;                /* GPU-seconds its running jobs requested (quota's measure) */
	double borrowed_gpu_s;            /* GPU-seconds above nominal */
	double below_nominal_demanding_s; /* time with jobs pending and usage below nominal */
	double lost_gpu_s;                /* work its jobs lost to preemption */
	double restore_s;                 /* restore time its jobs paid */
	uint64_t preempted;               /* preemptions its jobs suffered */
	uint64_t caused;                  /* preemptions its jobs caused */
	/* integration state */
	sim_qty_t gpus;                   /* requested by its running jobs now, milli-GPUs */
	double nominal;                   /* GPUs, from the quota policy (0 without one) */
	uint64_t pending;                 /* queued jobs now */
	sim_time_t last_t;
};


struct sim_engine_counters {
	uint64_t events;            /* events applied (submits included) */
	uint64_t decision_passes;
	uint64_t proposals_rejected; /* sim_placement_buf_try calls that did not fit */
	uint64_t starts;
	uint64_t preemptions;
	uint64_t fallback_evals;     /* times a fallback policy was consulted for a queued job */
	uint64_t fallback_skips;     /* tries answered from the memo: capacity had not grown */
	uint64_t interruptions;      /* running jobs stopped because their nodes were removed */
	uint64_t pending_timeouts;   /* jobs ended timed_out_pending */
	uint64_t capacity_changes;   /* capacity events applied (changes, windows, stock-outs) */
	/* Faults (docs/faults.md) */
	uint64_t nodes_failed;       /* node failures */
	uint64_t nodes_repaired;     /* repairs completed (a node back in its slot or in the spare pool) */
	uint64_t nodes_replaced;     /* failed slots refilled from the spare pool */
	uint64_t crashes, hangs;     /* job crashes and hangs that happened */
	uint64_t fault_stops[SIM_JOB_FAULT_CAUSES]; /* running jobs stopped: node_failed, crashed, hang */
	uint64_t retries_exhausted;  /* jobs ended failed by a fault stop (no retry left) */
	double pool_empty_s;         /* time a flavor with spares had slots waiting and an empty pool, summed */
	double recover_s;            /* from fault stops to the restarts that followed them, summed, s */
	uint64_t recoveries;         /* those restarts */
	double hang_hold_s;          /* from hangs to their kills, summed, s (time to detect a hang) */
	uint64_t inplace_restarts;   /* crashes and hang kills restarted in place (their GPUs kept) */
	uint64_t full_restarts;      /* fault stops that queued the job again */
	uint64_t replay_ignored;     /* incident-log rows that found nothing to do (job not running,
				      * node already down, job id not in the trace) */
	/* Fail-slow nodes (docs/faults.md) */
	uint64_t slow_episodes;      /* slow episodes begun */
	uint64_t slow_detected;      /* of those, detected (detection on): the node left placement */
	uint64_t slow_stops;         /* running jobs stopped by a detection (slow_migrated) */
	double slow_lost_gpu_s;      /* GPU-seconds held at reduced speed: GPUs x held time x (1 - rate) */
	double slow_migrated_lost_gpu_s; /* work the migrated jobs lost (since their last checkpoint) */
	/* Autoscaling (docs/capacity.md) */
	uint64_t as_requested;       /* nodes asked for by scale-ups */
	uint64_t as_removed;         /* idle nodes given back by scale-downs */
	double as_node_s;            /* node-seconds up on autoscaled flavors, from the first submit to the end */
	double as_cost;              /* their price: price_per_node_hour x node-hours up, summed over flavors */
	/* Spot (docs/capacity.md) */
	uint64_t spot_notices;       /* interruption notices given to nodes up */
	uint64_t spot_stops;         /* running jobs stopped by them */
	uint64_t spot_saved;         /* of those, jobs that saved their work within the notice */
	double spot_lost_gpu_s;      /* GPU-seconds the others lost (work since their last checkpoint) */
	/* Flex-start (docs/capacity.md, "Flex-start") */
	uint64_t flex_requests;      /* provisioning requests made */
	uint64_t flex_failures;      /* of those, requests that failed */
	uint64_t flex_gave_up;       /* jobs out of retries (ended failed, or fell back) */
	uint64_t flex_cutoffs;       /* running jobs whose nodes were taken back at the maximum run duration */
	double flex_node_s;          /* node-seconds of provisioned flex-start nodes (arrival to going) */
	double flex_cost;            /* their price: price_per_node_hour x node-hours */
};

/* Wall seconds between two progress calls during a run. */
#define SIM_PROGRESS_PERIOD_S 0.5

typedef void (*sim_progress_fn)(void *arg, size_t jobs_done, size_t jobs_total, sim_time_t now);

struct sim_engine_params {
	struct sim_trace *trace;         /* borrowed; bound to the cluster (sim_trace_bind) */
	struct sim_cluster *cluster;     /* borrowed */
	struct sim_policy *policies[SIM_FAM_COUNT_]; /* borrowed; [SIM_FAM_ORDER] required */
	struct sim_driver driver;        /* borrowed */
	sim_time_t sample_ns;            /* time series step; 0 = none recorded */
	sim_progress_fn progress;        /* optional, called every SIM_PROGRESS_PERIOD_S of wall time
					  * (between events) and once at the end */
	void *progress_arg;
	/* Optional event log, borrowed: one line an event, in the order applied:
	 *   [T] job=ID event=submit gpus=G queue=Q
	 *   [T] job=ID event=start flavor=F node=N | nodes=N1,N2,... runtime_s=R
	 *   [T] job=ID event=finish
	 * T and R in seconds with 3 decimals. Golden logs in tests/data/golden/ are
	 * compared byte for byte. */
	FILE *log;
	struct sim_preempt_cost cost;
	/* Capacity over time (borrowed, optional): the cluster must have been created
	 * with sim_capacity_initial / sim_capacity_peak node counts. seed draws the
	 * stock-out periods. */
	const struct sim_capacity *capacity;
	uint64_t seed;
	/* Faults (borrowed, optional; sim/faults.h): node failures, repairs, job crashes
	 * and hangs, drawn from the seed. Flavors with failures have no capacity plan. */
	const struct sim_faults *faults;
	/* Autoscaled flavors (borrowed, optional; sim/autoscale.h): the cluster must have
	 * been created with their initial nodes online and max_nodes as the peak. */
	const struct sim_autoscale *autoscale;
	/* Spot flavors (borrowed, optional; sim/spot.h): interruptions drawn from the seed. */
	const struct sim_spot *spot;
	/* Flex-start flavors (borrowed, optional; sim/flex.h): the cluster must have been
	 * created with their nodes offline (0 online, the flavor's node limit as the
	 * peak); requests drawn from the seed. */
	const struct sim_flex *flex;
};

/* The engine resets the trace's run state. Returns NULL on no memory. */
struct sim_engine *sim_engine_create(const struct sim_engine_params *p);
void sim_engine_destroy(struct sim_engine *e); /* NULL is a no-op */
/* Runs to the end: no events, no submits left, and no job can start. Jobs left
 * queued or running end as SIM_JOB_UNFINISHED. Returns 0 or -SIM_E*. */
int sim_engine_run(struct sim_engine *e);
/* Drivers: the running job's run ends at trace time t (>= now), completed or
 * (failed, real drivers) failed. The engine queues its own EV_FINISH, which goes
 * through the one stop transition like every other stop; job->finish_ev keeps its
 * id. Returns 0 or -SIM_E*. sim_engine_job_end_cancel withdraws it (the driver
 * stops the job before that end). */
int sim_engine_job_ends(struct sim_engine *e, struct sim_job *job, sim_time_t t, int failed);
void sim_engine_job_end_cancel(struct sim_engine *e, struct sim_job *job);
const struct sim_timeseries *sim_engine_timeseries(const struct sim_engine *e);
const struct sim_engine_counters *sim_engine_counters(const struct sim_engine *e);
const struct sim_view *sim_engine_view(const struct sim_engine *e);
const struct sim_decisions *sim_engine_decisions(const struct sim_engine *e);
/* Sets the cost of preemption before the run (the preemption policy's settings). */
void sim_engine_set_cost(struct sim_engine *e, const struct sim_preempt_cost *cost);
/* Array of trace->n_queues entries, final once sim_engine_run returns. */
const struct sim_queue_acct *sim_engine_queue_acct(const struct sim_engine *e);
/* GPU-seconds of capacity in force (online GPUs and the busy part of draining
 * nodes) from the first submit to now: total GPUs x makespan when capacity never
 * changes. The denominator of utilization under capacity events and stock-outs. */
double sim_engine_capacity_gpu_s(const struct sim_engine *e);
/* What that capacity cost from the first submit to now, currency: the price x
 * node-hours of the nodes billed (docs/capacity.md, "What the capacity costs"); 0
 * when no flavor has a price. */
double sim_engine_capacity_cost(const struct sim_engine *e);
/* Time of the last event applied (the run's end once sim_engine_run returns). */
sim_time_t sim_engine_now(const struct sim_engine *e);

/* The cost of preemption in force (drivers size checkpoints and restores with it). */
const struct sim_preempt_cost *sim_engine_cost(const struct sim_engine *e);

/* ---- the view: what policies may read ---- */
sim_time_t sim_view_now(const struct sim_view *v);
const struct sim_trace *sim_view_trace(const struct sim_view *v);
const struct sim_cluster *sim_view_cluster(const struct sim_view *v);
const struct sim_job *sim_view_job(const struct sim_view *v, uint32_t idx);
/* Run time of a job on option k placed on flavor f, scaled as docs/design.md section 1:
 * the option's own duration if stated, else duration x (count_0 x speed_0)/(count_k x speed_k).
 * For option 0 on flavor f: duration / speed_f. */
sim_time_t sim_view_runtime(const struct sim_view *v, const struct sim_job *job, int opt, int flavor);
/* The scaling itself, unrounded, for any base time (duration or estimate); also
 * used by sim_trace_bind to refuse times that would not fit sim_time_t. */
double sim_scaled_time_ns(const struct sim_trace *t, const struct sim_cluster *c, const struct sim_job *job,
			  sim_time_t base, int opt, int flavor);
/* The longest run time (and estimate) a job may have on any flavor it may use:
 * 1e9 s, about 31.7 years, like the trace's own bound on duration_s. */
#define SIM_RUNTIME_MAX_NS (1000000000LL * SIM_NS_PER_S)
/* Same scaling for the job's runtime estimate (estimate_s, else duration). */
sim_time_t sim_view_estimate(const struct sim_view *v, const struct sim_job *job, int opt, int flavor);
/* 1 if the job's option (-1 = let the fallback policy choose; strict: option 0)
 * fits the free capacity now. */
int sim_view_fits(const struct sim_view *v, uint32_t job, int opt);

/* The capacity plan (NULL when capacity never changes). */
const struct sim_capacity *sim_view_capacity(const struct sim_view *v);
/* For a reservation flavor: now if a window is open, else when the next opens
 * (SIM_TIME_NONE: never again). Other flavors: now. */
sim_time_t sim_view_next_open(const struct sim_view *v, int flavor);

/* Another family's policy (read-only), or NULL. */
const struct sim_policy *sim_view_policy(const struct sim_view *v, enum sim_policy_family fam);
/* Schedules a timed change for the calling policy: at time t (>= now) the engine
 * calls on_event(handle) of family fam's policy, in phase EV_CAPACITY. Returns 0
 * or -SIM_E*. */
int sim_view_post_event(const struct sim_view *v, sim_time_t t, enum sim_policy_family fam, uint32_t handle);

/* Order keys (sim/hooks.h, order_key): an order policy whose keys of queued jobs
 * may have changed (usage decayed at a tick, a start or stop moved a user's
 * usage) calls sim_view_order_changed; whoever keeps jobs sorted by those keys
 * compares sim_view_order_gen at the start of its pass and re-keys when it moved. */
void sim_view_order_changed(const struct sim_view *v);
uint64_t sim_view_order_gen(const struct sim_view *v);
/* The same when only the keys of one trace queue's jobs may have changed (one
 * LocalQueue's usage moved), so a scheduler re-keys that queue alone:
 * sim_view_order_gen_queue(q) moves on a change of every key or of q's;
 * sim_view_order_gen moves on any change. */
void sim_view_order_changed_queue(const struct sim_view *v, int32_t queue);
uint64_t sim_view_order_gen_queue(const struct sim_view *v, int32_t queue);

/* Proposes to start a queued job. On success its capacity is taken at once, so
 * later proposals in the same pass see it; the engine starts every accepted
 * proposal, in order, after pick returns. Returns 0, -SIM_ENOFIT (nothing
 * changes), or -SIM_ESTATE (the job is not queued or already proposed). */
int sim_placement_buf_try(struct sim_placement_buf *out, uint32_t job, int opt);
size_t sim_placement_buf_count(const struct sim_placement_buf *out);
/* Same on one flavor (for a "*" request, or a flavor a quota policy assigned). */
int sim_placement_buf_try_flavor(struct sim_placement_buf *out, uint32_t job, int opt, int flavor);
/* Proposes to stop a running job for `preemptor` (a queued job). The engine stops
 * it after pick returns, before the starts, records the decision and the work
 * lost, and requeues it (requeue = 1) or ends it as SIM_JOB_PREEMPTED_OUT; then it
 * runs another decision pass at the same time. A queued victim (it held quota in a
 * quota policy but had not started; a start proposed for it in this pass is
 * withdrawn) loses nothing. Returns 0, -SIM_ESTATE (neither running nor queued,
 * or already a victim in this pass) or -SIM_ENOMEM. */
int sim_placement_buf_preempt(struct sim_placement_buf *out, uint32_t victim, uint32_t preemptor,
			      enum sim_preempt_reason reason, int requeue);
/* Withdraws the most recent accepted proposal, which must be `job` (a policy that
 * placed a job to inspect where it landed, e.g. backfill, and found it unwanted).
 * Its capacity is freed and the job is queued again. Returns 0 or -SIM_ESTATE. */
int sim_placement_buf_retract(struct sim_placement_buf *out, uint32_t job);

/* Maps a trace's flavor names and resource names onto a cluster, in place: after it,
 * option flavor_id values are cluster flavor indices and req[] follows the
 * cluster's resource order. Checks every job can run on some flavor of its first
 * option (else "FILE:LINE: column request: ..." into diag). Returns 0 or -SIM_EPARSE. */
int sim_trace_bind(struct sim_trace *t, const struct sim_cluster *c, struct sim_diag *diag);

#endif
