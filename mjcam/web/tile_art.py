"""How the tile pictures of the table app (``static/tiles/CODE.svg``) are drawn.

    python -m mjcam.web.tile_art [FOLDER]

The pictures are drawn here, shape by shape: dots as rings, bamboo as jointed sticks, a bird for
the one of bamboo, a blue frame for the white dragon. The Chinese characters (numerals, 萬, winds,
dragons, flowers and seasons) are the outlines of the glyphs of Droid Sans Fallback (Apache License
2.0, Debian ``fonts-droid-fallback``) and the bonus tiles' numbers those of DejaVu Sans Bold (Bitstream
Vera license, Debian ``fonts-dejavu-core``), written into each picture as paths: a phone with no
Chinese font still shows them. Running this needs fontTools (``pip install fonttools``) and those two
fonts; the app itself only serves the files written. ``NOTICE.txt`` beside them credits the fonts.
"""

from __future__ import annotations

import os
import sys

FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static", "tiles")
CJK_FONT = "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf"
DIGIT_FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"

W, H = 60, 80  # the picture; the face lies inside a margin of the tile's body
INK, RED, GREEN, BLUE = "#1b2a5a", "#c4142b", "#117a3c", "#1b4fa0"
NUMERALS = "一二三四五六七八九"
HONOURS = {"E": ("東", INK), "S": ("南", INK), "W": ("西", INK), "N": ("北", INK), "Rd": ("中", RED),
           "Gd": ("發", GREEN)}
BONUS = {"F1": ("梅", RED), "F2": ("蘭", GREEN), "F3": ("菊", BLUE), "F4": ("竹", GREEN),
         "S1": ("春", GREEN), "S2": ("夏", RED), "S3": ("秋", BLUE), "S4": ("冬", INK)}


class Glyphs:
    """Glyph outlines of a font as SVG path data, placed in a box."""

    def __init__(self, path: str):
        from fontTools.ttLib import TTFont

        self.font = TTFont(path)
        self.cmap = self.font.getBestCmap()
        self.glyphs = self.font.getGlyphSet()
        self.em = self.font["head"].unitsPerEm

    def path(self, char: str, x: float, y: float, w: float, h: float, colour: str, bold: float = 0.0) -> str:
        """``char`` drawn to fill the box (x, y, w, h) as far as its shape allows, centred."""
        from fontTools.pens.boundsPen import BoundsPen
        from fontTools.pens.svgPathPen import SVGPathPen

        name = self.cmap[ord(char)]
        bp = BoundsPen(self.glyphs)
        self.glyphs[name].draw(bp)
        x0, y0, x1, y1 = bp.bounds
        pen = SVGPathPen(self.glyphs, ntos=lambda v: f"{v:.0f}")
        self.glyphs[name].draw(pen)
        s = min(w / (x1 - x0), h / (y1 - y0))
        tx = x + (w - (x1 - x0) * s) / 2 - x0 * s
        ty = y + (h - (y1 - y0) * s) / 2 + y1 * s
        stroke = f' stroke="{colour}" stroke-width="{bold / s:.0f}" stroke-linejoin="round"' if bold else ""
        return (f'<path transform="translate({tx:.2f} {ty:.2f}) scale({s:.5f} {-s:.5f})" fill="{colour}"{stroke} '
                f'd="{pen.getCommands()}"/>')


def body(inner: str, back: bool = False) -> str:
    face = "#2f7d5b" if back else "#fbf8ee"
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W}" height="{H}">'
            f'<rect x="1" y="3" width="{W - 2}" height="{H - 4}" rx="7" fill="#2f7d5b"/>'
            f'<rect x="1" y="1" width="{W - 2}" height="{H - 5}" rx="7" fill="{face}" stroke="#a9a18c" '
            f'stroke-width="1.2"/>{inner}</svg>\n')


def dot(cx: float, cy: float, r: float, colour: str) -> str:
    return (f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="{colour}"/>'
            f'<circle cx="{cx}" cy="{cy}" r="{r * 0.68:.2f}" fill="#fbf8ee"/>'
            f'<circle cx="{cx}" cy="{cy}" r="{r * 0.42:.2f}" fill="{colour}"/>')


def dots(n: int) -> str:
    g, r, b = GREEN, RED, BLUE
    L, M, R = 17, 30, 43
    if n == 1:
        return (f'<circle cx="30" cy="38" r="20" fill="{g}"/><circle cx="30" cy="38" r="15.5" fill="#fbf8ee"/>'
                f'<circle cx="30" cy="38" r="12" fill="{r}"/><circle cx="30" cy="38" r="7" fill="#fbf8ee"/>'
                f'<circle cx="30" cy="38" r="4" fill="{b}"/>')
    layouts = {
        2: [(M, 22, g), (M, 54, b)],
        3: [(L, 17, b), (M, 38, r), (R, 59, g)],
        4: [(L, 22, b), (R, 22, g), (L, 54, g), (R, 54, b)],
        5: [(L, 18, b), (R, 18, g), (M, 38, r), (L, 58, g), (R, 58, b)],
        6: [(L, 16, g), (R, 16, g), (L, 40, r), (R, 40, r), (L, 60, r), (R, 60, r)],
        7: [(14, 12, g), (M, 20, g), (46, 28, g), (L, 46, r), (R, 46, r), (L, 62, r), (R, 62, r)],
        8: [(L, 13, b), (R, 13, b), (L, 29, b), (R, 29, b), (L, 45, b), (R, 45, b), (L, 61, b), (R, 61, b)],
        9: [(x, y, c) for y, c in ((16, b), (38, r), (60, g)) for x in (15, M, 45)],
    }
    size = {2: 11, 3: 9.5, 4: 10, 5: 9, 6: 8.5, 7: 7.5, 8: 7.2, 9: 7}[n]
    return "".join(dot(x, y, size, c) for x, y, c in layouts[n])


