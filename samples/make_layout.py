"""How ``hand-layout.jpg`` was made: a hand laid out as mjcam reads it best, from real tile photos.

    python -m samples.make_layout --data DATA [--out samples/hand-layout.jpg]

DATA is the folder holding the Roboflow "Chinese Mahjong Detection" set (``roboflow-hk-chinese``,
CC BY 4.0). Its valid photos ``hand_017`` to ``hand_020`` show every tile of one set: each tile
is cut out of them (by its labelled box) and laid out on a plain wooden table, in one row as a
player shows a winning hand: the concealed sets, a melded chow
and pung (one claimed tile of each turned sideways), a concealed kong (its end tiles face down),
the bonus tiles, and the winning tile set apart at the end. The labels of the tiles laid out are
printed as ``samples/labels.json`` keeps them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import cv2
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: the hand: [345m] [777p] {RdRdRdRd} 234s 9p F2 S2 +9p (South's flower and season)
GROUPS = [("concealed", ["2s", "3s", "4s", "9p"], False), ("chow", ["3m", "4m", "5m"], True),
          ("pung", ["7p", "7p", "7p"], True), ("concealed_kong", ["Rd", "Rd", "Rd", "Rd"], False),
          ("bonus", ["F2", "S2"], False), ("concealed", ["9p"], False)]
HAND = "[345m] [777p] {RdRdRdRd} 234s 9p F2 S2 +9p"
SOURCES = ("hand_017", "hand_018", "hand_019", "hand_020")  # characters, dots, bamboo, honours and bonus
SEED = 3


def tile_pictures(data: str) -> dict[str, np.ndarray]:
    """One picture of each tile, cut out of the valid photos that show the whole set."""
    from datasets.readers import mended, read_yolo

    recs = mended([r for r in read_yolo(os.path.join(data, "roboflow-hk-chinese"), "valid")
                   if os.path.basename(r.path).startswith(SOURCES)])
    out = {}
    for r in recs:
        image = cv2.cvtColor(cv2.imread(r.path), cv2.COLOR_BGR2RGB)
        for b in r.boxes:
            x1, y1, x2, y2 = (int(round(v)) for v in b.box)
            out.setdefault(b.code, image[max(0, y1):y2, max(0, x1):x2].copy())
    return out


BACK = (25, 70, 150)  # the set's back colour: a face-down tile of the concealed kong
TABLE = (178, 142, 102)  # a wooden table


def lay_out(tiles: dict[str, np.ndarray], seed: int, th: int = 120) -> tuple[np.ndarray, list]:
    """The tiles of ``GROUPS`` in one row on a wooden table: (RGB picture, labels as ``[code, x1, y1, x2, y2]``)."""
    rng = np.random.default_rng(seed)
    tw = int(th * 0.75)
    placed = []  # (picture, code)
    for kind, codes, melded in GROUPS:
        sideways = {"chow": 0, "pung": 1}.get(kind) if melded else None  # the claimed tile, from its discarder
        for k, code in enumerate(codes):
            if kind == "concealed_kong" and k in (0, len(codes) - 1):
                pic = np.empty((th, tw, 3), np.uint8)
                pic[:] = BACK
                shade = np.linspace(1.08, 0.92, tw)[None, :, None]
                pic = np.clip(pic * shade, 0, 255).astype(np.uint8)
                rim = max(2, th // 30)  # the ivory of the tile's body around its back, thicker below
                pic[:rim], pic[:, :rim], pic[:, -rim:] = (236, 232, 220), (236, 232, 220), (236, 232, 220)
                pic[-max(3, th // 10):] = (236, 232, 220)
                code = "back"
            else:
                pic = cv2.resize(tiles[code], (tw, th), interpolation=cv2.INTER_AREA)
            if k == sideways:
                pic = cv2.rotate(pic, cv2.ROTATE_90_COUNTERCLOCKWISE)
            placed.append((pic, code))
        placed.append((None, None))  # a gap between sets
    width = sum(tw * 0.6 if p is None else p.shape[1] + 2 for p, _ in placed) + 2 * tw
    W, H = int(width), int(th * 3.2)
    noise = cv2.GaussianBlur(rng.normal(0, 1, (H, W)).astype(np.float32), (0, 0), 2.5)
    canvas = np.clip(np.array(TABLE, np.float32)[None, None] * (1 + 0.06 * noise[..., None]), 0, 255)
    canvas *= np.linspace(1.06, 0.94, H)[:, None, None]  # light from the top of the table
    canvas = canvas.astype(np.uint8)
    x, base = tw, int(H * 0.62)
    labels = []
    for pic, code in placed[:-1]:
        if pic is None:
            x += int(tw * 0.6)
            continue
        h, w = pic.shape[:2]
        y = base - h
        shadow = canvas[y + 4:y + h + 5, x + 3:x + w + 3]
        shadow[:] = (shadow * 0.65).astype(np.uint8)
        canvas[y:y + h, x:x + w] = pic
        labels.append([code, float(x), float(y), float(x + w), float(y + h)])
        x += w + 2
    canvas = cv2.GaussianBlur(canvas, (0, 0), 0.7)  # a phone camera's softness
    return canvas, labels


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", default=os.path.join(ROOT, "samples", "hand-layout.jpg"))
    ap.add_argument("--seed", type=int, default=SEED)
    args = ap.parse_args(argv)
    image, labels = lay_out(tile_pictures(args.data), args.seed)
    cv2.imwrite(args.out, cv2.cvtColor(image, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 90])
    print(json.dumps({os.path.basename(args.out): labels}))
    print(f"{args.out}: {HAND}", file=sys.stderr)


if __name__ == "__main__":
    main()
