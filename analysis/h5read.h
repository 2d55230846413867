/* analysis/h5read.h: reads a gpusched results file (layout in analysis/SCHEMA.md).
 *
 * The analysis side reads only HDF5: report, plot and compare go through this
 * reader, never through the simulator's structures. Fields are found by name, so
 * a file with extra fields (a newer minor schema) reads fine; a missing numeric
 * field reads as NaN.
 *
 * Every function returns 0 or -SIM_E*, with a located message in diag:
 *   -SIM_ENOENT  the file (or the named run) does not exist,
 *   -SIM_EPARSE  not a readable gpusched results file: not a regular file, not HDF5,
 *                truncated or damaged (any HDF5 failure reading it), not laid out as
 *                gpusched writes it, unsupported schema_version,
 *   -SIM_EIO     the file exists but may not be read (permissions), -SIM_ENOMEM.
 * (The CLI maps ENOENT and EPARSE to exit code 2, bad input.)
 * Results are owned by the caller and freed with the matching _free (which also
 * accepts a zeroed struct).
 */
#ifndef ANALYSIS_H5READ_H
#define ANALYSIS_H5READ_H

#include <stddef.h>
#include <stdint.h>

#include "../sim/sim.h"

/* The newest schema major version this reader understands: it reads 1.x (the jobs
 * table compound) and 2.x (the jobs table a group of columns). */
#define H5READ_SCHEMA_MAJOR 2

struct h5read_file; /* opaque: an open file and its run list */

int h5read_open(const char *path, struct h5read_file **out, struct sim_diag *diag);
void h5read_close(struct h5read_file *f); /* NULL is a no-op */

const char *h5read_path(const struct h5read_file *f);
/* A root string attribute (schema_version, software, software_version, created_utc,
 * experiment_json, config_path), or NULL when absent. Valid until h5read_close. */
const char *h5read_root_attr(const struct h5read_file *f, const char *name);
/* A numeric root attribute (time_scale, schema 1.4, in real-mode files) as a double:
 * 0 with *out NaN when the file has none; -SIM_EPARSE when it is there but is not a
 * number. */
/* The root attribute mode: "simulation" or "real" as written; "simulation" for a file
 * older than schema 1.4, which has none. Valid until h5read_close. */
const char *h5read_mode(const struct h5read_file *f);
int h5read_root_attr_num(const struct h5read_file *f, const char *name, double *out, struct sim_diag *diag);

/* Runs under /runs, in the order they were written. */
size_t h5read_n_runs(const struct h5read_file *f);
const char *h5read_run_name(const struct h5read_file *f, size_t i);
int h5read_run_find(const struct h5read_file *f, const char *name); /* index or -1 */

/* A numeric attribute of a run group (seed, wall_s, events, ...) as a double. */
int h5read_run_attr_num(const struct h5read_file *f, const char *run, const char *name, double *out,
			struct sim_diag *diag);
/* A string attribute of a run group (variant, policy_quota, ..., schema 1.5), malloc'd
 * into *out; -SIM_ENOENT when the run has no such attribute. */
int h5read_run_attr_str(const struct h5read_file *f, const char *run, const char *name, char **out,
			struct sim_diag *diag);
/* The variant of a run of a file older than 1.5: the first report_variant_len bytes
 * of its name (the name less "-s<seed>"), malloc'd; NULL on no memory. */
char *h5read_variant_from_name(const char *run, uint64_t seed);

/* A 1-D fixed-length string array attribute of the object at obj_path (e.g.
 * "/summary", "units"). *out is a NULL-terminated array of *n strings; free with
 * h5read_strings_free. */
int h5read_strings_attr(const struct h5read_file *f, const char *obj_path, const char *attr,
			char ***out, size_t *n, struct sim_diag *diag);
void h5read_strings_free(char **s);

/* /summary: one row a run. Numeric fields are every field other than run, policy
 * and seed, in file order, read as doubles. */
struct h5read_summary {
	size_t n_rows;
	size_t n_fields;
	char **field;   /* n_fields names */
	char **unit;    /* n_fields units ("" when the file has none) */
	char **run;     /* n_rows */
	char **policy;  /* n_rows */
	uint64_t *seed; /* n_rows */
	double *v;      /* n_rows x n_fields, row-major */
	/* Schema 1.5: what identifies each run. variant: the /summary field (for an older
	 * file, the run name less its "-s<seed>", as report groups runs). The swept
	 * parameters (the key fields after seed, in the config's order): param names,
	 * param_numeric[k] 1 when the field is a number, and per row and parameter
	 * (row-major, n_rows x n_params) its value as text (numbers %.17g) and as a
	 * number (NaN for a string field). None in files older than 1.5. */
	char **variant;      /* n_rows */
	size_t n_params;
	char **param;        /* n_params */
	int *param_numeric;  /* n_params */
	char **param_str;    /* n_rows x n_params */
	double *param_num;   /* n_rows x n_params */
};
int h5read_summary(const struct h5read_file *f, struct h5read_summary *out, struct sim_diag *diag);
void h5read_summary_free(struct h5read_summary *s);
int h5read_summary_field(const struct h5read_summary *s, const char *name); /* index or -1 */
/* Value of a field in a row; NaN when the field is absent. */
double h5read_summary_get(const struct h5read_summary *s, size_t row, const char *name);
/* GPU-seconds of run row's lost_gpu_s beyond the three fault causes (lost_node_failed,
 * lost_crashed, lost_hang): what preemptions and capacity removals lost (docs/faults.md).
 * 0 when below 1e-6: the rest of four sums, anything smaller is their rounding. */
