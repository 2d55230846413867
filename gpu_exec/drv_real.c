/* gpu_exec/drv_real.c: the real-time driver (drv_real.h). No policy logic: it
 * runs what the engine's policies started, on the wall clock. */
#include "drv_real.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "exec.h"

/* A workload that ended by itself, noted on an executor thread. */
struct completion {
	uint32_t job;
	uint64_t seq;
	int64_t wall_ns;
};

struct drv_real {
	struct real_opts o;
	struct gx *x;
	/* Virtual GPUs: flavor f's node n, GPU k is flavor_gpu0[f] + n * gpn[f] + k. */
	size_t n_flavors;
	uint32_t *flavor_gpu0, *gpn;
	uint32_t n_gpus;
	uint32_t *gpu_owner;     /* job + 1 running there, 0 = free */
	uint32_t **job_gpus;     /* per job: its virtual GPUs while it runs (owned) */
	uint32_t *job_n_gpus;
	uint64_t *job_seq;       /* per job: its running segment's launch number, 0 = none */
	uint8_t *job_hung;       /* per job: its running segment is frozen (real_hang) */
	uint64_t next_seq;
	/* Clock: trace = trace0 + (wall - wall0) x scale, once started. */
	int started;
	int64_t wall0;
	sim_time_t trace0;
	int64_t event_wall;      /* wall time of the event the current pass follows */
	int64_t last_progress;   /* wall time of the last progress line */
	int tty;
	size_t n_ended, n_running; /* segments ended by themselves; workloads running */
	/* Completions from executor threads, under mu. */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct completion *done_q;
	size_t n_done_q, cap_done_q;
	int done_q_oom;
	struct real_results res;
	size_t cap_lat, cap_segs;
	double *iter_ns_by_flavor;
};

/* ---- clock ---- */

static sim_time_t trace_of_wall(const struct drv_real *d, int64_t wall_ns)
{
	double t = (double)d->trace0 + (double)(wall_ns - d->wall0) * d->o.time_scale;
	return t >= (double)SIM_TIME_MAX ? SIM_TIME_MAX : (sim_time_t)t;
}

static int64_t wall_of_trace(const struct drv_real *d, sim_time_t t)
{
	double w = (double)d->wall0 + (double)(t - d->trace0) / d->o.time_scale;
	return w >= (double)INT64_MAX ? INT64_MAX : (int64_t)ceil(w);
}

static sim_time_t real_now(void *priv)
{
	struct drv_real *d = priv;
	return d->started ? trace_of_wall(d, gx_now_ns()) : 0;
}

/* ---- completions (executor threads) ---- */

static void on_done(void *arg, uint32_t job, uint64_t seq, int64_t wall_ns)
{
	struct drv_real *d = arg;
	pthread_mutex_lock(&d->mu);
	struct completion *q = sim_grow(d->done_q, &d->cap_done_q, d->n_done_q, sizeof *q, 64);
	if (q) {
		d->done_q = q;
		d->done_q[d->n_done_q++] = (struct completion){ .job = job, .seq = seq, .wall_ns = wall_ns };
	} else {
		d->done_q_oom = 1;
	}
	pthread_cond_signal(&d->cv);
	pthread_mutex_unlock(&d->mu);
}

/* Waits until wall time `until` (INT64_MAX: for ever) or a completion. Returns 1
 * if a completion is queued. */
static int wait_for_event(struct drv_real *d, int64_t until)
{
	pthread_mutex_lock(&d->mu);
	while (d->n_done_q == 0) {
		int64_t now = gx_now_ns();
		if (now >= until)
			break;
		/* Wake at least once a second: a lost signal cannot hang the run. */
		int64_t t = until - now > SIM_NS_PER_S ? now + SIM_NS_PER_S : until;
		struct timespec ts = { .tv_sec = t / SIM_NS_PER_S, .tv_nsec = t % SIM_NS_PER_S };
		int rc = pthread_cond_timedwait(&d->cv, &d->mu, &ts);
		if (rc && rc != ETIMEDOUT && rc != EINTR)
			break;
	}
	int any = d->n_done_q > 0;
	pthread_mutex_unlock(&d->mu);
	return any;
}

/* ---- results ---- */

