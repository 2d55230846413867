/* policies/srtf.c: preemptive shortest remaining time first (docs/baselines.md).
 *
 * At every decision pass the queued and running jobs are ranked by remaining time,
 * shortest first (ties by trace index), and the pool step of pool_pass.h is applied:
 * each job that fits what is left of the GPUs is kept, running jobs not kept are
 * preempted. This is the "shortest" scheduler of Tiresias' simulator.
 *
 * Remaining time (ns): a running job's end of segment minus now (its wall time
 * left); a queued job's true run time (pool_job_runtime) times the share of its
 * work not yet saved (1 - progress). A victim keeps only what its checkpoints
 * saved (docs/design.md section 2), so without checkpoints it starts again from
 * its full length. Standalone only: its order is not a fixed key (no
 * SIM_CAP_ORDER_KEY).
 *
 * Cost. Running jobs sit in an rs_blocks by end time (their remaining times all
 * fall at the same rate, so that order is fixed; a sorted sequence in blocks, whose
 * inserts and erases, one at every start and stop, cost a move in contiguous
 * memory where a treap's cost a path of cache misses), waiting jobs in a rankset
 * by remaining time (its weight bounds find the next job that fits).
 * A pass visits, in rank order, only the waiting jobs that fit what is left of the
 * GPUs (the set finds the next one, skipping heavier subtrees); the running jobs
 * ranked between two visits are taken as one block by their GPU sum, and walked one
 * by one only where the block does not fit (each of those is kept in the little
 * room left or preempted). O((waiting visited + victims) log n) a pass. The
 * running jobs' sum before a waiting job is computed only where the slack does not
 * already decide it, and the waiting jobs are walked by a cursor (decide_fast;
 * walk_exact is the plain walk, its fallback and the tests' oracle).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pool_pass.h"
#include "rankset.h"
#include "srtf.h"

enum { ST_NONE = 0, ST_WAIT, ST_RUN, ST_FIXED };

struct srtf_job {
	int64_t key;    /* its key in run or wait */
	sim_qty_t gpus; /* GPUs the pool counts */
	uint8_t st;     /* ST_* */
};

struct srtf {
	struct rs_blocks run; /* preemptible running jobs: (end_ns, idx), GPUs */
	struct rankset wait;  /* queued jobs: (remaining ns, idx), GPUs */
	struct srtf_job *job; /* per job, by index: one record, so a notification touches one
			       * cache line of it rather than one in each of three arrays */
	size_t n_jobs;
	sim_qty_t fixed;      /* GPUs of running jobs that may not be preempted */
	sim_time_t preempted_ns; /* time of the last pass that preempted */
	uint32_t *victims, *starts; /* scratch of a pass */
	size_t n_victims, cap_victims, n_starts, cap_starts;
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
	rs_blocks_init(&s->run);
	rs_init(&s->wait);
	s->preempted_ns = SIM_TIME_NONE;
	pol->priv = s;
	return 0;
}

static void srtf_fini(struct sim_policy *pol)
{
	struct srtf *s = pol->priv;
	if (s) {
		rs_blocks_fini(&s->run);
		rs_fini(&s->wait);
		free(s->job);
		free(s->victims);
		free(s->starts);
	}
	free(s);
	pol->priv = NULL;
}

/* The per-job arrays, allocated at the first notification (the view knows the trace). */
static int arrays(struct srtf *s, const struct sim_view *v)
{
	if (s->job)
		return 0;
	s->n_jobs = sim_view_trace(v)->n_jobs;
	s->job = calloc(s->n_jobs ? s->n_jobs : 1, sizeof *s->job);
	if (!s->job)
		return s->oom = 1, -SIM_ENOMEM;
	return 0;
}

/* Queues a job with its remaining time: its length less the work it saved. */
static void add_waiting(struct srtf *s, const struct sim_view *v, const struct sim_job *job)
{
	double full = (double)pool_job_runtime(v, job);
	struct srtf_job *sj = &s->job[job->idx];
	sj->key = (int64_t)llround((1.0 - job->progress) * full);
	sj->st = ST_WAIT;
	if (rs_insert(&s->wait, (struct rs_key){ sj->key, job->idx }, sj->gpus))
		s->oom = 1;
}

