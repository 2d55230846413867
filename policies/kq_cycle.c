/* policies/kq_cycle.c: flavor assignment and the scheduling cycle (docs/kueue-rules.md
 * "Flavor assignment" F1-F7, "The scheduling cycle" C1-C8, with C6, C7 and F3).
 *
 * A cycle nominates every head on the live usage, orders the entries (classical:
 * not borrowing, priority, FIFO; fair sharing: a tournament through the cohort
 * tree), then processes them in order, booking what each admission, preemption
 * and reservation takes. Every booking is journaled and undone before kq_cycle
 * returns: deciding changes no state.
 *
 * Preference lists (run mode, issue 4): a workload may be limited to some flavors
 * (kq_wl.allow), walked in the queue's order or in its own (job_order); a first-fit
 * workload takes the first of its flavors that fits quota now and has room on the
 * nodes (kq_sched.room), and never preempts.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kq_impl.h"

/* ---- the journal of bookings made while a cycle runs ---- */

struct jentry {
	int node, fr;
	sim_qty_t v; /* > 0 booked, < 0 unbooked */
};

struct journal {
	struct jentry *v;
	size_t n, cap;
	int oom;
};

static void jbook(struct kq_sched *s, struct journal *j, int node, int fr, sim_qty_t v)
{
	if (v == 0)
		return;
	struct jentry *nv = sim_grow(j->v, &j->cap, j->n, sizeof *nv, 64);
	if (!nv) {
		j->oom = 1;
		return;
	}
	j->v = nv;
	j->v[j->n++] = (struct jentry){ node, fr, v };
	if (v > 0)
		kq_usage_add(s, node, fr, v);
	else
		kq_usage_remove(s, node, fr, -v);
}

static void jbook_wl(struct kq_sched *s, struct journal *j, const struct kq_wl *wl, const int16_t *flavor,
		     int sign)
{
	for (int r = 0; r < s->n_res; r++)
		if (wl->req[r] > 0 && flavor[r] >= 0)
			jbook(s, j, wl->queue, kq_fr(s, flavor[r], r), sign * wl->req[r]);
}

static void journal_undo(struct kq_sched *s, struct journal *j)
{
	while (j->n) {
		struct jentry *e = &j->v[--j->n];
		if (e->v > 0)
			kq_usage_remove(s, e->node, e->fr, e->v);
		else
			kq_usage_add(s, e->node, e->fr, -e->v);
	}
}

/* ---- flavor assignment (flavorassigner.go) ---- */

/* FindHeightOfLowestSubtreeThatFits: 0 when the queue's own quota holds it. */
static int borrow_height(const struct kq_sched *s, int qi, int fr, sim_qty_t v)
{
	const struct kq_node *q = &s->nodes[qi];
	if (!(q->usage[fr] + v > q->subtree[fr]) || q->parent < 0)
		return 0;
	sim_qty_t la = q->local[fr] - q->usage[fr];
	sim_qty_t remaining = v - (la > 0 ? la : 0);
	int n = q->parent;
	for (;;) {
		const struct kq_node *c = &s->nodes[n];
		if (!(c->usage[fr] + remaining > c->subtree[fr]) || c->parent < 0)
			return c->height;
		la = c->local[fr] - c->usage[fr];
		remaining -= la > 0 ? la : 0;
		n = c->parent;
	}
}

/* Could the queue reach the request by preempting in a subtree it is entitled to
 * (a cohort below the root whose own quota would hold what its local quota cannot)? */
static int hier_advantage(const struct kq_sched *s, int qi, int fr, sim_qty_t v)
{
	const struct kq_node *q = &s->nodes[qi];
	sim_qty_t la = q->local[fr] - q->usage[fr];
	sim_qty_t remaining = v - (la > 0 ? la : 0);
	for (int n = q->parent; n >= 0 && s->nodes[n].parent >= 0; n = s->nodes[n].parent) {
		const struct kq_node *c = &s->nodes[n];
		if (c->usage[fr] + remaining <= c->subtree[fr])
			return 1;
		la = c->local[fr] - c->usage[fr];
		remaining -= la > 0 ? la : 0;
	}
	return 0;
}

struct flavor_try {
	int flavor;
	enum kq_mode mode;
	int level;
	int exceeds;        /* NoFit because above potentialAvailable */
	int joint;          /* several contested resources: victims still to be found together */
	struct kq_targets targets;
};

/* Mode from a victim set: reclaim when every target is in another queue. */
static enum kq_mode targets_mode(const struct kq_wl *wl, const struct kq_targets *t)
{
	if (!t->n)
		return KQ_NO_CANDIDATES;
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].wl->queue == wl->queue)
			return KQ_PREEMPT;
	return KQ_RECLAIM;
}

/* Mode of one resource on one flavor before any preemption is simulated. */
static enum kq_mode resource_mode(struct kq_sched *s, const struct kq_wl *wl, int fr, sim_qty_t v,
				  int *level, int *exceeds)
{
	const struct kq_node *q = &s->nodes[wl->queue];
	if (!q->has_quota[fr] || v > kq_potential(s, wl->queue, fr)) {
		*exceeds = q->has_quota[fr];
		return KQ_NOFIT;
	}
	sim_qty_t avail = kq_available(s, wl->queue, fr);
	if (v <= avail) {
		int h = borrow_height(s, wl->queue, fr, v);
		if (h > *level)
			*level = h;
		return KQ_FIT;
	}
	kq_note_shortfall(s, fr, v - avail); /* a release may make it fit (E13) */
	const struct kq_queue_cfg *cfg = &q->cfg;
	if (q->nominal[fr] >= v || cfg->bwc || (s->fair && cfg->reclaim != KQ_NEVER) ||
	    hier_advantage(s, wl->queue, fr, v))
		return KQ_PREEMPT;
	return KQ_NOFIT;
}

static int mode_class(enum kq_mode m) { return m == KQ_NOFIT ? 0 : m == KQ_NO_CANDIDATES ? 1 : 2; }

/* isPreferred on (mode, borrowing level) pairs: is a strictly better than b? Ties
 * keep b (the earlier flavor, or the resource seen first). */
static int pair_preferred(const struct kq_queue_cfg *cfg, enum kq_mode am, int al, enum kq_mode bm, int bl)
{
	int ca = mode_class(am), cb = mode_class(bm);
	if (ca != cb)
		return ca > cb;
	if (ca == 0)
		return 0;
	if (ca == 1) /* two flavors without candidates: the lower borrowing level */
		return al < bl;
	if (cfg->fung_preemption_over_borrowing) {
		if (al != bl)
			return al < bl;
		return am > bm;
	}
	if (am != bm)
		return am > bm;
	return al < bl;
}

/* A request of one resource: the oracle's simulation is the victim search
 * itself; its targets are kept. */
static int simulate_together(struct kq_sched *s, struct kq_wl *wl, const struct kq_group *g, int f,
			     const int16_t *flavor, const uint8_t *contested, sim_time_t now, enum kq_mode *mode,
			     int *level, struct flavor_try *ft)
{
	int rc = 0;
	if (!s->nodes[wl->queue].cfg.no_preemption && !wl->no_preempt)
		rc = kq_find_targets(s, wl, flavor, contested, now, &ft->targets);
	enum kq_mode pm = targets_mode(wl, &ft->targets);
	for (size_t i = 0; i < ft->targets.n; i++)
		kq_unbook_running(s, ft->targets.v[i].wl);
	for (int k = 0; k < g->n_res; k++) {
		int r = g->res[k];
		if (wl->req[r] > 0 && mode[r] == KQ_PREEMPT) {
			mode[r] = pm;
			level[r] = borrow_height(s, wl->queue, kq_fr(s, f, r), wl->req[r]);
		}
	}
	for (size_t i = 0; i < ft->targets.n; i++)
		kq_rebook_running(s, ft->targets.v[i].wl);
	return rc;
}

/* A request of several resources: the oracle simulates each contested one alone,
 * with only its quantity (Kueue's SimulatePreemption per flavor-resource), for
 * its mode and level; the victims for the whole request are searched once the
 * flavor is chosen (assign_group), and none there leaves the entry waiting. */
static int simulate_each(struct kq_sched *s, struct kq_wl *wl, const struct kq_group *g, int f,
			 const int16_t *flavor, sim_time_t now, enum kq_mode *mode, int *level)
{
	uint8_t one_stack[KQ_FR_STACK];
	uint8_t *one = kq_fr_flags(s, one_stack);
	struct kq_targets t = { 0 };
	int rc = one ? 0 : -SIM_ENOMEM;
	for (int k = 0; k < g->n_res && !rc; k++) {
		int r = g->res[k];
		if (wl->req[r] <= 0 || mode[r] != KQ_PREEMPT)
			continue;
		struct kq_wl alone = *wl; /* the request of this resource only */
		for (int o = 0; o < s->n_res; o++)
			if (o != r)
				alone.req[o] = 0;
		int fr = kq_fr(s, f, r);
		one[fr] = 1;
		t.n = 0;
		if (!s->nodes[wl->queue].cfg.no_preemption && !wl->no_preempt)
			rc = kq_find_targets(s, &alone, flavor, one, now, &t);
		one[fr] = 0;
		mode[r] = targets_mode(wl, &t);
		for (size_t i = 0; i < t.n; i++)
			kq_unbook_running(s, t.v[i].wl);
		level[r] = borrow_height(s, wl->queue, fr, wl->req[r]);
		for (size_t i = 0; i < t.n; i++)
			kq_rebook_running(s, t.v[i].wl);
	}
	kq_fr_flags_free(one, one_stack);
	free(t.v);
	return rc;
}

