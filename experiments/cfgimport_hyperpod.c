/* experiments/cfgimport_hyperpod.c: SageMaker HyperPod task governance (compute
 * allocations and the cluster policy) into the `cohort` quota section (the mapping
 * is docs/config-import.md, "SageMaker HyperPod").
 *
 * HyperPod's task governance is Kueue underneath: a compute allocation is a team's
 * queue, the teams of one cluster share a cohort. Its sharing strategies are written
 * as explicit borrowing and lending limits (not share_strategy), because a team may
 * also give absolute borrow limits per instance type, which a strategy shorthand
 * cannot carry. Two passes: allocations first, then the cluster policy (it can add
 * the idle, unallocated capacity to the cohort). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cfgimport.h"

#define MAX_QUOTA_RESOURCES 15 /* HyperPod: at most 15 ComputeQuotaResources */
#define DEFAULT_BORROW_PERCENT 50

struct hp_ctx {
	struct cfgimp *im;
	cJSON *cohorts, *queues;
	int bad;
	int cpu_res, mem_res; /* the cluster's resources of those names, or -1 */
};

static const cJSON *get(const cJSON *o, const char *k)
{
	return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL;
}

static cJSON *find_named(const cJSON *arr, const char *name)
{
	for (cJSON *c = arr->child; c; c = c->next)
		if (strcmp(cJSON_GetObjectItemCaseSensitive(c, "name")->valuestring, name) == 0)
			return c;
	return NULL;
}

static int name_ok(const char *s)
{
	size_t n = strlen(s);
	return n > 0 && n <= 63 &&
	       strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == n;
}

/* The cluster named by an ARN (arn:aws:sagemaker:REGION:ACCOUNT:cluster/ID), or the
 * string itself. */
static const char *cluster_name_of(const char *s)
{
	const char *slash = strncmp(s, "arn:", 4) == 0 ? strrchr(s, '/') : NULL;
	return slash ? slash + 1 : s;
}

static const struct sim_flavor_spec *cluster_flavor(const struct cfgimp_cluster *c, const char *name)
{
	for (size_t i = 0; i < c->n_flavors; i++)
		if (strcmp(c->flavors[i].name, name) == 0)
			return &c->flavors[i];
	return NULL;
}

/* A whole number in [lo, hi] at key of o; *v unchanged when absent. Returns 0,
 * or 1 after reporting a bad value. */
static int want_int(struct hp_ctx *h, const struct cfgimp_file *f, const cJSON *o, const char *key, double lo,
		    double hi, const char *what, double *v)
{
	const cJSON *x = get(o, key);
	if (!x)
		return 0;
	if (!cJSON_IsNumber(x) || x->valuedouble < lo || x->valuedouble > hi || x->valuedouble != floor(x->valuedouble)) {
		h->bad++;
		cfgimp_error(h->im, f, x, "%s: expected %s, a whole number in [%g, %g]", what, key, lo, hi);
		return 1;
	}
	*v = x->valuedouble;
	return 0;
}

/* One ComputeQuotaResourceConfig as quantities per resource of its instance type:
 * GPUs are Accelerators when given, else Count instances x the flavor's GPUs a node;
 * VCpu and MemoryInGiB are cpu and memory. Returns the flavor, or NULL (reported). */
