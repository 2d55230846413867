#!/usr/bin/env bash
# summary.sh GPUSCHED DIR: the one-screen summary of the default experiment, from the three
# results files run.sh leaves in DIR (sharing.h5, preemption.h5, fallback.h5). It reads them
# only through `gpusched export` (tidy TSV, columns found by their header name, so a new
# column in a later schema does not shift anything) and formats them with awk.
set -euo pipefail
G=$1 D=$2

# table FILE.h5 QUESTION: one row a run of a quota file; the worst team is the queue with
# quota (nominal > 0) whose jobs wait longest on average.
quota_rows() {
	"$G" export "$1" --table queues --format tsv >"$D/.q.tsv"
	"$G" export "$1" --table summary --format tsv |
		awk -F'\t' -v q="$2" -v qf="$D/.q.tsv" '
		function h(s) { return sprintf("%.1f", s / 3600) }
		BEGIN {
			getline line < qf; n = split(line, hd, "\t"); for (i = 1; i <= n; i++) qc[hd[i]] = i
			while ((getline line < qf) > 0) {
				split(line, f, "\t"); r = f[qc["run"]]
				if (f[qc["nominal_gpus"]] + 0 > 0 && f[qc["mean_wait_s"]] + 0 > worst[r]) {
					worst[r] = f[qc["mean_wait_s"]] + 0; wq[r] = f[qc["queue"]]
				}
				borrowed[r] += f[qc["borrowed_gpu_h"]]
			}
		}
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{
			r = $c["run"]
			printf "%-10s %-16s %9s %9s %16s %5.1f %7d %8.0f %9.0f\n", q, $c["variant"],
				h($c["mean_wait_s"]), h($c["p95_wait_s"]), h(worst[r]) " (" wq[r] ")",
				100 * $c["utilization"], $c["preemptions"], $c["lost_gpu_s"] / 3600, borrowed[r]
		}'
	rm -f "$D/.q.tsv"
}

echo "Default experiment (experiments/default/README.md). Waits in hours."
echo
echo "Quotas per team: Microsoft Philly, 82,247 jobs over 109 days, on 88 nodes x 8 GPUs; 11 team queues"
echo "(its virtual clusters) in one cohort, quotas adding up to the 704 GPUs; 3 busy teams always lend and borrow."
printf "%-10s %-16s %9s %9s %16s %5s %7s %8s %9s\n" question variant "wait mean" "wait p95" "worst team mean" \
	"util%" preempt "lost" "borrowed"
printf "%-10s %-16s %9s %9s %16s %5s %7s %8s %9s\n" "" "" "" "" "" "" "" "GPU-h" "GPU-h"
quota_rows "$D/sharing.h5" "sharing"
quota_rows "$D/preemption.h5" "preemption"
echo "  sharing: the 8 other teams RESERVE, LEND or LEND_AND_BORROW their quota (classical preemption)."
echo "  preemption: every team LEND_AND_BORROW; none, Kueue classical (reclaim), or fair sharing."
echo
echo "Fallback under stock-outs: Alibaba openb, 6,203 GPU pods (4,453 with a list of 2 to 5 GPU models),"
echo "7 GPU models each out of stock ~10% of the time; mean over 5 seeds (stock-out draws)."
printf "%-10s %-16s %9s %9s %9s %9s\n" question variant "wait mean" "wait p95" "fell back" "cost/job"
"$G" export "$D/fallback.h5" --table summary --format tsv |
	awk -F'\t' '
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{
		v = $c["variant"]; if (!(v in n)) order[++nv] = v
		n[v]++; w[v] += $c["mean_wait_s"]; p[v] += $c["p95_wait_s"]
		fb[v] += $c["fallback_rate"]; cost[v] += $c["mean_cost_per_job"]
	}
	END {
		for (i = 1; i <= nv; i++) {
			v = order[i]
			printf "%-10s %-16s %9.2f %9.2f %8.1f%% %9.2f\n", "fallback", v, w[v] / n[v] / 3600,
				p[v] / n[v] / 3600, 100 * fb[v] / n[v], cost[v] / n[v]
		}
	}'
echo "  strict: every job waits for its first choice (one fixed type); first_fit: the first listed type with room."
