/* tests/test_report.c: analysis/report.c, analysis/plot.c and the report / plot verbs:
 * JSON parsed back with cJSON, the per-job CSV byte for byte, the table's
 * alignment, CDF downsampling, and the CLI's exit codes and messages. */
#include <CUnit/CUnit.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/h5read.h"
#include "analysis/plot.h"
#include "analysis/report.h"
#include "results_fixture.h"
#include "sim/h5out.h"
#include "sim/metrics.h"
#include "testutil.h"

static char fx_path[512];
static char rep_path[512];
static struct sim_summary fx_sum;

/* The replications file: variants "fifo" (seeds 1, 2, 3) and "easy" (seeds 7, 8, 9),
 * written interleaved (fifo-s1, easy-s7, fifo-s2, ...). Every run has fx_sum but for the
 * values below; NaN is a metric without data. Hand-computed, t(0.975, 2) = 4.302653,
 * t(0.975, 1) = 12.7062047, half-width t x sd / sqrt(m):
 *   fifo mean_wait_s 100 110 120: 110 +- 4.302653 x 10 / sqrt 3 = 24.841379
 *   fifo p95_wait_s 300 330 360: 330 +- 4.302653 x 30 / sqrt 3 = 74.524136
 *   fifo mean_jct_s 1000 x 3: 1000 +- 0
 *   fifo utilization 0.5 0.6 0.7: 0.6 +- 0.24841379
 *   fifo mean_bsld 2 3 NaN: 2.5 +- 12.7062047 x sqrt(0.5) / sqrt 2 = 6.3531024 (m = 2)
 *   easy mean_wait_s 40 50 90: 60 +- 4.302653 x sqrt(700) / sqrt 3 = 65.724110
 *   easy p95_wait_s 100 x 3: 100 +- 0
 *   easy mean_jct_s NaN x 3: no value (null, "-")
 *   easy utilization 0.2 x 3: 0.2 +- 0
 *   easy mean_bsld 1.5 x 3: 1.5 +- 0 */
static const double rep_vals[2][3][5] = {
	/* mean_wait_s, p95_wait_s, mean_jct_s, utilization, mean_bsld */
	{ { 100, 300, 1000, 0.5, 2 }, { 110, 330, 1000, 0.6, 3 }, { 120, 360, 1000, 0.7, NAN } },
	{ { 40, 100, NAN, 0.2, 1.5 }, { 50, 100, NAN, 0.2, 1.5 }, { 90, 100, NAN, 0.2, 1.5 } },
};
static const enum sim_summary_field rep_fields[5] = { SIM_SUM_mean_wait_s, SIM_SUM_p95_wait_s,
						      SIM_SUM_mean_jct_s, SIM_SUM_utilization,
						      SIM_SUM_mean_bsld };
static const char *const rep_variant[2] = { "fifo", "easy" };
static const uint64_t rep_seed[2][3] = { { 1, 2, 3 }, { 7, 8, 9 } };

static int write_rep_file(const struct sim_trace *t, const struct sim_cluster *c,
			  const struct sim_timeseries *ts, struct sim_diag *d)
{
	snprintf(rep_path, sizeof rep_path, "%s/replications.h5", tu_tmpdir());
	struct h5out_meta meta = { .experiment_json = "{}", .config_path = "rep.json" };
	struct h5out *o = h5out_create(rep_path, &meta, d);
	if (!o)
		return -1;
	int rc = 0;
	for (int k = 0; k < 3 && !rc; k++) {
		for (int v = 0; v < 2 && !rc; v++) {
			struct sim_summary sum = fx_sum;
			for (int i = 0; i < 5; i++)
				sum.v[rep_fields[i]] = rep_vals[v][k][i];
			char name[32];
			uint64_t seed = rep_seed[v][k];
			snprintf(name, sizeof name, "%s-s%llu", rep_variant[v], (unsigned long long)seed);
			struct h5out_run run = { .name = name, .policy = rep_variant[v], .seed = seed,
						 .trace = t, .cluster = c, .ts = ts, .summary = &sum };
			rc = h5out_write_run(o, &run, d);
		}
	}
	if (!rc)
		rc = h5out_commit(o, d);
	h5out_destroy(o);
	return rc;
}

/* One results file for the suite: runs "fifo-s1" (seed 1) and "fifo-s2" (seed 2)
 * of the fixture; in fifo-s2 nothing completed (NaN JCT metrics). fifo-s1 is a
 * quota run with the fixture's decisions, queue rows and per-queue series;
 * fifo-s2 has none of them (queue rows from the jobs alone, no preemptions). */
static int init_report(void)
{
	snprintf(fx_path, sizeof fx_path, "%s/report.h5", tu_tmpdir());
	struct sim_trace *t = fx_trace();
	struct sim_cluster *c = fx_cluster();
	struct sim_timeseries ts = { 0 }, ts_q = { 0 };
	struct sim_queue_acct acct[2];
	struct sim_decisions ds = fx_decisions();
	struct sim_queue_row rows[2];
	fx_queue_acct(acct);
	int rc = -1;
	if (!t || !c || fx_timeseries(&ts, 25) != 0 || fx_timeseries(&ts_q, 11) != 0 ||
	    fx_timeseries_queues(&ts_q) != 0)
		goto out;
	struct sim_diag d;
	sim_diag_init(&d, 5);
	struct h5out_meta meta = { .experiment_json = "{}", .config_path = "x.json" };
	struct h5out *o = h5out_create(fx_path, &meta, &d);
	if (!o)
		goto out_diag;
	if (sim_metrics_summarize(t, c, FX_END_NS, &fx_sum) ||
	    sim_metrics_queues(t, acct, &ts_q, &ds, FX_END_NS, rows))
		goto out_abort;
	sim_metrics_summarize_queues(t, rows, &fx_sum);
	/* As if measured by a real run, so every field round-trips a number. */
	fx_sum.v[SIM_SUM_runtime_error] = 0.0125;
	fx_sum.v[SIM_SUM_decision_latency_p50_s] = 1.5e-4;
	fx_sum.v[SIM_SUM_decision_latency_p99_s] = 4.25e-4;
	struct h5out_run run = { .name = "fifo-s1", .policy = "fifo", .seed = 1, .trace = t, .cluster = c,
				 .ts = &ts_q, .summary = &fx_sum, .decisions = &ds, .queues = rows };
	if (h5out_write_run(o, &run, &d))
		goto out_abort;
	struct sim_summary s2 = fx_sum;
	for (int f = SIM_SUM_mean_jct_s; f <= SIM_SUM_p99_bsld; f++)
		s2.v[f] = NAN;
	run.name = "fifo-s2";
	run.seed = 2;
	run.summary = &s2;
	run.ts = &ts;
	run.decisions = NULL;
	run.queues = NULL;
	if (h5out_write_run(o, &run, &d))
		goto out_abort;
	if ((rc = h5out_commit(o, &d)))
		goto out_abort;
	rc = write_rep_file(t, c, &ts, &d);
out_abort:
	h5out_destroy(o);
out_diag:
	sim_diag_print(&d, stderr);
	sim_diag_fini(&d);
out:
	fx_timeseries_free(&ts);
	fx_timeseries_free(&ts_q);
	sim_cluster_destroy(c);
	sim_trace_destroy(t);
	return rc ? -1 : 0;
}

static int clean_report(void)
{
	remove(fx_path);
	remove(rep_path);
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
	/* the fixture preempted: busy GPU-seconds are the queues' 90000 + 7200 */
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItemCaseSensitive(o, "utilization")->valuedouble, 0.5581, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItemCaseSensitive(o, "jain_fairness")->valuedouble,
			       0.84 * 0.84 / (2 * (0.75 * 0.75 + 0.09 * 0.09)), 1e-12);
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
	/* The stream's buffer pointer lives on the heap: GCC 12 at -O2 flags a local one,
	 * whose address the stream keeps, as dangling (-Wdangling-pointer). */
	struct { char *buf; size_t len; } *cap = calloc(1, sizeof *cap);
	FILE *m = open_memstream(&cap->buf, &cap->len);
	*rc = fn(f, run, m, d);
	fclose(m);
	char *buf = cap->buf;
	free(cap);
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
	/* line 0: file and schema; line 1: header; then one line a run, all as wide; then
	 * (both runs are seeds of "fifo") the replications: title, header, one line */
	char *save = NULL, *lines[8] = { 0 };
	int n = 0;
	for (char *l = strtok_r(out, "\n", &save); l && n < 8; l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;
	CU_ASSERT_EQUAL_FATAL(n, 7);
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
	CU_ASSERT(strncmp(lines[4], "replications: 1 variant,", 24) == 0);
	CU_ASSERT(strncmp(lines[5], "variant  runs  wait_mean[s]", 27) == 0);
	const char *row = "fifo        2  1820.0 \u00b1 0.0  ";
	CU_ASSERT(strncmp(lines[6], row, strlen(row)) == 0);
	/* JCT from fifo-s1 alone (NaN in fifo-s2): its value, half-width 0 */
	CU_ASSERT(strstr(lines[6], "  4426.2 \u00b1 0.0  ") != NULL);
	free(out);
	h5read_close(f);
	sim_diag_fini(&d);
}

