/* gpu_exec/exec_cpu.c: the cpu backend. A thread stands in for a running job's GPUs.
 *
 * Each segment is one thread running the protocol of exec.h: iterations of a
 * calibrated busy loop, each paced to one tick of wall time (iter_ns, default
 * 500 us): the loop burns DUTY of the tick and sleeps to the tick's end on an
 * absolute deadline, so a job takes its scaled time whatever else runs, and a
 * machine with fewer cores than running jobs still keeps up (10% of a core per
 * running job). A thread that the machine runs late (a busy host) skips the burn
 * of every tick already past its deadline, as a GPU does not wait for the host's
 * CPUs: the work done follows the wall clock, only its reports come late. The preempt flag is polled once per tick, also while the thread
 * sleeps through a checkpoint or a restore, so a stop takes at most one tick.
 *
 * All the job's GPUs share its one thread: GPU identity matters to the cuda
 * backend only.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../sim/sim.h"
#include "exec.h"

#define CPU_DEFAULT_TICK_NS 500000 /* 500 us */
#define CPU_DUTY 0.10              /* share of a tick spent computing */

struct cpu_seg {
	struct cpu_exec *x;
	uint32_t job;
	uint64_t seq;
	uint64_t total, from_iter, ckpt_iters; /* iterations of the whole job */
	int64_t ckpt_cost_ns, restore_ns;
	atomic_int stop;
	atomic_uint_least64_t progress, saved; /* iterations done, saved at the last checkpoint */
	uint32_t ckpts;
	int64_t start_ns, end_ns;
	int completed;
	uint64_t fail_at;      /* iteration at which it fails (injected), 0 = never */
	pthread_t thread;
};

struct cpu_exec {
	int64_t tick_ns;
	uint64_t burn_units;   /* busy-loop units in CPU_DUTY of a tick */
	gx_done_fn done;
	void *done_arg;
	int64_t fail_job;
	struct cpu_seg **segs; /* by job index; NULL = nothing launched for it */
	size_t n_segs;
	struct gx_calibration cal;
	char desc[160];
};

/* The busy loop: `units` rounds of xorshift64, kept alive through a volatile sink. */
static volatile uint64_t burn_sink;
static void burn(uint64_t units)
{
	uint64_t v = burn_sink | 1;
	for (uint64_t i = 0; i < units; i++) {
		v ^= v << 13;
		v ^= v >> 7;
		v ^= v << 17;
	}
	burn_sink = v;
}

/* Units of burn() that take CPU_DUTY of a tick: the fastest of a few trials, so a
 * trial slowed by another process does not make every tick shorter. */
static uint64_t calibrate_burn(int64_t tick_ns)
{
	const uint64_t trial = 200000;
	int64_t best = INT64_MAX;
	for (int k = 0; k < 5; k++) {
		int64_t t0 = gx_now_ns();
		burn(trial);
		int64_t dt = gx_now_ns() - t0;
		if (dt > 0 && dt < best)
			best = dt;
	}
	if (best == INT64_MAX)
		best = 1;
	double units = (double)trial * CPU_DUTY * (double)tick_ns / (double)best;
	return units < 1 ? 1 : (uint64_t)units;
}

