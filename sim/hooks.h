/* sim/hooks.h: the interface between the engine and a policy (the ops table).
 *
 * The engine owns this interface, as the kernel's core owns struct sched_class;
 * policies/ implements it and policies/policy.h adds the registry.
 *
 * Contexts: every hook runs on the engine's thread. Notifications run while events
 * at `now` are applied and must only update pol->priv. Decision hooks (admit,
 * pick, select_victims) run once per timestamp after all its events; they read
 * the view and write proposals into engine-owned buffers. Pointers passed to a
 * hook are borrowed for the call.
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
struct sim_job_buf;

enum sim_policy_family {
	SIM_FAM_ORDER = 0, /* which queued job starts next: fifo, priority, easy_backfill */
	SIM_FAM_QUOTA,     /* may a job be admitted against its queue's quota */
	SIM_FAM_PREEMPT,   /* which running jobs to stop for a waiting one */
	SIM_FAM_FALLBACK,  /* which option of a preference list to use */
	SIM_FAM_COUNT_
};
const char *sim_policy_family_name(enum sim_policy_family f); /* "order", ... */

enum sim_admit { SIM_ADMIT, SIM_DEFER, SIM_REJECT };

/* Why a running job was stopped for another (docs/design.md section 2). */
enum sim_preempt_reason {
	SIM_PR_IN_QUEUE = 0,
	SIM_PR_COHORT_RECLAMATION,
	SIM_PR_COHORT_RECLAIM_WHILE_BORROWING,
	SIM_PR_COHORT_FAIR_SHARING,
	SIM_PR_QUOTA_SHRINK,
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

struct sim_policy_ops {
	const char *name;                  /* registry key, [a-z0-9_]+ */
	enum sim_policy_family family;
	/* Lifecycle. init parses params (a JSON object, or NULL for none) and reports
	 * errors into diag with env->json_path; fini must be safe after a failed init. */
	int (*init)(struct sim_policy *pol, const struct sim_policy_env *env,
		    const cJSON *params, struct sim_diag *diag);
	void (*fini)(struct sim_policy *pol);
	/* Notifications (optional): update pol->priv only; no decisions. */
	void (*on_submit)(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job);
	void (*on_start)(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job);
	void (*on_finish)(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job);
	void (*on_preempt)(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *victim);
	/* A queued job left the queue for good without starting again (its pending
	 * limit ran out: state SIM_JOB_TIMED_OUT_PENDING). Policies that hold queued
	 * jobs drop it (or skip it later: its state is no longer queued). A running job
	 * stopped because its nodes were removed is reported through on_preempt. */
	void (*on_drop)(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job);
	void (*on_tick)(struct sim_policy *pol, const struct sim_view *v, sim_time_t now);
	/* A timed event the policy posted with sim_view_post_event (quota and priority
	 * changes); applied in phase EV_CAPACITY, before the submits of its time. */
	void (*on_event)(struct sim_policy *pol, const struct sim_view *v, uint32_t handle);
	/* Quota state for the per-queue results (optional; quota family). */
	void (*queue_stats)(struct sim_policy *pol, const struct sim_view *v, struct sim_queue_stats *out);
	/* Decisions. admit: quota family; optional. */
	enum sim_admit (*admit)(struct sim_policy *pol, const struct sim_job *job, const struct sim_view *v);
	/* pick: order family; required there. Proposes starts with sim_placement_buf_try()
	 * in the order they should happen. Returns 0 or -SIM_E*. A quota policy may
	 * have pick too (Kueue's cycle orders jobs itself): then the engine calls the
	 * quota policy's pick instead of the order policy's, and it may also propose
	 * preemptions with sim_placement_buf_preempt(). */
	int (*pick)(struct sim_policy *pol, const struct sim_view *v, struct sim_placement_buf *out);
	/* choose: fallback family; optional (without it, option 0 only). Writes the options
	 * of a queued job to try now into opts[], in order, and returns how many (0:
	 * wait). The engine places the first of them that fits and no other: one option
	 * runs the whole job, never a mix. Called from sim_placement_buf_try(job, -1),
	 * and only when the free capacity of the job's flavors grew since its last
	 * fruitless evaluation (see sim_job.fb_seen). */
	int (*choose)(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
		      int8_t opts[SIM_MAX_OPTIONS]);
	/* select_victims: preemption family; optional (the Kueue preemption policies
	 * hold settings that the cohort quota policy applies in its own cycle). */
	int (*select_victims)(struct sim_policy *pol, const struct sim_job *waiting,
			      const struct sim_view *v, struct sim_job_buf *out);
	sim_time_t tick_period;            /* ns; 0 = no on_tick */
};

struct sim_policy {
	const struct sim_policy_ops *ops;
	void *priv;                        /* owned by the policy; freed by fini */
};

/* Checks a table as the engine registers it: name well formed, required hooks of
 * its family present. Returns 0 or -SIM_EINVAL with a message in diag. */
int sim_policy_ops_validate(const struct sim_policy_ops *ops, struct sim_diag *diag);

#endif
