/* policies/scenario.c: reads a scenario file (docs/scenarios.md) into a kq_sched
 * and decides its one cycle; renders the decision as JSON.
 *
 * Flow: parse with cJSON (syntax errors become FILE:LINE:COL), refuse duplicate
 * keys anywhere, then check in passes, each needing the names of the one before:
 * resources and flavors (they size the kq_sched), the names of cohorts and queues
 * (they may be named before they are defined), the cohorts' and queues' settings,
 * cohort cycles, then the jobs. Every error is reported with its JSON path; the
 * kq_sched is finalized and the running jobs booked only when all is valid.
 *
 * Quantities: cJSON keeps only the double, so a number is printed back in its
 * shortest form that reads back to the same double ("0.1", not
 * "0.10000000000000001") and that text goes through sim_qty_parse, which refuses
 * more than 3 fractional digits. Times go through "%.9f" and sim_time_parse_s
 * (rounded to the nanosecond).
 */
#include "scenario.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/jsonmsg.h"
#include "../sim/yamltree.h"

#define PATH_MAX_ 512 /* JSON paths in messages; longer ones are cut */
#define QTY_MAX_MILLI (1000000000LL * SIM_MILLI) /* 1e9 units, as experiment configs */
#define NAMES_LISTED 8 /* names shown in "expected one of ..." before "..." */

/* ---- parse context and errors -------------------------------------------- */

struct ctx {
	const char *file;
	struct sim_diag *diag;
	size_t errors;
	int nomem;
	struct scn *s;
	struct kq_sched *kq;  /* == s->kq once created */
	int32_t *cohort_node; /* per $.cohorts[i]: node index, or -1 when its name was refused */
	int32_t *queue_node;  /* per $.queues[i] */
	size_t n_cohorts, n_queues;
	sim_time_t latest;    /* latest time seen in the file, for the default of $.now */
	/* Where the cohorts and queues are: "$" in a scenario, "$.policies.quota" (say)
	 * in an experiment config (scn_read_quota_tree); and where names come from. */
	const char *root;
	const char *flavor_src, *res_src;
	const char *const *extra_queue_keys; /* accepted and left to the caller; may be NULL */
};

static void err(struct ctx *c, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void err(struct ctx *c, const char *path, const char *fmt, ...)
{
	char where[PATH_MAX_ + 256], msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(where, sizeof where, "%s: %s", c->file, path);
	sim_diag_add(c->diag, where, "%s", msg);
	c->errors++;
}

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = malloc(n);
	if (p)
		memcpy(p, s, n);
	return p;
}

static void see_time(struct ctx *c, sim_time_t t)
{
	if (t != SIM_TIME_NONE && t > c->latest)
		c->latest = t;
}

/* ---- paths and values in messages ------------------------------------------ */

/* ---- generic checks ------------------------------------------------------- */

static const cJSON *get(const cJSON *obj, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* Duplicate keys anywhere: cJSON keeps both and GetObjectItem sees the first. */
static void report_dup(void *arg, const char *path)
{
	err(arg, path, "duplicate key; expected each key once per object");
}

static int in_list(const char *const *names, const char *key)
{
	for (size_t i = 0; names && names[i]; i++)
		if (strcmp(names[i], key) == 0)
			return 1;
	return 0;
}

/* Unknown keys of obj: known and extra are NULL-terminated (extra may be NULL). */
static void check_keys2(struct ctx *c, const cJSON *obj, const char *path, const char *const *known,
			const char *const *extra)
{
	char sub[PATH_MAX_], list[768];

	for (const cJSON *ch = obj->child; ch; ch = ch->next) {
		const char *key = ch->string ? ch->string : "";
		size_t o = 0, k = 0;
		if (in_list(known, key) || in_list(extra, key))
			continue;
		list[0] = 0;
		for (size_t i = 0; known[i] && o < sizeof list; i++)
			o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", k++ ? ", " : "", known[i]);
		for (size_t i = 0; extra && extra[i] && o < sizeof list; i++)
			o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", k++ ? ", " : "", extra[i]);
		sim_json_path_key(sub, sizeof sub, path, key);
		err(c, sub, "unknown key; expected one of %s", list);
	}
}

static void check_keys(struct ctx *c, const cJSON *obj, const char *path, const char *const *known)
{
	check_keys2(c, obj, path, known, NULL);
}

static int want_object(struct ctx *c, const cJSON *v, const char *path, const char *shape)
{
	char got[96];

	if (cJSON_IsObject(v))
		return 0;
	sim_json_describe(v, got, sizeof got);
	err(c, path, "expected an object %s, got %s", shape, got);
	return -1;
}

static int name_ok(const char *s)
{
	if (!*s || strlen(s) >= SIM_NAME_MAX)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || *s == '.' || *s == '-'))
			return 0;
	return 1;
}

/* A name of [A-Za-z0-9_.-], 1 to 63 characters; NULL after reporting. */
static const char *want_name(struct ctx *c, const cJSON *v, const char *path)
{
	char got[96];

	if (cJSON_IsString(v) && name_ok(v->valuestring))
		return v->valuestring;
	sim_json_describe(v, got, sizeof got);
	err(c, path, "expected a name of letters, digits, '_', '.' and '-' (1 to %d characters), got %s",
	    SIM_NAME_MAX - 1, got);
	return NULL;
}

/* A job id: any non-empty string. */
static const char *want_id(struct ctx *c, const cJSON *v, const char *path)
{
	char got[96];

	if (cJSON_IsString(v) && v->valuestring[0])
		return v->valuestring;
	sim_json_describe(v, got, sizeof got);
	err(c, path, "expected a non-empty string (required), got %s", got);
	return NULL;
}

/* An integer in the int32 range (priorities, thresholds). */
static int want_int32(struct ctx *c, const cJSON *v, const char *path, int32_t *out)
{
	char got[96];

	if (cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble == floor(v->valuedouble) &&
	    v->valuedouble >= INT32_MIN && v->valuedouble <= INT32_MAX) {
		*out = (int32_t)v->valuedouble;
		return 0;
	}
	sim_json_describe(v, got, sizeof got);
	err(c, path, "expected an integer in [%d, %d], got %s", INT32_MIN, INT32_MAX, got);
	return -1;
}

static int want_bool(struct ctx *c, const cJSON *v, const char *path, int *out)
{
	char got[96];

	if (cJSON_IsBool(v)) {
		*out = cJSON_IsTrue(v);
		return 0;
	}
	sim_json_describe(v, got, sizeof got);
	err(c, path, "expected true or false, got %s", got);
	return -1;
}

/* A quantity in milli-units (decimal >= 0, at most 3 fractional digits). */
static int want_qty(struct ctx *c, const cJSON *v, const char *path, sim_qty_t *out)
{
	char text[64], got[96];
	int rc = -SIM_EPARSE;

	if (cJSON_IsNumber(v) && isfinite(v->valuedouble)) {
		sim_json_fmt_double(v->valuedouble, text, sizeof text);
		rc = sim_qty_parse(text, strlen(text), out);
		if (rc == 0 && *out > QTY_MAX_MILLI)
			rc = -SIM_ERANGE;
	}
	if (rc == 0)
		return 0;
	sim_json_describe(v, got, sizeof got);
	if (rc == -SIM_ERANGE)
		err(c, path, "expected a decimal <= %lld, got %s", QTY_MAX_MILLI / SIM_MILLI, got);
	else
		err(c, path, "expected a decimal >= 0 with at most 3 fractional digits, got %s", got);
	return -1;
}

/* A time in seconds (>= 0) into ns; null gives SIM_TIME_NONE when null_ok. */
static int want_time(struct ctx *c, const cJSON *v, const char *path, int null_ok, sim_time_t *out)
{
	char text[64], got[96];
	int rc = -SIM_EPARSE;

	if (null_ok && cJSON_IsNull(v)) {
		*out = SIM_TIME_NONE;
		return 0;
	}
	if (cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble >= 0) {
		if (v->valuedouble < 1e12) {
			snprintf(text, sizeof text, "%.9f", v->valuedouble);
			rc = sim_time_parse_s(text, strlen(text), out);
		} else {
			rc = -SIM_ERANGE;
		}
	}
	if (rc == 0) {
		see_time(c, *out);
		return 0;
	}
	sim_json_describe(v, got, sizeof got);
	if (rc == -SIM_ERANGE)
		err(c, path, "expected seconds below 9.2e9, got %s", got);
	else
		err(c, path, "expected seconds >= 0%s, got %s", null_ok ? " or null" : "", got);
	return -1;
}