static void sleep_until(int64_t t_ns)
{
	struct timespec ts = { .tv_sec = t_ns / SIM_NS_PER_S, .tv_nsec = t_ns % SIM_NS_PER_S };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* Sleeps until t_ns, waking once a tick to look at the stop flag. Returns 1 if it
 * was raised. */
static int wait_until_or_stop(struct cpu_seg *s, int64_t t_ns)
{
	for (;;) {
		if (atomic_load(&s->stop))
			return 1;
		int64_t now = gx_now_ns();
		if (now >= t_ns)
			return 0;
		sleep_until(t_ns - now > s->x->tick_ns ? now + s->x->tick_ns : t_ns);
	}
}

/* The job's workload: restore, then iterations with checkpoints (exec.h). */
static void *seg_main(void *arg)
{
	struct cpu_seg *s = arg;
	const int64_t tick = s->x->tick_ns;
	int64_t t = s->start_ns;
	int stopped = 0;
	if (s->from_iter > 0 && s->restore_ns > 0)
		stopped = wait_until_or_stop(s, t += s->restore_ns);
	uint64_t it = s->from_iter;
	while (!stopped && it < s->total) {
		if (atomic_load(&s->stop)) {
			stopped = 1;
			break;
		}
		/* A GPU's pace does not depend on the host's CPUs: a thread the machine ran
		 * late skips the burn of the ticks already due and catches up on the clock,
		 * so a busy host delays when progress is seen, never how much is made. */
		if (gx_now_ns() < t + tick)
			burn(s->x->burn_units);
		atomic_store(&s->progress, ++it);
		if (it == s->fail_at)
			break;
		if ((stopped = wait_until_or_stop(s, t += tick)))
			break;
		if (s->ckpt_iters && it % s->ckpt_iters == 0 && it < s->total) {
			/* The checkpoint counts once its cost is paid; a stop during it loses it. */
			if ((stopped = wait_until_or_stop(s, t += s->ckpt_cost_ns)))
				break;
			atomic_store(&s->saved, it);
			s->ckpts++;
		}
	}
	s->end_ns = gx_now_ns();
	if (!stopped && (it >= s->total || it == s->fail_at)) {
		s->completed = it >= s->total;
		s->x->done(s->x->done_arg, s->job, s->seq, s->end_ns);
	}
	return NULL;
}

static int cpu_open(const struct gx_config *cfg, void **priv, char *err, size_t errlen)
{
	struct cpu_exec *x = calloc(1, sizeof *x);
	if (x)
		x->cal.iter_ns = calloc(cfg->n_groups ? cfg->n_groups : 1, sizeof *x->cal.iter_ns);
	if (!x || !x->cal.iter_ns) {
		free(x);
		snprintf(err, errlen, "out of memory");
		return -SIM_ENOMEM;
	}
	x->tick_ns = cfg->iter_ns > 0 ? cfg->iter_ns : CPU_DEFAULT_TICK_NS;
	x->burn_units = calibrate_burn(x->tick_ns);
	x->done = cfg->done;
	x->done_arg = cfg->done_arg;
	x->fail_job = cfg->fail_job;
	x->cal.n_groups = cfg->n_groups;
	uint64_t gpus = 0;
	for (size_t g = 0; g < cfg->n_groups; g++) {
		x->cal.iter_ns[g] = (double)x->tick_ns; /* paced: every group runs at the tick */
		gpus += cfg->groups[g].count;
	}
	snprintf(x->desc, sizeof x->desc, "cpu: %llu virtual GPUs as threads, %.0f us ticks at %.0f%% duty",
		 (unsigned long long)gpus, (double)x->tick_ns / 1e3, CPU_DUTY * 100);
	if (cfg->verbose)
		fprintf(stderr, "real: %s (%llu busy-loop units a tick)\n", x->desc,
			(unsigned long long)x->burn_units);
	*priv = x;
	return 0;
}

static int seg_slot_reserve(struct cpu_exec *x, uint32_t job)
{
	if (job < x->n_segs)
		return 0;
	size_t n = x->n_segs ? x->n_segs : 64;
	while (n <= job)
		n *= 2;
	struct cpu_seg **v = realloc(x->segs, n * sizeof *v);
	if (!v)
		return -SIM_ENOMEM;
	memset(v + x->n_segs, 0, (n - x->n_segs) * sizeof *v);
	x->segs = v;
	x->n_segs = n;
	return 0;
}

static int cpu_launch(void *priv, const struct gx_segment *sg, char *err, size_t errlen)
{
	struct cpu_exec *x = priv;
	if (seg_slot_reserve(x, sg->job)) {
		snprintf(err, errlen, "out of memory");
		return -SIM_ENOMEM;
	}
	if (x->segs[sg->job]) {
		snprintf(err, errlen, "job %u: launched while its previous segment runs", sg->job);
		return -SIM_ESTATE;
	}
	struct cpu_seg *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -SIM_ENOMEM;
	}
	s->x = x;
	s->job = sg->job;
	s->seq = sg->seq;
	struct gx_plan plan;
	gx_plan_segment(sg, (double)x->tick_ns, &plan);
	s->total = plan.total;
	s->from_iter = plan.from_iter;
	s->ckpt_iters = plan.ckpt_iters;
	s->ckpt_cost_ns = sg->ckpt_cost_ns;
	s->restore_ns = sg->restore_ns;
	if ((int64_t)sg->job == x->fail_job)
		s->fail_at = s->from_iter + (s->total - s->from_iter + 1) / 2;
	atomic_init(&s->stop, 0);
	atomic_init(&s->progress, s->from_iter);
	atomic_init(&s->saved, s->from_iter);
	s->start_ns = gx_now_ns();
	int prc = pthread_create(&s->thread, NULL, seg_main, s);
	if (prc) {
		snprintf(err, errlen, "job %u: cannot start its thread: %s", sg->job, strerror(prc));
		free(s);
		return -SIM_EEXTERNAL;
	}
	x->segs[sg->job] = s;
	return 0;
}

/* Joins the segment's thread, reports, and forgets the segment. */
static int seg_finish(struct cpu_exec *x, uint32_t job, struct gx_report *r)
{
	struct cpu_seg *s = job < x->n_segs ? x->segs[job] : NULL;
	if (!s)
		return -SIM_ESTATE;
	pthread_join(s->thread, NULL);
	memset(r, 0, sizeof *r);
	r->progress = s->completed ? 1.0 : (double)atomic_load(&s->progress) / (double)s->total;
	r->saved = (double)atomic_load(&s->saved) / (double)s->total;
	r->ckpts = s->ckpts;
	r->start_ns = s->start_ns;
	r->end_ns = s->end_ns;
	if (s->fail_at && atomic_load(&s->progress) == s->fail_at && !s->completed) {
		r->failed = 1;
		snprintf(r->msg, sizeof r->msg, "job %u: injected failure at iteration %llu of %llu (cpu backend)",
			 job, (unsigned long long)s->fail_at, (unsigned long long)s->total);
	}
	x->segs[job] = NULL;
	free(s);
	return 0;
}

static int cpu_preempt(void *priv, uint32_t job, struct gx_report *r)
{
	struct cpu_exec *x = priv;
	if (job < x->n_segs && x->segs[job])
		atomic_store(&x->segs[job]->stop, 1);
	return seg_finish(x, job, r);
}

static int cpu_reap(void *priv, uint32_t job, struct gx_report *r)
{
	return seg_finish(priv, job, r);
}

static const struct gx_calibration *cpu_calibration(void *priv)
{
	return &((struct cpu_exec *)priv)->cal;
}

static const char *cpu_describe(void *priv)
{
	return ((struct cpu_exec *)priv)->desc;
}

static void cpu_close(void *priv)
{
	struct cpu_exec *x = priv;
	struct gx_report r;
	for (size_t j = 0; j < x->n_segs; j++)
		if (x->segs[j])
			cpu_preempt(x, (uint32_t)j, &r);
	free(x->segs);
	free(x->cal.iter_ns);
	free(x);
}

const struct gx_backend_ops gx_cpu_backend = {
	.name = "cpu",
	.open = cpu_open,
	.launch = cpu_launch,
	.preempt = cpu_preempt,
	.reap = cpu_reap,
	.calibration = cpu_calibration,
	.describe = cpu_describe,
	.close = cpu_close,
};
