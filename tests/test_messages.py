"""What the reader says to a player: counts in the singular and the plural, no empty "or", no
jargon, a position named only where there is one."""

from mjcam.cli import main
from mjcam.vision.group import TileObs
from mjcam.vision.recognition import Recognition, TileRead
from mjcam.vision.structure import Layout, read_structure
from mjcam.vision.trust import check


def test_a_tile_to_check_with_no_alternative_names_none():
    rec = Recognition(None, 10, 10, [TileRead("5m", 0.6, (0, 0, 1, 1)),
                                     TileRead("6m", 0.7, (1, 0, 2, 1), [("8m", 0.2)])], [], None, [0, 1])
    assert rec.doubts() == ["tile 1: 5m (60%)", "tile 2: 6m (70%; or 8m 20%)"]


def test_no_complete_hand_is_said_as_a_player_would_and_names_no_position():
    rec = Recognition(None, 10, 10, [TileRead("5m", 0.99, (0, 0, 1, 1))], [], None, [])
    d = check(rec).doubts[0]
    assert d.kind == "hand" and d.tile is None and d.message == "the tiles read make no complete hand"


def test_one_face_down_tile_left_out_is_said_in_the_singular():
    row = [TileObs((31 * i, 0, 31 * i + 30, 40), c) for i, c in enumerate("123m 456m 789m 123p 55p".replace(" ", ""))]
    codes = "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 2p 3p 5p 5p".split()
    seen = [TileObs(t.box, c) for t, c in zip(row, codes)] + [TileObs((31 * 20, 100, 31 * 20 + 30, 140), "back",
                                                                      orientation="face-down")]
    codes.append("back")
    lay = Layout(codes, seen, [list(range(14)), [14]], [[list(range(14))], [[14]]], 0)
    notes = read_structure(lay).notes
    assert "1 face-down tile that makes no kong is left out of the hand" in notes
    assert not any("(s)" in n for n in notes)


def test_waits_counts_one_tile_in_the_singular(capsys):
    assert main(["waits", "123m 456m 789m 234p 5p"]) == 0
    assert "waits on 2 tiles" in capsys.readouterr().out
    assert main(["waits", "123m 456m 789m 111p 5p"]) == 0
    out = capsys.readouterr().out
    assert "waits on 1 tile under" in out and "(s)" not in out
