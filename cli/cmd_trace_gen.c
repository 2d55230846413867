/* cli/cmd_trace_gen.c: gpusched trace gen CONFIG -o OUT.csv (traces/gen.h; config keys in
 * experiments/gen/README.md). cli/cmd_trace.c dispatches "gen" here. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../traces/gen.h"
#include "cmd.h"

/* Also declared in cmd.h once cmd_trace.c dispatches to it; repeated here so this file
 * stands alone (-Wmissing-prototypes). */
int cmd_trace_gen(int argc, char **argv);

static const char gen_usage[] =
    "usage: gpusched trace gen CONFIG.json -o OUT.csv [--seed S]\n"
    "       (options may come before or after the config; -oOUT.csv, --output OUT.csv,\n"
    "       --output=OUT.csv and --seed=S work too; -- ends the options)\n"
    "\n"
    "Draws a synthetic workload as a native CSV trace from a generator config:\n"
    "Poisson arrivals (optional diurnal swing and bursts), lognormal, Weibull or\n"
    "resampled durations, and mixes of GPU counts, queues, priorities and preference\n"
    "lists. Every key is described in experiments/gen/README.md. The same config and\n"
    "seed give the same bytes. OUT.csv is written under OUT.csv.tmp and renamed.\n"
    "\n"
    "  -o, --output OUT.csv  output file (required)\n"
    "  --seed S     overrides the config's seed (an integer >= 0)\n"
    "\n"
    "exit codes: 0 ok, 1 runtime failure, 2 bad input (errors listed)\n";

/* A usage error of trace gen (message, synopsis, pointer to --help). */
#define gen_bad(...) cmd_usage_error("trace gen", gen_usage, __VA_ARGS__)

static int parse_seed(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

int cmd_trace_gen(int argc, char **argv)
{
	const char *config = NULL, *out = NULL, *seed_arg = NULL;
	struct gen_config *cfg = NULL;
	struct sim_diag diag;
	uint64_t seed = 0, n = 0;
	int rc;

	static const struct option longs[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "output", required_argument, NULL, 'o' },
		{ "seed", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	optind = 0; /* glibc: a full restart of getopt's scan */
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":ho:", longs, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(gen_usage, stdout);
			return GPUSCHED_EXIT_OK;
		case 'o':
		case 's':
			if (!optarg[0])
				return gen_bad("%s: expected a value", c == 'o' ? "-o" : "--seed");
			if (c == 'o')
				out = optarg;
			else
				seed_arg = optarg;
			break;
		default:
			return cmd_getopt_error("trace gen", gen_usage, c, argv);
		}
	}
	for (int i = optind; i < argc; i++) {
		if (config)
			return gen_bad("unexpected argument '%s'", argv[i]);
		config = argv[i];
	}
	if (!config || !out)
		return gen_bad("%s", !config ? "expected CONFIG.json" : "expected -o OUT.csv");
	if (seed_arg && parse_seed(seed_arg, &seed))
		return gen_bad("--seed: expected an integer >= 0, found '%s'", seed_arg);
	if (cmd_check_output(out, "config", config))
		return GPUSCHED_EXIT_BADINPUT;

	sim_diag_init(&diag, 20);
	rc = gen_config_load(config, &cfg, &diag);
	/* The empirical law's source trace is an input too: the output must not replace it. */
	if (rc == 0 && cfg->emp_path && cmd_check_output(out, "empirical durations trace", cfg->emp_path)) {
		gen_config_destroy(cfg);
		sim_diag_fini(&diag);
		return GPUSCHED_EXIT_BADINPUT;
	}
	if (rc == 0) {
		if (seed_arg)
			cfg->seed = seed;
		rc = gen_write_file(cfg, out, &n, &diag);
	}
	if (rc) {
		sim_diag_print(&diag, stderr);
		if (!diag.count)
			fprintf(stderr, "gpusched trace gen: %s\n", sim_strerror(rc));
	} else {
		printf("%s: %" PRIu64 " jobs (seed %" PRIu64 ")\n", out, n, cfg->seed);
	}
	sim_diag_fini(&diag);
	gen_config_destroy(cfg);
	return rc ? cmd_exit_code(rc) : GPUSCHED_EXIT_OK;
}
