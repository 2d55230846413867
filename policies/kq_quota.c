/* policies/kq_quota.c: the quota tree and its arithmetic (docs/kueue-rules.md "Quota arithmetic",
 * after Kueue's pkg/cache/scheduler/resource_node.go), and the dominant resource share.
 *
 * Ownership: kq_sched owns its nodes and their per-fr blocks; running workloads are
 * borrowed. Every function here is O(depth) per fr except kq_finalize and kq_requota.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kq_impl.h"

static const char *const policy_names[] = { "Never", "LowerPriority", "LowerOrNewerEqualPriority", "Any" };

const char *kq_policy_name(enum kq_policy p) { return policy_names[p]; }

int kq_policy_from_name(const char *name)
{
	for (int i = 0; i < 4; i++)
		if (strcmp(policy_names[i], name) == 0)
			return i;
	return -1;
}

const char *kq_mode_name(enum kq_mode m)
{
	static const char *const n[] = { "NoFit", "Preempt", "Preempt", "Preempt", "Fit" };
	return n[m];
}

const char *kq_reason_name(enum kq_reason r)
{
	static const char *const n[] = { "in_queue", "cohort_reclamation", "cohort_reclaim_while_borrowing",
					 "cohort_fair_sharing", "quota_shrink" };
	return n[r];
}

const char *kq_wait_text(enum kq_wait w)
{
	static const char *const n[] = {
		"request exceeds the most quota its queue can ever have (potentialAvailable)",
		"insufficient quota, and preemption is not allowed to help",
		"insufficient quota, and no set of preemption candidates frees enough",
		"waiting for preempted jobs to release capacity",
		"fits once this cycle's victims are gone; keeps its quota and waits",
		"its preemption targets overlap an earlier entry's in this cycle",
		"no longer fits after earlier admissions in this cycle",
		"not the head of its queue in this cycle",
		"quota fits, but no nodes of the flavor are free",
	};
	return n[w];
}

/* ---- building ---- */

int kq_test_oracle;

struct kq_sched *kq_create(int n_res, const char (*res_names)[SIM_NAME_MAX], int n_flavors,
			   const char (*flavor_names)[SIM_NAME_MAX])
{
	if (n_res < 1 || n_res > SIM_MAX_RES || n_flavors < 0 || n_flavors > INT16_MAX)
		return NULL;
	struct kq_sched *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->gen = 1;
	s->mgen = 1;
	s->igen = 1;
	s->n_res = n_res;
	s->n_flavors = n_flavors;
	s->n_fr = n_res * n_flavors;
	memcpy(s->res_names, res_names, (size_t)n_res * SIM_NAME_MAX);
	s->flavor_names = calloc((size_t)n_flavors + 1, SIM_NAME_MAX);
	if (!s->flavor_names) {
		free(s);
		return NULL;
	}
	memcpy(s->flavor_names, flavor_names, (size_t)n_flavors * SIM_NAME_MAX);
	return s;
}

void kq_destroy(struct kq_sched *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_nodes; i++) {
		free(s->nodes[i].children);
		free(s->nodes[i].nominal);
		free(s->nodes[i].running);
		for (size_t b = 0; b < s->nodes[i].n_bands; b++)
			free(s->nodes[i].bands[b].qty);
		free(s->nodes[i].bands);
		free(s->nodes[i].max_req);
		free(s->nodes[i].rise);
		free(s->nodes[i].adm);
	}
	free(s->nodes);
	free(s->by_name);
	free(s->flavor_names);
	kq_scratch_free(s);
	free(s);
}

/* The by_name slot holding NAME, or the empty slot where it would go. */
static size_t name_slot(const struct kq_sched *s, const char *name)
{
	size_t mask = s->by_name_cap - 1, i = (size_t)sim_fnv1a64(name, strlen(name)) & mask;
	while (s->by_name[i] >= 0 && strcmp(s->nodes[s->by_name[i]].name, name) != 0)
		i = (i + 1) & mask;
	return i;
}

/* Room in by_name for one more node (rebuilt at twice the size when half full).
 * Returns 0 or -SIM_ENOMEM. */
