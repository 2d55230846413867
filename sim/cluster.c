/* sim/cluster.c: flavors, nodes and the index of free capacity (see cluster.h).
 *
 * Node state lives in flat per-flavor arrays (no per-node allocation): free[] holds
 * every node's free vector (nres entries a node, milli-units), and the index arrays
 * below are indexed by node. Per flavor there are two indexes over the free GPU
 * milli-units of each node:
 *
 *  - A max segment tree over node index of free GPU milli-units (leaves padded to a
 *    power of two with -1), for first_fit's leftmost search. Its leaves, one int32
 *    a node in node order, are also where the buckets below read a node's GPUs;
 *    the inner maxima are kept only under first_fit (the other strategies, and
 *    sim_cluster_fits, find what they need in the buckets).
 *  - Buckets: bucket g (0 <= g <= node_cap[gpu]) holds the nodes with exactly g free
 *    GPU milli-units. A two-level bitmap marks the non-empty buckets, so the
 *    nearest non-empty bucket above or below g is found with ctz/clz over
 *    (buckets / 64) words at level 0 reached through (buckets / 4096) words at
 *    level 1. Within a bucket, nodes are visited in increasing index: nodes are
 *    grouped 32 by 32 in index order, each bucket keeps a hierarchical bitset of
 *    the groups holding one of its nodes, and a group is scanned (32 leaves at
 *    most, 128 contiguous bytes) for the bucket's value.
 *
 * For the non-GPU resources (cpu, memory, custom) each 32-node group keeps, per GPU
 * class (class floor(free GPU * 15 / cap): 16 classes, the top one "all GPUs free"),
 * the largest free amount of each resource over its nodes of that class; super groups
 * of 64 groups keep the maxima of their groups. A request with a non-GPU part skips
 * every super group and group whose maxima cannot hold it: in a bucket's walk (the
 * bucket's class), in first_fit's descent (the classes at or above the request's, at
 * the subtrees that are one super group or one group) and in the whole-node search
 * (the top class, against the node caps). Without them a placement whose cpu is short
 * walked every node of every bucket with enough GPUs: on 1250 8-GPU nodes, a cpu-bound
 * 200k-job trace under easy_backfill went from 9.5 s to 1.4 s in the loop. Classes
 * matter: nodes whose GPUs are all taken keep their cpu, and plain per-group maxima
 * let them hide the shortage. The maxima move only when a node's class or non-GPU
 * free amounts do: a rise is a compare, a fall from a maximum rescans the group's
 * class (32 leaves) and, if the group's maximum falls, the super group (64 groups).
 * GPU-only resource sets never touch them; GPU-only requests skip the checks. Memory:
 * 16 x 8 bytes a group and non-GPU resource (4 bytes a node), 1/64 more for supers.
 *
 * Moving a node between buckets costs one group scan (to learn whether the group
 * still holds another node of the old bucket) and O(levels) word updates, with
 * levels = log64(nodes / 32) rounded up (1 up to 2048 nodes, 2 up to 131,072, 3 up
 * to 8.4 million); nothing is allocated after create. The segment tree update
 * costs O(log n), under first_fit only. Memory: per bucket, ceil(nodes / 2048)
 * words plus the levels above (one word a bucket up to 2048 nodes: 64 KB for
 * 8-GPU nodes, whose 8001 buckets count milli-GPUs; 3 MB for 100,000 such nodes).
 * Groups of 64 nodes halve that memory for 5% more time in the event loop of the
 * 10,000-GPU benchmark; groups of 16 double it for 4% less. (Until this version
 * each bucket was a linked list ordered through a treap: the same order, O(log n)
 * pointer chasing a move.)
 *
 * Tie-breaks are deterministic and depend only on node state: among equally good
 * nodes the lowest node index wins (best_fit and spread: the lowest-index node of
 * the chosen bucket; first_fit: by definition; whole nodes: the lowest-index fully
 * free nodes, taken in index order from the "all GPUs free" bucket).
 *
 * Capacity over time: every array is sized for the flavor's peak node count, and each
 * node has a state (online, draining, offline). Only online nodes are indexed: a
 * draining or offline node's leaf is -1 (as the padding leaves are), it is in no
 * bucket, counts in no class maximum and not in n_full, so every placement path and
 * sim_cluster_fits skip it without a test of their own, even for a request of zero.
 * Its free[] vector keeps the true free amounts (cap minus what runs there): that is
 * the capacity "held back" from placements, and what its jobs release adds to it
 * without touching the index; a draining node whose free vector is back to the caps
 * is offline. Coming back online re-indexes the node with that vector. The public
 * view (sim_cluster_node_free) shows zero free on a node that is not online.
 */
#include "cluster.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NIL (-1)
#define BUCKET_NONE SIZE_MAX
/* Limits that keep the index arrays and counters small: a node's GPU capacity
 * sizes the bucket arrays (1 + cap entries), node indexes are int32. */
#define NODE_CAP_GPU_MAX ((sim_qty_t)1 << 20) /* milli-units: 1048 GPUs a node */
#define FLAVOR_NODES_MAX ((uint32_t)1 << 30)
/* Levels of a bucket's group summary: 2^30 nodes are 2^25 groups, 5 levels. */
#define SUM_LEVELS_MAX 6

struct flavor {
	struct sim_flavor_spec spec; /* peak_nodes resolved (never 0 unless nodes is) */
	uint32_t n;           /* peak nodes: node indices 0..n-1, whatever their state */
	sim_qty_t cap_gpu;    /* spec.node_cap[SIM_RES_GPU], milli-units */
	sim_qty_t *free;      /* n * nres, milli-units; node i at free[i * nres] */
	size_t n_buckets;     /* cap_gpu + 1 */
	uint64_t *sum;        /* per bucket, sum_words words: its group summary */
	size_t sum_words;     /* words a bucket: every level */
	int sum_levels;       /* 1 .. SUM_LEVELS_MAX; the last level is one word */
	size_t sum_off[SUM_LEVELS_MAX];      /* first word of each level in a summary */
	size_t sum_words_at[SUM_LEVELS_MAX]; /* words of each level */
	uint64_t *bm0;        /* bit g set = bucket g non-empty */
	uint64_t *bm1;        /* bit w set = bm0[w] != 0 */
	size_t bm0_words, bm1_words;
	size_t seg_size;      /* leaves: power of two >= n (1 when n == 0) */
	int32_t *seg;         /* 2 * seg_size; seg[1] = max free GPU over all nodes */
	int seg_inner;        /* 1: seg[1 .. seg_size) are kept (first_fit), else stale */
	sim_qty_t *cmax;      /* n_groups * N_CLASSES * (nres - 1), see class_max */
	sim_qty_t *smax;      /* n_super * N_CLASSES * (nres - 1): the same over super groups */
	size_t n_super;       /* ceil(n_groups / 64) */
	uint8_t *cls_of;      /* [-1, n_buckets): the GPU class of a free GPU amount; [-1] = N_CLASSES,
			       * no class, so the leaf -1 of a node not online matches none */
	uint8_t *cls_mem;     /* what was allocated: cls_of - 1 */
	size_t n_groups;      /* ceil(n / 32) */
	uint32_t n_full;      /* online nodes with every resource free */
	uint8_t *state;       /* n: enum sim_node_state of each node */
	uint32_t n_online;    /* nodes in SIM_NODE_ONLINE */
	uint64_t free_gen;    /* rises when free capacity may have grown (sim_cluster_free_gen) */
	sim_qty_t gpu_busy;   /* milli-units allocated, on nodes of any state */
	sim_qty_t gpu_total;  /* online nodes' caps + draining nodes' busy GPUs */
};

