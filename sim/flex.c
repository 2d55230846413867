/* sim/flex.c: the flex-start plan and its request draws (sim/flex.h). */
#include "flex.h"
#include "draws.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>

/* The source tags mixed into every seed: distinct from the fault, provisioning and
 * spot ones. */
#define SRC_FLEX_WAIT 0x464c5857u
#define SRC_FLEX_FAIL 0x464c5846u

struct sim_flex *sim_flex_create(size_t n_flavors)
{
	struct sim_flex *x = calloc(1, sizeof *x);
	if (!x)
		return NULL;
	x->n_flavors = n_flavors;
	x->fl = calloc(n_flavors ? n_flavors : 1, sizeof *x->fl);
	if (!x->fl) {
		free(x);
		return NULL;
	}
	return x;
}

void sim_flex_destroy(struct sim_flex *x)
{
	if (!x)
		return;
	for (size_t f = 0; f < x->n_flavors; f++)
		free(x->fl[f].offers);
	free(x->fl);
	free(x);
}

int sim_flex_add_offer(struct sim_flex *x, int f, sim_time_t t, uint32_t nodes, uint32_t line)
{
	struct sim_flex_flavor *ff = &x->fl[f];
	struct sim_flex_offer *no = realloc(ff->offers, (ff->n_offers + 1) * sizeof *no);
	if (!no)
		return -SIM_ENOMEM;
	ff->offers = no;
	ff->offers[ff->n_offers++] = (struct sim_flex_offer){ t, nodes, line };
	return 0;
}

static int offer_cmp(const void *a, const void *b)
{
	const struct sim_flex_offer *x = a, *y = b;
	if (x->t != y->t)
		return (x->t > y->t) - (x->t < y->t);
	return (x->line > y->line) - (x->line < y->line);
}

void sim_flex_finalize(struct sim_flex *x)
{
	for (size_t f = 0; x && f < x->n_flavors; f++)
		if (x->fl[f].n_offers > 1)
			qsort(x->fl[f].offers, x->fl[f].n_offers, sizeof *x->fl[f].offers, offer_cmp);
}

int sim_flex_on(const struct sim_flex *x, int f)
{
	if (!x)
		return 0;
	if (f >= 0)
		return (size_t)f < x->n_flavors && x->fl[f].on;
	for (size_t i = 0; i < x->n_flavors; i++)
		if (x->fl[i].on)
			return 1;
	return 0;
}

sim_time_t sim_flex_backoff_ns(const struct sim_flex_flavor *ff, uint32_t n)
{
	sim_time_t b = ff->backoff_base_ns;
	for (uint32_t i = 1; i < n && b < ff->backoff_max_ns; i++)
		b = b > SIM_TIME_MAX / 2 ? SIM_TIME_MAX : 2 * b;
	return b < ff->backoff_max_ns ? b : ff->backoff_max_ns;
}

struct sim_flex_outcome sim_flex_draw(const struct sim_flex *x, struct sim_draws *d, int f, uint32_t job,
				      uint64_t k)
{
	const struct sim_flex_flavor *ff = &x->fl[f];
	double s = ff->wait_s;
	if (ff->law == SIM_FLEX_EXPONENTIAL && s > 0)
		s = gsl_ran_exponential(sim_draws_rng(d, SRC_FLEX_WAIT, (uint64_t)f, job, k), s);
	struct sim_flex_outcome o = { sim_draws_ns(s, 0), 1 };
	if (ff->max_wait_ns > 0 && o.after_ns > ff->max_wait_ns) {
		o.after_ns = ff->max_wait_ns;
		o.served = 0;
	} else if (ff->fail_p > 0) {
		o.served = gsl_rng_uniform(sim_draws_rng(d, SRC_FLEX_FAIL, (uint64_t)f, job, k)) >= ff->fail_p;
	}
	return o;
}

struct sim_flex_outcome sim_flex_answer_trace(const struct sim_flex *x, struct sim_draws *d, uint8_t *taken,
					      int f, uint32_t job, uint64_t k, sim_time_t now, uint32_t need,
					      int *never)
{
	const struct sim_flex_flavor *ff = &x->fl[f];
	struct sim_flex_outcome o = { ff->max_wait_ns, 0 };
	*never = 0;
	size_t lo = 0, hi = ff->n_offers; /* the first offer at or after now */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ff->offers[mid].t < now)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < ff->n_offers; i++) {
		if (taken[i] || ff->offers[i].nodes < need)
			continue;
		sim_time_t wait = ff->offers[i].t - now;
		if (ff->max_wait_ns > 0 && wait > ff->max_wait_ns)
			break; /* it fails at max_wait */
		o.after_ns = wait;
		o.served = !(ff->fail_p > 0) ||
			   gsl_rng_uniform(sim_draws_rng(d, SRC_FLEX_FAIL, (uint64_t)f, job, k)) >= ff->fail_p;
		if (o.served)
			taken[i] = 1;
		return o;
	}
	*never = ff->max_wait_ns <= 0;
	return o;
}
