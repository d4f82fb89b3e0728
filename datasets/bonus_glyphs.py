"""Flowers and seasons drawn the way an unseen tile set may draw them: the name character (春夏秋冬
for the seasons, 梅蘭菊竹 for the flowers) and a numeral (1-4 or 一二三四) from one of the
installed Chinese fonts, over a made-up plant picture.

The tile sets in our photos draw each flower and season with one picture; a set the models have
never seen draws other pictures, and what stays the same from set to set is the character and
the number. These faces vary everything else — fonts (sans, serif, ming, kai, brush-like), inks,
where the character and numeral sit, whether a picture is there and what it shows — so that a
model learns to read those two. The numeral's style is drawn independently of the class (real
Hong Kong sets tend to number flowers 1-4 and seasons 一二三四, but not every set does, so it must
not become a shortcut).

:func:`glyph_face` draws the other tiles that sets write in characters the same way — the
characters suit (一…九, five now and then 伍, over 萬), the winds 東南西北, the red and green
dragons 中 發 — drawn for an earlier classifier's training and kept for rendering (no shipped model trained on
them; models/EXPERIMENTS.md).

``brush=True`` writes the flowers' and seasons' names as a hand would (:func:`brushed`): from
sixteen fonts, the strokes bent, bolder or finer, the character leant — for tile sets whose names
are painted in running hand, which no font draws (tried for an earlier bonus reader, not shipped;
models/EXPERIMENTS.md). :func:`glyph_face` writes every character of the other tiles so too.

Fonts (training only; nothing is stored in the repository): Debian ``fonts-noto-cjk`` (OFL-1.1),
``fonts-arphic-ukai`` and ``fonts-arphic-uming`` (Arphic Public License), ``fonts-wqy-zenhei``
(GPL-2 with font embedding exception), ``fonts-cwtex-kai`` (GPL-2); for ``brush`` also
``fonts-lxgw-wenkai`` (OFL-1.1), ``fonts-cns11643-kai`` (Open Government Data License Taiwan 1.0),
``fonts-arphic-bkai00mp`` (Arphic Public License), ``fonts-cwtex-fs``, ``-yen``, ``-ming``,
``-heib`` (GPL-2) and ``fonts-klee`` (OFL-1.1).
"""

from __future__ import annotations

import functools
import os

import cv2
import numpy as np

NAMES = {"S1": "春", "S2": "夏", "S3": "秋", "S4": "冬", "F1": "梅", "F2": "蘭", "F3": "菊", "F4": "竹"}
SIMPLIFIED = {"F2": "兰"}  # the only one of the eight that the simplified script writes otherwise
NUMERALS = ("1234", "一二三四")
CJK_FONTS = (
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc",
    "/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc",
    "/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc",
    "/usr/share/fonts/truetype/arphic/ukai.ttc",
    "/usr/share/fonts/truetype/arphic/uming.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/truetype/cwtex/cwkai.ttf",
)
# more hands, for names written as a brush would (``brush``)
BRUSH_FONTS = (
    "/usr/share/fonts/truetype/lxgw-wenkai/LXGWWenKai-Regular.ttf",
    "/usr/share/fonts/truetype/cns11643/TW-Kai-98_1.ttf",
    "/usr/share/fonts/truetype/arphic-bkai00mp/bkai00mp.ttf",
    "/usr/share/fonts/truetype/cwtex/cwfs.ttf",
    "/usr/share/fonts/truetype/cwtex/cwyen.ttf",
    "/usr/share/fonts/truetype/cwtex/cwming.ttf",
    "/usr/share/fonts/truetype/cwtex/cwheib.ttf",
    "/usr/share/fonts/truetype/klee/KleeOne-Regular.ttf",
)
# inks seen on bonus tiles: reds, greens, blues, black
_INKS = [(190, 30, 30), (150, 20, 40), (200, 60, 40), (20, 110, 50), (40, 140, 70), (30, 60, 160),
         (40, 90, 190), (25, 25, 25)]
