/* sim/evq.c: binary min-heap of events keyed by (t, phase, seq), lazy cancellation.
 *
 * Cancelled ids sit in an open-addressing hash set until their event is popped,
 * or until the cancelled events are half the heap, when they are all dropped at
 * once (compact): the set only ever holds ids of events still in the heap, and the
 * heap holds at most about twice the live events. Size of an entry: 40 bytes.
 *
 * Peek and pop look heap[0] up in the set only when it may have changed since the
 * last look (top_live): the engine peeks several times an event, and under heavy
 * preemption the set is never empty.
 *
 * Pop uses Floyd's sift-down (below). Tried and measured slower on the 10,000-GPU
 * benchmark (about 7,000 pending events): a 4-ary heap, and 32-byte entries with
 * phase and seq packed into one key.
 */
#include "evq.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

struct sim_evq {
	struct sim_event *heap;
	size_t n, cap;
	uint64_t next_seq;  /* ids start at 1; 0 means "no event" to callers */
	uint64_t *dead;     /* hash set of cancelled ids, 0 = empty slot */
	size_t dead_n, dead_cap; /* dead_cap is a power of two */
	size_t dead_live;   /* cancelled events still in the heap */
	int top_live;       /* 1: heap[0] is known not cancelled (peek and pop skip the set's
			     * look-up); cleared whenever heap[0] may have changed or died */
};

static inline int ev_less(const struct sim_event *a, const struct sim_event *b)
{
	if (a->t != b->t)
		return a->t < b->t;
	if (a->phase != b->phase)
		return a->phase < b->phase;
	return a->seq < b->seq;
}

struct sim_evq *sim_evq_create(size_t capacity_hint)
{
	struct sim_evq *q = calloc(1, sizeof *q);
	if (!q)
		return NULL;
	q->cap = capacity_hint > 16 ? capacity_hint : 16;
	q->heap = malloc(q->cap * sizeof *q->heap);
	if (!q->heap) {
		free(q);
		return NULL;
	}
	q->next_seq = 1;
	return q;
}

void sim_evq_destroy(struct sim_evq *q)
{
	if (!q)
		return;
	free(q->heap);
	free(q->dead);
	free(q);
}

static void sift_up(struct sim_event *h, size_t i)
{
	struct sim_event ev = h[i];
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!ev_less(&ev, &h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = ev;
}

/* Puts ev at the root of h[0 .. n) (the root's old event is gone) and restores the
 * heap. Floyd's variant: the hole goes down to a leaf along the smaller children
 * (one comparison a level), then ev climbs back up from there. ev is the heap's
 * last event, a late one, so it seldom climbs far: about half the comparisons of
 * a textbook sift-down, which compares ev at every level too. */
static void sift_down_from_root(struct sim_event *h, size_t n, const struct sim_event *ev)
{
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && ev_less(&h[c + 1], &h[c]))
			c++;
		h[i] = h[c];
		i = c;
	}
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!ev_less(ev, &h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = *ev;
}

int sim_evq_push(struct sim_evq *q, const struct sim_event *ev, uint64_t *id_out)
{
	if (q->n == q->cap) {
		size_t ncap = q->cap * 2;
		struct sim_event *nh = realloc(q->heap, ncap * sizeof *nh);
		if (!nh)
			return -SIM_ENOMEM;
		q->heap = nh;
		q->cap = ncap;
	}
	struct sim_event e = *ev;
	e.seq = q->next_seq++;
	q->heap[q->n] = e;
	sift_up(q->heap, q->n);
	q->n++;
	if (q->heap[0].seq == e.seq)
		q->top_live = 1; /* the new event is the root, and a new event is live */
	if (id_out)
		*id_out = e.seq;
	return 0;
}

static size_t dead_slot(const struct sim_evq *q, uint64_t id)
{
	/* Fibonacci hashing; dead_cap is a power of two. */
	return (size_t)((id * 0x9E3779B97F4A7C15ull) >> 20) & (q->dead_cap - 1);
}

static int dead_contains(const struct sim_evq *q, uint64_t id)
{
	if (!q->dead_n)
		return 0;
	for (size_t i = dead_slot(q, id);; i = (i + 1) & (q->dead_cap - 1)) {
		if (q->dead[i] == id)
			return 1;
		if (q->dead[i] == 0)
			return 0;
	}
}

