/* traces/native.h: the native CSV trace (docs/design.md section 4).
 *
 * Header row, '#' comment lines, one job a row, columns in any order:
 * id, submit_s, duration_s (required), queue, priority, request, prefs,
 * max_pending_s, deadline_s, checkpoint_s, user, preemptible, estimate_s, max_wait_s.
 * A preference list (prefs) has a count on every option ("h100:gpu=8;a100:gpu=16"), or
 * bare flavor names with the shared count in request ("*:gpu=8" and "h100;a100"); the
 * options read the same either way, and the writer writes the first form.
 * Unknown columns are errors. Every error is "FILE:LINE: column X: expected ...,
 * found ..." in diag; reading continues to collect errors up to diag->limit,
 * then the load fails with -SIM_EPARSE and no trace.
 */
#ifndef TRACES_NATIVE_H
#define TRACES_NATIVE_H

#include "../sim/job.h"
#include "../sim/sim.h"

/* Reads PATH into a new trace (sorted by submit, then row). Returns 0 and *out, or
 * -SIM_ENOENT/-SIM_EIO (message in diag), -SIM_EPARSE (errors in diag), -SIM_ENOMEM.
 * Caller must sim_trace_destroy(*out). */
int trace_native_read(const char *path, struct sim_trace **out, struct sim_diag *diag);
/* Same, from a memory buffer; `name` is used in messages. */
int trace_native_parse(const char *name, const char *buf, size_t len, struct sim_trace **out,
		       struct sim_diag *diag);
/* The fast pass of a trace with at least this many bytes of rows runs on two
 * threads (traces/native.c, "The fast pass in two halves"; default 4 MiB): the same
 * result, byte for byte. 0 splits every trace of two or more rows, also on one CPU;
 * SIZE_MAX never splits. For tests; not thread-safe against a parse in progress. */
void trace_native_set_split_min(size_t bytes);
/* Writes a trace as native CSV (used by converters and the generator). */
int trace_native_write(const struct sim_trace *t, FILE *f);

#endif
