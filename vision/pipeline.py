"""From a photo to a proposed hand: load, locate, classify, prune, group.

>>> from mjcam.vision.pipeline import Recognition
>>> Recognition("x.jpg", 10, 10, [], [], None, []).to_json()["tiles"]
[]

Each stage is a small class of its own (:class:`vision.locate.LearnedProposer`,
:class:`vision.locate.BoxRefiner`,
:class:`vision.classify.TileClassifier`,
:class:`vision.group.MeldGrouper`); :class:`Recognizer` strings them together and holds the
models, so a process that reads many photos loads them once.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

from .classify import LOW_CONFIDENCE, TileClassifier, TileLabel
from .group import MeldGrouper, TileObs, hand_and_strays, reading_order
from .io import load_photo
from .labels import BACK, NOT_A_TILE
from .layout import (FRAME_NOTES, TOPS, UP_MIN_TILES, hand_frame, holes, orientations, photo_order, reordered,
                     shows_table, straddlers_out, up_decision)
from .light import balanced, brightened
from .locate import WORK_SIDE, BoxRefiner, LearnedProposer, Proposal, suppress
from .preprocess import shrink
from .stretch import squeezed, stretches, sureness
from .up import UpProbe

DROP_NOT_A_TILE = 0.5  # a proposal the classifier calls not-a-tile with at least this is dropped
SURE_TILE = 0.6  # ... unless the detector is this sure it is a tile and the classifier not sure it is not
SURE_NOT_A_TILE = 0.85
DUPLICATE_IOU = 0.25  # two read tiles whose cores overlap this much are one tile read twice
DUPLICATE_CORE = 0.6  # ... compared by their cores (see vision.locate.suppress): a slanted row's tiles stay apart
GAP_MAX_NOT, GAP_MIN_CONF = 0.3, 0.6  # a hole (vision.layout.holes) is read as a tile: not-a-tile below, a tile above
GAP_SCORE = 0.5  # the proposal score given to such a tile
#: A picture of one tile (``mjcam classify``) may show more than the tile: a phone photo of a tile
#: on the table. The tile found nearest its centre (no further off it than ``ONE_TILE_CENTRE`` of
#: its own size) is read as well, and its reading is kept where its likeliest tile is likelier by
#: ``ONE_TILE_MARGIN`` than the whole picture's, and either the whole picture's is under
#: ``ONE_TILE_UNSURE`` or the detector is at least ``ONE_TILE_FOUND`` sure of the tile it found
#: (in a tight crop it finds parts of the engraving, less surely). Chosen on held-out photos and
#: unseen tile art: the model card.
ONE_TILE_CENTRE, ONE_TILE_MARGIN, ONE_TILE_UNSURE, ONE_TILE_FOUND = 0.5, 0.2, 0.35, 0.45


@dataclass
class TileRead:
    code: str
    confidence: float
    box: tuple[float, float, float, float]  # pixels of the photo as a person sees it
    alternatives: list[tuple[str, float]] = field(default_factory=list)
    group: int | None = None
    orientation: str = "upright"
    detection: float = 1.0  # the proposal stage's score

    def to_json(self) -> dict:
        return {"code": self.code, "confidence": round(self.confidence, 4),
                "box": [round(v, 1) for v in self.box],
                "alternatives": [{"code": c, "confidence": round(p, 4)} for c, p in self.alternatives],
                "group": self.group, "orientation": self.orientation}


@dataclass
class Recognition:
    path: str | None
    width: int
    height: int
    tiles: list[TileRead]
    groups: list[dict]
    hand: str | None
    needs_confirmation: list[int]
    notes: list[str] = field(default_factory=list)
    winning: int | None = None
    #: how many times across and down the photo was squeezed before it was read (a photo stretched
    #: out of shape is read squeezed back; 1, 1: as it is). Not in the JSON: the boxes already
    #: are in the photo's own pixels.
    squeeze: tuple[float, float] = (1.0, 1.0)
    #: which way the standing tiles' tops point in the photo, by the which-way-up probe: up, down,
    #: left, right; None where it could not tell. In the JSON (``tops``) so the table app can tell whose
    #: hand a photo shows from where the phone sits; the tiles' order already follows it.
    tops: str | None = None
    #: no tile was set apart as the winning tile: ``winning`` is the last concealed tile, taken for it
    winning_guessed: bool = False

    def to_json(self) -> dict:
        return {"image": {"path": self.path, "width": self.width, "height": self.height},
                "tiles": [t.to_json() for t in self.tiles],
                "groups": [{"tiles": g["tiles"], "melded": g["melded"], "kind": g["kind"]} for g in self.groups],
                "hand": self.hand,
                "needs_confirmation": self.needs_confirmation,
                "winning": self.winning,
                "winning_guessed": self.winning_guessed,
                "tops": self.tops,
                "notes": self.notes}

    @classmethod
    def from_json(cls, d: dict) -> "Recognition":
        """Back from :meth:`to_json` (or a batch record, which has the same keys)."""
        img = d.get("image") or {}
        tiles = [TileRead(t["code"], t["confidence"], tuple(t["box"]),
                          [(a["code"], a["confidence"]) for a in t.get("alternatives", [])],
                          t.get("group"), t.get("orientation", "upright")) for t in d.get("tiles") or []]
        return cls(img.get("path", d.get("path")), int(img.get("width", 0)), int(img.get("height", 0)), tiles,
                   list(d.get("groups") or []), d.get("hand"), list(d.get("needs_confirmation") or []),
                   list(d.get("notes") or []), d.get("winning"), tops=d.get("tops"),
                   winning_guessed=bool(d.get("winning_guessed")))

    def layout(self) -> str:
        """The tiles as laid out, set by set, each doubtful tile marked ``?`` — what a person checks."""
        flagged = set(self.needs_confirmation)
        parts = []
        for g in self.groups:
            codes = " ".join(self.tiles[p].code + ("?" if p in flagged else "") for p in g["tiles"])
            if g["kind"] == "stray":
                parts.append(f"· left out: {codes}")
                continue
            parts.append(f"[{codes}]" if g["melded"] else f"({codes})" if g["kind"] == "bonus" else codes)
        return "  ".join(parts)

    def doubts(self) -> list[str]:
        """One line per tile to check: its place, reading and the likeliest alternatives."""
        out = []
        for p in self.needs_confirmation:
            t = self.tiles[p]
            alts = ", ".join(f"{c} {q:.0%}" for c, q in t.alternatives[:2])
            out.append(f"tile {p + 1}: {t.code} ({t.confidence:.0%}; or {alts})")
        return out


class Recognizer:
    """``recognizer(path)`` -> :class:`Recognition`; ``recognizer.read(image)`` for an RGB array.

    ``refiner``: the box refiner that redraws the detector's boxes (``True``: the shipped one;
    ``None`` or ``False``: the detector's boxes as they come). ``up``: the which-way-up probe that
    tells a hand photographed from across the table or turned a quarter which way round to read
    (``True``: the shipped one; ``None`` or ``False``: the photo's own order)."""

    def __init__(self, classifier: TileClassifier | None = None, proposers=None, work_side: int = WORK_SIDE,
                 low_confidence: float = LOW_CONFIDENCE, refiner: BoxRefiner | None | bool = True, fill_gaps: bool = True,
                 drop_straddlers: bool = True, fill_grid: bool = True, unstretch: bool = True,
                 brighten: bool = True, balance: bool = True, up: UpProbe | None | bool = True):
        self.classifier = classifier or TileClassifier()
        self.up = UpProbe() if up is True else (up or None)
        self.proposers = proposers if proposers is not None else [LearnedProposer()]
        self.refiner = BoxRefiner() if refiner is True else (refiner or None)
        self.fill_gaps = fill_gaps
        self.fill_grid = fill_grid
        self.drop_straddlers = drop_straddlers
        self.unstretch = unstretch
        # vision.light: a dim photo brightened; a colour cast turned back (judged from the detector's
        # boxes, then looked at again: the recogniser's card, "The cast turned back, judged again")
        self.brighten, self.balance = brighten, balance
        self.work_side = work_side
        self.grouper = MeldGrouper(low_confidence)
        self.low_confidence = low_confidence

    def _reading(self, p: np.ndarray) -> tuple[int, float, list[tuple[str, float]], float]:
        """A crop's class probabilities as ``read`` keeps them: the likeliest tile (class index and
        probability, not-a-tile aside), the next ones, and the not-a-tile probability."""
        classes = self.classifier.classes
        nat = classes.index(NOT_A_TILE)
        order = [int(k) for k in np.argsort(-p) if int(k) != nat]
        alts = [(classes[k], float(p[k])) for k in order[1:1 + self.classifier.alternatives]]
        return order[0], float(p[order[0]]), alts, float(p[nat])

    def _read_gaps(self, image: np.ndarray, boxes: list) -> list:
        """Tiles in the one-tile gaps of the rows found (see :func:`vision.layout.row_gaps`) and in the missing
        cells of a grid (:func:`vision.layout.grid_gaps`, unless ``fill_grid`` is off), where the classifier is
        sure it sees a tile there; as ``read`` keeps them."""
        gaps = holes(boxes, self.fill_grid)
        if not gaps:
            return []
        out = []
        for box, p in zip(gaps, self.classifier.box_probabilities(image, gaps)):
            best, conf, alts, p_not = self._reading(p)
            if p_not < GAP_MAX_NOT and conf >= GAP_MIN_CONF:
                out.append((Proposal(box, GAP_SCORE, "gap"), best, conf, alts, p_not))
        return out

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
        keep = suppress([p.box for p in props], [p.score for p in props], iou=0.6)
        return [props[k] for k in keep]

    def __call__(self, path: str) -> Recognition:
        return self.load_and_read(path)[1]

    def read_one(self, image: np.ndarray) -> tuple[TileLabel, tuple[float, float, float, float] | None]:
        """The tile in a picture of one tile, and its box in the picture's pixels (None: the whole
        picture). The whole picture is read as the tile, and so is the tile found nearest its centre
        (on a copy at most ``work_side`` long); the latter's reading is kept where its likeliest tile
        (``not-a-tile`` aside) is likelier by ``ONE_TILE_MARGIN`` and the whole picture's reading is
        unsure or the detector sure (see ``ONE_TILE_UNSURE``), so a tight crop reads as before and a
        tile photographed with the table around it is read from its own box."""
        h, w = image.shape[:2]
        boxes: list = [(0.0, 0.0, float(w), float(h))]
        small = shrink(image, self.work_side)
        s = w / small.shape[1]
        near, off, found = None, ONE_TILE_CENTRE, 0.0
        for p in self.locate(small):
            x1, y1, x2, y2 = (v * s for v in p.box)
            d = max(abs((x1 + x2 - w) / 2) / max(1e-6, x2 - x1), abs((y1 + y2 - h) / 2) / max(1e-6, y2 - y1))
            if d <= off:
                near, off, found = (x1, y1, x2, y2), d, p.score
        if near is not None:
            boxes.append(near)
        probs = self.classifier.box_probabilities(image, boxes)
        labels = self.classifier.labels(probs)
        tile = [self._reading(p)[1] for p in probs]
        if near is not None and tile[1] > tile[0] + ONE_TILE_MARGIN and (
                tile[0] < ONE_TILE_UNSURE or found >= ONE_TILE_FOUND):
            return labels[1], near
        return labels[0], None

    def load_and_read(self, path: str) -> tuple[np.ndarray, Recognition]:
        """The working copy of the photo (long side at most ``work_side``) and its reading."""
        image, size = load_photo(path, self.work_side)
        return image, self.read(image, size, path)

    def read(self, image: np.ndarray, full_size: tuple[int, int] | None = None, path: str | None = None) -> Recognition:
        """The reading of an RGB photo (``full_size``: the original's size, when ``image`` is a
        smaller copy of it: boxes are reported in the original's pixels).

        A photo stretched out of shape (see :func:`vision.stretch.stretches`; ``unstretch`` off: never) is also read
        squeezed back by each likely factor, and the reading with the most sure tiles in boxes shaped
        like tiles is kept (as it is, only if it might not be stretched after all: a photo surely
        stretched is not read as it is). A dim photo is read brightened (``brighten``,
        :func:`vision.light.brightened`); a colour cast the tile faces show is turned back and the
        photo looked at again (``balance``, :func:`vision.light.balanced`)."""
        h0, w0 = image.shape[:2]
        image = shrink(image, self.work_side)
        full_w, full_h = full_size or (w0, h0)
        gain = 1.0
        if self.brighten:
            image, gain = brightened(image)
        factors, surely = stretches(image) if self.unstretch else ([], False)
        best = None if surely else self._read_as_is(image, full_w, full_h, path)
        sure = sureness(best.tiles, self.low_confidence) if best is not None and factors else -1.0
        for fx, fy in factors:
            r = self._read_as_is(squeezed(image, fx, fy), full_w, full_h, path)
            score = sureness(r.tiles, self.low_confidence, (fx, fy))
            if score > sure:
                sure = score
                axis = "across" if fx > 1 else "down"
                r.notes.append(f"the photo looks stretched about {max(fx, fy):g} times {axis} it: "
                               "read squeezed back")
                r.squeeze = (float(fx), float(fy))
                best = r
        if gain != 1:
            best.notes.append(f"the photo is dim: read {gain:.1f} times as bright")
        return best  # a photo surely stretched has factors, and the first of them is kept at least

    def _read_as_is(self, image: np.ndarray, full_w: int, full_h: int, path: str | None) -> Recognition:
        """The reading of a working copy ``image`` of a photo ``full_w`` x ``full_h``, the copy taken
        to have the photo's shape (it may be squeezed along one axis)."""
        sx, sy = full_w / image.shape[1], full_h / image.shape[0]
        props = self.locate(image)
        gains = np.ones(3)
        if self.balance:  # a colour cast, judged from the tile faces, turned back; then looked at again
            image, gains = balanced(image, [p.box for p in props])
            if np.any(gains != 1):
                props = self.locate(image)
        probs = self.classifier.box_probabilities(image, [p.box for p in props])
        classes = self.classifier.classes
        kept: list[tuple[Proposal, int, float, list[tuple[str, float]], float]] = []
        for prop, p in zip(props, probs):
            best, conf, alts, p_not = self._reading(p)
            if p_not >= SURE_NOT_A_TILE or (p_not >= DROP_NOT_A_TILE and prop.score < SURE_TILE):
                continue
            kept.append((prop, best, conf, alts, p_not))
        # duplicates left after classification: keep the likelier tile
        keep = suppress([k[0].box for k in kept], [k[0].score * k[2] for k in kept], iou=DUPLICATE_IOU,
                        core=DUPLICATE_CORE)
        kept = [kept[k] for k in keep]
        if self.drop_straddlers:
            kept = [kept[k] for k in straddlers_out([k[0].box for k in kept], [k[0].score * k[2] for k in kept])]
        if self.fill_gaps:
            kept += self._read_gaps(image, [k[0].box for k in kept])
        # a face-down tile that is only the table seen between two melds
        kept = [k for i, k in enumerate(kept) if classes[k[1]] != BACK
                or not shows_table(image, k[0].box, [o[0].box for j, o in enumerate(kept) if j != i])]
        boxes = [k[0].box for k in kept]
        codes = [classes[k[1]] for k in kept]
        orient, wide = orientations(boxes, codes)
        down = None
        if self.up is not None:  # which way up the standing tiles are: the order to read them in
            standing = [b for b, c, o in zip(boxes, codes, orient) if o == "upright" and c not in (BACK, NOT_A_TILE)]
            if len(standing) >= UP_MIN_TILES:  # (fewer cannot be told: the probe is not run)
                down = up_decision(self.up.down_log_odds(image, standing), len(standing))
        to_frame = hand_frame(wide, down)
        obs = []
        for (prop, _, conf, alts, p_not), code, o in zip(kept, codes, orient):
            gbox = to_frame(prop.box)  # the hand as its player sees it: rows across, read left to right
            # a tile the classifier half thinks is no tile at all is doubtful however sure the code
            obs.append(TileObs(gbox, code, conf if p_not < 0.25 else min(conf, self.low_confidence - 1e-3), alts, o))
        hand_idx, stray_idx = hand_and_strays(obs)
        guess = self.grouper([obs[i] for i in hand_idx])
        guess.order = [hand_idx[i] for i in guess.order]
        stray_order = [stray_idx[i] for r in reading_order([obs[i] for i in stray_idx]) for i in r]
        tiles = []
        for pos, i in enumerate(guess.order + stray_order):
            prop, _, read_conf, alts, _ = kept[i]
            code, conf = obs[i].code, obs[i].confidence
            if pos < len(guess.codes) and guess.codes[pos] != code:
                # the rules chose an alternative for a hand tile: report its own confidence
                code = guess.codes[pos]
                alts = [(obs[i].code, read_conf)] + [a for a in alts if a[0] != code]
                conf = next((p for c, p in obs[i].alternatives if c == code), 0.0)
            b = prop.box
            tiles.append(TileRead(code, conf, (b[0] * sx, b[1] * sy, b[2] * sx, b[3] * sy), alts, None,
                                  obs[i].orientation, prop.score))
        groups = []
        for gi, g in enumerate(guess.groups):
            for p in g["tiles"]:
                tiles[p].group = gi
            groups.append({"tiles": list(g["tiles"]), "melded": bool(g["melded"]), "kind": g["kind"]})
        notes = list(guess.notes)
        if stray_order:
            first = len(guess.order)
            for p in range(first, len(tiles)):
                tiles[p].group = len(groups)
            groups.append({"tiles": list(range(first, len(tiles))), "melded": False, "kind": "stray"})
            notes.append(f"{len(stray_order)} tile(s) away from the hand (behind it, or a wall) are left out of it")
        flagged, winning = list(guess.needs_confirmation), guess.winning
        if down is not None:  # grouped as its player sees the hand, listed in the photo's reading order
            order = photo_order([kept[i][0].box for i in guess.order + stray_order], wide, len(guess.order))
            tiles, groups, flagged, winning, notes = reordered(order, tiles, groups, flagged, winning, notes)
        if wide or down:
            notes.append(FRAME_NOTES[wide, down])
        if np.any(gains != 1):
            notes.append("the tile faces show a colour cast: read with red, green and blue scaled "
                         + " / ".join(f"{g:.2f}" for g in gains))
        if not tiles:
            notes.append("no tiles found")
        return Recognition(path, int(full_w), int(full_h), tiles, groups, guess.hand, flagged, notes, winning,
                           tops=TOPS.get((wide, down)), winning_guessed=guess.winning_guessed)


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
