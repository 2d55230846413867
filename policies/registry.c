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
	&hyperpod_policy_ops,
	&multifactor_policy_ops,
	&admission_fair_sharing_policy_ops,
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
	pol->tick_ns = 0;
	if (ops->init && (rc = ops->init(pol, env, params, diag)) == 0 &&
	    (pol->tick_ns < 0 || (pol->tick_ns > 0 && !ops->on_tick)))
		rc = sim_diag_add(diag, env->file, "%s: policy %s set a tick period without on_tick", env->json_path,
				  ops->name) ? -SIM_EINVAL : -SIM_EINVAL;
	if (rc) {
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

int sim_policy_is_none(enum sim_policy_family family, const char *name)
{
	return (family == SIM_FAM_QUOTA || family == SIM_FAM_PREEMPT) && strcmp(name, "none") == 0;
}

/* The registered names of `family` that provide a bit of any_of, joined by ", ". */
static void providers(enum sim_policy_family family, uint32_t any_of, char *buf, size_t n)
{
	buf[0] = 0;
	for (size_t i = 0; registry[i]; i++) {
		if (registry[i]->family != family || !(registry[i]->provides & any_of))
			continue;
		if (buf[0])
			strncat(buf, ", ", n - strlen(buf) - 1);
		strncat(buf, registry[i]->name, n - strlen(buf) - 1);
	}
}

/* One requirement of the policy in family f; 0 or -SIM_EINVAL with a message. */
static int check_requirement(const struct sim_policy_ops *const ops[SIM_FAM_COUNT_], enum sim_policy_family f,
			     const struct sim_require *r, const char *file, const char *const paths[SIM_FAM_COUNT_],
			     struct sim_diag *diag)
{
	const struct sim_policy_ops *have = ops[r->family];
	if (have ? (have->provides & r->any_of) != 0 : r->absent_ok)
		return 0;
	char names[256];
	providers(r->family, r->any_of, names, sizeof names);
	if (!have)
		sim_diag_add(diag, file, "%s: %s %s needs a %s policy, one of %s (%s), got none", paths[f],
			     sim_policy_family_name(f), ops[f]->name, sim_policy_family_name(r->family), names, r->why);
	else
		sim_diag_add(diag, file, "%s: expected one of %s with %s %s (%s), got \"%s\"", paths[r->family], names,
			     sim_policy_family_name(f), ops[f]->name, r->why, have->name);
	return -SIM_EINVAL;
}

int sim_stack_validate(const struct sim_policy_ops *const ops[SIM_FAM_COUNT_], const char *file,
		       const char *const paths[SIM_FAM_COUNT_], struct sim_diag *diag)
{
	if (!ops[SIM_FAM_ORDER])
		return sim_diag_add(diag, file, "%s: expected an order policy, got none", paths[SIM_FAM_ORDER]),
		       -SIM_EINVAL;
	for (int f = 0; f < SIM_FAM_COUNT_; f++) {
		if (!ops[f] || !ops[f]->requires)
			continue;
		for (const struct sim_require *r = ops[f]->requires; r->family != SIM_FAM_COUNT_; r++) {
			int rc = check_requirement(ops, (enum sim_policy_family)f, r, file, paths, diag);
			if (rc)
				return rc;
		}
	}
	return 0;
}
