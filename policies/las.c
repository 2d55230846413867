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
 * does. Starvation (promote_knob > 0): a waiting job of a lower queue whose time
 * waited since it first ran (since its last promotion) reaches promote_knob x its
 * run time since then goes back to the end of queue 0 with its attained service
 * reset.
 *
 * Decisions happen at "events" as in Tiresias' simulator: a submit, an end of a
 * job, a capacity change, and the next queue crossing (demotion or promotion),
 * which the policy posts with sim_view_post_event. `demotion` chooses when a
 * running job's crossing is noticed: "tiresias" (default) reproduces the
 * simulator's own wake-up time, floor((threshold - run_s) / gpus) s after the
 * event (run_s: run seconds, not GPU-seconds), one queue per event; "exact" wakes
 * at the exact crossing and moves the job down as many queues as it crossed.
 *
 * Structures (so that a pass costs O((waiting walked + jobs moved) log n), not
 * O(jobs in the system)):
 *  - each queue: its kept jobs (Tiresias' "running" status) in an rs_log by entry
 *    order (entry numbers only grow) with GPU sums, taken as one block when they
 *    fit; its waiting jobs in an
 *    array, in order; the jobs that entered it at this event (submits, demotions,
 *    promotions), in order;
 *  - crossings: running jobs of queue q with g GPUs sit in a heap of group (g, q)
 *    keyed by B = segment start - run time before it: run time now = now - B, so
 *    the group's earliest crossing and Tiresias' earliest wake-up are both at its
 *    smallest B; waiting jobs that may be promoted sit in one heap by the time
 *    their wait reaches promote_knob x their run time.
 * Heap entries carry the job's version (hv) and are dropped when it moved on. A
 * group whose top is not due, or whose bound puts its wake-up after the best one
 * found, is passed over, and an event before every group's top is due (due_lb)
 * walks no group (las_test_plain in las.h turns these off for the tests).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pool_pass.h"
#include "las.h"
#include "rankset.h"

#define LAS_MAX_QUEUES 16

int las_test_plain = 0;
#define LAS_WAKE 1 /* handle of "a pass now"; 0: a crossing */

enum { ST_NONE = 0, ST_WAIT, ST_RUN, ST_END };

struct las_rec {
	sim_time_t exec;   /* run time since entering (or promotion), up to seg (when running) */
	sim_time_t total;  /* run time over the whole life, up to seg */
	sim_time_t seg;    /* start of the current run segment (running) */
	sim_time_t lpend;  /* waiting time after a run since the last promotion, up to since */
	sim_time_t since;  /* waiting since (waiting) */
	double g;          /* GPUs of its option-0 request: attained service = g x run s */
	sim_qty_t pg;      /* GPUs the pool counts */
	uint32_t seq;      /* entry order in its queue (block key, waiting entry) */
	uint32_t hv;       /* version: heap entries of older versions are stale */
	uint8_t q, st;
	uint8_t kept;      /* in its queue's block: kept by the last decision */
	uint8_t fixed;     /* may not be preempted */
};

struct heap_ent {
	int64_t key;
	uint32_t idx, hv;
};

struct heap {
	struct heap_ent *v;
	size_t n, cap;
};

struct group {
	sim_qty_t g;       /* GPU request, milli */
	int q;
	double gpus;       /* g in GPUs */
	double inv_gpus;   /* 1 / gpus: for bounds only (crossing_after) */
	sim_time_t lead;   /* run time (ns) at which a job of the group may cross: a bound, checked */
	struct heap h;
};

struct ent {
	uint32_t idx, seq;
};

struct arr {
	struct ent *v;
	size_t n, cap;
};

struct las_queue {
	struct rs_log block;  /* kept jobs: (seq, idx), pool GPUs (seq only grows) */
	struct arr wait;      /* waiting jobs in order (entries of older seq are stale) */
	struct arr fresh;     /* entered at this event, in order */
	sim_qty_t wait_min;   /* no waiting job asks for fewer GPUs (a bound: INT64_MAX if none) */
};

struct las {
	/* params */
	double thr[LAS_MAX_QUEUES - 1]; /* GPU-s, increasing */
	int k;                          /* queues */
	double knob;                    /* 0 = no promotion */
	int exact;
	/* state */
	struct las_rec *rec;            /* per trace job */
	uint32_t *block_pos;            /* per trace job: its position in its block (rs_log) */
	size_t n_jobs;
	uint32_t seq;                   /* last entry number given */
	struct las_queue q[LAS_MAX_QUEUES];
	struct group *groups;
	size_t n_groups, cap_groups;
	sim_time_t due_lb;              /* no group's top (key + lead) comes before it: a bound kept
					 * by every push and recomputed when the groups are walked, so
					 * an event with nothing due skips the walk (INT64_MAX: none) */
	struct heap promo;              /* waiting jobs by promotion time */
	struct heap order;              /* scratch: starts by rank */
	size_t n_wait;                  /* jobs waiting (queued), by these records */
	struct arr scratch, moved, victims, starts, kept_new;
	sim_time_t event_ns;            /* last time something happened */
	sim_time_t processed_ns;        /* last time the crossings were applied */
	sim_time_t jump_ns;             /* the next crossing (Tiresias' next wake-up), SIM_TIME_NONE: none */
	struct heap posted;             /* times of our timed events still to come */
	sim_time_t preempted_ns;        /* time of the last pass that preempted */
	sim_time_t wake_ns;             /* last time a LAS_WAKE was posted */
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
	l->jump_ns = l->wake_ns = l->preempted_ns = SIM_TIME_NONE;
	l->pool_seen = -1;
	l->due_lb = INT64_MAX;
	for (int q = 0; q < LAS_MAX_QUEUES; q++) {
		rs_log_init(&l->q[q].block, NULL); /* indexed once the trace is known */
		l->q[q].wait_min = INT64_MAX;
	}
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
		free(l->block_pos);
		for (int i = 0; i < LAS_MAX_QUEUES; i++) {
			rs_log_fini(&l->q[i].block);
			free(l->q[i].wait.v);
			free(l->q[i].fresh.v);
		}
		for (size_t i = 0; i < l->n_groups; i++)
			free(l->groups[i].h.v);
		free(l->groups);
		free(l->promo.v);
		free(l->order.v);
		free(l->posted.v);
		free(l->scratch.v);
		free(l->moved.v);
		free(l->victims.v);
		free(l->starts.v);
		free(l->kept_new.v);
	}
	free(l);
	pol->priv = NULL;
}

