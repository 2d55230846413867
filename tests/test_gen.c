/* tests/test_gen.c: the workload generator (traces/gen.h, `gpusched trace gen`).
 *
 * Statistical checks run on fixed seeds, so they are deterministic; the tolerances are the
 * ones a correct generator passes with high probability for any seed:
 *   - durations and inter-arrival times: one-sample Kolmogorov-Smirnov against the law's
 *     CDF, n = 20000, D below the 0.1% critical value 1.95 / sqrt(n) = 0.0138;
 *   - empirical resampling: KS against the source's step CDF (same bound; conservative for
 *     a discrete law), and the p10..p99 quantiles of the draws between the source's
 *     quantiles at p -/+ 0.02 (DKW: P(sup |F_n - F| > 0.02) <= 2 exp(-2 n 0.02^2) = 2e-7);
 *   - diurnal swing and bursts: counts per bin within 4 Poisson sigmas of the integral of
 *     the rate over the bin;
 *   - discrete mixes: each count within 3 binomial sigmas of n x weight / sum.
 */
#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>

#include "cli/cmd.h"
#include "sim/job.h"
#include "testutil.h"
#include "traces/gen.h"
#include "traces/native.h"

int cmd_trace_gen(int argc, char **argv); /* cli/cmd_trace_gen.c */

static int init_gen(void)
{
	return 0;
}
static int clean_gen(void)
{
	return 0;
}

#define N_KS 20000
#define TWO_PI 6.283185307179586

/* The config from JSON text; NULL (and the diag printed) on error. */
static struct gen_config *config(const char *json)
{
	struct gen_config *c = NULL;
	struct sim_diag d;

	sim_diag_init(&d, 20);
	if (gen_config_parse("t.json", NULL, json, strlen(json), &c, &d))
		sim_diag_print(&d, stderr);
	sim_diag_fini(&d);
	return c;
}

/* Every job of the config (at most max); returns the count. */
static size_t draw_all(const struct gen_config *c, struct gen_job *jobs, size_t max)
{
	struct gen *g = NULL;
	size_t n = 0;

	CU_ASSERT_EQUAL_FATAL(gen_create(c, &g), 0);
	while (n < max && gen_next(g, &jobs[n]) == 1)
		n++;
	gen_destroy(g);
	return n;
}

typedef double (*cdf_fn)(double x, const double *par);

/* One-sample KS statistic D = sup |F_n - F| of x[0..n) (sorted here) against cdf. */
static double ks_stat(double *x, size_t n, cdf_fn cdf, const double *par)
{
	double d = 0.0;

	gsl_sort(x, 1, n);
	for (size_t i = 0; i < n; i++) {
		double f = cdf(x[i], par);
		double lo = f - (double)i / (double)n, hi = (double)(i + 1) / (double)n - f;
		if (lo > d)
			d = lo;
		if (hi > d)
			d = hi;
	}
	return d;
}

static double cdf_lognormal(double x, const double *p)
{
	return gsl_cdf_lognormal_P(x, p[0], p[1]);
}
static double cdf_weibull(double x, const double *p)
{
	return gsl_cdf_weibull_P(x, p[0], p[1]);
}
static double cdf_exponential(double x, const double *p)
{
	return gsl_cdf_exponential_P(x, p[0]);
}

static double ks_critical(size_t n)
{
	return 1.95 / sqrt((double)n);
}

/* GEN_TEST_VERBOSE=1 prints each statistic beside its bound. */
static void note(const char *what, double value, double bound)
{
	if (getenv("GEN_TEST_VERBOSE"))
		fprintf(stderr, "\n  %s: %.5f (bound %.5f)", what, value, bound);
}

/* KS of the drawn durations of `json` (N_KS jobs) against cdf(par). */
static double durations_ks(const char *json, cdf_fn cdf, const double *par)
{
	struct gen_config *c = config(json);
	struct gen_job *jobs = malloc(N_KS * sizeof *jobs);
	double *x = malloc(N_KS * sizeof *x), d;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL_FATAL(draw_all(c, jobs, N_KS), N_KS);
	for (size_t i = 0; i < N_KS; i++)
		x[i] = jobs[i].duration_s;
	d = ks_stat(x, N_KS, cdf, par);
	free(x);
	free(jobs);
	gen_config_destroy(c);
	return d;
}

