"""Light and colour evened out before a photo is read.

The networks learnt tiles from photos taken in fair light (and from augmented copies of them: a
little brighter or darker, white balance within about 12 %). A photo taken under a lamp without
the phone correcting it, or in a dim room, lies outside that: :func:`brightened` lifts a dim
photo before its tiles are looked for, and :func:`balanced` turns a colour cast back, judged from
the tile faces themselves (the one thing in a photo of a hand known to be near white).
"""

from __future__ import annotations

import cv2
import numpy as np

# The tile faces' colour (RGB) in the training photos, as :func:`face_colour` measures it on their
# labelled boxes (HK photos of the Roboflow train split, the held-out photos left out; the median
# of the photos' medians): only its balance between the channels is used.
FACE = np.array([220.5, 215.1, 206.0])
# a photo whose 99th percentile of brightness (:func:`brightness`) lies under DIM_BELOW is brightened
DIM_BELOW = 170.0
BRIGHT_TO = 225.0  # to put it here,
MAX_GAIN = 3.0  # at most this many times as bright
# a colour cast is turned back where a channel's gain differs from 1 by more than this (the
# training photos' own faces lie within about 8 % of FACE's balance: 2nd to 98th percentile)
CAST_ABOVE = 0.08
GAIN_RANGE = (0.6, 1.6)  # and a channel's gain is kept within this
FEWEST_FACES = 3  # tiles needed to judge the cast by


def relit(image: np.ndarray, gains) -> np.ndarray:
    """The uint8 RGB ``image`` with each channel scaled by its gain (clipped at 255)."""
    ramp = np.arange(256, dtype=np.float32)
    table = np.clip(np.stack([ramp * float(g) for g in gains], axis=1) + 0.5, 0, 255).astype(np.uint8)
    return cv2.LUT(np.ascontiguousarray(image), table.reshape(256, 1, 3))


def brightness(image: np.ndarray) -> float:
    """The 99th percentile of the photo's brightness (0-255), each pixel's brightness being its
    brightest channel (so a colour cast, which lowers one or two channels, does not make a photo
    look dim), on every fourth pixel each way."""
    every4 = image[::4, ::4]
    # channel by channel: several times quicker than max(axis=2) over a strided view, the same values
    brightest = np.maximum.reduce([every4[..., c] for c in range(every4.shape[2])])
    return float(np.percentile(brightest, 99))


def brightened(image: np.ndarray) -> tuple[np.ndarray, float]:
    """A dim RGB photo brightened (its 99th percentile of brightness under :data:`DIM_BELOW` taken
    to :data:`BRIGHT_TO`, at most :data:`MAX_GAIN` times), and the gain; a photo in fair light is
    returned as it is with a gain of 1.

    >>> dim = np.full((8, 8, 3), 90, np.uint8)
    >>> out, gain = brightened(dim)
    >>> round(gain, 2), int(out[0, 0, 0])
    (2.5, 225)
    >>> brightened(np.full((8, 8, 3), 200, np.uint8))[1]
    1.0
    """
    level = brightness(image)
    if level >= DIM_BELOW:
        return image, 1.0
    gain = min(MAX_GAIN, BRIGHT_TO / max(level, 1.0))
    return relit(image, (gain,) * 3), gain


def face_colour(image: np.ndarray, boxes) -> np.ndarray | None:
    """The tile faces' colour (RGB) in ``boxes`` of an RGB image: in each box's middle (a fifth of
    each side left off: the edges, the rack, the next tile), the mean of its brightest 30 % of
    pixels (the face between the engraving); the median over the boxes. None where fewer than
    :data:`FEWEST_FACES` boxes can be measured."""
    h, w = image.shape[:2]
    colours = []
    for x0, y0, x1, y1 in boxes:
        dx, dy = (x1 - x0) / 5, (y1 - y0) / 5
        a, b = max(0, int(round(x0 + dx))), min(w, int(round(x1 - dx)))
        c, d = max(0, int(round(y0 + dy))), min(h, int(round(y1 - dy)))
        if b - a < 3 or d - c < 3:
            continue
        patch = image[c:d, a:b].reshape(-1, 3).astype(np.float32)
        luma = patch @ np.array([0.299, 0.587, 0.114], np.float32)
        colours.append(patch[luma >= np.percentile(luma, 70)].mean(axis=0))
    if len(colours) < FEWEST_FACES:
        return None
    return np.median(np.array(colours), axis=0)


def cast_gains(image: np.ndarray, boxes) -> np.ndarray:
    """Each channel's gain that turns the tile faces' colour in ``boxes`` to the balance of
    :data:`FACE` (the faces' brightness kept), within :data:`GAIN_RANGE`; all 1 where the faces
    cannot be measured or no gain differs from 1 by more than :data:`CAST_ABOVE`."""
    face = face_colour(image, boxes)
    ones = np.ones(3)
    if face is None or face.min() < 1:
        return ones
    gains = (FACE / FACE.mean()) / (face / face.mean())
    gains = np.clip(gains, *GAIN_RANGE)
    return gains if np.abs(gains - 1).max() > CAST_ABOVE else ones


def balanced(image: np.ndarray, boxes) -> tuple[np.ndarray, np.ndarray]:
    """The RGB photo with its colour cast turned back (:func:`cast_gains` of the tiles in
    ``boxes``), and the gains; the photo as it is where there is no cast to turn back.

    >>> photo = np.zeros((40, 60, 3), np.uint8); photo[:] = (40, 90, 30)
    >>> boxes = [(5 + 18 * k, 10, 19 + 18 * k, 30) for k in range(3)]
    >>> for x0, y0, x1, y1 in boxes:
    ...     photo[y0:y1, x0:x1] = (250, 200, 140)  # faces under a warm lamp
    >>> out, gains = balanced(photo, boxes)
    >>> [int(v) for v in out[20, 10]], [round(float(g), 2) for g in gains]
    ([203, 198, 189], [0.81, 0.99, 1.35])
    """
    gains = cast_gains(image, boxes)
    if np.all(gains == 1):
        return image, gains
    return relit(image, gains), gains
