#!/usr/bin/env python3
"""The cheapest mix of spot and autoscaled on-demand capacity on Philly that meets a wait target
(experiments/capacity/README.md, "Planning a mix"), with `gpusched plan`'s capacity mixes.

The setup of capacity_strategies.py's spot_od strategy (Philly with hourly checkpoints, easy_backfill;
spot nodes at 7.2 a node-hour of 8 GPUs, interrupted at 0.002 a node-hour with a 2-minute notice and
back after 1 h; on-demand autoscaled at 24.0, provisioning 5 min on average, idle 10 min). `plan` grids
the spot nodes (--spot LO:HI:STEP, default 16:160:24; at least the 16 nodes Philly's largest job needs)
and, for each, bisects the on-demand maximum (1 to 132 nodes) for the smallest meeting
p95_wait_s <= --target (default 3600 s), then keeps the mix of least cost_capacity (every node-hour of
capacity up, busy or idle, at its price). Then, for the autoscaled strategy alone (on-demand only), the
smallest autoscaler maximum (16 to 132 nodes) meeting the same target. Writes plan_mix.csv and
plan_autoscale.csv here, plots/plan_mix.png and plots/plan_autoscale.png; the configs and derived trace
under results/capacity/.

Usage: python3 experiments/capacity/plan_mix.py [--gpusched build/gpusched] [--seeds 1] [--target 3600]
Python 3 standard library only.
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from capacity_strategies import ROOT, TRACES, derived_trace, strategies  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpusched", default=os.path.join(ROOT, "build/gpusched"))
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--target", type=float, default=3600)
    ap.add_argument("--spot", default="16:160:24")
    a = ap.parse_args()
    lo, hi, step = a.spot.split(":")
    res = os.path.join(ROOT, "results/capacity")
    os.makedirs(res, exist_ok=True)
    os.makedirs(os.path.join(HERE, "plots"), exist_ok=True)
    trace = os.path.join(res, "plan_mix_philly.csv")
    derived_trace(os.path.join(ROOT, TRACES["philly"]["src"]), trace)
    flavors = strategies(TRACES["philly"])["spot_od"]
    flavors[1]["autoscale"]["max_nodes"] = 132
    cfg = {"name": "capacity-plan-mix", "trace": {"path": trace, "format": "native"},
           "cluster": {"flavors": flavors},
           "jobs": {"checkpoint": {"overhead_s": 60, "restore_s": 120}},
           "policies": {"order": "easy_backfill"},
           "seeds": list(range(1, a.seeds + 1)), "output": os.path.join(res, "plan_mix.h5")}
    path = os.path.join(res, "plan_mix.json")
    with open(path, "w") as f:
        json.dump(cfg, f, indent=1)
    cmd = [a.gpusched, "plan", path, "--target", "p95_wait_s<=%g" % a.target, "--minimize", "cost_capacity",
           "--vary", "cluster.flavors[0].nodes", "--range", "%s:%s" % (lo, hi), "--step", step,
           "--vary", "cluster.flavors[1].autoscale.max_nodes", "--range", "1:132",
           "-o", os.path.join(HERE, "plan_mix.csv"), "--plot", os.path.join(HERE, "plots/plan_mix.png")]
    print(" ".join(cmd), flush=True)
    rc = subprocess.run(cmd).returncode
    if rc:
        sys.exit(rc)
    # The smallest autoscaler maximum alone (the autoscaled strategy: on-demand only), by bisection.
    cfg["cluster"]["flavors"] = strategies(TRACES["philly"])["autoscaled"]
    cfg["name"] = "capacity-plan-autoscale"
    path = os.path.join(res, "plan_autoscale.json")
    with open(path, "w") as f:
        json.dump(cfg, f, indent=1)
    cmd = [a.gpusched, "plan", path, "--target", "p95_wait_s<=%g" % a.target,
           "--vary", "cluster.flavors[0].autoscale.max_nodes", "--range", "16:132",
           "-o", os.path.join(HERE, "plan_autoscale.csv"), "--plot", os.path.join(HERE, "plots/plan_autoscale.png")]
    print(" ".join(cmd), flush=True)
    sys.exit(subprocess.run(cmd).returncode)


if __name__ == "__main__":
    main()
