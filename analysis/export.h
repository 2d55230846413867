/* analysis/export.h: one table of a results file over all its runs, as one long
 * tidy CSV or TSV table (gpusched export; analysis/SCHEMA.md "gpusched export").
 *
 * Every row starts with the run's key columns: run, variant, seed and one column a
 * swept parameter (from /summary, schema 1.5; an older file has no swept columns and
 * its variant is the run name less "-s<seed>"), then every field of the table as the
 * file stores it (h5read_each_row): nothing left out, no unit conversion.
 */
#ifndef ANALYSIS_EXPORT_H
#define ANALYSIS_EXPORT_H

#include <stdio.h>

#include "h5read.h"

enum export_table {
	EXPORT_JOBS,
	EXPORT_SUMMARY,
	EXPORT_TIMESERIES,
	EXPORT_QUEUES,
	EXPORT_DECISIONS,
	EXPORT_OPTIONS,
	EXPORT_REAL_JOBS,
	EXPORT_REAL_SEGMENTS,
	EXPORT_REAL_CALIBRATION,
	EXPORT_FAULTS,
	EXPORT_TABLE_COUNT_
};

/* "jobs", "summary", ... ("real_jobs" for /runs/<run>/real/jobs). */
const char *export_table_name(enum export_table t);
/* 0 and *out, or -1 for an unknown name. */
int export_table_parse(const char *name, enum export_table *out);
/* The table names joined with '|', for usage lines. */
const char *export_table_list(void);

/* Where the text goes: a stdio stream, or (gz non-NULL) a zlib gzFile. */
struct export_sink {
	FILE *f;
	void *gz; /* gzFile, when built with zlib */
	int err;  /* errno of the first failed write, 0 while all went well */
};
/* 1 when this build can write gzip (zlib). */
int export_have_gzip(void);

struct export_opts {
	enum export_table table;
	char sep;                 /* ',' (CSV, RFC 4180 quoting) or '\t' (TSV: tabs and newlines in
				   * a value become spaces) */
	const char *runs_pattern; /* fnmatch(3) glob over run names; NULL: every run */
};

/* Runs of f that the pattern selects, in file order (*n of them; *idx malloc'd).
 * Returns 0, or -SIM_ENOMEM. */
int export_select_runs(const struct h5read_file *f, const char *pattern, size_t **idx, size_t *n);

/* Writes the header and every row; *rows gets the data rows written. Returns 0,
 * -SIM_EPARSE (the file), -SIM_EIO (a write failed: out->err), or -SIM_ENOMEM. */
int export_write(const struct h5read_file *f, const struct export_opts *o, struct export_sink *out,
		 size_t *rows, struct sim_diag *diag);

#endif
