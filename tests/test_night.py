"""A night's saved photos from the command line: each photo's own situation, a person's hands,
one current record per photo in every output kind, an empty input, and the evening's game built
into the table app's ledger (hands left out until confirmed, then added in their place)."""

import csv
import json
import os
import shutil
import sqlite3

import pytest

from mjcam.batch import current, open_output
from mjcam.cli import main
from mjcam.ledger import Ledger
from mjcam.night import photo_time, taken_order
from mjcam.service import WinFlags, score_hand
from mjcam.sheets import Sheet, SheetError, save_correction

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = os.path.join(ROOT, "samples")
PLAYERS = "Ann,Bob,Cat,Dan"
# what a person says hand-layout.jpg shows (the reader's hand is below the minimum)
PERSON = "[RdRdRd] [123s] [999s] 45s NN +6s"


@pytest.fixture
def night(tmp_path):
    d = tmp_path / "photos"
    d.mkdir()
    for name in ("hand-bonus.jpg", "hand-honours.jpg", "hand-layout.jpg", "hand-pungs.jpg"):
        shutil.copy(os.path.join(SAMPLES, name), d / name)
    (tmp_path / "sit.csv").write_text("photo,winner,discarder,flags\n"
                                      "hand-honours.jpg,S,W,\n"
                                      "hand-pungs.jpg,N,,last-tile\n")
    return tmp_path


def _records(path):
    output = open_output(str(path))
    try:
        return output.records()
    finally:
        output.close()


def _by_name(records):
    return {os.path.basename(r["path"]): r for r in current(records)}


def test_each_photo_scored_with_its_own_situation_and_the_persons_hand(night, capsys):
    (night / "fix.csv").write_text(f"photo,hand\nhand-layout.jpg,{PERSON}\n")
    out = night / "r.jsonl"
    assert main(["batch", str(night / "photos"), "--out", str(out), "--situations", str(night / "sit.csv"),
                 "--corrections", str(night / "fix.csv"), "--seat", "W"]) == 0
    recs = _by_name(_records(out))
    honours, pungs, layout, bonus = (recs[n] for n in ("hand-honours.jpg", "hand-pungs.jpg", "hand-layout.jpg",
                                                       "hand-bonus.jpg"))
    # each as mjcam score pays it, with its own winner and way of winning
    assert honours["payments"] == score_hand(honours["hand"], "hk-old-style", WinFlags(seat="S", discarder="W")).payments
    assert honours["payments"]["S"] > 0 and honours["payments"]["W"] < 0 and honours["given"]["winner"] == "S"
    want = score_hand(pungs["hand"], "hk-old-style", WinFlags(seat="N", last_tile=True))
    assert pungs["payments"] == want.payments and pungs["situation"]["last_tile"]
    assert bonus["situation"]["seat"] == "W" and bonus["payments"]["W"] > 0  # not listed: the command line's
    assert layout["confirmed"] and layout["hand"] == PERSON and not layout["needs_person"]
    assert layout["status"] == "scored" and layout["proposed"] != PERSON
    assert layout["payments"] == score_hand(PERSON, "hk-old-style", WinFlags(seat="W")).payments
    assert not honours["confirmed"]
    assert "1 from a person's hand" in capsys.readouterr().err


def test_a_new_row_supersedes_the_record_without_reading_again(night, capsys):
    out = night / "r.jsonl"
    assert main(["batch", str(night / "photos"), "--out", str(out)]) == 0
    lines = len(out.read_text().splitlines())
    (night / "fix.csv").write_text(f"photo,hand,winner,discarder\nhand-layout.jpg,{PERSON},E,S\n")
    capsys.readouterr()
    assert main(["batch", str(night / "photos"), "--out", str(out), "--corrections", str(night / "fix.csv")]) == 0
    err = capsys.readouterr().err
    assert "3 already recorded, 0 read" in err and "1 scored again" in err
    records = _records(out)
    assert len(records) == lines + 1  # appended, the old line kept
    layout = _by_name(records)["hand-layout.jpg"]
    assert layout["confirmed"] and layout["given"] == {"winner": "E", "discarder": "S", "flags": []}
    assert layout["payments"]["S"] < 0 and sum(layout["payments"].values()) == 0
    # the same rows again change nothing
    assert main(["batch", str(night / "photos"), "--out", str(out), "--corrections", str(night / "fix.csv")]) == 0
    assert len(_records(out)) == lines + 1


