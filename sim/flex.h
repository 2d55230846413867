/* sim/flex.h: flex-start flavors, capacity provisioned per job request, all at
 * once or not at all (docs/capacity.md, "Flex-start"), as a config states them
 * ($.cluster.flavors[i].flex, experiments/README.md).
 *
 * The model is GCP Dynamic Workload Scheduler's flex-start through Kueue's
 * ProvisioningRequest admission check: a job that wants the flavor asks for all
 * the nodes it needs in one request; the request is served (every node arrives
 * together, the job starts on them) after a wait drawn from a law, or fails (a
 * probability, or a longest wait); a failed request is tried again after a backoff
 * that doubles (Kueue's retryStrategy); a running job's nodes are taken back after
 * a maximum run duration. What the engine does with it is sim/engine.c,
 * "flex-start".
 *
 * The plan is immutable during runs. The k-th request of job j on flavor f draws
 * its wait and its failure from GSL generators seeded from (run seed, a tag of its
 * own, f, j, k) alone (sim/draws.h), so no other law moves them and they move
 * none.
 */
#ifndef SIM_FLEX_H
#define SIM_FLEX_H

#include "sim.h"

/* GCP flex-start's maximum run duration: 7 days. */
#define SIM_FLEX_MAX_RUN_DEFAULT_S (7.0 * 86400.0)
/* Kueue's ProvisioningRequestConfig retryStrategy defaults. */
#define SIM_FLEX_BACKOFF_BASE_DEFAULT_S 60.0
#define SIM_FLEX_BACKOFF_MAX_DEFAULT_S 1800.0
#define SIM_FLEX_RETRIES_DEFAULT 3

/* Laws of the provisioning wait: exactly the mean, or exponential with it. */
enum sim_flex_law { SIM_FLEX_FIXED = 0, SIM_FLEX_EXPONENTIAL };

/* One row of a capacity trace: from time t, one request of up to `nodes` nodes can
 * be served (an offer, taken by one request). */
struct sim_flex_offer {
	sim_time_t t;
	uint32_t nodes;
	uint32_t line; /* of the CSV, for messages */
};

struct sim_flex_flavor {
	uint8_t on;              /* 1: a flex-start flavor */
	uint8_t law;             /* enum sim_flex_law */
	double wait_s;           /* mean provisioning wait, s >= 0 */
	double fail_p;           /* probability that a request fails, [0, 1] */
	sim_time_t max_wait_ns;  /* a request not served within it fails then; 0 = no limit */
	sim_time_t max_run_ns;   /* the nodes are taken back this long after they arrived, > 0 */
	sim_time_t backoff_base_ns, backoff_max_ns; /* retry n waits min(base x 2^(n-1), max) */
	uint32_t retries;        /* retries after a failed request (Kueue's backoffLimitCount) */
	struct sim_flex_offer *offers; /* capacity trace, sorted by (t, line), owned; NULL: the law */
	size_t n_offers;
};

struct sim_flex {
	size_t n_flavors;
	struct sim_flex_flavor *fl; /* n_flavors entries */
};

struct sim_flex *sim_flex_create(size_t n_flavors); /* every flavor off */
void sim_flex_destroy(struct sim_flex *x);           /* NULL is a no-op */
/* Appends an offer to flavor f's capacity trace (sorted by sim_flex_finalize). */
int sim_flex_add_offer(struct sim_flex *x, int f, sim_time_t t, uint32_t nodes, uint32_t line);
void sim_flex_finalize(struct sim_flex *x);
/* 1 when flavor f (-1: any flavor) is flex-start; NULL: 0. */
int sim_flex_on(const struct sim_flex *x, int f);
/* The backoff before retry n (n = 1 after the first failed request), ns:
 * min(base x 2^(n-1), max), as Kueue's UpdateAdmissionCheckRequeueState (without
 * its jitter). */
sim_time_t sim_flex_backoff_ns(const struct sim_flex_flavor *ff, uint32_t n);

/* The outcome of one request: when it is answered (ns after it was made, >= 0) and
 * whether it is served then (1) or fails then (0). A request whose drawn wait
 * exceeds max_wait fails at max_wait; any other fails with probability fail_p, at
 * its drawn wait. */
struct sim_flex_outcome {
	sim_time_t after_ns;
	int served;
};
struct sim_draws;
struct sim_flex_outcome sim_flex_draw(const struct sim_flex *x, struct sim_draws *d, int f, uint32_t job,
				      uint64_t k);
/* The answer to a request of `need` nodes made at `now` on flavor f, with a
 * capacity trace: the first offer (in time order) not taken with t >= now and
 * nodes >= need is taken (taken[i] = 1; taken: the run's n_offers flags) and
 * serves it at t, unless t is more than max_wait after now (then it fails at
 * max_wait, the offer left) or the failure draw fails it (at t, the offer left).
 * No such offer: it fails at max_wait, or *never = 1 when there is no limit (the
 * request is never answered). */
struct sim_flex_outcome sim_flex_answer_trace(const struct sim_flex *x, struct sim_draws *d, uint8_t *taken,
					      int f, uint32_t job, uint64_t k, sim_time_t now, uint32_t need,
					      int *never);

#endif
