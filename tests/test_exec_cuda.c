/* tests/test_exec_cuda.c: the cuda backend's host code (gpu_exec/exec_cuda.c) against
 * a fake driver, tests/mock_cuda/libcuda_mock.c, since CI has no GPU.
 *
 * gpu_exec/cuda.cmake builds the fake as mock_cuda/libcuda.so.1 when it builds the
 * backend, and the build passes its path as MOCK_LIBCUDA; the suite points
 * GPUSCHED_LIBCUDA at it (and puts the variable back afterwards, so later suites
 * that spawn gpusched see no driver). The fake runs streams on threads and emulates
 * the gx_job kernel on its mapped words, an iteration lasting what its `chunk` says,
 * so calibration, progress, checkpoints and preemption behave as on a GPU, at
 * about the same wall times. Timing checks allow 2x: CI has 2 loaded cores, ASan.
 *
 * Without MOCK_LIBCUDA (no CUDA toolkit at build time) one test checks what
 * gx_open("cuda") says instead.
 */
#include <CUnit/CUnit.h>
#include <dlfcn.h>
#include <hdf5.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../analysis/h5read.h"
#include "../gpu_exec/drv_real.h"
#include "../gpu_exec/exec.h"
#include "../sim/sim.h"
#include "testutil.h"

#ifdef MOCK_LIBCUDA

#define CONFIG TEST_DATA_DIR "/real/preempt.json"
#define MS INT64_C(1000000) /* ns */

/* The fake's counters, from the same library exec_cuda.c loads. */
static void *mock_lib;
static int (*mock_violations)(void);
static int (*mock_misuse)(void);
static unsigned (*mock_chunk_of)(unsigned sms);
static char *saved_libcuda; /* GPUSCHED_LIBCUDA before the suite, or NULL */

static const char *const knobs[] = { "MOCK_NDEV", "MOCK_FAIL_TOTAL", "MOCK_FAIL_EVENT_RECORD",
				     "MOCK_DRV_VER", "MOCK_NO_GREEN", "MOCK_LAUNCH_DELAY_US", "MOCK_CLOCK_RAMP_MS",
				     "MOCK_CLOCK_SLOW", "MOCK_CLOCK_DRIFT", "MOCK_SMEM_PER_SM" };

static void knobs_clear(void)
{
	for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++)
		unsetenv(knobs[i]);
}

static int init_exec_cuda(void)
{
	const char *old = getenv("GPUSCHED_LIBCUDA");
	saved_libcuda = old ? strdup(old) : NULL;
	setenv("GPUSCHED_LIBCUDA", MOCK_LIBCUDA, 1);
	knobs_clear();
	mock_lib = dlopen(MOCK_LIBCUDA, RTLD_NOW | RTLD_LOCAL);
	if (!mock_lib) {
		fprintf(stderr, "exec_cuda: cannot load the fake driver %s: %s\n", MOCK_LIBCUDA, dlerror());
		return -1;
	}
	void *v = dlsym(mock_lib, "mock_cuda_violations"), *m = dlsym(mock_lib, "mock_cuda_misuse");
	if (!v || !m) {
		fprintf(stderr, "exec_cuda: %s has no mock_cuda_violations/mock_cuda_misuse\n", MOCK_LIBCUDA);
		return -1;
	}
	memcpy(&mock_violations, &v, sizeof v);
	memcpy(&mock_misuse, &m, sizeof m);
	void *c = dlsym(mock_lib, "mock_cuda_chunk_of");
	if (!c) {
		fprintf(stderr, "exec_cuda: %s has no mock_cuda_chunk_of\n", MOCK_LIBCUDA);
		return -1;
	}
	memcpy(&mock_chunk_of, &c, sizeof c);
	return 0;
}

static int clean_exec_cuda(void)
{
	knobs_clear();
	if (saved_libcuda)
		setenv("GPUSCHED_LIBCUDA", saved_libcuda, 1);
	else
		unsetenv("GPUSCHED_LIBCUDA");
	free(saved_libcuda);
	saved_libcuda = NULL;
	if (mock_lib)
		dlclose(mock_lib);
	mock_lib = NULL;
	return 0;
}

/* ---- helpers ---- */

/* The suite's usual split of one H200: 4 virtual GPUs of 16 SMs, 4 of 8. */
static const struct gx_group split[] = {
	{ .name = "fast", .count = 4, .sms = 16 },
	{ .name = "slow", .count = 4, .sms = 8 },
};

/* Opens the cuda backend on the fake; open_ok also prints why it failed. */
static int open_try(const struct gx_group *g, size_t n, struct tu_done_log *log, struct gx **x, char *err,
		    size_t errlen)
{
	struct gx_config cfg = { .backend = "cuda", .groups = g, .n_groups = n, .done = tu_done_cb,
				 .done_arg = log, .fail_job = -1 };
	*x = NULL;
	err[0] = '\0';
	return gx_open(&cfg, x, err, errlen);
}

static int open_ok(const struct gx_group *g, size_t n, struct tu_done_log *log, struct gx **x)
{
	char err[256];
	int rc = open_try(g, n, log, x, err, sizeof err);
	if (rc)
		fprintf(stderr, "gx_open(cuda): %s\n", err);
	return rc;
}

/* work_ns that the backend turns into exactly `iters` iterations on group g
 * (exec_cuda.c: total = work_ns / iter_ns + 0.5, rounded down). */
