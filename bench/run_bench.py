#!/usr/bin/env python3
"""gpusched benchmark (bench/README.md): wall time, events/s and peak RSS per policy.

Builds Release in build-bench, generates the 1M- and 2M-job traces (fixed seed), writes one
experiment config per policy next to them, runs `gpusched run CONFIG -o OUT.h5` several times
per (policy, size), and prints medians with the targets checked.

Python 3 standard library only. Exit status: 0, or 1 when a step failed (build, generation,
a run), or with --strict when a target is missed.
"""

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
POLICIES = ("fifo", "priority", "easy_backfill", "kueue", "kueue_fs", "fallback", "admission_fair_sharing",
            "kueue_afs", "multifactor", "batch_fair_share", "hyperpod", "sjf", "srtf", "las", "fifo_faults",
            "fifo_autoscale")
# "sjf", "srtf", "las": the research baselines (docs/baselines.md) with their defaults, alone.
BASELINES = ("sjf", "srtf", "las")
# "kueue": the cohort quota policy (Kueue's cycle) with N_QUEUES queues of equal nominal
# quota in one cohort, lending and borrowing without limits, classical preemption.
# "kueue_fs": the same with fair sharing (Kueue's default strategies) instead.
# "kueue_afs": "kueue" with the order policy admission_fair_sharing (Kueue's admission
# fair sharing inside each queue) instead of priority; "admission_fair_sharing" is that
# order policy alone (no quota: the trace's queues compete as LocalQueues).
# --queues changes it: `--queues 1000 --jobs 100000 --policies kueue` is the case for
# the per-queue time series (each sample asks the quota policy for every queue's
# usage, borrowed and lent GPUs); --cohorts N spreads the queues over N cohorts under
# one root (nested: `--queues 1000 --cohorts 50` is 50 cohorts of 20).
DEFAULT_N_QUEUES = 20
N_QUEUES = DEFAULT_N_QUEUES
N_COHORTS = 0             # 0: every queue in the root cohort
DEFAULT_LOAD = 0.7
# "fallback": fifo with the first_fit fallback policy; every job lists the 3 flavors
# FALLBACK_FLAVORS (the cluster split in three), first choices spread evenly; each flavor
# has an exponential stock-out model (in stock 3 days, out 6 hours on average, no nodes
# out of stock: running jobs finish, none start).
FALLBACK_FLAVORS = ("gpu8a", "gpu8b", "gpu8c")
STOCK_IN_S, STOCK_OUT_S = 3 * 86400, 6 * 3600
# "fifo_faults": fifo with node failures (docs/faults.md): every node fails exponentially
# with an MTBF of FAULT_MTBF_H, is repaired in FAULT_REPAIR_H on average (exponential),
# and its jobs restart (the trace has no checkpoints: they lose their segment's work).
FAULT_MTBF_H, FAULT_REPAIR_H = 1000.0, 24.0
# "fifo_autoscale": fifo on one autoscaled flavor (docs/capacity.md) of at most the cluster's
# nodes, starting at the maximum with half of it as the minimum; nodes take AS_PROVISION_S
# (exponential) to come up and are given back after AS_IDLE_S idle.
AS_PROVISION_S, AS_IDLE_S = 300.0, 60.0
SEED = 20240601           # trace seed: fixed so every run of the benchmark sees the same jobs
CLUSTER_GPUS = 10000      # 1250 nodes of 8 GPUs
NODE_GPUS = 8
LOAD = DEFAULT_LOAD

# Targets for the full benchmark on the reference 2-core machine (bench/README.md).
TARGET_FIFO_1M_WALL_S = 1.5
TARGET_FIFO_1M_RSS_MB = 600.0
TARGET_2X_JOBS_TIME_RATIO = 2.3
TARGET_BACKFILL_OVER_FIFO = 3.0
TARGET_KUEUE_OVER_FIFO = 3.0
TARGET_FALLBACK_OVER_FIFO = 3.0
TARGET_ORDER_OVER_FIFO = 2.0   # a new order policy alone (issue 15)
TARGET_FAULTS_OVER_FIFO = 1.5  # fifo with node failures on (issue 16)
TARGET_AUTOSCALE_OVER_FIFO = 2.0  # fifo on one autoscaled flavor (issue 17)

