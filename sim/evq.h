/* sim/evq.h: the pending-event set, a binary heap ordered by (t, phase, seq).
 *
 * seq is assigned by push in increasing order, so events at the same time and
 * phase pop in push order; ties are never broken on pointers or floats.
 * Cancel is lazy: a cancelled event stays in the heap and is skipped by pop.
 * Cost: push and pop O(log n); cancel O(1) amortised (a hash set of ids).
 */
#ifndef SIM_EVQ_H
#define SIM_EVQ_H

#include "sim.h"

/* Order of events at one timestamp: finishes free capacity before submits ask for it. */
enum sim_ev_phase {
	EV_FINISH = 0,       /* a job ends (completion or time limit) */
	EV_PREEMPT_DONE = 1, /* a victim has released its resources */
	EV_CAPACITY = 2,     /* capacity changes (the capacity plan) and policies' timed changes (quota, priority) */
	EV_SUBMIT = 3,       /* a job arrives */
	EV_TIMEOUT = 4,      /* a job's pending limit (max_pending_s) runs out */
	EV_TICK = 5,         /* periodic policy hooks */
	EV_PHASE_COUNT_
};

struct sim_event {
	sim_time_t t;
	uint8_t phase;  /* enum sim_ev_phase */
	uint64_t seq;   /* set by push; unique, increasing; also the event id */
	uint32_t job;   /* job index, or an argument for non-job events */
	int64_t arg;    /* event-specific (e.g. capacity delta) */
};

struct sim_evq; /* opaque */

struct sim_evq *sim_evq_create(size_t capacity_hint);
void sim_evq_destroy(struct sim_evq *q); /* NULL is a no-op */
/* Copies *ev (seq ignored), assigns seq; *id_out (may be NULL) gets it. A failed push changes nothing. */
int sim_evq_push(struct sim_evq *q, const struct sim_event *ev, uint64_t *id_out);
/* Removes the earliest live event into *out; -SIM_EEMPTY when none. */
int sim_evq_pop(struct sim_evq *q, struct sim_event *out);
/* Earliest live event without removing it; -SIM_EEMPTY when none. */
int sim_evq_peek(struct sim_evq *q, struct sim_event *out);
/* Marks an event id dead; popping skips it. Unknown or popped ids are ignored. */
void sim_evq_cancel(struct sim_evq *q, uint64_t id);
size_t sim_evq_size(const struct sim_evq *q);
/* Entries in the heap, cancelled ones not yet dropped included (tests: the heap
 * stays within about twice the live events). */
size_t sim_evq_heap_len(const struct sim_evq *q); /* live events */

#endif
