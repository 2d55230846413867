/* cli/cmd_real.c: gpusched real CONFIG --backend cpu|cuda [--time-scale S] [-o OUT.h5] ... */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../experiments/config.h"
#include "../experiments/runner.h"
#include "../gpu_exec/drv_real.h"
#include "cmd.h"

static const char real_usage[] =
	"usage: gpusched real CONFIG.json --backend cpu|cuda [--time-scale S] [-o OUT.h5]\n"
	"                     [--sms FLAVOR=N,...] [--iter-us U] [--log FILE] [-q] [--no-progress]\n"
	"       (options may come before or after the config; --opt=VALUE works as --opt VALUE,\n"
	"       -oOUT.h5 and --output for -o; -- ends the options)\n"
	"\n"
	"Runs the config's trace and policies for real (docs/design.md section 7): the same code as\n"
	"`gpusched run` decides, on the wall clock; every job runs as a workload on the\n"
	"executor's virtual GPUs, one per GPU of the cluster (flavor by flavor, node by node),\n"
	"sized to the model's run time on its flavor divided by S. Preemption stops the\n"
	"workload at its next iteration; it resumes from its last checkpoint. Results use the\n"
	"layout of `run` with measured times, plus /runs/<run>/real (analysis/SCHEMA.md);\n"
	"`gpusched compare SIM.h5 REAL.h5` gives the simulator's error per metric.\n"
	"\n"
	"  --backend cpu    threads stand in for GPUs, paced by the wall clock: runs anywhere\n"
	"  --backend cuda   CUDA kernels on the physical GPUs, or on green-context SM partitions\n"
	"                   of them with --sms\n"
	"  --time-scale S   trace seconds per wall second, in [0.001, 1e9] (default 1; 3600: a\n"
	"                   trace hour a second)\n"
	"  -o, --output OUT.h5  results file (default: the config's \"output\" with -real before .h5)\n"
	"  --sms F=N,...    cuda: virtual GPUs of flavor F get N SMs each (a slower flavor, fewer\n"
	"                   SMs); flavors not named get a whole physical GPU each\n"
	"  --iter-us U      workload iteration, microseconds in [1, 1e6] (cpu default 500, cuda 200): the\n"
	"                   granularity of progress, checkpoints and preemption\n"
	"  --log FILE       the engine's event log, as `run --log`\n"
	"  -q, --quiet      print nothing but errors\n"
	"  --no-progress    no progress line (shown only on a terminal anyway)\n"
	"\n"
	"Runs go one at a time (no -j, no mpirun): they share the devices and the clock.\n"
	"exit codes: 0 ok, 1 runtime failure, 2 bad input (also: backend not available)\n";

/* Bounds of the numeric flags. A time scale below the minimum turns any trace into
 * a run that does not end (1e-300: a trace second per 1e300 wall seconds); an
 * iteration under 1 us is below what a clock read costs. */
#define TIME_SCALE_MIN 1e-3
#define TIME_SCALE_MAX 1e9
#define ITER_US_MIN 1.0
#define ITER_US_MAX 1e6

static int parse_range(const char *flag, const char *s, double min, double max, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (!*s || *end || errno || !(v >= min) || !(v <= max)) {
		cmd_usage_error("real", real_usage, "%s: expected a number in [%g, %g], got '%s'", flag, min, max, s);
		return -1;
	}
	*out = v;
	return 0;
}

/* The config's output with "-real" before its .h5 (or at the end), so that a real
 * run never overwrites the simulation's results of the same config. */
static char *default_output(const char *sim_out)
{
	size_t n = strlen(sim_out);
	char *out = malloc(n + 8);
	if (!out)
		return NULL;
	if (n > 3 && strcmp(sim_out + n - 3, ".h5") == 0)
		snprintf(out, n + 8, "%.*s-real.h5", (int)(n - 3), sim_out);
	else
		snprintf(out, n + 8, "%s-real", sim_out);
	return out;
}

int cmd_real(int argc, char **argv)
{
	const char *config = NULL;
	struct exp_run_opts opts = { .progress = 1 };
	struct real_opts ro = { .time_scale = 1.0, .fail_job = -1 };
	double iter_us = 0;
	static const struct option longs[] = {
		{ "help", no_argument, NULL, 'h' },		{ "backend", required_argument, NULL, 'b' },
		{ "time-scale", required_argument, NULL, 't' }, { "iter-us", required_argument, NULL, 'i' },
		{ "sms", required_argument, NULL, 's' },	{ "output", required_argument, NULL, 'o' },
		{ "log", required_argument, NULL, 'l' },	{ "quiet", no_argument, NULL, 'q' },
		{ "no-progress", no_argument, NULL, 'P' },	{ NULL, 0, NULL, 0 },
	};
	optind = 0; /* glibc: a full restart of getopt's scan */
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":ho:q", longs, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(real_usage, stdout);
			return GPUSCHED_EXIT_OK;
		case 'b':
			ro.backend = optarg;
			break;
		case 't':
			if (parse_range("--time-scale", optarg, TIME_SCALE_MIN, TIME_SCALE_MAX, &ro.time_scale))
				return GPUSCHED_EXIT_BADINPUT;
			break;
		case 'i':
			if (parse_range("--iter-us", optarg, ITER_US_MIN, ITER_US_MAX, &iter_us))
				return GPUSCHED_EXIT_BADINPUT;
			break;
		case 's':
			ro.sms = optarg;
			break;
		case 'o':
			opts.output = optarg;
			break;
		case 'l':
			opts.log_path = optarg;
			break;
		case 'q':
			opts.quiet = 1;
			break;
		case 'P':
			opts.progress = 0;
			break;
		default:
			return cmd_getopt_error("real", real_usage, c, argv);
		}
	}
	for (int i = optind; i < argc; i++) {
		if (config)
			return cmd_usage_error("real", real_usage, "unexpected argument '%s'", argv[i]);
		config = argv[i];
	}
	if (!config || !ro.backend)
		return cmd_usage_error("real", real_usage, "expected CONFIG.json and --backend cpu|cuda");
	if (strcmp(ro.backend, "cpu") != 0 && strcmp(ro.backend, "cuda") != 0)
		return cmd_usage_error("real", real_usage, "--backend: expected cpu or cuda, got '%s'", ro.backend);
	ro.iter_ns = (int64_t)llround(iter_us * 1e3);
	ro.verbose = !opts.quiet;
	ro.progress = opts.progress;
	opts.real = &ro;
	struct sim_diag diag;
	sim_diag_init(&diag, 20);
	struct exp_config *cfg = NULL;
	char *out = NULL;
	int rc = exp_config_load(config, &cfg, &diag);
	if (!rc && !opts.output && !(opts.output = out = default_output(cfg->output)))
		rc = -SIM_ENOMEM;
	if (!rc)
		rc = exp_run_config(cfg, &opts, &diag);
	exp_config_locate_errors(cfg, &diag); /* a YAML config's policy errors get their line */
	if (rc) {
		sim_diag_print(&diag, stderr);
		if (!diag.count)
			fprintf(stderr, "gpusched real: %s\n", sim_strerror(rc));
	} else if (!opts.quiet) {
		fprintf(stderr, "wrote %s\n", opts.output);
	}
	free(out);
	exp_config_destroy(cfg);
	sim_diag_fini(&diag);
	return cmd_exit_code(rc);
}
