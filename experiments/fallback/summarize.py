#!/usr/bin/env python3
"""summarize.py: the tables of README.md ("Results") from the experiment's results files.

Reads every results file with `gpusched report` (nothing else opens the HDF5) and prints
Markdown tables. Seeds are replications: a cell is "mean ± half-width of the 95% confidence
interval over the seeds" (Student t, as `gpusched report` computes it); no ± when the half-width
is 0 (one seed, or the same value in every seed).

  1. runs: gpusched's run metrics per variant (`report --by-variant`)
  2. paired: each preference-list variant minus the fixed baseline of the same seed (the same
     stock-out periods: a flavor's periods are drawn from the seed and the flavor alone), from
     `report --json`
  3. jobs with a list and jobs with one option: their waits apart (`report --jobs`, and the
     trace openb_prefs.csv for which jobs have a list)
  3b. jobs with one option, by the GPU model they are bound to
  4. options: share, wait, run time ratio and cost per option index (`report --options --json`)
  5. GPU models: where the jobs ran (`report --jobs`)

Python 3 standard library only.

Usage:  python3 summarize.py [--gpusched PATH] [--trace openb_prefs.csv] [--log RUN.log] [FILE.h5 ...]
  --log: also tabulate the out-of-stock periods of a `gpusched run --log` file (table 0)
  default files: ../../results/fallback/{instock-fixed,instock-prefs,fixed,prefs}.h5 (missing ones
  are skipped); the paired table pairs fixed.h5 with prefs.h5 and instock-fixed.h5 with
  instock-prefs.h5.
  default gpusched: $GPUSCHED, else ../../build/gpusched, else gpusched on the PATH
"""

import argparse
import collections
import csv
import io
import json
import math
import os
import shutil
import subprocess
import sys

# Two-sided 95% quantiles of Student's t, df = 1..30 (beyond: the normal 1.96).
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042]
MODELS = ("G2", "G3", "V100M16", "V100M32", "A10", "P100", "T4")


def mean_ci(xs):
    """Mean and 95% half-width over replications (0 for one)."""
    xs = [x for x in xs if x is not None and not math.isnan(x)]
    n = len(xs)
    if n == 0:
        return None
    m = sum(xs) / n
    if n < 2:
        return m, 0.0
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    t = T975[n - 2] if n - 1 <= len(T975) else 1.96
    return m, t * sd / math.sqrt(n)


def pct(xs, p):
    """Percentile of type 7 (linear interpolation), as gpusched's."""
    xs = sorted(xs)
    if not xs:
        return float("nan")
    h = (len(xs) - 1) * p
    lo = int(math.floor(h))
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (h - lo) * (xs[hi] - xs[lo])


def fmt(mc, digits=0, scale=1.0):
    if mc is None:
        return "-"
    m, h = round(mc[0] * scale, digits) + 0.0, mc[1] * scale  # + 0.0: no "-0.00"
    if round(h, digits) == 0:
        return "%.*f" % (digits, m)
    return "%.*f ± %.*f" % (digits, m, digits, h)


class Gpusched:
    def __init__(self, exe):
        self.exe = exe

    def __call__(self, *args):
        r = subprocess.run([self.exe] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True)
        if r.returncode != 0:
            sys.stderr.write(r.stderr)
            sys.exit("summarize.py: %s %s failed (exit %d)" % (self.exe, " ".join(args), r.returncode))
        return r.stdout


def variant_of(run):
    """A run name without its -s<seed> suffix."""
    base, sep, seed = run.rpartition("-s")
    return base if sep and seed.isdigit() else run


def read_list_ids(path):
    """Ids of the jobs of a native trace whose prefs column is not empty."""
    with open(path, newline="") as f:
        rows = csv.DictReader(line for line in f if not line.lstrip().startswith("#"))
        return {r["id"] for r in rows if r.get("prefs")}


