/* policies/las.c: Tiresias' discretized two-dimensional LAS, "dlas-gpu"
 * (Gu et al., NSDI'19; rules in docs/baselines.md).
 *
 * Attained service = GPUs x seconds run, over every segment since the job entered
 * the system (or since its last promotion). K queues split by thresholds (GPU-s):
 * a new job enters queue 0; a job whose attained service reaches the threshold of
 * its queue moves to the end of the next one. Queues are served in order, each in
 * its own list order, by the pool step (pool_pass.h): whoever fits what is left of
 * the pool runs, a running job not kept is preempted. After each decision the jobs
 * kept move ahead of the waiting ones in their queue (stable), as Tiresias' loop
 * does, so a waiting job never overtakes a running one of its own queue later.
 * Starvation (promote_knob > 0): a waiting job of a lower queue whose time waited
 * since it first ran (since its last promotion) reaches promote_knob x its run
 * time since then goes back to the end of queue 0 with its attained service reset.
 *
 * Decisions happen at "events" as in Tiresias' simulator: a submit, an end of a
 * job, a capacity change, and the next queue crossing (demotion or promotion),
 * which the policy posts with sim_view_post_event. Attained service is brought up
 * to date at each event; a pass of the engine at another time (a stale posted
 * event) changes nothing. `demotion` chooses when a running job's crossing is
 * noticed: "tiresias" (default) reproduces the simulator's own wake-up time,
 * floor((threshold - run_s) / gpus) s after the event (run_s: the job's run
 * seconds, not GPU-seconds, so a multi-GPU job may be demoted late, at its next
 * event), one queue per event; "exact" wakes at the exact crossing and moves the
 * job down as many queues as it crossed.
 *
 * Per job: a record (arrays over the trace, allocated at the first notification).
 * Queues: arrays of (job, seq) entries; an entry is stale when the job's seq moved
 * (it changed queue), so moves are O(1) and each decision compacts.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pool_pass.h"

#define LAS_MAX_QUEUES 16
#define LAS_WAKE UINT32_MAX /* handle of "a pass now"; crossings count from 1 */

enum { ST_NONE = 0, ST_PENDING, ST_RUNNING, ST_ENDED };

struct las_rec {
	sim_time_t exec_ns;     /* run time since entering (or promotion): decides the queue */
	sim_time_t total_ns;    /* run time over the whole life */
	sim_time_t lpend_ns;    /* waiting time after first run since the last promotion */
	sim_time_t last_check;  /* time of the last update */
	uint32_t seq;           /* bumped at every queue move: stale entries differ */
	uint32_t promotions;
	uint8_t q, st;
};

struct las_ent {
	uint32_t idx, seq;
};

struct las_queue {
	struct las_ent *v;
	size_t n, cap;
};

struct las {
	/* params */
	double thr[LAS_MAX_QUEUES - 1]; /* GPU-s, increasing */
	int k;                          /* queues */
	double knob;                    /* 0 = no promotion */
	int exact;
	/* state */
	struct las_rec *rec;            /* per trace job */
	size_t n_jobs;
	uint32_t *runnable;             /* submitted jobs not ended, submit order */
	size_t n_run, cap_run;
	struct las_queue q[LAS_MAX_QUEUES];
	uint32_t *rank;                 /* scratch: queues concatenated */
	uint8_t *keep;
	size_t cap_rank;
	sim_time_t event_ns;            /* last time something happened */
	sim_time_t processed_ns;        /* last time the update ran */
	sim_time_t jump_ns;             /* next crossing posted, SIM_TIME_NONE: none */
	sim_time_t wake_ns;             /* last time a LAS_WAKE was posted */
	uint32_t jump_gen;              /* handle of the valid posted event */
	sim_qty_t pool_seen;            /* pool size at the last decision */
	int oom;
};

/* ---- params ---- */

static int parse_thresholds(struct las *l, const struct sim_policy_env *env, const cJSON *params,
			    struct sim_diag *diag)
{
	const cJSON *a = params ? cJSON_GetObjectItemCaseSensitive(params, "thresholds_gpu_s") : NULL;
	if (!a)
		return 0;
	const char *file = env && env->file ? env->file : "config";
	const char *path = env && env->json_path ? env->json_path : "$";
	int n = cJSON_IsArray(a) ? cJSON_GetArraySize(a) : -1;
	if (n < 0 || n > LAS_MAX_QUEUES - 1)
		return sim_diag_add(diag, file, "%s.thresholds_gpu_s: expected a list of 0 to %d numbers, got %s",
				    path, LAS_MAX_QUEUES - 1, n < 0 ? "no list" : "more");
	double prev = 0;
	for (int i = 0; i < n; i++) {
		const cJSON *it = cJSON_GetArrayItem(a, i);
		double x = cJSON_IsNumber(it) ? it->valuedouble : NAN;
		if (!isfinite(x) || x <= prev || x > 1e15)
			return sim_diag_add(diag, file,
					    "%s.thresholds_gpu_s[%d]: expected a number above %g (increasing, at most 1e15 GPU-s)",
					    path, i, prev);
		l->thr[i] = prev = x;
	}
	l->k = n + 1;
	return 0;
}