/* Records a segment that ended. Its predicted run time is the model's: the
 * segment's run time (restore, work, checkpoints) when it completed or failed,
 * and for a preempted one the engine's time from its start to the stop, which is
 * where the simulator would have stopped it too. */
static int record_segment(struct drv_real *d, const struct sim_engine *e, const struct sim_job *job,
			  const struct gx_report *r, enum real_outcome outcome)
{
	struct real_results *res = &d->res;
	struct real_segment *v = sim_grow(res->segs, &d->cap_segs, res->n_segs, sizeof *v, 256);
	if (!v)
		return -SIM_ENOMEM;
	res->segs = v;
	double run_s = (double)(r->end_ns - r->start_ns) / 1e9 * d->o.time_scale;
	double predicted_s = outcome == REAL_PREEMPTED ? sim_time_to_s(sim_engine_now(e) - job->last_start_ns)
						       : sim_time_to_s(job->runtime_ns);
	uint32_t n = d->job_n_gpus[job->idx];
	v[res->n_segs++] = (struct real_segment){
		.job = job->idx, .gpu0 = n ? d->job_gpus[job->idx][0] : 0, .n_gpus = n,
		.start_s = sim_time_to_s(trace_of_wall(d, r->start_ns)),
		.end_s = sim_time_to_s(trace_of_wall(d, r->end_ns)),
		.predicted_s = predicted_s, .from = job->progress, .done = r->progress,
		.saved = r->saved, .ckpts = r->ckpts, .outcome = (uint8_t)outcome,
	};
	double *m = &res->measured_run_s[job->idx], *p = &res->predicted_run_s[job->idx];
	*m = isnan(*m) ? run_s : *m + run_s;
	*p = isnan(*p) ? predicted_s : *p + predicted_s;
	res->busy_gpu_wall_s += (double)n * (double)(r->end_ns - r->start_ns) / 1e9;
	if (outcome == REAL_FAILED) {
		res->failed++;
		fprintf(stderr, "real: job %s failed: %s\n", sim_job_id(sim_view_trace(sim_engine_view(e)), job),
			r->msg[0] ? r->msg : "(no message)");
	}
	return 0;
}

static int record_latency(struct drv_real *d, uint32_t job, double s)
{
	struct real_results *res = &d->res;
	double *v = sim_grow(res->latencies, &d->cap_lat, res->n_latencies, sizeof *v, 1024);
	if (!v)
		return -SIM_ENOMEM;
	res->latencies = v;
	v[res->n_latencies++] = s;
	if (isnan(res->latency_s[job]))
		res->latency_s[job] = s;
	return 0;
}

/* ---- virtual GPUs ---- */

static void release_gpus(struct drv_real *d, uint32_t job)
{
	for (uint32_t i = 0; i < d->job_n_gpus[job]; i++)
		if (d->gpu_owner[d->job_gpus[job][i]] == job + 1)
			d->gpu_owner[d->job_gpus[job][i]] = 0;
	free(d->job_gpus[job]);
	d->job_gpus[job] = NULL;
	d->job_n_gpus[job] = 0;
}

/* Takes k GPUs of a node for a job: free ones first; a fractional request may
 * share a GPU with another job (the cluster allowed it), then the first ones. */
static uint32_t take_node_gpus(struct drv_real *d, uint32_t job, int flavor, uint32_t node, uint32_t k,
			       uint32_t *out)
{
	uint32_t base = d->flavor_gpu0[flavor] + node * d->gpn[flavor], n = 0;
	for (uint32_t g = 0; g < d->gpn[flavor] && n < k; g++)
		if (d->gpu_owner[base + g] == 0) {
			d->gpu_owner[base + g] = job + 1;
			out[n++] = base + g;
		}
	for (uint32_t g = 0; n < k && g < d->gpn[flavor]; g++)
		if (d->gpu_owner[base + g] != job + 1) /* not one it already has */
			out[n++] = base + g;
	return n;
}

