/* tests/test_scenarios.c: scenario files (policies/scenario.c) and gpusched explain.
 *
 * Every tests/data/scenarios/NAME.json is loaded, decided, and compared with
 * NAME.expected.json: each array of the expected object as a set keyed by "id",
 * every field an expected entry states must match (left_waiting reasons are not
 * compared: their wording is for people). The parser's error paths are checked on
 * inline texts; the command on an example of experiments/scenarios/.
 */
#include <CUnit/CUnit.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../policies/scenario.h"
#include "testutil.h"

#define SCN_DIR TEST_DATA_DIR "/scenarios"
#define EXAMPLE TEST_SOURCE_DIR "/experiments/scenarios/reclaim-basic.json"

static int init_scenarios(void) { return 0; }
static int clean_scenarios(void) { return 0; }

/* ---- comparing an outcome with NAME.expected.json ------------------------ */

struct mismatch {
	char text[4096]; /* the differences, one a line */
	size_t o;
};

static void note(struct mismatch *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct mismatch *m, const char *fmt, ...)
{
	va_list ap;

	if (m->o >= sizeof m->text)
		return;
	va_start(ap, fmt);
	m->o += (size_t)vsnprintf(m->text + m->o, sizeof m->text - m->o, fmt, ap);
	va_end(ap);
}

static const cJSON *find_by_id(const cJSON *arr, const char *id)
{
	for (const cJSON *e = arr ? arr->child : NULL; e; e = e->next) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, "id");
		if (cJSON_IsString(v) && strcmp(v->valuestring, id) == 0)
			return e;
	}
	return NULL;
}

static char *print(const cJSON *v)
{
	return v ? cJSON_PrintUnformatted(v) : strdup("nothing");
}

/* exp and act are lists of {"id", ...}; compared as sets keyed by id. */
static void compare_set(struct mismatch *m, const char *key, const cJSON *exp, const cJSON *act)
{
	if (!cJSON_IsArray(exp)) {
		note(m, "  expected file: \"%s\" is not a list\n", key);
		return;
	}
	for (const cJSON *e = exp->child; e; e = e->next) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(e, "id");
		if (!cJSON_IsString(id)) {
			note(m, "  expected file: an entry of \"%s\" has no string \"id\"\n", key);
			continue;
		}
		const cJSON *a = find_by_id(act, id->valuestring);
		if (!a) {
			note(m, "  %s: %s expected, missing\n", key, id->valuestring);
			continue;
		}
		for (const cJSON *f = e->child; f; f = f->next) {
			if (strcmp(f->string, "id") == 0 ||
			    (strcmp(key, "left_waiting") == 0 && strcmp(f->string, "reason") == 0))
				continue;
			const cJSON *af = cJSON_GetObjectItemCaseSensitive(a, f->string);
			if (af && cJSON_Compare(f, af, 1))
				continue;
			char *ws = print(f), *gs = print(af);
			note(m, "  %s: %s.%s expected %s, got %s\n", key, id->valuestring, f->string, ws, gs);
			free(ws);
			free(gs);
		}
	}
	for (const cJSON *a = act ? act->child : NULL; a; a = a->next) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(a, "id");
		if (cJSON_IsString(id) && !find_by_id(exp, id->valuestring))
			note(m, "  %s: %s not expected, present\n", key, id->valuestring);
	}
}

static const char *const cycle_keys[] = {"admitted", "preempting",   "victims",
					 "deferred", "left_waiting", NULL};
static const char *const incoming_keys[] = { "id", "mode", "flavor", "victims", NULL };

static int listed(const char *const *keys, const char *k)
{
	for (int i = 0; keys[i]; i++)
		if (strcmp(keys[i], k) == 0)
			return 1;
	return 0;
}

