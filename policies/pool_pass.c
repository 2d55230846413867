/* policies/pool_pass.c: keep-or-preempt by rank over one GPU pool (pool_pass.h). */
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

/* GPUs left in the pool once the running jobs that may not be preempted are counted. */
static sim_qty_t pool_after_fixed(const struct sim_view *v, const uint32_t *rank, size_t n, uint8_t *keep)
{
	sim_qty_t free_gpus = sim_cluster_gpu_total(sim_view_cluster(v), -1);
	for (size_t i = 0; i < n; i++) {
		const struct sim_job *j = sim_view_job(v, rank[i]);
		keep[i] = j->state == SIM_JOB_RUNNING && !j->preemptible;
		if (keep[i])
			free_gpus -= pool_job_gpus(v, j);
	}
	return free_gpus;
}

int pool_pass_apply(const struct sim_view *v, const uint32_t *rank, size_t n, uint8_t *keep,
		    struct sim_placement_buf *out)
{
	sim_qty_t free_gpus = pool_after_fixed(v, rank, n, keep);
	int64_t preemptor = -1;
	for (size_t i = 0; i < n; i++) {
		const struct sim_job *j = sim_view_job(v, rank[i]);
		if (keep[i] || (j->state != SIM_JOB_RUNNING && j->state != SIM_JOB_QUEUED))
			continue;
		sim_qty_t g = pool_job_gpus(v, j);
		if (g > free_gpus)
			continue;
		keep[i] = 1;
		free_gpus -= g;
		if (preemptor < 0 && j->state == SIM_JOB_QUEUED)
			preemptor = rank[i];
	}
	for (size_t i = 0; i < n; i++) {
		const struct sim_job *j = sim_view_job(v, rank[i]);
		if (keep[i] || j->state != SIM_JOB_RUNNING)
			continue;
		uint32_t by = preemptor >= 0 ? (uint32_t)preemptor : rank[i];
		int rc = sim_placement_buf_preempt(out, rank[i], by, SIM_PR_ORDER, 1);
		if (rc && rc != -SIM_ESTATE)
			return rc;
	}
	for (size_t i = 0; i < n; i++) {
		if (!keep[i] || sim_view_job(v, rank[i])->state != SIM_JOB_QUEUED)
			continue;
		/* -SIM_ENOFIT: the GPUs are still held by this pass's victims (the engine
		 * offers them in the next pass at this time) or the nodes are fragmented. */
		int rc = sim_placement_buf_try(out, rank[i], -1);
		if (rc && rc != -SIM_ENOFIT && rc != -SIM_ESTATE)
			return rc;
	}
	return 0;
}
