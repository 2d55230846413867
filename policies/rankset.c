/* policies/rankset.c: treap with subtree sums, blocked sequence and append-only log
 * (rankset.h). */
#include <stdlib.h>
#include <string.h>

#include "rankset.h"

int rs_key_lt(struct rs_key a, struct rs_key b)
{
	return a.k != b.k ? a.k < b.k : a.idx < b.idx;
}

void rs_init(struct rankset *s)
{
	*s = (struct rankset){ .root = -1, .free_head = -1, .rng = 2463534242u };
}

void rs_fini(struct rankset *s)
{
	free(s->mem);
	rs_init(s);
}

static int64_t sum_of(const struct rankset *s, int32_t t)
{
	return t < 0 ? 0 : s->v[t].sum;
}

static int64_t min_of(const struct rankset *s, int32_t t)
{
	return t < 0 ? INT64_MAX : s->v[t].min;
}

static int64_t min3(int64_t a, int64_t b, int64_t c)
{
	int64_t m = a < b ? a : b;
	return m < c ? m : c;
}

/* Recomputes t's sum and minimum from its weight and its children's (a child -1
 * reads the sentinel v[-1]: no branch). */
static void pull(struct rankset *s, int32_t t)
{
	struct rs_node *n = &s->v[t];
	const struct rs_node *l = &s->v[n->l], *r = &s->v[n->r];
	n->sum = n->w + l->sum + r->sum;
	n->min = min3(n->w, l->min, r->min);
}

/* Whether node t goes to the left part of a split around key (see split). */
static int goes_left(const struct rankset *s, int32_t t, struct rs_key key, int le)
{
	return le ? !rs_key_lt(key, s->v[t].key) : rs_key_lt(s->v[t].key, key);
}

/* split by recursion, whatever the depth: the fallback of split below. */
static void split_deep(struct rankset *s, int32_t t, struct rs_key key, int le, int32_t *a, int32_t *b)
{
	if (t < 0) {
		*a = *b = -1;
		return;
	}
	if (goes_left(s, t, key, le)) {
		split_deep(s, s->v[t].r, key, le, &s->v[t].r, b);
		*a = t;
	} else {
		split_deep(s, s->v[t].l, key, le, a, &s->v[t].l);
		*b = t;
	}
	pull(s, t);
}

/* Deepest path the in-place insert and erase, and the loops of split and merge,
 * record; a deeper one (vanishingly rare with random priorities) takes the
 * recursive or split-and-merge way instead. */
#define RS_PATH_MAX 96
int rankset_test_path_max = RS_PATH_MAX; /* tests lower it to run the deep-path fallbacks */

/* Splits t into (< key) and (>= key), or (<= key) and (> key) when le: down one
 * path, each node hooked to the left part (then its right subtree is split on) or
 * to the right part (its left subtree), then the path's sums pulled bottom-up. */
static void split(struct rankset *s, int32_t t, struct rs_key key, int le, int32_t *a, int32_t *b)
{
	int32_t path[RS_PATH_MAX];
	int d = 0;
	for (; t >= 0; d++) {
		if (d == rankset_test_path_max) {
			split_deep(s, t, key, le, a, b);
			break;
		}
		path[d] = t;
		if (goes_left(s, t, key, le)) {
			*a = t;
			a = &s->v[t].r;
			t = s->v[t].r;
		} else {
			*b = t;
			b = &s->v[t].l;
			t = s->v[t].l;
		}
	}
	if (t < 0)
		*a = *b = -1;
	while (d--)
		pull(s, path[d]);
}

/* merge by recursion, whatever the depth: the fallback of merge below. */
static int32_t merge_deep(struct rankset *s, int32_t a, int32_t b)
{
	if (a < 0)
		return b;
	if (b < 0)
		return a;
	if (s->v[a].prio > s->v[b].prio) {
		s->v[a].r = merge_deep(s, s->v[a].r, b);
		pull(s, a);
		return a;
	}
	s->v[b].l = merge_deep(s, a, s->v[b].l);
	pull(s, b);
	return b;
}

/* The treap of every element of a then of b (each of a's below each of b's): down
 * a's right spine and b's left spine by priority, then the path pulled bottom-up. */
