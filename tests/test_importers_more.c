/* tests/test_importers_more.c: the Tiresias, Helios and Gavel importers
 * (traces/tiresias.c, helios.c, gavel.c) on hand-made files with bad rows (strict
 * and --skip-bad), --top-queues, and on the full public files when configured
 * (SIM_RAW_TRACES_DIR, traces/samples/README.md). Each
 * output is read back with the native reader; GPU-hours in = out over kept rows. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/job.h"
#include "testutil.h"
#include "traces/gavel.h"
#include "traces/helios.h"
#include "traces/import.h"
#include "traces/native.h"
#include "traces/tiresias.h"

#define RAW TEST_RAW_DIR "/"
/* Samples shipped in the repository (traces/samples/README.md). */
#define SAMPLES TEST_SOURCE_DIR "/traces/samples/"

static int init_more(void) { return 0; }
static int clean_more(void) { return 0; }

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

/* Line 3 good; 4 duplicate id; 5 gpu 0; 6 bad submit; 7 duration 0; 8 field count. */
static const char tiresias_sample[] = "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n"
				      "0,1,0,606,vgg19,164,30\n"
				      "1,8,30.5,133,vgg11,147,23\n"
				      "1,2,53,157,inception4,127,26\n"
				      "2,0,60,1,x,10,1\n"
				      "3,1,-5,1,x,10,1\n"
				      "4,1,70,1,x,0,1\n"
				      "5,1,80,1,x\n"
				      "\n"
				      "6,4,90,1,x,100.25,1\n";

static void test_tiresias_sample(void)
{
	struct sim_diag d;
	struct trace_import_result res;
	struct trace_import_opts opts = { 0 };
	const char *in = tu_write_file("ti.csv", tiresias_sample), *out = tu_tmp_path("ti_out.csv");
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(trace_tiresias_import(in, out, &opts, &res, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "ti.csv:4: column job_id: expected a unique job_id, found '1' again"));
	CU_ASSERT(sim_diag_contains(&d, "ti.csv:5: column num_gpu: expected a whole GPU count"));
	CU_ASSERT(sim_diag_contains(&d, "ti.csv:6: column submit_time: expected seconds >= 0"));
	CU_ASSERT(sim_diag_contains(&d, "ti.csv:7: column duration: expected seconds > 0"));
	CU_ASSERT(sim_diag_contains(&d, "ti.csv:8: expected 7 fields as in the header, found 5"));
	CU_ASSERT_EQUAL(d.count, 5);
	CU_ASSERT(!tu_exists(out));
	sim_diag_fini(&d);

	opts.skip_bad = 1;
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL_FATAL(trace_tiresias_import(in, out, &opts, &res, &d), 0);
	CU_ASSERT_EQUAL(res.rows_read, 8);
	CU_ASSERT_EQUAL(res.rows_written, 3);
	CU_ASSERT_EQUAL(res.rows_dropped, 5);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "duplicate job_id"), 1);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "bad num_gpu"), 1);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "wrong field count"), 1);
	/* In: every row whose GPUs and duration parse (the duplicate and bad submit too). */
	double in_h = (164 * 1 + 147 * 8 + 127 * 2 + 10 + 100.25 * 4) / 3600.0;
	double out_h = (164 * 1 + 147 * 8 + 100.25 * 4) / 3600.0;
	CU_ASSERT_DOUBLE_EQUAL(res.gpu_hours_in, in_h, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(res.gpu_hours_out, out_h, 1e-9);
	CU_ASSERT_EQUAL(res.tenants_in, 1);
	CU_ASSERT(contains(out, "\nid,submit_s,duration_s,queue,request\n0,0,164,default,*:gpu=1\n"
				"1,30.5,147,default,*:gpu=8\n6,90,100.25,default,*:gpu=4\n"));
	CU_ASSERT(contains(out, "# Skipped bad rows (--skip-bad): 5"));
	CU_ASSERT_EQUAL(native_jobs(out), 3);
	sim_diag_fini(&d);
}

