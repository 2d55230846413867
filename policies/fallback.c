/* policies/fallback.c: fallback policies, which option of a preference list a job
 * runs on (docs/design.md section 2; issue 4).
 *
 *  - strict: option 0 only.
 *  - first_fit: SageMaker instance preference lists. Options in order; the first
 *    whose flavor has room now runs the whole job (the engine places one option or
 *    none: no mix of partial capacity). A job with no room anywhere waits and is
 *    evaluated again only when free capacity of one of its flavors grew (the
 *    engine's memo, sim_job.fb_seen); max_pending_s bounds the wait for the whole
 *    list (the engine's pending limit).
 *  - fungible: Kueue's flavor fungibility. The cohort or hard quota policy chooses
 *    the flavor in its own cycle (policies/kq_cycle.c); this table only names the
 *    choice, so it has no choose hook, and the runner refuses it without one.
 *  - deadline: the option with the earliest expected finish, now + estimated wait
 *    + run time there. If that option has no room now, the job waits for it.
 *  - cost: the cheapest option whose expected finish meets the job's deadline_s;
 *    if none does (or the job has no deadline and two options tie), the earliest
 *    expected finish; without a deadline, the cheapest.
 *
 * The wait estimate (deadline, cost) is a fluid model over the simulator's state,
 * using only what a real scheduler knows (user estimates, not true run times):
 *   wait(f) = 0                      when the option fits flavor f's free capacity now;
 *           = (R_f + Q_f) / C_f      otherwise, where
 *     R_f = GPU-seconds of work left on f's running jobs by their estimates
 *           (estimate_s, else the trace duration, scaled to the option they run on),
 *           sum over jobs of gpus x (estimated end - now), floored at 0;
 *     Q_f = GPU-seconds of the queued jobs whose last evaluation targeted f, by the
 *           same estimates (the job being evaluated excluded);
 *     C_f = GPUs online on f now.
 *   A flavor with no online GPU: a reservation that opens later waits until it
 *   opens (then Q_f over its peak GPUs); a flavor out of stock under a stock-out
 *   model waits the model's mean out-of-stock period (memoryless for the
 *   exponential law); any other: forever.
 * Cost of option k = price_per_node_hour x (GPUs taken / node GPUs) x run time in
 * hours, as the metrics charge it.
 */
#include <math.h>
#include <stdlib.h>

#include "policy.h"

struct fb {
	int by_cost;            /* cost policy, else deadline */
	size_t n_flavors, n_jobs;
	/* per flavor: sums over running jobs of gpus x estimated end (GPU-s) and gpus */
	double *run_ge, *run_g;
	double *queued_work;    /* per flavor, Q_f, GPU-s */
	/* per job: what it added, to take it back exactly */
	double *job_run_ge, *job_run_g, *job_q;
	int32_t *job_run_f, *job_q_f; /* flavor it counts in, -1 = none */
};

static int strict_choose(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
			 int8_t opts[SIM_MAX_OPTIONS])
{
	(void)pol, (void)v, (void)job;
	opts[0] = 0;
	return 1;
}

static int first_fit_choose(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
			    int8_t opts[SIM_MAX_OPTIONS])
{
	(void)pol, (void)v;
	for (int k = 0; k < job->n_opts; k++)
		opts[k] = (int8_t)k;
	return job->n_opts;
}

static int no_params_init(struct sim_policy *pol, const struct sim_policy_env *env, const cJSON *params,
			  struct sim_diag *diag)
{
	pol->priv = NULL;
	return sim_policy_params_check_keys(env, params, NULL, diag) ? -SIM_EPARSE : 0;
}

/* ---- deadline and cost ---- */

static void fb_fini(struct sim_policy *pol)
{
	struct fb *s = pol->priv;
	if (s) {
		free(s->run_ge);
		free(s->job_run_ge);
		free(s->job_run_f);
	}
	free(s);
	pol->priv = NULL;
}

