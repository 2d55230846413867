/* sim/drv_virtual.c: the virtual-time driver. The clock jumps to the next event;
 * starting a job tells the engine it ends at now + runtime (sim_engine_job_ends); stopping withdraws that end. */
#include <stdlib.h>

#include "engine.h"

struct drv_virtual {
	sim_time_t now;
};

static sim_time_t virtual_now(void *priv)
{
	return ((struct drv_virtual *)priv)->now;
}

static int virtual_advance(void *priv, struct sim_engine *e, sim_time_t t)
{
	(void)e;
	struct drv_virtual *d = priv;
	if (t == SIM_TIME_MAX)
		return -SIM_ESTATE; /* running jobs without finish events cannot happen here */
	if (t > d->now)
		d->now = t;
	return 0;
}

static int virtual_start(void *priv, struct sim_engine *e, struct sim_job *job)
{
	struct drv_virtual *d = priv;
	if (job->runtime_ns > SIM_TIME_MAX - d->now)
		return -SIM_ERANGE; /* a finish beyond ~292 years of simulated time */
	return sim_engine_job_ends(e, job, d->now + job->runtime_ns, 0);
}

static int virtual_stop(void *priv, struct sim_engine *e, struct sim_job *job, struct sim_stop_measure *m)
{
	(void)priv;
	(void)m; /* zeroed by the engine: the work done follows from time */
	sim_engine_job_end_cancel(e, job);
	return 0;
}

static const struct sim_driver_ops virtual_driver_ops = {
	.name = "virtual",
	.now = virtual_now,
	.advance = virtual_advance,
	.start = virtual_start,
	.stop = virtual_stop,
};

int sim_driver_virtual_init(struct sim_driver *drv)
{
	struct drv_virtual *d = calloc(1, sizeof *d);
	if (!d)
		return -SIM_ENOMEM;
	drv->ops = &virtual_driver_ops;
	drv->priv = d;
	return 0;
}

void sim_driver_virtual_fini(struct sim_driver *drv)
{
	free(drv->priv);
	drv->priv = NULL;
	drv->ops = NULL;
}
