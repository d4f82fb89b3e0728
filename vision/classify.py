"""The classification stage: an ONNX tile classifier behind one lazily created session.

The session is made on first use (never at import), under a lock, and shared between threads
(onnxruntime sessions are safe to run concurrently). Labels, input size and normalisation are
read from the model file's metadata, so they travel with the weights.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from mjcam.models import registry

from .layout import lying_up
from .preprocess import TILE_SHAPES, out_of_shape, prepare, to_tensor
from .session import ModelError, OnnxStage

DEFAULT_MODEL = registry.path("classifier")
LOW_CONFIDENCE = 0.80  # below this a tile goes to a person to confirm (on the calibrated figures)
#: a face lying up seen from the seat is read turned a quarter, as a tile lying sideways, and drawn
#: back to a standing tile's shape too where that reading is under this (the classifier's own figure;
#: see TileClassifier.box_probabilities): chosen on the tuning photos (models/EXPERIMENTS.md)
TURNED_SURE = 0.5
#: the shipped classifier's logits are divided by its temperature before its figures are shown or
#: weighed: it is under-confident, and tempered its figures mean what they say — a tile read at c is
#: right at least about c of the time. Fitted on the photos that chose the training epoch, judged on
#: the held-out photos (``python -m benchmarks.calibration``; the model card's reliability table).
#: By the file's sha256: a classifier not listed here (your own, ``MJCAM_CLASSIFIER``, or a new one
#: shipped before it is calibrated) is taken as it comes (1).
TEMPERATURES = {"74b976a90a32fc2343c27b73616dbbb64990674cc8cf98cb32fbc87d20003f8e": 0.816}
# the turned copy of a crop is read only where the first reading's top probability is under this
TURN_BELOW = 0.6


def tempered(p: np.ndarray, t: float) -> np.ndarray:
    """Probability rows ``p`` under temperature ``t``: the logits divided by ``t`` (``p ** (1 / t)``
    made to sum to one again; the order of the classes is kept).

    >>> tempered(np.array([[0.8, 0.2]]), 1.0).round(3).tolist(), tempered(np.array([[0.8, 0.2]]), 0.5).round(3).tolist()
    ([[0.8, 0.2]], [[0.941, 0.059]])
    """
    if t == 1.0:
        return p
    logp = np.log(np.clip(p.astype(np.float64), 1e-12, 1.0)) / t
    logp -= logp.max(axis=-1, keepdims=True)
    e = np.exp(logp)
    return (e / e.sum(axis=-1, keepdims=True)).astype(p.dtype)


@dataclass
class TileLabel:
    code: str
    confidence: float
    alternatives: list[tuple[str, float]] = field(default_factory=list)

    @property
    def low_confidence(self) -> bool:
        return self.confidence < LOW_CONFIDENCE

    def to_json(self) -> dict:
        return {"code": self.code, "confidence": round(self.confidence, 4),
                "alternatives": [{"code": c, "confidence": round(p, 4)} for c, p in self.alternatives]}


class TileClassifier(OnnxStage):
    """``classifier(crops)`` -> one :class:`TileLabel` per crop (crops as prepared by
    :func:`vision.preprocess.prepare`). ``classify_boxes(image, boxes)`` cuts and classifies.

    ``model_path``: the ONNX file (default: ``MJCAM_CLASSIFIER`` where set — a classifier you
    trained on your own tiles — else the shipped one).

    ``turned``: a crop whose top probability is under ``turn_below`` is read again turned half
    round and the two readings averaged (a tile upside down is the same tile; 1: every crop).

    ``temperature``: what :meth:`calibrated` divides the logits by (default: the shipped
    classifier's from ``TEMPERATURES``, 1 for another). :meth:`probabilities` and :meth:`box_probabilities` give
    the classifier's own figures, which the reading's decisions were chosen on; :meth:`labels` and
    the recogniser's reported figures are calibrated."""

    what = "tile classifier"

    def __init__(self, model_path: str | None = None, threads: int | None = None, batch: int = 64,
                 alternatives: int = 3, turned: bool = True, turn_below: float = TURN_BELOW,
                 temperature: float | None = None):
        super().__init__(model_path or os.environ.get("MJCAM_CLASSIFIER") or DEFAULT_MODEL, threads)
        if temperature is None:
            shipped = registry.shipped_model(self.model_path)
            temperature = TEMPERATURES.get(shipped.sha256, 1.0) if shipped else 1.0
        if not temperature > 0:
            raise ValueError(f"the temperature must be above 0, not {temperature}")
        self.temperature = float(temperature)
        self.batch, self.alternatives = batch, alternatives
        self.turned, self.turn_below = turned, turn_below
        self.classes: tuple[str, ...] = ()
        self.input_size = 64
        self.mean = self.std = (0.5, 0.5, 0.5)

    def _configure(self, session, meta: dict) -> None:
        self.classes = tuple(meta["classes"])
        self.input_size = int(meta["input_size"])
        self.mean, self.std = tuple(meta["mean"]), tuple(meta["std"])
        out = session.get_outputs()[0].shape[-1]
        if isinstance(out, int) and out != len(self.classes):
            raise ModelError(f"{self.model_path}: {out} outputs but {len(self.classes)} labels")

    def probabilities(self, crops: np.ndarray) -> np.ndarray:
        """Softmax probabilities (N, classes) for N prepared crops (N, S, S, 3) uint8 RGB (the
        turned copy read too where unsure)."""
        sess = self.session
        if len(crops) == 0:
            return np.zeros((0, len(self.classes)), np.float32)
        name = sess.get_inputs()[0].name

        def softmax(x: np.ndarray) -> np.ndarray:
            logits = sess.run(None, {name: to_tensor(x, self.mean, self.std)})[0]
            e = np.exp(logits - logits.max(axis=1, keepdims=True))
            return e / e.sum(axis=1, keepdims=True)

        below = self.turn_below if self.turned else 0.0  # (no top probability is under 0)
        outs = []
        for i in range(0, len(crops), self.batch):
            chunk = crops[i:i + self.batch]
            if below >= 1:  # a tile upside down is the same tile: read both ways round, in one run
                p = softmax(np.concatenate([chunk, chunk[:, ::-1, ::-1]]))
                outs.append((p[:len(chunk)] + p[len(chunk):]) / 2)
            else:  # ... only where the first reading is unsure
                p = softmax(chunk)
                unsure = np.nonzero(p.max(axis=1) < below)[0]
                if len(unsure):
                    p[unsure] = (p[unsure] + softmax(np.ascontiguousarray(chunk[unsure, ::-1, ::-1]))) / 2
                outs.append(p)
        return np.concatenate(outs)

    def __call__(self, crops: np.ndarray) -> list[TileLabel]:
        """Labels of prepared crops (already cut; ``classify_boxes`` cuts them from a photo)."""
        return self.labels(self.probabilities(crops))

    def crops(self, image: np.ndarray, boxes, aspects=None) -> np.ndarray:
        """The model's inputs for ``boxes`` of an RGB image (N, S, S, 3), S read from the model;
        with ``aspects`` (one per box, ``None`` for a box left as it is), each crop drawn that many
        times as wide as tall first."""
        self.session  # noqa: B018  (loads input_size from the model)
        if not len(boxes):
            return np.zeros((0, self.input_size, self.input_size, 3), np.uint8)
        aspects = aspects or [None] * len(boxes)
        return np.stack([prepare(image, b, self.input_size, a) for b, a in zip(boxes, aspects)])

    def box_probabilities(self, image: np.ndarray, boxes) -> np.ndarray:
        """Class probabilities (N, classes) of ``boxes`` of an RGB image (a photo's boxes, all of
        them: each is judged against the others). A box with no tile's shape
        (:func:`vision.preprocess.out_of_shape`: a tile in a picture stretched out of shape) is read
        from its crop drawn back to each of ``TILE_SHAPES``, the surer reading kept. A box as wide as
        a tile lying sideways that the photo's other tiles say stands (:func:`vision.layout.lying_up`:
        a face lying up seen from the seat, squashed down the photo — or one of a row of tiles all
        lying sideways, which the boxes cannot tell apart) is read turned a quarter, as a tile lying
        sideways; where that reading is under ``TURNED_SURE``, it is read drawn back to a standing
        tile's shape too, the surer reading kept."""
        odd = [i for i, b in enumerate(boxes) if out_of_shape(b)]
        plain = sorted(set(range(len(boxes))) - set(odd))
        q = self.probabilities(self.crops(image, [boxes[i] for i in plain]))
        p = np.empty((len(boxes), q.shape[1]), q.dtype)
        p[plain] = q
        unsure = [i for i in lying_up(boxes) if p[i].max() < TURNED_SURE]  # (never out of shape: read above)
        if unsure:
            drawn = self.probabilities(self.crops(image, [boxes[i] for i in unsure], [TILE_SHAPES[0]] * len(unsure)))
            for i, qi in zip(unsure, drawn):
                if qi.max() > p[i].max():
                    p[i] = qi
        if not odd:
            return p
        for k, aspect in enumerate(TILE_SHAPES):
            q = self.probabilities(self.crops(image, [boxes[i] for i in odd], [aspect] * len(odd)))
            for i, qi in zip(odd, q):
                if k == 0 or qi.max() > p[i].max():
                    p[i] = qi
        return p

    def calibrated(self, probs: np.ndarray) -> np.ndarray:
        """The classifier's own probability rows (:meth:`probabilities`) as calibrated figures: its
        logits divided by ``temperature`` (the one place the temperature is applied)."""
        return tempered(np.asarray(probs), self.temperature)

    def labels(self, probs: np.ndarray) -> list[TileLabel]:
        """One :class:`TileLabel` per row of class probabilities (the classifier's own): the
        likeliest class and the next, with calibrated figures."""
        out = []
        for p in self.calibrated(probs):
            order = np.argsort(-p)
            top = int(order[0])
            alts = [(self.classes[int(k)], float(p[k])) for k in order[1:1 + self.alternatives]]
            out.append(TileLabel(self.classes[top], float(p[top]), alts))
        return out

    def classify_boxes(self, image: np.ndarray, boxes) -> list[TileLabel]:
        return self.labels(self.box_probabilities(image, boxes))

    def classify_image(self, image: np.ndarray) -> TileLabel:
        """A picture of one tile: the whole picture is the box."""
        h, w = image.shape[:2]
        return self.classify_boxes(image, [(0, 0, w, h)])[0]
