/* cli/cmd_run.c: gpusched run CONFIG [-o OUT.h5] [--log FILE] [-q] [--no-progress] */
#include <stdio.h>
#include <string.h>

#include "../experiments/config.h"
#include "../experiments/runner.h"
#include "cmd.h"

static const char run_usage[] =
	"usage: gpusched run CONFIG.json [-o OUT.h5] [--log FILE] [-q] [--no-progress]\n"
	"\n"
	"Runs every sweep variant and seed of an experiment config (keys: experiments/README.md)\n"
	"and writes one HDF5 results file (layout: analysis/SCHEMA.md). The file is written\n"
	"under OUT.h5.tmp and renamed when complete; on any error nothing is left behind.\n"
	"\n"
	"  -o OUT.h5        results file (default: the config's \"output\")\n"
	"  --log FILE       write every run's event log to FILE: one line a submit, start and\n"
	"                   finish, \"[T] job=ID event=start flavor=F node=N runtime_s=R\"\n"
	"  -q               print nothing but errors\n"
	"  --no-progress    no progress line (shown only on a terminal anyway)\n"
	"\n"
	"exit codes: 0 ok, 1 runtime failure, 2 bad input (every error is listed with its location)\n";

int cmd_run(int argc, char **argv)
{
	const char *config = NULL;
	struct exp_run_opts opts = { .progress = 1 };
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(run_usage, stdout);
			return GPUSCHED_EXIT_OK;
		} else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
			opts.output = argv[++i];
		} else if (strcmp(argv[i], "--log") == 0 && i + 1 < argc) {
			opts.log_path = argv[++i];
		} else if (strcmp(argv[i], "-q") == 0) {
			opts.quiet = 1;
		} else if (strcmp(argv[i], "--no-progress") == 0) {
			opts.progress = 0;
		} else if (argv[i][0] == '-' || config) {
			fprintf(stderr, "gpusched run: unexpected argument '%s'\n%s", argv[i], run_usage);
			return GPUSCHED_EXIT_BADINPUT;
		} else {
			config = argv[i];
		}
	}
	if (!config) {
		fputs(run_usage, stderr);
		return GPUSCHED_EXIT_BADINPUT;
	}
	struct sim_diag diag;
	sim_diag_init(&diag, 20);
	struct exp_config *cfg = NULL;
	int rc = exp_config_load(config, &cfg, &diag);
	if (!rc)
		rc = exp_run_config(cfg, &opts, &diag);
	if (rc) {
		sim_diag_print(&diag, stderr);
		if (!diag.count)
			fprintf(stderr, "gpusched run: %s\n", sim_strerror(rc));
	} else if (!opts.quiet) {
		fprintf(stderr, "wrote %s\n", opts.output ? opts.output : cfg->output);
	}
	exp_config_destroy(cfg);
	sim_diag_fini(&diag);
	return cmd_exit_code(rc);
}
