"""Pictures of one tile, framed tightly or loosely: what ``mjcam classify`` reads.

    python -m benchmarks.classify_framed --data ../shared/data [--photos valid|held-out]
        [--frames 1,1.5,2,3,5] [--seed 0] [--limit N]
    python -m benchmarks.classify_framed --data ../shared/data --camerash

A person photographing one tile seldom crops it to its edges: the tile sits in the middle of the
picture with the table (and perhaps the tiles beside it) around it. From each labelled tile of
the photos (default: the HK photos of the valid split, stretched ones left out; ``--photos
held-out``: the training photos the models held out) a picture is cut ``K`` times the tile's long
side wide and 0.8 times that tall, centred on the tile (moved a little, seeded), for each ``K`` of
``--frames`` (``1``: the labelled box itself). Each picture is read two ways:

- *whole picture*: the picture is the tile's box (``TileClassifier.classify_image``, what
  ``mjcam classify`` did before it looked for the tile);
- *as classify reads it*: ``Recognizer.read_one`` — the tile found nearest the centre is read as
  well and kept where it is surer (``vision.pipeline.ONE_TILE_MARGIN`` and what follows it).

A reading is right when its code is one of the tile's labelled codes. ``--camerash``: the
Camerash crops (tight catalogue pictures of many tile sets, its four wrong labels left out) read
both ways.
"""

from __future__ import annotations

import argparse
import os
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def framing(box, k: float, width: int, height: int, shift: tuple[float, float] = (0.0, 0.0)) -> tuple[int, int, int, int]:
    """The picture ``(x1, y1, x2, y2)`` of one tile framed ``k`` times its long side wide and 0.8 of
    that tall, its centre moved off the tile's by ``shift`` (fractions of the tile's width and
    height), cut to the photo's ``width`` x ``height``; ``k`` <= 1: the tile's box itself.

    >>> framing((100, 100, 130, 140), 3, 640, 640)
    (55, 72, 175, 168)
    """
    x1, y1, x2, y2 = box
    w, h = x2 - x1, y2 - y1
    if k > 1:
        s = k * max(w, h)
        cx, cy = (x1 + x2) / 2 + shift[0] * w, (y1 + y2) / 2 + shift[1] * h
        x1, y1, x2, y2 = cx - s / 2, cy - 0.4 * s, cx + s / 2, cy + 0.4 * s
    return int(max(0, x1)), int(max(0, y1)), int(min(width, x2)), int(min(height, y2))


def pictures(records, frames: list[float], seed: int):
    """``(k, picture, codes)`` for each labelled tile of each record and each frame factor ``k``."""
    import cv2
    import numpy as np

    rng = np.random.default_rng(seed)
    for r in records:
        img = cv2.cvtColor(cv2.imread(r.path, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
        H, W = img.shape[:2]
        for box, codes in r.tiles():
            if box[2] - box[0] < 8 or box[3] - box[1] < 8:
                continue
            for k in frames:
                shift = (rng.uniform(-0.15, 0.15), rng.uniform(-0.15, 0.15)) if k > 1 else (0.0, 0.0)
                a, b, c, d = framing(box, k, W, H, shift)
                if c - a >= 4 and d - b >= 4:
                    yield k, img[b:d, a:c], codes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--photos", choices=("valid", "held-out"), default="valid")
    ap.add_argument("--frames", default="1,1.5,2,3,5", help="picture sizes, in tile sizes (default 1,1.5,2,3,5)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the pictures' placement (default 0)")
    ap.add_argument("--limit", type=int, help="only the first N photos")
    ap.add_argument("--camerash", action="store_true", help="the Camerash crops instead")
    args = ap.parse_args(argv)

    from datasets.readers import held_out_sources, read_crop_csv, read_yolo, roboflow_subset
    from mjcam.vision.classify import TileClassifier
    from mjcam.vision.io import load_image
    from mjcam.vision.pipeline import Recognizer

    clf = TileClassifier()
    rec = Recognizer(classifier=clf)
    if args.camerash:
        items = [(1.0, load_image(path), (code,)) for path, code in read_crop_csv(os.path.join(args.data, "camerash-tiles"))]
        print(f"Camerash crops: {len(items)}")
    else:
        root = os.path.join(args.data, "roboflow-hk-chinese")
        if args.photos == "valid":
            recs = [r for r in read_yolo(root, "valid") if roboflow_subset(r.path) == "hk" and not r.stretched]
        else:
            recs = read_yolo(root, "train")
            held = held_out_sources(recs, 0.1, 1)
            recs = [r for r in recs if r.source in held and r.boxes]
        recs = recs[:args.limit] if args.limit is not None else recs
        frames = [float(f) for f in args.frames.split(",")]
        items = pictures(recs, frames, args.seed)
        print(f"{args.photos} photos: {len(recs)}, pictures {args.frames} tile sizes wide, seed {args.seed}")
    n, whole, found, boxed = {}, {}, {}, {}
    t0 = time.perf_counter()
    for k, pic, codes in items:
        n[k] = n.get(k, 0) + 1
        whole[k] = whole.get(k, 0) + (clf.classify_image(pic).code in codes)
        label, box = rec.read_one(pic)
        found[k] = found.get(k, 0) + (label.code in codes)
        boxed[k] = boxed.get(k, 0) + (box is not None)
    dt = time.perf_counter() - t0
    if not n:
        raise SystemExit("no pictures to read")
    print(f"{'picture':>10} {'pictures':>9} {'whole picture':>15} {'as classify reads it':>22} {'read from a box':>16}")
    for k in sorted(n):
        print(f"{k:>8g}x  {n[k]:>9} {whole[k] / n[k]:>15.1%} {found[k] / n[k]:>22.1%} {boxed[k] / n[k]:>16.1%}")
    total = sum(n.values())
    print(f"{'all':>10} {total:>9} {sum(whole.values()) / total:>15.1%} {sum(found.values()) / total:>22.1%}"
          f" {sum(boxed.values()) / total:>16.1%}   ({dt / max(1, total) * 1000:.0f} ms a picture, both ways)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
