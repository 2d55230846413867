/* policies/srtf.c: preemptive shortest remaining time first (docs/baselines.md).
 *
 * At every decision pass the queued and running jobs are ranked by remaining time,
 * shortest first, and the pool step (pool_pass.h) keeps each job that fits what is
 * left of the GPUs and preempts the running jobs it does not keep. This is the
 * "shortest" scheduler of Tiresias' simulator.
 *
 * Remaining time (ns): a running job's end of segment minus now (its wall time
 * left); a queued job's true run time (pool_job_runtime) times the share of its
 * work not yet saved (1 - progress). A victim keeps only what its checkpoints
 * saved (docs/design.md section 2), so without checkpoints it starts again from
 * its full length.
 *
 * Ties keep the previous order: the list persists between passes (new jobs at its
 * end, submit order) and is re-sorted by a stable insertion sort, which is also
 * cheap because remaining times of running jobs all fall at the same rate.
 * Standalone only: its order is not a fixed key (no SIM_CAP_ORDER_KEY).
 *
 * Fast pass (same decisions, less work): after a full pass the running set is what
 * the pool step keeps, and it stays so while time passes (remaining times of
 * running jobs fall, so they only move ahead of waiting ones). If since then only
 * jobs arrived (and jobs ended while none waited), and the new jobs together fit
 * the free GPUs, the full pass would keep every running job and every new one and
 * no job that waited before: the new jobs are started without walking the list.
 * Only on a cluster of one flavor, where the pool's free GPUs are the cluster's.
 */
#include <math.h>
#include <stdlib.h>

#include "pool_pass.h"

struct srtf_ent {
	sim_time_t rem; /* remaining time at the current pass, ns */
	uint32_t idx;
};

struct srtf {
	struct srtf_ent *list; /* queued and running jobs (and ended ones until compacted) */
	size_t n, cap;
	uint32_t *rank;        /* scratch for pool_pass_apply */
	uint8_t *keep;
	size_t cap_scratch;
	/* fast pass state */
	size_t n_seen;         /* list entries decided by the last pass; later ones are new */
	size_t n_waiting;      /* jobs the last pass left waiting */
	int consistent;        /* the running set is the pool step's choice */
	sim_qty_t pool_seen;   /* pool size at the last pass */
	int oom;
};

static int srtf_init(struct sim_policy *pol, const struct sim_policy_env *env, const cJSON *params,
		     struct sim_diag *diag)
{
	if (sim_policy_params_check_keys(env, params, NULL, diag))
		return -SIM_EPARSE;
	struct srtf *s = calloc(1, sizeof *s);
	if (!s)
		return -SIM_ENOMEM;
	pol->priv = s;
	return 0;
}

static void srtf_fini(struct sim_policy *pol)
{
	struct srtf *s = pol->priv;
	if (s) {
		free(s->list);
		free(s->rank);
		free(s->keep);
	}
	free(s);
	pol->priv = NULL;
}

/* A stop breaks the last pass's choice unless nothing waits and the job completed
 * (its GPUs are then simply free). */
static void srtf_on_stop(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
			 enum sim_stop_cause cause)
{
	(void)v;
	(void)job;
	struct srtf *s = pol->priv;
	if (cause != SIM_STOP_COMPLETED || s->n_waiting)
		s->consistent = 0;
}

static void srtf_on_submit(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job)
{
	(void)v;
	struct srtf *s = pol->priv;
	struct srtf_ent *nl = sim_grow(s->list, &s->cap, s->n, sizeof *nl, 256);
	if (!nl) {
		s->oom = 1;
		return;
	}
	s->list = nl;
	s->list[s->n++] = (struct srtf_ent){ .rem = 0, .idx = job->idx };
}

/* Wall time left of a running job, or the unsaved part of a queued one's work. */
static sim_time_t remaining_ns(const struct sim_view *v, const struct sim_job *j)
{
	if (j->state == SIM_JOB_RUNNING) {
		sim_time_t r = j->last_start_ns + j->runtime_ns - sim_view_now(v);
		return r > 0 ? r : 0;
	}
	double full = (double)pool_job_runtime(v, j);
	return (sim_time_t)llround((1.0 - j->progress) * full);
}

/* Drops the jobs that left for good and refreshes the remaining times. */
static void refresh(struct srtf *s, const struct sim_view *v)
{
	size_t w = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct sim_job *j = sim_view_job(v, s->list[i].idx);
		if (j->state != SIM_JOB_QUEUED && j->state != SIM_JOB_RUNNING)
			continue;
		s->list[w] = s->list[i];
		s->list[w++].rem = remaining_ns(v, j);
	}
	s->n = w;
}

