"""From a photo to a proposed hand: load, locate, classify, prune, group.

>>> from mjcam.vision.pipeline import Recognition
>>> Recognition("x.jpg", 10, 10, [], [], None, []).to_json()["tiles"]
[]

Each stage is a small class of its own (:class:`vision.locate.LearnedProposer`,
:class:`vision.locate.BoxRefiner`,
:class:`vision.classify.TileClassifier`,
:class:`vision.group.MeldGrouper`); :class:`Recognizer` strings them together and holds the
models, so a process that reads many photos loads them once.
"""

from __future__ import annotations

import math
import re
import threading
from dataclasses import dataclass, field

import numpy as np

from .classify import LOW_CONFIDENCE, TileClassifier, TileLabel
from .group import MeldGrouper, TileObs, hand_and_strays, reading_order, row_frame
from .io import load_photo
from .labels import BACK, NOT_A_TILE
from .light import balanced, brightened
from .locate import WORK_SIDE, BoxRefiner, LearnedProposer, Proposal, suppress
from .preprocess import SIDEWAYS_RATIO, shrink
from .up import UpProbe

DROP_NOT_A_TILE = 0.5  # a proposal the classifier calls not-a-tile with at least this is dropped
SURE_TILE = 0.6  # ... unless the detector is this sure it is a tile and the classifier not sure it is not
SURE_NOT_A_TILE = 0.85
DUPLICATE_IOU = 0.25  # two read tiles whose cores overlap this much are one tile read twice
DUPLICATE_CORE = 0.6  # ... compared by their cores (see vision.locate.suppress): a slanted row's tiles stay apart
GAP_MIN, GAP_MAX = 0.75, 1.4  # a gap in a row this many tile widths wide may hold a tile the detector missed
GAP_MAX_NOT, GAP_MIN_CONF = 0.3, 0.6  # ... kept when the classifier calls it not-a-tile below this and a tile above
GAP_SCORE = 0.5  # the proposal score given to such a tile
#: a box read ``back`` whose middle is within this RGB distance of the table just above it and
#: just below it shows table (a gap between melds), not a face-down tile: :func:`shows_table`
TABLE_LIKE = 30.0
STRADDLE = 0.7  # a box this close (in steps) to two likelier tiles on either side lies across them
ROWS_ACROSS = 0.8  # a tile's nearest neighbour across this much nearer than its nearest one down: rows run across
#: A photo's gradient anisotropy (:func:`anisotropy`) outside this range means it was stretched out
#: of shape (resized to a square, say): 1,343 held-in and held-out training photos lie within 0.52-1.9.
STRETCH_NORMAL = (0.4, 2.5)
STRETCHED_FOR_SURE = (0.25, 4.0)  # ... outside this, reading it as it is would be reading noise
STRETCH_FACTORS = (2, 3, 4, 6, 8, 11, 16)  # the stretches tried on such a photo
STRETCH_MIN_SIDE = 32  # ... squeezing no side below this many pixels
TILE_SHAPED = (0.4, 2.5)  # width / height of a tile's box, upright or sideways, at a slant too
STRETCH_LOOK_SIDE = 640  # the anisotropy is measured on a copy this large (as the training photos are)
#: A picture of one tile (``mjcam classify``) may show more than the tile: a phone photo of a tile
#: on the table. The tile found nearest its centre (no further off it than ``ONE_TILE_CENTRE`` of
#: its own size) is read as well, and its reading is kept where its likeliest tile is likelier by
#: ``ONE_TILE_MARGIN`` than the whole picture's, and either the whole picture's is under
#: ``ONE_TILE_UNSURE`` or the detector is at least ``ONE_TILE_FOUND`` sure of the tile it found
#: (in a tight crop it finds parts of the engraving, less surely). Chosen on held-out photos and
#: unseen tile art: the model card.
ONE_TILE_CENTRE, ONE_TILE_MARGIN, ONE_TILE_UNSURE, ONE_TILE_FOUND = 0.5, 0.2, 0.35, 0.45


