/* tests/test_getopt.c: GNU-style flags of the verbs parsed by getopt_long (run, plot,
 * export, report, explain; compare's are in test_compare):
 * --opt=value, -oVALUE, --output as -o, --quiet, options after the operand, --, and on a
 * usage error exit 2 with the synopsis only (the full text is --help's). */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

static char h5[512];

static int init_getopt(void)
{
	const char *trace = tu_write_file("go_trace.csv", "id,submit_s,duration_s,queue,priority,request\n"
							  "j1,0,100,a,0,v100:gpu=8\n"
							  "j2,10,50,a,0,v100:gpu=8\n");
	char cfg[1024];
	snprintf(cfg, sizeof cfg,
		 "{\"name\": \"go\", \"trace\": {\"path\": \"%s\"},\n"
		 " \"cluster\": {\"flavors\": [{\"name\": \"v100\", \"nodes\": 1, \"node\": {\"gpu\": 8}}]},\n"
		 " \"policies\": {\"order\": \"fifo\"}, \"seeds\": [1], \"output\": \"never.h5\"}\n",
		 trace);
	const char *cfg_path = tu_write_file("go_cfg.json", cfg);
	snprintf(h5, sizeof h5, "%s/go.h5", tu_tmpdir());
	char args[1200], *out = NULL;
	snprintf(args, sizeof args, "run %s -o %s -q", cfg_path, h5);
	int rc = tu_run_gpusched(args, &out);
	free(out);
	return rc == 0 ? 0 : -1;
}
static int clean_getopt(void) { return 0; }

static char argbuf[2048];
/* gpusched with the arguments of a printf format (a literal, so checked). */
#define RUN(outp, ...) (snprintf(argbuf, sizeof argbuf, __VA_ARGS__), tu_run_gpusched(argbuf, outp))

static void test_getopt_plot_forms(void)
{
	char dir[600], *out = NULL;
	/* --output=DIR --quiet, options after the file: nothing printed, plots written */
	snprintf(dir, sizeof dir, "%s/go_p1", tu_tmpdir());
	CU_ASSERT_EQUAL(RUN(&out, "plot %s --output=%s --quiet", h5, dir), 0);
	CU_ASSERT(out && out[0] == '\0');
	free(out);
	char png[700];
	snprintf(png, sizeof png, "%s/wait_cdf.png", dir);
	CU_ASSERT(tu_exists(png));
	/* -oDIR, -q before the file, -- before it */
	snprintf(dir, sizeof dir, "%s/go_p2", tu_tmpdir());
	CU_ASSERT_EQUAL(RUN(&out, "plot -q -o%s -- %s", dir, h5), 0);
	free(out);
	snprintf(png, sizeof png, "%s/wait_cdf.png", dir);
	CU_ASSERT(tu_exists(png));
	/* --format=svg */
	snprintf(dir, sizeof dir, "%s/go_p3", tu_tmpdir());
	CU_ASSERT_EQUAL(RUN(&out, "plot %s -q --format=svg --output %s", h5, dir), 0);
	free(out);
	snprintf(png, sizeof png, "%s/wait_cdf.svg", dir);
	CU_ASSERT(tu_exists(png));
}

static void test_getopt_usage_errors(void)
{
	char *out = NULL;
	/* unknown option: exit 2, the synopsis and a pointer to --help, not the full text */
	CU_ASSERT_EQUAL(RUN(&out, "plot %s --bogus -o %s/go_bad", h5, tu_tmpdir()), 2);
	CU_ASSERT(out && strstr(out, "gpusched plot: unknown option '--bogus'"));
	CU_ASSERT(out && strstr(out, "usage: gpusched plot RESULTS.h5 [B.h5] -o DIR"));
	CU_ASSERT(out && strstr(out, "Try 'gpusched plot --help' for the full text."));
	CU_ASSERT(out && !strstr(out, "exit codes"));
	free(out);
	CU_ASSERT_EQUAL(RUN(&out, "plot %s%s -x", h5, ""), 2);
	CU_ASSERT(out && strstr(out, "unknown option '-x'"));
	free(out);
	CU_ASSERT_EQUAL(RUN(&out, "plot %s%s -o", h5, ""), 2);
	CU_ASSERT(out && strstr(out, "option '-o' needs a value"));
	free(out);
	CU_ASSERT_EQUAL(RUN(&out, "export %s%s --table", h5, ""), 2);
	CU_ASSERT(out && strstr(out, "option '--table' needs a value"));
	CU_ASSERT(out && strstr(out, "Try 'gpusched export --help'"));
	free(out);
	CU_ASSERT_EQUAL(RUN(&out, "export %s --table jobs --table=summary%s", h5, ""), 2);
	CU_ASSERT(out && strstr(out, "option given twice: --table"));
	free(out);
	CU_ASSERT_EQUAL(RUN(&out, "report %s --run%s", h5, ""), 2);
	CU_ASSERT(out && strstr(out, "gpusched report: option '--run' needs a value"));
	CU_ASSERT(out && strstr(out, "Try 'gpusched report --help'"));
	free(out);
	/* --help: the full text, exit 0 */
	CU_ASSERT_EQUAL(tu_run_gpusched("plot --help", &out), 0);
	CU_ASSERT(out && strstr(out, "exit codes") && strstr(out, "-o, --output DIR"));
	free(out);
	CU_ASSERT_EQUAL(tu_run_gpusched("export --help", &out), 0);
	CU_ASSERT(out && strstr(out, "exit codes") && strstr(out, "-o, --output FILE"));
	free(out);
}

