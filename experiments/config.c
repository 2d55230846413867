/* experiments/config.c: loads and checks an experiment config (schema in experiments/README.md).
 *
 * Flow: read the file, parse it with cJSON (syntax errors become FILE:LINE:COL), walk
 * the whole tree once for duplicate keys, check the top-level keys that every run
 * shares (name, trace, seeds, output...), then expand the sweep into variants and
 * check each variant's cluster and policies. Errors are collected into a private list
 * first, so that an error every variant shares is reported once and an error that
 * only some variants have names them; the list then goes to the caller's sim_diag.
 * Nothing is returned unless the whole config is valid.
 */
#include "config.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/jsonmsg.h"
#include "../sim/fault_events.h"
#include "../sim/sidecsv.h"
#include "../sim/yamltree.h"

#define PATH_MAX_     512                /* JSON paths in messages; longer ones are truncated */
#define MAX_VARIANTS  100000             /* a sweep larger than this is almost surely a mistake */
/* Limits of the cluster index (sim/cluster.c sizes its buckets by GPU milli-units). */
#define CLUSTER_NODES_MAX (1u << 30)
#define NODE_GPU_MAX_MILLI ((sim_qty_t)1 << 20) /* 1048.576 GPUs a node */
/* Speeds scale run times; the bounds keep scaled times far from int64 overflow. */
#define SPEED_MIN 1e-3
#define SPEED_MAX 1e3
#define QTY_MAX_UNITS 1e9                /* largest quantity a config accepts, in units (not milli) */
#define SEED_MAX      9007199254740991.0 /* 2^53 - 1: the largest integer a JSON double holds exactly */

/* ---- error collection -------------------------------------------------- */

struct err {
	char *path; /* "$.cluster.flavors[0].nodes"; owned */
	char *msg;  /* "expected integer >= 0, got -2"; owned */
};

struct chk {
	struct err *errs; /* owned */
	size_t n, cap;
	int nomem; /* an allocation failed: the result is -SIM_ENOMEM */
};

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = malloc(n);
	if (p)
		memcpy(p, s, n);
	return p;
}

static void chk_fini(struct chk *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->errs[i].path);
		free(c->errs[i].msg);
	}
	free(c->errs);
	c->errs = NULL;
	c->n = c->cap = 0;
}

static void err(struct chk *c, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void err(struct chk *c, const char *path, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		struct err *e = realloc(c->errs, cap * sizeof *e);
		if (!e) {
			c->nomem = 1;
			return;
		}
		c->errs = e;
		c->cap = cap;
	}
	c->errs[c->n].path = xstrdup(path);
	c->errs[c->n].msg = xstrdup(msg);
	if (!c->errs[c->n].path || !c->errs[c->n].msg) {
		free(c->errs[c->n].path);
		free(c->errs[c->n].msg);
		c->nomem = 1;
		return;
	}
	c->n++;
}

/* ---- generic checks ------------------------------------------------------ */

/* Duplicate keys anywhere: cJSON keeps both and GetObjectItem sees the first. */
static void report_dup(void *arg, const char *path)
{
	err(arg, path, "duplicate key; expected each key once per object");
}

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[64];

	if (lb >= 63 || la >= 63)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

/* Unknown keys of obj; known is NULL-terminated. */
static void check_keys(struct chk *c, const cJSON *obj, const char *path, const char *const *known)
{
	char sub[PATH_MAX_], list[512], hint[96];

	for (const cJSON *ch = obj->child; ch; ch = ch->next) {
		const char *key = ch->string ? ch->string : "";
		const char *best = NULL;
		size_t best_d = 3, o = 0, i;

		for (i = 0; known[i]; i++)
			if (strcmp(known[i], key) == 0)
				break;
		if (known[i])
			continue;
		list[0] = 0;
		for (i = 0; known[i]; i++) {
			size_t d = edit_distance(key, known[i]);
			if (d < best_d && d < strlen(known[i])) {
				best_d = d;
				best = known[i];
			}
			if (o < sizeof list)
				o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", i ? ", " : "",
						      known[i]);
		}
		hint[0] = 0;
		if (best)
			snprintf(hint, sizeof hint, " (did you mean \"%s\"?)", best);
		sim_json_path_key(sub, sizeof sub, path, key);
		err(c, sub, "unknown key; expected one of %s%s", list, hint);
	}
}

static const cJSON *get(const cJSON *obj, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* Character classes for names. */
enum name_kind {
	NAME_FILE,   /* [A-Za-z0-9_.-]+: experiment and flavor names */
	NAME_POLICY, /* [a-z0-9_]+: registry keys */
	NAME_RES,    /* [A-Za-z0-9_]+: resource names (used in trace requests "gpu=8,cpu=4") */
};

static int name_ok(const char *s, enum name_kind kind)
{
	if (!*s)
		return 0;
	for (; *s; s++) {
		char ch = *s;
		int ok = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_';
		if (kind != NAME_POLICY)
			ok = ok || (ch >= 'A' && ch <= 'Z');
		if (kind == NAME_FILE)
			ok = ok || ch == '.' || ch == '-';
		if (!ok)
			return 0;
	}
	return 1;
}

static const char *name_rule(enum name_kind kind)
{
	switch (kind) {
	case NAME_FILE:
		return "a name of letters, digits, '_', '.' and '-'";
	case NAME_POLICY:
		return "a policy name of lower-case letters, digits and '_'";
	case NAME_RES:
		return "a resource name of letters, digits and '_'";
	}
	return "a name";
}

/* A string value at path (v may be NULL when absent). Returns the string, or NULL
 * after reporting. required=0 and v absent returns NULL without an error. */
static const char *want_string(struct chk *c, const cJSON *v, const char *path, int required)
{
	char got[96];

	if (!v && !required)
		return NULL;
	if (!cJSON_IsString(v) || !v->valuestring) {
		sim_json_describe(v, got, sizeof got);
		err(c, path, "expected string%s, got %s", required ? " (required)" : "", got);
		return NULL;
	}
	return v->valuestring;
}

static const char *want_name(struct chk *c, const cJSON *v, const char *path, int required,
			     enum name_kind kind, size_t max_len)
{
	char got[96];
	const char *s = want_string(c, v, path, required);

	if (!s)
		return NULL;
	if (!name_ok(s, kind) || strlen(s) >= max_len) {
		sim_json_describe(v, got, sizeof got);
		err(c, path, "expected %s (1 to %zu characters), got %s", name_rule(kind), max_len - 1, got);
		return NULL;
	}
	return s;
}

/* An integer in [min, max] from a JSON number (integrality checked on valuedouble). */
static int want_int(struct chk *c, const cJSON *v, const char *path, double min, double max, double *out)
{
	char got[96];

	sim_json_describe(v, got, sizeof got);
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble != floor(v->valuedouble) ||
	    v->valuedouble < min) {
		err(c, path, "expected integer >= %.0f, got %s", min, got);
		return -1;
	}
	if (v->valuedouble > max) {
		err(c, path, "expected integer <= %.0f, got %s", max, got);
		return -1;
	}
	*out = v->valuedouble;
	return 0;
}

/* A finite number > min (strict) or >= min. */
static int want_number(struct chk *c, const cJSON *v, const char *path, double min, int strict, double *out)
{
	char got[96], lo[32];

	if (cJSON_IsNumber(v) && isfinite(v->valuedouble) &&
	    (strict ? v->valuedouble > min : v->valuedouble >= min)) {
		*out = v->valuedouble;
		return 0;
	}
	sim_json_describe(v, got, sizeof got);
	sim_json_fmt_double(min, lo, sizeof lo);
	err(c, path, "expected number %s %s, got %s", strict ? ">" : ">=", lo, got);
	return -1;
}

/* A quantity in milli-units: a decimal >= 0 (> 0 when positive) with at most 3 fractional
 * digits. cJSON only keeps the double, so "at most 3 digits" means v*1000 is an integer
 * up to the rounding error of the multiplication. */
static int want_qty(struct chk *c, const cJSON *v, const char *path, int positive, sim_qty_t *out)
{
	char got[96];

	sim_json_describe(v, got, sizeof got);
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0 ||
	    (positive && v->valuedouble <= 0)) {
		err(c, path, "expected decimal %s 0, got %s", positive ? ">" : ">=", got);
		return -1;
	}
	if (v->valuedouble > QTY_MAX_UNITS) {
		err(c, path, "expected decimal <= %.0f, got %s", QTY_MAX_UNITS, got);
		return -1;
	}
	double m = v->valuedouble * (double)SIM_MILLI;
	long long r = llround(m);
	double tol = fmax(1e-6, fabs(m) * 4 * DBL_EPSILON);
	if (fabs(m - (double)r) > tol || (positive && r == 0)) {
		err(c, path, "expected decimal with at most 3 fractional digits (milli-units), got %s", got);
		return -1;
	}
	*out = (sim_qty_t)r;
	return 0;
}

/* ---- top level ----------------------------------------------------------- */

static const char *const top_keys[] = { "name",  "description", "trace",          "cluster", "policies", "jobs",
					"seeds", "output",      "output_options", "sweep",   NULL };
static const char *const jobs_keys[] = { "checkpoint", "faults", NULL };
static const char *const checkpoint_keys[] = { "overhead_s", "restore_s", "memory", "persistent_every",
					       "interval", "mtbf_h", NULL };
static const char *const ckpt_memory_keys[] = { "write_s", "restore_s", "replicas", NULL };
/* Longest MTBF of $.jobs.checkpoint.mtbf_h: a century. */
#define FAULT_H_MAX_CK 876000.0
/* Longest checkpoint overhead or restore, s: a year. */
#define CKPT_COST_MAX_S 3.15e7
static const char *const trace_keys[] = { "path", "format", NULL };
static const char *const cluster_keys[] = { "resources", "flavors", "capacity_events", "failures", "fail_slow",
					    "fault_events", NULL };
static const char *const flavor_keys[] = { "name", "nodes", "node", "speed", "price_per_node_hour",
					   "stockout", "reservations", "autoscale", "spot", "training_plan", "flex", NULL };
/* SageMaker training plans: 1 to 182 days, 1, 2, 4, ..., 64 instances. */
#define PLAN_DAYS_MIN 1
#define PLAN_DAYS_MAX 182
#define PLAN_NODES_MAX 64
static const char *const spot_keys[] = { "rate_per_node_h", "times_s", "notice_s", "outage_s", NULL };
/* Most fixed notice times a spot flavor may list. */
#define SPOT_TIMES_MAX 100000
static const char *const autoscale_keys[] = { "min_nodes", "max_nodes", "mode", "idle_timeout_s", "provisioning",
					      NULL };
static const char *const provisioning_keys[] = { "distribution", "mean_s", NULL };
static const char *const flex_keys[] = { "provisioning", "capacity_trace", "failure_probability",
					 "max_provisioning_s", "max_run_s", "retry", NULL };
/* Most rows a flex capacity trace may have. */
#define FLEX_OFFERS_MAX 10000000
static const char *const flex_retry_keys[] = { "backoff_base_s", "backoff_max_s", "limit", NULL };
/* idle_timeout_s when not given: KubeRay's idleTimeoutSeconds default. */
#define AUTOSCALE_IDLE_DEFAULT_S 60.0
/* Shortest mean stock-out period, in s: periods alternate without end, so a mean
 * of 1e-300 s (1 ns once rounded) gave a run that never finished; 1 s keeps a
 * year-long run at tens of millions of events a flavor at worst. */
#define STOCK_MEAN_MIN_S 1.0

static const char *const stockout_keys[] = { "in_stock_mean_s", "out_of_stock_mean_s", "distribution",
					     "out_of_stock_nodes", NULL };
static const char *const window_keys[] = { "start_s", "end_s", NULL };
static const char *const policies_keys[] = { "order", "quota", "preemption", "fallback", "placement", NULL };
static const char *const output_options_keys[] = { "sample_s", NULL };

/* Policy families as config keys, in enum sim_policy_family order, with the only value
 * each accepts so far (NULL = any registered name; the runner checks the registry). */
static const char *const family_key[SIM_FAM_COUNT_] = { "order", "quota", "preemption", "fallback" };
static const char *const family_default[SIM_FAM_COUNT_] = { "fifo", "none", "none", "strict" };

static void check_trace(struct chk *c, struct exp_config *cfg, const cJSON *root)
{
	const cJSON *t = get(root, "trace");
	char got[96];
	const char *s;

	if (!t) {
		err(c, "$.trace", "expected object {\"path\": ...} (required), got nothing");
		return;
	}
	if (!cJSON_IsObject(t)) {
		sim_json_describe(t, got, sizeof got);
		err(c, "$.trace", "expected object {\"path\": ...}, got %s", got);
		return;
	}
	check_keys(c, t, "$.trace", trace_keys);
	s = want_string(c, get(t, "path"), "$.trace.path", 1);
	if (s && !*s)
		err(c, "$.trace.path", "expected a non-empty path, got \"\"");
	else if (s && !(cfg->trace_path = sim_path_beside(cfg->path, s)))
		c->nomem = 1;
	s = want_string(c, get(t, "format"), "$.trace.format", 0);
	if (get(t, "format") && s && strcmp(s, "native") != 0) {
		sim_json_describe(get(t, "format"), got, sizeof got);
		err(c, "$.trace.format", "expected \"native\" (the only format so far), got %s", got);
	}
	if (!(cfg->trace_format = xstrdup("native")))
		c->nomem = 1;
}

static void check_seeds(struct chk *c, struct exp_config *cfg, const cJSON *root)
{
	const cJSON *s = get(root, "seeds");
	char path[PATH_MAX_], got[96];
	size_t n, i = 0;

	if (!s) {
		cfg->seeds = malloc(sizeof *cfg->seeds);
		if (!cfg->seeds) {
			c->nomem = 1;
			return;
		}
		cfg->seeds[0] = 1;
		cfg->n_seeds = 1;
		return;
	}
	n = cJSON_IsArray(s) ? (size_t)cJSON_GetArraySize(s) : 0;
	if (n == 0) {
		sim_json_describe(s, got, sizeof got);
		err(c, "$.seeds", "expected a non-empty list of integers >= 0, got %s%s", got,
		    cJSON_IsArray(s) ? " (empty)" : "");
		return;
	}
	cfg->seeds = calloc(n, sizeof *cfg->seeds);
	if (!cfg->seeds) {
		c->nomem = 1;
		return;
	}
	for (const cJSON *e = s->child; e; e = e->next, i++) {
		double v;
		sim_json_path_idx(path, sizeof path, "$.seeds", i);
		if (want_int(c, e, path, 0, SEED_MAX, &v) < 0)
			continue;
		for (size_t j = 0; j < cfg->n_seeds; j++)
			if (cfg->seeds[j] == (uint64_t)v) {
				err(c, path, "expected distinct seeds, got %.0f twice", v);
				break;
			}
		cfg->seeds[cfg->n_seeds++] = (uint64_t)v;
	}
}

static void check_output(struct chk *c, struct exp_config *cfg, const cJSON *root)
{
	const cJSON *o = get(root, "output");
	const cJSON *oo = get(root, "output_options");
	const char *s;
	char got[96];

	if (o) {
		s = want_string(c, o, "$.output", 0);
		if (s && !*s)
			err(c, "$.output", "expected a non-empty path, got \"\"");
		else if (s && !(cfg->output = sim_path_beside(cfg->path, s)))
			c->nomem = 1;
	} else if (cfg->name) {
		size_t n = strlen(cfg->name) + sizeof "results/.h5";
		char *rel = malloc(n);
		if (rel) {
			snprintf(rel, n, "results/%s.h5", cfg->name);
			cfg->output = sim_path_beside(cfg->path, rel);
			free(rel);
		}
		if (!cfg->output)
			c->nomem = 1;
	}
	cfg->sample_s = 0;
	if (!oo)
		return;
	if (!cJSON_IsObject(oo)) {
		sim_json_describe(oo, got, sizeof got);
		err(c, "$.output_options", "expected object, got %s", got);
		return;
	}
	check_keys(c, oo, "$.output_options", output_options_keys);
	if (get(oo, "sample_s"))
		want_number(c, get(oo, "sample_s"), "$.output_options.sample_s", 0, 0, &cfg->sample_s);
}

