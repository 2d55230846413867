/* traces/import.h: the registry of trace importers behind `gpusched trace import
 * --format FORMAT IN -o OUT.csv [--skip-bad] [--top-queues K] [--queue-from KIND]`,
 * and what they share: the result counts, dropped-row reasons, the tenant table for
 * --top-queues, a line reader (plain or gzip input) and the OUT.tmp-then-rename output.
 *
 * Bad rows: by default (strict) a bad row is an error located as
 * "FILE:LINE: column C: expected ..., found ..." and nothing is written. With
 * skip_bad, bad rows are dropped and counted by reason. Some reasons are never
 * errors (e.g. Philly's "duration <= 0"): those rows are dropped in both modes.
 */
#ifndef TRACES_IMPORT_H
#define TRACES_IMPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../sim/lines.h"
#include "../sim/sim.h"

/* Where a queue name comes from, for formats that carry several (SWF). */
enum trace_queue_from {
	TRACE_QUEUE_DEFAULT = 0, /* the format's own choice (SWF: user) */
	TRACE_QUEUE_USER,
	TRACE_QUEUE_QUEUE,
	TRACE_QUEUE_GROUP,
};

struct trace_import_opts {
	int skip_bad;	   /* drop bad rows (counted) instead of failing */
	size_t top_queues; /* K > 0: the K tenants with most GPU-hours keep their name, the rest
			    * become "other"; 0 keeps every tenant */
	enum trace_queue_from queue_from; /* SWF and Helios */
};

#define TRACE_IMPORT_REASON_MAX 16
#define TRACE_IMPORT_OTHER "other"

/* Dropped rows of one reason. `bad` reasons are errors unless skip_bad. */
struct trace_import_reason {
	const char *name; /* static string, e.g. "no run time" */
	size_t count;
	int bad;
};

struct trace_import_result {
	size_t rows_read;    /* data rows seen (comments, header and blank lines excluded) */
	size_t rows_written; /* jobs in the output */
	size_t rows_dropped; /* sum of the reason counts */
	struct trace_import_reason reasons[TRACE_IMPORT_REASON_MAX];
	size_t n_reasons;
	double gpu_hours_in;  /* duration x GPUs over read rows where both parse (negatives as 0) */
	double gpu_hours_out; /* duration x GPUs over written jobs */
	size_t tenants_in;    /* distinct tenants (queue names before --top-queues) in kept rows */
	size_t queues_out;    /* distinct queue names written */
	char note[160];	      /* format-specific extra line for the summary, or "" */
};

typedef int (*trace_import_fn)(const char *in_path, const char *out_path,
			       const struct trace_import_opts *opts, struct trace_import_result *res,
			       struct sim_diag *diag);

struct trace_importer {
	const char *name;    /* --format value */
	const char *summary; /* one line for --help */
	trace_import_fn convert;
};

/* The importer named NAME, or NULL. */
const struct trace_importer *trace_importer_find(const char *name);
/* All importers, in --help order; *n is set to their count. */
const struct trace_importer *trace_importers(size_t *n);
/* Runs importer NAME: -SIM_EINVAL (message in diag) when unknown. */
int trace_import(const char *name, const char *in_path, const char *out_path,
		 const struct trace_import_opts *opts, struct trace_import_result *res,
		 struct sim_diag *diag);

/* Registers a reason with count 0 (so summaries list it) and returns its slot. */
struct trace_import_reason *trace_import_reason(struct trace_import_result *res, const char *name, int bad);
/* Counts one dropped row of reason NAME. */
void trace_import_drop(struct trace_import_result *res, const char *name, int bad);
/* Rows dropped for bad reasons (errors in strict mode). */
size_t trace_import_bad_count(const struct trace_import_result *res);
/* "a: 1, b: 2" of every registered reason (bad ones only when only_bad) into buf. */
void trace_import_reasons_str(const struct trace_import_result *res, int only_bad, char *buf, size_t size);
/* Writes the "# Skipped bad rows ..." comment line(s) when any bad row was dropped. */
void trace_import_write_bad_comment(const struct trace_import_result *res, FILE *f);

