"""Readers for labelled tile photos: YOLO folders (boxes and polygon rows) and crop folders
with a CSV of labels. Both take any path and give plain records with CONTRACT tile codes.

>>> yolo_name_to_code("sc3"), yolo_name_to_code("hdg"), yolo_name_to_code("bf4")
('3m', 'Gd', 'F4')
>>> [yolo_name_to_code(n) for n in ("c7", "d2", "b9", "ww", "dr", "f3", "f3-s", "s4-s")]
['7m', '2p', '9s', 'W', 'Rd', 'F3', 'F3', 'S4']
>>> yolo_name_to_code("Gd"), yolo_name_to_code("S1")
('Gd', 'S1')
>>> camerash_name_to_code("honors-red"), camerash_name_to_code("bonus-chrysanthemum")
('Rd', 'F3')
"""

from __future__ import annotations

import csv
import os
import random
import re
from dataclasses import dataclass, field

import numpy as np

from mjcam.scoring.tiles import CODES

IMAGE_EXTS = (".jpg", ".jpeg", ".png", ".webp", ".bmp")

_YOLO_SUIT = {"sc": "m", "sd": "p", "sb": "s"}
_YOLO_HONOUR = {"hwe": "E", "hws": "S", "hww": "W", "hwn": "N", "hdr": "Rd", "hdg": "Gd", "hdw": "Wd"}
# the rethink-bonus set's names: c/d/b + number, w + wind, d + dragon, f/s + number (``-s``: pictorial)
_SHORT_SUIT = {"c": "m", "d": "p", "b": "s"}
_SHORT_HONOUR = {"we": "E", "ws": "S", "ww": "W", "wn": "N", "dr": "Rd", "dg": "Gd", "dw": "Wd"}
_CAM_SUIT = {"characters": "m", "dots": "p", "bamboo": "s"}
_CAM_HONOUR = {"east": "E", "south": "S", "west": "W", "north": "N", "red": "Rd", "green": "Gd", "white": "Wd"}
_CAM_BONUS = {"plum": "F1", "orchid": "F2", "chrysanthemum": "F3", "bamboo": "F4",
              "spring": "S1", "summer": "S2", "autumn": "S3", "winter": "S4"}

# Camerash crops labelled honors-white that show decorative tiles (its README)
CAMERASH_WRONG = frozenset({"35.jpg", "39.jpg", "94.jpg", "97.jpg"})


class DatasetError(ValueError):
    """A data folder that cannot be read as the format says."""


def iou(a, b) -> float:
    """Intersection over union of two boxes (x1, y1, x2, y2).

    >>> iou((0, 0, 10, 10), (5, 0, 15, 10))
    0.3333333333333333
    """
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def yolo_name_to_code(name: str) -> str:
    """Map the Roboflow HK set's class names (sc1, sd9, sb5, hwe, hdr, bf1, bs4) and the
    rethink-bonus set's (c1, d9, b5, we, dr, f1, f1-s, s4) to tile codes; tile codes stay as they are."""
    if name in CODES:
        return name
    if name[:2] in _YOLO_SUIT and name[2:].isdigit():
        return name[2:] + _YOLO_SUIT[name[:2]]
    if name in _YOLO_HONOUR:
        return _YOLO_HONOUR[name]
    if re.fullmatch(r"b[fs][1-4]", name):
        return ("F" if name[1] == "f" else "S") + name[2]
    if re.fullmatch(r"[cdb][1-9]", name):
        return name[1] + _SHORT_SUIT[name[0]]
    if name in _SHORT_HONOUR:
        return _SHORT_HONOUR[name]
    if re.fullmatch(r"[fs][1-4](-s)?", name):
        return name[0].upper() + name[1]
    raise DatasetError(f"unknown class name {name!r}")


def camerash_name_to_code(name: str) -> str:
    """Map Camerash label names (dots-1, honors-east, bonus-plum ...) to tile codes."""
    kind, _, rest = name.partition("-")
    if kind in _CAM_SUIT and rest.isdigit():
        return rest + _CAM_SUIT[kind]
    if kind == "honors" and rest in _CAM_HONOUR:
        return _CAM_HONOUR[rest]
    if kind == "bonus" and rest in _CAM_BONUS:
        return _CAM_BONUS[rest]
    raise DatasetError(f"unknown label name {name!r}")