/* ---- small containers ---- */

static void arr_push(struct las *l, struct arr *a, uint32_t idx, uint32_t seq)
{
	struct ent *nv = sim_grow(a->v, &a->cap, a->n, sizeof *nv, 64);
	if (!nv) {
		l->oom = 1;
		return;
	}
	a->v = nv;
	a->v[a->n++] = (struct ent){ idx, seq };
}

static int heap_before(const struct heap_ent *a, const struct heap_ent *b)
{
	return a->key != b->key ? a->key < b->key : a->idx < b->idx;
}

static void heap_push(struct las *l, struct heap *h, struct heap_ent e)
{
	struct heap_ent *nv = sim_grow(h->v, &h->cap, h->n, sizeof *nv, 64);
	if (!nv) {
		l->oom = 1;
		return;
	}
	h->v = nv;
	size_t i = h->n++;
	for (; i > 0 && heap_before(&e, &h->v[(i - 1) / 2]); i = (i - 1) / 2)
		h->v[i] = h->v[(i - 1) / 2];
	h->v[i] = e;
}

/* Appends without ordering (a plain array of entries, sorted by the caller). */
static void heap_push_back(struct las *l, struct heap *h, struct heap_ent e)
{
	struct heap_ent *nv = sim_grow(h->v, &h->cap, h->n, sizeof *nv, 64);
	if (!nv) {
		l->oom = 1;
		return;
	}
	h->v = nv;
	h->v[h->n++] = e;
}

