/* experiments/sweepdesc.h: the sweep of a loaded config as the results file
 * describes it (sim/h5out.h struct h5out_sweep; analysis/SCHEMA.md "/sweep").
 *
 * Built from the config's text (its "sweep" object: paths and value lists) and its
 * variants (names, already made unique by the loader), so the file says which value
 * of each swept parameter every run had instead of leaving it to be parsed out of
 * run names.
 */
#ifndef EXPERIMENTS_SWEEPDESC_H
#define EXPERIMENTS_SWEEPDESC_H

#include "../sim/h5out.h"
#include "config.h"

/* Owns everything pub points at. */
struct exp_sweep_desc {
	struct h5out_sweep pub;
	struct h5out_param *params;
	char **names, **paths, **variants;
	double **num;          /* per parameter: n_values numbers, or NULL */
	char ***str, ***label; /* per parameter: n_values strings each */
	size_t *value_index;
};

/* Fills d from cfg. A config without a usable sweep (none, or one whose value
 * lists do not multiply to cfg->n_variants) gets no parameter and its variants'
 * names; the one variant of a config without a sweep is named as its runs are
 * (the order policy's name, not "base"). Returns 0 or -SIM_ENOMEM. */
int exp_sweep_desc_build(const struct exp_config *cfg, struct exp_sweep_desc *d);
void exp_sweep_desc_free(struct exp_sweep_desc *d); /* a zeroed d is a no-op */

#endif
