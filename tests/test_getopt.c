/* tests/test_getopt.c: GNU-style flags of the verbs parsed by getopt_long (run, plot,
 * export, report, explain, trace validate|stats|import|gen, cluster import, config import,
 * plan, real; compare's are in test_compare):
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

/* A usage error of VERB: exit 2 with MSG, the synopsis SYN and the pointer to --help, not
 * the full text (its "exit codes" line). */
static void check_usage_error(int rc, char *out, const char *verb, const char *msg, const char *syn)
{
	char want[256];
	CU_ASSERT_EQUAL(rc, 2);
	snprintf(want, sizeof want, "gpusched %s: %s", verb, msg);
	CU_ASSERT(out && strstr(out, want));
	CU_ASSERT(out && strstr(out, syn));
	snprintf(want, sizeof want, "Try 'gpusched %s --help' for the full text.", verb);
	CU_ASSERT(out && strstr(out, want));
	CU_ASSERT(out && !strstr(out, "exit codes"));
	if (rc != 2 || !out || !strstr(out, msg))
		fprintf(stderr, "\n%s: %s\n", verb, out ? out : "(no output)");
	free(out);
}

/* --help: exit 0 and the full text, naming WHAT. */
static void check_help(const char *args, const char *what)
{
	char *out = NULL;
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	CU_ASSERT(out && strstr(out, "exit codes") && strstr(out, what));
	free(out);
}

static void test_getopt_trace_forms(void)
{
	char *out = NULL, dst[600];
	const char *tr = tu_tmp_path("go_trace.csv");
	/* validate: -- before the file; an unknown option after it */
	CU_ASSERT_EQUAL(RUN(&out, "trace validate -- %s%s", tr, ""), 0);
	CU_ASSERT(out && strstr(out, ": 2 jobs OK"));
	free(out);
	int rc = RUN(&out, "trace validate %s --bogus%s", tr, "");
	check_usage_error(rc, out, "trace validate", "unknown option '--bogus'", "usage: gpusched trace validate FILE");
	check_help("trace validate --help", "usage: gpusched trace validate FILE");
	/* stats: --json after the file */
	CU_ASSERT_EQUAL(RUN(&out, "trace stats %s --json%s", tr, ""), 0);
	CU_ASSERT(out && out[0] == '{' && strstr(out, "\"jobs\":"));
	free(out);
	rc = RUN(&out, "trace stats -x %s%s", tr, "");
	check_usage_error(rc, out, "trace stats", "unknown option '-x'", "usage: gpusched trace stats FILE");
	check_help("trace stats -h", "--json");
	/* import: --format=, --output=, options after IN; -oFILE */
	const char *swf = tu_write_file("go.swf", "1 100 5 3600 8 -1 -1 8 7200 -1 1 3 1 -1 2 -1 -1 -1\n"
						  "2 150 -1 120 4 -1 -1 4 600 -1 1 5 1 -1 2 -1 -1 -1\n");
	snprintf(dst, sizeof dst, "%s/go_imp.csv", tu_tmpdir());
	CU_ASSERT_EQUAL(RUN(&out, "trace import %s --format=swf --output=%s --top-queues=1", swf, dst), 0);
	CU_ASSERT(out && strstr(out, "2 rows in, 2 jobs out"));
	free(out);
	CU_ASSERT(tu_exists(dst));
	unlink(dst);
	CU_ASSERT_EQUAL(RUN(&out, "trace import --format swf -o%s -- %s", dst, swf), 0);
	free(out);
	CU_ASSERT(tu_exists(dst));
	rc = RUN(&out, "trace import %s --format swf -o %s --skip-bad --nope", swf, dst);
	check_usage_error(rc, out, "trace import", "unknown option '--nope'", "usage: gpusched trace import --format");
	rc = RUN(&out, "trace import %s -o %s --format", swf, dst);
	check_usage_error(rc, out, "trace import", "option '--format' needs a value", "[--queue-from");
	check_help("trace import --help", "-o, --output OUT.csv");
	/* gen: --seed=, --output=, options after the config; -oFILE */
	const char *gcfg = tu_write_file("go_gen.json", "{\"jobs\": 5, \"seed\": 1, \"arrivals\": {\"rate_per_h\": 60},"
							"\"durations\": {\"law\": \"lognormal\", \"median_s\": 60, "
							"\"sigma\": 1}, \"gpus\": {\"values\": [1]}}");
	snprintf(dst, sizeof dst, "%s/go_gen.csv", tu_tmpdir());
	CU_ASSERT_EQUAL(RUN(&out, "trace gen %s --seed=7 --output=%s", gcfg, dst), 0);
	CU_ASSERT(out && strstr(out, "5 jobs (seed 7)"));
	free(out);
	CU_ASSERT(tu_exists(dst));
	CU_ASSERT_EQUAL(RUN(&out, "trace gen -o%s -- %s", dst, gcfg), 0);
	CU_ASSERT(out && strstr(out, "5 jobs (seed 1)"));
	free(out);
	rc = RUN(&out, "trace gen %s -o %s --sed 3", gcfg, dst);
	check_usage_error(rc, out, "trace gen", "unknown option '--sed'", "usage: gpusched trace gen CONFIG.json");
	check_help("trace gen --help", "-o, --output OUT.csv");
}

