/* tests/test_config.c: the experiment config loader (experiments/config.c).
 *
 * Good configs are checked value by value; bad ones (tests/data/configs/) must fail
 * with the right return value and a message that names the place and what was expected.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/config.h"
#include "testutil.h"

#define CFG_DIR TEST_DATA_DIR "/configs/"

/* A minimal config head; the inline cases append their tail and the closing brace. */
#define MINIMAL_HEAD "{'name': 't', 'trace': {'path': 't.csv'}"

/* Parses a config text written with ' for " (easier to read in C), after converting it. */
static int parse_text(const char *path, const char *text, struct exp_config **cfg, struct sim_diag *d)
{
	size_t n = strlen(text);
	char *json = malloc(n + 1);
	int rc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(json);
	for (size_t i = 0; i <= n; i++)
		json[i] = text[i] == '\'' ? '"' : text[i];
	sim_diag_init(d, 20);
	rc = exp_config_parse(path, json, n, cfg, d);
	free(json);
	return rc;
}

/* Loads a bad config from tests/data/configs, expects rc and every needle in the messages. */
static void expect_bad(const char *file, int want_rc, const char *needle1, const char *needle2)
{
	char path[1024];
	struct exp_config *cfg = (struct exp_config *)1;
	struct sim_diag d;
	int rc;

	snprintf(path, sizeof path, "%s%s", CFG_DIR, file);
	sim_diag_init(&d, 20);
	rc = exp_config_load(path, &cfg, &d);
	CU_ASSERT_EQUAL(rc, want_rc);
	CU_ASSERT_PTR_NULL(cfg);
	CU_ASSERT(d.count >= 1);
	if (needle1 && !sim_diag_contains(&d, needle1)) {
		fprintf(stderr, "\n%s: no line contains [%s]; got:\n", file, needle1);
		sim_diag_print(&d, stderr);
		CU_FAIL("message 1 not found");
	}
	if (needle2 && !sim_diag_contains(&d, needle2)) {
		fprintf(stderr, "\n%s: no line contains [%s]; got:\n", file, needle2);
		sim_diag_print(&d, stderr);
		CU_FAIL("message 2 not found");
	}
	exp_config_destroy(cfg == (struct exp_config *)1 ? NULL : cfg);
	sim_diag_fini(&d);
}

static void test_config_minimal(void)
{
	const char *path = TEST_SOURCE_DIR "/experiments/fifo-small.json";
	struct exp_config *cfg = NULL;
	struct sim_diag d;
	size_t len = 0;
	char *text = tu_read_file(path, &len);

	sim_diag_init(&d, 20);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_EQUAL_FATAL(exp_config_load(path, &cfg, &d), 0);
	CU_ASSERT_EQUAL(d.count, 0);
	CU_ASSERT_STRING_EQUAL(cfg->path, path);
	CU_ASSERT_STRING_EQUAL(cfg->text, text);
	CU_ASSERT_STRING_EQUAL(cfg->name, "fifo-small");
	CU_ASSERT_STRING_EQUAL(cfg->trace_path, TEST_SOURCE_DIR "/experiments/../traces/data/sample.csv");
	CU_ASSERT_STRING_EQUAL(cfg->trace_format, "native");
	CU_ASSERT_STRING_EQUAL(cfg->output, TEST_SOURCE_DIR "/experiments/../results/fifo-small.h5");
	CU_ASSERT_DOUBLE_EQUAL(cfg->sample_s, 0.0, 0.0);
	CU_ASSERT_EQUAL_FATAL(cfg->n_seeds, 1);
	CU_ASSERT_EQUAL(cfg->seeds[0], 1);
	CU_ASSERT_EQUAL_FATAL(cfg->n_variants, 1);

	const struct exp_variant *v = &cfg->variants[0];
	CU_ASSERT_STRING_EQUAL(v->name, "base");
	CU_ASSERT_EQUAL(v->res.n, 1);
	CU_ASSERT_STRING_EQUAL(v->res.names[0], "gpu");
	CU_ASSERT_EQUAL_FATAL(v->n_flavors, 1);
	CU_ASSERT_STRING_EQUAL(v->flavors[0].name, "v100");
	CU_ASSERT_EQUAL(v->flavors[0].nodes, 16);
	CU_ASSERT_EQUAL(v->flavors[0].node_cap[SIM_RES_GPU], 8000);
	CU_ASSERT_DOUBLE_EQUAL(v->flavors[0].speed, 1.0, 0.0);
	CU_ASSERT_DOUBLE_EQUAL(v->flavors[0].price_per_node_hour, 24.0, 0.0);
	CU_ASSERT_STRING_EQUAL(v->policy[SIM_FAM_ORDER], "fifo");
	CU_ASSERT_STRING_EQUAL(v->policy[SIM_FAM_QUOTA], "none");
	CU_ASSERT_STRING_EQUAL(v->policy[SIM_FAM_PREEMPT], "none");
	CU_ASSERT_STRING_EQUAL(v->policy[SIM_FAM_FALLBACK], "strict");
	CU_ASSERT_STRING_EQUAL(v->policy_path[SIM_FAM_ORDER], "$.policies.order");
	CU_ASSERT_STRING_EQUAL(v->policy_path[SIM_FAM_QUOTA], "$.policies.quota");
	CU_ASSERT_STRING_EQUAL(v->policy_path[SIM_FAM_PREEMPT], "$.policies.preemption");
	CU_ASSERT_STRING_EQUAL(v->policy_path[SIM_FAM_FALLBACK], "$.policies.fallback");
	for (int f = 0; f < SIM_FAM_COUNT_; f++)
		CU_ASSERT_PTR_NULL(v->policy_params[f]);
	CU_ASSERT_EQUAL(v->placement, SIM_PLACE_BEST_FIT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v->tree);
	CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItemCaseSensitive(v->tree, "name")->valuestring, "fifo-small");
	exp_config_destroy(cfg);
	sim_diag_fini(&d);
	free(text);
}

