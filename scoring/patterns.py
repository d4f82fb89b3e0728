"""Scoring patterns as data: one small predicate each, with a stable id, English and Chinese name.

A predicate takes the :class:`Features` of one reading of a hand and returns how many times
the pattern is present (0 when absent; most patterns are 0 or 1, a few such as dragon pungs
count each occurrence). What a pattern is worth, what it suppresses and whether it is a limit
hand is not decided here but by the rule preset (``scoring.presets``).

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

from .context import WinContext
from .decompose import Arrangement, Group
from .notation import Hand
from .tiles import (DRAGON_TILES, FIRST_FLOWER, FIRST_SEASON, ORPHANS, TERMINALS, WIND_TILES,
                    index, seat_number, wind_index)


class Features:
    """What the predicates look at, computed once per reading."""

    __slots__ = ("hand", "arr", "ctx", "settings", "shape", "groups", "pair", "pungs", "chows",
                 "kongs", "counts", "suits", "honours", "melded_sets", "concealed_hand",
                 "seat_wind", "round_wind", "bonus", "wait", "win", "standard", "present",
                 "pung_set", "chow_count")

    def __init__(self, hand: Hand, arr: Arrangement, ctx: WinContext, settings: dict):
        self.hand, self.arr, self.ctx, self.settings = hand, arr, ctx, settings
        self.shape = arr.shape
        self.groups = arr.groups
        self.wait = arr.wait
        self.win = hand.winning
        self.standard = arr.shape == "standard"
        self.pair = None
        pungs, chows, kongs = [], [], 0
        for g in arr.groups:
            k = g.kind
            if k == "chow":
                chows.append(g)
            elif k == "pung" or k == "kong":
                pungs.append(g)
                kongs += k == "kong"
            elif k == "pair" and self.standard:
                self.pair = g.tile
        self.pungs, self.chows, self.kongs = pungs, chows, kongs
        self.pung_set = frozenset(g.tile for g in pungs)
        cc: dict[int, int] = {}
        for g in chows:
            cc[g.tile] = cc.get(g.tile, 0) + 1
        self.chow_count = cc
        self.counts = hand.counts
        present = hand.present
        self.present = present
        self.suits = frozenset(t // 9 for t in present if t < 27)
        self.honours = not present.isdisjoint(HONOUR_SET)
        kong_free = settings.get("melded_kong_counts_concealed", False)
        self.melded_sets = [g for g in arr.groups if g.melded and not (kong_free and g.kind == "kong")]
        self.concealed_hand = not self.melded_sets
        self.seat_wind = wind_index(ctx.seat)
        self.round_wind = wind_index(ctx.round)
        self.bonus = frozenset(hand.bonus)

    # helpers shared by several predicates
    def concealed_pungs(self) -> int:
        kong_free = self.settings.get("melded_kong_counts_concealed", False)
        return sum(1 for g in self.pungs if g.concealed or (kong_free and g.kind == "kong"))


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

    def __call__(self, f: Features) -> int:
        """How many times the pattern is present in this reading (0 on a shape it is not defined on)."""
        return int(self.fn(f)) if f.shape in self.shapes else 0


PATTERNS: dict[str, Pattern] = {}


def pattern(pid: str, name: str, zh: str, shapes: frozenset = ANY):
    """Register a predicate under a stable id, with the reading shapes it is defined on."""

    def deco(fn: Callable[[Features], int | bool]):
        PATTERNS[pid] = Pattern(pid, name, zh, fn, (fn.__doc__ or "").strip(), shapes)
        return fn

    return deco


HONOUR_SET = frozenset(range(27, 34))
_SUIT_SETS = tuple(frozenset(range(9 * s, 9 * s + 9)) for s in range(3))


def _number(t: int) -> int:
    return t % 9 + 1


# ---------------------------------------------------------------- bonus tiles

@pattern("no_flowers", "No Flowers or Seasons", "無花")
def _no_flowers(f: Features) -> bool:
    """No bonus tile in the hand, in a game that uses them."""
    return f.ctx.flowers_in_play and not f.bonus


@pattern("seat_flower", "Seat Flower", "正花")
def _seat_flower(f: Features) -> bool:
    """The flower of the winner's own seat (F1 East ... F4 North)."""
    return FIRST_FLOWER + seat_number(f.ctx.seat) - 1 in f.bonus


