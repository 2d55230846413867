"""bench/h5_layouts.py RESULTS.h5 [RUN]: how fast h5py reads a run's jobs table, and
how large it is, in five layouts (analysis/SCHEMA.md, "Storage: what was measured").
RESULTS.h5 may be of schema 1.x (the jobs table compound) or 2.0 (a group of columns).

The run's jobs rows (the first run unless RUN is given) are written again with h5py
as: a compound table with shuffle + deflate level 1 in ~1 MiB and in 64 KiB row
chunks, uncompressed; one dataset a column with shuffle + deflate 1 (~1 MiB chunks)
and uncompressed. For each: the stored bytes, and the median of 7 reads of the whole
table (per-column: every column) and of one column (wait_s), in ms; then the same
for the file's own table as gpusched wrote it. Needs h5py and numpy; writes its
copies under the system's temporary folder and removes them."""
import os
import sys
import tempfile
import time

import h5py
import numpy as np


def median_ms(fn, k=7):
    times = []
    for _ in range(k):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return sorted(times)[k // 2] * 1e3


def stored_bytes(obj):
    if isinstance(obj, h5py.Dataset):
        return obj.id.get_storage_size()
    return sum(obj[n].id.get_storage_size() for n in obj)


def readers(obj):
    if isinstance(obj, h5py.Dataset):
        return (lambda: obj[:]), (lambda: obj["wait_s"])
    return (lambda: {n: obj[n][:] for n in obj}), (lambda: obj["wait_s"][:])


def main():
    src = h5py.File(sys.argv[1], "r")
    run = sys.argv[2] if len(sys.argv) > 2 else list(src["runs"])[0]
    table = src["runs"][run]["jobs"]
    if isinstance(table, h5py.Group):  # 2.0: one dataset a column, in table order
        cols = {name: table[name][:] for name in table}
        jobs = np.empty(len(next(iter(cols.values()))), dtype=[(n, c.dtype) for n, c in cols.items()])
        for n, c in cols.items():
            jobs[n] = c
    else:
        jobs = table[:]
    rows_1mib = max(1, (1 << 20) // jobs.dtype.itemsize)
    rows_64k = max(1, (1 << 16) // jobs.dtype.itemsize)

    def columns(g, compress):
        grp = g.create_group("jobs")
        for name in jobs.dtype.names:
            col = jobs[name]
            if compress:
                rows = min(len(col), max(1, (1 << 20) // col.dtype.itemsize))
                grp.create_dataset(name, data=col, chunks=(rows,), shuffle=True, compression="gzip",
                                   compression_opts=1)
            else:
                grp.create_dataset(name, data=col)

    layouts = [
        ("compound, shuffle + deflate 1, 1 MiB chunks",
         lambda g: g.create_dataset("jobs", data=jobs, chunks=(rows_1mib,), shuffle=True, compression="gzip",
                                    compression_opts=1)),
        ("compound, shuffle + deflate 1, 64 KiB chunks",
         lambda g: g.create_dataset("jobs", data=jobs, chunks=(rows_64k,), shuffle=True, compression="gzip",
                                    compression_opts=1)),
        ("compound, uncompressed", lambda g: g.create_dataset("jobs", data=jobs)),
        ("per column, shuffle + deflate 1", lambda g: columns(g, True)),
        ("per column, uncompressed", lambda g: columns(g, False)),
    ]
    print(f"run {run}: {len(jobs)} jobs, {jobs.dtype.itemsize}-byte rows")
    print(f"{'layout':46s} {'stored bytes':>13s} {'whole ms':>9s} {'column ms':>10s}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, build in layouts:
            path = os.path.join(tmp, "layout.h5")
            with h5py.File(path, "w") as g:
                build(g)
            with h5py.File(path, "r") as g:
                whole, one = readers(g["jobs"])
                print(f"{name:46s} {stored_bytes(g['jobs']):13d} {median_ms(whole):9.1f} {median_ms(one):10.1f}")
            os.remove(path)
    whole, one = readers(table)
    print(f"{'as gpusched wrote it':46s} {stored_bytes(table):13d} {median_ms(whole):9.1f} {median_ms(one):10.1f}")


if __name__ == "__main__":
    main()
