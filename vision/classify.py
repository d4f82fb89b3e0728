"""The classification stage: an ONNX tile classifier behind one lazily created session.

The session is made on first use (never at import), under a lock, and shared between threads
(onnxruntime sessions are safe to run concurrently). Labels, input size and normalisation are
read from the model file's metadata, so they travel with the weights.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field

import numpy as np

from mjcam.models import registry

from .preprocess import TILE_SHAPES, out_of_shape, prepare, to_tensor
from .session import ModelError, OnnxStage

DEFAULT_MODEL = registry.path("classifier")
BONUS_MODEL = registry.path("bonus-reader")
# one network of the classifier file alone (models.ensemble --extract): it reads every crop first,
# and only the crops it is not sure of go to all the networks (MODEL_CARD.md, "A first look")
QUICK_MODEL = registry.path("classifier-quick")
LOW_CONFIDENCE = 0.80  # below this a tile goes to a person to confirm
BONUS_MIN_MASS = 0.2  # the bonus reader looks again at a tile the classifier gives this much bonus probability
OTHER = "other"  # a bonus reader's output for "no flower or season" (readers trained with --other have it)
# the turned copy of a crop is read only where the first reading's top probability is under this
# (chosen on the held-out photos: as many read right as with every crop read both ways, and 0.9;
# MODEL_CARD.md)
TURN_BELOW = 0.6
# a crop the quick network gives at least this top probability keeps its reading (chosen on the
# held-out photos, MODEL_CARD.md)
QUICK_SURE = 0.8


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
    :func:`vision.preprocess.prepare`). ``classify_boxes(image, boxes)`` cuts and classifies,
    with a second look at flowers and seasons by the bonus reader.

    ``bonus``: the :class:`TileClassifier` of the bonus reader (``True``: the shipped one,
    ``None``/``False``: none). It reads a tile at a larger input and shares out, among the
    flowers and seasons, the probability the classifier gives them as a whole (see
    :meth:`box_probabilities`).

    ``quick``: the :class:`TileClassifier` of one of this model's networks alone, which reads every
    crop first; a crop it gives a top probability of at least ``quick_sure`` keeps that reading, the
    rest are read by this model (``None``: the shipped quick network where this is the shipped
    classifier, else none; ``False``: none)."""

    what = "tile classifier"

    def __init__(self, model_path: str | None = None, threads: int | None = None, batch: int = 64,
                 alternatives: int = 3, turned: bool = True, bonus: "TileClassifier | bool | None" = True,
                 turn_below: float = TURN_BELOW, quick: "TileClassifier | bool | None" = None,
                 quick_sure: float = QUICK_SURE):
        super().__init__(model_path or DEFAULT_MODEL, threads)
        self.batch, self.alternatives = batch, alternatives
        self.turned = turned  # also read each crop turned half round, and average
        # ... only the crops whose first reading's top probability is under this (1: every crop)
        self.turn_below = turn_below
        # (the bonus reader reads its few tiles both ways round, as it was chosen)
        self.bonus = (TileClassifier(BONUS_MODEL, threads, batch, alternatives, turned, bonus=None, turn_below=1.0)
                      if bonus is True else (bonus or None))
        if quick is None:
            quick = os.path.abspath(self.model_path) == DEFAULT_MODEL and os.path.exists(QUICK_MODEL)
        self.quick = (TileClassifier(QUICK_MODEL, threads, batch, alternatives, turned=False, bonus=None, quick=False)
                      if quick is True else (quick or None))
        self.quick_sure = quick_sure
        self._quick_checked = False
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
        """Softmax probabilities (N, classes) for N prepared crops (N, S, S, 3) uint8 RGB."""
        if len(crops) == 0:
            self.session  # noqa: B018  (loads the labels)
            return np.zeros((0, len(self.classes)), np.float32)
        if self.quick is None:
            return self._read(crops)
        self._check_quick()
        outs = []
        for i in range(0, len(crops), self.batch):
            chunk = crops[i:i + self.batch]
            p = self.quick.probabilities(chunk)
            rest = np.nonzero(p.max(axis=1) < self.quick_sure)[0]
            if len(rest):
                p[rest] = self._read(np.ascontiguousarray(chunk[rest]))
            outs.append(p)
        return np.concatenate(outs)

    def _check_quick(self) -> None:
        if not self._quick_checked:
            self.session, self.quick.session  # noqa: B018  (loads both models' metadata)
            if (self.quick.classes, self.quick.input_size, self.quick.mean, self.quick.std) != \
                    (self.classes, self.input_size, self.mean, self.std):
                raise ModelError(f"{self.quick.model_path}: labels or input differ from {self.model_path}'s")
            self._quick_checked = True

    def _read(self, crops: np.ndarray) -> np.ndarray:
        """Probabilities of every crop by this model (the turned copy read too where unsure)."""
        sess = self.session
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
        """Labels of prepared crops, by this model alone (the bonus reader needs the photo)."""
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
        """Class probabilities (N, classes) of ``boxes`` of an RGB image. Where the classifier gives
        flowers and seasons together at least ``BONUS_MIN_MASS``, the bonus reader reads the tile
        again: that share is dealt out among them as the reader reads the tile; the other classes
        keep their probabilities. A reader with an ``other`` output also has its say on the share
        itself: it becomes the mean of the classifier's share and the reader's (one less its
        ``other``), and the other classes are scaled to the rest. A box with no tile's shape
        (:func:`vision.preprocess.out_of_shape`: a tile in a picture stretched out of shape) is read
        from its crop drawn back to each of ``TILE_SHAPES``, the surer reading kept, and the bonus
        reader reads it in the shape kept."""
        shapes: list[float | None] = [None] * len(boxes)
        odd = [i for i, b in enumerate(boxes) if out_of_shape(b)]
        if not odd:
            p = self.probabilities(self.crops(image, boxes))
        else:  # no tile's shape (a picture stretched out of shape): read drawn back to each tile shape
            plain = sorted(set(range(len(boxes))) - set(odd))
            q = self.probabilities(self.crops(image, [boxes[i] for i in plain]))
            p = np.empty((len(boxes), q.shape[1]), q.dtype)
            p[plain] = q
            for k, aspect in enumerate(TILE_SHAPES):
                q = self.probabilities(self.crops(image, [boxes[i] for i in odd], [aspect] * len(odd)))
                for i, qi in zip(odd, q):
                    if k == 0 or qi.max() > p[i].max():
                        p[i], shapes[i] = qi, aspect
        if self.bonus is None or not len(p):
            return p
        self.bonus.session  # noqa: B018  (loads the reader's labels)
        names = [c for c in self.bonus.classes if c != OTHER]
        idx = [self.classes.index(c) for c in names]
        mass = p[:, idx].sum(axis=1)
        look = np.nonzero(mass >= BONUS_MIN_MASS)[0]
        if len(look):
            q = self.bonus.probabilities(self.bonus.crops(image, [boxes[int(i)] for i in look],
                                                          [shapes[int(i)] for i in look]))
            share = mass[look]
            if OTHER in self.bonus.classes:
                o = q[:, self.bonus.classes.index(OTHER)]
                q = q[:, [self.bonus.classes.index(c) for c in names]] / np.maximum(1 - o, 1e-6)[:, None]
                share = (share + (1 - o)) / 2
                rest = np.ones(p.shape[1], bool)
                rest[idx] = False
                p[np.ix_(look, rest)] *= ((1 - share) / np.maximum(1 - mass[look], 1e-6))[:, None]
            p[np.ix_(look, idx)] = share[:, None] * q
            p[look] /= p[look].sum(axis=1, keepdims=True)
        return p

    def labels(self, probs: np.ndarray) -> list[TileLabel]:
        """One :class:`TileLabel` per row of class probabilities: the likeliest class and the next."""
        out = []
        for p in probs:
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


def quick_choice(spec: str, threads: int | None = None) -> "TileClassifier | bool | None":
    """The ``quick`` argument of :class:`TileClassifier` from a command line's value: ``auto`` (the
    shipped quick network where the classifier is the shipped one), ``none``, or a model file."""
    if spec == "auto":
        return None
    if spec == "none":
        return False
    return TileClassifier(spec, threads, turned=False, bonus=None, quick=False)


_default: TileClassifier | None = None
_default_lock = threading.Lock()


def default_classifier() -> TileClassifier:
    """The process-wide classifier of the shipped model (created on first call)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = TileClassifier()
        return _default
