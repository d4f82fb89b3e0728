"""Tile regions: where the tiles are in a photo.

:class:`LearnedProposer`, a small fully convolutional network (``models/tile_detector.onnx``,
trained by ``models/detector.py``), marks every tile's centre on a heat map and regresses its box
size (CenterNet-style, one class: "a tile, any tile, face up or down"), drawing each whole tile.
:class:`BoxRefiner` (a refiner of yours, trained by ``models/refiner.py`` and named by
``MJCAM_REFINER``; none ships) can redraw each of the detector's boxes from a window around it.
Proposals are generous; :func:`suppress` (OpenCV's ``cv2.dnn.NMSBoxes``) removes duplicates, and
the classifier's ``not-a-tile`` class prunes what is left.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import cv2
import numpy as np

from mjcam.models import registry

from .preprocess import to_tensor
from .session import ModelError, OnnxStage

DEFAULT_DETECTOR = registry.path("detector")
WORK_SIDE = 1600  # photos are located on a copy whose long side is at most this

#: The search settings of :class:`LearnedProposer` that a detector file may carry (its metadata
#: ``search``: a JSON object of these names) and ``MJCAM_SEARCH`` may set over them: a detector
#: trained otherwise finds tiles at other sizes and a close-up's parts otherwise, so its search is
#: chosen with it. Each is a list of look sides, a whole number or a number.
SEARCH_SETTINGS = {"EXTRA_SIDES": "sides", "AFAR_SIDES": "sides", "SMALL_TILE": "number", "ZOOM_TILE": "number",
                   "ZOOM_SURE": "number", "HAND_MIN": "whole", "BLIND_ZOOM": "number", "MAX_ZOOM_SIDE": "whole",
                   "BLIND_STOP": "number", "WHOLE_INSIDE": "number", "WHOLE_LARGER": "number", "PART_OF": "number",
                   "WHOLE_MARGIN": "number"}


def _setting(name: str, value, where: str):
    """``value`` as the search setting ``name`` takes it (:data:`SEARCH_SETTINGS`); a ModelError
    naming ``where`` the setting came from when it is no such setting or no such value."""
    kind = SEARCH_SETTINGS.get(name)
    if kind is None:
        raise ModelError(f"{where}: no search setting {name!r} (the settings: {', '.join(SEARCH_SETTINGS)})")
    try:
        if kind == "sides":
            if isinstance(value, str):
                value = value.replace(",", " ").split()
            sides = tuple(int(v) for v in value)
            if any(v < 16 for v in sides):
                raise ValueError
            return sides
        number = float(value)
        if not number > 0 or (kind == "whole" and number != int(number)):
            raise ValueError
        return int(number) if kind == "whole" else number
    except (TypeError, ValueError):
        want = {"sides": "look sides of 16 pixels or more, e.g. 192,128", "whole": "a whole number above 0",
                "number": "a number above 0"}[kind]
        raise ModelError(f"{where}: {name} takes {want}, not {value!r}") from None


def search_settings(text: str, where: str = "MJCAM_SEARCH") -> dict:
    """The settings ``NAME=VALUE`` given in ``text``, separated by ``;`` (a list of sides as
    ``192,128``; nothing after ``=`` for none).

    >>> search_settings("AFAR_SIDES=64; EXTRA_SIDES=192,128; PART_OF=2")
    {'AFAR_SIDES': (64,), 'EXTRA_SIDES': (192, 128), 'PART_OF': 2.0}
    >>> search_settings("EXTRA_SIDES=")
    {'EXTRA_SIDES': ()}
    """
    out = {}
    for part in filter(None, (p.strip() for p in text.split(";"))):
        name, eq, value = part.partition("=")
        if not eq:
            raise ModelError(f"{where}: {part!r} is not NAME=VALUE")
        out[name.strip()] = _setting(name.strip(), value.strip(), where)
    return out


@dataclass(frozen=True)
class Proposal:
    box: tuple[float, float, float, float]  # x1 y1 x2 y2 in the pixels of the image given
    score: float
    source: str  # "learned" (the detector) or "gap" (a hole in a row or grid, vision.pipeline)


def fit(h: int, w: int, side: int, multiple: int = 32) -> tuple[float, int, int]:
    """Scale and padded size that fit an h x w image into ``side`` (long side), padded to a multiple."""
    s = side / max(h, w)
    nh, nw = max(1, round(h * s)), max(1, round(w * s))
    ph, pw = -(-nh // multiple) * multiple, -(-nw // multiple) * multiple
    return s, ph, pw


def letterbox_photo(image: np.ndarray, side: int, multiple: int = 32, pad: int = 114) -> tuple[np.ndarray, float]:
    """The image scaled so its long side is ``side``, padded right and below to a multiple of 32."""
    h, w = image.shape[:2]
    s, ph, pw = fit(h, w, side, multiple)
    nh, nw = max(1, round(h * s)), max(1, round(w * s))
    small = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR)
    out = np.full((ph, pw, 3), pad, np.uint8)
    out[:nh, :nw] = small
    return out, s


def decode(heat: np.ndarray, size: np.ndarray, offset: np.ndarray, stride: int,
           threshold: float = 0.2, top: int = 300) -> tuple[np.ndarray, np.ndarray]:
    """Boxes (N, 4) in input pixels and scores (N,) from one heat map (H, W) and its size/offset maps
    (2, H, W): local maxima over a 3x3 window above ``threshold``. Sizes are log(side / stride)."""
    peaks = (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= threshold)
    ys, xs = np.nonzero(peaks)
    scores = heat[ys, xs]
    if len(scores) > top:
        keep = np.argsort(-scores)[:top]
        ys, xs, scores = ys[keep], xs[keep], scores[keep]
    cx = (xs + offset[0, ys, xs]) * stride
    cy = (ys + offset[1, ys, xs]) * stride
    w = np.exp(np.clip(size[0, ys, xs], -3, 6)) * stride
    h = np.exp(np.clip(size[1, ys, xs], -3, 6)) * stride
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1).astype(np.float32)
    return boxes.reshape(-1, 4), scores.astype(np.float32)


def suppress(boxes, scores, iou: float = 0.45, min_score: float = 0.0, core: float = 1.0) -> list[int]:
    """Indices kept by OpenCV's non-maximum suppression, best first. With ``core`` < 1 the boxes are
    compared by their cores (each shrunk about its centre to that fraction of its sides): the upright
    hulls of touching tiles in a slanted row overlap a lot, their cores little; two boxes of one
    tile share their core."""
    if len(boxes) == 0:
        return []
    k = (1.0 - core) / 2
    rects = [[float(b[0] + k * (b[2] - b[0])), float(b[1] + k * (b[3] - b[1])), float(core * (b[2] - b[0])),
              float(core * (b[3] - b[1]))] for b in boxes]
    keep = cv2.dnn.NMSBoxes(rects, [float(s) for s in scores], float(min_score), float(iou))
    return [int(k) for k in np.asarray(keep).reshape(-1)]


def _long(boxes: np.ndarray) -> np.ndarray:
    """Each box's long side (boxes (N, 4))."""
    return np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])


