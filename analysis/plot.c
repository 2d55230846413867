/* analysis/plot.c: .dat files from the HDF5 results and gnuplot runs (see plot.h). */
#include "plot.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gsl/gsl_sort.h>

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
		execv(prog, argv);
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

/* A gnuplot single-quoted string literal: quotes doubled ('it''s'). */
static void gp_quote(char *dst, size_t cap, const char *s)
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

/* One block of a CDF file: values (finite ones only, floored at 1 s for the log
 * axis), sorted, reduced to PLOT_MAX_POINTS. Returns the points written or -1. */
static long cdf_block(FILE *f, const char *run, const double *v, size_t n)
{
	double *x = malloc((n ? n : 1) * sizeof *x);
	double *xs = malloc(PLOT_MAX_POINTS * sizeof *xs), *ys = malloc(PLOT_MAX_POINTS * sizeof *ys);
	long r = -1;
	if (!x || !xs || !ys)
		goto out_free;
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			x[m++] = v[i] < 1.0 ? 1.0 : v[i];
	gsl_sort(x, 1, m);
	size_t k = plot_cdf_points(x, m, PLOT_MAX_POINTS, xs, ys);
	fprintf(f, "# run %s: %zu values, %zu points\n", run, m, k);
	dat_header(f, run);
	for (size_t i = 0; i < k; i++)
		fprintf(f, "%.9g %.9g\n", xs[i], ys[i]);
	fputs("\n\n", f);
	r = (long)k;
out_free:
	free(x);
	free(xs);
	free(ys);
	return r;
}

/* One block of busy_gpus.dat: at most PLOT_MAX_POINTS rows. A bucket of several
 * samples is drawn as its time-weighted mean (each sample holds until the next). */
static size_t busy_block(FILE *f, const char *run, const struct h5read_timeseries *ts, double t0,
			 double unit_s, double cap)
{
	size_t n = ts->n;
	size_t per = n <= PLOT_MAX_POINTS ? 1 : (n + PLOT_MAX_POINTS - 1) / PLOT_MAX_POINTS;
	size_t rows = 0;
	fprintf(f, "# run %s: %zu samples, %zu per point\n", run, n, per);
	dat_header(f, run);
	for (size_t a = 0; a < n; a += per) {
		size_t b = a + per < n ? a + per : n;
		double wsum = 0, vsum = 0, plain = 0;
		for (size_t i = a; i < b; i++) {
			double w = i + 1 < n ? ts->t_s[i + 1] - ts->t_s[i] : 0.0;
			wsum += w;
			vsum += w * ts->gpus_busy[i];
			plain += ts->gpus_busy[i];
		}
		double v = wsum > 0 ? vsum / wsum : plain / (double)(b - a);
		fprintf(f, "%.9g %.9g %.9g\n", (ts->t_s[a] - t0) / unit_s, v, cap);
		rows++;
	}
	fputs("\n\n", f);
	return rows;
}

static FILE *open_dat(const char *dir, const char *name, char *path, size_t cap, struct sim_diag *diag)
{
	snprintf(path, cap, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f)
		sim_diag_add(diag, path, "cannot write: %s", strerror(errno));
	return f;
}