/* One of the strings in names (NULL-terminated); returns its index or -1 after reporting. */
static int want_enum(struct ctx *c, const cJSON *v, const char *path, const char *const *names)
{
	char got[96], list[256];
	size_t o = 0;

	for (int i = 0; cJSON_IsString(v) && names[i]; i++)
		if (strcmp(v->valuestring, names[i]) == 0)
			return i;
	list[0] = 0;
	for (int i = 0; names[i] && o < sizeof list; i++)
		o += (size_t)snprintf(list + o, sizeof list - o, "%s\"%s\"", i ? ", " : "", names[i]);
	sim_json_describe(v, got, sizeof got);
	err(c, path, "expected one of %s, got %s", list, got);
	return -1;
}

/* "a, b, c" lists of names for hints (the first NAMES_LISTED, then "..."). */
static void list_flavors(const struct kq_sched *kq, char *buf, size_t n)
{
	size_t o = 0;
	buf[0] = 0;
	for (int f = 0; f < kq->n_flavors && f <= NAMES_LISTED && o < n; f++)
		o += (size_t)snprintf(buf + o, n - o, "%s%s", f ? ", " : "",
				      f < NAMES_LISTED ? kq->flavor_names[f] : "...");
}

static void list_res(const struct kq_sched *kq, char *buf, size_t n)
{
	size_t o = 0;
	buf[0] = 0;
	for (int r = 0; r < kq->n_res && o < n; r++)
		o += (size_t)snprintf(buf + o, n - o, "%s%s", r ? ", " : "", kq->res_names[r]);
}

static void list_nodes(const struct kq_sched *kq, int is_queue, char *buf, size_t n)
{
	size_t o = 0, k = 0;
	buf[0] = 0;
	for (size_t i = 0; i < kq->n_nodes && o < n; i++) {
		if (kq->nodes[i].is_queue != is_queue)
			continue;
		o += (size_t)snprintf(buf + o, n - o, "%s%s", k ? ", " : "",
				      k < NAMES_LISTED ? kq->nodes[i].name : "...");
		if (k++ >= NAMES_LISTED)
			break;
	}
	if (k == 0)
		snprintf(buf, n, "(none defined)");
}

static int find_flavor(struct ctx *c, const char *name, const char *path)
{
	char list[512];
	int f = kq_flavor_find(c->kq, name);
	if (f < 0) {
		list_flavors(c->kq, list, sizeof list);
		err(c, path, "unknown flavor \"%s\"; expected one of %s: %s", name, c->flavor_src, list);
	}
	return f;
}

static int find_res(struct ctx *c, const char *name, const char *path)
{
	char list[512];
	int r = kq_res_find(c->kq, name);
	if (r < 0) {
		list_res(c->kq, list, sizeof list);
		err(c, path, "unknown resource \"%s\"; expected one of %s: %s", name, c->res_src, list);
	}
	return r;
}

/* A queue (is_queue 1) or cohort (0) by name; -1 after reporting. */
static int find_node(struct ctx *c, const cJSON *v, const char *path, int is_queue)
{
	const char *kind = is_queue ? "queue" : "cohort";
	char list[768], got[96];
	int i;

	if (!cJSON_IsString(v)) {
		sim_json_describe(v, got, sizeof got);
		err(c, path, "expected a %s name, got %s", kind, got);
		return -1;
	}
	i = kq_find(c->kq, v->valuestring);
	if (i >= 0 && c->kq->nodes[i].is_queue == is_queue)
		return i;
	list_nodes(c->kq, is_queue, list, sizeof list);
	if (i >= 0)
		err(c, path, "\"%s\" is a %s; expected a %s: %s", v->valuestring,
		    is_queue ? "cohort" : "queue", kind, list);
	else
		err(c, path, "unknown %s \"%s\"; expected one of %s", kind, v->valuestring, list);
	return -1;
}

/* ---- resources and flavors ------------------------------------------------ */

static const char *const top_keys[] = { "id", "description", "resources", "flavors", "cohorts", "queues",
					"fair_sharing", "running", "pending", "incoming", "feature_gates",
					"now", NULL };

/* Reads a list of unique names into names[] (at most max); returns the count or -1. */
static int read_name_list(struct ctx *c, const cJSON *list, const char *path, char (*names)[SIM_NAME_MAX],
			  int max)
{
	char sub[PATH_MAX_], got[96];
	int n = 0, bad = 0;
	size_t i = 0;

	if (!cJSON_IsArray(list) || !list->child) {
		sim_json_describe(list, got, sizeof got);
		err(c, path, "expected a non-empty list of names, got %s%s", got,
		    cJSON_IsArray(list) ? " (empty)" : "");
		return -1;
	}
	for (const cJSON *e = list->child; e; e = e->next, i++) {
		sim_json_path_idx(sub, sizeof sub, path, i);
		const char *s = want_name(c, e, sub);
		if (!s) {
			bad = 1;
			continue;
		}
		if (n == max) {
			err(c, sub, "expected at most %d names, got more", max);
			return -1;
		}
		for (int k = 0; k < n; k++)
			if (strcmp(names[k], s) == 0) {
				err(c, sub, "duplicate name \"%s\"; expected each name once", s);
				bad = 1;
				break;
			}
		snprintf(names[n++], SIM_NAME_MAX, "%s", s);
	}
	return bad ? -1 : n;
}

static int read_res_flavors(struct ctx *c, const cJSON *root)
{
	char res[SIM_MAX_RES][SIM_NAME_MAX];
	char (*flavors)[SIM_NAME_MAX];
	const cJSON *rl = get(root, "resources"), *fl = get(root, "flavors");
	int n_res = 1, n_fl, rc = 0;
	size_t cap;

	snprintf(res[0], SIM_NAME_MAX, "gpu"); /* default: just "gpu" */
	if (rl)
		n_res = read_name_list(c, rl, "$.resources", res, SIM_MAX_RES);
	if (!fl) {
		err(c, "$.flavors", "expected a non-empty list of flavor names (required), got nothing");
		return -1;
	}
	cap = cJSON_IsArray(fl) ? (size_t)cJSON_GetArraySize(fl) + 1 : 1;
	flavors = calloc(cap, SIM_NAME_MAX);
	if (!flavors) {
		c->nomem = 1;
		return -1;
	}
	n_fl = read_name_list(c, fl, "$.flavors", flavors, INT16_MAX);
	if (n_res < 0 || n_fl < 0) {
		rc = -1;
	} else {
		c->kq = c->s->kq = kq_create(n_res, (const char(*)[SIM_NAME_MAX])res, n_fl,
					     (const char(*)[SIM_NAME_MAX])flavors);
		if (!c->kq) {
			c->nomem = 1;
			rc = -1;
		}
	}
	free(flavors);
	return rc;
}

/* ---- names of cohorts and queues ------------------------------------------ */

/* Adds a node per entry of $.<key>; node indexes go to idx[] (-1 when refused). */
static void add_nodes(struct ctx *c, const cJSON *root, const char *key, int is_queue, int32_t **idx,
		      size_t *n_out)
{
	const cJSON *list = get(root, key);
	char path[PATH_MAX_], sub[PATH_MAX_], npath[PATH_MAX_], got[96];
	size_t n, i = 0;

	*n_out = 0;
	snprintf(path, sizeof path, "%s.%s", c->root, key);
	if (!list || (!is_queue && cJSON_IsNull(list)))
		return;
	if (!cJSON_IsArray(list)) {
		sim_json_describe(list, got, sizeof got);
		err(c, path, "expected a list of %s objects, got %s", is_queue ? "queue" : "cohort", got);
		return;
	}
	n = (size_t)cJSON_GetArraySize(list);
	*idx = malloc((n ? n : 1) * sizeof **idx);
	if (!*idx) {
		c->nomem = 1;
		return;
	}
	*n_out = n;
	for (const cJSON *e = list->child; e; e = e->next, i++) {
		(*idx)[i] = -1;
		sim_json_path_idx(sub, sizeof sub, path, i);
		if (want_object(c, e, sub, is_queue ? "{\"name\", \"cohort\", \"quota\", ...}"
						     : "{\"name\", \"parent\", ...}"))
			continue;
		sim_json_path_key(npath, sizeof npath, sub, "name");
		const char *name = want_name(c, get(e, "name"), npath);
		if (!name)
			continue;
		int k = kq_find(c->kq, name);
		if (k >= 0) {
			err(c, npath,
			    "duplicate name \"%s\" (also a %s); expected cohort and queue names to be unique",
			    name, c->kq->nodes[k].is_queue ? "queue" : "cohort");
			continue;
		}
		k = kq_add_node(c->kq, name, is_queue);
		if (k < 0) {
			c->nomem = 1;
			return;
		}
		(*idx)[i] = k;
	}
}

