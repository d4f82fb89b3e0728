"""How far to trust a reading: whether a hand read from a photo may be scored without a person.

A reading is a list of tiles, each with its likeliest code and the classifier's next likeliest
ones. The reading is trusted only when no *plausible* other reading would be paid differently:

- **Plausible other readings.** Each tile of the hand may be one of its alternatives, where the
  alternative is at least ``PLAUSIBLE`` times as likely as the code read (a likelihood ratio, so
  a tile read at 0.53 with an alternative at 0.31 counts, one read at 0.97 with 0.02 does not);
  two tiles may both be misread where the product of their ratios is at least ``PLAUSIBLE``.
  Where the winning tile was not set apart from the hand, every concealed tile may be the winning
  tile. The hand's other plausible structures (``Recognition.structures``, from
  :func:`vision.structure.other_groupings`: a set laid apart that may be concealed tiles, a set
  apart in the concealed row that may be melded with its claimed tile not turned, a pung that may
  be a kong with its fourth tile on top, a kong read from three tiles that may be a pung, a kong
  that may be a pung and a tile) are weighed too.
- **Only complete hands count.** A photo is taken of a hand declared a win, so a reading that
  makes no complete hand (four sets and a pair, seven pairs, thirteen orphans) is no contender,
  and neither is one with a flower or season twice (a set has one of each).
- **Trusted** when every plausible complete reading scores the same as the proposal: legal or not,
  fan, points and every seat's payment. Otherwise a person is needed, and each doubt says which
  tile and what the two readings score.
- **Toss-ups.** A tile whose alternative is nearly as likely as its reading (``TOSS_UP``) and still
  makes a complete hand also needs a person, even where the score is the same: the hand written
  down would be a coin toss.

Nothing here depends on one classifier's habits beyond the meaning of its probabilities; the
thresholds are chosen on held-out photos (``benchmarks/autoscore_eval.py`` prints the figures).

>>> from mjcam.vision.pipeline import Recognition, TileRead
>>> box = (0, 0, 1, 1)
>>> tiles = [TileRead(c, 0.99, box) for c in "1p 2p 3p 4p 5p 6p 7p 8p 9p S S S Rd Rd".split()]
>>> tiles.append(TileRead("F1", 0.55, box, [("F2", 0.40), ("S4", 0.03)]))
>>> groups = [{"tiles": list(range(14)), "melded": False, "kind": "concealed"},
...           {"tiles": [14], "melded": False, "kind": "bonus"}]
>>> rec = Recognition(None, 10, 10, tiles, groups, "123456789p SSS Rd F1 +Rd", [14], winning=13)
>>> t = check(rec, seat="E")
>>> t.auto, t.doubts[0].text()
(False, 'tile 15: F1 (55%), or F2 (40%): 5 fan, 16 points; as F2: 4 fan, 16 points')
>>> check(rec, seat="W").doubts[0].kind  # no seat flower either way, but F1 and F2 are a toss-up
'toss-up'
>>> tiles[14] = TileRead("F1", 0.97, box, [("F2", 0.02)])
>>> check(rec, seat="E").auto
True
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from mjcam.scoring import NotationError, score
from mjcam.scoring.tiles import INDEX

from .group import MeldGrouper, _is_bonus

#: an alternative this many times as likely as the code read (or more) is a plausible reading
PLAUSIBLE = 0.2
#: an alternative this many times as likely as the code read makes the reading a toss-up
TOSS_UP = 0.5
#: at most this many alternatives (the likeliest) are tried, alone and two at a time
MOST_ALTERNATIVES = 12


@dataclass
class Doubt:
    """One reason a person is needed. ``tile``: the tile's position (None: the whole hand);
    ``code``/``other``: the code read and the other reading; ``ratio``: how many times as likely
    the other reading is; ``scores``: the proposal's and the other reading's score in words."""

    kind: str  # "tile", "tiles", "winning", "structure", "toss-up", "hand"
    message: str
    tile: int | None = None
    code: str | None = None
    other: str | None = None
    ratio: float | None = None
    scores: tuple[str, str] | None = None
    hand: str | None = None  # the other reading's hand
    tiles: list[int] | None = None  # every tile the doubt is about, where more than ``tile``

    def text(self) -> str:
        return self.message

    def to_json(self) -> dict:
        return {"kind": self.kind, "message": self.message, "tile": self.tile, "code": self.code,
                "other": self.other, "hand": self.hand,
                "scores": list(self.scores) if self.scores else None,
                "tiles": self.tiles if self.tiles else ([self.tile] if self.tile is not None else [])}


@dataclass
class Trust:
    """``auto``: the hand may be scored without a person; ``doubts``: why not (empty when auto);
    ``readings``: how many complete readings were weighed; ``score``: the proposal's score."""

    auto: bool
    doubts: list[Doubt] = field(default_factory=list)
    readings: int = 0
    score: object = None

    def to_json(self) -> dict:
        return {"auto": self.auto, "doubts": [d.to_json() for d in self.doubts], "readings": self.readings}