struct sim_cluster {
	struct sim_resources res;
	size_t nres; /* res.n: the stride of free[] */
	enum sim_placement placement;
	struct flavor *flavors;
	size_t n_flavors;
	sim_qty_t gpu_busy, gpu_total; /* over all flavors */
	uint64_t free_gen;             /* the sum of the flavors' free_gen */
};

/* What sim_cluster_node_free shows for a node that is not online. */
static const sim_qty_t no_free[SIM_MAX_RES];

static const char *const placement_names[SIM_PLACE_COUNT_] = {
	[SIM_PLACE_BEST_FIT] = "best_fit",
	[SIM_PLACE_FIRST_FIT] = "first_fit",
	[SIM_PLACE_SPREAD] = "spread",
};

int sim_placement_from_name(const char *name)
{
	if (!name)
		return -1;
	for (int p = 0; p < SIM_PLACE_COUNT_; p++)
		if (strcmp(name, placement_names[p]) == 0)
			return p;
	return -1;
}

const char *sim_placement_name(enum sim_placement p)
{
	if ((int)p < 0 || p >= SIM_PLACE_COUNT_)
		return "?";
	return placement_names[p];
}

/* ---- two-level bitmap of non-empty buckets ---- */

static void bm_set(struct flavor *f, size_t b)
{
	size_t w = b >> 6;
	f->bm0[w] |= 1ULL << (b & 63);
	f->bm1[w >> 6] |= 1ULL << (w & 63);
}

static void bm_clear(struct flavor *f, size_t b)
{
	size_t w = b >> 6;
	f->bm0[w] &= ~(1ULL << (b & 63));
	if (!f->bm0[w])
		f->bm1[w >> 6] &= ~(1ULL << (w & 63));
}

/* Lowest non-empty bucket >= b, or BUCKET_NONE. */
static size_t bm_next_ge(const struct flavor *f, size_t b)
{
	if (b >= f->n_buckets)
		return BUCKET_NONE;
	size_t w = b >> 6;
	uint64_t m = f->bm0[w] & (~0ULL << (b & 63));
	if (m)
		return (w << 6) + (size_t)__builtin_ctzll(m);
	w++;
	if (w >= f->bm0_words)
		return BUCKET_NONE;
	size_t j = w >> 6;
	uint64_t m1 = f->bm1[j] & (~0ULL << (w & 63));
	while (!m1) {
		if (++j >= f->bm1_words)
			return BUCKET_NONE;
		m1 = f->bm1[j];
	}
	w = (j << 6) + (size_t)__builtin_ctzll(m1);
	return (w << 6) + (size_t)__builtin_ctzll(f->bm0[w]);
}

/* Highest non-empty bucket <= b, or BUCKET_NONE. */
static size_t bm_prev_le(const struct flavor *f, size_t b)
{
	if (b >= f->n_buckets)
		b = f->n_buckets - 1;
	size_t w = b >> 6;
	uint64_t m = f->bm0[w] & (~0ULL >> (63 - (b & 63)));
	if (m)
		return (w << 6) + 63 - (size_t)__builtin_clzll(m);
	if (w == 0)
		return BUCKET_NONE;
	w--;
	size_t j = w >> 6;
	uint64_t m1 = f->bm1[j] & (~0ULL >> (63 - (w & 63)));
	while (!m1) {
		if (j == 0)
			return BUCKET_NONE;
		m1 = f->bm1[--j];
	}
	w = (j << 6) + 63 - (size_t)__builtin_clzll(m1);
	return (w << 6) + 63 - (size_t)__builtin_clzll(f->bm0[w]);
}

/* ---- per-bucket summaries over node groups ----
 *
 * Node i is in group i / 32. Bucket b's summary has bit g set exactly when group g
 * holds a node with b free GPU milli-units; which nodes those are is found by
 * scanning the group's (at most 32) free GPU values in the segment tree leaves,
 * which are contiguous int32s. The summary is a hierarchical bitset: level 0 has
 * one bit a group, level l + 1 one bit a non-zero word of level l, up to a single
 * word, so the lowest group >= g is found with one ctz a level. */

#define GROUP_SHIFT 5
#define GROUP_NODES (1u << GROUP_SHIFT)
/* GPU classes of the per-group maxima: class floor(free_gpu * 15 / cap), so class 15 is
 * "all GPUs free" and, for 8-GPU nodes, whole GPU counts fall in distinct classes. */
#define N_CLASSES 16
/* Super groups of 64 groups (2048 nodes) keep the maxima of their groups, so a walk
 * skips 64 groups at once. */
#define SUPER_SHIFT 6
#define SUPER_NODES ((size_t)GROUP_NODES << SUPER_SHIFT)

static uint64_t *bucket_sum(const struct flavor *f, size_t b)
{
	return f->sum + b * f->sum_words;
}

/* Free GPU milli-units of node i (its segment tree leaf). */
static int32_t node_gpu(const struct flavor *f, uint32_t i)
{
	return f->seg[f->seg_size + i];
}

/* Lowest node in [from, end of from's group) with b free GPU milli-units, or NIL. */
static int32_t group_find(const struct flavor *f, uint32_t from, int32_t b)
{
	const int32_t *leaf = f->seg + f->seg_size;
	uint32_t end = (from | (GROUP_NODES - 1)) + 1;
	if (end > f->n)
		end = f->n;
	for (uint32_t i = from; i < end; i++)
		if (leaf[i] == b)
			return (int32_t)i;
	return NIL;
}

static void sum_set(const struct flavor *f, uint64_t *s, size_t g)
{
	for (int l = 0; l < f->sum_levels; l++) {
		uint64_t *w = &s[f->sum_off[l] + (g >> 6)];
		uint64_t was = *w;
		*w = was | 1ULL << (g & 63);
		if (was)
			return;
		g >>= 6;
	}
}

/* Clears group g; returns 1 when the bucket has no group left. */
static int sum_clear(const struct flavor *f, uint64_t *s, size_t g)
{
	for (int l = 0; l < f->sum_levels; l++) {
		uint64_t *w = &s[f->sum_off[l] + (g >> 6)];
		*w &= ~(1ULL << (g & 63));
		if (*w)
			return 0;
		g >>= 6;
	}
	return 1;
}

/* Lowest group >= g in the summary, or BUCKET_NONE. */
static size_t sum_next_ge(const struct flavor *f, const uint64_t *s, size_t g)
{
	int l = 0;
	for (;;) {
		if (l == f->sum_levels)
			return BUCKET_NONE;
		size_t w = g >> 6;
		if (w >= f->sum_words_at[l])
			return BUCKET_NONE;
		uint64_t m = s[f->sum_off[l] + w] & (~0ULL << (g & 63));
		if (m) {
			g = (w << 6) + (size_t)__builtin_ctzll(m);
			break;
		}
		g = w + 1; /* the next word of level l, as a bit of level l + 1 */
		l++;
	}
	while (l > 0) {
		l--;
		g = (g << 6) + (size_t)__builtin_ctzll(s[f->sum_off[l] + g]);
	}
	return g;
}

/* ---- buckets ---- */

/* Lowest node >= from in bucket b, or NIL. */
static int32_t bucket_next(const struct flavor *f, size_t b, uint32_t from)
{
	if (from >= f->n)
		return NIL;
	int32_t i = group_find(f, from, (int32_t)b);
	if (i != NIL)
		return i;
	size_t g = sum_next_ge(f, bucket_sum(f, b), (size_t)(from >> GROUP_SHIFT) + 1);
	if (g == BUCKET_NONE)
		return NIL;
	return group_find(f, (uint32_t)(g << GROUP_SHIFT), (int32_t)b); /* found: the summary is exact */
}

/* Node i now has b free GPU milli-units (its leaf already says so). */
static void bucket_enter(struct flavor *f, uint32_t i, size_t b)
{
	sum_set(f, bucket_sum(f, b), i >> GROUP_SHIFT);
	bm_set(f, b);
}

