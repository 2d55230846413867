/* policies/kq_preempt.c: choosing victims, classical and fair sharing (docs/kueue-rules.md
 * "Classical preemption" P1-P8, "Fair sharing" S1-S5, with S3, S4, P3 and P8).
 *
 * Both strategies simulate on the live usage: a candidate's usage is unbooked when
 * it is tried and rebooked before returning, so the tree is the same afterwards.
 * Candidates come from the running lists of the queues in the preemptor's tree;
 * nothing scans jobs outside it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kq_impl.h"

enum variant { V_WITHIN_CQ = 1, V_HIERARCHY, V_RECLAIM_NO_BORROW, V_RECLAIM_WHILE_BORROW };

struct cand {
	struct kq_wl *wl;
	int lca;          /* cohort where the search found it (-1 for the own queue) */
	enum variant var;
	double lost;      /* work lost if preempted now (GPU milli-units x s), checkpoint-aware order */
	uint8_t valid;    /* scratch of attempt_feasible */
};

struct cands {
	struct cand *v;
	size_t n, cap;
};

static int cands_push(struct cands *c, struct kq_wl *wl, int lca, enum variant var, double lost)
{
	struct cand *nv = sim_grow(c->v, &c->cap, c->n, sizeof *nv, 32);
	if (!nv)
		return -SIM_ENOMEM;
	c->v = nv;
	c->v[c->n++] = (struct cand){ wl, lca, var, lost, 0 };
	return 0;
}

int kq_targets_push(struct kq_targets *t, struct kq_wl *wl, struct kq_wl *by, enum kq_reason reason)
{
	struct kq_victim *nv = sim_grow(t->v, &t->cap, t->n, sizeof *nv, 16);
	if (!nv)
		return -SIM_ENOMEM;
	t->v = nv;
	t->v[t->n++] = (struct kq_victim){ wl, by, reason };
	return 0;
}

/* ---- booking helpers ---- */

void kq_book(struct kq_sched *s, const struct kq_wl *wl, const int16_t *flavor, int sign)
{
	for (int r = 0; r < s->n_res; r++) {
		if (wl->req[r] <= 0 || flavor[r] < 0)
			continue;
		int fr = kq_fr(s, flavor[r], r);
		if (sign > 0)
			kq_usage_add(s, wl->queue, fr, wl->req[r]);
		else
			kq_usage_remove(s, wl->queue, fr, wl->req[r]);
	}
}

void kq_unbook_running(struct kq_sched *s, const struct kq_wl *wl) { kq_book(s, wl, wl->flavor, -1); }
void kq_rebook_running(struct kq_sched *s, const struct kq_wl *wl) { kq_book(s, wl, wl->flavor, +1); }

int kq_fits_quota(const struct kq_sched *s, const struct kq_wl *wl, const int16_t *flavor, int allow_borrow)
{
	const struct kq_node *q = &s->nodes[wl->queue];
	for (int r = 0; r < s->n_res; r++) {
		sim_qty_t v = wl->req[r];
		if (v <= 0)
			continue;
		if (flavor[r] < 0)
			continue; /* a later resource group, not assigned yet */
		int fr = kq_fr(s, flavor[r], r);
		if (!allow_borrow && q->usage[fr] + v > q->subtree[fr])
			return 0;
		if (v > kq_available(s, wl->queue, fr))
			return 0;
	}
	return 1;
}

/* ---- candidate predicates ---- */

static int uses_contested(const struct kq_sched *s, const struct kq_wl *c, const uint8_t *contested)
{
	for (int r = 0; r < s->n_res; r++)
		if (c->req[r] > 0 && c->flavor[r] >= 0 && contested[kq_fr(s, c->flavor[r], r)])
			return 1;
	return 0;
}

/* IsWithinNominalInResources: not borrowing on any contested flavor-resource. */
static int within_nominal(const struct kq_sched *s, int node, const uint8_t *contested)
{
	for (int fr = 0; fr < s->n_fr; fr++)
		if (contested[fr] && kq_borrowing(s, node, fr))
			return 0;
	return 1;
}

/* May `pre` preempt `c` under policy p (the policy of the preemptor's queue)? */
static int policy_allows(enum kq_policy p, const struct kq_wl *pre, const struct kq_wl *c)
{
	switch (p) {
	case KQ_LOWER_PRIORITY:
		return c->priority < pre->priority;
	case KQ_LOWER_OR_NEWER_EQUAL:
		return c->priority < pre->priority || (c->priority == pre->priority && pre->created < c->created);
	case KQ_ANY:
		return 1;
	default:
		return 0;
	}
}

/* Beyond Kueue: a non-preemptible job, or one younger than its queue's minimum
 * runtime, is never a candidate. */
static int protected_now(const struct kq_sched *s, const struct kq_wl *c, sim_time_t now)
{
	if (!c->preemptible || (s->skip_mark && c->mark == s->skip_mark))
		return 1; /* (or already a victim of this cycle) */
	sim_time_t min_rt = s->nodes[c->queue].cfg.min_runtime_ns;
	return min_rt > 0 && now - c->admitted < min_rt;
}

static double lost_work(const struct kq_wl *c, sim_time_t now)
{
	sim_time_t since = c->last_ckpt == SIM_TIME_NONE ? c->admitted : c->last_ckpt;
	if (c->ckpt_period > 0 && now > since)
		since += (now - since) / c->ckpt_period * c->ckpt_period;
	double secs = now > since ? sim_time_to_s(now - since) : 0;
	return (double)c->req[0] * secs;
}

/* ---- candidate ordering (CandidatesOrdering) ---- */

static int cmp_preemptor_queue; /* qsort context: the preemptor's queue */
static int cmp_ckpt_aware;

static int cand_cmp(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;
	if (a->wl->evicted != b->wl->evicted)
		return a->wl->evicted ? -1 : 1;
	int a_own = a->wl->queue == cmp_preemptor_queue, b_own = b->wl->queue == cmp_preemptor_queue;
	if (a_own != b_own)
		return a_own ? 1 : -1;
	if (a->wl->priority != b->wl->priority)
		return a->wl->priority < b->wl->priority ? -1 : 1;
	if (cmp_ckpt_aware && a->lost != b->lost)
		return a->lost < b->lost ? -1 : 1;
	if (a->wl->admitted != b->wl->admitted)
		return a->wl->admitted > b->wl->admitted ? -1 : 1; /* most recently admitted first */
	return a->wl->tie < b->wl->tie ? -1 : a->wl->tie > b->wl->tie;
}

static void sort_cands(struct cand *v, size_t n, const struct kq_wl *pre, const struct kq_sched *s)
{
	cmp_preemptor_queue = pre->queue;
	cmp_ckpt_aware = s->nodes[pre->queue].cfg.checkpoint_aware;
	if (n > 1)
		qsort(v, n, sizeof *v, cand_cmp);
}

/* ---- classical candidates (classical/hierarchical_preemption.go) ---- */

struct classical_ctx {
	struct kq_sched *s;
	struct kq_wl *pre;
	const int16_t *flavor;
	const uint8_t *contested;
	sim_time_t now;
	struct cands hier, prio, same;
};

static enum variant classify(const struct classical_ctx *x, const struct kq_wl *c, int advantage)
{
	const struct kq_queue_cfg *cfg = &x->s->nodes[x->pre->queue].cfg;
	if (c->queue == x->pre->queue)
		return policy_allows(cfg->within, x->pre, c) ? V_WITHIN_CQ : 0;
	if (!policy_allows(cfg->reclaim, x->pre, c))
		return 0;
	if (advantage)
		return V_HIERARCHY;
	if (!cfg->bwc)
		return V_RECLAIM_NO_BORROW;
	if (c->priority >= x->pre->priority || (cfg->bwc_has_threshold && c->priority > cfg->bwc_threshold))
		return V_RECLAIM_NO_BORROW;
	return V_RECLAIM_WHILE_BORROW;
}

static int collect_from_queue(struct classical_ctx *x, int qi, int lca, int advantage, struct cands *out)
{
	const struct kq_node *q = &x->s->nodes[qi];
	for (size_t k = 0; k < q->n_running; k++) {
		struct kq_wl *c = q->running[k];
		if (!uses_contested(x->s, c, x->contested) || protected_now(x->s, c, x->now))
			continue;
		enum variant v = classify(x, c, advantage);
		if (!v)
			continue;
		if (cands_push(out, c, lca, v, lost_work(c, x->now)))
			return -SIM_ENOMEM;
	}
	return 0;
}

/* Queues of `cohort`'s subtree over their quota on contested resources, skipping
 * the subtree already searched and subtrees within their quota. */
static int collect_in_subtree(struct classical_ctx *x, int cohort, int lca, int skip, int advantage,
			      struct cands *out)
{
	const struct kq_node *n = &x->s->nodes[cohort];
	for (size_t k = 0; k < n->n_children; k++) {
		int ch = n->children[k];
		if (ch == skip || ch == x->pre->queue)
			continue;
		if (within_nominal(x->s, ch, x->contested))
			continue;
		int rc = x->s->nodes[ch].is_queue ? collect_from_queue(x, ch, lca, advantage, out)
						  : collect_in_subtree(x, ch, lca, skip, advantage, out);
		if (rc)
			return rc;
	}
	return 0;
}

/* QuantitiesFitInQuota: does `req` (per fr) fit the node's own subtree quota, and
 * what remains for the parent once the node's local quota is used. Every
 * requested fr counts, also one whose remainder is already 0: a node over its
 * quota there does not fit. */
static int fits_in_node_quota(const struct kq_sched *s, int node, sim_qty_t *req, const uint8_t *requested)
{
	const struct kq_node *n = &s->nodes[node];
	int fits = 1;
	for (int fr = 0; fr < s->n_fr; fr++) {
		if (!requested[fr])
			continue;
		if (n->usage[fr] + req[fr] > n->subtree[fr])
			fits = 0;
		sim_qty_t la = n->local[fr] - n->usage[fr];
		req[fr] -= la > 0 ? la : 0;
		if (req[fr] < 0)
			req[fr] = 0;
	}
	return fits;
}

static void request_fr(const struct kq_sched *s, const struct kq_wl *wl, const int16_t *flavor, sim_qty_t *out)
{
	memset(out, 0, (size_t)s->n_fr * sizeof *out);
	for (int r = 0; r < s->n_res; r++)
		if (wl->req[r] > 0 && flavor[r] >= 0)
			out[kq_fr(s, flavor[r], r)] += wl->req[r];
}

static int collect_classical(struct classical_ctx *x)
{
	struct kq_sched *s = x->s;
	const struct kq_node *q = &s->nodes[x->pre->queue];
	int rc = 0;
	if (q->cfg.within != KQ_NEVER)
		rc = collect_from_queue(x, x->pre->queue, -1, 0, &x->same);
	if (rc || q->parent < 0 || q->cfg.reclaim == KQ_NEVER)
		return rc;
	sim_qty_t *remaining = malloc((size_t)s->n_fr * (sizeof *remaining + 1));
	if (!remaining)
		return -SIM_ENOMEM;
	uint8_t *requested = (uint8_t *)(remaining + s->n_fr);
	request_fr(s, x->pre, x->flavor, remaining);
	for (int fr = 0; fr < s->n_fr; fr++)
		requested[fr] = remaining[fr] > 0;
	int advantage = fits_in_node_quota(s, x->pre->queue, remaining, requested);
	int prev = -1;
	for (int cur = q->parent; cur >= 0 && !rc; prev = cur, cur = s->nodes[cur].parent) {
		rc = collect_in_subtree(x, cur, cur, prev, advantage, advantage ? &x->hier : &x->prio);
		advantage = fits_in_node_quota(s, cur, remaining, requested) || advantage;
	}
	free(remaining);
	return rc;
}

/* candidateIsValid: same-queue candidates always; others only while their queue
 * and its cohorts below the LCA still borrow on a contested resource. */
static int cand_valid(const struct classical_ctx *x, const struct cand *c, int allow_borrow)
{
	if (c->var == V_WITHIN_CQ)
		return 1;
	if (allow_borrow && c->var == V_RECLAIM_NO_BORROW)
		return 0;
	const struct kq_sched *s = x->s;
	int qi = c->wl->queue;
	if (within_nominal(s, qi, x->contested))
		return 0;
	for (int n = s->nodes[qi].parent; n >= 0 && n != c->lca; n = s->nodes[n].parent)
		if (within_nominal(s, n, x->contested))
			return 0;
	return 1;
}

static enum kq_reason variant_reason(enum variant v)
{
	switch (v) {
	case V_WITHIN_CQ:
		return KQ_R_IN_QUEUE;
	case V_RECLAIM_WHILE_BORROW:
		return KQ_R_RECLAIM_WHILE_BORROWING;
	default:
		return KQ_R_RECLAIM;
	}
}

/* Fill-back: walk the removed list backwards, skipping the last, and put back
 * every target whose return keeps the fit. The kept targets stay unbooked. */
static void fill_back(struct kq_sched *s, struct kq_wl *pre, const int16_t *flavor, int allow_borrow,
		      struct kq_targets *t)
{
	if (t->n < 2)
		return;
	for (size_t i = t->n - 1; i-- > 0;) {
		kq_rebook_running(s, t->v[i].wl);
		if (kq_fits_quota(s, pre, flavor, allow_borrow)) {
			memmove(&t->v[i], &t->v[i + 1], (t->n - i - 1) * sizeof *t->v);
			t->n--;
		} else {
			kq_unbook_running(s, t->v[i].wl);
		}
	}
}

static void rebook_all(struct kq_sched *s, const struct kq_targets *t)
{
	for (size_t i = 0; i < t->n; i++)
		kq_rebook_running(s, t->v[i].wl);
}

/* Candidates are ordered lazily: a search usually stops after a few victims, so
 * each group is a binary heap popped in CandidatesOrdering order instead of being
 * sorted whole. A pop moves the least to the end of the heap's range, so the
 * group keeps its elements for the next attempt. */
static void cand_sift(struct cand *v, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < n && cand_cmp(&v[l], &v[m]) < 0)
			m = l;
		if (l + 1 < n && cand_cmp(&v[l + 1], &v[m]) < 0)
			m = l + 1;
		if (m == i)
			return;
		struct cand t = v[i];
		v[i] = v[m];
		v[m] = t;
		i = m;
	}
}

static struct cand *cand_pop(struct cand *v, size_t n)
{
	struct cand t = v[0];
	v[0] = v[n - 1];
	v[n - 1] = t;
	cand_sift(v, n - 1, 0);
	return &v[n - 1];
}

#define CAND_GROUPS 6 /* evicted (hierarchy, priority, same queue), then the others */

/* One attempt over the candidates in order; 1 = fits (targets kept in out). */
static int classical_attempt(struct classical_ctx *x, struct cand *all, const size_t *seg, int allow_borrow,
			     struct kq_targets *out)
{
	out->n = 0;
	for (int g = 0; g < CAND_GROUPS; g++) {
		struct cand *v = all + seg[g];
		size_t n = seg[g + 1] - seg[g];
		for (size_t i = n / 2; i-- > 0;)
			cand_sift(v, n, i);
		for (; n; n--) {
			const struct cand *c = cand_pop(v, n);
			if (!cand_valid(x, c, allow_borrow))
				continue;
			kq_unbook_running(x->s, c->wl);
			if (kq_targets_push(out, c->wl, x->pre, variant_reason(c->var))) {
				kq_rebook_running(x->s, c->wl);
				rebook_all(x->s, out);
				out->n = 0;
				return -SIM_ENOMEM;
			}
			if (kq_fits_quota(x->s, x->pre, x->flavor, allow_borrow)) {
				fill_back(x->s, x->pre, x->flavor, allow_borrow, out);
				rebook_all(x->s, out);
				return 1;
			}
		}
	}
	rebook_all(x->s, out);
	out->n = 0;
	return 0;
}

/* Could an attempt succeed at all? Validity only shrinks as victims go and the fit
 * only grows, so if the preemptor does not fit with every candidate valid now
 * removed, no subset fits: the attempt is skipped without ordering anything. This
 * is what keeps a full cluster cheap, where most heads find no victims. */