static void check_top(struct chk *c, struct exp_config *cfg, const cJSON *root)
{
	const char *s;

	check_keys(c, root, "$", top_keys);
	s = want_name(c, get(root, "name"), "$.name", 1, NAME_FILE, 256);
	if (s && !(cfg->name = xstrdup(s)))
		c->nomem = 1;
	want_string(c, get(root, "description"), "$.description", 0);
	check_trace(c, cfg, root);
	check_seeds(c, cfg, root);
	check_output(c, cfg, root);
}

/* ---- one variant: cluster and policies ---------------------------------- */

static void check_node(struct chk *c, const cJSON *node, const char *path, const struct sim_resources *res,
		       struct sim_flavor_spec *f)
{
	char sub[PATH_MAX_], got[96], list[SIM_MAX_RES * (SIM_NAME_MAX + 2)];
	size_t o = 0;

	if (!cJSON_IsObject(node)) {
		sim_json_describe(node, got, sizeof got);
		err(c, path, "expected object {\"gpu\": N, ...} (required), got %s", got);
		return;
	}
	list[0] = 0;
	for (int r = 0; r < res->n; r++)
		o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", r ? ", " : "", res->names[r]);
	for (const cJSON *ch = node->child; ch; ch = ch->next) {
		int r = sim_resources_find(res, ch->string ? ch->string : "");
		sim_json_path_key(sub, sizeof sub, path, ch->string ? ch->string : "");
		if (r < 0) {
			err(c, sub,
			    "undeclared resource; expected one of %s (declare others in $.cluster.resources)",
			    list);
			continue;
		}
		if (want_qty(c, ch, sub, r == SIM_RES_GPU, &f->node_cap[r]) == 0 && r == SIM_RES_GPU &&
		    f->node_cap[r] > NODE_GPU_MAX_MILLI) {
			sim_json_describe(ch, got, sizeof got);
			err(c, sub, "expected at most %g GPUs per node, got %s",
			    (double)NODE_GPU_MAX_MILLI / SIM_MILLI, got);
		}
	}
	if (!get(node, "gpu")) {
		sim_json_path_key(sub, sizeof sub, path, "gpu");
		err(c, sub, "expected decimal > 0 (required: GPUs per node), got nothing");
	}
}

/* ---- capacity over time (sim/capacity.h) ---- */

static int want_time(struct chk *c, const cJSON *v, const char *path, sim_time_t *out)
{
	double x;
	if (want_number(c, v, path, 0, 0, &x))
		return -1;
	if (x > 1e9) {
		char got[96];
		sim_json_describe(v, got, sizeof got);
		err(c, path, "expected seconds <= 1e9, got %s", got);
		return -1;
	}
	*out = (sim_time_t)llround(x * (double)SIM_NS_PER_S);
	return 0;
}

static void check_stockout(struct chk *c, const cJSON *so, const char *path, const struct sim_flavor_spec *f,
			   struct sim_stockout *out)
{
	char sub[PATH_MAX_], got[96];
	double v;

	if (!cJSON_IsObject(so)) {
		sim_json_describe(so, got, sizeof got);
		err(c, path, "expected object {\"in_stock_mean_s\", \"out_of_stock_mean_s\", ...}, got %s", got);
		return;
	}
	check_keys(c, so, path, stockout_keys);
	out->law = SIM_STOCK_EXPONENTIAL;
	const cJSON *d = get(so, "distribution");
	sim_json_path_key(sub, sizeof sub, path, "distribution");
	if (d && cJSON_IsString(d) && strcmp(d->valuestring, "fixed") == 0) {
		out->law = SIM_STOCK_FIXED;
	} else if (d && !(cJSON_IsString(d) && strcmp(d->valuestring, "exponential") == 0)) {
		sim_json_describe(d, got, sizeof got);
		err(c, sub, "expected \"exponential\" or \"fixed\", got %s", got);
	}
	static const char *const means[] = { "in_stock_mean_s", "out_of_stock_mean_s" };
	for (int i = 0; i < 2; i++) {
		sim_json_path_key(sub, sizeof sub, path, means[i]);
		double *dst = i ? &out->out_mean_s : &out->in_mean_s;
		if (!get(so, means[i]))
			err(c, sub, "expected seconds > 0 (required), got nothing");
		else if (want_number(c, get(so, means[i]), sub, 0, 1, dst) == 0 &&
			 !(*dst >= STOCK_MEAN_MIN_S && *dst <= 1e9))
			err(c, sub, "expected seconds in [%g, 1e9] (a shorter mean makes the run endless events), "
			    "got %g", STOCK_MEAN_MIN_S, *dst);
	}
	sim_json_path_key(sub, sizeof sub, path, "out_of_stock_nodes");
	if (get(so, "out_of_stock_nodes") &&
	    want_int(c, get(so, "out_of_stock_nodes"), sub, 0, (double)f->nodes, &v) == 0)
		out->out_nodes = (uint32_t)v;
}

static void check_reservations(struct chk *c, const cJSON *rs, const char *path, int flavor,
			       struct sim_capacity *cap)
{
	char sub[PATH_MAX_], item[PATH_MAX_], got[96];
	size_t i = 0;

	if (!cJSON_IsArray(rs) || cJSON_GetArraySize(rs) == 0) {
		sim_json_describe(rs, got, sizeof got);
		err(c, path, "expected a non-empty list of windows [{\"start_s\": S, \"end_s\": S}, ...], got %s",
		    got);
		return;
	}
	sim_time_t prev_end = -1;
	for (const cJSON *w = rs->child; w; w = w->next, i++) {
		sim_time_t start = 0, end = 0;
		sim_json_path_idx(item, sizeof item, path, i);
		if (!cJSON_IsObject(w)) {
			sim_json_describe(w, got, sizeof got);
			err(c, item, "expected object {\"start_s\": S, \"end_s\": S}, got %s", got);
			continue;
		}
		check_keys(c, w, item, window_keys);
		sim_json_path_key(sub, sizeof sub, item, "start_s");
		int bad = !get(w, "start_s") ? (err(c, sub, "expected seconds >= 0 (required), got nothing"), 1)
					     : want_time(c, get(w, "start_s"), sub, &start) != 0;
		sim_json_path_key(sub, sizeof sub, item, "end_s");
		bad |= !get(w, "end_s") ? (err(c, sub, "expected seconds > start_s (required), got nothing"), 1)
					: want_time(c, get(w, "end_s"), sub, &end) != 0;
		if (bad)
			continue;
		if (end <= start) {
			err(c, sub, "expected seconds > start_s (%g), got %g", sim_time_to_s(start), sim_time_to_s(end));
			continue;
		}
		if (start < prev_end) {
			err(c, item, "expected windows in time order without overlap: this one starts at %g s, "
			    "before the previous one ends (%g s)", sim_time_to_s(start), sim_time_to_s(prev_end));
			continue;
		}
		prev_end = end;
		if (sim_capacity_add_window(cap, flavor, start, end))
			c->nomem = 1;
	}
}

/* A side CSV a config key names (a path beside the config): the reader, its own
 * errors (a NUL byte, a cut file...) and the full path. */
struct side_csv {
	struct sim_csv r;
	struct sim_diag rd;
	char *full;
};

/* Opens the CSV named at `where` (node: the key's value; header: what the file
 * holds, for the message) and reads its first row. Returns 1 when that row (the
 * header) is there, 0 for an empty file, -1 when refused or unreadable (reported
 * now, or by side_csv_end). side_csv_end follows in every case. */
static int side_csv_begin(struct chk *c, const char *cfg_path, const cJSON *node, const char *where,
			  const char *header, struct side_csv *s)
{
	char got[96];
	memset(s, 0, sizeof *s);
	sim_diag_init(&s->rd, 20);
	if (!cJSON_IsString(node) || !node->valuestring[0]) {
		sim_json_describe(node, got, sizeof got);
		err(c, where, "expected the path of a CSV file (%s), got %s", header, got);
		return -1;
	}
	s->full = sim_path_beside(cfg_path, node->valuestring);
	if (!s->full) {
		c->nomem = 1;
		return -1;
	}
	if (sim_csv_open(&s->r, s->full, &s->rd) < 0) {
		err(c, where, "cannot read %s: %s", s->full, strerror(errno));
		return -1;
	}
	int row = sim_csv_next(&s->r);
	return row < 0 ? -1 : row > 0;
}

/* The reader's own errors, reported at `where`; the file closed. */
static void side_csv_end(struct chk *c, const char *where, struct side_csv *s)
{
	for (size_t i = 0; i < s->rd.count && i < s->rd.limit && s->rd.lines; i++)
		err(c, where, "%s", s->rd.lines[i]);
	sim_diag_fini(&s->rd);
	sim_csv_close(&s->r); /* harmless after a failed open, or none (zeroed) */
	free(s->full);
}

/* capacity_events: time_s,flavor,nodes|delta[,mode]. Rows for a flavor with
 * reservation windows are refused: the windows own its capacity. */
static void read_capacity_events(struct chk *c, const char *cfg_path, const cJSON *ce, struct exp_variant *v)
{
	static const char *const where = "$.cluster.capacity_events";
	struct side_csv sc;
	struct sim_csv *r = &sc.r;
	int ti = -1, fi = -1, ni = -1, di = -1, mi = -1, row;
	if ((row = side_csv_begin(c, cfg_path, ce, where, "time_s,flavor,nodes|delta[,mode]", &sc)) < 0)
		goto out;
	const char *full = sc.full;
	if (row) {
		ti = sim_csv_col(r, "time_s"), fi = sim_csv_col(r, "flavor");
		ni = sim_csv_col(r, "nodes"), di = sim_csv_col(r, "delta"), mi = sim_csv_col(r, "mode");
	}
	int ncols = 2 + (ni >= 0) + (di >= 0) + (mi >= 0);
	if (ti < 0 || fi < 0 || (ni >= 0) == (di >= 0) || ncols != r->n) {
		err(c, where, "%s:%u: expected the header time_s,flavor,nodes or time_s,flavor,delta, with an "
		    "optional mode column, and no other column", full, r->lineno);
		goto out;
	}
	int vi = ni >= 0 ? ni : di;
	while ((row = sim_csv_next(r)) > 0) {
		struct sim_cap_change ch = { .is_delta = di >= 0, .line = r->lineno, .mode = SIM_CAP_REMOVE };
		char *end = NULL;
		const char *fname = r->n > fi ? r->fields[fi] : "";
		const char *mode = mi >= 0 && r->n > mi ? r->fields[mi] : "remove";
		long long n = r->n > vi ? strtoll(r->fields[vi], &end, 10) : 0;
		ch.flavor = -1;
		for (size_t k = 0; k < v->n_flavors; k++)
			if (strcmp(v->flavors[k].name, fname) == 0)
				ch.flavor = (int32_t)k;
		if (r->n != ncols || sim_time_parse_s(r->fields[ti], strlen(r->fields[ti]), &ch.t) || ch.t < 0) {
			err(c, where, "%s:%u: column time_s: expected %d fields and seconds >= 0, found '%s'", full,
			    r->lineno, ncols, r->n > ti ? r->fields[ti] : "");
		} else if (ch.flavor < 0) {
			err(c, where, "%s:%u: column flavor: expected a flavor of $.cluster.flavors, found '%s'",
			    full, r->lineno, fname);
		} else if (!end || *end || end == r->fields[vi] || (!ch.is_delta && n < 0) || llabs(n) > 1000000000LL) {
			err(c, where, "%s:%u: column %s: expected an integer%s, found '%s'", full, r->lineno,
			    ch.is_delta ? "delta" : "nodes", ch.is_delta ? "" : " >= 0", r->n > vi ? r->fields[vi] : "");
		} else if (strcmp(mode, "remove") != 0 && strcmp(mode, "drain") != 0) {
			err(c, where, "%s:%u: column mode: expected remove or drain, found '%s'", full, r->lineno, mode);
		} else if (sim_capacity_is_reservation(v->capacity, ch.flavor)) {
			err(c, where, "%s:%u: column flavor: expected a flavor without reservations (its windows set "
			    "its capacity), found '%s'", full, r->lineno, fname);
		} else {
			ch.nodes = n;
			ch.mode = strcmp(mode, "drain") == 0 ? SIM_CAP_DRAIN : SIM_CAP_REMOVE;
			if (sim_capacity_add_change(v->capacity, &ch))
				c->nomem = 1;
		}
	}
out:
	side_csv_end(c, where, &sc);
}

/* Windows become changes (open: the flavor's nodes; close: none, stopping what
 * runs); the cluster is sized for the peak and starts with the initial count. */
static void finish_capacity(struct chk *c, struct exp_variant *v)
{
	struct sim_capacity *cap = v->capacity;
	for (size_t f = 0; f < v->n_flavors; f++)
		for (size_t i = 0; i < cap->n_windows[f]; i++) {
			const struct sim_window *w = &cap->windows[f][i];
			struct sim_cap_change open = { .t = w->start, .flavor = (int32_t)f, .nodes = v->flavors[f].nodes };
			/* a training plan's instances go 30 minutes before its end (SageMaker) */
			sim_time_t close_t = cap->plan[f] ? w->end - (sim_time_t)SIM_PLAN_CUTOFF_S * SIM_NS_PER_S : w->end;
			struct sim_cap_change close = { .t = close_t, .flavor = (int32_t)f, .mode = SIM_CAP_REMOVE };
			if (sim_capacity_add_change(cap, &open) || sim_capacity_add_change(cap, &close))
				c->nomem = 1;
		}
	if (sim_capacity_finalize(cap))
		return; /* overlapping windows were reported already */
	for (size_t f = 0; f < v->n_flavors; f++) {
		struct sim_flavor_spec *fs = &v->flavors[f];
		uint32_t peak = sim_capacity_peak(cap, (int)f, fs->nodes);
		if (peak > CLUSTER_NODES_MAX) {
			err(c, "$.cluster.capacity_events", "expected at most %.0f nodes of flavor %s at any time, got %u",
			    (double)CLUSTER_NODES_MAX, fs->name, peak);
			continue;
		}
		fs->peak_nodes = peak;
		fs->nodes = sim_capacity_initial(cap, (int)f, fs->nodes);
	}
}

/* $.cluster.flavors[i].provisioning: the law of the provisioning delay. */
static void check_provisioning(struct chk *c, const cJSON *pv, const char *path, struct sim_as_flavor *af)
{
	char sub[PATH_MAX_], got[96];
	if (!cJSON_IsObject(pv)) {
		sim_json_describe(pv, got, sizeof got);
		err(c, path, "expected object {\"distribution\", \"mean_s\"}, got %s", got);
		return;
	}
	check_keys(c, pv, path, provisioning_keys);
	const cJSON *d = get(pv, "distribution");
	if (d && cJSON_IsString(d) && strcmp(d->valuestring, "exponential") == 0) {
		af->law = SIM_AS_EXPONENTIAL;
	} else if (d && !(cJSON_IsString(d) && strcmp(d->valuestring, "fixed") == 0)) {
		sim_json_path_key(sub, sizeof sub, path, "distribution");
		sim_json_describe(d, got, sizeof got);
		err(c, sub, "expected \"fixed\" or \"exponential\", got %s", got);
	}
	sim_json_path_key(sub, sizeof sub, path, "mean_s");
	if (!get(pv, "mean_s")) {
		err(c, sub, "expected seconds >= 0 (required), got nothing");
	} else if (want_number(c, get(pv, "mean_s"), sub, 0, 0, &af->provision_s) == 0 && af->provision_s > 1e9) {
		err(c, sub, "expected seconds <= 1e9, got %g", af->provision_s);
	}
}

