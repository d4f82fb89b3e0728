"""The recogniser's stages, in the order they run: load → find → read → lay out → group → propose.

Each stage is a small object, called with what the stages before it gave, that returns one typed
result (a dataclass) carrying the seconds it took (``elapse``). :class:`RecognizerConfig` holds
every setting; :class:`vision.pipeline.Recognizer` wires the stages together, so a test can run
one alone on what it would be given (the grouping needs no model at all).

Images are RGB uint8 arrays (H, W, 3). Boxes ``(x1, y1, x2, y2)`` are pixels of the copy of the
photo being read until :class:`HandProposer` scales them to the photo's own pixels.

>>> from mjcam.vision.group import TileObs
>>> row = [TileObs((31 * i, 0, 31 * i + 30, 40), c) for i, c in enumerate("1m 2m 3m".split())]
>>> HandGrouper(RecognizerConfig())(LaidOutTiles(row, wide=False, down=None)).guess.hand
'12m +3m'
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from mjcam.scoring.tiles import DRAGONS

from .classify import LOW_CONFIDENCE, TileClassifier
from .group import MeldGrouper, MeldGuess, TileObs, hand_strays_too_large, reading_order
from .io import ImageError, load_photo
from .labels import BACK, NOT_A_TILE
from .layout import (AWAY, CUT, DOUBTED, FRAME_NOTES, ODD, TOPS, UNSURE_NOTES, UP_MIN_TILES, cut_off, hand_frame,
                     holes, orientations, outlined, photo_order, read_twice_out, reordered, set_apart, shows_table,
                     spanners_out, straddlers_out, up_decision, up_sure)
from .light import balanced, brightened, relit
from .locate import WORK_SIDE, BoxRefiner, Proposal, suppress
from .preprocess import shrink
from .recognition import Recognition, TileRead
from .stretch import stretches
from .up import UpProbe

WHITE = DRAGONS[2]  # a blank white dragon looks like plain cloth: see TileReader


@dataclass(frozen=True)
class RecognizerConfig:
    """The recogniser's settings, stage by stage (``Recognizer(config=..., **overrides)``)."""

    #: load: a photo is read on a copy whose long side is at most this many pixels
    work_side: int = WORK_SIDE
    #: load: a dim photo is read brightened (:func:`vision.light.brightened`)
    brighten: bool = True
    #: load: a photo stretched out of shape is read squeezed back as well (:func:`vision.stretch.stretches`)
    unstretch: bool = True
    #: find: a colour cast the tile faces show is turned back and the photo looked at again
    #: (:func:`vision.light.balanced`; the recogniser's card, "The cast turned back, judged again")
    balance: bool = True
    #: find: proposals overlapping this much (IoU) are one
    proposal_iou: float = 0.6
    #: read: a proposal the classifier calls not-a-tile with at least ``drop_not_a_tile`` is dropped,
    #: unless the detector is ``sure_tile`` sure it is a tile and the classifier under ``sure_not_a_tile``
    drop_not_a_tile: float = 0.5
    sure_tile: float = 0.6
    sure_not_a_tile: float = 0.85
    #: read: two tiles whose cores (``duplicate_core`` of their sides, see :func:`vision.locate.suppress`)
    #: overlap ``duplicate_iou`` are one tile read twice (a slanted row's tiles stay apart)
    duplicate_iou: float = 0.25
    duplicate_core: float = 0.6
    #: read: the one-tile gaps of rows (:func:`vision.layout.row_gaps`) are read, and with
    #: ``fill_grid`` the missing cells of a grid (:func:`vision.layout.grid_gaps`) ...
    fill_gaps: bool = True
    fill_grid: bool = True
    #: ... and kept as a tile where the classifier says not-a-tile below ``gap_max_not`` and a tile
    #: at ``gap_min_conf`` or more; the tile's proposal score is then ``gap_score``
    gap_max_not: float = 0.3
    gap_min_conf: float = 0.6
    gap_score: float = 0.5
    #: find and read: where the sure tiles' median long side in the working copy is under
    #: ``detail_below`` pixels and the photo has more pixels than the copy, the tiles are found and
    #: read again on the part of the photo round them, zoomed so they measure about ``detail_to``
    #: (as far as the photo has the pixels): a whole-table shot read from every pixel the camera took
    detail_below: float = 64.0
    detail_to: float = 80.0
    #: lay out and group: a tile read below this goes to a person to confirm ...
    low_confidence: float = LOW_CONFIDENCE
    #: ... and so does one the classifier half thinks is no tile at all, however sure its code
    doubtful_not_a_tile: float = 0.25
    #: lay out and group: a tile neither the detector nor the classifier is this sure of, and a
    #: tile cut off by the photo's edge read as blank or under it, are left out of the hand, listed
    #: with the strays (:func:`vision.layout.set_apart`); 0: none is. (A tile cut off by the edge
    #: and kept goes to a person to confirm either way.)
    doubtful_tile: float = 0.5


