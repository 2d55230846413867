#!/usr/bin/env python3
"""make_openb.py: derive the fallback experiment's traces and configs from Alibaba openb 2023.

Reads (never changes) two files of the Alibaba GPU cluster trace v2023 ("openb", Weng et al.,
ATC'23; source and licence in traces/samples/README.md):

  openb_pod_list_gpuspec33.csv   one row a pod: GPUs asked for, allowed GPU models, QoS, times
  openb_node_list_gpu_node.csv   one row a GPU node: GPU model and GPUs per node

and writes, next to this script:

  openb_prefs.csv   native trace (traces/README.md): each GPU pod with a preference list of
                    2 to 5 GPU models (prefs), or a request when only one model can run it
  openb_fixed.csv   the same pods pinned to the first option of their list (request)
  fixed.json        experiment config: openb_fixed.csv, fallback strict
  prefs.json        experiment config: openb_prefs.csv, sweep over fallback first_fit, deadline, cost

Every rule below is documented in README.md ("Data derivation", "Assumptions"). Python 3 standard
library only, no floating point in anything written (integer and Fraction arithmetic), so the
outputs are the same bytes on every machine.

Usage:  python3 make_openb.py [--raw DIR] [--out DIR] [--check]
  --raw    folder holding the two openb CSVs (default: $GPUSCHED_RAW_TRACES/alibaba-openb-2023;
           the full files are not in the repository)
  --out    where to write (default: this script's folder)
  --check  write nothing; exit 1 if any output differs from what is on disk
"""

import argparse
import collections
import csv
import hashlib
import io
import os
import sys
from fractions import Fraction

POD_FILE = "openb_pod_list_gpuspec33.csv"
NODE_FILE = "openb_node_list_gpu_node.csv"

# ---- assumptions (README.md, "Assumptions") -------------------------------------------------
#
# speed: relative training throughput, V100 = 1.0 (coarse: between NVIDIA's FP32-peak and
#        memory-bandwidth ratios to V100; not measured). G2 and G3 are undisclosed internal
#        models: with no information they are taken as V100-class (1.0).
# price: on-demand list price per GPU-hour in USD; node price = this x GPUs per node.
#        Written as strings and read as Fractions so that no binary float is ever printed.
MODELS = {
    #  model      speed   $/GPU-h    source of the price
    "G2":      ("1.0", "3.06",   "assumed V100-class: AWS p3.16xlarge (8 x V100 16 GB) $24.48/h / 8"),
    "G3":      ("1.0", "3.06",   "assumed V100-class: AWS p3.16xlarge (8 x V100 16 GB) $24.48/h / 8"),
    "V100M16": ("1.0", "3.06",   "AWS p3.8xlarge (4 x V100 16 GB) $12.24/h / 4, us-east-1 on-demand"),
    "V100M32": ("1.0", "3.9015", "AWS p3dn.24xlarge (8 x V100 32 GB) $31.212/h / 8, us-east-1 on-demand"),
    "A10":     ("0.8", "1.006",  "AWS g5.xlarge (1 x A10G) $1.006/h, us-east-1 on-demand"),
    "P100":    ("0.6", "1.46",   "GCP nvidia-tesla-p100 $1.46/GPU-h, us-central1 (GPU alone; no P100 on AWS)"),
    "T4":      ("0.4", "0.978",  "AWS g4dn.12xlarge (4 x T4) $3.912/h / 4, us-east-1 on-demand"),
}

# The cluster keeps this fraction of each model's GPUs (rounded to whole nodes, at least one node):
# the pods keep about 36 GPUs busy in their busiest five weeks (peak 58) of the 6,212, so the full
# cluster never queues. At 1/96 (G2: 6 nodes) the fixed trace barely queues while every flavor is
# in stock (mean wait 140 s), and stock-outs are what makes jobs wait; at 1/128 (G2: 4 nodes) G2
# alone is overloaded (mean wait 7.6 h without any stock-out). README.md, "Scale".
SCALE = Fraction(1, 96)

# Stock-out model of every flavor (ISSUE4.md, cluster.flavors[i].stockout): in stock for an
# exponentially distributed time of mean IN_STOCK_S, then out of stock (no nodes; busy ones drain)
# for a time of mean OUT_OF_STOCK_S. Availability IN / (IN + OUT) = 90%.
IN_STOCK_S = 3 * 86400
OUT_OF_STOCK_S = 8 * 3600

SEEDS = [1, 2, 3, 4, 5]
FALLBACKS = ["first_fit", "deadline", "cost"]
QUESTION = "Does a 5-option list start jobs sooner than one fixed type, and at what cost?"
MAX_OPTIONS = 5

# QoS -> priority (SOURCES.md: LS > Guaranteed/Burstable > BE).
PRIORITY = {"LS": 2, "Guaranteed": 1, "Burstable": 1, "BE": 0}

