/* policies/afs.c: the order policy `admission_fair_sharing`, Kueue's admission
 * fair sharing (UsageBasedAdmissionFairSharing), docs/fair-share-kueue.md.
 *
 * LocalQueues are a level under each queue: the LocalQueue of a job is the pair
 * (its queue, its trace `user`); a job without a user is in its queue's default
 * LocalQueue. Each LocalQueue keeps a decayed consumed usage C[r] per resource
 * and the live usage U[r] of its jobs that hold a reservation. With
 * a(dt) = 1 - 0.5^(dt / half_life):
 *   - sampling, every usage_sampling_interval_s (a tick): C <- C (1 - a(dt)) + U a(dt),
 *     dt the time since the LocalQueue's last update;
 *   - a reservation (on_reserve: the quota cycle books the job, or it is placed)
 *     adds the job's request to U, updates C the same way to now, then adds the
 *     entry penalty request x a(usage_sampling_interval_s) to C (Kueue pushes the
 *     penalty when it assumes the workload and folds it into the consumed usage
 *     when the admission is processed; here both happen at once, so no penalty is
 *     ever left pending);
 *   - a stop takes the job's request out of U.
 * The score of a LocalQueue is sum_r w_r C[r] / weight (w_r from resource_weights,
 * default 1; C in the config's units: GPUs, cores, memory units); weight <= 0
 * scores +infinity (always last). Inside a queue a job ranks by (score of its
 * LocalQueue, then higher priority), then the scheduler's tie-breaks (Kueue's
 * timestamp, then trace order): the score is compared before priority.
 *
 * Under a quota policy (cohort, hard) the score is read between the cycles of a
 * pass, so one LocalQueue's second job waits behind another LocalQueue's first
 * when the penalty tips the balance (Kueue's "admits one workload from each
 * localqueue when quota is limited"). Alone, jobs start in the same order, strict
 * (a head that does not fit blocks the rest, as fifo and priority).
 *
 * Ownership: the policy owns its LocalQueue table and per-job flags; memory is
 * O(queues x (users + 1) + jobs).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "keyed.h"
#include "policy.h"

struct afs_lq {
	double consumed[SIM_MAX_RES]; /* C, decayed, config units */
	double live[SIM_MAX_RES];     /* U: requests of its jobs holding a reservation */
	sim_time_t last_ns;           /* when C was last brought up to date */
	double weight;                /* LocalQueue weight, default 1 */
};

struct afs {
	struct keyed_order ko;       /* standalone order */
	double half_life_s;          /* usage_half_life_s */
	double interval_s;           /* usage_sampling_interval_s */
	double res_weight[SIM_MAX_RES];
	int n_res;
	struct afs_lq *lq;           /* [queue x (n_users + 1) + user + 1] */
	size_t n_lq, n_users;
	uint8_t *reserved;           /* per job: counted in its LocalQueue's live usage */
	size_t n_jobs;
};

/* a(dt) = 1 - 0.5^(dt / half_life); a half-life of 0 keeps no history (a = 1). */
static double alpha(const struct afs *a, double dt_s)
{
	if (a->half_life_s <= 0)
		return 1.0;
	return 1.0 - pow(0.5, dt_s / a->half_life_s);
}

static struct afs_lq *lq_of(struct afs *a, const struct sim_job *job)
{
	return &a->lq[(size_t)job->queue * (a->n_users + 1) + (size_t)(job->user + 1)];
}

/* Brings C up to now: C <- C (1 - a(dt)) + U a(dt). */
static void lq_decay_to(struct afs *a, struct afs_lq *q, sim_time_t now)
{
	double dt = now > q->last_ns ? sim_time_to_s(now - q->last_ns) : 0;
	double al = alpha(a, dt);
	for (int r = 0; r < a->n_res; r++)
		q->consumed[r] = q->consumed[r] * (1.0 - al) + q->live[r] * al;
	q->last_ns = now;
}

static double lq_score(const struct afs *a, const struct afs_lq *q)
{
	if (!(q->weight > 0))
		return INFINITY;
	double u = 0;
	for (int r = 0; r < a->n_res; r++)
		u += a->res_weight[r] * q->consumed[r];
	return u / q->weight;
}

/* The request of option 0 in config units (resource r of the cluster). */
static double request_units(const struct sim_view *v, const struct sim_job *job, int r)
{
	return (double)sim_job_opt(sim_view_trace(v), job, 0)->req[r] / SIM_MILLI;
}

/* ---- params ---- */

