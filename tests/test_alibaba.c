/* tests/test_alibaba.c: the Alibaba openb importer (traces/alibaba.c) on a hand-made
 * pod list (strict errors, --skip-bad counts, gpu_spec repeats and cuts,
 * --top-queues) and on the real gpuspec33 list (counts, hand-checked rows, GPU-hours
 * against an independent sum), and the node list -> cluster reader. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/config.h"
#include "sim/job.h"
#include "testutil.h"
#include "traces/alibaba.h"
#include "traces/native.h"

static int init_alibaba(void)
{
	return 0;
}
static int clean_alibaba(void)
{
	return 0;
}

/* The full openb files, when configured (SIM_RAW_TRACES_DIR, traces/samples/README.md). */
#define RAW_OPENB TEST_RAW_DIR "/alibaba-openb-2023/"
#define RAW_PODS RAW_OPENB "openb_pod_list_gpuspec33.csv"
#define RAW_NODES RAW_OPENB "openb_node_list_gpu_node.csv"

/* Data lines 2..15 (line 14 blank). Kept: p1, p3, p4, p5, p12. Dropped, not errors:
 * p2 (CPU-only), p6 (never scheduled). Bad: p7 (run time 0, line 8), p8 (qos, 9),
 * p9 (num_gpu, 10), the second p1 (11), p10 (2 fields short, 12), p11 (model with a
 * blank, 13). */
static const char pods_sample[] =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,"
    "scheduled_time\n"
    "p1,1000,100,1,1000,,LS,Running,0,100,10\n"
    "p2,1000,100,0,0,,BE,Running,5,100,5\n"
    "p3,1000,100,1,460,T4,BE,Succeeded,20,50,30\n"
    "p4,1000,100,8,1000,V100M16|V100M32|V100M32,Guaranteed,Running,30,3630,30\n"
    "p5,1000,100,2,1000,A|B|C|D|E|F,Burstable,Failed,40,100,40.5\r\n"
    "p6,1000,100,1,1000,,LS,Pending,50,60,\n"
    "p7,1000,100,1,1000,,LS,Running,60,60,60\n"
    "p8,1000,100,1,1000,,XX,Running,70,80,70\n"
    "p9,1000,100,x,1000,,LS,Running,70,80,70\n"
    "p1,1000,100,1,1000,,LS,Running,80,90,80\n"
    "p10,1000,100,1,1000,,LS,Running,80\n"
    "p11,1000,100,1,1000,G 2,BE,Running,90,100,90\n"
    "\n"
    "p12,1000,100,4,1000,G2,BE,Running,100,200,150\n";

static const char *const pods_sample_rows[] = {
    "\nid,submit_s,duration_s,queue,priority,request,prefs\n",
    "\np1,0,90,LS,2,*:gpu=1,\n",
    "\np3,20,20,BE,0,T4:gpu=0.46,\n",
    "\np4,30,3600,Guaranteed,1,*:gpu=8,V100M16;V100M32\n",
    "\np5,40,59.5,Burstable,1,*:gpu=2,A;B;C;D;E\n",
    "\np12,100,50,BE,0,G2:gpu=4,\n",
};

/* openb-1: a run of 2e9 s (or a creation_time over 1e9 s) was written and then
 * refused by the native reader; now bad rows, located. */
static void test_openb_time_range(void)
{
	struct sim_diag d;
	struct trace_import_result res;
	struct trace_import_opts opts = { 0 };
	const char *in = tu_write_file(
	    "openb_range.csv",
	    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,"
	    "scheduled_time\n"
	    "p1,1000,100,1,1000,,LS,Running,0,2000000000,10\n"
	    "p2,1000,100,1,1000,,LS,Running,2000000000,2000000100,2000000010\n"
	    "p3,1000,100,1,1000,,LS,Running,5,100,10\n");
	const char *out = tu_tmp_path("openb_range_out.csv");
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(trace_openb_import(in, out, &opts, &res, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "openb_range.csv:2: column deletion_time: duration over 1e9 s"));
	CU_ASSERT(sim_diag_contains(&d, "openb_range.csv:3: column creation_time: submit time out of range"));
	CU_ASSERT(!tu_exists(out));
	sim_diag_fini(&d);
	opts.skip_bad = 1;
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL_FATAL(trace_openb_import(in, out, &opts, &res, &d), 0);
	CU_ASSERT_EQUAL(res.rows_written, 1);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "duration over 1e9 s"), 1);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "submit time out of range"), 1);
	sim_diag_fini(&d);
}

