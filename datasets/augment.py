"""Training views of a context crop: turned, slanted, shifted, relit, blurred, compressed —
never mirrored. The last step is the inference cut of :mod:`vision.preprocess`."""

from __future__ import annotations

import math

import cv2
import numpy as np

from mjcam.vision.preprocess import INPUT_SIZE, letterbox, upright


def _rotation(rng: np.random.Generator) -> float:
    r = rng.random()
    if r < 0.45:  # upright, either way up
        return float(rng.choice([0.0, 180.0]) + rng.normal(0, 4))
    if r < 0.7:  # a claimed tile turned sideways
        return float(rng.choice([90.0, 270.0]) + rng.normal(0, 4))
    return float(rng.uniform(0, 360))  # seen at a slant


def view(ctx: np.ndarray, size_wh, rng: np.random.Generator, out: int = INPUT_SIZE,
         geometric: bool = True, ink: float = 0.0, cast: float = 0.0, coarse: float = 0.0,
         foreshorten: float = 0.0, tops: float = 0.0) -> np.ndarray:
    """One augmented classifier input from a context crop with a box of ``size_wh`` at its centre;
    with probability ``ink`` its engraving is also redrawn as another tile set might (:func:`inked`),
    with probability ``cast`` it is lit as by a lamp or shade left uncorrected (:func:`cast_light`),
    with probability ``coarse`` it is seen with fewer pixels across, down or both (:func:`coarsened`).
    Geometric views only: with probability ``tops`` the tile stands and its top is seen beyond one
    end of its face (:func:`with_top`), with probability ``foreshorten`` the photo is taken from a
    seat above the table, everything squashed down the photo by :func:`foreshortening`'s factor
    (a tile standing upright in the photo: its height; one lying sideways: its width). Both 0 (the
    default): the views as before, draw for draw."""
    c = ctx.shape[0]
    bw, bh = float(size_wh[0]), float(size_wh[1])
    if geometric:
        ox = oy = 0.0  # the box's centre from the crop's
        if tops and rng.random() < tops:
            ctx, (bw, bh), (ox, oy) = with_top(ctx, (bw, bh), rng)
        angle = _rotation(rng)
        m = cv2.getRotationMatrix2D((c / 2, c / 2), angle, 1.0)
        squash = foreshortening(rng) if foreshorten and rng.random() < foreshorten else 1.0
        if squash != 1.0:  # squashed down the photo about its centre, after the turn
            m = np.array([[1.0, 0.0, 0.0], [0.0, squash, c / 2 * (1 - squash)]]) @ np.vstack([m, [0.0, 0.0, 1.0]])
        img = cv2.warpAffine(ctx, m, (c, c), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        a = math.radians(angle)
        w = abs(bw * math.cos(a)) + abs(bh * math.sin(a))
        h = (abs(bw * math.sin(a)) + abs(bh * math.cos(a))) * squash
        w *= rng.uniform(0.9, 1.12)
        h *= rng.uniform(0.9, 1.12)
        bx, by = (m @ np.array([c / 2 + ox, c / 2 + oy, 1.0])) if (ox or oy) else (c / 2, c / 2)
        cx = bx + rng.normal(0, 0.05) * w
        cy = by + rng.normal(0, 0.05) * h
    else:
        img, w, h, cx, cy = ctx, bw, bh, c / 2, c / 2
    pad = 0.06
    x1, y1 = int(round(max(0, cx - w / 2 - w * pad))), int(round(max(0, cy - h / 2 - h * pad)))
    x2, y2 = int(round(min(c, cx + w / 2 + w * pad))), int(round(min(c, cy + h / 2 + h * pad)))
    crop = img[y1:max(y2, y1 + 2), x1:max(x2, x1 + 2)]
    crop = upright(crop)
    if geometric and crop.shape[1] > crop.shape[0] * 0.9 and rng.random() < 0.5:
        crop = cv2.rotate(crop, cv2.ROTATE_180)
    x = letterbox(crop, out)
    if coarse and rng.random() < coarse:
        x = coarsened(x, rng)
    if ink and rng.random() < ink:
        x = inked(x, rng)
    if geometric:
        if cast and rng.random() < cast:
            x = cast_light(x, rng)
        x = photometric(x, rng)
    return x


#: how far a face lying up is squashed down the photo, seen from a seat 27 to 58 degrees above the
#: table (sin of the angle); a standing tile's face, seen from above at those angles, is squashed
#: less (cos of it: 0.53 to 0.89), so the range holds both
FORESHORTENING = (0.45, 0.85)


def foreshortening(rng: np.random.Generator) -> float:
    """A factor by which a photo taken from a seat squashes the table's depth (:data:`FORESHORTENING`)."""
    return float(rng.uniform(*FORESHORTENING))


#: colours of the back layer of a tile's top (RGB): green, blue, yellow, orange, and none (one colour)
BACK_LAYERS = ((40, 120, 70), (45, 85, 150), (210, 175, 60), (205, 110, 45), None)


def with_top(ctx: np.ndarray, size_wh, rng: np.random.Generator):
    """The tile standing, its top seen from above beyond one end of its face (which end is not
    known: tiles stand either way up in the crops): a strip as wide as the tile, 10 to 30 % of the
    face's height deep, the face's ivory layer nearest it then the coloured back layer (or ivory
    through), shaded towards its far edge and with an edge line where it meets the face; the box
    grown over it. Returns the new crop, the box's size and its centre's offset from the crop's.

    >>> ctx = np.full((144, 144, 3), 60, np.uint8); ctx[27:117, 45:99] = 235
    >>> out, (bw, bh), (ox, oy) = with_top(ctx, (54, 90), np.random.default_rng(0))
    >>> out.shape == ctx.shape, bw == 54, 99 < bh <= 117, abs(oy) == (bh - 90) / 2, ox
    (True, True, True, True, 0.0)
    """
    c = ctx.shape[0]
    bw, bh = float(size_wh[0]), float(size_wh[1])
    vertical = bh >= bw  # the face's height runs down the crop
    length, across = (bh, bw) if vertical else (bw, bh)
    depth = int(round(min(length * rng.uniform(0.1, 0.3), (c - length) / 2 - 1)))
    if depth < 2:
        return ctx, (bw, bh), (0.0, 0.0)
    ivory = np.array([1.0, rng.uniform(0.96, 1.0), rng.uniform(0.85, 0.97)]) * rng.uniform(200, 245)
    layer = BACK_LAYERS[int(rng.integers(len(BACK_LAYERS)))]
    back = ivory if layer is None else np.array(layer, float) * rng.uniform(0.8, 1.15)
    n = max(1, int(round(across)))
    split = int(round(depth * rng.uniform(0.35, 0.75)))
    strip = np.empty((depth, n, 3), np.float32)  # row 0 meets the face
    strip[:split] = ivory
    strip[split:] = back
    strip *= np.linspace(1.0, rng.uniform(0.75, 1.0), depth, dtype=np.float32)[:, None, None]
    strip[0] *= rng.uniform(0.55, 0.8)  # the edge between face and top
    strip += rng.normal(0, 3, strip.shape).astype(np.float32)
    strip = np.clip(strip, 0, 255).astype(np.uint8)
    end = 1 if rng.random() < 0.5 else -1  # the top beyond the far (+1) or near (-1) end
    if end == -1:
        strip = strip[::-1]
    a0 = int(round(c / 2 + length / 2)) if end == 1 else int(round(c / 2 - length / 2)) - depth
    b0 = int(round(c / 2 - across / 2))
    out = ctx.copy()
    if vertical:
        out[a0:a0 + depth, b0:b0 + n] = strip[:, :out[a0:a0 + depth, b0:b0 + n].shape[1]]
    else:
        strip = strip.transpose(1, 0, 2)
        out[b0:b0 + n, a0:a0 + depth] = strip[:out[b0:b0 + n, a0:a0 + depth].shape[0]]
    shift = end * depth / 2
    if vertical:
        return out, (bw, bh + depth), (0.0, shift)
    return out, (bw + depth, bh), (shift, 0.0)


def coarsened(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The view as a tile photographed with 1.5 to 4 times fewer pixels across it, down it, or both
    (a tile small in a photo of the whole table; a photo squeezed out of shape and read squeezed
    back): shrunk by area and drawn back up to its size."""
    h, w = x.shape[:2]
    f = rng.uniform(1.5, 4.0)
    axes = int(rng.integers(3))  # across, down, both
    fx = f if axes != 1 else 1.0
    fy = f if axes != 0 else 1.0
    small = cv2.resize(x, (max(2, round(w / fx)), max(2, round(h / fy))), interpolation=cv2.INTER_AREA)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def cast_light(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The picture as a camera that left a colour cast uncorrected would have taken it: red and
    blue scaled apart along the warm–cool line (from a tungsten lamp, red about 1.35 and blue 0.7
    of green, to deep shade, the other way round), green tinted by a few percent, the brightest
    channel clipped as the camera clips it. Beyond the ±12 % white balance of :func:`photometric`.

    >>> x = np.full((4, 4, 3), 200, np.uint8)
    >>> y = cast_light(x, np.random.default_rng(1))
    >>> y.shape, y.dtype, bool(y[..., 0].mean() != y[..., 2].mean())
    ((4, 4, 3), dtype('uint8'), True)
    """
    t = rng.uniform(-1.0, 1.0)  # warm (+) to cool (-)
    gains = np.exp(np.array([0.3 * t, rng.normal(0.0, 0.03), -0.35 * t]))
    gains /= gains.mean()  # the cast, not the exposure
    return np.clip(x.astype(np.float32) * gains.astype(np.float32), 0, 255).astype(np.uint8)


def inked(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The same tile as another set might engrave it: strokes a pixel bolder or finer (a grey
    erosion or dilation: the engraving is darker than the face) and/or the inks' hue turned a
    little (sets differ in their blues, greens and reds, never a red for a green).

    >>> x = np.full((8, 8, 3), 230, np.uint8); x[2:6, 3] = (20, 20, 160)
    >>> y = inked(x, np.random.default_rng(0))
    >>> y.shape, y.dtype, int(y[0, 0, 0])  # the face stays as light
    ((8, 8, 3), dtype('uint8'), 230)
    """
    import cv2

    r = rng.random()
    if r < 0.7:  # strokes: bolder (min filter) or finer (max filter)
        k = np.ones((2, 2), np.uint8)
        x = cv2.erode(x, k) if rng.random() < 0.5 else cv2.dilate(x, k)
    if r >= 0.4:  # inks: hue turned up to 12 degrees (OpenCV's hue runs 0-180)
        hsv = cv2.cvtColor(x, cv2.COLOR_RGB2HSV)
        hsv[..., 0] = ((hsv[..., 0].astype(np.int16) + int(rng.integers(-6, 7))) % 180).astype(np.uint8)
        x = cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB)
    return x


def photometric(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Light, colour, blur, noise and JPEG changes."""
    f = x.astype(np.float32)
    f = f * rng.uniform(0.6, 1.35) + rng.uniform(-30, 30)
    mean = f.mean(axis=(0, 1), keepdims=True)
    f = (f - mean) * rng.uniform(0.7, 1.3) + mean
    f = f * rng.uniform(0.88, 1.12, size=(1, 1, 3))  # white balance
    grey = f.mean(axis=2, keepdims=True)
    f = grey + (f - grey) * rng.uniform(0.6, 1.3)
    if rng.random() < 0.3:  # glare or shadow across the tile
        h, w = f.shape[:2]
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        a = rng.uniform(0, 2 * math.pi)
        ramp = (np.cos(a) * xx + np.sin(a) * yy) / max(h, w)
        f = f + (ramp[..., None] - ramp.mean()) * rng.uniform(-90, 90)
    if rng.random() < 0.3:
        f = f + rng.normal(0, rng.uniform(2, 10), f.shape)
    x = np.clip(f, 0, 255).astype(np.uint8)
    if rng.random() < 0.25:
        k = int(rng.choice([3, 5]))
        x = cv2.GaussianBlur(x, (k, k), 0)
    if rng.random() < 0.3:
        q = int(rng.integers(30, 90))
        ok, enc = cv2.imencode(".jpg", x, [cv2.IMWRITE_JPEG_QUALITY, q])
        if ok:
            x = cv2.imdecode(enc, cv2.IMREAD_UNCHANGED)
    return x
