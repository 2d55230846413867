/* sim/h5out.h: the HDF5 results file (layout in analysis/SCHEMA.md).
 *
 * Nothing is half-written: h5out_create opens a new temporary beside PATH
 * (PATH.XXXXXX.tmp, created exclusively: sim_out_tmp_create); h5out_commit closes it
 * and renames it to PATH; h5out_abort (or destroy without commit) closes and unlinks
 * the temporary. Every dataset carries "units" and "description" attributes.
 */
#ifndef SIM_H5OUT_H
#define SIM_H5OUT_H

#include <hdf5.h>

#include "cluster.h"
#include "engine.h"
#include "job.h"
#include "metrics.h"

struct h5out;
struct h5out_sweep;

/* Root attributes written at create: schema_version, software, software_version,
 * created_utc, experiment_json (verbatim), config_path; at commit: seeds (every
 * run's seed once, in the order written). */
struct h5out_meta {
	const char *experiment_json; /* verbatim config text */
	const char *config_path;
	const char *software_version;
	/* Root attribute mode: "simulation" (NULL) or "real"; a real run also gets
	 * backend ("cpu", "cuda") and time_scale (trace seconds per wall second). */
	const char *mode;
	const char *backend;
	double time_scale;
	/* The sweep the runs come from (1.5): written as /sweep at create; NULL: a file
	 * without a sweep description (its runs carry no variant or swept values). */
	const struct h5out_sweep *sweep;
};

/* A swept parameter's values, typed for the file: integers when every value is a
 * JSON integer (|v| < 2^53), doubles when every value is a number, else strings
 * (a JSON string as it is, any other value as its compact JSON text). */
enum h5out_param_type { H5OUT_PARAM_INT, H5OUT_PARAM_FLOAT, H5OUT_PARAM_STRING };

struct h5out_param {
	const char *name;          /* column and attribute name: the path less a leading "$." */
	const char *path;          /* as written in the config's "sweep" */
	enum h5out_param_type type;
	size_t n_values;
	const double *num;         /* n_values numbers (INT, FLOAT); NULL for STRING */
	const char *const *str;    /* n_values strings: the value as text (every type) */
	const char *const *label;  /* n_values pieces of the variant names */
};

/* The sweep of an experiment: its parameters in the config's order and its
 * variants in run order; variant v has value value_index[v * n_params + k] of
 * parameter k. Without a sweep: no parameter, one variant "base". */
struct h5out_sweep {
	size_t n_params;
	const struct h5out_param *params;
	size_t n_variants;
	const char *const *variants;
	const size_t *value_index;
};

/* 1.1: root attribute seeds. 1.2: preemption and quota results: jobs fields
 * preemptions_caused, lost_gpu_s, restore_s, ckpt_overhead_s; /runs/<run>/decisions,
 * /runs/<run>/queues, per-queue time series; summary fields preemptions ...
 * jain_fairness. 1.3: fallback and cost results: jobs fields cost, n_options,
 * fallback_evals, interruptions, pending_from_s; /runs/<run>/options; summary fields
 * fallback_rate ... fallback_evals. */
/* 1.4: real mode: root attribute mode (and backend, time_scale), summary fields
 * failed, runtime_error, decision_latency_p50_s, decision_latency_p99_s, and in a
 * real run the group /runs/<run>/real. */
/* 1.5: the file describes itself: /sweep; run attributes variant, policy_order,
 * policy_quota, policy_preemption, policy_fallback, placement and one a swept
 * parameter; /summary fields variant, the policy names and one a swept parameter
 * (its attribute key_fields names the fields that identify a run), counts as
 * int64; jobs field final_state_label, decisions field reason_label; time series
 * with t_s as their HDF5 dimension scale; string attributes variable-length UTF-8. */
/* 1.6: fault results (summary fields, the faults table). 2.0: /runs/<run>/jobs is a
 * group of one 1-D dataset a field (the same fields, types and order), each column
 * deflated or not as measured (analysis/SCHEMA.md, "Storage"); also the autoscaling,
 * spot and cost-by-capacity summary fields and final_state MAX_WAIT_EXCEEDED. 2.1: loss
 * spikes (summary stops_loss_spike, lost_loss_spike_gpu_s; the faults table's columns),
 * the summary field cost_capacity; fail-slow summary fields slow_episodes to
 * lost_slow_migrated_gpu_s; jobs fields cost_type and
 * cost_type_label, queues fields cost .. cost_flex, summary fields flex_requests ..
 * cost_flex (docs/capacity.md, "Flex-start"). */
#define H5OUT_SCHEMA_VERSION "2.1"

/* Opens a new temporary beside PATH for writing (never an existing file). NULL on
 * failure with a message in diag. */
struct h5out *h5out_create(const char *path, const struct h5out_meta *meta, struct sim_diag *diag);
/* The same with the temporary beside TMP_BESIDE instead (a path in the same
 * filesystem as PATH, which commit renames the temporary to): for a writer whose
 * folder of its own is cleaned by others when it is killed outright. */
struct h5out *h5out_create_at(const char *path, const char *tmp_beside, const struct h5out_meta *meta,
			      struct sim_diag *diag);