static int64_t work_for_iters(const struct gx *x, size_t g, uint64_t iters)
{
	return llround((double)iters * gx_calibration(x)->iter_ns[g]);
}

/* ---- open: SM split, calibration, what does not fit ---- */

static void test_exec_cuda_open_split_calibrate(void)
{
	struct tu_done_log log = TU_DONE_LOG_INIT;
	struct gx *x;
	CU_ASSERT_EQUAL_FATAL(open_ok(split, 2, &log, &x), 0);
	CU_ASSERT_STRING_EQUAL(gx_backend(x), "cuda");
	CU_ASSERT_STRING_EQUAL(gx_describe(x),
			       "NVIDIA H200 (132 SMs): 8 virtual GPUs, 4 x 16 SMs (fast), 4 x 8 SMs (slow)");
	const struct gx_calibration *cal = gx_calibration(x);
	CU_ASSERT_EQUAL_FATAL(cal->n_groups, 2);
	/* The fastest group is calibrated to the 200 us default; half the SMs take twice
	 * the work per SM: about twice as long. */
	const int fast_ok = cal->iter_ns[0] > 100e3 && cal->iter_ns[0] < 400e3;
	const double ratio = cal->iter_ns[1] / cal->iter_ns[0];
	const int slow_ok = ratio > 1.5 && ratio < 2.5;
	CU_ASSERT(fast_ok);
	CU_ASSERT(slow_ok);
	if (!fast_ok || !slow_ok)
		fprintf(stderr, "calibration: %.1f us, %.1f us per iteration\n", cal->iter_ns[0] / 1e3,
			cal->iter_ns[1] / 1e3);
	gx_close(x);
}

/* A busy host (every launch queued 3 ms late) and an idle clock (iterations 3
 * times as long at the first kernel, falling to their length over 300 ms): the
 * warm-up (>= 0.5 s) outlasts the ramp, the pads absorb the late launches, and
 * the slope cancels what is left, so every virtual GPU's pace is within 2% of the
 * fake device's own, chunk x 50 ns (MOCK_STEP_NS), after two passes that agreed.
 * (Timing each pass from before the launch was queued, as before, measured the
 * 3 ms of queuing as work: 3 ms over 50 iterations of 200 us is +30%.) */
static void test_exec_cuda_calibration_converges(void)
{
	struct tu_done_log log = TU_DONE_LOG_INIT;
	struct gx *x;
	setenv("MOCK_LAUNCH_DELAY_US", "3000", 1);
	setenv("MOCK_CLOCK_RAMP_MS", "300", 1);
	setenv("MOCK_CLOCK_SLOW", "3", 1);
	int rc = open_ok(split, 2, &log, &x);
	knobs_clear();
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	const struct gx_calibration *cal = gx_calibration(x);
	CU_ASSERT_EQUAL_FATAL(cal->n_vgpus, 8);
	CU_ASSERT(cal->warmup_s >= 0.5);
	CU_ASSERT(cal->passes >= 2 && cal->passes <= 10);
	double slowest[2] = { 0, 0 };
	for (size_t v = 0; v < cal->n_vgpus; v++) {
		const uint32_t sms = v < 4 ? 16 : 8;
		CU_ASSERT_EQUAL(cal->vgpu_sms[v], sms);
		CU_ASSERT_EQUAL(cal->vgpu_group[v], v < 4 ? 0 : 1);
		const double truth = 50.0 * mock_chunk_of(sms), got = cal->vgpu_iter_ns[v];
		CU_ASSERT(truth > 0);
		CU_ASSERT(fabs(got - truth) <= 0.02 * truth);
		CU_ASSERT(cal->vgpu_spread[v] >= 0 && cal->vgpu_spread[v] <= 0.02);
		if (fabs(got - truth) > 0.02 * truth)
			fprintf(stderr, "virtual GPU %zu: calibrated %.2f us, the fake's pace %.2f us\n", v, got / 1e3,
				truth / 1e3);
		slowest[v < 4 ? 0 : 1] = got > slowest[v < 4 ? 0 : 1] ? got : slowest[v < 4 ? 0 : 1];
	}
	/* A group plans at its slowest virtual GPU's pace. */
	CU_ASSERT_DOUBLE_EQUAL(cal->iter_ns[0], slowest[0], 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cal->iter_ns[1], slowest[1], 1e-9);
	gx_close(x);
}

/* A clock that never settles (every kernel 5% slower than the one before): no two
 * passes agree within 2%, and the backend refuses to start, saying which virtual
 * GPU and what it measured. */
static void test_exec_cuda_calibration_refuses(void)
{
	struct tu_done_log log = TU_DONE_LOG_INIT;
	struct gx *x;
	char err[512];
	setenv("MOCK_CLOCK_DRIFT", "5", 1);
	int rc = open_try(split, 2, &log, &x, err, sizeof err);
	knobs_clear();
	CU_ASSERT_EQUAL(rc, -SIM_EEXTERNAL);
	CU_ASSERT_PTR_NULL(x);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "calibration did not converge: virtual GPU "));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "after 10 passes"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "needs two within 2% of each other"));
	if (!strstr(err, "calibration did not converge"))
		fprintf(stderr, "gx_open said: %s\n", err);
}