static void test_config_defaults(void)
{
	const char *text = "{'name': 'dflt', 'trace': {'path': 'data/t.csv'},"
			   " 'cluster': {'flavors': [{'name': 'a', 'nodes': 0, 'node': {'gpu': 0.5}}]}}";
	struct exp_config *cfg = NULL;
	struct sim_diag d;

	CU_ASSERT_EQUAL_FATAL(parse_text("/x/y/exp.json", text, &cfg, &d), 0);
	CU_ASSERT_STRING_EQUAL(cfg->trace_path, "/x/y/data/t.csv");
	CU_ASSERT_STRING_EQUAL(cfg->trace_format, "native");
	CU_ASSERT_STRING_EQUAL(cfg->output, "/x/y/results/dflt.h5");
	CU_ASSERT_DOUBLE_EQUAL(cfg->sample_s, 0.0, 0.0);
	CU_ASSERT_EQUAL_FATAL(cfg->n_seeds, 1);
	CU_ASSERT_EQUAL(cfg->seeds[0], 1);
	CU_ASSERT_EQUAL_FATAL(cfg->n_variants, 1);
	const struct exp_variant *v = &cfg->variants[0];
	CU_ASSERT_STRING_EQUAL(v->name, "base");
	CU_ASSERT_EQUAL(v->flavors[0].nodes, 0);
	CU_ASSERT_EQUAL(v->flavors[0].node_cap[SIM_RES_GPU], 500);
	CU_ASSERT_DOUBLE_EQUAL(v->flavors[0].speed, 1.0, 0.0);
	CU_ASSERT_DOUBLE_EQUAL(v->flavors[0].price_per_node_hour, 0.0, 0.0);
	CU_ASSERT_STRING_EQUAL(v->policy[SIM_FAM_ORDER], "fifo");
	CU_ASSERT_STRING_EQUAL(v->policy[SIM_FAM_QUOTA], "none");
	CU_ASSERT_STRING_EQUAL(v->policy[SIM_FAM_PREEMPT], "none");
	CU_ASSERT_STRING_EQUAL(v->policy[SIM_FAM_FALLBACK], "strict");
	CU_ASSERT_EQUAL(v->placement, SIM_PLACE_BEST_FIT);
	exp_config_destroy(cfg);
	sim_diag_fini(&d);

	/* A config named without a folder keeps its relative paths as they are. */
	CU_ASSERT_EQUAL_FATAL(parse_text("exp.json", text, &cfg, &d), 0);
	CU_ASSERT_STRING_EQUAL(cfg->trace_path, "data/t.csv");
	CU_ASSERT_STRING_EQUAL(cfg->output, "results/dflt.h5");
	exp_config_destroy(cfg);
	sim_diag_fini(&d);
}

