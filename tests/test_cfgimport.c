/* tests/test_cfgimport.c: YAML configs (sim/yamltree.c, experiments/config.c) and
 * `gpusched config import` (experiments/cfgimport*.c, cli/cmd_config.c).
 *
 * The import tests hold each imported quota section to a hand-written scenario:
 * the scenario's own cohorts and queues are replaced by the imported ones and
 * `gpusched explain --json` must decide the same cycle the same way. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../experiments/cfgimport.h"
#include "../experiments/config.h"
#include "../sim/yamltree.h"
#include "testutil.h"

#define KUEUE_DIR TEST_DATA_DIR "/kueue/"
#define AWS_DIR TEST_DATA_DIR "/aws/"

/* ---- quantities and the YAML reader ---- */

static sim_qty_t qty(const char *text, int gib, int *rc)
{
	cJSON *v = cJSON_CreateString(text);
	sim_qty_t m = -1;
	*rc = cfgimp_quantity(v, gib, &m);
	cJSON_Delete(v);
	return m;
}

static void test_quantities(void)
{
	int rc;
	CU_ASSERT_EQUAL(qty("500m", 0, &rc), 500);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(qty("36Gi", 1, &rc), 36000);
	CU_ASSERT_EQUAL(qty("9", 0, &rc), 9000);
	CU_ASSERT_EQUAL(qty("1.5e3", 0, &rc), 1500000);
	CU_ASSERT_EQUAL(qty("2k", 0, &rc), 2000000);
	CU_ASSERT_EQUAL(qty("512Mi", 1, &rc), 500);
	qty("64G", 1, &rc); /* 59.6046... GiB: rounded, and said so */
	CU_ASSERT_EQUAL(rc, 1);
	qty("-1", 0, &rc);
	CU_ASSERT_EQUAL(rc, -1);
	qty("abc", 0, &rc);
	CU_ASSERT_EQUAL(rc, -1);
	qty("5Zi", 0, &rc);
	CU_ASSERT_EQUAL(rc, -1);
	cJSON *n = cJSON_CreateNumber(1073741824.0);
	sim_qty_t m;
	CU_ASSERT_EQUAL(cfgimp_quantity(n, 1, &m), 0); /* a bare number of memory is bytes */
	CU_ASSERT_EQUAL(m, 1000);
	cJSON_Delete(n);
}

static void test_name_index(void)
{
	struct cfgimp_index x = { 0 };
	static char names[500][16];
	CU_ASSERT_PTR_NULL(cfgimp_index_get(&x, "a"));
	for (int i = 0; i < 500; i++) { /* several growths */
		snprintf(names[i], sizeof names[i], "q%d", i);
		CU_ASSERT_EQUAL(cfgimp_index_put(&x, names[i], names[i]), 0);
	}
	CU_ASSERT_EQUAL(x.n, 500);
	for (int i = 0; i < 500; i++)
		CU_ASSERT_PTR_EQUAL(cfgimp_index_get(&x, names[i]), names[i]);
	CU_ASSERT_PTR_NULL(cfgimp_index_get(&x, "q500"));
	CU_ASSERT_EQUAL(cfgimp_index_put(&x, "q7", names[0]), 0); /* replaces */
	CU_ASSERT_PTR_EQUAL(cfgimp_index_get(&x, "q7"), names[0]);
	CU_ASSERT_EQUAL(x.n, 500);
	cfgimp_index_fini(&x);
}

