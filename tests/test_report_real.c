/* tests/test_report_real.c: real-mode results (schema 1.4) in the analysis side:
 * h5read_real on a real and a simulation file, the report's "real mode" block and its
 * JSON object, compare's simulation-against-real line and sim_error column (and their
 * absence between two simulations), and the two real-mode plots.
 *
 * The files are made here, as tests/test_real.c makes them: tests/data/real/preempt.json
 * (4 jobs on 2 GPUs, one preemption) simulated, and run by the cpu executor at time
 * scale 100 (1.7 s of wall time), or longer on a machine too busy for it
 * (tu_real_fixture). What the analysis prints is checked against what the file
 * holds, not against an idle machine's timings.
 */
#include <CUnit/CUnit.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../analysis/compare.h"
#include "../analysis/h5read.h"
#include "../analysis/plot.h"
#include "../analysis/report.h"
#include "../experiments/config.h"
#include "../experiments/runner.h"
#include "../gpu_exec/drv_real.h"
#include "testutil.h"

#define CONFIG TEST_DATA_DIR "/real/preempt.json"
#define RUN "priority-s1"

static char sim_path[4096], real_path[4096];
static double scale; /* the real run's time scale (trace s a wall second) */

static int init_report_real(void)
{
	snprintf(sim_path, sizeof sim_path, "%s/rr_sim.h5", tu_tmpdir());
	snprintf(real_path, sizeof real_path, "%s/rr_real.h5", tu_tmpdir());
	scale = tu_real_fixture(sim_path, real_path);
	return scale > 0 ? 0 : -1;
}

/* The run is paced on the wall clock: its last event (j1's end, 169 trace s) cannot
 * come sooner than 169 s / scale, and the fixture kept a run whose JCTs are within 5%. */
static int wall_plausible(double wall_s)
{
	return wall_s >= 168.0 / scale && wall_s <= 2 * 169.0 / scale + 1;
}

/* The number printed after `label` in text (NaN when absent). */
static double number_after(const char *text, const char *label)
{
	const char *p = text ? strstr(text, label) : NULL;
	return p ? strtod(p + strlen(label), NULL) : NAN;
}

static int clean_report_real(void)
{
	return 0;
}

static struct h5read_file *open_file(const char *path)
{
	struct sim_diag d;
	sim_diag_init(&d, 5);
	struct h5read_file *f = NULL;
	if (h5read_open(path, &f, &d))
		sim_diag_print(&d, stderr);
	sim_diag_fini(&d);
	return f;
}

/* What fn printed, malloc'd; *rc its result. */
static char *capture(int (*fn)(const struct h5read_file *, const char *, FILE *, struct sim_diag *),
		     const struct h5read_file *f, const char *run, int *rc)
{
	struct sim_diag d;
	sim_diag_init(&d, 5);
	/* the stream's buffer pointer on the heap (see tests/test_report.c) */
	struct { char *buf; size_t len; } *cap = calloc(1, sizeof *cap);
	FILE *m = open_memstream(&cap->buf, &cap->len);
	*rc = fn(f, run, m, &d);
	fclose(m);
	char *buf = cap->buf;
	free(cap);
	sim_diag_fini(&d);
	return buf;
}

/* ---- h5read ---- */

