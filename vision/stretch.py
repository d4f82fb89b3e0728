"""A photo stretched out of shape (a long photo resized to a square, say) and the squeezes that
undo it: :func:`stretches` says which to try, :func:`squeezed` makes each copy, and
:func:`sureness` says which copy read best."""

from __future__ import annotations

import math

import cv2
import numpy as np

from .preprocess import shrink

#: A photo's gradient anisotropy (:func:`anisotropy`) outside this range means it was stretched out
#: of shape (resized to a square, say): 1,343 held-in and held-out training photos lie within 0.52-1.9.
STRETCH_NORMAL = (0.4, 2.5)
STRETCHED_FOR_SURE = (0.25, 4.0)  # ... outside this, reading it as it is would be reading noise
STRETCH_FACTORS = (2, 3, 4, 6, 8, 11, 16)  # the stretches tried on such a photo
STRETCH_MIN_SIDE = 32  # ... squeezing no side below this many pixels
TILE_SHAPED = (0.4, 2.5)  # width / height of a tile's box, upright or sideways, at a slant too
STRETCH_LOOK_SIDE = 640  # the anisotropy is measured on a copy this large (as the training photos are)


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
    >>> anisotropy(cv2.resize(noise, (640, 64), interpolation=cv2.INTER_LINEAR)) > 4
    True
    """
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


def sureness(tiles, low: float, squeeze: tuple[float, float] = (1.0, 1.0)) -> float:
    """How well a reading went: the summed confidence of the tiles read (``TileRead``) surely in a
    box shaped like a tile (``TILE_SHAPED``), measured in the copy read (the photo squeezed
    ``squeeze`` times)."""
    lo, hi = TILE_SHAPED
    own = [t.confidence if getattr(t, "raw", None) is None else t.raw for t in tiles]  # (before calibration)
    return sum(c for t, c in zip(tiles, own) if c >= low and
               lo <= (t.box[2] - t.box[0]) * squeeze[1] / max(1e-9, (t.box[3] - t.box[1]) * squeeze[0]) <= hi)