/* Node i left bucket b (its leaf no longer says b): clears the group's bit when no
 * other node of the group is in b, and the bucket's bit when it emptied. (inline: with
 * node_unindex as a second caller GCC stopped inlining it into node_reindex, and a
 * place/release loop ran 2 to 9% more instructions.) */
static inline void bucket_leave(struct flavor *f, uint32_t i, size_t b)
{
	uint32_t g = i >> GROUP_SHIFT;
	if (group_find(f, g << GROUP_SHIFT, (int32_t)b) != NIL)
		return;
	if (sum_clear(f, bucket_sum(f, b), g))
		bm_clear(f, b);
}

/* ---- segment tree ---- */

/* Sets leaf i and the maxima above it, stopping at the first one that does not
 * change (its ancestors do not either): usually a level or two, not log2(n). */
static void seg_set(struct flavor *f, uint32_t i, sim_qty_t gpu)
{
	size_t v = f->seg_size + i;
	f->seg[v] = (int32_t)gpu;
	if (!f->seg_inner)
		return;
	for (v >>= 1; v; v >>= 1) {
		int32_t a = f->seg[2 * v], b = f->seg[2 * v + 1];
		int32_t m = a > b ? a : b;
		if (f->seg[v] == m)
			break;
		f->seg[v] = m;
	}
}

/* ---- node predicates and updates ---- */

static sim_qty_t *node_free(const struct sim_cluster *c, const struct flavor *f, uint32_t i)
{
	return f->free + (size_t)i * c->nres;
}

/* ---- per-group, per-GPU-class maxima of the non-GPU resources ---- */

/* Maxima of unit u (a group in cmax, a super group of 64 groups in smax), class k:
 * entry r - 1 for resource r >= 1. Only used when nres > 1. */
static sim_qty_t *class_max(const struct sim_cluster *c, sim_qty_t *base, size_t u, size_t k)
{
	return base + (u * N_CLASSES + k) * (c->nres - 1);
}

/* Super group sg's class k maximum of resource r (>= 1), recomputed over its groups. */
static sim_qty_t super_max_scan(const struct sim_cluster *c, const struct flavor *f, size_t sg, size_t k,
				size_t r)
{
	size_t lo = sg << SUPER_SHIFT, end = lo + ((size_t)1 << SUPER_SHIFT);
	if (end > f->n_groups)
		end = f->n_groups;
	sim_qty_t m = 0;
	for (size_t g = lo; g < end; g++) {
		sim_qty_t v = class_max(c, f->cmax, g, k)[r - 1];
		if (v > m)
			m = v;
	}
	return m;
}

/* Group g's class k maximum of resource r went from old to new: the super group's follows. */
static void super_max_note(const struct sim_cluster *c, struct flavor *f, size_t g, size_t k, size_t r,
			   sim_qty_t old, sim_qty_t new_)
{
	size_t sg = g >> SUPER_SHIFT;
	sim_qty_t *m = &class_max(c, f->smax, sg, k)[r - 1];
	if (new_ > *m)
		*m = new_;
	else if (new_ < old && old == *m)
		*m = super_max_scan(c, f, sg, k, r); /* the maximum may have left */
}

/* Recomputes the maxima of classes k1 and k2 (may be equal) of group g from its nodes:
 * one pass over the group's (at most 32) leaves, nres - 1 reads a node of either; then
 * the super group's maxima that changed. (inline: as bucket_leave.) */
static inline void class_max_scan(const struct sim_cluster *c, struct flavor *f, size_t g, size_t k1,
				   size_t k2)
{
	size_t no = c->nres - 1;
	sim_qty_t *m1 = class_max(c, f->cmax, g, k1), *m2 = class_max(c, f->cmax, g, k2);
	sim_qty_t old1[SIM_MAX_RES], old2[SIM_MAX_RES];
	for (size_t r = 0; r < no; r++) {
		old1[r] = m1[r];
		old2[r] = m2[r];
		m1[r] = m2[r] = 0; /* free amounts are >= 0 */
	}
	uint32_t lo = (uint32_t)g << GROUP_SHIFT, end = lo + GROUP_NODES;
	if (end > f->n)
		end = f->n;
	const int32_t *leaf = f->seg + f->seg_size;
	for (uint32_t i = lo; i < end; i++) {
		size_t k = f->cls_of[leaf[i]]; /* N_CLASSES for a node not online (leaf -1) */
		if (k != k1 && k != k2)
			continue;
		sim_qty_t *m = k == k1 ? m1 : m2;
		const sim_qty_t *fr = f->free + (size_t)i * c->nres + 1;
		for (size_t r = 0; r < no; r++)
			if (fr[r] > m[r])
				m[r] = fr[r];
	}
	for (size_t r = 0; r < no; r++) {
		if (m1[r] != old1[r])
			super_max_note(c, f, g, k1, r + 1, old1[r], m1[r]);
		if (k2 != k1 && m2[r] != old2[r])
			super_max_note(c, f, g, k2, r + 1, old2[r], m2[r]);
	}
}

/* 1 unless some non-GPU resource of req exceeds every node of unit u (of base) whose
 * GPU class is in [k_lo, N_CLASSES). */
static int may_fit_from(const struct sim_cluster *c, sim_qty_t *base, size_t u, size_t k_lo,
			const sim_qty_t *req)
{
	for (size_t r = 1; r < c->nres; r++) {
		sim_qty_t best = 0;
		for (size_t k = k_lo; k < N_CLASSES; k++) {
			sim_qty_t v = class_max(c, base, u, k)[r - 1];
			if (v > best)
				best = v;
		}
		if (best < req[r])
			return 0;
	}
	return 1;
}

/* 1 unless some non-GPU resource of req exceeds every node of unit u (of base) in class k. */
static int fits_class(const struct sim_cluster *c, sim_qty_t *base, size_t u, size_t k,
		      const sim_qty_t *req)
{
	const sim_qty_t *m = class_max(c, base, u, k);
	for (size_t r = 1; r < c->nres; r++)
		if (m[r - 1] < req[r])
			return 0;
	return 1;
}

static int node_fits(const struct sim_cluster *c, const struct flavor *f, uint32_t i,
		     const sim_qty_t *req)
{
	const sim_qty_t *fr = node_free(c, f, i);
	for (size_t r = 0; r < c->nres; r++)
		if (fr[r] < req[r])
			return 0;
	return 1;
}

static int node_full(const struct sim_cluster *c, const struct flavor *f, uint32_t i)
{
	const sim_qty_t *fr = node_free(c, f, i);
	for (size_t r = 0; r < c->nres; r++)
		if (fr[r] != f->spec.node_cap[r])
			return 0;
	return 1;
}

/* Node i moved from GPU class k_old to k_new and its non-GPU free amounts from old[1..]
 * (NULL: unchanged) to their current values: rises only raise the class maxima, and
 * the group's old class is rescanned only when the node held one of its maxima and
 * left the class or dropped below it. */
static void class_max_move(const struct sim_cluster *c, struct flavor *f, uint32_t i, size_t k_old,
			   const sim_qty_t *old, size_t k_new)
{
	if (!old && k_old == k_new)
		return;
	const sim_qty_t *fr = node_free(c, f, i);
	size_t g = i >> GROUP_SHIFT;
	sim_qty_t *mo = class_max(c, f->cmax, g, k_old), *mn = class_max(c, f->cmax, g, k_new);
	int rescan = 0;
	for (size_t r = 1; r < c->nres; r++) {
		sim_qty_t was = old ? old[r] : fr[r];
		if ((k_old != k_new || fr[r] < was) && was > 0 && was == mo[r - 1])
			rescan = 1;
	}
	for (size_t r = 1; r < c->nres; r++) {
		sim_qty_t prev = mn[r - 1];
		if (fr[r] > prev) {
			mn[r - 1] = fr[r];
			super_max_note(c, f, g, k_new, r, prev, fr[r]);
		}
	}
	if (rescan)
		class_max_scan(c, f, g, k_old, k_old);
}