def _words(r) -> str:
    """A score in words: ``5 fan, 16 points`` / ``not a winning hand`` / ``2 fan, below the minimum``."""
    if r is None:
        return "not a winning hand"
    if r.arrangement is None:
        return "not a winning hand"
    fan = "a limit hand" if r.limit else f"{r.fan} fan"
    if not r.legal:
        return f"{fan}, not a paying win ({r.reason})" if r.reason else f"{fan}, not a paying win"
    return f"{fan}, {r.points} points"


def _key(r) -> tuple:
    return (r.legal, r.fan, r.limit, r.points, tuple(sorted(r.payments.items())))


def _hand_text(groups: list[dict], codes: list[str], winning: int | None) -> str | None:
    """The hand in notation with these codes, or None when it cannot be written (a tile read
    ``back`` in the hand, a claimed set that is no set)."""
    gs = []
    for g in groups:
        if g["kind"] == "stray":
            continue
        if g["kind"] == "concealed_kong":
            face = next((codes[p] for p in g["tiles"] if codes[p] != "back"), "back")
            gs.append(dict(g, code=face))
        else:
            gs.append(g)
    try:
        return MeldGrouper._write(gs, codes, winning)
    except (KeyError, NotationError):
        return None


def _score(text: str | None, rules, options: dict):
    if text is None:
        return None
    try:
        return score(text, rules, **options)
    except (NotationError, ValueError):
        return None


def _complete(r) -> bool:
    return r is not None and r.arrangement is not None


def check(rec, rules="hk-old-style", plausible: float = PLAUSIBLE, toss_up: float = TOSS_UP,
          **options) -> Trust:
    """The verdict on a :class:`~mjcam.vision.pipeline.Recognition` scored under ``rules`` with
    ``options`` (house rules and the situation, as :func:`mjcam.scoring.score` takes them)."""
    codes = [t.code for t in rec.tiles]
    stray = {p for g in rec.groups if g["kind"] == "stray" for p in g["tiles"]}
    hand_pos = [p for p in range(len(codes)) if p not in stray]
    refused, base = _refusal(rec, codes, hand_pos, rules, options)
    if refused is not None:
        if base is not None:  # scored but no paying win: with the flowers set apart it may be one
            apart = _Weighing(rec, codes, base, rules, options)
            apart.bonus_apart(stray)
            refused.doubts += apart.doubts
        return refused
    weighing = _Weighing(rec, codes, base, rules, options)
    weighing.winning_tiles()
    weighing.structures()
    weighing.bonus_apart(stray)
    for change, ratio in _changes(rec, codes, hand_pos, plausible):
        weighing.change(change, ratio, toss_up, hand_pos)
    doubts = weighing.doubts
    doubts.sort(key=lambda d: (d.kind == "toss-up", -(d.ratio or 1)))
    return Trust(not doubts, doubts, weighing.readings, base)


#: the doubt of a proposed hand that cannot be scored as it stands (the command line says why instead)
UNSCORABLE = "the proposed hand cannot be scored"


def unpaid(reason: str | None) -> str:
    """The doubt of a proposed hand that is no paying win, its reason in brackets.

    >>> unpaid("below the minimum: 3 fan needed, the hand has 2")
    'the proposed hand is not a paying win (below the minimum: 3 fan needed, the hand has 2)'
    >>> unpaid("not a winning hand: the tiles do not make four sets and a pair")
    'the proposed hand is not a winning hand (the tiles do not make four sets and a pair)'
    """
    if not reason:
        return "the proposed hand is not a paying win"
    head, _, rest = reason.partition(": ")
    if head == "not a winning hand" and rest:
        return f"the proposed hand is not a winning hand ({rest})"
    return f"the proposed hand is not a paying win ({reason})"


