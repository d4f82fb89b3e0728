"""Meld grouping on synthetic layouts with known melds (no image model involved)."""

import math

import pytest

from datasets.synthetic import available_fonts, render_hand
from mjcam.scoring import parse_hand
from mjcam.vision.group import ALT_MIN, MeldGrouper, TileObs, reading_order


def row(codes, y=100, x=10, w=30, h=40, gaps=(), sideways=(), backs=()):
    """Tiles in a row: ``gaps`` are indices before which a gap opens."""
    out = []
    for i, c in enumerate(codes):
        if i in gaps:
            x += 25
        ww, hh = (h, w) if i in sideways else (w, h)
        out.append(TileObs((x, y + h - hh, x + ww, y + h), "back" if i in backs else c,
                           orientation="sideways" if i in sideways else "face-down" if i in backs else "upright"))
        x += ww + 1
    return out


def test_reading_order_rows_then_left_to_right():
    tiles = row(["1m", "2m"], y=200) + row(["E", "S"], y=50)
    assert reading_order(tiles) == [[2, 3], [0, 1]]


def slanted(tiles, degrees, about=(200.0, 100.0)):
    """The tiles with their centres turned about ``about`` (boxes stay upright hulls, as labelled)."""
    a = math.radians(degrees)
    out = []
    for t in tiles:
        x1, y1, x2, y2 = t.box
        cx, cy = (x1 + x2) / 2 - about[0], (y1 + y2) / 2 - about[1]
        nx, ny = about[0] + cx * math.cos(a) - cy * math.sin(a), about[1] + cx * math.sin(a) + cy * math.cos(a)
        w, h = x2 - x1, y2 - y1
        hw = (abs(w * math.cos(a)) + abs(h * math.sin(a))) / 2
        hh = (abs(w * math.sin(a)) + abs(h * math.cos(a))) / 2
        out.append(TileObs((nx - hw, ny - hh, nx + hw, ny + hh), t.code, t.confidence, t.alternatives, t.orientation))
    return out


@pytest.mark.parametrize("degrees", [-25, -12, 12, 25])
def test_a_row_photographed_at_a_slant_reads_as_one_row(degrees):
    codes = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "E", "E", "E", "N", "N"]
    tiles = slanted(row(codes, gaps={13}), degrees)
    assert reading_order(tiles) == [list(range(14))]
    # two slanted rows stay two rows, each in order
    two = tiles + slanted(row(codes, y=180), degrees, about=(200.0, 100.0))
    assert reading_order(two) == [list(range(14)), list(range(14, 28))]
    g = MeldGrouper()(tiles)
    assert g.hand == MeldGrouper()(row(codes, gaps={13})).hand


def test_melds_kong_bonus_and_winning_tile():
    codes = ["1m", "2m", "3m", "Rd", "Rd", "Rd", "9s", "9s", "9s", "9s", "4p", "5p", "6p", "5s", "5s", "F1"]
    tiles = row(codes, gaps={3, 6, 10, 15}, sideways={0, 4}, backs={6, 9})
    g = MeldGrouper()(tiles)
    kinds = [(x["kind"], x["melded"]) for x in g.groups]
    assert ("chow", True) in kinds and ("pung", True) in kinds and ("concealed_kong", False) in kinds
    assert ("bonus", False) in kinds
    assert g.winning is not None and g.codes[g.winning] == "5s"  # no tile apart: the last concealed one
    # not flagged: vision.trust asks whether another winning tile would be paid differently
    assert g.winning_guessed and g.winning not in g.needs_confirmation
    h = parse_hand(g.hand)
    assert [m.kind for m in h.melds] == ["chow", "pung", "kong"] and h.melds[2].concealed


def test_lone_tile_at_the_end_is_the_winning_tile():
    codes = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "E", "E", "E", "N", "N"]
    tiles = row(codes, gaps={13})
    g = MeldGrouper()(tiles)
    assert g.codes[g.winning] == "N" and g.winning not in g.needs_confirmation and not g.winning_guessed
    assert g.hand.endswith("+N") and MeldGrouper._wins(g.hand)


def test_a_doubtful_tile_is_corrected_by_the_rules_and_flagged():
    codes = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "E", "E", "E", "N", "N"]
    tiles = row(codes, gaps={13})
    tiles[1] = TileObs(tiles[1].box, "5m", 0.55, [("2m", 0.40), ("3m", 0.03)])
    g = MeldGrouper()(tiles)
    assert g.codes[1] == "2m" and 1 in g.needs_confirmation
    assert MeldGrouper._wins(g.hand)


def test_doubtful_tiles_are_flagged_even_when_the_hand_wins():
    codes = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "E", "E", "E", "N", "N"]
    tiles = row(codes, gaps={13})
    tiles[4] = TileObs(tiles[4].box, "5p", 0.6, [("6p", 0.3)])
    g = MeldGrouper()(tiles)
    assert g.codes[4] == "5p" and g.needs_confirmation == [4]


