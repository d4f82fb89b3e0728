"""Find Roboflow training copies that were flipped left-to-right (mirrored characters).

    python -m models.find_mirrored --model /tmp/v0.onnx --data ../shared/data --out mirrored.txt

A model trained on the mix reads a real photo's tiles better as they are than mirrored; on a
mirrored copy it is the other way round. For each training image the mean log-probability of
the labelled codes is compared as-is and flipped back; an image whose tiles read clearly better
flipped (by ``--margin`` nats per tile, over at least 3 tiles) is listed.
"""

from __future__ import annotations

import argparse
import os

import numpy as np

from datasets.crops import load_rgb
from datasets.readers import read_yolo
from vision.classify import TileClassifier
from vision.labels import CLASS_INDEX
from vision.preprocess import prepare


def mirrored_scores(clf: TileClassifier, recs) -> list[tuple[str, float, int]]:
    out = []
    for rec in recs:
        if len(rec.boxes) < 3:
            continue
        img = load_rgb(rec.path)
        flipped = img[:, ::-1].copy()
        w = img.shape[1]
        ys = np.array([CLASS_INDEX[b.code] for b in rec.boxes])
        a = np.stack([prepare(img, b.box) for b in rec.boxes])
        b = np.stack([prepare(flipped, (w - x2, y1, w - x1, y2)) for x1, y1, x2, y2 in (bb.box for bb in rec.boxes)])
        pa = clf.probabilities(a)[np.arange(len(ys)), ys]
        pb = clf.probabilities(b)[np.arange(len(ys)), ys]
        gain = float(np.mean(np.log(pb + 1e-6) - np.log(pa + 1e-6)))
        out.append((os.path.basename(rec.path), gain, len(ys)))
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--out", default="mirrored.txt")
    ap.add_argument("--margin", type=float, default=1.0)
    a = ap.parse_args(argv)
    clf = TileClassifier(a.model, threads=2)
    scores = mirrored_scores(clf, read_yolo(os.path.join(a.data, "roboflow-hk-chinese"), "train"))
    hits = sorted((s for s in scores if s[1] > a.margin), key=lambda s: -s[1])
    with open(a.out, "w") as fh:
        fh.write("\n".join(h[0] for h in hits) + "\n")
    gains = np.array([s[1] for s in scores])
    print(f"{len(scores)} images scored; {len(hits)} read better mirrored by > {a.margin} nats/tile "
          f"(median gain {np.median(gains):+.2f}); listed in {a.out}")


if __name__ == "__main__":
    main()
