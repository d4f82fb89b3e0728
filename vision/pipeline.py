"""From a photo to a proposed hand: :class:`Recognizer` runs the stages of :mod:`vision.stages` in
turn — load → find → read → lay out → group → propose — and holds their models, so a process that
reads many photos loads them once.

>>> from mjcam.vision.pipeline import Recognition
>>> Recognition("x.jpg", 10, 10, [], [], None, []).to_json()["tiles"]
[]

A photo stretched out of shape is read as it is and squeezed back (:mod:`vision.stretch`), and the
copy that reads best is kept; each stage's seconds are in ``Recognition.elapse``.
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace

import cv2
import numpy as np

from .classify import TileClassifier, TileLabel
from .locate import BoxRefiner, LearnedProposer, refiner_wanted
from .preprocess import shrink
from .recognition import Recognition, TileRead
from .stages import (DETAIL_SURE, FoundTiles, HandGrouper, HandProposer, LoadedPhoto, PhotoLoader, ReadTiles,
                     RecognizerConfig, Stages, TileFinder, TileLayout, TileReader, detail)
from .stretch import squeezed, sureness
from .up import UpProbe

__all__ = ["Recognition", "Recognizer", "RecognizerConfig", "TileRead", "default_recognizer", "recognize"]

#: A picture of one tile (``mjcam classify``) may show more than the tile: a phone photo of a tile
#: on the table. The tile found nearest its centre (no further off it than ``ONE_TILE_CENTRE`` of
#: its own size) is read as well, and its reading is kept where its likeliest tile is likelier by
#: ``ONE_TILE_MARGIN`` than the whole picture's, and either the whole picture's is under
#: ``ONE_TILE_UNSURE`` or the detector is at least ``ONE_TILE_FOUND`` sure of the tile it found
#: (in a tight crop it finds parts of the engraving, less surely). Chosen on held-out photos and
#: unseen tile art: models/EXPERIMENTS.md.
ONE_TILE_CENTRE, ONE_TILE_MARGIN, ONE_TILE_UNSURE, ONE_TILE_FOUND = 0.5, 0.2, 0.35, 0.45
ONE_TILE_LOOSE = 0.5  # a found tile covering less of the picture than this: the picture is framed loosely
#: A copy squeezed further is kept over a less squeezed one only when its reading is surer by more
#: than this share: an over-squeezed strip reads about as surely as one squeezed right.
SQUEEZE_MARGIN = 0.01


class Recognizer:
    """``recognizer(path)`` -> :class:`Recognition`; ``recognizer.read(image)`` for an RGB array;
    ``recognizer.read_one(image)`` for a picture of one tile.

    The models: ``classifier`` (None: the shipped one); ``proposers``, each ``proposer(image)`` ->
    proposals, their boxes pooled (None: the shipped detector); ``refiner``, the box refiner that
    redraws the detector's boxes (``True``: ``MJCAM_REFINER``'s file where set, else the shipped
    one, none where that is ``none``; ``None`` or ``False``: the detector's boxes as they come);
    ``up``, the which-way-up probe that tells a hand photographed from across the table or turned a
    quarter which way round to read (``True``: the shipped one; ``None`` or ``False``: the photo's
    own order). The settings: ``config`` (:class:`RecognizerConfig`), any of
    its fields overridden by keyword, e.g. ``Recognizer(fill_grid=False)``."""

    def __init__(self, classifier: TileClassifier | None = None, proposers: list | None = None,
                 refiner: BoxRefiner | None | bool = True, up: UpProbe | None | bool = True,
                 config: RecognizerConfig | None = None, **settings):
        self.config = c = replace(config or RecognizerConfig(), **settings)
        self.stages = Stages(
            load=PhotoLoader(c),
            find=TileFinder(proposers if proposers is not None else [LearnedProposer()],
                            (BoxRefiner() if refiner_wanted() else None) if refiner is True else (refiner or None), c),
            read=TileReader(classifier or TileClassifier(), c),
            lay_out=TileLayout(UpProbe() if up is True else (up or None), c),
            group=HandGrouper(c),
            propose=HandProposer())

    @property
    def classifier(self) -> TileClassifier:
        return self.stages.read.classifier

    @property
    def proposers(self) -> list:
        return self.stages.find.proposers

    @property
    def refiner(self) -> BoxRefiner | None:
        return self.stages.find.refiner

    @property
    def up(self) -> UpProbe | None:
        return self.stages.lay_out.up

    @property
    def work_side(self) -> int:
        return self.config.work_side

    def __call__(self, path: str) -> Recognition:
        return self.load_and_read(path)[1]

    def load_and_read(self, path: str) -> tuple[np.ndarray, Recognition]:
        """The photo as loaded (long side at most ``work_side``) and its reading."""
        loaded = self.stages.load.open(path)
        return loaded.photo, self._recognise(loaded)

    def read(self, image: np.ndarray, full_size: tuple[int, int] | None = None, path: str | None = None,
             decode=None) -> Recognition:
        """The reading of an RGB photo (``full_size``: the original's size, when ``image`` is a
        smaller copy of it: boxes are reported in the original's pixels; the picture at ``path``
        is then decoded again at more pixels where its tiles are small, by ``decode`` —
        :func:`vision.io.load_photo` or a stand-in with its arguments)."""
        return self._recognise(self.stages.load(image, full_size, path, decode))

    def _read_copy(self, image: np.ndarray, loaded: LoadedPhoto, elapse: dict[str, float] | None = None) -> Recognition:
        """The reading of a working copy ``image`` of the ``loaded`` photo, the copy taken to have
        the photo's shape (it may be squeezed along one axis): find, read (small tiles from the photo
        itself, :func:`vision.stages.detail`), lay out, group, propose. Each stage's seconds are added
        to ``elapse``."""
        s, size, path = self.stages, loaded.size, loaded.path
        found = s.find(image)
        t0 = time.perf_counter()
        read = self._read_again(found, loaded)
        # the second look (or the try at one) counts as finding, its reading as reading
        found.elapse += time.perf_counter() - t0 - (read.elapse if read is not None else 0.0)
        if read is None:
            read = s.read(found.image, found.proposals)
        laid = s.lay_out(found.image, read)
        grouped = s.group(laid)
        proposed = s.propose(found, read, laid, grouped, size, path)
        if elapse is not None:
            for name, r in (("find", found), ("read", read), ("lay out", laid), ("group", grouped),
                            ("propose", proposed)):
                elapse[name] = elapse.get(name, 0.0) + r.elapse
        return proposed.recognition

    def _read_again(self, found: FoundTiles, loaded: LoadedPhoto) -> ReadTiles | None:
        """Where the tiles ``found`` on a copy are small and the photo has more pixels
        (:func:`vision.stages.detail`): the tiles found and read again on the photo's own pixels,
        their boxes in the copy's; None where there is no such look to take, or it reads fewer
        than half as many tiles as the copy shows sure ones (the copy is then read as it is)."""
        s = self.stages
        try:
            sharp = detail(found.image, found.proposals, loaded, self.config)
            if sharp is None:
                return None
            again = s.find(sharp.image)
            read = s.read(again.image, again.proposals)
        except (MemoryError, cv2.error):  # (too large a part to look at: the copy is read)
            return None
        sure = sum(p.score >= DETAIL_SURE for p in found.proposals)
        if len(read.tiles) < sure / 2:
            return None
        for r in read.tiles:
            r.proposal = sharp.to_copy(r.proposal)
        return read

    def _recognise(self, loaded: LoadedPhoto) -> Recognition:
        """The surest reading of the loaded photo's copies (as it is, and squeezed back where it
        looks stretched): the most sure tiles in boxes shaped like tiles
        (:func:`vision.stretch.sureness`); the first copy read at least."""
        best, sure, elapse = None, -1.0, {"load": loaded.elapse}
        for fx, fy in loaded.squeezes:
            copy = loaded.image if (fx, fy) == (1.0, 1.0) else squeezed(loaded.image, fx, fy)
            r = self._read_copy(copy, loaded, elapse)
            score = sureness(r.tiles, self.config.low_confidence, (fx, fy))
            if score > max(sure, sure * (1 + SQUEEZE_MARGIN)):
                sure, best = score, r
                if (fx, fy) != (1.0, 1.0):
                    axis = "across" if fx > 1 else "down"
                    r.notes.append(f"the photo looks stretched about {max(fx, fy):g} times {axis} it: "
                                   "read squeezed back")
                    r.squeeze = (float(fx), float(fy))
        if loaded.gain != 1 and best.tiles:  # (of a photo with no tiles in it, nothing to say)
            best.notes.append("the photo is dark: it was brightened to read the tiles")
        best.elapse = elapse
        return best

    def read_one(self, image: np.ndarray) -> tuple[TileLabel, tuple[float, float, float, float] | None]:
        """The tile in a picture of one tile, and its box in the picture's pixels (None: the whole
        picture). The whole picture is read as the tile, and so is the tile found nearest its centre
        (on a copy at most ``work_side`` long); the latter's reading is kept where its likeliest tile
        (``not-a-tile`` aside) is likelier by ``ONE_TILE_MARGIN`` and the whole picture's reading is
        unsure or the detector sure (see ``ONE_TILE_UNSURE``), so a tight crop reads as before and a
        tile photographed with the table around it is read from its own box — always where that box
        covers under ``ONE_TILE_LOOSE`` of the picture, unless its reading is less sure by the margin
        (a loosely framed picture shows the neighbours too, which a classifier may read confidently)."""
        h, w = image.shape[:2]
        boxes: list = [(0.0, 0.0, float(w), float(h))]
        small = shrink(image, self.work_side)
        s = w / small.shape[1]
        near, off, found = None, ONE_TILE_CENTRE, 0.0
        for p in self.stages.find.locate(small):
            x1, y1, x2, y2 = (v * s for v in p.box)
            d = max(abs((x1 + x2 - w) / 2) / max(1e-6, x2 - x1), abs((y1 + y2 - h) / 2) / max(1e-6, y2 - y1))
            if d <= off:
                near, off, found = (x1, y1, x2, y2), d, p.score
        if near is not None:
            boxes.append(near)
        probs = self.classifier.box_probabilities(image, boxes)
        labels = self.classifier.labels(probs)
        tile = [self.stages.read.reading(p).confidence for p in probs]
        if near is not None and tile[1] > tile[0] + ONE_TILE_MARGIN and (
                tile[0] < ONE_TILE_UNSURE or found >= ONE_TILE_FOUND):
            return labels[1], near
        if near is not None and (near[2] - near[0]) * (near[3] - near[1]) < ONE_TILE_LOOSE * w * h \
                and tile[1] >= tile[0] - ONE_TILE_MARGIN:
            return labels[1], near  # framed loosely: the whole picture shows its neighbours too
        return labels[0], None


_default: list[Recognizer] = []
_lock = threading.Lock()


def default_recognizer() -> Recognizer:
    """The process-wide recognizer of the shipped models, made on first use."""
    with _lock:
        if not _default:
            _default.append(Recognizer())
        return _default[0]


def recognize(photo) -> Recognition:
    """Read the hand in a photo (a path, or an RGB array): the content of ``mjcam recognize --json``."""
    r = default_recognizer()
    if isinstance(photo, np.ndarray):
        return r.read(photo)
    return r(str(photo))