static void test_openb_strict(void)
{
	struct sim_diag d;
	struct trace_import_result res;
	struct trace_import_opts opts = {0};
	const char *in = tu_write_file("openb_pods.csv", pods_sample), *out = tu_tmp_path("openb_strict.csv");
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(trace_openb_import(in, out, &opts, &res, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d,
				    "openb_pods.csv:8: column deletion_time: expected a deletion_time after "
				    "scheduled_time (60), found '60'"));
	CU_ASSERT(sim_diag_contains(&d,
				    "openb_pods.csv:9: column qos: expected LS, Guaranteed, Burstable or BE, "
				    "found 'XX'"));
	CU_ASSERT(sim_diag_contains(&d, "openb_pods.csv:10: column num_gpu: expected a whole GPU count >= 0, "
					"found 'x'"));
	CU_ASSERT(
	    sim_diag_contains(&d, "openb_pods.csv:11: column name: expected a unique pod name, found 'p1'"));
	CU_ASSERT(sim_diag_contains(&d, "openb_pods.csv:12: expected 11 fields as in the header, found 9"));
	CU_ASSERT(sim_diag_contains(&d, "openb_pods.csv:13: column gpu_spec: expected GPU models"));
	CU_ASSERT_EQUAL(d.count, 6); /* CPU-only and never-scheduled pods are not errors */
	CU_ASSERT(!tu_exists(out));
	sim_diag_fini(&d);

	/* A header without a needed column. */
	sim_diag_init(&d, 20);
	in = tu_write_file("openb_nohdr.csv", "name,num_gpu\np1,1\n");
	CU_ASSERT_EQUAL(trace_openb_import(in, out, &opts, &res, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "openb_nohdr.csv:1: column gpu_milli: expected a header naming"));
	sim_diag_fini(&d);
}

static void test_openb_skip_bad(void)
{
	struct sim_diag d;
	struct trace_import_result res;
	struct trace_import_opts opts = {.skip_bad = 1};
	const char *in = tu_write_file("openb_pods.csv", pods_sample), *out = tu_tmp_path("openb_skip.csv");
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL_FATAL(trace_openb_import(in, out, &opts, &res, &d), 0);
	CU_ASSERT_EQUAL(res.rows_read, 13);
	CU_ASSERT_EQUAL(res.rows_written, 5);
	CU_ASSERT_EQUAL(res.rows_dropped, 8);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "no GPU"), 1);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "never scheduled"), 1);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "no run time"), 1);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "bad qos"), 1);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "bad number"), 1);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "duplicate name"), 1);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "wrong field count"), 1);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "bad gpu_spec"), 1);
	CU_ASSERT_EQUAL(trace_import_bad_count(&res), 6);
	/* 90x1 + 20x0.46 + 3600x8 + 59.5x2 + 50x4; in adds the second p1, p8 and p11
	 * (10 s x 1 GPU each: their times and GPUs parse). */
	CU_ASSERT(fabs(res.gpu_hours_out - 29218.2 / 3600) < 1e-9);
	CU_ASSERT(fabs(res.gpu_hours_in - 29248.2 / 3600) < 1e-9);
	CU_ASSERT_EQUAL(res.tenants_in, 4);
	CU_ASSERT_EQUAL(res.queues_out, 4);
	CU_ASSERT(strstr(res.note, "4 jobs, 1 with repeats merged, 1 cut to 5") != NULL);

	char *txt = tu_read_file(out, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(txt);
	for (size_t i = 0; i < sizeof pods_sample_rows / sizeof pods_sample_rows[0]; i++)
		CU_ASSERT(strstr(txt, pods_sample_rows[i]) != NULL);
	CU_ASSERT(strstr(txt, "# Skipped bad rows (--skip-bad): 6 (") != NULL);
	CU_ASSERT(strstr(txt, "no GPU: 1, never scheduled: 1") != NULL);
	free(txt);

	struct sim_trace *t = NULL;
	CU_ASSERT_EQUAL(trace_native_read(out, &t, &d), 0);
	CU_ASSERT(t && t->n_jobs == 5);
	sim_trace_destroy(t);

	/* --top-queues 1: Guaranteed holds 28800 GPU-s of 29218.2; the rest is 'other'. */
	opts.top_queues = 1;
	CU_ASSERT_EQUAL_FATAL(trace_openb_import(in, out, &opts, &res, &d), 0);
	CU_ASSERT_EQUAL(res.queues_out, 2);
	txt = tu_read_file(out, NULL);
	CU_ASSERT(txt && strstr(txt, "\np4,30,3600,Guaranteed,1,"));
	CU_ASSERT(txt && strstr(txt, "\np1,0,90,other,2,"));
	CU_ASSERT(txt && strstr(txt, "\np12,100,50,other,0,"));
	free(txt);
	CU_ASSERT_EQUAL(d.count, 0);
	sim_diag_fini(&d);
}