static void test_tiresias_real(void)
{
	struct sim_diag d;
	struct trace_import_result res;
	struct trace_import_opts opts = { 0 };
	const char *out = tu_tmp_path("ti60.csv");
	FILE *f = fopen(SAMPLES "60_job.csv", "r"); /* the whole published file */
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	/* Our own sum: num_gpu x duration over the 60 rows. */
	char line[256];
	double h = 0;
	int rows = 0;
	while (fgets(line, sizeof line, f)) {
		int id, gpu, sub, it, dur;
		char model[64];
		if (sscanf(line, "%d,%d,%d,%d,%63[^,],%d", &id, &gpu, &sub, &it, model, &dur) == 6) {
			h += gpu * (double)dur / 3600.0;
			rows++;
		}
	}
	fclose(f);
	CU_ASSERT_EQUAL(rows, 60);
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL_FATAL(trace_tiresias_import(SAMPLES "60_job.csv", out, &opts, &res, &d), 0);
	CU_ASSERT_EQUAL(res.rows_read, 60);
	CU_ASSERT_EQUAL(res.rows_written, 60);
	CU_ASSERT_DOUBLE_EQUAL(res.gpu_hours_in, h, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(res.gpu_hours_out, h, 1e-9);
	CU_ASSERT(contains(out, "\n0,0,164,default,*:gpu=1\n1,30,147,default,*:gpu=8\n"));
	CU_ASSERT(contains(out, "\n59,1779,122,default,*:gpu=1\n"));
	CU_ASSERT_EQUAL(native_jobs(out), 60);
	sim_diag_fini(&d);
}

/* Lines 2-3 kept (vc1), 4 a CPU job, 5 never ran, 6 kept (vc2), 7 bad time, 8 bad
 * gpu_num, 9 duplicate id, 10 empty user, 11 kept (vc3, Unix-seconds submit). */
static const char helios_sample[] =
	"job_id,user,vc,jobname,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,"
	"queue_time\n"
	"a1,u1,vc1,j,8,64,1,COMPLETED,2020-04-01 00:00:10,2020-04-01 00:01:10,2020-04-01 01:01:10,3600,60\n"
	"a2,u2,vc1,j,1,4,1,FAILED,2020-04-01 00:00:00,x,x,30,0\n"
	"a3,u1,vc1,j,0,4,1,COMPLETED,2020-04-01 00:00:05,x,x,100,0\n"
	"a4,u3,vc2,j,2,4,1,CANCELLED,2020-04-01 00:00:05,x,x,0,50\n"
	"a5,u3,vc2,j,2,4,1,CANCELLED,2020-04-01 00:02:00,x,x,20,5\n"
	"a6,u3,vc2,j,2,4,1,COMPLETED,2020-04-31 00:00:00,x,x,20,5\n"
	"a7,u3,vc2,j,two,4,1,COMPLETED,2020-04-01 00:00:00,x,x,20,5\n"
	"a1,u3,vc2,j,1,4,1,COMPLETED,2020-04-01 00:00:00,x,x,20,5\n"
	"a8,,vc2,j,1,4,1,COMPLETED,2020-04-01 00:00:00,x,x,20,5\n"
	"a9,u4,vc3,j,4,4,1,TIMEOUT,1585699260,x,x,7200,5\n";

static void test_helios_sample(void)
{
	struct sim_diag d;
	struct trace_import_result res;
	struct trace_import_opts opts = { 0 };
	const char *in = tu_write_file("he.csv", helios_sample), *out = tu_tmp_path("he_out.csv");
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(trace_helios_import(in, out, &opts, &res, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "he.csv:7: column submit_time: expected YYYY-MM-DD HH:MM:SS"));
	CU_ASSERT(sim_diag_contains(&d, "he.csv:8: column gpu_num: expected a whole GPU count"));
	CU_ASSERT(sim_diag_contains(&d, "he.csv:9: column job_id: expected a unique job_id, found 'a1'"));
	CU_ASSERT(sim_diag_contains(&d, "he.csv:10: column user: expected a name"));
	CU_ASSERT_EQUAL(d.count, 4); /* the CPU job and the one that never ran are not errors */
	CU_ASSERT(!tu_exists(out));
	sim_diag_fini(&d);

	opts.skip_bad = 1;
	opts.top_queues = 1;
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL_FATAL(trace_helios_import(in, out, &opts, &res, &d), 0);
	CU_ASSERT_EQUAL(res.rows_read, 10);
	CU_ASSERT_EQUAL(res.rows_written, 4);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "CPU job (gpu_num 0)"), 1);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "never ran (duration 0)"), 1);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "bad submit_time"), 1);
	CU_ASSERT_EQUAL(trace_import_bad_count(&res), 4);
	double out_h = (3600.0 * 8 + 30 + 40 + 7200.0 * 4) / 3600.0;
	CU_ASSERT_DOUBLE_EQUAL(res.gpu_hours_out, out_h, 1e-9);
	/* In adds the rows whose count and duration parse: a6, the duplicate a1 and a8. */
	CU_ASSERT_DOUBLE_EQUAL(res.gpu_hours_in, out_h + (40 + 20 + 20) / 3600.0, 1e-9);
	CU_ASSERT_EQUAL(res.tenants_in, 3);
	CU_ASSERT_EQUAL(res.queues_out, 2);
	/* Earliest kept submit is a2's 00:00:00 (Unix 1585699200); vc1 has most GPU-hours. */
	CU_ASSERT(contains(out, "\nid,submit_s,duration_s,queue,request,user\n"
				"a1,10,3600,vc1,*:gpu=8,u1\na2,0,30,vc1,*:gpu=1,u2\n"
				"a5,120,20,other,*:gpu=2,u3\na9,60,7200,other,*:gpu=4,u4\n"));
	CU_ASSERT_EQUAL(native_jobs(out), 4);
	sim_diag_fini(&d);

	/* --queue-from user: the queue is the user; group is refused. */
	opts.top_queues = 0;
	opts.queue_from = TRACE_QUEUE_USER;
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL_FATAL(trace_helios_import(in, out, &opts, &res, &d), 0);
	CU_ASSERT_EQUAL(res.tenants_in, 4); /* u1, u2, u3, u4 */
	CU_ASSERT(contains(out, "\na9,60,7200,u4,*:gpu=4,u4\n"));
	opts.queue_from = TRACE_QUEUE_GROUP;
	CU_ASSERT(trace_helios_import(in, out, &opts, &res, &d) < 0);
	CU_ASSERT(sim_diag_contains(&d, "Helios has no groups"));
	sim_diag_fini(&d);
}

