"""Turning a tile's box in a photo into the classifier's input, shared by training and inference.

A crop keeps the tile's aspect: it is cut with a little padding, turned upright when it is
wider than tall (a claimed tile lies sideways), scaled to fit the square input and padded with
grey. No crop is ever mirrored: mirrored characters do not exist on real tiles.
"""

from __future__ import annotations

import cv2
import numpy as np

INPUT_SIZE = 64
PAD_VALUE = 128
SIDEWAYS_RATIO = 1.15  # a box this much wider than tall is a tile lying on its side
#: a box whose width over height lies outside these has no tile's shape (beyond the 0.1th and 99.9th
#: percentiles of the labelled boxes of the unstretched training photos): a tile in a picture
#: stretched out of shape, read drawn back to one of ``TILE_SHAPES`` (:func:`reshaped`)
OUT_OF_SHAPE = (0.28, 3.5)
TILE_SHAPES = (0.75, 1.35)  # width over height of a tile standing and of one lying on its side
#: a box wider than tall by ``SIDEWAYS_RATIO`` up to this may be a tile lying sideways or a face lying
#: up seen from the seat, squashed down the photo (to 0.3 of a standing tile's height at this)
FLAT_MOST = 2.5


def shrink(image: np.ndarray, side: int) -> np.ndarray:
    """A copy of an image whose long side is at most ``side`` pixels (area-averaged); the image
    itself when it is no larger.

    >>> shrink(np.zeros((300, 400, 3), np.uint8), 200).shape
    (150, 200, 3)
    """
    h, w = image.shape[:2]
    s = side / max(h, w)
    if s >= 1:
        return image
    return cv2.resize(image, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)


def cut(image: np.ndarray, box, pad: float = 0.06) -> np.ndarray:
    """The box (x1, y1, x2, y2) with ``pad`` of its size around it, clipped to the image."""
    h, w = image.shape[:2]
    x1, y1, x2, y2 = (float(v) for v in box)
    px, py = (x2 - x1) * pad, (y2 - y1) * pad
    a, b = max(0, int(round(x1 - px))), max(0, int(round(y1 - py)))
    c, d = min(w, int(round(x2 + px))), min(h, int(round(y2 + py)))
    if c <= a or d <= b:
        raise ValueError(f"empty box {box} in a {w}x{h} image")
    return image[b:d, a:c]


def is_sideways(width: float, height: float) -> bool:
    return width > SIDEWAYS_RATIO * height


def upright(crop: np.ndarray) -> np.ndarray:
    """Turn a wide crop a quarter turn so the tile stands (which way is learnt: both are trained)."""
    h, w = crop.shape[:2]
    return cv2.rotate(crop, cv2.ROTATE_90_CLOCKWISE) if is_sideways(w, h) else crop


def out_of_shape(box) -> bool:
    """Whether a box (x1, y1, x2, y2) is too wide or too tall for any tile (``OUT_OF_SHAPE``).

    >>> out_of_shape((0, 0, 30, 40)), out_of_shape((0, 0, 400, 40)), out_of_shape((0, 0, 10, 40))
    (False, True, True)
    """
    w, h = float(box[2]) - float(box[0]), float(box[3]) - float(box[1])
    return w > 0 and h > 0 and not OUT_OF_SHAPE[0] <= w / h <= OUT_OF_SHAPE[1]


def flat_or_sideways(box) -> bool:
    """Whether a box (x1, y1, x2, y2) is as wide for its height as a tile lying sideways and as a
    standing tile's face lying up seen from the seat (between ``SIDEWAYS_RATIO`` and ``FLAT_MOST``):
    which it is, its crop alone cannot say.

    >>> flat_or_sideways((0, 0, 40, 30)), flat_or_sideways((0, 0, 30, 40)), flat_or_sideways((0, 0, 90, 30))
    (True, False, False)
    """
    w, h = float(box[2]) - float(box[0]), float(box[3]) - float(box[1])
    return w > 0 and h > 0 and SIDEWAYS_RATIO < w / h <= FLAT_MOST


def reshaped(crop: np.ndarray, aspect: float) -> np.ndarray:
    """The crop drawn ``aspect`` times as wide as tall by stretching its short side (a tile
    stretched out of shape drawn back to a tile's shape).

    >>> reshaped(np.zeros((10, 200, 3), np.uint8), 0.75).shape
    (267, 200, 3)
    """
    h, w = crop.shape[:2]
    if w >= h:
        return cv2.resize(crop, (w, max(1, round(w / aspect))), interpolation=cv2.INTER_LINEAR)
    return cv2.resize(crop, (max(1, round(h * aspect)), h), interpolation=cv2.INTER_LINEAR)


def letterbox(crop: np.ndarray, size: int = INPUT_SIZE) -> np.ndarray:
    """Scale to fit ``size`` x ``size`` keeping the aspect, pad with grey."""
    h, w = crop.shape[:2]
    s = size / max(h, w)
    nh, nw = max(1, round(h * s)), max(1, round(w * s))
    interp = cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR
    small = cv2.resize(crop, (nw, nh), interpolation=interp)
    out = np.full((size, size, 3), PAD_VALUE, np.uint8)
    y, x = (size - nh) // 2, (size - nw) // 2
    out[y:y + nh, x:x + nw] = small
    return out


def prepare(image: np.ndarray, box, size: int = INPUT_SIZE, aspect: float | None = None) -> np.ndarray:
    """The classifier input (size x size x 3, RGB uint8) for one box of an RGB image; with
    ``aspect``, the crop first drawn that many times as wide as tall (:func:`reshaped`)."""
    crop = cut(image, box)
    return letterbox(upright(reshaped(crop, aspect) if aspect else crop), size)


def to_tensor(batch: np.ndarray, mean, std) -> np.ndarray:
    """NHWC uint8 RGB -> NCHW float32, (x / 255 - mean) / std as stored in the model: one
    multiply and one subtraction per channel, written straight into the channels-first array
    (seven times faster than dividing, subtracting and transposing whole arrays; the same values
    to 1e-6).

    >>> x = to_tensor(np.array([[[[0, 128, 255]]]], np.uint8), (0.5, 0.5, 0.5), (0.25, 0.25, 0.25))
    >>> x.shape, [round(float(v), 4) for v in x.ravel()]
    ((1, 3, 1, 1), [-2.0, 0.0078, 2.0])
    """
    m, s = np.asarray(mean, np.float32), np.asarray(std, np.float32)
    scale, shift = 1.0 / (255.0 * s), m / s
    x = np.empty((batch.shape[0], batch.shape[3]) + batch.shape[1:3], np.float32)
    for c in range(batch.shape[3]):
        np.multiply(batch[..., c], scale[c], out=x[:, c], dtype=np.float32)
        x[:, c] -= shift[c]
    return x