static void test_gen_lognormal_ks(void)
{
	const double par[2] = {log(1200.0), 1.5};
	double d =
	    durations_ks("{\"jobs\": 20000, \"seed\": 7, \"arrivals\": {\"rate_per_h\": 60},"
			 "\"durations\": {\"law\": \"lognormal\", \"median_s\": 1200, \"sigma\": 1.5}}",
			 cdf_lognormal, par);
	note("lognormal KS D", d, ks_critical(N_KS));
	CU_ASSERT(d < ks_critical(N_KS));
	/* The check has power: the same draws against a 10% larger median fail it. */
	const double off[2] = {log(1320.0), 1.5};
	CU_ASSERT(durations_ks("{\"jobs\": 20000, \"seed\": 7, \"arrivals\": {\"rate_per_h\": 60},"
			       "\"durations\": {\"law\": \"lognormal\", \"median_s\": 1200, \"sigma\": 1.5}}",
			       cdf_lognormal, off) > ks_critical(N_KS));
}

static void test_gen_weibull_ks(void)
{
	const double par[2] = {3600.0, 0.7}; /* GSL: scale a, shape b */
	double d = durations_ks("{\"jobs\": 20000, \"seed\": 11, \"arrivals\": {\"rate_per_h\": 60},"
				"\"durations\": {\"law\": \"weibull\", \"shape\": 0.7, \"scale_s\": 3600}}",
				cdf_weibull, par);
	note("weibull KS D", d, ks_critical(N_KS));
	CU_ASSERT(d < ks_critical(N_KS));
}

/* cap_s: nothing above it, and the mass above it lands on it. */
static void test_gen_cap(void)
{
	struct gen_config *c = config("{\"jobs\": 5000, \"arrivals\": {\"rate_per_h\": 60},"
				      "\"durations\": {\"law\": \"lognormal\", \"median_s\": 1200, "
				      "\"sigma\": 1.5, \"cap_s\": 3600}}");
	struct gen_job *jobs = malloc(5000 * sizeof *jobs);
	size_t at_cap = 0, above = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL_FATAL(draw_all(c, jobs, 5000), 5000);
	for (size_t i = 0; i < 5000; i++) {
		above += jobs[i].duration_ms > 3600000;
		at_cap += jobs[i].duration_ms == 3600000;
	}
	CU_ASSERT_EQUAL(above, 0);
	/* P(D > 3600) = Q(ln 3 / 1.5) = 0.232: 1160 expected, sigma 30. */
	CU_ASSERT(at_cap > 1000 && at_cap < 1320);
	free(jobs);
	gen_config_destroy(c);
}

/* Source quantile at p (lower: the value at rank ceil(p m) of the sorted source). */
static double quantile(const double *s, size_t m, double p)
{
	size_t k = (size_t)ceil(p * (double)m);

	if (k < 1)
		k = 1;
	if (k > m)
		k = m;
	return s[k - 1];
}

