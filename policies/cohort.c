/* policies/cohort.c: the quota policies `cohort` (Kueue's quota tree with borrowing,
 * lending and preemption) and `hard` (each queue capped at its nominal quota), in
 * `gpusched run`.
 *
 * The decisions are kq_cycle's (policies/kq_cycle.c), the same code `gpusched
 * explain` runs on a scenario. This file keeps a kq_sched in step with the engine:
 * per queue a pending set ordered as Kueue orders a ClusterQueue (priority, then
 * submit time, then trace order), the running workloads booked in the tree, and the
 * timed quota and priority changes. Each decision pass runs cycles (one head a
 * queue each) until a cycle admits nothing; a cycle that preempts ends the pass so
 * the engine can stop the victims first.
 *
 * Preference lists (issue 4): the cohort cycle chooses a job's flavor itself, as
 * the fallback policy's name says (docs/design.md section 2): strict (or none) = option
 * 0's flavor; fungible = any flavor of the job's options, in the queue's
 * flavor_order, under the queue's flavor_fungibility (Kueue); first_fit = the
 * options in the job's order, the first whose flavor fits quota without preemption
 * and has free nodes now (SageMaker), never preempting. The job then starts on the
 * option of that flavor, so its run time scales as that option. Under fungible all
 * options of a job share one request; under first_fit each option may state its own
 * quantities, every option asking for the same managed resources (both checked at
 * init): the options' own requests go to kq as kq_wl.opt_req, used by the first-fit
 * nomination (which books the chosen one) and by the potential-quota check at
 * submit. A job without options, or whose options share one request, has none, so
 * Kueue's decisions for it are unchanged.
 *
 * Ownership: the policy owns the kq_sched, the workload pool and the pending sets; the
 * engine owns the jobs. Memory is proportional to queued + running jobs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kq.h"
#include "kq_policy.h"
#include "policy.h"
#include "scenario.h"

#define NONE_U32 UINT32_MAX
/* on_event handle of a wake-up: something becomes possible at a known time (a
 * victim outgrows min_runtime_s, a preemption leaves the hourly cap's window), so
 * parked heads are offered again. */
#define WAKE_HANDLE UINT32_MAX
/* Request classes a queue's pending set keeps apart (qstate.cls, E25), and an
 * entry's slot when it has none. */
#define QCLASS_MAX 32 /* the bits of qstate.cls_used */
#define CLS_NONE 0xffu
/* qstate.cursor values that are not entries */
#define CURSOR_END (UINT32_MAX - 1)
#define CURSOR_FIRST (UINT32_MAX - 2)

/* A queued or running job's workload; `wl` first so a kq_wl* converts back. */
struct entry {
	struct kq_wl wl;
	/* What a visit of a pending head reads, next to the end of wl (kq_wl's own
	 * visited fields): */
	uint64_t parked_in; /* the queue's park epoch it was set aside in (0 = never) */
	uint64_t ins_seq;   /* cohort.ins_seq when it last entered its pending set */
	/* Its request class among its queue's pending entries (qstate.cls; E25): the
	 * slot, CLS_NONE when it has none (first fit, or every slot taken), and its
	 * neighbours in the slot's list (entry indices, NONE_U32 = none). */
	uint32_t cls_next, cls_prev;
	uint8_t cls_slot;
	sim_time_t evicted_at; /* when it was last preempted (SIM_TIME_NONE: never) */
	/* The queue-order thread of its pending set (entry indices, NONE_U32 = none):
	 * `next` is the entry after it (NONE_U32: the last), so the head search steps in
	 * O(1). Its treap node is apart (struct tnode). */
	uint32_t next, prev;
	uint32_t tq;    /* its trace queue (index of qs): the job's, kept here so the pass
			 * does not read the job array for it */
	uint32_t job;   /* job index */
	uint32_t self;  /* its own index in the pool */
	uint8_t running; /* quota reserved: booked in the kq tree (Kueue's "admitted") */
	uint8_t placed;  /* on nodes (proposed or started); 0 while it waits for nodes */
	uint8_t pending; /* in its queue's pending set (queued, not holding quota) */
	uint8_t parked_flag; /* naive pending sets only (tests' oracle): set aside */
	struct sim_order_key key; /* the order policy's rank, while pending (keyed cohorts) */
};

/* An entry's node in its queue's treap, kept apart from the entry (cohort.nodes, the
 * same index): the searches of E26 (a queue position, the first entry of some
 * classes, the entry at a position) walk root-to-leaf and leaf-to-root paths of
 * these only, and at 32 bytes a node a queue of 100,000 pending entries fits in the
 * last-level cache where its 400-byte entries do not. Links are entry indices,
 * NONE_U32 = none; the naive set keeps the entry's slot in `left`. */
struct tnode {
	uint64_t sub_cls; /* the class bits (cls_bit) of its subtree's entries */
	uint64_t own;     /* its own entry's cls_bit, set when it enters the treap */
	uint32_t left, right, up;
	uint32_t sub_n;   /* its subtree's size */
};

struct qstate {
	int node;                /* kq node of this trace queue */
	/* The pending jobs in Kueue's ClusterQueue order (priority, then submit time,
	 * then trace order): a treap of entries, linked through the entries. A head
	 * that does not fit (BestEffortFIFO) is set aside by marking it with the
	 * queue's epoch; bumping the epoch gives every set-aside head back. */
	uint32_t root;           /* NONE_U32 when empty */
	size_t n;                /* pending entries */
	uint64_t epoch;          /* park epoch, from 1 */
	/* Where the head search starts: every pending entry before it is set aside in
	 * this epoch. CURSOR_FIRST: the first entry; CURSOR_END: all are set aside. */
	uint32_t cursor;
	/* The cursor's queue position, known without a walk (cursor_pos): pos is the
	 * position of entry pos_of while the treap has had no insert or remove since
	 * (mut, bumped by each, equals pos_mut). An entry's position changes only then. */
	uint64_t mut, pos_mut;
	uint32_t pos_of, pos;
	size_t n_unparked;       /* pending entries not set aside (treap sets) */
	/* Every entry set aside at once (drain_inadmissible): in epoch bulk_epoch, the
	 * entries that entered before ins_seq bulk_seq are set aside. */
	uint64_t bulk_epoch, bulk_seq;
	/* Every entry before a position set aside at once (skip_refused_cycles, E26): in
	 * epoch pfx_epoch, the entries that entered before ins_seq pfx_seq and come
	 * before pfx (a copy of the ordering fields of the entry that was next) in
	 * queue order are set aside. */
	uint64_t pfx_epoch, pfx_seq;
	struct pos {
		struct sim_order_key key;
		int32_t priority;
		sim_time_t created;
		uint64_t tie;
	} pfx;
	uint32_t *naive;         /* naive pending set (tests' oracle): entries, unordered */
	uint64_t order_gen;      /* sim_view_order_gen_queue its keys were computed at */
	size_t cap_naive;
	int strict_fifo;         /* StrictFIFO: a head that does not fit blocks the queue */
	int32_t retry_limit;     /* -1 = requeue forever */
	double max_preempt_per_hour; /* < 0 = no cap */
	sim_time_t *recent;      /* times of the preemptions it caused in the last hour (ring) */
	size_t n_recent, cap_recent, head_recent;
	int parked_this_pass;
	sim_time_t wake_at;      /* a wake-up for the hourly cap is posted for this time */
	/* Last, apart from the fields every pass reads (these are 512 bytes): the pending
	 * entries by request class (kq_same_class; treap sets only, E25). Slot k holds
	 * count entries (0: free), listed oldest first; n_odd entries have no slot
	 * (first-fit ones, and those of a class that found every slot taken). */
	struct qclass {
		uint64_t key;    /* kq_class_key */
		/* The class's entries, oldest first (NONE_U32 when count is 0): the first
		 * answers for the class, and staying the same entry while it waits, it
		 * keeps its own memo (E7) from one pass to the next. */
		uint32_t first, last;
		uint32_t count;
	} cls[QCLASS_MAX];
	uint32_t cls_used;       /* bit k: slot k holds entries (count > 0) */
	size_t n_odd;
	/* E26: the classes' verdicts (kq_inadmissible) known on the tree as it stands in
	 * this pass: bit k of cls_known set when slot k's was asked at cohort.verdict_gen
	 * verdict_gen, bit k of cls_refused when it was "not admissible". */
	uint64_t verdict_gen;
	uint32_t cls_known, cls_refused;
};

/* How a job's options map to flavors, from the fallback policy's name. */
enum fb_mode {
	FB_STRICT = 0, /* option 0's flavor (also without a fallback policy) */
	FB_FUNGIBLE,   /* the options' flavors, in the queue's order, Kueue fungibility */
	FB_FIRST_FIT,  /* the options in the job's order, first fit, no preemption */
};

struct cohort {
	struct kq_sched *kq;
	int hard;
	enum fb_mode fb;
	int fb_resolved;         /* fb follows the fallback policy (known at init or first submit) */
	uint64_t free_gen;       /* the cluster's free-capacity generation at the last pass */
	/* Order inside a queue: the order policy's order_key (sim/hooks.h), then Kueue's
	 * timestamp, then trace order. Without an order policy that ranks by key (tests
	 * that build a cohort alone), by priority, as Kueue. */
	struct sim_policy *order;    /* borrowed; NULL: by priority */
	uint64_t order_gen;          /* sim_view_order_gen the keys were computed at */
	const struct sim_view *view0; /* the engine's view, stable for the run (for keys) */
	int configured;          /* preemption settings applied */
	struct qstate *qs;       /* per trace queue */
	size_t n_queues;
	struct entry **chunks;   /* the pool, in chunks that never move: kq keeps pointers */
	struct tnode **nodes;    /* the entries' treap nodes, in chunks of the same size */
	size_t n_chunks;
	uint32_t *job_entry;     /* per job: entry index or NONE_U32 */
	size_t n_pool, cap_pool;
	uint32_t *free_list;
	size_t n_free, cap_free;
	struct timed_change *changes;
	size_t n_changes;
	sim_time_t *last_quota_change; /* per kq node, a root's entry used: the latest quota
					* change in its tree (SIM_TIME_NONE: none); owned */
	int shrink_check;        /* a quota went down: evict what no longer fits */
	int max_heads_per_queue; /* heads a queue may set aside in one pass; 0 = no bound (Kueue) */
	/* skip_refused_cycles' back-off: after a try that found nothing to skip, the next
	 * skip_wait tries are not made (skip_backoff doubles to 63 and falls to 0 after a
	 * skip). A try only saves time, whatever it finds: decisions do not depend on it. */
	uint32_t skip_wait, skip_backoff;
	int naive_pending;       /* pending sets are the naive oracle (cohort_test_naive_pending) */
	uint64_t ins_seq;        /* entries added to pending sets so far (entry.ins_seq) */
	/* E26: bumped whenever the tree or the time may have changed (each pass, each
	 * cycle run): a queue's class verdicts from an older value are stale. */
	uint64_t verdict_gen;
	/* The entries preempted and queued again at time requeued_at (SIM_TIME_NONE:
	 * never): they may not preempt at that instant (E25 answers them apart). */
	sim_time_t requeued_at;
	uint32_t *requeued;
	size_t n_requeued, cap_requeued;
	/* Bit qi set while trace queue qi has pending entries (qstate.n > 0): a pass's first
	 * head search visits those queues only, in index order as a walk of every queue
	 * would, so a pass costs no O(queues) scan at 1,000 queues. Owned. */
	uint64_t *has_pending;
	uint32_t *capped;        /* the queues with an hourly preemption cap (max_preempt_per_hour
				  * >= 0), in index order; owned */
	size_t n_capped;
	uint32_t *awaiting;      /* entries holding quota but no nodes yet, in admission order */
	size_t n_awaiting, cap_awaiting;
	struct kq_wl **preemptors; /* issued preemptions in the last pass: tried first in the next */
	size_t n_preemptors;
	struct kq_decision dec;
	struct kq_wl **heads;
	/* The queues that still had a head at the last collect_heads of this pass, in
	 * queue order (n_active; active_valid 0: not known yet this pass). Within a
	 * pass pending jobs only leave or are set aside, so a queue without a head
	 * gets none before the next pass: later cycles look at these queues only. */
	uint32_t *active;
	size_t n_active;
	int active_valid;
	struct sim_placement_buf *buf; /* during pick, for the place callback */
	const struct sim_view *view;
	int oom;
	uint8_t *managed_res;    /* per cluster resource: some quota names it */
	uint8_t *explicit_pre;   /* per kq node: preemption keys the queue set itself */
	struct sibling_sums *sums; /* co_queue_stats' scratch; NULL until the first sample */
	/* Per-option requests (docs/kueue-rules.md, "Per-option counts"): for a job whose
	 * options ask for different quantities, its options' managed requests, one row of
	 * SIM_MAX_RES each, from opt_rows + job_row[job] x SIM_MAX_RES. NULL when no job
	 * has such options; else NONE_U32 for a job whose options share one request. */
	uint32_t *job_row;
	sim_qty_t *opt_rows;
};

