/* tests/test_sacct.c: the Slurm sacct importer (traces/sacct.c). The hand-made
 * tests/data/traces/sacct/jobs.txt (49 records: every state the importer names, jobs
 * with steps, array tasks, a pending array range, a heterogeneous job, typed and
 * mixed GPUs) imports strictly with every drop counted by reason; bad rows are
 * located (FILE:LINE: column C) and counted with --skip-bad; the header, the queue
 * sources, --top-queues and the native ranges are checked; each output is read back
 * with the native reader. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/job.h"
#include "testutil.h"
#include "traces/import.h"
#include "traces/native.h"
#include "traces/sacct.h"

#define SAMPLE TEST_DATA_DIR "/traces/sacct/jobs.txt"

static int init_sacct(void)
{
	return 0;
}
static int clean_sacct(void)
{
	return 0;
}

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

static int contains(const char *path, const char *needle)
{
	char *s = tu_read_file(path, NULL);
	int yes = s && strstr(s, needle);
	free(s);
	return yes;
}

/* Every job the sample keeps, in file order: started jobs of every finished state
 * (CANCELLED after start included), array tasks, both het components, the 1-second
 * job (Elapsed 0 after a start), typed GPUs as a flavor, mixed types as '*'. */
static const char sample_jobs[] = "id,submit_s,duration_s,queue,request,priority,user\n"
				  "1000,0,3600,vision,*:gpu=2,1200,alice\n"
				  "1001,60,600,vision,a100:gpu=4,1100,bob\n"
				  "1003,150,1800,nlp,*:gpu=1,900,carol\n"
				  "1004,300,86400,nlp,*:gpu=8,1500,dave\n"
				  "1005,360,7200,speech,*:gpu=8,100,erin\n"
				  "1006,420,2700,nlp,*:gpu=16,1400,dave\n"
				  "1007,480,300,speech,*:gpu=1,800,frank\n"
				  "1008,540,1200,vision,*:gpu=2,1000,grace\n"
				  "1010,660,900,speech,*:gpu=4,700,ivan\n"
				  "1012,780,60,speech,*:gpu=1,700,ivan\n"
				  "1019,1200,1,speech,*:gpu=1,800,frank\n"
				  "1020_1,1260,600,vision,*:gpu=1,1000,grace\n"
				  "1020_2,1260,120,vision,*:gpu=1,1000,grace\n"
				  "1021-het0,1320,1800,vision,*:gpu=4,1000,heidi\n"
				  "1021-het1,1320,1800,vision,*:gpu=2,1000,heidi\n"
				  "1022,1380,1800,speech,*:gpu=4,700,ivan\n"
				  "1023,1440,600,default,*:gpu=1,700,judy\n"
				  "1024,1500,600,vision,*:gpu=1,0,alice\n"
				  "1026,1620,183845,nlp,*:gpu=8,900,carol\n"
				  "1028,1740,30,speech,*:gpu=2,500,erin\n"
				  "1029,1800,60,speech,l40s:gpu=1,800,frank\n";

static double sample_gpu_hours_out(void)
{
	static const double gpu_s[] = {3600 * 2, 600 * 4,  1800, 86400 * 8, 7200 * 8,	  2700 * 16, 300,
				       1200 * 2, 900 * 4,  60,	 1,	    600,	  120,	     1800 * 4,
				       1800 * 2, 1800 * 4, 600,	 600,	    183845.0 * 8, 30 * 2,    60};
	double h = 0;
	for (size_t i = 0; i < sizeof gpu_s / sizeof gpu_s[0]; i++)
		h += gpu_s[i] / 3600.0;
	return h;
}

