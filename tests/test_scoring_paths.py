"""The engine's fast paths and its bounded memos: each gives what the plain path gives, and a
memo that fills up starts again rather than grow."""

import pytest

from mjcam.scoring import ContextError, load_preset, parse_hand, score
from mjcam.scoring import decompose, engine, rules
from mjcam.scoring.notation import Hand, NotationError, _PLAIN

HAND = "123m 456m 789p 234s 5s +5s"


def test_memos_start_again_when_full(monkeypatch):
    before = score(HAND, "hk-old-style", discarder="W").to_json()
    monkeypatch.setattr(decompose, "_SUITS", ({}, {}, {}))
    monkeypatch.setattr(decompose, "_HONOURS", {})
    monkeypatch.setattr(engine, "_CONTEXTS", {})
    monkeypatch.setattr("mjcam.scoring.notation._PLAIN", {})
    monkeypatch.setattr("mjcam.scoring.notation.PLAIN_BOUND", 0)
    monkeypatch.setattr(decompose, "TABLE_BOUND", 0)
    monkeypatch.setattr(engine, "MEMO_BOUND", 0)
    hands = (HAND, "[EEE] 345p [678m] [222s] 8p +8p", "111m 444m 777p 222s 5s +5s", "111m 444m 777p EEE 5s +5s",
             "123m 456m 789p 234s 8s +8s", "123m 456m 789p 234s 1s +1s")
    p = load_preset("hk-old-style", {"min_fan": 0})  # a fresh preset, its own memos
    for hand in hands:  # tallies under one candidate set start again
        score(hand, p)
    assert len(p._tallies) <= 1
    monkeypatch.setattr(rules, "CANDIDATES_BOUND", 0)
    for hand in hands:
        for seat in "ESWN":
            score(hand, p, seat=seat)
    from mjcam.scoring import notation
    assert len(decompose._SUITS[0]) <= 1 and len(decompose._HONOURS) <= 1 and len(notation._PLAIN) <= 1
    assert len(p._candidates) <= 1 and len(p._tallies) <= 1 and len(engine._CONTEXTS) <= 1
    assert score(HAND, "hk-old-style", discarder="W").to_json() == before


def test_a_set_left_open_before_another_opens_is_named():
    with pytest.raises(NotationError, match="set is not closed") as e:
        parse_hand("[123m +5p [456m] 789m EEE 5p")
    assert (e.value.token, e.value.position) == ("[", 1)


def test_preset_version_follows_what_decides_a_score():
    v = load_preset("hk-new-style").version
    assert len(v) == 12 and v == load_preset("hk-new-style").version
    assert load_preset("hk-new-style", {"stacks": {"semi_self_sufficient": ["wait"]}}).version != v


def test_a_token_the_fast_path_cannot_read_is_remembered_as_such():
    text = "[1m 2m 3m] 456m 789p 234s 5s +5s"
    assert parse_hand(text) == parse_hand(text)  # the second time, '[1m' is known to need the full parser
    assert _PLAIN["[1m"] is None


def test_a_second_bonus_tile_is_reported_by_the_full_parser():
    with pytest.raises(NotationError, match="second copy of bonus tile") as e:
        parse_hand("123m 456m 789m EEE 5p F1 F1 +5p")
    assert (e.value.token, e.value.position) == ("F1", 26)


def test_cached_attributes_of_a_hand():
    assert Hand.counts.name == "counts"  # the descriptor itself, read from the class
    h = parse_hand(HAND)
    assert h.counts is h.counts and sum(h.counts) == 14


def test_bonus_tiles_with_flowers_out_of_play():
    with pytest.raises(ContextError, match="not in play"):
        score(HAND + " F1", flowers_in_play=False)


def test_house_rules_can_stack_or_drop_a_pair():
    p = load_preset("hk-new-style", {"stacks": {"semi_self_sufficient": ["wait"]},
                                     "suppresses": {"seven_pairs": ["all_chows"], "half_flush": ["two_suits"]}})
    assert "wait" not in dict(p.replaces.get("semi_self_sufficient", ()))
    assert not [r for r in p.relations if r.a == "seven_pairs"]  # seven pairs is not scored here
    assert [r.why for r in p.relations if r.a == "half_flush"] == ["the preset: a house rule"]
    r = score("[123m] [456m] [789p] [234s] 5s +5s", p)
    assert {"semi_self_sufficient", "wait"} <= {x.id for x in r.patterns}


def test_config_files_that_cannot_be_read_are_named(tmp_path):
    from mjcam.scoring import ConfigError
    from mjcam.scoring.rules import read_config
    with pytest.raises(ConfigError, match="config file not found"):
        read_config(str(tmp_path / "nope.toml"))
    bad = tmp_path / "bad.toml"
    bad.write_text("min_fan = = 3\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid TOML"):
        read_config(str(bad))
