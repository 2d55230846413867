/* policies/cohort_config.c: reads $.policies.quota for the `cohort` and `hard`
 * quota policies (every key in experiments/README.md).
 *
 * The queues and cohorts are the scenario file's shapes (policies/scenario.c reads
 * them: one reader for both), plus keys that only a run has: AWS Batch share
 * shorthands, the preemption retry limit, the cap on preemptions an hour, the
 * queueing strategy. Queues may also come from a CSV (Philly's virtual-cluster
 * sizes); trace queues nobody listed may be put in a cohort with nominal 0.
 * Quota and priority changes come from CSV files.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kq_policy.h"
#include "policy.h"
#include "scenario.h"
#include "../sim/sidecsv.h"

static const char *const run_queue_keys[] = { "share_strategy", "borrow_limit_percent", "preemption_retry_limit",
					      "max_preemptions_per_hour", "queueing_strategy", NULL };

void cohort_setup_free(struct cohort_setup *s)
{
	kq_destroy(s->kq);
	free(s->queue_node);
	free(s->knobs);
	free(s->managed_res);
	free(s->explicit_pre);
	free(s->changes);
	s->kq = NULL;
	s->queue_node = NULL;
	s->knobs = NULL;
	s->managed_res = NULL;
	s->explicit_pre = NULL;
	s->changes = NULL;
}

static int err(struct cohort_setup *s, struct sim_diag *d, const char *sub, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int err(struct cohort_setup *s, struct sim_diag *d, const char *sub, const char *fmt, ...)
{
	char where[1024], msg[1024];
	snprintf(where, sizeof where, "%s: %s%s", s->file, s->json_path, sub);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return sim_diag_add(d, where, "%s", msg);
}

/* An error at key `key` of the object at `sub` (e.g. ".queues[2]"). */
static int err_key(struct cohort_setup *s, struct sim_diag *d, const char *sub, const char *key, const char *msg)
{
	char path[256];
	snprintf(path, sizeof path, "%s.%s", sub, key);
	return err(s, d, path, "%s", msg);
}

