/* sim/capacity.c: the capacity plan and the stock-out draws (see capacity.h). */
#include "capacity.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct sim_capacity *sim_capacity_create(size_t n_flavors)
{
	struct sim_capacity *cap = calloc(1, sizeof *cap);
	if (!cap)
		return NULL;
	size_t n = n_flavors ? n_flavors : 1;
	cap->n_flavors = n_flavors;
	cap->stock = calloc(n, sizeof *cap->stock);
	cap->windows = calloc(n, sizeof *cap->windows);
	cap->n_windows = calloc(n, sizeof *cap->n_windows);
	cap->plan = calloc(n, 1);
	if (!cap->stock || !cap->windows || !cap->n_windows || !cap->plan) {
		sim_capacity_destroy(cap);
		return NULL;
	}
	return cap;
}

void sim_capacity_destroy(struct sim_capacity *cap)
{
	if (!cap)
		return;
	for (size_t f = 0; cap->windows && f < cap->n_flavors; f++)
		free(cap->windows[f]);
	free(cap->windows);
	free(cap->n_windows);
	free(cap->plan);
	free(cap->stock);
	free(cap->changes);
	free(cap);
}

int sim_capacity_add_change(struct sim_capacity *cap, const struct sim_cap_change *ch)
{
	struct sim_cap_change *nc = sim_grow(cap->changes, &cap->cap_changes, cap->n_changes, sizeof *nc, 16);
	if (!nc)
		return -SIM_ENOMEM;
	cap->changes = nc;
	cap->changes[cap->n_changes++] = *ch;
	return 0;
}

int sim_capacity_add_window(struct sim_capacity *cap, int flavor, sim_time_t start, sim_time_t end)
{
	if (flavor < 0 || (size_t)flavor >= cap->n_flavors || start < 0 || end <= start)
		return -SIM_EINVAL;
	size_t n = cap->n_windows[flavor];
	struct sim_window *nw = realloc(cap->windows[flavor], (n + 1) * sizeof *nw);
	if (!nw)
		return -SIM_ENOMEM;
	cap->windows[flavor] = nw;
	nw[n] = (struct sim_window){ start, end };
	cap->n_windows[flavor] = n + 1;
	return 0;
}

static int change_cmp(const void *a, const void *b)
{
	const struct sim_cap_change *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

static int window_cmp(const void *a, const void *b)
{
	const struct sim_window *x = a, *y = b;
	return (x->start > y->start) - (x->start < y->start);
}

int sim_capacity_finalize(struct sim_capacity *cap)
{
	/* Rows are numbered by line, so the sort is stable in the file's order. */
	if (cap->n_changes) /* qsort's base must not be NULL, even for no elements */
		qsort(cap->changes, cap->n_changes, sizeof *cap->changes, change_cmp);
	for (size_t f = 0; f < cap->n_flavors; f++) {
		struct sim_window *w = cap->windows[f];
		if (cap->n_windows[f])
			qsort(w, cap->n_windows[f], sizeof *w, window_cmp);
		for (size_t i = 1; i < cap->n_windows[f]; i++)
			if (w[i].start < w[i - 1].end)
				return -SIM_EINVAL;
	}
	return 0;
}

int sim_capacity_any(const struct sim_capacity *cap)
{
	if (!cap)
		return 0;
	if (cap->n_changes)
		return 1;
	for (size_t f = 0; f < cap->n_flavors; f++)
		if (cap->n_windows[f] || cap->stock[f].law != SIM_STOCK_NONE)
			return 1;
	return 0;
}

int sim_capacity_is_reservation(const struct sim_capacity *cap, int flavor)
{
	return cap && flavor >= 0 && (size_t)flavor < cap->n_flavors && cap->n_windows[flavor] > 0;
}

uint32_t sim_capacity_initial(const struct sim_capacity *cap, int flavor, uint32_t nodes)
{
	return sim_capacity_is_reservation(cap, flavor) ? 0 : nodes;
}

static int64_t apply_change(int64_t cur, const struct sim_cap_change *ch)
{
	int64_t n = ch->is_delta ? cur + ch->nodes : ch->nodes;
	return n < 0 ? 0 : n;
}

uint32_t sim_capacity_peak(const struct sim_capacity *cap, int flavor, uint32_t nodes)
{
	if (!cap)
		return nodes;
	int64_t cur = nodes, peak = nodes;
	for (size_t i = 0; i < cap->n_changes; i++) {
		if (cap->changes[i].flavor != flavor)
			continue;
		cur = apply_change(cur, &cap->changes[i]);
		if (cur > peak)
			peak = cur;
	}
	return peak > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)peak;
}

