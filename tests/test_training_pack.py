"""A classifier run carried to another machine: the pack of training crops and tuning tiles, and
one copy of each source photo."""

from types import SimpleNamespace

import numpy as np
import pytest

from datasets.crops import CropSet

TRAIN = "training needs the train extra (pip install -e '.[train]')"


def _crops(n: int, seed: int = 0) -> CropSet:
    rng = np.random.default_rng(seed)
    # smooth pictures (a gradient and a block), as WebP keeps them nearly exactly
    ramp = np.linspace(40, 220, 144, dtype=np.float32)
    images = []
    for k in range(n):
        im = np.empty((144, 144, 3), np.float32)
        im[..., 0], im[..., 1], im[..., 2] = ramp[None, :], ramp[:, None], 60 + 20 * k
        y, x = rng.integers(10, 80, size=2)
        im[y:y + 40, x:x + 40] = rng.integers(0, 256, size=3)
        images.append(im.astype(np.uint8))
    return CropSet(np.stack(images), np.arange(n) % 44, rng.integers(20, 140, size=(n, 2)),
                   [f"photo-{k}.jpg" for k in range(n)])


def test_pack_gives_back_the_crops_labels_sizes_and_tuning_tiles(tmp_path):
    pytest.importorskip("torch", reason=TRAIN)
    from models.fitting import read_pack, write_pack

    crops = _crops(6)
    xs = _crops(3, seed=1).images[:, :96, :96]
    ys = np.array([4, 0, 43])
    path = str(tmp_path / "pack.npz")
    write_pack(path, crops, xs, ys)
    got, gxs, gys = read_pack(path)
    assert got.images.shape == crops.images.shape and gxs.shape == xs.shape
    assert np.array_equal(got.labels, crops.labels) and np.array_equal(got.sizes, crops.sizes)
    assert got.groups == crops.groups and np.array_equal(gys, ys)
    # lossy, but close: every picture within a few grey levels on average
    assert np.abs(got.images.astype(int) - crops.images).mean() < 4
    assert np.abs(gxs.astype(int) - xs).mean() < 3
    assert not list(tmp_path.glob("*.part*"))  # written whole


def test_at_most_keeps_the_first_copies_of_each_source_in_order():
    pytest.importorskip("torch", reason=TRAIN)
    from models.train import at_most

    recs = [SimpleNamespace(source=s, k=k) for k, s in enumerate("aabacbbc")]
    assert [r.k for r in at_most(recs, 1)] == [0, 2, 4]
    assert [r.k for r in at_most(recs, 2)] == [0, 1, 2, 4, 5, 7]
    assert at_most(recs, 0) == recs


def test_packs_without_a_pack_names_the_command_that_makes_it(tmp_path):
    pytest.importorskip("torch", reason=TRAIN)
    from models.train import main

    with pytest.raises(SystemExit) as e:
        main(["--work", str(tmp_path), "--packs", "--glyphs", "60", "--copies-per-photo", "1"])
    assert "--pack-only" in str(e.value) and str(tmp_path) in str(e.value)