_BLOSSOMS = [(210, 40, 60), (230, 110, 150), (240, 150, 40), (230, 200, 50), (120, 60, 170), (60, 90, 200),
             (200, 30, 30)]
_GREENS = [(30, 120, 50), (60, 150, 60), (20, 90, 60), (90, 140, 40)]


@functools.lru_cache(maxsize=1)
def cjk_fonts() -> tuple[str, ...]:
    """The Chinese fonts installed (empty where none is: the renders are then not made); looked up
    once, as every face drawn asks."""
    return tuple(p for p in CJK_FONTS if os.path.exists(p))


@functools.lru_cache(maxsize=1)
def brush_fonts() -> tuple[str, ...]:
    """The Chinese fonts installed of both lists (``brush``)."""
    return cjk_fonts() + tuple(p for p in BRUSH_FONTS if os.path.exists(p))


def face_colour(rng: np.random.Generator) -> np.ndarray:
    """A tile face's ivory, a little different each time (uint8 RGB); the synthetic tiles'
    (:mod:`datasets.synthetic`) and these faces' alike."""
    return np.array([rng.integers(225, 256), rng.integers(220, 250), rng.integers(200, 240)], np.uint8)


def _pick(rng: np.random.Generator, seq):
    return seq[int(rng.integers(len(seq)))]