static int32_t merge(struct rankset *s, int32_t a, int32_t b)
{
	int32_t path[RS_PATH_MAX], root = -1, *link = &root;
	int d = 0;
	for (; a >= 0 && b >= 0; d++) {
		if (d == rankset_test_path_max) {
			*link = merge_deep(s, a, b);
			a = b = -1;
			break;
		}
		if (s->v[a].prio > s->v[b].prio) {
			path[d] = *link = a;
			link = &s->v[a].r;
			a = s->v[a].r;
		} else {
			path[d] = *link = b;
			link = &s->v[b].l;
			b = s->v[b].l;
		}
	}
	if (a >= 0 || b >= 0)
		*link = a >= 0 ? a : b;
	while (d--)
		pull(s, path[d]);
	return root;
}

static uint32_t next_prio(struct rankset *s)
{
	uint32_t x = s->rng; /* xorshift32: fixed seed, same shape every run */
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return s->rng = x;
}

static int same(struct rs_key a, struct rs_key b)
{
	return a.k == b.k && a.idx == b.idx;
}

/* Inserts node t by split and merge: O(log n), whatever the depth. */
static void insert_by_split(struct rankset *s, int32_t t)
{
	int32_t a, b;
	split(s, s->root, s->v[t].key, 0, &a, &b);
	s->root = merge(s, merge(s, a, t), b);
}

/* Inserts node t where its priority puts it: down the search path while the nodes
 * there outrank it, then the subtree below is split around it. The nodes passed
 * gain t's weight; nothing else on the path changes. */
static void insert_in_place(struct rankset *s, int32_t t)
{
	int32_t path[RS_PATH_MAX];
	int d = 0;
	int32_t *link = &s->root;
	const struct rs_key key = s->v[t].key;
	while (*link >= 0 && s->v[*link].prio > s->v[t].prio) {
		if (d == rankset_test_path_max) {
			insert_by_split(s, t);
			return;
		}
		path[d++] = *link;
		link = rs_key_lt(key, s->v[*link].key) ? &s->v[*link].l : &s->v[*link].r;
	}
	int32_t l, r;
	split(s, *link, key, 0, &l, &r);
	s->v[t].l = l;
	s->v[t].r = r;
	pull(s, t);
	*link = t;
	const int64_t w = s->v[t].w;
	while (d--) {
		struct rs_node *n = &s->v[path[d]];
		n->sum += w;
		if (w < n->min)
			n->min = w;
	}
}

/* Doubles the node array (64 nodes first), the sentinel in front, aligned to the
 * cache line. 0 or -SIM_ENOMEM (the set unchanged). */
static int grow(struct rankset *s)
{
	size_t cap = s->cap ? 2 * s->cap : 64;
	if (cap > (size_t)INT32_MAX)
		return -SIM_ENOMEM;
	struct rs_node *mem = aligned_alloc(_Alignof(struct rs_node), (cap + 1) * sizeof *mem);
	if (!mem)
		return -SIM_ENOMEM;
	mem[0] = (struct rs_node){ .min = INT64_MAX, .l = -1, .r = -1 };
	if (s->n)
		memcpy(mem + 1, s->v, s->n * sizeof *mem);
	free(s->mem);
	s->mem = mem;
	s->v = mem + 1;
	s->cap = cap;
	return 0;
}

int rs_insert(struct rankset *s, struct rs_key key, int64_t w)
{
	int32_t t;
	if (s->free_head >= 0) {
		t = s->free_head;
		s->free_head = s->v[t].l;
	} else {
		if (s->n == s->cap && grow(s))
			return -SIM_ENOMEM;
		t = (int32_t)s->n++;
	}
	s->v[t] = (struct rs_node){ .key = key, .w = w, .sum = w, .min = w, .prio = next_prio(s), .l = -1, .r = -1 };
	insert_in_place(s, t);
	s->size++;
	return 0;
}

/* Removes key by split and merge; the removed node, or -1. */
static int32_t erase_by_split(struct rankset *s, struct rs_key key)
{
	int32_t a, b, m, c;
	split(s, s->root, key, 0, &a, &b);
	split(s, b, key, 1, &m, &c);
	s->root = merge(s, a, c);
	return m;
}