@pytest.mark.parametrize("ext", ["csv", "sqlite"])
def test_one_current_record_per_photo_in_csv_and_sqlite(night, ext):
    out = night / f"r.{ext}"
    assert main(["batch", str(night / "photos"), "--out", str(out)]) == 0
    (night / "fix.csv").write_text(f"photo,hand\nhand-layout.jpg,{PERSON}\n")
    assert main(["batch", str(night / "photos"), "--out", str(out), "--corrections", str(night / "fix.csv")]) == 0
    records = _records(out)
    assert len(records) == 5 and len(current(records)) == 4
    assert _by_name(records)["hand-layout.jpg"]["confirmed"] is True
    if ext == "csv":
        rows = list(csv.DictReader(open(out, newline="", encoding="utf-8")))
        last = [r for r in rows if r["path"].endswith("hand-layout.jpg")][-1]
        assert last["confirmed"] == "1" and json.loads(last["detail"])["payments"]["E"] > 0 and last["hand"] == PERSON
    else:
        db = sqlite3.connect(out)
        rows = db.execute("SELECT path, hand FROM current_photos").fetchall()
        assert len(rows) == 4 and (str(night / "photos" / "hand-layout.jpg"), PERSON) in rows
        assert db.execute("SELECT COUNT(*) FROM photos").fetchone()[0] == 5


