/* experiments/runner.h: runs every (variant, seed) of a config and writes one HDF5 file. */
#ifndef EXPERIMENTS_RUNNER_H
#define EXPERIMENTS_RUNNER_H

#include "../sim/metrics.h"
#include "config.h"

struct real_opts;

struct exp_run_opts {
	const char *output;   /* overrides cfg->output when non-NULL */
	int progress;         /* 1: show a progress line on stderr (terminal) */
	int quiet;            /* 1: print nothing on success */
	const char *log_path; /* when non-NULL, the engine's event log of every run goes here
			       * (sim/engine.h), each run after a line "# run NAME" */
	int jobs;             /* worker processes (-j); 0 or 1: runs in this process */
	int resume;           /* 1: keep the complete parts of an earlier, stopped run */
	/* Real mode (gpu_exec/drv_real.h): every run is driven by the wall clock and
	 * its jobs run on the executor; runs go one at a time in this process. NULL:
	 * simulation. */
	const struct real_opts *real;
	/* 1: a config of one run goes through its part file and the merge like a sweep's
	 * runs (the tests compare the two files); 0: it is written in place
	 * (runner.c, "a config of one run"). */
	int via_parts;
};

/* Loads the trace, checks it against every variant, runs all, writes the file.
 * Nothing is written unless every input is valid; a failed run leaves no file.
 * Runs go through part files in OUTPUT.parts/ (experiments/parallel.h), on
 * opts->jobs processes or MPI ranks; complete parts of a stopped run are kept for
 * opts->resume, everything else is removed. A config of one run (without MPI)
 * writes it straight into the output's temporary instead, with the stack its check
 * built; the file holds the same.
 * Returns 0, -SIM_EPARSE/-SIM_ENOENT (bad input, diag says where), or another -SIM_E*. */
int exp_run_config(const struct exp_config *cfg, const struct exp_run_opts *opts,
		   struct sim_diag *diag);

/* One run of variant v with seed, in memory, nothing written: its summary metrics
 * (capacity planning, tests). The trace must have passed the config's checks
 * (exp_run_config does them; a caller of this alone binds through it). Returns 0,
 * -SIM_EPARSE with diag (the variant does not fit the trace), or -SIM_E*. */
int exp_run_summary(const struct exp_config *cfg, const struct exp_variant *v, uint64_t seed,
		    struct sim_trace *trace, struct sim_summary *out, struct sim_diag *diag);

#endif