/* ---- the workload pool ---- */

#define CHUNK_SHIFT 12 /* 4096 entries a chunk */

static inline struct entry *ent(const struct cohort *c, uint32_t i)
{
	return &c->chunks[i >> CHUNK_SHIFT][i & ((1u << CHUNK_SHIFT) - 1)];
}

static inline struct tnode *tn(const struct cohort *c, uint32_t i)
{
	return &c->nodes[i >> CHUNK_SHIFT][i & ((1u << CHUNK_SHIFT) - 1)];
}

static uint32_t entry_new(struct cohort *c)
{
	if (c->n_free)
		return c->free_list[--c->n_free];
	if (c->n_pool == c->cap_pool) {
		struct entry **nc = realloc(c->chunks, (c->n_chunks + 1) * sizeof *nc);
		if (!nc)
			return NONE_U32;
		c->chunks = nc;
		struct tnode **nn = realloc(c->nodes, (c->n_chunks + 1) * sizeof *nn);
		if (!nn)
			return NONE_U32;
		c->nodes = nn;
		nc[c->n_chunks] = malloc(sizeof(struct entry) << CHUNK_SHIFT);
		nn[c->n_chunks] = malloc(sizeof(struct tnode) << CHUNK_SHIFT);
		if (!nc[c->n_chunks] || !nn[c->n_chunks]) {
			free(nc[c->n_chunks]);
			free(nn[c->n_chunks]);
			return NONE_U32;
		}
		c->n_chunks++;
		c->cap_pool += (size_t)1 << CHUNK_SHIFT;
	}
	return (uint32_t)c->n_pool++;
}

static void entry_free(struct cohort *c, uint32_t ei)
{
	uint32_t *nf = sim_grow(c->free_list, &c->cap_free, c->n_free, sizeof *nf, 1024);
	if (!nf) {
		c->oom = 1;
		return;
	}
	c->free_list = nf;
	c->job_entry[ent(c, ei)->job] = NONE_U32;
	c->free_list[c->n_free++] = ei;
}

/* ---- per-queue pending sets: Kueue's ClusterQueue order ---- */

/* Queue order on the ordering fields (the order key or the priority, Kueue's
 * timestamp, the tie-break): does the first come before the second? */
static int order_before(const struct cohort *c, const double *kx, int32_t px, sim_time_t cx, uint64_t tx,
			const double *ky, int32_t py, sim_time_t cy, uint64_t ty)
{
	if (c->order) {
		for (int i = 0; i < SIM_ORDER_KEY_LEN; i++)
			if (kx[i] != ky[i])
				return kx[i] < ky[i];
	} else if (px != py) {
		return px > py;
	}
	if (cx != cy)
		return cx < cy;
	return tx < ty;
}

static int before(const struct cohort *c, uint32_t a, uint32_t b)
{
	const struct entry *x = ent(c, a), *y = ent(c, b);
	return order_before(c, x->key.k, x->wl.priority, x->wl.created, x->wl.tie, y->key.k, y->wl.priority,
			    y->wl.created, y->wl.tie);
}

static int before_pos(const struct cohort *c, const struct entry *x, const struct pos *p)
{
	return order_before(c, x->key.k, x->wl.priority, x->wl.created, x->wl.tie, p->key.k, p->priority,
			    p->created, p->tie);
}

/* The treap's heap key: a fixed hash of the entry index (murmur3's finalizer), so
 * the shape, like every decision, is the same on every run. */
static uint32_t treap_rank(uint32_t ei)
{
	uint32_t x = ei * 0x9e3779b1u;
	x ^= x >> 16;
	x *= 0x85ebca6bu;
	x ^= x >> 13;
	return x;
}

/* ---- the treap's subtree sums (E26) ---- */

#define ODD_BIT (UINT64_C(1) << QCLASS_MAX) /* cls_bit of an entry without a class */

static uint64_t cls_bit(const struct entry *e)
{
	return e->cls_slot == CLS_NONE ? ODD_BIT : UINT64_C(1) << e->cls_slot;
}

static uint32_t sub_n(const struct cohort *c, uint32_t x)
{
	return x == NONE_U32 ? 0 : tn(c, x)->sub_n;
}

/* Recomputes x's sums from its children's. */
static void pull(struct cohort *c, uint32_t x)
{
	struct tnode *t = tn(c, x);
	t->sub_n = 1;
	t->sub_cls = t->own;
	if (t->left != NONE_U32) {
		t->sub_n += tn(c, t->left)->sub_n;
		t->sub_cls |= tn(c, t->left)->sub_cls;
	}
	if (t->right != NONE_U32) {
		t->sub_n += tn(c, t->right)->sub_n;
		t->sub_cls |= tn(c, t->right)->sub_cls;
	}
}

/* Recomputes the sums of x and of every ancestor of x. */
static void pull_up(struct cohort *c, uint32_t x)
{
	for (; x != NONE_U32; x = tn(c, x)->up)
		pull(c, x);
}

/* x's position in its queue (0: the first). */
static uint32_t treap_index(const struct cohort *c, uint32_t x)
{
	uint32_t i = sub_n(c, tn(c, x)->left);
	for (uint32_t p = tn(c, x)->up; p != NONE_U32; x = p, p = tn(c, p)->up)
		if (tn(c, p)->right == x)
			i += sub_n(c, tn(c, p)->left) + 1;
	return i;
}

/* The first entry at position >= from in x's subtree (positions counted from the
 * subtree's first, base the position of that first in the queue) whose class bit
 * is in m and whose queue position is below end, with that position in *at;
 * NONE_U32 if none. */
static uint32_t first_of_classes(const struct cohort *c, uint32_t x, uint32_t from, uint64_t m, uint32_t base,
				 uint64_t end, uint32_t *at)
{
	while (x != NONE_U32 && base < end) {
		const struct tnode *e = tn(c, x);
		if (!(e->sub_cls & m) || e->sub_n <= from)
			return NONE_U32;
		uint32_t nl = sub_n(c, e->left);
		if (from < nl) {
			uint32_t y = first_of_classes(c, e->left, from, m, base, end, at);
			if (y != NONE_U32)
				return y;
		}
		if ((uint64_t)base + nl >= end)
			return NONE_U32; /* x and its right subtree lie at end or after */
		if (from <= nl && (e->own & m)) {
			*at = base + nl;
			return x;
		}
		from = from > nl + 1 ? from - nl - 1 : 0;
		base += nl + 1;
		x = e->right;
	}
	return NONE_U32;
}

/* The first entry after x, at queue position pos, whose class bit is in m and whose
 * position is below end, with that position in *at; NONE_U32 if none. A finger
 * search: up from x to the first ancestor that follows it, down into the first
 * right subtree that holds one of the classes, so an entry d positions away costs
 * O(log d) nodes, not a walk from the root. */
static uint32_t first_of_classes_after(const struct cohort *c, uint32_t x, uint32_t pos, uint64_t m, uint64_t end,
				       uint32_t *at)
{
	for (;;) {
		const struct tnode *t = tn(c, x);
		if (t->right != NONE_U32 && (tn(c, t->right)->sub_cls & m))
			return first_of_classes(c, t->right, 0, m, pos + 1, end, at);
		pos += sub_n(c, t->right); /* now the last position of x's subtree */
		if ((uint64_t)pos + 1 >= end)
			return NONE_U32;
		uint32_t p = t->up;
		while (p != NONE_U32 && tn(c, p)->right == x) { /* a right child ends its parent's subtree too */
			x = p;
			p = tn(c, p)->up;
		}
		if (p == NONE_U32)
			return NONE_U32;
		pos++; /* p follows x's subtree */
		if (tn(c, p)->own & m) {
			*at = pos;
			return p;
		}
		x = p;
	}
}

/* The link that points at x: its parent's left or right, or the queue's root. */
static uint32_t *link_to(struct cohort *c, struct qstate *q, uint32_t x)
{
	uint32_t p = tn(c, x)->up;
	if (p == NONE_U32)
		return &q->root;
	return tn(c, p)->left == x ? &tn(c, p)->left : &tn(c, p)->right;
}

/* Rotates x above its parent, keeping the order. */
static void rotate_up(struct cohort *c, struct qstate *q, uint32_t x)
{
	struct tnode *e = tn(c, x);
	uint32_t p = e->up;
	struct tnode *pe = tn(c, p);
	*link_to(c, q, p) = x;
	e->up = pe->up;
	uint32_t moved;
	if (pe->left == x) {
		moved = e->right;
		pe->left = moved;
		e->right = p;
	} else {
		moved = e->left;
		pe->right = moved;
		e->left = p;
	}
	if (moved != NONE_U32)
		tn(c, moved)->up = p;
	pe->up = x;
	pull(c, p);
	pull(c, x);
}

static uint32_t leftmost(const struct cohort *c, uint32_t x)
{
	while (tn(c, x)->left != NONE_U32)
		x = tn(c, x)->left;
	return x;
}

/* The entry after x in queue order, or CURSOR_END. */
static uint32_t next_after(const struct cohort *c, uint32_t x)
{
	uint32_t n = ent(c, x)->next;
	return n == NONE_U32 ? CURSOR_END : n;
}

static int is_set_aside(const struct cohort *c, const struct qstate *q, const struct entry *e)
{
	if (c->naive_pending)
		return e->parked_flag;
	return e->parked_in == q->epoch || (q->bulk_epoch == q->epoch && e->ins_seq < q->bulk_seq) ||
	       (q->pfx_epoch == q->epoch && e->ins_seq < q->pfx_seq && before_pos(c, e, &q->pfx));
}

/* Links ei, a new leaf of parent (NONE_U32: the only entry), into the queue-order
 * thread: a left child comes just before its parent, a right child just after. */
static void thread_in(struct cohort *c, uint32_t ei, uint32_t parent)
{
	struct entry *e = ent(c, ei);
	uint32_t prev = NONE_U32, next = NONE_U32;
	if (parent != NONE_U32) {
		struct entry *pe = ent(c, parent);
		if (tn(c, parent)->left == ei) {
			next = parent;
			prev = pe->prev;
		} else {
			prev = parent;
			next = pe->next;
		}
	}
	e->prev = prev;
	e->next = next;
	if (prev != NONE_U32)
		ent(c, prev)->next = ei;
	if (next != NONE_U32)
		ent(c, next)->prev = ei;
}

static void thread_out(struct cohort *c, uint32_t ei)
{
	struct entry *e = ent(c, ei);
	if (e->prev != NONE_U32)
		ent(c, e->prev)->next = e->next;
	if (e->next != NONE_U32)
		ent(c, e->next)->prev = e->prev;
	e->prev = e->next = NONE_U32;
}

/* Inserts ei, whose class (class_add) is already set: its node's `own` reads it. */
static void treap_insert(struct cohort *c, struct qstate *q, uint32_t ei)
{
	struct entry *e = ent(c, ei);
	struct tnode *t = tn(c, ei);
	uint32_t parent = NONE_U32, *link = &q->root;
	while (*link != NONE_U32) {
		parent = *link;
		link = before(c, ei, parent) ? &tn(c, parent)->left : &tn(c, parent)->right;
	}
	*link = ei;
	q->mut++;
	t->up = parent;
	t->left = t->right = NONE_U32;
	t->own = cls_bit(e);
	pull_up(c, ei);
	thread_in(c, ei, parent);
	while (t->up != NONE_U32 && treap_rank(ei) > treap_rank(t->up))
		rotate_up(c, q, ei);
	/* A job that may be tried, ahead of the cursor, is where the search starts;
	 * everything before it is still set aside. */
	int ahead = q->cursor == CURSOR_END || (q->cursor != CURSOR_FIRST && before(c, ei, q->cursor));
	if (ahead && !is_set_aside(c, q, e))
		q->cursor = ei;
}

