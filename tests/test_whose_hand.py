"""Whose hand a photo shows: which way the rows run (the lines of tiles must agree), and a winner
proposed, or which way the tiles stand named, only where the which-way-up probe is sure
(models/EXPERIMENTS.md, "Whose hand, third candidate")."""

import json
import os

import numpy as np
import pytest

from conftest import CHROMIUM, table_app
from mjcam.vision.io import load_image
from mjcam.vision.layout import FRAME_NOTES, UNSURE_NOTES, UP_SURE, in_line, orientations, up_sure
from mjcam.vision.pipeline import Recognition, Recognizer

ROOT = os.path.join(os.path.dirname(__file__), "..")
SAMPLES = os.path.join(ROOT, "samples")
HONOURS = os.path.join(SAMPLES, "hand-honours.jpg")
PUNGS = os.path.join(SAMPLES, "hand-pungs.jpg")
RETHINK = os.path.join(ROOT, "..", "shared", "data", "roboflow-rethink-bonus", "images")
#: a video frame of two rows of tiles lying face up, seen from the seat: the rows touch, every box
#: about square; it was read as rows running down the photo and its winner proposed from the wrong seat
TWO_ROWS_FRAME = "Screenshot-2024-09-23-at-4-18-52-PM_png.rf.a5f55ca5c7325d62f9f3115d8b79582e.jpg"


def _two_rows_face_up():
    """Two rows of ten boxes a little wider than tall, touching across and down (a face-up hand
    seen from the seat): nearest neighbours about as near both ways."""
    return [(41 * c, 39 * r, 41 * c + 40, 39 * r + 38) for r in range(2) for c in range(10)]


def test_two_touching_rows_of_square_boxes_run_across():
    boxes = _two_rows_face_up()
    assert in_line(boxes) > 1
    assert orientations(boxes, ["1m"] * 20)[1] is False


def test_a_tray_is_told_by_its_lines_and_turned_a_quarter_runs_down():
    tray = [(c * 44, r * 46, c * 44 + 40, r * 46 + 44) for r in range(3) for c in range(4)]
    assert in_line(tray) > 1 and orientations(tray, ["1m"] * 12)[1] is False
    turned = [(y0, x0, y1, x1) for x0, y0, x1, y1 in tray]
    assert in_line(turned) < 1 and orientations(turned, ["1m"] * 12)[1] is True


def test_rows_down_a_photo_turned_a_quarter_are_still_found():
    # a hand of standing tiles in two rows, the photo turned a quarter: wide boxes in columns
    boxes = [(45 * c, 31 * r, 45 * c + 40, 31 * r + 30) for c in range(2) for r in range(7)]
    assert in_line(boxes) < 1
    assert orientations(boxes, ["1m"] * 14)[1] is True
    # a single row sloping at 40 degrees, turned a quarter: the line followed along its slope
    row = [(300 + 29 * k, 300 + 24 * k) for k in range(-6, 8)]
    turned = [(y - 23, x - 25, y + 23, x + 25) for x, y in row]
    assert in_line(turned) < 1 and orientations(turned, ["1m"] * 14)[1] is True


class _Leaning:
    """A which-way-up probe whose standing tiles' log-odds sum to ``total`` (down positive)."""

    def __init__(self, total):
        self.total, self.seen = total, 0

    def tile_log_odds(self, image, boxes):
        self.seen = len(boxes)
        return np.full(len(boxes), self.total / max(1, len(boxes)))


def test_which_way_up_is_named_only_when_the_probe_is_sure():
    image = np.ascontiguousarray(load_image(HONOURS)[:, :320])  # half a row: seven standing tiles
    weak = _Leaning(10.0)  # past the grouping's margin (6) and mean (1), short of UP_SURE
    got = Recognizer(up=weak).read(image)
    assert 7 <= weak.seen < 10 and not up_sure(10.0, weak.seen) and UP_SURE > 10
    assert got.tops == "down" and got.tops_sure is False  # grouped right to left all the same
    assert UNSURE_NOTES[False, True] in got.notes
    assert not any("upside down" in n or "player sees" in n for n in got.notes)
    back = Recognition.from_json(json.loads(json.dumps(got.to_json())))
    assert back.tops == "down" and back.tops_sure is False

    strong = Recognizer(up=_Leaning(3 * UP_SURE)).read(image)
    assert strong.tops == "down" and strong.tops_sure is True and FRAME_NOTES[False, True] in strong.notes
    assert Recognition.from_json(json.loads(json.dumps(strong.to_json()))).tops_sure is True
    assert [t.code for t in strong.tiles] == [t.code for t in got.tiles]  # the same order either way


def test_a_hand_read_upright_the_photo_as_it_is_is_sure():
    rec = Recognizer().read(load_image(HONOURS))
    assert rec.tops == "up" and rec.tops_sure is True and rec.to_json()["tops_sure"] is True
    # no probe: nothing told, nothing sure
    assert Recognizer(up=None).read(load_image(HONOURS)).tops_sure is False


@pytest.mark.skipif(not os.path.exists(os.path.join(RETHINK, TWO_ROWS_FRAME)),
                    reason="no ../shared/data beside the checkout")
def test_a_video_frame_of_two_face_up_rows_is_read_across_and_upright():
    rec = Recognizer().read(load_image(os.path.join(RETHINK, TWO_ROWS_FRAME)))
    assert rec.tops == "up" and rec.tops_sure
    assert not any("rows run down" in n for n in rec.notes)


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium (apt-get install chromium)")
def test_the_table_app_proposes_a_winner_only_when_the_reading_is_sure(tmp_path):
    pytest.importorskip("playwright.sync_api")
    pytest.importorskip("starlette")

    with table_app(tmp_path, viewport={"width": 390, "height": 844}) as (page, base):
        page.goto(base + "/")
        for i, name in enumerate(["Ann", "Bo", "Cy", "Di"]):
            page.fill(f"input[name=p{i}]", name)
        page.click("#start-game")
        page.wait_for_selector("#game:not([hidden])")
        page.select_option("#phone", "0")  # Ann's phone
        verdict = {}

        def reading_as(route):  # the recogniser's answer, its way up set by the test
            response = route.fetch()
            body = response.json()
            body["recognition"].update(verdict)
            route.fulfill(response=response, json=body)

        page.route("**/api/games/*/photos", reading_as)
        for tops, sure, winner, words in (("left", False, "", "No winner proposed"),
                                          ("left", True, "1", "Winner proposed: Bo (the tiles face Bo's seat)"),
                                          (None, False, "", "No winner proposed")):
            page.evaluate("resetHand()")
            verdict.update(tops=tops, tops_sure=sure)
            page.set_input_files("#photo", PUNGS)
            page.wait_for_selector("#reading:not([hidden]) button.tile")
            page.wait_for_function("document.querySelector('#proposed').textContent !== ''")
            assert page.input_value("#winner") == winner
            assert words in page.inner_text("#proposed")