static void test_report_variant_name(void)
{
	CU_ASSERT_EQUAL(report_variant_len("fifo-s1", 1), 4);
	CU_ASSERT_EQUAL(report_variant_len("easy_backfill_16-s42", 42), 16);
	/* the seed decides what is stripped, exactly "-s<seed>" */
	CU_ASSERT_EQUAL(report_variant_len("fifo-s1", 11), 7);
	CU_ASSERT_EQUAL(report_variant_len("a-s11", 1), 5);
	CU_ASSERT_EQUAL(report_variant_len("a-s01", 1), 5);
	CU_ASSERT_EQUAL(report_variant_len("a_s1", 1), 4);
	CU_ASSERT_EQUAL(report_variant_len("x-s1-s2", 2), 4);   /* variant "x-s1" */
	CU_ASSERT_EQUAL(report_variant_len("1e+06-s3", 3), 5); /* sweep names keep their '-', '+' */
	CU_ASSERT_EQUAL(report_variant_len("-s5", 5), 3);      /* nothing would be left */
	CU_ASSERT_EQUAL(report_variant_len("", 0), 0);
	CU_ASSERT_EQUAL(report_variant_len("v-s18446744073709551615", UINT64_MAX), 1);
}

static const cJSON *jget(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	return v;
}

/* {"mean": m, "ci95": h} of field in a --by-variant object, within tol. */
static void check_mc(const cJSON *o, const char *field, double m, double h, double tol)
{
	const cJSON *f = jget(o, field);
	CU_ASSERT(cJSON_IsObject(f));
	CU_ASSERT_EQUAL(cJSON_GetArraySize(f), 2);
	const cJSON *jm = jget(f, "mean"), *jh = jget(f, "ci95");
	if (isnan(m)) {
		CU_ASSERT(cJSON_IsNull(jm));
		CU_ASSERT(cJSON_IsNull(jh));
		return;
	}
	CU_ASSERT_FATAL(cJSON_IsNumber(jm) && cJSON_IsNumber(jh));
	CU_ASSERT_DOUBLE_EQUAL(jm->valuedouble, m, tol);
	CU_ASSERT_DOUBLE_EQUAL(jh->valuedouble, h, tol);
}

/* Checks --by-variant output of the replications file (hand-computed values at write_rep_file). */
static void check_by_variant(const char *text)
{
	cJSON *arr = cJSON_Parse(text);
	CU_ASSERT_FATAL(arr != NULL);
	CU_ASSERT_FATAL(cJSON_IsArray(arr));
	CU_ASSERT_EQUAL_FATAL(cJSON_GetArraySize(arr), 2);
	for (int v = 0; v < 2; v++) {
		/* in the order of each variant's first run, though the runs are interleaved */
		const cJSON *o = cJSON_GetArrayItem(arr, v);
		CU_ASSERT_STRING_EQUAL(jget(o, "variant")->valuestring, rep_variant[v]);
		CU_ASSERT_DOUBLE_EQUAL(jget(o, "runs")->valuedouble, 3, 0);
		const cJSON *seeds = jget(o, "seeds");
		CU_ASSERT_FATAL(cJSON_IsArray(seeds) && cJSON_GetArraySize(seeds) == 3);
		for (int k = 0; k < 3; k++)
			CU_ASSERT_DOUBLE_EQUAL(cJSON_GetArrayItem(seeds, k)->valuedouble,
					       (double)rep_seed[v][k], 0);
		/* every summary field, by name; the ones kept at the fixture's value: mean = it, ci95 = 0 */
		CU_ASSERT_EQUAL(cJSON_GetArraySize(o), 3 + SIM_SUM_COUNT_);
		for (int f = 0; f < SIM_SUM_COUNT_; f++) {
			int varied = 0;
			for (int i = 0; i < 5; i++)
				varied |= rep_fields[i] == (enum sim_summary_field)f;
			if (!varied)
				check_mc(o, sim_summary_name((enum sim_summary_field)f), fx_sum.v[f], 0,
					 1e-9 * fmax(1, fabs(fx_sum.v[f])));
		}
	}
	const cJSON *fifo = cJSON_GetArrayItem(arr, 0), *easy = cJSON_GetArrayItem(arr, 1);
	check_mc(fifo, "mean_wait_s", 110, 24.841379, 1e-5);
	check_mc(fifo, "p95_wait_s", 330, 74.524136, 1e-5);
	check_mc(fifo, "mean_jct_s", 1000, 0, 1e-9);
	check_mc(fifo, "utilization", 0.6, 0.24841379, 1e-7);
	check_mc(fifo, "mean_bsld", 2.5, 6.3531024, 1e-6); /* the NaN seed left out: m = 2 */
	check_mc(easy, "mean_wait_s", 60, 65.724110, 1e-5);
	check_mc(easy, "p95_wait_s", 100, 0, 1e-9);
	check_mc(easy, "mean_jct_s", NAN, NAN, 0);
	check_mc(easy, "utilization", 0.2, 0, 1e-12);
	check_mc(easy, "mean_bsld", 1.5, 0, 1e-12);
	cJSON_Delete(arr);
}

static struct h5read_file *open_rep(struct sim_diag *d)
{
	struct h5read_file *f = NULL;
	sim_diag_init(d, 10);
	if (h5read_open(rep_path, &f, d) != 0)
		sim_diag_print(d, stderr);
	return f;
}

static void test_report_replications_json(void)
{
	struct sim_diag d;
	struct h5read_file *f = open_rep(&d);
	CU_ASSERT_FATAL(f != NULL);
	char *text = NULL;
	CU_ASSERT_EQUAL_FATAL(report_json_by_variant(f, NULL, &text, &d), 0);
	check_by_variant(text);
	free(text);
	/* --run groups the one run: runs 1, ci95 0 */
	CU_ASSERT_EQUAL_FATAL(report_json_by_variant(f, "easy-s8", &text, &d), 0);
	cJSON *arr = cJSON_Parse(text);
	CU_ASSERT_FATAL(arr != NULL && cJSON_GetArraySize(arr) == 1);
	const cJSON *o = cJSON_GetArrayItem(arr, 0);
	CU_ASSERT_STRING_EQUAL(jget(o, "variant")->valuestring, "easy");
	CU_ASSERT_DOUBLE_EQUAL(jget(o, "runs")->valuedouble, 1, 0);
	check_mc(o, "mean_wait_s", 50, 0, 0);
	cJSON_Delete(arr);
	free(text);
	CU_ASSERT_EQUAL(report_json_by_variant(f, "easy", &text, &d), -SIM_ENOENT);
	CU_ASSERT(text == NULL);
	CU_ASSERT(d.count > 0);
	/* the per-run array is unchanged: one object a run, no grouping */
	CU_ASSERT_EQUAL_FATAL(report_json(f, NULL, &text, &d), 0);
	arr = cJSON_Parse(text);
	CU_ASSERT_FATAL(arr != NULL);
	CU_ASSERT_EQUAL(cJSON_GetArraySize(arr), 6);
	o = cJSON_GetArrayItem(arr, 1);
	CU_ASSERT_STRING_EQUAL(jget(o, "run")->valuestring, "easy-s7");
	CU_ASSERT(cJSON_GetObjectItemCaseSensitive(o, "variant") == NULL);
	CU_ASSERT_EQUAL(cJSON_GetArraySize(o), 3 + SIM_SUM_COUNT_);
	cJSON_Delete(arr);
	free(text);
	h5read_close(f);
	sim_diag_fini(&d);
}

/* Display width of UTF-8 text: bytes that do not continue a character. */
static size_t utf8_width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

