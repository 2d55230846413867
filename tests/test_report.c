/* tests/test_report.c: analysis/report.c, analysis/plot.c and the report / plot verbs:
 * JSON parsed back with cJSON, the per-job CSV byte for byte, the table's
 * alignment, CDF downsampling, and the CLI's exit codes and messages. */
#include <CUnit/CUnit.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "analysis/h5read.h"
#include "analysis/plot.h"
#include "analysis/report.h"
#include "results_fixture.h"
#include "sim/h5out.h"
#include "sim/metrics.h"
#include "testutil.h"

static char fx_path[512];
static struct sim_summary fx_sum;

/* One results file for the suite: runs "fifo-s1" (seed 1) and "fifo-s2" (seed 2)
 * of the fixture; in fifo-s2 nothing completed (NaN JCT metrics). */
static int init_report(void)
{
	snprintf(fx_path, sizeof fx_path, "%s/report.h5", tu_tmpdir());
	struct sim_trace *t = fx_trace();
	struct sim_cluster *c = fx_cluster();
	struct sim_timeseries ts;
	int rc = -1;
	if (!t || !c || fx_timeseries(&ts, 25) != 0)
		goto out;
	struct sim_diag d;
	sim_diag_init(&d, 5);
	struct h5out_meta meta = { .experiment_json = "{}", .config_path = "x.json" };
	struct h5out *o = h5out_create(fx_path, &meta, &d);
	if (!o)
		goto out_diag;
	if (sim_metrics_summarize(t, c, FX_END_NS, &fx_sum))
		goto out_abort;
	struct h5out_run run = { .name = "fifo-s1", .policy = "fifo", .seed = 1, .trace = t, .cluster = c,
				 .ts = &ts, .summary = &fx_sum };
	if (h5out_write_run(o, &run, &d))
		goto out_abort;
	struct sim_summary s2 = fx_sum;
	for (int f = SIM_SUM_mean_jct_s; f <= SIM_SUM_p99_bsld; f++)
		s2.v[f] = NAN;
	run.name = "fifo-s2";
	run.seed = 2;
	run.summary = &s2;
	if (h5out_write_run(o, &run, &d))
		goto out_abort;
	rc = h5out_commit(o, &d);
out_abort:
	h5out_destroy(o);
out_diag:
	sim_diag_print(&d, stderr);
	sim_diag_fini(&d);
out:
	fx_timeseries_free(&ts);
	sim_cluster_destroy(c);
	sim_trace_destroy(t);
	return rc ? -1 : 0;
}

static int clean_report(void)
{
	remove(fx_path);
	return 0;
}

static struct h5read_file *open_fx(struct sim_diag *d)
{
	struct h5read_file *f = NULL;
	sim_diag_init(d, 10);
	if (h5read_open(fx_path, &f, d) != 0)
		sim_diag_print(d, stderr);
	return f;
}

/* Checks a parsed --json array against the fixture file. */
static void check_json(const char *text)
{
	cJSON *arr = cJSON_Parse(text);
	CU_ASSERT_FATAL(arr != NULL);
	CU_ASSERT_FATAL(cJSON_IsArray(arr));
	CU_ASSERT_EQUAL_FATAL(cJSON_GetArraySize(arr), 2);
	cJSON *o = cJSON_GetArrayItem(arr, 0);
	CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItemCaseSensitive(o, "run")->valuestring, "fifo-s1");
	CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItemCaseSensitive(o, "policy")->valuestring, "fifo");
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItemCaseSensitive(o, "seed")->valuedouble, 1, 0);
	/* every summary field, by its SCHEMA.md name, with the value written */
	for (int f = 0; f < SIM_SUM_COUNT_; f++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, sim_summary_name((enum sim_summary_field)f));
		CU_ASSERT_FATAL(v != NULL);
		CU_ASSERT(cJSON_IsNumber(v));
		CU_ASSERT_DOUBLE_EQUAL(v->valuedouble, fx_sum.v[f], 1e-9 * fmax(1, fabs(fx_sum.v[f])));
	}
	CU_ASSERT_EQUAL(cJSON_GetArraySize(o), 3 + SIM_SUM_COUNT_);
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItemCaseSensitive(o, "mean_wait_s")->valuedouble, 1820, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItemCaseSensitive(o, "utilization")->valuedouble, 0.5581, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItemCaseSensitive(o, "jobs")->valuedouble, 7, 0);
	/* NaN is null */
	cJSON *o2 = cJSON_GetArrayItem(arr, 1);
	CU_ASSERT(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o2, "mean_jct_s")));
	CU_ASSERT(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o2, "p99_bsld")));
	CU_ASSERT(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o2, "mean_wait_s")));
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItemCaseSensitive(o2, "seed")->valuedouble, 2, 0);
	cJSON_Delete(arr);
}

