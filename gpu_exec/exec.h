/* gpu_exec/exec.h: executors run job segments on (virtual) GPUs for real mode.
 *
 * An executor knows devices, workloads and clocks; it knows nothing of policies,
 * queues or traces. The real-time driver (gpu_exec/drv_real.c) tells it what runs
 * on which virtual GPUs, and the engine's policies decide that, exactly as in
 * `gpusched run`.
 *
 * Protocol of one segment (one run of a job between a start and a finish or a
 * stop), the same for every backend:
 *   - the workload does `total` iterations of fixed work; `total` comes from the
 *     segment's work_ns and the executor's calibration of the slowest of its GPUs;
 *   - the progress counter (iterations done, of the whole job) is readable while
 *     it runs (cuda: mapped host memory written by the kernel);
 *   - every ckpt_every of the work (as a fraction of the job's whole work) the
 *     workload saves the counter (a checkpoint) and pays ckpt_cost_ns of wall time;
 *   - a segment resuming from saved work (from > 0) first pays restore_ns;
 *   - gx_preempt stops it at the next iteration (cuda: a flag the kernel polls once
 *     per iteration; cpu: the iterations complete on its timeline by the stop's
 *     wall time) and the work since the last checkpoint is lost, for real;
 *   - gx_hang freezes it (a hung job, docs/faults.md "Hangs"): from then on it makes
 *     no progress, saves nothing, keeps its GPUs and never ends by itself (no done
 *     callback); the gx_preempt that later kills it reports the work done and saved
 *     as they stood at the hang (cpu: its timeline read at the hang's wall time;
 *     cuda: the kernel holds at its next poll of the flag), end_ns the kill;
 *   - gx_slow sets its speed (a fail-slow node, docs/faults.md "Fail-slow nodes"):
 *     from then on its iterations take 1 / rate times as long, the work done so far
 *     kept (cpu: its timeline runs at rate from the call's wall time; cuda: each
 *     iteration waits iter x (1 / rate - 1) more, a word of mapped memory the kernel
 *     reads every iteration); rate 1 is full speed again.
 * Times in this interface are wall-clock nanoseconds (CLOCK_MONOTONIC); work is a
 * fraction of the job's whole work, 0..1.
 *
 * Threads: gx_launch, gx_hang, gx_preempt, gx_reap and gx_close are called from one thread
 * (the engine's). The done callback runs on an executor thread.
 */
#ifndef GPU_EXEC_EXEC_H
#define GPU_EXEC_EXEC_H

#include <stddef.h>
#include <stdint.h>

struct gx;

/* Called on an executor thread when a segment ended by itself (all its work done,
 * or its workload failed); never for a segment stopped by gx_preempt. `seq` is
 * the segment's launch number (gx_segment.seq). Must not call back into gx. */
typedef void (*gx_done_fn)(void *arg, uint32_t job, uint64_t seq, int64_t wall_ns);

/* One virtual GPU group: `count` virtual GPUs of `sms` streaming multiprocessors
 * each (cuda: a green-context SM partition; 0 = a whole physical GPU each, or
 * whatever the device gives; cpu: ignored). Groups are numbered in order, and so
 * are their GPUs: group 0's GPUs are 0 .. count-1, and so on. */
struct gx_group {
	const char *name;      /* the flavor it stands for, for messages */
	uint32_t count;
	uint32_t sms;
};

struct gx_config {
	const char *backend;   /* "cpu" or "cuda" */
	const struct gx_group *groups;
	size_t n_groups;
	gx_done_fn done;
	void *done_arg;
	/* Length of one iteration, wall ns (cpu: the pacing tick, default 500 us;
	 * cuda: the calibration target per kernel iteration, default 200 us). 0 = default. */
	int64_t iter_ns;
	int verbose;           /* 1: print the calibration on stderr */
	/* Fault injection (cpu backend, tests of the failure path): every segment of
	 * this job fails half-way through its remaining work, as a kernel error would.
	 * -1 (or any index no job has) = none. */
	int64_t fail_job;
};

