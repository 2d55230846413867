/* sim/engine.c: the event loop, the view, proposals and the time series.
 *
 * Ownership: the engine borrows the trace, cluster, policies and driver; it owns
 * the event queue, the proposal buffer and the time series. It writes the run
 * state of the trace's jobs (job.h "run state" block) and nothing else.
 */
#include "engine.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct sim_view {
	struct sim_engine *e;
};

struct sim_placement_buf {
	struct sim_engine *e;
	uint32_t *jobs; /* accepted proposals of the current pass, in order */
	size_t n, cap;
};

struct sim_engine {
	struct sim_view view;
	struct sim_engine_params p;
	struct sim_evq *evq;
	struct sim_placement_buf buf;
	struct sim_timeseries ts;
	struct sim_engine_counters ctr;
	sim_time_t now;
	sim_time_t next_sample;  /* next grid time of the time series */
	sim_time_t sample_ns;    /* its step: p.sample_ns, doubled each time it is thinned */
	size_t next_submit;      /* index of the next job to submit (trace is sorted) */
	size_t n_queued, n_running, n_done;
	int changed;             /* an event since the last decision pass */
};

/* ---- time series ---- */

static int ts_reserve(struct sim_timeseries *ts)
{
	if (ts->n < ts->cap)
		return 0;
	size_t ncap = ts->cap ? ts->cap * 2 : 1024;
	double **cols[] = { &ts->t_s, &ts->gpus_busy, &ts->jobs_queued, &ts->jobs_running };
	for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
		double *nc = realloc(*cols[i], ncap * sizeof **cols[i]);
		if (!nc)
			return -SIM_ENOMEM;
		*cols[i] = nc;
	}
	double *nf = realloc(ts->gpus_busy_by_flavor, ncap * ts->n_flavors * sizeof *nf);
	if (!nf && ts->n_flavors)
		return -SIM_ENOMEM;
	ts->gpus_busy_by_flavor = nf;
	ts->cap = ncap;
	return 0;
}

static void ts_free(struct sim_timeseries *ts)
{
	free(ts->t_s);
	free(ts->gpus_busy);
	free(ts->jobs_queued);
	free(ts->jobs_running);
	free(ts->gpus_busy_by_flavor);
	memset(ts, 0, sizeof *ts);
}

/* Keeps every other sample (times 0, 2 step, 4 step...) and doubles the step, so a
 * run much longer than the step expected (a long job after the last submit, a tiny
 * sample_s) keeps at most SIM_TS_MAX_SAMPLES rows. */
static void ts_thin(struct sim_engine *e)
{
	struct sim_timeseries *ts = &e->ts;
	size_t kept = (ts->n + 1) / 2, nf = ts->n_flavors;
	for (size_t i = 1; i < kept; i++) {
		ts->t_s[i] = ts->t_s[2 * i];
		ts->gpus_busy[i] = ts->gpus_busy[2 * i];
		ts->jobs_queued[i] = ts->jobs_queued[2 * i];
		ts->jobs_running[i] = ts->jobs_running[2 * i];
		memmove(&ts->gpus_busy_by_flavor[i * nf], &ts->gpus_busy_by_flavor[2 * i * nf],
			nf * sizeof *ts->gpus_busy_by_flavor);
	}
	ts->n = kept;
	e->sample_ns *= 2;
	e->next_sample = (sim_time_t)kept * e->sample_ns;
}

/* Records the state in force for every grid time in [e->next_sample, until). */
static int ts_sample_until(struct sim_engine *e, sim_time_t until)
{
	if (e->sample_ns <= 0)
		return 0;
	while (e->next_sample < until) {
		struct sim_timeseries *ts = &e->ts;
		if (ts->n == SIM_TS_MAX_SAMPLES)
			ts_thin(e);
		if (e->next_sample >= until)
			break;
		int rc = ts_reserve(ts);
		if (rc)
			return rc;
		ts->t_s[ts->n] = sim_time_to_s(e->next_sample);
		ts->gpus_busy[ts->n] = (double)sim_cluster_gpu_busy(e->p.cluster, -1) / SIM_MILLI;
		ts->jobs_queued[ts->n] = (double)e->n_queued;
		ts->jobs_running[ts->n] = (double)e->n_running;
		for (size_t f = 0; f < ts->n_flavors; f++)
			ts->gpus_busy_by_flavor[ts->n * ts->n_flavors + f] =
				(double)sim_cluster_gpu_busy(e->p.cluster, (int)f) / SIM_MILLI;
		ts->n++;
		if (e->next_sample > SIM_TIME_MAX - e->sample_ns)
			e->next_sample = SIM_TIME_MAX; /* the grid ends at the end of time */
		else
			e->next_sample += e->sample_ns;
	}
	return 0;
}

