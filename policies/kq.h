/* policies/kq.h: Kueue's quota tree, flavor assignment, preemption (classical and
 * fair sharing) and scheduling cycle, as docs/kueue-rules.md states them.
 *
 * One implementation serves `gpusched explain` (a scenario file builds a kq_sched,
 * one kq_cycle decides) and `gpusched run` (policies/cohort.c keeps a kq_sched in
 * step with the engine and runs kq_cycle in each decision pass).
 *
 * Model. Nodes are ClusterQueues ("queues") and cohorts, in a forest. Quantities
 * are milli-units, indexed per flavor-resource fr = flavor * n_res + res. Limits
 * are KQ_UNSET when not given. Workloads (struct kq_wl) are owned by the caller;
 * kq_sched borrows the running ones between kq_add_running and kq_remove_running.
 *
 * Deciding changes no state: kq_cycle and kq_incoming books usage in place while
 * they simulate and undo every change before they return.
 */
#ifndef POLICIES_KQ_H
#define POLICIES_KQ_H

#include "../sim/job.h"
#include "../sim/sim.h"

#define KQ_UNSET (-1)       /* a borrowing or lending limit not given */
#define KQ_MAX_GROUPS 4     /* resource groups of a queue's flavor_order */
#define KQ_MAX_GROUP_FLAVORS 16
#define KQ_FAILED_CLASSES 8 /* request classes a queue remembers as not admissible (kq_node.failed) */

enum kq_policy { /* within_queue and reclaim_within_cohort values */
	KQ_NEVER = 0,
	KQ_LOWER_PRIORITY,
	KQ_LOWER_OR_NEWER_EQUAL, /* within_queue only */
	KQ_ANY,                  /* reclaim_within_cohort only */
};
const char *kq_policy_name(enum kq_policy p);
int kq_policy_from_name(const char *name); /* -1 if unknown */

/* Flavor assignment modes, worst first (Kueue's order). */
enum kq_mode { KQ_NOFIT = 0, KQ_NO_CANDIDATES, KQ_PREEMPT, KQ_RECLAIM, KQ_FIT };
const char *kq_mode_name(enum kq_mode m); /* "NoFit", "Preempt" (for no-candidates too)... */

enum kq_reason { /* why a job was preempted (docs/design.md section 2) */
	KQ_R_IN_QUEUE = 0,
	KQ_R_RECLAIM,
	KQ_R_RECLAIM_WHILE_BORROWING,
	KQ_R_FAIR_SHARING,
	KQ_R_QUOTA_SHRINK,
	KQ_R_COUNT_
};
const char *kq_reason_name(enum kq_reason r); /* "in_queue", ... */

enum kq_wait { /* why a head was not admitted this cycle */
	KQ_W_EXCEEDS_MAX_QUOTA = 0, /* above potentialAvailable: never fits without a config change */
	KQ_W_NO_QUOTA,              /* no flavor has quota now and preemption may not help */
	KQ_W_NO_CANDIDATES,         /* needs preemption, no set of victims frees enough */
	KQ_W_PREEMPTING,            /* issued preemptions, waits for the victims */
	KQ_W_DEFERRED,              /* fits once this cycle's victims are gone */
	KQ_W_OVERLAP,               /* its victims overlap an earlier entry's (and again after the
				     * recompute, unless overlap_skips) */
	KQ_W_NO_LONGER_FITS,        /* earlier admissions this cycle took the quota */
	KQ_W_NOT_HEAD,              /* behind its queue's head (one head a queue a cycle) */
	KQ_W_NO_NODES,              /* quota fits, the cluster has no free nodes of the flavor */
	KQ_W_COUNT_
};
const char *kq_wait_text(enum kq_wait w); /* a sentence for people */

struct kq_group {
	int n_res, n_flavors;
	int res[SIM_MAX_RES];
	int flavors[KQ_MAX_GROUP_FLAVORS]; /* in preference order */
};

