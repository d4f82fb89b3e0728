"""Batch throughput: photos per hour with 1 and 2 local workers and a 2-worker Dask LocalCluster.

    pip install '.[dask]'
    python -m benchmarks.batch_throughput --data ../shared/data [--photos 200]

Photos: the Roboflow HK photos (valid split first, then train), copied to a temporary folder.
Each configuration writes a fresh JSON Lines file; the figures include starting the workers and
loading the models. On a 2-core machine 2 workers should give at least 1.7x one.
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class _Quiet:
    def step(self, record):
        pass


def main(argv=None) -> None:
    from mjcam.batch import Options, run

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--photos", type=int, default=200)
    ap.add_argument("--no-dask", action="store_true")
    args = ap.parse_args(argv)
    rf = os.path.join(args.data, "roboflow-hk-chinese")
    paths = sorted(glob.glob(os.path.join(rf, "valid", "images", "*"))) + \
        sorted(glob.glob(os.path.join(rf, "train", "images", "*")))
    paths = paths[:args.photos]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = os.path.join(tmp, "photos")
        os.makedirs(folder)
        for i, p in enumerate(paths):
            shutil.copy(p, os.path.join(folder, f"{i:04d}.jpg"))
        configs = [("1 local worker", 1, None), ("2 local workers", 2, None)]
        if not args.no_dask:
            configs.append(("Dask LocalCluster, 2 workers", 2, "local"))
        for name, workers, dask in configs:
            out = os.path.join(tmp, f"{workers}-{dask}.jsonl")
            t0 = time.perf_counter()
            s = run([folder], out, Options(), workers=workers, dask=dask, progress=_Quiet())
            dt = time.perf_counter() - t0
            rows.append((name, s.read + s.failed, dt))
    print(f"{len(paths)} photos (640x640), {os.cpu_count()} cores\n")
    print(f"{'configuration':<32}{'seconds':>10}{'photos/hour':>14}{'vs 1 worker':>13}")
    base = rows[0][1] / rows[0][2]
    for name, n, dt in rows:
        print(f"{name:<32}{dt:>10.1f}{n / dt * 3600:>14,.0f}{(n / dt) / base:>12.2f}x")


if __name__ == "__main__":
    main()
