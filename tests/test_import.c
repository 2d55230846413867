/* tests/test_import.c: the importer registry (traces/import.h), the SWF importer
 * (traces/swf.c) on a hand-made log and on the real NASA iPSC/860 log, --skip-bad
 * and --top-queues for SWF and Philly, gzip input, and the command line. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "sim/job.h"
#include "outtmp.h"
#include "testutil.h"
#include "traces/import.h"
#include "traces/native.h"

static int init_import(void) { return 0; }
static int clean_import(void)
{
	return 0;
}

/* The full SWF log, when configured (SIM_RAW_TRACES_DIR, traces/samples/README.md). */
#define RAW_NASA TEST_RAW_DIR "/swf/NASA-iPSC-1993-3.1-cln.swf.gz"

/* Data lines 6..15. Kept: jobs 1, 3, 4, 8 (job 8 has the earliest submit, 90).
 * Dropped: job 2 (run time -1, unknown), the second job 3 (status 2: a partial-execution
 * record, not an error), job 5 (4 fields), job 6 (run time 'abc'), job 7 (no
 * processors in field 5 or 8), the second job 2 (number not above 4, the last kept). */
static const char swf_sample[] = "; Version: 2.2\n"
				 "; Computer: Test rig\n"
				 "; MaxProcs: 64\n"
				 "; UnixStartTime: 1000\n"
				 ";\n"
				 "1 100 5 3600 8 -1 -1 8 7200 -1 1 3 1 -1 2 -1 -1 -1\n"
				 "2 150 -1 -1 4 -1 -1 4 -1 -1 5 3 1 -1 2 -1 -1 -1\n"
				 "  3 160 -1 120 -1 -1 -1 16 600 -1 0 5 2 -1 1 -1 -1 -1\n"
				 "3\t160 -1 60 16 -1 -1 16 600 -1 2 5 2 -1 1 -1 -1 -1\n"
				 "4 200 -1 30.5 2 -1 -1 -1 -1 -1 -1 3 1 -1 -1 -1 -1 -1\r\n"
				 "5 210 -1 10\n"
				 "6 220 -1 abc 1 -1 -1 1 -1 -1 1 3 1 -1 2 -1 -1 -1\n"
				 "7 230 -1 50 -1 -1 -1 -1 -1 -1 1 3 1 -1 2 -1 -1 -1\n"
				 "2 240 -1 40 1 -1 -1 1 -1 -1 1 9 1 -1 2 -1 -1 -1\n"
				 "\n"
				 "8 90 -1 40 1 -1 -1 1 -1 -1 1 9 1 -1 2 -1 -1 -1\n";

static const char swf_sample_rows[] = "\nid,submit_s,duration_s,queue,request,estimate_s\n"
				      "1,10,3600,user-3,*:gpu=8,7200\n"
				      "3,70,120,user-5,*:gpu=16,600\n"
				      "4,110,30.5,user-3,*:gpu=2,\n"
				      "8,0,40,user-9,*:gpu=1,\n";

static void test_import_registry(void)
{
	size_t n = 0;
	const struct trace_importer *all = trace_importers(&n);
	CU_ASSERT(n >= 2);
	CU_ASSERT_PTR_NOT_NULL(trace_importer_find("philly"));
	CU_ASSERT_PTR_NOT_NULL(trace_importer_find("swf"));
	CU_ASSERT_PTR_NULL(trace_importer_find("nope"));
	for (size_t i = 0; i < n; i++)
		CU_ASSERT(all[i].name && all[i].summary && all[i].convert);

	struct sim_diag d;
	struct trace_import_result res;
	struct trace_import_opts opts = { 0 };
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(trace_import("nope", "in", tu_tmp_path("x.csv"), &opts, &res, &d), -SIM_EINVAL);
	CU_ASSERT(sim_diag_contains(&d, "--format: expected one of philly, swf"));
	sim_diag_fini(&d);
}

