#!/usr/bin/env python3
"""How often to checkpoint (experiments/faults/README.md).

One 16,384-GPU training job (2,048 nodes of 8 GPUs) doing 54 days of work, at Llama 3's
published interruption rate (419 unexpected interruptions in 54 days: one every 3.09 h for the
whole job, so an MTBF of 2,048 x 3.09 h per node, exponential), a failed node replaced at once
(repair 0 s: the cost measured is the checkpoint's, not the repair's), checkpoint write cost
C = 60 s, restore R = 0 s. The checkpoint interval T is a trace column, so each T gets its own
one-row trace and config; every T runs the same seeds, and since every failure draw is keyed by
(seed, node, k) (docs/faults.md, "Random streams"), every T sees the same node failure sequence
(common random numbers: the curve is smooth in T).

Writes results.csv (T, ETTR mean and 95% half-width over the seeds, the first-order model
1 - C/T - (T/2 + R)/M, failures) and prints the argmax against Young's sqrt(2 C M). Then the same
sweep with a memory tier (C = 10 s, replicated to one peer so every single node failure leaves it:
results_memory.csv), the plot of both curves with Young's optimum of each marked
(plots/checkpoint_interval.png, gnuplot), and "What a memory tier buys" (results_tiers.csv): the job with
persistent-only, memory + persistent, and memory replicated to one peer checkpoints.

Usage: python3 experiments/faults/checkpoint_interval.py [--gpusched build/gpusched] [--seeds 10]
Python 3 standard library only.
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
NODES, NODE_GPUS = 2048, 8
WORK_S = 54 * 86400
JOB_MTBF_S = 54 * 86400 / 419          # one interruption every 3.09 h for the whole job
NODE_MTBF_H = NODES * JOB_MTBF_S / 3600
C_S, R_S = 60.0, 0.0
INTERVALS = (300, 500, 700, 850, 1000, 1100, 1160, 1250, 1400, 1600, 1900, 2300, 3000, 4000)
C_MEM_S = 10.0
INTERVALS_MEM = (100, 150, 200, 300, 400, 472, 550, 650, 800, 1000, 1300, 1700)
# Student t quantiles (two-sided 95%) by degrees of freedom, for the half-widths.
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
       10: 2.228, 11: 2.201, 12: 2.179, 14: 2.145, 19: 2.093, 29: 2.045}


def half_width(xs):
    """95% half-width of the mean of xs (Student t), 0 for one value."""
    n = len(xs)
    if n < 2:
        return 0.0
    t = T95.get(n - 1, 1.96 if n > 30 else T95[max(k for k in T95 if k <= n - 1)])
    return t * statistics.stdev(xs) / math.sqrt(n)


def run_one(gpusched, tmp, t_s, seeds, checkpoint=None, node_mtbf_h=NODE_MTBF_H, job_faults=None,
            name=None):
    """One config: the job with interval t_s (None: the interval policy of `checkpoint`)."""
    name = name or "t%d" % t_s
    trace = os.path.join(tmp, name + ".csv")
    with open(trace, "w") as f:
        if t_s is None:
            f.write("id,submit_s,duration_s,request\n")
            f.write("llama,0,%d,h100:gpu=%d\n" % (WORK_S, NODES * NODE_GPUS))
        else:
            f.write("id,submit_s,duration_s,request,checkpoint_s\n")
            f.write("llama,0,%d,h100:gpu=%d,%d\n" % (WORK_S, NODES * NODE_GPUS, t_s))
    out = os.path.join(tmp, name + ".h5")
    jobs = {"checkpoint": checkpoint or {"overhead_s": C_S, "restore_s": R_S}}
    if job_faults:
        jobs["faults"] = job_faults
    cfg = {
        "name": "ckpt-" + name,
        "trace": {"path": trace},
        "cluster": {"flavors": [{"name": "h100", "nodes": NODES, "node": {"gpu": NODE_GPUS}}],
                    "failures": {"mtbf_h": node_mtbf_h, "repair": {"mean_h": 0}}},
        "jobs": jobs,
        "seeds": list(range(1, seeds + 1)),
        "output": out,
    }
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as f:
        json.dump(cfg, f)
    subprocess.run([gpusched, "run", path, "-o", out], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    rep = subprocess.run([gpusched, "report", out, "--json"], check=True, capture_output=True, text=True)
    rows = json.loads(rep.stdout)
    return [r["ettr"] for r in rows], [r["nodes_failed"] for r in rows]


def sweep(gpusched, tmp, seeds, intervals, c_s, checkpoint, out_csv, label):
    """ETTR against T for write cost c_s; writes out_csv, returns [(T, mean, hw)]."""
    young = math.sqrt(2 * c_s * JOB_MTBF_S)
    lines = ["interval_s,ettr_mean,ettr_ci95,ettr_model,failures_mean"]
    best, curve = None, []
    for t_s in intervals:
        ettr, fails = run_one(gpusched, tmp, t_s, seeds, checkpoint, name="%s%d" % (label, t_s))
        m, hw = statistics.mean(ettr), half_width(ettr)
        model = 1 - c_s / t_s - (t_s / 2 + R_S) / JOB_MTBF_S
        lines.append("%d,%.5f,%.5f,%.5f,%.1f" % (t_s, m, hw, model, statistics.mean(fails)))
        print("C = %2.0f s, T = %5d s: ETTR %.4f +- %.4f (model %.4f), %.0f failures" %
              (c_s, t_s, m, hw, model, statistics.mean(fails)))
        curve.append((t_s, m, hw))
        if best is None or m > best[1]:
            best = (t_s, m)
    with open(out_csv, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("C = %.0f s: job MTBF %.0f s (node MTBF %.0f h); Young sqrt(2 C M) = %.0f s; simulated argmax "
          "T = %d s (ETTR %.4f)" % (c_s, JOB_MTBF_S, NODE_MTBF_H, young, best[0], best[1]))
    return curve


GNUPLOT = r"""
set terminal pngcairo size 960,600 font "sans,11"
set output '%(png)s'
set title "How often to checkpoint: one 16,384-GPU job, 54 days of work, an interruption every 3.09 h\n(mean ETTR of %(seeds)d seeds with 95%% intervals; dashed: Young's sqrt(2CM))"
set xlabel "checkpoint interval T (s of work)"
set ylabel "ETTR (useful GPU time / GPU time held)"
set logscale x
set xrange [80:5000]
set yrange [0.8:1.0]
set grid back lc rgb "#dddddd"
set key top right box opaque
set arrow from %(y60).1f, graph 0 to %(y60).1f, graph 1 nohead dt 2 lw 1.5 lc rgb "#D55E00"
set arrow from %(y10).1f, graph 0 to %(y10).1f, graph 1 nohead dt 2 lw 1.5 lc rgb "#0072B2"
set label "Young %(y60).0f s" at %(y60).1f, graph 0.06 left offset char 0.5, 0 tc rgb "#D55E00"
set label "Young %(y10).0f s" at %(y10).1f, graph 0.06 left offset char 0.5, 0 tc rgb "#0072B2"
plot '%(d60)s' using 1:2:3 with yerrorlines pt 7 lw 2 lc rgb "#D55E00" title "C = 60 s (persistent)", \
     '%(d10)s' using 1:2:3 with yerrorlines pt 5 lw 2 lc rgb "#0072B2" title "C = 10 s (memory tier, one replica)"