/* $.cluster.flavors[i].autoscale (docs/capacity.md): bounds, mode, idle timeout and
 * provisioning law; the flavor's nodes are those up at the start, within the bounds. */
static void check_autoscale(struct chk *c, const cJSON *as, const char *path, struct sim_flavor_spec *f,
			    const struct sim_resources *res, struct sim_as_flavor *af)
{
	char sub[PATH_MAX_], got[96];
	double v;
	if (!cJSON_IsObject(as)) {
		sim_json_describe(as, got, sizeof got);
		err(c, path, "expected object {\"min_nodes\", \"max_nodes\", ...}, got %s", got);
		return;
	}
	check_keys(c, as, path, autoscale_keys);
	af->on = 1;
	af->idle_timeout_ns = (sim_time_t)llround(AUTOSCALE_IDLE_DEFAULT_S * (double)SIM_NS_PER_S);
	int bounds_ok = 1;
	sim_json_path_key(sub, sizeof sub, path, "max_nodes");
	if (!get(as, "max_nodes"))
		bounds_ok = 0, err(c, sub, "expected integer >= 1 (required), got nothing");
	else if (want_int(c, get(as, "max_nodes"), sub, 1, (double)CLUSTER_NODES_MAX, &v) == 0)
		af->max_nodes = (uint32_t)v;
	else
		bounds_ok = 0;
	sim_json_path_key(sub, sizeof sub, path, "min_nodes");
	if (get(as, "min_nodes")) {
		if (want_int(c, get(as, "min_nodes"), sub, 0, (double)CLUSTER_NODES_MAX, &v) == 0)
			af->min_nodes = (uint32_t)v;
		else
			bounds_ok = 0;
	}
	if (bounds_ok && af->min_nodes > af->max_nodes) {
		err(c, sub, "expected integer <= max_nodes (%u), got %u", af->max_nodes, af->min_nodes);
	} else if (bounds_ok && (f->nodes < af->min_nodes || f->nodes > af->max_nodes)) {
		char np[PATH_MAX_];
		snprintf(np, sizeof np, "%.*s.nodes", (int)(strlen(path) - strlen(".autoscale")), path);
		err(c, np, "expected integer in [min_nodes, max_nodes] = [%u, %u] (the nodes up at the start of "
		    "an autoscaled flavor), got %u", af->min_nodes, af->max_nodes, f->nodes);
	}
	for (int r = 0; r < res->n; r++)
		if ((double)af->max_nodes * (double)f->node_cap[r] > 1e17) {
			sim_json_path_key(sub, sizeof sub, path, "max_nodes");
			err(c, sub, "expected max_nodes x node.%s at most 1e14 units, got %.3g", res->names[r],
			    (double)af->max_nodes * (double)f->node_cap[r] / (double)SIM_MILLI);
			break;
		}
	const cJSON *m = get(as, "mode");
	if (m) {
		int mode = cJSON_IsString(m) ? sim_as_mode_from_name(m->valuestring) : -1;
		if (mode < 0) {
			sim_json_path_key(sub, sizeof sub, path, "mode");
			sim_json_describe(m, got, sizeof got);
			err(c, sub, "expected \"default\", \"conservative\" or \"aggressive\", got %s", got);
		} else {
			af->mode = (uint8_t)mode;
		}
	}
	sim_json_path_key(sub, sizeof sub, path, "idle_timeout_s");
	if (get(as, "idle_timeout_s"))
		want_time(c, get(as, "idle_timeout_s"), sub, &af->idle_timeout_ns);
	if (get(as, "provisioning")) {
		sim_json_path_key(sub, sizeof sub, path, "provisioning");
		check_provisioning(c, get(as, "provisioning"), sub, af);
	}
}

static sim_time_t secs_ns(double s) { return (sim_time_t)llround(s * (double)SIM_NS_PER_S); }

/* $.cluster.flavors[i].flex.retry: Kueue's ProvisioningRequestConfig retryStrategy. */
static void check_flex_retry(struct chk *c, const cJSON *r, const char *path, struct sim_flex_flavor *ff)
{
	char sub[PATH_MAX_], got[96];
	double v;
	if (!cJSON_IsObject(r)) {
		sim_json_describe(r, got, sizeof got);
		err(c, path, "expected object {\"backoff_base_s\", \"backoff_max_s\", \"limit\"}, got %s", got);
		return;
	}
	check_keys(c, r, path, flex_retry_keys);
	sim_json_path_key(sub, sizeof sub, path, "backoff_base_s");
	if (get(r, "backoff_base_s"))
		want_time(c, get(r, "backoff_base_s"), sub, &ff->backoff_base_ns);
	sim_json_path_key(sub, sizeof sub, path, "backoff_max_s");
	if (get(r, "backoff_max_s") && want_time(c, get(r, "backoff_max_s"), sub, &ff->backoff_max_ns) == 0 &&
	    ff->backoff_max_ns < ff->backoff_base_ns)
		err(c, sub, "expected seconds >= backoff_base_s (%g), got %g", sim_time_to_s(ff->backoff_base_ns),
		    sim_time_to_s(ff->backoff_max_ns));
	sim_json_path_key(sub, sizeof sub, path, "limit");
	if (get(r, "limit") && want_int(c, get(r, "limit"), sub, 0, 1000, &v) == 0)
		ff->retries = (uint32_t)v;
}

/* $.cluster.flavors[i].flex (docs/capacity.md, "Flex-start"): the provisioning law,
 * the failures, the maximum run duration and the retries. The flavor's nodes are
 * the most it may have provisioned at once; none is up at the start. */
static void check_flex(struct chk *c, const cJSON *fx, const char *path, struct sim_flex_flavor *ff)
{
	char sub[PATH_MAX_], got[96];
	if (!cJSON_IsObject(fx)) {
		sim_json_describe(fx, got, sizeof got);
		err(c, path, "expected object {\"provisioning\", \"max_run_s\", ...}, got %s", got);
		return;
	}
	check_keys(c, fx, path, flex_keys);
	ff->on = 1;
	ff->max_run_ns = secs_ns(SIM_FLEX_MAX_RUN_DEFAULT_S);
	ff->backoff_base_ns = secs_ns(SIM_FLEX_BACKOFF_BASE_DEFAULT_S);
	ff->backoff_max_ns = secs_ns(SIM_FLEX_BACKOFF_MAX_DEFAULT_S);
	ff->retries = SIM_FLEX_RETRIES_DEFAULT;
	sim_json_path_key(sub, sizeof sub, path, "provisioning");
	if (get(fx, "provisioning") && get(fx, "capacity_trace")) {
		err(c, sub, "expected provisioning or capacity_trace, not both");
	} else if (get(fx, "capacity_trace")) {
		/* read after the flavors: read_flex_traces */
	} else if (!get(fx, "provisioning")) {
		err(c, sub, "expected object {\"distribution\", \"mean_s\"} (required without capacity_trace), got "
		    "nothing");
	} else {
		struct sim_as_flavor law = { 0 };
		check_provisioning(c, get(fx, "provisioning"), sub, &law);
		ff->law = law.law == SIM_AS_EXPONENTIAL ? SIM_FLEX_EXPONENTIAL : SIM_FLEX_FIXED;
		ff->wait_s = law.provision_s;
	}
	sim_json_path_key(sub, sizeof sub, path, "failure_probability");
	if (get(fx, "failure_probability") &&
	    want_number(c, get(fx, "failure_probability"), sub, 0, 0, &ff->fail_p) == 0 && ff->fail_p > 1)
		err(c, sub, "expected number in [0, 1], got %g", ff->fail_p);
	sim_json_path_key(sub, sizeof sub, path, "max_provisioning_s");
	if (get(fx, "max_provisioning_s"))
		want_time(c, get(fx, "max_provisioning_s"), sub, &ff->max_wait_ns);
	sim_json_path_key(sub, sizeof sub, path, "max_run_s");
	if (get(fx, "max_run_s") && want_time(c, get(fx, "max_run_s"), sub, &ff->max_run_ns) == 0 &&
	    ff->max_run_ns <= 0)
		err(c, sub, "expected seconds > 0, got 0");
	if (get(fx, "retry")) {
		sim_json_path_key(sub, sizeof sub, path, "retry");
		check_flex_retry(c, get(fx, "retry"), sub, ff);
	}
}

/* $.cluster.flavors[i].flex.capacity_trace: time_s,nodes (docs/capacity.md,
 * "Flex-start"): from time_s, one request of up to `nodes` nodes can be served. */
static void read_flex_trace(struct chk *c, const char *cfg_path, const cJSON *ct, const char *where,
			    struct sim_flex *flex, int f)
{
	struct side_csv sc;
	struct sim_csv *r = &sc.r;
	int ti = -1, ni = -1, row;
	if ((row = side_csv_begin(c, cfg_path, ct, where, "time_s,nodes", &sc)) < 0)
		goto out;
	const char *full = sc.full;
	if (row)
		ti = sim_csv_col(r, "time_s"), ni = sim_csv_col(r, "nodes");
	if (ti < 0 || ni < 0 || r->n != 2) {
		err(c, where, "%s:%u: expected the header time_s,nodes", full, r->lineno);
		goto out;
	}
	while ((row = sim_csv_next(r)) > 0) {
		sim_time_t t = 0;
		char *end = NULL;
		long long n = r->n == 2 ? strtoll(r->fields[ni], &end, 10) : 0;
		if (r->n != 2 || sim_time_parse_s(r->fields[ti], strlen(r->fields[ti]), &t) || t < 0) {
			err(c, where, "%s:%u: column time_s: expected 2 fields and seconds >= 0, found '%s'", full,
			    r->lineno, r->n > ti ? r->fields[ti] : "");
		} else if (!end || *end || end == r->fields[ni] || n < 1 || n > 1000000000LL) {
			err(c, where, "%s:%u: column nodes: expected an integer >= 1, found '%s'", full, r->lineno,
			    r->fields[ni]);
		} else if (flex->fl[f].n_offers >= FLEX_OFFERS_MAX) {
			err(c, where, "%s:%u: expected at most %d rows", full, r->lineno, FLEX_OFFERS_MAX);
			break;
		} else if (sim_flex_add_offer(flex, f, t, (uint32_t)n, r->lineno)) {
			c->nomem = 1;
		}
	}
out:
	side_csv_end(c, where, &sc);
}

/* An autoscaled flavor is sized for its maximum (nodes beyond the initial ones
 * start off) and takes no capacity events: the autoscaler alone sets its nodes. */
static void finish_autoscale(struct chk *c, struct exp_variant *v)
{
	for (size_t f = 0; f < v->n_flavors; f++) {
		if (!sim_autoscale_on(v->autoscale, (int)f))
			continue;
		for (size_t i = 0; i < v->capacity->n_changes; i++)
			if (v->capacity->changes[i].flavor == (int32_t)f && !sim_capacity_is_reservation(v->capacity, (int)f)) {
				err(c, "$.cluster.capacity_events", "line %u: column flavor: expected a flavor without "
				    "autoscale (the autoscaler sets its nodes), found '%s'", v->capacity->changes[i].line,
				    v->flavors[f].name);
				break;
			}
		v->flavors[f].peak_nodes = v->autoscale->fl[f].max_nodes;
	}
	for (size_t f = 0; f < v->n_flavors; f++) { /* flex-start: every node off until a request is served */
		if (!sim_flex_on(v->flex, (int)f))
			continue;
		for (size_t i = 0; i < v->capacity->n_changes; i++)
			if (v->capacity->changes[i].flavor == (int32_t)f) {
				err(c, "$.cluster.capacity_events", "line %u: column flavor: expected a flavor without "
				    "flex (its requests set its nodes), found '%s'", v->capacity->changes[i].line,
				    v->flavors[f].name);
				break;
			}
		v->flavors[f].peak_nodes = v->flavors[f].nodes;
		v->flavors[f].nodes = 0;
	}
	sim_spot_finalize(v->spot);
	for (size_t f = 0; f < v->n_flavors; f++) {
		if (!sim_spot_on(v->spot, (int)f))
			continue;
		for (size_t i = 0; i < v->capacity->n_changes; i++)
			if (v->capacity->changes[i].flavor == (int32_t)f) {
				err(c, "$.cluster.capacity_events", "line %u: column flavor: expected a flavor without "
				    "spot (its interruptions set its nodes), found '%s'", v->capacity->changes[i].line,
				    v->flavors[f].name);
				break;
			}
	}
}

/* $.cluster.flavors[i].training_plan (docs/capacity.md, "Training plans"): true makes
 * the flavor's reservations SageMaker training plans: each window 1 to 182 days, the
 * nodes (instances) 1, 2, 4, ..., 64. */
static void check_training_plan(struct chk *c, const cJSON *fl, const char *path, const struct sim_flavor_spec *f,
				int flavor, struct sim_capacity *cap)
{
	char sub[PATH_MAX_], item[PATH_MAX_], got[96];
	const cJSON *tp = get(fl, "training_plan");
	sim_json_path_key(sub, sizeof sub, path, "training_plan");
	if (!cJSON_IsBool(tp)) {
		sim_json_describe(tp, got, sizeof got);
		err(c, sub, "expected true or false, got %s", got);
		return;
	}
	if (!cJSON_IsTrue(tp))
		return;
	cap->plan[flavor] = 1;
	const cJSON *rs = get(fl, "reservations");
	if (!cJSON_IsArray(rs)) {
		err(c, sub, "expected \"reservations\" beside it (the plan's windows), got none");
		return;
	}
	if (f->nodes < 1 || f->nodes > PLAN_NODES_MAX || (f->nodes & (f->nodes - 1))) {
		sim_json_path_key(item, sizeof item, path, "nodes");
		err(c, item, "expected 1, 2, 4, 8, 16, 32 or 64 instances for a training plan, got %u", f->nodes);
	}
	size_t i = 0;
	for (const cJSON *w = rs->child; w; w = w->next, i++) {
		const cJSON *s = get(w, "start_s"), *e = get(w, "end_s");
		if (!cJSON_IsNumber(s) || !cJSON_IsNumber(e))
			continue; /* reported by check_reservations */
		double days = (e->valuedouble - s->valuedouble) / 86400.0;
		if (days < PLAN_DAYS_MIN || days > PLAN_DAYS_MAX) {
			char rp[PATH_MAX_];
			sim_json_path_key(rp, sizeof rp, path, "reservations");
			sim_json_path_idx(item, sizeof item, rp, i);
			err(c, item, "expected a training plan of %d to %d days, got %g days", PLAN_DAYS_MIN,
			    PLAN_DAYS_MAX, days);
		}
	}
}

/* $.cluster.flavors[i].spot (docs/capacity.md, "Spot capacity"): its interruptions
 * (a rate per node-hour, fixed times, or both), the notice and the outage. A spot
 * flavor must have a price: spot is the cheaper capacity. */
