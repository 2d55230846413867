/* experiments/cfgimport_aws.c: AWS Batch quota-management requests into the
 * `cohort` quota section (the mapping is docs/config-import.md, "AWS Batch").
 *
 * Two passes: quota shares first (they make the queues), then scheduling policies
 * and service jobs, which set keys of queues by name wherever they stand in the
 * input. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cfgimport.h"

#define MAX_CAPACITY_LIMITS 5 /* AWS: at most five capacity limits a quota share */

enum aws_kind { AWS_UNKNOWN, AWS_QUOTA_SHARE, AWS_SCHED_POLICY, AWS_SERVICE_JOB };

struct aws_ctx {
	struct cfgimp *im;
	cJSON *cohorts, *queues;
	int bad;
	int fair_weights;
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

/* Which request a body is, by the keys only it has. */
static enum aws_kind kind_of(const cJSON *doc)
{
	if (get(doc, "quotaShareName") && get(doc, "capacityLimits"))
		return AWS_QUOTA_SHARE;
	if (get(doc, "fairsharePolicy") || get(doc, "quotaSharePolicy"))
		return AWS_SCHED_POLICY;
	if (get(doc, "serviceJobType") || get(doc, "jobName"))
		return AWS_SERVICE_JOB;
	return AWS_UNKNOWN;
}

static int name_ok(const char *s)
{
	size_t n = strlen(s);
	return n > 0 && n <= 63 &&
	       strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == n;
}

/* A job queue given by name or ARN (arn:aws:batch:REGION:ACCOUNT:job-queue/NAME). */
static const char *queue_name_of(const char *s)
{
	const char *slash = strncmp(s, "arn:", 4) == 0 ? strrchr(s, '/') : NULL;
	return slash ? slash + 1 : s;
}

static const char *want_name(struct aws_ctx *a, const struct cfgimp_file *f, const cJSON *obj, const char *key,
			     const char *what)
{
	const cJSON *v = get(obj, key);
	const char *s = cJSON_IsString(v) ? queue_name_of(v->valuestring) : NULL;
	if (!s || !name_ok(s)) {
		a->bad++;
		cfgimp_error(a->im, f, v ? v : obj, "%s: expected %s, a name of 1 to 63 letters, digits, '_', '.' and "
			     "'-'", what, key);
		return NULL;
	}
	return s;
}

static const struct sim_flavor_spec *cluster_flavor(const struct cfgimp_cluster *c, const char *name)
{
	for (size_t i = 0; i < c->n_flavors; i++)
		if (strcmp(c->flavors[i].name, name) == 0)
			return &c->flavors[i];
	return NULL;
}

/* capacityLimits (instances of an instance type) into GPU quota on the cluster
 * flavor of that name: maxCapacity x the flavor's GPUs a node. */
static void read_capacity_limits(struct aws_ctx *a, const struct cfgimp_file *f, const cJSON *limits,
				 const char *what, cJSON *q)
{
	static const char *const keys[] = { "capacityUnit", "maxCapacity", NULL };
	const struct cfgimp_cluster *cl = a->im->cluster;
	int n = cJSON_GetArraySize(limits);
	if (!cJSON_IsArray(limits) || n < 1 || n > MAX_CAPACITY_LIMITS) {
		a->bad++;
		cfgimp_error(a->im, f, limits, "%s: expected capacityLimits, a list of 1 to %d "
			     "{capacityUnit, maxCapacity}", what, MAX_CAPACITY_LIMITS);
		return;
	}
	cJSON *quota = cJSON_AddObjectToObject(q, "quota");
	cJSON *group = cJSON_CreateObject(), *flavors = cJSON_CreateArray();
	cJSON_AddItemToObject(group, "resources", cJSON_CreateStringArray((const char *const[]){ "gpu" }, 1));
	cJSON_AddItemToObject(group, "flavors", flavors);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(q, "flavor_order"), group);
	for (const cJSON *l = limits->child; l; l = l->next) {
		if (!cJSON_IsObject(l)) {
			a->bad++;
			cfgimp_error(a->im, f, l, "%s: expected a capacity limit {capacityUnit, maxCapacity}", what);
			continue;
		}
		a->bad += cfgimp_check_keys(a->im, f, l, what, keys);
		const cJSON *unit = get(l, "capacityUnit"), *max = get(l, "maxCapacity");
		const struct sim_flavor_spec *fl = cJSON_IsString(unit) ? cluster_flavor(cl, unit->valuestring) : NULL;
		if (!fl) {
			char names[512];
			size_t o = 0;
			names[0] = 0;
			for (size_t i = 0; i < cl->n_flavors && o < sizeof names; i++)
				o += (size_t)snprintf(names + o, sizeof names - o, "%s%s", i ? ", " : "",
						      cl->flavors[i].name);
			a->bad++;
			cfgimp_error(a->im, f, unit ? unit : l, "%s: expected capacityUnit, an instance type that is a "
				     "flavor of the cluster (%s)", what, names);
			continue;
		}
		if (!cJSON_IsNumber(max) || max->valuedouble < 0 || max->valuedouble > 1e6 ||
		    max->valuedouble != floor(max->valuedouble)) {
			a->bad++;
			cfgimp_error(a->im, f, max ? max : l, "%s: expected maxCapacity, a whole number of instances "
				     "in [0, 1000000]", what);
			continue;
		}
		if (get(quota, fl->name)) {
			a->bad++;
			cfgimp_error(a->im, f, unit, "%s: instance type %s listed twice", what, fl->name);
			continue;
		}
		sim_qty_t gpus = (sim_qty_t)max->valuedouble * fl->node_cap[cl->gpu_res];
		cJSON *e = cJSON_CreateObject();
		cJSON_AddItemToObject(e, "nominal", cfgimp_qty_json(gpus));
		cJSON_AddItemToObject(cJSON_AddObjectToObject(quota, fl->name), "gpu", e);
		cJSON_AddItemToArray(flavors, cJSON_CreateString(fl->name));
	}
}

