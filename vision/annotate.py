"""The picture a person looks at to confirm a reading: each tile's box, number and code drawn on the
photo in its set's colour, with a line under each set (thicker for a melded one; none under the
tiles left out of the hand); tiles to check drawn thick in red with a question mark."""

from __future__ import annotations

import os

import cv2
import numpy as np

from .io import ImageError
from .recognition import Recognition

# one colour per set (RGB), distinct on felt, wood and tile faces
PALETTE = [(0, 114, 189), (217, 83, 25), (119, 172, 48), (126, 47, 142), (77, 190, 238), (237, 177, 32),
           (0, 128, 128), (160, 82, 45)]
FLAG = (230, 0, 0)
WRITABLE = (".jpg", ".jpeg", ".png", ".webp")


#: the smallest text scale a label is shrunk to so that it fits over its tile (still legible)
SMALLEST_TEXT = 0.3


def _fitted(label: str, font: float, thick: int, width: int) -> float:
    """The text scale at which ``label`` is no wider than its tile's box (``width`` pixels), so that
    the labels of small tiles side by side do not run into each other: ``font`` where it fits,
    else smaller, down to ``SMALLEST_TEXT``."""
    (tw, _), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, font, thick)
    return font if tw <= width else max(SMALLEST_TEXT, font * width / max(1, tw))


def annotate(image: np.ndarray, rec: Recognition) -> np.ndarray:
    """A copy of ``image`` (RGB, any scale of the photo) with the reading drawn on it."""
    out = np.ascontiguousarray(image.copy())
    s = out.shape[1] / max(1, rec.width)
    thick = max(1, round(max(out.shape[:2]) / 500))
    font = max(0.35, max(out.shape[:2]) / 1600)
    flagged = set(rec.needs_confirmation)
    for p, t in enumerate(rec.tiles):
        x1, y1, x2, y2 = (int(round(v * s)) for v in t.box)
        colour = FLAG if p in flagged else PALETTE[(t.group or 0) % len(PALETTE)]
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, thick * (2 if p in flagged else 1))
        label = f"{p + 1}:{t.code}" + ("?" if p in flagged else "")
        size = _fitted(label, font, thick, x2 - x1)
        (tw, th), base = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, size, thick)
        ty = y1 - 3 if y1 - th - 3 > 0 else y2 + th + 3
        cv2.rectangle(out, (x1, ty - th - 2), (x1 + tw + 2, ty + base - 1), colour, -1)
        cv2.putText(out, label, (x1 + 1, ty - 1), cv2.FONT_HERSHEY_SIMPLEX, size, (255, 255, 255), thick,
                    cv2.LINE_AA)
    for gi, g in enumerate(rec.groups):  # a line under each set, thicker for melded ones
        if not g["tiles"] or g.get("kind") == "stray":  # tiles left out of the hand make no set: no line
            continue
        bs = np.array([rec.tiles[p].box for p in g["tiles"]]) * s
        y = int(bs[:, 3].max()) + 2 * thick
        cv2.line(out, (int(bs[:, 0].min()), y), (int(bs[:, 2].max()), y), PALETTE[gi % len(PALETTE)],
                 thick * (3 if g["melded"] else 1))
    return out


def save_annotated(path: str, image: np.ndarray, rec: Recognition) -> None:
    """Write the annotated picture; the format follows the extension (JPEG, PNG or WebP)."""
    if not path.lower().endswith(WRITABLE):
        raise ImageError(f"{path}: the annotated picture must end in {', '.join(WRITABLE)}", "output")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ImageError(f"{path}: no such folder {folder}", "output")
    ok = cv2.imwrite(path, cv2.cvtColor(annotate(image, rec), cv2.COLOR_RGB2BGR))
    if not ok:
        raise ImageError(f"{path}: cannot write the annotated picture", "output")