static void treap_remove(struct cohort *c, struct qstate *q, uint32_t ei)
{
	struct tnode *e = tn(c, ei);
	q->mut++;
	if (q->cursor == ei)
		q->cursor = next_after(c, ei);
	while (e->left != NONE_U32 && e->right != NONE_U32)
		rotate_up(c, q, treap_rank(e->left) > treap_rank(e->right) ? e->left : e->right);
	uint32_t child = e->left != NONE_U32 ? e->left : e->right, parent = e->up;
	*link_to(c, q, ei) = child;
	if (child != NONE_U32)
		tn(c, child)->up = parent;
	e->left = e->right = e->up = NONE_U32;
	pull_up(c, parent);
	thread_out(c, ei);
}

/* The naive pending set, the tests' oracle: an unordered array, the head found by
 * a scan, set-aside flags cleared one by one. Obviously Kueue's order; slow. */
static int naive_insert(struct cohort *c, struct qstate *q, uint32_t ei)
{
	uint32_t *nv = sim_grow(q->naive, &q->cap_naive, q->n, sizeof *nv, 64);
	if (!nv)
		return -SIM_ENOMEM;
	q->naive = nv;
	tn(c, ei)->left = (uint32_t)q->n;
	q->naive[q->n] = ei;
	return 0;
}

static void naive_remove(struct cohort *c, struct qstate *q, uint32_t ei)
{
	uint32_t slot = tn(c, ei)->left, last = q->naive[q->n - 1];
	q->naive[slot] = last;
	tn(c, last)->left = slot;
	ent(c, ei)->parked_flag = 0;
}

static uint32_t naive_head(const struct cohort *c, const struct qstate *q)
{
	uint32_t best = NONE_U32;
	for (size_t i = 0; i < q->n; i++) {
		uint32_t ei = q->naive[i];
		if (!ent(c, ei)->parked_flag && (best == NONE_U32 || before(c, ei, best)))
			best = ei;
	}
	return best;
}

/* The order policy's key of a pending entry, at its current state. */
static void entry_rekey(struct cohort *c, uint32_t ei)
{
	struct entry *e = ent(c, ei);
	if (c->order)
		c->order->ops->order_key(c->order, c->view0, sim_view_job(c->view0, e->job), &e->key);
}

/* Enters pending entry ei into its class's slot of q (E25): an equal class's, else a
 * free slot, else none (counted in n_odd). */
static void class_add(struct cohort *c, struct qstate *q, uint32_t ei)
{
	struct entry *e = ent(c, ei);
	e->cls_slot = CLS_NONE;
	e->cls_next = e->cls_prev = NONE_U32;
	if (e->wl.first_fit) { /* its answer depends on free nodes: never a class's */
		q->n_odd++;
		return;
	}
	uint64_t key = kq_class_key(c->kq, &e->wl);
	int slot = -1;
	for (uint32_t m = q->cls_used; m && slot < 0; m &= m - 1) {
		int k = __builtin_ctz(m);
		const struct qclass *qc = &q->cls[k];
		if (qc->key == key && kq_same_class(c->kq, &ent(c, qc->first)->wl, &e->wl))
			slot = k;
	}
	if (slot < 0 && q->cls_used == UINT32_MAX) { /* every slot taken (QCLASS_MAX is 32) */
		q->n_odd++;
		return;
	}
	if (slot < 0) {
		slot = __builtin_ctz(~q->cls_used);
		q->cls[slot] = (struct qclass){ .key = key, .first = NONE_U32, .last = NONE_U32, .count = 0 };
		q->cls_used |= UINT32_C(1) << slot;
	}
	struct qclass *qc = &q->cls[slot];
	e->cls_slot = (uint8_t)slot;
	e->cls_prev = qc->last;
	if (qc->last != NONE_U32)
		ent(c, qc->last)->cls_next = ei;
	else
		qc->first = ei;
	qc->last = ei;
	qc->count++;
}

static void class_remove(struct cohort *c, struct qstate *q, uint32_t ei)
{
	struct entry *e = ent(c, ei);
	if (e->cls_slot == CLS_NONE) {
		q->n_odd--;
		return;
	}
	struct qclass *qc = &q->cls[e->cls_slot];
	if (e->cls_prev != NONE_U32)
		ent(c, e->cls_prev)->cls_next = e->cls_next;
	else
		qc->first = e->cls_next;
	if (e->cls_next != NONE_U32)
		ent(c, e->cls_next)->cls_prev = e->cls_prev;
	else
		qc->last = e->cls_prev;
	if (--qc->count == 0)
		q->cls_used &= ~(UINT32_C(1) << e->cls_slot);
	e->cls_slot = CLS_NONE;
	e->cls_next = e->cls_prev = NONE_U32;
}

static int pending_add(struct cohort *c, struct qstate *q, uint32_t ei)
{
	entry_rekey(c, ei);
	ent(c, ei)->ins_seq = c->ins_seq++;
	if (c->naive_pending) {
		int rc = naive_insert(c, q, ei);
		if (rc)
			return rc;
	} else {
		class_add(c, q, ei); /* first: the treap's sums read its class */
		treap_insert(c, q, ei);
	}
	ent(c, ei)->pending = 1;
	if (!is_set_aside(c, q, ent(c, ei)))
		q->n_unparked++;
	if (q->n++ == 0) {
		size_t qi = (size_t)(q - c->qs);
		c->has_pending[qi / 64] |= UINT64_C(1) << (qi % 64);
	}
	return 0;
}

static void pending_remove(struct cohort *c, struct qstate *q, uint32_t ei)
{
	if (!is_set_aside(c, q, ent(c, ei)))
		q->n_unparked--;
	if (c->naive_pending) {
		naive_remove(c, q, ei);
	} else {
		treap_remove(c, q, ei);
		class_remove(c, q, ei);
	}
	ent(c, ei)->pending = 0;
	ent(c, ei)->parked_in = 0;
	if (--q->n == 0) {
		size_t qi = (size_t)(q - c->qs);
		c->has_pending[qi / 64] &= ~(UINT64_C(1) << (qi % 64));
	}
}

/* Gives each entry that q's run mark (park_run, E26) sets aside a mark of its own
 * and drops the run mark: done before the entries' ordering fields change, which
 * the run mark compares. O(entries it covers). */
static void own_marks_from_run(struct cohort *c, struct qstate *q)
{
	if (c->naive_pending || q->pfx_epoch != q->epoch)
		return;
	for (uint32_t x = q->root == NONE_U32 ? CURSOR_END : leftmost(c, q->root); x != CURSOR_END;
	     x = next_after(c, x)) {
		struct entry *e = ent(c, x);
		if (!before_pos(c, e, &q->pfx))
			break; /* every entry after it comes after the mark too */
		if (e->ins_seq < q->pfx_seq)
			e->parked_in = q->epoch;
	}
	q->pfx_epoch = 0;
}

/* Its priority changed: it moves in its queue, set aside or not as before. */
static void pending_reorder(struct cohort *c, struct qstate *q, uint32_t ei)
{
	if (c->naive_pending) {
		entry_rekey(c, ei); /* unordered: the scan sees the new key */
		return;
	}
	int parked = is_set_aside(c, q, ent(c, ei));
	pending_remove(c, q, ei);
	ent(c, ei)->parked_in = parked ? q->epoch : 0;
	pending_add(c, q, ei); /* cannot fail: the treap allocates nothing */
}

/* Is q's cursor position known (struct qstate, pos)? */
static int pos_valid(const struct qstate *q)
{
	return q->pos_of == q->cursor && q->pos_mut == q->mut;
}

/* Entry x (CURSOR_END: none) is at queue position i in q's treap as it stands. */
static void pos_known(struct qstate *q, uint32_t x, uint32_t i)
{
	if (x == CURSOR_END)
		return;
	q->pos_of = x;
	q->pos = i;
	q->pos_mut = q->mut;
}

/* The queue position of q's cursor, an entry: from the last known, or a walk. */
static uint32_t cursor_pos(const struct cohort *c, struct qstate *q)
{
	if (!pos_valid(q))
		pos_known(q, q->cursor, treap_index(c, q->cursor));
	return q->pos;
}

/* The first pending entry not set aside, or NONE_U32. Amortized O(1) a head: the
 * cursor only moves forward over set-aside entries until the epoch changes. */
static uint32_t pending_head(struct cohort *c, struct qstate *q)
{
	if (c->naive_pending)
		return naive_head(c, q);
	if (q->n_unparked == 0) /* no walk over a queue whose entries are all set aside */
		return NONE_U32;
	if (q->cursor == CURSOR_FIRST) {
		q->cursor = q->root == NONE_U32 ? CURSOR_END : leftmost(c, q->root);
		pos_known(q, q->cursor, 0);
	}
	while (q->cursor != CURSOR_END && is_set_aside(c, q, ent(c, q->cursor))) {
		int known = pos_valid(q);
		q->cursor = next_after(c, q->cursor);
		if (known)
			pos_known(q, q->cursor, q->pos + 1);
	}
	return q->cursor == CURSOR_END ? NONE_U32 : q->cursor;
}

/* A head that does not fit is set aside (BestEffortFIFO) until unpark_all. O(1). */
static void park(struct cohort *c, struct qstate *q, uint32_t ei)
{
	if (!is_set_aside(c, q, ent(c, ei)))
		q->n_unparked--;
	if (c->naive_pending)
		ent(c, ei)->parked_flag = 1;
	else
		ent(c, ei)->parked_in = q->epoch;
}

/* The first queue index >= from with pending entries (has_pending), or n_queues. */
static size_t next_pending_queue(const struct cohort *c, size_t from)
{
	for (size_t w = from / 64; w * 64 < c->n_queues; w++) {
		uint64_t bits = c->has_pending[w];
		if (w == from / 64)
			bits &= ~UINT64_C(0) << (from % 64);
		if (bits)
			return w * 64 + (size_t)__builtin_ctzll(bits);
	}
	return c->n_queues;
}

/* Gives back every head queue q set aside: a new epoch. */
static void unpark_queue(struct cohort *c, struct qstate *q)
{
	q->n_unparked = q->n;
	if (c->naive_pending) {
		for (size_t k = 0; k < q->n; k++)
			ent(c, q->naive[k])->parked_flag = 0;
		return;
	}
	q->epoch++;
	q->cursor = CURSOR_FIRST;
}

/* Parked heads come back on a change that may let them fit: a finish, a
 * preemption, a quota change (Kueue requeues inadmissible workloads then). A new
 * epoch a queue with pending jobs, whatever the number of heads set aside. */
static void unpark_all(struct cohort *c)
{
	/* Only queues with pending entries: an empty one holds no set-aside entry (leaving
	 * the pending set clears the mark), and its next entry is its head whatever its
	 * cursor and epoch (treap_insert), so bumping it would change nothing. */
	for (size_t qi = next_pending_queue(c, 0); qi < c->n_queues; qi = next_pending_queue(c, qi + 1))
		unpark_queue(c, &c->qs[qi]);
}

/* ---- notifications ---- */

/* The fallback policy's capability as a mode (SIM_CAP_FB_*): none is strict; the
 * stack validator refuses a fallback policy that a quota cycle cannot apply.
 * Returns 0 if the policy is not known yet (created later: ask again). */
static int fallback_mode(const struct sim_view *v, enum fb_mode *out)
{
	const struct sim_policy *fp = sim_view_policy(v, SIM_FAM_FALLBACK);
	*out = FB_STRICT;
	if (!fp)
		return 1;
	if (!fp->ops)
		return 0;
	if (fp->ops->provides & SIM_CAP_FB_FUNGIBLE)
		*out = FB_FUNGIBLE;
	else if (fp->ops->provides & SIM_CAP_FB_FIRST_FIT)
		*out = FB_FIRST_FIT;
	return 1;
}

static void resolve_fallback(struct cohort *c, const struct sim_view *v)
{
	if (!c->fb_resolved)
		c->fb_resolved = fallback_mode(v, &c->fb);
}

/* The request (option 0's: under fungible and first_fit every option has the same)
 * and the flavors the job may use, as the fallback mode says. An option open to
 * any flavor ("*", a plain request only) opens every flavor, in the queue's order. */