def _glyph_mask(text: str, font: str, size: int) -> np.ndarray:
    """The text's coverage (float 0..1), cropped to its ink; characters stacked top to bottom."""
    from PIL import Image, ImageDraw, ImageFont

    f = ImageFont.truetype(font, max(6, size))
    img = Image.new("L", (size * 2, size * (len(text) + 1)), 0)
    d = ImageDraw.Draw(img)
    for i, ch in enumerate(text):
        d.text((size, size // 2 + i * size), ch, fill=255, font=f, anchor="mt")
    m = np.asarray(img, np.float32) / 255.0
    ys, xs = np.nonzero(m > 0.1)
    return m[ys.min():ys.max() + 1, xs.min():xs.max() + 1] if len(ys) else m[:1, :1] * 0


def _written(text: str, font: str, size: int, rng: np.random.Generator, brush: bool) -> np.ndarray:
    """:func:`_glyph_mask`, and with ``brush`` the character written as by hand (:func:`brushed`)."""
    mask = _glyph_mask(text, font, size)
    return brushed(mask, rng) if brush else mask


def brushed(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A character's coverage (:func:`_glyph_mask`) as a hand might have written it: bent by a
    smooth random warp (its strokes moved about 2-8 % of its size), made a little bolder or finer,
    leant up to 10 degrees and squeezed or widened up to 15 %; cropped to its ink again."""
    h, w = mask.shape
    size = max(h, w)
    pad = max(2, size // 6)
    m = cv2.copyMakeBorder(mask, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    H, W = m.shape
    amp = size * rng.uniform(0.02, 0.08)
    grid = int(rng.integers(3, 6))  # how many bends across the character
    dx = cv2.resize(rng.normal(0, 1, (grid, grid)).astype(np.float32), (W, H), interpolation=cv2.INTER_CUBIC)
    dy = cv2.resize(rng.normal(0, 1, (grid, grid)).astype(np.float32), (W, H), interpolation=cv2.INTER_CUBIC)
    xs, ys = np.meshgrid(np.arange(W, dtype=np.float32), np.arange(H, dtype=np.float32))
    m = cv2.remap(m, xs + dx * amp, ys + dy * amp, cv2.INTER_LINEAR, borderValue=0)
    k = int(rng.integers(-1, 2)) * max(1, size // 40)  # finer, as it is, or bolder
    if k:
        kernel = np.ones((abs(k) + 1, abs(k) + 1), np.uint8)
        m = cv2.dilate(m, kernel) if k > 0 else cv2.erode(m, kernel)
    shear, sx = np.tan(np.radians(rng.uniform(-10, 10))), rng.uniform(0.85, 1.15)
    a = np.array([[sx, shear, W * (1 - sx) / 2 - shear * H / 2], [0, 1, 0]], np.float32)
    m = cv2.warpAffine(m, a, (W, H), flags=cv2.INTER_LINEAR, borderValue=0)
    ys_, xs_ = np.nonzero(m > 0.1)
    return m[ys_.min():ys_.max() + 1, xs_.min():xs_.max() + 1] if len(ys_) else mask


def _stamp(face: np.ndarray, mask: np.ndarray, ink, x: int, y: int) -> None:
    """Ink ``mask`` onto ``face`` (float RGB) with its top-left corner at (x, y), clipped."""
    h, w = face.shape[:2]
    mh, mw = mask.shape
    x0, y0 = max(0, x), max(0, y)
    x1, y1 = min(w, x + mw), min(h, y + mh)
    if x1 <= x0 or y1 <= y0:
        return
    a = mask[y0 - y:y1 - y, x0 - x:x1 - x, None]
    face[y0:y1, x0:x1] = face[y0:y1, x0:x1] * (1 - a) + np.array(ink, np.float32) * a


def _plant(face: np.ndarray, rng: np.random.Generator, box: tuple[int, int, int, int]) -> None:
    """A made-up plant in ``box`` (x0, y0, x1, y1): stems, leaves, blossoms, now and then a pot or
    a few strokes of grass — unrelated to the class, so that it is something to look past."""
    x0, y0, x1, y1 = box
    bw, bh = max(4, x1 - x0), max(4, y1 - y0)
    canvas = np.zeros_like(face, np.uint8)
    s = max(1, int(min(bw, bh) * rng.uniform(0.02, 0.05)))
    base_y = y1
    if rng.random() < 0.3:  # a pot or vase
        pw, ph = int(bw * rng.uniform(0.3, 0.6)), int(bh * rng.uniform(0.15, 0.3))
        cx = (x0 + x1) // 2
        pts = np.array([[cx - pw // 2, y1 - ph], [cx + pw // 2, y1 - ph], [cx + pw // 3, y1], [cx - pw // 3, y1]])
        cv2.fillPoly(canvas, [pts.astype(np.int32)], _pick(rng, _INKS + [(140, 90, 50)]))
        base_y = y1 - ph
    tips = []
    for _ in range(int(rng.integers(1, 4))):
        x, y = x0 + bw * rng.uniform(0.3, 0.7), base_y
        angle = rng.uniform(-0.6, 0.6)
        pts = [(x, y)]
        for _ in range(int(rng.integers(3, 6))):
            step = bh * rng.uniform(0.12, 0.25)
            angle += rng.normal(0, 0.35)
            x, y = x + step * np.sin(angle), y - step * np.cos(angle)
            x, y = float(np.clip(x, x0, x1)), float(np.clip(y, y0, y1))
            pts.append((x, y))
        green = _pick(rng, _GREENS + [(90, 60, 40)])
        cv2.polylines(canvas, [np.array(pts, np.int32)], False, green, s, cv2.LINE_AA)
        for px, py in pts[1:-1]:
            if rng.random() < 0.6:  # a leaf
                ax = (int(bw * rng.uniform(0.06, 0.14)), int(bw * rng.uniform(0.02, 0.05)))
                cv2.ellipse(canvas, (int(px), int(py)), ax, float(rng.uniform(0, 180)), 0, 360,
                            _pick(rng, _GREENS), -1, cv2.LINE_AA)
        tips.append(pts[-1])
    colour = _pick(rng, _BLOSSOMS)
    for px, py in tips + [(x0 + bw * rng.uniform(0.2, 0.8), y0 + bh * rng.uniform(0.2, 0.7))
                          for _ in range(int(rng.integers(0, 3)))]:
        r = max(2, int(min(bw, bh) * rng.uniform(0.05, 0.11)))
        for k in range(int(rng.integers(4, 8))):
            t = 2 * np.pi * k / 6 + rng.uniform(-0.2, 0.2)
            cv2.circle(canvas, (int(px + r * np.cos(t)), int(py + r * np.sin(t))), max(1, int(r * 0.7)), colour, -1,
                       cv2.LINE_AA)
        cv2.circle(canvas, (int(px), int(py)), max(1, r // 2), (230, 200, 60), -1, cv2.LINE_AA)
    drawn = canvas.any(axis=2)
    face[drawn] = canvas[drawn]


def glyph_bonus_face(code: str, rng: np.random.Generator, font: str, height: int = 160,
                     brush: bool = False) -> np.ndarray:
    """An upright face (RGB uint8, ``height`` tall, 3:4) of the flower or season ``code``: its name
    character and numeral in ``font`` (the numeral now and then in another installed font), and
    most of the time a made-up plant, laid out in one of a few ways real sets use. ``brush``: the
    name written as by hand (:func:`brushed`), and the numeral left off a third of the time."""
    w = int(height * 0.75)
    face = np.empty((height, w, 3), np.float32)
    face[:] = face_colour(rng)
    name = SIMPLIFIED.get(code, NAMES[code]) if rng.random() < 0.1 else NAMES[code]
    n = int(code[1])
    numeral = _pick(rng, NUMERALS)[n - 1] if rng.random() < (2 / 3 if brush else 0.9) else ""
    numeral_font = font if rng.random() < 0.7 else _pick(rng, cjk_fonts() or (font,))
    layout = rng.choice(["corner", "top", "alone", "stack"], p=[0.5, 0.2, 0.15, 0.15])
    m = int(height * 0.05)
    name_ink, num_ink = _pick(rng, _INKS), _pick(rng, _INKS)

    def write(text: str, size: int) -> np.ndarray:
        return _written(text, font, size, rng, brush)

    if layout == "alone":  # the character large in the middle, the numeral in a corner
        name_mask = write(name, int(height * rng.uniform(0.4, 0.55)))
        nx, ny = (w - name_mask.shape[1]) // 2, (height - name_mask.shape[0]) // 2 + int(height * 0.05)
        picture = None
    elif layout == "top":  # the character across the top, the plant below
        name_mask = write(name, int(height * rng.uniform(0.25, 0.35)))
        nx, ny = (w - name_mask.shape[1]) // 2, m
        picture = (m, ny + name_mask.shape[0] + m, w - m, height - m)
    elif layout == "stack":  # numeral above character down one side, the plant beside
        text = (numeral + name) if numeral and rng.random() < 0.5 else name
        name_mask = write(text, int(height * rng.uniform(0.16, 0.24)))
        numeral = numeral if text == name else ""
        right = rng.random() < 0.5
        nx, ny = (w - m - name_mask.shape[1]) if right else m, m
        picture = (m, m, w - m - name_mask.shape[1], height - m) if right else (m + name_mask.shape[1], m, w - m,
                                                                                height - m)
    else:  # corner: the character in one top corner, the numeral in the other, the plant below
        name_mask = write(name, int(height * rng.uniform(0.17, 0.27)))
        right = rng.random() < 0.7
        nx, ny = (w - m - name_mask.shape[1]) if right else m, m
        picture = (m, int(height * rng.uniform(0.15, 0.3)), w - m, height - m)
    if picture is not None and rng.random() < 0.9:
        _plant(face, rng, picture)
    _stamp(face, name_mask, name_ink, nx, ny)
    if numeral:
        num_mask = _glyph_mask(numeral, numeral_font, int(height * rng.uniform(0.12, 0.2)))
        if layout == "corner":  # the other top corner
            x = m if nx > w // 2 else w - m - num_mask.shape[1]
            y = m
        else:  # a free corner
            x = _pick(rng, [m, w - m - num_mask.shape[1]])
            y = _pick(rng, [m, height - m - num_mask.shape[0]]) if layout != "top" else height - m - num_mask.shape[0]
            if layout == "stack":
                x = m if nx > w // 2 else w - m - num_mask.shape[1]
        _stamp(face, num_mask, num_ink, x, y)
    if rng.random() < 0.3:  # a thin frame, as some sets print
        c = _pick(rng, _INKS)
        t = max(1, height // 80)
        cv2.rectangle(face, (m // 2, m // 2), (w - m // 2, height - m // 2), c, t)
    return np.clip(face, 0, 255).astype(np.uint8)


# ---------------------------------------------------------------- suit and honour tiles written in characters

_CHINESE_DIGITS = "一二三四五六七八九"
HONOUR_NAMES = {"E": "東", "S": "南", "W": "西", "N": "北", "Rd": "中", "Gd": "發"}
_HONOUR_INKS = {"Rd": [(190, 30, 30), (160, 20, 30)], "Gd": [(20, 120, 50), (40, 140, 70)]}


def glyph_drawable(code: str) -> bool:
    """Whether :func:`glyph_face` can draw ``code``: the flowers and seasons, the characters suit
    and the honours written with a character (winds, red and green dragons)."""
    return code in NAMES or code in HONOUR_NAMES or (len(code) == 2 and code[1] == "m")


def glyph_face(code: str, rng: np.random.Generator, font: str, height: int = 160, brush: bool = False) -> np.ndarray:
    """An upright face (RGB uint8, 3:4) of a tile that sets write in characters, in ``font``: a
    flower or season (:func:`glyph_bonus_face`), a characters tile (its numeral 一…九, five now and
    then 伍, over 萬), a wind or a red or green dragon (its one character); now and then with a
    corner index (the Arabic numeral, or the wind's letter) as some sets print. ``brush``: every
    character written as by hand (:func:`brushed`)."""
    if code in NAMES:
        return glyph_bonus_face(code, rng, font, height, brush)
    w = int(height * 0.75)
    face = np.empty((height, w, 3), np.float32)
    face[:] = face_colour(rng)
    m = int(height * 0.06)
    if code in HONOUR_NAMES:
        mask = _written(HONOUR_NAMES[code], font, int(height * rng.uniform(0.5, 0.7)), rng, brush)
        ink = _pick(rng, _HONOUR_INKS.get(code, [(25, 25, 25), (30, 60, 160), (20, 90, 60)]))
        mh, mw = mask.shape
        scale = min(1.0, (w - 2 * m) / mw, (height - 2 * m) / mh)
        if scale < 1:
            mask = cv2.resize(mask, (max(1, int(mw * scale)), max(1, int(mh * scale))), interpolation=cv2.INTER_AREA)
        _stamp(face, mask, ink, (w - mask.shape[1]) // 2, (height - mask.shape[0]) // 2)
        index = code if code in ("E", "S", "W", "N") else None  # a wind's letter
    else:
        n = int(code[0])
        digit = "伍" if n == 5 and rng.random() < 0.5 else _CHINESE_DIGITS[n - 1]
        top_size, wan_size = int(height * rng.uniform(0.3, 0.4)), int(height * rng.uniform(0.4, 0.5))
        top, wan = _written(digit, font, top_size, rng, brush), _written("萬", font, wan_size, rng, brush)
        gap = int(height * rng.uniform(0.0, 0.06))
        total = top.shape[0] + gap + wan.shape[0]
        if total > height - 2 * m:  # keep both on the face
            f = (height - 2 * m - gap) / (top.shape[0] + wan.shape[0])
            top = cv2.resize(top, (max(1, int(top.shape[1] * f)), max(1, int(top.shape[0] * f))))
            wan = cv2.resize(wan, (max(1, int(wan.shape[1] * f)), max(1, int(wan.shape[0] * f))))
            total = top.shape[0] + gap + wan.shape[0]
        y = (height - total) // 2
        _stamp(face, top, _pick(rng, [(25, 25, 25), (30, 60, 160), (150, 20, 30)]), (w - top.shape[1]) // 2, y)
        _stamp(face, wan, _pick(rng, [(190, 30, 30), (150, 20, 40)]), (w - wan.shape[1]) // 2,
               y + top.shape[0] + gap)
        index = str(n)
    if index and rng.random() < 0.4:
        small = _glyph_mask(index, _pick(rng, cjk_fonts() or (font,)), int(height * rng.uniform(0.1, 0.15)))
        _stamp(face, small, _pick(rng, _INKS), _pick(rng, [m // 2, w - m // 2 - small.shape[1]]), m // 2)
    return np.clip(face, 0, 255).astype(np.uint8)
