/* sim/hooks.c: checks on policy tables. */
#include "hooks.h"

#include <string.h>

const char *sim_policy_family_name(enum sim_policy_family f)
{
	static const char *const names[SIM_FAM_COUNT_] = { "order", "quota", "preemption", "fallback" };
	return (unsigned)f < SIM_FAM_COUNT_ ? names[f] : "invalid";
}

const char *sim_preempt_reason_name(enum sim_preempt_reason r)
{
	static const char *const names[SIM_PR_COUNT_] = { "in_queue", "cohort_reclamation",
							  "cohort_reclaim_while_borrowing",
							  "cohort_fair_sharing", "quota_shrink", "order" };
	return (unsigned)r < SIM_PR_COUNT_ ? names[r] : "invalid";
}

const char *sim_stop_cause_name(enum sim_stop_cause c)
{
	static const char *const names[SIM_STOP_COUNT_] = { "completed", "failed", "preempted", "capacity_removed",
							    "pending_timeout", "node_failed", "crashed", "hang", "spot",
							    "max_wait", "loss_spike", "slow_migrated" };
	return (unsigned)c < SIM_STOP_COUNT_ ? names[c] : "invalid";
}

int sim_policy_ops_validate(const struct sim_policy_ops *ops, struct sim_diag *diag)
{
	if (!ops || !ops->name || !ops->name[0])
		return sim_diag_add(diag, "policy", "expected a named ops table"), -SIM_EINVAL;
	if (strspn(ops->name, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(ops->name))
		return sim_diag_add(diag, ops->name, "expected a name of [a-z0-9_]"), -SIM_EINVAL;
	if ((unsigned)ops->family >= SIM_FAM_COUNT_)
		return sim_diag_add(diag, ops->name, "expected a known family"), -SIM_EINVAL;
	if (ops->family == SIM_FAM_ORDER && !ops->pick)
		return sim_diag_add(diag, ops->name, "an order policy must have pick"), -SIM_EINVAL;
	if (ops->family == SIM_FAM_QUOTA && !ops->admit)
		return sim_diag_add(diag, ops->name, "a quota policy must have admit"), -SIM_EINVAL;
	if ((ops->provides & SIM_CAP_ORDER_KEY) && !ops->order_key)
		return sim_diag_add(diag, ops->name, "SIM_CAP_ORDER_KEY needs order_key"), -SIM_EINVAL;
	if ((ops->provides & SIM_CAP_OWN_PASS) && !ops->pick)
		return sim_diag_add(diag, ops->name, "SIM_CAP_OWN_PASS needs pick"), -SIM_EINVAL;
	return 0;
}