static int fb_init_common(struct sim_policy *pol, const struct sim_policy_env *env, const cJSON *params,
			  struct sim_diag *diag, int by_cost)
{
	if (sim_policy_params_check_keys(env, params, NULL, diag))
		return -SIM_EPARSE;
	struct fb *s = calloc(1, sizeof *s);
	if (!s)
		return -SIM_ENOMEM;
	pol->priv = s;
	s->by_cost = by_cost;
	s->n_flavors = sim_cluster_n_flavors(sim_view_cluster(env->view));
	s->n_jobs = sim_view_trace(env->view)->n_jobs;
	size_t nf = s->n_flavors ? s->n_flavors : 1, nj = s->n_jobs ? s->n_jobs : 1;
	/* one block per element type: flavors' three sums, jobs' three amounts, jobs' two flavors */
	s->run_ge = calloc(3 * nf, sizeof *s->run_ge);
	s->job_run_ge = calloc(3 * nj, sizeof *s->job_run_ge);
	s->job_run_f = malloc(2 * nj * sizeof *s->job_run_f);
	if (!s->run_ge || !s->job_run_ge || !s->job_run_f)
		return -SIM_ENOMEM;
	s->run_g = s->run_ge + nf;
	s->queued_work = s->run_ge + 2 * nf;
	s->job_run_g = s->job_run_ge + nj;
	s->job_q = s->job_run_ge + 2 * nj;
	s->job_q_f = s->job_run_f + nj;
	for (size_t i = 0; i < 2 * nj; i++)
		s->job_run_f[i] = -1;
	return 0;
}

static int deadline_init(struct sim_policy *pol, const struct sim_policy_env *env, const cJSON *params,
			 struct sim_diag *diag)
{
	return fb_init_common(pol, env, params, diag, 0);
}

static int cost_init(struct sim_policy *pol, const struct sim_policy_env *env, const cJSON *params,
		     struct sim_diag *diag)
{
	return fb_init_common(pol, env, params, diag, 1);
}

/* GPUs a job takes on a flavor (whole nodes for a multi-node job). */
static double taken_gpus(const struct sim_view *v, int flavor, const struct sim_job_option *o)
{
	return (double)sim_cluster_alloc_gpu(sim_view_cluster(v), flavor, o->req) / SIM_MILLI;
}

static double estimate_s(const struct sim_view *v, const struct sim_job *job, int k, int flavor)
{
	return sim_time_to_s(sim_view_estimate(v, job, k, flavor));
}

static void queued_forget(struct fb *s, uint32_t idx)
{
	int32_t f = s->job_q_f[idx];
	if (f < 0)
		return;
	s->queued_work[f] -= s->job_q[idx];
	s->job_q_f[idx] = -1;
	s->job_q[idx] = 0;
}

static void running_forget(struct fb *s, uint32_t idx)
{
	int32_t f = s->job_run_f[idx];
	if (f < 0)
		return;
	s->run_ge[f] -= s->job_run_ge[idx];
	s->run_g[f] -= s->job_run_g[idx];
	s->job_run_f[idx] = -1;
}

static void fb_on_start(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job)
{
	struct fb *s = pol->priv;
	int f = job->alloc.flavor;
	if (job->idx >= s->n_jobs || f < 0)
		return;
	queued_forget(s, job->idx);
	running_forget(s, job->idx);
	const struct sim_job_option *o = sim_job_opt(sim_view_trace(v), job, job->opt_chosen);
	double g = taken_gpus(v, f, o);
	double left = estimate_s(v, job, job->opt_chosen, f) * (1.0 - job->progress);
	double end = sim_time_to_s(sim_view_now(v)) + left;
	s->job_run_f[job->idx] = f;
	s->job_run_g[job->idx] = g;
	s->job_run_ge[job->idx] = g * end;
	s->run_g[f] += g;
	s->run_ge[f] += g * end;
}

static void fb_on_stop(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
		       enum sim_stop_cause cause)
{
	(void)v;
	(void)cause;
	struct fb *s = pol->priv;
	if (job->idx >= s->n_jobs)
		return;
	running_forget(s, job->idx);
	if (job->state != SIM_JOB_QUEUED)
		queued_forget(s, job->idx);
}

/* Expected wait on option k (flavor f), s; INFINITY when capacity never comes. */
static double wait_estimate(const struct fb *s, const struct sim_view *v, const struct sim_job *job, int k)
{
	const struct sim_cluster *c = sim_view_cluster(v);
	const struct sim_job_option *o = sim_job_opt(sim_view_trace(v), job, k);
	int f = o->flavor_id;
	if (f < 0 || sim_cluster_fits(c, f, o->req))
		return 0;
	double now = sim_time_to_s(sim_view_now(v));
	double queued = s->queued_work[f] - (s->job_q_f[job->idx] == f ? s->job_q[job->idx] : 0);
	if (queued < 0)
		queued = 0;
	double node_gpu = (double)sim_cluster_flavor(c, f)->node_cap[SIM_RES_GPU] / SIM_MILLI;
	double online = (double)sim_cluster_nodes_online(c, f) * node_gpu;
	if (online > 0) {
		double running = s->run_ge[f] - s->run_g[f] * now;
		return ((running > 0 ? running : 0) + queued) / online;
	}
	double peak = (double)sim_cluster_n_nodes(c, f) * node_gpu;
	sim_time_t open = sim_view_next_open(v, f);
	const struct sim_capacity *cap = sim_view_capacity(v);
	if (cap && sim_capacity_is_reservation(cap, f))
		return open == SIM_TIME_NONE ? INFINITY : sim_time_to_s(open) - now + queued / peak;
	if (cap && cap->stock[f].law != SIM_STOCK_NONE)
		return cap->stock[f].out_mean_s + queued / peak;
	return INFINITY;
}