@dataclass
class TileRead:
    code: str
    confidence: float
    box: tuple[float, float, float, float]  # pixels of the photo as a person sees it
    alternatives: list[tuple[str, float]] = field(default_factory=list)
    group: int | None = None
    orientation: str = "upright"
    detection: float = 1.0  # the proposal stage's score

    def to_json(self) -> dict:
        return {"code": self.code, "confidence": round(self.confidence, 4),
                "box": [round(v, 1) for v in self.box],
                "alternatives": [{"code": c, "confidence": round(p, 4)} for c, p in self.alternatives],
                "group": self.group, "orientation": self.orientation}


@dataclass
class Recognition:
    path: str | None
    width: int
    height: int
    tiles: list[TileRead]
    groups: list[dict]
    hand: str | None
    needs_confirmation: list[int]
    notes: list[str] = field(default_factory=list)
    winning: int | None = None
    #: how many times across and down the photo was squeezed before it was read (a photo stretched
    #: out of shape is read squeezed back; 1, 1: as it is). Not in the JSON: the boxes already
    #: are in the photo's own pixels.
    squeeze: tuple[float, float] = (1.0, 1.0)
    #: which way the standing tiles' tops point in the photo, by the which-way-up probe: up, down,
    #: left, right; None where it could not tell. In the JSON (``tops``) so the table app can tell whose
    #: hand a photo shows from where the phone sits; the tiles' order already follows it.
    tops: str | None = None
    #: no tile was set apart as the winning tile: ``winning`` is the last concealed tile, taken for it
    winning_guessed: bool = False

    def to_json(self) -> dict:
        return {"image": {"path": self.path, "width": self.width, "height": self.height},
                "tiles": [t.to_json() for t in self.tiles],
                "groups": [{"tiles": g["tiles"], "melded": g["melded"], "kind": g["kind"]} for g in self.groups],
                "hand": self.hand,
                "needs_confirmation": self.needs_confirmation,
                "winning": self.winning,
                "winning_guessed": self.winning_guessed,
                "tops": self.tops,
                "notes": self.notes}

    @classmethod
    def from_json(cls, d: dict) -> "Recognition":
        """Back from :meth:`to_json` (or a batch record, which has the same keys)."""
        img = d.get("image") or {}
        tiles = [TileRead(t["code"], t["confidence"], tuple(t["box"]),
                          [(a["code"], a["confidence"]) for a in t.get("alternatives", [])],
                          t.get("group"), t.get("orientation", "upright")) for t in d.get("tiles") or []]
        return cls(img.get("path", d.get("path")), int(img.get("width", 0)), int(img.get("height", 0)), tiles,
                   list(d.get("groups") or []), d.get("hand"), list(d.get("needs_confirmation") or []),
                   list(d.get("notes") or []), d.get("winning"), tops=d.get("tops"),
                   winning_guessed=bool(d.get("winning_guessed")))

    def layout(self) -> str:
        """The tiles as laid out, set by set, each doubtful tile marked ``?`` — what a person checks."""
        flagged = set(self.needs_confirmation)
        parts = []
        for g in self.groups:
            codes = " ".join(self.tiles[p].code + ("?" if p in flagged else "") for p in g["tiles"])
            if g["kind"] == "stray":
                parts.append(f"· left out: {codes}")
                continue
            parts.append(f"[{codes}]" if g["melded"] else f"({codes})" if g["kind"] == "bonus" else codes)
        return "  ".join(parts)

    def doubts(self) -> list[str]:
        """One line per tile to check: its place, reading and the likeliest alternatives."""
        out = []
        for p in self.needs_confirmation:
            t = self.tiles[p]
            alts = ", ".join(f"{c} {q:.0%}" for c, q in t.alternatives[:2])
            out.append(f"tile {p + 1}: {t.code} ({t.confidence:.0%}; or {alts})")
        return out


def _centre(box) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def _inside(point, box, margin: float = 0.1) -> bool:
    mx, my = (box[2] - box[0]) * margin, (box[3] - box[1]) * margin
    return box[0] - mx <= point[0] <= box[2] + mx and box[1] - my <= point[1] <= box[3] + my


def _rows_run_down(boxes: list[tuple[float, float, float, float]]) -> bool | None:
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