/* The victims for every contested resource of the chosen flavor together; none
 * leaves the entry without candidates (no other flavor is tried then). */
static int search_joint(struct kq_sched *s, struct kq_wl *wl, const struct kq_group *g, const int16_t *flavor,
			sim_time_t now, struct flavor_try *ft)
{
	uint8_t stack[KQ_FR_STACK];
	uint8_t *contested = kq_fr_flags(s, stack);
	if (!contested)
		return -SIM_ENOMEM;
	for (int k = 0; k < g->n_res; k++) {
		int r = g->res[k];
		if (wl->req[r] > 0) {
			int fr = kq_fr(s, ft->flavor, r);
			contested[fr] = wl->req[r] > kq_available(s, wl->queue, fr);
		}
	}
	int rc = wl->no_preempt ? 0 : kq_find_targets(s, wl, flavor, contested, now, &ft->targets);
	kq_fr_flags_free(contested, stack);
	if (!rc)
		ft->mode = targets_mode(wl, &ft->targets);
	return rc;
}

/* Tries one flavor for a group: fills ft (mode, level, targets). `flavor` holds
 * the assignment so far; the group's resources are set to f here. The flavor's
 * representative mode is its worst (mode, level) pair over the group's resources
 * under the queue's preference (flavorassigner's representative mode); preemption
 * is simulated for the contested resources together, and a resource that needs it
 * gets its borrowing level after the targets are gone (rule F3), or on the
 * current usage when there are none. */
static int try_flavor(struct kq_sched *s, struct kq_wl *wl, const struct kq_group *g, int f, int16_t *flavor,
		      sim_time_t now, struct flavor_try *ft)
{
	const struct kq_queue_cfg *cfg = &s->nodes[wl->queue].cfg;
	uint8_t stack[KQ_FR_STACK];
	uint8_t *contested = kq_fr_flags(s, stack);
	if (!contested)
		return -SIM_ENOMEM;
	enum kq_mode mode[SIM_MAX_RES];
	int level[SIM_MAX_RES], any_preempt = 0, any_nofit = 0;
	ft->flavor = f;
	ft->exceeds = 0;
	ft->targets.n = 0;
	for (int k = 0; k < g->n_res; k++) {
		int r = g->res[k];
		if (wl->req[r] <= 0)
			continue;
		flavor[r] = (int16_t)f;
		int fr = kq_fr(s, f, r), exceeds = 0;
		level[r] = 0;
		mode[r] = resource_mode(s, wl, fr, wl->req[r], &level[r], &exceeds);
		contested[fr] = mode[r] == KQ_PREEMPT;
		any_preempt |= mode[r] == KQ_PREEMPT;
		any_nofit |= mode[r] == KQ_NOFIT;
		ft->exceeds |= exceeds;
	}
	int rc = 0;
	int n_requested = 0; /* a one-resource request: its simulation is the victim search */
	for (int r = 0; r < s->n_res; r++)
		n_requested += wl->req[r] > 0;
	ft->joint = 0;
	if (!any_nofit && any_preempt && n_requested == 1)
		rc = simulate_together(s, wl, g, f, flavor, contested, now, mode, level, ft);
	else if (!any_nofit && any_preempt)
		rc = simulate_each(s, wl, g, f, flavor, now, mode, level);
	ft->joint = !rc && !any_nofit && any_preempt && n_requested > 1;
	int have = 0;
	ft->mode = KQ_FIT;
	ft->level = 0;
	for (int k = 0; k < g->n_res; k++) {
		int r = g->res[k];
		if (wl->req[r] <= 0)
			continue;
		if (!have || pair_preferred(cfg, ft->mode, ft->level, mode[r], level[r])) {
			ft->mode = mode[r];
			ft->level = level[r];
		}
		have = 1;
	}
	kq_fr_flags_free(contested, stack);
	return rc;
}

static int should_try_next(const struct kq_queue_cfg *cfg, const struct flavor_try *ft)
{
	if (ft->mode == KQ_NOFIT || ft->mode == KQ_NO_CANDIDATES)
		return 1;
	if ((ft->mode == KQ_PREEMPT || ft->mode == KQ_RECLAIM) && cfg->fung_preempt_try_next)
		return 1;
	if (ft->level > 0 && cfg->fung_borrow_try_next)
		return 1;
	return 0;
}

/* isPreferred between two flavors: is a strictly better than b (b is earlier)? */
static int is_preferred(const struct kq_queue_cfg *cfg, const struct flavor_try *a, const struct flavor_try *b)
{
	return pair_preferred(cfg, a->mode, a->level, b->mode, b->level);
}

static void ft_swap(struct flavor_try *a, struct flavor_try *b)
{
	struct flavor_try t = *a;
	*a = *b;
	*b = t;
}

/* Result of nominating one workload. */
struct nomination {
	struct kq_wl *wl;
	int16_t flavor[SIM_MAX_RES];
	enum kq_mode mode;
	int level;
	int exceeds;
	int no_room;        /* first fit: some flavor had the quota but not the nodes */
	struct kq_targets targets;
};

static int group_has(const struct kq_group *g, int f)
{
	for (int i = 0; i < g->n_flavors; i++)
		if (g->flavors[i] == f)
			return 1;
	return 0;
}

static int wl_allows(const struct kq_wl *wl, int f)
{
	if (!wl->n_allow)
		return 1;
	for (int k = 0; k < wl->n_allow; k++)
		if (wl->allow[k] == f)
			return 1;
	return 0;
}

/* The flavors of group g that wl may use, in the order they are tried: the queue's
 * flavor_order, or (job order, first fit) the workload's own order, where flavors
 * outside the group are skipped. Writes at most KQ_MAX_GROUP_FLAVORS; returns how many. */
static int walk_order(const struct kq_wl *wl, const struct kq_group *g, int *out)
{
	int n = 0;
	if (wl->n_allow && (wl->job_order || wl->first_fit)) {
		for (int k = 0; k < wl->n_allow && k < SIM_MAX_OPTIONS; k++)
			if (group_has(g, wl->allow[k]))
				out[n++] = wl->allow[k];
		return n;
	}
	for (int i = 0; i < g->n_flavors; i++)
		if (wl_allows(wl, g->flavors[i]))
			out[n++] = g->flavors[i];
	return n;
}

/* First fit for one group (kq_wl.first_fit): the first flavor of the walk where every
 * requested resource of the group is Fit on quota now (any borrowing level) and the
 * nodes have room wins. No preemption is simulated: Preempt counts as no fit. With
 * none, the workload is NoFit (exceeds: no flavor can ever hold it; no_room: some
 * flavor had the quota but not the nodes). */
static void first_fit_group(struct kq_sched *s, struct kq_wl *wl, const struct kq_group *g, const int *order,
			    int n, struct nomination *nom)
{
	int all_exceed = 1;
	for (int i = 0; i < n; i++) {
		int f = order[i], level = 0, fits = 1, exceeds = 0;
		const sim_qty_t *rq = wl->req; /* the request on f (kq_wl.opt_req) */
		for (int k = 0; wl->opt_req && k < wl->n_allow; k++)
			if (wl->allow[k] == f)
				rq = wl->opt_req + (size_t)k * SIM_MAX_RES;
		for (int k = 0; k < g->n_res; k++) {
			int r = g->res[k], ex = 0;
			if (rq[r] <= 0)
				continue;
			if (resource_mode(s, wl, kq_fr(s, f, r), rq[r], &level, &ex) != KQ_FIT)
				fits = 0;
			exceeds |= ex;
		}
		all_exceed &= exceeds;
		if (!fits)
			continue;
		if (s->room && !s->room(s->room_arg, wl, f)) {
			nom->no_room = 1;
			continue;
		}
		for (int k = 0; k < g->n_res; k++)
			wl->req[g->res[k]] = rq[g->res[k]];
		for (int k = 0; k < g->n_res; k++)
			if (wl->req[g->res[k]] > 0)
				nom->flavor[g->res[k]] = (int16_t)f;
		if (level > nom->level)
			nom->level = level;
		return;
	}
	nom->mode = KQ_NOFIT;
	nom->exceeds |= all_exceed && g->n_flavors > 0;
}

