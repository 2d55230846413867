/* tests/test_sim.c: sim/sim.c (errors, diagnostics, decimal parsing), sim/jsonmsg.c, sim/bind.c and the trace arrays kept out of forks (sim/job.c). */
#define _DEFAULT_SOURCE /* mincore */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../sim/cluster.h"
#include "../sim/engine.h"
#include "../sim/job.h"
#include "../sim/jsonmsg.h"
#include "../sim/sim.h"
#include "testutil.h"

static int init_sim(void) { return 0; }
static int clean_sim(void) { return 0; }

static void test_sim_qty_parse(void)
{
	struct { const char *s; int rc; sim_qty_t v; } cases[] = {
		{ "8", 0, 8000 },      { "0.5", 0, 500 },       { "1.250", 0, 1250 },
		{ "1.2500", 0, 1250 }, { "0.001", 0, 1 },       { "+3", 0, 3000 },
		{ "0.0001", -SIM_EPARSE, 0 }, { "-1", -SIM_EPARSE, 0 }, { "", -SIM_EPARSE, 0 },
		{ ".", -SIM_EPARSE, 0 }, { "1e3", -SIM_EPARSE, 0 }, { "nan", -SIM_EPARSE, 0 },
		{ "1.2.3", -SIM_EPARSE, 0 }, { "99999999999999999999", -SIM_ERANGE, 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		sim_qty_t v = -1;
		int rc = sim_qty_parse(cases[i].s, strlen(cases[i].s), &v);
		CU_ASSERT_EQUAL(rc, cases[i].rc);
		if (!rc)
			CU_ASSERT_EQUAL(v, cases[i].v);
	}
	/* Not NUL-terminated: only len bytes count. */
	sim_qty_t v;
	CU_ASSERT_EQUAL(sim_qty_parse("12,5", 2, &v), 0);
	CU_ASSERT_EQUAL(v, 12000);
}

static void test_sim_time_parse(void)
{
	sim_time_t t;
	CU_ASSERT_EQUAL(sim_time_parse_s("1.5", 3, &t), 0);
	CU_ASSERT_EQUAL(t, 1500000000LL);
	CU_ASSERT_EQUAL(sim_time_parse_s("0.000000001", 11, &t), 0);
	CU_ASSERT_EQUAL(t, 1);
	CU_ASSERT_EQUAL(sim_time_parse_s("0.0000000001", 12, &t), -SIM_EPARSE);
	CU_ASSERT_EQUAL(sim_time_parse_s("-1", 2, &t), -SIM_EPARSE);
	CU_ASSERT_EQUAL(sim_time_parse_s("inf", 3, &t), -SIM_EPARSE);
}

/* Regression: 922337203685477580 passed the "v > INT64_MAX / 10" guard and the next
 * digit 8 or 9 overflowed (undefined; wrapped to a negative time that the trace
 * reader then accepted). */
static void test_sim_parse_overflow_refused(void)
{
	sim_time_t t;
	sim_qty_t q;
	CU_ASSERT_EQUAL(sim_time_parse_s("9223372036854775809", 19, &t), -SIM_ERANGE);
	CU_ASSERT_EQUAL(sim_time_parse_s("9223372037", 10, &t), -SIM_ERANGE); /* x 1e9 ns */
	CU_ASSERT_EQUAL(sim_time_parse_s("9223372036.854775807", 20, &t), 0);
	CU_ASSERT_EQUAL(t, INT64_MAX);
	CU_ASSERT_EQUAL(sim_time_parse_s("9223372036.854775808", 20, &t), -SIM_ERANGE);
	CU_ASSERT_EQUAL(sim_qty_parse("9223372036854775.807", 20, &q), 0);
	CU_ASSERT_EQUAL(q, INT64_MAX);
	CU_ASSERT_EQUAL(sim_qty_parse("9223372036854775.809", 20, &q), -SIM_ERANGE);
	CU_ASSERT_EQUAL(sim_qty_parse("9223372036854776", 16, &q), -SIM_ERANGE);
}

static void test_sim_qty_format(void)
{
	char b[32];
	sim_qty_format(8000, b, sizeof b);
	CU_ASSERT_STRING_EQUAL(b, "8");
	sim_qty_format(500, b, sizeof b);
	CU_ASSERT_STRING_EQUAL(b, "0.5");
	sim_qty_format(1250, b, sizeof b);
	CU_ASSERT_STRING_EQUAL(b, "1.25");
	sim_qty_format(-1, b, sizeof b);
	CU_ASSERT_STRING_EQUAL(b, "-0.001");
}

static void test_sim_diag_limit_and_lines(void)
{
	struct sim_diag d;
	sim_diag_init(&d, 3);
	for (int i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(sim_diag_add(&d, "f.csv:2", "error %d", i), -SIM_EPARSE);
	CU_ASSERT_EQUAL(d.count, 5);
	CU_ASSERT_STRING_EQUAL(sim_diag_last(&d), "f.csv:2: error 2");
	CU_ASSERT(sim_diag_contains(&d, "error 0"));
	CU_ASSERT(!sim_diag_contains(&d, "error 4")); /* dropped, only counted */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	sim_diag_print(&d, f);
	fclose(f);
	CU_ASSERT(strstr(buf, "... and 2 more errors") != NULL);
	free(buf);
	sim_diag_fini(&d);
	CU_ASSERT_STRING_EQUAL(sim_strerror(-SIM_ENOFIT), "does not fit");
	CU_ASSERT_STRING_EQUAL(sim_strerror(0), "success");
	CU_ASSERT_STRING_EQUAL(sim_strerror(-9999), "unknown error");
}

static struct sim_cluster *two_flavors(sim_qty_t a_nodes)
{
	struct sim_resources res;
	sim_resources_init(&res);
	sim_resources_add(&res, "cpu");
	struct sim_flavor_spec s[2] = { { .name = "a", .nodes = (uint32_t)a_nodes, .speed = 1 },
					{ .name = "b", .nodes = 2, .speed = 2 } };
	s[0].node_cap[0] = 8000;
	s[0].node_cap[1] = 64000;
	s[1].node_cap[0] = 4000;
	s[1].node_cap[1] = 32000;
	return sim_cluster_create(&res, s, 2, SIM_PLACE_BEST_FIT);
}

/* Binding maps trace names to cluster indices, refuses what cannot run, and can be
 * redone against another cluster. */
static void test_sim_bind_maps_and_rebinds(void)
{
	struct sim_trace *t = sim_trace_create();
	tu_trace_add(t, "x", 0, 10, 4000, "b", 0); /* trace flavor 0 = "b" */
	tu_trace_add(t, "y", 0, 10, 8000, "a", 0); /* trace flavor 1 = "a" */
	tu_trace_finish(t);
	struct sim_diag d;
	sim_diag_init(&d, 20);
	struct sim_cluster *c = two_flavors(1);
	CU_ASSERT_EQUAL_FATAL(sim_trace_bind(t, c, &d), 0);
	CU_ASSERT_EQUAL(sim_job_opt(t, &t->jobs[0], 0)->flavor_id, 1);
	CU_ASSERT_EQUAL(sim_job_opt(t, &t->jobs[1], 0)->flavor_id, 0);
	/* Rebinding the same cluster gives the same mapping (not a double remap). */
	CU_ASSERT_EQUAL_FATAL(sim_trace_bind(t, c, &d), 0);
	CU_ASSERT_EQUAL(sim_job_opt(t, &t->jobs[0], 0)->flavor_id, 1);
	sim_cluster_destroy(c);
	/* A cluster where "a" has no nodes: y can never run, named by its line. */
	c = two_flavors(0);
	CU_ASSERT_EQUAL(sim_trace_bind(t, c, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "trace:3: column request"));
	sim_cluster_destroy(c);
	sim_diag_fini(&d);
	sim_trace_destroy(t);
}

static void test_sim_bind_unknown_flavor_located(void)
{
	struct sim_trace *t = sim_trace_create();
	tu_trace_add(t, "x", 0, 10, 1000, "a", 0);
	tu_trace_add(t, "z", 0, 10, 1000, "h100", 0);
	tu_trace_finish(t);
	struct sim_diag d;
	sim_diag_init(&d, 20);
	struct sim_cluster *c = two_flavors(1);
	CU_ASSERT_EQUAL(sim_trace_bind(t, c, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "trace:3: column request: expected a flavor of the cluster, found 'h100'"));
	sim_cluster_destroy(c);
	sim_diag_fini(&d);
	sim_trace_destroy(t);
}

/* The JSON readers' shared message pieces and file reading. */
static void test_sim_jsonmsg(void)
{
	char buf[64];
	sim_json_path_key(buf, sizeof buf, "$.quota", "h100");
	CU_ASSERT_STRING_EQUAL(buf, "$.quota.h100");
	sim_json_path_key(buf, sizeof buf, "$.quota", "a100-80g");
	CU_ASSERT_STRING_EQUAL(buf, "$.quota[\"a100-80g\"]");
	sim_json_path_key(buf, sizeof buf, "$", "9x");
	CU_ASSERT_STRING_EQUAL(buf, "$[\"9x\"]");
	sim_json_path_idx(buf, sizeof buf, "$.queues", 3);
	CU_ASSERT_STRING_EQUAL(buf, "$.queues[3]");
	cJSON *v = cJSON_Parse("[0.1, \"a\\\"b\", null, {}, \"0123456789012345678901234567890123456789012345678\"]");
	sim_json_describe(cJSON_GetArrayItem(v, 0), buf, sizeof buf);
	CU_ASSERT_STRING_EQUAL(buf, "0.1");
	sim_json_describe(cJSON_GetArrayItem(v, 1), buf, sizeof buf);
	CU_ASSERT_STRING_EQUAL(buf, "\"a\\\"b\"");
	sim_json_describe(cJSON_GetArrayItem(v, 2), buf, sizeof buf);
	CU_ASSERT_STRING_EQUAL(buf, "null");
	sim_json_describe(cJSON_GetArrayItem(v, 3), buf, sizeof buf);
	CU_ASSERT_STRING_EQUAL(buf, "an object");
	sim_json_describe(cJSON_GetArrayItem(v, 4), buf, sizeof buf);
	CU_ASSERT(strlen(buf) < 56 && strstr(buf, "...\"") != NULL); /* cut, quoted */
	sim_json_describe(NULL, buf, sizeof buf);
	CU_ASSERT_STRING_EQUAL(buf, "nothing");
	cJSON_Delete(v);

	char *text;
	size_t len;
	struct sim_diag d;
	sim_diag_init(&d, 5);
	const char *p = tu_write_file("jsonmsg.txt", "{\"a\": 1}");
	CU_ASSERT_EQUAL(sim_read_file(p, &text, &len, &d), 0);
	CU_ASSERT_EQUAL(len, 8);
	CU_ASSERT_STRING_EQUAL(text, "{\"a\": 1}");
	free(text);
	CU_ASSERT_EQUAL(sim_read_file("/nonexistent/x.json", &text, &len, &d), -SIM_ENOENT);
	CU_ASSERT_PTR_NULL(text);
	CU_ASSERT(sim_diag_contains(&d, "/nonexistent/x.json: cannot open"));
	sim_diag_fini(&d);
}

/* JSON input files: a NUL byte and /dev/zero are located errors at once, a file
 * over SIM_JSON_FILE_MAX is refused by name (all three read until memory ran out,
 * or stopped at the NUL, with no file named), and the CLI exits 2 on them. */
static void test_sim_read_file_limits(void)
{
	char *text = NULL, *out = NULL;
	size_t len;
	struct sim_diag d;
	sim_diag_init(&d, 5);
	const char *p = tu_tmp_path("nul.json");
	FILE *f = fopen(p, "wb");
	CU_ASSERT_FATAL(f != NULL);
	fwrite("{\"a\":\n 1\0}", 1, 11, f);
	fclose(f);
	char want[4200];
	snprintf(want, sizeof want, "%s:2: NUL byte in line at byte 3", p);
	CU_ASSERT_EQUAL(sim_read_file(p, &text, &len, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, want));
	CU_ASSERT_EQUAL(sim_read_file("/dev/zero", &text, &len, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "/dev/zero:1: NUL byte in line at byte 1"));
	CU_ASSERT_PTR_NULL(text);

	p = tu_tmp_path("huge.json");
	f = fopen(p, "wb");
	CU_ASSERT_FATAL(f != NULL);
	static char spaces[1 << 16];
	memset(spaces, ' ', sizeof spaces);
	for (size_t i = 0; i <= (size_t)SIM_JSON_FILE_MAX / sizeof spaces; i++)
		fwrite(spaces, 1, sizeof spaces, f);
	fclose(f);
	CU_ASSERT_EQUAL(sim_read_file(p, &text, &len, &d), -SIM_EPARSE);
	snprintf(want, sizeof want, "%s: expected a JSON file of at most 64 MiB", p);
	CU_ASSERT(sim_diag_contains(&d, want));
	remove(p);
	sim_diag_fini(&d);

	CU_ASSERT_EQUAL(tu_run_gpusched("run /dev/zero", &out), 2);
	CU_ASSERT(out && strstr(out, "/dev/zero:1: NUL byte in line"));
	free(out);
	CU_ASSERT_EQUAL(tu_run_gpusched("explain /dev/zero", &out), 2);
	CU_ASSERT(out && strstr(out, "/dev/zero:1: NUL byte in line"));
	free(out);
}

/* A child forked while the trace's arrays are kept out (sim_trace_fork_share 0) has
 * no mapping of their whole pages (mincore says ENOMEM: no signal, so it holds under
 * ASan too). Given back (1), a child reads the parent's values again. Exit codes:
 * 0 the value read, 3 a wrong value, 4 not mapped. */
static int child_reads_job(const struct sim_trace *t, size_t i)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		long pg = sysconf(_SC_PAGESIZE);
		uintptr_t a = (uintptr_t)&t->jobs[i] & ~((uintptr_t)pg - 1);
		unsigned char vec[1];
		if (mincore((void *)a, (size_t)pg, vec) != 0 && errno == ENOMEM)
			_exit(4);
		_exit(t->jobs[i].submit_ns == (sim_time_t)i ? 0 : 3);
	}
	int st = 0;
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 100;
}