static int attempt_feasible(struct classical_ctx *x, struct cands *const lists[3], int allow_borrow)
{
	for (int l = 0; l < 3; l++)
		for (size_t i = 0; i < lists[l]->n; i++)
			lists[l]->v[i].valid = (uint8_t)cand_valid(x, &lists[l]->v[i], allow_borrow);
	for (int l = 0; l < 3; l++)
		for (size_t i = 0; i < lists[l]->n; i++)
			if (lists[l]->v[i].valid)
				kq_unbook_running(x->s, lists[l]->v[i].wl);
	int fits = kq_fits_quota(x->s, x->pre, x->flavor, allow_borrow);
	for (int l = 0; l < 3; l++)
		for (size_t i = 0; i < lists[l]->n; i++)
			if (lists[l]->v[i].valid)
				kq_rebook_running(x->s, lists[l]->v[i].wl);
	return fits;
}

/* queueUnderNominalInResourcesNeedingPreemption: strictly below nominal. */
static int strictly_under_nominal(const struct kq_sched *s, int qi, const uint8_t *contested)
{
	const struct kq_node *q = &s->nodes[qi];
	for (int fr = 0; fr < s->n_fr; fr++)
		if (contested[fr] && q->usage[fr] >= q->nominal[fr])
			return 0;
	return 1;
}

/* Concatenation order: evicted (hierarchy, priority, same queue), then the rest;
 * seg[g] .. seg[g + 1] is group g (unordered: classical_attempt orders it). */
static int concat_candidates(struct classical_ctx *x, struct cands *all, size_t *seg)
{
	struct cands *lists[3] = { &x->hier, &x->prio, &x->same };
	int g = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int l = 0; l < 3; l++) {
			seg[g++] = all->n;
			for (size_t i = 0; i < lists[l]->n; i++) {
				const struct cand *c = &lists[l]->v[i];
				if ((c->wl->evicted != 0) == (pass == 0) && cands_push(all, c->wl, c->lca, c->var, c->lost))
					return -SIM_ENOMEM;
			}
		}
	seg[g] = all->n;
	return 0;
}

/* May policy p let pre take some job of priority prio? (For LowerOrNewerEqual the
 * equal band holds newer and older jobs alike: the band may, each job is tested.)
 * The bands ascend in priority, so the first band that may not ends a walk. */
static int band_allowed(enum kq_policy p, int32_t prio, const struct kq_wl *pre)
{
	switch (p) {
	case KQ_LOWER_PRIORITY:
		return prio < pre->priority;
	case KQ_LOWER_OR_NEWER_EQUAL:
		return prio <= pre->priority;
	case KQ_ANY:
		return 1;
	default:
		return 0;
	}
}

/* What the policy lets pre take from queue q on fr at most: its running quantity in
 * the priority bands the policy allows. */
static sim_qty_t band_allowance(const struct kq_node *q, int fr, const struct kq_wl *pre, enum kq_policy p)
{
	sim_qty_t sum = 0;
	for (size_t b = 0; b < q->n_bands; b++)
		if (band_allowed(p, q->bands[b].prio, pre))
			sum += q->bands[b].qty[fr];
	return sum;
}

/* A bound before any job is looked at: take from the preemptor's queue all its
 * policy allows, and from every queue of its tree now over quota (the only ones
 * whose jobs can be candidates) what the policy allows up to its excess plus its
 * largest job (a queue's jobs stop being candidates once it is back within quota),
 * in aggregate. If the preemptor still does not fit, even borrowing, no victim
 * set exists. O(queues). */
/* What queue o may lose to pre on fr in one attempt (see hopeless_classical). */
static sim_qty_t attempt_allowance(const struct kq_sched *s, const struct kq_node *o, int own, int fr,
				   const struct kq_wl *pre, int allow_borrow, int advantage)
{
	const struct kq_queue_cfg *cfg = &s->nodes[pre->queue].cfg;
	if (own)
		return band_allowance(o, fr, pre, cfg->within);
	sim_qty_t v;
	if (!allow_borrow || advantage) {
		v = band_allowance(o, fr, pre, cfg->reclaim);
	} else if (cfg->bwc && cfg->reclaim != KQ_NEVER) { /* only ReclaimWhileBorrowing victims */
		v = 0;
		for (size_t b = 0; b < o->n_bands; b++) {
			int32_t prio = o->bands[b].prio;
			if (prio < pre->priority && (!cfg->bwc_has_threshold || prio <= cfg->bwc_threshold))
				v += o->bands[b].qty[fr];
		}
	} else {
		return 0; /* ReclaimWithoutBorrowing victims are not valid when borrowing */
	}
	/* its jobs stop being candidates once it is back within quota */
	sim_qty_t over = o->usage[fr] - o->subtree[fr] + (o->max_req ? o->max_req[fr] : 0);
	return v < over ? v : over;
}

/* One attempt's bound: remove in aggregate all that every queue may lose, then test
 * the attempt's fit. */
struct taken {
	int node, fr;
	sim_qty_t v;
};

/* The undo log of an aggregate bound: at most one entry per (node, fr), kept by the
 * scheduler between searches (no allocation once it has grown). NULL: no memory. */
static struct taken *taken_log(struct kq_sched *s)
{
	struct kq_scratch *sc = kq_scratch_get(s);
	size_t need = s->n_nodes * (size_t)s->n_fr + 1;
	if (!sc)
		return NULL;
	if (sc->cap_taken < need) {
		void *nv = realloc(sc->taken, need * sizeof(struct taken));
		if (!nv)
			return NULL;
		sc->taken = nv;
		sc->cap_taken = need;
	}
	return sc->taken;
}

static void restore_taken(struct kq_sched *s, const struct taken *tk, size_t n)
{
	while (n--)
		kq_usage_add(s, tk[n].node, tk[n].fr, tk[n].v);
}

/* An aggregate bound's removals (docs/kueue-rules.md E11). In general each is booked
 * out of the tree (kq_usage_remove, logged in tk) and the fit is tested on the tree,
 * then everything is booked back. In a flat tree (the preemptor's queue and every
 * queue of its tree are children of the root) a removal of v from queue o changes
 * only o's usage and the root's, by the part of v that o stored in the root
 * (min(v, usage - local) when positive), and the fit test reads only the
 * preemptor's queue and the root: the bound is then two sums per flavor-resource,
 * and nothing is booked (which also keeps the nodes' cached shares valid). */
struct bound_acc {
	int flat;            /* sums, not bookings */
	int queue, root;     /* the preemptor's queue; its root */
	struct taken *tk;    /* booking: the undo log */
	size_t n;
	sim_qty_t *own_rm;   /* flat, per fr: removed from the preemptor's queue */
	sim_qty_t *root_rm;  /* flat, per fr: removed from the root */
};

/* Starts a bound for pre's queue: flat sums when the tree is flat (unless the oracle
 * asks for bookings), else bookings. 0, or -1 without memory (no bound then). */
static int bound_begin(struct kq_sched *s, const struct kq_wl *pre, int try_flat, struct bound_acc *b)
{
	struct kq_scratch *sc = kq_scratch_get(s);
	struct taken *tk = taken_log(s);
	if (!sc || !tk)
		return -1;
	*b = (struct bound_acc){ .queue = pre->queue, .root = s->nodes[pre->queue].root, .tk = tk };
	b->flat = try_flat && !(kq_test_oracle & KQ_ORACLE_BOUND_BOOKED) && kq_flat_tree(s, pre->queue);
	if (!b->flat)
		return 0;
	size_t nf = (size_t)(s->n_fr ? s->n_fr : 1);
	if (sc->cap_bound_rm < 2 * nf) {
		sim_qty_t *v = realloc(sc->bound_rm, 2 * nf * sizeof *v);
		if (!v)
			return -1;
		sc->bound_rm = v;
		sc->cap_bound_rm = 2 * nf;
	}
	b->own_rm = sc->bound_rm;
	b->root_rm = sc->bound_rm + nf;
	memset(sc->bound_rm, 0, 2 * nf * sizeof *sc->bound_rm);
	return 0;
}

/* Removes v (> 0) of fr from queue o, in aggregate. */
static void bound_take(struct kq_sched *s, struct bound_acc *b, int o, int fr, sim_qty_t v)
{
	if (!b->flat) {
		kq_usage_remove(s, o, fr, v);
		b->tk[b->n++] = (struct taken){ o, fr, v };
		return;
	}
	const struct kq_node *n = &s->nodes[o];
	sim_qty_t stored = n->usage[fr] - n->local[fr]; /* what kq_usage_remove passes up */
	if (o == b->queue)
		b->own_rm[fr] += v;
	if (stored > 0)
		b->root_rm[fr] += v < stored ? v : stored;
}

/* kq_available of a child of the root whose usage is uq and the root's ur. */
static sim_qty_t flat_available(const struct kq_node *q, const struct kq_node *root, int fr, sim_qty_t uq,
				sim_qty_t ur)
{
	sim_qty_t parent_avail = root->subtree[fr] - ur;
	sim_qty_t bl = q->borrow_limit[fr];
	if (bl != KQ_UNSET) {
		sim_qty_t stored = q->subtree[fr] - q->local[fr];
		sim_qty_t used = uq - q->local[fr];
		if (used < 0)
			used = 0;
		sim_qty_t with_max = stored - used + bl;
		if (with_max < parent_avail)
			parent_avail = with_max;
	}
	sim_qty_t la = q->local[fr] - uq;
	return (la > 0 ? la : 0) + parent_avail;
}

/* kq_fits_quota on the tree with the flat removals out, as a shortfall: <= 0 fits;
 * else by how much the request is short where it fits least (docs/kueue-rules.md
 * E13), KQ_SHORT_INF when the queue's own quota refuses it (what other queues
 * release cannot change that). */
static sim_qty_t flat_shortfall(const struct kq_sched *s, const struct bound_acc *b, const struct kq_wl *pre,
				const int16_t *flavor, int allow_borrow)
{
	const struct kq_node *q = &s->nodes[pre->queue], *root = &s->nodes[q->parent];
	sim_qty_t worst = 0;
	for (int r = 0; r < s->n_res; r++) {
		sim_qty_t v = pre->req[r];
		if (v <= 0 || flavor[r] < 0)
			continue;
		int fr = kq_fr(s, flavor[r], r);
		sim_qty_t uq = q->usage[fr] - b->own_rm[fr], ur = root->usage[fr] - b->root_rm[fr];
		if (!allow_borrow && uq + v > q->subtree[fr])
			return KQ_SHORT_INF;
		sim_qty_t sh = v - flat_available(q, root, fr, uq, ur);
		if (sh > worst)
			worst = sh;
	}
	return worst;
}

/* Tests the fit with the removals out, and ends the bound (bookings undone): a
 * shortfall as flat_shortfall's; booked, 1 for "does not fit" (the least: any
 * release may change it). */
static sim_qty_t bound_end(struct kq_sched *s, struct bound_acc *b, const struct kq_wl *pre, const int16_t *flavor,
			   int allow_borrow)
{
	if (b->flat)
		return flat_shortfall(s, b, pre, flavor, allow_borrow);
	int fits = kq_fits_quota(s, pre, flavor, allow_borrow);
	restore_taken(s, b->tk, b->n);
	return fits ? 0 : 1;
}

/* The queues a bound looks at: in a flat tree the root's children, else every node
 * (the callers' own tests pick the queues of the tree). Sets *v and *n. */
static void bound_nodes(const struct kq_sched *s, const struct bound_acc *b, const int32_t **v, size_t *n)
{
	if (b->flat) {
		*v = s->nodes[b->root].children;
		*n = s->nodes[b->root].n_children;
	} else {
		*v = NULL;
		*n = s->n_nodes;
	}
}

/* What another queue o of a flat tree may lose in a bound, as the root sees it: the
 * removal v the bound takes from o on fr (0 unless o borrows there), and of it the
 * part o stored in the root (bound_take's). The parameters that depend on the
 * preemptor are the key; the rest is o's state. */
enum { BK_CAPPED = 0, /* classical: band_allowance(policy), at most o's excess plus its largest job */
       BK_BWC,        /* classical, may borrow, borrow_within_cohort: bands below prio (and thr) */
       BK_FAIR };     /* fair sharing: band_allowance(policy), uncapped */
struct bound_key {
	int root, fr, kind, policy, has_thr;
	int32_t prio, thr;
};

static sim_qty_t other_take(const struct kq_node *o, const struct bound_key *k)
{
	int fr = k->fr;
	if (!o->is_queue || !o->n_running || !(o->usage[fr] > o->subtree[fr]))
		return 0;
	sim_qty_t v = 0;
	if (k->kind == BK_BWC) {
		for (size_t b = 0; b < o->n_bands; b++) {
			int32_t prio = o->bands[b].prio;
			if (prio < k->prio && (!k->has_thr || prio <= k->thr))
				v += o->bands[b].qty[fr];
		}
	} else {
		struct kq_wl pre = { .priority = k->prio };
		v = band_allowance(o, fr, &pre, (enum kq_policy)k->policy);
	}
	if (k->kind != BK_FAIR) {
		sim_qty_t over = o->usage[fr] - o->subtree[fr] + (o->max_req ? o->max_req[fr] : 0);
		v = v < over ? v : over;
	}
	if (v <= 0)
		return 0;
	sim_qty_t stored = o->usage[fr] - o->local[fr];
	return stored > 0 ? (v < stored ? v : stored) : 0;
}

/* The sum of other_take over every queue of the root (the preemptor's own included),
 * kept by key while the tree is unchanged (kq_sched.gen and usage_ver). */
static sim_qty_t root_take(struct kq_sched *s, const struct bound_key *k)
{
	if (k->kind != BK_BWC && k->policy == KQ_NEVER)
		return 0; /* other_take of every queue: no band is allowed */
	struct kq_scratch *sc = s->scratch; /* made by bound_begin */
	for (int i = 0; i < 16; i++) {
		const struct kq_bound_memo *m = &sc->bound_memo[i];
		if (m->gen == s->gen && m->usage_ver == s->usage_ver && m->root == k->root && m->fr == k->fr &&
		    m->kind == k->kind && m->policy == k->policy && m->prio == k->prio && m->has_thr == k->has_thr &&
		    m->thr == k->thr)
			return m->sum;
	}
	const struct kq_node *r = &s->nodes[k->root];
	sim_qty_t sum = 0;
	for (size_t c = 0; c < r->n_children; c++)
		sum += other_take(&s->nodes[r->children[c]], k);
	struct kq_bound_memo *m = &sc->bound_memo[sc->bound_memo_next++ % 16];
	*m = (struct kq_bound_memo){ s->gen, s->usage_ver, k->root, k->fr, k->kind, k->policy, k->has_thr,
				     k->prio, k->thr, sum };
	return sum;
}

/* A flat bound with one contested fr from the per-root sums (docs/kueue-rules.md
 * E11): the others' part is the root's sum less the preemptor's queue's own term;
 * the preemptor's queue loses what its own policy allows. */
static sim_qty_t flat_bound_by_sums(struct kq_sched *s, struct bound_acc *b, const struct kq_wl *pre,
				    const int16_t *flavor, int fr, const struct bound_key *k, enum kq_policy own_policy,
				    int allow_borrow)
{
	const struct kq_node *q = &s->nodes[pre->queue];
	b->root_rm[fr] = root_take(s, k) - other_take(q, k);
	if (q->n_running) {
		sim_qty_t v = band_allowance(q, fr, pre, own_policy);
		if (v > 0)
			bound_take(s, b, pre->queue, fr, v);
	}
	return flat_shortfall(s, b, pre, flavor, allow_borrow);
}

/* The only contested fr, or -1 when there are several (or none). */
static int single_contested(const struct kq_sched *s, const uint8_t *contested)
{
	int one = -1;
	for (int fr = 0; fr < s->n_fr; fr++)
		if (contested[fr]) {
			if (one >= 0)
				return -1;
			one = fr;
		}
	return one;
}

/* Marks the ancestors of queue q (kq_scratch.anc, this stamp) and returns the marks,
 * or NULL without memory. */
