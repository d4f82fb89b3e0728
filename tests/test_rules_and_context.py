"""House-rule overrides, winning situations that cannot happen, and smaller engine paths."""

import pytest

from mjcam.scoring import ConfigError, ContextError, NotationError, load_preset, parse_hand, score, waits
from mjcam.scoring.decompose import Group
from mjcam.scoring.tables import points

BASE = "123m 456m 789p 234s 5s +5s"


@pytest.mark.parametrize("overrides, words", [
    ({"min_fan": -1}, "min_fan must be a whole number"),
    ({"min_fan": True}, "min_fan must be a whole number"),
    ({"cap": "ten"}, "cap must be"),
    ({"limit_fan": "x"}, "limit_fan must be"),
    ({"table": "fancy"}, "unknown table 'fancy'"),
    ({"payment": "ious"}, "unknown payment 'ious'"),
    ({"dealer_doubling": "yes"}, "dealer_doubling must be true or false"),
    ({"settings": "x"}, "[settings] must be a table"),
    ({"settings": {"loud": True}}, "unknown setting 'loud'"),
    ({"settings": {"all_chows_min_suits": "2"}}, "must be int"),
    ({"settings": {"all_chows_pair": "purple"}}, "must be one of"),
    ({"patterns": {"all_chowz": 1}}, "unknown pattern 'all_chowz'"),
    ({"patterns": {"all_chows": -2}}, "patterns.all_chows must be"),
    ({"suppresses": {"all_chows": "half_flush"}}, "must be a list"),
    ({"cap": None}, "a limit hand needs a value"),
])
def test_bad_overrides_are_named(overrides, words):
    with pytest.raises(ConfigError) as e:
        load_preset("hk-old-style", overrides)
    assert words in str(e.value)


def test_config_path_that_is_a_folder(tmp_path):
    from mjcam.scoring.rules import read_config
    with pytest.raises(ConfigError, match="cannot read config file"):
        read_config(str(tmp_path))


def test_limit_patterns_need_a_limit_value():
    with pytest.raises(ConfigError, match="limit hand needs a value"):
        load_preset("hk-new-style", {"limit_fan": None})
    p = load_preset("hk-new-style", {"patterns": {"all_honours": "limit"}, "limit_fan": 150})
    assert score("[EEE] [SSS] [RdRdRd] GdGdGd N +N", p, discarder="W").fan == 150


def test_unknown_preset():
    with pytest.raises(ConfigError, match="unknown rules 'hk-nope'"):
        load_preset("hk-nope")


def test_overrides_apply():
    p = load_preset("hk-old-style", {"patterns": {"seven_pairs": False, "all_chows": "limit"},
                                     "suppresses": {"half_flush": ["dragon_pung"]},
                                     "choices": {"cap": "our table"}, "limit_fan": 12, "cap": 12,
                                     "settings": {"include_optional": False}})
    assert "seven_pairs" not in p.patterns and p.patterns["all_chows"] == "limit" and p.limit == 12
    assert p.choices["cap"] == "our table"
    again = load_preset(p, {"min_fan": 1})
    assert again.min_fan == 1 and again.limit == 12 and load_preset(p) is p
    r = score(BASE, p, discarder="W")
    assert r.limit and r.fan == 12


def test_config_can_remove_seven_pairs():
    r = score("1122m 3344p 5566s E +E", "hk-old-style", discarder="W", config={"patterns": {"seven_pairs": False}})
    assert not r.legal and "seven pairs is not a winning hand under hk-old-style" in r.reason


def test_tables_fan_and_doubling():
    assert points("fan", 17) == 17 and points("doubling", 5) == 32
    with pytest.raises(KeyError):
        points("nope", 1)