static const char *want_string(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* ---- queues from a CSV (queues_csv) ---- */

/* The result of a side CSV's read: rc (a first hard error), else the reader's error
 * (got < 0, located by the reader), else -SIM_EPARSE when bad rows were reported. */
static int csv_result(int rc, int got, size_t bad)
{
	if (rc)
		return rc;
	if (got < 0)
		return got;
	return bad ? -SIM_EPARSE : 0;
}

static int queues_from_csv(struct cohort_setup *s, const cJSON *spec, cJSON *queues, struct sim_diag *d)
{
	static const char *const keys[] = { "path", "name_column", "nominal_column", "multiply", "flavor",
					    "resource", "cohort", "template", NULL };
	for (const cJSON *it = spec->child; it; it = it->next) {
		int ok = 0;
		for (int k = 0; keys[k]; k++)
			ok |= strcmp(it->string, keys[k]) == 0;
		if (!ok)
			return err(s, d, ".queues_csv", "unknown key '%s' (expected path, name_column, "
					  "nominal_column, multiply, flavor, resource, cohort, template)", it->string);
	}
	const char *path = want_string(spec, "path"), *ncol = want_string(spec, "name_column");
	const char *vcol = want_string(spec, "nominal_column"), *flavor = want_string(spec, "flavor");
	const char *res = want_string(spec, "resource");
	const cJSON *mul = cJSON_GetObjectItemCaseSensitive(spec, "multiply");
	const cJSON *cohort = cJSON_GetObjectItemCaseSensitive(spec, "cohort");
	const cJSON *tmpl = cJSON_GetObjectItemCaseSensitive(spec, "template");
	if (!path || !ncol || !vcol || !flavor)
		return err(s, d, ".queues_csv", "expected strings path, name_column, nominal_column and flavor");
	if (mul && (!cJSON_IsNumber(mul) || mul->valuedouble <= 0))
		return err(s, d, ".queues_csv.multiply", "expected a number > 0");
	if (tmpl && !cJSON_IsObject(tmpl))
		return err(s, d, ".queues_csv.template", "expected an object of queue keys");
	if (tmpl && (cJSON_GetObjectItemCaseSensitive(tmpl, "name") || cJSON_GetObjectItemCaseSensitive(tmpl, "quota")))
		return err(s, d, ".queues_csv.template", "name and quota come from the CSV; expected neither here");
	char *full = sim_path_beside(s->file, path);
	if (!full)
		return -SIM_ENOMEM;
	struct sim_csv c;
	if (sim_csv_open(&c, full, d) < 0) {
		int rc = err(s, d, ".queues_csv.path", "cannot read %s: %s", full, strerror(errno));
		free(full);
		return rc;
	}
	int rc = 0, ci = -1, vi = -1, got = sim_csv_next(&c);
	size_t bad = 0; /* rows reported: every bad row is, then the read fails */
	if (got == 0 || (got > 0 && ((ci = sim_csv_col(&c, ncol)) < 0 || (vi = sim_csv_col(&c, vcol)) < 0)))
		rc = err(s, d, ".queues_csv", "%s: expected a header row naming columns '%s' and '%s'", full, ncol,
			 vcol);
	while (!rc && got > 0 && (got = sim_csv_next(&c)) > 0) {
		char *end;
		double v = ci < c.n && vi < c.n ? strtod(c.fields[vi], &end) : -1;
		if (ci >= c.n || vi >= c.n || v < 0 || *end || end == c.fields[vi]) {
			err(s, d, ".queues_csv", "%s:%u: expected a name and a number >= 0 in columns '%s' and '%s'",
			    full, c.lineno, ncol, vcol);
			bad++;
			continue;
		}
		double nominal = v * (mul ? mul->valuedouble : 1.0);
		cJSON *q = tmpl ? cJSON_Duplicate(tmpl, 1) : cJSON_CreateObject();
		cJSON *quota = cJSON_CreateObject(), *fq = cJSON_CreateObject(), *rq = cJSON_CreateObject();
		if (!q || !quota || !fq || !rq) {
			cJSON_Delete(q), cJSON_Delete(quota), cJSON_Delete(fq), cJSON_Delete(rq);
			rc = -SIM_ENOMEM;
			break;
		}
		cJSON_AddStringToObject(q, "name", c.fields[ci]);
		if (cohort)
			cJSON_AddItemToObject(q, "cohort", cJSON_Duplicate(cohort, 0));
		cJSON_AddNumberToObject(rq, "nominal", round(nominal * 1000) / 1000);
		cJSON_AddItemToObject(fq, res ? res : "gpu", rq);
		cJSON_AddItemToObject(quota, flavor, fq);
		cJSON_AddItemToObject(q, "quota", quota);
		cJSON_AddItemToArray(queues, q);
	}
	sim_csv_close(&c);
	free(full);
	return csv_result(rc, got, bad);
}

/* Trace queues nobody configured: nominal 0 of every flavor's GPUs, in a cohort. */
static int add_unlisted(struct cohort_setup *s, const cJSON *spec, cJSON *queues, struct sim_diag *d)
{
	const struct sim_trace *t = s->trace;
	int bad = 0;
	for (size_t q = 0; q < t->n_queues; q++) {
		int listed = 0;
		for (const cJSON *it = queues->child; it && !listed; it = it->next) {
			const char *nm = want_string(it, "name");
			listed = nm && strcmp(nm, t->queues[q]) == 0;
		}
		if (listed)
			continue;
		if (!spec || cJSON_IsNull(spec)) {
			bad = err(s, d, ".queues", "trace queue '%s' has no quota: list it, or set "
				  "unlisted_queues to give such queues nominal 0 in a cohort", t->queues[q]);
			continue;
		}
		cJSON *nq = cJSON_Duplicate(spec, 1), *quota = cJSON_CreateObject();
		if (!nq || !quota) {
			cJSON_Delete(nq), cJSON_Delete(quota);
			return -SIM_ENOMEM;
		}
		for (size_t f = 0; f < sim_cluster_n_flavors(s->cluster); f++) {
			cJSON *fq = cJSON_CreateObject(), *rq = cJSON_CreateObject();
			cJSON_AddNumberToObject(rq, "nominal", 0);
			cJSON_AddItemToObject(fq, "gpu", rq);
			cJSON_AddItemToObject(quota, sim_cluster_flavor(s->cluster, (int)f)->name, fq);
		}
		cJSON_AddStringToObject(nq, "name", t->queues[q]);
		cJSON_AddItemToObject(nq, "quota", quota);
		cJSON_AddItemToArray(queues, nq);
	}
	return bad;
}

/* ---- run-only queue keys ---- */

static int read_knobs(struct cohort_setup *s, const cJSON *q, const char *sub, struct cohort_knobs *k,
		      struct sim_diag *d)
{
	memset(k, 0, sizeof *k); /* BestEffortFIFO unless queueing_strategy says otherwise */
	k->retry_limit = -1;
	k->max_preempt_per_hour = -1;
	const cJSON *v;
	if ((v = cJSON_GetObjectItemCaseSensitive(q, "queueing_strategy"))) {
		if (!cJSON_IsString(v) || (strcmp(v->valuestring, "BestEffortFIFO") != 0 &&
					   strcmp(v->valuestring, "StrictFIFO") != 0))
			return err_key(s, d, sub, "queueing_strategy", "expected BestEffortFIFO or StrictFIFO");
		k->strict_fifo = strcmp(v->valuestring, "StrictFIFO") == 0;
	}
	if ((v = cJSON_GetObjectItemCaseSensitive(q, "preemption_retry_limit")) && !cJSON_IsNull(v)) {
		if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 1e6 ||
		    v->valuedouble != floor(v->valuedouble))
			return err_key(s, d, sub, "preemption_retry_limit", "expected null (requeue forever) or an "
				   "integer in [0, 1000000]");
		k->retry_limit = (int32_t)v->valuedouble;
	}
	if ((v = cJSON_GetObjectItemCaseSensitive(q, "max_preemptions_per_hour")) && !cJSON_IsNull(v)) {
		if (!cJSON_IsNumber(v) || v->valuedouble < 0)
			return err_key(s, d, sub, "max_preemptions_per_hour", "expected null (no cap) or a number >= 0");
		k->max_preempt_per_hour = v->valuedouble;
	}
	return 0;
}