/* The virtual GPUs of the job's allocation. */
static int assign_gpus(struct drv_real *d, const struct sim_view *v, const struct sim_job *job)
{
	const struct sim_alloc *a = &job->alloc;
	int f = a->flavor;
	uint32_t per_node = d->gpn[f];
	uint32_t *out = calloc((size_t)a->n_nodes * per_node + 1, sizeof *out);
	if (!out)
		return -SIM_ENOMEM;
	uint32_t n = 0;
	if (a->n_nodes > 1 || a->whole) {
		for (uint32_t i = 0; i < a->n_nodes; i++)
			n += take_node_gpus(d, job->idx, f, a->n_nodes > 1 ? a->nodes[i] : a->node, per_node, out + n);
	} else {
		const struct sim_job_option *o = sim_job_opt(sim_view_trace(v), job, job->opt_chosen);
		sim_qty_t milli = o->req[SIM_RES_GPU];
		uint32_t k = (uint32_t)((milli + SIM_MILLI - 1) / SIM_MILLI);
		n = take_node_gpus(d, job->idx, f, a->node, k ? (k > per_node ? per_node : k) : 1, out);
	}
	d->job_gpus[job->idx] = out;
	d->job_n_gpus[job->idx] = n;
	return 0;
}

/* ---- driver ops ---- */

/* Reaps the workloads that ended and reports their end (sim_engine_job_ends) at their trace time
 * (never before the engine's now). A stale completion (the job was preempted as it
 * ended) is dropped: stop already reported it. */
static int drain_completions(struct drv_real *d, struct sim_engine *e, int64_t *first_wall)
{
	pthread_mutex_lock(&d->mu);
	struct completion *q = d->done_q;
	size_t n = d->n_done_q;
	int oom = d->done_q_oom;
	d->done_q = NULL;
	d->n_done_q = d->cap_done_q = 0;
	pthread_mutex_unlock(&d->mu);
	int rc = oom ? -SIM_ENOMEM : 0;
	struct sim_trace *t = (struct sim_trace *)sim_view_trace(sim_engine_view(e));
	for (size_t i = 0; i < n && !rc; i++) {
		struct completion *c = &q[i];
		if (d->job_seq[c->job] != c->seq || d->job_hung[c->job])
			continue; /* stale, or a hung job's end that raced its hang: its kill reports it */
		struct sim_job *job = &t->jobs[c->job];
		struct gx_report r;
		if ((rc = gx_reap(d->x, c->job, &r)))
			break;
		if ((rc = record_segment(d, e, job, &r, r.failed ? REAL_FAILED : REAL_COMPLETED)))
			break;
		release_gpus(d, c->job);
		d->job_seq[c->job] = 0;
		d->n_ended++;
		d->n_running--;
		if (c->wall_ns < *first_wall)
			*first_wall = c->wall_ns;
		sim_time_t at = trace_of_wall(d, c->wall_ns);
		if (at < sim_engine_now(e))
			at = sim_engine_now(e);
		rc = sim_engine_job_ends(e, job, at, r.failed);
	}
	free(q);
	return rc;
}

/* Twice a second on a terminal: wall and trace time, jobs ended and running. */
static void show_progress(struct drv_real *d, const struct sim_engine *e)
{
	int64_t now = gx_now_ns();
	if (now - d->last_progress < SIM_NS_PER_S / 2)
		return;
	d->last_progress = now;
	const struct sim_trace *t = sim_view_trace(sim_engine_view(e));
	fprintf(stderr, "\rreal (%s): %.1f s wall, trace at %.2f h, %zu/%zu jobs ended, %zu running   ",
		d->res.backend, (double)(now - d->wall0) / 1e9, sim_time_to_s(trace_of_wall(d, now)) / 3600,
		d->n_ended, t->n_jobs, d->n_running);
	fflush(stderr);
}