def timed(call):
    """A stage's ``__call__`` whose result's ``elapse`` is set to the seconds it took."""

    @functools.wraps(call)
    def run(*args, **kwargs):
        t0 = time.perf_counter()
        out = call(*args, **kwargs)
        out.elapse = time.perf_counter() - t0
        return out

    return run


# ---------------------------------------------------------------- load

@dataclass
class LoadedPhoto:
    photo: np.ndarray  # as decoded (a path's photo at most ``work_side`` long): what ``--annotate`` draws on
    image: np.ndarray  # the working copy: at most ``work_side`` long, brightened where dim
    size: tuple[int, int]  # the photo's own width and height, which boxes are reported in
    path: str | None
    gain: float  # how many times as bright the working copy is
    squeezes: list[tuple[float, float]]  # the copies to read, squeezed (across, down); (1, 1): as it is
    elapse: float = 0.0
    #: the photo with a long side of at least the pixels asked for, as far as it has them (None: only
    #: ``photo``), and its largest size (width, height)
    sharper: Callable[[int], np.ndarray] | None = field(default=None, repr=False)
    largest: tuple[int, int] = (0, 0)


class PhotoLoader:
    """``loader(image, size, path)`` (an RGB array; ``size``: the original's, when ``image`` is a
    smaller copy of it) or ``loader.open(path)`` -> :class:`LoadedPhoto`. A photo surely stretched
    out of shape is not read as it is, only squeezed back."""

    def __init__(self, config: RecognizerConfig):
        self.config = config

    def open(self, path: str) -> LoadedPhoto:
        t0 = time.perf_counter()
        photo, size = load_photo(path, self.config.work_side)
        loaded = self(photo, size, path)
        loaded.elapse = time.perf_counter() - t0
        return loaded

    @timed
    def __call__(self, photo: np.ndarray, size: tuple[int, int] | None = None,
                 path: str | None = None, decode: Callable | None = None) -> LoadedPhoto:
        """``photo`` (``size``: the photo's own, where ``photo`` is a smaller copy of the picture
        at ``path``, which ``decode`` — :func:`vision.io.load_photo` or a stand-in with its
        arguments — decodes again at more pixels where small tiles ask for them)."""
        h, w = photo.shape[:2]
        image = shrink(photo, self.config.work_side)
        gain = 1.0
        if self.config.brighten:
            image, gain = brightened(image)
        factors, surely = stretches(image) if self.config.unstretch else ([], False)
        squeezes = ([] if surely else [(1.0, 1.0)]) + factors
        sharper, largest = None, (w, h)
        if path and size and max(size) > max(h, w):
            at = functools.partial(_photo_at, path, size, decode or load_photo)
            sharper, largest = functools.lru_cache(maxsize=1)(at), size  # (decoded once for all squeezed copies)
        elif max(h, w) > max(image.shape[:2]):
            sharper = lambda side: photo  # noqa: E731  (the photo as given has more pixels than the copy)
        return LoadedPhoto(photo, image, size or (w, h), path, gain, squeezes, sharper=sharper, largest=largest)


def _photo_at(path: str, size: tuple[int, int], decode: Callable, side: int) -> np.ndarray:
    """The photo at ``path`` (``size`` its width and height) with a long side of at least ``side``
    pixels: at its full size or the half, quarter or eighth a JPEG decodes to directly, the least of
    those that is large enough (no further scaling); ``decode``: :func:`vision.io.load_photo` or a
    stand-in with its arguments."""
    long = max(size)
    for k in (8, 4, 2):
        if long // k >= side:
            return decode(path, None, k)[0]
    return decode(path, None, 1)[0]