static int name_index_reserve(struct kq_sched *s)
{
	if (2 * (s->n_nodes + 1) <= s->by_name_cap)
		return 0;
	size_t cap = s->by_name_cap ? 2 * s->by_name_cap : 64;
	int32_t *idx = malloc(cap * sizeof *idx);
	if (!idx)
		return -SIM_ENOMEM;
	free(s->by_name);
	s->by_name = idx;
	s->by_name_cap = cap;
	for (size_t i = 0; i < cap; i++)
		idx[i] = -1;
	for (size_t n = 0; n < s->n_nodes; n++)
		idx[name_slot(s, s->nodes[n].name)] = (int32_t)n;
	return 0;
}

int kq_find(const struct kq_sched *s, const char *name)
{
	if (!s->by_name_cap)
		return -1;
	return s->by_name[name_slot(s, name)];
}

int kq_flavor_find(const struct kq_sched *s, const char *name)
{
	for (int f = 0; f < s->n_flavors; f++)
		if (strcmp(s->flavor_names[f], name) == 0)
			return f;
	return -1;
}

int kq_res_find(const struct kq_sched *s, const char *name)
{
	for (int r = 0; r < s->n_res; r++)
		if (strcmp(s->res_names[r], name) == 0)
			return r;
	return -1;
}

/* One block for the per-fr arrays: 8 quantity arrays and 2 byte arrays. */
static int node_alloc_blocks(struct kq_node *n, int n_fr)
{
	size_t q = (size_t)(n_fr ? n_fr : 1);
	sim_qty_t *blk = calloc(q * 8 * sizeof(sim_qty_t) + q * 2, 1);
	if (!blk)
		return -SIM_ENOMEM;
	n->nominal = blk;
	n->borrow_limit = blk + q;
	n->lend_limit = blk + 2 * q;
	n->subtree = blk + 3 * q;
	n->local = blk + 4 * q;
	n->usage = blk + 5 * q;
	n->potential = blk + 6 * q;
	n->freed = blk + 7 * q;
	n->has_quota = (uint8_t *)(blk + 8 * q);
	n->subtree_has = n->has_quota + q;
	for (size_t i = 0; i < q; i++)
		n->borrow_limit[i] = n->lend_limit[i] = KQ_UNSET;
	return 0;
}

int kq_add_node(struct kq_sched *s, const char *name, int is_queue)
{
	if (strlen(name) >= SIM_NAME_MAX || kq_find(s, name) >= 0)
		return -SIM_EINVAL;
	if (name_index_reserve(s) < 0)
		return -SIM_ENOMEM;
	struct kq_node *nn = sim_grow(s->nodes, &s->cap_nodes, s->n_nodes, sizeof *nn, 16);
	if (!nn)
		return -SIM_ENOMEM;
	s->nodes = nn;
	struct kq_node *n = &s->nodes[s->n_nodes];
	memset(n, 0, sizeof *n);
	strcpy(n->name, name);
	n->parent = -1;
	n->is_queue = is_queue;
	n->weight_milli = 1000;
	n->cfg.fung_preempt_try_next = 1; /* Kueue's API default for whenCanPreempt */
	if (node_alloc_blocks(n, s->n_fr))
		return -SIM_ENOMEM;
	s->by_name[name_slot(s, name)] = (int32_t)s->n_nodes;
	return (int)s->n_nodes++;
}

void kq_set_quota(struct kq_sched *s, int node, int flavor, int res, sim_qty_t nominal, sim_qty_t borrow_limit,
		  sim_qty_t lend_limit)
{
	struct kq_node *n = &s->nodes[node];
	int fr = kq_fr(s, flavor, res);
	n->nominal[fr] = nominal;
	n->borrow_limit[fr] = borrow_limit;
	n->lend_limit[fr] = lend_limit;
	n->has_quota[fr] = 1;
}

static const struct kq_sched *sort_ctx;
static int by_name(const void *a, const void *b)
{
	return strcmp(sort_ctx->nodes[*(const int32_t *)a].name, sort_ctx->nodes[*(const int32_t *)b].name);
}

