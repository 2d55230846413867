/* tests/test_philly.c: the Philly importer: UTC date arithmetic, a hand-checked
 * sample (day, month and year boundaries, ties, dropped rows), located errors with
 * no output, the VC table, and the real 82,247-job file. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/job.h"
#include "outtmp.h"
#include "testutil.h"
#include "traces/native.h"
#include "traces/import.h"
#include "traces/philly.h"

static int init_philly(void) { return 0; }
static int clean_philly(void) { return 0; }

#define S(x) ((sim_time_t)(x) * SIM_NS_PER_S)
/* The raw Philly files sit beside the repository (SOURCES.md section 1). */
#define RAW_PHILLY TEST_RAW_DIR "/philly"

static void test_philly_utc(void)
{
	int64_t e = 0;
	CU_ASSERT_EQUAL(trace_days_from_civil(1970, 1, 1), 0);
	CU_ASSERT_EQUAL(trace_days_from_civil(1969, 12, 31), -1);
	CU_ASSERT_EQUAL(trace_days_from_civil(2000, 3, 1), 11017);
	CU_ASSERT_EQUAL(trace_parse_utc("2017-09-04 10:30:41", 19, &e), 0);
	CU_ASSERT_EQUAL(e, 1504521041); /* checked with Python datetime */
	CU_ASSERT_EQUAL(trace_parse_utc("2016-02-29 12:00:00", 19, &e), 0);
	CU_ASSERT_EQUAL(e, 1456747200);
	CU_ASSERT_EQUAL(trace_parse_utc("2017-02-29 00:00:00", 19, &e), -SIM_EPARSE); /* not a leap year */
	CU_ASSERT_EQUAL(trace_parse_utc("2017-13-01 00:00:00", 19, &e), -SIM_EPARSE);
	CU_ASSERT_EQUAL(trace_parse_utc("2017-04-31 00:00:00", 19, &e), -SIM_EPARSE);
	CU_ASSERT_EQUAL(trace_parse_utc("2017-09-04T10:30:41", 19, &e), -SIM_EPARSE);
	CU_ASSERT_EQUAL(trace_parse_utc("2017-09-04 24:00:00", 19, &e), -SIM_EPARSE);
	CU_ASSERT_EQUAL(trace_parse_utc("2017-9-4 10:30:41", 17, &e), -SIM_EPARSE);
}

/* Rows (1-based): 2 is the earliest; 1 and 3 tie; 4 is on New Year's Eve; 5 and 6
 * are dropped (duration 0 and < 0); 7 crosses a month boundary and its gpu_time
 * disagrees with duration x num_gpus. */
static const char sample[] = "timestamp,duration,num_gpus,gpu_time,cluster\n"
			     "2017-10-01 00:00:10,100.0,2,200.0,vcA\n"
			     "2017-09-30 23:59:50,50.0,1,50.0,vcB\n"
			     "2017-10-01 00:00:10,10.0,4,40.0,vcA\n"
			     "2017-12-31 23:59:59,5.0,8,40.0,vcC\n"
			     "2018-01-01 00:00:00,0.0,1,0.0,vcC\n"
			     "2017-10-02 00:00:00,-3.0,1,-3.0,vcB\n"
			     "2017-11-01 00:00:00,30.0,2,61.0,vcA\n"
			     "\n";

