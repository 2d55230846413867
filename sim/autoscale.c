/* sim/autoscale.c: the autoscaling plan and its provisioning draws (sim/autoscale.h). */
#include "autoscale.h"
#include "draws.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The source tag mixed into every seed: distinct from the fault sources (1..4). */
#define SRC_PROVISION 0x41535550u

struct sim_autoscale *sim_autoscale_create(size_t n_flavors)
{
	struct sim_autoscale *a = calloc(1, sizeof *a);
	if (!a)
		return NULL;
	a->n_flavors = n_flavors;
	a->fl = calloc(n_flavors ? n_flavors : 1, sizeof *a->fl);
	if (!a->fl) {
		free(a);
		return NULL;
	}
	return a;
}

void sim_autoscale_destroy(struct sim_autoscale *a)
{
	if (!a)
		return;
	free(a->fl);
	free(a);
}

int sim_autoscale_on(const struct sim_autoscale *a, int f)
{
	if (!a)
		return 0;
	if (f >= 0)
		return (size_t)f < a->n_flavors && a->fl[f].on;
	for (size_t i = 0; i < a->n_flavors; i++)
		if (a->fl[i].on)
			return 1;
	return 0;
}

static const char *const mode_names[] = { "default", "conservative", "aggressive" };

const char *sim_as_mode_name(enum sim_as_mode m)
{
	return (unsigned)m < 3 ? mode_names[m] : "?";
}

int sim_as_mode_from_name(const char *name)
{
	for (int i = 0; i < 3; i++)
		if (strcmp(name, mode_names[i]) == 0)
			return i;
	return -1;
}

uint32_t sim_autoscale_request(enum sim_as_mode m, uint32_t shortfall, uint32_t up, uint32_t provisioning,
			       uint32_t max_nodes)
{
	uint64_t have = (uint64_t)up + provisioning;
	uint32_t room = have >= max_nodes ? 0 : (uint32_t)(max_nodes - have);
	if (shortfall == 0 || room == 0)
		return 0;
	if (m == SIM_AS_AGGRESSIVE)
		return room;
	uint32_t n = shortfall < room ? shortfall : room;
	if (m == SIM_AS_CONSERVATIVE) {
		uint32_t limit = up > 1 ? up : 1;
		uint32_t left = provisioning >= limit ? 0 : limit - provisioning;
		if (n > left)
			n = left;
	}
	return n;
}

struct sim_autoscale_run {
	const struct sim_autoscale *a;
	struct sim_draws d;
};

struct sim_autoscale_run *sim_autoscale_run_create(const struct sim_autoscale *a, uint64_t seed)
{
	struct sim_autoscale_run *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->a = a;
	if (sim_draws_init(&r->d, seed)) {
		free(r);
		return NULL;
	}
	return r;
}

void sim_autoscale_run_destroy(struct sim_autoscale_run *r)
{
	if (!r)
		return;
	sim_draws_fini(&r->d);
	free(r);
}

sim_time_t sim_autoscale_draw_delay(struct sim_autoscale_run *r, int f, uint64_t k)
{
	const struct sim_as_flavor *af = &r->a->fl[f];
	double s = af->provision_s;
	if (af->law == SIM_AS_EXPONENTIAL && s > 0)
		s = gsl_ran_exponential(sim_draws_rng(&r->d, SRC_PROVISION, (uint64_t)f, 0, k), s);
	return sim_draws_ns(s, 0);
}