static void check_spot(struct chk *c, const cJSON *sp, const char *path, int flavor,
		       const struct sim_flavor_spec *f, struct sim_spot *spot)
{
	char sub[PATH_MAX_], item[PATH_MAX_], got[96];
	struct sim_spot_flavor *sf = &spot->fl[flavor];
	if (!cJSON_IsObject(sp)) {
		sim_json_describe(sp, got, sizeof got);
		err(c, path, "expected object {\"rate_per_node_h\" | \"times_s\", \"notice_s\", ...}, got %s", got);
		return;
	}
	check_keys(c, sp, path, spot_keys);
	sf->on = 1;
	sf->notice_ns = (sim_time_t)llround(SIM_SPOT_NOTICE_DEFAULT_S * (double)SIM_NS_PER_S);
	if (!(f->price_per_node_hour > 0)) {
		char pp[PATH_MAX_];
		snprintf(pp, sizeof pp, "%.*s.price_per_node_hour", (int)(strlen(path) - strlen(".spot")), path);
		err(c, pp, "expected number > 0 for a spot flavor (spot capacity has a price), got %s",
		    f->price_per_node_hour == 0 ? "0 or nothing" : "less");
	}
	const cJSON *rate = get(sp, "rate_per_node_h"), *times = get(sp, "times_s");
	if (!rate && !times)
		err(c, path, "expected \"rate_per_node_h\" or \"times_s\" (the interruptions), got neither");
	if (rate) {
		sim_json_path_key(sub, sizeof sub, path, "rate_per_node_h");
		if (want_number(c, rate, sub, 0, 0, &sf->rate_per_node_h) == 0 && sf->rate_per_node_h > 3600)
			err(c, sub, "expected number <= 3600, got %g", sf->rate_per_node_h);
	}
	if (times) {
		sim_json_path_key(sub, sizeof sub, path, "times_s");
		if (!cJSON_IsArray(times) || cJSON_GetArraySize(times) > SPOT_TIMES_MAX) {
			sim_json_describe(times, got, sizeof got);
			err(c, sub, "expected a list of at most %d times in s >= 0, got %s", SPOT_TIMES_MAX, got);
		} else {
			size_t i = 0;
			for (const cJSON *t = times->child; t; t = t->next, i++) {
				sim_time_t ns;
				sim_json_path_idx(item, sizeof item, sub, i);
				if (want_time(c, t, item, &ns) == 0 && sim_spot_add_time(spot, flavor, ns))
					c->nomem = 1;
			}
		}
	}
	sim_json_path_key(sub, sizeof sub, path, "notice_s");
	if (get(sp, "notice_s"))
		want_time(c, get(sp, "notice_s"), sub, &sf->notice_ns);
	sim_json_path_key(sub, sizeof sub, path, "outage_s");
	if (get(sp, "outage_s"))
		want_time(c, get(sp, "outage_s"), sub, &sf->outage_ns);
}

static void check_flavor(struct chk *c, const cJSON *fl, const char *path, const struct sim_resources *res,
			 struct sim_flavor_spec *specs, size_t idx, struct sim_capacity *cap,
			 struct sim_autoscale *as, struct sim_spot *spot, struct sim_flex *flex)
{
	struct sim_flavor_spec *f = &specs[idx];
	char sub[PATH_MAX_], got[96];
	const char *s;
	double v;

	if (!cJSON_IsObject(fl)) {
		sim_json_describe(fl, got, sizeof got);
		err(c, path, "expected flavor object {\"name\", \"nodes\", \"node\", ...}, got %s", got);
		return;
	}
	check_keys(c, fl, path, flavor_keys);

	sim_json_path_key(sub, sizeof sub, path, "name");
	s = want_name(c, get(fl, "name"), sub, 1, NAME_FILE, SIM_NAME_MAX);
	if (s) {
		for (size_t j = 0; j < idx; j++)
			if (strcmp(specs[j].name, s) == 0) {
				err(c, sub,
				    "expected a unique flavor name, got \"%s\" again (also "
				    "$.cluster.flavors[%zu].name)",
				    s, j);
				break;
			}
		snprintf(f->name, sizeof f->name, "%s", s);
	}

	sim_json_path_key(sub, sizeof sub, path, "nodes");
	if (!get(fl, "nodes"))
		err(c, sub, "expected integer >= 0 (required), got nothing");
	else if (want_int(c, get(fl, "nodes"), sub, 0, (double)CLUSTER_NODES_MAX, &v) == 0)
		f->nodes = (uint32_t)v;

	sim_json_path_key(sub, sizeof sub, path, "node");
	if (!get(fl, "node"))
		err(c, sub, "expected object {\"gpu\": N, ...} (required), got nothing");
	else
		check_node(c, get(fl, "node"), sub, res, f);

	f->speed = 1.0;
	sim_json_path_key(sub, sizeof sub, path, "speed");
	if (get(fl, "speed"))
		if (want_number(c, get(fl, "speed"), sub, 0, 1, &f->speed) == 0 &&
		    (f->speed < SPEED_MIN || f->speed > SPEED_MAX)) {
			sim_json_describe(get(fl, "speed"), got, sizeof got);
			err(c, sub, "expected number in [%g, %g], got %s", SPEED_MIN, SPEED_MAX, got);
		}

	f->price_per_node_hour = 0;
	sim_json_path_key(sub, sizeof sub, path, "price_per_node_hour");
	if (get(fl, "price_per_node_hour"))
		want_number(c, get(fl, "price_per_node_hour"), sub, 0, 0, &f->price_per_node_hour);

	if (get(fl, "stockout")) {
		sim_json_path_key(sub, sizeof sub, path, "stockout");
		check_stockout(c, get(fl, "stockout"), sub, f, &cap->stock[idx]);
	}
	if (get(fl, "reservations")) {
		sim_json_path_key(sub, sizeof sub, path, "reservations");
		check_reservations(c, get(fl, "reservations"), sub, (int)idx, cap);
	}
	if (get(fl, "training_plan"))
		check_training_plan(c, fl, path, f, (int)idx, cap);
	if (get(fl, "autoscale")) {
		sim_json_path_key(sub, sizeof sub, path, "autoscale");
		check_autoscale(c, get(fl, "autoscale"), sub, f, res, &as->fl[idx]);
		if (get(fl, "stockout") || get(fl, "reservations"))
			err(c, sub, "expected a flavor without stockout or reservations (the autoscaler sets its "
			    "nodes), got %s", get(fl, "stockout") ? "a stockout model" : "reservations");
	}
	if (get(fl, "spot")) {
		sim_json_path_key(sub, sizeof sub, path, "spot");
		check_spot(c, get(fl, "spot"), sub, (int)idx, f, spot);
		if (get(fl, "stockout") || get(fl, "reservations") || get(fl, "autoscale"))
			err(c, sub, "expected a flavor without stockout, reservations or autoscale (spot "
			    "interruptions set its nodes), got %s",
			    get(fl, "stockout") ? "a stockout model" : get(fl, "reservations") ? "reservations" : "autoscale");
	}
	if (get(fl, "flex")) {
		sim_json_path_key(sub, sizeof sub, path, "flex");
		check_flex(c, get(fl, "flex"), sub, &flex->fl[idx]);
		const char *other = get(fl, "stockout") ? "a stockout model" : get(fl, "reservations") ? "reservations" :
				    get(fl, "autoscale") ? "autoscale" : get(fl, "spot") ? "spot" : NULL;
		if (other)
			err(c, sub, "expected a flavor without stockout, reservations, autoscale or spot (its "
			    "requests set its nodes), got %s", other);
	}

	/* Totals must stay far from int64 overflow when the cluster sums them. */
	for (int r = 0; r < res->n; r++)
		if ((double)f->nodes * (double)f->node_cap[r] > 1e17) {
			err(c, path, "expected nodes x node.%s at most 1e14 units, got %.3g", res->names[r],
			    (double)f->nodes * (double)f->node_cap[r] / (double)SIM_MILLI);
			break;
		}
}

static void check_cluster(struct chk *c, const char *cfg_path, const cJSON *cl, struct exp_variant *v)
{
	const cJSON *rs, *fls;
	char path[PATH_MAX_], got[96];
	size_t i;

	sim_resources_init(&v->res);
	if (!cl) {
		err(c, "$.cluster", "expected object {\"flavors\": [...]} (required), got nothing");
		return;
	}
	if (!cJSON_IsObject(cl)) {
		sim_json_describe(cl, got, sizeof got);
		err(c, "$.cluster", "expected object {\"flavors\": [...]}, got %s", got);
		return;
	}
	check_keys(c, cl, "$.cluster", cluster_keys);

	rs = get(cl, "resources");
	if (rs && !cJSON_IsArray(rs)) {
		sim_json_describe(rs, got, sizeof got);
		err(c, "$.cluster.resources", "expected a list of resource names, got %s", got);
	} else if (rs) {
		i = 0;
		for (const cJSON *e = rs->child; e; e = e->next, i++) {
			const char *s;
			sim_json_path_idx(path, sizeof path, "$.cluster.resources", i);
			s = want_name(c, e, path, 1, NAME_RES, SIM_NAME_MAX);
			if (!s)
				continue;
			if (sim_resources_find(&v->res, s) >= 0) {
				err(c, path, "expected a resource name not declared yet, got \"%s\"%s", s,
				    strcmp(s, "gpu") == 0 ? " (gpu is always declared)" : " again");
				continue;
			}
			if (sim_resources_add(&v->res, s) < 0) {
				err(c, path, "expected at most %d resources besides gpu, got more",
				    SIM_MAX_RES - 1);
				break;
			}
		}
	}

	fls = get(cl, "flavors");
	if (!cJSON_IsArray(fls) || cJSON_GetArraySize(fls) == 0) {
		sim_json_describe(fls, got, sizeof got);
		err(c, "$.cluster.flavors", "expected a non-empty list of flavors%s, got %s%s",
		    fls ? "" : " (required)", got, cJSON_IsArray(fls) ? " (empty)" : "");
		return;
	}
	v->n_flavors = (size_t)cJSON_GetArraySize(fls);
	v->flavors = calloc(v->n_flavors, sizeof *v->flavors);
	v->capacity = sim_capacity_create(v->n_flavors);
	v->autoscale = sim_autoscale_create(v->n_flavors);
	v->spot = sim_spot_create(v->n_flavors);
	v->flex = sim_flex_create(v->n_flavors);
	if (!v->flavors || !v->capacity || !v->autoscale || !v->spot || !v->flex) {
		v->n_flavors = 0;
		c->nomem = 1;
		return;
	}
	i = 0;
	for (const cJSON *e = fls->child; e; e = e->next, i++) {
		sim_json_path_idx(path, sizeof path, "$.cluster.flavors", i);
		check_flavor(c, e, path, &v->res, v->flavors, i, v->capacity, v->autoscale, v->spot, v->flex);
	}
	if (get(cl, "capacity_events"))
		read_capacity_events(c, cfg_path, get(cl, "capacity_events"), v);
	i = 0;
	for (const cJSON *e = fls->child; e; e = e->next, i++) {
		const cJSON *fx = cJSON_IsObject(e) ? get(e, "flex") : NULL;
		const cJSON *ct = cJSON_IsObject(fx) ? get(fx, "capacity_trace") : NULL;
		if (ct && sim_flex_on(v->flex, (int)i)) {
			char fp[PATH_MAX_], tp[PATH_MAX_];
			sim_json_path_idx(path, sizeof path, "$.cluster.flavors", i);
			sim_json_path_key(fp, sizeof fp, path, "flex");
			sim_json_path_key(tp, sizeof tp, fp, "capacity_trace");
			read_flex_trace(c, cfg_path, ct, tp, v->flex, (int)i);
		}
	}
	sim_flex_finalize(v->flex);
	finish_capacity(c, v);
	finish_autoscale(c, v);
}

static void check_policy(struct chk *c, const cJSON *p, enum sim_policy_family fam, struct exp_variant *v)
{
	char path[PATH_MAX_], sub[PATH_MAX_], got[96];
	const char *name;

	snprintf(v->policy_path[fam], SIM_NAME_MAX, "$.policies.%s", family_key[fam]);
	snprintf(v->policy[fam], SIM_NAME_MAX, "%s", family_default[fam]);
	v->policy_params[fam] = NULL;
	if (!p)
		return;
	snprintf(path, sizeof path, "$.policies.%s", family_key[fam]);
	if (cJSON_IsObject(p)) {
		/* The object is the policy's params; its init ignores "name". */
		sim_json_path_key(sub, sizeof sub, path, "name");
		name = want_name(c, get(p, "name"), sub, 1, NAME_POLICY, SIM_NAME_MAX);
		v->policy_params[fam] = p;
	} else if (cJSON_IsString(p)) {
		name = want_name(c, p, path, 1, NAME_POLICY, SIM_NAME_MAX);
	} else {
		sim_json_describe(p, got, sizeof got);
		err(c, path, "expected a policy name or an object {\"name\": ..., params}, got %s", got);
		return;
	}
	if (name)
		snprintf(v->policy[fam], SIM_NAME_MAX, "%s", name);
}

static void check_policies(struct chk *c, const cJSON *pol, struct exp_variant *v)
{
	const cJSON *pl;
	char got[96];

	v->placement = SIM_PLACE_BEST_FIT;
	if (pol && !cJSON_IsObject(pol)) {
		sim_json_describe(pol, got, sizeof got);
		err(c, "$.policies", "expected object, got %s", got);
		pol = NULL;
	}
	if (pol)
		check_keys(c, pol, "$.policies", policies_keys);
	for (int f = 0; f < SIM_FAM_COUNT_; f++)
		check_policy(c, pol ? get(pol, family_key[f]) : NULL, (enum sim_policy_family)f, v);
	pl = pol ? get(pol, "placement") : NULL;
	if (pl) {
		int p = cJSON_IsString(pl) ? sim_placement_from_name(pl->valuestring) : -1;
		if (p < 0) {
			sim_json_describe(pl, got, sizeof got);
			err(c, "$.policies.placement",
			    "expected \"best_fit\", \"first_fit\" or \"spread\", got %s", got);
		} else {
			v->placement = (enum sim_placement)p;
		}
	}
}

/* One cost of $.jobs.checkpoint (of its memory tier: memory = 1), in s, into ns. */
static void check_ckpt_cost_at(struct chk *c, const cJSON *ck, int memory, const char *key, sim_time_t *out)
{
	char path[64], got[96];
	const cJSON *x = get(ck, key);
	*out = 0;
	if (!x)
		return;
	snprintf(path, sizeof path, "$.jobs.checkpoint.%s%s", memory ? "memory." : "", key);
	double s = 0;
	if (want_number(c, x, path, 0, 0, &s))
		return;
	if (s > CKPT_COST_MAX_S) {
		sim_json_describe(x, got, sizeof got);
		err(c, path, "expected number <= 3.15e7 (a year), got %s", got);
		return;
	}
	*out = (sim_time_t)llround(s * 1e9);
}

static void check_ckpt_cost(struct chk *c, const cJSON *ck, const char *key, sim_time_t *out)
{
	check_ckpt_cost_at(c, ck, 0, key, out);
}

/* $.jobs.checkpoint.memory: the memory tier (sim/ckpt.h). */
static void check_ckpt_memory(struct chk *c, const cJSON *m, struct sim_ckpt_policy *p)
{
	static const char *const path = "$.jobs.checkpoint.memory";
	char got[96];
	if (!cJSON_IsObject(m)) {
		sim_json_describe(m, got, sizeof got);
		err(c, path, "expected object {\"write_s\", \"restore_s\", \"replicas\"}, got %s", got);
		return;
	}
	check_keys(c, m, path, ckpt_memory_keys);
	p->memory = 1;
	check_ckpt_cost_at(c, m, 1, "write_s", &p->mem_write_ns);
	check_ckpt_cost_at(c, m, 1, "restore_s", &p->mem_restore_ns);
	const cJSON *r = get(m, "replicas");
	double x;
	if (r && want_int(c, r, "$.jobs.checkpoint.memory.replicas", 0, 1e6, &x) == 0)
		p->replicas = (uint32_t)x;
}

/* The tiers and interval policy of $.jobs.checkpoint (docs/faults.md, "Checkpoint
 * tiers"): a memory tier needs persistent_every (every n-th checkpoint persistent),
 * and persistent_every needs a memory tier. */
