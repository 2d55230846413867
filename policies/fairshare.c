/* policies/fairshare.c: the arithmetic of fair share over time (see fairshare.h). */
#include <math.h>
#include <string.h>

#include "fairshare.h"

int fs_account_by_parse(const char *name)
{
	if (strcmp(name, "auto") == 0)
		return FS_ACCOUNT_AUTO;
	if (strcmp(name, "user") == 0)
		return FS_ACCOUNT_USER;
	if (strcmp(name, "queue") == 0)
		return FS_ACCOUNT_QUEUE;
	return -1;
}

enum fs_account_by fs_account_by_resolve(enum fs_account_by by, const struct sim_trace *t)
{
	if (by != FS_ACCOUNT_AUTO)
		return by;
	return t->n_users ? FS_ACCOUNT_USER : FS_ACCOUNT_QUEUE;
}

size_t fs_account_count(enum fs_account_by by, const struct sim_trace *t)
{
	/* Jobs without a user (user = -1) share one account after the named users. */
	return by == FS_ACCOUNT_USER ? t->n_users + 1 : (t->n_queues ? t->n_queues : 1);
}

uint32_t fs_account_of(enum fs_account_by by, const struct sim_trace *t, const struct sim_job *job)
{
	if (by == FS_ACCOUNT_USER)
		return job->user >= 0 ? (uint32_t)job->user : (uint32_t)t->n_users;
	return job->queue >= 0 ? (uint32_t)job->queue : 0;
}

const char *fs_account_name(enum fs_account_by by, const struct sim_trace *t, size_t i)
{
	if (by == FS_ACCOUNT_USER)
		return i < t->n_users ? t->users[i] : "(none)";
	return i < t->n_queues ? t->queues[i] : "default";
}

/* ---- decayed usage ---- */

double fs_decay_factor(double dt_s, double half_life_s)
{
	if (half_life_s <= 0)
		return 1.0;
	return exp2(-dt_s / half_life_s);
}

void fs_decayed_advance(struct fs_decayed *u, sim_time_t now, double half_life_s)
{
	if (now <= u->last_ns)
		return;
	double dt_s = (double)(now - u->last_ns) / (double)SIM_NS_PER_S;
	double g = (double)u->running_mgpu / (double)SIM_MILLI;
	if (half_life_s <= 0) {
		u->usage_gpu_s += g * dt_s;
	} else {
		/* Exact: d/dt u = g - u ln2/H, so u relaxes towards g H/ln2. */
		double d = fs_decay_factor(dt_s, half_life_s);
		u->usage_gpu_s = u->usage_gpu_s * d + (g != 0 ? g * (half_life_s / FS_LN2) * (1 - d) : 0);
	}
	u->last_ns = now;
}

void fs_decayed_change(struct fs_decayed *u, sim_time_t now, double half_life_s, sim_qty_t delta_mgpu)
{
	fs_decayed_advance(u, now, half_life_s);
	if (u->last_ns < now)
		u->last_ns = now;
	u->running_mgpu += delta_mgpu;
}

/* ---- Slurm factors ---- */

double fs_slurm_fairshare_factor(double usage_norm, double shares_norm)
{
	if (shares_norm <= 0)
		return 0;
	return exp2(-usage_norm / shares_norm);
}

void fs_slurm_fairshare_factors(size_t n, const double *usage_gpu_s, const double *shares, double *f)
{
	double u_tot = 0, s_tot = 0;
	for (size_t i = 0; i < n; i++) {
		u_tot += usage_gpu_s[i];
		s_tot += shares[i];
	}
	for (size_t i = 0; i < n; i++) {
		double u = u_tot > 0 ? usage_gpu_s[i] / u_tot : 0;
		double s = s_tot > 0 ? shares[i] / s_tot : 0;
		f[i] = fs_slurm_fairshare_factor(u, s);
	}
}

double fs_slurm_age_factor(double age_s, double max_age_s)
{
	if (age_s <= 0)
		return 0;
	if (max_age_s <= 0 || age_s >= max_age_s)
		return 1;
	return age_s / max_age_s;
}

double fs_slurm_size_factor(sim_qty_t job_mgpu, sim_qty_t cluster_mgpu, int favor_small)
{
	double frac = cluster_mgpu > 0 ? (double)job_mgpu / (double)cluster_mgpu : 0;
	if (frac > 1)
		frac = 1;
	if (frac < 0)
		frac = 0;
	return favor_small ? 1 - frac : frac;
}

/* ---- AWS Batch ---- */

void fs_recent_advance(struct fs_recent *r, sim_time_t now, double decay_s)
{
	if (now <= r->last_ns)
		return;
	double g = (double)r->running_mgpu / (double)SIM_MILLI;
	if (decay_s <= 0) {
		r->avg_gpus = g;
	} else {
		double dt_s = (double)(now - r->last_ns) / (double)SIM_NS_PER_S;
		r->avg_gpus = g + (r->avg_gpus - g) * exp(-dt_s / decay_s);
	}
	r->last_ns = now;
}

void fs_recent_change(struct fs_recent *r, sim_time_t now, double decay_s, sim_qty_t delta_mgpu)
{
	fs_recent_advance(r, now, decay_s);
	if (r->last_ns < now)
		r->last_ns = now;
	r->running_mgpu += delta_mgpu;
	if (decay_s <= 0)
		r->avg_gpus = (double)r->running_mgpu / (double)SIM_MILLI;
}

double fs_batch_usage(const struct fs_recent *r, double weight_factor, double decay_s)
{
	double now_gpus = (double)r->running_mgpu / (double)SIM_MILLI;
	return weight_factor * (now_gpus + (decay_s > 0 ? r->avg_gpus : 0));
}

double fs_batch_reserved_fraction(double compute_reservation, unsigned active)
{
	return pow(compute_reservation / 100.0, (double)active);
}

/* ---- HyperPod ---- */

double fs_hyperpod_team_score(sim_qty_t running_mgpu, double fair_share_weight)
{
	if (fair_share_weight <= 0)
		return INFINITY;
	return ((double)running_mgpu / (double)SIM_MILLI) / fair_share_weight;
}
