"""The 12 MP timing benchmark's own inputs (benchmarks/twelve_mp): settings to compare and photos
named, each refused in one line; and the decode timer it wraps round the loader."""

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
