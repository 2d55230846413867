/* policies/fairshare.h: the arithmetic of fair share over time (docs/fair-share.md),
 * shared by the order policies multifactor (Slurm), batch_fair_share (AWS Batch) and
 * hyperpod (SageMaker HyperPod task governance). Pure functions and small value
 * types; no policy state, no engine calls, so each rule is tested by hand.
 *
 * Units: time in ns (sim_time_t) or s (double, named _s); GPUs in milli-units
 * (sim_qty_t) while running, GPU-seconds (double) once accrued.
 */
#ifndef POLICIES_FAIRSHARE_H
#define POLICIES_FAIRSHARE_H

#include "../sim/job.h"
#include "../sim/sim.h"

#define FS_LN2 0.69314718055994530942 /* ln 2 (M_LN2 is not C11) */

/* ---- who a job's usage is charged to ---- */

enum fs_account_by {
	FS_ACCOUNT_AUTO = 0, /* the trace's user column when it has one, else the queue */
	FS_ACCOUNT_USER,
	FS_ACCOUNT_QUEUE,
};

/* "auto", "user", "queue" -> enum; -1 for any other name. */
int fs_account_by_parse(const char *name);
/* How many accounts a trace has under a rule: users (+1 for jobs without a user, the
 * last account) or queues. AUTO is resolved with the trace. */
enum fs_account_by fs_account_by_resolve(enum fs_account_by by, const struct sim_trace *t);
size_t fs_account_count(enum fs_account_by by, const struct sim_trace *t);
/* Index of a job's account in [0, fs_account_count). by must be resolved. */
uint32_t fs_account_of(enum fs_account_by by, const struct sim_trace *t, const struct sim_job *job);
/* Name of account i ("(none)" for the account of jobs without a user). */
const char *fs_account_name(enum fs_account_by by, const struct sim_trace *t, size_t i);

/* What a policy counted for a running job, so that its stop takes back exactly that
 * (a preempted job may have been queued, holding quota, and never counted). */
struct fs_held {
	sim_qty_t mgpu;
	uint8_t running;
};

/* ---- usage decayed with a half-life (Slurm's PriorityDecayHalfLife) ---- */

/* Accrued usage of one account: GPU-seconds, each decayed by 2^(-age/half_life).
 * running_mgpu is the GPUs its jobs hold now; usage_gpu_s is exact at last_ns. */
struct fs_decayed {
	double usage_gpu_s;
	sim_qty_t running_mgpu;
	sim_time_t last_ns;
};

/* 2^(-dt/half_life); half_life_s == 0 means no decay (Slurm: PriorityDecayHalfLife=0). */
double fs_decay_factor(double dt_s, double half_life_s);
/* Brings u to now, integrating the constant rate running_mgpu exactly:
 *   u(t+dt) = u 2^(-dt/H) + g H/ln2 (1 - 2^(-dt/H)),  or u + g dt without decay.
 * now < last_ns is ignored (time never goes backwards). */
void fs_decayed_advance(struct fs_decayed *u, sim_time_t now, double half_life_s);
/* A job of `mgpu` milli-GPUs starts (+) or stops (-) at now: advance, then change the rate. */
void fs_decayed_change(struct fs_decayed *u, sim_time_t now, double half_life_s, sim_qty_t delta_mgpu);

/* ---- Slurm's classic multifactor factors (docs/fair-share.md, "Slurm") ---- */

/* F = 2^(-U/S), U and S normalized (each in [0, 1]); S == 0 gives 0 (no shares, lowest). */
double fs_slurm_fairshare_factor(double usage_norm, double shares_norm);
/* F for n accounts at once: U_i = usage_i / sum(usage) (0 when nothing was used),
 * S_i = shares_i / sum(shares). Sums run in index order: the same inputs give the same
 * bits. Writes f[n]. */
void fs_slurm_fairshare_factors(size_t n, const double *usage_gpu_s, const double *shares, double *f);
/* min(age / max_age, 1); age <= 0 gives 0; max_age_s == 0 gives 1 for any age >= 0. */
double fs_slurm_age_factor(double age_s, double max_age_s);
/* The fraction of the cluster's GPUs the job asks for (in [0, 1]); with favor_small,
 * 1 minus it (PriorityFavorSmall=YES: the smallest job gets the factor closest to 1). */
double fs_slurm_size_factor(sim_qty_t job_mgpu, sim_qty_t cluster_mgpu, int favor_small);

/* ---- AWS Batch (docs/fair-share.md, "AWS Batch") ---- */

/* Recent usage of one share identifier: running_mgpu held now, and avg_gpus, the GPUs
 * held averaged over the past with weight exp(-age/decay_s) (an exponential moving
 * average, decay_s its time constant). decay_s == 0: avg follows the current GPUs. */
struct fs_recent {
	double avg_gpus;
	sim_qty_t running_mgpu;
	sim_time_t last_ns;
};

/* avg(t+dt) = g + (avg - g) e^(-dt/D), exact for a constant g over dt; D == 0: avg = g. */
void fs_recent_advance(struct fs_recent *r, sim_time_t now, double decay_s);
void fs_recent_change(struct fs_recent *r, sim_time_t now, double decay_s, sim_qty_t delta_mgpu);
/* The usage AWS Batch compares (lower goes first), in weighted GPUs: weight x (GPUs held
 * now + avg_gpus when decay_s > 0). A lower weightFactor lets a share use more: at
 * equal keys, weight 0.5 holds twice the GPUs of weight 1. */
double fs_batch_usage(const struct fs_recent *r, double weight_factor, double decay_s);
/* (computeReservation / 100) ^ active: the fraction of the maximum capacity held back for
 * share identifiers that are not active (0 active: all of it). */
double fs_batch_reserved_fraction(double compute_reservation, unsigned active);

/* ---- SageMaker HyperPod task governance (docs/fair-share.md, "HyperPod") ---- */

/* A team's claim on idle compute: GPUs it holds over its fair-share weight (lower goes
 * first); weight 0 is +infinity (a team with weight 0 borrows last). */
double fs_hyperpod_team_score(sim_qty_t running_mgpu, double fair_share_weight);

#endif