static void test_config_every_key(void)
{
	const char *text =
		"{'name': 'full', 'description': 'all keys',\n"
		" 'trace': {'path': '/abs/t.csv', 'format': 'native'},\n"
		" 'cluster': {'resources': ['cpu', 'mem_gib'], 'flavors': [\n"
		"   {'name': 'h100', 'nodes': 4, 'node': {'gpu': 8, 'cpu': 96.5, 'mem_gib': 1024.125},\n"
		"    'speed': 2.5, 'price_per_node_hour': 98.32},\n"
		"   {'name': 'l4.small-1', 'nodes': 3, 'node': {'gpu': 0.1, 'cpu': 8}}]},\n"
		" 'policies': {'order': {'name': 'priority', 'aging_per_hour': 3600}, 'quota': 'none',\n"
		"   'preemption': 'none', 'fallback': 'strict', 'placement': 'spread'},\n"
		" 'seeds': [0, 7, 9007199254740991],\n"
		" 'output': 'out/r.h5', 'output_options': {'sample_s': 2.5}}";
	struct exp_config *cfg = NULL;
	struct sim_diag d;

	CU_ASSERT_EQUAL_FATAL(parse_text("cfg/e.json", text, &cfg, &d), 0);
	CU_ASSERT_STRING_EQUAL(cfg->trace_path, "/abs/t.csv");
	CU_ASSERT_STRING_EQUAL(cfg->output, "cfg/out/r.h5");
	CU_ASSERT_DOUBLE_EQUAL(cfg->sample_s, 2.5, 0.0);
	CU_ASSERT_EQUAL_FATAL(cfg->n_seeds, 3);
	CU_ASSERT_EQUAL(cfg->seeds[0], 0);
	CU_ASSERT_EQUAL(cfg->seeds[1], 7);
	CU_ASSERT_EQUAL(cfg->seeds[2], 9007199254740991ULL);
	const struct exp_variant *v = &cfg->variants[0];
	CU_ASSERT_EQUAL_FATAL(v->res.n, 3);
	CU_ASSERT_STRING_EQUAL(v->res.names[1], "cpu");
	CU_ASSERT_STRING_EQUAL(v->res.names[2], "mem_gib");
	CU_ASSERT_EQUAL_FATAL(v->n_flavors, 2);
	CU_ASSERT_EQUAL(v->flavors[0].node_cap[0], 8000);
	CU_ASSERT_EQUAL(v->flavors[0].node_cap[1], 96500);
	CU_ASSERT_EQUAL(v->flavors[0].node_cap[2], 1024125);
	CU_ASSERT_DOUBLE_EQUAL(v->flavors[0].speed, 2.5, 0.0);
	CU_ASSERT_DOUBLE_EQUAL(v->flavors[0].price_per_node_hour, 98.32, 0.0);
	CU_ASSERT_STRING_EQUAL(v->flavors[1].name, "l4.small-1");
	CU_ASSERT_EQUAL(v->flavors[1].nodes, 3);
	CU_ASSERT_EQUAL(v->flavors[1].node_cap[0], 100);
	CU_ASSERT_EQUAL(v->flavors[1].node_cap[1], 8000);
	CU_ASSERT_EQUAL(v->flavors[1].node_cap[2], 0); /* omitted declared resource: none */
	CU_ASSERT_STRING_EQUAL(v->policy[SIM_FAM_ORDER], "priority");
	CU_ASSERT_PTR_NOT_NULL_FATAL(v->policy_params[SIM_FAM_ORDER]);
	CU_ASSERT_DOUBLE_EQUAL(
		cJSON_GetObjectItemCaseSensitive(v->policy_params[SIM_FAM_ORDER], "aging_per_hour")
			->valuedouble,
		3600.0, 0.0);
	CU_ASSERT_PTR_NULL(v->policy_params[SIM_FAM_QUOTA]);
	CU_ASSERT_EQUAL(v->placement, SIM_PLACE_SPREAD);
	exp_config_destroy(cfg);
	sim_diag_fini(&d);
}

static void test_config_sweep(void)
{
	const char *text =
		"{'name': 'sw', 'trace': {'path': 't.csv'},\n"
		" 'cluster': {'flavors': [{'name': 'a', 'nodes': 2, 'node': {'gpu': 8}}]},\n"
		" 'policies': {'order': 'fifo', 'placement': 'best_fit'},\n"
		" 'sweep': {'policies.order': ['fifo', 'easy_backfill'],\n"
		"           'cluster.flavors[0].nodes': [4, 8, 16]}}";
	static const char *const names[] = { "fifo_4", "fifo_8", "fifo_16",
					     "easy_backfill_4", "easy_backfill_8", "easy_backfill_16" };
	static const unsigned nodes[] = { 4, 8, 16, 4, 8, 16 };
	struct exp_config *cfg = NULL;
	struct sim_diag d;

	CU_ASSERT_EQUAL_FATAL(parse_text("sw.json", text, &cfg, &d), 0);
	CU_ASSERT_EQUAL_FATAL(cfg->n_variants, 6);
	for (size_t i = 0; i < 6; i++) {
		const struct exp_variant *v = &cfg->variants[i];
		CU_ASSERT_STRING_EQUAL(v->name, names[i]);
		CU_ASSERT_STRING_EQUAL(v->policy[SIM_FAM_ORDER], i < 3 ? "fifo" : "easy_backfill");
		CU_ASSERT_EQUAL(v->flavors[0].nodes, nodes[i]);
		/* The tree is the substituted config without "sweep". */
		CU_ASSERT_PTR_NULL(cJSON_GetObjectItemCaseSensitive(v->tree, "sweep"));
		const cJSON *fl = cJSON_GetArrayItem(
			cJSON_GetObjectItemCaseSensitive(
				cJSON_GetObjectItemCaseSensitive(v->tree, "cluster"), "flavors"), 0);
		CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItemCaseSensitive(fl, "nodes")->valuedouble, nodes[i],
				       0.0);
	}
	exp_config_destroy(cfg);
	sim_diag_fini(&d);
}