static int link_children(struct kq_sched *s, struct sim_diag *diag)
{
	for (size_t i = 0; i < s->n_nodes; i++) {
		int32_t p = s->nodes[i].parent;
		if (p < 0)
			continue;
		struct kq_node *pn = &s->nodes[p];
		if (pn->is_queue)
			return sim_diag_add(diag, s->nodes[i].name, "parent '%s' is a queue, expected a cohort",
					    pn->name);
		int32_t *nc = realloc(pn->children, (pn->n_children + 1) * sizeof *nc);
		if (!nc)
			return -SIM_ENOMEM;
		pn->children = nc;
		nc[pn->n_children++] = (int32_t)i;
	}
	sort_ctx = s;
	for (size_t i = 0; i < s->n_nodes; i++)
		if (s->nodes[i].n_children > 1)
			qsort(s->nodes[i].children, s->nodes[i].n_children, sizeof(int32_t), by_name);
	return 0;
}

/* Parent links must end at a root within n_nodes steps. */
static int check_acyclic(const struct kq_sched *s, struct sim_diag *diag)
{
	for (size_t i = 0; i < s->n_nodes; i++) {
		int32_t p = s->nodes[i].parent;
		for (size_t steps = 0; p >= 0; steps++, p = s->nodes[p].parent)
			if (steps > s->n_nodes)
				return sim_diag_add(diag, s->nodes[i].name, "cohort parents form a cycle");
	}
	return 0;
}

static int node_height(struct kq_sched *s, int i)
{
	struct kq_node *n = &s->nodes[i];
	if (n->is_queue)
		return n->height = 0;
	int h = n->n_children ? 1 : 0;
	for (size_t k = 0; k < n->n_children; k++)
		if (!s->nodes[n->children[k]].is_queue) {
			int ch = node_height(s, n->children[k]) + 1;
			if (ch > h)
				h = ch;
		}
	return n->height = h;
}

/* SubtreeQuota and localQuota, children before parents (post-order). */
static void compute_subtree(struct kq_sched *s, int i)
{
	struct kq_node *n = &s->nodes[i];
	for (size_t k = 0; k < n->n_children; k++)
		compute_subtree(s, n->children[k]);
	for (int fr = 0; fr < s->n_fr; fr++) {
		sim_qty_t q = n->nominal[fr];
		uint8_t has = n->has_quota[fr];
		for (size_t k = 0; k < n->n_children; k++) {
			const struct kq_node *c = &s->nodes[n->children[k]];
			q += c->subtree[fr] - c->local[fr];
			has |= c->subtree_has[fr];
		}
		n->subtree[fr] = q;
		n->subtree_has[fr] = has;
		sim_qty_t ll = n->lend_limit[fr];
		n->local[fr] = ll == KQ_UNSET ? 0 : (q - ll > 0 ? q - ll : 0);
	}
}

/* potentialAvailable, parents before children (pre-order): a root's is its
 * SubtreeQuota; a child's is its localQuota plus its parent's, capped at its
 * SubtreeQuota plus its borrowing limit. It depends on quotas only, so it is
 * computed when they change, not at each question. */
static void compute_potential(struct kq_sched *s, int i)
{
	struct kq_node *n = &s->nodes[i];
	for (int fr = 0; fr < s->n_fr; fr++) {
		sim_qty_t v = n->subtree[fr];
		if (n->parent >= 0) {
			v = n->local[fr] + s->nodes[n->parent].potential[fr];
			sim_qty_t bl = n->borrow_limit[fr];
			if (bl != KQ_UNSET && n->subtree[fr] + bl < v)
				v = n->subtree[fr] + bl;
		}
		n->potential[fr] = v;
	}
	for (size_t k = 0; k < n->n_children; k++)
		compute_potential(s, n->children[k]);
}

static void compute_all_quota(struct kq_sched *s)
{
	for (size_t i = 0; i < s->n_nodes; i++)
		s->nodes[i].share_ok = 0; /* shares read quotas and weights too */
	for (size_t i = 0; i < s->n_nodes; i++)
		if (s->nodes[i].parent < 0) {
			compute_subtree(s, (int)i);
			compute_potential(s, (int)i);
		}
}

int kq_finalize(struct kq_sched *s, struct sim_diag *diag)
{
	int rc = check_acyclic(s, diag);
	if (rc)
		return rc;
	if ((rc = link_children(s, diag)))
		return rc;
	for (size_t i = 0; i < s->n_nodes; i++)
		if (s->nodes[i].parent < 0)
			node_height(s, (int)i);
	for (size_t i = 0; i < s->n_nodes; i++) {
		int32_t r = (int32_t)i;
		while (s->nodes[r].parent >= 0)
			r = s->nodes[r].parent;
		s->nodes[i].root = r;
	}
	compute_all_quota(s);
	s->finalized = 1;
	return 0;
}

