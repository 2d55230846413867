/* policies/hyperpod.c: SageMaker HyperPod task governance's cluster policy as an order
 * policy (docs/fair-share.md, "HyperPod").
 *
 * Jobs belong to teams (param team: the queue by default, as HyperPod teams are Kueue
 * ClusterQueues). Task prioritization: a job's priority class is the class with the
 * largest min_priority at or below the job's priority (no class: weight 0); inside a
 * team, higher class weight first, then submit time (no classes: first come, first
 * served). Idle compute allocation: with fair_share, the team holding the fewest GPUs
 * per fair-share weight goes first (asked again after each start, share_queue.h);
 * without, teams are not ranked against each other: the earliest-submitted head goes
 * first. A team's head that does not fit ends that team's turn in the pass.
 *
 * Under a quota policy the key is (team score or 0, -class weight).
 *
 * Params: team ("auto" | "user" | "queue", default "queue"), fair_share (bool, default
 * true), fair_share_weights ({team: 0..100}, default 1 each), priority_classes
 * ([{name, weight 0..100, min_priority}], at most 10, HyperPod's limit).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fairshare.h"
#include "fs_params.h"
#include "policy.h"
#include "share_queue.h"

#define HP_MAX_CLASSES 10

struct hp_class {
	double weight;      /* 0..100 */
	double min_priority; /* jobs of priority >= this (and below the next class up) */
};

struct hp {
	struct share_queue q;   /* standalone only */
	enum fs_account_by by;
	int fair_share;
	size_t n;               /* teams */
	double *weight;         /* fair-share weight per team */
	sim_qty_t *held_mgpu;   /* per team, running now */
	struct fs_held *held;   /* per job: whether it runs and the GPUs counted for it */
	struct hp_class cls[HP_MAX_CLASSES];
	size_t n_cls;
	int standalone;
	/* The team score enters the key: alone, or under a quota policy when a queue holds
	 * several teams (by user). With team = queue the quota policy only compares jobs of
	 * one team: the score is left out (0) and starts and stops re-rank nothing. */
	int key_score;
	const struct sim_view *v;
};

/* ---- params ---- */

static int parse_classes(const struct sim_policy_env *env, const cJSON *params, struct hp *h, struct sim_diag *diag)
{
	const cJSON *list = params ? cJSON_GetObjectItemCaseSensitive(params, "priority_classes") : NULL;
	if (!list)
		return 0;
	if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) > HP_MAX_CLASSES)
		return fs_param_error(env, diag, "priority_classes",
				      "expected a list of at most %d {\"name\", \"weight\", \"min_priority\"}",
				      HP_MAX_CLASSES);
	int bad = 0;
	char key[64];
	size_t k = 0;
	for (const cJSON *it = list->child; it; it = it->next, k++) {
		snprintf(key, sizeof key, "priority_classes[%zu]", k);
		const cJSON *nm = cJSON_GetObjectItemCaseSensitive(it, "name");
		const cJSON *w = cJSON_GetObjectItemCaseSensitive(it, "weight");
		const cJSON *mp = cJSON_GetObjectItemCaseSensitive(it, "min_priority");
		int extra = 0;
		for (const cJSON *f = cJSON_IsObject(it) ? it->child : NULL; f; f = f->next)
			extra |= strcmp(f->string, "name") && strcmp(f->string, "weight") && strcmp(f->string, "min_priority");
		if (!cJSON_IsObject(it) || !cJSON_IsString(nm) || extra || !cJSON_IsNumber(w) ||
		    !(w->valuedouble >= 0 && w->valuedouble <= 100) || w->valuedouble != floor(w->valuedouble) ||
		    !cJSON_IsNumber(mp) ||
		    mp->valuedouble != floor(mp->valuedouble)) {
			bad |= fs_param_error(env, diag, key,
					      "expected {\"name\": string, \"weight\": integer in [0, 100], "
					      "\"min_priority\": integer}");
			continue;
		}
		h->cls[h->n_cls++] = (struct hp_class){ .weight = w->valuedouble, .min_priority = mp->valuedouble };
	}
	return bad;
}

