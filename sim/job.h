/* sim/job.h: jobs and the trace that owns them.
 *
 * A job's input fields come from a trace and never change during a run; its run
 * state (the "state" block) is owned by the engine and reset by sim_trace_reset().
 * The trace owns every job, option, string and alloc node list.
 */
#ifndef SIM_JOB_H
#define SIM_JOB_H

#include "ckpt.h"
#include "sim.h"

#define SIM_MAX_OPTIONS 5
#define SIM_FLAVOR_ANY (-1) /* request "*:gpu=1": any flavor, tried in config order */
/* Fault causes a job counts (sim/hooks.h: SIM_STOP_NODE_FAILED .. SIM_STOP_HANG, then
 * SIM_STOP_LOSS_SPIKE, appended later to the causes: index 3). */
#define SIM_JOB_FAULT_CAUSES 4

/* One way to run a job: a flavor and a request vector. */
struct sim_job_option {
	int32_t flavor_id;        /* index into the trace's flavor names, or SIM_FLAVOR_ANY */
	int32_t pad_;
	sim_time_t duration_ns;   /* stated run time on this option; 0 = scale from option 0 */
	sim_qty_t req[SIM_MAX_RES]; /* milli-units, indexed as struct sim_resources */
};

enum sim_job_state {
	SIM_JOB_UNSUBMITTED = 0, /* before its submit time */
	SIM_JOB_QUEUED,          /* submitted, waiting */
	SIM_JOB_RUNNING,
	SIM_JOB_COMPLETED,
	SIM_JOB_REJECTED,        /* can never run (request above any capacity or quota) */
	SIM_JOB_TIMED_OUT_PENDING,
	SIM_JOB_FAILED,
	SIM_JOB_UNFINISHED,      /* still queued or running when the run stopped */
	SIM_JOB_PREEMPTED_OUT,   /* stopped for good: preempted more often than its queue's retry limit */
	SIM_JOB_MAX_WAIT_EXCEEDED, /* its max_wait_s ran out before it completed (docs/capacity.md) */
	SIM_JOB_STATE_COUNT_
};
const char *sim_job_state_name(enum sim_job_state s); /* "completed", ... */

/* Where a running job sits. A job of up to one node's GPUs uses part of one node
 * (node, with its request); a larger one takes n_nodes whole nodes (nodes[]). */
struct sim_alloc {
	int32_t flavor;   /* -1 when never placed; after the job ends, the flavor it ran on */
	uint32_t n_nodes; /* 0 = not placed; 1 = partial or whole single node */
	uint32_t node;    /* first (or only) node index within the flavor */
	uint8_t whole;    /* 1 = whole nodes (all their resources) */
	uint32_t *nodes;  /* n_nodes entries when n_nodes > 1, owned by the alloc; else NULL */
};

struct sim_job {
	/* ---- input, immutable during a run ---- */
	uint32_t idx;          /* position in the trace after sorting by (submit, row) */
	uint32_t line;         /* source line (1-based) for messages */
	uint32_t id_off;       /* offset of the NUL-terminated id in trace->strings */
	int32_t queue;         /* index into trace->queues */
	int32_t user;          /* index into trace->users, or -1 */
	int32_t priority;      /* higher is more important */
	sim_time_t submit_ns;
	sim_time_t duration_ns;   /* run time on option 0 at speed 1.0, > 0 */
	sim_time_t estimate_ns;   /* user runtime estimate (estimate_s column), else duration */
	sim_time_t max_pending_ns; /* SIM_TIME_NONE = unbounded */
	sim_time_t deadline_ns;    /* absolute, SIM_TIME_NONE = none */
	sim_time_t checkpoint_ns;  /* interval, SIM_TIME_NONE = no checkpoints */
	sim_time_t max_wait_ns;    /* SageMaker MaxWaitTimeInSeconds: from submit to the end, waits and
				    * interruptions included (docs/capacity.md); 0 = none */
	uint32_t opt_first;    /* index of option 0 in trace->opts */
	uint8_t n_opts;        /* 1 (request) or 2..5 (prefs) */
	uint8_t has_prefs;     /* 1 when the row used prefs */
	uint8_t preemptible;   /* default 1 */