static void fill_request(const struct cohort *c, const struct sim_view *v, const struct sim_job *job,
			 struct kq_wl *wl)
{
	const struct sim_trace *t = sim_view_trace(v);
	const struct sim_job_option *o = sim_job_opt(t, job, 0);
	for (int r = 0; r < c->kq->n_res; r++)
		wl->req[r] = c->managed_res[r] ? o->req[r] : 0;
	int n = c->fb == FB_STRICT ? 1 : job->n_opts;
	wl->n_allow = 0;
	wl->job_order = wl->first_fit = 0;
	for (int k = 0; k < n; k++) {
		int32_t f = sim_job_opt(t, job, k)->flavor_id;
		if (f == SIM_FLAVOR_ANY) {
			wl->n_allow = 0;
			return;
		}
		wl->allow[wl->n_allow++] = (int16_t)f;
	}
	/* First fit is how a preference list is used; a job of one option keeps Kueue's
	 * rules (it may preempt, and holds its quota while it waits for nodes). */
	wl->first_fit = wl->job_order = c->fb == FB_FIRST_FIT && job->n_opts > 1;
	/* Its options' own requests, when they differ (first fit only). */
	wl->opt_req = NULL;
	wl->digest = 0; /* its class changed: kq computes the digest again */
	if (wl->first_fit && wl->n_allow && c->job_row && c->job_row[job->idx] != NONE_U32)
		wl->opt_req = c->opt_rows + (size_t)c->job_row[job->idx] * SIM_MAX_RES;
}

/* The request of wl on flavor f: its option's own (kq_wl.opt_req), else req. */
static const sim_qty_t *request_on(const struct kq_wl *wl, int f)
{
	for (int k = 0; wl->opt_req && k < wl->n_allow; k++)
		if (wl->allow[k] == f)
			return wl->opt_req + (size_t)k * SIM_MAX_RES;
	return wl->req;
}

/* The option of job j that runs on flavor f: the first naming f, else the first
 * open to any flavor, else option 0. */
static int option_on(const struct sim_trace *t, const struct sim_job *j, int f)
{
	int any = -1;
	for (int k = 0; k < j->n_opts; k++) {
		int32_t fk = sim_job_opt(t, j, k)->flavor_id;
		if (fk == f)
			return k;
		if (fk == SIM_FLAVOR_ANY && any < 0)
			any = k;
	}
	return any < 0 ? 0 : any;
}

static void configure(struct cohort *c, const struct sim_view *v);

static void co_on_submit(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job)
{
	struct cohort *c = pol->priv;
	/* The queues' within-queue policies decide what a request class is (E25: whether
	 * the creation time is part of it), so they are set before the first job's class. */
	configure(c, v);
	resolve_fallback(c, v);
	uint32_t ei = entry_new(c);
	if (ei == NONE_U32) {
		c->oom = 1;
		return;
	}
	struct entry *e = ent(c, ei);
	memset(e, 0, sizeof *e);
	e->self = ei;
	e->evicted_at = SIM_TIME_NONE;
	e->job = job->idx;
	e->next = e->prev = NONE_U32;
	*tn(c, ei) = (struct tnode){ .left = NONE_U32, .right = NONE_U32, .up = NONE_U32 };
	e->tq = job->queue;
	e->wl.tie = job->idx;
	e->wl.name = sim_job_id(sim_view_trace(v), job);
	e->wl.queue = c->qs[job->queue].node;
	e->wl.priority = job->eff_priority;
	e->wl.created = job->submit_ns; /* Kueue keeps the creation time across evictions */
	e->wl.preemptible = job->preemptible;
	e->wl.nom.gen = 0;
	for (int r = 0; r < SIM_MAX_RES; r++)
		e->wl.flavor[r] = -1;
	fill_request(c, v, job, &e->wl);
	c->job_entry[job->idx] = ei;
	if (pending_add(c, &c->qs[job->queue], ei))
		c->oom = 1;
}

/* ---- jobs holding quota but waiting for nodes ---- */

/* Appends entry index ei to the growing array *v (*n used of *cap); on no memory
 * sets c->oom (the pass reports it) and leaves the array as it was. */
static void push_entry(struct cohort *c, uint32_t **v, size_t *n, size_t *cap, uint32_t ei)
{
	uint32_t *nv = sim_grow(*v, cap, *n, sizeof *nv, 64);
	if (!nv) {
		c->oom = 1;
		return;
	}
	*v = nv;
	nv[(*n)++] = ei;
}

static void awaiting_push(struct cohort *c, uint32_t ei)
{
	push_entry(c, &c->awaiting, &c->n_awaiting, &c->cap_awaiting, ei);
}

static void awaiting_remove(struct cohort *c, uint32_t ei)
{
	for (size_t i = 0; i < c->n_awaiting; i++)
		if (c->awaiting[i] == ei) {
			memmove(&c->awaiting[i], &c->awaiting[i + 1], (c->n_awaiting - i - 1) * sizeof *c->awaiting);
			c->n_awaiting--;
			return;
		}
}

static void leave_running(struct cohort *c, uint32_t ei)
{
	struct entry *e = ent(c, ei);
	if (e->running) {
		kq_remove_running(c->kq, &e->wl);
		e->running = 0;
		if (!e->placed)
			awaiting_remove(c, ei);
	}
	e->placed = 0;
}

static void co_on_finish(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job)
{
	(void)v;
	struct cohort *c = pol->priv;
	uint32_t ei = c->job_entry[job->idx];
	if (ei == NONE_U32)
		return;
	leave_running(c, ei);
	entry_free(c, ei);
	unpark_all(c);
}

/* Entry ei goes back to its queue at now, preempted (c->requeued). */
static void note_requeued(struct cohort *c, uint32_t ei, sim_time_t now)
{
	if (c->requeued_at != now) {
		c->requeued_at = now;
		c->n_requeued = 0;
	}
	push_entry(c, &c->requeued, &c->n_requeued, &c->cap_requeued, ei);
}

/* Victims leave the tree when they are proposed (so the rest of the pass sees the
 * quota they free); here a requeued one goes back to its queue. */
static void co_on_preempt(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job)
{
	struct cohort *c = pol->priv;
	uint32_t ei = c->job_entry[job->idx];
	if (ei == NONE_U32)
		return;
	leave_running(c, ei);
	if (job->state == SIM_JOB_QUEUED) {
		ent(c, ei)->wl.evicted = 0;
		ent(c, ei)->evicted_at = sim_view_now(v);
		note_requeued(c, ei, sim_view_now(v));
		/* Kueue's requeuingStrategy.timestamp: Creation keeps the submit time; the
		 * back-of-the-queue option (Eviction) gives a fault restart its requeue time. */
		ent(c, ei)->wl.created = sim_job_order_ns(job);
		ent(c, ei)->wl.digest = 0; /* its class digest may include created (kq_cycle.c) */
		if (pending_add(c, &c->qs[job->queue], ei))
			c->oom = 1;
	} else {
		entry_free(c, ei);
	}
	unpark_all(c);
}

/* Its pending limit ran out (max_pending_s, the whole preference list): the job
 * leaves its queue for good. One waiting for nodes gives its quota back. A parked
 * one is freed when the parked list is next emptied (no search of that list). */
static void co_on_drop(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job)
{
	(void)v;
	struct cohort *c = pol->priv;
	uint32_t ei = c->job_entry[job->idx];
	if (ei == NONE_U32)
		return;
	struct entry *e = ent(c, ei);
	for (size_t i = 0; i < c->n_preemptors; i++)
		if (c->preemptors[i] == &e->wl)
			c->preemptors[i--] = c->preemptors[--c->n_preemptors];
	int held_quota = e->running;
	leave_running(c, ei);
	if (e->pending)
		pending_remove(c, &c->qs[job->queue], ei);
	entry_free(c, ei);
	if (held_quota)
		unpark_all(c);
}

/* The one stop notification, by cause: a finish, a timeout, or a stop that may
 * queue the job again (a preemption, its nodes removed). */
static void co_on_stop(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
		       enum sim_stop_cause cause)
{
	switch (cause) {
	case SIM_STOP_COMPLETED:
	case SIM_STOP_FAILED:
		co_on_finish(pol, v, job);
		break;
	case SIM_STOP_PENDING_TIMEOUT:
		co_on_drop(pol, v, job);
		break;
	default:
		co_on_preempt(pol, v, job);
	}
}

/* ---- timed changes ---- */

static void set_priority(struct cohort *c, const struct sim_view *v, uint32_t job, int32_t prio)
{
	struct sim_job *j = (struct sim_job *)sim_view_job(v, job); /* eff_priority is policy-writable */
	j->eff_priority = prio;
	kq_invalidate(c->kq); /* priorities decide candidates: cached nominations are stale */
	uint32_t ei = c->job_entry[job];
	if (ei == NONE_U32)
		return;
	struct entry *e = ent(c, ei);
	if (e->running) { /* its quantities move to the new priority's band */
		if (kq_set_running_priority(c->kq, &e->wl, prio))
			c->oom = 1;
		return;
	}
	if (e->pending)
		own_marks_from_run(c, &c->qs[j->queue]); /* before its place moves */
	e->wl.priority = prio;
	if (e->pending)
		pending_reorder(c, &c->qs[j->queue], ei);
}

static void co_on_event(struct sim_policy *pol, const struct sim_view *v, uint32_t handle)
{
	struct cohort *c = pol->priv;
	if (handle == WAKE_HANDLE) {
		unpark_all(c);
		return;
	}
	const struct timed_change *ch = &c->changes[handle];
	if (ch->kind == 0) {
		struct kq_node *n = &c->kq->nodes[ch->node];
		if (ch->nominal < n->nominal[ch->fr])
			c->shrink_check = 1;
		n->nominal[ch->fr] = ch->nominal;
		n->has_quota[ch->fr] = 1;
		kq_requota(c->kq);
		unpark_all(c);
	} else {
		set_priority(c, v, ch->job, ch->priority);
	}
}

/* ---- preemption settings from the preemption policy ---- */

static void configure(struct cohort *c, const struct sim_view *v)
{
	if (c->configured)
		return;
	c->configured = 1;
	const struct sim_policy *pp = sim_view_policy(v, SIM_FAM_PREEMPT);
	const struct kq_preempt_params *pr = pp && pp->ops ? kq_preempt_params_of(pp) : NULL;
	struct kq_sched *kq = c->kq;
	kq->fair = pr && pr->fair;
	kq->fair_le_final = pr ? pr->le_final : 0;
	kq->fair_lt_initial = pr ? pr->lt_initial : 0;
	kq->fair_first_is_initial = pr ? pr->first_is_initial : 0;
	for (size_t i = 0; i < kq->n_nodes; i++) {
		struct kq_node *n = &kq->nodes[i];
		if (!n->is_queue)
			continue;
		if (!pr) { /* preemption "none" */
			n->cfg.within = KQ_NEVER;
			n->cfg.reclaim = KQ_NEVER;
			n->cfg.bwc = 0;
			continue;
		}
		kq_preempt_params_apply(pr, c->kq, (int)i, c->explicit_pre[i]);
	}
}

/* ---- decisions ---- */

/* The one flavor of an assignment (a cluster flavor holds every resource). */
static int assigned_flavor(const struct cohort *c, const int16_t *flavor)
{
	int f = flavor[SIM_RES_GPU];
	for (int r = 0; f < 0 && r < c->kq->n_res; r++)
		f = flavor[r];
	return f;
}

/* Places a quota-admitted job on nodes of its flavor, if any are free now, as the
 * option of that flavor (its run time scales as that option). */
static int try_place(struct cohort *c, struct entry *e, const int16_t *flavor)
{
	int f = assigned_flavor(c, flavor);
	const struct sim_job *j = sim_view_job(c->view, e->job);
	int k = option_on(sim_view_trace(c->view), j, f);
	e->placed = sim_placement_buf_try_flavor(c->buf, e->job, k, f) == 0;
	return e->placed;
}

/* An admission stands on quota alone, as in Kueue: a job whose quota fits keeps it
 * while it waits for free nodes (so the quota its victims freed is not taken back
 * by them), and is placed as soon as nodes free up. A first-fit job is different:
 * it takes an option only with the nodes (SageMaker), so if an earlier admission of
 * the cycle took them it stays waiting and is offered again. */
static int place_cb(void *arg, struct kq_wl *wl, const int16_t *flavor)
{
	struct entry *e = (struct entry *)wl;
	return !try_place(arg, e, flavor) && wl->first_fit ? -1 : 0;
}

