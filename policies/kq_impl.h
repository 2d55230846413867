/* policies/kq_impl.h: what kq_cycle.c and kq_preempt.c share; not for other modules. */
#ifndef POLICIES_KQ_IMPL_H
#define POLICIES_KQ_IMPL_H

#include <math.h>

#include "kq.h"

/* Buffers a kq_sched keeps between decisions (kq_sched.scratch, owned, freed by
 * kq_destroy): grown on first use, reused after, so the decision path does not
 * allocate once a run is warm. */
struct kq_scratch {
	void *taken; /* the aggregate bounds' undo log (kq_preempt.c) */
	size_t cap_taken;
	sim_qty_t *bound_rm; /* a flat bound's sums, 2 x n_fr (kq_preempt.c) */
	size_t cap_bound_rm;
	/* The flat bounds' per-root sums of what the other queues may lose, by key
	 * (struct bound_key, kq_preempt.c), valid while kq_sched.gen and usage_ver are */
	struct kq_bound_memo {
		uint64_t gen, usage_ver; /* 0: empty */
		int root, fr, kind, policy, has_thr;
		int32_t prio, thr;
		sim_qty_t sum;
	} bound_memo[16];
	unsigned bound_memo_next;
	uint32_t *anc;       /* per node: a bound's marks of the preemptor's ancestors (kq_preempt.c) */
	uint32_t anc_stamp;
	size_t cap_anc;
	uint8_t *anc_adv;    /* per node, valid where anc is anc_stamp: the hierarchical advantage of
			      * the candidates whose lowest cohort shared with the preemptor it is */
	sim_qty_t *adv_rem;  /* n_fr: the request left at each level while the advantages are found */
	size_t cap_adv_rem;
	sim_qty_t *budget;   /* per node: a bound's cohort caps, set as bound_walk enters each cohort */
	size_t cap_budget;
	void *pass_memo;     /* per node, KQ_PASS_SLOTS entries: what a cohort's subtree may pass up in a
			      * nested classical bound (struct pass_memo, kq_preempt.c, E17) */
	size_t cap_pass_memo;
	unsigned pass_next;  /* the slot a new entry takes when none is stale (round robin) */
	uint64_t max_job_gen;  /* largest_job's answer for (root, fr), while gen is this (0: none) */
	int max_job_root, max_job_fr;
	sim_qty_t max_job;
	void *fair;  /* a fair-sharing search's arrays (struct fair_bufs, kq_preempt.c) */
	/* The fair-sharing aggregate bound's back-off (E29, kq_preempt.c): searches left
	 * to run without it, and the current wait (0 after a refusal, else doubling to 63). */
	unsigned fair_bound_skip, fair_bound_wait;
	void *classical; /* a classical search's sources and heap (struct cl_bufs, kq_preempt.c) */
	/* kq_cycle's (kq_cycle.c): its nominations (with their target arrays, reused),
	 * their order, a per-fr buffer, the journal and the issued victims */
	void *noms, *order, *buf, *journal, *issued;
	size_t cap_noms, cap_buf, cap_journal, cap_issued;
	int32_t *fs_first;  /* fair sharing's per-node pending index and tournament marks */
	uint32_t *fs_seen;
	uint32_t fs_pick;
	void *fs_memo;      /* per node: struct fs_memo (kq_cycle.c), the kept tournament picks */
	/* kq_inadmissible's last fresh nomination when it may admit (struct nomination,
	 * owned with its targets), and what it was made on: the cycle that follows at
	 * once takes it instead of nominating that head again. probe_wl NULL: none. */
	void *probe;
	const void *probe_wl;
	uint64_t probe_gen, probe_ver;
	sim_time_t probe_now;
	uint8_t probe_np;
	int32_t *fs_roots;  /* the distinct roots of a cycle's entries */
	/* A nested tree's tournament heaps (kq_cycle.c, E24), per node: fs_u32 holds the
	 * regions' offsets, the dirty lists' and the heaps' lengths (3 x nodes); fs_i32
	 * the dirty lists, the heaps (both in the regions) and each node's place in its
	 * parent's heap (3 x nodes); fs_dirty the flags. */
	uint32_t *fs_u32;
	int32_t *fs_i32;
	uint8_t *fs_dirty;
	size_t cap_fs_nodes;
};
void kq_cycle_scratch_free(struct kq_scratch *sc); /* kq_cycle.c: frees what kq_cycle kept */