static void check_ckpt_tiers(struct chk *c, const cJSON *ck, struct sim_ckpt_policy *p)
{
	char got[96];
	memset(p, 0, sizeof *p);
	const cJSON *m = get(ck, "memory"), *n = get(ck, "persistent_every");
	if (m)
		check_ckpt_memory(c, m, p);
	double x;
	if (n && want_int(c, n, "$.jobs.checkpoint.persistent_every", 1, 1e9, &x) == 0)
		p->persist_every = (uint32_t)x;
	if (m && !n)
		err(c, "$.jobs.checkpoint", "expected \"persistent_every\" (an integer >= 1: every n-th "
		    "checkpoint is persistent) beside \"memory\"");
	if (n && !m)
		err(c, "$.jobs.checkpoint.persistent_every", "expected a \"memory\" tier beside it (without one "
		    "every checkpoint is persistent)");
	const cJSON *iv = get(ck, "interval");
	if (iv) {
		static const char *const names[] = { "fixed", "young", "daly" };
		int found = -1;
		for (int i = 0; i < 3 && cJSON_IsString(iv); i++)
			if (!strcmp(iv->valuestring, names[i]))
				found = i;
		if (found < 0) {
			sim_json_describe(iv, got, sizeof got);
			err(c, "$.jobs.checkpoint.interval", "expected \"fixed\", \"young\" or \"daly\", got %s", got);
		} else {
			p->interval = (uint8_t)found;
		}
	}
	const cJSON *mt = get(ck, "mtbf_h");
	if (mt && want_number(c, mt, "$.jobs.checkpoint.mtbf_h", 0, 1, &x) == 0) {
		if (x > FAULT_H_MAX_CK) {
			sim_json_describe(mt, got, sizeof got);
			err(c, "$.jobs.checkpoint.mtbf_h", "expected number <= 876000 (a century), got %s", got);
		} else {
			p->mtbf_s = x * 3600.0;
		}
	}
}

/* $.jobs: the job model's settings that do not come from the trace. The cost of a
 * stop (checkpoint overhead, restore) is paid whatever stopped the job. */
static void check_jobs(struct chk *c, const cJSON *jobs, struct exp_variant *v)
{
	char got[96];
	memset(&v->cost, 0, sizeof v->cost);
	if (!jobs)
		return;
	if (!cJSON_IsObject(jobs)) {
		sim_json_describe(jobs, got, sizeof got);
		err(c, "$.jobs", "expected object, got %s", got);
		return;
	}
	check_keys(c, jobs, "$.jobs", jobs_keys);
	const cJSON *ck = get(jobs, "checkpoint");
	if (!ck)
		return;
	if (!cJSON_IsObject(ck)) {
		sim_json_describe(ck, got, sizeof got);
		err(c, "$.jobs.checkpoint", "expected object, got %s", got);
		return;
	}
	check_keys(c, ck, "$.jobs.checkpoint", checkpoint_keys);
	check_ckpt_cost(c, ck, "overhead_s", &v->cost.ckpt_overhead_ns);
	check_ckpt_cost(c, ck, "restore_s", &v->cost.restore_ns);
	check_ckpt_tiers(c, ck, &v->cost.tiers);
}

/* ---- faults (sim/faults.h, docs/faults.md) ---- */

static const char *const failures_keys[] = { "distribution", "mtbf_h", "shape", "scale_h", "per_gpu",
					     "repair", "spares", "replacement_s", "flavors", NULL };
static const char *const node_faults_keys[] = { "distribution", "mtbf_h", "shape", "scale_h", "per_gpu",
						"repair", "spares", "replacement_s", NULL };
static const char *const repair_keys[] = { "distribution", "mean_h", NULL };
static const char *const job_faults_keys[] = { "distribution",	   "crash_per_h",	"hang_per_h",
					       "hang_detection",   "hang_timeout_s",	"max_retries",
					       "loss_spike_per_h", "rollback",		"inplace_restarts",
					       "inplace_restart_s", "max_full_restarts", "requeue_place",
					       NULL };
/* Longest mean or delay of a fault law, h: a century; rates up to 3600 per hour. */
#define FAULT_H_MAX 876000.0
#define FAULT_RATE_MAX 3600.0
/* hang_timeout_s when not given: 30 min without progress. */
#define FAULT_HANG_TIMEOUT_DEFAULT_S 1800

/* A law name among names[] (NULL-ended, values laws[]); absent leaves *out. */
static void want_law(struct chk *c, const cJSON *obj, const char *path, const char *const *names,
		     const uint8_t *laws, const char *expect, uint8_t *out)
{
	char sub[PATH_MAX_], got[96];
	const cJSON *d = get(obj, "distribution");
	if (!d)
		return;
	sim_json_path_key(sub, sizeof sub, path, "distribution");
	for (size_t i = 0; names[i]; i++)
		if (cJSON_IsString(d) && strcmp(d->valuestring, names[i]) == 0) {
			*out = laws[i];
			return;
		}
	sim_json_describe(d, got, sizeof got);
	err(c, sub, "expected %s, got %s", expect, got);
}

/* A number of key in [lo, hi] (strict: > lo), if present. Returns 1 when read. */
static int want_fault_num(struct chk *c, const cJSON *obj, const char *path, const char *key, double lo,
			  int strict, double hi, double *out)
{
	char sub[PATH_MAX_], got[96];
	const cJSON *x = get(obj, key);
	if (!x)
		return 0;
	sim_json_path_key(sub, sizeof sub, path, key);
	double v;
	if (want_number(c, x, sub, lo, strict, &v))
		return 0;
	if (v > hi) {
		sim_json_describe(x, got, sizeof got);
		err(c, sub, "expected number <= %g, got %s", hi, got);
		return 0;
	}
	*out = v;
	return 1;
}

static int want_fault_bool(struct chk *c, const cJSON *obj, const char *path, const char *key, uint8_t *out)
{
	char sub[PATH_MAX_], got[96];
	const cJSON *x = get(obj, key);
	if (!x)
		return 0;
	if (!cJSON_IsBool(x)) {
		sim_json_path_key(sub, sizeof sub, path, key);
		sim_json_describe(x, got, sizeof got);
		err(c, sub, "expected true or false, got %s", got);
		return 0;
	}
	*out = cJSON_IsTrue(x) ? 1 : 0;
	return 1;
}

static void check_repair(struct chk *c, const cJSON *rp, const char *path, struct sim_node_faults *nf)
{
	static const char *const names[] = { "fixed", "exponential", NULL };
	static const uint8_t laws[] = { SIM_FLAW_FIXED, SIM_FLAW_EXPONENTIAL };
	char got[96];
	if (!cJSON_IsObject(rp)) {
		sim_json_describe(rp, got, sizeof got);
		err(c, path, "expected object {\"distribution\", \"mean_h\"}, got %s", got);
		return;
	}
	check_keys(c, rp, path, repair_keys);
	want_law(c, rp, path, names, laws, "\"fixed\" or \"exponential\"", &nf->repair_law);
	double h;
	if (want_fault_num(c, rp, path, "mean_h", 0, 0, FAULT_H_MAX, &h))
		nf->repair_s = h * 3600.0;
}

/* One node-fault object onto *nf: the keys present override (a flavor's object
 * over $.faults.nodes). */
static void read_node_faults(struct chk *c, const cJSON *o, const char *path, struct sim_node_faults *nf,
			     const char *const *keys)
{
	static const char *const names[] = { "exponential", "weibull", "fixed", "none", NULL };
	static const uint8_t laws[] = { SIM_FLAW_EXPONENTIAL, SIM_FLAW_WEIBULL, SIM_FLAW_FIXED, SIM_FLAW_NONE };
	char sub[PATH_MAX_], got[96];
	if (!cJSON_IsObject(o)) {
		sim_json_describe(o, got, sizeof got);
		err(c, path, "expected object {\"distribution\", \"mtbf_h\", ...}, got %s", got);
		return;
	}
	check_keys(c, o, path, keys);
	if (get(o, "mtbf_h") || get(o, "scale_h"))
		nf->law = get(o, "scale_h") ? SIM_FLAW_WEIBULL : SIM_FLAW_EXPONENTIAL;
	want_law(c, o, path, names, laws, "\"exponential\", \"weibull\", \"fixed\" or \"none\"", &nf->law);
	double x;
	if (want_fault_num(c, o, path, "mtbf_h", 0, 1, FAULT_H_MAX, &x))
		nf->mtbf_s = x * 3600.0;
	if (want_fault_num(c, o, path, "scale_h", 0, 1, FAULT_H_MAX, &x))
		nf->scale_s = x * 3600.0;
	if (want_fault_num(c, o, path, "shape", 0, 1, 1000, &x))
		nf->shape = x;
	want_fault_bool(c, o, path, "per_gpu", &nf->per_gpu);
	if (want_fault_num(c, o, path, "replacement_s", 0, 0, FAULT_H_MAX * 3600.0, &x))
		nf->replace_s = x;
	if (get(o, "spares")) {
		sim_json_path_key(sub, sizeof sub, path, "spares");
		if (want_int(c, get(o, "spares"), sub, 0, 1e9, &x) == 0)
			nf->spares = (uint32_t)x;
	}
	if (get(o, "repair")) {
		sim_json_path_key(sub, sizeof sub, path, "repair");
		check_repair(c, get(o, "repair"), sub, nf);
	}
}

/* What a law needs, once merged (path: where the flavor's settings were given). */
static void check_node_law(struct chk *c, const struct sim_node_faults *nf, const char *path)
{
	if ((nf->law == SIM_FLAW_EXPONENTIAL || nf->law == SIM_FLAW_FIXED) && !(nf->mtbf_s > 0))
		err(c, path, "expected \"mtbf_h\" > 0 for distribution %s, got nothing",
		    nf->law == SIM_FLAW_FIXED ? "fixed" : "exponential");
	if (nf->law == SIM_FLAW_WEIBULL && (!(nf->shape > 0) || !(nf->scale_s > 0)))
		err(c, path, "expected \"shape\" > 0 and \"scale_h\" > 0 for distribution weibull, got %s",
		    nf->shape > 0 ? "no scale_h" : "no shape");
}

/* A flavor whose capacity the capacity plan moves cannot also fail: both would set
 * its nodes (docs/faults.md, "Limits"). */
static int capacity_moves(const struct sim_capacity *cap, int f)
{
	if (sim_capacity_is_reservation(cap, f) || cap->stock[f].law != SIM_STOCK_NONE)
		return 1;
	for (size_t i = 0; i < cap->n_changes; i++)
		if (cap->changes[i].flavor == f)
			return 1;
	return 0;
}

static int refuse_moving_flavor(struct chk *c, const struct exp_variant *v, int f, const char *where);

static void check_flavor_faults(struct chk *c, const cJSON *fo, struct exp_variant *v,
				const struct sim_node_faults *tmpl, const char *tmpl_path)
{
	char path[PATH_MAX_], got[96];
	if (fo && !cJSON_IsObject(fo)) {
		sim_json_describe(fo, got, sizeof got);
		err(c, "$.cluster.failures.flavors", "expected object {FLAVOR: {...}}, got %s", got);
		fo = NULL;
	}
	for (const cJSON *it = fo ? fo->child : NULL; it; it = it->next) {
		int found = 0;
		for (size_t f = 0; f < v->n_flavors; f++)
			found |= strcmp(v->flavors[f].name, it->string) == 0;
		if (!found) {
			sim_json_path_key(path, sizeof path, "$.cluster.failures.flavors", it->string);
			err(c, path, "expected a flavor of $.cluster.flavors, got '%s'", it->string);
		}
	}
	for (size_t f = 0; f < v->n_flavors; f++) {
		struct sim_node_faults *nf = &v->faults->node[f];
		*nf = *tmpl;
		const char *where = tmpl_path;
		const cJSON *own = fo ? get(fo, v->flavors[f].name) : NULL;
		if (own) {
			sim_json_path_key(path, sizeof path, "$.cluster.failures.flavors", v->flavors[f].name);
			read_node_faults(c, own, path, nf, node_faults_keys);
			where = path;
		}
		if (nf->law == SIM_FLAW_NONE)
			continue;
		check_node_law(c, nf, where);
		if (nf->spares > v->flavors[f].nodes)
			err(c, where, "expected spares <= %u (the nodes of flavor %s), got %u", v->flavors[f].nodes,
			    v->flavors[f].name, nf->spares);
		refuse_moving_flavor(c, v, (int)f, where);
	}
}

/* The restart rules of $.jobs.faults (docs/faults.md, "Retries", "Place in the
 * queue"): in-place restarts, full restarts, and where a full restart queues. */
static void check_restart_rules(struct chk *c, const cJSON *o, const char *path, struct sim_job_faults *jf)
{
	char sub[PATH_MAX_], got[96];
	double x;
	if (get(o, "inplace_restarts")) {
		sim_json_path_key(sub, sizeof sub, path, "inplace_restarts");
		if (want_int(c, get(o, "inplace_restarts"), sub, 0, 1e9, &x) == 0)
			jf->inplace_restarts = (uint32_t)x;
	}
	if (want_fault_num(c, o, path, "inplace_restart_s", 0, 0, FAULT_H_MAX * 3600.0, &x))
		jf->inplace_restart_ns = (sim_time_t)llround(x * (double)SIM_NS_PER_S);
	const cJSON *mf = get(o, "max_full_restarts");
	if (mf && !cJSON_IsNull(mf)) {
		sim_json_path_key(sub, sizeof sub, path, "max_full_restarts");
		if (want_int(c, mf, sub, 0, 1e9, &x) == 0)
			jf->max_full_restarts = (int64_t)x;
	}
	const cJSON *rp = get(o, "requeue_place");
	if (rp) {
		sim_json_path_key(sub, sizeof sub, path, "requeue_place");
		if (cJSON_IsString(rp) && (strcmp(rp->valuestring, "keep") == 0 || strcmp(rp->valuestring, "back") == 0)) {
			jf->requeue_back = strcmp(rp->valuestring, "back") == 0;
		} else {
			sim_json_describe(rp, got, sizeof got);
			err(c, sub, "expected \"keep\" (ordered by submit time) or \"back\" (by requeue time), got %s", got);
		}
	}
}

static void check_job_faults(struct chk *c, const cJSON *o, struct sim_job_faults *jf)
{
	static const char *const names[] = { "exponential", "fixed", NULL };
	static const uint8_t laws[] = { SIM_FLAW_EXPONENTIAL, SIM_FLAW_FIXED };
	static const char *const path = "$.jobs.faults";
	char sub[PATH_MAX_], got[96];
	if (!cJSON_IsObject(o)) {
		sim_json_describe(o, got, sizeof got);
		err(c, path, "expected object {\"crash_per_h\", \"hang_per_h\", ...}, got %s", got);
		return;
	}
	check_keys(c, o, path, job_faults_keys);
	want_law(c, o, path, names, laws, "\"exponential\" or \"fixed\"", &jf->law);
	want_fault_num(c, o, path, "crash_per_h", 0, 0, FAULT_RATE_MAX, &jf->crash_per_h);
	want_fault_num(c, o, path, "hang_per_h", 0, 0, FAULT_RATE_MAX, &jf->hang_per_h);
	want_fault_num(c, o, path, "loss_spike_per_h", 0, 0, FAULT_RATE_MAX, &jf->spike_per_h);
	const cJSON *rb = get(o, "rollback");
	if (rb) {
		double r;
		sim_json_path_key(sub, sizeof sub, path, "rollback");
		if (want_int(c, rb, sub, 1, SIM_CKPT_RING, &r) == 0)
			jf->rollback = (uint32_t)r;
	}
	want_fault_bool(c, o, path, "hang_detection", &jf->hang_detect);
	double x;
	if (want_fault_num(c, o, path, "hang_timeout_s", 0, 1, FAULT_H_MAX * 3600.0, &x))
		jf->hang_timeout_ns = (sim_time_t)llround(x * (double)SIM_NS_PER_S);
	const cJSON *mr = get(o, "max_retries");
	if (mr && !cJSON_IsNull(mr)) {
		sim_json_path_key(sub, sizeof sub, path, "max_retries");
		if (want_int(c, mr, sub, 0, 1e9, &x) == 0)
			jf->max_retries = (int64_t)x;
	}
	check_restart_rules(c, o, path, jf);
}