static int assign_group(struct kq_sched *s, struct kq_wl *wl, const struct kq_group *g, sim_time_t now,
			struct nomination *nom)
{
	const struct kq_queue_cfg *cfg = &s->nodes[wl->queue].cfg;
	struct flavor_try best = { .flavor = -1, .mode = KQ_NOFIT }, cur = { 0 };
	int rc = 0, all_exceed = 1, have_best = 0;
	int order[KQ_MAX_GROUP_FLAVORS];
	int n = walk_order(wl, g, order);
	if (wl->first_fit) {
		first_fit_group(s, wl, g, order, n, nom);
		return 0;
	}
	for (int i = 0; i < n && !rc; i++) {
		int16_t trial[SIM_MAX_RES];
		memcpy(trial, nom->flavor, sizeof trial);
		rc = try_flavor(s, wl, g, order[i], trial, now, &cur);
		if (rc)
			break;
		all_exceed &= cur.exceeds;
		int stop = !should_try_next(cfg, &cur);
		if (!have_best || is_preferred(cfg, &cur, &best) || stop) {
			ft_swap(&best, &cur);
			have_best = 1;
		}
		if (stop)
			break;
	}
	free(cur.targets.v);
	if (rc) {
		free(best.targets.v);
		return rc;
	}
	if (!have_best || best.mode == KQ_NOFIT) {
		nom->mode = KQ_NOFIT;
		nom->exceeds |= all_exceed && g->n_flavors > 0;
		free(best.targets.v);
		return 0;
	}
	for (int k = 0; k < g->n_res; k++)
		if (wl->req[g->res[k]] > 0)
			nom->flavor[g->res[k]] = (int16_t)best.flavor;
	if (best.joint && (best.mode == KQ_PREEMPT || best.mode == KQ_RECLAIM) &&
	    (rc = search_joint(s, wl, g, nom->flavor, now, &best))) {
		free(best.targets.v);
		return rc;
	}
	if (best.mode < nom->mode)
		nom->mode = best.mode;
	if (best.level > nom->level)
		nom->level = best.level;
	if (best.targets.n) { /* the group that needs preemption (one group in practice) */
		free(nom->targets.v);
		nom->targets = best.targets;
	} else {
		free(best.targets.v);
	}
	return 0;
}

/* Which group covers resource r in the queue's flavor_order, or -1. */
static int group_of(const struct kq_queue_cfg *cfg, int r)
{
	for (int g = 0; g < cfg->n_groups; g++)
		for (int k = 0; k < cfg->groups[g].n_res; k++)
			if (cfg->groups[g].res[k] == r)
				return g;
	return -1;
}

static int nominate_uncached(struct kq_sched *s, struct kq_wl *wl, sim_time_t now, struct nomination *nom);
static int nominate(struct kq_sched *s, struct kq_wl *wl, sim_time_t now, struct nomination *nom);
static struct kq_scratch *cycle_scratch(struct kq_sched *s, size_t n);

/* ---- memos of nominations that admitted nothing ---- */

/* Does memo entry f hold wl's request class? Everything a nomination reads of the
 * workload it nominates: its request, priority, the flavors it may use and in which
 * order, whether it may preempt now, and its creation time where the queue's
 * within-queue policy compares it. (Its tie-break and name only order victims and
 * messages; a nomination without victims has neither.) */
/* The class fields but no_preempt of a and b, two kq_failed or kq_wl (their fields of
 * these names agree), equal for a workload of queue q: one comparison for a memo's
 * class (same_class) and two workloads' (kq_same_class, E25), so the two cannot
 * drift apart. */
#define CLASS_FIELDS_EQUAL(s, q, a, b)                                                                    \
	((a)->req[0] == (b)->req[0] && (a)->priority == (b)->priority && (a)->n_allow == (b)->n_allow &&     \
	 (a)->job_order == (b)->job_order && memcmp((a)->req, (b)->req, sizeof (a)->req) == 0 &&           \
	 memcmp((a)->allow, (b)->allow, (size_t)(b)->n_allow * sizeof *(a)->allow) == 0 &&                 \
	 ((s)->nodes[q].cfg.within != KQ_LOWER_OR_NEWER_EQUAL || (a)->created == (b)->created))

static int same_class(const struct kq_sched *s, const struct kq_failed *f, const struct kq_wl *wl)
{
	return f->no_preempt == wl->no_preempt && CLASS_FIELDS_EQUAL(s, wl->queue, f, wl);
}

/* A digest of what same_class compares (never 0): two workloads of one class have
 * the same digest; different classes usually differ. The part without no_preempt
 * is kept in the workload, for its priority (which may change while it waits); a
 * caller that changes its request, flavors or creation time clears it. A stale
 * digest could only miss a memo: a class is always compared in full. */
static uint64_t class_digest(const struct kq_sched *s, struct kq_wl *wl)
{
	if (!wl->digest || wl->digest_prio != wl->priority) {
		const uint64_t prime = 0x100000001b3ull; /* FNV-1a's 64-bit prime */
		uint64_t h = 0xcbf29ce484222325ull ^ (uint32_t)wl->priority;
		for (int r = 0; r < SIM_MAX_RES; r++)
			h = (h ^ (uint64_t)wl->req[r]) * prime;
		h = (h ^ ((uint64_t)wl->n_allow << 8 | (uint64_t)wl->job_order << 16)) * prime;
		for (int k = 0; k < wl->n_allow; k++)
			h = (h ^ (uint16_t)wl->allow[k]) * prime;
		if (s->nodes[wl->queue].cfg.within == KQ_LOWER_OR_NEWER_EQUAL)
			h = (h ^ (uint64_t)wl->created) * prime;
		wl->digest = h | 1;
		wl->digest_prio = wl->priority;
	}
	return (wl->digest ^ (wl->no_preempt ? 0x9e3779b97f4a7c14ull : 0)) | 1;
}

uint64_t kq_class_key(const struct kq_sched *s, struct kq_wl *wl)
{
	(void)class_digest(s, wl); /* brings wl->digest up to date */
	return wl->digest;
}

int kq_same_class(const struct kq_sched *s, const struct kq_wl *a, const struct kq_wl *b)
{
	return a->queue == b->queue && CLASS_FIELDS_EQUAL(s, a->queue, a, b);
}

unsigned long kq_test_mono_hits, kq_test_own_hits;

/* Has a queue of root's tree reached a share of at least at->pnew (above it, with
 * pnew_eq) at an admission since the stamp (docs/kueue-rules.md E14)? The first
 * entry of the rise stack after the stamp holds the highest share reached since. */
static int rise_reaches(const struct kq_rise *e, const struct kq_stamp *at)
{
	if (at->pnew_eq)
		return kq_share_below(at->pnew_v, at->pnew_u, e->v, e->u);
	return !kq_share_below(e->v, e->u, at->pnew_v, at->pnew_u);
}

static int share_rose_to(const struct kq_node *root, const struct kq_stamp *at)
{
	/* Nothing logged since, or not even the oldest entry (the highest) reaches it. */
	if (!root->n_rise || root->rise[root->n_rise - 1].seq <= at->rise)
		return 0;
	int rose = 0;
	if (rise_reaches(&root->rise[0], at)) {
		uint32_t lo = 0, hi = root->n_rise;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (root->rise[mid].seq <= at->rise)
				lo = mid + 1;
			else
				hi = mid;
		}
		rose = lo < root->n_rise && rise_reaches(&root->rise[lo], at);
	}
	/* No: the stamp may start from the stack's top, and a later look that finds no new
	 * entry answers without the search (a head is looked at many times between two
	 * admissions). Exact: the entries are in falling share, oldest first, and a new
	 * entry removes those it reaches; so the entries after the top are below every
	 * entry kept from before it, which do not reach pnew. The stamp is a memo's
	 * cache, logically const. */
	if (!rose)
		((struct kq_stamp *)at)->rise = root->rise[root->n_rise - 1].seq;
	return rose;
}

/* The lowest priority admitted into queue q after its admission count `since`
 * (INT32_MAX: none): the first entry of its log after it (E16). */
static int32_t lowest_admitted_since(const struct kq_node *q, uint64_t since)
{
	if (since == q->adm_seq)
		return INT32_MAX; /* none since */
	uint32_t lo = 0, hi = q->n_adm;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (q->adm[mid].seq <= since)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == q->n_adm ? INT32_MAX : q->adm[lo].prio;
}

/* The lowest priority of a job whose admission into wl's queue leaves an E16 memo
 * of wl true: one its within-queue policy may not take (band_allowed). */
static int32_t harmless_from(const struct kq_sched *s, const struct kq_wl *wl)
{
	switch (s->nodes[wl->queue].cfg.within) {
	case KQ_NEVER:
		return INT32_MIN;
	case KQ_LOWER_PRIORITY:
		return wl->priority;
	case KQ_LOWER_OR_NEWER_EQUAL:
		return wl->priority == INT32_MAX ? INT32_MAX : wl->priority + 1;
	default:
		return INT32_MAX; /* every admission may give a candidate */
	}
}

/* Is queue q's running set still one the memo at `at` holds for: unchanged, or
 * (at->fine, E16) nothing released since and every admission of a priority the
 * preemptor's within-queue policy may not take? */
static int own_running_holds(const struct kq_node *q, const struct kq_stamp *at)
{
	if (!at->fine)
		return at->madd == q->madd;
	return at->mrm == q->mrm && (!q->n_adm || q->adm[0].prio >= at->harm_below || /* every entry is */
				     lowest_admitted_since(q, at->aseq) >= at->harm_below);
}

/* Does a memo made at stamp `at` for a workload of `queue` still hold at `now`? */
static int stamp_live(const struct kq_sched *s, int queue, const struct kq_stamp *at, sim_time_t now)
{
	if (!at->gen)
		return 0;
	if (at->gen == s->gen && at->now == now)
		return 1;
	const struct kq_node *q = &s->nodes[queue];
	const struct kq_node *root = &s->nodes[q->root];
	if (at->own) { /* E16: only its own queue and the root's usage were read (and, for
			* fair sharing's refusal, the shares logged since: E14) */
		int live = at->mono && at->igen == s->igen && own_running_holds(q, at) &&
			   at->base - root->usage[at->fr] < at->short_by &&
			   (at->pnew_v < 0 || (at->mgen == s->mgen && !share_rose_to(root, at)));
		if (kq_test_oracle & KQ_TEST_COUNT_MONO) {
			kq_test_mono_hits += live;
			kq_test_own_hits += live;
		}
		return live;
	}
	sim_qty_t since = (at->fr >= 0 ? root->freed[at->fr] : root->released) - at->base;
	int live = at->mono && at->mgen == s->mgen && own_running_holds(q, at) && since < at->short_by &&
		   (at->pnew_v < 0 || !share_rose_to(root, at));
	if (kq_test_oracle & KQ_TEST_COUNT_MONO)
		kq_test_mono_hits += live;
	return live;
}

