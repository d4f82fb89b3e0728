"""The second scoring audit's four points, each on hands scored by hand from the seed.

1. hk-common's minimum needs a fan from the contents of the hand (a preset setting).
2. hk-guide adds up every hand of its list that holds, except where it says not to.
3. A win on a supplement tile is self-drawn, and scores Self-drawn, under every preset.
4. One rule decides what an implied pattern does, stated once (hk-new-style's Wait and All Pungs).
"""

import pytest

from mjcam.cli import main
from mjcam.scoring import PRESET_IDS, ConfigError, load_preset, score
from mjcam.scoring.explain import meanings, pages
from mjcam.scoring.patterns import BONUS_TILES, HAND_CONTENTS, PATTERNS, WINNING_CONDITIONS, implied
from mjcam.scoring.rules import PRINCIPLE, SUPPLEMENT_TILE_RULE


def ids(r):
    return {p.id: p.fan for p in r.patterns}


# ---------------------------------------------------------------- 1. hk-common: the hand's contents

FLOWER_ONLY = "[234m] [777p] 567s 123p 8m +8m F3"  # West's own flower, nothing else


def test_a_bonus_tile_alone_is_no_legal_win_even_at_a_minimum_of_one():
    r = score(FLOWER_ONLY, "hk-common", discarder="S", seat="W", min_fan=1)
    assert ids(r) == {"seat_flower": 1} and r.fan == 1
    assert not r.legal and not r.meets_min and r.points == 0 and set(r.payments.values()) == {0}
    assert r.reason.startswith("no fan from the hand's contents") and "\n" not in r.reason


def test_flower_season_and_self_draw_make_three_fan_but_no_legal_win():
    r = score(FLOWER_ONLY + " S3", "hk-common", seat="W")
    assert ids(r) == {"seat_flower": 1, "seat_season": 1, "self_drawn": 1} and r.fan == 3 == r.min_fan
    assert not r.legal and "contents" in r.reason


def test_below_the_minimum_and_without_contents_says_both():
    r = score(FLOWER_ONLY, "hk-common", discarder="S", seat="W")
    assert not r.legal
    assert r.reason == "below the minimum: 3 fan needed, the hand has 1, not one from the hand's contents"


@pytest.mark.parametrize("hand, kw, content", [
    ("[234m] [RdRdRd] 567s 123p 8m +8m F3 S3", dict(seat="W"), "dragon_pung"),         # Red Dragon
    ("[234m] [WWW] 567s 123p 8m +8m F3", dict(seat="W", discarder="S"), "seat_wind"),  # own wind
    ("234m 345m 567s 123p 8m +8m F3", dict(seat="W"), "all_chows"),                    # Common Hand
    ("1m1m 4m4m 7p7p 2s2s 6s6s RdRd E +E", dict(seat="S"), "seven_pairs"),
])
def test_one_fan_from_the_contents_is_enough(hand, kw, content):
    r = score(hand, "hk-common", min_fan=1, **kw)
    assert r.legal and content in ids(r), (ids(r), r.reason)


def test_improbable_high_scoring_hands_are_excepted():
    # 'barring improbable high-scoring hands (such as the Heavenly Hand ..., even if the winning
    # hand is otherwise scoreless)'
    r = score("[234m] 345m 567s 123p 8m +8m".replace("[234m]", "234m"), "hk-common", heavenly=True)
    assert r.legal and "heavenly" in ids(r) and r.fan == 13
    # 'It is possible to obtain the maximum fan (13) only from winning condition criteria':
    # Double-Kong 8 + Self-Pick 1 + Win from Wall 1 + Last Catch 1 + own flower and season 1 + 1
    hand = "{1111m} 456m 789p 234s 5s +5s F1 S1"
    at_limit = score(hand, "hk-common", double_kong=True, last_tile=True)
    assert not set(ids(at_limit)) & HAND_CONTENTS
    assert at_limit.raw_fan == 13 and at_limit.legal
    below = score(hand, "hk-common", double_kong=True)  # 12 fan, none of them the hand's contents
    assert below.raw_fan == 12 and not below.legal and "contents" in below.reason


