"""Render the tile faces of KDE's libkmahjongg tile sets to PNG files, one per tile code.

Run by the *system* Python (it needs PyGObject with librsvg and pycairo from Debian:
``python3-gi``, ``python3-gi-cairo``, ``gir1.2-rsvg-2.0``; the sets come from
``kdegames-mahjongg-data-kf5``, GPL-2+). :func:`datasets.synthetic.art_faces` calls it in a
subprocess and caches what it writes; nothing rendered here is ever stored in the repository.

    /usr/bin/python3 datasets/kde_faces.py OUT_DIR [--sets default,traditional] [--scale 3]

Writes ``OUT_DIR/<set>/<code>.png`` (RGBA: the face's art on a transparent ground).
``--whole SVG`` instead renders a whole SVG document (such as a GNOME Mahjongg theme's sprite
sheet, see :mod:`datasets.gnome_faces`) to the PNG file OUT.
This file imports nothing from the project, so that another interpreter can run it.
"""

import argparse
import gzip
import os

TILESETS = "/usr/share/kmahjongglib/tilesets"
FACE_W, FACE_H, FACES_TOP = 69, 89, 116  # the face grid of the KDE sets (TileFaceWidth/Height)


def element_codes() -> dict:
    """SVG element id -> tile code (winds and dragons are numbered N S E W and white green red;
    flowers plum orchid chrysanthemum bamboo, as F1-F4)."""
    out = {}
    for n in range(1, 10):
        out[f"CHARACTER_{n}"], out[f"ROD_{n}"], out[f"BAMBOO_{n}"] = f"{n}m", f"{n}p", f"{n}s"
    out.update({"WIND_1": "N", "WIND_2": "S", "WIND_3": "E", "WIND_4": "W",
                "DRAGON_1": "Wd", "DRAGON_2": "Gd", "DRAGON_3": "Rd"})
    for n in range(1, 5):
        out[f"FLOWER_{n}"], out[f"SEASON_{n}"] = f"F{n}", f"S{n}"
    return out


def face_rect(logical) -> tuple:
    """The face an element is drawn on: its logical extent when that is a face (the art's own
    invisible face rectangle), otherwise the grid cell under the extent's centre."""
    x, y, w, h = logical.x, logical.y, logical.width, logical.height
    if abs(w - FACE_W) < 1 and FACE_H - 12 <= h <= FACE_H + 1:
        return x, y, w, h
    col = int((x + w / 2) // FACE_W)
    row = int((y + h / 2 - FACES_TOP) // FACE_H)
    return col * FACE_W, FACES_TOP + row * FACE_H, FACE_W, FACE_H


def render(out_dir: str, sets: list, scale: float) -> int:
    import cairo
    import gi

    gi.require_version("Rsvg", "2.0")
    from gi.repository import Rsvg

    written = 0
    for name in sets:
        path = os.path.join(TILESETS, name + ".svgz")
        handle = Rsvg.Handle.new_from_data(gzip.open(path).read())
        _, width, height = handle.get_intrinsic_size_in_pixels()
        whole = Rsvg.Rectangle()
        whole.x, whole.y, whole.width, whole.height = 0, 0, width, height
        os.makedirs(os.path.join(out_dir, name), exist_ok=True)
        for element, code in element_codes().items():
            ok, _, logical = handle.get_geometry_for_layer("#" + element, whole)
            if not ok:
                continue
            fx, fy, fw, fh = face_rect(logical)
            surface = cairo.ImageSurface(cairo.FORMAT_ARGB32, round(fw * scale), round(fh * scale))
            cr = cairo.Context(surface)
            cr.scale(scale, scale)
            cr.translate(-fx, -fy)
            handle.render_layer(cr, "#" + element, whole)
            surface.write_to_png(os.path.join(out_dir, name, code + ".png"))
            written += 1
    return written


def render_whole(svg: str, out: str, scale: float) -> None:
    import cairo
    import gi

    gi.require_version("Rsvg", "2.0")
    from gi.repository import Rsvg

    handle = Rsvg.Handle.new_from_file(svg)
    _, width, height = handle.get_intrinsic_size_in_pixels()
    surface = cairo.ImageSurface(cairo.FORMAT_ARGB32, round(width * scale), round(height * scale))
    page = Rsvg.Rectangle()
    page.x, page.y, page.width, page.height = 0, 0, width * scale, height * scale
    handle.render_document(cairo.Context(surface), page)
    surface.write_to_png(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--sets", default="default,traditional")
    ap.add_argument("--scale", type=float, default=3.0)
    ap.add_argument("--whole", metavar="SVG", help="render this whole SVG document to the file OUT")
    a = ap.parse_args()
    if a.whole:
        render_whole(a.whole, a.out, a.scale)
    else:
        print(render(a.out, [s for s in a.sets.split(",") if s], a.scale))


if __name__ == "__main__":
    main()