@dataclass
class Detail:
    """Part of the photo at more pixels than the working copy, brightened as the copy is: where
    small tiles are found and read. A box in the copy's pixels is ``(box - origin) * zoom`` in
    ``image``'s."""

    image: np.ndarray
    origin: tuple[float, float]
    zoom: float

    def to_copy(self, proposal: Proposal) -> Proposal:
        """A proposal on ``image`` with its box in the copy's pixels."""
        (x0, y0), k, b = self.origin, self.zoom, proposal.box
        return replace(proposal, box=(b[0] / k + x0, b[1] / k + y0, b[2] / k + x0, b[3] / k + y0))


#: the detector's boxes at least this sure (``DETAIL_FEWEST`` of them at least) give the tiles'
#: size that decides on looking again on the photo's pixels ...
DETAIL_SURE, DETAIL_FEWEST = 0.5, 3
DETAIL_LEAST = 1.25  # ... which is done only where it gives the tiles at least this many times the pixels
DETAIL_MOST = 6000  # the part looked at is at most this many pixels long (memory)


def detail(copy: np.ndarray, proposals: list, loaded: LoadedPhoto, config: RecognizerConfig) -> Detail | None:
    """Where the tiles the working copy ``copy`` shows are small (``config.detail_below``) and the
    photo has more pixels: the part of the photo round the ``proposals`` at more pixels (``copy`` may
    be squeezed from the photo: each axis is scaled on its own), brightened as the copy; None
    otherwise."""
    if loaded.sharper is None or not proposals:
        return None
    sure = [p.box for p in proposals if p.score >= DETAIL_SURE]
    if len(sure) < DETAIL_FEWEST:
        return None
    tile = float(np.median([max(b[2] - b[0], b[3] - b[1]) for b in sure]))
    if tile >= config.detail_below:
        return None
    h, w = copy.shape[:2]
    W, H = loaded.largest
    k = min(config.detail_to / max(tile, 1.0), W / w, H / h, DETAIL_MOST / max(w, h))
    if k < DETAIL_LEAST:
        return None
    boxes = np.array([p.box for p in proposals], np.float64)
    x0, y0 = max(0, math.floor(boxes[:, 0].min() - tile)), max(0, math.floor(boxes[:, 1].min() - tile))
    x1, y1 = min(w, math.ceil(boxes[:, 2].max() + tile)), min(h, math.ceil(boxes[:, 3].max() + tile))
    if x1 <= x0 or y1 <= y0:
        return None
    try:
        photo = loaded.sharper(math.ceil(k * max(W, H) * max(w / W, h / H)))
        ph, pw = photo.shape[:2]
        sx, sy = pw / w, ph / h
        k = min(k, sx, sy)
        if k < DETAIL_LEAST:
            return None
        part = photo[math.floor(y0 * sy):math.ceil(y1 * sy), math.floor(x0 * sx):math.ceil(x1 * sx)]
        size = (max(1, round((x1 - x0) * k)), max(1, round((y1 - y0) * k)))
        grow = size[0] > part.shape[1]
        part = cv2.resize(part, size, interpolation=cv2.INTER_LINEAR if grow else cv2.INTER_AREA)
        if loaded.gain != 1:
            part = relit(part, (loaded.gain,) * 3)
    except (ImageError, MemoryError, cv2.error):  # (the photo cannot be had at more pixels: the copy is read)
        return None
    return Detail(part, (float(x0), float(y0)), k)


# ---------------------------------------------------------------- find

@dataclass
class FoundTiles:
    image: np.ndarray  # the copy looked at, its colour cast turned back where it showed one
    proposals: list[Proposal]
    gains: np.ndarray  # each channel's gain that turned the cast back (all 1: none)
    elapse: float = 0.0