static const struct sim_flavor_spec *read_resource(struct hp_ctx *h, const struct cfgimp_file *f, const cJSON *r,
						   const char *what, sim_qty_t *gpu, sim_qty_t *cpu, sim_qty_t *mem)
{
	static const char *const keys[] = { "InstanceType", "Count", "Accelerators", "VCpu", "MemoryInGiB",
					    "AcceleratorPartition", NULL };
	const struct cfgimp_cluster *cl = h->im->cluster;
	if (!cJSON_IsObject(r)) {
		h->bad++;
		cfgimp_error(h->im, f, r, "%s: expected a compute quota resource {InstanceType, Count, ...}", what);
		return NULL;
	}
	h->bad += cfgimp_check_keys(h->im, f, r, what, keys);
	const cJSON *it = get(r, "InstanceType");
	const struct sim_flavor_spec *fl = cJSON_IsString(it) ? cluster_flavor(cl, it->valuestring) : NULL;
	if (!fl) {
		h->bad++;
		cfgimp_error(h->im, f, it ? it : r, "%s: expected InstanceType, a flavor of the --cluster config", what);
		return NULL;
	}
	double count = -1, acc = -1, vcpu = -1, gib = -1;
	int bad = want_int(h, f, r, "Count", 0, 1e6, what, &count) | want_int(h, f, r, "Accelerators", 0, 1e9, what, &acc);
	const cJSON *x;
	if ((x = get(r, "VCpu")) && (!cJSON_IsNumber(x) || x->valuedouble < 0 || x->valuedouble > 1e9)) {
		bad = 1;
		h->bad++;
		cfgimp_error(h->im, f, x, "%s: expected VCpu, a number >= 0", what);
	} else if (x) {
		vcpu = x->valuedouble;
	}
	if ((x = get(r, "MemoryInGiB")) && (!cJSON_IsNumber(x) || x->valuedouble < 0 || x->valuedouble > 1e9)) {
		bad = 1;
		h->bad++;
		cfgimp_error(h->im, f, x, "%s: expected MemoryInGiB, a number >= 0", what);
	} else if (x) {
		gib = x->valuedouble;
	}
	if (bad)
		return NULL;
	if ((x = get(r, "AcceleratorPartition")))
		cfgimp_warn(h->im, f, x, "AcceleratorPartition (GPU partitions, MIG) is not modelled: the quota is "
			    "in whole GPUs");
	*gpu = acc >= 0 ? (sim_qty_t)acc * 1000 : count >= 0 ? (sim_qty_t)count * fl->node_cap[cl->gpu_res] : 0;
	*cpu = vcpu >= 0 ? (sim_qty_t)llround(vcpu * 1000) : -1;
	*mem = gib >= 0 ? (sim_qty_t)llround(gib * 1000) : -1;
	if ((*cpu >= 0 && h->cpu_res < 0) || (*mem >= 0 && h->mem_res < 0)) {
		h->bad++;
		cfgimp_error(h->im, f, r, "%s: VCpu and MemoryInGiB need resources cpu and memory in the --cluster "
			     "config's $.cluster.resources", what);
		return NULL;
	}
	return fl;
}

/* A quota entry {nominal, borrowing_limit, lending_limit} by the sharing strategy:
 * DontLend neither lends nor borrows; Lend lends and never borrows; LendAndBorrow
 * borrows up to BorrowLimit percent of the nominal, or the absolute limit given. */
static cJSON *quota_entry(sim_qty_t nominal, const char *strategy, double pct, sim_qty_t absolute)
{
	cJSON *e = cJSON_CreateObject();
	cJSON_AddItemToObject(e, "nominal", cfgimp_qty_json(nominal));
	sim_qty_t borrow = strcmp(strategy, "LendAndBorrow") ? 0
			   : absolute >= 0			 ? absolute
								 : (sim_qty_t)llround((double)nominal * pct / 100.0);
	cJSON_AddItemToObject(e, "borrowing_limit", cfgimp_qty_json(borrow));
	if (strcmp(strategy, "DontLend") == 0)
		cJSON_AddItemToObject(e, "lending_limit", cfgimp_qty_json(0));
	else
		cJSON_AddNullToObject(e, "lending_limit");
	return e;
}

/* AbsoluteBorrowLimits: GPUs a team may borrow per instance type (-1 = none given). */
static void absolute_limits(struct hp_ctx *h, const struct cfgimp_file *f, const cJSON *list, const char *what,
			    const char *flavor, sim_qty_t *gpu)
{
	*gpu = -1;
	for (const cJSON *r = cJSON_IsArray(list) ? list->child : NULL; r; r = r->next) {
		sim_qty_t g, c, m;
		const struct sim_flavor_spec *fl = read_resource(h, f, r, what, &g, &c, &m);
		if (fl && strcmp(fl->name, flavor) == 0)
			*gpu = g;
		if (fl && (c >= 0 || m >= 0))
			cfgimp_warn(h->im, f, r, "AbsoluteBorrowLimits of VCpu and MemoryInGiB are not modelled: only "
				    "the GPUs' limit is kept");
	}
}