static void test_report_replications_table(void)
{
	struct sim_diag d;
	struct h5read_file *f = open_rep(&d);
	CU_ASSERT_FATAL(f != NULL);
	int rc;
	char *out = capture(report_table, f, NULL, &d, &rc);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	/* the per-run table, then the replications, hand-computed at write_rep_file; means
	 * and half-widths right-aligned apart, so the signs line up */
	const char *want =
		"\n"
		"replications: 2 variants, mean \u00b1 half-width of the 95% confidence interval over seeds "
		"(Student t)\n"
		"variant  runs  wait_mean[s]   wait_p95[s]   jct_mean[s]      util[%]  bsld_mean[1]\n"
		"fifo        3  110.0 \u00b1 24.8  330.0 \u00b1 74.5  1000.0 \u00b1 0.0"
		"  60.0 \u00b1 24.8   2.50 \u00b1 6.35\n"
		"easy        3   60.0 \u00b1 65.7  100.0 \u00b1  0.0             -"
		"  20.0 \u00b1  0.0   1.50 \u00b1 0.00\n";
	const char *rep = strstr(out, "\n\nreplications");
	CU_ASSERT_PTR_NOT_NULL_FATAL(rep);
	CU_ASSERT_STRING_EQUAL(rep + 1, want);
	/* every line of it as wide, in characters */
	char *save = NULL;
	size_t w0 = 0, n = 0;
	char *copy = strdup(strstr(rep, "\nvariant ") + 1);
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save), n++) {
		if (n == 0)
			w0 = utf8_width(l);
		CU_ASSERT_EQUAL(utf8_width(l), w0);
	}
	CU_ASSERT_EQUAL(n, 3);
	free(copy);
	CU_ASSERT(strstr(out, ": 6 runs (schema") != NULL);
	free(out);
	/* one run a variant (--run): no replications table */
	out = capture(report_table, f, "fifo-s2", &d, &rc);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT(strstr(out, "\nfifo-s2 ") != NULL);
	CU_ASSERT(strstr(out, "\nreplications:") == NULL);
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
	CU_ASSERT(strstr(out, "--by-variant") && strstr(out, "replications"));
	free(out);
	/* the replications file: the table ends with the replications; --json stays one object a run */
	snprintf(args, sizeof args, "report %s", rep_path);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	CU_ASSERT(strstr(out, "\nreplications: 2 variants, mean \u00b1 half-width") != NULL);
	CU_ASSERT(strstr(out, "\neasy        3   60.0 \u00b1 65.7  ") != NULL);
	free(out);
	snprintf(args, sizeof args, "report %s --json", rep_path);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	cJSON *arr = cJSON_Parse(out);
	CU_ASSERT_FATAL(arr != NULL);
	CU_ASSERT_EQUAL(cJSON_GetArraySize(arr), 6);
	CU_ASSERT(strstr(out, "\"variant\"") == NULL && strstr(out, "\"ci95\"") == NULL);
	cJSON_Delete(arr);
	free(out);
	snprintf(args, sizeof args, "report %s --json --by-variant", rep_path);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	check_by_variant(out);
	free(out);
	snprintf(args, sizeof args, "report %s --by-variant --run fifo-s2", rep_path);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	CU_ASSERT(strstr(out, "\"variant\":\t\"fifo\"") && strstr(out, "\"runs\":\t1,"));
	free(out);
	snprintf(args, sizeof args, "report %s --by-variant --jobs", rep_path);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
	CU_ASSERT(strstr(out, "cannot be combined") != NULL);
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

/* A results file cut in the middle (a copy of a good one, truncated to half its
 * size) is not a results file: exit 2 from report and plot, the file named, nothing
 * on stdout (it once exited 1 as an HDF5 runtime failure). */
static void test_report_cli_truncated(void)
{
	size_t len = 0;
	char *bytes = tu_read_file(fx_path, &len);
	CU_ASSERT_FATAL(bytes != NULL && len > 1024);
	char path[600];
	snprintf(path, sizeof path, "%s/cut_in_half.h5", tu_tmpdir());
	FILE *f = fopen(path, "wb");
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT(fwrite(bytes, 1, len, f) == len);
	CU_ASSERT(fclose(f) == 0);
	free(bytes);
	CU_ASSERT_FATAL(truncate(path, (off_t)(len / 2)) == 0);

	struct sim_diag d;
	struct h5read_file *h = NULL;
	sim_diag_init(&d, 10);
	CU_ASSERT_EQUAL(h5read_open(path, &h, &d), -SIM_EPARSE);
	CU_ASSERT_PTR_NULL(h);
	CU_ASSERT(sim_diag_contains(&d, path) && sim_diag_contains(&d, "truncated"));
	sim_diag_fini(&d);

	char args[1400], *out = NULL;
	snprintf(args, sizeof args, "report %s --json", path);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
	CU_ASSERT(out && strstr(out, "cut_in_half.h5: not a readable results file: truncated or damaged"));
	CU_ASSERT(out && strstr(out, "[") == NULL); /* nothing on stdout */
	free(out);
	snprintf(args, sizeof args, "report %s --jobs", path);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
	CU_ASSERT(out && strstr(out, "cut_in_half.h5: not a readable results file"));
	free(out);
	snprintf(args, sizeof args, "plot %s -o %s/cut_plots", path, tu_tmpdir());
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
	CU_ASSERT(out && strstr(out, "cut_in_half.h5: not a readable results file: truncated or damaged"));
	free(out);
	/* a file that is not HDF5 at all, and a folder, are refused by plot too */
	const char *plain = tu_write_file("plain2.txt", "x\n");
	snprintf(args, sizeof args, "plot %s -o %s/cut_plots", plain, tu_tmpdir());
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
	CU_ASSERT(out && strstr(out, "plain2.txt: not an HDF5 file"));
	free(out);
	snprintf(args, sizeof args, "plot %s -o %s/cut_plots", tu_tmpdir(), tu_tmpdir());
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
	free(out);
	remove(path);
}

/* 1 if a gnuplot is on PATH (the plot verb needs one; without it the PNG checks are
 * skipped and only the "gnuplot not found" exit is checked). */
static int have_gnuplot(void)
{
	return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

static void test_report_cli_plot(void)
{
	char dir[600], args[1400], *out = NULL;
	snprintf(dir, sizeof dir, "%s/plots", tu_tmpdir());
	snprintf(args, sizeof args, "plot %s -o %s", fx_path, dir);
	if (!have_gnuplot()) {
		fprintf(stderr, "(no gnuplot on PATH: PNG checks skipped) ");
		CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 1);
		CU_ASSERT(out && strstr(out, "gnuplot not found"));
		free(out);
		return;
	}
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	if (out && !strstr(out, "busy_gpus.png"))
		fprintf(stderr, "%s\n", out);
	/* fifo-s1 has queues and preemptions, fifo-s2 neither (one note line) */
	CU_ASSERT(out && strstr(out, "wrote ") && strstr(out, "/queues_fifo-s1.png\n") &&
		  strstr(out, "/preemptions_fifo-s1.png\n"));
	CU_ASSERT(out && strstr(out, "note: no queue plot for 1 run (") &&
		  strstr(out, "; no preemption plot for 1 run (nothing preempted)\n"));
	CU_ASSERT(out && strstr(out, "/cost_wait.png\n") && strstr(out, "/options_fifo-s1.png\n") &&
		  strstr(out, "/options_fifo-s2.png\n") && !strstr(out, "no option plot"));
	const char *files[] = { "wait_cdf.png", "jct_cdf.png", "busy_gpus.png", "wait_cdf.dat", "jct_cdf.dat",
				"busy_gpus.dat", "queues_fifo-s1.png", "queues_fifo-s1.dat",
				"preemptions_fifo-s1.png", "preemptions_fifo-s1.dat", "cost_wait.png",
				"cost_wait.dat", "options_fifo-s1.png", "options_fifo-s1.dat",
				"options_fifo-s2.png" };
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char p[700];
		struct stat st;
		snprintf(p, sizeof p, "%s/%s", dir, files[i]);
		CU_ASSERT(stat(p, &st) == 0 && st.st_size > 0);
	}
	/* the .dat holds one block a variant (fifo-s1 and fifo-s2 are the variant fifo),
	 * headed by its name and seeds: the mean CDF and its 95% band */
	char p[700];
	snprintf(p, sizeof p, "%s/wait_cdf.dat", dir);
	char *dat = tu_read_file(p, NULL);
	CU_ASSERT_FATAL(dat != NULL);
	CU_ASSERT(strstr(dat, "\"fifo (2 seeds)\"\n") && !strstr(dat, "\"fifo-s1\"\n"));
	CU_ASSERT(strstr(dat, "\n5200 1 1 1\n") != NULL); /* the largest wait closes the CDF */
	free(dat);
	free(out);
	struct stat st0;
	snprintf(p, sizeof p, "%s/queues_fifo-s2.png", dir);
	CU_ASSERT(stat(p, &st0) != 0);
	snprintf(p, sizeof p, "%s/preemptions_fifo-s2.png", dir);
	CU_ASSERT(stat(p, &st0) != 0);
	/* preemptions by hour, cumulative by reason (all three in the first hour of a 10000 s run) */
	snprintf(p, sizeof p, "%s/preemptions_fifo-s1.dat", dir);
	dat = tu_read_file(p, NULL);
	CU_ASSERT_FATAL(dat != NULL);
	CU_ASSERT(strstr(dat, "\n\"time\" \"cohort_reclamation\" \"quota_shrink\" \"cohort_fair_sharing\"\n"
			      "0.5 1 2 3\n1.5 0 0 0\n2.5 0 0 0\n") != NULL);
	free(dat);
	/* the option histogram: started jobs by option index */
	snprintf(p, sizeof p, "%s/options_fifo-s1.dat", dir);
	dat = tu_read_file(p, NULL);
	CU_ASSERT_FATAL(dat != NULL);
	CU_ASSERT(strstr(dat, "\n\"option\" \"jobs\"\n0 4\n1 1\n") != NULL);
	free(dat);
	/* cost against wait: one labelled point a run (mean wait 1820 s, 62.0111 / 5 a job);
	 * the two runs tie, so they share the point and its label */
	snprintf(p, sizeof p, "%s/cost_wait.dat", dir);
	dat = tu_read_file(p, NULL);
	CU_ASSERT_FATAL(dat != NULL);
	CU_ASSERT(strstr(dat, "\"runs\"\n0.505555556 12.4022222 \"fifo-s1, fifo-s2\"\n") != NULL);
	free(dat);
	/* queue series stacked: q from 0, research on top of it; q (nominal 12) at 16
	 * GPUs in sample 16 % 17 ... here sample 5: q 5 GPUs, research 0 */
	snprintf(p, sizeof p, "%s/queues_fifo-s1.dat", dir);
	dat = tu_read_file(p, NULL);
	CU_ASSERT_FATAL(dat != NULL);
	CU_ASSERT(strstr(dat, "\n\"time\" \"q\" \"q\" \"q\" \"research\" \"research\" "
			      "\"research\"\n") != NULL);
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


