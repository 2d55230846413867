/* tests/test_pai.c: the Alibaba PAI 2020 task-table importer (traces/pai.c) on a
 * hand-made table (strict errors located, --skip-bad counts, rows checked, GPU-hours
 * in = out plus the dropped rows), the PAI machine spec -> cluster (hand-made and the
 * real pai_machine_spec.csv) and the Helios summary -> cluster (traces/helios_cluster.c). */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "traces/helios_cluster.h"
#include "traces/pai.h"

static int init_pai(void)
{
	return 0;
}
static int clean_pai(void)
{
	return 0;
}

#define RAW_DIR TEST_RAW_DIR "/"
#define RAW_MACHINES RAW_DIR "alibaba-pai-2020/pai_machine_spec.csv"
#define RAW_HELIOS RAW_DIR "helios/helios_cluster_summary.csv"

/* No header, as published. Kept: lines 1, 3, 10. Dropped, not an error: line 2 (CPU
 * task). Bad: 4 (duration 0), 5 (inst_num), 6 (j2.tf again), 7 (no start_time),
 * 8 (fields). Line 9 is blank. */
static const char tasks_sample[] =
    "j1,worker,2,Terminated,1000,1100,600,29,50,V100\n"
    "j1,ps,1,Terminated,1000,1100,600,29,,\n"
    "j2,tf,1,Terminated,1500,1560.5,600,29,25,MISC\r\n"
    "j3,tf,1,Failed,2000,2000,600,29,100,T4\n"
    "j4,tf,x,Running,2000,2100,600,29,100,T4\n"
    "j2,tf,1,Terminated,1500,1600,600,29,100,T4\n"
    "j5,tf,1,Terminated,,,600,29,100,T4\n"
    "j6,tf,1,Terminated,2000\n"
    "\n"
    "j7,tf,4,Terminated,3000,6600,600,29,200,P100\n";

static void test_pai_strict(void)
{
	const char *in = tu_write_file("pai.csv", tasks_sample);
	char out[4096];
	struct trace_import_opts o = { 0 };
	struct trace_import_result r;
	struct sim_diag d;
	snprintf(out, sizeof out, "%s/pai_strict.csv", tu_tmpdir());
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(trace_pai_import(in, out, &o, &r, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "pai.csv:4: column end_time: expected end_time after start_time"));
	CU_ASSERT(sim_diag_contains(&d, "pai.csv:5: column inst_num: expected a whole instance count"));
	CU_ASSERT(sim_diag_contains(&d, "pai.csv:6: column task_name: expected a unique (job_name, task_name), "
					"found 'j2.tf' again"));
	CU_ASSERT(sim_diag_contains(&d, "pai.csv:7: column start_time: expected Unix seconds"));
	CU_ASSERT(sim_diag_contains(&d, "pai.csv:8: expected 10 fields"));
	CU_ASSERT_FALSE(sim_diag_contains(&d, "pai.csv:2:"));
	CU_ASSERT_EQUAL(d.count, 5);
	CU_ASSERT_FALSE(tu_exists(out));
	sim_diag_fini(&d);
}

static size_t reason_count(const struct trace_import_result *r, const char *name)
{
	for (size_t i = 0; i < r->n_reasons; i++)
		if (strcmp(r->reasons[i].name, name) == 0)
			return r->reasons[i].count;
	return (size_t)-1;
}

