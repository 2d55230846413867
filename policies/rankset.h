/* policies/rankset.h: an ordered set of jobs with GPU sums, for the pool step of
 * the preemptive baselines (pool_pass.h).
 *
 * Elements are (key, job) pairs ordered by (key, job), each with a weight (GPUs,
 * milli-units); every query is O(log n) expected: a treap whose node priorities
 * come from a fixed-seed generator, so the shape (and every result) is the same
 * run after run. Nodes live in one array owned by the set, reused after erase.
 */
#ifndef POLICIES_RANKSET_H
#define POLICIES_RANKSET_H

#include <stddef.h>
#include <stdint.h>

#include "../sim/sim.h"

struct rs_key {
	int64_t k;    /* e.g. end time or remaining time, ns */
	uint32_t idx; /* job index: ties */
};

/* One node a cache line (aligned, padded to 64 bytes): a walk down the tree reads
 * one line a level, never two. */
struct rs_node {
	_Alignas(64) struct rs_key key;
	int64_t w, sum;   /* weight; sum over the subtree */
	int64_t min;      /* smallest weight in the subtree */
	uint32_t prio;
	int32_t l, r;     /* children, -1 = none */
};

struct rankset {
	struct rs_node *v;    /* v[0 .. n); v[-1] is a sentinel (weight and sum 0, min INT64_MAX)
			       * that stands for "no child", so sums and minima read children
			       * without a test; NULL until the first insert */
	struct rs_node *mem;  /* what was allocated: v - 1 */
	size_t n, cap;    /* nodes allocated (live and free) */
	int32_t root, free_head;
	size_t size;      /* live elements */
	uint32_t rng;
};

void rs_init(struct rankset *s);
void rs_fini(struct rankset *s);
/* Adds (key, w); the key must not be present. 0 or -SIM_ENOMEM. */
int rs_insert(struct rankset *s, struct rs_key key, int64_t w);
/* Removes key; 1 if it was present. */
int rs_erase(struct rankset *s, struct rs_key key);
/* Sum of the weights of elements < key. */
int64_t rs_sum_below(const struct rankset *s, struct rs_key key);
/* The first element > key (or >= key when incl), into *out; 0 if none. */
int rs_next(const struct rankset *s, struct rs_key key, int incl, struct rs_key *out, int64_t *w);
/* The first element whose running sum of weights from the smallest element exceeds
 * `total` (the smallest element when total < 0: a pool already overcommitted by jobs
 * that may not be preempted); 0 if the whole set sums to <= total. */
int rs_first_exceeding(const struct rankset *s, int64_t total, struct rs_key *out, int64_t *w);
/* The first element > key whose weight is <= maxw; 0 if none. */
int rs_next_fit(const struct rankset *s, struct rs_key key, int64_t maxw, struct rs_key *out, int64_t *w);
/* A walk in order over the elements whose weight is within a bound that only falls
 * from one step to the next: each rs_cursor_next gives the same element as
 * rs_next_fit from the one it gave before (from the start for the first), in O(1)
 * amortized (subtrees too heavy are skipped once). The set must not change while a
 * cursor walks it. */
#define RS_CURSOR_DEPTH 96
struct rs_cursor {
	const struct rankset *s;
	int32_t stack[RS_CURSOR_DEPTH]; /* nodes whose element and right subtree are left */
	int depth;
	int deep;                       /* the tree was deeper than the stack: rs_next_fit */
	int started, given;             /* the first step was taken; an element was given */
	struct rs_key last;             /* the element given last */
};
void rs_cursor_init(struct rs_cursor *c, const struct rankset *s);
/* The next element of weight <= maxw (maxw not above the previous call's); 0 if none. */
int rs_cursor_next(struct rs_cursor *c, int64_t maxw, struct rs_key *out, int64_t *w);
int64_t rs_sum(const struct rankset *s);
/* The smallest weight (INT64_MAX for an empty set). */
int64_t rs_min(const struct rankset *s);
int rs_key_lt(struct rs_key a, struct rs_key b);
/* An ordered set whose elements come in increasing key order (each insert is above
 * every key ever inserted), with the queries las's blocks ask (policies/las.c):
 * elements in an array by position, dead ones left as holes of weight 0 until they
 * are half of it (then the array is compacted), GPU sums in a Fenwick tree over the
 * positions. Same answers as a rankset holding the same elements; a position is
 * valid until the next append or erase. */