def test_a_doubtful_tiles_alternative_that_makes_a_win_is_proposed_and_flagged():
    codes = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "E", "E", "E", "N", "N"]
    tiles = row(codes, gaps={13})
    tiles[2] = TileObs(tiles[2].box, "4m", 0.5, [("3m", 0.3), ("5m", 0.1)])  # 124m wins nothing; 123m does
    g = MeldGrouper()(tiles)
    assert g.codes[2] == "3m" and 2 in g.needs_confirmation
    assert g.hand == MeldGrouper()(row(codes, gaps={13})).hand
    assert any("tile 3 read as 3m (not 4m) to make a winning hand" in n for n in g.notes)
    # an alternative the classifier gives under ALT_MIN is not put in its place: the tile stays, flagged
    tiles[2] = TileObs(tiles[2].box, "4m", 0.5, [("3m", ALT_MIN - 0.01), ("5m", 0.1)])
    g = MeldGrouper()(tiles)
    assert g.codes[2] == "4m" and 2 in g.needs_confirmation
    assert not any("to make a winning hand" in n for n in g.notes)


def test_a_flower_read_twice_takes_the_less_sure_readings_bonus_alternative():
    # not a winning hand (so the winning-hand correction plays no part): a set has one F3 only
    codes = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "E", "E", "N", "W", "S", "F1", "F3", "F3", "F4"]
    tiles = row(codes, gaps={14})
    A, B = 15, 16
    tiles[A] = TileObs(tiles[A].box, "F3", 0.99, [("S3", 0.005)])
    tiles[B] = TileObs(tiles[B].box, "F3", 0.48, [("F1", 0.3), ("S2", 0.15), ("E", 0.05)])  # F1 is read already
    g = MeldGrouper()(tiles)
    assert g.codes[A] == "F3" and g.codes[B] == "S2"
    assert {A, B} <= set(g.needs_confirmation)  # either reading may be the wrong one
    assert any("a set has one F3" in n for n in g.notes)
    parse_hand(g.hand)  # a hand that can be written now: one of each bonus tile
    assert [t for t in g.hand.split() if t[0] in "FS" and t[1:].isdigit()] == ["F1", "F3", "F4", "S2"]
    # no bonus alternative left: the reading stays as read, both tiles flagged for a person
    tiles[B] = TileObs(tiles[B].box, "F3", 0.48, [("F1", 0.3), ("E", 0.05)])
    g = MeldGrouper()(tiles)
    assert g.codes[B] == "F3" and {A, B} <= set(g.needs_confirmation)
    assert not any("read as" in n for n in g.notes)
    assert any(f"tiles {A + 1} and {B + 1} both read F3" in n for n in g.notes)
    # nor is a bonus alternative the classifier gives under ALT_MIN put in the reading's place
    tiles[B] = TileObs(tiles[B].box, "F3", 0.48, [("F1", 0.3), ("S2", ALT_MIN - 0.01)])
    g = MeldGrouper()(tiles)
    assert g.codes[B] == "F3" and not any("read as" in n for n in g.notes)


def test_a_tile_read_a_fifth_time_takes_its_alternative_of_which_fewer_than_four_are_read():
    # a pung of 5p melded and 5p 5p 5p concealed: five 5p, which no set has
    codes = ["5p", "5p", "5p", "1m", "2m", "3m", "4p", "5p", "5p", "E", "E", "S", "S", "S"]
    tiles = row(codes, gaps={3}, sideways={1})
    A = 7  # the concealed 5p the classifier is least sure of
    tiles[A] = TileObs(tiles[A].box, "5p", 0.55, [("3p", 0.3), ("5s", 0.1)])
    for k in (0, 1, 2):
        tiles[k] = TileObs(tiles[k].box, "5p", 0.97, [], tiles[k].orientation)
    g = MeldGrouper()(tiles)
    assert g.codes[A] == "3p" and A in g.needs_confirmation
    assert any(f"tile {A + 1} read as 3p (not 5p): a set has four 5p" in n for n in g.notes)
    assert sum(c == "5p" for c in g.codes) == 4
    # an alternative of which four are read already is not taken; none left: every 5p flagged
    tiles[9:] = row(["E", "S", "S", "S", "S"], x=tiles[9].box[0])
    tiles[A] = TileObs(tiles[A].box, "5p", 0.55, [("S", 0.3), ("3p", ALT_MIN - 0.01)])
    g = MeldGrouper()(tiles)
    assert g.codes[A] == "5p" and {0, 1, 2, A, A + 1} <= set(g.needs_confirmation)
    assert any("5 tiles read 5p: a set has four" in n for n in g.notes)
    # a concealed kong counts four of its tile, its face-down ends included: one more is a fifth
    kong = ["Rd", "Rd", "Rd", "Rd", "1m", "2m", "3m", "4p", "5p", "6p", "Rd", "N", "N", "7s", "8s", "9s"]
    tiles = row(kong, gaps={4, 10}, backs={0, 3})
    tiles[10] = TileObs(tiles[10].box, "Rd", 0.6, [("Gd", 0.3)])
    g = MeldGrouper()(tiles)
    assert any(grp["kind"] == "concealed_kong" for grp in g.groups)
    assert g.codes[10] == "Gd" and any("a set has four Rd" in n for n in g.notes)
    # four of a tile is a set's whole: nothing changes
    g = MeldGrouper()(row(codes[:7] + ["5p", "6p"] + codes[9:], gaps={3}, sideways={1}))
    assert not any("a set has four" in n for n in g.notes)


def test_a_turned_tile_that_makes_no_set_is_taken_as_concealed_and_flagged_never_no_hand():
    tiles = row(["1m", "5p", "9s", "E", "E", "E", "E", "S", "S", "S", "W", "W", "W", "N", "N"], gaps={3, 13},
                sideways={0})
    g = MeldGrouper()(tiles)
    assert 0 in g.needs_confirmation and g.hand is not None
    assert "[" not in g.hand
    assert any("makes no set" in n for n in g.notes)