static void test_yaml_types_and_positions(void)
{
	const char *text = "a:\n  b: 12\n  c: \"12\"\n  d: ~\n  e: true\n  f: yes\n  g: [1, x]\n  h: 0x10\n"
			   "  i: !!str 5\n";
	cJSON **docs;
	size_t n;
	struct sim_srcmap map = { 0 };
	struct sim_diag d;
	sim_diag_init(&d, 8);
	CU_ASSERT_EQUAL_FATAL(sim_yaml_parse("t.yaml", text, strlen(text), &docs, &n, &map, &d), 0);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	const cJSON *a = cJSON_GetObjectItem(docs[0], "a");
	CU_ASSERT(cJSON_IsNumber(cJSON_GetObjectItem(a, "b")));
	CU_ASSERT(cJSON_IsString(cJSON_GetObjectItem(a, "c")));
	CU_ASSERT(cJSON_IsNull(cJSON_GetObjectItem(a, "d")));
	CU_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(a, "e")));
	CU_ASSERT(cJSON_IsString(cJSON_GetObjectItem(a, "f"))); /* YAML 1.2: yes is a word */
	CU_ASSERT_EQUAL(cJSON_GetObjectItem(a, "h")->valuedouble, 16);
	CU_ASSERT(cJSON_IsString(cJSON_GetObjectItem(a, "i")));
	const struct sim_srcpos *p = sim_srcmap_find_path(&map, 0, "$.a.g[1]");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(p->line, 7);
	CU_ASSERT_EQUAL(p->col, 10);
	p = sim_srcmap_find_path(&map, 0, "$.a.c.missing"); /* nearest ancestor written */
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(p->line, 3);
	CU_ASSERT_EQUAL(p->col, 3);
	cJSON_Delete(docs[0]);
	free(docs);
	sim_srcmap_fini(&map);

	const char *alias = "a: &x 1\nb: *x\n";
	CU_ASSERT_EQUAL(sim_yaml_parse("t.yaml", alias, strlen(alias), &docs, &n, NULL, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "t.yaml:2:4: YAML aliases"));
	const char *bad = "a: [1, 2\nb: 3\n";
	CU_ASSERT_EQUAL(sim_yaml_parse("t.yaml", bad, strlen(bad), &docs, &n, NULL, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "t.yaml:2:2: YAML syntax error"));
	sim_diag_fini(&d);
}

/* What the writer prints reads back as the same tree (strings that look like
 * numbers, booleans or null stay strings). */
static void test_yaml_write_reads_back(void)
{
	const char *json = "{\"s\": [\"true\", \"123\", \"\", \"a: b\", \"null\", \"x\"], \"n\": 0.125, \"e\": {},"
			   " \"l\": [], \"z\": null, \"b\": false, \"nested\": {\"k\": [{\"a\": 1}]}}";
	cJSON *tree = cJSON_Parse(json);
	const char *path = tu_tmp_path("rt.yaml");
	FILE *f = fopen(path, "w");
	CU_ASSERT_EQUAL_FATAL(sim_yaml_write(f, tree), 0);
	fclose(f);
	size_t len;
	char *text = tu_read_file(path, &len);
	cJSON **docs;
	size_t n;
	struct sim_diag d;
	sim_diag_init(&d, 8);
	CU_ASSERT_EQUAL_FATAL(sim_yaml_parse(path, text, len, &docs, &n, NULL, &d), 0);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT(cJSON_Compare(tree, docs[0], 1));
	cJSON_Delete(docs[0]);
	free(docs);
	free(text);
	cJSON_Delete(tree);
	sim_diag_fini(&d);
}

/* ---- YAML experiment configs ---- */

static const char yaml_config[] = "name: y\n"
				  "trace:\n"
				  "  path: t.csv\n"
				  "cluster:\n"
				  "  flavors:\n"
				  "    - name: v100\n"
				  "      nodes: 16\n"
				  "      node: {gpu: 8}\n"
				  "seeds: [1, 2]\n";

static void test_yaml_config_same_as_json(void)
{
	const char *json = "{\"name\": \"y\", \"trace\": {\"path\": \"t.csv\"}, \"cluster\": {\"flavors\": "
			   "[{\"name\": \"v100\", \"nodes\": 16, \"node\": {\"gpu\": 8}}]}, \"seeds\": [1, 2]}";
	struct exp_config *a = NULL, *b = NULL;
	struct sim_diag d;
	sim_diag_init(&d, 8);
	CU_ASSERT_EQUAL_FATAL(exp_config_parse("c.yaml", yaml_config, strlen(yaml_config), &a, &d), 0);
	CU_ASSERT_EQUAL_FATAL(exp_config_parse("c.json", json, strlen(json), &b, &d), 0);
	CU_ASSERT_EQUAL(a->n_seeds, 2);
	CU_ASSERT_EQUAL(a->variants[0].flavors[0].nodes, b->variants[0].flavors[0].nodes);
	cJSON *ta = cJSON_Parse(a->text), *tb = cJSON_Parse(b->text); /* experiment_json is JSON for both */
	CU_ASSERT(cJSON_Compare(ta, tb, 1));
	cJSON_Delete(ta);
	cJSON_Delete(tb);
	exp_config_destroy(a);
	exp_config_destroy(b);
	sim_diag_fini(&d);
}

