"""Grouping read tiles into a hand: reading order, melds, kongs, bonus tiles, the winning tile.

Input is tiles with a box, a code (or ``back``), a confidence with alternatives and an
orientation; no image and no model is needed, so the heuristics run alone in tests.

- Rows: tiles whose centres lie within about half a tile of each other across the rows' slant
  (measured from neighbouring tiles, so a photo taken at an angle reads right); rows top to
  bottom, tiles left to right.
- Structure: the hand's sets, the concealed part, its bonus tiles and the winning tile are read
  from the rows' runs by the layout rules of :mod:`vision.structure` (melded sets turned or laid
  apart, kongs stacked, face down or four alike apart, the winning tile apart or turned at the
  row's end), each set with the evidence for it. Where that structure makes no winning hand and a
  plausible other one does (a set laid apart taken as concealed, or the reverse), the other is
  proposed and its sets flagged.
- Bonus tiles (flowers, seasons) stand apart wherever they lie. A set has one of each: a flower
  or season read twice is a misread — the less sure reading takes its likeliest bonus
  alternative not read yet, and both tiles are flagged.
- A set has four of each tile: a tile read a fifth time is a misread — the least sure of them
  takes its likeliest alternative (no flower or season) of which fewer than four are read (or
  all are flagged).
- A lone tile apart (at the end of the concealed row first) is the winning tile; otherwise the
  last concealed tile is proposed (not flagged: :mod:`vision.trust` asks whether another choice
  changes the score).
- The rules help: when the hand is no win, the readings within reach are weighed — each hand
  tile's alternatives (concealed kongs aside) given at least ``ALT_MIN`` and at least
  ``FIX_RATIO`` times its reading, one change and, where none wins, two on different tiles (the
  ``FIX_MOST`` likeliest changes); a flower or season may be read as a tile of the hand and a
  concealed tile as a flower or season, each then moving to its group — and the likeliest that
  wins without a fifth of a tile or a second of a flower or season is proposed, each tile changed
  flagged with a note (a winning tile that was only proposed is chosen again). Another winning
  reading nearly as likely (``FIX_CLOSE``) has its tiles flagged too. Doubtful tiles are always
  flagged, never silently guessed.
- Strays: tiles away from the hand's rows, and boxes far longer than the tiles beside them (a
  wall or a marker read as a tile), are left out of the hand (:func:`hand_strays_too_large`).
"""

from __future__ import annotations

import itertools
import math
import statistics
from dataclasses import dataclass, field

from mjcam.scoring.decompose import arrangements
from mjcam.scoring.notation import Hand, Meld, NotationError, format_hand
from mjcam.scoring.tiles import INDEX

from .structure import (Layout, Structure, cut_sets as _cut_sets, is_bonus as _is_bonus, layout_of,
                        other_groupings, read_structure, set_kind as _set_kind, sets_within_reach)

LOW_CONFIDENCE = 0.80
HAND_TILES = 14  # a winning hand without kongs, bonus tiles aside
#: a row of the hand nearer the camera than its main row (or further) looks up to this many times
#: larger (smaller) in a photo taken from the player's side (see hand_and_strays)
NEAR_ROW = 1.6
#: melded sets laid face up in a row of their own this near the hand's main row (in its tiles'
#: heights) join the hand by their tiles' width (see _laid_sets)
LAID_REACH = 2.5
#: flowers and seasons laid out in a row of their own this near a row of the hand (in its tile
#: widths) are the hand's (see hand_and_strays)
BONUS_REACH = 4.0
#: a tile off the hand's main row under this share of the main row's tiles' median width and of
#: their height — and, in a row of three or more, of its own row's — is no tile of the hand: a
#: marker of the seat winds or the dealer. (A flower laid flat nearer the camera is as wide as the
#: row's tiles, only foreshortened; tiles laid beyond the row are a little smaller every way, all
#: of their row alike.)
MARKER_SIZE = 0.8
#: a box this many times as long along its row as the tiles beside it is no tile of the hand
#: (see hand_strays_too_large)
ODD_SIZE = 1.5
#: a tile's height over its width: a tile lying face up, foreshortened so that its box is wider than
#: tall, is this many times its width long (see _odd_sized)
TILE_ASPECT = 1.4
# an alternative the classifier gives less than this is never put in a reading's place by the rules
# (a bonus tile read twice, a hand that does not win): chosen on the held-out photos (models/EXPERIMENTS.md)
ALT_MIN = 0.15
# to make a winning hand, an alternative must also be at least this many times as likely as the code
# read, so a very sure tile is not changed to fit (probabilities that add to one make ALT_MIN imply a
# ratio of 0.15 / 0.85 already: this bar holds should ALT_MIN be lowered). Not tuned on photos.
FIX_RATIO = 0.1
# at most this many changes (the likeliest by ratio) are tried to make a winning hand, alone and then
# two at a time: at most 12 + 66 readings checked for a win
FIX_MOST = 12
# another winning reading at least 1 / FIX_CLOSE times as likely as the one chosen is a close call:
# the tiles of both are flagged for a person
FIX_CLOSE = 2.0