static const uint32_t *mark_ancestors(struct kq_sched *s, int q)
{
	struct kq_scratch *sc = s->scratch; /* made by bound_begin */
	size_t nn = s->n_nodes ? s->n_nodes : 1;
	if (sc->cap_anc < nn) {
		uint32_t *v = realloc(sc->anc, nn * sizeof *v);
		if (v)
			sc->anc = v;
		uint8_t *a = v ? realloc(sc->anc_adv, nn) : NULL;
		if (!a)
			return NULL;
		memset(v, 0, nn * sizeof *v);
		sc->anc_adv = a;
		sc->cap_anc = nn;
		sc->anc_stamp = 0;
	}
	if (++sc->anc_stamp <= 1) { /* new (1) or wrapped (0): old stamps could match again */
		memset(sc->anc, 0, nn * sizeof *sc->anc);
		sc->anc_stamp = 1;
	}
	for (int n = s->nodes[q].parent; n >= 0; n = s->nodes[n].parent)
		sc->anc[n] = sc->anc_stamp;
	return sc->anc;
}

/* The hierarchical advantage per level, as find_sources gives it: a candidate whose
 * lowest cohort shared with the preemptor is C has it when the request fits the
 * preemptor's queue's quota, or that of one of its cohorts below C, with what the
 * levels below left of it (fits_in_node_quota). Written to kq_scratch.anc_adv for
 * each ancestor that mark_ancestors marked. 0, or -1 without memory. */
static int mark_advantages(struct kq_sched *s, const struct kq_wl *pre, const int16_t *flavor)
{
	struct kq_scratch *sc = s->scratch;
	size_t nf = (size_t)(s->n_fr ? s->n_fr : 1);
	if (sc->cap_adv_rem < nf) {
		sim_qty_t *v = realloc(sc->adv_rem, nf * (sizeof *v + 1));
		if (!v)
			return -1;
		sc->adv_rem = v;
		sc->cap_adv_rem = nf;
	}
	sim_qty_t *remaining = sc->adv_rem;
	uint8_t *requested = (uint8_t *)(remaining + nf);
	request_fr(s, pre, flavor, remaining);
	for (int fr = 0; fr < s->n_fr; fr++)
		requested[fr] = remaining[fr] > 0;
	int advantage = fits_in_node_quota(s, pre->queue, remaining, requested);
	for (int cur = s->nodes[pre->queue].parent; cur >= 0; cur = s->nodes[cur].parent) {
		sc->anc_adv[cur] = (uint8_t)advantage;
		advantage = fits_in_node_quota(s, cur, remaining, requested) || advantage;
	}
	return 0;
}

/* Per node, the cohort caps' budgets of one bound (kq_scratch.budget), each set by
 * bound_walk as it enters the cohort. NULL without memory. */
static sim_qty_t *cohort_budgets(struct kq_sched *s)
{
	struct kq_scratch *sc = s->scratch;
	size_t nn = s->n_nodes ? s->n_nodes : 1;
	if (sc->cap_budget < nn) {
		sim_qty_t *v = realloc(sc->budget, nn * sizeof *v);
		if (!v)
			return NULL;
		sc->budget = v;
		sc->cap_budget = nn;
	}
	return sc->budget;
}

/* A cohort cap's budget before any removal below cohort cn: its excess on fr plus
 * the tree's largest job (within_cohort_budget). */
static sim_qty_t cohort_budget_start(const struct kq_node *cn, int fr, sim_qty_t max_job)
{
	return cn->usage[fr] - cn->subtree[fr] + max_job;
}

/* The largest quantity of fr one running workload of root's tree ever held; kept while
 * kq_sched.gen is the same (kq_node.max_req only grows as jobs start). */
static sim_qty_t largest_job(struct kq_sched *s, int root, int fr)
{
	struct kq_scratch *sc = s->scratch;
	if (sc->max_job_gen == s->gen && sc->max_job_root == root && sc->max_job_fr == fr)
		return sc->max_job;
	sim_qty_t m = 0;
	for (size_t i = 0; i < s->n_nodes; i++) {
		const struct kq_node *o = &s->nodes[i];
		if (o->is_queue && o->root == root && o->max_req && o->max_req[fr] > m)
			m = o->max_req[fr];
	}
	sc->max_job_gen = s->gen;
	sc->max_job_root = root;
	sc->max_job_fr = fr;
	sc->max_job = m;
	return m;
}

/* A cohort cap of a classical bound with one contested fr: a queue o whose parent C is
 * below the lowest cohort shared with the preemptor gives valid candidates only while
 * C borrows on fr, so all its queues' removals together lower C's usage by at most
 * C's excess plus the largest job (each removal lowers it by the part the queue
 * stored in C, at most one job). Returns v reduced so that its part stored in C fits
 * what is left of that budget, and charges it. */
static sim_qty_t within_cohort_budget(struct kq_sched *s, const struct kq_node *o, int fr, sim_qty_t v,
				      const uint32_t *anc, sim_qty_t *budget)
{
	struct kq_scratch *sc = s->scratch;
	int c = o->parent;
	if (c < 0 || anc[c] == sc->anc_stamp)
		return v; /* o hangs off a cohort the preemptor shares: no cap */
	/* budget[c] was set when bound_walk entered c (cohort_budget_start) */
	sim_qty_t stored = o->usage[fr] - o->local[fr];
	sim_qty_t pass = stored > 0 ? (v < stored ? v : stored) : 0;
	if (pass > budget[c]) {
		pass = budget[c] > 0 ? budget[c] : 0;
		v = pass;
	}
	budget[c] -= pass;
	return v;
}

/* One classical bound in a tree that is not flat (or a flat one booked). */
struct nested_bound {
	const struct kq_wl *pre;
	const uint8_t *contested;
	int allow_borrow;
	struct bound_acc *b;
	const uint32_t *anc;  /* the preemptor's ancestors (mark_ancestors), or NULL */
	sim_qty_t *budget;    /* cohort caps, or NULL */
	int cap_fr;           /* with budget: the one contested fr the caps are on */
	sim_qty_t max_job;
};

/* Takes from queue i (a queue of the preemptor's tree that can be a source, or its own)
 * what one attempt may take, its candidates having the hierarchical advantage
 * `advantage` (classify). */
static void bound_queue(struct kq_sched *s, struct nested_bound *nb, int i, int advantage)
{
	const struct kq_node *o = &s->nodes[i];
	if (!o->n_running)
		return;
	int own = i == nb->pre->queue;
	for (int fr = 0; fr < s->n_fr; fr++) {
		if (!nb->contested[fr] || (!own && !kq_borrowing(s, i, fr)))
			continue;
		sim_qty_t v = attempt_allowance(s, o, own, fr, nb->pre, nb->allow_borrow, advantage);
		if (v > 0 && nb->budget && !own)
			v = within_cohort_budget(s, o, fr, v, nb->anc, nb->budget);
		if (v > 0)
			bound_take(s, nb->b, i, fr, v);
	}
}

/* The queues of node n's subtree that can be sources of a classical search, found from
 * the top. find_sources goes down from the lowest cohort the queue shares with the
 * preemptor only into subtrees not within their nominal quota on the contested
 * flavor-resources, so a cohort that is not an ancestor of the preemptor and is within
 * its nominal hides every queue below it (a queue itself is tested per fr by
 * bound_queue). A queue that is no source gives no candidate: leaving it out keeps the
 * bound sound, and tighter in nested trees. The bound does not depend on the order the
 * queues are taken in (each queue's removal is its own, and what a cohort passes up is
 * the sum it receives capped at what it stores above its local quota). */
static void bound_walk(struct kq_sched *s, struct nested_bound *nb, int n, int advantage)
{
	const struct kq_node *nd = &s->nodes[n];
	if (nd->is_queue) {
		bound_queue(s, nb, n, advantage);
		return;
	}
	const struct kq_scratch *sc = s->scratch;
	if (sc->anc[n] == sc->anc_stamp) {
		advantage = sc->anc_adv[n]; /* the lowest shared cohort of the queues below it, but
					     * those under the next ancestor (which sets its own) */
	} else if (within_nominal(s, n, nb->contested)) {
		return;
	} else if (nb->budget) { /* its cap from its state before any removal below it, whatever
				  * order its children come in (subtree_pass computes the same) */
		nb->budget[n] = cohort_budget_start(nd, nb->cap_fr, nb->max_job);
	}
	for (size_t k = 0; k < nd->n_children; k++)
		bound_walk(s, nb, nd->children[k], advantage);
}

/* The key of a flat bound with one contested fr: what the attempt may take from
 * the other queues. */
static struct bound_key flat_key(const struct kq_sched *s, const struct kq_wl *pre, int root, int fr,
				 int allow_borrow, int advantage)
{
	const struct kq_queue_cfg *cfg = &s->nodes[pre->queue].cfg;
	struct bound_key k = { .root = root, .fr = fr, .kind = BK_CAPPED, .policy = cfg->reclaim,
			       .prio = pre->priority };
	if (allow_borrow && !advantage && cfg->bwc && cfg->reclaim != KQ_NEVER) {
		k.kind = BK_BWC;
		k.policy = 0;
		k.has_thr = cfg->bwc_has_threshold;
		k.thr = cfg->bwc_has_threshold ? cfg->bwc_threshold : 0;
	} else if (allow_borrow && !advantage) {
		k.policy = KQ_NEVER; /* ReclaimWithoutBorrowing victims are not valid when borrowing */
	}
	return k;
}

/* Does the flat bound of this attempt take nothing from other queues whatever their
 * state (root_take's early answer), so that it reads only the preemptor's own queue
 * and the root's usage? */
static int flat_bound_reads_own_only(const struct kq_sched *s, const struct kq_wl *pre, const uint8_t *contested,
				     int allow_borrow, int advantage)
{
	if ((kq_test_oracle & KQ_ORACLE_BOUND_BOOKED) || !kq_flat_tree(s, pre->queue))
		return 0;
	int one = single_contested(s, contested);
	if (one < 0)
		return 0;
	struct bound_key k = flat_key(s, pre, s->nodes[pre->queue].root, one, allow_borrow, advantage);
	return k.kind != BK_BWC && k.policy == KQ_NEVER;
}

/* ---- nested bounds from kept subtree sums (docs/kueue-rules.md E17) ----
 *
 * In bound_walk every queue below a cohort c that is not an ancestor of the preemptor
 * is reached with the advantage of the lowest ancestor above c, and its removal only
 * lowers usages on its way up: what reaches c's parent is a function of c's subtree
 * (its usages and running sets), the attempt's key (flat_key: the preemptor's
 * priority and policies, whether it borrows, that advantage) and the tree's largest
 * job. It is kept per cohort with the subtree's version (kq_node.sver) and the
 * quota generation, so a bound walks only the ancestors' children and books, at each
 * ancestor, one removal per child subtree. */
enum { KQ_PASS_SLOTS = 4 };
struct pass_memo {
	uint64_t sver, igen; /* the subtree's version and kq_sched.igen it was computed at */
	struct bound_key k;
	sim_qty_t max_job, v;
};

static int key_eq(const struct bound_key *a, const struct bound_key *b)
{
	return a->root == b->root && a->fr == b->fr && a->kind == b->kind && a->policy == b->policy &&
	       a->has_thr == b->has_thr && a->prio == b->prio && a->thr == b->thr;
}

/* The memo slots, KQ_PASS_SLOTS a node, or NULL without memory. */
static struct pass_memo *pass_memos(struct kq_sched *s)
{
	struct kq_scratch *sc = s->scratch;
	size_t need = (s->n_nodes ? s->n_nodes : 1) * KQ_PASS_SLOTS;
	if (sc->cap_pass_memo < need) {
		struct pass_memo *v = realloc(sc->pass_memo, need * sizeof *v);
		if (!v)
			return NULL;
		memset(v, 0, need * sizeof *v); /* igen 0 is never live: all empty */
		sc->pass_memo = v;
		sc->cap_pass_memo = need;
	}
	return sc->pass_memo;
}

/* What the removals of one bound in the subtree of cohort c (no ancestor of the
 * preemptor) pass up to c's parent on k->fr, as bound_walk's bookings would: nothing
 * when c is within its nominal quota (P2's walk does not enter it); else what its
 * queues pass to it (other_take's part: what each stored above its local quota),
 * capped together at c's budget (within_cohort_budget), plus what its cohorts pass,
 * and of that sum what c itself stored in its parent. Kept while c's subtree and
 * the quotas are unchanged. A fair-sharing key (BK_FAIR) has neither the skip nor
 * the cap, as fair_bound_once's walk has neither (docs/kueue-rules.md E21). */
static sim_qty_t subtree_pass(struct kq_sched *s, struct pass_memo *pm, int c, const struct bound_key *k,
			      sim_qty_t max_job)
{
	const struct kq_node *cn = &s->nodes[c];
	int fr = k->fr;
	int fair = k->kind == BK_FAIR;
	if (!fair && !kq_borrowing(s, c, fr))
		return 0;
	struct pass_memo *slot = pm + (size_t)c * KQ_PASS_SLOTS, *stale = NULL;
	for (int i = 0; i < KQ_PASS_SLOTS; i++) {
		struct pass_memo *m = &slot[i];
		if (m->sver != cn->sver || m->igen != s->igen)
			stale = stale ? stale : m;
		else if (m->max_job == max_job && key_eq(&m->k, k))
			return m->v;
	}
	sim_qty_t from_queues = 0, from_cohorts = 0;
	for (size_t i = 0; i < cn->n_children; i++) {
		int ch = cn->children[i];
		if (s->nodes[ch].is_queue)
			from_queues += other_take(&s->nodes[ch], k);
		else
			from_cohorts += subtree_pass(s, pm, ch, k, max_job);
	}
	sim_qty_t budget = cohort_budget_start(cn, fr, max_job);
	if (!fair && from_queues > budget)
		from_queues = budget > 0 ? budget : 0;
	sim_qty_t got = from_queues + from_cohorts, stored = cn->usage[fr] - cn->local[fr];
	sim_qty_t v = stored > 0 ? (got < stored ? got : stored) : 0;
	struct kq_scratch *sc = s->scratch;
	if (!stale)
		stale = &slot[sc->pass_next++ % KQ_PASS_SLOTS];
	*stale = (struct pass_memo){ .sver = cn->sver, .igen = s->igen, .k = *k, .max_job = max_job, .v = v };
	return v;
}

/* bound_walk from ancestor n down, with one contested fr (cap_fr) and cohort caps:
 * its queues as bound_queue takes them, its ancestor child walked the same way, and
 * each other cohort child's subtree_pass booked as one removal at n. */
static void bound_walk_kept(struct kq_sched *s, struct nested_bound *nb, struct pass_memo *pm, int n)
{
	const struct kq_node *nd = &s->nodes[n];
	const struct kq_scratch *sc = s->scratch;
	int advantage = sc->anc_adv[n];
	struct bound_key k = flat_key(s, nb->pre, nd->root, nb->cap_fr, nb->allow_borrow, advantage);
	int takes_none = k.kind != BK_BWC && k.policy == KQ_NEVER; /* from any other queue */
	for (size_t i = 0; i < nd->n_children; i++) {
		int c = nd->children[i];
		if (s->nodes[c].is_queue) {
			bound_queue(s, nb, c, advantage);
		} else if (sc->anc[c] == sc->anc_stamp) {
			bound_walk_kept(s, nb, pm, c);
		} else if (!takes_none) {
			sim_qty_t v = subtree_pass(s, pm, c, &k, nb->max_job);
			if (v > 0)
				bound_take(s, nb->b, n, nb->cap_fr, v);
		}
	}
}