struct kq_queue_cfg {
	struct kq_group groups[KQ_MAX_GROUPS];
	int n_groups;
	enum kq_policy within, reclaim;
	int bwc;                  /* borrow_within_cohort LowerPriority */
	int bwc_has_threshold;
	int32_t bwc_threshold;    /* max_priority_threshold */
	int fung_borrow_try_next; /* when_can_borrow: TryNextFlavor (default MayStopSearch) */
	int fung_preempt_try_next; /* when_can_preempt: TryNextFlavor (the API default) */
	int fung_preemption_over_borrowing; /* preference (default BorrowingOverPreemption) */
	/* Beyond Kueue (docs/design.md section 2), off by default. */
	sim_time_t min_runtime_ns; /* a job of this queue younger than this is not a victim */
	int checkpoint_aware;      /* as preemptor: prefer victims that lose the least work */
	int no_preemption;         /* may not preempt now (run mode: preemptions-per-hour cap) */
};

/* When a memo of a nomination was made, and whether it outlives changes of other
 * queues and time (docs/kueue-rules.md E13). A memo holds at the same time `now`
 * while kq_sched.gen is the same. A monotone one (mono) holds at any time while
 * kq_sched.mgen and its queue's kq_node.madd are the same (nothing changed its own
 * queue, and every admission elsewhere was one that cannot make room or a
 * candidate appear) and its tree has released less than `short_by` since
 * (kq_node.released of its root against `released`): each release of x lets the
 * request fit by at most x more. gen 0 = no memo. */
struct kq_stamp {
	uint64_t gen, mgen, madd;
	uint64_t igen;        /* kq_sched.igen, for an answer of its own queue (own) */
	uint64_t mrm, aseq;   /* own: the queue's kq_node.mrm and adm_seq */
	int32_t harm_below;   /* own: an admission into the queue below this priority ends it */
	sim_qty_t short_by;
	/* What the tree had freed when it was made: with fr >= 0 (the one
	 * flavor-resource every test of the answer read, in a queue without a borrowing
	 * limit on it) the root's kq_node.freed[fr], which credits back admissions that
	 * every test sees whole; with fr -1 the root's kq_node.released. */
	sim_qty_t base;
	sim_time_t now;
	/* Fair sharing (E14): the answer also needs every other queue of the tree to
	 * keep a share below pnew (pnew_v < 0: no such condition); `rise` is the
	 * root's kq_node.rise_seq then, so the admissions since are those after it. */
	double pnew_v, pnew_u;
	uint64_t rise;
	int32_t fr;
	uint8_t mono;
	uint8_t pnew_eq;      /* the other shares may also equal pnew (E15's single-resource case) */
	/* E16: the answer read only its own queue and the root's usage on fr (>= 0):
	 * base is then the root's kq_node.usage[fr], and it holds while igen is
	 * unchanged, its queue's running set holds for it (fine) and the root's usage
	 * fell by less than short_by. */
	uint8_t own;
	/* Its own queue's running set is read by mrm, aseq and harm_below (E16: own
	 * answers, and fair sharing's monotone ones) instead of madd. */
	uint8_t fine;
};

/* A shortfall no release by other queues can close (a quota-only answer). */
#define KQ_SHORT_INF (INT64_MAX / 4)

