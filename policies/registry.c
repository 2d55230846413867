/* policies/registry.c: every policy, by family and name. A new policy is one file
 * ending in its ops table plus one line here. */
#include <string.h>

#include "policy.h"

static const struct sim_policy_ops *const registry[] = {
	&fifo_policy_ops,
	&priority_policy_ops,
	&easy_backfill_policy_ops,
	&independent_policy_ops,
	&batch_fair_share_policy_ops,
	&cohort_policy_ops,
	&hard_quota_policy_ops,
	&classical_preempt_policy_ops,
	&fair_sharing_preempt_policy_ops,
	&strict_fallback_policy_ops,
	&first_fit_fallback_policy_ops,
	&fungible_fallback_policy_ops,
	&deadline_fallback_policy_ops,
	&cost_fallback_policy_ops,
	NULL,
};

const struct sim_policy_ops *const *sim_policy_all(void)
{
	return registry;
}

const struct sim_policy_ops *sim_policy_lookup(enum sim_policy_family family, const char *name)
{
	for (size_t i = 0; registry[i]; i++)
		if (registry[i]->family == family && strcmp(registry[i]->name, name) == 0)
			return registry[i];
	return NULL;
}

int sim_policy_create(struct sim_policy *pol, const struct sim_policy_ops *ops,
		      const struct sim_policy_env *env, const cJSON *params, struct sim_diag *diag)
{
	pol->ops = NULL;
	pol->priv = NULL;
	int rc = sim_policy_ops_validate(ops, diag);
	if (rc)
		return rc;
	pol->ops = ops;
	if (ops->init && (rc = ops->init(pol, env, params, diag))) {
		if (ops->fini)
			ops->fini(pol);
		pol->ops = NULL;
		pol->priv = NULL;
		return rc;
	}
	return 0;
}

void sim_policy_destroy(struct sim_policy *pol)
{
	if (pol->ops && pol->ops->fini)
		pol->ops->fini(pol);
	pol->ops = NULL;
	pol->priv = NULL;
}