/* attempt_bound_once booked: a tree that is not flat (or a flat one under the oracle). */
static sim_qty_t booked_bound(struct kq_sched *s, const struct kq_wl *pre, const int16_t *flavor,
			      const uint8_t *contested, int allow_borrow, int advantage, int fast,
			      struct bound_acc *b)
{
	struct nested_bound nb = { .pre = pre, .contested = contested, .allow_borrow = allow_borrow, .b = b };
	nb.anc = b->flat ? NULL : mark_ancestors(s, pre->queue);
	if (nb.anc && mark_advantages(s, pre, flavor))
		nb.anc = NULL; /* no memory: the walk below, each queue with the caller's advantage */
	int capped = nb.anc ? single_contested(s, contested) : -1; /* the fr of cohort caps, or -1 */
	nb.budget = capped >= 0 ? cohort_budgets(s) : NULL;
	nb.cap_fr = capped;
	nb.max_job = nb.budget ? largest_job(s, b->root, capped) : 0;
	/* E17 (a queue without a cohort is its own root: walked) */
	int kept = nb.budget && fast && !(kq_test_oracle & KQ_ORACLE_BOUND_BOOKED) &&
		   s->nodes[pre->queue].parent >= 0;
	struct pass_memo *pm = kept ? pass_memos(s) : NULL;
	if (pm) {
		bound_walk_kept(s, &nb, pm, b->root);
	} else if (nb.anc) {
		bound_walk(s, &nb, b->root, advantage);
	} else {
		int has_parent = s->nodes[pre->queue].parent >= 0;
		const int32_t *nodes;
		size_t n_nodes;
		bound_nodes(s, b, &nodes, &n_nodes);
		for (size_t k = 0; k < n_nodes; k++) {
			int i = nodes ? nodes[k] : (int)k;
			const struct kq_node *o = &s->nodes[i];
			if (o->is_queue && (i == pre->queue || (o->root == b->root && has_parent)))
				bound_queue(s, &nb, i, advantage);
		}
	}
	return bound_end(s, b, pre, flavor, allow_borrow);
}

/* One attempt's bound as a shortfall (bound_end's): <= 0 when victims might make room.
 * fast 0: the plain computation (bookings, every queue walked), the tests' oracle. */
static sim_qty_t attempt_bound_once(struct kq_sched *s, const struct kq_wl *pre, const int16_t *flavor,
				    const uint8_t *contested, int allow_borrow, int advantage, int fast)
{
	struct bound_acc b;
	if (bound_begin(s, pre, fast, &b))
		return 0; /* no bound: search in full */
	const struct kq_queue_cfg *cfg = &s->nodes[pre->queue].cfg;
	int one = b.flat ? single_contested(s, contested) : -1;
	if (one >= 0) {
		struct bound_key k = flat_key(s, pre, b.root, one, allow_borrow, advantage);
		return flat_bound_by_sums(s, &b, pre, flavor, one, &k, cfg->within, allow_borrow);
	}
	s->sver_hold = 1; /* the bookings below are undone by bound_end */
	sim_qty_t sh = booked_bound(s, pre, flavor, contested, allow_borrow, advantage, fast, &b);
	s->sver_hold = 0;
	return sh;
}

int kq_test_bound_checks, kq_test_bound_mismatches, kq_test_bound_refusals;

/* Under KQ_ORACLE_CHECK_BOUNDS (tests) a bound is computed both ways and a
 * difference counted. */
static int check_bound(int fast, int booked)
{
	kq_test_bound_checks++;
	kq_test_bound_mismatches += fast != booked;
	return fast;
}

/* attempt_bound_once's shortfall; the tests' check compares the fit both ways. */
static sim_qty_t attempt_bound_short(struct kq_sched *s, const struct kq_wl *pre, const int16_t *flavor,
				     const uint8_t *contested, int allow_borrow, int advantage)
{
	sim_qty_t sh = attempt_bound_once(s, pre, flavor, contested, allow_borrow, advantage, 1);
	if (kq_test_oracle & KQ_ORACLE_CHECK_BOUNDS)
		check_bound(sh <= 0, attempt_bound_once(s, pre, flavor, contested, allow_borrow, advantage, 0) <= 0);
	return sh;
}

/* A bound before any job is looked at, per attempt (the one that may borrow takes
 * no ReclaimWithoutBorrowing victim; the one that may not must end within the
 * queue's own quota): from the preemptor's queue all its policy allows, from every
 * queue of its tree now over quota what the policy allows up to its excess plus
 * its largest job, in aggregate. If neither attempt fits then, no victim set
 * exists. O(queues). */
static int hopeless_classical(struct kq_sched *s, const struct kq_wl *pre, const int16_t *flavor,
			      const uint8_t *contested)
{
	const struct kq_node *q = &s->nodes[pre->queue];
	int advantage = 1; /* it would fit its own quota: hierarchy candidates are possible */
	for (int r = 0; r < s->n_res; r++)
		if (pre->req[r] > 0 && flavor[r] >= 0) {
			int fr = kq_fr(s, flavor[r], r);
			if (q->usage[fr] + pre->req[r] > q->subtree[fr])
				advantage = 0;
		}
	if (s->n_nodes && (q->parent >= 0 && s->nodes[q->parent].parent >= 0))
		advantage = 1; /* nested cohorts: the bound's walk finds the advantage of each
				* level (mark_advantages); 1 is for its fallback without memory */
	sim_qty_t with_borrow = attempt_bound_short(s, pre, flavor, contested, 1, advantage);
	if (with_borrow <= 0)
		return 0;
	sim_qty_t without = attempt_bound_short(s, pre, flavor, contested, 0, advantage);
	if (without <= 0)
		return 0;
	int fr = -1; /* the request's one flavor-resource (mono nominations ask for one) */
	for (int r = 0; r < s->n_res; r++)
		if (pre->req[r] > 0 && flavor[r] >= 0)
			fr = fr == -1 ? kq_fr(s, flavor[r], r) : -2;
	kq_note_shortfall(s, fr, with_borrow < without ? with_borrow : without);
	if (kq_test_oracle & KQ_ORACLE_CHECK_BOUNDS)
		kq_test_bound_refusals++;
	/* E16: the attempt without borrowing fails on the queue's own quota, and the
	 * one with borrowing takes only from the queue itself: other queues were not
	 * read, only the root's usage. */
	if (without < KQ_SHORT_INF || !flat_bound_reads_own_only(s, pre, contested, 1, advantage))
		s->nom_own = 0;
	return 1;
}

/* ---- classical search as a lazy merge (docs/kueue-rules.md E9) ----
 *
 * The candidates of a group (hierarchy, priority, own queue) come from a few source
 * queues, each of whose priority-band lists is already in candidate order (E3). A
 * binary heap of the sources, keyed by each one's next candidate, yields the group in
 * order without collecting or sorting it; a source whose next candidate is not valid
 * is dropped whole, since none of its later ones can be: validity only shrinks while
 * an attempt removes victims, and a later candidate of the same queue has the same
 * validity test or (borrow_within_cohort) a priority no lower. */

enum { CG_HIER = 0, CG_PRIO, CG_SAME }; /* candidate groups, in attempt order */

struct cl_src {
	int queue, lca;       /* lca: the cohort where the search found it (-1: own queue) */
	uint8_t group, advantage;
	size_t band;          /* walk position: band index and the next workload to look at */
	struct kq_wl *at;
};

struct cl_bufs {
	size_t n_nodes, n_fr; /* the arrays' lengths */
	struct cl_src *src;   /* n_nodes */
	int *heap;            /* n_nodes source indices */
	sim_qty_t *remaining; /* n_fr */
	uint8_t *requested;   /* n_fr */
};

struct cl_lazy {
	struct classical_ctx *x;
	struct cl_bufs *b;
	size_t n_src;
};

static struct cl_bufs *cl_bufs_get(struct kq_sched *s)
{
	struct kq_scratch *sc = kq_scratch_get(s);
	if (!sc)
		return NULL;
	struct cl_bufs *b = sc->classical;
	if (!b && !(b = sc->classical = calloc(1, sizeof *b)))
		return NULL;
	size_t nn = s->n_nodes ? s->n_nodes : 1, nf = (size_t)(s->n_fr ? s->n_fr : 1);
	if (b->n_nodes < nn || b->n_fr < nf) {
		struct cl_src *src = malloc(nn * sizeof *src);
		int *heap = malloc(nn * sizeof *heap);
		sim_qty_t *rem = malloc(nf * (sizeof *rem + 1));
		if (!src || !heap || !rem) {
			free(src);
			free(heap);
			free(rem);
			return NULL;
		}
		free(b->src);
		free(b->heap);
		free(b->remaining);
		b->src = src;
		b->heap = heap;
		b->remaining = rem;
		b->requested = (uint8_t *)(rem + nf);
		b->n_nodes = nn;
		b->n_fr = nf;
	}
	return b;
}

static void cl_bufs_free(struct cl_bufs *b)
{
	if (!b)
		return;
	free(b->src);
	free(b->heap);
	free(b->remaining);
	free(b);
}

static void add_source(struct cl_lazy *l, int queue, int lca, int group, int advantage)
{
	l->b->src[l->n_src++] = (struct cl_src){ queue, lca, (uint8_t)group, (uint8_t)advantage, 0, NULL };
}

/* collect_in_subtree's walk, recording source queues instead of their jobs. */
static void sources_in_subtree(struct cl_lazy *l, int cohort, int lca, int skip, int advantage)
{
	const struct classical_ctx *x = l->x;
	const struct kq_node *n = &x->s->nodes[cohort];
	for (size_t k = 0; k < n->n_children; k++) {
		int ch = n->children[k];
		if (ch == skip || ch == x->pre->queue || within_nominal(x->s, ch, x->contested))
			continue;
		if (x->s->nodes[ch].is_queue)
			add_source(l, ch, lca, advantage ? CG_HIER : CG_PRIO, advantage);
		else
			sources_in_subtree(l, ch, lca, skip, advantage);
	}
}

/* collect_classical's walk, recording sources. */
static void find_sources(struct cl_lazy *l)
{
	const struct classical_ctx *x = l->x;
	const struct kq_sched *s = x->s;
	const struct kq_node *q = &s->nodes[x->pre->queue];
	l->n_src = 0;
	if (q->cfg.within != KQ_NEVER)
		add_source(l, x->pre->queue, -1, CG_SAME, 0);
	if (q->parent < 0 || q->cfg.reclaim == KQ_NEVER)
		return;
	sim_qty_t *remaining = l->b->remaining;
	uint8_t *requested = l->b->requested;
	request_fr(s, x->pre, x->flavor, remaining);
	for (int fr = 0; fr < s->n_fr; fr++)
		requested[fr] = remaining[fr] > 0;
	int advantage = fits_in_node_quota(s, x->pre->queue, remaining, requested);
	int prev = -1;
	for (int cur = q->parent; cur >= 0; prev = cur, cur = s->nodes[cur].parent) {
		sources_in_subtree(l, cur, cur, prev, advantage);
		advantage = fits_in_node_quota(s, cur, remaining, requested) || advantage;
	}
}

/* May the policy for source sc take a job of priority prio (band_allowed)? */
static int src_band_ok(const struct classical_ctx *x, const struct cl_src *sc, int32_t prio)
{
	const struct kq_queue_cfg *cfg = &x->s->nodes[x->pre->queue].cfg;
	return band_allowed(sc->group == CG_SAME ? cfg->within : cfg->reclaim, prio, x->pre);
}

/* Moves source sc's walk to its next candidate (collect_from_queue's tests) and
 * returns it, or NULL when it has none left. */
static struct kq_wl *src_peek(const struct classical_ctx *x, struct cl_src *sc)
{
	const struct kq_node *q = &x->s->nodes[sc->queue];
	for (;;) {
		struct kq_wl *w = sc->at;
		if (w) {
			if (uses_contested(x->s, w, x->contested) && !protected_now(x->s, w, x->now) &&
			    classify(x, w, sc->advantage))
				return w;
			sc->at = w->run_next;
			continue;
		}
		if (sc->band + 1 < q->n_bands && src_band_ok(x, sc, q->bands[sc->band + 1].prio)) {
			sc->at = q->bands[++sc->band].head;
			continue;
		}
		return NULL;
	}
}

static void src_start(const struct classical_ctx *x, struct cl_src *sc)
{
	const struct kq_node *q = &x->s->nodes[sc->queue];
	sc->band = 0;
	sc->at = q->n_bands && src_band_ok(x, sc, q->bands[0].prio) ? q->bands[0].head : NULL;
}

/* Candidate order across queues of one group (cand_cmp without the parts that are
 * the same within a group): lower priority, then most recently admitted, then tie. */
static int src_before(const struct cl_lazy *l, int a, int b)
{
	const struct kq_wl *wa = l->b->src[a].at, *wb = l->b->src[b].at;
	if (wa->priority != wb->priority)
		return wa->priority < wb->priority;
	if (wa->admitted != wb->admitted)
		return wa->admitted > wb->admitted;
	return wa->tie < wb->tie;
}