/* Removes id with backward-shift deletion, keeping probe chains intact. */
static void dead_remove(struct sim_evq *q, uint64_t id)
{
	size_t mask = q->dead_cap - 1, i = dead_slot(q, id);
	while (q->dead[i] != id) {
		if (q->dead[i] == 0)
			return;
		i = (i + 1) & mask;
	}
	q->dead[i] = 0;
	q->dead_n--;
	for (size_t j = (i + 1) & mask; q->dead[j]; j = (j + 1) & mask) {
		size_t home = dead_slot(q, q->dead[j]);
		/* Move dead[j] into the hole at i if its home is not in (i, j]. */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			q->dead[i] = q->dead[j];
			q->dead[j] = 0;
			i = j;
		}
	}
}

static int dead_insert(struct sim_evq *q, uint64_t id)
{
	if ((q->dead_n + 1) * 2 > q->dead_cap) {
		size_t ncap = q->dead_cap ? q->dead_cap * 2 : 64;
		uint64_t *old = q->dead;
		size_t ocap = q->dead_cap;
		q->dead = calloc(ncap, sizeof *q->dead);
		if (!q->dead) {
			q->dead = old;
			return -SIM_ENOMEM;
		}
		q->dead_cap = ncap;
		q->dead_n = 0;
		for (size_t i = 0; i < ocap; i++)
			if (old[i])
				dead_insert(q, old[i]);
		free(old);
	}
	size_t i = dead_slot(q, id);
	while (q->dead[i] && q->dead[i] != id)
		i = (i + 1) & (q->dead_cap - 1);
	if (q->dead[i] == id)
		return 0;
	q->dead[i] = id;
	q->dead_n++;
	return 0;
}

/* Textbook sift-down of h[i] in h[0 .. n). */
static void sift_down(struct sim_event *h, size_t n, size_t i)
{
	struct sim_event ev = h[i];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && ev_less(&h[c + 1], &h[c]))
			c++;
		if (!ev_less(&h[c], &ev))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = ev;
}

/* Drops every cancelled event from the heap at once and rebuilds it (Floyd's
 * heapify, O(n)). The order of the live events is the total order (t, phase, seq),
 * whatever the heap's layout, so pops are unchanged; the heap just stops carrying
 * the dead (a preempted job's finish event lies far in the future, and under heavy
 * preemption they would outnumber the live ones and slow every pop). */
static void compact(struct sim_evq *q)
{
	size_t k = 0;
	for (size_t i = 0; i < q->n; i++) {
		if (dead_contains(q, q->heap[i].seq))
			dead_remove(q, q->heap[i].seq);
		else
			q->heap[k++] = q->heap[i];
	}
	q->n = k;
	q->dead_live = 0;
	q->top_live = 0;
	for (size_t i = k / 2; i-- > 0;)
		sift_down(q->heap, k, i);
}

/* Compaction pays for itself once the dead are half the heap: each costs O(n) and
 * removes at least n/2 events, so O(1) amortized a cancellation. */
#define COMPACT_MIN_DEAD 256

void sim_evq_cancel(struct sim_evq *q, uint64_t id)
{
	if (id == 0 || id >= q->next_seq || dead_contains(q, id))
		return;
	/* Only ids still in the heap may enter the set: a popped id is never seen again.
	 * Checking membership would be O(n); callers cancel only events they know are
	 * pending (a running job's finish), which the engine guarantees. */
	if (dead_insert(q, id) == 0)
		q->dead_live++;
	if (q->n && q->heap[0].seq == id)
		q->top_live = 0;
	if (q->dead_live >= COMPACT_MIN_DEAD && q->dead_live * 2 > q->n)
		compact(q);
}

static void pop_root(struct sim_evq *q)
{
	q->top_live = 0;
	q->n--;
	if (q->n) {
		struct sim_event last = q->heap[q->n];
		sift_down_from_root(q->heap, q->n, &last);
	}
}

/* Drops cancelled events from the top so heap[0] is live. */
static inline void skip_dead(struct sim_evq *q)
{
	while (q->n && !q->top_live) {
		if (!q->dead_n || !dead_contains(q, q->heap[0].seq)) {
			q->top_live = 1;
			return;
		}
		dead_remove(q, q->heap[0].seq);
		q->dead_live--;
		pop_root(q);
	}
}

int sim_evq_peek(struct sim_evq *q, struct sim_event *out)
{
	skip_dead(q);
	if (!q->n)
		return -SIM_EEMPTY;
	*out = q->heap[0];
	return 0;
}

int sim_evq_pop(struct sim_evq *q, struct sim_event *out)
{
	skip_dead(q);
	if (!q->n)
		return -SIM_EEMPTY;
	*out = q->heap[0];
	pop_root(q);
	return 0;
}

size_t sim_evq_heap_len(const struct sim_evq *q)
{
	return q->n;
}

size_t sim_evq_size(const struct sim_evq *q)
{
	assert(q->n >= q->dead_live);
	return q->n - q->dead_live;
}