static int read_resource_weights(struct afs *a, const struct sim_policy_env *env, const cJSON *params,
				 const struct sim_resources *res, struct sim_diag *diag)
{
	for (int r = 0; r < res->n; r++)
		a->res_weight[r] = 1.0; /* Kueue: a resource without a weight counts 1 */
	const cJSON *w = params ? cJSON_GetObjectItemCaseSensitive(params, "resource_weights") : NULL;
	if (!w)
		return 0;
	if (!cJSON_IsObject(w))
		return sim_diag_add(diag, env->file, "%s.resource_weights: expected an object of resource: weight",
				    env->json_path);
	int bad = 0;
	for (const cJSON *it = w->child; it; it = it->next) {
		int r = sim_resources_find(res, it->string);
		if (r < 0 || !cJSON_IsNumber(it) || !isfinite(it->valuedouble) || it->valuedouble < 0) {
			bad = sim_diag_add(diag, env->file,
					   "%s.resource_weights.%s: expected a number >= 0 for a resource of the "
					   "cluster",
					   env->json_path, it->string);
			continue;
		}
		a->res_weight[r] = it->valuedouble;
	}
	return bad;
}

static int find_user(const struct sim_trace *t, const char *name)
{
	for (size_t u = 0; u < t->n_users; u++)
		if (strcmp(t->users[u], name) == 0)
			return (int)u;
	return -2;
}

static int find_queue(const struct sim_trace *t, const char *name)
{
	for (size_t q = 0; q < t->n_queues; q++)
		if (strcmp(t->queues[q], name) == 0)
			return (int)q;
	return -1;
}

/* local_queues: [{"queue": Q, "user": U (omitted: the default LocalQueue), "weight": W}].
 * A LocalQueue the trace never uses is an error: its name is probably misspelt. */
static int read_local_queues(struct afs *a, const struct sim_policy_env *env, const cJSON *params,
			     const struct sim_trace *t, struct sim_diag *diag)
{
	const cJSON *l = params ? cJSON_GetObjectItemCaseSensitive(params, "local_queues") : NULL;
	if (!l)
		return 0;
	if (!cJSON_IsArray(l))
		return sim_diag_add(diag, env->file, "%s.local_queues: expected a list of {queue, user, weight}",
				    env->json_path);
	int bad = 0, i = 0;
	for (const cJSON *it = l->child; it; it = it->next, i++) {
		const cJSON *q = cJSON_GetObjectItemCaseSensitive(it, "queue");
		const cJSON *u = cJSON_GetObjectItemCaseSensitive(it, "user");
		const cJSON *w = cJSON_GetObjectItemCaseSensitive(it, "weight");
		int qi = cJSON_IsString(q) ? find_queue(t, q->valuestring) : -1;
		int ui = !u ? -1 : (cJSON_IsString(u) ? find_user(t, u->valuestring) : -2);
		int n_keys = cJSON_GetArraySize(it);
		if (!cJSON_IsObject(it) || qi < 0 || ui < -1 || !cJSON_IsNumber(w) || !isfinite(w->valuedouble) ||
		    w->valuedouble < 0 || n_keys != 2 + (u != NULL)) {
			bad = sim_diag_add(diag, env->file,
					   "%s.local_queues[%d]: expected {\"queue\": a queue of the trace, \"user\": "
					   "a user of the trace (optional), \"weight\": number >= 0}",
					   env->json_path, i);
			continue;
		}
		a->lq[(size_t)qi * (a->n_users + 1) + (size_t)(ui + 1)].weight = w->valuedouble;
	}
	return bad;
}