/* The stamp of a memo made now; mono: the fresh nomination was monotone, refused
 * by at least s->nom_short. */
static struct kq_stamp stamp_now(const struct kq_sched *s, const struct kq_wl *wl, int mono, sim_time_t now)
{
	const struct kq_node *q = &s->nodes[wl->queue], *root = &s->nodes[q->root];
	int32_t fr = s->nom_fr >= 0 && q->borrow_limit[s->nom_fr] == KQ_UNSET ? s->nom_fr : -1;
	int own = mono && s->nom_own && fr >= 0;
	/* E16 for fair sharing's monotone memos (E14): their own queue read as finely */
	int fine = own || (mono && s->fair && !(kq_test_oracle & KQ_ORACLE_NO_OWN_MEMO));
	return (struct kq_stamp){ .gen = s->gen,
				  .mgen = s->mgen,
				  .madd = q->madd,
				  .igen = s->igen,
				  .mrm = q->mrm,
				  .aseq = q->adm_seq,
				  .harm_below = harmless_from(s, wl),
				  .short_by = s->nom_short,
				  .base = own ? root->usage[fr] : fr >= 0 ? root->freed[fr] : root->released,
				  .now = now,
				  .pnew_v = s->nom_pnew_v,
				  .pnew_u = s->nom_pnew_u,
				  .rise = root->rise_seq,
				  .fr = fr,
				  .mono = (uint8_t)mono,
				  .pnew_eq = (uint8_t)s->nom_pnew_eq,
				  .own = (uint8_t)own,
				  .fine = (uint8_t)fine };
}

/* The live class memo of wl's queue that answers wl now, or NULL. */
static const struct kq_failed *class_memo(const struct kq_sched *s, struct kq_wl *wl, sim_time_t now)
{
	const struct kq_node *q = &s->nodes[wl->queue];
	uint64_t d = class_digest(s, wl);
	for (int i = 0; i < KQ_FAILED_CLASSES; i++) {
		if (q->failed_digest[i] != d)
			continue;
		const struct kq_failed *f = &q->failed[i];
		if (stamp_live(s, wl->queue, &f->at, now) && same_class(s, f, wl))
			return f;
	}
	return NULL;
}

/* A memo can answer wl: first-fit nominations are never kept (they depend on the
 * nodes' room, which the tree's generation does not follow), nor any under the
 * oracle. */
static int memo_applies(const struct kq_wl *wl)
{
	return !(kq_test_oracle & KQ_ORACLE_NO_MEMO) && !wl->first_fit;
}

/* The workload's own memo answers it now: it still holds, same time, same may-preempt. */
static int own_memo_holds(const struct kq_sched *s, const struct kq_wl *wl, sim_time_t now)
{
	return wl->nom_no_preempt == wl->no_preempt && stamp_live(s, wl->queue, &wl->nom, now);
}

/* wl's own memo takes the answer of class memo f (the same answer: f holds wl's
 * class at this tree and time), so its nomination reads it without a lookup. */
static void own_memo_from_class(struct kq_wl *wl, const struct kq_failed *f)
{
	wl->nom = f->at;
	wl->nom_mode = f->mode;
	wl->nom_level = f->level;
	wl->nom_exceeds = f->exceeds;
	wl->nom_no_preempt = wl->no_preempt;
	memcpy(wl->nom_flavor, f->flavor, sizeof wl->nom_flavor);
}

int kq_known_inadmissible(const struct kq_sched *s, struct kq_wl *wl, sim_time_t now)
{
	if (!memo_applies(wl))
		return 0;
	if (own_memo_holds(s, wl, now))
		return 1;
	const struct kq_failed *f = class_memo(s, wl, now);
	if (!f)
		return 0;
	own_memo_from_class(wl, f);
	return 1;
}

int kq_inadmissible(struct kq_sched *s, struct kq_wl *wl, sim_time_t now)
{
	if (!memo_applies(wl))
		return 0;
	if (kq_known_inadmissible(s, wl, now))
		return 1;
	struct kq_scratch *sc = kq_scratch_get(s);
	if (!sc || (!sc->probe && !(sc->probe = calloc(1, sizeof(struct nomination)))))
		return -SIM_ENOMEM;
	sc->probe_wl = NULL;
	struct nomination *nom = sc->probe;
	int rc = nominate(s, wl, now, nom);
	if (rc)
		return rc;
	if (nom->mode == KQ_NOFIT || nom->mode == KQ_NO_CANDIDATES)
		return 1;
	sc->probe_wl = wl; /* for the cycle that follows (take_probe) */
	sc->probe_gen = s->gen;
	sc->probe_ver = s->usage_ver;
	sc->probe_now = now;
	sc->probe_np = wl->no_preempt;
	return 0;
}

/* kq_inadmissible's nomination of wl, if it was made on this very tree and time:
 * moved into *nom (their target arrays swapped), 1; else 0. Nominating again would
 * give the same. */
static int take_probe(struct kq_sched *s, const struct kq_wl *wl, sim_time_t now, struct nomination *nom)
{
	struct kq_scratch *sc = s->scratch;
	if (!sc || sc->probe_wl != wl || sc->probe_gen != s->gen || sc->probe_ver != s->usage_ver ||
	    sc->probe_now != now || sc->probe_np != wl->no_preempt)
		return 0;
	struct nomination t = *nom;
	*nom = *(struct nomination *)sc->probe;
	*(struct nomination *)sc->probe = t;
	sc->probe_wl = NULL;
	return 1;
}

static void remember_class(struct kq_sched *s, struct kq_wl *wl, sim_time_t now, const struct nomination *nom,
			   int mono)
{
	struct kq_node *q = &s->nodes[wl->queue];
	int slot = -1;
	for (int i = 0; i < KQ_FAILED_CLASSES && slot < 0; i++)
		if (!stamp_live(s, wl->queue, &q->failed[i].at, now))
			slot = i; /* a stale entry */
	if (slot < 0) {
		slot = q->failed_next;
		q->failed_next = (uint8_t)((q->failed_next + 1) % KQ_FAILED_CLASSES);
	}
	struct kq_failed *f = &q->failed[slot];
	memset(f, 0, sizeof *f);
	q->failed_digest[slot] = class_digest(s, wl);
	f->at = stamp_now(s, wl, mono, now);
	memcpy(f->req, wl->req, sizeof f->req);
	f->priority = wl->priority;
	f->created = wl->created;
	f->no_preempt = wl->no_preempt;
	f->n_allow = wl->n_allow;
	f->job_order = wl->job_order;
	memcpy(f->allow, wl->allow, sizeof f->allow);
	memcpy(f->flavor, nom->flavor, sizeof f->flavor);
	f->mode = (int8_t)nom->mode;
	f->level = (int8_t)nom->level;
	f->exceeds = (uint8_t)nom->exceeds;
}

/* May a fresh nomination of wl give a monotone memo (docs/kueue-rules.md E13)?
 * A request of one resource, and a queue alone or in a flat tree: then an answer
 * that no victim search overturned (NoFit; or no candidates because no search was
 * allowed or, classical, the aggregate bound ruled every set out, which
 * classical_targets leaves kq_sched.nom_mono set for) stays true through any
 * admission into another queue that admission_is_monotone accepts. Under fair
 * sharing (E14) the refusal that keeps it set is the share rule's (fair_targets),
 * and it holds while no other queue's share rises to the preemptor's. */
static int mono_eligible(const struct kq_sched *s, const struct kq_wl *wl)
{
	if (kq_test_oracle & KQ_ORACLE_MEMO_GEN)
		return 0;
	/* Fair sharing (E14): only while no candidate of its own queue can appear with
	 * time (no minimum runtime protects one) and none is set aside for this
	 * cycle's earlier victims. */
	if (s->fair && (s->nodes[wl->queue].cfg.min_runtime_ns > 0 || s->skip_mark))
		return 0;
	int n_requested = 0;
	for (int r = 0; r < s->n_res; r++)
		n_requested += wl->req[r] > 0;
	if (n_requested != 1)
		return 0;
	return s->nodes[wl->queue].parent < 0 || kq_flat_tree(s, wl->queue);
}

static void answer_from_memo(struct kq_wl *wl, struct nomination *nom, int mode, int level, int exceeds,
			     const int16_t *flavor)
{
	nom->wl = wl;
	nom->mode = (enum kq_mode)mode;
	nom->level = level;
	nom->exceeds = exceeds;
	nom->no_room = 0;
	nom->targets.n = 0;
	memcpy(nom->flavor, flavor, sizeof nom->flavor);
}