static void heap_pop(struct heap *h)
{
	struct heap_ent last = h->v[--h->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && heap_before(&h->v[c + 1], &h->v[c]))
			c++;
		if (!heap_before(&h->v[c], &last))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = last;
}

/* The top entry still current, or NULL (stale ones are dropped). */
static const struct heap_ent *heap_top(const struct las *l, struct heap *h)
{
	while (h->n && l->rec[h->v[0].idx].hv != h->v[0].hv)
		heap_pop(h);
	return h->n ? &h->v[0] : NULL;
}

/* ---- per-job state ---- */

static struct las_rec *rec_of(struct las *l, const struct sim_view *v, uint32_t idx)
{
	if (!l->rec) {
		l->n_jobs = sim_view_trace(v)->n_jobs;
		l->rec = calloc(l->n_jobs ? l->n_jobs : 1, sizeof *l->rec);
		l->block_pos = calloc(l->n_jobs ? l->n_jobs : 1, sizeof *l->block_pos);
		if (!l->rec || !l->block_pos) {
			free(l->rec);
			free(l->block_pos);
			l->rec = NULL;
			l->block_pos = NULL;
			l->oom = 1;
			return NULL;
		}
		for (int q = 0; q < LAS_MAX_QUEUES; q++)
			l->q[q].block.pos_of = l->block_pos; /* empty yet; a job is in one block at a time */
	}
	return idx < l->n_jobs ? &l->rec[idx] : NULL;
}

static struct group *group_of(struct las *l, sim_qty_t g, int q)
{
	for (size_t i = 0; i < l->n_groups; i++)
		if (l->groups[i].g == g && l->groups[i].q == q)
			return &l->groups[i];
	struct group *ng = sim_grow(l->groups, &l->cap_groups, l->n_groups, sizeof *ng, 16);
	if (!ng) {
		l->oom = 1;
		return NULL;
	}
	l->groups = ng;
	double gpus = (double)g / (double)SIM_MILLI;
	l->groups[l->n_groups] = (struct group){
		.g = g, .q = q, .gpus = gpus, .inv_gpus = 1.0 / gpus, .lead = (sim_time_t)ceil(l->thr[q] / gpus * (double)SIM_NS_PER_S) - 1 };
	return &l->groups[l->n_groups++];
}

/* A running job below the last queue waits for its crossing in its group's heap. */
static void watch_crossing(struct las *l, uint32_t idx)
{
	struct las_rec *r = &l->rec[idx];
	if (r->st != ST_RUN || r->q >= l->k - 1 || r->g <= 0)
		return;
	struct group *gr = group_of(l, (sim_qty_t)llround(r->g * SIM_MILLI), r->q);
	if (!gr)
		return;
	heap_push(l, &gr->h, (struct heap_ent){ r->seg - r->exec, idx, r->hv });
	if (r->seg - r->exec + gr->lead < l->due_lb)
		l->due_lb = r->seg - r->exec + gr->lead;
}

/* A waiting job that may be promoted waits in the promotion heap. */
static void watch_promotion(struct las *l, uint32_t idx)
{
	struct las_rec *r = &l->rec[idx];
	if (l->knob <= 0 || r->st != ST_WAIT || r->kept || r->q == 0 || r->total <= 0 || r->exec <= 0)
		return;
	double due = (double)r->since - (double)r->lpend + (double)r->exec * l->knob;
	heap_push(l, &l->promo, (struct heap_ent){ (int64_t)floor(due) - 1, idx, r->hv });
}

/* Enters queue q at its end, as a job of this event. */
static void enter(struct las *l, uint32_t idx, int q)
{
	struct las_rec *r = &l->rec[idx];
	r->q = (uint8_t)q;
	r->seq = ++l->seq;
	r->kept = 0;
	r->hv++;
	arr_push(l, &l->q[q].fresh, idx, r->seq);
}

/* ---- crossings posted ---- */

/* When a running job of g GPUs in queue q that has run run_ns crosses, ns after now
 * (-1: not ahead): exact, or Tiresias' wake-up. */
