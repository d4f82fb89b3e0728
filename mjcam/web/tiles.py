"""Tiles as pictures for the table app: the bundled tile pictures, each read tile's crop of the
photo, and the verdict on a reading.

The crops of a photo are kept in memory for the last ``KEEP`` photos read (they are needed while
a person checks the reading, not after the hand is recorded; the ledger keeps the annotated photo).

>>> picture("9p").endswith("9p.svg"), picture("../app.js")
(True, None)
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict

TILE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static", "tiles")
KEEP = 64
CROP_HEIGHT = 120
PAD = 0.06  # a crop takes this much of the box's size around it


def picture(code: str) -> str | None:
    """The path of a tile's bundled picture, or None for a code that is no tile."""
    from mjcam.scoring.tiles import CODES

    if code not in CODES and code != "back":
        return None
    return os.path.join(TILE_DIR, f"{code}.svg")


async def tile_picture(request):
    """The endpoint ``/static/tiles/{code}.svg`` of the table app and the review page: the tile's
    bundled picture, or 404 for a code that is no tile."""
    from starlette.responses import FileResponse

    from mjcam.web.guard import error_response

    path = picture(request.path_params["code"])
    if path is None:
        return error_response("not found", 404)
    return FileResponse(path, media_type="image/svg+xml", headers={"Cache-Control": "max-age=86400"})


def crops(image, rec, height: int = CROP_HEIGHT) -> list[bytes]:
    """Each read tile cut out of ``image`` (RGB, the photo or a smaller copy of it) as JPEG bytes,
    turned so the tile stands as its player sees it (``rec.tops``)."""
    import cv2

    h, w = image.shape[:2]
    s = w / rec.width if rec.width else 1.0
    turn = {"down": cv2.ROTATE_180, "left": cv2.ROTATE_90_CLOCKWISE, "right": cv2.ROTATE_90_COUNTERCLOCKWISE}.get(
        rec.tops or "")
    out = []
    for t in rec.tiles:
        x1, y1, x2, y2 = (v * s for v in t.box)
        px, py = (x2 - x1) * PAD, (y2 - y1) * PAD
        a, b = max(0, int(x1 - px)), max(0, int(y1 - py))
        c, d = min(w, int(x2 + px + 1)), min(h, int(y2 + py + 1))
        tile = image[b:d, a:c] if c > a and d > b else image[:1, :1]
        if turn is not None:
            tile = cv2.rotate(tile, turn)
        k = height / max(1, tile.shape[0])
        if k < 1:
            tile = cv2.resize(tile, (max(1, round(tile.shape[1] * k)), height), interpolation=cv2.INTER_AREA)
        ok, buf = cv2.imencode(".jpg", cv2.cvtColor(tile, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 85])
        out.append(buf.tobytes())
    return out


class CropCache:
    """The crops of the last ``keep`` photos read, by photo id."""

    def __init__(self, keep: int = KEEP):
        self.keep = keep
        self._items: OrderedDict[int, list[bytes]] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, photo: int, items: list[bytes]) -> None:
        with self._lock:
            self._items[photo] = items
            self._items.move_to_end(photo)
            while len(self._items) > self.keep:
                self._items.popitem(last=False)

    def get(self, photo: int, n: int) -> bytes | None:
        with self._lock:
            items = self._items.get(photo)
            return items[n] if items is not None and 0 <= n < len(items) else None


def verdict(rec, preset: str, house: dict | None = None, flowers_in_play: bool = True) -> dict:
    """Whether the reading may be trusted as it is (:func:`mjcam.service.judge`) under the
    game's rules (bonus tiles in play or not), taken as a self-drawn win by East:
    ``{"auto": ..., "doubts": [...]}``."""
    from mjcam.service import WinFlags, judge

    try:
        return judge(rec, (preset,), WinFlags(flowers_in_play=flowers_in_play),
                     house={k: v for k, v in (house or {}).items() if v is not None}).to_json()
    except Exception:  # noqa: BLE001  (a verdict is advice: never let it stop a photo being read)
        return {"auto": False, "doubts": [], "readings": 0}