/* ---- quotas, cohorts, queues --------------------------------------------- */

static const char *const limit_keys[] = { "nominal", "borrowing_limit", "lending_limit", NULL };

/* A borrowing or lending limit: absent or null is KQ_UNSET. */
static int want_limit(struct ctx *c, const cJSON *v, const char *path, sim_qty_t *out)
{
	*out = KQ_UNSET;
	if (!v || cJSON_IsNull(v))
		return 0;
	return want_qty(c, v, path, out);
}

static void read_quota_entry(struct ctx *c, const cJSON *e, const char *path, int node, int f, int r)
{
	char sub[PATH_MAX_];
	sim_qty_t nominal = 0, bl, ll;
	int bad = 0;

	if (want_object(c, e, path,
			"{\"nominal\": N, \"borrowing_limit\": N|null, \"lending_limit\": N|null}"))
		return;
	check_keys(c, e, path, limit_keys);
	sim_json_path_key(sub, sizeof sub, path, "nominal");
	if (!get(e, "nominal")) {
		err(c, sub, "expected a decimal >= 0 (required), got nothing");
		bad = 1;
	} else {
		bad |= want_qty(c, get(e, "nominal"), sub, &nominal) < 0;
	}
	sim_json_path_key(sub, sizeof sub, path, "borrowing_limit");
	bad |= want_limit(c, get(e, "borrowing_limit"), sub, &bl) < 0;
	sim_json_path_key(sub, sizeof sub, path, "lending_limit");
	bad |= want_limit(c, get(e, "lending_limit"), sub, &ll) < 0;
	if (!bad && node >= 0 && f >= 0 && r >= 0)
		kq_set_quota(c->kq, node, f, r, nominal, bl, ll);
}

/* quota: {FLAVOR: {RES: {"nominal": N, "borrowing_limit": N|null, "lending_limit": N|null}}} */
static void read_quota(struct ctx *c, const cJSON *q, const char *path, int node)
{
	char fpath[PATH_MAX_], rpath[PATH_MAX_];

	if (!q)
		return;
	if (want_object(c, q, path, "{FLAVOR: {RESOURCE: {\"nominal\": N, ...}}}"))
		return;
	for (const cJSON *fl = q->child; fl; fl = fl->next) {
		sim_json_path_key(fpath, sizeof fpath, path, fl->string);
		int f = find_flavor(c, fl->string, fpath);
		if (want_object(c, fl, fpath, "{RESOURCE: {\"nominal\": N, ...}}"))
			continue;
		for (const cJSON *re = fl->child; re; re = re->next) {
			sim_json_path_key(rpath, sizeof rpath, fpath, re->string);
			int r = find_res(c, re->string, rpath);
			read_quota_entry(c, re, rpath, node, f, r);
		}
	}
}

static void read_weight(struct ctx *c, const cJSON *obj, const char *path, int node)
{
	char sub[PATH_MAX_];
	sim_qty_t w;
	const cJSON *v = get(obj, "fair_weight");

	if (!v)
		return;
	sim_json_path_key(sub, sizeof sub, path, "fair_weight");
	if (want_qty(c, v, sub, &w) == 0 && node >= 0)
		kq_set_weight(c->kq, node, w);
}

static const char *const cohort_keys[] = { "name", "parent", "quota", "fair_weight", NULL };

static void read_cohort(struct ctx *c, const cJSON *e, const char *path, int node)
{
	char sub[PATH_MAX_];
	const cJSON *p = get(e, "parent");

	check_keys(c, e, path, cohort_keys);
	sim_json_path_key(sub, sizeof sub, path, "parent");
	if (p && !cJSON_IsNull(p)) {
		int k = find_node(c, p, sub, 0);
		if (k >= 0 && k == node)
			err(c, sub, "cohort \"%s\" is its own parent; expected another cohort or null",
			    c->kq->nodes[node].name);
		else if (k >= 0 && node >= 0)
			c->kq->nodes[node].parent = k;
	}
	sim_json_path_key(sub, sizeof sub, path, "quota");
	read_quota(c, get(e, "quota"), sub, node);
	read_weight(c, e, path, node);
}

static const char *const queue_keys[] = { "name", "cohort", "quota", "flavor_order", "within_queue",
					  "reclaim_within_cohort", "borrow_within_cohort", "fair_weight",
					  "flavor_fungibility", "min_runtime_s", "checkpoint_aware", NULL };
static const char *const group_keys[] = { "resources", "flavors", NULL };
static const char *const bwc_keys[] = { "policy", "max_priority_threshold", NULL };
static const char *const fung_keys[] = { "when_can_borrow", "when_can_preempt", "preference", NULL };
static const char *const within_names[] = { "Never", "LowerPriority", "LowerOrNewerEqualPriority", NULL };
static const char *const reclaim_names[] = { "Never", "LowerPriority", "Any", NULL };
static const char *const bwc_names[] = { "Never", "LowerPriority", NULL };
/* "Borrow" and "Preempt" are the v1beta1 spellings of MayStopSearch. */
static const char *const borrow_names[] = { "MayStopSearch", "TryNextFlavor", "Borrow", NULL };
static const char *const preempt_names[] = { "MayStopSearch", "TryNextFlavor", "Preempt", NULL };
static const char *const pref_names[] = { "BorrowingOverPreemption", "PreemptionOverBorrowing", NULL };

/* One resource group {"resources": [...], "flavors": [...]}; used_res/used_fl mark
 * what earlier groups took (a resource or flavor belongs to one group, as in Kueue). */
static void read_group(struct ctx *c, const cJSON *g, const char *path, struct kq_group *out,
		       uint8_t *used_res, uint8_t *used_fl)
{
	char sub[PATH_MAX_], el[PATH_MAX_], got[96];
	const cJSON *rl, *fl;
	size_t i;

	if (want_object(c, g, path, "{\"resources\": [...], \"flavors\": [...]}"))
		return;
	check_keys(c, g, path, group_keys);
	rl = get(g, "resources");
	fl = get(g, "flavors");
	sim_json_path_key(sub, sizeof sub, path, "resources");
	if (!cJSON_IsArray(rl) || !rl->child) {
		sim_json_describe(rl, got, sizeof got);
		err(c, sub, "expected a non-empty list of resource names (required), got %s", got);
	} else {
		i = 0;
		for (const cJSON *e = rl->child; e; e = e->next, i++) {
			sim_json_path_idx(el, sizeof el, sub, i);
			const char *s = want_name(c, e, el);
			int r = s ? find_res(c, s, el) : -1;
			if (r < 0)
				continue;
			if (used_res[r]) {
				err(c, el,
				    "resource \"%s\" is already in a group; expected each resource in one "
				    "group of the queue",
				    s);
				continue;
			}
			used_res[r] = 1;
			out->res[out->n_res++] = r;
		}
	}
	sim_json_path_key(sub, sizeof sub, path, "flavors");
	if (!cJSON_IsArray(fl) || !fl->child) {
		sim_json_describe(fl, got, sizeof got);
		err(c, sub, "expected a non-empty list of flavor names (required), got %s", got);
		return;
	}
	i = 0;
	for (const cJSON *e = fl->child; e; e = e->next, i++) {
		sim_json_path_idx(el, sizeof el, sub, i);
		const char *s = want_name(c, e, el);
		int f = s ? find_flavor(c, s, el) : -1;
		if (f < 0)
			continue;
		if (used_fl[f]) {
			err(c, el, "flavor \"%s\" is listed twice; expected each flavor once in a queue's "
				   "flavor_order", s);
			continue;
		}
		if (out->n_flavors == KQ_MAX_GROUP_FLAVORS) {
			err(c, el, "expected at most %d flavors in a group", KQ_MAX_GROUP_FLAVORS);
			return;
		}
		used_fl[f] = 1;
		out->flavors[out->n_flavors++] = f;
	}
}

