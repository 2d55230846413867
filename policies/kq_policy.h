/* policies/kq_policy.h: how the Kueue policies of `gpusched run` are configured:
 * the preemption policies `classical` and `fair_sharing` (settings only; the cohort
 * quota policy applies them in its cycle), and the cohort policy's config reader.
 */
#ifndef POLICIES_KQ_POLICY_H
#define POLICIES_KQ_POLICY_H

#include <cjson/cJSON.h>

#include "../sim/cluster.h"
#include "../sim/engine.h"
#include "kq.h"

/* Settings of a preemption policy, applied to every queue that does not set them. */
struct kq_preempt_params {
	int fair;                          /* fair_sharing */
	int le_final, lt_initial, first_is_initial; /* fair-sharing strategies */
	enum kq_policy within, reclaim;
	int bwc, bwc_has_threshold;
	int32_t bwc_threshold;
};
const struct kq_preempt_params *kq_preempt_params_of(const struct sim_policy *pp);
/* Bits of `explicit_mask`: the queue set within_queue, reclaim_within_cohort,
 * borrow_within_cohort itself (those stay). */
#define KQ_SET_WITHIN 1u
#define KQ_SET_RECLAIM 2u
#define KQ_SET_BWC 4u
void kq_preempt_params_apply(const struct kq_preempt_params *pr, struct kq_sched *kq, int node,
			     unsigned explicit_mask);

/* A timed change the cohort policy applies (quota_events, priority_events). */
struct timed_change {
	sim_time_t t;
	uint8_t kind;     /* 0 quota (node, fr, nominal), 1 priority (job, priority) */
	int32_t node, fr;
	sim_qty_t nominal;
	uint32_t job;
	int32_t priority;
	uint32_t seq;     /* position in the files, so equal times keep file order */
};

struct cohort_knobs {      /* per trace queue, run mode only */
	int strict_fifo;           /* queueing_strategy StrictFIFO */
	int32_t retry_limit;       /* preemption_retry_limit, -1 = unset (requeue forever) */
	double max_preempt_per_hour; /* max_preemptions_per_hour, -1 = no cap */
};

struct cohort_setup {
	/* in */
	const char *file, *json_path;
	const cJSON *params;
	const struct sim_trace *trace;
	const struct sim_cluster *cluster;
	int hard;                  /* quota "hard": every queue is its own root */
	/* out, owned until cohort_setup_free (a caller takes a pointer by NULLing it) */
	struct kq_sched *kq;       /* finalized */
	int *queue_node;           /* per trace queue: its kq node */
	struct cohort_knobs *knobs; /* per trace queue */
	uint8_t *managed_res;      /* per cluster resource: named by some quota */
	uint8_t *explicit_pre;     /* per kq node: KQ_SET_* bits */
	struct timed_change *changes; /* sorted by time */
	size_t n_changes;
	int max_heads_per_queue;   /* 0 = no bound (the default, Kueue's behaviour) */
};
/* Tests only: when set as a cohort or hard policy is created, its pending queues
 * are the naive oracle (an unordered array scanned for each head, set-aside marks
 * cleared one by one) instead of the treap with park epochs; decisions must be
 * identical. 0 otherwise. */
extern int cohort_test_naive_pending;
/* Tests only: passes that set every pending entry aside at once (docs/kueue-rules.md
 * E25), counted so a test can tell that its runs took that path. */
extern unsigned long cohort_test_drains, cohort_test_skips;

/* Reads $.policies.quota of a run (keys in experiments/README.md). Returns 0 or
 * -SIM_EPARSE / -SIM_ENOMEM with located errors in diag. */
int cohort_setup_read(struct cohort_setup *s, struct sim_diag *diag);
void cohort_setup_free(struct cohort_setup *s);

#endif