static void test_gen_empirical(void)
{
	/* 400 jobs: durations 7 x (1..300) s plus 100 long ones of 5000..5099 s. */
	size_t m = 400, cap = 64 * 400;
	char *csv = malloc(cap), cfg[1024];
	double *src = malloc(m * sizeof *src), *x = malloc(N_KS * sizeof *x), d = 0.0;
	struct gen_job *jobs = malloc(N_KS * sizeof *jobs);
	size_t o = (size_t)snprintf(csv, cap, "id,submit_s,duration_s\n");

	for (size_t i = 0; i < m; i++) {
		src[i] = i < 300 ? 7.0 * (double)(i + 1) : 5000.0 + (double)(i - 300);
		o += (size_t)snprintf(csv + o, cap - o, "s%zu,%zu,%g\n", i, i, src[i]);
	}
	const char *path = tu_write_file("gen_src.csv", csv);
	snprintf(cfg, sizeof cfg,
		 "{\"jobs\": 20000, \"seed\": 5, \"arrivals\": {\"rate_per_h\": 60},"
		 "\"durations\": {\"law\": \"empirical\", \"trace\": \"%s\", \"column\": \"duration_s\"}}",
		 path);
	struct gen_config *c = config(cfg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(c->n_emp, m);
	CU_ASSERT_EQUAL_FATAL(draw_all(c, jobs, N_KS), N_KS);
	for (size_t i = 0; i < N_KS; i++)
		x[i] = jobs[i].duration_s;
	gsl_sort(x, 1, N_KS);
	gsl_sort(src, 1, m);

	/* Every draw is a source value (exactly: whole seconds stay whole). */
	size_t foreign = 0;
	for (size_t i = 0, k = 0; i < N_KS; i++) {
		while (k < m && src[k] < x[i])
			k++;
		foreign += k == m || src[k] != x[i];
	}
	CU_ASSERT_EQUAL(foreign, 0);
	/* KS against the source's step CDF, at each distinct source value. */
	for (size_t k = 0, i = 0; k < m; k++) {
		if (k + 1 < m && src[k + 1] == src[k])
			continue;
		while (i < N_KS && x[i] <= src[k])
			i++;
		double diff = fabs((double)i / N_KS - (double)(k + 1) / (double)m);
		if (diff > d)
			d = diff;
	}
	note("empirical KS D", d, ks_critical(N_KS));
	CU_ASSERT(d < ks_critical(N_KS));
	/* Quantiles of the draws within the source's at p -/+ 0.02. */
	const double ps[] = {0.10, 0.25, 0.50, 0.75, 0.90, 0.99};
	for (size_t j = 0; j < sizeof ps / sizeof ps[0]; j++) {
		double q = quantile(x, N_KS, ps[j]);
		note("empirical quantile of the draws (bound: the source's)", q, quantile(src, m, ps[j]));
		CU_ASSERT(q >= quantile(src, m, ps[j] - 0.02) && q <= quantile(src, m, ps[j] + 0.02));
	}
	gen_config_destroy(c);
	free(jobs);
	free(x);
	free(src);
	free(csv);
}

static void test_gen_poisson_ks(void)
{
	struct gen_config *c =
	    config("{\"jobs\": 20001, \"seed\": 3, \"arrivals\": {\"process\": \"poisson\","
		   "\"rate_per_h\": 60}, \"durations\": {\"law\": \"weibull\", \"shape\": 1,"
		   "\"scale_s\": 100}}");
	struct gen_job *jobs = malloc((N_KS + 1) * sizeof *jobs);
	double *x = malloc(N_KS * sizeof *x);
	const double mean_s[1] = {60.0};

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL_FATAL(draw_all(c, jobs, N_KS + 1), N_KS + 1);
	x[0] = jobs[0].submit_s; /* the first gap is from 0 */
	for (size_t i = 1; i < N_KS; i++)
		x[i] = jobs[i].submit_s - jobs[i - 1].submit_s;
	double d = ks_stat(x, N_KS, cdf_exponential, mean_s);
	note("inter-arrival KS D", d, ks_critical(N_KS));
	CU_ASSERT(d < ks_critical(N_KS));
	free(x);
	free(jobs);
	gen_config_destroy(c);
}

/* Jobs per hour of day follow 1 + A cos(2 pi (h - H) / 24), i.e. 1 + A sin(... + pi/2). */
static void test_gen_diurnal(void)
{
	const double A = 0.5, H = 14.0, R = 300.0, days = 20.0;
	char json[512];
	size_t max = 400000, bins[24] = {0}, n, best = 0;

	snprintf(
	    json, sizeof json,
	    "{\"span_s\": %g, \"seed\": 9, \"arrivals\": {\"rate_per_h\": %g,"
	    "\"diurnal\": {\"amplitude\": %g, \"peak_hour\": %g}}, \"durations\": {\"law\": \"lognormal\","
	    "\"median_s\": 600, \"sigma\": 1}}",
	    days * 86400.0, R, A, H);
	struct gen_config *c = config(json);
	struct gen_job *jobs = malloc(max * sizeof *jobs);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	n = draw_all(c, jobs, max);
	CU_ASSERT(n < max);
	for (size_t i = 0; i < n; i++) {
		CU_ASSERT(jobs[i].submit_s < days * 86400.0);
		bins[(size_t)fmod(jobs[i].submit_s / 3600.0, 24.0)]++;
	}
	for (size_t h = 0; h < 24; h++) {
		/* Integral of the rate over [h, h+1) hours, for every day. */
		double avg_cos =
		    24.0 / TWO_PI *
		    (sin(TWO_PI * ((double)h + 1.0 - H) / 24.0) - sin(TWO_PI * ((double)h - H) / 24.0));
		double expect = days * R * (1.0 + A * avg_cos);
		note("diurnal |count - expected| / sigma", fabs((double)bins[h] - expect) / sqrt(expect),
		     4.0);
		CU_ASSERT(fabs((double)bins[h] - expect) <= 4.0 * sqrt(expect));
		if (bins[h] > bins[best])
			best = h;
	}
	CU_ASSERT(best == 13 || best == 14);
	free(jobs);
	gen_config_destroy(c);
}

/* Bursts multiply the rate by F for length_s at every multiple of every_h. */
static void test_gen_bursts(void)
{
	struct gen_config *c =
	    config("{\"span_s\": 2592000, \"seed\": 4, \"arrivals\": {\"rate_per_h\": 100,"
		   "\"bursts\": {\"every_h\": 6, \"length_s\": 1800, \"factor\": 4}},"
		   "\"durations\": {\"law\": \"lognormal\", \"median_s\": 600, \"sigma\": 1}}");
	size_t max = 200000, in = 0, out = 0, n;
	struct gen_job *jobs = malloc(max * sizeof *jobs);

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	n = draw_all(c, jobs, max);
	for (size_t i = 0; i < n; i++) {
		if (fmod(jobs[i].submit_s, 6 * 3600.0) < 1800.0)
			in++;
		else
			out++;
	}
	/* 120 cycles of 6 h: in bursts 120 x 0.5 h x 400/h = 24000, else 120 x 5.5 h x 100/h. */
	note("bursts in |count - expected| / sigma", fabs((double)in - 24000.0) / sqrt(24000.0), 4.0);
	note("bursts out |count - expected| / sigma", fabs((double)out - 66000.0) / sqrt(66000.0), 4.0);
	CU_ASSERT(fabs((double)in - 24000.0) <= 4.0 * sqrt(24000.0));
	CU_ASSERT(fabs((double)out - 66000.0) <= 4.0 * sqrt(66000.0));
	free(jobs);
	gen_config_destroy(c);
}

/* counts[i] within 3 binomial sigmas of n w[i] / sum(w). */
static void check_mix(const size_t *counts, const double *w, size_t k, size_t n)
{
	double sum = 0.0;

	for (size_t i = 0; i < k; i++)
		sum += w[i];
	for (size_t i = 0; i < k; i++) {
		double p = w[i] / sum, e = (double)n * p;
		if (p > 0.0 && p < 1.0)
			note("mix |count - expected| / sigma",
			     fabs((double)counts[i] - e) / sqrt(e * (1.0 - p)), 3.0);
		CU_ASSERT(fabs((double)counts[i] - e) <= 3.0 * sqrt(e * (1.0 - p)) + 1e-9);
	}
}

static void test_gen_mixes(void)
{
	struct gen_config *c =
	    config("{\"jobs\": 20000, \"seed\": 21, \"arrivals\": {\"rate_per_h\": 60},"
		   "\"durations\": {\"law\": \"lognormal\", \"median_s\": 600, \"sigma\": 1},"
		   "\"gpus\": {\"values\": [1, 2, 4, 8], \"weights\": [0.6, 0.2, 0.15, 0.05]},"
		   "\"queues\": {\"names\": [\"a\", \"b\", \"c\"], \"weights\": [1, 2, 1]},"
		   "\"priorities\": {\"values\": [0, 5, 10], \"weights\": [3, 1, 0]},"
		   "\"prefs\": {\"templates\": [[\"h100\", \"a100\"], [\"a100\", \"l40s\", \"h100\"]], "
		   "\"weights\": [2, 1]}}");
	const double wg[] = {0.6, 0.2, 0.15, 0.05}, wq[] = {1, 2, 1}, wp[] = {3, 1, 0}, wt[] = {2, 1};
	size_t cg[4] = {0}, cq[3] = {0}, cp[3] = {0}, ct[2] = {0};
	struct gen_job *jobs = malloc(N_KS * sizeof *jobs);

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL_FATAL(draw_all(c, jobs, N_KS), N_KS);
	for (size_t i = 0; i < N_KS; i++) {
		for (size_t k = 0; k < 4; k++)
			cg[k] += jobs[i].gpus == c->gpu_values[k];
		cq[jobs[i].queue]++;
		for (size_t k = 0; k < 3; k++)
			cp[k] += jobs[i].priority == c->prio_values[k];
		ct[jobs[i].template_idx]++;
	}
	check_mix(cg, wg, 4, N_KS);
	check_mix(cq, wq, 3, N_KS);
	check_mix(cp, wp, 3, N_KS);
	CU_ASSERT_EQUAL(cp[2], 0);
	check_mix(ct, wt, 2, N_KS);
	free(jobs);
	gen_config_destroy(c);
}

/* Writes cfg (seed overridden) to a temp file; returns its text (caller frees). */
static char *write_text(struct gen_config *c, uint64_t seed, const char *name, size_t *len)
{
	const char *path = tu_write_file(name, "");
	struct sim_diag d;
	uint64_t n = 0;

	c->seed = seed;
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(gen_write_file(c, path, &n, &d), 0);
	sim_diag_fini(&d);
	CU_ASSERT(n > 0);
	return tu_read_file(path, len);
}

static const char mixed_json[] =
    "{\"jobs\": 3000, \"seed\": 1, \"arrivals\": {\"rate_per_h\": 120, \"diurnal\": {\"amplitude\": 0.3}},"
    "\"durations\": {\"law\": \"lognormal\", \"median_s\": 900, \"sigma\": 1.2, \"cap_s\": 86400},"
    "\"gpus\": {\"values\": [1, 2, 4, 8], \"weights\": [4, 2, 1, 1]},"
    "\"queues\": {\"names\": [\"vc1\", \"vc2\"]}, \"priorities\": {\"values\": [0, 1]},"
    "\"prefs\": {\"templates\": [[\"h100\", \"a100\"], [\"a100\", \"h100\"]]},"
    "\"checkpoint_s\": {\"every_s\": 1800}}";

/* Same config and seed: the same bytes; another seed: other bytes; a valid native trace. */
static void test_gen_deterministic(void)
{
	struct gen_config *c = config(mixed_json);
	size_t la, lb, lc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	char *a = write_text(c, 1, "gen_a.csv", &la), *b = write_text(c, 1, "gen_b.csv", &lb);
	char *o = write_text(c, 2, "gen_c.csv", &lc);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT(la == lb && memcmp(a, b, la) == 0);
	CU_ASSERT(la != lc || memcmp(a, o, la) != 0);
	CU_ASSERT(strncmp(a, "# gpusched trace gen t.json --seed 1\n", 37) == 0);

	/* It reads back: 3000 jobs, shared-count prefs, checkpoints. */
	struct sim_trace *t = NULL;
	struct sim_diag d;
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL_FATAL(trace_native_parse("gen_a.csv", a, la, &t, &d), 0);
	CU_ASSERT_EQUAL(t->n_jobs, 3000);
	CU_ASSERT_EQUAL(t->jobs[0].n_opts, 2);
	CU_ASSERT_EQUAL(t->jobs[0].checkpoint_ns, 1800 * SIM_NS_PER_S);
	CU_ASSERT_EQUAL(t->n_queues, 2);
	sim_trace_destroy(t);
	sim_diag_fini(&d);
	free(a);
	free(b);
	free(o);
	gen_config_destroy(c);
}

/* One stream per purpose: a new duration law leaves submits, sizes, queues and
 * priorities as they were. */
static void test_gen_streams_independent(void)
{
	struct gen_config *c1 =
	    config("{\"jobs\": 500, \"seed\": 8, \"arrivals\": {\"rate_per_h\": 60},"
		   "\"durations\": {\"law\": \"lognormal\", \"median_s\": 600, \"sigma\": 1},"
		   "\"gpus\": {\"values\": [1, 8]}, \"queues\": {\"names\": [\"a\", \"b\"]}}");
	struct gen_config *c2 =
	    config("{\"jobs\": 500, \"seed\": 8, \"arrivals\": {\"rate_per_h\": 60},"
		   "\"durations\": {\"law\": \"weibull\", \"shape\": 2, \"scale_s\": 50},"
		   "\"gpus\": {\"values\": [1, 8]}, \"queues\": {\"names\": [\"a\", \"b\"]}}");
	struct gen_job j1[500], j2[500];
	size_t same = 0, same_dur = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c2);
	CU_ASSERT_EQUAL_FATAL(draw_all(c1, j1, 500), 500);
	CU_ASSERT_EQUAL_FATAL(draw_all(c2, j2, 500), 500);
	for (size_t i = 0; i < 500; i++) {
		same += j1[i].submit_ms == j2[i].submit_ms && j1[i].gpus == j2[i].gpus &&
			j1[i].queue == j2[i].queue && j1[i].priority == j2[i].priority;
		same_dur += j1[i].duration_ms == j2[i].duration_ms;
	}
	CU_ASSERT_EQUAL(same, 500);
	CU_ASSERT(same_dur < 10);
	CU_ASSERT_NOT_EQUAL(gen_stream_seed(8, GEN_ST_ARRIVALS), gen_stream_seed(8, GEN_ST_DURATIONS));
	gen_config_destroy(c1);
	gen_config_destroy(c2);
}