static void test_report_json_parses_back(void)
{
	struct sim_diag d;
	struct h5read_file *f = open_fx(&d);
	CU_ASSERT_FATAL(f != NULL);
	char *text = NULL;
	CU_ASSERT_EQUAL_FATAL(report_json(f, NULL, &text, &d), 0);
	check_json(text);
	free(text);
	/* --run filters */
	CU_ASSERT_EQUAL_FATAL(report_json(f, "fifo-s2", &text, &d), 0);
	cJSON *arr = cJSON_Parse(text);
	CU_ASSERT_EQUAL(cJSON_GetArraySize(arr), 1);
	cJSON_Delete(arr);
	free(text);
	CU_ASSERT_EQUAL(report_json(f, "nope", &text, &d), -SIM_ENOENT);
	CU_ASSERT(text == NULL);
	h5read_close(f);
	sim_diag_fini(&d);
}

static char *capture(int (*fn)(const struct h5read_file *, const char *, FILE *, struct sim_diag *),
		     const struct h5read_file *f, const char *run, struct sim_diag *d, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	*rc = fn(f, run, m, d);
	fclose(m);
	return buf;
}

static void test_report_jobs_csv(void)
{
	struct sim_diag d;
	struct h5read_file *f = open_fx(&d);
	CU_ASSERT_FATAL(f != NULL);
	int rc;
	char *csv = capture(report_jobs_csv, f, "fifo-s1", &d, &rc);
	CU_ASSERT_EQUAL(rc, 0);
	const char *want =
		"run,id,queue,user,flavor,option,gpus,submit_s,start_s,end_s,wait_s,jct_s,runtime_s,preemptions,status\n"
		"fifo-s1,j1,q,alice,h100,0,8,0,0,3600,0,3600,3600,0,completed\n"
		"fifo-s1,j2,research,,h100,0,4,100,3600,5400,3500,5300,1800,2,completed\n"
		"fifo-s1,\"odd,\"\"id\"\"\",q,,h100,0,12,200,5400,9000,5200,8800,3600,0,completed\n"
		"fifo-s1,j4,q,,a100,1,4,300,300,305,0,5,5,0,completed\n"
		"fifo-s1,j5,q,,,,8,400,,400,,,,0,rejected\n"
		"fifo-s1,j6,q,,,,1,500,,,,,,0,unfinished\n"
		"fifo-s1,j7,q,,a100,0,2,600,1000,,400,,20000,0,unfinished\n";
	CU_ASSERT_STRING_EQUAL(csv, want);
	free(csv);
	/* all runs: header + 2 x 7 rows */
	csv = capture(report_jobs_csv, f, NULL, &d, &rc);
	CU_ASSERT_EQUAL(rc, 0);
	size_t lines = 0;
	for (const char *p = csv; *p; p++)
		lines += *p == '\n';
	CU_ASSERT_EQUAL(lines, 1 + 2 * FX_N_JOBS);
	CU_ASSERT(strstr(csv, "\nfifo-s2,j7,") != NULL);
	free(csv);
	csv = capture(report_jobs_csv, f, "nope", &d, &rc);
	CU_ASSERT_EQUAL(rc, -SIM_ENOENT);
	free(csv);
	h5read_close(f);
	sim_diag_fini(&d);
}

