"""Where the tiles lie: the geometry of the tiles read in a photo, boxes and codes alone (an image
only where a box's surroundings are looked at).

- Orientation and frame: which tiles lie sideways and whether the rows run down the photo
  (:func:`orientations`), whether the hand stands upside down (:func:`up_decision`), the map into
  the frame the hand is read in, as its player sees it (:func:`hand_frame`), and back to the
  photo's reading order (:func:`photo_order`, :func:`reordered`).
- Holes: the places in a row or a grid where a tile seems to be missing (:func:`row_gaps`,
  :func:`grid_gaps`, :func:`holes`), which the recogniser reads again.
- Boxes that are no tile: a box drawn across two touching tiles (:func:`straddlers_out`), a
  second box of a tile read twice (:func:`read_twice_out`), and the table seen between two melds
  read as a face-down tile (:func:`shows_table`).
- Tiles cut off by the photo's edge (:func:`cut_off`), and those to leave out of the hand: cut
  off and read as blank or unsurely, or doubted by both the detector and the classifier
  (:func:`set_apart`).

Boxes are ``(x1, y1, x2, y2)`` in the pixels of the copy of the photo being read.
"""

from __future__ import annotations

import math
import re

import numpy as np

from .group import TileObs, reading_order, row_frame
from .labels import BACK
from .preprocess import SIDEWAYS_RATIO, flat_or_sideways

#: a tile lies sideways only where its box is also this many times as wide for its height as the
#: photo's median box (:func:`orientations`)
SIDEWAYS_AGAINST = 1.4

Box = tuple[float, float, float, float]

GAP_MIN, GAP_MAX = 0.75, 1.4  # a gap in a row this many tile widths wide may hold a tile the detector missed
#: a box read ``back`` whose middle is within this RGB distance of the table just above it and
#: just below it shows table (a gap between melds), not a face-down tile: :func:`shows_table`
TABLE_LIKE = 30.0
#: a box read as a blank white dragon that shows table (:func:`shows_table`) is kept only where its
#: upper or lower side shows a tile's outline: a change of this much brightness (a 3x3 Sobel step,
#: per pixel) across it (:func:`outlined`); the cloth between tiles laid apart shows only its grain
OUTLINE = 10.0
SPAN_PART, SPAN_SURE = 0.7, 0.5  # see spanners_out
STRADDLE = 0.7  # a box this close (in steps) to two likelier tiles on either side lies across them
ROWS_ACROSS = 0.8  # a tile's nearest neighbour across this much nearer than its nearest one down: rows run across
#: a tile touching the photo's edge (within ``EDGE`` pixels) under ``CUT_AREA`` times the sure
#: tiles' median area (``CUT_SURE`` detection score, at least ``CUT_MIN_SURE`` of them) is cut off
#: by the edge (:func:`cut_off`)
EDGE, CUT_AREA, CUT_SURE, CUT_MIN_SURE = 2.0, 0.6, 0.5, 3
#: why a tile is left out of the hand (a stray group's ``why``): it lies away from the hand
#: (:func:`vision.group.hand_strays_too_large`), the photo's edge cuts it off, it is doubted
#: (:func:`set_apart`), or its box is far longer than the tiles beside it (too large)
AWAY, CUT, DOUBTED, ODD = "away", "cut off", "doubted", "too large"
TWICE_INSIDE = 0.5  # see read_twice_out


def _centre(box) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def _inside(point, box, margin: float = 0.1) -> bool:
    mx, my = (box[2] - box[0]) * margin, (box[3] - box[1]) * margin
    return box[0] - mx <= point[0] <= box[2] + mx and box[1] - my <= point[1] <= box[3] + my


