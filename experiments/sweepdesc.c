/* experiments/sweepdesc.c: the config's sweep as the results file describes it
 * (sweepdesc.h). Variant v takes, for sweep key k, value pos_k of its list, where
 * the positions are v written in mixed radix over the list lengths, the last key
 * varying fastest: the order experiments/config.c builds the variants in. */
#include "sweepdesc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

static char *dup_str(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = malloc(n);
	if (p)
		memcpy(p, s, n);
	return p;
}

/* 1 when the JSON number is an integer a double holds exactly (|v| < 2^53). */
static int is_integer(const cJSON *v)
{
	double x = v->valuedouble;
	return cJSON_IsNumber(v) && floor(x) == x && fabs(x) < 9007199254740992.0;
}

/* The type of a value list: int when every value is an integer, float when every
 * value is a number, else string. */
static enum h5out_param_type list_type(const cJSON *list)
{
	int all_num = 1, all_int = 1;
	const cJSON *v;
	cJSON_ArrayForEach(v, list)
	{
		all_num = all_num && cJSON_IsNumber(v);
		all_int = all_int && is_integer(v);
	}
	return all_int ? H5OUT_PARAM_INT : all_num ? H5OUT_PARAM_FLOAT : H5OUT_PARAM_STRING;
}

/* A value as text: a JSON string as it is, a number %.17g, anything else its
 * compact JSON. */
static char *value_text(const cJSON *v)
{
	char buf[64];
	if (cJSON_IsString(v))
		return dup_str(v->valuestring);
	if (cJSON_IsNumber(v)) {
		snprintf(buf, sizeof buf, "%.17g", v->valuedouble);
		return dup_str(buf);
	}
	return cJSON_PrintUnformatted(v);
}

/* The column name of a sweep path: less a leading "$.", '/' (not allowed in HDF5
 * names) as '_'. */
static char *param_name(const char *path)
{
	char *n = dup_str(strncmp(path, "$.", 2) == 0 ? path + 2 : path);
	for (char *c = n; c && *c; c++)
		if (*c == '/')
			*c = '_';
	return n;
}

/* Parameter k from the key `item` of the config's sweep object. */
static int param_build(struct exp_sweep_desc *d, size_t k, const cJSON *item)
{
	struct h5out_param *p = &d->params[k];
	size_t n = (size_t)cJSON_GetArraySize(item);
	d->paths[k] = dup_str(item->string);
	d->names[k] = param_name(item->string);
	d->str[k] = calloc(n + 1, sizeof *d->str[k]);
	d->label[k] = calloc(n + 1, sizeof *d->label[k]);
	if (!d->paths[k] || !d->names[k] || !d->str[k] || !d->label[k])
		return -SIM_ENOMEM;
	p->type = list_type(item);
	if (p->type != H5OUT_PARAM_STRING && !(d->num[k] = calloc(n ? n : 1, sizeof *d->num[k])))
		return -SIM_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const cJSON *v = cJSON_GetArrayItem(item, (int)i);
		char label[SIM_NAME_MAX * 2];
		exp_sweep_value_label(v, i, label, sizeof label);
		if (!(d->str[k][i] = value_text(v)) || !(d->label[k][i] = dup_str(label)))
			return -SIM_ENOMEM;
		if (d->num[k])
			d->num[k][i] = v->valuedouble;
	}
	*p = (struct h5out_param){ .name = d->names[k], .path = d->paths[k], .type = p->type, .n_values = n,
				   .num = d->num[k], .str = (const char *const *)d->str[k],
				   .label = (const char *const *)d->label[k] };
	return 0;
}

/* The sweep object of the config text, when its value lists multiply to n_variants
 * (else NULL: the text is not the one the variants came from). */
static const cJSON *usable_sweep(const cJSON *root, size_t n_variants)
{
	const cJSON *sw = cJSON_GetObjectItemCaseSensitive(root, "sweep"), *item;
	double prod = 1;
	if (!cJSON_IsObject(sw) || !sw->child)
		return NULL;
	cJSON_ArrayForEach(item, sw)
	{
		if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) < 1)
			return NULL;
		prod *= cJSON_GetArraySize(item);
	}
	return prod == (double)n_variants ? sw : NULL;
}

