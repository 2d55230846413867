/* policies/batch_fair_share.c: AWS Batch's fair-share scheduling policy as an order policy
 * (docs/fair-share.md, "AWS Batch").
 *
 * Every job belongs to a share identifier (its user, or its queue: param shareIdentifier).
 * A share's usage is weightFactor x (GPUs its jobs hold now + their recent average, an
 * exponential moving average with time constant shareDecaySeconds; 0 = GPUs held now
 * only). The share with the lowest usage goes first; inside a share, the job with the
 * highest schedulingPriority (the trace's priority), then the earliest submit. With
 * computeReservation R, the share identifiers that are active (jobs queued or running,
 * or a job ended less than shareDecaySeconds ago) may hold together at most
 * 1 - (R/100)^active of the cluster's GPUs: the rest waits for share identifiers that are
 * not active yet.
 *
 * Alone, the pick is a share_queue pass (share_queue.h): usage is asked again after every
 * start, so one pass splits free GPUs as the weights say. Under a quota policy, the quota
 * policy schedules and ranks each queue with this policy's order key; computeReservation
 * then has no place to act and is refused.
 *
 * Params: shareIdentifier ("auto" | "user" | "queue"), shareDecaySeconds (0..604800),
 * computeReservation (0..99), shareDistribution ([{shareIdentifier, weightFactor}],
 * weightFactor 0.0001..999.9999, default 1; a name ending in '*' is a prefix).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fairshare.h"
#include "fs_params.h"
#include "policy.h"
#include "share_queue.h"

#define BFS_DECAY_MAX_S 604800.0 /* AWS: at most one week */

struct bfs_share {
	struct fs_recent use;
	double weight;          /* weightFactor */
	uint32_t queued, running;
	sim_time_t last_end_ns; /* SIM_TIME_NONE: none of its jobs ended yet */
};

struct bfs {
	struct share_queue q;   /* standalone only */
	enum fs_account_by by;
	double decay_s;         /* shareDecaySeconds */
	double reservation;     /* computeReservation, percent */
	size_t n;
	struct bfs_share *s;
	struct fs_held *held;   /* per job: whether it runs and the GPUs counted for it */
	sim_qty_t running_mgpu; /* all shares */
	int standalone;
	/* Usage enters the key: alone, or under a quota policy when a queue holds several
	 * share identifiers (by user). With share identifier = queue the quota policy only
	 * compares jobs of one share, whose usage term is the same: it is left out (0), so
	 * starts and stops need not re-rank every queue. */
	int key_usage;
	const struct sim_view *v;
};

/* ---- params ---- */

static int parse_distribution(const struct sim_policy_env *env, const cJSON *params, struct bfs *b,
			      struct sim_diag *diag)
{
	const cJSON *list = params ? cJSON_GetObjectItemCaseSensitive(params, "shareDistribution") : NULL;
	if (!list)
		return 0;
	if (!cJSON_IsArray(list))
		return fs_param_error(env, diag, "shareDistribution",
				      "expected a list of {\"shareIdentifier\": name, \"weightFactor\": number}");
	size_t n = (size_t)cJSON_GetArraySize(list), k = 0;
	const char **names = calloc(n ? n : 1, sizeof *names);
	double *w = calloc(n ? n : 1, sizeof *w);
	if (!names || !w) {
		free(names);
		free(w);
		return -SIM_ENOMEM;
	}
	int bad = 0;
	char key[64];
	for (const cJSON *it = list->child; it; it = it->next, k++) {
		snprintf(key, sizeof key, "shareDistribution[%zu]", k);
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(it, "shareIdentifier");
		const cJSON *wf = cJSON_GetObjectItemCaseSensitive(it, "weightFactor");
		int extra = 0;
		for (const cJSON *f = cJSON_IsObject(it) ? it->child : NULL; f; f = f->next)
			extra |= strcmp(f->string, "shareIdentifier") != 0 && strcmp(f->string, "weightFactor") != 0;
		if (!cJSON_IsObject(it) || !cJSON_IsString(id) || !id->valuestring[0] || extra) {
			bad |= fs_param_error(env, diag, key,
					      "expected {\"shareIdentifier\": name, \"weightFactor\": number}");
			continue;
		}
		names[k] = id->valuestring;
		w[k] = 1.0;
		if (wf && (!cJSON_IsNumber(wf) || !(wf->valuedouble >= 0.0001 && wf->valuedouble <= 999.9999))) {
			char *txt = cJSON_PrintUnformatted(wf);
			bad |= fs_param_error(env, diag, key, "weightFactor: expected a number in [0.0001, 999.9999], got %s",
					      txt ? txt : "?");
			cJSON_free(txt);
			continue;
		}
		if (wf)
			w[k] = wf->valuedouble;
	}
	if (!bad) {
		double *per = malloc(b->n * sizeof *per);
		if (per) {
			for (size_t a = 0; a < b->n; a++)
				per[a] = b->s[a].weight;
			fs_apply_names(n, names, w, b->by, sim_view_trace(env->view), per);
			for (size_t a = 0; a < b->n; a++)
				b->s[a].weight = per[a];
			free(per);
		} else {
			bad = -SIM_ENOMEM;
		}
	}
	free(names);
	free(w);
	return bad ? (bad == -SIM_ENOMEM ? bad : -SIM_EPARSE) : 0;
}