def test_empty():
    g = MeldGrouper()([])
    assert g.hand is None and g.groups == []


@pytest.mark.skipif(not available_fonts(), reason="no tile font (apt-get install fonts-noto-core)")
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_grouping_recovers_rendered_layouts(seed):
    layout = [("chow", ["4m", "5m", "6m"], True), ("pung", ["Gd", "Gd", "Gd"], True),
              ("concealed_kong", ["2s"] * 4, False),
              ("concealed", ["1p", "2p", "3p", "W"], False), ("concealed", ["W"], False),
              ("bonus", ["S2"], False)]
    h = render_hand(layout, seed=seed)
    tiles = [TileObs(t.box, t.code, 0.99, [], t.orientation) for t in h.tiles]
    g = MeldGrouper()(tiles)
    hand = parse_hand(g.hand)
    assert [(m.kind, m.concealed) for m in hand.melds] == [("chow", False), ("pung", False), ("kong", True)]
    assert g.hand.endswith("+W") and "S2" in g.hand
    assert g.order == list(range(len(tiles)))  # one row, already left to right


def test_stray_tiles_behind_the_hand_are_kept_apart():
    from mjcam.vision.group import hand_and_strays

    row = [TileObs((10 + 30 * i, 200, 38 + 30 * i, 240), "1m") for i in range(14)]
    bonus = [TileObs((470, 250, 498, 290), "F1")]  # a little below the line: still the hand
    loose = [TileObs((50, 20, 65, 40), "5p"), TileObs((300, 30, 318, 52), "E")]  # small, far behind
    hand, stray = hand_and_strays(row + bonus + loose)
    assert sorted(hand) == list(range(15)) and sorted(stray) == [15, 16]
    kong = [TileObs((10 + 30 * i, 260, 38 + 30 * i, 300), "2m") for i in range(4)]
    hand, stray = hand_and_strays(row[:11] + kong)  # melds laid out in a second row belong to the hand
    assert sorted(hand) == list(range(15)) and stray == []
    # once the rows kept hold a whole hand, another row is someone else's tiles (bonus tiles aside)
    hand, stray = hand_and_strays(row + kong)
    assert sorted(hand) == list(range(14)) and sorted(stray) == list(range(14, 18))
    off_line = TileObs((10, 265, 38, 305), "5s")  # the winning tile of a hand with a kong, set below
    hand, stray = hand_and_strays(row + [off_line])
    assert sorted(hand) == list(range(15)) and stray == []
    flowers = [TileObs((10 + 30 * i, 260, 38 + 30 * i, 300), c) for i, c in enumerate(["F1", "F2", "S3"])]
    hand, stray = hand_and_strays(row + flowers)
    assert sorted(hand) == list(range(17)) and stray == []


def test_a_box_far_longer_than_the_tiles_beside_it_is_no_tile_of_the_hand():
    from mjcam.vision.group import ODD_SIZE, hand_and_strays

    row = [TileObs((10 + 30 * i, 200, 38 + 30 * i, 240), "1m") for i in range(13)]
    wall = TileObs((400, 195, 400 + 2 * 40, 240), "Wd")  # a blurred wall at the row's end, twice as long
    hand, stray = hand_and_strays(row + [wall])
    assert sorted(hand) == list(range(13)) and stray == [13]
    hand, stray = hand_and_strays(row + [wall] + [TileObs((50, 20, 78, 60), "5p")])  # with a second row too
    assert sorted(hand) == list(range(13)) and 13 in stray
    # a tile's box stretched across the row by a logo or its reflection below it: still the tile
    stretched = TileObs((400, 200, 428, 200 + 1.9 * 40), "2m")
    hand, stray = hand_and_strays(row + [stretched])
    assert sorted(hand) == list(range(14)) and stray == []
    # a tile lying sideways in a claimed set is as long as one standing: it stays
    sideways = TileObs((400, 212, 440, 240), "2m", orientation="sideways")
    hand, stray = hand_and_strays(row + [sideways])
    assert sorted(hand) == list(range(14)) and stray == []
    # a row receding from the camera grows along its length, each tile a little longer than the last
    grow, x = [], 10.0
    for i in range(14):
        w, h = 28 * 1.08 ** i, 40 * 1.08 ** i
        grow.append(TileObs((x, 240 - h, x + w, 240), "1m"))
        x += w + 2
    assert grow[-1].box[3] - grow[-1].box[1] > ODD_SIZE * 40  # the last is far longer than the first
    hand, stray = hand_and_strays(grow)
    assert sorted(hand) == list(range(14)) and stray == []
    # two walls side by side at the row's end: the first goes (the last one's neighbours are a
    # tile and that wall, whose mean it is not far over)
    walls = [TileObs((400, 195, 480, 240), "Wd"), TileObs((482, 195, 562, 240), "Wd")]
    hand, stray = hand_and_strays(row + walls)
    assert 13 in stray


