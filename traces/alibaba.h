/* traces/alibaba.h: the Alibaba GPU cluster trace v2023 ("openb"; Weng et al., ATC'23;
 * alibaba/clusterdata cluster-trace-gpu-v2023) -> native trace, and its node list ->
 * the `cluster` object of an experiment config.
 *
 * Pod list (openb_pod_list_*.csv; columns found by name, others ignored), mapping in
 * traces/README.md "Alibaba openb 2023":
 *   id          = name
 *   submit_s    = creation_time
 *   duration_s  = deletion_time - scheduled_time; <= 0 is a bad row ("no run time")
 *   request     = "*:gpu=G", G = num_gpu, or gpu_milli / 1000 for a shared 1-GPU pod;
 *                 "MODEL:gpu=G" when gpu_spec names one model
 *   prefs       = the gpu_spec models (repeats merged, listed order, first 5) when it
 *                 names several; request is then the shared count "*:gpu=G"
 *   queue       = qos (LS, Guaranteed, Burstable, BE)
 *   priority    = LS 2, Guaranteed 1, Burstable 1, BE 0
 * Dropped in both modes (the format's rule, not bad input): CPU-only pods (num_gpu 0,
 * "no GPU") and pods never scheduled (empty scheduled_time, "never scheduled").
 * Two passes over the input (plain or gzip); memory: the tenant and name tables and
 * one line.
 */
#ifndef TRACES_ALIBABA_H
#define TRACES_ALIBABA_H

#include "../sim/sim.h"
#include "import.h"

/* Most models a preference list holds (traces/README.md, "Preference lists"). */
#define OPENB_MAX_PREFS 5

int trace_openb_import(const char *in_path, const char *out_path, const struct trace_import_opts *opts,
		       struct trace_import_result *res, struct sim_diag *diag);

/* Reads an openb node list (openb_node_list_gpu_node.csv or _all_node.csv: columns
 * gpu and model found by name) into the JSON text of an experiment config's `cluster`
 * object: one flavor per GPU model, named after the model, with the model's most
 * common GPUs-a-node (ties: more GPUs a node) as its node shape ({"gpu": N}) and the
 * number of nodes of that shape. Nodes of the model's other shapes are left out
 * (traces/README.md says how many). Nodes with 0 GPUs are skipped. Flavors come in
 * order of GPUs in the file, most first (ties: by name), which is the order `*`
 * requests try them. *json_out is malloc'd (caller frees). Returns 0, or
 * -SIM_ENOENT/-SIM_EIO/-SIM_EPARSE/-SIM_ENOMEM with located messages in diag. */
int trace_openb_cluster(const char *node_list_csv, char **json_out, struct sim_diag *diag);

#endif
