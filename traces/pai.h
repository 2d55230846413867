/* traces/pai.h: the Alibaba PAI GPU trace v2020 (Weng et al., NSDI'22; alibaba/clusterdata
 * cluster-trace-gpu-v2020) task table -> native trace, and its machine spec -> the
 * `cluster` object of an experiment config.
 *
 * pai_task_table.csv has NO header in the original (a first line whose job_name is
 * "job_name" is taken as a header and skipped). Ten fields:
 *   job_name,task_name,inst_num,status,start_time,end_time,plan_cpu,plan_mem,plan_gpu,gpu_type
 * Mapping (traces/README.md):
 *   id          = <job_name>.<task_name> (one job a task row; unique)
 *   submit_s    = start_time - the earliest kept start_time. The task table has no
 *                 submit time (the job table's is not joined here), so the queueing
 *                 PAI saw is lost: every task arrives when it started.
 *   duration_s  = end_time - start_time (s, > 0)
 *   request     = <gpu_type>:gpu=<inst_num x plan_gpu / 100> (plan_gpu is percent of one
 *                 GPU for one instance; rounded to 0.001 GPU); gpu_type MISC, CPU or
 *                 empty -> "*" (any flavor)
 *   queue       = "default" (users are in the job table, not the task table)
 *   dropped     = status, plan_cpu, plan_mem. Rows with plan_gpu empty or 0 (CPU tasks)
 *                 are dropped as "no GPUs" in both modes (not an error).
 * Bad rows (errors unless --skip-bad): wrong field count, bad id, duplicate id,
 * bad inst_num, bad plan_gpu, bad gpu_type, bad start_time, bad end_time, duration <= 0.
 * Two passes; memory is the id set and one line.
 */
#ifndef TRACES_PAI_H
#define TRACES_PAI_H

#include "../sim/sim.h"
#include "import.h"

int trace_pai_import(const char *in_path, const char *out_path, const struct trace_import_opts *opts,
		     struct trace_import_result *res, struct sim_diag *diag);

/* Reads pai_machine_spec.csv (no header; machine,gpu_type,cap_cpu,cap_mem,cap_gpu; a
 * first line naming "machine" is skipped) into the JSON text of an experiment config's
 * `cluster` object, like trace_openb_cluster: GPU machines only (cap_gpu > 0), one
 * flavor per gpu_type (MISC included: it is real capacity of unnamed models) with the
 * type's most common cap_gpu (ties: more GPUs) as node shape {"gpu": N} and the count of
 * such machines; machines of the type's other shapes are left out. Flavors in order of
 * total GPUs in the file, most first (ties: by name). *json_out is malloc'd (caller
 * frees). Returns 0, or -SIM_ENOENT/-SIM_EIO/-SIM_EPARSE/-SIM_ENOMEM with located
 * messages in diag. */
int trace_pai_cluster(const char *machine_spec_csv, char **json_out, struct sim_diag *diag);

#endif