static void read_flavor_order(struct ctx *c, const cJSON *fo, const char *path, struct kq_queue_cfg *cfg)
{
	char sub[PATH_MAX_], got[96];
	uint8_t used_res[SIM_MAX_RES] = { 0 };
	uint8_t *used_fl = calloc((size_t)c->kq->n_flavors + 1, 1);
	size_t i = 0;

	if (!used_fl) {
		c->nomem = 1;
		return;
	}
	if (!cJSON_IsArray(fo)) {
		sim_json_describe(fo, got, sizeof got);
		err(c, path, "expected a list of groups {\"resources\": [...], \"flavors\": [...]}, got %s",
		    got);
		goto out_free;
	}
	for (const cJSON *g = fo->child; g; g = g->next, i++) {
		sim_json_path_idx(sub, sizeof sub, path, i);
		if (cfg->n_groups == KQ_MAX_GROUPS) {
			err(c, sub, "expected at most %d resource groups", KQ_MAX_GROUPS);
			break;
		}
		read_group(c, g, sub, &cfg->groups[cfg->n_groups++], used_res, used_fl);
	}
out_free:
	free(used_fl);
}

/* Without flavor_order: one group of every resource and flavor the queue's quota
 * names, in the order of $.resources and $.flavors. */
static void default_flavor_order(const struct kq_sched *kq, struct kq_node *n)
{
	struct kq_group *g = &n->cfg.groups[0];

	memset(g, 0, sizeof *g);
	for (int r = 0; r < kq->n_res; r++)
		for (int f = 0; f < kq->n_flavors; f++)
			if (n->has_quota[kq_fr(kq, f, r)]) {
				g->res[g->n_res++] = r;
				break;
			}
	for (int f = 0; f < kq->n_flavors && g->n_flavors < KQ_MAX_GROUP_FLAVORS; f++)
		for (int r = 0; r < kq->n_res; r++)
			if (n->has_quota[kq_fr(kq, f, r)]) {
				g->flavors[g->n_flavors++] = f;
				break;
			}
	n->cfg.n_groups = g->n_res && g->n_flavors ? 1 : 0;
}

static void read_bwc(struct ctx *c, const cJSON *b, const char *path, struct kq_queue_cfg *cfg)
{
	char sub[PATH_MAX_];
	const cJSON *t;
	int p;

	if (!b || cJSON_IsNull(b))
		return;
	if (want_object(c, b, path, "{\"policy\": \"LowerPriority\", \"max_priority_threshold\": N} or null"))
		return;
	check_keys(c, b, path, bwc_keys);
	sim_json_path_key(sub, sizeof sub, path, "policy");
	p = want_enum(c, get(b, "policy"), sub, bwc_names);
	cfg->bwc = p == 1;
	t = get(b, "max_priority_threshold");
	sim_json_path_key(sub, sizeof sub, path, "max_priority_threshold");
	if (t && !cJSON_IsNull(t) && want_int32(c, t, sub, &cfg->bwc_threshold) == 0)
		cfg->bwc_has_threshold = 1;
}

static void read_fungibility(struct ctx *c, const cJSON *ff, const char *path, struct kq_queue_cfg *cfg)
{
	char sub[PATH_MAX_];
	int v;

	if (!ff)
		return;
	if (want_object(c, ff, path, "{\"when_can_borrow\", \"when_can_preempt\", \"preference\"}"))
		return;
	check_keys(c, ff, path, fung_keys);
	sim_json_path_key(sub, sizeof sub, path, "when_can_borrow");
	if (get(ff, "when_can_borrow") &&
	    (v = want_enum(c, get(ff, "when_can_borrow"), sub, borrow_names)) >= 0)
		cfg->fung_borrow_try_next = v == 1;
	sim_json_path_key(sub, sizeof sub, path, "when_can_preempt");
	if (get(ff, "when_can_preempt") &&
	    (v = want_enum(c, get(ff, "when_can_preempt"), sub, preempt_names)) >= 0)
		cfg->fung_preempt_try_next = v == 1;
	sim_json_path_key(sub, sizeof sub, path, "preference");
	if (get(ff, "preference") && (v = want_enum(c, get(ff, "preference"), sub, pref_names)) >= 0)
		cfg->fung_preemption_over_borrowing = v == 1;
}

static void read_queue(struct ctx *c, const cJSON *e, const char *path, int node)
{
	struct kq_queue_cfg cfg;
	char sub[PATH_MAX_];
	const cJSON *v;
	int k;

	memset(&cfg, 0, sizeof cfg);
	cfg.within = KQ_NEVER; /* the API defaults (docs/kueue-rules.md D1) */
	cfg.reclaim = KQ_NEVER;
	cfg.fung_borrow_try_next = 0;  /* MayStopSearch */
	cfg.fung_preempt_try_next = 1; /* TryNextFlavor */
	check_keys2(c, e, path, queue_keys, c->extra_queue_keys);

	sim_json_path_key(sub, sizeof sub, path, "cohort");
	v = get(e, "cohort");
	if (v && !cJSON_IsNull(v) && (k = find_node(c, v, sub, 0)) >= 0 && node >= 0)
		c->kq->nodes[node].parent = k;

	sim_json_path_key(sub, sizeof sub, path, "quota");
	read_quota(c, get(e, "quota"), sub, node);
	read_weight(c, e, path, node);

	sim_json_path_key(sub, sizeof sub, path, "flavor_order");
	if ((v = get(e, "flavor_order")))
		read_flavor_order(c, v, sub, &cfg);

	sim_json_path_key(sub, sizeof sub, path, "within_queue");
	if ((v = get(e, "within_queue")) && (k = want_enum(c, v, sub, within_names)) >= 0)
		cfg.within = (enum kq_policy)kq_policy_from_name(within_names[k]);
	sim_json_path_key(sub, sizeof sub, path, "reclaim_within_cohort");
	if ((v = get(e, "reclaim_within_cohort")) && (k = want_enum(c, v, sub, reclaim_names)) >= 0)
		cfg.reclaim = (enum kq_policy)kq_policy_from_name(reclaim_names[k]);
	sim_json_path_key(sub, sizeof sub, path, "borrow_within_cohort");
	read_bwc(c, get(e, "borrow_within_cohort"), sub, &cfg);
	sim_json_path_key(sub, sizeof sub, path, "flavor_fungibility");
	read_fungibility(c, get(e, "flavor_fungibility"), sub, &cfg);

	sim_json_path_key(sub, sizeof sub, path, "min_runtime_s");
	if ((v = get(e, "min_runtime_s")))
		want_time(c, v, sub, 0, &cfg.min_runtime_ns);
	sim_json_path_key(sub, sizeof sub, path, "checkpoint_aware");
	if ((v = get(e, "checkpoint_aware")))
		want_bool(c, v, sub, &cfg.checkpoint_aware);

	if (node < 0)
		return;
	c->kq->nodes[node].cfg = cfg;
	if (!get(e, "flavor_order"))
		default_flavor_order(c->kq, &c->kq->nodes[node]);
}

/* Settings of every cohort and queue. min_runtime_s goes through want_time, which
 * records it as a time of the file; build() forgets those before reading the jobs. */
static void read_nodes(struct ctx *c, const cJSON *root)
{
	char path[PATH_MAX_], base[PATH_MAX_];
	const cJSON *e;
	size_t i;

	snprintf(base, sizeof base, "%s.cohorts", c->root);
	e = cJSON_IsArray(get(root, "cohorts")) ? get(root, "cohorts")->child : NULL;
	for (i = 0; e && i < c->n_cohorts; e = e->next, i++) {
		sim_json_path_idx(path, sizeof path, base, i);
		if (cJSON_IsObject(e))
			read_cohort(c, e, path, c->cohort_node[i]);
	}
	e = cJSON_IsArray(get(root, "queues")) ? get(root, "queues")->child : NULL;
	snprintf(base, sizeof base, "%s.queues", c->root);
	for (i = 0; e && i < c->n_queues; e = e->next, i++) {
		sim_json_path_idx(path, sizeof path, base, i);
		if (cJSON_IsObject(e))
			read_queue(c, e, path, c->queue_node[i]);
	}
}

static void check_cycles(struct ctx *c);

/* Cohorts and queues of root ({"cohorts": [...], "queues": [...]}) into c->kq. */
static int read_tree(struct ctx *c, const cJSON *root)
{
	add_nodes(c, root, "cohorts", 0, &c->cohort_node, &c->n_cohorts);
	add_nodes(c, root, "queues", 1, &c->queue_node, &c->n_queues);
	if (c->nomem)
		return -SIM_ENOMEM;
	read_nodes(c, root);
	check_cycles(c);
	return c->nomem ? -SIM_ENOMEM : 0;
}