/* Numbers by %g, objects by "name", others by position; equal names made unique. */
static void test_config_sweep_names(void)
{
	const char *text =
		"{'name': 'sw', 'trace': {'path': 't.csv'},\n"
		" 'cluster': {'flavors': [{'name': 'a', 'nodes': 2, 'node': {'gpu': 8}, 'speed': 1}]},\n"
		" 'policies': {'order': 'fifo'},\n"
		" 'sweep': {'$.cluster.flavors[0].speed': [1.5],\n"
		"           'policies.order': [{'name': 'priority', 'aging_per_hour': 0},\n"
		"                               {'name': 'priority', 'aging_per_hour': 60}, 'fifo']}}";
	struct exp_config *cfg = NULL;
	struct sim_diag d;

	CU_ASSERT_EQUAL_FATAL(parse_text("sw.json", text, &cfg, &d), 0);
	CU_ASSERT_EQUAL_FATAL(cfg->n_variants, 3);
	CU_ASSERT_STRING_EQUAL(cfg->variants[0].name, "1.5_priority_v1");
	CU_ASSERT_STRING_EQUAL(cfg->variants[1].name, "1.5_priority_v2");
	CU_ASSERT_STRING_EQUAL(cfg->variants[2].name, "1.5_fifo");
	CU_ASSERT_DOUBLE_EQUAL(cfg->variants[1].flavors[0].speed, 1.5, 0.0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cfg->variants[1].policy_params[SIM_FAM_ORDER]);
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItemCaseSensitive(cfg->variants[1].policy_params[SIM_FAM_ORDER],
								"aging_per_hour")->valuedouble, 60.0, 0.0);
	CU_ASSERT_PTR_NULL(cfg->variants[2].policy_params[SIM_FAM_ORDER]);
	exp_config_destroy(cfg);
	sim_diag_fini(&d);

	/* A string the loader does not check (a policy parameter) is made safe for HDF5;
	 * a list is named by its position. */
	const char *text2 =
		"{'name': 'sw', 'trace': {'path': 't.csv'},\n"
		" 'cluster': {'flavors': [{'name': 'a', 'nodes': 2, 'node': {'gpu': 8}}]},\n"
		" 'policies': {'order': {'name': 'x', 'mode': 'm', 'l': []}},\n"
		" 'sweep': {'policies.order.mode': ['a/b c'], 'policies.order.l': [[1], [2]]}}";
	CU_ASSERT_EQUAL_FATAL(parse_text("sw.json", text2, &cfg, &d), 0);
	CU_ASSERT_EQUAL_FATAL(cfg->n_variants, 2);
	CU_ASSERT_STRING_EQUAL(cfg->variants[0].name, "a-b-c_0");
	CU_ASSERT_STRING_EQUAL(cfg->variants[1].name, "a-b-c_1");
	exp_config_destroy(cfg);
	sim_diag_fini(&d);
}

/* An error only some variants have names the variant; one all have is said once. */
static void test_config_sweep_variant_error(void)
{
	const char *text =
		"{'name': 'sw', 'trace': {'path': 't.csv'},\n"
		" 'cluster': {'flavors': [{'name': 'a', 'nodes': 2, 'node': {'gpu': 8}, 'sped': 1}]},\n"
		" 'sweep': {'cluster.flavors[0].nodes': [4, -1, 2.5]}}";
	struct exp_config *cfg = (struct exp_config *)1;
	struct sim_diag d;

	CU_ASSERT_EQUAL(parse_text("sw.json", text, &cfg, &d), -SIM_EPARSE);
	CU_ASSERT_PTR_NULL(cfg);
	CU_ASSERT_EQUAL(d.count, 3);
	CU_ASSERT(sim_diag_contains(&d, "sw.json: $.cluster.flavors[0].sped: unknown key; expected one of "
				    "name, nodes, node, speed, price_per_node_hour, stockout, reservations, "
				    "autoscale, spot, training_plan, flex "
				    "(did you mean \"speed\"?)"));
	CU_ASSERT(sim_diag_contains(&d, "sw.json: $.cluster.flavors[0].nodes: expected integer >= 0, got -1 "
				    "(in sweep variant 2 of 3, \"-1\")"));
	CU_ASSERT(sim_diag_contains(&d, "sw.json: $.cluster.flavors[0].nodes: expected integer >= 0, got 2.5 "
				    "(in sweep variant 3 of 3, \"2.5\")"));
	sim_diag_fini(&d);
}