def test_only_a_tile_that_would_be_the_hands_is_too_large_and_off_the_row_it_is_judged_by_its_shape():
    from mjcam.vision.group import hand_strays_too_large

    row = [TileObs((10 + 30 * i, 200, 38 + 30 * i, 240), "1m") for i in range(13)]
    # behind a whole hand, another player's row with one long box: its tiles are away, none too large
    whole = row + [TileObs((400, 200, 428, 240), "2m")]
    other = [TileObs((10 + 30 * i, 20, 38 + 30 * i, 60), "5p") for i in range(5)] + [TileObs((160, 20, 240, 60), "Wd")]
    hand, stray, large = hand_strays_too_large(whole + other)
    assert sorted(hand) == list(range(14)) and sorted(stray) == list(range(14, 20)) and large == []
    # a flower laid alone just in front, nearer the camera: 1.55 times as large every way, it joins
    near = TileObs((200, 260, 200 + 1.55 * 28, 260 + 1.55 * 40), "F1")
    hand, stray, large = hand_strays_too_large(row + [near])
    assert 13 in hand and large == []
    # a dealer's marker as wide as a tile is tall, as tall as a tile is wide, 1.55 times long: too large
    marker = TileObs((200, 250, 200 + 1.55 * 40, 278), "S1")
    hand, stray, large = hand_strays_too_large(row + [marker])
    assert 13 not in hand and large == [13]


def test_a_hand_in_two_rows_photographed_from_the_player_s_side_keeps_its_larger_front_row():
    from mjcam.vision.group import hand_and_strays

    back = [TileObs((108 + 57 * i, 160, 163 + 57 * i, 225), c)
            for i, c in enumerate(["Rd", "Rd", "Rd", "Gd", "Gd", "Gd", "Wd", "Wd"])]
    front = [TileObs((33 + 70 * i, 300 + 8 * i, 110 + 70 * i, 400 + 8 * i), c)  # 1.4 times as large, slanting
             for i, c in enumerate(["F1", "F2", "1s", "2s", "3s", "2s", "3s", "4s"])]
    hand, stray = hand_and_strays(back + front)
    assert sorted(hand) == list(range(16)) and stray == []
    # a whole hand in one row: a larger row beside it is someone else's tiles, as before
    row = [TileObs((10 + 57 * i, 160, 65 + 57 * i, 225), "1m") for i in range(14)]
    hand, stray = hand_and_strays(row + front[2:])
    assert sorted(hand) == list(range(14)) and sorted(stray) == list(range(14, 20))
    # nor a wall lying face down behind a hand short of a tile
    wall = [TileObs((108 + 42 * i, 95, 148 + 42 * i, 140), "back") for i in range(8)]
    hand, stray = hand_and_strays(row[:13] + wall)
    assert sorted(hand) == list(range(13)) and sorted(stray) == list(range(13, 21))
    # nor does a row far larger still (twice the size: no row of the same hand)
    big = [TileObs((33 + 110 * i, 300, 143 + 110 * i, 440), "5p") for i in range(4)]
    hand, stray = hand_and_strays(back + big)
    assert sorted(hand) == list(range(8)) and sorted(stray) == list(range(8, 12))


def test_flowers_laid_out_in_a_row_behind_the_hand_join_it_and_a_marker_beside_them_does_not():
    from mjcam.vision.group import hand_and_strays

    row = [TileObs((52 + 39 * i, 270, 88 + 39 * i, 321), c) for i, c in enumerate(
        ["Rd", "Rd", "1m", "2m", "3m", "5s", "6s", "7s", "6p", "7p", "8p", "6s", "6s", "6s"])]
    behind = [TileObs((75, 178, 95, 210), "N")] + [  # a small marker, then the flowers, 2.8 tile widths behind
        TileObs((104 + 39 * i, 168, 139 + 39 * i, 214), c) for i, c in enumerate(["F1", "F2", "F3", "F4", "S1"])]
    hand, stray = hand_and_strays(row + behind)
    assert sorted(hand) == list(range(14)) + list(range(15, 20)) and stray == [14]
    # a flower the hand holds already is a second copy (a misreading, or another set's): it stays apart
    hand, stray = hand_and_strays(row + [TileObs((598, 270, 634, 321), "F2")] + behind)
    assert sorted(hand) == list(range(15)) + [16, 18, 19, 20] and sorted(stray) == [15, 17]
    # beside the photo, far to the side of the hand (a neighbour's), they stay apart
    aside = [TileObs((2000 + 39 * i, 200, 2035 + 39 * i, 246), c) for i, c in enumerate(["F1", "3s", "4s", "5s"])]
    hand, stray = hand_and_strays(row + aside)
    assert sorted(hand) == list(range(14)) and sorted(stray) == list(range(14, 18))
    # far behind (another player's flowers across the table), they stay apart
    far = [TileObs((104 + 39 * i, 20, 139 + 39 * i, 66), c) for i, c in enumerate(["F1", "F2"])]
    hand, stray = hand_and_strays(row + far)
    assert sorted(hand) == list(range(14)) and sorted(stray) == [14, 15]


def test_a_hand_short_of_a_tile_or_over_says_so_and_a_kong_counts_as_three():
    codes = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "E", "E", "E", "N", "N"]
    whole = MeldGrouper()(row(codes, gaps={13}))
    assert not [n for n in whole.notes if "tiles in the hand" in n]
    short = MeldGrouper()(row(codes[:13]))
    assert "13 tiles in the hand where a win has 14: a tile may be missed" in " ".join(short.notes)
    over = MeldGrouper()(row(codes + ["N"]))
    assert "15 tiles in the hand where a win has 14: a kong may not be set apart" in " ".join(over.notes)
    # a kong laid out as one (face-down ends) is four tiles standing for three
    kong = ["1m", "2m", "3m", "9s", "9s", "9s", "9s", "4p", "5p", "6p", "E", "E", "E", "N", "N"]
    g = MeldGrouper()(row(kong, gaps={3, 7, 14}, backs={3, 6}))
    assert ("concealed_kong", False) in [(x["kind"], x["melded"]) for x in g.groups]
    assert not [n for n in g.notes if "tiles in the hand" in n]
    g = MeldGrouper()(row(kong[:-1], gaps={3, 7}, backs={3, 6}))
    assert "13 tiles in the hand where a win has 14 (a kong counted as three)" in " ".join(g.notes)