/* A cohort cycle is reported once, at the parent key of its first cohort in the file. */
static void check_cycles(struct ctx *c)
{
	const struct kq_sched *kq = c->kq;
	char path[PATH_MAX_], item[PATH_MAX_], base[PATH_MAX_], chain[512];

	for (size_t i = 0; i < c->n_cohorts; i++) {
		int32_t start = c->cohort_node[i], p;
		size_t steps = 0, o;
		int min_pos = 1;

		if (start < 0)
			continue;
		for (p = kq->nodes[start].parent; p >= 0 && p != start && steps <= kq->n_nodes; steps++)
			p = kq->nodes[p].parent;
		if (p != start)
			continue;
		/* report only at the cycle member listed first in $.cohorts */
		for (p = kq->nodes[start].parent; p != start; p = kq->nodes[p].parent)
			for (size_t j = 0; j < i; j++)
				if (c->cohort_node[j] == p)
					min_pos = 0;
		if (!min_pos)
			continue;
		o = (size_t)snprintf(chain, sizeof chain, "%s", kq->nodes[start].name);
		p = start;
		do {
			p = kq->nodes[p].parent;
			if (o < sizeof chain)
				o += (size_t)snprintf(chain + o, sizeof chain - o, " -> %s",
						      kq->nodes[p].name);
		} while (p != start);
		snprintf(base, sizeof base, "%s.cohorts", c->root);
		sim_json_path_idx(item, sizeof item, base, i);
		sim_json_path_key(path, sizeof path, item, "parent");
		err(c, path, "cohort parents form a cycle (%s); expected a tree", chain);
	}
}

/* ---- jobs ------------------------------------------------------------------- */

static const char *const running_keys[] = { "id", "queue", "priority", "flavor", "request", "admitted_at",
					    "created_at", "evicted", "last_checkpoint_at", "preemptible",
					    NULL };
static const char *const pending_keys[] = { "id", "queue", "priority", "request", "created_at", NULL };
static const char *const incoming_keys[] = { "id", "queue", "priority", "request", "created_at",
					     "assignment", NULL };
static const char *const assignment_keys[] = { "flavor", "mode", NULL };
static const char *const mode_names[] = { "Fit", "Preempt", NULL };

static void read_request(struct ctx *c, const cJSON *rq, const char *path, struct kq_wl *wl)
{
	char sub[PATH_MAX_];

	if (!rq) {
		err(c, path, "expected an object {RESOURCE: quantity} (required), got nothing");
		return;
	}
	if (want_object(c, rq, path, "{RESOURCE: quantity}"))
		return;
	for (const cJSON *e = rq->child; e; e = e->next) {
		sim_json_path_key(sub, sizeof sub, path, e->string);
		int r = find_res(c, e->string, sub);
		sim_qty_t q;
		if (want_qty(c, e, sub, &q) == 0 && r >= 0)
			wl->req[r] = q;
	}
}

/* {RESOURCE: FLAVOR} into flavor[] for every requested resource; -1 elsewhere. */
static void read_flavor_map(struct ctx *c, const cJSON *m, const char *path, const struct kq_wl *wl,
			    int16_t *flavor)
{
	char sub[PATH_MAX_];

	for (int r = 0; r < SIM_MAX_RES; r++)
		flavor[r] = -1;
	if (!m) {
		err(c, path, "expected an object {RESOURCE: FLAVOR} (required), got nothing");
		return;
	}
	if (want_object(c, m, path, "{RESOURCE: FLAVOR}"))
		return;
	for (const cJSON *e = m->child; e; e = e->next) {
		sim_json_path_key(sub, sizeof sub, path, e->string);
		int r = find_res(c, e->string, sub);
		const char *s = want_name(c, e, sub);
		int f = s ? find_flavor(c, s, sub) : -1;
		if (r >= 0 && f >= 0 && wl->req[r] > 0)
			flavor[r] = (int16_t)f;
	}
	for (int r = 0; r < c->kq->n_res; r++)
		if (wl->req[r] > 0 && !get(m, c->kq->res_names[r])) {
			sim_json_path_key(sub, sizeof sub, path, c->kq->res_names[r]);
			err(c, sub, "expected the flavor of requested resource \"%s\", got nothing",
			    c->kq->res_names[r]);
		}
}

/* The keys every job form shares: id (already read), queue, priority, request, created_at. */
static void read_job_common(struct ctx *c, const cJSON *e, const char *path, struct kq_wl *wl)
{
	char sub[PATH_MAX_];
	const cJSON *v;
	int q;

	wl->queue = -1;
	sim_json_path_key(sub, sizeof sub, path, "queue");
	if (!(v = get(e, "queue")))
		err(c, sub, "expected a queue name (required), got nothing");
	else if ((q = find_node(c, v, sub, 1)) >= 0)
		wl->queue = q;
	sim_json_path_key(sub, sizeof sub, path, "priority");
	if ((v = get(e, "priority")))
		want_int32(c, v, sub, &wl->priority);
	sim_json_path_key(sub, sizeof sub, path, "request");
	read_request(c, get(e, "request"), sub, wl);
	wl->created = SIM_TIME_NONE; /* absent or null: before every other time */
	sim_json_path_key(sub, sizeof sub, path, "created_at");
	if ((v = get(e, "created_at")))
		want_time(c, v, sub, 1, &wl->created);
	wl->admitted = SIM_TIME_NONE;
	wl->last_ckpt = SIM_TIME_NONE;
	wl->preemptible = 1;
	for (int r = 0; r < SIM_MAX_RES; r++)
		wl->flavor[r] = -1;
}

static void read_running(struct ctx *c, const cJSON *e, const char *path, struct kq_wl *wl)
{
	char sub[PATH_MAX_];
	const cJSON *v;
	int b;

	check_keys(c, e, path, running_keys);
	read_job_common(c, e, path, wl);
	sim_json_path_key(sub, sizeof sub, path, "flavor");
	read_flavor_map(c, get(e, "flavor"), sub, wl, wl->flavor);
	sim_json_path_key(sub, sizeof sub, path, "admitted_at");
	if (!(v = get(e, "admitted_at")))
		err(c, sub, "expected seconds >= 0 (required), got nothing");
	else
		want_time(c, v, sub, 0, &wl->admitted);
	wl->last_ckpt = wl->admitted;
	sim_json_path_key(sub, sizeof sub, path, "last_checkpoint_at");
	if ((v = get(e, "last_checkpoint_at")))
		want_time(c, v, sub, 0, &wl->last_ckpt);
	sim_json_path_key(sub, sizeof sub, path, "evicted");
	if ((v = get(e, "evicted")) && want_bool(c, v, sub, &b) == 0)
		wl->evicted = (uint8_t)b;
	sim_json_path_key(sub, sizeof sub, path, "preemptible");
	if ((v = get(e, "preemptible")) && want_bool(c, v, sub, &b) == 0)
		wl->preemptible = (uint8_t)b;
}

static void read_pending(struct ctx *c, const cJSON *e, const char *path, struct kq_wl *wl)
{
	check_keys(c, e, path, pending_keys);
	read_job_common(c, e, path, wl);
}

static void read_incoming(struct ctx *c, const cJSON *e, const char *path, struct kq_wl *wl)
{
	char sub[PATH_MAX_], mpath[PATH_MAX_];
	const cJSON *a;
	int m;

	check_keys(c, e, path, incoming_keys);
	read_job_common(c, e, path, wl);
	for (int r = 0; r < SIM_MAX_RES; r++)
		c->s->inc_flavor[r] = -1;
	sim_json_path_key(sub, sizeof sub, path, "assignment");
	a = get(e, "assignment");
	if (!a || cJSON_IsNull(a))
		return;
	if (want_object(c, a, sub, "{\"flavor\": {RESOURCE: FLAVOR}, \"mode\": \"Fit\"|\"Preempt\"}"))
		return;
	check_keys(c, a, sub, assignment_keys);
	sim_json_path_key(mpath, sizeof mpath, sub, "flavor");
	read_flavor_map(c, get(a, "flavor"), mpath, wl, c->s->inc_flavor);
	sim_json_path_key(mpath, sizeof mpath, sub, "mode");
	m = want_enum(c, get(a, "mode"), mpath, mode_names);
	c->s->inc_mode = m == 1 ? KQ_PREEMPT : KQ_FIT;
	c->s->inc_fixed = 1;
}

/* The job entries of the file, in the order they are stored in s->jobs. */
struct job_src {
	const cJSON *e;
	char path[64];
	int kind; /* 0 running, 1 pending, 2 incoming */
};

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Collects the job entries of $.running and $.pending (or $.incoming). */
static struct job_src *collect_jobs(struct ctx *c, const cJSON *root, size_t *n_out)
{
	const cJSON *run = get(root, "running"), *pend = get(root, "pending"), *inc = get(root, "incoming");
	struct job_src *src;
	size_t n = 0, cap, i;
	char got[96];

