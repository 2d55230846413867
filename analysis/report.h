/* analysis/report.h: text views of a results file (gpusched report).
 *
 * All three read the file through analysis/h5read.h only. `run` filters to one run
 * (NULL = every run); an unknown run is -SIM_ENOENT. Each returns 0 or -SIM_E*
 * with a message in diag; nothing is printed to out on error before the data
 * is read (the CSV streams run by run).
 */
#ifndef ANALYSIS_REPORT_H
#define ANALYSIS_REPORT_H

#include <stdio.h>

#include "h5read.h"

/* A table for people: one row a run, aligned columns, units in the header. */
int report_table(const struct h5read_file *f, const char *run, FILE *out, struct sim_diag *diag);
/* A JSON array, one object a run: run, policy, seed and every /summary field by its
 * name (analysis/SCHEMA.md); NaN is null. *out is malloc'd (caller frees). */
int report_json(const struct h5read_file *f, const char *run, char **out, struct sim_diag *diag);
/* Per-job CSV with a header row:
 * run,id,queue,user,flavor,option,gpus,submit_s,start_s,end_s,wait_s,jct_s,runtime_s,preemptions,status
 * Missing values (NaN, option -1) are empty fields; status is the final state in lower case. */
int report_jobs_csv(const struct h5read_file *f, const char *run, FILE *out, struct sim_diag *diag);

#endif
