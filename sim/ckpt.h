/* sim/ckpt.h: checkpoints in tiers and interval policies (docs/faults.md,
 * "Checkpoint tiers", "Checkpoint intervals"), as small pure functions the engine's
 * checkpoint accounting calls (sim/engine.c).
 *
 * A job checkpoints every `interval` ns of work. Without a memory tier every
 * checkpoint is persistent and costs the job model's ckpt_overhead_ns (the one-tier
 * case of docs/design.md section 2). With a memory tier, the job's checkpoints are
 * numbered 1, 2, ... over its whole life; the n-th, 2n-th, ... (persist_every = n)
 * are persistent (cost ckpt_overhead_ns, restore restore_ns), the others go to the
 * memory tier (cost mem_write_ns, restore mem_restore_ns). The memory tier holds the
 * newest checkpoint only (a persistent checkpoint leaves its copy there too); the
 * persistent tier holds them all. Which stops keep the memory tier:
 * sim_ckpt_memory_survives.
 *
 * Everything here is pure: no engine state, no allocation.
 */
#ifndef SIM_CKPT_H
#define SIM_CKPT_H

#include "sim.h"

/* How a job's checkpoint interval is chosen. FIXED: the trace's checkpoint_s. */
enum sim_ckpt_interval { SIM_CKPT_FIXED = 0, SIM_CKPT_YOUNG, SIM_CKPT_DALY };

/* The tiers and interval policy of $.jobs.checkpoint; all zero = one tier, fixed
 * interval (the model before tiers existed, bit for bit). */
struct sim_ckpt_policy {
	uint8_t memory;          /* 1: a memory tier exists */
	uint8_t interval;        /* enum sim_ckpt_interval */
	uint32_t replicas;       /* peers the memory checkpoint is copied to (k >= 0) */
	uint32_t persist_every;  /* n >= 1: every n-th checkpoint is persistent (memory tier only) */
	sim_time_t mem_write_ns; /* wall time to write a memory checkpoint */
	sim_time_t mem_restore_ns;
	double mtbf_s;           /* young/daly: the job's MTBF; 0 = derive it (sim_ckpt_job_mtbf_s) */
};

/* 1 when the policy needs the tiered accounting (a memory tier or an interval
 * policy other than fixed). */
int sim_ckpt_tiered(const struct sim_ckpt_policy *p);

/* Young's interval sqrt(2 C M), s; C, M > 0 (else 0). */
double sim_ckpt_young_s(double c_s, double m_s);
/* Daly's higher-order interval: sqrt(2CM) (1 + sqrt(C/(2M))/3 + C/(18M)) - C for
 * C < 2M, else M; s (0 when C or M is not > 0). */
double sim_ckpt_daly_s(double c_s, double m_s);
/* Mean of one node's time to failure, s: exponential and fixed: mtbf; Weibull:
 * scale x Gamma(1 + 1/shape). per_gpu with g GPUs: mtbf / g, scale x g^(-1/shape). */
double sim_ckpt_node_mean_s(int law, double mtbf_s, double shape, double scale_s, int per_gpu, double gpus);
/* A job's MTBF from its nodes (each failing with mean node_mean_s; 0 = none) and
 * its own fault rates per hour: 1 / (nodes / node_mean + (crash + spike) / 3600);
 * 0 when nothing fails. */
double sim_ckpt_job_mtbf_s(uint32_t nodes, double node_mean_s, double crash_per_h, double spike_per_h);
/* Mean write cost of one checkpoint, s: ((n - 1) mem + persistent) / n with a memory
 * tier, else persistent. */
double sim_ckpt_mean_write_s(const struct sim_ckpt_policy *p, sim_time_t persist_write_ns);
/* The interval a policy sets, ns (>= 1 s), from C = the mean write cost and M;
 * SIM_TIME_NONE when M is 0 (nothing fails: no checkpoints needed). */
sim_time_t sim_ckpt_interval_ns(const struct sim_ckpt_policy *p, double c_s, double m_s);

