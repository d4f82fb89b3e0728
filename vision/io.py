"""Loading photos: JPEG, PNG, WebP, HEIC (pillow-heif); EXIF orientation applied; size limits.

Every failure is an :class:`ImageError` with one line that says what was wrong.
"""

from __future__ import annotations

import os
import warnings

import numpy as np

MAX_PIXELS = 200_000_000
MIN_PIXELS = 16 * 16
WORK_PIXELS = 2_000_000  # pictures are analysed on a copy of about this size


class ImageError(ValueError):
    """A file that is not a usable picture (missing, empty, corrupt, not an image, too large)."""


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
    from PIL import Image, ImageOps, UnidentifiedImageError

    if not os.path.exists(path):
        raise ImageError(f"{path}: no such file")
    if os.path.isdir(path):
        raise ImageError(f"{path}: is a folder, not a picture")
    if os.path.getsize(path) == 0:
        raise ImageError(f"{path}: empty file")
    _register_heif()
    Image.MAX_IMAGE_PIXELS = MAX_PIXELS
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(path) as im:
                w, h = im.size
                if w * h > MAX_PIXELS:
                    raise ImageError(f"{path}: {w}x{h} is over the 200 MP limit")
                if w * h < MIN_PIXELS:
                    raise ImageError(f"{path}: {w}x{h} is too small to hold a tile")
                im = ImageOps.exif_transpose(im)
                im = im.convert("RGB")
                return np.asarray(im).copy()
    except ImageError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise ImageError(f"{path}: over the 200 MP limit") from None
    except UnidentifiedImageError:
        ext = os.path.splitext(path)[1].lower()
        hint = " (HEIC needs pillow-heif)" if ext in (".heic", ".heif") else ""
        raise ImageError(f"{path}: not a picture mjcam can read{hint}") from None
    except (OSError, SyntaxError, ValueError) as e:
        raise ImageError(f"{path}: corrupt or truncated picture ({e})") from None
    except MemoryError:
        raise ImageError(f"{path}: too large to load") from None
