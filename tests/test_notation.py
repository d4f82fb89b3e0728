"""Hand notation: parsing, printing, and errors that name the bad token and its position."""

import pytest

from mjcam.scoring import NotationError, format_hand, parse_hand
from mjcam.scoring.tiles import index


def test_contract_example_parses():
    # CONTRACT's notation line has 17 tiles; this is it cut to a winning hand
    h = parse_hand("[123m] [RdRdRd] {9999s} 78p 55s F2 S3 +9p")
    assert [m.kind for m in h.melds] == ["chow", "pung", "kong"]
    assert [m.concealed for m in h.melds] == [False, False, True]
    assert h.winning == index("9p")
    assert h.bonus == (index("F2"), index("S3"))
    assert len(h.concealed) == 5 and index("9p") in h.concealed


@pytest.mark.parametrize("text", [
    "[123m] [RdRdRd] {9999s} 78p 55s F2 S3 +9p",
    "19m 19p 19s ESWN RdGdWd +Rd",
    "[EEEE] [SSS] 112233p 4p +4p F1 F2 F3 F4 S1 S2 S3 S4",
    "123m 456m 789m 123F1 +5p".replace("123F1", "123s 5p F1"),
])
def test_print_then_parse_round_trips(text):
    h = parse_hand(text)
    assert parse_hand(format_hand(h)) == h


def test_white_space_and_order_are_free():
    a = parse_hand("123m456m789m111p+5p5p")
    b = parse_hand("  5p  111p 789m\t456m 123m +5p ")
    assert a == b


def test_tenhou_honour_aliases():
    h = parse_hand("1z1z1z 2z2z2z 5z5z5z 6z6z6z 7z +7z")
    assert sorted(set(h.concealed)) == [index(c) for c in ("E", "S", "Rd", "Gd", "Wd")]


def test_season_versus_south_followed_by_a_run():
    assert parse_hand("S123m 456m 789m SS 1p +1p").bonus == ()
    assert parse_hand("123m 456m 789m SSS 1p +1p S1").bonus == (index("S1"),)


@pytest.mark.parametrize("text, token, pos", [
    ("123m 456m 789m EEE 5p 0p", "0p", 23),
    ("123m 456m 789m EEE 5p +5x", "5x", 24),
    ("123m 456m 789m EEE 5p +Xd", "Xd", 24),
    ("123m 456m 789m 8z8z8z 5p +5p", "8z", 16),
    ("[124m] 456m 789m EEE 5p +5p", "[124m]", 1),
    ("{111m} 456m 789m EEE 5p +5p", "{111m}", 1),
    ("11111m 456m 789m 5p +5p", "1m", 5),
    ("123m 456m 789m EEE 5p +5p +5p", "+5p", 27),
    ("123m 456m 789m EEE 5p +55p", "+55p", 23),
    ("[123m 456m 789m EEE 5p 5p", "[", 1),
    ("123m] 456m 789m EEE 5p +5p", "]", 5),
    ("[12+3m] 456m 789m EEE 5p", "12", 2),
    ("[123m +5p] 456m 789m EEE 5p", "+", 7),
    ("123m 456m 789m EEE 5p +F1", "+F1", 23),
    ("123m 456m 789m EEE 5p 5p F1 F1 +5p", "F1", 29),
])
def test_errors_name_token_and_position(text, token, pos):
    with pytest.raises(NotationError) as e:
        parse_hand(text)
    assert e.value.token == token
    assert e.value.position == pos
    assert f"'{token}'" in str(e.value) and f"position {pos}" in str(e.value)


@pytest.mark.parametrize("text, token, pos", [
    # an unclosed set is named as such, whatever stands inside it (issue 33)
    ("[123m 456m 789m EEE 5p +5p", "[", 1),
    ("{1111m 456m 789m EEE 5p +5p", "{", 1),
    ("123m [456m 789m EEE F1 5p +5p", "[", 6),
    ("[123m 456m [789m] EEE 5p +5p", "[", 1),
    ("  {1111m [456m] 789m EEE 5p +5p", "{", 3),
])
def test_an_unclosed_set_is_named_even_with_a_plus_inside(text, token, pos):
    with pytest.raises(NotationError) as e:
        parse_hand(text)
    assert "set is not closed" in str(e.value)
    assert (e.value.token, e.value.position) == (token, pos)


