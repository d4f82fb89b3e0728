"""Whole tiles cut from xmahjongg's tile pictures (Debian ``xmahjongg``, GPL-2+), for checking how
the recogniser reads a tile set none of its training shows (``benchmarks.recognize_eval --photos
unseen-set``); no shipped model trained on them:

- ``real`` (``real.gif``, "Real Tiles © 1999 Mark Sanctuary"): a scan of a real Hong Kong set —
  ivory tiles, 萬 characters, flowers 梅蘭菊竹 and seasons 春夏秋冬 as painted plants with their
  name, a chained frame for the white dragon — the nearest thing to a phone photo of an unseen set
  that any registry offers;
- ``dorothys`` (``dorothys.gif``, Dorothy Robinson 2000): drawn tiles on an ivory face with the 3-D
  body beside it, English corner labels, seasons as weather pictures and flowers as named plants.

Each tile is cut whole from its sheet (the scan's light and the body's edge kept), so these are
pasted on a table as they are rather than drawn on a rendered face. Nothing is stored in the
repository; the pictures are read from the installed package each time.
"""

from __future__ import annotations

import os

import numpy as np

TILES_DIR = "/usr/share/games/xmahjongg/tiles"

_DOTS = [f"{n}p" for n in range(1, 10)]
_BAMBOO = [f"{n}s" for n in range(1, 10)]
_CHARS = [f"{n}m" for n in range(1, 10)]
# real.gif: 9 columns by 5 rows; the last column of its last two rows is the credit, one cell blank
_REAL = [_DOTS, _BAMBOO, _CHARS,
         ["S1", "S2", "S3", "S4", "N", "S", "E", "W", None],  # 春夏秋冬 北南東西
         ["F1", "F2", "F3", "F4", "Gd", "Wd", "Rd", None, None]]  # 梅蘭菊竹 發 (frame) 中
# dorothys.gif: 21 columns by 4 rows; the first two rows on an ivory face, the last two the same on blue
_DOROTHY = [_DOTS + ["N", "W", "S", "E", "Rd", "Gd"] + _CHARS[:6],
            # seasons as weather, the white dragon, then bamboo, orchid, plum, chrysanthemum
            _CHARS[6:] + _BAMBOO + ["S1", "S2", "S3", "S4", "Wd", "F4", "F2", "F1", "F3"]]
SHEETS = {"real": ("real.gif", _REAL, 9, 5), "dorothys": ("dorothys.gif", _DOROTHY, 21, 4)}


def cut(sheet: np.ndarray, layout: list, columns: int, rows: int) -> dict[str, np.ndarray]:
    """``{code: RGB tile}`` of a sheet laid out as ``layout`` (rows of codes, ``None`` for a cell
    with no tile) in a grid of ``columns`` by ``rows`` equal cells; a pixel of each cell's edge,
    the sheet's grid line, is left out."""
    h, w = sheet.shape[:2]
    cw, ch = w / columns, h / rows
    out = {}
    for j, row in enumerate(layout):
        for i, code in enumerate(row):
            if code is None:
                continue
            x0, x1 = int(round(i * cw)) + 1, int(round((i + 1) * cw)) - 1
            y0, y1 = int(round(j * ch)) + 1, int(round((j + 1) * ch)) - 1
            out[code] = np.ascontiguousarray(sheet[y0:y1, x0:x1])
    return out


def xmahjongg_tiles(tiles_dir: str = TILES_DIR) -> dict[str, dict[str, np.ndarray]]:
    """``{set: {code: RGB tile}}`` of the sets above that are installed (none: an empty dict)."""
    from PIL import Image

    out = {}
    for name, (file, layout, columns, rows) in SHEETS.items():
        path = os.path.join(tiles_dir, file)
        if os.path.exists(path):
            with Image.open(path) as im:
                out[name] = cut(np.asarray(im.convert("RGB")), layout, columns, rows)
    return out
