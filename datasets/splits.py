"""Which labelled photos train, which choose the epoch, and which are held out for the figures.

Photos are split by source photo, never by crop, and one whole tile set is held out:

- ``roboflow-hk-chinese/train``: a seeded ``TUNE_SHARE`` of its source photos (every augmented copy
  of a source on the same side) chooses the epoch; the rest trains. ``valid`` is never trained or
  tuned on: it gives the HK figures (its Japanese-style set and screenshots reported apart).
- ``roboflow-rethink-bonus``: the ``home-mj`` photos (and their ``rotated_`` copies) are one tile
  set on one table, held out whole as the *unseen set*. Of the other photos, a seeded
  ``TEST_SHARE`` of the sources is held out for the figures, a ``TUNE_SHARE`` chooses the epoch,
  the rest trains. A ``rotated_`` copy goes wherever its original goes.
- Camerash crops train (their many sets' artwork).

>>> rethink_source("/x/rotated_home-mj-IMG_3176_png.rf.ab.jpg"), is_unseen_set("/x/home-mj-IMG_1.jpg")
('home-mj-IMG_3176_png', True)
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass

from .readers import LabelledImage, held_out_sources, read_yolo, source_of

TUNE_SHARE = 0.1
TEST_SHARE = 0.15
SEED = 0
UNSEEN_SET_PREFIX = "home-mj-"


def rethink_source(path: str) -> str:
    """The source photo of a rethink-bonus picture (a ``rotated_`` copy shares its original's)."""
    src = source_of(path)
    return src[len("rotated_"):] if src.startswith("rotated_") else src


def is_unseen_set(path: str) -> bool:
    return rethink_source(path).startswith(UNSEEN_SET_PREFIX)


@dataclass
class Splits:
    hk_train: list[LabelledImage]
    hk_tune: list[LabelledImage]
    hk_valid: list[LabelledImage]
    rethink_train: list[LabelledImage]
    rethink_tune: list[LabelledImage]
    rethink_test: list[LabelledImage]
    unseen_set: list[LabelledImage]


def _shares(sources: list[str], seed: int) -> tuple[set[str], set[str]]:
    """(test, tune) sources: seeded, disjoint."""
    order = sorted(sources)
    random.Random(seed).shuffle(order)
    n_test, n_tune = round(len(order) * TEST_SHARE), round(len(order) * TUNE_SHARE)
    return set(order[:n_test]), set(order[n_test:n_test + n_tune])


def split(data: str, seed: int = SEED) -> Splits:
    """The splits of the real sets under ``data`` (a folder holding ``roboflow-hk-chinese`` and
    ``roboflow-rethink-bonus``; either may be missing, its lists then empty)."""
    hk = os.path.join(data, "roboflow-hk-chinese")
    hk_train = read_yolo(hk, "train") if os.path.isdir(hk) else []
    hk_valid = read_yolo(hk, "valid") if os.path.isdir(os.path.join(hk, "valid")) else []
    tune = held_out_sources(hk_train, TUNE_SHARE, seed) if hk_train else set()
    rb = os.path.join(data, "roboflow-rethink-bonus")
    rethink = read_yolo(rb, "") if os.path.isdir(rb) else []
    unseen = [r for r in rethink if is_unseen_set(r.path)]
    rest = [r for r in rethink if not is_unseen_set(r.path)]
    test_src, tune_src = _shares(list({rethink_source(r.path) for r in rest}), seed)
    return Splits(
        hk_train=[r for r in hk_train if r.source not in tune],
        hk_tune=[r for r in hk_train if r.source in tune],
        hk_valid=hk_valid,
        rethink_train=[r for r in rest if rethink_source(r.path) not in test_src | tune_src],
        rethink_tune=[r for r in rest if rethink_source(r.path) in tune_src],
        rethink_test=[r for r in rest if rethink_source(r.path) in test_src],
        unseen_set=unseen,
    )