static void test_yaml_config_errors_located(void)
{
	char text[1024];
	snprintf(text, sizeof text, "%s", yaml_config);
	char *at = strstr(text, "nodes: 16");
	memcpy(at, "nodez", 5); /* line 7, column 7 */
	struct exp_config *c = NULL;
	struct sim_diag d;
	sim_diag_init(&d, 8);
	CU_ASSERT_EQUAL(exp_config_parse("c.yaml", text, strlen(text), &c, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "c.yaml:7:7: $.cluster.flavors[0].nodez: unknown key"));
	/* a required key that is missing points at the object that lacks it (line 6) */
	CU_ASSERT(sim_diag_contains(&d, "c.yaml:6:7: $.cluster.flavors[0].nodes: expected integer"));
	sim_diag_fini(&d);
	sim_diag_init(&d, 8);
	const char *two = "name: a\n---\nname: b\n";
	CU_ASSERT_EQUAL(exp_config_parse("c.yaml", two, strlen(two), &c, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "expected one YAML document"));
	sim_diag_fini(&d);
}

/* A policy error found at run time (after the load) is located in the YAML file. */
static void test_yaml_config_run_error_located(void)
{
	tu_write_file("t.csv", "id,submit_s,duration_s,request,queue\nj1,0,10,*:gpu=1,q1\n");
	const char *cfg = tu_write_file("p.yaml", "name: p\n"
						  "trace: {path: t.csv}\n"
						  "cluster:\n"
						  "  flavors: [{name: f, nodes: 2, node: {gpu: 8}}]\n"
						  "policies:\n"
						  "  quota:\n"
						  "    name: cohort\n"
						  "    queues:\n"
						  "      - name: q1\n"
						  "        quota: {f: {gpu: {nominal: 8}}}\n"
						  "        share_strategy: SOMETIMES\n"
						  "seeds: [1]\n"
						  "output: p.h5\n");
	char args[1024], *out = NULL;
	snprintf(args, sizeof args, "run %s", cfg);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "p.yaml:11:9: $.policies.quota.queues[0].share_strategy"));
	free(out);
}

/* A YAML scenario decides as its JSON twin; its errors are located in the YAML. */
static void test_yaml_scenario(void)
{
	const char *y = tu_write_file("reclaim.yaml", "id: reclaim-basic\n"
						      "resources: [gpu]\n"
						      "flavors: [h100]\n"
						      "cohorts: [{name: research, parent: null}]\n"
						      "queues:\n"
						      "  - name: team-a\n"
						      "    cohort: research\n"
						      "    quota: {h100: {gpu: {nominal: 8}}}\n"
						      "    within_queue: LowerPriority\n"
						      "    reclaim_within_cohort: Any\n"
						      "  - name: team-b\n"
						      "    cohort: research\n"
						      "    quota: {h100: {gpu: {nominal: 8}}}\n"
						      "    within_queue: LowerPriority\n"
						      "    reclaim_within_cohort: Any\n"
						      "running:\n"
						      "  - {id: b-big, queue: team-b, flavor: {gpu: h100}, request: {gpu: 12},\n"
						      "     admitted_at: 100, created_at: 90}\n"
						      "pending:\n"
						      "  - {id: a-new, queue: team-a, request: {gpu: 8}, created_at: 200}\n");
	char args[1024], *yaml_out = NULL, *json_out = NULL;
	snprintf(args, sizeof args, "explain %s --json", y);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &yaml_out), 0);
	CU_ASSERT_EQUAL(tu_run_gpusched("explain " TEST_SOURCE_DIR "/experiments/scenarios/reclaim-basic.json --json",
					&json_out), 0);
	CU_ASSERT_STRING_EQUAL(yaml_out, json_out);
	free(yaml_out);
	free(json_out);
	const char *bad = tu_write_file("bad-scn.yaml", "resources: [gpu]\n"
							"flavors: [h100]\n"
							"queues:\n"
							"  - name: q\n"
							"    quota: {h100: {gpu: {nominal: -8}}}\n");
	snprintf(args, sizeof args, "explain %s", bad);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &yaml_out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(yaml_out, "bad-scn.yaml:5:26: $.queues[0].quota.h100.gpu.nominal"));
	free(yaml_out);
}

