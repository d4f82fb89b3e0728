"""Classifier speed: crops per second batched on one thread, model load time, peak memory.

    python benchmarks/classify_speed.py [--model models/tile_classifier.onnx] [--crops 2048] [--turn-below T]
        [--quick FILE] [--quick-sure S] [--from samples|held-out]

Runs the model on the labelled tiles of the sample photos (repeated to ``--crops``) at batch
sizes 1, 16, 64 and 256, one intra-op thread, and prints figures against the target of 1,000
crops/s: first with every crop also read turned half round, then with the turned copy read only
where the first reading's top probability is under ``vision.classify.TURN_BELOW`` (or
``--turn-below T``), then as shipped: the quick network first (``vision.classify.QUICK_MODEL``,
or ``--quick FILE``), all the networks only for the crops it gives under ``QUICK_SURE`` — so the
speed depends on the pixels, and real tiles are timed; the share of crops the quick network
answers alone is printed with it. ``--from held-out`` times the labelled tiles of the held-out
training photos instead, harder crops of which the quick network answers fewer alone.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from mjcam.vision.classify import (DEFAULT_MODEL, QUICK_MODEL, QUICK_SURE, TURN_BELOW, TileClassifier,  # noqa: E402
                             quick_choice)


def sample_crops(clf: TileClassifier, n: int) -> np.ndarray:
    """``n`` classifier inputs: the labelled tiles of the sample photos, repeated."""
    import json

    from mjcam.vision.io import load_photo

    folder = os.path.join(os.path.dirname(__file__), "..", "samples")
    with open(os.path.join(folder, "labels.json")) as fh:
        labels = json.load(fh)
    crops = []
    for name, tiles in labels.items():
        image = load_photo(os.path.join(folder, name))[0]
        crops.append(clf.crops(image, [t[1:] for t in tiles]))
    crops = np.concatenate(crops)
    return crops[np.arange(n) % len(crops)]


def held_out_crops(clf: TileClassifier, n: int, data: str) -> np.ndarray:
    """``n`` classifier inputs from the labelled boxes of the held-out training photos (harder than
    the sample photos' tiles: fewer are answered by the first look alone), repeated or cut to ``n``."""
    from models.evaluate import held_out_photos

    crops = np.concatenate([clf.crops(image, [b.box for b in rec.boxes])
                            for image, rec in held_out_photos(data, mirrored="")])
    return crops[np.arange(n) % len(crops)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=DEFAULT_MODEL)
    ap.add_argument("--crops", type=int, default=2048)
    ap.add_argument("--turn-below", type=float, default=TURN_BELOW, metavar="T",
                    help="read the turned copy only where the first reading is under T (as shipped: %(default)s)")
    ap.add_argument("--quick", default=QUICK_MODEL, help="the quick network ('none': no quick first reading)")
    ap.add_argument("--quick-sure", type=float, default=QUICK_SURE, metavar="S")
    ap.add_argument("--from", dest="source", choices=("samples", "held-out"), default="samples",
                    help="time the sample photos' labelled tiles, or the held-out training photos' (harder)")
    ap.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    a = ap.parse_args()
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    quick = quick_choice(a.quick, threads=1) or None  # (a file, or none)
    clf = TileClassifier(a.model, threads=1, quick=quick or False, quick_sure=a.quick_sure)
    clf.session  # noqa: B018
    if quick:
        quick.session  # noqa: B018
    load = time.perf_counter() - t0
    size = clf.input_size
    print(f"model {a.model}: {os.path.getsize(a.model) / 1e6:.2f} MB, input {size}x{size}, "
          f"{len(clf.classes)} classes, load {load * 1000:.0f} ms")
    crops = sample_crops(clf, a.crops) if a.source == "samples" else held_out_crops(clf, a.crops, a.data)
    print(f"{len(crops)} crops: the {'sample' if a.source == 'samples' else 'held-out training'} photos' labelled tiles")
    modes = [("every crop both ways round: ", 1.0, None), (f"the turn only under {a.turn_below:g}: ", a.turn_below, None)]
    if quick:
        alone = float(np.mean(quick.probabilities(crops).max(axis=1) >= a.quick_sure))
        modes.append((f"the quick network first ({alone:.0%} alone): ", a.turn_below, quick))
    clf.probabilities(crops[:64])  # warm-up
    for what, below, first in modes:
        clf.turn_below, clf.quick = below, first
        for batch in (1, 16, 64, 256):
            clf.batch = batch
            n = a.crops if batch > 1 else min(a.crops, 512)
            t = time.perf_counter()
            clf.probabilities(crops[:n])
            rate = n / (time.perf_counter() - t)
            print(f"{what}batch {batch:>4}: {rate:>8.0f} crops/s on one thread  "
                  f"({rate / 1000:.2f}x the 1,000/s target)")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"peak memory {rss / 1024:.0f} MB (after import {rss0 / 1024:.0f} MB)")


if __name__ == "__main__":
    main()