/* ---- usage ---- */

static sim_qty_t local_available(const struct kq_node *n, int fr)
{
	sim_qty_t a = n->local[fr] - n->usage[fr];
	return a > 0 ? a : 0;
}

sim_qty_t kq_added_passes_up(const struct kq_node *n, int fr, sim_qty_t v)
{
	return v - local_available(n, fr); /* the part above the local quota counts in the parent */
}

/* Stamps node and every ancestor with a new kq_node.sver. */
static void sver_bump(struct kq_sched *s, int node)
{
	if (s->sver_hold)
		return;
	uint64_t v = ++s->sver_clock;
	for (; node >= 0; node = s->nodes[node].parent)
		s->nodes[node].sver = v;
}

void kq_usage_add(struct kq_sched *s, int node, int fr, sim_qty_t v)
{
	s->usage_ver++;
	if (v > 0)
		sver_bump(s, node);
	if (s->ver_live && v > 0)
		kq_ver_bump(s, node);
	while (node >= 0 && v > 0) {
		struct kq_node *n = &s->nodes[node];
		sim_qty_t up = kq_added_passes_up(n, fr, v);
		n->usage[fr] += v;
		n->share_ok = 0;
		v = up;
		node = n->parent;
	}
}

void kq_usage_remove(struct kq_sched *s, int node, int fr, sim_qty_t v)
{
	s->usage_ver++;
	if (v > 0)
		sver_bump(s, node);
	if (s->ver_live && v > 0)
		kq_ver_bump(s, node);
	while (node >= 0 && v > 0) {
		struct kq_node *n = &s->nodes[node];
		sim_qty_t stored_in_parent = n->usage[fr] - n->local[fr];
		n->usage[fr] -= v;
		n->share_ok = 0;
		if (stored_in_parent <= 0)
			return;
		v = v < stored_in_parent ? v : stored_in_parent;
		node = n->parent;
	}
}

static void book(struct kq_sched *s, const struct kq_wl *wl, int sign)
{
	for (int r = 0; r < s->n_res; r++) {
		if (wl->req[r] <= 0 || wl->flavor[r] < 0)
			continue;
		int fr = kq_fr(s, wl->flavor[r], r);
		if (sign > 0)
			kq_usage_add(s, wl->queue, fr, wl->req[r]);
		else
			kq_usage_remove(s, wl->queue, fr, wl->req[r]);
	}
}

/* The band of priority `prio` in queue q, created (in order) when missing; NULL
 * when out of memory (nothing changed then). */
static struct kq_band *band_of(struct kq_sched *s, struct kq_node *q, int32_t prio)
{
	size_t i = 0;
	while (i < q->n_bands && q->bands[i].prio < prio)
		i++;
	if (i < q->n_bands && q->bands[i].prio == prio)
		return &q->bands[i];
	struct kq_band *nb = sim_grow(q->bands, &q->cap_bands, q->n_bands, sizeof *nb, 4);
	if (!nb)
		return NULL;
	q->bands = nb;
	sim_qty_t *qty = calloc((size_t)(s->n_fr ? s->n_fr : 1), sizeof *qty);
	if (!qty)
		return NULL;
	memmove(&q->bands[i + 1], &q->bands[i], (q->n_bands - i) * sizeof *q->bands);
	q->bands[i] = (struct kq_band){ prio, 0, qty, NULL };
	q->n_bands++;
	return &q->bands[i];
}

/* Adds (sign +1) or takes back (-1) wl's quantities in its priority band. The band
 * exists: kq_add_running made sure of it before changing anything. */
static void band_update(struct kq_sched *s, const struct kq_wl *wl, struct kq_band *b, int sign)
{
	struct kq_node *q = &s->nodes[wl->queue];
	b->jobs = (uint32_t)((int64_t)b->jobs + sign);
	for (int r = 0; r < s->n_res; r++) {
		if (wl->req[r] <= 0 || wl->flavor[r] < 0)
			continue;
		int fr = kq_fr(s, wl->flavor[r], r);
		b->qty[fr] += sign * wl->req[r];
		if (wl->req[r] > q->max_req[fr])
			q->max_req[fr] = wl->req[r];
		if (sign > 0 && (q->min_req[fr] == 0 || wl->req[r] < q->min_req[fr]))
			q->min_req[fr] = wl->req[r];
	}
}

