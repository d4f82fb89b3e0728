"""Close-ups: one tile, or a few, filling much of a phone photo, each read once?

    python -m benchmarks.closeup_eval [--sets real dorothys] [--samples] [--few]

Two kinds of close-up, none of them seen in training:

- ``--sets``: each tile of a scanned set that ships with xmahjongg (``apt-get install xmahjongg``;
  no model trained on these sets) laid alone by the renderer (``datasets.synthetic.render_hand``),
  1,000 to 1,240 px tall in a photo about 3,300 px long: every other tile of the set, 21 or so;
- ``--samples``: each tile of the four sample photos cut out, laid on a cloth with a margin of a
  third of a tile, and enlarged to fill 60 % and 90 % of a 12 MP frame (blurred: the tiles are
  40 to 70 px in the samples).

``--few`` adds close-ups of a few tiles side by side: twelve rows of 2, 3 or 4 tiles drawn from
each xmahjongg set, as tall as a phone's frame allows; and 2, 3 and 5 neighbouring tiles of the
samples (every third start) filling 60 % and 90 % of the frame.

Printed for each kind: the close-ups read exactly (as many tiles as they show, the right codes,
left to right), and those that are not, with what was read (code, confidence, detection score),
so that a tile split into parts or misread can be seen.
"""

from __future__ import annotations

import argparse
import os

import cv2
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def set_closeups(names: list[str], few: bool = False):
    """(label, picture, codes) of xmahjongg's sets ``names``: single tiles (every other one), or
    with ``few`` twelve rows of 2 to 4 tiles a set, drawn at random (seeded)."""
    from datasets.synthetic import render_hand
    from datasets.xmahjongg_tiles import xmahjongg_tiles
    from mjcam.scoring.tiles import CODES, N_PLAYABLE

    art = xmahjongg_tiles()
    missing = [n for n in names if n not in art]
    if missing:
        raise SystemExit(f"xmahjongg's {', '.join(missing)} not installed (apt-get install xmahjongg)")
    codes = list(CODES[:N_PLAYABLE]) + ["F1", "S2"]
    rng = np.random.default_rng(1)
    for name in names:
        if few:
            playable = [c for c in CODES[:N_PLAYABLE] if c in art[name]]
            rows = [[playable[i] for i in rng.choice(len(playable), 2 + k % 3, replace=False)] for k in range(12)]
        else:
            rows = [[c] for c in codes[::2] if c in art[name]]
        for k, row in enumerate(rows):
            height = 1000 + 60 * (k % 5) if len(row) == 1 else min(1100, int(3000 / (0.75 * len(row) + 1)))
            hand = render_hand([("concealed", row, False)], seed=k, tile_height=height, perspective=0.03,
                               tiles=art[name], aspect=0.75)
            yield f"{name} {' '.join(row)}", hand.image, row


def sample_closeups(count: int = 1, every: int = 1):
    """(label, picture, codes) of ``count`` neighbouring tiles of the sample photos (each ``every``
    th start) enlarged to fill a 12 MP frame."""
    import json

    from mjcam.vision.io import load_photo

    with open(os.path.join(ROOT, "samples", "labels.json")) as fh:
        labels = json.load(fh)
    rng = np.random.default_rng(0)
    for name, tiles in labels.items():
        photo, _ = load_photo(os.path.join(ROOT, "samples", name))
        tiles = sorted(tiles, key=lambda t: t[1])
        for k in range(0, len(tiles) - count + 1, every):
            row = tiles[k:k + count]
            x1, y1 = (round(min(t[i] for t in row)) for i in (1, 2))
            x2, y2 = (round(max(t[i] for t in row)) for i in (3, 4))
            part = photo[y1:y2, x1:x2]
            m = (y2 - y1) // 3
            cloth = np.clip(np.float32((40, 110, 60)) + rng.normal(0, 5, (y2 - y1 + 2 * m, x2 - x1 + 2 * m, 3)), 0, 255)
            cloth = cloth.astype(np.uint8)
            cloth[m:m + y2 - y1, m:m + x2 - x1] = part
            codes = [t[0] for t in row]
            for fill in (0.6, 0.9):
                s = min(fill * 3000 / cloth.shape[0], fill * 4000 / cloth.shape[1])
                yield f"{name} {k} {' '.join(codes)} {fill:.0%}", cv2.resize(cloth, None, fx=s, fy=s,
                                                                             interpolation=cv2.INTER_CUBIC), codes


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", nargs="*", default=["real", "dorothys"], help="xmahjongg sets to lay out (none: skip)")
    ap.add_argument("--samples", action="store_true", help="the sample photos' tiles enlarged as well")
    ap.add_argument("--few", action="store_true", help="close-ups of a few tiles side by side as well")
    args = ap.parse_args(argv)
    from mjcam.vision.pipeline import default_recognizer

    rec = default_recognizer()
    kinds = []
    if args.sets:
        kinds.append(("xmahjongg sets, one tile", set_closeups(args.sets)))
        if args.few:
            kinds.append(("xmahjongg sets, 2 to 4 tiles", set_closeups(args.sets, few=True)))
    if args.samples:
        kinds.append(("sample tiles, one tile", sample_closeups()))
        if args.few:
            kinds.append(("sample tiles, 2, 3 and 5 tiles",
                          (c for n in (2, 3, 5) for c in sample_closeups(n, every=3))))
    for what, cases in kinds:
        n = exact = tiles = boxes = 0
        wrong = []
        for label, picture, codes in cases:
            r = rec.read(picture)
            read = sorted(r.tiles, key=lambda t: (t.box[0] + t.box[2]) / 2)
            n += 1
            tiles += len(codes)
            boxes += len(read)
            if [t.code for t in read] == codes:
                exact += 1
            else:
                wrong.append(f"  {label}: " + (", ".join(f"{t.code} {t.confidence:.2f}/{t.detection:.2f}" for t in read)
                                              or "no tile"))
        print(f"{what}: {exact} of {n} close-ups read exactly ({boxes} tiles read for {tiles})")
        print("\n".join(wrong))


if __name__ == "__main__":
    main()