/* AWS Batch share strategies over Kueue's limits: RESERVE neither lends nor
 * borrows; LEND lends idle quota and never borrows; LEND_AND_BORROW lends and
 * borrows up to borrow_limit_percent of nominal (-1 = unlimited). */
static int apply_share_strategy(struct cohort_setup *s, const cJSON *q, const char *sub, int node,
				struct sim_diag *d)
{
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(q, "share_strategy");
	const cJSON *pct = cJSON_GetObjectItemCaseSensitive(q, "borrow_limit_percent");
	if (!st && !pct)
		return 0;
	if (!cJSON_IsString(st) || (strcmp(st->valuestring, "RESERVE") && strcmp(st->valuestring, "LEND") &&
				    strcmp(st->valuestring, "LEND_AND_BORROW")))
		return err_key(s, d, sub, "share_strategy", "expected RESERVE, LEND or LEND_AND_BORROW");
	double p = -1;
	if (pct) {
		if (strcmp(st->valuestring, "LEND_AND_BORROW") != 0)
			return err_key(s, d, sub, "borrow_limit_percent", "only with share_strategy LEND_AND_BORROW");
		if (!cJSON_IsNumber(pct) || (pct->valuedouble < 0 && pct->valuedouble != -1))
			return err_key(s, d, sub, "borrow_limit_percent", "expected -1 (unlimited) or a number >= 0");
		p = pct->valuedouble;
	}
	struct kq_node *n = &s->kq->nodes[node];
	for (int fr = 0; fr < s->kq->n_fr; fr++) {
		if (!n->has_quota[fr])
			continue;
		if (n->borrow_limit[fr] != KQ_UNSET || n->lend_limit[fr] != KQ_UNSET)
			return err_key(s, d, sub, "share_strategy",
				       "share_strategy and borrowing_limit/lending_limit are exclusive");
		if (strcmp(st->valuestring, "RESERVE") == 0) {
			n->borrow_limit[fr] = 0;
			n->lend_limit[fr] = 0;
		} else if (strcmp(st->valuestring, "LEND") == 0) {
			n->borrow_limit[fr] = 0;
		} else if (p >= 0) {
			n->borrow_limit[fr] = (sim_qty_t)llround((double)n->nominal[fr] * p / 100.0);
		}
	}
	return 0;
}

/* ---- timed changes ---- */