static void test_sim_trace_fork_share(void)
{
	struct sim_trace *t = sim_trace_create();
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	size_t n = 100000; /* about 30 MB: whole pages well inside the array */
	t->jobs = calloc(n, sizeof *t->jobs);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t->jobs);
	t->n_jobs = n;
	for (size_t i = 0; i < n; i++)
		t->jobs[i].submit_ns = (sim_time_t)i;
	CU_ASSERT_EQUAL(child_reads_job(t, n / 2), 0);
	CU_ASSERT_EQUAL_FATAL(sim_trace_fork_share(t, 0), 0);
	CU_ASSERT_EQUAL(child_reads_job(t, n / 2), 4);
	CU_ASSERT_EQUAL(t->jobs[n / 2].submit_ns, (sim_time_t)(n / 2)); /* the parent's are untouched */
	CU_ASSERT_EQUAL_FATAL(sim_trace_fork_share(t, 1), 0);
	CU_ASSERT_EQUAL(child_reads_job(t, n / 2), 0);
	sim_trace_destroy(t);
}

static CU_TestInfo sim_tests[] = {
	{ "test_sim_trace_fork_share", test_sim_trace_fork_share },
	{ "test_sim_read_file_limits", test_sim_read_file_limits },
	{ "test_sim_jsonmsg", test_sim_jsonmsg },
	{ "test_sim_qty_parse", test_sim_qty_parse },
	{ "test_sim_time_parse", test_sim_time_parse },
	{ "test_sim_parse_overflow_refused", test_sim_parse_overflow_refused },
	{ "test_sim_qty_format", test_sim_qty_format },
	{ "test_sim_diag_limit_and_lines", test_sim_diag_limit_and_lines },
	{ "test_sim_bind_maps_and_rebinds", test_sim_bind_maps_and_rebinds },
	{ "test_sim_bind_unknown_flavor_located", test_sim_bind_unknown_flavor_located },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo sim_suite = { "sim", init_sim, clean_sim, NULL, NULL, sim_tests };
