/* policies/multifactor.c: Slurm's priority/multifactor with the classic fair-share
 * factor, as an order policy (docs/fair-share.md, "Slurm").
 *
 * Usage: every account (the job's user, else its queue: param account) accrues the
 * GPU-seconds its running jobs hold, decayed with half-life prioritydecayhalflife,
 * integrated exactly (fairshare.h, fs_decayed_advance) at every start and stop and at
 * every recalculation. Every prioritycalcperiod (a tick) Slurm recalculates: each
 * account's fair-share factor F = 2^(-U/S) (U its share of all usage, S its share of
 * all shares), and each queued job's priority
 *   floor(w_age * age + w_fairshare * F + w_jobsize * size + w_qos * qos)
 * with age = min((t_calc - submit) / prioritymaxage, 1), size the fraction of the
 * cluster's GPUs it asks for (1 minus it with priorityfavorsmall) and qos its trace
 * priority over the trace's largest (0 when that is <= 0). Between recalculations the
 * priorities stand still (a job submitted since has age 0), as in Slurm. Priorities are
 * truncated to integers, as Slurm's are; ties go to the earlier submit, then trace order.
 * Strict order (sched/builtin): a head that does not fit blocks the jobs behind it.
 *
 * Alone, policies/keyed.h keeps the queue; under a quota policy, the key ranks each
 * of its queues. Key = (-priority).
 */
#include <math.h>
#include <stdlib.h>

#include "fairshare.h"
#include "fs_params.h"
#include "keyed.h"
#include "policy.h"

#define MF_WEEK_S (7 * 86400.0)
#define MF_WEIGHT_MAX 4294967295.0 /* Slurm's weights are 32-bit */

struct mf {
	struct keyed_order ko;      /* standalone only */
	enum fs_account_by by;
	size_t n;                   /* accounts */
	struct fs_decayed *use;     /* per account */
	double *shares;             /* per account, raw */
	double *f;                  /* per account, fair-share factor at the last calculation */
	double *usage_at_calc;      /* scratch, per account */
	struct fs_held *held;       /* per job */
	double half_life_s, max_age_s, calc_s;
	double w_age, w_fairshare, w_jobsize, w_qos;
	int favor_small;
	sim_time_t calc_ns;         /* time of the last calculation (0: the run's start) */
	sim_qty_t cluster_mgpu;     /* GPUs in force at the last calculation */
	int32_t max_priority;       /* the trace's largest priority (QOS factor) */
	int standalone;
};

static int mf_init(struct sim_policy *pol, const struct sim_policy_env *env, const cJSON *params,
		   struct sim_diag *diag)
{
	static const char *const keys[] = { "account", "shares", "prioritydecayhalflife", "prioritycalcperiod",
					    "prioritymaxage", "priorityweightage", "priorityweightfairshare",
					    "priorityweightjobsize", "priorityweightqos", "priorityfavorsmall", NULL };
	struct mf *m = calloc(1, sizeof *m);
	if (!m)
		return -SIM_ENOMEM;
	pol->priv = m;
	keyed_order_init(&m->ko, 1);
	m->half_life_s = MF_WEEK_S;
	m->max_age_s = MF_WEEK_S;
	m->calc_s = 300;
	m->w_age = 1000;
	m->w_fairshare = 10000;
	int bad = sim_policy_params_check_keys(env, params, keys, diag);
	bad |= fs_param_account_by(env, params, "account", &m->by, diag);
	bad |= sim_policy_param_double(env, params, "prioritydecayhalflife", 0, 1e9, &m->half_life_s, diag);
	bad |= sim_policy_param_double(env, params, "prioritycalcperiod", 1, 1e9, &m->calc_s, diag);
	bad |= sim_policy_param_double(env, params, "prioritymaxage", 0, 1e9, &m->max_age_s, diag);
	bad |= sim_policy_param_double(env, params, "priorityweightage", 0, MF_WEIGHT_MAX, &m->w_age, diag);
	bad |= sim_policy_param_double(env, params, "priorityweightfairshare", 0, MF_WEIGHT_MAX, &m->w_fairshare, diag);
	bad |= sim_policy_param_double(env, params, "priorityweightjobsize", 0, MF_WEIGHT_MAX, &m->w_jobsize, diag);
	bad |= sim_policy_param_double(env, params, "priorityweightqos", 0, MF_WEIGHT_MAX, &m->w_qos, diag);
	bad |= fs_param_bool(env, params, "priorityfavorsmall", &m->favor_small, diag);
	if (bad || !env || !env->view) /* account names need the trace */
		return bad ? -SIM_EPARSE : -SIM_EINVAL;
	const struct sim_trace *t = sim_view_trace(env->view);
	m->by = fs_account_by_resolve(m->by, t);
	m->n = fs_account_count(m->by, t);
	m->use = calloc(m->n, sizeof *m->use);
	m->shares = malloc(m->n * sizeof *m->shares);
	m->f = malloc(m->n * sizeof *m->f);
	m->usage_at_calc = calloc(m->n, sizeof *m->usage_at_calc);
	m->held = calloc(t->n_jobs ? t->n_jobs : 1, sizeof *m->held);
	if (!m->use || !m->shares || !m->f || !m->usage_at_calc || !m->held)
		return -SIM_ENOMEM;
	for (size_t i = 0; i < m->n; i++) {
		m->shares[i] = 1;
		m->f[i] = 1; /* nothing used yet */
	}
	bad |= fs_param_account_numbers(env, params, "shares", 0, 1e9, m->by, t, m->shares, diag);
	if (bad)
		return -SIM_EPARSE;
	for (size_t i = 0; i < t->n_jobs; i++)
		if (i == 0 || t->jobs[i].priority > m->max_priority)
			m->max_priority = t->jobs[i].priority;
	m->cluster_mgpu = sim_cluster_gpu_total(sim_view_cluster(env->view), -1);
	m->standalone = !fs_under_quota(env->view);
	pol->tick_ns = (sim_time_t)llround(m->calc_s * (double)SIM_NS_PER_S);
	return 0;
}