/* ---- lifecycle ---- */

struct sim_engine *sim_engine_create(const struct sim_engine_params *p)
{
	assert(p->trace && p->cluster && p->driver.ops && p->policies[SIM_FAM_ORDER]);
	struct sim_engine *e = calloc(1, sizeof *e);
	if (!e)
		return NULL;
	e->view.e = e;
	e->p = *p;
	e->buf.e = e;
	e->evq = sim_evq_create(1024);
	if (!e->evq) {
		free(e);
		return NULL;
	}
	e->ts.n_flavors = sim_cluster_n_flavors(p->cluster);
	sim_trace_reset(p->trace);
	return e;
}

void sim_engine_destroy(struct sim_engine *e)
{
	if (!e)
		return;
	sim_evq_destroy(e->evq);
	free(e->buf.jobs);
	ts_free(&e->ts);
	free(e);
}

const struct sim_timeseries *sim_engine_timeseries(const struct sim_engine *e) { return &e->ts; }
const struct sim_engine_counters *sim_engine_counters(const struct sim_engine *e) { return &e->ctr; }
const struct sim_view *sim_engine_view(const struct sim_engine *e) { return &e->view; }
sim_time_t sim_engine_now(const struct sim_engine *e) { return e->now; }

int sim_engine_post(struct sim_engine *e, const struct sim_event *ev, uint64_t *id_out)
{
	return sim_evq_push(e->evq, ev, id_out);
}

void sim_engine_cancel(struct sim_engine *e, uint64_t id) { sim_evq_cancel(e->evq, id); }

/* ---- the view ---- */

sim_time_t sim_view_now(const struct sim_view *v) { return v->e->now; }
const struct sim_trace *sim_view_trace(const struct sim_view *v) { return v->e->p.trace; }
const struct sim_cluster *sim_view_cluster(const struct sim_view *v) { return v->e->p.cluster; }

const struct sim_job *sim_view_job(const struct sim_view *v, uint32_t idx)
{
	return &v->e->p.trace->jobs[idx];
}

/* Speed of a flavor; "any flavor" options are stated at the reference speed 1.0. */
static double flavor_speed(const struct sim_cluster *c, int flavor)
{
	return flavor >= 0 ? sim_cluster_flavor(c, flavor)->speed : 1.0;
}

/* DESIGN.md section 1: the trace's duration holds on option 0 as stated (on a named
 * flavor it was measured there). A "*" option 0 is taken at the reference speed and
 * divided by the speed of the flavor chosen. Option k > 0 without its own duration
 * scales by (count_0 x speed_0) / (count_k x speed_k). */
double sim_scaled_time_ns(const struct sim_trace *t, const struct sim_cluster *c, const struct sim_job *job,
			  sim_time_t base, int opt, int flavor)
{
	const struct sim_job_option *o0 = sim_job_opt(t, job, 0);
	if (opt <= 0) {
		if (o0->flavor_id != SIM_FLAVOR_ANY)
			return (double)base;
		return (double)base / flavor_speed(c, flavor);
	}
	const struct sim_job_option *ok = sim_job_opt(t, job, opt);
	if (ok->duration_ns > 0 && base == job->duration_ns)
		return (double)ok->duration_ns;
	double s0 = flavor_speed(c, o0->flavor_id), sk = flavor_speed(c, flavor);
	double n0 = (double)o0->req[SIM_RES_GPU], nk = (double)ok->req[SIM_RES_GPU];
	if (n0 <= 0 || nk <= 0) /* GPU-less options scale by speed alone */
		n0 = nk = 1;
	return (double)base * (n0 * s0) / (nk * sk);
}