static void test_helios_header(void)
{
	struct sim_diag d;
	struct trace_import_result res;
	struct trace_import_opts opts = { .skip_bad = 1 };
	const char *in = tu_write_file("he_bad.csv", "job_id,user,gpu_num,submit_time,duration\n1,u,1,0,1\n");
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(trace_helios_import(in, tu_tmp_path("he_bad_out.csv"), &opts, &res, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "he_bad.csv:1: column vc: expected a header naming"));
	sim_diag_fini(&d);
}

/* Times the native reader refuses (fuzz reproducers helios-1, helios-2): a date past
 * 2262 overflowed int64 ns; a submit over 1e9 s after the earliest, or a duration over
 * 1e9 s, was written and then refused on reading. Now bad rows, located. */
static const char helios_range[] = "job_id,user,vc,gpu_num,submit_time,duration\n"
				   "h1,alice,vcA,8,1980-01-01 00:00:00,3600\n"
				   "h2,alice,vcA,8,2017-01-01 00:00:00,3600\n"
				   "h3,alice,vcA,8,3000-01-01 00:00:00,3600\n"
				   "h4,alice,vcA,8,1980-01-02 00:00:00,2000000000\n"
				   "h5,alice,vcA,8,1980-01-03 00:00:00,60\n";

static void test_helios_time_range(void)
{
	struct sim_diag d;
	struct trace_import_result res;
	struct trace_import_opts opts = { 0 };
	const char *in = tu_write_file("he_range.csv", helios_range), *out = tu_tmp_path("he_range_out.csv");
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(trace_helios_import(in, out, &opts, &res, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "he_range.csv:3: column submit_time: submit time out of range: "
					"expected at most 1e9 s after the earliest"));
	CU_ASSERT(sim_diag_contains(&d, "he_range.csv:4: column submit_time: submit time out of range"));
	CU_ASSERT(sim_diag_contains(&d, "he_range.csv:5: column duration: duration over 1e9 s"));
	CU_ASSERT_EQUAL(d.count, 3);
	CU_ASSERT(!tu_exists(out));
	sim_diag_fini(&d);

	opts.skip_bad = 1;
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL_FATAL(trace_helios_import(in, out, &opts, &res, &d), 0);
	CU_ASSERT_EQUAL(res.rows_read, 5);
	CU_ASSERT_EQUAL(res.rows_written, 2);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "submit time out of range"), 2);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "duration over 1e9 s"), 1);
	CU_ASSERT_DOUBLE_EQUAL(res.gpu_hours_out, (3600.0 * 8 + 60 * 8) / 3600.0, 1e-9);
	CU_ASSERT(contains(out, "\nh1,0,3600,vcA,*:gpu=8,alice\nh5,172800,60,vcA,*:gpu=8,alice\n"));
	CU_ASSERT_EQUAL(native_jobs(out), 2);
	sim_diag_fini(&d);
}