# Synthetic deadline (the openb trace has none; the cost policy needs one): a pod accepts to wait
# as long as it runs on its first option, and at least an hour: deadline = submit + d + max(d, 3600).
DEADLINE_MIN_SLACK_S = 3600


def die(msg):
    sys.stderr.write("make_openb.py: " + msg + "\n")
    sys.exit(2)


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        h.update(f.read())
    return h.hexdigest()


def milli_str(m):
    """An integer count of thousandths as the shortest decimal: 810 -> 0.81, 2000 -> 2."""
    whole, frac = divmod(m, 1000)
    if frac == 0:
        return str(whole)
    return ("%d.%03d" % (whole, frac)).rstrip("0")


def frac_str(x, digits):
    """A Fraction as a decimal with at most `digits` fractional digits (exact or half-up)."""
    scaled = x * 10 ** digits
    n = scaled.numerator * 2 + scaled.denominator
    n //= 2 * scaled.denominator  # half up, x >= 0
    whole, frac = divmod(n, 10 ** digits)
    if frac == 0:
        return str(whole)
    return ("%d.%0*d" % (whole, digits, frac)).rstrip("0")


# ---- cluster -----------------------------------------------------------------------------------

def read_nodes(path):
    """Per model: GPUs in all, and a Counter of node shapes (GPUs per node -> nodes)."""
    gpus = collections.Counter()
    shapes = collections.defaultdict(collections.Counter)
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            m = row["model"]
            if m not in MODELS:
                die("%s: GPU model '%s' has no entry in MODELS" % (path, m))
            g = int(row["gpu"])
            gpus[m] += g
            shapes[m][g] += 1
    return gpus, shapes


