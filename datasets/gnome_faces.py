"""Tile faces cut from GNOME Mahjongg's tile themes (Debian ``gnome-mahjongg``, GPL-2+), for the
synthetic tiles of :mod:`datasets.synthetic` — two more drawings beside the fonts and KDE's sets:

- ``smooth`` (``smooth.png``): 3-D rendered Chinese tiles, flowers 梅蘭菊竹 and seasons 春夏秋冬
  as gold and black characters in a frame, a framed white dragon;
- ``postmodern`` (``postmodern.svg``, rendered by the system Python's librsvg through
  ``datasets/kde_faces.py --whole``): bold brush-like glyphs, seasons as numbered blue weather
  pictures and flowers as numbered gold plants; its white dragon is the GNOME logo, so a bare face
  stands in for it.

A theme is one sprite sheet of 43 cells a row; the first row holds the plain tiles, the second
the same tiles highlighted. Each cell shows the tile's body too, so the face is cut with a fixed
box, and the art is keyed off the face's own ground colour into RGBA (art on a transparent
ground), the form :func:`datasets.synthetic.art_face` draws on an ivory face. Nothing is stored in
the repository: the rendered SVG sheet is cached outside it, and faces are cut anew each time.
"""

import os
import subprocess

import numpy as np

THEMES_DIR = "/usr/share/gnome-mahjongg/themes"
THEMES = ("smooth", "postmodern")

_HEAD = ([f"{n}p" for n in range(1, 10)] + ["N", "W", "S", "E", "Rd", "Gd"]
         + [f"{n}m" for n in range(1, 10)] + [f"{n}s" for n in range(1, 10)])
# the 43 cells of each theme's first row (None: a blank spare tile); the ten bonus and white
# dragon cells are drawn differently by the two themes
ORDER = {
    "smooth": _HEAD + ["F2", "F3", "F1", "F4", "Wd", "S1", "S2", "S3", "S4", None],  # 蘭菊梅竹 回 春夏秋冬
    "postmodern": _HEAD + ["S1", "S2", "S3", "S4", None, "F1", "F2", "F3", "F4", None],  # weather 一-四, logo, plants 一-四
}
# the face inside a cell, as fractions of the cell (x0, y0, x1, y1): the body's side is left and below
FACE = {"smooth": (17 / 96, 5 / 132, 92 / 96, 114 / 132), "postmodern": (13 / 64, 2 / 88, 63 / 64, 75 / 88)}
SOURCE = {"smooth": "smooth.png", "postmodern": "postmodern.svg"}


def sheet(theme: str, themes_dir: str = THEMES_DIR, cache: str | None = None) -> np.ndarray | None:
    """A theme's sprite sheet as an RGBA array (an SVG theme rendered at 3× and cached as PNG),
    or None when it is not installed or cannot be rendered."""
    from PIL import Image

    path = os.path.join(themes_dir, SOURCE[theme])
    if not os.path.isfile(path):
        return None
    if path.endswith(".svg"):
        if cache is None:
            raise ValueError("an SVG theme needs a cache folder to render into")
        png = os.path.join(cache, theme + "-sheet.png")
        if not os.path.isfile(png):
            os.makedirs(cache, exist_ok=True)
            script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kde_faces.py")
            try:
                subprocess.run(["/usr/bin/python3", script, png, "--whole", path, "--scale", "3"],
                               check=True, capture_output=True, timeout=120)
            except (OSError, subprocess.SubprocessError):
                return None
        path = png
    return np.array(Image.open(path).convert("RGBA"))


def key_face(face: np.ndarray) -> np.ndarray:
    """RGBA art on a transparent ground from an RGB(A) face: the ground is the median colour of a
    thin ring just inside the face's edge; a pixel is opaque as far as it differs from it."""
    rgb = face[..., :3].astype(np.float32)
    h, w = rgb.shape[:2]
    m = max(2, int(round(min(h, w) * 0.04)))
    ring = np.concatenate([rgb[m:2 * m].reshape(-1, 3), rgb[h - 2 * m:h - m].reshape(-1, 3),
                           rgb[:, m:2 * m].reshape(-1, 3), rgb[:, w - 2 * m:w - m].reshape(-1, 3)])
    ground = np.median(ring, axis=0)
    diff = np.abs(rgb - ground).max(axis=-1)
    alpha = np.clip((diff - 18.0) / 50.0, 0.0, 1.0)
    return np.dstack([face[..., :3], (alpha * 255).astype(np.uint8)])


def cut_faces(theme: str, sheet_rgba: np.ndarray) -> dict[str, np.ndarray]:
    """The 42 tile faces (RGBA, keyed) of a theme's sheet, by tile code; a theme without a white
    dragon of its own gets a bare one (a fully transparent face: ivory, nothing drawn)."""
    order = ORDER[theme]
    h, w = sheet_rgba.shape[:2]
    cw, ch = w / len(order), h / 2  # two rows: plain, highlighted
    x0, y0, x1, y1 = FACE[theme]
    out = {}
    for i, code in enumerate(order):
        if code is None:
            continue
        cx = i * cw
        face = sheet_rgba[int(round(y0 * ch)):int(round(y1 * ch)),
                          int(round(cx + x0 * cw)):int(round(cx + x1 * cw))]
        out[code] = key_face(face)
    if "Wd" not in out:
        out["Wd"] = np.zeros_like(out["1p"])
    return out


def gnome_faces(cache: str, themes_dir: str = THEMES_DIR) -> dict[str, dict[str, np.ndarray]]:
    """Faces of each installed GNOME theme: ``{theme: {code: RGBA}}`` (empty when none is)."""
    out = {}
    for theme in THEMES:
        s = sheet(theme, themes_dir, cache)
        if s is not None:
            out[theme] = cut_faces(theme, s)
    return out