static int parse_demotion(struct las *l, const struct sim_policy_env *env, const cJSON *params,
			  struct sim_diag *diag)
{
	const cJSON *d = params ? cJSON_GetObjectItemCaseSensitive(params, "demotion") : NULL;
	if (!d)
		return 0;
	if (cJSON_IsString(d) && strcmp(d->valuestring, "tiresias") == 0)
		return 0;
	if (cJSON_IsString(d) && strcmp(d->valuestring, "exact") == 0) {
		l->exact = 1;
		return 0;
	}
	return sim_diag_add(diag, env && env->file ? env->file : "config",
			    "%s.demotion: expected \"tiresias\" or \"exact\"", env ? env->json_path : "$");
}

static int las_init(struct sim_policy *pol, const struct sim_policy_env *env, const cJSON *params,
		    struct sim_diag *diag)
{
	static const char *const keys[] = { "thresholds_gpu_s", "promote_knob", "demotion", NULL };
	struct las *l = calloc(1, sizeof *l);
	if (!l)
		return -SIM_ENOMEM;
	pol->priv = l;
	/* Tiresias' simulator (jobs.py): 3 queues, limits 3,250 and 7,200 GPU-s. */
	l->thr[0] = 3250;
	l->thr[1] = 7200;
	l->k = 3;
	l->event_ns = l->processed_ns = SIM_TIME_NONE;
	l->jump_ns = l->wake_ns = SIM_TIME_NONE;
	l->pool_seen = -1;
	int bad = sim_policy_params_check_keys(env, params, keys, diag);
	bad |= parse_thresholds(l, env, params, diag);
	bad |= sim_policy_param_double(env, params, "promote_knob", 0, 1e9, &l->knob, diag);
	bad |= parse_demotion(l, env, params, diag);
	return bad ? -SIM_EPARSE : 0;
}

static void las_fini(struct sim_policy *pol)
{
	struct las *l = pol->priv;
	if (l) {
		free(l->rec);
		free(l->runnable);
		for (int i = 0; i < LAS_MAX_QUEUES; i++)
			free(l->q[i].v);
		free(l->rank);
		free(l->keep);
	}
	free(l);
	pol->priv = NULL;
}

/* ---- state ---- */

static struct las_rec *rec_of(struct las *l, const struct sim_view *v, uint32_t idx)
{
	if (!l->rec) {
		l->n_jobs = sim_view_trace(v)->n_jobs;
		l->rec = calloc(l->n_jobs ? l->n_jobs : 1, sizeof *l->rec);
		if (!l->rec) {
			l->oom = 1;
			return NULL;
		}
	}
	return idx < l->n_jobs ? &l->rec[idx] : NULL;
}

static void queue_push(struct las *l, int q, uint32_t idx)
{
	struct las_queue *qq = &l->q[q];
	struct las_ent *nv = sim_grow(qq->v, &qq->cap, qq->n, sizeof *nv, 64);
	if (!nv) {
		l->oom = 1;
		return;
	}
	qq->v = nv;
	qq->v[qq->n++] = (struct las_ent){ .idx = idx, .seq = l->rec[idx].seq };
}

/* Moves a job to the end of queue q (its old entry goes stale). */
static void move_to(struct las *l, uint32_t idx, int q)
{
	l->rec[idx].q = (uint8_t)q;
	l->rec[idx].seq++;
	queue_push(l, q, idx);
}

static void las_on_submit(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job)
{
	struct las *l = pol->priv;
	struct las_rec *r = rec_of(l, v, job->idx);
	uint32_t *nr = sim_grow(l->runnable, &l->cap_run, l->n_run, sizeof *nr, 256);
	if (!r || !nr) {
		l->oom = 1;
		return;
	}
	l->runnable = nr;
	l->runnable[l->n_run++] = job->idx;
	*r = (struct las_rec){ .last_check = sim_view_now(v), .st = ST_PENDING };
	queue_push(l, 0, job->idx);
	l->event_ns = sim_view_now(v);
}

static void las_on_start(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job)
{
	struct las *l = pol->priv;
	struct las_rec *r = rec_of(l, v, job->idx);
	if (!r)
		return;
	r->st = ST_RUNNING;
	r->last_check = sim_view_now(v);
}