/* sim_trace_bind refuses jobs whose scaled times exceed SIM_RUNTIME_MAX_NS, so the
 * rounding below stays in range. */
static sim_time_t scale_time(const struct sim_view *v, const struct sim_job *job, sim_time_t base,
			     int opt, int flavor)
{
	double ns = sim_scaled_time_ns(v->e->p.trace, v->e->p.cluster, job, base, opt, flavor);
	return ns < (double)SIM_RUNTIME_MAX_NS ? (sim_time_t)llround(ns) : SIM_RUNTIME_MAX_NS;
}

sim_time_t sim_view_runtime(const struct sim_view *v, const struct sim_job *job, int opt, int flavor)
{
	return scale_time(v, job, job->duration_ns, opt, flavor);
}

sim_time_t sim_view_estimate(const struct sim_view *v, const struct sim_job *job, int opt, int flavor)
{
	return scale_time(v, job, job->estimate_ns, opt, flavor);
}

/* The option a proposal uses: fallback policies choose later; strict takes option 0. */
static int resolve_option(int opt)
{
	return opt < 0 ? 0 : opt;
}

int sim_view_fits(const struct sim_view *v, uint32_t idx, int opt)
{
	const struct sim_trace *t = v->e->p.trace;
	const struct sim_cluster *c = v->e->p.cluster;
	const struct sim_job *job = &t->jobs[idx];
	const struct sim_job_option *o = sim_job_opt(t, job, resolve_option(opt));
	if (o->flavor_id != SIM_FLAVOR_ANY)
		return sim_cluster_fits(c, o->flavor_id, o->req);
	for (size_t f = 0; f < sim_cluster_n_flavors(c); f++)
		if (sim_cluster_fits(c, (int)f, o->req))
			return 1;
	return 0;
}

int sim_placement_buf_try(struct sim_placement_buf *out, uint32_t idx, int opt)
{
	struct sim_engine *e = out->e;
	struct sim_trace *t = e->p.trace;
	struct sim_cluster *c = e->p.cluster;
	if (idx >= t->n_jobs)
		return -SIM_EINVAL;
	struct sim_job *job = &t->jobs[idx];
	if (job->state != SIM_JOB_QUEUED || job->alloc.n_nodes)
		return -SIM_ESTATE;
	int k = resolve_option(opt);
	if (k >= job->n_opts)
		return -SIM_EINVAL;
	if (out->n == out->cap) {
		size_t ncap = out->cap ? out->cap * 2 : 64;
		uint32_t *nj = realloc(out->jobs, ncap * sizeof *nj);
		if (!nj)
			return -SIM_ENOMEM;
		out->jobs = nj;
		out->cap = ncap;
	}
	const struct sim_job_option *o = sim_job_opt(t, job, k);
	int rc = -SIM_ENOFIT;
	if (o->flavor_id != SIM_FLAVOR_ANY) {
		rc = sim_cluster_place(c, o->flavor_id, o->req, &job->alloc);
	} else {
		for (size_t f = 0; f < sim_cluster_n_flavors(c) && rc == -SIM_ENOFIT; f++)
			rc = sim_cluster_place(c, (int)f, o->req, &job->alloc);
	}
	if (rc) {
		e->ctr.proposals_rejected++;
		return rc;
	}
	job->opt_chosen = (int8_t)k;
	out->jobs[out->n++] = idx;
	return 0;
}

size_t sim_placement_buf_count(const struct sim_placement_buf *out) { return out->n; }

int sim_placement_buf_retract(struct sim_placement_buf *out, uint32_t idx)
{
	struct sim_engine *e = out->e;
	if (!out->n || out->jobs[out->n - 1] != idx)
		return -SIM_ESTATE;
	struct sim_job *job = &e->p.trace->jobs[idx];
	sim_cluster_release(e->p.cluster, &job->alloc, sim_job_opt(e->p.trace, job, job->opt_chosen)->req);
	job->opt_chosen = -1;
	out->n--;
	return 0;
}

/* ---- events ---- */