class TileFinder:
    """``finder(image)`` -> :class:`FoundTiles`: every proposer's boxes (the detector's redrawn by
    the box refiner), near-duplicates removed; with ``balance``, a colour cast judged from the
    boxes turned back and the photo looked at again."""

    def __init__(self, proposers: list, refiner: BoxRefiner | None, config: RecognizerConfig):
        self.proposers, self.refiner, self.config = proposers, refiner, config

    def locate(self, image: np.ndarray) -> list[Proposal]:
        """All proposals, the detector's boxes redrawn by the box refiner, near-duplicates removed
        (OpenCV NMS)."""
        props = [p for proposer in self.proposers for p in proposer(image)]
        learned = [i for i, p in enumerate(props) if p.source == "learned"]
        if self.refiner is not None and learned:
            boxes = self.refiner(image, [props[i].box for i in learned])
            for i, b in zip(learned, boxes):
                if b[2] - b[0] >= 2 and b[3] - b[1] >= 2:
                    props[i] = Proposal(tuple(float(v) for v in b), props[i].score, props[i].source)
        keep = suppress([p.box for p in props], [p.score for p in props], iou=self.config.proposal_iou)
        return [props[k] for k in keep]

    @timed
    def __call__(self, image: np.ndarray) -> FoundTiles:
        props = self.locate(image)
        gains = np.ones(3)
        if self.config.balance:
            image, gains = balanced(image, [p.box for p in props])
            if np.any(gains != 1):
                props = self.locate(image)
        return FoundTiles(image, props, gains)


# ---------------------------------------------------------------- read

@dataclass
class TileReading:
    """One box as the classifier reads it."""

    proposal: Proposal
    code: str  # the likeliest tile, not-a-tile aside
    confidence: float
    alternatives: list[tuple[str, float]]  # the next likeliest
    not_a_tile: float  # the probability that the box shows no tile
    #: the code's and the alternatives' calibrated figures (:meth:`TileClassifier.calibrated`), which
    #: the grouping, the '?' marks, the trust rule and the JSON use; the figures above (the
    #: classifier's own) are what the reading's decisions were chosen on. None: the same as above.
    calibrated: float | None = None
    calibrated_alternatives: list[tuple[str, float]] | None = None

    @property
    def shown(self) -> tuple[float, list[tuple[str, float]]]:
        """The calibrated confidence and alternatives."""
        if self.calibrated is None:
            return self.confidence, self.alternatives
        return self.calibrated, self.calibrated_alternatives or []


@dataclass
class ReadTiles:
    tiles: list[TileReading]
    elapse: float = 0.0


class TileReader:
    """``reader(image, proposals)`` -> :class:`ReadTiles`: each proposal read by the classifier;
    what is no tile dropped, a tile read twice (two boxes of it, or a box across two tiles) kept
    once, the tiles in the holes of rows and grids read (``fill_gaps``), and a face-down tile that
    is only the table seen between two melds dropped."""

    def __init__(self, classifier: TileClassifier, config: RecognizerConfig):
        self.classifier, self.config = classifier, config

    def reading(self, p: np.ndarray, proposal: Proposal | None = None) -> TileReading:
        """A box's class probabilities ``p`` as the reader keeps them."""
        classes = self.classifier.classes
        nat = classes.index(NOT_A_TILE)
        order = [int(k) for k in np.argsort(-p) if int(k) != nat]
        alts = [(classes[k], float(p[k])) for k in order[1:1 + self.classifier.alternatives]]
        q = self.classifier.calibrated(p)  # (the order of the classes is kept)
        return TileReading(proposal, classes[order[0]], float(p[order[0]]), alts, float(p[nat]), float(q[order[0]]),
                           [(classes[k], float(q[k])) for k in order[1:1 + self.classifier.alternatives]])

    def _is_tile(self, r: TileReading) -> bool:
        c = self.config
        return not (r.not_a_tile >= c.sure_not_a_tile
                    or (r.not_a_tile >= c.drop_not_a_tile and r.proposal.score < c.sure_tile))

    def _read_gaps(self, image: np.ndarray, boxes: list) -> list[TileReading]:
        """The tiles in the holes of the rows and grids of ``boxes`` (:func:`vision.layout.holes`)
        where the classifier is sure it sees a tile."""
        c = self.config
        gaps = holes(boxes, c.fill_grid)
        if not gaps:
            return []
        read = [self.reading(p, Proposal(box, c.gap_score, "gap"))
                for box, p in zip(gaps, self.classifier.box_probabilities(image, gaps))]
        return [r for r in read if r.not_a_tile < c.gap_max_not and r.confidence >= c.gap_min_conf]

    @timed
    def __call__(self, image: np.ndarray, proposals: list[Proposal]) -> ReadTiles:
        c = self.config
        probs = self.classifier.box_probabilities(image, [p.box for p in proposals])
        kept = [r for r in map(self.reading, probs, proposals) if self._is_tile(r)]
        # duplicates left after classification: keep the likelier tile
        keep = suppress([r.proposal.box for r in kept], [r.proposal.score * r.confidence for r in kept],
                        iou=c.duplicate_iou, core=c.duplicate_core)
        kept = [kept[k] for k in keep]
        kept = [kept[k] for k in straddlers_out([r.proposal.box for r in kept],
                                                [r.proposal.score * r.confidence for r in kept])]
        kept = [kept[k] for k in spanners_out([r.proposal.box for r in kept], [r.confidence for r in kept])]
        kept = [kept[k] for k in read_twice_out([r.proposal.box for r in kept], [r.code for r in kept],
                                                [r.proposal.score * r.confidence for r in kept])]
        if c.fill_gaps:
            kept += self._read_gaps(image, [r.proposal.box for r in kept])
        # a face-down tile that is only the table seen between two melds, a blank white dragon
        # that is only cloth between tiles laid apart (no outline)
        kept = [r for i, r in enumerate(kept) if r.code not in (BACK, WHITE)
                or (r.code == WHITE and outlined(image, r.proposal.box))
                or not shows_table(image, r.proposal.box, [o.proposal.box for j, o in enumerate(kept) if j != i])]
        return ReadTiles(kept)


