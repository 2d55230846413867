/* policies/rankset.c: treap with subtree sums (rankset.h). */
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
