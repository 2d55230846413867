/* analysis/plot.c: .dat files from the HDF5 results and gnuplot runs (see plot.h). */
#include "plot.h"

#include "../experiments/config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "../sim/metrics.h"
#include "../sim/outpath.h"
#include "report.h"

const char *plot_analysis_dir(const struct plot_opts *o)
{
	if (o && o->analysis_dir)
		return o->analysis_dir;
	const char *env = getenv("GPUSCHED_ANALYSIS_DIR");
	if (env && env[0])
		return env;
#ifdef GPUSCHED_ANALYSIS_DIR
	return GPUSCHED_ANALYSIS_DIR;
#else
	return "analysis";
#endif
}

size_t plot_cdf_points(const double *x, size_t n, size_t max_points, double *xs, double *ys)
{
	if (n == 0 || max_points == 0)
		return 0;
	if (n <= max_points) {
		for (size_t i = 0; i < n; i++) {
			xs[i] = x[i];
			ys[i] = (double)(i + 1) / (double)n;
		}
		return n;
	}
	/* Point k (k = 0 .. m-1) is order statistic i_k = ceil(k (n-1) / (m-1)):
	 * evenly spaced in rank, i_0 = 0 and i_{m-1} = n-1. */
	size_t m = max_points < 2 ? 1 : max_points;
	for (size_t k = 0; k < m; k++) {
		size_t i = m == 1 ? n - 1 : (size_t)(((unsigned long long)k * (n - 1) + (m - 2)) / (m - 1));
		if (i > n - 1)
			i = n - 1;
		xs[k] = x[i];
		ys[k] = (double)(i + 1) / (double)n;
	}
	return m;
}

/* ---- running gnuplot ---- */

/* Full path of an executable: `name` itself when it holds a '/', else the first
 * match on PATH. NULL when there is none. Caller frees. */
static char *find_program(const char *name)
{
	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? strdup(name) : NULL;
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/bin:/bin";
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t len = colon ? (size_t)(colon - path) : strlen(path);
		char *cand = malloc(len + strlen(name) + 3);
		if (!cand)
			return NULL;
		snprintf(cand, len + strlen(name) + 3, "%.*s/%s", (int)len, len ? path : ".", name);
		struct stat st;
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
			return cand;
		free(cand);
		path += len + (colon ? 1 : 0);
	}
	return NULL;
}

/* Runs prog with argv (NULL-terminated), capturing stdout and stderr together into
 * *out (malloc'd, NUL-terminated). Returns the exit status (0..255), or -1 when
 * the program could not be run or died by a signal. */
static int run_capture(const char *prog, char *const argv[], char **out)
{
	*out = NULL;
	int fd[2];
	if (pipe(fd) != 0)
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(fd[1], STDOUT_FILENO);
		dup2(fd[1], STDERR_FILENO);
		close(fd[0]);
		close(fd[1]);
		execvp(prog, argv); /* a path, or a name found on PATH */
		_exit(127);
	}
	close(fd[1]);
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (buf && cap - n < 1024) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
			} else {
				buf = nb;
				cap *= 2;
			}
		}
		char sink[4096];
		char *dst = buf ? buf + n : sink;
		size_t room = buf ? cap - n - 1 : sizeof sink;
		ssize_t got = read(fd[0], dst, room);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		if (buf)
			n += (size_t)got;
	}
	close(fd[0]);
	if (buf)
		buf[n] = 0;
	*out = buf;
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

void plot_gp_quote(char *dst, size_t cap, const char *s)
{
	size_t n = 0;
	if (cap < 3)
		return;
	dst[n++] = '\'';
	for (; *s && n + 3 < cap; s++) {
		if (*s == '\'')
			dst[n++] = '\'';
		dst[n++] = *s;
	}
	dst[n++] = '\'';
	dst[n] = 0;
}

/* ---- .dat files ---- */

/* A run name as a gnuplot column header: double-quoted, quotes and backslashes
 * replaced (gnuplot has no escape inside data-file strings). */
static void dat_header(FILE *f, const char *name)
{
	fputc('"', f);
	for (; *name; name++)
		fputc(*name == '"' || *name == '\\' || *name == '\n' ? '\'' : *name, f);
	fputs("\"\n", f);
}

/* ---- CDFs per variant: the mean over its seeds with a 95% band ---- */

#define CDF_KEEP_MAX 4096 /* points kept of a run's sorted values (its CDF to 1/4096) */
#define CDF_GRID 300      /* points of a variant's curve, log-spaced from 1 s */

/* A run's empirical CDF: sorted values x[k] (finite, floored at 1 s for the log
 * axis) and the fraction of values <= x[k]; all of them, or CDF_KEEP_MAX evenly
 * spaced by rank. */
struct cdf_keep {
	double *x, *frac;
	size_t n;
};

static void cdf_keep_free(struct cdf_keep *k)
{
	free(k->x);
	free(k->frac);
	memset(k, 0, sizeof *k);
}

static int cdf_keep_make(const double *v, size_t n, struct cdf_keep *k)
{
	double *x = malloc((n ? n : 1) * sizeof *x);
	size_t m = 0;
	memset(k, 0, sizeof *k);
	if (!x)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			x[m++] = v[i] < 1.0 ? 1.0 : v[i];
	gsl_sort(x, 1, m);
	size_t keep = m <= CDF_KEEP_MAX ? m : CDF_KEEP_MAX;
	k->x = malloc((keep ? keep : 1) * sizeof *k->x);
	k->frac = malloc((keep ? keep : 1) * sizeof *k->frac);
	if (!k->x || !k->frac) {
		free(x);
		cdf_keep_free(k);
		return -1;
	}
	for (size_t j = 0; j < keep; j++) {
		/* rank of the j-th kept value; the last kept is the largest */
		size_t i = keep == m ? j : (size_t)((double)j * (double)(m - 1) / (double)(keep - 1));
		while (i + 1 < m && x[i + 1] == x[i])
			i++; /* ties: the fraction counts every equal value */
		k->x[j] = x[i];
		k->frac[j] = (double)(i + 1) / (double)m;
	}
	k->n = keep;
	free(x);
	return 0;
}