static sim_time_t demotion_in(const struct las *l, double g, int q, sim_time_t run_ns)
{
	if (g <= 0)
		return -1;
	double thr = l->thr[q], run_s = sim_time_to_s(run_ns);
	/* exact: (thr - attained) / g; tiresias: (limit - executed_time) / num_gpu, floored */
	double left_s = l->exact ? (thr - g * run_s) / g : floor((thr - run_s) / g);
	return left_s > 0 ? (sim_time_t)ceil(left_s * (double)SIM_NS_PER_S) : -1;
}

/* Makes `at` the next crossing (SIM_TIME_NONE: none). A timed event is posted only
 * when none of ours comes at or before it: one that comes earlier (the crossing
 * moved later) finds it stale and posts it then. */
static void post_at(struct las *l, const struct sim_view *v, sim_time_t at)
{
	l->jump_ns = at;
	if (at == SIM_TIME_NONE || (l->posted.n && l->posted.v[0].key <= at))
		return;
	if (sim_view_post_event(v, at, SIM_FAM_ORDER, 0))
		l->oom = 1;
	heap_push(l, &l->posted, (struct heap_ent){ at, 0, 0 });
}

static int settle(struct las *l, const struct sim_view *v);

/* ---- notifications ---- */

static void las_on_submit(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job)
{
	struct las *l = pol->priv;
	struct las_rec *r = rec_of(l, v, job->idx);
	if (!r)
		return;
	const struct sim_job_option *o = sim_job_opt(sim_view_trace(v), job, 0);
	*r = (struct las_rec){ .since = sim_view_now(v), .st = ST_WAIT, .fixed = !job->preemptible,
			       .g = (double)o->req[SIM_RES_GPU] / (double)SIM_MILLI, .pg = pool_job_gpus(v, job) };
	enter(l, job->idx, 0);
	l->n_wait++;
	l->event_ns = sim_view_now(v);
}

static void las_on_start(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job)
{
	struct las *l = pol->priv;
	struct las_rec *r = rec_of(l, v, job->idx);
	if (!r || r->st != ST_WAIT)
		return;
	sim_time_t now = sim_view_now(v);
	if (r->exec > 0)
		r->lpend += now - r->since;
	r->st = ST_RUN;
	l->n_wait--;
	r->seg = now;
	r->hv++;
	watch_crossing(l, job->idx);
	/* The decision that started it posted the next crossing without it. */
	sim_time_t d = r->q < l->k - 1 ? demotion_in(l, r->g, r->q, now - (r->seg - r->exec)) : -1;
	if (d > 0 && (l->jump_ns == SIM_TIME_NONE || now + d < l->jump_ns || l->jump_ns <= now))
		post_at(l, v, now + d);
}

/* Every stop: a completion, a preemption (ours or a capacity removal: the job is
 * queued again), a pending timeout (final). */
static void las_on_stop(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
			enum sim_stop_cause cause)
{
	(void)cause;
	struct las *l = pol->priv;
	struct las_rec *r = rec_of(l, v, job->idx);
	if (!r)
		return;
	sim_time_t now = sim_view_now(v);
	if (r->st == ST_RUN) {
		r->exec += now - r->seg;
		r->total += now - r->seg;
	} else if (r->st == ST_WAIT) {
		l->n_wait--;
	}
	r->hv++;
	if (job->state == SIM_JOB_QUEUED) {
		r->st = ST_WAIT;
		l->n_wait++;
		r->since = now;
		watch_promotion(l, job->idx);
	} else {
		if (r->kept)
			rs_log_erase(&l->q[r->q].block, (struct rs_key){ r->seq, job->idx });
		r->kept = 0;
		r->st = ST_END;
	}
	/* An end is an event even when nothing waits (the engine then runs no pass of
	 * its own): attained service and crossings are updated at it, as in Tiresias. */
	l->event_ns = now;
	if (!l->n_wait && !settle(l, v)) {
		if (l->wake_ns != now && sim_view_post_event(v, now, SIM_FAM_ORDER, LAS_WAKE))
			l->oom = 1;
		l->wake_ns = now;
	}
}