/* A YAML generator config generates the trace its JSON twin does; errors located. */
static void test_yaml_gen_config(void)
{
	const char *json = tu_write_file("g.json", "{\"jobs\": 50, \"seed\": 3, \"arrivals\": {\"process\": "
						   "\"poisson\", \"rate_per_h\": 10}, \"durations\": {\"law\": "
						   "\"lognormal\", \"median_s\": 600, \"sigma\": 1}}\n");
	const char *yaml = tu_write_file("g.yaml", "jobs: 50\n"
						   "seed: 3\n"
						   "arrivals: {process: poisson, rate_per_h: 10}\n"
						   "durations:\n"
						   "  law: lognormal\n"
						   "  median_s: 600\n"
						   "  sigma: 1\n");
	char args[2048], *out = NULL;
	const char *tj = tu_tmp_path("gj.csv"), *ty = tu_tmp_path("gy.csv");
	snprintf(args, sizeof args, "trace gen %s -o %s && %s trace gen %s -o %s", json, tj, GPUSCHED_BIN, yaml, ty);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	free(out);
	size_t la, lb;
	char *a = tu_read_file(tj, &la), *b = tu_read_file(ty, &lb);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	/* the first line names the config file; every job after it is the same */
	const char *ja = strchr(a, '\n'), *jb = strchr(b, '\n');
	CU_ASSERT(ja && jb && strcmp(ja, jb) == 0);
	free(a);
	free(b);
	const char *bad = tu_write_file("gbad.yaml", "jobs: 50\narrivals: {process: poisson, rate_per_h: 10}\n"
						     "durations:\n  law: lognormal\n  median_s: -600\n  sigma: 1\n");
	snprintf(args, sizeof args, "trace gen %s -o %s", bad, tu_tmp_path("gbad.csv"));
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "gbad.yaml:5:3: $.durations.median_s"));
	free(out);
}

/* ---- import, held to hand-written scenarios through explain ---- */

/* The run-only queue keys, turned into what they mean for one cycle (the rules of
 * docs/config-import.md and experiments/README.md), so the quota section can stand
 * in a scenario: share strategies become limits; retry limits, preemption caps and
 * the queueing strategy do not change a single cycle with one head a queue. */
static void as_scenario_queue(cJSON *q)
{
	const cJSON *st = cJSON_GetObjectItem(q, "share_strategy");
	const cJSON *pct = cJSON_GetObjectItem(q, "borrow_limit_percent");
	const cJSON *quota = cJSON_GetObjectItem(q, "quota");
	for (const cJSON *fl = quota ? quota->child : NULL; st && fl; fl = fl->next)
		for (cJSON *r = fl->child; r; r = r->next) {
			double nominal = cJSON_GetObjectItem(r, "nominal")->valuedouble;
			if (strcmp(st->valuestring, "LEND_AND_BORROW") != 0 || (pct && pct->valuedouble >= 0))
				cJSON_AddNumberToObject(r, "borrowing_limit",
							strcmp(st->valuestring, "LEND_AND_BORROW")
								? 0
								: round(nominal * pct->valuedouble / 100 * 1000) / 1000);
			if (strcmp(st->valuestring, "RESERVE") == 0)
				cJSON_AddNumberToObject(r, "lending_limit", 0);
		}
	static const char *const run_only[] = { "share_strategy", "borrow_limit_percent", "preemption_retry_limit",
						"max_preemptions_per_hour", "queueing_strategy", NULL };
	for (int i = 0; run_only[i]; i++)
		cJSON_DeleteItemFromObject(q, run_only[i]);
}

