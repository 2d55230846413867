/* bench/gen_workload.c: synthetic mixed GPU workload for the benchmark (bench/README.md).
 *
 *   gen_workload --jobs N --seed S [--gpus 10000] [--load 0.7] [--flavor gpu8]
 *                [--prefs F1,F2[,...]] -o OUT.csv
 *
 * Writes a native trace (traces/native.h; columns id,submit_s,duration_s,queue,priority,
 * request). The laws, fixed here and stated in bench/README.md:
 *   - GPUs a job: discrete mix over {1,2,4,8,16,32} with weights SIZE_W (Philly-like:
 *     mostly single-GPU jobs, a tail of multi-node ones);
 *   - duration: log-normal, median DUR_MEDIAN_S, sigma DUR_SIGMA, capped at DUR_CAP_S,
 *     written as whole seconds (rounded up, so >= 1 s);
 *   - arrivals: Poisson, rate = load x gpus / E[gpus x duration]. Sizes and durations
 *     are drawn independently, so E[gpus x duration] = E[gpus] x E[min(D, cap)], both
 *     computed analytically (the +0.5 s mean of rounding up is included);
 *   - priority 0..3 uniform, queue q0..q(Q-1) uniform (--queues Q, default 4);
 *   - with --prefs F1,...,Fk (2 to 5 flavors): a preference list instead of a request,
 *     every option with the job's GPUs, the flavors in the given cyclic order starting
 *     at a uniform random one (so first choices spread evenly over the flavors).
 * One gsl_rng_mt19937 stream per purpose, each seeded from (seed, purpose) through
 * splitmix64, so changing one law never shifts the others. The realized offered load
 * (sum of gpus x duration over gpus x last submit time) goes to stderr.
 *
 * Exit codes: 0 ok, 1 I/O failure, 2 bad arguments. The file is written to OUT.tmp and
 * renamed when complete.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "../sim/sim.h"

#define N_SIZES 6
static const unsigned SIZE_GPU[N_SIZES] = {1, 2, 4, 8, 16, 32};
static const double SIZE_W[N_SIZES] = {0.60, 0.12, 0.12, 0.10, 0.04, 0.02};

#define DUR_MEDIAN_S 1200.0        /* 20 min */
#define DUR_SIGMA 1.5
#define DUR_CAP_S (7.0 * 86400.0) /* 7 days */
#define DAY_S 86400.0
#define TWO_PI 6.283185307179586
#define N_PRIO 4
#define N_QUEUES 4 /* default of --queues */

enum stream { ST_ARRIVALS, ST_DURATIONS, ST_SIZES, ST_PRIORITIES, ST_QUEUES, ST_PREFS, ST_COUNT_ };
#define ST_LEGACY_ 5 /* streams that existed before ST_PREFS (see the seeding in main) */
#define MAX_PREFS 5

struct gen_args {
	unsigned long queues; /* q0 .. q(queues-1) */
	unsigned long jobs;
	unsigned long long seed;
	double gpus;
	double load;
	double diurnal;   /* amplitude A of the daily rate swing, 0 <= A <= 1 */
	const char *flavor;
	const char *prefs[MAX_PREFS]; /* --prefs, split; n_prefs 0 = a request */
	unsigned n_prefs;
	char prefs_buf[256];
	const char *out;
};

/* Output buffer: rows are formatted by hand and written in large blocks. */
#define OBUF_SIZE (1u << 20)
struct obuf {
	FILE *f;
	size_t len;
	int err;
	char data[OBUF_SIZE];
};

static void ob_flush(struct obuf *b)
{
	if (b->len && fwrite(b->data, 1, b->len, b->f) != b->len)
		b->err = 1;
	b->len = 0;
}

/* Room for one row (ids and numbers are short; a row is < 128 bytes). */
static void ob_reserve(struct obuf *b, size_t n)
{
	if (b->len + n > OBUF_SIZE)
		ob_flush(b);
}

static void ob_str(struct obuf *b, const char *s)
{
	size_t n = strlen(s);

	memcpy(b->data + b->len, s, n);
	b->len += n;
}

static void ob_u64(struct obuf *b, uint64_t v)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		b->data[b->len++] = tmp[--n];
}

/* Milliseconds as seconds with exactly 3 decimals. */
static void ob_ms(struct obuf *b, uint64_t ms)
{
	uint64_t frac = ms % 1000;

	ob_u64(b, ms / 1000);
	b->data[b->len++] = '.';
	b->data[b->len++] = (char)('0' + frac / 100);
	b->data[b->len++] = (char)('0' + frac / 10 % 10);
	b->data[b->len++] = (char)('0' + frac % 10);
}