static void test_sacct_sample(void)
{
	struct sim_diag d;
	struct trace_import_result res;
	struct trace_import_opts opts = {0};
	const char *out = tu_tmp_path("sa_out.csv");
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL_FATAL(trace_sacct_import(SAMPLE, out, &opts, &res, &d), 0);
	CU_ASSERT_EQUAL(d.count, 0);
	CU_ASSERT_EQUAL(res.rows_read, 49);
	CU_ASSERT_EQUAL(res.rows_written, 21);
	CU_ASSERT_EQUAL(res.rows_dropped, 28);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "job step (folded into its job)"), 16);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "cancelled before start"), 1); /* 1002 */
	CU_ASSERT_EQUAL(tu_reason_count(&res, "never ran"),
			3); /* 1009 BOOT_FAIL, 1011 REVOKED, 1025 FAILED */
	/* PENDING 1013 and 1020_[3-5%2], RUNNING, SUSPENDED, REQUEUE_HOLD, RESIZING, COMPLETING */
	CU_ASSERT_EQUAL(tu_reason_count(&res, "not finished"), 7);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "no GPU"), 1); /* 1018 */
	CU_ASSERT_EQUAL(trace_import_bad_count(&res), 0);
	CU_ASSERT_EQUAL(res.tenants_in, 4); /* vision, nlp, speech, default */
	CU_ASSERT_EQUAL(res.queues_out, 4);
	CU_ASSERT_DOUBLE_EQUAL(res.gpu_hours_out, sample_gpu_hours_out(), 1e-9);
	/* In adds the unfinished jobs that ran (RUNNING 3 h x 4, SUSPENDED 40 min, RESIZING
	 * 10 min, COMPLETING 5 min) and not the 1-s job's second (Elapsed 0 in). */
	CU_ASSERT_DOUBLE_EQUAL(
	    res.gpu_hours_in,
	    sample_gpu_hours_out() - 1 / 3600.0 + (3 * 3600 * 4 + 2400 + 600 + 300) / 3600.0, 1e-9);
	CU_ASSERT(strstr(res.note, "Elapsed 0 after a start read as 1 s: 1 jobs") != NULL);
	CU_ASSERT(contains(out, sample_jobs));
	CU_ASSERT(contains(out, "# Mapping: id = JobID"));
	CU_ASSERT(contains(out, "submit_s = Submit - 1709280000 (Unix s)")); /* 2024-03-01T08:00:00 */
	CU_ASSERT_EQUAL(native_jobs(out), 21);
	sim_diag_fini(&d);
}

/* Line 2 kept with its step (3); 4 a step of another job; 5 bad JobID; 6 a repeated
 * JobID; 7 an unknown state; 8 a date that does not exist; 9 a bad Start; 10 a bad
 * Elapsed; 11 a bad GPU count; 12 a negative priority; 13 an account with a comma (the
 * native CSV would split it; found by fuzz_sacct); 14 the wrong
 * field count; 15 an array range that started; 16 kept. */
static const char bad_rows[] =
    "JobID|Submit|Start|Elapsed|AllocTRES|Account|Priority|State\n"
    "1|2024-03-01T00:00:00|2024-03-01T00:00:10|00:10:00|cpu=1,gres/gpu=1|a|10|COMPLETED\n"
    "1.batch|2024-03-01T00:00:10|2024-03-01T00:00:10|00:10:00|cpu=1,gres/gpu=1||10|COMPLETED\n"
    "2.batch|2024-03-01T00:00:10|2024-03-01T00:00:10|00:10:00|cpu=1,gres/gpu=1||10|COMPLETED\n"
    "x3|2024-03-01T00:00:00|2024-03-01T00:00:10|00:10:00|gres/gpu=1|a|10|COMPLETED\n"
    "1|2024-03-01T00:00:00|2024-03-01T00:00:10|00:10:00|gres/gpu=1|a|10|COMPLETED\n"
    "4|2024-03-01T00:00:00|2024-03-01T00:00:10|00:10:00|gres/gpu=1|a|10|DONE\n"
    "5|2024-02-30T00:00:00|2024-03-01T00:00:10|00:10:00|gres/gpu=1|a|10|COMPLETED\n"
    "6|2024-03-01T00:00:00|yesterday|00:10:00|gres/gpu=1|a|10|COMPLETED\n"
    "7|2024-03-01T00:00:00|2024-03-01T00:00:10|1:2:3|gres/gpu=1|a|10|COMPLETED\n"
    "8|2024-03-01T00:00:00|2024-03-01T00:00:10|00:10:00|gres/gpu=two|a|10|COMPLETED\n"
    "9|2024-03-01T00:00:00|2024-03-01T00:00:10|00:10:00|gres/gpu=1|a|-5|COMPLETED\n"
    "10|2024-03-01T00:00:00|2024-03-01T00:00:10|00:10:00|gres/gpu=1|a,b|10|COMPLETED\n"
    "11|2024-03-01T00:00:00|COMPLETED\n"
    "12_[1-3]|2024-03-01T00:00:00|2024-03-01T00:00:10|00:10:00|gres/gpu=1|a|10|COMPLETED\n"
    "13|2024-03-01T00:01:00|2024-03-01T00:01:00|1-01:00:00|gres/gpu:h100=8|b||TIMEOUT\n";