/* explain --json of path, or NULL when it fails. */
static char *explain(const char *path)
{
	char args[1024], *out = NULL;
	snprintf(args, sizeof args, "explain %s --json 2>&1", path);
	int rc = tu_run_gpusched(args, &out);
	if (rc != 0) {
		fprintf(stderr, "explain %s: exit %d: %s\n", path, rc, out ? out : "");
		free(out);
		return NULL;
	}
	return out;
}

/* Imports files, puts the result into the hand-written scenario in place of its own
 * cohorts and queues, and compares the two decisions. */
static void check_same_decision(const char *format, const char *const *files, size_t n, const char *cluster_cfg,
				const char *scenario)
{
	struct exp_config *cfg = NULL;
	struct cfgimp_cluster cl = { .cpu_res = -1, .mem_res = -1 };
	struct sim_diag d;
	sim_diag_init(&d, 20);
	if (cluster_cfg) {
		CU_ASSERT_EQUAL_FATAL(exp_config_load(cluster_cfg, &cfg, &d), 0);
		cl = (struct cfgimp_cluster){ .flavors = cfg->variants[0].flavors, .cpu_res = -1, .mem_res = -1,
					      .n_flavors = cfg->variants[0].n_flavors };
		for (int r = 0; r < cfg->variants[0].res.n; r++) {
			const char *nm = cfg->variants[0].res.names[r];
			if (strcmp(nm, "gpu") == 0)
				cl.gpu_res = r;
			cl.cpu_res = strcmp(nm, "cpu") == 0 ? r : cl.cpu_res;
			cl.mem_res = strcmp(nm, "memory") == 0 ? r : cl.mem_res;
		}
	}
	cJSON *quota = NULL;
	FILE *quiet = fopen("/dev/null", "w");
	int rc = cfgimp_import(format, files, n, cluster_cfg ? &cl : NULL, &quota, quiet, &d);
	fclose(quiet);
	if (rc)
		sim_diag_print(&d, stderr);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	size_t len;
	char *text = tu_read_file(scenario, &len);
	cJSON *scn = cJSON_Parse(text);
	free(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(scn);
	cJSON *queues = cJSON_DetachItemFromObject(quota, "queues");
	for (cJSON *q = queues->child; q; q = q->next)
		as_scenario_queue(q);
	cJSON_ReplaceItemInObject(scn, "queues", queues);
	cJSON_DeleteItemFromObject(scn, "cohorts");
	cJSON_AddItemToObject(scn, "cohorts", cJSON_DetachItemFromObject(quota, "cohorts"));
	char *spliced = cJSON_Print(scn);
	const char *path = tu_write_file("imported.scenario.json", spliced);
	char *want = explain(scenario), *got = explain(path);
	CU_ASSERT_PTR_NOT_NULL(want);
	CU_ASSERT_PTR_NOT_NULL(got);
	if (want && got && strcmp(want, got) != 0)
		fprintf(stderr, "\n%s:\n hand-written: %s imported:     %s", scenario, want, got);
	CU_ASSERT(want && got && strcmp(want, got) == 0);
	free(want);
	free(got);
	cJSON_free(spliced);
	cJSON_Delete(scn);
	cJSON_Delete(quota);
	exp_config_destroy(cfg);
	sim_diag_fini(&d);
}

static void test_kueue_doc_examples_decide_as_hand_written(void)
{
	static const char *const cases[] = { "single-clusterqueue-setup", "cohort-borrowing", "borrowing-limit",
					     "lending-limit", "cohort-quota", "tas-sample-gpu-queues",
					     "shared-quota-setup", "reclaim-v1beta1-list", "quick-start-setup",
					     "concurrent-admission-setup", "provisioning-setup", "multikueue-setup",
					     "admission-fair-sharing-setup", "sample-dra-capacity-queues", NULL };
	for (int i = 0; cases[i]; i++) {
		char manifest[512], scenario[512];
		snprintf(manifest, sizeof manifest, KUEUE_DIR "%s.yaml", cases[i]);
		snprintf(scenario, sizeof scenario, KUEUE_DIR "%s.scenario.json", cases[i]);
		const char *files[] = { manifest };
		check_same_decision("kueue", files, 1, NULL, scenario);
	}
}

/* The documentation's other quota examples (TAS, MultiKueue, DRA, HAMi, resource
 * groups) import; what they hold beyond quotas is warned about. */
static void test_kueue_other_doc_examples_import(void)
{
	static const char *const files[] = { "cluster-queue-flavors-and-resources", "cluster-queue-resource-groups",
					     "concurrent-admission-zones", "multikueue-tas-manager-setup",
					     "multikueue-tas-worker-setup", "sample-dra-counter-queues",
					     "sample-dra-queues", "sample-hami", "tas-sample-queues", NULL };
	for (int i = 0; files[i]; i++) {
		char args[1024], *out = NULL;
		snprintf(args, sizeof args, "config import --format kueue " KUEUE_DIR "import-only/%s.yaml -o %s",
			 files[i], tu_tmp_path("other.json"));
		int rc = tu_run_gpusched(args, &out);
		if (rc != 0)
			fprintf(stderr, "\n%s: exit %d\n%s", files[i], rc, out);
		CU_ASSERT_EQUAL(rc, 0);
		free(out);
	}
	/* hierarchical cohorts keep their parents and fair-sharing weights */
	char args[1024], *out = NULL;
	snprintf(args, sizeof args, "config import --format kueue " KUEUE_DIR "hierarchical-cohorts.yaml -o %s",
		 tu_tmp_path("h.yaml"));
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	free(out);
	size_t len;
	char *text = tu_read_file(tu_tmp_path("h.yaml"), &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "- name: important-org\n  parent: root-cohort\n  quota: {}\n  fair_weight: 0.75"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "- name: root-cohort\n  parent: null"));
	free(text);
}