static void notify(struct sim_engine *e, size_t hook_off, const struct sim_job *job)
{
	for (int f = 0; f < SIM_FAM_COUNT_; f++) {
		struct sim_policy *pol = e->p.policies[f];
		if (!pol || !pol->ops)
			continue;
		void (*hook)(struct sim_policy *, const struct sim_view *, const struct sim_job *);
		memcpy(&hook, (const char *)pol->ops + hook_off, sizeof hook);
		if (hook)
			hook(pol, &e->view, job);
	}
}

#define NOTIFY(e, hook, job) notify((e), offsetof(struct sim_policy_ops, hook), (job))

/* ---- the event log (params.log) ---- */

enum log_kind { LOG_SUBMIT, LOG_START, LOG_FINISH };

static void log_event(const struct sim_engine *e, const struct sim_job *job, enum log_kind kind)
{
	static const char *const names[] = { "submit", "start", "finish" };
	const struct sim_trace *t = e->p.trace;
	FILE *f = e->p.log;
	fprintf(f, "[%.3f] job=%s event=%s", sim_time_to_s(e->now), sim_job_id(t, job), names[kind]);
	if (kind == LOG_SUBMIT) {
		char g[32];
		sim_qty_format(sim_job_opt(t, job, 0)->req[SIM_RES_GPU], g, sizeof g);
		fprintf(f, " gpus=%s queue=%s", g, t->queues[job->queue]);
	} else if (kind == LOG_START) {
		const struct sim_alloc *a = &job->alloc;
		fprintf(f, " flavor=%s", sim_cluster_flavor(e->p.cluster, a->flavor)->name);
		if (a->n_nodes == 1) {
			fprintf(f, " node=%u", a->node);
		} else {
			for (uint32_t k = 0; k < a->n_nodes; k++)
				fprintf(f, "%s%u", k ? "," : " nodes=", a->nodes[k]);
		}
		fprintf(f, " runtime_s=%.3f", sim_time_to_s(job->runtime_ns));
	}
	fputc('\n', f);
}

static void apply_submit(struct sim_engine *e, struct sim_job *job)
{
	if (e->p.log)
		log_event(e, job, LOG_SUBMIT);
	job->state = SIM_JOB_QUEUED;
	job->eff_priority = job->priority;
	e->n_queued++;
	NOTIFY(e, on_submit, job);
}

static void apply_finish(struct sim_engine *e, struct sim_job *job)
{
	assert(job->state == SIM_JOB_RUNNING);
	const struct sim_job_option *o = sim_job_opt(e->p.trace, job, job->opt_chosen);
	/* The release empties the alloc; the flavor it ran on stays for the results
	 * (a "*" request has no other record of it). */
	int32_t ran_on = job->alloc.flavor;
	sim_cluster_release(e->p.cluster, &job->alloc, o->req);
	job->alloc.flavor = ran_on;
	job->state = SIM_JOB_COMPLETED;
	job->end_ns = e->now;
	job->finish_ev = 0;
	e->n_running--;
	e->n_done++;
	if (e->p.log)
		log_event(e, job, LOG_FINISH);
	NOTIFY(e, on_finish, job);
}

static int apply_event(struct sim_engine *e, const struct sim_event *ev)
{
	struct sim_job *job = &e->p.trace->jobs[ev->job];
	switch (ev->phase) {
	case EV_FINISH:
		apply_finish(e, job);
		return 0;
	default:
		return -SIM_EINVAL; /* no other event kind exists yet */
	}
}

/* Starts every accepted proposal, in order. */
static int commit_proposals(struct sim_engine *e)
{
	struct sim_trace *t = e->p.trace;
	for (size_t i = 0; i < e->buf.n; i++) {
		struct sim_job *job = &t->jobs[e->buf.jobs[i]];
		job->state = SIM_JOB_RUNNING;
		if (job->start_ns == SIM_TIME_NONE)
			job->start_ns = e->now;
		job->last_start_ns = e->now;
		job->runtime_ns = sim_view_runtime(&e->view, job, job->opt_chosen, job->alloc.flavor);
		if (job->runtime_ns < 1)
			job->runtime_ns = 1;
		e->n_queued--;
		e->n_running++;
		e->ctr.starts++;
		int rc = e->p.driver.ops->start(e->p.driver.priv, e, job);
		if (rc)
			return rc;
		if (e->p.log)
			log_event(e, job, LOG_START);
		NOTIFY(e, on_start, job);
	}
	e->buf.n = 0;
	return 0;
}