struct gx_segment {
	uint32_t job;          /* job index, handed back to the done callback */
	uint64_t seq;          /* launch number, unique over the executor's life */
	const uint32_t *gpus;  /* virtual GPUs it runs on (copied by gx_launch) */
	uint32_t n_gpus;
	int64_t work_ns;       /* wall ns the job's WHOLE work takes on these GPUs */
	double from;           /* work saved at its last checkpoint: where it resumes */
	double ckpt_every;     /* work between checkpoints, 0 = no checkpoints */
	int64_t ckpt_cost_ns;  /* wall ns one checkpoint costs */
	int64_t restore_ns;    /* wall ns paid first when from > 0 */
};

/* What a segment did, from its launch to its end. */
struct gx_report {
	double progress;       /* work done when it ended (1 when it completed) */
	double saved;          /* work saved at its last checkpoint (from when none) */
	uint32_t ckpts;        /* checkpoints completed in this segment */
	int64_t start_ns;      /* wall time the workload started (after the launch call) */
	int64_t end_ns;        /* wall time it stopped or completed */
	int failed;            /* 1: the workload failed; msg says why, with context */
	char msg[256];
};

/* Virtual GPU speeds measured at open: iteration time of each group, wall ns (the
 * pace segments are planned at: cuda, the slowest of the group's virtual GPUs;
 * cpu, the tick). The cuda backend also gives each virtual GPU's own measurement
 * (the mean of its two last passes, which agreed) and their spread (|a - b| over
 * the mean); the cpu backend, whose pace is the clock's, none (n_vgpus 0). */
struct gx_calibration {
	double *iter_ns;       /* n_groups entries */
	size_t n_groups;
	size_t n_vgpus;
	double *vgpu_iter_ns;  /* n_vgpus entries */
	double *vgpu_spread;
	uint32_t *vgpu_sms;    /* SMs of each (its kernels' blocks) */
	uint32_t *vgpu_group;  /* the group (flavor) of each */
	uint32_t passes;       /* timed passes until every virtual GPU agreed */
	double warmup_s;       /* wall seconds of warm-up before them */
};

/* Opens the backend: finds the devices, makes the virtual GPUs, calibrates.
 * Returns 0, or -SIM_EINVAL (no such backend, not built in, no device, groups that
 * do not fit the device) / -SIM_EEXTERNAL (a driver error) / -SIM_ENOMEM with a
 * message in err. */
int gx_open(const struct gx_config *cfg, struct gx **out, char *err, size_t errlen);
/* Starts a segment. Returns 0 or -SIM_E* with report-style context in err; a
 * launch that fails leaves nothing running. */
int gx_launch(struct gx *x, const struct gx_segment *s, char *err, size_t errlen);
/* Stops a running segment of `job` at its next iteration and waits for it; fills
 * *r. A segment that had already completed reports progress 1. Returns 0 or
 * -SIM_ESTATE (no segment of that job). */
int gx_preempt(struct gx *x, uint32_t job, struct gx_report *r);
/* Freezes the running segment of `job` from wall time at_ns (a hang; the cpu
 * backend reads its timeline there, cuda freezes each kernel at its next flag
 * poll and ignores at_ns): see the protocol above. A done callback already on its
 * way for it may still arrive (the caller drops it). Returns 0, -SIM_ESTATE (no
 * segment of that job) or -SIM_EINVAL (a backend that cannot freeze one). */
int gx_hang(struct gx *x, uint32_t job, int64_t at_ns);
/* Runs the segment of `job` at rate (0 < rate <= 1) of full speed from wall time
 * at_ns (the cpu backend's timeline; cuda applies it at each kernel's next
 * iteration and ignores at_ns): see the protocol above. Never called for a hung
 * segment. Returns 0, -SIM_ESTATE (no segment of that job) or -SIM_EINVAL (a
 * backend that cannot slow one down, or a rate out of range). */
int gx_slow(struct gx *x, uint32_t job, int64_t at_ns, double rate);
/* After the done callback: waits for the segment's resources and fills *r.
 * Returns 0 or -SIM_ESTATE. */