static int real_advance(void *priv, struct sim_engine *e, sim_time_t t)
{
	struct drv_real *d = priv;
	if (!d->started) {
		d->started = 1;
		d->trace0 = t == SIM_TIME_MAX ? 0 : t;
		d->wall0 = gx_now_ns();
	}
	int64_t until = t == SIM_TIME_MAX ? INT64_MAX : wall_of_trace(d, t);
	/* On a terminal, wake twice a second for the progress line. */
	for (;;) {
		int64_t now = gx_now_ns();
		int64_t step = d->tty && until - now > SIM_NS_PER_S / 2 ? now + SIM_NS_PER_S / 2 : until;
		/* A workload whose end the executor knows (cpu) is reaped at that end by this
		 * thread, not when the executor's thread gets a CPU: one wake-up, not two. */
		int64_t end = gx_next_end(d->x);
		if (end <= step) {
			if (wait_for_event(d, end))
				break;
			gx_poll(d->x, gx_now_ns());
			continue; /* its completion is queued: the next wait returns at once */
		}
		if (wait_for_event(d, step) || step == until)
			break;
		show_progress(d, e);
	}
	int64_t first = INT64_MAX;
	int rc = drain_completions(d, e, &first);
	/* The pass that follows answers the earliest of what woke us. */
	d->event_wall = first < until ? first : until;
	d->res.wall_s = (double)(gx_now_ns() - d->wall0) / 1e9;
	return rc;
}

static int real_start(void *priv, struct sim_engine *e, struct sim_job *job)
{
	struct drv_real *d = priv;
	const struct sim_view *v = sim_engine_view(e);
	int rc = assign_gpus(d, v, job);
	if (rc)
		return rc;
	const struct sim_preempt_cost *cost = sim_engine_cost(e);
	double work_trace_ns = (double)sim_view_runtime(v, job, job->opt_chosen, job->alloc.flavor);
	if (work_trace_ns < 1)
		work_trace_ns = 1;
	double scale = d->o.time_scale;
	struct gx_segment sg = {
		.job = job->idx, .seq = ++d->next_seq, .gpus = d->job_gpus[job->idx], .n_gpus = d->job_n_gpus[job->idx],
		.work_ns = (int64_t)llround(work_trace_ns / scale), .from = job->progress,
		.ckpt_every = job->checkpoint_ns != SIM_TIME_NONE && job->checkpoint_ns > 0
				      ? (double)job->checkpoint_ns / work_trace_ns : 0,
		.ckpt_cost_ns = (int64_t)llround((double)cost->ckpt_overhead_ns / scale),
		/* the engine's restore of this segment (an in-place restart's delay included) */
		.restore_ns = (int64_t)llround((double)job->seg_restore_ns / scale),
	};
	char err[256];
	rc = gx_launch(d->x, &sg, err, sizeof err);
	if (rc == -SIM_ENOMEM)
		return rc;
	if (rc) {
		/* The job fails; the run goes on. */
		struct gx_report r = { .progress = job->progress, .saved = job->progress,
				       .start_ns = gx_now_ns(), .end_ns = gx_now_ns(), .failed = 1 };
		snprintf(r.msg, sizeof r.msg, "%s", err);
		if ((rc = record_segment(d, e, job, &r, REAL_FAILED)))
			return rc;
		release_gpus(d, job->idx);
		return sim_engine_job_ends(e, job, sim_engine_now(e), 1);
	}
	d->job_seq[job->idx] = sg.seq;
	d->n_running++;
	return record_latency(d, job->idx, (double)(gx_now_ns() - d->event_wall) / 1e9);
}

static int real_stop(void *priv, struct sim_engine *e, struct sim_job *job, struct sim_stop_measure *m)
{
	struct drv_real *d = priv;
	if (!d->job_seq[job->idx]) {
		/* Its workload ended (or failed) and its end is queued: the job stops
		 * with the work of its last run kept as measured. */
		sim_engine_job_end_cancel(e, job);
		return 0;
	}
	struct gx_report r;
	int rc = gx_preempt(d->x, job->idx, &r);
	if (rc)
		return rc;
	d->job_seq[job->idx] = 0;
	d->job_hung[job->idx] = 0;
	d->n_running--;
	if ((rc = record_segment(d, e, job, &r, r.failed ? REAL_FAILED : REAL_PREEMPTED)))
		return rc;
	release_gpus(d, job->idx);
	*m = (struct sim_stop_measure){ .measured = 1, .done = r.progress, .saved = r.saved, .ckpts = r.ckpts };
	return 0;
}

/* The job hangs at the engine's now (sim_driver_ops.hang): its workload freezes at
 * that wall time and ends only when the engine stops it (real_stop, which measures
 * the work as it stood at the hang). A workload already reaped (it ended just before
 * the hang, and the engine withdrew that end) has nothing to freeze: its stop then
 * finds no workload and the engine accounts the hang from time, as simulated. */
