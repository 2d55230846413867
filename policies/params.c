/* policies/params.c: reading a policy's "params" object with located errors. */
#include <math.h>
#include <string.h>

#include "policy.h"

static void where(const struct sim_policy_env *env, char *buf, size_t n)
{
	snprintf(buf, n, "%s", env && env->file ? env->file : "config");
}

int sim_policy_params_check_keys(const struct sim_policy_env *env, const cJSON *params,
				 const char *const *known, struct sim_diag *diag)
{
	if (!params)
		return 0;
	int rc = 0;
	char w[512];
	where(env, w, sizeof w);
	for (const cJSON *it = params->child; it; it = it->next) {
		int ok = strcmp(it->string, "name") == 0;
		for (size_t k = 0; known && known[k] && !ok; k++)
			ok = strcmp(it->string, known[k]) == 0;
		if (!ok) {
			char keys[256] = "";
			for (size_t k = 0; known && known[k]; k++) {
				strncat(keys, k ? ", " : "", sizeof keys - strlen(keys) - 1);
				strncat(keys, known[k], sizeof keys - strlen(keys) - 1);
			}
			rc = sim_diag_add(diag, w, "%s.%s: expected one of the keys (name%s%s), got unknown key",
					  env ? env->json_path : "$", it->string, keys[0] ? ", " : "", keys);
		}
	}
	return rc;
}

int sim_policy_param_double(const struct sim_policy_env *env, const cJSON *params, const char *key,
			    double min, double max, double *inout, struct sim_diag *diag)
{
	if (!params)
		return 0;
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(params, key);
	if (!it)
		return 0;
	char w[512];
	where(env, w, sizeof w);
	if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble) || it->valuedouble < min ||
	    it->valuedouble > max) {
		char *txt = cJSON_PrintUnformatted(it);
		int rc = sim_diag_add(diag, w, "%s.%s: expected a number in [%g, %g], got %s",
				      env ? env->json_path : "$", key, min, max, txt ? txt : "?");
		cJSON_free(txt);
		return rc;
	}
	*inout = it->valuedouble;
	return 0;
}