/* Names in dir other than "." and "..", counted (-1 when dir cannot be read). */
static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

/* A plot that fails part-way (a fake gnuplot on PATH: it answers the terminal probe,
 * draws the first two images, then fails) leaves the folder as it was: the old
 * files untouched, no new .dat or .png, no temporary. */
static void test_report_plot_failure_keeps_old_files(void)
{
	char bin[600], dir[600], path[700], count[700], script[2048], cmd[3000];
	snprintf(bin, sizeof bin, "%s/fakegp", tu_tmpdir());
	snprintf(dir, sizeof dir, "%s/kept_plots", tu_tmpdir());
	snprintf(count, sizeof count, "%s/fakegp.count", tu_tmpdir());
	mkdir(bin, 0777);
	mkdir(dir, 0777);
	unlink(count);
	snprintf(script, sizeof script,
		 "#!/bin/sh\n"
		 "if [ \"$2\" = \"set terminal\" ]; then echo ' png pngcairo '; exit 0; fi\n"
		 "n=$(cat '%s' 2>/dev/null || echo 0); n=$((n + 1)); echo $n > '%s'\n"
		 "if [ $n -ge 3 ]; then echo 'fake gnuplot: failed' >&2; exit 1; fi\n"
		 "out=$(printf '%%s' \"$2\" | sed -n \"s/.*outfile='\\([^']*\\)'.*/\\1/p\")\n"
		 "printf 'new image' > \"$out\"\n",
		 count, count);
	snprintf(path, sizeof path, "%s/gnuplot", bin);
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(script, f);
	fclose(f);
	chmod(path, 0755);
	const char *names[] = { "wait_cdf.png", "jct_cdf.png", "busy_gpus.dat" };
	for (int k = 0; k < 3; k++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[k]);
		f = fopen(path, "w");
		CU_ASSERT_FATAL(f != NULL);
		fprintf(f, "old %s\n", names[k]);
		fclose(f);
	}
	snprintf(cmd, sizeof cmd, "env PATH=%s:$PATH %s plot %s -o %s >/dev/null 2>&1", bin, GPUSCHED_BIN, fx_path,
		 dir);
	int st = system(cmd);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	char *n_calls = tu_read_file(count, NULL);
	CU_ASSERT(n_calls && atoi(n_calls) == 3); /* two images drawn, the third failed */
	free(n_calls);
	for (int k = 0; k < 3; k++) {
		char want[64];
		snprintf(path, sizeof path, "%s/%s", dir, names[k]);
		snprintf(want, sizeof want, "old %s\n", names[k]);
		char *txt = tu_read_file(path, NULL);
		CU_ASSERT(txt && strcmp(txt, want) == 0);
		if (!txt || strcmp(txt, want) != 0)
			fprintf(stderr, "\n%s: %s", path, txt ? txt : "(gone)\n");
		free(txt);
	}
	CU_ASSERT_EQUAL(count_entries(dir), 3);

	/* A folder the failed plot made is removed again. */
	snprintf(path, sizeof path, "%s/new_plots", tu_tmpdir());
	unlink(count);
	snprintf(cmd, sizeof cmd, "env PATH=%s:$PATH %s plot %s -o %s >/dev/null 2>&1", bin, GPUSCHED_BIN, fx_path,
		 path);
	st = system(cmd);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	CU_ASSERT(!tu_exists(path));
}

/* Output of a report function on the suite's file into a string (malloc'd). */
static char *capture_fx(int (*fn)(const struct h5read_file *, const char *, FILE *, struct sim_diag *),
			const char *run, int *rc)
{
	struct sim_diag d;
	struct h5read_file *f = open_fx(&d);
	char *text = f ? capture(fn, f, run, &d, rc) : NULL;
	h5read_close(f);
	sim_diag_fini(&d);
	return text;
}

static void expect_text(const char *got, const char *want)
{
	CU_ASSERT_FATAL(got != NULL);
	CU_ASSERT_STRING_EQUAL(got, want);
	if (strcmp(got, want) != 0)
		fprintf(stderr, "\n--- got:\n%s--- want:\n%s---\n", got, want);
}

/* The per-queue table, byte for byte: fifo-s1 has quotas (values hand-computed in
 * results_fixture.h), fifo-s2 none ("-" and a note). */
static void test_report_queues_table(void)
{
	int rc;
	char *text = capture_fx(report_queues_table, NULL, &rc);
	CU_ASSERT_EQUAL(rc, 0);
#define HEAD                                                                                       \
	"queue     nominal[GPU]  jobs  completed  wait_mean[s]  wait_p95[s]  busy[GPU*h]"          \
	"  borrowed[GPU*h]  lent[GPU*h]  below_nominal[h]  preempted  caused  lost[GPU*h]"          \
	"  restore[h]  share[%]\n"
	expect_text(text,
		    "run fifo-s1: 2 queues\n" HEAD
		    "q                 12.0     6          3        1400.0       4480.0        25.00"
		    "             1.00         0.83              0.50          0       1         0.00"
		    "        0.00      75.0\n"
		    "research           8.0     1          1        3500.0       3500.0         2.00"
		    "             0.00         2.78              0.00          2       1         1.00"
		    "        0.01       9.0\n"
		    "\n"
		    "run fifo-s2: 2 queues (no quota policy: nominal, borrowed, lent, below_nominal and "
		    "share are -)\n" HEAD
		    "q                    -     6          3        1400.0       4480.0            -"
		    "                -            -                 -          0       1         0.00"
		    "        0.00         -\n"
		    "research             -     1          1        3500.0       3500.0            -"
		    "                -            -                 -          2       0         1.00"
		    "        0.01         -\n");
#undef HEAD
	free(text);
	text = capture_fx(report_queues_table, "nope", &rc);
	CU_ASSERT_EQUAL(rc, -SIM_ENOENT);
	free(text);
}

#define DECISIONS_HEAD "run,time_s,preemptor,victim,preemptor_queue,victim_queue,reason,requeued,lost_gpu_s\n"

/* Decisions as CSV, byte for byte: the quota shrink has no preemptor. */
static void test_report_decisions_csv(void)
{
	int rc;
	char *text = capture_fx(report_decisions_csv, NULL, &rc);
	CU_ASSERT_EQUAL(rc, 0);
	expect_text(text, DECISIONS_HEAD
			  "fifo-s1,1000,j1,j2,q,research,cohort_reclamation,1,3600\n"
			  "fifo-s1,2000,,j7,,q,quota_shrink,1,0\n"
			  "fifo-s1,3000,j2,j4,research,q,cohort_fair_sharing,0,1.5\n");
	free(text);
	text = capture_fx(report_decisions_csv, "fifo-s2", &rc);
	CU_ASSERT_EQUAL(rc, 0);
	expect_text(text, DECISIONS_HEAD);
	free(text);
}

/* Checks `report --queues --json` output: one object a queue row, NaN as null. */
static void check_queues_json(const char *text)
{
	cJSON *arr = cJSON_Parse(text);
	CU_ASSERT_FATAL(arr != NULL && cJSON_IsArray(arr));
	CU_ASSERT_EQUAL_FATAL(cJSON_GetArraySize(arr), 4);
	cJSON *o = cJSON_GetArrayItem(arr, 0);
	CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItemCaseSensitive(o, "run")->valuestring, "fifo-s1");
	CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItemCaseSensitive(o, "queue")->valuestring, "q");
	CU_ASSERT_EQUAL(cJSON_GetArraySize(o), 2 + SIM_QF_COUNT_);
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItemCaseSensitive(o, "share")->valuedouble, 0.75, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItemCaseSensitive(o, "busy_gpu_h")->valuedouble, 25, 1e-12);
	o = cJSON_GetArrayItem(arr, 3);
	CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItemCaseSensitive(o, "run")->valuestring, "fifo-s2");
	CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItemCaseSensitive(o, "queue")->valuestring, "research");
	CU_ASSERT(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "nominal_gpus")));
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetObjectItemCaseSensitive(o, "preemptions_suffered")->valuedouble, 2,
			       0);
	cJSON_Delete(arr);
}

static void test_report_queues_json(void)
{
	struct sim_diag d;
	struct h5read_file *f = open_fx(&d);
	CU_ASSERT_FATAL(f != NULL);
	char *text = NULL;
	CU_ASSERT_EQUAL_FATAL(report_queues_json(f, NULL, &text, &d), 0);
	check_queues_json(text);
	free(text);
	CU_ASSERT_EQUAL(report_queues_json(f, "nope", &text, &d), -SIM_ENOENT);
	CU_ASSERT_PTR_NULL(text);
	h5read_close(f);
	sim_diag_fini(&d);
}

