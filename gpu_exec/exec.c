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
