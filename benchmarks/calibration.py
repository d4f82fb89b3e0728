"""How far the tile reader's confidence can be taken at its word: a temperature fitted on photos
held out of training, and a reliability table on the photos the model card's figures come from.

    python -m benchmarks.calibration --data DIR [--bins 0.5 0.8 0.9 0.95 0.99 1] [--work DIR]

Two sets of labelled boxes, read by the shipped classifier as the recogniser hands them over
(``TileClassifier.box_probabilities``), every box of a photo once:

- **fit**: the photos that chose the training epoch (``hk_tune`` and ``rethink_tune`` of
  :mod:`datasets.splits`) — never trained on, and not the photos of the model card's figures.
  The temperature ``T`` is the one (on a fine grid) under which the labelled codes are likeliest:
  each probability vector ``p`` becomes ``p ** (1 / T)`` made to sum to one again, which is the
  logits divided by ``T``.
- **judged**: the model card's held-out photos (HK valid with its mended labels, rethink test,
  the unseen set). For each bin of confidence (the probability of the code read, not-a-tile
  aside): how many tiles, their mean confidence, and how many of them are read right, before and
  after the temperature; and the expected calibration error (the count-weighted gap).

The boxes' probabilities are kept in ``--work`` (one file per set and classifier), so a second
run reads no photo. Flowers and seasons labelled round part of the tile are read as the whole
tile the shipped detector draws round them (``datasets.crops.whole_tiled``), as the recogniser
reads them.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import tempfile
from dataclasses import replace

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINS = (0.0, 0.5, 0.8, 0.9, 0.95, 0.99, 1.0)
GRID = np.exp(np.linspace(np.log(0.5), np.log(4.0), 281))


def tempered(p: np.ndarray, t: float) -> np.ndarray:
    """Probability rows ``p`` under temperature ``t`` (logits divided by ``t``).

    >>> tempered(np.array([[0.8, 0.2]]), 1.0).round(3).tolist()
    [[0.8, 0.2]]
    >>> q = tempered(np.array([[0.8, 0.2]]), 2.0)[0]; bool(0.5 < q[0] < 0.8)
    True
    """
    logp = np.log(np.clip(p, 1e-12, 1.0)) / t
    logp -= logp.max(axis=1, keepdims=True)
    e = np.exp(logp)
    return e / e.sum(axis=1, keepdims=True)


def read_as(p: np.ndarray, classes: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the class read (not-a-tile aside, as the recogniser reads a box) and its probability."""
    from mjcam.vision.labels import NOT_A_TILE

    q = p.copy()
    if NOT_A_TILE in classes:
        q[:, classes.index(NOT_A_TILE)] = -1
    top = q.argmax(axis=1)
    return top, p[np.arange(len(p)), top]


def fit_temperature(p: np.ndarray, target: np.ndarray, grid=GRID) -> float:
    """The temperature on ``grid`` under which the ``target`` classes are likeliest (least NLL).

    >>> rng = np.random.default_rng(0)
    >>> logits = rng.normal(0, 1, (4000, 5)) * 6          # an overconfident reader ...
    >>> truth = np.array([rng.choice(5, p=np.exp(l / 3) / np.exp(l / 3).sum()) for l in logits])
    >>> p = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    >>> 2.6 < fit_temperature(p, truth) < 3.4             # ... whose truth follows logits / 3
    True
    """
    idx = np.arange(len(p))
    logp = np.log(np.clip(p, 1e-12, 1.0))
    best, best_nll = 1.0, np.inf
    for t in grid:
        z = logp / t
        z = z - z.max(axis=1, keepdims=True)
        nll = -(z[idx, target] - np.log(np.exp(z).sum(axis=1))).mean()
        if nll < best_nll:
            best, best_nll = float(t), nll
    return best


def reliability(conf: np.ndarray, right: np.ndarray, bins=BINS) -> tuple[list[tuple], float]:
    """Rows (low, high, count, mean confidence, accuracy) per bin, and the expected calibration
    error (count-weighted |accuracy - mean confidence|).

    >>> rows, ece = reliability(np.array([0.6, 0.7, 0.97, 0.99]), np.array([1, 0, 1, 1]), (0.5, 0.8, 1.0))
    >>> [(n, round(c, 3), a) for _, _, n, c, a in rows], round(ece, 3)
    ([(2, 0.65, 0.5), (2, 0.98, 1.0)], 0.085)
    """
    rows, gap = [], 0.0
    for k, (lo, hi) in enumerate(zip(bins[:-1], bins[1:])):
        sel = (conf >= lo) & ((conf < hi) if k < len(bins) - 2 else (conf <= hi))
        n = int(sel.sum())
        if not n:
            rows.append((lo, hi, 0, float("nan"), float("nan")))
            continue
        c, a = float(conf[sel].mean()), float(right[sel].mean())
        rows.append((lo, hi, n, c, a))
        gap += n * abs(a - c)
    return rows, gap / max(1, len(conf))