static void test_sacct_bad_rows(void)
{
	struct sim_diag d;
	struct trace_import_result res;
	struct trace_import_opts opts = {0};
	const char *in = tu_write_file("sa_bad.txt", bad_rows), *out = tu_tmp_path("sa_bad_out.csv");
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(trace_sacct_import(in, out, &opts, &res, &d), -SIM_EPARSE);
	CU_ASSERT(
	    sim_diag_contains(&d, "sa_bad.txt:4: column JobID: expected a step after its job's row '2'"));
	CU_ASSERT(sim_diag_contains(&d, "sa_bad.txt:5: column JobID: expected a JobID as sacct prints it"));
	CU_ASSERT(sim_diag_contains(&d, "sa_bad.txt:6: column JobID: expected a unique JobID"));
	CU_ASSERT(sim_diag_contains(&d, "sa_bad.txt:7: column State: expected a Slurm job state"));
	CU_ASSERT(sim_diag_contains(&d, "sa_bad.txt:8: column Submit: expected YYYY-MM-DDTHH:MM:SS or Unix "
					"seconds, found '2024-02-30T00:00:00'"));
	CU_ASSERT(sim_diag_contains(&d, "sa_bad.txt:9: column Start: expected YYYY-MM-DDTHH:MM:SS"));
	CU_ASSERT(sim_diag_contains(&d, "sa_bad.txt:10: column Elapsed: expected [D-]HH:MM:SS"));
	CU_ASSERT(sim_diag_contains(&d, "sa_bad.txt:11: column AllocTRES: expected NAME=VALUE items"));
	CU_ASSERT(sim_diag_contains(&d, "sa_bad.txt:12: column Priority: expected a whole number in "
					"0..2147483647 or empty, found '-5'"));
	CU_ASSERT(sim_diag_contains(&d,
				    "sa_bad.txt:13: column Account: expected a name of 1 to 255 bytes "
				    "without control characters, ',', '\"' or a leading '#', found 'a,b'"));
	CU_ASSERT(sim_diag_contains(&d, "sa_bad.txt:14: expected 8 fields separated by '|' as in the header, "
					"found 3"));
	CU_ASSERT(sim_diag_contains(&d, "sa_bad.txt:15: column JobID: expected a job that started to have an "
					"id"));
	CU_ASSERT_EQUAL(d.count, 12);
	CU_ASSERT(!tu_exists(out));
	sim_diag_fini(&d);

	opts.skip_bad = 1;
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL_FATAL(trace_sacct_import(in, out, &opts, &res, &d), 0);
	CU_ASSERT_EQUAL(res.rows_read, 15);
	CU_ASSERT_EQUAL(res.rows_written, 2);
	CU_ASSERT_EQUAL(trace_import_bad_count(&res), 12);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "bad JobID"), 2);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "bad time"), 3);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "step not after its job"), 1);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "duplicate JobID"), 1);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "job step (folded into its job)"), 1);
	CU_ASSERT(contains(out, "# Skipped bad rows (--skip-bad): 12 ("));
	CU_ASSERT(contains(out, "\n1,0,600,a,*:gpu=1,10,\n13,60,90000,b,h100:gpu=8,0,\n"));
	CU_ASSERT_EQUAL(native_jobs(out), 2);
	sim_diag_fini(&d);
}

static void expect_header_error(const char *name, const char *text, enum trace_queue_from q, const char *msg)
{
	struct sim_diag d;
	struct trace_import_result res;
	struct trace_import_opts opts = {.skip_bad = 1, .queue_from = q};
	const char *in = tu_write_file(name, text);
	sim_diag_init(&d, 20);
	CU_ASSERT(trace_sacct_import(in, tu_tmp_path("sa_hdr_out.csv"), &opts, &res, &d) < 0);
	CU_ASSERT(sim_diag_contains(&d, msg));
	if (!sim_diag_contains(&d, msg))
		sim_diag_print(&d, stderr);
	sim_diag_fini(&d);
}