static void read_sharing(struct aws_ctx *a, const struct cfgimp_file *f, const cJSON *rs, const char *what,
			 cJSON *q)
{
	static const char *const keys[] = { "strategy", "borrowLimit", NULL };
	const cJSON *st = get(rs, "strategy"), *bl = get(rs, "borrowLimit");
	if (!cJSON_IsObject(rs)) {
		a->bad++;
		cfgimp_error(a->im, f, rs, "%s: expected resourceSharingConfiguration, an object {strategy, "
			     "borrowLimit}", what);
		return;
	}
	a->bad += cfgimp_check_keys(a->im, f, rs, what, keys);
	if (!cJSON_IsString(st) || (strcmp(st->valuestring, "RESERVE") && strcmp(st->valuestring, "LEND") &&
				    strcmp(st->valuestring, "LEND_AND_BORROW"))) {
		a->bad++;
		cfgimp_error(a->im, f, st ? st : rs, "%s: expected strategy RESERVE, LEND or LEND_AND_BORROW", what);
		return;
	}
	cJSON_AddStringToObject(q, "share_strategy", st->valuestring);
	if (!bl)
		return;
	if (strcmp(st->valuestring, "LEND_AND_BORROW") != 0) {
		a->bad++;
		cfgimp_error(a->im, f, bl, "%s: borrowLimit only applies to strategy LEND_AND_BORROW", what);
		return;
	}
	if (!cJSON_IsNumber(bl) || bl->valuedouble < -1 || bl->valuedouble != floor(bl->valuedouble) ||
	    bl->valuedouble > 1e6) {
		a->bad++;
		cfgimp_error(a->im, f, bl, "%s: expected borrowLimit, a whole percentage >= 0, or -1 (unlimited)",
			     what);
		return;
	}
	cJSON_AddNumberToObject(q, "borrow_limit_percent", bl->valuedouble);
}