static int nominate(struct kq_sched *s, struct kq_wl *wl, sim_time_t now, struct nomination *nom)
{
	if (memo_applies(wl) && own_memo_holds(s, wl, now)) {
		answer_from_memo(wl, nom, wl->nom_mode, wl->nom_level, wl->nom_exceeds, wl->nom_flavor);
		return 0;
	}
	const struct kq_failed *f = memo_applies(wl) ? class_memo(s, wl, now) : NULL;
	if (f) {
		answer_from_memo(wl, nom, f->mode, f->level, f->exceeds, f->flavor);
		return 0;
	}
	s->nom_mono = mono_eligible(s, wl);
	/* hopeless_classical clears it when other queues were read; a fair-sharing
	 * answer that stays monotone read other queues only through their shares (E14) */
	s->nom_own = s->nom_mono && !(kq_test_oracle & KQ_ORACLE_NO_OWN_MEMO);
	s->nom_short = KQ_SHORT_INF;
	s->nom_fr = -1;
	s->nom_pnew_v = -1;
	s->nom_pnew_u = 0;
	s->nom_pnew_eq = 0;
	int rc = nominate_uncached(s, wl, now, nom);
	int mono = s->nom_mono;
	s->nom_mono = 0;
	wl->nom.gen = 0;
	if (!rc && memo_applies(wl) && (nom->mode == KQ_NOFIT || nom->mode == KQ_NO_CANDIDATES)) {
		wl->nom = stamp_now(s, wl, mono, now);
		wl->nom_mode = (int8_t)nom->mode;
		wl->nom_level = (int8_t)nom->level;
		wl->nom_exceeds = (uint8_t)nom->exceeds;
		wl->nom_no_preempt = wl->no_preempt;
		memcpy(wl->nom_flavor, nom->flavor, sizeof wl->nom_flavor);
		remember_class(s, wl, now, nom, mono);
	}
	return rc;
}

static int nominate_uncached(struct kq_sched *s, struct kq_wl *wl, sim_time_t now, struct nomination *nom)
{
	const struct kq_queue_cfg *cfg = &s->nodes[wl->queue].cfg;
	nom->wl = wl;
	nom->mode = KQ_FIT;
	nom->level = 0;
	nom->exceeds = 0;
	nom->no_room = 0;
	nom->targets.n = 0;
	for (int r = 0; r < SIM_MAX_RES; r++)
		nom->flavor[r] = -1;
	for (int r = 0; r < s->n_res; r++)
		if (wl->req[r] > 0 && group_of(cfg, r) < 0) {
			nom->mode = KQ_NOFIT; /* the queue offers no flavor for this resource */
			return 0;
		}
	for (int g = 0; g < cfg->n_groups && nom->mode != KQ_NOFIT; g++) {
		const struct kq_group *grp = &cfg->groups[g];
		int needed = 0;
		for (int k = 0; k < grp->n_res; k++)
			needed |= wl->req[grp->res[k]] > 0;
		if (!needed)
			continue;
		int rc = assign_group(s, wl, grp, now, nom);
		if (rc)
			return rc;
	}
	if (nom->mode == KQ_NOFIT)
		nom->targets.n = 0;
	return 0;
}

/* ---- ordering ---- */

static int classical_cmp(const struct nomination *a, const struct nomination *b)
{
	if (a->level != b->level)
		return a->level < b->level ? -1 : 1;
	if (a->wl->priority != b->wl->priority)
		return a->wl->priority > b->wl->priority ? -1 : 1;
	if (a->wl->created != b->wl->created)
		return a->wl->created < b->wl->created ? -1 : 1;
	return a->wl->tie < b->wl->tie ? -1 : a->wl->tie > b->wl->tie;
}

static int classical_qsort(const void *a, const void *b)
{
	return classical_cmp(*(struct nomination *const *)a, *(struct nomination *const *)b);
}

/* Sorts a cycle's entries by classical_cmp, a total order (the tie-break is
 * unique), so any correct sort gives the same order: insertion sort for the few
 * heads of a usual cycle (one a queue), qsort beyond. */