/* One block an SM: gx_job reserves the most shared memory a block may have (the
 * fake's 227 KiB of 228), so the occupancy the driver reports is 1. A device whose
 * SMs had room for two such blocks (MOCK_SMEM_PER_SM = 600000: 600000 / (232448 +
 * 1024) = 2) would double them up: the open is refused before any launch. */
static void test_exec_cuda_one_block_per_sm(void)
{
	struct tu_done_log log = TU_DONE_LOG_INIT;
	struct gx *x;
	char err[512];
	const int misuse = mock_misuse();
	setenv("MOCK_SMEM_PER_SM", "600000", 1);
	int rc = open_try(split, 2, &log, &x, err, sizeof err);
	knobs_clear();
	CU_ASSERT_EQUAL(rc, -SIM_EEXTERNAL);
	CU_ASSERT_PTR_NULL(x);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "gx_job on virtual GPU 0: the driver reports 2 blocks of 256 threads "
					   "with 232448 bytes of shared memory each on one SM, expected exactly 1"));
	if (!strstr(err, "expected exactly 1"))
		fprintf(stderr, "gx_open said: %s\n", err);
	CU_ASSERT_EQUAL(mock_misuse(), misuse); /* refused by the backend, not by the fake's launch check */
}

/* SM counts round up to the device's partition unit (8 on an H200). */
static void test_exec_cuda_sms_round_up(void)
{
	struct tu_done_log log = TU_DONE_LOG_INIT;
	const struct gx_group g = { .name = "odd", .count = 2, .sms = 12 };
	struct gx *x;
	CU_ASSERT_EQUAL_FATAL(open_ok(&g, 1, &log, &x), 0);
	CU_ASSERT_STRING_EQUAL(gx_describe(x), "NVIDIA H200 (132 SMs): 2 virtual GPUs, 2 x 16 SMs (odd)");
	gx_close(x);
}

static void test_exec_cuda_groups_do_not_fit(void)
{
	struct tu_done_log log = TU_DONE_LOG_INIT;
	struct gx *x;
	char err[256];
	/* 9 x 16 = 144 > 132 SMs; in units of 8, 18 > 16. */
	const struct gx_group nine = { .name = "a", .count = 9, .sms = 16 };
	CU_ASSERT_EQUAL(gx_open(&(struct gx_config){ .backend = "cuda", .groups = &nine, .n_groups = 1,
						    .fail_job = -1 }, &x, err, sizeof err), -SIM_EINVAL);
	CU_ASSERT_PTR_NULL(x);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "groups need 9 x 16 SMs, device 0 (NVIDIA H200) has 132"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "granularity of 8 (16 units)"));
	/* One virtual GPU larger than the device. */
	const struct gx_group huge = { .name = "a", .count = 1, .sms = 200 };
	CU_ASSERT_EQUAL(open_try(&huge, 1, &log, &x, err, sizeof err), -SIM_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "groups need 1 x 200 SMs, device 0 (NVIDIA H200) has 132"));
}

/* Whole GPUs (sms 0): one device each, primary contexts. */
static void test_exec_cuda_whole_gpus(void)
{
	struct tu_done_log log = TU_DONE_LOG_INIT;
	struct gx *x;
	char err[256];
	setenv("MOCK_NDEV", "2", 1);
	const struct gx_group two = { .name = "h", .count = 2, .sms = 0 };
	CU_ASSERT_EQUAL_FATAL(open_ok(&two, 1, &log, &x), 0);
	CU_ASSERT_STRING_EQUAL(gx_describe(x),
			       "2 x NVIDIA H200 (132 SMs): 2 virtual GPUs, 2 x 132 SMs (whole GPU) (h)");
	uint32_t gpu = 1;
	const struct gx_segment sg = { .job = 1, .seq = 1, .gpus = &gpu, .n_gpus = 1, .work_ns = 20 * MS };
	CU_ASSERT_EQUAL_FATAL(gx_launch(x, &sg, err, sizeof err), 0);
	CU_ASSERT_FATAL(tu_done_wait(&log, 1, 60000));
	struct gx_report r;
	CU_ASSERT_EQUAL(gx_reap(x, 1, &r), 0);
	CU_ASSERT_EQUAL(r.failed, 0);
	CU_ASSERT_DOUBLE_EQUAL(r.progress, 1.0, 0);
	gx_close(x);
	const struct gx_group three = { .name = "h", .count = 3, .sms = 0 };
	CU_ASSERT_EQUAL(open_try(&three, 1, &log, &x, err, sizeof err), -SIM_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "groups need 3 whole GPUs, found 2 devices"));
	unsetenv("MOCK_NDEV");
}

