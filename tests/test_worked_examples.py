"""Every worked example marked consistent in shared/rules/WORKED_EXAMPLES.md, by its id."""

import pytest

from mjcam.scoring import score
from mjcam.scoring.payments import settle
from mjcam.scoring.tables import points


def ids(result):
    return [p.id for p in result.patterns]


def pays(e, s, w, n):
    return {"E": e, "S": s, "W": w, "N": n}


# ---- A. hands with a faan breakdown

def test_g1_hkos_example_1_discard_five_fan():
    r = score("[RdRdRd] [123s] [999s] 45s NN +6s", "hk-old-style", discarder="W", seat="S", round="E")
    assert sorted(ids(r)) == ["dragon_pung", "half_flush", "no_flowers"]
    assert (r.fan, r.points) == (5, 16)
    assert r.payments == pays(-16, 64, -32, -16)


def test_g2_hkos_example_2_double_wind_self_drawn():
    r = score("[EEE] 345p [678m] [222s] 8p +8p", "hk-old-style", self_drawn=True, seat="E", round="E")
    assert sorted(ids(r)) == ["no_flowers", "round_wind", "seat_wind", "self_drawn"]
    assert (r.fan, r.points) == (4, 16)
    assert r.payments == pays(96, -32, -32, -32)


def test_g2_under_wikipedia_rules_the_dealer_doubles():
    r = score("[EEE] 345p [678m] [222s] 8p +8p", "hk-common", seat="E", round="E", dealer="E")
    assert (r.fan, r.points) == (4, 16)
    assert r.payments == pays(192, -64, -64, -64)  # self-draw x2, East wins x2: "64 each, 192 in total"


def test_g3_hkns_17_fan():
    r = score("[GdGdGd] [SSS] 444p 33m 22s +3m", "hk-new-style", discarder="W", seat="E", round="E")
    got = {p.id: p.fan for p in r.patterns}
    assert got == {"special_eyes": 1, "honour_pung": 2, "five_doors": 7, "all_pungs": 7}
    assert r.fan == 17 and r.legal


def test_g4_chinese_new_style_84_points():
    r = score("[555m] [RdRdRdRd] 222s 111p E +E", "chinese-new-style", discarder="E", seat="N",
              round="S", flowers_in_play=False)
    got = {p.id: p.fan for p in r.patterns}
    assert got == {"dragon_pung": 1, "all_pungs": 3, "five_doors": 3, "out_on_pair": 1}
    assert (r.fan, r.points) == (8, 84)


def test_g4_with_flowers_in_play_adds_no_flowers():
    r = score("[555m] [RdRdRdRd] 222s 111p E +E", "chinese-new-style", discarder="E", seat="N", round="S")
    assert (r.fan, r.points) == (9, 128)


# ---- B. payment-only examples of seed 000 (dealer East)

@pytest.mark.parametrize("base, winner, discarder, expected", [
    (1, "W", None, pays(-4, -2, 8, -2)),          # G5
    (2, "N", "S", pays(-4, -4, -2, 10)),          # G6
    (8, "E", "W", pays(64, -16, -32, -16)),       # G7
    (16, "W", None, pays(-64, -32, 128, -32)),    # G8
    (32, "N", "S", pays(-64, -64, -32, 160)),     # G9
    (64, "E", "W", pays(512, -128, -256, -128)),  # G10
    (16, "W", None, pays(-64, -32, 128, -32)),    # G11
    (48, "W", None, pays(-192, -96, 384, -96)),   # G12
    (256, "E", "W", pays(2048, -512, -1024, -512)),  # G13
])
def test_seed_000_payment_examples(base, winner, discarder, expected):
    got = settle(base, winner, discarder=discarder, dealer="E", scheme="discarder-double", dealer_doubling=True)
    assert got == expected


def test_g5_through_the_engine_with_the_simplified_table():
    # a 3-fan hand, West self-draws: East -4, South -2, North -2, West +8
    r = score("[RdRdRd] 123m 456m 78p 99p +9p", "hk-common", table="simplified", seat="W")
    assert r.fan == 3 and r.points == 1
    assert r.payments == pays(-4, -2, 8, -2)


def test_g13_through_the_engine_with_the_canton_table():
    # 12 fan: half flush 3 + all pungs 3 + small dragons 5 + seat wind 1; East wins on West's discard
    r = score("[EEE] [RdRdRd] [GdGdGd] 222m Wd +Wd", "hk-common", table="canton", discarder="W", seat="E",
              round="S", flowers_in_play=False)
    assert r.fan == 12 and r.points == 256
    assert r.payments == pays(2048, -512, -1024, -512)


