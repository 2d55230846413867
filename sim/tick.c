/* Progress throttle: see tick.h. */
#include "tick.h"

#include <time.h>

/* Clock reads wanted per period: a fire comes at most period_s / 8 late once the
 * stride has settled (the stride may double while under period_s / 16 a read). */
#define TICK_READS_PER_PERIOD 16.0
#define TICK_FIRST_STRIDE 64u

double sim_tick_monotonic_s(void *arg)
{
	(void)arg;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void sim_tick_init(struct sim_tick *t, double period_s, sim_clock_fn clock, void *clock_arg)
{
	t->clock = clock;
	t->clock_arg = clock_arg;
	t->period_s = period_s;
	t->last_fire_s = t->last_read_s = clock(clock_arg);
	t->stride = t->left = TICK_FIRST_STRIDE;
}

/* Doubles the stride when reads come faster than wanted, halves it when slower. */
static void adapt_stride(struct sim_tick *t, double since_read_s)
{
	double want_s = t->period_s / TICK_READS_PER_PERIOD;
	if (since_read_s < want_s && t->stride < SIM_TICK_MAX_STRIDE)
		t->stride *= 2;
	else if (since_read_s > 2 * want_s && t->stride > 1)
		t->stride /= 2;
}

int sim_tick_due(struct sim_tick *t)
{
	if (--t->left > 0)
		return 0;
	double now = t->clock(t->clock_arg);
	adapt_stride(t, now - t->last_read_s);
	t->last_read_s = now;
	t->left = t->stride;
	if (now - t->last_fire_s < t->period_s)
		return 0;
	t->last_fire_s = now;
	return 1;
}