/* Re-indexes node i after its free vector changed (old_gpu and was_full: before;
 * old_other: the whole free vector before when a non-GPU amount changed, else NULL). */
static void node_reindex(const struct sim_cluster *c, struct flavor *f, uint32_t i,
			 sim_qty_t old_gpu, int was_full, const sim_qty_t *old_other)
{
	sim_qty_t g = node_free(c, f, i)[SIM_RES_GPU];
	if (g != old_gpu) {
		seg_set(f, i, g); /* first: the bucket scans read the leaves */
		bucket_leave(f, i, (size_t)old_gpu);
		bucket_enter(f, i, (size_t)g);
	}
	if (c->nres > 1)
		class_max_move(c, f, i, f->cls_of[old_gpu], old_other, f->cls_of[g]);
	int is_full = node_full(c, f, i);
	if (is_full && !was_full)
		f->n_full++;
	else if (!is_full && was_full)
		f->n_full--;
}

/* ---- node states ---- */

/* Node i (online, still indexed) leaves the index: its leaf becomes -1, it leaves its
 * bucket, and its group's maxima of its class are rescanned when it held one. */
static void node_unindex(const struct sim_cluster *c, struct flavor *f, uint32_t i)
{
	const sim_qty_t *fr = node_free(c, f, i);
	sim_qty_t g = fr[SIM_RES_GPU];
	if (node_full(c, f, i))
		f->n_full--;
	seg_set(f, i, NIL);
	bucket_leave(f, i, (size_t)g);
	if (c->nres == 1)
		return;
	size_t grp = i >> GROUP_SHIFT, k = f->cls_of[g];
	const sim_qty_t *m = class_max(c, f->cmax, grp, k);
	for (size_t r = 1; r < c->nres; r++) {
		if (fr[r] > 0 && fr[r] == m[r - 1]) {
			class_max_scan(c, f, grp, k, k);
			return;
		}
	}
}

/* Node i (not indexed) joins the index with its current free vector. */
static void node_index(const struct sim_cluster *c, struct flavor *f, uint32_t i)
{
	const sim_qty_t *fr = node_free(c, f, i);
	sim_qty_t g = fr[SIM_RES_GPU];
	seg_set(f, i, g); /* first: the bucket scans read the leaves */
	bucket_enter(f, i, (size_t)g);
	if (node_full(c, f, i))
		f->n_full++;
	if (c->nres == 1)
		return;
	size_t grp = i >> GROUP_SHIFT, k = f->cls_of[g];
	sim_qty_t *m = class_max(c, f->cmax, grp, k);
	for (size_t r = 1; r < c->nres; r++) {
		sim_qty_t prev = m[r - 1];
		if (fr[r] > prev) {
			m[r - 1] = fr[r];
			super_max_note(c, f, grp, k, r, prev, fr[r]);
		}
	}
}

/* Free capacity of the flavor may have grown: waiting requests are worth a new look. */
static void free_gen_bump(struct sim_cluster *c, struct flavor *f)
{
	f->free_gen++;
	c->free_gen++;
}

/* An online node stops taking placements: offline when nothing runs on it, else
 * draining. Its free GPUs leave the total (a draining node counts its busy ones). */
static void node_go_down(struct sim_cluster *c, struct flavor *f, uint32_t i)
{
	sim_qty_t g = node_free(c, f, i)[SIM_RES_GPU];
	int idle = node_full(c, f, i);
	node_unindex(c, f, i);
	f->state[i] = idle ? SIM_NODE_OFFLINE : SIM_NODE_DRAINING;
	f->n_online--;
	f->gpu_total -= g;
	c->gpu_total -= g;
}

/* A draining or offline node takes placements again with what it holds back (all of
 * it when offline): its free GPUs rejoin the total. */
static void node_come_up(struct sim_cluster *c, struct flavor *f, uint32_t i)
{
	sim_qty_t g = node_free(c, f, i)[SIM_RES_GPU];
	f->state[i] = SIM_NODE_ONLINE;
	node_index(c, f, i);
	f->n_online++;
	f->gpu_total += g;
	c->gpu_total += g;
}

/* Brings `need` nodes online: draining ones first, then offline ones, lowest index
 * first in each pass. The caller checked that enough are not online. */
static void flavor_grow(struct sim_cluster *c, struct flavor *f, uint32_t need)
{
	static const uint8_t order[2] = { SIM_NODE_DRAINING, SIM_NODE_OFFLINE };
	for (int pass = 0; pass < 2 && need > 0; pass++)
		for (uint32_t i = 0; i < f->n && need > 0; i++)
			if (f->state[i] == order[pass]) {
				node_come_up(c, f, i);
				need--;
			}
	free_gen_bump(c, f);
}

/* Takes `need` online nodes down: fully free ones first (offline at once), then busy
 * ones (draining, written to busy[] when it is not NULL), highest index first in each
 * pass. Returns how many started draining. The caller checked that enough are online. */
static size_t flavor_shrink(struct sim_cluster *c, struct flavor *f, uint32_t need, uint32_t *busy)
{
	size_t n_busy = 0;
	for (int pass = 0; pass < 2 && need > 0; pass++) {
		for (uint32_t i = f->n; i-- > 0 && need > 0;) {
			if (f->state[i] != SIM_NODE_ONLINE || (pass == 0 && !node_full(c, f, i)))
				continue;
			node_go_down(c, f, i);
			need--;
			if (f->state[i] == SIM_NODE_DRAINING) {
				if (busy)
					busy[n_busy] = i;
				n_busy++;
			}
		}
	}
	return n_busy;
}

/* ---- create / destroy ---- */

/* calloc that never asks for 0 bytes, so a 0-node flavor still gets valid pointers. */
static void *zalloc(size_t n, size_t size)
{
	return calloc(n ? n : 1, size);
}

static void flavor_fini(struct flavor *f)
{
	free(f->free);
	free(f->cmax);
	free(f->smax);
	free(f->cls_mem);
	free(f->sum);
	free(f->bm0);
	free(f->bm1);
	free(f->seg);
	free(f->state);
}

static int spec_ok(const struct sim_resources *res, const struct sim_flavor_spec *s)
{
	if (!memchr(s->name, '\0', SIM_NAME_MAX) || !s->name[0])
		return 0;
	if (s->nodes > FLAVOR_NODES_MAX || s->peak_nodes > FLAVOR_NODES_MAX)
		return 0;
	if (s->peak_nodes && s->peak_nodes < s->nodes)
		return 0;
	if (s->node_cap[SIM_RES_GPU] <= 0 || s->node_cap[SIM_RES_GPU] > NODE_CAP_GPU_MAX)
		return 0;
	for (int r = 1; r < res->n; r++)
		if (s->node_cap[r] < 0)
			return 0;
	if (!isfinite(s->speed) || s->speed <= 0.0)
		return 0;
	if (!isfinite(s->price_per_node_hour) || s->price_per_node_hour < 0.0)
		return 0;
	return 1;
}

