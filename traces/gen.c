/* traces/gen.c: the configurable workload generator (traces/gen.h; keys in
 * experiments/gen/README.md). Generalizes bench/gen_workload.c, whose fixed laws stay there. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "../sim/job.h"
#include "../sim/jsonmsg.h"
#include "../sim/outpath.h"
#include "../sim/yamltree.h"
#include "gen.h"
#include "native.h"

#define HOUR_S 3600.0
#define TWO_PI 6.283185307179586
#define MAX_MIX 4096	  /* entries of a values/weights list */
#define MAX_GPUS 1000000u /* per job */
#define NAME_MAX_ 255	  /* queue name bytes (traces/README.md) */
#define FLAVOR_MAX_ 63	  /* flavor name bytes */

/* ---- checking the config: every error is "NAME: $.path: expected ..., got ..." ---- */

struct pc {
	const char *name;
	struct sim_diag *diag;
	int nomem;
};

static void err(struct pc *c, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void err(struct pc *c, const char *path, const char *fmt, ...)
{
	char where[1024], msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(where, sizeof where, "%s: %s", c->name, path);
	sim_diag_add(c->diag, where, "%s", msg);
}

static void report_dup(void *arg, const char *path)
{
	err(arg, path, "duplicate key; expected each key once per object");
}

static const cJSON *get(const cJSON *obj, const char *key)
{
	return obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
}

/* Unknown keys of obj (known is NULL-terminated) are errors naming the allowed ones. */
static void check_keys(struct pc *c, const cJSON *obj, const char *path, const char *const *known)
{
	const cJSON *ch;

	cJSON_ArrayForEach(ch, obj)
	{
		char sub[512], list[512];
		size_t i, o = 0;

		for (i = 0; known[i]; i++)
			if (ch->string && strcmp(known[i], ch->string) == 0)
				break;
		if (known[i])
			continue;
		list[0] = 0;
		for (i = 0; known[i] && o < sizeof list; i++)
			o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", i ? ", " : "", known[i]);
		sim_json_path_key(sub, sizeof sub, path, ch->string ? ch->string : "");
		err(c, sub, "unknown key; expected one of %s", list);
	}
}

/* An object at obj[key] or NULL (absent or null); anything else is an error. */
static const cJSON *want_object(struct pc *c, const cJSON *obj, const char *key, const char *path,
				const char *const *known)
{
	const cJSON *v = get(obj, key);
	char sub[512], got[96];

	if (!v || cJSON_IsNull(v))
		return NULL;
	sim_json_path_key(sub, sizeof sub, path, key);
	if (!cJSON_IsObject(v)) {
		sim_json_describe(v, got, sizeof got);
		err(c, sub, "expected an object, got %s", got);
		return NULL;
	}
	check_keys(c, v, sub, known);
	return v;
}

/* obj[key] as a number in [lo, hi] (lo excluded when lo_open). Returns 1 when present and
 * valid, 0 when absent (an error if required), -1 when bad. */
static int want_num(struct pc *c, const cJSON *obj, const char *key, const char *path, int required,
		    double lo, int lo_open, double hi, double *out)
{
	const cJSON *v = get(obj, key);
	char sub[512], got[96];

	sim_json_path_key(sub, sizeof sub, path, key);
	if (!v) {
		if (required)
			err(c, sub, "expected a number (required), got nothing");
		return required ? -1 : 0;
	}
	sim_json_describe(v, got, sizeof got);
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) ||
	    (lo_open ? !(v->valuedouble > lo) : !(v->valuedouble >= lo)) || !(v->valuedouble <= hi)) {
		err(c, sub, "expected a number %s %g and <= %g, got %s", lo_open ? ">" : ">=", lo, hi, got);
		return -1;
	}
	*out = v->valuedouble;
	return 1;
}

/* An integer in [lo, hi], checked through valuedouble (cJSON's valueint saturates). */
static int want_int(struct pc *c, const cJSON *v, const char *path, double lo, double hi, double *out)
{
	char got[96];

	if (cJSON_IsNumber(v) && v->valuedouble >= lo && v->valuedouble <= hi &&
	    v->valuedouble == floor(v->valuedouble)) {
		*out = v->valuedouble;
		return 1;
	}
	sim_json_describe(v, got, sizeof got);
	err(c, path, "expected an integer in [%.0f, %.0f], got %s", lo, hi, got);
	return -1;
}

/* obj[key] as a non-empty array of at most MAX_MIX entries; NULL (and an error when
 * required) otherwise. */
static const cJSON *want_array(struct pc *c, const cJSON *obj, const char *key, const char *path,
			       int required, size_t *n)
{
	const cJSON *v = get(obj, key);
	char sub[512], got[96];

	sim_json_path_key(sub, sizeof sub, path, key);
	if (!v) {
		if (required)
			err(c, sub, "expected a non-empty list (required), got nothing");
		return NULL;
	}
	*n = (size_t)cJSON_GetArraySize(v);
	if (!cJSON_IsArray(v) || *n == 0 || *n > MAX_MIX) {
		sim_json_describe(v, got, sizeof got);
		err(c, sub, "expected a list of 1 to %d entries, got %s", MAX_MIX, got);
		return NULL;
	}
	return v;
}

