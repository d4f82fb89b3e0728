"""Tiles of tile art no shipped model trained on, read by the classifier and a bonus reader: a
check of how a reader copes with tile sets it has never seen, for choosing between readers (the
held-out photos show only the training photos' tile family).

    python -m models.unseen_art models/bonus_reader.onnx /tmp/candidate.onnx [--per-face 30] [--classifier X.onnx]
    python -m models.unseen_art --tiles all --per-face 10 [--classifier X.onnx [--quick Y.onnx]]  # every tile

Art: KDE's ``jade`` set (white art on a green jade face: numbered plants, seasons with 春夏秋冬;
Debian ``kdegames-mahjongg-data-kf5``), GNOME Mahjongg's ``smooth`` (梅蘭菊竹 and 春夏秋冬 in
frames) and ``postmodern`` (numbered plants and weather; Debian ``gnome-mahjongg``), rendered by
the system Python's librsvg into a cache outside the repository. Each face (the eight bonus tiles, or
with ``--tiles all`` all 42 of each set) is drawn ``--per-face`` times on a tile body on a table
(seeded), now and then blurred, and JPEG-compressed. Printed per reader and set: the share the
whole classification stage reads right (and of it the bonus tiles), and the share the reader
alone reads right among the eight bonus tiles.

With ``--tiles all`` the stage also reads the tiles of xmahjongg's ``real`` set (a scan of a real
Hong Kong set) and ``dorothys`` (Debian ``xmahjongg``; :mod:`datasets.xmahjongg_tiles`): each tile
cut whole from its sheet and pasted on a table ``--per-face`` times, scaled, tilted a few degrees,
lit brighter or darker, a quarter of them lying sideways as a claimed tile lies, now and then
blurred, JPEG-compressed. Printed apart from the rendered sets (their figure stays comparable),
upright and sideways apart.
"""

from __future__ import annotations

import argparse
import os
from collections import Counter

import cv2
import numpy as np

from datasets.gnome_faces import gnome_faces
from datasets.synthetic import ART_CACHE, _body, _paste, art_face, kde_sets, table_background
from datasets.xmahjongg_tiles import xmahjongg_tiles
from mjcam.scoring.tiles import CODES, FLOWERS, SEASONS
from mjcam.vision.classify import TileClassifier, quick_choice

BONUS = FLOWERS + SEASONS
JADE_FACE = (40, 130, 90)


def unseen_faces(cache: str = os.path.join(ART_CACHE, "unseen"),
                 codes: tuple[str, ...] = BONUS) -> dict[str, dict[str, np.ndarray]]:
    """``{set: {code: RGBA face}}`` of the tiles ``codes`` of the sets named above that are installed."""
    out: dict[str, dict[str, np.ndarray]] = {}
    for name, faces in kde_sets(cache, ("jade",)).items():
        out[name] = {c: faces[c] for c in codes}
    for theme, faces in gnome_faces(os.path.join(ART_CACHE, "gnome")).items():
        if all(c in faces for c in codes):
            out[theme] = {c: faces[c] for c in codes}
    return out


