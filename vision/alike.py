"""Tiles that look alike are read alike.

A winning hand holds the same tile two, three or four times (pairs, pungs, kongs), side by side
and photographed in the same light. Where the classifier is unsure of one of them — a tile set it
never saw, a blurred corner — the others are further looks at the same face. :func:`likeness`
compares two tiles' faces directly, pixel by pixel (no network: it knows nothing of which tile
either is), and :func:`pooled` lets an unsure tile's reading take in the readings of the tiles
whose faces match it closely.

Only unsure readings change: a tile read at ``unsure`` or more keeps its own reading (and lends
it to the others), so two different tiles taken for alike cannot overturn a sure reading.
"""

from __future__ import annotations

import cv2
import numpy as np

PATCH = (36, 48)  # a face compared at this size (width, height), upright
SHIFT = 2  # ... allowing this many pixels of misalignment either way
INNER = 0.08  # each side of the box trimmed by this share: the neighbours' edges and the table left out
SIZE_RATIO = 1.35  # boxes whose widths or heights differ more than this are not compared


def face_patch(image: np.ndarray, box) -> np.ndarray | None:
    """The face in ``box`` of an RGB ``image`` as a grey patch standing upright (a box wider than
    tall is a tile lying sideways: turned a quarter), ``PATCH`` large; ``None`` for a box too small
    to compare."""
    x1, y1, x2, y2 = (float(v) for v in box)
    dx, dy = (x2 - x1) * INNER, (y2 - y1) * INNER
    h, w = image.shape[:2]
    a, b = max(0, int(round(x1 + dx))), min(w, int(round(x2 - dx)))
    c, d = max(0, int(round(y1 + dy))), min(h, int(round(y2 - dy)))
    if b - a < 6 or d - c < 6:
        return None
    crop = image[c:d, a:b]
    grey = cv2.cvtColor(np.ascontiguousarray(crop), cv2.COLOR_RGB2GRAY) if crop.ndim == 3 else crop
    if grey.shape[1] > grey.shape[0]:
        grey = np.ascontiguousarray(np.rot90(grey))
    return cv2.resize(grey, PATCH, interpolation=cv2.INTER_AREA).astype(np.float32)


CELLS = (3, 3)  # the faces are compared part by part: rows, columns


def _aligned(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a``'s middle and the part of ``b`` it lies on best (shifted up to ``SHIFT`` pixels)."""
    core = a[SHIFT:-SHIFT, SHIFT:-SHIFT]
    if float(core.std()) < 1e-3 or float(b.std()) < 1e-3:
        return core, b[SHIFT:-SHIFT, SHIFT:-SHIFT]
    _, _, _, (x, y) = cv2.minMaxLoc(cv2.matchTemplate(b, core, cv2.TM_CCOEFF_NORMED))
    return core, b[y:y + core.shape[0], x:x + core.shape[1]]


def _partwise(a: np.ndarray, b: np.ndarray) -> float:
    """The worst part's correlation of two aligned patches (``CELLS``): two faces alike but for a
    small numeral (the characters suit) differ in the numeral's part. A part blank in both
    matches; blank in one only, it does not."""
    za = (a - a.mean()) / max(1e-3, float(a.std()))
    zb = (b - b.mean()) / max(1e-3, float(b.std()))
    rows, cols = CELLS
    h, w = za.shape
    worst = 1.0
    for r in range(rows):
        for c in range(cols):
            pa = za[r * h // rows:(r + 1) * h // rows, c * w // cols:(c + 1) * w // cols]
            pb = zb[r * h // rows:(r + 1) * h // rows, c * w // cols:(c + 1) * w // cols]
            sa, sb = float(pa.std()), float(pb.std())
            if sa < BLANK and sb < BLANK:
                continue
            if sa < BLANK or sb < BLANK:
                return 0.0
            worst = min(worst, float(((pa - pa.mean()) * (pb - pb.mean())).mean() / (sa * sb)))
    return worst


BLANK = 0.25  # a part whose spread is under this (of the whole face's) shows no engraving


def likeness(a: np.ndarray, b: np.ndarray) -> float:
    """How alike two face patches are (-1 to 1): each laid on the other as well as it goes, and
    compared part by part (the worst part counts), the lower of the two ways; the better of ``b``
    as it is and half turned (one of two alike tiles may stand upside down, or a sideways tile lie
    the other way)."""
    best = -1.0
    for turned in (b, np.ascontiguousarray(b[::-1, ::-1])):
        best = max(best, min(_partwise(*_aligned(a, turned)), _partwise(*_aligned(turned, a))))
    return best


def likeness_matrix(image: np.ndarray, boxes, rows=None) -> np.ndarray:
    """``[i, j]``: :func:`likeness` of the faces in ``boxes[i]`` and ``boxes[j]`` (0 on the
    diagonal, and where the boxes differ in size by more than ``SIZE_RATIO`` or either is too
    small to compare). Boxes are compared by their long and short sides, so a sideways tile meets
    an upright one. ``rows``: only the pairs with one of these boxes (the rest left 0)."""
    n = len(boxes)
    out = np.zeros((n, n), np.float32)
    patches = [face_patch(image, b) for b in boxes]
    sides = [sorted((b[2] - b[0], b[3] - b[1])) for b in boxes]
    wanted = set(range(n) if rows is None else rows)
    for i in range(n):
        for j in range(i + 1, n):
            if (i not in wanted and j not in wanted) or patches[i] is None or patches[j] is None:
                continue
            if any(max(u, v) > SIZE_RATIO * max(1e-6, min(u, v)) for u, v in zip(sides[i], sides[j])):
                continue
            out[i, j] = out[j, i] = likeness(patches[i], patches[j])
    return out


def pooled(probs: np.ndarray, alike: np.ndarray, threshold: float, unsure: float,
           skip: int | None = None) -> np.ndarray:
    """Class probabilities (one row a tile) with each unsure tile's row — its top probability,
    class ``skip`` (not-a-tile) aside, under ``unsure`` — replaced by the mean of its own and those
    of the tiles whose :func:`likeness` to it is ``threshold`` or more. Sure rows are left as
    they are; rows are pooled from the readings as they came, never from rows already pooled."""
    probs = np.asarray(probs, np.float32)
    top = probs.copy()
    if skip is not None:
        top[:, skip] = 0
    out = probs.copy()
    for i in range(len(probs)):
        if top[i].max() >= unsure:
            continue
        mates = np.flatnonzero(alike[i] >= threshold)
        if len(mates):
            out[i] = probs[np.concatenate([[i], mates])].mean(axis=0)
    return out
