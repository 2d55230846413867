/* analysis/plot.h: PNG plots of a results file through gnuplot (gpusched plot).
 *
 * Writes OUTDIR/{wait_cdf,jct_cdf,busy_gpus}.dat from the HDF5 file alone (at most
 * PLOT_MAX_POINTS points a curve) and runs gnuplot, as an external program, on the
 * committed templates analysis/{wait_cdf,jct_cdf,busy_gpus}.gp, giving
 * OUTDIR/{wait_cdf,jct_cdf,busy_gpus}.png, and cost_wait.png (analysis/cost_wait.gp:
 * mean cost per job against mean wait in hours, one labelled point a run, from
 * /summary). Then, per run (names from plot_file_name): queues_<run>.png
 * (analysis/queue_usage.gp: each queue's GPUs stacked over time, the part above its
 * nominal quota hatched) for a run with per-queue series and more than one queue or a
 * quota policy, preemptions_<run>.png (analysis/preemptions.gp: preemptions per hour
 * or day, stacked by reason) for a run with preemptions, and options_<run>.png
 * (analysis/options.gp: started jobs by the option index they ran on, bars with
 * counts) for a run where some job had 2 or more options; one note line counts the
 * runs without them. In a real-mode file (root attribute mode "real", schema 1.4),
 * also per run real_runtime_<run>.png (analysis/real_runtime.gp: measured against
 * predicted run time of each completed job's completing segment, trace s, with y = x;
 * log-log past a 20x spread) and real_latency_<run>.png (analysis/real_latency.gp: the
 * CDF of every start's decision latency in wall ms, p50 and p99 marked); a simulation
 * file draws neither. Also queued_jobs.png (analysis/queued_jobs.gp: jobs waiting over
 * time, per variant as busy_gpus) and, per run, flavor_busy_<run>.png (2+ flavors),
 * jain_<run>.png (Jain's index over the queues, 2+ queues) and queue_wait_<run>.png
 * (each queue's wait CDF, 2+ queues); analysis/SCHEMA.md has their data. gnuplot's
 * exit status is checked; its messages are shown only
 * when it fails.
 *
 * Sweeps: when the config (root attribute experiment_json) has a "sweep", also
 * sweep_<metric>_<parameter>.png (analysis/sweep_metric.gp) for each of mean_wait,
 * p95_wait, mean_jct, utilization and cost (mean_cost_per_job; only when some
 * variant's cost is not 0) against each swept parameter (its path, named as
 * plot_file_name does): per variant, the mean over its runs (seeds) and the 95% CI
 * half-width (Student t, sim_metrics_replicate, as the report's replications), one
 * line a combination of the other parameters' values (at most PLOT_MAX_QUEUES lines;
 * a parameter needing more is left out with a note). Runs are matched to variants by
 * name (experiments/README.md, "Variant names"); other runs are left out with a note.
 * A parameter whose values are all numbers is drawn on a numeric axis, any other as
 * categories named like the variants. No sweep: no sweep plot, nothing said.
 */
#ifndef ANALYSIS_PLOT_H
#define ANALYSIS_PLOT_H

#include "h5read.h"

#define PLOT_MAX_POINTS 2000
#define PLOT_MAX_QUEUES 12  /* series in a queue plot; beyond, the least used are "other" */
#define PLOT_NAME_MAX 200   /* characters of a run name kept in a file name */

struct sim_out_stage;

struct plot_opts {
	const char *outdir;       /* created if missing (one level) */
	const char *analysis_dir; /* templates; NULL: env GPUSCHED_ANALYSIS_DIR, else the build's */
	const char *gnuplot;      /* program; NULL: "gnuplot" found on PATH */
	int quiet;                /* 1: print nothing on success */
	const char *format;       /* image format: "png" (NULL), "pdf" or "svg" (plot_format_ok) */
	struct sim_out_stage *stage; /* set by plot_results (callers leave NULL): the outputs'
				       * temporaries, renamed once every plot is written */
};

/* Writes every .dat and .png under a temporary name in OUTDIR and renames them all
 * once every plot is done; on any failure removes only those temporaries (and
 * OUTDIR when it made it), so existing files of OUTDIR stay as they were.
 * Returns 0, -SIM_EEXTERNAL (gnuplot missing or failed), -SIM_EIO (cannot write),
 * or a reader error (h5read.h), with a message in diag. */
int plot_results(const struct h5read_file *f, const struct plot_opts *o, struct sim_diag *diag);
/* Two result files overlaid (gpusched plot A.h5 B.h5): OUTDIR/overlay_{wait_cdf,
 * jct_cdf,busy_gpus,queued_jobs}.{dat,png} drawn with the templates of the one-file
 * plots, one curve a variant of either file (seeds averaged, 95% band), named
 * "<file>: <variant>" (<file> the base name, or the path as given when both base
 * names are the same). Staged and returned as plot_results. */
int plot_overlay(const struct h5read_file *a, const struct h5read_file *b, const struct plot_opts *o,
		 struct sim_diag *diag);
/* 1 when name is an image format plot draws: "png", "pdf", "svg". */
int plot_format_ok(const char *name);

/* Runs gnuplot (a path, or a name found on PATH) as `gnuplot -e VARS TEMPLATE`,
 * its output captured for the message; checks png (the caller's temporary, named
 * as outfile in VARS, empty before) was written. Removes nothing.
 * 0, or -SIM_EEXTERNAL with the reason in diag. */
int plot_run_gnuplot(const char *gnuplot, const char *tmpl, const char *vars, const char *png,
		     struct sim_diag *diag);
/* s as a gnuplot single-quoted string literal (quotes doubled: 'it''s'), cut to cap. */
void plot_gp_quote(char *dst, size_t cap, const char *s);

/* The folder plot templates are read from (see plot_opts.analysis_dir). */
const char *plot_analysis_dir(const struct plot_opts *o);

/* The file name base for a per-run plot: prefix, then the run name with every
 * character other than [A-Za-z0-9._-] replaced by '_' (at most PLOT_NAME_MAX of
 * them): plot_file_name("queues_", "a b/c", ...) gives "queues_a_b_c". */
void plot_file_name(const char *prefix, const char *run, char *buf, size_t cap);

/* Reduces sorted values x[0..n) to a CDF of at most max_points (x, fraction <= x)
 * pairs, always keeping the first and last; returns the number of pairs written
 * to xs/ys (each sized max_points). */
size_t plot_cdf_points(const double *x, size_t n, size_t max_points, double *xs, double *ys);

#endif
