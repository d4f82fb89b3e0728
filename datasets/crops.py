"""Cutting training material out of labelled photos.

A *context crop* is a square around a tile (or a negative region), 1.6 times the box's longer
side, scaled to ``CONTEXT`` pixels, with the box's size inside it. Training augments from it
(turns, slants, shifts) and then cuts the box as inference does (:mod:`vision.preprocess`).
Negatives for the ``not-a-tile`` class are cut around the tiles: table, rack, hands, edges and
half tiles; their centres lie outside every labelled box.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, replace

import cv2
import numpy as np

from mjcam.vision.labels import CLASS_INDEX, NOT_A_TILE

from .readers import LabelledBox, LabelledImage, iou, part_labelled, whole_labels

CONTEXT = 96
SCALE = 1.6


@dataclass
class CropSet:
    """Context crops (N x CONTEXT x CONTEXT x 3, RGB), class ids, box sizes in the crop, groups."""

    images: np.ndarray
    labels: np.ndarray
    sizes: np.ndarray  # (N, 2) box width, height in context pixels
    groups: list[str]  # source photo of each crop

    def __len__(self) -> int:
        return len(self.labels)

    @staticmethod
    def concat(sets: list["CropSet"]) -> "CropSet":
        sets = [s for s in sets if len(s)]
        return CropSet(np.concatenate([s.images for s in sets]), np.concatenate([s.labels for s in sets]),
                       np.concatenate([s.sizes for s in sets]), [g for s in sets for g in s.groups])

    def subset(self, idx) -> "CropSet":
        idx = np.asarray(idx, dtype=np.int64)
        return CropSet(self.images[idx], self.labels[idx], self.sizes[idx], [self.groups[i] for i in idx])

    def save(self, path: str) -> None:
        """Saved whole or not at all (written beside ``path``, then moved there): a run stopped while
        saving leaves no half-written cache for the next run to trip on."""
        part = f"{path}.part.npz"
        np.savez_compressed(part, images=self.images, labels=self.labels, sizes=self.sizes,
                            groups=np.array(self.groups))
        os.replace(part, path)

    @staticmethod
    def load(path: str) -> "CropSet":
        d = np.load(path)
        return CropSet(d["images"], d["labels"], d["sizes"], [str(g) for g in d["groups"]])


def load_rgb(path: str) -> np.ndarray:
    img = cv2.imread(path, cv2.IMREAD_COLOR)
    if img is None:
        raise ValueError(f"cannot read image {path}")
    return cv2.cvtColor(img, cv2.COLOR_BGR2RGB)


def context_crop(image: np.ndarray, box, size: int = CONTEXT) -> tuple[np.ndarray, tuple[float, float]]:
    """The square around ``box`` (replicating the border outside the image) and the box's size in it."""
    x1, y1, x2, y2 = box
    bw, bh = x2 - x1, y2 - y1
    side = SCALE * max(bw, bh)
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    s = size / side
    m = np.array([[s, 0, size / 2 - s * cx], [0, s, size / 2 - s * cy]], np.float32)
    out = cv2.warpAffine(image, m, (size, size), flags=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE)
    return out, (bw * s, bh * s)


def negative_boxes(rec: LabelledImage, n: int, rnd: random.Random) -> list[tuple[float, float, float, float]]:
    """Tile-sized boxes whose centre is outside every labelled box and overlap at most 0.3."""
    if not rec.boxes:
        return []
    sizes = [(b.box[2] - b.box[0], b.box[3] - b.box[1]) for b in rec.boxes]
    out = []
    for _ in range(n * 20):
        if len(out) >= n:
            break
        bw, bh = rnd.choice(sizes)
        scale = rnd.uniform(0.5, 1.6)
        bw, bh = bw * scale, bh * scale
        if rnd.random() < 0.3:  # near a tile: edges, half tiles, the rack beside it
            b = rnd.choice(rec.boxes).box
            cx = rnd.uniform(b[0] - bw, b[2] + bw)
            cy = rnd.uniform(b[1] - bh, b[3] + bh)
        else:
            cx, cy = rnd.uniform(0, rec.width), rnd.uniform(0, rec.height)
        box = (cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2)
        if box[0] < -bw * 0.3 or box[1] < -bh * 0.3 or box[2] > rec.width + bw * 0.3 or box[3] > rec.height + bh * 0.3:
            continue
        if any(b.box[0] <= cx <= b.box[2] and b.box[1] <= cy <= b.box[3] for b in rec.boxes):
            continue
        if max(iou(box, b.box) for b in rec.boxes) > 0.3:
            continue
        out.append(box)
    return out


def flipped_back(rec: LabelledImage) -> LabelledImage:
    """The record of a copy that was mirrored, its boxes mirrored back to match the flipped image."""
    w = rec.width
    boxes = [LabelledBox(b.code, (w - b.box[2], b.box[1], w - b.box[0], b.box[3])) for b in rec.boxes]
    return replace(rec, boxes=boxes)


def load_oriented(rec: LabelledImage, mirrored: frozenset[str] = frozenset()) -> tuple[np.ndarray, LabelledImage]:
    """A labelled photo (RGB) and its record; a copy listed in ``mirrored`` (file names of copies
    flipped left to right) comes back flipped to the right way round, boxes and all."""
    image = load_rgb(rec.path)
    if os.path.basename(rec.path) in mirrored:
        return np.ascontiguousarray(image[:, ::-1]), flipped_back(rec)
    return image, rec