/* kq's room predicate for first-fit jobs: free nodes of `flavor` for the job's
 * option there, now. */
static int room_cb(void *arg, const struct kq_wl *wl, int flavor)
{
	const struct cohort *c = arg;
	const struct entry *e = (const struct entry *)wl;
	const struct sim_trace *t = sim_view_trace(c->view);
	const struct sim_job *j = sim_view_job(c->view, e->job);
	const struct sim_job_option *o = sim_job_opt(t, j, option_on(t, j, flavor));
	return sim_cluster_fits(sim_view_cluster(c->view), flavor, o->req);
}

/* Jobs holding quota get nodes first, in the order they were admitted. */
static void place_awaiting(struct cohort *c, sim_time_t now)
{
	size_t kept = 0;
	for (size_t i = 0; i < c->n_awaiting; i++) {
		struct entry *e = ent(c, c->awaiting[i]);
		if (try_place(c, e, e->wl.flavor))
			e->wl.last_ckpt = now; /* its work starts now */
		else
			c->awaiting[kept++] = c->awaiting[i];
	}
	c->n_awaiting = kept;
}

/* The cap on preemptions a queue causes an hour (beyond Kueue): forget those older
 * than an hour, and block preemption for the queue while it is at the cap. */
static void apply_preempt_caps(struct cohort *c, sim_time_t now)
{
	for (size_t k = 0; k < c->n_capped; k++) {
		struct qstate *q = &c->qs[c->capped[k]];
		while (q->n_recent && q->recent[q->head_recent] <= now - 3600 * SIM_NS_PER_S) {
			q->head_recent = (q->head_recent + 1) % q->cap_recent;
			q->n_recent--;
		}
		int blocked = (double)q->n_recent >= q->max_preempt_per_hour;
		if (c->kq->nodes[q->node].cfg.no_preemption != blocked)
			kq_invalidate(c->kq); /* cached nominations assumed the old setting */
		c->kq->nodes[q->node].cfg.no_preemption = blocked;
		sim_time_t free_at = q->n_recent ? q->recent[q->head_recent] + 3600 * SIM_NS_PER_S : now;
		if (blocked && q->wake_at != free_at) {
			q->wake_at = free_at;
			if (sim_view_post_event(c->view, free_at, SIM_FAM_QUOTA, WAKE_HANDLE))
				c->oom = 1;
		}
	}
}

static void note_preemption(struct cohort *c, struct qstate *q, sim_time_t now)
{
	if (q->max_preempt_per_hour < 0)
		return;
	if (q->n_recent == q->cap_recent) {
		size_t nc = q->cap_recent ? q->cap_recent * 2 : 16;
		sim_time_t *nr = malloc(nc * sizeof *nr);
		if (!nr) {
			c->oom = 1;
			return;
		}
		for (size_t i = 0; i < q->n_recent; i++)
			nr[i] = q->recent[(q->head_recent + i) % q->cap_recent];
		free(q->recent);
		q->recent = nr;
		q->cap_recent = nc;
		q->head_recent = 0;
	}
	q->recent[(q->head_recent + q->n_recent++) % q->cap_recent] = now;
}

static int propose_victim(struct cohort *c, struct entry *victim, uint32_t preemptor, enum kq_reason reason)
{
	const struct sim_job *vj = sim_view_job(c->view, victim->job);
	struct qstate *vq = &c->qs[vj->queue];
	/* A job evicted before it got nodes lost nothing: it is always requeued (its
	 * count of preemptions still grows, and later counts against the limit). */
	int requeue = !victim->placed || vq->retry_limit < 0 || vj->preemptions < (uint32_t)vq->retry_limit;
	int rc = sim_placement_buf_preempt(c->buf, victim->job, preemptor, (enum sim_preempt_reason)reason,
					   requeue);
	if (rc && rc != -SIM_ESTATE)
		return rc;
	leave_running(c, victim->self); /* already a victim: it is gone either way */
	return 0;
}

/* After a quota went down: while a queue's quota is overdrawn on some
 * flavor-resource (available < 0), stop its lowest-priority, most recently
 * admitted job there (reason quota_shrink). */
static int evict_overdrawn(struct cohort *c)
{
	struct kq_sched *kq = c->kq;
	c->shrink_check = 0;
	for (size_t qi = 0; qi < kq->n_nodes; qi++) {
		struct kq_node *n = &kq->nodes[qi];
		if (!n->is_queue)
			continue;
		for (int fr = 0; fr < kq->n_fr; fr++) {
			while (kq_available(kq, (int)qi, fr) < 0 && n->n_running) {
				struct kq_wl *worst = NULL;
				for (size_t k = 0; k < n->n_running; k++) {
					struct kq_wl *w = n->running[k];
					int r = fr % kq->n_res;
					if (w->req[r] <= 0 || w->flavor[r] != fr / kq->n_res)
						continue;
					if (!worst || w->priority < worst->priority ||
					    (w->priority == worst->priority && w->admitted > worst->admitted))
						worst = w;
				}
				if (!worst)
					break;
				struct entry *e = (struct entry *)worst;
				int rc = propose_victim(c, e, e->job, KQ_R_QUOTA_SHRINK);
				if (rc)
					return rc;
			}
		}
	}
	return 0;
}

/* Kueue orders the entries whose victims are gone first ("quota reserved, second
 * pass"): the preemptors of the last pass get the capacity their victims freed
 * before any other head can take it (else a requeued head of the same queue or a
 * victim could take it back, and the preemptor would preempt again, forever). */
static size_t take_preemptors(struct cohort *c)
{
	size_t n = 0;
	for (size_t i = 0; i < c->n_preemptors; i++) {
		struct entry *e = (struct entry *)c->preemptors[i];
		const struct sim_job *j = sim_view_job(c->view, e->job);
		if (j->state == SIM_JOB_QUEUED && !e->running && e->pending && !is_set_aside(c, &c->qs[e->tq], e)) {
			e->wl.no_preempt = 0; /* a preemptor was queued, not a victim, at this time */
			c->heads[n++] = &e->wl;
		}
	}
	c->n_preemptors = 0;
	return n;
}

/* The head of queue qi into heads[], qi into active[], when it has one. A job
 * preempted at this instant may be admitted into free quota but may not preempt
 * others before time moves on: chains of victims reclaiming from one another would
 * otherwise cycle within one timestamp (in a real cluster the victims' termination
 * takes time). */
static void collect_head(struct cohort *c, uint32_t qi, sim_time_t now, size_t *n)
{
	uint32_t ei = pending_head(c, &c->qs[qi]);
	if (ei == NONE_U32)
		return;
	c->active[*n] = qi; /* in place: at most the queue's position in the list walked */
	struct entry *e = ent(c, ei);
	e->wl.no_preempt = e->evicted_at == now;
	c->heads[(*n)++] = &e->wl;
}

static size_t collect_heads(struct cohort *c, sim_time_t now)
{
	size_t n = 0;
	if (c->active_valid) { /* later cycles of a pass: the queues that had a head */
		for (size_t k = 0, n_look = c->n_active; k < n_look; k++)
			collect_head(c, c->active[k], now, &n);
	} else { /* the first cycle: the queues with pending jobs */
		for (size_t qi = next_pending_queue(c, 0); qi < c->n_queues; qi = next_pending_queue(c, qi + 1))
			collect_head(c, (uint32_t)qi, now, &n);
	}
	c->n_active = n;
	c->active_valid = 1;
	return n;
}

static void mark_running(struct cohort *c, const struct kq_assign *a, sim_time_t now)
{
	struct entry *e = (struct entry *)a->wl;
	const struct sim_job *j = sim_view_job(c->view, e->job);
	pending_remove(c, &c->qs[e->tq], e->self);
	memcpy(e->wl.flavor, a->flavor, sizeof e->wl.flavor);
	e->wl.admitted = now;
	e->wl.last_ckpt = now; /* the engine adds restore time; a checkpoint is at least that late */
	e->wl.ckpt_period = 0;
	if (j->checkpoint_ns != SIM_TIME_NONE && j->checkpoint_ns > 0)
		e->wl.ckpt_period = j->checkpoint_ns;
	if (kq_add_running(c->kq, &e->wl)) {
		c->oom = 1; /* the pass reports -SIM_ENOMEM */
		return;
	}
	e->running = 1;
	if (c->order && c->order->ops->on_reserve)
		c->order->ops->on_reserve(c->order, c->view, j);
	if (!e->placed)
		awaiting_push(c, e->self);
	sim_time_t min_rt = c->kq->nodes[e->wl.queue].cfg.min_runtime_ns;
	if (min_rt > 0 && sim_view_post_event(c->view, now + min_rt, SIM_FAM_QUOTA, WAKE_HANDLE))
		c->oom = 1; /* it becomes a candidate then */
}

/* Sets aside a head that was not admitted, as BestEffortFIFO does (not under
 * StrictFIFO, nor past the optional head bound). Returns 1 if it did. */
static int set_aside(struct cohort *c, struct entry *e)
{
	struct qstate *q = &c->qs[e->tq];
	if (q->strict_fifo || (c->max_heads_per_queue && q->parked_this_pass >= c->max_heads_per_queue))
		return 0;
	park(c, q, e->self);
	q->parked_this_pass++;
	return 1;
}

/* q's class verdicts, cleared if they were found on another tree or time (E26). */
static void verdicts_fresh(const struct cohort *c, struct qstate *q)
{
	if (q->verdict_gen != c->verdict_gen) {
		q->verdict_gen = c->verdict_gen;
		q->cls_known = q->cls_refused = 0;
	}
}

/* The verdict (kq_inadmissible) of class slot k of q on the tree as it stands,
 * once a tree (E26): asked of wl, an entry of the class, as a job not preempted
 * now (its flag is kept: it may be a head of this cycle). 1 (not admissible), 0,
 * or -SIM_ENOMEM. */
static int class_inadmissible(struct cohort *c, struct qstate *q, int k, struct kq_wl *wl, sim_time_t now)
{
	verdicts_fresh(c, q);
	uint32_t bit = UINT32_C(1) << k;
	if (!(q->cls_known & bit)) {
		uint8_t was = wl->no_preempt;
		wl->no_preempt = 0;
		int rc = kq_inadmissible(c->kq, wl, now);
		wl->no_preempt = was;
		if (rc < 0)
			return rc;
		q->cls_known |= bit;
		if (rc)
			q->cls_refused |= bit;
	}
	return (q->cls_refused & bit) != 0;
}

/* Head wl's verdict: its class's when it has one and may preempt (E26), asked of
 * wl itself the first time (kq keeps a nomination that may admit for the cycle
 * that follows, by workload), else its own. */
static int head_inadmissible(struct cohort *c, struct kq_wl *wl, sim_time_t now)
{
	struct entry *e = (struct entry *)wl;
	if (c->naive_pending || e->cls_slot == CLS_NONE || wl->no_preempt)
		return kq_inadmissible(c->kq, wl, now);
	return class_inadmissible(c, &c->qs[e->tq], e->cls_slot, wl, now);
}

/* Would kq_cycle leave every head "not admissible" (NoFit or NoCandidates)? Each
 * is answered from its class's verdict, kq's memos or nominated now, as the
 * cycle's first step would, until one may be admitted. Then the cycle would change
 * nothing but leave them waiting. 1, 0, or -SIM_ENOMEM. */
static int all_inadmissible(struct cohort *c, size_t n, sim_time_t now)
{
	for (size_t i = 0; i < n; i++) {
		int rc = head_inadmissible(c, c->heads[i], now);
		if (rc <= 0)
			return rc;
	}
	return 1;
}

/* The outcome of such a cycle, without running it: each head set aside. Returns 1
 * if any was (the pass goes on), 0 if none could be (quiescent). */
static int set_aside_heads(struct cohort *c, size_t n)
{
	int changed = 0;
	for (size_t i = 0; i < n; i++)
		changed |= set_aside(c, (struct entry *)c->heads[i]);
	return changed;
}

/* Sets aside every pending entry of q at once (E25): those that enter later are not. */
static void park_all(struct cohort *c, struct qstate *q)
{
	q->bulk_epoch = q->epoch;
	q->bulk_seq = c->ins_seq;
	q->n_unparked = 0;
	q->cursor = CURSOR_END;
}