@dataclass
class TileObs:
    box: tuple[float, float, float, float]
    code: str
    confidence: float = 1.0
    alternatives: list[tuple[str, float]] = field(default_factory=list)
    orientation: str = "upright"  # upright, sideways, face-down
    #: the confidence a person is shown (calibrated), where it differs from ``confidence``: a tile
    #: is marked for a person by it; the rules that weigh readings against each other (``ALT_MIN``,
    #: ``FIX_RATIO``, ``FIX_CLOSE``) use ``confidence`` and ``alternatives``, the figures they were
    #: chosen on
    shown: float | None = None

    @property
    def sure(self) -> float:
        """The confidence that decides whether a person checks the tile."""
        return self.confidence if self.shown is None else self.shown

    @property
    def short(self) -> float:
        return min(self.box[2] - self.box[0], self.box[3] - self.box[1])

    @property
    def long(self) -> float:
        return max(self.box[2] - self.box[0], self.box[3] - self.box[1])


@dataclass
class MeldGuess:
    order: list[int]  # input indices in reading order
    rows: list[list[int]]  # positions (into order) per row
    groups: list[dict]  # {"tiles": [positions], "melded": bool, "kind": str}
    hand: str | None  # notation, or None when no hand can be written
    needs_confirmation: list[int]  # positions
    winning: int | None  # position of the winning tile
    codes: list[str]  # the code proposed for each position (after rule-based fixes)
    notes: list[str] = field(default_factory=list)
    #: no tile was set apart as the winning tile: ``winning`` is the last concealed tile, taken
    #: for it (vision.trust asks whether another choice would score differently)
    winning_guessed: bool = False
    #: the other plausible structures, written down (:func:`vision.structure.other_groupings`):
    #: ``{"what": words, "hand": notation, "tiles": [positions]}``
    structures: list[dict] = field(default_factory=list)