/* Every key the expected object states is compared; absent keys are not checked. */
static void compare_outcome(struct mismatch *m, const cJSON *exp, const cJSON *act, int incoming)
{
	const char *const *keys = incoming ? incoming_keys : cycle_keys;

	if (!cJSON_IsObject(exp)) {
		note(m, "  expected file: not a JSON object\n");
		return;
	}
	for (const cJSON *f = exp->child; f; f = f->next) {
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(act, f->string);
		if (strcmp(f->string, "description") == 0 || strcmp(f->string, "comment") == 0)
			continue;
		if (!listed(keys, f->string)) {
			note(m, "  expected file: unknown key \"%s\" for %s form\n", f->string,
			     incoming ? "the incoming" : "the pending");
		} else if (cJSON_IsArray(f) || strcmp(f->string, "victims") == 0) {
			compare_set(m, f->string, f, a);
		} else if (!a || !cJSON_Compare(f, a, 1)) {
			char *ws = print(f), *gs = print(a);
			note(m, "  %s: expected %s, got %s\n", f->string, ws, gs);
			free(ws);
			free(gs);
		}
	}
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Runs one scenario; returns 1 when it matches its expected file. */
static int run_scenario(const char *path)
{
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	struct mismatch m = { .o = 0 };
	struct kq_decision d;
	struct kq_assign inc;
	struct sim_diag diag;
	struct scn *s = NULL;
	cJSON *exp = NULL, *act = NULL;
	char exp_path[1024], msg[512];
	char *text = NULL;
	int ok = 0;

	memset(&d, 0, sizeof d);
	sim_diag_init(&diag, 20);
	snprintf(exp_path, sizeof exp_path, "%.*s.expected.json", (int)(strlen(path) - 5), path);
	if (scn_load(path, &s, &diag)) {
		note(&m, "  does not load:\n");
		for (size_t i = 0; i < diag.count && i < diag.limit; i++)
			note(&m, "    %s\n", diag.lines[i]);
		goto out_report;
	}
	if (!(text = tu_read_file(exp_path, NULL)) || !(exp = cJSON_Parse(text))) {
		note(&m, "  %s: %s\n", exp_path, text ? "not valid JSON" : "missing");
		goto out_report;
	}
	if (scn_decide(s, &d, &inc) || !(act = scn_outcome_json(s, &d, &inc))) {
		note(&m, "  scn_decide failed\n");
		goto out_report;
	}
	compare_outcome(&m, exp, act, s->incoming);
	ok = m.o == 0;
out_report:
	if (!ok) {
		char *es = print(exp), *as = print(act);
		fprintf(stderr, "\nscenario %s differs:\n%s  expected: %s\n  actual:   %s\n", name, m.text,
			es, as);
		free(es);
		free(as);
		snprintf(msg, sizeof msg, "scenario %s differs from its expected outcome", name);
		CU_assertImplementation(CU_FALSE, __LINE__, msg, __FILE__, "", CU_FALSE);
	}
	cJSON_Delete(exp);
	cJSON_Delete(act);
	free(text);
	kq_decision_free(&d);
	scn_destroy(s);
	sim_diag_fini(&diag);
	return ok;
}

static void test_scenarios_match_expected(void)
{
	/* GPUSCHED_SCENARIO_DIR runs another folder's files (while writing new ones) */
	const char *dir = getenv("GPUSCHED_SCENARIO_DIR") ? getenv("GPUSCHED_SCENARIO_DIR") : SCN_DIR;
	char pattern[1024];
	glob_t g;
	size_t ran = 0, passed = 0;

	memset(&g, 0, sizeof g);
	snprintf(pattern, sizeof pattern, "%s/*.json", dir);
	if (glob(pattern, 0, NULL, &g) != 0) {
		fprintf(stderr, "\nno scenario files match %s\n", pattern);
		CU_FAIL("no scenario files in tests/data/scenarios");
		return;
	}
	for (size_t i = 0; i < g.gl_pathc; i++) {
		if (ends_with(g.gl_pathv[i], ".expected.json"))
			continue;
		ran++;
		passed += (size_t)run_scenario(g.gl_pathv[i]);
	}
	fprintf(stderr, "\n  scenarios: %zu of %zu match their expected outcome\n", passed, ran);
	CU_ASSERT(ran >= 1);
	globfree(&g);
}

/* ---- the parser --------------------------------------------------------- */

/* A small valid scenario, written with ' for " (see parse_text). */
#define BASE                                                                                              \
	"{'id': 't', 'resources': ['gpu', 'cpu'], 'flavors': ['h100', 'a100'],\n"                          \
	" 'cohorts': [{'name': 'root', 'parent': null}, {'name': 'research', 'parent': 'root'}],\n"        \
	" 'queues': [\n"                                                                                   \
	"  {'name': 'team-a', 'cohort': 'research',\n"                                                     \
	"   'quota': {'h100': {'gpu': {'nominal': 8, 'borrowing_limit': null, 'lending_limit': 2}}}},\n"   \
	"  {'name': 'team-b', 'cohort': 'research', 'within_queue': 'LowerPriority',\n"                    \
	"   'reclaim_within_cohort': 'Any', 'fair_weight': 0.5, 'min_runtime_s': 60,\n"                    \
	"   'checkpoint_aware': true,\n"                                                                   \
	"   'borrow_within_cohort': {'policy': 'LowerPriority', 'max_priority_threshold': 5},\n"           \
	"   'flavor_fungibility': {'when_can_borrow': 'TryNextFlavor', 'preference': "                     \
	"'PreemptionOverBorrowing'},\n"                                                                    \
	"   'quota': {'h100': {'gpu': {'nominal': 8}, 'cpu': {'nominal': 64}}, 'a100': {'gpu': "           \
	"{'nominal': 4.5}}},\n"                                                                            \
	"   'flavor_order': [{'resources': ['gpu', 'cpu'], 'flavors': ['a100', 'h100']}]}\n"               \
	" ],\n"                                                                                            \
	" 'fair_sharing': null,\n"                                                                         \
	" 'running': [{'id': 'b-big', 'queue': 'team-b', 'priority': 0, 'flavor': {'gpu': 'h100'},\n"     \
	"              'request': {'gpu': 12}, 'admitted_at': 100, 'created_at': 90}],\n"                  \
	" 'pending': [{'id': 'a-new', 'queue': 'team-a', 'priority': 3, 'request': {'gpu': 8},\n"          \
	"              'created_at': 200},\n"                                                              \
	"             {'id': 'a-old', 'queue': 'team-a', 'request': {'gpu': 1.5}}]}\n"

/* Parses text (with ' for ") after replacing the first `from` by `to` (both may be NULL). */
static int parse_text(const char *text, const char *from, const char *to, struct scn **s, struct sim_diag *d)
{
	size_t n = strlen(text) + (to ? strlen(to) : 0) + 1;
	char *json = malloc(n);
	const char *at = from ? strstr(text, from) : NULL;
	int rc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(json);
	if (from && !at)
		fprintf(stderr, "\ntest text has no [%s]\n", from);
	if (from)
		CU_ASSERT_PTR_NOT_NULL_FATAL(at);
	if (at)
		snprintf(json, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	else
		snprintf(json, n, "%s", text);
	for (char *p = json; *p; p++)
		if (*p == '\'')
			*p = '"';
	sim_diag_init(d, 20);
	rc = scn_parse("s.json", json, strlen(json), s, d);
	free(json);
	return rc;
}

static void test_scenarios_parse_values_and_defaults(void)
{
	struct sim_diag d;
	struct scn *s = NULL;
	int rc = parse_text(BASE, NULL, NULL, &s, &d);

	if (rc)
		sim_diag_print(&d, stderr);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	struct kq_sched *kq = s->kq;
	CU_ASSERT_STRING_EQUAL(s->id, "t");
	CU_ASSERT_EQUAL(kq->n_res, 2);
	CU_ASSERT_EQUAL(kq->n_flavors, 2);
	CU_ASSERT_EQUAL(kq->fair, 0);
	int a = kq_find(kq, "team-a"), b = kq_find(kq, "team-b"), r = kq_find(kq, "research");
	CU_ASSERT_FATAL(a >= 0 && b >= 0 && r >= 0);
	CU_ASSERT_EQUAL(kq->nodes[a].parent, r);
	CU_ASSERT_EQUAL(kq->nodes[r].parent, kq_find(kq, "root"));
	/* quotas in milli-units; limits KQ_UNSET when null or absent */
	int fr = kq_fr(kq, 0, 0);
	CU_ASSERT_EQUAL(kq->nodes[a].nominal[fr], 8000);
	CU_ASSERT_EQUAL(kq->nodes[a].borrow_limit[fr], KQ_UNSET);
	CU_ASSERT_EQUAL(kq->nodes[a].lend_limit[fr], 2000);
	CU_ASSERT_EQUAL(kq->nodes[b].nominal[kq_fr(kq, 1, 0)], 4500);
	CU_ASSERT_EQUAL(kq->nodes[b].nominal[kq_fr(kq, 0, 1)], 64000);
	/* team-a: API defaults, and one group of what its quota names */
	const struct kq_queue_cfg *ca = &kq->nodes[a].cfg, *cb = &kq->nodes[b].cfg;
	CU_ASSERT_EQUAL(ca->within, KQ_NEVER);
	CU_ASSERT_EQUAL(ca->reclaim, KQ_NEVER);
	CU_ASSERT_EQUAL(ca->bwc, 0);
	CU_ASSERT_EQUAL(ca->fung_borrow_try_next, 0);
	CU_ASSERT_EQUAL(ca->fung_preempt_try_next, 1);
	CU_ASSERT_EQUAL(ca->fung_preemption_over_borrowing, 0);
	CU_ASSERT_EQUAL(ca->min_runtime_ns, 0);
	CU_ASSERT_EQUAL(ca->checkpoint_aware, 0);
	CU_ASSERT_EQUAL(kq->nodes[a].weight_milli, 1000);
	CU_ASSERT_EQUAL(ca->n_groups, 1);
	CU_ASSERT_EQUAL(ca->groups[0].n_res, 1);
	CU_ASSERT_EQUAL(ca->groups[0].n_flavors, 1);
	CU_ASSERT_EQUAL(ca->groups[0].flavors[0], 0);
	/* team-b: every knob set */
	CU_ASSERT_EQUAL(cb->within, KQ_LOWER_PRIORITY);
	CU_ASSERT_EQUAL(cb->reclaim, KQ_ANY);
	CU_ASSERT_EQUAL(cb->bwc, 1);
	CU_ASSERT_EQUAL(cb->bwc_has_threshold, 1);
	CU_ASSERT_EQUAL(cb->bwc_threshold, 5);
	CU_ASSERT_EQUAL(cb->fung_borrow_try_next, 1);
	CU_ASSERT_EQUAL(cb->fung_preempt_try_next, 1);
	CU_ASSERT_EQUAL(cb->fung_preemption_over_borrowing, 1);
	CU_ASSERT_EQUAL(cb->min_runtime_ns, 60 * SIM_NS_PER_S);
	CU_ASSERT_EQUAL(cb->checkpoint_aware, 1);
	CU_ASSERT_EQUAL(kq->nodes[b].weight_milli, 500);
	CU_ASSERT_EQUAL(cb->n_groups, 1);
	CU_ASSERT_EQUAL(cb->groups[0].n_res, 2);
	CU_ASSERT_EQUAL(cb->groups[0].flavors[0], 1); /* a100 first, as listed */
	/* jobs: running first, ids ranked in strcmp order, times in ns */
	CU_ASSERT_EQUAL_FATAL(s->n_running, 1);
	CU_ASSERT_EQUAL_FATAL(s->n_pending, 2);
	CU_ASSERT_EQUAL(s->incoming, 0);
	const struct kq_wl *big = &s->jobs[0], *nw = &s->jobs[1], *old = &s->jobs[2];
	CU_ASSERT_STRING_EQUAL(big->name, "b-big");
	CU_ASSERT_EQUAL(big->tie, 2); /* a-new < a-old < b-big */
	CU_ASSERT_EQUAL(nw->tie, 0);
	CU_ASSERT_EQUAL(old->tie, 1);
	CU_ASSERT_EQUAL(big->queue, b);
	CU_ASSERT_EQUAL(big->req[0], 12000);
	CU_ASSERT_EQUAL(big->req[1], 0);
	CU_ASSERT_EQUAL(big->flavor[0], 0);
	CU_ASSERT_EQUAL(big->flavor[1], -1);
	CU_ASSERT_EQUAL(big->admitted, 100 * SIM_NS_PER_S);
	CU_ASSERT_EQUAL(big->created, 90 * SIM_NS_PER_S);
	CU_ASSERT_EQUAL(big->last_ckpt, big->admitted);
	CU_ASSERT_EQUAL(big->preemptible, 1);
	CU_ASSERT_EQUAL(big->evicted, 0);
	CU_ASSERT_EQUAL(nw->priority, 3);
	CU_ASSERT_EQUAL(old->priority, 0);
	CU_ASSERT_EQUAL(old->req[0], 1500);
	CU_ASSERT_EQUAL(old->created, SIM_TIME_NONE);
	/* the running job is booked: team-b uses 12 of h100 gpu */
	CU_ASSERT_EQUAL(kq->nodes[b].usage[fr], 12000);
	CU_ASSERT_EQUAL(s->now, 200 * SIM_NS_PER_S); /* the latest time of the file */
	scn_destroy(s);
	sim_diag_fini(&d);
}

static void test_scenarios_parse_extensions(void)
{
	struct sim_diag d;
	struct scn *s = NULL;
	int rc = parse_text(
	    BASE, "'admitted_at': 100,",
	    "'admitted_at': 100, 'last_checkpoint_at': 150.5, 'preemptible': false, 'evicted': true,", &s,
	    &d);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(s->jobs[0].last_ckpt, 150500000000LL);
	CU_ASSERT_EQUAL(s->jobs[0].preemptible, 0);
	CU_ASSERT_EQUAL(s->jobs[0].evicted, 1);
	scn_destroy(s);
	sim_diag_fini(&d);

	rc = parse_text(BASE, "'fair_sharing': null,",
			"'fair_sharing': {'strategies': ['LessThanInitialShare']}, 'now': 1000,"
			" 'feature_gates': {'PrioritySortingWithinCohort': true},",
			&s, &d);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(s->kq->fair, 1);
	CU_ASSERT_EQUAL(s->kq->fair_le_final, 0);
	CU_ASSERT_EQUAL(s->kq->fair_lt_initial, 1);
	CU_ASSERT_EQUAL(s->kq->fair_first_is_initial, 1);
	CU_ASSERT_EQUAL(s->now, 1000 * SIM_NS_PER_S);
	scn_destroy(s);
	sim_diag_fini(&d);

	rc = parse_text(BASE, "'fair_sharing': null,", "'fair_sharing': {},", &s, &d);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT(s->kq->fair && s->kq->fair_le_final && s->kq->fair_lt_initial &&
		  !s->kq->fair_first_is_initial);
	scn_destroy(s);
	sim_diag_fini(&d);

	/* the incoming form, with a fixed assignment */
	static const char inc[] =
		"{'flavors': ['h100'], 'queues': [{'name': 'q', 'quota': {'h100': {'gpu': {'nominal': 4}}}}],"
		" 'incoming': {'id': 'x', 'queue': 'q', 'request': {'gpu': 2}, 'created_at': 7,"
		"   'assignment': {'flavor': {'gpu': 'h100'}, 'mode': 'Preempt'}}}";
	rc = parse_text(inc, NULL, NULL, &s, &d);
	if (rc)
		sim_diag_print(&d, stderr);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(s->incoming, 1);
	CU_ASSERT_EQUAL(s->inc_fixed, 1);
	CU_ASSERT_EQUAL(s->inc_mode, KQ_PREEMPT);
	CU_ASSERT_EQUAL(s->inc_flavor[0], 0);
	CU_ASSERT_EQUAL(s->n_pending, 1);
	CU_ASSERT_EQUAL(s->now, 7 * SIM_NS_PER_S);
	CU_ASSERT_STRING_EQUAL(s->kq->res_names[0], "gpu"); /* resources default to ["gpu"] */
	scn_destroy(s);
	sim_diag_fini(&d);
}

/* The text with one replacement must fail with EPARSE and a line containing needle. */
static void expect_error(const char *from, const char *to, const char *needle)
{
	struct sim_diag d;
	struct scn *s = (struct scn *)1;
	int rc = parse_text(BASE, from, to, &s, &d);

	CU_ASSERT_EQUAL(rc, -SIM_EPARSE);
	CU_ASSERT_PTR_NULL(s);
	if (!sim_diag_contains(&d, needle)) {
		fprintf(stderr, "\nno message contains [%s]; got:\n", needle);
		sim_diag_print(&d, stderr);
		CU_FAIL("expected message missing");
	}
	sim_diag_fini(&d);
}

static void test_scenarios_parse_errors(void)
{
	expect_error("'cohort': 'research',\n   'quota'", "'cohort': 'research', 'cohrt': 1,\n   'quota'",
		     "s.json: $.queues[0].cohrt: unknown key; expected one of name, cohort,");
	expect_error("'nominal': 8,", "'nominal': 8.0001,",
		     "s.json: $.queues[0].quota.h100.gpu.nominal: expected a decimal >= 0 with at most 3 "
		     "fractional digits, got 8.0001");
	expect_error("'nominal': 8,", "'nominal': -1,",
		     "$.queues[0].quota.h100.gpu.nominal: expected a decimal");
	expect_error("'flavor': {'gpu': 'h100'}", "'flavor': {'gpu': 'v100'}",
		     "s.json: $.running[0].flavor.gpu: unknown flavor \"v100\"; expected one of $.flavors: "
		     "h100, a100");
	expect_error("'quota': {'h100': {'gpu': {'nominal': 8, 'b",
		     "'quota': {'b200': {'gpu': {'nominal': 8, 'b", "$.queues[0].quota.b200: unknown flavor");
	expect_error("'request': {'gpu': 12}", "'request': {'tpu': 12}",
		     "$.running[0].request.tpu: unknown resource");
	expect_error("'name': 'root', 'parent': null", "'name': 'root', 'parent': 'research'",
		     "s.json: $.cohorts[0].parent: cohort parents form a cycle (root -> research -> root)");
	expect_error("'cohort': 'research',\n   'quota'", "'cohort': 'nowhere',\n   'quota'",
		     "$.queues[0].cohort: unknown cohort \"nowhere\"");
	expect_error("'cohort': 'research',\n   'quota'", "'cohort': 'team-b',\n   'quota'",
		     "$.queues[0].cohort: \"team-b\" is a queue");
	expect_error("'queue': 'team-a', 'priority': 3", "'queue': 'research', 'priority': 3",
		     "$.pending[0].queue: \"research\" is a cohort");
	expect_error("{'id': 'a-old'", "{'id': 'b-big'", "$.pending[1].id: duplicate job id \"b-big\"");
	expect_error("{'name': 'team-b'", "{'name': 'research'",
		     "$.queues[1].name: duplicate name \"research\"");
	expect_error("'within_queue': 'LowerPriority'", "'within_queue': 'Any'",
		     "$.queues[1].within_queue: expected one of \"Never\", \"LowerPriority\"");
	expect_error("'fair_weight': 0.5", "'fair_weight': -0.5",
		     "$.queues[1].fair_weight: expected a decimal >= 0");
	expect_error("'created_at': 90", "'created_at': -1",
		     "$.running[0].created_at: expected seconds >= 0");
	expect_error("'fair_sharing': null,", "'fair_sharing': null, 'feature_gates': {'Nope': true},",
		     "s.json: $.feature_gates.Nope: feature gate Nope is not modelled; expected one of "
		     "RecomputeAssignmentUponPreemptionTargetsOverlap, FairSharingPreemptWithinNominal, "
		     "PrioritySortingWithinCohort");
	/* the core does not model the scan progress across cycles: refused at either value */
	expect_error("'fair_sharing': null,",
		     "'fair_sharing': null, 'feature_gates': {'FlavorFungibilityPreserveScanProgress': true},",
		     "s.json: $.feature_gates.FlavorFungibilityPreserveScanProgress: feature gate "
		     "FlavorFungibilityPreserveScanProgress is not modelled; expected one of");
	/* modelled at their default only */
	expect_error("'fair_sharing': null,",
		     "'fair_sharing': null, 'feature_gates': {'PrioritySortingWithinCohort': false},",
		     "s.json: $.feature_gates.PrioritySortingWithinCohort: feature gate "
		     "PrioritySortingWithinCohort=false is not modelled; expected true (its default)");
	expect_error("'fair_sharing': null,",
		     "'fair_sharing': null, 'feature_gates': {'FairSharingPreemptWithinNominal': false},",
		     "$.feature_gates.FairSharingPreemptWithinNominal: feature gate "
		     "FairSharingPreemptWithinNominal=false is not modelled; expected true");
	expect_error("'fair_sharing': null,",
		     "'fair_sharing': null, 'feature_gates': "
		     "{'RecomputeAssignmentUponPreemptionTargetsOverlap': 1},",
		     "$.feature_gates.RecomputeAssignmentUponPreemptionTargetsOverlap: expected true or false");
	expect_error("'fair_sharing': null,", "'fair_sharing': null, 'fair_sharing': null,",
		     "$.fair_sharing: duplicate key");
	expect_error("'flavor': {'gpu': 'h100'},", "", "$.running[0].flavor: expected an object");
	expect_error("'flavors': ['h100', 'a100']", "'flavors': ['h100', 'h100']",
		     "$.flavors[1]: duplicate name \"h100\"");
	/* syntax errors carry FILE:LINE:COL */
	expect_error("'fair_sharing': null,", "'fair_sharing': nul,", "s.json:14:18: JSON syntax error near");
}

/* The run-mode reader: same shapes, messages under the caller's path, extra keys allowed. */
static void test_scenarios_quota_tree_for_runs(void)
{
	static const char good[] = "{\"cohorts\": [{\"name\": \"org\"}], \"queues\": [{\"name\": \"q\", "
				   "\"cohort\": \"org\", \"share_strategy\": \"x\", "
				   "\"quota\": {\"h100\": {\"gpu\": {\"nominal\": 8}}}}]}";
	static const char bad[] = "{\"cohorts\": [], \"queues\": [{\"name\": \"q\", \"cohort\": \"org\", "
				  "\"quota\": {\"h100\": {\"gpu\": {\"nominal\": 8}}}, \"shares\": 1}]}";
	static const char *const extra[] = { "share_strategy", NULL };
	const char res[1][SIM_NAME_MAX] = { "gpu" }, fl[1][SIM_NAME_MAX] = { "h100" };
	struct kq_sched *kq = NULL;
	struct sim_diag d;
	cJSON *tree = cJSON_Parse(good);

	sim_diag_init(&d, 20);
	int rc = scn_read_quota_tree("c.json", "$.policies.quota", tree, 1, res, 1, fl, extra, &kq, &d);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(kq);
	CU_ASSERT(kq->finalized);
	CU_ASSERT_EQUAL(kq->nodes[kq_find(kq, "q")].parent, kq_find(kq, "org"));
	CU_ASSERT_EQUAL(kq->nodes[kq_find(kq, "org")].subtree[0], 8000);
	kq_destroy(kq);
	cJSON_Delete(tree);

	tree = cJSON_Parse(bad);
	rc = scn_read_quota_tree("c.json", "$.policies.quota", tree, 1, res, 1, fl, extra, &kq, &d);
	CU_ASSERT_EQUAL(rc, -SIM_EPARSE);
	CU_ASSERT_PTR_NULL(kq);
	CU_ASSERT(sim_diag_contains(&d, "c.json: $.policies.quota.queues[0].cohort: unknown cohort \"org\""));
	CU_ASSERT(sim_diag_contains(&d, "c.json: $.policies.quota.queues[0].shares: unknown key; expected "
					"one of name,"));
	CU_ASSERT(sim_diag_contains(&d, "checkpoint_aware, share_strategy"));
	cJSON_Delete(tree);
	sim_diag_fini(&d);
}

/* ---- the command ---------------------------------------------------------- */

static void test_scenarios_explain_command(void)
{
	char args[2048], *out = NULL;
	int rc;

	snprintf(args, sizeof args, "explain %s --json", EXAMPLE);
	rc = tu_run_gpusched(args, &out);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	cJSON *o = cJSON_Parse(out);
	if (!o || rc)
		fprintf(stderr, "\ngpusched %s:\n%s\n", args, out);
	CU_ASSERT_PTR_NOT_NULL(o);
	for (size_t i = 0; o && cycle_keys[i]; i++)
		CU_ASSERT(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(o, cycle_keys[i])));
	cJSON_Delete(o);
	free(out);

	snprintf(args, sizeof args, "explain %s", EXAMPLE);
	rc = tu_run_gpusched(args, &out);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "scenario reclaim-basic"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "a-new"));
	free(out);

	/* bad input: exit 2 with the located message */
	const char *bad = tu_write_file("bad-scenario.json",
					"{\"flavors\": [\"h100\"], \"queues\": [{\"name\": \"q\", \"quota\": "
					"{\"h100\": {\"gpu\": {\"nominal\": 0.0001}}}}]}");
	snprintf(args, sizeof args, "explain %s --json", bad);
	rc = tu_run_gpusched(args, &out);
	CU_ASSERT_EQUAL(rc, 2);
	CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "$.queues[0].quota.h100.gpu.nominal: expected a decimal"));
	free(out);

	bad = tu_write_file("cycle-scenario.json",
			    "{\"flavors\": [\"h100\"], \"cohorts\": [{\"name\": \"x\", \"parent\": \"y\"},"
			    " {\"name\": \"y\", \"parent\": \"x\"}], \"queues\": []}");
	snprintf(args, sizeof args, "explain %s", bad);
	rc = tu_run_gpusched(args, &out);
	CU_ASSERT_EQUAL(rc, 2);
	CU_ASSERT_PTR_NOT_NULL(out &&
			       strstr(out, "$.cohorts[0].parent: cohort parents form a cycle (x -> y -> x)"));
	free(out);

	rc = tu_run_gpusched("explain /nonexistent/x.json", &out);
	CU_ASSERT_EQUAL(rc, 2);
	free(out);
	rc = tu_run_gpusched("explain", &out);
	CU_ASSERT_EQUAL(rc, 2);
	free(out);
	rc = tu_run_gpusched("explain --help", &out);
	CU_ASSERT_EQUAL(rc, 0);
	free(out);
}

