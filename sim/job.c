/* sim/job.c: the trace container: interning, sorting, resetting run state. */
#define _DEFAULT_SOURCE /* MADV_DONTFORK, MADV_DOFORK (Linux) */
#include "job.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

const char *sim_job_state_name(enum sim_job_state s)
{
	static const char *const names[SIM_JOB_STATE_COUNT_] = {
		[SIM_JOB_UNSUBMITTED] = "unsubmitted",
		[SIM_JOB_QUEUED] = "queued",
		[SIM_JOB_RUNNING] = "running",
		[SIM_JOB_COMPLETED] = "completed",
		[SIM_JOB_REJECTED] = "rejected",
		[SIM_JOB_TIMED_OUT_PENDING] = "timed_out_pending",
		[SIM_JOB_MAX_WAIT_EXCEEDED] = "max_wait_exceeded",
		[SIM_JOB_FAILED] = "failed",
		[SIM_JOB_UNFINISHED] = "unfinished",
		[SIM_JOB_PREEMPTED_OUT] = "preempted_out",
	};
	return (unsigned)s < SIM_JOB_STATE_COUNT_ ? names[s] : "invalid";
}

struct sim_trace *sim_trace_create(void)
{
	struct sim_trace *t = calloc(1, sizeof *t);
	if (t)
		sim_resources_init(&t->res);
	return t;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static void alloc_free(struct sim_alloc *a)
{
	free(a->nodes);
	memset(a, 0, sizeof *a);
	a->flavor = -1;
}

void sim_trace_destroy(struct sim_trace *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n_jobs; i++)
		free(t->jobs[i].alloc.nodes);
	free(t->jobs);
	free(t->opts);
	free(t->bind_flavor);
	free(t->strings);
	free(t->fx);
	free(t->path);
	free_names(t->flavors, t->n_flavors);
	free_names(t->queues, t->n_queues);
	free_names(t->users, t->n_users);
	free(t);
}

/* 1 if j's run state is already what sim_trace_reset sets. */
static int run_state_clean(const struct sim_job *j)
{
	const struct sim_alloc *a = &j->alloc;
	return j->state == SIM_JOB_UNSUBMITTED && j->opt_chosen == -1 && j->preemptions == 0 &&
	       j->eff_priority == j->priority && j->start_ns == SIM_TIME_NONE &&
	       j->last_start_ns == SIM_TIME_NONE && j->end_ns == SIM_TIME_NONE && j->runtime_ns == 0 &&
	       j->finish_ev == 0 && a->flavor == -1 && a->n_nodes == 0 && a->node == 0 && a->whole == 0 &&
	       a->nodes == NULL && j->progress == 0 && j->seg_restore_ns == 0 && j->lost_gpu_s == 0 &&
	       j->restore_s == 0 && j->ckpt_overhead_s == 0 && j->preemptions_caused == 0 && j->held_s == 0 &&
	       j->timeout_ev == 0 && j->pending_from_ns == 0 && j->fb_evals == 0 && j->fb_seen == 0 &&
	       j->interruptions == 0 && j->order_shift_ns == 0;
}

/* Jobs already reset (a trace fresh from a reader, or reset twice) are only read:
 * rewriting them would dirty every cache line of the job array (160 MB for a
 * million jobs) for nothing. */
void sim_trace_reset(struct sim_trace *t)
{
	for (size_t i = 0; i < t->n_jobs; i++) {
		struct sim_job *j = &t->jobs[i];
		if (run_state_clean(j))
			continue;
		j->state = SIM_JOB_UNSUBMITTED;
		j->opt_chosen = -1;
		j->preemptions = 0;
		j->eff_priority = j->priority;
		j->start_ns = SIM_TIME_NONE;
		j->last_start_ns = SIM_TIME_NONE;
		j->end_ns = SIM_TIME_NONE;
		j->runtime_ns = 0;
		j->finish_ev = 0;
		j->progress = 0;
		j->seg_restore_ns = 0;
		j->lost_gpu_s = j->restore_s = j->ckpt_overhead_s = 0;
		j->preemptions_caused = 0;
		j->held_s = 0;
		j->timeout_ev = 0;
		j->pending_from_ns = 0;
		j->fb_evals = 0;
		j->fb_seen = 0;
		j->interruptions = 0;
		j->order_shift_ns = 0;
		alloc_free(&j->alloc);
	}
	if (t->fx) /* kept for the next run with faults; a run without reads these zeros */
		memset(t->fx, 0, t->n_jobs * sizeof *t->fx);
}