static void test_h5read_real(void)
{
	struct h5read_file *rf = open_file(real_path), *sf = open_file(sim_path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rf);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sf);
	struct sim_diag d;
	sim_diag_init(&d, 5);
	CU_ASSERT_STRING_EQUAL(h5read_mode(rf), "real");
	CU_ASSERT_STRING_EQUAL(h5read_mode(sf), "simulation");
	double ts = 0;
	CU_ASSERT_EQUAL(h5read_root_attr_num(rf, "time_scale", &ts, &d), 0);
	CU_ASSERT_DOUBLE_EQUAL(ts, scale, 0);
	CU_ASSERT_EQUAL(h5read_root_attr_num(sf, "time_scale", &ts, &d), 0);
	CU_ASSERT(isnan(ts)); /* a simulation has none */

	struct h5read_real g;
	CU_ASSERT_EQUAL_FATAL(h5read_real(rf, RUN, &g, &d), 0);
	CU_ASSERT_EQUAL(g.present, 1);
	CU_ASSERT_STRING_EQUAL(g.backend, "cpu");
	CU_ASSERT(strncmp(g.device, "cpu: 2 virtual GPUs", 19) == 0);
	CU_ASSERT_DOUBLE_EQUAL(g.time_scale, scale, 0);
	CU_ASSERT(wall_plausible(g.wall_s));
	CU_ASSERT(g.gpu_utilization > 0 && g.gpu_utilization <= 1);
	CU_ASSERT_DOUBLE_EQUAL(g.failed_segments, 0, 0);
	CU_ASSERT_EQUAL_FATAL(g.jobs.n, 4);
	CU_ASSERT_EQUAL_FATAL(g.segments.n, 5); /* j1 twice: preempted, then completed */
	CU_ASSERT_EQUAL(g.n_latencies, 5);      /* a latency a start */
	CU_ASSERT_EQUAL_FATAL(g.calibration.n, 1);
	CU_ASSERT_STRING_EQUAL(g.calibration.flavor[0], "a");
	CU_ASSERT(g.calibration.iter_ns[0] > 0);
	size_t preempted = 0, completed = 0;
	for (size_t i = 0; i < g.segments.n; i++) {
		preempted += strcmp(g.segments.outcome[i], "preempted") == 0;
		completed += strcmp(g.segments.outcome[i], "completed") == 0;
		CU_ASSERT(g.segments.n_gpus[i] == 1);
	}
	CU_ASSERT_EQUAL(preempted, 1);
	CU_ASSERT_EQUAL(completed, 4);
	for (size_t i = 0; i < g.jobs.n; i++) {
		CU_ASSERT(g.jobs.measured_runtime_s[i] > 0);
		/* wall time on the engine's thread, as long as the machine makes it */
		CU_ASSERT(g.jobs.decision_latency_s[i] >= 0 && g.jobs.decision_latency_s[i] <= g.wall_s);
	}
	h5read_real_free(&g);

	/* a simulation file: no group, present 0, no error */
	CU_ASSERT_EQUAL(h5read_real(sf, RUN, &g, &d), 0);
	CU_ASSERT_EQUAL(g.present, 0);
	CU_ASSERT_EQUAL(g.jobs.n, 0);
	CU_ASSERT_EQUAL(g.n_latencies, 0);
	CU_ASSERT(isnan(g.time_scale));
	h5read_real_free(&g);
	h5read_real_free(&g); /* a freed struct frees again */
	CU_ASSERT_EQUAL(d.count, 0);
	CU_ASSERT_EQUAL(h5read_real(sf, "nope", &g, &d), -SIM_ENOENT);
	sim_diag_fini(&d);
	h5read_close(rf);
	h5read_close(sf);
}

/* ---- report ---- */

static void test_report_real_block(void)
{
	struct h5read_file *rf = open_file(real_path), *sf = open_file(sim_path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rf);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sf);
	int rc;
	char *out = capture(report_table, rf, NULL, &rc);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	/* the usual table first, then the block */
	const char *table = strstr(out, "\n" RUN " "), *block = strstr(out, "\nreal mode: run " RUN "\n");
	CU_ASSERT(table && block && table < block);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n  backend:           cpu\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n  device:            cpu: 2 virtual GPUs"));
	char line[128];
	snprintf(line, sizeof line, "\n  time scale:        %g (trace seconds a wall second)\n", scale);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, line));
	/* the file's numbers, in the block's units and precision */
	struct h5read_real g;
	struct h5read_summary sum;
	memset(&sum, 0, sizeof sum);
	struct sim_diag d;
	sim_diag_init(&d, 5);
	CU_ASSERT_EQUAL_FATAL(h5read_real(rf, RUN, &g, &d), 0);
	CU_ASSERT_EQUAL_FATAL(h5read_summary(rf, &sum, &d), 0);
	CU_ASSERT_DOUBLE_EQUAL(number_after(out, "\n  wall time:         "), g.wall_s, 0.0005);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, " s\n  run time error:    "));
	CU_ASSERT_DOUBLE_EQUAL(number_after(out, "\n  run time error:    "),
			       100 * h5read_summary_get(&sum, 0, "runtime_error"), 0.005);
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(out, "% (mean |measured - predicted| / predicted, 4 completed segments)\n"));
	CU_ASSERT_DOUBLE_EQUAL(number_after(out, "\n  decision latency:  p50 "),
			       1e3 * h5read_summary_get(&sum, 0, "decision_latency_p50_s"), 0.0005);
	CU_ASSERT_DOUBLE_EQUAL(number_after(out, " ms, p99 "),
			       1e3 * h5read_summary_get(&sum, 0, "decision_latency_p99_s"), 0.0005);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, " ms (5 starts)\n"));
	h5read_summary_free(&sum);
	h5read_real_free(&g);
	sim_diag_fini(&d);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n  GPU utilization:   "));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n  failed segments:   0\n"));
	free(out);

	/* --run filters the block too; an unknown run prints nothing */
	out = capture(report_table, rf, RUN, &rc);
	CU_ASSERT(rc == 0 && out && strstr(out, "real mode: run " RUN));
	free(out);
	out = capture(report_table, rf, "nope", &rc);
	CU_ASSERT_EQUAL(rc, -SIM_ENOENT);
	CU_ASSERT(!out || !out[0]);
	free(out);

	/* a simulation file prints the table alone */
	out = capture(report_table, sf, NULL, &rc);
	CU_ASSERT(rc == 0 && out && strstr(out, RUN) && !strstr(out, "real mode"));
	free(out);
	h5read_close(rf);
	h5read_close(sf);
}