/* Strict: every bad row located, -SIM_EPARSE, and no output at all. */
static void test_import_swf_strict(void)
{
	struct sim_diag d;
	struct trace_import_result res;
	struct trace_import_opts opts = { 0 };
	const char *in = tu_write_file("swf_sample.swf", swf_sample), *out = tu_tmp_path("swf_strict.csv");
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(trace_import("swf", in, out, &opts, &res, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "swf_sample.swf:7: column 4 (run time): expected a run time >= 0 s "
					"(0 is read as 1 s; -1, unknown,"));
	CU_ASSERT(
		sim_diag_contains(&d, "swf_sample.swf:11: expected 18 whitespace-separated fields, found 4"));
	CU_ASSERT(sim_diag_contains(&d, "swf_sample.swf:12: column 4 (run time): expected a number (-1 when "
					"unknown), found 'abc'"));
	CU_ASSERT(sim_diag_contains(&d,
				    "swf_sample.swf:13: column 5 (allocated processors): expected a whole "
				    "processor count"));
	CU_ASSERT(sim_diag_contains(&d, "swf_sample.swf:14: column 1 (job number): expected a whole job "
					"number above the previous kept row's (4), found '2'"));
	CU_ASSERT_EQUAL(d.count, 5); /* the partial-execution record is not an error */
	CU_ASSERT(!tu_exists(out));
	CU_ASSERT_EQUAL(count_out_tmps(out, NULL), 0);
	sim_diag_fini(&d);
}

static void check_swf_sample_result(const struct trace_import_result *res)
{
	CU_ASSERT_EQUAL(res->rows_read, 10);
	CU_ASSERT_EQUAL(res->rows_written, 4);
	CU_ASSERT_EQUAL(res->rows_dropped, 6);
	CU_ASSERT_EQUAL(tu_reason_count(res, "no run time"), 1);
	CU_ASSERT_EQUAL(tu_reason_count(res, "partial-execution record"), 1);
	CU_ASSERT_EQUAL(tu_reason_count(res, "wrong field count"), 1);
	CU_ASSERT_EQUAL(tu_reason_count(res, "bad number"), 1);
	CU_ASSERT_EQUAL(tu_reason_count(res, "no processors"), 1);
	CU_ASSERT_EQUAL(tu_reason_count(res, "job number not increasing"), 1);
	CU_ASSERT_EQUAL(trace_import_bad_count(res), 5);
	/* 3600x8 + 120x16 + 30.5x2 + 40x1; in adds the partial record (60x16) and the
	 * refused second job 2 (40x1). */
	CU_ASSERT(fabs(res->gpu_hours_out - 30821.0 / 3600) < 1e-9);
	CU_ASSERT(fabs(res->gpu_hours_in - 31821.0 / 3600) < 1e-9);
	CU_ASSERT_EQUAL(res->tenants_in, 3);
}

/* --skip-bad: the hand-checked rows, counts by reason in the output's comments. */
static void test_import_swf_skip_bad(void)
{
	struct sim_diag d;
	struct trace_import_result res;
	struct trace_import_opts opts = { .skip_bad = 1 };
	struct sim_trace *t = NULL;
	const char *in = tu_write_file("swf_sample.swf", swf_sample), *out = tu_tmp_path("swf_skip.csv");
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL_FATAL(trace_import("swf", in, out, &opts, &res, &d), 0);
	CU_ASSERT_EQUAL(d.count, 0);
	check_swf_sample_result(&res);
	CU_ASSERT_EQUAL(res.queues_out, 3);
	char *txt = tu_read_file(out, NULL);
	CU_ASSERT(txt && strstr(txt, swf_sample_rows));
	CU_ASSERT(txt && strstr(txt, "# Computer: Test rig\n# MaxProcs: 64\n# UnixStartTime: 1000\n"));
	CU_ASSERT(txt && strstr(txt, "processors stand in for GPUs"));
	CU_ASSERT(txt && strstr(txt, "submit_s = submit time - 90 s"));
	CU_ASSERT(txt && strstr(txt, "# Rows in: 10, jobs out: 4, dropped: 6 ("));
	CU_ASSERT(txt && strstr(txt, "# Skipped bad rows (--skip-bad): 5 (no run time: 1, partial"
				     "-execution record") == NULL); /* only bad reasons listed */
	CU_ASSERT(txt &&
		  strstr(txt, "# Skipped bad rows (--skip-bad): 5 (no run time: 1, wrong field count: 1, "
			      "bad number: 1, no processors: 1, job number not increasing: 1).\n"));
	free(txt);
	CU_ASSERT_EQUAL(trace_native_read(out, &t, &d), 0);
	CU_ASSERT(t && t->n_jobs == 4 && t->has_estimates);
	if (t && t->n_jobs == 4) {
		CU_ASSERT_STRING_EQUAL(sim_job_id(t, &t->jobs[0]), "8");
		CU_ASSERT_EQUAL(t->jobs[3].submit_ns, 110 * SIM_NS_PER_S);
		CU_ASSERT_EQUAL(t->jobs[3].duration_ns, 30500000000LL);
		CU_ASSERT_EQUAL(t->jobs[1].estimate_ns, 7200 * SIM_NS_PER_S);
	}
	sim_trace_destroy(t);
	sim_diag_fini(&d);
}

