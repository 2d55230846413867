/* policies/fs_params.h: reading the params of the fair-share order policies
 * (multifactor, batch_fair_share, hyperpod) with located errors, as
 * sim_policy_param_double does: "FILE: $.policies.order.KEY: expected ..., got ...".
 * Each returns 0 (absent keys leave *inout as it is) or -SIM_EPARSE with diag filled. */
#ifndef POLICIES_FS_PARAMS_H
#define POLICIES_FS_PARAMS_H

#include "fairshare.h"
#include "policy.h"

int fs_param_bool(const struct sim_policy_env *env, const cJSON *params, const char *key, int *inout,
		  struct sim_diag *diag);
/* "auto", "user" or "queue". */
int fs_param_account_by(const struct sim_policy_env *env, const cJSON *params, const char *key,
			enum fs_account_by *inout, struct sim_diag *diag);
/* An object {account name: number in [min, max]} applied to per_account[] (n accounts of
 * rule `by`, resolved): names the trace does not have are ignored (a config may list
 * more accounts than one trace uses); a name ending in '*' sets every account starting
 * with the rest that no exact name set. */
int fs_param_account_numbers(const struct sim_policy_env *env, const cJSON *params, const char *key,
			     double min, double max, enum fs_account_by by, const struct sim_trace *t,
			     double *per_account, struct sim_diag *diag);
/* Records "FILE: $.path.KEY: MSG" (the key may be "a[2].b"). Returns -SIM_EPARSE. */
int fs_param_error(const struct sim_policy_env *env, struct sim_diag *diag, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Applies values to accounts by name (names[i] -> values[i]): exact names first, then
 * each 'prefix*' to the accounts starting with prefix that no exact name set (the
 * first such prefix in list order wins). Unknown names are ignored. */
void fs_apply_names(size_t n, const char *const *names, const double *values, enum fs_account_by by,
		    const struct sim_trace *t, double *per_account);
/* 1 when the config has a quota policy (then the quota policy schedules and the order
 * policy only ranks jobs inside its queues). Valid from init on. */
int fs_under_quota(const struct sim_view *v);

#endif