# ---- C. scoring guide (seed 001)

def test_g14_guide_self_drawn_4_fan():
    r = score("[RdRdRd] [123m] 456p 789s 5s +5s", "hk-guide", seat="S", round="E")
    assert r.fan == 3  # dragon 1, self-draw 1, no flowers 1
    assert settle(16, "S", discarder=None, dealer="E", scheme="discarder-pays-all") == pays(-16, 48, -16, -16)


def test_g15_guide_discard_7_fan_discarder_pays_all():
    r = score("[111s] [345s] 789s 234s 5s +5s", "hk-guide", discarder="N", seat="S", flowers_in_play=False)
    assert [p.id for p in r.patterns] == ["full_flush"]
    assert (r.fan, r.points) == (7, 48)
    assert r.payments == pays(0, 96, 0, -96)


def test_guide_cap_ten_or_thirteen():
    hand = "123s 456s 789s 234s 5s +5s"  # full flush 7, concealed 1, all chows 1, pure straight 3
    r10 = score(hand, "hk-guide", discarder="N", seat="S", flowers_in_play=False)
    r13 = score(hand, "hk-guide", discarder="N", seat="S", flowers_in_play=False, cap=13)
    assert (r10.raw_fan, r10.fan, r10.points) == (12, 10, 128)
    assert (r13.raw_fan, r13.fan, r13.points) == (12, 12, 256)


def test_guide_alternative_payment():
    assert settle(16, "S", discarder=None, dealer="E", scheme="discarder-double") == pays(-32, 96, -32, -32)
    assert settle(48, "S", discarder="N", dealer="E", scheme="discarder-double") == pays(-48, 192, -48, -96)


# ---- E. yawnoc/mahjong-scorer sheet: half responsibility, half-spicy, 包

def test_g17_half_responsibility_sheet():
    base = 2
    c = settle(base * points("canton", 1), "E", discarder=None, dealer="E", scheme="half-responsibility")
    d = settle(base * points("canton", 2), "S", discarder="W", dealer="E", scheme="half-responsibility")
    e = settle(base * points("canton", 6), "W", discarder="N", dealer="E", scheme="half-responsibility",
               responsible="N")
    f = settle(base * points("canton", 6), "W", discarder=None, dealer="E", scheme="half-responsibility",
               responsible="N")
    assert c == pays(12, -4, -4, -4)
    assert d == pays(-4, 16, -8, -4)
    assert e == pays(0, 0, 128, -128)
    assert f == pays(0, 0, 192, -192)


# ---- F. table lookups

@pytest.mark.parametrize("table, fan, pts", [
    ("traditional", 0, 1), ("traditional", 1, 2), ("traditional", 2, 4), ("traditional", 3, 8),
    ("traditional", 4, 16), ("traditional", 5, 16), ("traditional", 6, 16), ("traditional", 7, 32),
    ("traditional", 9, 32), ("traditional", 10, 64), ("traditional", 11, 64), ("traditional", 13, 64),
    ("simplified", 3, 1), ("simplified", 4, 2), ("simplified", 6, 2), ("simplified", 7, 4),
    ("simplified", 9, 4), ("simplified", 10, 8), ("simplified", 15, 8),
    ("canton", 4, 16), ("canton", 5, 24), ("canton", 6, 32), ("canton", 7, 48), ("canton", 9, 96),
    ("canton", 10, 128), ("canton", 12, 256), ("canton", 13, 384),
    ("6-9-12", 5, 32), ("6-9-12", 6, 64), ("6-9-12", 7, 74), ("6-9-12", 8, 84), ("6-9-12", 9, 128),
    ("6-9-12", 11, 148), ("6-9-12", 12, 256), ("6-9-12", 14, 276), ("6-9-12", 15, 512),
    ("6-9-12", 19, 552), ("6-9-12", 20, 1024), ("6-9-12", 25, 1024),
])
def test_table_lookups(table, fan, pts):
    assert points(table, fan) == pts


def test_simplified_pays_nothing_below_three():
    assert points("simplified", 2) is None
    r = score("123m 456m 789p 234s 5s +5s", "hk-common", table="simplified", min_fan=0, discarder="S",
              flowers_in_play=False)
    assert r.fan == 2
    assert not r.legal and "pays nothing" in r.reason


@pytest.mark.parametrize("fan, total", [(1, 3), (4, 24), (7, 72), (13, 576)])
def test_canton_self_draw_column_is_half_responsibility(fan, total):
    got = settle(points("canton", fan), "S", discarder=None, dealer="E", scheme="half-responsibility")
    # the column's "3 x half": each loser pays half the discard value
    assert total == 3 * points("canton", fan) // 2
    assert got["S"] == 3 * points("canton", fan)  # our scheme: each pays the full portion (G17c)


