"""The scoring fixes of issue 33, each on a hand scored by hand from its seed."""

from mjcam.scoring import score

D = {"discarder": "W"}


def ids(r):
    return {p.id: p.fan for p in r.patterns}


def test_thirteen_orphans_is_a_limit_hand_with_nothing_added_under_hk_new_style():
    # the seed: 'four sets and a pair (with the exception of special limit hands)'; its All Terminals
    # and Honors (a hand of pungs and a pair) is not thirteen orphans
    r = score("19m 19p 19s ESWN RdGdWd +Rd", "hk-new-style")
    assert r.limit and r.fan == 100 and ids(r) == {"thirteen_orphans": 100}
    c = score("19m 19p 19s ESWN RdGdWd +Rd", "hk-common")
    assert "mixed_terminals" not in ids(c) and c.fan == 13


def test_all_terminals_and_honors_is_still_scored_on_a_hand_of_pungs():
    r = score("[111m] [999p] [EEE] 111s N +N", "hk-new-style", seat="S", **D)
    assert r.fan == ids(r)["mixed_terminals"] + sum(v for k, v in ids(r).items() if k != "mixed_terminals")
    assert ids(r)["mixed_terminals"] == 50 and "all_pungs" not in ids(r)  # its pungs are part of it


def test_honor_tiles_are_inside_little_and_big_three_dragons():
    r = score("[RdRdRd] [GdGdGd] 123m 456p Wd +Wd", "hk-new-style", **D)
    assert ids(r)["little_three_dragons"] == 20 and "honour_pung" not in ids(r)
    # a pung of the seat wind is not part of Little Three Dragons: it still counts
    r = score("[RdRdRd] [GdGdGd] [EEE] 456p Wd +Wd", "hk-new-style", **D)
    assert ids(r)["honour_pung"] == 2 and [p.count for p in r.patterns if p.id == "honour_pung"] == [1]
    r = score("[RdRdRd] [GdGdGd] [WdWdWd] 123m 5p +5p", "hk-new-style", **D)
    assert ids(r)["big_three_dragons"] == 60 and "honour_pung" not in ids(r)


def test_wait_is_inside_semi_self_sufficient_as_inside_melded_hand():
    hand = "[123m] [456m] [789p] [234s] 5s +5s"
    semi = score(hand, "hk-new-style")
    melded = score(hand, "hk-new-style", **D)
    assert "semi_self_sufficient" in ids(semi) and "wait" not in ids(semi)
    assert "melded_hand" in ids(melded) and "wait" not in ids(melded)
    assert ("wait", "semi_self_sufficient") in semi.suppressed


def test_chinese_new_style_has_no_minimum_and_pays_its_own_way():
    # no faan at all: a chow melded, a two-sided wait, three suits with terminals, flowers out
    r = score("[123m] 456m 78p 555s 99s +9p", "chinese-new-style", flowers_in_play=False, **D)
    assert r.legal and r.fan == 0 and r.points == 1
    assert r.payments == {"E": 1, "S": 0, "W": -1, "N": 0}
    # a limit hand on a discard: 'pays 1,024 points', from the discarder alone
    r = score("[EEE] [SSS] [WWW] [NNN] 5p +5p", "chinese-new-style", **D)
    assert r.limit and r.points == 1024
    assert r.payments == {"E": 1024, "S": 0, "W": -1024, "N": 0}
    # self-drawn, each loser pays the hand's value
    r = score("[EEE] [SSS] [WWW] [NNN] 5p +5p", "chinese-new-style")
    assert r.payments == {"E": 3072, "S": -1024, "W": -1024, "N": -1024}


def test_chinese_new_style_follows_its_notes_on_what_implies_what():
    # 'All Terminals and Honors ... Does not imply scoring for Pung hand': both score
    r = score("[111m] [999p] [EEE] 111s N +N", "chinese-new-style", seat="S", **D)
    assert ids(r)["mixed_terminals"] == 6 and ids(r)["all_pungs"] == 3
    # 'Big Three Dragons ... Implies scoring for all Dragons': the dragon pungs are inside it
    r = score("[RdRdRd] [GdGdGd] [WdWdWd] 123m 5p +5p", "chinese-new-style", **D)
    assert ids(r)["big_three_dragons"] == 9 and "dragon_pung" not in ids(r)
    # 'Out on the last tile of the Wall ... Does not imply scores for Self-drawn last tile'
    r = score("123m 456m 789p 234s 5s +5s", "chinese-new-style", last_tile=True)
    assert {"last_tile_draw", "fully_concealed"} <= set(ids(r))


def test_jade_dragon_is_a_hand_of_pungs_as_the_old_style_seed_says():
    assert score("[GdGdGd] 111s 444s 999s 2s +2s", "hk-old-style", **D).limit
    r = score("[GdGdGd] 123s 456s 999s 2s +2s", "hk-old-style", **D)
    assert not r.limit and {"half_flush", "dragon_pung"} <= set(ids(r))


def test_double_kong_adds_its_self_pick_in_hk_common():
    # the seed: 'Win by Double-Kong 9 (8 bonus +1 from self-pick)'
    r = score("{1111m} [4444m] 789p 234s 5s +5s", "hk-common", double_kong=True, flowers_in_play=False)
    assert ids(r)["double_kong"] == 8 and ids(r)["self_drawn"] == 1 and "kong_replacement" not in ids(r)