# ---------------------------------------------------------------- lay out

@dataclass
class LaidOutTiles:
    #: each tile read, in the frame the hand is read in (:func:`vision.layout.hand_frame`: rows
    #: across, read left to right as its player sees them), with its orientation; its confidence
    #: lowered below ``low_confidence`` where the classifier half thinks it is no tile, or the
    #: photo's edge cuts it off (:func:`vision.layout.cut_off`)
    tiles: list[TileObs]
    wide: bool  # the rows run down the photo
    down: bool | None  # the standing tiles stand upside down (None: not known)
    elapse: float = 0.0
    #: tiles to leave out of the hand (their indices in ``tiles``), with why (:func:`vision.layout.set_apart`)
    apart: dict[int, str] = field(default_factory=dict)
    #: the which-way-up probe's evidence: ``{"log_odds": summed down log-odds, "tiles": standing
    #: tiles read, "leaning": how many of them lean the way the sum does}`` (None: not read)
    up_evidence: dict | None = None

    @property
    def tops(self) -> str | None:
        """Which way the standing tiles' tops point in the photo (None: not known)."""
        return TOPS.get((self.wide, self.down))

    @property
    def tops_sure(self) -> bool:
        """Whether ``tops`` is sure enough to be named (:func:`vision.layout.up_sure`)."""
        e = self.up_evidence
        return self.tops is not None and e is not None and up_sure(e["log_odds"], e["tiles"])


class TileLayout:
    """``layout(image, read)`` -> :class:`LaidOutTiles`: which tiles lie sideways, whether the rows
    run down the photo, (by the which-way-up probe ``up``, if any) which way up the hand stands,
    and which tiles to leave out of the hand (:func:`vision.layout.set_apart`)."""

    def __init__(self, up: UpProbe | None, config: RecognizerConfig):
        self.up, self.config = up, config

    def _down(self, image: np.ndarray, boxes: list, codes: list[str], orient: list[str]):
        """Whether the standing tiles stand upside down, by the probe (None: no probe, too few
        standing tiles, or it cannot tell), and the probe's evidence (None: not read)."""
        if self.up is None:
            return None, None
        standing = [b for b, c, o in zip(boxes, codes, orient) if o == "upright" and c not in (BACK, NOT_A_TILE)]
        if len(standing) < UP_MIN_TILES:  # (fewer cannot be told: the probe is not run)
            return None, None
        each = self.up.tile_log_odds(image, standing)
        odds = float(each.sum())
        leaning = int((each > 0).sum() if odds > 0 else (each < 0).sum())
        return up_decision(odds, len(standing)), {"log_odds": round(odds, 3), "tiles": len(standing),
                                                  "leaning": leaning}

    @timed
    def __call__(self, image: np.ndarray, read: ReadTiles) -> LaidOutTiles:
        boxes = [r.proposal.box for r in read.tiles]
        codes = [r.code for r in read.tiles]
        orient, wide = orientations(boxes, codes)
        down, evidence = self._down(image, boxes, codes, orient)
        to_frame = hand_frame(wide, down)
        low = self.config.low_confidence - 1e-3
        scores = [r.proposal.score for r in read.tiles]
        # a tile cut off by the photo's edge is read from what shows of it: a person confirms it
        cut = cut_off(boxes, scores, image.shape)
        # the '?' marks weigh the calibrated figures (TileReading.shown); the grouping's rules the
        # classifier's own, which they were chosen on
        sure = [r.not_a_tile < self.config.doubtful_not_a_tile and i not in cut for i, r in enumerate(read.tiles)]
        tiles = [TileObs(to_frame(r.proposal.box), r.code, r.confidence if ok else min(r.confidence, low),
                         r.alternatives, o, r.shown[0] if ok else min(r.shown[0], low))
                 for r, o, ok in zip(read.tiles, orient, sure)]
        apart = set_apart(scores, codes, [r.confidence for r in read.tiles], cut, self.config.doubtful_tile, WHITE)
        return LaidOutTiles(tiles, wide, down, apart=apart, up_evidence=evidence)


