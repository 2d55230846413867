/* experiments/cfgimport.h: quota definitions of other schedulers turned into the
 * `cohort` quota section of an experiment config ($.policies.quota, the shapes of
 * experiments/README.md), for `gpusched config import` (cli/cmd_config.c).
 *
 * Formats (the mapping rules, field by field, are in docs/config-import.md):
 * - kueue: Kueue manifests (YAML or JSON, many documents a file, kind List too):
 *   ClusterQueue, Cohort, ResourceFlavor, LocalQueue, WorkloadPriorityClass of
 *   kueue.x-k8s.io/v1beta1 and v1beta2.
 * - aws-batch: AWS Batch request bodies as the AWS CLI takes them
 *   (--cli-input-json): CreateQuotaShare, CreateSchedulingPolicy, SubmitServiceJob;
 *   capacity limits in instances become GPUs through the cluster's flavors.
 * - hyperpod: SageMaker HyperPod task governance request bodies
 *   (CreateComputeQuota, CreateClusterSchedulerConfig), instances to GPUs likewise.
 *
 * Every input value is either modelled, or named on the warning stream ("FILE:LINE:
 * COL: warning: ..."), never dropped silently; facts the user must act on (flavor
 * and resource names the cluster must declare) are "note:" lines. Bad input is an
 * error located at FILE:LINE:COL with what was expected; nothing is returned then.
 */
#ifndef EXPERIMENTS_CFGIMPORT_H
#define EXPERIMENTS_CFGIMPORT_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "../sim/cluster.h"
#include "../sim/sim.h"

/* The cluster an import is for: its flavors (names, GPUs a node). aws-batch needs
 * it (instances to GPUs); kueue uses it, when given, to check flavor names. */
struct cfgimp_cluster {
	const struct sim_flavor_spec *flavors;
	size_t n_flavors;
	int gpu_res; /* index of "gpu" in node_cap */
	int cpu_res, mem_res; /* of "cpu" and "memory", or -1 when the cluster has none */
};

/* Imports files[0..n) of `format` ("kueue", "aws-batch" or "hyperpod") into *out, a new tree
 * {"name": "cohort", "cohorts": [...], "queues": [...]} (the caller cJSON_Delete()s
 * it). cluster may be NULL for kueue. Warnings and notes go to warn (may be NULL).
 * Returns 0, -SIM_EPARSE (errors in diag, *out NULL), -SIM_ENOENT/-SIM_EIO (a file
 * cannot be read), -SIM_EINVAL (unknown format), or -SIM_ENOMEM. */
int cfgimp_import(const char *format, const char *const *files, size_t n, const struct cfgimp_cluster *cluster,
		  cJSON **out, FILE *warn, struct sim_diag *diag);

/* Writes tree to path as JSON, or as YAML when path ends in .yaml/.yml, through a
 * temporary beside it renamed at the end (sim/outpath.h): a failure leaves no
 * half-written file and an old file as it was. path NULL or "-": standard output
 * (JSON). Returns 0 or -SIM_EIO / -SIM_ENOMEM with the message in diag. */
int cfgimp_write(const char *path, const cJSON *tree, struct sim_diag *diag);

/* ---- shared by the format readers (experiments/cfgimport_*.c) ---- */

/* One input file, read as YAML (JSON is YAML too, so JSON inputs get positions as
 * well): its documents and their positions. */
struct cfgimp_file {
	const char *path;
	cJSON **docs;
	size_t n_docs;
	struct sim_srcmap *map;
};

/* The state of one import: messages and the warnings gathered so far. */
struct cfgimp {
	struct sim_diag *diag;
	FILE *warn;
	const struct cfgimp_cluster *cluster;
	struct cfgimp_warning {
		char *what;   /* the warning's text, without location; owned */
		char *where;  /* "FILE:LINE:COL" of its first occurrence; owned */
		size_t count;
	} *warnings;
	size_t n_warnings, cap_warnings;
	int nomem;
};

/* "FILE:LINE:COL" of node in f (or of the document, or "FILE" alone). */
void cfgimp_where(const struct cfgimp_file *f, const cJSON *node, char *buf, size_t n);
/* An error at node: "FILE:LINE:COL: msg"; returns -SIM_EPARSE. */
int cfgimp_error(struct cfgimp *im, const struct cfgimp_file *f, const cJSON *node, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A warning at node. Warnings of the same text are printed once, with the first
 * place and how many more there were (1,000 queues with one unmodelled field give
 * one line, not 1,000). */
void cfgimp_warn(struct cfgimp *im, const struct cfgimp_file *f, const cJSON *node, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A note (not located, printed at once): "note: ...". */
void cfgimp_note(struct cfgimp *im, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A Kubernetes quantity ("9", 9, "500m", "36Gi", "1.5e3") in milli-units of the
 * resource's unit; with to_gib, bytes are turned into GiB (memory). Returns
 * 0, 1 when it had to be rounded to a milli-unit, or -1 when it is no quantity, is
 * negative or exceeds 10^9 units. */
int cfgimp_quantity(const cJSON *v, int to_gib, sim_qty_t *milli);

/* A number of milli-units as a JSON number of units (3 decimals at most). */
cJSON *cfgimp_qty_json(sim_qty_t milli);

/* Unknown keys of obj (known is NULL-terminated) are errors at the key, listing
 * the known ones; what names the object ("ClusterQueue team-a spec"). Returns
 * the number of unknown keys. */
int cfgimp_check_keys(struct cfgimp *im, const struct cfgimp_file *f, const cJSON *obj, const char *what,
		      const char *const *known);

/* Names to values in O(1): an import of 10,000 queues looks names up 10,000 times
 * (duplicates, cohorts, LocalQueues); a list scan each time would be quadratic.
 * Keys are borrowed (they must outlive the index). Open addressing, FNV-1a. */
struct cfgimp_index {
	const char **key;
	void **val;
	size_t cap, n;
};
void *cfgimp_index_get(const struct cfgimp_index *x, const char *key); /* NULL when absent */
int cfgimp_index_put(struct cfgimp_index *x, const char *key, void *val); /* 0 or -SIM_ENOMEM; replaces */
void cfgimp_index_fini(struct cfgimp_index *x);

int cfgimp_kueue(struct cfgimp *im, struct cfgimp_file *files, size_t n, cJSON **out);
int cfgimp_aws(struct cfgimp *im, struct cfgimp_file *files, size_t n, cJSON **out);
int cfgimp_hyperpod(struct cfgimp *im, struct cfgimp_file *files, size_t n, cJSON **out);

#endif