/* A run time of 0 (a job under the log's 1 s resolution) is a job of 1 s by default;
 * -1 (unknown) stays a bad row. */
static void test_import_swf_zero_run_time(void)
{
	static const char log[] = "; MaxProcs: 8\n"
				  "1 0 -1 0 2 -1 -1 2 -1 -1 1 3 1 -1 1 -1 -1 -1\n"
				  "2 5 -1 7 4 -1 -1 4 -1 -1 1 3 1 -1 1 -1 -1 -1\n"
				  "3 9 -1 0 1 -1 -1 1 -1 -1 0 4 1 -1 1 -1 -1 -1\n";
	struct sim_diag d;
	struct trace_import_result res;
	struct trace_import_opts opts = { 0 };
	const char *in = tu_write_file("swf_zero.swf", log), *out = tu_tmp_path("swf_zero.csv");
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL_FATAL(trace_import("swf", in, out, &opts, &res, &d), 0);
	CU_ASSERT_EQUAL(res.rows_written, 3);
	CU_ASSERT_EQUAL(res.rows_dropped, 0);
	CU_ASSERT_STRING_EQUAL(res.note, "run time 0 read as 1 s: 2 jobs");
	CU_ASSERT(fabs(res.gpu_hours_out - (2.0 + 28 + 1) / 3600) < 1e-12);
	CU_ASSERT(fabs(res.gpu_hours_in - res.gpu_hours_out) < 1e-12);
	char *txt = tu_read_file(out, NULL);
	CU_ASSERT(txt && strstr(txt, "\n1,0,1,user-3,*:gpu=2,\n2,5,7,user-3,*:gpu=4,\n3,9,1,user-4,*:gpu=1,\n"));
	CU_ASSERT(txt && strstr(txt, "(0 read as 1 s, the log's resolution: 2 jobs)"));
	free(txt);
	/* -1 is still a bad row. */
	in = tu_write_file("swf_unknown.swf", "1 0 -1 -1 2 -1 -1 2 -1 -1 1 3 1 -1 1 -1 -1 -1\n");
	CU_ASSERT_EQUAL(trace_import("swf", in, out, &opts, &res, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "swf_unknown.swf:1: column 4 (run time): expected a run time >= 0 s"));
	sim_diag_fini(&d);
}

