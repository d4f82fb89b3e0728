"""Whole hands laid out on a table as players lay them down, rendered from real tile crops, with the
hand's structure as ground truth: for measuring how the structure of a hand is read
(``python -m benchmarks.hand_eval``).

The faces are crops of real tiles cut from labelled photos (:func:`face_bank`: pass photos no
model was trained on). A scene is drawn as a camera sees it:

- the concealed tiles standing in a row; the melded sets face up in front of it (nearer the camera:
  larger, lower in the photo and foreshortened), beside it in the same line, or behind it; the
  claimed tile of each set turned sideways or, at tables that do not turn it, not turned;
- the whole hand pushed down flat, face up, in one or two rows;
- kongs as four in a row, as three with the fourth laid on top, concealed kongs with face-down ends;
- flowers and seasons apart from the sets; the winning tile apart, lying flat or turned at the
  row's end, or not apart at all;
- seen from the seat at an angle (a keystone warp: the far side narrower), from straight above,
  or from across the table (upside down); with a wall of face-down tiles and loose discards in the
  frame for :data:`CLUTTER` layouts.

Each layout of :data:`LAYOUTS` is one way of laying a hand down; :func:`render_scene` draws one
hand in it, and :func:`random_hand` deals a random legal winning hand to draw.
"""

from __future__ import annotations

import math
import os
import random
from dataclasses import dataclass, field

import cv2
import numpy as np

from mjcam.scoring.notation import Hand, Meld, format_hand
from mjcam.scoring.tiles import INDEX

from .synthetic import table_background, tile_back

SUITED = [f"{n}{s}" for s in "mps" for n in range(1, 10)]
HONOURS = ["E", "S", "W", "N", "Rd", "Gd", "Wd"]
BONUS = ["F1", "F2", "F3", "F4", "S1", "S2", "S3", "S4"]

#: the layouts: how the melds lie, whether the claimed tile is turned, how the winning tile lies,
#: the kongs, and the view
LAYOUTS = {
    "row, melds in front, turned": dict(melds="front", turn=True, win="apart"),
    "row, melds in front, not turned": dict(melds="front", turn=False, win="apart"),
    "row, melds beside, turned": dict(melds="beside", turn=True, win="apart"),
    "row, melds behind, not turned": dict(melds="behind", turn=False, win="apart"),
    "row, winning tile lying flat at the end": dict(melds="front", turn=True, win="flat"),
    "row, winning tile turned at the end": dict(melds="beside", turn=True, win="turned"),
    "row, winning tile not apart": dict(melds="front", turn=True, win="none"),
    "row, kong with the fourth on top": dict(melds="front", turn=False, win="apart", kong="stacked"),
    "row, concealed kong with face-down ends": dict(melds="front", turn=True, win="apart", kong="concealed"),
    "flat, one row": dict(melds="front", turn=True, win="apart", flat=True),
    "flat, two rows": dict(melds="front", turn=True, win="apart", flat=True, rows=2),
    "from straight above": dict(melds="front", turn=True, win="apart", view="above"),
    "from across the table": dict(melds="front", turn=True, win="apart", view="across"),
    "walls and discards in the frame": dict(melds="front", turn=True, win="apart", clutter=True),
}
CLUTTER = {name for name, lay in LAYOUTS.items() if lay.get("clutter")}


@dataclass
class SceneTile:
    code: str  # a tile code or 'back'
    box: tuple[float, float, float, float]


@dataclass
class Scene:
    layout: str
    hand: str  # the hand in notation: melded sets, concealed kongs, concealed tiles, bonus, +winning
    win_apart: bool  # the winning tile is laid apart (its place says which tile won)
    image: np.ndarray
    tiles: list[SceneTile] = field(default_factory=list)  # the hand's tiles only (not the clutter)


# ------------------------------------------------------------------ faces