/* Does running workload a come before b as a preemption candidate of one queue
 * and priority? Most recently admitted first, then the lower tie. */
static int runs_before(const struct kq_wl *a, const struct kq_wl *b)
{
	if (a->admitted != b->admitted)
		return a->admitted > b->admitted;
	return a->tie < b->tie;
}

/* Puts wl in its place in band b's list: a walk from the front, which a workload
 * admitted now (the newest) ends at once. */
static void band_link(struct kq_band *b, struct kq_wl *wl)
{
	struct kq_wl *prev = NULL, *cur = b->head;
	while (cur && runs_before(cur, wl)) {
		prev = cur;
		cur = cur->run_next;
	}
	wl->run_prev = prev;
	wl->run_next = cur;
	if (cur)
		cur->run_prev = wl;
	if (prev)
		prev->run_next = wl;
	else
		b->head = wl;
}

static void band_unlink(struct kq_band *b, struct kq_wl *wl)
{
	if (wl->run_prev)
		wl->run_prev->run_next = wl->run_next;
	else
		b->head = wl->run_next;
	if (wl->run_next)
		wl->run_next->run_prev = wl->run_prev;
	wl->run_prev = wl->run_next = NULL;
}

/* book() for a real admission (+1) or release (-1), keeping the root's `freed`
 * (docs/kueue-rules.md E13): a release adds what the root's usage fell by; an
 * admission into a queue that stays within its quota there takes back what the
 * root's usage rose by (such a queue offers no bound anything, before or after, so
 * every test of another queue's memo sees the rise whole); any other admission
 * leaves it. */
static void book_counting_freed(struct kq_sched *s, const struct kq_wl *wl, int sign)
{
	const struct kq_node *q = &s->nodes[wl->queue];
	struct kq_node *root = &s->nodes[q->root];
	sim_qty_t before[SIM_MAX_RES];
	for (int r = 0; r < s->n_res; r++)
		if (wl->req[r] > 0 && wl->flavor[r] >= 0)
			before[r] = root->usage[kq_fr(s, wl->flavor[r], r)];
	book(s, wl, sign);
	for (int r = 0; r < s->n_res; r++) {
		if (wl->req[r] <= 0 || wl->flavor[r] < 0)
			continue;
		int fr = kq_fr(s, wl->flavor[r], r);
		if (sign < 0)
			root->freed[fr] += before[r] - root->usage[fr];
		else if (q->usage[fr] <= q->subtree[fr])
			root->freed[fr] -= root->usage[fr] - before[r];
	}
}

void kq_invalidate(struct kq_sched *s)
{
	s->gen++;
	s->mgen++;
	s->igen++;
}

/* Can admitting wl leave every monotone memo of another queue true
 * (docs/kueue-rules.md E13)? When on each flavor-resource it takes its queue was
 * already over its quota or stays within it, and it is no larger than a job the
 * queue already held: then what a classical bound may take from the queue grows by
 * no more than the root's usage does. Read before wl is booked. */
static int admission_is_monotone(const struct kq_sched *s, const struct kq_wl *wl)
{
	const struct kq_node *q = &s->nodes[wl->queue];
	for (int r = 0; r < s->n_res; r++) {
		if (wl->req[r] <= 0 || wl->flavor[r] < 0)
			continue;
		int fr = kq_fr(s, wl->flavor[r], r);
		sim_qty_t u = q->usage[fr], x = wl->req[r];
		if (!(u > q->subtree[fr] || u + x <= q->subtree[fr]))
			return 0;
		if (!q->max_req || x > q->max_req[fr])
			return 0;
	}
	return 1;
}

/* Logs the share queue qi has after an admission on its root's rise stack
 * (docs/kueue-rules.md E14): entries it reaches or passes go, as no memo can need
 * them any more. Returns 0 when the stack was full and was emptied instead: the
 * caller then ends every monotone memo. */