static void test_philly_sample_hand_checked(void)
{
	struct sim_diag d;
	struct trace_philly_stats st;
	struct sim_trace *t = NULL;
	sim_diag_init(&d, 20);
	const char *in = tu_write_file("philly_sample.csv", sample);
	CU_ASSERT_EQUAL_FATAL(trace_philly_read(in, &t, &st, &d), 0);
	CU_ASSERT_EQUAL(st.rows_in, 7);
	CU_ASSERT_EQUAL(st.rows_out, 5);
	CU_ASSERT_EQUAL(st.dropped_duration, 2);
	CU_ASSERT_EQUAL(st.dropped_gpus, 0);
	CU_ASSERT_EQUAL(st.gpu_time_mismatch, 1);
	CU_ASSERT_EQUAL(st.first_epoch_s, 1506815990); /* 2017-09-30 23:59:50 UTC */
	CU_ASSERT(fabs(st.gpu_time_s - (200 + 50 + 40 + 40 + 61)) < 1e-9);
	CU_ASSERT_EQUAL(t->n_jobs, 5);

	static const struct {
		const char *id, *queue;
		int64_t submit_s, duration_s, gpus;
	} want[] = {
		{ "philly-2", "vcB", 0, 50, 1 },
		{ "philly-1", "vcA", 20, 100, 2 },
		{ "philly-3", "vcA", 20, 10, 4 }, /* tie with row 1: row order */
		{ "philly-7", "vcA", 31 * 86400 + 10, 30, 2 },
		{ "philly-4", "vcC", 92 * 86400 + 9, 5, 8 }, /* Sep 30 -> Dec 31: 92 days */
	};
	for (size_t i = 0; i < 5 && i < t->n_jobs; i++) {
		const struct sim_job *j = &t->jobs[i];
		const struct sim_job_option *o = sim_job_opt(t, j, 0);
		CU_ASSERT_STRING_EQUAL(sim_job_id(t, j), want[i].id);
		CU_ASSERT_STRING_EQUAL(t->queues[j->queue], want[i].queue);
		CU_ASSERT_EQUAL(j->submit_ns, S(want[i].submit_s));
		CU_ASSERT_EQUAL(j->duration_ns, S(want[i].duration_s));
		CU_ASSERT_EQUAL(j->n_opts, 1);
		CU_ASSERT_EQUAL(o->flavor_id, SIM_FLAVOR_ANY);
		CU_ASSERT_EQUAL(o->req[SIM_RES_GPU], want[i].gpus * SIM_MILLI);
		CU_ASSERT_EQUAL(j->user, -1);
		CU_ASSERT_EQUAL(j->idx, i);
	}
	sim_trace_destroy(t);

	/* The converted file reads back as the same jobs and names its source. */
	char out[512];
	snprintf(out, sizeof out, "%s/philly_sample_native.csv", tu_tmpdir());
	CU_ASSERT_EQUAL(trace_philly_convert(in, out, &st, &d), 0);
	CU_ASSERT_EQUAL(st.rows_out, 5);
	char *txt = tu_read_file(out, NULL);
	CU_ASSERT(txt && strstr(txt, "# Microsoft Philly job trace"));
	CU_ASSERT(txt && strstr(txt, "CC BY 4.0"));
	CU_ASSERT(txt && strstr(txt, "timestamp - 2017-09-30 23:59:50 UTC"));
	CU_ASSERT(txt &&
		  strstr(txt, "# Rows in: 7, jobs out: 5, dropped: 2 (duration <= 0: 2, num_gpus = 0: 0)"));
	CU_ASSERT(txt && strstr(txt, "\nid,submit_s,duration_s,queue,request\nphilly-2,0,50,vcB,*:gpu=1\n"
				     "philly-1,20,100,vcA,*:gpu=2\n"));
	free(txt);
	CU_ASSERT_EQUAL(count_out_tmps(out, NULL), 0);
	t = NULL;
	CU_ASSERT_EQUAL(trace_native_read(out, &t, &d), 0);
	CU_ASSERT(t && t->n_jobs == 5);
	if (t && t->n_jobs == 5) {
		CU_ASSERT_STRING_EQUAL(sim_job_id(t, &t->jobs[4]), "philly-4");
		CU_ASSERT_EQUAL(t->jobs[4].submit_ns, S(92 * 86400 + 9));
	}
	sim_trace_destroy(t);
	sim_diag_fini(&d);
}