static void test_aws_decides_as_hand_written(void)
{
	const char *files[] = { AWS_DIR "quota-shares.json", AWS_DIR "scheduling-policy.json",
				AWS_DIR "service-job.json" };
	check_same_decision("aws-batch", files, 3, AWS_DIR "cluster.json", AWS_DIR "aws.scenario.json");
}

static void test_hyperpod_decides_as_hand_written(void)
{
	const char *files[] = { TEST_DATA_DIR "/hyperpod/compute-quotas.json",
				TEST_DATA_DIR "/hyperpod/cluster-policy.json" };
	check_same_decision("hyperpod", files, 2, TEST_DATA_DIR "/hyperpod/cluster.yaml",
			    TEST_DATA_DIR "/hyperpod/hyperpod.scenario.json");
}

/* ---- the command: outputs, warnings, errors ---- */

static void test_cli_yaml_output_reads_back(void)
{
	const char *y = tu_tmp_path("quota.yaml");
	char args[1024], *out = NULL, *json = NULL;
	snprintf(args, sizeof args, "config import --format kueue " KUEUE_DIR "reclaim-v1beta1-list.yaml -o%s", y);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	free(out);
	const char *jpath = tu_tmp_path("quota.json");
	snprintf(args, sizeof args, "config import --format=kueue " KUEUE_DIR "reclaim-v1beta1-list.yaml --output=%s", jpath);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	free(out);
	size_t len;
	json = tu_read_file(jpath, &len);
	char *text = tu_read_file(y, &len);
	cJSON **docs;
	size_t n;
	struct sim_diag d;
	sim_diag_init(&d, 4);
	CU_ASSERT_EQUAL_FATAL(sim_yaml_parse(y, text, len, &docs, &n, NULL, &d), 0);
	cJSON *j = cJSON_Parse(json);
	CU_ASSERT(n == 1 && cJSON_Compare(docs[0], j, 1));
	cJSON_Delete(j);
	for (size_t i = 0; i < n; i++)
		cJSON_Delete(docs[i]);
	free(docs);
	free(text);
	free(json);
	sim_diag_fini(&d);
}

