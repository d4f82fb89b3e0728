"""models.evaluate's reading of a photo as the recogniser hands it to the classifier."""

from types import SimpleNamespace

import cv2
import numpy as np

from models.evaluate import as_read


class _Recogniser:
    """Stands in for vision.pipeline.Recognizer: says which squeeze its reading kept, and where its
    detector finds tiles."""

    def __init__(self, squeeze, brighten=True, balance=False, tiles=()):
        self.squeeze, self.calls, self.brighten, self.balance, self.tiles = squeeze, 0, brighten, balance, tiles

    def read(self, image):
        self.calls += 1
        return SimpleNamespace(squeeze=self.squeeze)

    def locate(self, image):
        return [SimpleNamespace(box=b) for b in self.tiles]


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
    from mjcam.vision.light import BRIGHT_TO, brightness

    rng = np.random.default_rng(2)
    dim = (rng.random((120, 160, 3)) * 100).astype(np.uint8)
    img, out = as_read(_Recogniser((1.0, 1.0)), dim, [(10, 10, 30, 40)])
    assert abs(brightness(img) - BRIGHT_TO) < 4 and out == [(10, 10, 30, 40)]
    img, _ = as_read(_Recogniser((1.0, 1.0), brighten=False), dim, [(10, 10, 30, 40)])
    assert img is dim


def test_a_colour_cast_is_turned_back_as_the_recogniser_turns_it_back():
    from mjcam.vision.light import FACE

    photo = np.full((60, 90, 3), (40, 90, 30), np.uint8)
    tiles = [(5 + 25 * k, 10, 25 + 25 * k, 40) for k in range(3)]
    for x0, y0, x1, y1 in tiles:
        photo[y0:y1, x0:x1] = (250, 200, 140)  # faces under a warm lamp
    img, out = as_read(_Recogniser((1.0, 1.0), balance=True, tiles=tiles), photo, [tiles[0]])
    face = img[20, 10].astype(float)
    assert out == [tiles[0]]
    assert np.abs(face / face.mean() - FACE / FACE.mean()).max() < 0.03
    img, _ = as_read(_Recogniser((1.0, 1.0), balance=False, tiles=tiles), photo, [tiles[0]])
    assert img is photo