@pattern("seat_season", "Seat Season", "正花 (季)")
def _seat_season(f: Features) -> bool:
    """The season of the winner's own seat (S1 East ... S4 North)."""
    return FIRST_SEASON + seat_number(f.ctx.seat) - 1 in f.bonus


@pattern("all_flowers", "All Four Flowers", "一台花 (梅蘭菊竹)")
def _all_flowers(f: Features) -> bool:
    """F1 F2 F3 F4."""
    return all(FIRST_FLOWER + k in f.bonus for k in range(4))


@pattern("all_seasons", "All Four Seasons", "一台花 (春夏秋冬)")
def _all_seasons(f: Features) -> bool:
    """S1 S2 S3 S4."""
    return all(FIRST_SEASON + k in f.bonus for k in range(4))


@pattern("all_bonus", "All Eight Flowers and Seasons", "八仙過海")
def _all_bonus(f: Features) -> bool:
    """All eight bonus tiles."""
    return len(f.bonus) == 8


@pattern("seven_bonus", "Seven Flowers", "花糊", frozenset({"bonus"}))
def _seven_bonus(f: Features) -> bool:
    """An instant win on the seventh bonus tile."""
    return f.shape == "bonus" and len(f.bonus) == 7


# ---------------------------------------------------------------- how it was won

@pattern("self_drawn", "Self-drawn", "自摸", ANY_WIN)
def _self_drawn(f: Features) -> bool:
    """The winning tile came from the wall."""
    return f.ctx.self_drawn and f.shape != "bonus"


@pattern("concealed_hand", "Concealed Hand", "門前清", ANY_WIN)
def _concealed_hand(f: Features) -> bool:
    """No chow, pung or kong claimed (concealed kongs allowed)."""
    return f.concealed_hand and f.shape != "bonus"


@pattern("fully_concealed", "Fully Concealed Self-drawn", "門前清自摸", ANY_WIN)
def _fully_concealed(f: Features) -> bool:
    """Concealed hand won by self-draw (kongs only where the preset allows them)."""
    if not (f.concealed_hand and f.ctx.self_drawn) or f.shape == "bonus":
        return False
    return f.settings.get("fully_concealed_allows_kongs", True) or not f.kongs


@pattern("melded_hand", "Melded Hand", "全求人", STANDARD)
def _melded_hand(f: Features) -> bool:
    """All four sets claimed, won on a discard (so waiting on the pair)."""
    return f.standard and len(f.melded_sets) == 4 and not f.ctx.self_drawn


@pattern("semi_self_sufficient", "Semi-self Sufficient", "半求人", STANDARD)
def _semi_self(f: Features) -> bool:
    """All four sets claimed, won by self-draw."""
    return f.standard and len(f.melded_sets) == 4 and f.ctx.self_drawn


@pattern("last_tile", "Win by Last Catch", "海底撈月")
def _last_tile(f: Features) -> bool:
    """The last tile of the wall, drawn or discarded."""
    return f.ctx.last_tile


@pattern("last_tile_draw", "Last Tile Draw", "海底撈月")
def _last_tile_draw(f: Features) -> bool:
    """Self-drawn win on the last tile of the wall."""
    return f.ctx.last_tile and f.ctx.self_drawn


@pattern("last_tile_discard", "Last Tile Discard", "河底撈魚")
def _last_tile_discard(f: Features) -> bool:
    """Win on the discard after the last tile of the wall."""
    return f.ctx.last_tile and not f.ctx.self_drawn


