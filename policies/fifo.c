/* policies/fifo.c: strict first-in first-out (docs/design.md section 4).
 *
 * Jobs start in submit order, ties by trace row (the engine submits them in that
 * order). A head that does not fit blocks every job behind it: no backfill.
 * Queue: a ring buffer of job indices; pick is O(jobs started + 1). A running job
 * stopped and queued again (its nodes were removed) goes back in order of its queue
 * order time (sim_job_order_ns: its submit time, or its requeue time when a fault
 * restart goes to the back of the queue, docs/faults.md): such jobs wait in a small
 * min-heap on (order time, trace index), and the head is the earlier of the ring's
 * head (its submit time, trace index: the trace is in submit order) and the heap's
 * top.
 */
#include <stdlib.h>

#include "policy.h"

struct fifo {
	uint32_t *ring; /* capacity is a power of two */
	size_t head, n, cap;
	struct again { sim_time_t order_ns; uint32_t idx; } *again; /* min-heap of requeued jobs */
	size_t n_again, cap_again;
	int oom;        /* a push failed: pick reports -SIM_ENOMEM */
};

static int fifo_init(struct sim_policy *pol, const struct sim_policy_env *env, const cJSON *params,
		     struct sim_diag *diag)
{
	if (sim_policy_params_check_keys(env, params, NULL, diag))
		return -SIM_EPARSE;
	struct fifo *q = calloc(1, sizeof *q);
	if (!q)
		return -SIM_ENOMEM;
	pol->priv = q;
	return 0;
}

static void fifo_fini(struct sim_policy *pol)
{
	struct fifo *q = pol->priv;
	if (q) {
		free(q->ring);
		free(q->again);
	}
	free(q);
	pol->priv = NULL;
}

static int ring_grow(struct fifo *q)
{
	size_t ncap = q->cap ? q->cap * 2 : 256;
	uint32_t *nr = malloc(ncap * sizeof *nr);
	if (!nr)
		return -SIM_ENOMEM;
	for (size_t i = 0; i < q->n; i++)
		nr[i] = q->ring[(q->head + i) & (q->cap - 1)];
	free(q->ring);
	q->ring = nr;
	q->head = 0;
	q->cap = ncap;
	return 0;
}

static void fifo_on_submit(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job)
{
	(void)v;
	struct fifo *q = pol->priv;
	if (q->n == q->cap && ring_grow(q)) {
		q->oom = 1;
		return;
	}
	q->ring[(q->head + q->n) & (q->cap - 1)] = job->idx;
	q->n++;
}

static int again_before(struct again a, struct again b)
{
	return a.order_ns != b.order_ns ? a.order_ns < b.order_ns : a.idx < b.idx;
}

static void again_push(struct fifo *q, const struct sim_job *job)
{
	struct again *na = sim_grow(q->again, &q->cap_again, q->n_again, sizeof *na, 16);
	if (!na) {
		q->oom = 1;
		return;
	}
	q->again = na;
	struct again x = { sim_job_order_ns(job), job->idx };
	size_t i = q->n_again++;
	for (; i > 0 && again_before(x, q->again[(i - 1) / 2]); i = (i - 1) / 2)
		q->again[i] = q->again[(i - 1) / 2];
	q->again[i] = x;
}

static void again_pop(struct fifo *q)
{
	struct again last = q->again[--q->n_again];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= q->n_again)
			break;
		if (c + 1 < q->n_again && again_before(q->again[c + 1], q->again[c]))
			c++;
		if (!again_before(q->again[c], last))
			break;
		q->again[i] = q->again[c];
		i = c;
	}
	if (q->n_again)
		q->again[i] = last;
}

/* A job stopped: one queued again (its nodes were removed, or a preemption) goes
 * back in submit order; any other stop is final. */
static void fifo_on_stop(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
			 enum sim_stop_cause cause)
{
	(void)cause;
	(void)v;
	if (job->state == SIM_JOB_QUEUED)
		again_push(pol->priv, job);
}

/* Context: after all events at now. Proposes the head while it fits. */
static int fifo_pick(struct sim_policy *pol, const struct sim_view *v, struct sim_placement_buf *out)
{
	struct fifo *q = pol->priv;
	const struct sim_job *jobs = sim_view_trace(v)->jobs;
	if (q->oom)
		return -SIM_ENOMEM;
	while (q->n || q->n_again) {
		uint32_t ri = q->n ? q->ring[q->head] : 0;
		int from_again = q->n_again && (!q->n || again_before(q->again[0], (struct again){ jobs[ri].submit_ns, ri }));
		uint32_t idx = from_again ? q->again[0].idx : ri;
		int rc = sim_placement_buf_try(out, idx, -1);
		if (rc == -SIM_ENOFIT)
			break;
		if (rc && rc != -SIM_ESTATE)
			return rc;
		/* Started, or no longer queued (timed out, rejected): leave the queue. */
		if (from_again) {
			again_pop(q);
		} else {
			q->head = (q->head + 1) & (q->cap - 1);
			q->n--;
		}
	}
	return 0;
}

/* Inside a quota policy's queues: submit order (the quota policy breaks the tie
 * by its timestamp, then trace order). */
static void fifo_order_key(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
			   struct sim_order_key *out)
{
	(void)pol;
	(void)v;
	(void)job;
	*out = (struct sim_order_key){ { 0, 0, 0 } };
}

const struct sim_policy_ops fifo_policy_ops = {
	.name = "fifo",
	.family = SIM_FAM_ORDER,
	.provides = SIM_CAP_ORDER_KEY,
	.order_key = fifo_order_key,
	.init = fifo_init,
	.fini = fifo_fini,
	.on_submit = fifo_on_submit,
	.on_stop = fifo_on_stop,
	.pick = fifo_pick,
};