/* A large sweep where every variant fails: each variant's error once, the shared one once. */
static void test_config_sweep_many_bad(void)
{
	enum { N = 5000 };
	size_t cap = 64 * N + 512, o;
	char *text = malloc(cap);
	struct exp_config *cfg = NULL;
	struct sim_diag d;

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	o = (size_t)snprintf(text, cap, "{'name': 'm', 'trace': {'path': 't.csv'}, 'cluster': {'flavors': "
					"[{'name': 'a', 'nodes': 1, 'node': {'gpu': 1}, 'spead': 2}]}, "
					"'sweep': {'cluster.flavors[0].nodes': [");
	for (int i = 0; i < N; i++)
		o += (size_t)snprintf(text + o, cap - o, "%s-%d", i ? ", " : "", i + 1);
	snprintf(text + o, cap - o, "]}}");
	CU_ASSERT_EQUAL(parse_text("m.json", text, &cfg, &d), -SIM_EPARSE);
	CU_ASSERT_EQUAL(d.count, N + 1);
	/* The shared error comes first (variant 1 finds it first), then variant 1's own. */
	CU_ASSERT_PTR_NOT_NULL_FATAL(d.lines);
	CU_ASSERT(strstr(d.lines[0], "$.cluster.flavors[0].spead: unknown key") != NULL);
	CU_ASSERT(strstr(d.lines[0], "sweep variant") == NULL);
	CU_ASSERT(strstr(d.lines[1], "got -1 (in sweep variant 1 of 5000, \"-1\")") != NULL);
	CU_ASSERT(strstr(d.lines[19], "got -19 (in sweep variant 19 of 5000, \"-19\")") != NULL);
	sim_diag_fini(&d);
	free(text);
}

static void test_config_default_json(void)
{
	struct exp_config *cfg = NULL;
	struct sim_diag d;

	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL_FATAL(exp_config_load(TEST_SOURCE_DIR "/experiments/philly-orders.json", &cfg, &d), 0);
	CU_ASSERT_STRING_EQUAL(cfg->name, "philly-orders");
	CU_ASSERT_STRING_EQUAL(cfg->trace_path, TEST_SOURCE_DIR "/experiments/../traces/data/philly.csv");
	/* Nodes vary slowest (first sweep key), the order policy fastest. */
	CU_ASSERT_EQUAL_FATAL(cfg->n_variants, 6);
	const char *names[] = { "352_fifo", "352_priority", "352_easy_backfill",
				"96_fifo", "96_priority", "96_easy_backfill" };
	const char *orders[] = { "fifo", "priority", "easy_backfill" };
	for (size_t i = 0; i < 6; i++) {
		CU_ASSERT_STRING_EQUAL(cfg->variants[i].name, names[i]);
		CU_ASSERT_STRING_EQUAL(cfg->variants[i].policy[SIM_FAM_ORDER], orders[i % 3]);
		CU_ASSERT_EQUAL(cfg->variants[i].flavors[0].nodes, i < 3 ? 352 : 96);
		CU_ASSERT_EQUAL(cfg->variants[i].flavors[0].node_cap[SIM_RES_GPU], 8000);
	}
	exp_config_destroy(cfg);
	sim_diag_fini(&d);
}

/* The text need not be NUL-terminated, and a byte-order mark is skipped. */
static void test_config_parse_length(void)
{
	char buf[512];
	int n = snprintf(buf, sizeof buf, "\xEF\xBB\xBF" "%s",
			 "{\"name\": \"t\", \"trace\": {\"path\": \"t.csv\"}, \"cluster\": {\"flavors\": "
			 "[{\"name\": \"a\", \"nodes\": 1, \"node\": {\"gpu\": 1}}]}}");
	struct exp_config *cfg = NULL;
	struct sim_diag d;

	memcpy(buf + n, "garbage", 8);
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL_FATAL(exp_config_parse("t.json", buf, (size_t)n, &cfg, &d), 0);
	CU_ASSERT_STRING_EQUAL(cfg->name, "t");
	CU_ASSERT_EQUAL(strlen(cfg->text), (size_t)n);
	exp_config_destroy(cfg);
	sim_diag_fini(&d);
}

static void test_config_bad_syntax(void)
{
	expect_bad("syntax.json", -SIM_EPARSE, "syntax.json:4:56: JSON syntax error near '\"node\": {\"gpu\"",
		   NULL);
	expect_bad("trailing_comma.json", -SIM_EPARSE, "trailing_comma.json:5:1: JSON syntax error near '}'",
		   NULL);
}

