"""When a reading may be scored without a person (vision.trust), and how batch and photo say so."""

import csv
import json
import os
import sys

import pytest

from mjcam.cli import main
from mjcam.vision.pipeline import Recognition, TileRead
from mjcam.vision.trust import check

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = os.path.join(ROOT, "samples")
BOX = (0.0, 0.0, 1.0, 1.0)


def reading(codes, doubtful=None, bonus=(), winning=None, guessed=True, melded=(), kong=None):
    """A Recognition of concealed tiles ``codes`` (then bonus tiles), with ``doubtful``:
    {position: (confidence, [(alternative, probability)])}; ``melded``: sets of positions."""
    doubtful = doubtful or {}
    allc = list(codes) + list(bonus)
    tiles = [TileRead(c, doubtful.get(i, (0.99, []))[0], BOX, doubtful.get(i, (0.99, [("1m", 0.001)]))[1])
             for i, c in enumerate(allc)]
    in_sets = {p for m in melded for p in m} | set(kong or ())
    groups = [{"tiles": list(m), "melded": True, "kind": "pung" if len(set(allc[p] for p in m)) == 1 else "chow"}
              for m in melded]
    if kong:
        groups.append({"tiles": list(kong), "melded": False, "kind": "concealed_kong"})
    groups.append({"tiles": [i for i in range(len(codes)) if i not in in_sets], "melded": False, "kind": "concealed"})
    if bonus:
        groups.append({"tiles": list(range(len(codes), len(allc))), "melded": False, "kind": "bonus"})
    winning = len(codes) - 1 if winning is None else winning
    from mjcam.vision.trust import _hand_text

    hand = _hand_text(groups, allc, winning)
    return Recognition(None, 100, 100, tiles, groups, hand, [], [], winning, winning_guessed=guessed)


HALF_FLUSH = "1p 2p 3p 4p 5p 6p 7p 8p 9p S S S Rd Rd".split()


def test_a_sure_reading_is_scored_without_a_person():
    t = check(reading(HALF_FLUSH, bonus=["F1"]))
    assert t.auto and not t.doubts and t.score.legal


def test_an_alternative_paid_differently_needs_a_person_and_says_both_scores():
    rec = reading(HALF_FLUSH, {14: (0.6, [("F2", 0.3)])}, bonus=["F1"])
    t = check(rec, seat="E")  # F1 is East's flower, F2 is not
    assert not t.auto and t.doubts[0].tile == 14 and t.doubts[0].other == "F2"
    assert "tile 15: F1 (60%), or F2 (30%)" in t.doubts[0].message
    assert t.doubts[0].scores == ("5 fan, 16 points", "4 fan, 16 points")


def test_flowers_set_apart_from_the_hand_need_a_person_where_they_change_the_score():
    rec = reading(HALF_FLUSH)
    rec.tiles.append(TileRead("F1", 0.99, BOX, [("1m", 0.001)]))  # East's flower, left out as away from the hand
    rec.groups.append({"tiles": [14], "melded": False, "kind": "stray"})
    assert check(rec, seat="E").auto  # East's own flower for no flowers: paid the same either way
    t = check(rec, seat="S")
    assert not t.auto and [(d.kind, d.tile, d.code) for d in t.doubts] == [("tiles", 14, "F1")]
    assert t.doubts[0].message.startswith("F1 set apart from the hand: ") and "with it in the hand" in t.doubts[0].message
    assert t.doubts[0].hand.endswith(" F1") and t.doubts[0].scores[0] != t.doubts[0].scores[1]
    # bonus tiles not in play, or a flower already in the hand (a second copy is no reading): no doubt
    assert check(rec, seat="S", flowers_in_play=False).auto
    held = reading(HALF_FLUSH, bonus=["F1"])
    held.tiles.append(TileRead("F1", 0.99, BOX, [("1m", 0.001)]))
    held.groups.append({"tiles": [15], "melded": False, "kind": "stray"})
    assert check(held, seat="S").auto


