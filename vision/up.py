"""Which way up a hand's tiles stand: the which-way-up probe (``models/tile_up.onnx``, trained by
``models.which_way_up``) behind one lazily created session.

The tile classifier reads a tile the same either way up, so it cannot tell a hand photographed
from the player's seat from one photographed across the table, or a photo turned a quarter one
way from one turned the other. The probe can, tile by tile; summed over a hand, its log-odds say
in which order to read the hand."""

from __future__ import annotations


import numpy as np

from mjcam.models import registry

from .preprocess import prepare, to_tensor
from .session import OnnxStage

DEFAULT_UP_MODEL = registry.path("which-way-up")


class UpProbe(OnnxStage):
    """``probe.down_log_odds(image, boxes)`` -> the evidence (a sum of log-odds) that the tiles in
    ``boxes``, cut as the classifier cuts them (a wide box turned a quarter clockwise), stand
    upside down; negative where they stand the right way up."""

    what = "which-way-up probe"

    def __init__(self, model_path: str | None = None, threads: int | None = None):
        super().__init__(model_path or DEFAULT_UP_MODEL, threads)
        self.meta: dict = {}

    def _configure(self, session, meta: dict) -> None:
        self.meta = {k: meta[k] for k in ("kind", "classes", "input_size", "mean", "std", "clip")}
        if self.meta["kind"] != "tile-up" or list(self.meta["classes"]) != ["up", "down"]:
            raise ValueError("not a which-way-up probe")

    def tile_log_odds(self, image: np.ndarray, boxes) -> np.ndarray:
        """Each tile's own evidence: log P(down) - log P(up), clipped to the model's ``clip``."""
        if not len(boxes):
            return np.zeros(0)
        sess = self.session
        size = int(self.meta["input_size"])
        xs = np.stack([prepare(image, b, size) for b in boxes])
        logits = sess.run(None, {sess.get_inputs()[0].name: to_tensor(xs, self.meta["mean"], self.meta["std"])})[0]
        clip = float(self.meta["clip"])
        # of two classes, log P(down) - log P(up) is the difference of their logits
        return np.clip(logits[:, 1].astype(np.float64) - logits[:, 0], -clip, clip)

    def down_log_odds(self, image: np.ndarray, boxes) -> float:
        return float(self.tile_log_odds(image, boxes).sum())