static void test_config_bad_syntax_inline(void)
{
	struct exp_config *cfg = NULL;
	struct sim_diag d;

	CU_ASSERT_EQUAL(parse_text("e.json", "", &cfg, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "e.json:1:1: JSON syntax error near end of input"));
	sim_diag_fini(&d);
	CU_ASSERT_EQUAL(parse_text("e.json", "{\n  \"a\": tru\n}", &cfg, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "e.json:2:8: JSON syntax error near 'tru'"));
	sim_diag_fini(&d);
	CU_ASSERT_EQUAL(parse_text("e.json", "[1, 2]", &cfg, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "e.json: $: expected an object"));
	CU_ASSERT(sim_diag_contains(&d, "got a list"));
	sim_diag_fini(&d);
}

static void test_config_bad_unknown_top(void)
{
	expect_bad("unknown_top.json", -SIM_EPARSE,
		   "unknown_top.json: $.seed: unknown key; expected one of name, description, trace, "
		   "cluster, "
		   "policies, jobs, seeds, output, output_options, sweep (did you mean \"seeds\"?)", NULL);
}

static void test_config_bad_unknown_nested(void)
{
	expect_bad("unknown_nested.json", -SIM_EPARSE,
		   "unknown_nested.json: $.cluster.flavors[0].nodez: unknown key; "
		   "expected one of name, nodes,",
		   "unknown_nested.json: $.cluster.flavors[0].nodes: "
		   "expected integer >= 0 (required), got nothing");
}

static void test_config_bad_dup_key(void)
{
	expect_bad("dup_key.json", -SIM_EPARSE,
		   "dup_key.json: $.cluster.flavors[0].nodes: "
		   "duplicate key; expected each key once per object", NULL);
}

static void test_config_bad_nodes(void)
{
	expect_bad("nodes_negative.json", -SIM_EPARSE,
		   "nodes_negative.json: $.cluster.flavors[0].nodes: expected integer >= 0, got -2", NULL);
	expect_bad("nodes_fraction.json", -SIM_EPARSE,
		   "nodes_fraction.json: $.cluster.flavors[0].nodes: expected integer >= 0, got 1.5", NULL);
}

static void test_config_bad_speed(void)
{
	expect_bad("speed_zero.json", -SIM_EPARSE,
		   "speed_zero.json: $.cluster.flavors[0].speed: expected number > 0, got 0", NULL);
}

static void test_config_bad_gpu_too_fine(void)
{
	expect_bad("gpu_too_fine.json", -SIM_EPARSE,
		   "gpu_too_fine.json: $.cluster.flavors[0].node.gpu: expected decimal with at most 3 "
		   "fractional digits (milli-units), got 0.0001", NULL);
}

static void test_config_bad_missing_trace(void)
{
	expect_bad("missing_trace.json", -SIM_EPARSE,
		   "missing_trace.json: $.trace: expected object {\"path\": ...} (required), got nothing",
		   NULL);
	expect_bad("missing_trace_path.json", -SIM_EPARSE,
		   "missing_trace_path.json: $.trace.path: expected string (required), got nothing", NULL);
}

static void test_config_bad_missing_file(void)
{
	expect_bad("no_such_config.json", -SIM_ENOENT,
		   "no_such_config.json: cannot open: No such file or directory", NULL);
}

static void test_config_bad_placement(void)
{
	expect_bad("bad_placement.json", -SIM_EPARSE,
		   "bad_placement.json: $.policies.placement: "
		   "expected \"best_fit\", \"first_fit\" or \"spread\", "
		   "got \"worst_fit\"", NULL);
}

static void test_config_bad_sweep_path(void)
{
	expect_bad("sweep_no_path.json", -SIM_EPARSE,
		   "sweep_no_path.json: $.sweep[\"cluster.flavors[1].nodes\"]: "
		   "path does not exist in the base "
		   "config (no element [1] in $.cluster.flavors, which has 1)", NULL);
}

static void test_config_bad_seeds(void)
{
	expect_bad("seeds_not_list.json", -SIM_EPARSE,
		   "seeds_not_list.json: $.seeds: expected a non-empty list of integers >= 0, got 7", NULL);
}

static void test_config_bad_undeclared_resource(void)
{
	expect_bad("undeclared_resource.json", -SIM_EPARSE,
		   "undeclared_resource.json: $.cluster.flavors[0].node.mem_gib: "
		   "undeclared resource; expected one "
		   "of gpu, cpu (declare others in $.cluster.resources)", NULL);
}