/* One of our timed events: the next crossing is due now (an event), or it moved
 * later since it was posted (stale: post it for its time). */
static void las_on_event(struct sim_policy *pol, const struct sim_view *v, uint32_t handle)
{
	struct las *l = pol->priv;
	sim_time_t now = sim_view_now(v);
	if (handle == LAS_WAKE)
		return; /* posted by a notification at this time, which marked it */
	while (l->posted.n && l->posted.v[0].key <= now)
		heap_pop(&l->posted);
	if (l->jump_ns == now) {
		l->event_ns = now;
		return;
	}
	if (l->jump_ns != SIM_TIME_NONE && l->jump_ns > now)
		post_at(l, v, l->jump_ns);
}

/* ---- crossings at an event ---- */

static double attained(const struct las_rec *r, sim_time_t now)
{
	return r->g * sim_time_to_s(r->exec + (r->st == ST_RUN ? now - r->seg : 0));
}

/* Running jobs of one group whose crossing is due, into l->moved. */
static void due_demotions(struct las *l, struct group *gr, sim_time_t now)
{
	/* The top, current or stale, has the smallest key: when it is not due, no job
	 * of the group is (this skips the look at its record). */
	if (!las_test_plain && (!gr->h.n || gr->h.v[0].key + gr->lead > now))
		return;
	const struct heap_ent *e;
	while ((e = heap_top(l, &gr->h)) && e->key + gr->lead <= now) {
		const struct las_rec *r = &l->rec[e->idx];
		double a = attained(r, now);
		if (l->exact ? a < l->thr[gr->q] - 1e-6 : a < l->thr[gr->q])
			break; /* rounding: not yet (later entries cross later still) */
		arr_push(l, &l->moved, e->idx, 0);
		heap_pop(&gr->h);
	}
}

/* Waiting jobs whose promotion is due, into l->moved. */
static void due_promotions(struct las *l, sim_time_t now)
{
	const struct heap_ent *e;
	while ((e = heap_top(l, &l->promo)) && e->key <= now) {
		const struct las_rec *r = &l->rec[e->idx];
		if ((double)(r->lpend + now - r->since) < (double)r->exec * l->knob)
			break;
		arr_push(l, &l->moved, e->idx, 1);
		heap_pop(&l->promo);
	}
}