/* Finds key down the search path, puts the merge of its children in its place and
 * recomputes the sums of the nodes passed. The removed node, or -1. */
static int32_t erase_in_place(struct rankset *s, struct rs_key key)
{
	int32_t path[RS_PATH_MAX];
	int d = 0;
	int32_t *link = &s->root;
	while (*link >= 0 && !same(s->v[*link].key, key)) {
		if (d == rankset_test_path_max)
			return erase_by_split(s, key);
		path[d++] = *link;
		link = rs_key_lt(key, s->v[*link].key) ? &s->v[*link].l : &s->v[*link].r;
	}
	int32_t m = *link;
	if (m < 0)
		return -1;
	*link = merge(s, s->v[m].l, s->v[m].r);
	/* The nodes passed lose m's weight; a node whose minimum is below it keeps its
	 * minimum (some other element holds it), the others recompute theirs from their
	 * children (already up to date: the path is walked upwards). */
	const int64_t w = s->v[m].w;
	while (d--) {
		struct rs_node *n = &s->v[path[d]];
		if (n->min < w)
			n->sum -= w;
		else
			pull(s, path[d]);
	}
	return m;
}

int rs_erase(struct rankset *s, struct rs_key key)
{
	int32_t m = erase_in_place(s, key);
	if (m < 0)
		return 0;
	s->v[m].l = s->free_head; /* one node: keys are unique */
	s->free_head = m;
	s->size--;
	return 1;
}

int64_t rs_sum_below(const struct rankset *s, struct rs_key key)
{
	int64_t acc = 0;
	for (int32_t t = s->root; t >= 0;) {
		if (rs_key_lt(s->v[t].key, key)) {
			acc += s->v[t].w + s->v[s->v[t].l].sum; /* the sentinel when none */
			t = s->v[t].r;
		} else {
			t = s->v[t].l;
		}
	}
	return acc;
}

int rs_next(const struct rankset *s, struct rs_key key, int incl, struct rs_key *out, int64_t *w)
{
	int32_t best = -1;
	for (int32_t t = s->root; t >= 0;) {
		int after = incl ? !rs_key_lt(s->v[t].key, key) : rs_key_lt(key, s->v[t].key);
		if (after) {
			best = t;
			t = s->v[t].l;
		} else {
			t = s->v[t].r;
		}
	}
	if (best < 0)
		return 0;
	*out = s->v[best].key;
	*w = s->v[best].w;
	return 1;
}

int rs_first_exceeding(const struct rankset *s, int64_t total, struct rs_key *out, int64_t *w)
{
	if (sum_of(s, s->root) <= total)
		return 0;
	if (total < 0) /* the first element exceeds it, whatever its weight */
		return rs_next(s, (struct rs_key){ INT64_MIN, 0 }, 1, out, w);
	int32_t t = s->root;
	for (;;) {
		int64_t ls = s->v[s->v[t].l].sum;
		if (ls > total) {
			t = s->v[t].l;
		} else if (ls + s->v[t].w > total) {
			*out = s->v[t].key;
			*w = s->v[t].w;
			return 1;
		} else {
			total -= ls + s->v[t].w;
			t = s->v[t].r;
		}
	}
}

/* First node > key with weight <= maxw in subtree t (subtrees too heavy are skipped). */
static int32_t next_fit(const struct rankset *s, int32_t t, struct rs_key key, int64_t maxw)
{
	if (t < 0 || s->v[t].min > maxw)
		return -1;
	if (!rs_key_lt(key, s->v[t].key))
		return next_fit(s, s->v[t].r, key, maxw);
	int32_t f = next_fit(s, s->v[t].l, key, maxw);
	if (f >= 0)
		return f;
	if (s->v[t].w <= maxw)
		return t;
	return next_fit(s, s->v[t].r, key, maxw);
}

int rs_next_fit(const struct rankset *s, struct rs_key key, int64_t maxw, struct rs_key *out, int64_t *w)
{
	int32_t t = next_fit(s, s->root, key, maxw);
	if (t < 0)
		return 0;
	*out = s->v[t].key;
	*w = s->v[t].w;
	return 1;
}