static void test_getopt_cluster_forms(void)
{
	char *out = NULL, dst[600];
	const char *vc = tu_write_file("go_vc.csv", "vc,node num\nteamA,3\nteamB,5\n");
	snprintf(dst, sizeof dst, "%s/go_cluster.json", tu_tmpdir());
	/* IN first, then --format= and --output= */
	CU_ASSERT_EQUAL(RUN(&out, "cluster import %s --format=philly-vc --output=%s", vc, dst), 0);
	free(out);
	char *text = tu_read_file(dst, NULL);
	CU_ASSERT(text && strstr(text, "\"nodes\":\t8"));
	free(text);
	unlink(dst);
	CU_ASSERT_EQUAL(RUN(&out, "cluster import --format philly-vc -o%s -- %s", dst, vc), 0);
	free(out);
	CU_ASSERT(tu_exists(dst));
	int rc = RUN(&out, "cluster import %s --format philly-vc --bogus%s", vc, "");
	check_usage_error(rc, out, "cluster import", "unknown option '--bogus'", "usage: gpusched cluster import --format");
	check_help("cluster import --help", "-o, --output OUT.json");
}

static void test_getopt_config_forms(void)
{
	char *out = NULL, dst[600];
	snprintf(dst, sizeof dst, "%s/go_quota.json", tu_tmpdir());
	/* FILE first, then --format= and --output= */
	CU_ASSERT_EQUAL(RUN(&out, "config import %s/kueue/cohort-quota.yaml --format=kueue --output=%s", TEST_DATA_DIR,
			    dst), 0);
	free(out);
	char *text = tu_read_file(dst, NULL);
	CU_ASSERT(text && strstr(text, "\"hello-cohort\""));
	free(text);
	unlink(dst);
	CU_ASSERT_EQUAL(RUN(&out, "config import --format kueue -o%s -- %s/kueue/cohort-quota.yaml", dst,
			    TEST_DATA_DIR), 0);
	free(out);
	CU_ASSERT(tu_exists(dst));
	int rc = RUN(&out, "config import %s/kueue/cohort-quota.yaml --format kueue --bogus%s", TEST_DATA_DIR, "");
	check_usage_error(rc, out, "config import", "unknown option '--bogus'", "usage: gpusched config import --format");
	check_help("config import --help", "-o, --output OUT");
}

static void test_getopt_plan_forms(void)
{
	char *out = NULL, csv[600];
	snprintf(csv, sizeof csv, "%s/go_plan.csv", tu_tmpdir());
	/* the config first, then --opt=VALUE and --output= */
	CU_ASSERT_EQUAL(RUN(&out, "plan %s/go_cfg.json --target='mean_wait_s<=1000' --vary=cluster.flavors[0].nodes "
			    "--range=1:2 --seeds=1 --output=%s", tu_tmpdir(), csv), 0);
	CU_ASSERT(out && strstr(out, "answer: cluster.flavors[0].nodes = 1"));
	free(out);
	CU_ASSERT(tu_exists(csv));
	unlink(csv);
	CU_ASSERT_EQUAL(RUN(&out, "plan --target 'mean_wait_s<=1000' --vary cluster.flavors[0].nodes --range 1:2 -o%s "
			    "-- %s/go_cfg.json", csv, tu_tmpdir()), 0);
	free(out);
	CU_ASSERT(tu_exists(csv));
	int rc = RUN(&out, "plan %s/go_cfg.json --target 'mean_wait_s<=1' --vary x --range 1:2 --bogus%s", tu_tmpdir(),
		     "");
	check_usage_error(rc, out, "plan", "unknown option '--bogus'", "usage: gpusched plan CONFIG.json --target");
	check_help("plan --help", "-o, --output CURVE.csv");
}

static void test_getopt_real_forms(void)
{
	char *out = NULL, dst[600];
	snprintf(dst, sizeof dst, "%s/go_real.h5", tu_tmpdir());
	/* the config first, then --opt=VALUE, --output= and --quiet: nothing printed */
	CU_ASSERT_EQUAL(RUN(&out, "real %s/go_cfg.json --backend=cpu --time-scale=1000 --output=%s --quiet", tu_tmpdir(),
			    dst), 0);
	CU_ASSERT(out && out[0] == '\0');
	free(out);
	CU_ASSERT(tu_exists(dst));
	unlink(dst);
	CU_ASSERT_EQUAL(RUN(&out, "real -q --backend cpu --time-scale 1000 -o%s -- %s/go_cfg.json", dst, tu_tmpdir()), 0);
	free(out);
	CU_ASSERT(tu_exists(dst));
	int rc = RUN(&out, "real %s/go_cfg.json --backend cpu --bogus%s", tu_tmpdir(), "");
	check_usage_error(rc, out, "real", "unknown option '--bogus'", "usage: gpusched real CONFIG.json --backend");
	check_help("real --help", "-q, --quiet");
}

static CU_TestInfo getopt_tests[] = {
	{ "test_getopt_plot_forms", test_getopt_plot_forms },
	{ "test_getopt_usage_errors", test_getopt_usage_errors },
	{ "test_getopt_report_forms", test_getopt_report_forms },
	{ "test_getopt_run_forms", test_getopt_run_forms },
	{ "test_getopt_explain_forms", test_getopt_explain_forms },
	{ "test_getopt_export_forms", test_getopt_export_forms },
	{ "test_getopt_trace_forms", test_getopt_trace_forms },
	{ "test_getopt_cluster_forms", test_getopt_cluster_forms },
	{ "test_getopt_config_forms", test_getopt_config_forms },
	{ "test_getopt_plan_forms", test_getopt_plan_forms },
	{ "test_getopt_real_forms", test_getopt_real_forms },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo getopt_suite = { "getopt", init_getopt, clean_getopt, NULL, NULL, getopt_tests };