/* Is every pending entry of q "not admissible" now (kq_inadmissible), its class
 * answered for one of its entries? 1, 0 (some class may be admitted, or q cannot
 * tell: an entry without a class), or -SIM_ENOMEM. */
static int queue_inadmissible(struct cohort *c, struct qstate *q, sim_time_t now)
{
	if (q->n_odd)
		return 0;
	for (uint32_t m = q->cls_used; m; m &= m - 1) {
		int k = __builtin_ctz(m);
		int rc = class_inadmissible(c, q, k, &ent(c, q->cls[k].first)->wl, now);
		if (rc <= 0)
			return rc;
	}
	return 1;
}

/* E25. Every head of this cycle is not admissible (all_inadmissible), and the heads
 * came from collect_heads (c->active: every queue with a head). If every pending
 * entry of those queues is not admissible either, the cycles that would follow set
 * one head of each queue aside after another, answer each from the same unchanged
 * tree at the same time, and end when no head is left, changing nothing else: every
 * entry is set aside at once instead (a StrictFIFO queue's head stays: it is never
 * set aside). The jobs preempted and queued again at this instant may not preempt
 * now, so they are answered as such, one by one. Not under the head bound or the
 * naive oracle. 1 if done (the pass ends), 0 if not (the cycles run), or
 * -SIM_ENOMEM. */
static int drain_inadmissible(struct cohort *c, sim_time_t now)
{
	if (c->naive_pending || c->max_heads_per_queue)
		return 0;
	for (size_t k = 0; k < c->n_active; k++) {
		struct qstate *q = &c->qs[c->active[k]];
		int rc = q->strict_fifo ? 1 : queue_inadmissible(c, q, now);
		if (rc <= 0)
			return rc;
	}
	/* Those preempted at this instant, as the heads they would be: unable to preempt. */
	for (size_t k = 0; c->requeued_at == now && k < c->n_requeued; k++) {
		struct entry *e = ent(c, c->requeued[k]);
		struct qstate *q = &c->qs[e->tq];
		if (!e->pending || e->evicted_at != now || q->strict_fifo || is_set_aside(c, q, e))
			continue;
		e->wl.no_preempt = 1;
		int rc = kq_inadmissible(c->kq, &e->wl, now);
		if (rc <= 0)
			return rc;
	}
	for (size_t k = 0; k < c->n_active; k++)
		if (!c->qs[c->active[k]].strict_fifo)
			park_all(c, &c->qs[c->active[k]]);
	cohort_test_drains++;
	return 1;
}

/* The entry at position i of x's subtree (i < its size). */
static uint32_t subtree_at(const struct cohort *c, uint32_t x, uint32_t i)
{
	for (;;) {
		uint32_t nl = sub_n(c, tn(c, x)->left);
		if (i == nl)
			return x;
		if (i < nl) {
			x = tn(c, x)->left;
		} else {
			i -= nl + 1;
			x = tn(c, x)->right;
		}
	}
}

/* The entry d >= 1 positions after x (there is one): a finger search, O(log d)
 * nodes (first_of_classes_after). */
static uint32_t entry_after(const struct cohort *c, uint32_t x, uint32_t d)
{
	for (;;) {
		const struct tnode *t = tn(c, x);
		uint32_t nr = sub_n(c, t->right);
		if (d <= nr)
			return subtree_at(c, t->right, d - 1);
		d -= nr; /* x's subtree passed: d counts from its last entry */
		uint32_t p = t->up;
		while (tn(c, p)->right == x) {
			x = p;
			p = tn(c, p)->up;
		}
		if (--d == 0)
			return p;
		x = p;
	}
}

/* Sets aside at once the cnt entries of q from queue position r0 on, where every
 * entry before r0 is set aside and none from r0 on (E26). The mark is the position
 * that follows, as its ordering fields, and the count of entries so far: an entry
 * queued later is not set aside. */
static void park_run(struct cohort *c, struct qstate *q, uint32_t r0, uint32_t cnt)
{
	if (cnt >= q->n_unparked) {
		park_all(c, q);
		return;
	}
	const struct entry *x = ent(c, entry_after(c, q->cursor, cnt));
	q->pfx_epoch = q->epoch;
	q->pfx_seq = c->ins_seq;
	q->pfx = (struct pos){ .key = x->key, .priority = x->wl.priority, .created = x->wl.created, .tie = x->wl.tie };
	q->cursor = x->self;
	pos_known(q, q->cursor, r0 + cnt);
	q->n_unparked -= cnt;
}

/* How many cycles from this one would find q's head not admissible, counted up to
 * limit (E26): the distance from q's head, at position r0 and not admissible, to
 * the first entry after it whose class may be admitted now or that has no class
 * (its verdict is its own). The classes met on the way are asked, in queue order,
 * the entry found itself; those found not admissible are passed over. limit if
 * none before it (the search stops there), UINT32_MAX if limit is UINT32_MAX and
 * no entry may be admitted (q runs out of heads first); or -SIM_ENOMEM as a
 * negative int64_t. */
static int64_t refused_run(struct cohort *c, struct qstate *q, uint32_t r0, uint32_t limit, sim_time_t now)
{
	verdicts_fresh(c, q);
	uint64_t m = (q->n_odd ? ODD_BIT : 0) | (q->cls_used & ~(q->cls_known & q->cls_refused));
	uint64_t end = limit == UINT32_MAX ? UINT64_MAX : (uint64_t)r0 + limit;
	/* Every entry between r0 and pos has a class outside m, and m only shrinks. */
	for (uint32_t from = q->cursor, pos = r0;;) {
		uint32_t at = 0;
		uint32_t x = first_of_classes_after(c, from, pos, m, end, &at);
		if (x == NONE_U32)
			return limit;
		struct entry *e = ent(c, x);
		if (e->cls_slot == CLS_NONE)
			return at - r0;
		int rc = class_inadmissible(c, q, e->cls_slot, &e->wl, now);
		if (rc < 0)
			return rc;
		if (!rc)
			return at - r0;
		m &= ~(UINT64_C(1) << e->cls_slot);
		from = x;
		pos = at;
	}
}

/* E26. Every head of this cycle is not admissible, and the heads came from
 * collect_heads (c->active: every queue with a head, its cursor at the head).
 * While nothing is admitted the tree does not change, so the cycles that follow
 * set one head of each queue aside after another, each answered by its class's
 * verdict, until a cycle meets a head that may be admitted: the first such
 * cycle is the least distance, over the queues, from the head to the first entry
 * that may be admitted. Every cycle before it is skipped: the entries those
 * cycles would set aside are set aside at once (a StrictFIFO queue's head stays,
 * as it would). A job preempted at this instant may not preempt now, so its
 * verdict is its own: the skip ends before it, and the cycle that meets it asks
 * it. Not under the head bound or the naive oracle, nor when a queue has entries
 * set aside after its head (the positions would not count cycles). 1 if cycles
 * were skipped, 0 if not (the cycle runs as before), or -SIM_ENOMEM. */
static int find_refused_run_and_park(struct cohort *c, sim_time_t now)
{
	uint32_t runs = UINT32_MAX; /* cycles from this one whose heads are all not admissible */
	for (size_t k = 0; c->requeued_at == now && k < c->n_requeued; k++) {
		const struct entry *e = ent(c, c->requeued[k]);
		struct qstate *q = &c->qs[e->tq];
		if (!e->pending || e->evicted_at != now || q->strict_fifo || is_set_aside(c, q, e))
			continue; /* not a head to come (a queue with one has its cursor at its head) */
		uint32_t d = treap_index(c, e->self) - cursor_pos(c, q);
		if (d >= 1 && d < runs) /* 0: this cycle's head, answered already */
			runs = d;
		if (runs < 2)
			return 0; /* the next cycle asks it: nothing to skip */
	}
	for (size_t k = 0; k < c->n_active; k++) {
		struct qstate *q = &c->qs[c->active[k]];
		if (q->strict_fifo)
			continue; /* its head stays, not admissible, in each of those cycles */
		uint32_t r0 = cursor_pos(c, q);
		if (q->n_unparked != q->n - r0)
			return 0;
		int64_t d = refused_run(c, q, r0, runs, now);
		if (d < 0)
			return (int)d;
		if (d < runs)
			runs = (uint32_t)d;
		if (runs < 2)
			return 0; /* the next cycle may admit: the other queues need not be asked */
	}
	if (runs == UINT32_MAX) /* none may be admitted (E25's case); runs < 2 returned above */
		return 0;
	for (size_t k = 0; k < c->n_active; k++) {
		struct qstate *q = &c->qs[c->active[k]];
		if (!q->strict_fifo)
			park_run(c, q, cursor_pos(c, q), runs);
	}
	cohort_test_skips++;
	return 1;
}

/* find_refused_run_and_park when the back-off allows a try (struct cohort,
 * skip_wait): the same return values. */
static int skip_refused_cycles(struct cohort *c, sim_time_t now)
{
	if (c->naive_pending || c->max_heads_per_queue)
		return 0;
	if (c->skip_wait) {
		c->skip_wait--;
		return 0;
	}
	int rc = find_refused_run_and_park(c, now);
	if (rc == 0) {
		c->skip_backoff = c->skip_backoff < 32 ? 2 * c->skip_backoff + 1 : 63;
		c->skip_wait = c->skip_backoff;
	} else if (rc > 0) {
		c->skip_backoff = 0;
	}
	return rc;
}

/* Applies one cycle's outcome. Returns 1 if it changed anything (admitted,
 * preempted or parked), 0 if quiescent, or -SIM_E*. */
static int apply_decision(struct cohort *c, sim_time_t now, int *preempted)
{
	int changed = 0;
	for (size_t i = 0; i < c->dec.admitted.n; i++) {
		mark_running(c, &c->dec.admitted.v[i], now);
		changed = 1;
	}
	for (size_t i = 0; i < c->dec.preempting.n && c->n_preemptors < c->n_queues; i++)
		c->preemptors[c->n_preemptors++] = c->dec.preempting.v[i].wl;
	for (size_t i = 0; i < c->dec.victims.n; i++) {
		const struct kq_victim *v = &c->dec.victims.v[i];
		struct entry *by = (struct entry *)v->by;
		int rc = propose_victim(c, (struct entry *)v->wl, by->job, v->reason);
		if (rc)
			return rc;
		note_preemption(c, &c->qs[sim_view_job(c->view, by->job)->queue], now);
		*preempted = 1;
		changed = 1;
	}
	for (size_t i = 0; i < c->dec.waiting.n; i++) {
		const struct kq_waiting *w = &c->dec.waiting.v[i];
		if (w->why != KQ_W_EXCEEDS_MAX_QUOTA && w->why != KQ_W_NO_QUOTA && w->why != KQ_W_NO_CANDIDATES &&
		    w->why != KQ_W_NO_NODES)
			continue;
		changed |= set_aside(c, (struct entry *)w->wl);
	}
	return changed;
}

/* Keys the n pending entries of q again (ents: in the queue's order) and restores
 * the order. When the new keys keep that order (a score that moved for every job
 * of the queue alike, the common case), the treap is still valid as it stands;
 * otherwise every entry leaves and re-enters, set-aside marks kept. */
static void resort_queue(struct cohort *c, struct qstate *q, const uint32_t *ents, size_t n)
{
	int sorted = 1;
	own_marks_from_run(c, q); /* before the keys it compares change */
	for (size_t k = 0; k < n; k++) {
		entry_rekey(c, ents[k]);
		if (k && before(c, ents[k], ents[k - 1]))
			sorted = 0;
	}
	if (sorted) /* same order: the cursor still has only set-aside entries before it */
		return;
	uint8_t *parked = malloc(n ? n : 1);
	if (!parked) {
		c->oom = 1;
		return;
	}
	for (size_t k = 0; k < n; k++) {
		parked[k] = (uint8_t)is_set_aside(c, q, ent(c, ents[k]));
		pending_remove(c, q, ents[k]);
	}
	for (size_t k = 0; k < n; k++) {
		ent(c, ents[k])->parked_in = parked[k] ? q->epoch : 0;
		pending_add(c, q, ents[k]); /* cannot fail: the treap allocates nothing */
	}
	free(parked);
	q->cursor = CURSOR_FIRST;
}

/* The order policy's keys moved (sim_view_order_changed): every pending entry of a
 * queue whose keys may have changed is keyed again and its queue re-sorted,
 * set-aside marks kept. O(queues + pending of those queues x log). */