/* Tiresias and Gavel write submit times as they are: over 1e9 s is a bad row. */
static void test_tiresias_gavel_time_range(void)
{
	struct sim_diag d;
	struct trace_import_result res;
	struct trace_import_opts opts = { 0 };
	const char *in = tu_write_file("ti_range.csv", "job_id,num_gpu,submit_time,duration\n"
						       "0,1,0,10\n1,1,2000000000,10\n2,1,5,2000000000\n");
	const char *out = tu_tmp_path("ti_range_out.csv");
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(trace_tiresias_import(in, out, &opts, &res, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "ti_range.csv:3: column submit_time: submit time out of range"));
	CU_ASSERT(sim_diag_contains(&d, "ti_range.csv:4: column duration: duration over 1e9 s"));
	sim_diag_fini(&d);
	opts.skip_bad = 1;
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL_FATAL(trace_tiresias_import(in, out, &opts, &res, &d), 0);
	CU_ASSERT_EQUAL(res.rows_written, 1);
	CU_ASSERT_EQUAL(native_jobs(out), 1);
	sim_diag_fini(&d);

	opts.skip_bad = 0;
	in = tu_write_file("gv_range.txt", "a\tb\tc\td\t100\t0\t1\na\tb\tc\td\t100\t2000000000\t1\n");
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(trace_gavel_import(in, out, &opts, &res, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "gv_range.txt:2: column arrival_time: submit time out of range"));
	sim_diag_fini(&d);
}

/* SWF and PAI write submit times shifted to the earliest and durations as read: a
 * row that would not fit the native format's 1e9 s is a bad row at its line (they
 * imported with exit 0 and wrote a trace the native reader refused), also when the
 * span is found only at the end of the file (pass 1 then runs again). */
static void test_swf_pai_time_range(void)
{
	static const struct {
		const char *format, *name, *text, *submit_err, *dur_err;
	} cases[] = {
		{ "swf", "sw_range.swf",
		  "1 0 -1 10 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n"
		  "2 2000000000 -1 10 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n"
		  "3 5 -1 3000000000 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n",
		  "sw_range.swf:2: column 2 (submit time): submit time out of range",
		  "sw_range.swf:3: column 4 (run time): duration over 1e9 s" },
		{ "pai", "pai_range.csv",
		  "j1,tf,1,Terminated,1000,1100,600,29,100,T4\n"
		  "j2,tf,1,Terminated,3000000000,3000000100,600,29,100,T4\n"
		  "j3,tf,1,Terminated,1000,2000001000,600,29,100,T4\n",
		  "pai_range.csv:2: column start_time: submit time out of range",
		  "pai_range.csv:3: column end_time: duration over 1e9 s" },
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		struct sim_diag d;
		struct trace_import_result res;
		struct trace_import_opts opts = { 0 };
		const char *in = tu_write_file(cases[k].name, cases[k].text);
		const char *out = tu_tmp_path("range_out.csv");
		sim_diag_init(&d, 20);
		CU_ASSERT_EQUAL(trace_import(cases[k].format, in, out, &opts, &res, &d), -SIM_EPARSE);
		CU_ASSERT(sim_diag_contains(&d, cases[k].submit_err));
		CU_ASSERT(sim_diag_contains(&d, cases[k].dur_err));
		CU_ASSERT_EQUAL(d.count, 2);
		CU_ASSERT(!tu_exists(out));
		sim_diag_fini(&d);
		opts.skip_bad = 1;
		sim_diag_init(&d, 20);
		CU_ASSERT_EQUAL_FATAL(trace_import(cases[k].format, in, out, &opts, &res, &d), 0);
		CU_ASSERT_EQUAL(res.rows_written, 1);
		CU_ASSERT_EQUAL(tu_reason_count(&res, TRACE_IMPORT_R_SUBMIT_RANGE), 1);
		CU_ASSERT_EQUAL(tu_reason_count(&res, TRACE_IMPORT_R_DURATION_RANGE), 1);
		CU_ASSERT_EQUAL(native_jobs(out), 1);
		remove(out);
		sim_diag_fini(&d);
	}
}

/* 10-field rows 1, 2, 5; 3 bad scale_factor; 4 wrong field count; 6 bad priority. */
static const char gavel_sample[] =
	"ResNet-18 (batch size 32)\tpython3 main.py\tcifar10\t--num_steps\t1\t3948\t2\t1\t-1.000000\t0\n"
	"LM (batch size 20)\tpython3 main.py\tlm\t--steps\t1\t600\t1\t5\t-1\t12.5\n"
	"A3C\tpython3 main.py\ta3c\t--steps\t1\t600\t0\t1\t-1\t13\n"
	"A3C\tpython3 main.py\n"
	"CycleGAN\tpython3 main.py\t--n_epochs\t1\t100\t20.000000\t4\n"
	"A3C\tpython3 main.py\ta3c\t--steps\t1\t600\t1\t1.5\t-1\t13\n";

