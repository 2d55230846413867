/* sim/capacity.h: capacity over time (docs/design.md section 1), as a config states it.
 *
 * Three sources, each per flavor:
 *  - changes: (time, nodes | delta, mode) rows from a CSV (cluster.capacity_events):
 *    new racks, removals, a planned drain;
 *  - reservation windows (a SageMaker training plan): the flavor has its nodes only
 *    inside [start, end); outside, none;
 *  - a stock-out model: in-stock and out-of-stock periods alternate (starting in
 *    stock) with lengths drawn from GSL, seeded from the run's seed and the flavor.
 *
 * What a change does to running jobs is its mode: REMOVE stops the jobs on the
 * removed nodes like a node failure (they keep the work up to their last checkpoint
 * and are requeued); DRAIN only stops new starts, and the nodes leave as their jobs
 * end. Reservation windows close with REMOVE (the plan ends, so do its jobs); an
 * out-of-stock period drains (a cloud does not take back instances it has lent;
 * it has none to lend). The engine applies the plan (sim/engine.c); this file holds
 * it and draws the stock-out periods. The plan is immutable during runs; the
 * per-run state (random streams) lives in struct sim_capacity_run.
 */
#ifndef SIM_CAPACITY_H
#define SIM_CAPACITY_H

#include "sim.h"

enum sim_cap_mode { SIM_CAP_REMOVE = 0, SIM_CAP_DRAIN = 1 };

/* One row of capacity_events. */
struct sim_cap_change {
	sim_time_t t;
	int32_t flavor;   /* cluster flavor index */
	uint8_t mode;     /* enum sim_cap_mode */
	uint8_t is_delta; /* nodes is a change (may be < 0), else the new count */
	int64_t nodes;
	uint32_t line;    /* source line, for messages */
};

enum sim_stock_law { SIM_STOCK_NONE = 0, SIM_STOCK_EXPONENTIAL, SIM_STOCK_FIXED };

/* Stock-out model of one flavor: periods in stock with mean in_mean_s, out of stock
 * with mean out_mean_s (exponential law, or exactly those lengths with FIXED). Out
 * of stock, the flavor's nodes drop to at most out_nodes. */
struct sim_stockout {
	uint8_t law;      /* enum sim_stock_law */
	double in_mean_s, out_mean_s;
	uint32_t out_nodes;
};

struct sim_window {
	sim_time_t start, end; /* [start, end), ns */
};

struct sim_capacity {
	size_t n_flavors;
	struct sim_cap_change *changes; /* sorted by (t, line) after sim_capacity_finalize */
	size_t n_changes, cap_changes;
	struct sim_stockout *stock;     /* n_flavors entries */
	struct sim_window **windows;    /* per flavor, sorted, disjoint; NULL = no reservation */
	size_t *n_windows;
	uint8_t *plan;                  /* per flavor: 1 = its windows are SageMaker training plans
					 * (docs/capacity.md, "Training plans") */
};

/* SageMaker training plans: capacity goes SIM_PLAN_CUTOFF_S before a plan's end, and a
 * job waiting for one gives up after SIM_PLAN_MAX_PENDING_S of pending time inside
 * the plans' windows. */
#define SIM_PLAN_CUTOFF_S 1800
#define SIM_PLAN_MAX_PENDING_S (2 * 86400)

struct sim_capacity *sim_capacity_create(size_t n_flavors);
void sim_capacity_destroy(struct sim_capacity *cap); /* NULL is a no-op */
int sim_capacity_add_change(struct sim_capacity *cap, const struct sim_cap_change *ch);
int sim_capacity_add_window(struct sim_capacity *cap, int flavor, sim_time_t start, sim_time_t end);
/* Sorts the changes; checks windows are disjoint (returns -SIM_EINVAL if not). */
int sim_capacity_finalize(struct sim_capacity *cap);
/* 1 when the plan changes anything. */
int sim_capacity_any(const struct sim_capacity *cap);
int sim_capacity_is_reservation(const struct sim_capacity *cap, int flavor);

/* Nodes a flavor of `nodes` configured nodes has at creation (0 for a reservation:
 * its windows open by events, one at time 0 before any submit), and the most it
 * ever has (sizes the cluster's index). Deltas that would go below 0 clamp at 0. */
uint32_t sim_capacity_initial(const struct sim_capacity *cap, int flavor, uint32_t nodes);
uint32_t sim_capacity_peak(const struct sim_capacity *cap, int flavor, uint32_t nodes);
/* For a reservation flavor: t if a window is open at t, else the start of the next
 * window, or SIM_TIME_NONE when none is left. Any other flavor: t. */
sim_time_t sim_capacity_next_open(const struct sim_capacity *cap, int flavor, sim_time_t t);
/* For a training-plan flavor: the time at which a job pending from t has been pending
 * for `limit` ns counting only the time inside the windows (each ending the cutoff
 * before its end), or SIM_TIME_NONE when the windows left are too short. */
sim_time_t sim_capacity_plan_deadline(const struct sim_capacity *cap, int flavor, sim_time_t t, sim_time_t limit);

/* Per-run random streams of the stock-out models. */
struct sim_capacity_run;
struct sim_capacity_run *sim_capacity_run_create(const struct sim_capacity *cap, uint64_t seed);
void sim_capacity_run_destroy(struct sim_capacity_run *r);
/* Length of the next period of flavor f, in stock (in_stock 1) or out, ns (>= 1). */
sim_time_t sim_capacity_draw_period(struct sim_capacity_run *r, int flavor, int in_stock);

#endif