def test_winning_tiles_that_pay_alike_make_one_doubt():
    # nine gates won on 4m; any other tile taken as the winning one is a plain full flush
    rec = reading("1m 1m 1m 2m 3m 4m 5m 6m 7m 8m 9m 9m 9m 4m".split())
    t = check(rec, seat="S")
    winning = [d for d in t.doubts if d.kind == "winning"]
    assert len(winning) == 1 and not t.auto
    assert "with +4m a limit hand, " in winning[0].message and "+1m, +2m, +3m, +5m, +6m, +7m, +8m or +9m: " in winning[0].message
    marked = winning[0].to_json()["tiles"]  # every tile it names is marked to check, not the first alone
    assert len(marked) == 8 and sorted({rec.tiles[p].code for p in marked}) == [
        "1m", "2m", "3m", "5m", "6m", "7m", "8m", "9m"]


def test_an_unlikely_alternative_is_no_doubt():
    rec = reading(HALF_FLUSH, {14: (0.9, [("F2", 0.05)])}, bonus=["F1"])  # 0.05 / 0.9 is under PLAUSIBLE
    assert check(rec, seat="E").auto


def test_an_alternative_that_makes_no_complete_hand_is_no_contender():
    # the 5p could be a 5s (40 %), but then the tiles make no winning hand: a photo shows a declared win
    assert check(reading(HALF_FLUSH, {4: (0.55, [("5s", 0.40)])})).auto


def test_a_toss_up_needs_a_person_even_when_paid_the_same():
    # 6p or 9p: 123p 456p 789p or 123p 456p 678p + 6p ... both win, same score, but which is it?
    codes = "1p 2p 3p 4p 5p 6p 7p 8p 9p S S S Rd Rd".split()
    rec = reading(codes, {8: (0.53, [("6p", 0.31)])})
    t = check(rec, seat="S")
    assert not t.auto and t.doubts[0].kind == "toss-up" and "either way" in t.doubts[0].message
    assert check(rec, seat="S", toss_up=99).auto  # without the toss-up rule it would be scored


def test_the_winning_tile_guess_needs_a_person_only_when_the_choice_is_paid_differently():
    codes = "1m 1m 1m 5p 5p 5p 9s 9s 9s E E E 7m 7m".split()
    assert check(reading(codes)).auto  # self-drawn: whichever tile completed the hand, the same
    t = check(reading(codes), discarder="S")  # on a discard, a pung completed by it is no concealed pung
    kinds = {d.kind for d in t.doubts}
    if not t.auto:
        assert kinds == {"winning"} and "not set apart" in t.doubts[0].message
    assert check(reading(codes, guessed=False), discarder="S").auto  # set apart: no choice to make


def test_no_hand_no_win_a_bonus_twice_and_a_face_up_kong_need_a_person():
    assert not check(Recognition(None, 1, 1, [], [], None, [])).auto
    assert not check(reading("1m 2m 3m 4p 5p 6p 7s 8s 9s E E E N W".split())).auto  # no win
    assert "twice" in check(reading(HALF_FLUSH, bonus=["F1", "F1"])).doubts[0].message
    codes = "2m 2m 2m 2m 5p 5p 5p 9s 9s 9s E E E 7m 7m".split()
    t = check(reading(codes, kong=[0, 1, 2, 3]))
    assert not t.auto and "face up" in t.doubts[0].message


@pytest.mark.parametrize("photo, truth", [
    ("hand-bonus.jpg", "12345678p SSS RdRd F2 S1 +9p"),
    ("hand-honours.jpg", "19m 19p 119s E S W Rd Gd Wd +N"),
    ("hand-pungs.jpg", "888m 777p 666s RdRd GdGd +Gd"),
])
@pytest.mark.parametrize("seat", ["E", "S"])
def test_a_sample_read_wrong_is_never_scored_without_a_person(photo, truth, seat):
    from mjcam.expected import same_hand
    from mjcam.vision.pipeline import recognize

    rec = recognize(os.path.join(SAMPLES, photo))
    t = check(rec, seat=seat)
    assert same_hand(rec.hand, truth) or not t.auto, (rec.hand, [d.message for d in t.doubts])


