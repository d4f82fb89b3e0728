"""Classifier speed: crops per second batched on one thread, model load time, peak memory.

    python benchmarks/classify_speed.py [--model models/tile_classifier.onnx] [--crops 2048]

Runs the shipped model on random prepared crops (speed does not depend on the pixels) at
batch sizes 1, 16, 64 and 256, one intra-op thread, and prints figures against the target of
1,000 crops/s.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from vision.classify import DEFAULT_MODEL, TileClassifier  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=DEFAULT_MODEL)
    ap.add_argument("--crops", type=int, default=2048)
    a = ap.parse_args()
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    clf = TileClassifier(a.model, threads=1)
    clf.session  # noqa: B018
    load = time.perf_counter() - t0
    size = clf.input_size
    print(f"model {a.model}: {os.path.getsize(a.model) / 1e6:.2f} MB, input {size}x{size}, "
          f"{len(clf.classes)} classes, load {load * 1000:.0f} ms")
    crops = np.random.default_rng(0).integers(0, 256, (a.crops, size, size, 3), dtype=np.uint8)
    clf.probabilities(crops[:64])  # warm-up
    for batch in (1, 16, 64, 256):
        clf.batch = batch
        n = a.crops if batch > 1 else min(a.crops, 512)
        t = time.perf_counter()
        clf.probabilities(crops[:n])
        rate = n / (time.perf_counter() - t)
        print(f"batch {batch:>4}: {rate:>8.0f} crops/s on one thread  ({rate / 1000:.2f}x the 1,000/s target)")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"peak memory {rss / 1024:.0f} MB (after import {rss0 / 1024:.0f} MB)")


if __name__ == "__main__":
    main()