/* What a missing or old driver, or no device, makes gx_open say. */
static void test_exec_cuda_driver_problems(void)
{
	struct tu_done_log log = TU_DONE_LOG_INIT;
	struct gx *x;
	char err[512];
	setenv("GPUSCHED_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
	CU_ASSERT_EQUAL(open_try(split, 2, &log, &x, err, sizeof err), -SIM_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "no CUDA driver: cannot load /nonexistent/libcuda.so.1 "
					   "(GPUSCHED_LIBCUDA)"));
	setenv("GPUSCHED_LIBCUDA", MOCK_LIBCUDA, 1);

	setenv("MOCK_DRV_VER", "11080", 1);
	CU_ASSERT_EQUAL(open_try(split, 2, &log, &x, err, sizeof err), -SIM_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "CUDA driver too old: libcuda.so.1 supports CUDA 11.8"));
	unsetenv("MOCK_DRV_VER");

	setenv("MOCK_NO_GREEN", "1", 1);
	CU_ASSERT_EQUAL(open_try(split, 2, &log, &x, err, sizeof err), -SIM_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "need green contexts"));
	unsetenv("MOCK_NO_GREEN");

	setenv("MOCK_NDEV", "0", 1);
	CU_ASSERT_EQUAL(open_try(split, 2, &log, &x, err, sizeof err), -SIM_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "cuInit: CUDA_ERROR_NO_DEVICE"));
	unsetenv("MOCK_NDEV");
	CU_ASSERT_PTR_NULL(x);
}

/* ---- segments ---- */

/* A gang of 2 on the 16-SM GPUs: 1500 iterations (~300 ms, x slow) of work, a
 * checkpoint every 25% costing 10 ms, restore 20 ms (x slow). Stopped at ~43% of its
 * time it has done ~40% and saved 25%; resumed from there it runs the remaining 75%
 * with two more checkpoints. 1500 iterations, a multiple of 4: with a total that
 * 0.25 x total rounds down for (1501: every 375), both backends checkpoint once
 * more, at iteration 1500, one before the end (`k % ckpt_iters == 0 && k < total`).
 * Asserted: what holds however late the stream threads run; returned: the timing
 * a late thread can break (tu_retry_slower tries again with every duration longer). */
static int attempt_preempt_resume(void *arg, int slow)
{
	(void)arg;
	struct tu_done_log log = TU_DONE_LOG_INIT;
	struct gx *x;
	char err[256];
	CU_ASSERT_EQUAL_FATAL(open_ok(split, 2, &log, &x), 0);
	const uint32_t gpus[2] = { 0, 1 };
	struct gx_segment sg = { .job = 7, .seq = 1, .gpus = gpus, .n_gpus = 2,
				 .work_ns = work_for_iters(x, 0, 1500 * (uint64_t)slow), .ckpt_every = 0.25,
				 .ckpt_cost_ns = 10 * MS * slow, .restore_ns = 20 * MS * slow };
	const double work_ms = (double)sg.work_ns / 1e6;
	CU_ASSERT_EQUAL_FATAL(gx_launch(x, &sg, err, sizeof err), 0);
	tu_sleep_ms(0.43 * work_ms);
	const int64_t t_stop = gx_now_ns();
	struct gx_report r;
	CU_ASSERT_EQUAL_FATAL(gx_preempt(x, 7, &r), 0);
	/* The kernels poll the flag once per iteration (200 us). */
	const double stop_ms = (double)(gx_now_ns() - t_stop) / 1e6;
	int timely = stop_ms < 50.0 * slow;
	CU_ASSERT_EQUAL(tu_done_count(&log), 0); /* a preempted segment is not "done" */
	CU_ASSERT_EQUAL(r.failed, 0);
	CU_ASSERT(r.progress >= 0 && r.progress < 1);
	CU_ASSERT(r.saved <= r.progress);
	CU_ASSERT_DOUBLE_EQUAL(r.saved, 0.25 * r.ckpts, 0.01);
	const double ran_ms = (double)(r.end_ns - r.start_ns) / 1e6;
	timely &= r.progress > 0 && r.ckpts >= 1 && ran_ms >= 0.4 * work_ms && ran_ms < 0.43 * work_ms * 2;
	CU_ASSERT_EQUAL(gx_preempt(x, 7, &r), -SIM_ESTATE); /* nothing runs any more */

	sg.seq = 2;
	sg.from = r.saved;
	const uint32_t left = 3 - r.ckpts; /* checkpoints still ahead: 0.5, 0.75 (of 0.25 .. 0.75) */
	const double want_ms = 20.0 * slow + (1 - r.saved) * work_ms + 10.0 * slow * left;
	const int64_t t0 = gx_now_ns();
	CU_ASSERT_EQUAL_FATAL(gx_launch(x, &sg, err, sizeof err), 0);
	CU_ASSERT_FATAL(tu_done_wait(&log, 1, 60000)); /* a limit on waiting, not on speed */
	CU_ASSERT_EQUAL(log.job, 7);
	CU_ASSERT_EQUAL(log.seq, 2);
	CU_ASSERT_EQUAL(gx_reap(x, 7, &r), 0);
	CU_ASSERT_EQUAL(r.failed, 0);
	CU_ASSERT_DOUBLE_EQUAL(r.progress, 1.0, 0);
	CU_ASSERT_EQUAL(r.ckpts, left);
	CU_ASSERT_DOUBLE_EQUAL(r.saved, 0.75, 0.01);
	if (r.ckpts != left || fabs(r.saved - 0.75) > 0.01)
		fprintf(stderr, "resumed from %.4f: %u checkpoints (expected %u), saved %.4f\n", sg.from,
			r.ckpts, left, r.saved);
	const double ms = (double)(r.end_ns - t0) / 1e6;
	CU_ASSERT(ms > 0.8 * want_ms); /* the kernels are paced on deadlines: never early */
	timely &= ms < 2 * want_ms;
	if (!timely)
		fprintf(stderr, "note: stop %.1f ms after the request, ran %.1f of %.1f ms; resumed segment "
				"%.1f ms, expected %.1f ms\n", stop_ms, ran_ms, work_ms, ms, want_ms);
	CU_ASSERT_EQUAL(gx_reap(x, 7, &r), -SIM_ESTATE);
	gx_close(x);
	return timely;
}