/* gzip input gives the same bytes as plain input. */
static void test_import_swf_gzip(void)
{
	struct sim_diag d;
	struct trace_import_result res;
	struct trace_import_opts opts = { .skip_bad = 1 };
	const char *plain_in = tu_write_file("swf_sample.swf", swf_sample);
	const char *gz_in = tu_tmp_path("swf_sample.swf.gz");
	gzFile g = gzopen(gz_in, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	CU_ASSERT_EQUAL(gzputs(g, swf_sample), (int)strlen(swf_sample));
	CU_ASSERT_EQUAL(gzclose(g), Z_OK);
	sim_diag_init(&d, 20);
	const char *out_plain = tu_tmp_path("swf_plain.csv"), *out_gz = tu_tmp_path("swf_gz.csv");
	CU_ASSERT_EQUAL(trace_import("swf", plain_in, out_plain, &opts, &res, &d), 0);
	CU_ASSERT_EQUAL(trace_import("swf", gz_in, out_gz, &opts, &res, &d), 0);
	check_swf_sample_result(&res);
	char *a = tu_read_file(out_plain, NULL), *b = tu_read_file(out_gz, NULL);
	/* Same rows; the headers differ only in the file name. */
	CU_ASSERT(a && b && strstr(a, swf_sample_rows) && strstr(b, swf_sample_rows));
	free(a);
	free(b);
	sim_diag_fini(&d);
}

/* --queue-from and --top-queues on the sample. */
static void test_import_swf_tenants(void)
{
	struct sim_diag d;
	struct trace_import_result res;
	struct trace_import_opts opts = { .skip_bad = 1, .queue_from = TRACE_QUEUE_QUEUE };
	const char *in = tu_write_file("swf_sample.swf", swf_sample), *out = tu_tmp_path("swf_q.csv");
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(trace_import("swf", in, out, &opts, &res, &d), 0);
	char *txt = tu_read_file(out, NULL);
	CU_ASSERT(txt && strstr(txt, "\n1,10,3600,queue-2,*:gpu=8,7200\n3,70,120,queue-1,*:gpu=16,600\n"
				     "4,110,30.5,queue-unknown,*:gpu=2,\n8,0,40,queue-2,*:gpu=1,\n"));
	free(txt);

	opts.queue_from = TRACE_QUEUE_GROUP;
	CU_ASSERT_EQUAL(trace_import("swf", in, out, &opts, &res, &d), 0);
	txt = tu_read_file(out, NULL);
	CU_ASSERT(txt && strstr(txt, "\n1,10,3600,group-1,*:gpu=8,7200\n3,70,120,group-2,*:gpu=16,600\n"));
	free(txt);

	/* user-3 has 28,861 processor-s, user-5 1,920, user-9 40: K = 1 keeps user-3. */
	opts.queue_from = TRACE_QUEUE_USER;
	opts.top_queues = 1;
	CU_ASSERT_EQUAL(trace_import("swf", in, out, &opts, &res, &d), 0);
	CU_ASSERT_EQUAL(res.tenants_in, 3);
	CU_ASSERT_EQUAL(res.queues_out, 2);
	txt = tu_read_file(out, NULL);
	CU_ASSERT(txt && strstr(txt, "\n1,10,3600,user-3,*:gpu=8,7200\n3,70,120,other,*:gpu=16,600\n"
				     "4,110,30.5,user-3,*:gpu=2,\n8,0,40,other,*:gpu=1,\n"));
	CU_ASSERT(txt && strstr(txt, "# Tenants (--top-queues 1): the 1 with most processor-hours keep their "
				     "name, the other 2 are 'other'."));
	free(txt);

	/* K at or above the tenant count renames nothing. */
	opts.top_queues = 3;
	CU_ASSERT_EQUAL(trace_import("swf", in, out, &opts, &res, &d), 0);
	CU_ASSERT_EQUAL(res.queues_out, 3);
	txt = tu_read_file(out, NULL);
	CU_ASSERT(txt && strstr(txt, swf_sample_rows));
	free(txt);
	CU_ASSERT_EQUAL(d.count, 0);
	sim_diag_fini(&d);
}

/* Processor-seconds of the NASA log computed without the importer: gzgets + strtod
 * per field, rows with run time >= 0 (0 counted as 1 s) and processors (field 5,
 * else 8) > 0. Also per user (ids < 1024) and the kept row count. */
static double raw_swf_proc_s(const char *path, size_t *rows, size_t *kept, double *per_user)
{
	gzFile g = gzopen(path, "rb");
	char line[1024];
	double sum = 0;
	*rows = *kept = 0;
	if (!g)
		return NAN;
	while (gzgets(g, line, sizeof line)) {
		double v[18];
		char *p = line, *e;
		int n = 0;
		while (n < 18) {
			v[n] = strtod(p, &e);
			if (e == p)
				break;
			p = e;
			n++;
		}
		if (line[strspn(line, " \t")] == ';' || n == 0)
			continue;
		(*rows)++;
		double procs = v[4] > 0 ? v[4] : v[7], run = n > 3 && v[3] == 0 ? 1 : v[3];
		if (n == 18 && run > 0 && procs > 0) {
			(*kept)++;
			sum += run * procs;
			if (v[11] >= 0 && v[11] < 1024)
				per_user[(int)v[11]] += run * procs;
		}
	}
	gzclose(g);
	return sum;
}

/* The real NASA iPSC/860 log: counts, three rows checked by hand against
 * `zcat NASA-iPSC-1993-3.1-cln.swf.gz | sed -n 'Np'`, processor-hours, top-3 users. */
static void test_import_swf_nasa(void)
{
	static double per_user[1024];
	size_t raw_rows = 0, raw_kept = 0;
	double raw_s = raw_swf_proc_s(RAW_NASA, &raw_rows, &raw_kept, per_user);
	if (isnan(raw_s)) {
		fprintf(stderr, "\n(raw SWF log missing at %s: skipped)\n", RAW_NASA);
		return;
	}
	/* awk '!/^;/ && NF && $4>=0 {r=$4>0?$4:1; h+=r*$5; k++}' gives 18239 rows,
	 * 131734.536111 h (131732.781944 h over the 18066 rows with a run time > 0). */
	CU_ASSERT_EQUAL(raw_rows, 18239);
	CU_ASSERT_EQUAL(raw_kept, 18239);
	CU_ASSERT(fabs(raw_s / 3600 - 131734.536111) < 1e-6);

	struct sim_diag d;
	struct trace_import_result res;
	struct trace_import_opts opts = { 0 };
	const char *out = tu_tmp_path("nasa.csv");
	sim_diag_init(&d, 20);
	/* By default (strict) every row is a job: the 173 rows with run time 0 (the first
	 * is line 248, job 658) are read as 1 s. --skip-bad changes nothing. */
	for (int skip = 0; skip < 2; skip++) {
		opts.skip_bad = skip;
		CU_ASSERT_EQUAL_FATAL(trace_import("swf", RAW_NASA, out, &opts, &res, &d), 0);
		CU_ASSERT_EQUAL(d.count, 0);
		CU_ASSERT_EQUAL(res.rows_written, 18239);
		CU_ASSERT_STRING_EQUAL(res.note, "run time 0 read as 1 s: 173 jobs");
	}
	CU_ASSERT_EQUAL(res.rows_read, 18239);
	CU_ASSERT_EQUAL(res.rows_dropped, 0);
	CU_ASSERT_EQUAL(res.tenants_in, 69);
	CU_ASSERT(fabs(res.gpu_hours_out - raw_s / 3600) < 1e-6);
	char *txt = tu_read_file(out, NULL);
	/* line 35:    2  1460 -1  3726 128 -1 -1 -1 -1 -1 -1  1 1 -1 -1 -1 -1 -1
	 * line 10000: 23872 4625585 -1 196 32 -1 -1 -1 -1 -1 -1 4 1 3 -1 -1 -1 -1
	 * line 18271: 42264 7948936 -1  86 128 -1 -1 -1 -1 -1 -1 12 2 -1 -1 -1 -1 -1
	 * line 248:   658 168848 -1 0 128 ... (run time 0: read as 1 s) */
	CU_ASSERT(txt && strstr(txt, "\n2,1460,3726,user-1,*:gpu=128,\n"));
	CU_ASSERT(txt && strstr(txt, "\n23872,4625585,196,user-4,*:gpu=32,\n"));
	CU_ASSERT(txt && strstr(txt, "\n42264,7948936,86,user-12,*:gpu=128,\n"));
	CU_ASSERT(txt && strstr(txt, "\n658,168848,1,user-1,*:gpu=128,\n"));
	CU_ASSERT(txt && strstr(txt, "# MaxProcs: 128\n"));
	free(txt);

	struct sim_trace *t = NULL;
	CU_ASSERT_EQUAL(trace_native_read(out, &t, &d), 0);
	CU_ASSERT(t && t->n_jobs == 18239);
	sim_trace_destroy(t);

	/* Top 3 users by processor-hours (4, 2, 7 by the raw sums); the rest in 'other'. */
	opts.top_queues = 3;
	CU_ASSERT_EQUAL(trace_import("swf", RAW_NASA, out, &opts, &res, &d), 0);
	CU_ASSERT_EQUAL(res.queues_out, 4);
	t = NULL;
	CU_ASSERT_EQUAL(trace_native_read(out, &t, &d), 0);
	if (t) {
		double by_q[8] = { 0 }, top = per_user[4] + per_user[2] + per_user[7];
		CU_ASSERT_EQUAL(t->n_queues, 4);
		for (size_t i = 0; i < t->n_jobs && t->n_queues <= 8; i++)
			by_q[t->jobs[i].queue] += sim_time_to_s(t->jobs[i].duration_ns) *
						  (double)sim_job_opt(t, &t->jobs[i], 0)->req[SIM_RES_GPU] /
						  SIM_MILLI;
		for (size_t q = 0; q < t->n_queues && q < 8; q++) {
			const char *name = t->queues[q];
			double want = strcmp(name, "other") == 0    ? raw_s - top
				      : strcmp(name, "user-4") == 0 ? per_user[4]
				      : strcmp(name, "user-2") == 0 ? per_user[2]
				      : strcmp(name, "user-7") == 0 ? per_user[7]
								    : -1;
			CU_ASSERT(fabs(by_q[q] - want) < 1e-3);
		}
	}
	sim_trace_destroy(t);
	CU_ASSERT_EQUAL(d.count, 0);
	sim_diag_fini(&d);
}

static const char philly_bad[] = "timestamp,duration,num_gpus,gpu_time,cluster\n"
				 "2017-10-01 00:00:10,100.0,2,200.0,vcA\n"
				 "2017-10-32 00:00:10,100.0,2,200.0,vcA\n"
				 "2017-10-01 00:00:10,abc,2,200.0,vcA\n"
				 "2017-10-01 00:00:10,1.0,two,2.0,vcA\n"
				 "2017-10-01 00:00:10,1.0,2\n"
				 "2017-10-01 00:00:20,0.0,1,0.0,vcB\n";

static void test_import_philly_skip_bad(void)
{
	struct sim_diag d;
	struct trace_import_result res;
	struct trace_import_opts opts = { .skip_bad = 1 };
	const char *in = tu_write_file("imp_philly_bad.csv", philly_bad),
		   *out = tu_tmp_path("imp_philly_bad_native.csv");
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL_FATAL(trace_import("philly", in, out, &opts, &res, &d), 0);
	CU_ASSERT_EQUAL(d.count, 0);
	CU_ASSERT_EQUAL(res.rows_read, 6);
	CU_ASSERT_EQUAL(res.rows_written, 1);
	CU_ASSERT_EQUAL(res.rows_dropped, 5);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "bad timestamp"), 1);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "bad duration"), 1);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "bad num_gpus"), 1);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "wrong field count"), 1);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "duration <= 0"), 1);
	CU_ASSERT_EQUAL(trace_import_bad_count(&res), 4);
	char *txt = tu_read_file(out, NULL);
	CU_ASSERT(txt && strstr(txt, "# Skipped bad rows (--skip-bad): 4 (bad timestamp: 1, bad duration: 1, "
				     "bad num_gpus: 1, wrong field count: 1).\n"));
	CU_ASSERT(txt && strstr(txt, "\nid,submit_s,duration_s,queue,request\nphilly-1,0,100,vcA,*:gpu=2\n"));
	free(txt);

	/* Strict: the same file fails, nothing written. */
	opts.skip_bad = 0;
	remove(out);
	CU_ASSERT_EQUAL(trace_import("philly", in, out, &opts, &res, &d), -SIM_EPARSE);
	CU_ASSERT_EQUAL(d.count, 4);
	CU_ASSERT(!tu_exists(out));
	sim_diag_fini(&d);
}