static int flavor_init(struct flavor *f, const struct sim_cluster *c, const struct sim_flavor_spec *s)
{
	memset(f, 0, sizeof *f);
	f->spec = *s;
	if (!f->spec.peak_nodes)
		f->spec.peak_nodes = s->nodes;
	f->n = f->spec.peak_nodes; /* every array is sized for the peak */
	f->cap_gpu = s->node_cap[SIM_RES_GPU];
	f->n_buckets = (size_t)f->cap_gpu + 1;
	f->bm0_words = (f->n_buckets + 63) / 64;
	f->bm1_words = (f->bm0_words + 63) / 64;
	f->seg_size = 1;
	while (f->seg_size < f->n)
		f->seg_size <<= 1;
	/* Group summary levels: one bit a group at level 0, up to a single word. */
	size_t words = ((size_t)f->n + GROUP_NODES - 1) / GROUP_NODES; /* groups, as bits */
	do {
		words = (words + 63) / 64;
		if (!words)
			words = 1;
		f->sum_off[f->sum_levels] = f->sum_words;
		f->sum_words_at[f->sum_levels] = words;
		f->sum_words += words;
		f->sum_levels++;
	} while (words > 1 && f->sum_levels < SUM_LEVELS_MAX);

	f->free = zalloc((size_t)f->n * c->nres, sizeof *f->free);
	f->n_groups = ((size_t)f->n + GROUP_NODES - 1) / GROUP_NODES;
	f->cmax = zalloc(f->n_groups * N_CLASSES * (c->nres - 1), sizeof *f->cmax);
	f->cls_mem = zalloc(f->n_buckets + 1, sizeof *f->cls_mem);
	f->cls_of = f->cls_mem ? f->cls_mem + 1 : NULL;
	f->n_super = (f->n_groups + ((size_t)1 << SUPER_SHIFT) - 1) >> SUPER_SHIFT;
	f->smax = zalloc(f->n_super * N_CLASSES * (c->nres - 1), sizeof *f->smax);
	f->sum = zalloc(f->n_buckets * f->sum_words, sizeof *f->sum);
	f->bm0 = zalloc(f->bm0_words, sizeof *f->bm0);
	f->bm1 = zalloc(f->bm1_words, sizeof *f->bm1);
	f->seg = zalloc(2 * f->seg_size, sizeof *f->seg);
	f->state = zalloc(f->n, sizeof *f->state);
	if (!f->free || !f->cmax || !f->smax || !f->cls_mem || !f->sum || !f->bm0 || !f->bm1 || !f->seg ||
	    !f->state) {
		flavor_fini(f);
		return -SIM_ENOMEM;
	}
	for (size_t v = 0; v < 2 * f->seg_size; v++)
		f->seg[v] = NIL; /* padding leaves stay -1: below any need */
	/* Every node starts fully free; nodes [0, nodes) are online, in the top bucket, and
	 * the rest offline (leaf -1, in no bucket). */
	for (uint32_t i = 0; i < f->n; i++) {
		sim_qty_t *fr = f->free + (size_t)i * c->nres;
		for (size_t r = 0; r < c->nres; r++)
			fr[r] = s->node_cap[r];
		if (i >= s->nodes) {
			f->state[i] = SIM_NODE_OFFLINE;
			continue;
		}
		f->seg[f->seg_size + i] = (int32_t)f->cap_gpu;
		bucket_enter(f, i, (size_t)f->cap_gpu);
	}
	for (size_t b = 0; b < f->n_buckets; b++) /* floor(b * 15 / cap): the top class is cap only */
		f->cls_of[b] = (uint8_t)((sim_qty_t)b * (N_CLASSES - 1) / f->cap_gpu);
	f->cls_of[-1] = N_CLASSES;
	/* Every online node full: its class holds the caps, in the groups and super groups
	 * holding an online node. */
	for (size_t g = 0; g < f->n_groups && (g << GROUP_SHIFT) < s->nodes; g++)
		for (size_t r = 1; r < c->nres; r++)
			class_max(c, f->cmax, g, N_CLASSES - 1)[r - 1] = s->node_cap[r];
	for (size_t sg = 0; sg < f->n_super && sg * SUPER_NODES < s->nodes; sg++)
		for (size_t r = 1; r < c->nres; r++)
			class_max(c, f->smax, sg, N_CLASSES - 1)[r - 1] = s->node_cap[r];
	f->seg_inner = c->placement == SIM_PLACE_FIRST_FIT;
	for (size_t v = f->seg_size - 1; f->seg_inner && v >= 1; v--) {
		int32_t a = f->seg[2 * v], b = f->seg[2 * v + 1];
		f->seg[v] = a > b ? a : b;
	}
	f->n_full = s->nodes;
	f->n_online = s->nodes;
	f->gpu_total = (sim_qty_t)s->nodes * f->cap_gpu;
	return 0;
}

struct sim_cluster *sim_cluster_create(const struct sim_resources *res,
				       const struct sim_flavor_spec *specs, size_t n_flavors,
				       enum sim_placement placement)
{
	if (!res || res->n < 1 || res->n > SIM_MAX_RES || (n_flavors && !specs))
		return NULL;
	if ((int)placement < 0 || placement >= SIM_PLACE_COUNT_)
		return NULL;
	for (size_t k = 0; k < n_flavors; k++) {
		if (!spec_ok(res, &specs[k]))
			return NULL;
		for (size_t j = 0; j < k; j++)
			if (strcmp(specs[j].name, specs[k].name) == 0)
				return NULL;
	}

	struct sim_cluster *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->res = *res;
	c->nres = (size_t)res->n;
	c->placement = placement;
	c->flavors = zalloc(n_flavors, sizeof *c->flavors);
	if (!c->flavors)
		goto out_free_cluster;
	for (size_t k = 0; k < n_flavors; k++) {
		if (flavor_init(&c->flavors[k], c, &specs[k]) < 0)
			goto out_free_flavors;
		c->n_flavors = k + 1;
		c->gpu_total += c->flavors[k].gpu_total;
	}
	return c;

out_free_flavors:
	for (size_t k = 0; k < c->n_flavors; k++)
		flavor_fini(&c->flavors[k]);
	free(c->flavors);
out_free_cluster:
	free(c);
	return NULL;
}

void sim_cluster_destroy(struct sim_cluster *c)
{
	if (!c)
		return;
	for (size_t k = 0; k < c->n_flavors; k++)
		flavor_fini(&c->flavors[k]);
	free(c->flavors);
	free(c);
}

/* ---- accessors ---- */

size_t sim_cluster_n_flavors(const struct sim_cluster *c)
{
	return c->n_flavors;
}

static struct flavor *flavor_at(const struct sim_cluster *c, int flavor)
{
	if (flavor < 0 || (size_t)flavor >= c->n_flavors)
		return NULL;
	return &c->flavors[flavor];
}

const struct sim_flavor_spec *sim_cluster_flavor(const struct sim_cluster *c, int flavor)
{
	const struct flavor *f = flavor_at(c, flavor);
	return f ? &f->spec : NULL;
}

int sim_cluster_flavor_find(const struct sim_cluster *c, const char *name)
{
	if (!name)
		return -1;
	for (size_t k = 0; k < c->n_flavors; k++)
		if (strcmp(c->flavors[k].spec.name, name) == 0)
			return (int)k;
	return -1;
}

const struct sim_resources *sim_cluster_resources(const struct sim_cluster *c)
{
	return &c->res;
}

sim_qty_t sim_cluster_gpu_busy(const struct sim_cluster *c, int flavor)
{
	if (flavor == -1)
		return c->gpu_busy;
	const struct flavor *f = flavor_at(c, flavor);
	return f ? f->gpu_busy : 0;
}

sim_qty_t sim_cluster_gpu_total(const struct sim_cluster *c, int flavor)
{
	if (flavor == -1)
		return c->gpu_total;
	const struct flavor *f = flavor_at(c, flavor);
	return f ? f->gpu_total : 0;
}

const sim_qty_t *sim_cluster_node_free(const struct sim_cluster *c, int flavor, uint32_t node)
{
	const struct flavor *f = flavor_at(c, flavor);
	if (!f || node >= f->n)
		return NULL;
	if (f->state[node] != SIM_NODE_ONLINE)
		return no_free; /* its free part is held back from placements */
	return node_free(c, f, node);
}

uint32_t sim_cluster_n_nodes(const struct sim_cluster *c, int flavor)
{
	const struct flavor *f = flavor_at(c, flavor);
	return f ? f->n : 0;
}