static int real_hang(void *priv, struct sim_engine *e, struct sim_job *job)
{
	struct drv_real *d = priv;
	if (!d->job_seq[job->idx])
		return 0;
	int rc = gx_hang(d->x, job->idx, wall_of_trace(d, sim_engine_now(e)));
	if (rc == -SIM_EINVAL)
		fprintf(stderr, "real: job %s hung, but backend %s cannot freeze a workload\n",
			sim_job_id(sim_view_trace(sim_engine_view(e)), job), d->res.backend);
	if (!rc)
		d->job_hung[job->idx] = 1;
	return rc;
}

/* A running job's speed changes at the engine's now (sim_driver_ops.slow, a
 * fail-slow node): its workload runs at rate from that wall time and reports its
 * end when its work is done at that pace. A workload already reaped (it ended just
 * before, and its end is on its way to the engine) has nothing to slow. */
static int real_slow(void *priv, struct sim_engine *e, struct sim_job *job, double rate)
{
	struct drv_real *d = priv;
	if (!d->job_seq[job->idx])
		return 0;
	int rc = gx_slow(d->x, job->idx, wall_of_trace(d, sim_engine_now(e)), rate);
	if (rc == -SIM_EINVAL)
		fprintf(stderr, "real: job %s runs on a slow node, but backend %s cannot slow a workload down\n",
			sim_job_id(sim_view_trace(sim_engine_view(e)), job), d->res.backend);
	return rc;
}

static const struct sim_driver_ops real_driver_ops = {
	.name = "real",
	.now = real_now,
	.advance = real_advance,
	.start = real_start,
	.stop = real_stop,
	.hang = real_hang,
	.slow = real_slow,
};

/* ---- set-up ---- */

int real_parse_sms(const char *sms, const struct sim_flavor_spec *flavors, size_t n_flavors, uint32_t *out,
		   const char *where, struct sim_diag *diag)
{
	memset(out, 0, n_flavors * sizeof *out);
	if (!sms || !*sms)
		return 0;
	const char *p = sms;
	while (*p) {
		const char *eq = strchr(p, '='), *end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		if (!eq || eq > end || eq == p)
			return sim_diag_add(diag, where, "--sms: expected FLAVOR=N[,FLAVOR=N...], got '%.*s'",
					    (int)(end - p), p);
		size_t f = 0;
		while (f < n_flavors && (strlen(flavors[f].name) != (size_t)(eq - p) ||
					 strncmp(flavors[f].name, p, (size_t)(eq - p)) != 0))
			f++;
		if (f == n_flavors)
			return sim_diag_add(diag, where, "--sms: '%.*s' is not a flavor of the cluster",
					    (int)(eq - p), p);
		char *num_end;
		errno = 0;
		unsigned long v = strtoul(eq + 1, &num_end, 10);
		if (num_end != end || eq + 1 == end || errno || v == 0 || v > 4096)
			return sim_diag_add(diag, where, "--sms: %s: expected a number of SMs from 1 to 4096, got '%.*s'",
					    flavors[f].name, (int)(end - eq - 1), eq + 1);
		out[f] = (uint32_t)v;
		p = *end ? end + 1 : end;
		if (*end && !*p) /* a trailing comma: an empty entry */
			return sim_diag_add(diag, where, "--sms: expected FLAVOR=N[,FLAVOR=N...], got ''");
	}
	return 0;
}

static void real_free(struct drv_real *d)
{
	if (!d)
		return;
	gx_close(d->x);
	for (size_t j = 0; j < d->res.n_jobs && d->job_gpus; j++)
		free(d->job_gpus[j]);
	free(d->job_gpus);
	free(d->job_n_gpus);
	free(d->job_seq);
	free(d->job_hung);
	free(d->flavor_gpu0);
	free(d->gpn);
	free(d->gpu_owner);
	free(d->done_q);
	free(d->res.measured_run_s);
	free(d->res.predicted_run_s);
	free(d->res.latency_s);
	free(d->res.latencies);
	free(d->res.segs);
	free(d->iter_ns_by_flavor);
	pthread_cond_destroy(&d->cv);
	pthread_mutex_destroy(&d->mu);
	free(d);
}