@pattern("robbing_kong", "Robbing the Kong", "搶槓")
def _robbing_kong(f: Features) -> bool:
    """Won on the tile another player added to a melded pung."""
    return f.ctx.robbing_kong


@pattern("kong_replacement", "Out on Kong Replacement", "槓上開花")
def _kong_replacement(f: Features) -> bool:
    """Won on the replacement tile drawn after a kong (or a bonus tile)."""
    return f.ctx.kong_replacement or f.ctx.double_kong


@pattern("double_kong", "Kong on Kong", "槓上槓")
def _double_kong(f: Features) -> bool:
    """Won on the replacement of a replacement: two kongs in a row."""
    return f.ctx.double_kong


@pattern("heavenly", "Blessing of Heaven", "天糊")
def _heavenly(f: Features) -> bool:
    """The dealer wins with the dealt hand."""
    return f.ctx.heavenly


@pattern("earthly", "Blessing of Earth", "地糊")
def _earthly(f: Features) -> bool:
    """A non-dealer wins on the dealer's first discard."""
    return f.ctx.earthly


@pattern("man", "Blessing of Man", "人糊")
def _man(f: Features) -> bool:
    """A non-dealer wins within the first go-around."""
    return f.ctx.man


@pattern("wait", "Single, Closed or Edge Wait", "獨聽", STANDARD)
def _wait(f: Features) -> bool:
    """The winning tile completed the pair, the middle of a chow, or a 12-3 / 7-89 edge."""
    return f.standard and f.wait in ("single", "closed", "edge")


@pattern("bridge_tile", "Bridge Tile", "坎心五", STANDARD)
def _bridge_tile(f: Features) -> bool:
    """Won on a 5 that fills a closed wait."""
    return f.standard and f.wait == "closed" and _number(f.win) == 5


@pattern("one_chance_chow", "Out on a One-chance Chow", "邊張 / 坎張", STANDARD)
def _one_chance(f: Features) -> bool:
    """The winning tile filled a closed or edge chow wait."""
    return f.standard and f.wait in ("closed", "edge")


@pattern("out_on_pair", "Out on a Pair", "單釣", STANDARD)
def _out_on_pair(f: Features) -> bool:
    """The winning tile completed the pair."""
    return f.standard and f.wait == "single"


@pattern("last_of_kind", "Last of Its Kind", "絕張")
def _last_of_kind(f: Features) -> bool:
    """The winning tile was the last one of its kind still unseen (declared with --last-of-kind)."""
    return f.ctx.last_of_kind


@pattern("double_jeopardy", "Double Jeopardy", "雙絕張", STANDARD)
def _double_jeopardy(f: Features) -> bool:
    """Last of its kind, won on a two-sided wait."""
    return f.ctx.last_of_kind and f.standard and f.wait == "two-sided"


@pattern("ready_hand", "Ready Hand Declared", "報聽")
def _ready(f: Features) -> bool:
    """A ready hand announced in the first go-around (declared with --ready)."""
    return f.ctx.ready


# ---------------------------------------------------------------- shape and suits

@pattern("all_chows", "All Chows", "平糊", STANDARD)
def _all_chows(f: Features) -> bool:
    """Four chows and a pair (the pair and the suits as the preset says)."""
    if not f.standard or len(f.chows) != 4:
        return False
    rule = f.settings.get("all_chows_pair", "any")
    p = f.pair
    if rule == "suited" and p >= 27:
        return False
    if rule == "no_value_wind" and p in (f.seat_wind, f.round_wind):
        return False
    if rule == "no_value" and (p in DRAGON_TILES or p in (f.seat_wind, f.round_wind)):
        return False
    return len(f.suits) >= f.settings.get("all_chows_min_suits", 1)


@pattern("all_pungs", "All Pungs", "對對糊", STANDARD)
def _all_pungs(f: Features) -> bool:
    """Four pungs or kongs and a pair."""
    return f.standard and len(f.pungs) == 4