static void read_allocation(struct hp_ctx *h, const struct cfgimp_file *f, const cJSON *doc)
{
	static const char *const keys[] = { "Name", "ClusterArn", "ComputeQuotaConfig", "ComputeQuotaTarget",
					    "ActivationState", "Description", "Tags", NULL };
	static const char *const ckeys[] = { "ComputeQuotaResources", "PreemptTeamTasks", "ResourceSharingConfig", NULL };
	static const char *const skeys[] = { "Strategy", "BorrowLimit", "AbsoluteBorrowLimits", NULL };
	static const char *const tkeys[] = { "TeamName", "FairShareWeight", NULL };
	const cJSON *target = get(doc, "ComputeQuotaTarget"), *team = get(target, "TeamName");
	const cJSON *arn = get(doc, "ClusterArn"), *cfg = get(doc, "ComputeQuotaConfig");
	const char *cluster = cJSON_IsString(arn) ? cluster_name_of(arn->valuestring) : NULL;
	if (!cJSON_IsString(team) || !name_ok(team->valuestring) || !cluster || !name_ok(cluster)) {
		h->bad++;
		cfgimp_error(h->im, f, team ? team : doc, "CreateComputeQuota: expected ComputeQuotaTarget.TeamName and "
			     "ClusterArn, names of 1 to 63 letters, digits, '_', '.' and '-'");
		return;
	}
	char what[128];
	snprintf(what, sizeof what, "compute allocation of team %s", team->valuestring);
	h->bad += cfgimp_check_keys(h->im, f, doc, what, keys);
	if (cJSON_IsObject(target))
		h->bad += cfgimp_check_keys(h->im, f, target, what, tkeys);
	if (cJSON_IsObject(cfg))
		h->bad += cfgimp_check_keys(h->im, f, cfg, what, ckeys);
	if (find_named(h->queues, team->valuestring) || strcmp(team->valuestring, cluster) == 0) {
		h->bad++;
		cfgimp_error(h->im, f, team, "%s: the team has another allocation, or the cluster's name; expected one "
			     "allocation a team", what);
		return;
	}
	const cJSON *share = get(cfg, "ResourceSharingConfig"), *st = get(share, "Strategy");
	const char *strategy = "LendAndBorrow"; /* HyperPod's default */
	if (cJSON_IsObject(share))
		h->bad += cfgimp_check_keys(h->im, f, share, what, skeys);
	if (st && (!cJSON_IsString(st) || (strcmp(st->valuestring, "Lend") && strcmp(st->valuestring, "DontLend") &&
					   strcmp(st->valuestring, "LendAndBorrow")))) {
		h->bad++;
		cfgimp_error(h->im, f, st, "%s: expected Strategy Lend, DontLend or LendAndBorrow", what);
		return;
	}
	if (st)
		strategy = st->valuestring;
	double pct = DEFAULT_BORROW_PERCENT;
	if (want_int(h, f, share, "BorrowLimit", 0, 10000, what, &pct))
		return;
	const cJSON *pre = get(cfg, "PreemptTeamTasks");
	if (pre && (!cJSON_IsString(pre) || (strcmp(pre->valuestring, "Never") && strcmp(pre->valuestring, "LowerPriority")))) {
		h->bad++;
		cfgimp_error(h->im, f, pre, "%s: expected PreemptTeamTasks Never or LowerPriority", what);
		return;
	}
	double weight = -1;
	if (want_int(h, f, target, "FairShareWeight", 0, 100, what, &weight))
		return;
	if (!find_named(h->cohorts, cluster)) {
		cJSON *c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "name", cluster);
		cJSON_AddNullToObject(c, "parent");
		cJSON_AddItemToArray(h->cohorts, c);
	}
	cJSON *q = cJSON_CreateObject();
	cJSON_AddItemToArray(h->queues, q);
	cJSON_AddStringToObject(q, "name", team->valuestring);
	cJSON_AddStringToObject(q, "cohort", cluster);
	cJSON *quota = cJSON_AddObjectToObject(q, "quota");
	cJSON *flavors = cJSON_CreateArray();
	const cJSON *res = get(cfg, "ComputeQuotaResources");
	if (res && (!cJSON_IsArray(res) || cJSON_GetArraySize(res) > MAX_QUOTA_RESOURCES)) {
		h->bad++;
		cfgimp_error(h->im, f, res, "%s: expected ComputeQuotaResources, a list of at most %d", what,
			     MAX_QUOTA_RESOURCES);
		res = NULL;
	}
	int cpu_mem = 0;
	for (const cJSON *r = res ? res->child : NULL; r; r = r->next) {
		sim_qty_t gpu, cpu, mem, abs_gpu;
		const struct sim_flavor_spec *fl = read_resource(h, f, r, what, &gpu, &cpu, &mem);
		if (!fl)
			continue;
		if (get(quota, fl->name)) {
			h->bad++;
			cfgimp_error(h->im, f, get(r, "InstanceType"), "%s: instance type %s listed twice", what, fl->name);
			continue;
		}
		absolute_limits(h, f, get(share, "AbsoluteBorrowLimits"), what, fl->name, &abs_gpu);
		cJSON *fq = cJSON_AddObjectToObject(quota, fl->name);
		cJSON_AddItemToObject(fq, "gpu", quota_entry(gpu, strategy, pct, abs_gpu));
		if (cpu >= 0)
			cJSON_AddItemToObject(fq, "cpu", quota_entry(cpu, strategy, pct, -1));
		if (mem >= 0)
			cJSON_AddItemToObject(fq, "memory", quota_entry(mem, strategy, pct, -1));
		cpu_mem |= cpu >= 0 || mem >= 0;
		cJSON_AddItemToArray(flavors, cJSON_CreateString(fl->name));
	}
	cJSON *group = cJSON_CreateObject(), *names = cJSON_CreateArray();
	cJSON_AddItemToArray(names, cJSON_CreateString("gpu"));
	if (cpu_mem) {
		cJSON_AddItemToArray(names, cJSON_CreateString("cpu"));
		cJSON_AddItemToArray(names, cJSON_CreateString("memory"));
	}
	cJSON_AddItemToObject(group, "resources", names);
	cJSON_AddItemToObject(group, "flavors", flavors);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(q, "flavor_order"), group);
	cJSON_AddStringToObject(q, "within_queue", pre ? pre->valuestring : "LowerPriority");
	cJSON_AddStringToObject(q, "reclaim_within_cohort", "Any");
	cJSON_AddNullToObject(q, "borrow_within_cohort");
	if (weight >= 0)
		cJSON_AddNumberToObject(q, "fair_weight", weight);
	const cJSON *state = get(doc, "ActivationState");
	if (cJSON_IsString(state) && strcmp(state->valuestring, "Disabled") == 0)
		cfgimp_warn(h->im, f, state, "a Disabled compute allocation is not modelled: it is imported as Enabled");
}

