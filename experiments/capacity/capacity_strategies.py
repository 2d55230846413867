#!/usr/bin/env python3
"""Capacity strategies on Philly and the Alibaba openb pods: cost against wait (experiments/capacity/README.md).

Philly's 82,247 jobs (109 days) and openb's 6,203 pods (149 days, experiments/fallback/openb_fixed.csv
without its GPU models), every job checkpointing every hour of work (60 s a write, 120 s a restore; the
traces have no checkpoint column, this script adds one), easy_backfill. Six ways to buy the capacity
(pool sizes per trace in TRACES), prices per node-hour of 8 GPUs:

  fixed         on-demand nodes, always on (24.0)
  small-fixed   fewer on-demand nodes, always on (24.0)
  autoscaled    on-demand, 0 to a maximum, provisioning 5 min on average (exponential), idle 10 min (24.0)
  spot_od       spot nodes (7.2: 30% of on-demand; 0.002 notices a node-hour, 2 min notice, back after
                1 h) first, then autoscaled on-demand for what does not fit
  plan_od       a training plan for the whole trace (15.6: 65% of on-demand), then autoscaled on-demand
  flex          flex-start: each job's own nodes, served after an exponential wait of mean 30 min, one
                request in ten failing (Kueue's retries), taken back after 7 days; 1-GPU nodes at 12.0 / 8

A job's request is `*:gpu=N` (any flavor, in config order), so spot or plan capacity is used first; under
flex it is `fx:gpu=N`. Prints one row a strategy and trace (mean of the seeds) and draws plots/cost_wait.png
(gnuplot): p95 and mean wait, what is paid (a pool that is always there, fixed, spot or plan, for all its
node-hours over the run, busy or idle; the autoscaled flavor for its node-hours up; flex nodes for their
node-hours provisioned) and that per useful GPU-hour, spot stops, flex cut-offs and failed requests; writes
results.csv here and the results files under results/capacity/.

Usage: python3 experiments/capacity/capacity_strategies.py [--gpusched build/gpusched] [--seeds 2] [-j 2]
       [--traces philly,openb]
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
OD, SPOT, PLAN, FLEX = 24.0, 7.2, 15.6, 12.0

# The two traces: where they are in the repository, the last submit (s from the start, for the plan's
# window), and how big each strategy's pools are (nodes of 8 GPUs). openb's derived trace comes from
# experiments/fallback/openb_fixed.csv (the Alibaba openb pods, one GPU model each): the model is dropped
# (every pod asks for `*:gpu=G`, G possibly a fraction of one GPU) and the pools are sized for its load
# (38 GPUs busy at the median, 65 at the peak, if every pod ran at once).
TRACES = {
    "philly": {"src": "traces/data/philly.csv", "span_s": 9408690,
               "fixed": 88, "small": 64, "as_max": 132, "spot": 88, "spot_od": 88, "plan": 64, "plan_od": 64,
               "flex_max": 132 * 8, "flex_node_gpus": 1},
    "openb": {"src": "experiments/fallback/openb_fixed.csv", "span_s": 12901761,
              "fixed": 8, "small": 5, "as_max": 12, "spot": 8, "spot_od": 8, "plan": 4, "plan_od": 8,
              "flex_max": 512, "flex_node_gpus": 1},
}
# Flex-start (docs/capacity.md, "Flex-start"): provisioning waits exponential with mean 30 min, one request in
# ten fails (Kueue's default retries: 60 s doubling, 3 retries), the 7-day maximum run; 50% of on-demand
# (GCP quotes flex-start GPU VMs at up to 53% off). A flex request takes whole nodes, and a VM is chosen for
# the job's size (1, 2, 4 or 8 GPUs on GCP), so the flex flavor has 1-GPU nodes at an eighth of the 8-GPU
# price: a job pays for its GPUs, not for a whole 8-GPU node (Philly has many 1-GPU jobs, openb's pods are
# mostly fractions of one GPU: with 8-GPU nodes each would hold a whole node).
FLEX_LAW = {"provisioning": {"distribution": "exponential", "mean_s": 1800}, "failure_probability": 0.1}


def derived_trace(src, dst, flex_flavor=None):
    """src with a checkpoint every hour; the request `*:gpu=G` (or `FLEX:gpu=G`), G the source's count; no
    deadline (openb's)."""
    with open(src) as fi:
        rows = list(csv.DictReader(line for line in fi if not line.startswith("#")))
    with open(dst, "w") as fo:
        fo.write("id,submit_s,duration_s,queue,request,checkpoint_s\n")
        for r in rows:
            g = r["request"].split("gpu=")[1]
            fo.write("%s,%s,%s,%s,%s:gpu=%s,3600\n" % (r["id"], r["submit_s"], r["duration_s"], r["queue"],
                                                         flex_flavor or "*", g))


def autoscaled(name, max_nodes, nodes=0):
    return {"name": name, "nodes": nodes, "node": {"gpu": 8}, "price_per_node_hour": OD,
            "autoscale": {"min_nodes": 0, "max_nodes": max_nodes, "idle_timeout_s": 600,
                          "provisioning": {"distribution": "exponential", "mean_s": 300}}}


def strategies(t):
    """The flavors of each strategy on trace t (TRACES entry)."""
    fg = t["flex_node_gpus"]
    return {
        "fixed": [{"name": "od", "nodes": t["fixed"], "node": {"gpu": 8}, "price_per_node_hour": OD}],
        "small-fixed": [{"name": "od", "nodes": t["small"], "node": {"gpu": 8}, "price_per_node_hour": OD}],
        "autoscaled": [autoscaled("od", t["as_max"])],
        "spot_od": [{"name": "spot", "nodes": t["spot"], "node": {"gpu": 8}, "price_per_node_hour": SPOT,
                     "spot": {"rate_per_node_h": 0.002, "notice_s": 120, "outage_s": 3600}},
                    autoscaled("od", t["spot_od"])],
        "plan_od": [{"name": "plan", "nodes": t["plan"], "node": {"gpu": 8}, "price_per_node_hour": PLAN,
                     "reservations": [{"start_s": 0, "end_s": t["span_s"] + 86400 * 30}],
                     "training_plan": True},
                    autoscaled("od", t["plan_od"])],
        "flex": [{"name": "fx", "nodes": t["flex_max"], "node": {"gpu": fg}, "price_per_node_hour": FLEX * fg / 8,
                  "flex": FLEX_LAW}],
    }


def run_strategy(a, res, tname, name, flavors, trace):
    h5 = os.path.join(res, tname + "-" + name + ".h5")
    cfg = {"name": "capacity-%s-%s" % (tname, name), "trace": {"path": trace, "format": "native"},
           "cluster": {"flavors": flavors},
           "jobs": {"checkpoint": {"overhead_s": 60, "restore_s": 120}},
           "policies": {"order": "easy_backfill"},
           "seeds": list(range(1, a.seeds + 1)), "output": h5}
    path = os.path.join(res, tname + "-" + name + ".json")
    with open(path, "w") as f:
        json.dump(cfg, f, indent=1)
    subprocess.run([a.gpusched, "run", path, "-o", h5, "-j", str(a.j), "-q"], check=True)
    p = subprocess.run([a.gpusched, "export", h5, "--table", "summary"], check=True, capture_output=True,
                       text=True)
    runs = list(csv.DictReader(io.StringIO(p.stdout)))
    m = lambda k, s=1.0: statistics.fmean(float(r[k]) * s for r in runs)
    # What is paid: a pool that is always there (fixed on-demand, spot, a training plan) for all its
    # node-hours over the run (makespan), busy or idle; the autoscaled flavor (one a strategy, at the
    # on-demand price) for its node-hours up (autoscale_node_h); flex-start nodes for their node-hours
    # provisioned (cost_flex).
    always = sum(f["nodes"] * f["price_per_node_hour"] for f in flavors if "autoscale" not in f and "flex" not in f)
    paid = [always * float(r["makespan_s"]) / 3600 + OD * float(r["autoscale_node_h"]) + float(r["cost_flex"])
            for r in runs]
    useful = [float(r["useful_gpu_h"]) for r in runs]
    return {"trace": tname, "strategy": name, "p95_wait_h": m("p95_wait_s", 1 / 3600),
            "mean_wait_h": m("mean_wait_s", 1 / 3600), "paid": statistics.fmean(paid),
            "paid_per_useful_gpu_h": statistics.fmean(p / u for p, u in zip(paid, useful)),
            "stops_spot": m("stops_spot"), "flex_cutoffs": m("flex_cutoffs"),
            "flex_failed": m("flex_requests_failed"), "unfinished": m("unfinished") + m("failed"),
            "seeds": len(runs)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpusched", default=os.path.join(ROOT, "build/gpusched"))
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--traces", default="philly,openb", help="comma-separated: philly, openb")
    a = ap.parse_args()
    res = os.path.join(ROOT, "results/capacity")
    os.makedirs(res, exist_ok=True)
    rows = []
    print("trace   strategy     p95 wait[h]  mean wait[h]   paid[k]  paid/useful GPU-h  spot stops  flex cut  "
          "flex failed  not done  seeds")
    for tname in a.traces.split(","):
        t = TRACES[tname]
        trace = os.path.join(res, tname + "_ckpt.csv")
        flex_trace = os.path.join(res, tname + "_ckpt_flex.csv")
        derived_trace(os.path.join(ROOT, t["src"]), trace)
        derived_trace(os.path.join(ROOT, t["src"]), flex_trace, "fx")
        for name, flavors in strategies(t).items():
            row = run_strategy(a, res, tname, name, flavors, flex_trace if name == "flex" else trace)
            rows.append(row)
            print("%-7s %-12s %11.2f %13.2f %9.1f %18.3f %11.0f %9.0f %12.0f %9.0f %6d" % (
                tname, name, row["p95_wait_h"], row["mean_wait_h"], row["paid"] / 1000,
                row["paid_per_useful_gpu_h"], row["stops_spot"], row["flex_cutoffs"], row["flex_failed"],
                row["unfinished"], row["seeds"]))
    with open(os.path.join(HERE, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    plot(rows, os.path.join(HERE, "plots"))


GNUPLOT = """set terminal pngcairo size 1100,650 noenhanced font "sans,11"
set output '%(png)s'
set title "What each capacity strategy costs and how long jobs wait (mean of the seeds)"
set xlabel "95th percentile of wait (hours, log scale; below 0.001 h drawn at 0.001)"
set ylabel "paid per useful GPU-hour (currency)"
set logscale x
set grid back lc rgb "#dddddd"
set border 3
set tics nomirror
set xrange [0.0005:1000]
set yrange [0:%(ymax)g]
set key top right box opaque
plot '%(dat)s' index 0 using 2:3 with points pt 7 ps 1.6 lc rgb "#0072B2" title "Philly", \
     '%(dat)s' index 0 using 2:4:1 with labels left offset char 1, 0 tc rgb "#0072B2" notitle, \
     '%(dat)s' index 1 using 2:3 with points pt 5 ps 1.5 lc rgb "#D55E00" title "Alibaba openb", \
     '%(dat)s' index 1 using 2:4:1 with labels left offset char 1, 0 tc rgb "#D55E00" notitle
"""


def label_heights(points, line):
    """Label y (data units) for (x, y) points: each at its point, the lowest first; one that would overlap a
    label already placed near the same x (within a factor 2) moves up a text line (`line` in y units)."""
    placed, out = [], [0.0] * len(points)
    for i in sorted(range(len(points)), key=lambda k: points[k][1]):
        x, ly = points[i]
        while any(abs(ly - py) < line and max(x, px) / min(x, px) < 2 for px, py in placed):
            ly += line
        placed.append((x, ly))
        out[i] = ly
    return out


def plot(rows, outdir):
    """plots/cost_wait.png (gnuplot, when installed): one labelled point a strategy, one colour a trace."""
    if subprocess.run(["sh", "-c", "command -v gnuplot"], capture_output=True).returncode != 0:
        print("note: no gnuplot: no plot")
        return
    os.makedirs(outdir, exist_ok=True)
    dat, png = os.path.join(outdir, "cost_wait.dat"), os.path.join(outdir, "cost_wait.png")
    ymax = 1.15 * max(r["paid_per_useful_gpu_h"] for r in rows)
    pts = [(max(r["p95_wait_h"], 0.001), r["paid_per_useful_gpu_h"]) for r in rows]
    heights = label_heights(pts, ymax / 28)
    with open(dat, "w") as f:
        f.write("# strategy, p95 wait (h, at least 0.001), paid per useful GPU-hour, label height; one block a "
                "trace\n")
        for tname in ("philly", "openb"):
            f.write("# %s\n" % tname)
            for r, (x, y), ly in zip(rows, pts, heights):
                if r["trace"] == tname:
                    f.write('"%s" %.6g %.6g %.6g\n' % (r["strategy"], x, y, ly))
            f.write("\n\n")
    subprocess.run(["gnuplot"], input=GNUPLOT % {"png": png, "dat": dat, "ymax": ymax}, text=True, check=True)
    print("wrote", png)


if __name__ == "__main__":
    main()