def test_a_plus_or_bonus_inside_a_closed_set_is_named():
    with pytest.raises(NotationError, match="belongs to the concealed part") as e:
        parse_hand("[123m +5p] 456m 789m EEE 5p")
    assert (e.value.token, e.value.position) == ("+", 7)
    with pytest.raises(NotationError, match="cannot be part of a set") as e:
        parse_hand("[123m F1] 456m 789m EEE 5p +5p")
    assert (e.value.token, e.value.position) == ("F1", 7)


@pytest.mark.parametrize("text", [
    "123m 456m 789m EEE 5p 5p", "123m 456m 789m EEE +5p", " ", "[1111m] 456m 789m EEE 5p 6p +5p",
])
def test_errors_about_the_whole_hand_name_it(text):
    with pytest.raises(NotationError) as e:
        parse_hand(text)
    assert e.value.token == text.strip() and e.value.position >= 1 and e.value.whole
    assert "position" not in str(e.value)  # no one place in the hand is wrong: none is named
    with pytest.raises(NotationError, match="13 tiles") as e:
        parse_hand("123m 456m 789m EE", waiting=True)
    assert e.value.token == "123m 456m 789m EE"


@pytest.mark.parametrize("text, words", [
    ("123m 456m 789m EEE 5p 5p", "no winning tile"),
    ("123m 456m 789m EEE 5p 6p +5p", "14 tiles"),
    ("123m 456m 789m EEE +5p", "14 tiles"),
    ("[1111m] 456m 789m EEE 5p 6p +5p", "14 tiles"),
    ("", "empty"),
    ("123m 456m 789m EEE 5p +", "must be followed by a tile"),
    ("123m 456m 78", "suit letter"),
])
def test_count_and_winning_tile_errors(text, words):
    with pytest.raises(NotationError, match=words):
        parse_hand(text)


def test_kong_adds_one_tile():
    h = parse_hand("[1111m] 456m 789m EEE 5p +5p")
    assert h.kongs == 1 and sum(h.tile_counts()) == 15


def test_waiting_hand():
    h = parse_hand("123m 456m 789m EEE 5p", waiting=True)
    assert h.winning is None and len(h.concealed) == 13
    with pytest.raises(NotationError, match="13 tiles"):
        parse_hand("123m 456m 789m EEE", waiting=True)
    with pytest.raises(NotationError, match="no winning tile"):
        parse_hand("123m 456m 789m EE +5p", waiting=True)


def test_instant_bonus_win_has_no_winning_tile():
    h = parse_hand("123m 456m 789m EEE 5p F1 F2 F3 F4 S1 S2 S3")
    assert h.winning is None and len(h.bonus) == 7


def test_not_text():
    with pytest.raises(NotationError):
        parse_hand(None)  # type: ignore[arg-type]


def test_a_hand_of_the_wrong_size_says_how_many_tiles_it_has_and_how_many_its_kongs_need():
    with pytest.raises(NotationError) as e:
        parse_hand("[555p] [456p] 8p 23s +8p")
    assert "this one has 10 in" in str(e.value) and "needed" not in str(e.value)
    with pytest.raises(NotationError) as e:
        parse_hand("[555p] [4444s] [456p] 8p 23s S1 S4 +8p")  # 14 with a kong: 15 are needed
    assert "this one has 14 (with 1 kong, 15 are needed) in" in str(e.value)
    with pytest.raises(NotationError) as e:
        parse_hand("[4444s] [1111p] 123m 8p", waiting=True)
    assert "a waiting hand has 13 tiles plus one per kong" in str(e.value)
    assert "this one has 12 (with 2 kongs, 15 are needed) in" in str(e.value)