/* A flavor whose nodes something else sets cannot fail (docs/faults.md, "Limits");
 * where: the config key or file row that makes it fail. Returns 1 when refused. */
static int refuse_moving_flavor(struct chk *c, const struct exp_variant *v, int f, const char *where)
{
	const char *name = v->flavors[f].name;
	if (sim_spot_on(v->spot, f))
		err(c, where, "expected a flavor without spot (flavor %s is spot; its interruptions and "
		    "failures would both set its nodes)", name);
	else if (sim_autoscale_on(v->autoscale, f))
		err(c, where, "expected a flavor without autoscale (flavor %s has it; the autoscaler and "
		    "failures would both set its nodes)", name);
	else if (sim_flex_on(v->flex, f))
		err(c, where, "expected a flavor without flex (flavor %s has it; its requests and "
		    "failures would both set its nodes)", name);
	else if (capacity_moves(v->capacity, f))
		err(c, where, "expected a flavor without capacity events, stock-outs or reservations "
		    "(flavor %s has some; they and failures would both set its nodes)", name);
	else
		return 0;
	return 1;
}

/* $.cluster.fault_events: the incident log replayed instead of the draws
 * (sim/fault_events.h; docs/faults.md, "Replay of an incident log"). */
static void read_fault_events(struct chk *c, const char *cfg_path, const cJSON *fe, struct exp_variant *v)
{
	static const char *const where = "$.cluster.fault_events";
	char got[96];
	if (!cJSON_IsString(fe) || !fe->valuestring[0]) {
		sim_json_describe(fe, got, sizeof got);
		err(c, where, "expected the path of a CSV file (time_s,cause,flavor,node,job,repair_s), got %s", got);
		return;
	}
	char *full = sim_path_beside(cfg_path, fe->valuestring);
	const char **names = calloc(v->n_flavors ? v->n_flavors : 1, sizeof *names);
	uint32_t *nodes = calloc(v->n_flavors ? v->n_flavors : 1, sizeof *nodes);
	struct sim_diag rd;
	sim_diag_init(&rd, 20);
	if (!full || !names || !nodes) {
		c->nomem = 1;
		goto out;
	}
	for (size_t f = 0; f < v->n_flavors; f++) {
		names[f] = v->flavors[f].name;
		nodes[f] = v->flavors[f].nodes;
	}
	int rc = sim_fault_events_read(full, names, nodes, v->n_flavors, &v->faults->events, &rd);
	if (rc == -SIM_ENOENT || rc == -SIM_EIO)
		err(c, where, "cannot read %s: %s", full, strerror(errno));
	else if (rc == -SIM_ENOMEM)
		c->nomem = 1;
	for (size_t i = 0; i < rd.count && i < rd.limit && rd.lines; i++)
		err(c, where, "%s", rd.lines[i]);
	const struct sim_fault_events *ev = v->faults->events;
	uint8_t *seen = ev ? calloc(v->n_flavors ? v->n_flavors : 1, 1) : NULL;
	for (size_t i = 0; seen && i < ev->n; i++) {
		const struct sim_fault_event *fv = &ev->v[i];
		if (fv->kind != SIM_FEV_NODE_FAIL || seen[fv->flavor])
			continue;
		seen[fv->flavor] = 1;
		char at[PATH_MAX_ + 64];
		snprintf(at, sizeof at, "%s: %s:%u", where, full, fv->line);
		refuse_moving_flavor(c, v, fv->flavor, at);
	}
	if (ev && !seen)
		c->nomem = 1;
	free(seen);
out:
	sim_diag_fini(&rd);
	free(nodes);
	free(names);
	free(full);
}

/* Faults: node failures ($.cluster.failures: defaults for every flavor, and per
 * flavor in its "flavors"), job faults ($.jobs.faults) and the replayed incident
 * log ($.cluster.fault_events). */
static void check_faults(struct chk *c, const char *cfg_path, const cJSON *cl, const cJSON *jfa,
			 struct exp_variant *v)
{
	char got[96];
	const cJSON *fa = cJSON_IsObject(cl) ? get(cl, "failures") : NULL;
	v->faults = sim_faults_create(v->n_flavors);
	if (!v->faults) {
		err(c, "$.cluster.failures", "out of memory");
		return;
	}
	v->faults->job.hang_timeout_ns = (sim_time_t)FAULT_HANG_TIMEOUT_DEFAULT_S * SIM_NS_PER_S;
	if (jfa)
		check_job_faults(c, jfa, &v->faults->job);
	if (cJSON_IsObject(cl) && get(cl, "fault_events") && v->flavors && v->capacity)
		read_fault_events(c, cfg_path, get(cl, "fault_events"), v);
	if (!fa)
		return;
	if (!cJSON_IsObject(fa)) {
		sim_json_describe(fa, got, sizeof got);
		err(c, "$.cluster.failures", "expected object {\"distribution\", \"mtbf_h\", ...}, got %s", got);
		return;
	}
	struct sim_node_faults tmpl = { .repair_law = SIM_FLAW_FIXED };
	read_node_faults(c, fa, "$.cluster.failures", &tmpl, failures_keys);
	if (v->flavors && v->capacity)
		check_flavor_faults(c, get(fa, "flavors"), v, &tmpl, "$.cluster.failures");
}

/* ---- fail-slow nodes ($.cluster.fail_slow, docs/faults.md "Fail-slow nodes") ---- */

static const char *const slow_keys[] = { "distribution", "mtbs_h", "factor", "period", "detection", "detect_s",
					 "flavors", NULL };
static const char *const slow_flavor_keys[] = { "distribution", "mtbs_h", "factor", "period", "detection",
						"detect_s", NULL };
static const char *const slow_period_keys[] = { "distribution", "mean_s", "min_s", "max_s", NULL };
static const char *const slow_factor_keys[] = { "min", "max", NULL };

/* A speed factor in (0, 1]: a number, or {"min", "max"} (uniform between). */
static void read_slow_factor(struct chk *c, const cJSON *fx, const char *path, struct sim_node_slow *ns)
{
	char sub[PATH_MAX_], got[96];
	double lo, hi;
	if (cJSON_IsObject(fx)) {
		check_keys(c, fx, path, slow_factor_keys);
		if (!get(fx, "min") || !get(fx, "max")) {
			err(c, path, "expected both \"min\" and \"max\" (0 < min <= max <= 1)");
			return;
		}
		sim_json_path_key(sub, sizeof sub, path, "min");
		if (want_fault_num(c, fx, path, "min", 0, 1, 1, &lo) && want_fault_num(c, fx, path, "max", 0, 1, 1, &hi)) {
			if (lo > hi) {
				err(c, sub, "expected min <= max, got %g > %g", lo, hi);
				return;
			}
			ns->factor_lo = lo;
			ns->factor_hi = hi;
		}
		return;
	}
	if (!cJSON_IsNumber(fx)) {
		sim_json_describe(fx, got, sizeof got);
		err(c, path, "expected a number in (0, 1] or {\"min\", \"max\"}, got %s", got);
		return;
	}
	if (!(fx->valuedouble > 0) || fx->valuedouble > 1) {
		sim_json_describe(fx, got, sizeof got);
		err(c, path, "expected a number > 0 and <= 1, got %s", got);
		return;
	}
	ns->factor_lo = ns->factor_hi = fx->valuedouble;
}

static void read_slow_period(struct chk *c, const cJSON *po, const char *path, struct sim_node_slow *ns)
{
	static const char *const names[] = { "log_uniform", "exponential", "fixed", NULL };
	static const uint8_t laws[] = { SIM_SPER_LOG_UNIFORM, SIM_SPER_EXPONENTIAL, SIM_SPER_FIXED };
	char got[96];
	if (!cJSON_IsObject(po)) {
		sim_json_describe(po, got, sizeof got);
		err(c, path, "expected object {\"distribution\", \"mean_s\" | \"min_s\", \"max_s\"}, got %s", got);
		return;
	}
	check_keys(c, po, path, slow_period_keys);
	if (get(po, "mean_s") && !get(po, "distribution"))
		ns->period_law = SIM_SPER_EXPONENTIAL;
	want_law(c, po, path, names, laws, "\"log_uniform\", \"exponential\" or \"fixed\"", &ns->period_law);
	want_fault_num(c, po, path, "mean_s", 0, 1, FAULT_H_MAX * 3600.0, &ns->period_s);
	want_fault_num(c, po, path, "min_s", 0, 1, FAULT_H_MAX * 3600.0, &ns->period_lo_s);
	want_fault_num(c, po, path, "max_s", 0, 1, FAULT_H_MAX * 3600.0, &ns->period_hi_s);
}

/* One fail-slow object onto *ns: the keys present override (a flavor's over the
 * defaults of $.cluster.fail_slow). */
static void read_node_slow(struct chk *c, const cJSON *o, const char *path, struct sim_node_slow *ns,
			   const char *const *keys)
{
	static const char *const names[] = { "exponential", "fixed", "none", NULL };
	static const uint8_t laws[] = { SIM_FLAW_EXPONENTIAL, SIM_FLAW_FIXED, SIM_FLAW_NONE };
	char sub[PATH_MAX_], got[96];
	if (!cJSON_IsObject(o)) {
		sim_json_describe(o, got, sizeof got);
		err(c, path, "expected object {\"mtbs_h\", \"factor\", \"period\", ...}, got %s", got);
		return;
	}
	check_keys(c, o, path, keys);
	if (get(o, "mtbs_h") && ns->law == SIM_FLAW_NONE)
		ns->law = SIM_FLAW_EXPONENTIAL;
	want_law(c, o, path, names, laws, "\"exponential\", \"fixed\" or \"none\"", &ns->law);
	double x;
	if (want_fault_num(c, o, path, "mtbs_h", 0, 1, FAULT_H_MAX, &x))
		ns->mtbs_s = x * 3600.0;
	if (get(o, "factor")) {
		sim_json_path_key(sub, sizeof sub, path, "factor");
		read_slow_factor(c, get(o, "factor"), sub, ns);
	}
	if (get(o, "period")) {
		sim_json_path_key(sub, sizeof sub, path, "period");
		read_slow_period(c, get(o, "period"), sub, ns);
	}
	want_fault_bool(c, o, path, "detection", &ns->detect);
	want_fault_num(c, o, path, "detect_s", 0, 0, FAULT_H_MAX * 3600.0, &ns->detect_s);
}

/* What a flavor's merged settings need (where: the object that gave them). */
static void check_node_slow(struct chk *c, const struct sim_node_slow *ns, struct exp_variant *v, size_t f,
			    const char *where)
{
	if (!(ns->mtbs_s > 0))
		err(c, where, "expected \"mtbs_h\" > 0 for flavor %s, got nothing", v->flavors[f].name);
	if (ns->period_law != SIM_SPER_LOG_UNIFORM && !(ns->period_s > 0))
		err(c, where, "expected \"period\".\"mean_s\" > 0 for an %s episode length, got nothing",
		    ns->period_law == SIM_SPER_FIXED ? "fixed" : "exponential");
	if (ns->period_law == SIM_SPER_LOG_UNIFORM && ns->period_lo_s > ns->period_hi_s)
		err(c, where, "expected \"period\" min_s <= max_s, got %g > %g", ns->period_lo_s, ns->period_hi_s);
	if (!ns->detect)
		return;
	/* A detection takes the node out of placement: no other source may set its nodes. */
	const char *other = v->faults->node[f].law != SIM_FLAW_NONE ? "node failures"
			    : sim_spot_on(v->spot, (int)f)		   ? "spot"
			    : sim_autoscale_on(v->autoscale, (int)f)	   ? "autoscale"
			    : capacity_moves(v->capacity, (int)f)	   ? "capacity events, stock-outs or reservations"
									   : NULL;
	if (other)
		err(c, where, "expected a flavor without %s for \"detection\": true (flavor %s has them; both would "
		    "set its nodes)", other, v->flavors[f].name);
}

static void check_fail_slow(struct chk *c, const cJSON *so, struct exp_variant *v)
{
	static const char *const root = "$.cluster.fail_slow", *const fl_root = "$.cluster.fail_slow.flavors";
	char path[PATH_MAX_], got[96];
	if (!so || !v->faults || !v->flavors || !v->capacity)
		return;
	/* Defaults: full speed, episodes log-uniform between 30 s and 10 h, no detection. */
	struct sim_node_slow tmpl = { .factor_lo = 1, .factor_hi = 1, .period_lo_s = 30, .period_hi_s = 36000 };
	read_node_slow(c, so, root, &tmpl, slow_keys);
	const cJSON *fo = cJSON_IsObject(so) ? get(so, "flavors") : NULL;
	if (fo && !cJSON_IsObject(fo)) {
		sim_json_describe(fo, got, sizeof got);
		err(c, fl_root, "expected object {FLAVOR: {...}}, got %s", got);
		fo = NULL;
	}
	for (const cJSON *it = fo ? fo->child : NULL; it; it = it->next) {
		int found = 0;
		for (size_t f = 0; f < v->n_flavors; f++)
			found |= strcmp(v->flavors[f].name, it->string) == 0;
		if (!found) {
			sim_json_path_key(path, sizeof path, fl_root, it->string);
			err(c, path, "expected a flavor of $.cluster.flavors, got '%s'", it->string);
		}
	}
	for (size_t f = 0; f < v->n_flavors; f++) {
		struct sim_node_slow *ns = &v->faults->slow[f];
		*ns = tmpl;
		const char *where = root;
		const cJSON *own = fo ? get(fo, v->flavors[f].name) : NULL;
		if (own) {
			sim_json_path_key(path, sizeof path, fl_root, v->flavors[f].name);
			read_node_slow(c, own, path, ns, slow_flavor_keys);
			where = path;
		}
		if (ns->law != SIM_FLAW_NONE)
			check_node_slow(c, ns, v, f, where);
	}
}

static void check_variant(struct chk *c, const char *cfg_path, struct exp_variant *v)
{
	check_cluster(c, cfg_path, get(v->tree, "cluster"), v);
	check_policies(c, get(v->tree, "policies"), v);
	check_jobs(c, get(v->tree, "jobs"), v);
	const cJSON *cl = get(v->tree, "cluster"), *jobs = get(v->tree, "jobs");
	check_faults(c, cfg_path, cl, cJSON_IsObject(jobs) ? get(jobs, "faults") : NULL, v);
	check_fail_slow(c, cJSON_IsObject(cl) ? get(cl, "fail_slow") : NULL, v);
}

/* ---- sweep ---------------------------------------------------------------- */

/* The sections a sweep or a plan may vary: what a variant resolves itself. */
static int sweepable_root(const char *key)
{
	return strcmp(key, "cluster") == 0 || strcmp(key, "policies") == 0 || strcmp(key, "jobs") == 0;
}

/* One component of a sweep path: a key, or an index when key is NULL. */
struct comp {
	char *key; /* owned */
	size_t idx;
};

struct sweep_key {
	const char *text;      /* the path as written (borrowed from the base tree) */
	char where[PATH_MAX_]; /* $.sweep["..."] */
	struct comp *comps;    /* owned */
	size_t n_comps;
	const cJSON *values; /* the list (borrowed from the base tree) */
	size_t n_values;
};