def test_bad_rows_and_empty_input_say_so_in_one_line(night, capsys):
    out = str(night / "r.jsonl")
    bad = {"bad-seat.csv": ("photo,winner\nhand-pungs.jpg,X\n", "bad-seat.csv:2: a seat is E, S, W or N"),
           "same.csv": ("photo,winner,discarder\nhand-pungs.jpg,S,S\n", "same.csv:2: the discarder 'S' is the winner"),
           "flag.csv": ("photo,winner,flags\nhand-pungs.jpg,S,lucky\n", "flag.csv:2: unknown flag 'lucky'"),
           "cols.csv": ("picture,winner\nx.jpg,S\n", "needs the columns photo, winner")}
    for name, (text, said) in bad.items():
        (night / name).write_text(text)
        assert main(["batch", str(night / "photos"), "--out", out, "--situations", str(night / name)]) == 2
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1, err
    (night / "hand.csv").write_text("photo,hand\nhand-pungs.jpg,123m 0p\n")
    assert main(["batch", str(night / "photos"), "--out", out, "--corrections", str(night / "hand.csv")]) == 2
    assert "hand.csv:2:" in capsys.readouterr().err
    (night / "empty").mkdir()
    assert main(["batch", str(night / "empty"), "--out", out]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mjcam: error: no photos in") and err.count("\n") == 1
    assert not os.path.exists(out)
    assert main(["batch", str(night / "photos"), "--out", out, "--game", PLAYERS]) == 2
    assert "--game and --ledger go together" in capsys.readouterr().err
    assert main(["batch", str(night / "photos"), "--out", out, "--game", "Ann,Bob", "--ledger", "x.sqlite"]) == 2
    assert "four names" in capsys.readouterr().err


def test_the_nights_game_with_a_hand_confirmed_later(night, capsys):
    out, ledger = night / "r.jsonl", night / "night.sqlite"
    (night / "sit.csv").write_text("photo,winner,discarder,flags\n"
                                   "hand-bonus.jpg,Ann,,\n"
                                   "hand-honours.jpg,Bob,Cat,\n"
                                   "hand-layout.jpg,Cat,Ann,\n"
                                   "hand-pungs.jpg,Bob,,last-tile\n")
    args = ["batch", str(night / "photos"), "--out", str(out), "--situations", str(night / "sit.csv"),
            "--game", PLAYERS, "--ledger", str(ledger)]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "game 1 in" in err and "3 hands" in err and "left out of the game until a person confirms them (1)" in err
    assert "hand-layout.jpg" in err.split("left out")[1]
    g = Ledger(str(ledger)).game(1)
    assert g["players"] == PLAYERS.split(",") and g["hands_recorded"] == 3
    # in the order taken (no EXIF time here: the file's name), the deal moving on
    assert [h["winner"] for h in g["history"]] == [0, 1, 1]
    assert [h["dealer"] for h in g["history"]] == [0, 0, 1]  # Ann keeps the deal, then Bob takes it
    assert [h["discarder"] for h in g["history"]] == [None, 2, None]
    assert g["history"][2]["flags"] == {"last_tile": True} and all(h["photo_id"] for h in g["history"])

    def agrees(g):
        """Every hand's deltas are its record's payments, seat by seat as the deal had them."""
        recs = [r for r in taken_order(current(_records(out))) if r["status"] == "scored"]
        assert len(recs) == len(g["history"])
        for r, h in zip(recs, g["history"]):
            assert [r["payments"]["ESWN"[(p - h["dealer"]) % 4]] for p in range(4)] == h["deltas"]
        assert sum(g["totals"]) == 0

    agrees(g)
    # the same run again changes nothing
    assert main(args) == 0 and "0 recorded now" in capsys.readouterr().err
    # a person confirms the layout hand: it joins the game in its place, the hand after it moves on
    (night / "fix.csv").write_text(f"photo,hand\nhand-layout.jpg,{PERSON}\n")
    assert main(args + ["--corrections", str(night / "fix.csv")]) == 0
    err = capsys.readouterr().err
    assert "4 hands" in err and "taking back the last 1" in err and "left out" not in err
    g = Ledger(str(ledger)).game(1)
    assert [h["winner"] for h in g["history"]] == [0, 1, 2, 1]
    assert [h["dealer"] for h in g["history"]] == [0, 0, 1, 2]  # Cat won off Bob's deal: it passes to her
    assert g["history"][2]["hand"] == PERSON
    agrees(g)
    pungs = _by_name(_records(out))["hand-pungs.jpg"]
    assert pungs["situation"]["seat"] == "N"  # Bob sits North once Cat deals


def test_photo_time_orders_by_exif_then_name(tmp_path):
    from PIL import Image

    def photo(name, when):
        im = Image.new("RGB", (8, 8))
        exif = Image.Exif()
        if when:
            exif.get_ifd(0x8769)[0x9003] = when
        im.save(tmp_path / name, exif=exif)
        return str(tmp_path / name)

    a = photo("a.jpg", "2024:05:01 22:10:00")
    b = photo("b.jpg", "2024:05:01 21:00:05")
    c = photo("c.jpg", None)
    assert photo_time(b) == "2024-05-01T21:00:05" and photo_time(c) is None
    assert photo_time(str(tmp_path / "missing.jpg")) is None
    ordered = taken_order([{"path": p} for p in (c, a, b)])
    assert [os.path.basename(r["path"]) for r in ordered] == ["b.jpg", "a.jpg", "c.jpg"]


def test_corrections_file_rows_are_replaced_not_repeated(tmp_path):
    from mjcam.sheets import Situation

    path = str(tmp_path / "fix.csv")
    save_correction(path, "a.jpg", "123m", None)
    save_correction(path, "b.jpg", PERSON, Situation("S", "W", ("last_tile",)))
    save_correction(path, "a.jpg", "=cmd", None)  # (a formula is kept as text)
    rows = list(csv.DictReader(open(path, encoding="utf-8")))
    assert [r["photo"] for r in rows] == ["b.jpg", "a.jpg"] and rows[1]["hand"] == "'=cmd"
    assert rows[0]["flags"] == "last-tile"
    with pytest.raises(SheetError, match="fix.csv:3: "):  # the bad hand is named by its row
        Sheet.read(path, "corrections")
    save_correction(path, "a.jpg", "", None)
    sheet = Sheet.read(path, "corrections")
    assert sheet.rows[0].situation == Situation("S", "W", ("last_tile",)) and sheet.rows[1].hand == ""
    assert json.dumps([r.photo for r in sheet.rows]) == '["b.jpg", "a.jpg"]'


def test_a_persons_hand_that_is_no_paying_win_is_said_and_listed_out_of_the_game(night, capsys):
    """A corrections hand below the minimum is no hand of the game: the progress line, the summary
    and the game's list of photos left out each say so, and why."""
    below = "123m 456p 789s 234m 5p +5p F2 S3"  # all chows on a discard: 1 fan, 3 needed
    (night / "fix.csv").write_text(f"photo,hand,winner,discarder\nhand-pungs.jpg,{below},Ann,Bob\n"
                                   "hand-bonus.jpg,,,\n")
    out, ledger = night / "r.jsonl", night / "night.sqlite"
    args = ["batch", str(night / "photos"), "--out", str(out), "--corrections", str(night / "fix.csv"),
            "--game", PLAYERS, "--ledger", str(ledger)]
    assert main(args) == 0
    err = capsys.readouterr().err
    why = "the person's hand is not a paying win (below the minimum: 3 fan needed, the hand has 1)"
    pungs = str(night / "photos" / "hand-pungs.jpg")
    assert f"not-a-win: {pungs}: {why}\n" in err  # the progress line
    assert "2 from a person's hand (2 of them no paying win)" in err  # the summary
    assert f"mjcam: note: {pungs}: {why}\n" in err
    unpaid = err.split("left out of the game as no paying win (2):\n")[1].splitlines()
    assert f"  {pungs}: {why}" in unpaid
    assert f"  {night / 'photos' / 'hand-bonus.jpg'}: a person said the photo shows no winning hand" in unpaid
    assert _by_name(_records(out))["hand-pungs.jpg"]["status"] == "not-a-win"
    # the reader's own hand below the minimum says why too, while it waits for a person
    assert "hand-layout.jpg: the hand read is not a paying win (below the minimum" in err