static void test_report_table_aligned(void)
{
	struct sim_diag d;
	struct h5read_file *f = open_fx(&d);
	CU_ASSERT_FATAL(f != NULL);
	int rc;
	char *out = capture(report_table, f, NULL, &d, &rc);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	/* line 0: file and schema; line 1: header; then one line a run, all as wide */
	char *save = NULL, *lines[8] = { 0 };
	int n = 0;
	for (char *l = strtok_r(out, "\n", &save); l && n < 8; l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;
	CU_ASSERT_EQUAL_FATAL(n, 4);
	CU_ASSERT(strstr(lines[0], "2 runs") != NULL);
	CU_ASSERT(strncmp(lines[1], "run ", 4) == 0);
	CU_ASSERT(strstr(lines[1], "wait_p95[s]") != NULL);
	CU_ASSERT(strstr(lines[1], "util[%]") != NULL);
	CU_ASSERT_EQUAL(strlen(lines[1]), strlen(lines[2]));
	CU_ASSERT_EQUAL(strlen(lines[2]), strlen(lines[3]));
	CU_ASSERT(strncmp(lines[2], "fifo-s1", 7) == 0);
	/* util 55.8 %, mean wait 1820.0, p95 wait 4860.0; fifo-s2 has no JCT: "-" */
	CU_ASSERT(strstr(lines[2], " 55.8") != NULL);
	CU_ASSERT(strstr(lines[2], " 1820.0 ") != NULL);
	CU_ASSERT(strstr(lines[2], " 4860.0 ") != NULL);
	CU_ASSERT(strstr(lines[3], " - ") != NULL);
	free(out);
	h5read_close(f);
	sim_diag_fini(&d);
}

static void test_report_cdf_points(void)
{
	enum { N = 10007 };
	double *x = malloc(N * sizeof *x), xs[PLOT_MAX_POINTS], ys[PLOT_MAX_POINTS];
	CU_ASSERT_FATAL(x != NULL);
	for (size_t i = 0; i < N; i++)
		x[i] = (double)i * 0.5;
	size_t k = plot_cdf_points(x, N, PLOT_MAX_POINTS, xs, ys);
	CU_ASSERT_EQUAL(k, PLOT_MAX_POINTS);
	CU_ASSERT_DOUBLE_EQUAL(xs[0], 0, 0);
	CU_ASSERT_DOUBLE_EQUAL(ys[0], 1.0 / N, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(xs[k - 1], (N - 1) * 0.5, 0);
	CU_ASSERT_DOUBLE_EQUAL(ys[k - 1], 1.0, 0);
	int mono = 1;
	for (size_t i = 1; i < k; i++)
		mono &= xs[i] > xs[i - 1] && ys[i] > ys[i - 1];
	CU_ASSERT(mono);
	/* small inputs are kept whole */
	k = plot_cdf_points(x, 4, PLOT_MAX_POINTS, xs, ys);
	CU_ASSERT_EQUAL(k, 4);
	CU_ASSERT_DOUBLE_EQUAL(ys[1], 0.5, 0);
	CU_ASSERT_EQUAL(plot_cdf_points(x, 0, PLOT_MAX_POINTS, xs, ys), 0);
	free(x);
}

static void test_report_cli_json_and_jobs(void)
{
	char args[1024], *out = NULL;
	snprintf(args, sizeof args, "report %s --json", fx_path);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	check_json(out);
	free(out);
	snprintf(args, sizeof args, "report %s --jobs --run fifo-s2", fx_path);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	CU_ASSERT(strncmp(out, "run,id,queue,user,flavor,option,gpus,", 37) == 0);
	CU_ASSERT(strstr(out, "fifo-s2,j1,q,alice,h100,0,8,0,0,3600,0,3600,3600,0,completed\n") != NULL);
	CU_ASSERT(strstr(out, "fifo-s1") == NULL);
	free(out);
	snprintf(args, sizeof args, "report %s", fx_path);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	CU_ASSERT(strstr(out, "fifo-s1") && strstr(out, "completed") && strstr(out, "jct_mean[s]"));
	free(out);
	CU_ASSERT_EQUAL(tu_run_gpusched("report --help", &out), 0);
	CU_ASSERT(strstr(out, "--json") && strstr(out, "--jobs") && strstr(out, "SCHEMA.md"));
	free(out);
}

static void test_report_cli_bad_input(void)
{
	char args[1024], *out = NULL;
	snprintf(args, sizeof args, "report %s/nothere.h5", tu_tmpdir());
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
	CU_ASSERT(strstr(out, "nothere.h5") && strstr(out, "No such file"));
	free(out);
	const char *txt = tu_write_file("plain.txt", "{\"name\": 1}\n");
	snprintf(args, sizeof args, "report %s --json", txt);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
	CU_ASSERT(strstr(out, "not an HDF5 file") != NULL);
	CU_ASSERT(strstr(out, "[") == NULL); /* nothing on stdout */
	free(out);
	snprintf(args, sizeof args, "report %s --jobs --run nope", fx_path);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
	CU_ASSERT(strstr(out, "no run named 'nope'") != NULL);
	free(out);
	snprintf(args, sizeof args, "report %s --json --jobs", fx_path);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
	free(out);
	CU_ASSERT_EQUAL(tu_run_gpusched("report", &out), 2);
	free(out);
}

static void test_report_cli_plot(void)
{
	char dir[600], args[1400], *out = NULL;
	snprintf(dir, sizeof dir, "%s/plots", tu_tmpdir());
	snprintf(args, sizeof args, "plot %s -o %s", fx_path, dir);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	if (out && !strstr(out, "busy_gpus.png"))
		fprintf(stderr, "%s\n", out);
	free(out);
	const char *files[] = { "wait_cdf.png", "jct_cdf.png", "busy_gpus.png", "wait_cdf.dat", "jct_cdf.dat",
				"busy_gpus.dat" };
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char p[700];
		struct stat st;
		snprintf(p, sizeof p, "%s/%s", dir, files[i]);
		CU_ASSERT(stat(p, &st) == 0 && st.st_size > 0);
	}
	/* the .dat holds one block a run, headed by the run name */
	char p[700];
	snprintf(p, sizeof p, "%s/wait_cdf.dat", dir);
	char *dat = tu_read_file(p, NULL);
	CU_ASSERT_FATAL(dat != NULL);
	CU_ASSERT(strstr(dat, "\"fifo-s1\"\n") && strstr(dat, "\"fifo-s2\"\n"));
	CU_ASSERT(strstr(dat, "\n5200 1\n") != NULL); /* the largest wait closes the CDF */
	free(dat);

	/* gnuplot missing: a clear message, exit 1 */
	char cmd[1600];
	snprintf(cmd, sizeof cmd, "env PATH=/nonexistent %s plot %s -o %s 2>&1", GPUSCHED_BIN, fx_path, dir);
	FILE *pp = popen(cmd, "r");
	CU_ASSERT_FATAL(pp != NULL);
	char msg[1024] = "";
	size_t got = fread(msg, 1, sizeof msg - 1, pp);
	msg[got] = 0;
	int st = pclose(pp);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	CU_ASSERT(strstr(msg, "gnuplot not found") != NULL);

	/* templates elsewhere: GPUSCHED_ANALYSIS_DIR overrides the build's folder */
	snprintf(cmd, sizeof cmd, "env GPUSCHED_ANALYSIS_DIR=%s/none %s plot %s -o %s 2>&1", tu_tmpdir(),
		 GPUSCHED_BIN, fx_path, dir);
	pp = popen(cmd, "r");
	CU_ASSERT_FATAL(pp != NULL);
	got = fread(msg, 1, sizeof msg - 1, pp);
	msg[got] = 0;
	st = pclose(pp);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	CU_ASSERT(strstr(msg, "template not found") != NULL);

	snprintf(args, sizeof args, "plot %s", fx_path);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2); /* -o is required */
	free(out);
}

static CU_TestInfo report_tests[] = {
	{ "test_report_json_parses_back", test_report_json_parses_back },
	{ "test_report_jobs_csv", test_report_jobs_csv },
	{ "test_report_table_aligned", test_report_table_aligned },
	{ "test_report_cdf_points", test_report_cdf_points },
	{ "test_report_cli_json_and_jobs", test_report_cli_json_and_jobs },
	{ "test_report_cli_bad_input", test_report_cli_bad_input },
	{ "test_report_cli_plot", test_report_cli_plot },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo report_suite = { "report", init_report, clean_report, NULL, NULL, report_tests };