def orientations(boxes: list[tuple[float, float, float, float]], codes: list[str]) -> tuple[list[str], bool]:
    """Each tile's orientation, and whether the rows run down the photo (a photo turned a quarter):
    where the tiles' nearest neighbours lie (:func:`_rows_run_down`), else the shape of most boxes.

    Most tiles of a hand stand; the tiles whose boxes are turned against the majority lie sideways.
    """
    wide = _rows_run_down(boxes)
    if wide is None:
        aspects = [(b[2] - b[0]) / max(1e-6, b[3] - b[1]) for b, c in zip(boxes, codes) if c != BACK]
        wide = bool(aspects) and float(np.median(aspects)) > 1.0
    out = []
    for b, c in zip(boxes, codes):
        r = (b[2] - b[0]) / max(1e-6, b[3] - b[1])
        if c == BACK:
            out.append("face-down")
        elif (r < 1 / SIDEWAYS_RATIO) if wide else (r > SIDEWAYS_RATIO):
            out.append("sideways")
        else:
            out.append("upright")
    return out, wide


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


def photo_order(boxes: list[tuple[float, float, float, float]], wide: bool, hand: int) -> list[int]:
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


def _reordered(order: list[int], tiles: list, groups: list[dict], flagged: list[int], winning: int | None,
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


def straddlers_out(boxes: list[tuple[float, float, float, float]], scores: list[float]) -> list[int]:
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


def _rows_across(boxes) -> bool:
    """Whether rows of upright tiles run across the photo: three or more tiles stand upright and
    they are at least half of all."""
    upright = sum(b[2] - b[0] < b[3] - b[1] for b in boxes)
    return upright >= 3 and upright * 2 >= len(boxes)


def row_gaps(boxes: list[tuple[float, float, float, float]]) -> list[tuple[float, float, float, float]]:
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


def grid_gaps(boxes: list[tuple[float, float, float, float]]) -> list[tuple[float, float, float, float]]:
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
    a, along, down = frame
    cos, sin = math.cos(a), math.sin(a)
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
    out: list[tuple[float, float, float, float]] = []
    taken: list[tuple[float, float]] = []
    for u, v, r in cells:
        x, y = u * cos - v * sin, u * sin + v * cos
        if any(math.hypot(x - p, y - q) < 0.5 * r["step"] for p, q in taken):
            continue  # the same cell from the row above and the row below
        box = (x - r["w"] / 2, y - r["h"] / 2, x + r["w"] / 2, y + r["h"] / 2)
        if any(_inside((x, y), b, 0.0) for b in boxes):
            continue
        taken.append((x, y))
        out.append(tuple(float(v) for v in box))
    return out


def _transposed(boxes):
    return [(b[1], b[0], b[3], b[2]) for b in boxes]


def shows_table(image: np.ndarray, box: tuple[float, float, float, float],
                others: list[tuple[float, float, float, float]]) -> bool:
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
    xa, xb = max(0, int(x0)), min(W, int(math.ceil(x1)))
    mid = image[max(0, int(y0 + h / 4)):min(H, int(y1 - h / 4)), max(0, int(x0 + w / 4)):min(W, int(x1 - w / 4))]
    if mid.size == 0 or xb <= xa:
        return False
    middle = np.median(mid.reshape(-1, mid.shape[-1]), axis=0)
    looked = 0
    for top, bottom in ((y0 - h / 4, y0), (y1, y1 + h / 4)):
        a, b = max(0, int(top)), min(H, int(math.ceil(bottom)))
        if b - a < 1:
            continue
        free = np.ones((b - a, xb - xa), bool)
        for o in others:  # pixels on another tile are not table
            oy0, oy1 = max(a, int(o[1])) - a, min(b, int(math.ceil(o[3]))) - a
            ox0, ox1 = max(xa, int(o[0])) - xa, min(xb, int(math.ceil(o[2]))) - xa
            if oy1 > oy0 and ox1 > ox0:
                free[oy0:oy1, ox0:ox1] = False
        if free.sum() < 0.25 * free.size:
            continue
        strip = image[a:b, xa:xb][free]
        if float(np.linalg.norm(np.median(strip, axis=0).astype(np.float64) - middle)) >= TABLE_LIKE:
            return False
        looked += 1
    return looked > 0


def holes(boxes: list[tuple[float, float, float, float]], grid: bool = True) -> list[tuple[float, float, float, float]]:
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


def anisotropy(image: np.ndarray) -> float:
    """How much stronger the image changes down it than across it: the root of the ratio of the
    squared vertical to horizontal gradients (Sobel) of its grey copy. About 1 for a photo (0.52-1.9
    over the training photos); stretching a photo ``f`` times across divides its horizontal
    gradients by about ``f``, so a photo stretched across reads well above 1, one stretched down it
    well below.

    >>> rng = np.random.default_rng(0)
    >>> noise = (rng.random((64, 64, 3)) * 255).astype(np.uint8)
    >>> 0.8 < anisotropy(noise) < 1.25
    True
    >>> import cv2
    >>> anisotropy(cv2.resize(noise, (640, 64), interpolation=cv2.INTER_LINEAR)) > 4
    True
    """
    import cv2

    g = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY).astype(np.float32)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1)
    return math.sqrt(float((gy * gy).sum()) / max(1e-6, float((gx * gx).sum())))