static void sort_classical(struct nomination **v, size_t n)
{
	if (n > 24) {
		qsort(v, n, sizeof *v, classical_qsort);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		struct nomination *x = v[i];
		size_t j = i;
		for (; j > 0 && classical_cmp(x, v[j - 1]) < 0; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* Fair-sharing tournament: the best entry in the subtree of `node`, or NULL. */
struct fs_pick {
	struct nomination *e;
	double drs, unweighted;
	int borrows;
};

static void entry_request_fr(const struct kq_sched *s, const struct nomination *e, sim_qty_t *out)
{
	memset(out, 0, (size_t)s->n_fr * sizeof *out);
	for (int r = 0; r < s->n_res; r++)
		if (e->wl->req[r] > 0 && e->flavor[r] >= 0)
			out[kq_fr(s, e->flavor[r], r)] += e->wl->req[r];
}

/* Is the node over its quota, on a flavor-resource the request uses? */
static int node_borrows_on(const struct kq_sched *s, int node, const sim_qty_t *req)
{
	const struct kq_node *n = &s->nodes[node];
	for (int fr = 0; fr < s->n_fr; fr++)
		if (req[fr] > 0 && n->usage[fr] > n->subtree[fr])
			return 1;
	return 0;
}

/* A child's share and borrowing with the entry admitted: its request is booked at
 * its queue and bubbles up through the lending limits as usage does, then taken
 * back. */
static void share_with_entry(struct kq_sched *s, int child, const struct nomination *e, const sim_qty_t *req,
			     struct fs_pick *p)
{
	for (int fr = 0; fr < s->n_fr; fr++)
		if (req[fr] > 0)
			kq_usage_add(s, e->wl->queue, fr, req[fr]);
	p->drs = kq_drs(s, child, NULL, &p->unweighted);
	p->borrows = node_borrows_on(s, child, req);
	for (int fr = 0; fr < s->n_fr; fr++)
		if (req[fr] > 0)
			kq_usage_remove(s, e->wl->queue, fr, req[fr]);
}

/* a beats b: not borrowing first, then lower share, priority, FIFO, tie. */
static int fs_beats(const struct fs_pick *a, const struct fs_pick *b)
{
	if (a->borrows != b->borrows)
		return !a->borrows;
	/* Two weight-0 borrowers both have an infinite share (equal as doubles): they
	 * compare by their shares before the weight. */
	if (isinf(a->drs) && isinf(b->drs)) {
		if (a->unweighted != b->unweighted)
			return a->unweighted < b->unweighted;
	} else if (a->drs != b->drs) {
		return a->drs < b->drs;
	}
	const struct kq_wl *x = a->e->wl, *y = b->e->wl; /* then priority, FIFO, id: not the level */
	if (x->priority != y->priority)
		return x->priority > y->priority;
	if (x->created != y->created)
		return x->created < y->created;
	return x->tie < y->tie;
}

/* The pending entries of a cycle under fair sharing, and where each queue's first
 * one is (its index in pending[], or -1): a tournament's leaf looks its queue up
 * instead of scanning every entry. */
struct fs_pending {
	struct nomination **v;
	size_t n;
	int32_t *first; /* per node */
	uint32_t *seen; /* per node: the pick that already ran this root's tournament */
	uint32_t pick;
	size_t n_nodes;
	/* The fast path's (docs/kueue-rules.md E12): */
	struct fs_memo *memo; /* per node: its pick as its parent's tournament saw it */
	int32_t *roots;       /* the distinct roots of the entries */
	size_t n_roots;
	size_t nofit_from;    /* no entry before it is a pending NoFit one */
	int fast;
	/* A nested tree's tournaments as heaps (E24): per cohort a heap of its children
	 * that have a pick (by fs_beats of their memo picks), in the cohort's region of
	 * `heap` from off[c], hn[c] long; hpos[node] its place in its parent's heap (-1:
	 * none); dn[c] the length of its dirty list (kq_sched.fs_dlist, the same regions)
	 * and dirty[node] the flags. heaps 0: the scans of tournament(). */
	int heaps;
	uint32_t *off, *dn, *hn;
	int32_t *dlist, *heap, *hpos;
	uint8_t *dirty;
};

/* A node's tournament pick kept while its subtree is unchanged: valid while ver equals
 * the node's kq_node.ver (bumped by every usage change in its subtree while
 * kq_sched.ver_live is set, and by a pending entry of its subtree taken). 0: none. */
struct fs_memo {
	uint64_t ver;
	struct fs_pick p;
};


static void fs_index_queue(struct fs_pending *p, int queue, size_t from)
{
	p->first[queue] = -1;
	for (size_t i = from; i < p->n; i++)
		if (p->v[i] && p->v[i]->wl->queue == queue) {
			p->first[queue] = (int32_t)i;
			return;
		}
}

static struct fs_pick tournament(struct kq_sched *s, int node, const struct fs_pending *pd, sim_qty_t *buf);

/* Child ch's pick with its share and borrowing as its parent's tournament compares
 * them; from its memo when its subtree is unchanged since (fast path). */
static struct fs_pick child_pick(struct kq_sched *s, int ch, const struct fs_pending *pd, sim_qty_t *buf)
{
	struct fs_memo *m = pd->fast ? &pd->memo[ch] : NULL;
	if (m && m->ver && m->ver == s->nodes[ch].ver)
		return m->p;
	struct fs_pick p = tournament(s, ch, pd, buf);
	if (p.e) {
		entry_request_fr(s, p.e, buf);
		share_with_entry(s, ch, p.e, buf, &p);
	}
	if (m) { /* after share_with_entry: its own booking and unbooking bumped ver */
		m->p = p;
		m->ver = s->nodes[ch].ver;
	}
	return p;
}

static struct fs_pick tournament(struct kq_sched *s, int node, const struct fs_pending *pd, sim_qty_t *buf)
{
	const struct kq_node *nd = &s->nodes[node];
	struct fs_pick best = { 0 };
	if (nd->is_queue) {
		if (pd->first[node] >= 0)
			best.e = pd->v[pd->first[node]];
		return best;
	}
	for (size_t k = 0; k < nd->n_children; k++) {
		struct fs_pick p = child_pick(s, nd->children[k], pd, buf);
		if (p.e && (!best.e || fs_beats(&p, &best)))
			best = p;
	}
	return best;
}

/* The next entry to process under fair sharing: each root's tournament winner;
 * among roots, classical order. Removes it from pending. A root's tournament runs
 * once a pick (it depends on the root and the pending entries only, so every entry
 * of that root would get the same winner). */
static struct nomination *fair_next_oracle(struct kq_sched *s, struct fs_pending *pd, sim_qty_t *buf)
{
	struct nomination *best = NULL;
	size_t best_i = 0;
	if (++pd->pick == 0) { /* wrapped: old marks could match again */
		memset(pd->seen, 0, pd->n_nodes * sizeof *pd->seen);
		pd->pick = 1;
	}
	for (size_t i = 0; i < pd->n; i++) {
		struct nomination *e = pd->v[i];
		if (!e)
			continue;
		if (e->mode == KQ_NOFIT) { /* changes nothing: take it at once */
			best = e;
			best_i = i;
			break;
		}
		int root = s->nodes[e->wl->queue].root;
		if (pd->seen[root] == pd->pick)
			continue;
		pd->seen[root] = pd->pick;
		struct fs_pick p = tournament(s, root, pd, buf);
		if (p.e && (!best || classical_cmp(p.e, best) < 0)) {
			best = p.e;
			for (size_t k = 0; k < pd->n; k++)
				if (pd->v[k] == best)
					best_i = k;
		}
	}
	if (best) {
		pd->v[best_i] = NULL;
		if (pd->first[best->wl->queue] == (int32_t)best_i)
			fs_index_queue(pd, best->wl->queue, best_i + 1);
	}
	return best;
}

/* The tournament of the one root when it is flat (its children are queues): the best of
 * the pending entries' picks, the entries visited instead of every child. fs_beats is a
 * strict total order on distinct entries (its last key is the unique tie), so the best
 * does not depend on the order of the visit. */
static struct nomination *flat_tournament(struct kq_sched *s, struct fs_pending *pd, sim_qty_t *buf)
{
	struct fs_pick best = { 0 };
	for (size_t i = 0; i < pd->n; i++) {
		if (!pd->v[i])
			continue;
		struct fs_pick p = child_pick(s, pd->v[i]->wl->queue, pd, buf);
		if (p.e && (!best.e || fs_beats(&p, &best)))
			best = p;
	}
	return best.e;
}

/* ---- E24: the tournament of a nested tree as one heap a cohort ---- */

static int fs_heap_before(const struct fs_pending *pd, int a, int b)
{
	return fs_beats(&pd->memo[a].p, &pd->memo[b].p);
}

static void fs_heap_up(struct fs_pending *pd, int32_t *h, uint32_t i)
{
	int x = h[i];
	while (i > 0 && fs_heap_before(pd, x, h[(i - 1) / 2])) {
		h[i] = h[(i - 1) / 2];
		pd->hpos[h[i]] = (int32_t)i;
		i = (i - 1) / 2;
	}
	h[i] = x;
	pd->hpos[x] = (int32_t)i;
}

static void fs_heap_down(struct fs_pending *pd, int32_t *h, uint32_t n, uint32_t i)
{
	int x = h[i];
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && fs_heap_before(pd, h[c + 1], h[c]))
			c++;
		if (!fs_heap_before(pd, h[c], x))
			break;
		h[i] = h[c];
		pd->hpos[h[i]] = (int32_t)i;
		i = c;
	}
	h[i] = x;
	pd->hpos[x] = (int32_t)i;
}

/* Child ch of cohort c has a new memo pick: into c's heap, out of it (no pick), or
 * moved to its place. */
static void fs_heap_update(struct fs_pending *pd, int c, int ch)
{
	int32_t *h = pd->heap + pd->off[c];
	uint32_t *n = &pd->hn[c];
	int32_t i = pd->hpos[ch];
	if (!pd->memo[ch].p.e) {
		if (i < 0)
			return;
		pd->hpos[ch] = -1;
		int last = h[--*n];
		if ((uint32_t)i == *n)
			return;
		h[i] = last;
		fs_heap_up(pd, h, (uint32_t)i);
		fs_heap_down(pd, h, *n, (uint32_t)pd->hpos[last]);
		return;
	}
	if (i < 0) {
		h[*n] = ch;
		fs_heap_up(pd, h, (*n)++);
		return;
	}
	fs_heap_up(pd, h, (uint32_t)i);
	fs_heap_down(pd, h, *n, (uint32_t)pd->hpos[ch]);
}

/* Cohort c's tournament winner, with its share as c's children compare: its heap's top. */
static struct fs_pick fs_heap_top(const struct fs_pending *pd, int c)
{
	struct fs_pick none = { 0 };
	return pd->hn[c] ? pd->memo[pd->heap[pd->off[c]]].p : none;
}

/* child_pick's answer for ch from the heaps (ch a cohort whose heap is current) into
 * its memo. Booking the entry to read the share changes nothing in the end, so it
 * flags no node dirty. */
static void fs_child_compute(struct kq_sched *s, struct fs_pending *pd, int ch, sim_qty_t *buf)
{
	struct fs_pick p = { 0 };
	if (!s->nodes[ch].is_queue)
		p = fs_heap_top(pd, ch);
	else if (pd->first[ch] >= 0)
		p.e = pd->v[pd->first[ch]];
	if (p.e) {
		uint8_t *d = s->fs_dirty;
		s->fs_dirty = NULL;
		entry_request_fr(s, p.e, buf);
		share_with_entry(s, ch, p.e, buf, &p);
		s->fs_dirty = d;
	}
	pd->memo[ch].p = p;
}

/* Recomputes the children of cohort c that changed since its heap was last current
 * (its dirty list), each after its own subtree, and puts them in their places. */
static void fs_heap_refresh(struct kq_sched *s, struct fs_pending *pd, int c, sim_qty_t *buf)
{
	int32_t *l = pd->dlist + pd->off[c];
	while (pd->dn[c]) {
		int ch = l[--pd->dn[c]];
		pd->dirty[ch] = 0;
		if (!s->nodes[ch].is_queue)
			fs_heap_refresh(s, pd, ch, buf);
		fs_child_compute(s, pd, ch, buf);
		fs_heap_update(pd, c, ch);
	}
}

/* tournament(root) from the heaps, brought up to date. */
static struct fs_pick fs_heap_tournament(struct kq_sched *s, struct fs_pending *pd, int root, sim_qty_t *buf)
{
	if (s->nodes[root].is_queue) /* a queue alone: its first entry, as tournament() */
		return tournament(s, root, pd, buf);
	fs_heap_refresh(s, pd, root, buf);
	return fs_heap_top(pd, root);
}

/* fair_next_oracle's choice without its scans (docs/kueue-rules.md E12): the first
 * pending NoFit entry from a cursor (an entry never becomes NoFit, so none is
 * behind it); else the best of the distinct roots' tournaments, each child's pick
 * kept while its subtree is unchanged; the winner is its queue's first entry. */
static struct nomination *fair_next_fast(struct kq_sched *s, struct fs_pending *pd, sim_qty_t *buf)
{
	struct nomination *best = NULL;
	for (; pd->nofit_from < pd->n; pd->nofit_from++) {
		struct nomination *e = pd->v[pd->nofit_from];
		if (e && e->mode == KQ_NOFIT) {
			best = e;
			break;
		}
	}
	int decided = best != NULL; /* a NoFit entry goes first */
	if (!decided && pd->n_roots == 1 && s->nodes[pd->roots[0]].height == 1) {
		best = flat_tournament(s, pd, buf);
		decided = 1;
	}
	for (size_t k = 0; !decided && k < pd->n_roots; k++) { /* each root's winner; classical among them */
		struct fs_pick p = pd->heaps ? fs_heap_tournament(s, pd, pd->roots[k], buf)
					     : tournament(s, pd->roots[k], pd, buf);
		if (p.e && (!best || classical_cmp(p.e, best) < 0))
			best = p.e;
	}
	if (!best)
		return NULL;
	size_t best_i = pd->nofit_from < pd->n && pd->v[pd->nofit_from] == best ? pd->nofit_from
										 : (size_t)pd->first[best->wl->queue];
	pd->v[best_i] = NULL;
	if (pd->first[best->wl->queue] == (int32_t)best_i)
		fs_index_queue(pd, best->wl->queue, best_i + 1);
	kq_ver_bump(s, best->wl->queue); /* its queue's first entry changed */
	return best;
}

static struct nomination *fair_next(struct kq_sched *s, struct fs_pending *pd, sim_qty_t *buf)
{
	return pd->fast ? fair_next_fast(s, pd, buf) : fair_next_oracle(s, pd, buf);
}

/* pd's heaps (E24) over the scheduler's kept arrays: every cohort a region of its
 * children's count, empty heaps and dirty lists. O(nodes), as the first pick's
 * tournament is. Tracking starts here (kq_cycle ends it after the order): each
 * pending entry's queue is flagged with its path, as a change would flag it, so the
 * first pick computes just the nodes above pending entries (the others have no pick
 * and stay out of the heaps). */
static void fs_heaps_init(struct kq_sched *s, struct fs_pending *pd, struct kq_scratch *sc)
{
	size_t nn = pd->n_nodes;
	pd->heaps = 1;
	pd->off = sc->fs_u32;
	pd->dn = sc->fs_u32 + nn;
	pd->hn = sc->fs_u32 + 2 * nn;
	pd->dlist = sc->fs_i32;
	pd->heap = sc->fs_i32 + nn;
	pd->hpos = sc->fs_i32 + 2 * nn;
	pd->dirty = sc->fs_dirty;
	uint32_t at = 0;
	for (size_t i = 0; i < s->n_nodes; i++) {
		pd->off[i] = at;
		at += (uint32_t)s->nodes[i].n_children;
		pd->dn[i] = pd->hn[i] = 0;
		pd->hpos[i] = -1;
	}
	memset(pd->dirty, 0, nn);
	s->fs_dirty = pd->dirty;
	s->fs_dlist = pd->dlist;
	s->fs_doff = pd->off;
	s->fs_dn = pd->dn;
	for (size_t i = 0; i < pd->n; i++)
		kq_dirty_path(s, pd->v[i]->wl->queue);
}

/* Sets up pd over pending[0..n) with the scheduler's kept per-node arrays; 0 or
 * -SIM_ENOMEM. */
static int fs_pending_init(struct kq_sched *s, struct fs_pending *pd, struct nomination **pending, size_t n)
{
	struct kq_scratch *sc = s->scratch; /* made by cycle_scratch */
	size_t nn = s->n_nodes ? s->n_nodes : 1;
	if (sc->cap_fs_nodes < nn) {
		int32_t *first = realloc(sc->fs_first, nn * sizeof *first);
		if (!first)
			return -SIM_ENOMEM;
		sc->fs_first = first;
		uint32_t *seen = realloc(sc->fs_seen, nn * sizeof *seen);
		if (!seen)
			return -SIM_ENOMEM;
		memset(seen, 0, nn * sizeof *seen);
		sc->fs_seen = seen;
		sc->fs_pick = 0;
		struct fs_memo *memo = realloc(sc->fs_memo, nn * sizeof *memo);
		if (!memo)
			return -SIM_ENOMEM;
		sc->fs_memo = memo;
		int32_t *roots = realloc(sc->fs_roots, nn * sizeof *roots);
		if (!roots)
			return -SIM_ENOMEM;
		sc->fs_roots = roots;
		uint32_t *u32 = realloc(sc->fs_u32, 3 * nn * sizeof *u32);
		if (!u32)
			return -SIM_ENOMEM;
		sc->fs_u32 = u32;
		int32_t *i32 = realloc(sc->fs_i32, 3 * nn * sizeof *i32);
		if (!i32)
			return -SIM_ENOMEM;
		sc->fs_i32 = i32;
		uint8_t *dirty = realloc(sc->fs_dirty, nn);
		if (!dirty)
			return -SIM_ENOMEM;
		sc->fs_dirty = dirty;
		sc->cap_fs_nodes = nn;
	}
	*pd = (struct fs_pending){
		.v = pending, .n = n, .first = sc->fs_first, .seen = sc->fs_seen, .pick = sc->fs_pick, .n_nodes = nn
	};
	for (size_t q = 0; q < s->n_nodes; q++)
		pd->first[q] = -1;
	for (size_t i = n; i-- > 0;)
		pd->first[pending[i]->wl->queue] = (int32_t)i;
	pd->fast = !(kq_test_oracle & KQ_ORACLE_TOURNAMENT);
	if (!pd->fast)
		return 0;
	pd->memo = sc->fs_memo;
	memset(pd->memo, 0, nn * sizeof *pd->memo);
	pd->roots = sc->fs_roots;
	if (++pd->pick == 0) { /* wrapped: old marks could match again */
		memset(pd->seen, 0, nn * sizeof *pd->seen);
		pd->pick = 1;
	}
	for (size_t i = 0; i < n; i++) {
		int root = s->nodes[pending[i]->wl->queue].root;
		if (pd->seen[root] != pd->pick) {
			pd->seen[root] = pd->pick;
			pd->roots[pd->n_roots++] = root;
		}
	}
	if (!(pd->n_roots == 1 && s->nodes[pd->roots[0]].height == 1))
		fs_heaps_init(s, pd, sc);
	return 0;
}

/* ---- decisions ---- */

/* Appends val to a KQ_ARRAY; returns -SIM_ENOMEM from the caller when it cannot. */
#define PUSH(arr, val)                                                                      \
	do {                                                                                \
		void *nv_ = sim_grow((arr).v, &(arr).cap, (arr).n, sizeof *(arr).v, 16);    \
		if (!nv_)                                                                   \
			return -SIM_ENOMEM;                                                 \
		(arr).v = nv_;                                                              \
		(arr).v[(arr).n++] = (val);                                                 \
	} while (0)

void kq_decision_reset(struct kq_decision *d)
{
	d->admitted.n = d->preempting.n = d->victims.n = d->deferred.n = d->waiting.n = 0;
}

void kq_decision_free(struct kq_decision *d)
{
	free(d->admitted.v);
	free(d->preempting.v);
	free(d->victims.v);
	free(d->deferred.v);
	free(d->waiting.v);
	memset(d, 0, sizeof *d);
}

static int wait_on(struct kq_decision *d, struct kq_wl *wl, enum kq_wait why)
{
	PUSH(d->waiting, ((struct kq_waiting){ .wl = wl, .why = why }));
	return 0;
}

static struct kq_assign assign_of(const struct nomination *e)
{
	struct kq_assign a = { .wl = e->wl, .mode = e->mode, .borrow_level = e->level };
	memcpy(a.flavor, e->flavor, sizeof a.flavor);
	return a;
}

struct cycle {
	struct kq_sched *s;
	struct journal j;
	struct kq_decision *out;
	uint32_t victim_mark; /* wl->mark value of victims issued this cycle */
	sim_time_t now;
	/* Victims issued so far. They stay booked in the cycle's snapshot (shares and
	 * reservations still see them) and are taken out only for each fit check
	 * (rule C7). */
	struct kq_wl **issued;
	size_t n_issued, cap_issued;
};

static void victims_out(struct cycle *c)
{
	for (size_t i = 0; i < c->n_issued; i++)
		kq_unbook_running(c->s, c->issued[i]);
}

static void victims_back(struct cycle *c)
{
	for (size_t i = 0; i < c->n_issued; i++)
		kq_rebook_running(c->s, c->issued[i]);
}

/* The fit test of the cycle: on the snapshot without this cycle's victims. */
static int cycle_fits(struct cycle *c, const struct nomination *e)
{
	victims_out(c);
	int fits = kq_fits_quota(c->s, e->wl, e->flavor, 1);
	victims_back(c);
	return fits;
}

static int targets_overlap(const struct cycle *c, const struct kq_targets *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].wl->mark == c->victim_mark)
			return 1;
	return 0;
}