static int hp_init(struct sim_policy *pol, const struct sim_policy_env *env, const cJSON *params,
		   struct sim_diag *diag)
{
	static const char *const keys[] = { "team", "fair_share", "fair_share_weights", "priority_classes", NULL };
	struct hp *h = calloc(1, sizeof *h);
	if (!h)
		return -SIM_ENOMEM;
	pol->priv = h;
	h->by = FS_ACCOUNT_QUEUE;
	h->fair_share = 1;
	int bad = sim_policy_params_check_keys(env, params, keys, diag);
	bad |= fs_param_account_by(env, params, "team", &h->by, diag);
	bad |= fs_param_bool(env, params, "fair_share", &h->fair_share, diag);
	bad |= parse_classes(env, params, h, diag);
	if (bad || !env || !env->view) /* team names need the trace */
		return bad ? -SIM_EPARSE : -SIM_EINVAL;
	const struct sim_trace *t = sim_view_trace(env->view);
	h->v = env->view;
	h->by = fs_account_by_resolve(h->by, t);
	h->n = fs_account_count(h->by, t);
	h->weight = malloc(h->n * sizeof *h->weight);
	h->held_mgpu = calloc(h->n, sizeof *h->held_mgpu);
	h->held = calloc(t->n_jobs ? t->n_jobs : 1, sizeof *h->held);
	if (!h->weight || !h->held_mgpu || !h->held)
		return -SIM_ENOMEM;
	for (size_t i = 0; i < h->n; i++)
		h->weight[i] = 1;
	bad |= fs_param_account_numbers(env, params, "fair_share_weights", 0, 100, h->by, t, h->weight, diag);
	if (bad)
		return -SIM_EPARSE;
	h->standalone = !fs_under_quota(env->view);
	h->key_score = h->fair_share && (h->standalone || h->by != FS_ACCOUNT_QUEUE);
	return h->standalone ? share_queue_init(&h->q, h->n) : 0;
}

static void hp_fini(struct sim_policy *pol)
{
	struct hp *h = pol->priv;
	if (h) {
		if (h->standalone)
			share_queue_fini(&h->q);
		free(h->weight);
		free(h->held_mgpu);
		free(h->held);
	}
	free(h);
	pol->priv = NULL;
}

/* ---- ranking ---- */

/* The weight of the job's priority class: the class with the largest min_priority at or
 * below its priority; 0 without one. */
static double class_weight(const struct hp *h, const struct sim_job *job)
{
	double best_min = -INFINITY, w = 0;
	for (size_t i = 0; i < h->n_cls; i++)
		if (h->cls[i].min_priority <= (double)job->priority && h->cls[i].min_priority > best_min) {
			best_min = h->cls[i].min_priority;
			w = h->cls[i].weight;
		}
	return w;
}

static uint32_t team_of(const struct hp *h, const struct sim_job *job)
{
	return fs_account_of(h->by, sim_view_trace(h->v), job);
}

static double team_score(const struct hp *h, uint32_t team, sim_qty_t extra_mgpu)
{
	return h->fair_share ? fs_hyperpod_team_score(h->held_mgpu[team] + extra_mgpu, h->weight[team]) : 0;
}

static double score_team(void *arg, uint32_t team, sim_qty_t extra_mgpu)
{
	return team_score(arg, team, extra_mgpu);
}

/* ---- state ---- */

static void enqueue(struct hp *h, const struct sim_job *job)
{
	if (h->standalone)
		share_queue_push(&h->q, team_of(h, job), -class_weight(h, job), job);
}

static void hp_on_submit(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job)
{
	(void)v;
	enqueue(pol->priv, job);
}

static void hp_on_start(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job)
{
	struct hp *h = pol->priv;
	int opt = job->opt_chosen >= 0 ? job->opt_chosen : 0;
	sim_qty_t g = sim_job_opt(sim_view_trace(v), job, opt)->req[SIM_RES_GPU];
	h->held_mgpu[team_of(h, job)] += g;
	h->held[job->idx] = (struct fs_held){ .mgpu = g, .running = 1 };
	if (!h->standalone && h->key_score)
		sim_view_order_changed(v); /* its team's score grew */
}

static void hp_on_stop(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
		       enum sim_stop_cause cause)
{
	(void)cause;
	struct hp *h = pol->priv;
	struct fs_held *jh = &h->held[job->idx];
	if (jh->running) {
		h->held_mgpu[team_of(h, job)] -= jh->mgpu;
		*jh = (struct fs_held){ 0 };
		if (!h->standalone && h->key_score)
			sim_view_order_changed(v);
		if (job->state == SIM_JOB_QUEUED)
			enqueue(h, job); /* requeued: back at its rank */
	}
	/* A queued job that ended (timed out) is skipped when it reaches its team's head. */
}

/* Context: after all events at now (standalone only). */
static int hp_pick(struct sim_policy *pol, const struct sim_view *v, struct sim_placement_buf *out)
{
	static const struct share_queue_ops ops = { .score = score_team };
	struct hp *h = pol->priv;
	return share_queue_pick(&h->q, v, out, &ops, h);
}

static void hp_order_key(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
			 struct sim_order_key *out)
{
	(void)v;
	const struct hp *h = pol->priv;
	double score = h->key_score ? team_score(h, team_of(h, job), 0) : 0;
	*out = (struct sim_order_key){ { score, -class_weight(h, job), 0 } };
}

const struct sim_policy_ops hyperpod_policy_ops = {
	.name = "hyperpod",
	.family = SIM_FAM_ORDER,
	.provides = SIM_CAP_ORDER_KEY,
	.init = hp_init,
	.fini = hp_fini,
	.on_submit = hp_on_submit,
	.on_start = hp_on_start,
	.on_stop = hp_on_stop,
	.pick = hp_pick,
	.order_key = hp_order_key,
};
