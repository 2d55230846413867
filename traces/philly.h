/* traces/philly.h: the Microsoft Philly job table (Jeon et al., ATC'19) as carried
 * by the Pollux artifact (petuum/adaptdl, simulator/traces/philly.csv), converted
 * to the native trace. Mapping (traces/README.md; source and licence in
 * traces/samples/README.md):
 *   id         = "philly-<R>", R = 1-based data row in the input (header excluded)
 *   submit_s   = timestamp - earliest timestamp (UTC, "YYYY-MM-DD HH:MM:SS")
 *   duration_s = duration
 *   request    = "*:gpu=<num_gpus>" (the table has no GPU type)
 *   queue      = cluster (the virtual cluster, i.e. the team)
 * Jobs are sorted by (timestamp, row). Rows with duration <= 0 or num_gpus = 0 are
 * dropped and counted; gpu_time is checked against duration x num_gpus and
 * mismatches are counted, not fatal. The input is read a line at a time (plain or
 * gzip); memory is the output's job arrays. Registered as --format philly
 * (traces/import.h), which adds --skip-bad and --top-queues.
 */
#ifndef TRACES_PHILLY_H
#define TRACES_PHILLY_H

#include <stdint.h>

#include "../sim/job.h"
#include "import.h"
#include "../sim/sim.h"

struct trace_philly_stats {
	size_t rows_in;		  /* data rows read */
	size_t rows_out;	  /* jobs written */
	size_t dropped_duration;  /* duration <= 0 */
	size_t dropped_gpus;	  /* num_gpus == 0 */
	size_t gpu_time_mismatch; /* gpu_time != duration x num_gpus (kept) */
	int64_t first_epoch_s;	  /* earliest timestamp of a kept row, Unix seconds */
	int64_t last_epoch_s;	  /* latest timestamp of a kept row */
	double gpu_time_s;	  /* sum of the gpu_time column over kept rows */
};

/* Reads the Philly table at PATH into a new trace. Returns 0 and *out, or
 * -SIM_ENOENT/-SIM_EIO, -SIM_EPARSE (located errors in diag), -SIM_ENOMEM.
 * stats may be NULL. Caller must sim_trace_destroy(*out). */
int trace_philly_read(const char *path, struct sim_trace **out, struct trace_philly_stats *stats,
		      struct sim_diag *diag);

/* Converts IN_PATH to a native CSV at OUT_PATH: writes OUT_PATH.tmp, then renames
 * it, so nothing is left at OUT_PATH on any error. The file starts with '#' lines
 * naming the source, licence and counts. */
int trace_philly_convert(const char *in_path, const char *out_path, struct trace_philly_stats *stats,
			 struct sim_diag *diag);

/* The registry's entry (import.h): trace_philly_convert with --skip-bad (bad rows
 * dropped and counted by reason: wrong field count, bad timestamp, bad duration, bad
 * num_gpus, bad gpu_time, bad cluster) and --top-queues K (the K VCs with most
 * GPU-hours keep their name, the rest become "other"). */
int trace_philly_import(const char *in_path, const char *out_path, const struct trace_import_opts *opts,
			struct trace_import_result *res, struct sim_diag *diag);

/* One row of philly_vc.csv (HeliosArtifact): a virtual cluster and its node count
 * (8 GPUs a node in Helios' simulator). */
struct trace_philly_vc {
	char vc[SIM_NAME_MAX];
	int32_t nodes;
};

/* Reads philly_vc.csv ("vc,node num" header). Returns 0 with *out (malloc'd array,
 * caller frees) and *n, or -SIM_E* with located errors in diag. */
int trace_philly_read_vc(const char *path, struct trace_philly_vc **out, size_t *n, struct sim_diag *diag);

/* Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's days_from_civil). */
int64_t trace_days_from_civil(int64_t y, unsigned m, unsigned d);

/* Parses "YYYY-MM-DD HH:MM:SS" (UTC) into Unix seconds. Returns 0 or -SIM_EPARSE. */
int trace_parse_utc(const char *s, size_t len, int64_t *epoch_s);

#endif