@pattern("half_flush", "Half Flush", "混一色", WON)
def _half_flush(f: Features) -> bool:
    """One suit and honours."""
    return len(f.suits) == 1 and f.honours


@pattern("full_flush", "Full Flush", "清一色", WON)
def _full_flush(f: Features) -> bool:
    """One suit only."""
    return len(f.suits) == 1 and not f.honours


@pattern("seven_pairs", "Seven Pairs", "七對子", frozenset({"seven_pairs"}))
def _seven_pairs(f: Features) -> bool:
    """Seven pairs."""
    return f.shape == "seven_pairs"


@pattern("mixed_terminals", "Mixed Terminals", "混么九", WON)
def _mixed_terminals(f: Features) -> bool:
    """Sets and a pair (or seven pairs) of terminals and honours only, some of each; thirteen
    orphans is its own hand."""
    return f.present <= ORPHANS and f.honours and bool(f.suits)


@pattern("all_terminals", "All Terminals", "清么九", WON)
def _all_terminals(f: Features) -> bool:
    """Only ones and nines."""
    return f.present <= TERMINALS


@pattern("all_honours", "All Honours", "字一色", WON)
def _all_honours(f: Features) -> bool:
    """Only winds and dragons."""
    return not f.suits


@pattern("four_concealed_pungs", "Four Concealed Pungs", "坎坎糊", STANDARD)
def _four_concealed(f: Features) -> bool:
    """Four concealed pungs or kongs (a pung finished on a discard is exposed)."""
    if not f.standard or f.concealed_pungs() != 4:
        return False
    return f.ctx.self_drawn or not f.settings.get("four_concealed_pungs_self_drawn_only", False)


@pattern("three_concealed_pungs", "Three Concealed Pungs", "三暗刻", STANDARD)
def _three_concealed(f: Features) -> bool:
    """Exactly three concealed pungs or kongs."""
    return f.standard and f.concealed_pungs() == 3


@pattern("four_kongs", "Four Kongs", "十八羅漢", STANDARD)
def _four_kongs(f: Features) -> bool:
    """Four kongs."""
    return f.kongs == 4


@pattern("three_kongs", "Three Kongs", "三槓子", STANDARD)
def _three_kongs(f: Features) -> bool:
    """Exactly three kongs."""
    return f.kongs == 3


@pattern("two_kongs", "Two Kongs", "兩槓", STANDARD)
def _two_kongs(f: Features) -> bool:
    """Exactly two kongs."""
    return f.kongs == 2


@pattern("nine_gates", "Nine Gates", "九子連環", STANDARD)
def _nine_gates(f: Features) -> bool:
    """Concealed 1112345678999 of one suit, won on any tile of that suit."""
    if f.hand.melds or len(f.suits) != 1 or f.honours or not f.standard:
        return False
    base = 9 * next(iter(f.suits))
    c = list(f.counts[base:base + 9])
    c[f.win - base] -= 1
    return c == [3, 1, 1, 1, 1, 1, 1, 1, 3]


@pattern("thirteen_orphans", "Thirteen Orphans", "十三么", frozenset({"thirteen_orphans"}))
def _thirteen_orphans(f: Features) -> bool:
    """One of each terminal and honour and a pair of one of them."""
    return f.shape == "thirteen_orphans"


def _suit_dragon(f: Features, suit: int, dragon: str) -> bool:
    d = index(dragon)
    return f.standard and not f.chows and d in f.pung_set and f.present <= _SUIT_SETS[suit] | {d}


@pattern("jade_dragon", "Jade Dragon", "翡翠龍", STANDARD)
def _jade(f: Features) -> bool:
    """Pungs (or kongs) of bamboo, a pung of green dragons, a pair of bamboo: no chows."""
    return _suit_dragon(f, 2, "Gd")


