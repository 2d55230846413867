/* policies/pool_pass.c: how the research baselines count a job (pool_pass.h). */
#include "pool_pass.h"

int pool_job_flavor(const struct sim_view *v, const struct sim_job *job)
{
	const struct sim_job_option *o = sim_job_opt(sim_view_trace(v), job, 0);
	return o->flavor_id >= 0 ? o->flavor_id : 0;
}

sim_time_t pool_job_runtime(const struct sim_view *v, const struct sim_job *job)
{
	return sim_view_runtime(v, job, 0, pool_job_flavor(v, job));
}

sim_qty_t pool_job_gpus(const struct sim_view *v, const struct sim_job *job)
{
	const struct sim_job_option *o = sim_job_opt(sim_view_trace(v), job, 0);
	int flavor = pool_job_flavor(v, job);
	const struct sim_cluster *c = sim_view_cluster(v);
	if ((size_t)flavor >= sim_cluster_n_flavors(c))
		return o->req[SIM_RES_GPU];
	return sim_cluster_alloc_gpu(c, flavor, o->req);
}