# `run NAME: JOBS jobs, EVENTS events, SIM_S s simulated in WALL_S s (EV_PER_S events/s)`,
# printed on stderr by `gpusched run` (experiments/runner.c). Parsed tolerantly.
RUN_LINE = re.compile(
    r"run\s+(?P<name>\S+?):\s*(?P<jobs>\d+)\s+jobs?,\s*(?P<events>\d+)\s+events?,"
    r".*?simulated\s+in\s+(?P<wall>[0-9.eE+-]+)\s*s")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def die(msg):
    log("run_bench: " + msg)
    sys.exit(1)


def sh(cmd, **kw):
    log("$ " + " ".join(cmd))
    r = subprocess.run(cmd, **kw)
    if r.returncode != 0:
        die("command failed (exit %d): %s" % (r.returncode, " ".join(cmd)))


def build(build_dir, cmake_args):
    sh(["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
        "-DSIM_WERROR=OFF", "-DSIM_SANITIZE=OFF"] + cmake_args,
       stdout=subprocess.DEVNULL)
    sh(["cmake", "--build", build_dir, "-j", str(os.cpu_count() or 2),
        "--target", "gpusched", "gen_workload", "floors"], stdout=subprocess.DEVNULL)


def size_label(n):
    if n % 1000000 == 0:
        return "%dm" % (n // 1000000)
    if n % 1000 == 0:
        return "%dk" % (n // 1000)
    return str(n)


def generate(build_dir, data_dir, n_jobs, diurnal, prefs=False):
    """Writes the trace for n_jobs once (kept between benchmark runs: same seed, same file).
    prefs: every job gets the FALLBACK_FLAVORS preference list instead of a request."""
    path = os.path.join(data_dir, "jobs-%s%s%s%s.csv" % (size_label(n_jobs), queues_label(),
                                                       "-d%g" % diurnal if diurnal else "",
                                                       "-p%d" % len(FALLBACK_FLAVORS) if prefs else ""))
    stamp = path + ".args"
    gen = os.path.join(build_dir, "gen_workload")
    args = ["--jobs", str(n_jobs), "--seed", str(SEED), "--gpus", str(CLUSTER_GPUS),
            "--load", str(LOAD), "--diurnal", str(diurnal), "--flavor", "gpu8",
            "--queues", str(N_QUEUES)]
    if prefs:
        args += ["--prefs", ",".join(FALLBACK_FLAVORS)]
    # Regenerate when the generator or its arguments changed.
    if (os.path.exists(path) and os.path.exists(stamp)
            and open(stamp).read() == " ".join(args)
            and os.path.getmtime(path) >= os.path.getmtime(gen)):
        log("trace %s is up to date" % path)
        return path
    t0 = time.perf_counter()
    sh([gen] + args + ["-o", path])
    log("generated %d jobs in %.2f s" % (n_jobs, time.perf_counter() - t0))
    with open(stamp, "w") as f:
        f.write(" ".join(args))
    return path


def queues_label():
    """"" at the default N_QUEUES and load, else "-qN", "-lL": traces and configs of another
    count or load apart."""
    return (("" if N_QUEUES == DEFAULT_N_QUEUES else "-q%d" % N_QUEUES) +
            ("" if LOAD == DEFAULT_LOAD else "-l%g" % LOAD))


def config_label():
    """queues_label(), plus "-cN" for N cohorts (the config differs, not the trace)."""
    return queues_label() + ("-c%d" % N_COHORTS if N_COHORTS else "")


def kueue_policies(fair):
    """Quota, preemption and order of the "kueue" variants: N_QUEUES queues, in one cohort or
    spread over N_COHORTS cohorts under one root; classical or (fair) fair sharing."""
    nominal = CLUSTER_GPUS // N_QUEUES
    cohorts = [{"name": "all", "parent": None}]
    if N_COHORTS:
        cohorts += [{"name": "c%d" % k, "parent": "all"} for k in range(N_COHORTS)]

    def cohort_of(i):
        return "c%d" % (i * N_COHORTS // N_QUEUES) if N_COHORTS else "all"
    queues = [{"name": "q%d" % i, "cohort": cohort_of(i), "share_strategy": "LEND_AND_BORROW",
               "quota": {"gpu8": {"gpu": {"nominal": nominal}}}} for i in range(N_QUEUES)]
    preemption = ({"name": "fair_sharing"} if fair else
                  {"name": "classical", "within_queue": "LowerPriority", "reclaim_within_cohort": "Any"})
    return {"order": "priority",
            "quota": {"name": "cohort", "cohorts": cohorts, "queues": queues},
            "preemption": preemption,
            "fallback": "strict", "placement": "best_fit"}


def write_config(data_dir, policy, trace_path, n_jobs, diurnal):
    name = "%s-%s%s%s" % (policy, size_label(n_jobs), config_label(),
                          "-d%g" % diurnal if diurnal else "")
    cfg = {
        "name": name,
        "trace": {"path": trace_path, "format": "native"},
        "cluster": {"flavors": [{"name": "gpu8", "nodes": CLUSTER_GPUS // NODE_GPUS,
                                 "node": {"gpu": NODE_GPUS}, "speed": 1.0,
                                 "price_per_node_hour": 24.0}]},
        "policies": {"order": policy, "quota": "none", "preemption": "none",
                     "fallback": "strict", "placement": "best_fit"},
        "seeds": [1],
        "output": os.path.join(data_dir, name + ".h5"),
    }
    if policy in ("kueue", "kueue_fs", "kueue_afs"):
        cfg["policies"] = kueue_policies(policy == "kueue_fs")
    if policy == "kueue_afs":
        cfg["policies"]["order"] = "admission_fair_sharing"
    if policy == "fifo_faults":
        cfg["policies"]["order"] = "fifo"
        cfg["cluster"]["failures"] = {"mtbf_h": FAULT_MTBF_H,
                                      "repair": {"distribution": "exponential", "mean_h": FAULT_REPAIR_H}}
    if policy == "fifo_autoscale":
        nodes = CLUSTER_GPUS // NODE_GPUS
        cfg["policies"]["order"] = "fifo"
        cfg["cluster"]["flavors"][0]["autoscale"] = {
            "min_nodes": nodes // 2, "max_nodes": nodes, "idle_timeout_s": AS_IDLE_S,
            "provisioning": {"distribution": "exponential", "mean_s": AS_PROVISION_S}}
    if policy == "fallback":
        nodes = CLUSTER_GPUS // NODE_GPUS
        split = [nodes // 3 + (1 if i < nodes % 3 else 0) for i in range(3)]
        cfg["cluster"]["flavors"] = [
            {"name": name, "nodes": k, "node": {"gpu": NODE_GPUS}, "speed": 1.0,
             "price_per_node_hour": 24.0,
             "stockout": {"in_stock_mean_s": STOCK_IN_S, "out_of_stock_mean_s": STOCK_OUT_S}}
            for name, k in zip(FALLBACK_FLAVORS, split)]
        cfg["policies"]["order"] = "fifo"
        cfg["policies"]["fallback"] = "first_fit"
    path = os.path.join(data_dir, name + ".json")
    with open(path, "w") as f:
        json.dump(cfg, f, indent=2)
        f.write("\n")
    return path, cfg["output"]


def report_summary(gpusched, out_h5):
    """mean_wait_s and utilization of the run, from `gpusched report --json`; None if absent."""
    r = subprocess.run([gpusched, "report", out_h5, "--json"], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, universal_newlines=True)
    try:
        d = json.loads(r.stdout)
        if isinstance(d, list):
            d = d[0]
        return float(d["mean_wait_s"]), float(d["utilization"])
    except (ValueError, KeyError, IndexError, TypeError):
        return None, None


# `phase NAME S cpu C`, printed on stderr by `gpusched run` when GPUSCHED_PHASES is set
# (experiments/runner.c); `parse ... in S s`, `heap ... in S s` and the like from floors.
PHASE_LINE = re.compile(r"^phase\s+(?P<name>\S+)\s+(?P<s>[0-9.eE+-]+)(?:\s+cpu\s+[0-9.eE+-]+)?\s*$", re.M)
FLOOR_LINE = re.compile(r"^(?P<name>parse|heap|pages|sort|write|h5)\s.*?\bin\s+(?P<s>[0-9.]+)\s*s", re.M)
# The run's phases as reported in the table of --floors, each against its floor (bench/README.md,
# "Phases against their floors"): (label, phases summed, floor, floor label).
PHASE_ROWS = (
    ("load (trace_native_read)", ("load",), ("parse", "pages"), "tight parse + fresh job and option pages"),
    # One run: the check builds the run's own stack and the run uses it, so "setup" is about 0.
    ("check + setup (bind, cluster, engine)", ("check", "open", "setup"), (), "-"),
    ("simulate (sim_engine_run)", ("simulate",), ("heap",), "bare heap, 3 events a job"),
    ("metrics (summary, queues)", ("metrics",), ("sort",), "3 x qsort of N doubles"),
    ("write the run (h5out_write_run)", ("write",), ("h5",), "the jobs table raw, one unfiltered dataset"),
    # A config of one run is written in place (experiments/runner.c): "merge" is then the commit of
    # the file itself, and there is no part to commit, copy or remove.
    ("commit (in place) or merge the parts", ("free_run", "commit_part", "merge", "remove_parts"), (), "-"),
    ("free the trace", ("free_trace",), (), "-"),
)


# Bytes a row of the jobs table (`/runs/<run>/jobs`, analysis/SCHEMA.md) of the benchmark
# trace, unfiltered: its 29 columns at their widths (the id and queue strings are as wide as
# the trace's longest), as h5out_write_run laid them out for fifo 1M (measured 2026-12-02).
JOBS_ROW_BYTES = 187


def run_floors(build_dir, trace, n_jobs):
    """One run of bench/floors.c on the trace (its h5 and write floors on the jobs table's raw
    bytes): {floor name: seconds}."""
    exe = os.path.join(build_dir, "floors")
    out = subprocess.run([exe, trace, "--jobs", str(n_jobs), "--bytes", str(JOBS_ROW_BYTES * n_jobs)], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, universal_newlines=True, check=True).stdout
    return {m.group("name"): float(m.group("s")) for m in FLOOR_LINE.finditer(out)}


def print_floors(policy, n, ms):
    """The --floors table of one (policy, size): phase medians against floor medians, and the
    whole process against the heap floor (the median of each round's own ratio)."""
    def med(xs):
        xs = [x for x in xs if x is not None]
        return statistics.median(xs) if xs else None
    print()
    print("%s %s: phases against their floors (median of %d rounds: floors, then the run)"
          % (policy, size_label(n), len(ms)))
    hdr = "  %-40s %8s  %-44s %8s %8s" % ("phase", "s", "floor", "floor_s", "ratio")
    print(hdr)
    print("  " + "-" * (len(hdr) - 2))
    for label, names, floors, flabel in PHASE_ROWS:
        ph = med([sum(r["phases"].get(k, 0.0) for k in names) if r["phases"] else None for r in ms])
        fl = med([sum(r["floors"][k] for k in floors) if floors and all(k in r["floors"] for k in floors)
                  else None for r in ms])
        print("  %-40s %8s  %-44s %8s %8s" % (label, fmt(ph, ".3f"), flabel, fmt(fl, ".3f"),
                                              fmt(ph / fl if ph is not None and fl else None, ".1f")))
    wall = med([r["wall_s"] for r in ms])
    heap = med([r["floors"].get("heap") for r in ms])
    ratio = med([r["wall_s"] / r["floors"]["heap"] if r["floors"].get("heap") else None for r in ms])
    print("  %-40s %8s  %-44s %8s %8s" % ("whole process (wall)", fmt(wall, ".3f"), "bare heap, 3 events a job",
                                          fmt(heap, ".3f"), fmt(ratio, ".2f")))
    print("  peak RSS %.1f MB; the ratio is the median of the rounds' own wall / heap floor" %
          statistics.median(r["rss_mb"] for r in ms))


def measure(gpusched, config, out_h5, n_jobs, summarize, phases=False):
    """One run: wall time, the child's own peak RSS (os.wait4), and the parsed run line.
    With summarize, also the run's mean wait and utilization (outside the timing); with
    phases, the phase times `gpusched run` prints under GPUSCHED_PHASES."""
    cmd = [gpusched, "run", config, "-o", out_h5, "--no-progress"]
    env = dict(os.environ)
    env.pop("GPUSCHED_PHASES", None)
    if phases:
        env["GPUSCHED_PHASES"] = "1"
    with tempfile.TemporaryFile(mode="w+") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, env=env)
        # wait4 gives this child's own rusage; RUSAGE_CHILDREN would be a max over all.
        _, status, ru = os.wait4(p.pid, 0)
        wall_s = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read()
    if p.returncode != 0:
        log(text)
        die("gpusched run failed (exit %d): %s" % (p.returncode, " ".join(cmd)))
    rss_mb = ru.ru_maxrss * 1024 / 1e6   # Linux reports KiB
    m = RUN_LINE.search(text)
    if m:
        events = int(m.group("events"))
        loop_s = float(m.group("wall"))
    else:
        events = 2 * n_jobs           # one submit and one finish a job
        loop_s = None
    wait_s, util = report_summary(gpusched, out_h5) if summarize else (None, None)
    try:
        os.remove(out_h5)
    except OSError:
        pass
    ph = {}
    for pm in PHASE_LINE.finditer(text):
        ph[pm.group("name")] = ph.get(pm.group("name"), 0.0) + float(pm.group("s"))
    return {"wall_s": wall_s, "loop_s": loop_s, "events": events, "rss_mb": rss_mb,
            "parsed": m is not None, "wait_s": wait_s, "util": util, "phases": ph}


def median_or_none(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt(x, spec):
    return "-" if x is None else format(x, spec)


def check(label, value, limit, unit, results):
    if value is None:
        ok = None
        verdict = "n/a"
    else:
        ok = value <= limit
        verdict = "PASS" if ok else "FAIL"
    results.append(ok)
    print("  %-44s %10s  <= %-8g %-4s %s" % (label, fmt(value, ".3f"), limit, unit, verdict))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true",
                    help="CI smoke: 100k jobs, 1 run each, no target checks")
    ap.add_argument("--runs", type=int, default=None, help="runs per (policy, size) (default 3)")
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build-bench"))
    ap.add_argument("--no-build", action="store_true", help="use the binaries already built")
    ap.add_argument("--cmake-arg", action="append", default=[], metavar="ARG",
                    help="extra argument for the cmake configure step (repeatable), e.g. "
                         "--cmake-arg=-DCMAKE_C_COMPILER=clang")
    ap.add_argument("--policies", default=",".join(POLICIES),
                    help="comma-separated order policies (default: %(default)s)")
    ap.add_argument("--diurnal", type=float, default=0.0,
                    help="daily swing of the arrival rate, 0..1 (default 0: homogeneous Poisson)")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    ap.add_argument("--queues", type=int, default=DEFAULT_N_QUEUES,
                    help="queues of the trace and of the kueue cohort (default %(default)s)")
    ap.add_argument("--cohorts", type=int, default=0,
                    help="spread the kueue queues over this many cohorts under one root "
                         "(default 0: all in the root cohort)")
    ap.add_argument("--load", type=float, default=DEFAULT_LOAD,
                    help="offered load of the trace (default %(default)s)")
    ap.add_argument("--jobs", type=int, default=None,
                    help="one trace of this many jobs instead of 1M and 2M (no target checks)")
    ap.add_argument("--floors", action="store_true",
                    help="before each run, run bench/floors.c on its trace, time the run's phases "
                         "(GPUSCHED_PHASES) and print each phase against its floor")
    a = ap.parse_args()
    global N_QUEUES, N_COHORTS, LOAD
    if a.queues < 1 or CLUSTER_GPUS // a.queues < 1:
        die("--queues must be in 1..%d" % CLUSTER_GPUS)
    if a.cohorts < 0 or a.cohorts > a.queues:
        die("--cohorts must be in 0..--queues")
    if not 0.0 < a.load <= 2.0:
        die("--load must be in (0, 2]")
    N_QUEUES = a.queues
    N_COHORTS = a.cohorts
    LOAD = a.load

    build_dir = os.path.abspath(a.build_dir)
    sizes = [a.jobs] if a.jobs else [100000] if a.quick else [1000000, 2000000]
    if a.jobs is not None and a.jobs < 1:
        die("--jobs must be >= 1")
    runs = a.runs if a.runs else (1 if a.quick else 3)
    policies = [p for p in a.policies.split(",") if p]
    if runs < 1 or not policies:
        die("--runs must be >= 1 and --policies not empty")
    if not 0.0 <= a.diurnal <= 1.0:
        die("--diurnal must be in [0, 1]")

    if not a.no_build:
        build(build_dir, a.cmake_arg)
    gpusched = os.path.join(build_dir, "gpusched")
    for exe in (gpusched, os.path.join(build_dir, "gen_workload")) + (
            (os.path.join(build_dir, "floors"),) if a.floors else ()):
        if not os.access(exe, os.X_OK):
            die("%s not found (build first, or drop --no-build)" % exe)
    data_dir = os.path.join(build_dir, "bench")
    os.makedirs(data_dir, exist_ok=True)
    traces = {n: generate(build_dir, data_dir, n, a.diurnal) for n in sizes}
    prefs_traces = ({n: generate(build_dir, data_dir, n, a.diurnal, prefs=True) for n in sizes}
                    if "fallback" in policies else {})

    try:
        load_before = os.getloadavg()[0]
    except OSError:
        load_before = None
    rows = {}
    for policy in policies:
        for n in sizes:
            trace = prefs_traces[n] if policy == "fallback" else traces[n]
            config, out_h5 = write_config(data_dir, policy, trace, n, a.diurnal)
            ms = []
            for i in range(runs):
                fl = run_floors(build_dir, trace, n) if a.floors else {}
                r = measure(gpusched, config, out_h5, n, i == 0, phases=a.floors)
                r["floors"] = fl
                log("%s %s run %d/%d: wall %.3f s, loop %s s, %d events, peak RSS %.0f MB"
                    % (policy, size_label(n), i + 1, runs, r["wall_s"], fmt(r["loop_s"], ".3f"),
                       r["events"], r["rss_mb"]))
                ms.append(r)
            loop = median_or_none([r["loop_s"] for r in ms])
            events = ms[0]["events"]
            rows[(policy, n)] = {
                "wall_s": statistics.median(r["wall_s"] for r in ms),
                "loop_s": loop,
                "events": events,
                "ev_per_s": events / loop if loop else None,
                "rss_mb": statistics.median(r["rss_mb"] for r in ms),
                "parsed": all(r["parsed"] for r in ms),
                "wait_s": ms[0]["wait_s"],
                "util": ms[0]["util"],
                "runs": ms,
            }

    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    print()
    print("gpusched benchmark: %d GPUs (%d nodes x %d), load %.2f%s, trace seed %d, "
          "median of %d run%s" % (CLUSTER_GPUS, CLUSTER_GPUS // NODE_GPUS, NODE_GPUS, LOAD,
                                  " (diurnal swing %g)" % a.diurnal if a.diurnal else "", SEED,
                                  runs, "" if runs == 1 else "s"))
    print("machine: %s, %d CPUs, %s, Python %s" % (cpu, os.cpu_count() or 0, platform.system(),
                                                 platform.python_version()))
    if load_before is not None:
        print("load average (1 min) before the runs: %.2f%s" % (
            load_before, "  (busy machine: timings are noisy)" if load_before > 0.5 else ""))
    print()
    hdr = "%-14s %9s %10s %9s %8s %11s %11s %11s %6s" % (
        "policy", "jobs", "events", "wall_s", "loop_s", "events/s", "peak_rss_MB", "mean_wait_s",
        "util")
    print(hdr)
    print("-" * len(hdr))
    for policy in policies:
        for n in sizes:
            r = rows[(policy, n)]
            print("%-14s %9d %10d %9.3f %8s %11s %11.1f %11s %6s%s"
                  % (policy, n, r["events"], r["wall_s"], fmt(r["loop_s"], ".3f"),
                     fmt(r["ev_per_s"], ",.0f"), r["rss_mb"], fmt(r["wait_s"], ".1f"),
                     fmt(r["util"], ".3f"),
                     "" if r["parsed"] else "  (no run line: events = 2 x jobs)"))
    if a.floors:
        for policy in policies:
            for n in sizes:
                print_floors(policy, n, rows[(policy, n)]["runs"])
    if all(rows[k]["wait_s"] == 0.0 for k in rows):
        print("note: no job ever waited: the queue stays empty and the order policies are not "
              "exercised (try --diurnal 0.6)")

    results = []
    if not a.quick and not a.jobs:
        print()
        for policy in policies:
            small, big = rows.get((policy, sizes[0])), rows.get((policy, sizes[1]))
            print("%-14s time ratio 2M/1M: wall %.2f, loop %s" % (
                policy, big["wall_s"] / small["wall_s"],
                fmt(big["loop_s"] / small["loop_s"] if big["loop_s"] and small["loop_s"] else None,
                    ".2f")))
        print()
        print("targets (wall = whole `gpusched run` process: load, simulate, write HDF5):")
        f1 = rows.get(("fifo", sizes[0]))
        f2 = rows.get(("fifo", sizes[1]))
        eb = rows.get(("easy_backfill", sizes[0]))
        check("fifo 1M wall", f1["wall_s"] if f1 else None, TARGET_FIFO_1M_WALL_S, "s", results)
        check("fifo 1M peak RSS", f1["rss_mb"] if f1 else None, TARGET_FIFO_1M_RSS_MB, "MB",
              results)
        check("fifo wall 2M / 1M", f2["wall_s"] / f1["wall_s"] if f1 and f2 else None,
              TARGET_2X_JOBS_TIME_RATIO, "x", results)
        check("easy_backfill 1M wall / fifo 1M wall",
              eb["wall_s"] / f1["wall_s"] if eb and f1 else None,
              TARGET_BACKFILL_OVER_FIFO, "x", results)
        for kv in ("kueue", "kueue_fs", "kueue_afs"):
            kq = rows.get((kv, sizes[0]))
            if kq:
                check("%s 1M wall / fifo 1M wall" % kv, kq["wall_s"] / f1["wall_s"] if f1 else None,
                      TARGET_KUEUE_OVER_FIFO, "x", results)
            kq2 = rows.get((kv, sizes[1]))
            if kq and kq2:
                check("%s wall 2M / 1M" % kv, kq2["wall_s"] / kq["wall_s"],
                      TARGET_2X_JOBS_TIME_RATIO, "x", results)
        af = rows.get(("admission_fair_sharing", sizes[0]))
        if af:
            check("admission_fair_sharing 1M wall / fifo 1M wall",
                  af["wall_s"] / f1["wall_s"] if f1 else None, TARGET_ORDER_OVER_FIFO, "x", results)
        for fs in ("multifactor", "batch_fair_share", "hyperpod"):
            r = rows.get((fs, sizes[0]))
            if r:
                check("%s 1M wall / fifo 1M wall" % fs, r["wall_s"] / f1["wall_s"] if f1 else None,
                      TARGET_ORDER_OVER_FIFO, "x", results)
        ff = rows.get(("fifo_faults", sizes[0]))
        if ff:
            check("fifo_faults 1M wall / fifo 1M wall", ff["wall_s"] / f1["wall_s"] if f1 else None,
                  TARGET_FAULTS_OVER_FIFO, "x", results)
        fa = rows.get(("fifo_autoscale", sizes[0]))
        if fa:
            check("fifo_autoscale 1M wall / fifo 1M wall", fa["wall_s"] / f1["wall_s"] if f1 else None,
                  TARGET_AUTOSCALE_OVER_FIFO, "x", results)
        fb = rows.get(("fallback", sizes[0]))
        check("fallback 1M wall / fifo 1M wall", fb["wall_s"] / f1["wall_s"] if fb and f1 else None,
              TARGET_FALLBACK_OVER_FIFO, "x", results)
        for bl in BASELINES:
            br = rows.get((bl, sizes[0]))
            if br:
                check("%s 1M wall / fifo 1M wall" % bl, br["wall_s"] / f1["wall_s"] if f1 else None,
                      TARGET_ORDER_OVER_FIFO, "x", results)
        if platform.system() == "Linux" and (os.cpu_count() or 0) != 2:
            print("note: the targets are set for the 2-core reference machine; this one has %d CPUs"
                  % (os.cpu_count() or 0))
    if a.strict and any(ok is False for ok in results):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
