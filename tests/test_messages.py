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


def test_a_digit_without_a_suit_leads_with_the_honour_codes_of_the_readme(capsys):
    assert main(["score", "123m 45x"]) == 2
    err = capsys.readouterr().err
    assert "honours are E S W N Rd Gd Wd, or 1z to 7z" in err and "z for honours" not in err
    assert main(["score", "123m 456m 789m 123p 5z +5z"]) == 1  # (z is still taken: read, below the minimum)
    assert "error" not in capsys.readouterr().err


def _photo_reading(monkeypatch, codes):
    """``mjcam photo`` reads ``codes`` (concealed tiles, the last the winning one) from any photo."""
    import mjcam.cli
    from mjcam.service import Reading

    tiles = [TileRead(c, 0.99, (40 * i, 0, 40 * i + 38, 50)) for i, c in enumerate(codes)]
    concealed = " ".join(codes[:-1]) + " +" + codes[-1]
    rec = Recognition("hand.jpg", 800, 60, tiles, [{"tiles": list(range(len(codes))), "melded": False,
                                                    "kind": "concealed"}], concealed, [], winning=len(codes) - 1)
    monkeypatch.setattr(mjcam.cli, "read_photo", lambda path, annotate=None: Reading(None, rec))


def test_a_hand_read_that_is_no_win_is_said_plainly_once(monkeypatch, capsys):
    import io

    # 14 tiles that make no winning hand: said in one clause, its reason in brackets
    _photo_reading(monkeypatch, "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 3p 5p 5p 5p".split())
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["photo", "hand.jpg"]) == 2
    out, err = capsys.readouterr()
    assert ("  check the hand: the proposed hand is not a winning hand (the tiles do not make four sets and a pair"
            in out) and "paying win" not in out and "hand: the proposed hand is not a winning hand:" not in out
    # standard input closed at the prompt: the error starts on a line of its own
    assert out.endswith("type the hand: \n") and err.startswith("mjcam: error: no answer on standard input")
    # 15 tiles: the hand cannot be scored as it stands, said once, with why
    _photo_reading(monkeypatch, "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 2p 3p 5p 5p 5p".split())
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["photo", "hand.jpg"]) == 2
    out = capsys.readouterr().out
    assert out.count("cannot be scored") == 1 and "cannot be scored as it stands: a winning hand has 14 tiles" in out


def test_a_limit_hand_is_called_one_in_a_check_line():
    from mjcam.vision.trust import _words
    from mjcam.service import score_hand

    r = score_hand("1m 1m 1m 2m 3m 4m 5m 6m 7m 8m 9m 9m 9m +4m", "hk-old-style")
    assert r.limit and _words(r).startswith("a limit hand, ")


def test_a_photo_with_no_tiles_says_nothing_of_its_light(tmp_path, capsys):
    import numpy as np
    from PIL import Image

    Image.fromarray(np.full((300, 400, 3), 30, np.uint8)).save(tmp_path / "blank.jpg")
    assert main(["recognize", str(tmp_path / "blank.jpg")]) == 0
    out = capsys.readouterr().out
    assert "no tiles found" in out and "bright" not in out and "dark" not in out


def test_a_hand_refused_whole_still_lists_its_unsure_tiles(monkeypatch, capsys):
    import io

    import mjcam.cli
    from mjcam.service import Reading

    # no winning hand, and one tile read unsurely: the tile is listed for checking as it was read
    codes = "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 3p 5p 5p 5p".split()
    tiles = [TileRead(c, 0.99, (40 * i, 0, 40 * i + 38, 50)) for i, c in enumerate(codes)]
    tiles[10] = TileRead("3p", 0.55, (400, 0, 438, 50), [("3p", 0.55), ("2p", 0.4)])
    rec = Recognition("hand.jpg", 800, 60, tiles, [{"tiles": list(range(14)), "melded": False, "kind": "concealed"}],
                      " ".join(codes[:-1]) + " +5p", [10], winning=13)
    monkeypatch.setattr(mjcam.cli, "read_photo", lambda path, annotate=None: Reading(None, rec))
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["photo", "hand.jpg"]) == 2
    out = capsys.readouterr().out
    assert "  check tile 11: 3p (55%; or 2p 40%)" in out and "check the hand: the proposed hand is not a winning" in out
    # a hand that is weighed lists its tiles through the verdict only: no tile line twice
    assert out.count("tile 11") == 1