static int push_change(struct cohort_setup *s, const struct timed_change *ch)
{
	struct timed_change *nc = realloc(s->changes, (s->n_changes + 1) * sizeof *nc);
	if (!nc)
		return -SIM_ENOMEM;
	s->changes = nc;
	nc[s->n_changes] = *ch;
	nc[s->n_changes].seq = (uint32_t)s->n_changes;
	s->n_changes++;
	return 0;
}

static int read_time(const char *txt, sim_time_t *out)
{
	return sim_time_parse_s(txt, strlen(txt), out);
}

static int quota_events(struct cohort_setup *s, const char *rel, struct sim_diag *d)
{
	char *full = sim_path_beside(s->file, rel);
	if (!full)
		return -SIM_ENOMEM;
	struct sim_csv c;
	int rc = 0;
	if (sim_csv_open(&c, full, d) < 0) {
		rc = err(s, d, ".quota_events", "cannot read %s: %s", full, strerror(errno));
		free(full);
		return rc;
	}
	int ti = -1, qi = -1, fi = -1, ri = -1, ni = -1, got = sim_csv_next(&c);
	size_t bad = 0;
	if (got == 0 || (got > 0 && ((ti = sim_csv_col(&c, "time_s")) < 0 || (qi = sim_csv_col(&c, "queue")) < 0 ||
				     (fi = sim_csv_col(&c, "flavor")) < 0 || (ri = sim_csv_col(&c, "resource")) < 0 ||
				     (ni = sim_csv_col(&c, "nominal")) < 0)))
		rc = err(s, d, ".quota_events", "%s: expected the header time_s,queue,flavor,resource,nominal",
			 full);
	while (!rc && got > 0 && (got = sim_csv_next(&c)) > 0) {
		struct timed_change ch = { .kind = 0 };
		int f, r;
		if (c.n != 5 || read_time(c.fields[ti], &ch.t) ||
		    (ch.node = kq_find(s->kq, c.fields[qi])) < 0 || !s->kq->nodes[ch.node].is_queue ||
		    (f = kq_flavor_find(s->kq, c.fields[fi])) < 0 || (r = kq_res_find(s->kq, c.fields[ri])) < 0 ||
		    sim_qty_parse(c.fields[ni], strlen(c.fields[ni]), &ch.nominal)) {
			err(s, d, ".quota_events", "%s:%u: expected time_s >= 0, a configured queue, a cluster flavor "
			    "and resource, and a nominal quantity", full, c.lineno);
			bad++;
			continue;
		}
		ch.fr = kq_fr(s->kq, f, r);
		rc = push_change(s, &ch);
	}
	sim_csv_close(&c);
	free(full);
	return csv_result(rc, got, bad);
}

static const struct sim_trace *cmp_trace;
static int cmp_job_id(const void *a, const void *b)
{
	const struct sim_trace *t = cmp_trace;
	return strcmp(sim_job_id(t, &t->jobs[*(const uint32_t *)a]), sim_job_id(t, &t->jobs[*(const uint32_t *)b]));
}