	*n_out = 0;
	if (pend && inc && !cJSON_IsNull(pend) && !cJSON_IsNull(inc)) {
		err(c, "$.incoming", "expected either $.pending or $.incoming, got both");
		inc = NULL;
	}
	if (inc && cJSON_IsNull(inc))
		inc = NULL;
	if (inc && cJSON_IsArray(inc) && cJSON_GetArraySize(inc) == 1)
		inc = inc->child; /* a list of one job is the job */
	if (run && !cJSON_IsNull(run) && !cJSON_IsArray(run)) {
		sim_json_describe(run, got, sizeof got);
		err(c, "$.running", "expected a list of running jobs, got %s", got);
		run = NULL;
	}
	if (pend && !cJSON_IsNull(pend) && !cJSON_IsArray(pend)) {
		sim_json_describe(pend, got, sizeof got);
		err(c, "$.pending", "expected a list of pending jobs, got %s", got);
		pend = NULL;
	}
	cap = (size_t)cJSON_GetArraySize(run) + (size_t)cJSON_GetArraySize(pend) + 2;
	src = calloc(cap, sizeof *src);
	if (!src) {
		c->nomem = 1;
		return NULL;
	}
	i = 0;
	for (const cJSON *e = cJSON_IsArray(run) ? run->child : NULL; e; e = e->next, i++) {
		src[n].e = e;
		src[n].kind = 0;
		sim_json_path_idx(src[n++].path, sizeof src->path, "$.running", i);
	}
	i = 0;
	for (const cJSON *e = cJSON_IsArray(pend) ? pend->child : NULL; e; e = e->next, i++) {
		src[n].e = e;
		src[n].kind = 1;
		sim_json_path_idx(src[n++].path, sizeof src->path, "$.pending", i);
	}
	if (inc) {
		src[n].e = inc;
		src[n].kind = 2;
		snprintf(src[n++].path, sizeof src->path, "%s",
			 cJSON_IsArray(get(root, "incoming")) ? "$.incoming[0]" : "$.incoming");
	}
	*n_out = n;
	return src;
}

static const char *job_shape(int kind)
{
	return kind == 0 ? "{\"id\", \"queue\", \"priority\", \"flavor\", \"request\", \"admitted_at\", ...}"
			 : "{\"id\", \"queue\", \"priority\", \"request\", \"created_at\"}";
}

static void read_jobs(struct ctx *c, const cJSON *root)
{
	struct scn *s = c->s;
	struct job_src *src;
	const char **sorted = NULL;
	char sub[PATH_MAX_];
	size_t n;

	src = collect_jobs(c, root, &n);
	if (!src)
		return;
	s->jobs = calloc(n ? n : 1, sizeof *s->jobs);
	s->names = calloc(n ? n : 1, sizeof *s->names);
	sorted = calloc(n ? n : 1, sizeof *sorted);
	if (!s->jobs || !s->names || !sorted) {
		c->nomem = 1;
		goto out_free;
	}
	for (size_t i = 0; i < n; i++) {
		struct kq_wl *wl = &s->jobs[i];
		const char *id;

		if (src[i].kind == 0)
			s->n_running++;
		else
			s->n_pending++;
		s->incoming |= src[i].kind == 2;
		if (want_object(c, src[i].e, src[i].path, job_shape(src[i].kind)))
			continue;
		sim_json_path_key(sub, sizeof sub, src[i].path, "id");
		id = want_id(c, get(src[i].e, "id"), sub);
		/* O(n^2) over the jobs: scenario files are written by hand (tens of jobs) */
		for (size_t k = 0; id && k < i; k++)
			if (s->names[k] && strcmp(s->names[k], id) == 0) {
				err(c, sub, "duplicate job id \"%s\" (also %s.id); expected unique ids", id,
				    src[k].path);
				break;
			}
		if (!(s->names[i] = xstrdup(id ? id : ""))) {
			c->nomem = 1;
			goto out_free;
		}
		wl->name = s->names[i];
		if (src[i].kind == 0)
			read_running(c, src[i].e, src[i].path, wl);
		else if (src[i].kind == 1)
			read_pending(c, src[i].e, src[i].path, wl);
		else
			read_incoming(c, src[i].e, src[i].path, wl);
	}
	if (c->errors)
		goto out_free; /* some names are missing: no ranks needed */
	/* tie = rank of the id in strcmp order over every job of the file */
	for (size_t i = 0; i < n; i++)
		sorted[i] = s->names[i] ? s->names[i] : "";
	qsort(sorted, n, sizeof *sorted, cmp_str_ptr);
	for (size_t i = 0; i < n; i++) {
		const char **hit = bsearch(&s->jobs[i].name, sorted, n, sizeof *sorted, cmp_str_ptr);
		s->jobs[i].tie = hit ? (uint64_t)(hit - sorted) : 0;
	}
out_free:
	free(sorted);
	free(src);
}

/* ---- top-level knobs -------------------------------------------------------- */

static const char *const fair_keys[] = { "strategies", NULL };
static const char *const strategy_names[] = { "LessThanOrEqualToFinalShare", "LessThanInitialShare", NULL };
/* Feature gates a scenario may set, and how each is modelled: honoured (both
 * values select a behaviour), or only at the value the core implements (the
 * other is refused: the decision would be silently wrong). */
enum gate_model { GATE_HONOURED, GATE_ONLY_TRUE };
struct gate {
	const char *name;
	enum gate_model model;
};
static const struct gate gates[] = {
	{ "RecomputeAssignmentUponPreemptionTargetsOverlap", GATE_HONOURED },
	{ "FairSharingPreemptWithinNominal", GATE_ONLY_TRUE },
	{ "PrioritySortingWithinCohort", GATE_ONLY_TRUE },
};
#define N_GATES (sizeof gates / sizeof gates[0])

static void read_fair_sharing(struct ctx *c, const cJSON *fs)
{
	struct kq_sched *kq = c->kq;
	char sub[PATH_MAX_], got[96];
	const cJSON *st;
	size_t i = 0;
	int seen[2] = { 0, 0 };

	if (!fs || cJSON_IsNull(fs))
		return;
	if (want_object(c, fs, "$.fair_sharing", "{\"strategies\": [...]} or null"))
		return;
	check_keys(c, fs, "$.fair_sharing", fair_keys);
	kq->fair = 1;
	st = get(fs, "strategies");
	if (!st) { /* Kueue's default order */
		kq->fair_le_final = kq->fair_lt_initial = 1;
		return;
	}
	if (!cJSON_IsArray(st) || !st->child) {
		sim_json_describe(st, got, sizeof got);
		err(c, "$.fair_sharing.strategies", "expected a non-empty list of strategy names, got %s",
		    got);
		return;
	}
	for (const cJSON *e = st->child; e; e = e->next, i++) {
		sim_json_path_idx(sub, sizeof sub, "$.fair_sharing.strategies", i);
		int k = want_enum(c, e, sub, strategy_names);
		if (k < 0)
			continue;
		if (seen[k])
			err(c, sub, "strategy \"%s\" listed twice; expected each once", strategy_names[k]);
		seen[k] = 1;
		if (i == 0)
			kq->fair_first_is_initial = k == 1;
	}
	kq->fair_le_final = seen[0];
	kq->fair_lt_initial = seen[1];
}

static const struct gate *find_gate(const char *name)
{
	for (size_t k = 0; k < N_GATES; k++)
		if (strcmp(gates[k].name, name) == 0)
			return &gates[k];
	return NULL;
}

/* Applies an honoured gate's value to the core. */
static void apply_gate(struct ctx *c, const struct gate *g, int on)
{
	if (strcmp(g->name, "RecomputeAssignmentUponPreemptionTargetsOverlap") == 0)
		c->kq->overlap_skips = !on;
}

/* experiments/scenarios/README.md lists each gate's behaviour. A gate the core
 * does not model (FlavorFungibilityPreserveScanProgress among them), or a value
 * of a GATE_ONLY_TRUE gate other than true, is a located error. */
