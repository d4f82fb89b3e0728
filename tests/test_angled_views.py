"""Training views seen at an angle (``--foreshorten``, ``--tops``) are drawn for tiles only."""

import numpy as np
import pytest

from datasets.crops import CropSet
from mjcam.vision.labels import CLASS_INDEX, NOT_A_TILE


def test_angled_views_leave_not_a_tile_crops_as_before_and_reach_tiles():
    pytest.importorskip("torch", reason="training needs the train extra (pip install -e '.[train]')")
    from models.train import Views

    ctx = np.full((144, 144, 3), 60, np.uint8)
    ctx[42:102, 54:90] = 235
    labels = np.array([CLASS_INDEX[NOT_A_TILE], CLASS_INDEX["5p"]])
    crops = CropSet(np.stack([ctx, ctx]), labels, np.array([[54.0, 90.0], [54.0, 90.0]]), ["a", "b"])
    plain, angled = Views(crops, 64), Views(crops, 64, foreshorten=1.0, tops=1.0)
    for draw in range(4):
        for i in (0, 1):
            (x0, y0), (x1, y1) = plain[(i, draw)], angled[(i, draw)]
            assert y0 == y1 == labels[i]
            assert np.array_equal(x0.numpy(), x1.numpy()) == (i == 0)  # the negative as before, the tile not


def test_tiles_named_unsquashed_are_never_foreshortened_but_still_topped():
    pytest.importorskip("torch", reason="training needs the train extra (pip install -e '.[train]')")
    from models.train import Views

    ctx = np.full((144, 144, 3), 60, np.uint8)
    ctx[42:102, 54:90] = 235
    labels = np.array([CLASS_INDEX["Wd"], CLASS_INDEX["5p"]])
    crops = CropSet(np.stack([ctx, ctx]), labels, np.array([[54.0, 90.0], [54.0, 90.0]]), ["a", "b"])
    plain, squashed = Views(crops, 64), Views(crops, 64, foreshorten=1.0, unsquashed=frozenset({"Wd"}))
    for draw in range(4):
        assert np.array_equal(plain[(0, draw)][0].numpy(), squashed[(0, draw)][0].numpy())  # Wd as before
        assert not np.array_equal(plain[(1, draw)][0].numpy(), squashed[(1, draw)][0].numpy())