static void test_report_real_json(void)
{
	struct h5read_file *rf = open_file(real_path), *sf = open_file(sim_path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rf);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sf);
	struct sim_diag d;
	sim_diag_init(&d, 5);
	char *text = NULL;
	CU_ASSERT_EQUAL_FATAL(report_json(rf, NULL, &text, &d), 0);
	cJSON *arr = cJSON_Parse(text);
	CU_ASSERT_FATAL(cJSON_IsArray(arr) && cJSON_GetArraySize(arr) == 1);
	cJSON *o = cJSON_GetArrayItem(arr, 0), *r = cJSON_GetObjectItem(o, "real");
	CU_ASSERT_FATAL(cJSON_IsObject(r));
	CU_ASSERT_STRING_EQUAL(cJSON_GetStringValue(cJSON_GetObjectItem(r, "backend")), "cpu");
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItem(r, "time_scale")), scale, 0);
	const double wall_s = cJSON_GetNumberValue(cJSON_GetObjectItem(r, "wall_s"));
	CU_ASSERT(wall_plausible(wall_s));
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItem(r, "failed_segments")), 0, 0);
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItem(r, "segments")), 5, 0);
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItem(r, "completed_segments")), 4, 0);
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItem(r, "starts")), 5, 0);
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItem(r, "jobs")), 4, 0);
	/* the summary's values, the same numbers */
	const char *same[] = { "runtime_error", "decision_latency_p50_s", "decision_latency_p99_s" };
	for (size_t k = 0; k < 3; k++) {
		cJSON *a = cJSON_GetObjectItem(r, same[k]), *b = cJSON_GetObjectItem(o, same[k]);
		CU_ASSERT(cJSON_IsNumber(a) && cJSON_IsNumber(b));
		CU_ASSERT_DOUBLE_EQUAL(cJSON_GetNumberValue(a), cJSON_GetNumberValue(b), 0);
	}
	double p50 = cJSON_GetNumberValue(cJSON_GetObjectItem(r, "decision_latency_p50_s"));
	double p99 = cJSON_GetNumberValue(cJSON_GetObjectItem(r, "decision_latency_p99_s"));
	CU_ASSERT(p50 > 0 && p50 <= p99 && p99 <= wall_s);
	double util = cJSON_GetNumberValue(cJSON_GetObjectItem(r, "gpu_utilization"));
	CU_ASSERT(util > 0 && util <= 1);
	cJSON *cal = cJSON_GetObjectItem(r, "calibration");
	CU_ASSERT(cJSON_IsArray(cal) && cJSON_GetArraySize(cal) == 1);
	cJSON_Delete(arr);
	free(text);

	/* a simulation's objects have no "real" */
	CU_ASSERT_EQUAL_FATAL(report_json(sf, NULL, &text, &d), 0);
	arr = cJSON_Parse(text);
	CU_ASSERT_FATAL(cJSON_IsArray(arr) && cJSON_GetArraySize(arr) == 1);
	CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(cJSON_GetArrayItem(arr, 0), "real"));
	cJSON_Delete(arr);
	free(text);
	sim_diag_fini(&d);
	h5read_close(rf);
	h5read_close(sf);
}

/* ---- compare ---- */

/* compare_print's text for base vs new, and the result (caller frees both). */
static char *compare_text(const char *base, const char *nw, struct compare_result **res,
			  struct h5read_file *f[2])
{
	f[0] = open_file(base);
	f[1] = open_file(nw);
	*res = NULL;
	if (!f[0] || !f[1])
		return NULL;
	struct sim_diag d;
	sim_diag_init(&d, 5);
	int rc = compare_files(f[0], f[1], NULL, 0, 0, res, &d);
	sim_diag_fini(&d);
	if (rc)
		return NULL;
	struct { char *buf; size_t len; } *cap = calloc(1, sizeof *cap);
	FILE *m = open_memstream(&cap->buf, &cap->len);
	CU_ASSERT_EQUAL(compare_print(*res, m), 0);
	fclose(m);
	char *buf = cap->buf;
	free(cap);
	return buf;
}

