/* tests/test_plotmore.c: the plots of part 4 drawn where the data exists: queued jobs
 * over time (per variant), GPUs busy per flavor, Jain's index over the queues and the
 * wait CDF of each queue (per run). What gnuplot receives is checked against the
 * file as the project's reader gives it: the .dat's time integrals against the raw
 * series, Jain's index recomputed at each sample, each queue's job count and
 * largest wait; then every image in png, pdf and svg. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/h5read.h"
#include "testutil.h"

/* Two flavors (v100, a100: 8 GPUs each), the sample trace's two queues, no quotas. */
static const char two_cfg[] =
	"{\"name\": \"two\",\n"
	" \"trace\": {\"path\": \"" TEST_SOURCE_DIR "/traces/data/sample.csv\", \"format\": \"native\"},\n"
	" \"cluster\": {\"flavors\": [{\"name\": \"v100\", \"nodes\": 1, \"node\": {\"gpu\": 8}, \"speed\": 1.0},\n"
	"                           {\"name\": \"a100\", \"nodes\": 1, \"node\": {\"gpu\": 8}, \"speed\": 1.5}]},\n"
	" \"policies\": {\"order\": \"fifo\", \"quota\": \"none\", \"preemption\": \"none\", \"fallback\": \"strict\",\n"
	"              \"placement\": \"best_fit\"},\n"
	" \"seeds\": [1], \"output\": \"two.h5\"}\n";

static char two_h5[512];
static struct h5read_file *two;
static struct h5read_timeseries ts;