static void read_quota_share(struct aws_ctx *a, const struct cfgimp_file *f, const cJSON *doc)
{
	static const char *const keys[] = { "quotaShareName", "jobQueue", "capacityLimits",
					    "resourceSharingConfiguration", "preemptionConfiguration", "state",
					    "tags", NULL };
	static const char *const pkeys[] = { "inSharePreemption", NULL };
	const char *name = want_name(a, f, doc, "quotaShareName", "CreateQuotaShare");
	if (!name)
		return;
	char what[128];
	snprintf(what, sizeof what, "quota share %s", name);
	a->bad += cfgimp_check_keys(a->im, f, doc, what, keys);
	const char *jq = want_name(a, f, doc, "jobQueue", what);
	if (!jq)
		return;
	if (find_named(a->queues, name) || strcmp(name, jq) == 0 || find_named(a->cohorts, name)) {
		a->bad++;
		cfgimp_error(a->im, f, get(doc, "quotaShareName"), "%s: the name is taken (by another quota share or a "
			     "job queue); expected distinct names", what);
		return;
	}
	if (!find_named(a->cohorts, jq)) {
		cJSON *c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "name", jq);
		cJSON_AddNullToObject(c, "parent");
		cJSON_AddItemToArray(a->cohorts, c);
	}
	cJSON *q = cJSON_CreateObject();
	cJSON_AddItemToArray(a->queues, q);
	cJSON_AddStringToObject(q, "name", name);
	cJSON_AddStringToObject(q, "cohort", jq);
	read_capacity_limits(a, f, get(doc, "capacityLimits"), what, q);
	read_sharing(a, f, get(doc, "resourceSharingConfiguration"), what, q);
	const cJSON *pc = get(doc, "preemptionConfiguration"), *isp = get(pc, "inSharePreemption");
	if (cJSON_IsObject(pc))
		a->bad += cfgimp_check_keys(a->im, f, pc, what, pkeys);
	if (!cJSON_IsString(isp) || (strcmp(isp->valuestring, "ENABLED") && strcmp(isp->valuestring, "DISABLED"))) {
		a->bad++;
		cfgimp_error(a->im, f, isp ? isp : pc ? pc : doc, "%s: expected preemptionConfiguration."
			     "inSharePreemption ENABLED or DISABLED", what);
		return;
	}
	/* in-share preemption: by priority inside the share; cross-share preemption
	 * always restores a share's lent capacity, whatever the priorities */
	cJSON_AddStringToObject(q, "within_queue", strcmp(isp->valuestring, "ENABLED") ? "Never" : "LowerPriority");
	cJSON_AddStringToObject(q, "reclaim_within_cohort", "Any");
	cJSON_AddNullToObject(q, "borrow_within_cohort");
	const cJSON *state = get(doc, "state");
	if (cJSON_IsString(state) && strcmp(state->valuestring, "DISABLED") == 0)
		cfgimp_warn(a->im, f, state, "a DISABLED quota share is not modelled: it is imported as ENABLED");
}

/* fairsharePolicy.shareDistribution: AWS weights rank inversely (a lower
 * weightFactor gets more), so fair_weight = 1 / weightFactor. */
