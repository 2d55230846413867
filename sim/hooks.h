/* sim/hooks.h: the interface between the engine and a policy (the ops table).
 *
 * The engine owns this interface, as the kernel's core owns struct sched_class;
 * policies/ implements it and policies/policy.h adds the registry and the stack
 * validator.
 *
 * A run stacks up to four policies, one per family (order, quota, preemption,
 * fallback). Exactly one of them owns the decision pass, the "scheduler": the
 * quota policy when it has pick (cohort and hard run Kueue's cycle), else the
 * order policy. The others serve it: an order policy's order_key ranks jobs inside
 * the quota policy's queues, a preemption policy holds settings the quota cycle
 * applies, a fallback policy chooses options (at placement, or as a mode the quota
 * cycle reads from its capability bits).
 *
 * Phases of one timestamp, in order (sim/engine.c, sim_engine_run):
 *   1. events: finishes (on_stop), policy timed events (on_event) and capacity
 *      changes (on_stop for jobs on removed nodes), submits (admit, then on_submit);
 *   2. decision passes: the scheduler's pick, its preemptions applied (on_stop),
 *      then its starts (on_start); repeated at the same time while a pass preempts;
 *   3. the pending limits that run out now (on_stop) and the ticks (on_tick), then
 *      decision passes again if they changed anything ("decide first, then time out").
 * Every hook runs on the engine's thread, one at a time. Pointers passed to a hook
 * are borrowed for the call; the engine owns every job and every state change: a
 * hook never writes a job, it proposes through the placement buffer.
 */
#ifndef SIM_HOOKS_H
#define SIM_HOOKS_H

#include <cjson/cJSON.h>

#include "job.h"
#include "sim.h"

struct sim_policy;
struct sim_view;
struct sim_diag;
struct sim_placement_buf;

enum sim_policy_family {
	SIM_FAM_ORDER = 0, /* which queued job starts next, or its rank inside a queue */
	SIM_FAM_QUOTA,     /* may a job be admitted against its queue's quota */
	SIM_FAM_PREEMPT,   /* which running jobs to stop for a waiting one */
	SIM_FAM_FALLBACK,  /* which option of a preference list to use */
	SIM_FAM_COUNT_
};
const char *sim_policy_family_name(enum sim_policy_family f); /* "order", ... */

/* admit's answer at submit: queue the job, or end it SIM_JOB_REJECTED (it can never
 * fit its queue's quota). */
enum sim_admit { SIM_ADMIT, SIM_REJECT };

/* Why a job stopped: the cause on_stop gets. Every stop goes through one engine
 * transition (sim/engine.c, stop_job), which does the accounting of the work
 * lost and saved, whatever the cause. */
enum sim_stop_cause {
	SIM_STOP_COMPLETED = 0,    /* all its work done */
	SIM_STOP_FAILED,           /* its workload failed (real drivers); never run again */
	SIM_STOP_PREEMPTED,        /* a policy preempted it (running, or queued holding quota) */
	SIM_STOP_CAPACITY_REMOVED, /* its nodes left the cluster */
	SIM_STOP_PENDING_TIMEOUT,  /* it never started and its pending limit ran out */
	SIM_STOP_NODE_FAILED,      /* a node it ran on failed (sim/faults.h) */
	SIM_STOP_CRASHED,          /* its workload crashed (software fault); restarts from its checkpoint */
	SIM_STOP_HANG,             /* it hung and was killed (detection, or its run's end without) */
	SIM_STOP_SPOT,             /* its spot node was taken back (docs/capacity.md); queued again */
	SIM_STOP_MAX_WAIT,         /* its max_wait_s ran out while it ran; never run again. A queued job
				    * whose max_wait_s runs out is notified as SIM_STOP_PENDING_TIMEOUT
				    * (it leaves its queue for good; its final state says why) */
	SIM_STOP_LOSS_SPIKE,       /* a loss spike rolled it back to an earlier checkpoint (docs/faults.md) */
	SIM_STOP_SLOW_MIGRATED,    /* its node was detected slow (sim/faults.h, fail-slow); queued again */
	SIM_STOP_COUNT_
};
const char *sim_stop_cause_name(enum sim_stop_cause c); /* "completed", ... */

/* An order policy's rank of a queued job: compared element by element, the
 * smaller runs first. Ties are broken by whoever sorts (a quota policy: Kueue's
 * queue timestamp, then trace order; policies/keyed.h: submit time, then trace
 * order), so a key never needs to encode them. */