static void test_getopt_report_forms(void)
{
	char *out = NULL;
	CU_ASSERT_EQUAL(RUN(&out, "report --run=fifo-s1 --queues -- %s%s", h5, ""), 0);
	CU_ASSERT(out && strstr(out, "run fifo-s1: 1 queue"));
	free(out);
	CU_ASSERT_EQUAL(RUN(&out, "report %s --json --run %s", h5, "fifo-s1"), 0);
	CU_ASSERT(out && strstr(out, "\"fifo-s1\""));
	free(out);
}

static void test_getopt_run_forms(void)
{
	char dst[600], *out = NULL;
	snprintf(dst, sizeof dst, "%s/go_run.h5", tu_tmpdir());
	/* options after the config, --output=, --jobs=, --quiet: the file, nothing printed */
	CU_ASSERT_EQUAL(RUN(&out, "run %s/go_cfg.json --output=%s --jobs=1 --quiet", tu_tmpdir(), dst), 0);
	CU_ASSERT(out && out[0] == '\0');
	free(out);
	CU_ASSERT(tu_exists(dst));
	unlink(dst);
	CU_ASSERT_EQUAL(RUN(&out, "run -q -j1 -o%s -- %s/go_cfg.json", dst, tu_tmpdir()), 0);
	free(out);
	CU_ASSERT(tu_exists(dst));
	CU_ASSERT_EQUAL(RUN(&out, "run %s/go_cfg.json --bogus%s", tu_tmpdir(), ""), 2);
	CU_ASSERT(out && strstr(out, "gpusched run: unknown option '--bogus'"));
	CU_ASSERT(out && strstr(out, "Try 'gpusched run --help'"));
	free(out);
}

static void test_getopt_explain_forms(void)
{
	char *out = NULL;
	CU_ASSERT_EQUAL(RUN(&out, "explain --json -- %s/experiments/scenarios/reclaim-basic.json%s",
			    TEST_SOURCE_DIR, ""), 0);
	CU_ASSERT(out && out[0] == '{');
	free(out);
	CU_ASSERT_EQUAL(RUN(&out, "explain %s/experiments/scenarios/reclaim-basic.json --jsn%s", TEST_SOURCE_DIR,
			    ""), 2);
	CU_ASSERT(out && strstr(out, "gpusched explain: unknown option '--jsn'"));
	CU_ASSERT(out && strstr(out, "Try 'gpusched explain --help'"));
	free(out);
}

static void test_getopt_export_forms(void)
{
	char dst[600], *out = NULL;
	snprintf(dst, sizeof dst, "%s/go_summary.csv", tu_tmpdir());
	CU_ASSERT_EQUAL(RUN(&out, "export --table=summary --output=%s %s", dst, h5), 0);
	free(out);
	char *text = tu_read_file(dst, NULL);
	CU_ASSERT(text && strncmp(text, "run,variant,seed,", 17) == 0);
	free(text);
	snprintf(dst, sizeof dst, "%s/go_jobs.tsv", tu_tmpdir());
	CU_ASSERT_EQUAL(RUN(&out, "export %s --format=tsv --table jobs -o%s", h5, dst), 0);
	free(out);
	text = tu_read_file(dst, NULL);
	CU_ASSERT(text && strncmp(text, "run\tvariant\tseed", 16) == 0);
	free(text);
}

static CU_TestInfo getopt_tests[] = {
	{ "test_getopt_plot_forms", test_getopt_plot_forms },
	{ "test_getopt_usage_errors", test_getopt_usage_errors },
	{ "test_getopt_report_forms", test_getopt_report_forms },
	{ "test_getopt_run_forms", test_getopt_run_forms },
	{ "test_getopt_explain_forms", test_getopt_explain_forms },
	{ "test_getopt_export_forms", test_getopt_export_forms },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo getopt_suite = { "getopt", init_getopt, clean_getopt, NULL, NULL, getopt_tests };
