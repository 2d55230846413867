/* sim/ckpt.c: checkpoint tiers and interval policies (sim/ckpt.h, docs/faults.md). */
#include "ckpt.h"
#include "faults.h"
#include "hooks.h"

#include <gsl/gsl_sf_gamma.h>
#include <math.h>
#include <string.h>

int sim_ckpt_tiered(const struct sim_ckpt_policy *p)
{
	return p && (p->memory || p->interval != SIM_CKPT_FIXED);
}

double sim_ckpt_young_s(double c_s, double m_s)
{
	if (!(c_s > 0) || !(m_s > 0))
		return 0;
	return sqrt(2 * c_s * m_s);
}

double sim_ckpt_daly_s(double c_s, double m_s)
{
	if (!(c_s > 0) || !(m_s > 0))
		return 0;
	if (c_s >= 2 * m_s)
		return m_s;
	return sqrt(2 * c_s * m_s) * (1 + sqrt(c_s / (2 * m_s)) / 3 + c_s / (18 * m_s)) - c_s;
}

double sim_ckpt_node_mean_s(int law, double mtbf_s, double shape, double scale_s, int per_gpu, double gpus)
{
	double g = per_gpu && gpus > 0 ? gpus : 1;
	switch (law) {
	case SIM_FLAW_EXPONENTIAL:
	case SIM_FLAW_FIXED:
		return mtbf_s / g;
	case SIM_FLAW_WEIBULL: {
		/* Gamma(1 + 1/k) with GSL's error handler off: a status, never an abort. */
		gsl_sf_result r;
		if (!(shape > 0) || gsl_sf_gamma_e(1 + 1 / shape, &r))
			return 0;
		return scale_s * pow(g, -1 / shape) * r.val;
	}
	default:
		return 0;
	}
}

double sim_ckpt_job_mtbf_s(uint32_t nodes, double node_mean_s, double crash_per_h, double spike_per_h)
{
	double rate = (node_mean_s > 0 ? (double)nodes / node_mean_s : 0) + (crash_per_h + spike_per_h) / 3600;
	return rate > 0 ? 1 / rate : 0;
}

double sim_ckpt_mean_write_s(const struct sim_ckpt_policy *p, sim_time_t persist_write_ns)
{
	double per = sim_time_to_s(persist_write_ns);
	if (!p->memory)
		return per;
	double n = p->persist_every ? (double)p->persist_every : 1;
	return ((n - 1) * sim_time_to_s(p->mem_write_ns) + per) / n;
}

sim_time_t sim_ckpt_interval_ns(const struct sim_ckpt_policy *p, double c_s, double m_s)
{
	if (!(m_s > 0))
		return SIM_TIME_NONE;
	double t = p->interval == SIM_CKPT_DALY ? sim_ckpt_daly_s(c_s, m_s) : sim_ckpt_young_s(c_s, m_s);
	if (t < 1)
		t = 1; /* a write cost of 0 would checkpoint continuously */
	if (t > 1e9)
		t = 1e9;
	return (sim_time_t)llround(t * 1e9);
}

int sim_ckpt_is_persistent(const struct sim_ckpt_policy *p, uint64_t seq)
{
	return !p->memory || p->persist_every <= 1 || seq % p->persist_every == 0;
}

uint64_t sim_ckpt_persistent_in(const struct sim_ckpt_policy *p, uint64_t seq0, uint64_t k)
{
	if (!p->memory || p->persist_every <= 1)
		return k;
	return (seq0 + k) / p->persist_every - seq0 / p->persist_every;
}

double sim_ckpt_write_ns(const struct sim_ckpt_policy *p, sim_time_t persist_write_ns, uint64_t seq0, uint64_t k)
{
	uint64_t np = sim_ckpt_persistent_in(p, seq0, k);
	return (double)np * (double)persist_write_ns + (double)(k - np) * (double)p->mem_write_ns;
}

uint64_t sim_ckpt_completed(const struct sim_ckpt_policy *p, sim_time_t persist_write_ns, uint64_t seq0,
			    sim_time_t interval, sim_time_t elapsed, uint64_t kmax)
{
	/* The completion time of the i-th grows with i: the largest i with
	 * i x interval + writes(i) <= elapsed, by bisection on [0, kmax]. */
	uint64_t lo = 0, hi = kmax;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo + 1) / 2;
		double t = (double)mid * (double)interval + sim_ckpt_write_ns(p, persist_write_ns, seq0, mid);
		if (t <= (double)elapsed)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