"""


def plot(curves, seeds, outdir):
    """plots/checkpoint_interval.png (gnuplot, when installed)."""
    if subprocess.run(["sh", "-c", "command -v gnuplot"], capture_output=True).returncode != 0:
        print("note: no gnuplot: no plot")
        return
    os.makedirs(outdir, exist_ok=True)
    dats = {}
    for key, curve in curves.items():
        dats[key] = os.path.join(outdir, "checkpoint_interval_c%d.dat" % key)
        with open(dats[key], "w") as f:
            f.write("# T (s), ETTR mean, 95%% half-width; C = %d s\n" % key)
            for t_s, m, hw in curve:
                f.write("%d %.6f %.6f\n" % (t_s, m, hw))
    png = os.path.join(outdir, "checkpoint_interval.png")
    subprocess.run(["gnuplot"], input=GNUPLOT % {
        "png": png, "seeds": seeds, "d60": dats[60], "d10": dats[10],
        "y60": math.sqrt(2 * C_S * JOB_MTBF_S), "y10": math.sqrt(2 * C_MEM_S * JOB_MTBF_S)},
        text=True, check=True)
    print("wrote", png)


# "What a memory tier buys": Llama 3 attributes about 78% of its interruptions to hardware; here they
# are node failures, the rest job crashes (software), for the same one interruption every 3.09 h.
HW_SHARE = 0.78
R_PER_S, R_MEM_S, EVERY_N = 120.0, 10.0, 4
TIERS = (
    ("persistent only", {"overhead_s": C_S, "restore_s": R_PER_S, "interval": "young"}),
    ("memory + persistent", {"overhead_s": C_S, "restore_s": R_PER_S, "interval": "young",
                             "memory": {"write_s": C_MEM_S, "restore_s": R_MEM_S, "replicas": 0},
                             "persistent_every": EVERY_N}),
    ("memory + persistent, n = 2", {"overhead_s": C_S, "restore_s": R_PER_S, "interval": "young",
                                    "memory": {"write_s": C_MEM_S, "restore_s": R_MEM_S, "replicas": 0},
                                    "persistent_every": 2}),
    ("memory, 1 replica", {"overhead_s": C_S, "restore_s": R_PER_S, "interval": "young",
                           "memory": {"write_s": C_MEM_S, "restore_s": R_MEM_S, "replicas": 1},
                           "persistent_every": EVERY_N}),
)


def tiers(gpusched, tmp, seeds, out_csv):
    """The three checkpoint setups, each with Young's interval from its mean write cost and the
    MTBF the engine derives from the node law and the crash rate; writes out_csv."""
    node_mtbf_h = NODE_MTBF_H / HW_SHARE
    crash_per_h = (1 - HW_SHARE) * 3600 / JOB_MTBF_S
    lines = ["setup,persistent_every,interval_s,ettr_mean,ettr_ci95,nodes_failed"]
    for i, (label, ck) in enumerate(TIERS):
        n = ck.get("persistent_every", 1)
        c = C_S if "memory" not in ck else ((n - 1) * C_MEM_S + C_S) / n
        t_s = math.sqrt(2 * c * JOB_MTBF_S)
        ettr, fails = run_one(gpusched, tmp, None, seeds, ck, node_mtbf_h, {"crash_per_h": crash_per_h},
                              name="tier%d" % i)
        m, hw = statistics.mean(ettr), half_width(ettr)
        lines.append('"%s",%d,%.0f,%.5f,%.5f,%.1f' % (label, n, t_s, m, hw, statistics.mean(fails)))
        print("%-28s T = %4.0f s: ETTR %.4f +- %.4f, %.0f node failures" % (label, t_s, m, hw,
                                                                          statistics.mean(fails)))
    with open(out_csv, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpusched", default=os.path.join(ROOT, "build", "gpusched"))
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--out", default=os.path.join(HERE, "results.csv"))
    a = ap.parse_args()
    mem_tier = {"overhead_s": C_S, "restore_s": R_S, "persistent_every": 1000000,
                "memory": {"write_s": C_MEM_S, "restore_s": R_S, "replicas": 1}}
    with tempfile.TemporaryDirectory() as tmp:
        c60 = sweep(a.gpusched, tmp, a.seeds, INTERVALS, C_S, None, a.out, "p")
        c10 = sweep(a.gpusched, tmp, a.seeds, INTERVALS_MEM, C_MEM_S, mem_tier,
                    os.path.join(os.path.dirname(a.out), "results_memory.csv"), "m")
        plot({60: c60, 10: c10}, a.seeds, os.path.join(HERE, "plots"))
        tiers(a.gpusched, tmp, a.seeds, os.path.join(os.path.dirname(a.out), "results_tiers.csv"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