double h5read_summary_lost_other_gpu_s(const struct h5read_summary *s, size_t row);
/* Row of a run name, or -1. */
int h5read_summary_row(const struct h5read_summary *s, const char *run);

/* Private to the reader: the buffers behind a table's string and enum columns. */
#define H5READ_MAX_STR_COLS 6
struct h5read_cols_ {
	char *strbuf[H5READ_MAX_STR_COLS];
	char **enum_names;
	size_t n_enum_names;
};

/* /runs/<run>/jobs as columns, from a compound table (schema 1.x) or a group of one
 * dataset a field (2.0). Strings point into buffers owned by the struct;
 * state is the final_state name in lower case ("completed"). A field an older file
 * lacks reads as NaN (doubles), 0 (counts) or "". */
struct h5read_jobs {
	size_t n;
	char **id, **queue, **user, **flavor;
	const char **state;
	int32_t *option, *priority;
	uint32_t *preemptions, *preemptions_caused;
	double *gpus, *alloc_gpus, *submit_s, *start_s, *end_s, *wait_s, *jct_s, *runtime_s, *bsld;
	double *lost_gpu_s, *restore_s, *ckpt_overhead_s; /* schema 1.2 */
	double *cost, *pending_from_s;                   /* schema 1.3 */
	uint8_t *n_options;                              /* schema 1.3 (0 in older files) */
	uint32_t *fallback_evals, *interruptions;        /* schema 1.3 */
	struct h5read_cols_ priv_;
};
int h5read_jobs(const struct h5read_file *f, const char *run, struct h5read_jobs *out,
		struct sim_diag *diag);
void h5read_jobs_free(struct h5read_jobs *j);

/* /runs/<run>/decisions (schema 1.2): one row a preemption, in the order issued.
 * present is 0 (and n 0) for a file without the table (schema 1.1). preemptor and
 * preemptor_queue are "" when the preemption had no preemptor (a quota shrink);
 * reason is the name of sim_preempt_reason ("in_queue", ...). */
struct h5read_decisions {
	size_t n;
	int present;
	double *time_s, *lost_gpu_s;
	char **preemptor, **victim, **preemptor_queue, **victim_queue;
	const char **reason;
	uint8_t *requeued;
	struct h5read_cols_ priv_;
};
int h5read_decisions(const struct h5read_file *f, const char *run, struct h5read_decisions *out,
		     struct sim_diag *diag);
void h5read_decisions_free(struct h5read_decisions *d);

/* A numeric table of a run (queues, options): every numeric field, in file order, as
 * doubles (as in h5read_summary), and each row's key when the table has a string key
 * field. present is 0 (and the rest empty) for a file without the table. */
struct h5read_table {
	int present;
	size_t n_rows, n_fields;
	char **key;    /* n_rows, NULL-terminated; NULL for a table without a key field */
	char **field;  /* n_fields names, NULL-terminated */
	char **unit;   /* n_fields units ("" when the file has none) */
	double *v;     /* n_rows x n_fields, row-major */
};
void h5read_table_free(struct h5read_table *t);
int h5read_table_field(const struct h5read_table *t, const char *name); /* index or -1 */
/* Value of a field in a row; NaN when the field or the row is absent. */
double h5read_table_get(const struct h5read_table *t, size_t row, const char *name);

/* /runs/<run>/queues (schema 1.2): one row a trace queue, its name the key; every
 * field but "queue". */
int h5read_queues(const struct h5read_file *f, const char *run, struct h5read_table *out,
		  struct sim_diag *diag);
/* /runs/<run>/options (schema 1.3): one row an option index 0 .. k-1, k the largest
 * n_options of the run's jobs; no key, every field, "option" included. */
int h5read_options(const struct h5read_file *f, const char *run, struct h5read_table *out,
		   struct sim_diag *diag);

/* /runs/<run>/faults (schema 1.6, runs with a fault model only): one row a job, its
 * id the key; present 0 for a run without faults. */
int h5read_faults(const struct h5read_file *f, const char *run, struct h5read_table *out, struct sim_diag *diag);

