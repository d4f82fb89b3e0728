"""Tiles seen at an angle: faces lying up, squashed down the photo as a seat 20–60° above the table
sees them, read by the recogniser.

    python -m benchmarks.foreshortened [--data ../shared/data] [--model X.onnx] [--baseline Y.onnx]
        [--squash 1.0,0.8,0.65,0.5] [--per 6] [--photos held-out|tuning] [--json FILE]

Tiles: crops of real tiles from the photos no model was trained or tuned on (the rethink-bonus
test photos and the unseen set: :func:`datasets.scenes.face_bank`, as ``benchmarks.hand_eval``
draws its rendered hands from), up to ``--per`` of each of the 42 tiles; with ``--photos tuning``,
from the photos that choose the classifier's epoch instead (HK train's and rethink-bonus's tuning
shares: never trained on, so that training settings can be chosen there without looking at the
held-out crops). Each crop is
laid five times side by side on a table cloth, 58 px wide, its height its own shape's times the
squash (1.0: seen from straight above; 0.5: from about 30° above the table), and the picture is
read end to end (found and read). Printed per squash: tiles read right (a row's tiles read as its
code, at most five), rows read exactly (five tiles, all right), and the classifier alone on the
true boxes (``classify_boxes``, the detector left out); flowers and seasons apart. Each classifier
(``--model``, default the shipped one; ``--baseline``) reads the same pictures, one after the other
in this process.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import cv2
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WIDTH = 58  # a tile's width in the picture, pixels (a phone photo of a hand at 1,600 px)
ROW = 5


def scenes(bank: dict, squash: float, per: int, seed: int = 0):
    """(code, picture, true boxes) of each row of five: crop ``k`` of each code, squashed."""
    from datasets.synthetic import table_background

    out = []
    for ci, code in enumerate(sorted(bank)):
        for k, crop in enumerate(bank[code][:per]):
            h = max(8, int(round(WIDTH * crop.shape[0] / crop.shape[1] * squash)))
            tile = cv2.resize(crop, (WIDTH, h), interpolation=cv2.INTER_AREA)
            rng = np.random.default_rng((seed, ci, k))
            canvas = table_background(rng, 220, 420)
            y, boxes = 60, []
            for j in range(ROW):
                x = 40 + j * (WIDTH + 2)
                canvas[y:y + h, x:x + WIDTH] = tile
                boxes.append((x, y, x + WIDTH, y + h))
            out.append((code, canvas, boxes))
    return out


def measure(model: str | None, rows_by_squash: dict) -> dict:
    """Each squash's figures read by the classifier at ``model`` (None: the shipped one)."""
    from mjcam.scoring.tiles import FLOWERS, SEASONS
    from mjcam.vision.classify import TileClassifier
    from mjcam.vision.pipeline import Recognizer

    bonus = set(FLOWERS + SEASONS)
    clf = TileClassifier(model) if model else TileClassifier()
    rec = Recognizer(classifier=clf)
    figures = {}
    for squash, rows in rows_by_squash.items():
        f = dict(tiles=0, right=0, rows=0, exact=0, bonus_tiles=0, bonus_right=0, boxes_right=0, bonus_boxes_right=0)
        for code, canvas, boxes in rows:
            codes = [t.code for t in rec.read(canvas).tiles]
            right = min(ROW, sum(c == code for c in codes))
            by_box = sum(lab.code == code for lab in clf.classify_boxes(canvas, boxes))
            f["tiles"] += ROW
            f["right"] += right
            f["rows"] += 1
            f["exact"] += len(codes) == ROW and right == ROW
            f["boxes_right"] += by_box
            if code in bonus:
                f["bonus_tiles"] += ROW
                f["bonus_right"] += right
                f["bonus_boxes_right"] += by_box
        figures[str(squash)] = f
    return figures


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.foreshortened", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--model", help="the classifier to read with (default: the shipped one)")
    ap.add_argument("--baseline", help="another classifier read beside it")
    ap.add_argument("--squash", default="1.0,0.8,0.65,0.5", help="the faces' heights, times their own shape's")
    ap.add_argument("--per", type=int, default=6, help="crops of each tile (different photos where there are)")
    ap.add_argument("--photos", choices=("held-out", "tuning"), default="held-out",
                    help="the crops' photos: held-out (rethink test and the unseen set; the figures) or tuning "
                         "(HK train's and rethink-bonus's tuning shares; for choosing settings)")
    ap.add_argument("--json", help="write the figures here")
    a = ap.parse_args(argv)
    from datasets.scenes import face_bank
    from datasets.splits import split

    s = split(a.data)
    records = s.rethink_test + s.unseen_set if a.photos == "held-out" else s.hk_tune + s.rethink_tune
    bank = face_bank(records, per_code=a.per)
    bank = {c: v for c, v in bank.items() if c not in ("back", "not-a-tile")}
    rows = {float(q): scenes(bank, float(q), a.per) for q in a.squash.split(",")}
    print(f"{a.photos} photos: {len(bank)} tiles, {sum(len(v[:a.per]) for v in bank.values())} crops; rows of {ROW}", flush=True)
    results = {}
    for name, model in (("model", a.model), ("baseline", a.baseline)):
        if name == "baseline" and not model:
            continue
        t = time.time()
        results[name] = {"file": model or "shipped", "figures": measure(model, rows)}
        print(f"{name} ({model or 'shipped'}), {time.time() - t:.0f} s", flush=True)
    print(f"{'squash':>6} {'classifier':<12} {'read right':>18} {'rows exact':>12} {'flowers/seasons':>18} "
          f"{'on true boxes':>18} {'f/s on boxes':>14}")
    for q in rows:
        for name, r in results.items():
            f = r["figures"][str(q)]
            print(f"{q:>6} {name:<12} {f['right']:>6} of {f['tiles']:<4} {f['right'] / f['tiles']:6.1%} "
                  f"{f['exact']:>4} of {f['rows']:<4} {f['bonus_right']:>5} of {f['bonus_tiles']:<4} "
                  f"{f['bonus_right'] / max(1, f['bonus_tiles']):5.1%} {f['boxes_right']:>6} "
                  f"{f['boxes_right'] / f['tiles']:6.1%}    {f['bonus_boxes_right']:>4} of {f['bonus_tiles']}")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(results, fh, indent=1)


if __name__ == "__main__":
    main()
