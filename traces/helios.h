/* traces/helios.h: the SenseTime Helios job log (Hu et al., SC'21; the cluster_log.csv
 * of each cluster in S-Lab-System-Group/HeliosData, CC BY 4.0) -> native trace.
 *
 * A CSV with the header job_id,user,vc,jobname,gpu_num,cpu_num,node_num,state,
 * submit_time,start_time,end_time,duration,queue_time (columns found by name;
 * job_id, user, vc, gpu_num, submit_time and duration are required, the others are
 * ignored). Mapping (traces/README.md):
 *   id          = job_id (letters, digits, '_', '.', '-'; unique)
 *   submit_s    = submit_time - the earliest submit_time of a kept row; submit_time is
 *                 "YYYY-MM-DD HH:MM:SS" (UTC) or Unix seconds
 *   duration_s  = duration (s: end_time - start_time, the time the job held its GPUs)
 *   request     = "*:gpu=<gpu_num>" (a Helios cluster has one GPU type)
 *   queue       = vc (default, --queue-from queue too) or user (--queue-from user)
 *   user        = user
 * Dropped in both modes, not errors: CPU jobs (gpu_num 0; about half the log) and jobs
 * that never ran (duration 0: cancelled while pending). Every state (COMPLETED,
 * CANCELLED, FAILED, TIMEOUT, NODE_FAIL) is kept when it ran: it held its GPUs.
 * Ignored: jobname, cpu_num, node_num (placement is the simulator's), state,
 * start_time, end_time, queue_time (the production scheduler's outcome, not input).
 * Bad rows (errors unless --skip-bad): wrong field count, bad job_id, duplicate job_id,
 * bad user, bad vc, bad gpu_num, bad submit_time, bad duration. Two passes; memory
 * is the id set, the tenant table and one line.
 */
#ifndef TRACES_HELIOS_H
#define TRACES_HELIOS_H

#include "../sim/sim.h"
#include "import.h"

int trace_helios_import(const char *in_path, const char *out_path, const struct trace_import_opts *opts,
			struct trace_import_result *res, struct sim_diag *diag);

#endif