#define SIM_ORDER_KEY_LEN 3
struct sim_order_key {
	double k[SIM_ORDER_KEY_LEN];
};

/* Capabilities (ops.provides) and requirements (ops.requires), checked for a
 * whole stack when a config loads (policies/policy.h, sim_stack_validate). Each
 * bit belongs to one family. */
#define SIM_CAP_OWN_PASS (1u << 0)       /* quota: runs the decision pass itself (its pick) */
#define SIM_CAP_PREEMPT_CYCLE (1u << 1)  /* quota: applies a preemption policy's settings in its cycle */
#define SIM_CAP_ORDER_KEY (1u << 2)      /* order: order_key ranks jobs; usable inside a quota pass */
#define SIM_CAP_FB_STRICT (1u << 3)      /* fallback: option 0 only; a quota cycle can apply it */
#define SIM_CAP_FB_FIRST_FIT (1u << 4)   /* fallback: first option that fits, in the job's order (same) */
#define SIM_CAP_FB_FUNGIBLE (1u << 5)    /* fallback: Kueue's flavor fungibility (same) */
#define SIM_CAP_FB_IN_CYCLE (SIM_CAP_FB_STRICT | SIM_CAP_FB_FIRST_FIT | SIM_CAP_FB_FUNGIBLE)

/* One requirement of a policy on another family: the policy in `family` must
 * provide at least one bit of any_of; a family with no policy provides nothing,
 * unless absent_ok (its default then applies: no fallback policy is strict). why
 * is printed in the refusal. */
struct sim_require {
	enum sim_policy_family family; /* SIM_FAM_COUNT_ ends an array */
	uint32_t any_of;
	int absent_ok;
	const char *why;
};

/* Why a running job was stopped for another (docs/design.md section 2). */
enum sim_preempt_reason {
	SIM_PR_IN_QUEUE = 0,
	SIM_PR_COHORT_RECLAMATION,
	SIM_PR_COHORT_RECLAIM_WHILE_BORROWING,
	SIM_PR_COHORT_FAIR_SHARING,
	SIM_PR_QUOTA_SHRINK,
	SIM_PR_ORDER,      /* an order policy preempted for a job it ranks higher (srtf, las) */
	SIM_PR_COUNT_
};
const char *sim_preempt_reason_name(enum sim_preempt_reason r); /* "in_queue", ... */

/* Per-queue quota state a quota policy reports for the results (GPUs, summed over
 * flavors): usage, nominal, borrowed (usage above nominal) and lent (nominal of
 * this queue in use by others). Arrays of trace->n_queues. */
struct sim_queue_stats {
	double *usage, *nominal, *borrowed, *lent;
};

/* What init gets: the view (trace and cluster are known), and where its params
 * came from, for messages ("exp.json", "$.policies.order"). */
struct sim_policy_env {
	const struct sim_view *view;
	const char *file;
	const char *json_path;
};

/* Each hook: who calls it, when, what state holds, whether it may fail, who owns
 * what it returns. "Notification": updates pol->priv only, decides nothing,
 * cannot fail (a policy that runs out of memory remembers it and fails its next
 * pick). Every hook but init, fini and the required ones is optional (NULL). */