static int real_alloc(struct drv_real *d, const struct sim_flavor_spec *flavors, size_t n_flavors,
		      size_t n_jobs)
{
	size_t nj = n_jobs ? n_jobs : 1, nf = n_flavors ? n_flavors : 1;
	d->flavor_gpu0 = calloc(nf, sizeof *d->flavor_gpu0);
	d->gpn = calloc(nf, sizeof *d->gpn);
	d->job_gpus = calloc(nj, sizeof *d->job_gpus);
	d->job_n_gpus = calloc(nj, sizeof *d->job_n_gpus);
	d->job_seq = calloc(nj, sizeof *d->job_seq);
	d->job_hung = calloc(nj, sizeof *d->job_hung);
	d->res.measured_run_s = malloc(nj * sizeof(double));
	d->res.predicted_run_s = malloc(nj * sizeof(double));
	d->res.latency_s = malloc(nj * sizeof(double));
	d->iter_ns_by_flavor = calloc(nf, sizeof(double));
	if (!d->flavor_gpu0 || !d->gpn || !d->job_gpus || !d->job_n_gpus || !d->job_seq || !d->job_hung ||
	    !d->res.measured_run_s || !d->res.predicted_run_s || !d->res.latency_s || !d->iter_ns_by_flavor)
		return -SIM_ENOMEM;
	for (size_t j = 0; j < nj; j++)
		d->res.measured_run_s[j] = d->res.predicted_run_s[j] = d->res.latency_s[j] = NAN;
	d->res.n_jobs = n_jobs;
	d->n_flavors = n_flavors;
	uint64_t total = 0;
	for (size_t f = 0; f < n_flavors; f++) {
		const struct sim_flavor_spec *s = &flavors[f];
		uint32_t peak = s->peak_nodes > s->nodes ? s->peak_nodes : s->nodes;
		d->gpn[f] = (uint32_t)((s->node_cap[SIM_RES_GPU] + SIM_MILLI - 1) / SIM_MILLI);
		d->flavor_gpu0[f] = (uint32_t)total;
		total += (uint64_t)peak * d->gpn[f];
	}
	if (total > 1u << 20)
		return -SIM_ERANGE;
	d->n_gpus = (uint32_t)total;
	d->gpu_owner = calloc(total ? total : 1, sizeof *d->gpu_owner);
	return d->gpu_owner ? 0 : -SIM_ENOMEM;
}

static int real_open_executor(struct drv_real *d, const struct sim_flavor_spec *flavors, const uint32_t *sms,
			      const char *where, struct sim_diag *diag)
{
	struct gx_group *groups = calloc(d->n_flavors ? d->n_flavors : 1, sizeof *groups);
	if (!groups)
		return -SIM_ENOMEM;
	for (size_t f = 0; f < d->n_flavors; f++) {
		uint32_t peak = flavors[f].peak_nodes > flavors[f].nodes ? flavors[f].peak_nodes : flavors[f].nodes;
		groups[f] = (struct gx_group){ .name = flavors[f].name, .count = peak * d->gpn[f], .sms = sms[f] };
	}
	struct gx_config cfg = { .backend = d->o.backend, .groups = groups, .n_groups = d->n_flavors,
				 .done = on_done, .done_arg = d, .iter_ns = d->o.iter_ns, .verbose = d->o.verbose,
				 .fail_job = d->o.fail_job };
	char err[512];
	int rc = gx_open(&cfg, &d->x, err, sizeof err);
	free(groups);
	if (rc == -SIM_ENOMEM)
		return rc;
	if (rc) {
		sim_diag_add(diag, where, "%s", err);
		return -SIM_EPARSE;
	}
	const struct gx_calibration *cal = gx_calibration(d->x);
	for (size_t f = 0; f < d->n_flavors && f < cal->n_groups; f++)
		d->iter_ns_by_flavor[f] = cal->iter_ns[f];
	return 0;
}

/* A note when the shortest job is only a few iterations of wall time at this
 * scale: its run time is then off by up to an iteration and a wake-up. */