static void test_gavel_sample(void)
{
	struct sim_diag d;
	struct trace_import_result res;
	struct trace_import_opts opts = { 0 };
	const char *in = tu_write_file("small.trace", gavel_sample), *out = tu_tmp_path("gv_out.csv");
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(trace_gavel_import(in, out, &opts, &res, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "small.trace:3: column scale_factor: expected a whole GPU count"));
	CU_ASSERT(sim_diag_contains(&d, "small.trace:4: expected 10 tab-separated fields (or 7 in the older "
					"msr layout), found 2"));
	CU_ASSERT(sim_diag_contains(&d, "small.trace:6: column priority_weight: expected a whole weight"));
	CU_ASSERT_EQUAL(d.count, 3);
	sim_diag_fini(&d);

	opts.skip_bad = 1;
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL_FATAL(trace_gavel_import(in, out, &opts, &res, &d), 0);
	CU_ASSERT_EQUAL(res.rows_read, 6);
	CU_ASSERT_EQUAL(res.rows_written, 3);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "bad scale_factor"), 1);
	CU_ASSERT_EQUAL(tu_reason_count(&res, "bad priority_weight"), 1);
	double out_h = (3948.0 * 2 + 600 + 100 * 4) / 3600.0;
	CU_ASSERT_DOUBLE_EQUAL(res.gpu_hours_out, out_h, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(res.gpu_hours_in, out_h + 600 / 3600.0, 1e-9);
	CU_ASSERT_EQUAL(res.tenants_in, 1);
	CU_ASSERT(contains(out, "\nid,submit_s,duration_s,queue,request,priority\n"
				"gavel-1,0,3948,small,*:gpu=2,1\ngavel-2,12.5,600,small,*:gpu=1,5\n"
				"gavel-5,20,100,small,*:gpu=4,0\n"));
	CU_ASSERT_EQUAL(native_jobs(out), 3);
	sim_diag_fini(&d);
}

/* Real samples: total GPU-hours equal to our own sum of steps x scale_factor. */
static void check_gavel_real(const char *path, int steps_col, int scale_col, long rows)
{
	struct sim_diag d;
	struct trace_import_result res;
	struct trace_import_opts opts = { 0 };
	const char *out = tu_tmp_path("gv_real.csv");
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	char line[4096];
	double h = 0;
	long n = 0;
	while (fgets(line, sizeof line, f)) {
		char *field[12], *save = NULL;
		int k = 0;
		for (char *t = strtok_r(line, "\t\n", &save); t && k < 12; t = strtok_r(NULL, "\t\n", &save))
			field[k++] = t;
		if (k > scale_col && k > steps_col) {
			h += atof(field[steps_col]) * atof(field[scale_col]) / 3600.0;
			n++;
		}
	}
	fclose(f);
	CU_ASSERT_EQUAL(n, rows);
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL_FATAL(trace_gavel_import(path, out, &opts, &res, &d), 0);
	CU_ASSERT_EQUAL(res.rows_read, (size_t)rows);
	CU_ASSERT_EQUAL(res.rows_written, (size_t)rows);
	CU_ASSERT(fabs(res.gpu_hours_in - h) < 1e-6 * h);
	CU_ASSERT_DOUBLE_EQUAL(res.gpu_hours_out, res.gpu_hours_in, 1e-9);
	CU_ASSERT_EQUAL(native_jobs(out), rows);
	sim_diag_fini(&d);
}

static void test_gavel_real(void)
{
	check_gavel_real(RAW "gavel/msr-seed0/6214e9.trace", 4, 6, 2000);
	check_gavel_real(SAMPLES "gavel/msr-seed0/6214e9.trace", 4, 6, 300); /* its first 300 lines */
	check_gavel_real(SAMPLES "gavel/msr-seed0/23dbec.trace", 4, 6, 9);
	check_gavel_real(SAMPLES "gavel/physical_cluster/small_test.trace", 5, 6, 20);
}

static CU_TestInfo more_tests[] = {
	{ "test_tiresias_sample", test_tiresias_sample },
	{ "test_tiresias_real", test_tiresias_real },
	{ "test_helios_sample", test_helios_sample },
	{ "test_helios_header", test_helios_header },
	{ "test_helios_time_range", test_helios_time_range },
	{ "test_tiresias_gavel_time_range", test_tiresias_gavel_time_range },
	{ "swf and pai: times out of the native range", test_swf_pai_time_range },
	{ "test_gavel_sample", test_gavel_sample },
	{ "test_gavel_real", test_gavel_real },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo importers_more_suite = { "importers_more", init_more, clean_more, NULL, NULL, more_tests };
