/* experiments/inputs.h: every file an experiment config makes a command read, so
 * that no output of the command may replace one (sim/outpath.h). */
#ifndef EXPERIMENTS_INPUTS_H
#define EXPERIMENTS_INPUTS_H

#include "../sim/outpath.h"
#include "config.h"

/* The config's inputs: the config, the trace, and every side file any variant names
 * (capacity_events, queues_csv.path, quota_events, priority_events, ...: every
 * string value of a variant's JSON that names an existing file beside the config,
 * $.output aside). */
struct exp_inputs {
	struct sim_out_input *v; /* owned, as are the paths and names in it */
	size_t n, cap;
};

/* Fills in (from an empty struct). Returns 0 or -SIM_ENOMEM. */
int exp_inputs_collect(const struct exp_config *cfg, struct exp_inputs *in);
void exp_inputs_fini(struct exp_inputs *in);

/* sim_out_check of out against cfg's inputs. */
int exp_check_output(const struct exp_config *cfg, const char *out, struct sim_diag *diag);

#endif
