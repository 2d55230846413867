#!/usr/bin/env bash
# experiments/real/run.sh: the real-mode experiment (README.md here). For fifo and
# classical: simulate, run for real on BACKEND at time scale SCALE, then print the
# simulator's error per metric (gpusched compare) and the measured decision latency.
#
#   experiments/real/run.sh [cpu|cuda] [SCALE] [extra gpusched real options...]
#   e.g. experiments/real/run.sh cuda 200 --sms fast=32,slow=16
#
# Results: results/real/<policy>.h5 (simulated) and results/real/<policy>-<backend>.h5.
set -euo pipefail
cd "$(dirname "$0")/../.."
backend=${1:-cpu}
scale=${2:-200}
shift $(( $# > 2 ? 2 : $# ))
bin=${GPUSCHED:-./build/gpusched}
[ -x "$bin" ] || { echo "run.sh: $bin not found: build first (./setup.sh main) or set GPUSCHED" >&2; exit 2; }
mkdir -p results/real
for policy in fifo classical; do
	sim=results/real/$policy.h5
	real=results/real/$policy-$backend.h5
	"$bin" run "experiments/real/$policy.json" -o "$sim" -q
	"$bin" real "experiments/real/$policy.json" --backend "$backend" --time-scale "$scale" -o "$real" "$@"
	echo "== $policy: simulated vs real ($backend, time scale $scale)"
	"$bin" compare "$sim" "$real" | grep -E "^(metric|mean_jct_s|p95_jct_s|mean_wait_s|utilization|makespan_s|preemptions|lost_gpu_s|runtime_error|decision_latency)" || true
	"$bin" report "$real" --json | python3 -c '
import json, sys
r = json.load(sys.stdin)[0]
print("decision latency p50 %.3f ms, p99 %.3f ms; run time error %.2f%%; utilization %.1f%%; failed %d"
      % (1e3 * r["decision_latency_p50_s"], 1e3 * r["decision_latency_p99_s"], 100 * r["runtime_error"],
         100 * r["utilization"], r["failed"]))'
done