static void compare_done(char *text, struct compare_result *res, struct h5read_file *f[2])
{
	free(text);
	compare_result_free(res);
	h5read_close(f[0]);
	h5read_close(f[1]);
}

static int metric_ix(const struct compare_result *r, const char *name)
{
	for (size_t i = 0; i < r->n_metrics; i++)
		if (strcmp(r->metric[i], name) == 0)
			return (int)i;
	return -1;
}

static void test_compare_sim_vs_real(void)
{
	struct h5read_file *f[2];
	struct compare_result *res;
	char *out = compare_text(sim_path, real_path, &res, f);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(res->real_side, COMPARE_REAL_NEW);
	char want[256];
	snprintf(want, sizeof want,
		 "\nBASE is a simulation, NEW a real run (backend cpu, time scale %g): change = real - sim; "
		 "sim error [%%] = (sim - real) / real\n", scale);
	const char *line = strstr(out, want);
	const char *block = strstr(out, "\nvariant priority");
	CU_ASSERT(line && block && line < block); /* before the tables */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "  change[%]  sim_error[%]  change 95% CI\n"));
	/* sim error = (sim - real) / real: here the base is the simulation */
	int k = metric_ix(res, "mean_jct_s");
	CU_ASSERT_FATAL(k >= 0);
	const struct compare_metric_row *m = &res->v[0].m[k];
	CU_ASSERT(isfinite(m->sim_error_pct));
	CU_ASSERT_DOUBLE_EQUAL(m->sim_error_pct, 100.0 * (m->base.mean - m->nw.mean) / m->nw.mean, 1e-9);
	CU_ASSERT(fabs(m->sim_error_pct) < 5); /* test_real.c: JCTs within 5% */
	/* a metric the simulation lacks has no error */
	k = metric_ix(res, "runtime_error");
	CU_ASSERT(k >= 0 && isnan(res->v[0].m[k].sim_error_pct));

	char *json = NULL;
	CU_ASSERT_EQUAL_FATAL(compare_json(res, &json), 0);
	cJSON *o = cJSON_Parse(json);
	cJSON *svr = cJSON_GetObjectItem(o, "sim_vs_real");
	CU_ASSERT_FATAL(cJSON_IsObject(svr));
	CU_ASSERT_STRING_EQUAL(cJSON_GetStringValue(cJSON_GetObjectItem(svr, "real")), "new");
	CU_ASSERT_STRING_EQUAL(cJSON_GetStringValue(cJSON_GetObjectItem(svr, "backend")), "cpu");
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItem(svr, "time_scale")), scale, 0);
	cJSON *v0 = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "variants"), 0);
	cJSON *jm = cJSON_GetObjectItem(cJSON_GetObjectItem(v0, "metrics"), "mean_jct_s");
	cJSON *se = cJSON_GetObjectItem(jm, "sim_error_pct");
	CU_ASSERT_FATAL(cJSON_IsNumber(se));
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetNumberValue(se), m->sim_error_pct, 1e-9);
	cJSON_Delete(o);
	free(json);
	compare_done(out, res, f);

	/* the other way round: the real run is BASE, the error keeps its sign convention */
	out = compare_text(real_path, sim_path, &res, f);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(res->real_side, COMPARE_REAL_BASE);
	snprintf(want, sizeof want,
		 "\nBASE is a real run (backend cpu, time scale %g), NEW a simulation: change = sim - real; "
		 "sim error [%%] = (sim - real) / real\n", scale);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, want));
	k = metric_ix(res, "mean_jct_s");
	CU_ASSERT_FATAL(k >= 0);
	m = &res->v[0].m[k];
	CU_ASSERT_DOUBLE_EQUAL(m->sim_error_pct, 100.0 * (m->nw.mean - m->base.mean) / m->base.mean, 1e-9);
	compare_done(out, res, f);
}

