"""The bundled sample photos read as the hands they show; the layout sample shows every part of
the layout the README asks for: melded sets with a tile sideways, a concealed kong with face-down
ends, bonus tiles and the winning tile set apart."""

import os

import pytest

from mjcam.expected import same_hand

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAYOUT = os.path.join(ROOT, "samples", "hand-layout.jpg")


@pytest.fixture(scope="module")
def layout():
    from mjcam.vision.pipeline import recognize

    return recognize(LAYOUT)


def test_the_layout_sample_reads_as_its_hand(layout):
    assert same_hand(layout.hand, "[345m] [777p] {RdRdRdRd} 234s 9p F2 S2 +9p"), layout.hand
    assert layout.tiles[layout.winning].code == "9p" and not layout.winning_guessed  # set apart at the end
    kinds = sorted((g["kind"], g["melded"]) for g in layout.groups)
    assert kinds == [("bonus", False), ("chow", True), ("concealed", False), ("concealed_kong", False),
                     ("pung", True)]
    assert [t.orientation for t in layout.tiles].count("sideways") == 2
    assert [t.code for t in layout.tiles].count("back") == 2


def test_the_layout_sample_is_scored_without_a_person(layout):
    from mjcam.vision.trust import check

    t = check(layout, seat="S")
    assert t.auto, [d.message for d in t.doubts]
    assert t.score.fan == 4 and t.score.points == 16  # seat flower and season, self-drawn, dragon pung


def test_the_photo_command_on_the_layout_sample(capsys):
    from mjcam.cli import main

    assert main(["photo", LAYOUT, "--yes", "--seat", "S"]) == 0
    out = capsys.readouterr().out
    assert "sure: no likely misreading" in out and "Seat Flower" in out and "Payments" in out
