/* experiments/cfgimport_kueue.c: Kueue manifests into the `cohort` quota section
 * (the mapping is docs/config-import.md, "Kueue").
 *
 * One pass over every document in file order builds the output arrays; cohorts a
 * ClusterQueue or Cohort names without a Cohort object are added at the end (Kueue
 * creates them implicitly; our quota tree wants every cohort listed). */
#include <stdlib.h>
#include <string.h>

#include "../policies/kq.h"
#include "cfgimport.h"

#define NAME_MAX_ 63     /* the simulator's names: 1 to 63 of [A-Za-z0-9_.-] */
#define MAX_RESOURCES 6  /* as a scenario's $.resources */

struct res_map {
	char kueue[254]; /* a Kubernetes resource name: up to 253 characters */
	char ours[64];
	int memory;      /* quantities of bytes, written as GiB (counts_bytes) */
};

struct kueue_ctx {
	struct cfgimp *im;
	cJSON *cohorts, *queues;           /* the output arrays (owned by the result) */
	cJSON *referenced;                 /* cohort names some object names: [name, ...] */
	cJSON *flavors_declared, *flavors_used; /* ResourceFlavor names; names quotas use */
	struct res_map res[MAX_RESOURCES];
	int n_res;
	size_t n_local_queues;
	char local_example[300];
	cJSON *priorities;                 /* "name=value" strings */
	struct local_ref {                 /* a LocalQueue's ClusterQueue, checked at the end */
		const struct cfgimp_file *f;
		const cJSON *node;
	} *local_refs;
	size_t n_local_refs, cap_local_refs;
	struct parent_ref {                /* a Cohort's parentName, checked for cycles at the end */
		const struct cfgimp_file *f;
		const cJSON *node;
		const char *child;             /* the Cohort's name (in the output tree) */
	} *parent_refs;
	size_t n_parent_refs, cap_parent_refs;
	int fair_weights;                  /* some object sets fairSharing.weight */
	/* name -> object of the arrays above, for lookups in O(1) */
	struct cfgimp_index queue_idx, cohort_idx, referenced_idx, declared_idx, used_idx, priority_idx;
	int bad;                           /* errors so far */
};

static const cJSON *get(const cJSON *o, const char *k)
{
	return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL;
}

