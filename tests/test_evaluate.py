"""models.evaluate's reading of a photo as the recogniser hands it to the classifier."""

from types import SimpleNamespace

import cv2
import numpy as np

from models.evaluate import as_read


class _Recogniser:
    """Stands in for vision.pipeline.Recognizer: says which squeeze its reading kept."""

    def __init__(self, squeeze, brighten=True):
        self.squeeze, self.calls, self.brighten = squeeze, 0, brighten

    def read(self, image):
        self.calls += 1
        return SimpleNamespace(squeeze=self.squeeze)


def test_a_photo_as_taken_is_read_as_it_is_without_asking_the_recogniser():
    rng = np.random.default_rng(0)
    photo = (rng.random((120, 160, 3)) * 255).astype(np.uint8)
    boxes = [(10, 10, 30, 40)]
    rec = _Recogniser((4.0, 1.0))
    img, out = as_read(rec, photo, boxes)
    assert img is photo and out == boxes and rec.calls == 0


def test_a_stretched_photo_is_squeezed_back_as_the_recogniser_chose_boxes_and_all():
    rng = np.random.default_rng(1)
    noise = (rng.random((64, 64, 3)) * 255).astype(np.uint8)
    wide = cv2.resize(noise, (640, 64), interpolation=cv2.INTER_LINEAR)  # stretched ten times across
    boxes = [(100, 8, 180, 56), (400, 0, 640, 64)]
    img, out = as_read(_Recogniser((8.0, 1.0)), wide, boxes)
    assert img.shape[:2] == (64, 80)
    np.testing.assert_allclose(out, [(12.5, 8, 22.5, 56), (50, 0, 80, 64)])
    # the recogniser may still keep its reading as it is: then nothing is squeezed
    img, out = as_read(_Recogniser((1.0, 1.0)), wide, boxes)
    assert img is wide and out == boxes


def test_a_dim_photo_is_brightened_as_the_recogniser_brightens_it():
    from vision.light import BRIGHT_TO, brightness

    rng = np.random.default_rng(2)
    dim = (rng.random((120, 160, 3)) * 100).astype(np.uint8)
    img, out = as_read(_Recogniser((1.0, 1.0)), dim, [(10, 10, 30, 40)])
    assert abs(brightness(img) - BRIGHT_TO) < 4 and out == [(10, 10, 30, 40)]
    img, _ = as_read(_Recogniser((1.0, 1.0), brighten=False), dim, [(10, 10, 30, 40)])
    assert img is dim