int64_t rs_sum(const struct rankset *s)
{
	return sum_of(s, s->root);
}

int64_t rs_min(const struct rankset *s)
{
	return min_of(s, s->root);
}

void rs_cursor_init(struct rs_cursor *c, const struct rankset *s)
{
	c->s = s;
	c->depth = c->deep = c->started = c->given = 0;
	c->last = (struct rs_key){ INT64_MIN, 0 };
}

/* The first node of subtree t with weight <= maxw, or -1. */
static int32_t first_fit(const struct rankset *s, int32_t t, int64_t maxw)
{
	while (t >= 0 && s->v[t].min <= maxw) {
		if (s->v[s->v[t].l].min <= maxw)
			t = s->v[t].l;
		else if (s->v[t].w <= maxw)
			return t;
		else
			t = s->v[t].r;
	}
	return -1;
}

/* Pushes t and its left spine, up to the first subtree with nothing within maxw. */
static void cursor_descend(struct rs_cursor *c, int32_t t, int64_t maxw)
{
	const struct rankset *s = c->s;
	for (; t >= 0 && s->v[t].min <= maxw; t = s->v[t].l) {
		if (c->depth == RS_CURSOR_DEPTH || c->depth == rankset_test_path_max) {
			c->deep = 1;
			return;
		}
		c->stack[c->depth++] = t;
	}
}

int rs_cursor_next(struct rs_cursor *c, int64_t maxw, struct rs_key *out, int64_t *w)
{
	const struct rankset *s = c->s;
	if (!c->started) {
		c->started = 1;
		cursor_descend(c, s->root, maxw);
	}
	while (!c->deep && c->depth) {
		int32_t t = c->stack[--c->depth];
		if (s->v[t].min > maxw)
			continue; /* t and its right subtree (its left one is done) */
		cursor_descend(c, s->v[t].r, maxw);
		if (s->v[t].w <= maxw) {
			c->given = 1;
			c->last = *out = s->v[t].key;
			*w = s->v[t].w;
			return 1;
		}
	}
	if (!c->deep)
		return 0;
	/* Deeper than the stack (vanishingly rare): from the root each time. */
	int32_t t = c->given ? next_fit(s, s->root, c->last, maxw) : first_fit(s, s->root, maxw);
	if (t < 0)
		return 0;
	c->given = 1;
	c->last = *out = s->v[t].key;
	*w = s->v[t].w;
	return 1;
}

/* ---- rs_blocks ---- */

void rs_blocks_init(struct rs_blocks *s)
{
	*s = (struct rs_blocks){ 0 };
}

void rs_blocks_fini(struct rs_blocks *s)
{
	for (size_t i = 0; i < s->nb; i++)
		free(s->b[i]);
	free(s->b);
	free(s->first);
	free(s->pre);
	free(s->spare);
	rs_blocks_init(s);
}

/* The block that holds key or would: the last one whose first key is <= key (block
 * 0 when key is below all). nb > 0. */
static size_t blk_of(const struct rs_blocks *s, struct rs_key key)
{
	size_t lo = 0, hi = s->nb; /* answer in [lo, hi) */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (rs_key_lt(key, s->first[mid]))
			hi = mid;
		else
			lo = mid;
	}
	return lo;
}