static int by_idx(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Sorts that are most often of a handful of entries (the crossings and starts of one
 * event): insertion sort up to SMALL_SORT entries, qsort above (its call and merge
 * set-up cost more than the sort there). Both orders are the same: keys are unique
 * (job indices; queue and entry number). Under las_test_plain every sort is qsort. */
#define SMALL_SORT 16
#define DEFINE_SMALL_SORT(name, type, field, cmp)                                          \
	static void name(type *v, size_t n)                                                \
	{                                                                                  \
		if (n > SMALL_SORT || las_test_plain) { /* plain: qsort always, the oracle */ \
			qsort(v, n, sizeof *v, cmp);                                       \
			return;                                                            \
		}                                                                          \
		for (size_t i = 1; i < n; i++) {                                           \
			type x = v[i];                                                     \
			size_t j = i;                                                      \
			for (; j > 0 && v[j - 1].field > x.field; j--)                     \
				v[j] = v[j - 1];                                           \
			v[j] = x;                                                          \
		}                                                                          \
	}
DEFINE_SMALL_SORT(sort_ents, struct ent, idx, by_idx)

/* Applies every crossing due at now, in submit order as Tiresias' update loop. */
static void apply_crossings(struct las *l, sim_time_t now)
{
	l->moved.n = 0;
	/* No top due (each top, current or stale, has its group's smallest key): every
	 * due_demotions would return at its first test. */
	if (las_test_plain || now >= l->due_lb) {
		sim_time_t lb = INT64_MAX;
		for (size_t i = 0; i < l->n_groups; i++) {
			struct group *gr = &l->groups[i];
			due_demotions(l, gr, now);
			if (gr->h.n && gr->h.v[0].key + gr->lead < lb)
				lb = gr->h.v[0].key + gr->lead;
		}
		l->due_lb = lb;
	}
	due_promotions(l, now);
	if (l->moved.n > 1) /* qsort of NULL, 0 is undefined */
		sort_ents(l->moved.v, l->moved.n);
	for (size_t i = 0; i < l->moved.n; i++) {
		uint32_t idx = l->moved.v[i].idx;
		struct las_rec *r = &l->rec[idx];
		if (l->moved.v[i].seq) { /* promotion: back to queue 0, attained service reset */
			r->exec = 0;
			r->lpend = 0;
			enter(l, idx, 0);
			continue;
		}
		int q = r->q + 1;
		while (l->exact && q < l->k - 1 && attained(r, now) >= l->thr[q] - 1e-6)
			q++;
		if (r->kept)
			rs_log_erase(&l->q[r->q].block, (struct rs_key){ r->seq, idx });
		/* its run so far stays in exec; a new segment base for the next crossing */
		r->exec += now - r->seg;
		r->total += now - r->seg;
		r->seg = now;
		enter(l, idx, q);
		watch_crossing(l, idx);
	}
}

/* ---- the decision ---- */

/* One queue's block against *free_gpus: kept whole when it fits, else from the
 * first job that does not fit each is kept in what is left or dropped (appended to
 * l->scratch in block order, and taken out of the block). */
static void decide_block(struct las *l, struct las_queue *qq, sim_qty_t *free_gpus)
{
	struct rs_log *b = &qq->block;
	if (b->total <= *free_gpus) {
		*free_gpus -= b->total;
		return;
	}
	ptrdiff_t p = rs_log_first_exceeding(b, *free_gpus);
	if (p < 0)
		return;
	*free_gpus -= rs_log_prefix(b, (size_t)p);
	size_t first = l->scratch.n;
	for (; p >= 0; p = rs_log_next(b, p)) {
		struct rs_key e = b->key[p];
		if (b->w[p] <= *free_gpus || l->rec[e.idx].fixed)
			*free_gpus -= b->w[p];
		else
			arr_push(l, &l->scratch, e.idx, (uint32_t)e.k);
	}
	for (size_t i = first; i < l->scratch.n; i++)
		rs_log_erase(b, (struct rs_key){ l->scratch.v[i].seq, l->scratch.v[i].idx });
}

/* A job of the waiting list or the new ones is still there (not moved, not ended). */
static int live(const struct las *l, const struct ent *e, int q)
{
	const struct las_rec *r = &l->rec[e->idx];
	return r->seq == e->seq && r->q == q && !r->kept && r->st != ST_END;
}

/* Tries the waiting jobs, then the new ones, of queue q against *free_gpus; the
 * kept ones go to l->kept_new (in order), the others form the new waiting list:
 * the jobs dropped from the block first (l->scratch from `dropped`), then the
 * waiting ones, then the new ones. Running jobs not kept go to l->victims. */
static void decide_rest(struct las *l, int q, sim_qty_t *free_gpus, size_t dropped)
{
	struct las_queue *qq = &l->q[q];
	struct arr *out = &l->moved; /* reused: the new waiting list */
	out->n = 0;
	for (size_t i = dropped; i < l->scratch.n; i++) {
		arr_push(l, out, l->scratch.v[i].idx, l->scratch.v[i].seq);
		l->rec[l->scratch.v[i].idx].kept = 0;
		if (l->rec[l->scratch.v[i].idx].st == ST_RUN)
			arr_push(l, &l->victims, l->scratch.v[i].idx, 0);
		else
			watch_promotion(l, l->scratch.v[i].idx);
	}
	/* Nothing of the waiting list can be kept and nothing goes before it: it stays. */
	int untouched = *free_gpus < qq->wait_min && out->n == 0;
	for (int part = 0; part < 2; part++) {
		struct arr *in = part ? &qq->fresh : &qq->wait;
		if (!part && untouched)
			continue;
		for (size_t i = 0; i < in->n; i++) {
			const struct ent *e = &in->v[i];
			if (!live(l, e, q))
				continue;
			struct las_rec *r = &l->rec[e->idx];
			if (r->pg <= *free_gpus || (r->st == ST_RUN && r->fixed)) {
				*free_gpus -= r->pg;
				arr_push(l, &l->kept_new, e->idx, e->seq);
				continue;
			}
			if (r->st == ST_RUN)
				arr_push(l, &l->victims, e->idx, 0);
			arr_push(l, out, e->idx, e->seq);
		}
	}
	sim_qty_t m = untouched ? qq->wait_min : INT64_MAX;
	for (size_t i = 0; i < out->n; i++)
		if (l->rec[out->v[i].idx].pg < m)
			m = l->rec[out->v[i].idx].pg;
	qq->wait_min = m;
	if (untouched) { /* the waiting list as is, then the new ones not kept */
		for (size_t i = 0; i < out->n; i++)
			arr_push(l, &qq->wait, out->v[i].idx, out->v[i].seq);
	} else {
		struct arr t = qq->wait;
		qq->wait = *out;
		*out = t;
	}
	qq->fresh.n = 0;
}

/* The kept jobs of this decision that were not kept before join their queue's
 * block at its end, in order (new entry numbers keep the order). */
static void join_blocks(struct las *l)
{
	for (size_t i = 0; i < l->kept_new.n; i++) {
		uint32_t idx = l->kept_new.v[i].idx;
		struct las_rec *r = &l->rec[idx];
		r->seq = ++l->seq;
		r->kept = 1;
		if (r->st == ST_WAIT)
			r->hv++; /* leaves the promotion heap (a running job keeps its crossing) */
		if (rs_log_append(&l->q[r->q].block, (struct rs_key){ r->seq, idx }, r->pg))
			l->oom = 1;
	}
}

/* Whether no job of the group can have its Tiresias wake-up before best ns from
 * now: a bound from the heap's top as it stands (current or stale: its key is the
 * smallest, so its run time the longest and its wake-up the earliest), with a
 * multiplication instead of demotion_in's division and a margin of 4 s plus 1e-12 of
 * the value for the rounding (demotion_in floors whole seconds). */
static int crossing_after(const struct las *l, const struct group *gr, sim_time_t now, sim_time_t best)
{
	if (!gr->h.n)
		return 1;
	double left_s = (l->thr[gr->q] - (double)(now - gr->h.v[0].key) * 1e-9) * gr->inv_gpus;
	return (left_s - 1e-12 * fabs(left_s) - 4.0) * (double)SIM_NS_PER_S > (double)best;
}

/* Tiresias' next wake-up over the running jobs of every group and the waiting
 * jobs that may be promoted, ns after now (-1: none). */
static sim_time_t next_crossing_in(struct las *l, sim_time_t now)
{
	sim_time_t best = -1;
	for (size_t i = 0; i < l->n_groups; i++) {
		if (!las_test_plain && !l->exact && best > 0 && crossing_after(l, &l->groups[i], now, best))
			continue;
		const struct heap_ent *e = heap_top(l, &l->groups[i].h);
		if (!e)
			continue;
		sim_time_t d = demotion_in(l, l->groups[i].gpus, l->groups[i].q, now - e->key);
		if (d > 0 && (best < 0 || d < best))
			best = d;
	}
	const struct heap_ent *e = heap_top(l, &l->promo);
	if (e) {
		const struct las_rec *r = &l->rec[e->idx];
		double diff_s = sim_time_to_s(r->exec) * l->knob - sim_time_to_s(r->lpend + now - r->since);
		if (!l->exact)
			diff_s = trunc(diff_s); /* Tiresias: int() of seconds */
		sim_time_t d = diff_s > 0 ? (sim_time_t)ceil(diff_s * (double)SIM_NS_PER_S) : -1;
		if (d > 0 && (best < 0 || d < best))
			best = d;
	}
	return best;
}

/* Posts the next crossing, when it moved. */
static int post_next(struct las *l, const struct sim_view *v)
{
	sim_time_t now = sim_view_now(v), d = next_crossing_in(l, now);
	post_at(l, v, d > 0 ? now + d : SIM_TIME_NONE);
	return l->oom ? -SIM_ENOMEM : 0;
}

static int by_key(const void *a, const void *b)
{
	const struct heap_ent *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* As sort_ents, by key. */
DEFINE_SMALL_SORT(sort_heap_ents, struct heap_ent, key, by_key)

/* Kept jobs that do not run yet (this decision's, and earlier ones whose start did
 * not happen), in rank order (queue, then entry), into l->starts. */
static void collect_starts(struct las *l)
{
	l->order.n = 0;
	for (int part = 0; part < 2; part++) {
		const struct arr *a = part ? &l->kept_new : &l->starts;
		for (size_t i = 0; i < a->n; i++) {
			const struct las_rec *r = &l->rec[a->v[i].idx];
			if (r->kept && r->st == ST_WAIT && (part || a->v[i].seq == r->seq))
				heap_push_back(l, &l->order, (struct heap_ent){ ((int64_t)r->q << 32) | r->seq,
									    a->v[i].idx, 0 });
		}
	}
	if (l->order.n > 1) /* qsort of NULL, 0 is undefined */
		sort_heap_ents(l->order.v, l->order.n);
	l->starts.n = 0;
	for (size_t i = 0; i < l->order.n; i++)
		arr_push(l, &l->starts, l->order.v[i].idx, l->rec[l->order.v[i].idx].seq);
}

static int propose(struct las *l, struct sim_placement_buf *out)
{
	for (size_t i = 0; i < l->victims.n; i++) {
		uint32_t by = l->starts.n ? l->starts.v[0].idx : l->victims.v[i].idx;
		int rc = sim_placement_buf_preempt(out, l->victims.v[i].idx, by, SIM_PR_ORDER, 1);
		if (rc && rc != -SIM_ESTATE)
			return rc;
	}
	for (size_t i = 0; i < l->starts.n; i++) {
		/* -SIM_ENOFIT: the victims' GPUs (the next pass at this time) or fragments */
		int rc = sim_placement_buf_try(out, l->starts.v[i].idx, -1);
		if (rc && rc != -SIM_ENOFIT && rc != -SIM_ESTATE)
			return rc;
	}
	return 0;
}

/* The decision at now (crossings first, once a time), into l->victims and l->starts. */
static void decide_all(struct las *l, sim_time_t now, sim_qty_t free_gpus)
{
	if (l->processed_ns != now) {
		apply_crossings(l, now);
		l->processed_ns = now;
	}
	l->victims.n = l->kept_new.n = l->scratch.n = 0;
	for (int q = 0; q < l->k; q++) {
		size_t dropped = l->scratch.n;
		decide_block(l, &l->q[q], &free_gpus);
		decide_rest(l, q, &free_gpus, dropped);
	}
	join_blocks(l);
	collect_starts(l);
}

/* An end while nothing waits, decided in the notification: crossings and queue
 * order change, nothing starts or stops (all running jobs fit). 0 when that does
 * not hold (the pool changed): a pass must decide. */
static int settle(struct las *l, const struct sim_view *v)
{
	if (sim_cluster_gpu_total(sim_view_cluster(v), -1) != l->pool_seen)
		return 0;
	decide_all(l, sim_view_now(v), l->pool_seen);
	if (l->victims.n || l->starts.n)
		return 0;
	post_next(l, v);
	return 1;
}

/* Context: the decision pass; again after a pass that preempted. */
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
	decide_all(l, now, pool);
	if (l->oom)
		return -SIM_ENOMEM;
	/* A second pass at the time of one that preempted proposes starts only (as
	 * srtf.c): the jobs it would preempt stay running and are decided again at the
	 * next event. */
	if (l->preempted_ns == now)
		l->victims.n = 0;
	else if (l->victims.n)
		l->preempted_ns = now;
	int rc = propose(l, out);
	return rc ? rc : post_next(l, v);
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