static void note_short_jobs(const struct drv_real *d, const struct sim_flavor_spec *flavors,
			    const struct sim_trace *trace)
{
	double fastest = 0, iter_ns = 0;
	for (size_t f = 0; f < d->n_flavors; f++) {
		fastest = flavors[f].speed > fastest ? flavors[f].speed : fastest;
		iter_ns = d->iter_ns_by_flavor[f] > iter_ns ? d->iter_ns_by_flavor[f] : iter_ns;
	}
	sim_time_t shortest = SIM_TIME_MAX;
	for (size_t j = 0; j < trace->n_jobs; j++)
		shortest = trace->jobs[j].duration_ns < shortest ? trace->jobs[j].duration_ns : shortest;
	if (!trace->n_jobs || !(fastest > 0) || !(iter_ns > 0))
		return;
	double wall_ns = (double)shortest / fastest / d->o.time_scale;
	if (wall_ns < 50 * iter_ns)
		fprintf(stderr, "real: note: the shortest job runs about %.3f ms of wall time at time scale %g (%.0f "
			"iterations of %.0f us): expect run time errors of a few %% on such jobs; a smaller "
			"--time-scale lengthens them\n", wall_ns / 1e6, d->o.time_scale, wall_ns / iter_ns,
			iter_ns / 1e3);
}

int sim_driver_real_init(struct sim_driver *drv, const struct real_opts *o,
			 const struct sim_flavor_spec *flavors, size_t n_flavors, const struct sim_trace *trace,
			 const char *where, struct sim_diag *diag)
{
	if (!(o->time_scale > 0) || !isfinite(o->time_scale))
		return sim_diag_add(diag, where, "--time-scale: expected a number > 0, got %g", o->time_scale);
	struct drv_real *d = calloc(1, sizeof *d);
	if (!d)
		return -SIM_ENOMEM;
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&d->mu, NULL);
	pthread_cond_init(&d->cv, &ca);
	pthread_condattr_destroy(&ca);
	d->o = *o;
	d->tty = o->progress && isatty(2);
	uint32_t *sms = calloc(n_flavors ? n_flavors : 1, sizeof *sms);
	int rc = sms ? real_alloc(d, flavors, n_flavors, trace->n_jobs) : -SIM_ENOMEM;
	if (rc == -SIM_ERANGE)
		rc = sim_diag_add(diag, where, "the cluster has more than 1048576 GPUs at its peak: too many for "
				  "real mode");
	if (!rc)
		rc = real_parse_sms(o->sms, flavors, n_flavors, sms, where, diag);
	if (!rc)
		rc = real_open_executor(d, flavors, sms, where, diag);
	free(sms);
	if (rc) {
		real_free(d);
		return rc;
	}
	d->res.time_scale = o->time_scale;
	snprintf(d->res.backend, sizeof d->res.backend, "%s", gx_backend(d->x));
	snprintf(d->res.device, sizeof d->res.device, "%s", gx_describe(d->x));
	d->res.iter_ns = d->iter_ns_by_flavor;
	d->res.n_flavors = n_flavors;
	const struct gx_calibration *cal = gx_calibration(d->x);
	d->res.n_vgpus = cal->n_vgpus;
	d->res.vgpu_iter_ns = cal->vgpu_iter_ns;
	d->res.vgpu_spread = cal->vgpu_spread;
	d->res.vgpu_sms = cal->vgpu_sms;
	d->res.vgpu_flavor = cal->vgpu_group;
	d->res.cal_passes = cal->passes;
	d->res.cal_warmup_s = cal->warmup_s;
	if (o->verbose)
		note_short_jobs(d, flavors, trace);
	drv->ops = &real_driver_ops;
	drv->priv = d;
	return 0;
}

void sim_driver_real_fini(struct sim_driver *drv)
{
	if (drv->ops != &real_driver_ops)
		return;
	real_free(drv->priv);
	drv->priv = NULL;
	drv->ops = NULL;
}

const struct real_results *sim_driver_real_results(const struct sim_driver *drv)
{
	if (drv->ops != &real_driver_ops)
		return NULL;
	return &((struct drv_real *)drv->priv)->res;
}

void sim_driver_real_end(struct sim_driver *drv)
{
	if (drv->ops != &real_driver_ops)
		return;
	struct drv_real *d = drv->priv;
	if (d->last_progress)
		fprintf(stderr, "\n"); /* closes the progress line */
	d->last_progress = 0;
}