struct sim_policy_ops {
	const char *name;                  /* registry key, [a-z0-9_]+ */
	enum sim_policy_family family;
	uint32_t provides;                 /* SIM_CAP_* bits of this family */
	const struct sim_require *requires; /* NULL, or an array ended by family SIM_FAM_COUNT_ */
	/* init: called once by the runner when the stack is built, before the run; the
	 * view knows the trace, the cluster and the other policies' tables (not their
	 * state). Parses params (a JSON object, or NULL) and reports located errors into
	 * diag with env->json_path; may set pol->tick_ns. Returns 0 or -SIM_E*.
	 * fini: frees pol->priv; must be safe after a failed init. */
	int (*init)(struct sim_policy *pol, const struct sim_policy_env *env,
		    const cJSON *params, struct sim_diag *diag);
	void (*fini)(struct sim_policy *pol);
	/* on_submit: notification, phase 1, when a job arrives and was admitted; the job
	 * is SIM_JOB_QUEUED. */
	void (*on_submit)(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job);
	/* on_start: notification, phase 2, for each start of a pass, in order, once the
	 * job is SIM_JOB_RUNNING with its alloc, option and runtime_ns set. */
	void (*on_start)(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job);
	/* on_stop: notification, after the engine's one stop transition, for every way
	 * a job stops (cause): it finished or failed (phase 1), was preempted (phase 2),
	 * lost its nodes, a node failed, it crashed or its hang was killed (phase 1;
	 * docs/faults.md) or timed out pending (phase 3). Its capacity is released and
	 * its accounting done. job->state == SIM_JOB_QUEUED: it is queued again and
	 * will be offered again (an order policy holding queued jobs takes it back);
	 * any other state is final. */
	void (*on_stop)(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
			enum sim_stop_cause cause);
	/* on_tick: phase 3, at every now = k x pol->tick_ns (k >= 1, simulated time),
	 * after the submits and the first passes of that time, before the passes that
	 * follow, while the run goes on (ticks alone never keep a run alive). May update pol->priv and
	 * call sim_view_order_changed; cannot fail. */
	void (*on_tick)(struct sim_policy *pol, const struct sim_view *v, sim_time_t now);
	/* on_event: phase 1 (EV_CAPACITY, before the submits of its time), for a timed
	 * event the policy posted with sim_view_post_event (quota and priority changes).
	 * Cannot fail; the engine runs a pass afterwards. */
	void (*on_event)(struct sim_policy *pol, const struct sim_view *v, uint32_t handle);
	/* queue_stats: quota family; called by the engine at start, after a quota
	 * event and at every time-series sample. Fills the engine-owned arrays. */
	void (*queue_stats)(struct sim_policy *pol, const struct sim_view *v, struct sim_queue_stats *out);
	/* admit: quota family, required there. Phase 1, when a job arrives, before
	 * on_submit: SIM_REJECT ends it rejected (it can never fit its queue's quota). */
	enum sim_admit (*admit)(struct sim_policy *pol, const struct sim_job *job, const struct sim_view *v);
	/* pick: the decision pass, phase 2; called on the scheduler only (the quota
	 * policy when it has pick, else the order policy: an order policy must have
	 * it). Proposes starts with sim_placement_buf_try() in the order they should
	 * happen, and may propose preemptions with sim_placement_buf_preempt(). The
	 * engine applies the preemptions, then the starts, after it returns. Returns 0
	 * or -SIM_E* (the run stops with it). */
	int (*pick)(struct sim_policy *pol, const struct sim_view *v, struct sim_placement_buf *out);
	/* order_key: order family, with SIM_CAP_ORDER_KEY. Called by the scheduler (a
	 * quota policy's pass, or policies/keyed.h) for a queued job, at submit and
	 * again for every queued job when sim_view_order_gen moved. Pure: reads the
	 * job, the view and pol->priv, writes *out. */
	void (*order_key)(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
			  struct sim_order_key *out);
	/* on_reserve: order family, optional; a notification. Called by the scheduler
	 * during its pass (phase 2) each time it reserves for a queued job: a quota
	 * policy when it books the job's quota (Kueue's "assume", which may come before
	 * nodes are free), policies/keyed.h when a proposed start is accepted. The job
	 * is still SIM_JOB_QUEUED. An order policy whose keys depend on admissions
	 * (Kueue's entry penalty) updates them here and calls sim_view_order_changed;
	 * the scheduler re-keys before it picks the next head. on_stop follows
	 * whenever the job lets go (finished, preempted, timed out). */
	void (*on_reserve)(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job);
	/* choose: fallback family; optional (without it, option 0 only). Writes the options
	 * of a queued job to try now into opts[], in order, and returns how many (0:
	 * wait). The engine places the first of them that fits and no other: one option
	 * runs the whole job, never a mix. Called from sim_placement_buf_try(job, -1),
	 * and only when the free capacity of the job's flavors grew since its last
	 * fruitless evaluation (see sim_job.fb_seen). */
	int (*choose)(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
		      int8_t opts[SIM_MAX_OPTIONS]);
};

struct sim_policy {
	const struct sim_policy_ops *ops;
	void *priv;                        /* owned by the policy; freed by fini */
	sim_time_t tick_ns;                /* on_tick period, ns of simulated time; 0 = none; set by init */
};

/* Checks a table as the engine registers it: name well formed, required hooks of
 * its family present. Returns 0 or -SIM_EINVAL with a message in diag. */
int sim_policy_ops_validate(const struct sim_policy_ops *ops, struct sim_diag *diag);

#endif