static double option_cost(const struct sim_view *v, const struct sim_job *job, int k, double runtime_s)
{
	const struct sim_cluster *c = sim_view_cluster(v);
	const struct sim_job_option *o = sim_job_opt(sim_view_trace(v), job, k);
	const struct sim_flavor_spec *fs = sim_cluster_flavor(c, o->flavor_id);
	double node_gpu = (double)fs->node_cap[SIM_RES_GPU] / SIM_MILLI;
	return fs->price_per_node_hour * (taken_gpus(v, o->flavor_id, o) / node_gpu) * runtime_s / 3600.0;
}

/* Index of the option to wait for: earliest expected finish (deadline), or the
 * cheapest meeting the deadline (cost). Ties go to the earlier option. */
static int best_option(const struct fb *s, const struct sim_view *v, const struct sim_job *job)
{
	double now = sim_time_to_s(sim_view_now(v));
	double deadline = job->deadline_ns == SIM_TIME_NONE ? INFINITY : sim_time_to_s(job->deadline_ns);
	int best_finish = 0, best_cost = -1;
	double finish_min = INFINITY, cost_min = INFINITY;
	for (int k = 0; k < job->n_opts; k++) {
		int f = sim_job_opt(sim_view_trace(v), job, k)->flavor_id;
		if (f < 0)
			continue;
		double run = estimate_s(v, job, k, f);
		double finish = now + wait_estimate(s, v, job, k) + run;
		if (finish < finish_min) {
			finish_min = finish;
			best_finish = k;
		}
		if (!s->by_cost || !(finish <= deadline))
			continue;
		double cost = option_cost(v, job, k, run);
		if (cost < cost_min) {
			cost_min = cost;
			best_cost = k;
		}
	}
	return best_cost >= 0 ? best_cost : best_finish;
}

static int fb_choose(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
		     int8_t opts[SIM_MAX_OPTIONS])
{
	struct fb *s = pol->priv;
	int k = best_option(s, v, job);
	if (job->idx < s->n_jobs) {
		const struct sim_job_option *o = sim_job_opt(sim_view_trace(v), job, k);
		queued_forget(s, job->idx);
		if (o->flavor_id >= 0) {
			double w = taken_gpus(v, o->flavor_id, o) * estimate_s(v, job, k, o->flavor_id);
			s->job_q_f[job->idx] = o->flavor_id;
			s->job_q[job->idx] = w;
			s->queued_work[o->flavor_id] += w;
		}
	}
	opts[0] = (int8_t)k;
	return 1;
}

const struct sim_policy_ops strict_fallback_policy_ops = {
	.name = "strict",
	.family = SIM_FAM_FALLBACK,
	.provides = SIM_CAP_FB_STRICT,
	.init = no_params_init,
	.choose = strict_choose,
};

const struct sim_policy_ops first_fit_fallback_policy_ops = {
	.name = "first_fit",
	.family = SIM_FAM_FALLBACK,
	.provides = SIM_CAP_FB_FIRST_FIT,
	.init = no_params_init,
	.choose = first_fit_choose,
};

/* Kueue's flavor fungibility is part of its quota cycle: only a quota policy that
 * runs its own pass can apply it. */
static const struct sim_require fungible_requires[] = {
	{ SIM_FAM_QUOTA, SIM_CAP_OWN_PASS, 0, "Kueue's flavor fungibility is part of its quota cycle" },
	{ SIM_FAM_COUNT_, 0, 0, NULL },
};

const struct sim_policy_ops fungible_fallback_policy_ops = {
	.name = "fungible",
	.family = SIM_FAM_FALLBACK,
	.provides = SIM_CAP_FB_FUNGIBLE,
	.requires = fungible_requires,
	.init = no_params_init,
};

const struct sim_policy_ops deadline_fallback_policy_ops = {
	.name = "deadline",
	.family = SIM_FAM_FALLBACK,
	.init = deadline_init,
	.fini = fb_fini,
	.on_start = fb_on_start,
	.on_stop = fb_on_stop,
	.choose = fb_choose,
};

const struct sim_policy_ops cost_fallback_policy_ops = {
	.name = "cost",
	.family = SIM_FAM_FALLBACK,
	.init = cost_init,
	.fini = fb_fini,
	.on_start = fb_on_start,
	.on_stop = fb_on_stop,
	.choose = fb_choose,
};