def _pooled(looks: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """The boxes and scores of several looks at one image, duplicates removed (NMS at IoU 0.45)."""
    boxes = np.concatenate([b for b, _ in looks]).reshape(-1, 4)
    scores = np.concatenate([sc for _, sc in looks])
    keep = suppress(boxes, scores, 0.45)
    return boxes[keep], scores[keep]


class LearnedProposer(OnnxStage):
    """``proposer(image)`` -> proposals from the ONNX tile detector (one session, made on first use):
    ``model_path``, else ``MJCAM_DETECTOR`` where set (a detector you trained), else the shipped one."""

    what = "tile detector"
    #: Each photo is looked at with these long sides as well as the model's own input side, and the
    #: boxes of all looks are pooled (duplicates removed by NMS): a tile much larger than the
    #: detector learnt gets parts found at one scale and itself at a smaller one (192: a tile
    #: filling the frame). A look at 320 as well read 0.1 point more of HK valid's tiles right at
    #: 8 % more time per 12 MP photo: left out.
    EXTRA_SIDES = (192,)
    #: The search for tiles small in the photo, a pyramid. A tile is *small* in a look when its long
    #: side there is under ``SMALL_TILE`` pixels (found, but placed no better than the heat map's
    #: cells allow). Where at least three sure boxes (score ``ZOOM_SURE``) are small, the region
    #: around them is looked at again so that they measure ``ZOOM_TILE``, and inside that region the
    #: closer look's boxes replace the small ones of the coarser looks (a box placed a cell off the
    #: tile is worse than none). Where fewer than ``HAND_MIN`` sure boxes are found, the whole photo
    #: is looked at ``BLIND_ZOOM`` times larger, and again until some are found or the look is as
    #: large as the photo, then zoomed on what it found. No look is larger than ``MAX_ZOOM_SIDE``.
    #: A box lying inside a surer one at least ``PART_OF`` times its size is a part of that tile
    #: (a bamboo's sticks, a corner of a tile filling the frame), not a tile (:func:`parts_out`).
    SMALL_TILE, ZOOM_TILE, ZOOM_SURE = 30.0, 40.0, 0.5
    HAND_MIN, BLIND_ZOOM, MAX_ZOOM_SIDE = 5, 2.0, 1024
    #: ... but not past a look that has found a sure tile ``BLIND_STOP`` times ``SMALL_TILE`` long:
    #: the photo's tiles are not too small to see, and a closer look would find a close-up's
    #: tiles' pictures as tiles of their own
    BLIND_STOP = 2.0
    #: Where fewer than ``HAND_MIN`` sure boxes are found even after the blind zoom (a hand too small
    #: to see has been looked at closer by then), the photo may be a close-up of a few tiles
    #: measuring hundreds of pixels in the first looks, where their halves and pictures are found as
    #: tiles: it is looked at from afar too, ``AFAR_SIDES`` long, where such tiles measure what the
    #: detector knows; a box of the other looks lying ``WHOLE_INSIDE`` of its area inside a box of
    #: that look at least ``WHOLE_LARGER`` times its long side is a part of that tile, dropped —
    #: where that box is surer than every box it would drop (seen from afar, a hand on a mat can
    #: look like one tile, less surely than its own tiles are found), or less sure by under
    #: ``WHOLE_MARGIN`` (a detector may find a tile's halves a little more surely than the tile).
    AFAR_SIDES = (96,)
    WHOLE_INSIDE, WHOLE_LARGER, WHOLE_MARGIN = 0.6, 1.4, 0.0
    PART_OF = 2.5
    WINDOW = 512  # a look larger than this is taken a window at a time (see look)
    #: The settings above are the shipped detector's. A detector file's own (metadata ``search``),
    #: then ``MJCAM_SEARCH``'s, replace them when its session is made (``extra_sides`` given here
    #: replaces both): :data:`SEARCH_SETTINGS`.

    def __init__(self, model_path: str | None = None, side: int | None = None, threshold: float | None = None,
                 threads: int | None = None, extra_sides: tuple[int, ...] | None = None, zoom: bool = True):
        super().__init__(model_path or os.environ.get("MJCAM_DETECTOR") or DEFAULT_DETECTOR, threads)
        self._side, self._threshold = side, threshold
        self._extra_given = extra_sides is not None
        self.extra_sides = self.EXTRA_SIDES if extra_sides is None else tuple(extra_sides)
        self.zoom = zoom
        self.meta: dict = {}

    def _configure(self, session, meta: dict) -> None:
        self.meta = {k: meta[k] for k in ("kind", "stride", "input_side", "mean", "std", "threshold")}
        if self.meta["kind"] != "tile-detector":
            raise ModelError(f"{self.model_path} is not a tile detector")
        own = meta["search"] if "search" in meta else {}
        if not isinstance(own, dict):
            raise ModelError(f"{self.model_path}: its search settings are not NAME: VALUE pairs")
        where = f"{self.model_path}'s search settings"
        settings = {name: _setting(name, value, where) for name, value in own.items()}
        settings.update(search_settings(os.environ.get("MJCAM_SEARCH", "")))
        for name, value in settings.items():
            setattr(self, name, value)
        if "EXTRA_SIDES" in settings and not self._extra_given:
            self.extra_sides = settings["EXTRA_SIDES"]

    @property
    def side(self) -> int:
        self.session  # noqa: B018
        return int(self._side or self.meta["input_side"])

    def raw(self, image: np.ndarray, side: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        """Heat map, size and offset maps of an RGB image seen with long side ``side`` (default:
        the model's input side), and the scale used."""
        sess = self.session
        x, s = letterbox_photo(image, side or self.side)
        t = to_tensor(x[None], self.meta["mean"], self.meta["std"])
        heat, size, offset = sess.run(None, {sess.get_inputs()[0].name: t})
        return heat[0, 0], size[0], offset[0], s

    def look(self, image: np.ndarray, side: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Boxes (in the image's pixels) and scores of one look with long side ``side``. A look
        larger than ``WINDOW`` is taken a window at a time (a quarter of each window shared with
        the next; each box kept by the window whose middle part holds its centre), so that a
        large look needs no more memory than a window's."""
        side = side or self.side
        h, w = image.shape[:2]
        if side <= self.WINDOW:
            return self._look(image, side)
        s = side / max(h, w)
        win = int(np.ceil(self.WINDOW / s))  # a window's side in the image's pixels
        step = max(1, (3 * win) // 4)
        m = (win - step) / 2
        looks = []
        for y0 in _starts(h, win, step):
            for x0 in _starts(w, win, step):
                crop = image[y0:y0 + win, x0:x0 + win]
                b, sc = self._look(crop, max(1, round(max(crop.shape[:2]) * s)))
                cx, cy = (b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2
                keep = ((cx >= (m if x0 else 0)) & (cx < (win - m if x0 + win < w else win))
                        & (cy >= (m if y0 else 0)) & (cy < (win - m if y0 + win < h else win)))
                looks.append((b[keep] + np.array([x0, y0, x0, y0], b.dtype), sc[keep]))
        return _pooled(looks)

    def _look(self, image: np.ndarray, side: int) -> tuple[np.ndarray, np.ndarray]:
        heat, size, offset, s = self.raw(image, side)
        thr = self._threshold if self._threshold is not None else float(self.meta["threshold"])
        boxes, scores = decode(heat, size, offset, int(self.meta["stride"]), threshold=thr)
        keep = suppress(boxes, scores, 0.45)
        return boxes[keep] / s, scores[keep]

    def zoomed_look(self, image: np.ndarray, boxes: np.ndarray, scores: np.ndarray, scale: float):
        """Where and how large to look again at the tiles that came out small in a look at ``scale``
        (look pixels per image pixel), given the boxes found so far: ``((x1, y1, x2, y2), side)``,
        the region and the long side to look at it with; None when fewer than three sure boxes are
        small or a closer look would not be much closer.

        >>> p = LearnedProposer(side=384)
        >>> row = np.array([[100 + 20 * i, 500, 118 + 20 * i, 524] for i in range(14)], float)
        >>> p.zoomed_look(np.zeros((1200, 1600, 3), np.uint8), row, np.ones(14), 384 / 1600)  # 6 pixels
        ((52, 452, 426, 572), 623)
        >>> giant = np.array([[0, 0, 900, 400]], float)  # a sure giant box does not hide the small tiles
        >>> p.zoomed_look(np.zeros((1200, 1600, 3), np.uint8), np.vstack([row, giant]), np.ones(15), 0.24)
        ((52, 452, 426, 572), 623)
        >>> p.zoomed_look(np.zeros((600, 800, 3), np.uint8), row * 4, np.ones(14), 384 / 800) is None
        True
        """
        h, w = image.shape[:2]
        if not len(boxes):
            return None
        long = _long(boxes)
        small = boxes[(scores >= self.ZOOM_SURE) & (long * scale < self.SMALL_TILE)]
        if len(small) < 3:
            return None
        tile = float(np.median(_long(small)))
        m = 2 * tile
        x1, y1 = max(0, int(small[:, 0].min() - m)), max(0, int(small[:, 1].min() - m))
        x2, y2 = min(w, int(np.ceil(small[:, 2].max() + m))), min(h, int(np.ceil(small[:, 3].max() + m)))
        if x2 - x1 < 8 or y2 - y1 < 8:  # the sure boxes lie off the photo
            return None
        side = min(self.MAX_ZOOM_SIDE, round(max(x2 - x1, y2 - y1) * self.ZOOM_TILE / tile))
        seen = scale * max(x2 - x1, y2 - y1)  # the region's long side in the look that found them
        return ((x1, y1, x2, y2), side) if side > 1.25 * seen else None

    def _hand_seen(self, scores: np.ndarray) -> bool:
        """At least ``HAND_MIN`` of the boxes are sure (``ZOOM_SURE``): the photo shows a hand."""
        return int((scores >= self.ZOOM_SURE).sum()) >= self.HAND_MIN

    def _blind(self, image: np.ndarray, boxes: np.ndarray, scores: np.ndarray):
        """Looks at the whole photo ever larger (``BLIND_ZOOM`` times each) while fewer than
        ``HAND_MIN`` sure boxes are found and none of them is ``BLIND_STOP`` times ``SMALL_TILE``
        long in the last look: (boxes, scores, scale of the last look). Parts of a tile seen whole
        are taken out at the end (:func:`parts_out`)."""
        h, w = image.shape[:2]
        side = self.side

        def seen_well() -> bool:  # a sure tile at least BLIND_STOP times SMALL_TILE long in this look
            sure = boxes[scores >= self.ZOOM_SURE]
            long = _long(sure) * side / max(h, w)
            return bool(len(long)) and float(long.max()) >= self.BLIND_STOP * self.SMALL_TILE

        while not self._hand_seen(scores) and side < min(max(h, w), self.MAX_ZOOM_SIDE) and not seen_well():
            side = min(round(side * self.BLIND_ZOOM), max(h, w), self.MAX_ZOOM_SIDE)
            b, sc = self.look(image, side)
            boxes, scores = _pooled([(boxes, scores), (b, sc)])
        return boxes, scores, side / max(h, w)

    def from_afar(self, image: np.ndarray, boxes: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Where fewer than ``HAND_MIN`` of the boxes are sure: the boxes and scores pooled with
        those of the looks from afar (``AFAR_SIDES``), less the parts of tiles those looks find
        whole (:func:`wholes_over_parts`). Otherwise the boxes and scores as they are."""
        if self._hand_seen(scores) or not self.AFAR_SIDES:
            return boxes, scores
        whole, whole_scores = _pooled([self.look(image, side) for side in self.AFAR_SIDES])
        part = wholes_over_parts(boxes, scores, whole, whole_scores, self.WHOLE_INSIDE, self.WHOLE_LARGER,
                                 self.WHOLE_MARGIN)
        return _pooled([(boxes[~part], scores[~part]), (whole, whole_scores)])

    def __call__(self, image: np.ndarray) -> list[Proposal]:
        h, w = image.shape[:2]
        first = self.side  # made the session: the detector's own search settings are in place
        boxes, scores = _pooled([self.look(image, side) for side in (first, *self.extra_sides)])
        if self.zoom:
            boxes, scores, scale = self._blind(image, boxes, scores)
            boxes, scores = self.from_afar(image, boxes, scores)
            zoom = self.zoomed_look(image, boxes, scores, scale)
            if zoom is not None:
                (x1, y1, x2, y2), side = zoom
                b, sc = self.look(image[y1:y2, x1:x2], side)
                b = b + np.array([x1, y1, x1, y1], b.dtype)
                cx, cy = (boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2
                long = _long(boxes)
                replaced = (cx >= x1) & (cx < x2) & (cy >= y1) & (cy < y2) & (long * scale < self.SMALL_TILE)
                boxes, scores = _pooled([(boxes[~replaced], scores[~replaced]), (b, sc)])
        boxes, scores = parts_out(boxes, scores, self.PART_OF)
        out = []
        for b, sc in zip(boxes, scores):
            x1, y1, x2, y2 = max(0.0, b[0]), max(0.0, b[1]), min(float(w), b[2]), min(float(h), b[3])
            if x2 - x1 >= 2 and y2 - y1 >= 2:
                out.append(Proposal((float(x1), float(y1), float(x2), float(y2)), float(sc), "learned"))
        return out


def _starts(n: int, win: int, step: int) -> list[int]:
    """Where windows of ``win`` pixels start along a side of ``n``, ``step`` apart, the last one
    ending at the side's end.

    >>> _starts(1000, 400, 300), _starts(300, 400, 300)
    ([0, 300, 600], [0])
    """
    if n <= win:
        return [0]
    out = list(range(0, n - win, step))
    return out + [n - win]


def _within(boxes: np.ndarray, others: np.ndarray, share: float) -> np.ndarray:
    """[i, j]: box i lies at least ``share`` of its area inside box j of ``others``."""
    ix = np.clip(np.minimum(boxes[:, None, 2], others[None, :, 2]) - np.maximum(boxes[:, None, 0], others[None, :, 0]), 0, None)
    iy = np.clip(np.minimum(boxes[:, None, 3], others[None, :, 3]) - np.maximum(boxes[:, None, 1], others[None, :, 1]), 0, None)
    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    return ix * iy >= share * np.maximum(area, 1e-6)[:, None]


def parts_out(boxes: np.ndarray, scores: np.ndarray, part_of: float) -> tuple[np.ndarray, np.ndarray]:
    """The boxes and scores less those lying inside a surer box at least ``part_of`` times their
    long side: parts of a tile seen whole at another scale (a bamboo's sticks, a corner of a tile
    filling the frame).

    >>> tile = [0, 0, 300, 400]
    >>> b, s = parts_out(np.array([tile, [20, 30, 80, 110], [400, 0, 480, 100]], np.float32),
    ...                  np.array([0.6, 0.4, 0.4]), 2.5)
    >>> b.tolist(), s.tolist()
    ([[0.0, 0.0, 300.0, 400.0], [400.0, 0.0, 480.0, 100.0]], [0.6, 0.4])
    >>> len(parts_out(np.array([tile, [20, 30, 80, 110]], np.float32), np.array([0.3, 0.9]), 2.5)[0])
    2
    """
    if len(boxes) < 2:
        return boxes, scores
    long = _long(boxes)
    inside = _within(boxes, boxes, 0.9)
    part = (inside & (long[None, :] >= part_of * long[:, None]) & (scores[None, :] > scores[:, None])).any(axis=1)
    return boxes[~part], scores[~part]


def wholes_over_parts(boxes: np.ndarray, scores: np.ndarray, wholes: np.ndarray, whole_scores: np.ndarray,
                      inside: float, larger: float, margin: float = 0.0) -> np.ndarray:
    """Which ``boxes`` are parts of a tile found whole: each lies at least ``inside`` of its area
    inside one of ``wholes`` at least ``larger`` times its long side and surer than every box so
    lying inside it, or less sure by under ``margin`` (a bool per box).

    >>> tile = np.array([[100, 100, 400, 560]], np.float32)
    >>> halves = np.array([[90, 80, 410, 320], [100, 320, 400, 580], [420, 100, 700, 500]], np.float32)
    >>> wholes_over_parts(halves, np.array([0.5, 0.4, 0.9]), tile, np.array([0.6]), 0.6, 1.4).tolist()
    [True, True, False]
    >>> wholes_over_parts(halves, np.array([0.7, 0.4, 0.9]), tile, np.array([0.6]), 0.6, 1.4).tolist()
    [False, False, False]
    >>> wholes_over_parts(tile, np.array([0.5]), tile, np.array([0.6]), 0.6, 1.4).tolist()
    [False]
    >>> wholes_over_parts(halves, np.array([0.7, 0.4, 0.9]), tile, np.array([0.6]), 0.6, 1.4, 0.15).tolist()
    [True, True, False]
    """
    if not len(boxes) or not len(wholes):
        return np.zeros(len(boxes), bool)
    within = _within(boxes, wholes, inside) & (_long(wholes)[None, :] >= larger * _long(boxes)[:, None])
    surest_within = np.where(within, np.asarray(scores)[:, None], -np.inf).max(axis=0)
    return (within & (np.asarray(whole_scores) + margin > surest_within)[None, :]).any(axis=1)


def refine_window(image: np.ndarray, box, size: int, context: float = 2.0) -> tuple[np.ndarray, tuple[float, float], float]:
    """The square window the box refiner looks at: centred on ``box``, ``context`` times its long
    side, resampled to ``size`` pixels (outside the image: grey). Returns it with its centre and side
    in the image's pixels."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    side = max(4.0, context * max(box[2] - box[0], box[3] - box[1]))
    s = size / side
    m = np.float32([[s, 0, size / 2 - s * cx], [0, s, size / 2 - s * cy]])
    win = cv2.warpAffine(image, m, (size, size), flags=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=(114, 114, 114))
    return win, (float(cx), float(cy)), float(side)


def window_input(win: np.ndarray, mean, std) -> np.ndarray:
    """A refiner window as the network takes it: (x/255 - mean) / std, channels first. Training
    (``models/refiner.py``) and :class:`BoxRefiner` both cut their inputs with this."""
    return to_tensor(win[None], mean, std)[0]


def refiner_named() -> str:
    """What ``MJCAM_REFINER`` names: a box refiner file (``models/refiner.py`` trains one for a
    detector's boxes), ``none``, or nothing (``""``). No refiner ships: the shipped detector draws
    each whole tile itself, and its boxes are read as it gives them."""
    value = os.environ.get("MJCAM_REFINER", "").strip()
    return "none" if value.lower() == "none" else value


def refiner_wanted() -> bool:
    """Whether ``MJCAM_REFINER`` names a box refiner file."""
    return refiner_named() not in ("", "none")


class BoxRefiner(OnnxStage):
    """``refiner(image, boxes)`` -> the boxes redrawn by an ONNX box refiner (``model_path``, else
    the file ``MJCAM_REFINER`` names; trained by ``models/refiner.py``; none ships): it looks at a
    window around each box (:func:`refine_window`) and says where the tile at its centre is.
    ``rounds`` looks, each from the last one's box."""

    what = "box refiner"

    def __init__(self, model_path: str | None = None, rounds: int = 1, threads: int | None = None, batch: int = 64):
        named = refiner_named()
        model_path = model_path or (named if named != "none" else "")
        if not model_path:
            raise ModelError("no box refiner named: MJCAM_REFINER names a refiner file (none ships with mjcam)")
        super().__init__(model_path, threads)
        self.rounds, self.batch = rounds, batch
        self.meta: dict = {}

    def _configure(self, session, meta: dict) -> None:
        self.meta = {k: meta[k] for k in ("kind", "window", "context", "mean", "std")}
        if self.meta["kind"] != "box-refiner":
            raise ModelError(f"{self.model_path} is not a box refiner")

    def __call__(self, image: np.ndarray, boxes) -> np.ndarray:
        boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
        if not len(boxes):
            return boxes
        sess = self.session
        size, context = int(self.meta["window"]), float(self.meta["context"])
        mean, std = self.meta["mean"], self.meta["std"]
        h, w = image.shape[:2]
        for _ in range(self.rounds):
            out = np.empty_like(boxes)
            for a in range(0, len(boxes), self.batch):
                wins, frames = [], []
                for b in boxes[a:a + self.batch]:
                    win, centre, side = refine_window(image, b, size, context)
                    wins.append(window_input(win, mean, std))
                    frames.append((*centre, side))
                pred = sess.run(None, {sess.get_inputs()[0].name: np.stack(wins)})[0]
                f = np.float32(frames)
                out[a:a + len(f)] = pred * f[:, 2:3] + f[:, [0, 1, 0, 1]]
            boxes = out
        boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, w)
        boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, h)
        return boxes