static void srtf_on_submit(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job)
{
	struct srtf *s = pol->priv;
	if (arrays(s, v))
		return;
	s->job[job->idx].gpus = pool_job_gpus(v, job);
	add_waiting(s, v, job);
}

static void srtf_on_start(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job)
{
	(void)v;
	struct srtf *s = pol->priv;
	if (!s->job || s->job[job->idx].st != ST_WAIT)
		return;
	uint32_t i = job->idx;
	struct srtf_job *sj = &s->job[i];
	rs_erase(&s->wait, (struct rs_key){ sj->key, i });
	if (!job->preemptible) {
		sj->st = ST_FIXED;
		s->fixed += sj->gpus;
		return;
	}
	sj->st = ST_RUN;
	sj->key = job->last_start_ns + job->runtime_ns;
	if (rs_blocks_insert(&s->run, (struct rs_key){ sj->key, i }, sj->gpus))
		s->oom = 1;
}

/* Every stop: a running job leaves the running set; queued again, it waits with
 * what it has left; a waiting job that timed out leaves the queue. */
static void srtf_on_stop(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
			 enum sim_stop_cause cause)
{
	(void)cause;
	struct srtf *s = pol->priv;
	if (!s->job)
		return;
	uint32_t i = job->idx;
	struct srtf_job *sj = &s->job[i];
	if (sj->st == ST_RUN)
		rs_blocks_erase(&s->run, (struct rs_key){ sj->key, i });
	else if (sj->st == ST_FIXED)
		s->fixed -= sj->gpus;
	else if (sj->st == ST_WAIT)
		rs_erase(&s->wait, (struct rs_key){ sj->key, i });
	sj->st = ST_NONE;
	if (job->state == SIM_JOB_QUEUED)
		add_waiting(s, v, job);
}

static int push(uint32_t **a, size_t *n, size_t *cap, uint32_t x)
{
	uint32_t *na = sim_grow(*a, cap, *n, sizeof *na, 64);
	if (!na)
		return -SIM_ENOMEM;
	*a = na;
	na[(*n)++] = x;
	return 0;
}

/* The running jobs ranked in [lo, hi) against *free: kept as a block when their sum
 * fits, else one by one from the first that does not fit (kept in what is left, or
 * preempted). *below: the GPU sum of the running jobs below lo, in; below hi, out;
 * has_hi 0: to the end of the set. */
static int run_block(struct srtf *s, int64_t *below, struct rs_key hi, int has_hi, sim_qty_t *free_gpus)
{
	int64_t below_lo = *below, below_hi = has_hi ? rs_blocks_sum_below(&s->run, hi) : s->run.total;
	int64_t sum = below_hi - below_lo;
	*below = below_hi;
	if (sum <= *free_gpus) {
		*free_gpus -= sum;
		return 0;
	}
	struct rs_key e;
	int64_t w;
	if (!rs_blocks_first_exceeding(&s->run, below_lo + *free_gpus, &e, &w))
		return 0; /* cannot happen: the block does not fit */
	*free_gpus -= rs_blocks_sum_below(&s->run, e) - below_lo;
	int more = 1;
	for (; more && (!has_hi || rs_key_lt(e, hi)); more = rs_blocks_next(&s->run, e, 0, &e, &w)) {
		if (w <= *free_gpus)
			*free_gpus -= w;
		else if (push(&s->victims, &s->n_victims, &s->cap_victims, e.idx))
			return -SIM_ENOMEM;
	}
	return 0;
}

/* The exact walk of the pool step (pool_pass.h) over the merged order, from a state
 * of it: w the last waiting job visited (INT64_MIN: none yet), *below the GPU sum of
 * the running jobs ranked before it, free_gpus what is left there (after w's own
 * start). Victims and starts are appended in rank order. */