/* Tenant table for --top-queues: names with their GPU-seconds (an open hash; memory
 * proportional to the tenants). */
struct trace_tenants;
struct trace_tenants *trace_tenants_create(void);
void trace_tenants_destroy(struct trace_tenants *tt);
/* Replaces *tt (may be NULL) with an empty table, e.g. the ids seen in a pass.
 * Returns 0 or -SIM_ENOMEM (then *tt is NULL). */
int trace_tenants_reset(struct trace_tenants **tt);
/* Adds gpu_s to NAME (len bytes). Returns 0 or -SIM_ENOMEM. */
int trace_tenants_add(struct trace_tenants *tt, const char *name, size_t len, double gpu_s);
size_t trace_tenants_count(const struct trace_tenants *tt);
/* Marks the K tenants with most GPU-seconds as kept (ties: by name); K = 0 keeps all. */
int trace_tenants_pick_top(struct trace_tenants *tt, size_t k);
/* The output queue name of NAME after trace_tenants_pick_top with K > 0: the
 * table's copy of NAME when it is among the top K, else TRACE_IMPORT_OTHER. NULL when
 * no top K was picked (the caller keeps NAME). */
const char *trace_tenants_map(const struct trace_tenants *tt, const char *name, size_t len);

/* Lines of the input: sim/lines.h (plain or gzip, every read error located). */

/* A new temporary beside OUT_PATH opened for writing (sim_out_tmp_fopen: never an
 * existing file); *tmp its name, owned by the caller until trace_import_out_finish,
 * which closes f, renames the temporary to OUT_PATH (ok) or removes it (!ok, or a
 * write failed: the message names the cause, e.g. "no space left on device") and
 * frees tmp. Both return 0 or -SIM_E* with a message in diag. */
int trace_import_out_open(const char *out_path, char **tmp, FILE **f, struct sim_diag *diag);
int trace_import_out_finish(const char *out_path, char *tmp, FILE *f, int ok, struct sim_diag *diag);

/* Located error "PATH:LINE: column COL: FMT" (COL may be NULL). */
void trace_import_err(struct sim_diag *diag, const char *path, size_t line, const char *col, const char *fmt,
		      ...) __attribute__((format(printf, 5, 6)));

/* The file name after the last '/'. */
const char *trace_base_name(const char *path);


/* A byte range of a line (not NUL-terminated); it points into the caller's buffer. */
struct trace_span {
	const char *p;
	size_t len;
};

/* [s, e) without leading blanks (' ', '\t') and trailing blanks or '\r'. */
struct trace_span trace_span_trim(const char *s, const char *e);
/* Splits [p, end) at SEP into at most max trimmed spans (trace_span_trim); returns the
 * field count, which may exceed max (the extra fields are not stored). */
int trace_split(const char *p, const char *end, struct trace_span *f, char sep, int max);
/* Whether the reader's current line holds only ' ', '\t' or '\r'. */
int trace_blank_line(const struct sim_lines *r);
/* Whether S is exactly WORD. */
int trace_span_is(struct trace_span s, const char *word);
/* Seconds >= 0 ("121", "30.5", at most 9 fractional digits) in ns, or -1. */
int64_t trace_parse_secs(struct trace_span s);
/* A whole number ("4", "4.0") in 0..max, or -1. */
int64_t trace_parse_whole(struct trace_span s, int64_t max);
/* Seconds of a ns value, exactly, without trailing zeros ("3600", "12.5"), into buf;
 * returns buf. */
char *trace_format_secs(int64_t ns, char *buf, size_t size);
/* An id the output holds unquoted: letters, digits, '_', '.', '-', 1 to 255 bytes. */
int trace_id_ok(struct trace_span s);
/* A queue or user name for the native CSV: 1 to 255 bytes, no control characters,
 * no '"', not starting with '#'. */
