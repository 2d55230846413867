#!/usr/bin/env bash
# experiments/real/make.sh: builds philly200.csv, the 200-job trace of the real-mode
# experiment, from the bundled Philly trace (traces/data/philly.csv).
#
# Jobs of 1 to 4 GPUs that ran 60 s to 1 h, the 5001st to 5200th such job in submit
# order (Philly's 2017-10-02/03). Philly ran on 2,490 GPUs; on 8 GPUs its arrivals
# would leave them idle 90% of the time, so submit times are compressed 10x (from
# the first job's), which brings the offered load to about 1.05 of 8 GPUs at
# speed 1. Queues: the slice's largest virtual cluster (11cb48, 154 jobs) is team-a,
# every other one team-b (46 jobs). Philly has no checkpoint data: every job
# checkpoints every 300 s of work (an assumption of this experiment).
set -euo pipefail
cd "$(dirname "$0")"
src=../../traces/data/philly.csv
out=philly200.csv
{
	echo "# 200 Philly jobs for experiments/real/ (made by make.sh from $src; see its header"
	echo "# for the source and licence, CC BY 4.0). Submit times compressed 10x; queues team-a"
	echo "# (VC 11cb48) and team-b (the other VCs); checkpoint_s 300 is an assumption."
	echo "id,submit_s,duration_s,queue,request,checkpoint_s"
	grep -v '^#' "$src" | awk -F, 'NR > 1 { split($5, r, "="); g = r[2] + 0;
		if (g <= 4 && $3 >= 60 && $3 <= 3600) print }' | sed -n '5001,5200p' |
		awk -F, 'NR == 1 { t0 = $2 }
		{ printf "%s,%.1f,%s,%s,%s,300\n", $1, ($2 - t0) / 10, $3, ($4 == "11cb48" ? "team-a" : "team-b"), $5 }'
} > "$out.tmp"
mv "$out.tmp" "$out"
echo "wrote experiments/real/$out: $(grep -vc '^#' "$out") lines (header included)"