struct kq_wl {
	uint64_t tie;         /* last tie-break (Kueue's UID): scenario id rank, job index */
	const char *name;     /* borrowed, for messages */
	int32_t priority;
	sim_time_t created;   /* queue-order timestamp, ns */
	sim_time_t admitted;  /* running: quota reserved at, ns */
	sim_time_t last_ckpt; /* running: end of its last checkpoint (or its work start), ns */
	sim_time_t ckpt_period; /* running: a checkpoint completes every this many ns after
				 * last_ckpt (interval + overhead); 0 = none */
	sim_qty_t req[SIM_MAX_RES];
	int16_t flavor[SIM_MAX_RES]; /* running: flavor per resource (-1 where req is 0) */
	uint8_t evicted;      /* already being evicted (listed first as a candidate) */
	uint8_t preemptible;  /* 0: never a victim */
	/* The flavors it may use (run mode: the flavors of its preference list), all
	 * zero = any flavor of each resource group, in the group's order. */
	uint8_t n_allow;      /* entries of allow[]; 0 = any flavor */
	uint8_t job_order;    /* try allow[] in its own order (skipping flavors outside the
			       * group), not in the queue's flavor_order */
	int16_t allow[SIM_MAX_OPTIONS]; /* flavor indices */
	/* First fit with a request per option (run mode: per-option instance counts),
	 * else NULL: n_allow rows of SIM_MAX_RES, row k the request on allow[k]; every
	 * row asks for the same resources. The first-fit nomination copies the chosen
	 * row's part into req, so what it books (and what it holds while it runs, or is
	 * a victim) is its option's own request. Borrowed. */
	const sim_qty_t *opt_req;
	/* owned by kq while running */
	uint32_t slot;        /* index in its queue's running array */
	struct kq_wl *run_prev, *run_next; /* its priority band's list (kq_band.head) */
	uint32_t mark;        /* cycle scratch */
	/* owned by kq while pending: its last nomination, reused while it still holds
	 * (kq_stamp: the same tree and time, or rule E13) when it admitted nothing (NoFit
	 * or no preemption candidates): a head parked and offered again costs no new
	 * preemption search. nom.gen 0 = no cache. */
	int16_t nom_flavor[SIM_MAX_RES];
	/* The fields a pending head's visit reads, last and together, so that with the
	 * caller's own fields after them (policies/cohort.c struct entry) a visit reads
	 * two cache lines, not six. */
	struct kq_stamp nom;
	/* Its request class's digest (kq_cycle.c class_digest) without no_preempt, kept
	 * for the priority it was computed at; 0 = none. Only ever a shortcut to a memo:
	 * a class is always compared in full. */
	uint64_t digest;
	int32_t digest_prio;
	int32_t queue;        /* node index of its queue */
	uint8_t no_preempt;   /* may not preempt now (run mode: it was itself preempted at this time) */
	uint8_t first_fit;    /* SageMaker's first fit (implies job_order): the first allowed
			       * flavor where the request fits quota now without preemption, at
			       * any borrowing level, and kq_sched.room says the nodes have room;
			       * it never preempts, and with no such flavor it stays NoFit */
	int8_t nom_mode, nom_level;
	uint8_t nom_exceeds;
	uint8_t nom_no_preempt; /* the no_preempt it was nominated with (an input of the answer) */
};

