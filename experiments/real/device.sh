#!/usr/bin/env bash
# experiments/real/device.sh: the real-mode check on one NVIDIA H200, prepared to run
# once on the device machine (about 5 minutes): the 200-job experiment under fifo and
# classical preemption on 8 virtual GPUs (green contexts: 4 of 16 SMs for flavor
# fast, 4 of 8 SMs for flavor slow), at time scale 200, with the simulated runs beside
# them. Here: experiments/real/device_prep.sh build-dev; there, with .devbin carried:
#   bash experiments/real/device.sh
# Both HDF5 files (and the simulated ones, and the log) come back through $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
export LD_LIBRARY_PATH="$PWD/.devbin/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
out=${OUT:-results/real}
mkdir -p "$out"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>&1 | tee "$out/device.log"
# The executor alone first: 8 partitions of 16 SMs, then one whole GPU (tests/device/gx_smoke.c).
timeout 300 ./.devbin/gx_smoke 16 8 2>&1 | tee -a "$out/device.log"
timeout 300 ./.devbin/gx_smoke 0 1 2>&1 | tee -a "$out/device.log"
GPUSCHED=./.devbin/gpusched experiments/real/run.sh cuda 200 --sms fast=16,slow=8 2>&1 | tee -a "$out/device.log"
for p in fifo classical; do
	cp "results/real/$p.h5" "$out/$p-sim.h5" 2>/dev/null
	cp "results/real/$p-cuda.h5" "$out/" 2>/dev/null
done
ls -l "$out"
