/* policies/policy.h: the policy registry. The ops table itself is in sim/hooks.h.
 *
 * A new policy is one file ending in its table plus one line in registry.c.
 */
#ifndef POLICIES_POLICY_H
#define POLICIES_POLICY_H

#include "../sim/engine.h"
#include "../sim/hooks.h"

/* The table named `name` in `family`, or NULL. */
const struct sim_policy_ops *sim_policy_lookup(enum sim_policy_family family, const char *name);
/* Every registered table, NULL-terminated (for contract tests and --help). */
const struct sim_policy_ops *const *sim_policy_all(void);

/* Creates pol from the table (validate, then init). On failure pol->ops is NULL
 * and diag says why. */
int sim_policy_create(struct sim_policy *pol, const struct sim_policy_ops *ops,
		      const struct sim_policy_env *env, const cJSON *params, struct sim_diag *diag);
void sim_policy_destroy(struct sim_policy *pol); /* calls fini; safe twice */
/* 1 if `name` in a config means no policy of this family (quota and preemption
 * "none"). */
int sim_policy_is_none(enum sim_policy_family family, const char *name);

/* The stack validator: checks that the policies of a run combine, from what each
 * table provides and requires (sim/hooks.h, SIM_CAP_*), before anything is
 * created. ops[f] is the table of family f, NULL for none; paths[f] the JSON path
 * of that family in the config, for the message. The first requirement not met is
 * refused: "FILE: $.policies.X: expected one of A, B with <family> <name> (why),
 * got \"C\"", or, when the family has no policy, located at the policy that needs
 * it. Returns 0 or -SIM_EINVAL. */
int sim_stack_validate(const struct sim_policy_ops *const ops[SIM_FAM_COUNT_], const char *file,
		       const char *const paths[SIM_FAM_COUNT_], struct sim_diag *diag);

extern const struct sim_policy_ops fifo_policy_ops;
extern const struct sim_policy_ops priority_policy_ops;
extern const struct sim_policy_ops easy_backfill_policy_ops;
extern const struct sim_policy_ops independent_policy_ops; /* order: no blocking head (SageMaker) */
extern const struct sim_policy_ops batch_fair_share_policy_ops; /* order: AWS Batch fair share (docs/fair-share.md) */
extern const struct sim_policy_ops hyperpod_policy_ops;         /* order: HyperPod task governance */
extern const struct sim_policy_ops multifactor_policy_ops;      /* order: Slurm's multifactor priority */
extern const struct sim_policy_ops admission_fair_sharing_policy_ops; /* order: Kueue's AFS (policies/afs.c) */
extern const struct sim_policy_ops cohort_policy_ops;      /* quota: Kueue cohorts (policies/cohort.c) */
extern const struct sim_policy_ops hard_quota_policy_ops;  /* quota: nominal as a cap */
extern const struct sim_policy_ops classical_preempt_policy_ops; /* preemption (policies/kq_policy.c) */
extern const struct sim_policy_ops fair_sharing_preempt_policy_ops;
/* fallback (policies/fallback.c) */
extern const struct sim_policy_ops strict_fallback_policy_ops;
extern const struct sim_policy_ops first_fit_fallback_policy_ops;
extern const struct sim_policy_ops fungible_fallback_policy_ops;
extern const struct sim_policy_ops deadline_fallback_policy_ops;
extern const struct sim_policy_ops cost_fallback_policy_ops;

/* Shared by order policies: reads an optional integer param. Returns 0, or
 * -SIM_EPARSE with "FILE: $.path.key: expected ..., got ..." in diag. */
int sim_policy_param_double(const struct sim_policy_env *env, const cJSON *params, const char *key,
			    double min, double max, double *inout, struct sim_diag *diag);
/* Refuses keys of params not in the NULL-terminated list. */
int sim_policy_params_check_keys(const struct sim_policy_env *env, const cJSON *params,
				 const char *const *known, struct sim_diag *diag);

#endif