struct kq_node {
	char name[SIM_NAME_MAX];
	int32_t parent;       /* -1 for a root */
	int is_queue;
	int32_t *children;    /* sorted by name after kq_finalize; owned */
	size_t n_children;
	int height;           /* queue 0; cohort: distance to its furthest leaf */
	int32_t root;         /* the root of its tree (itself for a root); set by kq_finalize */
	int64_t weight_milli; /* fair_weight x 1000 (default 1000) */
	/* per fr, n_fr entries each, one block owned by the node */
	sim_qty_t *nominal, *borrow_limit, *lend_limit;
	uint8_t *has_quota;   /* an entry exists (nominal may be 0) */
	sim_qty_t *subtree, *local, *usage;
	sim_qty_t *potential; /* potentialAvailable (kq_potential), kept by finalize and requota */
	/* Its dominant resource share as usage now stands (kq_drs with no request), a
	 * cache: share_ok is cleared by every change of its usage (kq_usage_add and
	 * kq_usage_remove walk the nodes they change) and of quotas (finalize, requota),
	 * so a fair-sharing search recomputes only the shares its trials changed. */
	double share, share_unweighted;
	uint8_t share_ok;
	/* Bumped (to kq_sched.ver_clock) by every usage change in its subtree while
	 * kq_sched.ver_live is set: a fair-sharing cycle keeps each node's tournament pick
	 * while it is unchanged (docs/kueue-rules.md E12). */
	uint64_t ver;
	/* Bumped (to kq_sched.sver_clock) by every usage change in its subtree and every
	 * change of the running set of a queue in it, always: a nested classical bound
	 * keeps what the subtree may pass up while it is unchanged (docs/kueue-rules.md
	 * E17). 0 until the first change. */
	uint64_t sver;
	uint8_t *subtree_has; /* some node of the subtree has an entry for fr */
	/* queues only */
	struct kq_queue_cfg cfg;
	struct kq_wl **running;
	size_t n_running, cap_running;
	/* Its running workloads' quantities by priority, ascending (the queue's own,
	 * not bubbled): a preemption search first checks that the candidates a policy
	 * allows could free enough at all, without looking at each job. */
	struct kq_band {
		int32_t prio;
		uint32_t jobs;
		sim_qty_t *qty; /* n_fr, owned */
		/* Its running workloads in preemption-candidate order within one queue and
		 * priority: most recently admitted first, then by tie. Admissions come in
		 * time order, so a new one goes in front and the order costs nothing to
		 * keep; a victim search walks it instead of sorting every candidate. */
		struct kq_wl *head;
	} *bands;
	size_t n_bands, cap_bands;
	uint32_t n_evicted;  /* running workloads with `evicted` set (they are candidates first) */
	sim_qty_t *max_req;  /* n_fr: the largest quantity one running workload ever had (a bound) */
	sim_qty_t *min_req;  /* n_fr: the smallest positive one ever (a bound; 0 = none yet); owned
			      * with max_req (one block) */
	/* Nominations of this queue that admitted nothing (NoFit, NoCandidates), by
	 * request class: a pending workload of the same class nominated while the memo
	 * holds (kq_stamp: the same tree and time, or E13's wider rule) gets the same
	 * answer without a search. A queue's pending jobs are mostly a few sizes, so a queue of a
	 * thousand waiting jobs costs a few searches a change, not a thousand. */
	struct kq_failed {
		struct kq_stamp at;  /* at.gen 0: empty */
		sim_qty_t req[SIM_MAX_RES];
		int32_t priority;
		sim_time_t created;  /* part of the class only under LowerOrNewerEqualPriority */
		uint8_t no_preempt, n_allow, job_order;
		int16_t allow[SIM_MAX_OPTIONS];
		int16_t flavor[SIM_MAX_RES];
		int8_t mode, level;
		uint8_t exceeds;
	} failed[KQ_FAILED_CLASSES];
	/* Per slot, a digest of its class (kq_cycle.c class_digest; 0 = empty): equal
	 * classes have equal digests, so a lookup compares full classes only where the
	 * digest matches, reading one cache line instead of every slot. */
	uint64_t failed_digest[KQ_FAILED_CLASSES];
	uint8_t failed_next; /* the slot the next new class takes when all are live */
	uint64_t madd;       /* changes of this queue's running set (kq_add_running,
			      * kq_remove_running): its monotone memos (kq_stamp) that do not
			      * read it finely (E13's) end with the next one */
	/* E16's memos read the running set less finely: mrm counts its releases (and
	 * emptyings of the log below); the admission log holds, at each admission,
	 * its count (adm_seq) and priority, keeping only entries no later admission
	 * has a priority at most theirs, so priorities rise from the oldest entry to
	 * the newest and the first entry after a count holds the lowest priority
	 * admitted since. KQ_ADM_CAP entries, owned. */
	uint64_t mrm, adm_seq;
	struct kq_adm {
		uint64_t seq;
		int32_t prio;
	} *adm;
	uint32_t n_adm;
	sim_qty_t released;  /* a root: the quantities (all resources) its queues' running
			      * workloads released so far (kq_remove_running) */
	sim_qty_t *freed;    /* a root, per fr: what its usage fell by as workloads were
			      * released, less what admissions into queues that stay within
			      * their quota took back (kq_add_running); in the per-fr block */
	/* A root under fair sharing (docs/kueue-rules.md E14): the shares its queues
	 * reached at admissions, as a stack whose shares fall from bottom to top (an
	 * entry is dropped when a later admission reaches at least its share), so the
	 * highest share reached after admission number k is the first entry above k.
	 * rise_seq counts the admissions; KQ_RISE_CAP entries, owned. */
	struct kq_rise {
		uint64_t seq;
		double v, u;     /* the share (v INFINITY: a weight-0 borrower) and unweighted */
	} *rise;
	uint32_t n_rise;
	uint64_t rise_seq;
	/* A root: its two children with the highest shares (kq_preempt.c, E15), valid
	 * while kq_sched.usage_ver and gen equal top_uver and top_gen (0: never) */
	uint64_t top_uver, top_gen;
	double top_v[2], top_u[2];
	int32_t top_q[2];    /* the children; -1: none */
};