/* /runs/<run>/timeseries. gpus_busy_by_flavor is n x n_flavors, row-major. The
 * per-queue series (schema 1.2) are n x n_queues, row-major, or NULL when the file
 * has none: queue_usage when the run recorded queues, the other three only when
 * the run had a quota policy. */
struct h5read_timeseries {
	size_t n, n_flavors, n_queues;
	double *t_s, *gpus_busy, *jobs_queued, *jobs_running, *gpus_busy_by_flavor;
	char **flavor_names; /* n_flavors, NULL-terminated */
	double *queue_usage, *queue_nominal, *queue_borrowed, *queue_lent;
	char **queue_names;  /* n_queues, NULL-terminated; NULL without queue series */
	double *nodes_down;  /* n (2.0): node slots down; NULL for a run without node failures */
};
int h5read_timeseries(const struct h5read_file *f, const char *run, struct h5read_timeseries *out,
		      struct sim_diag *diag);
void h5read_timeseries_free(struct h5read_timeseries *ts);

/* /runs/<run>/real (schema 1.4, real mode: gpu_exec/real_results.c writes it): what the
 * run measured on the wall clock. present is 0 (and the rest empty, numbers NaN) for a
 * simulation or an older file. Times of jobs and segments are trace seconds (wall
 * seconds x time_scale); latencies are wall seconds. */
struct h5read_real_jobs { /* one row a job, in the order of /runs/<run>/jobs */
	size_t n;
	char **id;
	double *measured_runtime_s;  /* over all its segments; NaN when it never ran */
	double *predicted_runtime_s; /* the model's run time of the same segments */
	double *decision_latency_s;  /* of its first start (wall s) */
	struct h5read_cols_ priv_;
};
struct h5read_real_segments { /* one row a run segment, in the order they ended */
	size_t n;
	char **id, **outcome;        /* outcome: "completed", "preempted" or "failed" */
	uint32_t *gpu0, *n_gpus, *ckpts;
	double *start_s, *end_s;     /* measured (trace s) */
	double *predicted_s;         /* the model's run time of the segment (trace s) */
	double *from, *done, *saved; /* work at launch, at the end, at its last checkpoint (0..1) */
	struct h5read_cols_ priv_;
};
struct h5read_real_calibration { /* one row a flavor */
	size_t n;
	char **flavor;
	double *iter_ns; /* wall time of one workload iteration (cpu: the pacing tick) */
	struct h5read_cols_ priv_;
};
struct h5read_real {
	int present;
	char *backend, *device; /* "cpu" or "cuda"; the device in words ("" when absent) */
	double time_scale;      /* trace seconds a wall second */
	double wall_s;          /* wall time of the run */
	double busy_gpu_wall_s; /* GPU x wall seconds the workloads held */
	double gpu_utilization; /* busy_gpu_wall_s / (GPUs x wall_s) */
	double failed_segments;
	struct h5read_real_jobs jobs;
	struct h5read_real_segments segments;
	size_t n_latencies;
	double *decision_latency_s; /* every start's, in start order (wall s) */
	struct h5read_real_calibration calibration;
};
int h5read_real(const struct h5read_file *f, const char *run, struct h5read_real *out, struct sim_diag *diag);
void h5read_real_free(struct h5read_real *r);

/* ---- any compound table, every field as text (gpusched export) ---- */

/* The table at obj_path ("/summary", "/runs/<run>/jobs", ...) row by row, each field
 * in file order (a group of 1-D datasets, as the 2.0 jobs table: each dataset a
 * field, in the group's link creation order) formatted as text: fixed-length strings as stored; integers in
 * decimal; doubles as the shortest of %.15g .. %.17g that reads back exactly, NaN as
 * "" (a missing value); enums by their member name. Fields of other types (none in
 * gpusched files) are left out. */
struct h5read_rows {
	int present;      /* 0: the file has no such table (an older schema): no rows */
	size_t n_rows, n_fields;
	char **field;     /* n_fields names, NULL-terminated */
	int *numeric;     /* n_fields: 1 for integer and float fields */
};
/* Called once a row with its n_fields cells; a non-zero return stops the read and is
 * returned by h5read_each_row. */
typedef int (*h5read_row_fn)(void *arg, const struct h5read_rows *t, size_t row, const char *const *cells);
/* Fills t (free with h5read_rows_free) and calls fn for every row (fn may be NULL:
 * the fields alone). Returns 0, fn's non-zero value, or -SIM_E*. */
int h5read_each_row(const struct h5read_file *f, const char *obj_path, struct h5read_rows *t, h5read_row_fn fn,
		    void *arg, struct sim_diag *diag);
void h5read_rows_free(struct h5read_rows *t);
/* Formats a double as h5read_each_row does (NaN: ""); buf of at least 32 bytes. */
void h5read_format_double(double x, char *buf, size_t n);

#endif