def _rows_run_down(boxes: list[Box]) -> bool | None:
    """Whether the tiles' rows run down the photo rather than across it, judged by how near each
    tile's nearest neighbour more across than down lies against its nearest neighbour more down
    than across (tiles in a row touch side by side; the next row lies further off): the median
    ratio under 0.8 says across, over 1.25 down. None for fewer than three tiles or a ratio
    between (a tray seen from above, its tiles about as far apart both ways). (The boxes' shape
    alone misleads in a row photographed at a steep slant: the upright boxes around its turned
    tiles come out wider than tall.)"""
    if len(boxes) < 3:
        return None
    c = np.array([((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b in boxes], np.float64)
    dx, dy = np.abs(c[:, None, 0] - c[None, :, 0]), np.abs(c[:, None, 1] - c[None, :, 1])
    d = np.hypot(dx, dy)
    np.fill_diagonal(d, np.inf)
    across = np.where(dx >= dy, d, np.inf).min(axis=1)
    down = np.where(dy > dx, d, np.inf).min(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = float(np.median(across / down))  # (no neighbour one way: 0 or inf)
    if ratio < ROWS_ACROSS:
        return False
    if ratio > 1 / ROWS_ACROSS:
        return True
    return None


def in_line(boxes: list[Box]) -> float:
    """How much longer the lines of tiles are across the photo than down it: for each tile, the
    tiles whose centres lie within half its height of the line through its centre and its nearest
    neighbour more across than down from it, over those within half its width of the line through
    it and its nearest neighbour more down than across (no such neighbour: itself alone), the median
    over the tiles. A hand's rows are long and few, so a hand in rows across gives several, one in
    rows down a fraction, tiles in a grid about 1; the lines follow a row photographed sloping.

    >>> in_line([(40 * k, 0, 40 * k + 30, 40) for k in range(6)])
    6.0
    >>> round(in_line([(40 * k, 30 * k, 40 * k + 30, 30 * k + 40) for k in range(6)]), 2)  # sloping
    6.0
    >>> round(in_line([(0, 40 * k, 40, 40 * k + 30) for k in range(6)]), 2)
    0.17
    """
    if len(boxes) < 2:
        return 1.0
    b = np.asarray(boxes, np.float64)
    c = np.stack([(b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2], axis=1)
    d = c[None, :, :] - c[:, None, :]  # d[i, j]: from tile i's centre to tile j's
    dx, dy = np.abs(d[..., 0]), np.abs(d[..., 1])
    dist = np.hypot(dx, dy)
    np.fill_diagonal(dist, np.inf)
    rows = np.arange(len(b))
    counts = []
    for more, half in ((dx >= dy, (b[:, 3] - b[:, 1]) / 2), (dy > dx, (b[:, 2] - b[:, 0]) / 2)):
        near = np.where(more, dist, np.inf)
        j = near.argmin(axis=1)
        found = np.isfinite(near[rows, j])
        u = d[rows, j] / np.where(found, near[rows, j], 1.0)[:, None]  # the line's direction
        off = np.abs(d[..., 0] * u[:, None, 1] - d[..., 1] * u[:, None, 0])  # each tile's distance from it
        counts.append(np.where(found, (off < half[:, None]).sum(axis=1), 1))
    return float(np.median(counts[0] / counts[1]))


def orientations(boxes: list[Box], codes: list[str]) -> tuple[list[str], bool]:
    """Each tile's orientation, and whether the rows run down the photo (a photo turned a quarter):
    where the tiles' nearest neighbours lie (:func:`_rows_run_down`), else the shape of most boxes,
    and only where the lines of tiles are also longer down the photo than across it (:func:`in_line`:
    under 1); otherwise the rows run across, as the photo is held. (Two rows of tiles lying face up
    seen from the seat, the rows touching and every box about square, have their nearest neighbours
    about as near both ways and the boxes a little wider than tall, but rows of ten across.)

    Most tiles of a hand stand; the tiles whose boxes are turned against the majority lie sideways:
    a box over ``SIDEWAYS_RATIO`` times as wide as tall (in the photo's frame) and at least
    ``SIDEWAYS_AGAINST`` times as wide for its height as the median box (faces down aside). Seen
    from low down, standing tiles' boxes come out nearly square, and one a little wider than the
    rest still stands; one lying sideways is about 1.8 times as wide for its height as its
    neighbours from any angle.

    >>> orientations([(0, 0, 30, 40), (31, 0, 61, 40), (62, 10, 102, 40)], ["1m", "1m", "1m"])
    (['upright', 'upright', 'sideways'], False)
    >>> orientations([(0, 0, 40, 40), (41, 0, 90, 40), (91, 0, 131, 40)], ["1m", "2m", "3m"])  # from low down
    (['upright', 'upright', 'upright'], False)
    """
    wide = _rows_run_down(boxes)
    aspects = [(b[2] - b[0]) / max(1e-6, b[3] - b[1]) for b, c in zip(boxes, codes) if c != BACK]
    if wide is None:
        wide = bool(aspects) and float(np.median(aspects)) > 1.0
    wide = wide and in_line(boxes) < 1.0
    # the typical tile's width for its height in the photo's frame (rows running down: turned)
    typical = (1 / float(np.median(aspects)) if wide else float(np.median(aspects))) if aspects else 0.75
    out = []
    for b, c in zip(boxes, codes):
        r = (b[2] - b[0]) / max(1e-6, b[3] - b[1])
        along = 1 / max(r, 1e-6) if wide else r  # its width for its height in the photo's frame
        if c == BACK:
            out.append("face-down")
        elif along > SIDEWAYS_RATIO and along >= SIDEWAYS_AGAINST * typical:
            out.append("sideways")
        else:
            out.append("upright")
    return out, wide


def lying_up(boxes: list[Box]) -> list[int]:
    """The boxes (indices) as wide for their height as a tile lying sideways
    (:func:`vision.preprocess.flat_or_sideways`) that :func:`orientations` nevertheless calls
    standing, in a photo whose rows run across it: faces lying up seen from the seat, squashed down
    the photo like the photo's other tiles (or a row of tiles all lying sideways: the boxes cannot
    tell). None in a photo of fewer than three boxes, or one whose rows run down it (turned a
    quarter: there every standing tile's box is wide).

    >>> flat = [(40 * i, 0, 40 * i + 38, 26) for i in range(5)]  # a row lying up, seen from the seat
    >>> lying_up(flat), lying_up(flat[:2])
    ([0, 1, 2, 3, 4], [])
    >>> lying_up([(0, 0, 30, 40), (31, 0, 61, 40), (62, 10, 102, 40)])  # one turned among standing
    []
    """
    if len(boxes) < 3:
        return []
    turned, down = orientations(boxes, [""] * len(boxes))
    if down:
        return []
    return [i for i, (b, o) in enumerate(zip(boxes, turned)) if o == "upright" and flat_or_sideways(b)]


#: A hand's standing tiles read by the which-way-up probe (vision.up): where their summed log-odds
#: pass UP_MARGIN either way and their mean passes UP_MEAN the same way, the hand is read as its
#: player sees it; otherwise as the photo shows it. (On tile sets it never saw a tile tells the
#: probe little, and a sum over many such tiles can pass the margin by the set's own bias: the
#: tile_up card, "Unseen tile sets".)
UP_MARGIN = 6.0
UP_MEAN = 1.0
UP_MIN_TILES = 3


def up_decision(odds: float, n: int) -> bool | None:
    """Whether ``n`` standing tiles with summed down log-odds ``odds`` stand upside down (True),
    upright (False) or cannot be told (None).

    >>> up_decision(9.0, 35), up_decision(-25.6, 16), up_decision(12.0, 10), up_decision(5.0, 3)
    (None, False, True, None)
    """
    if n < UP_MIN_TILES or abs(odds) <= UP_MARGIN or abs(odds) / n <= UP_MEAN:
        return None
    return odds > 0


#: which way up the tiles stand is named (the notes, and the table app's proposed winner:
#: ``Recognition.tops_sure``) only where the standing tiles' summed log-odds reach twice the
#: grouping's margin; between the two the hand is grouped as the probe leans, and the notes say
#: only in which order it was read (models/EXPERIMENTS.md, "Whose hand, third candidate")
UP_SURE = 2 * UP_MARGIN


def up_sure(odds: float, n: int) -> bool:
    """Whether the probe's verdict on ``n`` standing tiles with summed down log-odds ``odds`` is sure
    enough to be named: decided (:func:`up_decision`) and at least ``UP_SURE`` either way.

    >>> up_sure(-25.6, 16), up_sure(11.0, 9), up_sure(9.0, 35)
    (True, False, False)
    """
    return up_decision(odds, n) is not None and abs(odds) >= UP_SURE


def hand_frame(wide: bool, down: bool | None):
    """The map from a box in the photo to the frame the hand is read in — its rows across, read
    left to right, as its player sees it — given whether the rows run down the photo (``wide``)
    and whether the standing tiles, cut as the classifier cuts them (a wide box turned a quarter
    clockwise), stand upside down (``down``; None: not known).

    >>> [hand_frame(w, d)((1, 2, 3, 4)) for w, d in ((False, False), (False, True), (True, None))]
    [(1, 2, 3, 4), (-3, -4, -1, -2), (2, 1, 4, 3)]
    >>> hand_frame(True, False)((1, 2, 3, 4)), hand_frame(True, True)((1, 2, 3, 4))
    ((-4, 1, -2, 3), (2, -3, 4, -1))
    """
    if not wide:
        return (lambda b: (-b[2], -b[3], -b[0], -b[1])) if down else (lambda b: tuple(b))
    if down is None:  # rows down the photo, which end is the hand's first not known: top to bottom
        return lambda b: (b[1], b[0], b[3], b[2])
    if down:  # the tiles' tops to the right: the photo turned a quarter clockwise from the player's view
        return lambda b: (b[1], -b[2], b[3], -b[0])
    return lambda b: (-b[3], b[0], -b[1], b[2])  # tops to the left: turned counter-clockwise


def photo_order(boxes: list[Box], wide: bool, hand: int) -> list[int]:
    """The positions of tiles grouped as their player sees them (the first ``hand`` the hand's,
    the rest strays) in the photo's reading order, which ``mjcam recognize`` lists them in: the
    hand's tiles, then the strays, each in rows top to bottom, each row left to right (rows down
    the photo read as :func:`hand_frame` reads them when which way up is not known).

    >>> photo_order([(40, 0, 50, 10), (20, 0, 30, 10), (0, 0, 10, 10), (0, 40, 10, 50)], False, 3)
    [2, 1, 0, 3]
    """
    frame = hand_frame(wide, None)
    out: list[int] = []
    for part in (list(range(hand)), list(range(hand, len(boxes)))):
        rows = reading_order([TileObs(frame(boxes[p]), "") for p in part])
        out += [part[i] for r in rows for i in r]
    return out


def reordered(order: list[int], tiles: list, groups: list[dict], flagged: list[int], winning: int | None,
               notes: list[str]):
    """Tiles, groups, flagged tiles, the winning tile and notes naming tiles by number, with the
    tiles put in ``order`` (positions of the old list); groups follow their first tile, strays last."""
    new = {p: k for k, p in enumerate(order)}
    tiles = [tiles[p] for p in order]
    groups = [dict(g, tiles=sorted(new[p] for p in g["tiles"])) for g in groups]
    groups.sort(key=lambda g: (g["kind"] == "stray", min(g["tiles"], default=0)))
    for gi, g in enumerate(groups):
        for p in g["tiles"]:
            tiles[p].group = gi

    def number(m) -> str:
        return str(new[int(m.group(0)) - 1] + 1)

    notes = [re.sub(r"(?<=\btile )\d+|(?<=\btiles )\d+|(?<= and )\d+", number, n) for n in notes]
    return tiles, groups, sorted(new[p] for p in flagged), None if winning is None else new[winning], notes


TOPS = {(False, False): "up", (False, True): "down", (True, False): "left", (True, True): "right"}
FRAME_NOTES = {
    (False, True): "the tiles stand upside down (photographed from across the table): grouped as their player "
                   "sees them, right to left",
    (True, None): "the rows run down the photo: read top to bottom",
    (True, True): "the rows run down the photo, the tiles' tops to the right: grouped as their player sees them, "
                  "top to bottom",
    (True, False): "the rows run down the photo, the tiles' tops to the left: grouped as their player sees them, "
                   "bottom to top",
}
#: the notes where the hand is grouped as the probe leans but which way up is not sure (:func:`up_sure`)
UNSURE_NOTES = {
    (False, True): "grouped right to left (which way up the tiles stand is not sure)",
    (True, True): "the rows run down the photo: grouped top to bottom (which way up the tiles stand is not sure)",
    (True, False): "the rows run down the photo: grouped bottom to top (which way up the tiles stand is not sure)",
}


def straddlers_out(boxes: list[Box], scores: list[float]) -> list[int]:
    """Indices to keep once boxes drawn across the line between two touching tiles are taken out.
    Such a box overlaps each tile by less than duplicate removal looks for and reads as a second
    copy of one; its centre lies about half a step from each, on opposite sides, where a real
    tile's neighbours are a whole step away (the step: the median distance from a tile's centre
    to its nearest neighbour's, so the test holds in slanted rows too). It goes when both those
    tiles are likelier.

    >>> row = [(31 * i, 0, 31 * i + 30, 40) for i in range(6)]
    >>> straddlers_out(row + [(46, 0, 76, 40)], [0.9] * 6 + [0.3])  # across tiles 1 and 2
    [0, 1, 2, 3, 4, 5]
    """
    n = len(boxes)
    if n < 3:
        return list(range(n))
    c = np.array([_centre(b) for b in boxes])
    d = np.hypot(c[:, None, 0] - c[None, :, 0], c[:, None, 1] - c[None, :, 1])
    np.fill_diagonal(d, np.inf)
    step = float(np.median(d.min(axis=1)))
    out = []
    for i in range(n):
        near = [j for j in range(n) if d[i, j] < STRADDLE * step and scores[j] > scores[i]]
        if not any(float(np.dot(c[a] - c[i], c[b] - c[i])) < 0 for a in near for b in near):
            out.append(i)
    return out


def read_twice_out(boxes: list[Box], codes: list[str], scores: list[float]) -> list[int]:
    """Indices to keep once a tile read twice is kept once: two boxes read as the same code, each
    holding the other's centre and one at least ``TWICE_INSIDE`` inside the other, are two boxes
    of one tile (each over part of it); the one of higher ``scores`` is kept. (Two tiles side by
    side hold each other's centres only with boxes twice too wide, or the upright boxes of tiles
    in a steeply slanted row, which share a third of their area.)

    >>> read_twice_out([(0, 0, 30, 40), (10, -2, 44, 42), (45, 0, 75, 40)], ["2p", "2p", "2p"], [0.5, 0.9, 0.8])
    [1, 2]
    >>> read_twice_out([(0, 0, 30, 40), (10, -2, 44, 42)], ["2p", "3p"], [0.5, 0.9])  # codes differ
    [0, 1]
    >>> read_twice_out([(295, 310, 364, 376), (327, 335, 398, 405)], ["3s", "3s"], [0.9, 0.9])  # a slanted pung's
    [0, 1]
    """
    def one(a, b) -> bool:
        least = min(_area(a), _area(b))
        return (_inside(_centre(b), a, 0.0) and _inside(_centre(a), b, 0.0)
                and _intersection(a, b) >= TWICE_INSIDE * max(least, 1e-6))

    order = sorted(range(len(boxes)), key=lambda i: -scores[i])
    kept: list[int] = []
    for i in order:
        if not any(codes[k] == codes[i] and one(boxes[k], boxes[i]) for k in kept):
            kept.append(i)
    return sorted(kept)


def spanners_out(boxes: list[Box], confidences: list[float], sure: float = SPAN_SURE) -> list[int]:
    """Indices to keep once boxes drawn across several tiles are taken out: a box holding the
    centres of boxes that are no more than ``SPAN_PART`` of its long side and do not overlap each
    other much — two or more read as tiles at least ``sure``, or three or more alike in size,
    however they are read (a coarse look at a small hand may draw one box round two or three
    tiles; the closer look draws each). Parts of one large tile are neither read as tiles surely
    nor alike, so a close-up keeps its tile.

    >>> row = [(31 * i, 0, 31 * i + 30, 40) for i in range(4)]
    >>> spanners_out(row + [(20, -2, 104, 42)], [0.9] * 4 + [0.95])  # round tiles 1 and 2
    [0, 1, 2, 3]
    >>> spanners_out(row + [(20, -2, 104, 42)], [0.9, 0.3, 0.4, 0.9, 0.95])
    [0, 1, 2, 3, 4]
    >>> spanners_out(row + [(2, -2, 104, 42)], [0.3, 0.3, 0.4, 0.9, 0.95])  # round three alike
    [0, 1, 2, 3]
    """
    n = len(boxes)
    if n < 3:
        return list(range(n))
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    c = (b[:, :2] + b[:, 2:]) / 2
    long = np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])
    out = []
    for i in range(n):
        inside = [j for j in range(n) if j != i and long[j] <= SPAN_PART * long[i]
                  and b[i, 0] <= c[j, 0] <= b[i, 2] and b[i, 1] <= c[j, 1] <= b[i, 3]]
        apart = [j for j in inside if all(_iou(b[j], b[k]) < 0.3 for k in inside if k != j)]
        sure_apart = [j for j in apart if confidences[j] >= sure]
        alike = len(apart) >= 3 and max(long[apart]) <= 1.5 * min(long[apart])
        if len(sure_apart) < 2 and not alike:
            out.append(i)
    return out


def _area(b) -> float:
    """A box's area."""
    return (b[2] - b[0]) * (b[3] - b[1])


def _intersection(a, b) -> float:
    """The area two boxes share."""
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def _iou(a, b) -> float:
    inter = _intersection(a, b)
    return inter / max(1e-9, _area(a) + _area(b) - inter)


def _rows_across(boxes) -> bool:
    """Whether rows of upright tiles run across the photo: three or more tiles stand upright and
    they are at least half of all."""
    upright = sum(b[2] - b[0] < b[3] - b[1] for b in boxes)
    return upright >= 3 and upright * 2 >= len(boxes)


def row_gaps(boxes: list[Box]) -> list[Box]:
    """Boxes for the tiles a row seems to be missing: wherever two neighbours in a row of three or
    more upright tiles of the row's width stand apart by about one tile's width (0.75 to 1.4 of
    the row's median), the gap itself as a box, as tall as its neighbours. A tile the detector
    passed over (a bare white dragon is a blank ivory face) leaves such a hole; the gap between
    two melds set apart can look the same, which is why the classifier must be sure before one
    is kept.

    >>> row_gaps([(0, 0, 30, 40), (31, 0, 61, 40), (92, 0, 122, 40), (123, 0, 153, 40)])
    [(61.0, 0.0, 92.0, 40.0)]
    """
    if not _rows_across(boxes):
        return []  # rows are found across the photo; a photo turned a quarter is left alone
    out = []
    for row in reading_order([TileObs(tuple(b), "") for b in boxes]):
        tiles = [boxes[i] for i in row]
        widths = [b[2] - b[0] for b in tiles if b[2] - b[0] < b[3] - b[1]]
        if len(widths) < 3:
            continue
        w = float(np.median(widths))
        for a, b in zip(tiles, tiles[1:]):
            gap = b[0] - a[2]
            # a neighbour narrower or wider than the row's tiles is a box drawn badly, not a hole
            sound = all(0.8 * w <= t[2] - t[0] <= 1.25 * w for t in (a, b))
            if sound and GAP_MIN * w <= gap <= GAP_MAX * w:
                box = (float(a[2]), float(min(a[1], b[1])), float(b[0]), float(max(a[3], b[3])))
                if not any(_inside(_centre(box), t, 0.0) for t in boxes):
                    out.append(box)
    return out


def grid_gaps(boxes: list[Box]) -> list[Box]:
    """Boxes for the cells a grid of tiles seems to be missing, beyond what :func:`row_gaps` finds:
    a hole one to three places long inside a row, measured along the row's slant (a pung of bare
    white dragons leaves one three long), and the places at a row's end up to where the row above
    or below it goes on, when the two rows keep the same step and their tiles line up (a tray of
    tiles seen from above, a wall of two rows). A row here is three or more upright tiles standing
    side by side (their step, the median distance between touching neighbours along the row, is
    known); rows are followed along their slant. As with row gaps, the classifier must be sure
    before a cell is kept.

    >>> cells = grid_gaps([(x, 0, x + 30, 40) for x in (0, 30, 60, 90, 120)] +
    ...                   [(x, 42, x + 30, 82) for x in (60, 90, 120)])
    >>> [tuple(round(v) for v in b) for b in cells]
    [(30, 42, 60, 82), (0, 42, 30, 82)]
    """
    if not _rows_across(boxes):
        return []
    obs = [TileObs(tuple(b), "") for b in boxes]
    frame = row_frame(obs)
    cos, sin = math.cos(frame[0]), math.sin(frame[0])
    out: list[Box] = []
    taken: list[tuple[float, float]] = []
    for u, v, r in _grid_cells(_grid_rows(boxes, obs, frame)):
        x, y = u * cos - v * sin, u * sin + v * cos
        if any(math.hypot(x - p, y - q) < 0.5 * r["step"] for p, q in taken):
            continue  # the same cell from the row above and the row below
        box = (x - r["w"] / 2, y - r["h"] / 2, x + r["w"] / 2, y + r["h"] / 2)
        if any(_inside((x, y), b, 0.0) for b in boxes):
            continue
        taken.append((x, y))
        out.append(tuple(float(v) for v in box))
    return out


def _grid_rows(boxes: list[Box], obs: list[TileObs], frame) -> list[dict]:
    """The rows of :func:`grid_gaps`, in the rows' frame (:func:`vision.group.row_frame`): each
    with its tiles' places along it (``at``), how far down it lies, its step and its tiles' median
    width and height."""
    _, along, down = frame
    rows = []
    for row in reading_order(obs, frame):
        ws = [boxes[i][2] - boxes[i][0] for i in row]
        hs = [boxes[i][3] - boxes[i][1] for i in row]
        if sum(w < h for w, h in zip(ws, hs)) < 3:
            continue
        w, h = float(np.median(ws)), float(np.median(hs))
        # neighbours side by side; boxes much closer than a tile's width are one tile boxed twice
        steps = [along[j] - along[i] for i, j in zip(row, row[1:]) if 0.5 * w <= along[j] - along[i] <= 1.3 * w]
        if len(steps) < 2 or w <= 0:
            continue
        rows.append({"at": [along[i] for i in row], "down": float(np.median([down[i] for i in row])),
                     "step": float(np.median(steps)), "w": w, "h": h})
    return rows


def _grid_cells(rows: list[dict]) -> list[tuple[float, float, dict]]:
    """The missing cells of :func:`grid_gaps` in the rows' frame, ``(along, down, row)``: holes
    inside each row, then the places at its ends up to where a neighbouring row of the same step
    goes on."""
    cells: list[tuple[float, float, dict]] = []
    for r in rows:
        s = r["step"]
        for p, q in zip(r["at"], r["at"][1:]):
            k = round((q - p) / s) - 1
            if 1 <= k <= 3 and abs(q - p - (k + 1) * s) <= 0.25 * s:
                cells += [(p + j * (q - p) / (k + 1), r["down"], r) for j in range(1, k + 1)]
        for o in rows:
            if o is r or not (0.8 * r["h"] <= abs(o["down"] - r["down"]) <= 1.6 * r["h"]) \
                    or abs(o["step"] - s) > 0.15 * s:
                continue
            for end, beyond, sign in ((r["at"][0], min(o["at"]), -1), (r["at"][-1], max(o["at"]), 1)):
                k = round((beyond - end) * sign / s)
                if 1 <= k <= 3 and abs((beyond - end) * sign - k * s) <= 0.25 * s:
                    cells += [(end + sign * j * s, r["down"], r) for j in range(1, k + 1)]
    return cells

def _transposed(boxes):
    return [(b[1], b[0], b[3], b[2]) for b in boxes]


def shows_table(image: np.ndarray, box: Box,
                others: list[Box]) -> bool:
    """Whether a box read as a face-down tile shows the table instead — the gap between two melds
    set apart, plain table the colour of a tile's back: the median colour of the box's middle (the
    middle half each way) lies within ``TABLE_LIKE`` of the median of the strip just above it and
    of the strip just below it (a quarter of its height each, what of it lies on none of the
    ``others`` boxes; a strip mostly on other tiles or off the photo is passed over, and where
    neither is left the box is kept). Both, because a face-down tile seen from the player's side
    shows its own body, in its back's colour, just below it. A face-down tile on a table of its own
    back's colour is taken for table too: by colour the two are one.

    >>> table = np.full((60, 100, 3), (150, 100, 60), np.uint8)
    >>> shows_table(table, (40, 20, 60, 40), [])
    True
    >>> table[20:40, 40:60] = (30, 110, 60)  # a green back on a brown table
    >>> shows_table(table, (40, 20, 60, 40), [])
    False
    >>> table[40:48, 40:60] = (30, 110, 60)  # ... with its own body seen below it
    >>> shows_table(table, (40, 20, 60, 40), [])
    False
    >>> table[20:48, 40:60] = (150, 100, 60)  # table above and below: a gap
    >>> shows_table(table, (40, 20, 60, 40), [(0, 20, 40, 40), (60, 20, 100, 40)])
    True
    """
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    H, W = image.shape[:2]
    mid = image[max(0, int(y0 + h / 4)):min(H, int(y1 - h / 4)), max(0, int(x0 + w / 4)):min(W, int(x1 - w / 4))]
    if mid.size == 0:
        return False
    middle = np.median(mid.reshape(-1, mid.shape[-1]), axis=0)
    around = _table_around(image, box, others)
    return bool(around) and all(float(np.linalg.norm(t - middle)) < TABLE_LIKE for t in around)


def outlined(image: np.ndarray, box: Box) -> bool:
    """Whether the box's upper or lower side lies on an outline: near the side (an eighth of the
    box's height either way), each of the box's middle columns (a tenth of its width off each end)
    has its strongest change of brightness down the photo; the median of those reaches ``OUTLINE``.

    >>> cloth = np.full((60, 100, 3), 230, np.uint8)
    >>> outlined(cloth, (40, 20, 60, 40))
    False
    >>> cloth[40:44, 35:65] = 120  # a tile's shadow along its lower side
    >>> outlined(cloth, (40, 20, 60, 40))
    True
    """
    x0, y0, x1, y1 = (float(v) for v in box)
    H, W = image.shape[:2]
    band = max(2, int((y1 - y0) / 8))
    xa, xb = max(0, int(x0 + (x1 - x0) / 10)), min(W, int(x1 - (x1 - x0) / 10))
    if xb <= xa:
        return True
    for side in (y0, y1):
        ya, yb = max(0, int(side) - band - 1), min(H, int(side) + band + 2)
        if yb - ya < 3:
            continue
        grey = image[ya:yb, max(0, xa - 1):min(W, xb + 1)].astype(np.float32).mean(axis=2)
        down = grey[2:] - grey[:-2]  # a 3x3 Sobel step down the photo, over 4
        step = np.abs(down[:, :-2] + 2 * down[:, 1:-1] + down[:, 2:]) / 4
        if step.size and float(np.median(step.max(axis=0))) >= OUTLINE:
            return True
    return False


def cut_off(boxes: list[Box], scores: list[float], shape: tuple[int, ...]) -> set[int]:
    """The tiles the photo's edge cuts off, by index: boxes touching the edge (within ``EDGE``
    pixels) under ``CUT_AREA`` times the sure tiles' median area (at least ``CUT_MIN_SURE`` tiles
    ``CUT_SURE`` sure; none without them). What shows of such a tile is read as a guess.

    >>> row = [(10 + 40 * i, 50, 46 + 40 * i, 100) for i in range(5)]
    >>> sorted(cut_off(row + [(385, 60, 400, 100), (0, 50, 30, 100)], [0.9] * 7, (150, 400)))
    [5]
    """
    h, w = shape[:2]
    areas = [_area(b) for b in boxes]
    sure = sorted(a for a, s in zip(areas, scores) if s >= CUT_SURE)
    if len(sure) < CUT_MIN_SURE:
        return set()
    typical = sure[len(sure) // 2]
    return {i for i, (b, a) in enumerate(zip(boxes, areas))
            if a < CUT_AREA * typical and (b[0] <= EDGE or b[1] <= EDGE or b[2] >= w - EDGE or b[3] >= h - EDGE)}


def set_apart(scores: list[float], codes: list[str], confidences: list[float], cut: set[int],
              doubt: float = 0.5, blank: str = "Wd") -> dict[int, str]:
    """The tiles to leave out of the hand, by index, each with why: ``CUT`` — the photo's edge cuts
    it off (``cut``, see :func:`cut_off`) and what shows of it is read as blank (``blank``, the white dragon)
    or under ``doubt``: most often a tile of another player's at the edge of the frame, whose face
    cannot be seen; ``DOUBTED`` — neither the detector (``scores``) nor the classifier
    (``confidences``) is ``doubt`` sure of it: a thing in the room behind the table, a tile of a
    wall far off. Neither rule judges what tiles there are, only whether the hand should count
    them; a person may put them back. ``doubt`` 0: no tile is set apart.

    >>> set_apart([0.9, 0.6], ["1m", "Wd"], [0.9, 0.9], {1}), set_apart([0.9, 0.6], ["1m", "6s"], [0.9, 0.4], {1})
    ({1: 'cut off'}, {1: 'cut off'})
    >>> set_apart([0.9, 0.4], ["1m", "6s"], [0.9, 0.3], set()), set_apart([0.9, 0.4], ["1m", "6s"], [0.9, 0.9], {1})
    ({1: 'doubted'}, {})
    """
    if doubt <= 0:
        return {}
    out = {}
    for i, (s, c, p) in enumerate(zip(scores, codes, confidences)):
        if i in cut and (c == blank or p < doubt):
            out[i] = CUT
        elif s < doubt and p < doubt:
            out[i] = DOUBTED
    return out


def _free(others: list[Box], ya: int, yb: int, xa: int, xb: int) -> np.ndarray:
    """Which pixels of the region rows ya:yb, columns xa:xb lie on none of the ``others`` boxes."""
    free = np.ones((yb - ya, xb - xa), bool)
    for o in others:
        oy0, oy1 = max(ya, int(o[1])) - ya, min(yb, int(math.ceil(o[3]))) - ya
        ox0, ox1 = max(xa, int(o[0])) - xa, min(xb, int(math.ceil(o[2]))) - xa
        if oy1 > oy0 and ox1 > ox0:
            free[oy0:oy1, ox0:ox1] = False
    return free


def _table_around(image: np.ndarray, box: Box, others: list[Box]) -> list[np.ndarray]:
    """The median colours of the strips just above and just below ``box`` (a quarter of its height
    each, what of them lies on none of the ``others`` boxes; a strip mostly on other tiles or off
    the photo is passed over)."""
    x0, y0, x1, y1 = box
    h = y1 - y0
    H, W = image.shape[:2]
    xa, xb = max(0, int(x0)), min(W, int(math.ceil(x1)))
    out = []
    if xb <= xa:
        return out
    for top, bottom in ((y0 - h / 4, y0), (y1, y1 + h / 4)):
        a, b = max(0, int(top)), min(H, int(math.ceil(bottom)))
        if b - a < 1:
            continue
        free = _free(others, a, b, xa, xb)  # pixels on another tile are not table
        if free.sum() < 0.25 * free.size:
            continue
        out.append(np.median(image[a:b, xa:xb][free], axis=0).astype(np.float64))
    return out


def holes(boxes: list[Box], grid: bool = True) -> list[Box]:
    """Row gaps (:func:`row_gaps`) and, with ``grid``, grid cells (:func:`grid_gaps`) that are
    not the same hole again. When most tiles lie wider than tall — a photo turned a quarter, its
    rows running down it — the layout is looked at turned (x and y swapped) and the holes turned
    back.

    >>> holes([(0, 0, 40, 30), (0, 31, 40, 61), (0, 92, 40, 122), (0, 123, 40, 153)], grid=False)
    [(0.0, 61.0, 40.0, 92.0)]
    """
    turned = sum(b[2] - b[0] > b[3] - b[1] for b in boxes) * 2 > len(boxes)
    look = _transposed(boxes) if turned else boxes
    out = row_gaps(look)
    if grid:  # a cell whose centre lies in a row gap is that gap again
        out += [c for c in grid_gaps(look) if not any(_inside(_centre(c), g, 0.0) for g in out)]
    return _transposed(out) if turned else out
