/* gpu_exec/exec_cpu.c: the cpu backend. A thread stands in for a running job's GPUs.
 *
 * A virtual GPU's progress follows the wall clock, not the CPU time its thread
 * gets: a GPU does not slow down when the host's CPUs are busy, so neither does
 * this stand-in. A segment's timeline is fixed at its launch (exec.h's protocol
 * in ticks of iter_ns: restore, then iterations, a checkpoint's cost after every
 * ckpt_iters of them; struct gx_timeline): iteration n is complete at
 * gx_timeline_iter_done(n), the segment ends when its last one is. What it has
 * done at any wall time is read off that timeline (gx_timeline_at), so a
 * preemption at wall time P reports the work done and saved by P however late
 * any thread runs, and a completion reports its planned end, not the moment its
 * thread got a CPU: a busy host delays when an end is seen (the engine's latency,
 * measured), never how much work was made.
 *
 * The segment's thread sleeps on a condition variable until its end (or its
 * failure, injected) or a stop, then calls the done callback, unless the engine's
 * thread got there first (cpu_poll, at the end gx_next_end announced): it uses no
 * CPU while it "runs" (no busy loop: the work is the clock's). All the job's GPUs
 * share its one thread: GPU identity matters to the cuda backend only.
 *
 * A hang (cpu_hang, at wall time H) freezes the timeline at H: the segment no
 * longer ends by itself (its thread sleeps until the stop, no poll claims it), and
 * its stop reports the timeline as it stood at H, however late the stop comes.
 *
 * A slow-down (cpu_slow, at wall time W, rate r: a fail-slow node) bends the
 * clock the timeline is read on: the segment's own time is base + (t - W) x r
 * from W on (base: its own time at W), so the work done by W is kept, the rest
 * runs at r, and the wall end moves to when its own time reaches the planned end.
 * Every read of the timeline (a stop, the end) goes through that map.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../sim/sim.h"
#include "exec.h"

#define CPU_DEFAULT_TICK_NS 500000 /* 500 us */

struct cpu_seg {
	struct cpu_exec *x;
	uint32_t job;
	uint64_t seq;
	struct gx_timeline tl; /* its work on the wall clock, fixed at launch */
	int64_t start_ns;      /* wall time of the launch */
	int64_t end_ns;        /* wall time it ends: its last iteration, or its failure */
	uint64_t fail_at;      /* iteration at which it fails (injected), 0 = never */
	/* Under mu: the stop request, whether the thread reached its end first, and a
	 * hang (hung: the timeline stands still from wall time hang_at). */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop, reached_end, hung;
	int64_t hang_at;
	/* The segment's own clock (the timeline's): own(t) = warp_base + (t - warp_since)
	 * x rate at wall t >= warp_since; own_end: the timeline's end (its last iteration
	 * or its failure) on it. end_ns (wall) follows from them; the engine's thread
	 * writes them under mu, the segment's thread reads them under mu. */
	int64_t warp_since, warp_base, own_end;
	double rate;
	pthread_t thread;
};

struct cpu_exec {
	int64_t tick_ns;
	gx_done_fn done;
	void *done_arg;
	int64_t fail_job;
	struct cpu_seg **segs; /* by job index; NULL = nothing launched for it */
	size_t n_segs;
	struct cpu_seg **run;  /* the launched segments, in no order (gx_next_end, gx_poll) */
	size_t n_run, cap_run;
	struct gx_calibration cal;
	char desc[160];
};

/* Claims the segment's end for whoever sees it first, its thread or a poll of
 * the engine's thread: 1 when the caller must call the done callback. */
static int seg_claim_end(struct cpu_seg *s)
{
	pthread_mutex_lock(&s->mu);
	int mine = !s->stop && !s->reached_end && !s->hung;
	if (mine)
		s->reached_end = 1;
	pthread_mutex_unlock(&s->mu);
	return mine;
}

/* The segment's own time at wall time t (see the top: the slow-down's map). */
static int64_t seg_own(const struct cpu_seg *s, int64_t t)
{
	if (t <= s->warp_since)
		return s->warp_base - (s->warp_since - t); /* before the last change: not asked in practice */
	if (s->rate == 1.0)
		return s->warp_base + (t - s->warp_since);
	return s->warp_base + (int64_t)llround((double)(t - s->warp_since) * s->rate);
}

/* The segment's thread: sleeps to its end unless stopped first (a hung one: until
 * its stop), then says it is done (unless a poll did already). A slow-down moves
 * the end: it wakes the thread, which waits again for the new end. */
