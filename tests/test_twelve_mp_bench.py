"""The 12 MP timing benchmark's own inputs (benchmarks/twelve_mp): settings to compare and photos
named, each refused in one line; and the decode timer it wraps round the loader."""

import os

import numpy as np
import pytest

from benchmarks import twelve_mp


def test_compare_settings_are_read_as_the_config_types_them():
    assert twelve_mp._setting("work_side=1200") == ("work_side", 1200)
    assert twelve_mp._setting("detail_below=50.5") == ("detail_below", 50.5)
    assert twelve_mp._setting("brighten=no") == ("brighten", False)
    assert twelve_mp._setting("balance=true") == ("balance", True)


@pytest.mark.parametrize("text, said", [("nope=1", "NAME one of"), ("work_side", "NAME one of"),
                                        ("work_side=big", "takes a int, not 'big'")])
def test_a_bad_setting_is_one_line(text, said):
    with pytest.raises(SystemExit) as e:
        twelve_mp._setting(text)
    assert said in str(e.value) and "\n" not in str(e.value)


def test_a_missing_photo_is_one_line(tmp_path):
    with pytest.raises(SystemExit) as e:
        twelve_mp.main([str(tmp_path / "none.jpg"), "--no-peer", "--rounds", "1"])
    assert str(e.value) == f"{tmp_path / 'none.jpg'}: no such file"


def test_the_decode_timer_counts_the_loaders_time_and_puts_it_back(tmp_path):
    import cv2

    import mjcam.vision.stages as stages

    path = str(tmp_path / "p.jpg")
    cv2.imwrite(path, np.full((40, 60, 3), 128, np.uint8))
    before = stages.load_photo
    timer = twelve_mp._DecodeTimer()
    try:
        assert stages.load_photo is timer
        arr, size = stages.load_photo(path, 30)
        assert size == (60, 40) and arr.shape == (20, 30, 3) and timer.seconds > 0
    finally:
        timer.close()
    assert stages.load_photo is before


def test_grained_photos_are_the_same_pictures_with_a_sensors_grain_and_larger_files(tmp_path):
    from PIL import Image

    path = str(tmp_path / "smooth.jpg")
    Image.fromarray(np.tile(np.linspace(60, 200, 200, dtype=np.uint8), (150, 1))[..., None].repeat(3, 2)).save(
        path, quality=92)
    out = twelve_mp.grained([path], str(tmp_path), 6.0)
    (tmp_path / "again").mkdir()
    again = twelve_mp.grained([path], str(tmp_path / "again"), 6.0)
    a, b = (np.asarray(Image.open(p), np.float32) for p in (path, out[0]))
    assert a.shape == b.shape and abs(float((b - a).mean())) < 1.0 and 3.0 < float((b - a).std()) < 9.0
    assert os.path.getsize(out[0]) > 2 * os.path.getsize(path)
    assert np.array_equal(np.asarray(Image.open(again[0])), np.asarray(Image.open(out[0])))  # seeded
