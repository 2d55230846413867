/* cli/main.c: the gpusched command: dispatches to a verb (cli/cmd_*.c). */
#include <stdio.h>
#include <string.h>

#include "../sim/h5out.h"
#include "../sim/sim.h"
#include "cmd.h"
#include "datadir.h"

static const char usage[] =
	"usage: gpusched VERB [ARGS]   (gpusched VERB --help for each verb)\n"
	"\n"
	"verbs:\n"
	"  run CONFIG [-o OUT.h5]        run an experiment config (all sweep variants and seeds)\n"
	"  report RESULTS.h5 [--json | --jobs]  summary table, JSON metrics, or per-job CSV\n"
	"  plot RESULTS.h5 -o DIR        PNG plots through gnuplot\n"
	"  trace validate|stats|import   check, describe or convert job traces\n"
	"  explain SCENARIO.json [--json]  decide one scheduling cycle of a scenario and say why\n"
	"  compare BASE.h5 NEW.h5 [--fail-if RULE ...] [--json]  metrics side by side; a regression gate\n"
	"  cluster import --format openb|pai|helios|philly-vc IN  a node list as a config's cluster\n"
	"  plan CONFIG --target RULE ...  capacity search: the smallest capacity that meets an SLO\n"
	"  real CONFIG --backend cpu|cuda [--time-scale S]  run the same config on GPUs (or threads)\n"
	"  config import --format kueue|aws-batch|hyperpod FILES... [-o OUT]  another scheduler's quotas as a config's quota section\n"
	"  export RESULTS.h5 --table T [-o FILE]  one table over all runs as tidy CSV/TSV (.gz)\n"
	"\n"
	"exit codes: 0 ok, 1 runtime failure, 2 bad input\n";

static int run_verb(int argc, char **argv);

int main(int argc, char **argv)
{
	h5out_library_begin(); /* before any HDF5 call: see sim/h5out.h */
	int rc = run_verb(argc, argv);
	h5out_library_end();
	return rc;
}

static int run_verb(int argc, char **argv)
{
	datadir_setup(); /* the templates of an installed binary (cli/datadir.h) */
	if (argc < 2) {
		fputs(usage, stderr);
		return GPUSCHED_EXIT_BADINPUT;
	}
	const char *verb = argv[1];
	if (strcmp(verb, "--help") == 0 || strcmp(verb, "-h") == 0 || strcmp(verb, "help") == 0) {
		fputs(usage, stdout);
		return GPUSCHED_EXIT_OK;
	}
	if (strcmp(verb, "--version") == 0) {
		printf("gpusched %s\n", GPUSCHED_VERSION);
		return GPUSCHED_EXIT_OK;
	}
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} verbs[] = {
		{ "run", cmd_run },
		{ "report", cmd_report },
		{ "plot", cmd_plot },
		{ "trace", cmd_trace },
		{ "explain", cmd_explain },
		{ "compare", cmd_compare },
		{ "plan", cmd_plan },
		{ "cluster", cmd_cluster },
		{ "real", cmd_real },
		{ "config", cmd_config },
		{ "export", cmd_export },
	};
	for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
		if (strcmp(verb, verbs[i].name) == 0)
			return verbs[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "gpusched: unknown verb '%s'\n%s", verb, usage);
	return GPUSCHED_EXIT_BADINPUT;
}