@dataclass
class LabelledBox:
    code: str
    box: tuple[float, float, float, float]  # pixels x1 y1 x2 y2
    polygon: bool = False


STRETCHED_BELOW, STRETCHED_ABOVE = 0.25, 4.0  # median tile aspect (w/h) of a photo stretched out of shape
# two labelled boxes overlapping this much are one tile labelled twice (in the Roboflow valid split
# such pairs overlap 0.73-1.0 and no other pair more than 0.3; neighbours in a slanted row ~0.2)
DUPLICATE_LABEL_IOU = 0.6


@dataclass
class LabelledImage:
    path: str
    width: int
    height: int
    boxes: list[LabelledBox] = field(default_factory=list)

    @property
    def source(self) -> str:
        """The source photo a Roboflow copy was made from (augmented copies share it)."""
        return source_of(self.path)

    @property
    def stretched(self) -> bool:
        """Whether the photo was stretched out of all shape (Roboflow resized every photo to a
        square, so a long narrow strip of a hand came out three to ten times too wide or too tall):
        the median labelled tile is over 4 times wider than tall or under a quarter as wide — an
        upright tile is about 0.75 as wide as tall, a sideways one 1.35. No phone photo looks so."""
        aspects = sorted((b.box[2] - b.box[0]) / max(1e-9, b.box[3] - b.box[1]) for b in self.boxes)
        if not aspects:
            return False
        mid = aspects[len(aspects) // 2]
        return not STRETCHED_BELOW <= mid <= STRETCHED_ABOVE

    def tile_of(self) -> list[int]:
        """For each label, the index of the first label of the tile it labels: a box overlapping
        an earlier tile's first label by ``DUPLICATE_LABEL_IOU`` or more labels that tile again.

        >>> LabelledImage("x.jpg", 100, 100, [LabelledBox("2m", (0, 0, 10, 14)), LabelledBox("9s", (12, 0, 22, 14)),
        ...     LabelledBox("2m", (0, 1, 10, 14))]).tile_of()
        [0, 1, 0]
        """
        firsts: list[int] = []
        out = []
        for k, b in enumerate(self.boxes):
            same = next((j for j in firsts if iou(self.boxes[j].box, b.box) >= DUPLICATE_LABEL_IOU), None)
            if same is None:
                firsts.append(k)
                same = k
            out.append(same)
        return out

    def tiles(self) -> list[tuple[tuple[float, float, float, float], tuple[str, ...]]]:
        """The labelled tiles, each once: ``(box, codes)``. A tile labelled twice (:meth:`tile_of`)
        keeps its first label's box; a second label's code joins the tile's codes when it differs
        (the labels disagree: either may be right).

        >>> img = LabelledImage("x.jpg", 100, 100, [LabelledBox("2m", (0, 0, 10, 14)),
        ...     LabelledBox("2m", (0, 1, 10, 14)), LabelledBox("9s", (12, 0, 22, 14)),
        ...     LabelledBox("5s", (12, 0, 22, 14)), LabelledBox("E", (24, 0, 34, 14))])
        >>> img.tiles()
        [((0, 0, 10, 14), ('2m',)), ((12, 0, 22, 14), ('9s', '5s')), ((24, 0, 34, 14), ('E',))]
        """
        out: dict[int, tuple[tuple[float, float, float, float], tuple[str, ...]]] = {}
        for b, first in zip(self.boxes, self.tile_of()):
            if first not in out:
                out[first] = (b.box, (b.code,))
            elif b.code not in out[first][1]:
                out[first] = (out[first][0], out[first][1] + (b.code,))
        return list(out.values())


def source_of(path: str) -> str:
    name = os.path.basename(path)
    return name.split(".rf.")[0] if ".rf." in name else os.path.splitext(name)[0]


def roboflow_subset(path: str) -> str:
    """Which part of the Roboflow HK set a photo belongs to: ``japanese`` (the ``IMG_27*`` photos of
    a Japanese-style set), ``screenshot`` (digital tiles) or ``hk`` (real Hong Kong tiles)."""
    name = os.path.basename(path)
    if name.startswith("IMG_27"):
        return "japanese"
    if name.startswith("Screenshot"):
        return "screenshot"
    return "hk"


def filled_corners(img: np.ndarray, k: int = 16) -> int:
    """How many corners of the image are flat grey fill (a Roboflow copy turned by an odd angle)."""
    n = 0
    for c in (img[:k, :k], img[:k, -k:], img[-k:, :k], img[-k:, -k:]):
        f = c.reshape(-1, 3).astype(np.float32)
        n += float(f.std(axis=0).max()) < 2.0 and float(np.ptp(f.mean(axis=0))) < 2.0
    return n


def sizes_trusted(img: np.ndarray) -> bool:
    """Whether a labelled photo's box sizes can be learnt from. Roboflow copies turned by an odd
    angle (their corners are flat fill) keep each tile's centre but their boxes are boxes of
    turned boxes, looser than any real photo's: they teach where tiles are, not how big."""
    return filled_corners(img) < 2


#: roboflow-rethink-bonus labels its flowers and seasons by part of the tile: its character and
#: number, the upper or left half, in some photos only the corner quarter (their labelled boxes'
#: median area is about 0.4 of the same photo's other tiles').
PART_LABELLED_SET = "roboflow-rethink-bonus"


def part_labelled(path: str, code: str) -> bool:
    """Whether the label of a tile of ``code`` in the photo at ``path`` may cover only part of the
    tile (:data:`PART_LABELLED_SET`'s flowers and seasons): it says which tile is there, and
    roughly where, but neither the tile's centre nor its size."""
    return PART_LABELLED_SET in path and code[:1] in "FS" and code[1:].isdigit()


#: A box found round a whole tile matches a label of part of it when it holds the label's centre
#: and ``PART_HELD`` of its area, is at most ``PART_AREA`` times its area (a whole tile: a found box
#: that matches no label is 3 to 5.5 times a part label) and holds no other label's centre (no box
#: across two tiles).
PART_AREA, PART_HELD = 6.0, 0.8


def _holds(box, x: float, y: float) -> bool:
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def overlap(box, label, part: bool, others=()) -> float:
    """How well a found box matches a labelled one: their IoU, or (``part``: a label drawn round
    part of the tile) 1 where the box holds the label's centre and ``PART_HELD`` of its area, is at
    most ``PART_AREA`` times its area and holds none of the ``others`` labels' centres.

    >>> overlap((0, 0, 40, 60), (0, 0, 40, 28), False) < 0.5, overlap((0, 0, 40, 60), (0, 0, 40, 28), True)
    (True, 1.0)
    >>> overlap((10, 0, 50, 30), (0, 0, 20, 30), True) < 0.5  # holds only half the label
    True
    >>> overlap((20, 0, 60, 50), (30, 0, 60, 20), True), overlap((0, 0, 200, 90), (0, 0, 20, 30), True) < 0.5
    (1.0, True)
    >>> overlap((25, 0, 95, 40), (30, 0, 60, 20), True), overlap((25, 0, 95, 40), (30, 0, 60, 20), True, [(70, 0, 100, 20)]) < 0.5
    (1.0, True)
    """
    v = iou(box, label)
    if part:
        area = (label[2] - label[0]) * (label[3] - label[1])
        inter = max(0.0, min(box[2], label[2]) - max(box[0], label[0])) * max(0.0, min(box[3], label[3]) - max(box[1], label[1]))
        if (_holds(box, (label[0] + label[2]) / 2, (label[1] + label[3]) / 2) and inter >= PART_HELD * area
                and (box[2] - box[0]) * (box[3] - box[1]) <= PART_AREA * area
                and not any(_holds(box, (o[0] + o[2]) / 2, (o[1] + o[3]) / 2) for o in others)):
            return 1.0
    return v


def whole_labels(rec: "LabelledImage", found) -> tuple["LabelledImage", int]:
    """``rec`` with each label of part of a tile (:func:`part_labelled`) replaced by the box in
    ``found`` (boxes drawn round whole tiles, e.g. by a detector) that matches it (:func:`overlap`;
    of several, the tightest; each found box given to one tile, a tile labelled twice
    (:meth:`LabelledImage.tile_of`) growing both labels), and how many were replaced. A part label that no found box matches stays as it is.

    >>> rec = LabelledImage("roboflow-rethink-bonus/a.jpg", 200, 100, [LabelledBox("F1", (0, 0, 40, 28)),
    ...     LabelledBox("2m", (50, 0, 90, 60)), LabelledBox("S3", (100, 0, 140, 28))])
    >>> out, n = whole_labels(rec, [(0, 0, 40, 60), (50, 0, 90, 60), (300, 0, 340, 60)])
    >>> [b.box for b in out.boxes], n
    ([(0.0, 0.0, 40.0, 60.0), (50, 0, 90, 60), (100, 0, 140, 28)], 1)
    """
    found = [tuple(float(v) for v in b) for b in found]
    first = rec.tile_of()
    chosen: dict[int, int] = {}  # a tile's first label -> the found box it grew to
    boxes, n = [], 0
    for k, b in enumerate(rec.boxes):
        if part_labelled(rec.path, b.code) and first[k] not in chosen:
            others = [o.box for j, o in enumerate(rec.boxes) if first[j] != first[k]]
            used = set(chosen.values())
            score = [0.0 if i in used else overlap(f, b.box, True, others) for i, f in enumerate(found)]
            # of the boxes that match, the one closest to the label (the tightest round it)
            best = max(range(len(found)), key=lambda i: (score[i], iou(found[i], b.box)), default=None)
            if best is not None and score[best] >= 0.5:
                chosen[first[k]] = best
        if part_labelled(rec.path, b.code) and first[k] in chosen:
            boxes.append(LabelledBox(b.code, found[chosen[first[k]]]))
            n += 1
        else:
            boxes.append(b)
    return LabelledImage(rec.path, rec.width, rec.height, boxes), n


def held_out_sources(records: list["LabelledImage"], fraction: float, seed: int) -> set[str]:
    """A seeded random share of the records' source photos, held out of training (every copy of
    a source goes the same way); the classifier and the detector hold out the same ones."""
    sources = sorted({r.source for r in records})
    return set(random.Random(seed).sample(sources, max(1, int(len(sources) * fraction))))


def _read_names(root: str) -> list[str]:
    for name in ("data.yaml", "data.yml"):
        p = os.path.join(root, name)
        if os.path.exists(p):
            text = open(p, encoding="utf-8").read()
            m = re.search(r"^names:\s*\[(.*?)\]", text, re.S | re.M)
            if m:
                return [x.strip().strip("'\"") for x in m.group(1).split(",") if x.strip()]
            m = re.search(r"^names:\s*\n((?:\s+-\s*.+\n?)+)", text, re.M)
            if m:
                return [ln.split("-", 1)[1].strip().strip("'\"") for ln in m.group(1).splitlines() if "-" in ln]
            raise DatasetError(f"{p} has no names list")
    raise DatasetError(f"no data.yaml in {root}")


def read_yolo(root: str, split: str, names: list[str] | None = None) -> list[LabelledImage]:
    """Images and boxes of one split (``train``, ``valid``) of a YOLO folder.

    Box rows are ``class xc yc w h``; polygon rows ``class x1 y1 x2 y2 ...`` give their bounding box.
    Class names are mapped to tile codes with :func:`yolo_name_to_code`.
    """
    from PIL import Image

    names = names or _read_names(root)
    codes = [yolo_name_to_code(n) for n in names]
    img_dir = os.path.join(root, split, "images")
    lab_dir = os.path.join(root, split, "labels")
    if not os.path.isdir(img_dir):
        raise DatasetError(f"no images folder {img_dir}")
    out = []
    for name in sorted(os.listdir(img_dir)):
        if not name.lower().endswith(IMAGE_EXTS):
            continue
        path = os.path.join(img_dir, name)
        with Image.open(path) as im:
            w, h = im.size
        rec = LabelledImage(path, w, h)
        lab = os.path.join(lab_dir, os.path.splitext(name)[0] + ".txt")
        if os.path.exists(lab):
            for ln, line in enumerate(open(lab, encoding="utf-8"), 1):
                v = line.split()
                if not v:
                    continue
                try:
                    cls, xs = int(v[0]), [float(x) for x in v[1:]]
                except ValueError:
                    raise DatasetError(f"{lab}:{ln}: not numbers") from None
                if cls >= len(codes) or len(xs) < 4 or len(xs) % 2:
                    raise DatasetError(f"{lab}:{ln}: bad row")
                if len(xs) == 4:
                    xc, yc, bw, bh = xs
                    box = ((xc - bw / 2) * w, (yc - bh / 2) * h, (xc + bw / 2) * w, (yc + bh / 2) * h)
                    poly = False
                else:
                    box = (min(xs[0::2]) * w, min(xs[1::2]) * h, max(xs[0::2]) * w, max(xs[1::2]) * h)
                    poly = True
                box = (max(0.0, box[0]), max(0.0, box[1]), min(float(w), box[2]), min(float(h), box[3]))
                if box[2] - box[0] >= 2 and box[3] - box[1] >= 2:
                    rec.boxes.append(LabelledBox(codes[cls], box, poly))
        out.append(rec)
    return out


#: Labels of the Roboflow valid split found wrong by eye (see the file's head)
VALID_MENDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "roboflow_valid_mends.csv")
MEND_NEAR = 0.01  # a mend names the labelled box whose centre lies this near (fraction of the photo)