def squeezed(image: np.ndarray, fx: float, fy: float) -> np.ndarray:
    """The image squeezed ``fx`` times across and ``fy`` times down (area-averaged), each side at
    least a pixel.

    >>> squeezed(np.zeros((64, 640, 3), np.uint8), 8, 1).shape
    (64, 80, 3)
    """
    import cv2

    h, w = image.shape[:2]
    return cv2.resize(image, (max(1, round(w / fx)), max(1, round(h / fy))), interpolation=cv2.INTER_AREA)


def stretches(image: np.ndarray) -> tuple[list[tuple[float, float]], bool]:
    """The stretches ``(across, down)`` worth undoing before a photo is read, and whether it is
    surely stretched. None for a photo whose :func:`anisotropy` (on a copy at most
    ``STRETCH_LOOK_SIDE`` pixels long) lies in ``STRETCH_NORMAL``; otherwise each of
    ``STRETCH_FACTORS`` along the axis it was stretched along that brings its anisotropy back into
    ``STRETCH_NORMAL``, as long as squeezing it back leaves ``STRETCH_MIN_SIDE`` pixels. Surely
    stretched: outside ``STRETCHED_FOR_SURE`` as well, where no photo as taken lies.

    >>> stretches(np.zeros((8, 8, 3), np.uint8))
    ([], False)
    """
    h, w = image.shape[:2]
    small = shrink(image, STRETCH_LOOK_SIDE)
    a = anisotropy(small)
    if STRETCH_NORMAL[0] <= a <= STRETCH_NORMAL[1] or not a:
        return [], False
    side = w if a > 1 else h
    factors = [(f, 1.0) if a > 1 else (1.0, f) for f in STRETCH_FACTORS if side / f >= STRETCH_MIN_SIDE]
    factors = [(fx, fy) for fx, fy in factors
               if STRETCH_NORMAL[0] <= anisotropy(squeezed(small, fx, fy)) <= STRETCH_NORMAL[1]]
    return factors, bool(factors) and not STRETCHED_FOR_SURE[0] <= a <= STRETCHED_FOR_SURE[1]


def _sureness(r: "Recognition", low: float, squeeze: tuple[float, float] = (1.0, 1.0)) -> float:
    """How well a reading went: the summed confidence of the tiles read surely in a box shaped like
    a tile (``TILE_SHAPED``), measured in the copy read (the photo squeezed ``squeeze`` times)."""
    lo, hi = TILE_SHAPED
    return sum(t.confidence for t in r.tiles if t.confidence >= low and
               lo <= (t.box[2] - t.box[0]) * squeeze[1] / max(1e-9, (t.box[3] - t.box[1]) * squeeze[0]) <= hi)