/* "weights" of a mix with n values: optional (equal weights), else n numbers >= 0 with a
 * positive sum. Returns a malloc'd array or NULL (error or no memory). */
static double *want_weights(struct pc *c, const cJSON *obj, const char *path, size_t n)
{
	const cJSON *v = get(obj, "weights"), *w;
	double *out = calloc(n, sizeof *out), sum = 0.0;
	char sub[512], item[512], got[96];
	size_t i = 0;

	if (!out) {
		c->nomem = 1;
		return NULL;
	}
	if (!v) {
		for (i = 0; i < n; i++)
			out[i] = 1.0;
		return out;
	}
	sim_json_path_key(sub, sizeof sub, path, "weights");
	if (!cJSON_IsArray(v) || (size_t)cJSON_GetArraySize(v) != n) {
		sim_json_describe(v, got, sizeof got);
		if (cJSON_IsArray(v))
			snprintf(got, sizeof got, "a list of %d", cJSON_GetArraySize(v));
		err(c, sub, "expected a list of %zu numbers >= 0 (one per value), got %s", n, got);
		goto out_free;
	}
	cJSON_ArrayForEach(w, v)
	{
		sim_json_path_idx(item, sizeof item, sub, i);
		if (!cJSON_IsNumber(w) || !isfinite(w->valuedouble) || w->valuedouble < 0.0) {
			sim_json_describe(w, got, sizeof got);
			err(c, item, "expected a number >= 0, got %s", got);
			goto out_free;
		}
		out[i++] = w->valuedouble;
		sum += w->valuedouble;
	}
	if (!(sum > 0.0)) {
		err(c, sub, "expected at least one weight > 0, got all 0");
		goto out_free;
	}
	return out;
out_free:
	free(out);
	return NULL;
}

/* A queue name: 1..255 bytes, no control characters, no ',' or '"' (written unquoted). */
static int queue_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > NAME_MAX_)
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f || *s == ',' || *s == '"')
			return 0;
	return 1;
}

/* A flavor name as in a request (traces/README.md): letters, digits, '_', '.', '-'. */
static int flavor_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > FLAVOR_MAX_)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || *s == '.' || *s == '-'))
			return 0;
	return 1;
}

/* A JSON string that passes ok(); returns a malloc'd copy or NULL. */
static char *want_name(struct pc *c, const cJSON *v, const char *path, int (*ok)(const char *),
		       const char *rule)
{
	char got[96], *s;

	if (!cJSON_IsString(v) || !ok(v->valuestring)) {
		sim_json_describe(v, got, sizeof got);
		err(c, path, "expected %s, got %s", rule, got);
		return NULL;
	}
	s = strdup(v->valuestring);
	if (!s)
		c->nomem = 1;
	return s;
}

static const char *const top_keys[] = {"jobs",	       "span_s",      "seed",	    "arrivals", "durations",
				       "gpus",	       "queues",      "priorities", "prefs",	"flavor",
				       "checkpoint_s", "description", NULL};
static const char *const arrivals_keys[] = {"process", "rate_per_h", "diurnal", "bursts", NULL};
static const char *const diurnal_keys[] = {"amplitude", "peak_hour", NULL};
static const char *const bursts_keys[] = {"every_h", "length_s", "factor", NULL};
static const char *const lognormal_keys[] = {"law", "median_s", "sigma", "cap_s", NULL};
static const char *const weibull_keys[] = {"law", "shape", "scale_s", "cap_s", NULL};
static const char *const empirical_keys[] = {"law", "trace", "column", "cap_s", NULL};
static const char *const any_law_keys[] = {"law",   "median_s", "sigma", "shape", "scale_s",
					   "trace", "column",	"cap_s", NULL};
static const char *const gpus_keys[] = {"values", "weights", NULL};
static const char *const queues_keys[] = {"names", "weights", NULL};
static const char *const prefs_keys[] = {"templates", "weights", NULL};
static const char *const ckpt_keys[] = {"every_s", NULL};

static void parse_size(struct pc *c, const cJSON *root, struct gen_config *g)
{
	const cJSON *jobs = get(root, "jobs");
	double v;

	if (jobs && get(root, "span_s")) {
		err(c, "$.span_s", "expected either \"jobs\" or \"span_s\", got both");
		return;
	}
	if (jobs) {
		if (want_int(c, jobs, "$.jobs", 1, GEN_MAX_JOBS, &v) > 0)
			g->jobs = (uint64_t)v;
	} else if (want_num(c, root, "span_s", "$", 0, 0.0, 1, GEN_MAX_SUBMIT_S, &g->span_s) == 0) {
		err(c, "$.jobs", "expected an integer in [1, %.0f] (or \"span_s\"), got nothing", GEN_MAX_JOBS);
	}
	if (get(root, "seed") && want_int(c, get(root, "seed"), "$.seed", 0, 9007199254740992.0, &v) > 0)
		g->seed = (uint64_t)v;
}