def read_mends(mends: str = VALID_MENDS) -> list[dict[str, str]]:
    """The rows of a mends file (``#`` lines are its comments): image, centre_x, centre_y,
    published, seen, what."""
    with open(mends, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(ln for ln in fh if not ln.startswith("#")))


def mended(records: list[LabelledImage], mends: str = VALID_MENDS) -> list[LabelledImage]:
    """The records with the labels listed in ``mends`` set to the tile the photo shows. A row
    names its photo by file name and its box by the centre (fractions of the photo); the nearest
    labelled box within ``MEND_NEAR`` must carry the published code the row gives, else
    DatasetError (the mends belong to other data). Rows whose photo is not among ``records`` are
    passed over, so a part of the split can be mended. Records are copied, never changed."""
    from dataclasses import replace

    rows: dict[str, list[dict]] = {}
    for row in read_mends(mends):
        rows.setdefault(row["image"], []).append(row)
    out = []
    for rec in records:
        todo = rows.get(os.path.basename(rec.path))
        if not todo:
            out.append(rec)
            continue
        boxes = list(rec.boxes)
        for row in todo:
            cx, cy = float(row["centre_x"]), float(row["centre_y"])

            def off(b: LabelledBox) -> float:
                return max(abs((b.box[0] + b.box[2]) / 2 / rec.width - cx),
                           abs((b.box[1] + b.box[3]) / 2 / rec.height - cy))

            k = min(range(len(boxes)), key=lambda i: off(boxes[i]), default=None)
            if k is None or off(boxes[k]) > MEND_NEAR or boxes[k].code != row["published"]:
                raise DatasetError(f"{mends}: no box labelled {row['published']} at ({cx}, {cy}) in {rec.path}")
            boxes[k] = replace(boxes[k], code=row["seen"])
        out.append(replace(rec, boxes=boxes))
    return out


def read_crop_csv(root: str, csv_path: str | None = None, image_dir: str | None = None,
                  skip: frozenset[str] = CAMERASH_WRONG) -> list[tuple[str, str]]:
    """(image path, tile code) of a crop folder described by a CSV (``image-name,label,label-name``).

    Defaults fit the Camerash layout (``tiles-data/data.csv`` and ``raw-tiles/``); ``skip`` drops
    known wrong labels.
    """
    csv_path = csv_path or os.path.join(root, "tiles-data", "data.csv")
    image_dir = image_dir or os.path.join(root, "raw-tiles")
    if not os.path.exists(csv_path):
        raise DatasetError(f"no label file {csv_path}")
    out = []
    with open(csv_path, encoding="utf-8-sig", newline="") as fh:
        for row in csv.DictReader(fh):
            name = row.get("image-name") or row.get("image")
            label = row.get("label-name") or row.get("label")
            if not name or not label:
                raise DatasetError(f"{csv_path}: rows need image-name and label-name")
            if name in skip:
                continue
            out.append((os.path.join(image_dir, name), camerash_name_to_code(label)))
    return out
