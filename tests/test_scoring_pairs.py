"""Every pattern pair of every preset.

A corpus of readings is made by walking each pattern's hands: from a hand that has the pattern,
random changes (a set swapped, a pair changed, a set melded, the winning tile moved, the seat, the
way it was won, bonus tiles) are kept while the pattern still holds. On that corpus:

- what each pattern implies is derived from the engine's matches and must be what
  ``patterns.IMPLIES`` declares, no more and no less (a declared pair with a counterexample is
  wrong; an undeclared pair with none must be declared or given a counterexample here);
- the engine's matches must equal a plain reading of every pattern's definition (the reference
  predicates below, written over the groups of an Arrangement), so the traits and bit masks that
  make the engine fast never hide or invent a pattern;
- every ordered pair of a preset's patterns is scored by the table (``RulePreset.relations``):
  one that replaces the other drops it, a limit hand drops every ordinary pattern, the rest add.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from functools import lru_cache

import pytest

from mjcam.scoring import PATTERNS, PRESET_IDS, load_preset, parse_hand, score
from mjcam.scoring.context import ContextError, WinContext
from mjcam.scoring.decompose import arrangements
from mjcam.scoring.engine import _matches, _tally
from mjcam.scoring.patterns import IMPLIES, Features, implied
from mjcam.scoring.tiles import CODES, SEATS

from test_patterns import CASES

ORPHANS = [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33]

# starting hands besides each pattern's hit in test_patterns.CASES, for patterns whose walk
# cannot reach a counterexample alone (each one names what it shows)
EXTRA_STARTS = [
    ("1112345678999m +1m", {}),                          # nine gates won on a 1: not on the pair
    ("1112345678999m +9m", {"discarder": "S"}),
    ("123m 456m 789p 234s 5s F1 F2 F3 F4 S1 S2 S4", {}),  # seven bonus tiles without S3
    ("123m 456m 789p 234s 5s F1 F2 F4 S1 S2 S3 S4", {}),  # ... without F3
    ("123m 456m 789p 234s 5s F1 F2 F3 F4 S1 S2 S3 S4", {}),  # an instant win on all eight
    ("123m 456m 789p 234s 5s F1 F2 F3 F4 S1 S2 S3 S4", {"kong_replacement": True}),
    ("123m 456m 789p 234s 5s F1 F2 F3 F4 S1 S2 S3 S4", {"double_kong": True}),
    ("123s 123s 123s 123m 1m +1m", {"discarder": "W"}),  # all contain one in two suits
    ("[1111m] [4444m] {7777p} {2222s} 9s +9s", {"discarder": "W"}),  # four kongs, a pair of nines
    ("EESSWWNNRdRdGdGdWd +Wd", {}),                      # all honours as seven pairs
    ("1111m 99m 11p 99p 11s 9s +9s", {"discarder": "S"}),  # all terminals as seven pairs (four alike)
    ("11m 99m 11p 99p 11s EE N +N", {}),                 # mixed terminals as seven pairs
    ("[EEE] [SSS] [WWW] [NNN] Rd +Rd", {"discarder": "S"}),  # big four winds with an honour pair
    ("[SSS] [WWW] [NNN] RdRdRd E +E", {"seat": "E", "round": "E"}),  # all honours, one value pung
    ("123m 789m 123p 789p E +E", {"discarder": "W"}),     # double lao shao with an honour pair
    ("123m 789m 123p 789p 5p +5p", {"discarder": "W"}),   # ... in two suits only
    ("123s 123s 123s 123s 5s +5s", {"discarder": "W"}),  # four identical chows, one suit
    ("123m 123m 456m 456m 5m +5m", {"discarder": "W"}),  # two pure double chows, one suit
    ("567s 567s 567s 567s 5m +5m", {"discarder": "W"}),  # all linked three numbers, pair elsewhere
    ("[1111m] [2222p] [3333s] [4444s] 5s +5s", {"discarder": "W"}),  # four melded kongs on a discard
    ("111m 444m 777p 22s 55s +2s", {}),                  # four concealed pungs, won on a pung
    ("[EEE] [SSS] [WWW] 123m N +N", {"seat": "N", "round": "N"}),  # little four winds, value pair
    ("{1111m} 456m 789p 234s 5s +5s", {"heavenly": True}),         # heavenly with a concealed kong
    ("[111m] [999p] [EEE] 111s N +N", {"discarder": "W", "seat": "S"}),
]


def _tiles(kind: str, t: int) -> list[int]:
    return [t, t + 1, t + 2] if kind == "chow" else [t] * (2 if kind == "pair" else 3 if kind == "pung" else 4)


def _state(text: str, sit: dict) -> dict | None:
    h = parse_hand(text)
    ctx = WinContext(**sit)
    arrs = arrangements(h, ctx.self_drawn, seven_pairs=True, seven_pairs_allow_four=True)
    if not arrs:
        return None
    arr = arrs[0]
    base = dict(bonus=set(h.bonus), sit=dict(sit), win=h.winning, shape=arr.shape)
    if arr.shape == "standard":
        sets, pair = [], None
        for g in arr.groups:
            if g.kind == "pair":
                pair = g.tile
            else:
                sets.append([g.kind, g.tile, "k" if g.kind == "kong" and not g.melded else "m" if g.melded else "c"])
        return dict(base, sets=sets, pair=pair)
    if arr.shape == "seven_pairs":
        return dict(base, pairs=[g.tile for g in arr.groups])
    if arr.shape == "thirteen_orphans":
        return dict(base, dup=h.winning)
    return dict(base, text=text)


def _render(st: dict) -> str | None:
    bonus = [CODES[b] for b in sorted(st["bonus"])]
    parts: list[str] = []
    if st["shape"] == "standard":
        conc = _tiles("pair", st["pair"])
        for k, t, m in st["sets"]:
            ts = "".join(CODES[x] for x in _tiles(k, t))
            if m == "m":
                parts.append("[" + ts + "]")
            elif m == "k":
                parts.append("{" + ts + "}")
            else:
                conc += _tiles(k, t)
    elif st["shape"] == "seven_pairs":
        conc = [t for p in st["pairs"] for t in (p, p)]
    elif st["shape"] == "thirteen_orphans":
        conc = ORPHANS + [st["dup"]]
    else:
        return st["text"]
    if st["win"] not in conc:
        return None
    conc.remove(st["win"])
    return " ".join(parts + [CODES[x] for x in sorted(conc)] + bonus + ["+" + CODES[st["win"]]])


def _random_set(rnd: random.Random, near: int) -> list:
    t = (near // 9 * 9 + rnd.randrange(9)) if near < 27 and rnd.random() < 0.5 else \
        rnd.randrange(27) if rnd.random() < 0.7 else 27 + rnd.randrange(7)
    kind = rnd.choice(["chow", "chow", "pung", "pung", "kong"])
    if kind == "chow":
        if t >= 27:
            kind = "pung"
        else:
            t = t // 9 * 9 + min(t % 9, 6)
    return [kind, t, rnd.choice("cm") if kind != "kong" else rnd.choice("mk")]


def _mutate(rnd: random.Random, st: dict) -> dict:
    s = {k: (list(map(list, v)) if k == "sets" else list(v) if isinstance(v, list) else set(v) if isinstance(v, set)
             else dict(v) if isinstance(v, dict) else v) for k, v in st.items()}
    op = rnd.randrange(10)
    if s["shape"] == "standard":
        if op <= 1:
            i = rnd.randrange(4)
            s["sets"][i] = _random_set(rnd, s["sets"][i][1])
        elif op == 2:
            p = s["pair"]
            s["pair"] = rnd.choice([rnd.randrange(34), p // 9 * 9 + rnd.randrange(9) if p < 27 else 27 + rnd.randrange(7)])
        elif op == 3:
            k = s["sets"][rnd.randrange(4)]
            k[2] = {"c": "m", "m": "c" if k[0] != "kong" else "k", "k": "m"}[k[2]]
        elif op == 4:
            conc = _tiles("pair", s["pair"]) + [x for k, t, m in s["sets"] if m == "c" for x in _tiles(k, t)]
            s["win"] = rnd.choice(conc)
    elif s["shape"] == "seven_pairs":
        if op <= 2:
            s["pairs"][rnd.randrange(7)] = rnd.randrange(34)
        elif op <= 4:
            s["win"] = rnd.choice(s["pairs"])
    elif s["shape"] == "thirteen_orphans":
        if op <= 2:
            s["dup"] = rnd.choice(ORPHANS)
        elif op <= 4:
            s["win"] = rnd.choice(ORPHANS)
    sit = s["sit"]
    if op in (5, 6):
        what = rnd.choice(["seat", "round", "dealer", "how", "flag", "flag", "bonus", "bonus"])
        if what in ("seat", "round", "dealer"):
            sit[what] = rnd.choice(SEATS)
        elif what == "how":
            if "discarder" in sit:
                sit.pop("discarder")
            else:
                sit["discarder"] = rnd.choice(SEATS)
        elif what == "flag":
            f = rnd.choice(["last_tile", "kong_replacement", "double_kong", "robbing_kong", "heavenly", "earthly",
                            "man", "last_of_kind", "ready", "flowers_in_play"])
            sit[f] = not sit.get(f, f == "flowers_in_play")
        elif s["shape"] != "bonus":
            s["bonus"] ^= {34 + rnd.randrange(8)}
    elif op >= 7:
        s["sit"] = {"seat": rnd.choice(SEATS), "round": rnd.choice(SEATS), "dealer": rnd.choice(SEATS)}
        if rnd.random() < 0.5:
            s["sit"]["discarder"] = rnd.choice(SEATS)
    return s


def _readings(st: dict) -> list[tuple]:
    text = _render(st)
    if text is None:
        return []
    try:
        h = parse_hand(text)
        ctx = WinContext(**st["sit"])
    except (ValueError, ContextError):
        return []
    if (h.bonus and not ctx.flowers_in_play) or ((ctx.heavenly or ctx.earthly or ctx.man) and
                                                 any(not m.concealed for m in h.melds)):
        return []  # the engine refuses these before any pattern is looked at
    return [(h, a, ctx) for a in arrangements(h, ctx.self_drawn, seven_pairs=True, seven_pairs_allow_four=True)]


def _walk(pid: str, start: tuple, steps: int, seed: int) -> list[tuple]:
    rnd = random.Random(seed)
    st = _state(*start)
    fn = PATTERNS[pid]
    out = _readings(st)
    for _ in range(steps):
        s2 = _mutate(rnd, st)
        rs = _readings(s2)
        out.extend(rs)
        if any(fn(Features(h, a, ctx, {})) for h, a, ctx in rs):
            st = s2
    return out


@lru_cache(maxsize=None)
def corpus() -> tuple:
    starts = [(pid, hit) for pid, (hit, _) in CASES.items()] + [(None, s) for s in EXTRA_STARTS]
    out = []
    for i, (pid, start) in enumerate(starts):
        if pid is None:  # walk an extra start as whatever its first reading holds
            h, a, ctx = _readings(_state(*start))[0]
            held = [p for p in PATTERNS if PATTERNS[p](Features(h, a, ctx, {}))]
            pid = held[i % len(held)]
        out.extend(_walk(pid, start, 120, i))
    return tuple(out)


# ---------------------------------------------------------------- reference predicates

class R:
    """One reading as plain sets and lists, for the reference predicates."""

    def __init__(self, h, a, ctx, st):
        self.h, self.a, self.ctx, self.st = h, a, ctx, st
        self.shape = a.shape
        self.groups = [g for g in a.groups if g.kind != "orphans"]
        self.pungs = [g for g in self.groups if g.kind in ("pung", "kong")]
        self.chows = [g.tile for g in self.groups if g.kind == "chow"]
        self.pair = next((g.tile for g in self.groups if g.kind == "pair"), None) if a.shape == "standard" else None
        self.present = {t for t in range(34) if h.counts[t]}
        self.suits = {t // 9 for t in self.present if t < 27}
        self.honours = any(t >= 27 for t in self.present)
        self.seat, self.round = 27 + SEATS.index(ctx.seat), 27 + SEATS.index(ctx.round)
        kf = st.get("melded_kong_counts_concealed", False)
        self.melded = [g for g in self.groups if g.melded and not (kf and g.kind == "kong")]
        self.conc_pungs = sum(1 for g in self.pungs if g.concealed or (kf and g.kind == "kong"))
        self.kongs = sum(1 for g in self.groups if g.kind == "kong")
        self.pung_tiles = {g.tile for g in self.pungs}
        self.chow_count = Counter(self.chows)
        self.std = a.shape == "standard"
        self.bonus = set(h.bonus)
        self.seat_no = SEATS.index(ctx.seat)


def _n(t):
    return t % 9 + 1


def _orphan_group(g):
    return any(t in ORPHANS for t in g.tiles)


def _four_in(r, k):
    return sum(1 for t in range(27) if r.h.counts[t] == 4 and not any(g.kind == "kong" and g.tile == t for g in r.groups)
               and sum(1 for g in r.groups if t in g.tiles) == k)


def _all_chows(r):
    rule, p = r.st.get("all_chows_pair", "any"), r.pair
    if rule == "suited" and p >= 27 or rule == "no_value_wind" and p in (r.seat, r.round):
        return False
    if rule == "no_value" and (p >= 31 or p in (r.seat, r.round)):
        return False
    return len(r.chows) == 4 and len(r.suits) >= r.st.get("all_chows_min_suits", 1)


def _little_winds(r):
    winds = r.pung_tiles & {27, 28, 29, 30}
    ok = r.pair in (27, 28, 29, 30) and len(winds) == 3
    if ok and r.st.get("little_four_winds_pair_rule", "any") == "no_value_wind":
        return r.pair not in (r.seat, r.round)
    return ok


def _a_tail(r):
    ps, p = r.pung_tiles, r.pair
    if p in (27, 28, 29, 30) and len(ps & {27, 28, 29, 30}) >= 2:
        return True
    return p < 27 and ((_n(p) >= 3 and {p - 2, p - 1} <= ps) or (_n(p) <= 7 and {p + 1, p + 2} <= ps))


def _numbers(r):
    return {(_n(t) if t < 27 else "h") for t in r.present}


def _nine_gates(r):
    if r.h.melds or len(r.suits) != 1 or r.honours:
        return False
    base = 9 * next(iter(r.suits))
    c = list(r.h.counts[base:base + 9])
    c[r.h.winning - base] -= 1
    return c == [3, 1, 1, 1, 1, 1, 1, 1, 3]


def _suit_dragon(r, suit, d):
    return not r.chows and d in r.pung_tiles and r.present <= set(range(9 * suit, 9 * suit + 9)) | {d}


def _cs(r, *ts):
    return all(r.chow_count.get(t) for t in ts)


def _terminal_chows(r):
    return sum(1 for s in range(3) if _cs(r, 9 * s, 9 * s + 6))


REF = {
    "no_flowers": lambda r: r.ctx.flowers_in_play and not r.bonus,
    "seat_flower": lambda r: 34 + r.seat_no in r.bonus,
    "seat_season": lambda r: 38 + r.seat_no in r.bonus,
    "all_flowers": lambda r: {34, 35, 36, 37} <= r.bonus,
    "all_seasons": lambda r: {38, 39, 40, 41} <= r.bonus,
    "all_bonus": lambda r: len(r.bonus) == 8,
    "seven_bonus": lambda r: r.shape == "bonus" and len(r.bonus) == 7,
    "self_drawn": lambda r: r.ctx.self_drawn and r.shape != "bonus",
    "concealed_hand": lambda r: not r.melded and r.shape != "bonus",
    "fully_concealed": lambda r: (not r.melded and r.ctx.self_drawn and r.shape != "bonus"
                                  and (r.st.get("fully_concealed_allows_kongs", True) or not r.kongs)),
    "melded_hand": lambda r: r.std and len(r.melded) == 4 and not r.ctx.self_drawn,
    "semi_self_sufficient": lambda r: r.std and len(r.melded) == 4 and r.ctx.self_drawn,
    "last_tile": lambda r: r.ctx.last_tile,
    "last_tile_draw": lambda r: r.ctx.last_tile and r.ctx.self_drawn,
    "last_tile_discard": lambda r: r.ctx.last_tile and not r.ctx.self_drawn,
    "robbing_kong": lambda r: r.ctx.robbing_kong,
    "kong_replacement": lambda r: r.ctx.kong_replacement or r.ctx.double_kong,
    "double_kong": lambda r: r.ctx.double_kong,
    "heavenly": lambda r: r.ctx.heavenly,
    "earthly": lambda r: r.ctx.earthly,
    "man": lambda r: r.ctx.man,
    "wait": lambda r: r.std and r.a.wait in ("single", "closed", "edge"),
    "bridge_tile": lambda r: r.std and r.a.wait == "closed" and _n(r.h.winning) == 5,
    "one_chance_chow": lambda r: r.std and r.a.wait in ("closed", "edge"),
    "out_on_pair": lambda r: r.std and r.a.wait == "single",
    "last_of_kind": lambda r: r.ctx.last_of_kind,
    "double_jeopardy": lambda r: r.ctx.last_of_kind and r.std and r.a.wait == "two-sided",
    "ready_hand": lambda r: r.ctx.ready,
    "all_chows": lambda r: r.std and _all_chows(r),
    "all_pungs": lambda r: r.std and len(r.pungs) == 4,
    "half_flush": lambda r: r.shape in ("standard", "seven_pairs") and len(r.suits) == 1 and r.honours,
    "full_flush": lambda r: r.shape in ("standard", "seven_pairs") and len(r.suits) == 1 and not r.honours,
    "seven_pairs": lambda r: r.shape == "seven_pairs",
    "mixed_terminals": lambda r: (r.shape in ("standard", "seven_pairs") and r.present <= set(ORPHANS)
                                  and r.honours and bool(r.suits)),
    "all_terminals": lambda r: r.shape in ("standard", "seven_pairs") and r.present <= set(ORPHANS[:6]),
    "all_honours": lambda r: r.shape in ("standard", "seven_pairs") and not r.suits,
    "four_concealed_pungs": lambda r: (r.std and r.conc_pungs == 4 and (
        r.ctx.self_drawn or not r.st.get("four_concealed_pungs_self_drawn_only", False))),
    "three_concealed_pungs": lambda r: r.std and r.conc_pungs == 3,
    "four_kongs": lambda r: r.std and r.kongs == 4,
    "three_kongs": lambda r: r.std and r.kongs == 3,
    "two_kongs": lambda r: r.std and r.kongs == 2,
    "nine_gates": lambda r: r.std and _nine_gates(r),
    "thirteen_orphans": lambda r: r.shape == "thirteen_orphans",
    "jade_dragon": lambda r: r.std and _suit_dragon(r, 2, 32),
    "ruby_dragon": lambda r: r.std and _suit_dragon(r, 0, 31),
    "pearl_dragon": lambda r: r.std and _suit_dragon(r, 1, 33),
    "pure_straight": lambda r: r.std and any(_cs(r, 9 * s, 9 * s + 3, 9 * s + 6) for s in range(3)),
    "mixed_triple_chow": lambda r: r.std and any(_cs(r, n, n + 9, n + 18) for n in range(7)),
    "pure_double_chow": lambda r: r.std and sum(1 for n in r.chow_count.values() if n >= 2),
    "two_pure_double_chows": lambda r: r.std and sum(n // 2 for n in r.chow_count.values()) >= 2,
    "pure_triple_chow": lambda r: r.std and any(n >= 3 for n in r.chow_count.values()),
    "four_identical_chows": lambda r: r.std and any(n == 4 for n in r.chow_count.values()),
    "two_dragon_suits": lambda r: r.std and any(_cs(r, 9 * s, 9 * s + 6) and r.chow_count.get(9 * s + 3, 0) >= 2
                                                for s in range(3)),
    "all_simples": lambda r: r.shape in ("standard", "seven_pairs") and not r.present & set(ORPHANS),
    "no_honours": lambda r: r.shape in ("standard", "seven_pairs") and not r.honours,
    "five_doors": lambda r: r.std and len({("w" if 27 <= g.tile < 31 else "d" if g.tile >= 31 else g.tile // 9)
                                           for g in r.groups}) == 5,
    "two_suits": lambda r: r.shape in ("standard", "seven_pairs") and len(r.suits) == 2,
    "outside_hand": lambda r: r.std and all(_orphan_group(g) for g in r.groups),
    "pure_outside": lambda r: r.std and not r.honours and all(_orphan_group(g) for g in r.groups),
    "terminal_chows": lambda r: r.std and _terminal_chows(r),
    "double_lao_shao": lambda r: r.std and _terminal_chows(r) >= 2,
    "terminal_pungs": lambda r: r.std and sum(1 for s in range(3) if {9 * s, 9 * s + 8} <= r.pung_tiles),
    "four_in_two": lambda r: r.std and _four_in(r, 2),
    "four_in_three": lambda r: r.std and _four_in(r, 3),
    "four_in_four": lambda r: r.std and _four_in(r, 4),
    "special_eyes": lambda r: r.std and r.pair < 27 and _n(r.pair) in (2, 5, 8),
    "four_revealed_pungs": lambda r: r.std and sum(1 for g in r.pungs if g.melded) == 4,
    "a_tail": lambda r: r.std and _a_tail(r),
    "pure_shifted_pungs": lambda r: r.std and any(t < 27 and t % 9 <= 6 and {t + 1, t + 2} <= r.pung_tiles
                                                  for t in r.pung_tiles),
    "three_winds": lambda r: r.std and len(r.pung_tiles & {27, 28, 29, 30}) >= 3,
    "three_numbers": lambda r: r.std and len(_numbers(r)) <= 3,
    "two_numbers": lambda r: r.std and len(r.pungs) == 4 and len(_numbers(r)) <= 2,
    "all_linked": lambda r: r.std and not r.honours and any(
        all(any(_n(t) == n for t in g.tiles) for g in r.groups) for n in range(1, 10)),
    "all_linked_three_numbers": lambda r: (r.std and len(r.chows) == 4 and r.pair < 27
                                           and len({_n(c) for c in r.chows}) == 1
                                           and 0 <= _n(r.pair) - _n(r.chows[0]) <= 2),
    "all_contain_one": lambda r: (r.std and len(r.chows) == 4 and all(_n(c) == 1 for c in r.chows)
                                  and r.pair < 27 and _n(r.pair) == 1),
    "all_contain_nine": lambda r: (r.std and len(r.chows) == 4 and all(_n(c) == 7 for c in r.chows)
                                   and r.pair < 27 and _n(r.pair) == 9),
    "special_eye_pungs": lambda r: (r.std and len(r.pungs) == 4 and not r.honours
                                    and all(_n(t) in (2, 5, 8) for t in r.present)),
    "dragon_pung": lambda r: r.std and len(r.pung_tiles & {31, 32, 33}),
    "seat_wind": lambda r: r.std and r.seat in r.pung_tiles,
    "round_wind": lambda r: r.std and r.round in r.pung_tiles,
    "honour_pung": lambda r: r.std and len(r.pung_tiles & {31, 32, 33, r.seat, r.round}),
    "little_three_dragons": lambda r: r.std and r.pair in (31, 32, 33) and len(r.pung_tiles & {31, 32, 33}) == 2,
    "big_three_dragons": lambda r: r.std and {31, 32, 33} <= r.pung_tiles,
    "little_four_winds": lambda r: r.std and _little_winds(r),
    "big_four_winds": lambda r: r.std and {27, 28, 29, 30} <= r.pung_tiles,
}


def test_every_pattern_has_a_reference():
    assert set(REF) == set(PATTERNS)


@lru_cache(maxsize=None)
def matched(rid: str) -> tuple:
    """(reading, the engine's matches) for every corpus reading, under preset ``rid``."""
    p = load_preset(rid)
    out = []
    for h, a, ctx in corpus():
        out.append(((h, a, ctx), _matches(Features(h, a, ctx, p.settings), p)))
    return tuple(out)


@pytest.mark.parametrize("rid", PRESET_IDS)
def test_engine_matches_are_the_patterns_definitions(rid):
    p = load_preset(rid)
    active = [pid for pid, _ in p.active_patterns()]
    wrong = Counter()
    for (h, a, ctx), got in matched(rid):
        r = R(h, a, ctx, p.settings)
        for pid in active:
            if int(REF[pid](r)) != got.get(pid, 0):
                wrong[pid] += 1
    assert not wrong, f"engine and definition disagree under {rid}: {dict(wrong)}"


@pytest.mark.parametrize("rid", PRESET_IDS)
def test_implications_are_what_the_patterns_imply(rid):
    """patterns.IMPLIES under the preset's settings, restricted to its patterns, is exactly what
    the corpus shows: every declared pair holds on every reading, every other pair has a
    counterexample, and the declared count is the least one seen."""
    p = load_preset(rid)
    active = [pid for pid, _ in p.active_patterns()]
    least: dict[tuple[str, str], dict[str, int]] = {}  # (x, shape) -> y: least count on x's readings
    seen = Counter()
    for (h, a, ctx), got in matched(rid):
        for x in got:
            seen[x] += 1
            row = least.get((x, a.shape))
            if row is None:
                least[x, a.shape] = {y: n for y, n in got.items() if y != x}
            else:
                least[x, a.shape] = {y: min(n, got[y]) for y, n in row.items() if y in got}
    # a pattern that is its reading's shape (seven pairs) holds on every reading it is defined on:
    # nothing implies it
    shape_only = {y for y, q in PATTERNS.items() if len(q.shapes) == 1 and q.exact and not q.needs}
    derived = {}
    for x in active:
        shapes = [sh for (x2, sh) in least if x2 == x]
        for y in active:
            on = [sh for sh in shapes if sh in PATTERNS[y].shapes]
            if y != x and y not in shape_only and on and all(y in least[x, sh] for sh in on):
                derived[x, y] = min(least[x, sh][y] for sh in on)
    assert not [x for x in active if seen[x] < 5], "patterns the walk did not reach often enough"
    declared = {(x, y): k for x, row in implied(p.settings).items() if x in active
                for y, k in row.items() if y in active}
    # a declared count of 0 (all of them) needs only the implication; another, the least count seen
    assert {k: v for k, v in declared.items() if k not in derived or v and derived[k] != v} == {}, \
        "declared but not so on the corpus"
    assert {k: v for k, v in derived.items() if k not in declared} == {}, "implied on the corpus but not declared"


def test_declared_implications_hold_under_every_preset_setting():
    """Pairs no preset scores together are still checked: on every corpus reading where the
    first holds, the second holds as often as declared."""
    for rid in PRESET_IDS:
        st = load_preset(rid).settings
        table = implied(st)
        for (h, a, ctx), _ in matched(rid):
            f = Features(h, a, ctx, st)
            for x, row in table.items():
                if PATTERNS[x](f):
                    for y, k in row.items():
                        if a.shape in PATTERNS[y].shapes:
                            assert PATTERNS[y](f) >= max(k, 1), (rid, x, y, h)
    assert all(x in PATTERNS and set(row) <= set(PATTERNS) for x, row in IMPLIES.items())


def _expected(p, matched: dict) -> tuple[dict, set]:
    """What the relations table says is scored of ``matched``: kept counts and dropped pairs."""
    rel = {(r.a, r.b): (r.k, r.replaces) for r in p.relations}
    taken: dict[str, int] = {}
    dropped = set()
    for a in matched:
        for b in matched:
            k, rep = rel.get((a, b), (0, False))
            if a != b and rep:
                taken[b] = max(taken.get(b, 0), k or matched[b])
                dropped.add((b, a))
    kept = {x: n - taken.get(x, 0) for x, n in matched.items() if n > taken.get(x, 0)}
    limits = [x for x in kept if p.patterns[x] == "limit"]
    if limits:
        dropped |= {(x, limits[0]) for x in kept if p.patterns[x] != "limit"}
        kept = {x: 1 for x in limits}
    return kept, dropped


@pytest.mark.parametrize("rid", PRESET_IDS)
def test_every_pair_of_patterns_is_scored_by_the_table(rid):
    """Each ordered pair of the preset's patterns, found together once and twice over (for the
    counted ones), is scored as the preset's relations say."""
    p = load_preset(rid)
    order = p.order
    active = [pid for pid, _ in p.active_patterns()]
    for a, b in itertools.permutations(active, 2):
        for na, nb in ((1, 1), (1, 3)):
            m = dict(sorted({a: na, b: nb}.items(), key=lambda x: order[x[0]]))
            kept, suppressed, limits, raw, fan, *_ = _tally(p, m)
            want, dropped = _expected(p, m)
            got = {x: 1 for x in limits} if limits else dict(kept)
            assert got == want, (rid, a, b, na, nb)
            assert set(suppressed) == dropped, (rid, a, b)
            if not limits:
                assert raw == sum(p.patterns[x] * n for x, n in want.items())


@pytest.mark.parametrize("rid", PRESET_IDS)
def test_pairs_found_together_in_hands_are_scored_by_the_table(rid):
    """Every pair of patterns the corpus holds together, scored on that reading."""
    p = load_preset(rid)
    pairs = set()
    for (h, a, ctx), got in matched(rid):
        if not got:
            continue
        kept, suppressed, limits, *_ = _tally(p, got)
        want, dropped = _expected(p, got)
        assert (dict(kept) if not limits else {x: 1 for x in limits}) == want
        assert set(suppressed) == dropped
        pairs.update(itertools.combinations(sorted(got), 2))
    assert len(pairs) > 250


@pytest.mark.parametrize("rid", PRESET_IDS)
def test_relations_name_their_reasons(rid):
    p = load_preset(rid)
    for r in p.relations:
        assert r.why and r.a in p.patterns and r.b in p.patterns
        assert r.implied == (r.b in implied(p.settings).get(r.a, {}))
    for a, row in p.stacks.items():
        for b in row:
            assert b in implied(p.settings).get(a, {}), f"{rid}: stacks {a} > {b} names no implied pair"
    for a, victims in p.suppresses.items():
        assert f"suppresses.{a}" in p.choices, f"{rid}: suppresses.{a} has no reason in choices"


def test_random_hands_score_the_same_as_their_readings():
    """score() picks among readings made by the fast path; each reading's tally is the tally of
    its Arrangement made the plain way (Features.read), on corpus hands under every preset."""
    from mjcam.scoring.engine import _evaluate, _key
    for rid in PRESET_IDS:
        p = load_preset(rid)
        for h, a, ctx in corpus()[::7]:
            try:
                r = score(h, p, **{k: getattr(ctx, k) for k in ("discarder", "seat", "round", "dealer")},
                          **{k: True for k in ("last_tile", "kong_replacement", "double_kong", "robbing_kong",
                                               "heavenly", "earthly", "man", "last_of_kind", "ready")
                             if getattr(ctx, k)}, flowers_in_play=ctx.flowers_in_play)
            except ContextError:
                continue
            if r.arrangement is None:
                continue
            arrs = arrangements(h, ctx.self_drawn, seven_pairs="seven_pairs" in p.active_ids,
                                seven_pairs_allow_four=p.settings["seven_pairs_allow_four"])
            evals = [_evaluate(h, x, ctx, p) for x in arrs]
            best = max(range(len(evals)), key=lambda i: _key(evals[i], i))
            assert arrs[best] == r.arrangement and evals[best].raw_fan == r.raw_fan
            assert [s.id for s in evals[best].patterns] == [s.id for s in r.patterns]
