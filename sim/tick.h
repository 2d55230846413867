/* A wall-clock throttle for progress lines: sim_tick_due, called once per event,
 * says when period_s of wall time has passed since it last said so. It reads the
 * clock only every `stride` calls and adapts the stride so the clock is read about
 * TICK_READS_PER_PERIOD times a period, whatever an event costs: cheap when events
 * are fast, still timely when a slow policy makes each event take milliseconds. */
#ifndef SIM_TICK_H
#define SIM_TICK_H

#include <stdint.h>

/* Seconds on a monotonic clock; arg is the clock's own state (tests inject one). */
typedef double (*sim_clock_fn)(void *arg);

struct sim_tick {
	sim_clock_fn clock;
	void *clock_arg;
	double period_s;     /* wall seconds between two fires */
	double last_fire_s;  /* clock at the last fire (or at init) */
	double last_read_s;  /* clock at the last read */
	uint32_t stride;     /* calls between two clock reads, 1..SIM_TICK_MAX_STRIDE */
	uint32_t left;       /* calls until the next read */
};

#define SIM_TICK_MAX_STRIDE 65536u

/* Starts the period now (reads the clock once). */
void sim_tick_init(struct sim_tick *t, double period_s, sim_clock_fn clock, void *clock_arg);

/* 1 when period_s has passed since the last fire (the period then restarts), else 0. */
int sim_tick_due(struct sim_tick *t);

/* CLOCK_MONOTONIC in seconds; arg unused. */
double sim_tick_monotonic_s(void *arg);

#endif