static void test_exec_cuda_preempt_resume(void)
{
	CU_ASSERT(tu_retry_slower(attempt_preempt_resume, NULL) > 0);
}

/* A kernel fault half-way: the segment fails with the error's name, the done
 * callback fires (the stream callback runs after a fault too). The gang's progress
 * is its slowest kernel's, at most the half-way point where both fail; a stream
 * thread the machine runs late may be further behind (returned, for a retry). */
static int attempt_kernel_failure(void *arg, int slow)
{
	(void)arg;
	struct tu_done_log log = TU_DONE_LOG_INIT;
	struct gx *x;
	char err[256];
	CU_ASSERT_EQUAL_FATAL(open_ok(split, 2, &log, &x), 0);
	const uint32_t gpus[2] = { 2, 3 };
	const uint64_t iters = 400 * (uint64_t)slow;
	const struct gx_segment sg = { .job = 5, .seq = 11, .gpus = gpus, .n_gpus = 2,
				       .work_ns = work_for_iters(x, 0, iters) };
	char total[32];
	snprintf(total, sizeof total, "%llu", (unsigned long long)iters);
	setenv("MOCK_FAIL_TOTAL", total, 1);
	const int rc = gx_launch(x, &sg, err, sizeof err);
	unsetenv("MOCK_FAIL_TOTAL");
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_FATAL(tu_done_wait(&log, 1, 60000));
	CU_ASSERT_EQUAL(log.job, 5);
	CU_ASSERT_EQUAL(log.seq, 11);
	struct gx_report r;
	CU_ASSERT_EQUAL(gx_reap(x, 5, &r), 0);
	CU_ASSERT_EQUAL(r.failed, 1);
	CU_ASSERT(r.progress >= 0 && r.progress <= 0.5);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.msg, "job 5: kernel on virtual GPU"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.msg, "CUDA_ERROR_ILLEGAL_ADDRESS"));
	if (!strstr(r.msg, "CUDA_ERROR_ILLEGAL_ADDRESS"))
		fprintf(stderr, "failed segment: %s\n", r.msg);
	const int timely = r.progress > 0.4;
	if (!timely)
		fprintf(stderr, "note: failed gang's progress %.3f\n", r.progress);
	gx_close(x);
	return timely;
}

static void test_exec_cuda_kernel_failure(void)
{
	CU_ASSERT(tu_retry_slower(attempt_kernel_failure, NULL) > 0);
}

/* A launch that fails part-way (the second kernel's event) leaves nothing running:
 * the first kernel is stopped, no done callback, and the job can launch again. */
static void test_exec_cuda_launch_failure(void)
{
	struct tu_done_log log = TU_DONE_LOG_INIT;
	struct gx *x;
	char err[256];
	CU_ASSERT_EQUAL_FATAL(open_ok(split, 2, &log, &x), 0);
	const uint32_t gpus[2] = { 4, 5 };
	struct gx_segment sg = { .job = 2, .seq = 1, .gpus = gpus, .n_gpus = 2, .work_ns = 5000 * MS };
	setenv("MOCK_FAIL_EVENT_RECORD", "2", 1);
	const int64_t t0 = gx_now_ns();
	const int rc = gx_launch(x, &sg, err, sizeof err);
	unsetenv("MOCK_FAIL_EVENT_RECORD");
	CU_ASSERT(rc < 0);
	CU_ASSERT(gx_now_ns() - t0 < sg.work_ns); /* the queued kernel was stopped, not waited out */
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "cuEventRecord (job 2, virtual GPU 5): "
					   "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"));
	struct gx_report r;
	CU_ASSERT_EQUAL(gx_preempt(x, 2, &r), -SIM_ESTATE);
	sg.seq = 2;
	sg.work_ns = 10 * MS;
	CU_ASSERT_EQUAL_FATAL(gx_launch(x, &sg, err, sizeof err), 0);
	CU_ASSERT_FATAL(tu_done_wait(&log, 1, 60000));
	CU_ASSERT_EQUAL(log.seq, 2); /* only the second launch ended by itself */
	CU_ASSERT_EQUAL(gx_reap(x, 2, &r), 0);
	CU_ASSERT_EQUAL(r.failed, 0);
	gx_close(x);
}

/* gx_close stops what runs (at its next iteration) and fires no done callback. */
static void test_exec_cuda_close_with_job_running(void)
{
	struct tu_done_log log = TU_DONE_LOG_INIT;
	struct gx *x;
	char err[256];
	CU_ASSERT_EQUAL_FATAL(open_ok(split, 2, &log, &x), 0);
	const uint32_t gpus[2] = { 3, 7 };
	const struct gx_segment sg = { .job = 9, .seq = 1, .gpus = gpus, .n_gpus = 2, .work_ns = 10000 * MS };
	CU_ASSERT_EQUAL_FATAL(gx_launch(x, &sg, err, sizeof err), 0);
	tu_sleep_ms(20);
	const int64_t t0 = gx_now_ns();
	gx_close(x);
	CU_ASSERT(gx_now_ns() - t0 < sg.work_ns - 20 * MS); /* stopped, not waited out */
	CU_ASSERT_EQUAL(tu_done_count(&log), 0);
}

