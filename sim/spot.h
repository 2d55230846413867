/* sim/spot.h: spot capacity (docs/capacity.md, "Spot capacity"), as a config states
 * it ($.cluster.flavors[i].spot, experiments/README.md).
 *
 * A spot flavor's nodes are interrupted: each interruption is a notice, notice_s
 * before the node is taken back. Interruptions come at fixed times (every node of
 * the flavor that is up then gets a notice) or per node at a rate (exponential times
 * between a node's return and its next notice). A taken node comes back outage_s
 * after it was taken. What the notice means for the jobs on the node is the
 * engine's (sim/engine.c, "spot"): a job that can write a checkpoint within the
 * notice saves all its work, any other loses the work since its last checkpoint.
 *
 * The plan is immutable during runs. The k-th time to a notice of node n of flavor f
 * comes from a GSL generator seeded from (run seed, flavor, n, k) alone, so no other
 * law moves it and it moves none.
 */
#ifndef SIM_SPOT_H
#define SIM_SPOT_H

#include "sim.h"

/* Default notice: EC2's two-minute spot interruption notice. */
#define SIM_SPOT_NOTICE_DEFAULT_S 120.0

struct sim_spot_flavor {
	uint8_t on;              /* 1: a spot flavor */
	double rate_per_node_h;  /* notices per node-hour of being up (0: fixed times only) */
	sim_time_t *times;       /* fixed notice times, sorted, owned; NULL when none */
	size_t n_times;
	sim_time_t notice_ns;    /* from the notice to the node's taking */
	sim_time_t outage_ns;    /* from the taking to the node's return */
};

struct sim_spot {
	size_t n_flavors;
	struct sim_spot_flavor *fl; /* n_flavors entries */
};

struct sim_spot *sim_spot_create(size_t n_flavors); /* every flavor on-demand */
void sim_spot_destroy(struct sim_spot *s);           /* NULL is a no-op */
/* 1 when flavor f (-1: any flavor) is spot; NULL: 0. */
int sim_spot_on(const struct sim_spot *s, int f);
/* Appends a fixed notice time to flavor f (sorted by sim_spot_finalize). */
int sim_spot_add_time(struct sim_spot *s, int f, sim_time_t t);
void sim_spot_finalize(struct sim_spot *s);
/* The k-th time from node n's being up to its next notice, ns >= 1, or
 * SIM_TIME_NONE when the flavor has no rate; drawn from d (the run's spot draws,
 * sim/draws.h). */
struct sim_draws;
sim_time_t sim_spot_draw_uptime(const struct sim_spot *s, struct sim_draws *d, int f, uint32_t node, uint64_t k);

#endif