/* Every error of a file is reported, not only the first. */
static void test_config_bad_many(void)
{
	char path[1024];
	struct exp_config *cfg = NULL;
	struct sim_diag d;
	static const char *const want[] = {
		"$.name: expected a name of letters, digits, '_', '.' and '-' (1 to 255 characters), "
		"got \"many errors\"",
		"$.trace.format: expected \"native\" (the only format so far), got \"swf\"",
		"$.seeds[1]: expected distinct seeds, got 1 twice",
		"$.cluster.flavors[0].nodes: expected integer >= 0, got -1",
		"$.cluster.flavors[0].speed: expected number > 0, got 0",
		"$.cluster.flavors[1].name: expected a unique flavor name, got \"v100\" again "
		"(also $.cluster.flavors[0].name)",
		"$.cluster.flavors[1].price_per_node_hour: expected number >= 0, got -3",
		"$.policies.order: expected a policy name of lower-case letters, digits and '_' (1 to 63 "
		"characters), got \"Fifo!\"",
		"$.policies.quota: expected a policy name of lower-case letters, digits and '_' (1 to 63 "
		"characters), got \"Hard!\"",
	};

	snprintf(path, sizeof path, "%smany_errors.json", CFG_DIR);
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(exp_config_load(path, &cfg, &d), -SIM_EPARSE);
	CU_ASSERT_EQUAL(d.count, sizeof want / sizeof want[0]);
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		if (!sim_diag_contains(&d, want[i])) {
			fprintf(stderr, "\nmissing [%s]; got:\n", want[i]);
			sim_diag_print(&d, stderr);
			CU_FAIL("expected message missing");
		}
	sim_diag_fini(&d);
}

/* More errors than the diag keeps: all counted, 20 kept, still -SIM_EPARSE. */
static void test_config_bad_over_limit(void)
{
	char text[8192], part[128];
	size_t o;
	struct exp_config *cfg = NULL;
	struct sim_diag d;

	o = (size_t)snprintf(text, sizeof text, "{\"name\": \"t\", \"trace\": {\"path\": \"t.csv\"}, "
				   "\"cluster\": {\"flavors\": [");
	for (int i = 0; i < 25; i++) {
		snprintf(part, sizeof part, "%s{\"name\": \"f%d\", \"nodes\": -%d, \"node\": {\"gpu\": 1}}",
			 i ? ", " : "", i, i + 1);
		o += (size_t)snprintf(text + o, sizeof text - o, "%s", part);
	}
	snprintf(text + o, sizeof text - o, "]}}");
	CU_ASSERT_EQUAL(parse_text("big.json", text, &cfg, &d), -SIM_EPARSE);
	CU_ASSERT_EQUAL(d.count, 25);
	CU_ASSERT(sim_diag_contains(&d, "$.cluster.flavors[19].nodes: expected integer >= 0, got -20"));
	CU_ASSERT(!sim_diag_contains(&d, "$.cluster.flavors[20].nodes"));
	sim_diag_fini(&d);
}

/* A valid cluster, for the inline cases that break something else. */
#define ONE_FLAVOR ", 'cluster': {'flavors': [{'name': 'a', 'nodes': 1, 'node': {'gpu': 1}}]}"
#define FLAVOR_WITH(extra) ", 'cluster': {" extra "'flavors': [{'name': 'a', 'nodes': 1, 'node': "

