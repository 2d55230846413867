/* gpu_exec/drv_real.h: the real-time driver (docs/design.md section 7).
 *
 * It plugs into the engine as a struct sim_driver, like the virtual driver, so the
 * same trace, cluster and policy code decide; only time and execution change:
 *   - now: trace time = t0 + (wall - wall0) x time_scale, where t0 is the first
 *     event's trace time (a trace's leading idle time is skipped) and wall0 the
 *     wall time it was reached;
 *   - advance: sleeps until the target's wall time, or until a workload ends (the
 *     executor's done callback), and tells the engine that job's end (sim_engine_job_ends);
 *   - start: maps the job's allocation to virtual GPUs (the cluster's GPUs in
 *     flavor, node, GPU order) and launches a segment on the executor, sized from
 *     the model's run time on the flavor divided by time_scale;
 *   - stop: preempts the workload and hands the engine the measured work done and
 *     saved (struct sim_stop_measure), so lost work is what the workload lost;
 *   - hang: freezes the workload at the hang's wall time (gx_hang); its later
 *     stop (the kill) measures the work as it stood then.
 * Decision latency is measured from the wall time of the event a pass follows (a
 * submit or timed event falling due, a workload ending) to the return of the
 * launch it causes.
 */
#ifndef GPU_EXEC_DRV_REAL_H
#define GPU_EXEC_DRV_REAL_H

#include "../sim/cluster.h"
#include "../sim/engine.h"

struct real_opts {
	const char *backend;   /* "cpu" or "cuda" */
	double time_scale;     /* trace seconds per wall second, > 0 */
	int64_t iter_ns;       /* executor iteration (gx_config.iter_ns), 0 = default */
	/* cuda: SMs of each flavor's virtual GPUs, "FLAVOR=N,..." (green-context
	 * partitions); NULL or a flavor not named: a whole physical GPU each. */
	const char *sms;
	int verbose;           /* print the executor's calibration */
	int progress;          /* a progress line on stderr when it is a terminal */
	int64_t fail_job;      /* fault injection (gx_config.fail_job): a job index, -1 = none */
};

enum real_outcome { REAL_COMPLETED = 0, REAL_PREEMPTED = 1, REAL_FAILED = 2 };

/* One run segment of a job, as measured. */
struct real_segment {
	uint32_t job;
	uint32_t gpu0, n_gpus;   /* first virtual GPU and how many */
	double start_s, end_s;   /* trace seconds: the workload's measured start and end */
	double predicted_s;      /* the model's run time of the segment, trace s (preempted: its
				  * start to the engine's stop) */
	double from, done, saved; /* work at launch, at the end, at the last checkpoint (0..1) */
	uint32_t ckpts;
	uint8_t outcome;         /* enum real_outcome */
};

/* What a real run measured; owned by the driver, valid until fini. */
struct real_results {
	size_t n_jobs;
	double *measured_run_s;  /* per job: its segments' measured run time, trace s (NaN: never ran) */
	double *predicted_run_s; /* per job: the model's run time of the same segments, trace s */
	double *latency_s;       /* per job: decision latency of its first start, wall s (NaN: none) */
	double *latencies;       /* every start's decision latency, wall s, in start order */
	size_t n_latencies;
	struct real_segment *segs;
	size_t n_segs;
	uint64_t failed;         /* segments whose workload failed */
	double busy_gpu_wall_s;  /* wall GPU-seconds the workloads ran */
	double wall_s;           /* wall seconds from the first event to the last */
	double time_scale;
	char backend[16];
	char device[256];        /* gx_describe */
	const double *iter_ns;   /* calibration: wall ns an iteration, per flavor */
	size_t n_flavors;
	/* The executor's calibration of each virtual GPU (cuda; cpu: n_vgpus 0), owned by
	 * it: pace (wall ns an iteration), spread of its two agreeing passes, SMs, flavor;
	 * timed passes and warm-up seconds (0 and 0 for cpu). */
	size_t n_vgpus;
	const double *vgpu_iter_ns, *vgpu_spread;
	const uint32_t *vgpu_sms, *vgpu_flavor;
	uint32_t cal_passes;
	double cal_warmup_s;
};

/* Opens the executor for a cluster of these flavors (one virtual GPU group per
 * flavor, sized for its peak nodes) and makes the driver for a run of `trace`
 * (borrowed). Errors (bad backend, no device, bad --sms) go to diag under `where`.
 * With o->verbose, notes when the shortest job is only a few iterations long.
 * Returns 0 or -SIM_E*. */
int sim_driver_real_init(struct sim_driver *drv, const struct real_opts *o,
			 const struct sim_flavor_spec *flavors, size_t n_flavors, const struct sim_trace *trace,
			 const char *where, struct sim_diag *diag);
void sim_driver_real_fini(struct sim_driver *drv);
/* The measurements; NULL when drv is not a real driver. */
const struct real_results *sim_driver_real_results(const struct sim_driver *drv);
/* After the run: closes the progress line, if one was shown. No-op for another driver. */
void sim_driver_real_end(struct sim_driver *drv);

/* Checks a "FLAVOR=N,..." list against the flavors: -SIM_EPARSE with a message. */
int real_parse_sms(const char *sms, const struct sim_flavor_spec *flavors, size_t n_flavors, uint32_t *out,
		   const char *where, struct sim_diag *diag);

#endif
