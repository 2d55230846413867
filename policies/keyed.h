/* policies/keyed.h: a queue of waiting jobs ranked by the order policy's own
 * order_key (sim/hooks.h), for order policies that run their own pass.
 *
 * With it, a key-ranked order policy is its params, its state updates (on_start,
 * on_stop, on_tick) and an order_key function, plus thin on_submit, on_stop and
 * pick wrappers around these calls. Ties: queue order time (sim_job_order_ns: the
 * submit time, unless a fault restart went to the back of the queue), then trace index. When the
 * policy calls sim_view_order_changed, the next pick keys every waiting job again
 * (O(n) keys and a heapify), also within a pass: after each accepted start the
 * policy's on_reserve is called, and a key change it reports re-keys the rest.
 * Memory: one entry per waiting job, owned here.
 */
#ifndef POLICIES_KEYED_H
#define POLICIES_KEYED_H

#include "policy.h"

struct keyed_entry {
	struct sim_order_key key;
	sim_time_t submit_ns; /* its queue order time, sim_job_order_ns (the submit time by default) */
	uint32_t idx; /* job index */
};

struct keyed_order {
	struct keyed_entry *heap; /* binary min-heap on (key, submit, idx) */
	size_t n, cap;
	struct keyed_entry *held; /* scratch of a non-blocking pick: heads that did not fit */
	size_t cap_held;
	uint64_t held_gen;        /* gen when this pass began: held heads re-keyed if it moved */
	uint64_t gen;             /* sim_view_order_gen the keys were computed at */
	int blocking;             /* 1: a head that does not fit ends the pass (no job overtakes it) */
	int oom;                  /* a push failed: the next pick returns -SIM_ENOMEM */
};

/* blocking = 1: strict order, a head that does not fit blocks the jobs behind it
 * (as fifo and priority); 0: it is passed over and the next one tried (no
 * head-of-line blocking; each pass then tries every waiting job, O(n log n)). */
void keyed_order_init(struct keyed_order *ko, int blocking);
void keyed_order_fini(struct keyed_order *ko);
/* on_submit: the job joins, keyed now. */
void keyed_order_on_submit(struct keyed_order *ko, struct sim_policy *pol, const struct sim_view *v,
			   const struct sim_job *job);
/* on_stop: a job queued again (requeued after a preemption or a capacity removal)
 * joins again; any other stop changes nothing here (a job that left the queue is
 * dropped when it comes to the top). */
void keyed_order_on_stop(struct keyed_order *ko, struct sim_policy *pol, const struct sim_view *v,
			 const struct sim_job *job, enum sim_stop_cause cause);
/* pick: proposes waiting jobs in key order with sim_placement_buf_try(job, -1)
 * (the fallback policy chooses the option). Returns 0 or -SIM_E*. */
int keyed_order_pick(struct keyed_order *ko, struct sim_policy *pol, const struct sim_view *v,
		     struct sim_placement_buf *out);

#endif
