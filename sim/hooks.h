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
	void (*on_tick)(struct sim_policy *pol, const struct sim_view *v, sim_time_t now);
	/* Decisions. admit: quota family; optional. */
	enum sim_admit (*admit)(struct sim_policy *pol, const struct sim_job *job, const struct sim_view *v);
	/* pick: order family; required there. Proposes starts with sim_placement_buf_try()
	 * in the order they should happen. Returns 0 or -SIM_E*. */
	int (*pick)(struct sim_policy *pol, const struct sim_view *v, struct sim_placement_buf *out);
	/* select_victims: preemption family; optional. */
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