static int afs_init(struct sim_policy *pol, const struct sim_policy_env *env, const cJSON *params,
		    struct sim_diag *diag)
{
	static const char *const keys[] = { "usage_half_life_s", "usage_sampling_interval_s", "resource_weights",
					    "local_queues", NULL };
	struct afs *a = calloc(1, sizeof *a);
	if (!a)
		return -SIM_ENOMEM;
	pol->priv = a;
	keyed_order_init(&a->ko, 1);
	a->half_life_s = 168 * 3600.0; /* Kueue's documented example (168h) */
	a->interval_s = 300;           /* Kueue's default usageSamplingInterval (5m) */
	int bad = sim_policy_params_check_keys(env, params, keys, diag);
	bad |= sim_policy_param_double(env, params, "usage_half_life_s", 0, 3.15e9, &a->half_life_s, diag);
	bad |= sim_policy_param_double(env, params, "usage_sampling_interval_s", 1e-3, 3.15e9, &a->interval_s, diag);
	if (bad)
		return -SIM_EPARSE;
	if (!env->view) /* a table check without a run */
		return 0;
	const struct sim_trace *t = sim_view_trace(env->view);
	const struct sim_resources *res = sim_cluster_resources(sim_view_cluster(env->view));
	a->n_res = res->n;
	a->n_users = t->n_users;
	a->n_lq = (t->n_queues ? t->n_queues : 1) * (t->n_users + 1);
	a->n_jobs = t->n_jobs;
	a->lq = calloc(a->n_lq, sizeof *a->lq);
	a->reserved = calloc(t->n_jobs ? t->n_jobs : 1, 1);
	if (!a->lq || !a->reserved)
		return -SIM_ENOMEM;
	for (size_t i = 0; i < a->n_lq; i++)
		a->lq[i].weight = 1.0;
	bad |= read_resource_weights(a, env, params, res, diag);
	bad |= read_local_queues(a, env, params, t, diag);
	pol->tick_ns = (sim_time_t)llround(a->interval_s * 1e9);
	if (pol->tick_ns < 1)
		pol->tick_ns = 1;
	return bad ? -SIM_EPARSE : 0;
}

static void afs_fini(struct sim_policy *pol)
{
	struct afs *a = pol->priv;
	if (a) {
		keyed_order_fini(&a->ko);
		free(a->lq);
		free(a->reserved);
	}
	free(a);
	pol->priv = NULL;
}

/* ---- usage ---- */

static void afs_on_reserve(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job)
{
	struct afs *a = pol->priv;
	if (job->idx >= a->n_jobs || a->reserved[job->idx])
		return;
	a->reserved[job->idx] = 1;
	struct afs_lq *q = lq_of(a, job);
	for (int r = 0; r < a->n_res; r++)
		q->live[r] += request_units(v, job, r);
	lq_decay_to(a, q, sim_view_now(v));
	double penalty = alpha(a, a->interval_s);
	for (int r = 0; r < a->n_res; r++)
		q->consumed[r] += request_units(v, job, r) * penalty;
	sim_view_order_changed_queue(v, job->queue); /* only its LocalQueue's score moved */
}

static void afs_on_stop(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
			enum sim_stop_cause cause)
{
	struct afs *a = pol->priv;
	if (job->idx < a->n_jobs && a->reserved[job->idx]) {
		a->reserved[job->idx] = 0;
		struct afs_lq *q = lq_of(a, job);
		for (int r = 0; r < a->n_res; r++)
			q->live[r] -= request_units(v, job, r);
	}
	keyed_order_on_stop(&a->ko, pol, v, job, cause);
}

/* Sampling: every LocalQueue's consumed usage is brought up to now; the queues
 * holding one whose score moved are re-keyed. */
static void afs_on_tick(struct sim_policy *pol, const struct sim_view *v, sim_time_t now)
{
	struct afs *a = pol->priv;
	for (size_t i = 0; i < a->n_lq; i++) {
		double before = lq_score(a, &a->lq[i]);
		lq_decay_to(a, &a->lq[i], now);
		if (lq_score(a, &a->lq[i]) != before)
			sim_view_order_changed_queue(v, (int32_t)(i / (a->n_users + 1)));
	}
}

/* ---- order ---- */

static void afs_order_key(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
			  struct sim_order_key *out)
{
	(void)v;
	struct afs *a = pol->priv;
	*out = (struct sim_order_key){ { lq_score(a, lq_of(a, job)), -(double)job->eff_priority, 0 } };
}

static void afs_on_submit(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job)
{
	struct afs *a = pol->priv;
	keyed_order_on_submit(&a->ko, pol, v, job);
}

static int afs_pick(struct sim_policy *pol, const struct sim_view *v, struct sim_placement_buf *out)
{
	struct afs *a = pol->priv;
	return keyed_order_pick(&a->ko, pol, v, out);
}

const struct sim_policy_ops admission_fair_sharing_policy_ops = {
	.name = "admission_fair_sharing",
	.family = SIM_FAM_ORDER,
	.provides = SIM_CAP_ORDER_KEY,
	.init = afs_init,
	.fini = afs_fini,
	.on_submit = afs_on_submit,
	.on_stop = afs_on_stop,
	.on_tick = afs_on_tick,
	.pick = afs_pick,
	.order_key = afs_order_key,
	.on_reserve = afs_on_reserve,
};