/* A header without a required column, without a TRES column, without the column
 * --queue-from names, or no header at all: errors in both modes. */
static void test_sacct_header(void)
{
	expect_header_error("sa_h1.txt", "JobID|Submit|State|AllocTRES\n1|0|COMPLETED|gres/gpu=1\n",
			    TRACE_QUEUE_DEFAULT,
			    "sa_h1.txt:1: column Elapsed: expected a '|'-separated header");
	expect_header_error("sa_h2.txt", "JobID|Submit|Elapsed|State\n1|0|00:00:01|COMPLETED\n",
			    TRACE_QUEUE_DEFAULT,
			    "sa_h2.txt:1: column AllocTRES: expected a header naming AllocTRES or ReqTRES");
	expect_header_error(
	    "sa_h3.txt", "JobID|Submit|Elapsed|State|ReqTRES\n1|0|00:00:01|COMPLETED|gres/gpu=1\n",
	    TRACE_QUEUE_USER, "sa_h3.txt:1: column User: expected a header naming User for --queue-from");
	expect_header_error("sa_h4.txt", "", TRACE_QUEUE_DEFAULT, "sa_h4.txt: expected a header line");
	/* --noheader output: the first record is no header. */
	expect_header_error("sa_h5.txt", "1|2024-03-01T00:00:00|00:10:00|gres/gpu=1|COMPLETED\n",
			    TRACE_QUEUE_DEFAULT,
			    "sa_h5.txt:1: column JobID: expected a '|'-separated header");
}

/* Without Start, a run time > 0 says the job started; Unix-second times
 * (SLURM_TIME_FORMAT=%s); ReqTRES alone; Partition, User and --top-queues as queue
 * sources; `sacct --parsable` (not 2) ends every line with '|'. */
static const char other_layout[] = "JobID|User|Partition|Submit|Elapsed|ReqTRES|State|\n"
				   "20|u1|p1|1709280000|00:01:00|gres/gpu=2|COMPLETED|\n"
				   "20.0|||1709280000|00:01:00|gres/gpu=2|COMPLETED|\n"
				   "21|u2|p1|1709280030|00:00:00|gres/gpu=2|CANCELLED by 5|\n"
				   "22|u2|p2|1709280060|00:02:00|gres/gpu=1|FAILED|\n"
				   "23|u3|p3|1709280090|00:00:00|gres/gpu=1|FAILED|\n";

static void test_sacct_queue_sources(void)
{
	struct sim_diag d;
	struct trace_import_result res;
	struct trace_import_opts opts = {0};
	const char *in = tu_write_file("sa_layout.txt", other_layout),
		   *out = tu_tmp_path("sa_layout_out.csv");
	sim_diag_init(&d, 20);
	/* No Account: the default queue source falls back to Partition. */
	CU_ASSERT_EQUAL_FATAL(trace_sacct_import(in, out, &opts, &res, &d), 0);
	CU_ASSERT_EQUAL(res.rows_written, 2);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "cancelled before start"), 1);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "never ran"), 1);
	CU_ASSERT(contains(out, "\n20,0,60,p1,*:gpu=2,0,u1\n22,60,120,p2,*:gpu=1,0,u2\n"));
	CU_ASSERT_EQUAL(native_jobs(out), 2);

	opts.queue_from = TRACE_QUEUE_USER;
	CU_ASSERT_EQUAL_FATAL(trace_sacct_import(in, out, &opts, &res, &d), 0);
	CU_ASSERT(contains(out, "\n20,0,60,u1,*:gpu=2,0,u1\n22,60,120,u2,*:gpu=1,0,u2\n"));

	/* The tenant with most GPU-hours keeps its name: p1 (2 GPUs x 60 s) over p2. */
	opts.queue_from = TRACE_QUEUE_QUEUE;
	opts.top_queues = 1;
	CU_ASSERT_EQUAL_FATAL(trace_sacct_import(in, out, &opts, &res, &d), 0);
	CU_ASSERT_EQUAL(res.tenants_in, 2);
	CU_ASSERT_EQUAL(res.queues_out, 2);
	CU_ASSERT(contains(out, "\n20,0,60,p1,*:gpu=2,0,u1\n22,60,120,other,*:gpu=1,0,u2\n"));
	CU_ASSERT_EQUAL(d.count, 0);
	sim_diag_fini(&d);
}