int trace_name_ok(struct trace_span s);

/* What a two-pass importer's row checks share: where errors go and whether this pass
 * reports (pass 1) or only re-classifies (pass 2). Not owning: all pointers are the
 * importer's arguments. */
struct trace_import_pass {
	const char *path;
	const struct trace_import_opts *opts;
	struct trace_import_result *res;
	struct sim_diag *diag;
	int report;   /* pass 1: count reasons and report errors */
	size_t n_err; /* located errors (strict mode) */
	size_t row;   /* 1-based data line of the current pass (trace_import_run) */
	/* Submit times written relative to the earliest (trace_import_check_submit): pass 1
	 * notes the range of those that parse; when it spans over 1e9 s, pass 1 runs again
	 * with the earliest fixed as origin, so rows too far after it are refused. */
	int64_t submit_lo_ns, submit_hi_ns;
	int submit_seen;  /* a submit time was noted */
	int submit_fixed; /* origin fixed at submit_lo_ns: the check refuses */
	int quiet_rerun;  /* strict rerun: only range errors are new messages */
};

/* The native format's ceiling on submit_s and duration_s (traces/native.c): an
 * importer writes only what the native reader accepts. */
#define TRACE_IMPORT_MAX_S 1000000000LL
#define TRACE_IMPORT_MAX_NS (TRACE_IMPORT_MAX_S * SIM_NS_PER_S)
#define TRACE_IMPORT_R_SUBMIT_RANGE "submit time out of range"
#define TRACE_IMPORT_R_DURATION_RANGE "duration over 1e9 s"

/* A submit time (ns, >= 0) that the output shifts to the earliest one: in pass 1
 * noted; once the origin is fixed, refused (bad row, reason "submit time out of
 * range") when over 1e9 s after it. FOUND is the field, for the message. Returns 1
 * (keep going) or 0 (dropped). */
int trace_import_check_submit(struct trace_import_pass *ps, size_t line, const char *col, int64_t ns,
			      struct trace_span found);
/* A submit time the output holds as is: refused when over 1e9 s. 1 or 0 as above. */
int trace_import_check_submit_abs(struct trace_import_pass *ps, size_t line, const char *col, int64_t ns,
				  struct trace_span found);
/* A duration (ns): refused (reason "duration over 1e9 s") when over 1e9 s. 1 or 0. */
int trace_import_check_duration(struct trace_import_pass *ps, size_t line, const char *col, int64_t ns,
				struct trace_span found);
/* After pass 1: when the noted submit times span over 1e9 s, fixes the origin and
 * forgets pass 1's counts (the result's, not the format's own) so it can run again;
 * returns 1 then, else 0. */
int trace_import_submit_rerun(struct trace_import_pass *ps);

/* A two-pass importer's parts, for trace_import_run. Pass 1 classifies every data
 * line and counts (reasons, rows, GPU-hours, tenants); pass 2 classifies them again,
 * so both agree on every row, and writes the kept ones. ctx is the format's own
 * context, whose struct trace_import_pass the driver is given beside it. */
struct trace_import_format {
	/* Before each pass: read the header, reset per-pass sets. Optional. */
	int (*begin)(void *ctx, struct sim_lines *r);
	/* The next data line: 1, 0 at the end, or a reader error. Optional: by default
	 * the next line that is not blank. */
	int (*next)(void *ctx, struct sim_lines *r);
	/* 1 keep, 0 dropped (trace_import_reject), or < 0 (-SIM_ENOMEM). */
	int (*classify)(void *ctx, const struct sim_lines *r);
	/* Pass 1, a kept row, rows_written already counted: GPU-hours, tenants... 0 or < 0. */
	int (*count)(void *ctx);
	/* Before pass 1 runs again (trace_import_submit_rerun): forget what the format
	 * counted in pass 1 (tenants...). 0 or < 0. Optional. */
	int (*restart)(void *ctx);
	/* Between the passes: queue names (trace_import_pick_top). Optional: by default
	 * the file is the one tenant (tenants_in = queues_out = 1 when any row is kept). */
	int (*tenants)(void *ctx);
	void (*write_header)(FILE *f, const void *ctx);
	/* Pass 2, a kept row. 0 or < 0. */
	int (*write_row)(void *ctx, FILE *f);
};