static void test_pai_skip_bad(void)
{
	const char *in = tu_write_file("pai.csv", tasks_sample);
	char out[4096];
	struct trace_import_opts o = { .skip_bad = 1 };
	struct trace_import_result r;
	struct sim_diag d;
	snprintf(out, sizeof out, "%s/pai_skip.csv", tu_tmpdir());
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL_FATAL(trace_pai_import(in, out, &o, &r, &d), 0);
	CU_ASSERT_EQUAL(r.rows_read, 9);
	CU_ASSERT_EQUAL(r.rows_written, 3);
	CU_ASSERT_EQUAL(r.rows_dropped, 6);
	CU_ASSERT_EQUAL(reason_count(&r, "no GPUs"), 1);
	CU_ASSERT_EQUAL(reason_count(&r, "duration <= 0"), 1);
	CU_ASSERT_EQUAL(reason_count(&r, "bad inst_num"), 1);
	CU_ASSERT_EQUAL(reason_count(&r, "duplicate id"), 1);
	CU_ASSERT_EQUAL(reason_count(&r, "bad start_time"), 1);
	CU_ASSERT_EQUAL(reason_count(&r, "wrong field count"), 1);
	CU_ASSERT_EQUAL(trace_import_bad_count(&r), 5);
	/* GPU-hours: kept 100 s x 1 + 60.5 s x 0.25 + 3600 s x 8; in adds the duplicate's 100 s x 1 */
	double kept = (100.0 + 15.125 + 28800.0) / 3600.0;
	CU_ASSERT(fabs(r.gpu_hours_out - kept) < 1e-9);
	CU_ASSERT(fabs(r.gpu_hours_in - (kept + 100.0 / 3600.0)) < 1e-9);
	char *text = tu_read_file(out, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nid,submit_s,duration_s,queue,request\n"
					    "j1.worker,0,100,default,V100:gpu=1\n"
					    "j2.tf,500,60.5,default,*:gpu=0.25\n"
					    "j7.tf,2000,3600,default,P100:gpu=8\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "start_time - 1000 s"));
	free(text);
	sim_diag_fini(&d);
}

/* A copy with a header line imports the same rows. */
static void test_pai_header_line(void)
{
	const char *in = tu_write_file("pai_hdr.csv", "job_name,task_name,inst_num,status,start_time,end_time,"
						     "plan_cpu,plan_mem,plan_gpu,gpu_type\n"
						     "a,b,1,Terminated,5,10,1,1,100.0,T4\n");
	char out[4096];
	struct trace_import_opts o = { 0 };
	struct trace_import_result r;
	struct sim_diag d;
	snprintf(out, sizeof out, "%s/pai_hdr_out.csv", tu_tmpdir());
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(trace_pai_import(in, out, &o, &r, &d), 0);
	CU_ASSERT_EQUAL(r.rows_read, 1);
	CU_ASSERT_EQUAL(r.rows_written, 1);
	char *text = tu_read_file(out, NULL);
	CU_ASSERT_PTR_NOT_NULL(text && strstr(text, "\na.b,0,5,default,T4:gpu=1\n"));
	free(text);
	sim_diag_fini(&d);
}

static void test_pai_cluster_sample(void)
{
	const char *in = tu_write_file("pai_machines.csv", "m1,CPU,96,512,0\n"
							   "m2,T4,96,512,2\n"
							   "m3,T4,96,512,2\n"
							   "m4,T4,96,512,4\n"
							   "m5,V100,96,512,8\n"
							   "m6,V100,96,512,8\n"
							   "\n");
	struct sim_diag d;
	char *json = NULL;
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL_FATAL(trace_pai_cluster(in, &json, &d), 0);
	CU_ASSERT_STRING_EQUAL(json, "{\"flavors\": [\n"
				     "  {\"name\": \"V100\", \"nodes\": 2, \"node\": {\"gpu\": 8}},\n"
				     "  {\"name\": \"T4\", \"nodes\": 2, \"node\": {\"gpu\": 2}}\n]}\n");
	free(json);
	in = tu_write_file("pai_machines_bad.csv", "m1,T4,96,512,x\nm2,T4,96\n");
	CU_ASSERT_EQUAL(trace_pai_cluster(in, &json, &d), -SIM_EPARSE);
	CU_ASSERT_PTR_NULL(json);
	CU_ASSERT(sim_diag_contains(&d, "pai_machines_bad.csv:1: column cap_gpu: expected a whole GPU count"));
	CU_ASSERT(sim_diag_contains(&d, "pai_machines_bad.csv:2: expected 5 fields"));
	sim_diag_fini(&d);
}

/* SOURCES.md: P100 1,596 GPUs on 798 machines, MISC 2,240 on 280, V100M32 1,080 on 135,
 * T4 994 on 497, V100 832 on 104, 83 CPU-only machines. */
static void test_pai_cluster_real(void)
{
	struct sim_diag d;
	char *json = NULL;
	if (access(RAW_MACHINES, R_OK) != 0) {
		fprintf(stderr, "\n(raw PAI machine spec missing at %s: skipped)\n", RAW_MACHINES);
		return;
	}
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL_FATAL(trace_pai_cluster(RAW_MACHINES, &json, &d), 0);
	CU_ASSERT_STRING_EQUAL(json, "{\"flavors\": [\n"
				     "  {\"name\": \"MISC\", \"nodes\": 280, \"node\": {\"gpu\": 8}},\n"
				     "  {\"name\": \"P100\", \"nodes\": 798, \"node\": {\"gpu\": 2}},\n"
				     "  {\"name\": \"V100M32\", \"nodes\": 135, \"node\": {\"gpu\": 8}},\n"
				     "  {\"name\": \"T4\", \"nodes\": 497, \"node\": {\"gpu\": 2}},\n"
				     "  {\"name\": \"V100\", \"nodes\": 104, \"node\": {\"gpu\": 8}}\n]}\n");
	free(json);
	sim_diag_fini(&d);
}

static void test_helios_cluster(void)
{
	struct sim_diag d;
	char *json = NULL;
	sim_diag_init(&d, 20);
	/* The summary's header and two of its rows, as in the raw file (helios/helios_cluster_summary.csv),
	 * so the test does not depend on it. */
	const char *summary = tu_write_file(
		"helios_summary.csv",
		"id,gpu_num,job_num,cpu_job_num,gpu_job_num,avg_run_time_cpu,avg_run_time_gpu,avg_que_time_cpu,"
		"avg_que_time_gpu,avg_gpu_num,med_run_time_cpu,med_run_time_gpu,med_que_time_cpu,med_que_time_gpu,"
		"med_gpu_num,complete_rate,cancel_rate,fail_rate,complete_rate_cpu,cancel_rate_cpu,fail_rate_cpu,"
		"complete_rate_gpu,cancel_rate_gpu,fail_rate_gpu,complete_gpu_time,cancel_gpu_time,fail_gpu_time\n"
		"Venus,1022,246708,121405,125303,1649.859,13040.598,773.009,1253.288,6.736,21.0,204.0,0.0,0.0,1.0,"
		"0.69,0.186,0.124,0.86,0.097,0.043,0.526,0.272,0.202,6373315670.0,4920266598.0,1052030340.0\n"
		"Saturn,2080,1753078,1054182,698896,619.062,5252.927,16.255,611.561,4.01,2.0,124.0,0.0,0.0,1.0,0.799,"
		"0.12,0.08,0.943,0.019,0.037,0.582,0.272,0.145,14375709962.0,10733792235.0,2542859066.0\n");
	const char *raw_helios = access(RAW_HELIOS, R_OK) == 0 ? RAW_HELIOS : summary;
	/* Venus: 1022 GPUs -> 127 nodes of 8 (6 GPUs left out); Saturn: 2080 -> 260 */
	CU_ASSERT_EQUAL_FATAL(trace_helios_cluster(raw_helios, "Venus", &json, &d), 0);
	CU_ASSERT_STRING_EQUAL(json, "{\"flavors\": [\n  {\"name\": \"Venus\", \"nodes\": 127, \"node\": {\"gpu\": 8}}\n]}\n");
	free(json);
	CU_ASSERT_EQUAL_FATAL(trace_helios_cluster(raw_helios, "Saturn", &json, &d), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"Saturn\", \"nodes\": 260,"));
	free(json);
	CU_ASSERT_EQUAL(trace_helios_cluster(raw_helios, "Mars", &json, &d), -SIM_EPARSE);
	CU_ASSERT_PTR_NULL(json);
	CU_ASSERT(sim_diag_contains(&d, "expected a row with id 'Mars'"));
	const char *bad = tu_write_file("helios_bad.csv", "id,gpu_num\nX,abc\n");
	CU_ASSERT_EQUAL(trace_helios_cluster(bad, "X", &json, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "helios_bad.csv:2: column gpu_num: expected a whole GPU count"));
	const char *nohdr = tu_write_file("helios_nohdr.csv", "name,gpus\nX,8\n");
	CU_ASSERT_EQUAL(trace_helios_cluster(nohdr, "X", &json, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "helios_nohdr.csv:1: column id: expected a header naming id and gpu_num"));
	sim_diag_fini(&d);
}

static CU_TestInfo pai_tests[] = {
	{ "pai strict errors located", test_pai_strict },
	{ "pai skip-bad counts, rows, GPU-hours", test_pai_skip_bad },
	{ "pai header line skipped", test_pai_header_line },
	{ "pai machine spec -> cluster (sample)", test_pai_cluster_sample },
	{ "pai machine spec -> cluster (real)", test_pai_cluster_real },
	{ "helios summary -> cluster", test_helios_cluster },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo pai_suite = { "pai", init_pai, clean_pai, NULL, NULL, pai_tests };
