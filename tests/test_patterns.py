"""For every pattern: a hand that has it and a near miss that does not, checked on the predicate
and under every preset that scores the pattern (with the preset's value)."""

import pytest

from mjcam.scoring import PATTERNS, PRESET_IDS, load_preset, parse_hand, score
from mjcam.scoring.context import WinContext
from mjcam.scoring.decompose import arrangements
from mjcam.scoring.patterns import Features

BASE = "123m 456m 789p 234s 5s +5s"          # all chows, pair of 5s, won on the pair
TWO_SIDED = "123m 456m 789p 23s 55s +4s"     # the same shape won two-sided
D = {"discarder": "W"}                         # won on West's discard, winner East
SELF = {}                                      # self-drawn

# id: ((hand, situation), (near-miss hand, situation))
CASES = {
    "no_flowers": ((BASE, D), (BASE + " F1", D)),
    "seat_flower": ((BASE + " F2", dict(D, seat="S")), (BASE + " F3", dict(D, seat="S"))),
    "seat_season": ((BASE + " S2", dict(D, seat="S")), (BASE + " S3", dict(D, seat="S"))),
    "all_flowers": ((BASE + " F1 F2 F3 F4", D), (BASE + " F1 F2 F3 S4", D)),
    "all_seasons": ((BASE + " S1 S2 S3 S4", D), (BASE + " S1 S2 S3 F4", D)),
    "all_bonus": ((BASE + " F1 F2 F3 F4 S1 S2 S3 S4", D), (BASE + " F1 F2 F3 F4 S1 S2 S3", D)),
    "seven_bonus": (("123m 456m 789p 234s 5s F1 F2 F3 F4 S1 S2 S3", SELF),
                    (BASE + " F1 F2 F3 F4 S1 S2 S3", SELF)),
    "self_drawn": ((BASE, SELF), (BASE, D)),
    "concealed_hand": ((BASE, D), ("[123m] 456m 789p 234s 5s +5s", D)),
    "fully_concealed": ((BASE, SELF), (BASE, D)),
    "melded_hand": (("[123m] [456m] [789p] [234s] 5s +5s", D), ("[123m] [456m] [789p] [234s] 5s +5s", SELF)),
    "semi_self_sufficient": (("[123m] [456m] [789p] [234s] 5s +5s", SELF), ("[123m] [456m] [789p] [234s] 5s +5s", D)),
    "last_tile": ((BASE, dict(D, last_tile=True)), (BASE, D)),
    "last_tile_draw": ((BASE, dict(last_tile=True)), (BASE, dict(D, last_tile=True))),
    "last_tile_discard": ((BASE, dict(D, last_tile=True)), (BASE, dict(last_tile=True))),
    "robbing_kong": ((BASE, dict(D, robbing_kong=True)), (BASE, D)),
    "kong_replacement": (("{1111m} 456m 789p 234s 5s +5s", dict(kong_replacement=True)),
                         ("{1111m} 456m 789p 234s 5s +5s", SELF)),
    "double_kong": (("{1111m} [4444m] 789p 234s 5s +5s", dict(double_kong=True)),
                    ("{1111m} [4444m] 789p 234s 5s +5s", dict(kong_replacement=True))),
    "heavenly": ((BASE, dict(heavenly=True)), (BASE, SELF)),
    "earthly": ((BASE, dict(earthly=True, seat="S", discarder="E")), (BASE, dict(seat="S", discarder="E"))),
    "man": ((BASE, dict(D, man=True, seat="S")), (BASE, dict(D, seat="S"))),
    "wait": ((BASE, D), (TWO_SIDED, D)),
    "bridge_tile": (("123m 456m 789p 46s 55s +5s", D), ("123m 456m 789p 35s 77s +4s", D)),
    "one_chance_chow": (("123m 456m 789p 12s 55s +3s", D), (TWO_SIDED, D)),
    "out_on_pair": ((BASE, D), (TWO_SIDED, D)),
    "last_of_kind": ((BASE, dict(D, last_of_kind=True)), (BASE, D)),
    "double_jeopardy": ((TWO_SIDED, dict(D, last_of_kind=True)), (BASE, dict(D, last_of_kind=True))),
    "ready_hand": ((BASE, dict(D, ready=True)), (BASE, D)),
    "all_chows": ((BASE, D), ("123m 456m 789p 555s 2s +2s", D)),
    "all_pungs": (("[111m] [444m] 777p 222s 5s +5s", D), ("[111m] [444m] 777p 234s 5s +5s", D)),
    "half_flush": (("[RdRdRd] 123s 456s 999s N +N", D), ("[RdRdRd] 123s 456s 999m N +N", D)),
    "full_flush": (("123s 456s 789s 234s 5s +5s", D), ("[RdRdRd] 123s 456s 999s N +N", D)),
    "seven_pairs": (("1122m 3344p 5566s E +E", D), ("1122m 3344p 55s 678s +8s", D)),
    "mixed_terminals": (("[111m] [999p] [EEE] 111s N +N", D), ("[111m] [999p] [EEE] 111s 5s +5s", D)),
    "all_terminals": (("[111m] [999p] [111s] 999m 1p +1p", D), ("[111m] [999p] [111s] 999m 5p +5p", D)),
    "all_honours": (("[EEE] [SSS] [RdRdRd] GdGdGd N +N", D), ("[EEE] [SSS] [RdRdRd] GdGdGd 5p +5p", D)),
    "four_concealed_pungs": (("111m 444m 777p 222s 5s +5s", SELF), ("[111m] 444m 777p 222s 5s +5s", SELF)),
    "three_concealed_pungs": (("[111m] 444m 777p 222s 5s +5s", SELF), ("[111m] [444m] 777p 222s 5s +5s", SELF)),
    "four_kongs": (("[1111m] [4444m] {7777p} {2222s} 5s +5s", D), ("[1111m] [4444m] {7777p} 222s 5s +5s", D)),
    "three_kongs": (("[1111m] [4444m] {7777p} 222s 5s +5s", D), ("[1111m] [4444m] 777p 222s 5s +5s", D)),
    "two_kongs": (("[1111m] [4444m] 777p 222s 5s +5s", D), ("[1111m] [444m] 777p 222s 5s +5s", D)),
    "nine_gates": (("1112345678999m +5m", SELF), ("[111m] 2345678999m +5m", SELF)),
    "thirteen_orphans": (("19m 19p 19s ESWN RdGdWd +Rd", SELF), ("19m 19p 19s ESWN RdGdWd +5p", SELF)),
    # the seed: "pung (or kong) of bamboo tiles and a pung of green dragons": a chow is a near miss
    "jade_dragon": (("[GdGdGd] 111s 444s 999s 2s +2s", D), ("[GdGdGd] 123s 456s 999s 2s +2s", D)),
    "ruby_dragon": (("[RdRdRd] 111m 444m 999m 2m +2m", D), ("[GdGdGd] 111m 444m 999m 2m +2m", D)),
    "pearl_dragon": (("[WdWdWd] 111p 444p 999p 2p +2p", D), ("[WdWdWd] 111p 444p 999s 2p +2p", D)),
    "pure_straight": (("123s 456s 789s 234m 5m +5m", D), ("123s 456s 678s 234m 5m +5m", D)),
    "mixed_triple_chow": (("123m 123p 123s 456s 5m +5m", D), ("123m 123p 234s 456s 5m +5m", D)),
    "pure_double_chow": (("123m 123m 456p 789s 5s +5s", D), ("123m 234m 456p 789s 5s +5s", D)),
    "two_pure_double_chows": (("123m 123m 456p 456p 5s +5s", D), ("123m 123m 456p 567p 5s +5s", D)),
    "pure_triple_chow": (("123m 123m 123m 456p 5s +5s", D), ("123m 123m 234m 456p 5s +5s", D)),
    "four_identical_chows": (("123m 123m 123m 123m 5s +5s", D), ("123m 123m 123m 234m 5s +5s", D)),
    "two_dragon_suits": (("123s 456s 456s 789s 5m +5m", D), ("123s 456s 567s 789s 5m +5m", D)),
    "all_simples": (("234m 456m 678p 234s 5s +5s", D), (BASE, D)),
    "no_honours": ((BASE, D), ("[RdRdRd] 123s 456s 999s N +N", D)),
    "five_doors": (("123m 456p 789s [EEE] Rd +Rd", D), ("123m 456p 789s [EEE] 5s +5s", D)),
    "two_suits": (("123m 456m 789p 234p 5p +5p", D), (BASE, D)),
    "outside_hand": (("123m 789m [EEE] 999p 1s +1s", D), ("123m 789m [EEE] 999p 5s +5s", D)),
    "pure_outside": (("123m 789m 111p 999p 1s +1s", D), ("123m 789m [EEE] 999p 1s +1s", D)),
    "terminal_chows": (("123m 789m 456p 234s 5s +5s", D), ("123m 678m 456p 234s 5s +5s", D)),
    "double_lao_shao": (("123m 789m 123p 789p 5s +5s", D), ("123m 789m 123p 678p 5s +5s", D)),
    "terminal_pungs": (("[111m] [999m] 456p 234s 5s +5s", D), ("[111m] [888m] 456p 234s 5s +5s", D)),
    "four_in_two": (("[111m] 123m 456p 789s 5s +5s", D), ("[111m] 234m 456p 789s 5s +5s", D)),
    "four_in_three": (("123m 123m 456p 789s 1m +1m", D), ("123m 123m 456p 789s 5s +5s", D)),
    "four_in_four": (("123m 234m 234m 345m 5s +5s", D), ("123m 234m 234m 456m 5s +5s", D)),
    "special_eyes": ((BASE, D), ("123m 456m 789p 234s 9s +9s", D)),
    "four_revealed_pungs": (("[111m] [444m] [777p] [222s] 5s +5s", D), ("[111m] [444m] [777p] 222s 5s +5s", D)),
    "a_tail": (("[111s] [222s] 456m 789p 3s +3s", D), ("[111s] [222s] 456m 789p 5s +5s", D)),
    "pure_shifted_pungs": (("[111s] [222s] [333s] 456m 5p +5p", D), ("[111s] [222s] [444s] 456m 5p +5p", D)),
    "three_winds": (("[EEE] [SSS] [WWW] 456m 5p +5p", D), ("[EEE] [SSS] [RdRdRd] 456m 5p +5p", D)),
    "three_numbers": (("[123m] 123p 123s 111m 2p +2p", D), ("[123m] 123p 123s 111m 5p +5p", D)),
    "two_numbers": (("[111m] [222p] [111s] 222s 1p +1p", D), ("[111m] [222p] [111s] 333s 1p +1p", D)),
    "all_linked": (("234m 456p 345p 444s 4p +4p", D), ("234m 567p 345p 444s 4p +4p", D)),
    "all_linked_three_numbers": (("567s 567m 567p 567p 5s +5s", D), ("567s 567m 567p 567p 9s +9s", D)),
    "all_contain_one": (("123s 123s 123m 123p 1p +1p", D), ("123s 123s 123m 123p 2p +2p", D)),
    "all_contain_nine": (("789s 789s 789m 789p 9p +9p", D), ("789s 789s 789m 789p 8p +8p", D)),
    "special_eye_pungs": (("[222s] [555m] [888m] 222p 5p +5p", D), ("[222s] [555m] [888m] 222p 7p +7p", D)),
    "dragon_pung": (("[RdRdRd] 123m 456p 789s 5s +5s", D), ("123m 456p 789s 234s Rd +Rd", D)),
    "seat_wind": (("[SSS] 123m 456p 789s 5s +5s", dict(D, seat="S")), ("[SSS] 123m 456p 789s 5s +5s", dict(D, seat="N"))),
    "round_wind": (("[SSS] 123m 456p 789s 5s +5s", dict(D, round="S")), ("[SSS] 123m 456p 789s 5s +5s", D)),
    "honour_pung": (("[RdRdRd] 123m 456p 789s 5s +5s", D), ("[SSS] 123m 456p 789s 5s +5s", D)),
    "little_three_dragons": (("[RdRdRd] [GdGdGd] 123m 456p Wd +Wd", D), ("[RdRdRd] [GdGdGd] 123m 456p 5s +5s", D)),
    "big_three_dragons": (("[RdRdRd] [GdGdGd] [WdWdWd] 123m 5p +5p", D), ("[RdRdRd] [GdGdGd] 123m 456p Wd +Wd", D)),
    "little_four_winds": (("[EEE] [SSS] [WWW] 123m N +N", D), ("[EEE] [SSS] [WWW] 123m 5p +5p", D)),
    "big_four_winds": (("[EEE] [SSS] [WWW] [NNN] 5p +5p", D), ("[EEE] [SSS] [WWW] 123m N +N", D)),
}