static void read_gates(struct ctx *c, const cJSON *g)
{
	char sub[PATH_MAX_];
	int b;

	if (!g)
		return;
	if (want_object(c, g, "$.feature_gates", "{GATE: true|false}"))
		return;
	for (const cJSON *e = g->child; e; e = e->next) {
		sim_json_path_key(sub, sizeof sub, "$.feature_gates", e->string);
		const struct gate *gate = find_gate(e->string);
		if (!gate) {
			err(c, sub, "feature gate %s is not modelled; expected one of %s, %s, %s", e->string,
			    gates[0].name, gates[1].name, gates[2].name);
			continue;
		}
		if (want_bool(c, e, sub, &b))
			continue;
		if (gate->model == GATE_ONLY_TRUE && !b)
			err(c, sub, "feature gate %s=false is not modelled; expected true (its default)",
			    gate->name);
		else
			apply_gate(c, gate, b);
	}
}

static void read_top(struct ctx *c, const cJSON *root)
{
	const cJSON *v = get(root, "id");
	char got[96];

	if (v && !cJSON_IsNull(v)) {
		if (!cJSON_IsString(v)) {
			sim_json_describe(v, got, sizeof got);
			err(c, "$.id", "expected a string, got %s", got);
		} else if (!(c->s->id = xstrdup(v->valuestring))) {
			c->nomem = 1;
		}
	}
	v = get(root, "description");
	if (v && !cJSON_IsString(v)) {
		sim_json_describe(v, got, sizeof got);
		err(c, "$.description", "expected a string, got %s", got);
	}
	read_fair_sharing(c, get(root, "fair_sharing"));
	read_gates(c, get(root, "feature_gates"));
}

/* ---- syntax errors ---------------------------------------------------------- */

/* FILE:LINE:COL for a cJSON parse failure at byte `pos`. cJSON often stops one token
 * late, past blanks: step back to the last non-blank character then. */
