#!/usr/bin/env bash
# run.sh [GPUSCHED] [DIR]: the default experiment (README.md there). Runs its three configs
# (2 runs at a time), prints the one-screen summary and draws the plots. GPUSCHED defaults to
# build/gpusched, DIR (results and plots) to results/default; paths from the repository root.
set -euo pipefail
cd "$(dirname "$0")/../.."
G=${1:-build/gpusched}
D=${2:-results/default}
mkdir -p "$D"
start=$(date +%s)
"$G" run experiments/quota/lending.json -q -j 2 -o "$D/sharing.h5"
"$G" run experiments/quota/preemption.json -q -j 2 -o "$D/preemption.h5"
"$G" run experiments/default/fallback.json -q -j 2 -o "$D/fallback.h5"
end=$(date +%s)
experiments/default/summary.sh "$G" "$D"
echo
echo "($(($end - $start)) s for the 16 runs)"
mkdir -p "$D/plots"
for x in sharing preemption fallback; do
	"$G" plot "$D/$x.h5" -o "$D/plots/$x" -q
done
# The plots that tell the story, copied to the top of plots/ under names that say what they show
# (every plot of each file stays in its folder).
P=$D/plots
cp "$P/sharing/sweep_mean_wait_policies.quota.queues_csv.template.share_strategy.png" "$P/1-sharing-mean-wait.png"
cp "$P/sharing/queues_RESERVE-s1.png" "$P/2-sharing-RESERVE-gpus-by-team.png"
cp "$P/sharing/queues_LEND_AND_BORROW-s1.png" "$P/3-sharing-LEND_AND_BORROW-gpus-by-team.png"
cp "$P/preemption/wait_cdf.png" "$P/4-preemption-wait-cdf.png"
cp "$P/preemption/preemptions_fair_sharing-s1.png" "$P/5-preemption-fair-sharing-per-day.png"
cp "$P/fallback/wait_cdf.png" "$P/6-fallback-wait-cdf.png"
echo "results: $D/{sharing,preemption,fallback}.h5; plots: $P/ (the six that tell the story; every plot in $P/{sharing,preemption,fallback}/)"