/* ---- the whole mode ---- */

/* The results file's calibration of each virtual GPU (/runs/<run>/real/calibration_vgpus
 * and its attributes passes and warmup_s), read raw: 2 virtual GPUs of 16 SMs, each
 * with a pace and a spread within the 2% its two passes had to agree by. */
static void check_calibration_in_file(const char *path)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	CU_ASSERT_FATAL(f >= 0);
	hid_t g = H5Gopen2(f, "/runs/priority-s1/real", H5P_DEFAULT);
	CU_ASSERT_FATAL(g >= 0);
	struct row {
		uint32_t vgpu, sms;
		double iter_ns, spread;
	} rows[4];
	hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(struct row));
	H5Tinsert(t, "vgpu", offsetof(struct row, vgpu), H5T_NATIVE_UINT32);
	H5Tinsert(t, "sms", offsetof(struct row, sms), H5T_NATIVE_UINT32);
	H5Tinsert(t, "iter_ns", offsetof(struct row, iter_ns), H5T_NATIVE_DOUBLE);
	H5Tinsert(t, "spread", offsetof(struct row, spread), H5T_NATIVE_DOUBLE);
	hid_t d = H5Dopen2(g, "calibration_vgpus", H5P_DEFAULT);
	CU_ASSERT_FATAL(d >= 0);
	double passes = 0, warm = 0;
	hid_t a = H5Aopen(d, "passes", H5P_DEFAULT);
	CU_ASSERT(a >= 0 && H5Aread(a, H5T_NATIVE_DOUBLE, &passes) >= 0);
	H5Aclose(a);
	a = H5Aopen(d, "warmup_s", H5P_DEFAULT);
	CU_ASSERT(a >= 0 && H5Aread(a, H5T_NATIVE_DOUBLE, &warm) >= 0);
	H5Aclose(a);
	CU_ASSERT(passes >= 2 && passes <= 10);
	CU_ASSERT(warm >= 0.5);
	hid_t sp = H5Dget_space(d);
	hssize_t n = H5Sget_simple_extent_npoints(sp);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0);
	for (int i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(rows[i].vgpu, (uint32_t)i);
		CU_ASSERT_EQUAL(rows[i].sms, 16);
		CU_ASSERT(rows[i].iter_ns > 0);
		CU_ASSERT(rows[i].spread >= 0 && rows[i].spread <= 0.02);
	}
	H5Sclose(sp);
	H5Dclose(d);
	H5Tclose(t);
	H5Gclose(g);
	H5Fclose(f);
}

/* `gpusched real preempt.json --backend cuda --sms a=16 --time-scale 100`, in this
 * process: the schedule of tests/test_real.c, on 16-SM green contexts. The schedule
 * is asserted; where j1 stood when stopped at 50 s is timing, and a run that missed
 * it is made again at a longer time scale (100 / slow). */
static int attempt_real_run(void *arg, int slow)
{
	(void)arg;
	char out[4096];
	snprintf(out, sizeof out, "%s/real_cuda.h5", tu_tmpdir());
	const struct real_opts ro = { .backend = "cuda", .time_scale = 100.0 / slow, .sms = "a=16", .fail_job = -1 };
	CU_ASSERT_EQUAL_FATAL(tu_run_config(CONFIG, out, &ro), 0);
	struct sim_diag diag;
	sim_diag_init(&diag, 5);
	struct h5read_file *f = NULL;
	struct h5read_jobs j;
	struct h5read_real r;
	struct h5read_decisions dec;
	memset(&j, 0, sizeof j);
	memset(&r, 0, sizeof r);
	memset(&dec, 0, sizeof dec);
	CU_ASSERT_EQUAL_FATAL(h5read_open(out, &f, &diag), 0);
	CU_ASSERT_STRING_EQUAL(h5read_root_attr(f, "backend"), "cuda");
	CU_ASSERT_EQUAL_FATAL(h5read_jobs(f, "priority-s1", &j, &diag), 0);
	CU_ASSERT_EQUAL_FATAL(h5read_real(f, "priority-s1", &r, &diag), 0);
	CU_ASSERT_EQUAL_FATAL(h5read_decisions(f, "priority-s1", &dec, &diag), 0);
	CU_ASSERT_EQUAL(j.n, 4);
	for (size_t i = 0; i < j.n; i++) {
		CU_ASSERT_STRING_EQUAL(j.state[i], "completed");
		CU_ASSERT_EQUAL(j.preemptions[i], strcmp(j.id[i], "j1") == 0 ? 1 : 0);
	}
	CU_ASSERT_PTR_NOT_NULL(strstr(r.device, "16 SMs"));
	check_calibration_in_file(out);
	/* j1's two segments: stopped at 50 s having saved its 30 s checkpoint, then
	 * resumed from exactly that. */
	CU_ASSERT_EQUAL_FATAL(r.segments.n, 5);
	int first = -1, second = -1;
	for (size_t i = 0; i < r.segments.n; i++)
		if (strcmp(r.segments.id[i], "j1") == 0)
			*(first < 0 ? &first : &second) = (int)i;
	CU_ASSERT_FATAL(first >= 0 && second >= 0);
	CU_ASSERT_STRING_EQUAL(r.segments.outcome[first], "preempted");
	CU_ASSERT_STRING_EQUAL(r.segments.outcome[second], "completed");
	const double saved = r.segments.saved[first], done = r.segments.done[first];
	CU_ASSERT(done >= saved);
	CU_ASSERT_DOUBLE_EQUAL(r.segments.from[second], saved, 0);
	/* The engine's lost work is what the kernel lost: 1 GPU x (done - saved) x 100 s. */
	CU_ASSERT_EQUAL_FATAL(dec.n, 1);
	CU_ASSERT_STRING_EQUAL(dec.victim[0], "j1");
	CU_ASSERT_DOUBLE_EQUAL(dec.lost_gpu_s[0], (done - saved) * 100.0, 1e-9);
	const int timely = fabs(saved - 0.30) <= 1e-3 && done > saved && done < 0.7 &&
			   fabs(dec.lost_gpu_s[0] - 17.0) <= 8.5;
	if (!timely)
		fprintf(stderr, "note: j1 stopped with %.3f done, %.3f saved, %.2f GPU-s lost\n", done, saved,
			dec.lost_gpu_s[0]);
	h5read_decisions_free(&dec);
	h5read_real_free(&r);
	h5read_jobs_free(&j);
	h5read_close(f);
	sim_diag_fini(&diag);
	return timely;
}

