"""Calibrated confidence: the classifier's logits tempered in one place; the grouping, the '?' marks,
the trust rule and the JSON see the calibrated figures, the reading's own decisions the raw ones."""

import os

import numpy as np
import pytest

from mjcam.vision.classify import TEMPERATURES, TileClassifier, tempered
from mjcam.vision.pipeline import Recognizer

SAMPLES = os.path.join(os.path.dirname(__file__), "..", "samples")


def test_tempering_keeps_the_order_and_sharpens_an_under_confident_reader():
    p = np.array([[0.7, 0.2, 0.1], [0.34, 0.33, 0.33]], np.float32)
    q = tempered(p, 0.816)
    assert np.allclose(q.sum(axis=1), 1) and (q.argmax(axis=1) == p.argmax(axis=1)).all()
    assert q[0, 0] > p[0, 0] and q[0, 2] < p[0, 2]
    # a ratio of two classes is raised to the power 1 / T
    assert q[0, 1] / q[0, 0] == pytest.approx((0.2 / 0.7) ** (1 / 0.816), rel=1e-4)
    assert tempered(p, 1.0) is p


def test_the_shipped_classifier_is_calibrated_and_another_is_taken_as_it_comes(tmp_path):
    from mjcam.models import registry

    assert TileClassifier().temperature == TEMPERATURES[registry.SHIPPED["classifier"].sha256]
    other = tmp_path / "mine.onnx"
    other.write_bytes(b"")
    assert TileClassifier(str(other)).temperature == 1.0
    assert TileClassifier(temperature=1.5).temperature == 1.5
    with pytest.raises(ValueError, match="above 0"):
        TileClassifier(temperature=0)


def test_a_reading_reports_calibrated_figures_and_reads_the_same_tiles():
    from mjcam.vision.io import load_image

    image = load_image(os.path.join(SAMPLES, "hand-pungs.jpg"))
    raw = Recognizer(classifier=TileClassifier(temperature=1.0)).read(image)
    cal = Recognizer().read(image)
    assert [t.code for t in cal.tiles] == [t.code for t in raw.tiles] and cal.hand == raw.hand
    assert [t.box for t in cal.tiles] == [t.box for t in raw.tiles]
    t = TileClassifier().temperature
    for a, b in zip(raw.tiles, cal.tiles):
        # the same tile, its figures tempered: surer where it was sure, each alternative's ratio to it ^ (1 / T)
        assert b.confidence >= a.confidence - 1e-6 or a.confidence < 0.5
        for (ca, qa), (cb, qb) in zip(a.alternatives, b.alternatives):
            assert ca == cb and qb / b.confidence == pytest.approx((qa / a.confidence) ** (1 / t), rel=1e-3, abs=1e-9)
    # the '?' marks weigh the calibrated figures: never more tiles marked than on the raw ones here
    assert set(cal.needs_confirmation) <= set(raw.needs_confirmation)


def test_mjcam_classify_reports_calibrated_figures():
    from mjcam.vision.io import load_image

    crop = os.path.join(os.path.dirname(__file__), "fixtures")
    pics = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(crop) for f in fs if f.endswith((".png", ".jpg")))
    if not pics:
        pytest.skip("no tile pictures among the fixtures")
    image = load_image(pics[0])
    raw, cal = TileClassifier(temperature=1.0), TileClassifier()
    a, b = raw.classify_image(image), cal.classify_image(image)
    p = raw.box_probabilities(image, [(0, 0, image.shape[1], image.shape[0])])
    assert a.code == b.code and b.confidence == pytest.approx(float(tempered(p, cal.temperature).max()), rel=1e-5)