	/* ---- run state, owned by the engine ---- */
	uint8_t state;         /* enum sim_job_state */
	int8_t opt_chosen;     /* option the job (last) ran on, -1 = none */
	uint32_t preemptions;
	int32_t eff_priority;  /* priority in force now (order policies may age it) */
	uint32_t preemptions_caused; /* victims this job's admission preempted */
	sim_time_t start_ns;   /* first start, SIM_TIME_NONE before */
	sim_time_t last_start_ns;
	sim_time_t end_ns;     /* completion or final state time, SIM_TIME_NONE before */
	sim_time_t runtime_ns; /* wall time of the current (or last) run segment: restore,
				* remaining work and checkpoint overheads */
	/* Preemption cost (docs/design.md section 2). Work is measured in fractions of the
	 * job's whole work, so a restart on another flavor scales it by that speed. */
	double progress;       /* work saved by completed checkpoints, 0..1 */
	sim_time_t seg_restore_ns; /* restore time at the start of the current segment */
	double lost_gpu_s;     /* GPU-seconds of work lost to preemptions */
	double restore_s;      /* restore time paid on restarts, s */
	double ckpt_overhead_s; /* checkpoint overhead paid, s (completed checkpoints) */
	double held_s;         /* wall seconds it held its allocation, over ended segments */
	uint64_t finish_ev;    /* event id of its pending EV_FINISH, 0 = none */
	uint64_t timeout_ev;   /* event id of its pending EV_TIMEOUT (max_pending_s), 0 = none */
	sim_time_t pending_from_ns; /* when its pending clock started: submit, or the opening of
				     * the reservation window its first option waits for */
	/* Fallback (policies/fallback.c): the engine asks the fallback policy for a
	 * queued job's options only when the free capacity of the flavors they name has
	 * grown since the last time (sim_cluster_free_gen), so a waiting job is
	 * re-evaluated on capacity changes, never by polling. */
	uint32_t fb_evals;     /* evaluations while queued (fallback policy consulted) */
	uint32_t interruptions; /* stopped because its nodes were removed (capacity events) */
	uint64_t fb_seen;      /* 1 + the capacity generation of its last fruitless evaluation, 0 = none */
	sim_time_t order_shift_ns; /* queue order time - submit time: 0, or (back of the queue) its
				    * last requeue time - submit time; see sim_job_order_ns */
	/* Fault, restart and fail-slow state: struct sim_job_fx, apart (trace->fx). */
	struct sim_alloc alloc;
};

/* A job's fault, restart and fail-slow state (docs/faults.md), kept out of struct
 * sim_job so that a run without faults, spot or fail-slow nodes does not carry its
 * 104 bytes a job (issue 18: the job record is most of a large run's memory). The
 * engine allocates trace->fx (n_jobs entries, by job->idx) when its run has such a
 * source, and writes it; sim_trace_reset zeroes it; readers use sim_job_fx. */
struct sim_job_fx {
	/* indexed node_failed, crashed, hang, loss_spike: the stops of each cause and the
	 * GPU-seconds they lost (work since the last checkpoint, and for a hang the time
	 * hung) */
	uint32_t fault_stops[SIM_JOB_FAULT_CAUSES];
	double lost_fault_gpu_s[SIM_JOB_FAULT_CAUSES];
	uint64_t fault_ev;     /* event id of its pending crash, hang, hang kill or spot stop, 0 = none */
	sim_time_t hang_ns;    /* when the running segment hung (stopped progressing), 0 = not hung */
	sim_time_t fault_stop_ns; /* when a fault stop last queued it again, until it restarts; 0 = none */
	/* Restart rules (docs/faults.md, "Retries"). */
	uint32_t inplace_run;  /* in-place restarts since its last start from the queue */
	uint32_t full_restarts; /* times a fault stop queued it again */
	/* Fail-slow nodes (docs/faults.md, "Fail-slow nodes"): the running segment's own
	 * clock, its time at full speed, is seg_base_ns + (t - seg_since_ns) x seg_rate
	 * at wall time t (until a hang); seg_rate is the speed of its slowest node, set
	 * by the engine at each start (1, base 0, since the start) and rate change. */
	double seg_rate;
	sim_time_t seg_base_ns, seg_since_ns;
};

