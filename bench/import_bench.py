#!/usr/bin/env python3
"""bench/import_bench.py: how long does `gpusched config import --format kueue` take on a
large manifest? (Python 3 standard library only.)

Writes a multi-document Kueue manifest of QUEUES ClusterQueues (default 1,000) under a
cohort tree LEVELS deep (default 5: 1 root, then 4, 16, 64, 256 cohorts; the queues are
spread over the deepest level), every queue with GPU, CPU and memory quota on two flavors,
borrowing and lending limits, preemption, flavor fungibility and a fair-sharing weight.
Then imports it RUNS times (default 5) and prints the wall times; the target is under a
second. Finally the imported quota section is run once by `gpusched run` on a small trace,
so the benchmark also shows the output is a config the simulator accepts.

    python3 bench/import_bench.py --gpusched build/gpusched [--queues N] [--levels L]
                                  [--runs R] [--strict]

--strict exits 1 when the median import takes a second or more. Not part of the test
suite: a wall-clock bound on a shared machine would make the suite flaky.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

FANOUT = 4


def cohort_tree(levels):
    """[(name, parent)] breadth first, and the names of the deepest level."""
    out, frontier = [("root", None)], ["root"]
    for level in range(1, levels):
        nxt = []
        for parent in frontier:
            for k in range(FANOUT):
                name = f"c{level}-{len(nxt)}"
                out.append((name, parent))
                nxt.append(name)
        frontier = nxt
    return out, frontier


def manifest(queues, levels):
    docs = []
    for flavor in ("h100", "a100"):
        docs.append(f"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata:\n  name: {flavor}\n")
    cohorts, leaves = cohort_tree(levels)
    for name, parent in cohorts:
        spec = f"spec:\n  parentName: {parent}\n  fairSharing:\n    weight: \"1\"\n" if parent else "spec: {}\n"
        docs.append(f"apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata:\n  name: {name}\n{spec}")
    for i in range(queues):
        docs.append(f"""apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: q{i}
spec:
  cohortName: {leaves[i % len(leaves)]}
  namespaceSelector: {{}}
  queueingStrategy: BestEffortFIFO
  fairSharing:
    weight: "{1 + i % 3}"
  flavorFungibility:
    whenCanBorrow: MayStopSearch
    whenCanPreempt: TryNextFlavor
  preemption:
    withinClusterQueue: LowerPriority
    reclaimWithinCohort: Any
    borrowWithinCohort:
      policy: LowerPriority
      maxPriorityThreshold: 100
  resourceGroups:
  - coveredResources: ["nvidia.com/gpu", "cpu", "memory"]
    flavors:
    - name: h100
      resources:
      - name: nvidia.com/gpu
        nominalQuota: 8
        borrowingLimit: 8
        lendingLimit: 4
      - name: cpu
        nominalQuota: 96500m
      - name: memory
        nominalQuota: 1Ti
    - name: a100
      resources:
      - name: nvidia.com/gpu
        nominalQuota: 4
      - name: cpu
        nominalQuota: 48
      - name: memory
        nominalQuota: 512Gi
""")
    return "---\n".join(docs)


def children_cpu():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def import_once(gpusched, src, out):
    """(wall seconds, CPU seconds) of one import: on a shared machine the CPU time is
    what the import itself costs, the wall time what a user waits."""
    t0, c0 = time.perf_counter(), children_cpu()
    r = subprocess.run([gpusched, "config", "import", "--format", "kueue", src, "-o", out],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    dt, dc = time.perf_counter() - t0, children_cpu() - c0
    if r.returncode != 0:
        sys.exit(f"import failed (exit {r.returncode}):\n{r.stderr}")
    return dt, dc


def run_imported(gpusched, folder, quota_path):
    """One run of the imported quota section on a 3-job trace: the loader accepts it."""
    with open(quota_path) as f:
        quota = json.load(f)
    trace = os.path.join(folder, "t.csv")
    with open(trace, "w") as f:
        f.write("id,submit_s,duration_s,request,queue\n")
        for i in range(3):
            f.write(f"j{i},{i},60,\"h100:gpu=8,cpu=8,memory=64\",q{i}\n")
    cfg = {"name": "import-bench", "trace": {"path": trace},
           "cluster": {"resources": ["cpu", "memory"],
                       "flavors": [{"name": "h100", "nodes": 8, "node": {"gpu": 8, "cpu": 96, "memory": 1024}},
                                   {"name": "a100", "nodes": 8, "node": {"gpu": 8, "cpu": 96, "memory": 1024}}]},
           "policies": {"order": "priority", "quota": quota, "preemption": "classical"},
           "seeds": [1], "output": os.path.join(folder, "run.h5")}
    path = os.path.join(folder, "run.json")
    with open(path, "w") as f:
        json.dump(cfg, f)
    t0 = time.perf_counter()
    r = subprocess.run([gpusched, "run", path], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"run of the imported quota failed (exit {r.returncode}):\n{r.stderr}")
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpusched", default="build/gpusched")
    ap.add_argument("--queues", type=int, default=1000)
    ap.add_argument("--levels", type=int, default=5)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--strict", action="store_true")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        src = os.path.join(folder, "big.yaml")
        with open(src, "w") as f:
            f.write(manifest(a.queues, a.levels))
        out = os.path.join(folder, "quota.json")
        runs = [import_once(a.gpusched, src, out) for _ in range(a.runs)]
        times, cpu = [w for w, _ in runs], [c for _, c in runs]
        with open(out) as f:
            q = json.load(f)
        print(f"manifest: {a.queues} ClusterQueues, {len(q['cohorts'])} cohorts in {a.levels} levels, "
              f"{os.path.getsize(src) / 1e6:.2f} MB")
        print(f"import wall time over {a.runs} runs: median {statistics.median(times):.3f} s, "
              f"min {min(times):.3f} s, max {max(times):.3f} s (target < 1 s); "
              f"CPU time median {statistics.median(cpu):.3f} s")
        print(f"gpusched run of the imported quota (3 jobs): {run_imported(a.gpusched, folder, out):.3f} s")
        if a.strict and statistics.median(times) >= 1.0:
            sys.exit(1)


if __name__ == "__main__":
    main()
