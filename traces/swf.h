/* traces/swf.h: the Standard Workload Format (SWF) of the Parallel Workloads Archive
 * (https://www.cs.huji.ac.il/labs/parallel/workload/swf.html) -> native trace.
 *
 * An SWF log is ';' header comments (MaxProcs, UnixStartTime, ...) and one job a
 * line of 18 whitespace-separated numbers (-1 = unknown). Mapping (traces/README.md):
 *   id          = job number (field 1)
 *   submit_s    = submit time (field 2) - the earliest submit time of a kept row
 *   duration_s  = run time (field 4); <= 0 is a bad row ("no run time")
 *   request     = "*:gpu=<P>", P = allocated processors (field 5), else requested
 *                 processors (field 8). SWF logs are CPU clusters: processors stand
 *                 in for GPUs.
 *   queue       = "user-<N>" (field 12, default), "queue-<N>" (field 15) or
 *                 "group-<N>" (field 13) by opts->queue_from; -1 gives "<kind>-unknown"
 *   estimate_s  = requested time (field 9) when > 0, else empty
 *   priority    = none
 * Status (field 11): completed (1), failed (0), cancelled (5) and unknown (-1) jobs
 * are kept when they ran; partial-execution records (2, 3, 4) repeat a job already
 * summarised on its own line and are dropped (not an error).
 * Two passes over the input (gzip read directly through zlib): the first checks
 * every row, counts, sums GPU-seconds per tenant and finds the earliest submit; the
 * second writes the kept rows. Memory: the tenant table and one line.
 */
#ifndef TRACES_SWF_H
#define TRACES_SWF_H

#include "../sim/sim.h"
#include "import.h"

#define SWF_FIELDS 18

int trace_swf_import(const char *in_path, const char *out_path, const struct trace_import_opts *opts,
		     struct trace_import_result *res, struct sim_diag *diag);

#endif