/* A bad row: located message, -SIM_EPARSE, and nothing written. */
static void test_philly_bad_input_no_output(void)
{
	struct sim_diag d;
	sim_diag_init(&d, 20);
	const char *in = tu_write_file("philly_bad.csv", "timestamp,duration,num_gpus,gpu_time,cluster\n"
							 "2017-10-01 00:00:10,100.0,2,200.0,vcA\n"
							 "2017-10-32 00:00:10,100.0,2,200.0,vcA\n"
							 "2017-10-01 00:00:10,abc,2,200.0,vcA\n"
							 "2017-10-01 00:00:10,1.0,two,2.0,vcA\n"
							 "2017-10-01 00:00:10,1.0,2\n");
	char out[512];
	snprintf(out, sizeof out, "%s/philly_bad_native.csv", tu_tmpdir());
	CU_ASSERT_EQUAL(trace_philly_convert(in, out, NULL, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "philly_bad.csv:3: column timestamp: expected a UTC time "
					"YYYY-MM-DD HH:MM:SS, found '2017-10-32 00:00:10'"));
	CU_ASSERT(sim_diag_contains(&d, "philly_bad.csv:4: column duration: expected seconds"));
	CU_ASSERT(sim_diag_contains(&d, "philly_bad.csv:5: column num_gpus: expected a GPU count"));
	CU_ASSERT(sim_diag_contains(&d, "philly_bad.csv:6: expected 5 fields as in the header, found 3"));
	CU_ASSERT_EQUAL(d.count, 4);
	CU_ASSERT(!tu_exists(out));
	CU_ASSERT_EQUAL(count_out_tmps(out, NULL), 0);
	sim_diag_fini(&d);

	sim_diag_init(&d, 20);
	in = tu_write_file("philly_hdr.csv", "time,duration,num_gpus,gpu_time,cluster\n");
	CU_ASSERT_EQUAL(trace_philly_convert(in, out, NULL, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "philly_hdr.csv:1: column timestamp: expected a Philly header"));
	CU_ASSERT(!tu_exists(out));
	sim_diag_fini(&d);
}

static void test_philly_vc_table(void)
{
	struct sim_diag d;
	struct trace_philly_vc *vcs = NULL;
	size_t n = 0;
	sim_diag_init(&d, 20);
	const char *path = tu_write_file("vc.csv", "vc,node num\nvcA,4\nvcB,16\n");
	CU_ASSERT_EQUAL(trace_philly_read_vc(path, &vcs, &n, &d), 0);
	CU_ASSERT_EQUAL(n, 2);
	if (n == 2) {
		CU_ASSERT_STRING_EQUAL(vcs[1].vc, "vcB");
		CU_ASSERT_EQUAL(vcs[1].nodes, 16);
	}
	free(vcs);
	path = tu_write_file("vc_bad.csv", "vc,node num\nvcA,4.5\n");
	CU_ASSERT_EQUAL(trace_philly_read_vc(path, &vcs, &n, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "vc_bad.csv:2: column node num: expected a whole number of nodes"));

	/* The bundled copy: 11 VCs, 352 nodes (SOURCES.md). */
	CU_ASSERT_EQUAL(trace_philly_read_vc(TEST_SOURCE_DIR "/traces/data/philly_vc.csv", &vcs, &n, &d), 0);
	CU_ASSERT_EQUAL(n, 11);
	int64_t nodes = 0;
	for (size_t i = 0; i < n; i++)
		nodes += vcs[i].nodes;
	CU_ASSERT_EQUAL(nodes, 352);
	CU_ASSERT(n && strcmp(vcs[0].vc, "6214e9") == 0 && vcs[0].nodes == 64);
	free(vcs);
	sim_diag_fini(&d);
}

/* Sum of the gpu_time column, computed without the importer (strtod per row). */
static double raw_gpu_time_sum(const char *path, size_t *rows)
{
	FILE *f = fopen(path, "r");
	char line[512];
	double sum = 0;
	*rows = 0;
	if (!f)
		return NAN;
	if (!fgets(line, sizeof line, f)) {
		fclose(f);
		return NAN;
	}
	while (fgets(line, sizeof line, f)) {
		char *c = line;
		if (line[0] == '\n')
			continue;
		for (int k = 0; k < 3 && c; k++) {
			c = strchr(c, ',');
			if (c)
				c++;
		}
		if (c) {
			sum += strtod(c, NULL);
			(*rows)++;
		}
	}
	fclose(f);
	return sum;
}

static double trace_gpu_seconds(const struct sim_trace *t)
{
	double s = 0;
	for (size_t i = 0; i < t->n_jobs; i++)
		s += sim_time_to_s(t->jobs[i].duration_ns) *
		     (double)sim_job_opt(t, &t->jobs[i], 0)->req[SIM_RES_GPU] / SIM_MILLI;
	return s;
}

