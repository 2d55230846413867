/* sim/faults.h: disruption sources beside the capacity plan (docs/faults.md), as a
 * config states them ($.faults, experiments/README.md):
 *  - node failures: each node slot has a time to failure, in operating time, drawn
 *    from a law (exponential, Weibull, or fixed for hand-computed cases), per node or
 *    scaled by the node's GPU count;
 *  - repair: a failed node comes back after a repair time (fixed or exponential), or
 *    its slot is refilled from a spare pool after a replacement delay;
 *  - job crashes, hangs and loss spikes: a rate per job-hour of running time, exponential (or
 *    fixed: exactly the mean), with an optional hang detection timeout, and a retry
 *    budget per job;
 *  - fail-slow nodes: a node slot runs at a speed factor for drawn periods.
 *
 * The plan is immutable during runs. Every draw comes from a GSL generator seeded
 * from (run seed, source, key, k): the k-th draw of a node slot's failure law, or
 * of a job segment's crash, never depends on any other draw, so changing one law
 * (the repair time) moves no failure of another source (docs/faults.md,
 * "Random streams"). The engine applies the plan (sim/engine.c).
 */
#ifndef SIM_FAULTS_H
#define SIM_FAULTS_H

#include "sim.h"

/* Laws of a time to an event. FIXED: exactly the mean (hand-computed cases). */
enum sim_fault_law { SIM_FLAW_NONE = 0, SIM_FLAW_EXPONENTIAL, SIM_FLAW_WEIBULL, SIM_FLAW_FIXED };

/* Node faults of one flavor (all times in s). */
struct sim_node_faults {
	uint8_t law;        /* enum sim_fault_law of the time to failure; NONE = no failures */
	uint8_t per_gpu;    /* 1: mtbf_s / scale_s are per GPU; a node of g GPUs fails g times as often */
	uint8_t repair_law; /* SIM_FLAW_FIXED or SIM_FLAW_EXPONENTIAL */
	double mtbf_s;      /* exponential and fixed: mean time between failures */
	double shape, scale_s; /* Weibull: shape k > 0, scale lambda (s) */
	double repair_s;    /* mean repair time (>= 0) */
	uint32_t spares;    /* spare pool size, nodes (<= the flavor's nodes) */
	double replace_s;   /* delay to bring a spare into a failed slot (>= 0) */
};

/* Job faults (every job alike). Rates per hour of running time; 0 = none. */
struct sim_job_faults {
	uint8_t law;            /* SIM_FLAW_EXPONENTIAL or SIM_FLAW_FIXED, for crashes and hangs */
	uint8_t hang_detect;    /* 1: a hung job is killed hang_timeout after it hung */
	double crash_per_h, hang_per_h;
	double spike_per_h;     /* loss spikes (docs/faults.md, "Loss spikes") */
	uint32_t rollback;      /* a loss spike restores the rollback-th newest checkpoint (1..SIM_CKPT_RING) */
	sim_time_t hang_timeout_ns;
	int64_t max_retries;    /* restarts after a fault stop allowed per job; -1 = unlimited */
	/* Restart rules (docs/faults.md, "Retries"): a crash or hang kill restarts the job
	 * in place (it keeps its GPUs) up to inplace_restarts times in a row, paying
	 * inplace_restart_ns before its restore; then a full restart (queued again), at
	 * most max_full_restarts times (-1 = unlimited). */
	uint32_t inplace_restarts;
	sim_time_t inplace_restart_ns;
	int64_t max_full_restarts;
	uint8_t requeue_back;   /* 1: a full restart is ordered by its requeue time (back of the queue) */
};

/* Fail-slow nodes of one flavor (docs/faults.md, "Fail-slow nodes"): each node
 * slot alternates between full speed and slow episodes. Times in s. */