def test_four_of_a_tile_face_up_in_the_concealed_row_are_a_kong_where_that_makes_a_win():
    codes = ["1m", "2m", "3m", "9s", "9s", "9s", "9s", "4p", "5p", "6p", "E", "E", "E", "N", "N"]
    g = MeldGrouper()(row(codes, gaps={14}))  # 15 tiles, the kong not set apart nor turned down
    h = parse_hand(g.hand)
    assert [(m.kind, m.concealed) for m in h.melds] == [("kong", True)] and MeldGrouper._wins(g.hand)
    assert ("concealed_kong", False) in [(x["kind"], x["melded"]) for x in g.groups]
    assert "four 9s in the concealed part taken as a concealed kong laid face up" in g.notes
    assert not [n for n in g.notes if "tiles in the hand" in n]
    # four of a tile in a hand of 14 are a pung and a run's tile, not a kong
    plain = ["2m", "2m", "2m", "2m", "3m", "4m", "4p", "5p", "6p", "E", "E", "E", "N", "N"]
    g = MeldGrouper()(row(plain, gaps={13}))
    assert g.hand == "222234m 456p EEE N +N" and not any("kong" in n for n in g.notes)
    # a kong that still wins nothing is left as read, and the count is noted
    g = MeldGrouper()(row(codes[:13] + ["N", "7p"], gaps={14}))
    assert "{" not in g.hand and "15 tiles in the hand" in " ".join(g.notes)


WIN = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "E", "E", "E", "N", "N"]


def test_a_sure_enough_tiles_alternative_makes_the_win_though_the_tile_is_not_doubtful():
    tiles = row(WIN, gaps={13})
    tiles[5] = TileObs(tiles[5].box, "7p", 0.82, [("6p", 0.16), ("3p", 0.01)])  # 457p wins nothing; 456p does
    g = MeldGrouper()(tiles)
    assert g.codes[5] == "6p" and g.needs_confirmation == [5]
    assert g.hand == MeldGrouper()(row(WIN, gaps={13})).hand
    assert "tile 6 read as 6p (not 7p) to make a winning hand" in g.notes
    # a hand that wins already is left as read, however likely the tile's alternative
    tiles[5] = TileObs(tiles[5].box, "6p", 0.82, [("7p", 0.16)])
    g = MeldGrouper()(tiles)
    assert g.codes[5] == "6p" and g.needs_confirmation == [] and not any("read as" in n for n in g.notes)


def test_a_tile_read_as_a_flower_whose_alternative_makes_the_win_joins_the_hand():
    # a pictorial 1-bamboo read as a season: 13 tiles and a season, no win
    codes = ["1s", "1s", "1s"] + WIN[3:]
    tiles = row(codes, gaps={13})
    tiles[1] = TileObs(tiles[1].box, "S4", 0.4, [("1s", 0.3), ("S1", 0.2)])
    g = MeldGrouper()(tiles)
    assert g.codes[1] == "1s" and 1 in g.needs_confirmation
    assert g.hand == MeldGrouper()(row(codes, gaps={13})).hand
    assert "tile 2 read as 1s (not S4) to make a winning hand" in g.notes
    assert not any(x["kind"] == "bonus" for x in g.groups)  # it joined the concealed tiles
    assert not any("tiles in the hand where a win has 14" in n for n in g.notes)  # counted with them
    # under ALT_MIN the reading stays a season, and the hand is said to be a tile short
    tiles[1] = TileObs(tiles[1].box, "S4", 0.4, [("1s", ALT_MIN - 0.01), ("S1", 0.2)])
    g = MeldGrouper()(tiles)
    assert g.codes[1] == "S4" and "S4" in g.hand
    assert "13 tiles in the hand where a win has 14: a tile may be missed" in " ".join(g.notes)
    # a flower in a hand that wins as read stays a flower, however likely its alternative
    tiles = row(WIN + ["F1"], gaps={13, 14})
    tiles[14] = TileObs(tiles[14].box, "F1", 0.5, [("N", 0.45)])
    g = MeldGrouper()(tiles)
    assert g.codes[14] == "F1" and "F1" in g.hand and not any("read as" in n for n in g.notes)