/* A scenario of 20,000 queues in 100 cohorts loads and decides (name lookups were
 * a linear scan each: quadratic in the queues). No timing is asserted: this fails
 * by the suite's time limit if lookups become quadratic again. */
static void test_scenarios_many_queues(void)
{
	enum { QUEUES = 20000, COHORTS = 100 };
	size_t cap = (size_t)QUEUES * 96 + COHORTS * 48 + 1024, used = 0;
	char *json = malloc(cap);
	CU_ASSERT_PTR_NOT_NULL_FATAL(json);
	used += (size_t)snprintf(json + used, cap - used, "{\"id\": \"big\", \"resources\": [\"gpu\"], "
				 "\"flavors\": [\"h100\"], \"cohorts\": [{\"name\": \"root\", \"parent\": null}");
	for (int i = 0; i < COHORTS; i++)
		used += (size_t)snprintf(json + used, cap - used, ", {\"name\": \"c%d\", \"parent\": \"root\"}", i);
	used += (size_t)snprintf(json + used, cap - used, "], \"queues\": [");
	for (int i = 0; i < QUEUES; i++)
		used += (size_t)snprintf(json + used, cap - used,
					 "%s{\"name\": \"q%d\", \"cohort\": \"c%d\", \"quota\": {\"h100\": {\"gpu\": "
					 "{\"nominal\": 8}}}}", i ? ", " : "", i, i % COHORTS);
	used += (size_t)snprintf(json + used, cap - used,
				 "], \"fair_sharing\": null, \"running\": [], \"pending\": [{\"id\": \"p\", "
				 "\"queue\": \"q19999\", \"request\": {\"gpu\": 8}, \"created_at\": 5}]}");
	CU_ASSERT_FATAL(used < cap);
	struct sim_diag d;
	struct scn *sc = NULL;
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(scn_parse("big.json", json, used, &sc, &d), 0);
	sim_diag_print(&d, stderr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sc);
	CU_ASSERT_EQUAL(sc->kq->n_nodes, QUEUES + COHORTS + 1);
	CU_ASSERT_EQUAL(kq_find(sc->kq, "q12345"), kq_find(sc->kq, "c99") + 1 + 12345);
	CU_ASSERT_EQUAL(kq_find(sc->kq, "nosuch"), -1);
	scn_destroy(sc);
	sim_diag_fini(&d);
	free(json);
}

static CU_TestInfo scenarios_tests[] = {
	{ "test_scenarios_many_queues", test_scenarios_many_queues },
	{ "test_scenarios_match_expected", test_scenarios_match_expected },
	{ "test_scenarios_parse_values_and_defaults", test_scenarios_parse_values_and_defaults },
	{ "test_scenarios_parse_extensions", test_scenarios_parse_extensions },
	{ "test_scenarios_parse_errors", test_scenarios_parse_errors },
	{ "test_scenarios_quota_tree_for_runs", test_scenarios_quota_tree_for_runs },
	{ "test_scenarios_explain_command", test_scenarios_explain_command },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo scenarios_suite = { "scenarios", init_scenarios, clean_scenarios, NULL, NULL, scenarios_tests };