@pytest.mark.parametrize("kw, words", [
    (dict(seat="X"), "seat must be one of"),
    (dict(discarder="Q"), "discarder must be one of"),
    (dict(responsible="E"), "cannot be the responsible"),
    (dict(discarder="S", kong_replacement=True), "self-drawn"),
    (dict(heavenly=True, seat="S"), "heavenly"),
    (dict(heavenly=True, discarder="S"), "heavenly"),
    (dict(earthly=True), "earthly"),
    (dict(earthly=True, seat="S", discarder="W"), "earthly"),
    (dict(man=True), "man"),
    (dict(self_drawn=True, discarder="S"), "not both"),
    (dict(self_drawn=False), "needs the discarder"),
])
def test_impossible_situations(kw, words):
    with pytest.raises(ContextError, match=words):
        score(BASE, **kw)


def test_blessings_cannot_have_melds():
    r = score("[123m] 456m 789p 234s 5s +5s", heavenly=True)
    assert not r.legal and "melded" in r.reason


def test_instant_bonus_win_only_in_the_guide():
    hand = "123m 456m 789p 234s 5s F1 F2 F3 F4 S1 S2 S3 S4"
    g = score(hand, "hk-guide", seat="S")
    # the guide adds up every hand of its list that holds: 8 Flowers 8, two Sets of Flowers 2 + 2,
    # the Seat Flower of South (F2 and S2) 1 + 1 = 14, paid at the cap of 10
    assert g.legal and sorted(p.id for p in g.patterns) == ["all_bonus", "all_flowers", "all_seasons",
                                                             "seat_flower", "seat_season"]
    assert (g.raw_fan, g.fan) == (14, 10)
    o = score(hand, "hk-old-style")
    assert not o.legal and "no instant win" in o.reason


def test_flags_a_preset_does_not_know_are_noted():
    r = score(BASE, "hk-old-style", discarder="W", last_of_kind=True, ready=True)
    assert len(r.notes) == 2 and "Last of Its Kind" in r.notes[0]


def test_winning_group_and_orphans_group():
    r = score("19m 19p 19s ESWN RdGdWd +Rd", "hk-common")
    assert r.arrangement.winning_group.kind == "orphans"
    assert r.arrangement.wait == "thirteen-sided"
    assert len(r.to_json()["arrangement"][0]["tiles"]) == 14
    with pytest.raises(ValueError):
        Group("orphans", 0).tiles
    bonus = score("123m 456m 789p 234s 5s F1 F2 F3 F4 S1 S2 S3", "hk-guide")
    assert bonus.arrangement.winning_group is None


def test_waits_agree_with_score_when_optional_patterns_are_off():
    hand = "1122m 3344p 5566s E"  # waits on E only as seven pairs, an optional hand in hk-guide
    assert [w.tile for w in waits(hand, "hk-guide")] == ["E"]
    assert waits(hand, "hk-guide", config={"settings": {"include_optional": False}}) == []


def test_waits_skip_a_tile_held_four_times():
    found = waits("1111m 23m 567p 789s 5s")
    assert [w.tile for w in found] == ["5s"]  # 1m would be a fifth copy


@pytest.mark.parametrize("text, words", [
    ("+[123m] 456m 789m EEE 5p 5p", "must be followed by a tile"),
    ("[F1 123m] 456m 789m EEE 5p +5p", "bonus tiles cannot be part of a set"),
    ("[123m [456m]] 789m EEE 5p +5p", "cannot open inside another set"),
    ("[123m} 456m 789m EEE 5p +5p", "mismatched"),
    ("123m 456m 789m EEE 5p ++5p", "must be followed by a tile"),
])
def test_more_bracket_errors(text, words):
    with pytest.raises(NotationError, match=words):
        parse_hand(text)


def test_robbed_kong_pays_for_everyone_under_hk_common():
    r = score(BASE, "hk-common", discarder="W", robbing_kong=True, seat="S")
    assert r.payments["W"] == -r.payments["S"] and r.payments["E"] == r.payments["N"] == 0
    assert any("robbed" in n for n in r.notes)
    off = score(BASE, "hk-common", discarder="W", robbing_kong=True, seat="S",
                config={"settings": {"robbed_kong_pays_all": False}})
    assert off.payments["E"] < 0 and off.payments["S"] == r.payments["S"]