static int log_rise(struct kq_sched *s, struct kq_node *root, int qi)
{
	double u, v = kq_drs(s, qi, NULL, &u);
	root->rise_seq++;
	while (root->n_rise && !kq_share_below(v, u, root->rise[root->n_rise - 1].v, root->rise[root->n_rise - 1].u))
		root->n_rise--;
	if (root->n_rise == KQ_RISE_CAP) {
		root->n_rise = 0;
		return 0;
	}
	root->rise[root->n_rise++] = (struct kq_rise){ root->rise_seq, v, u };
	return 1;
}

/* Logs an admission of priority prio into queue q (kq_node.adm, E16): entries of
 * a priority at least prio go, as the new one answers for them from now on. A full
 * log is emptied and counted as a release (every memo of E16 of the queue ends). */
static void log_admission(struct kq_node *q, int32_t prio)
{
	q->adm_seq++;
	while (q->n_adm && q->adm[q->n_adm - 1].prio >= prio)
		q->n_adm--;
	if (q->n_adm == KQ_ADM_CAP) {
		q->n_adm = 0;
		q->mrm++;
	}
	q->adm[q->n_adm++] = (struct kq_adm){ q->adm_seq, prio };
}

int kq_add_running(struct kq_sched *s, struct kq_wl *wl)
{
	struct kq_node *q = &s->nodes[wl->queue];
	/* Every allocation first, so that a failure changes nothing. */
	struct kq_wl **nr = sim_grow(q->running, &q->cap_running, q->n_running, sizeof *nr, 16);
	if (!nr)
		return -SIM_ENOMEM;
	q->running = nr;
	if (!q->max_req) { /* one block: max_req, then min_req */
		size_t n = (size_t)(s->n_fr ? s->n_fr : 1);
		if (!(q->max_req = calloc(2 * n, sizeof *q->max_req)))
			return -SIM_ENOMEM;
		q->min_req = q->max_req + n;
	}
	struct kq_band *b = band_of(s, q, wl->priority);
	if (!b)
		return -SIM_ENOMEM;
	struct kq_node *root = &s->nodes[q->root];
	if (s->fair && !root->rise && !(root->rise = malloc(KQ_RISE_CAP * sizeof *root->rise)))
		return -SIM_ENOMEM;
	if (!q->adm && !(q->adm = malloc(KQ_ADM_CAP * sizeof *q->adm)))
		return -SIM_ENOMEM;
	/* Fair sharing has no classical bound for an admission to change; its
	 * monotone memos read the rise stack instead (E14). */
	int monotone = s->fair || admission_is_monotone(s, wl);
	wl->slot = (uint32_t)q->n_running;
	q->running[q->n_running++] = wl;
	book_counting_freed(s, wl, +1);
	band_update(s, wl, b, +1);
	band_link(b, wl);
	q->n_evicted += wl->evicted != 0;
	sver_bump(s, wl->queue);
	s->gen++;
	q->madd++;
	log_admission(q, wl->priority);
	if (s->fair && !log_rise(s, root, wl->queue))
		monotone = 0;
	if (!monotone || (kq_test_oracle & KQ_ORACLE_MEMO_GEN))
		s->mgen++;
	return 0;
}

void kq_remove_running(struct kq_sched *s, struct kq_wl *wl)
{
	struct kq_node *q = &s->nodes[wl->queue];
	struct kq_wl *last = q->running[--q->n_running];
	q->running[wl->slot] = last;
	last->slot = wl->slot;
	book_counting_freed(s, wl, -1);
	struct kq_band *b = band_of(s, q, wl->priority); /* exists: it was added */
	band_update(s, wl, b, -1);
	band_unlink(b, wl);
	q->n_evicted -= wl->evicted != 0;
	sver_bump(s, wl->queue);
	s->gen++;
	q->madd++;
	q->mrm++;
	for (int r = 0; r < s->n_res; r++) /* book()'s quantities */
		if (wl->req[r] > 0 && wl->flavor[r] >= 0)
			s->nodes[q->root].released += wl->req[r];
	if (kq_test_oracle & KQ_ORACLE_MEMO_GEN)
		s->mgen++;
}

void kq_set_weight(struct kq_sched *s, int node, int64_t weight_milli)
{
	s->nodes[node].weight_milli = weight_milli;
	s->nodes[node].share_ok = 0;
	kq_invalidate(s);
}

