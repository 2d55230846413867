/* sim/faults.c: the fault plan and its per-run draws (sim/faults.h). */
#include "faults.h"
#include "draws.h"
#include "fault_events.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

/* Sources, so that each gets its own family of seeds. */
enum { SRC_UPTIME = 1, SRC_REPAIR, SRC_CRASH, SRC_HANG, SRC_SPIKE, SRC_SLOW_GAP, SRC_SLOW_FACTOR, SRC_SLOW_PERIOD };

struct sim_faults *sim_faults_create(size_t n_flavors)
{
	struct sim_faults *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	f->n_flavors = n_flavors;
	f->node = calloc(n_flavors ? n_flavors : 1, sizeof *f->node);
	f->slow = calloc(n_flavors ? n_flavors : 1, sizeof *f->slow);
	if (!f->node || !f->slow) {
		free(f->node);
		free(f->slow);
		free(f);
		return NULL;
	}
	f->job.law = SIM_FLAW_EXPONENTIAL;
	f->job.hang_detect = 1;
	f->job.max_retries = -1;
	f->job.max_full_restarts = -1;
	f->job.rollback = 1;
	for (size_t i = 0; i < n_flavors; i++) {
		f->node[i].repair_law = SIM_FLAW_FIXED;
		f->slow[i] = (struct sim_node_slow){ .factor_lo = 1, .factor_hi = 1, .period_lo_s = 30,
						     .period_hi_s = 36000 };
	}
	return f;
}

void sim_faults_destroy(struct sim_faults *f)
{
	if (!f)
		return;
	sim_fault_events_destroy(f->events);
	free(f->node);
	free(f->slow);
	free(f);
}

/* 1 when the replayed log fails some node of flavor fl. */
static int replays_flavor(const struct sim_faults *f, int fl)
{
	if (!f->events || !f->events->has_kind[SIM_FEV_NODE_FAIL])
		return 0;
	for (size_t i = 0; i < f->events->n; i++)
		if (f->events->v[i].kind == SIM_FEV_NODE_FAIL && f->events->v[i].flavor == fl)
			return 1;
	return 0;
}

int sim_faults_nodes_any(const struct sim_faults *f, int fl)
{
	if (!f)
		return 0;
	if (fl >= 0)
		return (size_t)fl < f->n_flavors && (f->node[fl].law != SIM_FLAW_NONE || replays_flavor(f, fl));
	for (size_t i = 0; i < f->n_flavors; i++)
		if (f->node[i].law != SIM_FLAW_NONE || replays_flavor(f, (int)i))
			return 1;
	return 0;
}

int sim_faults_replay(const struct sim_faults *f)
{
	return f && f->events;
}

int sim_faults_jobs_any(const struct sim_faults *f)
{
	return f && (f->job.crash_per_h > 0 || f->job.hang_per_h > 0 || f->job.spike_per_h > 0);
}

/* 1 when the replayed log has a slow episode on flavor fl (-1: any). */
static int replays_slow(const struct sim_faults *f, int fl)
{
	if (!f->events || !f->events->has_kind[SIM_FEV_SLOW])
		return 0;
	for (size_t i = 0; i < f->events->n; i++)
		if (f->events->v[i].kind == SIM_FEV_SLOW && (fl < 0 || f->events->v[i].flavor == fl))
			return 1;
	return 0;
}

int sim_faults_slow_any(const struct sim_faults *f, int fl)
{
	if (!f)
		return 0;
	if (fl >= 0)
		return (size_t)fl < f->n_flavors && (f->slow[fl].law != SIM_FLAW_NONE || replays_slow(f, fl));
	for (size_t i = 0; i < f->n_flavors; i++)
		if (f->slow[i].law != SIM_FLAW_NONE)
			return 1;
	return replays_slow(f, -1);
}

int sim_faults_slow_replayed(const struct sim_faults *f)
{
	return f && f->events && f->events->has_kind[SIM_FEV_SLOW];
}

int sim_faults_any(const struct sim_faults *f)
{
	return sim_faults_nodes_any(f, -1) || sim_faults_jobs_any(f) || sim_faults_slow_any(f, -1) ||
	       sim_faults_replay(f);
}

/* The mean of exp(U(ln lo, ln hi)) is (hi - lo) / ln(hi / lo). */
double sim_faults_slow_mean_period_s(const struct sim_node_slow *ns)
{
	if (ns->period_law != SIM_SPER_LOG_UNIFORM)
		return ns->period_s;
	double lo = ns->period_lo_s, hi = ns->period_hi_s;
	return hi > lo ? (hi - lo) / log(hi / lo) : lo;
}

/* ---- per-run draws ---- */

struct sim_faults_run {
	const struct sim_faults *f;
	struct sim_draws d;
};

struct sim_faults_run *sim_faults_run_create(const struct sim_faults *f, uint64_t seed)
{
	struct sim_faults_run *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->f = f;
	if (sim_draws_init(&r->d, seed)) {
		free(r);
		return NULL;
	}
	return r;
}