static void test_cli_warns_unmodelled(void)
{
	char *out = NULL;
	char args[1024];
	const char *o = tu_tmp_path("tas.json");
	snprintf(args, sizeof args, "config import --format kueue " KUEUE_DIR "tas-sample-gpu-queues.yaml -o %s", o);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "tas-sample-gpu-queues.yaml:1:1: warning: Kueue kind Topology"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "tas-sample-gpu-queues.yaml:18:3: warning: ResourceFlavor topologyName"));
	free(out);
	snprintf(args, sizeof args, "config import --format kueue " KUEUE_DIR "multikueue-setup.yaml -o %s", o);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "multikueue-setup.yaml:21:3: warning: ClusterQueue admissionChecksStrategy"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "multikueue-setup.yaml:44:1: warning: Kueue kind MultiKueueConfig"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "multikueue-setup.yaml:52:1: warning: Kueue kind MultiKueueCluster"));
	free(out);
	const char *m = tu_write_file("ac.yaml", "apiVersion: kueue.x-k8s.io/v1beta2\n"
						 "kind: ClusterQueue\n"
						 "metadata: {name: cq}\n"
						 "spec:\n"
						 "  admissionChecksStrategy:\n"
						 "    admissionChecks: [{name: prov}]\n"
						 "  resourceGroups:\n"
						 "  - coveredResources: [cpu]\n"
						 "    flavors: [{name: f, resources: [{name: cpu, nominalQuota: 500m}]}]\n");
	snprintf(args, sizeof args, "config import --format kueue %s", m);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "ac.yaml:5:3: warning: ClusterQueue admissionChecksStrategy"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"nominal\":\t0.5"));
	free(out);
	const char *lq = tu_write_file("lq.yaml", "apiVersion: kueue.x-k8s.io/v1beta2\n"
						  "kind: LocalQueue\n"
						  "metadata: {name: lq, namespace: team}\n"
						  "spec: {clusterQueue: elsewhere}\n");
	snprintf(args, sizeof args, "config import --format kueue %s %s", m, lq);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "lq.yaml:4:8: warning: LocalQueue for ClusterQueue elsewhere"));
	free(out);
}

/* With --cluster, every flavor a quota names must be one of the cluster's. */
static void test_cli_kueue_flavors_checked_against_cluster(void)
{
	char args[1024], *out = NULL;
	snprintf(args, sizeof args, "config import --format kueue --cluster " AWS_DIR "cluster.json "
		 KUEUE_DIR "reclaim-v1beta1-list.yaml");
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "reclaim-v1beta1-list.yaml:27:9: ClusterQueue team-a: flavor h100 is not a "
					   "flavor of the --cluster config"));
	free(out);
}