static int close_dat(FILE *f, const char *path, struct sim_diag *diag)
{
	int bad = ferror(f);
	if (fclose(f) != 0 || bad) {
		sim_diag_add(diag, path, "write failed: %s", strerror(errno));
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

/* Runs gnuplot on analysis_dir/NAME.gp with the variables; checks the PNG exists. */
static int run_template(const char *gnuplot, const char *adir, const char *outdir, const char *name,
			const char *term, const struct plot_vars *pv, int quiet, struct sim_diag *diag)
{
	char tmpl[1024], dat[1024], png[1024];
	snprintf(tmpl, sizeof tmpl, "%s/%s.gp", adir, name);
	snprintf(dat, sizeof dat, "%s/%s.dat", outdir, name);
	snprintf(png, sizeof png, "%s/%s.png", outdir, name);
	if (access(tmpl, R_OK) != 0) {
		sim_diag_add(diag, tmpl, "plot template not found (set GPUSCHED_ANALYSIS_DIR to the analysis/ folder)");
		return -SIM_EIO;
	}
	char qdat[2100], qpng[2100], qadir[2100], vars[8192];
	gp_quote(qdat, sizeof qdat, dat);
	gp_quote(qpng, sizeof qpng, png);
	gp_quote(qadir, sizeof qadir, adir);
	snprintf(vars, sizeof vars,
		 "datafile=%s; outfile=%s; analysis_dir=%s; term='%s'; nblocks=%ld; npoints=%ld; "
		 "xunit='%s'; samecap=%d; capacity=%.9g",
		 qdat, qpng, qadir, term, pv->nblocks, pv->npoints, pv->xunit ? pv->xunit : "s", pv->samecap,
		 pv->capacity);
	char *argv[] = { (char *)"gnuplot", (char *)"-e", vars, tmpl, NULL };
	char *msg = NULL;
	unlink(png);
	int st = run_capture(gnuplot, argv, &msg);
	struct stat sb;
	int r = 0;
	if (st != 0) {
		sim_diag_add(diag, tmpl, "gnuplot failed (%s %d)%s%s", st < 0 ? "could not run," : "exit status",
			     st, msg && *msg ? ":\n" : "", msg ? msg : "");
		r = -SIM_EEXTERNAL;
	} else if (stat(png, &sb) != 0 || sb.st_size == 0) {
		sim_diag_add(diag, png, "gnuplot exited 0 but wrote no image%s%s", msg && *msg ? ":\n" : "",
			     msg ? msg : "");
		r = -SIM_EEXTERNAL;
	} else if (!quiet) {
		printf("wrote %s\n", png);
	}
	free(msg);
	return r;
}

/* Makes the output folder (one level); an existing folder is fine. */
static int make_dir(const char *dir, struct sim_diag *diag)
{
	struct stat st;
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
	return 0;
}

/* Finds gnuplot and the best PNG terminal it has ("pngcairo", else "png"). */
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

int plot_results(const struct h5read_file *f, const struct plot_opts *o, struct sim_diag *diag)
{
	char *gp = NULL;
	const char *term = "png";
	int r = probe_gnuplot(o, &gp, &term, diag);
	if (r)
		return r;
	struct h5read_summary s;
	if ((r = h5read_summary(f, &s, diag)))
		goto out_gp;
	if ((r = make_dir(o->outdir, diag)))
		goto out_sum;
	const char *adir = plot_analysis_dir(o);
	char pw[1024], pj[1024], pb[1024];
	FILE *fw = open_dat(o->outdir, "wait_cdf.dat", pw, sizeof pw, diag);
	FILE *fj = fw ? open_dat(o->outdir, "jct_cdf.dat", pj, sizeof pj, diag) : NULL;
	FILE *fb = fj ? open_dat(o->outdir, "busy_gpus.dat", pb, sizeof pb, diag) : NULL;
	if (!fb) {
		if (fw)
			fclose(fw);
		if (fj)
			fclose(fj);
		r = -SIM_EIO;
		goto out_sum;
	}
	size_t nr = h5read_n_runs(f);
	struct plot_vars vw = { .nblocks = (long)nr }, vj = vw, vb = vw;

	/* Time axis unit from the longest series. */
	double span = 0, cap0 = NAN;
	vb.samecap = 1;
	struct h5read_timeseries *tss = calloc(nr ? nr : 1, sizeof *tss);
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
		long kw = cdf_block(fw, run, j.wait_s, j.n);
		long kj = cdf_block(fj, run, j.jct_s, j.n);
		h5read_jobs_free(&j);
		if (kw < 0 || kj < 0) {
			r = -SIM_ENOMEM;
			sim_diag_add(diag, h5read_path(f), "out of memory");
			break;
		}
		vw.npoints += kw;
		vj.npoints += kj;
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
		for (size_t i = 0; i < nr; i++) {
			const char *run = h5read_run_name(f, i);
			int row = h5read_summary_row(&s, run);
			double cap = row >= 0 ? h5read_summary_get(&s, (size_t)row, "gpu_capacity") : NAN;
			vb.npoints += (long)busy_block(fb, run, &tss[i], 0.0, unit_s, isfinite(cap) ? cap : 0);
		}
	}
out_files:
	for (size_t i = 0; tss && i < nr; i++)
		h5read_timeseries_free(&tss[i]);
	free(tss);
	{
		int c1 = close_dat(fw, pw, diag), c2 = close_dat(fj, pj, diag), c3 = close_dat(fb, pb, diag);
		if (!r)
			r = c1 ? c1 : c2 ? c2 : c3;
	}
	if (!r)
		r = run_template(gp, adir, o->outdir, "wait_cdf", term, &vw, o->quiet, diag);
	if (!r)
		r = run_template(gp, adir, o->outdir, "jct_cdf", term, &vj, o->quiet, diag);
	if (!r)
		r = run_template(gp, adir, o->outdir, "busy_gpus", term, &vb, o->quiet, diag);
out_sum:
	h5read_summary_free(&s);
out_gp:
	free(gp);
	return r;
}