int sim_ckpt_memory_survives(const struct sim_ckpt_policy *p, int cause)
{
	if (!p->memory)
		return 0;
	switch (cause) {
	case SIM_STOP_CRASHED:
	case SIM_STOP_HANG:
	case SIM_STOP_LOSS_SPIKE:
	case SIM_STOP_MAX_WAIT:
	case SIM_STOP_COMPLETED:
	case SIM_STOP_FAILED:
		return 1;
	case SIM_STOP_NODE_FAILED:
		return p->replicas >= 1;
	default: /* preempted, capacity removed, spot: the job leaves its nodes */
		return 0;
	}
}

double sim_ckpt_rollback_target(double mem_pos, const double *per, uint32_t n_per, uint32_t k)
{
	uint32_t i = 0; /* candidates passed so far */
	if (k < 1)
		k = 1;
	if (mem_pos >= 0 && (n_per == 0 || mem_pos > per[0])) {
		if (++i == k)
			return mem_pos;
	}
	for (uint32_t j = 0; j < n_per; j++)
		if (++i == k)
			return per[j];
	return 0;
}

void sim_ckpt_state_init(struct sim_ckpt_state *st)
{
	memset(st, 0, sizeof *st);
	st->mem_pos = -1;
}

uint64_t sim_ckpt_count(sim_time_t interval, sim_time_t work)
{
	if (interval == SIM_TIME_NONE || interval <= 0 || work <= 0)
		return 0;
	return (uint64_t)((work - 1) / interval);
}

/* Position of checkpoint i of a segment, capped below 1 as job->progress is. */
static double ckpt_pos(double p0, uint64_t i, sim_time_t interval, double work_ns)
{
	return fmin(p0 + (double)((sim_time_t)i * interval) / work_ns, 1.0 - 1e-12);
}

double sim_ckpt_record(struct sim_ckpt_state *st, const struct sim_ckpt_policy *p, double p0, double work_ns,
		       uint64_t k)
{
	double fresh[SIM_CKPT_RING];
	uint32_t nf = 0;
	uint64_t span = (uint64_t)SIM_CKPT_RING * (p->persist_every ? p->persist_every : 1);
	/* Newest first; only the newest SIM_CKPT_RING persistent ones are kept. */
	for (uint64_t i = k; i >= 1 && nf < SIM_CKPT_RING && k - i < span; i--)
		if (sim_ckpt_is_persistent(p, st->seq + i))
			fresh[nf++] = ckpt_pos(p0, i, st->interval_ns, work_ns);
	uint32_t keep = st->n_per < SIM_CKPT_RING - nf ? st->n_per : SIM_CKPT_RING - nf;
	memmove(&st->per[nf], st->per, keep * sizeof *st->per);
	memcpy(st->per, fresh, nf * sizeof *fresh);
	st->n_per = nf + keep;
	st->seq += k;
	if (!k)
		return p0;
	double newest = ckpt_pos(p0, k, st->interval_ns, work_ns);
	if (p->memory)
		st->mem_pos = newest;
	return newest;
}

void sim_ckpt_push_persistent(struct sim_ckpt_state *st, double pos)
{
	uint32_t keep = st->n_per < SIM_CKPT_RING ? st->n_per : SIM_CKPT_RING - 1;
	memmove(&st->per[1], st->per, keep * sizeof *st->per);
	st->per[0] = pos;
	st->n_per = keep + 1;
	st->seq++;
}

double sim_ckpt_restart(struct sim_ckpt_state *st, const struct sim_ckpt_policy *p, int cause, uint32_t rollback)
{
	if (!sim_ckpt_memory_survives(p, cause))
		st->mem_pos = -1;
	uint32_t k = cause == SIM_STOP_LOSS_SPIKE ? rollback : 1;
	double target = sim_ckpt_rollback_target(st->mem_pos, st->per, st->n_per, k);
	while (st->n_per && st->per[0] > target) {
		memmove(st->per, st->per + 1, (st->n_per - 1) * sizeof *st->per);
		st->n_per--;
	}
	if (st->mem_pos > target)
		st->mem_pos = -1;
	st->restore_mem = st->mem_pos >= 0 && st->mem_pos == target;
	return target;
}