def crops_from_photos(records: list[LabelledImage], negatives_per_tile: float = 0.35,
                      seed: int = 0, mirrored: frozenset[str] = frozenset(), codes=None,
                      context: int = CONTEXT) -> CropSet:
    """Context crops (``context`` pixels square) of every labelled tile of ``records`` (only those
    whose code is in ``codes``, when given) and of negatives around them (none when
    ``negatives_per_tile`` is 0). Photos whose file name is in ``mirrored`` (copies flipped left to
    right) are flipped back first."""
    rnd = random.Random(seed)
    imgs, labels, sizes, groups = [], [], [], []
    for rec in records:
        if not any(codes is None or b.code in codes for b in rec.boxes):
            continue  # (a photo with no labelled tile has no negatives either)
        image, rec = load_oriented(rec, mirrored)
        for b in rec.boxes:
            if codes is None or b.code in codes:
                c, s = context_crop(image, b.box, context)
                imgs.append(c), labels.append(CLASS_INDEX[b.code]), sizes.append(s), groups.append(rec.source)
        if negatives_per_tile > 0:
            for box in negative_boxes(rec, max(1, round(len(rec.boxes) * negatives_per_tile)), rnd):
                c, s = context_crop(image, box, context)
                imgs.append(c), labels.append(CLASS_INDEX[NOT_A_TILE]), sizes.append(s), groups.append(rec.source)
    return pack(imgs, labels, sizes, groups, context)


def drop_tile_like_negatives(crops: CropSet, value: int = 165, saturation: int = 60) -> CropSet:
    """Leave out negatives whose middle is light and weakly coloured: in these photos they are
    mostly unlabelled tiles in the background (wall tiles, bodies), and taught the model that a
    blank white face (a white dragon) is not a tile."""
    neg = CLASS_INDEX[NOT_A_TILE]
    c = crops.images.shape[1]
    mid = crops.images[:, c // 3: 2 * c // 3, c // 3: 2 * c // 3]
    hsv = np.stack([cv2.cvtColor(m, cv2.COLOR_RGB2HSV) for m in mid]) if len(mid) else mid
    tile_like = (hsv[..., 2].mean(axis=(1, 2)) > value) & (hsv[..., 1].mean(axis=(1, 2)) < saturation)
    keep = ~((crops.labels == neg) & tile_like)
    return crops.subset(np.nonzero(keep)[0])


def crops_from_tile_images(items: list[tuple[str, str]], group: str = "", context: int = CONTEXT) -> CropSet:
    """Context crops (``context`` pixels square) of single-tile pictures (the tile fills the picture)."""
    imgs, labels, sizes, groups = [], [], [], []
    for path, code in items:
        image = load_rgb(path)
        h, w = image.shape[:2]
        c, s = context_crop(image, (0, 0, w, h), context)
        imgs.append(c), labels.append(CLASS_INDEX[code]), sizes.append(s), groups.append(group or path)
    return pack(imgs, labels, sizes, groups, context)


def pack(imgs, labels, sizes, groups, context: int = CONTEXT) -> CropSet:
    """A CropSet from lists of context crops, class ids, box sizes and groups (may be empty)."""
    if not imgs:
        return CropSet(np.zeros((0, context, context, 3), np.uint8), np.zeros(0, np.int64),
                       np.zeros((0, 2), np.float32), [])
    return CropSet(np.stack(imgs).astype(np.uint8), np.array(labels, np.int64),
                   np.array(sizes, np.float32), list(groups))


def grown_by() -> str:
    """The shipped detector's digest (12 characters), whose boxes grow labels of part of a tile to
    whole tiles (:func:`found_tiles`): what everything made from grown labels is kept under, so
    that nothing made with another detector's boxes is read again."""
    from mjcam.models.registry import SHIPPED

    return SHIPPED["detector"].sha256[:12]


def found_tiles(records: list, work: str) -> dict[str, list]:
    """The boxes the shipped detector draws round whole tiles in those of ``records``' photos that
    hold a label of part of a tile (``datasets.readers.part_labelled``), by file name; cached in
    ``work`` under the detector's digest (:func:`grown_by`)."""
    import json

    from mjcam.models.registry import SHIPPED
    from mjcam.vision.locate import LearnedProposer

    shipped = SHIPPED["detector"]
    file = os.path.join(work, f"found-tiles-{grown_by()}.json")
    found = {}
    if os.path.exists(file):
        with open(file) as fh:
            found = json.load(fh)
    todo = [r for r in records if os.path.basename(r.path) not in found
            and any(part_labelled(r.path, b.code) for b in r.boxes)]
    if todo:
        detector = LearnedProposer(shipped.path)  # (not MJCAM_DETECTOR's: the boxes are kept as the shipped one's)
        for k, r in enumerate(todo):
            found[os.path.basename(r.path)] = [list(p.box) for p in detector(load_rgb(r.path))]
            if k % 100 == 99:
                print(f"found the tiles of {k + 1} of {len(todo)} photos", flush=True)
        os.makedirs(work, exist_ok=True)
        with open(file + ".part", "w") as fh:
            json.dump(found, fh)
        os.replace(file + ".part", file)
    return found


def whole_tiled(records: list, work: str) -> list:
    """``records`` with each label of part of a tile replaced by the whole tile's box as the
    shipped detector draws it (``datasets.readers.whole_labels``; where none matches, as
    labelled): the recogniser hands the classifier whole tiles, so that it learns, is tuned and is
    judged on whole tiles too."""
    found = found_tiles(records, work)
    out, n, parts = [], 0, 0
    for r in records:
        if os.path.basename(r.path) in found:
            r, k = whole_labels(r, found[os.path.basename(r.path)])
            n += k
            parts += sum(part_labelled(r.path, b.code) for b in r.boxes)
        out.append(r)
    print(f"labels of part of a tile: {n} of {parts} grown to the whole tile", flush=True)
    return out