def test_photo_says_whether_a_person_should_check(capsys):
    code = main(["photo", os.path.join(SAMPLES, "hand-bonus.jpg"), "--yes", "--seat", "S", "--json"])
    out, err = capsys.readouterr()
    d = json.loads(out)
    assert code == 0 and {"auto", "doubts"} <= set(d["trust"])
    if not d["trust"]["auto"]:
        assert "check tile" in err and "a person should check" in err
    else:
        assert "sure: no likely misreading" in err


def test_batch_prints_the_shares_and_checks_against_expected_hands(tmp_path, capsys):
    import shutil

    folder = tmp_path / "photos"
    folder.mkdir()
    for name in ("hand-honours.jpg", "hand-pungs.jpg", "hand-bonus.jpg"):
        shutil.copy(os.path.join(SAMPLES, name), folder / name)
    expected = tmp_path / "hands.csv"
    with open(expected, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["photo", "hand"])
        w.writerow(["hand-honours.jpg", "19m 19p 119s E S W Rd Gd Wd +N"])
        w.writerow(["hand-pungs.jpg", "888m 777p 666s Rd GdGdGd +Rd"])
        w.writerow(["hand-bonus.jpg", "12345678p SSS RdRd F2 S1 +9p"])
    out = tmp_path / "run.jsonl"
    assert main(["batch", str(folder), "--out", str(out), "--expected", str(expected)]) == 0
    err = capsys.readouterr().err
    assert "scored without a person (" in err and "of those read" in err
    assert "checked against 3 expected hands" in err and "wrong among those scored without a person: 0 of" in err
    recs = {os.path.basename(r["path"]): r for r in map(json.loads, out.read_text().splitlines())}
    assert all(isinstance(r["check"], list) and r["needs_person"] == bool(r["check"]) for r in recs.values())
    bad = tmp_path / "bad.csv"
    bad.write_text("photo,hand\nx.jpg,eee\n")
    assert main(["batch", str(folder), "--out", str(out), "--expected", str(bad)]) == 2
    assert "bad.csv:2: unknown tile" in capsys.readouterr().err


def test_batch_dask_without_dask_is_one_line_and_leaves_no_file(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "dask.distributed", None)  # as if the extra were not installed
    out = tmp_path / "run.jsonl"
    assert main(["batch", os.path.join(SAMPLES, "hand-pungs.jpg"), "--out", str(out), "--dask", "local"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'mjcam[dask]'" in err
    assert not out.exists()


def test_expected_hands_are_checked_when_read_from_json_or_csv(tmp_path):
    from mjcam.expected import ExpectedError, read_expected

    good = tmp_path / "good.json"
    good.write_text(json.dumps({"a.jpg": "[RdRdRd] [123s] [999s] 45s NN +6s", "b.jpg": ""}))
    assert read_expected(str(good))["b.jpg"] == ""
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"a.jpg": "RdRdRd 12x"}))
    with pytest.raises(ExpectedError, match="bad.json"):
        read_expected(str(bad))
    nameless = tmp_path / "nameless.csv"
    nameless.write_text("photo,hand\n,123m\n")
    with pytest.raises(ExpectedError, match="no photo named"):
        read_expected(str(nameless))


def test_batch_walks_every_picture_format_the_loader_reads(tmp_path):
    from mjcam.batch import find_photos

    for ext in ("jpg", "tif", "bmp", "gif", "avif", "txt"):
        (tmp_path / f"p.{ext}").write_bytes(b"x")
    assert sorted(os.path.splitext(p)[1] for p in find_photos([str(tmp_path)])) == [
        ".avif", ".bmp", ".gif", ".jpg", ".tif"]
