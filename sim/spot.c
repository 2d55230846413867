/* sim/spot.c: the spot plan and its interruption draws (sim/spot.h). */
#include "spot.h"
#include "draws.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

/* The source tag mixed into every seed: distinct from the fault and provisioning ones. */
#define SRC_SPOT 0x53504f54u

struct sim_spot *sim_spot_create(size_t n_flavors)
{
	struct sim_spot *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->n_flavors = n_flavors;
	s->fl = calloc(n_flavors ? n_flavors : 1, sizeof *s->fl);
	if (!s->fl) {
		free(s);
		return NULL;
	}
	return s;
}

void sim_spot_destroy(struct sim_spot *s)
{
	if (!s)
		return;
	for (size_t f = 0; f < s->n_flavors; f++)
		free(s->fl[f].times);
	free(s->fl);
	free(s);
}

int sim_spot_on(const struct sim_spot *s, int f)
{
	if (!s)
		return 0;
	if (f >= 0)
		return (size_t)f < s->n_flavors && s->fl[f].on;
	for (size_t i = 0; i < s->n_flavors; i++)
		if (s->fl[i].on)
			return 1;
	return 0;
}

int sim_spot_add_time(struct sim_spot *s, int f, sim_time_t t)
{
	struct sim_spot_flavor *sf = &s->fl[f];
	sim_time_t *nt = realloc(sf->times, (sf->n_times + 1) * sizeof *nt);
	if (!nt)
		return -SIM_ENOMEM;
	sf->times = nt;
	sf->times[sf->n_times++] = t;
	return 0;
}

static int time_cmp(const void *a, const void *b)
{
	sim_time_t x = *(const sim_time_t *)a, y = *(const sim_time_t *)b;
	return (x > y) - (x < y);
}

void sim_spot_finalize(struct sim_spot *s)
{
	for (size_t f = 0; f < s->n_flavors; f++)
		if (s->fl[f].n_times > 1)
			qsort(s->fl[f].times, s->fl[f].n_times, sizeof *s->fl[f].times, time_cmp);
}

sim_time_t sim_spot_draw_uptime(const struct sim_spot *s, struct sim_draws *d, int f, uint32_t node, uint64_t k)
{
	const struct sim_spot_flavor *sf = &s->fl[f];
	if (!(sf->rate_per_node_h > 0))
		return SIM_TIME_NONE;
	double sec = gsl_ran_exponential(sim_draws_rng(d, SRC_SPOT, (uint64_t)f, node, k), 3600.0 / sf->rate_per_node_h);
	return sim_draws_ns(sec, 1);
}