void sim_faults_run_destroy(struct sim_faults_run *r)
{
	if (!r)
		return;
	sim_draws_fini(&r->d);
	free(r);
}

static gsl_rng *keyed(struct sim_faults_run *r, unsigned src, uint64_t a, uint64_t b, uint64_t k)
{
	return sim_draws_rng(&r->d, src, a, b, k);
}

static sim_time_t to_ns(double s, sim_time_t lo)
{
	return sim_draws_ns(s, lo);
}

sim_time_t sim_faults_draw_uptime(struct sim_faults_run *r, int fl, uint32_t node, uint32_t k, double node_gpus)
{
	const struct sim_node_faults *nf = &r->f->node[fl];
	double g = nf->per_gpu && node_gpus > 0 ? node_gpus : 1.0;
	gsl_rng *rng = keyed(r, SRC_UPTIME, (uint64_t)fl, node, k);
	double s;
	switch (nf->law) {
	case SIM_FLAW_WEIBULL: /* the least of g Weibull(k, lambda) is Weibull(k, lambda g^(-1/k)) */
		s = gsl_ran_weibull(rng, nf->scale_s * pow(g, -1.0 / nf->shape), nf->shape);
		break;
	case SIM_FLAW_FIXED:
		s = nf->mtbf_s / g;
		break;
	default:
		s = gsl_ran_exponential(rng, nf->mtbf_s / g);
	}
	return to_ns(s, 1);
}

sim_time_t sim_faults_draw_repair(struct sim_faults_run *r, int fl, uint32_t node, uint32_t k)
{
	const struct sim_node_faults *nf = &r->f->node[fl];
	if (nf->repair_law != SIM_FLAW_EXPONENTIAL || nf->repair_s <= 0)
		return to_ns(nf->repair_s, 0);
	return to_ns(gsl_ran_exponential(keyed(r, SRC_REPAIR, (uint64_t)fl, node, k), nf->repair_s), 0);
}

static sim_time_t draw_job(struct sim_faults_run *r, unsigned src, double per_h, uint32_t job, uint32_t seg)
{
	if (per_h <= 0)
		return SIM_TIME_NONE;
	double mean_s = 3600.0 / per_h;
	if (r->f->job.law == SIM_FLAW_FIXED)
		return to_ns(mean_s, 1);
	return to_ns(gsl_ran_exponential(keyed(r, src, job, 0, seg), mean_s), 1);
}

sim_time_t sim_faults_draw_crash(struct sim_faults_run *r, uint32_t job, uint32_t seg)
{
	return draw_job(r, SRC_CRASH, r->f->job.crash_per_h, job, seg);
}

sim_time_t sim_faults_draw_hang(struct sim_faults_run *r, uint32_t job, uint32_t seg)
{
	return draw_job(r, SRC_HANG, r->f->job.hang_per_h, job, seg);
}

sim_time_t sim_faults_draw_spike(struct sim_faults_run *r, uint32_t job, uint32_t seg)
{
	return draw_job(r, SRC_SPIKE, r->f->job.spike_per_h, job, seg);
}

/* ---- fail-slow nodes ---- */

sim_time_t sim_faults_draw_slow_gap(struct sim_faults_run *r, int fl, uint32_t node, uint32_t k)
{
	const struct sim_node_slow *ns = &r->f->slow[fl];
	if (ns->law == SIM_FLAW_FIXED)
		return to_ns(ns->mtbs_s, 1);
	return to_ns(gsl_ran_exponential(keyed(r, SRC_SLOW_GAP, (uint64_t)fl, node, k), ns->mtbs_s), 1);
}

double sim_faults_draw_slow_factor(struct sim_faults_run *r, int fl, uint32_t node, uint32_t k)
{
	const struct sim_node_slow *ns = &r->f->slow[fl];
	if (!(ns->factor_hi > ns->factor_lo))
		return ns->factor_lo;
	return gsl_ran_flat(keyed(r, SRC_SLOW_FACTOR, (uint64_t)fl, node, k), ns->factor_lo, ns->factor_hi);
}

sim_time_t sim_faults_draw_slow_period(struct sim_faults_run *r, int fl, uint32_t node, uint32_t k)
{
	const struct sim_node_slow *ns = &r->f->slow[fl];
	switch (ns->period_law) {
	case SIM_SPER_FIXED:
		return to_ns(ns->period_s, 1);
	case SIM_SPER_EXPONENTIAL:
		return to_ns(gsl_ran_exponential(keyed(r, SRC_SLOW_PERIOD, (uint64_t)fl, node, k), ns->period_s), 1);
	default: {
		double lo = ns->period_lo_s, hi = ns->period_hi_s;
		if (!(hi > lo))
			return to_ns(lo, 1);
		double u = gsl_rng_uniform(keyed(r, SRC_SLOW_PERIOD, (uint64_t)fl, node, k));
		return to_ns(exp(log(lo) + u * (log(hi) - log(lo))), 1);
	}
	}
}