/* The verb with its stdout and stderr sent to /dev/null (its error messages are expected). */
static int run_quiet(int argc, char **argv)
{
	int saved[2], null, rc;

	fflush(stdout);
	fflush(stderr);
	null = open("/dev/null", O_WRONLY);
	for (int fd = 1; fd <= 2; fd++) {
		saved[fd - 1] = dup(fd);
		if (saved[fd - 1] >= 0 && null >= 0)
			dup2(null, fd);
	}
	if (null >= 0)
		close(null);
	rc = cmd_trace_gen(argc, argv);
	fflush(stdout);
	fflush(stderr);
	for (int fd = 1; fd <= 2; fd++) {
		if (saved[fd - 1] >= 0) {
			dup2(saved[fd - 1], fd);
			close(saved[fd - 1]);
		}
	}
	return rc;
}

/* A bad config: the parser names the JSON path; the verb exits 2 and writes nothing. */
static void check_bad(const char *json, const char *where)
{
	struct gen_config *c = NULL;
	struct sim_diag d;
	char out[600];

	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(gen_config_parse("bad.json", NULL, json, strlen(json), &c, &d), -SIM_EPARSE);
	CU_ASSERT_PTR_NULL(c);
	if (!sim_diag_contains(&d, where)) {
		fprintf(stderr, "\nexpected '%s' in:\n", where);
		sim_diag_print(&d, stderr);
		CU_FAIL("diag lacks the JSON path");
	}
	sim_diag_fini(&d);

	const char *cfg = tu_write_file("bad_gen.json", json);
	snprintf(out, sizeof out, "%s/bad_gen_out.csv", tu_tmpdir());
	char *argv[] = {"gen", (char *)cfg, "-o", out, NULL};
	CU_ASSERT_EQUAL(run_quiet(4, argv), GPUSCHED_EXIT_BADINPUT);
	CU_ASSERT_FALSE(tu_exists(out));
}

