/* policies/independent.c: independent jobs, as SageMaker runs jobs with instance
 * preference lists (docs/design.md section 2).
 *
 * Every queued job is tried at each decision pass, in submit order (ties by trace
 * row); each that fits now starts (on the option the fallback policy chooses), and
 * one that does not fit stays queued without holding back any later job. Unlike
 * fifo there is no blocking head, and unlike easy_backfill nothing is reserved: a
 * large job can wait while smaller later ones keep taking the capacity it needs.
 *
 * Queue: an array of queued job indices kept in trace order (the trace is sorted by
 * submit time, then row). A submit appends; a job stopped and queued again goes back
 * to its place (binary search, O(queued)). When the cluster's free capacity grew
 * since the last pick (a finish, nodes online), pick walks the whole array once and
 * compacts it: O(queued); a job whose own flavors gained nothing is refused by the
 * engine in O(options) without asking the cluster (sim_placement_buf_try's
 * event-driven fallback). Otherwise (a pass after submits only) it tries only the
 * jobs added since the last pick: O(new jobs).
 * Measured (gen_workload, 200k jobs, load 0.95, three stock-out flavors with
 * 3-option lists, first_fit, Release, 2 busy cores): see docs/design.md section 2.
 */
#include <stdlib.h>
#include <string.h>

#include "policy.h"

struct independent {
	uint32_t *q; /* queued job indices, ascending */
	size_t n, cap;
	int oom;     /* a push failed: pick reports -SIM_ENOMEM */
	/* The last pick: the cluster's free-capacity generation then, and how many
	 * entries of q it left (all of them waiting). Entries after those are new. */
	uint64_t gen;
	size_t tried;
	int inserted; /* a job went back in the middle of q since the last pick */
	int picked;   /* gen and tried are set */
};

static int ind_init(struct sim_policy *pol, const struct sim_policy_env *env, const cJSON *params,
		    struct sim_diag *diag)
{
	if (sim_policy_params_check_keys(env, params, NULL, diag))
		return -SIM_EPARSE;
	struct independent *s = calloc(1, sizeof *s);
	if (!s)
		return -SIM_ENOMEM;
	pol->priv = s;
	return 0;
}

static void ind_fini(struct sim_policy *pol)
{
	struct independent *s = pol->priv;
	if (s)
		free(s->q);
	free(s);
	pol->priv = NULL;
}

/* Inserts idx at its place in trace order; a job already queued is not added twice. */
static void ind_insert(struct independent *s, uint32_t idx)
{
	size_t lo = 0, hi = s->n;
	if (s->n && s->q[s->n - 1] < idx) {
		lo = s->n; /* the common case: a submit, after every queued job */
	} else {
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (s->q[mid] < idx)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < s->n && s->q[lo] == idx)
			return;
		s->inserted = 1;
	}
	uint32_t *nq = sim_grow(s->q, &s->cap, s->n, sizeof *nq, 256);
	if (!nq) {
		s->oom = 1;
		return;
	}
	s->q = nq;
	memmove(&s->q[lo + 1], &s->q[lo], (s->n - lo) * sizeof *s->q);
	s->q[lo] = idx;
	s->n++;
}

static void ind_on_submit(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job)
{
	(void)v;
	ind_insert(pol->priv, job->idx);
}

static void ind_on_stop(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
			 enum sim_stop_cause cause)
{
	(void)cause;
	(void)v;
	if (job->state == SIM_JOB_QUEUED)
		ind_insert(pol->priv, job->idx);
}

/* Context: after the events at now. Tries every queued job in order; keeps those
 * that did not fit. */
static int ind_pick(struct sim_policy *pol, const struct sim_view *v, struct sim_placement_buf *out)
{
	struct independent *s = pol->priv;
	if (s->oom)
		return -SIM_ENOMEM;
	/* The jobs the last pick left waiting did not fit then; while the free capacity
	 * of the cluster has not grown since, none of them fits now (placements only
	 * take), so only the jobs submitted since are tried. Same decisions as trying
	 * every job: the engine would refuse each of those on the same ground. */
	uint64_t gen = sim_cluster_free_gen(sim_view_cluster(v), -1);
	size_t w = 0, i = 0;
	if (s->picked && !s->inserted && gen == s->gen && s->tried <= s->n)
		w = i = s->tried;
	int rc = 0;
	for (; i < s->n; i++) {
		uint32_t idx = s->q[i];
		int r = sim_placement_buf_try(out, idx, -1);
		if (r == -SIM_ENOFIT) {
			s->q[w++] = idx; /* waits, and holds back nobody */
			continue;
		}
		if (r && r != -SIM_ESTATE) {
			rc = r;
			break;
		}
		/* Started, or no longer queued (timed out, rejected): leave the queue. */
	}
	for (; i < s->n; i++) /* after an error: keep the rest */
		s->q[w++] = s->q[i];
	s->n = w;
	s->gen = gen;
	s->tried = w;
	s->inserted = 0;
	s->picked = !rc;
	return rc;
}

const struct sim_policy_ops independent_policy_ops = {
	.name = "independent",
	.family = SIM_FAM_ORDER,
	.init = ind_init,
	.fini = ind_fini,
	.on_submit = ind_on_submit,
	.on_stop = ind_on_stop,
	.pick = ind_pick,
};