/* Times the native reader refuses: a submit over 1e9 s after the earliest, an
 * Elapsed over 1e9 s (clamped, not overflowed: 9999999 days), a date past 2262. */
static const char range_rows[] = "JobID|Submit|Elapsed|AllocTRES|State\n"
				 "1|1980-01-01T00:00:00|01:00:00|gres/gpu=1|COMPLETED\n"
				 "2|2017-01-01T00:00:00|01:00:00|gres/gpu=1|COMPLETED\n"
				 "3|1980-01-02T00:00:00|9999999-00:00:00|gres/gpu=1|COMPLETED\n"
				 "4|3000-01-01T00:00:00|01:00:00|gres/gpu=1|COMPLETED\n"
				 "5|1980-01-03T00:00:00|00:01:00|gres/gpu=1|COMPLETED\n";

static void test_sacct_time_range(void)
{
	struct sim_diag d;
	struct trace_import_result res;
	struct trace_import_opts opts = {0};
	const char *in = tu_write_file("sa_range.txt", range_rows), *out = tu_tmp_path("sa_range_out.csv");
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(trace_sacct_import(in, out, &opts, &res, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d,
				    "sa_range.txt:3: column Submit: submit time out of range: expected at "
				    "most 1e9 s after the earliest"));
	CU_ASSERT(sim_diag_contains(&d, "sa_range.txt:4: column Elapsed: duration over 1e9 s"));
	CU_ASSERT(sim_diag_contains(&d, "sa_range.txt:5: column Submit: time out of range: expected a date "
					"before 2262-04-11"));
	CU_ASSERT_EQUAL(d.count, 3);
	CU_ASSERT(!tu_exists(out));
	sim_diag_fini(&d);

	opts.skip_bad = 1;
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL_FATAL(trace_sacct_import(in, out, &opts, &res, &d), 0);
	CU_ASSERT_EQUAL(res.rows_written, 2);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "submit time out of range"), 2);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "duration over 1e9 s"), 1);
	CU_ASSERT(contains(out, "\n1,0,3600,default,*:gpu=1,0,\n5,172800,60,default,*:gpu=1,0,\n"));
	CU_ASSERT_EQUAL(native_jobs(out), 2);
	sim_diag_fini(&d);
}

/* gpusched trace import --format sacct: exit 2 with located errors, 0 and a summary. */
static void test_sacct_cli(void)
{
	const char *in = tu_write_file("sa_cli.txt", bad_rows), *out = tu_tmp_path("sa_cli.csv");
	char args[2048], *txt = NULL;
	snprintf(args, sizeof args, "trace import --format sacct %s -o %s", in, out);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 2);
	CU_ASSERT(txt && strstr(txt, "sa_cli.txt:7: column State: expected a Slurm job state"));
	free(txt);
	CU_ASSERT(!tu_exists(out));
	snprintf(args, sizeof args, "trace import --format sacct %s -o %s", SAMPLE, out);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 0);
	CU_ASSERT(txt && strstr(txt, "49 rows in, 21 jobs out, 28 dropped"));
	free(txt);
	snprintf(args, sizeof args, "trace validate %s", out);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 0);
	CU_ASSERT(txt && strstr(txt, ": 21 jobs OK"));
	free(txt);
}

static CU_TestInfo sacct_tests[] = {
    {"sample of every state, steps folded", test_sacct_sample},
    {"bad rows located, --skip-bad counts", test_sacct_bad_rows},
    {"header errors", test_sacct_header},
    {"queue sources, --top-queues, --parsable layout", test_sacct_queue_sources},
    {"times out of the native range", test_sacct_time_range},
    {"gpusched trace import --format sacct", test_sacct_cli},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo sacct_suite = {"sacct", init_sacct, clean_sacct, NULL, NULL, sacct_tests};