#define BASE_ARR "\"arrivals\": {\"rate_per_h\": 60}"
#define BASE_DUR "\"durations\": {\"law\": \"lognormal\", \"median_s\": 600, \"sigma\": 1}"

static void test_gen_bad_configs(void)
{
	check_bad("{\"jobs\": 10, \"arrivals\": {\"rate_per_hour\": 60}, " BASE_DUR "}",
		  "bad.json: $.arrivals.rate_per_hour: unknown key");
	check_bad("{\"jobs\": 10, " BASE_ARR ", \"durations\": {\"law\": \"lognormal\", \"median_s\": 600,"
		  "\"sigma\": -1}}",
		  "bad.json: $.durations.sigma: expected a number > 0");
	check_bad("{\"jobs\": 10, " BASE_ARR ", " BASE_DUR
		  ", \"gpus\": {\"values\": [1, 2], \"weights\": [1]}}",
		  "bad.json: $.gpus.weights: expected a list of 2 numbers");
	check_bad("{\"jobs\": 10, " BASE_ARR ", " BASE_DUR ", \"queues\": {\"names\": [\"a\"], "
		  "\"weights\": [1, 2]}}",
		  "$.queues.weights");
	check_bad("{\"jobs\": 10, \"bogus\": 1, " BASE_ARR ", " BASE_DUR "}",
		  "bad.json: $.bogus: unknown key");
	check_bad("{\"jobs\": 10, " BASE_ARR ", \"durations\": {\"law\": \"weibull\", \"shape\": 1, "
		  "\"scale_s\": 5, \"sigma\": 1}}",
		  "$.durations.sigma: unknown key");
	check_bad("{\"jobs\": 10, \"span_s\": 5, " BASE_ARR ", " BASE_DUR "}", "$.span_s");
	check_bad("{\"jobs\": 10.5, " BASE_ARR ", " BASE_DUR "}", "$.jobs: expected an integer");
	check_bad("{\"jobs\": 10, " BASE_ARR ", " BASE_DUR ", \"prefs\": {\"templates\": [[\"h100\"]]}}",
		  "$.prefs.templates[0]: expected a list of 2 to 5");
	check_bad(
	    "{\"jobs\": 10, \"arrivals\": {\"rate_per_h\": 60, \"diurnal\": {\"amplitude\": 1.5}}, " BASE_DUR
	    "}",
	    "$.arrivals.diurnal.amplitude");
	check_bad("{\"jobs\": 10, " BASE_ARR ", \"durations\": {\"law\": \"empirical\", \"trace\": "
		  "\"/nonexistent/x.csv\"}}",
		  "$.durations.trace");
	check_bad("{\"jobs\": 10, \"arrivals\": null, " BASE_DUR "}", "$.arrivals: expected an object");
	check_bad("{\"jobs\": 10, " BASE_ARR "}", "$.durations: expected an object");
	check_bad("{\"jobs\": 10, " BASE_ARR ", " BASE_DUR
		  ", \"flavor\": \"h100\", \"prefs\": {\"templates\": "
		  "[[\"h100\", \"a100\"]]}}",
		  "$.flavor: expected either");
	check_bad("{\"jobs\": 10, " BASE_ARR ", " BASE_DUR
		  ", \"gpus\": {\"values\": [1, 2], \"weights\": [1, -1]}}",
		  "$.gpus.weights[1]: expected a number >= 0");
	check_bad("{\"jobs\": 10, \"jobs\": 11, " BASE_ARR ", " BASE_DUR "}", "duplicate key");
	check_bad("{\"jobs\": 10, " BASE_ARR ", " BASE_DUR "} x", "bad.json:1: JSON syntax error");
	/* No cap on the job count: 1e9 jobs, or span x rate of 2.8e14, wrote gigabytes. */
	check_bad("{\"jobs\": 100000001, " BASE_ARR ", " BASE_DUR "}", "bad.json: $.jobs: expected an integer");
	check_bad("{\"span_s\": 1e9, \"arrivals\": {\"rate_per_h\": 1e9}, " BASE_DUR "}",
		  "bad.json: $.span_s: expected span_s x the peak rate to give at most 100000000 jobs");
	check_bad("{\"span_s\": 3.6e6, \"arrivals\": {\"rate_per_h\": 60000, \"diurnal\": {\"amplitude\": 1}}, "
		  BASE_DUR "}", "bad.json: $.span_s: expected span_s x the peak rate");
}