static void parse_arrivals(struct pc *c, const cJSON *root, struct gen_config *g)
{
	const cJSON *a = want_object(c, root, "arrivals", "$", arrivals_keys), *p, *d, *b;
	char got[96];

	if (!a) {
		if (!get(root, "arrivals") || cJSON_IsNull(get(root, "arrivals")))
			err(c, "$.arrivals",
			    "expected an object {\"process\": \"poisson\", \"rate_per_h\": R} "
			    "(required), got nothing");
		return;
	}
	p = get(a, "process");
	if (p && !(cJSON_IsString(p) && strcmp(p->valuestring, "poisson") == 0)) {
		sim_json_describe(p, got, sizeof got);
		err(c, "$.arrivals.process", "expected \"poisson\" (the only process so far), got %s", got);
	}
	want_num(c, a, "rate_per_h", "$.arrivals", 1, 0.0, 1, 1e9, &g->rate_per_h);
	d = want_object(c, a, "diurnal", "$.arrivals", diurnal_keys);
	if (d) {
		want_num(c, d, "amplitude", "$.arrivals.diurnal", 1, 0.0, 0, 1.0, &g->diurnal_amp);
		want_num(c, d, "peak_hour", "$.arrivals.diurnal", 0, 0.0, 0, 24.0, &g->peak_hour);
	}
	b = want_object(c, a, "bursts", "$.arrivals", bursts_keys);
	if (b) {
		g->burst_factor = 1.0;
		want_num(c, b, "every_h", "$.arrivals.bursts", 1, 0.0, 1, 1e6, &g->burst_every_h);
		want_num(c, b, "length_s", "$.arrivals.bursts", 1, 0.0, 1, 1e9, &g->burst_length_s);
		want_num(c, b, "factor", "$.arrivals.bursts", 1, 0.0, 0, 1e6, &g->burst_factor);
		if (g->burst_every_h > 0.0 && g->burst_length_s >= g->burst_every_h * HOUR_S)
			err(c, "$.arrivals.bursts.length_s",
			    "expected less than every_h x 3600 = %g s, got %g", g->burst_every_h * HOUR_S,
			    g->burst_length_s);
	}
}

static int join_path(const char *dir, const char *p, char *out, size_t n)
{
	int k =
	    (p[0] == '/' || !dir || !*dir) ? snprintf(out, n, "%s", p) : snprintf(out, n, "%s/%s", dir, p);

	return k < 0 || (size_t)k >= n ? -1 : 0;
}

/* Empirical durations: every job's duration_s of a native trace. */
static void load_empirical(struct pc *c, const char *dir, const cJSON *d, struct gen_config *g)
{
	const cJSON *tr = get(d, "trace"), *col = get(d, "column");
	struct sim_trace *t = NULL;
	char path[4096], got[96];
	int rc;

	if (col && !(cJSON_IsString(col) && strcmp(col->valuestring, "duration_s") == 0)) {
		sim_json_describe(col, got, sizeof got);
		err(c, "$.durations.column", "expected \"duration_s\" (the only column so far), got %s", got);
	}
	if (!cJSON_IsString(tr) || !tr->valuestring[0]) {
		sim_json_describe(tr, got, sizeof got);
		err(c, "$.durations.trace", "expected the path of a native trace (required), got %s", got);
		return;
	}
	if (join_path(dir, tr->valuestring, path, sizeof path)) {
		err(c, "$.durations.trace", "expected a path under 4096 bytes");
		return;
	}
	free(g->emp_path);
	if (!(g->emp_path = strdup(path)))
		c->nomem = 1;
	rc = trace_native_read(path, &t, c->diag);
	if (rc == -SIM_ENOMEM)
		c->nomem = 1;
	if (rc) {
		err(c, "$.durations.trace", "expected a readable native trace, got %s (%s)", path,
		    sim_strerror(-rc));
		return;
	}
	if (t->n_jobs == 0) {
		err(c, "$.durations.trace", "expected a trace with at least one job, got none in %s", path);
		goto out_destroy;
	}
	g->emp_s = malloc(t->n_jobs * sizeof *g->emp_s);
	if (!g->emp_s) {
		c->nomem = 1;
		goto out_destroy;
	}
	for (size_t i = 0; i < t->n_jobs; i++)
		g->emp_s[i] = sim_time_to_s(t->jobs[i].duration_ns);
	g->n_emp = t->n_jobs;
out_destroy:
	sim_trace_destroy(t);
}