static int params_build(struct exp_sweep_desc *d, const cJSON *sw, size_t n_variants)
{
	size_t np = (size_t)cJSON_GetArraySize(sw);
	d->params = calloc(np, sizeof *d->params);
	d->names = calloc(np, sizeof *d->names);
	d->paths = calloc(np, sizeof *d->paths);
	d->num = calloc(np, sizeof *d->num);
	d->str = calloc(np, sizeof *d->str);
	d->label = calloc(np, sizeof *d->label);
	d->value_index = calloc(n_variants * np, sizeof *d->value_index);
	if (!d->params || !d->names || !d->paths || !d->num || !d->str || !d->label || !d->value_index)
		return -SIM_ENOMEM;
	d->pub.n_params = np;
	size_t k = 0;
	const cJSON *item;
	cJSON_ArrayForEach(item, sw)
	{
		int rc = param_build(d, k++, item);
		if (rc)
			return rc;
	}
	for (size_t v = 0; v < n_variants; v++) {
		size_t rem = v;
		for (size_t j = np; j-- > 0;) {
			d->value_index[v * np + j] = rem % d->params[j].n_values;
			rem /= d->params[j].n_values;
		}
	}
	d->pub.params = d->params;
	d->pub.value_index = d->value_index;
	return 0;
}

static int variants_build(struct exp_sweep_desc *d, const struct exp_config *cfg)
{
	size_t n = cfg->n_variants;
	d->variants = calloc(n + 1, sizeof *d->variants);
	if (!d->variants)
		return -SIM_ENOMEM;
	d->pub.n_variants = n; /* before the names: a failure frees what was made */
	for (size_t v = 0; v < n; v++) {
		const struct exp_variant *x = &cfg->variants[v];
		/* Named as its runs (experiments/runner.c run_name): "fifo", not "base". */
		const char *name = n == 1 && strcmp(x->name, "base") == 0 ? x->policy[SIM_FAM_ORDER] : x->name;
		if (!(d->variants[v] = dup_str(name)))
			return -SIM_ENOMEM;
	}
	d->pub.variants = (const char *const *)d->variants;
	return 0;
}

int exp_sweep_desc_build(const struct exp_config *cfg, struct exp_sweep_desc *d)
{
	memset(d, 0, sizeof *d);
	int rc = variants_build(d, cfg);
	cJSON *root = rc ? NULL : cJSON_Parse(cfg->text ? cfg->text : "");
	const cJSON *sw = root ? usable_sweep(root, cfg->n_variants) : NULL;
	if (!rc && sw)
		rc = params_build(d, sw, cfg->n_variants);
	cJSON_Delete(root);
	if (rc)
		exp_sweep_desc_free(d);
	return rc;
}

static void strings_free(char **s, size_t n)
{
	for (size_t i = 0; s && i < n; i++)
		free(s[i]);
	free(s);
}

void exp_sweep_desc_free(struct exp_sweep_desc *d)
{
	size_t np = d->pub.n_params;
	if (d->params)
		for (size_t k = 0; k < np; k++) {
			size_t nv = d->params[k].n_values;
			/* A parameter that failed part-way has n_values 0: free to the NULL end. */
			for (size_t i = 0; d->str && d->str[k] && (i < nv || d->str[k][i]); i++)
				free(d->str[k][i]);
			free(d->str ? d->str[k] : NULL);
			for (size_t i = 0; d->label && d->label[k] && (i < nv || d->label[k][i]); i++)
				free(d->label[k][i]);
			free(d->label ? d->label[k] : NULL);
			free(d->num ? d->num[k] : NULL);
		}
	strings_free(d->names, np);
	strings_free(d->paths, np);
	strings_free(d->variants, d->pub.n_variants);
	free(d->params);
	free(d->num);
	free(d->str);
	free(d->label);
	free(d->value_index);
	memset(d, 0, sizeof *d);
}