/* IdleResourceSharing Enabled: what no team is allocated is the cohort's own quota,
 * so every team that may borrow can use it. */
static void add_idle_capacity(struct hp_ctx *h)
{
	const struct cfgimp_cluster *cl = h->im->cluster;
	for (cJSON *c = h->cohorts->child; c; c = c->next) {
		const char *cohort = cJSON_GetObjectItem(c, "name")->valuestring;
		cJSON *quota = cJSON_AddObjectToObject(c, "quota");
		for (size_t i = 0; i < cl->n_flavors; i++) {
			const struct sim_flavor_spec *fl = &cl->flavors[i];
			sim_qty_t idle = (sim_qty_t)fl->nodes * fl->node_cap[cl->gpu_res];
			for (const cJSON *q = h->queues->child; q; q = q->next) {
				const cJSON *e = get(get(get(get(q, "quota"), fl->name), "gpu"), "nominal");
				if (e && strcmp(cJSON_GetObjectItem(q, "cohort")->valuestring, cohort) == 0)
					idle -= (sim_qty_t)llround(e->valuedouble * 1000);
			}
			if (idle > 0) {
				cJSON *e = cJSON_CreateObject();
				cJSON_AddItemToObject(e, "nominal", cfgimp_qty_json(idle));
				cJSON_AddItemToObject(cJSON_AddObjectToObject(quota, fl->name), "gpu", e);
			}
		}
	}
}