static void sweep_keys_free(struct sweep_key *sk, size_t n)
{
	for (size_t i = 0; sk && i < n; i++) {
		for (size_t j = 0; j < sk[i].n_comps; j++)
			free(sk[i].comps[j].key);
		free(sk[i].comps);
	}
	free(sk);
}

/* "cluster.flavors[0].nodes" (an optional leading "$." is allowed) -> components.
 * Returns 0, -1 on bad syntax, -2 on no memory. */
static int sweep_path_parse(const char *s, struct sweep_key *sk)
{
	size_t cap = 0;

	if (s[0] == '$' && s[1] == '.')
		s += 2;
	for (;;) {
		struct comp cp = { NULL, 0 };
		if (*s == '[') {
			char *end;
			if (s[1] < '0' || s[1] > '9')
				return -1;
			errno = 0;
			unsigned long long i = strtoull(s + 1, &end, 10);
			if (errno || *end != ']' || i > 1000000)
				return -1;
			cp.idx = (size_t)i;
			s = end + 1;
		} else {
			size_t n = strcspn(s, ".[]");
			if (n == 0)
				return -1;
			cp.key = malloc(n + 1);
			if (!cp.key)
				return -2;
			memcpy(cp.key, s, n);
			cp.key[n] = 0;
			s += n;
		}
		if (sk->n_comps == cap) {
			size_t ncap = cap ? 2 * cap : 4;
			struct comp *p = realloc(sk->comps, ncap * sizeof *p);
			if (!p) {
				free(cp.key);
				return -2;
			}
			sk->comps = p;
			cap = ncap;
		}
		sk->comps[sk->n_comps++] = cp;
		if (*s == 0)
			return 0;
		if (*s == '.')
			s++;
		else if (*s != '[')
			return -1;
	}
}

/* Follows comps[0..n) from root. On a miss returns NULL and says which step failed. */
static cJSON *sweep_follow(cJSON *root, const struct comp *comps, size_t n, char *why, size_t why_n)
{
	char at[PATH_MAX_], next[PATH_MAX_];
	cJSON *cur = root;

	snprintf(at, sizeof at, "$");
	for (size_t i = 0; i < n; i++) {
		cJSON *nx;
		if (comps[i].key) {
			nx = cJSON_IsObject(cur) ? cJSON_GetObjectItemCaseSensitive(cur, comps[i].key) : NULL;
			if (!nx) {
				snprintf(why, why_n,
					 cJSON_IsObject(cur) ? "no key \"%s\" in %s"
							     : "%s is not an object (looking for key \"%s\")",
					 cJSON_IsObject(cur) ? comps[i].key : at,
					 cJSON_IsObject(cur) ? at : comps[i].key);
				return NULL;
			}
			sim_json_path_key(next, sizeof next, at, comps[i].key);
		} else {
			nx = cJSON_IsArray(cur) ? cJSON_GetArrayItem(cur, (int)comps[i].idx) : NULL;
			if (!nx) {
				if (cJSON_IsArray(cur))
					snprintf(why, why_n, "no element [%zu] in %s, which has %d",
						 comps[i].idx, at, cJSON_GetArraySize(cur));
				else
					snprintf(why, why_n, "%s is not a list (looking for [%zu])", at,
						 comps[i].idx);
				return NULL;
			}
			sim_json_path_idx(next, sizeof next, at, comps[i].idx);
		}
		memcpy(at, next, sizeof at);
		cur = nx;
	}
	return cur;
}

static int comps_prefix(const struct sweep_key *a, const struct sweep_key *b)
{
	if (a->n_comps > b->n_comps)
		return 0;
	for (size_t i = 0; i < a->n_comps; i++) {
		const struct comp *x = &a->comps[i], *y = &b->comps[i];
		if (!x->key != !y->key)
			return 0;
		if (x->key ? strcmp(x->key, y->key) != 0 : x->idx != y->idx)
			return 0;
	}
	return 1;
}

/* Checks $.sweep and fills *out (n_out keys). Returns 0 if usable (maybe no keys). */
static int sweep_parse(struct chk *c, cJSON *root, struct sweep_key **out, size_t *n_out, size_t *n_variants)
{
	const cJSON *sw = get(root, "sweep");
	struct sweep_key *sk;
	size_t n, i = 0, errs = c->n;
	double prod = 1;
	char got[96], why[PATH_MAX_ + 64];

	*out = NULL;
	*n_out = 0;
	*n_variants = 1;
	if (!sw)
		return 0;
	if (!cJSON_IsObject(sw)) {
		sim_json_describe(sw, got, sizeof got);
		err(c, "$.sweep", "expected object {\"path\": [values...]}, got %s", got);
		return -1;
	}
	n = (size_t)cJSON_GetArraySize(sw);
	if (n == 0)
		return 0;
	sk = calloc(n, sizeof *sk);
	if (!sk) {
		c->nomem = 1;
		return -1;
	}
	for (const cJSON *e = sw->child; e; e = e->next, i++) {
		struct sweep_key *k = &sk[i];
		int rc;
		k->text = e->string ? e->string : "";
		sim_json_path_key(k->where, sizeof k->where, "$.sweep", k->text);
		rc = sweep_path_parse(k->text, k);
		if (rc == -2) {
			c->nomem = 1;
			continue;
		}
		if (rc < 0) {
			err(c, k->where, "expected a path such as \"cluster.flavors[0].nodes\", got \"%s\"",
			    k->text);
			continue;
		}
		if (!k->comps[0].key || !sweepable_root(k->comps[0].key)) {
			err(c, k->where,
			    "expected a path under \"cluster\", \"policies\" or \"jobs\", got \"%s\" (seeds are "
			    "replications; other keys are shared by every run)",
			    k->text);
			continue;
		}
		if (!sweep_follow(root, k->comps, k->n_comps, why, sizeof why)) {
			err(c, k->where,
			    "path does not exist in the base config (%s); expected a path to a key "
			    "the config sets",
			    why);
			continue;
		}
		if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) == 0) {
			sim_json_describe(e, got, sizeof got);
			err(c, k->where, "expected a non-empty list of values, got %s%s", got,
			    cJSON_IsArray(e) ? " (empty)" : "");
			continue;
		}
		k->values = e;
		k->n_values = (size_t)cJSON_GetArraySize(e);
		prod *= (double)k->n_values;
		for (size_t j = 0; j < i; j++)
			if (sk[j].values && (comps_prefix(&sk[j], k) || comps_prefix(k, &sk[j]))) {
				err(c, k->where, "overlaps %s; expected paths that do not contain each other",
				    sk[j].where);
				break;
			}
	}
	if (c->n == errs && !c->nomem && prod > MAX_VARIANTS)
		err(c, "$.sweep", "expected at most %d variants, got %.0f", MAX_VARIANTS, prod);
	if (c->n != errs || c->nomem) {
		sweep_keys_free(sk, n);
		return -1;
	}
	*out = sk;
	*n_out = n;
	*n_variants = (size_t)prod;
	return 0;
}

/* Name piece of one swept value: strings as-is, numbers %g, null and booleans by
 * their JSON spelling, objects by "name", else the value's position in its list;
 * characters outside [A-Za-z0-9_.+-] become '-'. */
void exp_sweep_value_label(const cJSON *v, size_t pos, char *buf, size_t n)
{
	const cJSON *nm = cJSON_IsObject(v) ? get(v, "name") : NULL;

	if (cJSON_IsString(v))
		snprintf(buf, n, "%s", v->valuestring);
	else if (cJSON_IsNumber(v))
		snprintf(buf, n, "%g", v->valuedouble);
	else if (cJSON_IsString(nm))
		snprintf(buf, n, "%s", nm->valuestring);
	else if (cJSON_IsNull(v))
		snprintf(buf, n, "null");
	else if (cJSON_IsBool(v))
		snprintf(buf, n, "%s", cJSON_IsTrue(v) ? "true" : "false");
	else
		snprintf(buf, n, "%zu", pos);
	/* Names become HDF5 group and file names: keep them to a safe set. */
	for (char *q = buf; *q; q++)
		if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') ||
		      *q == '_' || *q == '.' || *q == '+' || *q == '-'))
			*q = '-';
}

/* Builds variant `vi` (mixed-radix index, last key fastest) from root. */
static int variant_build(cJSON *root, const struct sweep_key *sk, size_t n_keys, size_t vi,
			 struct exp_variant *v)
{
	size_t rem = vi, name_len = 0;
	size_t *pos = calloc(n_keys ? n_keys : 1, sizeof *pos);
	char label[SIM_NAME_MAX * 2], why[8];

	if (!pos)
		return -SIM_ENOMEM;
	for (size_t k = n_keys; k-- > 0;) {
		pos[k] = rem % sk[k].n_values;
		rem /= sk[k].n_values;
	}
	v->tree = cJSON_Duplicate(root, 1);
	if (!v->tree)
		goto out_nomem;
	cJSON_DeleteItemFromObjectCaseSensitive(v->tree, "sweep");
	for (size_t k = 0; k < n_keys; k++) {
		const struct comp *last = &sk[k].comps[sk[k].n_comps - 1];
		cJSON *parent = sweep_follow(v->tree, sk[k].comps, sk[k].n_comps - 1, why, sizeof why);
		cJSON *val = cJSON_Duplicate(cJSON_GetArrayItem(sk[k].values, (int)pos[k]), 1);
		cJSON_bool ok;
		if (!val)
			goto out_nomem;
		/* The path was checked on the base; an earlier substitution cannot remove it
		 * because overlapping paths are refused. */
		if (last->key)
			ok = cJSON_ReplaceItemInObjectCaseSensitive(parent, last->key, val);
		else
			ok = cJSON_ReplaceItemInArray(parent, (int)last->idx, val);
		if (!ok) {
			cJSON_Delete(val);
			goto out_nomem;
		}
	}
	for (size_t k = 0; k < n_keys; k++) {
		exp_sweep_value_label(cJSON_GetArrayItem(sk[k].values, (int)pos[k]), pos[k], label, sizeof label);
		name_len += strlen(label) + 1;
	}
	v->name = malloc(n_keys ? name_len : sizeof "base");
	if (!v->name)
		goto out_nomem;
	strcpy(v->name, n_keys ? "" : "base");
	for (size_t k = 0; k < n_keys; k++) {
		exp_sweep_value_label(cJSON_GetArrayItem(sk[k].values, (int)pos[k]), pos[k], label, sizeof label);
		if (k)
			strcat(v->name, "_");
		strcat(v->name, label);
	}
	free(pos);
	return 0;

out_nomem:
	free(pos);
	return -SIM_ENOMEM;
}

/* Two variants with one name would collide in the results file (e.g. two objects with
 * the same "name" and other params): every such variant gets "_v<its 1-based number>". */
int exp_names_make_unique(char **names, size_t n)
{
	char *dup_flag = calloc(n ? n : 1, 1);

	if (!dup_flag)
		return -SIM_ENOMEM;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (strcmp(names[i], names[j]) == 0)
				dup_flag[i] = dup_flag[j] = 1;
	for (size_t i = 0; i < n; i++) {
		if (!dup_flag[i])
			continue;
		size_t len = strlen(names[i]) + 32;
		char *nm = malloc(len);
		if (!nm) {
			free(dup_flag);
			return -SIM_ENOMEM;
		}
		snprintf(nm, len, "%s_v%zu", names[i], i + 1);
		free(names[i]);
		names[i] = nm;
	}
	free(dup_flag);
	return 0;
}

static int variant_names_unique(struct exp_variant *vs, size_t n)
{
	char **names = malloc((n ? n : 1) * sizeof *names);
	if (!names)
		return -SIM_ENOMEM;
	for (size_t i = 0; i < n; i++)
		names[i] = vs[i].name;
	int rc = exp_names_make_unique(names, n);
	for (size_t i = 0; i < n; i++)
		vs[i].name = names[i];
	free(names);
	return rc;
}

/* ---- reporting -------------------------------------------------------------- */

/* One variant error, for grouping equal errors across variants. */
struct verr {
	const struct err *e;
	size_t v;      /* variant index */
	size_t n_with; /* variants that have this same error (path and msg) */
};

static int verr_cmp(const void *pa, const void *pb)
{
	const struct verr *a = pa, *b = pb;
	int c = strcmp(a->e->path, b->e->path);
	if (!c)
		c = strcmp(a->e->msg, b->e->msg);
	if (!c)
		c = (a->v > b->v) - (a->v < b->v);
	return c;
}

/* Sends base errors, then per-variant ones in variant order: an error every variant has
 * is sent once, plainly (where variant 1 has it); others name their variant. Equal errors
 * are grouped by sorting, O(E log E) for E errors, so a large failing sweep stays fast.
 * Returns the number of errors sent, or (size_t)-1 when out of memory. */
/* "FILE: $.path", or "FILE:LINE:COL: $.path" for a YAML config (map non-NULL): the
 * line of the value, or of its nearest ancestor the file writes. */
static void where_of(char *buf, size_t n, const char *file, const struct sim_srcmap *map, const char *path)
{
	const struct sim_srcpos *pos = map ? sim_srcmap_find_path(map, 0, path) : NULL;
	if (pos)
		snprintf(buf, n, "%s:%u:%u: %s", file, pos->line, pos->col, path);
	else
		snprintf(buf, n, "%s: %s", file, path);
}

static size_t report(const char *file, const struct sim_srcmap *map, const struct chk *base, const struct chk *vc,
		     const struct exp_variant *vs, size_t nv, struct sim_diag *diag)
{
	char where[PATH_MAX_ + 1024];
	size_t sent = 0, n = 0, k = 0, *first;
	struct verr *all, **by_order;

	for (size_t i = 0; i < base->n; i++, sent++) {
		where_of(where, sizeof where, file, map, base->errs[i].path);
		sim_diag_add(diag, where, "%s", base->errs[i].msg);
	}
	for (size_t v = 0; v < nv; v++)
		n += vc[v].n;
	if (n == 0)
		return sent;
	all = calloc(n, sizeof *all);
	by_order = calloc(n, sizeof *by_order);
	first = calloc(nv, sizeof *first); /* index in by_order of each variant's first error */
	if (!all || !by_order || !first) {
		free(all);
		free(by_order);
		free(first);
		return (size_t)-1;
	}
	for (size_t v = 0; v < nv; v++)
		for (size_t i = 0; i < vc[v].n; i++)
			all[k++] = (struct verr){ .e = &vc[v].errs[i], .v = v };
	qsort(all, n, sizeof *all, verr_cmp);
	for (size_t i = 0, j; i < n; i = j) {
		size_t distinct = 1;
		for (j = i + 1; j < n && strcmp(all[j].e->path, all[i].e->path) == 0 &&
				strcmp(all[j].e->msg, all[i].e->msg) == 0;
		     j++)
			distinct += all[j].v != all[j - 1].v;
		for (size_t m = i; m < j; m++)
			all[m].n_with = distinct;
	}
	/* Back to the order the errors were found in: variant by variant, each in its array. */
	first[0] = 0;
	for (size_t v = 1; v < nv; v++)
		first[v] = first[v - 1] + vc[v - 1].n;
	for (size_t i = 0; i < n; i++)
		by_order[first[all[i].v] + (size_t)(all[i].e - vc[all[i].v].errs)] = &all[i];
	for (size_t i = 0; i < n; i++) {
		const struct verr *x = by_order[i];
		int in_all = x->n_with == nv;
		if (in_all && x->v > 0)
			continue; /* already sent with variant 1 */
		where_of(where, sizeof where, file, map, x->e->path);
		if (in_all)
			sim_diag_add(diag, where, "%s", x->e->msg);
		else
			sim_diag_add(diag, where, "%s (in sweep variant %zu of %zu, \"%s\")", x->e->msg,
				     x->v + 1, nv, vs[x->v].name);
		sent++;
	}
	free(first);
	free(by_order);
	free(all);
	return sent;
}