/* E[ceil(min(D, cap))] for D log-normal(mu, sigma), in seconds. The truncated mean is
 * exact; rounding up adds 0.5 s on average (durations are far from integer-aligned). */
static double mean_duration_s(void)
{
	double mu = log(DUR_MEDIAN_S), s = DUR_SIGMA, lc = log(DUR_CAP_S);
	double below = exp(mu + s * s / 2.0) * gsl_cdf_ugaussian_P((lc - mu - s * s) / s);
	double above = DUR_CAP_S * gsl_cdf_ugaussian_Q((lc - mu) / s);

	return below + above + 0.5;
}

static double mean_gpus(void)
{
	double sw = 0.0, m = 0.0;

	for (int i = 0; i < N_SIZES; i++) {
		sw += SIZE_W[i];
		m += SIZE_W[i] * SIZE_GPU[i];
	}
	return m / sw;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: gen_workload --jobs N --seed S [--gpus 10000] [--load 0.7] "
		   "[--diurnal 0] [--flavor gpu8] [--queues 4] [--prefs F1,F2[,...]] -o OUT.csv\n");
}

static int parse_ulong(const char *opt, const char *s, unsigned long long *out)
{
	char *end;

	errno = 0;
	if (!s || !*s || *s == '-')
		goto bad;
	*out = strtoull(s, &end, 10);
	if (errno || *end)
		goto bad;
	return 0;
bad:
	fprintf(stderr, "gen_workload: %s: expected a non-negative integer, found '%s'\n", opt,
		s ? s : "");
	return -1;
}

static int parse_pos_double(const char *opt, const char *s, double *out)
{
	char *end;

	errno = 0;
	if (!s || !*s)
		goto bad;
	*out = strtod(s, &end);
	if (errno || *end || !(*out > 0.0) || !isfinite(*out))
		goto bad;
	return 0;
bad:
	fprintf(stderr, "gen_workload: %s: expected a number > 0, found '%s'\n", opt, s ? s : "");
	return -1;
}

static int parse_args(int argc, char **argv, struct gen_args *a)
{
	unsigned long long v;
	int have_jobs = 0, have_seed = 0;

	a->gpus = 10000.0;
	a->load = 0.7;
	a->diurnal = 0.0;
	a->flavor = "gpu8";
	a->queues = N_QUEUES;
	a->out = NULL;
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			usage(stdout);
			exit(0);
		} else if (!strcmp(o, "--jobs")) {
			if (parse_ulong(o, val, &v) || v == 0 || v > 0xffffffffULL) {
				fprintf(stderr, "gen_workload: --jobs: expected 1..4294967295\n");
				return -1;
			}
			a->jobs = (unsigned long)v;
			have_jobs = 1;
		} else if (!strcmp(o, "--seed")) {
			if (parse_ulong(o, val, &v))
				return -1;
			a->seed = v;
			have_seed = 1;
		} else if (!strcmp(o, "--gpus")) {
			if (parse_pos_double(o, val, &a->gpus))
				return -1;
		} else if (!strcmp(o, "--load")) {
			if (parse_pos_double(o, val, &a->load))
				return -1;
		} else if (!strcmp(o, "--diurnal")) {
			char *end;

			errno = 0;
			a->diurnal = val ? strtod(val, &end) : -1.0;
			if (!val || errno || *end || !(a->diurnal >= 0.0 && a->diurnal <= 1.0)) {
				fprintf(stderr, "gen_workload: --diurnal: expected a number in [0, 1], "
						"found '%s'\n", val ? val : "");
				return -1;
			}
		} else if (!strcmp(o, "--queues")) {
			if (parse_ulong(o, val, &v) || v == 0 || v > 1000000) {
				fprintf(stderr, "gen_workload: --queues: expected 1..1000000\n");
				return -1;
			}
			a->queues = (unsigned long)v;
		} else if (!strcmp(o, "--flavor")) {
			if (!val || !*val || strpbrk(val, ",:\"\n\r")) {
				fprintf(stderr, "gen_workload: --flavor: expected a name\n");
				return -1;
			}
			a->flavor = val;
		} else if (!strcmp(o, "--prefs")) {
			if (!val || strlen(val) >= sizeof a->prefs_buf || strpbrk(val, ":;\"\n\r")) {
				fprintf(stderr, "gen_workload: --prefs: expected 2 to 5 flavor names separated by ','\n");
				return -1;
			}
			strcpy(a->prefs_buf, val);
			a->n_prefs = 0;
			for (char *t = strtok(a->prefs_buf, ","); t; t = strtok(NULL, ",")) {
				if (a->n_prefs == MAX_PREFS) {
					a->n_prefs = 0;
					break;
				}
				a->prefs[a->n_prefs++] = t;
			}
			if (a->n_prefs < 2) {
				fprintf(stderr, "gen_workload: --prefs: expected 2 to 5 flavor names separated by ','\n");
				return -1;
			}
		} else if (!strcmp(o, "-o") || !strcmp(o, "--output")) {
			if (!val || !*val) {
				fprintf(stderr, "gen_workload: %s: expected a path\n", o);
				return -1;
			}
			a->out = val;
		} else {
			fprintf(stderr, "gen_workload: unknown argument '%s'\n", o);
			return -1;
		}
		i++;
	}
	if (!have_jobs || !have_seed || !a->out) {
		fprintf(stderr, "gen_workload: --jobs, --seed and -o are required\n");
		return -1;
	}
	return 0;
}

