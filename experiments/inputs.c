/* experiments/inputs.c: see inputs.h.
 *
 * Side files are found by walking each variant's JSON rather than by listing the
 * keys that hold paths: a key added later is protected without an edit here. */
#include "inputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define WHAT_MAX 512 /* a JSON path in a message; longer ones are truncated */

static int add_input(struct exp_inputs *in, const char *what, const char *path)
{
	void *grown = sim_grow(in->v, &in->cap, in->n, sizeof *in->v, 8);
	if (!grown)
		return -SIM_ENOMEM;
	in->v = grown;
	char *w = strdup(what), *p = strdup(path);
	if (!w || !p) {
		free(w);
		free(p);
		return -SIM_ENOMEM;
	}
	in->v[in->n++] = (struct sim_out_input){ .what = w, .path = p };
	return 0;
}

static int is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Every string under node (at JSON path `at`) that names a file beside the config. */
static int walk(const struct exp_config *cfg, const cJSON *node, const char *at, struct exp_inputs *in)
{
	if (cJSON_IsString(node) && node->valuestring[0]) {
		char *full = sim_path_beside(cfg->path, node->valuestring);
		if (!full)
			return -SIM_ENOMEM;
		int rc = is_file(full) ? add_input(in, at, full) : 0;
		free(full);
		return rc;
	}
	int idx = 0;
	for (const cJSON *c = node ? node->child : NULL; c; c = c->next, idx++) {
		char sub[WHAT_MAX];
		if (cJSON_IsObject(node))
			snprintf(sub, sizeof sub, "%s.%s", at, c->string ? c->string : "");
		else
			snprintf(sub, sizeof sub, "%s[%d]", at, idx);
		int rc = walk(cfg, c, sub, in);
		if (rc)
			return rc;
	}
	return 0;
}

int exp_inputs_collect(const struct exp_config *cfg, struct exp_inputs *in)
{
	int rc = add_input(in, "config", cfg->path);
	if (!rc && cfg->trace_path)
		rc = add_input(in, "trace", cfg->trace_path);
	for (size_t v = 0; v < cfg->n_variants && !rc; v++) {
		for (const cJSON *c = cfg->variants[v].tree ? cfg->variants[v].tree->child : NULL; c && !rc; c = c->next) {
			if (!c->string || strcmp(c->string, "output") == 0 || strcmp(c->string, "trace") == 0)
				continue; /* the output is no input; the trace is in already */
			char at[WHAT_MAX];
			snprintf(at, sizeof at, "$.%s", c->string);
			rc = walk(cfg, c, at, in);
		}
	}
	return rc;
}

void exp_inputs_fini(struct exp_inputs *in)
{
	for (size_t i = 0; i < in->n; i++) {
		free((char *)in->v[i].what);
		free((char *)in->v[i].path);
	}
	free(in->v);
	memset(in, 0, sizeof *in);
}

int exp_check_output(const struct exp_config *cfg, const char *out, struct sim_diag *diag)
{
	struct exp_inputs in = { 0 };
	int rc = exp_inputs_collect(cfg, &in);
	if (!rc)
		rc = sim_out_check(out, in.v, in.n, diag);
	exp_inputs_fini(&in);
	return rc;
}
