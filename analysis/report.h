/* analysis/report.h: text views of a results file (gpusched report).
 *
 * All of them read the file through analysis/h5read.h only. `run` filters to one run
 * (NULL = every run); an unknown run is -SIM_ENOENT. Seeds are replications: runs are
 * grouped by variant (report_variant_len) for the replications table and
 * report_json_by_variant (analysis/SCHEMA.md, "gpusched report"). Each returns 0 or -SIM_E*
 * with a message in diag; nothing is printed to out on error before the data
 * is read (the CSV streams run by run).
 */
#ifndef ANALYSIS_REPORT_H
#define ANALYSIS_REPORT_H

#include <stdio.h>

#include "h5read.h"

/* A table for people: one row a run, aligned columns, units in the header. When some
 * variant has 2 or more runs (seeds are replications), a second table "replications"
 * follows: one row a variant, its run count, and "mean ± half-width" of the 95%
 * confidence interval (Student t, sim_metrics_replicate) of mean wait, p95 wait, mean
 * JCT, utilization and mean bounded slowdown. "±" is UTF-8; columns align by characters.
 * A real-mode file (schema 1.4) then gets a block a run, "real mode: run NAME": backend,
 * device, time scale, wall time, run time error (mean |measured - predicted| /
 * predicted over completed segments, %), decision latency p50 / p99 (ms), GPU
 * utilization over the wall time (%) and failed segments. Every group is read before
 * anything is printed. */
int report_table(const struct h5read_file *f, const char *run, FILE *out, struct sim_diag *diag);
/* A JSON array, one object a run: run, policy, seed and every /summary field by its
 * name (analysis/SCHEMA.md); NaN is null. In a real-mode file each object also has
 * "real": {backend, device, time_scale, wall_s, busy_gpu_wall_s, gpu_utilization,
 * failed_segments, runtime_error, decision_latency_p50_s, decision_latency_p99_s (s),
 * jobs, segments, completed_segments, starts, calibration: [{flavor, iter_ns}]}, or
 * null for a run without a real group. *out is malloc'd (caller frees). */
int report_json(const struct h5read_file *f, const char *run, char **out, struct sim_diag *diag);
/* Replications: the runs grouped by variant, as a JSON array in the order of each
 * variant's first run; one object a variant: variant (string), runs (count), seeds
 * (array of numbers, in file order), then every /summary field by its name as
 * {"mean": x, "ci95": half-width} over the variant's runs where the field is not NaN
 * (both null when it is NaN in every run; ci95 is 0 for one run). `run` filters runs
 * before grouping. *out is malloc'd (caller frees). */
int report_json_by_variant(const struct h5read_file *f, const char *run, char **out, struct sim_diag *diag);
/* Length of the variant part of a run name: the name without its trailing "-s<seed>"
 * (experiments/runner.c names runs "<variant>-s<seed>"). Only exactly "-s" and the
 * decimal seed are stripped; a name without that suffix, or one that would leave
 * nothing, is a variant by itself (its whole length). */
size_t report_variant_len(const char *run, uint64_t seed);
/* The runs of a summary grouped by variant, as the replications table and
 * report_json_by_variant group them (report_variant_len): variants in the order of
 * each one's first run; variant k's summary rows are row[first[k] .. first[k] + runs[k]),
 * in file order. mean and ci95 are n x s->n_fields (the summary's fields, in its
 * order): mean and 95% half-width (Student t, sim_metrics_replicate) over the
 * variant's runs where the field is not NaN; ci95 is 0 for one such run. Everything
 * is owned by the struct (names included): free with report_variants_free, which
 * also accepts a zeroed struct. */
struct report_variants {
	size_t n;
	char **name;  /* n NUL-terminated names, then NULL */
	size_t *runs; /* n */
	size_t *first; /* n */
	size_t *row;  /* every selected summary row, grouped */
	double *mean, *ci95;
};
/* Groups every row of s (0, or -SIM_ENOMEM with out zeroed). O(n log n) in runs. */
int report_variants(const struct h5read_summary *s, struct report_variants *out);
void report_variants_free(struct report_variants *v);
/* Per-job CSV with a header row:
 * run,id,queue,user,flavor,option,gpus,submit_s,start_s,end_s,wait_s,jct_s,runtime_s,preemptions,status
 * Missing values (NaN, option -1) are empty fields; status is the final state in lower case. */
int report_jobs_csv(const struct h5read_file *f, const char *run, FILE *out, struct sim_diag *diag);

/* Per-queue table for people (/runs/<run>/queues): one block a run, headed
 * "run NAME: N queues", one row a queue with nominal quota, jobs, completed, wait
 * mean / p95 (s), busy, borrowed and lent GPU-hours, time below nominal while
 * demanding (h), preemptions suffered and caused, lost GPU-hours, restore hours and
 * share (%); "-" where a value is NaN. A run of a schema 1.1 file gets a one-line
 * note instead. */
int report_queues_table(const struct h5read_file *f, const char *run, FILE *out, struct sim_diag *diag);
/* The same as a JSON array, one object a queue row: run, queue and every numeric
 * field of the table by name (NaN is null). *out is malloc'd (caller frees). */
int report_queues_json(const struct h5read_file *f, const char *run, char **out, struct sim_diag *diag);
/* Per-option table for people (/runs/<run>/options, schema 1.3): one block a run,
 * headed "run NAME: N options, M started jobs", one row an option index with its
 * jobs, share of started jobs (%), wait mean / p50 / p95 (s), mean runtime (s), runtime
 * ratio to option 0 and mean cost per job (currency); "-" where a value is NaN. A run
 * of an older file gets a one-line note instead. */
int report_options_table(const struct h5read_file *f, const char *run, FILE *out, struct sim_diag *diag);
/* The same as a JSON array, one object an option row: run and every field of the
 * table by name, option included (NaN is null). *out is malloc'd (caller frees). */
int report_options_json(const struct h5read_file *f, const char *run, char **out, struct sim_diag *diag);
/* Preemptions as CSV with a header row:
 * run,time_s,preemptor,victim,preemptor_queue,victim_queue,reason,requeued,lost_gpu_s
 * (preemptor and preemptor_queue empty for a quota shrink; a schema 1.1 file gives
 * the header alone). */
int report_decisions_csv(const struct h5read_file *f, const char *run, FILE *out, struct sim_diag *diag);

#endif
