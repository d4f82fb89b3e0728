"""The tile-region stages of vision.locate, each alone: decoding, suppression, the proposer, the box refiner."""

import json
import os

import numpy as np
import pytest

from mjcam.vision.classify import ModelError
from mjcam.vision.locate import (DEFAULT_DETECTOR, BoxRefiner, LearnedProposer, decode, fit, letterbox_photo,
                                 refine_window, suppress)

SAMPLES = os.path.join(os.path.dirname(__file__), "..", "samples")


def _maps(centres, sizes, shape=(24, 32), stride=4):
    heat = np.zeros(shape, np.float32)
    size = np.zeros((2,) + shape, np.float32)
    off = np.zeros((2,) + shape, np.float32)
    for (cx, cy), (w, h) in zip(centres, sizes):
        ix, iy = int(cx / stride), int(cy / stride)
        heat[iy, ix] = 0.9
        if ix + 1 < shape[1]:
            heat[iy, ix + 1] = 0.5  # a shoulder of the same peak: not a second tile
        size[:, iy, ix] = np.log([w / stride, h / stride])
        off[:, iy, ix] = (cx / stride - ix, cy / stride - iy)
    return heat, size, off


def test_decode_finds_each_peak_once_with_its_box():
    heat, size, off = _maps([(41.0, 30.0), (90.0, 50.0)], [(20, 28), (28, 20)])
    boxes, scores = decode(heat, size, off, 4, threshold=0.3)
    assert len(boxes) == 2 and np.allclose(scores, 0.9)
    got = sorted(map(tuple, np.round(boxes, 3)))
    assert got == [(31.0, 16.0, 51.0, 44.0), (76.0, 40.0, 104.0, 60.0)]


def test_decode_threshold_and_empty():
    heat, size, off = _maps([(41.0, 30.0)], [(20, 28)])
    assert len(decode(heat, size, off, 4, threshold=0.95)[0]) == 0
    boxes, scores = decode(np.zeros((8, 8), np.float32), np.zeros((2, 8, 8)), np.zeros((2, 8, 8)), 4)
    assert boxes.shape == (0, 4) and scores.shape == (0,)


def test_suppress_keeps_the_best_of_overlapping_boxes():
    boxes = [(0, 0, 10, 14), (1, 0, 11, 14), (30, 0, 40, 14)]
    assert suppress(boxes, [0.5, 0.9, 0.4]) == [1, 2]
    assert suppress([], []) == []


def test_letterbox_photo_keeps_aspect_and_pads_to_32():
    img = np.full((300, 400, 3), 200, np.uint8)
    out, s = letterbox_photo(img, 384)
    assert s == pytest.approx(0.96) and out.shape == (288, 384, 3)
    assert (out[:288, :384] == 200).all()
    assert fit(100, 1000, 384) == (0.384, 64, 384)


def test_learned_proposer_metadata_and_lazy_session():
    p = LearnedProposer()
    assert p._session is None
    import onnxruntime as ort

    meta = ort.InferenceSession(DEFAULT_DETECTOR, providers=["CPUExecutionProvider"]).get_modelmeta()
    m = meta.custom_metadata_map
    assert json.loads(m["kind"]) == "tile-detector" and json.loads(m["stride"]) == 4
    assert p.side == json.loads(m["input_side"])


def test_learned_proposer_missing_or_wrong_model(tmp_path):
    with pytest.raises(ModelError, match="not found"):
        LearnedProposer(str(tmp_path / "none.onnx")).session
    from mjcam.vision.classify import DEFAULT_MODEL

    with pytest.raises(ModelError, match="no tile detector metadata"):
        LearnedProposer(DEFAULT_MODEL).session


def _detector_meta(**extra) -> dict:
    """The shipped detector's metadata as the stage reads it, with ``extra`` keys (JSON) added."""
    import onnxruntime as ort

    from mjcam.vision.session import _JsonValues

    raw = dict(ort.InferenceSession(DEFAULT_DETECTOR, providers=["CPUExecutionProvider"]).get_modelmeta()
               .custom_metadata_map)
    return _JsonValues({**raw, **{k: json.dumps(v) for k, v in extra.items()}})