/* FILE:LINE:COL for a cJSON parse failure at `pos` (bytes into text). cJSON often
 * stops one token late, past whitespace or at the end: step back to the last
 * non-blank character then, which is where the reader's eye should go. */
static void syntax_error(const char *file, const char *text, size_t len, size_t pos, struct sim_diag *diag)
{
	char where[PATH_MAX_ + 64], near[64];
	size_t line = 1, col = 1, o = 0;

	if (pos > len)
		pos = len;
	if (pos == len || text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n' || text[pos] == '\r') {
		size_t p = pos;
		while (p > 0 && (text[p - 1] == ' ' || text[p - 1] == '\t' || text[p - 1] == '\n' ||
				 text[p - 1] == '\r'))
			p--;
		if (p > 0)
			pos = p - 1;
	}
	for (size_t i = 0; i < pos; i++) {
		if (text[i] == '\n') {
			line++;
			col = 1;
		} else if (((unsigned char)text[i] & 0xC0) != 0x80) {
			col++; /* columns count characters, not UTF-8 continuation bytes */
		}
	}
	for (size_t i = pos; i < len && o < 20 && text[i] != '\n' && text[i] != '\r'; i++)
		near[o++] = (unsigned char)text[i] < 0x20 || text[i] == '\'' ? '?' : text[i];
	near[o] = 0;
	snprintf(where, sizeof where, "%s:%zu:%zu", file, line, col);
	if (o == 0)
		sim_diag_add(diag, where, "JSON syntax error near end of input");
	else
		sim_diag_add(diag, where, "JSON syntax error near '%s'", near);
}

/* ---- public -------------------------------------------------------------- */

void exp_config_destroy(struct exp_config *cfg)
{
	if (!cfg)
		return;
	for (size_t i = 0; i < cfg->n_variants; i++) {
		free(cfg->variants[i].name);
		free(cfg->variants[i].flavors);
		sim_capacity_destroy(cfg->variants[i].capacity);
		sim_faults_destroy(cfg->variants[i].faults);
		sim_autoscale_destroy(cfg->variants[i].autoscale);
		sim_spot_destroy(cfg->variants[i].spot);
		sim_flex_destroy(cfg->variants[i].flex);
		cJSON_Delete(cfg->variants[i].tree);
	}
	free(cfg->variants);
	free(cfg->seeds);
	free(cfg->output);
	free(cfg->trace_format);
	free(cfg->trace_path);
	free(cfg->name);
	free(cfg->text);
	free(cfg->path);
	sim_srcmap_fini(cfg->srcmap);
	free(cfg->srcmap);
	free(cfg);
}

static int parse_json(const char *path, const char *text, size_t len, struct sim_srcmap *map,
		      struct exp_config **out, struct sim_diag *diag);

/* A YAML config's one document as a tree, with its position table (*map, malloc'd).
 * Returns 0, or -SIM_EPARSE with the located error in diag, or -SIM_ENOMEM. */
static int yaml_tree(const char *path, const char *text, size_t len, cJSON **root, struct sim_srcmap **map,
		     struct sim_diag *diag)
{
	cJSON **docs = NULL;
	size_t n = 0;
	*root = NULL;
	*map = calloc(1, sizeof **map);
	if (!*map)
		return -SIM_ENOMEM;
	int rc = sim_yaml_parse(path, text, len, &docs, &n, *map, diag);
	if (!rc && n != 1) {
		char where[PATH_MAX_ + 16];
		snprintf(where, sizeof where, "%s:1:1", path);
		rc = sim_diag_add(diag, where, "expected one YAML document (the config), got %zu", n);
	}
	if (!rc) {
		*root = docs[0];
	} else {
		for (size_t i = 0; i < n; i++)
			cJSON_Delete(docs[i]);
		sim_srcmap_fini(*map);
		free(*map);
		*map = NULL;
	}
	free(docs);
	return rc;
}

/* A YAML config is read as the JSON text of its tree (so cfg->text, the results'
 * experiment_json, is JSON for every reader of a results file), with the YAML
 * positions kept for the messages. */
static int parse_yaml(const char *path, const char *text, size_t len, struct exp_config **out,
		      struct sim_diag *diag)
{
	cJSON *root;
	struct sim_srcmap *map;
	int rc = yaml_tree(path, text, len, &root, &map, diag);
	if (rc)
		return rc;
	char *json = cJSON_Print(root);
	cJSON_Delete(root);
	if (!json) {
		sim_srcmap_fini(map);
		free(map);
		return -SIM_ENOMEM;
	}
	rc = parse_json(path, json, strlen(json), map, out, diag);
	cJSON_free(json);
	return rc;
}

int exp_config_parse(const char *path, const char *text, size_t len, struct exp_config **out,
		     struct sim_diag *diag)
{
	*out = NULL;
	if (sim_yaml_is_path(path))
		return parse_yaml(path, text, len, out, diag);
	return parse_json(path, text, len, NULL, out, diag);
}

void exp_config_locate_errors(const struct exp_config *cfg, struct sim_diag *diag)
{
	if (cfg && cfg->srcmap)
		sim_srcmap_locate_diag(cfg->srcmap, cfg->path, diag);
}

/* exp_config_parse of JSON text; map (owned by the result, or freed on failure) is
 * the YAML file's position table when the text was printed from a YAML tree. */
static int parse_json(const char *path, const char *text, size_t len, struct sim_srcmap *map,
		      struct exp_config **out, struct sim_diag *diag)
{
	struct exp_config *cfg;
	struct chk base = { 0 }, *vc = NULL;
	struct sweep_key *sk = NULL;
	size_t n_keys = 0, nv = 1, skip = 0;
	const char *end = NULL, *nul;
	cJSON *root;
	int rc = 0;

	*out = NULL;
	cfg = calloc(1, sizeof *cfg);
	if (!cfg) {
		sim_srcmap_fini(map);
		free(map);
		return -SIM_ENOMEM;
	}
	cfg->srcmap = map;
	cfg->path = xstrdup(path);
	cfg->text = malloc(len + 1);
	if (!cfg->path || !cfg->text) {
		rc = -SIM_ENOMEM;
		goto out_destroy;
	}
	memcpy(cfg->text, text, len);
	cfg->text[len] = 0;

	/* cJSON needs the terminating NUL inside buffer_length to accept the end. */
	if (len >= 3 && memcmp(cfg->text, "\xEF\xBB\xBF", 3) == 0)
		skip = 3; /* a UTF-8 byte-order mark is not JSON, but editors write it */
	nul = memchr(cfg->text, 0, len);
	if (nul) {
		syntax_error(path, cfg->text, len, (size_t)(nul - cfg->text), diag);
		rc = -SIM_EPARSE;
		goto out_destroy;
	}
	root = cJSON_ParseWithLengthOpts(cfg->text + skip, len - skip + 1, &end, 1);
	if (!root) {
		if (!end) {
			rc = -SIM_ENOMEM;
			goto out_destroy;
		}
		syntax_error(path, cfg->text, len, (size_t)(end - cfg->text), diag);
		rc = -SIM_EPARSE;
		goto out_destroy;
	}

	if (!cJSON_IsObject(root)) {
		char got[96];
		sim_json_describe(root, got, sizeof got);
		err(&base, "$",
		    "expected an object {\"name\": ..., \"trace\": ..., \"cluster\": ...}, got %s", got);
		goto out_report;
	}
	sim_json_duplicate_keys(root, "$", report_dup, &base);
	check_top(&base, cfg, root);
	if (sweep_parse(&base, root, &sk, &n_keys, &nv) < 0) {
		n_keys = 0; /* still check the base's cluster and policies, for every error at once */
		nv = 1;
	}

	cfg->variants = calloc(nv, sizeof *cfg->variants);
	vc = calloc(nv, sizeof *vc);
	if (!cfg->variants || !vc) {
		base.nomem = 1;
		goto out_report;
	}
	for (size_t i = 0; i < nv; i++) {
		if (variant_build(root, sk, n_keys, i, &cfg->variants[i]) < 0) {
			cJSON_Delete(cfg->variants[i].tree);
			free(cfg->variants[i].name);
			cfg->variants[i].tree = NULL;
			cfg->variants[i].name = NULL;
			base.nomem = 1;
			goto out_report;
		}
		cfg->n_variants = i + 1;
		check_variant(&vc[i], cfg->path, &cfg->variants[i]);
		if (vc[i].nomem)
			base.nomem = 1;
	}
	if (variant_names_unique(cfg->variants, cfg->n_variants) < 0)
		base.nomem = 1;

out_report:
	if (base.nomem) {
		rc = -SIM_ENOMEM;
	} else {
		size_t sent = report(path, cfg->srcmap, &base, vc, cfg->variants, vc ? cfg->n_variants : 0, diag);
		if (sent == (size_t)-1)
			rc = -SIM_ENOMEM;
		else if (sent > 0)
			rc = -SIM_EPARSE;
	}
	for (size_t i = 0; vc && i < nv; i++)
		chk_fini(&vc[i]);
	free(vc);
	chk_fini(&base);
	sweep_keys_free(sk, n_keys);
	cJSON_Delete(root);
	if (rc == 0) {
		*out = cfg;
		return 0;
	}
out_destroy:
	exp_config_destroy(cfg);
	return rc;
}

int exp_config_load(const char *path, struct exp_config **out, struct sim_diag *diag)
{
	char *buf;
	size_t len;
	*out = NULL;
	int rc = sim_read_file(path, &buf, &len, diag);
	if (rc)
		return rc;
	rc = exp_config_parse(path, buf, len, out, diag);
	free(buf);
	return rc;
}

/* ---- one value set by path (capacity planning) --------------------------- */

/* Parses text into a tree, or NULL on a syntax error or no memory (exp_config_parse
 * then reports which). */
static cJSON *tree_of(const char *path, const char *text, size_t len, struct sim_srcmap **map)
{
	*map = NULL;
	if (sim_yaml_is_path(path)) {
		cJSON *root = NULL;
		struct sim_diag quiet; /* exp_config_parse reports a bad file again, with its messages */
		sim_diag_init(&quiet, 1);
		yaml_tree(path, text, len, &root, map, &quiet);
		sim_diag_fini(&quiet);
		return root;
	}
	size_t skip = len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
	char *copy;
	cJSON *root;

	if (memchr(text, 0, len) || !(copy = malloc(len + 1)))
		return NULL;
	memcpy(copy, text, len);
	copy[len] = 0;
	/* As exp_config_parse: the NUL inside the length, so trailing garbage is an error. */
	root = cJSON_ParseWithLengthOpts(copy + skip, len - skip + 1, NULL, 1);
	free(copy);
	return root;
}

/* The number at json_path in root, for a planner to vary: the path must be well formed,
 * under "cluster" or "policies" (as a sweep path), exist, hold a number and not overlap
 * a sweep key (the sweep would overwrite it). Returns the node, or NULL with the reason
 * in diag (*rc -SIM_EPARSE, or -SIM_ENOMEM). */
static cJSON *number_at(const char *file, cJSON *root, const char *json_path, struct sim_diag *diag, int *rc)
{
	struct sweep_key k = { .text = json_path };
	char where[PATH_MAX_ + 1024], why[PATH_MAX_ + 64], got[96];
	cJSON *node = NULL;
	const cJSON *sw = cJSON_IsObject(root) ? get(root, "sweep") : NULL;

	*rc = -SIM_EPARSE;
	snprintf(where, sizeof where, "%s: %s", file, json_path);
	int prc = sweep_path_parse(json_path, &k);
	if (prc == -2) {
		*rc = -SIM_ENOMEM;
		goto out_free;
	}
	if (prc < 0) {
		sim_diag_add(diag, where, "expected a path such as \"cluster.flavors[0].nodes\"");
		goto out_free;
	}
	if (!k.comps[0].key || !sweepable_root(k.comps[0].key)) {
		sim_diag_add(diag, where, "expected a path under \"cluster\", \"policies\" or \"jobs\"");
		goto out_free;
	}
	node = sweep_follow(root, k.comps, k.n_comps, why, sizeof why);
	if (!node) {
		sim_diag_add(diag, where,
			     "path does not exist in the config (%s); expected a path to a number "
			     "the config sets",
			     why);
		goto out_free;
	}
	if (!cJSON_IsNumber(node)) {
		sim_json_describe(node, got, sizeof got);
		sim_diag_add(diag, where, "expected the path to hold a number, got %s", got);
		node = NULL;
		goto out_free;
	}
	for (const cJSON *e = cJSON_IsObject(sw) ? sw->child : NULL; e; e = e->next) {
		struct sweep_key s = { .text = e->string ? e->string : "" };
		int overlap = sweep_path_parse(s.text, &s) == 0 &&
			      (comps_prefix(&s, &k) || comps_prefix(&k, &s));
		for (size_t j = 0; j < s.n_comps; j++)
			free(s.comps[j].key);
		free(s.comps);
		if (overlap) {
			sim_diag_add(diag, where,
				     "expected a path the sweep does not set, got one that overlaps "
				     "$.sweep[\"%s\"]",
				     e->string);
			node = NULL;
			goto out_free;
		}
	}
	*rc = 0;
out_free:
	for (size_t j = 0; j < k.n_comps; j++)
		free(k.comps[j].key);
	free(k.comps);
	return node;
}

int exp_config_number_at(const char *path, const char *text, size_t len, const char *json_path, double *value,
			 struct sim_diag *diag)
{
	struct sim_srcmap *map;
	cJSON *root = tree_of(path, text, len, &map);
	int rc;

	sim_srcmap_fini(map); /* a path's own errors name the path as given */
	free(map);
	if (!root) {
		struct exp_config *cfg = NULL;
		rc = exp_config_parse(path, text, len, &cfg, diag); /* says where the syntax fails */
		exp_config_destroy(cfg);
		return rc ? rc : -SIM_ENOMEM;
	}
	cJSON *node = number_at(path, root, json_path, diag, &rc);
	if (node)
		*value = node->valuedouble;
	cJSON_Delete(root);
	return rc;
}

int exp_config_parse_with_n(const char *path, const char *text, size_t len, const char *const *json_paths,
			    const double *values, size_t n, struct exp_config **out, struct sim_diag *diag)
{
	struct sim_srcmap *map;
	cJSON *root = tree_of(path, text, len, &map), *node;
	char *edited;
	int rc;

	*out = NULL;
	if (!root) {
		sim_srcmap_fini(map);
		free(map);
		rc = exp_config_parse(path, text, len, out, diag); /* says where the syntax fails */
		if (rc == 0) {
			exp_config_destroy(*out);
			*out = NULL;
			rc = -SIM_ENOMEM;
		}
		return rc;
	}
	for (size_t i = 0; i < n; i++) {
		node = number_at(path, root, json_paths[i], diag, &rc);
		if (!node)
			goto out_root;
		cJSON_SetNumberValue(node, values[i]);
	}
	rc = -SIM_ENOMEM;
	edited = cJSON_Print(root);
	if (!edited)
		goto out_root;
	/* the edited tree is JSON text whatever the file was; a YAML file's positions still
	 * locate its errors (the edit changes numbers, not where anything is) */
	rc = parse_json(path, edited, strlen(edited), map, out, diag);
	map = NULL; /* parse_json owns it now */
	cJSON_free(edited);
out_root:
	sim_srcmap_fini(map);
	free(map);
	cJSON_Delete(root);
	return rc;
}

int exp_config_parse_with(const char *path, const char *text, size_t len, const char *json_path, double value,
			  struct exp_config **out, struct sim_diag *diag)
{
	return exp_config_parse_with_n(path, text, len, &json_path, &value, 1, out, diag);
}
