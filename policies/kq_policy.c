/* policies/kq_policy.c: the preemption policies `classical` and `fair_sharing`.
 *
 * Kueue decides preemption inside its scheduling cycle, so these tables hold only
 * settings: the cohort quota policy reads them (kq_preempt_params_of) and applies
 * them to every queue that does not state its own. Their defaults differ from the
 * Kueue API defaults on purpose: choosing `classical` should preempt
 * (within_queue LowerPriority, reclaim_within_cohort Any); `none` turns preemption
 * off whatever the queues say.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kq_policy.h"
#include "policy.h"

static int want_policy(const struct sim_policy_env *env, const cJSON *params, const char *key, int allow_newer,
		       int allow_any, enum kq_policy *out, struct sim_diag *diag)
{
	const cJSON *v = params ? cJSON_GetObjectItemCaseSensitive(params, key) : NULL;
	if (!v)
		return 0;
	int p = cJSON_IsString(v) ? kq_policy_from_name(v->valuestring) : -1;
	if (p < 0 || (p == KQ_LOWER_OR_NEWER_EQUAL && !allow_newer) || (p == KQ_ANY && !allow_any))
		return sim_diag_add(diag, env->file, "%s.%s: expected %s, got %s", env->json_path, key,
				    allow_newer ? "Never, LowerPriority or LowerOrNewerEqualPriority"
						: "Never, LowerPriority or Any",
				    cJSON_IsString(v) ? v->valuestring : "a non-string");
	*out = (enum kq_policy)p;
	return 0;
}

static int read_bwc(const struct sim_policy_env *env, const cJSON *params, struct kq_preempt_params *p,
		    struct sim_diag *diag)
{
	const cJSON *b = params ? cJSON_GetObjectItemCaseSensitive(params, "borrow_within_cohort") : NULL;
	if (!b || cJSON_IsNull(b))
		return 0;
	const cJSON *pol = cJSON_GetObjectItemCaseSensitive(b, "policy");
	const cJSON *thr = cJSON_GetObjectItemCaseSensitive(b, "max_priority_threshold");
	int n_keys = cJSON_GetArraySize(b);
	if (!cJSON_IsObject(b) || !cJSON_IsString(pol) ||
	    (strcmp(pol->valuestring, "LowerPriority") != 0 && strcmp(pol->valuestring, "Never") != 0) ||
	    (thr && !cJSON_IsNull(thr) && (!cJSON_IsNumber(thr) || thr->valuedouble != (int32_t)thr->valuedouble)) ||
	    n_keys != 1 + (thr != NULL))
		return sim_diag_add(diag, env->file,
				    "%s.borrow_within_cohort: expected null or {\"policy\": \"LowerPriority\" | "
				    "\"Never\", \"max_priority_threshold\": integer or null}",
				    env->json_path);
	p->bwc = strcmp(pol->valuestring, "LowerPriority") == 0;
	p->bwc_has_threshold = thr && !cJSON_IsNull(thr);
	p->bwc_threshold = p->bwc_has_threshold ? (int32_t)thr->valuedouble : 0;
	return 0;
}

static int read_strategies(const struct sim_policy_env *env, const cJSON *params, struct kq_preempt_params *p,
			   struct sim_diag *diag)
{
	const cJSON *s = params ? cJSON_GetObjectItemCaseSensitive(params, "strategies") : NULL;
	p->le_final = p->lt_initial = 1; /* Kueue's default: both, final share first */
	if (!s)
		return 0;
	int n = cJSON_GetArraySize(s), ok = cJSON_IsArray(s) && n >= 1 && n <= 2;
	p->le_final = p->lt_initial = 0;
	for (int i = 0; ok && i < n; i++) {
		const cJSON *e = cJSON_GetArrayItem(s, i);
		if (cJSON_IsString(e) && strcmp(e->valuestring, "LessThanOrEqualToFinalShare") == 0 && !p->le_final)
			p->le_final = 1;
		else if (cJSON_IsString(e) && strcmp(e->valuestring, "LessThanInitialShare") == 0 && !p->lt_initial)
			p->lt_initial = 1, p->first_is_initial = i == 0;
		else
			ok = 0;
	}
	if (!ok)
		return sim_diag_add(diag, env->file,
				    "%s.strategies: expected a list of 1 or 2 distinct names out of "
				    "LessThanOrEqualToFinalShare, LessThanInitialShare",
				    env->json_path);
	return 0;
}

/* The cost of a stop is part of the job model, paid whatever stopped the job: its
 * keys moved out of the preemption policy. */