static void mf_fini(struct sim_policy *pol)
{
	struct mf *m = pol->priv;
	if (m) {
		keyed_order_fini(&m->ko);
		free(m->use);
		free(m->shares);
		free(m->f);
		free(m->usage_at_calc);
		free(m->held);
	}
	free(m);
	pol->priv = NULL;
}

/* ---- usage ---- */

static uint32_t account_of(const struct sim_view *v, const struct mf *m, const struct sim_job *job)
{
	return fs_account_of(m->by, sim_view_trace(v), job);
}

static void mf_on_start(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job)
{
	struct mf *m = pol->priv;
	int opt = job->opt_chosen >= 0 ? job->opt_chosen : 0;
	sim_qty_t g = sim_job_opt(sim_view_trace(v), job, opt)->req[SIM_RES_GPU];
	fs_decayed_change(&m->use[account_of(v, m, job)], sim_view_now(v), m->half_life_s, g);
	m->held[job->idx] = (struct fs_held){ .mgpu = g, .running = 1 };
}

static void mf_on_submit(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job)
{
	struct mf *m = pol->priv;
	if (m->standalone)
		keyed_order_on_submit(&m->ko, pol, v, job);
}

/* Usage stops accruing; priorities move only at the next calculation. */
static void mf_on_stop(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
		       enum sim_stop_cause cause)
{
	struct mf *m = pol->priv;
	struct fs_held *h = &m->held[job->idx];
	if (h->running) {
		fs_decayed_change(&m->use[account_of(v, m, job)], sim_view_now(v), m->half_life_s, -h->mgpu);
		*h = (struct fs_held){ 0 };
	}
	if (m->standalone)
		keyed_order_on_stop(&m->ko, pol, v, job, cause);
}

/* PriorityCalcPeriod: usage brought to now, factors and priorities recalculated. */
static void mf_on_tick(struct sim_policy *pol, const struct sim_view *v, sim_time_t now)
{
	struct mf *m = pol->priv;
	for (size_t i = 0; i < m->n; i++) {
		fs_decayed_advance(&m->use[i], now, m->half_life_s);
		m->usage_at_calc[i] = m->use[i].usage_gpu_s;
	}
	fs_slurm_fairshare_factors(m->n, m->usage_at_calc, m->shares, m->f);
	m->calc_ns = now;
	m->cluster_mgpu = sim_cluster_gpu_total(sim_view_cluster(v), -1);
	sim_view_order_changed(v);
}

/* ---- priority ---- */

static double job_priority(const struct mf *m, const struct sim_view *v, const struct sim_job *job)
{
	double age = fs_slurm_age_factor((double)(m->calc_ns - job->submit_ns) / (double)SIM_NS_PER_S,
					 m->max_age_s);
	double fs = m->f[account_of(v, m, job)];
	double size = fs_slurm_size_factor(sim_job_opt(sim_view_trace(v), job, 0)->req[SIM_RES_GPU],
					   m->cluster_mgpu, m->favor_small);
	double qos = m->max_priority > 0 && job->eff_priority > 0 ? (double)job->eff_priority / m->max_priority : 0;
	if (qos > 1)
		qos = 1;
	return floor(m->w_age * age + m->w_fairshare * fs + m->w_jobsize * size + m->w_qos * qos);
}

static void mf_order_key(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
			 struct sim_order_key *out)
{
	*out = (struct sim_order_key){ { -job_priority(pol->priv, v, job), 0, 0 } };
}

/* Context: after all events at now (standalone only). */
static int mf_pick(struct sim_policy *pol, const struct sim_view *v, struct sim_placement_buf *out)
{
	struct mf *m = pol->priv;
	return keyed_order_pick(&m->ko, pol, v, out);
}

const struct sim_policy_ops multifactor_policy_ops = {
	.name = "multifactor",
	.family = SIM_FAM_ORDER,
	.provides = SIM_CAP_ORDER_KEY,
	.init = mf_init,
	.fini = mf_fini,
	.on_submit = mf_on_submit,
	.on_start = mf_on_start,
	.on_stop = mf_on_stop,
	.on_tick = mf_on_tick,
	.pick = mf_pick,
	.order_key = mf_order_key,
};