static void parse_durations(struct pc *c, const char *dir, const cJSON *root, struct gen_config *g)
{
	const cJSON *d = get(root, "durations"), *law;
	const char *const *keys = any_law_keys;
	char got[96];

	if (!cJSON_IsObject(d)) {
		sim_json_describe(d, got, sizeof got);
		err(c, "$.durations",
		    "expected an object {\"law\": \"lognormal\"|\"weibull\"|\"empirical\", ...} "
		    "(required), got %s",
		    got);
		return;
	}
	law = get(d, "law");
	if (cJSON_IsString(law) && strcmp(law->valuestring, "lognormal") == 0) {
		g->law = GEN_LAW_LOGNORMAL;
		keys = lognormal_keys;
		want_num(c, d, "median_s", "$.durations", 1, 0.0, 1, 1e9, &g->median_s);
		want_num(c, d, "sigma", "$.durations", 1, 0.0, 1, 20.0, &g->sigma);
	} else if (cJSON_IsString(law) && strcmp(law->valuestring, "weibull") == 0) {
		g->law = GEN_LAW_WEIBULL;
		keys = weibull_keys;
		want_num(c, d, "shape", "$.durations", 1, 0.0, 1, 1e3, &g->shape);
		want_num(c, d, "scale_s", "$.durations", 1, 0.0, 1, 1e9, &g->scale_s);
	} else if (cJSON_IsString(law) && strcmp(law->valuestring, "empirical") == 0) {
		g->law = GEN_LAW_EMPIRICAL;
		keys = empirical_keys;
		load_empirical(c, dir, d, g);
	} else {
		sim_json_describe(law, got, sizeof got);
		err(c, "$.durations.law", "expected \"lognormal\", \"weibull\" or \"empirical\", got %s",
		    got);
	}
	check_keys(c, d, "$.durations", keys);
	want_num(c, d, "cap_s", "$.durations", 0, 0.0, 1, GEN_MAX_SUBMIT_S, &g->cap_s);
}

static void parse_gpus(struct pc *c, const cJSON *root, struct gen_config *g)
{
	const cJSON *o = want_object(c, root, "gpus", "$", gpus_keys), *arr, *v;
	char item[512];
	size_t n = 0, i = 0;
	double x;

	if (!o) {
		g->gpu_values = malloc(sizeof *g->gpu_values);
		g->gpu_weights = malloc(sizeof *g->gpu_weights);
		if (!g->gpu_values || !g->gpu_weights) {
			c->nomem = 1;
			return;
		}
		g->gpu_values[0] = 1; /* default: one GPU a job */
		g->gpu_weights[0] = 1.0;
		g->n_gpus = 1;
		return;
	}
	arr = want_array(c, o, "values", "$.gpus", 1, &n);
	if (!arr)
		return;
	g->gpu_values = calloc(n, sizeof *g->gpu_values);
	if (!g->gpu_values) {
		c->nomem = 1;
		return;
	}
	cJSON_ArrayForEach(v, arr)
	{
		sim_json_path_idx(item, sizeof item, "$.gpus.values", i);
		if (want_int(c, v, item, 1, MAX_GPUS, &x) > 0)
			g->gpu_values[i] = (unsigned)x;
		i++;
	}
	g->gpu_weights = want_weights(c, o, "$.gpus", n);
	g->n_gpus = n;
}

static void parse_queues(struct pc *c, const cJSON *root, struct gen_config *g)
{
	const cJSON *o = want_object(c, root, "queues", "$", queues_keys), *arr, *v;
	char item[512];
	size_t n = 1, i = 0;

	arr = o ? want_array(c, o, "names", "$.queues", 1, &n) : NULL;
	if (o && !arr)
		return;
	g->queue_names = calloc(n, sizeof *g->queue_names);
	if (!g->queue_names) {
		c->nomem = 1;
		return;
	}
	g->n_queues = n;
	if (!o) {
		g->queue_names[0] = strdup("default");
		g->queue_weights = malloc(sizeof *g->queue_weights);
		if (!g->queue_names[0] || !g->queue_weights)
			c->nomem = 1;
		else
			g->queue_weights[0] = 1.0;
		return;
	}
	cJSON_ArrayForEach(v, arr)
	{
		sim_json_path_idx(item, sizeof item, "$.queues.names", i);
		g->queue_names[i++] =
		    want_name(c, v, item, queue_name_ok,
			      "a queue name (1 to 255 bytes, no control characters, ',' or '\"')");
	}
	g->queue_weights = want_weights(c, o, "$.queues", n);
}

static void parse_priorities(struct pc *c, const cJSON *root, struct gen_config *g)
{
	const cJSON *o = want_object(c, root, "priorities", "$", gpus_keys), *arr, *v;
	char item[512];
	size_t n = 1, i = 0;
	double x;

	arr = o ? want_array(c, o, "values", "$.priorities", 1, &n) : NULL;
	if (o && !arr)
		return;
	g->prio_values = calloc(n, sizeof *g->prio_values);
	if (!g->prio_values) {
		c->nomem = 1;
		return;
	}
	g->n_prios = n;
	if (!o) {
		g->prio_weights = malloc(sizeof *g->prio_weights);
		if (!g->prio_weights)
			c->nomem = 1;
		else
			g->prio_weights[0] = 1.0; /* every job priority 0 */
		return;
	}
	cJSON_ArrayForEach(v, arr)
	{
		sim_json_path_idx(item, sizeof item, "$.priorities.values", i);
		if (want_int(c, v, item, -2147483648.0, 2147483647.0, &x) > 0)
			g->prio_values[i] = (int)x;
		i++;
	}
	g->prio_weights = want_weights(c, o, "$.priorities", n);
}