static void test_compare_same_mode_unchanged(void)
{
	struct h5read_file *f[2];
	struct compare_result *res;
	char *out = compare_text(sim_path, sim_path, &res, f);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(res->real_side, COMPARE_SAME_MODE);
	CU_ASSERT_PTR_NULL(strstr(out, "BASE is"));
	CU_ASSERT_PTR_NULL(strstr(out, "sim_error"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "  change[%]  change 95% CI\n"));
	char *json = NULL;
	CU_ASSERT_EQUAL_FATAL(compare_json(res, &json), 0);
	CU_ASSERT_PTR_NULL(strstr(json, "sim_error_pct"));
	CU_ASSERT_PTR_NULL(strstr(json, "sim_vs_real"));
	free(json);
	compare_done(out, res, f);

	/* two real runs are of one mode too */
	out = compare_text(real_path, real_path, &res, f);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(res->real_side, COMPARE_SAME_MODE);
	CU_ASSERT_PTR_NULL(strstr(out, "sim_error"));
	compare_done(out, res, f);

	/* the CLI: exit 0, the line on stdout */
	char args[9000], *cli = NULL;
	snprintf(args, sizeof args, "compare %s %s", sim_path, real_path);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &cli), 0);
	char want[128];
	snprintf(want, sizeof want, "BASE is a simulation, NEW a real run (backend cpu, time scale %g)", scale);
	CU_ASSERT(cli && strstr(cli, want));
	free(cli);
}

/* ---- plot ---- */

static int file_size(const char *dir, const char *name)
{
	char p[8448]; /* dir: a 4200-byte buffer */
	struct stat st;
	snprintf(p, sizeof p, "%s/%s", dir, name);
	return stat(p, &st) == 0 ? (int)(st.st_size > 0) : -1;
}

static void test_plot_real(void)
{
	if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
		fprintf(stderr, "(no gnuplot on PATH: real-mode plot checks skipped) ");
		return;
	}
	char dir[4200], sdir[4200];
	snprintf(dir, sizeof dir, "%s/rr_plots", tu_tmpdir());
	snprintf(sdir, sizeof sdir, "%s/rr_sim_plots", tu_tmpdir());
	struct h5read_file *rf = open_file(real_path), *sf = open_file(sim_path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rf);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sf);
	struct sim_diag d;
	sim_diag_init(&d, 5);
	struct plot_opts o = { .outdir = dir, .quiet = 1 };
	int rc = plot_results(rf, &o, &d);
	if (rc)
		sim_diag_print(&d, stderr);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(file_size(dir, "real_runtime_" RUN ".png"), 1);
	CU_ASSERT_EQUAL(file_size(dir, "real_latency_" RUN ".png"), 1);
	/* one row a completed job (its completing segment): j1's is 79 s */
	char p[4400];
	snprintf(p, sizeof p, "%s/real_runtime_" RUN ".dat", dir);
	char *dat = tu_read_file(p, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dat);
	CU_ASSERT_PTR_NOT_NULL(strstr(dat, "\n\"predicted_s\" \"measured_s\" \"job\"\n"));
	/* j1's row: predicted exactly 79, measured as the fixture kept it (within 2%) */
	const char *j1 = strstr(dat, "\n79 ");
	CU_ASSERT_PTR_NOT_NULL_FATAL(j1);
	char *after = NULL;
	const double measured = strtod(j1 + 4, &after);
	CU_ASSERT_DOUBLE_EQUAL(measured, 79.0, 79.0 * 0.02);
	CU_ASSERT(strncmp(after, " \"j1\"\n", 6) == 0);
	size_t rows = 0;
	for (const char *q = dat; (q = strstr(q, "\"\n")); q += 2)
		rows++;
	CU_ASSERT_EQUAL(rows, 5); /* the header and 4 jobs */
	free(dat);
	/* the CDF: from 0 at the smallest latency to 1, in ms */
	snprintf(p, sizeof p, "%s/real_latency_" RUN ".dat", dir);
	dat = tu_read_file(p, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dat);
	CU_ASSERT_PTR_NOT_NULL(strstr(dat, "decision latency of 5 starts (wall ms)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(dat, " 0\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(dat, " 1\n"));
	free(dat);

	/* a simulation file draws nothing new */
	o.outdir = sdir;
	CU_ASSERT_EQUAL(plot_results(sf, &o, &d), 0);
	CU_ASSERT_EQUAL(file_size(sdir, "wait_cdf.png"), 1);
	CU_ASSERT_EQUAL(file_size(sdir, "real_runtime_" RUN ".png"), -1);
	CU_ASSERT_EQUAL(file_size(sdir, "real_latency_" RUN ".png"), -1);
	sim_diag_fini(&d);
	h5read_close(rf);
	h5read_close(sf);
}

static CU_TestInfo report_real_tests[] = {
	{ "h5read_real: real file and simulation file", test_h5read_real },
	{ "report: real mode block", test_report_real_block },
	{ "report --json: real object", test_report_real_json },
	{ "compare: simulation against real run", test_compare_sim_vs_real },
	{ "compare: same mode as before", test_compare_same_mode_unchanged },
	{ "plot: real-mode plots", test_plot_real },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo report_real_suite = { "report_real", init_report_real, clean_report_real, NULL, NULL,
				   report_real_tests };
