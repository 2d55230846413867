/* traces/sacct.h: Slurm accounting records, as `sacct --parsable2` prints them, ->
 * native trace (registry name "sacct"; mapping in traces/README.md, "Slurm sacct").
 *
 * The input is '|'-separated with a header line naming the fields (any order, others
 * ignored). Required: JobID, Submit, Elapsed, State, and AllocTRES or ReqTRES.
 * Optional: Start, Partition, Account, User, Priority (End, QOS and the rest are read
 * past). Mapping:
 *   id          = JobID (array task 123_4 as is; het component 123+1 as 123-het1)
 *   submit_s    = Submit - the earliest Submit of a kept row (ISO YYYY-MM-DDTHH:MM:SS
 *                 as printed, or Unix seconds with SLURM_TIME_FORMAT=%s)
 *   duration_s  = Elapsed ([D-]HH:MM:SS); 0 with a Start read as 1 s
 *   request     = TYPE:gpu=N when the TRES name one GPU type (gres/gpu:TYPE=N), else
 *                 *:gpu=N; AllocTRES when present and set, else ReqTRES
 *   queue       = Account (default; --queue-from group too), Partition (--queue-from
 *                 queue) or User (--queue-from user); empty gives "default"
 *   priority    = Priority (0 when absent or empty), user = User
 * Job steps (123.batch, 123.extern, 123.0) follow their job's row and are folded into
 * it: the job's row holds the allocation, so a step adds no load (dropped, counted,
 * never an error); a step whose job row did not come first is a bad row. States:
 * finished ones (COMPLETED, FAILED, CANCELLED, TIMEOUT, PREEMPTED, NODE_FAIL,
 * OUT_OF_MEMORY, ...) are kept when the job started and dropped otherwise ("cancelled
 * before start", "never ran"); unfinished ones (PENDING, RUNNING, ...) are dropped
 * ("not finished"). Jobs without GPUs are dropped ("no GPU"). Two passes; memory is
 * the JobID set, the tenant table and one line.
 */
#ifndef TRACES_SACCT_H
#define TRACES_SACCT_H

#include "../sim/sim.h"
#include "import.h"

int trace_sacct_import(const char *in_path, const char *out_path, const struct trace_import_opts *opts,
		       struct trace_import_result *res, struct sim_diag *diag);

#endif