/* The native reader refuses a preference list naming a flavor twice, so the
 * generator must never write one: report option K of TEMPLATE when it repeats an
 * earlier one (NULL entries failed their own check and are skipped). */
static void check_flavor_once(struct pc *c, const char *item, char *const *tmpl, size_t k)
{
	if (!tmpl[k])
		return;
	for (size_t j = 0; j < k; j++)
		if (tmpl[j] && strcmp(tmpl[j], tmpl[k]) == 0) {
			err(c, item, "expected each flavor once, found '%s' again (first as option %zu)",
			    tmpl[k], j + 1);
			return;
		}
}

static void parse_template(struct pc *c, const cJSON *t, const char *path, struct gen_config *g, size_t i)
{
	const cJSON *f;
	char item[512], got[96];
	size_t n = (size_t)cJSON_GetArraySize(t), k = 0;

	if (!cJSON_IsArray(t) || n < 2 || n > GEN_MAX_PREFS) {
		sim_json_describe(t, got, sizeof got);
		err(c, path, "expected a list of 2 to %d flavor names, got %s", GEN_MAX_PREFS, got);
		return;
	}
	g->templates[i] = calloc(n, sizeof **g->templates);
	if (!g->templates[i]) {
		c->nomem = 1;
		return;
	}
	g->template_len[i] = n;
	cJSON_ArrayForEach(f, t)
	{
		sim_json_path_idx(item, sizeof item, path, k);
		g->templates[i][k] = want_name(c, f, item, flavor_name_ok,
					       "a flavor name (letters, digits, '_', '.', '-'; under 64 bytes)");
		check_flavor_once(c, item, g->templates[i], k);
		k++;
	}
}

static void parse_prefs(struct pc *c, const cJSON *root, struct gen_config *g)
{
	const cJSON *o = want_object(c, root, "prefs", "$", prefs_keys), *arr, *t, *fl = get(root, "flavor");
	char item[512];
	size_t n = 0, i = 0;

	if (o && fl)
		err(c, "$.flavor", "expected either \"prefs\" or \"flavor\", got both");
	else if (fl)
		g->flavor = want_name(c, fl, "$.flavor", flavor_name_ok,
				      "a flavor name (letters, digits, '_', '.', '-'; under 64 bytes)");
	if (!fl) {
		g->flavor = strdup("*");
		if (!g->flavor)
			c->nomem = 1;
	}
	if (!o)
		return;
	arr = want_array(c, o, "templates", "$.prefs", 1, &n);
	if (!arr)
		return;
	g->templates = calloc(n, sizeof *g->templates);
	g->template_len = calloc(n, sizeof *g->template_len);
	if (!g->templates || !g->template_len) {
		c->nomem = 1;
		return;
	}
	g->n_templates = n;
	cJSON_ArrayForEach(t, arr)
	{
		sim_json_path_idx(item, sizeof item, "$.prefs.templates", i);
		parse_template(c, t, item, g, i++);
	}
	g->template_weights = want_weights(c, o, "$.prefs", n);
}

static void parse_checkpoint(struct pc *c, const cJSON *root, struct gen_config *g)
{
	const cJSON *o = want_object(c, root, "checkpoint_s", "$", ckpt_keys);
	double every = 0.0;

	if (o && want_num(c, o, "every_s", "$.checkpoint_s", 1, 0.001, 0, GEN_MAX_SUBMIT_S, &every) > 0)
		g->checkpoint_ms = (uint64_t)llround(every * 1000.0);
}

void gen_config_destroy(struct gen_config *c)
{
	if (!c)
		return;
	free(c->name);
	free(c->emp_s);
	free(c->emp_path);
	free(c->gpu_values);
	free(c->gpu_weights);
	for (size_t i = 0; c->queue_names && i < c->n_queues; i++)
		free(c->queue_names[i]);
	free(c->queue_names);
	free(c->queue_weights);
	free(c->prio_values);
	free(c->prio_weights);
	for (size_t i = 0; c->templates && i < c->n_templates; i++) {
		for (size_t k = 0; c->templates[i] && k < c->template_len[i]; k++)
			free(c->templates[i][k]);
		free(c->templates[i]);
	}
	free(c->templates);
	free(c->template_len);
	free(c->template_weights);
	free(c->flavor);
	free(c);
}

/* With span_s, the jobs expected at the peak rate (diurnal crest, bursts) must stay
 * within GEN_MAX_JOBS: rate 1e9/h over 1e9 s would write without end. */
static void check_span_jobs(struct pc *c, const struct gen_config *g)
{
	if (g->jobs || !(g->span_s > 0) || !(g->rate_per_h > 0))
		return;
	double peak = g->rate_per_h * (1.0 + g->diurnal_amp) *
		      (g->burst_every_h > 0 && g->burst_factor > 1 ? g->burst_factor : 1.0);
	double expect = peak * g->span_s / 3600.0;
	if (expect > GEN_MAX_JOBS)
		err(c, "$.span_s",
		    "expected span_s x the peak rate to give at most %.0f jobs, got about %.3g (%g s at %g/h)",
		    GEN_MAX_JOBS, expect, g->span_s, peak);
}