/* Is the tree of `queue` flat: the queue a child of a root of height 1, so that
 * every queue of the tree hangs off the root (kq_preempt.c's summed bounds, E11;
 * kq_cycle.c's monotone memos, E13)? */
static inline int kq_flat_tree(const struct kq_sched *s, int queue)
{
	int p = s->nodes[queue].parent;
	return p >= 0 && s->nodes[p].parent < 0 && s->nodes[p].height == 1;
}

/* Entries of a queue's admission log (kq_node.adm, E16). */
#define KQ_ADM_CAP 64

/* Is share (av, au) below share (bv, bu)? A share is v, INFINITY for a weight-0
 * borrower, whose unweighted u decides between two infinite ones (S4). */
static inline int kq_share_below(double av, double au, double bv, double bu)
{
	if (av == INFINITY && bv == INFINITY)
		return au < bu;
	return av < bv;
}

/* Something changed in the subtree of `node` (its usage, or a pending entry of a
 * queue under it): node and every ancestor get a new kq_node.ver. */
/* While kq_sched.fs_dirty tracks (E24): node and every ancestor below its root
 * flagged, each not flagged yet listed in its parent's dirty list. */
static inline void kq_dirty_path(struct kq_sched *s, int node)
{
	for (int up; (up = s->nodes[node].parent) >= 0; node = up)
		if (!s->fs_dirty[node]) {
			s->fs_dirty[node] = 1;
			s->fs_dlist[s->fs_doff[up] + s->fs_dn[up]++] = node;
		}
}

static inline void kq_ver_bump(struct kq_sched *s, int node)
{
	uint64_t clk = ++s->ver_clock;
	if (s->fs_dirty)
		kq_dirty_path(s, node);
	for (; node >= 0; node = s->nodes[node].parent)
		s->nodes[node].ver = clk;
}

/* Flags over flavor-resources (one byte per fr), zeroed: in `stack` (KQ_FR_STACK
 * bytes) when they fit, the usual case, else on the heap. NULL: no memory. */
#define KQ_FR_STACK 256
uint8_t *kq_fr_flags(const struct kq_sched *s, uint8_t *stack);
void kq_fr_flags_free(uint8_t *flags, const uint8_t *stack);
struct kq_scratch *kq_scratch_get(struct kq_sched *s); /* s->scratch, made on first use; NULL: no memory */
void kq_scratch_free(struct kq_sched *s); /* frees s->scratch and what it holds */

/* A growable list of victims (with reasons) that one preemption simulation found. */
struct kq_targets {
	struct kq_victim *v;
	size_t n, cap;
};
int kq_targets_push(struct kq_targets *t, struct kq_wl *wl, struct kq_wl *by, enum kq_reason reason);

/* 1 if wl's request fits the queue's quota now on the given flavors; without
 * allow_borrow it must also stay within the queue's own quota. Resources with no
 * flavor yet (flavor -1: a later resource group) are not checked. */
int kq_fits_quota(const struct kq_sched *s, const struct kq_wl *wl, const int16_t *flavor, int allow_borrow);
/* Of v added to node n's usage on fr, the part that counts in its parent (above n's
 * local quota; <= 0: none), as kq_usage_add passes it up. */
sim_qty_t kq_added_passes_up(const struct kq_node *n, int fr, sim_qty_t v);
/* Books or unbooks wl's request on the given flavors in its queue. */
void kq_book(struct kq_sched *s, const struct kq_wl *wl, const int16_t *flavor, int sign);
/* Running workloads are unbooked while a simulation removes them. */
void kq_unbook_running(struct kq_sched *s, const struct kq_wl *wl);
void kq_rebook_running(struct kq_sched *s, const struct kq_wl *wl);

/* Finds a locally minimal victim set for wl on `flavor`, whose contested
 * flavor-resources are contested[fr] = 1 (classical or fair sharing, as s->fair
 * says). Usage is the same on return. Returns 0 (out->n = 0: no candidates) or
 * -SIM_ENOMEM. */
int kq_find_targets(struct kq_sched *s, struct kq_wl *wl, const int16_t *flavor, const uint8_t *contested,
		    sim_time_t now, struct kq_targets *out);

#endif
