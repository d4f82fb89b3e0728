"""Loading photos: JPEG, PNG, WebP, HEIC (pillow-heif); EXIF orientation applied; size limits.

Every failure is an :class:`ImageError` with one line that says what was wrong.
"""

from __future__ import annotations

import math
import os
import warnings

import numpy as np

MAX_PIXELS = 200_000_000
MIN_PIXELS = 16 * 16


class ImageError(ValueError):
    """A file that is not a usable picture. ``kind`` says which way: missing, folder, empty,
    too-large, too-small, not-an-image, corrupt."""

    def __init__(self, message: str, kind: str = "corrupt"):
        super().__init__(message)
        self.kind = kind


# modes whose pixels may be averaged (not a palette's indices)
_REDUCIBLE = ("RGB", "RGBA", "L", "LA", "I", "F", "CMYK", "YCbCr")

_heif_registered = False


def _register_heif() -> None:
    global _heif_registered
    if not _heif_registered:
        try:
            import pillow_heif

            pillow_heif.register_heif_opener()
        except ImportError:  # HEIC support is optional at run time; the error below says so
            pass
        _heif_registered = True


def load_image(path: str) -> np.ndarray:
    """The picture at ``path`` as an RGB uint8 array, as a person sees it (EXIF orientation applied)."""
    return load_photo(path)[0]


def _rgb(im) -> np.ndarray:
    """An open picture of any mode as an RGB uint8 array: pictures with more than 8 bits a channel
    (16-bit and 32-bit integer, floating point: scans, PNGs and TIFFs from raw converters) scaled
    to 8 bits rather than clipped, transparent pixels laid on white."""
    from PIL import Image

    if im.mode in ("RGB", "L", "CMYK", "YCbCr", "1", "P") and "transparency" not in im.info:
        return np.asarray(im if im.mode == "RGB" else im.convert("RGB"))
    if im.mode.startswith(("I", "F")):  # one channel, wider than 8 bits
        v = np.asarray(im, dtype=np.float64)
        v = np.nan_to_num(v, nan=0.0, posinf=0.0, neginf=0.0)
        top = float(v.max(initial=0.0))
        # whatever range the values fill: [0, 1] (floating point), 8 bits (Pillow's own converts),
        # 16 bits (PNG, TIFF), or beyond
        full = 1.0 if im.mode == "F" and top <= 1.0 else 255.0 if top <= 255 else 65535.0 if top <= 65535 else top
        g = np.clip(np.rint(v * (255.0 / full)), 0, 255).astype(np.uint8)
        return np.repeat(g[..., None], 3, axis=2)
    rgba = im.convert("RGBA")  # alpha (RGBA, LA, PA, a palette's transparent colour) or another mode
    white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
    return np.asarray(Image.alpha_composite(white, rgba).convert("RGB"))


def load_photo(path: str, max_side: int | None = None) -> tuple[np.ndarray, tuple[int, int]]:
    """The picture as an RGB array whose long side is at most ``max_side`` (JPEGs are decoded at
    reduced size directly, which saves time and memory on 12 MP photos), and the full size
    (width, height) as a person sees it. Boxes found on the array scale back by
    ``width / array.shape[1]``."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    if not os.path.exists(path):
        raise ImageError(f"{path}: no such file", "missing")
    if os.path.isdir(path):
        raise ImageError(f"{path}: is a folder, not a picture", "folder")
    if os.path.getsize(path) == 0:
        raise ImageError(f"{path}: empty file", "empty")
    _register_heif()
    Image.MAX_IMAGE_PIXELS = MAX_PIXELS
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(path) as im:
                w, h = im.size
                if w * h > MAX_PIXELS:
                    raise ImageError(f"{path}: {w}x{h} is over the 200 MP limit", "too-large")
                if w * h < MIN_PIXELS:
                    raise ImageError(f"{path}: {w}x{h} is too small to hold a tile", "too-small")
                orientation = im.getexif().get(0x0112, 1)
                turned = orientation in (5, 6, 7, 8)
                if max_side and max(w, h) > max_side and im.format == "JPEG":
                    s = max_side / max(w, h)
                    im.draft("RGB", (math.ceil(w * s), math.ceil(h * s)))
                elif max_side and max(w, h) >= 2 * max_side and im.mode in _REDUCIBLE:
                    # other formats decode whole; averaging blocks of pixels at once keeps no full-size
                    # copy beyond the decoded picture (a 144 MP PNG: 0.6 GB at most, not 1.5)
                    im = im.reduce(max(w, h) // max_side)
                if orientation != 1:  # (as it is, exif_transpose would only copy the picture)
                    im = ImageOps.exif_transpose(im)
                arr = _rgb(im)
    except ImageError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise ImageError(f"{path}: over the 200 MP limit", "too-large") from None
    except UnidentifiedImageError:
        ext = os.path.splitext(path)[1].lower()
        hint = " (HEIC needs pillow-heif)" if ext in (".heic", ".heif") else ""
        raise ImageError(f"{path}: not a picture mjcam can read{hint}", "not-an-image") from None
    except (OSError, SyntaxError, ValueError) as e:
        raise ImageError(f"{path}: corrupt or truncated picture ({e})") from None
    except MemoryError:
        raise ImageError(f"{path}: too large to load", "too-large") from None
    full = (h, w) if turned else (w, h)
    if max_side and max(arr.shape[:2]) > max_side:
        from .preprocess import shrink

        arr = shrink(arr, max_side)
    else:
        arr = arr.copy()
    return arr, full
