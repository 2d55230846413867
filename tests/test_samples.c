/* tests/test_samples.c: every raw sample shipped in traces/samples (and the hand-made
 * sacct example) imports strictly through the registry, as `gpusched trace import`
 * runs it, and reads back with the native reader with as many jobs as written; every
 * shipped node list imports as a cluster. So the importers are tested from a fresh
 * clone, without the full public traces (traces/samples/README.md). */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/job.h"
#include "testutil.h"
#include "traces/alibaba.h"
#include "traces/helios_cluster.h"
#include "traces/import.h"
#include "traces/native.h"
#include "traces/pai.h"
#include "traces/philly.h"

#define SAMPLES TEST_SOURCE_DIR "/traces/samples/"

static int init_samples(void)
{
	return 0;
}
static int clean_samples(void)
{
	return 0;
}

struct sample {
	const char *format, *path;
	size_t rows, jobs; /* data rows read, jobs written (counted on the files as shipped) */
};

static const struct sample samples[] = {
    {"philly", SAMPLES "philly-300.csv", 300, 300},
    {"swf", SAMPLES "NASA-iPSC-1993-3.1-cln-300.swf", 300, 300},
    /* 19 CPU-only pods and 21 never scheduled: the format's drops */
    {"openb", SAMPLES "openb_pod_list_gpuspec33-300.csv", 300, 260},
    {"tiresias", SAMPLES "60_job.csv", 60, 60},
    {"gavel", SAMPLES "gavel/physical_cluster/small_test.trace", 20, 20},
    {"gavel", SAMPLES "gavel/msr-seed0/23dbec.trace", 9, 9},
    {"gavel", SAMPLES "gavel/msr-seed0/6214e9.trace", 300, 300},
    {"sacct", TEST_DATA_DIR "/traces/sacct/jobs.txt", 49, 21},
};

/* Jobs in a native trace, or -1 when it does not load. */
static long native_jobs(const char *path)
{
	struct sim_diag d;
	struct sim_trace *t = NULL;
	sim_diag_init(&d, 20);
	long n = trace_native_read(path, &t, &d) == 0 ? (long)t->n_jobs : -1;
	if (n < 0)
		sim_diag_print(&d, stderr);
	if (t)
		sim_trace_destroy(t);
	sim_diag_fini(&d);
	return n;
}

static void check_sample(const struct sample *s)
{
	struct sim_diag d;
	struct trace_import_result res;
	struct trace_import_opts opts = {0};
	const char *out = tu_tmp_path("sample_out.csv");
	sim_diag_init(&d, 20);
	int rc = trace_import(s->format, s->path, out, &opts, &res, &d);
	if (rc != 0) {
		fprintf(stderr, "\n%s (%s):\n", s->path, s->format);
		sim_diag_print(&d, stderr);
	}
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(res.rows_read, s->rows);
	CU_ASSERT_EQUAL(res.rows_written, s->jobs);
	CU_ASSERT_EQUAL(trace_import_bad_count(&res), 0);
	CU_ASSERT_EQUAL(native_jobs(out), (long)s->jobs);
	sim_diag_fini(&d);
}

static void test_every_trace_sample(void)
{
	for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++)
		check_sample(&samples[i]);
}

/* The same through the binary, as the README's examples run it. */
static void test_sample_cli(void)
{
	char args[2048], *txt = NULL;
	const char *out = tu_tmp_path("sample_cli.csv");
	snprintf(args, sizeof args, "trace import --format swf %s -o %s",
		 SAMPLES "NASA-iPSC-1993-3.1-cln-300.swf", out);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 0);
	CU_ASSERT(txt && strstr(txt, "300 rows in, 300 jobs out"));
	free(txt);
}

static int count_flavors(const char *json)
{
	int n = 0;
	for (const char *p = json; (p = strstr(p, "\"name\"")) != NULL; p++)
		n++;
	return n;
}

/* Node lists -> cluster objects: openb keeps every model of the sample (7), PAI every
 * GPU type (5; CPU-only machines skipped), Helios one flavor, Philly's 11 VCs. */
static void test_cluster_samples(void)
{
	struct sim_diag d;
	char *json = NULL;
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL_FATAL(trace_openb_cluster(SAMPLES "openb_node_list_gpu_node-300.csv", &json, &d), 0);
	CU_ASSERT_EQUAL(count_flavors(json), 7);
	free(json);
	CU_ASSERT_EQUAL_FATAL(trace_pai_cluster(SAMPLES "pai_machine_spec-300.csv", &json, &d), 0);
	CU_ASSERT_EQUAL(count_flavors(json), 5);
	free(json);
	CU_ASSERT_EQUAL_FATAL(trace_helios_cluster(SAMPLES "helios_cluster_summary.csv", "Venus", &json, &d),
			      0);
	CU_ASSERT(json && strstr(json, "\"Venus\""));
	free(json);
	struct trace_philly_vc *vcs = NULL;
	size_t n = 0;
	CU_ASSERT_EQUAL_FATAL(trace_philly_read_vc(SAMPLES "philly_vc.csv", &vcs, &n, &d), 0);
	CU_ASSERT_EQUAL(n, 11);
	free(vcs);
	CU_ASSERT_EQUAL(d.count, 0);
	sim_diag_fini(&d);
}

static CU_TestInfo samples_tests[] = {
    {"every shipped trace sample imports and reads back", test_every_trace_sample},
    {"trace import on a sample through the binary", test_sample_cli},
    {"every shipped node list imports as a cluster", test_cluster_samples},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo samples_suite = {"samples", init_samples, clean_samples, NULL, NULL, samples_tests};
