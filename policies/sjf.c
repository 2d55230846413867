/* policies/sjf.c: oracle shortest job first (docs/baselines.md).
 *
 * Queued jobs start in order of their true length: the trace duration scaled to
 * their option-0 flavor (pool_job_runtime; "*" requests on the first flavor), ties
 * by submit time then trace row (the trace index). Non-preemptive: a running job
 * always runs to its end. The policy knows durations the scheduler could not know:
 * it is a bound to compare against, not a deployable policy.
 *
 * Params: strict (boolean, default false). false: a job that does not fit is
 * passed over and the next one is tried, as every duration-ranked scheduler of
 * Tiresias' simulator does; true: the shortest queued job blocks the others while
 * it does not fit (head-of-line blocking, as fifo and priority).
 *
 * Queue: an array sorted by (length, index); a submit inserts by binary search
 * (O(log n) to find, a memmove to insert). pick walks it in order and compacts
 * away the jobs that started, and stops early once the cluster has no free GPU.
 */
#include <stdlib.h>
#include <string.h>

#include "pool_pass.h"

struct sjf_ent {
	sim_time_t len; /* true run time, ns */
	uint32_t idx;
};

struct sjf {
	int strict;
	struct sjf_ent *q;
	size_t n, cap;
	int oom;
};

static int sjf_init(struct sim_policy *pol, const struct sim_policy_env *env, const cJSON *params,
		    struct sim_diag *diag)
{
	static const char *const keys[] = { "strict", NULL };
	struct sjf *s = calloc(1, sizeof *s);
	if (!s)
		return -SIM_ENOMEM;
	pol->priv = s;
	if (sim_policy_params_check_keys(env, params, keys, diag))
		return -SIM_EPARSE;
	const cJSON *st = params ? cJSON_GetObjectItemCaseSensitive(params, "strict") : NULL;
	if (st && !cJSON_IsBool(st))
		return sim_diag_add(diag, env && env->file ? env->file : "config",
				    "%s.strict: expected true or false", env ? env->json_path : "$");
	s->strict = st && cJSON_IsTrue(st);
	return 0;
}

static void sjf_fini(struct sim_policy *pol)
{
	struct sjf *s = pol->priv;
	if (s)
		free(s->q);
	free(s);
	pol->priv = NULL;
}

static int before(const struct sjf_ent *a, const struct sjf_ent *b)
{
	return a->len != b->len ? a->len < b->len : a->idx < b->idx;
}

static void sjf_insert(struct sjf *s, const struct sim_view *v, const struct sim_job *job)
{
	struct sjf_ent e = { .len = pool_job_runtime(v, job), .idx = job->idx };
	struct sjf_ent *nq = sim_grow(s->q, &s->cap, s->n, sizeof *nq, 256);
	if (!nq) {
		s->oom = 1;
		return;
	}
	s->q = nq;
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (before(&s->q[mid], &e))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->n && s->q[lo].idx == e.idx)
		return; /* already queued */
	memmove(&s->q[lo + 1], &s->q[lo], (s->n - lo) * sizeof *s->q);
	s->q[lo] = e;
	s->n++;
}

static void sjf_on_submit(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job)
{
	sjf_insert(pol->priv, v, job);
}

/* A running job stopped and queued again (its nodes were removed) goes back at its rank. */
static void sjf_on_preempt(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job)
{
	if (job->state == SIM_JOB_QUEUED)
		sjf_insert(pol->priv, v, job);
}

/* Context: after all events at now. Proposes starts shortest first. */
static int sjf_pick(struct sim_policy *pol, const struct sim_view *v, struct sim_placement_buf *out)
{
	struct sjf *s = pol->priv;
	if (s->oom)
		return -SIM_ENOMEM;
	const struct sim_cluster *c = sim_view_cluster(v);
	size_t w = 0, i = 0;
	for (; i < s->n; i++) {
		if (sim_cluster_gpu_busy(c, -1) >= sim_cluster_gpu_total(c, -1))
			break; /* nothing free: no later job can start either */
		int rc = sim_placement_buf_try(out, s->q[i].idx, -1);
		if (rc == -SIM_ENOFIT) {
			s->q[w++] = s->q[i];
			if (s->strict) {
				i++;
				break;
			}
			continue;
		}
		if (rc && rc != -SIM_ESTATE)
			return rc;
		/* started, or no longer queued (timed out): leaves the queue */
	}
	memmove(&s->q[w], &s->q[i], (s->n - i) * sizeof *s->q);
	s->n = w + (s->n - i);
	return 0;
}

const struct sim_policy_ops sjf_policy_ops = {
	.name = "sjf",
	.family = SIM_FAM_ORDER,
	.init = sjf_init,
	.fini = sjf_fini,
	.on_submit = sjf_on_submit,
	.on_preempt = sjf_on_preempt,
	.pick = sjf_pick,
};