def row_slant(tiles: list[TileObs]) -> float:
    """How far the rows slope (radians, positive when they fall to the right): the median direction
    from each tile to its nearest neighbour, over the neighbours that lie more across than down
    (tiles in a row touch side by side; the next row is a tile's height away). 0 for fewer than
    three such tiles.

    >>> round(math.degrees(row_slant([TileObs((i * 30, i * 8, i * 30 + 30, i * 8 + 40), "1m") for i in range(5)])))
    15
    """
    centres = [((t.box[0] + t.box[2]) / 2, (t.box[1] + t.box[3]) / 2) for t in tiles]
    angles = []
    for i, (x, y) in enumerate(centres):
        others = [(math.hypot(u - x, v - y), u - x, v - y) for j, (u, v) in enumerate(centres) if j != i]
        if not others:
            break
        _, dx, dy = min(others)
        a = math.atan2(dy, dx)
        a = (a + math.pi / 2) % math.pi - math.pi / 2  # either way along the row: [-90°, 90°)
        if abs(a) < math.pi / 4:
            angles.append(a)
    if len(angles) < 3:
        return 0.0
    angles.sort()
    return angles[len(angles) // 2]


def row_frame(tiles: list[TileObs]) -> tuple[float, list[float], list[float]]:
    """The rows' slant (:func:`row_slant`) and each tile centre in a frame turned with the rows:
    how far along them, and how far down across them."""
    a = row_slant(tiles)
    cos, sin = math.cos(a), math.sin(a)
    along = [((t.box[0] + t.box[2]) / 2 * cos + (t.box[1] + t.box[3]) / 2 * sin) for t in tiles]
    down = [(-(t.box[0] + t.box[2]) / 2 * sin + (t.box[1] + t.box[3]) / 2 * cos) for t in tiles]
    return a, along, down


def reading_order(tiles: list[TileObs], frame: tuple[float, list[float], list[float]] | None = None) -> list[list[int]]:
    """Rows of input indices, top to bottom, each left to right. Rows are followed along their
    slant (:func:`row_slant`), so a hand photographed at an angle still reads as one row.
    ``frame``: the tiles' :func:`row_frame`, when the caller has it already."""
    if not tiles:
        return []
    unit = sorted(t.short for t in tiles)[len(tiles) // 2]
    _, along, down = frame or row_frame(tiles)
    idx = sorted(range(len(tiles)), key=lambda i: down[i])
    rows: list[list[int]] = []
    centres: list[float] = []
    for i in idx:
        if rows and abs(down[i] - centres[-1]) <= 0.6 * unit:
            rows[-1].append(i)
            centres[-1] = sum(down[j] for j in rows[-1]) / len(rows[-1])
        else:
            rows.append([i])
            centres.append(down[i])
    return [sorted(r, key=lambda i: along[i]) for r in rows]


def hand_and_strays(tiles: list[TileObs]) -> tuple[list[int], list[int]]:
    """Input indices of the hand and of stray tiles (loose tiles lying behind the hand, a wall,
    and boxes too large to be tiles of the hand): see :func:`hand_strays_too_large`."""
    hand, stray, large = hand_strays_too_large(tiles)
    return hand, stray + large


def hand_strays_too_large(tiles: list[TileObs]) -> tuple[list[int], list[int], list[int]]:
    """Input indices of the hand, of stray tiles (loose tiles lying behind the hand, a wall), and of
    the tiles that would be the hand's but for a box far longer than the tiles beside it
    (:func:`_odd_sized`: a wall or a marker read as a tile), each in reading order.

    The hand is the row with most tiles face up, any row of three or more tiles of about its size, and
    tiles of about its size lying within two tile heights of a row already kept (a bonus tile or
    the winning tile set a little off the line) — nearest rows first, and once the rows kept hold
    a whole hand (``HAND_TILES`` tiles, bonus tiles aside) no further row of three or more tiles
    joins unless it is all bonus tiles (a hand with a kong has a tile more, so one or two tiles
    off the line still join). While the rows kept hold fewer than a whole hand, a row of three or
    more within two tile heights of the main row joins even where its tiles look up to
    ``NEAR_ROW`` times larger or smaller: a hand laid in two rows, photographed from the player's
    side, shows its front row larger (a row mostly face down, a wall, does not). Flowers and
    seasons of a row within ``BONUS_REACH`` tile widths of a row kept, and no further to either
    side of the hand, join the hand too (a player lays them out behind or beside it), the other
    tiles of their row not, nor a flower or season the hand holds already. A row of melded sets
    laid face up near the main row joins while the hand is short, judged by its tiles' width
    (:func:`_laid_sets`: lying flat, their height is foreshortened). A tile smaller every way than
    the hand's tiles and its own row's (``MARKER_SIZE``) is a marker. Everything else is stray.
    """
    rows = reading_order(tiles)
    if len(rows) <= 1:
        odd = _odd_sized(tiles, rows, rows[0]) if rows else set()
        return [i for r in rows for i in r if i not in odd], [], [i for r in rows for i in r if i in odd]

    def size(row):
        return sorted(tiles[i].short for i in row)[len(row) // 2]

    def centre(row):
        return sum((tiles[i].box[1] + tiles[i].box[3]) / 2 for i in row) / len(row)

    main = max(rows, key=lambda r: (sum(tiles[i].code != "back" for i in r), len(r)))  # (a wall lies face down)
    unit = size(main)
    wide = statistics.median(tiles[i].box[2] - tiles[i].box[0] for i in main)  # the main row's tiles, across
    tall = statistics.median(tiles[i].box[3] - tiles[i].box[1] for i in main)  # and down
    similar = sorted((r for r in rows if 0.75 <= size(r) / unit <= 1.33), key=lambda r: abs(centre(r) - centre(main)))
    kept = [main]
    count = sum(not _is_bonus(tiles[i].code) for i in main)

    def take(r) -> None:
        nonlocal count
        if any(r is k for k in kept):
            return
        if count >= HAND_TILES and len(r) >= 3 and not all(_is_bonus(tiles[i].code) for i in r):
            return  # a whole hand is in already: another row of tiles is not part of it
        kept.append(r)
        count += sum(not _is_bonus(tiles[i].code) for i in r)

    for r in similar:  # rows of sets, nearest first
        if len(r) >= 3:
            take(r)
    for r in sorted(rows, key=lambda r: abs(centre(r) - centre(main))):  # a row of the hand nearer the camera
        q = size(r) / unit
        face_up = sum(tiles[i].code != "back" for i in r) > len(r) / 2  # (a wall lies face down)
        if (count < HAND_TILES and len(r) >= 3 and face_up and 1 / NEAR_ROW <= q <= NEAR_ROW
                and abs(centre(r) - centre(main)) <= 2.6 * max(unit, size(r))):
            take(r)
    for r in similar:  # tiles set a little off a row kept
        if any(abs(centre(r) - centre(k)) <= 2.6 * unit for k in kept):
            take(r)
    for r in sorted(rows, key=lambda r: abs(centre(r) - centre(main))):  # melds lying face up, foreshortened
        if count < HAND_TILES and len(r) >= 3 and _laid_sets(tiles, r, centre(main), wide, tall):
            take(r)
    held = {tiles[i].code for k in kept for i in k if _is_bonus(tiles[i].code)}
    reach = BONUS_REACH * unit
    left = min(tiles[i].box[0] for k in kept for i in k) - reach  # beside the hand's rows, not across the table
    right = max(tiles[i].box[2] for k in kept for i in k) + reach
    bonus: set[int] = set()
    for r in rows:  # a bonus tile is one of a kind: one the hand holds already does not join again
        if any(r is k for k in kept) or not 1 / NEAR_ROW <= size(r) / unit <= NEAR_ROW or not any(
                abs(centre(r) - centre(k)) <= reach for k in kept):
            continue
        for i in r:
            x = (tiles[i].box[0] + tiles[i].box[2]) / 2
            if _is_bonus(tiles[i].code) and tiles[i].code not in held and left <= x <= right:
                held.add(tiles[i].code)
                bonus.add(i)
    ours = {i for r in rows for i in r if any(r is k for k in kept) or i in bonus}
    for r in rows:  # a tile smaller every way than the hand's and than its own row's: a marker, not the hand's
        if r is main:
            continue
        w = statistics.median(tiles[i].box[2] - tiles[i].box[0] for i in r) if len(r) >= 3 else wide
        h = statistics.median(tiles[i].box[3] - tiles[i].box[1] for i in r) if len(r) >= 3 else tall
        ours -= {i for i in r if tiles[i].box[2] - tiles[i].box[0] < MARKER_SIZE * min(wide, w)
                 and tiles[i].box[3] - tiles[i].box[1] < MARKER_SIZE * min(tall, h)}
    odd = _odd_sized(tiles, rows, main) & ours
    return ([i for r in rows for i in r if i in ours and i not in odd],
            [i for r in rows for i in r if i not in ours], [i for r in rows for i in r if i in odd])


def _laid_sets(tiles: list[TileObs], row: list[int], main_y: float, main_width: float, main_height: float) -> bool:
    """Whether a row is melded sets laid face up near the hand's main row (its centre ``main_y``, its
    tiles' median width and height), seen from the seat: its tiles (flowers and seasons aside) cut
    into legal sets in the order they lie, they are about as wide as the main row's (within
    ``NEAR_ROW``; lying face up, a tile is foreshortened in height, not in width), and the row lies
    within ``LAID_REACH`` of the main row's tile heights. (Loose tiles on a table seldom cut into
    sets; the short side of these tiles says nothing, lying flat.)"""
    codes = [tiles[i].code for i in row if not _is_bonus(tiles[i].code)]
    if len(codes) < 3 or _cut_sets(codes) is None:
        return False
    width = statistics.median(tiles[i].box[2] - tiles[i].box[0] for i in row)
    y = statistics.mean((tiles[i].box[1] + tiles[i].box[3]) / 2 for i in row)
    return 1 / NEAR_ROW <= width / main_width <= NEAR_ROW and abs(y - main_y) <= LAID_REACH * main_height


def _odd_sized(tiles: list[TileObs], rows: list[list[int]], main: list[int]) -> set[int]:
    """The tiles whose box is over ``ODD_SIZE`` times as long along the row (as wide: rows run
    across) as the median long side of their neighbours in their row (up to two on either side): a
    wall or a marker read as a tile. A tile lying sideways is as wide as one standing is tall, and
    neighbours in a row seen at a slant differ far less; a tile's box stretched across the row by
    what lies below it (a logo, its reflection) is still that tile. A tile of a row of fewer than
    three is measured against the ``main`` row's tiles, and there by its shape: a flower laid
    nearer the camera is larger every way, a marker or a wall longer only. A neighbour lying face
    up seen from the seat, foreshortened so that its box is wider than tall, counts at its length
    seen straight on (its width times ``TILE_ASPECT``) for a tile no taller than it: a claimed tile
    turned sideways beside it is that long, and shorter (a box wider than tall over a tile whose
    lower half lies hidden behind a rack says nothing of its length)."""
    median = statistics.median
    whole = median(tiles[i].long for i in main) if len(main) >= 3 else 0.0
    short = median(tiles[i].short for i in main) if len(main) >= 3 else 0.0

    def length(j: int, i: int) -> float:  # neighbour j's length, as tile i is measured against it
        w, h = tiles[j].box[2] - tiles[j].box[0], tiles[j].box[3] - tiles[j].box[1]
        return w * TILE_ASPECT if w > h >= tiles[i].box[3] - tiles[i].box[1] else tiles[j].long

    out = set()
    for r in rows:
        for k, i in enumerate(r):
            if len(r) >= 3:
                ref = median(length(j, i) for j in r[max(0, k - 2):k] + r[k + 1:k + 3])
            else:  # nearer the camera, a tile's short side grows as much as its long side
                ref = whole * max(1.0, tiles[i].short / short) if whole else 0.0
            if ref and tiles[i].box[2] - tiles[i].box[0] > ODD_SIZE * ref:  # its length along the row
                out.add(i)
    return out


def _hand_count(groups: list[dict]) -> tuple[int, int]:
    """The hand's tiles (bonus tiles aside, a kong counted as three, however many of its tiles
    the photo shows) and its kongs."""
    kongs = sum(g["kind"] in ("kong", "concealed_kong") for g in groups)
    return sum(3 if g["kind"] in ("kong", "concealed_kong") else len(g["tiles"])
               for g in groups if g["kind"] not in ("bonus", "stray")), kongs


def _count_note(groups: list[dict]) -> str | None:
    """A note where the hand's tiles (bonus tiles aside, a kong counted as three) are not the
    ``HAND_TILES`` a win has: what a person should look for in the photo."""
    n, kongs = _hand_count(groups)
    if n == 0 or n == HAND_TILES:
        return None
    tiles = f"{n} tiles in the hand where a win has {HAND_TILES}" + (" (a kong counted as three)" if kongs else "")
    if n < HAND_TILES:
        return tiles + ": a tile may be missed (cut off at the photo's edge, hidden or too small to find)"
    return tiles + ": a kong may not be set apart, a tile counted twice, or one lying beside the hand taken into it"


NO_WINNING_TILE = "no tile set apart as the winning tile"


def _winning_tile(runs: list[list[int]], codes: list[str], concealed: list[int],
                  notes: list[str]) -> tuple[int | None, bool]:
    """The winning tile's position and whether it is guessed: a lone concealed tile set apart at
    the very end; else the last concealed tile, proposed with a note (not flagged: only a choice
    that changes the score needs a person)."""
    tile_runs = [[p for p in r if not _is_bonus(codes[p])] for r in runs]
    tile_runs = [r for r in tile_runs if r]
    lone = tile_runs[-1] if tile_runs else []
    if len(lone) == 1 and lone[0] in concealed and len(tile_runs) > 1:
        return lone[0], False
    if concealed:
        notes.append(NO_WINNING_TILE + ": the last concealed tile is proposed")
        return concealed[-1], True
    return None, False


def _tally(groups: list[dict], codes: list[str]) -> dict[str, int]:
    """How many of each code the groups hold (a concealed kong four of its tile, and so a kong that
    shows three: the one under its fourth is hidden)."""
    count: dict[str, int] = {}
    for g in groups:
        if g["kind"] == "concealed_kong" or (g["kind"] == "kong" and len(g["tiles"]) < 4):
            code = g["code"] if g["kind"] == "concealed_kong" else codes[g["tiles"][0]]
            count[code] = count.get(code, 0) + 4
            continue
        for p in g["tiles"]:
            count[codes[p]] = count.get(codes[p], 0) + 1
    return count


def _changed(codes: list[str], change) -> list[str]:
    """``codes`` with a change (``(ratio, position, code)`` each) made."""
    trial = list(codes)
    for _, p, alt in change:
        trial[p] = alt
    return trial


def _within_limits(groups: list[dict], trial: list[str], change) -> bool:
    """Whether a change (``trial``: the codes with it made) brings no code it puts in over what a
    set has: four of a tile, one of a flower or season."""
    count = _tally(groups, trial)
    return all(count[alt] <= (1 if _is_bonus(alt) else 4) for _, _, alt in change)


def _candidates(groups: list[dict], codes: list[str], tiles: list[TileObs], order: list[int],
                winning: int | None = None):
    """The changes the rules may make for a winning hand, likeliest first (the ``FIX_MOST``
    likeliest): ``(ratio, position, code)`` for each alternative of a hand tile (concealed kongs
    aside) given at least ``ALT_MIN`` and at least ``FIX_RATIO`` times the probability of the code
    in ``codes`` (``ratio``: the two divided). A tile read as a flower or season may become a tile
    of the hand (a pictorial 1-bamboo read as a flower, say), and a tile of the hand a flower or
    season (a concealed tile other than the ``winning`` one); one bonus tile never becomes another
    (:meth:`MeldGrouper._one_of_each` reads those)."""
    found: dict[tuple[int, str], float] = {}
    for g in groups:
        if g["kind"] in ("concealed_kong", "stray"):
            continue
        for p in g["tiles"]:
            t = tiles[order[p]]
            probs = dict(t.alternatives)
            probs[t.code] = t.confidence  # codes[p] may be an alternative taken already
            now = max(probs.get(codes[p], t.confidence), 1e-6)
            for alt, q in probs.items():
                if alt == codes[p] or alt not in INDEX:
                    continue
                if _is_bonus(alt) and (_is_bonus(codes[p]) or g["kind"] != "concealed" or p == winning):
                    continue
                if q >= ALT_MIN and q / now >= FIX_RATIO:
                    found[(p, alt)] = q / now
    ranked = sorted(((r, p, alt) for (p, alt), r in found.items()), key=lambda c: (-c[0], c[1], c[2]))
    return ranked[:FIX_MOST]


def _regrouped(groups: list[dict], codes: list[str], winning: int | None) -> list[dict]:
    """The groups with each concealed or bonus tile in the group its code belongs to: a tile of the
    bonus group read now as a tile of the hand joins the concealed tiles, a concealed tile read now
    as a flower or season the bonus tiles (a group left empty goes). The ``winning`` tile stays
    where it is (read as a flower, it makes no hand)."""
    out, moved = [], {"bonus": [], "concealed": []}
    for g in groups:
        if g["kind"] not in ("bonus", "concealed"):
            out.append(g)
            continue
        other = "concealed" if g["kind"] == "bonus" else "bonus"
        stay = [p for p in g["tiles"] if (g["kind"] == "bonus") == _is_bonus(codes[p]) or p == winning]
        moved[other] += [p for p in g["tiles"] if p not in stay]
        if stay:
            out.append(dict(g, tiles=stay))
    for kind, ps in moved.items():
        if not ps:
            continue
        g = next((g for g in out if g["kind"] == kind), None)
        if g is None:
            out.append({"tiles": sorted(ps), "melded": False, "kind": kind})
        else:
            g["tiles"] = sorted(g["tiles"] + ps)
    return out


class MeldGrouper:
    """``grouper(tiles)`` -> :class:`MeldGuess`."""

    def __init__(self, low_confidence: float = LOW_CONFIDENCE):
        self.low_confidence = low_confidence

    def __call__(self, tiles: list[TileObs]) -> MeldGuess:
        if not tiles:
            return MeldGuess([], [], [], None, [], None, [])
        rows_idx = reading_order(tiles)
        order = [i for r in rows_idx for i in r]
        pos = {i: p for p, i in enumerate(order)}
        codes = [tiles[i].code for i in order]
        flagged = {pos[i] for i, t in enumerate(tiles) if t.sure < self.low_confidence}
        lay = layout_of(codes, [tiles[i] for i in order], [[pos[i] for i in r] for r in rows_idx])
        mended = sets_within_reach(lay, ALT_MIN, FIX_RATIO)
        said = [f"tile {p + 1} taken as {c}, the reader's second choice (it read {codes[p]}): only then are the "
                "tiles laid apart in its row melded sets; check it" for p, c in sorted(mended.items())]
        if mended:
            for p, c in mended.items():
                codes[p] = c
            flagged |= set(mended)
            lay = layout_of(codes, lay.seen, lay.rows, lay.apart)
        runs = [run for row in lay.runs for run in row]
        found = read_structure(lay, self.low_confidence)
        notes = said + found.notes
        flagged |= found.flagged
        groups = [s.as_dict() for s in found.sets]
        bonus = next((g["tiles"] for g in groups if g["kind"] == "bonus"), [])
        concealed = next((g["tiles"] for g in groups if g["kind"] == "concealed"), [])
        if found.guessed:
            notes.append(NO_WINNING_TILE + ": the last concealed tile is proposed")
        twice = self._bonus_once(bonus, codes, tiles, order, flagged, notes)
        self._four_at_most([g for g in groups if g["kind"] not in ("concealed", "stray")], concealed, codes,
                           tiles, order, flagged, notes)
        groups = self._counted(groups, codes, found.winning, notes)
        hand, winning, guessed = self._hand(groups, codes, (found.winning, found.guessed), runs, flagged, tiles,
                                            order, notes)
        if hand is None or not self._wins(hand):
            other = self._other_structure(lay, found, codes, runs, flagged, tiles, order)
            if other is not None:
                groups, hand, winning, guessed, said = other
                notes = [n for n in notes if not n.startswith(NO_WINNING_TILE)] + said
        count = _count_note(groups)  # (once the hand is read: a bonus tile read as a tile of it counts)
        if count:
            notes.append(count)
        notes += [f"tiles {k + 1} and {p + 1} both read {codes[k]}: a set has one; check them"
                  for k, p in twice if codes[k] == codes[p]]  # (the fix for a win may have read one again)
        groups.sort(key=lambda g: g["tiles"][0])
        others = []
        if hand is not None:
            for what, gs, where in other_groupings(lay, groups, winning):
                text = self._write(gs, codes, winning)
                if text is not None and text != hand:
                    others.append({"what": what, "hand": text, "tiles": sorted(where)})
        return MeldGuess(order, [[pos[i] for i in r] for r in rows_idx], groups, hand, sorted(flagged),
                         winning, codes, notes, guessed, others)

    def _other_structure(self, lay: Layout, found: Structure, codes: list[str], runs, flagged: set[int],
                         tiles: list[TileObs], order: list[int]):
        """Where the likeliest structure makes no winning hand, the first plausible other one that
        does (:func:`vision.structure.other_groupings`, a set's place in the layout), the tiles of
        the set that changes flagged with a note:
        ``(groups, hand, winning, guessed, notes)``, or None."""
        likeliest = [s.as_dict() for s in found.sets]
        for what, groups, changed in other_groupings(lay, likeliest, found.winning, layout_only=True):
            said: list[str] = []
            more = set(flagged)
            hand, winning, guessed = self._hand(groups, codes, (found.winning, found.guessed), runs, more, tiles,
                                                order, said)
            if hand is not None and self._wins(hand):
                flagged |= more | set(changed)
                return groups, hand, winning, guessed, said + [
                    f"{what}: only that makes a winning hand; check it"]
        return None

    def _bonus_once(self, bonus: list[int], codes: list[str], tiles: list[TileObs], order: list[int],
                    flagged: set[int], notes: list[str]) -> list[tuple[int, int]]:
        """A flower or season read twice (:meth:`_one_of_each`): both tiles flagged, the less sure
        one given its alternative in ``codes`` where it has one, with a note. The pairs left read
        alike, ``(position, position)``, are returned for a note once the hand is read."""
        twice = self._one_of_each(bonus, codes, tiles, order)
        for k, p, alt in twice:
            flagged.update((k, p))  # either reading may be the wrong one
            if alt is not None:
                notes.append(f"tile {p + 1} read as {alt} (not {codes[p]}): a set has one {codes[p]}")
                codes[p] = alt
        return [(k, p) for k, p, alt in twice if alt is None]

    @staticmethod
    def _four_at_most(groups: list[dict], concealed: list[int], codes: list[str], tiles: list[TileObs],
                      order: list[int], flagged: set[int], notes: list[str]) -> None:
        """A set has four of each tile: where a code is read more often, its least sure readings take
        their likeliest alternative (given at least ``ALT_MIN``) of which fewer than four are read,
        and are flagged with a note; with no such alternative, the code's tiles are flagged."""
        positions = list(concealed) + [p for g in groups if g["kind"] != "concealed_kong" for p in g["tiles"]]
        count = _tally(groups + [{"kind": "concealed", "tiles": list(concealed)}], codes)
        hidden = {codes[g["tiles"][0]] for g in groups if g["kind"] == "kong" and len(g["tiles"]) < 4}
        for code in [c for c, n in count.items() if n > 4 and c in INDEX]:
            mine = sorted((p for p in positions if codes[p] == code), key=lambda p: tiles[order[p]].confidence)
            for p in mine[:count[code] - 4]:
                alts = [(c, q) for c, q in tiles[order[p]].alternatives  # (a flower: see _fix)
                        if c in INDEX and not _is_bonus(c) and c != code and count.get(c, 0) < 4 and q >= ALT_MIN]
                flagged.add(p)
                if not alts:
                    notes.append(f"{count[code]} tiles read {code}"
                                 + (" (one of them hidden under a kong's fourth)" if code in hidden else "")
                                 + ": a set has four; check them")
                    flagged.update(mine)
                    break
                alt = max(alts, key=lambda a: a[1])[0]
                notes.append(f"tile {p + 1} read as {alt} (not {code}): a set has four {code}")
                codes[p] = alt
                count[code] -= 1
                count[alt] = count.get(alt, 0) + 1

    def _counted(self, groups: list[dict], codes: list[str], winning: int | None, notes: list[str]) -> list[dict]:
        """The groups with four alike in a hand too long taken as concealed kongs laid face up
        (:meth:`_face_up_kongs`)."""
        extra = _hand_count(groups)[0] - HAND_TILES
        if extra > 0:
            kongs = self._face_up_kongs(groups, codes, winning, extra)
            if kongs:
                groups, faces = kongs
                notes += [f"four {c} in the concealed part taken as a concealed kong laid face up" for c in faces]
        return groups

    def _hand(self, groups: list[dict], codes: list[str], win: tuple[int | None, bool], runs: list[list[int]],
              flagged: set[int], tiles: list[TileObs], order: list[int], notes: list[str]):
        """The hand in notation, the winning tile and whether it is guessed (``win``: as read, from
        the ``runs``); where the hand is no win and a reading within reach wins (:meth:`_fix`), the
        likeliest put in ``codes``, each tile changed flagged with a note, and the winning tile
        chosen again where it was guessed (a lone tile read as a flower at the end may be the
        winning tile after all); the tiles of another winning reading nearly as likely
        (``FIX_CLOSE``) flagged too, with a note."""
        winning, guessed = win
        hand = self._write(groups, codes, winning)
        if hand is not None and self._wins(hand):
            return hand, winning, guessed
        readings = self._fix(groups, codes, win, runs, tiles, order)
        if not readings:
            return hand, winning, guessed
        best, change, (won, won_guessed) = readings[0]
        close = [other for ratio, other, _ in readings[1:] if ratio * FIX_CLOSE >= best]
        close_notes = ["another winning reading is nearly as likely: " + ", ".join(
            f"tile {p + 1} as {alt} (not {codes[p]})" for _, p, alt in other) + "; the tiles of both are marked ?: "
            "check them" for other in close]
        for _, p, alt in change:
            notes.append(f"tile {p + 1} read as {alt} (not {codes[p]}) to make a winning hand")
            codes[p] = alt
        flagged.update(p for c in [change] + close for _, p, _ in c)
        notes += close_notes
        # a bonus tile read as a tile of the hand joins it, and back
        groups[:] = _regrouped(groups, codes, None if guessed else winning)
        if guessed and not won_guessed:  # the lone tile at the end, read as a flower before
            notes[:] = [n for n in notes if not n.startswith(NO_WINNING_TILE)]
        for g in groups:  # a claimed set changed may be another kind of set now
            if g["melded"] and g["kind"] not in ("bonus", "concealed", "concealed_kong"):
                g["kind"] = _set_kind([codes[p] for p in g["tiles"]]) or g["kind"]
        return self._write(groups, codes, won), won, won_guessed

    @staticmethod
    def _write(groups: list[dict], codes: list[str], winning: int | None) -> str | None:
        """The hand in notation, or None when some tile cannot be written (a back, a bad set)."""
        melds: list[Meld] = []
        concealed: list[int] = []
        bonus: list[int] = []
        for g in groups:
            if g["kind"] == "stray":
                continue
            if g["kind"] == "concealed_kong":
                if g["code"] not in INDEX:
                    return None
                melds.append(Meld("kong", (INDEX[g["code"]],) * 4, concealed=True))
                continue
            cs = [codes[p] for p in g["tiles"]]
            if any(c not in INDEX for c in cs):
                return None
            if g["kind"] == "bonus":
                bonus += [INDEX[c] for c in cs]
            elif g["kind"] == "concealed":
                concealed += [INDEX[c] for c in cs]
            else:
                if g["kind"] == "kong" and len(set(cs)) == 1:
                    cs = cs[:1] * 4  # (the fourth on top: the one under it may be hidden)
                kind = _set_kind(cs)
                if kind is None:
                    return None
                melds.append(Meld(kind, tuple(sorted(INDEX[c] for c in cs)), concealed=False))
        if winning is not None and _is_bonus(codes[winning]):
            return None  # a flower or season is never the winning tile
        win = INDEX[codes[winning]] if winning is not None and codes[winning] in INDEX else None
        hand = Hand(tuple(sorted(concealed)), tuple(melds), tuple(sorted(bonus)), win)
        return format_hand(hand)

    def _face_up_kongs(self, groups: list[dict], codes: list[str], winning: int | None, extra: int):
        """A hand ``extra`` tiles too long, one for each kong of four shown face up in its concealed
        part (the winning tile not among them): ``(groups with those taken as concealed kongs, their
        codes)`` if that makes a win, else None."""
        concealed = next((g for g in groups if g["kind"] == "concealed"), None)
        if concealed is None:
            return None
        by_code: dict[str, list[int]] = {}
        for p in concealed["tiles"]:
            by_code.setdefault(codes[p], []).append(p)
        fours = [ps for c, ps in by_code.items() if len(ps) == 4 and c in INDEX and winning not in ps]
        if len(fours) != extra:
            return None
        taken = {p for ps in fours for p in ps}
        rest = [p for p in concealed["tiles"] if p not in taken]
        trial = [g for g in groups if g is not concealed] + [
            {"tiles": ps, "melded": False, "kind": "concealed_kong", "code": codes[ps[0]]} for ps in fours]
        if rest:
            trial.append({"tiles": rest, "melded": False, "kind": "concealed"})
        hand = self._write(trial, codes, winning)
        if hand is None or not self._wins(hand):
            return None
        return trial, [codes[ps[0]] for ps in fours]

    @staticmethod
    def _wins(text: str) -> bool:
        from mjcam.scoring.notation import parse_hand

        try:
            h = parse_hand(text)
        except NotationError:
            return False
        return bool(arrangements(h, True))

    @staticmethod
    def _one_of_each(bonus: list[int], codes: list[str], tiles: list[TileObs], order: list[int]):
        """A set has one of each flower and season: where one is read twice, the less sure reading
        takes its likeliest alternative among the bonus tiles not read yet, if the classifier gives
        it at least ``ALT_MIN``. One ``(surer position, less sure position, code or None)`` for each
        tile read again (None: no such alternative)."""
        taken = {codes[p] for p in bonus}
        kept: dict[str, int] = {}
        out = []
        for p in sorted(bonus, key=lambda p: -tiles[order[p]].confidence):
            if codes[p] not in kept:
                kept[codes[p]] = p
                continue
            alts = [(c, q) for c, q in tiles[order[p]].alternatives if _is_bonus(c) and c not in taken and q >= ALT_MIN]
            alt = max(alts, key=lambda a: a[1])[0] if alts else None
            if alt is not None:
                taken.add(alt)
            out.append((kept[codes[p]], p, alt))
        return out

    def _fix(self, groups, codes, win, runs, tiles, order) -> list[tuple[float, tuple, tuple]]:
        """The winning readings within reach, likeliest first: ``(likelihood ratio, change, (winning
        tile, guessed))``, a change being one or, where none wins, two :func:`_candidates` on
        different tiles (its ratio the product of theirs) that bring no code over what a set has
        (:func:`_within_limits`). A winning tile set apart stays the winning tile; one guessed
        (``win``) is chosen again from each reading's tiles (:func:`_winning_tile`)."""
        winning, guessed = win
        candidates = _candidates(groups, codes, tiles, order, None if guessed else winning)
        for size in (1, 2):
            found = []
            for change in itertools.combinations(candidates, size):
                if len({p for _, p, _ in change}) < size:
                    continue
                trial = _changed(codes, change)
                if not _within_limits(groups, trial, change):
                    continue
                regrouped = _regrouped(groups, trial, None if guessed else winning)
                won = (winning, False) if not guessed else _winning_tile(
                    runs, trial, next((g["tiles"] for g in regrouped if g["kind"] == "concealed"), []), [])
                text = self._write(regrouped, trial, won[0])
                if text and self._wins(text):
                    found.append((math.prod(r for r, _, _ in change), change, won))
            if found:
                return sorted(found, key=lambda f: -f[0])
        return []