def test_every_pattern_has_a_case():
    assert set(CASES) == set(PATTERNS)


def _predicate(pid, hand, sit, settings=None):
    h = parse_hand(hand)
    ctx = WinContext(**sit)
    arrs = arrangements(h, ctx.self_drawn, seven_pairs=True)
    return max((PATTERNS[pid](Features(h, a, ctx, settings or {})) for a in arrs), default=0)


@pytest.mark.parametrize("pid", sorted(CASES))
def test_predicate_hit_and_near_miss(pid):
    (hand, sit), (miss, miss_sit) = CASES[pid]
    assert _predicate(pid, hand, sit) >= 1
    assert _predicate(pid, miss, miss_sit) == 0


PRESET_PATTERNS = [(rid, pid) for rid in PRESET_IDS for pid in load_preset(rid).patterns]


@pytest.mark.parametrize("rid, pid", PRESET_PATTERNS)
def test_preset_scores_pattern_at_its_value(rid, pid):
    """The hit scores the pattern at the preset's value (or it was replaced, as the preset says);
    the near miss does not score it."""
    preset = load_preset(rid, {"min_fan": 0})
    (hand, sit), (miss, miss_sit) = CASES[pid]
    r = score(hand, preset, **sit)
    got = {p.id: p for p in r.patterns}
    value = preset.patterns[pid]
    if pid in got:
        p = got[pid]
        assert p.fan == (preset.limit if value == "limit" else value * p.count)
    else:
        by = dict(r.suppressed).get(pid)
        assert by is not None, f"{pid} neither scored nor suppressed under {rid}"
        assert pid in dict(preset.replaces.get(by, ())) or preset.patterns[by] == "limit"
    m = score(miss, preset, **miss_sit)
    assert pid not in {p.id for p in m.patterns}