/* Bad input: a located error, exit 2, and no output file (nor temporary) left. */
static void test_cli_bad_input_located_nothing_written(void)
{
	const char *m = tu_write_file("bad.yaml", "apiVersion: kueue.x-k8s.io/v1beta2\n"
						  "kind: ClusterQueue\n"
						  "metadata:\n"
						  "  name: cq\n"
						  "spec:\n"
						  "  resourceGroups:\n"
						  "  - coveredResources: [cpu]\n"
						  "    flavors:\n"
						  "    - name: f\n"
						  "      resources:\n"
						  "      - name: cpu\n"
						  "        nominalQuota: lots\n");
	const char *o = tu_tmp_path("bad-out.json");
	char args[1024], *out = NULL;
	snprintf(args, sizeof args, "config import --format kueue %s -o %s", m, o);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "bad.yaml:12:9: ClusterQueue cq: nominalQuota: expected a Kubernetes "
					   "quantity"));
	CU_ASSERT(!tu_exists(o));
	free(out);
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "ls %s | grep -c 'bad-out.json.*tmp' >/dev/null", tu_tmpdir());
	CU_ASSERT_NOT_EQUAL(system(cmd), 0);

	m = tu_write_file("syntax.yaml", "kind: ClusterQueue\nspec: [a\n");
	snprintf(args, sizeof args, "config import --format kueue %s -o %s", m, o);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "syntax.yaml:3:1: YAML syntax error"));
	CU_ASSERT(!tu_exists(o));
	free(out);

	m = tu_write_file("typo.yaml", "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\n"
				       "spec:\n  cohortNme: x\n");
	snprintf(args, sizeof args, "config import --format kueue %s", m);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "typo.yaml:5:3: ClusterQueue cq: unknown key 'cohortNme'"));
	free(out);

	m = tu_write_file("cycle.yaml", "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {name: x}\n"
					"spec: {parentName: y}\n---\n"
					"apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {name: y}\n"
					"spec: {parentName: x}\n---\n"
					"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: q}\n"
					"spec: {cohortName: x}\n");
	snprintf(args, sizeof args, "config import --format kueue %s", m);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "cycle.yaml:4:8: Cohort x: parentName y leads back to this cohort"));
	free(out);

	m = tu_write_file("dup.yaml", "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: q}\n"
				      "spec:\n  cohortName: a\n  cohortName: b\n");
	snprintf(args, sizeof args, "config import --format kueue %s", m);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "dup.yaml:6:3: $.spec.cohortName: duplicate key"));
	free(out);

	const char *a = tu_write_file("aws-bad.json", "{\"quotaShareName\": \"s\", \"jobQueue\": \"q\",\n"
						      " \"capacityLimits\": [{\"capacityUnit\": \"ml.p4d.24xlarge\", "
						      "\"maxCapacity\": 1}],\n"
						      " \"resourceSharingConfiguration\": {\"strategy\": \"LEND\"},\n"
						      " \"preemptionConfiguration\": {\"inSharePreemption\": \"DISABLED\"}}\n");
	snprintf(args, sizeof args, "config import --format aws-batch --cluster " AWS_DIR "cluster.json %s -o %s", a,
		 o);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "aws-bad.json:2:22: quota share s: expected capacityUnit"));
	CU_ASSERT(!tu_exists(o));
	free(out);
	const char *h = tu_write_file("hp-bad.json", "{\"ClusterArn\": \"arn:aws:sagemaker:r:1:cluster/c\",\n"
						     " \"ComputeQuotaTarget\": {\"TeamName\": \"t\"},\n"
						     " \"ComputeQuotaConfig\": {\"ResourceSharingConfig\": "
						     "{\"Strategy\": \"LendSometimes\"}}}\n");
	snprintf(args, sizeof args, "config import --format hyperpod --cluster " TEST_DATA_DIR "/hyperpod/cluster.yaml "
		 "%s -o %s", h, o);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "hp-bad.json:3:51: compute allocation of team t: expected Strategy"));
	CU_ASSERT(!tu_exists(o));
	free(out);
	snprintf(args, sizeof args, "config import --format aws-batch %s", a);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2); /* no --cluster */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "expected --cluster CONFIG"));
	free(out);
}

static CU_TestInfo cfgimport_tests[] = {
	{ "quantities", test_quantities },
	{ "name_index", test_name_index },
	{ "yaml_types_and_positions", test_yaml_types_and_positions },
	{ "yaml_write_reads_back", test_yaml_write_reads_back },
	{ "yaml_config_same_as_json", test_yaml_config_same_as_json },
	{ "yaml_config_errors_located", test_yaml_config_errors_located },
	{ "yaml_config_run_error_located", test_yaml_config_run_error_located },
	{ "yaml_scenario", test_yaml_scenario },
	{ "yaml_gen_config", test_yaml_gen_config },
	{ "kueue_doc_examples_decide_as_hand_written", test_kueue_doc_examples_decide_as_hand_written },
	{ "kueue_other_doc_examples_import", test_kueue_other_doc_examples_import },
	{ "aws_decides_as_hand_written", test_aws_decides_as_hand_written },
	{ "hyperpod_decides_as_hand_written", test_hyperpod_decides_as_hand_written },
	{ "cli_yaml_output_reads_back", test_cli_yaml_output_reads_back },
	{ "cli_warns_unmodelled", test_cli_warns_unmodelled },
	{ "cli_kueue_flavors_checked_against_cluster", test_cli_kueue_flavors_checked_against_cluster },
	{ "cli_bad_input_located_nothing_written", test_cli_bad_input_located_nothing_written },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo cfgimport_suite = { "cfgimport", NULL, NULL, NULL, NULL, cfgimport_tests };