# ---------------------------------------------------------------- group

@dataclass
class GroupedHand:
    guess: MeldGuess  # the hand's tiles grouped; its ``order`` in positions of the tiles laid out
    strays: list[int]  # the tiles away from the hand (behind it, a wall) or set apart, in reading order
    elapse: float = 0.0
    #: the strays set apart, with why: LaidOutTiles.apart, and the boxes too large for tiles of the hand
    apart: dict[int, str] = field(default_factory=dict)

    @property
    def order(self) -> list[int]:
        """The tiles laid out in the order they are listed: the hand's, then the strays."""
        return self.guess.order + self.strays


class HandGrouper:
    """``grouper(laid)`` -> :class:`GroupedHand`: the hand told from stray tiles
    (:func:`vision.group.hand_strays_too_large`) and grouped into sets (:class:`vision.group.MeldGrouper`)."""

    def __init__(self, config: RecognizerConfig):
        self.melds = MeldGrouper(config.low_confidence)

    @timed
    def __call__(self, laid: LaidOutTiles) -> GroupedHand:
        tiles = laid.tiles
        judged = [i for i in range(len(tiles)) if i not in laid.apart]
        hand, stray, large = hand_strays_too_large([tiles[i] for i in judged])
        large = [judged[i] for i in large]
        hand, stray = [judged[i] for i in hand], [judged[i] for i in stray] + large + sorted(laid.apart)
        guess = self.melds([tiles[i] for i in hand])
        guess.order = [hand[i] for i in guess.order]
        strays = [stray[i] for r in reading_order([tiles[i] for i in stray]) for i in r]
        return GroupedHand(guess, strays, apart={**{i: ODD for i in large}, **laid.apart})


# ---------------------------------------------------------------- propose

@dataclass
class ProposedHand:
    recognition: Recognition
    elapse: float = 0.0