/* Rule C7: a queue that cannot always reclaim holds back what it could use. */
static void reserve_capacity(struct cycle *c, const struct nomination *e)
{
	struct kq_sched *s = c->s;
	const struct kq_node *q = &s->nodes[e->wl->queue];
	if (q->cfg.reclaim == KQ_ANY)
		return;
	for (int r = 0; r < s->n_res; r++) {
		sim_qty_t v = e->wl->req[r];
		if (v <= 0 || e->flavor[r] < 0)
			continue;
		int fr = kq_fr(s, e->flavor[r], r);
		sim_qty_t room;
		if (e->level == 0)
			room = q->nominal[fr] - q->usage[fr];
		else if (q->borrow_limit[fr] != KQ_UNSET)
			room = q->nominal[fr] + q->borrow_limit[fr] - q->usage[fr];
		else
			room = v;
		sim_qty_t res = v < room ? v : room;
		if (res > 0)
			jbook(s, &c->j, e->wl->queue, fr, res);
	}
}

/* Issues e's victims (unbooked for the rest of the cycle) and books e. */
static int issue_preemption(struct cycle *c, struct nomination *e)
{
	struct kq_decision *d = c->out;
	for (size_t i = 0; i < e->targets.n; i++) {
		struct kq_wl *v = e->targets.v[i].wl;
		v->mark = c->victim_mark;
		PUSH(d->victims, ((struct kq_victim){ .wl = v, .by = e->wl, .reason = e->targets.v[i].reason }));
		struct kq_wl **ni = sim_grow(c->issued, &c->cap_issued, c->n_issued, sizeof *ni, 16);
		if (!ni)
			return -SIM_ENOMEM;
		c->issued = ni;
		c->issued[c->n_issued++] = v;
	}
	jbook_wl(c->s, &c->j, e->wl, e->flavor, +1);
	PUSH(d->preempting, assign_of(e));
	return wait_on(d, e->wl, KQ_W_PREEMPTING);
}

/* Does e fit once its own targets and this cycle's victims are gone? */
static int fits_without(struct cycle *c, struct nomination *e)
{
	struct kq_sched *s = c->s;
	for (size_t i = 0; i < e->targets.n; i++)
		if (e->targets.v[i].wl->mark != c->victim_mark)
			kq_unbook_running(s, e->targets.v[i].wl);
	int fits = cycle_fits(c, e);
	for (size_t i = 0; i < e->targets.n; i++)
		if (e->targets.v[i].wl->mark != c->victim_mark)
			kq_rebook_running(s, e->targets.v[i].wl);
	return fits;
}