static void rekey_pending(struct cohort *c, const struct sim_view *v)
{
	c->order_gen = sim_view_order_gen(v);
	uint32_t *tmp = NULL;
	size_t cap = 0;
	for (size_t qi = 0; qi < c->n_queues; qi++) {
		struct qstate *q = &c->qs[qi];
		uint64_t g = sim_view_order_gen_queue(v, (int32_t)qi);
		if (g == q->order_gen)
			continue;
		q->order_gen = g;
		if (!q->n || c->naive_pending) {
			for (size_t k = 0; c->naive_pending && k < q->n; k++)
				entry_rekey(c, q->naive[k]);
			continue;
		}
		if (cap < q->n) {
			uint32_t *nt = realloc(tmp, q->n * sizeof *nt);
			if (!nt) {
				c->oom = 1;
				break;
			}
			tmp = nt;
			cap = q->n;
		}
		size_t n = 0;
		for (uint32_t x = leftmost(c, q->root); x != CURSOR_END; x = next_after(c, x))
			tmp[n++] = x;
		resort_queue(c, q, tmp, n);
	}
	free(tmp);
}

static int co_pick(struct sim_policy *pol, const struct sim_view *v, struct sim_placement_buf *out)
{
	struct cohort *c = pol->priv;
	configure(c, v);
	if (c->oom)
		return -SIM_ENOMEM;
	c->buf = out;
	c->view = v;
	sim_time_t now = sim_view_now(v);
	int rc = 0, preempted = 0;
	if (c->order && sim_view_order_gen(v) != c->order_gen)
		rekey_pending(c, v);
	uint64_t fg = sim_cluster_free_gen(sim_view_cluster(v), -1);
	if (fg != c->free_gen) { /* nodes freed or came back: first-fit heads may have room now */
		c->free_gen = fg;
		if (c->fb == FB_FIRST_FIT)
			unpark_all(c);
	}
	if (c->shrink_check && (rc = evict_overdrawn(c)))
		return rc;
	apply_preempt_caps(c, now);
	if (c->max_heads_per_queue) /* the only reader of the count */
		for (size_t qi = 0; qi < c->n_queues; qi++)
			c->qs[qi].parked_this_pass = 0;
	place_awaiting(c, now);
	c->active_valid = 0;
	c->verdict_gen++; /* a new time or tree: the classes' verdicts are asked again */
	int try_drain = 1; /* E25 once a run of cycles that change nothing */
	for (int first = 1;; first = 0) {
		size_t n = first ? take_preemptors(c) : 0;
		int collected = !n;
		if (!n)
			n = collect_heads(c, now);
		if (!n)
			break;
		if ((rc = all_inadmissible(c, n, now)) < 0)
			break;
		if (rc) {
			if (collected && try_drain) {
				try_drain = 0; /* until a cycle runs, the answer stays */
				if ((rc = drain_inadmissible(c, now)) != 0)
					break;
			}
			if (collected && (rc = skip_refused_cycles(c, now)) != 0) {
				if (rc < 0)
					break;
				continue;
			}
			rc = set_aside_heads(c, n);
			if (rc <= 0)
				break;
			continue;
		}
		try_drain = 1;
		if ((rc = kq_cycle(c->kq, c->heads, n, now, place_cb, c, &c->dec)))
			break;
		c->verdict_gen++; /* the cycle may have changed the tree */
		rc = apply_decision(c, now, &preempted);
		if (rc <= 0 || preempted)
			break;
		if (c->order && sim_view_order_gen(v) != c->order_gen)
			rekey_pending(c, v); /* an admission moved the order policy's keys */
	}
	if (c->oom)
		return -SIM_ENOMEM;
	return rc < 0 ? rc : 0;
}

static int wl_allows(const struct kq_wl *wl, int f)
{
	for (int k = 0; k < wl->n_allow; k++)
		if (wl->allow[k] == f)
			return 1;
	return !wl->n_allow;
}

/* Could flavor f of group grp ever hold the group's part of the request: an entry
 * for each requested resource and the request within potentialAvailable? */
static int group_flavor_holds(const struct cohort *c, const struct kq_wl *wl, const struct kq_group *grp,
			      int f)
{
	const struct kq_node *q = &c->kq->nodes[wl->queue];
	const sim_qty_t *rq = request_on(wl, f); /* a first-fit option's own count */
	for (int k = 0; k < grp->n_res; k++) {
		int r = grp->res[k], fr = kq_fr(c->kq, f, r);
		if (rq[r] > 0 && (!q->has_quota[fr] || rq[r] > kq_potential(c->kq, wl->queue, fr)))
			return 0;
	}
	return 1;
}

/* Submit-time check: reject a job its queue can never hold. Strict and fungible:
 * some allowed flavor of each resource group must hold it. First fit checks every
 * option, as SageMaker does: each option's flavor must be in the groups the
 * request needs and hold it within the queue's potential quota; any shortfall
 * rejects the job. */
/* May a quota change at or after `now` still raise the potential quota of queue
 * node q? Then a job above it is kept pending (Kueue keeps such a workload pending
 * and it is looked at again when quotas change: co_on_event gives back every head
 * set aside); it ends unfinished if the quota never lets it fit. Without a later
 * change in its tree it can never fit and is rejected at submit. */
static int quota_may_rise(const struct cohort *c, int q, sim_time_t now)
{
	sim_time_t last = c->last_quota_change ? c->last_quota_change[c->kq->nodes[q].root] : SIM_TIME_NONE;
	return last != SIM_TIME_NONE && last >= now;
}

static enum sim_admit co_admit(struct sim_policy *pol, const struct sim_job *job, const struct sim_view *v)
{
	struct cohort *c = pol->priv;
	configure(c, v);
	resolve_fallback(c, v);
	struct kq_wl wl = { .queue = c->qs[job->queue].node };
	fill_request(c, v, job, &wl);
	const struct kq_node *q = &c->kq->nodes[wl.queue];
	int every = wl.first_fit && wl.n_allow;
	for (int g = 0; g < q->cfg.n_groups; g++) {
		const struct kq_group *grp = &q->cfg.groups[g];
		int needed = 0, holding = 0;
		for (int k = 0; k < grp->n_res; k++)
			needed |= wl.req[grp->res[k]] > 0;
		if (!needed)
			continue;
		for (int i = 0; i < grp->n_flavors; i++) {
			int f = grp->flavors[i];
			if (wl_allows(&wl, f) && group_flavor_holds(c, &wl, grp, f))
				holding++;
		}
		if (!holding || (every && holding < wl.n_allow))
			return quota_may_rise(c, wl.queue, sim_view_now(v)) ? SIM_ADMIT : SIM_REJECT;
	}
	return SIM_ADMIT;
}

/* What a node has in its parent's pool and does not use: its quota above the local
 * (guaranteed) part, less its usage there. A node that may lend nothing (lending
 * limit 0) has none. GPUs. */
static double unused_lendable(const struct kq_node *n, int fr)
{
	double stored = (double)(n->subtree[fr] - n->local[fr]);
	double used = (double)(n->usage[fr] - n->local[fr]);
	double u = stored - (used > 0 ? used : 0);
	return u > 0 ? u / SIM_MILLI : 0;
}

/* Over a cohort's children, on one fr: what they borrow above their quota and
 * their unused lendable quota, GPUs (summed in child order). */
static void children_sums(const struct kq_sched *kq, const struct kq_node *p, int fr, double *borrowed,
			  double *unused)
{
	double b = 0, u = 0;
	for (size_t k = 0; k < p->n_children; k++) {
		const struct kq_node *s = &kq->nodes[p->children[k]];
		double over = (double)(s->usage[fr] - s->subtree[fr]) / SIM_MILLI;
		if (over > 0)
			b += over;
		u += unused_lendable(s, fr);
	}
	*borrowed = b;
	*unused = u;
}

/* children_sums per (cohort, fr), each computed once per sample: every queue of a
 * cohort asks for the same sums, and asking each time made a sample O(queues^2). */
struct sibling_sums {
	uint64_t epoch;     /* the sample being taken; a slot is valid when its stamp equals it */
	size_t n_slots;     /* n_nodes * n_fr when allocated */
	uint64_t *stamp;
	double *borrowed, *unused;
};

static void sibling_sums_free(struct sibling_sums *ss)
{
	if (!ss)
		return;
	free(ss->stamp);
	free(ss->borrowed);
	free(ss->unused);
	free(ss);
}

/* Scratch for this sample (grown when the tree grew); NULL on no memory, when the
 * sums are computed each time instead (same values, slower). */
static struct sibling_sums *sibling_sums_begin(struct cohort *c)
{
	size_t need = c->kq->n_nodes * (size_t)c->kq->n_fr;
	struct sibling_sums *ss = c->sums;
	if (!ss && !(ss = c->sums = calloc(1, sizeof *ss)))
		return NULL;
	if (ss->n_slots < need) {
		free(ss->stamp);
		free(ss->borrowed);
		free(ss->unused);
		ss->stamp = calloc(need, sizeof *ss->stamp);
		ss->borrowed = malloc(need * sizeof *ss->borrowed);
		ss->unused = malloc(need * sizeof *ss->unused);
		ss->epoch = 0;
		ss->n_slots = ss->stamp && ss->borrowed && ss->unused ? need : 0;
		if (!ss->n_slots)
			return NULL;
	}
	ss->epoch++;
	return ss;
}

static void cached_children_sums(const struct kq_sched *kq, struct sibling_sums *ss, int32_t parent, int fr,
				 double *borrowed, double *unused)
{
	if (!ss) {
		children_sums(kq, &kq->nodes[parent], fr, borrowed, unused);
		return;
	}
	size_t i = (size_t)parent * (size_t)kq->n_fr + (size_t)fr;
	if (ss->stamp[i] != ss->epoch) {
		children_sums(kq, &kq->nodes[parent], fr, &ss->borrowed[i], &ss->unused[i]);
		ss->stamp[i] = ss->epoch;
	}
	*borrowed = ss->borrowed[i];
	*unused = ss->unused[i];
}

/* Lent by n on fr: its parent cohort's children borrow B above their quota; it is
 * attributed to the children with unused lendable quota in proportion to it (Kueue
 * keeps no per-lender record). GPUs. ss: this sample's sums, or NULL. */
static double lent_share(const struct kq_sched *kq, struct sibling_sums *ss, const struct kq_node *n, int fr)
{
	double mine = unused_lendable(n, fr);
	if (mine <= 0)
		return 0;
	double b, unused;
	cached_children_sums(kq, ss, n->parent, fr, &b, &unused);
	return unused > 0 ? mine * (b < unused ? b / unused : 1.0) : 0;
}

/* Per trace queue: usage, nominal, borrowed and lent GPUs (lent: lent_share). */
static void co_queue_stats(struct sim_policy *pol, const struct sim_view *v, struct sim_queue_stats *out)
{
	(void)v;
	struct cohort *c = pol->priv;
	const struct kq_sched *kq = c->kq;
	struct sibling_sums *ss = sibling_sums_begin(c);
	for (size_t qi = 0; qi < c->n_queues; qi++) {
		const struct kq_node *n = &kq->nodes[c->qs[qi].node];
		double u = 0, nom = 0, bor = 0, lent = 0;
		for (int f = 0; f < kq->n_flavors; f++) {
			int fr = kq_fr(kq, f, SIM_RES_GPU);
			double uf = (double)n->usage[fr] / SIM_MILLI, nf = (double)n->nominal[fr] / SIM_MILLI;
			u += uf;
			nom += nf;
			if (uf > nf)
				bor += uf - nf;
			if (n->parent >= 0)
				lent += lent_share(kq, ss, n, fr);
		}
		out->usage[qi] = u;
		out->nominal[qi] = nom;
		out->borrowed[qi] = bor;
		out->lent[qi] = lent;
	}
}

/* ---- lifecycle ---- */