def test_the_contents_are_the_seeds_two_tables():
    common = load_preset("hk-common")
    contents = {pid for pid in common.active_ids if pid in HAND_CONTENTS}
    assert contents == {"all_chows", "all_pungs", "seven_pairs", "half_flush", "full_flush", "all_honours",
                        "little_three_dragons", "big_three_dragons", "little_four_winds", "big_four_winds",
                        "thirteen_orphans", "four_kongs", "four_concealed_pungs", "all_terminals", "nine_gates",
                        "seat_wind", "round_wind", "dragon_pung", "mixed_terminals"}
    assert HAND_CONTENTS | BONUS_TILES | WINNING_CONDITIONS == set(PATTERNS)
    assert not (BONUS_TILES & WINNING_CONDITIONS)
    assert common.settings["content_minimum"] and "settings.content_minimum" in common.choices
    assert "barring improbable high-scoring hands" in common.choices["settings.content_minimum"]
    assert "from the hand's contents" in pages()["hk-common.md"]


def test_the_content_minimum_is_a_house_rule_both_ways(tmp_path):
    hand = FLOWER_ONLY + " S3"
    assert score(hand, "hk-common", seat="W", config={"settings": {"content_minimum": False}}).legal
    assert score(hand, "hk-old-style", seat="W").legal  # own flower, own season, self-drawn: 3 fan
    cfg = tmp_path / "house.toml"
    cfg.write_text("[settings]\ncontent_minimum = true\n", encoding="utf-8")
    r = score(hand, "hk-old-style", seat="W", config=str(cfg))
    assert not r.legal and r.reason.startswith("no fan from the hand's contents: hk-old-style")
    with pytest.raises(ConfigError, match="content_minimum must be bool"):
        load_preset("hk-old-style", {"settings": {"content_minimum": "yes"}})


def test_the_command_line_says_why(capsys, tmp_path):
    code = main(["score", FLOWER_ONLY + " S3", "--rules", "hk-common", "--seat", "W"])
    out = capsys.readouterr().out
    assert code == 1 and "Not a legal win: no fan from the hand's contents" in out
    cfg = tmp_path / "house.toml"
    cfg.write_text("[settings]\ncontent_minimum = false\n", encoding="utf-8")
    code = main(["score", FLOWER_ONLY + " S3", "--rules", "hk-common", "--seat", "W", "--config", str(cfg)])
    assert code == 0 and "Not a legal win" not in capsys.readouterr().out


# ---------------------------------------------------------------- 2. hk-guide adds up

@pytest.mark.parametrize("hand, kw, want", [
    # the audit's hand: Seven Pairs 3 + Concealed Hand 1 + Self Draw 1 + No Flowers 1
    ("1m1m 4m4m 7p7p 2s2s 6s6s RdRd E +E", dict(seat="S"),
     {"seven_pairs": 3, "concealed_hand": 1, "self_drawn": 1, "no_flowers": 1}),
    # Mixed Terminals 4 + All Triplets 3 + Round Wind 1 (East, the round) + No Flowers 1
    ("[111m] [999p] [EEE] 111s N +N", dict(seat="S", discarder="W"),
     {"mixed_terminals": 4, "all_pungs": 3, "round_wind": 1, "no_flowers": 1}),
    # Set of Flowers 2 + Seat Flower 1 (South: F2) + All Sequences 1 + Concealed Hand 1
    ("123m 456m 789p 234s 5s +5s F1 F2 F3 F4", dict(seat="S", discarder="W"),
     {"all_flowers": 2, "seat_flower": 1, "all_chows": 1, "concealed_hand": 1}),
    # Three Identical Sequences 3 + Two Identical Sequences 1 + All Sequences 1 + No Flowers 1
    ("[123m] 123m 123m 456p 5s +5s", dict(discarder="W"),
     {"pure_triple_chow": 3, "pure_double_chow": 1, "all_chows": 1, "no_flowers": 1}),
    # After Multiple Kongs 8 + After a Kong 1 + Self Draw 1 + No Flowers 1 = 11, paid at 10
    ("{1111m} [4444m] 789p 234s 5s +5s", dict(double_kong=True),
     {"double_kong": 8, "kong_replacement": 1, "self_drawn": 1, "no_flowers": 1}),
])
def test_the_guide_adds_up_where_it_is_silent(hand, kw, want):
    r = score(hand, "hk-guide", **kw)
    assert ids(r) == want and r.raw_fan == sum(want.values()) and r.fan == min(r.raw_fan, 10)