/* The verbs: --queues, --queues --json, --decisions, and the combinations refused. */
static void test_report_cli_queues_and_decisions(void)
{
	char args[1024], *out = NULL;
	snprintf(args, sizeof args, "report %s --queues --run fifo-s1", fx_path);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	CU_ASSERT(out && strncmp(out, "run fifo-s1: 2 queues\nqueue ", 28) == 0 && !strstr(out, "fifo-s2"));
	free(out);
	snprintf(args, sizeof args, "report %s --json --queues", fx_path);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	check_queues_json(out);
	free(out);
	snprintf(args, sizeof args, "report %s --decisions", fx_path);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	CU_ASSERT(out && strstr(out, "fifo-s1,2000,,j7,,q,quota_shrink,1,0\n"));
	free(out);
	const char *bad[] = { "--queues --jobs", "--decisions --queues", "--json --decisions",
			      "--by-variant --queues", "--queues --run nope" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(args, sizeof args, "report %s %s", fx_path, bad[i]);
		CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
		CU_ASSERT(out && (strstr(out, "cannot be combined") || strstr(out, "no run named 'nope'")));
		free(out);
	}
	snprintf(args, sizeof args, "report --help");
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	CU_ASSERT(out && strstr(out, "--queues") && strstr(out, "--decisions"));
	free(out);
}

/* The per-option table, byte for byte (values hand-computed in results_fixture.h);
 * both runs have the same jobs. */
static void test_report_options_table(void)
{
	int rc;
	char *text = capture_fx(report_options_table, "fifo-s1", &rc);
	CU_ASSERT_EQUAL(rc, 0);
	expect_text(text, "run fifo-s1: 2 options, 5 started jobs\n"
			  "option  jobs  share[%]  wait_mean[s]  wait_p50[s]  wait_p95[s]  runtime_mean[s]"
			  "  runtime_ratio  cost_mean[currency]\n"
			  "0          4      80.0        2275.0       1950.0       4945.0            100.0"
			  "           1.00                15.50\n"
			  "1          1      20.0           0.0          0.0          0.0            400.0"
			  "           4.00                 0.01\n");
	free(text);
	text = capture_fx(report_options_table, NULL, &rc);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT(text && strstr(text, "0.01\n\nrun fifo-s2: 2 options, 5 started jobs\noption "));
	free(text);
	text = capture_fx(report_options_table, "nope", &rc);
	CU_ASSERT_EQUAL(rc, -SIM_ENOENT);
	free(text);
}