static void read_cluster_policy(struct hp_ctx *h, const struct cfgimp_file *f, const cJSON *doc)
{
	static const char *const keys[] = { "Name", "ClusterArn", "SchedulerConfig", "Description", "Tags", NULL };
	static const char *const skeys[] = { "PriorityClasses", "FairShare", "IdleResourceSharing", NULL };
	const cJSON *sc = get(doc, "SchedulerConfig");
	h->bad += cfgimp_check_keys(h->im, f, doc, "CreateClusterSchedulerConfig", keys);
	if (!cJSON_IsObject(sc))
		return;
	h->bad += cfgimp_check_keys(h->im, f, sc, "SchedulerConfig", skeys);
	const cJSON *pcs = get(sc, "PriorityClasses"), *fs = get(sc, "FairShare"), *idle = get(sc, "IdleResourceSharing");
	char list[512];
	size_t o = 0;
	list[0] = 0;
	for (const cJSON *p = cJSON_IsArray(pcs) ? pcs->child : NULL; p && o < sizeof list; p = p->next) {
		const cJSON *n = get(p, "Name"), *w = get(p, "Weight");
		if (!cJSON_IsString(n) || !cJSON_IsNumber(w)) {
			h->bad++;
			cfgimp_error(h->im, f, p, "PriorityClasses: expected {Name, Weight}");
			continue;
		}
		o += (size_t)snprintf(list + o, sizeof list - o, "%s%s=%g", o ? ", " : "", n->valuestring, w->valuedouble);
	}
	if (list[0])
		cfgimp_note(h->im, "priority classes (their weights are priorities for a trace's priority column): %s",
			    list);
	if (cJSON_IsString(fs) && strcmp(fs->valuestring, "Disabled") == 0)
		cfgimp_note(h->im, "FairShare Disabled: borrowing is first come first served; use "
			    "$.policies.preemption \"classical\"");
	else
		cfgimp_note(h->im, "FairShare Enabled (HyperPod's default): use $.policies.preemption \"fair_sharing\" "
			    "for FairShareWeight to act");
	if (cJSON_IsString(idle) && strcmp(idle->valuestring, "Enabled") == 0)
		add_idle_capacity(h);
}

static void each_request(struct hp_ctx *h, const struct cfgimp_file *f, const cJSON *doc, int pass)
{
	if (cJSON_IsArray(doc)) {
		for (const cJSON *c = doc->child; c; c = c->next)
			each_request(h, f, c, pass);
		return;
	}
	if (cJSON_IsNull(doc))
		return;
	int allocation = get(doc, "ComputeQuotaConfig") || get(doc, "ComputeQuotaTarget");
	int policy = get(doc, "SchedulerConfig") != NULL;
	if (!allocation && !policy && pass == 0) {
		h->bad++;
		cfgimp_error(h->im, f, doc, "expected a HyperPod request body: CreateComputeQuota (ComputeQuotaConfig, "
			     "ComputeQuotaTarget, ...) or CreateClusterSchedulerConfig (SchedulerConfig, ...)");
	} else if (allocation && pass == 0) {
		read_allocation(h, f, doc);
	} else if (policy && pass == 1) {
		read_cluster_policy(h, f, doc);
	}
}

int cfgimp_hyperpod(struct cfgimp *im, struct cfgimp_file *files, size_t n, cJSON **out)
{
	if (!im->cluster || im->cluster->gpu_res < 0)
		return sim_diag_add(im->diag, n ? files[0].path : "-", "hyperpod: expected --cluster CONFIG, the "
				    "experiment config whose flavors are the instance types");
	struct hp_ctx h = { .im = im, .cpu_res = im->cluster->cpu_res, .mem_res = im->cluster->mem_res };
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "name", "cohort");
	h.cohorts = cJSON_AddArrayToObject(root, "cohorts");
	h.queues = cJSON_AddArrayToObject(root, "queues");
	if (!root || !h.cohorts || !h.queues) {
		cJSON_Delete(root);
		return -SIM_ENOMEM;
	}
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++)
			for (size_t d = 0; d < files[i].n_docs; d++)
				each_request(&h, &files[i], files[i].docs[d], pass);
	int rc = h.bad ? -SIM_EPARSE : 0;
	if (!rc && !h.queues->child)
		rc = sim_diag_add(im->diag, files[n - 1].path, "expected at least one CreateComputeQuota request");
	if (rc) {
		cJSON_Delete(root);
		return rc;
	}
	cfgimp_note(im, "the teams of one cluster form one cohort; a trace's queue column names the team");
	*out = root;
	return 0;
}
