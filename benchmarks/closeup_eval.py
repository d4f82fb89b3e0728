"""Close-ups: one tile, or a few, filling much of a phone photo, each read once?

    python -m benchmarks.closeup_eval [--sets real dorothys] [--samples] [--few]
    python -m benchmarks.closeup_eval --tuning ../shared/data [--seed 5]

Two kinds of close-up, none of them seen in training:

- ``--sets``: each tile of a scanned set that ships with xmahjongg (``apt-get install xmahjongg``;
  no model trained on these sets) laid alone by the renderer (``datasets.synthetic.render_hand``),
  1,000 to 1,240 px tall in a photo about 3,300 px long: every other tile of the set, 21 or so;
- ``--samples``: each tile of the four sample photos cut out, laid on a cloth with a margin of a
  third of a tile, and enlarged to fill 60 % and 90 % of a 12 MP frame (blurred: the tiles are
  40 to 70 px in the samples).

``--tuning DATA`` reads instead close-ups made the same way from the tuning photos' labelled
tiles (HK's and rethink-bonus's, ``datasets.splits``; ``--seed`` draws others): a setting for
close-ups is chosen on those, then judged on the two kinds above, which no choice has looked at.

``--few`` adds close-ups of a few tiles side by side: twelve rows of 2, 3 or 4 tiles drawn from
each xmahjongg set, as tall as a phone's frame allows; and 2, 3 and 5 neighbouring tiles of the
samples (every third start, side by side: none across the cloth between two groups) filling
60 % and 90 % of the frame.

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


def _on_cloth(part: np.ndarray, rng) -> list[tuple[float, np.ndarray]]:
    """``part`` (a tile or a row of tiles cut from a photo) laid on a green cloth with a margin of
    a third of its height, enlarged to fill 60 % and 90 % of a 12 MP frame: ``(fill, picture)``."""
    h, w = part.shape[:2]
    m = h // 3
    cloth = np.clip(np.float32((40, 110, 60)) + rng.normal(0, 5, (h + 2 * m, w + 2 * m, 3)), 0, 255).astype(np.uint8)
    cloth[m:m + h, m:m + w] = part
    out = []
    for fill in (0.6, 0.9):
        s = min(fill * 3000 / cloth.shape[0], fill * 4000 / cloth.shape[1])
        out.append((fill, cv2.resize(cloth, None, fx=s, fy=s, interpolation=cv2.INTER_CUBIC)))
    return out


def _next_to(a, b) -> bool:
    """Whether box ``b`` (x1, y1, x2, y2) lies side by side right of box ``a``: the same row (centres
    within a third of a tile's height), next to each other (a gap under a quarter of a tile's
    height), of about one height."""
    h = a[3] - a[1]
    return (abs((b[1] + b[3]) / 2 - (a[1] + a[3]) / 2) < h / 3 and -h / 8 <= b[0] - a[2] < h / 4
            and abs(b[3] - b[1] - h) < h / 4)


def _row_from(boxes, first: int, count: int) -> list:
    """``count`` labelled boxes side by side from the ``first``-th from the left (:func:`_next_to`),
    fewer if the row ends."""
    boxes = sorted(boxes, key=lambda b: b.box[0])
    row = [boxes[first]]
    for b in boxes[first + 1:]:
        if len(row) == count:
            break
        if _next_to(row[-1].box, b.box):
            row.append(b)
    return row


def _share_inside(box, rect) -> float:
    """The share of ``box``'s area lying inside ``rect`` (both x1, y1, x2, y2).

    >>> _share_inside((0, 0, 10, 10), (5, 0, 20, 10)), _share_inside((0, 0, 10, 10), (10, 0, 20, 10))
    (0.5, 0.0)
    """
    ix = max(0.0, min(box[2], rect[2]) - max(box[0], rect[0]))
    iy = max(0.0, min(box[3], rect[3]) - max(box[1], rect[1]))
    return ix * iy / max(1e-6, (box[2] - box[0]) * (box[3] - box[1]))


def tuning_closeups(data: str, count: int, many: int, seed: int = 5, least: float = 12.0):
    """(label, picture, codes) of ``many`` close-ups of ``count`` neighbouring labelled tiles (2 to
    5 when ``count`` is 0, in turn) cut from the tuning photos (``datasets.splits``: HK's tuning
    tenth and rethink-bonus's tuning sources, never the figures' photos), each enlarged as
    :func:`sample_closeups` enlarges the samples' tiles: where a close-up setting is chosen before
    the samples and the scanned sets judge it. Tiles under ``least`` pixels are passed over, and so
    are tiles whose cut would show a twentieth or more of a neighbouring labelled tile."""
    from datasets.splits import split
    from mjcam.vision.io import load_photo

    sp = split(data)
    recs = [r for r in sp.hk_tune + sp.rethink_tune if r.boxes]
    rng = np.random.default_rng(seed)
    made = 0
    for _ in range(50 * many):
        if made == many or not recs:
            return
        r = recs[int(rng.integers(len(recs)))]
        want = count or 2 + made % 4
        row = _row_from(r.boxes, int(rng.integers(len(r.boxes))), want)
        if len(row) < want or min(min(b.box[2] - b.box[0], b.box[3] - b.box[1]) for b in row) < least:
            continue
        x1, y1 = (max(0, int(min(b.box[i] for b in row))) for i in (0, 1))
        x2, y2 = (int(round(max(b.box[i] for b in row))) for i in (2, 3))
        if any(_share_inside(b.box, (x1, y1, x2, y2)) > 0.05 for b in r.boxes if b not in row):
            continue  # a neighbour's tile would show in the cut, unlabelled there
        photo, _ = load_photo(r.path)
        codes = [b.code for b in row]
        made += 1
        for fill, picture in _on_cloth(photo[y1:y2, x1:x2], rng):
            yield f"{os.path.basename(r.path)[:24]} {' '.join(codes)} {fill:.0%}", picture, codes


def sample_closeups(count: int = 1, every: int = 1):
    """(label, picture, codes) of ``count`` neighbouring tiles of the sample photos (each ``every``
    th start; tiles side by side only, :func:`_next_to`) enlarged to fill a 12 MP frame. A cut
    across the cloth between two groups laid apart would show that cloth as a block a tile high,
    tiles either side and the green cloth above and below: a face-down tile, not cloth, to any
    reader (the cloth between tiles is judged where the cloth lies all round them, in the tests)."""
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
            if not all(_next_to(a[1:5], b[1:5]) for a, b in zip(row, row[1:])):
                continue
            x1, y1 = (round(min(t[i] for t in row)) for i in (1, 2))
            x2, y2 = (round(max(t[i] for t in row)) for i in (3, 4))
            codes = [t[0] for t in row]
            for fill, picture in _on_cloth(photo[y1:y2, x1:x2], rng):
                yield f"{name} {k} {' '.join(codes)} {fill:.0%}", picture, codes


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", nargs="*", default=["real", "dorothys"], help="xmahjongg sets to lay out (none: skip)")
    ap.add_argument("--samples", action="store_true", help="the sample photos' tiles enlarged as well")
    ap.add_argument("--few", action="store_true", help="close-ups of a few tiles side by side as well")
    ap.add_argument("--tuning", metavar="DATA", help="instead of those, close-ups cut from the tuning photos of the "
                    "labelled sets in DATA (80 single tiles and 60 rows of 2 to 5, each at two fills): where a "
                    "close-up setting is chosen")
    ap.add_argument("--seed", type=int, default=5, help="with --tuning: which tiles are drawn")
    args = ap.parse_args(argv)
    from mjcam.vision.pipeline import default_recognizer

    rec = default_recognizer()
    kinds = []
    if args.tuning:
        if not os.path.isdir(args.tuning):
            ap.error(f"no data folder {args.tuning}")
        args.sets, args.samples = [], False
        kinds += [("tuning photos' tiles, one tile", tuning_closeups(args.tuning, 1, 80, args.seed)),
                  ("tuning photos' tiles, rows of 2 to 5", tuning_closeups(args.tuning, 0, 60, args.seed + 1000))]
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
