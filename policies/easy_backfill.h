/* policies/easy_backfill.h: what the easy_backfill order policy exposes beyond its
 * ops table (declared in policy.h): the reservations it made, for tests and
 * analysis. Recording is off unless the param "record_reservations" is true.
 */
#ifndef POLICIES_EASY_BACKFILL_H
#define POLICIES_EASY_BACKFILL_H

#include "policy.h"

/* One reservation: made the first time a job is the queue head and does not fit. */
struct easy_backfill_reservation {
	uint32_t job;          /* trace index of the blocked head */
	int32_t flavor;        /* flavor reserved on; -1 = none (never fits on GPUs, see the .c) */
	sim_time_t decided_ns; /* when the job became the blocked head */
	sim_time_t shadow_ns;  /* reserved start time ("shadow time"); SIM_TIME_MAX when none */
};

/* The reservations recorded so far, in the order made; *out is owned by the policy
 * and valid until its next hook call or destroy. Returns the count (0 when
 * recording is off or pol is not an easy_backfill instance). */
size_t easy_backfill_reservations(const struct sim_policy *pol, const struct easy_backfill_reservation **out);

#endif
