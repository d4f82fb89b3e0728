"""mjcam.service, the one way from a photo to a scored hand: the win flags are defined once
(WinFlags) and the command line, batch and the table app take theirs from it; a reading's hand is
a Hand; and no function in mjcam/ is over 60 lines."""

import ast
import glob
import os
from dataclasses import fields

import pytest

from mjcam.cli import build_parser, win_flags
from mjcam.scoring import PRESET_IDS, WinContext, parse_hand, score
from mjcam.service import CONDITIONS, WinFlags, judge, read_photo, score_hand

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE = os.path.join(ROOT, "samples", "hand-layout.jpg")


def test_the_win_flags_are_the_scoring_engines_situation():
    assert [(f.name, f.default) for f in fields(WinFlags)] == [(f.name, f.default) for f in fields(WinContext)]
    assert CONDITIONS == ("last_tile", "kong_replacement", "double_kong", "robbing_kong", "heavenly", "earthly",
                          "man", "last_of_kind", "ready")


@pytest.mark.parametrize("argv", [["score", "1m"], ["waits", "1m"], ["photo", "x.jpg"], ["batch", "x", "--out", "o.jsonl"]])
def test_every_command_that_scores_takes_every_win_flag(argv):
    a = build_parser().parse_args(argv + ["--" + c.replace("_", "-") for c in CONDITIONS] +
                                  ["--discarder", "S", "--seat", "W", "--round", "N", "--dealer", "S",
                                   "--responsible", "N", "--no-flowers-in-play"])
    assert win_flags(a) == WinFlags("S", "W", "N", "S", False, *[True] * len(CONDITIONS), "N")
    assert win_flags(build_parser().parse_args(argv)) == WinFlags()


def test_the_table_app_takes_the_same_flags(tmp_path):
    from mjcam.ledger import Ledger, LedgerError

    ledger = Ledger(str(tmp_path / "g.sqlite"))
    gid = ledger.create_game(["A", "B", "C", "D"])["id"]
    hand = "[EEE] 345p [678m] [222s] 8p +8p"
    got = ledger.preview(gid, hand, 1, 2, {"last_tile": True, "responsible": 3})["score"]
    assert got == score_hand(hand, "hk-old-style", WinFlags(discarder="W", seat="S", last_tile=True,
                                                            responsible="N")).to_json()
    with pytest.raises(LedgerError):
        ledger.preview(gid, hand, 1, 2, {"thirteen_orphans": True})


@pytest.mark.parametrize("flags, house", [(WinFlags(), None), (WinFlags(discarder="N", seat="S", last_tile=True), None),
                                          (WinFlags(robbing_kong=True, discarder="W"), {"min_fan": 0, "cap": 5})])
def test_score_hand_scores_as_the_engine_does(flags, house):
    hand = "[EEE] 345p [678m] [222s] 8p F1 +8p"
    for rid in PRESET_IDS:
        want = score(hand, rid, **(house or {}), **flags.situation())
        assert score_hand(hand, rid, flags, house).to_json() == want.to_json()
        assert score_hand(parse_hand(hand), rid, flags, house).to_json() == want.to_json()


def test_a_photo_read_gives_the_recognisers_reading_and_its_hand():
    from mjcam import recognize
    from mjcam.vision.pipeline import default_recognizer

    reading = read_photo(SAMPLE)
    assert reading.recognition.to_json() == recognize(SAMPLE).to_json()
    assert reading.hand == parse_hand(reading.recognition.hand)
    longest = max(reading.recognition.width, reading.recognition.height)
    assert max(reading.image.shape[:2]) == min(default_recognizer().work_side, longest)  # what is drawn on
    one, every = judge(reading.recognition), judge(reading.recognition, PRESET_IDS)
    assert every.auto == all(judge(reading.recognition, (rid,)).auto for rid in PRESET_IDS)
    assert {d.message for d in one.doubts} <= {d.message for d in every.doubts}


def test_no_function_in_mjcam_is_over_60_lines():
    long = []
    for path in glob.glob(os.path.join(ROOT, "mjcam", "**", "*.py"), recursive=True):
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
        long += [f"{os.path.relpath(path, ROOT)}:{n.lineno} {n.name}" for n in ast.walk(tree)
                 if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.end_lineno - n.lineno >= 60]
    assert not long