def test_a_concealed_tile_whose_alternative_is_a_flower_leaves_the_hand_for_the_bonus_tiles():
    # a flower read as 9m among the concealed tiles: 15 tiles, no win
    codes = WIN[:9] + ["9m"] + WIN[9:]
    tiles = row(codes, gaps={14})
    tiles[9] = TileObs(tiles[9].box, "9m", 0.5, [("F1", 0.35)])
    g = MeldGrouper()(tiles)
    assert g.codes[9] == "F1" and 9 in g.needs_confirmation
    assert "tile 10 read as F1 (not 9m) to make a winning hand" in g.notes
    assert [x["tiles"] for x in g.groups if x["kind"] == "bonus"] == [[9]]
    assert MeldGrouper._wins(g.hand) and "F1" in g.hand.split()
    # not a flower the hand holds already (a set has one of each)
    tiles = row(codes + ["F1"], gaps={14, 15})
    tiles[9] = TileObs(tiles[9].box, "9m", 0.5, [("F1", 0.35)])
    g = MeldGrouper()(tiles)
    assert g.codes[9] == "9m" and not any("read as" in n for n in g.notes)
    # nor the winning tile set apart at the end (the hand has one), nor a tile of a claimed set
    tiles = row(WIN + ["N"], gaps={14})
    tiles[14] = TileObs(tiles[14].box, "N", 0.5, [("F2", 0.4)])
    g = MeldGrouper()(tiles)
    assert g.codes[14] == "N" and g.winning == 14 and not any("read as" in n for n in g.notes)
    claimed = ["1m", "2m", "3m", "9m"] + WIN[3:]
    tiles = row(claimed, gaps={4, 14}, sideways={0})
    tiles[2] = TileObs(tiles[2].box, "3m", 0.5, [("F3", 0.4)])  # a tile of the claimed chow stays in it
    g = MeldGrouper()(tiles)
    assert g.codes[2] == "3m"
    # a tile touching the claimed chow but no part of it is concealed: its flower reading may make the win
    tiles = row(claimed, gaps={4, 14}, sideways={0})
    tiles[3] = TileObs(tiles[3].box, "9m", 0.5, [("F3", 0.4)])
    g = MeldGrouper()(tiles)
    assert g.codes[3] == "F3" and g.hand.startswith("[123m]") and MeldGrouper._wins(g.hand)


def test_a_tile_read_a_fifth_time_never_takes_a_flower_for_its_alternative():
    codes = ["9m"] * 4 + ["1m", "2m", "3m", "4p", "5p", "6p", "E", "E", "E", "9m", "F2"]
    tiles = row(codes, gaps={13, 14})
    tiles[13] = TileObs(tiles[13].box, "9m", 0.5, [("F2", 0.4)])  # F2 is held: a second would be no set
    g = MeldGrouper()(tiles)
    assert g.codes[13] == "9m" and 13 in g.needs_confirmation and g.hand.count("F2") == 1
    assert "5 tiles read 9m: a set has four; check them" in g.notes


def test_the_winning_tile_set_apart_stays_where_it_is_when_tiles_move_between_concealed_and_bonus():
    from mjcam.vision.group import _regrouped

    groups = [{"tiles": [0, 1, 2], "melded": False, "kind": "concealed"},
              {"tiles": [3], "melded": False, "kind": "bonus"}]
    codes = ["1m", "F1", "E", "2m"]  # tile 1 now a flower, tile 3 a tile of the hand
    out = _regrouped(groups, codes, None)
    assert {g["kind"]: g["tiles"] for g in out} == {"concealed": [0, 2, 3], "bonus": [1]}
    out = _regrouped(groups, ["1m", "2m", "F1", "F3"], 2)  # tile 2, the winning tile, stays concealed
    assert {g["kind"]: g["tiles"] for g in out} == {"concealed": [0, 1, 2], "bonus": [3]}
    assert groups[0]["tiles"] == [0, 1, 2]  # the groups given are left as they were


def test_a_lone_tile_at_the_end_read_as_a_flower_is_the_winning_tile_once_read_as_a_tile():
    codes = WIN[:13] + ["N"]
    tiles = row(codes, gaps={13})
    tiles[13] = TileObs(tiles[13].box, "F1", 0.5, [("N", 0.4)])
    g = MeldGrouper()(tiles)
    assert g.codes[13] == "N" and g.winning == 13 and not g.winning_guessed
    assert g.hand == MeldGrouper()(row(codes, gaps={13})).hand
    assert not any(n.startswith("no tile set apart as the winning tile") for n in g.notes)


def test_a_proposed_winning_tile_read_as_a_flower_gives_way_to_the_tile_before_it():
    # no tile set apart: the last concealed tile is proposed as the winning tile, and is a flower
    tiles = row(WIN + ["9m"])
    tiles[14] = TileObs(tiles[14].box, "9m", 0.5, [("F1", 0.4)])
    g = MeldGrouper()(tiles)
    assert g.codes[14] == "F1" and "F1" in g.hand.split() and MeldGrouper._wins(g.hand)
    assert g.winning == 13 and g.winning_guessed and g.hand.endswith("+N")


def test_a_hand_two_tiles_off_a_win_takes_both_alternatives():
    tiles = row(WIN, gaps={13})
    tiles[1] = TileObs(tiles[1].box, "5m", 0.6, [("2m", 0.3)])
    tiles[7] = TileObs(tiles[7].box, "3s", 0.83, [("8s", 0.16)])  # neither change alone makes a win
    g = MeldGrouper()(tiles)
    assert g.codes[1] == "2m" and g.codes[7] == "8s" and {1, 7} <= set(g.needs_confirmation)
    assert g.hand == MeldGrouper()(row(WIN, gaps={13})).hand
    assert "tile 2 read as 2m (not 5m) to make a winning hand" in g.notes
    assert "tile 8 read as 8s (not 3s) to make a winning hand" in g.notes
    # one of the two tiles sure of its reading: no win within reach, nothing changed
    tiles[7] = TileObs(tiles[7].box, "3s", 0.97, [("8s", 0.02)])
    g = MeldGrouper()(tiles)
    assert g.codes[1] == "5m" and g.codes[7] == "3s" and not any("read as" in n for n in g.notes)