#define KQ_RISE_CAP 64 /* a fuller rise stack is emptied and every monotone memo ended */

/* Run mode: 1 if `flavor` has free nodes for wl's request now, else 0. Asked for
 * first-fit workloads only. */
typedef int (*kq_room_fn)(void *arg, const struct kq_wl *wl, int flavor);

struct kq_sched {
	int n_res, n_flavors, n_fr;
	char res_names[SIM_MAX_RES][SIM_NAME_MAX];
	char (*flavor_names)[SIM_NAME_MAX];
	struct kq_node *nodes;
	size_t n_nodes, cap_nodes;
	int32_t *by_name;         /* owned: open-addressing index of nodes by name (FNV-1a,
				   * linear probing, -1 empty), by_name_cap slots, a power of 2
				   * at least twice n_nodes: kq_find is O(1), so reading 10^5
				   * queues is not quadratic */
	size_t by_name_cap;
	int fair;                 /* fair sharing on */
	int fair_le_final;        /* strategy LessThanOrEqualToFinalShare on */
	int fair_lt_initial;      /* strategy LessThanInitialShare on */
	int fair_first_is_initial; /* strategies listed as [LessThanInitialShare, ...] */
	int overlap_skips;        /* gate RecomputeAssignmentUponPreemptionTargetsOverlap off: a
				   * preemptor whose targets overlap an earlier one's this cycle
				   * is skipped (KQ_W_OVERLAP) without the recompute; 0 (the
				   * gate's default, on) recomputes */
	int finalized;
	uint32_t epoch;           /* mark generation */
	uint64_t gen;             /* bumped at every change of running work, quota or settings
				   * (kq_add_running, kq_remove_running, kq_requota; a caller
				   * that changes a queue's cfg calls kq_invalidate); starts at 1 */
	uint64_t mgen;            /* bumped with gen at every change except an admission that
				   * no monotone memo of another queue can notice (E13);
				   * starts at 1 */
	uint64_t igen;            /* bumped only by kq_invalidate (a quota, weight, setting or
				   * priority change): what an answer of E16 reads besides its
				   * own queue and the root's usage; starts at 1 */
	int nom_mono;             /* during a fresh nomination: still monotone (kq_cycle.c) */
	int nom_own;              /* ... and read only its own queue and the root's usage (E16) */
	sim_qty_t nom_short;      /* during a fresh nomination: the least shortfall seen (E13) */
	double nom_pnew_v, nom_pnew_u; /* ... the least share a fair-sharing refusal needs
					* every other queue to stay below (E14); v < 0: none */
	int nom_pnew_eq;          /* ... or at most (an equal share does not end it) */
	int32_t nom_fr;           /* ... the fr its tests read: -1 none yet, -2 several */
	uint32_t skip_mark;       /* during a cycle: workloads with this mark (its victims)
				   * are no longer candidates; 0 = none */
	kq_room_fn room;          /* physical room for first-fit workloads; NULL = always
				   * (explain: a scenario has no nodes) */
	void *room_arg;
	void *scratch;            /* owned: struct kq_scratch (kq_impl.h), buffers reused by decisions */
	uint64_t usage_ver;       /* bumped by every kq_usage_add and kq_usage_remove: with gen,
				   * the key of the flat bounds' per-root sums (kq_preempt.c) */
	uint64_t ver_clock;       /* the last kq_node.ver given */
	uint64_t sver_clock;      /* the last kq_node.sver given */
	int sver_hold;            /* set while an aggregate bound books removals that it undoes
				   * before it returns: they leave every kq_node.sver as it was */
	int ver_live;             /* during a fair-sharing cycle's order: usage changes bump ver */
	/* During a fair-sharing cycle's order over a nested tree (kq_cycle.c, docs/kueue-rules.md
	 * E24): kq_ver_bump also flags each node of its path that is not flagged yet and lists
	 * it in its parent's dirty list, so that a tournament recomputes only the children
	 * that changed. fs_dirty NULL: not tracking. The arrays are kq_scratch's. */
	uint8_t *fs_dirty;        /* per node: listed in its parent's dirty list */
	int32_t *fs_dlist;        /* per cohort, a region of its children's count from fs_doff */
	const uint32_t *fs_doff;
	uint32_t *fs_dn;          /* per cohort: entries in its dirty list */
};