def face_bank(records: list, per_code: int = 8, seed: int = 0, min_height: int = 22) -> dict[str, list[np.ndarray]]:
    """Up to ``per_code`` crops of each tile from labelled photos (``datasets.readers.LabelledImage``):
    boxes labelled once, of an upright tile's shape (0.55 to 0.9 as wide as tall), at least
    ``min_height`` pixels tall, each from a different photo where there are enough. Crops of
    rethink-bonus's ``rotated_`` copies (their photos turned half round) are turned back upright: a
    hand's faces all stand one way, and the which-way-up probe reads a hand by all of them."""
    from .crops import load_rgb

    def upright(rec, crop: np.ndarray) -> np.ndarray:
        return crop[::-1, ::-1].copy() if os.path.basename(rec.path).startswith("rotated_") else crop.copy()

    rnd = random.Random(seed)
    recs = list(records)
    rnd.shuffle(recs)
    bank: dict[str, list[np.ndarray]] = {}
    for rec in recs:
        try:
            image = None
            for box, codes in rec.tiles():
                if len(codes) != 1 or codes[0] not in INDEX:
                    continue
                x1, y1, x2, y2 = (int(round(v)) for v in box)
                w, h = x2 - x1, y2 - y1
                if h < min_height or not 0.55 <= w / max(h, 1) <= 0.9 or len(bank.get(codes[0], [])) >= per_code:
                    continue
                if image is None:
                    image = load_rgb(rec.path)
                crop = image[max(0, y1):y2, max(0, x1):x2]
                if crop.size:
                    bank.setdefault(codes[0], []).append(upright(rec, crop))
                    break  # one crop a photo at a time: many photos' sets and light
        except ValueError:
            continue
    if any(len(v) < per_code for v in bank.values()) or len(bank) < len(INDEX):  # a second pass, any tile
        for rec in recs:
            image = None
            for box, codes in rec.tiles():
                if len(codes) != 1 or codes[0] not in INDEX or len(bank.get(codes[0], [])) >= per_code:
                    continue
                x1, y1, x2, y2 = (int(round(v)) for v in box)
                w, h = x2 - x1, y2 - y1
                if h < min_height or not 0.55 <= w / max(h, 1) <= 0.9:
                    continue
                if image is None:
                    try:
                        image = load_rgb(rec.path)
                    except ValueError:
                        break
                crop = image[max(0, y1):y2, max(0, x1):x2]
                if crop.size:
                    bank.setdefault(codes[0], []).append(upright(rec, crop))
    return bank


# ------------------------------------------------------------------ hands

def random_hand(rng: random.Random, melds: int, kong: str | None = None, bonus: int = 1) -> dict:
    """A random legal winning hand: ``melds`` melded sets (one of them a kong where ``kong`` is
    'stacked'), a concealed kong where ``kong`` is 'concealed', the rest concealed sets and a pair,
    ``bonus`` flowers or seasons. ``{"melds": [(kind, codes)], "ckongs": [code], "concealed": [codes],
    "winning": code, "bonus": [codes]}``; the winning tile is one of the concealed tiles."""
    count: dict[str, int] = {}

    def take(codes) -> bool:
        if any(count.get(c, 0) + codes.count(c) > 4 for c in set(codes)):
            return False
        for c in codes:
            count[c] = count.get(c, 0) + 1
        return True

    def a_set(kind=None):
        while True:
            k = kind or rng.choice(["chow", "chow", "pung"])
            if k == "chow":
                s, n = rng.choice("mps"), rng.randint(1, 7)
                codes = [f"{n + i}{s}" for i in range(3)]
            else:
                codes = [rng.choice(SUITED + HONOURS)] * (4 if k == "kong" else 3)
            if take(codes):
                return k, codes

    out = {"melds": [], "ckongs": [], "concealed": [], "bonus": rng.sample(BONUS, bonus)}
    sets = 4
    if kong == "stacked":
        out["melds"].append(a_set("kong"))
        sets -= 1
        melds = max(0, melds - 1)
    if kong == "concealed":
        out["ckongs"].append(a_set("kong")[1][0])
        sets -= 1
    for _ in range(min(melds, sets)):
        out["melds"].append(a_set())
    for _ in range(sets - min(melds, sets)):
        out["concealed"] += a_set()[1]
    while True:
        pair = [rng.choice(SUITED + HONOURS)] * 2
        if take(pair):
            break
    out["concealed"] += pair
    out["concealed"].sort(key=lambda c: INDEX[c])
    out["winning"] = rng.choice(out["concealed"])
    return out


def notation(hand: dict) -> str:
    melds = [Meld(kind, tuple(sorted(INDEX[c] for c in codes))) for kind, codes in hand["melds"]]
    melds += [Meld("kong", (INDEX[c],) * 4, concealed=True) for c in hand["ckongs"]]
    return format_hand(Hand(tuple(sorted(INDEX[c] for c in hand["concealed"])), tuple(melds),
                            tuple(sorted(INDEX[c] for c in hand["bonus"])), INDEX[hand["winning"]]))


# ------------------------------------------------------------------ drawing

def _face(bank, code: str, rng: random.Random, w: int, h: int) -> np.ndarray:
    if code == "back":
        return cv2.resize(tile_back(np.random.default_rng(rng.randrange(1 << 30)), 160), (w, h))
    return cv2.resize(rng.choice(bank[code]), (w, h), interpolation=cv2.INTER_AREA)