def test_four_concealed_triplets_add_all_triplets_and_the_concealed_hand():
    r = score("111m 444p 777s 999s 5m +5m", "hk-guide", discarder="W", flowers_in_play=False)
    assert ids(r) == {"four_concealed_pungs": 8, "all_pungs": 3, "concealed_hand": 1}
    assert (r.raw_fan, r.fan) == (12, 10)
    assert (score("111m 444p 777s 999s 5m +5m", "hk-guide", discarder="W", flowers_in_play=False,
                  cap=13).fan == 12)


def test_the_guide_drops_only_what_it_says_to_drop():
    # 'do not count points for individual dragon triplets'
    r = score("[RdRdRd] [GdGdGd] 123m 456m Wd +Wd", "hk-guide", discarder="W", flowers_in_play=False)
    assert ids(r) == {"little_three_dragons": 5, "half_flush": 3}
    r = score("[RdRdRd] [GdGdGd] [WdWdWd] 123m 5m +5m", "hk-guide", discarder="W", flowers_in_play=False)
    assert ids(r) == {"big_three_dragons": 8, "half_flush": 3}
    # 'does not stack with half flush, do not count points for individual wind triplets'
    r = score("[EEE] [SSS] [WWW] 123m N +N", "hk-guide", discarder="W", flowers_in_play=False)
    assert ids(r) == {"little_four_winds": 6}


def test_every_pattern_the_guide_drops_is_a_limit_hand_or_its_own_words():
    guide = load_preset("hk-guide")
    assert guide.settings["implied_patterns"] == "added"
    for r in guide.relations:
        if r.replaces:
            quoted = r.why.startswith("the preset: the rule book:") and "do not count" in r.why
            assert guide.patterns[r.a] == "limit" or quoted, r
        elif r.implied:
            assert "add up" in r.why or r.why == SUPPLEMENT_TILE_RULE, r


def test_adding_up_is_a_house_rule_for_any_preset():
    hand = "1m1m 4m4m 7p7p 2s2s 6s6s RdRd E +E"
    old = score(hand, "hk-old-style", seat="S")
    assert "concealed_hand" not in ids(old)  # the old style has no Concealed Hand
    common = score(hand, "hk-common", seat="S")
    assert "concealed_hand" not in ids(common)  # seven pairs: 'Bonus from Wall is not awarded'
    added = score(hand, "hk-common", seat="S", config={"settings": {"implied_patterns": "added"}})
    assert ids(added)["concealed_hand"] == 1 and added.fan == common.fan + 1
    with pytest.raises(ConfigError, match="implied_patterns must be one of included, added"):
        load_preset("hk-guide", {"settings": {"implied_patterns": "some"}})


# ---------------------------------------------------------------- 3. supplement-tile wins

KONG_HAND = "{1111m} [4444m] 789p 234s 5s +5s"
KONG_DRAGON_HAND = "{1111m} [RdRdRdRd] 789p 234s 5s +5s"  # a Red Dragon: a fan of the contents in hk-common


@pytest.mark.parametrize("rid", PRESET_IDS)
@pytest.mark.parametrize("flag", ["kong_replacement", "double_kong"])
def test_a_win_on_a_supplement_tile_is_paid_and_scored_as_self_drawn(rid, flag):
    r = score(KONG_DRAGON_HAND, rid, **{flag: True})
    plain = score(KONG_DRAGON_HAND, rid)  # the same hand self-drawn from the wall
    if "self_drawn" in load_preset(rid).active_ids:
        assert "self_drawn" in ids(r), (rid, flag, ids(r))
    assert {"kong_replacement", "double_kong"} & set(ids(r)), (rid, flag)
    assert r.payment == plain.payment and r.fan > plain.fan
    # paid as a self-drawn win: every loser pays
    assert r.legal and all(v < 0 for s, v in r.payments.items() if s != "E")