static void src_sift(const struct cl_lazy *l, int *h, size_t n, size_t i)
{
	for (;;) {
		size_t c = 2 * i + 1, m = i;
		if (c < n && src_before(l, h[c], h[m]))
			m = c;
		if (c + 1 < n && src_before(l, h[c + 1], h[m]))
			m = c + 1;
		if (m == i)
			return;
		int t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* Does group g have a candidate (the walks start over)? */
static int group_has(struct cl_lazy *l, int g)
{
	for (size_t i = 0; i < l->n_src; i++) {
		struct cl_src *sc = &l->b->src[i];
		if (sc->group != g)
			continue;
		src_start(l->x, sc);
		if (src_peek(l->x, sc))
			return 1;
	}
	return 0;
}

/* cand_valid for the next candidate w of source sc. */
static int src_valid(const struct classical_ctx *x, const struct cl_src *sc, const struct kq_wl *w, int allow_borrow)
{
	struct cand c = { (struct kq_wl *)w, sc->lca, classify(x, w, sc->advantage), 0, 0 };
	return cand_valid(x, &c, allow_borrow);
}

/* classical_attempt over the lazy merge: the same victims in the same order. */
static int lazy_attempt(struct cl_lazy *l, int allow_borrow, struct kq_targets *out)
{
	struct classical_ctx *x = l->x;
	int *h = l->b->heap;
	out->n = 0;
	for (int g = CG_HIER; g <= CG_SAME; g++) {
		size_t n = 0;
		for (size_t i = 0; i < l->n_src; i++) {
			struct cl_src *sc = &l->b->src[i];
			if (sc->group != g)
				continue;
			src_start(x, sc);
			/* A source whose first candidate is not valid now would be dropped whole
			 * when popped (validity only shrinks as victims go): it never enters. */
			if (src_peek(x, sc) && src_valid(x, sc, sc->at, allow_borrow))
				h[n++] = (int)i;
		}
		for (size_t i = n / 2; i-- > 0;)
			src_sift(l, h, n, i);
		while (n) {
			struct cl_src *sc = &l->b->src[h[0]];
			struct kq_wl *w = sc->at;
			if (!src_valid(x, sc, w, allow_borrow)) {
				h[0] = h[--n]; /* none of its later candidates is valid either */
				src_sift(l, h, n, 0);
				continue;
			}
			kq_unbook_running(x->s, w);
			if (kq_targets_push(out, w, x->pre, variant_reason(classify(x, w, sc->advantage)))) {
				kq_rebook_running(x->s, w);
				rebook_all(x->s, out);
				out->n = 0;
				return -SIM_ENOMEM;
			}
			if (kq_fits_quota(x->s, x->pre, x->flavor, allow_borrow)) {
				fill_back(x->s, x->pre, x->flavor, allow_borrow, out);
				rebook_all(x->s, out);
				return 1;
			}
			sc->at = w->run_next;
			if (src_peek(x, sc))
				src_sift(l, h, n, 0);
			else {
				h[0] = h[--n];
				src_sift(l, h, n, 0);
			}
		}
	}
	rebook_all(x->s, out);
	out->n = 0;
	return 0;
}

/* Can the lazy merge stand in for collecting? Not for checkpoint-aware preemptors
 * (their order depends on the time) nor when a source holds evicted workloads (they
 * form groups of their own, first); nor under the oracle. */
static int lazy_applies(const struct cl_lazy *l)
{
	if ((kq_test_oracle & KQ_ORACLE_SCAN) || l->x->s->nodes[l->x->pre->queue].cfg.checkpoint_aware)
		return 0;
	for (size_t i = 0; i < l->n_src; i++)
		if (l->x->s->nodes[l->b->src[i].queue].n_evicted)
			return 0;
	return 1;
}

/* The attempts of classical_targets, in its order, over the lazy merge. */
static int lazy_classical(struct cl_lazy *l, struct kq_targets *out)
{
	struct classical_ctx *x = l->x;
	const struct kq_queue_cfg *cfg = &x->s->nodes[x->pre->queue].cfg;
	int bwc_forbidden = !cfg->bwc;
	int has_hier = group_has(l, CG_HIER), has_prio = group_has(l, CG_PRIO);
	int attempts[2], n_att;
	if ((!has_hier && !has_prio) || (bwc_forbidden && !strictly_under_nominal(x->s, x->pre->queue, x->contested))) {
		attempts[0] = 1;
		n_att = 1;
	} else if (bwc_forbidden && !has_hier) {
		attempts[0] = 0;
		attempts[1] = 1;
		n_att = 2;
	} else {
		attempts[0] = 1;
		attempts[1] = 0;
		n_att = 2;
	}
	int rc = 0;
	for (int a = 0; a < n_att && !rc; a++)
		rc = lazy_attempt(l, attempts[a], out);
	return rc < 0 ? rc : 0;
}

static int classical_targets(struct kq_sched *s, struct kq_wl *pre, const int16_t *flavor,
			     const uint8_t *contested, sim_time_t now, struct kq_targets *out)
{
	if (!(kq_test_oracle & KQ_ORACLE_CLASSICAL_BOUND) && hopeless_classical(s, pre, flavor, contested))
		return 0; /* by the bound: a monotone answer (E13) if the nomination is one */
	s->nom_mono = 0; /* a victim search decides: candidates may appear with any admission */
	struct classical_ctx x = { .s = s, .pre = pre, .flavor = flavor, .contested = contested, .now = now };
	struct cl_lazy lazy = { &x, cl_bufs_get(s), 0 };
	if (!lazy.b)
		return -SIM_ENOMEM;
	find_sources(&lazy);
	if (lazy_applies(&lazy))
		return lazy_classical(&lazy, out);
	struct cands all = { 0 };
	struct cands *const lists[3] = { &x.hier, &x.prio, &x.same };
	int rc = collect_classical(&x);
	if (!rc && !attempt_feasible(&x, lists, 1) && !attempt_feasible(&x, lists, 0))
		goto out; /* no victims can make room: no candidates */
	size_t seg[CAND_GROUPS + 1];
	if (!rc) {
		cmp_preemptor_queue = pre->queue; /* the ordering's context (cand_cmp) */
		cmp_ckpt_aware = s->nodes[pre->queue].cfg.checkpoint_aware;
		rc = concat_candidates(&x, &all, seg);
	}
	if (!rc) {
		const struct kq_queue_cfg *cfg = &s->nodes[pre->queue].cfg;
		int bwc_forbidden = !cfg->bwc;
		int attempts[2], n_att;
		if ((x.hier.n == 0 && x.prio.n == 0) ||
		    (bwc_forbidden && !strictly_under_nominal(s, pre->queue, contested))) {
			attempts[0] = 1;
			n_att = 1;
		} else if (bwc_forbidden && x.hier.n == 0) {
			attempts[0] = 0;
			attempts[1] = 1;
			n_att = 2;
		} else {
			attempts[0] = 1;
			attempts[1] = 0;
			n_att = 2;
		}
		for (int a = 0; a < n_att; a++) {
			rc = classical_attempt(&x, all.v, seg, attempts[a], out);
			if (rc)
				break;
		}
		rc = rc < 0 ? rc : 0;
	}
out:
	free(all.v);
	free(x.hier.v);
	free(x.prio.v);
	free(x.same.v);
	return rc;
}

/* ---- fair sharing (fair_strategy.go, fairsharing/ordering.go) ---- */

struct share {
	double v, unweighted; /* v = INFINITY for a weight-0 borrower */
};

static struct share node_share(const struct kq_sched *s, int node)
{
	struct share sh;
	sh.v = kq_drs(s, node, NULL, &sh.unweighted);
	return sh;
}

/* a < b, or a <= b; two infinite shares compare unweighted (docs/kueue-rules.md S4). */
static int share_lt(struct share a, struct share b, int or_equal)
{
	if (isinf(a.v) && isinf(b.v))
		return or_equal ? a.unweighted <= b.unweighted : a.unweighted < b.unweighted;
	return or_equal ? a.v <= b.v : a.v < b.v;
}

/* A child in next_target's order: its share when the order was made, its node and
 * its place among its cohort's children (equal shares go to the first). */
struct nt_ent {
	struct share sh;
	int32_t node, pos;
};

struct fair_ctx {
	struct kq_sched *s;
	struct kq_wl *pre;
	const int16_t *flavor;
	const uint8_t *contested;
	sim_time_t now;
	/* The candidates, collected a queue at a time when the search first asks about
	 * that queue, and made a heap when it is first popped: the search looks at few
	 * queues and takes few jobs of each, and sorting every candidate of the tree
	 * for each search was most of fair sharing's cost. (The oracle,
	 * KQ_ORACLE_SCAN, collects and sorts every candidate up front and scans.) */
	struct cands cand;
	size_t *first;         /* per node: FQ_COLLECTED/FQ_HEAP: start of its run in cand;
				* FQ_LINKED: index of its next candidate, or SIZE_MAX */
	size_t *left;          /* per node, FQ_COLLECTED/FQ_HEAP: candidates left in its run */
	size_t *next;          /* FQ_LINKED, per candidate: the next of its queue, or SIZE_MAX */
	size_t cap_next;
	/* FQ_LIST, per node: where the walk of its priority bands' lists stands */
	size_t *band;          /* band index */
	struct kq_wl **at;     /* next workload to look at in that band (NULL: band done) */
	uint8_t *phase;        /* 0: evicted workloads only (a first walk), 1: the others */
	uint8_t *in_retry;     /* per node: retry holds a candidate of this queue */
	int second_pass;       /* the second pass (LessThanInitialShare, S3) runs after the first */
	uint8_t *state;        /* per node: FQ_* */
	uint8_t *pruned;       /* per node */
	uint8_t *on_path;      /* per node: ancestors of the preemptor's queue */
	/* Per cohort: drained by the first pass without a look at its queues (E27,
	 * drain_subtree); any_deferred: some cohort is. */
	uint8_t *deferred;
	int any_deferred;
	/* Per cohort, next_target's order of its children (E19): a heap of its queue
	 * children and one of its cohort children by share, current while nt_ok (no share
	 * below it changed since: fair_take ends it along the victim's path). A cohort's
	 * heaps lie in nt_heap from nt_off (UINT32_MAX: none yet in this search), the
	 * queues' nt_nq entries there and the cohorts' nt_nc entries from nt_cb past it. */
	uint8_t *nt_ok;
	uint32_t *nt_off, *nt_nq, *nt_nc, *nt_cb;
	uint32_t *nt_at;       /* per node in its parent's heaps: its index there (UINT32_MAX: not in one) */
	struct nt_ent *nt_heap;
	size_t nt_used;
	int root;
	struct kq_targets *out;
	int done;              /* fits: stop */
	int oom;               /* a lazy collection ran out of memory: the search fails */
	int allow_borrow;
};

enum { /* fair_ctx.state of a node */
	FQ_UNDECIDED = 0, /* not looked at yet: fair_source decides at its first use */
	FQ_NONE,       /* not a source of candidates in this search (or none left) */
	FQ_ELIGIBLE,   /* a source, its jobs not looked at yet */
	FQ_COLLECTED,  /* its candidates are one run of cand, unordered */
	FQ_HEAP,       /* ... a binary heap in candidate order, `left` entries */
	FQ_LINKED,     /* second pass: threaded through next[] in candidate order */
	FQ_LIST,       /* walked lazily in the queue's band lists (already in order) */
	FQ_ONE,        /* second pass, below a deferred drain: at[] is its one candidate (or NULL) */
};

/* Is queue qi a source of candidates for this search? As Kueue collects once up front,
 * on the usage when the search starts (a target taken back within its nominal quota
 * during the search stays a source). It is decided at the queue's first use instead
 * (fair_decide), which reads the same: what it reads of qi (its running set and its
 * own usage) changes in a search only by taking qi's own jobs, after its first use. */
static int fair_source_of(const struct kq_sched *s, const struct kq_wl *pre, const uint8_t *contested, int qi)
{
	const struct kq_node *q = &s->nodes[qi];
	const struct kq_queue_cfg *cfg = &s->nodes[pre->queue].cfg;
	if (!q->is_queue || !q->n_running)
		return 0;
	if (qi == pre->queue)
		return cfg->within != KQ_NEVER;
	return q->root == s->nodes[pre->queue].root && q->parent >= 0 && cfg->reclaim != KQ_NEVER &&
	       !within_nominal(s, qi, contested);
}

static int fair_source(const struct fair_ctx *x, int qi)
{
	return fair_source_of(x->s, x->pre, x->contested, qi);
}

/* Decides qi's state at its first use in the search. */
static void fair_decide(struct fair_ctx *x, int qi)
{
	if (x->state[qi] == FQ_UNDECIDED)
		x->state[qi] = fair_source(x, qi) ? FQ_ELIGIBLE : FQ_NONE;
}

/* Is any queue a source? Stops at the first (the others are decided when used). */
static int any_source(struct fair_ctx *x)
{
	for (size_t qi = 0; qi < x->s->n_nodes; qi++) {
		fair_decide(x, (int)qi);
		if (x->state[qi] == FQ_ELIGIBLE)
			return 1;
	}
	return 0;
}

/* Appends queue qi's candidates (unsorted) to x->cand. */
static int collect_queue(struct fair_ctx *x, int qi)
{
	struct kq_sched *s = x->s;
	const struct kq_node *q = &s->nodes[qi];
	const struct kq_queue_cfg *cfg = &s->nodes[x->pre->queue].cfg;
	int own = qi == x->pre->queue;
	for (size_t k = 0; k < q->n_running; k++) {
		struct kq_wl *c = q->running[k];
		if (!uses_contested(s, c, x->contested) || protected_now(s, c, x->now))
			continue;
		if (!policy_allows(own ? cfg->within : cfg->reclaim, x->pre, c))
			continue;
		if (cands_push(&x->cand, c, -1, own ? V_WITHIN_CQ : V_HIERARCHY, lost_work(c, x->now)))
			return -SIM_ENOMEM;
	}
	return 0;
}

/* The oracle's collection: every source's candidates, sorted together. */
static int fair_collect(struct fair_ctx *x)
{
	struct kq_sched *s = x->s;
	for (size_t qi = 0; qi < s->n_nodes; qi++)
		if (fair_source(x, (int)qi) && collect_queue(x, (int)qi))
			return -SIM_ENOMEM;
	sort_cands(x->cand.v, x->cand.n, x->pre, s);
	return 0;
}

/* Threads x->cand (in its order) into one list per queue: first[queue] is the
 * queue's next candidate, next[i] the one after candidate i (FQ_LINKED). */
static int index_by_queue(struct fair_ctx *x)
{
	size_t n = x->cand.n;
	if (n > x->cap_next) {
		size_t *nx = realloc(x->next, n * sizeof *nx);
		if (!nx)
			return -SIM_ENOMEM;
		x->next = nx;
		x->cap_next = n;
	}
	/* Every node none yet, as two fills (SIZE_MAX is all ones): once a search, over
	 * every node of the tree. */
	memset(x->first, 0xff, x->s->n_nodes * sizeof *x->first);
	memset(x->state, FQ_LINKED, x->s->n_nodes);
	for (size_t i = n; i-- > 0;) {
		int q = x->cand.v[i].wl->queue;
		x->next[i] = x->first[q];
		x->first[q] = i;
	}
	return 0;
}

static void set_cmp_context(const struct kq_wl *pre, const struct kq_sched *s)
{
	cmp_preemptor_queue = pre->queue;
	cmp_ckpt_aware = s->nodes[pre->queue].cfg.checkpoint_aware;
}

/* Is w, met in the walk of queue qi's lists, a candidate (the tests of collect_queue,
 * plus the walk's phase: evicted workloads come first)? */
static int list_candidate(const struct fair_ctx *x, int qi, const struct kq_wl *w)
{
	const struct kq_sched *s = x->s;
	const struct kq_queue_cfg *cfg = &s->nodes[x->pre->queue].cfg;
	if ((w->evicted != 0) != (x->phase[qi] == 0))
		return 0;
	if (!uses_contested(s, w, x->contested) || protected_now(s, w, x->now))
		return 0;
	return policy_allows(qi == x->pre->queue ? cfg->within : cfg->reclaim, x->pre, w);
}

/* Queue qi's next candidate in the walk, the walk left on it; NULL when none is left.
 * The bands are in ascending priority and each list most recently admitted first:
 * the walk meets the queue's candidates in candidate order (cand_cmp within one
 * queue, checkpoint-unaware), evicted ones in a first walk when there are any. */
/* May the policy that applies to queue qi take a job of priority prio (band_allowed)? */
static int band_may_hold(const struct fair_ctx *x, int qi, int32_t prio)
{
	const struct kq_queue_cfg *cfg = &x->s->nodes[x->pre->queue].cfg;
	return band_allowed(qi == x->pre->queue ? cfg->within : cfg->reclaim, prio, x->pre);
}

/* The head of band b of queue qi for the walk, or NULL when that band (and so every
 * later one) holds no job the policy allows. */
static struct kq_wl *band_entry(const struct fair_ctx *x, int qi, size_t b)
{
	const struct kq_node *q = &x->s->nodes[qi];
	if (b >= q->n_bands || !band_may_hold(x, qi, q->bands[b].prio))
		return NULL;
	return q->bands[b].head;
}

static struct kq_wl *list_peek(struct fair_ctx *x, int qi)
{
	const struct kq_node *q = &x->s->nodes[qi];
	for (;;) {
		struct kq_wl *w = x->at[qi];
		if (w) {
			if (list_candidate(x, qi, w))
				return w;
			x->at[qi] = w->run_next;
			continue;
		}
		size_t b = x->band[qi];
		if (b + 1 < q->n_bands && band_may_hold(x, qi, q->bands[b + 1].prio)) {
			x->band[qi] = b + 1;
			x->at[qi] = q->bands[b + 1].head;
			continue;
		}
		if (x->phase[qi] == 0) {
			x->phase[qi] = 1;
			x->band[qi] = 0;
			x->at[qi] = band_entry(x, qi, 0);
			continue;
		}
		return NULL;
	}
}

static void list_start(struct fair_ctx *x, int qi)
{
	const struct kq_node *q = &x->s->nodes[qi];
	x->phase[qi] = q->n_evicted ? 0 : 1;
	x->band[qi] = 0;
	x->at[qi] = band_entry(x, qi, 0);
	x->state[qi] = FQ_LIST;
}

/* Collects queue qi's candidates on first use; with `heap`, orders them as a heap
 * too. A checkpoint-unaware preemptor walks the queue's lists instead (no
 * collection). On no memory the queue offers none and x->oom is set. */
static void fair_prepare(struct fair_ctx *x, int qi, int heap)
{
	fair_decide(x, qi);
	if (x->state[qi] == FQ_ELIGIBLE && !x->s->nodes[x->pre->queue].cfg.checkpoint_aware) {
		list_start(x, qi);
		return;
	}
	if (x->state[qi] == FQ_ELIGIBLE) {
		size_t start = x->cand.n;
		if (collect_queue(x, qi)) {
			x->oom = 1;
			x->cand.n = start;
			x->state[qi] = FQ_NONE;
			return;
		}
		x->first[qi] = start;
		x->left[qi] = x->cand.n - start;
		x->state[qi] = FQ_COLLECTED;
	}
	if (heap && x->state[qi] == FQ_COLLECTED) {
		struct cand *v = &x->cand.v[x->first[qi]];
		size_t n = x->left[qi];
		set_cmp_context(x->pre, x->s);
		for (size_t i = n / 2; i-- > 0;)
			cand_sift(v, n, i);
		x->state[qi] = FQ_HEAP;
	}
}

/* The oracle (KQ_ORACLE_SCAN): the first untaken candidate of queue qi, by a
 * scan of all of them. SIZE_MAX if none. */
static size_t scan_cand(const struct fair_ctx *x, int qi)
{
	for (size_t i = 0; i < x->cand.n; i++)
		if (x->cand.v[i].wl && x->cand.v[i].wl->queue == qi)
			return i;
	return SIZE_MAX;
}

/* Does a cohort above queue qi have its drain deferred (E27)? */
static int below_deferred(const struct fair_ctx *x, int qi)
{
	for (int n = x->s->nodes[qi].parent; n >= 0; n = x->s->nodes[n].parent)
		if (x->deferred[n])
			return 1;
	return 0;
}

/* In the second pass, queue qi below a cohort whose drain the first pass deferred
 * (E27) gets now the one candidate that drain would have kept for it: its first,
 * as queue_has_cand and pop_cand would have found it then. Nothing it reads has
 * changed since: no job below that cohort was looked at or taken in the search. */
static void settle_deferred(struct fair_ctx *x, int qi)
{
	if (!x->any_deferred || x->state[qi] != FQ_LINKED || x->first[qi] != SIZE_MAX || !below_deferred(x, qi))
		return;
	x->state[qi] = FQ_UNDECIDED;
	fair_decide(x, qi);
	struct kq_wl *w = NULL;
	if (x->state[qi] == FQ_ELIGIBLE) {
		list_start(x, qi);
		w = list_peek(x, qi);
	}
	x->at[qi] = w;
	x->state[qi] = FQ_ONE;
}

static int queue_has_cand(struct fair_ctx *x, int qi)
{
	if (kq_test_oracle & KQ_ORACLE_SCAN)
		return scan_cand(x, qi) != SIZE_MAX;
	settle_deferred(x, qi);
	fair_prepare(x, qi, 0);
	switch (x->state[qi]) {
	case FQ_ONE:
		return x->at[qi] != NULL;
	case FQ_LIST:
		return list_peek(x, qi) != NULL;
	case FQ_COLLECTED:
	case FQ_HEAP:
		return x->left[qi] > 0;
	case FQ_LINKED:
		return x->first[qi] != SIZE_MAX;
	default:
		return 0;
	}
}

/* Takes queue qi's next candidate in order (NULL when it has none left). */
static struct kq_wl *pop_cand(struct fair_ctx *x, int qi)
{
	if (kq_test_oracle & KQ_ORACLE_SCAN) {
		size_t k = scan_cand(x, qi);
		struct kq_wl *w = k == SIZE_MAX ? NULL : x->cand.v[k].wl;
		if (w)
			x->cand.v[k].wl = NULL;
		return w;
	}
	settle_deferred(x, qi);
	fair_prepare(x, qi, 1);
	if (x->state[qi] == FQ_ONE) {
		struct kq_wl *w = x->at[qi];
		x->at[qi] = NULL;
		return w;
	}
	if (x->state[qi] == FQ_LIST) {
		struct kq_wl *w = list_peek(x, qi);
		if (w)
			x->at[qi] = w->run_next;
		return w;
	}
	if (x->state[qi] == FQ_HEAP) {
		if (!x->left[qi])
			return NULL;
		set_cmp_context(x->pre, x->s);
		struct cand *c = cand_pop(&x->cand.v[x->first[qi]], x->left[qi]--);
		struct kq_wl *w = c->wl;
		c->wl = NULL;
		return w;
	}
	if (x->state[qi] != FQ_LINKED || x->first[qi] == SIZE_MAX)
		return NULL;
	size_t i = x->first[qi];
	struct kq_wl *w = x->cand.v[i].wl;
	x->cand.v[i].wl = NULL;
	x->first[qi] = x->next[i];
	return w;
}

/* nextTarget: from `cohort`, the child with the highest share among borrowing
 * queues with candidates (and the preemptor's own queue), and cohorts that borrow
 * or lie on the preemptor's path; a cohort wins a tie against a queue; among
 * equal children the first by name. Returns a queue index, or -1 after pruning.
 * This scan of every child is the oracle's (KQ_ORACLE_SCAN); next_target keeps
 * each cohort's children in order instead (E19). */
static int next_target_scan(struct fair_ctx *x, int cohort)
{
	struct kq_sched *s = x->s;
	const struct kq_node *n = &s->nodes[cohort];
	int best_q = -1, best_c = -1;
	struct share bq = { -1, -1 }, bc = { -1, -1 };
	for (size_t k = 0; k < n->n_children; k++) {
		int ch = n->children[k];
		if (x->pruned[ch])
			continue;
		struct share sh = node_share(s, ch);
		if (s->nodes[ch].is_queue) {
			if ((sh.v == 0 && ch != x->pre->queue) || !queue_has_cand(x, ch)) {
				x->pruned[ch] = 1;
			} else if (best_q < 0 || share_lt(bq, sh, 0)) {
				bq = sh;
				best_q = ch;
			}
		} else {
			if (sh.v == 0 && !x->on_path[ch]) {
				x->pruned[ch] = 1;
			} else if (best_c < 0 || share_lt(bc, sh, 0)) {
				bc = sh;
				best_c = ch;
			}
		}
	}
	if (best_q < 0 && best_c < 0) {
		x->pruned[cohort] = 1;
		return -1;
	}
	if (best_c >= 0 && (best_q < 0 || share_lt(bq, bc, 1)))
		return next_target_scan(x, best_c);
	return best_q;
}

/* Does a come before b in a scan's choice: a higher share, or an equal one and an
 * earlier place? */
static int nt_before(const struct nt_ent *a, const struct nt_ent *b)
{
	if (share_lt(b->sh, a->sh, 0))
		return 1;
	return !share_lt(a->sh, b->sh, 0) && a->pos < b->pos;
}

/* Moves h[i] down to its place in the heap h of n entries; at[node] follows each
 * entry moved. */
static void nt_sift(struct nt_ent *h, size_t n, size_t i, uint32_t *at)
{
	struct nt_ent e = h[i];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && nt_before(&h[c + 1], &h[c]))
			c++;
		if (!nt_before(&h[c], &e))
			break;
		h[i] = h[c];
		at[h[i].node] = (uint32_t)i;
		i = c;
	}
	h[i] = e;
	at[e.node] = (uint32_t)i;
}