class _Canvas:
    """Tiles placed in the table's frame before the view's warp: ``(image, code, x, y, in hand)``."""

    def __init__(self):
        self.items: list[tuple[np.ndarray, str, float, float, bool]] = []

    def put(self, img: np.ndarray, code: str, x: float, y: float, hand: bool = True) -> float:
        self.items.append((img, code, x, y, hand))
        return x + img.shape[1]

    def draw(self, rng: random.Random, margin: int) -> tuple[np.ndarray, list[tuple[str, tuple, bool]]]:
        x0 = min(x for _, _, x, _, _ in self.items) - margin
        y0 = min(y for _, _, _, y, _ in self.items) - margin
        W = int(max(x + i.shape[1] for i, _, x, _, _ in self.items) - x0 + margin)
        H = int(max(y + i.shape[0] for i, _, _, y, _ in self.items) - y0 + margin)
        canvas = table_background(np.random.default_rng(rng.randrange(1 << 30)), H, W)
        out = []
        for img, code, x, y, hand in self.items:
            xi, yi = int(x - x0), int(y - y0)
            h, w = img.shape[:2]
            shade = canvas[yi + 2:yi + h + 3, xi + 2:xi + w + 3]
            shade[:] = (shade * 0.75).astype(np.uint8)
            canvas[yi:yi + h, xi:xi + w] = img
            out.append((code, (xi, yi, xi + w, yi + h), hand))
        return canvas, out


def render_scene(layout: str, hand: dict, bank: dict[str, list[np.ndarray]], seed: int = 0) -> Scene:
    """``hand`` (:func:`random_hand`) laid out as ``layout`` (a key of :data:`LAYOUTS`) and
    photographed: the picture, the hand's tiles' boxes and the hand in notation."""
    lay = LAYOUTS[layout]
    rng = random.Random(seed)
    th = rng.randint(56, 84)
    tw = int(th * rng.uniform(0.68, 0.78))
    flat = lay.get("flat", False)
    view = lay.get("view", "seat")
    squash = 1.0 if view == "above" else rng.uniform(0.55, 0.8)  # a face up tile seen at an angle
    near = 1.0 if view == "above" else rng.uniform(1.08, 1.25)  # nearer the camera: larger
    far = 1.0 / near
    row_h = int(th * (squash if flat else 1.0))
    cv = _Canvas()
    gap = lambda: tw * rng.uniform(0.45, 0.8)  # noqa: E731

    def lying(code: str, scale: float, turned: bool) -> np.ndarray:
        w, h = int(tw * scale), int(th * scale)
        img = _face(bank, code, rng, w, h)
        if turned:
            img = cv2.rotate(img, rng.choice([cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_90_COUNTERCLOCKWISE]))
        if view != "above":
            img = cv2.resize(img, (img.shape[1], max(8, int(img.shape[0] * squash))))
        return img

    def standing(code: str, scale: float = 1.0) -> np.ndarray:
        return lying(code, scale, False) if flat else _face(bank, code, rng, int(tw * scale), int(th * scale))

    # the concealed row
    concealed = list(hand["concealed"])
    win = hand["winning"]
    wl = lay["win"]
    if wl != "none":
        concealed.remove(win)
    rows = [concealed]
    if lay.get("rows", 1) == 2 and len(concealed) > 6:
        k = len(concealed) // 2
        rows = [concealed[:k], concealed[k:]]
    y = 0.0
    x = 0.0
    for r, codes in enumerate(rows):
        x = 0.0
        for c in codes:
            x = cv.put(standing(c), c, x, y) + 1
        if r < len(rows) - 1:
            y += row_h * 1.08
    end_x, row_y = x, y
    if wl == "apart":
        x = cv.put(standing(win), win, end_x + gap(), row_y)
    elif wl == "flat":
        img = lying(win, 1.0, True)
        cv.put(img, win, end_x + gap(), row_y + row_h - img.shape[0])
    elif wl == "turned":
        img = lying(win, 1.0, True)
        x = cv.put(img, win, end_x + 1, row_y + row_h - img.shape[0])
    sets = [(kind, codes, False) for kind, codes in hand["melds"]] + [("ckong", [c] * 4, True) for c in hand["ckongs"]]
    rng.shuffle(sets)
    where = lay["melds"]
    if where == "front":
        mx, my, scale = rng.uniform(-0.5, 1.5) * tw, row_y + row_h + th * rng.uniform(0.35, 0.7), near
    elif where == "behind":
        mx, my, scale = rng.uniform(0, 2) * tw, -th * far * squash - th * rng.uniform(0.3, 0.6), far
    else:  # beside: in the row's line, after the winning tile
        mx, my, scale = max(end_x, x) + gap() * 1.5, row_y, 1.0
    for kind, codes, hidden in sets:
        turn_at = rng.randrange(len(codes)) if lay["turn"] and not hidden and kind != "kong" else -1
        if lay["turn"] and kind == "kong" and lay.get("kong") != "stacked":
            turn_at = rng.randrange(4)
        stacked = kind == "kong" and lay.get("kong") == "stacked"
        imgs = []
        for k, c in enumerate(codes[:3] if stacked else codes):
            face_down = hidden and k in (0, 3)
            if where == "beside" and not flat:
                img = lying(c, scale, True) if k == turn_at else standing("back" if face_down else c, scale)
            else:
                img = lying("back" if face_down else c, scale, k == turn_at)
            imgs.append(("back" if face_down else c, img))
        base = my + max(i.shape[0] for _, i in imgs)
        start = mx
        for c, img in imgs:
            mx = cv.put(img, c, mx, base - img.shape[0]) + 1
        if stacked:  # the fourth tile on top of the middle one, a little up the table
            top = lying(codes[3], scale, False)
            mid = start + (mx - start) / 2 - top.shape[1] / 2
            cv.put(top, codes[3], mid, base - imgs[1][1].shape[0] - top.shape[0] * rng.uniform(0.35, 0.6))
        mx += gap()
    # flowers and seasons apart: at the end of the melds, or behind the row
    bx = mx + gap() if sets else end_x + 3 * tw
    by = my if sets else row_y
    for c in hand["bonus"]:
        img = lying(c, near if sets and where == "front" else 1.0, False)
        bx = cv.put(img, c, bx, by) + 1
    if lay.get("clutter"):
        wall_y = min(y for _, _, _, y, _ in cv.items) - th * rng.uniform(1.6, 2.4)
        wx = rng.uniform(-1, 2) * tw
        back = cv2.resize(_face(bank, "back", rng, tw, th), (int(tw * far * 0.9), int(th * far * squash * 0.7)))
        for _ in range(rng.randint(8, 14)):  # one set's backs, each a little lighter or darker
            img = np.clip(back.astype(np.float32) * rng.uniform(0.9, 1.1), 0, 255).astype(np.uint8)
            wx = cv.put(img, "back", wx, wall_y, hand=False) + 1
        for _ in range(rng.randint(3, 6)):
            code = rng.choice(list(bank))
            img = lying(code, far * 0.8, rng.random() < 0.3)
            cv.put(img, code, rng.uniform(0, 14) * tw, wall_y - th * rng.uniform(1.2, 2.5), hand=False)
    image, placed = cv.draw(rng, margin=int(th * 0.8))
    image, placed = _view(image, placed, view, rng)
    tiles = [SceneTile(code, box) for code, box, ours in placed if ours]
    return Scene(layout, notation(hand), wl in ("apart", "flat", "turned"), image, tiles)


