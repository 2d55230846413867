/* policies/srtf.h: what tests see of policies/srtf.c (the policy itself is
 * srtf_policy_ops, policies/policy.h). */
#ifndef POLICIES_SRTF_H
#define POLICIES_SRTF_H

/* Tests only: 1 makes every pass take the exact walk (the oracle) instead of the one
 * that skips the running jobs' sums where they decide nothing; 2 runs both at every
 * pass, counts in srtf_test_mismatches the passes whose victims or starts (or their
 * order) differ, and keeps the exact walk's. 0: the fast one alone. */
extern int srtf_test_exact;
extern unsigned long srtf_test_mismatches;

#endif
