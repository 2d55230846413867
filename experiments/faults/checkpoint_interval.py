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
1 - C/T - (T/2 + R)/M, failures) and prints the argmax against Young's sqrt(2 C M).

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


def run_one(gpusched, tmp, t_s, seeds):
    trace = os.path.join(tmp, "t%d.csv" % t_s)
    with open(trace, "w") as f:
        f.write("id,submit_s,duration_s,request,checkpoint_s\n")
        f.write("llama,0,%d,h100:gpu=%d,%d\n" % (WORK_S, NODES * NODE_GPUS, t_s))
    out = os.path.join(tmp, "t%d.h5" % t_s)
    cfg = {
        "name": "ckpt-%d" % t_s,
        "trace": {"path": trace},
        "cluster": {"flavors": [{"name": "h100", "nodes": NODES, "node": {"gpu": NODE_GPUS}}],
                    "failures": {"mtbf_h": NODE_MTBF_H, "repair": {"mean_h": 0}}},
        "jobs": {"checkpoint": {"overhead_s": C_S, "restore_s": R_S}},
        "seeds": list(range(1, seeds + 1)),
        "output": out,
    }
    path = os.path.join(tmp, "t%d.json" % t_s)
    with open(path, "w") as f:
        json.dump(cfg, f)
    subprocess.run([gpusched, "run", path, "-o", out], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    rep = subprocess.run([gpusched, "report", out, "--json"], check=True, capture_output=True, text=True)
    rows = json.loads(rep.stdout)
    return [r["ettr"] for r in rows], [r["nodes_failed"] for r in rows]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpusched", default=os.path.join(ROOT, "build", "gpusched"))
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--out", default=os.path.join(HERE, "results.csv"))
    a = ap.parse_args()
    young = math.sqrt(2 * C_S * JOB_MTBF_S)
    lines = ["interval_s,ettr_mean,ettr_ci95,ettr_model,failures_mean"]
    best = None
    with tempfile.TemporaryDirectory() as tmp:
        for t_s in INTERVALS:
            ettr, fails = run_one(a.gpusched, tmp, t_s, a.seeds)
            m = statistics.mean(ettr)
            hw = 1.96 * statistics.stdev(ettr) / math.sqrt(len(ettr)) if len(ettr) > 1 else 0.0
            model = 1 - C_S / t_s - (t_s / 2 + R_S) / JOB_MTBF_S
            lines.append("%d,%.5f,%.5f,%.5f,%.1f" % (t_s, m, hw, model, statistics.mean(fails)))
            print("T = %5d s: ETTR %.4f +- %.4f (model %.4f), %.0f failures" % (t_s, m, hw, model,
                                                                            statistics.mean(fails)))
            if best is None or m > best[1]:
                best = (t_s, m)
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("job MTBF %.0f s (node MTBF %.0f h); Young sqrt(2 C M) = %.0f s; simulated argmax T = %d s "
          "(ETTR %.4f)" % (JOB_MTBF_S, NODE_MTBF_H, young, best[0], best[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