@pattern("ruby_dragon", "Ruby Dragon", "紅寶龍", STANDARD)
def _ruby(f: Features) -> bool:
    """Pungs (or kongs) of characters, a pung of red dragons, a pair of characters: no chows."""
    return _suit_dragon(f, 0, "Rd")


@pattern("pearl_dragon", "Pearl Dragon", "珍珠龍", STANDARD)
def _pearl(f: Features) -> bool:
    """Pungs (or kongs) of dots, a pung of white dragons, a pair of dots: no chows."""
    return _suit_dragon(f, 1, "Wd")


@pattern("pure_straight", "Pure Straight", "一條龍", STANDARD)
def _pure_straight(f: Features) -> bool:
    """123, 456 and 789 chows of one suit."""
    cs = f.chow_count
    return any(cs.get(9 * s) and cs.get(9 * s + 3) and cs.get(9 * s + 6) for s in range(3))


@pattern("mixed_triple_chow", "Mixed Triple Chow", "三相逢", STANDARD)
def _mixed_triple(f: Features) -> bool:
    """The same chow in all three suits."""
    cs = f.chow_count
    return any(cs.get(n) and cs.get(n + 9) and cs.get(n + 18) for n in range(7))


@pattern("pure_double_chow", "Pure Double Chow", "一般高", STANDARD)
def _pure_double(f: Features) -> int:
    """Two identical chows of one suit (each such pair of chows counts)."""
    return sum(1 for n in f.chow_count.values() if n >= 2)