static void nt_pop(struct nt_ent *h, uint32_t *n, uint32_t *at)
{
	at[h[0].node] = UINT32_MAX;
	h[0] = h[--*n];
	if (*n)
		nt_sift(h, *n, 0, at);
}

/* Orders cohort's children for next_target: the queues with a share above 0 (or
 * the preemptor's own) and the cohorts with one (or on the preemptor's path), each
 * kind a heap; the others are pruned, as a scan would prune them (their shares
 * cannot rise in a search: it only takes usage away). O(children). */
static void nt_build(struct fair_ctx *x, int cohort)
{
	struct kq_sched *s = x->s;
	const struct kq_node *n = &s->nodes[cohort];
	if (x->nt_off[cohort] == UINT32_MAX) { /* a region once a search; a rebuild reuses it */
		x->nt_off[cohort] = (uint32_t)x->nt_used;
		x->nt_used += n->n_children;
	}
	struct nt_ent *h = &x->nt_heap[x->nt_off[cohort]];
	uint32_t nq = 0, nc = 0;
	for (size_t k = 0; k < n->n_children; k++) {
		int ch = n->children[k];
		x->nt_at[ch] = UINT32_MAX; /* not in a heap unless placed below */
		if (x->pruned[ch])
			continue;
		struct nt_ent e = { node_share(s, ch), ch, (int32_t)k };
		if (s->nodes[ch].is_queue) {
			if (e.sh.v == 0 && ch != x->pre->queue)
				x->pruned[ch] = 1;
			else
				h[nq++] = e;
		} else {
			if (e.sh.v == 0 && !x->on_path[ch])
				x->pruned[ch] = 1;
			else
				h[n->n_children - ++nc] = e;
		}
	}
	struct nt_ent *hc = h + n->n_children - nc;
	for (size_t i = 0; i < nq; i++)
		x->nt_at[h[i].node] = (uint32_t)i;
	for (size_t i = 0; i < nc; i++)
		x->nt_at[hc[i].node] = (uint32_t)i;
	for (size_t i = nq / 2; i-- > 0;)
		nt_sift(h, nq, i, x->nt_at);
	for (size_t i = nc / 2; i-- > 0;)
		nt_sift(hc, nc, i, x->nt_at);
	x->nt_nq[cohort] = nq;
	x->nt_nc[cohort] = nc;
	x->nt_cb[cohort] = (uint32_t)(n->n_children - nc);
	x->nt_ok[cohort] = 1;
}

/* next_target_scan's choice from cohort's heaps: the top of each, once the tops a
 * scan would now prune (pruned since, or a queue out of candidates) are dropped;
 * the children below a top are no better than it, and their shares have not
 * changed while the heaps are current. */
static int next_target(struct fair_ctx *x, int cohort)
{
	if (kq_test_oracle & KQ_ORACLE_SCAN)
		return next_target_scan(x, cohort);
	if (!x->nt_ok[cohort])
		nt_build(x, cohort);
	struct nt_ent *hq = &x->nt_heap[x->nt_off[cohort]], *hc = hq + x->nt_cb[cohort];
	uint32_t *nq = &x->nt_nq[cohort], *nc = &x->nt_nc[cohort];
	while (*nq && (x->pruned[hq[0].node] || !queue_has_cand(x, hq[0].node))) {
		x->pruned[hq[0].node] = 1;
		nt_pop(hq, nq, x->nt_at);
	}
	while (*nc && x->pruned[hc[0].node])
		nt_pop(hc, nc, x->nt_at);
	if (!*nq && !*nc) {
		x->pruned[cohort] = 1;
		return -1;
	}
	if (*nc && (!*nq || share_lt(hq[0].sh, hc[0].sh, 1)))
		return next_target(x, hc[0].node);
	return hq[0].node;
}

/* The children of the lowest common cohort on the paths to a and b. */
static void almost_lca(const struct kq_sched *s, int a, int b, int *na, int *nb)
{
	for (int x = a; x >= 0; x = s->nodes[x].parent)
		for (int y = b; y >= 0; y = s->nodes[y].parent)
			if (s->nodes[x].parent >= 0 && s->nodes[x].parent == s->nodes[y].parent) {
				*na = x;
				*nb = y;
				return;
			}
	*na = a;
	*nb = b;
}

/* Child ch of cohort nd has had usage taken away: its entry in nd's heaps, if it
 * is still there, moves down to its new share (E28), and a share now 0 prunes it as
 * nt_build would, instead of a rebuild of all of nd's children at the next pick. The
 * top is the same either way: nt_before is a total order. A share that rose (none
 * should) rebuilds. */
static void nt_share_fell(struct fair_ctx *x, int nd, int ch)
{
	if (!x->nt_ok[nd] || x->nt_at[ch] == UINT32_MAX) /* no heap (the scan oracle builds none) */
		return;
	const struct kq_node *c = &x->s->nodes[ch];
	struct nt_ent *h = &x->nt_heap[x->nt_off[nd]];
	uint32_t n = x->nt_nq[nd];
	if (!c->is_queue) {
		h += x->nt_cb[nd];
		n = x->nt_nc[nd];
	}
	uint32_t i = x->nt_at[ch];
	struct share sh = node_share(x->s, ch);
	if (share_lt(h[i].sh, sh, 0)) {
		x->nt_ok[nd] = 0;
		return;
	}
	h[i].sh = sh;
	nt_sift(h, n, i, x->nt_at);
	if (sh.v == 0 && (c->is_queue ? ch != x->pre->queue : !x->on_path[ch]))
		x->pruned[ch] = 1;
}

/* The preemptor's usage is booked while shares are computed; a fit check takes
 * it out first (the wrapperYield of fair_strategy.go). */
static int fair_take(struct fair_ctx *x, struct kq_wl *c, enum kq_reason reason)
{
	kq_unbook_running(x->s, c);
	for (int ch = c->queue, nd = x->s->nodes[ch].parent; nd >= 0; ch = nd, nd = x->s->nodes[nd].parent)
		nt_share_fell(x, nd, ch); /* the shares on the victim's path fell */
	if (kq_targets_push(x->out, c, x->pre, reason)) {
		kq_rebook_running(x->s, c);
		return -SIM_ENOMEM;
	}
	kq_book(x->s, x->pre, x->flavor, -1);
	if (kq_fits_quota(x->s, x->pre, x->flavor, 1)) {
		fill_back(x->s, x->pre, x->flavor, 1, x->out);
		x->done = 1;
		return 0; /* preemptor stays unbooked */
	}
	kq_book(x->s, x->pre, x->flavor, +1);
	return 0;
}

typedef int (*fs_strategy)(struct share pre_new, struct share tgt_old, struct share tgt_new);
static int le_final(struct share p, struct share o, struct share n)
{
	(void)o;
	return share_lt(p, n, 1);
}
static int lt_initial(struct share p, struct share o, struct share n)
{
	(void)n;
	return share_lt(p, o, 0);
}

/* The highest share (in share_lt's order) among root's children other than qp; 0 if
 * it has none. The two highest are kept per root while usage, quotas and weights are
 * unchanged (kq_sched.usage_ver and gen), so a pass of refusals reads them instead of
 * every child's share: E2's "every other share is 0 or below p_new" is "the highest
 * is", the order being a total preorder. */
static struct share highest_other_share(struct kq_sched *s, int root, int qp)
{
	struct kq_node *r = &s->nodes[root];
	if (r->top_uver != s->usage_ver || r->top_gen != s->gen) {
		struct share best[2] = { { 0, 0 }, { 0, 0 } };
		int32_t who[2] = { -1, -1 };
		for (size_t k = 0; k < r->n_children; k++) {
			int ch = r->children[k];
			struct share sh = node_share(s, ch);
			if (who[0] < 0 || share_lt(best[0], sh, 0)) {
				best[1] = best[0];
				who[1] = who[0];
				best[0] = sh;
				who[0] = ch;
			} else if (who[1] < 0 || share_lt(best[1], sh, 0)) {
				best[1] = sh;
				who[1] = ch;
			}
		}
		for (int i = 0; i < 2; i++) {
			r->top_v[i] = best[i].v;
			r->top_u[i] = best[i].unweighted;
			r->top_q[i] = who[i];
		}
		r->top_uver = s->usage_ver;
		r->top_gen = s->gen;
	}
	int i = r->top_q[0] == qp ? 1 : 0;
	struct share m = { r->top_q[i] >= 0 ? r->top_v[i] : 0, r->top_q[i] >= 0 ? r->top_u[i] : 0 };
	return m;
}

/* E2's test on the other children: is every share of root's children other than qp
 * 0 or below p_new? *m: the highest of them. */
static int others_below(struct kq_sched *s, int root, int qp, struct share p_new, struct share *m)
{
	*m = highest_other_share(s, root, qp);
	return m->v == 0 || share_lt(*m, p_new, 0);
}

/* Is it certain, before any trial, that no victim set exists because no target can
 * pass a share rule? Only in the plain case: the preemptor's queue hangs off the
 * root, it borrows on a contested flavor-resource (so no take is a plain reclaim)
 * and its own queue offers no candidate. Then its share p_new (its queue's, with
 * the request booked) stays the same through the search, a target's share only
 * falls as it loses jobs, and both strategies need a target whose share is not
 * below p_new (LessThanOrEqualToFinalShare: p_new <= t_new <= t_old;
 * LessThanInitialShare: p_new < t_old; docs/kueue-rules.md S3); a child of
 * the root with share 0 is never a target. No such child: no victims. */
static int no_share_target(struct fair_ctx *x)
{
	struct kq_sched *s = x->s;
	int qp = x->pre->queue, parent = s->nodes[qp].parent;
	if (parent < 0 || s->nodes[parent].parent >= 0)
		return 0;
	int borrows = 0;
	for (int fr = 0; fr < s->n_fr; fr++)
		if (x->contested[fr] && kq_borrowing(s, qp, fr))
			borrows = 1;
	if (!borrows || queue_has_cand(x, qp))
		return 0;
	struct share m;
	return others_below(s, parent, qp, node_share(s, qp), &m);
}