class Results:
    """What the tables need from one results file."""

    def __init__(self, g, path, list_ids):
        self.label = os.path.splitext(os.path.basename(path))[0]
        self.variants = json.loads(g("report", path, "--by-variant"))
        self.runs = json.loads(g("report", path, "--json"))
        self.options = json.loads(g("report", path, "--options", "--json"))
        self.jobs = collections.OrderedDict()  # run -> list of job rows
        for r in csv.DictReader(io.StringIO(g("report", path, "--jobs"))):
            self.jobs.setdefault(r["run"], []).append(r)
        self.list_ids = list_ids

    def runs_of(self, variant):
        return [r for r in self.runs if variant_of(r["run"]) == variant]

    def metric(self, v, key):
        x = v.get(key)
        if isinstance(x, dict) and x.get("mean") is not None:
            return x["mean"], x["ci95"]
        return None


def table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    print("\n".join(out) + "\n")


def t_runs(res):
    rows = []
    for R in res:
        for v in R.variants:
            m = lambda k: R.metric(v, k)
            fb = m("fallback_rate")
            rows.append([R.label, v["variant"], str(v["runs"]),
                         fmt(m("mean_wait_s"), 2, 1 / 3600), fmt(m("p95_wait_s"), 2, 1 / 3600),
                         fmt(m("p99_wait_s"), 1, 1 / 3600), fmt(m("max_wait_s"), 0, 1 / 3600),
                         fmt(m("mean_jct_s"), 2, 1 / 3600), fmt(m("mean_cost_per_job"), 2),
                         fmt(m("cost"), 0), fmt(fb, 1, 100) if fb else "0",
                         fmt(m("utilization"), 1, 100)])
    print("Table 1. Runs (gpusched report --by-variant). Waits and JCT in hours, cost in USD.\n")
    table(["file", "variant", "seeds", "mean wait", "p95 wait", "p99 wait", "max wait", "mean JCT",
           "cost per job", "total cost", "fallback rate (%)", "utilization (%)"], rows)


def split_mean(R, run, with_list):
    """Mean wait (s) of the started jobs of a run that have a list (or one option)."""
    w = [float(j["wait_s"]) for j in R.jobs.get(run, [])
         if j["start_s"] != "" and (j["id"] in R.list_ids) == with_list]
    return sum(w) / len(w) if w else float("nan")


def t_paired(res):
    by = {R.label: R for R in res}
    rows = []
    for base, other in (("instock-fixed", "instock-prefs"), ("fixed", "prefs")):
        if base not in by or other not in by:
            continue
        B, O = by[base], by[other]
        bseed = {r["seed"]: r for r in B.runs}
        for v in O.variants:
            d = collections.defaultdict(list)
            for r in O.runs_of(v["variant"]):
                b = bseed.get(r["seed"])
                if not b:
                    continue
                for k in ("mean_wait_s", "p95_wait_s", "mean_cost_per_job", "cost"):
                    d[k].append(r[k] - b[k])
                for kind in (True, False):
                    w = [split_mean(X, run["run"], kind) for X, run in ((O, r), (B, b))]
                    d["list" if kind else "one"].append(w[0] - w[1])
                d["ratio"].append(r["mean_wait_s"] / b["mean_wait_s"] if b["mean_wait_s"] else float("nan"))
            if not d:
                continue
            rows.append(["%s - %s" % (other, base), v["variant"], str(len(d["cost"])),
                         fmt(mean_ci(d["mean_wait_s"]), 2, 1 / 3600), fmt(mean_ci(d["ratio"]), 2),
                         fmt(mean_ci(d["p95_wait_s"]), 2, 1 / 3600),
                         fmt(mean_ci(d["list"]), 2, 1 / 3600), fmt(mean_ci(d["one"]), 2, 1 / 3600),
                         fmt(mean_ci(d["mean_cost_per_job"]), 2), fmt(mean_ci(d["cost"]), 0)])
    print("Table 2. Paired with the fixed baseline of the same seed: list variant minus fixed "
          "(waits in hours, cost in USD; ratio = mean wait of the list run / of the fixed run).\n")
    table(["pair", "variant", "seeds", "Δ mean wait", "wait ratio", "Δ p95 wait",
           "Δ mean wait, list jobs", "Δ mean wait, one-option jobs", "Δ cost per job",
           "Δ total cost"], rows)


