/* traces/tiresias.h: the job table shipped with the Tiresias simulator (Gu et al.,
 * NSDI'19; SymbioticLab/Tiresias simulator/60_job.csv) -> native trace.
 *
 * A CSV with the header job_id,num_gpu,submit_time,iterations,model_name,duration,interval
 * (columns found by name; job_id, num_gpu, submit_time and duration are required, the
 * others are ignored). Mapping (traces/README.md):
 *   id          = job_id (letters, digits, '_', '.', '-'; unique)
 *   submit_s    = submit_time (already seconds from the trace start; not shifted)
 *   duration_s  = duration (s, > 0)
 *   request     = "*:gpu=<num_gpu>" (no GPU type in the table)
 *   queue       = "default" (the table has no users or teams)
 *   dropped     = iterations, model_name, interval (interval is only the gap to the
 *                 next submit_time; the simulator needs neither the model nor steps)
 * Bad rows (errors unless --skip-bad): wrong field count, bad job_id, duplicate job_id,
 * bad num_gpu, bad submit_time, bad duration. Two passes; memory is the id set and
 * one line.
 */
#ifndef TRACES_TIRESIAS_H
#define TRACES_TIRESIAS_H

#include "../sim/sim.h"
#include "import.h"

int trace_tiresias_import(const char *in_path, const char *out_path, const struct trace_import_opts *opts,
			  struct trace_import_result *res, struct sim_diag *diag);

#endif