/* Position of the first entry of block b that is >= key (> key when after). */
static uint32_t pos_in(const struct rs_blk *b, struct rs_key key, int after)
{
	uint32_t lo = 0, hi = b->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int before = after ? !rs_key_lt(key, b->e[mid].key) : rs_key_lt(b->e[mid].key, key);
		if (before)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int64_t blk_sum(const struct rs_blk *b, uint32_t from, uint32_t to)
{
	int64_t acc = 0;
	for (uint32_t i = from; i < to; i++)
		acc += b->e[i].w;
	return acc;
}

/* Room for one more directory entry; 0 or -SIM_ENOMEM (nothing lost). */
static int dir_reserve(struct rs_blocks *s)
{
	if (s->nb < s->cap)
		return 0;
	size_t cap = s->cap ? 2 * s->cap : 16;
	struct rs_blk **b = realloc(s->b, cap * sizeof *b);
	if (!b)
		return -SIM_ENOMEM;
	s->b = b;
	struct rs_key *f = realloc(s->first, cap * sizeof *f);
	if (!f)
		return -SIM_ENOMEM;
	s->first = f;
	int64_t *pre = realloc(s->pre, (cap + 1) * sizeof *pre);
	if (!pre)
		return -SIM_ENOMEM;
	if (!s->pre)
		pre[0] = 0;
	s->pre = pre;
	s->cap = cap;
	return 0;
}

static struct rs_blk *blk_new(struct rs_blocks *s)
{
	struct rs_blk *b = s->spare;
	if (b) {
		s->spare = NULL;
		return b;
	}
	return malloc(sizeof *b);
}

/* A new block at directory entry i, after blocks whose weights sum to before (its
 * own weights are added by the caller to pre[i + 1 ..]); room reserved. */
static void dir_insert(struct rs_blocks *s, size_t i, struct rs_blk *nbk, int64_t before)
{
	memmove(&s->b[i + 1], &s->b[i], (s->nb - i) * sizeof *s->b);
	memmove(&s->first[i + 1], &s->first[i], (s->nb - i) * sizeof *s->first);
	memmove(&s->pre[i + 1], &s->pre[i], (s->nb + 1 - i) * sizeof *s->pre);
	s->pre[i] = before;
	s->b[i] = nbk;
	s->first[i] = nbk->n ? nbk->e[0].key : (struct rs_key){ 0, 0 };
	s->nb++;
}

/* Drops block i and the boundary pre[i] before it (block i is empty, so pre[i] equals
 * pre[i + 1], or its entries went to block i - 1, whose sum then runs to pre[i + 1]).
 * The block is kept as the spare, or freed. */
static void dir_remove(struct rs_blocks *s, size_t i)
{
	if (s->spare)
		free(s->b[i]);
	else
		s->spare = s->b[i];
	memmove(&s->b[i], &s->b[i + 1], (s->nb - i - 1) * sizeof *s->b);
	memmove(&s->first[i], &s->first[i + 1], (s->nb - i - 1) * sizeof *s->first);
	memmove(&s->pre[i], &s->pre[i + 1], (s->nb - i) * sizeof *s->pre);
	s->nb--;
	if (i == 0)
		s->pre[0] = 0; /* the first block's entries went nowhere: it was empty */
}

/* Splits full block i into two halves (the upper one a new block i + 1). */
static int blk_split(struct rs_blocks *s, size_t i)
{
	if (dir_reserve(s))
		return -SIM_ENOMEM;
	struct rs_blk *hi = blk_new(s);
	if (!hi)
		return -SIM_ENOMEM;
	struct rs_blk *lo = s->b[i];
	uint32_t half = lo->n / 2;
	hi->n = lo->n - half;
	memcpy(hi->e, &lo->e[half], hi->n * sizeof *hi->e);
	lo->n = half;
	dir_insert(s, i + 1, hi, s->pre[i] + blk_sum(lo, 0, half));
	return 0;
}

/* Adds d to the sums before every block after block i. */
static void pre_add(struct rs_blocks *s, size_t i, int64_t d)
{
	int64_t *pre = s->pre; /* locals: the stores cannot alias nb, the loop vectorizes */
	const size_t nb = s->nb;
	for (size_t k = i + 1; k <= nb; k++)
		pre[k] += d;
}

int rs_blocks_insert(struct rs_blocks *s, struct rs_key key, int64_t w)
{
	if (!s->nb) {
		if (dir_reserve(s))
			return -SIM_ENOMEM;
		struct rs_blk *b = blk_new(s);
		if (!b)
			return -SIM_ENOMEM;
		b->n = 0;
		dir_insert(s, 0, b, 0);
	}
	size_t i = blk_of(s, key);
	if (s->b[i]->n == RS_BLOCK) {
		if (blk_split(s, i))
			return -SIM_ENOMEM;
		if (!rs_key_lt(key, s->first[i + 1]))
			i++;
	}
	struct rs_blk *b = s->b[i];
	uint32_t p = pos_in(b, key, 0);
	memmove(&b->e[p + 1], &b->e[p], (b->n - p) * sizeof *b->e);
	b->e[p] = (struct rs_ent){ key, w };
	b->n++;
	if (p == 0)
		s->first[i] = key;
	pre_add(s, i, w);
	s->total += w;
	s->size++;
	return 0;
}

int rs_blocks_erase(struct rs_blocks *s, struct rs_key key)
{
	if (!s->nb)
		return 0;
	size_t i = blk_of(s, key);
	struct rs_blk *b = s->b[i];
	uint32_t p = pos_in(b, key, 0);
	if (p == b->n || !same(b->e[p].key, key))
		return 0;
	int64_t w = b->e[p].w;
	memmove(&b->e[p], &b->e[p + 1], (b->n - p - 1) * sizeof *b->e);
	b->n--;
	pre_add(s, i, -w);
	s->total -= w;
	s->size--;
	if (!b->n) {
		dir_remove(s, i);
		return 1;
	}
	if (p == 0)
		s->first[i] = b->e[0].key;
	/* Merge with a neighbour when the two fit in half a block (bounds the count). */
	size_t j = i + 1 < s->nb && b->n + s->b[i + 1]->n <= RS_BLOCK / 2 ? i
		   : i > 0 && b->n + s->b[i - 1]->n <= RS_BLOCK / 2 ? i - 1 : s->nb;
	if (j < s->nb) {
		struct rs_blk *lo = s->b[j], *hi = s->b[j + 1];
		memcpy(&lo->e[lo->n], hi->e, hi->n * sizeof *hi->e);
		lo->n += hi->n;
		dir_remove(s, j + 1);
	}
	return 1;
}

int64_t rs_blocks_sum_below(const struct rs_blocks *s, struct rs_key key)
{
	if (!s->nb)
		return 0;
	size_t i = blk_of(s, key);
	return s->pre[i] + blk_sum(s->b[i], 0, pos_in(s->b[i], key, 0));
}

int rs_blocks_next(const struct rs_blocks *s, struct rs_key key, int incl, struct rs_key *out, int64_t *w)
{
	if (!s->nb)
		return 0;
	size_t i = blk_of(s, key);
	uint32_t p = pos_in(s->b[i], key, !incl);
	if (p == s->b[i]->n) { /* the next block's first, if any */
		if (++i == s->nb)
			return 0;
		p = 0;
	}
	*out = s->b[i]->e[p].key;
	*w = s->b[i]->e[p].w;
	return 1;
}

int rs_blocks_first_exceeding(const struct rs_blocks *s, int64_t total, struct rs_key *out, int64_t *w)
{
	if (s->total <= total)
		return 0;
	size_t i = 0;
	if (total >= 0) { /* the first block whose end sum pre[i + 1] exceeds total (weights >= 0) */
		size_t lo = 0, hi = s->nb - 1; /* pre[nb] = total of the set > total: answer <= nb - 1 */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (s->pre[mid + 1] <= total)
				lo = mid + 1;
			else
				hi = mid;
		}
		i = lo;
		total -= s->pre[i];
	}
	const struct rs_blk *b = s->b[i];
	uint32_t p = 0;
	while (total >= 0 && b->e[p].w <= total) /* this block's sum exceeds what is left */
		total -= b->e[p++].w;
	*out = b->e[p].key;
	*w = b->e[p].w;
	return 1;
}