def build_flavors(gpus, shapes):
    """One flavor per model: the most common node shape (ties: more GPUs a node), and
    max(1, round(GPUs x SCALE / GPUs a node)) nodes."""
    flavors = {}
    for m in MODELS:
        if m not in gpus:
            die("model %s is not in the node list" % m)
        gpn = max(shapes[m], key=lambda g: (shapes[m][g], g))
        exact = Fraction(gpus[m]) * SCALE / gpn
        nodes = max(1, (exact.numerator * 2 + exact.denominator) // (2 * exact.denominator))
        speed = Fraction(MODELS[m][0])
        price_gpu = Fraction(MODELS[m][1])
        flavors[m] = {"gpn": gpn, "nodes": nodes, "speed": speed, "price_gpu": price_gpu,
                  "price_node": price_gpu * gpn, "pool": gpus[m], "shapes": shapes[m]}
    return flavors


def preference_key(flavors, m):
    """Fastest first; ties: the larger pool in the real cluster first; then the name."""
    f = flavors[m]
    return (-f["speed"], -f["pool"], m)


def can_ever_hold(f, milli):
    """A job of `milli` GPU thousandths fits one node, or takes ceil(GPUs / per node) whole nodes."""
    per_node = f["gpn"] * 1000
    if milli <= per_node:
        return True
    return -(-milli // per_node) <= f["nodes"]


# ---- pods --------------------------------------------------------------------------------------

def read_pods(path, flavors):
    anyorder = sorted(MODELS, key=lambda m: preference_key(flavors, m))[:MAX_OPTIONS]
    stats = collections.Counter()
    jobs = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            stats["pods"] += 1
            ngpu = int(row["num_gpu"])
            if ngpu == 0:
                stats["dropped_cpu_only"] += 1
                continue
            if row["scheduled_time"] == "":
                stats["dropped_never_scheduled"] += 1
                continue
            submit = int(row["creation_time"])
            start = int(row["scheduled_time"])
            dur = int(row["deletion_time"]) - start
            if dur <= 0:
                stats["dropped_nonpositive_duration"] += 1
                continue
            milli = int(row["gpu_milli"]) if ngpu == 1 else ngpu * 1000
            if milli <= 0 or milli > ngpu * 1000:
                die("%s: pod %s: gpu_milli %s with num_gpu %d" % (path, row["name"],
                                             row["gpu_milli"], ngpu))
            spec = row["gpu_spec"]
            if spec:
                allowed = sorted(set(spec.split("|")), key=lambda m: preference_key(flavors, m))
                if len(spec.split("|")) != len(set(spec.split("|"))):
                    stats["spec_with_repeated_model"] += 1
                if len(allowed) > MAX_OPTIONS:
                    stats["spec_cut_to_5"] += 1
                for m in allowed:
                    if m not in MODELS:
                        die("%s: pod %s: unknown GPU model %s" % (path, row["name"], m))
                opts = allowed[:MAX_OPTIONS]
                stats["with_spec"] += 1
            else:
                opts = list(anyorder)
                stats["without_spec"] += 1
            kept = [m for m in opts if can_ever_hold(flavors[m], milli)]
            stats["options_dropped_too_big"] += len(opts) - len(kept)
            if not kept:
                die("pod %s (%s GPUs) fits none of %s at this scale" % (row["name"],
                                              milli_str(milli), opts))
            deadline = submit + dur + max(dur, DEADLINE_MIN_SLACK_S)
            jobs.append({"id": row["name"], "submit": submit, "dur": dur, "qos": row["qos"],
                     "prio": PRIORITY[row["qos"]], "milli": milli, "opts": kept,
                     "deadline": deadline})
            stats["jobs"] += 1
            stats["jobs_%d_options" % len(kept)] += 1
    # The pod list is sorted by creation time; keep file order among equal times.
    jobs.sort(key=lambda j: j["submit"])
    return jobs, stats, anyorder


# ---- writers -----------------------------------------------------------------------------------

def trace_text(jobs, kind, header_lines):
    out = io.StringIO()
    for line in header_lines:
        out.write("# " + line + "\n" if line else "#\n")
    cols = ["id", "submit_s", "duration_s", "queue", "priority", "request"]
    if kind == "prefs":
        cols.append("prefs")
    cols.append("deadline_s")
    out.write(",".join(cols) + "\n")
    for j in jobs:
        g = "gpu=" + milli_str(j["milli"])
        request, prefs = "", ""
        if kind == "prefs" and len(j["opts"]) >= 2:
            prefs = ";".join(m + ":" + g for m in j["opts"])
        else:
            request = j["opts"][0] + ":" + g
        row = [j["id"], str(j["submit"]), str(j["dur"]), j["qos"], str(j["prio"]), request]
        if kind == "prefs":
            row.append(prefs)
        row.append(str(j["deadline"]))
        out.write(",".join(row) + "\n")
    return out.getvalue()


def config_text(name, description, trace, fallback, sweep, flavors, stockout, seeds, output):
    """The config as JSON, one flavor a line or two, for people to read (json.dumps would
    spread every flavor over twenty lines)."""
    def q(s):
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
    fl = []
    for m in MODELS:
        f = flavors[m]
        text = ('{"name": %s, "nodes": %d, "node": {"gpu": %d}, "speed": %s, "price_per_node_hour": %s'
                % (q(m), f["nodes"], f["gpn"], frac_str(f["speed"], 3), frac_str(f["price_node"], 4)))
        if stockout:
            text += (',\n     "stockout": {"in_stock_mean_s": %d, "out_of_stock_mean_s": %d, '
                     '"distribution": "exponential", "out_of_stock_nodes": 0}' % (IN_STOCK_S, OUT_OF_STOCK_S))
        fl.append(text + "}")
    lines = [
        "{",
        '  "name": %s,' % q(name),
        '  "description": %s,' % q(description),
        '  "trace": {"path": %s, "format": "native"},' % q(trace),
        '  "cluster": {"flavors": [',
        "    " + ",\n    ".join(fl),
        "  ]},",
        '  "policies": {"order": "independent", "quota": "none",',
        '               "preemption": "none", "fallback": %s, "placement": "best_fit"},' % q(fallback),
        '  "seeds": [%s],' % ", ".join(str(s) for s in seeds),
        '  "output": "../../results/fallback/%s.h5"%s' % (output, "," if sweep else ""),
    ]
    if sweep:
        lines.append('  "sweep": {"policies.fallback": [%s]}' % ", ".join(q(s) for s in sweep))
    lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    raw_root = os.environ.get("GPUSCHED_RAW_TRACES")
    ap.add_argument("--raw", default=os.path.join(raw_root, "alibaba-openb-2023") if raw_root else None)
    ap.add_argument("--out", default=here)
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    if not a.raw:
        die("no openb folder: give --raw DIR or set GPUSCHED_RAW_TRACES")

    pod_path = os.path.join(a.raw, POD_FILE)
    node_path = os.path.join(a.raw, NODE_FILE)
    for p in (pod_path, node_path):
        if not os.path.isfile(p):
            die("cannot open %s (use --raw DIR)" % p)

    gpus, shapes = read_nodes(node_path)
    flavors = build_flavors(gpus, shapes)
    jobs, st, anyorder = read_pods(pod_path, flavors)

    flv = ", ".join("%s %dx%d" % (m, flavors[m]["nodes"], flavors[m]["gpn"]) for m in MODELS)
    total = sum(flavors[m]["nodes"] * flavors[m]["gpn"] for m in MODELS)
    head = [
        "Alibaba GPU cluster trace v2023 (openb; Weng et al., ATC'23), converted by",
        "experiments/fallback/make_openb.py. Research or study use only (alibaba/clusterdata README).",
        "Source: alibaba/clusterdata cluster-trace-gpu-v2023/csv, commit "
        "7a6c496e4f4b6ce6150be8f881cb051bf2abff42",
        "  %s sha256 %s" % (POD_FILE, sha256_of(pod_path)),
        "  %s sha256 %s" % (NODE_FILE, sha256_of(node_path)),
        "Mapping: id = name; submit_s = creation_time; duration_s = deletion_time - scheduled_time",
        "  (taken as the run time on the first option); queue = qos; priority = LS 2, Guaranteed 1,",
        "  Burstable 1, BE 0; gpu = num_gpu, or gpu_milli / 1000 for a 1-GPU pod;",
        "  deadline_s = submit_s + d + max(d, 3600) (synthetic: the trace has no deadlines).",
        "Options: gpu_spec models (or, without gpu_spec: %s), fastest first" % "|".join(anyorder),
        "  (ties: larger pool in the node list first), at most 5; options that can never hold the pod",
        "  on the scaled cluster dropped. Cluster (1/%d of the GPUs of each model, at least a node):" % (
            SCALE.denominator),
        "  %s; %d GPUs." % (flv, total),
        "Pods: %d; dropped: %d CPU-only, %d never scheduled (Pending), %d with duration <= 0;" % (
            st["pods"], st["dropped_cpu_only"], st["dropped_never_scheduled"],
            st["dropped_nonpositive_duration"]),
        "  kept %d (%d with gpu_spec, %d without); %d options dropped as too big for their flavor." % (
            st["jobs"], st["with_spec"], st["without_spec"], st["options_dropped_too_big"]),
        "  Options per job: " + ", ".join("%d: %d" % (k, st["jobs_%d_options" % k])
                          for k in range(1, 6)) + ".",
    ]
    outputs = {
        "openb_prefs.csv": trace_text(jobs, "prefs", head + [
            "This file: the preference lists (prefs); a job with one option has a request."]),
        "openb_fixed.csv": trace_text(jobs, "fixed", head + [
            "This file: every job pinned to the first option of its list (request)."]),
        "fixed.json": config_text(
            "fallback-fixed",
            QUESTION + " Baseline: the openb GPU pods, each pinned to the first GPU model of its list "
            "(openb_fixed.csv), on the openb cluster scaled to 1/%d of its GPUs, every flavor "
            "under a stock-out model. Generated by make_openb.py; see README.md." % SCALE.denominator,
            "openb_fixed.csv", "strict", None, flavors, True, SEEDS, "fixed"),
        "prefs.json": config_text(
            "fallback-prefs",
            QUESTION + " The openb GPU pods with preference lists of 2 to 5 GPU models "
            "(openb_prefs.csv), on the cluster and stock-outs of fixed.json; the sweep: SageMaker "
            "first_fit, earliest expected finish (deadline), cheapest that meets the deadline (cost). "
            "Generated by make_openb.py; see README.md.",
            "openb_prefs.csv", "first_fit", FALLBACKS, flavors, True, SEEDS, "prefs"),
        "instock-fixed.json": config_text(
            "fallback-instock-fixed",
            "Reference for fixed.json: the same, with every flavor always in stock (nothing is "
            "random, so one seed). Generated by make_openb.py; see README.md.",
            "openb_fixed.csv", "strict", None, flavors, False, [1], "instock-fixed"),
        "instock-prefs.json": config_text(
            "fallback-instock-prefs",
            "Reference for prefs.json: the same, with every flavor always in stock (nothing is "
            "random, so one seed). Generated by make_openb.py; see README.md.",
            "openb_prefs.csv", "first_fit", FALLBACKS, flavors, False, [1], "instock-prefs"),
    }

    differ = []
    for name, text in outputs.items():
        path = os.path.join(a.out, name)
        data = text.encode("utf-8")
        old = None
        if os.path.isfile(path):
            with open(path, "rb") as f:
                old = f.read()
        if old == data:
            continue
        differ.append(name)
        if not a.check:
            tmp = path + ".tmp"
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, path)

    for m in MODELS:
        f = flavors[m]
        others = ", ".join("%d x %d GPU" % (n, g) for g, n in sorted(f["shapes"].items())
                   if g != f["gpn"])
        print("%-8s %4d GPUs in %s; flavor: %d nodes x %d GPU (%s), speed %s, $%s/node-h" % (
            m, f["pool"], " + ".join("%dx%d" % (n, g) for g, n in sorted(f["shapes"].items())),
            f["nodes"], f["gpn"], "other shapes: " + others if others else "one shape",
            frac_str(f["speed"], 3), frac_str(f["price_node"], 4)))
    for k in sorted(st):
        print("%-32s %d" % (k, st[k]))
    if a.check:
        if differ:
            print("differs: " + " ".join(differ))
            return 1
        print("all outputs are up to date")
    else:
        print("written: " + (" ".join(differ) if differ else "nothing changed"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