static void read_fairshare(struct aws_ctx *a, const struct cfgimp_file *f, const cJSON *fp)
{
	static const char *const keys[] = { "shareDecaySeconds", "computeReservation", "shareDistribution", NULL };
	static const char *const skeys[] = { "shareIdentifier", "weightFactor", NULL };
	const char *what = "fairsharePolicy";
	if (!cJSON_IsObject(fp)) {
		a->bad++;
		cfgimp_error(a->im, f, fp, "%s: expected an object", what);
		return;
	}
	a->bad += cfgimp_check_keys(a->im, f, fp, what, keys);
	const cJSON *v;
	if ((v = get(fp, "shareDecaySeconds")) && !(cJSON_IsNumber(v) && v->valuedouble == 0))
		cfgimp_warn(a->im, f, v, "shareDecaySeconds is not modelled: fair sharing weighs current usage only "
			    "(as Kueue's), with no decay of past usage");
	if ((v = get(fp, "computeReservation")) && !(cJSON_IsNumber(v) && v->valuedouble == 0))
		cfgimp_warn(a->im, f, v, "computeReservation is not modelled: no capacity is held back for share "
			    "identifiers not yet active");
	const cJSON *dist = get(fp, "shareDistribution");
	for (const cJSON *s = cJSON_IsArray(dist) ? dist->child : NULL; s; s = s->next) {
		a->bad += cJSON_IsObject(s) ? cfgimp_check_keys(a->im, f, s, what, skeys) : 0;
		const cJSON *id = get(s, "shareIdentifier"), *wf = get(s, "weightFactor");
		if (!cJSON_IsString(id) || (wf && (!cJSON_IsNumber(wf) || wf->valuedouble <= 0))) {
			a->bad++;
			cfgimp_error(a->im, f, s, "%s: expected {shareIdentifier, weightFactor > 0}", what);
			continue;
		}
		cJSON *q = find_named(a->queues, id->valuestring);
		if (!q) {
			cfgimp_warn(a->im, f, id, "shareIdentifier %s names no quota share of the input; ignored",
				    id->valuestring);
			continue;
		}
		double w = 1.0 / (wf ? wf->valuedouble : 1.0);
		double r = round(w * 1000) / 1000;
		if (fabs(r - w) > 1e-9)
			cfgimp_warn(a->im, f, wf, "fair_weight 1/weightFactor rounded to %.3f (3 decimals)", r);
		cJSON_DeleteItemFromObjectCaseSensitive(q, "fair_weight");
		cJSON_AddNumberToObject(q, "fair_weight", r);
		a->fair_weights = 1;
	}
}

static void read_sched_policy(struct aws_ctx *a, const struct cfgimp_file *f, const cJSON *doc)
{
	static const char *const keys[] = { "name", "fairsharePolicy", "quotaSharePolicy", "tags", NULL };
	static const char *const qkeys[] = { "idleResourceAssignmentStrategy", NULL };
	a->bad += cfgimp_check_keys(a->im, f, doc, "CreateSchedulingPolicy", keys);
	const cJSON *qp = get(doc, "quotaSharePolicy");
	if (qp) {
		a->bad += cJSON_IsObject(qp) ? cfgimp_check_keys(a->im, f, qp, "quotaSharePolicy", qkeys) : 0;
		const cJSON *s = get(qp, "idleResourceAssignmentStrategy");
		if (!cJSON_IsString(s) || strcmp(s->valuestring, "FIFO") != 0) {
			a->bad++;
			cfgimp_error(a->im, f, s ? s : qp, "quotaSharePolicy: expected idleResourceAssignmentStrategy "
				     "FIFO (the only one AWS has)");
		}
	}
	if (get(doc, "fairsharePolicy"))
		read_fairshare(a, f, get(doc, "fairsharePolicy"));
}

/* preemptionRetriesBeforeTermination is a job's in AWS; the simulator has it a
 * queue's (preemption_retry_limit), so a job's value is its quota share's. */