/* Independent reader of the raw pod list: rows, CPU-only pods, never-scheduled GPU
 * pods, and GPU-seconds of the rest. Returns -1 when the file is missing. */
static double raw_openb_gpu_s(const char *path, size_t *rows, size_t *cpu_only, size_t *pending, size_t *kept)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	double sum = 0;
	if (!f)
		return -1;
	*rows = *cpu_only = *pending = *kept = 0;
	CU_ASSERT(fgets(line, sizeof line, f) != NULL); /* header */
	while (fgets(line, sizeof line, f)) {
		char *field[11], *p = line;
		int n = 0;
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0])
			continue;
		while (n < 11) {
			field[n++] = p;
			p = strchr(p, ',');
			if (!p)
				break;
			*p++ = '\0';
		}
		(*rows)++;
		if (n != 11)
			continue;
		long num_gpu = atol(field[3]), milli = atol(field[4]);
		if (num_gpu == 0) {
			(*cpu_only)++;
			continue;
		}
		if (!field[10][0]) {
			(*pending)++;
			continue;
		}
		double gpus = num_gpu == 1 ? milli / 1000.0 : (double)num_gpu;
		sum += (atof(field[9]) - atof(field[10])) * gpus;
		(*kept)++;
	}
	fclose(f);
	return sum;
}