/* The nomination stays monotone after a refusal by no_share_target while every
 * other queue's share stays below p_new, the preemptor's queue's share with the
 * request (docs/kueue-rules.md E14): its own queue's running set is the memo's
 * condition (kq_node.madd), the other queues' shares rise only at admissions
 * (kq_add_running logs them), and a release only lowers a share. With several
 * flavors refused so, the least p_new is the condition for all. eq: E15's refusal
 * on an equal share, whose condition is "at most p_new". */
static void keep_share_refusal(struct kq_sched *s, struct share p_new, int eq)
{
	s->nom_mono = 1;
	/* "below p" and "at most q" together: the one with the lower bound, or, at the
	 * same bound, "below" (it implies the other). */
	int lower = kq_share_below(p_new.v, p_new.unweighted, s->nom_pnew_v, s->nom_pnew_u);
	int same = !lower && !kq_share_below(s->nom_pnew_v, s->nom_pnew_u, p_new.v, p_new.unweighted);
	if (s->nom_pnew_v < 0 || lower || (same && !eq)) {
		s->nom_pnew_v = p_new.v;
		s->nom_pnew_u = p_new.unweighted;
		s->nom_pnew_eq = eq;
	}
}

/* Does c hold at least what f holds, on the same flavor, of every resource f uses? */
static int dominates(const struct kq_sched *s, const struct kq_wl *c, const struct kq_wl *f)
{
	for (int r = 0; r < s->n_res; r++)
		if (f->req[r] > 0 && (c->req[r] < f->req[r] || c->flavor[r] != f->flavor[r]))
			return 0;
	return 1;
}

static int dominates_any(const struct kq_sched *s, const struct kq_wl *c, const struct kq_wl *const *f, int n)
{
	for (int i = 0; i < n; i++)
		if (dominates(s, c, f[i]))
			return 1;
	return 0;
}

/* Does every candidate queue qi has left dominate c? Yes when c requests one
 * resource, on the only contested flavor-resource (so every candidate uses it),
 * no more of it than any job of the queue ever held (kq_node.min_req). */
static int smallest_possible(const struct fair_ctx *x, int qi, const struct kq_wl *c)
{
	const struct kq_sched *s = x->s;
	int fr_c = -1;
	for (int r = 0; r < s->n_res; r++)
		if (c->req[r] > 0) {
			if (fr_c >= 0)
				return 0;
			fr_c = kq_fr(s, c->flavor[r], r);
			if (c->req[r] > s->nodes[qi].min_req[fr_c])
				return 0;
		}
	for (int fr = 0; fr < s->n_fr; fr++)
		if (x->contested[fr] && fr != fr_c)
			return 0;
	return fr_c >= 0;
}

/* A candidate the first strategy rejected, for the second pass (S3). It offers
 * only each queue's first rejected candidate, so the fast path keeps just that one
 * (and none when no second pass runs); the oracle keeps them all. */
static int keep_for_retry(struct fair_ctx *x, struct cands *retry, struct kq_wl *c)
{
	if (!(kq_test_oracle & KQ_ORACLE_SCAN)) {
		if (!x->second_pass || x->in_retry[c->queue])
			return 0;
		x->in_retry[c->queue] = 1;
	}
	return cands_push(retry, c, -1, V_HIERARCHY, 0);
}

/* No candidate of queue qi can pass the first strategy: all are rejected in order,
 * and the queue offers none after. The fast path looks at the first only (the one
 * the second pass may use) and marks the queue done. */
static int drain_to_retry(struct fair_ctx *x, int qi, struct cands *retry)
{
	if (kq_test_oracle & KQ_ORACLE_SCAN) {
		for (struct kq_wl *c; (c = pop_cand(x, qi));)
			if (cands_push(retry, c, -1, V_HIERARCHY, 0))
				return -SIM_ENOMEM;
		return 0;
	}
	struct kq_wl *c = x->second_pass && !x->in_retry[qi] ? pop_cand(x, qi) : NULL;
	x->state[qi] = FQ_NONE; /* no candidates left */
	return c ? keep_for_retry(x, retry, c) : 0;
}

/* Can nothing more be taken below np, the preemptor's side of a comparison? Then
 * its share, the p_new of the tests at np's parent, cannot fall in this pass. A
 * queue without candidates, or a node next_target has pruned (not pruned yet need
 * not mean a candidate is left: the caller then just goes on pick by pick). */
static int side_exhausted(struct fair_ctx *x, int np)
{
	return x->s->nodes[np].is_queue ? !queue_has_cand(x, np) : x->pruned[np];
}

/* After the target picked at cohort l (the lowest common cohort of target and
 * preemptor) failed a test that reads only its side's share and the preemptor's
 * side's (np), with nothing left to take below np (docs/kueue-rules.md E15 in a
 * flat tree, E23 at any level): every other child of l has a share no higher than
 * the target's, as next_target picked the highest, and meets the same test against
 * the same p_new, and no take below l can come between. Not under the oracle
 * (KQ_ORACLE_SCAN), which drains them one pick at a time. */
static int level_rest_fails(struct fair_ctx *x, int np)
{
	return !(kq_test_oracle & KQ_ORACLE_SCAN) && side_exhausted(x, np);
}

/* What the picks would do to every child of l but `skip` (-1: none) that next_target
 * would still pick (a share above 0, and a candidate or a cohort), in one walk of l's
 * children instead of one pick and its descent each: a queue keeps its first
 * candidate for the second pass (drain_to_retry), a cohort each of its queues'
 * (drain_subtree). The order does not matter, as each queue keeps its own retry
 * candidate. */
static int drain_subtree(struct fair_ctx *x, int c, struct cands *retry);

static int drain_children(struct fair_ctx *x, int l, int skip, struct cands *retry)
{
	const struct kq_node *n = &x->s->nodes[l];
	for (size_t k = 0; k < n->n_children; k++) {
		int ch = n->children[k];
		if (x->pruned[ch] || ch == skip || node_share(x->s, ch).v == 0)
			continue;
		int rc = !x->s->nodes[ch].is_queue ? drain_subtree(x, ch, retry)
			 : queue_has_cand(x, ch)   ? drain_to_retry(x, ch, retry)
						   : 0;
		if (rc)
			return rc;
	}
	return 0;
}

/* May cohort c's drain be deferred to the second pass (E27)? When the search has
 * not looked below it: next_target never entered it (it has no heap region yet),
 * it is not on the preemptor's path, and each queue's candidates are walked in its
 * lists (a checkpoint-unaware preemptor), not collected into the candidate array
 * that the second pass reuses. */
static int may_defer(const struct fair_ctx *x, int c)
{
	return !(kq_test_oracle & KQ_ORACLE_SCAN) && !x->on_path[c] && x->nt_off[c] == UINT32_MAX &&
	       !x->s->nodes[x->pre->queue].cfg.checkpoint_aware;
}

/* drain_to_retry for every queue below cohort c that next_target would still pick,
 * then c pruned: what the picks would do one queue at a time once a target below c
 * failed a test that reads only the shares of c and of the preemptor's side below
 * their common cohort (docs/kueue-rules.md E20): every queue below c meets the same
 * test, and no take comes between. A child pruned, or with a share of 0, is passed
 * over as next_target does (c is not on the preemptor's path). Without a second pass
 * no candidate is put aside, and pruning c is all; a cohort the search has not
 * looked into is pruned and marked, its queues' candidates found when the second
 * pass asks for them (E27, settle_deferred). */
static int drain_subtree(struct fair_ctx *x, int c, struct cands *retry)
{
	if (x->second_pass && may_defer(x, c)) {
		if (kq_test_oracle & KQ_TEST_COUNT_DEFER)
			kq_test_deferred_drains++;
		x->deferred[c] = 1;
		x->any_deferred = 1;
		x->pruned[c] = 1;
		return 0;
	}
	int rc = x->second_pass ? drain_children(x, c, -1, retry) : 0;
	if (!rc)
		x->pruned[c] = 1;
	return rc;
}

static int fair_first_pass(struct fair_ctx *x, fs_strategy strat, struct cands *retry)
{
	struct kq_sched *s = x->s;
	int within = 1;
	for (int fr = 0; fr < s->n_fr; fr++) /* incoming already booked */
		if (x->contested[fr] && kq_borrowing(s, x->pre->queue, fr))
			within = 0;
	while (!x->done) {
		int qi;
		if (s->nodes[x->pre->queue].parent < 0) {
			qi = queue_has_cand(x, x->pre->queue) ? x->pre->queue : -2;
		} else {
			if (x->pruned[x->root])
				break;
			qi = next_target(x, x->root);
			if (qi < 0)
				continue;
		}
		if (qi == -2)
			break;
		if (qi == x->pre->queue) {
			int rc = fair_take(x, pop_cand(x, qi), KQ_R_IN_QUEUE);
			if (rc)
				return rc;
			continue;
		}
		if (within) {
			int rc = fair_take(x, pop_cand(x, qi), KQ_R_RECLAIM);
			if (rc)
				return rc;
			continue;
		}
		int np, nt;
		almost_lca(s, x->pre->queue, qi, &np, &nt);
		struct share p_new = node_share(s, np), t_old = node_share(s, nt);
		if ((!strat(p_new, t_old, t_old) && strat == lt_initial) || /* independent of the candidate */
		    share_lt(t_old, p_new, 0)) { /* p_new > t_old: no removal can pass S3's first rule */
			int rc = nt != qi && !(kq_test_oracle & KQ_ORACLE_SCAN)
					 ? drain_subtree(x, nt, retry) /* every queue below nt fails it too */
					 : drain_to_retry(x, qi, retry);
			if (!rc && level_rest_fails(x, np)) {
				rc = drain_children(x, s->nodes[nt].parent, np, retry); /* E23 */
				x->nt_ok[s->nodes[nt].parent] = 0; /* rebuilt from the few left, not popped (E28) */
			}
			if (rc)
				return rc;
			continue;
		}
		/* Candidates that fail the rule, kept to rule out larger ones unexamined:
		 * removing more of a target's usage never raises its share, so a candidate
		 * holding at least as much on the same flavors as one that failed fails. */
		const struct kq_wl *failed[4];
		int n_failed = 0;
		for (struct kq_wl *c; (c = pop_cand(x, qi));) {
			if (!(kq_test_oracle & KQ_ORACLE_SCAN) && dominates_any(s, c, failed, n_failed)) {
				if (keep_for_retry(x, retry, c))
					return -SIM_ENOMEM;
				continue;
			}
			kq_unbook_running(s, c);
			struct share t_new = node_share(s, nt);
			kq_rebook_running(s, c);
			if (strat(p_new, t_old, t_new)) {
				int rc = fair_take(x, c, KQ_R_FAIR_SHARING);
				if (rc)
					return rc;
				break;
			}
			if (keep_for_retry(x, retry, c))
				return -SIM_ENOMEM;
			if (!(kq_test_oracle & KQ_ORACLE_SCAN) && smallest_possible(x, qi, c)) {
				x->state[qi] = FQ_NONE; /* every candidate left dominates c */
				break;
			}
			if (n_failed < 4)
				failed[n_failed++] = c;
		}
	}
	return 0;
}

/* Every child of l but np pruned: the second pass's drain_children, where a child that
 * fails LessThanInitialShare is only passed over. */
static void prune_rest(struct fair_ctx *x, int l, int np)
{
	const struct kq_node *n = &x->s->nodes[l];
	for (size_t k = 0; k < n->n_children; k++)
		if (n->children[k] != np)
			x->pruned[n->children[k]] = 1;
	x->nt_ok[l] = 0; /* rebuilt from np alone, not popped (E28) */
}

/* LessThanInitialShare (S3) over the candidates the first strategy left: one a queue. */
static int fair_second_pass(struct fair_ctx *x, struct cands *retry)
{
	struct kq_sched *s = x->s;
	struct cands first = x->cand; /* kept for its memory */
	x->cand = *retry;
	*retry = first;
	retry->n = 0;
	memset(x->pruned, 0, s->n_nodes);
	memset(x->nt_ok, 0, s->n_nodes);
	if (index_by_queue(x)) /* retry holds each queue's candidates in order already */
		return -SIM_ENOMEM;
	while (!x->done && !x->pruned[x->root]) {
		int qi = next_target(x, x->root);
		if (qi < 0)
			continue;
		int np, nt;
		almost_lca(s, x->pre->queue, qi, &np, &nt);
		struct share p_new = node_share(s, np), t_old = node_share(s, nt);
		struct kq_wl *c = pop_cand(x, qi);
		if (lt_initial(p_new, t_old, t_old)) {
			int rc = fair_take(x, c, KQ_R_FAIR_SHARING);
			if (rc)
				return rc;
		} else if (level_rest_fails(x, np)) {
			prune_rest(x, s->nodes[nt].parent, np); /* no share left there is above p_new (E15, E23) */
		} else if (!(kq_test_oracle & KQ_ORACLE_SCAN) && nt != qi) {
			x->pruned[nt] = 1; /* E20: every queue below nt fails the same test */
		}
		x->pruned[qi] = 1;
	}
	return 0;
}

/* What a fair-sharing search needs per node and per candidate, kept by the scheduler
 * between searches (kq_scratch.fair) so that a warm run allocates nothing here. */
struct fair_bufs {
	size_t n_nodes;           /* the per-node arrays' length */
	uint8_t *bytes;           /* one block: state, pruned, on_path, in_retry, nt_ok, deferred, phase */
	uint32_t *nt_u32;         /* one block: nt_off, nt_nq, nt_nc, nt_cb, nt_at */
	struct nt_ent *nt_heap;   /* n_nodes entries: every cohort's children at most once */
	size_t *sizes;            /* one block: first, left, band */
	struct kq_wl **at;
	size_t *next;
	size_t cap_next;
	struct cands cand, retry;
};

static struct fair_bufs *fair_bufs_get(struct kq_sched *s)
{
	struct kq_scratch *sc = kq_scratch_get(s);
	if (!sc)
		return NULL;
	struct fair_bufs *fb = sc->fair;
	if (!fb && !(fb = sc->fair = calloc(1, sizeof *fb)))
		return NULL;
	if (fb->n_nodes < s->n_nodes || !fb->bytes) {
		size_t n = s->n_nodes ? s->n_nodes : 1;
		uint8_t *bytes = malloc(7 * n);
		size_t *sizes = malloc(3 * n * sizeof *sizes);
		struct kq_wl **at = malloc(n * sizeof *at);
		uint32_t *nt_u32 = malloc(5 * n * sizeof *nt_u32);
		struct nt_ent *nt_heap = malloc(n * sizeof *nt_heap);
		if (!bytes || !sizes || !at || !nt_u32 || !nt_heap) {
			free(bytes);
			free(sizes);
			free(at);
			free(nt_u32);
			free(nt_heap);
			return NULL;
		}
		free(fb->bytes);
		free(fb->sizes);
		free(fb->at);
		free(fb->nt_u32);
		free(fb->nt_heap);
		fb->nt_u32 = nt_u32;
		fb->nt_heap = nt_heap;
		fb->bytes = bytes;
		fb->sizes = sizes;
		fb->at = at;
		fb->n_nodes = n;
	}
	return fb;
}

/* Points the search's arrays into the kept buffers; the per-node flags start at 0. */
static void fair_ctx_lend(struct fair_ctx *x, struct fair_bufs *fb)
{
	size_t n = fb->n_nodes;
	memset(fb->bytes, 0, 6 * n); /* state, pruned, on_path, in_retry, nt_ok, deferred; phase is set before use */
	x->state = fb->bytes;
	x->pruned = fb->bytes + n;
	x->on_path = fb->bytes + 2 * n;
	x->in_retry = fb->bytes + 3 * n;
	x->nt_ok = fb->bytes + 4 * n;
	x->deferred = fb->bytes + 5 * n;
	x->any_deferred = 0;
	x->phase = fb->bytes + 6 * n;
	memset(fb->nt_u32, 0xff, n * sizeof *fb->nt_u32); /* nt_off: no region yet */
	x->nt_off = fb->nt_u32;
	x->nt_nq = fb->nt_u32 + n;
	x->nt_nc = fb->nt_u32 + 2 * n;
	x->nt_cb = fb->nt_u32 + 3 * n;
	x->nt_at = fb->nt_u32 + 4 * n;
	x->nt_heap = fb->nt_heap;
	x->nt_used = 0;
	x->first = fb->sizes;
	x->left = fb->sizes + n;
	x->band = fb->sizes + 2 * n;
	x->at = fb->at;
	x->next = fb->next;
	x->cap_next = fb->cap_next;
	x->cand = fb->cand;
	x->cand.n = 0;
}