def t_split(res):
    rows = []
    for R in res:
        for v in R.variants:
            stats = collections.defaultdict(list)
            for run in R.runs_of(v["variant"]):
                jobs = [j for j in R.jobs.get(run["run"], []) if j["start_s"] != ""]
                for kind, sel in (("list", lambda j: j["id"] in R.list_ids),
                                  ("one", lambda j: j["id"] not in R.list_ids)):
                    w = [float(j["wait_s"]) for j in jobs if sel(j)]
                    stats[kind + "_n"].append(len(w))
                    stats[kind + "_mean"].append(sum(w) / len(w) if w else float("nan"))
                    stats[kind + "_p95"].append(pct(w, 0.95))
                    stats[kind + "_p99"].append(pct(w, 0.99))
            rows.append([R.label, v["variant"],
                         fmt(mean_ci(stats["list_n"]), 0), fmt(mean_ci(stats["list_mean"]), 2, 1 / 3600),
                         fmt(mean_ci(stats["list_p95"]), 2, 1 / 3600),
                         fmt(mean_ci(stats["list_p99"]), 1, 1 / 3600),
                         fmt(mean_ci(stats["one_n"]), 0), fmt(mean_ci(stats["one_mean"]), 2, 1 / 3600),
                         fmt(mean_ci(stats["one_p95"]), 2, 1 / 3600),
                         fmt(mean_ci(stats["one_p99"]), 1, 1 / 3600)])
    print("Table 3. Jobs with a list of 2 to 5 options in openb_prefs.csv, and jobs with one option "
          "(in both traces the same jobs), their waits in hours.\n")
    table(["file", "variant", "list jobs", "mean wait", "p95 wait", "p99 wait", "one-option jobs",
           "mean wait", "p95 wait", "p99 wait"], rows)


def t_single_by_model(res):
    rows = []
    for R in res:
        for v in R.variants:
            waits = collections.defaultdict(list)  # model -> per-run mean wait
            counts = {}
            for run in R.runs_of(v["variant"]):
                per = collections.defaultdict(list)
                for j in R.jobs.get(run["run"], []):
                    if j["start_s"] != "" and j["id"] not in R.list_ids:
                        per[j["flavor"]].append(float(j["wait_s"]))
                for f, w in per.items():
                    waits[f].append(sum(w) / len(w))
                    counts[f] = len(w)
            cells = ["%s (%d)" % (fmt(mean_ci(waits[f]), 2, 1 / 3600), counts[f]) if f in counts else "-"
                     for f in MODELS]
            rows.append([R.label, v["variant"]] + cells)
    print("Table 3b. Jobs with one option, by the GPU model they are bound to: mean wait in hours "
          "(jobs).\n")
    table(["file", "variant"] + list(MODELS), rows)


def t_options(res):
    rows = []
    for R in res:
        for v in R.variants:
            names = {r["run"] for r in R.runs_of(v["variant"])}
            by_opt = collections.defaultdict(list)
            for o in R.options:
                if o["run"] in names:
                    by_opt[o["option"]].append(o)
            for k in sorted(by_opt):
                os_ = by_opt[k]
                if not any(o["jobs"] for o in os_):
                    continue
                g = lambda key: mean_ci([o[key] if o[key] is not None else float("nan") for o in os_])
                rows.append([R.label, v["variant"], str(k + 1), fmt(g("jobs"), 0), fmt(g("share"), 1, 100),
                             fmt(g("mean_wait_s"), 2, 1 / 3600), fmt(g("runtime_ratio"), 2),
                             fmt(g("mean_cost"), 2)])
    print("Table 4. The option jobs ran on (gpusched report --options; 1 = first preference): "
          "jobs, share of started jobs, mean wait (h), run time there / on option 1, mean cost per "
          "job (USD).\n")
    table(["file", "variant", "option", "jobs", "share (%)", "mean wait", "runtime ratio", "cost per job"],
          rows)


