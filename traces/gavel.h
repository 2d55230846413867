/* traces/gavel.h: the job traces shipped with Gavel (Narayanan et al., OSDI'20;
 * stanford-futuredata/gavel scheduler/traces/, MIT) -> native trace.
 *
 * Tab-separated, no header, one job a line, in one of two layouts told apart by the
 * field count:
 *   10 fields (current, scheduler/utils.py parse_trace): job_type, command,
 *      working_directory, num_steps_arg, needs_data_dir, total_steps, scale_factor,
 *      priority_weight, SLO, arrival_time
 *    7 fields (older, traces/msr/seed=N/<VC>.trace): job_type, command,
 *      num_steps_arg, needs_data_dir, total_steps, arrival_time, scale_factor
 * Mapping (traces/README.md):
 *   id          = "gavel-<R>", R = the 1-based data line (blank lines not counted)
 *   submit_s    = arrival_time (already seconds from the trace start; not shifted)
 *   duration_s  = total_steps / GAVEL_STEPS_PER_S. Gavel derives run time from a
 *                 per-model throughput table (simulation_throughputs.json) that is not
 *                 available here, so one step counts as one second at the reference
 *                 speed: lengths are right in steps, not in seconds across job types.
 *   request     = "*:gpu=<scale_factor>" (V100/P100/K80 are flavors of the config)
 *   queue       = the file name without directory, ".gz" and ".trace" (msr traces:
 *                 the Philly VC); "default" when that is not a valid name
 *   priority    = priority_weight (whole, 10-field layout); 0 in the 7-field layout
 *   dropped     = job_type, command, working_directory, num_steps_arg,
 *                 needs_data_dir (how to launch it), SLO (not modelled)
 * Bad rows (errors unless --skip-bad): wrong field count, bad total_steps, bad
 * scale_factor, bad arrival_time, bad priority_weight. Two passes; memory is one line.
 */
#ifndef TRACES_GAVEL_H
#define TRACES_GAVEL_H

#include "../sim/sim.h"
#include "import.h"

/* Steps a second at the reference speed 1.0 (placeholder for Gavel's throughputs). */
#define GAVEL_STEPS_PER_S 1

int trace_gavel_import(const char *in_path, const char *out_path, const struct trace_import_opts *opts,
		       struct trace_import_result *res, struct sim_diag *diag);

#endif
