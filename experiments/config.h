/* experiments/config.h: the experiment config (JSON, every key in experiments/README.md).
 *
 * Syntax errors are "FILE:LINE:COL: JSON syntax error near '...'"; semantic errors
 * "FILE: $.json.path: expected ..., got ...". Unknown and duplicate keys are errors.
 * Paths inside the config (trace.path, output) are relative to the config's folder.
 *
 * A config describes one or more runs: the cartesian product of its "sweep" values
 * times its seeds. exp_config_load checks every variant before anything runs.
 */
#ifndef EXPERIMENTS_CONFIG_H
#define EXPERIMENTS_CONFIG_H

#include <cjson/cJSON.h>

#include "../sim/autoscale.h"
#include "../sim/capacity.h"
#include "../sim/faults.h"
#include "../sim/spot.h"
#include "../sim/cluster.h"
#include "../sim/hooks.h"
#include "../sim/sim.h"

/* One fully resolved variant (policies and cluster after sweep values applied). */
struct exp_variant {
	char *name;                               /* joined sweep values, or "base" without a sweep; owned */
	struct sim_resources res;
	struct sim_flavor_spec *flavors;          /* owned; nodes = online at time 0, peak_nodes set */
	size_t n_flavors;
	struct sim_capacity *capacity;            /* owned: stock-outs, reservations, capacity events */
	struct sim_faults *faults;                /* owned: $.faults (node failures, crashes, hangs) */
	struct sim_autoscale *autoscale;          /* owned: $.cluster.flavors[i].autoscale (docs/capacity.md) */
	struct sim_spot *spot;                    /* owned: $.cluster.flavors[i].spot (docs/capacity.md) */
	char policy[SIM_FAM_COUNT_][SIM_NAME_MAX]; /* policy names per family */
	const cJSON *policy_params[SIM_FAM_COUNT_]; /* object or NULL; owned by the variant's tree */
	char policy_path[SIM_FAM_COUNT_][SIM_NAME_MAX]; /* "$.policies.order" for messages */
	enum sim_placement placement;
	struct sim_preempt_cost cost;             /* $.jobs.checkpoint: paid whatever stopped a job */
	cJSON *tree;                              /* the variant's JSON (sweep applied); owned */
};

struct exp_config {
	char *path;          /* as given */
	char *text;          /* verbatim file content (NUL-terminated) */
	char *name;          /* $.name */
	char *trace_path;    /* resolved against the config's folder */
	char *trace_format;  /* "native" */
	char *output;        /* resolved; may be overridden by -o */
	double sample_s;     /* $.output_options.sample_s: time-series step, 0 = auto */
	uint64_t *seeds;
	size_t n_seeds;
	struct exp_variant *variants;
	size_t n_variants;
	struct sim_srcmap *srcmap; /* a YAML config's value positions (sim/yamltree.h); NULL for JSON; owned */
};

struct sim_srcmap;

/* Loads and checks PATH. A PATH ending in .yaml or .yml is read as YAML (one
 * document, the same schema; docs/yaml.md): its errors are then
 * "FILE:LINE:COL: $.json.path: expected ...", at the value's line (or its nearest
 * ancestor's, for a missing key), and cfg->text is the tree printed as JSON. Returns 0, or -SIM_ENOENT/-SIM_EIO/-SIM_EPARSE with every
 * error (up to diag->limit) in diag. Caller must exp_config_destroy(*out). */
int exp_config_load(const char *path, struct exp_config **out, struct sim_diag *diag);
/* Same from text; `path` names it in messages and anchors relative paths. */
int exp_config_parse(const char *path, const char *text, size_t len, struct exp_config **out,
		     struct sim_diag *diag);
void exp_config_destroy(struct exp_config *cfg); /* NULL is a no-op */
/* Errors found after the load (a policy's parameters, a side file) name JSON paths
 * only: for a YAML config, this adds the LINE:COL of each path to diag's lines
 * about cfg's file. A no-op for JSON configs and NULL. */
void exp_config_locate_errors(const struct exp_config *cfg, struct sim_diag *diag);

/* Capacity planning: one number of a config, by path. JSON_PATH is written as a sweep
 * path ("cluster.flavors[0].nodes", "$." optional), must lie under "cluster" or
 * "policies", exist in the text, hold a number, and not overlap a sweep key (the sweep
 * would overwrite it). A bad path is -SIM_EPARSE with "FILE: PATH: expected ..." in diag.
 * exp_config_number_at gives the number the text holds there. */
int exp_config_number_at(const char *path, const char *text, size_t len, const char *json_path, double *value,
			 struct sim_diag *diag);
/* exp_config_parse of the text with the number at JSON_PATH replaced by VALUE; every
 * check applies to the result as to a file (e.g. nodes must be an integer). The config's
 * text (cfg->text, the HDF5 experiment_json) is then the edited tree, re-printed, not
 * the file's bytes. */
int exp_config_parse_with(const char *path, const char *text, size_t len, const char *json_path, double value,
			  struct exp_config **out, struct sim_diag *diag);
/* The same with n numbers replaced: values[i] at json_paths[i], in that order. */
int exp_config_parse_with_n(const char *path, const char *text, size_t len, const char *const *json_paths,
			    const double *values, size_t n, struct exp_config **out, struct sim_diag *diag);

/* Variant names (experiments/README.md, "Variant names"), shared with the plots that
 * rebuild them from a results file: a swept value's piece of a name (strings as
 * they are, numbers %g, objects by "name", null and booleans spelled, else the
 * position pos; characters outside [A-Za-z0-9_.+-] become '-'), and the suffix
 * "_v<1-based index>" on every name that occurs more than once (names are malloc'd;
 * replaced in place). */
void exp_sweep_value_label(const cJSON *v, size_t pos, char *buf, size_t n);
int exp_names_make_unique(char **names, size_t n);

#endif