def _refusal(rec, codes: list[str], hand_pos: list[int], rules, options: dict):
    """``(verdict, score)``: a verdict reached on the proposal alone (no hand written, a flower or
    season read twice, a hand that cannot be scored or is no paying win, four alike laid face up
    taken as a concealed kong), else None; and the proposal's score."""
    if not rec.hand:
        return Trust(False, [Doubt("hand", "the tiles read make no complete hand")]), None
    bonus_codes = [codes[p] for p in hand_pos if _is_bonus(codes[p])]
    if len(bonus_codes) != len(set(bonus_codes)):
        return Trust(False, [Doubt("hand", "a flower or season is read twice: a set has one of each")]), None
    base = _score(rec.hand, rules, options)
    if base is None:
        return Trust(False, [Doubt("hand", UNSCORABLE)]), None
    if not base.legal:
        return Trust(False, [Doubt("hand", unpaid(base.reason))], score=base), base
    for g in rec.groups:  # four alike in the concealed part, taken as a kong only to make the tiles add up
        if g["kind"] == "concealed_kong" and not any(codes[p] == "back" for p in g["tiles"]):
            return Trust(False, [Doubt("hand", f"four {codes[g['tiles'][0]]} laid face up are taken as a concealed "
                                       "kong: check that they are one, and that no tile was counted twice",
                                       g["tiles"][0])], score=base), base
    return None, base


def _changes(rec, codes: list[str], hand_pos: list[int], plausible: float) -> list[tuple[tuple, float]]:
    """The plausible other readings: ``(change, ratio)``, a change being one or two
    ``(ratio, position, code)``: each hand tile's alternatives at least ``plausible`` times as
    likely (the ``MOST_ALTERNATIVES`` likeliest), alone and two at a time."""
    singles = []
    for p in hand_pos:
        t = rec.tiles[p]
        if codes[p] == "back":
            continue
        for alt, q in t.alternatives:
            if alt == codes[p] or alt not in INDEX:
                continue
            ratio = q / max(t.confidence, 1e-6)
            if ratio >= plausible:
                singles.append((ratio, p, alt))
    singles.sort(key=lambda s: -s[0])
    singles = singles[:MOST_ALTERNATIVES]
    changes = [((s,), s[0]) for s in singles]
    changes += [((a, b), a[0] * b[0]) for a, b in itertools.combinations(singles, 2)
                if a[1] != b[1] and a[0] * b[0] >= plausible]
    return changes