/* The real file: 82,247 jobs, none dropped, GPU-seconds equal to the gpu_time
 * column; the bundled traces/data/philly.csv is the same trace. */
static void test_philly_real_file(void)
{
	struct sim_diag d;
	struct trace_philly_stats st;
	struct sim_trace *t = NULL, *b = NULL;
	size_t raw_rows = 0;
	sim_diag_init(&d, 20);

	double raw_sum = raw_gpu_time_sum(RAW_PHILLY "/philly.csv", &raw_rows);
	if (isnan(raw_sum)) {
		/* The raw copy lives outside the repository; without it, check the bundle. */
		fprintf(stderr, "\n(raw Philly file missing at %s: checking the bundled trace only)\n",
			RAW_PHILLY "/philly.csv");
		CU_ASSERT_EQUAL(trace_native_read(TEST_SOURCE_DIR "/traces/data/philly.csv", &b, &d), 0);
		CU_ASSERT(b && b->n_jobs == 82247);
		CU_ASSERT(b && fabs(trace_gpu_seconds(b) - 3521082502.0) < 1e-3);
		sim_trace_destroy(b);
		sim_diag_fini(&d);
		return;
	}
	CU_ASSERT_EQUAL(raw_rows, 82247);
	CU_ASSERT_EQUAL_FATAL(trace_philly_read(RAW_PHILLY "/philly.csv", &t, &st, &d), 0);
	CU_ASSERT_EQUAL(st.rows_in, 82247);
	CU_ASSERT_EQUAL(st.rows_out, 82247);
	CU_ASSERT_EQUAL(st.dropped_duration + st.dropped_gpus, 0);
	CU_ASSERT_EQUAL(st.gpu_time_mismatch, 0);
	CU_ASSERT_EQUAL(t->n_jobs, 82247);
	CU_ASSERT_EQUAL(t->n_queues, 15);
	CU_ASSERT(fabs(trace_gpu_seconds(t) - raw_sum) < 1e-3);
	CU_ASSERT(fabs(st.gpu_time_s - raw_sum) < 1e-3);
	/* Earliest 2017-09-04 10:30:41, latest 2017-12-22 08:02:11 (SOURCES.md). */
	CU_ASSERT_EQUAL(st.first_epoch_s, 1504521041);
	CU_ASSERT_EQUAL(t->jobs[0].submit_ns, 0);
	int64_t span = 1513929731 - 1504521041;
	CU_ASSERT_EQUAL(t->jobs[t->n_jobs - 1].submit_ns, S(span));

	CU_ASSERT_EQUAL(trace_native_read(TEST_SOURCE_DIR "/traces/data/philly.csv", &b, &d), 0);
	if (b) {
		size_t diff = b->n_jobs != t->n_jobs;
		for (size_t i = 0; !diff && i < t->n_jobs; i++)
			diff += strcmp(sim_job_id(t, &t->jobs[i]), sim_job_id(b, &b->jobs[i])) != 0 ||
				t->jobs[i].submit_ns != b->jobs[i].submit_ns ||
				t->jobs[i].duration_ns != b->jobs[i].duration_ns ||
				strcmp(t->queues[t->jobs[i].queue], b->queues[b->jobs[i].queue]) != 0 ||
				sim_job_opt(t, &t->jobs[i], 0)->req[0] !=
					sim_job_opt(b, &b->jobs[i], 0)->req[0];
		CU_ASSERT_EQUAL(diff, 0);
	}
	sim_trace_destroy(b);
	sim_trace_destroy(t);
	sim_diag_fini(&d);
}