int gen_config_parse(const char *name, const char *dir, const char *text, size_t len, struct gen_config **out,
		     struct sim_diag *diag)
{
	struct pc c = {.name = name, .diag = diag};
	size_t before = diag->count;
	struct gen_config *g;
	const char *end = NULL;
	cJSON *root;
	char got[96];
	int rc = -SIM_EPARSE;

	*out = NULL;
	g = calloc(1, sizeof *g);
	if (!g || !(g->name = strdup(name))) {
		free(g);
		return -SIM_ENOMEM;
	}
	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) { /* UTF-8 byte order mark */
		text += 3;
		len -= 3;
	}
	/* text[len] is the NUL: inside the length, so trailing garbage is an error. */
	root = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
	if (!root) {
		size_t line = 1, pos = end && end >= text ? (size_t)(end - text) : 0;
		char where[1024];

		for (size_t i = 0; i < pos && i < len; i++)
			line += text[i] == '\n';
		snprintf(where, sizeof where, "%s:%zu", name, line);
		sim_diag_add(diag, where, "JSON syntax error");
		goto out_destroy;
	}
	if (!cJSON_IsObject(root)) {
		sim_json_describe(root, got, sizeof got);
		err(&c, "$",
		    "expected an object {\"jobs\": ..., \"arrivals\": ..., \"durations\": ...}, got %s", got);
		goto out_delete;
	}
	sim_json_duplicate_keys(root, "$", report_dup, &c);
	check_keys(&c, root, "$", top_keys);
	parse_size(&c, root, g);
	parse_arrivals(&c, root, g);
	parse_durations(&c, dir, root, g);
	parse_gpus(&c, root, g);
	parse_queues(&c, root, g);
	parse_priorities(&c, root, g);
	parse_prefs(&c, root, g);
	parse_checkpoint(&c, root, g);
	check_span_jobs(&c, g);
	if (c.nomem)
		rc = -SIM_ENOMEM;
	else if (diag->count == before)
		rc = 0;
out_delete:
	cJSON_Delete(root);
out_destroy:
	if (rc) {
		gen_config_destroy(g);
		return rc;
	}
	*out = g;
	return 0;
}

/* A YAML generator config (docs/yaml.md) is parsed as the JSON text of its one
 * document; its "FILE: $.path" errors then get the YAML line and column. */
static int parse_yaml(const char *path, const char *dir, const char *text, size_t len, struct gen_config **out,
		      struct sim_diag *diag)
{
	struct sim_srcmap map = { 0 };
	char *json;
	int rc = sim_yaml_to_json(path, text, len, "the generator config", &json, &map, diag);
	if (rc)
		return rc;
	size_t before = diag->count;
	rc = gen_config_parse(path, dir, json, strlen(json), out, diag);
	if (diag->count > before)
		sim_srcmap_locate_diag(&map, path, diag);
	cJSON_free(json);
	sim_srcmap_fini(&map);
	return rc;
}

int gen_config_load(const char *path, struct gen_config **out, struct sim_diag *diag)
{
	char *text = NULL, *dir;
	const char *slash = strrchr(path, '/');
	size_t len = 0;
	int rc;

	*out = NULL;
	rc = sim_read_file(path, &text, &len, diag);
	if (rc)
		return rc;
	dir = strdup(path);
	if (!dir) {
		free(text);
		return -SIM_ENOMEM;
	}
	if (slash)
		dir[slash - path] = 0;
	else
		dir[0] = 0;
	const char *folder = slash && slash == path ? "/" : dir;
	rc = sim_yaml_is_path(path) ? parse_yaml(path, folder, text, len, out, diag)
				    : gen_config_parse(path, folder, text, len, out, diag);
	free(dir);
	free(text);
	return rc;
}

/* ---- drawing -------------------------------------------------------------- */

struct gen {
	const struct gen_config *c;
	gsl_rng *rng[GEN_ST_COUNT_];
	gsl_ran_discrete_t *gpus, *queues, *prios, *templates;
	double t_s;	   /* last arrival, unrounded */
	double peak_per_s; /* thinning bound: the largest rate */
	uint64_t next;	   /* index of the next job */
	int thinning;	   /* the rate varies: draw candidates at the peak */
};

unsigned long gen_stream_seed(uint64_t seed, enum gen_stream purpose)
{
	uint64_t s = sim_splitmix64(seed * GEN_ST_COUNT_ + (uint64_t)purpose) & 0xffffffffu;

	return (unsigned long)(s ? s : 1);
}

/* Arrival rate at t_s, in jobs/s: the diurnal swing peaks at peak_hour (hour 0 = trace
 * start); bursts start at every multiple of every_h and last length_s. */
static double rate_at(const struct gen_config *c, double t_s)
{
	double r = c->rate_per_h / HOUR_S;

	if (c->diurnal_amp > 0.0)
		r *= 1.0 + c->diurnal_amp * cos(TWO_PI * (t_s / HOUR_S - c->peak_hour) / 24.0);
	if (c->burst_every_h > 0.0 && fmod(t_s, c->burst_every_h * HOUR_S) < c->burst_length_s)
		r *= c->burst_factor;
	return r;
}

