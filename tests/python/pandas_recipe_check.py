"""tests/python/pandas_recipe_check.py RECIPE.py SWEEP.h5 [OLD.h5 [TIMESERIES.csv]]: runs the
SCHEMA.md recipe (RESULTS.h5 in it replaced by SWEEP.h5, a run of
tests/data/configs/sweep3x2.json) and checks what pandas gets: every run's swept
values, typed; strings as str; the jobs columns in table order; the time series with
t_s as a column, one row a sample of the file. With OLD.h5 (the same sweep written by
schema 1.6, its jobs table compound), the recipe loads the same jobs and time series
from both. With TIMESERIES.csv (`gpusched export SWEEP.h5 --table timeseries`), the
recipe's time series has its columns and values."""
import sys

import h5py
import numpy as np
import pandas as pd

recipe_path, h5 = sys.argv[1], sys.argv[2]
old_h5 = sys.argv[3] if len(sys.argv) > 3 else None
ts_csv = sys.argv[4] if len(sys.argv) > 4 else None
code = open(recipe_path).read().replace("RESULTS.h5", h5)
ns = {}
exec(compile(code, "analysis/SCHEMA.md recipe", "exec"), ns)
load = ns["load"]
NODES = "cluster.flavors[0].nodes"

summary = load(h5, "summary")
assert len(summary) == 6, summary
assert summary[NODES].dtype.kind == "i", summary[NODES].dtype
assert summary["jobs"].dtype.kind == "i", summary["jobs"].dtype
assert summary["mean_wait_s"].dtype.kind == "f"
for _, row in summary.iterrows():
    assert isinstance(row["run"], str) and isinstance(row["variant"], str), row
    assert row[NODES] == int(row["variant"].split("_")[0]), row
    assert row["policies.order"] == "easy_backfill", row
    assert row["run"] == "%s-s%d" % (row["variant"], row["seed"]), row
    assert row["policy_quota"] == "none" and row["placement"] == "best_fit", row

jobs = load(h5, "jobs")
assert len(jobs) == 6 * 20, len(jobs)
for run, group in jobs.groupby("run"):
    variant = group["variant"].unique()
    assert len(variant) == 1 and run.startswith(variant[0]), (run, variant)
    assert set(group[NODES]) == {int(variant[0].split("_")[0])}, (run, set(group[NODES]))
assert set(jobs["final_state"]) == {"COMPLETED"}, set(jobs["final_state"])
assert (jobs["final_state"] == jobs["final_state_label"]).all()
assert isinstance(jobs["id"].iloc[0], str)
assert list(jobs.columns[:4]) == ["id", "queue", "user", "flavor"], list(jobs.columns)
assert jobs.columns[26] == "final_state_label", list(jobs.columns)
if old_h5:
    old = load(old_h5, "jobs")
    shared = [c for c in old.columns if c in jobs.columns]
    added = ["cost_type", "cost_type_label"]  # schema 2.1 adds them; a 1.6 file has none
    assert len(shared) + len(added) == len(jobs.columns) >= 27 + 3, (list(old.columns), list(jobs.columns))
    assert all(c in jobs.columns and c not in old.columns for c in added), list(jobs.columns)
    pd.testing.assert_frame_equal(old[shared].reset_index(drop=True), jobs[shared].reset_index(drop=True))
    print("ok: the recipe loads the same jobs from", old_h5, "(schema 1.6)")

assert len(load(h5, "queues")) == 12
assert len(load(h5, "options")) == 6
assert len(load(h5, "decisions")) == 0

# The time series: t_s first, one row a sample of the file (every run), the 2-D series
# one column a flavor or queue, values as stored.
ts = load(h5, "timeseries")
with h5py.File(h5, "r") as f:
    samples = {run: f["runs"][run]["timeseries"]["t_s"].shape[0] for run in f["runs"]}
    assert len(samples) == 6, samples
    assert len(ts) == sum(samples.values()) > 6 * 100, (len(ts), samples)
    assert ts.columns[0] == "t_s" and ts["t_s"].dtype.kind == "f", list(ts.columns)
    assert {"gpus_busy", "jobs_queued", "jobs_running", "gpus_busy_by_flavor[v100]", "queue_usage[research]",
            "queue_usage[prod]", "run", "variant", "seed", NODES}.issubset(ts.columns), list(ts.columns)
    assert not {"flavor", "queue"} & set(ts.columns), list(ts.columns)
    for run, group in ts.groupby("run"):
        g = f["runs"][run]["timeseries"]
        assert len(group) == samples[run], (run, len(group), samples[run])
        assert np.array_equal(group["t_s"].to_numpy(), g["t_s"][:]), run
        assert np.array_equal(group["queue_usage[prod]"].to_numpy(), g["queue_usage"][:, 1]), run
        assert np.array_equal(group["gpus_busy"].to_numpy(), g["gpus_busy"][:]), run
        assert set(group[NODES]) == {int(run.split("_")[0])}, run
if ts_csv:
    csv = pd.read_csv(ts_csv)
    with h5py.File(h5, "r") as f:
        keys = set(f["summary"].attrs["key_fields"])  # the recipe adds them all; export run .. swept values
    assert set(csv.columns) <= set(ts.columns), (list(csv.columns), list(ts.columns))
    assert set(csv.columns) - keys == set(ts.columns) - keys, (list(csv.columns), list(ts.columns))
    assert len(csv) == len(ts), (len(csv), len(ts))
    for run, group in csv.groupby("run"):
        mine = ts[ts["run"] == run]
        for col in ["t_s", "gpus_busy", "jobs_queued", "gpus_busy_by_flavor[v100]", "queue_usage[research]"]:
            assert np.array_equal(group[col].to_numpy(), mine[col].to_numpy()), (run, col)
    print("ok: the recipe's time series is gpusched export's", ts_csv)
if old_h5:
    old_ts = load(old_h5, "timeseries")
    pd.testing.assert_frame_equal(old_ts.reset_index(drop=True), ts.reset_index(drop=True))
    print("ok: the recipe loads the same time series from", old_h5, "(schema 1.6)")
print("ok: the SCHEMA.md recipe loads summary, jobs, queues, options, decisions and timeseries of", h5,
      "(%d samples over %d runs)" % (len(ts), len(samples)))