def test_optional_guide_patterns_can_be_switched_off():
    hand = "123s 456s 789s 234m 5m +5m"
    on = score(hand, "hk-guide", discarder="W")
    off = score(hand, "hk-guide", discarder="W", config={"settings": {"include_optional": False}})
    assert "pure_straight" in {p.id for p in on.patterns}
    assert "pure_straight" not in {p.id for p in off.patterns}


def test_settings_shape_predicates():
    hand = "123m 456m 789p 234s E +E"
    assert _predicate("all_chows", hand, D, {"all_chows_pair": "any"})
    assert not _predicate("all_chows", hand, D, {"all_chows_pair": "suited"})
    assert not _predicate("all_chows", hand, D, {"all_chows_pair": "no_value_wind"})
    assert _predicate("all_chows", hand, dict(D, seat="S", round="S"), {"all_chows_pair": "no_value_wind"})
    assert not _predicate("all_chows", "123m 456m 789p 234s Rd +Rd", D, {"all_chows_pair": "no_value"})
    assert not _predicate("all_chows", "123s 456s 789s 234s 5s +5s", D, {"all_chows_min_suits": 2})
    kong = "{1111m} 456m 789p 234s 5s +5s"
    assert _predicate("fully_concealed", kong, SELF, {"fully_concealed_allows_kongs": True})
    assert not _predicate("fully_concealed", kong, SELF, {"fully_concealed_allows_kongs": False})
    melded_kong = "[1111m] 456m 789p 234s 5s +5s"
    assert not _predicate("concealed_hand", melded_kong, D)
    assert _predicate("concealed_hand", melded_kong, D, {"melded_kong_counts_concealed": True})
    winds = "[EEE] [SSS] [WWW] 123m N +N"
    assert _predicate("little_four_winds", winds, dict(D, seat="N"))
    assert not _predicate("little_four_winds", winds, dict(D, seat="N"), {"little_four_winds_pair_rule": "no_value_wind"})
    assert _predicate("little_four_winds", winds, D, {"little_four_winds_pair_rule": "no_value_wind"})