static void *seg_main(void *arg)
{
	struct cpu_seg *s = arg;
	pthread_mutex_lock(&s->mu);
	while (!s->stop && !s->reached_end && (s->hung || gx_now_ns() < s->end_ns)) {
		struct timespec ts = { .tv_sec = s->end_ns / SIM_NS_PER_S, .tv_nsec = s->end_ns % SIM_NS_PER_S };
		int rc = s->hung ? pthread_cond_wait(&s->cv, &s->mu)
				 : pthread_cond_timedwait(&s->cv, &s->mu, &ts);
		if (rc && rc != ETIMEDOUT && rc != EINTR)
			break;
	}
	/* Claimed under the same lock as the wait: a slow-down cannot move the end
	 * between the end seen and the end claimed. */
	int mine = !s->stop && !s->reached_end && !s->hung;
	if (mine)
		s->reached_end = 1;
	int64_t end = s->end_ns;
	pthread_mutex_unlock(&s->mu);
	if (mine)
		s->x->done(s->x->done_arg, s->job, s->seq, end);
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
	x->done = cfg->done;
	x->done_arg = cfg->done_arg;
	x->fail_job = cfg->fail_job;
	x->cal.n_groups = cfg->n_groups;
	uint64_t gpus = 0;
	for (size_t g = 0; g < cfg->n_groups; g++) {
		x->cal.iter_ns[g] = (double)x->tick_ns; /* the clock's: every group runs at the tick */
		gpus += cfg->groups[g].count;
	}
	snprintf(x->desc, sizeof x->desc, "cpu: %llu virtual GPUs as threads on the wall clock, %.0f us iterations",
		 (unsigned long long)gpus, (double)x->tick_ns / 1e3);
	if (cfg->verbose)
		fprintf(stderr, "real: %s\n", x->desc);
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

static void seg_free(struct cpu_seg *s)
{
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

/* A new segment with its timeline (from the launch at wall time now). */
static struct cpu_seg *seg_plan(struct cpu_exec *x, const struct gx_segment *sg, int64_t now)
{
	struct cpu_seg *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, &ca);
	pthread_condattr_destroy(&ca);
	s->x = x;
	s->job = sg->job;
	s->seq = sg->seq;
	struct gx_plan plan;
	gx_plan_segment(sg, (double)x->tick_ns, &plan);
	int64_t restore = plan.from_iter > 0 && sg->restore_ns > 0 ? sg->restore_ns : 0;
	s->tl = (struct gx_timeline){ .total = plan.total, .from_iter = plan.from_iter, .ckpt_iters = plan.ckpt_iters,
				      .tick_ns = x->tick_ns, .ckpt_cost_ns = sg->ckpt_cost_ns > 0 ? sg->ckpt_cost_ns : 0,
				      .work0_ns = restore > INT64_MAX - now ? INT64_MAX : now + restore };
	s->start_ns = now;
	if ((int64_t)sg->job == x->fail_job)
		s->fail_at = plan.from_iter + (plan.total - plan.from_iter + 1) / 2;
	s->end_ns = gx_timeline_iter_done(&s->tl, s->fail_at ? s->fail_at : plan.total);
	s->own_end = s->end_ns;
	s->warp_since = s->warp_base = now; /* full speed: its own time is the wall's */
	s->rate = 1.0;
	return s;
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
	struct cpu_seg **run = x->n_run < x->cap_run ? x->run
			       : realloc(x->run, (x->cap_run ? 2 * x->cap_run : 16) * sizeof *run);
	if (run && run != x->run) {
		x->run = run;
		x->cap_run = x->cap_run ? 2 * x->cap_run : 16;
	}
	struct cpu_seg *s = run ? seg_plan(x, sg, gx_now_ns()) : NULL;
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -SIM_ENOMEM;
	}
	int prc = pthread_create(&s->thread, NULL, seg_main, s);
	if (prc) {
		snprintf(err, errlen, "job %u: cannot start its thread: %s", sg->job, strerror(prc));
		seg_free(s);
		return -SIM_EEXTERNAL;
	}
	x->segs[sg->job] = s;
	x->run[x->n_run++] = s;
	return 0;
}

/* Stops the segment's thread (when `stop_at` >= 0: a preemption at that wall time),
 * joins it, reports where its timeline stood, and forgets the segment. A stop at or
 * after the segment's planned end finds it complete: the work was done by then. */