static void test_openb_real(void)
{
	size_t rows, cpu_only, pending, kept;
	double raw_s = raw_openb_gpu_s(RAW_PODS, &rows, &cpu_only, &pending, &kept);
	if (raw_s < 0) {
		fprintf(stderr, "\n(raw openb pod list missing at %s: skipped)\n", RAW_PODS);
		return;
	}
	CU_ASSERT_EQUAL(rows, 8152);
	CU_ASSERT_EQUAL(cpu_only, 1088);
	CU_ASSERT_EQUAL(pending, 861);
	CU_ASSERT_EQUAL(kept, 6203);

	struct sim_diag d;
	struct trace_import_result res;
	struct trace_import_opts opts = {0};
	const char *out = tu_tmp_path("openb_real.csv");
	sim_diag_init(&d, 20);
	/* Strict mode passes: no pod has a bad row. */
	CU_ASSERT_EQUAL_FATAL(trace_openb_import(RAW_PODS, out, &opts, &res, &d), 0);
	CU_ASSERT_EQUAL(res.rows_read, 8152);
	CU_ASSERT_EQUAL(res.rows_written, 6203);
	CU_ASSERT_EQUAL(res.rows_dropped, 1949);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "no GPU"), 1088);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "never scheduled"), 861);
	CU_ASSERT_EQUAL(trace_import_bad_count(&res), 0);
	CU_ASSERT_EQUAL(res.tenants_in, 4);
	CU_ASSERT(fabs(res.gpu_hours_out - raw_s / 3600) < 1e-6);
	CU_ASSERT(fabs(res.gpu_hours_in - raw_s / 3600) < 1e-6);

	char *txt = tu_read_file(out, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(txt);
	/* Raw lines, by hand:
	 * 3:    openb-pod-0001,6000,12288,1,460,,LS,Running,427061,12902960,427061
	 * 600: openb-pod-0598,4000,31250,1,1000,V100M16|V100M32|V100M32,LS,Running,10261340,10267864,10261340
	 * 1446: openb-pod-1444,3152,5600,1,1000,A10|G2|P100|T4|V100M16|V100M32|V100M32,BE,Failed,10571117,
	 *       10571654,10571117
	 * 735:  openb-pod-0733,6000,8192,1,1000,,Guaranteed,Running,10292589,12634855,10292622
	 * 434:  openb-pod-0432,12000,24576,1,1000,G3,Guaranteed,Running,10196738,10197213,10196739
	 * 19:   openb-pod-0017,88000,327680,8,1000,G2,Burstable,Succeeded,9437497,10769854,9437497
	 * 529:  openb-pod-0527,...,V100M16|V100M32|V100M32,BE,Pending,10218024,10218029,  (dropped) */
	CU_ASSERT(strstr(txt, "\nopenb-pod-0001,427061,12475899,LS,2,*:gpu=0.46,\n") != NULL);
	CU_ASSERT(strstr(txt, "\nopenb-pod-0598,10261340,6524,LS,2,*:gpu=1,V100M16;V100M32\n") != NULL);
	CU_ASSERT(strstr(txt, "\nopenb-pod-1444,10571117,537,BE,0,*:gpu=1,A10;G2;P100;T4;V100M16\n") != NULL);
	CU_ASSERT(strstr(txt, "\nopenb-pod-0733,10292589,2342233,Guaranteed,1,*:gpu=1,\n") != NULL);
	CU_ASSERT(strstr(txt, "\nopenb-pod-0432,10196738,474,Guaranteed,1,G3:gpu=1,\n") != NULL);
	CU_ASSERT(strstr(txt, "\nopenb-pod-0017,9437497,1332357,Burstable,1,G2:gpu=8,\n") != NULL);
	CU_ASSERT(strstr(txt, "\nopenb-pod-0527,") == NULL);
	free(txt);

	struct sim_trace *t = NULL;
	CU_ASSERT_EQUAL(trace_native_read(out, &t, &d), 0);
	CU_ASSERT(t && t->n_jobs == 6203);
	sim_trace_destroy(t);

	opts.top_queues = 2;
	CU_ASSERT_EQUAL(trace_openb_import(RAW_PODS, out, &opts, &res, &d), 0);
	CU_ASSERT_EQUAL(res.queues_out, 3);
	CU_ASSERT_EQUAL(d.count, 0);
	sim_diag_fini(&d);
}

/* Model X: 3 nodes of 2 GPUs, 1 of 4 (left out). Y: a tie of 1 node of 1 and 1 of 8:
 * 8 wins. A CPU node (gpu 0, no model) is skipped. X has 10 GPUs, Y 9: X first. */
static const char nodes_sample[] = "sn,cpu_milli,memory_mib,gpu,model\n"
				   "n0,64000,1024,2,X\n"
				   "n1,64000,1024,2,X\n"
				   "n2,8000,1024,0,\n"
				   "n3,64000,1024,4,X\n"
				   "n4,64000,1024,1,Y\n"
				   "n5,64000,1024,2,X\n"
				   "n6,64000,1024,8,Y\n";

static void test_openb_cluster_sample(void)
{
	struct sim_diag d;
	char *json = NULL;
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL_FATAL(trace_openb_cluster(tu_write_file("nodes.csv", nodes_sample), &json, &d), 0);
	CU_ASSERT_STRING_EQUAL(json, "{\"flavors\": [\n"
				     "  {\"name\": \"X\", \"nodes\": 3, \"node\": {\"gpu\": 2}},\n"
				     "  {\"name\": \"Y\", \"nodes\": 1, \"node\": {\"gpu\": 8}}\n"
				     "]}\n");
	free(json);

	const char *bad = tu_write_file("nodes_bad.csv", "sn,gpu,model\n"
							 "n0,2,X\n"
							 "n1,two,X\n"
							 "n2,2,\n"
							 "n3,2\n");
	CU_ASSERT_EQUAL(trace_openb_cluster(bad, &json, &d), -SIM_EPARSE);
	CU_ASSERT_PTR_NULL(json);
	CU_ASSERT(sim_diag_contains(&d, "nodes_bad.csv:3: column gpu: expected a whole GPU count in 0..1048, "
					"found 'two'"));
	CU_ASSERT(sim_diag_contains(&d, "nodes_bad.csv:4: column model: expected a GPU model"));
	CU_ASSERT(sim_diag_contains(&d, "nodes_bad.csv:5: expected 3 fields as in the header, found 2"));
	CU_ASSERT_EQUAL(d.count, 3);
	sim_diag_fini(&d);

	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(trace_openb_cluster(tu_write_file("nodes_hdr.csv", "sn,gpus,model\n"), &json, &d),
			-SIM_EPARSE);
	CU_ASSERT(
	    sim_diag_contains(&d, "nodes_hdr.csv:1: column gpu: expected a header naming gpu and model"));
	CU_ASSERT_EQUAL(trace_openb_cluster(tu_tmp_path("no_such.csv"), &json, &d), -SIM_ENOENT);
	sim_diag_fini(&d);
}