/* A template naming a flavor twice wrote "a100;a100", which the native reader refuses
 * (fuzz reproducer gen-1): the config check reports the repeat where it is. */
static void test_gen_template_repeated_flavor(void)
{
	check_bad("{\"jobs\": 3, " BASE_ARR ", " BASE_DUR ", \"prefs\": {\"templates\": [[\"a100\", \"a100\"]]}}",
		  "bad.json: $.prefs.templates[0][1]: expected each flavor once, found 'a100' again");
	check_bad("{\"jobs\": 3, " BASE_ARR ", " BASE_DUR ", \"prefs\": {\"templates\": "
		  "[[\"h100\", \"a100\"], [\"l40s\", \"h100\", \"l40s\"]]}}",
		  "bad.json: $.prefs.templates[1][2]: expected each flavor once");
}

/* A rate too low for `jobs` within the format's 1e9 s: exit 2 naming the rate, no file. */
static void test_gen_rate_too_low(void)
{
	const char *cfg = tu_write_file("gen_slow.json",
					"{\"jobs\": 10, \"arrivals\": {\"rate_per_h\": 1e-6}, " BASE_DUR "}");
	struct gen_config *c = NULL;
	struct sim_diag d;
	char out[600];

	snprintf(out, sizeof out, "%s/gen_slow.csv", tu_tmpdir());
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL_FATAL(gen_config_load(cfg, &c, &d), 0);
	CU_ASSERT_EQUAL(gen_write_file(c, out, NULL, &d), -SIM_ERANGE);
	CU_ASSERT(sim_diag_contains(&d, "$.arrivals.rate_per_h"));
	CU_ASSERT_FALSE(tu_exists(out));
	sim_diag_fini(&d);
	gen_config_destroy(c);
	char *argv[] = {"gen", (char *)cfg, "-o", out, NULL};
	CU_ASSERT_EQUAL(run_quiet(4, argv), GPUSCHED_EXIT_BADINPUT);
	CU_ASSERT_FALSE(tu_exists(out));
}

