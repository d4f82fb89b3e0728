"""Scoring patterns as data: one small predicate each, with a stable id, English and Chinese name.

A predicate takes the :class:`Features` of one reading of a hand and returns how many times
the pattern is present (0 when absent; most patterns are 0 or 1, a few such as dragon pungs
count each occurrence). What a pattern is worth, what it replaces and whether it is a limit
hand is not decided here but by the rule preset (``scoring.presets``, ``scoring.rules``).

Each pattern also declares the reading shapes it is defined on (a pattern that names a hand
shape tests that shape) and what a reading needs before the predicate can hold (``needs``: a few
cheap facts such as "four chows" or "a dragon pung"), so the engine calls only the predicates
that can match. Features are integers and bit masks (one bit per tile), computed once per hand
and once per reading.

>>> from mjcam.scoring.notation import parse_hand
>>> from mjcam.scoring.decompose import arrangements
>>> from mjcam.scoring.context import WinContext
>>> h = parse_hand("[RdRdRd] 123s 45s 999s NN +6s")
>>> f = Features(h, arrangements(h, True)[0], WinContext(), {})
>>> [PATTERNS[p](f) for p in ("half_flush", "dragon_pung", "full_flush")]
[1, 1, 0]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .context import FLAGS, WinContext
from .decompose import (DUP, MIXED_TRIPLE, OLD_YOUNG, QUAD, STRAIGHT, TRIPLE, TWO_DUPS, Arrangement, _chow_stats,
                        chow_facts, common_numbers)
from .notation import Hand
from .tiles import FIRST_FLOWER, WINDS

# ---------------------------------------------------------------- tile masks (bit t = tile t)

_DRAGONS = 0b111 << 31
_WINDS = 0b1111 << 27
_HONOURS = _DRAGONS | _WINDS
_TERMINALS = sum(1 << t for t in range(27) if t % 9 in (0, 8))
_ORPHANS = _TERMINALS | _HONOURS
_SUIT_MASKS = tuple(0x1FF << (9 * s) for s in range(3))
_STRAIGHTS = tuple(0b1001001 << (9 * s) for s in range(3))            # chows 123 456 789 of a suit
_TERMINAL_PAIRS = tuple((1 << 9 * s) | (1 << 9 * s + 8) for s in range(3))    # pungs 111 999
_TERMINAL_CHOWS = tuple((1 << 9 * s) | (1 << 9 * s + 6) for s in range(3))    # chows 123 789
_OUTSIDE_CHOWS = sum(_TERMINAL_CHOWS)
_TERM_1, _TERM_2, _TERM_3 = _TERMINAL_PAIRS
_STRAIGHT_1, _STRAIGHT_2, _STRAIGHT_3 = _STRAIGHTS
_OLD_YOUNG_1, _OLD_YOUNG_2, _OLD_YOUNG_3 = _TERMINAL_CHOWS
_SHIFT_STARTS = sum(1 << (9 * s + k) for s in range(3) for k in range(7))     # n with n+1, n+2 in suit
_CHOW_STARTS = _SHIFT_STARTS
_EYES = 0b010010010  # numbers 2, 5 and 8 (bit n-1)

# ---------------------------------------------------------------- what a reading has (``needs``)

TRAITS = ("chow2", "chow3", "chow4", "pung1", "pung2", "pung3", "pung4", "kong2", "kong3",
          "dragon_pung", "wind_pung", "honours", "no_honours", "no_suits", "one_suit", "two_suits",
          "orphans_only", "no_orphans", "some_orphan", "numbers2", "numbers3", "four_alike",
          "bonus_tiles", "no_bonus_tiles", "self_drawn", "discard", "concealed", "melded4",
          "wait_single", "wait_closed", "wait_edge", "wait_two_sided", "wait_one", "wait_chow1",
          "last_tile", "robbing_kong", "kong_replacement", "double_kong", "heavenly", "earthly",
          "man", "last_of_kind", "ready",
          # hand facts a few patterns need
          "flowers_in_play", "three_suits", "terminal_pair",
          # reading facts: the pattern itself, where a bit test or two decides it
          "eyes_pair", "linked", "seat_pung", "round_pung", "dup_chow", "two_dups", "triple_chow",
          "quad_chow", "straight", "mixed_triple", "old_young", "outside",
          "value_pung", "bridge", "kongless", "pair_suited", "pair_not_value_wind", "pair_no_value",
          "suits2plus",
          # the reading's shape
          "shape_standard", "shape_seven_pairs", "shape_thirteen_orphans", "shape_bonus")
TRAIT = {name: 1 << i for i, name in enumerate(TRAITS)}
_T = TRAIT
SHAPE_TRAIT = {shape: _T["shape_" + shape] for shape in ("standard", "seven_pairs", "thirteen_orphans", "bonus")}
_CHOW_TRAITS = (0, 0, _T["chow2"], _T["chow2"] | _T["chow3"], _T["chow2"] | _T["chow3"] | _T["chow4"])
_PUNG_TRAITS = tuple(sum(_T[f"pung{k}"] for k in range(1, n + 1)) for n in range(5))
_KONG_TRAITS = (0, 0, _T["kong2"], _T["kong2"] | _T["kong3"], _T["kong2"] | _T["kong3"])
_WAIT_TRAITS = {
    "single": _T["wait_single"] | _T["wait_one"],
    "closed": _T["wait_closed"] | _T["wait_one"] | _T["wait_chow1"],
    "edge": _T["wait_edge"] | _T["wait_one"] | _T["wait_chow1"],
    "two-sided": _T["wait_two_sided"],
}
# WinContext.flags (one bit per name of context.FLAGS) -> traits
_FLAG_TABLE = tuple(
    sum(_T[name] for i, name in enumerate(FLAGS) if bits >> i & 1)
    | (_T["kong_replacement"] if bits >> FLAGS.index("double_kong") & 1 else 0)
    for bits in range(1 << len(FLAGS)))
_WIND_TILE = {w: 27 + i for i, w in enumerate(WINDS)}
_SUIT_COUNT = (0, 1, 1, 2, 1, 2, 2, 3)
_SUIT_TRAITS = tuple(_T["no_suits"] if n == 0 else _T["one_suit"] if n == 1
                     else _T["two_suits"] | _T["suits2plus"] if n == 2 else _T["three_suits"] | _T["suits2plus"]
                     for n in _SUIT_COUNT)
_NUMBER_TRAITS = tuple((_T["numbers3"] if n <= 3 else 0) | (_T["numbers2"] if n <= 2 else 0) for n in range(11))
(_T_HONOURS, _T_NO_HONOURS, _T_BONUS, _T_NO_BONUS, _T_SELF, _T_DISCARD, _T_ORPHANS_ONLY, _T_SOME_ORPHAN,
 _T_NO_ORPHANS, _T_FOUR_ALIKE, _T_DRAGON_PUNG, _T_WIND_PUNG, _T_CONCEALED, _T_MELDED4, _T_FLOWERS,
 _T_THREE_SUITS, _T_TERMINAL_PAIR, _T_EYES, _T_LINKED, _T_SEAT_PUNG, _T_ROUND_PUNG, _T_DUP, _T_TWO_DUPS,
 _T_TRIPLE, _T_QUAD, _T_STRAIGHT, _T_MIXED_TRIPLE, _T_OLD_YOUNG, _T_OUTSIDE, _T_VALUE_PUNG, _T_BRIDGE, _T_KONGLESS,
 _T_PAIR_SUITED, _T_PAIR_NOT_VALUE_WIND, _T_PAIR_NO_VALUE) = (
    _T[n] for n in ("honours", "no_honours", "bonus_tiles", "no_bonus_tiles", "self_drawn", "discard",
                    "orphans_only", "some_orphan", "no_orphans", "four_alike", "dragon_pung", "wind_pung",
                    "concealed", "melded4", "flowers_in_play", "three_suits", "terminal_pair", "eyes_pair",
                    "linked", "seat_pung", "round_pung", "dup_chow", "two_dups", "triple_chow", "quad_chow",
                    "straight", "mixed_triple", "old_young", "outside", "value_pung", "bridge", "kongless",
                    "pair_suited", "pair_not_value_wind", "pair_no_value"))
_EYE_PAIRS = sum(1 << t for t in range(27) if t % 9 in (1, 4, 7))
_CHOW_FACT_TRAITS = tuple(
    sum(trait for bit, trait in ((DUP, _T_DUP), (TWO_DUPS, _T_TWO_DUPS), (TRIPLE, _T_TRIPLE), (QUAD, _T_QUAD),
                                 (STRAIGHT, _T_STRAIGHT), (MIXED_TRIPLE, _T_MIXED_TRIPLE), (OLD_YOUNG, _T_OLD_YOUNG))
        if facts & bit) for facts in range(128))


def _bits(mask: int) -> int:
    return mask.bit_count()


def _context_facts(ctx: WinContext) -> tuple:
    """(seat wind tile, round wind tile, self-drawn, traits, value pungs as a mask, the traits of
    each tile as the pair) of a WinContext, kept on it (contexts are immutable and reused)."""
    tr = (_T_SELF if ctx.discarder is None else _T_DISCARD) | (_T_FLOWERS if ctx.flowers_in_play else 0)
    if ctx.flags:
        tr |= _FLAG_TABLE[ctx.flags]
    seat, rnd = _WIND_TILE[ctx.seat], _WIND_TILE[ctx.round]
    pair_traits = []
    for t in range(34):
        if t < 27:
            pt = _T_PAIR_SUITED | _T_PAIR_NOT_VALUE_WIND | _T_PAIR_NO_VALUE | (_T_EYES if _EYE_PAIRS >> t & 1 else 0)
        elif t != seat and t != rnd:
            pt = _T_PAIR_NOT_VALUE_WIND | (_T_PAIR_NO_VALUE if t < 31 else 0)
        else:
            pt = 0
        pair_traits.append(pt)
    facts = ctx.__dict__["_features"] = (seat, rnd, ctx.discarder is None, tr, _DRAGONS | 1 << seat | 1 << rnd,
                                         tuple(pair_traits))
    return facts


class Features:
    """What the predicates look at. Hand-level facts are computed once; :meth:`read` (or the
    engine's fast path, :meth:`set_reading`) fills in one reading's sets, pair and wait, so one
    object serves every reading of a hand.

    Tiles are integers 0..33 and sets of tiles are bit masks: ``pung_mask`` has bit t set for a
    pung or kong of t, ``chow_mask`` for a chow starting at t, ``present`` for every tile held.
    """

    __slots__ = (
        # hand
        "hand", "ctx", "settings", "present", "n_suits", "suit_mask", "honours",
        "number_mask", "n_numbers", "bonus", "seat_wind", "round_wind", "self_drawn", "win",
        "n_melds", "fours", "hand_traits", "value_mask", "pair_traits",
        # reading
        "shape", "standard", "pair", "pungs", "pung_mask", "chows", "chow_mask", "dup_mask",
        "chow_pairs", "chow_max", "n_chows", "n_pungs", "kongs", "concealed_pungs", "melded_sets",
        "melded_pungs", "concealed_hand", "wait", "traits",
    )

    def __init__(self, hand: Hand, arr: Arrangement | None, ctx: WinContext, settings: dict,
                 present: int | None = None, fours: tuple[int, ...] | None = None):
        """``present`` (tiles held, a mask) and ``fours`` (suit tiles held four times, not as a
        kong) may be given where they are known already (``decompose.split_tiles``)."""
        self.hand, self.ctx, self.settings = hand, ctx, settings
        if present is None:
            present = 0
            for t in hand.concealed:
                present |= 1 << t
            for m in hand.melds:
                for t in m.tiles:
                    present |= 1 << t
        self.present = present
        suit_mask = ((1 if present & 0x1FF else 0) | (2 if present >> 9 & 0x1FF else 0)
                     | (4 if present >> 18 & 0x1FF else 0))
        number_mask = (present | present >> 9 | present >> 18) & 0x1FF
        honours = present >> 27 != 0
        if honours:
            number_mask |= 1 << 9  # all honours count as one number
        self.suit_mask, self.n_suits, self.honours = suit_mask, _SUIT_COUNT[suit_mask], honours
        self.number_mask, self.n_numbers = number_mask, _bits(number_mask)
        bonus = 0
        for b in hand.bonus:
            bonus |= 1 << (b - FIRST_FLOWER)
        self.bonus = bonus
        c = ctx.__dict__.get("_features") or _context_facts(ctx)
        self.seat_wind, self.round_wind, self.self_drawn, tr, self.value_mask, self.pair_traits = c
        self.win = hand.winning
        self.n_melds = len(hand.melds)
        if fours is None:
            counts = hand.counts
            fours = ()
            if 4 in counts:
                kong_tiles = {m.tiles[0] for m in hand.melds if m.kind == "kong"}
                fours = tuple(t for t in range(27) if counts[t] == 4 and t not in kong_tiles)
        self.fours = fours
        tr |= ((_T_HONOURS if honours else _T_NO_HONOURS) | _SUIT_TRAITS[suit_mask] | _NUMBER_TRAITS[self.n_numbers]
               | (_T_BONUS if bonus else _T_NO_BONUS) | (_T_SOME_ORPHAN if present & _ORPHANS else _T_NO_ORPHANS))
        if not present & ~_ORPHANS:
            tr |= _T_ORPHANS_ONLY
        if fours:
            tr |= _T_FOUR_ALIKE
        if present & _TERM_1 == _TERM_1 or present & _TERM_2 == _TERM_2 or present & _TERM_3 == _TERM_3:
            tr |= _T_TERMINAL_PAIR
        self.hand_traits = tr
        if arr is not None:
            self.read(arr)

    def read(self, arr: Arrangement) -> Features:
        """Fill in the reading ``arr`` (any shape)."""
        kong_free = self.settings.get("melded_kong_counts_concealed", False)
        pungs, chows = [], []
        pair, kongs, concealed, melded_sets, melded_pungs = -1, 0, 0, 0, 0
        standard = arr.shape == "standard"
        for g in arr.groups:
            k = g.kind
            if k == "chow":
                chows.append(g.tile)
            elif k == "pung" or k == "kong":
                pungs.append(g.tile)
                kongs += k == "kong"
                concealed += g.concealed or (kong_free and k == "kong")
                melded_pungs += g.melded
            elif k == "pair" and standard:
                pair = g.tile
            melded_sets += g.melded and not (kong_free and k == "kong")
        self.set_reading(arr.shape, tuple(pungs), tuple(sorted(chows)), pair, kongs, concealed,
                         melded_sets, melded_pungs, arr.wait)
        return self

    def set_reading(self, shape: str, pungs: tuple, chows: tuple, pair: int, kongs: int,
                    concealed_pungs: int, melded_sets: int, melded_pungs: int, wait: str | None) -> None:
        """Fill in one reading from its parts (``chows`` sorted; ``pair`` -1 when none)."""
        pm = 0
        for t in pungs:
            pm |= 1 << t
        stats = _chow_stats(chows)
        self.set_split(shape, pungs, chows, pair, kongs, concealed_pungs, melded_sets, melded_pungs, wait,
                       pm, *stats, common_numbers(chows, pungs), chow_facts(*stats))

    def set_split(self, shape: str, pungs: tuple, chows: tuple, pair: int, kongs: int, concealed_pungs: int,
                  melded_sets: int, melded_pungs: int, wait: str | None, pung_mask: int, chow_mask: int,
                  dup_mask: int, chow_pairs: int, chow_max: int, common: int, facts: int) -> None:
        """:meth:`set_reading` with the masks already made (``decompose`` keeps them per split);
        ``common``: the numbers every set holds; ``facts``: ``decompose.chow_facts``."""
        self.shape, self.standard, self.pair, self.wait = shape, shape == "standard", pair, wait
        self.pungs, self.chows, self.kongs = pungs, chows, kongs
        self.concealed_pungs, self.melded_sets, self.melded_pungs = concealed_pungs, melded_sets, melded_pungs
        self.concealed_hand = not melded_sets
        self.pung_mask, self.chow_mask, self.dup_mask = pung_mask, chow_mask, dup_mask
        self.chow_pairs, self.chow_max = chow_pairs, chow_max
        n_chows = self.n_chows = len(chows)
        n_pungs = self.n_pungs = len(pungs)
        tr = (self.hand_traits | SHAPE_TRAIT[shape] | _CHOW_TRAITS[n_chows] | _PUNG_TRAITS[n_pungs]
              | _KONG_TRAITS[kongs])
        if pung_mask & _DRAGONS:
            tr |= _T_DRAGON_PUNG
        if pung_mask & _WINDS:
            tr |= _T_WIND_PUNG
        if not melded_sets:
            tr |= _T_CONCEALED
        elif melded_sets == 4:
            tr |= _T_MELDED4
        if wait in _WAIT_TRAITS:
            tr |= _WAIT_TRAITS[wait]
            if wait == "closed" and self.win % 9 == 4:
                tr |= _T_BRIDGE
        if pair >= 0:
            tr |= self.pair_traits[pair]
            if pair < 27 and common >> (pair % 9) & 1:
                tr |= _T_LINKED
            if (tr & _T_SOME_ORPHAN and not pung_mask & ~_ORPHANS and not chow_mask & ~_OUTSIDE_CHOWS
                    and _ORPHANS >> pair & 1):
                tr |= _T_OUTSIDE
        if pung_mask & self.value_mask:
            tr |= _T_VALUE_PUNG
            if pung_mask >> self.seat_wind & 1:
                tr |= _T_SEAT_PUNG
            if pung_mask >> self.round_wind & 1:
                tr |= _T_ROUND_PUNG
        if not kongs:
            tr |= _T_KONGLESS
        if facts:
            tr |= _CHOW_FACT_TRAITS[facts]
        self.traits = tr


# The readings a pattern is defined on (``Arrangement.shape``). A pattern that names a hand shape
# tests that shape: "All Terminals and Honors" is a hand of sets and a pair (or seven pairs), not
# thirteen orphans; a seven-bonus instant win has no sets to score.
STANDARD = frozenset({"standard"})
WON = frozenset({"standard", "seven_pairs"})  # tile-content patterns: a complete hand of sets or pairs
ANY_WIN = frozenset({"standard", "seven_pairs", "thirteen_orphans"})
ANY = ANY_WIN | {"bonus"}


@dataclass(frozen=True)
class Pattern:
    id: str
    name: str
    zh: str
    fn: Callable[[Features], int | bool]  # how many times present; falsy when absent
    doc: str
    shapes: frozenset = ANY
    needs: int = 0  # TRAIT bits a reading must have for the predicate to hold
    exact: bool = False  # the shape and ``needs`` decide it alone
    # settings -> (needs, exact) where a preset's settings make the pattern a matter of traits
    under: Callable[[dict], tuple[int, bool]] | None = None

    def needs_under(self, settings: dict) -> tuple[int, bool]:
        """(needs, exact) of the pattern under a preset's settings."""
        return self.under(settings) if self.under else (self.needs, self.exact)

    @property
    def shape_bits(self) -> int:
        """The shapes as TRAIT bits (a reading has the bit of its shape)."""
        return sum(SHAPE_TRAIT[s] for s in self.shapes)

    def __call__(self, f: Features) -> int:
        """How many times the pattern is present in this reading (0 on a shape it is not defined
        on, or when the reading lacks what the pattern needs)."""
        needs = self.needs_under(f.settings)[0]
        if f.traits & needs != needs or not f.traits & self.shape_bits:
            return 0
        return int(self.fn(f))


PATTERNS: dict[str, Pattern] = {}


def pattern(pid: str, name: str, zh: str, shapes: frozenset = ANY, needs: str = "", exact: bool = False,
            under: Callable[[dict], tuple[int, bool]] | None = None):
    """Register a predicate under a stable id, with the reading shapes it is defined on and the
    traits (space-separated names of :data:`TRAITS`) a reading needs before it can hold.
    ``exact``: the shape and the traits are the whole test (the predicate returns True), so the
    engine does not call it."""

    def deco(fn: Callable[[Features], int | bool]):
        bits = 0
        for n in needs.split():
            bits |= TRAIT[n]
        PATTERNS[pid] = Pattern(pid, name, zh, fn, (fn.__doc__ or "").strip(), shapes, bits, exact, under)
        return fn

    return deco


def _in(mask: int, t: int) -> int:
    return (mask >> t) & 1


# ---------------------------------------------------------------- bonus tiles

@pattern("no_flowers", "No Flowers or Seasons", "無花", needs="no_bonus_tiles flowers_in_play", exact=True)
def _no_flowers(f: Features) -> bool:
    """No bonus tile in the hand, in a game that uses them."""
    return f.ctx.flowers_in_play and not f.bonus


@pattern("seat_flower", "Seat Flower", "正花", needs="bonus_tiles")
def _seat_flower(f: Features) -> int:
    """The flower of the winner's own seat (F1 East ... F4 North)."""
    return _in(f.bonus, f.seat_wind - 27)


@pattern("seat_season", "Seat Season", "正花 (季)", needs="bonus_tiles")
def _seat_season(f: Features) -> int:
    """The season of the winner's own seat (S1 East ... S4 North)."""
    return _in(f.bonus, f.seat_wind - 23)


@pattern("all_flowers", "All Four Flowers", "一台花 (梅蘭菊竹)", needs="bonus_tiles")
def _all_flowers(f: Features) -> bool:
    """F1 F2 F3 F4."""
    return f.bonus & 0x0F == 0x0F


@pattern("all_seasons", "All Four Seasons", "一台花 (春夏秋冬)", needs="bonus_tiles")
def _all_seasons(f: Features) -> bool:
    """S1 S2 S3 S4."""
    return f.bonus & 0xF0 == 0xF0


@pattern("all_bonus", "All Eight Flowers and Seasons", "八仙過海", needs="bonus_tiles")
def _all_bonus(f: Features) -> bool:
    """All eight bonus tiles."""
    return f.bonus == 0xFF


@pattern("seven_bonus", "Seven Flowers", "花糊", frozenset({"bonus"}), needs="bonus_tiles")
def _seven_bonus(f: Features) -> bool:
    """An instant win on the seventh bonus tile."""
    return _bits(f.bonus) == 7


# ---------------------------------------------------------------- how it was won

@pattern("self_drawn", "Self-drawn", "自摸", ANY_WIN, needs="self_drawn", exact=True)
def _self_drawn(f: Features) -> bool:
    """The winning tile came from the wall."""
    return True


@pattern("concealed_hand", "Concealed Hand", "門前清", ANY_WIN, needs="concealed", exact=True)
def _concealed_hand(f: Features) -> bool:
    """No chow, pung or kong claimed (concealed kongs allowed)."""
    return True


def _needs(names: str) -> int:
    return sum(TRAIT[n] for n in names.split())


@pattern("fully_concealed", "Fully Concealed Self-drawn", "門前清自摸", ANY_WIN, needs="concealed self_drawn",
         under=lambda st: (_needs("concealed self_drawn" if st.get("fully_concealed_allows_kongs", True)
                                  else "concealed self_drawn kongless"), True))
def _fully_concealed(f: Features) -> bool:
    """Concealed hand won by self-draw (kongs only where the preset allows them)."""
    return f.settings.get("fully_concealed_allows_kongs", True) or not f.kongs


@pattern("melded_hand", "Melded Hand", "全求人", STANDARD, needs="melded4 discard", exact=True)
def _melded_hand(f: Features) -> bool:
    """All four sets claimed, won on a discard (so waiting on the pair)."""
    return True


@pattern("semi_self_sufficient", "Semi-self Sufficient", "半求人", STANDARD, needs="melded4 self_drawn", exact=True)
def _semi_self(f: Features) -> bool:
    """All four sets claimed, won by self-draw."""
    return True


@pattern("last_tile", "Win by Last Catch", "海底撈月", needs="last_tile", exact=True)
def _last_tile(f: Features) -> bool:
    """The last tile of the wall, drawn or discarded."""
    return True


@pattern("last_tile_draw", "Last Tile Draw", "海底撈月", needs="last_tile self_drawn", exact=True)
def _last_tile_draw(f: Features) -> bool:
    """Self-drawn win on the last tile of the wall."""
    return True


@pattern("last_tile_discard", "Last Tile Discard", "河底撈魚", needs="last_tile discard", exact=True)
def _last_tile_discard(f: Features) -> bool:
    """Win on the discard after the last tile of the wall."""
    return True


@pattern("robbing_kong", "Robbing the Kong", "搶槓", needs="robbing_kong", exact=True)
def _robbing_kong(f: Features) -> bool:
    """Won on the tile another player added to a melded pung."""
    return True


@pattern("kong_replacement", "Out on Kong Replacement", "槓上開花", needs="kong_replacement", exact=True)
def _kong_replacement(f: Features) -> bool:
    """Won on the replacement tile drawn after a kong (or a bonus tile)."""
    return True


@pattern("double_kong", "Kong on Kong", "槓上槓", needs="double_kong", exact=True)
def _double_kong(f: Features) -> bool:
    """Won on the replacement of a replacement: two kongs in a row."""
    return True


@pattern("heavenly", "Blessing of Heaven", "天糊", needs="heavenly", exact=True)
def _heavenly(f: Features) -> bool:
    """The dealer wins with the dealt hand."""
    return True


@pattern("earthly", "Blessing of Earth", "地糊", needs="earthly", exact=True)
def _earthly(f: Features) -> bool:
    """A non-dealer wins on the dealer's first discard."""
    return True


@pattern("man", "Blessing of Man", "人糊", needs="man", exact=True)
def _man(f: Features) -> bool:
    """A non-dealer wins within the first go-around."""
    return True


@pattern("wait", "Single, Closed or Edge Wait", "獨聽", STANDARD, needs="wait_one", exact=True)
def _wait(f: Features) -> bool:
    """The winning tile completed the pair, the middle of a chow, or a 12-3 / 7-89 edge."""
    return True


@pattern("bridge_tile", "Bridge Tile", "坎心五", STANDARD, needs="wait_closed bridge", exact=True)
def _bridge_tile(f: Features) -> bool:
    """Won on a 5 that fills a closed wait."""
    return f.win % 9 == 4


@pattern("one_chance_chow", "Out on a One-chance Chow", "邊張 / 坎張", STANDARD, needs="wait_chow1", exact=True)
def _one_chance(f: Features) -> bool:
    """The winning tile filled a closed or edge chow wait."""
    return True


@pattern("out_on_pair", "Out on a Pair", "單釣", STANDARD, needs="wait_single", exact=True)
def _out_on_pair(f: Features) -> bool:
    """The winning tile completed the pair."""
    return True


@pattern("last_of_kind", "Last of Its Kind", "絕張", needs="last_of_kind", exact=True)
def _last_of_kind(f: Features) -> bool:
    """The winning tile was the last one of its kind still unseen (declared with --last-of-kind)."""
    return True


@pattern("double_jeopardy", "Double Jeopardy", "雙絕張", STANDARD, needs="last_of_kind wait_two_sided", exact=True)
def _double_jeopardy(f: Features) -> bool:
    """Last of its kind, won on a two-sided wait."""
    return True


@pattern("ready_hand", "Ready Hand Declared", "報聽", needs="ready", exact=True)
def _ready(f: Features) -> bool:
    """A ready hand announced in the first go-around (declared with --ready)."""
    return True


# ---------------------------------------------------------------- shape and suits

_PAIR_RULE = {"any": "", "suited": "pair_suited", "no_value_wind": "pair_not_value_wind", "no_value": "pair_no_value"}


@pattern("all_chows", "All Chows", "平糊", STANDARD, needs="chow4",
         under=lambda st: (_needs("chow4 " + _PAIR_RULE[st.get("all_chows_pair", "any")] + " "
                                  + {2: "suits2plus", 3: "three_suits"}.get(st.get("all_chows_min_suits", 1), "")),
                           st.get("all_chows_min_suits", 1) <= 3))
def _all_chows(f: Features) -> bool:
    """Four chows and a pair (the pair and the suits as the preset says: the pair's rule is in the
    pattern's needs under the preset's settings)."""
    return f.n_suits >= f.settings.get("all_chows_min_suits", 1)


@pattern("all_pungs", "All Pungs", "對對糊", STANDARD, needs="pung4", exact=True)
def _all_pungs(f: Features) -> bool:
    """Four pungs or kongs and a pair."""
    return True


@pattern("half_flush", "Half Flush", "混一色", WON, needs="one_suit honours", exact=True)
def _half_flush(f: Features) -> bool:
    """One suit and honours."""
    return True


@pattern("full_flush", "Full Flush", "清一色", WON, needs="one_suit no_honours", exact=True)
def _full_flush(f: Features) -> bool:
    """One suit only."""
    return True


@pattern("seven_pairs", "Seven Pairs", "七對子", frozenset({"seven_pairs"}), exact=True)
def _seven_pairs(f: Features) -> bool:
    """Seven pairs."""
    return True


@pattern("mixed_terminals", "Mixed Terminals", "混么九", WON, needs="orphans_only honours")
def _mixed_terminals(f: Features) -> bool:
    """Sets and a pair (or seven pairs) of terminals and honours only, some of each; thirteen
    orphans is its own hand."""
    return f.n_suits > 0


@pattern("all_terminals", "All Terminals", "清么九", WON, needs="orphans_only no_honours", exact=True)
def _all_terminals(f: Features) -> bool:
    """Only ones and nines."""
    return True


@pattern("all_honours", "All Honours", "字一色", WON, needs="no_suits", exact=True)
def _all_honours(f: Features) -> bool:
    """Only winds and dragons."""
    return True


@pattern("four_concealed_pungs", "Four Concealed Pungs", "坎坎糊", STANDARD, needs="pung4")
def _four_concealed(f: Features) -> bool:
    """Four concealed pungs or kongs (a pung finished on a discard is exposed)."""
    if f.concealed_pungs != 4:
        return False
    return f.self_drawn or not f.settings.get("four_concealed_pungs_self_drawn_only", False)


@pattern("three_concealed_pungs", "Three Concealed Pungs", "三暗刻", STANDARD, needs="pung3")
def _three_concealed(f: Features) -> bool:
    """Exactly three concealed pungs or kongs."""
    return f.concealed_pungs == 3


@pattern("four_kongs", "Four Kongs", "十八羅漢", STANDARD, needs="kong3")
def _four_kongs(f: Features) -> bool:
    """Four kongs."""
    return f.kongs == 4


@pattern("three_kongs", "Three Kongs", "三槓子", STANDARD, needs="kong3")
def _three_kongs(f: Features) -> bool:
    """Exactly three kongs."""
    return f.kongs == 3


@pattern("two_kongs", "Two Kongs", "兩槓", STANDARD, needs="kong2")
def _two_kongs(f: Features) -> bool:
    """Exactly two kongs."""
    return f.kongs == 2


_NINE_GATES = (3, 1, 1, 1, 1, 1, 1, 1, 3)


@pattern("nine_gates", "Nine Gates", "九子連環", STANDARD, needs="one_suit no_honours concealed")
def _nine_gates(f: Features) -> bool:
    """Concealed 1112345678999 of one suit, won on any tile of that suit."""
    if f.n_melds:
        return False
    base = 9 * (f.suit_mask.bit_length() - 1)
    c = list(f.hand.counts[base:base + 9])
    c[f.win - base] -= 1
    return tuple(c) == _NINE_GATES


@pattern("thirteen_orphans", "Thirteen Orphans", "十三么", frozenset({"thirteen_orphans"}), exact=True)
def _thirteen_orphans(f: Features) -> bool:
    """One of each terminal and honour and a pair of one of them."""
    return True


def _suit_dragon(f: Features, suit: int, dragon: int) -> bool:
    return not f.chows and _in(f.pung_mask, dragon) and not f.present & ~(_SUIT_MASKS[suit] | 1 << dragon)


@pattern("jade_dragon", "Jade Dragon", "翡翠龍", STANDARD, needs="pung4 dragon_pung one_suit")
def _jade(f: Features) -> bool:
    """Pungs (or kongs) of bamboo, a pung of green dragons, a pair of bamboo: no chows."""
    return _suit_dragon(f, 2, 32)


@pattern("ruby_dragon", "Ruby Dragon", "紅寶龍", STANDARD, needs="pung4 dragon_pung one_suit")
def _ruby(f: Features) -> bool:
    """Pungs (or kongs) of characters, a pung of red dragons, a pair of characters: no chows."""
    return _suit_dragon(f, 0, 31)


@pattern("pearl_dragon", "Pearl Dragon", "珍珠龍", STANDARD, needs="pung4 dragon_pung one_suit")
def _pearl(f: Features) -> bool:
    """Pungs (or kongs) of dots, a pung of white dragons, a pair of dots: no chows."""
    return _suit_dragon(f, 1, 33)


@pattern("pure_straight", "Pure Straight", "一條龍", STANDARD, needs="straight", exact=True)
def _pure_straight(f: Features) -> bool:
    """123, 456 and 789 chows of one suit."""
    m = f.chow_mask
    a, b, c = _STRAIGHTS
    return m & a == a or m & b == b or m & c == c


@pattern("mixed_triple_chow", "Mixed Triple Chow", "三相逢", STANDARD, needs="mixed_triple", exact=True)
def _mixed_triple(f: Features) -> bool:
    """The same chow in all three suits."""
    m = f.chow_mask
    return bool(m & (m >> 9) & (m >> 18) & 0x7F)


@pattern("pure_double_chow", "Pure Double Chow", "一般高", STANDARD, needs="dup_chow")
def _pure_double(f: Features) -> int:
    """Two identical chows of one suit (each such pair of chows counts)."""
    return _bits(f.dup_mask)


@pattern("two_pure_double_chows", "Two Pure Double Chows", "雙龍抱珠", STANDARD, needs="two_dups", exact=True)
def _two_pure_double(f: Features) -> bool:
    """Two pairs of identical chows."""
    return f.chow_pairs >= 2


@pattern("pure_triple_chow", "Pure Triple Chow", "三般高", STANDARD, needs="triple_chow", exact=True)
def _pure_triple(f: Features) -> bool:
    """Three identical chows of one suit."""
    return f.chow_max >= 3


@pattern("four_identical_chows", "Four Identical Chows", "四般高", STANDARD, needs="quad_chow", exact=True)
def _pure_quad(f: Features) -> bool:
    """Four identical chows of one suit."""
    return f.chow_max == 4


@pattern("two_dragon_suits", "Two Dragon Suits", "兩套龍", STANDARD, needs="chow4 straight dup_chow")
def _two_dragon_suits(f: Features) -> bool:
    """A pure straight and a second 456 chow of the same suit."""
    m, d = f.chow_mask, f.dup_mask
    return any(m & s == s and _in(d, 9 * k + 3) for k, s in enumerate(_STRAIGHTS))


@pattern("all_simples", "All Simples", "斷么", WON, needs="no_orphans", exact=True)
def _all_simples(f: Features) -> bool:
    """No terminal or honour."""
    return True


@pattern("no_honours", "No Honour Tiles", "無字", WON, needs="no_honours", exact=True)
def _no_honours(f: Features) -> bool:
    """Suit tiles only."""
    return True


def _kind_bit(t: int) -> int:
    """m, p, s, wind, dragon: one bit each."""
    return 1 << (t // 9 if t < 27 else 3 if t < 31 else 4)


@pattern("five_doors", "All Types (Five Doors)", "五門齊", STANDARD, needs="honours three_suits")
def _five_doors(f: Features) -> bool:
    """Each set and the pair of a different kind: characters, dots, bamboo, winds, dragons."""
    kinds = _kind_bit(f.pair)
    for t in f.pungs:
        kinds |= _kind_bit(t)
    for c in f.chows:
        kinds |= 1 << (c // 9)
    return kinds == 0b11111  # five groups, five kinds


@pattern("two_suits", "One Voided Suit", "缺一門", WON, needs="two_suits", exact=True)
def _two_suits(f: Features) -> bool:
    """Tiles of exactly two of the three suits (honours allowed)."""
    return True


def _outside(f: Features) -> bool:
    return (not f.pung_mask & ~_ORPHANS and not f.chow_mask & ~_OUTSIDE_CHOWS
            and _in(_ORPHANS, f.pair))


@pattern("outside_hand", "Outside Hand", "混全帶么", STANDARD, needs="outside", exact=True)
def _outside_hand(f: Features) -> bool:
    """A terminal or an honour in every set and in the pair."""
    return _outside(f)


@pattern("pure_outside", "Pure Outside Hand", "純全帶么", STANDARD, needs="outside no_honours", exact=True)
def _pure_outside(f: Features) -> bool:
    """A terminal in every set and in the pair, no honours."""
    return _outside(f)


@pattern("terminal_chows", "Two Terminal Chows", "老少", STANDARD, needs="old_young")
def _terminal_chows(f: Features) -> int:
    """123 and 789 chows of one suit (each suit counts)."""
    m = f.chow_mask
    return (m & _TERMINAL_CHOWS[0] == _TERMINAL_CHOWS[0]) + (m & _TERMINAL_CHOWS[1] == _TERMINAL_CHOWS[1]) \
        + (m & _TERMINAL_CHOWS[2] == _TERMINAL_CHOWS[2])


@pattern("double_lao_shao", "Double Lao Shao", "雙老少", STANDARD, needs="chow4 old_young")
def _double_lao_shao(f: Features) -> bool:
    """123 and 789 chows in two different suits."""
    return _terminal_chows(f) >= 2


@pattern("terminal_pungs", "Two Terminal Pungs", "老少碰", STANDARD, needs="pung2 terminal_pair")
def _terminal_pungs(f: Features) -> int:
    """111 and 999 pungs of one suit (each suit counts)."""
    m = f.pung_mask
    return (m & _TERMINAL_PAIRS[0] == _TERMINAL_PAIRS[0]) + (m & _TERMINAL_PAIRS[1] == _TERMINAL_PAIRS[1]) \
        + (m & _TERMINAL_PAIRS[2] == _TERMINAL_PAIRS[2])


def _four_in(f: Features, k: int) -> int:
    """Suit tiles held four times (not as a kong) that lie in exactly ``k`` groups."""
    n = 0
    for t in f.fours:
        groups = _in(f.pung_mask, t) + (f.pair == t)
        for c in f.chows:
            groups += c <= t <= c + 2 and c // 9 == t // 9
        n += groups == k
    return n


@pattern("four_in_two", "Four into Two", "四歸二", STANDARD, needs="four_alike")
def _four_in_two(f: Features) -> int:
    """All four copies of a suit tile spread over two sets (a pung and a chow)."""
    return _four_in(f, 2)


@pattern("four_in_three", "Four into Three", "四歸三", STANDARD, needs="four_alike")
def _four_in_three(f: Features) -> int:
    """All four copies of a suit tile spread over three groups."""
    return _four_in(f, 3)


@pattern("four_in_four", "Four into Four", "四歸四", STANDARD, needs="four_alike chow4")
def _four_in_four(f: Features) -> int:
    """All four copies of a suit tile spread over four chows."""
    return _four_in(f, 4)


@pattern("special_eyes", "Special Eyes", "將眼", STANDARD, needs="eyes_pair", exact=True)
def _special_eyes(f: Features) -> bool:
    """The pair is a 2, 5 or 8 of a suit."""
    p = f.pair
    return p < 27 and p % 9 in (1, 4, 7)


@pattern("four_revealed_pungs", "Four Revealed Pungs", "清四碰", STANDARD, needs="pung4")
def _four_revealed(f: Features) -> bool:
    """Four melded pungs or kongs."""
    return f.melded_pungs == 4


@pattern("a_tail", "A Tail", "尾尾", STANDARD, needs="pung2")
def _a_tail(f: Features) -> bool:
    """Two pungs shifted by one with the pair next in line (n, n+1, pair n+2 or n-1), or two wind
    pungs and a wind pair."""
    m, p = f.pung_mask, f.pair
    if 27 <= p < 31 and _bits(m & _WINDS) >= 2:
        return True
    if p >= 27:
        return False
    n = p % 9 + 1
    return (n >= 3 and _in(m, p - 2) and _in(m, p - 1)) or (n <= 7 and _in(m, p + 1) and _in(m, p + 2))


@pattern("pure_shifted_pungs", "Pure Shifted Pungs", "姊妹碰", STANDARD, needs="pung3")
def _shifted_pungs(f: Features) -> bool:
    """Three pungs of one suit, each one up from the last."""
    m = f.pung_mask
    return bool(m & (m >> 1) & (m >> 2) & _SHIFT_STARTS)


@pattern("three_winds", "Three Winds", "三風會", STANDARD, needs="pung3 wind_pung")
def _three_winds(f: Features) -> bool:
    """Three wind pungs."""
    return _bits(f.pung_mask & _WINDS) >= 3


@pattern("three_numbers", "Three Numbers", "三數", STANDARD, needs="numbers3", exact=True)
def _three_numbers(f: Features) -> bool:
    """Only three numbers in the whole hand (all honours count as one number)."""
    return True


@pattern("two_numbers", "Two Numbers", "兩數", STANDARD, needs="pung4 numbers2", exact=True)
def _two_numbers(f: Features) -> bool:
    """All pungs, and only two numbers (all honours count as one number)."""
    return True


@pattern("all_linked", "All Linked", "全帶", STANDARD, needs="no_honours linked", exact=True)
def _all_linked(f: Features) -> bool:
    """One number appears in every set and in the pair."""
    common = 1 << (f.pair % 9)
    for t in f.pungs:
        common &= 1 << (t % 9)
    for c in f.chows:
        common &= 7 << (c % 9)
    return bool(common)


@pattern("all_linked_three_numbers", "All Linked with Three Numbers", "全帶三數", STANDARD,
         needs="chow4 no_honours numbers3")
def _all_linked_three(f: Features) -> bool:
    """Four chows of the same numbers (any suits) and a pair of one of those numbers."""
    start = f.chows[0] % 9
    return all(c % 9 == start for c in f.chows) and 0 <= f.pair % 9 - start <= 2


@pattern("all_contain_one", "All Contain One", "全帶一", STANDARD, needs="chow4 no_honours numbers3")
def _all_contain_one(f: Features) -> bool:
    """Four 123 chows and a pair of ones."""
    return all(c % 9 == 0 for c in f.chows) and f.pair % 9 == 0


@pattern("all_contain_nine", "All Contain Nine", "全帶九", STANDARD, needs="chow4 no_honours numbers3")
def _all_contain_nine(f: Features) -> bool:
    """Four 789 chows and a pair of nines."""
    return all(c % 9 == 6 for c in f.chows) and f.pair % 9 == 8


@pattern("special_eye_pungs", "Special Eye Pungs", "將將碰", STANDARD, needs="pung4 no_honours numbers3")
def _special_eye_pungs(f: Features) -> bool:
    """All pungs, every tile a 2, 5 or 8."""
    return not f.number_mask & ~_EYES


# ---------------------------------------------------------------- honours

@pattern("dragon_pung", "Dragon Pung", "箭刻", STANDARD, needs="dragon_pung")
def _dragon_pung(f: Features) -> int:
    """A pung or kong of dragons (each counts)."""
    return _bits(f.pung_mask & _DRAGONS)


@pattern("seat_wind", "Seat Wind", "門風", STANDARD, needs="seat_pung", exact=True)
def _seat_wind(f: Features) -> int:
    """A pung or kong of the winner's seat wind."""
    return _in(f.pung_mask, f.seat_wind)


@pattern("round_wind", "Prevailing Wind", "圈風", STANDARD, needs="round_pung", exact=True)
def _round_wind(f: Features) -> int:
    """A pung or kong of the prevailing wind."""
    return _in(f.pung_mask, f.round_wind)


@pattern("honour_pung", "Honour Tiles", "番子", STANDARD, needs="value_pung")
def _honour_pung(f: Features) -> int:
    """A pung or kong of dragons, seat wind or prevailing wind (each set counts once)."""
    return _bits(f.pung_mask & (_DRAGONS | 1 << f.seat_wind | 1 << f.round_wind))


@pattern("little_three_dragons", "Little Three Dragons", "小三元", STANDARD, needs="dragon_pung pung2")
def _little_dragons(f: Features) -> bool:
    """Two dragon pungs and a pair of the third dragon."""
    return f.pair >= 31 and _bits(f.pung_mask & _DRAGONS) == 2


@pattern("big_three_dragons", "Big Three Dragons", "大三元", STANDARD, needs="dragon_pung pung3")
def _big_dragons(f: Features) -> bool:
    """Pungs or kongs of all three dragons."""
    return f.pung_mask & _DRAGONS == _DRAGONS


@pattern("little_four_winds", "Little Four Winds", "小四喜", STANDARD, needs="wind_pung pung3")
def _little_winds(f: Features) -> bool:
    """Three wind pungs and a pair of the fourth wind."""
    p = f.pair
    if not (27 <= p < 31 and _bits(f.pung_mask & _WINDS) == 3):
        return False
    if f.settings.get("little_four_winds_pair_rule", "any") == "no_value_wind":
        return p != f.seat_wind and p != f.round_wind
    return True


@pattern("big_four_winds", "Big Four Winds", "大四喜", STANDARD, needs="wind_pung pung4")
def _big_winds(f: Features) -> bool:
    """Pungs or kongs of all four winds."""
    return f.pung_mask & _WINDS == _WINDS


# ---------------------------------------------------------------- what a pattern scores

# Patterns that score how the hand was won (where the winning tile came from, when, the wait, what
# was claimed) and those that score bonus tiles; every other pattern scores the contents of the
# hand: its sets, pair, suits and honours. A preset with the setting ``content_minimum`` wants a
# fan of the contents in every winning hand below the limit.
BONUS_TILES = frozenset({"no_flowers", "seat_flower", "seat_season", "all_flowers", "all_seasons", "all_bonus",
                         "seven_bonus"})
WINNING_CONDITIONS = frozenset({
    "self_drawn", "concealed_hand", "fully_concealed", "melded_hand", "semi_self_sufficient", "last_tile",
    "last_tile_draw", "last_tile_discard", "robbing_kong", "kong_replacement", "double_kong", "heavenly",
    "earthly", "man", "wait", "bridge_tile", "one_chance_chow", "out_on_pair", "last_of_kind", "double_jeopardy",
    "ready_hand"})
HAND_CONTENTS = frozenset(PATTERNS) - BONUS_TILES - WINNING_CONDITIONS


# ---------------------------------------------------------------- what a pattern implies

# A: {B: k}: every reading that has A also has B (B counted on the readings B is defined on:
# all_honours implies all_pungs on a hand of sets, not on seven pairs). k, for a pattern counted
# once per set, is how many of B's instances A's own sets account for: Little Three Dragons holds
# two Honor Tiles pungs, and a third (the seat wind's) is not part of it; 0 means all of them (every
# pung of an All Honours hand is part of it). The table is checked against the predicates in the
# tests (tests/test_scoring_pairs.py walks each pattern's hands and looks for a counterexample to
# every pair, and for the least count of B), so it is what the predicates imply, not a reading of
# the seeds. What a preset does with an implied pair is decided in ``rules``.
IMPLIES: dict[str, dict[str, int]] = {
    "all_flowers": {"seat_flower": 1},
    "all_seasons": {"seat_season": 1},
    "all_bonus": {"all_flowers": 1, "all_seasons": 1, "seat_flower": 1, "seat_season": 1},
    "fully_concealed": {"concealed_hand": 1, "self_drawn": 1},
    "melded_hand": {"wait": 1, "out_on_pair": 1},
    "semi_self_sufficient": {"wait": 1, "out_on_pair": 1, "self_drawn": 1},
    "last_tile_draw": {"self_drawn": 1, "last_tile": 1},
    "last_tile_discard": {"last_tile": 1},
    "kong_replacement": {"self_drawn": 1},
    "double_kong": {"kong_replacement": 1, "self_drawn": 1},
    "heavenly": {"self_drawn": 1, "concealed_hand": 1, "fully_concealed": 1},
    "earthly": {"concealed_hand": 1},
    "man": {"concealed_hand": 1},
    "bridge_tile": {"wait": 1, "one_chance_chow": 1},
    "one_chance_chow": {"wait": 1},
    "out_on_pair": {"wait": 1},
    "double_jeopardy": {"last_of_kind": 1},
    "seven_pairs": {"concealed_hand": 1},
    "thirteen_orphans": {"concealed_hand": 1},
    "nine_gates": {"concealed_hand": 1, "full_flush": 1, "no_honours": 1},
    "four_concealed_pungs": {"all_pungs": 1, "concealed_hand": 1, "self_drawn": 1},
    "four_kongs": {"all_pungs": 1, "wait": 1, "out_on_pair": 1, "concealed_hand": 1, "four_concealed_pungs": 1},
    "full_flush": {"no_honours": 1},
    "all_simples": {"no_honours": 1},
    "all_terminals": {"all_pungs": 1, "no_honours": 1, "outside_hand": 1, "pure_outside": 1,
                      "terminal_pungs": 0, "three_numbers": 1, "two_numbers": 1},
    "all_honours": {"all_pungs": 1, "outside_hand": 1, "three_numbers": 1, "two_numbers": 1, "honour_pung": 0},
    "mixed_terminals": {"all_pungs": 1, "outside_hand": 1, "three_numbers": 1},
    "pure_outside": {"outside_hand": 1, "no_honours": 1},
    "jade_dragon": {"all_pungs": 1, "half_flush": 1, "dragon_pung": 0},
    "ruby_dragon": {"all_pungs": 1, "half_flush": 1, "dragon_pung": 0},
    "pearl_dragon": {"all_pungs": 1, "half_flush": 1, "dragon_pung": 0},
    "big_three_dragons": {"dragon_pung": 0, "honour_pung": 3},
    "little_three_dragons": {"dragon_pung": 0, "honour_pung": 2},
    "big_four_winds": {"all_pungs": 1, "three_winds": 1, "seat_wind": 1, "round_wind": 1, "honour_pung": 0,
                       "three_numbers": 1, "two_numbers": 1},
    "little_four_winds": {"three_winds": 1, "a_tail": 1},
    "pure_straight": {"terminal_chows": 0},
    "two_dragon_suits": {"pure_straight": 1, "pure_double_chow": 0, "terminal_chows": 0},
    "pure_triple_chow": {"pure_double_chow": 0},
    "four_identical_chows": {"pure_triple_chow": 1, "pure_double_chow": 0, "all_chows": 1},
    "two_pure_double_chows": {"pure_double_chow": 0},
    "double_lao_shao": {"terminal_chows": 0, "all_chows": 1},
    "four_in_four": {"pure_double_chow": 0},
    "all_linked": {"no_honours": 1},
    "all_linked_three_numbers": {"all_chows": 1, "all_linked": 1, "three_numbers": 1, "no_honours": 1,
                                 "pure_double_chow": 0},
    "all_contain_one": {"all_linked_three_numbers": 1, "all_linked": 1, "three_numbers": 1, "all_chows": 1,
                        "pure_outside": 1, "outside_hand": 1, "no_honours": 1, "pure_double_chow": 0},
    "all_contain_nine": {"all_linked_three_numbers": 1, "all_linked": 1, "three_numbers": 1, "all_chows": 1,
                         "pure_outside": 1, "outside_hand": 1, "no_honours": 1, "pure_double_chow": 0},
    "special_eye_pungs": {"all_pungs": 1, "special_eyes": 1, "no_honours": 1, "three_numbers": 1},
    "two_numbers": {"all_pungs": 1, "three_numbers": 1},
    "four_revealed_pungs": {"all_pungs": 1, "wait": 1},
}

# (A, B): the settings under which A implies B (each setting one of the values listed); pairs not
# named here hold under every setting.
IMPLIES_WHEN: dict[tuple[str, str], dict[str, tuple]] = {
    ("heavenly", "fully_concealed"): {"fully_concealed_allows_kongs": (True,)},
    ("four_concealed_pungs", "self_drawn"): {"four_concealed_pungs_self_drawn_only": (True,)},
    ("four_kongs", "concealed_hand"): {"melded_kong_counts_concealed": (True,)},
    ("four_kongs", "four_concealed_pungs"): {"melded_kong_counts_concealed": (True,),
                                             "four_concealed_pungs_self_drawn_only": (False,)},
    ("four_identical_chows", "all_chows"): {"all_chows_pair": ("any",), "all_chows_min_suits": (0, 1)},
    ("double_lao_shao", "all_chows"): {"all_chows_pair": ("any",), "all_chows_min_suits": (0, 1, 2)},
    ("all_linked_three_numbers", "all_chows"): {"all_chows_min_suits": (0, 1, 2)},
    ("all_contain_one", "all_chows"): {"all_chows_min_suits": (0, 1, 2)},
    ("all_contain_nine", "all_chows"): {"all_chows_min_suits": (0, 1, 2)},
}


def implied(settings: dict) -> dict[str, dict[str, int]]:
    """:data:`IMPLIES` under ``settings`` (a preset's): A -> {B: k}.

    >>> implied({"fully_concealed_allows_kongs": False})["heavenly"]
    {'self_drawn': 1, 'concealed_hand': 1}
    """
    from .presets import DEFAULT_SETTINGS

    out: dict[str, dict[str, int]] = {}
    for a, row in IMPLIES.items():
        kept = {}
        for b, k in row.items():
            when = IMPLIES_WHEN.get((a, b), {})
            if all(settings.get(s, DEFAULT_SETTINGS[s]) in ok for s, ok in when.items()):
                kept[b] = k
        out[a] = kept
    return out
