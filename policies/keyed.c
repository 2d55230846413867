/* policies/keyed.c: the key-ranked waiting queue of policies/keyed.h. */
#include "keyed.h"

#include <stdlib.h>
#include <string.h>

static int key_before(const struct keyed_entry *a, const struct keyed_entry *b)
{
	for (int i = 0; i < SIM_ORDER_KEY_LEN; i++)
		if (a->key.k[i] != b->key.k[i])
			return a->key.k[i] < b->key.k[i];
	if (a->submit_ns != b->submit_ns)
		return a->submit_ns < b->submit_ns;
	return a->idx < b->idx;
}

static void sift_down(struct keyed_entry *h, size_t n, size_t i)
{
	struct keyed_entry x = h[i];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && key_before(&h[c + 1], &h[c]))
			c++;
		if (!key_before(&h[c], &x))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

static void push(struct keyed_order *ko, const struct keyed_entry *e)
{
	struct keyed_entry *nh = sim_grow(ko->heap, &ko->cap, ko->n, sizeof *nh, 256);
	if (!nh) {
		ko->oom = 1;
		return;
	}
	ko->heap = nh;
	size_t i = ko->n++;
	while (i > 0 && key_before(e, &ko->heap[(i - 1) / 2])) {
		ko->heap[i] = ko->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	ko->heap[i] = *e;
}

static void pop_top(struct keyed_order *ko)
{
	ko->heap[0] = ko->heap[--ko->n];
	if (ko->n)
		sift_down(ko->heap, ko->n, 0);
}

static void entry_of(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
		     struct keyed_entry *out)
{
	pol->ops->order_key(pol, v, job, &out->key);
	out->submit_ns = sim_job_order_ns(job); /* the queue order time (docs/faults.md) */
	out->idx = job->idx;
}

void keyed_order_init(struct keyed_order *ko, int blocking)
{
	memset(ko, 0, sizeof *ko);
	ko->blocking = blocking;
}

void keyed_order_fini(struct keyed_order *ko)
{
	free(ko->heap);
	free(ko->held);
	memset(ko, 0, sizeof *ko);
}

/* A quota policy that runs its own pass never calls this policy's pick: holding
 * its queued jobs would only cost memory. */
static int scheduler_is_quota(const struct sim_view *v)
{
	const struct sim_policy *qp = sim_view_policy(v, SIM_FAM_QUOTA);
	return qp && qp->ops && (qp->ops->provides & SIM_CAP_OWN_PASS);
}

void keyed_order_on_submit(struct keyed_order *ko, struct sim_policy *pol, const struct sim_view *v,
			   const struct sim_job *job)
{
	if (scheduler_is_quota(v))
		return;
	struct keyed_entry e;
	entry_of(pol, v, job, &e);
	push(ko, &e);
}

void keyed_order_on_stop(struct keyed_order *ko, struct sim_policy *pol, const struct sim_view *v,
			 const struct sim_job *job, enum sim_stop_cause cause)
{
	(void)cause;
	if (job->state == SIM_JOB_QUEUED)
		keyed_order_on_submit(ko, pol, v, job);
}

/* Keys every entry again (the policy's keys moved) and restores the heap. */
static void rekey_all(struct keyed_order *ko, struct sim_policy *pol, const struct sim_view *v)
{
	ko->gen = sim_view_order_gen(v);
	for (size_t i = 0; i < ko->n; i++)
		pol->ops->order_key(pol, v, sim_view_job(v, ko->heap[i].idx), &ko->heap[i].key);
	for (size_t i = ko->n / 2; i-- > 0;)
		sift_down(ko->heap, ko->n, i);
}

/* Sets a head that did not fit aside until the pass ends (non-blocking). */
static int hold(struct keyed_order *ko, size_t *n_held)
{
	struct keyed_entry *nh = sim_grow(ko->held, &ko->cap_held, *n_held, sizeof *nh, 64);
	if (!nh)
		return -SIM_ENOMEM;
	ko->held = nh;
	ko->held[(*n_held)++] = ko->heap[0];
	pop_top(ko);
	return 0;
}

int keyed_order_pick(struct keyed_order *ko, struct sim_policy *pol, const struct sim_view *v,
		     struct sim_placement_buf *out)
{
	if (ko->oom)
		return -SIM_ENOMEM;
	if (sim_view_order_gen(v) != ko->gen)
		rekey_all(ko, pol, v);
	size_t n_held = 0;
	int rc = 0;
	ko->held_gen = ko->gen;
	while (ko->n) {
		const struct sim_job *job = sim_view_job(v, ko->heap[0].idx);
		if (job->state != SIM_JOB_QUEUED) { /* started elsewhere, timed out, ended */
			pop_top(ko);
			continue;
		}
		rc = sim_placement_buf_try(out, job->idx, -1);
		if (rc == -SIM_ENOFIT) {
			rc = 0;
			if (ko->blocking)
				break;
			if ((rc = hold(ko, &n_held)))
				break;
			continue;
		}
		if (rc && rc != -SIM_ESTATE)
			break;
		int reserved = rc == 0;
		rc = 0;
		pop_top(ko);
		if (reserved && pol->ops->on_reserve) {
			pol->ops->on_reserve(pol, v, job);
			if (sim_view_order_gen(v) != ko->gen)
				rekey_all(ko, pol, v);
		}
	}
	for (size_t i = 0; i < n_held; i++) {
		if (ko->held_gen != ko->gen) /* keys moved while it was set aside */
			pol->ops->order_key(pol, v, sim_view_job(v, ko->held[i].idx), &ko->held[i].key);
		push(ko, &ko->held[i]);
	}
	return rc ? rc : (ko->oom ? -SIM_ENOMEM : 0);
}
