/* gpu_exec/real_results.h: a real run's measurements as summary metrics and HDF5. */
#ifndef GPU_EXEC_REAL_RESULTS_H
#define GPU_EXEC_REAL_RESULTS_H

#include <hdf5.h>

#include "../sim/metrics.h"
#include "drv_real.h"

/* Sets the summary's real-mode fields: runtime_error (mean relative error of the
 * measured run time of completed segments against the model's) and the decision
 * latency's median and 99th percentile. */
void real_summarize(const struct real_results *res, struct sim_summary *sum);

/* What real_h5_write reads (all borrowed). */
struct real_h5 {
	const struct real_results *res;
	const struct sim_trace *trace;
	const struct sim_cluster *cluster;
};

/* h5out_run.write_extra: writes /runs/<run>/real (attributes backend, device,
 * time_scale, wall_s, busy_gpu_wall_s, gpu_utilization, failed_segments; datasets
 * jobs, segments, decision_latency_s, calibration). arg: struct real_h5. */
int real_h5_write(void *arg, hid_t run_group);

#endif
