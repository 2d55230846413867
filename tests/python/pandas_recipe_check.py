"""tests/python/pandas_recipe_check.py RECIPE.py SWEEP.h5 [OLD.h5]: runs the SCHEMA.md recipe
(RESULTS.h5 in it replaced by SWEEP.h5, a run of tests/data/configs/sweep3x2.json)
and checks what pandas gets: every run's swept values, typed; strings as str; the
jobs columns in table order. With OLD.h5 (the same sweep written by schema 1.6, its
jobs table compound), the recipe loads the same jobs from both."""
import sys

recipe_path, h5 = sys.argv[1], sys.argv[2]
old_h5 = sys.argv[3] if len(sys.argv) > 3 else None
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
    import pandas as pd
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
print("ok: the SCHEMA.md recipe loads summary, jobs, queues, options and decisions of", h5)