static void test_exec_cuda_real_run(void)
{
	CU_ASSERT(tu_retry_slower(attempt_real_run, NULL) > 0);
}

/* Last: over the whole suite, exec_cuda.c made no CUDA call from a stream callback
 * and every call kept the API's contract as the fake checks it. */
/* Faults drive the cuda executor too (tests/data/real/crash.json, hand-computed in
 * crash.csv): each segment's crash stops its kernel, the job restarts from the
 * checkpoint the kernel saved, and every job completes after the 2 crashes, with
 * 38 GPU-s lost. Asserted on every attempt: the crash count and that every job
 * completes. Returned, for a retry at a longer time scale: lost work of at least 38
 * GPU-s (less 0.1). On the fake driver the work a stopped kernel reports follows
 * its calibrated pace, which a busy host (ASan, other load) leaves about 2% off at
 * scale 100, so this bound is a timing relation like the others of this suite, not
 * one that holds however late a thread runs (on the cpu backend it is: test_real). */
static int attempt_crashes(void *arg, int slow)
{
	(void)arg;
	char out[4096];
	snprintf(out, sizeof out, "%s/crash_cuda.h5", tu_tmpdir());
	const struct real_opts ro = { .backend = "cuda", .time_scale = 100.0 / slow, .sms = "a=16", .fail_job = -1 };
	CU_ASSERT_EQUAL_FATAL(tu_run_config(TEST_DATA_DIR "/real/crash.json", out, &ro), 0);
	struct tu_result res;
	tu_result_open(&res, out, "fifo-s1");
	CU_ASSERT_EQUAL(h5read_summary_get(&res.sum, 0, "crashes"), 2);
	const double lost = h5read_summary_get(&res.sum, 0, "lost_crashed_gpu_s");
	CU_ASSERT_EQUAL(res.jobs.n, 3);
	for (size_t i = 0; i < res.jobs.n; i++)
		CU_ASSERT_STRING_EQUAL(res.jobs.state[i], "completed");
	int timely = lost >= 38.0 - 0.1;
	if (!timely)
		fprintf(stderr, "note: cuda crashes at scale %g: lost %.2f GPU-s (38 expected)\n", ro.time_scale, lost);
	tu_result_close(&res);
	return timely;
}

static void test_exec_cuda_crashes(void)
{
	CU_ASSERT(tu_retry_slower(attempt_crashes, NULL) > 0);
}

/* Hangs drive the cuda executor too (tests/data/real/hang.json, hang_undetected.json,
 * hand-computed in hang.csv): at each hang the host raises the kernel's flag to
 * GX_FLAG_HANG, the (fake) kernel stops advancing its counters and holds its stream
 * until the kill raises the flag to stop; the kill measures the work at the hang.
 * tu_hang_attempt asserts what holds however late a thread runs and returns the
 * timing, retried at longer time scales. */
static int attempt_hang(void *arg, int slow)
{
	return tu_hang_attempt(arg, slow);
}

static void test_exec_cuda_hangs(void)
{
	for (int detect = 1; detect >= 0; detect--) {
		struct tu_hang_case c = { .backend = "cuda", .sms = "a=16", .detect = detect };
		CU_ASSERT(tu_retry_slower(attempt_hang, &c) > 0);
	}
}

/* Fail-slow nodes drive the cuda executor too (the engine calls gx_slow at each rate
 * change; the host sets each kernel's slow_ns, the fake kernel's iterations last
 * that much longer): test_real's case on a 1-GPU node (the fake's stream threads
 * keep pace on a loaded host for one kernel, not for a gang of 8), at half speed for
 * 100 s after every 50 s: s1 (200 s of work) ends at 300 s where a kernel not slowed
 * would end at 200. Asserted on every attempt: it completes after 2 episodes. Returned, for
 * a retry at a longer time scale: its end within 3% of 300 s (the fake kernel's
 * calibrated pace is a timing relation here, as for the crashes above). */