static int bfs_init(struct sim_policy *pol, const struct sim_policy_env *env, const cJSON *params,
		    struct sim_diag *diag)
{
	static const char *const keys[] = { "shareIdentifier", "shareDecaySeconds", "computeReservation",
					    "shareDistribution", NULL };
	struct bfs *b = calloc(1, sizeof *b);
	if (!b)
		return -SIM_ENOMEM;
	pol->priv = b;
	int bad = sim_policy_params_check_keys(env, params, keys, diag);
	bad |= fs_param_account_by(env, params, "shareIdentifier", &b->by, diag);
	bad |= sim_policy_param_double(env, params, "shareDecaySeconds", 0, BFS_DECAY_MAX_S, &b->decay_s, diag);
	bad |= sim_policy_param_double(env, params, "computeReservation", 0, 99, &b->reservation, diag);
	if (bad || !env || !env->view) /* share names need the trace */
		return bad ? -SIM_EPARSE : -SIM_EINVAL;
	const struct sim_trace *t = sim_view_trace(env->view);
	b->v = env->view;
	b->by = fs_account_by_resolve(b->by, t);
	b->n = fs_account_count(b->by, t);
	b->s = calloc(b->n, sizeof *b->s);
	b->held = calloc(t->n_jobs ? t->n_jobs : 1, sizeof *b->held);
	if (!b->s || !b->held)
		return -SIM_ENOMEM;
	for (size_t i = 0; i < b->n; i++) {
		b->s[i].weight = 1.0;
		b->s[i].last_end_ns = SIM_TIME_NONE;
	}
	int rc = parse_distribution(env, params, b, diag);
	if (rc == -SIM_ENOMEM)
		return rc;
	bad |= rc;
	b->standalone = !fs_under_quota(env->view);
	b->key_usage = b->standalone || b->by != FS_ACCOUNT_QUEUE;
	if (!b->standalone && b->reservation > 0)
		bad |= fs_param_error(env, diag, "computeReservation",
				      "expected 0 under a quota policy (the quota policy decides what is admitted), got %g",
				      b->reservation);
	if (bad)
		return -SIM_EPARSE;
	return b->standalone ? share_queue_init(&b->q, b->n) : 0;
}

static void bfs_fini(struct sim_policy *pol)
{
	struct bfs *b = pol->priv;
	if (b) {
		if (b->standalone)
			share_queue_fini(&b->q);
		free(b->s);
		free(b->held);
	}
	free(b);
	pol->priv = NULL;
}

/* ---- state ---- */

static uint32_t share_of(const struct sim_view *v, const struct bfs *b, const struct sim_job *job)
{
	return fs_account_of(b->by, sim_view_trace(v), job);
}

static void enqueue(struct bfs *b, const struct sim_view *v, const struct sim_job *job)
{
	uint32_t s = share_of(v, b, job);
	b->s[s].queued++;
	if (b->standalone)
		share_queue_push(&b->q, s, -(double)job->priority, job);
}

static void bfs_on_submit(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job)
{
	enqueue(pol->priv, v, job);
}

/* GPUs a running job counts for its share: its request on the option it runs. */
static sim_qty_t job_mgpu(const struct sim_view *v, const struct sim_job *job)
{
	int opt = job->opt_chosen >= 0 ? job->opt_chosen : 0;
	return sim_job_opt(sim_view_trace(v), job, opt)->req[SIM_RES_GPU];
}

static void bfs_on_start(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job)
{
	struct bfs *b = pol->priv;
	struct bfs_share *s = &b->s[share_of(v, b, job)];
	sim_qty_t g = job_mgpu(v, job);
	s->queued--;
	s->running++;
	fs_recent_change(&s->use, sim_view_now(v), b->decay_s, g);
	b->held[job->idx] = (struct fs_held){ .mgpu = g, .running = 1 };
	b->running_mgpu += g;
	if (!b->standalone && b->key_usage)
		sim_view_order_changed(v); /* its share's usage grew */
}