/* Opens ps->path (plain or gzip), runs both passes over it and writes out_path (tmp
 * + rename; nothing is left on error). Returns 0, -SIM_EPARSE (located errors in
 * diag), or another -SIM_E*. */
int trace_import_run(struct trace_import_pass *ps, const struct trace_import_format *fmt, void *ctx,
		     const char *out_path);

/* Drops a row for REASON: when reporting, counts it, or for a bad reason in strict
 * mode reports "FILE:LINE: column COL: FMT..." and counts an error. Returns 0 (the
 * classifier's "dropped"). */
int trace_import_reject(struct trace_import_pass *ps, size_t line, const char *reason, int bad,
			const char *col, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Back to the first line for the second pass; on failure the reader adds "cannot
 * rewind for a second pass" to its diag. Returns 0 or the reader's -SIM_E*. */
int trace_import_rewind(struct trace_import_pass *ps, struct sim_lines *r);
/* Ends the second pass: READ_ERR < 0 (the pass's error, which the reader located
 * itself) removes the temporary; else it is renamed to OUT_PATH
 * (trace_import_out_finish). Returns READ_ERR when < 0, else the finish result. */
int trace_import_out_close(struct trace_import_pass *ps, const char *out_path, char *tmp, FILE *f,
			   int read_err);
/* --top-queues for a filled tenant table: sets tenants_in and queues_out (K + 1 with
 * "other" when more than K) and picks the top K (trace_tenants_pick_top); K = 0 keeps
 * all. Returns 0 or -SIM_ENOMEM. */
int trace_import_pick_top(struct trace_import_pass *ps, struct trace_tenants *tenants);
/* Reads up to the first non-blank line (the header) and splits it at SEP, past a UTF-8
 * BOM, into at most max spans of f. Returns the field count (>= 1), 0 when the input
 * has no such line, or the reader's -SIM_E*. */
int trace_read_header(struct sim_lines *r, char sep, struct trace_span *f, int max);
/* For each of the count NAMES, col[k] = the first of the n header fields (at most max
 * stored in f) equal to it. Returns -1 when all are found, else the first missing k. */
int trace_find_columns(const struct trace_span *f, int n, int max, const char *const *names, int count,
		       int *col);

/* GPU models and the shapes of their nodes, read from a node list, for `gpusched
 * cluster import` (openb node lists, PAI machine specs). Zero-initialized = empty;
 * owned by the caller, freed with trace_models_free. */
#define TRACE_MODEL_MAX 64 /* a model's name is a flavor name: under 64 bytes */
struct trace_model {
	char name[TRACE_MODEL_MAX];
	struct trace_model_shape {
		int64_t gpus; /* GPUs a node */
		size_t nodes;
	} *shapes;
	size_t n_shapes, cap_shapes;
	int64_t gpus; /* all GPUs of the model */
};
struct trace_models {
	struct trace_model *v;
	size_t n, cap;
};
/* Adds one node of `gpus` GPUs of model NAME (name.len < TRACE_MODEL_MAX). Returns the
 * model's number of distinct shapes so far, or -SIM_ENOMEM. */
int trace_models_add(struct trace_models *ms, struct trace_span name, int64_t gpus);
/* The `cluster` object {"flavors": [...]}: one flavor a model, with its most common
 * shape (ties: more GPUs a node) and the nodes of that shape, models by total GPUs,
 * most first (ties: by name). Sorts ms. Malloc'd text, or NULL on no memory. */
char *trace_models_cluster_json(struct trace_models *ms);
void trace_models_free(struct trace_models *ms);

#endif
