"""Close-ups: one tile filling much of a phone photo, read as one tile?

    python -m benchmarks.closeup_eval [--sets real dorothys] [--samples]

Two kinds of close-up, none of them seen in training:

- ``--sets``: each tile of a scanned set that ships with xmahjongg (``apt-get install xmahjongg``;
  no model trained on these sets) laid alone by the renderer (``datasets.synthetic.render_hand``),
  1,000 to 1,240 px tall in a photo about 3,300 px long: every other tile of the set, 21 or so;
- ``--samples``: each tile of the four sample photos cut out, laid on a cloth with a margin of a
  third of a tile, and enlarged to fill 60 % and 90 % of a 12 MP frame (blurred: the tiles are
  40 to 70 px in the samples).

Printed for each: the close-ups read as exactly one tile of the right code, and those that are
not, with what was read (code, confidence, detection score), so that a tile split into parts or
misread can be seen.
"""

from __future__ import annotations

import argparse
import os

import cv2
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def set_closeups(names: list[str]):
    """(label, picture, code) of single tiles of xmahjongg's sets ``names``."""
    from datasets.synthetic import render_hand
    from datasets.xmahjongg_tiles import xmahjongg_tiles
    from mjcam.scoring.tiles import CODES, N_PLAYABLE

    art = xmahjongg_tiles()
    missing = [n for n in names if n not in art]
    if missing:
        raise SystemExit(f"xmahjongg's {', '.join(missing)} not installed (apt-get install xmahjongg)")
    codes = list(CODES[:N_PLAYABLE]) + ["F1", "S2"]
    for name in names:
        for k, code in enumerate(codes[::2]):
            if code in art[name]:
                hand = render_hand([("concealed", [code], False)], seed=k, tile_height=1000 + 60 * (k % 5),
                                   perspective=0.03, tiles=art[name], aspect=0.75)
                yield f"{name} {code}", hand.image, code


def sample_closeups():
    """(label, picture, code) of the sample photos' tiles enlarged to fill a 12 MP frame."""
    import json

    from mjcam.vision.io import load_photo

    with open(os.path.join(ROOT, "samples", "labels.json")) as fh:
        labels = json.load(fh)
    rng = np.random.default_rng(0)
    for name, tiles in labels.items():
        photo, _ = load_photo(os.path.join(ROOT, "samples", name))
        for k, (code, *box) in enumerate(tiles):
            x1, y1, x2, y2 = (round(v) for v in box)
            tile = photo[y1:y2, x1:x2]
            m = (y2 - y1) // 3
            cloth = np.clip(np.float32((40, 110, 60)) + rng.normal(0, 5, (y2 - y1 + 2 * m, x2 - x1 + 2 * m, 3)), 0, 255)
            cloth = cloth.astype(np.uint8)
            cloth[m:m + y2 - y1, m:m + x2 - x1] = tile
            for fill in (0.6, 0.9):
                s = min(fill * 3000 / cloth.shape[0], fill * 4000 / cloth.shape[1])
                yield f"{name} {k} {code} {fill:.0%}", cv2.resize(cloth, None, fx=s, fy=s,
                                                                   interpolation=cv2.INTER_CUBIC), code


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", nargs="*", default=["real", "dorothys"], help="xmahjongg sets to lay out (none: skip)")
    ap.add_argument("--samples", action="store_true", help="the sample photos' tiles enlarged as well")
    args = ap.parse_args(argv)
    from mjcam.vision.pipeline import default_recognizer

    rec = default_recognizer()
    kinds = [("xmahjongg sets", set_closeups(args.sets))] if args.sets else []
    if args.samples:
        kinds.append(("sample tiles", sample_closeups()))
    for what, cases in kinds:
        n = one = 0
        wrong = []
        for label, picture, code in cases:
            r = rec.read(picture)
            n += 1
            if len(r.tiles) == 1 and r.tiles[0].code == code:
                one += 1
            else:
                read = ", ".join(f"{t.code} {t.confidence:.2f}/{t.detection:.2f}" for t in r.tiles)
                wrong.append(f"  {label}: {read or 'no tile'}")
        print(f"{what}: {one} of {n} close-ups read as one tile, right")
        print("\n".join(wrong))


if __name__ == "__main__":
    main()