static int refuse_moved_cost_keys(const struct sim_policy_env *env, const cJSON *params, struct sim_diag *diag)
{
	static const char *const moved[][2] = { { "checkpoint_overhead_s", "overhead_s" }, { "restore_s", "restore_s" } };
	int bad = 0;
	for (size_t i = 0; params && i < sizeof moved / sizeof moved[0]; i++)
		if (cJSON_GetObjectItemCaseSensitive(params, moved[i][0]))
			bad = sim_diag_add(diag, env->file,
					   "%s.%s: expected $.jobs.checkpoint.%s instead (the cost of a stop is part "
					   "of the job model, paid whatever stopped the job)",
					   env->json_path, moved[i][0], moved[i][1]) ? -SIM_EPARSE : -SIM_EPARSE;
	return bad;
}

static int preempt_init(struct sim_policy *pol, const struct sim_policy_env *env, const cJSON *params,
			struct sim_diag *diag, int fair)
{
	static const char *const classical_keys[] = { "within_queue", "reclaim_within_cohort", "borrow_within_cohort",
						      NULL };
	static const char *const fair_keys[] = { "within_queue", "reclaim_within_cohort", "strategies", NULL };
	if (refuse_moved_cost_keys(env, params, diag) ||
	    sim_policy_params_check_keys(env, params, fair ? fair_keys : classical_keys, diag))
		return -SIM_EPARSE;
	struct kq_preempt_params *p = calloc(1, sizeof *p);
	if (!p)
		return -SIM_ENOMEM;
	pol->priv = p;
	p->fair = fair;
	p->within = KQ_LOWER_PRIORITY;
	p->reclaim = KQ_ANY;
	int bad = want_policy(env, params, "within_queue", 1, 0, &p->within, diag) |
		  want_policy(env, params, "reclaim_within_cohort", 0, 1, &p->reclaim, diag);
	bad |= fair ? read_strategies(env, params, p, diag) : read_bwc(env, params, p, diag);
	return bad ? -SIM_EPARSE : 0;
}

static int classical_init(struct sim_policy *pol, const struct sim_policy_env *env, const cJSON *params,
			  struct sim_diag *diag)
{
	return preempt_init(pol, env, params, diag, 0);
}

static int fair_init(struct sim_policy *pol, const struct sim_policy_env *env, const cJSON *params,
		     struct sim_diag *diag)
{
	return preempt_init(pol, env, params, diag, 1);
}

static void preempt_fini(struct sim_policy *pol)
{
	free(pol->priv);
	pol->priv = NULL;
}

/* Preemption acts on queues' quota: the quota policy's cycle decides it. */
static const struct sim_require preempt_requires[] = {
	{ SIM_FAM_QUOTA, SIM_CAP_PREEMPT_CYCLE, 0, "preemption acts on queues' quota, in the quota cycle" },
	{ SIM_FAM_COUNT_, 0, 0, NULL },
};

const struct sim_policy_ops classical_preempt_policy_ops = {
	.name = "classical",
	.family = SIM_FAM_PREEMPT,
	.requires = preempt_requires,
	.init = classical_init,
	.fini = preempt_fini,
};

const struct sim_policy_ops fair_sharing_preempt_policy_ops = {
	.name = "fair_sharing",
	.family = SIM_FAM_PREEMPT,
	.requires = preempt_requires,
	.init = fair_init,
	.fini = preempt_fini,
};

const struct kq_preempt_params *kq_preempt_params_of(const struct sim_policy *pp)
{
	if (pp->ops != &classical_preempt_policy_ops && pp->ops != &fair_sharing_preempt_policy_ops)
		return NULL;
	return pp->priv;
}

void kq_preempt_params_apply(const struct kq_preempt_params *pr, struct kq_sched *kq, int node,
			     unsigned explicit_mask)
{
	struct kq_queue_cfg *cfg = &kq->nodes[node].cfg;
	if (!(explicit_mask & KQ_SET_WITHIN))
		cfg->within = pr->within;
	if (!(explicit_mask & KQ_SET_RECLAIM))
		cfg->reclaim = pr->reclaim;
	if (pr->fair) {
		cfg->bwc = 0; /* borrowWithinCohort does not apply with fair sharing */
	} else if (!(explicit_mask & KQ_SET_BWC)) {
		cfg->bwc = pr->bwc;
		cfg->bwc_has_threshold = pr->bwc_has_threshold;
		cfg->bwc_threshold = pr->bwc_threshold;
	}
}
