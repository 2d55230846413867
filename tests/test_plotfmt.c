/* tests/test_plotfmt.c: plots for a paper: each variant's seeds drawn as one mean
 * curve with a 95% band (wait and JCT CDFs, busy GPUs), categorical sweep axes as
 * bars, the cost plot only when a price is set, and --format png|pdf|svg. What
 * gnuplot receives is checked in the .dat files (as the report suite does); the
 * images by their signature. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define SWEEP_CONFIG TEST_DATA_DIR "/configs/sweep3x2.json" /* price 24, 3 variants x 2 seeds */

static char priced_h5[512], free_h5[512];

static int have_gnuplot(void)
{
	return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

/* The sweep as configured (priced), and the same with every price 0. */
static int init_plotfmt(void)
{
	snprintf(priced_h5, sizeof priced_h5, "%s/priced.h5", tu_tmpdir());
	snprintf(free_h5, sizeof free_h5, "%s/free.h5", tu_tmpdir());
	char *cfg = tu_read_file(SWEEP_CONFIG, NULL);
	if (!cfg)
		return -1;
	char *p = strstr(cfg, "\"price_per_node_hour\": 24.0"), *t = strstr(cfg, "../../../traces");
	if (!p || !t) {
		free(cfg);
		return -1;
	}
	memcpy(p, "\"price_per_node_hour\": 0   ", strlen("\"price_per_node_hour\": 24.0"));
	/* the copy lives in the temporary folder: its trace path from the source tree */
	char fixed[4096];
	snprintf(fixed, sizeof fixed, "%.*s%s/%s", (int)(t - cfg), cfg, TEST_SOURCE_DIR, t + strlen("../../../"));
	free(cfg);
	const char *free_cfg = tu_write_file("free.json", fixed);
	return tu_run_config(SWEEP_CONFIG, priced_h5, NULL) || tu_run_config(free_cfg, free_h5, NULL) ? -1 : 0;
}

static int clean_plotfmt(void) { return 0; }

static char *plot(const char *h5, const char *dir_name, const char *extra, int *rc)
{
	char args[1500], *out = NULL;
	snprintf(args, sizeof args, "plot %s -o %s/%s %s", h5, tu_tmpdir(), dir_name, extra);
	*rc = tu_run_gpusched(args, &out);
	return out;
}

static char *read_in(const char *dir_name, const char *file)
{
	char p[1024];
	snprintf(p, sizeof p, "%s/%s/%s", tu_tmpdir(), dir_name, file);
	return tu_read_file(p, NULL);
}

static int count_str(const char *s, const char *what)
{
	int n = 0;
	for (const char *p = s; p && (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* One block a variant, titled with its seeds; rows "x mean low high". */
static void test_plotfmt_seeds_averaged(void)
{
	if (!have_gnuplot())
		return;
	int rc;
	free(plot(priced_h5, "avg", "-q", &rc));
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	const char *files[] = { "wait_cdf.dat", "jct_cdf.dat", "busy_gpus.dat" };
	for (size_t k = 0; k < 3; k++) {
		char *dat = read_in("avg", files[k]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(dat);
		CU_ASSERT_EQUAL(count_str(dat, "(2 seeds)\"\n"), 3);
		CU_ASSERT(strstr(dat, "\"1_easy_backfill (2 seeds)\"\n") && strstr(dat, "\"4_easy_backfill (2 seeds)\"\n"));
		CU_ASSERT(!strstr(dat, "-s1\""));
		free(dat);
	}
	/* Both seeds give the same schedule: the band is the curve (low = mean = high),
	 * and each curve ends at 1. */
	char *dat = read_in("avg", "wait_cdf.dat");
	CU_ASSERT_PTR_NOT_NULL_FATAL(dat);
	int rows = 0, flat = 1;
	for (const char *l = dat; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		double x, mean, lo, hi;
		if (sscanf(l, "%lf %lf %lf %lf", &x, &mean, &lo, &hi) == 4) {
			rows++;
			flat = flat && mean == lo && mean == hi && mean >= 0 && mean <= 1;
		}
	}
	CU_ASSERT(rows >= 3 && flat);
	CU_ASSERT_EQUAL(count_str(dat, " 1 1 1\n\n\n"), 3);
	free(dat);
}

/* A categorical swept parameter is drawn as bars: its .dat has positions 0.. and the
 * template draws boxes; the numeric one keeps lines. */
static void test_plotfmt_categorical_bars(void)
{
	if (!have_gnuplot())
		return;
	int rc;
	free(plot(priced_h5, "cat", "-q", &rc));
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	char *dat = read_in("cat", "sweep_mean_wait_policies.order.dat");
	CU_ASSERT(dat && strstr(dat, "\n0 ") && strstr(dat, "\"easy_backfill\""));
	free(dat);
	char *gp = tu_read_file(TEST_SOURCE_DIR "/analysis/sweep_metric.gp", NULL);
	CU_ASSERT(gp && strstr(gp, "with boxes") && strstr(gp, "with yerrorbars"));
	free(gp);
}

/* The cost plot only when some run paid. */
static void test_plotfmt_cost_only_with_prices(void)
{
	if (!have_gnuplot())
		return;
	int rc;
	char *out = plot(priced_h5, "priced", "", &rc);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT(out && strstr(out, "/cost_wait.png\n") && !strstr(out, "no cost plot"));
	/* Overdraw is said, not silent: the sample trace does not depend on the seed. */
	CU_ASSERT(out && strstr(out, "note: every variant's seeds give the same results: no confidence band"));
	CU_ASSERT(out && !strstr(out, "with the same results as an earlier one"));
	free(out);
	out = plot(free_h5, "free", "", &rc);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT(out && !strstr(out, "cost_wait") && strstr(out, "note: no cost plot"));
	free(out);
	char *none = read_in("free", "cost_wait.png");
	CU_ASSERT_PTR_NULL(none);
	free(none);
}

/* A sweep whose variants cannot differ: one node a flavor, so every placement puts
 * each job on the same node. */
static const char ident_cfg[] =
	"{\"name\": \"ident\",\n"
	" \"trace\": {\"path\": \"" TEST_SOURCE_DIR "/traces/data/sample.csv\", \"format\": \"native\"},\n"
	" \"cluster\": {\"flavors\": [{\"name\": \"v100\", \"nodes\": 1, \"node\": {\"gpu\": 8}, \"speed\": 1.0},\n"
	"                           {\"name\": \"a100\", \"nodes\": 1, \"node\": {\"gpu\": 8}, \"speed\": 1.5}]},\n"
	" \"policies\": {\"order\": \"fifo\", \"quota\": \"none\", \"preemption\": \"none\", \"fallback\": \"strict\",\n"
	"              \"placement\": \"best_fit\"},\n"
	" \"seeds\": [1], \"sweep\": {\"policies.placement\": [\"best_fit\", \"first_fit\", \"spread\"]},\n"
	" \"output\": \"ident.h5\"}\n";

/* Identical variants are named, each with the earlier one it hides, and are indeed
 * drawn on top of each other (the same block in wait_cdf.dat); one seed a variant
 * gives no note on seeds; -q says nothing. */
static void test_plotfmt_identical_variants_noted(void)
{
	if (!have_gnuplot())
		return;
	char ident_h5[512];
	snprintf(ident_h5, sizeof ident_h5, "%s/ident.h5", tu_tmpdir());
	CU_ASSERT_EQUAL_FATAL(tu_run_config(tu_write_file("ident.json", ident_cfg), ident_h5, NULL), 0);
	int rc;
	char *out = plot(ident_h5, "ident", "", &rc);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT(out && strstr(out, "note: 2 variants with the same results as an earlier one, drawn on top of it: "
				     "first_fit = best_fit, spread = best_fit\n"));
	CU_ASSERT_EQUAL(count_str(out, "with the same results as an earlier one"), 1);
	CU_ASSERT(out && !strstr(out, "seeds give the same results"));
	if (!out || !strstr(out, "first_fit = best_fit, spread = best_fit"))
		fprintf(stderr, "\n%s", out ? out : "");
	free(out);
	char *dat = read_in("ident", "wait_cdf.dat");
	CU_ASSERT_PTR_NOT_NULL_FATAL(dat);
	const char *names[] = { "\n\"best_fit\"\n", "\n\"first_fit\"\n", "\n\"spread\"\n" };
	const char *at[3];
	for (int k = 0; k < 3; k++) {
		at[k] = strstr(dat, names[k]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(at[k]);
		at[k] += strlen(names[k]);
	}
	const char *end = strstr(at[0], "\n\n\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(end);
	size_t len = (size_t)(end - at[0]);
	CU_ASSERT(len > 10 && strncmp(at[0], at[1], len + 3) == 0 && strncmp(at[0], at[2], len) == 0);
	free(dat);
	out = plot(ident_h5, "ident_q", "-q", &rc);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT(out && !strstr(out, "note:"));
	free(out);
}

/* PNG, PDF and SVG: every image in the format asked for; a bad format exits 2. */
static void test_plotfmt_formats(void)
{
	if (!have_gnuplot())
		return;
	static const struct {
		const char *fmt, *file, *magic;
	} want[] = {
		{ "png", "wait_cdf.png", "\x89PNG" },
		{ "pdf", "busy_gpus.pdf", "%PDF" },
		{ "svg", "jct_cdf.svg", "<svg" },
	};
	for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
		char dir[32], extra[64];
		snprintf(dir, sizeof dir, "fmt_%s", want[k].fmt);
		snprintf(extra, sizeof extra, "--format %s", want[k].fmt);
		int rc;
		char *out = plot(priced_h5, dir, extra, &rc);
		CU_ASSERT_EQUAL(rc, 0);
		char line[64];
		snprintf(line, sizeof line, "/sweep_mean_wait_policies.order.%s\n", want[k].fmt);
		CU_ASSERT(out && strstr(out, line));
		free(out);
		char *img = read_in(dir, want[k].file);
		CU_ASSERT(img && strstr(img, want[k].magic));
		free(img);
	}
	int rc;
	char *out = plot(priced_h5, "fmt_bad", "--format gif", &rc);
	CU_ASSERT_EQUAL(rc, 2);
	CU_ASSERT(out && strstr(out, "unknown --format 'gif'"));
	free(out);
}

static CU_TestInfo plotfmt_tests[] = {
	{ "test_plotfmt_seeds_averaged", test_plotfmt_seeds_averaged },
	{ "test_plotfmt_categorical_bars", test_plotfmt_categorical_bars },
	{ "test_plotfmt_cost_only_with_prices", test_plotfmt_cost_only_with_prices },
	{ "test_plotfmt_identical_variants_noted", test_plotfmt_identical_variants_noted },
	{ "test_plotfmt_formats", test_plotfmt_formats },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo plotfmt_suite = { "plotfmt", init_plotfmt, clean_plotfmt, NULL, NULL, plotfmt_tests };
