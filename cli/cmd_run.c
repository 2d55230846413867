/* cli/cmd_run.c: gpusched run CONFIG [-o OUT.h5] [-j N] [--resume] [--log FILE] [-q] [--no-progress] */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../experiments/config.h"
#include "../experiments/parallel.h"
#include "../experiments/runner.h"
#include "cmd.h"

static const char run_usage[] =
	"usage: gpusched run CONFIG.json [-o OUT.h5] [-j N] [--resume] [--log FILE] [-q] [--no-progress]\n"
	"       (options may come before or after CONFIG; -oOUT, --output OUT, --output=OUT, -j4,\n"
	"       --jobs=4, --log=FILE, --quiet work too; -- ends the options)\n"
	"\n"
	"Runs every sweep variant and seed of an experiment config (keys: experiments/README.md)\n"
	"and writes one HDF5 results file (layout: analysis/SCHEMA.md). Each finished run is\n"
	"kept as a part file in OUT.h5.parts/; when all are done they are merged, in run order,\n"
	"into OUT.h5 (written as OUT.h5.parts/merged.h5.XXXXXX.tmp, then renamed) and the folder\n"
	"is removed. A config of one run is written in place instead, straight into that\n"
	"temporary, without a part.\n"
	"A run that fails or is stopped (even by SIGKILL: its workers die with it) leaves no\n"
	"OUT.h5 and no .tmp, only the complete parts, which --resume uses. No output may be an\n"
	"input.\n"
	"Under mpirun -np N, rank r runs the runs i with i % N == r and rank 0 writes OUT.h5.\n"
	"\n"
	"  -o, --output OUT.h5  results file (default: the config's \"output\")\n"
	"  -j, --jobs N     run N runs at a time in N worker processes (default 1; 0: one per CPU);\n"
	"                   the file is the same whatever N (wall_s aside)\n"
	"  --resume         keep the complete parts of an earlier run of this same config and\n"
	"                   trace (refused, exit 2, when they belong to another) and run the rest\n"
	"  --log FILE       write every run's event log to FILE: one line a submit, start and\n"
	"                   finish, \"[T] job=ID event=start flavor=F node=N runtime_s=R\"\n"
	"  -q, --quiet      print nothing but errors\n"
	"  --no-progress    no progress line (shown only on a terminal anyway)\n"
	"\n"
	"exit codes: 0 ok, 1 runtime failure, 2 bad input (every error is listed with its location)\n";

/* -j N: N >= 0, 0 meaning one worker a CPU. */
static int parse_jobs(const char *s, int *out)
{
	char *end;
	long n = strtol(s, &end, 10);
	if (!*s || *end || n < 0 || n > 256) {
		fprintf(stderr, "gpusched run: -j: expected a number of processes from 0 to 256, got '%s'\n", s);
		return -1;
	}
	if (n == 0) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		n = cpus > 0 ? cpus : 1;
	}
	*out = (int)n;
	return 0;
}

int cmd_run(int argc, char **argv)
{
	const char *config = NULL;
	struct exp_run_opts opts = { .progress = 1 };
	enum { O_RESUME = 256, O_LOG, O_NO_PROGRESS };
	static const struct option longs[] = {
		{ "help", no_argument, NULL, 'h' },	     { "output", required_argument, NULL, 'o' },
		{ "jobs", required_argument, NULL, 'j' },    { "resume", no_argument, NULL, O_RESUME },
		{ "log", required_argument, NULL, O_LOG },   { "quiet", no_argument, NULL, 'q' },
		{ "no-progress", no_argument, NULL, O_NO_PROGRESS }, { NULL, 0, NULL, 0 },
	};
	optind = 0; /* glibc: a full restart of getopt's scan */
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":ho:j:q", longs, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(run_usage, stdout);
			return GPUSCHED_EXIT_OK;
		case 'o':
			opts.output = optarg;
			break;
		case O_LOG:
			opts.log_path = optarg;
			break;
		case 'j':
			if (parse_jobs(optarg, &opts.jobs))
				return GPUSCHED_EXIT_BADINPUT;
			break;
		case O_RESUME:
			opts.resume = 1;
			break;
		case 'q':
			opts.quiet = 1;
			break;
		case O_NO_PROGRESS:
			opts.progress = 0;
			break;
		default:
			return cmd_getopt_error("run", run_usage, c, argv);
		}
	}
	for (int i = optind; i < argc; i++) {
		if (config)
			return cmd_usage_error("run", run_usage, "unexpected argument '%s'", argv[i]);
		config = argv[i];
	}
	if (!config)
		return cmd_usage_error("run", run_usage, "no config given");
	struct sim_diag diag;
	sim_diag_init(&diag, 20);
	struct exp_config *cfg = NULL;
	int rc = exp_config_load(config, &cfg, &diag);
	if (!rc)
		rc = exp_run_config(cfg, &opts, &diag);
	exp_config_locate_errors(cfg, &diag); /* a YAML config's policy errors get their line */
	/* Under MPI every rank checks the same input: rank 0 reports bad input, the
	 * others only their own runtime failures. */
	int speak = exp_mpi_rank() == 0 || (rc && cmd_exit_code(rc) != GPUSCHED_EXIT_BADINPUT && diag.count);
	if (rc && speak) {
		sim_diag_print(&diag, stderr);
		if (!diag.count)
			fprintf(stderr, "gpusched run: %s\n", sim_strerror(rc));
	} else if (!rc && !opts.quiet && exp_mpi_rank() == 0) {
		fprintf(stderr, "wrote %s\n", opts.output ? opts.output : cfg->output);
	}
	exp_config_destroy(cfg);
	sim_diag_fini(&diag);
	exp_mpi_finalize();
	return cmd_exit_code(rc);
}
