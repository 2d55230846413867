/* tests/device/gx_smoke.c: device smoke test of the cuda executor (gpu_exec/exec.h), standalone.
 * Needs only libc + libcuda.so.1 at run time (no hdf5/gsl/mpi like gpusched).
 *
 *   gx_smoke [SMS [COUNT [SMS2 COUNT2]]]
 *       SMS 0 = whole GPUs (COUNT must be <= devices); default 16 8: 8 virtual GPUs
 *       of 16 SMs (green contexts). A second group, e.g. `16 4 8 4`, is the real-mode
 *       experiment's footprint (experiments/real/device.sh): 4 x 16 + 4 x 8 SMs.
 * Checks, each printed as "ok"/"FAIL": open + calibration; a gang of 2 preempted
 * mid-way (progress in (0,1), saved <= progress, checkpoints counted); the same job
 * resumed from its checkpoint runs to completion (done callback, progress 1); every
 * virtual GPU busy at once finishes in about one job's time (no serialisation);
 * close. Each virtual GPU's calibration is printed (pace and spread). A watchdog
 * (SIGALRM, 55 s: device.sh gives the smoke 60) turns a hang into exit 3.
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "gpu_exec/exec.h"
#include "sim/sim.h"

static atomic_int n_done;
static int fails;

static void on_done(void *a, uint32_t job, uint64_t seq, int64_t t)
{
	(void)a;
	(void)t;
	(void)job;
	(void)seq;
	atomic_fetch_add(&n_done, 1);
}

static void on_alarm(int sig)
{
	(void)sig;
	static const char m[] = "FAIL: watchdog: hung for 55 s\n";
	(void)!write(2, m, sizeof m - 1);
	_exit(3);
}

static void msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static void check(int ok, const char *what)
{
	printf("%s: %s\n", ok ? "ok" : "FAIL", what);
	fflush(stdout);
	fails += !ok;
}

static void rep(const char *w, int rc, const struct gx_report *r)
{
	printf("  %s: rc=%d progress=%.4f saved=%.4f ckpts=%u wall=%.1f ms failed=%d %s\n", w, rc,
	       r->progress, r->saved, r->ckpts, (double)(r->end_ns - r->start_ns) / 1e6, r->failed, r->msg);
}

static int wait_done(int n, int ms)
{
	for (int i = 0; i < ms && atomic_load(&n_done) < n; i++)
		msleep(1);
	return atomic_load(&n_done) >= n;
}

int main(int argc, char **argv)
{
	signal(SIGALRM, on_alarm);
	alarm(55);
	uint32_t sms = argc > 1 ? (uint32_t)atoi(argv[1]) : 16;
	uint32_t count1 = argc > 2 ? (uint32_t)atoi(argv[2]) : 8;
	struct gx_group g[2] = { { "smoke", count1, sms }, { "smoke2", 0, 0 } };
	size_t n_groups = 1;
	if (argc > 4) {
		g[1].sms = (uint32_t)atoi(argv[3]);
		g[1].count = (uint32_t)atoi(argv[4]);
		n_groups = 2;
	}
	uint32_t count = count1 + g[1].count;
	struct gx_config cfg = { .backend = "cuda", .groups = g, .n_groups = n_groups, .done = on_done,
				 .verbose = 1, .fail_job = -1 };
	char err[256] = "";
	struct gx *x = NULL;
	int64_t t0 = gx_now_ns();
	int rc = gx_open(&cfg, &x, err, sizeof err);
	printf("open (%u x %u SMs + %u x %u): rc=%d (%s) %.0f ms %s\n", count1, sms, g[1].count, g[1].sms, rc,
	       sim_strerror(rc),
	       (double)(gx_now_ns() - t0) / 1e6, rc ? err : "");
	check(rc == 0, "open");
	if (rc)
		return 1;
	const struct gx_calibration *cal = gx_calibration(x);
	double it = cal->iter_ns[0];
	printf("describe: %s\ncalibration: %.1f us per iteration (group 0); warm-up %.2f s, %u passes\n",
	       gx_describe(x), it / 1e3, cal->warmup_s, cal->passes);
	for (size_t v = 0; v < cal->n_vgpus; v++)
		printf("  virtual GPU %zu: %u SMs, %.2f us per iteration, spread %.2f%%\n", v, cal->vgpu_sms[v],
		       cal->vgpu_iter_ns[v] / 1e3, 100 * cal->vgpu_spread[v]);
	check(it > 50e3 && it < 1e6, "calibration within 50 us .. 1 ms (target 200 us)");

	/* 1. gang of 2 (or 1), 2 s of work, checkpoints every 10%, preempted after ~1 s. */
	uint32_t gang[2] = { 0, count > 1 ? 1 : 0 };
	uint32_t ng = count > 1 ? 2 : 1;
	struct gx_segment s = { .job = 7, .seq = 1, .gpus = gang, .n_gpus = ng, .work_ns = 2000000000,
				.from = 0, .ckpt_every = 0.1, .ckpt_cost_ns = 20000000, .restore_ns = 50000000 };
	struct gx_report r;
	rc = gx_launch(x, &s, err, sizeof err);
	check(rc == 0, "launch gang");
	if (rc)
		printf("  %s\n", err);
	msleep(1000);
	t0 = gx_now_ns();
	rc = gx_preempt(x, 7, &r);
	double stop_ms = (double)(gx_now_ns() - t0) / 1e6;
	rep("preempt", rc, &r);
	printf("  preempt took %.2f ms\n", stop_ms);
	check(rc == 0 && !r.failed && r.progress > 0.2 && r.progress < 0.8, "preempt mid-way: progress in (0.2, 0.8)");
	check(r.saved <= r.progress && r.ckpts >= 1 && r.saved >= 0.1 * r.ckpts - 1e-3, "checkpoints saved");
	check(stop_ms < 50, "stop within 50 ms");
	check(atomic_load(&n_done) == 0, "no done callback for a preempted segment");

	/* 2. resume from the checkpoint, run to the end. */
	s.seq = 2;
	s.from = r.saved;
	double from = r.saved;
	rc = gx_launch(x, &s, err, sizeof err);
	check(rc == 0, "relaunch from checkpoint");
	int done = wait_done(1, 10000);
	check(done, "done callback after completion");
	rc = gx_reap(x, 7, &r);
	rep("reap", rc, &r);
	double expect_ms = (1 - from) * 2000 + 50 + 20.0 * (double)r.ckpts;
	printf("  expected about %.0f ms\n", expect_ms);
	check(rc == 0 && !r.failed && r.progress == 1.0, "completed: progress 1");
	check((double)(r.end_ns - r.start_ns) / 1e6 > 0.8 * expect_ms &&
		      (double)(r.end_ns - r.start_ns) / 1e6 < 1.3 * expect_ms, "wall time within -20%/+30% of expected");

	/* 3. every virtual GPU at once, 1 s each: they must overlap. */
	atomic_store(&n_done, 0);
	uint32_t *one = calloc(count, sizeof *one);
	t0 = gx_now_ns();
	for (uint32_t v = 0; v < count; v++) {
		one[v] = v;
		struct gx_segment sv = { .job = 100 + v, .seq = 10 + v, .gpus = &one[v], .n_gpus = 1,
					 .work_ns = 1000000000 };
		if (gx_launch(x, &sv, err, sizeof err))
			printf("  launch %u: %s\n", v, err);
	}
	done = wait_done((int)count, 20000);
	double all_ms = (double)(gx_now_ns() - t0) / 1e6;
	printf("  %u concurrent 1 s jobs took %.0f ms\n", count, all_ms);
	check(done && all_ms < 1500, "all virtual GPUs run concurrently (< 1.5 s)");
	for (uint32_t v = 0; v < count; v++) {
		rc = gx_reap(x, 100 + v, &r);
		if (rc || r.failed || r.progress != 1.0)
			rep("reap concurrent", rc, &r);
	}
	free(one);

	/* 4. close with a job running. */
	s.job = 8;
	s.seq = 99;
	s.from = 0;
	gx_launch(x, &s, err, sizeof err);
	msleep(100);
	t0 = gx_now_ns();
	gx_close(x);
	printf("close with a job running: %.1f ms\n", (double)(gx_now_ns() - t0) / 1e6);
	printf("%s: %d check(s) failed\n", fails ? "FAIL" : "PASS", fails);
	return fails ? 1 : 0;
}
