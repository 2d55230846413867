#!/usr/bin/env python3
"""Capacity strategies on Philly: cost against wait (experiments/capacity/README.md).

Philly's 82,247 jobs (109 days), every job checkpointing every hour of work (60 s a write, 120 s a
restore; the trace has no checkpoint column, this script adds one), easy_backfill. Five ways to buy the
capacity, prices per node-hour of 8 GPUs:

  fixed         88 on-demand nodes, always on (24.0)
  autoscaled    on-demand, 0 to 132 nodes, provisioning 5 min on average (exponential), idle 10 min (24.0)
  spot_od       88 spot nodes (7.2: 30% of on-demand; 0.002 notices a node-hour, 2 min notice, back after
                1 h) first, then autoscaled on-demand (0 to 88 nodes) for what does not fit
  plan_od       a training plan of 64 nodes for the whole trace (15.6: 65% of on-demand), then autoscaled
                on-demand (0 to 64 nodes)
  small-fixed   64 on-demand nodes, always on (24.0)

A job's request is `*:gpu=N` (any flavor, in config order), so spot or plan capacity is used first.
Prints one row a strategy (mean of the seeds) and draws plots/cost_wait.png (gnuplot): p95 and mean wait, what is paid (a pool that is always
there, fixed, spot or plan, for all its node-hours over the run, busy or idle; the autoscaled flavor for
its node-hours up) and that per useful GPU-hour, spot stops; writes results.csv here and the results
files under results/capacity/.

Usage: python3 experiments/capacity/capacity_strategies.py [--gpusched build/gpusched] [--seeds 2] [-j 2]
Python 3 standard library only.
"""

import argparse
import csv
import io
import json
import os
import statistics
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OD, SPOT, PLAN = 24.0, 7.2, 15.6
SPAN_S = 9408690  # the trace's last submit (s from its start)


def derived_trace(src, dst):
    with open(src) as fi, open(dst, "w") as fo:
        for line in fi:
            if line.startswith("#"):
                continue
            line = line.rstrip("\n")
            fo.write(line + (",checkpoint_s\n" if line.startswith("id,") else ",3600\n"))


def autoscaled(name, max_nodes, nodes=0):
    return {"name": name, "nodes": nodes, "node": {"gpu": 8}, "price_per_node_hour": OD,
            "autoscale": {"min_nodes": 0, "max_nodes": max_nodes, "idle_timeout_s": 600,
                          "provisioning": {"distribution": "exponential", "mean_s": 300}}}