def t_flavors(res):
    rows = []
    for R in res:
        for v in R.variants:
            share = collections.defaultdict(list)
            gpu_h = collections.defaultdict(list)
            for run in R.runs_of(v["variant"]):
                jobs = [j for j in R.jobs.get(run["run"], []) if j["start_s"] != ""]
                c = collections.Counter(j["flavor"] for j in jobs)
                h = collections.Counter()
                for j in jobs:
                    h[j["flavor"]] += float(j["gpus"]) * float(j["runtime_s"] or 0) / 3600
                for f in MODELS:
                    share[f].append(c[f] / len(jobs))
                    gpu_h[f].append(h[f])
            rows.append([R.label, v["variant"]] + ["%s (%s)" % (fmt(mean_ci(share[f]), 1, 100),
                                                                 fmt(mean_ci(gpu_h[f]), 0)) for f in MODELS])
    print("Table 5. Where the jobs ran: % of started jobs (GPU-hours requested x run time).\n")
    table(["file", "variant"] + list(MODELS), rows)


def t_stockouts(log):
    """Out-of-stock periods per run and flavor, from the capacity lines of a `gpusched run --log`
    file: "[T] event=capacity flavor=F nodes=N out_of_stock" starts one, the next line of F ends it."""
    import re
    pat = re.compile(r"\[([0-9.]+)\] event=capacity flavor=(\S+) nodes=\d+( out_of_stock)?")
    periods = collections.OrderedDict()  # run -> flavor -> list of lengths (s)
    start = {}
    run = None
    with open(log) as f:
        for line in f:
            if line.startswith("# run "):
                run = line.split()[2]
                periods[run] = collections.defaultdict(list)
                start = {}
                continue
            m = pat.match(line)
            if not m or run is None:
                continue
            t, fl, out = float(m.group(1)), m.group(2), bool(m.group(3))
            if out:
                start[fl] = t
            elif fl in start:
                periods[run][fl].append(t - start.pop(fl))
    rows = []
    every = []
    for run, per in periods.items():
        cells = [run]
        for fl in MODELS:
            p = per.get(fl, [])
            every += p
            cells.append("%d, %.0f h, max %.1f h" % (len(p), sum(p) / 3600, max(p) / 3600) if p else "0")
        rows.append(cells)
    print("Table 0. Out-of-stock periods that ended during each run (from %s): count, hours in all, "
          "longest. All runs: %d periods, mean %.2f h, longest %.1f h.\n" % (
              os.path.basename(log), len(every), sum(every) / len(every) / 3600 if every else 0,
              max(every) / 3600 if every else 0))
    table(["run"] + list(MODELS), rows)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    res_dir = os.path.join(here, "..", "..", "results", "fallback")
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpusched")
    ap.add_argument("--trace", default=os.path.join(here, "openb_prefs.csv"))
    ap.add_argument("--log", help="a `gpusched run --log` file: tabulate its out-of-stock periods")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    exe = a.gpusched or os.environ.get("GPUSCHED")
    if not exe:
        cand = os.path.join(here, "..", "..", "build", "gpusched")
        exe = cand if os.path.isfile(cand) else shutil.which("gpusched")
    if not exe:
        sys.exit("summarize.py: no gpusched (use --gpusched PATH)")
    g = Gpusched(exe)
    files = a.files or [os.path.join(res_dir, n + ".h5")
                        for n in ("instock-fixed", "instock-prefs", "fixed", "prefs")]
    list_ids = read_list_ids(a.trace)
    res = []
    for path in files:
        if not os.path.isfile(path):
            sys.stderr.write("summarize.py: %s: missing, skipped\n" % path)
            continue
        res.append(Results(g, path, list_ids))
    if a.log:
        t_stockouts(a.log)
    t_runs(res)
    t_paired(res)
    t_split(res)
    t_single_by_model(res)
    t_options(res)
    t_flavors(res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
