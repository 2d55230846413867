/* sim/autoscale.h: autoscaled node groups (docs/capacity.md), as a config states
 * them ($.cluster.flavors[i].autoscale, experiments/README.md).
 *
 * An autoscaled flavor has between min_nodes and max_nodes nodes up. The engine
 * (sim/engine.c, "autoscaling") asks for nodes when queued jobs that want the
 * flavor do not fit its free capacity; each node asked for arrives after a
 * provisioning delay drawn from a law; a node that stays fully idle for
 * idle_timeout is given back, never below min_nodes. How many nodes one request
 * asks for is the mode (enum sim_as_mode).
 *
 * The plan is immutable during runs. The k-th provisioning delay of a flavor
 * comes from a GSL generator seeded from (run seed, flavor, k) alone, so no other
 * law (failures, stock-outs, crashes) moves it, and it moves none of them.
 */
#ifndef SIM_AUTOSCALE_H
#define SIM_AUTOSCALE_H

#include "sim.h"

/* How many nodes a scale-up asks for, given the shortfall S (nodes the unplaced
 * demand needs beyond those already provisioning), the room R (max_nodes minus the
 * nodes up or provisioning) and the nodes up U and provisioning P:
 *  - DEFAULT: min(S, R) (KubeRay's Default: no rate limit, exactly the demand);
 *  - CONSERVATIVE: min(S, R, max(1, U) - P), at least 0 (KubeRay's Conservative:
 *    nodes provisioning at most the nodes up, and one when none is up);
 *  - AGGRESSIVE: R when S > 0 (up to max_nodes at once; KubeRay's Aggressive is an
 *    alias of Default, this one is not). */
enum sim_as_mode { SIM_AS_DEFAULT = 0, SIM_AS_CONSERVATIVE, SIM_AS_AGGRESSIVE };

/* Laws of the provisioning delay: exactly the mean, or exponential with it. */
enum sim_as_law { SIM_AS_FIXED = 0, SIM_AS_EXPONENTIAL };

struct sim_as_flavor {
	uint8_t on;          /* 1: this flavor is autoscaled */
	uint8_t mode;        /* enum sim_as_mode */
	uint8_t law;         /* enum sim_as_law */
	uint32_t min_nodes, max_nodes;
	double provision_s;  /* mean provisioning delay, s >= 0 */
	sim_time_t idle_timeout_ns;
};

struct sim_autoscale {
	size_t n_flavors;
	struct sim_as_flavor *fl; /* n_flavors entries */
};

struct sim_autoscale *sim_autoscale_create(size_t n_flavors); /* every flavor off */
void sim_autoscale_destroy(struct sim_autoscale *a);           /* NULL is a no-op */
/* 1 when flavor f (-1: any flavor) is autoscaled; NULL: 0. */
int sim_autoscale_on(const struct sim_autoscale *a, int f);
const char *sim_as_mode_name(enum sim_as_mode m);
int sim_as_mode_from_name(const char *name); /* -1 when unknown */
/* The nodes a scale-up asks for (the rule above). */
uint32_t sim_autoscale_request(enum sim_as_mode m, uint32_t shortfall, uint32_t up, uint32_t provisioning,
			       uint32_t max_nodes);

/* Per-run draws. */
struct sim_autoscale_run;
struct sim_autoscale_run *sim_autoscale_run_create(const struct sim_autoscale *a, uint64_t seed);
void sim_autoscale_run_destroy(struct sim_autoscale_run *r); /* NULL is a no-op */
/* The k-th provisioning delay of flavor f (k = 0, 1, ... over the run), ns >= 0. */
sim_time_t sim_autoscale_draw_delay(struct sim_autoscale_run *r, int f, uint64_t k);

#endif