static int attempt_slow(void *arg, int slow)
{
	(void)arg;
	const char *tr = tu_write_file("slow_cuda.csv", "id,submit_s,duration_s,request\ns1,0,200,a:gpu=1\n");
	char cfg[2048], out[4096];
	snprintf(cfg, sizeof cfg,
		 "{\"name\": \"cuda-slow\", \"trace\": {\"path\": \"%s\"}, \"cluster\": {\"flavors\": [{\"name\":"
		 " \"a\", \"nodes\": 1, \"node\": {\"gpu\": 1}}], \"fail_slow\": {\"distribution\": \"fixed\","
		 " \"mtbs_h\": 0.013888888888888888, \"factor\": 0.5, \"period\": {\"distribution\": \"fixed\","
		 " \"mean_s\": 100}}}, \"seeds\": [1], \"output\": \"x.h5\"}",
		 tr);
	const char *cp = tu_write_file("slow_cuda.json", cfg);
	snprintf(out, sizeof out, "%s/slow_cuda.h5", tu_tmpdir());
	const struct real_opts ro = { .backend = "cuda", .time_scale = 100.0 / slow, .sms = "a=16", .fail_job = -1 };
	CU_ASSERT_EQUAL_FATAL(tu_run_config(cp, out, &ro), 0);
	struct tu_result res;
	tu_result_open(&res, out, "fifo-s1");
	CU_ASSERT_EQUAL_FATAL(res.jobs.n, 1);
	CU_ASSERT_STRING_EQUAL(res.jobs.state[0], "completed");
	CU_ASSERT_EQUAL(h5read_summary_get(&res.sum, 0, "slow_episodes"), 2);
	const int timely = fabs(res.jobs.end_s[0] - 300) <= 9;
	if (!timely)
		fprintf(stderr, "note: cuda fail-slow at scale %g: end %.2f s (300 expected)\n", ro.time_scale, res.jobs.end_s[0]);
	tu_result_close(&res);
	return timely;
}

static void test_exec_cuda_slow(void)
{
	CU_ASSERT(tu_retry_slower(attempt_slow, NULL) > 0);
}

static void test_exec_cuda_no_violations(void)
{
	CU_ASSERT_EQUAL(mock_violations(), 0);
	CU_ASSERT_EQUAL(mock_misuse(), 0);
}

static CU_TestInfo exec_cuda_tests[] = {
	{ "calibration: busy host, clock ramp: within 2% of the device", test_exec_cuda_calibration_converges },
	{ "crashes stop kernels, jobs restart from their checkpoints", test_exec_cuda_crashes },
	{ "hangs freeze kernels until their kill, detected and not", test_exec_cuda_hangs },
	{ "fail-slow nodes slow kernels down as simulated", test_exec_cuda_slow },
	{ "calibration: a clock that never settles refuses the open", test_exec_cuda_calibration_refuses },
	{ "one block an SM, from the driver's occupancy", test_exec_cuda_one_block_per_sm },
	{ "open: SM split and calibration", test_exec_cuda_open_split_calibrate },
	{ "open: SM counts round up to the partition unit", test_exec_cuda_sms_round_up },
	{ "open: groups that do not fit", test_exec_cuda_groups_do_not_fit },
	{ "open: whole GPUs", test_exec_cuda_whole_gpus },
	{ "open: no driver, old driver, no device", test_exec_cuda_driver_problems },
	{ "gang: preempt mid-way, resume from checkpoint", test_exec_cuda_preempt_resume },
	{ "kernel failure", test_exec_cuda_kernel_failure },
	{ "launch failure leaves nothing running", test_exec_cuda_launch_failure },
	{ "close with a job running", test_exec_cuda_close_with_job_running },
	{ "gpusched real --backend cuda --sms a=16", test_exec_cuda_real_run },
	{ "no CUDA call from callbacks, no misuse", test_exec_cuda_no_violations },
	CU_TEST_INFO_NULL,
};

#else /* !MOCK_LIBCUDA */

static int init_exec_cuda(void)
{
	return 0;
}

static int clean_exec_cuda(void)
{
	return 0;
}

/* No fake driver in this build: without the toolkit gx_open says so; with it (a
 * CMakeLists.txt that does not pass MOCK_LIBCUDA) there is nothing to run. */
static void test_exec_cuda_without_fake_driver(void)
{
#ifdef SIM_HAVE_CUDA
	printf("\n  exec_cuda: no MOCK_LIBCUDA in this build, cuda backend not exercised ");
#else
	const struct gx_group g = { .name = "a", .count = 1 };
	const struct gx_config cfg = { .backend = "cuda", .groups = &g, .n_groups = 1, .fail_job = -1 };
	struct gx *x = NULL;
	char err[256];
	CU_ASSERT_EQUAL(gx_open(&cfg, &x, err, sizeof err), -SIM_EINVAL);
	CU_ASSERT_PTR_NULL(x);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "built without the CUDA toolkit"));
#endif
}

static CU_TestInfo exec_cuda_tests[] = {
	{ "without the fake driver", test_exec_cuda_without_fake_driver },
	CU_TEST_INFO_NULL,
};

#endif /* MOCK_LIBCUDA */

CU_SuiteInfo exec_cuda_suite = { "exec_cuda", init_exec_cuda, clean_exec_cuda, NULL, NULL, exec_cuda_tests };
