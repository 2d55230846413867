/* policies/scenario.h: scenario files, one scheduling cycle stated in full
 * (format: docs/scenarios.md; user documentation with the extensions:
 * experiments/scenarios/README.md).
 *
 * scn_load reads a file into a finalized kq_sched with its running workloads booked,
 * plus the pending jobs (or the one incoming job). scn_decide forms one head per
 * queue and runs kq_cycle (or kq_incoming) on it; it changes no state, so it may be
 * called again. scn_outcome_json renders a decision in docs/scenarios.md's --json shape;
 * it is the only output code here (cli/cmd_explain.c writes the sentences).
 *
 * Errors: syntax errors are "FILE:LINE:COL: JSON syntax error near '...'"; every
 * other error is "FILE: $.json.path: expected ..., got ..." (unknown and duplicate
 * keys, bad quantities, names that do not exist, cohort cycles). All errors are
 * reported (up to diag->limit), and nothing is returned unless the file is valid.
 */
#ifndef POLICIES_SCENARIO_H
#define POLICIES_SCENARIO_H

#include <cjson/cJSON.h>

#include "../sim/sim.h"
#include "kq.h"

struct scn {
	char *path;           /* as given, for messages; owned */
	char *id;             /* $.id, or NULL when absent; owned */
	struct kq_sched *kq;  /* finalized, running jobs booked; owned */
	/* Every job of the file: jobs[0 .. n_running) are the running ones (booked in
	 * kq), then n_pending pending ones, or the incoming one (n_pending is then 1).
	 * jobs[i].name points into names[i]; both owned. */
	struct kq_wl *jobs;
	char **names;
	size_t n_running, n_pending;
	int incoming;         /* 1: $.incoming instead of $.pending */
	int inc_fixed;        /* the incoming job has a fixed $.incoming.assignment */
	int16_t inc_flavor[SIM_MAX_RES]; /* that assignment's flavor per resource (-1 unused) */
	enum kq_mode inc_mode; /* KQ_FIT or KQ_PREEMPT */
	sim_time_t now;       /* $.now, or the latest time in the file, ns */
};

/* Reads and checks PATH; a PATH ending in .yaml or .yml is read as YAML (docs/yaml.md),
 * its errors then "FILE:LINE:COL: $.json.path: ...". Returns 0, or -SIM_ENOENT / -SIM_EIO / -SIM_EPARSE /
 * -SIM_ENOMEM with every error (up to diag->limit) in diag. Caller must
 * scn_destroy(*out). */
int scn_load(const char *path, struct scn **out, struct sim_diag *diag);
/* Same from text; `path` names it in messages. */
int scn_parse(const char *path, const char *text, size_t len, struct scn **out, struct sim_diag *diag);
void scn_destroy(struct scn *s); /* NULL is a no-op */

/* The quota tree alone, for run mode (policies/cohort_config.c): tree is
 * {"cohorts": [...], "queues": [...]} in the scenario shapes, found at json_path
 * ("$.policies.quota") of `file` for messages; resources and flavors are the
 * cluster's. Queue keys in extra_queue_keys (NULL-terminated, may be NULL) are
 * accepted and left to the caller. Returns 0 with a finalized kq_sched in *out
 * (no running jobs; caller kq_destroy()s it), or -SIM_EPARSE / -SIM_ENOMEM with
 * every error in diag. */
int scn_read_quota_tree(const char *file, const char *json_path, const cJSON *tree, int n_res,
			const char (*res_names)[SIM_NAME_MAX], int n_flavors,
			const char (*flavor_names)[SIM_NAME_MAX], const char *const *extra_queue_keys,
			struct kq_sched **out, struct sim_diag *diag);

/* Decides the cycle. Pending form: one head per queue (priority desc, created_at
 * asc, id), kq_cycle on the heads, then every non-head appended to out->waiting as
 * KQ_W_NOT_HEAD (in file order). Incoming form: kq_incoming, the assignment into
 * *inc (which must then be non-NULL), the victims into out->victims. out must be
 * zeroed or reused from an earlier call; the caller kq_decision_free()s it.
 * Returns 0 or -SIM_ENOMEM. */
int scn_decide(struct scn *s, struct kq_decision *out, struct kq_assign *inc);

/* The decision as docs/scenarios.md's --json object. Pending form: {"admitted":
 * [{"id","flavor"}], "preempting": [{"id","flavor"}], "victims": [{"id","reason",
 * "preemptor"}], "deferred": [{"id","flavor"}], "left_waiting": [{"id","reason"}]};
 * incoming form: {"id","mode","flavor","victims"}. "flavor" maps each requested
 * resource to its flavor. Arrays keep the decision's order. Returns a new tree
 * (caller cJSON_Delete()s it) or NULL when out of memory. */
cJSON *scn_outcome_json(const struct scn *s, const struct kq_decision *d, const struct kq_assign *inc);

#endif