int kq_set_running_priority(struct kq_sched *s, struct kq_wl *wl, int32_t prio)
{
	struct kq_node *q = &s->nodes[wl->queue];
	struct kq_band *to = band_of(s, q, prio); /* first (it may create and move bands): a
						   * failure changes nothing */
	if (!to)
		return -SIM_ENOMEM;
	struct kq_band *from = band_of(s, q, wl->priority); /* exists: it was added */
	band_update(s, wl, from, -1);
	band_unlink(from, wl);
	wl->priority = prio;
	band_update(s, wl, to, +1);
	band_link(to, wl);
	kq_invalidate(s);
	return 0;
}

void kq_requota(struct kq_sched *s)
{
	kq_invalidate(s);
	for (size_t i = 0; i < s->n_nodes; i++)
		memset(s->nodes[i].usage, 0, (size_t)s->n_fr * sizeof(sim_qty_t));
	compute_all_quota(s);
	for (size_t i = 0; i < s->n_nodes; i++)
		for (size_t k = 0; k < s->nodes[i].n_running; k++)
			book(s, s->nodes[i].running[k], +1);
}

/* ---- arithmetic ---- */

sim_qty_t kq_available(const struct kq_sched *s, int node, int fr)
{
	const struct kq_node *n = &s->nodes[node];
	if (n->parent < 0)
		return n->subtree[fr] - n->usage[fr];
	sim_qty_t parent_avail = kq_available(s, n->parent, fr);
	sim_qty_t bl = n->borrow_limit[fr];
	if (bl != KQ_UNSET) {
		sim_qty_t stored = n->subtree[fr] - n->local[fr];
		sim_qty_t used = n->usage[fr] - n->local[fr];
		if (used < 0)
			used = 0;
		sim_qty_t with_max = stored - used + bl;
		if (with_max < parent_avail)
			parent_avail = with_max;
	}
	return local_available(n, fr) + parent_avail;
}

sim_qty_t kq_potential(const struct kq_sched *s, int node, int fr)
{
	return s->nodes[node].potential[fr]; /* compute_potential, at finalize and requota */
}


static double drs_now(const struct kq_sched *s, const struct kq_node *n, const sim_qty_t *req_fr,
		      double *unweighted);

/* DRS (fair_sharing.go; docs/kueue-rules.md S1, S4 and Q9): per resource name, the
 * borrowed amount summed over flavors, over what the parent could lend; the max
 * over resources, divided by the weight. Roots have share 0. */
double kq_drs(const struct kq_sched *s, int node, const sim_qty_t *req_fr, double *unweighted)
{
	const struct kq_node *n = &s->nodes[node];
	if (!req_fr && n->share_ok) { /* the cache of the share as it is (see kq_node) */
		if (unweighted)
			*unweighted = n->share_unweighted;
		return n->share;
	}
	double unw = 0, v = drs_now(s, n, req_fr, &unw);
	if (!req_fr) {
		struct kq_node *m = (struct kq_node *)n; /* a cache: logically const */
		m->share = v;
		m->share_unweighted = unw;
		m->share_ok = 1;
	}
	if (unweighted)
		*unweighted = unw;
	return v;
}

static double drs_now(const struct kq_sched *s, const struct kq_node *n, const sim_qty_t *req_fr,
		      double *unweighted)
{
	double best = 0;
	*unweighted = 0;
	if (n->parent < 0)
		return 0;
	for (int r = 0; r < s->n_res; r++) {
		sim_qty_t borrowed = 0, lendable = 0;
		for (int f = 0; f < s->n_flavors; f++) {
			int fr = kq_fr(s, f, r);
			lendable += kq_potential(s, n->parent, fr);
			if (!n->subtree_has[fr])
				continue;
			sim_qty_t b = n->usage[fr] + (req_fr ? req_fr[fr] : 0) - n->subtree[fr];
			if (b > 0)
				borrowed += b;
		}
		if (borrowed <= 0 || lendable <= 0)
			continue;
		double ratio = (double)borrowed * 1000.0 / (double)lendable;
		if (ratio > best)
			best = ratio;
	}
	*unweighted = best;
	if (best == 0)
		return 0;
	if (n->weight_milli == 0)
		return INFINITY;
	return best * 1000.0 / (double)n->weight_milli;
}