@pattern("two_pure_double_chows", "Two Pure Double Chows", "雙龍抱珠", STANDARD)
def _two_pure_double(f: Features) -> bool:
    """Two pairs of identical chows."""
    return sum(n // 2 for n in f.chow_count.values()) >= 2


@pattern("pure_triple_chow", "Pure Triple Chow", "三般高", STANDARD)
def _pure_triple(f: Features) -> bool:
    """Three identical chows of one suit."""
    return any(n >= 3 for n in f.chow_count.values())


@pattern("four_identical_chows", "Four Identical Chows", "四般高", STANDARD)
def _pure_quad(f: Features) -> bool:
    """Four identical chows of one suit."""
    return any(n == 4 for n in f.chow_count.values())


@pattern("two_dragon_suits", "Two Dragon Suits", "兩套龍", STANDARD)
def _two_dragon_suits(f: Features) -> bool:
    """A pure straight and a second 456 chow of the same suit."""
    cs = f.chow_count
    return any(cs.get(9 * s) and cs.get(9 * s + 3, 0) >= 2 and cs.get(9 * s + 6) for s in range(3))


@pattern("all_simples", "All Simples", "斷么", WON)
def _all_simples(f: Features) -> bool:
    """No terminal or honour."""
    return f.present.isdisjoint(ORPHANS)


@pattern("no_honours", "No Honour Tiles", "無字", WON)
def _no_honours(f: Features) -> bool:
    """Suit tiles only."""
    return not f.honours


def _group_type(g: Group) -> str:
    return "w" if g.tile in WIND_TILES else "d" if g.tile in DRAGON_TILES else "mps"[g.tile // 9]


@pattern("five_doors", "All Types (Five Doors)", "五門齊", STANDARD)
def _five_doors(f: Features) -> bool:
    """Each set and the pair of a different kind: characters, dots, bamboo, winds, dragons."""
    return f.standard and len({_group_type(g) for g in f.groups}) == 5


@pattern("two_suits", "One Voided Suit", "缺一門", WON)
def _two_suits(f: Features) -> bool:
    """Tiles of exactly two of the three suits (honours allowed)."""
    return len(f.suits) == 2


def _has_orphan(g: Group) -> bool:
    return any(t in ORPHANS for t in g.tiles)


@pattern("outside_hand", "Outside Hand", "混全帶么", STANDARD)
def _outside(f: Features) -> bool:
    """A terminal or an honour in every set and in the pair."""
    return f.standard and all(_has_orphan(g) for g in f.groups)


@pattern("pure_outside", "Pure Outside Hand", "純全帶么", STANDARD)
def _pure_outside(f: Features) -> bool:
    """A terminal in every set and in the pair, no honours."""
    return f.standard and not f.honours and all(_has_orphan(g) for g in f.groups)


@pattern("terminal_chows", "Two Terminal Chows", "老少", STANDARD)
def _terminal_chows(f: Features) -> int:
    """123 and 789 chows of one suit (each suit counts)."""
    cs = f.chow_count
    return sum(1 for s in range(3) if cs.get(9 * s) and cs.get(9 * s + 6))


@pattern("double_lao_shao", "Double Lao Shao", "雙老少", STANDARD)
def _double_lao_shao(f: Features) -> bool:
    """123 and 789 chows in two different suits."""
    return _terminal_chows(f) >= 2


@pattern("terminal_pungs", "Two Terminal Pungs", "老少碰", STANDARD)
def _terminal_pungs(f: Features) -> int:
    """111 and 999 pungs of one suit (each suit counts)."""
    ps = f.pung_set
    return sum(1 for s in range(3) if 9 * s in ps and 9 * s + 8 in ps)


def _four_in(f: Features, k: int) -> int:
    n = 0
    for t in range(27):
        if f.counts[t] == 4 and not any(g.kind == "kong" and g.tile == t for g in f.groups):
            if sum(1 for g in f.groups if t in g.tiles) == k:
                n += 1
    return n


@pattern("four_in_two", "Four into Two", "四歸二", STANDARD)
def _four_in_two(f: Features) -> int:
    """All four copies of a suit tile spread over two sets (a pung and a chow)."""
    return _four_in(f, 2) if f.standard else 0


@pattern("four_in_three", "Four into Three", "四歸三", STANDARD)
def _four_in_three(f: Features) -> int:
    """All four copies of a suit tile spread over three groups."""
    return _four_in(f, 3) if f.standard else 0


@pattern("four_in_four", "Four into Four", "四歸四", STANDARD)
def _four_in_four(f: Features) -> int:
    """All four copies of a suit tile spread over four chows."""
    return _four_in(f, 4) if f.standard else 0


@pattern("special_eyes", "Special Eyes", "將眼", STANDARD)
def _special_eyes(f: Features) -> bool:
    """The pair is a 2, 5 or 8 of a suit."""
    return f.standard and f.pair < 27 and _number(f.pair) in (2, 5, 8)


@pattern("four_revealed_pungs", "Four Revealed Pungs", "清四碰", STANDARD)
def _four_revealed(f: Features) -> bool:
    """Four melded pungs or kongs."""
    return sum(1 for g in f.pungs if g.melded) == 4


@pattern("a_tail", "A Tail", "尾尾", STANDARD)
def _a_tail(f: Features) -> bool:
    """Two pungs shifted by one with the pair next in line (n, n+1, pair n+2 or n-1), or two wind
    pungs and a wind pair."""
    if not f.standard:
        return False
    ps = f.pung_set
    p = f.pair
    if p in WIND_TILES and len(ps & WIND_TILES) >= 2:
        return True
    if p >= 27:
        return False
    n = _number(p)
    return (n >= 3 and {p - 2, p - 1} <= ps) or (n <= 7 and {p + 1, p + 2} <= ps)


@pattern("pure_shifted_pungs", "Pure Shifted Pungs", "姊妹碰", STANDARD)
def _shifted_pungs(f: Features) -> bool:
    """Three pungs of one suit, each one up from the last."""
    ps = f.pung_set
    return any(t < 27 and t % 9 <= 6 and t + 1 in ps and t + 2 in ps for t in ps)


@pattern("three_winds", "Three Winds", "三風會", STANDARD)
def _three_winds(f: Features) -> bool:
    """Three wind pungs."""
    return len(f.pung_set & WIND_TILES) >= 3


def _number_classes(f: Features) -> set:
    return {(_number(t) if t < 27 else "honour") for t in f.present}


@pattern("three_numbers", "Three Numbers", "三數", STANDARD)
def _three_numbers(f: Features) -> bool:
    """Only three numbers in the whole hand (all honours count as one number)."""
    return f.standard and len(_number_classes(f)) <= 3


@pattern("two_numbers", "Two Numbers", "兩數", STANDARD)
def _two_numbers(f: Features) -> bool:
    """All pungs, and only two numbers (all honours count as one number)."""
    return f.standard and len(f.pungs) == 4 and len(_number_classes(f)) <= 2


@pattern("all_linked", "All Linked", "全帶", STANDARD)
def _all_linked(f: Features) -> bool:
    """One number appears in every set and in the pair."""
    if not f.standard or f.honours:
        return False
    return any(all(any(_number(t) == n for t in g.tiles) for g in f.groups) for n in range(1, 10))


@pattern("all_linked_three_numbers", "All Linked with Three Numbers", "全帶三數", STANDARD)
def _all_linked_three(f: Features) -> bool:
    """Four chows of the same numbers (any suits) and a pair of one of those numbers."""
    if not f.standard or len(f.chows) != 4 or f.pair >= 27:
        return False
    starts = {_number(g.tile) for g in f.chows}
    return len(starts) == 1 and 0 <= _number(f.pair) - starts.pop() <= 2


@pattern("all_contain_one", "All Contain One", "全帶一", STANDARD)
def _all_contain_one(f: Features) -> bool:
    """Four 123 chows and a pair of ones."""
    return (f.standard and len(f.chows) == 4 and all(_number(g.tile) == 1 for g in f.chows)
            and f.pair < 27 and _number(f.pair) == 1)


@pattern("all_contain_nine", "All Contain Nine", "全帶九", STANDARD)
def _all_contain_nine(f: Features) -> bool:
    """Four 789 chows and a pair of nines."""
    return (f.standard and len(f.chows) == 4 and all(_number(g.tile) == 7 for g in f.chows)
            and f.pair < 27 and _number(f.pair) == 9)


@pattern("special_eye_pungs", "Special Eye Pungs", "將將碰", STANDARD)
def _special_eye_pungs(f: Features) -> bool:
    """All pungs, every tile a 2, 5 or 8."""
    return (f.standard and len(f.pungs) == 4 and not f.honours
            and all(_number(t) in (2, 5, 8) for t in f.present))


# ---------------------------------------------------------------- honours

@pattern("dragon_pung", "Dragon Pung", "箭刻", STANDARD)
def _dragon_pung(f: Features) -> int:
    """A pung or kong of dragons (each counts)."""
    return len(f.pung_set & DRAGON_TILES)


@pattern("seat_wind", "Seat Wind", "門風", STANDARD)
def _seat_wind(f: Features) -> bool:
    """A pung or kong of the winner's seat wind."""
    return f.seat_wind in f.pung_set


@pattern("round_wind", "Prevailing Wind", "圈風", STANDARD)
def _round_wind(f: Features) -> bool:
    """A pung or kong of the prevailing wind."""
    return f.round_wind in f.pung_set


@pattern("honour_pung", "Honour Tiles", "番子", STANDARD)
def _honour_pung(f: Features) -> int:
    """A pung or kong of dragons, seat wind or prevailing wind (each set counts once)."""
    value = DRAGON_TILES | {f.seat_wind, f.round_wind}
    return len(f.pung_set & value)


@pattern("little_three_dragons", "Little Three Dragons", "小三元", STANDARD)
def _little_dragons(f: Features) -> bool:
    """Two dragon pungs and a pair of the third dragon."""
    return f.standard and f.pair in DRAGON_TILES and _dragon_pung(f) == 2


@pattern("big_three_dragons", "Big Three Dragons", "大三元", STANDARD)
def _big_dragons(f: Features) -> bool:
    """Pungs or kongs of all three dragons."""
    return _dragon_pung(f) == 3


@pattern("little_four_winds", "Little Four Winds", "小四喜", STANDARD)
def _little_winds(f: Features) -> bool:
    """Three wind pungs and a pair of the fourth wind."""
    if not (f.standard and f.pair in WIND_TILES and len(f.pung_set & WIND_TILES) == 3):
        return False
    if f.settings.get("little_four_winds_pair_rule", "any") == "no_value_wind":
        return f.pair not in (f.seat_wind, f.round_wind)
    return True


@pattern("big_four_winds", "Big Four Winds", "大四喜", STANDARD)
def _big_winds(f: Features) -> bool:
    """Pungs or kongs of all four winds."""
    return len(f.pung_set & WIND_TILES) == 4



# ---------------------------------------------------------------- what a pattern implies

# A: {B: k}: every reading that has A also has B, at least k times (B counted on the readings B is
# defined on: all_honours implies all_pungs on a hand of sets, not on seven pairs). The table is
# checked against the predicates in the tests (tests/test_scoring_pairs.py walks each pattern's
# hands and looks for a counterexample to every pair), so it is what the predicates imply, not a
# reading of the seeds. What a preset does with an implied pair is decided in ``rules``.
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
                      "terminal_pungs": 1, "three_numbers": 1, "two_numbers": 1},
    "all_honours": {"all_pungs": 1, "outside_hand": 1, "three_numbers": 1, "two_numbers": 1, "honour_pung": 1},
    "mixed_terminals": {"all_pungs": 1, "outside_hand": 1, "three_numbers": 1},
    "pure_outside": {"outside_hand": 1, "no_honours": 1},
    "jade_dragon": {"all_pungs": 1, "half_flush": 1, "dragon_pung": 1},
    "ruby_dragon": {"all_pungs": 1, "half_flush": 1, "dragon_pung": 1},
    "pearl_dragon": {"all_pungs": 1, "half_flush": 1, "dragon_pung": 1},
    "big_three_dragons": {"dragon_pung": 3, "honour_pung": 3},
    "little_three_dragons": {"dragon_pung": 2, "honour_pung": 2},
    "big_four_winds": {"all_pungs": 1, "three_winds": 1, "seat_wind": 1, "round_wind": 1, "honour_pung": 1,
                       "three_numbers": 1, "two_numbers": 1},
    "little_four_winds": {"three_winds": 1, "a_tail": 1},
    "pure_straight": {"terminal_chows": 1},
    "two_dragon_suits": {"pure_straight": 1, "pure_double_chow": 1, "terminal_chows": 1},
    "pure_triple_chow": {"pure_double_chow": 1},
    "four_identical_chows": {"pure_triple_chow": 1, "pure_double_chow": 1, "all_chows": 1},
    "two_pure_double_chows": {"pure_double_chow": 2},
    "double_lao_shao": {"terminal_chows": 2, "all_chows": 1},
    "four_in_four": {"pure_double_chow": 1},
    "all_linked": {"no_honours": 1},
    "all_linked_three_numbers": {"all_chows": 1, "all_linked": 1, "three_numbers": 1, "no_honours": 1,
                                 "pure_double_chow": 1},
    "all_contain_one": {"all_linked_three_numbers": 1, "all_linked": 1, "three_numbers": 1, "all_chows": 1,
                        "pure_outside": 1, "outside_hand": 1, "no_honours": 1, "pure_double_chow": 1},
    "all_contain_nine": {"all_linked_three_numbers": 1, "all_linked": 1, "three_numbers": 1, "all_chows": 1,
                         "pure_outside": 1, "outside_hand": 1, "no_honours": 1, "pure_double_chow": 1},
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