class _Weighing:
    """The other readings of a proposal weighed against it: the doubts found so far, the other
    readings already doubted, and how many complete readings were weighed."""

    def __init__(self, rec, codes: list[str], base, rules, options: dict):
        self.rec, self.codes, self.base, self.rules, self.options = rec, codes, base, rules, options
        self.base_key = _key(base)
        concealed = [p for g in rec.groups if g["kind"] == "concealed" for p in g["tiles"]]
        guessed = getattr(rec, "winning_guessed", False) and rec.winning is not None
        self.winners = [rec.winning] if not guessed else list(dict.fromkeys(
            [rec.winning] + sorted({codes[p]: p for p in concealed}.values())))
        self.doubts: list[Doubt] = []
        self.seen_other: set[tuple] = set()
        self.readings = 1

    def winning_tiles(self) -> None:
        """The winning tile not set apart: each concealed tile as the winning tile; one doubt for
        each other score they make (``with +1m, +2m or +5m: 7 fan, 32 points``)."""
        rec, codes, base = self.rec, self.codes, self.base
        paid: dict[tuple, tuple] = {}  # a score other than the proposal's -> (that score, the tiles making it)
        for w in self.winners[1:]:
            r = _score(_hand_text(rec.groups, codes, w), self.rules, self.options)
            if not _complete(r):
                continue
            self.readings += 1
            if _key(r) != self.base_key and ("winning", codes[w]) not in self.seen_other:
                self.seen_other.add(("winning", codes[w]))
                paid.setdefault(_key(r), (r, []))[1].append(w)
        for r, ws in paid.values():
            tiles = [f"+{codes[w]}" for w in ws]
            said = tiles[0] if len(tiles) == 1 else ", ".join(tiles[:-1]) + " or " + tiles[-1]
            self.doubts.append(Doubt("winning", f"the winning tile is not set apart: with +{codes[rec.winning]} "
                                     f"{_words(base)}; with {said}: {_words(r)}", ws[0], codes[rec.winning],
                                     codes[ws[0]], None, (_words(base), _words(r)),
                                     _hand_text(rec.groups, codes, ws[0]), ws))

    def structures(self) -> None:
        """The other plausible structures of the hand (``rec.structures``: a set laid apart that may
        be concealed tiles, a set apart in the row that may be melded, a pung that may be a kong, a
        kong read from three tiles that may be a pung):
        a doubt for each one that makes a complete hand paid differently, naming the set to check
        and both scores."""
        base = self.base
        for other in getattr(self.rec, "structures", None) or []:
            r = _score(other.get("hand"), self.rules, self.options)
            if not _complete(r):
                continue
            self.readings += 1
            if _key(r) == self.base_key:
                continue
            tiles = list(other.get("tiles") or [])
            self.doubts.append(Doubt("structure", f"{other['what']}: as read {_words(base)}; if so {_words(r)}",
                                     tiles[0] if tiles else None, None, None, None, (_words(base), _words(r)),
                                     other.get("hand"), tiles))

    def bonus_apart(self, stray: set[int]) -> None:
        """Flowers and seasons among the tiles set apart from the hand (a player lays them out
        beside it, sometimes further than its tiles lie from each other): a doubt where taking
        them into the hand pays it otherwise (no 無花, a flower of one's own seat)."""
        rec, codes, base = self.rec, self.codes, self.base
        held = {codes[p] for p in range(len(codes)) if p not in stray and _is_bonus(codes[p])}
        apart = {}
        for p in sorted(stray):
            if _is_bonus(codes[p]) and codes[p] not in held:
                apart.setdefault(codes[p], p)
        if not apart:
            return
        text = f"{rec.hand} {' '.join(apart)}"
        r = _score(text, self.rules, self.options)
        if not _complete(r):
            return
        self.readings += 1
        if _key(r) != self.base_key:
            (first, p), them = next(iter(apart.items())), "them" if len(apart) > 1 else "it"
            self.doubts.append(Doubt("tiles", f"{' and '.join(apart)} set apart from the hand: {_words(base)}; "
                                     f"with {them} in the hand: {_words(r)}", p, first, None, None,
                                     (_words(base), _words(r)), text))

    def change(self, change: tuple, ratio: float, toss_up: float, hand_pos: list[int]) -> None:
        """One plausible other reading (see :func:`_changes`), with each winning tile: a doubt where
        it makes a complete hand paid differently, or where it is a near toss-up."""
        rec, codes, base = self.rec, self.codes, self.base
        trial = list(codes)
        for _, p, alt in change:
            trial[p] = alt
        tb = [trial[p] for p in hand_pos if _is_bonus(trial[p])]
        if len(tb) != len(set(tb)):
            return  # a flower or season twice: not a reading of a real set
        if any(d.tile in {p for _, p, _ in change} for d in self.doubts if d.kind in ("tile", "tiles")):
            return  # one doubt per tile: its likeliest other reading that is paid differently
        complete_any = False
        for w in self.winners:
            text = _hand_text(rec.groups, trial, w)
            r = _score(text, self.rules, self.options)
            if not _complete(r):
                continue
            complete_any = True
            self.readings += 1
            if _key(r) == self.base_key:
                continue
            what = tuple((p, alt) for _, p, alt in change)
            if what in self.seen_other:
                break
            self.seen_other.add(what)
            self.doubts.append(_tile_doubt(rec, change, ratio, base, r, text))
            break
        _, p, alt = change[0]
        if complete_any and len(change) == 1 and ratio >= toss_up and (p, alt) not in self.seen_other:
            if not any(d.tile == p for d in self.doubts):
                self.doubts.append(Doubt("toss-up", f"{_tile_words(rec, p, alt)}, nearly as likely: {_words(base)} "
                                         "either way, but the hand written down may be wrong",
                                         p, codes[p], alt, ratio, (_words(base), _words(base))))


def _tile_words(rec, p: int, alt: str) -> str:
    """``tile 16: 6p (53%), or 9p (31%)``"""
    t = rec.tiles[p]
    return f"tile {p + 1}: {t.code} ({t.confidence:.0%}), or {alt} ({dict(t.alternatives).get(alt, 0.0):.0%})"


def _tile_doubt(rec, change, ratio, base, other, text) -> Doubt:
    codes = [t.code for t in rec.tiles]
    parts = [(p, _tile_words(rec, p, alt)) for _, p, alt in change]
    if len(change) == 1:
        p, alt = change[0][1], change[0][2]
        msg = f"{parts[0][1]}: {_words(base)}; as {alt}: {_words(other)}"
        return Doubt("tile", msg, p, codes[p], alt, ratio, (_words(base), _words(other)), text)
    alts = " and ".join(alt for _, _, alt in change)
    msg = "; ".join(x for _, x in parts) + f": {_words(base)}; as {alts}: {_words(other)}"
    return Doubt("tiles", msg, change[0][1], codes[change[0][1]], alts, ratio, (_words(base), _words(other)), text)