/* Philly VCs by GPU-seconds in the sample: vcA 300, vcB 50, vcC 40. */
static void test_import_philly_top_queues(void)
{
	static const char sample[] = "timestamp,duration,num_gpus,gpu_time,cluster\n"
				     "2017-10-01 00:00:10,100.0,2,200.0,vcA\n"
				     "2017-09-30 23:59:50,50.0,1,50.0,vcB\n"
				     "2017-10-01 00:00:10,10.0,4,40.0,vcA\n"
				     "2017-12-31 23:59:59,5.0,8,40.0,vcC\n"
				     "2017-11-01 00:00:00,30.0,2,60.0,vcA\n";
	struct sim_diag d;
	struct trace_import_result res;
	struct trace_import_opts opts = { .top_queues = 2 };
	const char *in = tu_write_file("imp_philly_top.csv", sample),
		   *out = tu_tmp_path("imp_philly_top_native.csv");
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL_FATAL(trace_import("philly", in, out, &opts, &res, &d), 0);
	CU_ASSERT_EQUAL(res.tenants_in, 3);
	CU_ASSERT_EQUAL(res.queues_out, 3);
	CU_ASSERT(fabs(res.gpu_hours_out - 390.0 / 3600) < 1e-12);
	char *txt = tu_read_file(out, NULL);
	CU_ASSERT(txt && strstr(txt, "\nphilly-2,0,50,vcB,*:gpu=1\nphilly-1,20,100,vcA,*:gpu=2\n"
				     "philly-3,20,10,vcA,*:gpu=4\nphilly-5,2678410,30,vcA,*:gpu=2\n"
				     "philly-4,7948809,5,other,*:gpu=8\n"));
	CU_ASSERT(txt && strstr(txt, "# Tenants (--top-queues 2): the 2 VCs with most GPU-hours keep their "
				     "name, the other 1 are 'other'.\n"));
	free(txt);
	opts.top_queues = 1;
	CU_ASSERT_EQUAL(trace_import("philly", in, out, &opts, &res, &d), 0);
	CU_ASSERT_EQUAL(res.queues_out, 2);
	txt = tu_read_file(out, NULL);
	CU_ASSERT(txt && strstr(txt, "\nphilly-2,0,50,other,*:gpu=1\nphilly-1,20,100,vcA,*:gpu=2\n"));
	free(txt);
	CU_ASSERT_EQUAL(d.count, 0);
	sim_diag_fini(&d);
}

