/* policies/srtf.h: what tests see of policies/srtf.c (the policy itself is
 * srtf_policy_ops, policies/policy.h). */
#ifndef POLICIES_SRTF_H
#define POLICIES_SRTF_H

/* Tests only: nonzero makes every pass take the exact walk (the oracle) instead of
 * the one that skips the running jobs' sums where they decide nothing. Both must
 * give the same victims and starts in the same order. */
extern int srtf_test_exact;

#endif