/* gpusched trace import end to end, and no output when the input is bad. */
static void test_philly_cli_import(void)
{
	const char *in = tu_write_file("cli_philly.csv", sample);
	char out[512], args[1536], *txt = NULL;
	snprintf(out, sizeof out, "%s/cli_philly_native.csv", tu_tmpdir());
	snprintf(args, sizeof args, "trace import --format philly %s -o %s", in, out);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 0);
	CU_ASSERT(txt && strstr(txt, "7 rows in, 5 jobs out, 2 dropped (duration <= 0: 2, num_gpus = 0: 0)"));
	free(txt);
	CU_ASSERT(tu_exists(out));
	snprintf(args, sizeof args, "trace validate %s", out);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 0);
	CU_ASSERT(txt && strstr(txt, ": 5 jobs OK"));
	free(txt);

	in = tu_write_file("cli_philly_bad.csv", "timestamp,duration,num_gpus,gpu_time,cluster\nx,1,1,1,a\n");
	snprintf(out, sizeof out, "%s/cli_philly_bad_native.csv", tu_tmpdir());
	snprintf(args, sizeof args, "trace import --format philly %s -o %s", in, out);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 2);
	CU_ASSERT(txt && strstr(txt, "cli_philly_bad.csv:2: column timestamp"));
	free(txt);
	CU_ASSERT(!tu_exists(out));
	snprintf(args, sizeof args, "trace import --format swf %s -o %s", in, out);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 2);
	free(txt);
}

/* Timestamps more than 1e9 s apart (the native format's ceiling on submit_s): the
 * later rows are bad rows at their line, not an overflow (1700 and 2017 are 1e10 s
 * apart: the shift to ns wrapped) nor an output the native reader refuses (1980:
 * submit_s 1191283200 was written), and reported beside the file's other bad rows
 * (here a duration over 1e9 s), once each. Found by fuzz_philly
 * (tests/fuzz/corpus/philly/philly-1, -2). */
static void test_philly_times_out_of_range(void)
{
	static const char *const firsts[] = { "1700-01-01 00:00:00", "1980-01-01 00:00:00" };
	char out[512];
	snprintf(out, sizeof out, "%s/philly_range.csv", tu_tmpdir());
	for (size_t k = 0; k < 2; k++) {
		char text[512];
		snprintf(text, sizeof text,
			 "timestamp,duration,num_gpus,gpu_time,cluster\n%s,10,1,10,vcA\n"
			 "2017-10-01 00:00:00,10,1,10,vcA\n2017-10-01 00:00:00,1000000001,1,1000000001,vcA\n",
			 firsts[k]);
		const char *in = tu_write_file("philly_range_in.csv", text);
		struct sim_diag d;
		sim_diag_init(&d, 20);
		CU_ASSERT_EQUAL(trace_philly_convert(in, out, NULL, &d), -SIM_EPARSE);
		CU_ASSERT(sim_diag_contains(&d, "philly_range_in.csv:3: column timestamp: submit time out of range"));
		CU_ASSERT(sim_diag_contains(&d, "philly_range_in.csv:4: column duration: expected seconds"));
		CU_ASSERT_EQUAL(d.count, 2);
		CU_ASSERT(!tu_exists(out));
		sim_diag_fini(&d);

		/* --skip-bad: both dropped and counted, the first row kept at 0 s */
		struct trace_import_opts o = { .skip_bad = 1 };
		struct trace_import_result res;
		sim_diag_init(&d, 20);
		CU_ASSERT_EQUAL_FATAL(trace_import("philly", in, out, &o, &res, &d), 0);
		CU_ASSERT_EQUAL(res.rows_written, 1);
		CU_ASSERT_EQUAL(tu_reason_count(&res, TRACE_IMPORT_R_SUBMIT_RANGE), 1);
		CU_ASSERT_EQUAL(tu_reason_count(&res, "bad duration"), 1);
		char *csv = tu_read_file(out, NULL);
		CU_ASSERT(csv && strstr(csv, "\nphilly-1,0,10,vcA,"));
		free(csv);
		remove(out);
		sim_diag_fini(&d);
	}
}

static CU_TestInfo philly_tests[] = {
	{ "test_philly_utc", test_philly_utc },
	{ "test_philly_sample_hand_checked", test_philly_sample_hand_checked },
	{ "test_philly_bad_input_no_output", test_philly_bad_input_no_output },
	{ "test_philly_vc_table", test_philly_vc_table },
	{ "test_philly_real_file", test_philly_real_file },
	{ "test_philly_cli_import", test_philly_cli_import },
	{ "times out of the native range are bad rows", test_philly_times_out_of_range },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo philly_suite = { "philly", init_philly, clean_philly, NULL, NULL, philly_tests };