/* ---- capacity over time ---- */

int sim_cluster_set_nodes(struct sim_cluster *c, int flavor, uint32_t target, uint32_t *busy, size_t *n_busy)
{
	struct flavor *f = flavor_at(c, flavor);
	if (!f || target > f->n)
		return -SIM_EINVAL;
	size_t drained = 0;
	if (target > f->n_online)
		flavor_grow(c, f, target - f->n_online);
	else if (target < f->n_online)
		drained = flavor_shrink(c, f, f->n_online - target, busy);
	if (n_busy)
		*n_busy = drained;
	return 0;
}

int sim_cluster_node_down(struct sim_cluster *c, int flavor, uint32_t node)
{
	struct flavor *f = flavor_at(c, flavor);
	if (!f || node >= f->n || f->state[node] != SIM_NODE_ONLINE)
		return -1;
	node_go_down(c, f, node);
	return f->state[node] == SIM_NODE_DRAINING;
}

int sim_cluster_node_up(struct sim_cluster *c, int flavor, uint32_t node)
{
	struct flavor *f = flavor_at(c, flavor);
	if (!f || node >= f->n || f->state[node] == SIM_NODE_ONLINE)
		return -1;
	node_come_up(c, f, node);
	free_gen_bump(c, f);
	return 0;
}

uint32_t sim_cluster_nodes_online(const struct sim_cluster *c, int flavor)
{
	const struct flavor *f = flavor_at(c, flavor);
	return f ? f->n_online : 0;
}

enum sim_node_state sim_cluster_node_state(const struct sim_cluster *c, int flavor, uint32_t node)
{
	const struct flavor *f = flavor_at(c, flavor);
	if (!f || node >= f->n)
		return SIM_NODE_OFFLINE; /* no such node: no capacity */
	return (enum sim_node_state)f->state[node];
}

uint64_t sim_cluster_free_gen(const struct sim_cluster *c, int flavor)
{
	if (flavor == -1)
		return c->free_gen;
	const struct flavor *f = flavor_at(c, flavor);
	return f ? f->free_gen : 0;
}

/* ---- request shape ---- */

/* 1 if every used entry of req is >= 0. */
static int req_valid(const struct sim_cluster *c, const sim_qty_t *req)
{
	if (!req)
		return 0;
	for (size_t r = 0; r < c->nres; r++)
		if (req[r] < 0)
			return 0;
	return 1;
}

/* Whole nodes a request needs: 0 for a single-node request (req[gpu] <= node GPUs),
 * else ceil(req[gpu] / node GPUs). */
static sim_qty_t whole_nodes(const struct flavor *f, const sim_qty_t *req)
{
	sim_qty_t g = req[SIM_RES_GPU];
	if (g <= f->cap_gpu)
		return 0;
	return g / f->cap_gpu + (g % f->cap_gpu != 0);
}

/* 1 if k whole nodes hold every non-GPU resource of req (ceil(req / cap) <= k,
 * by division so nothing overflows). */
static int whole_other_fit(const struct sim_cluster *c, const struct flavor *f,
			   const sim_qty_t *req, sim_qty_t k)
{
	for (size_t r = 1; r < c->nres; r++) {
		sim_qty_t cap = f->spec.node_cap[r];
		if (req[r] == 0)
			continue;
		if (cap == 0)
			return 0;
		if (req[r] / cap + (req[r] % cap != 0) > k)
			return 0;
	}
	return 1;
}

sim_qty_t sim_cluster_alloc_gpu(const struct sim_cluster *c, int flavor, const sim_qty_t *req)
{
	const struct flavor *f = flavor_at(c, flavor);
	if (!f || !req_valid(c, req))
		return 0;
	sim_qty_t k = whole_nodes(f, req);
	return k ? k * f->cap_gpu : req[SIM_RES_GPU];
}

int sim_cluster_could_fit(const struct sim_cluster *c, int flavor, const sim_qty_t *req)
{
	const struct flavor *f = flavor_at(c, flavor);
	if (!f || !req_valid(c, req) || f->n == 0)
		return 0;
	sim_qty_t k = whole_nodes(f, req);
	if (k)
		return k <= (sim_qty_t)f->n && whole_other_fit(c, f, req, k);
	for (size_t r = 0; r < c->nres; r++)
		if (req[r] > f->spec.node_cap[r])
			return 0;
	return 1;
}

/* ---- search ---- */

/* Leftmost node in subtree v (covering [lo, lo + width)) with free GPU >= need whose
 * other resources fit too. The max prunes subtrees without GPU room; with other set
 * (the request has a non-GPU part) so do the group maxima, at the subtree that is one
 * group (or the root, when the tree is smaller than a group). A leaf whose other
 * resources still misfit makes the search back up and try the next candidate. */
static int32_t seg_first(const struct sim_cluster *c, const struct flavor *f, size_t v,
			 uint32_t lo, size_t width, const sim_qty_t *req, int other)
{
	if (f->seg[v] < req[SIM_RES_GPU])
		return NIL; /* also every all-padding subtree: its max is -1 */
	if (other && (width == SUPER_NODES || (v == 1 && width < SUPER_NODES)) &&
	    !may_fit_from(c, f->smax, lo >> (GROUP_SHIFT + SUPER_SHIFT), f->cls_of[req[SIM_RES_GPU]], req))
		return NIL;
	if (other && (width == GROUP_NODES || (v == 1 && width < GROUP_NODES)) &&
	    !may_fit_from(c, f->cmax, lo >> GROUP_SHIFT, f->cls_of[req[SIM_RES_GPU]], req))
		return NIL;
	if (width == 1)
		return node_fits(c, f, lo, req) ? (int32_t)lo : NIL;
	size_t half = width / 2;
	int32_t r = seg_first(c, f, 2 * v, lo, half, req, other);
	if (r != NIL)
		return r;
	return seg_first(c, f, 2 * v + 1, lo + (uint32_t)half, half, req, other);
}

/* First node of bucket b (lowest index) whose other resources fit. When the request
 * asks only for GPUs (other == 0) this is the bucket's first node. Otherwise the walk
 * goes group by group through the bucket's summary, skipping the groups whose maxima
 * cannot hold the request, and scans the others' leaves for nodes of the bucket that
 * fit: O(groups of the bucket) plus 32 leaves a group that may fit. */
static int32_t bucket_first_fit(const struct sim_cluster *c, const struct flavor *f, size_t b,
				const sim_qty_t *req, int other)
{
	if (!other)
		return bucket_next(f, b, 0); /* node_fits holds: b >= the GPUs asked */
	const uint64_t *s = bucket_sum(f, b);
	const int32_t *leaf = f->seg + f->seg_size;
	size_t k = f->cls_of[b];
	for (size_t g = sum_next_ge(f, s, 0); g != BUCKET_NONE;) {
		if (!fits_class(c, f->smax, g >> SUPER_SHIFT, k, req)) { /* the next super group */
			g = sum_next_ge(f, s, ((g >> SUPER_SHIFT) + 1) << SUPER_SHIFT);
			continue;
		}
		if (fits_class(c, f->cmax, g, k, req)) {
			uint32_t lo = (uint32_t)g << GROUP_SHIFT, end = lo + GROUP_NODES;
			if (end > f->n)
				end = f->n;
			for (uint32_t i = lo; i < end; i++)
				if (leaf[i] == (int32_t)b && node_fits(c, f, i, req))
					return (int32_t)i;
		}
		g = sum_next_ge(f, s, g + 1);
	}
	return NIL;
}

/* 1 if the only nonzero entry of req is the GPU one. */
static int req_gpu_only(const struct sim_cluster *c, const sim_qty_t *req)
{
	for (size_t r = 1; r < c->nres; r++)
		if (req[r] != 0)
			return 0;
	return 1;
}