/* A job left the running or the queued set; after the call its state says whether it is
 * queued again (requeued after a preemption or a capacity removal) or final. */
static void job_stopped(struct bfs *b, const struct sim_view *v, const struct sim_job *job)
{
	struct bfs_share *s = &b->s[share_of(v, b, job)];
	struct fs_held *jh = &b->held[job->idx];
	if (jh->running) {
		s->running--;
		fs_recent_change(&s->use, sim_view_now(v), b->decay_s, -jh->mgpu);
		b->running_mgpu -= jh->mgpu;
		*jh = (struct fs_held){ 0 };
		s->last_end_ns = sim_view_now(v);
		if (job->state == SIM_JOB_QUEUED)
			enqueue(b, v, job);
	} else if (job->state != SIM_JOB_QUEUED) {
		s->queued--; /* never ran: its stale heap entry is skipped at the head */
		s->last_end_ns = sim_view_now(v);
	}
}

/* After the stop transition: job->state == SIM_JOB_QUEUED means requeued. */
static void bfs_on_stop(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
			enum sim_stop_cause cause)
{
	(void)cause;
	struct bfs *b = pol->priv;
	job_stopped(b, v, job);
	if (!b->standalone && b->key_usage)
		sim_view_order_changed(v); /* its share's usage fell: re-rank the quota policy's queues */
}

/* ---- ranking ---- */

/* weightFactor x usage at now, plus extra_mgpu held (proposed in this pass). Reads only:
 * the average is brought to now on a copy. */
static double share_usage(const struct bfs *b, uint32_t share, sim_qty_t extra_mgpu)
{
	const struct bfs_share *s = &b->s[share];
	struct fs_recent r = s->use;
	fs_recent_advance(&r, sim_view_now(b->v), b->decay_s);
	r.running_mgpu += extra_mgpu;
	return fs_batch_usage(&r, s->weight, b->decay_s);
}

static double score_share(void *arg, uint32_t share, sim_qty_t extra_mgpu)
{
	return share_usage(arg, share, extra_mgpu);
}

/* Active: jobs queued or running, or its last job ended less than shareDecaySeconds ago. */
static unsigned active_shares(const struct bfs *b, sim_time_t now)
{
	unsigned n = 0;
	sim_time_t window = (sim_time_t)(b->decay_s * (double)SIM_NS_PER_S);
	for (size_t i = 0; i < b->n; i++) {
		const struct bfs_share *s = &b->s[i];
		n += s->queued || s->running ||
		     (s->last_end_ns != SIM_TIME_NONE && now - s->last_end_ns < window);
	}
	return n;
}

/* computeReservation: the active shares together stay within 1 - (R/100)^active of the
 * cluster's GPUs. The candidate's share is queued, so it is counted as active. */
static int reservation_allows(void *arg, uint32_t share, const struct sim_job *job, sim_qty_t extra_total_mgpu)
{
	(void)share;
	struct bfs *b = arg;
	if (b->reservation <= 0)
		return 1;
	const struct sim_view *v = b->v;
	double total = (double)sim_cluster_gpu_total(sim_view_cluster(v), -1);
	double cap = (1 - fs_batch_reserved_fraction(b->reservation, active_shares(b, sim_view_now(v)))) * total;
	double want = (double)(b->running_mgpu + extra_total_mgpu +
			       sim_job_opt(sim_view_trace(v), job, 0)->req[SIM_RES_GPU]);
	return want <= cap + 1e-6;
}

/* Context: after all events at now (standalone only). */
static int bfs_pick(struct sim_policy *pol, const struct sim_view *v, struct sim_placement_buf *out)
{
	struct bfs *b = pol->priv;
	static const struct share_queue_ops ops = { .score = score_share, .gate = reservation_allows };
	return share_queue_pick(&b->q, v, out, &ops, b);
}

/* Under a quota policy: (share usage, -schedulingPriority); ties by whoever sorts. */
static void bfs_order_key(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
			  struct sim_order_key *out)
{
	const struct bfs *b = pol->priv;
	double usage = b->key_usage ? share_usage(b, share_of(v, b, job), 0) : 0;
	*out = (struct sim_order_key){ { usage, -(double)job->priority, 0 } };
}

const struct sim_policy_ops batch_fair_share_policy_ops = {
	.name = "batch_fair_share",
	.family = SIM_FAM_ORDER,
	.provides = SIM_CAP_ORDER_KEY,
	.init = bfs_init,
	.fini = bfs_fini,
	.on_submit = bfs_on_submit,
	.on_start = bfs_on_start,
	.on_stop = bfs_on_stop,
	.pick = bfs_pick,
	.order_key = bfs_order_key,
};
