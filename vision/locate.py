"""Tile regions: where the tiles are in a photo.

Two proposal stages, each a small class with a typed output that runs alone:

- :class:`LearnedProposer` — a small fully convolutional network (``models/tile_detector.onnx``,
  trained by ``models/detector.py``) that marks every tile's centre on a heat map and regresses
  its box size (CenterNet-style, one class: "a tile, any tile, face up or down").
- :class:`ContourProposer` — plain OpenCV: bright, tile-shaped regions after an adaptive
  threshold, touching faces split along their dark seams. It is kept as a second opinion (and as
  the measured baseline: alone it finds far too few tiles on real photos, see the model card).

Proposals are generous; :func:`suppress` (OpenCV's ``cv2.dnn.NMSBoxes``) removes duplicates, and
the classifier's ``not-a-tile`` class prunes what is left.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass

import cv2
import numpy as np

from .classify import ModelError

DEFAULT_DETECTOR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models",
                                "tile_detector.onnx")
WORK_SIDE = 1600  # photos are located on a copy whose long side is at most this


@dataclass(frozen=True)
class Proposal:
    box: tuple[float, float, float, float]  # x1 y1 x2 y2 in the pixels of the image given
    score: float
    source: str  # "learned" or "contour"


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


def suppress(boxes, scores, iou: float = 0.45, min_score: float = 0.0) -> list[int]:
    """Indices kept by OpenCV's non-maximum suppression, best first."""
    if len(boxes) == 0:
        return []
    rects = [[float(b[0]), float(b[1]), float(b[2] - b[0]), float(b[3] - b[1])] for b in boxes]
    keep = cv2.dnn.NMSBoxes(rects, [float(s) for s in scores], float(min_score), float(iou))
    return [int(k) for k in np.asarray(keep).reshape(-1)]


class LearnedProposer:
    """``proposer(image)`` -> proposals from the ONNX tile detector (one session, made on first use)."""

    def __init__(self, model_path: str | None = None, side: int | None = None, threshold: float | None = None,
                 threads: int = 1):
        self.model_path = model_path or DEFAULT_DETECTOR
        self.threads = threads
        self._side, self._threshold = side, threshold
        self._session = None
        self._lock = threading.Lock()
        self.meta: dict = {}

    @property
    def session(self):
        if self._session is None:
            with self._lock:
                if self._session is None:
                    self._session = self._load()
        return self._session

    def _load(self):
        import onnxruntime as ort

        if not os.path.exists(self.model_path):
            raise ModelError(f"detector model not found: {self.model_path}")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = self.threads
        opts.inter_op_num_threads = 1
        try:
            sess = ort.InferenceSession(self.model_path, opts, providers=["CPUExecutionProvider"])
        except Exception as e:  # onnxruntime's own exception types
            raise ModelError(f"cannot load detector {self.model_path}: {e}") from None
        meta = sess.get_modelmeta().custom_metadata_map
        try:
            self.meta = {k: json.loads(meta[k]) for k in ("kind", "stride", "input_side", "mean", "std", "threshold")}
        except (KeyError, ValueError) as e:
            raise ModelError(f"{self.model_path} has no tile detector metadata ({e})") from None
        if self.meta["kind"] != "tile-detector":
            raise ModelError(f"{self.model_path} is not a tile detector")
        return sess

    @property
    def side(self) -> int:
        self.session  # noqa: B018
        return int(self._side or self.meta["input_side"])

    def raw(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        """Heat map, size and offset maps of an RGB image, and the scale used."""
        sess = self.session
        x, s = letterbox_photo(image, self.side)
        t = (x.astype(np.float32) / 255.0 - np.asarray(self.meta["mean"], np.float32)) / \
            np.asarray(self.meta["std"], np.float32)
        t = np.ascontiguousarray(t.transpose(2, 0, 1)[None])
        heat, size, offset = sess.run(None, {sess.get_inputs()[0].name: t})
        return heat[0, 0], size[0], offset[0], s

    def __call__(self, image: np.ndarray) -> list[Proposal]:
        heat, size, offset, s = self.raw(image)
        thr = self._threshold if self._threshold is not None else float(self.meta["threshold"])
        boxes, scores = decode(heat, size, offset, int(self.meta["stride"]), threshold=thr)
        h, w = image.shape[:2]
        out = []
        for b, sc in zip(boxes / s, scores):
            x1, y1, x2, y2 = max(0.0, b[0]), max(0.0, b[1]), min(float(w), b[2]), min(float(h), b[3])
            if x2 - x1 >= 2 and y2 - y1 >= 2:
                out.append(Proposal((float(x1), float(y1), float(x2), float(y2)), float(sc), "learned"))
        return out


class ContourProposer:
    """``proposer(image)`` -> tile-face-shaped bright regions found with OpenCV alone.

    Tile faces are lighter than felt, wood and rack; an adaptive threshold on the value channel
    separates them, a morphological opening breaks thin bridges, and the contours whose
    bounding box is mostly filled and of a plausible size are proposed, and blobs of touching
    tiles are also proposed cut into as many tile-shaped pieces as their aspect says.
    """

    def __init__(self, min_area: float = 0.0004, max_area: float = 0.6):
        self.min_area, self.max_area = min_area, max_area

    def __call__(self, image: np.ndarray) -> list[Proposal]:
        h, w = image.shape[:2]
        s = min(1.0, 960 / max(h, w))
        small = cv2.resize(image, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA) \
            if s < 1 else image
        hsv = cv2.cvtColor(small, cv2.COLOR_RGB2HSV)
        v, sat = hsv[..., 2], hsv[..., 1]
        block = max(31, (min(small.shape[:2]) // 8) | 1)
        light = cv2.adaptiveThreshold(v, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, block, -8)
        light &= (sat < 90).astype(np.uint8) * 255
        light = cv2.morphologyEx(light, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        contours, _ = cv2.findContours(light, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        area_img = small.shape[0] * small.shape[1]
        out = []
        for c in contours:
            x, y, bw, bh = cv2.boundingRect(c)
            area = cv2.contourArea(c)
            if not (self.min_area * area_img <= area <= self.max_area * area_img):
                continue
            if area < 0.55 * bw * bh:  # not a filled rectangle
                continue
            out.append(Proposal((x / s, y / s, (x + bw) / s, (y + bh) / s), 0.3, "contour"))
            # touching tiles make one blob: also propose it cut into tile-shaped pieces, both ways
            # (a standing tile is about 3:4; a wide blob may be tiles side by side or one on its side)
            for n, across in ((round(bw / (0.75 * bh)), True), (round(bh / (0.75 * bw)), False)):
                if n < 2:
                    continue
                for k in range(n):
                    box = (x + bw * k / n, y, x + bw * (k + 1) / n, y + bh) if across else \
                        (x, y + bh * k / n, x + bw, y + bh * (k + 1) / n)
                    out.append(Proposal(tuple(float(v) / s for v in box), 0.25, "contour"))
        return out