static void read_service_job(struct aws_ctx *a, const struct cfgimp_file *f, const cJSON *doc)
{
	const cJSON *share = get(doc, "quotaShareName");
	const cJSON *r = get(get(doc, "preemptionConfiguration"), "preemptionRetriesBeforeTermination");
	for (const cJSON *c = doc->child; c; c = c->next)
		if (strcmp(c->string, "quotaShareName") && strcmp(c->string, "preemptionConfiguration") &&
		    strcmp(c->string, "jobName") && strcmp(c->string, "jobQueue"))
			cfgimp_warn(a->im, f, c, "SubmitServiceJob %s describes one job, not the quota; ignored",
				    c->string);
	if (!r)
		return;
	cJSON *q = cJSON_IsString(share) ? find_named(a->queues, share->valuestring) : NULL;
	if (!q) {
		a->bad++;
		cfgimp_error(a->im, f, share ? share : doc, "SubmitServiceJob: expected quotaShareName, a quota share "
			     "of the input, for its preemptionRetriesBeforeTermination");
		return;
	}
	if (!cJSON_IsNumber(r) || r->valuedouble < 0 || r->valuedouble > 1e6 || r->valuedouble != floor(r->valuedouble)) {
		a->bad++;
		cfgimp_error(a->im, f, r, "SubmitServiceJob: expected preemptionRetriesBeforeTermination, an integer "
			     "in [0, 1000000]");
		return;
	}
	const cJSON *old = cJSON_GetObjectItemCaseSensitive(q, "preemption_retry_limit");
	if (old && old->valuedouble != r->valuedouble)
		cfgimp_warn(a->im, f, r, "jobs of quota share %s give different preemptionRetriesBeforeTermination; "
			    "the smallest is kept", share->valuestring);
	if (!old || r->valuedouble < old->valuedouble) {
		cJSON_DeleteItemFromObjectCaseSensitive(q, "preemption_retry_limit");
		cJSON_AddNumberToObject(q, "preemption_retry_limit", r->valuedouble);
	}
}

/* Each document is one request body, or a list of them. */
static void each_request(struct aws_ctx *a, const struct cfgimp_file *f, const cJSON *doc, int pass)
{
	if (cJSON_IsArray(doc)) {
		for (const cJSON *c = doc->child; c; c = c->next)
			each_request(a, f, c, pass);
		return;
	}
	if (cJSON_IsNull(doc))
		return;
	enum aws_kind kind = cJSON_IsObject(doc) ? kind_of(doc) : AWS_UNKNOWN;
	if (kind == AWS_UNKNOWN && pass == 0) {
		a->bad++;
		cfgimp_error(a->im, f, doc, "expected an AWS Batch request body: CreateQuotaShare (quotaShareName, "
			     "capacityLimits, ...), CreateSchedulingPolicy (name, fairsharePolicy or "
			     "quotaSharePolicy) or SubmitServiceJob (jobName, ...)");
	} else if (kind == AWS_QUOTA_SHARE && pass == 0) {
		read_quota_share(a, f, doc);
	} else if (kind == AWS_SCHED_POLICY && pass == 1) {
		read_sched_policy(a, f, doc);
	} else if (kind == AWS_SERVICE_JOB && pass == 1) {
		read_service_job(a, f, doc);
	}
}

int cfgimp_aws(struct cfgimp *im, struct cfgimp_file *files, size_t n, cJSON **out)
{
	if (!im->cluster || im->cluster->gpu_res < 0)
		return sim_diag_add(im->diag, n ? files[0].path : "-", "aws-batch: expected --cluster CONFIG, the "
				    "experiment config whose flavors are the instance types (their GPUs a node turn "
				    "instances into GPUs)");
	struct aws_ctx a = { .im = im };
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "name", "cohort");
	a.cohorts = cJSON_AddArrayToObject(root, "cohorts");
	a.queues = cJSON_AddArrayToObject(root, "queues");
	if (!root || !a.cohorts || !a.queues) {
		cJSON_Delete(root);
		return -SIM_ENOMEM;
	}
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++)
			for (size_t d = 0; d < files[i].n_docs; d++)
				each_request(&a, &files[i], files[i].docs[d], pass);
	int rc = 0;
	if (a.bad)
		rc = -SIM_EPARSE;
	else if (!a.queues->child)
		rc = sim_diag_add(im->diag, files[n - 1].path, "expected at least one CreateQuotaShare request");
	if (rc) {
		cJSON_Delete(root);
		return rc;
	}
	if (a.fair_weights)
		cfgimp_note(im, "fair_weight values act under $.policies.preemption \"fair_sharing\"");
	cfgimp_note(im, "quota shares of one job queue form one cohort; share_strategy and borrow_limit_percent "
		    "need $.policies.quota \"cohort\"; cross-share reclaim needs a preemption policy");
	*out = root;
	return 0;
}