def test_search_settings_are_read_and_refused_by_name():
    from mjcam.vision.locate import search_settings

    assert search_settings(" PART_OF = 2 ;AFAR_SIDES=64 96; HAND_MIN=4;") == {
        "PART_OF": 2.0, "AFAR_SIDES": (64, 96), "HAND_MIN": 4}
    assert search_settings("") == {}
    with pytest.raises(ModelError, match="MJCAM_SEARCH: no search setting 'AFAR'.*AFAR_SIDES"):
        search_settings("AFAR=64")
    with pytest.raises(ModelError, match="PART_OF takes a number above 0, not 'big'"):
        search_settings("PART_OF=big")
    with pytest.raises(ModelError, match="HAND_MIN takes a whole number"):
        search_settings("HAND_MIN=2.5")
    with pytest.raises(ModelError, match="AFAR_SIDES takes look sides"):
        search_settings("AFAR_SIDES=8")
    with pytest.raises(ModelError, match="'PART_OF' is not NAME=VALUE"):
        search_settings("PART_OF")


def test_a_detector_file_carries_its_own_search_settings_and_mjcam_search_sets_over_them(monkeypatch):
    monkeypatch.delenv("MJCAM_SEARCH", raising=False)
    p = LearnedProposer()
    p._configure(None, _detector_meta(search={"AFAR_SIDES": [64], "PART_OF": 2, "EXTRA_SIDES": [160]}))
    assert (p.AFAR_SIDES, p.PART_OF, p.extra_sides) == ((64,), 2.0, (160,))
    assert LearnedProposer.PART_OF != 2.0 and LearnedProposer().extra_sides == LearnedProposer.EXTRA_SIDES
    monkeypatch.setenv("MJCAM_SEARCH", "PART_OF=3; EXTRA_SIDES=")
    given = LearnedProposer(extra_sides=(128,))  # sides given to the proposer win over both
    for q in (p, given):
        q._configure(None, _detector_meta(search={"AFAR_SIDES": [64], "PART_OF": 2}))
    assert (p.PART_OF, p.AFAR_SIDES, p.extra_sides) == (3.0, (64,), ())
    assert (given.PART_OF, given.extra_sides) == (3.0, (128,))
    with pytest.raises(ModelError, match="search settings: no search setting 'SIDES'"):
        p._configure(None, _detector_meta(search={"SIDES": [64]}))
    with pytest.raises(ModelError, match="not NAME: VALUE pairs"):
        p._configure(None, _detector_meta(search=[64]))


def test_the_search_looks_with_the_sides_mjcam_search_names(monkeypatch):
    sides = []
    real = LearnedProposer.look

    def look(self, image, side=None):
        sides.append(side)
        return real(self, image, side)

    monkeypatch.setattr(LearnedProposer, "look", look)
    monkeypatch.setenv("MJCAM_SEARCH", "EXTRA_SIDES=160,128")
    p = LearnedProposer(zoom=False)
    p(np.full((300, 400, 3), 120, np.uint8))
    assert sides == [p.side, 160, 128]


def test_learned_proposer_on_a_sample_photo_finds_its_tiles():
    from mjcam.vision.io import load_photo

    sample = os.path.join(os.path.dirname(__file__), "..", "samples", "hand-honours.jpg")
    image, _ = load_photo(sample, 1600)
    props = LearnedProposer()(image)
    keep = suppress([p.box for p in props], [p.score for p in props])
    assert 13 <= len(keep) <= 16  # 14 tiles in a row


def test_looks_at_two_scales_agree_in_photo_pixels_and_are_pooled():
    from datasets.crops import iou
    from mjcam.vision.io import load_photo

    sample = os.path.join(os.path.dirname(__file__), "..", "samples", "hand-honours.jpg")
    image, _ = load_photo(sample, 1600)
    p = LearnedProposer()
    assert p.extra_sides and LearnedProposer(extra_sides=()).extra_sides == ()
    big, _ = p.look(image)
    small, _ = p.look(image, min(p.extra_sides))
    assert len(big) and len(small)
    # both looks report boxes in the photo's pixels: most tiles are found at the same place
    same = sum(max(iou(a, b) for b in small) > 0.5 for a in big)
    assert same >= 0.7 * len(big)
    pooled = [q.box for q in p(image)]
    assert len(pooled) >= max(len(big), len(small)) - 1
    assert all(iou(a, b) <= 0.45 for i, a in enumerate(pooled) for b in pooled[i + 1:])


