"""The tile classifier on held-out tiles, beside the one it replaces, on the same boxes.

    python -m benchmarks.classifier_heldout --data ../shared/data [--model X.onnx]
        [--baseline Y.onnx] [--limit N] [--turns] [--part-labels as-labelled]

Tiles: the labelled boxes of photos that neither trained nor tuned the model (``datasets.splits``):

- ``HK valid``: the HK photos of ``roboflow-hk-chinese/valid`` (its Japanese-style set and
  screenshots printed apart), labels mended where found wrong by eye;
- ``rethink test``: the held-out share of ``roboflow-rethink-bonus``'s photos;
- ``unseen set``: a whole tile set held out (the ``home-mj`` photos and their turned copies);
- ``flowers/seasons``: the bonus tiles among all of those.

``--turns``: the HK valid tiles read with the photo turned a quarter, a half and three quarters.

Each classifier reads each box as the recogniser hands it over (``TileClassifier.classify_boxes``:
the crop cut from the photo at the classifier's own input size). ``roboflow-rethink-bonus`` labels
its flowers and seasons round part of the tile; each such label is read as the whole tile's box
the shipped detector draws round it (``datasets.crops.whole_tiled``), as the recogniser reads
it, and where no box matches as labelled; ``--part-labels as-labelled`` reads the labelled part.
``--baseline``: another classifier file read beside it (e.g. a candidate, or an earlier model from
the repository's history). Also printed: the time to classify the 14 tiles of a hand (median of
repeated runs, each classifier in turn in this process).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from dataclasses import replace

import numpy as np

from datasets.crops import load_rgb, whole_tiled
from datasets.readers import mended, roboflow_subset
from datasets.splits import split
from mjcam.scoring.tiles import FLOWERS, SEASONS
from mjcam.vision.classify import DEFAULT_MODEL, TileClassifier

BONUS = set(FLOWERS + SEASONS)


#: the photo turned a quarter, a half and three quarters (``--turns``): where its tiles then stand
#: sideways or upside down
TURNS = ("upright", "quarter turn", "half turn", "three quarters")


def turned(image: np.ndarray, boxes, quarters: int):
    """The photo turned ``quarters`` quarter turns anticlockwise, and its boxes turned with it.

    >>> im = np.zeros((2, 3, 3), np.uint8); im[0, 2] = 9  # top right
    >>> t, b = turned(im, [(2, 0, 3, 1)], 1)
    >>> int(t[0, 0, 0]), b  # now top left
    (9, [(0, 0, 1, 1)])
    >>> t, b = turned(im, [(2, 0, 3, 1)], 2)
    >>> int(t[1, 0, 0]), b  # bottom left
    (9, [(0, 1, 1, 2)])
    """
    h, w = image.shape[:2]
    boxes = list(boxes)
    for _ in range(quarters % 4):  # (x, y) goes to (y, w - x)
        boxes = [(y1, w - x2, y2, w - x1) for x1, y1, x2, y2 in boxes]
        w, h = h, w
    return np.ascontiguousarray(np.rot90(image, quarters)), boxes


def read_all(clf: TileClassifier, records, quarters: int = 0) -> list[tuple[str, tuple[str, ...]]]:
    """(code read, labelled codes) of every labelled tile of ``records`` (each photo turned
    ``quarters`` quarter turns first)."""
    out = []
    for r in records:
        tiles = r.tiles()
        if not tiles:
            continue
        image, boxes = turned(load_rgb(r.path), [box for box, _ in tiles], quarters)
        labels = clf.classify_boxes(image, boxes)
        out += [(lab.code, codes) for lab, (_, codes) in zip(labels, tiles)]
    return out


def figure(reads, only=None) -> str:
    sel = [(c, codes) for c, codes in reads if only is None or set(codes) & only]
    if not sel:
        return "-"
    right = sum(c in codes for c, codes in sel)
    return f"{right / len(sel):.4f} ({right}/{len(sel)})"


def hand_time(clf: TileClassifier, repeats: int = 30) -> float:
    """Median seconds to classify the 14 tiles of a hand laid in a row on a 1600x400 photo."""
    rng = np.random.default_rng(0)
    image = rng.integers(0, 255, (400, 1600, 3), dtype=np.uint8)
    boxes = [(40 + 100 * i, 100, 130 + 100 * i, 220) for i in range(14)]
    clf.classify_boxes(image, boxes)  # (loads the model)
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        clf.classify_boxes(image, boxes)
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.classifier_heldout", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--model", default=DEFAULT_MODEL, help="the classifier to judge (default: the shipped one)")
    ap.add_argument("--baseline", help="another classifier file to read beside it")
    ap.add_argument("--limit", type=int, help="at most this many photos of each set")
    ap.add_argument("--turns", action="store_true",
                    help="only the HK valid tiles, read with the photo upright and turned a quarter, a half "
                         "and three quarters (tiles lying sideways, upside down)")
    ap.add_argument("--tuning", action="store_true",
                    help="the tuning photos instead (HK train's and rethink-bonus's tuning shares, which choose the "
                         "classifier's epoch): for choosing settings without looking at the held-out tiles")
    ap.add_argument("--part-labels", choices=("whole", "as-labelled"), default="whole",
                    help="rethink-bonus's flowers and seasons, labelled round part of the tile: read as the whole "
                         "tile's box the shipped detector draws round each (default), or as labelled")
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "mjcam-heldout"),
                    help="where the shipped detector's boxes of the rethink-bonus photos are kept between runs")
    a = ap.parse_args(argv)
    s = split(a.data)
    if a.tuning:
        tune = whole_tiled(s.rethink_tune, a.work) if a.part_labels == "whole" else s.rethink_tune
        sets = {"HK tuning": s.hk_tune, "rethink tuning": tune}
        for name, clf in {"mjcam": TileClassifier(a.model), **(
                {"baseline": TileClassifier(a.baseline)} if a.baseline else {})}.items():
            reads = {k: read_all(clf, v) for k, v in sets.items()}
            both = reads["HK tuning"] + reads["rethink tuning"]
            print(name, "  ".join(f"{k}: {figure(v)}" for k, v in reads.items()),
                  f" flowers/seasons: {figure(both, BONUS)}")
        return
    if a.part_labels == "whole":
        s = replace(s, rethink_test=whole_tiled(s.rethink_test, a.work), unseen_set=whole_tiled(s.unseen_set, a.work))
    valid = mended(s.hk_valid)
    sets = {
        "HK valid": [r for r in valid if roboflow_subset(r.path) == "hk"],
        "rethink test": s.rethink_test,
        "unseen set": s.unseen_set,
        "valid, Japanese set": [r for r in valid if roboflow_subset(r.path) == "japanese"],
        "valid, screenshots": [r for r in valid if roboflow_subset(r.path) == "screenshot"],
    }
    if a.limit:
        sets = {k: v[:a.limit] for k, v in sets.items()}
    systems = {"mjcam": TileClassifier(a.model)}
    if a.baseline:
        systems["baseline"] = TileClassifier(a.baseline)
    if a.turns:
        print("HK valid tiles, the photo turned:")
        for name, clf in systems.items():
            print(name, "  ".join(f"{t}: {figure(read_all(clf, sets['HK valid'], q))}" for q, t in enumerate(TURNS)))
        return
    rows = {}
    for name, clf in systems.items():
        reads = {k: read_all(clf, v) for k, v in sets.items()}
        held = reads["HK valid"] + reads["rethink test"] + reads["unseen set"]
        rows[name] = [figure(reads[k]) for k in sets] + [figure(held, BONUS), figure(held),
                                                        f"{hand_time(clf) * 1000:.1f} ms"]
    heads = list(sets) + ["flowers/seasons (first three)", "all (first three)", "14-tile hand"]
    width = max(len(h) for h in heads)
    print(f"{'':{width}}  " + "  ".join(f"{n:>22}" for n in rows))
    for i, h in enumerate(heads):
        print(f"{h:{width}}  " + "  ".join(f"{rows[n][i]:>22}" for n in rows))
    if "baseline" in rows:
        t = [float(rows[n][-1].split()[0]) for n in ("mjcam", "baseline")]
        print(f"time ratio mjcam / baseline: {t[0] / t[1]:.2f}")


if __name__ == "__main__":
    main()