static int have_gnuplot(void)
{
	return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

static int init_plotmore(void)
{
	snprintf(two_h5, sizeof two_h5, "%s/two.h5", tu_tmpdir());
	const char *cfg = tu_write_file("two.json", two_cfg);
	struct sim_diag d;
	sim_diag_init(&d, 4);
	int r = tu_run_config(cfg, two_h5, NULL) || h5read_open(two_h5, &two, &d) ||
		h5read_timeseries(two, "fifo-s1", &ts, &d);
	sim_diag_fini(&d);
	return r ? -1 : 0;
}

static int clean_plotmore(void)
{
	h5read_timeseries_free(&ts);
	h5read_close(two);
	return 0;
}

/* Plots two_h5 into tu_tmpdir()/DIR once a format; returns the exit code. */
static int plot_into(const char *dir, const char *format)
{
	char args[1500], *out = NULL;
	snprintf(args, sizeof args, "plot %s -o %s/%s -q --format %s", two_h5, tu_tmpdir(), dir, format);
	int rc = tu_run_gpusched(args, &out);
	if (rc)
		fprintf(stderr, "%s", out ? out : "");
	free(out);
	return rc;
}

static char *read_in(const char *dir, const char *file)
{
	char p[1024];
	snprintf(p, sizeof p, "%s/%s/%s", tu_tmpdir(), dir, file);
	return tu_read_file(p, NULL);
}

/* The numeric rows of a .dat: up to cap rows of up to 8 columns; comment, header and
 * blank lines skipped; *blocks counts the quoted block titles. Returns the rows. */
static size_t dat_rows(const char *dat, double rows[][8], size_t cap, int *ncol, int *blocks)
{
	size_t n = 0;
	*blocks = 0;
	for (const char *l = dat; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (*l == '"')
			++*blocks;
		if (*l == '#' || *l == '"' || *l == '\n')
			continue;
		int k = 0, used;
		const char *p = l;
		double x;
		while (k < 8 && *p != '\n' && sscanf(p, "%lf%n", &x, &used) == 1) {
			if (n < cap)
				rows[n][k] = x;
			k++;
			p += used;
		}
		*ncol = k;
		n++;
	}
	return n;
}

/* The integral over time (value x seconds) of series v (stride between samples). */
static double raw_integral(const double *v, size_t stride)
{
	double sum = 0;
	for (size_t k = 0; k + 1 < ts.n; k++)
		sum += v[k * stride] * (ts.t_s[k + 1] - ts.t_s[k]);
	return sum;
}

/* The integral of the plotted steps of column c: each row holds until the next. */
static double dat_integral(double rows[][8], size_t n, int c, double unit_s)
{
	double sum = 0;
	for (size_t k = 0; k + 1 < n; k++)
		sum += rows[k][c] * (rows[k + 1][0] - rows[k][0]) * unit_s;
	return sum;
}

#define MAX_ROWS 4096
static double rows[MAX_ROWS][8];

/* queued_jobs.dat: one block (one variant, one seed); its bucket means keep the
 * queued job-seconds of the raw series; the band is the curve (one seed). */
static void test_plotmore_queued_jobs(void)
{
	if (!have_gnuplot())
		return;
	CU_ASSERT_EQUAL_FATAL(plot_into("png", "png"), 0);
	char *dat = read_in("png", "queued_jobs.dat");
	CU_ASSERT_PTR_NOT_NULL_FATAL(dat);
	int ncol = 0, blocks = 0;
	size_t n = dat_rows(dat, rows, MAX_ROWS, &ncol, &blocks);
	CU_ASSERT_EQUAL(blocks, 1);
	CU_ASSERT_EQUAL(ncol, 5);
	CU_ASSERT(n > 100 && n <= 2000);
	int flat = 1;
	double most = 0;
	for (size_t k = 0; k < n; k++) {
		flat = flat && rows[k][1] == rows[k][2] && rows[k][1] == rows[k][3];
		most = rows[k][1] > most ? rows[k][1] : most;
	}
	CU_ASSERT(flat && most >= 1);
	CU_ASSERT(strstr(dat, "\"fifo\"\n") != NULL);
	/* the time axis is in hours (the run spans 15 h) */
	double want = raw_integral(ts.jobs_queued, 1), got = dat_integral(rows, n, 1, 3600);
	CU_ASSERT_DOUBLE_EQUAL(got, want, 1e-6 * want);
	free(dat);
}

/* flavor_busy_fifo-s1.dat: a column a flavor, named; each keeps its busy GPU-seconds;
 * together they are the run's busy GPUs. */
static void test_plotmore_flavor_busy(void)
{
	if (!have_gnuplot())
		return;
	CU_ASSERT_EQUAL_FATAL(ts.n_flavors, 2);
	char *dat = read_in("png", "flavor_busy_fifo-s1.dat");
	CU_ASSERT_PTR_NOT_NULL_FATAL(dat);
	char head[128];
	snprintf(head, sizeof head, "\n\"time\" \"%s\" \"%s\"\n", ts.flavor_names[0], ts.flavor_names[1]);
	CU_ASSERT(strstr(dat, head) != NULL);
	int ncol = 0, blocks = 0;
	size_t n = dat_rows(dat, rows, MAX_ROWS, &ncol, &blocks);
	CU_ASSERT_EQUAL(ncol, 3);
	CU_ASSERT(n > 100 && n <= 2000);
	for (int k = 0; k < 2; k++) {
		double want = raw_integral(ts.gpus_busy_by_flavor + k, 2), got = dat_integral(rows, n, k + 1, 3600);
		CU_ASSERT(want > 0);
		CU_ASSERT_DOUBLE_EQUAL(got, want, 1e-6 * want);
	}
	double all = raw_integral(ts.gpus_busy, 1);
	CU_ASSERT_DOUBLE_EQUAL(dat_integral(rows, n, 1, 3600) + dat_integral(rows, n, 2, 3600), all, 1e-6 * all);
	free(dat);
	/* a run on one flavor has none (the sweep of the plotfmt suite draws none either) */
}

/* jain_fifo-s1.dat: at every kept sample, (sum x)^2 / (n sum x^2) of the queues' busy
 * GPUs as the reader gives them; samples with nothing running left out. */
static void test_plotmore_jain(void)
{
	if (!have_gnuplot())
		return;
	CU_ASSERT_EQUAL_FATAL(ts.n_queues, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ts.queue_usage);
	char *dat = read_in("png", "jain_fifo-s1.dat");
	CU_ASSERT_PTR_NOT_NULL_FATAL(dat);
	int ncol = 0, blocks = 0;
	size_t n = dat_rows(dat, rows, MAX_ROWS, &ncol, &blocks);
	CU_ASSERT_EQUAL(ncol, 2);
	size_t per = ts.n <= 2000 ? 1 : (ts.n + 1999) / 2000, row = 0, bad = 0;
	for (size_t i = 0; i < ts.n; i += per) {
		double a = ts.queue_usage[2 * i], b = ts.queue_usage[2 * i + 1];
		if (a + b == 0)
			continue;
		double j = (a + b) * (a + b) / (2 * (a * a + b * b));
		if (row >= n || fabs(rows[row][0] - ts.t_s[i] / 3600) > 1e-6 || fabs(rows[row][1] - j) > 1e-7)
			bad++;
		row++;
	}
	CU_ASSERT_EQUAL(row, n);
	CU_ASSERT_EQUAL(bad, 0);
	/* both bounds are reached: one queue alone (1/2) and an even share */
	int half = 0, even = 0;
	for (size_t k = 0; k < n; k++) {
		half += fabs(rows[k][1] - 0.5) < 1e-9;
		even += rows[k][1] > 0.95;
	}
	CU_ASSERT(half > 0 && even > 0);
	free(dat);
}

/* queue_wait_fifo-s1.dat: a block a queue, most jobs first, titled with its started
 * jobs; each rises from 0 to 1 and ends at the queue's largest wait. */
static void test_plotmore_queue_wait(void)
{
	if (!have_gnuplot())
		return;
	struct sim_diag d;
	sim_diag_init(&d, 4);
	struct h5read_jobs j;
	CU_ASSERT_EQUAL_FATAL(h5read_jobs(two, "fifo-s1", &j, &d), 0);
	char *dat = read_in("png", "queue_wait_fifo-s1.dat");
	CU_ASSERT_PTR_NOT_NULL_FATAL(dat);
	const char *queues[] = { "research", "prod" };
	const char *at = dat;
	for (int q = 0; q < 2; q++) {
		size_t started = 0;
		double most = 0;
		for (size_t i = 0; i < j.n; i++)
			if (strcmp(j.queue[i], queues[q]) == 0 && isfinite(j.wait_s[i])) {
				started++;
				most = j.wait_s[i] > most ? j.wait_s[i] : most;
			}
		char title[128], last[128];
		snprintf(title, sizeof title, "\"%s (%zu jobs)\"\n", queues[q], started);
		snprintf(last, sizeof last, "\n%.9g 1\n\n\n", most < 1 ? 1 : most);
		const char *blk = at ? strstr(at, title) : NULL;
		CU_ASSERT_PTR_NOT_NULL_FATAL(blk);
		double x0, f0;
		CU_ASSERT(sscanf(strchr(blk, '\n') + 1, "%lf %lf", &x0, &f0) == 2 && f0 == 0);
		at = strstr(blk, last);
		CU_ASSERT_PTR_NOT_NULL(at);
	}
	free(dat);
	h5read_jobs_free(&j);
	sim_diag_fini(&d);
}

/* Every new image in each format. */
static void test_plotmore_formats(void)
{
	if (!have_gnuplot())
		return;
	static const struct {
		const char *fmt, *magic;
	} want[] = { { "png", "\x89PNG" }, { "pdf", "%PDF" }, { "svg", "<svg" } };
	const char *bases[] = { "queued_jobs", "flavor_busy_fifo-s1", "jain_fifo-s1", "queue_wait_fifo-s1" };
	for (size_t k = 0; k < 3; k++) {
		if (k > 0)
			CU_ASSERT_EQUAL_FATAL(plot_into(want[k].fmt, want[k].fmt), 0);
		for (size_t b = 0; b < 4; b++) {
			char file[128];
			snprintf(file, sizeof file, "%s.%s", bases[b], want[k].fmt);
			char *img = read_in(want[k].fmt, file);
			CU_ASSERT(img && strstr(img, want[k].magic));
			free(img);
		}
	}
}

/* The text of the block titled title (from its title line to the blank lines after
 * it), malloc'd; NULL when absent. */
static char *dat_block(const char *dat, const char *title)
{
	char line[256];
	snprintf(line, sizeof line, "\"%s\"\n", title);
	const char *p = strstr(dat, line), *e = p ? strstr(p, "\n\n\n") : NULL;
	return e ? strndup(p, (size_t)(e - p)) : NULL;
}

/* The sweep overlaid on two_h5 (tests/data/configs/sweep3x2.json), run once; NULL when
 * it cannot be. */
static const char *overlay_sweep(void)
{
	static char sweep[512];
	if (!sweep[0]) {
		snprintf(sweep, sizeof sweep, "%s/sweep.h5", tu_tmpdir());
		if (tu_run_config(TEST_DATA_DIR "/configs/sweep3x2.json", sweep, NULL) != 0) {
			sweep[0] = 0;
			return NULL;
		}
	}
	return sweep;
}

/* gpusched plot A.h5 B.h5: the variants of both files in one plot, each named after
 * its file; B's busy-GPU block is its one-file block (the same samples, the same time
 * unit); three files exit 2. */
static void test_plotmore_overlay(void)
{
	if (!have_gnuplot())
		return;
	char args[2000], *out = NULL;
	const char *sweep = overlay_sweep();
	CU_ASSERT_PTR_NOT_NULL_FATAL(sweep);
	snprintf(args, sizeof args, "plot %s %s -o %s/ov", sweep, two_h5, tu_tmpdir());
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	CU_ASSERT(out && strstr(out, "/ov/overlay_wait_cdf.png\n") && strstr(out, "/ov/overlay_queued_jobs.png\n"));
	free(out);
	const char *files[] = { "overlay_wait_cdf.dat", "overlay_jct_cdf.dat", "overlay_busy_gpus.dat",
				"overlay_queued_jobs.dat" };
	for (size_t k = 0; k < 4; k++) {
		char *dat = read_in("ov", files[k]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(dat);
		int ncol = 0, blocks = 0;
		dat_rows(dat, rows, MAX_ROWS, &ncol, &blocks);
		CU_ASSERT_EQUAL(blocks, 4);
		CU_ASSERT(strstr(dat, "\n\"sweep.h5: 1_easy_backfill (2 seeds)\"\n") &&
			  strstr(dat, "\n\"sweep.h5: 4_easy_backfill (2 seeds)\"\n") && strstr(dat, "\n\"two.h5: fifo\"\n"));
		free(dat);
	}
	char *ov = read_in("ov", "overlay_busy_gpus.dat"), *one = read_in("png", "busy_gpus.dat");
	char *a = ov ? dat_block(ov, "two.h5: fifo") : NULL, *b = one ? dat_block(one, "fifo") : NULL;
	CU_ASSERT(a && b && strcmp(strchr(a, '\n'), strchr(b, '\n')) == 0);
	free(a);
	free(b);
	free(ov);
	free(one);
	snprintf(args, sizeof args, "plot %s %s %s -o %s/ov3", sweep, two_h5, sweep, tu_tmpdir());
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
	free(out);
}


/* The overlay in PDF and SVG: each of its four images in the format asked for, whole
 * (from its signature to its end marker), said on stdout, and no PNG beside them. */
static void test_plotmore_overlay_formats(void)
{
	if (!have_gnuplot())
		return;
	const char *sweep = overlay_sweep();
	CU_ASSERT_PTR_NOT_NULL_FATAL(sweep);
	static const struct {
		const char *fmt, *magic, *end;
	} want[] = { { "pdf", "%PDF-", "%%EOF" }, { "svg", "<svg", "</svg>" } };
	const char *bases[] = { "overlay_wait_cdf", "overlay_jct_cdf", "overlay_busy_gpus", "overlay_queued_jobs" };
	for (size_t k = 0; k < 2; k++) {
		char dir[32], args[2000], *out = NULL;
		snprintf(dir, sizeof dir, "ov_%s", want[k].fmt);
		snprintf(args, sizeof args, "plot %s %s -o %s/%s --format %s", sweep, two_h5, tu_tmpdir(), dir,
			 want[k].fmt);
		CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
		for (size_t b = 0; b < 4; b++) {
			char file[128], line[200];
			snprintf(file, sizeof file, "%s.%s", bases[b], want[k].fmt);
			snprintf(line, sizeof line, "/%s/%s\n", dir, file);
			CU_ASSERT(out && strstr(out, line));
			char p[1024];
			size_t len = 0;
			snprintf(p, sizeof p, "%s/%s/%s", tu_tmpdir(), dir, file);
			char *img = tu_read_file(p, &len);
			CU_ASSERT(img && tu_has_bytes(img, len, want[k].magic) && tu_has_bytes(img, len, want[k].end));
			free(img);
			snprintf(file, sizeof file, "%s.png", bases[b]);
			img = read_in(dir, file);
			CU_ASSERT_PTR_NULL(img);
			free(img);
		}
		if (out && !strstr(out, "overlay_wait_cdf"))
			fprintf(stderr, "\n%s", out);
		free(out);
	}
}

static CU_TestInfo plotmore_tests[] = {
	{ "test_plotmore_queued_jobs", test_plotmore_queued_jobs },
	{ "test_plotmore_flavor_busy", test_plotmore_flavor_busy },
	{ "test_plotmore_jain", test_plotmore_jain },
	{ "test_plotmore_queue_wait", test_plotmore_queue_wait },
	{ "test_plotmore_formats", test_plotmore_formats },
	{ "test_plotmore_overlay", test_plotmore_overlay },
	{ "test_plotmore_overlay_formats", test_plotmore_overlay_formats },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo plotmore_suite = { "plotmore", init_plotmore, clean_plotmore, NULL, NULL, plotmore_tests };