/* Smaller bad cases, inline: each must fail at its path with its expectation. */
static void test_config_bad_inline(void)
{
	static const struct {
		const char *tail;
		const char *needle;
	} cases[] = {
		{ ", 'cluster': {'flavors': []}",
		  "$.cluster.flavors: expected a non-empty list of flavors, got a list (empty)" },
		{ "", "$.cluster: expected object {\"flavors\": [...]} (required), got nothing" },
		{ ", 'cluster': {'flavors': [{'name': 'a b', 'nodes': 1, 'node': {'gpu': 1}}]}",
		  "$.cluster.flavors[0].name: expected a name of letters, digits, '_', '.' and '-'" },
		{ FLAVOR_WITH("") "{'cpu': 1}}]}",
		  "$.cluster.flavors[0].node.gpu: expected decimal > 0 (required: GPUs per node), "
		  "got nothing" },
		{ FLAVOR_WITH("") "{'gpu': 0}}]}",
		  "$.cluster.flavors[0].node.gpu: expected decimal > 0, got 0" },
		{ FLAVOR_WITH("") "{'gpu': 1e12}}]}",
		  "$.cluster.flavors[0].node.gpu: expected decimal <= 1000000000, got 1000000000000" },
		{ FLAVOR_WITH("'resources': ['gpu'], ") "{'gpu': 1}}]}",
		  "$.cluster.resources[0]: expected a resource name not declared yet, got \"gpu\" "
		  "(gpu is always declared)" },
		{ FLAVOR_WITH("'resources': ['cpu'], ") "{'gpu': 1, 'cpu': -4}}]}",
		  "$.cluster.flavors[0].node.cpu: expected decimal >= 0, got -4" },
		{ FLAVOR_WITH("") "{'gpu': 1}, 'x': {'y': 1, 'y': 2}}]}",
		  "$.cluster.flavors[0].x.y: duplicate key" },
		{ ONE_FLAVOR ", 'policies': {'order': {'aging_per_hour': 3}}",
		  "$.policies.order.name: expected string (required), got nothing" },
		{ ONE_FLAVOR ", 'policies': {'order': ''}",
		  "$.policies.order: expected a policy name of lower-case letters" },
		{ ONE_FLAVOR ", 'seeds': [1, -1]", "$.seeds[1]: expected integer >= 0, got -1" },
		{ ONE_FLAVOR ", 'seeds': []",
		  "$.seeds: expected a non-empty list of integers >= 0, got a list (empty)" },
		{ ONE_FLAVOR ", 'output_options': {'sample_s': -1}",
		  "$.output_options.sample_s: expected number >= 0, got -1" },
		{ ONE_FLAVOR ", 'sweep': {'seeds': [[1], [2]]}",
		  "$.sweep.seeds: expected a path under \"cluster\", \"policies\" or \"jobs\", got \"seeds\"" },
		{ ONE_FLAVOR ", 'sweep': {'cluster.flavors[0].nodes': []}",
		  "$.sweep[\"cluster.flavors[0].nodes\"]: expected a non-empty list of values, "
		  "got a list (empty)" },
		{ ONE_FLAVOR ", 'policies': {'order': 'fifo'}, "
			     "'sweep': {'policies': [{}], 'policies.order': ['x']}",
		  "$.sweep[\"policies.order\"]: overlaps $.sweep.policies; "
		  "expected paths that do not contain "
		  "each other" },
		{ ONE_FLAVOR ", 'sweep': {'cluster..flavors': [1]}",
		  "$.sweep[\"cluster..flavors\"]: expected a path such as \"cluster.flavors[0].nodes\", got "
		  "\"cluster..flavors\"" },
		{ ONE_FLAVOR ", 'sweep': {'policies.order': ['fifo']}",
		  "$.sweep[\"policies.order\"]: path does not exist in the base config "
		  "(no key \"policies\" in $)" },
	};
	char text[2048];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct exp_config *cfg = (struct exp_config *)1;
		struct sim_diag d;
		snprintf(text, sizeof text, MINIMAL_HEAD "%s}", cases[i].tail);
		CU_ASSERT_EQUAL(parse_text("i.json", text, &cfg, &d), -SIM_EPARSE);
		CU_ASSERT_PTR_NULL(cfg);
		if (!sim_diag_contains(&d, cases[i].needle)) {
			fprintf(stderr, "\ncase %zu: missing [%s]; got:\n", i, cases[i].needle);
			sim_diag_print(&d, stderr);
			CU_FAIL("expected message missing");
		}
		sim_diag_fini(&d);
	}
}

static CU_TestInfo config_tests[] = {
	{ "test_config_minimal", test_config_minimal },
	{ "test_config_defaults", test_config_defaults },
	{ "test_config_every_key", test_config_every_key },
	{ "test_config_sweep", test_config_sweep },
	{ "test_config_sweep_names", test_config_sweep_names },
	{ "test_config_sweep_variant_error", test_config_sweep_variant_error },
	{ "test_config_sweep_many_bad", test_config_sweep_many_bad },
	{ "test_config_default_json", test_config_default_json },
	{ "test_config_parse_length", test_config_parse_length },
	{ "test_config_bad_syntax", test_config_bad_syntax },
	{ "test_config_bad_syntax_inline", test_config_bad_syntax_inline },
	{ "test_config_bad_unknown_top", test_config_bad_unknown_top },
	{ "test_config_bad_unknown_nested", test_config_bad_unknown_nested },
	{ "test_config_bad_dup_key", test_config_bad_dup_key },
	{ "test_config_bad_nodes", test_config_bad_nodes },
	{ "test_config_bad_speed", test_config_bad_speed },
	{ "test_config_bad_gpu_too_fine", test_config_bad_gpu_too_fine },
	{ "test_config_bad_missing_trace", test_config_bad_missing_trace },
	{ "test_config_bad_missing_file", test_config_bad_missing_file },
	{ "test_config_bad_placement", test_config_bad_placement },
	{ "test_config_bad_sweep_path", test_config_bad_sweep_path },
	{ "test_config_bad_seeds", test_config_bad_seeds },
	{ "test_config_bad_undeclared_resource", test_config_bad_undeclared_resource },
	{ "test_config_bad_many", test_config_bad_many },
	{ "test_config_bad_over_limit", test_config_bad_over_limit },
	{ "test_config_bad_inline", test_config_bad_inline },
	CU_TEST_INFO_NULL,
};

static int init_config(void)
{
	return 0;
}

static int clean_config(void)
{
	return 0;
}

CU_SuiteInfo config_suite = { "config", init_config, clean_config, NULL, NULL, config_tests };