/* The temporary's name (owned by o): for a signal handler that removes it. */
const char *h5out_tmp_path(const struct h5out *o);

/* What one run produced. */
struct h5out_run {
	const char *name;              /* group name under /runs, e.g. "fifo-seed1" */
	const char *policy;            /* e.g. "fifo" (order policy name) */
	/* 1.5: the run's variant, an index into meta->sweep->variants (ignored when the
	 * file has no sweep), and its policy names by family (sim/hooks.h; NULL entries
	 * and a NULL placement are written as ""; policies[SIM_FAM_ORDER] NULL: policy). */
	size_t variant;
	const char *policies[SIM_FAM_COUNT_];
	const char *placement;
	uint64_t seed;
	const struct sim_trace *trace;
	const struct sim_cluster *cluster;
	/* 2.1: per flavor, the capacity type of its cost (enum sim_cost_type,
	 * sim_metrics_flavor_cost_types); NULL: every flavor on demand. */
	const uint8_t *flavor_cost_type;
	const struct sim_timeseries *ts;
	const struct sim_engine_counters *counters;
	const struct sim_summary *summary;
	double wall_s;                 /* wall time of the run */
	/* Preemptions in the order issued (sim_engine_decisions); NULL: none recorded
	 * (the decisions table is written empty, and the jobs' preemptions_caused
	 * comes from the jobs). */
	const struct sim_decisions *decisions;
	/* trace->n_queues rows from sim_metrics_queues; NULL: computed here from the
	 * jobs alone (engine-only values NaN). */
	const struct sim_queue_row *queues;
	/* n_options rows from sim_metrics_options on this run's trace and cluster;
	 * NULL: computed here. (The runner computes them while the summary is computed
	 * on another thread, so the write does not wait for them.) */
	const struct sim_option_row *options;
	size_t n_options;
	/* Optional: writes more under /runs/<name> (real mode's measurements,
	 * gpu_exec/real_h5.c). Returns 0 or -1. */
	int (*write_extra)(void *arg, hid_t run_group);
	void *extra_arg;
	/* 1.6: the run had a fault model (sim/faults.h): /runs/<name>/faults is written. */
	int faults;
};

/* Writes /runs/<name>/{jobs,decisions,queues,options,timeseries} and the run's attributes,
 * and keeps the summary row for /summary. Returns 0 or -SIM_EHDF5 / -SIM_ENOMEM. */
int h5out_write_run(struct h5out *o, const struct h5out_run *run, struct sim_diag *diag);
/* Copies /runs/<name> of part_path (a file h5out wrote with that one run) into o,
 * unchanged (H5Ocopy: every dataset, attribute and chunk as written), and keeps its
 * /summary row, policy and seed for o's /summary and seeds. The result equals
 * h5out_write_run of the same run. Returns 0 or -SIM_EHDF5 / -SIM_EINVAL / -SIM_ENOMEM. */
int h5out_copy_run(struct h5out *o, const char *part_path, const char *name, struct sim_diag *diag);
/* Writes /summary, closes and renames the temporary to PATH. */
int h5out_commit(struct h5out *o, struct sim_diag *diag);
/* Closes and unlinks the temporary; frees o. NULL is a no-op. */
void h5out_abort(struct h5out *o);
void h5out_destroy(struct h5out *o); /* frees; aborts if not committed */

/* Attribute writers for other modules' datasets (gpu_exec/real_results.c), so every
 * table of the file carries its attributes in one form: a scalar string (NULL: ""),
 * a scalar double, a 1-D array of strings (units and field_descriptions, one a
 * field). Return 0 or -1. */
int h5out_attr_str(hid_t obj, const char *name, const char *val);
int h5out_attr_f64(hid_t obj, const char *name, double v);
int h5out_attr_str_array(hid_t obj, const char *name, const char *const *vals, size_t n);

/* Caps the threads that deflate a run's jobs table (default 4, never above the
 * online CPUs). Process-wide: a sweep's worker processes share the CPUs, so each
 * takes its share (the bytes written do not depend on it). */
void h5out_set_zip_threads(size_t n);
/* 1: HDF5 runs the jobs columns' filters itself, on one thread, with its own deflate
 * (the slow, obvious path: the tests' oracle, which must read back the same values);
 * 0 (the default): our own threads shuffle and deflate the chunks. Process-wide. */
void h5out_set_hdf5_filters(int on);
/* Tests only: chunks of row tables (decisions, faults) shuffled and deflated by
 * h5out itself rather than by HDF5's filters, counted. */
extern unsigned long h5out_test_row_chunks;

/* A file whose close failed (a full disk while its metadata was flushed) stays open
 * in the HDF5 library, and closing it again crashes inside the library (1.10), as its
 * own cleanup at exit would. A program therefore calls h5out_library_begin before any
 * other HDF5 call (no cleanup at exit is installed) and h5out_library_end before it
 * returns from main: the library is closed unless such a file is left, in which case
 * the process exits without closing it (its temporary is already removed). */
void h5out_library_begin(void);
void h5out_library_end(void);

#endif
