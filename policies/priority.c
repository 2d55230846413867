/* policies/priority.c: strict priority, FIFO within a priority, optional aging.
 *
 * Params: aging_per_hour (number >= 0, default 0): a waiting job gains this much
 * priority per hour waited, continuously. Because every job ages at the same
 * rate, the order of two waiting jobs never changes with time: effective priority
 * p + a * (now - submit) ranks like the static key p - a * submit. So the queue is
 * a binary heap on (key desc, trace index asc), O(log n) per push and start.
 * Strict: the highest-ranked job blocks the others when it does not fit.
 */
#include <stdlib.h>

#include "policy.h"

struct prio_entry {
	double key;   /* priority - aging_per_hour * submit_h */
	uint32_t idx; /* trace order breaks ties: FIFO */
};

struct prio {
	double aging_per_hour;
	struct prio_entry *heap;
	size_t n, cap;
	int oom;
};

static int before(const struct prio_entry *a, const struct prio_entry *b)
{
	if (a->key != b->key)
		return a->key > b->key;
	return a->idx < b->idx;
}

static int priority_init(struct sim_policy *pol, const struct sim_policy_env *env, const cJSON *params,
			 struct sim_diag *diag)
{
	static const char *const keys[] = { "aging_per_hour", NULL };
	struct prio *p = calloc(1, sizeof *p);
	if (!p)
		return -SIM_ENOMEM;
	pol->priv = p;
	int bad = sim_policy_params_check_keys(env, params, keys, diag);
	bad |= sim_policy_param_double(env, params, "aging_per_hour", 0, 1e9, &p->aging_per_hour, diag);
	return bad ? -SIM_EPARSE : 0;
}

static void priority_fini(struct sim_policy *pol)
{
	struct prio *p = pol->priv;
	if (p)
		free(p->heap);
	free(p);
	pol->priv = NULL;
}

static void priority_on_submit(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job)
{
	(void)v;
	struct prio *p = pol->priv;
	struct prio_entry *nh = sim_grow(p->heap, &p->cap, p->n, sizeof *nh, 256);
	if (!nh) {
		p->oom = 1;
		return;
	}
	p->heap = nh;
	struct prio_entry e = {
		.key = (double)job->priority - p->aging_per_hour * ((double)job->submit_ns / 3600e9),
		.idx = job->idx,
	};
	size_t i = p->n++;
	while (i > 0 && before(&e, &p->heap[(i - 1) / 2])) {
		p->heap[i] = p->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	p->heap[i] = e;
}

static void pop_top(struct prio *p)
{
	struct prio_entry last = p->heap[--p->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= p->n)
			break;
		if (c + 1 < p->n && before(&p->heap[c + 1], &p->heap[c]))
			c++;
		if (!before(&p->heap[c], &last))
			break;
		p->heap[i] = p->heap[c];
		i = c;
	}
	if (p->n)
		p->heap[i] = last;
}

/* A running job stopped and queued again (its nodes were removed, or a preemption)
 * goes back at its own rank: the key depends only on its priority and submit time. */
static void priority_on_stop(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
			 enum sim_stop_cause cause)
{
	(void)cause;
	if (job->state == SIM_JOB_QUEUED)
		priority_on_submit(pol, v, job);
}

/* Context: after all events at now. Proposes the top while it fits. */
static int priority_pick(struct sim_policy *pol, const struct sim_view *v, struct sim_placement_buf *out)
{
	(void)v;
	struct prio *p = pol->priv;
	if (p->oom)
		return -SIM_ENOMEM;
	while (p->n) {
		int rc = sim_placement_buf_try(out, p->heap[0].idx, -1);
		if (rc == -SIM_ENOFIT)
			break;
		if (rc && rc != -SIM_ESTATE)
			return rc;
		pop_top(p);
	}
	return 0;
}

/* Inside a quota policy's queues: the same rank, on the priority in force (timed
 * priority changes move it), higher first. */
static void priority_order_key(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
			       struct sim_order_key *out)
{
	(void)v;
	const struct prio *p = pol->priv;
	double key = (double)job->eff_priority - p->aging_per_hour * ((double)job->submit_ns / 3600e9);
	*out = (struct sim_order_key){ { -key, 0, 0 } };
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