void gen_destroy(struct gen *g)
{
	if (!g)
		return;
	for (int k = 0; k < GEN_ST_COUNT_; k++)
		if (g->rng[k])
			gsl_rng_free(g->rng[k]);
	if (g->gpus)
		gsl_ran_discrete_free(g->gpus);
	if (g->queues)
		gsl_ran_discrete_free(g->queues);
	if (g->prios)
		gsl_ran_discrete_free(g->prios);
	if (g->templates)
		gsl_ran_discrete_free(g->templates);
	free(g);
}

int gen_create(const struct gen_config *cfg, struct gen **out)
{
	struct gen *g = calloc(1, sizeof *g);

	*out = NULL;
	if (!g)
		return -SIM_ENOMEM;
	gsl_set_error_handler_off();
	g->c = cfg;
	for (int k = 0; k < GEN_ST_COUNT_; k++) {
		g->rng[k] = gsl_rng_alloc(gsl_rng_mt19937);
		if (!g->rng[k])
			goto out_destroy;
		gsl_rng_set(g->rng[k], gen_stream_seed(cfg->seed, (enum gen_stream)k));
	}
	g->gpus = gsl_ran_discrete_preproc(cfg->n_gpus, cfg->gpu_weights);
	g->queues = gsl_ran_discrete_preproc(cfg->n_queues, cfg->queue_weights);
	g->prios = gsl_ran_discrete_preproc(cfg->n_prios, cfg->prio_weights);
	if (!g->gpus || !g->queues || !g->prios)
		goto out_destroy;
	if (cfg->n_templates) {
		g->templates = gsl_ran_discrete_preproc(cfg->n_templates, cfg->template_weights);
		if (!g->templates)
			goto out_destroy;
	}
	g->thinning = cfg->diurnal_amp > 0.0 || cfg->burst_every_h > 0.0;
	g->peak_per_s = cfg->rate_per_h / HOUR_S * (1.0 + cfg->diurnal_amp) *
			(cfg->burst_every_h > 0.0 && cfg->burst_factor > 1.0 ? cfg->burst_factor : 1.0);
	*out = g;
	return 0;
out_destroy:
	gen_destroy(g);
	return -SIM_ENOMEM;
}

/* Next arrival after g->t_s: a homogeneous Poisson process, or by thinning (Lewis and
 * Shedler) when the rate varies: candidates at the peak rate, each kept with probability
 * rate(t) / peak. */
static double next_arrival_s(struct gen *g)
{
	gsl_rng *r = g->rng[GEN_ST_ARRIVALS];
	double t = g->t_s;

	for (;;) {
		t += gsl_ran_exponential(r, 1.0 / g->peak_per_s);
		if (!g->thinning || gsl_rng_uniform(r) * g->peak_per_s <= rate_at(g->c, t))
			return t;
		if (t > GEN_MAX_SUBMIT_S)
			return t;
	}
}

static double draw_duration_s(struct gen *g)
{
	const struct gen_config *c = g->c;
	double d;

	switch (c->law) {
	case GEN_LAW_LOGNORMAL:
		d = gsl_ran_lognormal(g->rng[GEN_ST_DURATIONS], log(c->median_s), c->sigma);
		break;
	case GEN_LAW_WEIBULL:
		d = gsl_ran_weibull(g->rng[GEN_ST_DURATIONS], c->scale_s, c->shape);
		break;
	default:
		d = c->emp_s[gsl_rng_uniform_int(g->rng[GEN_ST_EMPIRICAL], c->n_emp)];
		break;
	}
	if (c->cap_s > 0.0 && d > c->cap_s)
		d = c->cap_s;
	if (!(d <= GEN_MAX_SUBMIT_S)) /* the format's largest time; NaN cannot happen */
		d = GEN_MAX_SUBMIT_S;
	return d;
}

int gen_next(struct gen *g, struct gen_job *job)
{
	const struct gen_config *c = g->c;
	double t, d;
	uint64_t ms;

	if (c->jobs && g->next >= c->jobs)
		return 0;
	t = next_arrival_s(g);
	if (!c->jobs && t >= c->span_s)
		return 0;
	if (t > GEN_MAX_SUBMIT_S)
		return -SIM_ERANGE;
	g->t_s = t;
	job->index = g->next++;
	job->submit_ms = (uint64_t)llround(t * 1000.0);
	job->submit_s = (double)job->submit_ms / 1000.0;
	d = draw_duration_s(g);
	/* Up to whole ms (never 0); the 1e-6 absorbs float noise in d x 1000 of a duration
	 * that already is whole ms (an empirical source), which must not gain 1 ms. */
	ms = (uint64_t)ceil(d * 1000.0 - 1e-6);
	job->duration_ms = ms ? ms : 1;
	job->duration_s = (double)job->duration_ms / 1000.0;
	job->gpus = c->gpu_values[gsl_ran_discrete(g->rng[GEN_ST_GPUS], g->gpus)];
	job->queue = gsl_ran_discrete(g->rng[GEN_ST_QUEUES], g->queues);
	job->priority = c->prio_values[gsl_ran_discrete(g->rng[GEN_ST_PRIORITIES], g->prios)];
	job->template_idx = c->n_templates ? gsl_ran_discrete(g->rng[GEN_ST_PREFS], g->templates) : 0;
	return 1;
}