static int walk_exact(struct srtf *s, sim_time_t now, struct rs_key w, int64_t below, sim_qty_t free_gpus)
{
	int64_t g;
	int rc = 0;
	/* Only a waiting job that fits what is left can be kept, and what is left only
	 * shrinks along the walk: jump to the next such job; the running jobs ranked
	 * before it are one block (the waiting jobs passed over take nothing). */
	while (!rc && free_gpus > 0 && rs_next_fit(&s->wait, w, free_gpus, &w, &g)) {
		/* running jobs ranked before w: (end - now, idx) < (rem, idx) */
		struct rs_key hi = { now + w.k, w.idx };
		if ((rc = run_block(s, &below, hi, 1, &free_gpus)))
			break;
		if (g <= free_gpus) {
			free_gpus -= g;
			rc = push(&s->starts, &s->n_starts, &s->cap_starts, w.idx);
		}
	}
	return rc ? rc : run_block(s, &below, w, 0, &free_gpus);
}

int srtf_test_exact = 0;
unsigned long srtf_test_mismatches = 0;

/* The same result as walk_exact from the start, computing the running jobs' GPU sum
 * before a waiting job only where it decides something.
 *
 * The pass keeps, in rank order, every job that fits what is left at its place
 * (walk_exact computes exactly that: a waiting job is visited when it fits what was
 * left before the running jobs ranked ahead of it, and kept if it still fits after
 * them). What is left at any place is at least slack = pool - every running job -
 * the starts so far, so a waiting job that fits the slack is kept wherever the
 * running jobs stand, without their sum. Otherwise its place is computed: the
 * running jobs since the last computed place (lo) are taken as one block, which
 * keeps them all when it fits what lo left less the starts since, whatever their
 * order among those starts. When it does not fit, some running job there may be a
 * victim and the order matters: the pass goes on from lo by the exact walk (the
 * starts since lo dropped, to be found again in order). The same at the end for the
 * running jobs after the last place. A waiting job of 0 GPUs would be kept even
 * where nothing is left, where the exact walk has stopped: with one queued, the
 * pass is the exact walk. */
static int decide_fast(struct srtf *s, const struct sim_view *v)
{
	sim_time_t now = sim_view_now(v);
	sim_qty_t pool = sim_cluster_gpu_total(sim_view_cluster(v), -1) - s->fixed;
	s->n_victims = s->n_starts = 0;
	struct rs_key w = { INT64_MIN, 0 }, lo = w;
	if (srtf_test_exact == 1 || rs_min(&s->wait) <= 0)
		return walk_exact(s, now, w, 0, pool);
	const int64_t running = s->run.total;
	int64_t below = 0, started = 0; /* below lo; GPUs of every start of the pass */
	sim_qty_t free_lo = pool, since = 0; /* left at lo; started since lo */
	size_t n_lo = 0;                     /* starts up to lo */
	int64_t g;
	struct rs_cursor cur; /* the bound free_lo - since only falls along the walk */
	rs_cursor_init(&cur, &s->wait);
	while (free_lo - since > 0 && rs_cursor_next(&cur, free_lo - since, &w, &g)) {
		if (g <= pool - running - started) { /* kept wherever the running jobs stand */
			if (push(&s->starts, &s->n_starts, &s->cap_starts, w.idx))
				return -SIM_ENOMEM;
			since += g;
			started += g;
			continue;
		}
		struct rs_key hi = { now + w.k, w.idx }; /* w's place, as in walk_exact */
		int64_t below_w = rs_blocks_sum_below(&s->run, hi);
		if (below_w - below > free_lo - since) { /* the block may have victims */
			s->n_starts = n_lo;
			return walk_exact(s, now, lo, below, free_lo);
		}
		free_lo -= since + (below_w - below);
		below = below_w;
		since = 0;
		lo = w;
		if (g <= free_lo) {
			if (push(&s->starts, &s->n_starts, &s->cap_starts, w.idx))
				return -SIM_ENOMEM;
			free_lo -= g;
			started += g;
		}
		n_lo = s->n_starts;
	}
	if (running - below > free_lo - since) {
		s->n_starts = n_lo;
		return walk_exact(s, now, lo, below, free_lo);
	}
	return 0;
}

