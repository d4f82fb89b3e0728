"""Synthetic tile images from tile art the build installs (Debian fonts-noto-core / fonts-symbola:
the Mahjong Tiles block U+1F000-U+1F029; for single tiles also the colour art of KDE's
libkmahjongg sets, see :func:`art_faces`; for flowers and seasons, when asked, their name
character and numeral in a Chinese font, see :mod:`datasets.bonus_glyphs`), and face-down tile backs.

Single tiles come out as context crops for training; :func:`render_hand` lays out a whole
hand as photographed (a row of upright tiles, melds set apart, claimed tiles sideways, kongs
with face-down ends, bonus tiles aside) with perspective, light, blur, noise and JPEG, and
returns the picture with each tile's box, code, orientation and group as ground truth.
Nothing is ever mirrored. No artwork is stored in the repository.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

import cv2
import numpy as np

from mjcam.scoring.tiles import FLOWERS, SEASONS
from mjcam.vision.labels import BACK, CLASS_INDEX

from .bonus_glyphs import brush_fonts, cjk_fonts, face_colour, glyph_drawable, glyph_face
from .crops import CONTEXT, CropSet, context_crop, pack

FONT_PATHS = (
    "/usr/share/fonts/truetype/noto/NotoSansSymbols2-Regular.ttf",
    "/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf",
    "/usr/share/fonts/truetype/ancient-scripts/Symbola.ttf",
)

# Unicode Mahjong Tiles block; note plum, orchid, *bamboo*, *chrysanthemum* (F1 F2 F4 F3)
_HONOURS = {"E": 0x1F000, "S": 0x1F001, "W": 0x1F002, "N": 0x1F003, "Rd": 0x1F004, "Gd": 0x1F005, "Wd": 0x1F006}
_BONUS = {"F1": 0x1F022, "F2": 0x1F023, "F4": 0x1F024, "F3": 0x1F025,
          "S1": 0x1F026, "S2": 0x1F027, "S3": 0x1F028, "S4": 0x1F029}


def codepoint(code: str) -> int:
    """The Unicode character of a tile code.

    >>> hex(codepoint("1m")), hex(codepoint("9p")), hex(codepoint("F3"))
    ('0x1f007', '0x1f021', '0x1f025')
    """
    if code in _HONOURS:
        return _HONOURS[code]
    if code in _BONUS:
        return _BONUS[code]
    n, suit = int(code[0]), code[1]
    return {"m": 0x1F007, "s": 0x1F010, "p": 0x1F019}[suit] + n - 1


def available_fonts() -> list[str]:
    return [p for p in FONT_PATHS if os.path.exists(p)]


# Colour tile art: KDE's libkmahjongg sets (Debian kdegames-mahjongg-data-kf5, GPL-2+), rendered
# by datasets/kde_faces.py under the system Python into a cache outside the repository.
# "default" is Chinese-style art with HK-like flowers (numbered) and seasons (numbered, 春夏秋冬);
# "traditional" is an American drawing with English labels. Both add what the fonts lack: colour
# art of the flowers and seasons, which are rare in the photos.
# GNOME Mahjongg's two tile themes (datasets/gnome_faces.py), which print no corner indices, are
# drawn from too when asked for (``extra_art``; tried, not in the shipped models: see the card).
ART_SETS = ("default", "traditional")
INDEXED_SETS = ART_SETS  # sets that print corner indices on suit and honour tiles
ART_CACHE = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "mjcam", "kde-faces-1")
_art: dict[str, dict[str, np.ndarray]] | None = None


def kde_sets(cache: str, names, missing: str = "") -> dict[str, dict[str, np.ndarray]]:
    """``{set: {code: RGBA face}}`` of the KDE sets ``names`` that have all 42 faces, rendered into
    ``cache`` by ``datasets/kde_faces.py`` under the system Python when first asked for (where that
    fails, a line on stderr says why, then ``missing``: what is done without them)."""
    import subprocess
    import sys

    from PIL import Image

    if not all(os.path.isdir(os.path.join(cache, n)) for n in names):
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kde_faces.py")
        try:
            subprocess.run(["/usr/bin/python3", script, cache, "--sets", ",".join(names)],
                           check=True, capture_output=True, timeout=300)
        except (OSError, subprocess.SubprocessError) as e:
            lines = (getattr(e, "stderr", None) or b"").decode(errors="replace").strip().splitlines()
            print(f"no KDE tile art ({lines[-1] if lines else e})" + (f": {missing}" if missing else ""),
                  file=sys.stderr)
    out: dict[str, dict[str, np.ndarray]] = {}
    for name in names:
        folder = os.path.join(cache, name)
        if os.path.isdir(folder):
            faces = {f[:-4]: np.array(Image.open(os.path.join(folder, f)).convert("RGBA"))
                     for f in os.listdir(folder) if f.endswith(".png")}
            if len(faces) == len(CLASS_INDEX) - 2:  # all 42 tiles
                out[name] = faces
    return out


def art_faces(cache: str = ART_CACHE, extra: bool = False, riichi: bool = False) -> dict[str, dict[str, np.ndarray]]:
    """Tile faces (RGBA arrays) of each installed KDE set (and with ``extra`` each GNOME theme, with
    ``riichi`` FluffyStuff's riichi tiles, :mod:`datasets.riichi_faces`: 34 tiles, no flowers or
    seasons), by tile code; rendered once into ``cache``. Empty when the sets or the system
    Python's librsvg bindings are not installed (``apt-get install kdegames-mahjongg-data-kf5
    gnome-mahjongg python3-gi python3-gi-cairo gir1.2-rsvg-2.0``)."""
    global _art
    if riichi:
        from datasets.riichi_faces import riichi_faces

        faces = riichi_faces(os.path.join(cache, "riichi"))
        return {**art_faces(cache, extra), **({"riichi": faces} if faces else {})}
    if extra:
        from datasets.gnome_faces import gnome_faces

        return {**art_faces(cache), **gnome_faces(os.path.join(cache, "gnome"))}
    if _art is not None and cache == ART_CACHE:
        return _art
    out = kde_sets(cache, ART_SETS, "synthetic tiles are drawn from fonts only")
    if cache == ART_CACHE:
        _art = out
    return out


_INK = {"m": [(170, 20, 20), (20, 20, 20)], "p": [(30, 60, 160), (20, 110, 60), (170, 30, 30)],
        "s": [(20, 110, 50), (30, 60, 140)], "E": [(20, 20, 20), (30, 50, 140)],
        "Rd": [(190, 20, 20)], "Gd": [(20, 120, 50)], "Wd": [(40, 60, 150)],
        "F": [(170, 30, 60), (30, 100, 50)], "S": [(30, 60, 150), (170, 40, 40)]}


def _ink(code: str, rng: np.random.Generator):
    if code in ("Rd", "Gd", "Wd"):
        key = code
    elif code[0].isdigit():
        key = code[1]  # suit
    elif len(code) == 2:
        key = code[0]  # F or S bonus tile
    else:
        key = "E"  # winds
    return _INK[key][int(rng.integers(len(_INK[key])))]


def tile_face(code: str, rng: np.random.Generator, font: str, height: int = 160) -> np.ndarray:
    """An upright tile face (RGB), ivory with the glyph inked in a tile-like colour."""
    from PIL import Image, ImageDraw, ImageFont

    w = int(height * 0.75)
    face = face_colour(rng)
    if code == "Wd" and rng.random() < BLANK_WHITE_DRAGON:
        return _blank_face(face, rng, w, height)
    img = Image.new("L", (w * 2, height * 2), 0)
    f = ImageFont.truetype(font, int(height * rng.uniform(1.15, 1.35)))
    d = ImageDraw.Draw(img)
    d.text((w, height), chr(codepoint(code)), fill=255, font=f, anchor="mm")
    mask = np.array(img)
    ys, xs = np.nonzero(mask > 40)
    if len(ys):  # the font draws a tile outline around the art: keep what is inside it
        mask = mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    inner = cv2.resize(mask, (w, height), interpolation=cv2.INTER_AREA)
    b = int(height * 0.04)
    inner[:b], inner[-b:], inner[:, :b], inner[:, -b:] = 0, 0, 0, 0
    alpha = (inner.astype(np.float32) / 255.0)[..., None]
    ink = np.array(_ink(code, rng), np.float32)
    out = face.astype(np.float32) * (1 - alpha) + ink * alpha
    return out.astype(np.uint8)


def art_face(code: str, rng: np.random.Generator, art: dict[str, np.ndarray], height: int = 160,
             indexed: bool = True, ground=None) -> np.ndarray:
    """An upright tile face (RGB) from a set's art on an ivory face (``ground``: on a face of that
    colour instead, e.g. a jade set's green). For a set that prints corner indices (numbers,
    letters: ``indexed``), half the time they are wiped from suit and honour tiles, which real Hong
    Kong sets mostly lack, so that they cannot become a shortcut; flowers and seasons keep theirs
    (HK sets number them too)."""
    w = int(height * 0.75)
    face = (face_colour(rng) if ground is None else np.asarray(ground)).astype(np.float32)
    rgba = cv2.resize(art[code], (w, height), interpolation=cv2.INTER_AREA).astype(np.float32)
    alpha = rgba[..., 3:] / 255.0
    if indexed and code not in FLOWERS + SEASONS:
        if rng.random() < 0.5:
            alpha[: int(height * 0.2), : int(w * 0.24)] = 0
            alpha[: int(height * 0.2), w - int(w * 0.24):] = 0
    out = face[None, None, :] * (1 - alpha) + rgba[..., :3] * alpha
    return np.clip(out, 0, 255).astype(np.uint8)


# Many Hong Kong sets have a white dragon with a bare face, no frame at all (most of the valid
# split's white dragons are such tiles); the font only draws the framed kind
BLANK_WHITE_DRAGON = 0.5


def _blank_face(face: np.ndarray, rng: np.random.Generator, w: int, height: int) -> np.ndarray:
    """A bare tile face: the face colour with a faint sheen and grain, nothing inked."""
    yy, xx = np.mgrid[0:height, 0:w].astype(np.float32)
    sheen = 1 + 0.05 * ((xx / w - 0.5) * rng.normal() + (yy / height - 0.5) * rng.normal())
    out = face.astype(np.float32)[None, None, :] * sheen[..., None] + rng.normal(0, 2, (height, w, 3))
    return np.clip(out, 0, 255).astype(np.uint8)


# no white or ivory backs: a blank white face-down tile cannot be told from a white dragon with no
# frame, and a first model read framed white dragons as backs; a white back is read as Wd instead
_BACK_COLOURS = [(30, 110, 60), (25, 70, 150), (220, 180, 40), (200, 90, 30), (60, 140, 170), (150, 40, 40)]
VERSION = 4  # bump when the rendering changes, so cached renders are made anew
_TABLES = [(40, 120, 60), (35, 90, 50), (150, 110, 70), (190, 160, 120), (90, 90, 95), (30, 30, 35),
           (170, 60, 60), (210, 205, 195)]


def tile_back(rng: np.random.Generator, height: int = 160) -> np.ndarray:
    """A face-down tile: plain coloured back with light shading."""
    w = int(height * 0.75)
    col = np.array(_BACK_COLOURS[int(rng.integers(len(_BACK_COLOURS)))], np.float32)
    col = np.clip(col + rng.normal(0, 12, 3), 0, 255)
    yy, xx = np.mgrid[0:height, 0:w].astype(np.float32)
    shade = 1 + 0.12 * ((xx / w - 0.5) * rng.normal() + (yy / height - 0.5) * rng.normal())
    out = col[None, None, :] * shade[..., None]
    out += rng.normal(0, 3, out.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def table_background(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    col = np.array(_TABLES[int(rng.integers(len(_TABLES)))], np.float32) + rng.normal(0, 10, 3)
    noise = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), rng.uniform(0.6, 3))
    out = col[None, None, :] * (1 + 0.08 * noise[..., None])
    return np.clip(out, 0, 255).astype(np.uint8)


def _body(face: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Put a face on a tile body: rounded rim and a visible side in the back colour."""
    h, w = face.shape[:2]
    side = int(h * rng.uniform(0.05, 0.2))
    back = np.array(_BACK_COLOURS[int(rng.integers(len(_BACK_COLOURS)))], np.uint8)
    out = np.zeros((h + side, w, 3), np.uint8)
    out[:h] = face
    out[h:] = np.clip(face[-1:].astype(np.int32) * 0.8, 0, 255).astype(np.uint8)
    out[h + side // 2:] = back
    return out


def paste(canvas: np.ndarray, tile: np.ndarray, x: int, y: int) -> tuple[int, int, int, int]:
    h, w = tile.shape[:2]
    H, W = canvas.shape[:2]
    x2, y2 = min(W, x + w), min(H, y + h)
    canvas[y:y2, x:x2] = tile[: y2 - y, : x2 - x]
    return x, y, x2, y2


def single_tiles(codes: list[str], per_code: int, seed: int = 0, backs: int = 0, art: bool = True,
                 context: int = CONTEXT, height=(60, 140), extra_art: bool = False, glyphs: float = 0.0,
                 riichi_art: bool = False, brush: bool = False) -> CropSet:
    """Context crops (``context`` pixels square) of rendered tiles (and face-down backs) on random
    tables, tiles drawn ``height`` (low, high) pixels tall; ``art``: draw from the KDE sets as well
    as the fonts, where they are installed (``extra_art``: the GNOME themes too; ``riichi_art``:
    FluffyStuff's riichi tiles too, for the tiles it draws); ``glyphs``: that
    share of the tiles sets write in characters drawn so in one of the installed Chinese fonts
    (:func:`datasets.bonus_glyphs.glyph_face`: flowers and seasons as name character, numeral and
    made-up plant; characters, winds, red and green dragons), the rest as before; ``brush``: the
    characters among them (the flowers' and seasons' names; with ``glyph_face`` all of them) written
    as by hand, from more fonts (:func:`datasets.bonus_glyphs.brushed`)."""
    rng = np.random.default_rng(seed)
    fonts = available_fonts()
    glyph_fonts = (brush_fonts() if brush else cjk_fonts()) if glyphs else []
    if glyphs and not glyph_fonts:
        import sys

        print("no Chinese font installed (apt-get install fonts-noto-cjk fonts-arphic-ukai fonts-arphic-uming "
              "fonts-wqy-zenhei fonts-cwtex-kai): flowers and seasons are not drawn as characters", file=sys.stderr)
    # each tile is drawn from one of the fonts or art sets, chosen evenly
    arts = art_faces(extra=extra_art, riichi=riichi_art) if art else {}
    drawings = [("font", f) for f in fonts] + [("art", name) for name in arts]
    imgs, labels, sizes = [], [], []
    jobs = [(c, i) for c in codes for i in range(per_code)] if drawings else []
    jobs += [(BACK, i) for i in range(backs)]
    for code, _ in jobs:
        hgt = int(rng.integers(*height))
        if code == BACK:
            tile = tile_back(rng, hgt)
        elif glyph_fonts and glyph_drawable(code) and rng.random() < glyphs:
            tile = glyph_face(code, rng, glyph_fonts[int(rng.integers(len(glyph_fonts)))], hgt, brush)
        else:
            usable = [d for d in drawings if d[0] == "font" or code in arts[d[1]]]
            kind, drawing = usable[int(rng.integers(len(usable)))]
            tile = (tile_face(code, rng, drawing, hgt) if kind == "font"
                    else art_face(code, rng, arts[drawing], hgt, indexed=drawing in INDEXED_SETS))
        tile = _body(tile, rng)
        th, tw = tile.shape[:2]
        canvas = table_background(rng, th * 3, tw * 4)
        x, y = tw * 3 // 2 + int(rng.integers(-3, 4)), th + int(rng.integers(-3, 4))
        if rng.random() < 0.5:  # a neighbour on the rack
            if fonts and rng.random() > 0.3:
                other = tile_face(codes[int(rng.integers(len(codes)))], rng, fonts[0], hgt)
            else:
                other = tile_back(rng, hgt)
            paste(canvas, _body(other, rng), x - tw - 1, y)
        box = paste(canvas, tile, x, y)
        c, s = context_crop(canvas, box, context)
        imgs.append(c), labels.append(CLASS_INDEX[code]), sizes.append(s)
    return pack(imgs, labels, sizes, [f"synthetic-{i}" for i in range(len(imgs))], context)


# ---------------------------------------------------------------- whole hands

@dataclass
class RenderedTile:
    code: str  # tile code or 'back'
    box: tuple[int, int, int, int]
    orientation: str  # upright, sideways, face-down
    group: int


@dataclass
class RenderedHand:
    image: np.ndarray
    tiles: list[RenderedTile] = field(default_factory=list)
    groups: list[dict] = field(default_factory=list)  # {"tiles": [...], "melded": bool, "kind": ...}


def render_hand(groups: list[tuple[str, list[str], bool]], seed: int = 0, tile_height: int = 90,
                perspective: float = 0.04, degrade: bool = True, tiles: dict[str, np.ndarray] | None = None,
                aspect: float = 0.0) -> RenderedHand:
    """Lay out ``groups`` — (kind, codes, melded) with kind in chow/pung/kong/concealed_kong/
    concealed/bonus — in one row as a player shows a hand: melds apart, one claimed tile of each
    melded chow or pung sideways, a concealed kong with face-down ends, bonus tiles at the end.
    ``tiles``: whole pictures of tiles (``{code: RGB}``, a tile set's own, as
    :mod:`datasets.xmahjongg_tiles` cuts them) laid out in place of faces drawn from a font.
    ``aspect``: the picture at least this many times as tall as wide (0.75: a phone photo's frame,
    the row somewhere in its middle), rather than a strip three tiles tall.
    """
    rng = np.random.default_rng(seed)
    fonts = available_fonts()
    if not fonts and tiles is None:
        raise RuntimeError("no tile font installed (apt-get install fonts-noto-core)")
    font = fonts[int(rng.integers(len(fonts)))] if fonts else ""
    th = tile_height
    tw = int(th * 0.75)
    gap = int(tw * rng.uniform(0.5, 0.9))
    placed: list[tuple[np.ndarray, str, str, int]] = []
    widths = []
    for gi, (kind, codes, melded) in enumerate(groups):
        sideways_at = int(rng.integers(len(codes))) if melded and kind in ("chow", "pung", "kong") else -1
        for k, code in enumerate(codes):
            face_down = kind == "concealed_kong" and k in (0, len(codes) - 1)
            if face_down:
                img = tile_back(rng, th)
            elif tiles is not None:
                img = cv2.resize(tiles[code], (tw, th), interpolation=cv2.INTER_AREA)
            else:
                img = tile_face(code, rng, font, th)
            orient = "face-down" if face_down else "upright"
            if k == sideways_at:
                img = cv2.rotate(img, cv2.ROTATE_90_COUNTERCLOCKWISE)
                orient = "sideways"
            placed.append((img, "back" if face_down else code, orient, gi))
            widths.append(img.shape[1] + 2)
        widths[-1] += gap
    W = sum(widths) + 2 * tw
    H = max(th * 3, int(W * aspect))
    canvas = table_background(rng, H, W)
    x = tw
    out = RenderedHand(canvas)
    rack = H // 2 + th // 2
    if H > th * 3:  # the row somewhere in the middle of the frame
        rack += int((H - th * 3) * rng.uniform(-0.3, 0.3))
    for (img, code, orient, gi), step in zip(placed, widths):
        y = rack - img.shape[0]  # bottoms aligned on the rack line
        shadow = (slice(y + 3, y + img.shape[0] + 3), slice(x + 3, x + img.shape[1] + 3))
        canvas[shadow] = (canvas[shadow] * 0.7).astype(np.uint8)
        box = paste(canvas, img, x, y)
        out.tiles.append(RenderedTile(code, box, orient, gi))
        x += step
    for gi, (kind, _, melded) in enumerate(groups):
        out.groups.append({"tiles": [i for i, t in enumerate(out.tiles) if t.group == gi],
                           "melded": melded, "kind": kind})
    if perspective:
        src = np.float32([[0, 0], [W, 0], [W, H], [0, H]])
        j = lambda: rng.uniform(-perspective, perspective)  # noqa: E731
        dst = np.float32([[W * j(), H * j()], [W * (1 + j()), H * j()], [W * (1 + j()), H * (1 + j())],
                          [W * j(), H * (1 + j())]])
        dst -= dst.min(axis=0)
        size = (int(math.ceil(dst[:, 0].max())), int(math.ceil(dst[:, 1].max())))
        m = cv2.getPerspectiveTransform(src, dst)
        canvas = cv2.warpPerspective(canvas, m, size, borderMode=cv2.BORDER_REPLICATE)
        for t in out.tiles:
            x1, y1, x2, y2 = t.box
            pts = cv2.perspectiveTransform(np.float32([[[x1, y1], [x2, y1], [x2, y2], [x1, y2]]]), m)[0]
            t.box = (int(pts[:, 0].min()), int(pts[:, 1].min()), int(math.ceil(pts[:, 0].max())),
                     int(math.ceil(pts[:, 1].max())))
        out.image = canvas
    if degrade:
        from .augment import photometric
        out.image = photometric(out.image, rng)
    return out