/* Tests only: each bit set makes the decision core take one shortcut's slow, obvious
 * path instead, the oracle that differential tests compare the fast path with.
 * Decisions must be identical either way. Default 0 (every shortcut on). */
enum {
	KQ_ORACLE_FAIR_BOUND = 1,      /* no aggregate bound before a fair-sharing search */
	KQ_ORACLE_SCAN = 2,            /* fair sharing finds a queue's next candidate, and each next
					* target (E19), by a scan */
	KQ_ORACLE_NO_MEMO = 4,         /* every nomination computed afresh */
	KQ_ORACLE_CLASSICAL_BOUND = 8, /* no aggregate bound before a classical search */
	KQ_ORACLE_BOUND_BOOKED = 16,   /* an aggregate bound booked queue by queue: not summed in a
					* flat tree (E11), not from kept subtree sums (E17) */
	KQ_ORACLE_TOURNAMENT = 32,     /* fair-sharing cycle order: every tournament run in full,
					* pending entries scanned */
	KQ_ORACLE_MEMO_GEN = 64,       /* a memo ends at every change of the tree, admissions
					* included (no monotone memos, E13) */
	KQ_ORACLE_ALL = 127,
	/* Not an oracle: every aggregate bound, classical and fair-sharing, is computed
	 * both ways (fast, and booked queue by queue) and a difference of verdict counted
	 * in kq_test_bound_mismatches (of kq_test_bound_checks). */
	KQ_ORACLE_CHECK_BOUNDS = 128,
	/* Not an oracle: memos found live only by rule E13 are counted in
	 * kq_test_mono_hits (off: no shared counter written on the decision path, which
	 * parallel sweeps run on several threads). */
	KQ_TEST_COUNT_MONO = 256,
	/* Rule E16 off: a monotone classical memo keeps E13's conditions even when its
	 * answer read only its own queue (tests of E13 alone). */
	KQ_ORACLE_NO_OWN_MEMO = 512,
	/* Not an oracle: fair-sharing drains deferred to the second pass (E27) are counted
	 * in kq_test_deferred_drains (off: no shared counter written, as above). */
	KQ_TEST_COUNT_DEFER = 1024,
};
extern int kq_test_oracle;
extern int kq_test_bound_checks, kq_test_bound_mismatches;
/* Under KQ_ORACLE_CHECK_BOUNDS: classical searches the aggregate bound refused (E1). */
extern int kq_test_bound_refusals;
/* Fair-sharing searches of a nested tree refused by E22 before they were set up. */
extern unsigned long kq_test_nested_refusals;
extern unsigned long kq_test_mono_hits; /* under KQ_TEST_COUNT_MONO (tests read it) */
extern unsigned long kq_test_own_hits;  /* ... of them, by rule E16 */
extern unsigned long kq_test_deferred_drains; /* under KQ_TEST_COUNT_DEFER */

