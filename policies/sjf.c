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
 * Order key (SIM_CAP_ORDER_KEY): { true length in s, 0, 0 }, so sjf also ranks the
 * jobs inside a quota policy's queues (cohort, hard), which then decide the
 * blocking themselves. Alone, policies/keyed.h keeps the waiting jobs in a heap on
 * (key, submit, index); a pass is skipped at once when no GPU is free and every
 * job seen asks for GPUs (then none can start).
 */
#include <stdlib.h>

#include "keyed.h"
#include "pool_pass.h"

struct sjf {
	struct keyed_order ko; /* first member: the waiting jobs */
	int strict;
	int gpuless;           /* a job asking for no GPU was seen: no shortcut */
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
	keyed_order_init(&s->ko, s->strict);
	return 0;
}

static void sjf_fini(struct sim_policy *pol)
{
	struct sjf *s = pol->priv;
	if (s)
		keyed_order_fini(&s->ko);
	free(s);
	pol->priv = NULL;
}

/* Pure: the true length does not change, so keys never need sim_view_order_changed. */
static void sjf_order_key(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
			  struct sim_order_key *out)
{
	(void)pol;
	*out = (struct sim_order_key){ { sim_time_to_s(pool_job_runtime(v, job)), 0, 0 } };
}

static void sjf_on_submit(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job)
{
	struct sjf *s = pol->priv;
	if (sim_job_opt(sim_view_trace(v), job, 0)->req[SIM_RES_GPU] <= 0)
		s->gpuless = 1;
	keyed_order_on_submit(&s->ko, pol, v, job);
}

/* A job queued again (its nodes were removed) goes back at its rank. */
static void sjf_on_stop(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
			enum sim_stop_cause cause)
{
	struct sjf *s = pol->priv;
	keyed_order_on_stop(&s->ko, pol, v, job, cause);
}

/* Context: the decision pass. Proposes starts shortest first. */
static int sjf_pick(struct sim_policy *pol, const struct sim_view *v, struct sim_placement_buf *out)
{
	struct sjf *s = pol->priv;
	const struct sim_cluster *c = sim_view_cluster(v);
	if (!s->ko.oom && !s->gpuless && sim_cluster_gpu_busy(c, -1) >= sim_cluster_gpu_total(c, -1))
		return 0;
	return keyed_order_pick(&s->ko, pol, v, out);
}

const struct sim_policy_ops sjf_policy_ops = {
	.name = "sjf",
	.family = SIM_FAM_ORDER,
	.provides = SIM_CAP_ORDER_KEY,
	.order_key = sjf_order_key,
	.init = sjf_init,
	.fini = sjf_fini,
	.on_submit = sjf_on_submit,
	.on_stop = sjf_on_stop,
	.pick = sjf_pick,
};