def test_a_very_sure_tile_is_not_changed_to_make_a_win(monkeypatch):
    import mjcam.vision.group as group

    tiles = row(WIN, gaps={13})
    tiles[2] = TileObs(tiles[2].box, "4m", 0.97, [("3m", 0.02)])
    g = MeldGrouper()(tiles)
    assert g.codes[2] == "4m" and not MeldGrouper._wins(g.hand) and not any("read as" in n for n in g.notes)
    # the likelihood ratio keeps it even with no floor on the alternative's probability
    monkeypatch.setattr(group, "ALT_MIN", 0.0)
    assert group.FIX_RATIO > 0.02 / 0.97
    g = MeldGrouper()(tiles)
    assert g.codes[2] == "4m" and not any("read as" in n for n in g.notes)
    tiles[2] = TileObs(tiles[2].box, "4m", 0.6, [("3m", 0.08)])  # a ratio of 0.13: changed
    g = MeldGrouper()(tiles)
    assert g.codes[2] == "3m" and "tile 3 read as 3m (not 4m) to make a winning hand" in g.notes


def test_a_change_that_makes_a_fifth_of_a_tile_is_not_chosen():
    # a concealed kong of 5p: 34p with a 5p would win, but a fifth 5p is no set's
    codes = ["5p", "5p", "5p", "5p", "1m", "2m", "3m", "3p", "4p", "7p", "7s", "8s", "9s", "N", "N"]
    tiles = row(codes, gaps={4, 14}, backs={0, 3})
    X = 9
    tiles[X] = TileObs(tiles[X].box, "7p", 0.45, [("5p", 0.4), ("2p", 0.15)])
    g = MeldGrouper()(tiles)
    assert any(grp["kind"] == "concealed_kong" for grp in g.groups)
    assert g.codes[X] == "2p" and MeldGrouper._wins(g.hand)
    assert "tile 10 read as 2p (not 7p) to make a winning hand" in g.notes
    tiles[X] = TileObs(tiles[X].box, "7p", 0.45, [("5p", 0.4)])  # no other reading: left as read
    g = MeldGrouper()(tiles)
    assert g.codes[X] == "7p" and X in g.needs_confirmation and not any("read as" in n for n in g.notes)


def test_a_fifth_of_a_tile_is_never_proposed_whatever_the_win_check_says(monkeypatch):
    codes = ["5p", "5p", "5p", "5p", "1m", "2m", "3m", "3p", "4p", "7p", "7s", "8s", "9s", "N", "N"]
    tiles = row(codes, gaps={4, 14}, backs={0, 3})
    tiles[9] = TileObs(tiles[9].box, "7p", 0.45, [("5p", 0.4)])
    # a lenient check (any reading without 7p wins): the limit of four is kept by the grouping itself
    monkeypatch.setattr(MeldGrouper, "_wins", staticmethod(lambda text: "7p" not in text))
    g = MeldGrouper()(tiles)
    assert g.codes[9] == "7p" and not any("read as" in n for n in g.notes)
    tiles[9] = TileObs(tiles[9].box, "7p", 0.45, [("5p", 0.4), ("6p", 0.3)])
    g = MeldGrouper()(tiles)
    assert g.codes[9] == "6p" and "tile 10 read as 6p (not 7p) to make a winning hand" in g.notes


def test_a_flower_read_twice_is_still_resolved_and_the_win_fixed_beside_it():
    tiles = row(WIN + ["F2", "F2"], gaps={13, 14})
    tiles[14] = TileObs(tiles[14].box, "F2", 0.95, [])
    tiles[15] = TileObs(tiles[15].box, "F2", 0.5, [("S1", 0.3), ("4m", 0.15)])
    tiles[2] = TileObs(tiles[2].box, "4m", 0.5, [("3m", 0.3)])
    g = MeldGrouper()(tiles)
    assert g.codes[14] == "F2" and g.codes[15] == "S1" and {14, 15, 2} <= set(g.needs_confirmation)
    assert "tile 16 read as S1 (not F2): a set has one F2" in g.notes
    assert g.codes[2] == "3m" and "tile 3 read as 3m (not 4m) to make a winning hand" in g.notes
    assert MeldGrouper._wins(g.hand) and "F2 S1" in g.hand


def test_a_winning_reading_nearly_as_likely_as_the_one_chosen_flags_its_tiles_too():
    tiles = row(WIN, gaps={13})
    tiles[2] = TileObs(tiles[2].box, "4m", 0.5, [("3m", 0.45)])  # 124m: 3m makes 123m (ratio 0.9)
    tiles[0] = TileObs(tiles[0].box, "1m", 0.81, [("3m", 0.17)])  # ... and 3m here 234m (ratio 0.21)
    g = MeldGrouper()(tiles)
    assert g.codes[2] == "3m" and g.codes[0] == "1m" and g.needs_confirmation == [2]
    assert not any("nearly as likely" in n for n in g.notes)
    tiles[2] = TileObs(tiles[2].box, "4m", 0.5, [("3m", 0.16)])  # ratio 0.32: within a factor of 2
    g = MeldGrouper()(tiles)
    assert g.codes[2] == "3m" and g.codes[0] == "1m" and g.needs_confirmation == [0, 2]
    assert "tile 3 read as 3m (not 4m) to make a winning hand" in g.notes
    assert "another winning reading is nearly as likely: tile 1 as 3m (not 1m); the tiles of both are " \
           "marked ?: check them" in g.notes