static void syntax_error(const char *file, const char *text, size_t len, size_t pos, struct sim_diag *diag)
{
	char where[PATH_MAX_ + 64], near[32];
	size_t line = 1, col = 1, o = 0;

	if (pos > len)
		pos = len;
	if (pos == len || strchr(" \t\r\n", text[pos])) {
		size_t p = pos;
		while (p > 0 && strchr(" \t\r\n", text[p - 1]))
			p--;
		if (p > 0)
			pos = p - 1;
	}
	for (size_t i = 0; i < pos; i++) {
		if (text[i] == '\n') {
			line++;
			col = 1;
		} else if (((unsigned char)text[i] & 0xC0) != 0x80) {
			col++;
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

static cJSON *parse_json(const char *path, const char *text, size_t len, struct sim_diag *diag, int *rc)
{
	const char *end = NULL;
	size_t skip = 0;
	char *buf;
	cJSON *root;

	*rc = 0;
	if (memchr(text, 0, len)) {
		syntax_error(path, text, len, (size_t)((const char *)memchr(text, 0, len) - text), diag);
		*rc = -SIM_EPARSE;
		return NULL;
	}
	/* cJSON needs the terminating NUL inside the length it is given. */
	buf = malloc(len + 1);
	if (!buf) {
		*rc = -SIM_ENOMEM;
		return NULL;
	}
	memcpy(buf, text, len);
	buf[len] = 0;
	if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
		skip = 3; /* a UTF-8 byte-order mark */
	root = cJSON_ParseWithLengthOpts(buf + skip, len - skip + 1, &end, 1);
	if (!root) {
		if (end) {
			syntax_error(path, buf, len, (size_t)(end - buf), diag);
			*rc = -SIM_EPARSE;
		} else {
			*rc = -SIM_ENOMEM;
		}
	}
	free(buf);
	return root;
}

/* ---- public: loading -------------------------------------------------------- */

void scn_destroy(struct scn *s)
{
	if (!s)
		return;
	kq_destroy(s->kq);
	for (size_t i = 0; s->names && i < s->n_running + s->n_pending; i++)
		free(s->names[i]);
	free(s->names);
	free(s->jobs);
	free(s->id);
	free(s->path);
	free(s);
}

/* kq_finalize's own messages ("NAME: ...") named after the file. */
static int finalize(struct ctx *c)
{
	struct sim_diag d;
	int rc;

	sim_diag_init(&d, 20);
	rc = kq_finalize(c->kq, &d);
	size_t kept = d.count < d.limit ? d.count : d.limit;
	for (size_t i = 0; rc && i < kept; i++)
		sim_diag_add(c->diag, c->file, "%s", d.lines[i]);
	if (rc && !kept)
		sim_diag_add(c->diag, c->file, "%s", sim_strerror(rc));
	sim_diag_fini(&d);
	return rc;
}

static int build(struct ctx *c, const cJSON *root)
{
	struct scn *s = c->s;
	const cJSON *now;
	char got[96];

	if (!cJSON_IsObject(root)) {
		sim_json_describe(root, got, sizeof got);
		err(c, "$", "expected an object {\"resources\", \"flavors\", \"queues\", ...}, got %s", got);
		return -SIM_EPARSE;
	}
	sim_json_duplicate_keys(root, "$", report_dup, c);
	check_keys(c, root, "$", top_keys);
	if (read_res_flavors(c, root) < 0)
		return c->nomem ? -SIM_ENOMEM : -SIM_EPARSE;
	if (!get(root, "queues"))
		err(c, "$.queues", "expected a list of queue objects (required), got nothing");
	if (read_tree(c, root))
		return -SIM_ENOMEM;
	c->latest = SIM_TIME_NONE; /* queue durations (min_runtime_s) are not times of the file */
	read_top(c, root);
	read_jobs(c, root);
	if (c->nomem)
		return -SIM_ENOMEM;

	now = get(root, "now");
	s->now = c->latest == SIM_TIME_NONE ? 0 : c->latest;
	if (now && !cJSON_IsNull(now))
		want_time(c, now, "$.now", 0, &s->now);
	if (c->errors)
		return -SIM_EPARSE;

	int rc = finalize(c);
	if (rc)
		return rc;
	for (size_t i = 0; i < s->n_running; i++)
		if ((rc = kq_add_running(c->kq, &s->jobs[i])))
			return rc;
	return 0;
}

int scn_parse(const char *path, const char *text, size_t len, struct scn **out, struct sim_diag *diag)
{
	struct ctx c = { .file = path,
			 .diag = diag,
			 .latest = SIM_TIME_NONE,
			 .root = "$",
			 .flavor_src = "$.flavors",
			 .res_src = "$.resources" };
	cJSON *root;
	int rc;

	*out = NULL;
	c.s = calloc(1, sizeof *c.s);
	if (!c.s)
		return -SIM_ENOMEM;
	if (!(c.s->path = xstrdup(path))) {
		rc = -SIM_ENOMEM;
		goto out_destroy;
	}
	root = parse_json(path, text, len, diag, &rc);
	if (!root)
		goto out_destroy;
	rc = build(&c, root);
	cJSON_Delete(root);
	free(c.cohort_node);
	free(c.queue_node);
	if (rc == 0) {
		*out = c.s;
		return 0;
	}
out_destroy:
	scn_destroy(c.s);
	return rc;
}

int scn_read_quota_tree(const char *file, const char *json_path, const cJSON *tree, int n_res,
			const char (*res_names)[SIM_NAME_MAX], int n_flavors,
			const char (*flavor_names)[SIM_NAME_MAX], const char *const *extra_queue_keys,
			struct kq_sched **out, struct sim_diag *diag)
{
	struct scn holder; /* read_tree needs only holder.kq */
	struct ctx c = { .file = file,
			 .diag = diag,
			 .latest = SIM_TIME_NONE,
			 .root = json_path,
			 .flavor_src = "the cluster's flavors",
			 .res_src = "the cluster's resources",
			 .extra_queue_keys = extra_queue_keys };
	int rc = 0;

	*out = NULL;
	memset(&holder, 0, sizeof holder);
	c.s = &holder;
	c.kq = holder.kq = kq_create(n_res, res_names, n_flavors, flavor_names);
	if (!c.kq)
		return -SIM_ENOMEM;
	if (!cJSON_IsObject(tree)) {
		err(&c, json_path, "expected an object {\"cohorts\": [...], \"queues\": [...]}");
	} else {
		sim_json_duplicate_keys(tree, json_path, report_dup, &c);
		rc = read_tree(&c, tree);
	}
	free(c.cohort_node);
	free(c.queue_node);
	if (!rc && c.errors)
		rc = -SIM_EPARSE;
	if (!rc)
		rc = finalize(&c);
	if (rc) {
		kq_destroy(c.kq);
		return rc;
	}
	*out = c.kq;
	return 0;
}

/* A YAML scenario (docs/yaml.md) is read as the JSON text of its one document; the
 * reader's "FILE: $.path" errors then get the YAML line and column of the path. */
static int parse_yaml(const char *path, const char *text, size_t len, struct scn **out, struct sim_diag *diag)
{
	struct sim_srcmap map = { 0 };
	char *json;
	int rc = sim_yaml_to_json(path, text, len, "the scenario", &json, &map, diag);
	if (rc)
		return rc;
	size_t before = diag->count;
	rc = scn_parse(path, json, strlen(json), out, diag);
	if (diag->count > before)
		sim_srcmap_locate_diag(&map, path, diag);
	cJSON_free(json);
	sim_srcmap_fini(&map);
	return rc;
}

int scn_load(const char *path, struct scn **out, struct sim_diag *diag)
{
	char *buf;
	size_t len;
	*out = NULL;
	int rc = sim_read_file(path, &buf, &len, diag);
	if (rc)
		return rc;
	rc = sim_yaml_is_path(path) ? parse_yaml(path, buf, len, out, diag) : scn_parse(path, buf, len, out, diag);
	free(buf);
	return rc;
}

/* ---- public: deciding --------------------------------------------------------- */

/* Queue order of two pending jobs: priority desc, created_at asc, then id. */
static int before(const struct kq_wl *a, const struct kq_wl *b)
{
	if (a->priority != b->priority)
		return a->priority > b->priority;
	if (a->created != b->created)
		return a->created < b->created;
	return strcmp(a->name, b->name) < 0;
}

static int add_waiting(struct kq_decision *d, struct kq_wl *wl, enum kq_wait why)
{
	if (d->waiting.n == d->waiting.cap) {
		size_t nc = d->waiting.cap ? 2 * d->waiting.cap : 16;
		struct kq_waiting *v = realloc(d->waiting.v, nc * sizeof *v);
		if (!v)
			return -SIM_ENOMEM;
		d->waiting.v = v;
		d->waiting.cap = nc;
	}
	d->waiting.v[d->waiting.n].wl = wl;
	d->waiting.v[d->waiting.n++].why = why;
	return 0;
}

static int decide_pending(struct scn *s, struct kq_decision *out)
{
	struct kq_wl *pend = s->jobs + s->n_running;
	struct kq_wl **head_of = calloc(s->kq->n_nodes + 1, sizeof *head_of);
	struct kq_wl **heads = calloc(s->kq->n_nodes + 1, sizeof *heads);
	size_t n_heads = 0;
	int rc = -SIM_ENOMEM;

	if (!head_of || !heads)
		goto out_free;
	for (size_t i = 0; i < s->n_pending; i++) {
		struct kq_wl **h = &head_of[pend[i].queue];
		if (!*h || before(&pend[i], *h))
			*h = &pend[i];
	}
	for (size_t q = 0; q < s->kq->n_nodes; q++)
		if (head_of[q])
			heads[n_heads++] = head_of[q];
	rc = kq_cycle(s->kq, heads, n_heads, s->now, NULL, NULL, out);
	for (size_t i = 0; !rc && i < s->n_pending; i++)
		if (head_of[pend[i].queue] != &pend[i])
			rc = add_waiting(out, &pend[i], KQ_W_NOT_HEAD);
out_free:
	free(head_of);
	free(heads);
	return rc;
}

int scn_decide(struct scn *s, struct kq_decision *out, struct kq_assign *inc)
{
	if (!s->incoming)
		return decide_pending(s, out);
	if (!inc)
		return -SIM_EINVAL;
	memset(inc, 0, sizeof *inc);
	kq_decision_reset(out);
	return kq_incoming(s->kq, &s->jobs[s->n_running], s->inc_fixed ? s->inc_flavor : NULL,
			   s->inc_fixed ? s->inc_mode : KQ_NOFIT, s->now, inc, out);
}

/* ---- public: JSON output ----------------------------------------------------- */

/* {RESOURCE: FLAVOR} for every requested resource that has a flavor. */
static cJSON *flavor_json(const struct kq_sched *kq, const struct kq_wl *wl, const int16_t *flavor)
{
	cJSON *o = cJSON_CreateObject();

	for (int r = 0; o && r < kq->n_res; r++)
		if (wl->req[r] > 0 && flavor[r] >= 0 && flavor[r] < kq->n_flavors &&
		    !cJSON_AddStringToObject(o, kq->res_names[r], kq->flavor_names[flavor[r]])) {
			cJSON_Delete(o);
			return NULL;
		}
	return o;
}

/* Adds an {"id", "flavor"} entry per assignment; 0 or -1 (no memory). */
static int assigns_json(const struct kq_sched *kq, cJSON *arr, const struct kq_assign *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		cJSON *e = cJSON_CreateObject(), *f = flavor_json(kq, v[i].wl, v[i].flavor);
		if (!e || !f || !cJSON_AddItemToArray(arr, e)) {
			cJSON_Delete(e);
			cJSON_Delete(f);
			return -1;
		}
		if (!cJSON_AddStringToObject(e, "id", v[i].wl->name) ||
		    !cJSON_AddItemToObject(e, "flavor", f)) {
			cJSON_Delete(f);
			return -1;
		}
	}
	return 0;
}

/* by: the preemptor to name when a victim does not say (the incoming form). */
static int victims_json(cJSON *arr, const struct kq_victim *v, size_t n, const struct kq_wl *by)
{
	for (size_t i = 0; i < n; i++) {
		const struct kq_wl *pre = v[i].by ? v[i].by : by;
		cJSON *e = cJSON_CreateObject();
		if (!e || !cJSON_AddItemToArray(arr, e)) {
			cJSON_Delete(e);
			return -1;
		}
		if (!cJSON_AddStringToObject(e, "id", v[i].wl->name) ||
		    !cJSON_AddStringToObject(e, "reason", kq_reason_name(v[i].reason)) ||
		    (pre && !cJSON_AddStringToObject(e, "preemptor", pre->name)))
			return -1;
	}
	return 0;
}

static int waiting_json(cJSON *arr, const struct kq_waiting *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		cJSON *e = cJSON_CreateObject();
		if (!e || !cJSON_AddItemToArray(arr, e)) {
			cJSON_Delete(e);
			return -1;
		}
		if (!cJSON_AddStringToObject(e, "id", v[i].wl->name) ||
		    !cJSON_AddStringToObject(e, "reason", kq_wait_text(v[i].why)))
			return -1;
	}
	return 0;
}

static cJSON *incoming_json(const struct scn *s, const struct kq_decision *d, const struct kq_assign *a)
{
	const struct kq_wl *wl = &s->jobs[s->n_running];
	cJSON *o = cJSON_CreateObject(), *f, *v;
	const char *mode = a->mode == KQ_FIT ? "Fit" : a->mode == KQ_NOFIT ? "NoFit" : "Preempt";

	if (!o || !cJSON_AddStringToObject(o, "id", wl->name) || !cJSON_AddStringToObject(o, "mode", mode))
		goto out_fail;
	f = a->mode == KQ_NOFIT ? cJSON_CreateObject() : flavor_json(s->kq, wl, a->flavor);
	if (!f || !cJSON_AddItemToObject(o, "flavor", f)) {
		cJSON_Delete(f);
		goto out_fail;
	}
	if (!(v = cJSON_AddArrayToObject(o, "victims")) || victims_json(v, d->victims.v, d->victims.n, wl))
		goto out_fail;
	return o;
out_fail:
	cJSON_Delete(o);
	return NULL;
}

cJSON *scn_outcome_json(const struct scn *s, const struct kq_decision *d, const struct kq_assign *inc)
{
	cJSON *o, *a;

	if (s->incoming)
		return inc ? incoming_json(s, d, inc) : NULL;
	o = cJSON_CreateObject();
	if (!o)
		return NULL;
	if (!(a = cJSON_AddArrayToObject(o, "admitted")) ||
	    assigns_json(s->kq, a, d->admitted.v, d->admitted.n) ||
	    !(a = cJSON_AddArrayToObject(o, "preempting")) ||
	    assigns_json(s->kq, a, d->preempting.v, d->preempting.n) ||
	    !(a = cJSON_AddArrayToObject(o, "victims")) ||
	    victims_json(a, d->victims.v, d->victims.n, NULL) ||
	    !(a = cJSON_AddArrayToObject(o, "deferred")) ||
	    assigns_json(s->kq, a, d->deferred.v, d->deferred.n) ||
	    !(a = cJSON_AddArrayToObject(o, "left_waiting")) || waiting_json(a, d->waiting.v, d->waiting.n)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}