/* The node the placement strategy picks for a single-node request, or NIL. */
static int32_t find_node(const struct sim_cluster *c, const struct flavor *f,
			 enum sim_placement p, const sim_qty_t *req)
{
	size_t need = (size_t)req[SIM_RES_GPU];
	if (f->n == 0 || req[SIM_RES_GPU] > f->cap_gpu)
		return NIL;
	int other = !req_gpu_only(c, req);
	switch (p) {
	case SIM_PLACE_BEST_FIT:
		/* Fullest first: buckets upward from the request. */
		for (size_t b = bm_next_ge(f, need); b != BUCKET_NONE; b = bm_next_ge(f, b + 1)) {
			int32_t i = bucket_first_fit(c, f, b, req, other);
			if (i != NIL)
				return i;
		}
		return NIL;
	case SIM_PLACE_SPREAD:
		/* Emptiest first: buckets downward from the top, down to the request. */
		for (size_t b = bm_prev_le(f, f->n_buckets - 1); b != BUCKET_NONE && b >= need;
		     b = b ? bm_prev_le(f, b - 1) : BUCKET_NONE) {
			int32_t i = bucket_first_fit(c, f, b, req, other);
			if (i != NIL)
				return i;
		}
		return NIL;
	case SIM_PLACE_FIRST_FIT:
	default:
		return seg_first(c, f, 1, 0, f->seg_size, req, other);
	}
}

/* Fills out[0..k) with the k lowest-index fully free nodes; 0, or -SIM_ENOFIT.
 * Walks the ordered "all GPUs free" bucket; nodes there whose other resources are in
 * use (GPU-less jobs) are skipped, and with non-GPU resources so is every group whose
 * maxima say no node of it is fully free. */
static int find_whole(const struct sim_cluster *c, const struct flavor *f, sim_qty_t k,
		      uint32_t *out)
{
	if ((sim_qty_t)f->n_full < k)
		return -SIM_ENOFIT;
	sim_qty_t got = 0;
	size_t top = f->n_buckets - 1;
	if (c->nres == 1) {
		for (int32_t i = bucket_next(f, top, 0); i != NIL && got < k;
		     i = bucket_next(f, top, (uint32_t)i + 1))
			out[got++] = (uint32_t)i; /* GPUs all free: the node is full */
		return got == k ? 0 : -SIM_ENOFIT; /* got < k means n_full is wrong */
	}
	const uint64_t *s = bucket_sum(f, top);
	const int32_t *leaf = f->seg + f->seg_size;
	for (size_t g = sum_next_ge(f, s, 0); g != BUCKET_NONE && got < k;) {
		if (!fits_class(c, f->smax, g >> SUPER_SHIFT, N_CLASSES - 1, f->spec.node_cap)) {
			g = sum_next_ge(f, s, ((g >> SUPER_SHIFT) + 1) << SUPER_SHIFT);
			continue;
		}
		if (fits_class(c, f->cmax, g, N_CLASSES - 1, f->spec.node_cap)) {
			uint32_t lo = (uint32_t)g << GROUP_SHIFT, end = lo + GROUP_NODES;
			if (end > f->n)
				end = f->n;
			for (uint32_t i = lo; i < end && got < k; i++)
				if (leaf[i] == (int32_t)top && node_full(c, f, i))
					out[got++] = i;
		}
		g = sum_next_ge(f, s, g + 1);
	}
	return got == k ? 0 : -SIM_ENOFIT; /* got < k means n_full is wrong */
}

int sim_cluster_fits(const struct sim_cluster *c, int flavor, const sim_qty_t *req)
{
	const struct flavor *f = flavor_at(c, flavor);
	if (!f || !req_valid(c, req) || f->n == 0)
		return 0;
	sim_qty_t k = whole_nodes(f, req);
	if (k)
		return k <= (sim_qty_t)f->n_full && whole_other_fit(c, f, req, k);
	if (req_gpu_only(c, req)) { /* some node has the GPUs: the highest non-empty bucket */
		size_t top = bm_prev_le(f, f->n_buckets - 1);
		return top != BUCKET_NONE && top >= (size_t)req[SIM_RES_GPU];
	}
	return find_node(c, f, c->placement, req) != NIL;
}

/* ---- place / release ---- */

static void alloc_reset(struct sim_alloc *a)
{
	a->flavor = -1;
	a->n_nodes = 0;
	a->node = 0;
	a->whole = 0;
	a->nodes = NULL;
}

int sim_cluster_place(struct sim_cluster *c, int flavor, const sim_qty_t *req,
		      struct sim_alloc *out)
{
	struct flavor *f = flavor_at(c, flavor);
	if (!f || !req_valid(c, req) || !out)
		return -SIM_EINVAL;
	if (f->n == 0)
		return -SIM_ENOFIT;
	sim_qty_t k = whole_nodes(f, req);

	if (k) {
		if (k > (sim_qty_t)f->n_full || !whole_other_fit(c, f, req, k))
			return -SIM_ENOFIT;
		/* k >= 2 here, so the alloc always owns a node list. */
		uint32_t *nodes = malloc((size_t)k * sizeof *nodes);
		if (!nodes)
			return -SIM_ENOMEM;
		int rc = find_whole(c, f, k, nodes);
		if (rc < 0) {
			free(nodes);
			return rc;
		}
		for (sim_qty_t j = 0; j < k; j++) {
			sim_qty_t *fr = node_free(c, f, nodes[j]);
			for (size_t r = 0; r < c->nres; r++)
				fr[r] = 0;
			node_reindex(c, f, nodes[j], f->cap_gpu, 1, f->spec.node_cap);
		}
		alloc_reset(out);
		out->flavor = flavor;
		out->n_nodes = (uint32_t)k;
		out->node = nodes[0];
		out->whole = 1;
		out->nodes = nodes;
		f->gpu_busy += k * f->cap_gpu;
		c->gpu_busy += k * f->cap_gpu;
		return 0;
	}

	int32_t i = find_node(c, f, c->placement, req);
	if (i == NIL)
		return -SIM_ENOFIT;
	sim_qty_t *fr = node_free(c, f, (uint32_t)i);
	sim_qty_t old_gpu = fr[SIM_RES_GPU], old[SIM_MAX_RES];
	int was_full = node_full(c, f, (uint32_t)i);
	for (size_t r = 0; r < c->nres; r++) {
		old[r] = fr[r];
		fr[r] -= req[r];
	}
	node_reindex(c, f, (uint32_t)i, old_gpu, was_full, req_gpu_only(c, req) ? NULL : old);
	alloc_reset(out);
	out->flavor = flavor;
	out->n_nodes = 1;
	out->node = (uint32_t)i;
	f->gpu_busy += req[SIM_RES_GPU];
	c->gpu_busy += req[SIM_RES_GPU];
	return 0;
}

/* Node i gets back req (whole: all of the node). Not online, the node is not indexed:
 * what comes back stays held back, its GPUs leave the total (they were counted as
 * busy GPUs of a draining node), and the node is offline once nothing runs on it.
 * Returns 1 when the released capacity is free for placements (an online node). */
static int node_release(struct sim_cluster *c, struct flavor *f, uint32_t i, const sim_qty_t *req, int whole)
{
	sim_qty_t *fr = node_free(c, f, i);
	sim_qty_t old_gpu = fr[SIM_RES_GPU], old[SIM_MAX_RES];
	int was_full = node_full(c, f, i);
	for (size_t r = 0; r < c->nres; r++) {
		old[r] = fr[r];
		fr[r] = whole ? f->spec.node_cap[r] : fr[r] + req[r];
	}
	if (node_gpu(f, i) < 0) { /* not online (the leaf, not state[]: a line re-indexing reads anyway) */
		sim_qty_t g = fr[SIM_RES_GPU] - old_gpu;
		f->gpu_total -= g;
		c->gpu_total -= g;
		if (node_full(c, f, i))
			f->state[i] = SIM_NODE_OFFLINE;
		return 0;
	}
	node_reindex(c, f, i, old_gpu, was_full, !whole && req_gpu_only(c, req) ? NULL : old);
	return 1;
}

