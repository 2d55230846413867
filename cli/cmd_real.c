/* cli/cmd_real.c: gpusched real CONFIG --backend cpu|cuda [--time-scale S] [-o OUT.h5] ... */
#include <errno.h>
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
	"\n"
	"Runs the config's trace and policies for real (docs/design.md section 7): the same code as\n"
	"`gpusched run` decides, on the wall clock; every job runs as a workload on the\n"
	"executor's virtual GPUs, one per GPU of the cluster (flavor by flavor, node by node),\n"
	"sized to the model's run time on its flavor divided by S. Preemption stops the\n"
	"workload at its next iteration; it resumes from its last checkpoint. Results use the\n"
	"layout of `run` with measured times, plus /runs/<run>/real (analysis/SCHEMA.md);\n"
	"`gpusched compare SIM.h5 REAL.h5` gives the simulator's error per metric.\n"
	"\n"
	"  --backend cpu    threads stand in for GPUs (a paced busy loop): runs anywhere\n"
	"  --backend cuda   CUDA kernels on the physical GPUs, or on green-context SM partitions\n"
	"                   of them with --sms\n"
	"  --time-scale S   trace seconds per wall second, in [0.001, 1e9] (default 1; 3600: a\n"
	"                   trace hour a second)\n"
	"  -o OUT.h5        results file (default: the config's \"output\" with -real before .h5)\n"
	"  --sms F=N,...    cuda: virtual GPUs of flavor F get N SMs each (a slower flavor, fewer\n"
	"                   SMs); flavors not named get a whole physical GPU each\n"
	"  --iter-us U      workload iteration, microseconds in [1, 1e6] (cpu default 500, cuda 200): the\n"
	"                   granularity of progress, checkpoints and preemption\n"
	"  --log FILE       the engine's event log, as `run --log`\n"
	"  -q               print nothing but errors\n"
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
		fprintf(stderr, "gpusched real: %s: expected a number in [%g, %g], got '%s'\n", flag, min, max, s);
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
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int has = i + 1 < argc;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			fputs(real_usage, stdout);
			return GPUSCHED_EXIT_OK;
		} else if (strcmp(a, "--backend") == 0 && has) {
			ro.backend = argv[++i];
		} else if (strcmp(a, "--time-scale") == 0 && has) {
			if (parse_range(a, argv[++i], TIME_SCALE_MIN, TIME_SCALE_MAX, &ro.time_scale))
				return GPUSCHED_EXIT_BADINPUT;
		} else if (strcmp(a, "--iter-us") == 0 && has) {
			if (parse_range(a, argv[++i], ITER_US_MIN, ITER_US_MAX, &iter_us))
				return GPUSCHED_EXIT_BADINPUT;
		} else if (strcmp(a, "--sms") == 0 && has) {
			ro.sms = argv[++i];
		} else if (strcmp(a, "-o") == 0 && has) {
			opts.output = argv[++i];
		} else if (strcmp(a, "--log") == 0 && has) {
			opts.log_path = argv[++i];
		} else if (strcmp(a, "-q") == 0) {
			opts.quiet = 1;
		} else if (strcmp(a, "--no-progress") == 0) {
			opts.progress = 0;
		} else if (a[0] == '-' || config) {
			fprintf(stderr, "gpusched real: unexpected argument '%s'\n%s", a, real_usage);
			return GPUSCHED_EXIT_BADINPUT;
		} else {
			config = a;
		}
	}
	if (!config || !ro.backend) {
		fprintf(stderr, "gpusched real: expected CONFIG.json and --backend cpu|cuda\n%s", real_usage);
		return GPUSCHED_EXIT_BADINPUT;
	}
	if (strcmp(ro.backend, "cpu") != 0 && strcmp(ro.backend, "cuda") != 0) {
		fprintf(stderr, "gpusched real: --backend: expected cpu or cuda, got '%s'\n", ro.backend);
		return GPUSCHED_EXIT_BADINPUT;
	}
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
