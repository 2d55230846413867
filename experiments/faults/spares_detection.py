#!/usr/bin/env python3
"""Spares and detection (experiments/faults/README.md).

Philly's 82,247 jobs on 88 nodes of 8 GPUs, each virtual cluster a queue of one cohort with 2 GPUs of
quota per node of philly_vc.csv (LEND_AND_BORROW, classical preemption, the quota experiments'
setup). Every job checkpoints every hour of work (Philly's trace has no checkpoint column; this script
adds one), at 60 s a write and 120 s a restore. Nodes fail with an MTBF of 2,000 h each (exponential)
and are repaired in 24 h on average (exponential); a replacement from the spare pool takes 10 minutes.
Jobs crash at 0.005 and hang at 0.002 per hour of running time; a job may restart 10 times after fault
stops (HyperPod's jobMaxRetryCount), then it ends failed. The sweep: the spare pool (0, 1, 4 nodes:
0, about 1% and 5% of the cluster) x hang detection (killed 30 minutes after the hang, or held until
its run would have ended); 3 seeds each.

Prints, per variant, the mean over seeds (95% half-width) of mean wait, mean JCT, ETTR, GPU-hours lost
by cause and jobs failed; and ETTR per queue for the largest queues. Writes the results file and
results_spares_detection.csv here.

Usage: python3 experiments/faults/spares_detection.py [--gpusched build/gpusched] [--seeds 3] [-j 2]
Python 3 standard library only.
"""

import argparse
import csv
import io
import json
import math
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CKPT_S = 3600


def derived_trace(src, dst):
    """Philly's native trace with a checkpoint_s column (every job, CKPT_S)."""
    with open(src) as fi, open(dst, "w") as fo:
        for line in fi:
            if line.startswith("#"):
                continue
            line = line.rstrip("\n")
            fo.write(line + (",checkpoint_s\n" if line.startswith("id,") else ",%d\n" % CKPT_S))


def config(trace, out, seeds):
    return {
        "name": "faults-spares-detection",
        "description": "Spares and detection on Philly (experiments/faults/spares_detection.py)",
        "trace": {"path": trace, "format": "native"},
        "cluster": {"flavors": [{"name": "philly", "nodes": 88, "node": {"gpu": 8}}],
                    "failures": {"mtbf_h": 2000, "repair": {"distribution": "exponential", "mean_h": 24},
                                 "spares": 0, "replacement_s": 600}},
        "jobs": {"checkpoint": {"overhead_s": 60, "restore_s": 120},
                 "faults": {"crash_per_h": 0.005, "hang_per_h": 0.002, "hang_timeout_s": 1800,
                            "hang_detection": True, "max_retries": 10}},
        "policies": {
            "order": "priority", "preemption": "classical",
            "quota": {
                "name": "cohort",
                "cohorts": [{"name": "philly", "parent": None}],
                "queues_csv": {"path": os.path.join(ROOT, "experiments/quota/philly_vc_lenders.csv"),
                               "name_column": "vc", "nominal_column": "node num", "multiply": 2,
                               "flavor": "philly", "cohort": "philly",
                               "template": {"share_strategy": "LEND_AND_BORROW"}},
                "queues": [{"name": q, "cohort": "philly", "quota": {"philly": {"gpu": {"nominal": n}}},
                            "share_strategy": "LEND_AND_BORROW"}
                           for q, n in (("7f04ca", 64), ("2869ce", 32), ("103959", 16))],
                "unlisted_queues": {"cohort": "philly"}}},
        "sweep": {"cluster.failures.spares": [0, 1, 4], "jobs.faults.hang_detection": [True, False]},
        "seeds": list(range(1, seeds + 1)),
        "output": out,
    }


def export(gpusched, h5, table):
    p = subprocess.run([gpusched, "export", h5, "--table", table], check=True, capture_output=True, text=True)
    return list(csv.DictReader(io.StringIO(p.stdout)))