/* Stable insertion sort by remaining time: equal times keep their order. */
static void sort_stable(struct srtf *s)
{
	for (size_t i = 1; i < s->n; i++) {
		struct srtf_ent e = s->list[i];
		size_t k = i;
		while (k > 0 && s->list[k - 1].rem > e.rem) {
			s->list[k] = s->list[k - 1];
			k--;
		}
		s->list[k] = e;
	}
}

static int scratch_fit(struct srtf *s)
{
	if (s->n <= s->cap_scratch)
		return 0;
	size_t c = s->n * 2;
	uint32_t *r = realloc(s->rank, c * sizeof *r);
	if (!r)
		return -SIM_ENOMEM;
	s->rank = r;
	uint8_t *k = realloc(s->keep, c);
	if (!k)
		return -SIM_ENOMEM;
	s->keep = k;
	s->cap_scratch = c;
	return 0;
}

/* The fast pass, when it applies: 1 (done, *rc set) or 0 (do the full pass). */
static int fast_pass(struct srtf *s, const struct sim_view *v, struct sim_placement_buf *out, int *rc)
{
	const struct sim_cluster *c = sim_view_cluster(v);
	sim_qty_t pool = sim_cluster_gpu_total(c, -1);
	if (pool != s->pool_seen)
		s->consistent = 0; /* capacity changed */
	s->pool_seen = pool;
	if (!s->consistent || sim_cluster_n_flavors(c) != 1)
		return 0;
	sim_qty_t need = 0, free_gpus = pool - sim_cluster_gpu_busy(c, -1);
	for (size_t i = s->n_seen; i < s->n; i++)
		need += pool_job_gpus(v, sim_view_job(v, s->list[i].idx));
	if (need > free_gpus)
		return 0;
	/* In rank order, as the full pass would propose them. */
	for (size_t i = s->n_seen; i < s->n; i++)
		s->list[i].rem = remaining_ns(v, sim_view_job(v, s->list[i].idx));
	for (size_t i = s->n_seen + 1; i < s->n; i++) {
		struct srtf_ent e = s->list[i];
		size_t k = i;
		for (; k > s->n_seen && s->list[k - 1].rem > e.rem; k--)
			s->list[k] = s->list[k - 1];
		s->list[k] = e;
	}
	*rc = 0;
	for (size_t i = s->n_seen; i < s->n && !*rc; i++) {
		int r = sim_placement_buf_try(out, s->list[i].idx, -1);
		if (r == -SIM_ENOFIT)
			s->consistent = 0; /* fragmented nodes: the full pass decides next time */
		else if (r != -SIM_ESTATE)
			*rc = r;
	}
	s->n_seen = s->n;
	return 1;
}

/* Context: after all events at now; again after a pass that preempted. */
static int srtf_pick(struct sim_policy *pol, const struct sim_view *v, struct sim_placement_buf *out)
{
	struct srtf *s = pol->priv;
	if (s->oom)
		return -SIM_ENOMEM;
	int rc;
	if (fast_pass(s, v, out, &rc))
		return rc;
	refresh(s, v);
	sort_stable(s);
	if ((rc = scratch_fit(s)))
		return rc;
	for (size_t i = 0; i < s->n; i++)
		s->rank[i] = s->list[i].idx;
	if ((rc = pool_pass_apply(v, s->rank, s->n, s->keep, out)))
		return rc;
	/* Consistent when every kept job that waited was accepted and nothing was
	 * preempted (victims: the engine runs another, full, pass at this time). */
	size_t waiting = 0, kept_waiting = 0, victims = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct sim_job *j = sim_view_job(v, s->rank[i]);
		if (j->state == SIM_JOB_QUEUED)
			s->keep[i] ? kept_waiting++ : waiting++;
		else if (j->state == SIM_JOB_RUNNING && !s->keep[i])
			victims++;
	}
	s->n_waiting = waiting;
	s->n_seen = s->n;
	s->consistent = victims == 0 && sim_placement_buf_count(out) == kept_waiting;
	return 0;
}

const struct sim_policy_ops srtf_policy_ops = {
	.name = "srtf",
	.family = SIM_FAM_ORDER,
	.init = srtf_init,
	.fini = srtf_fini,
	.on_submit = srtf_on_submit,
	.on_stop = srtf_on_stop,
	.pick = srtf_pick,
};