const struct sim_job_fx *sim_job_fx(const struct sim_trace *t, const struct sim_job *j)
{
	static const struct sim_job_fx none = { .seg_rate = 1.0 };
	return t->fx ? &t->fx[j->idx] : &none;
}

/* Linear interning: name tables are small (flavors, queues, users of a trace). */
static int intern(char ***names, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*names)[i], name) == 0)
			return (int)i;
	char **nn = realloc(*names, (*n + 1) * sizeof *nn);
	if (!nn)
		return -SIM_ENOMEM;
	*names = nn;
	nn[*n] = strdup(name);
	if (!nn[*n])
		return -SIM_ENOMEM;
	return (int)(*n)++;
}

int sim_trace_intern_flavor(struct sim_trace *t, const char *name)
{
	return intern(&t->flavors, &t->n_flavors, name);
}

int sim_trace_intern_queue(struct sim_trace *t, const char *name)
{
	return intern(&t->queues, &t->n_queues, name);
}

int sim_trace_intern_user(struct sim_trace *t, const char *name)
{
	return intern(&t->users, &t->n_users, name);
}

static int job_cmp(const void *a, const void *b)
{
	const struct sim_job *x = a, *y = b;
	if (x->submit_ns != y->submit_ns)
		return x->submit_ns < y->submit_ns ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

void sim_trace_sort(struct sim_trace *t)
{
	int sorted = 1;
	for (size_t i = 1; i < t->n_jobs && sorted; i++)
		sorted = job_cmp(&t->jobs[i - 1], &t->jobs[i]) <= 0;
	if (!sorted)
		qsort(t->jobs, t->n_jobs, sizeof *t->jobs, job_cmp);
	for (size_t i = 0; i < t->n_jobs; i++)
		t->jobs[i].idx = (uint32_t)i;
}

/* madvise over the whole pages inside [p, p + len) (the partial pages at either end
 * stay as they are: malloc's header shares the first). */
static int advise_pages(void *p, size_t len, int advice)
{
	long pg = sysconf(_SC_PAGESIZE);
	if (!p || pg <= 0)
		return 0;
	uintptr_t a = ((uintptr_t)p + (uintptr_t)pg - 1) & ~((uintptr_t)pg - 1);
	uintptr_t b = ((uintptr_t)p + len) & ~((uintptr_t)pg - 1);
	if (b <= a)
		return 0;
	return madvise((void *)a, b - a, advice) ? -SIM_EIO : 0;
}

int sim_trace_fork_share(struct sim_trace *t, int share)
{
#if !defined(MADV_DONTFORK) || !defined(MADV_DOFORK)
	(void)t;
	(void)share;
	return -SIM_EIO; /* not Linux: forks share the arrays, as before */
#else
	int advice = share ? MADV_DOFORK : MADV_DONTFORK;
	int rc = advise_pages(t->jobs, t->n_jobs * sizeof *t->jobs, advice);
	if (!rc)
		rc = advise_pages(t->opts, t->n_opts * sizeof *t->opts, advice);
	if (rc && !share) { /* all or nothing: a half-marked trace is given back whole */
		advise_pages(t->jobs, t->n_jobs * sizeof *t->jobs, MADV_DOFORK);
		advise_pages(t->opts, t->n_opts * sizeof *t->opts, MADV_DOFORK);
	}
	return rc;
#endif
}