STRATEGIES = {
    "fixed": [{"name": "od", "nodes": 88, "node": {"gpu": 8}, "price_per_node_hour": OD}],
    "small-fixed": [{"name": "od", "nodes": 64, "node": {"gpu": 8}, "price_per_node_hour": OD}],
    "autoscaled": [autoscaled("od", 132)],
    "spot_od": [{"name": "spot", "nodes": 88, "node": {"gpu": 8}, "price_per_node_hour": SPOT,
                 "spot": {"rate_per_node_h": 0.002, "notice_s": 120, "outage_s": 3600}},
                autoscaled("od", 88)],
    "plan_od": [{"name": "plan", "nodes": 64, "node": {"gpu": 8}, "price_per_node_hour": PLAN,
                 "reservations": [{"start_s": 0, "end_s": SPAN_S + 86400 * 30}], "training_plan": True},
                autoscaled("od", 64)],
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpusched", default=os.path.join(ROOT, "build/gpusched"))
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("-j", type=int, default=2)
    a = ap.parse_args()
    res = os.path.join(ROOT, "results/capacity")
    os.makedirs(res, exist_ok=True)
    trace = os.path.join(res, "philly_ckpt.csv")
    derived_trace(os.path.join(ROOT, "traces/data/philly.csv"), trace)
    rows = []
    print("strategy      p95 wait[h]  mean wait[h]   paid[k]  paid/useful GPU-h  spot stops  seeds")
    for name, flavors in STRATEGIES.items():
        h5 = os.path.join(res, name + ".h5")
        cfg = {"name": "capacity-" + name, "trace": {"path": trace, "format": "native"},
               "cluster": {"flavors": flavors},
               "jobs": {"checkpoint": {"overhead_s": 60, "restore_s": 120}},
               "policies": {"order": "easy_backfill"},
               "seeds": list(range(1, a.seeds + 1)), "output": h5}
        path = os.path.join(res, name + ".json")
        with open(path, "w") as f:
            json.dump(cfg, f, indent=1)
        subprocess.run([a.gpusched, "run", path, "-o", h5, "-j", str(a.j), "-q"], check=True)
        p = subprocess.run([a.gpusched, "export", h5, "--table", "summary"], check=True, capture_output=True,
                           text=True)
        runs = list(csv.DictReader(io.StringIO(p.stdout)))
        m = lambda k, s=1.0: statistics.fmean(float(r[k]) * s for r in runs)
        # What is paid: a pool that is always there (fixed on-demand, spot, a training plan) for all its
        # node-hours over the run (makespan), busy or idle; the autoscaled flavor (one a strategy, at the
        # on-demand price) for its node-hours up (autoscale_node_h).
        always = sum(f["nodes"] * f["price_per_node_hour"] for f in flavors if "autoscale" not in f)
        paid = [always * float(r["makespan_s"]) / 3600 + OD * float(r["autoscale_node_h"]) for r in runs]
        useful = [float(r["useful_gpu_h"]) for r in runs]
        row = {"strategy": name, "p95_wait_h": m("p95_wait_s", 1 / 3600), "mean_wait_h": m("mean_wait_s", 1 / 3600),
               "paid": statistics.fmean(paid), "paid_per_useful_gpu_h": statistics.fmean(
                   p / u for p, u in zip(paid, useful)), "stops_spot": m("stops_spot"), "seeds": len(runs)}
        rows.append(row)
        print("%-12s %12.2f %13.2f %9.1f %18.3f %11.0f %6d" % (name, row["p95_wait_h"], row["mean_wait_h"],
              row["paid"] / 1000, row["paid_per_useful_gpu_h"], row["stops_spot"], row["seeds"]))
    with open(os.path.join(HERE, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    plot(rows, os.path.join(HERE, "plots"))


GNUPLOT = """set terminal pngcairo size 1000,600 noenhanced font "sans,11"
set output '%(png)s'
set title "What each capacity strategy costs and how long jobs wait (Philly, mean of the seeds)"
set xlabel "95th percentile of wait (hours, log scale)"
set ylabel "paid per useful GPU-hour (currency)"
set logscale x
set grid back lc rgb "#dddddd"
set border 3
set tics nomirror
set offsets graph 0.05, graph 0.15, graph 0.12, 0
set yrange [0:*]
plot '%(dat)s' using 2:3 with points pt 7 ps 1.6 lc rgb "#0072B2" notitle, \
     '%(dat)s' using 2:3:1 with labels left offset char 1, char 0.6 notitle
"""


def plot(rows, outdir):
    """plots/cost_wait.png (gnuplot, when installed): one labelled point a strategy."""
    if subprocess.run(["sh", "-c", "command -v gnuplot"], capture_output=True).returncode != 0:
        print("note: no gnuplot: no plot")
        return
    os.makedirs(outdir, exist_ok=True)
    dat, png = os.path.join(outdir, "cost_wait.dat"), os.path.join(outdir, "cost_wait.png")
    with open(dat, "w") as f:
        f.write("# strategy, p95 wait (h), paid per useful GPU-hour\n")
        for r in rows:
            f.write('"%s" %.6g %.6g\n' % (r["strategy"], r["p95_wait_h"], r["paid_per_useful_gpu_h"]))
    subprocess.run(["gnuplot"], input=GNUPLOT % {"png": png, "dat": dat}, text=True, check=True)
    print("wrote", png)


if __name__ == "__main__":
    main()