static int seg_finish(struct cpu_exec *x, uint32_t job, int64_t stop_at, struct gx_report *r)
{
	struct cpu_seg *s = job < x->n_segs ? x->segs[job] : NULL;
	if (!s)
		return -SIM_ESTATE;
	if (stop_at >= 0) {
		pthread_mutex_lock(&s->mu);
		s->stop = 1;
		pthread_cond_signal(&s->cv);
		pthread_mutex_unlock(&s->mu);
	}
	pthread_join(s->thread, NULL);
	int64_t end = s->reached_end || stop_at < 0 || stop_at >= s->end_ns ? s->end_ns : stop_at;
	/* A hung segment's work stopped at the hang; it held its GPUs until the stop. */
	int64_t work_at = s->hung && s->hang_at < end ? s->hang_at : end;
	if (s->hung && stop_at >= 0)
		end = stop_at;
	uint64_t done, saved;
	uint32_t ckpts;
	gx_timeline_at(&s->tl, work_at >= s->end_ns ? s->own_end : seg_own(s, work_at), &done, &saved, &ckpts);
	memset(r, 0, sizeof *r);
	r->progress = done >= s->tl.total ? 1.0 : (double)done / (double)s->tl.total;
	r->saved = (double)saved / (double)s->tl.total;
	r->ckpts = ckpts;
	r->start_ns = s->start_ns;
	r->end_ns = end;
	if (s->fail_at && done == s->fail_at && done < s->tl.total) { /* a one-iteration rest completes */
		r->failed = 1;
		snprintf(r->msg, sizeof r->msg, "job %u: injected failure at iteration %llu of %llu (cpu backend)",
			 job, (unsigned long long)s->fail_at, (unsigned long long)s->tl.total);
	}
	x->segs[job] = NULL;
	for (size_t i = 0; i < x->n_run; i++)
		if (x->run[i] == s) {
			x->run[i] = x->run[--x->n_run];
			break;
		}
	seg_free(s);
	return 0;
}

static int cpu_preempt(void *priv, uint32_t job, struct gx_report *r)
{
	return seg_finish(priv, job, gx_now_ns(), r);
}

/* Freezes the segment's timeline at wall time at_ns (exec.h, gx_hang). */
static int cpu_hang(void *priv, uint32_t job, int64_t at_ns)
{
	struct cpu_exec *x = priv;
	struct cpu_seg *s = job < x->n_segs ? x->segs[job] : NULL;
	if (!s)
		return -SIM_ESTATE;
	pthread_mutex_lock(&s->mu);
	s->hung = 1;
	s->hang_at = at_ns > s->start_ns ? at_ns : s->start_ns;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return 0;
}

/* From wall time at_ns the segment's timeline runs at rate (exec.h, gx_slow): the
 * clock map bends there and the end moves; its thread is woken to wait for it. A
 * segment that reached its end, or hung, keeps its state. */
static int cpu_slow(void *priv, uint32_t job, int64_t at_ns, double rate)
{
	struct cpu_exec *x = priv;
	struct cpu_seg *s = job < x->n_segs ? x->segs[job] : NULL;
	if (!s)
		return -SIM_ESTATE;
	pthread_mutex_lock(&s->mu);
	if (!s->reached_end && !s->hung && !s->stop) {
		int64_t at = at_ns > s->warp_since ? at_ns : s->warp_since;
		s->warp_base = seg_own(s, at);
		s->warp_since = at;
		s->rate = rate;
		double left = (double)(s->own_end - s->warp_base);
		double wall = left <= 0 ? 0 : rate == 1.0 ? left : ceil(left / rate);
		s->end_ns = wall < (double)(INT64_MAX - at) ? at + (int64_t)wall : INT64_MAX;
		pthread_cond_signal(&s->cv);
	}
	pthread_mutex_unlock(&s->mu);
	return 0;
}

static int cpu_reap(void *priv, uint32_t job, struct gx_report *r)
{
	return seg_finish(priv, job, -1, r);
}

static int64_t cpu_next_end(void *priv)
{
	struct cpu_exec *x = priv;
	int64_t t = INT64_MAX;
	for (size_t i = 0; i < x->n_run; i++) {
		struct cpu_seg *s = x->run[i];
		if (s->end_ns < t) {
			pthread_mutex_lock(&s->mu);
			if (!s->reached_end && !s->hung)
				t = s->end_ns;
			pthread_mutex_unlock(&s->mu);
		}
	}
	return t;
}

static void cpu_poll(void *priv, int64_t now)
{
	struct cpu_exec *x = priv;
	for (size_t i = 0; i < x->n_run; i++) {
		struct cpu_seg *s = x->run[i];
		if (s->end_ns <= now && seg_claim_end(s))
			x->done(x->done_arg, s->job, s->seq, s->end_ns);
	}
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
	free(x->run);
	free(x->cal.iter_ns);
	free(x);
}

const struct gx_backend_ops gx_cpu_backend = {
	.name = "cpu",
	.open = cpu_open,
	.launch = cpu_launch,
	.preempt = cpu_preempt,
	.hang = cpu_hang,
	.slow = cpu_slow,
	.reap = cpu_reap,
	.calibration = cpu_calibration,
	.describe = cpu_describe,
	.close = cpu_close,
	.next_end = cpu_next_end,
	.poll = cpu_poll,
};
