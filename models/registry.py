"""The shipped models, in one place: each model's file and the sha256 of its bytes.

This module and the ``.onnx`` files beside it are what an installed mjcam carries of ``models/``
(as ``mjcam.models``); the rest of the folder trains the models and runs from a checkout. A
stage that loads a shipped model checks its digest first (:func:`verify`), so a file replaced by
hand or cut short is refused with one line instead of giving quietly different readings. Labels,
input size and normalisation travel inside each file's ONNX metadata. ``MODEL_CARD.md`` lists the
same digests (a test holds the two together).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))


@dataclass(frozen=True)
class Shipped:
    name: str  # what the model does, as the stages call it
    file: str  # beside this module
    sha256: str

    @property
    def path(self) -> str:
        return os.path.join(HERE, self.file)


SHIPPED: dict[str, Shipped] = {m.name: m for m in (
    Shipped("classifier", "tile_classifier.onnx", "74b976a90a32fc2343c27b73616dbbb64990674cc8cf98cb32fbc87d20003f8e"),
    Shipped("detector", "tile_detector.onnx", "4eebec31a4ea77a0829da4a932b02fa82895fe6cd485475c107b5c538a0a4a6e"),
    Shipped("which-way-up", "tile_up.onnx", "7abcf20f14d99433c664aaf8478b52f75094bd76fb0697fc74bddb5aef742cb7"),
)}

_verified: set[str] = set()


def path(name: str) -> str:
    """The file of shipped model ``name``."""
    return SHIPPED[name].path


def sha256(file: str) -> str:
    h = hashlib.sha256()
    with open(file, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def shipped_model(file: str) -> Shipped | None:
    """The registry entry whose file ``file`` is, if any."""
    real = os.path.realpath(file)
    return next((m for m in SHIPPED.values() if os.path.realpath(m.path) == real), None)


def verify(file: str) -> str | None:
    """None when ``file`` is not a shipped model or its bytes are the registered ones (checked
    once a process); else a one-line reason to refuse it."""
    m = shipped_model(file)
    if m is None or m.file in _verified or not os.path.exists(file):
        return None
    if sha256(file) != m.sha256:
        return (f"{file} is not the {m.name} model this mjcam ships (its sha256 differs): "
                "reinstall mjcam, or pass your own model explicitly")
    _verified.add(m.file)
    return None