def stick(cx: float, cy: float, h: float, colour: str, angle: float = 0) -> str:
    w = 8
    rot = f' transform="rotate({angle} {cx} {cy})"' if angle else ""
    y0 = cy - h / 2
    return (f'<g{rot}><rect x="{cx - w / 2}" y="{y0}" width="{w}" height="{h}" rx="3" fill="{colour}"/>'
            f'<rect x="{cx - w / 2 - 1}" y="{cy - 1.4}" width="{w + 2}" height="2.8" rx="1.2" fill="{colour}"/>'
            f'<line x1="{cx}" y1="{y0 + 3}" x2="{cx}" y2="{y0 + h - 3}" stroke="#fbf8ee" stroke-width="1.2"/></g>')


def bamboo(n: int) -> str:
    g, r, b = GREEN, RED, BLUE
    if n == 1:  # the bird
        return (f'<path d="M14 62 C 10 40, 22 30, 32 34 C 40 37, 44 46, 40 56 Z" fill="{g}"/>'
                f'<path d="M40 56 C 48 60, 52 68, 46 72 C 42 66, 38 64, 34 62 Z" fill="{b}"/>'
                f'<circle cx="36" cy="22" r="8" fill="{r}"/><circle cx="38" cy="20" r="1.8" fill="#fbf8ee"/>'
                f'<path d="M43 21 L 51 19 L 44 25 Z" fill="#d9a21b"/>'
                f'<path d="M20 50 C 24 44, 30 44, 34 48" stroke="#fbf8ee" stroke-width="2" fill="none"/>'
                f'<path d="M24 62 L 22 72 M30 62 L 30 72" stroke="{r}" stroke-width="2.4"/>')
    h3 = 20  # a stick's height in rows of three
    layouts = {
        2: [(30, 23, 28, g), (30, 55, 28, b)],
        3: [(30, 22, 26, b), (19, 54, 26, g), (41, 54, 26, g)],
        4: [(19, 23, 28, b), (41, 23, 28, g), (19, 55, 28, g), (41, 55, 28, b)],
        5: [(16, 23, 28, g), (44, 23, 28, b), (30, 39, 28, r), (16, 55, 28, b), (44, 55, 28, g)],
        6: [(x, y, 28, g if y < 40 else b) for y in (23, 55) for x in (15, 30, 45)],
        7: [(30, 13, h3, r)] + [(x, y, h3, g) for y in (38, 62) for x in (15, 30, 45)],
        9: [(x, y, h3, r if x == 30 else (g if x == 15 else b)) for y in (14, 38, 62) for x in (15, 30, 45)],
    }
    if n == 8:  # two rows of four, the middle pairs leaning to make the M and W
        out = []
        for cy, lean, c in ((22, 1, g), (56, -1, b)):
            out += [stick(9, cy, 26, c), stick(51, cy, 26, c),
                    stick(23, cy, 26, c, 20 * lean), stick(37, cy, 26, c, -20 * lean)]
        return "".join(out)
    return "".join(stick(x, y, h, c) for x, y, h, c in layouts[n])


def number(digits: Glyphs, n: int, colour: str) -> str:
    return digits.path(str(n), 44, 6, 10, 13, colour)


def draw(code: str, cjk: Glyphs, digits: Glyphs) -> str:
    if code == "back":
        return body("", back=True)
    if code == "Wd":
        return body(f'<rect x="11" y="12" width="38" height="52" rx="3" fill="none" stroke="{BLUE}" stroke-width="4"/>'
                    f'<rect x="17" y="18" width="26" height="40" rx="2" fill="none" stroke="{BLUE}" stroke-width="1.6"/>')
    if code in HONOURS:
        ch, colour = HONOURS[code]
        return body(cjk.path(ch, 9, 13, 42, 50, colour, bold=1.2 if code == "Gd" else 2.0))
    if code in BONUS:
        ch, colour = BONUS[code]
        return body(number(digits, int(code[1]), colour) + cjk.path(ch, 8, 22, 44, 44, colour, bold=0.9))
    n, suit = int(code[0]), code[1]
    if suit == "p":
        return body(dots(n))
    if suit == "s":
        return body(bamboo(n))
    return body(cjk.path(NUMERALS[n - 1], 12, 8, 36, 26, INK, bold=2.0) + cjk.path("萬", 10, 38, 40, 34, RED, bold=0.9))


def main(argv=None) -> None:
    from mjcam.scoring.tiles import CODES

    folder = (argv or sys.argv[1:] or [FOLDER])[0]
    os.makedirs(folder, exist_ok=True)
    cjk, digits = Glyphs(CJK_FONT), Glyphs(DIGIT_FONT)
    for code in list(CODES) + ["back"]:
        with open(os.path.join(folder, f"{code}.svg"), "w", encoding="utf-8") as fh:
            fh.write(draw(code, cjk, digits))
    print(f"{len(CODES) + 1} tile pictures written to {folder}")


if __name__ == "__main__":
    main()