def test_the_search_for_a_winning_reading_is_bounded(monkeypatch):
    from mjcam.vision.group import FIX_MOST

    calls = []
    wins = MeldGrouper._wins
    monkeypatch.setattr(MeldGrouper, "_wins", staticmethod(lambda text: calls.append(text) or wins(text)))
    # every tile doubtful with two alternatives, none of which makes a win
    codes = ["2m", "5m", "8m", "2p", "5p", "8p", "2s", "5s", "8s", "E", "S", "W", "N", "Rd"]
    tiles = row(codes, gaps={13})
    tiles = [TileObs(t.box, t.code, 0.5, [("Wd", 0.2), ("9s", 0.2)]) for t in tiles]
    g = MeldGrouper()(tiles)
    assert not any("to make a winning hand" in n for n in g.notes)
    assert FIX_MOST < 2 * len(codes) and FIX_MOST < len(calls) <= 1 + FIX_MOST + FIX_MOST * (FIX_MOST - 1) // 2


def test_tiles_set_apart_are_listed_with_the_strays_and_leave_the_hand_as_it_is():
    """A tile the layout sets apart (cut off by the photo's edge, or doubted by both networks) is
    not judged as part of any row: the hand is grouped as if it were not there, the tile is
    listed with the strays, each reason in a group of its own (so that a person can put those
    of one back), and a note for each says how many and why."""
    from mjcam.vision.group import TileObs as Obs
    from mjcam.vision.recognition import TileRead
    from mjcam.vision.stages import HandGrouper, HandProposer, LaidOutTiles, RecognizerConfig

    codes = "1m 2m 3m 4m 5m 6m 7m 8m 9m E E E S S".split()
    row = [Obs((31 * i, 0, 31 * i + 30, 40), c) for i, c in enumerate(codes)]
    extra = [Obs((31 * 14, 0, 31 * 14 + 30, 40), "Wd"), Obs((100, -45, 130, -5), "N")]  # in the row, above it
    wall = [Obs((31 * i, 300, 31 * i + 30, 340), "back") for i in range(4)]  # far off: away from the hand
    grouper = HandGrouper(RecognizerConfig())
    alone = grouper(LaidOutTiles(row + wall, wide=False, down=None))
    grouped = grouper(LaidOutTiles(row + extra + wall, wide=False, down=None, apart={14: "cut off", 15: "doubted"}))
    assert grouped.guess.hand == alone.guess.hand and len(grouped.guess.order) == 14
    assert sorted(grouped.strays) == [14, 15, 16, 17, 18, 19] and grouped.apart == {14: "cut off", 15: "doubted"}
    tiles = [TileRead(o.code, 0.9, o.box) for o in row + extra + wall]
    listed = [tiles[i] for i in grouped.order]
    groups, notes = HandProposer._groups(listed, grouped)
    strays = {g["why"]: [listed[p].code for p in g["tiles"]] for g in groups if g["kind"] == "stray"}
    assert strays == {"away": ["back"] * 4, "cut off": ["Wd"], "doubted": ["N"]}
    assert "4 tiles away from the hand (behind it, or in a wall) are left out of it" in notes
    assert "1 tile cut off by the edge of the photo is left out of the hand" in notes
    assert any(n.startswith("1 tile that neither the detector nor the reader is sure of") for n in notes)
    # a box at the row's end twice as long as the tiles beside it: left out as too large
    big = Obs((31 * 14, 0, 31 * 14 + 80, 40), "Wd")
    grouped = grouper(LaidOutTiles(row + [big] + wall, wide=False, down=None))
    assert grouped.guess.hand == alone.guess.hand and grouped.apart == {14: "too large"}
    tiles = [TileRead(o.code, 0.9, o.box) for o in row + [big] + wall]
    listed = [tiles[i] for i in grouped.order]
    groups, notes = HandProposer._groups(listed, grouped)
    strays = {g["why"]: [listed[p].code for p in g["tiles"]] for g in groups if g["kind"] == "stray"}
    assert strays == {"away": ["back"] * 4, "too large": ["Wd"]}
    assert any(n.startswith("1 tile far longer along the row than the tiles beside it") for n in notes)


def test_the_layout_sets_apart_a_tile_the_photos_edge_cuts_off_and_has_a_cut_tile_read_surely_checked():
    """TileLayout judges cut-off tiles on the copy's own pixels and size: a blank read at the
    edge is set apart, a tile the edge cuts off but read surely stays in the hand at a confidence
    a person checks, and a whole tile at the edge is as read."""
    import numpy as np

    from mjcam.vision.locate import Proposal
    from mjcam.vision.stages import ReadTiles, RecognizerConfig, TileLayout, TileReading

    boxes = [(10 + 40 * i, 50, 46 + 40 * i, 100) for i in range(6)]  # six whole tiles
    boxes += [(385, 55, 400, 100), (0, 150, 15, 195)]  # two cut off by the right and the left edge
    boxes += [(100, 150, 136, 200)]  # a whole tile touching the bottom edge
    codes = ["1m", "2m", "3m", "4m", "5m", "6m", "Wd", "9p", "3s"]
    read = ReadTiles([TileReading(Proposal(b, 0.9, "learned"), c, 0.95, [], 0.0) for b, c in zip(boxes, codes)])
    laid = TileLayout(None, RecognizerConfig())(np.zeros((200, 400, 3), np.uint8), read)
    assert laid.apart == {6: "cut off"}
    low = RecognizerConfig().low_confidence
    assert laid.tiles[7].confidence < low <= min(laid.tiles[5].confidence, laid.tiles[8].confidence)