/* Checks `report --options --json` output: one object an option row, NaN as null. */
static void check_options_json(const char *text)
{
	cJSON *arr = cJSON_Parse(text);
	CU_ASSERT_FATAL(arr != NULL && cJSON_IsArray(arr));
	CU_ASSERT_EQUAL_FATAL(cJSON_GetArraySize(arr), 4);
	cJSON *o = cJSON_GetArrayItem(arr, 1);
	CU_ASSERT_STRING_EQUAL(jget(o, "run")->valuestring, "fifo-s1");
	CU_ASSERT_EQUAL(cJSON_GetArraySize(o), 2 + SIM_OF_COUNT_);
	CU_ASSERT_DOUBLE_EQUAL(jget(o, "option")->valuedouble, 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(jget(o, "jobs")->valuedouble, 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(jget(o, "runtime_ratio")->valuedouble, 4, 1e-12);
	const cJSON *mc = jget(o, "mean_cost");
	CU_ASSERT_DOUBLE_EQUAL(mc->valuedouble, 1.0 / 90, 1e-12);
	o = cJSON_GetArrayItem(arr, 2);
	CU_ASSERT_STRING_EQUAL(jget(o, "run")->valuestring, "fifo-s2");
	CU_ASSERT_DOUBLE_EQUAL(jget(o, "p95_wait_s")->valuedouble, 4945, 1e-9);
	cJSON_Delete(arr);
}

static void test_report_options_json(void)
{
	struct sim_diag d;
	struct h5read_file *f = open_fx(&d);
	CU_ASSERT_FATAL(f != NULL);
	char *text = NULL;
	CU_ASSERT_EQUAL_FATAL(report_options_json(f, NULL, &text, &d), 0);
	check_options_json(text);
	free(text);
	CU_ASSERT_EQUAL(report_options_json(f, "nope", &text, &d), -SIM_ENOENT);
	CU_ASSERT_PTR_NULL(text);
	h5read_close(f);
	sim_diag_fini(&d);
}

/* The verbs: --options, --options --json, the new metrics in --json, and the
 * combinations refused. */
static void test_report_cli_options(void)
{
	char args[1024], *out = NULL;
	snprintf(args, sizeof args, "report %s --options --run fifo-s2", fx_path);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	CU_ASSERT(out && strncmp(out, "run fifo-s2: 2 options, 5 started jobs\noption ", 45) == 0 &&
		  !strstr(out, "fifo-s1"));
	free(out);
	snprintf(args, sizeof args, "report %s --json --options", fx_path);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	check_options_json(out);
	free(out);
	snprintf(args, sizeof args, "report %s --json --run fifo-s1", fx_path);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	cJSON *arr = cJSON_Parse(out);
	CU_ASSERT_FATAL(arr != NULL);
	cJSON *o = cJSON_GetArrayItem(arr, 0);
	CU_ASSERT_DOUBLE_EQUAL(jget(o, "fallback_rate")->valuedouble, 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(jget(o, "pending_timeouts")->valuedouble, 0, 0);
	CU_ASSERT_DOUBLE_EQUAL(jget(o, "pending_timeout_rate")->valuedouble, 0, 0);
	CU_ASSERT_DOUBLE_EQUAL(jget(o, "mean_cost_per_job")->valuedouble,
			       (52 + 1.0 / 90 + 10) / 5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(jget(o, "interruptions")->valuedouble, 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(jget(o, "fallback_evals")->valuedouble, 5, 0);
	cJSON_Delete(arr);
	free(out);
	const char *bad[] = { "--options --jobs", "--options --queues", "--decisions --options",
			      "--by-variant --options", "--options --run nope" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(args, sizeof args, "report %s %s", fx_path, bad[i]);
		CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
		CU_ASSERT(out && (strstr(out, "cannot be combined") || strstr(out, "no run named 'nope'")));
		free(out);
	}
	CU_ASSERT_EQUAL(tu_run_gpusched("report --help", &out), 0);
	CU_ASSERT(out && strstr(out, "--options") && strstr(out, "fallback_rate"));
	free(out);
}

/* 1 if OUTDIR holds a file whose name starts with "sweep_". */
static int has_sweep_file(const char *dir)
{
	char cmd[800];
	snprintf(cmd, sizeof cmd, "ls '%s' | grep -q '^sweep_'", dir);
	return system(cmd) == 0;
}

/* cost_wait.png over the replications file: one point a run (their mean waits
 * differ), in file order, waits in hours. */
static void test_report_plot_cost_wait(void)
{
	if (!have_gnuplot())
		return;
	char dir[600], args[1400], p[700], *out = NULL;
	snprintf(dir, sizeof dir, "%s/rep_plots", tu_tmpdir());
	snprintf(args, sizeof args, "plot %s -o %s -q", rep_path, dir);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	CU_ASSERT(out && out[0] == 0); /* -q: nothing printed */
	free(out);
	snprintf(p, sizeof p, "%s/cost_wait.dat", dir);
	char *dat = tu_read_file(p, NULL);
	CU_ASSERT_FATAL(dat != NULL);
	CU_ASSERT(strstr(dat, "\"runs\"\n0.0277777778 12.4022222 \"fifo-s1\"\n"
			      "0.0111111111 12.4022222 \"easy-s7\"\n"
			      "0.0305555556 12.4022222 \"fifo-s2\"\n") != NULL);
	CU_ASSERT(strstr(dat, "\n0.025 12.4022222 \"easy-s9\"\n") != NULL);
	free(dat);
	snprintf(p, sizeof p, "%s/cost_wait.png", dir);
	CU_ASSERT(tu_exists(p));
	/* several seeds but no sweep: no sweep plot, and nothing said about it */
	CU_ASSERT(!has_sweep_file(dir));
}

static void test_report_plot_file_name(void)
{
	char buf[64];
	plot_file_name("queues_", "fifo-s1", buf, sizeof buf);
	CU_ASSERT_STRING_EQUAL(buf, "queues_fifo-s1");
	plot_file_name("queues_", "a b/c\"d.e", buf, sizeof buf);
	CU_ASSERT_STRING_EQUAL(buf, "queues_a_b_c_d.e");
	plot_file_name("p_", "0123456789012345678901234567890123456789", buf, 16);
	CU_ASSERT_STRING_EQUAL(buf, "p_0123456789012");
}


/* 15 queues without quotas: the queue plot keeps the 11 most used (queue q uses q
 * GPUs: x4 .. x14) in trace order and sums the rest (q, research, x2, x3: 0 + 1 + 2 +
 * 3 = 6 GPUs) as "other", stacked without hatching. */
static void test_report_plot_many_queues(void)
{
	if (!have_gnuplot())
		return;
	struct sim_trace *t = fx_trace();
	struct sim_cluster *c = fx_cluster();
	struct sim_timeseries ts;
	CU_ASSERT_FATAL(t && c && fx_timeseries(&ts, 5) == 0);
	t->jobs[3].n_opts = 1; /* no preference list: no option plot */
	t->jobs[3].opt_chosen = 0;
	for (int q = 2; q < 15; q++) {
		char name[8];
		snprintf(name, sizeof name, "x%d", q);
		CU_ASSERT_FATAL(sim_trace_intern_queue(t, name) == q);
	}
	ts.n_queues = 15;
	ts.q_usage = calloc(5 * 15, sizeof(double));
	CU_ASSERT_FATAL(ts.q_usage != NULL);
	for (size_t i = 0; i < 5; i++)
		for (size_t q = 0; q < 15; q++)
			ts.q_usage[i * 15 + q] = (double)q;
	char path[600], dir[600], args[1400], *out = NULL;
	snprintf(path, sizeof path, "%s/many.h5", tu_tmpdir());
	snprintf(dir, sizeof dir, "%s/many_plots", tu_tmpdir());
	struct sim_diag d;
	sim_diag_init(&d, 5);
	struct h5out *o = h5out_create(path, NULL, &d);
	CU_ASSERT_FATAL(o != NULL);
	struct h5out_run run = { .name = "many", .policy = "fifo", .trace = t, .cluster = c, .ts = &ts,
				 .summary = &fx_sum };
	CU_ASSERT_EQUAL(h5out_write_run(o, &run, &d), 0);
	CU_ASSERT_EQUAL(h5out_commit(o, &d), 0);
	h5out_destroy(o);
	sim_diag_fini(&d);
	snprintf(args, sizeof args, "plot %s -o %s", path, dir);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	CU_ASSERT(out && strstr(out, "queues_many.png") && strstr(out, "no preemption plot for 1 run"));
	CU_ASSERT(out && strstr(out, "(nothing preempted); no option plot for 1 run (no job with 2 or more "
				     "options, or no per-option table)\n") && !strstr(out, "options_many.png"));
	free(out);
	char p[700];
	snprintf(p, sizeof p, "%s/queues_many.dat", dir);
	char *dat = tu_read_file(p, NULL);
	CU_ASSERT_FATAL(dat != NULL);
	CU_ASSERT(strstr(dat, "# 15 queues in 12 series, 5 samples\n"
			      "\"time\" \"x4\" \"x4\" \"x4\" \"x5\"") != NULL);
	CU_ASSERT(strstr(dat, "\"x14\" \"x14\" \"x14\" \"other\" \"other\" \"other\"\n") != NULL);
	CU_ASSERT(strstr(dat, "\"research\"") == NULL);
	CU_ASSERT(strstr(dat, " 99 105 105\n") != NULL); /* other from 99 (4 + ... + 14) to 105 */
	free(dat);
	snprintf(p, sizeof p, "%s/queues_many.png", dir);
	CU_ASSERT(tu_exists(p));
	fx_timeseries_free(&ts);
	sim_cluster_destroy(c);
	sim_trace_destroy(t);
}

/* ---- sweep plots ---- */

/* Student t quantiles t(0.975, 2) and t(0.975, 1), for the hand-computed half-widths. */
#define T975_2 4.30265273
#define T975_1 12.7062047

/* One run of a sweep results file: its name, seed and the metrics set on fx_sum. */
struct sweep_run {
	const char *name;
	uint64_t seed;
	double wait, p95, util, cost;
};

/* Writes a results file of the runs with `json` as its experiment_json. 0 or -1. */
static int write_sweep_file(const char *path, const char *json, const struct sweep_run *runs, size_t n)
{
	struct sim_trace *t = fx_trace();
	struct sim_cluster *c = fx_cluster();
	struct sim_timeseries ts = { 0 };
	struct sim_diag d;
	sim_diag_init(&d, 5);
	int rc = -1;
	struct h5out_meta meta = { .experiment_json = json, .config_path = "sweep.json" };
	struct h5out *o = t && c && fx_timeseries(&ts, 5) == 0 ? h5out_create(path, &meta, &d) : NULL;
	for (size_t i = 0; o && i < n; i++) {
		struct sim_summary sum = fx_sum;
		sum.v[SIM_SUM_mean_wait_s] = runs[i].wait;
		sum.v[SIM_SUM_p95_wait_s] = runs[i].p95;
		sum.v[SIM_SUM_utilization] = runs[i].util;
		sum.v[SIM_SUM_mean_cost_per_job] = runs[i].cost;
		struct h5out_run run = { .name = runs[i].name, .policy = "fifo", .seed = runs[i].seed,
					 .trace = t, .cluster = c, .ts = &ts, .summary = &sum };
		if (h5out_write_run(o, &run, &d))
			goto out;
	}
	rc = o ? h5out_commit(o, &d) : -1;
out:
	h5out_destroy(o);
	sim_diag_print(&d, stderr);
	sim_diag_fini(&d);
	fx_timeseries_free(&ts);
	sim_cluster_destroy(c);
	sim_trace_destroy(t);
	return rc;
}

/* Row k (from 0) of the block headed `title` (with its quotes) of a sweep .dat:
 * x, mean, half-width, runs and the value's name. 0, or -1 when it is not there. */
static int sweep_row(const char *dat, const char *title, int k, double *x, double *mean, double *hw,
		     int *runs, char name[64])
{
	char head[256];
	snprintf(head, sizeof head, "\n%s\n", title);
	const char *p = strstr(dat, head);
	if (!p)
		return -1;
	p += strlen(head);
	for (int i = 0; i < k && p; i++) {
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	char m[32], h[32];
	if (!p || sscanf(p, "%lf %31s %31s %d \"%63[^\"]\"", x, m, h, runs, name) != 5)
		return -1;
	*mean = strcmp(m, "NaN") == 0 ? NAN : atof(m);
	*hw = strcmp(h, "NaN") == 0 ? NAN : atof(h);
	return 0;
}

/* Checks row k of block `title` of OUTDIR/FILE against x, mean, half-width, runs, name. */
static void check_sweep_row(const char *dir, const char *file, const char *title, int k, double x,
			    double mean, double hw, int runs, const char *name)
{
	char p[700], got_name[64];
	double gx, gm, gh;
	int gr;
	snprintf(p, sizeof p, "%s/%s", dir, file);
	char *dat = tu_read_file(p, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dat);
	int r = sweep_row(dat, title, k, &gx, &gm, &gh, &gr, got_name);
	CU_ASSERT_EQUAL_FATAL(r, 0);
	CU_ASSERT_DOUBLE_EQUAL(gx, x, 1e-9);
	if (isnan(mean)) {
		CU_ASSERT(isnan(gm) && isnan(gh));
	} else {
		CU_ASSERT_DOUBLE_EQUAL(gm, mean, 1e-6 * fabs(mean) + 1e-9);
		CU_ASSERT_DOUBLE_EQUAL(gh, hw, 1e-6 * fabs(hw) + 1e-9);
	}
	CU_ASSERT_EQUAL(gr, runs);
	CU_ASSERT_STRING_EQUAL(got_name, name);
	free(dat);
}

/* A sweep over one numeric parameter, nodes 4, 8, 16, with seeds 1, 2, 3, the runs
 * written seed by seed (matched by name, not position). Hand-computed, half-width
 * t x sd / sqrt(m) over the m runs with a value:
 *   mean_wait_s  4: 10 20 30 -> 20 +- T975_2 x 10 / sqrt 3 = 24.8413771
 *                8: 5 5 5 -> 5 +- 0;  16: 1 2 NaN -> 1.5 +- T975_1 x sqrt(0.5) / sqrt 2 = 6.3531024 (m 2)
 *                (largest mean + half-width 44.8 s: drawn in s)
 *   p95_wait_s   4: 36000 x 3, 8: 18000 x 3, 16: 9000 x 3 -> 10, 5, 2.5 hours +- 0
 *   utilization  4: 0.5 0.6 0.7 -> 60 % +- 24.8413771 %; 8 and 16: 0.9 -> 90 % +- 0
 *   mean_jct_s   fx_sum's 4426.25 s everywhere: 73.7708333 minutes +- 0
 *   mean_cost_per_job  4: 1 2 3 -> 2 +- T975_2 x 1 / sqrt 3; 8 and 16: 5 +- 0 */
static void test_report_plot_sweep_numeric(void)
{
	if (!have_gnuplot())
		return;
	static const struct sweep_run runs[] = {
		{ "4-s1", 1, 10, 36000, 0.5, 1 }, { "8-s1", 1, 5, 18000, 0.9, 5 },
		{ "16-s1", 1, 1, 9000, 0.9, 5 },  { "4-s2", 2, 20, 36000, 0.6, 2 },
		{ "8-s2", 2, 5, 18000, 0.9, 5 },  { "16-s2", 2, 2, 9000, 0.9, 5 },
		{ "4-s3", 3, 30, 36000, 0.7, 3 }, { "8-s3", 3, 5, 18000, 0.9, 5 },
		{ "16-s3", 3, NAN, 9000, 0.9, 5 },
	};
	const char *json = "{\"name\": \"nodes\", \"seeds\": [1, 2, 3],\n"
			   " \"sweep\": {\"cluster.flavors[0].nodes\": [4, 8, 16]}}";
	char path[600], dir[600], args[1400], *out = NULL;
	snprintf(path, sizeof path, "%s/sweep_nodes.h5", tu_tmpdir());
	snprintf(dir, sizeof dir, "%s/sweep_nodes_plots", tu_tmpdir());
	CU_ASSERT_EQUAL_FATAL(write_sweep_file(path, json, runs, sizeof runs / sizeof runs[0]), 0);
	snprintf(args, sizeof args, "plot %s -o %s", path, dir);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	CU_ASSERT(out && strstr(out, "/sweep_mean_wait_cluster.flavors_0_.nodes.png\n") &&
		  !strstr(out, "sweep variant"));
	free(out);
	const char *metrics[] = { "mean_wait", "p95_wait", "mean_jct", "utilization", "cost" };
	for (size_t i = 0; i < 5; i++) {
		char p[800];
		snprintf(p, sizeof p, "%s/sweep_%s_cluster.flavors_0_.nodes.png", dir, metrics[i]);
		CU_ASSERT(tu_exists(p));
		snprintf(p, sizeof p, "%s/sweep_%s_cluster.flavors_0_.nodes.dat", dir, metrics[i]);
		CU_ASSERT(tu_exists(p));
	}
	const char *w = "sweep_mean_wait_cluster.flavors_0_.nodes.dat", *all = "\"all runs\"";
	check_sweep_row(dir, w, all, 0, 4, 20, T975_2 * 10 / sqrt(3), 3, "4");
	check_sweep_row(dir, w, all, 1, 8, 5, 0, 3, "8");
	check_sweep_row(dir, w, all, 2, 16, 1.5, T975_1 * sqrt(0.5) / sqrt(2), 2, "16");
	const char *p95 = "sweep_p95_wait_cluster.flavors_0_.nodes.dat";
	check_sweep_row(dir, p95, all, 0, 4, 10, 0, 3, "4");
	check_sweep_row(dir, p95, all, 2, 16, 2.5, 0, 3, "16");
	const char *u = "sweep_utilization_cluster.flavors_0_.nodes.dat";
	check_sweep_row(dir, u, all, 0, 4, 60, T975_2 * 10 / sqrt(3), 3, "4");
	check_sweep_row(dir, u, all, 1, 8, 90, 0, 3, "8");
	const char *jct = "sweep_mean_jct_cluster.flavors_0_.nodes.dat";
	const char *cost = "sweep_cost_cluster.flavors_0_.nodes.dat";
	check_sweep_row(dir, jct, all, 1, 8, 4426.25 / 60, 0, 3, "8");
	check_sweep_row(dir, cost, all, 0, 4, 2, T975_2 / sqrt(3), 3, "4");
	check_sweep_row(dir, cost, all, 2, 16, 5, 0, 3, "16");
	/* the units are named in the .dat's first line */
	char p[700];
	snprintf(p, sizeof p, "%s/%s", dir, p95);
	char *dat = tu_read_file(p, NULL);
	const char *head = "# 95th percentile of wait (hours) against cluster.flavors[0].nodes:";
	CU_ASSERT(dat && strncmp(dat, head, strlen(head)) == 0);
	free(dat);
	snprintf(p, sizeof p, "%s/%s", dir, w);
	dat = tu_read_file(p, NULL);
	CU_ASSERT(dat && strncmp(dat, "# mean wait (s) against", 23) == 0);
	free(dat);
	remove(path);
}

/* Two parameters, one of names (policies.order: a string and an object named by its
 * "name"), seeds 1 and 2, and a run of no variant. One plot per parameter and metric,
 * a line per value of the other: waits 10 (vi + 1) + seed for variant vi (fifo_4,
 * fifo_8, easy_backfill_4, easy_backfill_8): means 11.5, 21.5, 31.5, 41.5, each
 * +- T975_1 x sqrt(0.5) / sqrt 2. Every cost is 0 (a config without prices): no cost plot. */
static void test_report_plot_sweep_strings(void)
{
	if (!have_gnuplot())
		return;
	static const struct sweep_run runs[] = {
		{ "fifo_4-s1", 1, 11, 50, 0.5, 0 },	  { "fifo_4-s2", 2, 12, 50, 0.5, 0 },
		{ "fifo_8-s1", 1, 21, 50, 0.5, 0 },	  { "fifo_8-s2", 2, 22, 50, 0.5, 0 },
		{ "easy_backfill_4-s1", 1, 31, 50, 0.5, 0 }, { "easy_backfill_4-s2", 2, 32, 50, 0.5, 0 },
		{ "easy_backfill_8-s1", 1, 41, 50, 0.5, 0 }, { "easy_backfill_8-s2", 2, 42, 50, 0.5, 0 },
		{ "stray-s1", 1, 99, 99, 0.1, 0 },
	};
	const char *json = "{\"seeds\": [1, 2], \"sweep\": {\"$.policies.order\": [\"fifo\", "
			   "{\"name\": \"easy_backfill\"}], \"cluster.flavors[0].nodes\": [4, 8]}}";
	char path[600], dir[600], args[1400], *out = NULL;
	snprintf(path, sizeof path, "%s/sweep_order.h5", tu_tmpdir());
	snprintf(dir, sizeof dir, "%s/sweep_order_plots", tu_tmpdir());
	CU_ASSERT_EQUAL_FATAL(write_sweep_file(path, json, runs, sizeof runs / sizeof runs[0]), 0);
	snprintf(args, sizeof args, "plot %s -o %s", path, dir);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	CU_ASSERT(out && strstr(out, "note: 1 run of no sweep variant left out of the sweep plots\n"));
	CU_ASSERT(out && strstr(out, "/sweep_mean_wait_policies.order.png\n") &&
		  strstr(out, "/sweep_mean_wait_cluster.flavors_0_.nodes.png\n"));
	free(out);
	double h = T975_1 * sqrt(0.5) / sqrt(2);
	const char *po = "sweep_mean_wait_policies.order.dat";
	const char *pn = "sweep_mean_wait_cluster.flavors_0_.nodes.dat";
	/* against the policy: categories at 0 and 1, a line per node count */
	check_sweep_row(dir, po, "\"cluster.flavors[0].nodes=4\"", 0, 0, 11.5, h, 2, "fifo");
	check_sweep_row(dir, po, "\"cluster.flavors[0].nodes=4\"", 1, 1, 31.5, h, 2, "easy_backfill");
	check_sweep_row(dir, po, "\"cluster.flavors[0].nodes=8\"", 0, 0, 21.5, h, 2, "fifo");
	check_sweep_row(dir, po, "\"cluster.flavors[0].nodes=8\"", 1, 1, 41.5, h, 2, "easy_backfill");
	/* against the node count: a line per policy */
	check_sweep_row(dir, pn, "\"policies.order=fifo\"", 0, 4, 11.5, h, 2, "4");
	check_sweep_row(dir, pn, "\"policies.order=fifo\"", 1, 8, 21.5, h, 2, "8");
	check_sweep_row(dir, pn, "\"policies.order=easy_backfill\"", 1, 8, 41.5, h, 2, "8");
	char p[800];
	snprintf(p, sizeof p, "%s/sweep_utilization_policies.order.png", dir);
	CU_ASSERT(tu_exists(p));
	snprintf(p, sizeof p, "%s/sweep_cost_policies.order.png", dir);
	CU_ASSERT(!tu_exists(p));
	remove(path);
}

/* 13 x 2 variants and one run (1_1-s1): against a, 2 lines (b = 1: its one point, then
 * NaN rows for the variants without runs; b = 2: no point); against b, 13 lines, more
 * than a plot takes: left out with a note. */
static void test_report_plot_sweep_crowded(void)
{
	if (!have_gnuplot())
		return;
	static const struct sweep_run runs[] = { { "1_1-s1", 1, 30, 60, 0.5, 0 } };
	const char *json = "{\"sweep\": {\"policies.order.a\": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13], "
			   "\"policies.order.b\": [1, 2]}}";
	char path[600], dir[600], args[1400], p[800], *out = NULL;
	snprintf(path, sizeof path, "%s/sweep_crowded.h5", tu_tmpdir());
	snprintf(dir, sizeof dir, "%s/sweep_crowded_plots", tu_tmpdir());
	CU_ASSERT_EQUAL_FATAL(write_sweep_file(path, json, runs, 1), 0);
	snprintf(args, sizeof args, "plot %s -o %s", path, dir);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	CU_ASSERT(out && strstr(out, "note: no sweep plot against 1 of 2 swept parameters (more than 12 "
				     "combinations of the other parameters' values)\n"));
	if (out && !strstr(out, "sweep_mean_wait_policies.order.a.png"))
		fprintf(stderr, "%s\n", out);
	free(out);
	snprintf(p, sizeof p, "%s/sweep_mean_wait_policies.order.a.png", dir);
	CU_ASSERT(tu_exists(p));
	snprintf(p, sizeof p, "%s/sweep_mean_wait_policies.order.b.png", dir);
	CU_ASSERT(!tu_exists(p));
	const char *w = "sweep_mean_wait_policies.order.a.dat";
	check_sweep_row(dir, w, "\"policies.order.b=1\"", 0, 1, 30, 0, 1, "1");
	check_sweep_row(dir, w, "\"policies.order.b=1\"", 1, 2, NAN, NAN, 0, "2");
	check_sweep_row(dir, w, "\"policies.order.b=2\"", 12, 13, NAN, NAN, 0, "13");
	remove(path);
}


/* A whole run through the runner with a cohort quota and preemption (the sample
 * trace, research nominal 12 and prod 4 of 16 GPUs): the file's views agree with
 * each other: one decisions row a preemption, as many as the jobs suffered and the
 * summary counts; the queues' busy GPU-hours add up to the summary's busy_gpu_s;
 * shares and Jain's index follow from them. The policy's own choices are not
 * checked here (tests/test_kq.c does). */
static void test_report_run_with_quotas(void)
{
	static const char queue_fmt[] =
		"{\"name\": \"%s\", \"cohort\": \"all\", \"quota\": {\"v100\": {\"gpu\": {\"nominal\": %d, "
		"\"borrowing_limit\": null, \"lending_limit\": null}}}, "
		"\"flavor_order\": [{\"resources\": [\"gpu\"], \"flavors\": [\"v100\"]}], "
		"\"within_queue\": \"LowerPriority\", \"reclaim_within_cohort\": \"Any\", "
		"\"borrow_within_cohort\": null, \"fair_weight\": 1}";
	char qa[600], qb[600], cfg[4096], out_h5[600], args[1400], *out = NULL;
	snprintf(qa, sizeof qa, queue_fmt, "research", 12);
	snprintf(qb, sizeof qb, queue_fmt, "prod", 4);
	snprintf(out_h5, sizeof out_h5, "%s/quota_run.h5", tu_tmpdir());
	snprintf(cfg, sizeof cfg,
		 "{\"name\": \"quota\",\n"
		 " \"trace\": {\"path\": \"%s/traces/data/sample.csv\", \"format\": \"native\"},\n"
		 " \"cluster\": {\"flavors\": [{\"name\": \"v100\", \"nodes\": 2, \"node\": {\"gpu\": 8},"
		 " \"speed\": 1.0, \"price_per_node_hour\": 1.0}]},\n"
		 " \"policies\": {\"order\": \"fifo\",\n"
		 "  \"quota\": {\"name\": \"cohort\", \"cohorts\": [{\"name\": \"all\", \"parent\": null}],"
		 " \"queues\": [%s, %s]},\n"
		 "  \"preemption\": \"classical\", \"fallback\": \"strict\", \"placement\": \"best_fit\"},\n"
		 " \"seeds\": [1], \"output\": \"%s\"}\n",
		 TEST_SOURCE_DIR, qa, qb, out_h5);
	const char *cfg_path = tu_write_file("quota_run.json", cfg);
	snprintf(args, sizeof args, "run %s -q", cfg_path);
	int rc = tu_run_gpusched(args, &out);
	CU_ASSERT_EQUAL(rc, 0);
	if (rc != 0) {
		fprintf(stderr, "\n%s\n", out ? out : "");
		free(out);
		return;
	}
	free(out);

	struct sim_diag d;
	sim_diag_init(&d, 5);
	struct h5read_file *f = NULL;
	CU_ASSERT_EQUAL_FATAL(h5read_open(out_h5, &f, &d), 0);
	CU_ASSERT_STRING_EQUAL(h5read_root_attr(f, "schema_version"), H5OUT_SCHEMA_VERSION);
	const char *run = h5read_run_name(f, 0);
	struct h5read_summary s;
	struct h5read_table q;
	struct h5read_decisions ds;
	struct h5read_jobs j;
	struct h5read_timeseries ts;
	CU_ASSERT_EQUAL_FATAL(h5read_summary(f, &s, &d), 0);
	CU_ASSERT_EQUAL_FATAL(h5read_queues(f, run, &q, &d), 0);
	CU_ASSERT_EQUAL_FATAL(h5read_decisions(f, run, &ds, &d), 0);
	CU_ASSERT_EQUAL_FATAL(h5read_jobs(f, run, &j, &d), 0);
	CU_ASSERT_EQUAL_FATAL(h5read_timeseries(f, run, &ts, &d), 0);
	CU_ASSERT_EQUAL_FATAL(q.n_rows, 2);
	CU_ASSERT_STRING_EQUAL(q.key[0], "research");
	CU_ASSERT_DOUBLE_EQUAL(h5read_table_get(&q, 0, "nominal_gpus"), 12, 0);
	CU_ASSERT_DOUBLE_EQUAL(h5read_table_get(&q, 1, "nominal_gpus"), 4, 0);
	CU_ASSERT(ts.n_queues == 2 && ts.queue_usage && ts.queue_nominal && ts.queue_lent);

	double suffered = 0, caused = 0, busy_h = 0, jobs_pre = 0, jobs_caused = 0, lost = 0;
	for (size_t k = 0; k < q.n_rows; k++) {
		suffered += h5read_table_get(&q, k, "preemptions_suffered");
		caused += h5read_table_get(&q, k, "preemptions_caused");
		busy_h += h5read_table_get(&q, k, "busy_gpu_h");
	}
	for (size_t i = 0; i < j.n; i++) {
		jobs_pre += j.preemptions[i];
		jobs_caused += j.preemptions_caused[i];
		lost += j.lost_gpu_s[i];
	}
	size_t shrinks = 0;
	double lost_d = 0;
	for (size_t i = 0; i < ds.n; i++) {
		shrinks += ds.preemptor[i][0] == 0;
		lost_d += ds.lost_gpu_s[i];
	}
	double preempt = h5read_summary_get(&s, 0, "preemptions");
	CU_ASSERT(preempt > 0); /* research reclaims what prod borrowed */
	CU_ASSERT_DOUBLE_EQUAL(preempt, (double)ds.n, 0);
	CU_ASSERT_DOUBLE_EQUAL(suffered, (double)ds.n, 0);
	CU_ASSERT_DOUBLE_EQUAL(jobs_pre, (double)ds.n, 0);
	CU_ASSERT_DOUBLE_EQUAL(caused, (double)(ds.n - shrinks), 0);
	CU_ASSERT_DOUBLE_EQUAL(jobs_caused, (double)(ds.n - shrinks), 0);
	CU_ASSERT_DOUBLE_EQUAL(lost, lost_d, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(h5read_summary_get(&s, 0, "lost_gpu_s"), lost, 1e-6);
	double busy = h5read_summary_get(&s, 0, "busy_gpu_s"), ms = h5read_summary_get(&s, 0, "makespan_s");
	CU_ASSERT_DOUBLE_EQUAL(busy_h * 3600, busy, 1e-6 * busy);
	double x[2];
	for (size_t k = 0; k < 2; k++) {
		double nom = h5read_table_get(&q, k, "nominal_gpus");
		x[k] = h5read_table_get(&q, k, "busy_gpu_h") * 3600 / (nom * ms);
		CU_ASSERT_DOUBLE_EQUAL(h5read_table_get(&q, k, "share"), x[k], 1e-12);
	}
	CU_ASSERT_DOUBLE_EQUAL(h5read_summary_get(&s, 0, "jain_fairness"),
			       (x[0] + x[1]) * (x[0] + x[1]) / (2 * (x[0] * x[0] + x[1] * x[1])), 1e-12);
	h5read_timeseries_free(&ts);
	h5read_jobs_free(&j);
	h5read_decisions_free(&ds);
	h5read_table_free(&q);
	h5read_summary_free(&s);
	h5read_close(f);
	sim_diag_fini(&d);
}

static CU_TestInfo report_tests[] = {
	{ "test_report_json_parses_back", test_report_json_parses_back },
	{ "test_report_jobs_csv", test_report_jobs_csv },
	{ "test_report_table_aligned", test_report_table_aligned },
	{ "test_report_variant_name", test_report_variant_name },
	{ "test_report_replications_json", test_report_replications_json },
	{ "test_report_replications_table", test_report_replications_table },
	{ "test_report_cdf_points", test_report_cdf_points },
	{ "test_report_cli_json_and_jobs", test_report_cli_json_and_jobs },
	{ "test_report_cli_bad_input", test_report_cli_bad_input },
	{ "test_report_cli_truncated", test_report_cli_truncated },
	{ "test_report_cli_plot", test_report_cli_plot },
	{ "test_report_plot_failure_keeps_old_files", test_report_plot_failure_keeps_old_files },
	{ "test_report_queues_table", test_report_queues_table },
	{ "test_report_decisions_csv", test_report_decisions_csv },
	{ "test_report_queues_json", test_report_queues_json },
	{ "test_report_cli_queues_and_decisions", test_report_cli_queues_and_decisions },
	{ "test_report_options_table", test_report_options_table },
	{ "test_report_options_json", test_report_options_json },
	{ "test_report_cli_options", test_report_cli_options },
	{ "test_report_plot_cost_wait", test_report_plot_cost_wait },
	{ "test_report_plot_file_name", test_report_plot_file_name },
	{ "test_report_plot_many_queues", test_report_plot_many_queues },
	{ "test_report_plot_sweep_numeric", test_report_plot_sweep_numeric },
	{ "test_report_plot_sweep_strings", test_report_plot_sweep_strings },
	{ "test_report_plot_sweep_crowded", test_report_plot_sweep_crowded },
	{ "test_report_run_with_quotas", test_report_run_with_quotas },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo report_suite = { "report", init_report, clean_report, NULL, NULL, report_tests };
