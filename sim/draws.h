/* sim/draws.h: random draws keyed by what they are for.
 *
 * Every disruption source (node failures and repairs, job crashes and hangs,
 * autoscaler provisioning delays, spot interruptions) draws each time from one GSL
 * generator reseeded from (run seed, source, a, b, k): the k-th draw of a source
 * for the thing (a, b) it concerns (a flavor, a node, a job) never depends on any
 * other draw, so changing one law moves nothing drawn by another (docs/faults.md,
 * "Random streams"). The seed mixes every part through splitmix64, so neighbouring
 * keys get unrelated streams. taus2: cheap to reseed.
 *
 * Ownership: the owner embeds a struct sim_draws and calls init and fini; the
 * generator it returns is valid until the next draw.
 */
#ifndef SIM_DRAWS_H
#define SIM_DRAWS_H

#include <gsl/gsl_rng.h>

#include "sim.h"

struct sim_draws {
	uint64_t seed; /* the run seed */
	gsl_rng *rng;  /* owned; reseeded for every draw */
};

/* 0, or -SIM_ENOMEM (then d holds nothing to free). */
int sim_draws_init(struct sim_draws *d, uint64_t seed);
void sim_draws_fini(struct sim_draws *d); /* a zeroed or failed d is a no-op */
/* The generator seeded for draw k of source src about (a, b). b occupies the high
 * 32 bits beside k: keys with b = 0 are the (a, k) keys of a source without one. */
gsl_rng *sim_draws_rng(struct sim_draws *d, uint32_t src, uint64_t a, uint64_t b, uint64_t k);
/* Seconds into ns, at least lo, at most 10^18 (about 31 years); NaN gives lo. */
sim_time_t sim_draws_ns(double s, sim_time_t lo);

#endif