/* ---- rs_log ---- */

void rs_log_init(struct rs_log *s, uint32_t *pos_of)
{
	*s = (struct rs_log){ .pos_of = pos_of };
}

void rs_log_fini(struct rs_log *s)
{
	free(s->key);
	free(s->w);
	free(s->live);
	free(s->bit);
	rs_log_init(s, s->pos_of);
}

static void bit_add(struct rs_log *s, size_t pos, int64_t d)
{
	for (size_t i = pos + 1; i <= s->cap; i += i & (~i + 1))
		s->bit[i] += d;
}

int64_t rs_log_prefix(const struct rs_log *s, size_t pos)
{
	int64_t acc = 0;
	for (size_t i = pos; i > 0; i -= i & (~i + 1))
		acc += s->bit[i];
	return acc;
}

/* The Fenwick tree of w[0, n) over cap positions, in O(cap). */
static void bit_build(struct rs_log *s)
{
	for (size_t i = 1; i <= s->cap; i++)
		s->bit[i] = i <= s->n ? s->w[i - 1] : 0;
	for (size_t i = 1; i <= s->cap; i++) {
		size_t j = i + (i & (~i + 1));
		if (j <= s->cap)
			s->bit[j] += s->bit[i];
	}
}

/* Drops the holes (positions move; keys keep their order). */
static void log_compact(struct rs_log *s)
{
	size_t m = 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->live[i]) {
			s->key[m] = s->key[i];
			s->w[m] = s->w[i];
			s->live[m] = 1;
			if (s->pos_of)
				s->pos_of[s->key[m].idx] = (uint32_t)m;
			m++;
		}
	s->n = m;
	bit_build(s);
}