static int find_job(const struct sim_trace *t, const uint32_t *by_id, const char *id)
{
	size_t lo = 0, hi = t->n_jobs;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(sim_job_id(t, &t->jobs[by_id[mid]]), id);
		if (c == 0)
			return (int)by_id[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* time_s,id,priority[,duration_s]: a change, or a boost that expires after duration_s. */
static int priority_events(struct cohort_setup *s, const char *rel, struct sim_diag *d)
{
	const struct sim_trace *t = s->trace;
	char *full = sim_path_beside(s->file, rel);
	uint32_t *by_id = malloc((t->n_jobs ? t->n_jobs : 1) * sizeof *by_id);
	if (!full || !by_id) {
		free(full), free(by_id);
		return -SIM_ENOMEM;
	}
	for (size_t i = 0; i < t->n_jobs; i++)
		by_id[i] = (uint32_t)i;
	cmp_trace = t;
	qsort(by_id, t->n_jobs, sizeof *by_id, cmp_job_id);
	struct sim_csv c;
	int rc = 0, ti = -1, ii = -1, pi = -1, di = -1, got = 0;
	size_t bad = 0;
	if (sim_csv_open(&c, full, d) < 0)
		rc = err(s, d, ".priority_events", "cannot read %s: %s", full, strerror(errno));
	else if ((got = sim_csv_next(&c)) == 0 ||
		 (got > 0 && ((ti = sim_csv_col(&c, "time_s")) < 0 || (ii = sim_csv_col(&c, "id")) < 0 ||
			      (pi = sim_csv_col(&c, "priority")) < 0)))
		rc = err(s, d, ".priority_events", "%s: expected the header time_s,id,priority[,duration_s]", full);
	else
		di = sim_csv_col(&c, "duration_s");
	while (!rc && got > 0 && (got = sim_csv_next(&c)) > 0) {
		struct timed_change ch = { .kind = 1 };
		char *end;
		long p = c.n > pi ? strtol(c.fields[pi], &end, 10) : 0;
		int job = c.n > ii ? find_job(t, by_id, c.fields[ii]) : -1;
		sim_time_t dur = 0;
		if (c.n != 3 + (di >= 0) || read_time(c.fields[ti], &ch.t) || job < 0 || *end ||
		    end == c.fields[pi] || p < INT32_MIN || p > INT32_MAX ||
		    (di >= 0 && c.fields[di][0] && read_time(c.fields[di], &dur))) {
			err(s, d, ".priority_events", "%s:%u: expected time_s >= 0, a job id of the trace, an "
			    "integer priority and an optional duration_s", full, c.lineno);
			bad++;
			continue;
		}
		ch.job = (uint32_t)job;
		ch.priority = (int32_t)p;
		rc = push_change(s, &ch);
		if (!rc && dur > 0) { /* the boost expires: back to the trace's priority */
			struct timed_change back = { .kind = 1, .t = ch.t + dur, .job = ch.job,
						     .priority = t->jobs[job].priority };
			rc = push_change(s, &back);
		}
	}
	sim_csv_close(&c); /* harmless after a failed open */
	free(full);
	free(by_id);
	return csv_result(rc, got, bad);
}

static int cmp_change(const void *a, const void *b)
{
	const struct timed_change *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* ---- the whole section ---- */

/* The tree object handed to the scenario reader: cohorts, listed queues, CSV
 * queues, unlisted trace queues; for `hard`, no cohorts at all. */
static int build_tree_json(struct cohort_setup *s, cJSON **out, struct sim_diag *d)
{
	const cJSON *p = s->params;
	cJSON *tree = cJSON_CreateObject(), *queues = cJSON_CreateArray();
	if (!tree || !queues) {
		cJSON_Delete(tree), cJSON_Delete(queues);
		return -SIM_ENOMEM;
	}
	*out = tree;
	const cJSON *qs = p ? cJSON_GetObjectItemCaseSensitive(p, "queues") : NULL;
	const cJSON *cs = p ? cJSON_GetObjectItemCaseSensitive(p, "cohorts") : NULL;
	if (qs && !cJSON_IsArray(qs))
		return cJSON_Delete(queues), err(s, d, ".queues", "expected a list of queue objects");
	for (const cJSON *it = qs ? qs->child : NULL; it; it = it->next)
		cJSON_AddItemToArray(queues, cJSON_Duplicate(it, 1));
	const cJSON *csv = p ? cJSON_GetObjectItemCaseSensitive(p, "queues_csv") : NULL;
	int rc = 0;
	if (csv && !(rc = cJSON_IsObject(csv) ? 0 : err(s, d, ".queues_csv", "expected an object")))
		rc = queues_from_csv(s, csv, queues, d);
	if (!rc)
		rc = add_unlisted(s, p ? cJSON_GetObjectItemCaseSensitive(p, "unlisted_queues") : NULL, queues, d);
	if (s->hard) { /* every queue its own root: nominal is a cap */
		for (cJSON *it = queues->child; it; it = it->next)
			cJSON_DeleteItemFromObjectCaseSensitive(it, "cohort");
		cs = NULL;
	}
	cJSON_AddItemToObject(tree, "cohorts", cs ? cJSON_Duplicate(cs, 1) : cJSON_CreateArray());
	cJSON_AddItemToObject(tree, "queues", queues);
	return rc;
}

static unsigned explicit_bits(const cJSON *q)
{
	return (cJSON_GetObjectItemCaseSensitive(q, "within_queue") ? KQ_SET_WITHIN : 0) |
	       (cJSON_GetObjectItemCaseSensitive(q, "reclaim_within_cohort") ? KQ_SET_RECLAIM : 0) |
	       (cJSON_GetObjectItemCaseSensitive(q, "borrow_within_cohort") ? KQ_SET_BWC : 0);
}

static int read_queue_extras(struct cohort_setup *s, const cJSON *tree, struct sim_diag *d)
{
	const struct sim_trace *t = s->trace;
	const cJSON *queues = cJSON_GetObjectItemCaseSensitive(tree, "queues");
	int bad = 0, i = 0;
	for (const cJSON *q = queues->child; q; q = q->next, i++) {
		char sub[64];
		snprintf(sub, sizeof sub, ".queues[%d]", i);
		int node = kq_find(s->kq, want_string(q, "name"));
		struct cohort_knobs k;
		bad |= read_knobs(s, q, sub, &k, d) | apply_share_strategy(s, q, sub, node, d);
		s->explicit_pre[node] = (uint8_t)explicit_bits(q);
		for (size_t tq = 0; tq < t->n_queues; tq++)
			if (strcmp(t->queues[tq], s->kq->nodes[node].name) == 0) {
				s->queue_node[tq] = node;
				s->knobs[tq] = k;
			}
	}
	return bad;
}

int cohort_setup_read(struct cohort_setup *s, struct sim_diag *d)
{
	const struct sim_cluster *cl = s->cluster;
	const struct sim_resources *res = sim_cluster_resources(cl);
	int nf = (int)sim_cluster_n_flavors(cl);
	char(*fl)[SIM_NAME_MAX] = calloc((size_t)nf + 1, SIM_NAME_MAX);
	cJSON *tree = NULL;
	if (!fl)
		return -SIM_ENOMEM;
	for (int f = 0; f < nf; f++)
		strcpy(fl[f], sim_cluster_flavor(cl, f)->name);
	int rc = build_tree_json(s, &tree, d); /* top-level keys were checked by the policy's init */
	if (!rc)
		rc = scn_read_quota_tree(s->file, s->json_path, tree, res->n, (const char(*)[SIM_NAME_MAX])res->names,
					 nf, (const char(*)[SIM_NAME_MAX])fl, run_queue_keys, &s->kq, d);
	free(fl);
	if (rc)
		goto out;
	size_t nq = s->trace->n_queues ? s->trace->n_queues : 1;
	s->queue_node = calloc(nq, sizeof *s->queue_node);
	s->knobs = calloc(nq, sizeof *s->knobs);
	s->explicit_pre = calloc(s->kq->n_nodes ? s->kq->n_nodes : 1, 1);
	s->managed_res = calloc(SIM_MAX_RES, 1);
	if (!s->queue_node || !s->knobs || !s->explicit_pre || !s->managed_res) {
		rc = -SIM_ENOMEM;
		goto out;
	}
	if ((rc = read_queue_extras(s, tree, d)))
		goto out;
	kq_requota(s->kq); /* limits may have changed (share strategies) */
	for (size_t i = 0; i < s->kq->n_nodes; i++)
		for (int fr = 0; fr < s->kq->n_fr; fr++)
			if (s->kq->nodes[i].has_quota[fr])
				s->managed_res[fr % s->kq->n_res] = 1;
	const cJSON *mh = cJSON_GetObjectItemCaseSensitive(s->params, "max_heads_per_queue");
	s->max_heads_per_queue = 0; /* absent: no bound, as Kueue */
	if (mh) {
		if (!cJSON_IsNumber(mh) || mh->valuedouble < 1 || mh->valuedouble > 1e6 ||
		    mh->valuedouble != floor(mh->valuedouble)) {
			rc = err(s, d, ".max_heads_per_queue", "expected an integer in [1, 1000000]");
			goto out;
		}
		s->max_heads_per_queue = (int)mh->valuedouble;
	}
	const char *qe = want_string(s->params, "quota_events"), *pe = want_string(s->params, "priority_events");
	if (qe && (rc = quota_events(s, qe, d)))
		goto out;
	if (pe && (rc = priority_events(s, pe, d)))
		goto out;
	if (s->n_changes > 1)
		qsort(s->changes, s->n_changes, sizeof *s->changes, cmp_change);
out:
	cJSON_Delete(tree);
	if (rc)
		cohort_setup_free(s);
	return rc;
}
