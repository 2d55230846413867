#!/usr/bin/env python3
"""gpusched sweep benchmark: how much faster a 64-run sweep finishes with `gpusched run -j N`.

Generates one synthetic trace (bench/gen_workload, fixed seed), writes a config of 64 runs, and times
`gpusched run CONFIG -q --no-progress -j J` for each J (default 1 and 2), REPS times each.
Prints each time, the medians and the speedup of every J over the first (target: >= 1.8 for
-j 2 on a 2-core machine). Also checks that every J wrote the same summary table (report --json).

Two workloads (--workload):
  output  2 order policies (fifo, easy_backfill) x 32 seeds on 200k jobs, 1024 GPUs: each run
          simulates in ~0.1 s and spends as long again writing its 200k-row jobs table, whose
          deflate already runs on 2 threads under -j 1 (so -j 1 uses ~1.3 cores);
  kueue   2 reclaim settings of classical preemption (Any, LowerPriority) x 32 seeds, the cohort quota policy
          with 20 queues on 20k jobs with a diurnal swing of 0.6 (queues contend): each run
          spends ~1 s in Kueue's cycle, single-threaded, and writes little.

Python 3 standard library only. Uses an existing build (default build-bench, as
bench/run_bench.py builds it; any build type works, Release is what to measure).
Exit status: 0; 1 when a step failed, or with --strict when the -j 2 speedup is under 1.8.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET_SPEEDUP = 1.8
SEED = 20240607


def run(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    if r.returncode != 0:
        sys.stderr.write("sweep_bench: failed: %s\n%s%s" % (" ".join(cmd), r.stdout, r.stderr))
        sys.exit(1)
    return r.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build-bench"))
    ap.add_argument("--jobs", type=int, default=200000, help="trace size (default 200000: ~0.2-0.4 s a run in Release)")
    ap.add_argument("--seeds", type=int, default=32, help="seeds per policy (default 32: 64 runs)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--workload", choices=("output", "kueue"), default="output",
                    help="see the top of this file (default output)")
    ap.add_argument("--diurnal", type=float, default=0.0,
                    help="daily swing of the arrival rate, 0..1 (gen_workload --diurnal): queues form and "
                         "the runs spend more of their time simulating, less writing results")
    ap.add_argument("-j", dest="js", default="1,2", help="comma-separated -j values (default 1,2)")
    ap.add_argument("--strict", action="store_true", help="exit 1 when the -j 2 speedup is under 1.8")
    args = ap.parse_args()

    args.build_dir = os.path.abspath(args.build_dir)
    gpusched = os.path.join(args.build_dir, "gpusched")
    gen = os.path.join(args.build_dir, "gen_workload")
    for exe in (gpusched, gen):
        if not os.access(exe, os.X_OK):
            sys.stderr.write("sweep_bench: %s not found; build first (cmake -S . -B %s -DCMAKE_BUILD_TYPE=Release"
                             " && cmake --build %s)\n" % (exe, args.build_dir, args.build_dir))
            return 1
    work = os.path.join(args.build_dir, "sweep_bench")
    os.makedirs(work, exist_ok=True)
    kueue = args.workload == "kueue"
    if kueue and args.jobs == 200000:
        args.jobs = 20000
    diurnal = 0.6 if kueue else args.diurnal
    queues = 20 if kueue else 4
    trace = os.path.join(work, "trace-%d%s-q%d.csv" % (args.jobs, "-d%g" % diurnal if diurnal else "", queues))
    if not os.path.exists(trace):
        run([gen, "--jobs", str(args.jobs), "--seed", str(SEED), "--gpus", "1024",
             "--diurnal", str(diurnal), "--queues", str(queues), "-o", trace])
    cfg = {
        "name": "sweep-bench",
        "trace": {"path": trace, "format": "native"},
        "cluster": {"flavors": [{"name": "gpu8", "nodes": 128, "node": {"gpu": 8}, "speed": 1.0,
                                 "price_per_node_hour": 0}]},
        "policies": {"order": "fifo"},
        "seeds": list(range(1, args.seeds + 1)),
        "output": os.path.join(work, "out.h5"),
        "sweep": {"policies.order": ["fifo", "easy_backfill"]},
    }
    if kueue:
        nominal = 1024 // queues
        cfg["policies"] = {
            "order": "priority",
            "quota": {"name": "cohort", "cohorts": [{"name": "all", "parent": None}],
                      "queues": [{"name": "q%d" % i, "cohort": "all", "share_strategy": "LEND_AND_BORROW",
                                  "quota": {"gpu8": {"gpu": {"nominal": nominal}}}} for i in range(queues)]},
            "preemption": {"name": "classical", "within_queue": "LowerPriority",
                           "reclaim_within_cohort": "Any"}}
        cfg["sweep"] = {"policies.preemption.reclaim_within_cohort": ["Any", "LowerPriority"]}
    cfg_path = os.path.join(work, "sweep.json")
    with open(cfg_path, "w") as f:
        json.dump(cfg, f, indent=1)
    n_runs = 2 * args.seeds
    js = [int(x) for x in args.js.split(",")]
    times = {j: [] for j in js}
    summaries = {}
    sys.stderr.write("sweep_bench: %d runs of %d jobs, -j %s, %d repetitions, %d CPUs\n"
                     % (n_runs, args.jobs, args.js, args.reps, os.cpu_count() or 0))
    for rep in range(args.reps):
        for j in js:  # interleaved, so a slow spell of the machine hits every J alike
            out = os.path.join(work, "out-j%d.h5" % j)
            t0 = time.monotonic()
            run([gpusched, "run", cfg_path, "-q", "--no-progress", "-j", str(j), "-o", out])
            dt = time.monotonic() - t0
            times[j].append(dt)
            sys.stderr.write("  rep %d -j %d: %.2f s\n" % (rep + 1, j, dt))
            if rep == 0:
                summaries[j] = run([gpusched, "report", out, "--json"])
            os.unlink(out)
    same = all(s == summaries[js[0]] for s in summaries.values())
    base = statistics.median(times[js[0]])
    print("%-6s %10s %10s %8s" % ("-j", "median_s", "per_run_s", "speedup"))
    for j in js:
        m = statistics.median(times[j])
        print("%-6d %10.2f %10.3f %8.2f" % (j, m, m / n_runs, base / m))
    print("results identical across -j: %s" % ("yes" if same else "NO"))
    if not same:
        return 1
    if args.strict and 2 in times and base / statistics.median(times[2]) < TARGET_SPEEDUP:
        sys.stderr.write("sweep_bench: -j 2 speedup under %.1f\n" % TARGET_SPEEDUP)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
