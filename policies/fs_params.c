/* policies/fs_params.c: params of the fair-share order policies (see fs_params.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fs_params.h"

int fs_param_error(const struct sim_policy_env *env, struct sim_diag *diag, const char *key, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return sim_diag_add(diag, env && env->file ? env->file : "config", "%s.%s: %s",
			    env ? env->json_path : "$", key, msg);
}

static int error_got(const struct sim_policy_env *env, struct sim_diag *diag, const char *key,
		     const char *expected, const cJSON *got)
{
	char *txt = cJSON_PrintUnformatted(got);
	int rc = fs_param_error(env, diag, key, "expected %s, got %s", expected, txt ? txt : "?");
	cJSON_free(txt);
	return rc;
}

int fs_param_bool(const struct sim_policy_env *env, const cJSON *params, const char *key, int *inout,
		  struct sim_diag *diag)
{
	const cJSON *it = params ? cJSON_GetObjectItemCaseSensitive(params, key) : NULL;
	if (!it)
		return 0;
	if (!cJSON_IsBool(it))
		return error_got(env, diag, key, "true or false", it);
	*inout = cJSON_IsTrue(it);
	return 0;
}

int fs_param_account_by(const struct sim_policy_env *env, const cJSON *params, const char *key,
			enum fs_account_by *inout, struct sim_diag *diag)
{
	const cJSON *it = params ? cJSON_GetObjectItemCaseSensitive(params, key) : NULL;
	if (!it)
		return 0;
	int by = cJSON_IsString(it) ? fs_account_by_parse(it->valuestring) : -1;
	if (by < 0)
		return error_got(env, diag, key, "\"auto\", \"user\" or \"queue\"", it);
	*inout = (enum fs_account_by)by;
	return 0;
}

static int is_prefix_name(const char *name)
{
	size_t n = strlen(name);
	return n && name[n - 1] == '*';
}

void fs_apply_names(size_t n, const char *const *names, const double *values, enum fs_account_by by,
		    const struct sim_trace *t, double *per_account)
{
	size_t n_acc = fs_account_count(by, t);
	uint8_t *set = calloc(n_acc ? n_acc : 1, 1);
	for (size_t i = 0; i < n; i++) {
		if (is_prefix_name(names[i]))
			continue;
		for (size_t a = 0; a < n_acc; a++)
			if (strcmp(fs_account_name(by, t, a), names[i]) == 0) {
				per_account[a] = values[i];
				if (set)
					set[a] = 2; /* exact */
			}
	}
	for (size_t i = 0; i < n; i++) {
		if (!is_prefix_name(names[i]))
			continue;
		size_t len = strlen(names[i]) - 1;
		for (size_t a = 0; a < n_acc; a++) {
			if (set && set[a])
				continue;
			if (strncmp(fs_account_name(by, t, a), names[i], len) == 0) {
				per_account[a] = values[i];
				if (set)
					set[a] = 1;
			}
		}
	}
	free(set);
}

int fs_param_account_numbers(const struct sim_policy_env *env, const cJSON *params, const char *key,
			     double min, double max, enum fs_account_by by, const struct sim_trace *t,
			     double *per_account, struct sim_diag *diag)
{
	const cJSON *obj = params ? cJSON_GetObjectItemCaseSensitive(params, key) : NULL;
	if (!obj)
		return 0;
	if (!cJSON_IsObject(obj))
		return error_got(env, diag, key, "an object {name: number}", obj);
	size_t n = (size_t)cJSON_GetArraySize(obj);
	const char **names = calloc(n ? n : 1, sizeof *names);
	double *values = calloc(n ? n : 1, sizeof *values);
	if (!names || !values) {
		free(names);
		free(values);
		return -SIM_ENOMEM;
	}
	int bad = 0;
	size_t k = 0;
	char expected[96], path[320];
	snprintf(expected, sizeof expected, "a number in [%g, %g]", min, max);
	for (const cJSON *it = obj->child; it; it = it->next, k++) {
		names[k] = it->string;
		if (!cJSON_IsNumber(it) || !(it->valuedouble >= min && it->valuedouble <= max)) {
			snprintf(path, sizeof path, "%s.%s", key, it->string);
			bad |= error_got(env, diag, path, expected, it);
			continue;
		}
		values[k] = it->valuedouble;
	}
	if (!bad)
		fs_apply_names(n, names, values, by, t, per_account);
	free(names);
	free(values);
	return bad ? -SIM_EPARSE : 0;
}

int fs_under_quota(const struct sim_view *v)
{
	const struct sim_policy *q = v ? sim_view_policy(v, SIM_FAM_QUOTA) : NULL;
	return q && q->ops;
}