static int same_list(const uint32_t *a, size_t na, const uint32_t *b, size_t nb)
{
	return na == nb && (!na || memcmp(a, b, na * sizeof *a) == 0);
}

/* The pass's victims and starts; under srtf_test_exact 2 both ways, compared. */
static int decide(struct srtf *s, const struct sim_view *v)
{
	int rc = decide_fast(s, v);
	if (rc || srtf_test_exact != 2)
		return rc;
	uint32_t *victims = s->victims, *starts = s->starts;
	size_t n_victims = s->n_victims, n_starts = s->n_starts;
	s->victims = s->starts = NULL; /* the exact walk fills new scratch */
	s->cap_victims = s->cap_starts = s->n_victims = s->n_starts = 0;
	rc = walk_exact(s, sim_view_now(v), (struct rs_key){ INT64_MIN, 0 }, 0,
			sim_cluster_gpu_total(sim_view_cluster(v), -1) - s->fixed);
	if (!rc && (!same_list(victims, n_victims, s->victims, s->n_victims) ||
		    !same_list(starts, n_starts, s->starts, s->n_starts)))
		srtf_test_mismatches++;
	free(victims);
	free(starts);
	return rc;
}

/* The engine reads each proposed job's record at once (state, allocation, queue,
 * the fallback memo): asking for all of them first lets their cache misses overlap
 * instead of coming one after another (a pass proposes a handful of jobs, picked
 * from anywhere in the trace). Up to PREFETCH_MAX of each list; no effect on any
 * result. */
#define PREFETCH_MAX 32
static void prefetch_jobs(const struct sim_trace *t, const uint32_t *idx, size_t n)
{
	if (n > PREFETCH_MAX)
		n = PREFETCH_MAX;
	for (size_t i = 0; i < n; i++) {
		const char *p = (const char *)&t->jobs[idx[i]];
		for (size_t off = 0; off < sizeof(struct sim_job); off += 64)
			__builtin_prefetch(p + off);
	}
}

/* Context: the decision pass; again after a pass that preempted. */
static int srtf_pick(struct sim_policy *pol, const struct sim_view *v, struct sim_placement_buf *out)
{
	struct srtf *s = pol->priv;
	if (s->oom)
		return -SIM_ENOMEM;
	if (!s->job)
		return 0;
	int rc = decide(s, v);
	if (rc)
		return rc;
	/* A second pass at the time of one that preempted proposes starts only: on
	 * several flavors a job counted as fitting may fit no node, and must not start
	 * a chain of preemptions (on one pool the second pass has no victims). */
	if (s->preempted_ns == sim_view_now(v))
		s->n_victims = 0;
	else if (s->n_victims)
		s->preempted_ns = sim_view_now(v);
	prefetch_jobs(sim_view_trace(v), s->victims, s->n_victims);
	prefetch_jobs(sim_view_trace(v), s->starts, s->n_starts);
	for (size_t i = 0; i < s->n_victims; i++) {
		uint32_t by = s->n_starts ? s->starts[0] : s->victims[i];
		rc = sim_placement_buf_preempt(out, s->victims[i], by, SIM_PR_ORDER, 1);
		if (rc && rc != -SIM_ESTATE)
			return rc;
	}
	for (size_t i = 0; i < s->n_starts; i++) {
		/* -SIM_ENOFIT: the victims' GPUs (the next pass at this time) or fragments */
		rc = sim_placement_buf_try(out, s->starts[i], -1);
		if (rc && rc != -SIM_ENOFIT && rc != -SIM_ESTATE)
			return rc;
	}
	return 0;
}

const struct sim_policy_ops srtf_policy_ops = {
	.name = "srtf",
	.family = SIM_FAM_ORDER,
	.init = srtf_init,
	.fini = srtf_fini,
	.on_submit = srtf_on_submit,
	.on_start = srtf_on_start,
	.on_stop = srtf_on_stop,
	.pick = srtf_pick,
};