def test_refine_window_centres_the_box_at_a_fixed_scale():
    img = np.zeros((200, 300, 3), np.uint8)
    img[60:100, 100:130] = 255  # a 30 x 40 white box
    win, centre, side = refine_window(img, (100, 60, 130, 100), 64)
    assert win.shape == (64, 64, 3) and centre == (115.0, 80.0) and side == 80.0  # twice the long side
    # the box fills the middle 24 x 32 window pixels; the rest is black photo
    assert win[18:46, 22:42].min() > 200 and win[:14].max() < 30 and win[:, :18].max() < 30
    # outside the photo the window is grey, not smeared photo
    edge, _, _ = refine_window(img, (0, 0, 20, 20), 64)
    assert (edge[:10, :10] == 114).all()


def test_box_refiner_empty_and_wrong_model(monkeypatch):
    monkeypatch.delenv("MJCAM_REFINER", raising=False)
    img = np.zeros((50, 50, 3), np.uint8)
    refiner = BoxRefiner(DEFAULT_DETECTOR)
    assert refiner._session is None  # made on first use, never at import
    assert refiner(img, []).shape == (0, 4) and refiner._session is None  # no boxes: no model loaded
    with pytest.raises(ModelError, match="no box refiner metadata"):
        BoxRefiner(DEFAULT_DETECTOR).session
    with pytest.raises(ModelError, match="MJCAM_REFINER names a refiner file"):  # none ships
        BoxRefiner()


def test_mjcam_refiner_names_the_refiner_or_none(monkeypatch):
    from mjcam.vision.pipeline import Recognizer

    monkeypatch.delenv("MJCAM_REFINER", raising=False)
    assert Recognizer().refiner is None  # the shipped detector's boxes as they come
    monkeypatch.setenv("MJCAM_REFINER", " None ")
    assert Recognizer().refiner is None
    mine = BoxRefiner(DEFAULT_DETECTOR)
    assert Recognizer(refiner=mine).refiner is mine  # one passed in is used
    monkeypatch.setenv("MJCAM_REFINER", DEFAULT_DETECTOR)  # a file: used, and refused if no refiner
    with pytest.raises(ModelError, match="no box refiner metadata"):
        Recognizer().refiner.session


def test_a_close_up_s_halves_give_way_to_the_tile_seen_from_afar_within_the_margin(monkeypatch):
    # a 4-dot filling the frame: its halves found 0.73 and 0.68 sure, the whole tile from afar 0.62
    whole = np.array([[378, 364, 857, 1383]], np.float32)
    halves = np.array([[386, 873, 833, 1302], [364, 390, 838, 887]], np.float32)
    monkeypatch.setattr(LearnedProposer, "look", lambda self, image, side=None: (whole, np.array([0.62])))
    image = np.zeros((1800, 1210, 3), np.uint8)
    kept = {}
    for search in ("", "WHOLE_MARGIN=0.05", "WHOLE_MARGIN=0.15"):
        monkeypatch.setenv("MJCAM_SEARCH", search)
        p = LearnedProposer()
        p._configure(None, _detector_meta(search={"AFAR_SIDES": [96]}))
        boxes, scores = p.from_afar(image, halves, np.array([0.73, 0.68]))
        kept[search] = sorted(scores.round(2).tolist())
    # surer than the whole by more than the margin, the halves stay (and the whole, overlapping a
    # surer half, goes as its duplicate); within the margin, the halves go and the whole stays
    assert kept[""] == kept["WHOLE_MARGIN=0.05"] == [0.68, 0.73]
    assert kept["WHOLE_MARGIN=0.15"] == [0.62]