def read_boxes(clf, records, cache: str) -> tuple[np.ndarray, list[tuple[str, ...]]]:
    """Probabilities (N, classes) of every labelled tile of ``records`` and their labelled codes,
    from ``cache`` where a run has kept them."""
    from datasets.crops import load_rgb

    if os.path.exists(cache):
        z = np.load(cache, allow_pickle=False)
        return z["p"], [tuple(c.split(",")) for c in z["codes"]]
    probs, codes = [], []
    for r in records:
        tiles = r.tiles()
        if not tiles:
            continue
        probs.append(clf.box_probabilities(load_rgb(r.path), [box for box, _ in tiles]))
        codes += [c for _, c in tiles]
    p = np.concatenate(probs) if probs else np.zeros((0, len(clf.classes)), np.float32)
    np.savez_compressed(cache, p=p, codes=np.array([",".join(c) for c in codes]))
    return p, codes


def table(rows, title: str) -> str:
    out = [title, "| confidence | tiles | mean confidence | read right |", "|---|---:|---:|---:|"]
    for lo, hi, n, c, a in rows:
        if n:
            out.append(f"| {lo:.2f}–{hi:.2f} | {n} | {c:.3f} | {a:.3f} |")
        else:
            out.append(f"| {lo:.2f}–{hi:.2f} | 0 | – | – |")
    return "\n".join(out)


def main(argv=None) -> None:
    from datasets.crops import whole_tiled
    from datasets.readers import mended, roboflow_subset
    from datasets.splits import split
    from mjcam.vision.classify import DEFAULT_MODEL, TileClassifier

    ap = argparse.ArgumentParser(prog="python -m benchmarks.calibration", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"), help="the labelled photos")
    ap.add_argument("--model", default=DEFAULT_MODEL, help="the classifier (default: the shipped one)")
    ap.add_argument("--bins", type=float, nargs="+", default=list(BINS), help="the confidence bins' edges")
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "mjcam-heldout"),
                    help="where the boxes' probabilities and the detector's boxes are kept between runs")
    a = ap.parse_args(argv)
    if not os.path.isdir(a.data):
        raise SystemExit(f"no folder of labelled photos at {a.data} (give it with --data)")
    os.makedirs(a.work, exist_ok=True)
    s = split(a.data)
    s = replace(s, rethink_tune=whole_tiled(s.rethink_tune, a.work), rethink_test=whole_tiled(s.rethink_test, a.work),
                unseen_set=whole_tiled(s.unseen_set, a.work))
    clf = TileClassifier(a.model)
    clf.session  # noqa: B018  (loads the classes)
    tag = hashlib.sha256(open(a.model, "rb").read()).hexdigest()[:12]
    sets = {"fit": s.hk_tune + s.rethink_tune,
            "judged": [r for r in mended(s.hk_valid) if roboflow_subset(r.path) == "hk"] + s.rethink_test + s.unseen_set}
    got = {k: read_boxes(clf, v, os.path.join(a.work, f"calibration-{k}-{tag}.npz")) for k, v in sets.items()}
    index = {c: i for i, c in enumerate(clf.classes)}

    p, codes = got["fit"]
    t = fit_temperature(p, np.array([index[c[0]] for c in codes]))
    print(f"temperature fitted on {len(p)} tiles of {len(sets['fit'])} photos that trained nothing: T = {t:.3f}\n")
    p, codes = got["judged"]
    print(f"judged on {len(p)} tiles of {len(sets['judged'])} held-out photos (HK valid, rethink test, unseen set)\n")
    for name, q in (("as the classifier gives it (T = 1)", p), (f"calibrated (T = {t:.2f})", tempered(p, t))):
        top, conf = read_as(q, clf.classes)
        right = np.array([clf.classes[k] in c for k, c in zip(top, codes)], float)
        rows, ece = reliability(conf, right, a.bins)
        print(table(rows, f"Confidence {name}: expected calibration error {ece:.4f}"))
        print()


if __name__ == "__main__":
    main()