static int process_preempting(struct cycle *c, struct nomination *e)
{
	struct kq_decision *d = c->out;
	if (targets_overlap(c, &e->targets)) {
		if (c->s->overlap_skips) /* the gate off: Kueue skips it for this cycle */
			return wait_on(d, e->wl, KQ_W_OVERLAP);
		/* Rule C6: recompute on the snapshot without earlier victims. */
		if (cycle_fits(c, e)) {
			jbook_wl(c->s, &c->j, e->wl, e->flavor, +1);
			PUSH(d->deferred, assign_of(e));
			return wait_on(d, e->wl, KQ_W_DEFERRED);
		}
		uint8_t *contested = calloc((size_t)c->s->n_fr, 1);
		if (!contested)
			return -SIM_ENOMEM;
		for (int r = 0; r < c->s->n_res; r++)
			if (e->wl->req[r] > 0 && e->flavor[r] >= 0)
				contested[kq_fr(c->s, e->flavor[r], r)] = 1;
		victims_out(c);
		int rc = kq_find_targets(c->s, e->wl, e->flavor, contested, c->now, &e->targets);
		victims_back(c);
		free(contested);
		if (rc)
			return rc;
		if (e->targets.n == 0 || targets_overlap(c, &e->targets))
			return wait_on(d, e->wl, KQ_W_OVERLAP);
	}
	if (!fits_without(c, e))
		return wait_on(d, e->wl, KQ_W_NO_LONGER_FITS);
	return issue_preemption(c, e);
}

static int process_fit(struct cycle *c, struct nomination *e, kq_place_fn place, void *arg)
{
	struct kq_decision *d = c->out;
	if (!cycle_fits(c, e))
		return wait_on(d, e->wl, KQ_W_NO_LONGER_FITS);
	if (place && place(arg, e->wl, e->flavor))
		return wait_on(d, e->wl, KQ_W_NO_NODES);
	jbook_wl(c->s, &c->j, e->wl, e->flavor, +1);
	PUSH(d->admitted, assign_of(e));
	return 0;
}

static int process_entry(struct cycle *c, struct nomination *e, kq_place_fn place, void *arg)
{
	switch (e->mode) {
	case KQ_NOFIT:
		if (e->exceeds)
			return wait_on(c->out, e->wl, KQ_W_EXCEEDS_MAX_QUOTA);
		return wait_on(c->out, e->wl, e->no_room ? KQ_W_NO_NODES : KQ_W_NO_QUOTA);
	case KQ_NO_CANDIDATES:
		reserve_capacity(c, e);
		return wait_on(c->out, e->wl, KQ_W_NO_CANDIDATES);
	case KQ_PREEMPT:
	case KQ_RECLAIM:
		return process_preempting(c, e);
	default:
		return process_fit(c, e, place, arg);
	}
}


uint8_t *kq_fr_flags(const struct kq_sched *s, uint8_t *stack)
{
	size_t n = (size_t)(s->n_fr ? s->n_fr : 1);
	if (n <= KQ_FR_STACK) {
		memset(stack, 0, n);
		return stack;
	}
	return calloc(n, 1);
}

void kq_fr_flags_free(uint8_t *flags, const uint8_t *stack)
{
	if (flags != stack)
		free(flags);
}

/* The scheduler's kept buffers for a cycle of n heads: nominations (their target
 * arrays survive from cycle to cycle, emptied by each nomination), their order and a
 * per-fr buffer. NULL: no memory. */
static struct kq_scratch *cycle_scratch(struct kq_sched *s, size_t n)
{
	struct kq_scratch *sc = kq_scratch_get(s);
	if (!sc)
		return NULL;
	n = n ? n : 1;
	if (sc->cap_noms < n) {
		struct nomination *nv = realloc(sc->noms, n * sizeof *nv);
		if (!nv)
			return NULL;
		memset(nv + sc->cap_noms, 0, (n - sc->cap_noms) * sizeof *nv);
		sc->noms = nv;
		struct nomination **ov = realloc(sc->order, n * sizeof *ov);
		if (!ov)
			return NULL; /* noms grew; cap_noms not yet: the new entries are zero */
		sc->order = ov;
		sc->cap_noms = n;
	}
	size_t nf = (size_t)(s->n_fr ? s->n_fr : 1);
	if (sc->cap_buf < nf) {
		sim_qty_t *b = realloc(sc->buf, nf * sizeof *b);
		if (!b)
			return NULL;
		sc->buf = b;
		sc->cap_buf = nf;
	}
	return sc;
}

void kq_cycle_scratch_free(struct kq_scratch *sc)
{
	if (sc->probe)
		free(((struct nomination *)sc->probe)->targets.v);
	free(sc->probe);
	struct nomination *noms = sc->noms;
	for (size_t i = 0; i < sc->cap_noms; i++)
		free(noms[i].targets.v);
	free(sc->noms);
	free(sc->order);
	free(sc->buf);
	free(sc->journal);
	free(sc->issued);
	free(sc->fs_first);
	free(sc->fs_seen);
	free(sc->fs_memo);
	free(sc->fs_roots);
	free(sc->fs_u32);
	free(sc->fs_i32);
	free(sc->fs_dirty);
}

int kq_cycle(struct kq_sched *s, struct kq_wl **heads, size_t n_heads, sim_time_t now, kq_place_fn place,
	     void *place_arg, struct kq_decision *out)
{
	kq_decision_reset(out);
	struct kq_scratch *sc = cycle_scratch(s, n_heads);
	if (!sc)
		return -SIM_ENOMEM;
	struct nomination *noms = sc->noms;
	struct nomination **order = sc->order;
	sim_qty_t *buf = sc->buf;
	struct cycle c = { .s = s, .out = out, .victim_mark = ++s->epoch, .now = now };
	c.j.v = sc->journal; /* kept arrays, emptied */
	c.j.cap = sc->cap_journal;
	c.issued = sc->issued;
	c.cap_issued = sc->cap_issued;
	int rc = 0;
	for (size_t i = 0; i < n_heads && !rc; i++) {
		if (!take_probe(s, heads[i], now, &noms[i]))
			rc = nominate(s, heads[i], now, &noms[i]);
		order[i] = &noms[i];
	}
	sc->probe_wl = NULL;
	if (!rc && !s->fair && n_heads > 1)
		sort_classical(order, n_heads);
	struct fs_pending pd = { 0 };
	int pd_ready = 0;
	if (!rc && s->fair) {
		rc = fs_pending_init(s, &pd, order, n_heads);
		pd_ready = !rc;
	}
	s->skip_mark = c.victim_mark;
	s->ver_live = pd_ready && pd.fast; /* usage changes bump kq_node.ver for the memos */
	for (size_t k = 0; k < n_heads && !rc; k++) {
		struct nomination *e = s->fair ? fair_next(s, &pd, buf) : order[k];
		rc = process_entry(&c, e, place, place_arg);
		if (!rc && c.j.oom)
			rc = -SIM_ENOMEM;
	}
	s->ver_live = 0;
	s->fs_dirty = NULL; /* fs_heaps_init's tracking ends with the order */
	s->skip_mark = 0;
	journal_undo(s, &c.j);
	if (pd_ready)
		sc->fs_pick = pd.pick;
	sc->journal = c.j.v;
	sc->cap_journal = c.j.cap;
	sc->issued = c.issued;
	sc->cap_issued = c.cap_issued;
	return rc;
}

int kq_incoming(struct kq_sched *s, struct kq_wl *wl, const int16_t *fixed_flavor, enum kq_mode fixed_mode,
		sim_time_t now, struct kq_assign *a, struct kq_decision *out)
{
	kq_decision_reset(out);
	struct nomination nom = { 0 };
	int rc;
	if (fixed_flavor) {
		nom.wl = wl;
		memcpy(nom.flavor, fixed_flavor, sizeof nom.flavor);
		nom.mode = fixed_mode;
		if (fixed_mode != KQ_FIT) {
			uint8_t *contested = calloc((size_t)s->n_fr, 1);
			if (!contested)
				return -SIM_ENOMEM;
			for (int r = 0; r < s->n_res; r++)
				if (wl->req[r] > 0 && fixed_flavor[r] >= 0)
					contested[kq_fr(s, fixed_flavor[r], r)] = 1;
			rc = kq_find_targets(s, wl, fixed_flavor, contested, now, &nom.targets);
			free(contested);
			if (rc)
				return rc;
			nom.mode = nom.targets.n ? KQ_PREEMPT : KQ_NO_CANDIDATES;
		}
	} else if ((rc = nominate(s, wl, now, &nom))) {
		free(nom.targets.v);
		return rc;
	}
	*a = assign_of(&nom);
	for (size_t i = 0; i < nom.targets.n; i++) {
		struct kq_victim *v = &nom.targets.v[i];
		struct kq_victim *nv = sim_grow(out->victims.v, &out->victims.cap, out->victims.n, sizeof *nv, 16);
		if (!nv) {
			free(nom.targets.v);
			return -SIM_ENOMEM;
		}
		out->victims.v = nv;
		out->victims.v[out->victims.n++] = *v;
	}
	free(nom.targets.v);
	return 0;
}
