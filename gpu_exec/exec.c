/* gpu_exec/exec.c: picks the backend and forwards the calls (exec.h). */
#include "exec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../sim/sim.h"

struct gx {
	const struct gx_backend_ops *ops;
	void *priv;
};

int64_t gx_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * SIM_NS_PER_S + ts.tv_nsec;
}

void gx_plan_segment(const struct gx_segment *s, double iter_ns, struct gx_plan *out)
{
	double total = (double)s->work_ns / (iter_ns > 0 ? iter_ns : 1) + 0.5;
	out->total = !(total >= 1) ? 1 : total > 1e18 ? (uint64_t)1e18 : (uint64_t)total;
	double from = s->from * (double)out->total + 0.5;
	out->from_iter = !(from >= 1) ? 0 : from >= (double)out->total ? out->total - 1 : (uint64_t)from;
	out->ckpt_iters = 0;
	if (s->ckpt_every > 0) {
		double c = ceil(s->ckpt_every * (double)out->total - 1e-9);
		out->ckpt_iters = !(c >= 1) ? 1 : c >= (double)out->total ? out->total : (uint64_t)c;
	}
}

/* a + b and n x ns on wall nanoseconds, saturating at INT64_MAX (a segment too long
 * to end ends never). */
static int64_t sat_add(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

static int64_t sat_mul(uint64_t n, int64_t ns)
{
	return ns > 0 && n > (uint64_t)(INT64_MAX / ns) ? INT64_MAX : (int64_t)n * ns;
}

/* Checkpoints at iterations k < n: multiples of ckpt_iters strictly above
 * from_iter and below total. */
static uint64_t ckpts_before(const struct gx_timeline *tl, uint64_t n)
{
	if (!tl->ckpt_iters || n == 0)
		return 0;
	if (n > tl->total)
		n = tl->total;
	uint64_t last = (n - 1) / tl->ckpt_iters, first = tl->from_iter / tl->ckpt_iters;
	return last > first ? last - first : 0;
}

int64_t gx_timeline_iter_done(const struct gx_timeline *tl, uint64_t n)
{
	return sat_add(sat_add(tl->work0_ns, sat_mul(n - tl->from_iter, tl->tick_ns)),
		       sat_mul(ckpts_before(tl, n), tl->ckpt_cost_ns));
}

void gx_timeline_at(const struct gx_timeline *tl, int64_t t, uint64_t *done, uint64_t *saved, uint32_t *ckpts)
{
	uint64_t lo = tl->from_iter, hi = tl->total; /* invariant: iteration lo is complete by t */
	if (t < tl->work0_ns)
		hi = lo;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo + 1) / 2;
		if (gx_timeline_iter_done(tl, mid) <= t)
			lo = mid;
		else
			hi = mid - 1;
	}
	uint64_t n = ckpts_before(tl, lo);
	/* The checkpoint right after iteration lo, once paid. */
	if (tl->ckpt_iters && lo % tl->ckpt_iters == 0 && lo > tl->from_iter && lo < tl->total &&
	    sat_add(gx_timeline_iter_done(tl, lo), tl->ckpt_cost_ns) <= t)
		n++;
	*done = lo;
	*ckpts = (uint32_t)(n > UINT32_MAX ? UINT32_MAX : n);
	*saved = n ? (tl->from_iter / tl->ckpt_iters + n) * tl->ckpt_iters : tl->from_iter;
}

static const struct gx_backend_ops *backend_find(const char *name)
{
	if (strcmp(name, "cpu") == 0)
		return &gx_cpu_backend;
	if (strcmp(name, "cuda") == 0)
		return gx_cuda_backend;
	return NULL;
}

int gx_open(const struct gx_config *cfg, struct gx **out, char *err, size_t errlen)
{
	*out = NULL;
	const struct gx_backend_ops *ops = backend_find(cfg->backend);
	if (!ops) {
		if (strcmp(cfg->backend, "cuda") == 0)
			snprintf(err, errlen, "backend cuda: this gpusched was built without the CUDA toolkit "
				 "(configure with nvcc on PATH, or -DSIM_CUDA=ON); the cpu backend is available");
		else
			snprintf(err, errlen, "backend: expected cpu or cuda, got '%s'", cfg->backend);
		return -SIM_EINVAL;
	}
	struct gx *x = calloc(1, sizeof *x);
	if (!x) {
		snprintf(err, errlen, "out of memory");
		return -SIM_ENOMEM;
	}
	x->ops = ops;
	int rc = ops->open(cfg, &x->priv, err, errlen);
	if (rc) {
		free(x);
		return rc;
	}
	*out = x;
	return 0;
}

int gx_launch(struct gx *x, const struct gx_segment *s, char *err, size_t errlen)
{
	return x->ops->launch(x->priv, s, err, errlen);
}

int gx_preempt(struct gx *x, uint32_t job, struct gx_report *r)
{
	return x->ops->preempt(x->priv, job, r);
}

int gx_hang(struct gx *x, uint32_t job, int64_t at_ns)
{
	return x->ops->hang ? x->ops->hang(x->priv, job, at_ns) : -SIM_EINVAL;
}

int gx_slow(struct gx *x, uint32_t job, int64_t at_ns, double rate)
{
	if (!(rate > 0 && rate <= 1))
		return -SIM_EINVAL;
	return x->ops->slow ? x->ops->slow(x->priv, job, at_ns, rate) : -SIM_EINVAL;
}

int gx_reap(struct gx *x, uint32_t job, struct gx_report *r)
{
	return x->ops->reap(x->priv, job, r);
}

const struct gx_calibration *gx_calibration(const struct gx *x)
{
	return x->ops->calibration(x->priv);
}

const char *gx_backend(const struct gx *x)
{
	return x->ops->name;
}

const char *gx_describe(const struct gx *x)
{
	return x->ops->describe(x->priv);
}

int64_t gx_next_end(struct gx *x)
{
	return x->ops->next_end ? x->ops->next_end(x->priv) : INT64_MAX;
}

void gx_poll(struct gx *x, int64_t now)
{
	if (x->ops->poll)
		x->ops->poll(x->priv, now);
}

void gx_close(struct gx *x)
{
	if (!x)
		return;
	x->ops->close(x->priv);
	free(x);
}