/* The verb end to end: --seed overrides, output is written and valid. */
static void test_gen_cli(void)
{
	const char *cfg = tu_write_file("gen_cli.json", mixed_json);
	char out[600], *text;
	size_t len;

	snprintf(out, sizeof out, "%s/gen_cli.csv", tu_tmpdir());
	char *argv[] = {"gen", (char *)cfg, "-o", out, "--seed", "42", NULL};
	CU_ASSERT_EQUAL(run_quiet(6, argv), 0);
	text = tu_read_file(out, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "--seed 42\n"));
	free(text);
	char *bad[] = {"gen", (char *)cfg, NULL};
	CU_ASSERT_EQUAL(run_quiet(2, bad), GPUSCHED_EXIT_BADINPUT);
}

/* The bundled example loads and draws a sane workload. */
static void test_gen_philly_like_example(void)
{
	struct gen_config *c = NULL;
	struct sim_diag d;
	struct gen *g = NULL;
	struct gen_job j;
	size_t n = 0;

	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(gen_config_load(TEST_SOURCE_DIR "/experiments/gen/philly_like.json", &c, &d), 0);
	sim_diag_print(&d, stderr);
	sim_diag_fini(&d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL_FATAL(gen_create(c, &g), 0);
	while (n < 2000 && gen_next(g, &j) == 1) {
		CU_ASSERT(j.duration_ms >= 1);
		n++;
	}
	CU_ASSERT_EQUAL(n, 2000);
	gen_destroy(g);
	gen_config_destroy(c);
}

static CU_TestInfo gen_tests[] = {
    {"test_gen_lognormal_ks", test_gen_lognormal_ks},
    {"test_gen_weibull_ks", test_gen_weibull_ks},
    {"test_gen_cap", test_gen_cap},
    {"test_gen_empirical", test_gen_empirical},
    {"test_gen_poisson_ks", test_gen_poisson_ks},
    {"test_gen_diurnal", test_gen_diurnal},
    {"test_gen_bursts", test_gen_bursts},
    {"test_gen_mixes", test_gen_mixes},
    {"test_gen_deterministic", test_gen_deterministic},
    {"test_gen_streams_independent", test_gen_streams_independent},
    {"test_gen_bad_configs", test_gen_bad_configs},
    {"test_gen_rate_too_low", test_gen_rate_too_low},
    {"test_gen_template_repeated_flavor", test_gen_template_repeated_flavor},
    {"test_gen_cli", test_gen_cli},
    {"test_gen_philly_like_example", test_gen_philly_like_example},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo gen_suite = {"gen", init_gen, clean_gen, NULL, NULL, gen_tests};