/* The real GPU node list: 1,213 nodes, 7 models. The JSON is a valid cluster. */
static void test_openb_cluster_real(void)
{
	FILE *probe = fopen(RAW_NODES, "r");
	if (!probe) {
		fprintf(stderr, "\n(raw openb node list missing at %s: skipped)\n", RAW_NODES);
		return;
	}
	fclose(probe);
	struct sim_diag d;
	char *json = NULL;
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL_FATAL(trace_openb_cluster(RAW_NODES, &json, &d), 0);
	/* awk -F, 'NR>1{print $5, $4}' | sort | uniq -c: G2 549x8; T4 387x2, 17x4; G3 39x8;
	 * P100 3x1, 131x2; V100M32 9x4, 21x8; V100M16 19x1, 28x4, 8x8; A10 2x1. Order by
	 * GPUs: G2 4392, T4 842, G3 312, P100 265, V100M32 204, V100M16 195, A10 2. */
	CU_ASSERT_STRING_EQUAL(json, "{\"flavors\": [\n"
				     "  {\"name\": \"G2\", \"nodes\": 549, \"node\": {\"gpu\": 8}},\n"
				     "  {\"name\": \"T4\", \"nodes\": 387, \"node\": {\"gpu\": 2}},\n"
				     "  {\"name\": \"G3\", \"nodes\": 39, \"node\": {\"gpu\": 8}},\n"
				     "  {\"name\": \"P100\", \"nodes\": 131, \"node\": {\"gpu\": 2}},\n"
				     "  {\"name\": \"V100M32\", \"nodes\": 21, \"node\": {\"gpu\": 8}},\n"
				     "  {\"name\": \"V100M16\", \"nodes\": 28, \"node\": {\"gpu\": 4}},\n"
				     "  {\"name\": \"A10\", \"nodes\": 2, \"node\": {\"gpu\": 1}}\n"
				     "]}\n");

	/* The experiment config loader takes it as the cluster object. */
	char cfg_text[4096];
	struct exp_config *cfg = NULL;
	snprintf(cfg_text, sizeof cfg_text,
		 "{\"name\": \"openb\", \"trace\": {\"path\": \"t.csv\"}, \"cluster\": %s}", json);
	CU_ASSERT_EQUAL(exp_config_parse("openb.json", cfg_text, strlen(cfg_text), &cfg, &d), 0);
	if (cfg) {
		CU_ASSERT_EQUAL(cfg->variants[0].n_flavors, 7);
		CU_ASSERT_STRING_EQUAL(cfg->variants[0].flavors[5].name, "V100M16");
		CU_ASSERT_EQUAL(cfg->variants[0].flavors[5].nodes, 28);
		CU_ASSERT_EQUAL(cfg->variants[0].flavors[5].node_cap[SIM_RES_GPU], 4 * SIM_MILLI);
	}
	exp_config_destroy(cfg);
	free(json);
	CU_ASSERT_EQUAL(d.count, 0);
	sim_diag_fini(&d);
}

static CU_TestInfo alibaba_tests[] = {
    {"test_openb_strict", test_openb_strict},
	{ "test_openb_time_range", test_openb_time_range },
    {"test_openb_skip_bad", test_openb_skip_bad},
    {"test_openb_real", test_openb_real},
    {"test_openb_cluster_sample", test_openb_cluster_sample},
    {"test_openb_cluster_real", test_openb_cluster_real},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo alibaba_suite = {"alibaba", init_alibaba, clean_alibaba, NULL, NULL, alibaba_tests};