def _photographed(canvas: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A render as a camera gives it: blurred half the time, JPEG-compressed at quality 60-95."""
    if rng.random() < 0.5:
        canvas = cv2.GaussianBlur(canvas, (0, 0), rng.uniform(0.3, 1.2))
    _, enc = cv2.imencode(".jpg", canvas, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(60, 95))])
    return cv2.imdecode(enc, cv2.IMREAD_UNCHANGED)


def render(faces: dict[str, dict[str, np.ndarray]], per_face: int, seed: int = 5):
    """``(set, code, picture, box)`` for each render (RGB pictures, the tile's box)."""
    rng = np.random.default_rng(seed)
    out = []
    for name, art in faces.items():
        for code in art:
            for _ in range(per_face):
                h = int(rng.integers(60, 180))
                # jade's white art on its own green face, not on ivory
                ground = np.array(JADE_FACE) + rng.normal(0, 10, 3) if name == "jade" else None
                face = art_face(code, rng, art, h, indexed=False, ground=ground)
                tile = _body(face, rng)
                th, tw = tile.shape[:2]
                canvas = table_background(rng, th * 3, tw * 4)
                box = _paste(canvas, tile, tw * 3 // 2, th)
                out.append((name, code, _photographed(canvas, rng), box))
    return out


def render_whole(tiles: dict[str, dict[str, np.ndarray]], per_tile: int, seed: int = 7):
    """``(set, code, picture, box, sideways)`` for each render of whole tiles (RGB pictures)."""
    rng = np.random.default_rng(seed)
    out = []
    for name, art in tiles.items():
        for code, tile in art.items():
            for _ in range(per_tile):
                h = int(rng.integers(50, 140))
                shrink = cv2.INTER_AREA if h < tile.shape[0] else cv2.INTER_CUBIC
                t = cv2.resize(tile, (max(8, round(tile.shape[1] * h / tile.shape[0])), h), interpolation=shrink)
                sideways = rng.random() < 0.25
                if sideways:  # a claimed tile, turned a quarter either way
                    t = np.ascontiguousarray(np.rot90(t, 1 if rng.random() < 0.5 else -1))
                t = np.clip(t.astype(np.float32) * rng.uniform(0.75, 1.15) + rng.normal(0, 6, 3), 0, 255)
                th, tw = t.shape[:2]
                H, W = th * 3, tw * 3
                canvas = table_background(rng, H, W).astype(np.float32)
                angle = rng.uniform(-5, 5)
                m = cv2.getRotationMatrix2D((tw / 2, th / 2), angle, 1.0)
                m[:, 2] += (W - tw) / 2, (H - th) / 2
                warped = cv2.warpAffine(t, m, (W, H), flags=cv2.INTER_LINEAR)
                mask = cv2.warpAffine(np.ones((th, tw), np.float32), m, (W, H), flags=cv2.INTER_LINEAR)[..., None]
                canvas = (canvas * (1 - mask) + warped * mask).astype(np.uint8)
                ys, xs = np.nonzero(mask[..., 0] > 0.5)
                box = (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)
                out.append((name, code, _photographed(canvas, rng), box, sideways))
    return out


def read_whole(stage: TileClassifier, items) -> None:
    """Print the stage's right readings of :func:`render_whole`'s tiles, per set, upright and sideways."""
    right, total, wrong, flagged = Counter(), Counter(), Counter(), Counter()
    for name, code, picture, box, sideways in items:
        label = stage.classify_boxes(picture, [box])[0]
        got = label.code
        for k in (name, (name, sideways), "whole", ("whole", sideways)):
            total[k] += 1
            right[k] += got == code
        if got != code:
            wrong[(name, code, got)] += 1
            flagged[name] += label.low_confidence
            flagged["whole"] += label.low_confidence
    print(f"  tiles cut whole (xmahjongg): {right['whole'] / total['whole']:.1%} of {total['whole']} "
          f"(upright {right[('whole', False)]}/{total[('whole', False)]}, "
          f"sideways {right[('whole', True)]}/{total[('whole', True)]}); "
          f"{flagged['whole']} of the {total['whole'] - right['whole']} wrong flagged for a person")
    for name in dict.fromkeys(i[0] for i in items):
        worst = ", ".join(f"{c}→{g} {n}" for (s, c, g), n in wrong.most_common() if s == name)
        print(f"    {name}: {right[name]}/{total[name]} (upright {right[(name, False)]}/{total[(name, False)]}, "
              f"sideways {right[(name, True)]}/{total[(name, True)]}); wrong flagged {flagged[name]}; "
              f"misread: {worst[:400]}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("readers", nargs="*", default=["models/bonus_reader.onnx"],
                    help="bonus reader ONNX files (default: the shipped one)")
    ap.add_argument("--per-face", type=int, default=30)
    ap.add_argument("--classifier", help="the tile classifier of the stage (default: the shipped one)")
    ap.add_argument("--quick", default="auto",
                    help="the quick network that reads every crop first ('auto': the shipped one with the shipped "
                         "classifier, else none; 'none'; or a file)")
    ap.add_argument("--tiles", choices=("bonus", "all"), default="bonus",
                    help="the eight flowers and seasons (for bonus readers) or all 42 tiles (for classifiers)")
    a = ap.parse_args(argv)
    faces = unseen_faces(codes=BONUS if a.tiles == "bonus" else CODES)
    if not faces:
        raise SystemExit("no unseen tile art installed (apt-get install kdegames-mahjongg-data-kf5 gnome-mahjongg "
                         "python3-gi python3-gi-cairo gir1.2-rsvg-2.0)")
    items = render(faces, a.per_face)
    whole = render_whole(xmahjongg_tiles(), a.per_face) if a.tiles == "all" else []
    for path in a.readers:
        reader = TileClassifier(path, bonus=None, turn_below=1.0)
        stage = TileClassifier(a.classifier, bonus=reader, quick=quick_choice(a.quick))
        right, alone, total = Counter(), Counter(), Counter()  # bonus tiles also under (set, "bonus")
        for name, code, picture, box in items:
            keys = [name, "all"] + ([(name, "bonus"), "bonus"] if code in BONUS else [])
            got = stage.classify_boxes(picture, [box])[0].code == code
            for k in keys:
                total[k] += 1
                right[k] += got
            if code in BONUS:
                q = reader.box_probabilities(picture, [box])[0]  # among the eight (a reader may have an 'other' too)
                got = max(BONUS, key=lambda c: q[reader.classes.index(c)]) == code
                alone[name] += got
                alone["bonus"] += got
        print(f"{path}: stage {right['all'] / total['all']:.1%} of {total['all']} "
              f"(bonus tiles {right['bonus'] / total['bonus']:.1%}), "
              f"reader among the eight {alone['bonus'] / total['bonus']:.1%} of {total['bonus']}")
        for k in faces:  # per set: the stage's right readings (of its bonus tiles), the reader alone's
            print(f"  {k}: stage {right[k]}/{total[k]}"
                  + (f" (bonus tiles {right[(k, 'bonus')]})" if a.tiles == "all" else "")
                  + f", reader alone {alone[k]}/{total[(k, 'bonus')]}")
        if whole:
            read_whole(stage, whole)


if __name__ == "__main__":
    main()