/* A loaded trace. Jobs are sorted by (submit_ns, source row). */
struct sim_trace {
	char *path;                 /* owned copy, for messages */
	struct sim_resources res;   /* resource names seen in requests */
	struct sim_job *jobs;
	size_t n_jobs;
	struct sim_job_option *opts;
	size_t n_opts;
	struct sim_job_fx *fx; /* n_jobs entries, or NULL (a run without faults); owned */
	char *strings;              /* job ids, NUL-separated */
	size_t strings_len;
	char **flavors;             /* flavor names named by requests (not "*") */
	size_t n_flavors;
	char **queues;              /* queue names; "default" when the column is absent */
	size_t n_queues;
	char **users;
	size_t n_users;
	uint8_t has_estimates;      /* the trace had an estimate_s column */
	/* Set by sim_trace_bind (sim/bind.c): while bound, options hold cluster flavor
	 * indices and cluster resource order; bind_flavor[i] is the cluster index of
	 * trace flavor i, bind_res[i] the cluster index of trace resource i. */
	int bound;
	int32_t *bind_flavor;
	int bind_res[SIM_MAX_RES];
};

static inline const char *sim_job_id(const struct sim_trace *t, const struct sim_job *j)
{
	return t->strings + j->id_off;
}
/* The time order policies rank a waiting job by (docs/faults.md, "Place in the
 * queue"): its submit time, unless a back-of-the-queue requeue moved it later. */
static inline sim_time_t sim_job_order_ns(const struct sim_job *j)
{
	return j->submit_ns + j->order_shift_ns;
}
static inline const struct sim_job_option *sim_job_opt(const struct sim_trace *t,
						       const struct sim_job *j, int k)
{
	return &t->opts[j->opt_first + (uint32_t)k];
}

struct sim_trace *sim_trace_create(void);
void sim_trace_destroy(struct sim_trace *t); /* NULL is a no-op; frees allocs too */
/* Whether a fork() hands the trace's large arrays (jobs, options) to the child:
 * share 0 marks their whole pages MADV_DONTFORK, 1 gives them back (MADV_DOFORK).
 * For a child that never reads the trace (the sweep's cleaner, experiments/
 * parallel.c): while it lives, every page of the jobs array the parent writes would
 * otherwise be copied (copy-on-write), 300 MB for a million jobs. 0, or -SIM_EIO
 * when the kernel refused (the arrays are then as they were). */
int sim_trace_fork_share(struct sim_trace *t, int share);
/* Puts every job back to UNSUBMITTED with no start, end, alloc or preemptions. */
void sim_trace_reset(struct sim_trace *t);
/* Appends helpers used by readers and tests. Each returns an index, or -SIM_ENOMEM. */
int sim_trace_intern_flavor(struct sim_trace *t, const char *name);
int sim_trace_intern_queue(struct sim_trace *t, const char *name);
int sim_trace_intern_user(struct sim_trace *t, const char *name);
/* Sorts jobs by (submit_ns, line) and renumbers idx. */
void sim_trace_sort(struct sim_trace *t);

/* The cost of a stop, part of the job model (config $.jobs.checkpoint; docs/design.md
 * section 2), paid whatever stopped the job (a preemption, its nodes removed): a
 * checkpoint every job->checkpoint_ns of work costs ckpt_overhead_ns of wall time;
 * a restart from saved work first pays restore_ns. */
struct sim_preempt_cost {
	sim_time_t ckpt_overhead_ns; /* the persistent tier's write cost (the one tier) */
	sim_time_t restore_ns;       /* and its restore */
	struct sim_ckpt_policy tiers; /* memory tier, interval policy (sim/ckpt.h); zero: one tier, fixed */
};

/* Job j's fault state (trace->fx), or zeros (rate 1) when its run had no fault
 * source. */
const struct sim_job_fx *sim_job_fx(const struct sim_trace *t, const struct sim_job *j);

#endif