/* Fraction of the run's values <= x (0 before its first). */
static double cdf_keep_at(const struct cdf_keep *k, double x)
{
	size_t lo = 0, hi = k->n; /* first kept point > x */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (k->x[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? k->frac[lo - 1] : 0.0;
}

/* The runs' variants in order of first appearance: run i is in group of[i]. */
struct variant_groups {
	size_t n;
	const char **name; /* n, pointing into the summary */
	size_t *of;        /* one a run */
	size_t *runs;      /* n: runs of each */
};

static void variant_groups_free(struct variant_groups *g)
{
	free(g->name);
	free(g->of);
	free(g->runs);
	memset(g, 0, sizeof *g);
}

static int variant_groups_make(const struct h5read_file *f, const struct h5read_summary *s, struct variant_groups *g)
{
	size_t nr = h5read_n_runs(f);
	memset(g, 0, sizeof *g);
	g->name = calloc(nr + 1, sizeof *g->name);
	g->of = calloc(nr + 1, sizeof *g->of);
	g->runs = calloc(nr + 1, sizeof *g->runs);
	if (!g->name || !g->of || !g->runs)
		return -1;
	for (size_t i = 0; i < nr; i++) {
		int row = h5read_summary_row(s, h5read_run_name(f, i));
		const char *v = row >= 0 ? s->variant[row] : h5read_run_name(f, i);
		size_t k = 0;
		while (k < g->n && strcmp(g->name[k], v) != 0)
			k++;
		if (k == g->n)
			g->name[g->n++] = v;
		g->of[i] = k;
		g->runs[k]++;
	}
	return 0;
}

/* One block a variant: its title ("fifo (3 seeds)"), then rows "x mean low high" on a
 * log grid from 1 s to the largest value of any run: the mean over its runs of the
 * fraction <= x, and the 95% confidence band t(0.975, m-1) sd / sqrt(m) (clamped to
 * [0, 1]; none for one run). Runs without values are left out of their variant.
 * Returns the rows written. */
static long cdf_variant_dat(FILE *f, const struct variant_groups *g, const struct cdf_keep *k, size_t nr)
{
	double xmax = 1.0;
	long rows = 0;
	for (size_t i = 0; i < nr; i++)
		if (k[i].n && k[i].x[k[i].n - 1] > xmax)
			xmax = k[i].x[k[i].n - 1];
	size_t grid = xmax > 1.0 ? CDF_GRID : 1;
	for (size_t v = 0; v < g->n; v++) {
		size_t m = 0;
		for (size_t i = 0; i < nr; i++)
			m += g->of[i] == v && k[i].n > 0;
		char title[512];
		if (m > 1)
			snprintf(title, sizeof title, "%s (%zu seeds)", g->name[v], m);
		else
			snprintf(title, sizeof title, "%s", g->name[v]);
		fprintf(f, "# variant %s: %zu runs with values; x mean low high\n", g->name[v], m);
		dat_header(f, title);
		double t = m > 1 ? gsl_cdf_tdist_Pinv(0.975, (double)(m - 1)) : 0.0;
		for (size_t j = 0; m > 0 && j < grid; j++) {
			double x = grid > 1 ? pow(xmax, (double)j / (double)(grid - 1)) : 1.0;
			if (j == grid - 1)
				x = xmax; /* exactly: the largest value closes every curve at 1 */
			double sum = 0, sum2 = 0;
			for (size_t i = 0; i < nr; i++)
				if (g->of[i] == v && k[i].n > 0) {
					double p = cdf_keep_at(&k[i], x);
					sum += p;
					sum2 += p * p;
				}
			double mean = sum / (double)m;
			double var = m > 1 ? (sum2 - (double)m * mean * mean) / (double)(m - 1) : 0.0;
			double half = m > 1 && var > 0 ? t * sqrt(var / (double)m) : 0.0;
			double lo = mean - half < 0 ? 0 : mean - half, hi = mean + half > 1 ? 1 : mean + half;
			fprintf(f, "%.9g %.9g %.9g %.9g\n", x, mean, lo, hi);
			rows++;
		}
		fputs("\n\n", f);
	}
	return rows;
}

/* The time-weighted mean of a series over [ta, tb): value k is v[k * stride], held
 * from t[k] to t[k+1] (the last sample is a point), or its value at ta when tb <= ta;
 * NaN where there is no sample (past the run's end) or no series (v NULL). */
static double series_mean(const double *t, const double *v, size_t stride, size_t n, double ta, double tb)
{
	if (n == 0 || !v || ta > t[n - 1])
		return NAN;
	size_t lo = 0, hi = n; /* first sample after ta */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (t[mid] <= ta)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t k = lo ? lo - 1 : 0;
	if (tb <= ta)
		return v[k * stride];
	double wsum = 0, vsum = 0;
	for (; k < n && t[k] < tb; k++) {
		double from = t[k] > ta ? t[k] : ta;
		double to = k + 1 < n ? (t[k + 1] < tb ? t[k + 1] : tb) : from;
		wsum += to - from;
		vsum += (to - from) * v[k * stride];
	}
	return wsum > 0 ? vsum / wsum : v[(lo ? lo - 1 : 0) * stride];
}

/* The overview series drawn per variant: busy GPUs, queued jobs, or nodes down (runs
 * with node failures only). */
enum ts_kind { TS_BUSY, TS_QUEUED, TS_NODES_DOWN };

static double ts_mean(const struct h5read_timeseries *ts, enum ts_kind kind, double ta, double tb)
{
	const double *v = kind == TS_BUSY ? ts->gpus_busy : kind == TS_QUEUED ? ts->jobs_queued : ts->nodes_down;
	return series_mean(ts->t_s, v, 1, ts->n, ta, tb);
}

/* 1 when two /summary rows hold the same value in every metric (NaN equal to NaN). */
static int same_metrics(const struct h5read_summary *s, int a, int b)
{
	for (size_t k = 0; a >= 0 && b >= 0 && k < s->n_fields; k++) {
		double x = s->v[(size_t)a * s->n_fields + k], y = s->v[(size_t)b * s->n_fields + k];
		if (!(x == y || (isnan(x) && isnan(y))))
			return 0;
	}
	return a >= 0 && b >= 0;
}

/* Says so when curves would hide each other: variants whose runs have identical
 * metrics (e.g. priority = fifo on a trace without priorities), and seeds that all
 * give the same results (no band to see). */
static void note_identical(const struct h5read_file *f, const struct h5read_summary *s,
			   const struct variant_groups *g)
{
	size_t nr = h5read_n_runs(f);
	int *first = malloc((g->n ? g->n : 1) * sizeof *first);
	if (!first)
		return;
	for (size_t v = 0; v < g->n; v++)
		first[v] = -1;
	int seeds_same = 1, multi = 0;
	for (size_t i = 0; i < nr; i++) {
		int row = h5read_summary_row(s, h5read_run_name(f, i));
		size_t v = g->of[i];
		if (first[v] < 0)
			first[v] = row;
		else
			multi = 1, seeds_same = seeds_same && same_metrics(s, first[v], row);
	}
	char line[1024] = "";
	size_t len = 0, pairs = 0;
	for (size_t v = 1; v < g->n; v++)
		for (size_t u = 0; u < v; u++)
			if (same_metrics(s, first[u], first[v])) {
				if (pairs++ < 6 && len < sizeof line)
					len += (size_t)snprintf(line + len, sizeof line - len, "%s%s = %s", len ? ", " : "",
								g->name[v], g->name[u]);
				break;
			}
	if (pairs)
		printf("note: %zu variant%s with the same results as an earlier one, drawn on top of it: %s%s\n", pairs,
		       pairs == 1 ? "" : "s", line, pairs > 6 ? ", ..." : "");
	if (multi && seeds_same)
		printf("note: every variant's seeds give the same results: no confidence band to draw\n");
	free(first);
}

/* One block of busy_gpus.dat (kind TS_BUSY) or queued_jobs.dat (TS_QUEUED) a variant,
 * titled "fifo (3 seeds)": at most PLOT_MAX_POINTS rows "time mean low high capacity"
 * on the samples of its longest run; each point the mean over its runs of their
 * time-weighted mean busy GPUs (or queued jobs) in the bucket, and the 95% band
 * (Student t; none for one run); a run counts until its last sample. */
static size_t busy_variant_block(FILE *f, const struct variant_groups *g, size_t v,
				 const struct h5read_timeseries *tss, const double *caps, size_t nr, double unit_s,
				 enum ts_kind kind)
{
	size_t longest = SIZE_MAX, m = 0;
	for (size_t i = 0; i < nr; i++) {
		if (g->of[i] != v)
			continue;
		m++;
		if (tss[i].n && (longest == SIZE_MAX || tss[longest].n == 0 ||
				 tss[i].t_s[tss[i].n - 1] > tss[longest].t_s[tss[longest].n - 1]))
			longest = i;
	}
	char title[512];
	if (m > 1)
		snprintf(title, sizeof title, "%s (%zu seeds)", g->name[v], m);
	else
		snprintf(title, sizeof title, "%s", g->name[v]);
	const struct h5read_timeseries *L = longest == SIZE_MAX ? NULL : &tss[longest];
	size_t n = L ? L->n : 0, rows = 0;
	size_t per = n <= PLOT_MAX_POINTS ? 1 : (n + PLOT_MAX_POINTS - 1) / PLOT_MAX_POINTS;
	fprintf(f, "# variant %s: %zu runs, %zu samples, %zu per point; time mean low high capacity\n", g->name[v], m,
		n, per);
	dat_header(f, title);
	for (size_t a = 0; a < n; a += per) {
		size_t b = a + per < n ? a + per : n;
		double ta = L->t_s[a], tb = b < n ? L->t_s[b] : ta;
		double sum = 0, sum2 = 0, cap = NAN;
		size_t k = 0;
		for (size_t i = 0; i < nr; i++) {
			double x = g->of[i] == v ? ts_mean(&tss[i], kind, ta, tb) : NAN;
			if (!isfinite(x))
				continue;
			sum += x, sum2 += x * x, k++;
			if (!isfinite(cap))
				cap = caps[i];
		}
		double mean = k ? sum / (double)k : NAN;
		double var = k > 1 ? (sum2 - (double)k * mean * mean) / (double)(k - 1) : 0.0;
		double half = k > 1 && var > 0 ? gsl_cdf_tdist_Pinv(0.975, (double)(k - 1)) * sqrt(var / (double)k) : 0.0;
		double lo = mean - half < 0 ? 0 : mean - half;
		fprintf(f, "%.9g %.9g %.9g %.9g %.9g\n", ta / unit_s, mean, lo, mean + half, isfinite(cap) ? cap : 0);
		rows++;
	}
	fputs("\n\n", f);
	return rows;
}

/* Opens the temporary of OUTDIR/NAME (o's stage: renamed when every plot is done);
 * path gets the final path, for messages. */
static FILE *open_dat(const struct plot_opts *o, const char *name, char *path, size_t cap, struct sim_diag *diag)
{
	snprintf(path, cap, "%s/%s", o->outdir, name);
	const char *tmp;
	return sim_out_stage_fopen(o->stage, path, &tmp, diag);
}

/* Bytes of a per-run plot's base name, "<prefix><run>" (the template's output name), and
 * of a data file's path. */
#define RUN_BASE_MAX (PLOT_NAME_MAX + 32)
#define DAT_PATH_MAX 1024

/* Opens *df, <dir>/<prefix><run>.dat, the data of a per-run plot; base gets its base
 * name, path its path. 0, or -SIM_EIO with the message. */
static int open_run_dat(const struct plot_opts *o, const char *prefix, const char *run, char base[RUN_BASE_MAX],
			char path[DAT_PATH_MAX], FILE **df, struct sim_diag *diag)
{
	char name[RUN_BASE_MAX + 8];
	plot_file_name(prefix, run, base, RUN_BASE_MAX);
	snprintf(name, sizeof name, "%s.dat", base);
	*df = open_dat(o, name, path, DAT_PATH_MAX, diag);
	return *df ? 0 : -SIM_EIO;
}

static int close_dat(FILE *f, const char *path, struct sim_diag *diag)
{
	int err = sim_out_close(f);
	if (err) {
		sim_diag_add(diag, path, "write failed: %s", sim_out_write_error(err));
		return -SIM_EIO;
	}
	return 0;
}

struct plot_vars {
	long nblocks, npoints;
	const char *xunit;
	int samecap;
	double capacity;
};

int plot_format_ok(const char *name)
{
	return strcmp(name, "png") == 0 || strcmp(name, "pdf") == 0 || strcmp(name, "svg") == 0;
}

/* The images' file extension: the format ("png" unless told). */
static const char *image_ext(const struct plot_opts *o)
{
	return o->format ? o->format : "png";
}

/* Runs gnuplot on analysis_dir/NAME.gp with the variables (and `extra`, more
 * gnuplot assignments, or NULL) on the staged OUTDIR/BASE.dat, into a staged
 * OUTDIR/BASE.png (o's stage: both temporaries until every plot is done); checks
 * the image was written. */
static int run_template(const char *gnuplot, const char *adir, const struct plot_opts *o, const char *name,
			const char *base, const char *term, const struct plot_vars *pv, const char *extra,
			int quiet, struct sim_diag *diag)
{
	char tmpl[1024], final_dat[1024], final_png[1024];
	(void)quiet; /* "wrote" lines come after the stage's commit */
	snprintf(tmpl, sizeof tmpl, "%s/%s.gp", adir, name);
	snprintf(final_dat, sizeof final_dat, "%s/%s.dat", o->outdir, base);
	snprintf(final_png, sizeof final_png, "%s/%s.%s", o->outdir, base, image_ext(o));
	if (access(tmpl, R_OK) != 0) {
		sim_diag_add(diag, tmpl, "plot template not found (set GPUSCHED_ANALYSIS_DIR to the analysis/ folder)");
		return -SIM_EIO;
	}
	const char *dat = sim_out_stage_tmp_of(o->stage, final_dat), *png;
	int fd = dat ? sim_out_stage_add(o->stage, final_png, &png, diag) : -1;
	if (!dat)
		sim_diag_add(diag, final_dat, "expected the data file to be written first");
	if (fd < 0)
		return -SIM_EIO;
	close(fd); /* gnuplot writes it */
	char qdat[2100], qpng[2100], qadir[2100], vars[12288];
	plot_gp_quote(qdat, sizeof qdat, dat);
	plot_gp_quote(qpng, sizeof qpng, png);
	plot_gp_quote(qadir, sizeof qadir, adir);
	snprintf(vars, sizeof vars,
		 "datafile=%s; outfile=%s; analysis_dir=%s; term='%s'; nblocks=%ld; npoints=%ld; "
		 "xunit='%s'; samecap=%d; capacity=%.9g%s%s",
		 qdat, qpng, qadir, term, pv->nblocks, pv->npoints, pv->xunit ? pv->xunit : "s", pv->samecap,
		 pv->capacity, extra ? "; " : "", extra ? extra : "");
	return plot_run_gnuplot(gnuplot, tmpl, vars, png, diag);
}

int plot_run_gnuplot(const char *gnuplot, const char *tmpl, const char *vars, const char *png,
		     struct sim_diag *diag)
{
	char *argv[] = { (char *)"gnuplot", (char *)"-e", (char *)vars, (char *)tmpl, NULL };
	char *msg = NULL;
	int st = run_capture(gnuplot, argv, &msg);
	struct stat sb;
	int r = 0;
	if (st == 127 && !(msg && *msg)) {
		sim_diag_add(diag, gnuplot, "not found (install gnuplot, e.g. Debian's gnuplot-nox)");
		r = -SIM_EEXTERNAL;
	} else if (st != 0) {
		sim_diag_add(diag, tmpl, "gnuplot failed (%s %d)%s%s", st < 0 ? "could not run," : "exit status",
			     st, msg && *msg ? ":\n" : "", msg ? msg : "");
		r = -SIM_EEXTERNAL;
	} else if (stat(png, &sb) != 0 || sb.st_size == 0) {
		sim_diag_add(diag, png, "gnuplot exited 0 but wrote no image%s%s", msg && *msg ? ":\n" : "",
			     msg ? msg : "");
		r = -SIM_EEXTERNAL;
	}
	free(msg);
	return r;
}

/* Makes the output folder (one level); an existing folder is fine. *made: 1 when
 * this call created it (a failed plot removes it again). */
static int make_dir(const char *dir, int *made, struct sim_diag *diag)
{
	struct stat st;
	*made = 0;
	if (stat(dir, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return 0;
		sim_diag_add(diag, dir, "exists and is not a folder");
		return -SIM_EIO;
	}
	if (mkdir(dir, 0777) != 0) {
		sim_diag_add(diag, dir, "cannot create folder: %s", strerror(errno));
		return -SIM_EIO;
	}
	*made = 1;
	return 0;
}

/* Puts every staged output in place (r == 0) and prints "wrote X.png" for each
 * image, or removes every temporary (and the folder, when this plot made it and
 * it is empty). Returns r, or the commit's error. */
static int finish_outputs(int r, struct sim_out_stage *stage, const char *dir, int made_dir, int quiet,
			  const char *ext, struct sim_diag *diag)
{
	char dot_ext[8];
	snprintf(dot_ext, sizeof dot_ext, ".%s", ext);
	size_t n = stage->n;
	char **finals = calloc(n ? n : 1, sizeof *finals);
	for (size_t i = 0; finals && i < n; i++)
		finals[i] = strdup(stage->final[i]);
	if (!r)
		r = sim_out_stage_commit(stage, diag);
	else
		sim_out_stage_abort(stage);
	if (r && made_dir)
		rmdir(dir);
	for (size_t i = 0; finals && i < n; i++) {
		size_t len = finals[i] ? strlen(finals[i]) : 0;
		if (!r && !quiet && len > 4 && strcmp(finals[i] + len - 4, dot_ext) == 0)
			printf("wrote %s\n", finals[i]);
		free(finals[i]);
	}
	free(finals);
	return r;
}

/* Finds gnuplot and the terminal of the format: for png the best it has ("pngcairo",
 * else "png"); for pdf "pdfcairo"; for svg "svg". */
static int probe_gnuplot(const struct plot_opts *o, char **prog, const char **term, struct sim_diag *diag)
{
	const char *name = o->gnuplot ? o->gnuplot : "gnuplot";
	*prog = find_program(name);
	if (!*prog) {
		sim_diag_add(diag, name,
			     "gnuplot not found (gpusched plot needs it: install gnuplot, e.g. Debian's gnuplot-nox)");
		return -SIM_EEXTERNAL;
	}
	char *argv[] = { (char *)"gnuplot", (char *)"-e", (char *)"set terminal", NULL };
	char *msg = NULL;
	int st = run_capture(*prog, argv, &msg);
	int r = 0;
	if (st != 0) {
		sim_diag_add(diag, *prog, "'gnuplot -e \"set terminal\"' failed (exit status %d)", st);
		r = -SIM_EEXTERNAL;
	} else if (strcmp(image_ext(o), "pdf") == 0 || strcmp(image_ext(o), "svg") == 0) {
		const char *want = strcmp(image_ext(o), "pdf") == 0 ? "pdfcairo" : "svg";
		char word[16];
		snprintf(word, sizeof word, " %s ", want);
		*term = want;
		if (!msg || !strstr(msg, word)) {
			sim_diag_add(diag, *prog, "this gnuplot has no %s terminal (needed for --format %s)", want,
				     image_ext(o));
			r = -SIM_EEXTERNAL;
		}
	} else if (msg && strstr(msg, " pngcairo ")) {
		*term = "pngcairo";
	} else if (msg && strstr(msg, " png ")) {
		*term = "png";
	} else {
		sim_diag_add(diag, *prog, "this gnuplot has no png or pngcairo terminal");
		r = -SIM_EEXTERNAL;
	}
	free(msg);
	if (r) {
		free(*prog);
		*prog = NULL;
	}
	return r;
}

/* ---- per-run views: queue usage and preemptions ---- */

/* Time axis unit for a span in seconds: minutes up to 2 h, hours up to 72 h, else days. */
static double time_unit(double span_s, const char **name)
{
	if (span_s <= 2 * 3600.0) {
		*name = "minutes";
		return 60;
	}
	if (span_s <= 72 * 3600.0) {
		*name = "hours";
		return 3600;
	}
	*name = "days";
	return 86400;
}

void plot_file_name(const char *prefix, const char *run, char *buf, size_t cap)
{
	int n = snprintf(buf, cap, "%s", prefix);
	size_t k = n > 0 && (size_t)n < cap ? (size_t)n : 0, end = k + PLOT_NAME_MAX;
	for (; *run && k + 1 < cap && k < end; run++) {
		char c = *run;
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			 c == '.' || c == '_' || c == '-';
		buf[k++] = ok ? c : '_';
	}
	if (k < cap)
		buf[k] = 0;
}

/* A string as one field of a .dat header line: double-quoted, quotes, backslashes
 * and line breaks replaced (gnuplot has no escape inside data-file strings). */
static void dat_field(FILE *f, const char *name)
{
	fputc('"', f);
	for (; *name; name++)
		fputc(*name == '"' || *name == '\\' || *name == '\n' || *name == '\r' ? '\'' : *name, f);
	fputc('"', f);
}

/* Which stacked series each queue goes into: queues in trace order while there are
 * at most PLOT_MAX_QUEUES; else the PLOT_MAX_QUEUES - 1 that used the most
 * GPU-time keep their own series and the rest are summed as "other" (the last).
 * Fills series[q] and returns the number of series. */
static size_t queue_series(const struct h5read_timeseries *ts, size_t *series)
{
	size_t nq = ts->n_queues;
	if (nq <= PLOT_MAX_QUEUES) {
		for (size_t q = 0; q < nq; q++)
			series[q] = q;
		return nq;
	}
	double *use = calloc(nq, sizeof *use);
	size_t keep = PLOT_MAX_QUEUES - 1, n_kept = 0;
	for (size_t i = 0; use && i < ts->n; i++) {
		double dt = i + 1 < ts->n ? ts->t_s[i + 1] - ts->t_s[i] : 0.0;
		for (size_t q = 0; q < nq; q++)
			use[q] += ts->queue_usage[i * nq + q] * dt;
	}
	/* rank q: queues using more, or as much with a lower index, come before it */
	for (size_t q = 0; q < nq; q++) {
		size_t rank = 0;
		for (size_t p = 0; use && p < nq; p++)
			rank += use[p] > use[q] || (use[p] == use[q] && p < q);
		series[q] = (use ? rank : q) < keep ? 0 : keep;
	}
	for (size_t q = 0; q < nq; q++)
		if (series[q] == 0)
			series[q] = n_kept++; /* kept queues in trace order */
	free(use);
	return keep + 1;
}

/* Writes OUTDIR/queues_<run>.dat: a header line naming each series, then rows
 * "t base_1 mid_1 top_1 base_2 ...": series k is drawn from base_k to mid_k (within
 * its nominal quota, or all of its usage without quotas) and from mid_k to top_k
 * (above nominal: borrowed), stacked (base_k = top_(k-1)). A bucket of samples is
 * drawn as its time-weighted mean; each point is written twice, at the previous and
 * its own value, so the areas step. Returns the number of series, or -1. */
static long queue_dat(FILE *f, const struct h5read_timeseries *ts, double unit_s)
{
	size_t nq = ts->n_queues, n = ts->n;
	size_t *series = calloc(nq + 1, sizeof *series);
	if (!series)
		return -1;
	size_t ns = queue_series(ts, series);
	double *cur = calloc(2 * ns + 1, sizeof *cur), *prev = calloc(2 * ns + 1, sizeof *prev);
	if (!cur || !prev) {
		free(series);
		free(cur);
		free(prev);
		return -1;
	}
	fprintf(f, "# %zu queues in %zu series, %zu samples\n", nq, ns, n);
	dat_field(f, "time");
	for (size_t k = 0; k < ns; k++) {
		const char *name = "other";
		for (size_t q = 0; q < nq; q++)
			if (series[q] == k && !(k == ns - 1 && nq > PLOT_MAX_QUEUES)) {
				name = ts->queue_names[q];
				break;
			}
		for (int c = 0; c < 3; c++) {
			fputc(' ', f);
			dat_field(f, name);
		}
	}
	fputc('\n', f);
	size_t per = n <= PLOT_MAX_POINTS ? 1 : (n + PLOT_MAX_POINTS - 1) / PLOT_MAX_POINTS;
	for (size_t a = 0; a < n; a += per) {
		size_t b = a + per < n ? a + per : n;
		double wsum = 0;
		memset(cur, 0, 2 * ns * sizeof *cur);
		for (size_t i = a; i < b; i++) {
			double w = i + 1 < n ? ts->t_s[i + 1] - ts->t_s[i] : 0.0;
			if (b - a == 1)
				w = 1.0; /* one sample: its own value */
			wsum += w;
			for (size_t q = 0; q < nq; q++) {
				double u = ts->queue_usage[i * nq + q];
				double above = ts->queue_borrowed ? ts->queue_borrowed[i * nq + q] : 0.0;
				above = above < 0 ? 0 : above > u ? u : above;
				cur[2 * series[q]] += w * (u - above);
				cur[2 * series[q] + 1] += w * above;
			}
		}
		for (size_t k = 0; k < 2 * ns; k++)
			cur[k] = wsum > 0 ? cur[k] / wsum : 0.0;
		double t = ts->t_s[a] / unit_s;
		for (int pass = a > 0 ? 0 : 1; pass < 2; pass++) {
			const double *v = pass == 0 ? prev : cur;
			double base = 0;
			fprintf(f, "%.9g", t);
			for (size_t k = 0; k < ns; k++) {
				double mid = base + v[2 * k], top = mid + v[2 * k + 1];
				fprintf(f, " %.9g %.9g %.9g", base, mid, top);
				base = top;
			}
			fputc('\n', f);
		}
		memcpy(prev, cur, 2 * ns * sizeof *cur);
	}
	free(series);
	free(cur);
	free(prev);
	return (long)ns;
}

/* Colours of the queue series and of the reasons (gnuplot word lists). */
#define QUEUE_PALETTE                                                                                 \
	"#1f77b4 #ff7f0e #2ca02c #d62728 #9467bd #8c564b #e377c2 #7f7f7f #bcbd22 #17becf #aec7e8 #393b79"
/* A reason keeps its colour from plot to plot; a name this build does not know is grey. */
static const char *const reason_names[] = { "in_queue", "cohort_reclamation",
					    "cohort_reclaim_while_borrowing", "cohort_fair_sharing",
					    "quota_shrink" };
static const char *const reason_colors[] = { "#1f77b4", "#d62728", "#ff7f0e",
					     "#2ca02c", "#9467bd", "#7f7f7f" };

/* Writes OUTDIR/preemptions_<run>.dat: a header line ("time" and each reason that
 * occurs), then one row a bin: its centre and the cumulative counts (reason 1, 1+2,
 * ...), so each reason's box is drawn from the previous cumulative count. The bin
 * is an hour for runs up to 14 days, else a day (or k days, at most PLOT_MAX_POINTS
 * bins). Fills the variables for the template into extra. Returns 0 or -1. */
static int preempt_dat(FILE *f, const struct h5read_decisions *d, double span_s, const char *run, char *extra,
		       size_t cap)
{
	/* reasons as the file names them, in order of first appearance */
	const char *names[16];
	size_t nr = 0;
	size_t *which = calloc(d->n + 1, sizeof *which);
	if (!which)
		return -1;
	for (size_t i = 0; i < d->n; i++) {
		size_t k = 0;
		while (k < nr && strcmp(names[k], d->reason[i]) != 0)
			k++;
		if (k == nr && nr < 16)
			names[nr++] = d->reason[i];
		which[i] = k < nr ? k : nr - 1;
	}
	for (size_t i = 0; i < d->n; i++)
		if (d->time_s[i] > span_s)
			span_s = d->time_s[i];
	double bin_s = 3600, unit_s = 3600;
	const char *xunit = "hours";
	char binname[32] = "hour";
	if (span_s > 14 * 86400.0) {
		double days = ceil(span_s / 86400.0 / PLOT_MAX_POINTS);
		bin_s = 86400 * (days < 1 ? 1 : days);
		unit_s = 86400;
		xunit = "days";
		if (days > 1)
			snprintf(binname, sizeof binname, "%.0f days", days);
		else
			snprintf(binname, sizeof binname, "day");
	}
	size_t nbins = (size_t)floor(span_s / bin_s) + 1;
	double *count = calloc(nbins * (nr ? nr : 1), sizeof *count);
	if (!count) {
		free(which);
		return -1;
	}
	for (size_t i = 0; i < d->n; i++) {
		double t = d->time_s[i] > 0 ? d->time_s[i] : 0;
		size_t b = (size_t)floor(t / bin_s);
		count[(b < nbins ? b : nbins - 1) * nr + which[i]]++;
	}
	fprintf(f, "# %zu preemptions, %zu bins of %.0f s\n", d->n, nbins, bin_s);
	dat_field(f, "time");
	for (size_t k = 0; k < nr; k++) {
		fputc(' ', f);
		dat_field(f, names[k]);
	}
	fputc('\n', f);
	for (size_t b = 0; b < nbins; b++) {
		fprintf(f, "%.9g", (((double)b + 0.5) * bin_s) / unit_s);
		double cum = 0;
		for (size_t k = 0; k < nr; k++) {
			cum += count[b * nr + k];
			fprintf(f, " %.9g", cum);
		}
		fputc('\n', f);
	}
	char colors[256] = "", qrun[600];
	for (size_t k = 0; k < nr; k++) {
		size_t c = 0;
		size_t n_known = sizeof reason_names / sizeof reason_names[0];
		while (c < n_known && strcmp(names[k], reason_names[c]) != 0)
			c++;
		snprintf(colors + strlen(colors), sizeof colors - strlen(colors), "%s%s", k ? " " : "",
			 reason_colors[c]);
	}
	plot_gp_quote(qrun, sizeof qrun, run);
	snprintf(extra, cap, "runname=%s; nreasons=%zu; binwidth=%.9g; binname='%s'; colors='%s'; xunit='%s'",
		 qrun, nr, bin_s / unit_s, binname, colors, xunit);
	free(which);
	free(count);
	return 0;
}

/* The queue-usage plot of one run, when it has per-queue series worth a plot (more
 * than one queue, or quotas). Returns 0 (done, or *skipped set), or -SIM_E*. */
static int plot_queues(const struct h5read_file *f, const struct plot_opts *o, const char *run, double cap,
		       const char *gp, const char *term, const char *adir, int *skipped,
		       struct sim_diag *diag)
{
	struct h5read_timeseries ts;
	int r = h5read_timeseries(f, run, &ts, diag);
	if (r)
		return r;
	if (!ts.queue_usage || ts.n == 0 || (ts.n_queues < 2 && !ts.queue_nominal)) {
		*skipped = 1;
		goto out_ts;
	}
	char base[RUN_BASE_MAX], path[DAT_PATH_MAX], extra[1024], qrun[600];
	FILE *df;
	if ((r = open_run_dat(o, "queues_", run, base, path, &df, diag)))
		goto out_ts;
	struct plot_vars pv = { .nblocks = 1, .npoints = (long)ts.n, .capacity = isfinite(cap) ? cap : 0 };
	double unit_s = time_unit(ts.t_s[ts.n - 1], &pv.xunit);
	long ns = queue_dat(df, &ts, unit_s);
	if ((r = close_dat(df, path, diag)))
		goto out_ts;
	if (ns < 0) {
		sim_diag_add(diag, h5read_path(f), "out of memory");
		r = -SIM_ENOMEM;
		goto out_ts;
	}
	plot_gp_quote(qrun, sizeof qrun, run);
	snprintf(extra, sizeof extra, "runname=%s; nseries=%ld; hasquota=%d; palette='%s'", qrun, ns,
		 ts.queue_borrowed != NULL, QUEUE_PALETTE);
	r = run_template(gp, adir, o, "queue_usage", base, term, &pv, extra, o->quiet, diag);
out_ts:
	h5read_timeseries_free(&ts);
	return r;
}

/* The preemptions plot of one run, when it has preemptions. */
static int plot_preemptions(const struct h5read_file *f, const struct plot_opts *o, const char *run,
			    double span_s, const char *gp, const char *term, const char *adir, int *skipped,
			    struct sim_diag *diag)
{
	struct h5read_decisions d;
	int r = h5read_decisions(f, run, &d, diag);
	if (r)
		return r;
	if (d.n == 0) {
		*skipped = 1;
		goto out_d;
	}
	char base[RUN_BASE_MAX], path[DAT_PATH_MAX], extra[2048];
	FILE *df;
	if ((r = open_run_dat(o, "preemptions_", run, base, path, &df, diag)))
		goto out_d;
	int w = preempt_dat(df, &d, span_s, run, extra, sizeof extra);
	if ((r = close_dat(df, path, diag)))
		goto out_d;
	if (w < 0) {
		sim_diag_add(diag, h5read_path(f), "out of memory");
		r = -SIM_ENOMEM;
		goto out_d;
	}
	struct plot_vars pv = { .nblocks = 1, .npoints = (long)d.n };
	r = run_template(gp, adir, o, "preemptions", base, term, &pv, extra, o->quiet, diag);
out_d:
	h5read_decisions_free(&d);
	return r;
}

/* The option histogram of one run, when some job had 2 or more options (the options
 * table has a row an option index up to the largest list). */
static int plot_options(const struct h5read_file *f, const struct plot_opts *o, const char *run,
			const char *gp, const char *term, const char *adir, int *skipped,
			struct sim_diag *diag)
{
	struct h5read_table op;
	int r = h5read_options(f, run, &op, diag);
	if (r)
		return r;
	if (!op.present || op.n_rows < 2) {
		*skipped = 1;
		goto out_op;
	}
	char base[RUN_BASE_MAX], path[DAT_PATH_MAX], extra[1024], qrun[600];
	FILE *df;
	if ((r = open_run_dat(o, "options_", run, base, path, &df, diag)))
		goto out_op;
	double started = 0, most = 0;
	fprintf(df, "# run %s: started jobs by the option they ran on\n", run);
	dat_field(df, "option");
	fputc(' ', df);
	dat_field(df, "jobs");
	fputc('\n', df);
	for (size_t k = 0; k < op.n_rows; k++) {
		double n = h5read_table_get(&op, k, "jobs");
		if (!isfinite(n))
			n = 0;
		started += n;
		most = n > most ? n : most;
		fprintf(df, "%zu %.9g\n", k, n);
	}
	if ((r = close_dat(df, path, diag)))
		goto out_op;
	plot_gp_quote(qrun, sizeof qrun, run);
	snprintf(extra, sizeof extra, "runname=%s; noptions=%zu; maxjobs=%.9g; started=%.0f", qrun, op.n_rows,
		 most, started);
	struct plot_vars pv = { .nblocks = 1, .npoints = (long)op.n_rows };
	r = run_template(gp, adir, o, "options", base, term, &pv, extra, o->quiet, diag);
out_op:
	h5read_table_free(&op);
	return r;
}

/* Most characters of a cost_wait.dat label (the runs at one point, comma-separated). */
#define COST_WAIT_LABEL_MAX 120

/* The label of the point of summary row i: its run name, and the names of the later
 * rows with the same values (runs that tie, e.g. two policies that chose alike, share
 * one label instead of drawing their names over each other), cut at
 * COST_WAIT_LABEL_MAX characters with "...". */
static void cost_wait_label(const struct h5read_summary *s, const double *w, const double *c, size_t i,
			    char *label)
{
	size_t len = 0;
	for (size_t k = i; k < s->n_rows; k++) {
		if (k != i && !(w[k] == w[i] && c[k] == c[i]))
			continue;
		int n = snprintf(label + len, COST_WAIT_LABEL_MAX + 1 - len, "%s%s", k == i ? "" : ", ",
				 s->run[k]);
		if (n < 0 || len + (size_t)n > COST_WAIT_LABEL_MAX) {
			memcpy(label + COST_WAIT_LABEL_MAX - 3, "...", 4);
			return;
		}
		len += (size_t)n;
	}
}

/* 1 when some run paid something (a price is set): else the cost plot would be a
 * row of points at 0. */
static int any_cost(const struct h5read_summary *s)
{
	for (size_t i = 0; i < s->n_rows; i++) {
		double c = h5read_summary_get(s, i, "mean_cost_per_job");
		if (isfinite(c) && c > 0)
			return 1;
	}
	return 0;
}

/* OUTDIR/cost_wait.png: one point a run of the summary with a finite mean wait and
 * mean cost per job (hours, currency), labelled with the run name; runs at the same
 * point share one point and one label. */
static int plot_cost_wait(const struct h5read_summary *s, const struct plot_opts *o, const char *gp,
			  const char *term, const char *adir, struct sim_diag *diag)
{
	size_t nr = s->n_rows;
	double *w = malloc((2 * nr + 1) * sizeof *w), *c = w ? w + nr : NULL;
	if (!w) {
		sim_diag_add(diag, o->outdir, "out of memory");
		return -SIM_ENOMEM;
	}
	for (size_t i = 0; i < nr; i++) {
		w[i] = h5read_summary_get(s, i, "mean_wait_s") / 3600.0;
		c[i] = h5read_summary_get(s, i, "mean_cost_per_job");
	}
	char path[1024], label[COST_WAIT_LABEL_MAX + 1];
	FILE *df = open_dat(o, "cost_wait.dat", path, sizeof path, diag);
	if (!df) {
		free(w);
		return -SIM_EIO;
	}
	long n = 0;
	fprintf(df, "# mean wait (h) and mean cost per job (currency), one row a point\n");
	dat_field(df, "wait_h");
	fputc(' ', df);
	dat_field(df, "cost");
	fputs(" \"runs\"\n", df);
	for (size_t i = 0; i < nr; i++) {
		int seen = 0;
		for (size_t k = 0; k < i && !seen; k++)
			seen = w[k] == w[i] && c[k] == c[i];
		if (!isfinite(w[i]) || !isfinite(c[i]) || seen)
			continue;
		cost_wait_label(s, w, c, i, label);
		fprintf(df, "%.9g %.9g ", w[i], c[i]);
		dat_field(df, label);
		fputc('\n', df);
		n++;
	}
	free(w);
	int r = close_dat(df, path, diag);
	if (r)
		return r;
	struct plot_vars pv = { .nblocks = 1, .npoints = n };
	return run_template(gp, adir, o, "cost_wait", "cost_wait", term, &pv, NULL, o->quiet, diag);
}

/* ---- faults: lost GPU-hours by cause ---- */

/* The causes of lost work, as the summary counts them (docs/faults.md): the three
 * fault causes, and the rest of lost_gpu_s (preemptions, capacity removals). */
static const char *const lost_cause_fields[] = { "lost_node_failed_gpu_s", "lost_crashed_gpu_s", "lost_hang_gpu_s",
						 "lost_loss_spike_gpu_s" };
static const char *const lost_cause_titles[] = { "node failure", "crash", "hang", "loss spike", "preemption, capacity" };
#define N_LOST_CAUSES 5

/* Run i's lost GPU-hours by cause into v[N_LOST_CAUSES]. */
static void lost_by_cause(const struct h5read_summary *s, size_t i, double *v)
{
	for (size_t k = 0; k < 4; k++) {
		v[k] = h5read_summary_get(s, i, lost_cause_fields[k]);
		if (isnan(v[k]))
			v[k] = 0; /* loss spikes: absent from files before schema 2.1 */
	}
	v[4] = h5read_summary_lost_other_gpu_s(s, i);
	for (size_t k = 0; k < N_LOST_CAUSES; k++)
		v[k] /= 3600.0;
}

/* Does run `run` have a fault model (a /runs/<run>/faults table)? -1 on a read error. */
static int run_has_faults(const struct h5read_file *f, const char *run, struct sim_diag *diag)
{
	struct h5read_table t;
	if (h5read_faults(f, run, &t, diag))
		return -1;
	int present = t.present;
	h5read_table_free(&t);
	return present;
}

/* OUTDIR/faults_lost.png: per variant, the mean over its runs with a fault model of
 * the GPU-hours lost to each cause, stacked. Only when some run had a fault model;
 * *drawn says whether it was. */
static int plot_faults_lost(const struct h5read_file *f, const struct h5read_summary *s, const struct plot_opts *o,
			    const char *gp, const char *term, const char *adir, int *drawn, struct sim_diag *diag)
{
	*drawn = 0;
	struct variant_groups g;
	size_t nr = h5read_n_runs(f);
	double *sum = calloc((nr + 1) * N_LOST_CAUSES, sizeof *sum);
	size_t *n = calloc(nr + 1, sizeof *n);
	int r = 0;
	if (variant_groups_make(f, s, &g) < 0 || !sum || !n) {
		sim_diag_add(diag, h5read_path(f), "out of memory");
		r = -SIM_ENOMEM;
	}
	for (size_t i = 0; !r && i < nr; i++) {
		const char *run = h5read_run_name(f, i);
		int row = h5read_summary_row(s, run), has = row >= 0 ? run_has_faults(f, run, diag) : 0;
		if (has < 0)
			r = -SIM_EIO;
		if (has <= 0)
			continue;
		double v[N_LOST_CAUSES];
		lost_by_cause(s, (size_t)row, v);
		for (size_t k = 0; k < N_LOST_CAUSES; k++)
			sum[g.of[i] * N_LOST_CAUSES + k] += v[k];
		n[g.of[i]]++;
	}
	size_t shown = 0;
	for (size_t v = 0; !r && v < g.n; v++)
		shown += n[v] > 0;
	FILE *df = NULL;
	char path[1024];
	if (!r && shown && !(df = open_dat(o, "faults_lost.dat", path, sizeof path, diag)))
		r = -SIM_EIO;
	if (df) {
		fprintf(df, "# lost GPU-hours by cause, mean over a variant's runs with a fault model, one row a variant\n");
		dat_field(df, "variant");
		for (size_t k = 0; k < N_LOST_CAUSES; k++) {
			fputc(' ', df);
			dat_field(df, lost_cause_titles[k]);
		}
		fputc('\n', df);
		for (size_t v = 0; v < g.n; v++) {
			if (!n[v])
				continue;
			char label[SIM_NAME_MAX + 32];
			snprintf(label, sizeof label, "%s (%zu run%s)", g.name[v], n[v], n[v] == 1 ? "" : "s");
			dat_field(df, label);
			for (size_t k = 0; k < N_LOST_CAUSES; k++)
				fprintf(df, " %.9g", sum[v * N_LOST_CAUSES + k] / (double)n[v]);
			fputc('\n', df);
		}
		r = close_dat(df, path, diag);
	}
	free(sum);
	free(n);
	variant_groups_free(&g);
	if (r || !shown)
		return r;
	struct plot_vars pv = { .nblocks = 1, .npoints = (long)shown };
	*drawn = 1;
	return run_template(gp, adir, o, "faults_lost", "faults_lost", term, &pv, NULL, o->quiet, diag);
}

/* ---- faults: ETTR by job size ---- */

/* Job sizes in allocated GPUs, as ranges doubling from 1: "1", "2", "3-4", "5-8",
 * ..., and the last open. */
#define ETTR_SIZE_BUCKETS 10
static size_t size_bucket(double gpus)
{
	size_t b = 0;
	for (double hi = 1; b + 1 < ETTR_SIZE_BUCKETS && ceil(gpus) > hi; hi *= 2)
		b++;
	return b;
}

static void size_bucket_label(size_t b, char *buf, size_t cap)
{
	long hi = 1L << b, lo = b ? (1L << (b - 1)) + 1 : 1;
	if (b + 1 == ETTR_SIZE_BUCKETS)
		snprintf(buf, cap, "%ld+", lo);
	else if (lo == hi)
		snprintf(buf, cap, "%ld", hi);
	else
		snprintf(buf, cap, "%ld-%ld", lo, hi);
}

/* Adds run `run`'s jobs to its variant's sums: per size bucket, allocated GPUs x
 * useful_s and x held_s over the jobs that held GPUs. 1 if the run had a fault
 * model whose table holds held_s (2.0), 0 if not, or -SIM_E*. */
static int ettr_size_add(const struct h5read_file *f, const char *run, double *num, double *den,
			 struct sim_diag *diag)
{
	struct h5read_table t;
	int r = h5read_faults(f, run, &t, diag);
	if (r)
		return r;
	if (!t.present || h5read_table_field(&t, "held_s") < 0 || h5read_table_field(&t, "useful_s") < 0) {
		h5read_table_free(&t);
		return 0;
	}
	struct h5read_jobs j;
	if ((r = h5read_jobs(f, run, &j, diag))) {
		h5read_table_free(&t);
		return r;
	}
	for (size_t i = 0; i < t.n_rows && i < j.n; i++) { /* one row a job, in the jobs table's order */
		double held = h5read_table_get(&t, i, "held_s"), useful = h5read_table_get(&t, i, "useful_s");
		double g = j.alloc_gpus[i];
		if (!(held > 0) || !isfinite(useful) || !(g > 0))
			continue;
		size_t b = size_bucket(g);
		num[b] += g * useful;
		den[b] += g * held;
	}
	h5read_jobs_free(&j);
	h5read_table_free(&t);
	return 1;
}

/* OUTDIR/faults_ettr_size.png: ETTR (useful GPU time / GPU time held) by job size,
 * one bar a variant in each size range, over the variant's runs with a fault model
 * (pooled: sums of GPU-seconds, as the summary's ettr). Drawn only when some run
 * has one (with held_s in its faults table: 2.0 files). */
static int plot_faults_ettr_size(const struct h5read_file *f, const struct h5read_summary *s,
				 const struct plot_opts *o, const char *gp, const char *term, const char *adir,
				 struct sim_diag *diag)
{
	struct variant_groups g;
	size_t nr = h5read_n_runs(f);
	double *num = calloc((nr + 1) * ETTR_SIZE_BUCKETS * 2, sizeof *num);
	size_t *runs = calloc(nr + 1, sizeof *runs);
	int r = 0;
	if (variant_groups_make(f, s, &g) < 0 || !num || !runs) {
		sim_diag_add(diag, h5read_path(f), "out of memory");
		r = -SIM_ENOMEM;
	}
	double *den = num ? num + (nr + 1) * ETTR_SIZE_BUCKETS : NULL;
	for (size_t i = 0; !r && i < nr; i++) {
		size_t v = g.of[i];
		int got = ettr_size_add(f, h5read_run_name(f, i), &num[v * ETTR_SIZE_BUCKETS],
					&den[v * ETTR_SIZE_BUCKETS], diag);
		if (got < 0)
			r = got;
		else
			runs[v] += (size_t)got;
	}
	size_t shown = 0, rows = 0;
	for (size_t v = 0; !r && v < g.n; v++)
		shown += runs[v] > 0;
	FILE *df = NULL;
	char path[1024];
	if (!r && shown && !(df = open_dat(o, "faults_ettr_size.dat", path, sizeof path, diag)))
		r = -SIM_EIO;
	if (df) {
		fprintf(df, "# ETTR by job size (allocated GPUs): one row a size range, a column a variant "
			    "(sum of GPUs x useful_s / sum of GPUs x held_s over its runs with a fault model)\n");
		dat_field(df, "GPUs");
		for (size_t v = 0; v < g.n; v++) {
			if (!runs[v])
				continue;
			char label[SIM_NAME_MAX + 32];
			snprintf(label, sizeof label, "%s (%zu run%s)", g.name[v], runs[v], runs[v] == 1 ? "" : "s");
			fputc(' ', df);
			dat_field(df, label);
		}
		fputc('\n', df);
		for (size_t b = 0; b < ETTR_SIZE_BUCKETS; b++) {
			int any = 0;
			for (size_t v = 0; v < g.n; v++)
				any |= runs[v] && den[v * ETTR_SIZE_BUCKETS + b] > 0;
			if (!any)
				continue;
			char label[32];
			size_bucket_label(b, label, sizeof label);
			dat_field(df, label);
			for (size_t v = 0; v < g.n; v++) {
				if (!runs[v])
					continue;
				double d = den[v * ETTR_SIZE_BUCKETS + b];
				if (d > 0)
					fprintf(df, " %.9g", num[v * ETTR_SIZE_BUCKETS + b] / d);
				else
					fputs(" NaN", df);
			}
			fputc('\n', df);
			rows++;
		}
		r = close_dat(df, path, diag);
	}
	free(num);
	free(runs);
	variant_groups_free(&g);
	if (r || !shown)
		return r;
	struct plot_vars pv = { .nblocks = (long)shown, .npoints = (long)rows };
	char extra[64];
	snprintf(extra, sizeof extra, "nvariants=%zu", shown);
	return run_template(gp, adir, o, "faults_ettr_size", "faults_ettr_size", term, &pv, extra, o->quiet, diag);
}

/* ---- sweeps: key metrics against each swept parameter, mean and 95% CI over seeds ---- */

/* Bytes of one value's piece of a variant name, as experiments/config.c cuts it. */
#define SWEEP_LABEL_MAX (SIM_NAME_MAX * 2)
/* The most variants a config may sweep (experiments/config.c refuses more). */
#define SWEEP_MAX_VARIANTS 100000

/* The metrics drawn against a swept parameter. A time is shown in s, minutes, hours or
 * days (from the largest mean + half-width of the metric over the variants); cost only
 * when some variant's mean is finite and not 0 (a config without prices costs 0). */
enum sweep_kind { SWEEP_TIME, SWEEP_PERCENT, SWEEP_COST };
struct sweep_metric {
	const char *field; /* /summary field */
	const char *file;  /* file name part: sweep_<file>_<parameter>.png */
	const char *what;  /* axis label, before the unit */
	const char *title; /* the same, capitalized for the title */
	enum sweep_kind kind;
};
static const struct sweep_metric sweep_metrics[] = {
	{ "mean_wait_s", "mean_wait", "mean wait", "Mean wait", SWEEP_TIME },
	{ "p95_wait_s", "p95_wait", "95th percentile of wait", "95th percentile of wait", SWEEP_TIME },
	{ "mean_jct_s", "mean_jct", "mean JCT", "Mean JCT", SWEEP_TIME },
	{ "utilization", "utilization", "GPU utilization", "GPU utilization", SWEEP_PERCENT },
	{ "mean_cost_per_job", "cost", "mean cost per job", "Mean cost per job", SWEEP_COST },
};
#define SWEEP_N_METRICS (sizeof sweep_metrics / sizeof sweep_metrics[0])

/* One swept parameter: a key of the config's "sweep" object and its list of values. */
struct sweep_param {
	const char *path;               /* as written, less a leading "$."; points into sweep.root */
	size_t n;                       /* values (at least 1) */
	size_t stride;                  /* variant index step between its values (the last key: 1) */
	int numeric;                    /* 1: every value is a JSON number, drawn on a numeric axis */
	double *x;                      /* n: the value when numeric, else its position */
	char (*label)[SWEEP_LABEL_MAX]; /* n: the value as written in variant names */
};

/* The sweep of a results file, its runs grouped by variant. Variant v (its index in the
 * config's order, the last key fastest) has the summary rows row[first[v] .. first[v] +
 * count[v]); mean, ci95 and n_with are n_variants x SWEEP_N_METRICS. */
struct sweep {
	cJSON *root;
	size_t n_params, n_variants, n_unmatched, min_runs, max_runs;
	struct sweep_param *p;
	char **vname;
	size_t *first, *count, *row;
	double *mean, *ci95;
	size_t *n_with; /* runs with a value (not NaN) */
};

static void sweep_free(struct sweep *sw)
{
	for (size_t k = 0; sw->p && k < sw->n_params; k++) {
		free(sw->p[k].x);
		free(sw->p[k].label);
	}
	for (size_t v = 0; sw->vname && v < sw->n_variants; v++)
		free(sw->vname[v]);
	free(sw->p);
	free(sw->vname);
	free(sw->first);
	free(sw->count);
	free(sw->row);
	free(sw->mean);
	free(sw->ci95);
	free(sw->n_with);
	cJSON_Delete(sw->root);
	memset(sw, 0, sizeof *sw);
}

/* Reads one swept parameter from its key and list. 0, 1 when the list is not a
 * non-empty array (no sweep gpusched would run), or -SIM_ENOMEM. */
static int sweep_param_load(const cJSON *item, struct sweep_param *p)
{
	p->path = item->string;
	if (strncmp(p->path, "$.", 2) == 0)
		p->path += 2;
	int n = cJSON_IsArray(item) ? cJSON_GetArraySize(item) : 0;
	if (n <= 0)
		return 1;
	p->n = (size_t)n;
	p->x = malloc(p->n * sizeof *p->x);
	p->label = malloc(p->n * sizeof *p->label);
	if (!p->x || !p->label)
		return -SIM_ENOMEM;
	p->numeric = 1;
	size_t j = 0;
	for (const cJSON *v = item->child; v && j < p->n; v = v->next, j++) {
		p->numeric &= cJSON_IsNumber(v) && isfinite(v->valuedouble);
		p->x[j] = cJSON_IsNumber(v) ? v->valuedouble : (double)j;
		exp_sweep_value_label(v, j, p->label[j], SWEEP_LABEL_MAX);
	}
	if (!p->numeric)
		for (j = 0; j < p->n; j++)
			p->x[j] = (double)j;
	return 0;
}

static int name_ptr_cmp(const void *a, const void *b)
{
	return strcmp(**(char *const *const *)a, **(char *const *const *)b);
}

/* Sorts pointers to the variant names (by name) into by[n_variants]. */
static void sweep_sort_names(const struct sweep *sw, char ***by)
{
	for (size_t v = 0; v < sw->n_variants; v++)
		by[v] = &sw->vname[v];
	qsort(by, sw->n_variants, sizeof *by, name_ptr_cmp);
}

/* The variant names: each variant's value pieces joined with '_', made unique as
 * experiments/config.c makes them. 0 or -SIM_ENOMEM. */
static int sweep_names(struct sweep *sw)
{
	size_t len = 1;
	for (size_t k = 0; k < sw->n_params; k++)
		len += SWEEP_LABEL_MAX;
	sw->vname = calloc(sw->n_variants, sizeof *sw->vname);
	if (!sw->vname)
		return -SIM_ENOMEM;
	for (size_t v = 0; v < sw->n_variants; v++) {
		char *nm = malloc(len);
		if (!(sw->vname[v] = nm))
			return -SIM_ENOMEM;
		nm[0] = 0;
		for (size_t k = 0; k < sw->n_params; k++) {
			const struct sweep_param *p = &sw->p[k];
			if (k)
				strcat(nm, "_");
			strcat(nm, p->label[(v / p->stride) % p->n]);
		}
	}
	return exp_names_make_unique(sw->vname, sw->n_variants);
}

/* Reads the "sweep" of the config text. 0 with the parameters and variant names, 1
 * when there is no usable sweep (no config, not JSON, no or an empty sweep), or
 * -SIM_ENOMEM. */
static int sweep_load(const char *json, struct sweep *sw)
{
	memset(sw, 0, sizeof *sw);
	if (!json || !(sw->root = cJSON_Parse(json)))
		return 1;
	const cJSON *obj = cJSON_GetObjectItemCaseSensitive(sw->root, "sweep"), *item;
	if (!cJSON_IsObject(obj) || !obj->child)
		return 1;
	cJSON_ArrayForEach(item, obj)
		sw->n_params++;
	sw->p = calloc(sw->n_params, sizeof *sw->p);
	if (!sw->p)
		return -SIM_ENOMEM;
	size_t k = 0;
	double nv = 1;
	cJSON_ArrayForEach(item, obj) {
		int r = sweep_param_load(item, &sw->p[k]);
		if (r)
			return r;
		nv *= (double)sw->p[k++].n;
	}
	if (nv > SWEEP_MAX_VARIANTS)
		return 1;
	sw->n_variants = (size_t)nv;
	for (size_t s = 1; k-- > 0; s *= sw->p[k].n)
		sw->p[k].stride = s;
	return sweep_names(sw);
}

/* Finds each summary row's variant by name (the run name less "-s<seed>") and lists
 * the rows of each variant in file order; rows of no variant are counted in
 * n_unmatched. 0 or -SIM_ENOMEM. */
static int sweep_match(struct sweep *sw, const struct h5read_summary *s)
{
	size_t nv = sw->n_variants, nr = s->n_rows;
	char ***by = malloc(nv * sizeof *by);
	long *vof = malloc((nr + 1) * sizeof *vof);
	sw->first = calloc(nv + 1, sizeof *sw->first);
	sw->count = calloc(nv + 1, sizeof *sw->count);
	sw->row = malloc((nr + 1) * sizeof *sw->row);
	int r = -SIM_ENOMEM;
	if (!by || !vof || !sw->first || !sw->count || !sw->row)
		goto out;
	sweep_sort_names(sw, by);
	for (size_t i = 0; i < nr; i++) {
		size_t len = report_variant_len(s->run[i], s->seed[i]), lo = 0, hi = nv;
		vof[i] = -1;
		while (lo < hi) { /* the first name not below the run's variant */
			size_t mid = lo + (hi - lo) / 2;
			int c = strncmp(*by[mid], s->run[i], len);
			if (c < 0 || (c == 0 && strlen(*by[mid]) < len))
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < nv && strlen(*by[lo]) == len && strncmp(*by[lo], s->run[i], len) == 0) {
			vof[i] = by[lo] - sw->vname;
			sw->count[vof[i]]++;
		} else {
			sw->n_unmatched++;
		}
	}
	for (size_t v = 1; v < nv; v++)
		sw->first[v] = sw->first[v - 1] + sw->count[v - 1];
	memset(sw->count, 0, nv * sizeof *sw->count);
	for (size_t i = 0; i < nr; i++)
		if (vof[i] >= 0)
			sw->row[sw->first[vof[i]] + sw->count[vof[i]]++] = i;
	sw->min_runs = SIZE_MAX;
	for (size_t v = 0; v < nv; v++) {
		if (!sw->count[v])
			continue;
		sw->min_runs = sw->count[v] < sw->min_runs ? sw->count[v] : sw->min_runs;
		sw->max_runs = sw->count[v] > sw->max_runs ? sw->count[v] : sw->max_runs;
	}
	r = 0;
out:
	free(by);
	free(vof);
	return r;
}

/* Mean and 95% CI half-width of each metric in each variant, through
 * sim_metrics_replicate as the report's replications table computes them (each
 * metric over its runs where it is not NaN; one run: half-width 0; none: NaN). Metric
 * m goes in slot m of a struct sim_summary (the slots are summarized independently).
 * 0 or -SIM_ENOMEM. */
static int sweep_stats(struct sweep *sw, const struct h5read_summary *s)
{
	size_t nv = sw->n_variants, nm = SWEEP_N_METRICS;
	int fi[SWEEP_N_METRICS];
	struct sim_summary *buf = malloc((sw->max_runs + 1) * sizeof *buf);
	sw->mean = malloc(nv * nm * sizeof *sw->mean);
	sw->ci95 = malloc(nv * nm * sizeof *sw->ci95);
	sw->n_with = calloc(nv * nm, sizeof *sw->n_with);
	if (!buf || !sw->mean || !sw->ci95 || !sw->n_with) {
		free(buf);
		return -SIM_ENOMEM;
	}
	for (size_t m = 0; m < nm; m++)
		fi[m] = h5read_summary_field(s, sweep_metrics[m].field);
	for (size_t v = 0; v < nv; v++) {
		for (size_t r = 0; r < sw->count[v]; r++) {
			size_t row = sw->row[sw->first[v] + r];
			for (size_t j = 0; j < SIM_SUM_COUNT_; j++)
				buf[r].v[j] = NAN;
			for (size_t m = 0; m < nm; m++) {
				buf[r].v[m] = fi[m] >= 0 ? s->v[row * s->n_fields + (size_t)fi[m]] : NAN;
				sw->n_with[v * nm + m] += !isnan(buf[r].v[m]);
			}
		}
		struct sim_summary mean, ci;
		sim_metrics_replicate(buf, sw->count[v], &mean, &ci);
		for (size_t m = 0; m < nm; m++) {
			sw->mean[v * nm + m] = mean.v[m];
			sw->ci95[v * nm + m] = ci.v[m];
		}
	}
	free(buf);
	return 0;
}

/* The unit a metric is drawn in: its scale (the value divided by it) and name, from
 * the largest mean + half-width over the variants. 0 when the metric has no value to
 * draw (no finite mean; for cost, none but 0). */
static int sweep_unit(const struct sweep *sw, size_t m, double *scale, const char **unit)
{
	double top = 0;
	int any = 0;
	for (size_t v = 0; v < sw->n_variants; v++) {
		double mu = sw->mean[v * SWEEP_N_METRICS + m], h = sw->ci95[v * SWEEP_N_METRICS + m];
		if (!isfinite(mu))
			continue;
		any |= sweep_metrics[m].kind != SWEEP_COST || mu != 0;
		double t = fabs(mu) + (isfinite(h) ? h : 0);
		top = t > top ? t : top;
	}
	*scale = 1;
	switch (sweep_metrics[m].kind) {
	case SWEEP_PERCENT:
		*scale = 0.01;
		*unit = "%";
		break;
	case SWEEP_COST:
		*unit = "currency";
		break;
	case SWEEP_TIME:
		*unit = "s";
		if (top > 72 * 3600.0) {
			*scale = 86400;
			*unit = "days";
		} else if (top > 2 * 3600.0) {
			*scale = 3600;
			*unit = "hours";
		} else if (top > 120.0) {
			*scale = 60;
			*unit = "minutes";
		}
		break;
	}
	return any;
}

/* A number of a sweep .dat: %.9g, or NaN (a spelling gnuplot reads as a missing point). */
static void dat_num(FILE *f, double x)
{
	if (isfinite(x))
		fprintf(f, " %.9g", x);
	else
		fputs(" NaN", f);
}

/* Text inside a double-quoted .dat string: quotes, backslashes and line breaks
 * replaced (as dat_field). */
static void dat_text(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == '"' || *s == '\\' || *s == '\n' || *s == '\r' ? '\'' : *s, f);
}

/* Writes the blocks of one sweep plot: one a combination of the other parameters'
 * values (the other keys in order, the last fastest), headed by its title
 * ("path=value, ..."; "all runs" with one parameter), one row a value of parameter p:
 * x, mean, half-width, runs with a value, the value's label. Returns the rows. */
static long sweep_dat(FILE *f, const struct sweep *sw, size_t m, size_t p, double scale)
{
	const struct sweep_param *pp = &sw->p[p];
	size_t lines = sw->n_variants / pp->n, nm = SWEEP_N_METRICS;
	long rows = 0;
	for (size_t c = 0; c < lines; c++) {
		size_t rem = c, v0 = 0;
		for (size_t k = sw->n_params; k-- > 0;) {
			if (k == p)
				continue;
			v0 += (rem % sw->p[k].n) * sw->p[k].stride;
			rem /= sw->p[k].n;
		}
		fputc('"', f);
		for (size_t k = 0, first = 1; k < sw->n_params; k++) {
			if (k == p)
				continue;
			fputs(first ? "" : ", ", f);
			dat_text(f, sw->p[k].path);
			fprintf(f, "=%s", sw->p[k].label[(v0 / sw->p[k].stride) % sw->p[k].n]);
			first = 0;
		}
		fprintf(f, "%s\"\n", sw->n_params == 1 ? "all runs" : "");
		for (size_t j = 0; j < pp->n; j++) {
			size_t v = v0 + j * pp->stride;
			fprintf(f, "%.9g", pp->x[j]);
			dat_num(f, sw->mean[v * nm + m] / scale);
			dat_num(f, sw->ci95[v * nm + m] / scale);
			fprintf(f, " %zu \"%s\"\n", sw->n_with[v * nm + m], pp->label[j]);
			rows++;
		}
		fputs("\n\n", f);
	}
	return rows;
}

/* The values' names as a gnuplot word list (names hold no spaces or quotes): the
 * categories of a string parameter, the tic marks of a numeric one (%g, as gnuplot
 * reads them back); empty when it would not fit in cap (then gnuplot picks tics). */
static void sweep_xlabels(const struct sweep_param *pp, char *buf, size_t cap)
{
	size_t len = 0;
	buf[0] = 0;
	for (size_t j = 0; j < pp->n; j++) {
		int n = snprintf(buf + len, cap - len, "%s%s", j ? " " : "", pp->label[j]);
		if (n < 0 || len + (size_t)n >= cap) {
			buf[0] = 0;
			return;
		}
		len += (size_t)n;
	}
}

/* Bytes of the category word list passed to the sweep template. */
#define SWEEP_XLABELS_MAX 6000

/* OUTDIR/sweep_<metric>_<parameter>.png (and .dat): metric m against parameter p. */
static int sweep_plot_one(const struct sweep *sw, size_t m, size_t p, double scale, const char *unit,
			  const struct plot_opts *o, const char *gp, const char *term, const char *adir,
			  struct sim_diag *diag)
{
	const struct sweep_param *pp = &sw->p[p];
	char prefix[64], base[RUN_BASE_MAX], path[DAT_PATH_MAX];
	snprintf(prefix, sizeof prefix, "sweep_%s_", sweep_metrics[m].file);
	FILE *df;
	int r = open_run_dat(o, prefix, pp->path, base, path, &df, diag);
	if (r)
		return r;
	fprintf(df, "# %s (%s) against %s: one block a line (the other swept values), one row a value:\n"
		    "# value (its position for a string parameter), mean over the seeds, half-width of the "
		    "95%% confidence interval (Student t), runs with a value, the value's name\n",
		sweep_metrics[m].what, unit, pp->path);
	size_t lines = sw->n_variants / pp->n;
	long rows = sweep_dat(df, sw, m, p, scale);
	if ((r = close_dat(df, path, diag)))
		return r;
	char *extra = malloc(SWEEP_XLABELS_MAX + 4096), *xl = malloc(SWEEP_XLABELS_MAX);
	char qwhat[200], qparam[2 * SWEEP_LABEL_MAX + 8], seeds[64];
	if (!extra || !xl) {
		free(extra);
		free(xl);
		sim_diag_add(diag, o->outdir, "out of memory");
		return -SIM_ENOMEM;
	}
	sweep_xlabels(pp, xl, SWEEP_XLABELS_MAX);
	plot_gp_quote(qwhat, sizeof qwhat, sweep_metrics[m].what);
	plot_gp_quote(qparam, sizeof qparam, pp->path);
	if (sw->min_runs == sw->max_runs)
		snprintf(seeds, sizeof seeds, "%zu seed%s", sw->max_runs, sw->max_runs == 1 ? "" : "s");
	else
		snprintf(seeds, sizeof seeds, "%zu to %zu seeds", sw->min_runs, sw->max_runs);
	snprintf(extra, SWEEP_XLABELS_MAX + 4096,
		 "what=%s; title='%s'; yunit='%s'; param=%s; categorical=%d; ncat=%zu; xlabels='%s'; "
		 "nlines=%zu; haskey=%d; seeds='%s'",
		 qwhat, sweep_metrics[m].title, unit, qparam, !pp->numeric, pp->n, xl, lines,
		 sw->n_params > 1, seeds);
	struct plot_vars pv = { .nblocks = (long)lines, .npoints = rows };
	r = run_template(gp, adir, o, "sweep_metric", base, term, &pv, extra, o->quiet, diag);
	free(extra);
	free(xl);
	return r;
}

/* Sweep plots, for a file whose config has a sweep: each key metric against each swept
 * parameter, mean and 95% CI over the seeds, one line a combination of the other
 * parameters' values (at most PLOT_MAX_QUEUES lines; beyond, that parameter is left
 * out with a note). Nothing for a file without a sweep. */
static int plot_sweeps(const struct h5read_file *f, const struct h5read_summary *s, const struct plot_opts *o,
		       const char *gp, const char *term, const char *adir, struct sim_diag *diag)
{
	struct sweep sw;
	int r = sweep_load(h5read_root_attr(f, "experiment_json"), &sw);
	if (!r)
		r = sweep_match(&sw, s);
	if (!r)
		r = sweep_stats(&sw, s);
	if (r) {
		if (r < 0)
			sim_diag_add(diag, h5read_path(f), "out of memory");
		sweep_free(&sw);
		return r < 0 ? r : 0;
	}
	size_t crowded = 0;
	for (size_t p = 0; p < sw.n_params; p++)
		crowded += sw.n_variants / sw.p[p].n > PLOT_MAX_QUEUES;
	if (!o->quiet && sw.max_runs == 0)
		printf("note: no sweep plot (no run of the file is a variant of the config's sweep)\n");
	for (size_t m = 0; m < SWEEP_N_METRICS && !r && sw.max_runs; m++) {
		double scale = 1;
		const char *unit = "";
		if (!sweep_unit(&sw, m, &scale, &unit))
			continue;
		for (size_t p = 0; p < sw.n_params && !r; p++)
			if (sw.n_variants / sw.p[p].n <= PLOT_MAX_QUEUES)
				r = sweep_plot_one(&sw, m, p, scale, unit, o, gp, term, adir, diag);
	}
	if (!r && !o->quiet && sw.max_runs && crowded)
		printf("note: no sweep plot against %zu of %zu swept parameters (more than %d "
		       "combinations of the other parameters' values)\n", crowded, sw.n_params,
		       PLOT_MAX_QUEUES);
	if (!r && !o->quiet && sw.max_runs && sw.n_unmatched)
		printf("note: %zu run%s of no sweep variant left out of the sweep plots\n", sw.n_unmatched,
		       sw.n_unmatched == 1 ? "" : "s");
	sweep_free(&sw);
	return r;
}

/* ---- real mode (schema 1.4): measured against predicted, decision latency ---- */

/* The most job ids written on a run time plot; more and the points go unlabelled. */
#define REAL_MAX_LABELS 30

/* OUTDIR/real_runtime_<run>.png: one point a completed job, the measured run time of
 * its completing segment against the model's prediction of that segment (trace s),
 * with y = x. The completing segment, not the job's sum over segments: a preempted
 * segment is stopped early, so its predicted run time (of the whole remaining work)
 * is no prediction of what it ran; this is also what runtime_error averages. */
static int plot_real_runtime(const struct plot_opts *o, const char *run, const struct h5read_real *g,
			     const char *gp, const char *term, const char *adir, struct sim_diag *diag)
{
	const struct h5read_real_segments *sg = &g->segments;
	char base[RUN_BASE_MAX], path[DAT_PATH_MAX], extra[1400], qrun[600], qsub[700], sub[400];
	FILE *df;
	int r = open_run_dat(o, "real_runtime_", run, base, path, &df, diag);
	if (r)
		return r;
	double lo = INFINITY, hi = 0;
	long n = 0;
	fprintf(df, "# run %s: completed jobs, measured against predicted run time of the completing "
		    "segment (trace s)\n", run);
	dat_field(df, "predicted_s");
	fputc(' ', df);
	dat_field(df, "measured_s");
	fputc(' ', df);
	dat_field(df, "job");
	fputc('\n', df);
	for (size_t i = 0; i < sg->n; i++) {
		double pred = sg->predicted_s[i], meas = sg->end_s[i] - sg->start_s[i];
		if (strcmp(sg->outcome[i], "completed") != 0 || !isfinite(pred) || !isfinite(meas))
			continue;
		fprintf(df, "%.9g %.9g ", pred, meas);
		dat_field(df, sg->id[i]);
		fputc('\n', df);
		n++;
		lo = fmin(lo, fmin(pred, meas));
		hi = fmax(hi, fmax(pred, meas));
	}
	if ((r = close_dat(df, path, diag)))
		return r;
	/* log axes when the run times span more than a factor 20 (and are all > 0) */
	int logscale = n > 0 && lo > 0 && hi / lo > 20;
	if (n == 0)
		lo = 0, hi = 1;
	snprintf(sub, sizeof sub, "backend %s, time scale %g, %ld completed job%s",
		 g->backend[0] ? g->backend : "?", g->time_scale, n, n == 1 ? "" : "s");
	plot_gp_quote(qrun, sizeof qrun, run);
	plot_gp_quote(qsub, sizeof qsub, sub);
	snprintf(extra, sizeof extra, "runname=%s; subtitle=%s; lo=%.9g; hi=%.9g; logscale=%d; labels=%d",
		 qrun, qsub, lo, hi, logscale, n <= REAL_MAX_LABELS);
	struct plot_vars pv = { .nblocks = 1, .npoints = n };
	return run_template(gp, adir, o, "real_runtime", base, term, &pv, extra, o->quiet, diag);
}

/* OUTDIR/real_latency_<run>.png: the CDF of every start's decision latency (wall ms),
 * with its median and 99th percentile marked. */
static int plot_real_latency(const struct plot_opts *o, const char *run, const struct h5read_real *g,
			     const char *gp, const char *term, const char *adir, struct sim_diag *diag)
{
	size_t n = g->n_latencies, m = 0;
	double *x = malloc((n ? n : 1) * sizeof *x);
	double *xs = malloc(PLOT_MAX_POINTS * sizeof *xs), *ys = malloc(PLOT_MAX_POINTS * sizeof *ys);
	char base[RUN_BASE_MAX], path[DAT_PATH_MAX], extra[1024], qrun[600];
	FILE *df = NULL;
	int r = -SIM_ENOMEM;
	if (!x || !xs || !ys) {
		sim_diag_add(diag, o->outdir, "out of memory");
		goto out_free;
	}
	for (size_t i = 0; i < n; i++)
		if (isfinite(g->decision_latency_s[i]))
			x[m++] = g->decision_latency_s[i] * 1e3;
	gsl_sort(x, 1, m);
	size_t k = plot_cdf_points(x, m, PLOT_MAX_POINTS, xs, ys);
	double p50 = m ? gsl_stats_quantile_from_sorted_data(x, 1, m, 0.5) : NAN;
	double p99 = m ? gsl_stats_quantile_from_sorted_data(x, 1, m, 0.99) : NAN;
	if ((r = open_run_dat(o, "real_latency_", run, base, path, &df, diag)))
		goto out_free;
	fprintf(df, "# run %s: decision latency of %zu starts (wall ms), %zu points\n", run, m, k);
	dat_field(df, "latency_ms");
	fputc(' ', df);
	dat_field(df, "fraction");
	fputc('\n', df);
	/* the step starts from 0 at the smallest latency */
	if (k)
		fprintf(df, "%.9g 0\n", xs[0]);
	for (size_t i = 0; i < k; i++)
		fprintf(df, "%.9g %.9g\n", xs[i], ys[i]);
	if ((r = close_dat(df, path, diag)))
		goto out_free;
	/* a log axis when the latencies span more than a factor 100 */
	int logscale = m > 0 && x[0] > 0 && x[m - 1] / x[0] > 100;
	plot_gp_quote(qrun, sizeof qrun, run);
	snprintf(extra, sizeof extra, "runname=%s; nstarts=%zu; p50=%.9g; p99=%.9g; logscale=%d", qrun, m,
		 isfinite(p50) ? p50 : 0, isfinite(p99) ? p99 : 0, logscale);
	struct plot_vars pv = { .nblocks = 1, .npoints = (long)(k ? k + 1 : 0) };
	r = run_template(gp, adir, o, "real_latency", base, term, &pv, extra, o->quiet, diag);
out_free:
	free(x);
	free(xs);
	free(ys);
	return r;
}

/* Both real-mode plots of one run; *skipped when the run has no real group. */
static int plot_real(const struct h5read_file *f, const struct plot_opts *o, const char *run, const char *gp,
		     const char *term, const char *adir, int *skipped, struct sim_diag *diag)
{
	struct h5read_real g;
	int r = h5read_real(f, run, &g, diag);
	if (r)
		return r;
	if (!g.present)
		*skipped = 1;
	else if (!(r = plot_real_runtime(o, run, &g, gp, term, adir, diag)))
		r = plot_real_latency(o, run, &g, gp, term, adir, diag);
	h5read_real_free(&g);
	return r;
}

/* ---- per-run views: GPUs busy per flavor, Jain's index, wait per queue ---- */

/* Buckets of a series of n samples for at most PLOT_MAX_POINTS points. */
static size_t bucket_of(size_t n)
{
	return n <= PLOT_MAX_POINTS ? 1 : (n + PLOT_MAX_POINTS - 1) / PLOT_MAX_POINTS;
}

/* flavor_busy_<run>: busy GPUs of each flavor over time (steps), for a run on 2 or
 * more flavors. The .dat: a header line ("time" and each flavor's name), then rows
 * "time busy_1 .. busy_k" (time in xunit; each value the time-weighted mean of its
 * bucket of samples; a last row at the last sample closes the steps). */
static int plot_flavor_busy(const struct plot_opts *o, const char *run, const struct h5read_timeseries *ts,
			    const char *gp, const char *term, const char *adir, struct sim_diag *diag)
{
	size_t nf = ts->n_flavors, n = ts->n, per = bucket_of(n);
	if (nf < 2 || n == 0 || !ts->gpus_busy_by_flavor)
		return 0;
	char base[RUN_BASE_MAX], path[DAT_PATH_MAX], extra[1024], qrun[600];
	FILE *df;
	int r = open_run_dat(o, "flavor_busy_", run, base, path, &df, diag);
	if (r)
		return r;
	struct plot_vars pv = { .nblocks = 1 };
	double unit_s = time_unit(ts->t_s[n - 1], &pv.xunit);
	fprintf(df, "# run %s: busy GPUs by flavor, %zu samples, %zu per point\n", run, n, per);
	dat_field(df, "time");
	for (size_t k = 0; k < nf; k++) {
		fputc(' ', df);
		dat_field(df, ts->flavor_names[k]);
	}
	fputc('\n', df);
	/* the last bucket runs to the last sample, which closes the steps at the run's end */
	for (size_t a = 0; a < n; a += per) {
		size_t b = a + per < n ? a + per : n;
		double ta = ts->t_s[a], tb = b < n ? ts->t_s[b] : ts->t_s[n - 1];
		fprintf(df, "%.9g", ta / unit_s);
		for (size_t k = 0; k < nf; k++)
			fprintf(df, " %.9g", series_mean(ts->t_s, ts->gpus_busy_by_flavor + k, nf, n, ta, tb));
		fputc('\n', df);
		pv.npoints++;
	}
	if (n > 1 && ts->t_s[n - 1] > ts->t_s[(n - 1) / per * per]) {
		fprintf(df, "%.9g", ts->t_s[n - 1] / unit_s);
		for (size_t k = 0; k < nf; k++)
			fprintf(df, " %.9g", ts->gpus_busy_by_flavor[(n - 1) * nf + k]);
		fputc('\n', df);
		pv.npoints++;
	}
	if ((r = close_dat(df, path, diag)))
		return r;
	plot_gp_quote(qrun, sizeof qrun, run);
	snprintf(extra, sizeof extra, "runname=%s; nflavors=%zu", qrun, nf);
	return run_template(gp, adir, o, "flavor_busy", base, term, &pv, extra, o->quiet, diag);
}

/* Jain's fairness index over a run's queues at sample i: (sum x)^2 / (n sum x^2),
 * x_q the queue's busy GPUs over its nominal quota where the run has quotas (a
 * queue with nominal 0 left out), else its busy GPUs; 1 when all are equal, 1/n
 * when one queue has it all. NaN when every x is 0 (nothing running). */
static double jain_at(const struct h5read_timeseries *ts, size_t i)
{
	size_t nq = ts->n_queues, m = 0;
	double sum = 0, sum2 = 0;
	for (size_t q = 0; q < nq; q++) {
		double x = ts->queue_usage[i * nq + q];
		if (ts->queue_nominal) {
			double nom = ts->queue_nominal[i * nq + q];
			if (!(nom > 0))
				continue;
			x /= nom;
		}
		sum += x, sum2 += x * x, m++;
	}
	return m > 0 && sum2 > 0 ? sum * sum / ((double)m * sum2) : NAN;
}

/* jain_<run>: Jain's index over the queues at each sample (every per-th sample past
 * PLOT_MAX_POINTS), for a run with per-queue series and 2 or more queues. Rows
 * "time index"; a sample with nothing running is left out. */
static int plot_jain(const struct plot_opts *o, const char *run, const struct h5read_timeseries *ts,
		     const char *gp, const char *term, const char *adir, struct sim_diag *diag)
{
	size_t n = ts->n, per = bucket_of(n);
	if (!ts->queue_usage || ts->n_queues < 2 || n == 0)
		return 0;
	char base[RUN_BASE_MAX], path[DAT_PATH_MAX], extra[1024], qrun[600];
	FILE *df;
	int r = open_run_dat(o, "jain_", run, base, path, &df, diag);
	if (r)
		return r;
	struct plot_vars pv = { .nblocks = 1 };
	double unit_s = time_unit(ts->t_s[n - 1], &pv.xunit);
	fprintf(df, "# run %s: Jain's index over %zu queues (%s), every %zu-th sample; time index\n", run,
		ts->n_queues, ts->queue_nominal ? "busy GPUs / nominal quota" : "busy GPUs", per);
	for (size_t i = 0; i < n; i += per) {
		double j = jain_at(ts, i);
		if (isfinite(j)) {
			fprintf(df, "%.9g %.9g\n", ts->t_s[i] / unit_s, j);
			pv.npoints++;
		}
	}
	if ((r = close_dat(df, path, diag)))
		return r;
	plot_gp_quote(qrun, sizeof qrun, run);
	snprintf(extra, sizeof extra, "runname=%s; nqueues=%zu; byquota=%d", qrun, ts->n_queues,
		 ts->queue_nominal != NULL);
	return run_template(gp, adir, o, "jain", base, term, &pv, extra, o->quiet, diag);
}

/* A queue's started jobs' waits, for queue_wait_<run>. */
struct queue_waits {
	const char *name;
	double *w;
	size_t n;
};

static int qw_by_count(const void *a, const void *b)
{
	const struct queue_waits *x = a, *y = b;
	return x->n != y->n ? (x->n < y->n ? 1 : -1) : strcmp(x->name, y->name);
}

/* Groups the started jobs' waits by queue (floored at 1 s for the log axis), queues
 * with most jobs first. *nq gets the number of queues, *buf the one array every
 * queue's waits are a slice of (the caller frees both); NULL on no memory. */
static struct queue_waits *queue_waits_make(const struct h5read_jobs *j, size_t *nq, double **buf_out)
{
	struct queue_waits *qs = calloc(j->n + 1, sizeof *qs);
	double *buf = malloc((j->n + 1) * sizeof *buf);
	size_t m = 0;
	if (!qs || !buf) {
		free(qs);
		free(buf);
		return NULL;
	}
	/* two passes: count per queue, then place each wait in its queue's slice of buf */
	for (size_t i = 0; i < j->n; i++) {
		if (!isfinite(j->wait_s[i]))
			continue;
		size_t q = 0;
		while (q < m && strcmp(qs[q].name, j->queue[i]) != 0)
			q++;
		if (q == m)
			qs[m++].name = j->queue[i];
		qs[q].n++;
	}
	size_t off = 0;
	for (size_t q = 0; q < m; q++) {
		qs[q].w = buf + off;
		off += qs[q].n;
		qs[q].n = 0;
	}
	for (size_t i = 0; i < j->n; i++) {
		if (!isfinite(j->wait_s[i]))
			continue;
		size_t q = 0;
		while (strcmp(qs[q].name, j->queue[i]) != 0)
			q++;
		qs[q].w[qs[q].n++] = j->wait_s[i] < 1.0 ? 1.0 : j->wait_s[i];
	}
	for (size_t q = 0; q < m; q++)
		gsl_sort(qs[q].w, 1, qs[q].n);
	qsort(qs, m, sizeof *qs, qw_by_count);
	*nq = m;
	*buf_out = buf;
	return qs;
}

/* queue_wait_<run>: the CDF of the wait of each queue's started jobs, for a run whose
 * jobs are in 2 or more queues; the PLOT_MAX_QUEUES queues with most jobs (the rest
 * counted in the title). One block a queue, titled "name (N jobs)", rows "wait_s
 * fraction": "smallest 0", then at most PLOT_MAX_POINTS of plot_cdf_points. */
static int plot_queue_wait(const struct h5read_file *f, const struct plot_opts *o, const char *run,
			   const char *gp, const char *term, const char *adir, struct sim_diag *diag)
{
	struct h5read_jobs j;
	int r = h5read_jobs(f, run, &j, diag);
	if (r)
		return r;
	size_t nq = 0;
	double *wbuf = NULL;
	struct queue_waits *qs = queue_waits_make(&j, &nq, &wbuf);
	double *xs = malloc(PLOT_MAX_POINTS * sizeof *xs), *ys = malloc(PLOT_MAX_POINTS * sizeof *ys);
	if (!qs || !xs || !ys) {
		sim_diag_add(diag, h5read_path(f), "out of memory");
		r = -SIM_ENOMEM;
		goto out;
	}
	if (nq < 2)
		goto out;
	char base[RUN_BASE_MAX], path[DAT_PATH_MAX], extra[1024], qrun[600];
	FILE *df;
	if ((r = open_run_dat(o, "queue_wait_", run, base, path, &df, diag)))
		goto out;
	size_t shown = nq < PLOT_MAX_QUEUES ? nq : PLOT_MAX_QUEUES;
	struct plot_vars pv = { .nblocks = (long)shown };
	for (size_t q = 0; q < shown; q++) {
		char title[512];
		snprintf(title, sizeof title, "%s (%zu job%s)", qs[q].name, qs[q].n, qs[q].n == 1 ? "" : "s");
		fprintf(df, "# queue %s: %zu started jobs; wait_s fraction\n", qs[q].name, qs[q].n);
		dat_header(df, title);
		size_t k = plot_cdf_points(qs[q].w, qs[q].n, PLOT_MAX_POINTS, xs, ys);
		/* the step up from 0 at the smallest wait: a CDF starts at 0 */
		if (k)
			fprintf(df, "%.9g 0\n", xs[0]);
		for (size_t i = 0; i < k; i++)
			fprintf(df, "%.9g %.9g\n", xs[i], ys[i]);
		pv.npoints += (long)k;
		fputs("\n\n", df);
	}
	if ((r = close_dat(df, path, diag)))
		goto out;
	plot_gp_quote(qrun, sizeof qrun, run);
	snprintf(extra, sizeof extra, "runname=%s; nqueues=%zu; hidden=%zu", qrun, nq, nq - shown);
	r = run_template(gp, adir, o, "queue_wait", base, term, &pv, extra, o->quiet, diag);
out:
	free(wbuf);
	free(qs);
	free(xs);
	free(ys);
	h5read_jobs_free(&j);
	return r;
}

/* The three per-run views above, from one read of the run's time series. */
static int plot_run_more(const struct h5read_file *f, const struct plot_opts *o, const char *run, const char *gp,
			 const char *term, const char *adir, struct sim_diag *diag)
{
	struct h5read_timeseries ts;
	int r = h5read_timeseries(f, run, &ts, diag);
	if (r)
		return r;
	r = plot_flavor_busy(o, run, &ts, gp, term, adir, diag);
	if (!r)
		r = plot_jain(o, run, &ts, gp, term, adir, diag);
	h5read_timeseries_free(&ts);
	if (!r)
		r = plot_queue_wait(f, o, run, gp, term, adir, diag);
	return r;
}

/* Per run: the queue-usage, preemption and option plots, for the runs that have the
 * data, and in a real-mode file the two real-mode plots; note lines name how many
 * runs had none. */
static int plot_run_views(const struct h5read_file *f, const struct plot_opts *o,
			  const struct h5read_summary *s, const char *gp, const char *term, const char *adir,
			  struct sim_diag *diag)
{
	size_t nr = h5read_n_runs(f), no_queues = 0, no_preempt = 0, no_options = 0, no_real = 0;
	int r = 0, real = strcmp(h5read_mode(f), "real") == 0;
	for (size_t i = 0; i < nr && !r; i++) {
		const char *run = h5read_run_name(f, i);
		int row = h5read_summary_row(s, run);
		double cap = row >= 0 ? h5read_summary_get(s, (size_t)row, "gpu_capacity") : NAN;
		double span = row >= 0 ? h5read_summary_get(s, (size_t)row, "makespan_s") : NAN;
		int skip_q = 0, skip_p = 0, skip_o = 0;
		if (!isfinite(span))
			span = 0;
		r = plot_queues(f, o, run, cap, gp, term, adir, &skip_q, diag);
		if (!r)
			r = plot_preemptions(f, o, run, span, gp, term, adir, &skip_p, diag);
		if (!r)
			r = plot_options(f, o, run, gp, term, adir, &skip_o, diag);
		if (!r)
			r = plot_run_more(f, o, run, gp, term, adir, diag);
		if (!r && real) {
			int skip_r = 0;
			r = plot_real(f, o, run, gp, term, adir, &skip_r, diag);
			no_real += (size_t)skip_r;
		}
		no_queues += (size_t)skip_q;
		no_preempt += (size_t)skip_p;
		no_options += (size_t)skip_o;
	}
	if (!r && !o->quiet && (no_queues || no_preempt || no_options)) {
		printf("note:");
		if (no_queues)
			printf(" no queue plot for %zu run%s (one queue and no quota, or no per-queue "
			       "series)%s", no_queues, no_queues == 1 ? "" : "s",
			       no_preempt || no_options ? ";" : "");
		if (no_preempt)
			printf(" no preemption plot for %zu run%s (nothing preempted)%s", no_preempt,
			       no_preempt == 1 ? "" : "s", no_options ? ";" : "");
		if (no_options)
			printf(" no option plot for %zu run%s (no job with 2 or more options, or no "
			       "per-option table)", no_options, no_options == 1 ? "" : "s");
		printf("\n");
	}
	if (!r && !o->quiet && no_real)
		printf("note: no real-mode plots for %zu run%s (no /runs/<run>/real group)\n", no_real,
		       no_real == 1 ? "" : "s");
	return r;
}

/* Every output of plot_results goes to OUTDIR under a temporary name (o->stage)
 * and is renamed when all are written: a failed plot leaves no new file and every
 * old one as it was. */
static int plot_all(const struct h5read_file *f, const struct plot_opts *o, struct sim_diag *diag);

int plot_results(const struct h5read_file *f, const struct plot_opts *o, struct sim_diag *diag)
{
	struct sim_out_stage stage = { 0 };
	struct plot_opts staged = *o;
	staged.stage = &stage;
	int made_dir = 0;
	int r = make_dir(o->outdir, &made_dir, diag);
	if (!r)
		r = plot_all(f, &staged, diag);
	return finish_outputs(r, &stage, o->outdir, made_dir, o->quiet, image_ext(o), diag);
}

/* OUTDIR/nodes_down.png: failed node slots not yet back over time, one curve a variant
 * with node failures (the mean over its runs with the 95% band), laid out as
 * queued_jobs.dat. Only when some run recorded the series (2.0, node failures). */
static int plot_nodes_down(const struct plot_opts *o, const struct variant_groups *g,
			   const struct h5read_timeseries *tss, size_t nr, double unit_s, const char *xunit,
			   const char *gp, const char *term, const char *adir, struct sim_diag *diag)
{
	double *caps = calloc(nr ? nr : 1, sizeof *caps); /* no capacity line on this plot */
	uint8_t *has = calloc(g->n ? g->n : 1, 1);
	if (!caps || !has) {
		free(caps);
		free(has);
		sim_diag_add(diag, o->outdir, "out of memory");
		return -SIM_ENOMEM;
	}
	size_t shown = 0;
	for (size_t i = 0; i < nr; i++)
		if (tss[i].nodes_down && !has[g->of[i]]++)
			shown++;
	int r = 0;
	struct plot_vars pv = { .nblocks = (long)shown, .xunit = xunit };
	if (shown) {
		char path[1024];
		FILE *df = open_dat(o, "nodes_down.dat", path, sizeof path, diag);
		if (!df)
			r = -SIM_EIO;
		for (size_t v = 0; df && v < g->n; v++)
			if (has[v])
				pv.npoints += (long)busy_variant_block(df, g, v, tss, caps, nr, unit_s, TS_NODES_DOWN);
		if (df)
			r = close_dat(df, path, diag);
	}
	free(caps);
	free(has);
	if (r || !shown)
		return r;
	return run_template(gp, adir, o, "nodes_down", "nodes_down", term, &pv, NULL, o->quiet, diag);
}

static int plot_all(const struct h5read_file *f, const struct plot_opts *o, struct sim_diag *diag)
{
	char *gp = NULL;
	const char *term = "png";
	int r = probe_gnuplot(o, &gp, &term, diag);
	if (r)
		return r;
	struct h5read_summary s;
	if ((r = h5read_summary(f, &s, diag)))
		goto out_gp;
	const char *adir = plot_analysis_dir(o);
	char pw[1024], pj[1024], pb[1024], pq[1024];
	FILE *fw = open_dat(o, "wait_cdf.dat", pw, sizeof pw, diag);
	FILE *fj = fw ? open_dat(o, "jct_cdf.dat", pj, sizeof pj, diag) : NULL;
	FILE *fb = fj ? open_dat(o, "busy_gpus.dat", pb, sizeof pb, diag) : NULL;
	FILE *fq = fb ? open_dat(o, "queued_jobs.dat", pq, sizeof pq, diag) : NULL;
	if (!fq) {
		if (fw)
			fclose(fw);
		if (fj)
			fclose(fj);
		if (fb)
			fclose(fb);
		r = -SIM_EIO;
		goto out_sum;
	}
	size_t nr = h5read_n_runs(f);
	struct plot_vars vw = { .nblocks = (long)nr }, vj = vw, vb = vw, vq = vw;
	size_t max_seeds = 0; /* before the first goto: -O3 saw it read uninitialized past one */

	/* Time axis unit from the longest series. */
	double span = 0, cap0 = NAN;
	vb.samecap = 1;
	struct h5read_timeseries *tss = calloc(nr ? nr : 1, sizeof *tss);
	struct cdf_keep *waits = calloc(nr ? nr : 1, sizeof *waits), *jcts = calloc(nr ? nr : 1, sizeof *jcts);
	struct variant_groups groups;
	if (variant_groups_make(f, &s, &groups) < 0 || !waits || !jcts)
		tss = (free(tss), NULL);
	if (!tss) {
		r = -SIM_ENOMEM;
		sim_diag_add(diag, h5read_path(f), "out of memory");
		goto out_files;
	}
	for (size_t i = 0; i < nr && !r; i++) {
		const char *run = h5read_run_name(f, i);
		struct h5read_jobs j;
		if ((r = h5read_jobs(f, run, &j, diag)))
			break;
		int kw = cdf_keep_make(j.wait_s, j.n, &waits[i]);
		int kj = cdf_keep_make(j.jct_s, j.n, &jcts[i]);
		h5read_jobs_free(&j);
		if (kw < 0 || kj < 0) {
			r = -SIM_ENOMEM;
			sim_diag_add(diag, h5read_path(f), "out of memory");
			break;
		}
		if ((r = h5read_timeseries(f, run, &tss[i], diag)))
			break;
		if (tss[i].n > 0 && tss[i].t_s[tss[i].n - 1] > span)
			span = tss[i].t_s[tss[i].n - 1];
		int row = h5read_summary_row(&s, run);
		double cap = row >= 0 ? h5read_summary_get(&s, (size_t)row, "gpu_capacity") : NAN;
		if (i == 0)
			cap0 = cap;
		else if (!(cap == cap0))
			vb.samecap = 0;
	}
	double ts_unit_s = 86400;
	if (!r) {
		double unit_s = 86400;
		vb.xunit = "days";
		if (span <= 2 * 3600.0) {
			unit_s = 60;
			vb.xunit = "minutes";
		} else if (span <= 72 * 3600.0) {
			unit_s = 3600;
			vb.xunit = "hours";
		}
		vb.capacity = isfinite(cap0) ? cap0 : 0;
		double *caps = malloc((nr ? nr : 1) * sizeof *caps);
		for (size_t i = 0; caps && i < nr; i++) {
			int row = h5read_summary_row(&s, h5read_run_name(f, i));
			caps[i] = row >= 0 ? h5read_summary_get(&s, (size_t)row, "gpu_capacity") : NAN;
		}
		for (size_t v = 0; caps && v < groups.n; v++) {
			vb.npoints += (long)busy_variant_block(fb, &groups, v, tss, caps, nr, unit_s, TS_BUSY);
			vq.npoints += (long)busy_variant_block(fq, &groups, v, tss, caps, nr, unit_s, TS_QUEUED);
		}
		vb.nblocks = vq.nblocks = (long)groups.n;
		vq.xunit = vb.xunit;
		ts_unit_s = unit_s;
		if (!caps) {
			r = -SIM_ENOMEM;
			sim_diag_add(diag, h5read_path(f), "out of memory");
		}
		free(caps);
	}
	for (size_t v = 0; !r && v < groups.n; v++)
		if (groups.runs[v] > max_seeds)
			max_seeds = groups.runs[v];
	if (!r && !o->quiet)
		note_identical(f, &s, &groups);
	if (!r) {
		vw.nblocks = vj.nblocks = (long)groups.n;
		vw.npoints = cdf_variant_dat(fw, &groups, waits, nr);
		vj.npoints = cdf_variant_dat(fj, &groups, jcts, nr);
	}
	if (!r)
		r = plot_nodes_down(o, &groups, tss, nr, ts_unit_s, vb.xunit, gp, term, adir, diag);
out_files:
	for (size_t i = 0; tss && i < nr; i++)
		h5read_timeseries_free(&tss[i]);
	free(tss);
	for (size_t i = 0; waits && jcts && i < nr; i++) {
		cdf_keep_free(&waits[i]);
		cdf_keep_free(&jcts[i]);
	}
	free(waits);
	free(jcts);
	variant_groups_free(&groups);
	{
		int c1 = close_dat(fw, pw, diag), c2 = close_dat(fj, pj, diag), c3 = close_dat(fb, pb, diag);
		int c4 = close_dat(fq, pq, diag);
		if (!r)
			r = c1 ? c1 : c2 ? c2 : c3 ? c3 : c4;
	}
	const char *const names[] = { "wait_cdf", "jct_cdf", "busy_gpus", "queued_jobs" };
	const struct plot_vars *vars[] = { &vw, &vj, &vb, &vq };
	/* The CDFs say "band: 95% CI" only when some variant has 2 or more seeds. */
	char seeds_var[64];
	snprintf(seeds_var, sizeof seeds_var, "maxseeds=%zu", max_seeds);
	for (size_t k = 0; k < 4 && !r; k++)
		r = run_template(gp, adir, o, names[k], names[k], term, vars[k], k < 2 ? seeds_var : NULL, o->quiet,
				 diag);
	if (!r && any_cost(&s))
		r = plot_cost_wait(&s, o, gp, term, adir, diag);
	else if (!r && !o->quiet)
		printf("note: no cost plot (no run has a mean cost per job above 0: every price is 0 or unset)\n");
	if (!r) {
		int drawn;
		r = plot_faults_lost(f, &s, o, gp, term, adir, &drawn, diag);
		if (!r && drawn)
			r = plot_faults_ettr_size(f, &s, o, gp, term, adir, diag);
	}
	if (!r)
		r = plot_sweeps(f, &s, o, gp, term, adir, diag);
	if (!r)
		r = plot_run_views(f, o, &s, gp, term, adir, diag);
out_sum:
	h5read_summary_free(&s);
out_gp:
	free(gp);
	return r;
}

/* ---- two result files overlaid (gpusched plot A.h5 B.h5) ---- */

/* The runs of both files as one list: run i's jobs CDFs, time series and capacity,
 * and its group ("A.h5: fifo"), names owned here. */
struct overlay_runs {
	size_t n;
	struct h5read_timeseries *ts;
	struct cdf_keep *waits, *jcts;
	double *caps;
	struct variant_groups g;
	char **owned; /* the group names, n at most */
	double span;  /* the longest series, s */
};

static void overlay_runs_free(struct overlay_runs *r)
{
	for (size_t i = 0; i < r->n; i++) {
		if (r->ts)
			h5read_timeseries_free(&r->ts[i]);
		if (r->waits)
			cdf_keep_free(&r->waits[i]);
		if (r->jcts)
			cdf_keep_free(&r->jcts[i]);
		if (r->owned)
			free(r->owned[i]);
	}
	free(r->ts);
	free(r->waits);
	free(r->jcts);
	free(r->caps);
	free(r->owned);
	variant_groups_free(&r->g);
}

/* The group of run `at` of the list: label + ": " + variant, a new group the first
 * time. 0, or -1 on no memory. */
static int overlay_group(struct overlay_runs *r, size_t at, const char *label, const char *variant)
{
	size_t len = strlen(label) + strlen(variant) + 3;
	char *name = malloc(len);
	if (!name)
		return -1;
	snprintf(name, len, "%s: %s", label, variant);
	size_t k = 0;
	while (k < r->g.n && strcmp(r->g.name[k], name) != 0)
		k++;
	if (k == r->g.n) {
		r->owned[k] = name;
		r->g.name[r->g.n++] = name;
	} else {
		free(name);
	}
	r->g.of[at] = k;
	r->g.runs[k]++;
	return 0;
}

/* Reads every run of f (labelled `label`) into r from index *at on. */
static int overlay_read(const struct h5read_file *f, const char *label, struct overlay_runs *r, size_t *at,
			struct sim_diag *diag)
{
	struct h5read_summary s;
	int rc = h5read_summary(f, &s, diag);
	for (size_t i = 0; !rc && i < h5read_n_runs(f); i++, ++*at) {
		const char *run = h5read_run_name(f, i);
		struct h5read_jobs j;
		if ((rc = h5read_jobs(f, run, &j, diag)))
			break;
		int kw = cdf_keep_make(j.wait_s, j.n, &r->waits[*at]), kj = cdf_keep_make(j.jct_s, j.n, &r->jcts[*at]);
		h5read_jobs_free(&j);
		int row = h5read_summary_row(&s, run);
		if (kw < 0 || kj < 0 || overlay_group(r, *at, label, row >= 0 ? s.variant[row] : run) < 0) {
			sim_diag_add(diag, h5read_path(f), "out of memory");
			rc = -SIM_ENOMEM;
			break;
		}
		r->caps[*at] = row >= 0 ? h5read_summary_get(&s, (size_t)row, "gpu_capacity") : NAN;
		if ((rc = h5read_timeseries(f, run, &r->ts[*at], diag)))
			break;
		const struct h5read_timeseries *t = &r->ts[*at];
		if (t->n > 0 && t->t_s[t->n - 1] > r->span)
			r->span = t->t_s[t->n - 1];
	}
	h5read_summary_free(&s);
	return rc;
}

/* The name a file's curves carry: its base name, or the path as given when both files
 * have the same base name. */
static const char *overlay_label(const char *path, const char *other)
{
	const char *b = strrchr(path, '/'), *ob = strrchr(other, '/');
	b = b ? b + 1 : path;
	ob = ob ? ob + 1 : other;
	return strcmp(b, ob) == 0 ? path : b;
}

/* The four overlay plots of the runs read into R. */
static int overlay_draw(const struct overlay_runs *R, const struct plot_opts *o, const char *gp, const char *term,
			struct sim_diag *diag)
{
	int r = 0;
	const char *const names[] = { "wait_cdf", "jct_cdf", "busy_gpus", "queued_jobs" };
	struct plot_vars pv[4] = { { .nblocks = (long)R->g.n }, { .nblocks = (long)R->g.n },
				   { .nblocks = (long)R->g.n, .samecap = 1 }, { .nblocks = (long)R->g.n } };
	double unit_s = time_unit(R->span, &pv[2].xunit);
	pv[3].xunit = pv[2].xunit;
	for (size_t i = 1; i < R->n; i++)
		if (!(R->caps[i] == R->caps[0]))
			pv[2].samecap = 0;
	pv[2].capacity = R->n && isfinite(R->caps[0]) ? R->caps[0] : 0;
	size_t max_seeds = 0;
	for (size_t v = 0; v < R->g.n; v++)
		max_seeds = R->g.runs[v] > max_seeds ? R->g.runs[v] : max_seeds;
	for (size_t k = 0; k < 4 && !r; k++) {
		char name[64], path[1024];
		snprintf(name, sizeof name, "overlay_%s.dat", names[k]);
		FILE *df = open_dat(o, name, path, sizeof path, diag);
		if (!df) {
			r = -SIM_EIO;
			break;
		}
		if (k < 2) {
			pv[k].npoints = cdf_variant_dat(df, &R->g, k == 0 ? R->waits : R->jcts, R->n);
		} else {
			for (size_t v = 0; v < R->g.n; v++)
				pv[k].npoints += (long)busy_variant_block(df, &R->g, v, R->ts, R->caps, R->n, unit_s,
									  k == 2 ? TS_BUSY : TS_QUEUED);
		}
		if ((r = close_dat(df, path, diag)))
			break;
		char base[64], seeds_var[64];
		snprintf(base, sizeof base, "overlay_%s", names[k]);
		snprintf(seeds_var, sizeof seeds_var, "maxseeds=%zu", max_seeds);
		r = run_template(gp, plot_analysis_dir(o), o, names[k], base, term, &pv[k], k < 2 ? seeds_var : NULL,
				 o->quiet, diag);
	}
	return r;
}

static int overlay_all(const struct h5read_file *a, const struct h5read_file *b, const struct plot_opts *o,
		       struct sim_diag *diag)
{
	char *gp = NULL;
	const char *term = "png";
	int r = probe_gnuplot(o, &gp, &term, diag);
	if (r)
		return r;
	struct overlay_runs R = { .n = h5read_n_runs(a) + h5read_n_runs(b) };
	size_t cap = R.n + 1;
	R.ts = calloc(cap, sizeof *R.ts);
	R.waits = calloc(cap, sizeof *R.waits);
	R.jcts = calloc(cap, sizeof *R.jcts);
	R.caps = calloc(cap, sizeof *R.caps);
	R.owned = calloc(cap, sizeof *R.owned);
	R.g.name = calloc(cap, sizeof *R.g.name);
	R.g.of = calloc(cap, sizeof *R.g.of);
	R.g.runs = calloc(cap, sizeof *R.g.runs);
	if (!R.ts || !R.waits || !R.jcts || !R.caps || !R.owned || !R.g.name || !R.g.of || !R.g.runs) {
		sim_diag_add(diag, h5read_path(a), "out of memory");
		r = -SIM_ENOMEM;
		goto out;
	}
	size_t at = 0;
	const char *pa = h5read_path(a), *pb = h5read_path(b);
	r = overlay_read(a, overlay_label(pa, pb), &R, &at, diag);
	if (!r)
		r = overlay_read(b, overlay_label(pb, pa), &R, &at, diag);
	if (r)
		goto out;
	r = overlay_draw(&R, o, gp, term, diag);
out:
	overlay_runs_free(&R);
	free(gp);
	return r;
}

int plot_overlay(const struct h5read_file *a, const struct h5read_file *b, const struct plot_opts *o,
		 struct sim_diag *diag)
{
	struct sim_out_stage stage = { 0 };
	struct plot_opts staged = *o;
	staged.stage = &stage;
	int made_dir = 0;
	int r = make_dir(o->outdir, &made_dir, diag);
	if (!r)
		r = overlay_all(a, b, &staged, diag);
	return finish_outputs(r, &stage, o->outdir, made_dir, o->quiet, image_ext(o), diag);
}