class HandProposer:
    """``proposer(found, read, laid, grouped, size, path)`` -> :class:`ProposedHand`: the
    :class:`~vision.recognition.Recognition` of a copy of a photo ``size`` (width, height) large:
    the tiles in the photo's reading order with the codes the grouping chose, boxes in the photo's
    own pixels, their sets, the tiles to check, the winning tile and notes."""

    @timed
    def __call__(self, found: FoundTiles, read: ReadTiles, laid: LaidOutTiles, grouped: GroupedHand,
                  size: tuple[int, int], path: str | None) -> ProposedHand:
        full_w, full_h = size
        scale = (full_w / found.image.shape[1], full_h / found.image.shape[0])
        tiles = self._tiles(read, laid, grouped, scale)
        groups, notes = self._groups(tiles, grouped)
        guess = grouped.guess
        flagged, winning = list(guess.needs_confirmation), guess.winning
        structures = [dict(s) for s in guess.structures]
        if laid.down is not None:  # grouped as its player sees the hand, listed in the photo's reading order
            order = photo_order([read.tiles[i].proposal.box for i in grouped.order], laid.wide, len(guess.order))
            tiles, groups, flagged, winning, notes = reordered(order, tiles, groups, flagged, winning, notes)
            new = {p: k for k, p in enumerate(order)}
            structures = [dict(s, tiles=sorted(new[p] for p in s["tiles"])) for s in structures]
        notes += self._photo_notes(found, laid, tiles)
        return ProposedHand(Recognition(path, int(full_w), int(full_h), tiles, groups, guess.hand, flagged, notes,
                                        winning, tops=laid.tops, tops_sure=laid.tops_sure, up_evidence=laid.up_evidence,
                                        winning_guessed=guess.winning_guessed, structures=structures))

    @staticmethod
    def _tiles(read: ReadTiles, laid: LaidOutTiles, grouped: GroupedHand, scale) -> list[TileRead]:
        """Each tile in the order listed, its box scaled by ``scale`` (across, down)."""
        sx, sy = scale
        codes = grouped.guess.codes
        out = []
        for pos, i in enumerate(grouped.order):
            r, obs = read.tiles[i], laid.tiles[i]
            code, conf, alts, raw = obs.code, obs.sure, r.shown[1], obs.confidence
            if pos < len(codes) and codes[pos] != code:
                # the rules chose an alternative for a hand tile: report its own confidence
                code = codes[pos]
                alts = [(obs.code, r.shown[0])] + [a for a in alts if a[0] != code]
                conf = next((p for c, p in r.shown[1] if c == code), 0.0)
                raw = next((p for c, p in obs.alternatives if c == code), 0.0)
            b = r.proposal.box
            out.append(TileRead(code, conf, (b[0] * sx, b[1] * sy, b[2] * sx, b[3] * sy), alts, None,
                                obs.orientation, r.proposal.score, raw))
        return out

    @staticmethod
    def _groups(tiles: list[TileRead], grouped: GroupedHand) -> tuple[list[dict], list[str]]:
        """The sets (each tile given its set's number), then the strays in a group for each reason
        they are left out of the hand, and the notes."""
        guess = grouped.guess
        groups = []
        for gi, g in enumerate(guess.groups):
            for p in g["tiles"]:
                tiles[p].group = gi
            groups.append({"tiles": list(g["tiles"]), "melded": bool(g["melded"]), "kind": g["kind"],
                           **{k: g[k] for k in ("evidence", "why") if g.get(k)}})
        notes = list(guess.notes)
        # the strays in a group of their own for each reason, so that a person can put back those
        # of one (the web page's "not in the hand" buttons): away from the hand, cut off, too large, doubted
        first = len(guess.order)
        why = [grouped.apart.get(i, AWAY) for i in grouped.strays]
        for reason, one, many in (
                (AWAY, "1 tile away from the hand (behind it, or in a wall) is left out of it",
                 "{} tiles away from the hand (behind it, or in a wall) are left out of it"),
                (CUT, "1 tile cut off by the edge of the photo is left out of the hand",
                 "{} tiles cut off by the edge of the photo are left out of the hand"),
                (ODD, "1 tile far longer along the row than the tiles beside it (a wall, a marker) is left out of "
                      "the hand",
                 "{} tiles far longer along the row than the tiles beside them (a wall, a marker) are left out of "
                 "the hand"),
                (DOUBTED, "1 tile that neither the detector nor the reader is sure of (perhaps no tile at all) is "
                          "left out of the hand",
                 "{} tiles that neither the detector nor the reader is sure of (perhaps no tiles at all) are left "
                 "out of the hand")):
            where = [first + k for k, w in enumerate(why) if w == reason]
            if where:
                for p in where:
                    tiles[p].group = len(groups)
                groups.append({"tiles": where, "melded": False, "kind": "stray", "why": reason})
                notes.append(one if len(where) == 1 else many.format(len(where)))
        return groups, notes

    @staticmethod
    def _photo_notes(found: FoundTiles, laid: LaidOutTiles, tiles: list[TileRead]) -> list[str]:
        """Notes on the photo as a whole: which way the hand was read, a colour cast, no tiles."""
        notes = []
        if laid.wide or laid.down:
            sure = laid.down is None or laid.tops_sure  # (rows down, which way up not told: no way named)
            notes.append((FRAME_NOTES if sure else UNSURE_NOTES)[laid.wide, laid.down])
        if np.any(found.gains != 1):
            notes.append("the tile faces show a colour cast: read with red, green and blue scaled "
                         + " / ".join(f"{g:.2f}" for g in found.gains))
        if not tiles:
            notes.append("no tiles found")
        return notes


@dataclass(frozen=True)
class Stages:
    """The recogniser's stages, in the order they run."""

    load: PhotoLoader
    find: TileFinder
    read: TileReader
    lay_out: TileLayout
    group: HandGrouper
    propose: HandProposer