struct rs_log {
	struct rs_key *key; /* by position, increasing; holes keep their key */
	int64_t *w;         /* by position; 0 for a hole (and for an element of weight 0) */
	uint8_t *live;      /* by position */
	int64_t *bit;       /* Fenwick tree over w, 1-based, cap + 1 entries */
	size_t n, cap;      /* positions used; allocated */
	size_t size;        /* live elements */
	int64_t total;      /* sum of the live weights */
	uint32_t *pos_of;   /* NULL, or by key.idx: the position of that element, kept up to date
			     * (borrowed; several logs may share one when an idx is in one log
			     * at a time): erase finds it without a search */
};
/* pos_of: NULL, or an array with an entry for every idx that will be appended. */
void rs_log_init(struct rs_log *s, uint32_t *pos_of);
void rs_log_fini(struct rs_log *s);
/* Adds (key, w); key must be above every key inserted before. 0 or -SIM_ENOMEM. */
int rs_log_append(struct rs_log *s, struct rs_key key, int64_t w);
/* Removes key; 1 if it was present. */
int rs_log_erase(struct rs_log *s, struct rs_key key);
/* Sum of the weights of elements < key. */
int64_t rs_log_sum_below(const struct rs_log *s, struct rs_key key);
/* The position of the first element whose running sum of weights from the smallest
 * exceeds `total` (the smallest live one when total < 0); -1 if the whole set sums
 * to <= total. */
ptrdiff_t rs_log_first_exceeding(const struct rs_log *s, int64_t total);
/* The first live position after pos (pos -1: from the start); -1 if none. */
ptrdiff_t rs_log_next(const struct rs_log *s, ptrdiff_t pos);
/* Sum of the weights before position pos. */
int64_t rs_log_prefix(const struct rs_log *s, size_t pos);

/* The same ordered set as a rankset for the queries srtf asks of its running jobs
 * (no weight bounds: no next_fit, cursor or min; weights >= 0), kept as a sorted
 * sequence cut in blocks of at most RS_BLOCK elements (key and weight side by
 * side), with a directory of the blocks' first keys and the weight sums before each
 * block. An insert or erase is a binary search of the directory, one in the block,
 * a move of at most RS_BLOCK entries and an add to the sums of the blocks after it
 * (contiguous memory, where the treap follows a path of ~2 ln n nodes, a cache miss
 * each); a full block splits in two halves, a block that empties leaves the
 * directory, and two neighbours that together hold at most RS_BLOCK / 2 merge, so
 * there are at most 4n / RS_BLOCK + 1 blocks. A sum below a key is the directory's
 * sum before its block plus a scan in the block: O(log n + RS_BLOCK) a query,
 * O(n / RS_BLOCK + RS_BLOCK) an update. Same answers as a rankset holding the same
 * elements (tests/test_rankset.c checks both against a sorted array). */
#define RS_BLOCK 32
struct rs_ent {
	struct rs_key key;
	int64_t w;
};
struct rs_blk {
	struct rs_ent e[RS_BLOCK];
	uint32_t n;
};
struct rs_blocks {
	struct rs_blk **b;     /* nb blocks in key order, each non-empty */
	struct rs_key *first;  /* per block: its first key */
	int64_t *pre;          /* nb + 1 entries: pre[i] = sum of the weights of blocks 0 .. i - 1
				* (pre[nb] = total), NULL before the first insert */
	size_t nb, cap;        /* blocks; directory entries allocated (pre: cap + 1) */
	struct rs_blk *spare;  /* one emptied block kept for the next split, or NULL */
	size_t size;           /* elements */
	int64_t total;         /* sum of every weight */
};
void rs_blocks_init(struct rs_blocks *s);
void rs_blocks_fini(struct rs_blocks *s);
/* Adds (key, w); the key must not be present. 0 or -SIM_ENOMEM (nothing changed). */
int rs_blocks_insert(struct rs_blocks *s, struct rs_key key, int64_t w);
/* Removes key; 1 if it was present. */
int rs_blocks_erase(struct rs_blocks *s, struct rs_key key);
/* As rs_sum_below, rs_next and rs_first_exceeding. */
int64_t rs_blocks_sum_below(const struct rs_blocks *s, struct rs_key key);
int rs_blocks_next(const struct rs_blocks *s, struct rs_key key, int incl, struct rs_key *out, int64_t *w);
int rs_blocks_first_exceeding(const struct rs_blocks *s, int64_t total, struct rs_key *out, int64_t *w);

/* Tests only: the deepest path insert and erase walk before they fall back to
 * split and merge (at most the default, 96). */
extern int rankset_test_path_max;

#endif
