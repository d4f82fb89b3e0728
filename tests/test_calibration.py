"""The confidence-calibration measure (benchmarks/calibration.py) on made-up readers whose truth
is known: the fitted temperature, the tempered probabilities, the reliability table."""

import numpy as np

from benchmarks.calibration import fit_temperature, read_as, reliability, tempered


def _reader(t_true: float, n: int = 3000, seed: int = 1):
    """Probabilities of a reader whose truth follows its logits divided by ``t_true``."""
    rng = np.random.default_rng(seed)
    logits = rng.normal(0, 1, (n, 6)) * 5
    q = np.exp(logits / t_true)
    q /= q.sum(axis=1, keepdims=True)
    truth = np.array([rng.choice(6, p=row) for row in q])
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    return p, truth


def test_the_fitted_temperature_finds_an_over_and_an_under_confident_reader():
    for t_true in (0.7, 2.0):
        p, truth = _reader(t_true)
        assert abs(fit_temperature(p, truth) - t_true) < 0.15 * t_true


def test_tempering_keeps_the_order_and_sums_to_one_and_calibrates():
    p, truth = _reader(2.0, seed=2)
    q = tempered(p, 2.0)
    assert np.allclose(q.sum(axis=1), 1) and (q.argmax(axis=1) == p.argmax(axis=1)).all()
    classes = tuple("abcdef")
    for probs, worse in ((p, True), (q, False)):
        top, conf = read_as(probs, classes)
        _, ece = reliability(conf, (top == truth).astype(float))
        assert (ece > 0.1) == worse  # the raw reader says more than it knows; tempered, it does not


def test_not_a_tile_is_never_the_code_read():
    p = np.array([[0.6, 0.3, 0.1]])
    top, conf = read_as(p, ("1m", "2m", "not-a-tile"))
    assert top.tolist() == [0] and conf.tolist() == [0.6]
    top, conf = read_as(np.array([[0.2, 0.1, 0.7]]), ("1m", "2m", "not-a-tile"))
    assert top.tolist() == [0] and conf.tolist() == [0.2]


def test_a_reliability_row_per_bin_with_its_count():
    rows, ece = reliability(np.array([0.55, 0.65, 0.85, 0.97, 1.0]), np.array([1, 1, 0, 1, 1]), (0.5, 0.8, 0.9, 1.0))
    assert [r[2] for r in rows] == [2, 1, 2] and rows[1][4] == 0.0 and 0 < ece < 1