/* gpusched trace import end to end: strict failure, --skip-bad counts, options. */
static void test_import_cli(void)
{
	const char *in = tu_write_file("cli_swf.swf", swf_sample), *out = tu_tmp_path("cli_swf.csv");
	char args[2048], *txt = NULL;
	snprintf(args, sizeof args, "trace import --format swf %s -o %s", in, out);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 2);
	CU_ASSERT(txt && strstr(txt, "cli_swf.swf:7: column 4 (run time)"));
	free(txt);
	CU_ASSERT(!tu_exists(out));

	snprintf(args, sizeof args, "trace import --format swf %s -o %s --skip-bad --top-queues 2", in, out);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 0);
	CU_ASSERT(txt && strstr(txt, "10 rows in, 4 jobs out, 6 dropped (no run time: 1, partial-execution "
				     "record: 1, wrong field count: 1, bad number: 1, no processors: 1, job "
				     "number not increasing: 1)"));
	CU_ASSERT(txt && strstr(txt, "skipped bad rows: 5 ("));
	CU_ASSERT(txt && strstr(txt, "tenants 3, queues out 3"));
	free(txt);
	snprintf(args, sizeof args, "trace validate %s", out);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 0);
	CU_ASSERT(txt && strstr(txt, ": 4 jobs OK"));
	free(txt);

	snprintf(args, sizeof args, "trace import --format swf %s -o %s --queue-from host", in, out);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 2);
	CU_ASSERT(txt && strstr(txt, "--queue-from: expected user, queue or group, found 'host'"));
	free(txt);
	snprintf(args, sizeof args, "trace import --format swf %s -o %s --top-queues 0", in, out);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 2);
	free(txt);
	snprintf(args, sizeof args, "trace import --format sfw %s -o %s", in, out);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 2);
	CU_ASSERT(txt && strstr(txt, "expected one of philly, swf, helios, tiresias, openb, pai, gavel, sacct, found 'sfw'"));
	free(txt);
	CU_ASSERT_EQUAL(tu_run_gpusched("trace import --help", &txt), 0);
	CU_ASSERT(txt && strstr(txt, "  swf ") && strstr(txt, "  philly ") && strstr(txt, "--skip-bad"));
	free(txt);
	/* gen is dispatched to cli/cmd_trace_gen.c. */
	CU_ASSERT_EQUAL(tu_run_gpusched("trace gen --help", &txt), 0);
	CU_ASSERT(txt && strstr(txt, "gpusched trace gen"));
	free(txt);
}

static CU_TestInfo import_tests[] = {
	{ "test_import_registry", test_import_registry },
	{ "test_import_swf_strict", test_import_swf_strict },
	{ "test_import_swf_skip_bad", test_import_swf_skip_bad },
	{ "test_import_swf_gzip", test_import_swf_gzip },
	{ "test_import_swf_zero_run_time", test_import_swf_zero_run_time },
	{ "test_import_swf_tenants", test_import_swf_tenants },
	{ "test_import_swf_nasa", test_import_swf_nasa },
	{ "test_import_philly_skip_bad", test_import_philly_skip_bad },
	{ "test_import_philly_top_queues", test_import_philly_top_queues },
	{ "test_import_cli", test_import_cli },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo import_suite = { "import", init_import, clean_import, NULL, NULL, import_tests };