void sim_cluster_release(struct sim_cluster *c, struct sim_alloc *a, const sim_qty_t *req)
{
	if (!a)
		return;
	struct flavor *f = flavor_at(c, a->flavor);
	if (!f || a->n_nodes == 0) {
		free(a->nodes);
		alloc_reset(a);
		return;
	}
	int freed = 0; /* some capacity went back to online nodes */
	sim_qty_t gpu;
	if (a->whole) {
		for (uint32_t j = 0; j < a->n_nodes; j++)
			freed |= node_release(c, f, a->nodes ? a->nodes[j] : a->node, req, 1);
		gpu = (sim_qty_t)a->n_nodes * f->cap_gpu;
	} else {
		freed = node_release(c, f, a->node, req, 0);
		gpu = req[SIM_RES_GPU];
	}
	f->gpu_busy -= gpu;
	c->gpu_busy -= gpu;
	if (freed)
		free_gen_bump(c, f);
	free(a->nodes);
	alloc_reset(a);
}

/* ---- consistency check (tests) ---- */

/* Group g's class k maximum of resource r, from the nodes (the check's reference). */
static sim_qty_t class_max_want(const struct sim_cluster *c, const struct flavor *f, size_t g, size_t k,
				size_t r)
{
	sim_qty_t m = 0;
	for (uint32_t i = (uint32_t)g << GROUP_SHIFT; i < f->n && i >> GROUP_SHIFT == g; i++)
		if (f->state[i] == SIM_NODE_ONLINE && f->cls_of[node_gpu(f, i)] == k &&
		    node_free(c, f, i)[r] > m)
			m = node_free(c, f, i)[r];
	return m;
}

/* Node i's state against its free vector and leaf; adds what it counts to the sums. */
static int node_check(const struct sim_cluster *c, const struct flavor *f, uint32_t i, sim_qty_t *busy,
		      sim_qty_t *total, uint32_t *n_full, uint32_t *n_online)
{
	const sim_qty_t *fr = node_free(c, f, i);
	for (size_t r = 0; r < c->nres; r++)
		if (fr[r] < 0 || fr[r] > f->spec.node_cap[r])
			return -1;
	int full = node_full(c, f, i);
	int32_t leaf = f->seg[f->seg_size + i];
	sim_qty_t used = f->cap_gpu - fr[SIM_RES_GPU];
	*busy += used;
	switch (f->state[i]) {
	case SIM_NODE_ONLINE:
		*total += f->cap_gpu;
		*n_full += (uint32_t)full;
		(*n_online)++;
		return leaf == (int32_t)fr[SIM_RES_GPU] ? 0 : -1;
	case SIM_NODE_DRAINING: /* something still runs there */
		*total += used;
		return leaf == NIL && !full ? 0 : -1;
	case SIM_NODE_OFFLINE: /* nothing runs there */
		return leaf == NIL && full ? 0 : -1;
	default:
		return -1;
	}
}

static int flavor_check(const struct sim_cluster *c, const struct flavor *f)
{
	sim_qty_t busy = 0, total = 0;
	uint32_t n_full = 0, n_online = 0;
	for (uint32_t i = 0; i < f->n; i++)
		if (node_check(c, f, i, &busy, &total, &n_full, &n_online) < 0)
			return -1;
	if (n_full != f->n_full || n_online != f->n_online || f->gpu_total != total || f->gpu_busy != busy)
		return -1;
	if (f->spec.peak_nodes != f->n || f->spec.nodes > f->n)
		return -1;
	for (size_t v = f->seg_size + f->n; v < 2 * f->seg_size; v++)
		if (f->seg[v] != NIL)
			return -1;
	if (f->n_groups != ((size_t)f->n + GROUP_NODES - 1) / GROUP_NODES)
		return -1;
	for (size_t b = 0; b < f->n_buckets; b++)
		if (f->cls_of[b] != (sim_qty_t)b * (N_CLASSES - 1) / f->cap_gpu)
			return -1;
	if (f->cls_of[-1] != N_CLASSES)
		return -1;
	for (size_t g = 0; g < f->n_groups && c->nres > 1; g++) /* each group's maxima, recomputed */
		for (size_t k = 0; k < N_CLASSES; k++)
			for (size_t r = 1; r < c->nres; r++)
				if (class_max(c, f->cmax, g, k)[r - 1] != class_max_want(c, f, g, k, r))
					return -1;
	if (f->n_super != (f->n_groups + ((size_t)1 << SUPER_SHIFT) - 1) >> SUPER_SHIFT)
		return -1;
	for (size_t sg = 0; sg < f->n_super; sg++)
		for (size_t k = 0; k < N_CLASSES; k++)
			for (size_t r = 1; r < c->nres; r++)
				if (class_max(c, f->smax, sg, k)[r - 1] != super_max_scan(c, f, sg, k, r))
					return -1;
	for (size_t v = f->seg_size - 1; f->seg_inner && v >= 1; v--) {
		int32_t a = f->seg[2 * v], b = f->seg[2 * v + 1];
		if (f->seg[v] != (a > b ? a : b))
			return -1;
	}
	/* Rebuild every bucket's summary from the leaves and compare word for word, then
	 * walk each bucket in index order: it must list exactly its nodes, ascending. */
	uint64_t *want = calloc(f->n_buckets * f->sum_words, sizeof *want);
	if (!want)
		return -1;
	struct flavor shadow = *f;
	shadow.sum = want;
	for (uint32_t i = 0; i < f->n; i++)
		if (f->state[i] == SIM_NODE_ONLINE)
			sum_set(&shadow, bucket_sum(&shadow, (size_t)node_gpu(f, i)), i >> GROUP_SHIFT);
	int bad = memcmp(want, f->sum, f->n_buckets * f->sum_words * sizeof *want) != 0;
	free(want);
	if (bad)
		return -1;
	uint32_t listed = 0;
	for (size_t b = 0; b < f->n_buckets; b++) {
		const uint64_t *s = bucket_sum(f, b);
		int nonempty = s[f->sum_off[f->sum_levels - 1]] != 0;
		int bit = (int)((f->bm0[b >> 6] >> (b & 63)) & 1);
		if (bit != nonempty)
			return -1;
		if (!nonempty)
			continue; /* the summary matched: no node has b free */
		int32_t prev = NIL;
		for (int32_t i = bucket_next(f, b, 0); i != NIL; i = bucket_next(f, b, (uint32_t)i + 1)) {
			if ((uint32_t)i >= f->n || i <= prev || f->state[i] != SIM_NODE_ONLINE ||
			    node_free(c, f, (uint32_t)i)[SIM_RES_GPU] != (sim_qty_t)b)
				return -1;
			prev = i;
			if (++listed > f->n)
				return -1;
		}
	}
	if (listed != f->n_online)
		return -1;
	for (size_t w = 0; w < f->bm0_words; w++)
		if (((f->bm1[w >> 6] >> (w & 63)) & 1) != (f->bm0[w] != 0))
			return -1;
	return 0;
}

int sim_cluster_check(const struct sim_cluster *c)
{
	sim_qty_t busy = 0, total = 0;
	uint64_t gen = 0;
	for (size_t k = 0; k < c->n_flavors; k++) {
		if (flavor_check(c, &c->flavors[k]) < 0)
			return -SIM_ESTATE;
		busy += c->flavors[k].gpu_busy;
		total += c->flavors[k].gpu_total;
		gen += c->flavors[k].free_gen;
	}
	if (busy != c->gpu_busy || total != c->gpu_total || gen != c->free_gen)
		return -SIM_ESTATE;
	return 0;
}
