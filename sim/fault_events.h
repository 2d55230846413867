/* sim/fault_events.h: replay of an incident log (docs/faults.md, "Replay of an
 * incident log"): a CSV of disruptions at given times, read once per config
 * ($.cluster.fault_events, experiments/README.md) with the side-CSV reader
 * (sim/sidecsv.h), and applied by the engine instead of the fault plan's random
 * draws.
 *
 * Columns (a header row; any order): time_s and cause always; flavor, node and
 * repair_s for node failures; flavor, node, factor and duration_s for fail-slow
 * episodes; job for crashes, hangs and loss spikes. A row's cause names its handler
 * in one table (fault_events.c, `causes`): a new cause is one more row there, a
 * parser for its columns, and one more case in the engine's replay dispatch.
 * Unknown causes are refused.
 *
 * Ownership: the schedule owns its events and the job ids they name; it is
 * immutable once read (the struct sim_faults that holds it owns it).
 */
#ifndef SIM_FAULT_EVENTS_H
#define SIM_FAULT_EVENTS_H

#include "sim.h"

/* What a row does. */
enum sim_fev_kind {
	SIM_FEV_NODE_FAIL, /* cause node_failure: the node fails (repair_ns, or its repair law) */
	SIM_FEV_CRASH,	   /* cause crash: the job crashes, as a drawn crash would */
	SIM_FEV_HANG,	   /* cause hang: the job hangs (detection as configured) */
	SIM_FEV_LOSS_SPIKE, /* cause loss_spike: the job rolls back (rollback as configured) */
	SIM_FEV_SLOW,	    /* cause slow: the node runs at factor for duration (fail-slow episode) */
	SIM_FEV_KIND_COUNT_
};

struct sim_fault_event {
	sim_time_t t;	      /* when, ns >= 0; rows are in time order */
	uint8_t kind;	      /* enum sim_fev_kind */
	int32_t flavor;	      /* node rows: cluster flavor index; else -1 */
	uint32_t node;	      /* node rows: node index within the flavor */
	sim_time_t repair_ns; /* node rows: repair time, or SIM_TIME_NONE for the flavor's repair law */
	double factor;	      /* slow rows: the speed factor, 0 < f <= 1 */
	sim_time_t duration_ns; /* slow rows: the episode's length, > 0 */
	uint32_t job_off;     /* job rows: offset of the job id in strings */
	uint32_t line;	      /* source line, for messages */
};

struct sim_fault_events {
	char *path;		   /* owned copy, for messages */
	struct sim_fault_event *v; /* owned, n entries, sorted by t (ties: file order) */
	size_t n, cap;
	char *strings; /* owned: NUL-separated job ids */
	size_t strings_len, strings_cap;
	uint8_t has_kind[SIM_FEV_KIND_COUNT_]; /* 1 when some row has that kind */
};

/* Reads PATH. flavors: the cluster's flavor names (n_flavors), nodes: each one's
 * node count (a node index must be below it). Every bad row is reported in diag as
 * "PATH:LINE:COLUMN: column NAME: expected ..., found '...'" (or PATH:LINE: for
 * the header); returns 0 with *out set, or -SIM_EPARSE (reported), -SIM_ENOENT /
 * -SIM_EIO (errno kept, not reported: the caller names the file with its key) or
 * -SIM_ENOMEM, with *out NULL. */
int sim_fault_events_read(const char *path, const char *const *flavors, const uint32_t *nodes,
			  size_t n_flavors, struct sim_fault_events **out, struct sim_diag *diag);
void sim_fault_events_destroy(struct sim_fault_events *fe); /* NULL is a no-op */

static inline const char *sim_fault_event_job(const struct sim_fault_events *fe,
					      const struct sim_fault_event *ev)
{
	return fe->strings + ev->job_off;
}

#endif