/* Takes back what the search grew (its candidate lists, the next[] links). */
static void fair_ctx_return(struct fair_ctx *x, struct fair_bufs *fb, const struct cands *retry)
{
	fb->next = x->next;
	fb->cap_next = x->cap_next;
	fb->cand = x->cand;
	fb->retry = *retry;
}

struct kq_scratch *kq_scratch_get(struct kq_sched *s)
{
	if (!s->scratch)
		s->scratch = calloc(1, sizeof(struct kq_scratch));
	return s->scratch;
}

void kq_scratch_free(struct kq_sched *s)
{
	struct kq_scratch *sc = s->scratch;
	if (!sc)
		return;
	struct fair_bufs *fb = sc->fair;
	if (fb) {
		free(fb->bytes);
		free(fb->sizes);
		free(fb->at);
		free(fb->nt_u32);
		free(fb->nt_heap);
		free(fb->next);
		free(fb->cand.v);
		free(fb->retry.v);
		free(fb);
	}
	cl_bufs_free(sc->classical);
	kq_cycle_scratch_free(sc);
	free(sc->taken);
	free(sc->bound_rm);
	free(sc->anc);
	free(sc->anc_adv);
	free(sc->adv_rem);
	free(sc->budget);
	free(sc->pass_memo);
	free(sc);
	s->scratch = NULL;
}

/* What a fair-sharing bound takes from source queue qi on fr: all that the preemptor's
 * within_queue policy allows of its own queue, all that reclaim_within_cohort allows of
 * another. */
static sim_qty_t fair_allowance(const struct kq_sched *s, const struct kq_wl *pre, int qi, int fr)
{
	const struct kq_queue_cfg *cfg = &s->nodes[pre->queue].cfg;
	return band_allowance(&s->nodes[qi], fr, pre, qi == pre->queue ? cfg->within : cfg->reclaim);
}

/* fair_bound_once's bookings from ancestor n down, with one contested fr (k->fr):
 * its queues as the walk takes them, its ancestor child walked the same way, and each
 * other cohort child's subtree_pass booked as one removal at n (docs/kueue-rules.md
 * E21). anc: mark_ancestors' stamps of the preemptor's ancestors. */
static void fair_walk_kept(struct kq_sched *s, struct bound_acc *b, struct pass_memo *pm, int n,
			   const struct kq_wl *pre, const uint8_t *contested, const struct bound_key *k,
			   const uint32_t *anc)
{
	const struct kq_node *nd = &s->nodes[n];
	uint32_t stamp = ((const struct kq_scratch *)s->scratch)->anc_stamp;
	for (size_t i = 0; i < nd->n_children; i++) {
		int c = nd->children[i];
		sim_qty_t v = 0;
		if (anc[c] == stamp) {
			fair_walk_kept(s, b, pm, c, pre, contested, k, anc);
		} else if (!s->nodes[c].is_queue) {
			if ((v = subtree_pass(s, pm, c, k, 0)) > 0)
				bound_take(s, b, n, k->fr, v);
		} else if (fair_source_of(s, pre, contested, c) && (v = fair_allowance(s, pre, c, k->fr)) > 0) {
			bound_take(s, b, c, k->fr, v);
		}
	}
}

/* A bound before any job is looked at: fair sharing only ever takes candidates, so
 * if the preemptor does not fit (borrowing allowed, as fair_take tests) even with
 * every job that could be a candidate gone, in aggregate, no victim set exists.
 * The candidates' superset, per queue and contested flavor-resource: from its own
 * queue all that within_queue allows, from every other queue of its tree that has a
 * cohort and borrows on a contested flavor-resource all that reclaim_within_cohort
 * allows (uncapped: fair sharing may take a target below its nominal quota while
 * its share stays the highest). Removing usage never lowers what a queue may
 * admit, so "fits" here is necessary for any victim set. O(queues). */
static int fair_bound_once(struct kq_sched *s, const struct kq_wl *pre, const int16_t *flavor,
			   const uint8_t *contested, int try_flat)
{
	struct bound_acc b;
	if (bound_begin(s, pre, try_flat, &b))
		return 1; /* no bound: search in full */
	const struct kq_queue_cfg *cfg = &s->nodes[pre->queue].cfg;
	int one = b.flat ? single_contested(s, contested) : -1;
	if (one >= 0) { /* with one contested fr, "not within nominal" is "borrows on it" */
		struct bound_key k = { .root = b.root, .fr = one, .kind = BK_FAIR, .policy = cfg->reclaim,
				       .prio = pre->priority };
		return flat_bound_by_sums(s, &b, pre, flavor, one, &k, cfg->within, 1) <= 0;
	}
	int one_nested = try_flat && !b.flat && !(kq_test_oracle & KQ_ORACLE_BOUND_BOOKED) &&
				 s->nodes[pre->queue].parent >= 0
			 ? single_contested(s, contested)
			 : -1;
	struct pass_memo *pm = one_nested >= 0 ? pass_memos(s) : NULL;
	const uint32_t *anc = pm ? mark_ancestors(s, pre->queue) : NULL;
	s->sver_hold = 1; /* the bookings below are undone by bound_end */
	if (anc) { /* E21: the other cohorts' subtrees from kept sums */
		struct bound_key k = { .root = b.root, .fr = one_nested, .kind = BK_FAIR, .policy = cfg->reclaim,
				       .prio = pre->priority };
		fair_walk_kept(s, &b, pm, b.root, pre, contested, &k, anc);
	} else {
		const int32_t *nodes;
		size_t n_nodes;
		bound_nodes(s, &b, &nodes, &n_nodes);
		for (size_t k = 0; k < n_nodes; k++) {
			int i = nodes ? nodes[k] : (int)k;
			if (!fair_source_of(s, pre, contested, i))
				continue;
			for (int fr = 0; fr < s->n_fr; fr++) {
				sim_qty_t v = contested[fr] ? fair_allowance(s, pre, i, fr) : 0;
				if (v > 0)
					bound_take(s, &b, i, fr, v);
			}
		}
	}
	int fits = bound_end(s, &b, pre, flavor, 1) <= 0;
	s->sver_hold = 0;
	return fits;
}

static int fair_bound_fits(struct kq_sched *s, const struct kq_wl *pre, const int16_t *flavor,
			   const uint8_t *contested)
{
	int fits = fair_bound_once(s, pre, flavor, contested, 1);
	if (kq_test_oracle & KQ_ORACLE_CHECK_BOUNDS) /* flat sums (E11) and kept sums (E21) */
		return check_bound(fits, fair_bound_once(s, pre, flavor, contested, 0));
	return fits;
}

/* Does the aggregate bound refuse this search (E29)? Tried after a wait that doubles
 * (1, 3, 7, ... 63 searches run without it) each time it lets a search through, and
 * every time again once it refuses: in a tree where it never refuses (1,000 nested
 * queues: none of millions) it cost a fifth of the run. Skipping it never changes a
 * decision, only the cost of a search that finds nothing (the oracle bit
 * KQ_ORACLE_FAIR_BOUND never runs it). Under KQ_ORACLE_CHECK_BOUNDS every search tries it. */
static int fair_bound_refuses(struct kq_sched *s, const struct kq_wl *pre, const int16_t *flavor,
			      const uint8_t *contested)
{
	struct kq_scratch *sc = s->scratch; /* fair_bufs_get made it */
	int every = kq_test_oracle & KQ_ORACLE_CHECK_BOUNDS;
	if (sc->fair_bound_skip && !every) {
		sc->fair_bound_skip--;
		return 0;
	}
	if (!fair_bound_fits(s, pre, flavor, contested)) {
		sc->fair_bound_wait = 0;
		return 1;
	}
	sc->fair_bound_wait = sc->fair_bound_wait < 32 ? 2 * sc->fair_bound_wait + 1 : 63;
	sc->fair_bound_skip = sc->fair_bound_wait;
	return 0;
}

/* Own queue qp certainly offers no candidate to pre: it is no source, or no running
 * job of it in a priority band its within_queue policy allows holds a contested
 * flavor-resource. 0 = it may (the search's own test decides). */
static int own_offers_none(const struct kq_sched *s, const struct kq_wl *pre, const uint8_t *contested)
{
	const struct kq_node *q = &s->nodes[pre->queue];
	if (q->cfg.within == KQ_NEVER || !q->n_running)
		return 1;
	for (int fr = 0; fr < s->n_fr; fr++)
		if (contested[fr] && band_allowance(q, fr, pre, q->cfg.within) > 0)
			return 0;
	return 1;
}

/* The premise of E15's and E22's refusals: the preemptor's queue borrows on a
 * contested flavor-resource with the request (req_fr: the request per fr, filled;
 * s->n_fr entries) and certainly offers no candidate of its own. */
static int borrows_without_own(const struct kq_sched *s, const struct kq_wl *pre, const int16_t *flavor,
			       const uint8_t *contested, sim_qty_t *req_fr)
{
	request_fr(s, pre, flavor, req_fr);
	const struct kq_node *q = &s->nodes[pre->queue];
	int borrows = 0;
	for (int fr = 0; fr < s->n_fr; fr++)
		if (contested[fr] && q->usage[fr] + req_fr[fr] > q->subtree[fr])
			borrows = 1;
	return borrows && own_offers_none(s, pre, contested);
}

/* E2 (no_share_target) decided before the search is set up, nothing booked
 * (docs/kueue-rules.md E15): when the preemptor's queue is a child of the root,
 * borrows on a contested flavor-resource with the request, certainly offers no
 * candidate of its own, and every other child's share is 0 or below p_new (its
 * share with the request, out in *p_new), no victims exist. 0 = not decided here. */
static int quick_share_refusal(struct kq_sched *s, const struct kq_wl *pre, const int16_t *flavor,
			       const uint8_t *contested, struct share *p_new, int *eq)
{
	int qp = pre->queue, parent = s->nodes[qp].parent;
	if (parent < 0 || s->nodes[parent].parent >= 0 || s->n_fr > 64)
		return 0;
	sim_qty_t req_fr[64];
	if (!borrows_without_own(s, pre, flavor, contested, req_fr))
		return 0;
	p_new->v = kq_drs(s, qp, req_fr, &p_new->unweighted);
	struct share m;
	if (others_below(s, parent, qp, *p_new, &m))
		return 1;
	/* One resource and one contested flavor-resource: every candidate of a target uses
	 * it and the target borrows on it (else it is no source), so taking any candidate
	 * lowers the target's share strictly, and a share equal to p_new passes neither
	 * strategy either (docs/kueue-rules.md E15). */
	*eq = s->n_res == 1 && single_contested(s, contested) >= 0 && !share_lt(*p_new, m, 0);
	return *eq;
}

/* E22: E15's first refusal in a nested tree, decided before the search is set up,
 * nothing booked: when the preemptor's queue borrows on a contested flavor-resource
 * with the request and certainly offers no candidate of its own, and at every level
 * of its path every other child of the cohort there has a share of 0 or below the
 * path's child's share with the request (what of it reaches that level), no target
 * passes S3 in either pass (docs/kueue-rules.md E22). No memo is made monotone by it
 * (E14's conditions are a flat tree's), as a full search of a nested tree makes none. */
unsigned long kq_test_nested_refusals;
unsigned long kq_test_deferred_drains;

static int nested_share_refusal(struct kq_sched *s, const struct kq_wl *pre, const int16_t *flavor,
				const uint8_t *contested)
{
	int qp = pre->queue, parent = s->nodes[qp].parent;
	if (parent < 0 || s->nodes[parent].parent < 0 || s->n_fr > 64)
		return 0; /* a flat tree is quick_share_refusal's */
	sim_qty_t v[64]; /* the request as it reaches node n */
	if (!borrows_without_own(s, pre, flavor, contested, v))
		return 0;
	for (int n = qp; s->nodes[n].parent >= 0; n = s->nodes[n].parent) {
		const struct kq_node *nd = &s->nodes[n];
		struct share p_new, m;
		p_new.v = kq_drs(s, n, v, &p_new.unweighted);
		if (!others_below(s, nd->parent, n, p_new, &m))
			return 0;
		for (int fr = 0; fr < s->n_fr; fr++) { /* what kq_usage_add would pass up */
			sim_qty_t up = kq_added_passes_up(nd, fr, v[fr]);
			v[fr] = up > 0 ? up : 0;
		}
	}
	kq_test_nested_refusals++;
	return 1;
}

static int fair_search(struct kq_sched *s, struct kq_wl *pre, const int16_t *flavor, const uint8_t *contested,
		       sim_time_t now, struct kq_targets *out, int mono);

static int fair_targets(struct kq_sched *s, struct kq_wl *pre, const int16_t *flavor, const uint8_t *contested,
			sim_time_t now, struct kq_targets *out)
{
	int mono = s->nom_mono; /* only the share rule's refusal keeps a memo monotone (E14) */
	s->nom_mono = 0;
	out->n = 0;
	struct share p_quick;
	int eq = 0;
	if (!(kq_test_oracle & KQ_ORACLE_FAIR_BOUND) && quick_share_refusal(s, pre, flavor, contested, &p_quick, &eq)) {
		if (mono)
			keep_share_refusal(s, p_quick, eq);
		return 0;
	}
	if (!(kq_test_oracle & KQ_ORACLE_FAIR_BOUND) && nested_share_refusal(s, pre, flavor, contested))
		return 0;
	return fair_search(s, pre, flavor, contested, now, out, mono);
}

/* fair_targets' search, once E15's quick refusal has not decided (mono: as there). */
static int fair_search(struct kq_sched *s, struct kq_wl *pre, const int16_t *flavor, const uint8_t *contested,
		       sim_time_t now, struct kq_targets *out, int mono)
{
	struct fair_ctx x = { .s = s, .pre = pre, .flavor = flavor, .contested = contested, .now = now, .out = out };
	struct fair_bufs *fb = fair_bufs_get(s);
	if (!fb)
		return -SIM_ENOMEM;
	x.root = s->nodes[pre->queue].root;
	struct cands retry = fb->retry;
	int rc = 0;
	retry.n = 0;
	fair_ctx_lend(&x, fb);
	if (!(kq_test_oracle & KQ_ORACLE_FAIR_BOUND) && fair_bound_refuses(s, pre, flavor, contested))
		goto out;
	for (int n = s->nodes[pre->queue].parent; n >= 0; n = s->nodes[n].parent)
		x.on_path[n] = 1;
	if (kq_test_oracle & KQ_ORACLE_SCAN) {
		if ((rc = fair_collect(&x)) || x.cand.n == 0)
			goto out;
	} else if (!any_source(&x)) {
		goto out;
	}
	kq_book(s, pre, flavor, +1);
	if (!(kq_test_oracle & KQ_ORACLE_FAIR_BOUND) && no_share_target(&x)) {
		if (mono)
			keep_share_refusal(s, node_share(s, pre->queue), 0);
		kq_book(s, pre, flavor, -1);
		goto out;
	}
	int two = s->fair_le_final && s->fair_lt_initial;
	fs_strategy first = (s->fair_le_final && !s->fair_first_is_initial) ? le_final : lt_initial;
	x.second_pass = two && first == le_final;
	rc = fair_first_pass(&x, first, &retry);
	if (!rc && x.oom)
		rc = -SIM_ENOMEM;
	if (!rc && !x.done && two && first == le_final)
		rc = fair_second_pass(&x, &retry);
	if (!x.done)
		kq_book(s, pre, flavor, -1);
	rebook_all(s, out);
	if (!x.done)
		out->n = 0;
out:
	fair_ctx_return(&x, fb, &retry);
	return rc;
}

int kq_find_targets(struct kq_sched *s, struct kq_wl *wl, const int16_t *flavor, const uint8_t *contested,
		    sim_time_t now, struct kq_targets *out)
{
	out->n = 0;
	if (s->fair)
		return fair_targets(s, wl, flavor, contested, now, out);
	return classical_targets(s, wl, flavor, contested, now, out);
}