/* ---- building ---- */
struct kq_sched *kq_create(int n_res, const char (*res_names)[SIM_NAME_MAX], int n_flavors,
			   const char (*flavor_names)[SIM_NAME_MAX]);
void kq_destroy(struct kq_sched *s); /* NULL is a no-op */
/* Adds a queue or cohort named `name`; returns its index, -SIM_EINVAL for a
 * duplicate name, or -SIM_ENOMEM. Parent is set later (names may be forward). */
int kq_add_node(struct kq_sched *s, const char *name, int is_queue);
int kq_find(const struct kq_sched *s, const char *name); /* -1 if absent */
int kq_flavor_find(const struct kq_sched *s, const char *name);
int kq_res_find(const struct kq_sched *s, const char *name);
/* Sets an entry of the quota table (limits KQ_UNSET when not given). */
void kq_set_quota(struct kq_sched *s, int node, int flavor, int res, sim_qty_t nominal,
		  sim_qty_t borrow_limit, sim_qty_t lend_limit);
/* Links children, checks the parent graph is a forest of cohorts, computes heights
 * and the derived quotas. Returns 0 or -SIM_EPARSE with a message ("cohort X: ...")
 * in diag. */
int kq_finalize(struct kq_sched *s, struct sim_diag *diag);
/* Recomputes SubtreeQuota and localQuota after nominal or limits changed, and
 * re-books every running workload's usage. */
void kq_requota(struct kq_sched *s);

/* ---- usage and arithmetic (resource_node.go) ---- */
static inline int kq_fr(const struct kq_sched *s, int flavor, int res) { return flavor * s->n_res + res; }
/* Books a running workload (wl->flavor set). Returns 0, or -SIM_ENOMEM with
 * nothing changed. */
int kq_add_running(struct kq_sched *s, struct kq_wl *wl);
void kq_remove_running(struct kq_sched *s, struct kq_wl *wl); /* unbooks; never fails */
/* Sets a node's fair-sharing weight (x 1000); its cached share is recomputed. */
void kq_set_weight(struct kq_sched *s, int node, int64_t weight_milli);
/* A running workload's priority changes (a priority event): its quantities move to
 * the band of the new priority, so the bounds of a victim search see it where it now
 * is. Returns 0, or -SIM_ENOMEM with nothing changed. */
int kq_set_running_priority(struct kq_sched *s, struct kq_wl *wl, int32_t prio);
void kq_usage_add(struct kq_sched *s, int node, int fr, sim_qty_t v);
void kq_usage_remove(struct kq_sched *s, int node, int fr, sim_qty_t v);
sim_qty_t kq_available(const struct kq_sched *s, int node, int fr);
sim_qty_t kq_potential(const struct kq_sched *s, int node, int fr);
static inline int kq_borrowing(const struct kq_sched *s, int node, int fr) /* usage > SubtreeQuota */
{
	return s->nodes[node].usage[fr] > s->nodes[node].subtree[fr];
}
/* Dominant resource share of a node with `req` (per fr, NULL = none) added to its
 * usage. Returns INFINITY for a weight-0 borrower; *unweighted gets the share
 * before the weight (for comparing two infinite shares). */
double kq_drs(const struct kq_sched *s, int node, const sim_qty_t *req_fr, double *unweighted);

/* ---- decisions ---- */
struct kq_assign {
	struct kq_wl *wl;
	int16_t flavor[SIM_MAX_RES];
	enum kq_mode mode;
	int borrow_level;
};
struct kq_victim {
	struct kq_wl *wl, *by;
	enum kq_reason reason;
};
struct kq_waiting {
	struct kq_wl *wl;
	enum kq_wait why;
};
#define KQ_ARRAY(T, name) struct { T *v; size_t n, cap; } name
struct kq_decision {
	KQ_ARRAY(struct kq_assign, admitted);
	KQ_ARRAY(struct kq_assign, preempting);
	KQ_ARRAY(struct kq_victim, victims);
	KQ_ARRAY(struct kq_assign, deferred);
	KQ_ARRAY(struct kq_waiting, waiting);
};
void kq_decision_reset(struct kq_decision *d); /* empties, keeps memory */
void kq_decision_free(struct kq_decision *d);