static int log_grow(struct rs_log *s)
{
	size_t cap = s->cap ? 2 * s->cap : 64;
	struct rs_key *k = realloc(s->key, cap * sizeof *k);
	if (!k)
		return -SIM_ENOMEM;
	s->key = k;
	int64_t *w = realloc(s->w, cap * sizeof *w);
	if (!w)
		return -SIM_ENOMEM;
	s->w = w;
	uint8_t *l = realloc(s->live, cap);
	if (!l)
		return -SIM_ENOMEM;
	s->live = l;
	int64_t *b = realloc(s->bit, (cap + 1) * sizeof *b);
	if (!b)
		return -SIM_ENOMEM;
	s->bit = b;
	s->cap = cap; /* every array has room for cap: a failure above left them usable */
	bit_build(s);
	return 0;
}

int rs_log_append(struct rs_log *s, struct rs_key key, int64_t w)
{
	if (s->n == s->cap) {
		if (s->size <= s->n / 2 && s->n >= 64)
			log_compact(s);
		else if (log_grow(s))
			return -SIM_ENOMEM;
	}
	size_t pos = s->n++;
	s->key[pos] = key;
	s->w[pos] = w;
	s->live[pos] = 1;
	if (s->pos_of)
		s->pos_of[key.idx] = (uint32_t)pos;
	bit_add(s, pos, w);
	s->size++;
	s->total += w;
	return 0;
}

/* The first position whose key is >= key (n if none). */
static size_t log_lower(const struct rs_log *s, struct rs_key key)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (rs_key_lt(s->key[mid], key))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int rs_log_erase(struct rs_log *s, struct rs_key key)
{
	size_t pos = s->pos_of ? s->pos_of[key.idx] : s->n;
	if (pos >= s->n || !same(s->key[pos], key)) /* not indexed, or not here */
		pos = log_lower(s, key);
	if (pos == s->n || !same(s->key[pos], key) || !s->live[pos])
		return 0;
	bit_add(s, pos, -s->w[pos]);
	s->total -= s->w[pos];
	s->w[pos] = 0;
	s->live[pos] = 0;
	s->size--;
	if (s->n >= 64 && s->size < s->n / 4) /* holes stay under 3/4 of the positions */
		log_compact(s);
	return 1;
}

int64_t rs_log_sum_below(const struct rs_log *s, struct rs_key key)
{
	return rs_log_prefix(s, log_lower(s, key));
}

ptrdiff_t rs_log_first_exceeding(const struct rs_log *s, int64_t total)
{
	if (s->total <= total)
		return -1;
	if (total < 0) /* the first element exceeds it, whatever its weight (holes have none) */
		return rs_log_next(s, -1);
	size_t pos = 0, step = 1;
	while (step * 2 <= s->cap)
		step *= 2;
	for (; step; step /= 2)
		if (pos + step <= s->cap && s->bit[pos + step] <= total) {
			pos += step;
			total -= s->bit[pos];
		}
	return (ptrdiff_t)pos; /* prefix(pos) <= total < prefix(pos + 1) */
}

ptrdiff_t rs_log_next(const struct rs_log *s, ptrdiff_t pos)
{
	for (size_t i = (size_t)(pos + 1); i < s->n; i++)
		if (s->live[i])
			return (ptrdiff_t)i;
	return -1;
}