/* The job stopped running or waiting: its run so far counts; queued again or gone. */
static void las_stopped(struct las *l, const struct sim_view *v, const struct sim_job *job)
{
	struct las_rec *r = rec_of(l, v, job->idx);
	if (!r)
		return;
	sim_time_t now = sim_view_now(v);
	if (r->st == ST_RUNNING) {
		r->exec_ns += now - r->last_check;
		r->total_ns += now - r->last_check;
		r->last_check = now;
	}
	r->st = job->state == SIM_JOB_QUEUED ? ST_PENDING : ST_ENDED;
	/* An end is an event even when nothing waits (the engine runs no pass then):
	 * attained service and crossings are updated at it, as in Tiresias. */
	if (l->wake_ns != now && sim_view_post_event(v, now, SIM_FAM_ORDER, LAS_WAKE))
		l->oom = 1;
	l->wake_ns = now;
	l->event_ns = now;
}

/* Every stop: a completion, a preemption (ours or a capacity removal: the job is
 * queued again), a pending timeout (final). */
static void las_on_stop(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
			enum sim_stop_cause cause)
{
	(void)cause;
	las_stopped(pol->priv, v, job);
}

/* The crossing posted last is due: this time is an event. Older postings are stale. */
static void las_on_event(struct sim_policy *pol, const struct sim_view *v, uint32_t handle)
{
	struct las *l = pol->priv;
	if (handle == LAS_WAKE)
		return; /* posted by a notification at this time, which marked it */
	if (handle == l->jump_gen && l->jump_ns == sim_view_now(v)) {
		l->event_ns = sim_view_now(v);
		l->jump_ns = SIM_TIME_NONE;
	}
}

/* GPUs a job's attained service counts (its option 0 request). */
static double job_gpus(const struct sim_view *v, uint32_t idx)
{
	const struct sim_job *j = sim_view_job(v, idx);
	return (double)sim_job_opt(sim_view_trace(v), j, 0)->req[SIM_RES_GPU] / (double)SIM_MILLI;
}

/* A running job: its run time grows; it moves down at a threshold. */
static void update_running(struct las *l, const struct sim_view *v, uint32_t idx, sim_time_t dt)
{
	struct las_rec *r = &l->rec[idx];
	r->exec_ns += dt;
	r->total_ns += dt;
	double attained = job_gpus(v, idx) * sim_time_to_s(r->exec_ns);
	int q = r->q;
	if (l->exact) {
		while (q < l->k - 1 && attained >= l->thr[q] - 1e-6)
			q++;
	} else if (q < l->k - 1 && attained >= l->thr[q]) {
		q++; /* one queue an event, as Tiresias' simulator */
	}
	if (q != r->q)
		move_to(l, idx, q);
}

/* A waiting job: its wait since it first ran counts towards a promotion. */
static void update_pending(struct las *l, uint32_t idx, sim_time_t dt)
{
	struct las_rec *r = &l->rec[idx];
	if (r->exec_ns > 0)
		r->lpend_ns += dt;
	if (l->knob > 0 && r->q > 0 && r->total_ns > 0 && r->exec_ns > 0 &&
	    (double)r->lpend_ns >= (double)r->exec_ns * l->knob) {
		r->exec_ns = 0;
		r->lpend_ns = 0;
		r->promotions++;
		move_to(l, idx, 0);
	}
}

/* Brings every record up to now, in submit order (the order of the moves it makes),
 * and drops the ended jobs from the runnable list. */
static void update_all(struct las *l, const struct sim_view *v, sim_time_t now)
{
	size_t w = 0;
	for (size_t i = 0; i < l->n_run; i++) {
		uint32_t idx = l->runnable[i];
		struct las_rec *r = &l->rec[idx];
		if (r->st == ST_ENDED)
			continue;
		l->runnable[w++] = idx;
		sim_time_t dt = now - r->last_check;
		r->last_check = now;
		if (r->st == ST_RUNNING)
			update_running(l, v, idx, dt);
		else
			update_pending(l, idx, dt);
	}
	l->n_run = w;
}

/* ---- the decision ---- */

static int rank_fit(struct las *l, size_t n)
{
	if (n <= l->cap_rank)
		return 0;
	size_t c = n * 2;
	uint32_t *r = realloc(l->rank, c * sizeof *r);
	if (!r)
		return -SIM_ENOMEM;
	l->rank = r;
	uint8_t *k = realloc(l->keep, c);
	if (!k)
		return -SIM_ENOMEM;
	l->keep = k;
	l->cap_rank = c;
	return 0;
}

/* Compacts every queue (drops stale and ended entries) and concatenates them into
 * rank; bounds[q] is where queue q starts in rank. */