enum sim_slow_period_law { SIM_SPER_LOG_UNIFORM = 0, SIM_SPER_EXPONENTIAL, SIM_SPER_FIXED };
struct sim_node_slow {
	uint8_t law;          /* time between episodes: SIM_FLAW_EXPONENTIAL or SIM_FLAW_FIXED; NONE = never slow */
	uint8_t period_law;   /* enum sim_slow_period_law: how long an episode lasts */
	uint8_t detect;       /* 1: an episode is detected detect_s after it began (its jobs migrate) */
	double mtbs_s;        /* mean time at full speed between the end of an episode and the next (> 0) */
	double factor_lo, factor_hi; /* speed factor of an episode, uniform in [lo, hi], 0 < lo <= hi <= 1 */
	double period_s;      /* exponential and fixed: mean episode length (> 0) */
	double period_lo_s, period_hi_s; /* log-uniform: bounds, 0 < lo <= hi */
	double detect_s;      /* detection delay (>= 0) */
};

struct sim_faults {
	size_t n_flavors;
	struct sim_node_faults *node; /* n_flavors entries */
	struct sim_node_slow *slow;   /* n_flavors entries */
	struct sim_job_faults job;
	struct sim_fault_events *events; /* owned: the replayed incident log, or NULL (sim/fault_events.h) */
};

struct sim_faults *sim_faults_create(size_t n_flavors); /* every source off */
void sim_faults_destroy(struct sim_faults *f);             /* NULL is a no-op */
/* 1 when some node of flavor fl (-1: any flavor) may fail: it has a failure law, or
 * the replayed incident log fails one of its nodes. */
int sim_faults_nodes_any(const struct sim_faults *f, int fl);
/* 1 when jobs may crash or hang by a drawn law (not counting the replayed log). */
int sim_faults_jobs_any(const struct sim_faults *f);
/* 1 when some node of flavor fl (-1: any flavor) may become slow. */
int sim_faults_slow_any(const struct sim_faults *f, int fl);
/* 1 when a replayed log gives the fail-slow episodes (then none is drawn). */
int sim_faults_slow_replayed(const struct sim_faults *f);
int sim_faults_any(const struct sim_faults *f); /* NULL: 0; node failures, job faults, fail-slow or a replayed log */
/* 1 when the incident log replaces the draws: no drawn failure, crash or hang. */
int sim_faults_replay(const struct sim_faults *f);
/* Mean length of an episode under the flavor's period law, s. */
double sim_faults_slow_mean_period_s(const struct sim_node_slow *ns);

/* Per-run draws (a GSL generator reseeded per draw from the run seed). */
struct sim_faults_run;
struct sim_faults_run *sim_faults_run_create(const struct sim_faults *f, uint64_t seed);
void sim_faults_run_destroy(struct sim_faults_run *r); /* NULL is a no-op */
/* The k-th operating time to failure of node `node` of flavor fl (k = 0: from the
 * start), ns >= 1; node_gpus scales it when per_gpu. */
sim_time_t sim_faults_draw_uptime(struct sim_faults_run *r, int fl, uint32_t node, uint32_t k, double node_gpus);
/* Repair time of the k-th failure of that node, ns >= 0. */
sim_time_t sim_faults_draw_repair(struct sim_faults_run *r, int fl, uint32_t node, uint32_t k);
/* Running time from the start of segment `seg` of job `job` to its crash (hang:
 * its hang), ns >= 1, or SIM_TIME_NONE when that source is off. */
sim_time_t sim_faults_draw_crash(struct sim_faults_run *r, uint32_t job, uint32_t seg);
sim_time_t sim_faults_draw_hang(struct sim_faults_run *r, uint32_t job, uint32_t seg);
/* The same for its loss spike (its own source: turning spikes on moves no other draw). */
sim_time_t sim_faults_draw_spike(struct sim_faults_run *r, uint32_t job, uint32_t seg);

/* Fail-slow draws, keyed (flavor, node, k) for the k-th episode of that node slot,
 * each from its own source: the full-speed time before the episode (from the end
 * of the previous one, or the start of the run), ns >= 1; its speed factor; and its
 * length, ns >= 1. */
sim_time_t sim_faults_draw_slow_gap(struct sim_faults_run *r, int fl, uint32_t node, uint32_t k);
double sim_faults_draw_slow_factor(struct sim_faults_run *r, int fl, uint32_t node, uint32_t k);
sim_time_t sim_faults_draw_slow_period(struct sim_faults_run *r, int fl, uint32_t node, uint32_t k);

#endif
