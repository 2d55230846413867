/* policies/rankset.c: treap with subtree sums (rankset.h). */
#include <stdlib.h>

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
	free(s->v);
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

static void pull(struct rankset *s, int32_t t)
{
	struct rs_node *n = &s->v[t];
	n->sum = n->w + sum_of(s, n->l) + sum_of(s, n->r);
	int64_t m = n->w, ml = min_of(s, n->l), mr = min_of(s, n->r);
	n->min = m < ml ? (m < mr ? m : mr) : (ml < mr ? ml : mr);
}

/* Splits t into (< key) and (>= key), or (<= key) and (> key) when le. */
static void split(struct rankset *s, int32_t t, struct rs_key key, int le, int32_t *a, int32_t *b)
{
	if (t < 0) {
		*a = *b = -1;
		return;
	}
	int left = le ? !rs_key_lt(key, s->v[t].key) : rs_key_lt(s->v[t].key, key);
	if (left) {
		split(s, s->v[t].r, key, le, &s->v[t].r, b);
		*a = t;
	} else {
		split(s, s->v[t].l, key, le, a, &s->v[t].l);
		*b = t;
	}
	pull(s, t);
}

static int32_t merge(struct rankset *s, int32_t a, int32_t b)
{
	if (a < 0)
		return b;
	if (b < 0)
		return a;
	if (s->v[a].prio > s->v[b].prio) {
		s->v[a].r = merge(s, s->v[a].r, b);
		pull(s, a);
		return a;
	}
	s->v[b].l = merge(s, a, s->v[b].l);
	pull(s, b);
	return b;
}

static uint32_t next_prio(struct rankset *s)
{
	uint32_t x = s->rng; /* xorshift32: fixed seed, same shape every run */
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return s->rng = x;
}

/* Deepest path the in-place insert and erase record; a deeper one (vanishingly
 * rare with random priorities) takes the split and merge path instead. */
#define RS_PATH_MAX 96
int rankset_test_path_max = RS_PATH_MAX; /* tests lower it to run the deep-path fallback */

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

int rs_insert(struct rankset *s, struct rs_key key, int64_t w)
{
	int32_t t;
	if (s->free_head >= 0) {
		t = s->free_head;
		s->free_head = s->v[t].l;
	} else {
		struct rs_node *nv = sim_grow(s->v, &s->cap, s->n, sizeof *nv, 64);
		if (!nv)
			return -SIM_ENOMEM;
		s->v = nv;
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
			acc += s->v[t].w + sum_of(s, s->v[t].l);
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
	int32_t t = s->root;
	for (;;) {
		int64_t ls = sum_of(s, s->v[t].l);
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
		if (min_of(s, s->v[t].l) <= maxw)
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