def test_chinese_new_style_kong_on_kong_adds_its_self_draw_as_the_supplement_tile_does():
    cns = {"flowers_in_play": False}
    one = score(KONG_HAND, "chinese-new-style", kong_replacement=True, **cns)
    two = score(KONG_HAND, "chinese-new-style", double_kong=True, **cns)
    assert ids(one) == {"self_drawn": 1, "kong_replacement": 1, "out_on_pair": 1}
    assert ids(two) == {"self_drawn": 1, "double_kong": 6, "out_on_pair": 1}  # 'Kong on Kong ... 6 faan'
    assert ("kong_replacement", "double_kong") in two.suppressed
    assert one.payments == {"E": 3 * one.points, "S": -one.points, "W": -one.points, "N": -one.points}
    assert two.payments == {"E": 3 * two.points, "S": -two.points, "W": -two.points, "N": -two.points}


def test_the_supplement_tile_rule_is_one_relation_under_every_preset():
    for rid in PRESET_IDS:
        p = load_preset(rid)
        for r in p.relations:
            if r.b == "self_drawn" and r.a in ("kong_replacement", "double_kong"):
                assert not r.replaces, (rid, r)
    assert "supplement tile is a self-drawn win" in PRINCIPLE


# ---------------------------------------------------------------- 4. one rule, stated once

def test_every_implied_pair_of_the_new_style_follows_the_one_rule():
    p = load_preset("hk-new-style")
    assert not p.stacks and not p.suppresses  # its rule book names no exception
    seen = 0
    for r in p.relations:
        assert r.implied and r.b in implied(p.settings)[r.a]
        if r.a in ("kong_replacement", "double_kong") and r.b == "self_drawn":
            continue
        assert r.replaces == (p.worth(r.a) > p.worth(r.b, r.k or 1)), r
        seen += 1
    assert seen > 50


def test_wait_and_all_pungs_on_an_all_melded_hand():
    hand = "[111m] [999p] [EEE] [222s] N +N"
    for kw, big in ((dict(discarder="W"), "melded_hand"), ({}, "semi_self_sufficient")):
        r = score(hand, "hk-new-style", seat="S", **kw)
        got = ids(r)
        # Melded Hand (10) and Semi-self Sufficient (7) are worth more than the Wait (2) they imply
        assert big in got and "wait" not in got and ("wait", big) in r.suppressed
        # Four Revealed Pungs (2) is worth less than the All Pungs (7) it implies: it adds to it
        assert got["all_pungs"] == 7 and got["four_revealed_pungs"] == 2
    rows = {m.id: m for m in meanings("hk-new-style")}
    assert [how for n, how in rows["four_revealed_pungs"].implies if n == "All Pungs"] == [
        "scored as well, worth no more (2 <= 7), so its value is what it adds"]
    assert [how for n, how in rows["melded_hand"].implies if n.startswith("Single")] == [
        "not scored with it, worth more (10 > 2)"]


def test_the_rule_is_stated_once_and_the_pages_print_it():
    for rid in PRESET_IDS:
        assert PRINCIPLE in pages()[f"{rid}.md"]
    choice = load_preset("hk-new-style").choices["implied"]
    assert "Four Revealed Pungs" in choice and "Melded Hand" in choice and "How patterns combine" in choice


def test_every_setting_is_described_on_the_index_page():
    from mjcam.scoring.presets import DEFAULT_SETTINGS, SETTING_HELP
    assert set(SETTING_HELP) == set(DEFAULT_SETTINGS)
    index = pages()["README.md"]
    assert "| `content_minimum` |" in index and "`hk-common`: true" in index
    assert "| `implied_patterns` |" in index and "`hk-guide`: added" in index