static int build_rank(struct las *l, size_t *bounds)
{
	size_t total = 0;
	for (int q = 0; q < l->k; q++)
		total += l->q[q].n;
	int rc = rank_fit(l, total);
	if (rc)
		return rc;
	size_t n = 0;
	for (int q = 0; q < l->k; q++) {
		bounds[q] = n;
		struct las_queue *qq = &l->q[q];
		size_t w = 0;
		for (size_t i = 0; i < qq->n; i++) {
			const struct las_rec *r = &l->rec[qq->v[i].idx];
			if (r->seq != qq->v[i].seq || r->q != q || r->st == ST_ENDED)
				continue;
			qq->v[w++] = qq->v[i];
			l->rank[n++] = qq->v[i].idx;
		}
		qq->n = w;
	}
	bounds[l->k] = n;
	return 0;
}

/* In each queue, the jobs kept move ahead of the others, both in their order. */
static void reorder(struct las *l, const size_t *bounds)
{
	for (int q = 0; q < l->k; q++) {
		struct las_queue *qq = &l->q[q];
		size_t w = 0;
		for (int pass = 1; pass >= 0; pass--)
			for (size_t i = bounds[q]; i < bounds[q + 1]; i++)
				if (l->keep[i] == pass)
					qq->v[w++] = (struct las_ent){ .idx = l->rank[i], .seq = l->rec[l->rank[i]].seq };
	}
}

/* When a job kept now crosses its queue's threshold, ns after now (-1: never). */
static sim_time_t demotion_in(const struct las *l, const struct sim_view *v, uint32_t idx)
{
	const struct las_rec *r = &l->rec[idx];
	double g = job_gpus(v, idx);
	if (r->q >= l->k - 1 || g <= 0)
		return -1;
	double run_s = sim_time_to_s(r->exec_ns), left_s;
	if (l->exact)
		left_s = (l->thr[r->q] - g * run_s) / g;
	else /* Tiresias: (limit - executed_time) / num_gpu, whole seconds, floored */
		left_s = floor((l->thr[r->q] - run_s) / g);
	return left_s > 0 ? (sim_time_t)ceil(left_s * (double)SIM_NS_PER_S) : -1;
}

/* When a waiting job would be promoted, ns after now (-1: never). */
static sim_time_t promotion_in(const struct las *l, uint32_t idx)
{
	const struct las_rec *r = &l->rec[idx];
	if (l->knob <= 0 || r->q == 0 || r->total_ns <= 0 || r->exec_ns <= 0)
		return -1;
	double diff_s = sim_time_to_s(r->exec_ns) * l->knob - sim_time_to_s(r->lpend_ns);
	if (!l->exact)
		diff_s = trunc(diff_s); /* Tiresias: int() of seconds */
	return diff_s > 0 ? (sim_time_t)ceil(diff_s * (double)SIM_NS_PER_S) : -1;
}

/* Posts the next crossing of any job, when it moved. */
static int post_next(struct las *l, const struct sim_view *v, size_t n)
{
	sim_time_t best = -1;
	for (size_t i = 0; i < n; i++) {
		sim_time_t d = l->keep[i] ? demotion_in(l, v, l->rank[i]) : promotion_in(l, l->rank[i]);
		if (d > 0 && (best < 0 || d < best))
			best = d;
	}
	sim_time_t at = best > 0 ? sim_view_now(v) + best : SIM_TIME_NONE;
	if (at == l->jump_ns)
		return 0;
	if (++l->jump_gen == LAS_WAKE)
		l->jump_gen = 1;
	l->jump_ns = at;
	if (at == SIM_TIME_NONE)
		return 0;
	return sim_view_post_event(v, at, SIM_FAM_ORDER, l->jump_gen);
}

/* Context: after all events at now; again after a pass that preempted. */
static int las_pick(struct sim_policy *pol, const struct sim_view *v, struct sim_placement_buf *out)
{
	struct las *l = pol->priv;
	if (l->oom)
		return -SIM_ENOMEM;
	sim_time_t now = sim_view_now(v);
	sim_qty_t pool = sim_cluster_gpu_total(sim_view_cluster(v), -1);
	if (pool != l->pool_seen) {
		l->pool_seen = pool;
		l->event_ns = now;
	}
	if (l->event_ns != now || !l->rec)
		return 0; /* a stale posted crossing: nothing happened */
	if (l->processed_ns != now) {
		update_all(l, v, now);
		l->processed_ns = now;
	}
	size_t bounds[LAS_MAX_QUEUES + 1];
	int rc = build_rank(l, bounds);
	if (rc)
		return rc;
	size_t n = bounds[l->k];
	if ((rc = pool_pass_apply(v, l->rank, n, l->keep, out)))
		return rc;
	reorder(l, bounds);
	return l->oom ? -SIM_ENOMEM : post_next(l, v, n);
}

const struct sim_policy_ops las_policy_ops = {
	.name = "las",
	.family = SIM_FAM_ORDER,
	.init = las_init,
	.fini = las_fini,
	.on_submit = las_on_submit,
	.on_start = las_on_start,
	.on_stop = las_on_stop,
	.on_event = las_on_event,
	.pick = las_pick,
};