class Recognizer:
    """``recognizer(path)`` -> :class:`Recognition`; ``recognizer.read(image)`` for an RGB array.

    ``refiner``: the box refiner that redraws the detector's boxes (``True``: the shipped one;
    ``None`` or ``False``: the detector's boxes as they come). ``up``: the which-way-up probe that
    tells a hand photographed from across the table or turned a quarter which way round to read
    (``True``: the shipped one; ``None`` or ``False``: the photo's own order)."""

    def __init__(self, classifier: TileClassifier | None = None, proposers=None, work_side: int = WORK_SIDE,
                 low_confidence: float = LOW_CONFIDENCE, refiner: BoxRefiner | None | bool = True, fill_gaps: bool = True,
                 drop_straddlers: bool = True, fill_grid: bool = True, unstretch: bool = True,
                 brighten: bool = True, balance: bool = True, up: UpProbe | None | bool = True):
        self.classifier = classifier or TileClassifier()
        self.up = UpProbe() if up is True else (up or None)
        self.proposers = proposers if proposers is not None else [LearnedProposer()]
        self.refiner = BoxRefiner() if refiner is True else (refiner or None)
        self.fill_gaps = fill_gaps
        self.fill_grid = fill_grid
        self.drop_straddlers = drop_straddlers
        self.unstretch = unstretch
        # vision.light: a dim photo brightened; a colour cast turned back (judged from the detector's
        # boxes, then looked at again: the recogniser's card, "The cast turned back, judged again")
        self.brighten, self.balance = brighten, balance
        self.work_side = work_side
        self.grouper = MeldGrouper(low_confidence)
        self.low_confidence = low_confidence

    def _reading(self, p: np.ndarray) -> tuple[int, float, list[tuple[str, float]], float]:
        """A crop's class probabilities as ``read`` keeps them: the likeliest tile (class index and
        probability, not-a-tile aside), the next ones, and the not-a-tile probability."""
        classes = self.classifier.classes
        nat = classes.index(NOT_A_TILE)
        order = [int(k) for k in np.argsort(-p) if int(k) != nat]
        alts = [(classes[k], float(p[k])) for k in order[1:1 + self.classifier.alternatives]]
        return order[0], float(p[order[0]]), alts, float(p[nat])

    def _read_gaps(self, image: np.ndarray, boxes: list) -> list:
        """Tiles in the one-tile gaps of the rows found (see :func:`row_gaps`) and in the missing
        cells of a grid (:func:`grid_gaps`, unless ``fill_grid`` is off), where the classifier is
        sure it sees a tile there; as ``read`` keeps them."""
        gaps = holes(boxes, self.fill_grid)
        if not gaps:
            return []
        out = []
        for box, p in zip(gaps, self.classifier.box_probabilities(image, gaps)):
            best, conf, alts, p_not = self._reading(p)
            if p_not < GAP_MAX_NOT and conf >= GAP_MIN_CONF:
                out.append((Proposal(box, GAP_SCORE, "gap"), best, conf, alts, p_not))
        return out

    def locate(self, image: np.ndarray) -> list[Proposal]:
        """All proposals, the detector's boxes redrawn by the box refiner, near-duplicates removed
        (OpenCV NMS)."""
        props = [p for proposer in self.proposers for p in proposer(image)]
        learned = [i for i, p in enumerate(props) if p.source == "learned"]
        if self.refiner is not None and learned:
            boxes = self.refiner(image, [props[i].box for i in learned])
            for i, b in zip(learned, boxes):
                if b[2] - b[0] >= 2 and b[3] - b[1] >= 2:
                    props[i] = Proposal(tuple(float(v) for v in b), props[i].score, props[i].source)
        keep = suppress([p.box for p in props], [p.score for p in props], iou=0.6)
        return [props[k] for k in keep]

    def __call__(self, path: str) -> Recognition:
        return self.load_and_read(path)[1]

    def read_one(self, image: np.ndarray) -> tuple[TileLabel, tuple[float, float, float, float] | None]:
        """The tile in a picture of one tile, and its box in the picture's pixels (None: the whole
        picture). The whole picture is read as the tile, and so is the tile found nearest its centre
        (on a copy at most ``work_side`` long); the latter's reading is kept where its likeliest tile
        (``not-a-tile`` aside) is likelier by ``ONE_TILE_MARGIN`` and the whole picture's reading is
        unsure or the detector sure (see ``ONE_TILE_UNSURE``), so a tight crop reads as before and a
        tile photographed with the table around it is read from its own box."""
        h, w = image.shape[:2]
        boxes: list = [(0.0, 0.0, float(w), float(h))]
        small = shrink(image, self.work_side)
        s = w / small.shape[1]
        near, off, found = None, ONE_TILE_CENTRE, 0.0
        for p in self.locate(small):
            x1, y1, x2, y2 = (v * s for v in p.box)
            d = max(abs((x1 + x2 - w) / 2) / max(1e-6, x2 - x1), abs((y1 + y2 - h) / 2) / max(1e-6, y2 - y1))
            if d <= off:
                near, off, found = (x1, y1, x2, y2), d, p.score
        if near is not None:
            boxes.append(near)
        probs = self.classifier.box_probabilities(image, boxes)
        labels = self.classifier.labels(probs)
        tile = [self._reading(p)[1] for p in probs]
        if near is not None and tile[1] > tile[0] + ONE_TILE_MARGIN and (
                tile[0] < ONE_TILE_UNSURE or found >= ONE_TILE_FOUND):
            return labels[1], near
        return labels[0], None

    def load_and_read(self, path: str) -> tuple[np.ndarray, Recognition]:
        """The working copy of the photo (long side at most ``work_side``) and its reading."""
        image, size = load_photo(path, self.work_side)
        return image, self.read(image, size, path)

    def read(self, image: np.ndarray, full_size: tuple[int, int] | None = None, path: str | None = None) -> Recognition:
        """The reading of an RGB photo (``full_size``: the original's size, when ``image`` is a
        smaller copy of it: boxes are reported in the original's pixels).

        A photo stretched out of shape (see :func:`stretches`; ``unstretch`` off: never) is also read
        squeezed back by each likely factor, and the reading with the most sure tiles in boxes shaped
        like tiles is kept (as it is, only if it might not be stretched after all: a photo surely
        stretched is not read as it is). A dim photo is read brightened (``brighten``,
        :func:`vision.light.brightened`); a colour cast the tile faces show is turned back and the
        photo looked at again (``balance``, :func:`vision.light.balanced`)."""
        h0, w0 = image.shape[:2]
        image = shrink(image, self.work_side)
        full_w, full_h = full_size or (w0, h0)
        gain = 1.0
        if self.brighten:
            image, gain = brightened(image)
        factors, surely = stretches(image) if self.unstretch else ([], False)
        best = None if surely else self._read_as_is(image, full_w, full_h, path)
        sure = _sureness(best, self.low_confidence) if best is not None and factors else -1.0
        for fx, fy in factors:
            r = self._read_as_is(squeezed(image, fx, fy), full_w, full_h, path)
            score = _sureness(r, self.low_confidence, (fx, fy))
            if score > sure:
                sure = score
                axis = "across" if fx > 1 else "down"
                r.notes.append(f"the photo looks stretched about {max(fx, fy):g} times {axis} it: "
                               "read squeezed back")
                r.squeeze = (float(fx), float(fy))
                best = r
        if gain != 1:
            best.notes.append(f"the photo is dim: read {gain:.1f} times as bright")
        return best  # a photo surely stretched has factors, and the first of them is kept at least

    def _read_as_is(self, image: np.ndarray, full_w: int, full_h: int, path: str | None) -> Recognition:
        """The reading of a working copy ``image`` of a photo ``full_w`` x ``full_h``, the copy taken
        to have the photo's shape (it may be squeezed along one axis)."""
        sx, sy = full_w / image.shape[1], full_h / image.shape[0]
        props = self.locate(image)
        gains = np.ones(3)
        if self.balance:  # a colour cast, judged from the tile faces, turned back; then looked at again
            image, gains = balanced(image, [p.box for p in props])
            if np.any(gains != 1):
                props = self.locate(image)
        probs = self.classifier.box_probabilities(image, [p.box for p in props])
        classes = self.classifier.classes
        kept: list[tuple[Proposal, int, float, list[tuple[str, float]], float]] = []
        for prop, p in zip(props, probs):
            best, conf, alts, p_not = self._reading(p)
            if p_not >= SURE_NOT_A_TILE or (p_not >= DROP_NOT_A_TILE and prop.score < SURE_TILE):
                continue
            kept.append((prop, best, conf, alts, p_not))
        # duplicates left after classification: keep the likelier tile
        keep = suppress([k[0].box for k in kept], [k[0].score * k[2] for k in kept], iou=DUPLICATE_IOU,
                        core=DUPLICATE_CORE)
        kept = [kept[k] for k in keep]
        if self.drop_straddlers:
            kept = [kept[k] for k in straddlers_out([k[0].box for k in kept], [k[0].score * k[2] for k in kept])]
        if self.fill_gaps:
            kept += self._read_gaps(image, [k[0].box for k in kept])
        # a face-down tile that is only the table seen between two melds
        kept = [k for i, k in enumerate(kept) if classes[k[1]] != BACK
                or not shows_table(image, k[0].box, [o[0].box for j, o in enumerate(kept) if j != i])]
        boxes = [k[0].box for k in kept]
        codes = [classes[k[1]] for k in kept]
        orient, wide = orientations(boxes, codes)
        down = None
        if self.up is not None:  # which way up the standing tiles are: the order to read them in
            standing = [b for b, c, o in zip(boxes, codes, orient) if o == "upright" and c not in (BACK, NOT_A_TILE)]
            if len(standing) >= UP_MIN_TILES:  # (fewer cannot be told: the probe is not run)
                down = up_decision(self.up.down_log_odds(image, standing), len(standing))
        to_frame = hand_frame(wide, down)
        obs = []
        for (prop, _, conf, alts, p_not), code, o in zip(kept, codes, orient):
            gbox = to_frame(prop.box)  # the hand as its player sees it: rows across, read left to right
            # a tile the classifier half thinks is no tile at all is doubtful however sure the code
            obs.append(TileObs(gbox, code, conf if p_not < 0.25 else min(conf, self.low_confidence - 1e-3), alts, o))
        hand_idx, stray_idx = hand_and_strays(obs)
        guess = self.grouper([obs[i] for i in hand_idx])
        guess.order = [hand_idx[i] for i in guess.order]
        stray_order = [stray_idx[i] for r in reading_order([obs[i] for i in stray_idx]) for i in r]
        tiles = []
        for pos, i in enumerate(guess.order + stray_order):
            prop, _, read_conf, alts, _ = kept[i]
            code, conf = obs[i].code, obs[i].confidence
            if pos < len(guess.codes) and guess.codes[pos] != code:
                # the rules chose an alternative for a hand tile: report its own confidence
                code = guess.codes[pos]
                alts = [(obs[i].code, read_conf)] + [a for a in alts if a[0] != code]
                conf = next((p for c, p in obs[i].alternatives if c == code), 0.0)
            b = prop.box
            tiles.append(TileRead(code, conf, (b[0] * sx, b[1] * sy, b[2] * sx, b[3] * sy), alts, None,
                                  obs[i].orientation, prop.score))
        groups = []
        for gi, g in enumerate(guess.groups):
            for p in g["tiles"]:
                tiles[p].group = gi
            groups.append({"tiles": list(g["tiles"]), "melded": bool(g["melded"]), "kind": g["kind"]})
        notes = list(guess.notes)
        if stray_order:
            first = len(guess.order)
            for p in range(first, len(tiles)):
                tiles[p].group = len(groups)
            groups.append({"tiles": list(range(first, len(tiles))), "melded": False, "kind": "stray"})
            notes.append(f"{len(stray_order)} tile(s) away from the hand (behind it, or a wall) are left out of it")
        flagged, winning = list(guess.needs_confirmation), guess.winning
        if down is not None:  # grouped as its player sees the hand, listed in the photo's reading order
            order = photo_order([kept[i][0].box for i in guess.order + stray_order], wide, len(guess.order))
            tiles, groups, flagged, winning, notes = _reordered(order, tiles, groups, flagged, winning, notes)
        if wide or down:
            notes.append(FRAME_NOTES[wide, down])
        if np.any(gains != 1):
            notes.append("the tile faces show a colour cast: read with red, green and blue scaled "
                         + " / ".join(f"{g:.2f}" for g in gains))
        if not tiles:
            notes.append("no tiles found")
        return Recognition(path, int(full_w), int(full_h), tiles, groups, guess.hand, flagged, notes, winning,
                           tops=TOPS.get((wide, down)), winning_guessed=guess.winning_guessed)


_default: list[Recognizer] = []
_lock = threading.Lock()


def default_recognizer() -> Recognizer:
    """The process-wide recognizer of the shipped models, made on first use."""
    with _lock:
        if not _default:
            _default.append(Recognizer())
        return _default[0]


def recognize(photo) -> Recognition:
    """Read the hand in a photo (a path, or an RGB array): the content of ``mjcam recognize --json``."""
    r = default_recognizer()
    if isinstance(photo, np.ndarray):
        return r.read(photo)
    return r(str(photo))
