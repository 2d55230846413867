/* tests/test_report_html.c: gpusched report RESULTS.h5 --html OUT.html
 * (analysis/report_html.c): the page's structure (self-contained: no script, link or
 * outside file), that its tables hold the file's numbers (read back through the
 * project's reader), the plots inlined, the note without gnuplot, the temporary and
 * scratch folder gone, and bad arguments exiting 2. The rendering in headless
 * Chromium is the ctest report_html_render (tests/report_html_render.sh). */
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "analysis/h5read.h"
#include "outtmp.h"
#include "testutil.h"

#define SWEEP_CONFIG TEST_DATA_DIR "/configs/sweep3x2.json" /* 3 variants x 2 seeds, queues, prices */

static char sweep_h5[512], page_path[512];
static char *page; /* the report of sweep_h5, written once */
static int page_rc;

static int have_gnuplot(void)
{
	return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

static int init_report_html(void)
{
	snprintf(sweep_h5, sizeof sweep_h5, "%s/sweep.h5", tu_tmpdir());
	snprintf(page_path, sizeof page_path, "%s/report.html", tu_tmpdir());
	if (tu_run_config(SWEEP_CONFIG, sweep_h5, NULL))
		return -1;
	char args[1200], *out = NULL;
	snprintf(args, sizeof args, "report %s --html %s", sweep_h5, page_path);
	page_rc = tu_run_gpusched(args, &out);
	free(out);
	page = tu_read_file(page_path, NULL);
	return 0;
}

static int clean_report_html(void)
{
	free(page);
	page = NULL;
	return 0;
}

static int count_str(const char *s, const char *what)
{
	int n = 0;
	for (const char *p = s; p && (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* A whole HTML document that needs nothing outside it. */
static void test_report_html_structure(void)
{
	CU_ASSERT_EQUAL_FATAL(page_rc, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(page);
	CU_ASSERT(strncmp(page, "<!DOCTYPE html>\n<html lang=\"en\">", 31) == 0);
	size_t len = strlen(page);
	CU_ASSERT(len > 8 && strcmp(page + len - 8, "</html>\n") == 0);
	CU_ASSERT(strstr(page, "<title>gpusched report: sweep.h5</title>") != NULL);
	CU_ASSERT(!strstr(page, "<script") && !strstr(page, "<link") && !strstr(page, "<img") &&
		  !strstr(page, "src=") && !strstr(page, "href=\"http") && !strstr(page, "url(http"));
	const char *ids[] = { "id=\"meta-table\"", "id=\"summary-table\"", "id=\"seeds-table\"",
			      "id=\"replications-table\"", "id=\"plots\"", "id=\"queues\"", "id=\"config-json\"" };
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
		CU_ASSERT(strstr(page, ids[i]) != NULL);
	/* the software, its version and the schema, as the file says */
	struct sim_diag d;
	sim_diag_init(&d, 4);
	struct h5read_file *f = NULL;
	CU_ASSERT_EQUAL_FATAL(h5read_open(sweep_h5, &f, &d), 0);
	const char *attrs[] = { "software_version", "schema_version", "created_utc" };
	for (size_t i = 0; i < 3; i++) {
		char cell[256];
		snprintf(cell, sizeof cell, "</th><td>%s</td></tr>", h5read_root_attr(f, attrs[i]));
		CU_ASSERT(strstr(page, cell) != NULL);
	}
	h5read_close(f);
	sim_diag_fini(&d);
	/* no temporary, no scratch folder left beside it */
	CU_ASSERT_EQUAL(count_out_tmps(page_path, NULL), 0);
	DIR *dir = opendir(tu_tmpdir());
	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	struct dirent *e;
	int scratch = 0;
	while ((e = readdir(dir)))
		scratch += strncmp(e->d_name, "report.html.", 12) == 0;
	closedir(dir);
	CU_ASSERT_EQUAL(scratch, 0);
}

/* The row of a run in the summary table, from its first cell to </tr> (malloc'd). */
static char *summary_row(const char *run)
{
	char start[256];
	snprintf(start, sizeof start, "<tr><td class=\"t\">%s</td>", run);
	const char *p = strstr(page, start), *e = p ? strstr(p, "</tr>") : NULL;
	return e ? strndup(p, (size_t)(e - p)) : NULL;
}

/* Every run's row holds the file's numbers, in order, as the text report rounds them;
 * the seeds and the swept values are there. */
static void test_report_html_summary_numbers(void)
{
	CU_ASSERT_PTR_NOT_NULL_FATAL(page);
	struct sim_diag d;
	sim_diag_init(&d, 4);
	struct h5read_file *f = NULL;
	struct h5read_summary s;
	CU_ASSERT_EQUAL_FATAL(h5read_open(sweep_h5, &f, &d), 0);
	CU_ASSERT_EQUAL_FATAL(h5read_summary(f, &s, &d), 0);
	CU_ASSERT_EQUAL(s.n_rows, 6);
	CU_ASSERT_EQUAL(count_str(strstr(page, "id=\"summary-table\""), "<tr><td class=\"t\">") >= 6, 1);
	static const struct {
		const char *field;
		double scale;
		int dec;
	} cols[] = { { "jobs", 1, 0 },        { "completed", 1, 0 },   { "mean_wait_s", 1, 1 },
		     { "p50_wait_s", 1, 1 },  { "p95_wait_s", 1, 1 },  { "p99_wait_s", 1, 1 },
		     { "mean_jct_s", 1, 1 },  { "p95_jct_s", 1, 1 },   { "utilization", 100, 1 },
		     { "mean_bsld", 1, 2 },   { "mean_cost_per_job", 1, 2 } };
	for (size_t r = 0; r < s.n_rows; r++) {
		char *row = summary_row(s.run[r]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(row);
		char cell[128];
		snprintf(cell, sizeof cell, "<tr><td class=\"t\">%s</td><td class=\"t\">%s</td><td>%llu</td>", s.run[r],
			 s.policy[r], (unsigned long long)s.seed[r]);
		CU_ASSERT(strstr(row, cell) != NULL);
		const char *at = row;
		for (size_t k = 0; k < s.n_params && at; k++) {
			snprintf(cell, sizeof cell, "<td class=\"t\">%s</td>", s.param_str[r * s.n_params + k]);
			at = strstr(at, cell);
		}
		CU_ASSERT_PTR_NOT_NULL(at);
		for (size_t c = 0; c < sizeof cols / sizeof cols[0] && at; c++) {
			double x = h5read_summary_get(&s, r, cols[c].field);
			CU_ASSERT_FALSE(isnan(x));
			snprintf(cell, sizeof cell, "<td>%.*f</td>", cols[c].dec, x * cols[c].scale);
			const char *next = strstr(at, cell);
			CU_ASSERT_PTR_NOT_NULL(next);
			at = next ? next + strlen(cell) : NULL;
		}
		free(row);
	}
	/* every variant of the sweep ran seeds 1 and 2; both seeds agree: ± 0 */
	CU_ASSERT_EQUAL(count_str(page, "<td>2</td><td class=\"t\">1, 2</td>"), 3);
	CU_ASSERT(strstr(page, "<td class=\"t\">1_easy_backfill</td><td>2</td><td>") != NULL);
	CU_ASSERT(strstr(page, " ± 0.0</td>") != NULL);
	h5read_summary_free(&s);
	h5read_close(f);
	sim_diag_fini(&d);
}

/* One per-queue table a run, each queue's numbers as the file has them. */
static void test_report_html_queue_numbers(void)
{
	CU_ASSERT_PTR_NOT_NULL_FATAL(page);
	struct sim_diag d;
	sim_diag_init(&d, 4);
	struct h5read_file *f = NULL;
	CU_ASSERT_EQUAL_FATAL(h5read_open(sweep_h5, &f, &d), 0);
	const char *queues = strstr(page, "<h2 id=\"queues\">");
	CU_ASSERT_PTR_NOT_NULL_FATAL(queues);
	for (size_t i = 0; i < h5read_n_runs(f); i++) {
		const char *run = h5read_run_name(f, i);
		struct h5read_table t;
		CU_ASSERT_EQUAL_FATAL(h5read_queues(f, run, &t, &d), 0);
		CU_ASSERT_FATAL(t.present && t.n_rows > 0);
		char head[256], cell[256];
		snprintf(head, sizeof head, "<h3>run %s: %zu queue%s</h3>", run, t.n_rows, t.n_rows == 1 ? "" : "s");
		const char *block = strstr(queues, head);
		CU_ASSERT_PTR_NOT_NULL_FATAL(block);
		for (size_t q = 0; q < t.n_rows; q++) {
			snprintf(cell, sizeof cell, "<tr><td class=\"t\">%s</td>", t.key[q]);
			const char *at = strstr(block, cell);
			CU_ASSERT_PTR_NOT_NULL_FATAL(at);
			double nominal = h5read_table_get(&t, q, "nominal_gpus"), jobs = h5read_table_get(&t, q, "jobs");
			double wait = h5read_table_get(&t, q, "mean_wait_s");
			if (isnan(nominal))
				snprintf(cell, sizeof cell, "<td>-</td><td>%.0f</td><td>", jobs);
			else
				snprintf(cell, sizeof cell, "<td>%.1f</td><td>%.0f</td><td>", nominal, jobs);
			CU_ASSERT(strncmp(at + strlen("<tr><td class=\"t\">") + strlen(t.key[q]) + 5, cell, strlen(cell)) == 0);
			snprintf(cell, sizeof cell, "<td>%.1f</td>", wait);
			CU_ASSERT(strstr(at, cell) != NULL);
		}
		h5read_table_free(&t);
	}
	h5read_close(f);
	sim_diag_fini(&d);
}

/* The plots of gpusched plot, each an inline <svg> without its XML prologue; the
 * config as JSON. */
static void test_report_html_plots_and_config(void)
{
	CU_ASSERT_PTR_NOT_NULL_FATAL(page);
	if (have_gnuplot()) {
		int figs = count_str(page, "<figure>\n<svg");
		CU_ASSERT(figs >= 4);
		CU_ASSERT_EQUAL(figs, count_str(page, "</svg>"));
		CU_ASSERT_EQUAL(count_str(page, "<?xml"), 0);
		const char *order[] = { "<figcaption>wait_cdf.svg</figcaption>", "<figcaption>jct_cdf.svg</figcaption>",
					"<figcaption>busy_gpus.svg</figcaption>" };
		const char *at = page;
		for (size_t i = 0; i < 3 && at; i++)
			at = strstr(at, order[i]);
		CU_ASSERT_PTR_NOT_NULL(at);
	} else {
		fprintf(stderr, "(no gnuplot on PATH: plot checks skipped) ");
	}
	const char *cfg = strstr(page, "<pre id=\"config-json\">");
	CU_ASSERT(cfg && strstr(cfg, "&quot;sweep&quot;") && strstr(cfg, "</pre>"));
}

/* Without gnuplot the page is still written, with a note where the plots would be. */
static void test_report_html_without_gnuplot(void)
{
	const char *out = tu_tmp_path("nognuplot.html");
	char cmd[1600];
	snprintf(cmd, sizeof cmd, "env PATH=/nonexistent %s report %s --html %s 2>&1", GPUSCHED_BIN, sweep_h5, out);
	FILE *pp = popen(cmd, "r");
	CU_ASSERT_FATAL(pp != NULL);
	char msg[1024] = "";
	size_t got = fread(msg, 1, sizeof msg - 1, pp);
	msg[got] = 0;
	int st = pclose(pp);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CU_ASSERT(strstr(msg, "has no plots") != NULL);
	char *p = tu_read_file(out, NULL);
	CU_ASSERT(p && strstr(p, "<p class=\"note\">No plots: ") && strstr(p, "gnuplot not found") &&
		  !strstr(p, "<svg") && strstr(p, "id=\"summary-table\""));
	free(p);
}

static int report_rc(const char *args, char **msg)
{
	size_t n = strlen("report ") + strlen(args) + 1;
	char *full = malloc(n);
	CU_ASSERT_FATAL(full != NULL);
	snprintf(full, n, "report %s", args);
	int rc = tu_run_gpusched(full, msg);
	free(full);
	return rc;
}

/* Bad arguments exit 2 and write nothing; the results file is never overwritten. */
static void test_report_html_bad_args(void)
{
	char args[1600], *msg = NULL;
	const char *out = tu_tmp_path("bad.html");
	snprintf(args, sizeof args, "%s --html", sweep_h5);
	CU_ASSERT_EQUAL(report_rc(args, &msg), 2);
	free(msg);
	snprintf(args, sizeof args, "%s --html %s --json", sweep_h5, out);
	CU_ASSERT_EQUAL(report_rc(args, &msg), 2);
	CU_ASSERT(msg && strstr(msg, "--html cannot be combined"));
	free(msg);
	snprintf(args, sizeof args, "%s --html %s --run 1_easy_backfill-s1", sweep_h5, out);
	CU_ASSERT_EQUAL(report_rc(args, &msg), 2);
	free(msg);
	snprintf(args, sizeof args, "%s/none.h5 --html %s", tu_tmpdir(), out);
	CU_ASSERT_EQUAL(report_rc(args, &msg), 2);
	free(msg);
	CU_ASSERT_FALSE(tu_exists(out));
	/* the output naming the input, or a folder */
	struct stat before, after;
	CU_ASSERT_EQUAL_FATAL(stat(sweep_h5, &before), 0);
	snprintf(args, sizeof args, "%s --html %s", sweep_h5, sweep_h5);
	CU_ASSERT_EQUAL(report_rc(args, &msg), 2);
	CU_ASSERT(msg && strstr(msg, "would overwrite input"));
	free(msg);
	CU_ASSERT_EQUAL_FATAL(stat(sweep_h5, &after), 0);
	CU_ASSERT(before.st_size == after.st_size && before.st_mtime == after.st_mtime);
	snprintf(args, sizeof args, "%s --html %s", sweep_h5, tu_tmpdir());
	CU_ASSERT_EQUAL(report_rc(args, &msg), 2);
	free(msg);
	/* not a results file */
	const char *junk = tu_write_file("junk.h5", "not hdf5\n");
	snprintf(args, sizeof args, "%s --html %s", junk, out);
	CU_ASSERT_EQUAL(report_rc(args, &msg), 2);
	free(msg);
	CU_ASSERT_FALSE(tu_exists(out));
	CU_ASSERT_EQUAL(count_out_tmps(out, NULL), 0);
}

/* A file of the previous schema (1.4: no swept-value columns, variants from the run
 * names) gives the same page, its runs in the summary table. */
static void test_report_html_schema14(void)
{
	const char *old = TEST_DATA_DIR "/results/schema14_sweep.h5", *out = tu_tmp_path("old.html");
	char args[1200], *msg = NULL;
	snprintf(args, sizeof args, "report %s --html %s", old, out);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &msg), 0);
	free(msg);
	char *p = tu_read_file(out, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT(strstr(p, "<tr><th>schema version</th><td>1.4</td></tr>") != NULL);
	struct sim_diag d;
	sim_diag_init(&d, 4);
	struct h5read_file *f = NULL;
	CU_ASSERT_EQUAL_FATAL(h5read_open(old, &f, &d), 0);
	for (size_t i = 0; i < h5read_n_runs(f); i++) {
		char row[256];
		snprintf(row, sizeof row, "<tr><td class=\"t\">%s</td>", h5read_run_name(f, i));
		CU_ASSERT(strstr(p, row) != NULL);
	}
	h5read_close(f);
	sim_diag_fini(&d);
	free(p);
}

static CU_TestInfo report_html_tests[] = {
	{ "test_report_html_structure", test_report_html_structure },
	{ "test_report_html_summary_numbers", test_report_html_summary_numbers },
	{ "test_report_html_queue_numbers", test_report_html_queue_numbers },
	{ "test_report_html_plots_and_config", test_report_html_plots_and_config },
	{ "test_report_html_without_gnuplot", test_report_html_without_gnuplot },
	{ "test_report_html_bad_args", test_report_html_bad_args },
	{ "test_report_html_schema14", test_report_html_schema14 },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo report_html_suite = { "report_html", init_report_html, clean_report_html, NULL, NULL,
				   report_html_tests };