int gx_reap(struct gx *x, uint32_t job, struct gx_report *r);
const struct gx_calibration *gx_calibration(const struct gx *x);
const char *gx_backend(const struct gx *x);
/* Describes the devices (e.g. "NVIDIA H200, 132 SMs, 8 virtual GPUs: 4 x 32 SMs + 4 x 16 SMs"). */
const char *gx_describe(const struct gx *x);
/* Stops whatever runs and frees everything. NULL is a no-op. */
void gx_close(struct gx *x);
/* The earliest wall time (ns) a running segment is known to end, INT64_MAX when
 * none is known (cuda: a kernel's end is known when its callback runs). */
int64_t gx_next_end(struct gx *x);
/* Reports every segment whose known end is due by wall time now and is not yet
 * reported, through the done callback, on the calling thread (the engine's), so a
 * busy host's late executor thread does not delay it. No-op for cuda. */
void gx_poll(struct gx *x, int64_t now);

/* Backends register through this table (gpu_exec/exec.c dispatches). */
struct gx_backend_ops {
	const char *name;
	int (*open)(const struct gx_config *cfg, void **priv, char *err, size_t errlen);
	int (*launch)(void *priv, const struct gx_segment *s, char *err, size_t errlen);
	int (*preempt)(void *priv, uint32_t job, struct gx_report *r);
	int (*reap)(void *priv, uint32_t job, struct gx_report *r);
	const struct gx_calibration *(*calibration)(void *priv);
	const char *(*describe)(void *priv);
	void (*close)(void *priv);
	/* Optional (NULL: the backend cannot freeze a workload): gx_hang. */
	int (*hang)(void *priv, uint32_t job, int64_t at_ns);
	/* Optional (NULL: the backend cannot slow a workload down): gx_slow. */
	int (*slow)(void *priv, uint32_t job, int64_t at_ns, double rate);
	/* Optional (NULL: nothing known, nothing to poll): gx_next_end, gx_poll. */
	int64_t (*next_end)(void *priv);
	void (*poll)(void *priv, int64_t now);
};

extern const struct gx_backend_ops gx_cpu_backend;
/* NULL when the build had no CUDA toolkit (gpu_exec/exec_cuda.c). */
extern const struct gx_backend_ops *const gx_cuda_backend;

/* Wall clock, CLOCK_MONOTONIC, ns. */
int64_t gx_now_ns(void);

/* A segment in iterations, the same rule for every backend: total = work_ns /
 * iter_ns rounded (>= 1); the resume point from x total rounded, below total; the
 * checkpoint interval ckpt_every x total rounded UP (0 = none), so rounding never
 * adds a checkpoint just before the end: the model counts (work - 1) / interval
 * of them. Checkpoints fall at the multiples of ckpt_iters below total. A NaN
 * fraction counts as 0. */
struct gx_plan {
	uint64_t total, from_iter, ckpt_iters;
};
void gx_plan_segment(const struct gx_segment *s, double iter_ns, struct gx_plan *out);

/* A segment on the wall clock (the cpu backend's pace, gpu_exec/exec_cpu.c): from
 * work0_ns (its launch, plus the restore when it resumes) iterations from_iter+1 ..
 * total of tick_ns each, and after every iteration k that is a multiple of
 * ckpt_iters with from_iter < k < total (none when ckpt_iters is 0) a checkpoint
 * costing ckpt_cost_ns, which counts once paid. Times saturate at INT64_MAX. */
struct gx_timeline {
	uint64_t total, from_iter, ckpt_iters;
	int64_t tick_ns, ckpt_cost_ns, work0_ns;
};
/* Wall time iteration n (from_iter <= n <= total) is complete. */
int64_t gx_timeline_iter_done(const struct gx_timeline *tl, uint64_t n);
/* Where it stands at wall time t: iterations complete (*done), the iteration of the
 * last paid checkpoint (*saved, from_iter when none) and the paid checkpoints
 * (*ckpts). A stop during a checkpoint loses it. O(log total). */
void gx_timeline_at(const struct gx_timeline *tl, int64_t t, uint64_t *done, uint64_t *saved, uint32_t *ckpts);

#endif