/* ---- writing -------------------------------------------------------------- */

/* Shortest decimal that reads back as v, for the '#' lines. */
static const char *num(double v, char *buf)
{
	sim_json_fmt_double(v, buf, 32);
	return buf;
}

static void write_law(const struct gen_config *c, FILE *f)
{
	char a[32], b[32], d[32];

	fprintf(f, "# arrivals poisson %s/h", num(c->rate_per_h, a));
	if (c->diurnal_amp > 0.0)
		fprintf(f, ", diurnal amplitude %s peak hour %s", num(c->diurnal_amp, a),
			num(c->peak_hour, b));
	if (c->burst_every_h > 0.0)
		fprintf(f, ", bursts every %s h for %s s x %s", num(c->burst_every_h, a),
			num(c->burst_length_s, b), num(c->burst_factor, d));
	if (c->law == GEN_LAW_LOGNORMAL)
		fprintf(f, "; durations lognormal median %s s sigma %s", num(c->median_s, a),
			num(c->sigma, b));
	else if (c->law == GEN_LAW_WEIBULL)
		fprintf(f, "; durations weibull shape %s scale %s s", num(c->shape, a), num(c->scale_s, b));
	else
		fprintf(f, "; durations resampled from %zu jobs", c->n_emp);
	if (c->cap_s > 0.0)
		fprintf(f, " cap %s s", num(c->cap_s, a));
	fputc('\n', f);
}

static void write_row(const struct gen_config *c, const struct gen_job *j, FILE *f)
{
	fprintf(f, "g%" PRIu64 ",%" PRIu64 ".%03u,%" PRIu64 ".%03u,%s,%d,", j->index + 1, j->submit_ms / 1000,
		(unsigned)(j->submit_ms % 1000), j->duration_ms / 1000, (unsigned)(j->duration_ms % 1000),
		c->queue_names[j->queue], j->priority);
	if (c->n_templates) {
		fprintf(f, "*:gpu=%u,", j->gpus);
		for (size_t k = 0; k < c->template_len[j->template_idx]; k++)
			fprintf(f, "%s%s", k ? ";" : "", c->templates[j->template_idx][k]);
	} else {
		fprintf(f, "%s:gpu=%u", c->flavor, j->gpus);
	}
	if (c->checkpoint_ms)
		fprintf(f, ",%" PRIu64 ".%03u", c->checkpoint_ms / 1000, (unsigned)(c->checkpoint_ms % 1000));
	fputc('\n', f);
}

int gen_write(const struct gen_config *cfg, FILE *f, uint64_t *n_jobs, struct sim_diag *diag)
{
	struct gen *g;
	struct gen_job j;
	uint64_t n = 0;
	int rc;

	rc = gen_create(cfg, &g);
	if (rc)
		return rc;
	fprintf(f, "# gpusched trace gen %s --seed %" PRIu64 "\n", cfg->name, cfg->seed);
	write_law(cfg, f);
	fprintf(f, "id,submit_s,duration_s,queue,priority,request%s%s\n", cfg->n_templates ? ",prefs" : "",
		cfg->checkpoint_ms ? ",checkpoint_s" : "");
	while ((rc = gen_next(g, &j)) == 1) {
		write_row(cfg, &j, f);
		n++;
	}
	if (rc == -SIM_ERANGE) {
		char where[1024];

		snprintf(where, sizeof where, "%s: $.arrivals.rate_per_h", cfg->name);
		sim_diag_add(diag, where,
			     "expected a rate that submits %" PRIu64 " jobs within %g s, got %g/h", cfg->jobs,
			     GEN_MAX_SUBMIT_S, cfg->rate_per_h);
	}
	gen_destroy(g);
	if (n_jobs)
		*n_jobs = n;
	if (rc == 0 && ferror(f))
		rc = -SIM_EIO;
	return rc;
}

int gen_write_file(const struct gen_config *cfg, const char *out_path, uint64_t *n_jobs,
		   struct sim_diag *diag)
{
	char *tmp = NULL;
	FILE *f = sim_out_tmp_fopen(out_path, &tmp, diag);
	if (!f)
		return -SIM_EIO;
	setvbuf(f, NULL, _IOFBF, 1u << 20);
	int rc = gen_write(cfg, f, n_jobs, diag);
	int err = sim_out_close(f);
	if (err && (rc == 0 || rc == -SIM_EIO)) {
		sim_diag_add(diag, out_path, "cannot write: %s", sim_out_write_error(err));
		rc = -SIM_EIO;
	} else if (rc == -SIM_EIO) {
		sim_diag_add(diag, out_path, "cannot write");
	}
	if (rc == 0 && rename(tmp, out_path) != 0) {
		sim_diag_add(diag, out_path, "cannot rename %s: %s", tmp, strerror(errno));
		rc = -SIM_EIO;
	}
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
}