/* 1 when checkpoint number seq (1-based, over the job's life) is persistent. */
int sim_ckpt_is_persistent(const struct sim_ckpt_policy *p, uint64_t seq);
/* Persistent checkpoints among numbers seq0 + 1 .. seq0 + k. */
uint64_t sim_ckpt_persistent_in(const struct sim_ckpt_policy *p, uint64_t seq0, uint64_t k);
/* Write time of checkpoints seq0 + 1 .. seq0 + k, ns (persist_write_ns each persistent). */
double sim_ckpt_write_ns(const struct sim_ckpt_policy *p, sim_time_t persist_write_ns, uint64_t seq0, uint64_t k);
/* Checkpoints completed `elapsed` ns after a segment's work began (at most kmax):
 * the i-th completes after i intervals of work and the write times of the first i. */
uint64_t sim_ckpt_completed(const struct sim_ckpt_policy *p, sim_time_t persist_write_ns, uint64_t seq0,
			    sim_time_t interval, sim_time_t elapsed, uint64_t kmax);
/* 1 when a job's memory-tier checkpoint survives a stop by `cause` (the rule of
 * docs/faults.md, "Checkpoint tiers"): a crash, a hang kill, a loss spike, max_wait
 * leave its nodes intact; a node failure loses it unless it was replicated to k >= 1
 * peers; a preemption, capacity removal, spot reclaim move the job off its nodes. */
int sim_ckpt_memory_survives(const struct sim_ckpt_policy *p, int cause); /* enum sim_stop_cause (sim/hooks.h) */

/* Most persistent checkpoints a job remembers, and the deepest rollback. */
#define SIM_CKPT_RING 16
/* Where a restart resumes (progress, a fraction of the job's work): the k-th newest
 * (k >= 1) of the checkpoints that survived, newest first: the memory tier's
 * (mem_pos, when >= 0 and newer than every persistent one), then the persistent
 * ones (per[0..n_per), newest first), then the job's start (0). */
double sim_ckpt_rollback_target(double mem_pos, const double *per, uint32_t n_per, uint32_t k);

/* One job's checkpoints under the tiered accounting (the engine keeps one a job).
 * Positions are progress, a fraction of the job's work, like job->progress. */
struct sim_ckpt_state {
	sim_time_t interval_ns;    /* of the current segment; SIM_TIME_NONE or <= 0: none */
	uint64_t seq;              /* checkpoints written over the job's life */
	double mem_pos;            /* the memory tier's checkpoint; < 0: none */
	double per[SIM_CKPT_RING]; /* the persistent tier's newest checkpoints, newest first */
	uint32_t n_per;
	uint8_t restore_mem;       /* the next restore reads the memory tier */
};
void sim_ckpt_state_init(struct sim_ckpt_state *st); /* no checkpoint yet */
/* Checkpoints a segment of `work` ns takes at interval ns (none at its very end). */
uint64_t sim_ckpt_count(sim_time_t interval, sim_time_t work);
/* Records the k checkpoints completed in a segment that began at progress p0
 * (numbers seq + 1 .. seq + k, the i-th at p0 + i x interval / work_ns): the newest
 * goes to the memory tier (with one), the persistent ones to the persistent list;
 * seq advances by k. Returns the newest position (p0 when k = 0), at most 1 - 1e-12. */
double sim_ckpt_record(struct sim_ckpt_state *st, const struct sim_ckpt_policy *p, double p0, double work_ns,
		       uint64_t k);
/* One more persistent checkpoint at pos (a spot job's save within its notice). */
void sim_ckpt_push_persistent(struct sim_ckpt_state *st, double pos);
/* After a stop by `cause` (enum sim_stop_cause): the memory tier kept or lost
 * (sim_ckpt_memory_survives), then the position the job resumes from: the newest
 * surviving checkpoint, or the rollback-th newest at a loss spike; checkpoints
 * newer than it are dropped, and restore_mem says which tier the restore reads. */
double sim_ckpt_restart(struct sim_ckpt_state *st, const struct sim_ckpt_policy *p, int cause, uint32_t rollback);

#endif