static int decision_pass(struct sim_engine *e)
{
	struct sim_policy *order = e->p.policies[SIM_FAM_ORDER];
	e->ctr.decision_passes++;
	e->buf.n = 0;
	int rc = order->ops->pick(order, &e->view, &e->buf);
	if (rc)
		return rc;
	return commit_proposals(e);
}

/* Earliest pending time: heap events and the next trace submit. */
static sim_time_t next_time(struct sim_engine *e)
{
	struct sim_event ev;
	sim_time_t t = SIM_TIME_MAX;
	if (sim_evq_peek(e->evq, &ev) == 0)
		t = ev.t;
	if (e->next_submit < e->p.trace->n_jobs) {
		sim_time_t ts = e->p.trace->jobs[e->next_submit].submit_ns;
		if (ts < t)
			t = ts;
	}
	return t;
}

/* Applies every event with time <= now, in (t, phase, seq) order; trace submits are
 * merged in as phase EV_SUBMIT. */
static int apply_due_events(struct sim_engine *e)
{
	struct sim_trace *t = e->p.trace;
	for (;;) {
		struct sim_event ev;
		int have_ev = sim_evq_peek(e->evq, &ev) == 0 && ev.t <= e->now;
		int have_sub = e->next_submit < t->n_jobs && t->jobs[e->next_submit].submit_ns <= e->now;
		if (!have_ev && !have_sub)
			return 0;
		int take_sub = have_sub &&
			       (!have_ev || t->jobs[e->next_submit].submit_ns < ev.t ||
				(t->jobs[e->next_submit].submit_ns == ev.t && ev.phase >= EV_SUBMIT));
		if (take_sub) {
			apply_submit(e, &t->jobs[e->next_submit++]);
		} else {
			sim_evq_pop(e->evq, &ev);
			int rc = apply_event(e, &ev);
			if (rc)
				return rc;
		}
		e->ctr.events++;
		e->changed = 1;
		if (e->p.progress && (e->ctr.events & 0xFFFF) == 0)
			e->p.progress(e->p.progress_arg, e->n_done, t->n_jobs, e->now);
	}
}

static void mark_unfinished(struct sim_engine *e)
{
	struct sim_trace *t = e->p.trace;
	/* Every job submitted and none queued or running: no job is in a state to mark
	 * (this skips a pass over every job after a run that drained). */
	if (e->next_submit == t->n_jobs && e->n_queued == 0 && e->n_running == 0)
		return;
	for (size_t i = 0; i < t->n_jobs; i++) {
		struct sim_job *j = &t->jobs[i];
		if (j->state == SIM_JOB_QUEUED || j->state == SIM_JOB_RUNNING ||
		    j->state == SIM_JOB_UNSUBMITTED)
			j->state = SIM_JOB_UNFINISHED;
	}
}

int sim_engine_run(struct sim_engine *e)
{
	const struct sim_driver *drv = &e->p.driver;
	int rc = 0;
	e->now = drv->ops->now(drv->priv);
	e->next_sample = 0;
	e->sample_ns = e->p.sample_ns;
	for (;;) {
		sim_time_t t = next_time(e);
		if (t == SIM_TIME_MAX && e->n_running == 0)
			break; /* nothing scheduled, nothing running: queued jobs can never start */
		if (t != SIM_TIME_MAX && (rc = ts_sample_until(e, t)))
			break;
		if ((rc = drv->ops->advance(drv->priv, e, t)))
			break;
		sim_time_t now = drv->ops->now(drv->priv);
		assert(now >= e->now); /* time never goes backwards */
		e->now = now;
		if ((rc = apply_due_events(e)))
			break;
		if (e->changed && e->n_queued) {
			if ((rc = decision_pass(e)))
				break;
		}
		e->changed = 0;
	}
	if (!rc)
		rc = ts_sample_until(e, e->now + 1);
	mark_unfinished(e);
	if (e->p.progress)
		e->p.progress(e->p.progress_arg, e->n_done, e->p.trace->n_jobs, e->now);
	return rc;
}
