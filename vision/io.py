"""Loading photos: JPEG, PNG, WebP, HEIC (pillow-heif); EXIF orientation applied; size limits.

Every failure is an :class:`ImageError` with one line that says what was wrong.
"""

from __future__ import annotations

import math
import os
import stat
import warnings

import numpy as np

MAX_PIXELS = 200_000_000
MIN_PIXELS = 16 * 16
MAX_BYTES = 256 * 1024 * 1024  # a file larger than this is not opened (a phone's photo is under 30 MB)


class ImageError(ValueError):
    """A file that is not a usable picture. ``kind`` says which way: missing, folder, not-a-file
    (a pipe, a device, a socket), empty, too-large, too-small, not-an-image, corrupt, unreadable."""

    def __init__(self, message: str, kind: str = "corrupt"):
        super().__init__(message)
        self.kind = kind


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


# Every picture goes through one path (:func:`load_photo`): decoded as it is stored (JPEGs at
# reduced size when a smaller copy is asked for), then turned into RGB and scaled down one tile at a
# time, so that besides the decoded picture (at most 4 bytes a pixel: 0.8 GB at the 200 MP limit)
# only a tile and the result are ever in memory, whatever the pixel format. A colour JPEG (nearly
# every phone photo) is decoded by OpenCV straight into the array instead (:func:`_opencv_jpeg`):
# the file's bytes (at most a byte a pixel) and the array (3 bytes a pixel).
TILE = 1024  # the side of the tiles a picture is converted in (a multiple of the reduction factor)
WHOLE_PIXELS = 5_000_000  # an RGB picture up to this size at full scale is copied out whole (see _converted)
# what the decoders may hold at once for one picture; a picture that would need more is refused
# before it is decoded (the decoded picture itself, and whatever more its format's decoder keeps)
DECODE_BUDGET = 900 * 1024 * 1024
# the formats read; others (EPS through Ghostscript, PSD's layers, ...) are not looked at
# (JPEG includes the MPO pictures of some cameras)
FORMATS = ("JPEG", "PNG", "WEBP", "HEIF", "AVIF", "TIFF", "BMP", "GIF")

# EXIF orientation -> the picture as a person sees it (the same turns as PIL.ImageOps.exif_transpose)
_TURNS = {2: lambda a: a[:, ::-1], 3: lambda a: a[::-1, ::-1], 4: lambda a: a[::-1],
          5: lambda a: a.transpose(1, 0, 2), 6: lambda a: np.rot90(a, -1),
          7: lambda a: np.rot90(a, -1)[::-1], 8: lambda a: np.rot90(a, 1)}


def _wide(mode: str) -> bool:
    """Pixels of more than 8 bits in one channel (16-bit and 32-bit integer, floating point)."""
    return mode.startswith(("I", "F"))


def _full_scale(mode: str, top: float) -> float:
    """What a wide picture's white is, by the range its values fill: [0, 1] (floating point),
    8 bits (Pillow's own converts), 16 bits (PNG, TIFF), or beyond."""
    return 1.0 if mode == "F" and top <= 1.0 else 255.0 if top <= 255 else 65535.0 if top <= 65535 else top


def _values(im) -> np.ndarray:
    """A wide picture's values as float32, not-a-number and infinities as 0."""
    return np.nan_to_num(np.array(im, dtype=np.float32), copy=False, nan=0.0, posinf=0.0, neginf=0.0)


def _rgb(im, full: float | None = None):
    """An open picture (or a tile of one) of any mode as an RGB picture: pictures with more than
    8 bits a channel scaled to 8 bits by ``full`` (see :func:`_full_scale`; the picture's own range
    when not given) rather than clipped, transparent pixels laid on white."""
    from PIL import Image

    if im.mode == "RGB":
        return im
    if im.mode in ("L", "CMYK", "YCbCr", "1", "P") and "transparency" not in im.info:
        return im.convert("RGB")
    if _wide(im.mode):
        v = _values(im)
        if full is None:
            full = _full_scale(im.mode, float(v.max(initial=0.0)))
        v *= np.float32(255.0 / full)
        np.clip(np.rint(v, out=v), 0, 255, out=v)
        return Image.fromarray(v.astype(np.uint8), "L").convert("RGB")
    rgba = im.convert("RGBA")  # alpha (RGBA, LA, PA, a palette's transparent colour) or another mode
    white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
    return Image.alpha_composite(white, rgba).convert("RGB")