def _view(image: np.ndarray, placed: list, view: str, rng: random.Random):
    """The table photographed: from the seat, a keystone (the far side narrower); from above, a
    slight tilt; from across the table, turned half round as well."""
    H, W = image.shape[:2]
    k = rng.uniform(0.04, 0.12) if view != "above" else rng.uniform(0.0, 0.03)
    j = lambda: rng.uniform(-0.015, 0.015)  # noqa: E731
    src = np.float32([[0, 0], [W, 0], [W, H], [0, H]])
    dst = np.float32([[W * (k + j()), H * j()], [W * (1 - k + j()), H * j()], [W * (1 + j()), H * (1 + j())],
                      [W * j(), H * (1 + j())]])
    dst -= dst.min(axis=0)
    size = (int(math.ceil(dst[:, 0].max())), int(math.ceil(dst[:, 1].max())))
    m = cv2.getPerspectiveTransform(src, dst)
    out = cv2.warpPerspective(image, m, size, borderMode=cv2.BORDER_REPLICATE)
    boxes = []
    for code, (x1, y1, x2, y2), ours in placed:
        pts = cv2.perspectiveTransform(np.float32([[[x1, y1], [x2, y1], [x2, y2], [x1, y2]]]), m)[0]
        boxes.append((code, (float(pts[:, 0].min()), float(pts[:, 1].min()), float(pts[:, 0].max()),
                             float(pts[:, 1].max())), ours))
    if view == "across":
        out = cv2.rotate(out, cv2.ROTATE_180)
        h, w = out.shape[:2]
        boxes = [(c, (w - b[2], h - b[3], w - b[0], h - b[1]), o) for c, b, o in boxes]
    return out, boxes