/* Next arrival after t_s. A = 0: homogeneous Poisson. A > 0: non-homogeneous Poisson with
 * rate(t) = rate x (1 + A sin(2 pi t / 1 day)), by thinning (Lewis and Shedler): candidates at
 * the peak rate, each kept with probability rate(t) / peak. The mean rate over a day is
 * unchanged, so the offered load is too; the peak hours run at load x (1 + A). */
static double next_arrival_s(gsl_rng *r, double t_s, double rate_per_s, double amp)
{
	const double peak = rate_per_s * (1.0 + amp);

	for (;;) {
		t_s += gsl_ran_exponential(r, 1.0 / peak);
		if (amp == 0.0 ||
		    gsl_rng_uniform(r) * peak <= rate_per_s * (1.0 + amp * sin(TWO_PI * t_s / DAY_S)))
			return t_s;
	}
}

/* Generates every row into b; returns the total GPU-seconds and the last submit time. */
static void generate(const struct gen_args *a, gsl_rng **rng, const gsl_ran_discrete_t *sizes,
		     double rate_per_s, struct obuf *b, double *gpu_s, double *last_submit_s)
{
	const double mu = log(DUR_MEDIAN_S);
	double t_s = 0.0, total = 0.0;
	uint64_t t_ms = 0;

	for (unsigned long i = 0; i < a->jobs; i++) {
		double d_s;
		uint64_t dur_s;
		unsigned gpus;

		t_s = next_arrival_s(rng[ST_ARRIVALS], t_s, rate_per_s, a->diurnal);
		t_ms = (uint64_t)llround(t_s * 1000.0);
		d_s = gsl_ran_lognormal(rng[ST_DURATIONS], mu, DUR_SIGMA);
		if (d_s > DUR_CAP_S)
			d_s = DUR_CAP_S;
		dur_s = (uint64_t)ceil(d_s);
		if (dur_s < 1)
			dur_s = 1;
		gpus = SIZE_GPU[gsl_ran_discrete(rng[ST_SIZES], sizes)];
		total += (double)gpus * (double)dur_s;

		ob_reserve(b, 128);
		b->data[b->len++] = 'j';
		ob_u64(b, i + 1);
		b->data[b->len++] = ',';
		ob_ms(b, t_ms);
		b->data[b->len++] = ',';
		ob_u64(b, dur_s);
		ob_str(b, ",q");
		ob_u64(b, gsl_rng_uniform_int(rng[ST_QUEUES], a->queues));
		b->data[b->len++] = ',';
		ob_u64(b, gsl_rng_uniform_int(rng[ST_PRIORITIES], N_PRIO));
		b->data[b->len++] = ',';
		if (a->n_prefs) {
			unsigned first = (unsigned)gsl_rng_uniform_int(rng[ST_PREFS], a->n_prefs);
			for (unsigned k = 0; k < a->n_prefs; k++) {
				ob_reserve(b, 300);
				if (k)
					b->data[b->len++] = ';';
				ob_str(b, a->prefs[(first + k) % a->n_prefs]);
				ob_str(b, ":gpu=");
				ob_u64(b, gpus);
			}
		} else {
			ob_str(b, a->flavor);
			ob_str(b, ":gpu=");
			ob_u64(b, gpus);
		}
		b->data[b->len++] = '\n';
	}
	*gpu_s = total;
	*last_submit_s = (double)t_ms / 1000.0;
}