def test_four_concealed_pungs_won_on_the_pair_or_a_pung():
    pair = "111m 444m 777p 222s 5s +5s"
    pung = "111m 444m 777p 22s 55s +2s"
    assert _predicate("four_concealed_pungs", pair, D)
    assert not _predicate("four_concealed_pungs", pair, D, {"four_concealed_pungs_self_drawn_only": True})
    assert not _predicate("four_concealed_pungs", pung, D)  # the discard makes the 2s pung exposed
    assert _predicate("four_concealed_pungs", pung, SELF)


def test_cns_fully_concealed_with_a_kong_is_concealed_plus_self_drawn():
    r = score("{1111m} 456m 789p 234s 5s +5s", "chinese-new-style")
    ids = {p.id for p in r.patterns}
    assert {"concealed_hand", "self_drawn"} <= ids and "fully_concealed" not in ids
    r = score("123m 456m 789p 234s 5s +5s", "chinese-new-style")
    ids = {p.id for p in r.patterns}
    assert "fully_concealed" in ids and not ids & {"concealed_hand", "self_drawn"}


def test_seven_pairs_with_four_alike_is_a_setting():
    hand = "1111m 3344p 5566s E +E"
    assert score(hand, "hk-old-style", discarder="W").arrangement is None
    r = score(hand, "hk-old-style", discarder="W", config={"settings": {"seven_pairs_allow_four": True}})
    assert r.arrangement.shape == "seven_pairs"


def test_limit_hand_replaces_everything_else():
    r = score("[EEE] [SSS] [WWW] [NNN] 5p +5p", "hk-old-style", discarder="W")
    assert r.limit and r.fan == 10 and r.points == 64
    assert [p.id for p in r.patterns] == ["big_four_winds"]
    r = score("[EEE] [SSS] [WWW] [NNN] 5p +5p", "chinese-new-style", discarder="W")
    assert r.limit and r.points == 1024  # 1600% of the 64-point limit
