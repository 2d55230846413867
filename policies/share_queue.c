/* policies/share_queue.c: queued jobs grouped by share (see share_queue.h). */
#include <stdlib.h>

#include "share_queue.h"

int share_queue_init(struct share_queue *q, size_t n_groups)
{
	*q = (struct share_queue){ .n_groups = n_groups };
	q->g = calloc(n_groups ? n_groups : 1, sizeof *q->g);
	q->turn = calloc(n_groups ? n_groups : 1, sizeof *q->turn);
	q->score = calloc(n_groups ? n_groups : 1, sizeof *q->score);
	q->extra_mgpu = calloc(n_groups ? n_groups : 1, sizeof *q->extra_mgpu);
	if (!q->g || !q->turn || !q->score || !q->extra_mgpu) {
		share_queue_fini(q);
		return -SIM_ENOMEM;
	}
	return 0;
}

void share_queue_fini(struct share_queue *q)
{
	for (size_t i = 0; q->g && i < q->n_groups; i++)
		free(q->g[i].heap);
	free(q->g);
	free(q->turn);
	free(q->score);
	free(q->extra_mgpu);
	*q = (struct share_queue){ 0 };
}

/* ---- a group's heap of jobs ---- */

static int entry_before(const struct share_queue_entry *a, const struct share_queue_entry *b)
{
	if (a->key != b->key)
		return a->key < b->key;
	if (a->submit_ns != b->submit_ns)
		return a->submit_ns < b->submit_ns;
	return a->idx < b->idx;
}

void share_queue_push(struct share_queue *q, uint32_t group, double key, const struct sim_job *job)
{
	struct share_queue_group *g = &q->g[group];
	struct share_queue_entry *nh = sim_grow(g->heap, &g->cap, g->n, sizeof *nh, 16);
	if (!nh) {
		q->oom = 1;
		return;
	}
	g->heap = nh;
	struct share_queue_entry e = { .key = key, .submit_ns = sim_job_order_ns(job), .idx = job->idx };
	size_t i = g->n++;
	while (i > 0 && entry_before(&e, &g->heap[(i - 1) / 2])) {
		g->heap[i] = g->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	g->heap[i] = e;
}

static void group_pop(struct share_queue_group *g)
{
	struct share_queue_entry last = g->heap[--g->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= g->n)
			break;
		if (c + 1 < g->n && entry_before(&g->heap[c + 1], &g->heap[c]))
			c++;
		if (!entry_before(&g->heap[c], &last))
			break;
		g->heap[i] = g->heap[c];
		i = c;
	}
	if (g->n)
		g->heap[i] = last;
}

size_t share_queue_size(const struct share_queue *q)
{
	size_t n = 0;
	for (size_t i = 0; i < q->n_groups; i++)
		n += q->g[i].n;
	return n;
}

/* ---- the pass: a heap of groups on (score, head) ---- */

static int group_before(const struct share_queue *q, uint32_t a, uint32_t b)
{
	if (q->score[a] != q->score[b])
		return q->score[a] < q->score[b];
	const struct share_queue_entry *ha = &q->g[a].heap[0], *hb = &q->g[b].heap[0];
	if (ha->submit_ns != hb->submit_ns)
		return ha->submit_ns < hb->submit_ns;
	return ha->idx < hb->idx;
}

static void turn_sift_down(struct share_queue *q, size_t i)
{
	uint32_t x = q->turn[i];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= q->n_turn)
			break;
		if (c + 1 < q->n_turn && group_before(q, q->turn[c + 1], q->turn[c]))
			c++;
		if (!group_before(q, q->turn[c], x))
			break;
		q->turn[i] = q->turn[c];
		i = c;
	}
	q->turn[i] = x;
}

/* The top's score or head changed (either way): move it down as far as it goes. A
 * key that fell can only happen at the top, which is already the smallest place. */
static void turn_fix_top(struct share_queue *q)
{
	if (q->n_turn)
		turn_sift_down(q, 0);
}

static void turn_remove_top(struct share_queue *q)
{
	q->turn[0] = q->turn[--q->n_turn];
	turn_fix_top(q);
}

static void turn_build(struct share_queue *q, const struct share_queue_ops *ops, void *arg)
{
	q->n_turn = 0;
	for (uint32_t i = 0; i < q->n_groups; i++) {
		q->extra_mgpu[i] = 0;
		if (!q->g[i].n)
			continue;
		q->score[i] = ops->score(arg, i, 0);
		q->turn[q->n_turn++] = i;
	}
	for (size_t i = q->n_turn / 2; i-- > 0;)
		turn_sift_down(q, i);
}

int share_queue_pick(struct share_queue *q, const struct sim_view *v, struct sim_placement_buf *out,
		     const struct share_queue_ops *ops, void *arg)
{
	if (q->oom)
		return -SIM_ENOMEM;
	const struct sim_trace *t = sim_view_trace(v);
	const struct sim_cluster *c = sim_view_cluster(v);
	sim_qty_t extra_total = 0;
	/* Free GPUs of the online nodes: an upper bound on what any placement can take, so a
	 * head of one option asking more cannot fit and needs no try (a full cluster would
	 * otherwise cost one try per share every pass). */
	sim_qty_t free_mgpu = sim_cluster_gpu_total(c, -1) - sim_cluster_gpu_busy(c, -1);
	turn_build(q, ops, arg);
	while (q->n_turn) {
		uint32_t gi = q->turn[0];
		struct share_queue_group *g = &q->g[gi];
		const struct sim_job *job = sim_view_job(v, g->heap[0].idx);
		if (job->state != SIM_JOB_QUEUED) { /* timed out while queued: drop it */
			group_pop(g);
			if (g->n)
				turn_fix_top(q);
			else
				turn_remove_top(q);
			continue;
		}
		sim_qty_t mgpu = sim_job_opt(t, job, 0)->req[SIM_RES_GPU];
		if (ops->gate && !ops->gate(arg, gi, job, extra_total)) {
			turn_remove_top(q);
			continue;
		}
		if (job->n_opts == 1 && mgpu > free_mgpu) {
			turn_remove_top(q);
			continue;
		}
		int rc = sim_placement_buf_try(out, job->idx, -1);
		if (rc == -SIM_ENOFIT) {
			turn_remove_top(q);
			continue;
		}
		if (rc && rc != -SIM_ESTATE)
			return rc;
		group_pop(g);
		if (rc == 0) {
			free_mgpu = sim_cluster_gpu_total(c, -1) - sim_cluster_gpu_busy(c, -1);
			q->extra_mgpu[gi] += mgpu;
			extra_total += mgpu;
			q->score[gi] = ops->score(arg, gi, q->extra_mgpu[gi]);
		}
		if (g->n)
			turn_fix_top(q);
		else
			turn_remove_top(q);
	}
	return 0;
}