def _decode_bytes(im, size: tuple[int, int]) -> tuple[int, str]:
    """The bytes decoding the open picture ``im`` takes at its peak (``im`` as set to be decoded,
    after any draft; ``size`` its full size), and what to do about a picture that takes too many."""
    w, h = im.size
    per = 1 if im.mode in ("1", "L", "P") else 2 if im.mode.startswith("I;16") else 4  # Pillow's storage
    need, advice = w * h * per, "save it smaller"
    if im.format == "WEBP":  # the decoder's canvas, its previous frame and two copies (measured)
        need, advice = w * h * 16, "save it as a JPEG or PNG"
    elif im.format in ("HEIF", "AVIF"):  # the decoder's buffer, then a copy
        need, advice = w * h * 8, "save it as a JPEG or PNG"
    elif im.format in ("JPEG", "MPO") and im.info.get("progressive"):
        # every DCT coefficient of the full-size picture is kept until the last scan (2 bytes each)
        layers = getattr(im, "layer", None) or [(0, 1, 1, 0)] * len(im.getbands())
        hmax, vmax = max(c[1] for c in layers), max(c[2] for c in layers)
        need += sum(-(-math.ceil(size[0] * c[1] / hmax) // 8) * -(-math.ceil(size[1] * c[2] / vmax) // 8) * 128
                    for c in layers)
        advice = "save it as a baseline (not progressive) JPEG"
    return need, advice


def _tiles(w: int, h: int, f: int):
    """Boxes covering a ``w`` x ``h`` picture, each side a multiple of ``f`` (but at the edges)."""
    t = max(f, TILE // f * f)
    for y in range(0, h, t):
        for x in range(0, w, t):
            yield x, y, min(w, x + t), min(h, y + t)


def _converted(im, f: int) -> np.ndarray:
    """The decoded picture ``im`` as an RGB uint8 array reduced ``f`` times (blocks of f x f pixels
    averaged), converted one tile at a time (an RGB picture of up to ``WHOLE_PIXELS`` at full
    scale is copied out at once)."""
    w, h = im.size
    if im.mode == "RGB" and f == 1 and w * h <= WHOLE_PIXELS:
        # nothing to convert: copied out of Pillow's storage at once (a phone's JPEG decoded at the
        # working size, typically), about 7 times quicker than tile by tile; the copy goes through
        # bytes of the whole picture twice on the way, hence the cap
        return np.array(im)
    full = None
    if _wide(im.mode):  # one scale for the whole picture, from its largest value
        top = 0.0
        for box in _tiles(w, h, f):
            top = max(top, float(_values(im.crop(box)).max(initial=0.0)))
        full = _full_scale(im.mode, top)
    out = np.empty((-(-h // f), -(-w // f), 3), np.uint8)
    for x0, y0, x1, y1 in _tiles(w, h, f):
        tile = _rgb(im.crop((x0, y0, x1, y1)), full)
        if f > 1:
            tile = tile.reduce(f)
        out[y0 // f:y0 // f + tile.size[1], x0 // f:x0 // f + tile.size[0]] = np.asarray(tile)
    return out


def _jpeg_complete(data: bytes) -> bool:
    """Whether the JPEG ``data`` holds its end marker after the start of its (first) picture's
    scan: its segments are walked from the start, past any embedded thumbnail, to the scan, and the
    end marker looked for beyond it (the scan's data never holds one). A file cut short has none;
    bytes some phones add after it do not matter."""
    pos = 2
    while pos + 4 <= len(data) and data[pos] == 0xFF:
        marker = data[pos + 1]
        if marker == 0xFF:  # a fill byte before a marker
            pos += 1
        elif marker == 0xDA:
            return data.rfind(b"\xff\xd9", pos) >= 0  # from the end: where a whole file has it
        elif 0xD0 <= marker <= 0xD8 or marker == 0x01:  # markers with no length
            pos += 2
        else:
            pos += 2 + int.from_bytes(data[pos + 2:pos + 4], "big")
    return False


def _opencv_jpeg(path: str, im, size: tuple[int, int]) -> np.ndarray | None:
    """The colour JPEG ``im`` (opened, its draft set; ``size`` its full size) decoded by OpenCV
    straight into an RGB array, at the draft's reduction: the same libjpeg-turbo decoding, the same
    pixels as Pillow gives, a little quicker (nothing is copied out of Pillow's storage, and the
    array takes 3 bytes a pixel, not 4). None where it does not apply, and Pillow decodes it: another
    format or colour model, a reduction OpenCV does not make, a file larger than a byte a pixel,
    one with no end marker after its picture (cut short: Pillow says so), one OpenCV cannot decode."""
    import cv2

    if im.format not in ("JPEG", "MPO") or im.mode != "RGB":
        return None
    w, h = size
    k = next((k for k in (1, 2, 4, 8) if (-(-w // k), -(-h // k)) == im.size), None)
    flag = {1: cv2.IMREAD_COLOR, 2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4,
            8: cv2.IMREAD_REDUCED_COLOR_8}.get(k)
    if flag is None or os.path.getsize(path) > w * h:
        return None
    with open(path, "rb") as fh:
        data = fh.read()
    if not _jpeg_complete(data):
        return None
    try:
        bgr = cv2.imdecode(np.frombuffer(data, np.uint8), flag | cv2.IMREAD_IGNORE_ORIENTATION)  # EXIF: below
    except cv2.error:  # (out of memory, say): Pillow tries, and says what is wrong
        return None
    del data
    if bgr is None or bgr.shape != (im.size[1], im.size[0], 3):
        return None
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB, dst=bgr)  # in place: no second copy of a large picture


def load_photo(path: str, max_side: int | None = None, reduce: int = 1) -> tuple[np.ndarray, tuple[int, int]]:
    """The picture as an RGB array whose long side is at most ``max_side`` (JPEGs are decoded at
    reduced size directly, which saves time and memory on 12 MP photos; other pictures are turned
    into RGB and scaled down a tile at a time, see :func:`_converted`), and the full size
    (width, height) as a person sees it. Boxes found on the array scale back by
    ``width / array.shape[1]``. ``reduce`` (2, 4 or 8; with no ``max_side``): the picture at that
    fraction of its size exactly as the JPEG decoder gives it (other pictures: blocks averaged)."""
    from PIL import Image, UnidentifiedImageError

    if not os.path.exists(path):
        raise ImageError(f"{path}: no such file", "missing")
    if os.path.isdir(path):
        raise ImageError(f"{path}: is a folder, not a picture", "folder")
    info = os.stat(path)  # looked at without opening it: a pipe would wait for ever
    if not stat.S_ISREG(info.st_mode):
        raise ImageError(f"{path}: not a file but a pipe, a device or a socket", "not-a-file")
    if info.st_size == 0:
        raise ImageError(f"{path}: empty file", "empty")
    if info.st_size > MAX_BYTES:
        raise ImageError(f"{path}: {info.st_size / 2 ** 20:.0f} MB, over the "
                         f"{MAX_BYTES // 2 ** 20} MB a photo may take", "too-large")
    _register_heif()
    Image.MAX_IMAGE_PIXELS = MAX_PIXELS
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            Image.init()
            with Image.open(path, formats=[f for f in FORMATS if f in Image.OPEN]) as im:
                w, h = im.size
                if w * h > MAX_PIXELS:
                    raise ImageError(f"{path}: {w}x{h} is over the 200 MP limit", "too-large")
                if w * h < MIN_PIXELS:
                    raise ImageError(f"{path}: {w}x{h} is too small to hold a tile", "too-small")
                orientation = im.getexif().get(0x0112, 1)
                turned = orientation in (5, 6, 7, 8)
                if max_side and max(w, h) > max_side and im.format in ("JPEG", "MPO"):
                    s = max_side / max(w, h)  # decoded at 1/2, 1/4 or 1/8 of its size directly
                    im.draft("RGB", (math.ceil(w * s), math.ceil(h * s)))
                elif reduce > 1 and im.format in ("JPEG", "MPO"):
                    im.draft("RGB", (max(1, w // reduce), max(1, h // reduce)))
                need, advice = _decode_bytes(im, (w, h))
                if need > DECODE_BUDGET:
                    raise ImageError(f"{path}: a {w}x{h} {im.format} takes {need / 2 ** 30:.1f} GB to decode, "
                                     f"over the {DECODE_BUDGET / 2 ** 30:.1f} GB allowed; {advice}", "too-large")
                f = max(1, max(im.size) // max_side) if max_side else reduce if im.size == (w, h) else 1
                arr = _opencv_jpeg(path, im, (w, h)) if f == 1 else None
                if arr is None:
                    im.load()  # decoded as stored: at most 4 bytes a pixel
                    arr = _converted(im, f)
    except ImageError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise ImageError(f"{path}: over the 200 MP limit", "too-large") from None
    except UnidentifiedImageError:
        ext = os.path.splitext(path)[1].lower()
        hint = " (HEIC needs pillow-heif)" if ext in (".heic", ".heif") else ""
        raise ImageError(f"{path}: not a picture mjcam can read{hint}", "not-an-image") from None
    except PermissionError:
        raise ImageError(f"{path}: cannot be read (permission denied)", "unreadable") from None
    except (OSError, SyntaxError, ValueError) as e:
        raise ImageError(f"{path}: corrupt or truncated picture ({e})") from None
    except MemoryError:
        raise ImageError(f"{path}: too large to load", "too-large") from None
    full = (h, w) if turned else (w, h)
    if max_side and max(arr.shape[:2]) > max_side:
        from .preprocess import shrink

        arr = shrink(arr, max_side)
    if orientation in _TURNS:
        arr = np.ascontiguousarray(_TURNS[orientation](arr))
    return arr, full
