/* traces/helios_cluster.h: a Helios cluster (Hu et al., SC'21; S-Lab-System-Group/HeliosData)
 * from helios_cluster_summary.csv -> the `cluster` object of an experiment config.
 *
 * The summary has a header naming id and gpu_num (found by name; the other columns are
 * ignored) and one row per cluster (Venus, Earth, Saturn, Uranus, and "total"). Helios
 * nodes have 8 GPUs each (Hu et al., SC'21, Table 1), so the named cluster becomes one
 * flavor named after it with floor(gpu_num / 8) nodes of {"gpu": 8}; a remainder of
 * gpu_num % 8 GPUs (e.g. 6 of Venus's 1022) is left out.
 */
#ifndef TRACES_HELIOS_CLUSTER_H
#define TRACES_HELIOS_CLUSTER_H

#include "../sim/sim.h"

#define HELIOS_NODE_GPUS 8

/* *json_out is malloc'd (caller frees). Returns 0, or -SIM_ENOENT/-SIM_EIO/-SIM_EPARSE/
 * -SIM_ENOMEM with located messages in diag (an unknown cluster id is -SIM_EPARSE). */
int trace_helios_cluster(const char *summary_csv, const char *cluster_id, char **json_out, struct sim_diag *diag);

#endif