static void co_fini(struct sim_policy *pol)
{
	struct cohort *c = pol->priv;
	if (!c)
		return;
	for (size_t i = 0; i < c->n_queues; i++) {
		free(c->qs[i].naive);
		free(c->qs[i].recent);
	}
	free(c->qs);
	kq_destroy(c->kq);
	for (size_t i = 0; i < c->n_chunks; i++) {
		free(c->chunks[i]);
		free(c->nodes[i]);
	}
	free(c->chunks);
	free(c->nodes);
	free(c->job_entry);
	free(c->free_list);
	free(c->changes);
	free(c->last_quota_change);
	free(c->heads);
	free(c->active);
	free(c->preemptors);
	free(c->has_pending);
	free(c->capped);
	free(c->awaiting);
	free(c->requeued);
	free(c->managed_res);
	free(c->explicit_pre);
	free(c->job_row);
	free(c->opt_rows);
	sibling_sums_free(c->sums);
	kq_decision_free(&c->dec);
	free(c);
	pol->priv = NULL;
}

/* "gpu=8,cpu=96" of a request vector, for messages. */
static void format_request(const struct sim_resources *res, const sim_qty_t *req, char *buf, size_t n)
{
	size_t o = 0;
	buf[0] = 0;
	for (int r = 0; r < res->n && o < n; r++) {
		char q[32];
		if (!req[r])
			continue;
		sim_qty_format(req[r], q, sizeof q);
		o += (size_t)snprintf(buf + o, n - o, "%s%s=%s", o ? "," : "", res->names[r], q);
	}
}

static const char *flavor_name(const struct sim_cluster *cl, int32_t f)
{
	return f == SIM_FLAVOR_ANY ? "*" : sim_cluster_flavor(cl, f)->name;
}

/* Under fungible kq admits one request on whichever option's flavor it picks, so
 * every option of a job must have the same request vector. Under first_fit each
 * option may state its own quantities (SageMaker's per-option instance counts), but
 * every option must ask for the same managed resources (a resource group is assigned
 * before the option is known). One located error for a job that breaks the rule
 * ("FILE:LINE: column prefs: ..."). */
static int check_shared_requests(const struct cohort *c, const struct sim_view *v, const char *quota_name,
				 const char *fb_name, struct sim_diag *diag)
{
	const struct sim_trace *t = sim_view_trace(v);
	const struct sim_cluster *cl = sim_view_cluster(v);
	const struct sim_resources *res = sim_cluster_resources(cl);
	int rc = 0;
	if (c->fb == FB_STRICT)
		return 0;
	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct sim_job *j = &t->jobs[i];
		const struct sim_job_option *o0 = sim_job_opt(t, j, 0);
		for (int k = 1; k < j->n_opts; k++) {
			const struct sim_job_option *ok = sim_job_opt(t, j, k);
			int same;
			if (c->fb == FB_FIRST_FIT) {
				same = 1;
				for (int r = 0; r < c->kq->n_res; r++)
					same &= !c->managed_res[r] || (o0->req[r] > 0) == (ok->req[r] > 0);
			} else {
				same = memcmp(o0->req, ok->req, sizeof o0->req) == 0;
			}
			if (same)
				continue;
			char where[512], a[256], b[256];
			format_request(res, o0->req, a, sizeof a);
			format_request(res, ok->req, b, sizeof b);
			snprintf(where, sizeof where, "%s:%u: column prefs", t->path ? t->path : "trace",
				 (unsigned)j->line);
			rc = sim_diag_add(diag, where,
					  "expected %s under quota policy %s with fallback %s, found %s on "
					  "option 1 (%s) and %s on option %d (%s)",
					  c->fb == FB_FIRST_FIT ? "every option to request the same resources"
								: "one request shared by every option",
					  quota_name, fb_name, a, flavor_name(cl, o0->flavor_id), b, k + 1,
					  flavor_name(cl, ok->flavor_id));
			break;
		}
	}
	return rc;
}

/* The latest quota change of each tree, so that a submit can tell whether its
 * queue's potential quota may still rise. */
static int index_quota_changes(struct cohort *c)
{
	size_t n = c->kq->n_nodes ? c->kq->n_nodes : 1;
	c->last_quota_change = malloc(n * sizeof *c->last_quota_change);
	if (!c->last_quota_change)
		return -SIM_ENOMEM;
	for (size_t i = 0; i < n; i++)
		c->last_quota_change[i] = SIM_TIME_NONE;
	for (size_t i = 0; i < c->n_changes; i++) {
		const struct timed_change *ch = &c->changes[i];
		if (ch->kind != 0)
			continue;
		sim_time_t *last = &c->last_quota_change[c->kq->nodes[ch->node].root];
		if (ch->t > *last)
			*last = ch->t;
	}
	return 0;
}

/* The per-option request rows (cohort.job_row): only jobs whose options differ in a
 * managed resource get rows; none at all when no job does. */
static int build_option_rows(struct cohort *c, const struct sim_trace *t)
{
	size_t n_rows = 0;
	for (int pass = 0; pass < 2; pass++) {
		size_t row = 0;
		for (size_t i = 0; i < t->n_jobs; i++) {
			const struct sim_job *j = &t->jobs[i];
			int differ = 0;
			for (int k = 1; k < j->n_opts && !differ; k++)
				for (int r = 0; r < c->kq->n_res; r++)
					differ |= c->managed_res[r] &&
						  sim_job_opt(t, j, 0)->req[r] != sim_job_opt(t, j, k)->req[r];
			if (pass == 1)
				c->job_row[i] = differ ? (uint32_t)row : NONE_U32;
			if (!differ)
				continue;
			for (int k = 0; pass == 1 && k < j->n_opts; k++)
				for (int r = 0; r < c->kq->n_res; r++)
					c->opt_rows[(row + (size_t)k) * SIM_MAX_RES + (size_t)r] =
						c->managed_res[r] ? sim_job_opt(t, j, k)->req[r] : 0;
			row += j->n_opts;
		}
		if (pass == 0) {
			if (!row)
				return 0;
			if (row >= NONE_U32)
				return -SIM_ERANGE;
			n_rows = row;
			c->job_row = malloc(t->n_jobs * sizeof *c->job_row);
			c->opt_rows = calloc(n_rows * SIM_MAX_RES, sizeof *c->opt_rows);
			if (!c->job_row || !c->opt_rows)
				return -SIM_ENOMEM;
		}
	}
	return 0;
}

int cohort_test_naive_pending;
unsigned long cohort_test_drains, cohort_test_skips;

static int co_init_common(struct sim_policy *pol, const struct sim_policy_env *env, const cJSON *params,
			  struct sim_diag *diag, int hard)
{
	static const char *const keys[] = { "cohorts", "queues", "queues_csv", "unlisted_queues", "quota_events",
					    "priority_events", "max_heads_per_queue", NULL };
	if (sim_policy_params_check_keys(env, params, keys, diag))
		return -SIM_EPARSE;
	struct cohort *c = calloc(1, sizeof *c);
	if (!c)
		return -SIM_ENOMEM;
	pol->priv = c;
	c->hard = hard;
	const struct sim_trace *t = sim_view_trace(env->view);
	struct cohort_setup setup = { .file = env->file, .json_path = env->json_path, .params = params,
				      .trace = t, .cluster = sim_view_cluster(env->view), .hard = hard };
	int rc = cohort_setup_read(&setup, diag);
	if (rc)
		return rc;
	c->kq = setup.kq;
	c->n_queues = t->n_queues;
	c->qs = calloc(t->n_queues ? t->n_queues : 1, sizeof *c->qs);
	c->job_entry = malloc((t->n_jobs ? t->n_jobs : 1) * sizeof *c->job_entry);
	c->heads = malloc((t->n_queues ? t->n_queues : 1) * sizeof *c->heads);
	c->active = malloc((t->n_queues ? t->n_queues : 1) * sizeof *c->active);
	c->preemptors = malloc((t->n_queues ? t->n_queues : 1) * sizeof *c->preemptors);
	c->has_pending = calloc(t->n_queues / 64 + 1, sizeof *c->has_pending);
	c->capped = malloc((t->n_queues ? t->n_queues : 1) * sizeof *c->capped);
	c->managed_res = setup.managed_res;
	c->explicit_pre = setup.explicit_pre;
	setup.managed_res = NULL;
	setup.explicit_pre = NULL;
	setup.kq = NULL;
	if (!c->qs || !c->job_entry || !c->heads || !c->active || !c->preemptors || !c->has_pending ||
	    !c->capped) {
		cohort_setup_free(&setup);
		return -SIM_ENOMEM;
	}
	memset(c->job_entry, 0xff, (t->n_jobs ? t->n_jobs : 1) * sizeof *c->job_entry);
	for (size_t q = 0; q < t->n_queues; q++) {
		c->qs[q].node = setup.queue_node[q];
		c->qs[q].root = NONE_U32;
		c->qs[q].epoch = 1;
		c->qs[q].cursor = CURSOR_FIRST;
		c->qs[q].mut = 1; /* pos_mut 0: no position known */
		c->qs[q].strict_fifo = setup.knobs[q].strict_fifo;
		c->qs[q].retry_limit = setup.knobs[q].retry_limit;
		c->qs[q].max_preempt_per_hour = setup.knobs[q].max_preempt_per_hour;
		if (c->qs[q].max_preempt_per_hour >= 0)
			c->capped[c->n_capped++] = (uint32_t)q;
	}
	c->view0 = env->view;
	struct sim_policy *op = (struct sim_policy *)sim_view_policy(env->view, SIM_FAM_ORDER);
	if (op && op->ops && op->ops->order_key && (op->ops->provides & SIM_CAP_ORDER_KEY))
		c->order = op; /* its state is read through order_key only */
	c->order_gen = sim_view_order_gen(env->view);
	c->max_heads_per_queue = setup.max_heads_per_queue;
	c->naive_pending = cohort_test_naive_pending;
	c->requeued_at = SIM_TIME_NONE;
	c->changes = setup.changes;
	c->n_changes = setup.n_changes;
	setup.changes = NULL;
	cohort_setup_free(&setup);
	for (size_t i = 0; i < c->n_changes; i++)
		if ((rc = sim_view_post_event(env->view, c->changes[i].t, SIM_FAM_QUOTA, (uint32_t)i)))
			return rc;
	if ((rc = index_quota_changes(c)))
		return rc;
	c->kq->room = room_cb;
	c->kq->room_arg = c;
	c->free_gen = sim_cluster_free_gen(sim_view_cluster(env->view), -1);
	if ((rc = build_option_rows(c, t)))
		return rc;
	resolve_fallback(c, env->view);
	if (c->fb_resolved && c->fb != FB_STRICT)
		return check_shared_requests(c, env->view, hard ? "hard" : "cohort",
					     sim_view_policy(env->view, SIM_FAM_FALLBACK)->ops->name, diag);
	return 0;
}

static int co_init(struct sim_policy *pol, const struct sim_policy_env *env, const cJSON *params,
		   struct sim_diag *diag)
{
	return co_init_common(pol, env, params, diag, 0);
}

static int hard_init(struct sim_policy *pol, const struct sim_policy_env *env, const cJSON *params,
		     struct sim_diag *diag)
{
	return co_init_common(pol, env, params, diag, 1);
}

/* Kueue's cycle orders each queue by the order policy's key and chooses flavors
 * itself, as the fallback policy's mode says. */
static const struct sim_require co_requires[] = {
	{ SIM_FAM_ORDER, SIM_CAP_ORDER_KEY, 0, "the quota cycle orders each queue by the order policy's key" },
	{ SIM_FAM_FALLBACK, SIM_CAP_FB_IN_CYCLE, 1, "the quota cycle chooses flavors itself" },
	{ SIM_FAM_COUNT_, 0, 0, NULL },
};

const struct sim_policy_ops cohort_policy_ops = {
	.name = "cohort",
	.family = SIM_FAM_QUOTA,
	.provides = SIM_CAP_OWN_PASS | SIM_CAP_PREEMPT_CYCLE,
	.requires = co_requires,
	.init = co_init,
	.fini = co_fini,
	.on_submit = co_on_submit,
	.on_stop = co_on_stop,
	.on_event = co_on_event,
	.admit = co_admit,
	.pick = co_pick,
	.queue_stats = co_queue_stats,
};

const struct sim_policy_ops hard_quota_policy_ops = {
	.name = "hard",
	.family = SIM_FAM_QUOTA,
	.provides = SIM_CAP_OWN_PASS | SIM_CAP_PREEMPT_CYCLE,
	.requires = co_requires,
	.init = hard_init,
	.fini = co_fini,
	.on_submit = co_on_submit,
	.on_stop = co_on_stop,
	.on_event = co_on_event,
	.admit = co_admit,
	.pick = co_pick,
	.queue_stats = co_queue_stats,
};