/* Physical placement for run mode: called as a Fit entry is admitted, with the
 * flavors chosen; returns 0 when it was placed (the admission stands) or -1 (left
 * waiting, KQ_W_NO_NODES). NULL = quota only (explain). */
typedef int (*kq_place_fn)(void *arg, struct kq_wl *wl, const int16_t *flavor);

/* One scheduling cycle (docs/kueue-rules.md "The scheduling cycle"): heads[] holds at
 * most one pending workload per queue. Writes the outcome into out (reset first).
 * Running workloads are not changed; the caller applies the outcome. Returns 0 or
 * -SIM_ENOMEM. */
int kq_cycle(struct kq_sched *s, struct kq_wl **heads, size_t n_heads, sim_time_t now,
	     kq_place_fn place, void *place_arg, struct kq_decision *out);

/* During a fresh nomination, a test that refused it by `short_by` (> 0): releases
 * of at least that much may change the answer (docs/kueue-rules.md E13). */
static inline void kq_note_shortfall(struct kq_sched *s, int fr, sim_qty_t short_by)
{
	if (short_by < s->nom_short)
		s->nom_short = short_by;
	if (s->nom_fr == -1)
		s->nom_fr = fr;
	else if (s->nom_fr != fr)
		s->nom_fr = -2;
}

/* Every cached nomination is stale: a caller changed something a nomination reads
 * (a queue's settings, a running job's priority). */
void kq_invalidate(struct kq_sched *s);

/* 1 if nominating wl now would be answered from a memo (its own, or its queue's
 * request class) with NoFit or NoCandidates: a cycle of such heads only leaves
 * them waiting (KQ_W_NO_QUOTA, KQ_W_EXCEEDS_MAX_QUOTA or KQ_W_NO_CANDIDATES) and
 * changes nothing, so a caller may set them aside without running it. */
int kq_known_inadmissible(const struct kq_sched *s, struct kq_wl *wl, sim_time_t now);

/* 1 if nominating wl now gives NoFit or NoCandidates, answered from a memo or
 * nominated now (on the live tree, as the first step of a cycle would) and
 * remembered; 0 if it may be admitted or is never remembered (first fit); or
 * -SIM_ENOMEM. A cycle whose heads all answer 1 changes nothing (E8). */
int kq_inadmissible(struct kq_sched *s, struct kq_wl *wl, sim_time_t now);

/* Request classes as kq's memos see them (docs/kueue-rules.md, E7 and E25):
 * two workloads of one queue whose nominations read the same request, priority,
 * flavors and their order, and creation time where the queue's within-queue policy
 * compares it. kq_class_key: a digest of that (equal for one class; different
 * classes usually differ), computed into wl->digest when stale. kq_same_class: 1 if
 * a and b, of one queue, are of one class (no_preempt, which changes at every
 * instant, aside). A workload's verdict (kq_inadmissible) is its class's. */
uint64_t kq_class_key(const struct kq_sched *s, struct kq_wl *wl);
int kq_same_class(const struct kq_sched *s, const struct kq_wl *a, const struct kq_wl *b);

/* "Whom would it preempt?": flavor assignment (or the fixed one: flavor[] per
 * resource and mode KQ_FIT or KQ_PREEMPT) and the victims, into *a and out->victims. */
int kq_incoming(struct kq_sched *s, struct kq_wl *wl, const int16_t *fixed_flavor, enum kq_mode fixed_mode,
		sim_time_t now, struct kq_assign *a, struct kq_decision *out);

#endif