int main(int argc, char **argv)
{
	struct gen_args a = {0};
	gsl_rng *rng[ST_COUNT_] = {0};
	gsl_ran_discrete_t *sizes = NULL;
	struct obuf *b = NULL;
	char *tmp_path = NULL;
	double e_gpus, e_dur_s, rate_per_s, gpu_s = 0.0, last_s = 0.0;
	int rc = 1;

	if (parse_args(argc, argv, &a)) {
		usage(stderr);
		return 2;
	}
	gsl_set_error_handler_off();
	e_gpus = mean_gpus();
	e_dur_s = mean_duration_s();
	rate_per_s = a.load * a.gpus / (e_gpus * e_dur_s);

	for (int k = 0; k < ST_COUNT_; k++) {
		rng[k] = gsl_rng_alloc(gsl_rng_mt19937);
		if (!rng[k]) {
			fprintf(stderr, "gen_workload: out of memory\n");
			goto out_free_rng;
		}
		/* mt19937 takes 32 bits of seed; 0 would select GSL's default seed. The first
		 * ST_LEGACY_ streams keep the seeds they had before ST_PREFS was added, so the
		 * benchmark's traces stay the same; later streams are seeded apart from them. */
		uint64_t mixed = k < ST_LEGACY_ ? sim_splitmix64(a.seed * ST_LEGACY_ + (uint64_t)k)
						: sim_splitmix64(sim_splitmix64(a.seed) + (uint64_t)k);
		uint64_t s = mixed & 0xffffffffu;
		gsl_rng_set(rng[k], (unsigned long)(s ? s : 1));
	}
	sizes = gsl_ran_discrete_preproc(N_SIZES, SIZE_W);
	b = malloc(sizeof(*b));
	tmp_path = malloc(strlen(a.out) + 5);
	if (!sizes || !b || !tmp_path) {
		fprintf(stderr, "gen_workload: out of memory\n");
		goto out_free_buf;
	}
	sprintf(tmp_path, "%s.tmp", a.out);
	b->f = fopen(tmp_path, "w");
	if (!b->f) {
		fprintf(stderr, "gen_workload: %s: %s\n", tmp_path, strerror(errno));
		goto out_free_buf;
	}
	b->len = 0;
	b->err = 0;
	fprintf(b->f, "# gen_workload --jobs %lu --seed %llu --gpus %g --load %g --diurnal %g --flavor %s\n"
		      "# sizes {1,2,4,8,16,32} weights {0.60,0.12,0.12,0.10,0.04,0.02}; "
		      "duration lognormal median %g s sigma %g cap %g s\n"
		      "id,submit_s,duration_s,queue,priority,%s\n",
		a.jobs, a.seed, a.gpus, a.load, a.diurnal, a.flavor, DUR_MEDIAN_S, DUR_SIGMA, DUR_CAP_S,
		a.n_prefs ? "prefs" : "request");
	generate(&a, rng, sizes, rate_per_s, b, &gpu_s, &last_s);
	ob_flush(b);
	if (fclose(b->f) != 0 || b->err) {
		fprintf(stderr, "gen_workload: %s: write failed: %s\n", tmp_path, strerror(errno));
		remove(tmp_path);
		goto out_free_buf;
	}
	if (rename(tmp_path, a.out) != 0) {
		fprintf(stderr, "gen_workload: rename %s -> %s: %s\n", tmp_path, a.out,
			strerror(errno));
		remove(tmp_path);
		goto out_free_buf;
	}
	fprintf(stderr,
		"gen_workload: %lu jobs over %.0f s (%.2f days); E[gpus] %.4f, E[duration] %.1f s, "
		"rate %.6f jobs/s; offered load target %.4f, realized %.4f\n",
		a.jobs, last_s, last_s / 86400.0, e_gpus, e_dur_s, rate_per_s, a.load,
		last_s > 0.0 ? gpu_s / (a.gpus * last_s) : 0.0);
	rc = 0;
out_free_buf:
	free(tmp_path);
	free(b);
	if (sizes)
		gsl_ran_discrete_free(sizes);
out_free_rng:
	for (int k = 0; k < ST_COUNT_; k++)
		if (rng[k])
			gsl_rng_free(rng[k]);
	return rc;
}