sim_time_t sim_capacity_next_open(const struct sim_capacity *cap, int flavor, sim_time_t t)
{
	if (!sim_capacity_is_reservation(cap, flavor))
		return t;
	const struct sim_window *w = cap->windows[flavor];
	sim_time_t cut = cap->plan[flavor] ? (sim_time_t)SIM_PLAN_CUTOFF_S * SIM_NS_PER_S : 0;
	for (size_t i = 0; i < cap->n_windows[flavor]; i++) {
		if (t < w[i].start)
			return w[i].start;
		if (t < w[i].end - cut)
			return t;
	}
	return SIM_TIME_NONE;
}

sim_time_t sim_capacity_plan_deadline(const struct sim_capacity *cap, int flavor, sim_time_t t, sim_time_t limit)
{
	if (!sim_capacity_is_reservation(cap, flavor))
		return SIM_TIME_NONE;
	const sim_time_t cut = (sim_time_t)SIM_PLAN_CUTOFF_S * SIM_NS_PER_S;
	sim_time_t left = limit;
	for (size_t i = 0; i < cap->n_windows[flavor]; i++) {
		const struct sim_window *w = &cap->windows[flavor][i];
		sim_time_t end = w->end - cut, from = t > w->start ? t : w->start;
		if (from >= end)
			continue;
		if (left <= end - from)
			return from + left;
		left -= end - from;
	}
	return SIM_TIME_NONE;
}

/* ---- per-run streams ---- */

struct sim_capacity_run {
	const struct sim_capacity *cap;
	gsl_rng **rng; /* per flavor with a random law, else NULL */
};

struct sim_capacity_run *sim_capacity_run_create(const struct sim_capacity *cap, uint64_t seed)
{
	struct sim_capacity_run *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->cap = cap;
	size_t n = cap && cap->n_flavors ? cap->n_flavors : 1;
	r->rng = calloc(n, sizeof *r->rng);
	if (!r->rng) {
		free(r);
		return NULL;
	}
	for (size_t f = 0; cap && f < cap->n_flavors; f++) {
		if (cap->stock[f].law != SIM_STOCK_EXPONENTIAL)
			continue;
		r->rng[f] = gsl_rng_alloc(gsl_rng_mt19937);
		if (!r->rng[f]) {
			sim_capacity_run_destroy(r);
			return NULL;
		}
		/* (seed, flavor) spread apart, so neighbouring seeds and flavors get
		 * unrelated MT19937 streams */
		gsl_rng_set(r->rng[f], (unsigned long)(sim_splitmix64(seed ^ sim_splitmix64(f + 1)) & 0xFFFFFFFFUL));
	}
	return r;
}

void sim_capacity_run_destroy(struct sim_capacity_run *r)
{
	if (!r)
		return;
	for (size_t f = 0; r->cap && f < r->cap->n_flavors; f++)
		if (r->rng[f])
			gsl_rng_free(r->rng[f]);
	free(r->rng);
	free(r);
}

sim_time_t sim_capacity_draw_period(struct sim_capacity_run *r, int flavor, int in_stock)
{
	const struct sim_stockout *s = &r->cap->stock[flavor];
	double mean = in_stock ? s->in_mean_s : s->out_mean_s;
	double len = s->law == SIM_STOCK_EXPONENTIAL ? gsl_ran_exponential(r->rng[flavor], mean) : mean;
	double ns = len * (double)SIM_NS_PER_S;
	if (!(ns >= 1.0))
		return 1;
	return ns < 1e18 ? (sim_time_t)llround(ns) : (sim_time_t)1000000000000000000LL;
}