# ---- G. secondary fixtures (HKOS values, cap 10, seat S, round W, dealer E)

KW = dict(seat="S", round="W", dealer="E")


def test_g18_seven_pairs_full_flush_beats_standard_readings():
    r = score("11223344556677m +7m".replace("77m +7m", "7m +7m"), "hk-old-style", **KW)
    assert r.arrangement.shape == "seven_pairs"
    assert sorted(ids(r)) == ["full_flush", "no_flowers", "self_drawn", "seven_pairs"]
    assert (r.raw_fan, r.fan, r.points) == (12, 10, 64)
    assert r.payments == pays(-128, 384, -128, -128)


def test_g19_all_kongs_limit():
    r = score("{1111m} [9999m] [1111p] {9999p} 5s +5s", "hk-old-style", discarder="W", **KW)
    assert r.limit and ids(r) == ["four_kongs"]
    assert {s for s, _ in r.suppressed} >= {"all_pungs", "no_flowers"}
    assert r.payments == pays(-64, 256, -128, -64)


def test_g20_four_concealed_pungs_limit():
    r = score("111m 222p 333s NNN 5m +5m", "hk-old-style", **KW)
    assert r.limit and ids(r) == ["four_concealed_pungs"]
    assert r.payments == pays(-128, 384, -128, -128)


def test_g20_needs_self_draw_in_old_style():
    r = score("111m 222p 333s NNN 5m +5m", "hk-old-style", discarder="W", **KW)
    assert not r.limit and "four_concealed_pungs" not in ids(r)


def test_g21_little_three_dragons_suppresses_dragon_pungs():
    r = score("[RdRdRd] [GdGdGd] 123m 456p Wd +Wd F1", "hk-old-style", discarder="W", **KW)
    assert sorted(ids(r)) == ["little_three_dragons"]
    assert ("dragon_pung", "little_three_dragons") in r.suppressed
    assert r.payments == pays(-16, 64, -32, -16)


def test_g22_all_seasons_implies_seat_season():
    r = score("[555s] 123m 456m 123p 9p +9p S1 S2 S3 S4", "hk-old-style", **KW)
    assert sorted(ids(r)) == ["all_seasons", "self_drawn"]
    assert r.fan == 3 and r.legal
    assert r.payments == pays(-16, 48, -16, -16)


# G23-G26: HSKPeter's flat-tile fixtures under seed 000 values (we model melds, so concealed)

def test_g23_chicken_hand():
    r = score("111p 444p 234m 111s 6p +6p", "hk-common", discarder="W", seat="S", flowers_in_play=False)
    pat = {p.id for p in r.patterns}
    assert "all_pungs" not in pat and r.raw_fan == 1  # only the concealed hand (Win from Wall)


def test_g24_small_dragons_mixed_suit_triplets():
    r = score("[GdGdGdGd] [WdWdWd] [333m] [444m] Rd +Rd", "hk-common", discarder="W", seat="S",
              flowers_in_play=False)
    assert {p.id: p.fan for p in r.patterns} == {"little_three_dragons": 5, "half_flush": 3, "all_pungs": 3}


def test_g25_triplets_mixed_orphans():
    r = score("[EEE] [999m] [999s] [111p] N +N", "hk-common", discarder="W", seat="S", round="S",
              flowers_in_play=False)
    assert {p.id: p.fan for p in r.patterns} == {"all_pungs": 3, "mixed_terminals": 1}


def test_g26_concealed_self_pick():
    r = score("111s 555s 789s WWW N +N", "hk-common", seat="S", round="S", flowers_in_play=False)
    assert {p.id: p.fan for p in r.patterns} == {"half_flush": 3, "self_drawn": 1, "concealed_hand": 1}


def test_g27_guide_does_not_double_count_dragon_pungs():
    r = score("123m 444p WdWdWd GdGd RdRd +Gd", "hk-guide", discarder="S", seat="E")
    pat = {p.id: p.fan for p in r.patterns}
    assert pat["little_three_dragons"] == 5 and "dragon_pung" not in pat


def test_g28_little_four_winds_stacking_differs():
    hand = "EEE SSS WW NN 234p +N"
    common = score(hand, "hk-common", discarder="S", seat="W", round="E", man=False)
    guide = score(hand, "hk-guide", discarder="S", seat="W", round="E")
    assert {"little_four_winds", "half_flush"} <= set(ids(common))
    assert "little_four_winds" in ids(guide) and "half_flush" not in ids(guide)
    assert ("half_flush", "little_four_winds") in guide.suppressed
