/* policies/priority.c: strict priority, FIFO within a priority, optional aging.
 *
 * Params: aging_per_hour (number >= 0, default 0): a waiting job gains this much
 * priority per hour waited, continuously. Because every job ages at the same
 * rate, the order of two waiting jobs never changes with time: effective priority
 * p + a * (now - submit) ranks like the static key p - a * submit. So the key never
 * moves while a job waits, and the waiting jobs are the key-ranked heap of
 * policies/keyed.h, O(log n) per push and start; its ties (queue order time, then trace
 * index) are trace order, as the trace is sorted by submit time. Strict: the
 * highest-ranked job blocks the others when it does not fit.
 *
 * Order key (SIM_CAP_ORDER_KEY): { -(p - a * submit_h), 0, 0 } on the priority in
 * force, so inside a quota policy's queues a timed priority change moves the job.
 */
#include <stdlib.h>

#include "keyed.h"

struct prio {
	struct keyed_order ko; /* the waiting jobs */
	double aging_per_hour;
};

static int priority_init(struct sim_policy *pol, const struct sim_policy_env *env, const cJSON *params,
			 struct sim_diag *diag)
{
	static const char *const keys[] = { "aging_per_hour", NULL };
	struct prio *p = calloc(1, sizeof *p);
	if (!p)
		return -SIM_ENOMEM;
	pol->priv = p;
	keyed_order_init(&p->ko, 1);
	int bad = sim_policy_params_check_keys(env, params, keys, diag);
	bad |= sim_policy_param_double(env, params, "aging_per_hour", 0, 1e9, &p->aging_per_hour, diag);
	return bad ? -SIM_EPARSE : 0;
}

static void priority_fini(struct sim_policy *pol)
{
	struct prio *p = pol->priv;
	if (p)
		keyed_order_fini(&p->ko);
	free(p);
	pol->priv = NULL;
}

/* Higher effective priority first; the key of a waiting job never moves (above). */
static void priority_order_key(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
			       struct sim_order_key *out)
{
	(void)v;
	const struct prio *p = pol->priv;
	double key = (double)job->eff_priority - p->aging_per_hour * ((double)job->submit_ns / 3600e9);
	*out = (struct sim_order_key){ { -key, 0, 0 } };
}

static void priority_on_submit(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job)
{
	struct prio *p = pol->priv;
	keyed_order_on_submit(&p->ko, pol, v, job);
}

/* A running job stopped and queued again (its nodes were removed, or a preemption)
 * goes back at its own rank: the key depends only on its priority and submit time. */
static void priority_on_stop(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
			     enum sim_stop_cause cause)
{
	struct prio *p = pol->priv;
	keyed_order_on_stop(&p->ko, pol, v, job, cause);
}

/* Context: after all events at now. Proposes the top while it fits. */
static int priority_pick(struct sim_policy *pol, const struct sim_view *v, struct sim_placement_buf *out)
{
	struct prio *p = pol->priv;
	return keyed_order_pick(&p->ko, pol, v, out);
}

const struct sim_policy_ops priority_policy_ops = {
	.name = "priority",
	.family = SIM_FAM_ORDER,
	.provides = SIM_CAP_ORDER_KEY,
	.order_key = priority_order_key,
	.init = priority_init,
	.fini = priority_fini,
	.on_submit = priority_on_submit,
	.on_stop = priority_on_stop,
	.pick = priority_pick,
};