static const char *str_of(const cJSON *o, const char *k)
{
	const cJSON *v = get(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A short list of strings (a group's coveredResources) holds s. */
static int in_list(const cJSON *list, const char *s)
{
	for (const cJSON *c = list->child; c; c = c->next)
		if (cJSON_IsString(c) && strcmp(c->valuestring, s) == 0)
			return 1;
	return 0;
}

/* Appends s to list unless idx (the list's index) has it already. */
static void add_unique(struct kueue_ctx *k, cJSON *list, struct cfgimp_index *idx, const char *s)
{
	if (cfgimp_index_get(idx, s))
		return;
	cJSON *item = cJSON_CreateString(s);
	if (!item || !cJSON_AddItemToArray(list, item) || cfgimp_index_put(idx, item->valuestring, item) < 0)
		k->im->nomem = 1;
}

/* Appends obj (named name) to an output array and its index. */
static void add_named(struct kueue_ctx *k, cJSON *arr, struct cfgimp_index *idx, cJSON *obj, const char *name)
{
	cJSON *nm = cJSON_CreateString(name);
	if (!nm || !cJSON_AddItemToObject(obj, "name", nm) || !cJSON_AddItemToArray(arr, obj) ||
	    cfgimp_index_put(idx, nm->valuestring, obj) < 0)
		k->im->nomem = 1;
}

/* A queue or cohort of that name exists already. */
static int name_taken(const struct kueue_ctx *k, const char *name)
{
	return cfgimp_index_get(&k->queue_idx, name) || cfgimp_index_get(&k->cohort_idx, name);
}

static int name_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > NAME_MAX_)
		return 0;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == n;
}

/* A name-valued string at key of obj, checked against the simulator's names. */
static const char *want_name(struct kueue_ctx *k, const struct cfgimp_file *f, const cJSON *obj, const char *key,
			     const char *what)
{
	const cJSON *v = get(obj, key);
	if (!cJSON_IsString(v)) {
		k->bad++;
		cfgimp_error(k->im, f, v ? v : obj, "%s: expected a string %s", what, key);
		return NULL;
	}
	if (!name_ok(v->valuestring)) {
		k->bad++;
		cfgimp_error(k->im, f, v, "%s: expected a %s of 1 to 63 letters, digits, '_', '.' and '-' (the "
			     "simulator's names), got \"%s\"", what, key, v->valuestring);
		return NULL;
	}
	return v->valuestring;
}

/* One of the strings of `allowed` (NULL-terminated) at key, or dflt when absent. */
static const char *want_enum(struct kueue_ctx *k, const struct cfgimp_file *f, const cJSON *obj, const char *key,
			     const char *what, const char *const *allowed, const char *dflt)
{
	const cJSON *v = get(obj, key);
	if (!v)
		return dflt;
	for (int i = 0; cJSON_IsString(v) && allowed[i]; i++)
		if (strcmp(v->valuestring, allowed[i]) == 0)
			return allowed[i];
	char list[256];
	size_t o = 0;
	for (int i = 0; allowed[i]; i++)
		o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", i ? ", " : "", allowed[i]);
	k->bad++;
	cfgimp_error(k->im, f, v, "%s: expected %s one of %s", what, key, list);
	return NULL;
}

/* ---- resource names --------------------------------------------------------- */

/* Resources Kubernetes counts in bytes: memory, ephemeral-storage, hugepages-SIZE,
 * and by the same naming any NAME ending in .memory, -memory or _memory (DRA's
 * gpu.memory). Their quotas are written in GiB: bytes would pass the config's
 * largest quantity (10^9) at one GiB. */
static int counts_bytes(const char *kn)
{
	const char *base = strrchr(kn, '/') ? strrchr(kn, '/') + 1 : kn;
	size_t n = strlen(base);
	if (strcmp(base, "memory") == 0 || strcmp(base, "ephemeral-storage") == 0 || strncmp(base, "hugepages-", 10) == 0)
		return 1;
	return n > 7 && strcmp(base + n - 6, "memory") == 0 && strchr(".-_", base[n - 7]);
}

/* Our name for a Kubernetes resource name: nvidia.com/gpu is gpu; DOMAIN/NAME is
 * NAME; other characters than [A-Za-z0-9_] become '_' (a trace request spells
 * resources "gpu=8,cpu=4"). Two Kueue names that meet in one of ours are an error. */
static const struct res_map *map_resource(struct kueue_ctx *k, const struct cfgimp_file *f, const cJSON *v,
					  const char *what)
{
	if (!cJSON_IsString(v) || !v->valuestring[0] || strlen(v->valuestring) > 253) {
		k->bad++;
		cfgimp_error(k->im, f, v, "%s: expected a resource name such as nvidia.com/gpu, cpu or memory", what);
		return NULL;
	}
	const char *kn = v->valuestring;
	for (int i = 0; i < k->n_res; i++)
		if (strcmp(k->res[i].kueue, kn) == 0)
			return &k->res[i];
	struct res_map m = { .memory = counts_bytes(kn) };
	snprintf(m.kueue, sizeof m.kueue, "%s", kn);
	const char *slash = strrchr(kn, '/');
	snprintf(m.ours, sizeof m.ours, "%s", strcmp(kn, "nvidia.com/gpu") == 0 ? "gpu" : slash ? slash + 1 : kn);
	for (char *p = m.ours; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
			*p = '_';
	for (int i = 0; i < k->n_res; i++)
		if (strcmp(k->res[i].ours, m.ours) == 0) {
			k->bad++;
			cfgimp_error(k->im, f, v, "%s: resource %s would be named %s, as %s already is; expected "
				     "resource names that stay distinct without their domain", what, kn, m.ours,
				     k->res[i].kueue);
			return NULL;
		}
	if (k->n_res == MAX_RESOURCES) {
		k->bad++;
		cfgimp_error(k->im, f, v, "%s: expected at most %d distinct resources (the simulator's limit)", what,
			     MAX_RESOURCES);
		return NULL;
	}
	k->res[k->n_res] = m;
	return &k->res[k->n_res++];
}

/* ---- quotas ------------------------------------------------------------------- */

/* 1 when there is no cluster to check against, or it has the flavor. */
static int cluster_has_flavor(const struct cfgimp_cluster *c, const char *name)
{
	for (size_t i = 0; c && i < c->n_flavors; i++)
		if (strcmp(c->flavors[i].name, name) == 0)
			return 1;
	return !c;
}

/* A quantity at key of r (NULL when absent and optional) as a JSON number. */
static cJSON *quota_value(struct kueue_ctx *k, const struct cfgimp_file *f, const cJSON *r, const char *key,
			  const struct res_map *m, const char *what, int required, int *ok)
{
	const cJSON *v = get(r, key);
	if (!v) {
		if (required) {
			*ok = 0;
			k->bad++;
			cfgimp_error(k->im, f, r, "%s: expected %s (a quantity such as 9, 500m or 36Gi)", what, key);
		}
		return required ? NULL : cJSON_CreateNull();
	}
	sim_qty_t milli;
	int got = cfgimp_quantity(v, m->memory, &milli);
	if (got < 0) {
		*ok = 0;
		k->bad++;
		cfgimp_error(k->im, f, v, "%s: %s: expected a Kubernetes quantity >= 0 (9, 500m, 36Gi), at most 1e9 %s",
			     what, key, m->memory ? "GiB" : "units");
		return NULL;
	}
	if (got == 1)
		cfgimp_warn(k->im, f, v, "%s %s of %s rounded to %.3f %s (the simulator keeps 3 decimals)", what, key,
			    m->kueue, (double)milli / 1000.0, m->memory ? "GiB" : "units");
	return cfgimp_qty_json(milli);
}

/* One flavor's resources of a resource group into quota[flavor]. */
static void read_flavor_quota(struct kueue_ctx *k, const struct cfgimp_file *f, const cJSON *fl,
			      const cJSON *covered, cJSON *fq, const char *what)
{
	static const char *const keys[] = { "name", "resources", NULL };
	static const char *const rkeys[] = { "name", "nominalQuota", "borrowingLimit", "lendingLimit", NULL };
	k->bad += cfgimp_check_keys(k->im, f, fl, what, keys);
	const cJSON *rs = get(fl, "resources");
	if (!cJSON_IsArray(rs)) {
		k->bad++;
		cfgimp_error(k->im, f, rs ? rs : fl, "%s: expected a list resources", what);
		return;
	}
	for (const cJSON *r = rs->child; r; r = r->next) {
		if (!cJSON_IsObject(r)) {
			k->bad++;
			cfgimp_error(k->im, f, r, "%s: expected a resource object {name, nominalQuota}", what);
			continue;
		}
		k->bad += cfgimp_check_keys(k->im, f, r, what, rkeys);
		const cJSON *rn = get(r, "name");
		if (cJSON_IsString(rn) && !in_list(covered, rn->valuestring)) {
			k->bad++;
			cfgimp_error(k->im, f, rn, "%s: resource %s is not in the group's coveredResources", what,
				     rn->valuestring);
			continue;
		}
		const struct res_map *m = map_resource(k, f, rn, what);
		if (!m)
			continue;
		if (get(fq, m->ours)) {
			k->bad++;
			cfgimp_error(k->im, f, rn, "%s: resource %s listed twice", what, m->kueue);
			continue;
		}
		int ok = 1;
		cJSON *nom = quota_value(k, f, r, "nominalQuota", m, what, 1, &ok);
		cJSON *bl = quota_value(k, f, r, "borrowingLimit", m, what, 0, &ok);
		cJSON *ll = quota_value(k, f, r, "lendingLimit", m, what, 0, &ok);
		cJSON *e = cJSON_CreateObject();
		if (!ok || !e) {
			cJSON_Delete(nom), cJSON_Delete(bl), cJSON_Delete(ll), cJSON_Delete(e);
			continue;
		}
		cJSON_AddItemToObject(e, "nominal", nom);
		cJSON_AddItemToObject(e, "borrowing_limit", bl);
		cJSON_AddItemToObject(e, "lending_limit", ll);
		cJSON_AddItemToObject(fq, m->ours, e);
	}
}

/* spec.resourceGroups into quota (and, for a ClusterQueue, flavor_order). */
static void read_resource_groups(struct kueue_ctx *k, const struct cfgimp_file *f, const cJSON *groups,
				 const char *what, cJSON *quota, cJSON *order)
{
	static const char *const gkeys[] = { "coveredResources", "flavors", NULL };
	if (!groups)
		return;
	if (!cJSON_IsArray(groups) || (order && cJSON_GetArraySize(groups) > KQ_MAX_GROUPS)) {
		k->bad++;
		cfgimp_error(k->im, f, groups, "%s: expected resourceGroups, a list of at most %d groups", what,
			     KQ_MAX_GROUPS);
		return;
	}
	for (const cJSON *g = groups->child; g; g = g->next) {
		k->bad += cJSON_IsObject(g) ? cfgimp_check_keys(k->im, f, g, what, gkeys) : 0;
		const cJSON *cov = get(g, "coveredResources"), *fls = get(g, "flavors");
		if (!cJSON_IsArray(cov) || !cJSON_IsArray(fls) || cJSON_GetArraySize(fls) > KQ_MAX_GROUP_FLAVORS) {
			k->bad++;
			cfgimp_error(k->im, f, g, "%s: expected a resource group {coveredResources: [...], flavors: "
				     "[...]} of at most %d flavors", what, KQ_MAX_GROUP_FLAVORS);
			continue;
		}
		cJSON *entry = cJSON_CreateObject(), *res = cJSON_CreateArray(), *names = cJSON_CreateArray();
		cJSON_AddItemToObject(entry, "resources", res);
		cJSON_AddItemToObject(entry, "flavors", names);
		for (const cJSON *c = cov->child; c; c = c->next) {
			const struct res_map *m = map_resource(k, f, c, what);
			if (m)
				cJSON_AddItemToArray(res, cJSON_CreateString(m->ours));
		}
		for (const cJSON *fl = fls->child; fl; fl = fl->next) {
			const char *fname = want_name(k, f, fl, "name", what);
			if (!fname)
				continue;
			if (get(quota, fname)) {
				k->bad++;
				cfgimp_error(k->im, f, get(fl, "name"), "%s: flavor %s listed twice; expected each flavor "
					     "in one resource group once", what, fname);
				continue;
			}
			if (!cluster_has_flavor(k->im->cluster, fname)) {
				k->bad++;
				cfgimp_error(k->im, f, get(fl, "name"), "%s: flavor %s is not a flavor of the --cluster "
					     "config; expected one of its $.cluster.flavors", what, fname);
				continue;
			}
			cJSON *fq = cJSON_AddObjectToObject(quota, fname);
			read_flavor_quota(k, f, fl, cov, fq, what);
			add_unique(k, k->flavors_used, &k->used_idx, fname);
			cJSON_AddItemToArray(names, cJSON_CreateString(fname));
		}
		if (order)
			cJSON_AddItemToArray(order, entry);
		else
			cJSON_Delete(entry);
	}
}

/* spec.fairSharing: {weight: quantity} into fair_weight. */
static void read_fair_sharing(struct kueue_ctx *k, const struct cfgimp_file *f, const cJSON *fs, const char *what,
			      cJSON *out)
{
	static const char *const keys[] = { "weight", NULL };
	if (!fs)
		return;
	if (!cJSON_IsObject(fs)) {
		k->bad++;
		cfgimp_error(k->im, f, fs, "%s: expected fairSharing, an object {weight: quantity}", what);
		return;
	}
	k->bad += cfgimp_check_keys(k->im, f, fs, what, keys);
	const cJSON *w = get(fs, "weight");
	sim_qty_t milli;
	if (!w)
		return;
	if (cfgimp_quantity(w, 0, &milli) < 0) {
		k->bad++;
		cfgimp_error(k->im, f, w, "%s: expected fairSharing.weight a quantity >= 0 (1, 0.75, 500m)", what);
		return;
	}
	k->fair_weights = 1;
	cJSON_AddItemToObject(out, "fair_weight", cfgimp_qty_json(milli));
}

/* ---- ClusterQueue -------------------------------------------------------------- */

static void read_preemption(struct kueue_ctx *k, const struct cfgimp_file *f, const cJSON *p, const char *what,
			    cJSON *q)
{
	static const char *const keys[] = { "reclaimWithinCohort", "borrowWithinCohort", "withinClusterQueue", NULL };
	static const char *const bkeys[] = { "policy", "maxPriorityThreshold", NULL };
	static const char *const reclaim[] = { "Never", "LowerPriority", "Any", NULL };
	static const char *const within[] = { "Never", "LowerPriority", "LowerOrNewerEqualPriority", NULL };
	static const char *const bwc[] = { "Never", "LowerPriority", NULL };
	if (p && !cJSON_IsObject(p)) {
		k->bad++;
		cfgimp_error(k->im, f, p, "%s: expected preemption, an object", what);
		return;
	}
	if (p)
		k->bad += cfgimp_check_keys(k->im, f, p, what, keys);
	/* Kueue's API defaults are written out: the simulator's preemption policies
	 * default to preempting, and a queue's own values override them. */
	const char *w = want_enum(k, f, p, "withinClusterQueue", what, within, "Never");
	const char *r = want_enum(k, f, p, "reclaimWithinCohort", what, reclaim, "Never");
	cJSON_AddStringToObject(q, "within_queue", w ? w : "Never");
	cJSON_AddStringToObject(q, "reclaim_within_cohort", r ? r : "Never");
	const cJSON *b = get(p, "borrowWithinCohort");
	if (b && !cJSON_IsObject(b)) {
		k->bad++;
		cfgimp_error(k->im, f, b, "%s: expected borrowWithinCohort, an object {policy, maxPriorityThreshold}",
			     what);
		b = NULL;
	}
	if (b)
		k->bad += cfgimp_check_keys(k->im, f, b, what, bkeys);
	const char *bp = want_enum(k, f, b, "policy", what, bwc, "Never");
	if (!b || !bp || strcmp(bp, "Never") == 0) {
		cJSON_AddNullToObject(q, "borrow_within_cohort");
		return;
	}
	cJSON *o = cJSON_AddObjectToObject(q, "borrow_within_cohort");
	cJSON_AddStringToObject(o, "policy", bp);
	const cJSON *t = get(b, "maxPriorityThreshold");
	if (t && (!cJSON_IsNumber(t) || t->valuedouble != (double)(int32_t)t->valuedouble)) {
		k->bad++;
		cfgimp_error(k->im, f, t, "%s: expected maxPriorityThreshold a 32-bit integer", what);
		t = NULL;
	}
	if (t)
		cJSON_AddNumberToObject(o, "max_priority_threshold", t->valuedouble);
	else
		cJSON_AddNullToObject(o, "max_priority_threshold");
}

static void read_fungibility(struct kueue_ctx *k, const struct cfgimp_file *f, const cJSON *fg, const char *what,
			     cJSON *q)
{
	static const char *const keys[] = { "whenCanBorrow", "whenCanPreempt", "preference", NULL };
	static const char *const borrow[] = { "Borrow", "MayStopSearch", "TryNextFlavor", NULL };
	static const char *const preempt[] = { "Preempt", "MayStopSearch", "TryNextFlavor", NULL };
	static const char *const pref[] = { "BorrowingOverPreemption", "PreemptionOverBorrowing", NULL };
	if (!fg)
		return;
	if (!cJSON_IsObject(fg)) {
		k->bad++;
		cfgimp_error(k->im, f, fg, "%s: expected flavorFungibility, an object", what);
		return;
	}
	k->bad += cfgimp_check_keys(k->im, f, fg, what, keys);
	cJSON *o = cJSON_AddObjectToObject(q, "flavor_fungibility");
	const char *b = want_enum(k, f, fg, "whenCanBorrow", what, borrow, NULL);
	const char *p = want_enum(k, f, fg, "whenCanPreempt", what, preempt, NULL);
	const char *r = want_enum(k, f, fg, "preference", what, pref, NULL);
	/* v1beta1's Borrow and Preempt are v1beta2's MayStopSearch */
	if (b)
		cJSON_AddStringToObject(o, "when_can_borrow", strcmp(b, "TryNextFlavor") ? "MayStopSearch" : b);
	if (p)
		cJSON_AddStringToObject(o, "when_can_preempt", strcmp(p, "TryNextFlavor") ? "MayStopSearch" : p);
	if (r)
		cJSON_AddStringToObject(o, "preference", r);
}

/* The keys of a ClusterQueue spec that the simulator does not model: a warning each. */
static void warn_unmodelled_cq(struct kueue_ctx *k, const struct cfgimp_file *f, const cJSON *spec)
{
	const cJSON *v;
	if ((v = get(spec, "namespaceSelector")) && !(cJSON_IsObject(v) && !v->child))
		cfgimp_warn(k->im, f, v, "ClusterQueue namespaceSelector is not modelled: a job is in the queue "
			    "its trace row names");
	if ((v = get(spec, "admissionChecks")))
		cfgimp_warn(k->im, f, v, "ClusterQueue admissionChecks are not modelled: jobs are admitted on "
			    "quota alone");
	if ((v = get(spec, "admissionChecksStrategy")))
		cfgimp_warn(k->im, f, v, "ClusterQueue admissionChecksStrategy (admission checks, e.g. "
			    "ProvisioningRequest or MultiKueue) is not modelled: jobs are admitted on quota alone");
	if ((v = get(spec, "admissionScope")))
		cfgimp_warn(k->im, f, v, "ClusterQueue admissionScope (admission fair sharing) is not modelled");
	if ((v = get(spec, "concurrentAdmissionPolicy")))
		cfgimp_warn(k->im, f, v, "ClusterQueue concurrentAdmissionPolicy is not modelled");
	if ((v = get(spec, "stopPolicy")) && !(cJSON_IsString(v) && strcmp(v->valuestring, "None") == 0))
		cfgimp_warn(k->im, f, v, "ClusterQueue stopPolicy other than None is not modelled: the queue "
			    "admits as with None");
}

static void read_cluster_queue(struct kueue_ctx *k, const struct cfgimp_file *f, const cJSON *doc,
			       const char *name)
{
	static const char *const keys[] = { "resourceGroups", "cohort", "cohortName", "queueingStrategy",
					    "namespaceSelector", "flavorFungibility", "preemption",
					    "admissionChecks", "admissionChecksStrategy", "stopPolicy",
					    "fairSharing", "admissionScope", "concurrentAdmissionPolicy", NULL };
	static const char *const strategies[] = { "BestEffortFIFO", "StrictFIFO", NULL };
	char what[128];
	snprintf(what, sizeof what, "ClusterQueue %s", name);
	const cJSON *spec = get(doc, "spec");
	if (spec && !cJSON_IsObject(spec)) {
		k->bad++;
		cfgimp_error(k->im, f, spec, "%s: expected spec, an object", what);
		return;
	}
	if (name_taken(k, name)) {
		k->bad++;
		cfgimp_error(k->im, f, get(get(doc, "metadata"), "name"), "%s: the name is taken by an earlier "
			     "ClusterQueue or Cohort; expected distinct names (queues and cohorts share one namespace "
			     "in the simulator)", what);
		return;
	}
	if (spec)
		k->bad += cfgimp_check_keys(k->im, f, spec, what, keys);
	cJSON *q = cJSON_CreateObject();
	if (!q) {
		k->im->nomem = 1;
		return;
	}
	add_named(k, k->queues, &k->queue_idx, q, name);
	if (get(spec, "cohort") && get(spec, "cohortName")) {
		k->bad++;
		cfgimp_error(k->im, f, get(spec, "cohortName"), "%s: expected cohort (v1beta1) or cohortName "
			     "(v1beta2), not both", what);
	}
	const char *ck = get(spec, "cohortName") ? "cohortName" : "cohort";
	const char *cohort = get(spec, ck) ? want_name(k, f, spec, ck, what) : NULL;
	if (cohort) {
		cJSON_AddStringToObject(q, "cohort", cohort);
		add_unique(k, k->referenced, &k->referenced_idx, cohort);
	} else {
		cJSON_AddNullToObject(q, "cohort");
	}
	cJSON *quota = cJSON_AddObjectToObject(q, "quota");
	cJSON *order = cJSON_CreateArray();
	read_resource_groups(k, f, get(spec, "resourceGroups"), what, quota, order);
	if (cJSON_GetArraySize(order) > 0)
		cJSON_AddItemToObject(q, "flavor_order", order);
	else
		cJSON_Delete(order);
	read_preemption(k, f, get(spec, "preemption"), what, q);
	read_fair_sharing(k, f, get(spec, "fairSharing"), what, q);
	read_fungibility(k, f, get(spec, "flavorFungibility"), what, q);
	const char *qs = want_enum(k, f, spec, "queueingStrategy", what, strategies, NULL);
	if (qs)
		cJSON_AddStringToObject(q, "queueing_strategy", qs);
	warn_unmodelled_cq(k, f, spec);
}

/* ---- the other kinds ------------------------------------------------------------ */

static void read_cohort(struct kueue_ctx *k, const struct cfgimp_file *f, const cJSON *doc, const char *name)
{
	static const char *const keys[] = { "parentName", "resourceGroups", "fairSharing", NULL };
	char what[128];
	snprintf(what, sizeof what, "Cohort %s", name);
	const cJSON *spec = get(doc, "spec");
	if (name_taken(k, name)) {
		k->bad++;
		cfgimp_error(k->im, f, get(get(doc, "metadata"), "name"), "%s: the name is taken by an earlier "
			     "ClusterQueue or Cohort; expected distinct names (queues and cohorts share one namespace "
			     "in the simulator)", what);
		return;
	}
	if (spec && !cJSON_IsObject(spec)) {
		k->bad++;
		cfgimp_error(k->im, f, spec, "%s: expected spec, an object", what);
		return;
	}
	if (spec)
		k->bad += cfgimp_check_keys(k->im, f, spec, what, keys);
	cJSON *c = cJSON_CreateObject();
	if (!c) {
		k->im->nomem = 1;
		return;
	}
	add_named(k, k->cohorts, &k->cohort_idx, c, name);
	const char *parent = get(spec, "parentName") ? want_name(k, f, spec, "parentName", what) : NULL;
	if (parent) {
		cJSON_AddStringToObject(c, "parent", parent);
		add_unique(k, k->referenced, &k->referenced_idx, parent);
		void *grown = sim_grow(k->parent_refs, &k->cap_parent_refs, k->n_parent_refs, sizeof *k->parent_refs, 16);
		if (grown) {
			k->parent_refs = grown;
			k->parent_refs[k->n_parent_refs++] =
				(struct parent_ref){ f, get(spec, "parentName"), cJSON_GetObjectItem(c, "name")->valuestring };
		} else {
			k->im->nomem = 1;
		}
	} else {
		cJSON_AddNullToObject(c, "parent");
	}
	read_resource_groups(k, f, get(spec, "resourceGroups"), what, cJSON_AddObjectToObject(c, "quota"), NULL);
	read_fair_sharing(k, f, get(spec, "fairSharing"), what, c);
}

static void read_resource_flavor(struct kueue_ctx *k, const struct cfgimp_file *f, const cJSON *doc,
				 const char *name)
{
	static const char *const keys[] = { "nodeLabels", "nodeTaints", "tolerations", "topologyName", NULL };
	const cJSON *spec = get(doc, "spec"), *v;
	char what[128];
	snprintf(what, sizeof what, "ResourceFlavor %s", name);
	if (cJSON_IsObject(spec))
		k->bad += cfgimp_check_keys(k->im, f, spec, what, keys);
	add_unique(k, k->flavors_declared, &k->declared_idx, name);
	if ((v = get(spec, "topologyName")))
		cfgimp_warn(k->im, f, v, "ResourceFlavor topologyName (topology-aware scheduling) is not modelled: "
			    "placement follows $.policies.placement");
	if ((v = get(spec, "nodeLabels")) || (v = get(spec, "nodeTaints")) || (v = get(spec, "tolerations")))
		cfgimp_warn(k->im, f, v, "ResourceFlavor nodeLabels, nodeTaints and tolerations are not modelled: "
			    "a flavor is the cluster flavor of the same name");
}

static void read_local_queue(struct kueue_ctx *k, const struct cfgimp_file *f, const cJSON *doc, const char *name)
{
	static const char *const keys[] = { "clusterQueue", "stopPolicy", "fairSharing", NULL };
	const cJSON *spec = get(doc, "spec"), *v;
	char what[128];
	snprintf(what, sizeof what, "LocalQueue %s", name);
	if (cJSON_IsObject(spec))
		k->bad += cfgimp_check_keys(k->im, f, spec, what, keys);
	const char *cq = str_of(spec, "clusterQueue");
	if (!cq) {
		k->bad++;
		cfgimp_error(k->im, f, spec ? spec : doc, "%s: expected spec.clusterQueue, a string", what);
		return;
	}
	void *grown = sim_grow(k->local_refs, &k->cap_local_refs, k->n_local_refs, sizeof *k->local_refs, 16);
	if (grown) {
		k->local_refs = grown;
		k->local_refs[k->n_local_refs++] = (struct local_ref){ f, get(spec, "clusterQueue") };
	} else {
		k->im->nomem = 1;
	}
	if (k->n_local_queues++ == 0) {
		const char *ns = str_of(get(doc, "metadata"), "namespace");
		snprintf(k->local_example, sizeof k->local_example, "%s/%s -> %s", ns ? ns : "default", name, cq);
	}
	if ((v = get(spec, "fairSharing")))
		cfgimp_warn(k->im, f, v, "LocalQueue fairSharing (admission fair sharing among LocalQueues) is not "
			    "modelled");
	if ((v = get(spec, "stopPolicy")) && !(cJSON_IsString(v) && strcmp(v->valuestring, "None") == 0))
		cfgimp_warn(k->im, f, v, "LocalQueue stopPolicy other than None is not modelled");
}

static void read_priority_class(struct kueue_ctx *k, const struct cfgimp_file *f, const cJSON *doc,
				const char *name)
{
	const cJSON *v = get(doc, "value");
	if (!cJSON_IsNumber(v) || v->valuedouble != (double)(int32_t)v->valuedouble) {
		k->bad++;
		cfgimp_error(k->im, f, v ? v : doc, "WorkloadPriorityClass %s: expected value, a 32-bit integer", name);
		return;
	}
	char item[128];
	snprintf(item, sizeof item, "%s=%d", name, (int)v->valuedouble);
	add_unique(k, k->priorities, &k->priority_idx, item);
}

/* ---- documents -------------------------------------------------------------------- */

static void read_document(struct kueue_ctx *k, const struct cfgimp_file *f, const cJSON *doc);

/* kubectl get -o yaml prints several objects as one v1 List. */
static void read_list(struct kueue_ctx *k, const struct cfgimp_file *f, const cJSON *doc)
{
	const cJSON *items = get(doc, "items");
	if (!cJSON_IsArray(items)) {
		k->bad++;
		cfgimp_error(k->im, f, items ? items : doc, "List: expected items, a list of objects");
		return;
	}
	for (const cJSON *it = items->child; it; it = it->next)
		read_document(k, f, it);
}

static void read_document(struct kueue_ctx *k, const struct cfgimp_file *f, const cJSON *doc)
{
	static const char *const top_keys[] = { "apiVersion", "kind", "metadata", "spec", "status", NULL };
	static const char *const wpc_keys[] = { "apiVersion", "kind", "metadata", "value", "description", NULL };
	if (cJSON_IsNull(doc))
		return; /* an empty document (a trailing ---) */
	const char *api = str_of(doc, "apiVersion"), *kind = str_of(doc, "kind");
	if (!cJSON_IsObject(doc) || !api || !kind) {
		k->bad++;
		cfgimp_error(k->im, f, doc, "expected a Kubernetes object with apiVersion and kind");
		return;
	}
	if (strcmp(kind, "List") == 0 && strcmp(api, "v1") == 0) {
		read_list(k, f, doc);
		return;
	}
	const char *name = str_of(get(doc, "metadata"), "name");
	if (strncmp(api, "kueue.x-k8s.io/", 15) != 0) {
		cfgimp_warn(k->im, f, doc, "%s %s (%s) is not a Kueue object; ignored", kind, name ? name : "?", api);
		return;
	}
	if (strcmp(api + 15, "v1beta1") != 0 && strcmp(api + 15, "v1beta2") != 0) {
		k->bad++;
		cfgimp_error(k->im, f, get(doc, "apiVersion"), "%s: expected apiVersion kueue.x-k8s.io/v1beta1 or "
			     "kueue.x-k8s.io/v1beta2, got %s", kind, api);
		return;
	}
	int is_wpc = strcmp(kind, "WorkloadPriorityClass") == 0;
	k->bad += cfgimp_check_keys(k->im, f, doc, kind, is_wpc ? wpc_keys : top_keys);
	name = want_name(k, f, get(doc, "metadata"), "name", kind);
	if (!name)
		return;
	if (strcmp(kind, "ClusterQueue") == 0)
		read_cluster_queue(k, f, doc, name);
	else if (strcmp(kind, "Cohort") == 0)
		read_cohort(k, f, doc, name);
	else if (strcmp(kind, "ResourceFlavor") == 0)
		read_resource_flavor(k, f, doc, name);
	else if (strcmp(kind, "LocalQueue") == 0)
		read_local_queue(k, f, doc, name);
	else if (is_wpc)
		read_priority_class(k, f, doc, name);
	else
		cfgimp_warn(k->im, f, doc, "Kueue kind %s (e.g. %s) is not modelled (admission checks, MultiKueue, "
			    "topologies and workloads are not part of the quota section); ignored", kind, name);
}

/* ---- the end: implicit cohorts, notes -------------------------------------------- */

/* A LocalQueue whose ClusterQueue the input does not hold feeds nothing imported. */
static void check_local_refs(struct kueue_ctx *k)
{
	for (size_t i = 0; i < k->n_local_refs; i++) {
		const cJSON *cq = k->local_refs[i].node;
		if (!cfgimp_index_get(&k->queue_idx, cq->valuestring))
			cfgimp_warn(k->im, k->local_refs[i].f, cq, "LocalQueue for ClusterQueue %s, which the input does "
				    "not define; its jobs have no imported queue", cq->valuestring);
	}
}

/* Cohorts form a tree: following parents from a cohort must never come back to it
 * (Kueue refuses such a cohort as well). One error a cohort on the cycle. */
static void check_cohort_cycles(struct kueue_ctx *k)
{
	size_t n = (size_t)cJSON_GetArraySize(k->cohorts);
	for (size_t i = 0; i < k->n_parent_refs; i++) {
		const char *at = k->parent_refs[i].node->valuestring;
		for (size_t steps = 0; at && steps <= n; steps++) {
			if (strcmp(at, k->parent_refs[i].child) == 0) {
				k->bad++;
				cfgimp_error(k->im, k->parent_refs[i].f, k->parent_refs[i].node, "Cohort %s: parentName %s "
					     "leads back to this cohort; expected cohorts to form a tree",
					     k->parent_refs[i].child, k->parent_refs[i].node->valuestring);
				break;
			}
			const cJSON *c = cfgimp_index_get(&k->cohort_idx, at);
			const cJSON *p = c ? cJSON_GetObjectItem(c, "parent") : NULL;
			at = cJSON_IsString(p) ? p->valuestring : NULL;
		}
	}
}

static void add_implicit_cohorts(struct kueue_ctx *k)
{
	for (const cJSON *c = k->referenced->child; c; c = c->next) {
		if (cfgimp_index_get(&k->cohort_idx, c->valuestring))
			continue;
		cJSON *o = cJSON_CreateObject();
		if (!o) {
			k->im->nomem = 1;
			return;
		}
		add_named(k, k->cohorts, &k->cohort_idx, o, c->valuestring);
		cJSON_AddNullToObject(o, "parent");
	}
}

/* The items of a list of strings joined, at most `max` of them ("a, b, ... (N)"). */
static void join(const cJSON *list, char *buf, size_t n, int max)
{
	size_t o = 0;
	int i = 0, total = cJSON_GetArraySize(list);
	buf[0] = 0;
	for (const cJSON *c = list->child; c && i < max && o < n; c = c->next, i++)
		o += (size_t)snprintf(buf + o, n - o, "%s%s", i ? ", " : "", c->valuestring);
	if (total > max && o < n)
		snprintf(buf + o, n - o, ", ... (%d in all)", total);
}

static void print_notes(struct kueue_ctx *k)
{
	char list[1024];
	join(k->flavors_used, list, sizeof list, 12);
	if (k->flavors_used->child)
		cfgimp_note(k->im, "flavors the quotas use, which $.cluster.flavors must name: %s", list);
	for (const cJSON *c = k->flavors_used->child; c; c = c->next)
		if (!cfgimp_index_get(&k->declared_idx, c->valuestring)) {
			cfgimp_note(k->im, "flavor %s has no ResourceFlavor in the input (Kueue would not admit on it "
				    "until one exists); imported as given", c->valuestring);
			break;
		}
	size_t o = 0;
	list[0] = 0;
	for (int i = 0; i < k->n_res; i++)
		o += (size_t)snprintf(list + o, sizeof list - o, "%s%s (%s%s)", i ? ", " : "", k->res[i].ours,
				      k->res[i].kueue, k->res[i].memory ? ", in GiB" : "");
	if (k->n_res)
		cfgimp_note(k->im, "resources: %s; any but gpu must be in $.cluster.resources", list);
	if (k->n_local_queues)
		cfgimp_note(k->im, "%zu LocalQueue(s) feed their ClusterQueue (e.g. %s): a trace's queue column "
			    "names the ClusterQueue", k->n_local_queues, k->local_example);
	join(k->priorities, list, sizeof list, 12);
	if (k->priorities->child)
		cfgimp_note(k->im, "WorkloadPriorityClass values (for a trace's priority column): %s", list);
	if (k->fair_weights)
		cfgimp_note(k->im, "fairSharing weights act under $.policies.preemption \"fair_sharing\"");
}

int cfgimp_kueue(struct cfgimp *im, struct cfgimp_file *files, size_t n, cJSON **out)
{
	struct kueue_ctx k = { .im = im };
	cJSON *root = cJSON_CreateObject();
	k.cohorts = cJSON_CreateArray();
	k.queues = cJSON_CreateArray();
	k.referenced = cJSON_CreateArray();
	k.flavors_declared = cJSON_CreateArray();
	k.flavors_used = cJSON_CreateArray();
	k.priorities = cJSON_CreateArray();
	int rc = 0;
	if (!root || !k.cohorts || !k.queues || !k.referenced || !k.flavors_declared || !k.flavors_used ||
	    !k.priorities) {
		cJSON_Delete(k.cohorts), cJSON_Delete(k.queues);
		rc = -SIM_ENOMEM;
		goto out;
	}
	cJSON_AddStringToObject(root, "name", "cohort");
	cJSON_AddItemToObject(root, "cohorts", k.cohorts);
	cJSON_AddItemToObject(root, "queues", k.queues);
	for (size_t i = 0; i < n; i++)
		for (size_t d = 0; d < files[i].n_docs; d++)
			read_document(&k, &files[i], files[i].docs[d]);
	add_implicit_cohorts(&k);
	check_cohort_cycles(&k);
	check_local_refs(&k);
	if (k.bad) {
		rc = -SIM_EPARSE;
	} else if (!k.queues->child) {
		rc = sim_diag_add(im->diag, files[n - 1].path, "expected at least one ClusterQueue in the input");
	} else {
		print_notes(&k);
	}
out:
	cJSON_Delete(k.referenced);
	cJSON_Delete(k.flavors_declared);
	cJSON_Delete(k.flavors_used);
	cJSON_Delete(k.priorities);
	free(k.local_refs);
	struct cfgimp_index *idx[] = { &k.queue_idx, &k.cohort_idx, &k.referenced_idx, &k.declared_idx, &k.used_idx,
				       &k.priority_idx };
	for (size_t i = 0; i < sizeof idx / sizeof idx[0]; i++)
		cfgimp_index_fini(idx[i]);
	free(k.parent_refs);
	if (rc) {
		cJSON_Delete(root);
		return rc;
	}
	*out = root;
	return 0;
}