def mean_hw(xs):
    xs = [x for x in xs if not math.isnan(x)]
    if not xs:
        return float("nan"), 0.0
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, 0.0
    t = {2: 12.706, 3: 4.303, 4: 3.182, 5: 2.776}.get(len(xs), 2.0)
    return m, t * statistics.stdev(xs) / math.sqrt(len(xs))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpusched", default=os.path.join(ROOT, "build/gpusched"))
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("-j", type=int, default=2)
    a = ap.parse_args()
    res = os.path.join(ROOT, "results/faults")
    os.makedirs(res, exist_ok=True)
    trace = os.path.join(res, "philly_ckpt.csv")
    derived_trace(os.path.join(ROOT, "traces/data/philly.csv"), trace)
    h5 = os.path.join(res, "spares_detection.h5")
    cfg = os.path.join(res, "spares_detection.json")
    with open(cfg, "w") as f:
        json.dump(config(trace, h5, a.seeds), f, indent=1)
    subprocess.run([a.gpusched, "run", cfg, "-o", h5, "-j", str(a.j), "-q"], check=True)
    summ = export(a.gpusched, h5, "summary")
    jobs = export(a.gpusched, h5, "jobs")
    faults = export(a.gpusched, h5, "faults")
    # per run and queue: GPU x useful, GPU x held (the ETTR of the queue's jobs)
    per_q = {}
    for j, fl in zip(jobs, faults):
        if j["id"] != fl["id"] or j["run"] != fl["run"]:
            sys.exit("jobs and faults tables out of step")
        held, useful, g = float(fl["held_s"]), float(fl["useful_s"]), float(j["alloc_gpus"])
        if held > 0:
            k = (j["variant"], j["run"], j["queue"])
            u, h = per_q.get(k, (0.0, 0.0))
            per_q[k] = (u + g * useful, h + g * held)
    variants = []
    for r in summ:
        if r["variant"] not in variants:
            variants.append(r["variant"])
    rows = []
    print("variant            wait_mean[h]     jct_mean[h]          ETTR  lost node/crash/hang/preempt [GPU*h]  failed")
    for v in variants:
        rs = [r for r in summ if r["variant"] == v]
        f = lambda k: [float(r[k]) for r in rs]
        w, jc, e = mean_hw([x / 3600 for x in f("mean_wait_s")]), mean_hw([x / 3600 for x in f("mean_jct_s")]), \
            mean_hw(f("ettr"))
        lost = [statistics.fmean([float(r[k]) / 3600 for r in rs]) for k in
                ("lost_node_failed_gpu_s", "lost_crashed_gpu_s", "lost_hang_gpu_s")]
        rest = statistics.fmean([(float(r["lost_gpu_s"]) - float(r["lost_node_failed_gpu_s"]) -
                                  float(r["lost_crashed_gpu_s"]) - float(r["lost_hang_gpu_s"])) / 3600 for r in rs])
        failed = statistics.fmean(f("failed"))
        print("%-16s %6.2f ± %-6.2f %6.2f ± %-6.2f %.4f ± %.4f  %7.0f/%6.0f/%6.0f/%7.0f  %6.1f" %
              (v, w[0], w[1], jc[0], jc[1], e[0], e[1], lost[0], lost[1], lost[2], max(rest, 0), failed))
        rows.append({"variant": v, "wait_mean_h": w[0], "wait_hw": w[1], "jct_mean_h": jc[0], "jct_hw": jc[1],
                     "ettr": e[0], "ettr_hw": e[1], "lost_node_gpu_h": lost[0], "lost_crash_gpu_h": lost[1],
                     "lost_hang_gpu_h": lost[2], "lost_preempt_gpu_h": max(rest, 0), "failed": failed})
    held_by_q = {}
    for (v, run, q), (u, h) in per_q.items():
        held_by_q[q] = held_by_q.get(q, 0) + h
    top = sorted(held_by_q, key=lambda q: -held_by_q[q])[:5]
    print("\nETTR per queue (the 5 queues that held the most GPU time; mean over seeds)")
    print("variant          " + "".join("%10s" % q for q in top))
    for v in variants:
        cells = []
        for q in top:
            xs = [u / h for (vv, run, qq), (u, h) in per_q.items() if vv == v and qq == q and h > 0]
            cells.append("%10.4f" % statistics.fmean(xs) if xs else "%10s" % "-")
            rows[variants.index(v)]["ettr_" + q] = statistics.fmean(xs) if xs else float("nan")
        print("%-16s " % v + "".join(cells))
    with open(os.path.join(HERE, "results_spares_detection.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
