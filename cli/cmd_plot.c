/* cli/cmd_plot.c: gpusched plot RESULTS.h5 [B.h5] -o DIR */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "../analysis/h5read.h"
#include "../analysis/plot.h"
#include "cmd.h"

static const char plot_usage[] =
	"usage: gpusched plot RESULTS.h5 [B.h5] -o DIR [--format png|pdf|svg] [-q]\n"
	"       (options may come before or after the files; -oDIR, --output DIR,\n"
	"       --output=DIR and --format=F work too; -- ends the options)\n"
	"\n"
	"Draws plots (PNG, or PDF or SVG with --format) from a results file alone, with\n"
	"gnuplot (an external program; Debian: gnuplot-nox); a variant's seeds are\n"
	"replications, drawn as their mean with a 95% confidence band or error bar.\n"
	"DIR is created if missing and receives:\n"
	"  wait_cdf.png   CDF of job wait (s, log axis), one curve a variant: the mean\n"
	"                 over its seeds, with the 95% confidence band (Student t)\n"
	"  jct_cdf.png    the same for the job completion time\n"
	"  busy_gpus.png  busy GPUs over time, one line a run, with the GPU capacity\n"
	"  cost_wait.png  mean cost per job (currency) against mean wait (h), one\n"
	"                 labelled point a run (e.g. one a fallback policy of a sweep);\n"
	"                 only when some run paid (a price is set)\n"
	"and, per run (RUN: the run name, characters other than A-Z a-z 0-9 . _ - as _):\n"
	"  queues_RUN.png       GPUs in use by each queue over time, stacked; the part\n"
	"                       above a queue's nominal quota (borrowed) hatched; at most\n"
	"                       12 series (the least used queues summed as \"other\");\n"
	"                       for runs with more than one queue or a quota policy\n"
	"  preemptions_RUN.png  preemptions per hour (per day over 14 days), stacked by\n"
	"                       reason; for runs that preempted\n"
	"  options_RUN.png      histogram of the option index the started jobs ran on\n"
	"                       (0 = first preference), with counts; for runs where\n"
	"                       some job listed 2 or more options\n"
	"and, for a real-mode file (gpusched real), per run:\n"
	"  real_runtime_RUN.png measured against predicted run time (trace s) of each\n"
	"                       completed job (its completing segment), with y = x;\n"
	"                       log-log when the run times span more than 20x\n"
	"  real_latency_RUN.png CDF of the decision latency of every start (wall ms),\n"
	"                       its p50 and p99 marked\n"
	"(a note line counts the runs left out); for a config with a sweep:\n"
	"  sweep_METRIC_PARAM.png  METRIC (mean_wait, p95_wait, mean_jct, utilization,\n"
	"                       cost) against the swept parameter PARAM: the mean over\n"
	"                       the seeds of each variant with its 95% confidence\n"
	"                       interval (Student t), one line a combination of the other\n"
	"                       swept parameters' values (at most 12); numbers on a\n"
	"                       numeric axis, other values as categories drawn as bars\n"
	"                       with error bars\n"
	;
/* The rest of the usage (one literal would pass the 4095 characters C99 promises). */
static const char plot_usage_more[] =
	"and also:\n"
	"  queued_jobs.png      jobs waiting over time, one curve a variant (mean over\n"
	"                       its seeds, 95% band)\n"
	"  flavor_busy_RUN.png  busy GPUs of each flavor over time; runs on 2+ flavors\n"
	"  jain_RUN.png         Jain's fairness index over the queues' busy GPUs (over\n"
	"                       their nominal quotas with a quota policy); 2+ queues\n"
	"  queue_wait_RUN.png   CDF of job wait of each queue (at most 12); 2+ queues\n"
	"With two files (A.h5 B.h5), only the two overlaid, one curve a variant of\n"
	"either, named \"FILE: variant\": overlay_wait_cdf, overlay_jct_cdf,\n"
	"overlay_busy_gpus and overlay_queued_jobs.\n"
	"and the .dat files they are drawn from\n"
	"(at most 2000 points a curve).\n"
	"Templates (*.gp): the folder GPUSCHED_ANALYSIS_DIR names, else ../share/gpusched\n"
	"beside an installed binary (cmake --install), else the source tree's analysis/.\n"
	"\n"
	"  -o, --output DIR  output folder (required)\n"
	"  --format F  png (default), pdf (gnuplot's pdfcairo) or svg: the images'\n"
	"           format and file extension (.png above becomes .pdf or .svg)\n"
	"  -q, --quiet  print nothing on success\n"
	"\n"
	"exit codes: 0 ok, 1 runtime failure (gnuplot missing or failed), 2 bad input\n";

int cmd_plot(int argc, char **argv)
{
	const char *path = NULL, *path_b = NULL;
	struct plot_opts o = { 0 };
	static const struct option longs[] = {
		{ "help", no_argument, NULL, 'h' },	    { "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' }, { "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	optind = 0; /* glibc: a full restart of getopt's scan */
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":ho:q", longs, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(plot_usage, stdout);
			fputs(plot_usage_more, stdout);
			return GPUSCHED_EXIT_OK;
		case 'o':
			o.outdir = optarg;
			break;
		case 'f':
			o.format = optarg;
			if (!plot_format_ok(o.format))
				return cmd_usage_error("plot", plot_usage,
						       "unknown --format '%s' (expected png, pdf or svg)", o.format);
			break;
		case 'q':
			o.quiet = 1;
			break;
		default:
			return cmd_getopt_error("plot", plot_usage, c, argv);
		}
	}
	for (int i = optind; i < argc; i++) {
		if (path_b)
			return cmd_usage_error("plot", plot_usage, "unexpected argument '%s'", argv[i]);
		if (path)
			path_b = argv[i];
		else
			path = argv[i];
	}
	if (!path || !o.outdir) {
		return cmd_usage_error("plot", plot_usage, "%s",
				       path ? "-o DIR is required" : "no results file given");
	}
	if (cmd_check_output_dir(o.outdir, "results file", path) ||
	    (path_b && cmd_check_output_dir(o.outdir, "results file", path_b)))
		return GPUSCHED_EXIT_BADINPUT;
	struct sim_diag diag;
	sim_diag_init(&diag, 20);
	struct h5read_file *f = NULL, *fb = NULL;
	int rc = h5read_open(path, &f, &diag);
	if (!rc && path_b)
		rc = h5read_open(path_b, &fb, &diag);
	if (!rc)
		rc = path_b ? plot_overlay(f, fb, &o, &diag) : plot_results(f, &o, &diag);
	if (rc) {
		fprintf(stderr, "gpusched plot: ");
		if (diag.count)
			sim_diag_print(&diag, stderr);
		else
			fprintf(stderr, "%s\n", sim_strerror(rc));
	}
	h5read_close(f);
	h5read_close(fb);
	sim_diag_fini(&diag);
	return cmd_exit_code(rc);
}
