/* policies/las.h: what tests see of policies/las.c (the policy itself is
 * las_policy_ops, policies/policy.h). */
#ifndef POLICIES_LAS_H
#define POLICIES_LAS_H

/* Tests only: nonzero turns off the three shortcuts of the crossing bookkeeping (a
 * group whose heap top is not due skipped unlooked; an event before every group's
 * top is due walking no group; a group whose bound shows its wake-up after the best
 * one found skipped unevaluated), so that every group is looked at as the plain
 * loops do, and sorts every list with qsort (not insertion sort when short).
 * Results must be the same either way. */
extern int las_test_plain;

#endif
