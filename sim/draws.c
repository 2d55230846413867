/* sim/draws.c: random draws keyed by what they are for (sim/draws.h). */
#include "draws.h"

#include <math.h>

int sim_draws_init(struct sim_draws *d, uint64_t seed)
{
	d->seed = seed;
	d->rng = gsl_rng_alloc(gsl_rng_taus2);
	return d->rng ? 0 : -SIM_ENOMEM;
}

void sim_draws_fini(struct sim_draws *d)
{
	if (d->rng)
		gsl_rng_free(d->rng);
	d->rng = NULL;
}

gsl_rng *sim_draws_rng(struct sim_draws *d, uint32_t src, uint64_t a, uint64_t b, uint64_t k)
{
	uint64_t h = sim_splitmix64(d->seed ^ sim_splitmix64(src));
	h = sim_splitmix64(h ^ a);
	h = sim_splitmix64(h ^ (b << 32 ^ k));
	unsigned long s = (unsigned long)(h & 0xFFFFFFFFUL);
	gsl_rng_set(d->rng, s ? s : 1);
	return d->rng;
}

sim_time_t sim_draws_ns(double s, sim_time_t lo)
{
	double ns = s * (double)SIM_NS_PER_S;
	if (!(ns >= (double)lo))
		return lo;
	return ns < 1e18 ? (sim_time_t)llround(ns) : (sim_time_t)1000000000000000000LL;
}
